//! The Perfetto export read back by a decoder written from Perfetto's public trace schema
//! (google/perfetto protos/perfetto/trace/, read at ec5d16b): every field number and wire type
//! below is the `.proto` text's, cited where it is used, and the decoder refuses a field whose wire
//! type is not the schema's. The trace decodes back to the run's events: per CPU the same
//! `sched_switch`, `sched_waking`, `sched_wakeup(_new)`, `sched_migrate_task`, `cpu_frequency` and
//! `cpu_idle` in the same order with the same fields, one thread per task, and a counter track with
//! a unit for each signal, carrying the signal events' values.

use schedlab_core::experiment::{Plan, RunTrace};
use schedlab_core::scenarios::builtin;
use schedlab_core::trace::TraceEvent;
use std::collections::BTreeMap;

/// One decoded field: its number and value.
#[derive(Debug, Clone)]
enum V {
    Varint(u64),
    Fixed64(u64),
    Len(Vec<u8>),
}

fn varint(b: &[u8], i: &mut usize) -> u64 {
    let mut v = 0u64;
    let mut shift = 0;
    loop {
        let byte = b[*i];
        *i += 1;
        v |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return v;
        }
        shift += 7;
        assert!(shift < 70, "varint too long");
    }
}

/// A message's fields in order (the protobuf encoding guide's wire types 0, 1, 2; 5 is not used by
/// any field the export writes).
fn fields(b: &[u8]) -> Vec<(u32, V)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let key = varint(b, &mut i);
        let (num, wire) = ((key >> 3) as u32, key & 7);
        let v = match wire {
            0 => V::Varint(varint(b, &mut i)),
            1 => {
                let v = u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
                i += 8;
                V::Fixed64(v)
            }
            2 => {
                let n = varint(b, &mut i) as usize;
                let v = b[i..i + n].to_vec();
                i += n;
                V::Len(v)
            }
            w => panic!("field {num}: wire type {w}"),
        };
        out.push((num, v));
    }
    out
}

/// What the schema says a field is: `Int` for the varint types (int32/int64/uint32/uint64/bool/
/// enum), `Str`/`Msg` for length-delimited ones.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Ty {
    Int,
    Str,
    Msg,
}

/// A decoded message, checked against its schema: `schema` maps each field number the export may
/// write to its type; anything else is an error (the export writes nothing outside the schema).
struct Decoded {
    f: Vec<(u32, V)>,
}

impl Decoded {
    fn new(name: &str, b: &[u8], schema: &[(u32, Ty)]) -> Decoded {
        let f = fields(b);
        for (num, v) in &f {
            let ty = schema
                .iter()
                .find(|(n, _)| n == num)
                .unwrap_or_else(|| panic!("{name}: field {num} not in the schema"))
                .1;
            let ok = matches!(
                (ty, v),
                (Ty::Int, V::Varint(_)) | (Ty::Str | Ty::Msg, V::Len(_))
            );
            assert!(ok, "{name}: field {num} is {v:?}, the schema says {ty:?}");
        }
        Decoded { f }
    }
    fn int(&self, num: u32) -> Option<u64> {
        self.f.iter().rev().find_map(|(n, v)| match v {
            V::Varint(x) if *n == num => Some(*x),
            _ => None,
        })
    }
    /// An int32/int64 field (two's complement in the varint).
    fn sint(&self, num: u32) -> Option<i64> {
        self.int(num).map(|v| v as i64)
    }
    fn str(&self, num: u32) -> Option<String> {
        self.bytes(num)
            .map(|b| String::from_utf8(b.to_vec()).unwrap())
    }
    fn bytes(&self, num: u32) -> Option<&[u8]> {
        self.f.iter().rev().find_map(|(n, v)| match v {
            V::Len(x) if *n == num => Some(x.as_slice()),
            _ => None,
        })
    }
    fn all(&self, num: u32) -> impl Iterator<Item = &[u8]> {
        self.f.iter().filter_map(move |(n, v)| match v {
            V::Len(x) if *n == num => Some(x.as_slice()),
            _ => None,
        })
    }
    fn strs(&self, num: u32) -> Vec<String> {
        self.all(num)
            .map(|b| String::from_utf8(b.to_vec()).unwrap())
            .collect()
    }
    #[allow(dead_code)]
    fn fixed(&self, num: u32) -> Option<u64> {
        self.f.iter().find_map(|(n, v)| match v {
            V::Fixed64(x) if *n == num => Some(*x),
            _ => None,
        })
    }
}

