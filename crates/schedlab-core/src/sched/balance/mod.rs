//! Load balancing as fair.c has it since the v5.5 rework (Vincent Guittot, 0b0695f2b34a), in its
//! v6.8 state ([`crate::kernel::LoadBalancer::Rework`]; the pre-v5.5 balancer is
//! [`super::lb_v4`], which shares this module's `lb_env`, `can_migrate_task()`, task moves,
//! interval back-off, and periodic, newly-idle and nohz balancing): `update_sg_lb_stats()` -> `group_classify()` -> `update_sd_pick_busiest()` ->
//! `find_busiest_group()` -> `calculate_imbalance()` -> `find_busiest_queue()` -> `detach_tasks()`,
//! with asym packing (`sched_asym()`, `asym_active_balance()`), misfit, active balance, periodic
//! (`rebalance_domains()`), newly-idle (`newidle_balance()`) and nohz idle balancing.
//!
//! The rules that changed between v5.5 and v6.8 are switches of [`crate::kernel::KernelConfig`]
//! (group runnable, migrate_util in the LLC, the migrate_load rule, active balance, the idle-core
//! preference, `find_busiest_queue()`'s migrate_util, the SMT ties); newly-idle balancing is gated
//! by `rq->avg_idle` against `sysctl_sched_migration_cost` or `max_newidle_lb_cost` by era.
//!
//! Simplifications: no task groups (`task_h_load()` is the task's load); no NUMA balancing
//! (`numa_preferred_nid`), only the NUMA imbalance allowance; a balance pass takes no simulated
//! time, its cost for the newidle budget is an assumed function of the domain's span
//! ([`World::newidle_lb_cost`]); `newidle_balance()` does not pull `rq->next_balance` forward.
//! As in the kernel, the balancer reads signals as last updated: busy CPUs at their tick, enqueue
//! and dequeue; idle CPUs when they balance, when the nohz idle balancer passes, and (v4.17+) at
//! the blocked-load updates of `NOHZ_STATS_KICK` (`update_nohz_stats()`, see
//! [`crate::kernel::NohzStats`]). The model's nohz "idle CPUs" are all idle CPUs: it enters a CPU
//! into tickless idle (`nohz_balance_enter_idle()`) as it goes idle, not at its next tick.

mod detach;
mod idle;
mod imbalance;
mod stats;

pub use stats::{capacity_greater, group_classify};

use super::log::{BalanceDecision, BalanceResult, Decision};
use super::World;
use crate::cpumask::CpuMask;
use crate::domains::flags::*;
use crate::kernel::LoadBalancer;

/// `enum group_type`, in the kernel's order: a higher value is busier. One enum serves both
/// balancers: the rework (v5.5+) uses `HasSpare`..`Overloaded`; the legacy one (before v5.5) uses
/// `Other` < `MisfitTask` (v4.20+) < `Imbalanced` < `Overloaded`, which is its kernel's order too.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum GroupType {
    /// `group_other` (before v5.5): neither imbalanced nor overloaded nor misfit.
    Other,
    #[default]
    HasSpare,
    FullyBusy,
    MisfitTask,
    SmtBalance,
    AsymPacking,
    Imbalanced,
    Overloaded,
}

impl GroupType {
    /// The kernel's name: `group_other`, `group_has_spare`, ...
    pub fn kernel_name(self) -> &'static str {
        match self {
            GroupType::Other => "group_other",
            GroupType::HasSpare => "group_has_spare",
            GroupType::FullyBusy => "group_fully_busy",
            GroupType::MisfitTask => "group_misfit_task",
            GroupType::SmtBalance => "group_smt_balance",
            GroupType::AsymPacking => "group_asym_packing",
            GroupType::Imbalanced => "group_imbalanced",
            GroupType::Overloaded => "group_overloaded",
        }
    }
}

/// `enum migration_type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MigrationType {
    Load,
    Util,
    Task,
    Misfit,
}

/// `enum cpu_idle_type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CpuIdleType {
    NotIdle,
    Idle,
    NewlyIdle,
}

/// `struct sg_lb_stats`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SgStats {
    pub avg_load: u64,
    pub group_load: u64,
    pub group_capacity: u64,
    pub group_util: u64,
    pub group_runnable: u64,
    pub sum_nr_running: usize,
    pub sum_h_nr_running: usize,
    pub idle_cpus: usize,
    pub group_weight: usize,
    pub group_type: GroupType,
    pub group_asym_packing: bool,
    pub group_smt_balance: bool,
    /// `sg_imbalanced()`: a balance pass below could not fix an imbalance because of affinity.
    pub group_imbalanced: bool,
    pub group_misfit_task_load: u64,
}

