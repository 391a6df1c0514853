"""The experiment harness: grids into cells, the results store, resuming
after SIGKILL, Dask against the process pool, batches and merging."""

import json
import os
import random
import signal
import subprocess
import sys
import time
from fractions import Fraction

import pytest

from conftest import run_cli
from schedbench.harness.experiment import load, parse
from schedbench.harness.runner import run_experiment, seed_bundles
from schedbench.harness.store import VALUE_COLUMNS, Store
from schedbench.errors import UserInputError

# 40 instances x (4 heuristics + CP-SAT) = 200 cells; every optimum is proven in well under a second.
GRID_200 = """
name = "two-hundred"
[[grid]]
family = "pcmax"
generator = "pcmax-uniform"
vary = { jobs = [6, 8], machines = [2, 3] }
seeds = 10
heuristics = ["list", "lpt", "spt", "mlpt"]
solvers = [{ name = "cpsat", time_limit = 20 }]
metrics = ["makespan"]
"""

# Exact solves in small steps, every one proven within its limit (a cell
# stopped by its time limit keeps whatever incumbent the clock left it, which
# no rerun reproduces).
KILL_GRID = """
name = "killed"
[[grid]]
family = "workflow"
generator = "workflow-small"
seeds = 30
heuristics = ["fifo-job", "srtf", "pslr"]
solvers = [{ name = "cpsat", time_limit = 30 }]
"""