// trace_packet.proto: `optional uint64 timestamp = 8;` `uint32 trusted_packet_sequence_id = 10;`
// `optional uint32 sequence_flags = 13;` and of `oneof data`: `FtraceEventBundle ftrace_events =
// 1;` `ProcessTree process_tree = 2;` `TrackEvent track_event = 11;` `TrackDescriptor
// track_descriptor = 60;`
const PACKET: &[(u32, Ty)] = &[
    (8, Ty::Int),
    (10, Ty::Int),
    (13, Ty::Int),
    (1, Ty::Msg),
    (2, Ty::Msg),
    (11, Ty::Msg),
    (60, Ty::Msg),
];
// ps/process_tree.proto: `repeated Process processes = 1; repeated Thread threads = 2;`
const PROCESS_TREE: &[(u32, Ty)] = &[(1, Ty::Msg), (2, Ty::Msg)];
// `Process { optional int32 pid = 1; optional int32 ppid = 2; repeated string cmdline = 3; }`
const PROCESS: &[(u32, Ty)] = &[(1, Ty::Int), (2, Ty::Int), (3, Ty::Str)];
// `Thread { optional int32 tid = 1; optional string name = 2; optional int32 tgid = 3; }`
const THREAD: &[(u32, Ty)] = &[(1, Ty::Int), (2, Ty::Str), (3, Ty::Int)];
// ftrace_event_bundle.proto: `optional uint32 cpu = 1; repeated FtraceEvent event = 2;`
const BUNDLE: &[(u32, Ty)] = &[(1, Ty::Int), (2, Ty::Msg)];
// ftrace_event.proto: `optional uint64 timestamp = 1; optional uint32 pid = 2;` and of `oneof
// event`: `sched_switch = 4; cpu_frequency = 11; cpu_idle = 13; sched_wakeup = 17; sched_waking =
// 20; sched_wakeup_new = 114; sched_migrate_task = 491;`
const FTRACE_EVENT: &[(u32, Ty)] = &[
    (1, Ty::Int),
    (2, Ty::Int),
    (4, Ty::Msg),
    (11, Ty::Msg),
    (13, Ty::Msg),
    (17, Ty::Msg),
    (20, Ty::Msg),
    (114, Ty::Msg),
    (491, Ty::Msg),
];
// sched.proto `SchedSwitchFtraceEvent { optional string prev_comm = 1; optional int32 prev_pid =
// 2; optional int32 prev_prio = 3; optional int64 prev_state = 4; optional string next_comm = 5;
// optional int32 next_pid = 6; optional int32 next_prio = 7; }`
const SCHED_SWITCH: &[(u32, Ty)] = &[
    (1, Ty::Str),
    (2, Ty::Int),
    (3, Ty::Int),
    (4, Ty::Int),
    (5, Ty::Str),
    (6, Ty::Int),
    (7, Ty::Int),
];
// `SchedWakeupFtraceEvent` / `SchedWakingFtraceEvent` / `SchedWakeupNewFtraceEvent { optional
// string comm = 1; optional int32 pid = 2; optional int32 prio = 3; optional int32 success = 4;
// optional int32 target_cpu = 5; }`
const SCHED_WAKEUP: &[(u32, Ty)] = &[
    (1, Ty::Str),
    (2, Ty::Int),
    (3, Ty::Int),
    (4, Ty::Int),
    (5, Ty::Int),
];
// `SchedMigrateTaskFtraceEvent { optional string comm = 1; optional int32 pid = 2; optional int32
// prio = 3; optional int32 orig_cpu = 4; optional int32 dest_cpu = 5; ... }`
const SCHED_MIGRATE: &[(u32, Ty)] = &[
    (1, Ty::Str),
    (2, Ty::Int),
    (3, Ty::Int),
    (4, Ty::Int),
    (5, Ty::Int),
];
// power.proto `CpuFrequencyFtraceEvent { optional uint32 state = 1; optional uint32 cpu_id = 2; }`,
// `CpuIdleFtraceEvent { optional uint32 state = 1; optional uint32 cpu_id = 2; }`
const CPU_STATE: &[(u32, Ty)] = &[(1, Ty::Int), (2, Ty::Int)];
// track_descriptor.proto: `optional uint64 uuid = 1; string name = 2; optional ThreadDescriptor
// thread = 4; optional uint64 parent_uuid = 5; optional CounterDescriptor counter = 8;`
const TRACK_DESCRIPTOR: &[(u32, Ty)] = &[
    (1, Ty::Int),
    (2, Ty::Str),
    (4, Ty::Msg),
    (5, Ty::Int),
    (8, Ty::Msg),
];
// thread_descriptor.proto: `optional int32 pid = 1; optional int64 tid = 2; optional string
// thread_name = 5;`
const THREAD_DESCRIPTOR: &[(u32, Ty)] = &[(1, Ty::Int), (2, Ty::Int), (5, Ty::Str)];
// counter_descriptor.proto: `optional Unit unit = 3; optional string unit_name = 6;`
const COUNTER_DESCRIPTOR: &[(u32, Ty)] = &[(3, Ty::Int), (6, Ty::Str)];
// track_event.proto: `optional Type type = 9; optional uint64 track_uuid = 11; int64
// counter_value = 30;` (`TYPE_COUNTER = 4`)
const TRACK_EVENT: &[(u32, Ty)] = &[(9, Ty::Int), (11, Ty::Int), (30, Ty::Int)];

