"""Errors that the command line turns into one line on stderr and exit code 2."""

import difflib

#: How alike a misspelled key must be to a known one to be suggested (difflib's ratio):
#: "jobz" is 0.75 from "jobs"; "extra" only 0.67 from "meta".
CLOSE = 0.7


class UserInputError(Exception):
    """Bad input from the user: a malformed instance, schedule or option.

    ``field`` is a JSON-path-like name of the offending field
    (``users[1].campaigns[0].jobs[2]``) so the message points at it.
    """

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field
        self.message = message  # without the field: what a caller naming another field keeps

    def __reduce__(self):
        """Picklable whatever the subclass's ``__init__``: a worker process
        (a pool, Dask) sends it back as raised."""
        return _restore, (type(self), self.args, self.__dict__)


def _restore(cls: type, args: tuple, state: dict) -> Exception:
    error = Exception.__new__(cls)
    error.args = args
    error.__dict__.update(state)
    return error


class InstanceError(UserInputError):
    """The instance file breaks the format reference."""


class BeyondSchemaError(InstanceError):
    """The instance breaks a rule its family's JSON Schema cannot state (an
    acyclic task graph, 3-PARTITION's item bounds, a total within the
    solvers' limits): raised by a family's ``parse`` after the declaration
    has been checked, so a test can tell the schema's part from the rest."""


class ScheduleFormatError(UserInputError):
    """The schedule file is not a schedule of the given instance."""


class NotProven(Exception):
    """An exact value a computation needs was not proven within the time limit."""


class ModelTooLarge(UserInputError):
    """A backend refuses a model beyond its size cap (named on ``--solver``):
    a user's choice to revisit, or, when a proof is being confirmed, a sign
    to ask the next independent method instead."""

    def __init__(self, message: str):
        super().__init__("--solver", message)


def unknown_key(error: type[UserInputError], where: str, key: str, known, what: str = "key") -> UserInputError:
    """``error`` for ``key``, which is not one of ``known``: named by its
    path, with the nearest known key (a misspelled optional key would
    otherwise silently change the problem)."""
    field = f"{where}.{key}" if where else str(key)
    close = difflib.get_close_matches(str(key), [str(name) for name in known], n=1, cutoff=CLOSE)
    if close:
        return error(field, f'unknown {what} (did you mean "{close[0]}"?)')
    return error(field, f"unknown {what} (known: {', '.join(sorted(map(str, known))) or 'none'})")