/// `struct lb_env`.
#[derive(Clone, Debug)]
pub struct LbEnv {
    /// Index into `SchedDomains::domains`.
    pub sd: usize,
    /// Position of `sd` in the dst CPU's hierarchy.
    pub level: usize,
    pub dst_cpu: usize,
    pub src_cpu: usize,
    pub idle: CpuIdleType,
    pub imbalance: i64,
    pub migration_type: MigrationType,
    pub cpus: CpuMask,
    pub all_pinned: bool,
    /// LBF_SOME_PINNED: a candidate task may not run on the destination CPU.
    pub some_pinned: bool,
    /// LBF_DST_PINNED with `env->new_dst_cpu`: a task that may not run on `dst_cpu` may run on this
    /// other CPU of the local group.
    pub new_dst_cpu: Option<usize>,
    /// The CPU whose `load_balance()` this is (`this_cpu`): its domain's `nr_balance_failed`
    /// counts, whatever `dst_cpu` becomes after an `LBF_DST_PINNED` retry.
    pub balance_cpu: usize,
    pub active_lb: bool,
    /// For the decision log: the busiest group found and the imbalance computed for it.
    pub busiest_group: Option<usize>,
    pub imbalance_found: i64,
}

/// What one `load_balance()` pass saw and did, for the decision log.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BalanceOutcome {
    pub moved: usize,
    pub active: bool,
}

impl BalanceOutcome {
    pub(super) fn result(&self) -> BalanceResult {
        if self.moved > 0 {
            BalanceResult::Moved
        } else if self.active {
            BalanceResult::ActiveBalance
        } else {
            BalanceResult::NothingMoved
        }
    }
}

impl World {
    /// `struct lb_env` as `load_balance()` starts it at `level` of `this_cpu`'s domains (both
    /// balancers: migrate_load until `calculate_imbalance()` says otherwise).
    pub(super) fn lb_env(&self, this_cpu: usize, level: usize, idle: CpuIdleType) -> LbEnv {
        let sd = self.sd.per_cpu[this_cpu][level];
        LbEnv {
            sd,
            level,
            dst_cpu: this_cpu,
            src_cpu: this_cpu,
            idle,
            imbalance: 0,
            migration_type: MigrationType::Load,
            cpus: self.sd.domains[sd].span,
            all_pinned: false,
            some_pinned: false,
            new_dst_cpu: None,
            balance_cpu: this_cpu,
            active_lb: false,
            busiest_group: None,
            imbalance_found: 0,
        }
    }

    fn nr_balance_failed(&self, env: &LbEnv) -> u32 {
        self.sd_state(env.balance_cpu, env.level).nr_balance_failed
    }

    /// `sched_use_asym_prio()`: between cores on an SMT machine, only a fully idle core counts.
    fn sched_use_asym_prio(&self, sd: usize, cpu: usize) -> bool {
        if !self.smt_active {
            return true;
        }
        self.sd.domains[sd].has(SD_SHARE_CPUCAPACITY) || self.is_core_idle(cpu)
    }

    /// `is_core_idle()`: every SMT sibling of `cpu` is idle.
    fn is_core_idle(&self, cpu: usize) -> bool {
        self.topo.cores[self.topo.cpus[cpu].core]
            .iter()
            .all(|c| c == cpu || self.idle_cpu(c))
    }

    /// `load_balance()` at one level of `this_cpu`'s hierarchy, logged when the run is traced.
    pub fn load_balance(
        &mut self,
        this_cpu: usize,
        level: usize,
        idle: CpuIdleType,
    ) -> BalanceOutcome {
        let logging = self.log.is_some();
        if logging {
            self.lb_groups.clear();
        }
        let failed_before = self.sd_state(this_cpu, level).nr_balance_failed;
        let (out, result, env) = match self.config.load_balancer {
            LoadBalancer::Rework => self.load_balance_pass(this_cpu, level, idle),
            LoadBalancer::Legacy => self.load_balance_pass_v4(this_cpu, level, idle),
        };
        if logging {
            let groups = std::mem::take(&mut self.lb_groups);
            let busiest = env.busiest_group.and_then(|g| {
                let span = self.sd.domains[env.sd].groups[g].span;
                groups.iter().position(|l| l.cpus == span)
            });
            let found = env.busiest_group.is_some();
            let legacy = self.lb_legacy.take();
            let decision = Decision::Balance(BalanceDecision {
                t: self.now,
                cpu: this_cpu,
                level: self.sd.domains[env.sd].level,
                idle,
                groups,
                busiest,
                migration_type: (found && legacy.is_none()).then_some(env.migration_type),
                imbalance: env.imbalance_found,
                src_cpu: (env.src_cpu != this_cpu).then_some(env.src_cpu),
                moved: out.moved,
                nr_balance_failed: failed_before,
                result,
                newidle_skip: None,
                legacy,
            });
            if let Some(log) = &mut self.log {
                log.push(decision);
            }
        }
        out
    }
}

pub const NOHZ_BALANCE_KICK: u8 = 1;
pub const NOHZ_STATS_KICK: u8 = 2;
/// `LOAD_AVG_PERIOD` (32) as ms: how often the blocked load of idle CPUs is updated.
/// `shr_bound()`: shift right, bounded to the type's width.
pub fn shr_bound(val: u64, shift: u32) -> u64 {
    val >> shift.min(63)
}
