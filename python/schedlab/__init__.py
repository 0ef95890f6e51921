"""schedlab: a deterministic model of the Linux CFS scheduler, from Python.

The numbers are the CLI's: everything is computed by the same Rust core and crosses as the text
the CLI prints (run records, the table's JSON), so ``run(...).json`` is byte-equal to
``schedlab run FILE --format json`` and ``to_pandas()`` holds the same floats to the last bit.

    import schedlab
    t = schedlab.run("hikey960-asym-packing", runs=4)
    t.to_pandas()                       # one row per (param, variant)
    t.records()                         # one row per run: value, energy, counters
    tr = schedlab.trace("hikey960-asym-packing", run=0)
    tr.df_event("sched_switch")         # index Time (s), one column per field, as LISA's
"""

import builtins as _builtins
import json as _json
import os as _os

from . import _schedlab

__all__ = ["list", "suites", "show", "run", "run_records", "read_records", "trace", "merge",
           "scenario_hash", "Table", "Trace"]

MODEL_VERSION = _schedlab.MODEL_VERSION
REPORTS = ("value", "energy", "power", "perf-per-watt", "busy-mhz")


def list():  # noqa: A001 - the CLI's `schedlab list`
    """The built-in scenarios' names (each one ``show()`` and ``run()`` take)."""
    return [name for name, _title in _schedlab.builtins()]


def suites():
    """The suites (several scenarios, one experiment, as ``schedlab reproduce`` runs them):
    ``{name: [member names]}``. ``run(suite)`` returns one ``Table`` per member."""
    return {name: _builtins.list(members) for name, members in _schedlab.suites()}


def show(name):
    """A built-in scenario as a dict (the JSON ``schedlab show NAME`` prints)."""
    return _json.loads(_schedlab.show(name))


def _scenario_json(scenario, runs=None, seed=None):
    """The scenario as JSON text, with ``runs`` / ``seed`` overriding it as the CLI's options do.

    ``scenario`` is a built-in name, a path to a JSON file, JSON text, or a dict.
    """
    if isinstance(scenario, dict):
        s = dict(scenario)
    elif isinstance(scenario, str) and scenario.lstrip().startswith("{"):
        s = _json.loads(scenario)
    elif isinstance(scenario, (str, _os.PathLike)) and str(scenario).endswith(".json"):
        with open(scenario, encoding="utf-8") as f:
            text = f.read()
        if runs is None and seed is None:
            return text
        s = _json.loads(text)
    elif isinstance(scenario, str):
        if runs is None and seed is None:
            return _schedlab.show(scenario)
        s = _json.loads(_schedlab.show(scenario))
    else:
        raise TypeError("scenario: a built-in name, a .json path, JSON text or a dict")
    if runs is not None:
        s["runs"] = int(runs)
    if seed is not None:
        s["seed"] = int(seed)
    return _json.dumps(s)


def scenario_hash(scenario, runs=None, seed=None):
    """The hash keying the scenario's run records (``schedlab show NAME --hash``)."""
    return _schedlab.scenario_hash(_scenario_json(scenario, runs, seed))


class Table:
    """The comparison table of a scenario's runs, and the runs' records.

    ``json``, ``text`` and ``csv`` are what ``schedlab run FILE --format json|table|csv --report R``
    prints, byte for byte; ``jsonl`` the records file (``--format jsonl``).
    """

    def __init__(self, records, report=None):
        if report is not None and report not in REPORTS:
            raise ValueError(f"report {report!r}: one of {', '.join(REPORTS)}")
        self.report = report
        self.jsonl = records
        self.json = _schedlab.merge([("run", records)], "json", report)
        self.data = _json.loads(self.json)

    def __repr__(self):
        return self.text

    @property
    def text(self):
        return _schedlab.merge([("run", self.jsonl)], "table", self.report)

    @property
    def csv(self):
        return _schedlab.merge([("run", self.jsonl)], "csv", self.report)

    def rows(self):
        """One dict per (parameter, variant) cell, in the table's order."""
        d = self.data
        out = []
        for row in d["rows"]:
            for cell in row["cells"]:
                r = {d["param_name"]: row["param"]}
                r.update({k: v for k, v in cell.items() if k != "runs"})
                r["runs"] = cell["runs"]
                out.append(r)
        return out

    def to_pandas(self):
        """The table as a pandas DataFrame: one row per (parameter, variant)."""
        import pandas as pd

        return pd.DataFrame(self.rows())

    def to_polars(self):
        """The table as a polars DataFrame: one row per (parameter, variant)."""
        import polars as pl

        return pl.DataFrame(self.rows())

    def records(self, backend="pandas"):
        """One row per run (the records file), counters flattened to ``counters.NAME`` columns."""
        rows = [_flatten(r) for r in _read_records(self.jsonl)]
        if backend == "polars":
            import polars as pl

            return pl.DataFrame(rows)
        import pandas as pd

        return pd.DataFrame(rows)


