//! The text exports of a run's events: ftrace's `trace` file, and `trace-cmd report -N -t -R`
//! (raw fields, nanosecond timestamps), which LISA's `TxtTraceParser` reads.
//!
//! Both print the kernel's own events with the field sets of their v6.8 `TRACE_EVENT()`s
//! (include/trace/events/sched.h, power.h): `sched_switch` (prev_comm prev_pid prev_prio
//! prev_state next_comm next_pid next_prio), `sched_waking` / `sched_wakeup` / `sched_wakeup_new`
//! (comm pid prio target_cpu), `sched_migrate_task` (comm pid prio orig_cpu dest_cpu),
//! `cpu_frequency` and `cpu_idle` (state cpu_id). Why a task moved is schedlab's own event,
//! `schedlab__migrate_reason` (comm pid orig_cpu dest_cpu reason: wakeup, load_balance,
//! active_balance, affinity, exec), printed right after the move's `sched_migrate_task`.
//!
//! With signals (a run traced with them, and `signals` asked for), the scheduler's own
//! tracepoints print as LISA's `sched_tp` module prints them (lisa/_assets/kmodules/lisa/
//! ftrace_events.h): `sched_pelt_cfs`, `sched_pelt_se`, `sched_util_est_cfs`,
//! `sched_util_est_se`, `sched_cpu_capacity`, `sched_overutilized`, named `lisa__sched_*` in the
//! trace-cmd style (the module's current names) and without the prefix in the ftrace style
//! (its older names; LISA reads both). Their fields are the module's `TP_STRUCT__entry` fields for
//! a v5.7+ kernel (`runnable`, not `rbl_load`; util_est's `enqueued`/`ewma`, before v6.9's unified
//! field; `capacity_orig`/`capacity_curr` with frequency invariance), in the entry's order in the
//! raw style, the `TP_printk` order in the ftrace style. Simplifications: the model has no
//! cgroups, so every `path` is `/` (the module prints the group's path, empty for a task); the
//! cfs_rq's util_est `ewma` is 0 (the kernel never sets it); `sched_overutilized`'s `span` is
//! the root domain's, every CPU.
//!
//! Prio is 120 (nice 0) throughout. In the trace-cmd style `prev_state` is the raw number
//! (v4.14+ `__trace_sched_switch_state()`: 0 running, 1 `TASK_INTERRUPTIBLE`, 0x10 `EXIT_DEAD`,
//! `TASK_REPORT_MAX` 0x100 preempted) and a comm is what the kernel keeps (15 bytes,
//! `TASK_COMM_LEN` - 1) with blanks as `_`, so LISA's `key=value` regexes split it right.

use super::{MigrateReason, PrevState, TraceEvent, PWR_EVENT_EXIT};
use std::fmt::Write;

/// Which text format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// ftrace's `trace` file: microsecond timestamps, `prev_state` as letters.
    Ftrace,
    /// `trace-cmd report -N -t -R`: nanosecond timestamps, raw fields.
    TraceCmd,
}

impl PrevState {
    /// `prev_state` as `__trace_sched_switch_state()` returns it (v4.14+).
    pub fn raw(self) -> u32 {
        match self {
            PrevState::Idle => 0,
            PrevState::Preempted => 0x100,
            PrevState::Sleeping => 0x1,
            PrevState::Exited => 0x10,
        }
    }
}

impl MigrateReason {
    /// The `reason` of `schedlab__migrate_reason`.
    pub fn name(self) -> &'static str {
        match self {
            MigrateReason::Wakeup => "wakeup",
            MigrateReason::LoadBalance => "load_balance",
            MigrateReason::ActiveBalance => "active_balance",
            MigrateReason::Affinity => "affinity",
            MigrateReason::Exec => "exec",
        }
    }
}

/// One CPU column's header: the task running, the CPU, the time.
struct Ctx<'a> {
    names: &'a [String],
    style: Style,
    comm_buf: String,
}

