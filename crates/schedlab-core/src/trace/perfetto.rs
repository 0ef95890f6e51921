//! A run as a Perfetto protobuf trace (`perfetto.protos.Trace`), which ui.perfetto.dev and
//! trace_processor open: the kernel's scheduling events as `traced_probes` writes them (ftrace
//! event bundles per CPU), so Perfetto draws its CPU and thread tracks from them, plus counter
//! tracks for what the kernel keeps but ftrace does not show (PELT, util_est, capacity, energy).
//!
//! Schema: google/perfetto protos/perfetto/trace/ (read at ec5d16b, Aug 2026). Field numbers:
//! - trace.proto `Trace { repeated TracePacket packet = 1; }`
//! - trace_packet.proto `TracePacket`: `timestamp = 8`, `trusted_packet_sequence_id = 10`,
//!   `sequence_flags = 13` (`SEQ_INCREMENTAL_STATE_CLEARED = 1`), and of the `data` oneof
//!   `ftrace_events = 1`, `process_tree = 2`, `track_event = 11`, `track_descriptor = 60`
//! - ps/process_tree.proto `ProcessTree { processes = 1; threads = 2; }`,
//!   `Process { pid = 1; ppid = 2; cmdline = 3 (repeated string) }`,
//!   `Thread { tid = 1; name = 2; tgid = 3; }`
//! - ftrace/ftrace_event_bundle.proto `FtraceEventBundle { cpu = 1; repeated event = 2; }`
//! - ftrace/ftrace_event.proto `FtraceEvent { timestamp = 1; pid = 2; }` and of the `event`
//!   oneof `sched_switch = 4`, `cpu_frequency = 11`, `cpu_idle = 13`, `sched_wakeup = 17`,
//!   `sched_waking = 20`, `sched_wakeup_new = 114`, `sched_migrate_task = 491`
//! - ftrace/sched.proto `SchedSwitchFtraceEvent { prev_comm = 1; prev_pid = 2; prev_prio = 3;
//!   prev_state = 4 (int64); next_comm = 5; next_pid = 6; next_prio = 7; }`,
//!   `SchedWakeupFtraceEvent` / `SchedWakingFtraceEvent` / `SchedWakeupNewFtraceEvent`
//!   `{ comm = 1; pid = 2; prio = 3; success = 4; target_cpu = 5; }`,
//!   `SchedMigrateTaskFtraceEvent { comm = 1; pid = 2; prio = 3; orig_cpu = 4; dest_cpu = 5; }`
//! - ftrace/power.proto `CpuFrequencyFtraceEvent { state = 1; cpu_id = 2; }`,
//!   `CpuIdleFtraceEvent { state = 1; cpu_id = 2; }`
//! - track_event/track_descriptor.proto `TrackDescriptor { uuid = 1; name = 2; parent_uuid = 5;
//!   thread = 4; counter = 8; }`; thread_descriptor.proto `ThreadDescriptor { pid = 1; tid = 2;
//!   thread_name = 5; }`; counter_descriptor.proto `CounterDescriptor { unit = 3; unit_name = 6; }`
//!   (`UNIT_COUNT = 2`)
//! - track_event/track_event.proto `TrackEvent { type = 9 (TYPE_COUNTER = 4); track_uuid = 11;
//!   counter_value = 30 (int64); }`
//!
//! Layout: one `ProcessTree` (each task its own process, pid = tgid = task id + 1, named by its
//! program), then each CPU's ftrace events in bundles of at most [`BUNDLE_EVENTS`] (sequence 1),
//! then the counter tracks' descriptors and their values in time order (sequence 2). Counters:
//! per task `util_avg`, `runnable_avg`, `util_est` (`_task_util_est()`: max(ewma, enqueued)), as
//! tracks under the task's thread; per CPU `cpuN util_avg`, `cpuN runnable_avg`, `cpuN util_est`
//! (the cfs_rq's `util_est.enqueued`), `cpuN capacity`, `cpuN capacity_curr`, `cpuN freq` (kHz);
//! `energy` (uJ since the start of the run); `overutilized` (0/1, with EAS). The counters come from
//! the signal events, so a run traced without signals has only the ftrace part.

