"""Reads schedlab's trace-cmd export with LISA's own TxtTraceParser and checks that every line of
every event came through with its fields (run by `cargo xtask test`; see xtask/src/lisa.rs).

usage: lisa_check.py TRACE_FILE
"""
import collections
import sys
import warnings

warnings.simplefilter("ignore")

from lisa.trace import Trace, TxtTraceParser  # noqa: E402

path = sys.argv[1]

# The file by hand: events and their key=value fields, per line after the `cpus=` header.
lines = collections.defaultdict(list)
with open(path) as f:
    assert f.readline().startswith("cpus="), "the trace-cmd header"
    for line in f:
        head, _, rest = line.partition("]")
        ts, event, fields = rest.split(":", 2)
        fields = dict(kv.split("=", 1) for kv in fields.split())
        lines[event.strip()].append((int(ts.strip().replace(".", "")), fields))

trace = Trace(path, parser=TxtTraceParser.from_txt_file)
want = [
    "sched_switch",
    "sched_wakeup_new",
    "sched_migrate_task",
    "lisa__sched_pelt_cfs",
    "lisa__sched_pelt_se",
    "lisa__sched_cpu_capacity",
    "lisa__sched_util_est_cfs",
    "lisa__sched_util_est_se",
]
bad = []
for event in want:
    if event not in lines:
        bad.append(f"{event}: not in the file")
        continue
    df = trace.df_event(event)
    if len(df) != len(lines[event]):
        bad.append(f"{event}: LISA read {len(df)} of {len(lines[event])} lines")
        continue
    fields = set(lines[event][0][1])
    missing = fields - set(df.columns)
    if missing:
        bad.append(f"{event}: LISA has no columns {sorted(missing)}")
        continue
    # Every value as the file has it, in order.
    for col in sorted(fields - {"comm", "path", "prev_comm", "next_comm"}):
        got = [int(v) for v in df[col].tolist()]
        exp = [int(f[col]) for _, f in lines[event]]
        if got != exp:
            bad.append(f"{event}.{col}: LISA's values differ from the file's")
    # LISA's index is the timestamp in seconds.
    ts = [round(t * 1e9) for t in df.index.tolist()]
    if ts != [t for t, _ in lines[event]]:
        bad.append(f"{event}: timestamps differ")
    print(f"{event}: {len(df)} events, columns {sorted(fields)}")

if bad:
    print("\n".join(bad))
    sys.exit(1)
print("LISA's TxtTraceParser read every event of", path)