/// A scheduling event as the trace has it, per CPU: (time, kind, fields).
type Sched = (u64, &'static str, Vec<i64>);

#[derive(Default, Debug)]
struct Read {
    processes: BTreeMap<i64, String>,
    threads: BTreeMap<i64, (String, i64)>,
    per_cpu: BTreeMap<usize, Vec<Sched>>,
    /// uuid -> (name, parent uuid, unit name)
    tracks: BTreeMap<u64, (String, Option<u64>, Option<String>)>,
    /// uuid -> thread pid of a thread track
    thread_tracks: BTreeMap<u64, i64>,
    /// uuid -> (time, value)
    values: BTreeMap<u64, Vec<(u64, i64)>>,
}

fn read(bytes: &[u8]) -> Read {
    let mut r = Read::default();
    // trace.proto: `message Trace { repeated TracePacket packet = 1; }`
    let trace = Decoded::new("Trace", bytes, &[(1, Ty::Msg)]);
    for p in trace.all(1) {
        let p = Decoded::new("TracePacket", p, PACKET);
        assert!(
            p.int(10).is_some(),
            "every packet has a trusted_packet_sequence_id"
        );
        if let Some(tree) = p.bytes(2) {
            let tree = Decoded::new("ProcessTree", tree, PROCESS_TREE);
            for pr in tree.all(1) {
                let pr = Decoded::new("Process", pr, PROCESS);
                r.processes
                    .insert(pr.sint(1).unwrap(), pr.strs(3).join(" "));
            }
            for th in tree.all(2) {
                let th = Decoded::new("Thread", th, THREAD);
                r.threads.insert(
                    th.sint(1).unwrap(),
                    (th.str(2).unwrap(), th.sint(3).unwrap()),
                );
            }
        }
        if let Some(b) = p.bytes(1) {
            let b = Decoded::new("FtraceEventBundle", b, BUNDLE);
            let cpu = b.int(1).unwrap() as usize;
            for e in b.all(2) {
                let e = Decoded::new("FtraceEvent", e, FTRACE_EVENT);
                let t = e.int(1).unwrap();
                let common_pid = e.int(2).unwrap() as i64;
                let ev: Sched = if let Some(s) = e.bytes(4) {
                    let s = Decoded::new("SchedSwitch", s, SCHED_SWITCH);
                    assert_eq!(s.sint(2), Some(common_pid), "a switch is printed by prev");
                    (
                        t,
                        "switch",
                        vec![s.sint(2).unwrap(), s.sint(4).unwrap(), s.sint(6).unwrap()],
                    )
                } else if let Some((num, w)) = [(17, "wakeup"), (20, "waking"), (114, "wakeup_new")]
                    .iter()
                    .find_map(|&(n, k)| e.bytes(n).map(|b| ((n, k), b)))
                    .map(|((_, k), b)| (k, b))
                {
                    let w = Decoded::new(num, w, SCHED_WAKEUP);
                    assert_eq!(w.sint(3), Some(120));
                    (t, num, vec![w.sint(2).unwrap(), w.sint(5).unwrap()])
                } else if let Some(m) = e.bytes(491) {
                    let m = Decoded::new("SchedMigrateTask", m, SCHED_MIGRATE);
                    (
                        t,
                        "migrate",
                        vec![m.sint(2).unwrap(), m.sint(4).unwrap(), m.sint(5).unwrap()],
                    )
                } else if let Some(f) = e.bytes(11) {
                    let f = Decoded::new("CpuFrequency", f, CPU_STATE);
                    assert_eq!(f.int(2), Some(cpu as u64), "cpu_id is the bundle's CPU");
                    (t, "freq", vec![f.int(1).unwrap() as i64])
                } else if let Some(f) = e.bytes(13) {
                    let f = Decoded::new("CpuIdle", f, CPU_STATE);
                    assert_eq!(f.int(2), Some(cpu as u64), "cpu_id is the bundle's CPU");
                    (t, "idle", vec![f.int(1).unwrap() as i64])
                } else {
                    panic!("an ftrace event without a known payload")
                };
                r.per_cpu.entry(cpu).or_default().push(ev);
            }
        }
        if let Some(d) = p.bytes(60) {
            let d = Decoded::new("TrackDescriptor", d, TRACK_DESCRIPTOR);
            let uuid = d.int(1).unwrap();
            if let Some(th) = d.bytes(4) {
                let th = Decoded::new("ThreadDescriptor", th, THREAD_DESCRIPTOR);
                assert_eq!(th.sint(1), th.sint(2));
                r.thread_tracks.insert(uuid, th.sint(2).unwrap());
            }
            let unit = d.bytes(8).map(|c| {
                let c = Decoded::new("CounterDescriptor", c, COUNTER_DESCRIPTOR);
                c.str(6).unwrap()
            });
            if unit.is_some() {
                r.tracks.insert(uuid, (d.str(2).unwrap(), d.int(5), unit));
            }
        }
        if let Some(te) = p.bytes(11) {
            let te = Decoded::new("TrackEvent", te, TRACK_EVENT);
            assert_eq!(te.int(9), Some(4), "TYPE_COUNTER");
            let t = p.int(8).expect("a track event's packet has a timestamp");
            r.values
                .entry(te.int(11).unwrap())
                .or_default()
                .push((t, te.sint(30).unwrap()));
        }
    }
    r
}

/// What the decoded trace should hold per CPU, from the run's events.
fn expected(tr: &RunTrace) -> BTreeMap<usize, Vec<Sched>> {
    let pid = |t: Option<usize>| t.map_or(0, |t| t as i64 + 1);
    let mut m: BTreeMap<usize, Vec<Sched>> = BTreeMap::new();
    for e in &tr.events {
        match *e {
            TraceEvent::Switch {
                t,
                cpu,
                prev,
                prev_state,
                next,
            } => m.entry(cpu).or_default().push((
                t,
                "switch",
                vec![pid(prev), i64::from(prev_state.raw()), pid(next)],
            )),
            TraceEvent::Wakeup { t, task, cpu, new } => m.entry(cpu).or_default().push((
                t,
                if new { "wakeup_new" } else { "wakeup" },
                vec![pid(Some(task)), cpu as i64],
            )),
            TraceEvent::Waking {
                t,
                cpu,
                task,
                target_cpu,
            } => m.entry(cpu).or_default().push((
                t,
                "waking",
                vec![pid(Some(task)), target_cpu as i64],
            )),
            TraceEvent::Migrate {
                t,
                cpu,
                task,
                from,
                to,
                ..
            } => m.entry(cpu).or_default().push((
                t,
                "migrate",
                vec![pid(Some(task)), from as i64, to as i64],
            )),
            TraceEvent::Frequency { t, domain, khz } => {
                for &cpu in &tr.freq_domain_cpus[domain] {
                    m.entry(cpu)
                        .or_default()
                        .push((t, "freq", vec![i64::from(khz)]));
                }
            }
            TraceEvent::Idle { t, cpu, state } => {
                m.entry(cpu)
                    .or_default()
                    .push((t, "idle", vec![i64::from(state)]))
            }
            _ => {}
        }
    }
    m
}

fn traced(
    name: &str,
    run: usize,
    edit: impl FnOnce(&mut schedlab_core::experiment::Scenario),
) -> RunTrace {
    let mut s = builtin(name).unwrap();
    s.runs = 1;
    edit(&mut s);
    Plan::new(&s).unwrap().run_traced_with(run, true).unwrap()
}

fn check_round_trip(tr: &RunTrace) -> Read {
    let bytes = tr.to_perfetto();
    let r = read(&bytes);
    // One process and one thread per task, named by its program.
    assert_eq!(r.processes.len(), tr.task_names.len());
    for (i, name) in tr.task_names.iter().enumerate() {
        let pid = i as i64 + 1;
        assert_eq!(r.processes.get(&pid), Some(name));
        assert_eq!(r.threads.get(&pid), Some(&(name.clone(), pid)));
    }
    let want = expected(tr);
    assert_eq!(
        r.per_cpu.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>()
    );
    for (cpu, evs) in &want {
        assert_eq!(&r.per_cpu[cpu], evs, "CPU{cpu}'s ftrace events");
    }
    // Every counter track has a unit; the task tracks hang under their thread's track.
    for (uuid, (name, parent, unit)) in &r.tracks {
        assert!(unit.as_deref().is_some_and(|u| !u.is_empty()), "{name}");
        if let Some(p) = parent {
            assert!(r.thread_tracks.contains_key(p), "{name} {uuid:x}");
        }
    }
    // The signal events' values are on their tracks.
    let track = |name: &str, parent: Option<i64>| -> u64 {
        *r.tracks
            .iter()
            .find(|(_, (n, p, _))| n == name && p.map(|p| r.thread_tracks[&p]) == parent)
            .unwrap_or_else(|| panic!("no track {name} {parent:?}"))
            .0
    };
    let mut want_vals: BTreeMap<u64, Vec<(u64, i64)>> = BTreeMap::new();
    let mut put =
        |uuid: u64, t: u64, v: u64| want_vals.entry(uuid).or_default().push((t, v as i64));
    for e in &tr.events {
        match *e {
            TraceEvent::PeltSe {
                t,
                task,
                util,
                runnable,
                ..
            } => {
                let pid = Some(task as i64 + 1);
                put(track("util_avg", pid), t, util);
                put(track("runnable_avg", pid), t, runnable);
            }
            TraceEvent::UtilEstSe {
                t,
                task,
                enqueued,
                ewma,
                ..
            } => put(
                track("util_est", Some(task as i64 + 1)),
                t,
                enqueued.max(ewma),
            ),
            TraceEvent::PeltCfs {
                t,
                cpu,
                util,
                runnable,
                ..
            } => {
                put(track(&format!("cpu{cpu} util_avg"), None), t, util);
                put(track(&format!("cpu{cpu} runnable_avg"), None), t, runnable);
            }
            TraceEvent::UtilEstCfs {
                t, cpu, enqueued, ..
            } => put(track(&format!("cpu{cpu} util_est"), None), t, enqueued),
            TraceEvent::CpuCapacity {
                t,
                cpu,
                capacity,
                capacity_curr,
                ..
            } => {
                put(track(&format!("cpu{cpu} capacity"), None), t, capacity);
                put(
                    track(&format!("cpu{cpu} capacity_curr"), None),
                    t,
                    capacity_curr,
                );
            }
            TraceEvent::Frequency { t, domain, khz } => {
                for &cpu in &tr.freq_domain_cpus[domain] {
                    put(track(&format!("cpu{cpu} freq"), None), t, u64::from(khz));
                }
            }
            TraceEvent::Energy { t, uj } => put(track("energy", None), t, uj),
            TraceEvent::Overutilized { t, overutilized } => {
                put(track("overutilized", None), t, u64::from(overutilized))
            }
            _ => {}
        }
    }
    assert_eq!(r.values, want_vals);
    r
}

/// HiKey960 under schedutil: frequency changes on both policies, idle states, wake-ups and asym
/// packing's migrations, and every signal.
#[test]
fn a_hikey960_run_decodes_back_to_its_events() {
    let tr = traced("hikey960-asym-packing", 1, |s| {
        s.sweep.as_mut().unwrap().values = vec![4];
        s.variants[1].governor = schedlab_core::kernel::Governor::Schedutil;
    });
    let r = check_round_trip(&tr);
    let kinds: std::collections::BTreeSet<&str> =
        r.per_cpu.values().flatten().map(|e| e.1).collect();
    for k in [
        "switch",
        "waking",
        "wakeup",
        "wakeup_new",
        "migrate",
        "freq",
        "idle",
    ] {
        assert!(kinds.contains(k), "no {k} in {kinds:?}");
    }
    for name in ["util_avg", "runnable_avg", "util_est"] {
        assert!(r.tracks.values().any(|(n, p, _)| n == name && p.is_some()));
    }
    assert!(r.values.values().map(Vec::len).sum::<usize>() > 1000);
    let energy = r.tracks.iter().find(|(_, v)| v.0 == "energy").unwrap();
    assert_eq!(energy.1 .2.as_deref(), Some("uJ"));
    let e = &r.values[energy.0];
    assert!(e.windows(2).all(|w| w[0].1 <= w[1].1), "energy only grows");
    assert!(e.last().unwrap().1 > 0);
}

/// A run without signals has the scheduling part only (no counter tracks).
#[test]
fn without_signals_there_are_no_counters() {
    let mut s = builtin("juno-use-all-littles").unwrap();
    s.runs = 1;
    let tr = Plan::new(&s).unwrap().run_traced(0).unwrap();
    let r = check_round_trip(&tr);
    assert!(r.tracks.is_empty() && r.values.is_empty());
}
