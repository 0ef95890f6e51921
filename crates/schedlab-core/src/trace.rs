//! What a run records about itself: always-on counters (cheap integer increments), and, on request,
//! a typed event log for timelines and decision logs.

use serde::{Deserialize, Serialize};

/// Per-run counts of scheduler decisions.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub context_switches: u64,
    pub wakeups: u64,
    pub forks: u64,
    /// `sched_exec()` calls, and those that moved the task to another CPU.
    #[serde(default)]
    pub execs: u64,
    #[serde(default)]
    pub exec_migrations: u64,
    /// Wake-ups placed by `select_idle_sibling()` (the fast path).
    pub wake_fast_path: u64,
    /// Placements by `find_idlest_cpu()` (the slow path: fork, exec, SD_BALANCE_WAKE).
    pub wake_slow_path: u64,
    pub wake_affine_pulls: u64,
    pub wake_wide: u64,
    pub migrations: u64,
    pub load_balance_calls: u64,
    pub load_balance_moved: u64,
    pub active_balances: u64,
    pub nohz_kicks: u64,
    pub ticks: u64,
    pub freq_changes: u64,
    /// Slow-path placements of wake-ups through SD_BALANCE_WAKE.
    pub balance_wake: u64,
    /// Wake-ups by [`WakeClass`], indexed by [`WakeClass::index`].
    pub wake_classes: [u64; 32],
    /// Wake-ups placed by `find_energy_efficient_cpu()` (EAS).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub wake_energy: u64,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

/// The wake-up classification of the 2016 asymmetric-capacity series' evaluation: is the task
/// big (does not fit ~80% of the smallest capacity), where did it run and who woke it, where did it
/// go and by which path.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct WakeClass {
    pub task_big: bool,
    pub prev_big: bool,
    pub waker_big: bool,
    pub target_big: bool,
    pub slow_path: bool,
}

impl WakeClass {
    pub fn index(self) -> usize {
        usize::from(self.task_big)
            | usize::from(self.prev_big) << 1
            | usize::from(self.waker_big) << 2
            | usize::from(self.target_big) << 3
            | usize::from(self.slow_path) << 4
    }

    pub fn from_index(i: usize) -> WakeClass {
        WakeClass {
            task_big: i & 1 != 0,
            prev_big: i & 2 != 0,
            waker_big: i & 4 != 0,
            target_big: i & 8 != 0,
            slow_path: i & 16 != 0,
        }
    }
}

/// What the task leaving a CPU does next (`sched_switch`'s `prev_state`).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PrevState {
    /// The idle task (printed `R`).
    Idle,
    /// Still runnable: preempted, or moved away (`R+`, as the kernel prints a preempted task).
    Preempted,
    /// Asleep or blocked (`S`).
    Sleeping,
    /// Exited (`X`).
    Exited,
}

impl PrevState {
    fn ftrace(self) -> &'static str {
        match self {
            PrevState::Idle => "R",
            PrevState::Preempted => "R+",
            PrevState::Sleeping => "S",
            PrevState::Exited => "X",
        }
    }
}

/// One recorded scheduler event.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum TraceEvent {
    /// `sched_switch`: `next` (None = idle) starts on `cpu`; `prev` left it in `prev_state`.
    Switch {
        t: u64,
        cpu: usize,
        prev: Option<usize>,
        prev_state: PrevState,
        next: Option<usize>,
    },
    /// `sched_migrate_task`, traced by `cpu`, the CPU doing the move: the source CPU's stopper for
    /// an active balance or an affinity change, the balancing CPU for a load-balance pull, the
    /// waking CPU for a wake-up.
    Migrate {
        t: u64,
        cpu: usize,
        task: usize,
        from: usize,
        to: usize,
        reason: MigrateReason,
    },
    /// `sched_wakeup` / `sched_wakeup_new`.
    Wakeup {
        t: u64,
        task: usize,
        cpu: usize,
        new: bool,
    },
    /// A frequency domain changed frequency.
    Frequency { t: u64, domain: usize, khz: u32 },
    /// `sched_pelt_se` (`trace_pelt_se_tp()`, v5.2+, the tracepoint LISA's kernel module turns
    /// into `lisa__sched_pelt_se`): a task's PELT signals, recorded here as the task switches in
    /// and out on `cpu` (the kernel fires it at every `update_load_avg()` of the entity, which
    /// `put_prev_entity()` / `set_next_entity()` and the enqueue / dequeue around a switch make;
    /// the updates at ticks in between are left out). Not printed by [`to_ftrace`].
    PeltSe {
        t: u64,
        cpu: usize,
        task: usize,
        util: u64,
        load: u64,
    },
    /// rt-app's per-activation slack (`rt-app.c` `run()`: at a `timer` event, the timer's next
    /// expiry minus now; negative when the run overran the period), the `Slack` column of the
    /// rt-app log LISA's `PerfAnalysis` reads. Not printed by [`to_ftrace`].
    RtappSlack { t: u64, task: usize, slack_ns: i64 },
}

