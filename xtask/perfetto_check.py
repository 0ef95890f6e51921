"""Parses schedlab's Perfetto export with the Trace classes generated from Perfetto's own schema
(the `perfetto` package from PyPI: perfetto/protos/perfetto/trace/perfetto_trace_pb2.py) and
checks that no message anywhere holds a field the schema does not know, and that its ftrace events
are, kind by kind, the events of the same run's trace-cmd export (run by `cargo xtask lisa`; its
trace_processor is not used: it downloads a binary at run time).

usage: perfetto_check.py PERFETTO_FILE TRACE_CMD_FILE
"""
import collections
import sys

from google.protobuf import unknown_fields
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

trace = pb.Trace()
trace.ParseFromString(open(sys.argv[1], "rb").read())

unknown = []


def walk(m, where):
    if len(unknown_fields.UnknownFieldSet(m)):
        unknown.append(where)
    for f, v in m.ListFields():
        if f.message_type is None:
            continue
        for x in v if isinstance(v, (list,)) or hasattr(v, "append") else [v]:
            walk(x, where + "." + f.name)


got = collections.Counter()
counters = 0
for p in trace.packet:
    walk(p, "packet")
    if p.HasField("ftrace_events"):
        for e in p.ftrace_events.event:
            got[e.WhichOneof("event")] += 1
    if p.HasField("track_descriptor") and p.track_descriptor.HasField("counter"):
        counters += 1

want = collections.Counter()
with open(sys.argv[2]) as f:
    f.readline()
    for line in f:
        event = line.split("]", 1)[1].split(":", 2)[1].strip()
        if not event.startswith(("lisa__", "schedlab__")):
            want[event] += 1

bad = []
if unknown:
    bad.append(f"fields outside Perfetto's schema in {sorted(set(unknown))[:5]}")
if got != want:
    bad.append(f"ftrace events {dict(got)} != the trace-cmd export's {dict(want)}")
if counters == 0:
    bad.append("no counter tracks")
if bad:
    print("\n".join(bad))
    sys.exit(1)
print(f"Perfetto's schema parses every packet: {dict(got)}, {counters} counter tracks")
