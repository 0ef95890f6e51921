//! What a run records about itself: always-on counters (cheap integer increments), and, on request,
//! a typed event log for timelines and decision logs: the kernel's sched and power events, and in
//! a run traced with signals (`Plan::run_traced_with`) the scheduler's own tracepoints
//! ([`crate::sched::tracepoints`]). Its exports: [`text`] (ftrace text, `trace-cmd report` text
//! for LISA), [`perfetto`] (a Perfetto protobuf trace, written with [`proto`]), and [`file`], the
//! one function the CLI and the page call for the files.

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
    /// `sched_waking`: `try_to_wake_up()` starts waking `task` from `cpu` (the waker's CPU, or
    /// for a timer the CPU it fires on); `target_cpu` is the task's CPU then (`task_cpu(p)`,
    /// where it last ran), as the kernel's `__trace_sched_wakeup_template` prints it.
    Waking {
        t: u64,
        cpu: usize,
        task: usize,
        target_cpu: usize,
    },
    /// `cpu_idle`: `cpu` enters idle state `state` (an index into its cluster's idle states), or
    /// leaves it ([`PWR_EVENT_EXIT`]), as `cpuidle_idle_call()` and `cpuidle_enter_state()` trace
    /// it. A machine without idle states has none.
    Idle { t: u64, cpu: usize, state: u32 },
    /// The cfs_rq's PELT averages after an update that decayed them, or an attach or detach: the
    /// bare tracepoint `pelt_cfs_tp` (v5.3+, `__update_load_avg_cfs_rq()`,
    /// `attach/detach_entity_load_avg()`), as LISA's `lisa__sched_pelt_cfs` prints it. Recorded
    /// only in a run traced with signals.
    PeltCfs {
        t: u64,
        cpu: usize,
        load: u64,
        runnable: u64,
        util: u64,
        update_time: u64,
    },
    /// A task's PELT averages after an update that decayed them: `pelt_se_tp` (v5.3+,
    /// `__update_load_avg_se()`), LISA's `lisa__sched_pelt_se`. Signals only.
    PeltSe {
        t: u64,
        cpu: usize,
        task: usize,
        load: u64,
        runnable: u64,
        util: u64,
        update_time: u64,
    },
    /// The cfs_rq's `util_est.enqueued` after `util_est_enqueue()` / `util_est_dequeue()`:
    /// `sched_util_est_cfs_tp` (v5.10+), LISA's `lisa__sched_util_est_cfs`. Signals only, and
    /// only where the era has util_est.
    UtilEstCfs {
        t: u64,
        cpu: usize,
        enqueued: u64,
        util: u64,
    },
    /// A task's `util_est` after `util_est_update()` at a dequeue for sleep:
    /// `sched_util_est_se_tp` (v5.10+), LISA's `lisa__sched_util_est_se`. Signals only.
    UtilEstSe {
        t: u64,
        cpu: usize,
        task: usize,
        enqueued: u64,
        ewma: u64,
        util: u64,
    },
    /// A CPU's capacities: `sched_cpu_capacity_tp` (LISA's `lisa__sched_cpu_capacity`):
    /// `capacity` (`rq->cpu_capacity`), `capacity_orig` and `capacity_curr` (`capacity_orig` x
    /// the frequency scale). Simplification: the model's `cpu_capacity` has no RT/IRQ pressure to
    /// change it, so this is recorded at the start and at each frequency change of the CPU's
    /// policy (where `capacity_curr` changes), not at each `update_cpu_capacity()`. Signals only.
    CpuCapacity {
        t: u64,
        cpu: usize,
        capacity: u64,
        capacity_orig: u64,
        capacity_curr: u64,
    },
    /// The root domain's overutilized flag written: `sched_overutilized_tp` (v5.x-v6.8
    /// `update_overutilized_status()` when it sets it, `update_sd_lb_stats()` at the root domain
    /// and when a lower domain sets it), LISA's `lisa__sched_overutilized`. Only with EAS.
    /// Signals only.
    Overutilized { t: u64, overutilized: bool },
    /// The energy meter's total since the start of the run, microjoules (cores and the clusters'
    /// shared domains), recorded at each change of a core's power. Schedlab's own, not a kernel
    /// event. Signals only.
    Energy { t: u64, uj: u64 },
    /// rt-app's per-activation slack (`rt-app.c` `run()`: at a `timer` event, the timer's next
    /// expiry minus now; negative when the run overran the period), the `Slack` column of the
    /// rt-app log LISA's `PerfAnalysis` reads. Schedlab's record of the workload, not a kernel
    /// event: not in the text or Perfetto exports.
    RtappSlack { t: u64, task: usize, slack_ns: i64 },
}

/// `cpu_idle`'s `state` when the CPU leaves its idle state (`PWR_EVENT_EXIT`, `(u32)-1`).
pub const PWR_EVENT_EXIT: u32 = u32::MAX;

impl TraceEvent {
    /// When the event happened, ns.
    pub fn t(&self) -> u64 {
        match *self {
            TraceEvent::Switch { t, .. }
            | TraceEvent::Migrate { t, .. }
            | TraceEvent::Wakeup { t, .. }
            | TraceEvent::Frequency { t, .. }
            | TraceEvent::Waking { t, .. }
            | TraceEvent::Idle { t, .. }
            | TraceEvent::PeltCfs { t, .. }
            | TraceEvent::PeltSe { t, .. }
            | TraceEvent::UtilEstCfs { t, .. }
            | TraceEvent::UtilEstSe { t, .. }
            | TraceEvent::CpuCapacity { t, .. }
            | TraceEvent::Overutilized { t, .. }
            | TraceEvent::Energy { t, .. }
            | TraceEvent::RtappSlack { t, .. } => t,
        }
    }

    /// Whether this is one of the signal events (PELT, util_est, capacity, overutilized, energy)
    /// a run records only when traced with signals.
    pub fn is_signal(&self) -> bool {
        matches!(
            self,
            TraceEvent::PeltCfs { .. }
                | TraceEvent::PeltSe { .. }
                | TraceEvent::UtilEstCfs { .. }
                | TraceEvent::UtilEstSe { .. }
                | TraceEvent::CpuCapacity { .. }
                | TraceEvent::Overutilized { .. }
                | TraceEvent::Energy { .. }
        )
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

/// Renders events in the text format of ftrace's `trace` file (see [`text`]): the kernel's
/// events only (`sched_switch`, `sched_waking`, `sched_wakeup(_new)`, `sched_migrate_task`,
/// `cpu_frequency`, `cpu_idle`) and schedlab's `schedlab__migrate_reason`. Task `i` is `comm-i`
/// with `comm` from `names[i]` (pid = task id + 1; pid 0 is the idle task). A frequency change of
/// domain `d` is one `cpu_frequency` line per CPU in `freq_domain_cpus[d]`.
pub fn to_ftrace(
    events: &[TraceEvent],
    names: &[String],
    freq_domain_cpus: &[Vec<usize>],
) -> String {
    text::render(events, names, freq_domain_cpus, text::Style::Ftrace, false)
}

pub mod file;
pub mod perfetto;
pub mod proto;
pub mod text;
