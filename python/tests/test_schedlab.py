"""The Python package gives the CLI's output to the byte and its numbers to the last bit."""

import json
import threading
import time

import pytest

import schedlab

SMALL = "tc2-wakeup-sysbench"


@pytest.fixture(scope="module")
def e1_file(tmp_path_factory):
    """E1 (a sweep: param, repetition and variant all vary) as a file, as `schedlab show` prints."""
    p = tmp_path_factory.mktemp("scn") / "e1.json"
    p.write_text(json.dumps(schedlab.show("hikey960-asym-packing"), indent=2))
    return str(p)


def test_list_and_show():
    names = schedlab.list()
    assert "hikey960-asym-packing" in names and SMALL in names
    s = schedlab.show(SMALL)
    assert s["name"] == SMALL and s["version"] == 1


def test_a_suite_runs_as_its_members(cli):
    members = schedlab.suites()["tc2-asym-capacity-wakeup"]
    tables = schedlab.run("tc2-asym-capacity-wakeup", runs=1)
    assert [t.data["scenario"] for t in tables] == members
    cli_json = json.loads(cli("reproduce", "tc2-asym-capacity-wakeup", "--runs", "1", "--format", "json"))
    assert [t.data for t in tables] == cli_json


def test_show_is_the_cli_s(cli):
    assert json.loads(cli("show", SMALL)) == schedlab.show(SMALL)
    assert schedlab.scenario_hash(SMALL, runs=3) == cli("show", SMALL, "--hash", "--runs", "3").strip()


@pytest.mark.parametrize("report", [None, "energy", "perf-per-watt"])
def test_run_is_byte_equal_to_the_cli(cli, e1_file, report):
    t = schedlab.run(e1_file, runs=2, report=report)
    extra = ["--report", report] if report else []
    assert t.json == cli("run", e1_file, "--runs", "2", "--format", "json", *extra)
    assert t.text == cli("run", e1_file, "--runs", "2", "--format", "table", *extra)
    assert t.csv == cli("run", e1_file, "--runs", "2", "--format", "csv", *extra)
    assert t.jsonl == cli("run", e1_file, "--runs", "2", "--format", "jsonl")


def test_dataframes_hold_the_cli_s_floats(cli, e1_file):
    t = schedlab.run(e1_file, runs=2)
    table = json.loads(cli("run", e1_file, "--runs", "2", "--format", "json"))
    want = [(r["param"], c["variant"], c["mean"], c["stddev"], c["min"], c["max"], c["runs"])
            for r in table["rows"] for c in r["cells"]]
    pdf = t.to_pandas()
    got = [(int(r["threads"]), r["variant"], r["mean"], r["stddev"], r["min"], r["max"], list(r["runs"]))
           for _, r in pdf.iterrows()]
    assert got == want  # float ==: the same bits
    pl = t.to_polars()
    assert pl["mean"].to_list() == [w[2] for w in want]
    assert pl.columns[:2] == ["threads", "variant"]
    recs = t.records()
    assert len(recs) == len(want) * 2
    assert list(recs["index"]) == list(range(len(recs)))
    assert "counters.context_switches" in recs.columns
    assert recs["value"].tolist() == [v for row in table["rows"] for rep in range(2)
                                      for v in [c["runs"][rep] for c in row["cells"]]]


def test_shards_merge_in_python_and_in_the_cli(cli, e1_file, tmp_path):
    whole = schedlab.run(e1_file, runs=2)
    parts = []
    for i in range(3):
        p = tmp_path / f"part{i}"
        p.write_text(schedlab.run_records(e1_file, runs=2, shard=(i, 3)))
        parts.append(str(p))
    assert schedlab.merge(*parts).json == whole.json
    # The parts as one DataFrame, one row per run: the whole run's records, in another order.
    df = schedlab.read_records(*parts).sort_values("index").reset_index(drop=True)
    assert df.equals(whole.records())
    assert schedlab.read_records(*parts, backend="polars").height == len(df)
    assert cli("merge", *parts, "--format", "json") == whole.json
    with pytest.raises(ValueError, match="runs are missing"):
        schedlab.merge(*parts[:2])
    other = tmp_path / "other"
    other.write_text(schedlab.run_records(e1_file, runs=2, seed=7, shard=(2, 3)))
    with pytest.raises(ValueError, match="from another scenario"):
        schedlab.merge(parts[0], parts[1], str(other))


