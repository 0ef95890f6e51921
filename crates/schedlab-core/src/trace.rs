//! What a run records about itself: always-on counters (cheap integer increments), and, on request,
//! a typed event log for timelines and decision logs.

use serde::{Deserialize, Serialize};

/// Per-run counts of scheduler decisions.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub context_switches: u64,
    pub wakeups: u64,
    pub forks: u64,
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
}

/// One recorded scheduler event.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum TraceEvent {
    /// `sched_switch`: `next` (None = idle) starts on `cpu`.
    Switch { t: u64, cpu: usize, prev: Option<usize>, next: Option<usize> },
    /// `sched_migrate_task`.
    Migrate { t: u64, task: usize, from: usize, to: usize, reason: MigrateReason },
    /// `sched_wakeup` / `sched_wakeup_new`.
    Wakeup { t: u64, task: usize, cpu: usize, new: bool },
    /// A frequency domain changed frequency.
    Frequency { t: u64, domain: usize, khz: u32 },
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum MigrateReason {
    Wakeup,
    Fork,
    LoadBalance,
    ActiveBalance,
}