def _read_records(text):
    out = []
    for line in text.splitlines():
        if not line.strip():
            continue
        r = _json.loads(line)
        if "schedlab_records" not in r:
            out.append(r)
    return out


def _flatten(record):
    r = {k: v for k, v in record.items() if k != "counters"}
    for k, v in record["counters"].items():
        if isinstance(v, _builtins.list):
            for i, n in enumerate(v):
                r[f"counters.{k}.{i}"] = n
        else:
            r[f"counters.{k}"] = v
    return r


def read_records(*paths, backend="pandas"):
    """Run records files (``schedlab run --format jsonl``) as one DataFrame, one row per run."""
    rows = []
    for p in paths:
        with open(p, encoding="utf-8") as f:
            rows.extend(_flatten(r) for r in _read_records(f.read()))
    if backend == "polars":
        import polars as pl

        return pl.DataFrame(rows)
    import pandas as pd

    return pd.DataFrame(rows)


def run(scenario, runs=None, seed=None, report=None, jobs=None):
    """Runs a scenario (built-in name, .json path, JSON text or dict) and returns its ``Table``
    (for a suite's name, a list of them, one per member, as ``schedlab reproduce`` prints them).

    ``runs`` and ``seed`` override the scenario's, as the CLI's ``--runs`` / ``--seed``; ``report``
    is the CLI's ``--report`` (value, energy, power, perf-per-watt, busy-mhz); ``jobs`` the
    threads (default: all cores). The GIL is released while the runs simulate.
    """
    members = _suite_members(scenario)
    if members is not None:
        return [run(m, runs, seed, report, jobs) for m in members]
    text = _schedlab.run_jsonl(_scenario_json(scenario, runs, seed), None, jobs)
    return Table(text, report)


def _suite_members(scenario):
    """A suite's member names when ``scenario`` names a suite, else None."""
    if isinstance(scenario, str):
        return dict(_schedlab.suites()).get(scenario)
    return None


def run_records(scenario, runs=None, seed=None, shard=None, jobs=None):
    """The records file of a scenario's runs (``shard=(i, n)``: only those of shard i of n)."""
    return _schedlab.run_jsonl(_scenario_json(scenario, runs, seed), shard, jobs)


def merge(*parts, report=None):
    """The ``Table`` of records files (paths or records text), as ``schedlab merge``."""
    texts = []
    for i, p in enumerate(parts):
        if isinstance(p, str) and p.lstrip().startswith("{"):
            texts.append((f"part {i}", p))
        else:
            with open(p, encoding="utf-8") as f:
                texts.append((str(p), f.read()))
    return Table(_schedlab.merge(texts, "jsonl", None), report)


class Trace:
    """One run's scheduler events (``schedlab trace``), per event as LISA's ``df_event()``."""

    EVENTS = (
        "sched_switch",
        "sched_waking",
        "sched_wakeup",
        "sched_wakeup_new",
        "sched_migrate_task",
        "cpu_frequency",
        "cpu_idle",
    )

    def __init__(self, ftrace, columns):
        self.ftrace = ftrace
        self._columns = {e: dict(pairs) for e, pairs in _json.loads(columns).items()}

    @property
    def available_events(self):
        return [e for e in self.EVENTS if self._columns[e]["Time"]]

    def df_event(self, event, backend="pandas"):
        """The events named ``event`` as a DataFrame: index ``Time`` (seconds), one column per
        field (the kernel's names, plus trace-cmd's ``__cpu``, ``__pid``, ``__comm``)."""
        if event not in self._columns:
            raise ValueError(f"event {event!r}: one of {', '.join(self.EVENTS)}")
        cols = self._columns[event]
        if backend == "polars":
            import polars as pl

            return pl.DataFrame(cols)
        import pandas as pd

        df = pd.DataFrame({k: v for k, v in cols.items() if k != "Time"})
        df.index = pd.Index(cols["Time"], name="Time", dtype="float64")
        return df


def trace(scenario, run=0, runs=None, seed=None):
    """Records run ``run`` of a scenario (as ``schedlab trace SCENARIO --run N``) as a ``Trace``."""
    return Trace(*_schedlab.trace(_scenario_json(scenario, runs, seed), run))