def test_errors_are_value_errors():
    with pytest.raises(ValueError, match="unknown"):
        schedlab.run("no-such-scenario")
    with pytest.raises(ValueError, match="runs must be"):
        schedlab.run(SMALL, runs=0)
    with pytest.raises(ValueError, match="report"):
        schedlab.run(SMALL, runs=1, report="watts")


def test_trace_frames_are_shaped_like_lisa_s(cli):
    tr = schedlab.trace(SMALL, run=1, runs=2)
    cli_text = cli("trace", SMALL, "--run", "1", "--runs", "2")
    assert cli_text.endswith(tr.ftrace)
    df = tr.df_event("sched_switch")
    assert df.index.name == "Time" and str(df.index.dtype) == "float64"
    assert list(df.columns) == ["__cpu", "__pid", "__comm", "prev_comm", "prev_pid", "prev_prio",
                                "prev_state", "next_comm", "next_pid", "next_prio"]
    lines = [ln for ln in tr.ftrace.splitlines() if ": sched_switch: " in ln]
    assert len(df) == len(lines)
    # The first switch as ftrace prints it (microsecond timestamps).
    first = lines[0]
    ts = float(first.split(": sched_switch:")[0].split()[-1])
    assert abs(df.index[0] - ts) < 1e-6
    assert f"next_comm={df.iloc[0].next_comm} next_pid={df.iloc[0].next_pid}" in first
    assert df.index.is_monotonic_increasing
    w = tr.df_event("sched_wakeup")
    assert list(w.columns) == ["__cpu", "__pid", "__comm", "comm", "pid", "prio", "target_cpu"]
    assert len(w) == sum(": sched_wakeup: " in ln for ln in tr.ftrace.splitlines())
    for event in ("sched_waking", "cpu_idle"):
        frame = tr.df_event(event)
        assert len(frame) == sum(f": {event}: " in ln for ln in tr.ftrace.splitlines()), event
    assert tr.df_event("sched_migrate_task", backend="polars").columns[0] == "Time"
    with pytest.raises(ValueError):
        tr.df_event("sched_nonsense")


def test_the_gil_is_released_while_simulating():
    # Counts how often this thread runs *while* the other one is inside the call, not how long the
    # call takes: a faster engine must not fail this test (20 ticks for runs=2 was once a margin).
    # A call that held the GIL throughout would let this thread in only in the Python-level gaps
    # around the native call (a tick or two: a C call holding the GIL, list.sort of 2 M floats for
    # 0.39 s, let it in once); 16 runs (~0.17 s here) let it tick ~150 times when the GIL is free.
    window = {}

    def simulate():
        window["start"] = time.perf_counter()
        window["table"] = schedlab.run("hikey960-asym-packing", runs=16, jobs=1)
        window["end"] = time.perf_counter()

    ticks = []
    t = threading.Thread(target=simulate)
    t.start()
    while t.is_alive():
        ticks.append(time.perf_counter())
        time.sleep(0.001)
    t.join()
    assert "table" in window, "the run failed"
    inside = sum(window["start"] < tick < window["end"] for tick in ticks)
    assert inside >= 10, (inside, window["end"] - window["start"])


def test_ray_fans_runs_out_and_gathers_the_cli_s_table(cli, e1_file):
    ray = pytest.importorskip("ray", reason="ray did not install")
    import schedlab.ray as sray

    t0 = time.time()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        t = sray.run(e1_file, runs=2)
        assert t.json == cli("run", e1_file, "--runs", "2", "--format", "json")
        assert t.jsonl == schedlab.run(e1_file, runs=2).jsonl
    finally:
        ray.shutdown()
    print(f"ray: {time.time() - t0:.1f} s")