impl TraceEvent {
    /// When the event happened, ns.
    pub fn t(&self) -> u64 {
        match *self {
            TraceEvent::Switch { t, .. }
            | TraceEvent::Migrate { t, .. }
            | TraceEvent::Wakeup { t, .. }
            | TraceEvent::Frequency { t, .. }
            | TraceEvent::PeltSe { t, .. }
            | TraceEvent::RtappSlack { t, .. } => t,
        }
    }
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum MigrateReason {
    Wakeup,
    LoadBalance,
    ActiveBalance,
    Affinity,
    /// `sched_exec()` moved the task at exec.
    Exec,
}

/// Renders events in the text format of ftrace's `trace` file, close enough for trace viewers that
/// read `sched_switch`, `sched_wakeup`, `sched_migrate_task` and `cpu_frequency` lines. Task `i` is
/// `comm-i` with `comm` from `names[i]` (pid = task id + 1; pid 0 is the idle task). A frequency
/// change of domain `d` is one `cpu_frequency` line per CPU in `freq_domain_cpus[d]`, as cpufreq
/// traces it for each CPU of the policy. A `sched_migrate_task` line is in the mover's CPU column
/// and its TASK-PID is what that CPU runs then (the waker, the balancing CPU's task or idle; an
/// active balance's or affinity change's stopper is not a task of the model and shows as idle).
pub fn to_ftrace(
    events: &[TraceEvent],
    names: &[String],
    freq_domain_cpus: &[Vec<usize>],
) -> String {
    let comm = |t: Option<usize>| match t {
        Some(t) => (names.get(t).map(String::as_str).unwrap_or("task"), t + 1),
        None => ("<idle>", 0),
    };
    let mut s =
        String::from("# tracer: nop\n#\n#           TASK-PID     CPU#     TIMESTAMP  FUNCTION\n");
    // What each CPU runs, as the switches so far say.
    let mut current: Vec<Option<usize>> = Vec::new();
    for e in events {
        let line = match *e {
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
                let (pc, pp) = comm(prev);
                let (nc, np) = comm(next);
                format!(
                    "{:>16}-{:<7} [{:03}] {:>12.6}: sched_switch: prev_comm={pc} prev_pid={pp} prev_prio=120 prev_state={} ==> next_comm={nc} next_pid={np} next_prio=120",
                    pc, pp, cpu, t as f64 / 1e9, prev_state.ftrace()
                )
            }
            TraceEvent::Wakeup { t, task, cpu, new } => {
                let (c, p) = comm(Some(task));
                format!(
                    "{:>16}-{:<7} [{:03}] {:>12.6}: {}: comm={c} pid={p} prio=120 target_cpu={:03}",
                    c,
                    p,
                    cpu,
                    t as f64 / 1e9,
                    if new {
                        "sched_wakeup_new"
                    } else {
                        "sched_wakeup"
                    },
                    cpu
                )
            }
            TraceEvent::Migrate {
                t,
                cpu,
                task,
                from,
                to,
                reason,
            } => {
                let (c, p) = comm(Some(task));
                let (mc, mp) = comm(current.get(cpu).copied().flatten());
                format!(
                    "{:>16}-{:<7} [{:03}] {:>12.6}: sched_migrate_task: comm={c} pid={p} prio=120 orig_cpu={from} dest_cpu={to} reason={reason:?}",
                    mc, mp, cpu, t as f64 / 1e9
                )
            }
            TraceEvent::Frequency { t, domain, khz } => {
                let cpus = freq_domain_cpus.get(domain).map_or(&[][..], Vec::as_slice);
                let mut lines = String::new();
                for (k, cpu) in cpus.iter().enumerate() {
                    if k > 0 {
                        lines.push('\n');
                    }
                    lines.push_str(&format!(
                        "{:>16}-{:<7} [{:03}] {:>12.6}: cpu_frequency: state={khz} cpu_id={cpu}",
                        "<idle>",
                        0,
                        cpu,
                        t as f64 / 1e9
                    ));
                }
                lines
            }
            // LISA's and rt-app's own records, not the kernel's sched events.
            TraceEvent::PeltSe { .. } | TraceEvent::RtappSlack { .. } => continue,
        };
        s.push_str(&line);
        s.push('\n');
    }
    s
}