def write(tmp_path, text, name="exp.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def values(path) -> dict:
    """Every stored cell's reproducible columns, by cell id. A solver's
    schedule among several optima is not part of its value."""
    with Store(path, create=False) as store:
        out = {}
        for row in store.rows():
            keep = [c for c in VALUE_COLUMNS if c != "algorithm_version"]
            if row["kind"] == "solver":
                keep = [c for c in keep if c not in ("schedule", "metrics")]
            out[row["cell_id"]] = {c: row[c] for c in keep}
        return out


def test_grid_expands_into_cells_with_stable_ids(tmp_path):
    experiment = load(write(tmp_path, GRID_200))
    assert len(experiment.tasks) == 40 and experiment.cells == 200
    again = load(write(tmp_path, GRID_200, "copy.toml"))
    assert [c.cell_id for t in experiment.tasks for c in t.cells] == [c.cell_id for t in again.tasks for c in t.cells]
    sizes = {json.dumps(t.instance.size, sort_keys=True) for t in experiment.tasks}
    assert len(sizes) == 4


def test_tasks_of_one_seed_run_in_one_process_without_starving_the_workers(tmp_path):
    """GRID_200: 10 seeds x 4 sizes. With 2 workers a bundle holds the 4
    sizes of one seed; with 8, at most 40 // 32 = 1 task, so every worker
    still gets work."""
    tasks = list(load(write(tmp_path, GRID_200)).tasks)
    bundles = seed_bundles(tasks, 2)
    assert len(bundles) == 10 and all(len({t.instance.seed for t in b}) == 1 and len(b) == 4 for b in bundles)
    assert sorted(t.instance.text for b in bundles for t in b) == sorted(t.instance.text for t in tasks)
    assert len(seed_bundles(tasks, 8)) == 40


def test_faircamp_workloads_of_one_seed_share_their_campaigns_for_every_k():
    """What makes a seed's bundle cheap in Fig. 4: the same jobs and
    campaigns for every number of users, only their owners differ."""
    from schedbench.instances.campaign import faircamp_paper

    def campaigns(k):
        return sorted(c.jobs for user in faircamp_paper(k, seed=4, n_jobs=2_000).users for c in user.campaigns)

    assert campaigns(2) == campaigns(5) == campaigns(20)


def test_quick_overrides_and_overlapping_grids(tmp_path):
    text = GRID_200.replace("seeds = 10", "seeds = 10\nquick = { seeds = 2, vary = { jobs = [6], machines = [2] } }")
    assert load(write(tmp_path, text), quick=True).cells == 2 * 5
    assert load(write(tmp_path, text), quick=False).cells == 200
    doubled = text + text[text.index("[[grid]]"):]
    assert load(write(tmp_path, doubled)).cells == 200  # the same cells twice are one cell


def test_batches_deal_the_instances_of_overlapping_grids_in_key_order(tmp_path):
    """Batch K of N is every N-th instance in the order of the instance keys,
    each with the cells of every grid that asks for it: the batches of a
    file partition its tasks, cell for cell, whatever order its grids are in."""
    wider = GRID_200.replace('heuristics = ["list", "lpt", "spt", "mlpt"]', 'heuristics = ["lpt", "multifit"]')
    path = write(tmp_path, GRID_200 + wider[wider.index("[[grid]]"):].replace("jobs = [6, 8]", "jobs = [8, 10]"))
    whole = {t.instance.text: {c.cell_id for c in t.cells} for t in load(path).tasks}
    assert len(whole) == 60 and sum(map(len, whole.values())) == 200 + 40 * 3 - 20 * 2 == load(path).cells
    batches = [load(path, batch=(k, 7)) for k in range(1, 8)]
    dealt = sorted(whole)
    for k, batch in enumerate(batches):
        assert [t.instance.text for t in batch.tasks] == dealt[k::7]
        assert all({c.cell_id for c in t.cells} == whole[t.instance.text] for t in batch.tasks)
        assert batch.cells == sum(len(t.cells) for t in batch.tasks)  # counted without building the cells


@pytest.mark.parametrize("quick", ["seeds = 0", "vary = { jobs = [6, 6] }", "metrics = [\"nope\"]",
                                   "solvers = [{ name = \"cpsat\", time_limit = -1 }]"])
def test_a_bad_quick_override_is_refused_by_either_variant_and_named_where_written(tmp_path, quick):
    """It loaded without --quick, and with it was named as the grid's own key."""
    key = quick.split(" ")[0]
    path = write(tmp_path, GRID_200.replace("seeds = 10", f"seeds = 10\nquick = {{ {quick} }}"))
    for variant in (False, True):
        with pytest.raises(UserInputError) as caught:
            load(path, quick=variant)
        assert caught.value.field.startswith(f"grid[0].quick.{key}"), caught.value


def test_the_quick_variant_is_checked_whole_and_its_errors_say_so(tmp_path):
    """A figure of a metric only the full grid computes loaded until --quick;
    a clash the quick overrides make elsewhere says it comes from them."""
    figure = '[[figure]]\nname = "f"\nkind = "hist"\ny = "metrics.makespan"\n'
    undrawable = write(tmp_path, GRID_200.replace("seeds = 10", "seeds = 10\nquick = { metrics = [] }") + figure)
    clash = write(tmp_path, GRID_200.replace("seeds = 10", "seeds = 10\nquick = { params = { jobs = 3 } }"), "c.toml")
    own = write(tmp_path, GRID_200.replace("seeds = 10", "seeds = 10\nparams = { nope = 1 }\nquick = { seeds = 1 }"),
                "o.toml")
    with pytest.raises(UserInputError, match=r"^grid\[0\]\.params\.nope: unknown parameter \(known: [^)]*\)$"):
        load(own, quick=True)  # the table's own error, not blamed on its quick overrides
    for variant in (False, True):
        with pytest.raises(UserInputError, match=r"^figure\[0\]\.y: no grid computes the metric 'makespan' with --quick"):
            load(undrawable, quick=variant)
        with pytest.raises(UserInputError, match=r"^grid\[0\]\.vary\.jobs: .*\(with the grid\[0\]\.quick overrides\)$"):
            load(clash, quick=variant)


@pytest.mark.parametrize("change, field", [
    (lambda t: t.replace('family = "pcmax"', 'family = "nope"'), "grid[0].family"),
    (lambda t: t.replace('"pcmax-uniform"', '"nope"'), "grid[0].generator"),
    (lambda t: t.replace("seeds = 10", "seeds = 0"), "grid[0].seeds"),
    (lambda t: t.replace("seeds = 10", "seedz = 10"), "grid[0].seedz"),
    (lambda t: t.replace('"mlpt"]', '"nope"]'), "grid[0].heuristics"),
    (lambda t: t.replace("time_limit = 20", "time_limit = -1"), "grid[0].solvers[0].time_limit"),
    (lambda t: t.replace("time_limit = 20", "time_limit = nan"), "grid[0].solvers[0].time_limit"),
    (lambda t: t.replace("time_limit = 20", "time_limit = inf"), "grid[0].solvers[0].time_limit"),
    (lambda t: t.replace('"mlpt"]', '{ name = "mlpt" }]'), "grid[0].heuristics[3]"),
    # a value given twice is refused, never dropped nor run twice
    (lambda t: t.replace('"mlpt"]', '"mlpt", "lpt"]'), "grid[0].heuristics: repeats the heuristic 'lpt'"),
    (lambda t: t.replace("jobs = [6, 8]", "jobs = [6, 6]"), "grid[0].vary.jobs: repeats the value 6"),
    (lambda t: t.replace('metrics = ["makespan"]', 'metrics = ["makespan", "makespan"]'), "grid[0].metrics"),
    (lambda t: t.replace("seeds = 10", "seeds = [1, 1]"), "grid[0].seeds: repeats the seed 1"),
    (lambda t: t.replace("seeds = 10", "seeds = [9223372036854775808]"), "grid[0].seeds"),  # past SQLite's INTEGER
    (lambda t: t.replace("seeds = 10", "seeds = [-1]"), "grid[0].seeds"),
    (lambda t: t.replace("seeds = 10", "seeds = 1000000000000"), "grid[0].seeds: must be a count from 1 to 1,000,000"),
    (lambda t: t.replace('{ name = "cpsat", time_limit = 20 }', '{ name = "cpsat", time_limit = 20 }, '
                         '{ name = "cpsat", time_limit = 20 }'), "grid[0].solvers: repeats the solver"),
    (lambda t: t.replace('{ name = "cpsat", time_limit = 20 }', '{ name = "cpsat", time_limit = 20 }, '
                         '{ name = "cpsat", time_limit = 20.0, workers = 1 }'), "grid[0].solvers: repeats the solver"),
    (lambda t: t.replace('name = "cpsat"', 'name = "gurobi"'), "grid[0].solvers[0].name"),
    (lambda t: t.replace('metrics = ["makespan"]', 'metrics = ["nope"]'), "grid[0].metrics"),
    (lambda t: t.replace("jobs = [6, 8]", "jobs = 6"), "grid[0].vary.jobs"),
    (lambda t: t + "\n[broken", "EXPERIMENT"),
    # found when the file is loaded, not as error cells at run time
    (lambda t: t.replace('"pcmax-uniform"', '"small"').replace("vary = { jobs = [6, 8], machines = [2, 3] }", ""),
     "grid[0].generator"),                                                                # a campaign generator
    (lambda t: t + '[[figure]]\nname = "f"\nkind = "hist"\ny = "metrics.nope"\n', "figure[0].y: no grid computes"),
    (lambda t: t + '[[figure]]\nname = "f"\nkind = "hist"\ny = "value"\nwhere = { "metrics.nope" = 1 }\n',
     "figure[0].where.metrics.nope: no grid computes"),
    (lambda t: t + '[[figure]]\nname = "f"\nkind = "hist"\ny = "value"\n' * 2, "figure: repeats the figure name 'f'"),
    (lambda t: t.replace("jobs = [6, 8]", "jbos = [6, 8]"), "grid[0].vary.jbos"),
    (lambda t: t.replace("seeds = 10", "seeds = 10\nparams = { jbos = 6 }"), "grid[0].params.jbos"),
    (lambda t: t.replace("jobs = [6, 8]", 'jobs = [6, "x"]'), "grid[0].vary.jobs"),
    (lambda t: t.replace("jobs = [6, 8]", "jobs = [-3]"), "grid[0].vary.jobs"),
    (lambda t: t.replace("seeds = 10", "seeds = 10\nparams = { seed = 3 }"), "grid[0].params.seed"),
    (lambda t: t.replace('name = "cpsat"', 'name = "portfolio"').replace('"pcmax"', '"campaign"')
     .replace('"pcmax-uniform"', '"small"').replace("vary = { jobs = [6, 8], machines = [2, 3] }", "")
     .replace('"list", "lpt", "spt", "mlpt"', '"fcfs"').replace('metrics = ["makespan"]', ""),
     "grid[0].solvers[0].name"),
])
def test_bad_experiment_is_one_line_naming_the_field(tmp_path, change, field):
    out = run_cli("run", write(tmp_path, change(GRID_200)), "--store", tmp_path / "s.sqlite", "--no-progress")
    assert out.returncode == 2, out.stderr
    assert out.stderr.startswith(f"schedbench: {field}") and out.stderr.count("\n") == 1, out.stderr
    assert "Traceback" not in out.stderr


def test_a_heuristic_option_no_heuristic_takes_is_caught_at_load(tmp_path):
    text = """
[[grid]]
family = "campaign"
generator = "small"
heuristics = ["fcfs", "faircamp"]
heuristic_options = { inner = ["lpt", "bogus"] }
"""
    with pytest.raises(UserInputError, match=r"^grid\[0\]\.heuristic_options\.inner: must be one of"):
        load(write(tmp_path, text))
    dssp = """
[[grid]]
family = "dssp"
generator = "dssp-small"
heuristics = ["lcpf", "priority"]
heuristic_options = { r = ["0.9"] }
"""
    with pytest.raises(UserInputError, match=r"^grid\[0\]\.heuristic_options: priority takes no option r"):
        load(write(tmp_path, dssp, "dssp.toml"))
    from schedbench.harness.corpus import corpus_dir

    files = text.replace('generator = "small"', f'instances = "{corpus_dir()}/*/*.json"')
    files = files.replace('heuristic_options = { inner = ["lpt", "bogus"] }', "")
    with pytest.raises(UserInputError, match=r"^grid\[0\]\.instances: .* is a \w+ instance, not campaign"):
        load(write(tmp_path, files, "files.toml"))
    for key in ("seeds = 3", "params = { machines = 2 }"):  # a generator's settings, never silently ignored
        with pytest.raises(UserInputError, match=rf"^grid\[0\]\.{key.split()[0]}: sets a generator's instances"):
            load(write(tmp_path, f'[[grid]]\nfamily = "pcmax"\ninstances = "x/*.json"\n{key}\n', "mixed.toml"))


def test_run_stores_exact_values_and_resumes(tmp_path):
    store = tmp_path / "s.sqlite"
    exp = write(tmp_path, GRID_200.replace("seeds = 10", "seeds = 2"))
    first = run_cli("run", exp, "--store", store, "--workers", "1", "--no-progress")
    assert first.returncode == 0, first.stderr
    assert "ran 40 (32 feasible, 8 optimal)" in first.stdout, first.stdout
    again = run_cli("run", exp, "--store", store, "--no-progress")
    assert again.returncode == 0 and "40 already stored, ran 0" in again.stdout, again.stdout
    with Store(store, create=False) as db:
        rows = list(db.rows())
        assert len(rows) == 40 and len({r["cell_id"] for r in rows}) == 40
        by_instance = {}
        for row in rows:
            by_instance.setdefault(row["instance_hash"], []).append(row)
        for group in by_instance.values():
            optimum = [Fraction(r["value"]) for r in group if r["kind"] == "solver"]
            assert len(optimum) == 1 and group[0]["sense"] == "min"
            assert all(r["status"] == "optimal" for r in group if r["kind"] == "solver")
            for r in group:
                if r["kind"] == "heuristic":
                    assert r["status"] == "feasible" and Fraction(r["value"]) >= optimum[0]
                    assert Fraction(r["bound"]) <= optimum[0]  # the cheap bound is a valid lower bound
                    assert json.loads(r["metrics"]) == {"makespan": int(Fraction(r["value"]))}
                    assert r["algorithm_version"].startswith("0.1.0+") and r["schedule"]
        assert db.runs()[-1]["experiment"] == "two-hundred" and "ortools" in db.runs()[-1]["versions"]


def test_a_failing_cell_is_recorded_and_the_run_exits_1(tmp_path):
    """OStrich takes the inner order mlpt as an option but refuses it when it
    runs: that cell ends in error, with its message, and the others go on."""
    exp = write(tmp_path, """
[[grid]]
family = "campaign"
generator = "small"
seeds = 1
objectives = ["sum-user-flow"]
heuristics = ["faircamp", "ostrich"]
heuristic_options = { inner = ["mlpt"] }
""")
    out = run_cli("run", exp, "--store", tmp_path / "s.sqlite", "--no-progress")
    assert out.returncode == 1 and "1 cells ended in error" in out.stderr, out.stderr
    with Store(tmp_path / "s.sqlite", create=False) as db:
        rows = {r["algorithm"]: r for r in db.rows()}
    assert rows["faircamp"]["status"] == "feasible"
    assert rows["ostrich"]["status"] == "error" and "mlpt" in rows["ostrich"]["error"]


def clean_run(tmp_path, text, name):
    store = tmp_path / name
    with Store(store) as db:
        run_experiment(parse_text(text), db, workers=2)
    return store


def parse_text(text):
    import tomllib
    from pathlib import Path

    return parse(tomllib.loads(text), text, Path.cwd(), False, "exp")


def stored(store) -> int:
    try:
        with Store(store, create=False) as db:
            return db.count()
    except UserInputError:  # not there yet, or the run is still creating its tables
        return 0


def test_sigkill_at_random_moments_loses_nothing_and_duplicates_nothing(tmp_path):
    """Three runs on one store, each killed (run and workers, SIGKILL) at a random
    moment after it has stored a random number of new cells; then a run that
    finishes. The store must equal a clean run's, every cell once."""
    exp = write(tmp_path, KILL_GRID)
    store = tmp_path / "killed.sqlite"
    total = parse_text(KILL_GRID).cells
    rng = random.Random(7)
    counts = []
    for _ in range(3):
        before = stored(store)
        target = before + rng.randint(1, (total - before) // 3)
        process = subprocess.Popen([sys.executable, "-c", "from schedbench.cli import main; main()", "run", str(exp),
                                    "--store", str(store), "--workers", "2", "--no-progress"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        while stored(store) < target and process.poll() is None:
            time.sleep(0.02)
        time.sleep(rng.uniform(0, 0.1))
        assert process.poll() is None, "the run finished before it could be killed"
        os.killpg(process.pid, signal.SIGKILL)  # the run and its workers, with no chance to clean up
        process.wait()
        with Store(store, create=False) as db:
            assert db.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        counts.append(stored(store))
        assert before < counts[-1] < total, counts   # killed mid-run; nothing committed was lost
    finish = run_cli("run", exp, "--store", store, "--workers", "2", "--no-progress")
    assert finish.returncode == 0, finish.stderr
    assert f"{counts[-1]} already stored, ran {total - counts[-1]}" in finish.stdout, finish.stdout
    assert values(store) == values(clean_run(tmp_path, KILL_GRID, "clean.sqlite"))
    assert len(values(store)) == total


def test_an_in_process_run_leaves_the_process_settings_as_it_found_them(tmp_path, monkeypatch):
    """A cell's one CP-SAT worker holds while the cell runs, not after it
    (left set, it made every later solve of a test session single-threaded),
    and an in-process run keeps the collector's threshold (only the pool's
    worker processes change theirs)."""
    import gc

    from schedbench.solvers.exact import settings

    monkeypatch.setattr(settings, "CPSAT_WORKERS", 2)
    before = gc.get_threshold()
    with Store(tmp_path / "s.sqlite") as db:
        summary = run_experiment(parse_text(KILL_GRID.replace("seeds = 30", "seeds = 2")), db, workers=1)
    assert summary.statuses == {"feasible": 6, "optimal": 2}
    assert (settings.cpsat_workers_now(), gc.get_threshold()) == (2, before)


def test_a_scoped_worker_count_holds_in_its_own_thread_only(monkeypatch):
    """Two threads (Dask's cells) in their blocks at once, left in the order
    they entered: each sees its own count, and the process's is untouched."""
    import threading

    from schedbench.solvers.exact import settings

    monkeypatch.setattr(settings, "CPSAT_WORKERS", 2)
    inside, seen = threading.Barrier(2), {}

    def cell(count: int, wait: float) -> None:
        with settings.cpsat_workers(count):
            inside.wait()
            time.sleep(wait)
            seen[count] = settings.cpsat_workers_now()

    threads = [threading.Thread(target=cell, args=(count, wait)) for count, wait in ((1, 0.0), (3, 0.1))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == {1: 1, 3: 3} and settings.cpsat_workers_now() == 2


def _collector_threshold(_) -> int:
    import gc

    return gc.get_threshold()[0]


def test_local_workers_collect_at_the_bundles_threshold():
    from schedbench.harness.runner import GC_THRESHOLD, map_unordered

    assert set(map_unordered(_collector_threshold, [0, 1], workers=2)) == {GC_THRESHOLD}


def test_dask_local_cluster_gives_the_same_values_as_the_process_pool(tmp_path):
    from distributed import LocalCluster

    experiment = parse_text(GRID_200)
    pool, dask = tmp_path / "pool.sqlite", tmp_path / "dask.sqlite"
    with Store(pool) as db:
        run_experiment(experiment, db, workers=2)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Store(dask) as db:
        summary = run_experiment(experiment, db, cluster=cluster.scheduler_address)
    assert summary.ran == 200 and summary.statuses == {"feasible": 160, "optimal": 40}
    assert values(pool) == values(dask) and len(values(pool)) == 200


def test_batches_merge_into_the_full_run_without_duplicates(tmp_path):
    exp = write(tmp_path, GRID_200.replace("seeds = 10", "seeds = 3"))
    parts = []
    for k in (1, 2, 3):
        part = tmp_path / f"part{k}.sqlite"
        out = run_cli("run", exp, "--store", part, "--batch", f"{k}/3", "--workers", "1", "--no-progress")
        assert out.returncode == 0, out.stderr
        parts.append(part)
    sizes = [len(values(p)) for p in parts]
    assert sum(sizes) == 60 and min(sizes) > 0
    merged = tmp_path / "merged.sqlite"
    out = run_cli("merge", merged, *parts, parts[0])  # a store merged twice adds nothing
    assert out.returncode == 0 and f"{parts[0]}: 0 cells added" in out.stdout, out.stdout
    full = tmp_path / "full.sqlite"
    assert run_cli("run", exp, "--store", full, "--workers", "1", "--no-progress").returncode == 0
    assert values(merged) == values(full)
    with Store(merged, create=False) as db, Store(full, create=False) as whole:
        assert len(db.runs()) == 3   # parts[0] merged twice brings its run once
        assert db.members() == whole.members() and len(db.members()[("two-hundred", 0)]) == 60


def test_bad_batch_and_missing_store(tmp_path):
    exp = write(tmp_path, GRID_200)
    out = run_cli("run", exp, "--batch", "4/3", "--store", tmp_path / "s.sqlite")
    assert out.returncode == 2 and out.stderr.startswith("schedbench: --batch")
    out = run_cli("export", tmp_path / "none.sqlite", "--out", tmp_path / "x.csv")
    assert out.returncode == 2 and "no results store" in out.stderr


def test_merge_checks_every_source_before_it_writes(tmp_path):
    """A bad source found halfway left OUT half merged; a missing one left an empty OUT."""
    good = tmp_path / "good.sqlite"
    assert run_cli("run", write(tmp_path, GRID_200.replace("seeds = 10", "seeds = 1")), "--store", good,
                   "--no-progress").returncode == 0
    (tmp_path / "text.sqlite").write_text("not a database")
    for sources, message in (([good, tmp_path / "text.sqlite"], "is not a schedbench results store"),
                             ([tmp_path / "none.sqlite"], "no results store")):
        out = run_cli("merge", tmp_path / "out.sqlite", *sources)
        assert out.returncode == 2 and message in out.stderr and out.stderr.count("\n") == 1, out.stderr
        assert not (tmp_path / "out.sqlite").exists()


def test_another_applications_sqlite_file_is_refused_and_left_as_it_was(tmp_path):
    """run and merge added the store's tables to it (and switched its journal to WAL)."""
    import sqlite3

    foreign = tmp_path / "app.sqlite"
    with sqlite3.connect(foreign) as db:
        db.execute("CREATE TABLE users (name TEXT)")
    before = foreign.read_bytes()
    exp = write(tmp_path, GRID_200.replace("seeds = 10", "seeds = 1"))
    with Store(tmp_path / "empty.sqlite"):
        pass
    for args in (("run", exp, "--store", foreign, "--no-progress"), ("merge", foreign, tmp_path / "empty.sqlite"),
                 ("table", foreign)):
        out = run_cli(*args)
        assert out.returncode == 2 and out.stderr.count("\n") == 1, (args, out.stderr)
        assert "is not a schedbench results store (it has the tables ['users']" in out.stderr, (args, out.stderr)
    assert foreign.read_bytes() == before and not (tmp_path / "app.sqlite-wal").exists()
    legacy = tmp_path / "legacy.sqlite"  # the first stores had no members table: readers read one, run adds it
    assert run_cli("run", exp, "--store", legacy, "--workers", "1", "--no-progress").returncode == 0
    with Store(legacy) as db:
        db.db.execute("DROP TABLE members")
    table = run_cli("table", legacy, "--experiment", "two-hundred", "--format", "csv")
    assert table.returncode == 0 and table.stdout.count("\n") > 2, table.stderr
    assert run_cli("export", legacy, "--out", tmp_path / "legacy.csv").returncode == 0
    out = run_cli("run", exp, "--store", legacy, "--workers", "1", "--no-progress")
    assert out.returncode == 0 and "20 already stored" in out.stdout, out.stderr
    with Store(legacy, create=False) as db:
        assert len(db.members()[("two-hundred", 0)]) == 20


def test_export_csv_and_parquet_keep_exact_values(tmp_path):
    import csv

    import pyarrow.parquet as pq

    exp = write(tmp_path, GRID_200.replace("seeds = 10", "seeds = 1"))
    store = tmp_path / "s.sqlite"
    assert run_cli("run", exp, "--store", store, "--workers", "1", "--no-progress").returncode == 0
    assert run_cli("export", store, "--out", tmp_path / "x.csv").returncode == 0
    assert run_cli("export", store, "--out", tmp_path / "x.parquet").returncode == 0
    with Store(store, create=False) as db:
        stored = {r["cell_id"]: r["value"] for r in db.rows()}
    with open(tmp_path / "x.csv") as f:
        assert {r["cell_id"]: r["value"] for r in csv.DictReader(f)} == stored
    table = pq.read_table(tmp_path / "x.parquet").to_pylist()
    assert {r["cell_id"]: r["value"] for r in table} == stored
    bad = run_cli("export", store, "--out", tmp_path / "x.xlsx")
    assert bad.returncode == 2 and bad.stderr.startswith("schedbench: --out")
    for command in ("export", "table"):
        nowhere = run_cli(command, store, "--out", tmp_path / "missing" / "x.csv")
        assert nowhere.returncode == 2 and nowhere.stderr.startswith("schedbench: --out") and \
            "Traceback" not in nowhere.stderr, nowhere.stderr


def test_two_experiments_sharing_cells_both_see_them(tmp_path):
    """The cells are stored once, by the first experiment that runs them; the
    second one's tables and figures still find every one of its cells."""
    from schedbench.harness.analysis import read_store
    from schedbench.harness.plots import draw_all, figure_rows, figure_specs

    small = GRID_200.replace("seeds = 10", "seeds = 1")
    first = write(tmp_path, small, "a.toml")
    second = write(tmp_path, small.replace('name = "two-hundred"', 'name = "second"') + """
[[figure]]
name = "shared"
kind = "bar"
y = "ratio_to_optimum"
series = "algorithm"
""", "b.toml")
    store = tmp_path / "s.sqlite"
    out = run_cli("run", first, second, "--store", store, "--workers", "1", "--no-progress")
    assert out.returncode == 0 and "second: 20 cells, 20 already stored, ran 0" in out.stdout, out.stdout
    view = read_store(store, "second")
    assert len(view.rows) == 20 and {r["experiment"] for r in view.rows} == {"two-hundred"}
    [(spec, _)] = draw_all(figure_specs(view.runs, "second"), figure_rows(view.rows), tmp_path, view.runs,
                           view.members)
    assert spec["name"] == "shared" and (tmp_path / "shared.png").stat().st_size > 5000
    table = run_cli("table", store, "--experiment", "second", "--format", "csv")
    assert table.returncode == 0 and table.stdout.count("\npcmax,") == 16   # 4 sizes x 4 heuristics


def test_a_cell_that_ended_in_error_is_run_again(tmp_path):
    exp = write(tmp_path, GRID_200.replace("seeds = 10", "seeds = 1"))
    store = tmp_path / "s.sqlite"
    assert run_cli("run", exp, "--store", store, "--workers", "1", "--no-progress").returncode == 0
    before = values(store)
    with Store(store) as db:   # as if a worker had crashed on one cell
        db.db.execute("UPDATE cells SET status = 'error', value = NULL, error = 'MemoryError' "
                      "WHERE cell_id = (SELECT MIN(cell_id) FROM cells)")
    again = run_cli("run", exp, "--store", store, "--workers", "1", "--no-progress")
    assert again.returncode == 0 and "19 already stored, ran 1" in again.stdout, again.stdout
    assert values(store) == before


def test_an_unreachable_cluster_is_one_line_and_records_nothing(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from schedbench.harness import runner
    from schedbench.cli import cli

    monkeypatch.setattr(runner, "CONNECT_TIMEOUT", "1s")
    store = tmp_path / "s.sqlite"
    result = CliRunner().invoke(cli, ["run", str(write(tmp_path, GRID_200)), "--store", str(store),
                                      "--cluster", "tcp://127.0.0.1:9", "--no-progress"])
    assert isinstance(result.exception, UserInputError)   # main() prints it as one line, exit 2
    assert str(result.exception).startswith("--cluster: no Dask scheduler answers at tcp://127.0.0.1:9")
    with Store(store, create=False) as db:
        assert db.runs() == [] and db.count() == 0


def test_changing_metrics_or_keep_schedules_makes_new_cells(tmp_path):
    base = load(write(tmp_path, GRID_200))
    fewer = load(write(tmp_path, GRID_200.replace('metrics = ["makespan"]', "metrics = []"), "b.toml"))
    lighter = load(write(tmp_path, GRID_200 + "keep_schedules = false\n", "c.toml"))
    ids = [{c.cell_id for t in e.tasks for c in t.cells} for e in (base, fewer, lighter)]
    assert not ids[0] & ids[1] and not ids[0] & ids[2]


QUICK_CELLS = {"claims": 4, "dssp_bound": 36, "dssp_fig13": 45, "dssp_figs14_21": 90, "exact_ratios": 336, "faircamp_fig4": 60,
               "mosp_fig6": 800, "ostrich_fig2": 8, "readings": 412,
               "mosp_figs5_7_9": 720, "mosp_fig8": 720, "workflow_fig3": 105, "workflow_fig4": 105, "workflow_fig5": 42}


@pytest.mark.parametrize("name", sorted(QUICK_CELLS))
def test_every_shipped_experiment_loads_and_its_quick_variant_is_smaller(name):
    from schedbench.commands.run import shipped_experiments

    assert sorted(p.stem for p in shipped_experiments()) == sorted(QUICK_CELLS)
    path = next(p for p in shipped_experiments() if p.stem == name)
    quick = load(path, quick=True)
    assert quick.cells == QUICK_CELLS[name] and quick.name == name.replace("_", "-")
    if name not in ("mosp_figs5_7_9", "mosp_fig8"):   # 2.4 million cells (20 s each): test_docs counts them whole
        assert load(path).cells > quick.cells or name == "claims"


def _cpsat_workers(_) -> int:
    from schedbench.solvers.exact import settings

    return settings.CPSAT_WORKERS


def test_local_workers_start_afresh_and_take_their_settings_from_the_environment(monkeypatch):
    """Workers are spawned, not forked (a fork after CP-SAT has run here can
    hang in its first solve): they see none of this process's module state,
    only what ``use_cpsat_workers`` puts in the environment."""
    from schedbench.harness.runner import map_unordered
    from schedbench.solvers.exact import settings

    monkeypatch.setenv("SCHEDBENCH_CPSAT_WORKERS", "3")
    monkeypatch.setattr(settings, "CPSAT_WORKERS", 5)   # module state only: not inherited
    assert set(map_unordered(_cpsat_workers, [0, 1], workers=2)) == {3}
    settings.use_cpsat_workers(1)
    assert settings.CPSAT_WORKERS == 1 and set(map_unordered(_cpsat_workers, [0, 1], workers=2)) == {1}


def test_a_cluster_address_dask_cannot_parse_is_one_line(tmp_path):
    for command in (["run", write(tmp_path, GRID_200), "--store", tmp_path / "s.sqlite", "--no-progress"],
                    ["worst", "lpt", "--family", "pcmax", "--budget", "1"]):
        out = run_cli(*command, "--cluster", "notanaddress")
        assert out.returncode == 2 and out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr
        assert out.stderr.startswith("schedbench: --cluster: 'notanaddress' is not a scheduler address"), out.stderr


STRETCH_GRID = """
name = "stretch"
[[grid]]
family = "mosp"
generator = "mosp-paper"
params = { organizations = 3, jobs = 12 }
seeds = 2
heuristics = ["ilba", "lpt-lpt"]
metrics = ["stretch"]
"""


def test_reference_time_limit_is_what_a_heuristic_cells_exact_references_may_take(tmp_path, monkeypatch):
    """A grid's ``reference_time_limit`` is in its heuristic cells' keys (a new
    cell, not the default limit's) and reaches the metrics' references; a
    file without it keeps its cells as they were."""
    from schedbench import families
    from schedbench.harness.cells import run_task

    plain = load(write(tmp_path, STRETCH_GRID))
    limited = load(write(tmp_path, STRETCH_GRID.replace('metrics =', 'reference_time_limit = 7\nmetrics ='), "l.toml"))
    assert {c.time_limit for t in plain.tasks for c in t.cells} == {None}
    assert {c.time_limit for t in limited.tasks for c in t.cells} == {7.0}
    assert not {c.cell_id for t in plain.tasks for c in t.cells} & {c.cell_id for t in limited.tasks for c in t.cells}
    asked = []
    for name in ("metric_references", "rule_references"):  # the metrics' optima, and the validator's ref_k
        monkeypatch.setattr(families, name, lambda instance, limit, *rest, ask=getattr(families, name):
                            asked.append(limit) or ask(instance, limit, *rest))
    for experiment, limit in ((limited, 7.0), (plain, 60.0)):
        asked.clear()
        rows = run_task(experiment.tasks[0])
        # every question of both cells (the validator's, their objective's, their Stretch's) got the limit
        assert len(asked) >= 3 * len(rows) == 6 and set(asked) == {limit}
        assert all(json.loads(row["metrics"])["stretch"] for row in rows)


def test_the_default_reference_time_limit_written_out_is_the_defaults_cell(tmp_path):
    plain = load(write(tmp_path, STRETCH_GRID))
    written = load(write(tmp_path, STRETCH_GRID.replace('metrics =', 'reference_time_limit = 60\nmetrics ='), "w.toml"))
    assert [c.cell_id for t in plain.tasks for c in t.cells] == [c.cell_id for t in written.tasks for c in t.cells]


@pytest.mark.parametrize("value", ["-1", "0", "\"10\"", "nan", "true"])
def test_a_bad_reference_time_limit_is_refused_by_name(tmp_path, value):
    path = write(tmp_path, STRETCH_GRID.replace('metrics =', f'reference_time_limit = {value}\nmetrics ='))
    with pytest.raises(UserInputError, match=r"^grid\[0\]\.reference_time_limit: must be a number of seconds"):
        load(path)


def test_a_reference_time_limit_on_a_grid_without_heuristics_is_refused(tmp_path):
    """It would change nothing: solver cells have their own time_limit."""
    text = STRETCH_GRID.replace('heuristics = ["ilba", "lpt-lpt"]', 'solvers = [{ name = "cpsat", time_limit = 5 }]')
    path = write(tmp_path, text.replace('metrics =', 'reference_time_limit = 10\nmetrics ='))
    with pytest.raises(UserInputError, match=r"^grid\[0\]\.reference_time_limit: .*runs no heuristic"):
        load(path)