use super::proto::Msg;
use super::{TraceEvent, PWR_EVENT_EXIT};

/// Events per ftrace bundle (traced_probes writes one per ring-buffer page read; a few hundred).
pub const BUNDLE_EVENTS: usize = 512;

const SEQ_FTRACE: u64 = 1;
const SEQ_TRACKS: u64 = 2;

/// Counter kinds of a task track (the low byte of its uuid).
const TASK_UTIL: u64 = 0;
const TASK_RUNNABLE: u64 = 1;
const TASK_UTIL_EST: u64 = 2;
/// Counter kinds of a CPU track.
const CPU_UTIL: u64 = 0;
const CPU_RUNNABLE: u64 = 1;
const CPU_UTIL_EST: u64 = 2;
const CPU_CAPACITY: u64 = 3;
const CPU_CAPACITY_CURR: u64 = 4;
const CPU_FREQ: u64 = 5;

fn thread_track(task: usize) -> u64 {
    0x1_0000_0000 | (task as u64) << 8 | 0xff
}
fn task_counter(task: usize, kind: u64) -> u64 {
    0x1_0000_0000 | (task as u64) << 8 | kind
}
fn cpu_counter(cpu: usize, kind: u64) -> u64 {
    0x2_0000_0000 | (cpu as u64) << 8 | kind
}
const ENERGY_TRACK: u64 = 0x3_0000_0000;
const OVERUTILIZED_TRACK: u64 = 0x3_0000_0001;

