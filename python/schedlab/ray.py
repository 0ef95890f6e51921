"""Sweeps on Ray: one Ray task per run index, on whatever cluster ``ray.init()`` connected to.

    import ray, schedlab.ray
    ray.init()                          # or ray.init(address="auto") on a cluster
    t = schedlab.ray.run("power9-bigcore-asym-smt", runs=100)
    t.json == open("cli.json").read()   # byte-equal to `schedlab reproduce ... --format json`

Each task runs one run of the plan and returns its record line; the lines are merged by the same
code as ``schedlab merge``, so the table is the CLI's to the byte.
"""

import ray as _ray

from . import Table, _scenario_json, _schedlab, _suite_members


@_ray.remote
def _run_one(scenario_json, index):
    return _schedlab.run_record(scenario_json, index)


def run_records(scenario, runs=None, seed=None):
    """The records file of a scenario's runs, run as Ray tasks."""
    text = _scenario_json(scenario, runs, seed)
    n = _schedlab.plan_len(text)
    ref = _ray.put(text)
    lines = _ray.get([_run_one.remote(ref, i) for i in range(n)])
    return "\n".join([_schedlab.header(text)] + lines) + "\n"


def run(scenario, runs=None, seed=None, report=None):
    """``schedlab.run`` with the runs fanned out as Ray tasks; the same ``Table`` (a list of them
    for a suite)."""
    members = _suite_members(scenario)
    if members is not None:
        return [run(m, runs, seed, report) for m in members]
    return Table(run_records(scenario, runs, seed), report)
