"""A checkout's package laid out as installed, outside the checkout.

``pyproject.toml`` installs the top-level folders ``solvers/``,
``heuristics/`` and ``instances/`` as subpackages of ``schedbench``
(``tool.setuptools.package-dir``); an editable install only maps them. A
folder laid out the same way imports that checkout's package through
PYTHONPATH alone: what import-linter reads in the tests (copies), and what
``bench.pcmax_ab`` runs an older revision from (symbolic links).
"""

import shutil
import tomllib
from pathlib import Path

from schedbench.errors import UserInputError


def package_tree(checkout: Path, target: Path, copy: bool = False) -> Path:
    """``checkout``'s package laid out as installed under ``target``, its
    files copied (``copy``) or linked; a folder that is not a checkout
    (no ``pyproject.toml`` with the mapping) is one error naming it."""
    checkout = checkout.resolve()
    try:
        mapping = tomllib.loads((checkout / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    except (OSError, tomllib.TOMLDecodeError, KeyError) as exc:
        raise UserInputError("", f"{checkout} is not a schedbench checkout (its pyproject.toml has no "
                                 f"tool.setuptools.package-dir: {exc})") from None
    for package, folder in sorted(mapping.items(), key=lambda item: item[0].count(".")):
        destination = target.joinpath(*package.split("."))
        if copy:
            shutil.copytree(checkout / folder, destination, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("__pycache__", "corpus"))
            continue
        destination.mkdir(parents=True, exist_ok=True)  # a subpackage its parent linked already is left as it is
        for entry in (checkout / folder).iterdir():
            link = destination / entry.name
            if not link.exists():
                link.symlink_to(entry)
    return target