/// Builds the trace. `names[i]` is task `i`'s comm; `freq_domain_cpus[d]` the CPUs of frequency
/// domain `d` (every CPU is in one).
pub fn to_perfetto(
    events: &[TraceEvent],
    names: &[String],
    freq_domain_cpus: &[Vec<usize>],
) -> Vec<u8> {
    let nr_cpus = freq_domain_cpus
        .iter()
        .flatten()
        .map(|&c| c + 1)
        .max()
        .unwrap_or(0);
    let comm = |t: Option<usize>| match t {
        Some(t) => names.get(t).map_or("task", String::as_str),
        None => "swapper",
    };
    let pid = |t: Option<usize>| t.map_or(0, |t| t as i64 + 1);
    let mut trace = Msg::new();

    // The process tree.
    let mut tree = Msg::new();
    for (i, name) in names.iter().enumerate() {
        tree.with(1, |p| {
            p.int(1, i as i64 + 1).int(2, 0).string(3, name);
        });
    }
    for (i, name) in names.iter().enumerate() {
        tree.with(2, |th| {
            th.int(1, i as i64 + 1).string(2, name).int(3, i as i64 + 1);
        });
    }
    trace.with(1, |p| {
        p.uint(8, 0).uint(10, SEQ_FTRACE).msg(2, &tree);
    });

    // Per CPU: its ftrace events, encoded (FtraceEvent messages) in time order.
    let mut per_cpu: Vec<Vec<Msg>> = vec![Vec::new(); nr_cpus];
    let mut current: Vec<Option<usize>> = vec![None; nr_cpus];
    let push = |per_cpu: &mut Vec<Vec<Msg>>, cpu: usize, ev: Msg| {
        if per_cpu.len() <= cpu {
            per_cpu.resize(cpu + 1, Vec::new());
        }
        per_cpu[cpu].push(ev);
    };
    let header = |t: u64, common_pid: i64| {
        let mut m = Msg::new();
        m.uint(1, t).uint(2, common_pid as u64);
        m
    };
    let wakeup_like = |task: usize, target: usize| {
        let mut w = Msg::new();
        w.string(1, comm(Some(task)))
            .int(2, task as i64 + 1)
            .int(3, 120)
            .int(4, 1)
            .int(5, target as i64);
        w
    };
    for e in events {
        match *e {
            TraceEvent::Switch {
                t,
                cpu,
                prev,
                prev_state,
                next,
            } => {
                if current.len() <= cpu {
                    current.resize(cpu + 1, None);
                }
                current[cpu] = next;
                let mut m = header(t, pid(prev));
                m.with(4, |s| {
                    s.string(1, comm(prev))
                        .int(2, pid(prev))
                        .int(3, 120)
                        .int(4, i64::from(prev_state.raw()))
                        .string(5, comm(next))
                        .int(6, pid(next))
                        .int(7, 120);
                });
                push(&mut per_cpu, cpu, m);
            }
            TraceEvent::Waking {
                t,
                cpu,
                task,
                target_cpu,
            } => {
                let mut m = header(t, pid(current.get(cpu).copied().flatten()));
                m.msg(20, &wakeup_like(task, target_cpu));
                push(&mut per_cpu, cpu, m);
            }
            TraceEvent::Wakeup { t, task, cpu, new } => {
                let mut m = header(t, pid(Some(task)));
                m.msg(if new { 114 } else { 17 }, &wakeup_like(task, cpu));
                push(&mut per_cpu, cpu, m);
            }
            TraceEvent::Migrate {
                t,
                cpu,
                task,
                from,
                to,
                ..
            } => {
                let mut m = header(t, pid(current.get(cpu).copied().flatten()));
                m.with(491, |s| {
                    s.string(1, comm(Some(task)))
                        .int(2, task as i64 + 1)
                        .int(3, 120)
                        .int(4, from as i64)
                        .int(5, to as i64);
                });
                push(&mut per_cpu, cpu, m);
            }
            TraceEvent::Frequency { t, domain, khz } => {
                for &cpu in freq_domain_cpus.get(domain).map_or(&[][..], Vec::as_slice) {
                    let mut m = header(t, 0);
                    m.with(11, |f| {
                        f.uint(1, u64::from(khz)).uint(2, cpu as u64);
                    });
                    push(&mut per_cpu, cpu, m);
                }
            }
            TraceEvent::Idle { t, cpu, state } => {
                let mut m = header(t, 0);
                m.with(13, |f| {
                    f.uint(1, u64::from(state)).uint(2, cpu as u64);
                });
                debug_assert!(state == PWR_EVENT_EXIT || state < 64);
                push(&mut per_cpu, cpu, m);
            }
            _ => {}
        }
    }
    for (cpu, evs) in per_cpu.iter().enumerate() {
        for chunk in evs.chunks(BUNDLE_EVENTS) {
            let mut bundle = Msg::new();
            bundle.uint(1, cpu as u64);
            for ev in chunk {
                bundle.msg(2, ev);
            }
            trace.with(1, |p| {
                p.uint(10, SEQ_FTRACE).msg(1, &bundle);
            });
        }
    }

    // Counter tracks, only for what the signal events have.
    let has_signals = events.iter().any(TraceEvent::is_signal);
    if !has_signals {
        return trace.buf;
    }
    let mut first = true;
    let mut descriptor = |trace: &mut Msg, d: Msg| {
        trace.with(1, |p| {
            p.uint(10, SEQ_TRACKS);
            if first {
                p.uint(13, 1);
                first = false;
            }
            p.msg(60, &d);
        });
    };
    let counter = |uuid: u64, parent: Option<u64>, name: &str, unit_name: &str| {
        let mut d = Msg::new();
        d.uint(1, uuid).string(2, name);
        if let Some(p) = parent {
            d.uint(5, p);
        }
        d.with(8, |c| {
            c.uint(3, 2).string(6, unit_name);
        });
        d
    };
    for (i, name) in names.iter().enumerate() {
        let mut d = Msg::new();
        d.uint(1, thread_track(i)).with(4, |th| {
            th.int(1, i as i64 + 1).int(2, i as i64 + 1).string(5, name);
        });
        descriptor(&mut trace, d);
        for (kind, n) in [
            (TASK_UTIL, "util_avg"),
            (TASK_RUNNABLE, "runnable_avg"),
            (TASK_UTIL_EST, "util_est"),
        ] {
            descriptor(
                &mut trace,
                counter(task_counter(i, kind), Some(thread_track(i)), n, "util"),
            );
        }
    }
    for cpu in 0..nr_cpus {
        for (kind, n, unit) in [
            (CPU_UTIL, "util_avg", "util"),
            (CPU_RUNNABLE, "runnable_avg", "util"),
            (CPU_UTIL_EST, "util_est", "util"),
            (CPU_CAPACITY, "capacity", "capacity"),
            (CPU_CAPACITY_CURR, "capacity_curr", "capacity"),
            (CPU_FREQ, "freq", "kHz"),
        ] {
            descriptor(
                &mut trace,
                counter(cpu_counter(cpu, kind), None, &format!("cpu{cpu} {n}"), unit),
            );
        }
    }
    descriptor(&mut trace, counter(ENERGY_TRACK, None, "energy", "uJ"));
    let has_ou = events
        .iter()
        .any(|e| matches!(e, TraceEvent::Overutilized { .. }));
    if has_ou {
        descriptor(
            &mut trace,
            counter(OVERUTILIZED_TRACK, None, "overutilized", "flag"),
        );
    }
    let value = |trace: &mut Msg, t: u64, uuid: u64, v: u64| {
        trace.with(1, |p| {
            p.uint(8, t).uint(10, SEQ_TRACKS).with(11, |te| {
                te.uint(9, 4).uint(11, uuid).int(30, v as i64);
            });
        });
    };
    for e in events {
        match *e {
            TraceEvent::PeltSe {
                t,
                task,
                util,
                runnable,
                ..
            } => {
                value(&mut trace, t, task_counter(task, TASK_UTIL), util);
                value(&mut trace, t, task_counter(task, TASK_RUNNABLE), runnable);
            }
            TraceEvent::UtilEstSe {
                t,
                task,
                enqueued,
                ewma,
                ..
            } => value(
                &mut trace,
                t,
                task_counter(task, TASK_UTIL_EST),
                enqueued.max(ewma),
            ),
            TraceEvent::PeltCfs {
                t,
                cpu,
                util,
                runnable,
                ..
            } => {
                value(&mut trace, t, cpu_counter(cpu, CPU_UTIL), util);
                value(&mut trace, t, cpu_counter(cpu, CPU_RUNNABLE), runnable);
            }
            TraceEvent::UtilEstCfs {
                t, cpu, enqueued, ..
            } => value(&mut trace, t, cpu_counter(cpu, CPU_UTIL_EST), enqueued),
            TraceEvent::CpuCapacity {
                t,
                cpu,
                capacity,
                capacity_curr,
                ..
            } => {
                value(&mut trace, t, cpu_counter(cpu, CPU_CAPACITY), capacity);
                value(
                    &mut trace,
                    t,
                    cpu_counter(cpu, CPU_CAPACITY_CURR),
                    capacity_curr,
                );
            }
            TraceEvent::Frequency { t, domain, khz } => {
                for &cpu in freq_domain_cpus.get(domain).map_or(&[][..], Vec::as_slice) {
                    value(&mut trace, t, cpu_counter(cpu, CPU_FREQ), u64::from(khz));
                }
            }
            TraceEvent::Energy { t, uj } => value(&mut trace, t, ENERGY_TRACK, uj),
            TraceEvent::Overutilized { t, overutilized } => {
                value(&mut trace, t, OVERUTILIZED_TRACK, u64::from(overutilized))
            }
            _ => {}
        }
    }
    trace.buf
}