impl Ctx<'_> {
    /// `comm` and pid of a task (None: the idle task).
    fn comm(&mut self, t: Option<usize>) -> (String, usize) {
        let (name, pid) = match t {
            Some(t) => (self.names.get(t).map_or("task", String::as_str), t + 1),
            None => ("<idle>", 0),
        };
        match self.style {
            Style::Ftrace => (name.to_string(), pid),
            Style::TraceCmd => {
                self.comm_buf.clear();
                for c in name.chars() {
                    if self.comm_buf.len() + c.len_utf8() > 15 {
                        break;
                    }
                    self.comm_buf.push(if c.is_whitespace() { '_' } else { c });
                }
                (self.comm_buf.clone(), pid)
            }
        }
    }
}

/// Renders `events` in `style`; `signals` adds the PELT, util_est, capacity and overutilized
/// events a run traced with signals recorded (energy, schedlab's own counter, prints in neither).
pub fn render(
    events: &[TraceEvent],
    names: &[String],
    freq_domain_cpus: &[Vec<usize>],
    style: Style,
    signals: bool,
) -> String {
    let mut ctx = Ctx {
        names,
        style,
        comm_buf: String::new(),
    };
    let nr_cpus = freq_domain_cpus
        .iter()
        .flatten()
        .map(|&c| c + 1)
        .max()
        .unwrap_or(0);
    let mut s = String::with_capacity(events.len() * 120 + 128);
    match style {
        Style::Ftrace => {
            s.push_str("# tracer: nop\n#\n#           TASK-PID     CPU#     TIMESTAMP  FUNCTION\n")
        }
        Style::TraceCmd => {
            let _ = writeln!(s, "cpus={nr_cpus}");
        }
    }
    let lisa = match style {
        Style::Ftrace => "",
        Style::TraceCmd => "lisa__",
    };
    // What each CPU runs, as the switches so far say.
    let mut current: Vec<Option<usize>> = vec![None; nr_cpus];
    let cur = |current: &Vec<Option<usize>>, cpu: usize| current.get(cpu).copied().flatten();
    let all_cpus_hex = span_hex(nr_cpus);
    for e in events {
        if e.is_signal() && !signals {
            continue;
        }
        // The header: who runs on which CPU.
        let (cpu, who) = match *e {
            TraceEvent::Switch { cpu, prev, .. } => (cpu, prev),
            TraceEvent::Wakeup { cpu, task, .. } => (cpu, Some(task)),
            TraceEvent::Migrate { cpu, .. }
            | TraceEvent::Waking { cpu, .. }
            | TraceEvent::PeltCfs { cpu, .. }
            | TraceEvent::PeltSe { cpu, .. }
            | TraceEvent::UtilEstCfs { cpu, .. }
            | TraceEvent::UtilEstSe { cpu, .. }
            | TraceEvent::CpuCapacity { cpu, .. } => (cpu, cur(&current, cpu)),
            TraceEvent::Idle { cpu, .. } => (cpu, None),
            TraceEvent::Frequency { .. } => (0, None),
            TraceEvent::Overutilized { .. } => (0, cur(&current, 0)),
            // Schedlab's own records, not kernel events.
            TraceEvent::Energy { .. } | TraceEvent::RtappSlack { .. } => continue,
        };
        let t = e.t();
        let header = |s: &mut String, ctx: &mut Ctx, cpu: usize, who: Option<usize>| {
            let (c, p) = ctx.comm(who);
            match style {
                Style::Ftrace => {
                    let _ = write!(
                        s,
                        "{:>16}-{:<7} [{:03}] {:>12.6}: ",
                        c,
                        p,
                        cpu,
                        t as f64 / 1e9
                    );
                }
                Style::TraceCmd => {
                    let _ = write!(
                        s,
                        "{:>16}-{:<7} [{:03}] {:>5}.{:09}: ",
                        c,
                        p,
                        cpu,
                        t / 1_000_000_000,
                        t % 1_000_000_000
                    );
                }
            }
        };
        match *e {
            TraceEvent::Switch {
                cpu,
                prev,
                prev_state,
                next,
                ..
            } => {
                if current.len() <= cpu {
                    current.resize(cpu + 1, None);
                }
                current[cpu] = next;
                header(&mut s, &mut ctx, cpu, who);
                let (pc, pp) = ctx.comm(prev);
                let (nc, np) = ctx.comm(next);
                let _ = match style {
                    Style::Ftrace => writeln!(
                        s,
                        "sched_switch: prev_comm={pc} prev_pid={pp} prev_prio=120 prev_state={} ==> next_comm={nc} next_pid={np} next_prio=120",
                        prev_state.ftrace()
                    ),
                    Style::TraceCmd => writeln!(
                        s,
                        "sched_switch: prev_comm={pc} prev_pid={pp} prev_prio=120 prev_state={} next_comm={nc} next_pid={np} next_prio=120",
                        prev_state.raw()
                    ),
                };
            }
            TraceEvent::Wakeup { task, cpu, new, .. } => {
                header(&mut s, &mut ctx, cpu, who);
                let (c, p) = ctx.comm(Some(task));
                let ev = if new {
                    "sched_wakeup_new"
                } else {
                    "sched_wakeup"
                };
                let _ = match style {
                    Style::Ftrace => {
                        writeln!(s, "{ev}: comm={c} pid={p} prio=120 target_cpu={cpu:03}")
                    }
                    Style::TraceCmd => {
                        writeln!(s, "{ev}: comm={c} pid={p} prio=120 target_cpu={cpu}")
                    }
                };
            }
            TraceEvent::Waking {
                cpu,
                task,
                target_cpu,
                ..
            } => {
                header(&mut s, &mut ctx, cpu, who);
                let (c, p) = ctx.comm(Some(task));
                let _ = match style {
                    Style::Ftrace => writeln!(
                        s,
                        "sched_waking: comm={c} pid={p} prio=120 target_cpu={target_cpu:03}"
                    ),
                    Style::TraceCmd => writeln!(
                        s,
                        "sched_waking: comm={c} pid={p} prio=120 target_cpu={target_cpu}"
                    ),
                };
            }
            TraceEvent::Migrate {
                cpu,
                task,
                from,
                to,
                reason,
                ..
            } => {
                header(&mut s, &mut ctx, cpu, who);
                let (c, p) = ctx.comm(Some(task));
                let _ = writeln!(
                    s,
                    "sched_migrate_task: comm={c} pid={p} prio=120 orig_cpu={from} dest_cpu={to}"
                );
                header(&mut s, &mut ctx, cpu, who);
                let _ = writeln!(
                    s,
                    "schedlab__migrate_reason: comm={c} pid={p} orig_cpu={from} dest_cpu={to} reason={}",
                    reason.name()
                );
            }
            TraceEvent::Frequency { domain, khz, .. } => {
                let cpus = freq_domain_cpus.get(domain).map_or(&[][..], Vec::as_slice);
                for &cpu in cpus {
                    header(&mut s, &mut ctx, cpu, None);
                    let _ = writeln!(s, "cpu_frequency: state={khz} cpu_id={cpu}");
                }
            }
            TraceEvent::Idle { cpu, state, .. } => {
                header(&mut s, &mut ctx, cpu, None);
                // Both print the u32 as it is (TP_printk "state=%lu"): 4294967295 on exit.
                debug_assert!(state == PWR_EVENT_EXIT || state < 64);
                let _ = writeln!(s, "cpu_idle: state={state} cpu_id={cpu}");
            }
            TraceEvent::PeltCfs {
                cpu,
                load,
                runnable,
                util,
                update_time,
                ..
            } => {
                header(&mut s, &mut ctx, cpu, who);
                let _ = match style {
                    Style::Ftrace => writeln!(
                        s,
                        "sched_pelt_cfs: cpu={cpu} path=/ load={load} util={util} update_time={update_time} runnable={runnable}"
                    ),
                    Style::TraceCmd => writeln!(
                        s,
                        "{lisa}sched_pelt_cfs: update_time={update_time} runnable={runnable} util={util} load={load} cpu={cpu} path=/"
                    ),
                };
            }
            TraceEvent::PeltSe {
                cpu,
                task,
                load,
                runnable,
                util,
                update_time,
                ..
            } => {
                header(&mut s, &mut ctx, cpu, who);
                let (c, p) = ctx.comm(Some(task));
                let _ = match style {
                    Style::Ftrace => writeln!(
                        s,
                        "sched_pelt_se: cpu={cpu} path=/ comm={c} pid={p} load={load} util={util} update_time={update_time} runnable={runnable}"
                    ),
                    Style::TraceCmd => writeln!(
                        s,
                        "{lisa}sched_pelt_se: update_time={update_time} load={load} runnable={runnable} util={util} cpu={cpu} pid={p} path=/ comm={c}"
                    ),
                };
            }
            TraceEvent::UtilEstCfs {
                cpu,
                enqueued,
                util,
                ..
            } => {
                header(&mut s, &mut ctx, cpu, who);
                let _ = match style {
                    Style::Ftrace => writeln!(
                        s,
                        "sched_util_est_cfs: cpu={cpu} path=/ enqueued={enqueued} ewma=0 util={util}"
                    ),
                    Style::TraceCmd => writeln!(
                        s,
                        "{lisa}sched_util_est_cfs: util={util} enqueued={enqueued} ewma=0 cpu={cpu} path=/"
                    ),
                };
            }
            TraceEvent::UtilEstSe {
                cpu,
                task,
                enqueued,
                ewma,
                util,
                ..
            } => {
                header(&mut s, &mut ctx, cpu, who);
                let (c, p) = ctx.comm(Some(task));
                let _ = match style {
                    Style::Ftrace => writeln!(
                        s,
                        "sched_util_est_se: cpu={cpu} path=/ comm={c} pid={p} enqueued={enqueued} ewma={ewma} util={util}"
                    ),
                    Style::TraceCmd => writeln!(
                        s,
                        "{lisa}sched_util_est_se: util={util} enqueued={enqueued} ewma={ewma} cpu={cpu} pid={p} path=/ comm={c}"
                    ),
                };
            }
            TraceEvent::CpuCapacity {
                cpu,
                capacity,
                capacity_orig,
                capacity_curr,
                ..
            } => {
                header(&mut s, &mut ctx, cpu, who);
                let _ = match style {
                    Style::Ftrace => writeln!(
                        s,
                        "sched_cpu_capacity: cpu={cpu} capacity={capacity} capacity_orig={capacity_orig} capacity_curr={capacity_curr}"
                    ),
                    Style::TraceCmd => writeln!(
                        s,
                        "{lisa}sched_cpu_capacity: capacity={capacity} capacity_orig={capacity_orig} capacity_curr={capacity_curr} cpu={cpu}"
                    ),
                };
            }
            TraceEvent::Overutilized { overutilized, .. } => {
                header(&mut s, &mut ctx, cpu, who);
                let o = u8::from(overutilized);
                let _ = match style {
                    Style::Ftrace => writeln!(
                        s,
                        "sched_overutilized: overutilized={o} span=0x{all_cpus_hex}"
                    ),
                    Style::TraceCmd => writeln!(
                        s,
                        "{lisa}sched_overutilized: overutilized={o} span={all_cpus_hex}"
                    ),
                };
            }
            TraceEvent::Energy { .. } | TraceEvent::RtappSlack { .. } => {}
        }
    }
    s
}

/// A cpumask of the first `n` CPUs as `%*pb` prints it (hex, no `0x`, 32-bit words joined by `,`).
fn span_hex(n: usize) -> String {
    let mut words: Vec<u32> = vec![0; n.div_ceil(32).max(1)];
    for c in 0..n {
        words[c / 32] |= 1 << (c % 32);
    }
    let mut s = String::new();
    for (i, w) in words.iter().rev().enumerate() {
        if i == 0 {
            let _ = write!(s, "{w:x}");
        } else {
            let _ = write!(s, ",{w:08x}");
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_print_as_the_kernel_prints_cpumasks() {
        assert_eq!(span_hex(8), "ff");
        assert_eq!(span_hex(40), "ff,ffffffff");
    }
}
