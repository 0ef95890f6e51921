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

use super::log::{BalanceDecision, BalanceResult, Decision, NewidleSkip};
use super::wakeup::fits_capacity;
use super::{TaskId, World};
use crate::cpumask::CpuMask;
use crate::domains::flags::*;
use crate::kernel::{AvgLoadGuard, LoadBalancer, NewidleGate, NohzKick, NohzStats, NumaImbalance};
use crate::units::SCHED_CAPACITY_SCALE;

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

/// `group_is_overloaded()`; `runnable`: the v5.7+ `group_runnable` test
/// ([`crate::kernel::KernelConfig::lb_group_runnable`]).
fn group_is_overloaded(imbalance_pct: u64, sgs: &SgStats, runnable: bool) -> bool {
    if sgs.sum_nr_running <= sgs.group_weight {
        return false;
    }
    sgs.group_capacity * 100 < sgs.group_util * imbalance_pct
        || (runnable && sgs.group_capacity * imbalance_pct < sgs.group_runnable * 100)
}

/// `group_has_capacity()`; `runnable` as for [`group_is_overloaded`].
fn group_has_capacity(imbalance_pct: u64, sgs: &SgStats, runnable: bool) -> bool {
    if sgs.sum_nr_running < sgs.group_weight {
        return true;
    }
    if runnable && sgs.group_capacity * imbalance_pct < sgs.group_runnable * 100 {
        return false;
    }
    sgs.group_capacity * 100 > sgs.group_util * imbalance_pct
}

/// `group_classify()`; `runnable`: whether `group_runnable` counts (v5.7+).
pub fn group_classify(imbalance_pct: u64, sgs: &SgStats, runnable: bool) -> GroupType {
    if group_is_overloaded(imbalance_pct, sgs, runnable) {
        GroupType::Overloaded
    } else if sgs.group_imbalanced {
        GroupType::Imbalanced
    } else if sgs.group_asym_packing {
        GroupType::AsymPacking
    } else if sgs.group_smt_balance {
        GroupType::SmtBalance
    } else if sgs.group_misfit_task_load != 0 {
        GroupType::MisfitTask
    } else if !group_has_capacity(imbalance_pct, sgs, runnable) {
        GroupType::FullyBusy
    } else {
        GroupType::HasSpare
    }
}

/// `capacity_greater()`: noticeably (~5%) bigger.
pub fn capacity_greater(cap1: u64, cap2: u64) -> bool {
    cap1 * 1024 > cap2 * 1078
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

/// `struct sd_lb_stats`.
#[derive(Clone, Debug, Default)]
struct SdLbStats {
    busiest: Option<usize>,
    local: usize,
    total_load: u64,
    total_capacity: u64,
    avg_load: u64,
    prefer_sibling: bool,
    busiest_stat: SgStats,
    local_stat: SgStats,
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

    /// `sched_asym()` (v6.8).
    fn sched_asym(&self, env: &LbEnv, sgs: &SgStats, group: usize) -> bool {
        if !self.sched_use_asym_prio(env.sd, env.dst_cpu) {
            return false;
        }
        let g = &self.sd.domains[env.sd].groups[group];
        if g.flags & SD_SHARE_CPUCAPACITY != 0 && sgs.group_weight - sgs.idle_cpus != 1 {
            return false;
        }
        self.sd.sched_asym_prefer(env.dst_cpu, g.asym_prefer_cpu)
    }

    /// `update_sg_lb_stats()`. Returns whether a CPU had more than one task (SG_OVERLOAD).
    fn update_sg_lb_stats(
        &self,
        env: &LbEnv,
        group: usize,
        local_group: bool,
        sgs: &mut SgStats,
    ) -> bool {
        let dom = &self.sd.domains[env.sd];
        let g = &dom.groups[group];
        let mut overload = false;
        for i in g.span.and(&env.cpus).iter() {
            let load = self.cpu_load(i);
            sgs.group_load += load;
            sgs.group_util += self.cpu_util(i);
            sgs.group_runnable += self.cpu_runnable(i);
            let nr = self.rqs[i].nr_running;
            sgs.sum_h_nr_running += nr;
            sgs.sum_nr_running += nr;
            if nr > 1 {
                overload = true;
            }
            if nr == 0 && self.idle_cpu(i) {
                sgs.idle_cpus += 1;
                continue;
            }
            if local_group {
                continue;
            }
            if dom.has(SD_ASYM_CPUCAPACITY)
                && sgs.group_misfit_task_load < self.rqs[i].misfit_task_load
            {
                sgs.group_misfit_task_load = self.rqs[i].misfit_task_load;
                overload = true;
            }
        }
        sgs.group_capacity = g.capacity;
        sgs.group_weight = g.weight;
        sgs.group_imbalanced = self.group_imbalance[env.sd][group];
        if !local_group
            && dom.has(SD_ASYM_PACKING)
            && env.idle != CpuIdleType::NotIdle
            && sgs.sum_h_nr_running > 0
            && self.sched_asym(env, sgs, group)
        {
            sgs.group_asym_packing = true;
        }
        // smt_balance() (v6.6+): an SMT group running more than one task, seen from an idle CPU.
        if self.config.smt_balance
            && !local_group
            && env.idle != CpuIdleType::NotIdle
            && g.flags & SD_SHARE_CPUCAPACITY != 0
            && sgs.sum_h_nr_running > 1
        {
            sgs.group_smt_balance = true;
        }
        sgs.group_type =
            group_classify(dom.imbalance_pct as u64, sgs, self.config.lb_group_runnable);
        if sgs.group_type == GroupType::Overloaded {
            sgs.avg_load = sgs.group_load * SCHED_CAPACITY_SCALE / sgs.group_capacity.max(1);
        }
        overload
    }

    /// `update_sd_pick_busiest()` (v6.8; the v5.5-v6.5 SMT-blind ties with
    /// `pick_busiest_smt` off).
    fn update_sd_pick_busiest(
        &self,
        env: &LbEnv,
        sds: &SdLbStats,
        group: usize,
        sgs: &SgStats,
    ) -> bool {
        let dom = &self.sd.domains[env.sd];
        let sg = &dom.groups[group];
        let busiest = &sds.busiest_stat;
        if sgs.sum_h_nr_running == 0 {
            return false;
        }
        if dom.has(SD_ASYM_CPUCAPACITY)
            && sgs.group_type == GroupType::MisfitTask
            && (!capacity_greater(self.capacity_of(env.dst_cpu), sg.max_capacity)
                || sds.local_stat.group_type != GroupType::HasSpare)
        {
            return false;
        }
        if sgs.group_type > busiest.group_type {
            return true;
        }
        if sgs.group_type < busiest.group_type {
            return false;
        }
        let busiest_group = sds.busiest.map(|b| &dom.groups[b]);
        let has_spare_rule = |sgs: &SgStats| {
            !(sgs.idle_cpus > busiest.idle_cpus
                || (sgs.idle_cpus == busiest.idle_cpus
                    && sgs.sum_nr_running <= busiest.sum_nr_running))
        };
        let keep = match sgs.group_type {
            GroupType::Overloaded => sgs.avg_load > busiest.avg_load,
            // group_other is the legacy balancer's; group_classify() here never gives it.
            GroupType::Imbalanced | GroupType::Other => false,
            GroupType::AsymPacking => !busiest_group.is_some_and(|b| {
                self.sd
                    .sched_asym_prefer(sg.asym_prefer_cpu, b.asym_prefer_cpu)
            }),
            GroupType::MisfitTask => sgs.group_misfit_task_load >= busiest.group_misfit_task_load,
            GroupType::SmtBalance if sgs.idle_cpus != 0 || busiest.idle_cpus != 0 => {
                has_spare_rule(sgs)
            }
            GroupType::SmtBalance | GroupType::FullyBusy if self.config.pick_busiest_smt => {
                !(sgs.avg_load < busiest.avg_load
                    || (sgs.avg_load == busiest.avg_load
                        && busiest_group.is_some_and(|b| b.flags & SD_SHARE_CPUCAPACITY != 0)))
            }
            // v5.5-v6.5: the first of equal avg_load stays busiest.
            GroupType::SmtBalance | GroupType::FullyBusy => sgs.avg_load > busiest.avg_load,
            GroupType::HasSpare if !self.config.pick_busiest_smt => has_spare_rule(sgs),
            GroupType::HasSpare => {
                let busiest_smt =
                    busiest_group.is_some_and(|b| b.flags & SD_SHARE_CPUCAPACITY != 0);
                let sg_smt = sg.flags & SD_SHARE_CPUCAPACITY != 0;
                if busiest_group.is_some() && busiest_smt != sg_smt {
                    // smt_vs_nonsmt_groups(): never prefer an SMT group running one task.
                    !(sg_smt && sgs.sum_h_nr_running <= 1)
                } else {
                    has_spare_rule(sgs)
                }
            }
        };
        if !keep {
            return false;
        }
        if dom.has(SD_ASYM_CPUCAPACITY)
            && sgs.group_type <= GroupType::FullyBusy
            && capacity_greater(sg.min_capacity, self.capacity_of(env.dst_cpu))
        {
            return false;
        }
        true
    }

    /// `update_sd_lb_stats()`.
    fn update_sd_lb_stats(&mut self, env: &LbEnv) -> SdLbStats {
        let d = env.sd;
        self.lbf_nohz_stats(env);
        let mut sds = SdLbStats {
            busiest_stat: SgStats {
                idle_cpus: usize::MAX,
                ..SgStats::default()
            },
            ..SdLbStats::default()
        };
        let child = if env.level > 0 {
            Some(self.sd.per_cpu[env.dst_cpu][env.level - 1])
        } else {
            None
        };
        // v4.9-v6.4: the destination's child domain prefers siblings (v5.6 fair.c:8600).
        sds.prefer_sibling = child.is_some_and(|c| self.sd.domains[c].has(SD_PREFER_SIBLING));
        let local_group = self.sd.domains[d].local_group(env.dst_cpu);
        sds.local = local_group;
        let mut overload = false;
        let ngroups = self.sd.domains[d].groups.len();
        for k in 0..ngroups {
            let g = (local_group + k) % ngroups;
            let is_local = g == local_group;
            let mut sgs = SgStats::default();
            overload |= self.update_sg_lb_stats(env, g, is_local, &mut sgs);
            if self.log.is_some() {
                self.lb_groups.push(super::log::GroupLog {
                    cpus: self.sd.domains[d].groups[g].span,
                    group_type: sgs.group_type,
                    load: sgs.group_load,
                    util: sgs.group_util,
                    runnable: sgs.group_runnable,
                    capacity: sgs.group_capacity,
                    nr_running: sgs.sum_nr_running,
                    idle_cpus: sgs.idle_cpus,
                    misfit_task_load: sgs.group_misfit_task_load,
                    avg_load: sgs.avg_load,
                });
            }
            if is_local {
                sds.local_stat = sgs;
            } else if self.update_sd_pick_busiest(env, &sds, g, &sgs) {
                sds.busiest = Some(g);
                sds.busiest_stat = sgs;
            }
            sds.total_load += sgs.group_load;
            sds.total_capacity += sgs.group_capacity;
        }
        self.update_idle_cpu_scan(env);
        // v6.5+: the busiest group's child domain decides (sg->flags, v6.8 fair.c:10605).
        if self.config.prefer_sibling_from_busiest {
            if let Some(b) = sds.busiest {
                sds.prefer_sibling = self.sd.domains[d].groups[b].flags & SD_PREFER_SIBLING != 0;
            }
        }
        // At the root domain, refresh rd->overload.
        if self.sd.per_cpu[env.dst_cpu].len() == env.level + 1 {
            self.rd_overload = overload;
        }
        sds
    }

    /// `sibling_imbalance()` (v6.6+).
    fn sibling_imbalance(&self, env: &LbEnv, sds: &SdLbStats) -> i64 {
        let busiest = &sds.busiest_stat;
        let local = &sds.local_stat;
        if env.idle == CpuIdleType::NotIdle || busiest.sum_nr_running == 0 {
            return 0;
        }
        let dom = &self.sd.domains[env.sd];
        let cores = |g: usize| {
            let span = dom.groups[g].span;
            let mut seen = CpuMask::EMPTY;
            let mut n = 0i64;
            for c in span.iter() {
                let core = self.topo.cpus[c].core;
                if !seen.test(core) {
                    seen.set(core);
                    n += 1;
                }
            }
            n
        };
        let nb = cores(sds.busiest.unwrap());
        let nl = cores(sds.local);
        if nb == nl {
            return (busiest.sum_nr_running as i64 - local.sum_nr_running as i64).max(0);
        }
        let mut imbalance =
            (nl * busiest.sum_nr_running as i64 - nb * local.sum_nr_running as i64).max(0);
        imbalance = (2 * imbalance + nl + nb) / (nl + nb);
        if imbalance <= 1 && local.sum_nr_running == 0 && busiest.sum_nr_running > 1 {
            imbalance = 2;
        }
        imbalance
    }

    /// `calculate_imbalance()` (v6.8, plus the v1 "use all little CPUs" switch).
    fn calculate_imbalance(&self, env: &mut LbEnv, sds: &mut SdLbStats) {
        let dom = &self.sd.domains[env.sd];
        let local = sds.local_stat;
        let busiest = sds.busiest_stat;
        match busiest.group_type {
            GroupType::MisfitTask => {
                if dom.has(SD_ASYM_CPUCAPACITY) {
                    env.migration_type = MigrationType::Misfit;
                    env.imbalance = 1;
                } else {
                    env.migration_type = MigrationType::Load;
                    env.imbalance = busiest.group_misfit_task_load as i64;
                }
                return;
            }
            GroupType::AsymPacking => {
                env.migration_type = MigrationType::Task;
                env.imbalance = busiest.sum_h_nr_running as i64;
                return;
            }
            GroupType::SmtBalance | GroupType::Imbalanced => {
                env.migration_type = MigrationType::Task;
                env.imbalance = 1;
                return;
            }
            _ => {}
        }
        if local.group_type == GroupType::HasSpare {
            // v5.10+ spreads tasks inside the LLC; v5.5-v5.9 fill spare capacity at every level.
            if busiest.group_type > GroupType::FullyBusy
                && !(self.config.lb_spread_in_llc && dom.has(SD_SHARE_PKG_RESOURCES))
            {
                // "Use all little CPUs for CPU-bound workload" v1 (Gondois, Nov 2023; not merged):
                // an asymmetric domain whose local group has an idle CPU and whose busiest group has
                // more tasks than CPUs moves one task, whatever its utilization.
                if self.config.lb_asym_cap_migrate_task
                    && dom.has(SD_ASYM_CPUCAPACITY)
                    && local.sum_nr_running < local.group_weight
                    && busiest.sum_nr_running > busiest.group_weight
                {
                    env.migration_type = MigrationType::Task;
                    env.imbalance = 1;
                    return;
                }
                env.migration_type = MigrationType::Util;
                env.imbalance =
                    (local.group_capacity.max(local.group_util) - local.group_util) as i64;
                if env.idle != CpuIdleType::NotIdle && env.imbalance == 0 {
                    env.migration_type = MigrationType::Task;
                    env.imbalance = 1;
                }
                return;
            }
            env.migration_type = MigrationType::Task;
            env.imbalance = if busiest.group_weight == 1 || sds.prefer_sibling {
                self.sibling_imbalance(env, sds)
            } else {
                (local.idle_cpus as i64 - busiest.idle_cpus as i64).max(0)
            };
            if dom.has(SD_NUMA) {
                env.imbalance = self.adjust_numa_imbalance(env.imbalance, &local, &busiest, dom);
            }
            env.imbalance >>= 1;
            return;
        }
        if local.group_type < GroupType::Overloaded {
            let guard = self.config.lb_avg_load_guard;
            sds.local_stat.avg_load =
                local.group_load * SCHED_CAPACITY_SCALE / local.group_capacity.max(1);
            if guard != AvgLoadGuard::None && sds.local_stat.avg_load >= busiest.avg_load {
                env.imbalance = 0;
                return;
            }
            sds.avg_load = sds.total_load * SCHED_CAPACITY_SCALE / sds.total_capacity.max(1);
            if guard == AvgLoadGuard::BusiestAndDomain && sds.local_stat.avg_load >= sds.avg_load {
                env.imbalance = 0;
                return;
            }
        }
        // The kernel's unsigned long arithmetic: a negative difference wraps, and min() then
        // takes the other term (v6.8's guards keep the local one from wrapping).
        let local_avg = sds.local_stat.avg_load;
        env.migration_type = MigrationType::Load;
        let from_busiest = busiest
            .avg_load
            .wrapping_sub(sds.avg_load)
            .wrapping_mul(busiest.group_capacity);
        let to_local = sds
            .avg_load
            .wrapping_sub(local_avg)
            .wrapping_mul(local.group_capacity);
        env.imbalance = (from_busiest.min(to_local) / SCHED_CAPACITY_SCALE) as i64;
    }

    /// The small NUMA imbalance a pair of communicating tasks may keep (see
    /// [`NumaImbalance`]): v5.6 ignores any imbalance while the busiest node runs at most 2 tasks;
    /// v5.18+ `adjust_numa_imbalance()` ignores one of up to `NUMA_IMBALANCE_MIN` (2) while the
    /// local node would run at most `imb_numa_nr` tasks.
    fn adjust_numa_imbalance(
        &self,
        imbalance: i64,
        local: &SgStats,
        busiest: &SgStats,
        dom: &crate::domains::SchedDomain,
    ) -> i64 {
        const NUMA_IMBALANCE_MIN: i64 = 2;
        match self.config.numa_imbalance {
            NumaImbalance::None => imbalance,
            NumaImbalance::LocalIdle if busiest.sum_nr_running <= 2 => 0,
            NumaImbalance::LocalIdle => imbalance,
            NumaImbalance::ImbNumaNr => {
                let dst_running = local.sum_nr_running + 1;
                if dst_running > dom.imb_numa_nr as usize || imbalance > NUMA_IMBALANCE_MIN {
                    imbalance
                } else {
                    0
                }
            }
        }
    }

    /// `find_busiest_group()` (v6.8). Returns the busiest group, with `env.imbalance` set.
    fn find_busiest_group(&mut self, env: &mut LbEnv) -> Option<usize> {
        let mut sds = self.update_sd_lb_stats(env);
        let busiest_group = sds.busiest?;
        let busiest = sds.busiest_stat;
        let local = sds.local_stat;
        let force = matches!(
            busiest.group_type,
            GroupType::MisfitTask | GroupType::AsymPacking | GroupType::Imbalanced
        );
        if !force {
            if local.group_type > busiest.group_type {
                return None;
            }
            if local.group_type == GroupType::Overloaded {
                if local.avg_load >= busiest.avg_load {
                    return None;
                }
                sds.avg_load = sds.total_load * SCHED_CAPACITY_SCALE / sds.total_capacity.max(1);
                if local.avg_load >= sds.avg_load {
                    return None;
                }
                let pct = self.sd.domains[env.sd].imbalance_pct as u64;
                if 100 * busiest.avg_load <= pct * local.avg_load {
                    return None;
                }
            }
            let sibling_force = sds.prefer_sibling
                && local.group_type == GroupType::HasSpare
                && self.sibling_imbalance(env, &sds) > 1;
            if !sibling_force && busiest.group_type != GroupType::Overloaded {
                if env.idle == CpuIdleType::NotIdle {
                    return None;
                }
                let dom = &self.sd.domains[env.sd];
                let smt_to_nonsmt = busiest.group_type == GroupType::SmtBalance
                    && (dom.groups[busiest_group].flags & SD_SHARE_CPUCAPACITY)
                        != (dom.groups[sds.local].flags & SD_SHARE_CPUCAPACITY);
                if !smt_to_nonsmt {
                    if busiest.group_weight > 1 && local.idle_cpus <= busiest.idle_cpus + 1 {
                        return None;
                    }
                    if busiest.sum_h_nr_running == 1 {
                        return None;
                    }
                }
            }
        }
        self.calculate_imbalance(env, &mut sds);
        (env.imbalance > 0).then_some(busiest_group)
    }

    /// `find_busiest_queue()` (v6.8; the v5.5-v6.4 migrate_util forms by switch).
    fn find_busiest_queue(&self, env: &LbEnv, group: usize) -> Option<usize> {
        let dom = &self.sd.domains[env.sd];
        let mut busiest = None;
        let (mut busiest_load, mut busiest_capacity, mut busiest_util, mut busiest_nr) =
            (0u64, 1u64, 0u64, 0usize);
        for i in dom.groups[group].span.and(&env.cpus).iter() {
            let nr = self.rqs[i].nr_running;
            if nr == 0 {
                continue;
            }
            let capacity = self.capacity_of(i);
            if dom.has(SD_ASYM_CPUCAPACITY)
                && !capacity_greater(self.capacity_of(env.dst_cpu), capacity)
                && nr == 1
            {
                continue;
            }
            if dom.has(SD_ASYM_PACKING)
                && self.sched_use_asym_prio(env.sd, i)
                && self.sd.sched_asym_prefer(i, env.dst_cpu)
                && nr == 1
            {
                continue;
            }
            match env.migration_type {
                MigrationType::Load => {
                    let load = self.cpu_load(i);
                    if nr == 1 && load as i64 > env.imbalance {
                        continue;
                    }
                    if load * busiest_capacity > busiest_load * capacity {
                        busiest_load = load;
                        busiest_capacity = capacity;
                        busiest = Some(i);
                    }
                }
                MigrationType::Util => {
                    // v6.5+ cpu_util_cfs_boost(): max(util_avg, runnable_avg), clamped to
                    // capacity; before, cpu_util() (util_avg with util_est, clamped).
                    let util = if self.config.fbq_util_boost {
                        self.rqs[i]
                            .avg
                            .util_avg
                            .max(self.rqs[i].avg.runnable_avg)
                            .min(capacity)
                    } else {
                        self.cpu_util(i)
                    };
                    // v5.7+: a lone task cannot be detached, so its CPU is no candidate.
                    if self.config.fbq_util_skip_single && nr <= 1 {
                        continue;
                    }
                    if busiest_util < util {
                        busiest_util = util;
                        busiest = Some(i);
                    }
                }
                MigrationType::Task => {
                    if busiest_nr < nr {
                        busiest_nr = nr;
                        busiest = Some(i);
                    }
                }
                MigrationType::Misfit => {
                    if self.rqs[i].misfit_task_load > busiest_load {
                        busiest_load = self.rqs[i].misfit_task_load;
                        busiest = Some(i);
                    }
                }
            }
        }
        busiest
    }

    /// `task_hot()`: ran on its CPU less than `sysctl_sched_migration_cost` ago. Never inside an
    /// SMT domain from v5.10 ([`KernelConfig::task_hot_smt_cold`]); a buddy of its cfs_rq is hot
    /// while the destination runs something (CACHE_HOT_BUDDY, on in every era: v4.9 fair.c:6183,
    /// v6.8 fair.c:8820, which reads only the next buddy as v6.6+ has no last one).
    ///
    /// [`KernelConfig::task_hot_smt_cold`]: crate::kernel::KernelConfig::task_hot_smt_cold
    pub(crate) fn task_hot(&self, env: &LbEnv, p: TaskId) -> bool {
        if self.config.task_hot_smt_cold && self.sd.domains[env.sd].has(SD_SHARE_CPUCAPACITY) {
            return false;
        }
        let src = &self.rqs[env.src_cpu];
        if self.rqs[env.dst_cpu].nr_running > 0 && (src.next == Some(p) || src.last == Some(p)) {
            return true;
        }
        if self.config.sched_migration_cost_ns == 0 {
            return false;
        }
        self.now.saturating_sub(self.tasks[p].exec_start) < self.config.sched_migration_cost_ns
    }

    /// `can_migrate_task()` (v6.8). A task that may not run on `dst_cpu` sets LBF_SOME_PINNED and,
    /// outside newly-idle and active balancing, remembers the first CPU of the local group it may
    /// run on (LBF_DST_PINNED), for `load_balance()` to retry with it.
    pub(super) fn can_migrate_task(&self, env: &mut LbEnv, p: TaskId) -> bool {
        let allowed = self.tasks[p].allowed;
        if !allowed.test(env.dst_cpu) {
            env.some_pinned = true;
            if env.idle == CpuIdleType::NewlyIdle || env.new_dst_cpu.is_some() || env.active_lb {
                return false;
            }
            let dom = &self.sd.domains[env.sd];
            let dst_grpmask = dom.groups[dom.local_group(env.balance_cpu)].span;
            env.new_dst_cpu = dst_grpmask.and(&env.cpus).and(&allowed).first();
            return false;
        }
        env.all_pinned = false;
        if self.rqs[env.src_cpu].curr == Some(p) {
            return false;
        }
        if env.active_lb {
            return true;
        }
        let cache_nice_tries = self.sd.domains[env.sd].cache_nice_tries;
        !self.task_hot(env, p) || self.nr_balance_failed(env) > cache_nice_tries
    }

    /// `detach_tasks()` + `attach_tasks()`: move tasks from the tail of the source's `cfs_tasks`
    /// until the imbalance is met. Returns how many moved.
    fn detach_tasks(&mut self, env: &mut LbEnv) -> usize {
        let src = env.src_cpu;
        if self.rqs[src].nr_running <= 1 {
            env.all_pinned = false;
            return 0;
        }
        if env.imbalance <= 0 {
            return 0;
        }
        let loop_max = self.rqs[src].nr_running.min(32);
        let failed = self.nr_balance_failed(env);
        let mut moved = 0;
        let mut seen = 0;
        // Walk a snapshot of the list from the tail, as list_last_entry + list_move to head do.
        let mut idx = self.rqs[src].cfs_tasks.len();
        while idx > 0 {
            if env.idle != CpuIdleType::NotIdle && self.rqs[src].nr_running <= 1 {
                break;
            }
            seen += 1;
            if seen > loop_max && !env.all_pinned {
                break;
            }
            idx -= 1;
            let p = self.rqs[src].cfs_tasks[idx];
            if !self.can_migrate_task(env, p) {
                continue;
            }
            match env.migration_type {
                MigrationType::Load => {
                    let load = self.tasks[p].avg.load_avg.max(1);
                    let too_big = if self.config.lb_load_shr {
                        // v5.10+: relaxed by one halving per failed balance.
                        shr_bound(load, failed) as i64 > env.imbalance
                    } else {
                        // v5.5-v5.9: half the load may exceed the imbalance until the domain
                        // failed more than cache_nice_tries times. (v5.6 reads task_h_load()
                        // without the max(.., 1) of v5.7+; the model's loads are never 0 here.)
                        (load / 2) as i64 > env.imbalance
                            && failed <= self.sd.domains[env.sd].cache_nice_tries
                    };
                    if too_big {
                        continue;
                    }
                    env.imbalance -= load as i64;
                }
                MigrationType::Util => {
                    let util = self.task_util_est(p);
                    // v6.8 (3af7524b1419) relaxes the test after failures; v6.7 and before skip
                    // any task bigger than the imbalance.
                    let tested = if self.config.lb_util_shr_bound {
                        shr_bound(util, failed)
                    } else {
                        util
                    };
                    if tested as i64 > env.imbalance {
                        continue;
                    }
                    env.imbalance -= util as i64;
                }
                MigrationType::Task => env.imbalance -= 1,
                MigrationType::Misfit => {
                    if fits_capacity(self.task_util_est(p), self.capacity_of(src)) {
                        continue;
                    }
                    env.imbalance = 0;
                }
            }
            self.move_task(p, src, env.dst_cpu);
            moved += 1;
            // CONFIG_PREEMPTION: one task per newly-idle pass.
            if self.config.preemption && env.idle == CpuIdleType::NewlyIdle {
                break;
            }
            if env.imbalance <= 0 {
                break;
            }
        }
        moved
    }

    /// `detach_task()` + `attach_task()` for a queued (not running) task. `detach_task()`'s
    /// `set_task_cpu()` is where the kernel fires `sched_migrate_task`: recorded for the trace.
    pub fn move_task(&mut self, p: TaskId, src: usize, dst: usize) {
        if let Some(moves) = &mut self.balance_moves {
            moves.push((p, src, dst));
        }
        self.dequeue_task(src, p, true);
        self.enqueue_task(dst, p, super::rq::Enqueue::Migrated);
        self.check_preempt_wakeup(dst, p);
    }

    /// `voluntary_active_balance()` (v5.5-v5.12): the part of `need_active_balance()` that does
    /// not depend on failures. (Its reduced-capacity case needs rt/irq pressure, which the model
    /// does not have.)
    fn voluntary_active_balance(&self, env: &LbEnv) -> bool {
        let dom = &self.sd.domains[env.sd];
        (env.idle != CpuIdleType::NotIdle
            && dom.has(SD_ASYM_PACKING)
            && self.sched_use_asym_prio(env.sd, env.dst_cpu)
            && (self.sd.sched_asym_prefer(env.dst_cpu, env.src_cpu)
                || !self.sched_use_asym_prio(env.sd, env.src_cpu)))
            || env.migration_type == MigrationType::Misfit
    }

    /// `need_active_balance()`: v6.8, or with `lb_imbalanced_active_balance` off the v5.5-v5.12
    /// form (any migration type after `cache_nice_tries + 2` failures).
    fn need_active_balance(&self, env: &LbEnv) -> bool {
        if !self.config.lb_imbalanced_active_balance {
            return self.voluntary_active_balance(env)
                || self.nr_balance_failed(env) > self.sd.domains[env.sd].cache_nice_tries + 2;
        }
        let dom = &self.sd.domains[env.sd];
        // asym_active_balance()
        if env.idle != CpuIdleType::NotIdle
            && dom.has(SD_ASYM_PACKING)
            && self.sched_use_asym_prio(env.sd, env.dst_cpu)
            && (self.sd.sched_asym_prefer(env.dst_cpu, env.src_cpu)
                || !self.sched_use_asym_prio(env.sd, env.src_cpu))
        {
            return true;
        }
        // imbalanced_active_balance()
        if env.migration_type == MigrationType::Task
            && self.nr_balance_failed(env) > dom.cache_nice_tries + 2
        {
            return true;
        }
        env.migration_type == MigrationType::Misfit
    }

    /// `should_we_balance()`: one CPU per group balances a level: the first idle one (v6.6+: on an
    /// idle core first), else the group's first CPU.
    fn should_we_balance(&self, env: &LbEnv) -> bool {
        if env.idle == CpuIdleType::NewlyIdle {
            return self.rqs[env.dst_cpu].nr_running == 0;
        }
        let dom = &self.sd.domains[env.sd];
        let span = dom.groups[dom.local_group(env.dst_cpu)].span.and(&env.cpus);
        let mut idle_smt = None;
        for cpu in span.iter() {
            if !self.idle_cpu(cpu) {
                continue;
            }
            if self.config.should_we_balance_idle_core
                && !dom.has(SD_SHARE_CPUCAPACITY)
                && !self.is_core_idle(cpu)
            {
                idle_smt.get_or_insert(cpu);
                continue;
            }
            return cpu == env.dst_cpu;
        }
        if let Some(c) = idle_smt {
            return c == env.dst_cpu;
        }
        span.first() == Some(env.dst_cpu)
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

    fn load_balance_pass(
        &mut self,
        this_cpu: usize,
        level: usize,
        idle: CpuIdleType,
    ) -> (BalanceOutcome, BalanceResult, LbEnv) {
        let sd = self.sd.per_cpu[this_cpu][level];
        self.counters.load_balance_calls += 1;
        let mut env = self.lb_env(this_cpu, level, idle);
        let mut out = BalanceOutcome::default();
        let mut result = BalanceResult::Balanced;
        loop {
            if !self.should_we_balance(&env) {
                result = BalanceResult::NotThisCpu;
                break;
            }
            let Some(group) = self.find_busiest_group(&mut env) else {
                break;
            };
            env.busiest_group = Some(group);
            env.imbalance_found = env.imbalance;
            let Some(busiest) = self.find_busiest_queue(&env, group) else {
                result = BalanceResult::NoBusiestQueue;
                break;
            };
            env.src_cpu = busiest;
            env.all_pinned = true;
            if self.rqs[busiest].nr_running > 1 {
                out.moved += self.detach_tasks(&mut env);
                // LBF_DST_PINNED: retry the same busiest CPU with the other CPU of our group its
                // pinned tasks may run on ("goto more_balance").
                while let Some(new_dst) = env.new_dst_cpu.take() {
                    if env.imbalance <= 0 {
                        break;
                    }
                    env.cpus.clear(env.dst_cpu);
                    env.dst_cpu = new_dst;
                    out.moved += self.detach_tasks(&mut env);
                }
                // Affinity kept us from reaching balance: flag our group at the parent level so
                // the parent's balance treats it as group_imbalanced.
                if env.some_pinned && env.imbalance > 0 {
                    self.set_parent_group_imbalance(this_cpu, level, true);
                }
                if env.all_pinned {
                    env.cpus.clear(busiest);
                    if !env.cpus.is_subset_of(
                        &self.sd.domains[sd].groups[self.sd.domains[sd].local_group(this_cpu)].span,
                    ) {
                        continue;
                    }
                    // out_all_pinned
                    self.sd_state_mut(this_cpu, level).nr_balance_failed = 0;
                    self.tune_up_interval(this_cpu, level, idle, true);
                    return (out, BalanceResult::AllPinned, env);
                }
            }
            let mut active_started = false;
            if out.moved == 0 {
                if idle != CpuIdleType::NewlyIdle {
                    self.sd_state_mut(this_cpu, level).nr_balance_failed += 1;
                }
                if self.need_active_balance(&env) {
                    let curr_allowed = self.rqs[busiest]
                        .curr
                        .is_some_and(|c| self.tasks[c].allowed.test(this_cpu));
                    if !curr_allowed {
                        self.tune_up_interval(this_cpu, level, idle, true);
                        return (out, BalanceResult::AllPinned, env);
                    }
                    if !self.rqs[busiest].active_balance {
                        self.rqs[busiest].active_balance = true;
                        self.pending_active.push((busiest, this_cpu));
                        active_started = true;
                        out.active = true;
                    }
                    if !self.config.lb_imbalanced_active_balance {
                        // v5.5-v5.12: "We've kicked active balancing, force task migration."
                        let tries = self.sd.domains[sd].cache_nice_tries;
                        self.sd_state_mut(this_cpu, level).nr_balance_failed = tries + 1;
                    }
                }
            } else {
                self.counters.load_balance_moved += out.moved as u64;
                self.sd_state_mut(this_cpu, level).nr_balance_failed = 0;
            }
            if self.config.lb_imbalanced_active_balance {
                if !active_started || self.need_active_balance(&env) {
                    let min = self.sd.domains[sd].min_interval;
                    self.sd_state_mut(this_cpu, level).balance_interval = min;
                }
            } else if !active_started || self.voluntary_active_balance(&env) {
                let min = self.sd.domains[sd].min_interval;
                self.sd_state_mut(this_cpu, level).balance_interval = min;
            } else {
                // v5.5-v5.12: a non-voluntary kick starts to back off.
                let max = self.sd.domains[sd].max_interval;
                let st = self.sd_state_mut(this_cpu, level);
                if st.balance_interval < max {
                    st.balance_interval *= 2;
                }
            }
            let result = out.result();
            return (out, result, env);
        }
        // out_balanced: clear the flag if other tasks got a chance to move and fix the imbalance.
        if !env.all_pinned {
            self.set_parent_group_imbalance(this_cpu, level, false);
        }
        self.sd_state_mut(this_cpu, level).nr_balance_failed = 0;
        self.tune_up_interval(this_cpu, level, idle, env.all_pinned);
        (out, result, env)
    }

    /// `sd_parent->groups->sgc->imbalance`: the flag of `cpu`'s group in the level above `level`.
    pub(super) fn set_parent_group_imbalance(&mut self, cpu: usize, level: usize, on: bool) {
        if let Some(&parent) = self.sd.per_cpu[cpu].get(level + 1) {
            let g = self.sd.domains[parent].local_group(cpu);
            self.group_imbalance[parent][g] = on;
        }
    }

    /// `out_one_pinned`: back off the balance interval when balanced or pinned.
    pub(super) fn tune_up_interval(
        &mut self,
        cpu: usize,
        level: usize,
        idle: CpuIdleType,
        all_pinned: bool,
    ) {
        if idle == CpuIdleType::NewlyIdle {
            return;
        }
        let max = self.sd.domains[self.sd.per_cpu[cpu][level]].max_interval;
        let st = self.sd_state_mut(cpu, level);
        // MAX_PINNED_INTERVAL = 512 ms.
        if (all_pinned && st.balance_interval < 512) || st.balance_interval < max {
            st.balance_interval *= 2;
        }
    }

    /// `get_sd_balance_interval()` in jiffies.
    fn get_sd_balance_interval(&self, cpu: usize, level: usize, busy: bool) -> u64 {
        let d = &self.sd.domains[self.sd.per_cpu[cpu][level]];
        let mut interval = self.sd_state(cpu, level).balance_interval;
        if busy {
            interval *= d.busy_factor as u64;
        }
        let mut j = self.msecs_to_jiffies(interval);
        if busy {
            j = j.saturating_sub(1);
        }
        let max_lb = (self.config.hz as u64 * self.nr_cpus() as u64 / 10).max(1);
        j.clamp(1, max_lb)
    }

    /// `rebalance_domains()`: balance each level whose interval has passed, bottom up.
    pub fn rebalance_domains(&mut self, cpu: usize, mut idle: CpuIdleType) {
        let jiffies = self.jiffies();
        let mut next_balance = jiffies + 60 * self.config.hz as u64;
        // update_blocked_averages(cpu): busy CPUs age their own signals at each tick.
        self.update_blocked_averages(cpu);
        let mut need_decay = false;
        let mut max_cost = 0u64;
        for level in 0..self.sd.per_cpu[cpu].len() {
            // "Decay the newidle max times here because this is a regular visit to all the
            // domains": v5.16+ `update_newidle_cost(sd, 0)` (need_decay is the last level's
            // answer); v3.x-v5.15 the same decay on `next_decay_max_lb_cost`, need_decay sticky.
            let decayed = self.decay_max_newidle_lb_cost(cpu, level, jiffies);
            need_decay = if self.config.update_newidle_cost {
                decayed
            } else {
                need_decay || decayed
            };
            max_cost += self.sd_state(cpu, level).max_newidle_lb_cost;
            let mut busy = idle != CpuIdleType::Idle;
            let mut interval = self.get_sd_balance_interval(cpu, level, busy);
            if jiffies >= self.sd_state(cpu, level).last_balance + interval {
                let out = self.load_balance(cpu, level, idle);
                if out.moved > 0 {
                    idle = if self.idle_cpu(cpu) {
                        CpuIdleType::Idle
                    } else {
                        CpuIdleType::NotIdle
                    };
                    busy = idle != CpuIdleType::Idle;
                }
                self.sd_state_mut(cpu, level).last_balance = jiffies;
                interval = self.get_sd_balance_interval(cpu, level, busy);
            }
            next_balance = next_balance.min(self.sd_state(cpu, level).last_balance + interval);
        }
        if need_decay {
            // "keep it at a reasonable floor to avoid funnies with rq->avg_idle"
            self.rqs[cpu].max_idle_balance_cost = max_cost.max(self.config.sched_migration_cost_ns);
        }
        self.rqs[cpu].next_balance = next_balance;
    }

    /// The ~1%-per-second decay of `sd->max_newidle_lb_cost`: x253/256 when more than HZ
    /// jiffies passed since the last one. Returns whether it decayed.
    fn decay_max_newidle_lb_cost(&mut self, cpu: usize, level: usize, jiffies: u64) -> bool {
        let hz = self.config.hz as u64;
        let st = self.sd_state_mut(cpu, level);
        if jiffies > st.last_decay_max_lb_cost + hz {
            st.max_newidle_lb_cost = st.max_newidle_lb_cost * 253 / 256;
            st.last_decay_max_lb_cost = jiffies;
            true
        } else {
            false
        }
    }

    /// A newly-idle pass at `level` cost `cost` ns: v5.16+ `update_newidle_cost(sd, cost)` (a
    /// new maximum restarts the decay timer, else the decay may run); v3.x-v5.15 only raise the
    /// maximum.
    fn update_newidle_cost(&mut self, cpu: usize, level: usize, cost: u64) {
        let jiffies = self.jiffies();
        let v5_16 = self.config.update_newidle_cost;
        let st = self.sd_state_mut(cpu, level);
        if cost > st.max_newidle_lb_cost {
            st.max_newidle_lb_cost = cost;
            if v5_16 {
                st.last_decay_max_lb_cost = jiffies;
            }
        } else if v5_16 {
            self.decay_max_newidle_lb_cost(cpu, level, jiffies);
        }
    }

    /// **[assumed]** What one newly-idle `load_balance()` at the domain costs, ns, as
    /// `sched_clock_cpu()` would measure it: `newidle_lb_cost_base_ns +
    /// newidle_lb_cost_per_cpu_ns * span_weight` (see the config fields for the reasons). The
    /// v5.16+ cost of the first level also includes `update_blocked_averages()`, which without
    /// task groups updates one cfs_rq and is left out.
    pub fn newidle_lb_cost(&self, d: usize) -> u64 {
        self.config.newidle_lb_cost_base_ns
            + self.config.newidle_lb_cost_per_cpu_ns * self.sd.domains[d].span_weight as u64
    }

    /// Logs that `newidle_balance()` stopped before `level`, when the run is traced.
    fn log_newidle_skip(&mut self, cpu: usize, level: usize, skip: NewidleSkip) {
        if self.log.is_none() {
            return;
        }
        let d = self.sd.per_cpu[cpu][level];
        let decision = Decision::Balance(BalanceDecision {
            t: self.now,
            cpu,
            level: self.sd.domains[d].level,
            idle: CpuIdleType::NewlyIdle,
            groups: Vec::new(),
            busiest: None,
            migration_type: None,
            imbalance: 0,
            src_cpu: None,
            moved: 0,
            nr_balance_failed: self.sd_state(cpu, level).nr_balance_failed,
            result: BalanceResult::NewidleSkipped,
            newidle_skip: Some(skip),
            legacy: None,
        });
        if let Some(log) = &mut self.log {
            log.push(decision);
        }
    }

    /// `newidle_balance()` (v4.9 `idle_balance()`, same rules): a CPU about to go idle stamps
    /// `rq->idle_stamp` and tries to pull, bottom up, while the root domain is overloaded and
    /// its expected idle time (`rq->avg_idle`) pays for the balancing: the era's gate
    /// ([`NewidleGate`]), then at each level `avg_idle >= curr_cost + sd->max_newidle_lb_cost`.
    /// Each level's cost ([`World::newidle_lb_cost`]) raises `sd->max_newidle_lb_cost`, the pass's
    /// total `rq->max_idle_balance_cost`. Returns whether it pulled.
    pub fn newidle_balance(&mut self, cpu: usize) -> bool {
        self.rqs[cpu].idle_stamp = self.now;
        // Whatever happens, the CPU's next periodic balance comes forward to when its domains
        // are due at their idle interval (`next_balance = jiffies + HZ`, `update_next_balance()`
        // of each domain looked at, then `rq->next_balance` moved forward at `out:`; v4.9-v6.8).
        let mut next_balance = self.jiffies() + self.config.hz as u64;
        let pulled = self.newidle_balance_domains(cpu, &mut next_balance);
        if next_balance < self.rqs[cpu].next_balance {
            self.rqs[cpu].next_balance = next_balance;
        }
        pulled
    }

    /// `update_next_balance()`: the domain at `level` is due `get_sd_balance_interval(sd, 0)`
    /// after its last balance; keep the earliest.
    fn update_next_balance(&self, cpu: usize, level: usize, next_balance: &mut u64) {
        let next = self.sd_state(cpu, level).last_balance
            + self.get_sd_balance_interval(cpu, level, false);
        *next_balance = (*next_balance).min(next);
    }

    /// The body of [`World::newidle_balance`]: the gates, then each domain bottom up.
    fn newidle_balance_domains(&mut self, cpu: usize, next_balance: &mut u64) -> bool {
        if self.sd.per_cpu[cpu].is_empty() {
            self.nohz_newidle_balance(cpu);
            return false;
        }
        if !self.rd_overload {
            self.update_next_balance(cpu, 0, next_balance);
            self.nohz_newidle_balance(cpu);
            return false;
        }
        let avg_idle = self.rqs[cpu].avg_idle;
        let skip = match self.config.newidle_gate {
            NewidleGate::MigrationCost => (avg_idle < self.config.sched_migration_cost_ns)
                .then_some(NewidleSkip::MigrationCost {
                    avg_idle,
                    migration_cost: self.config.sched_migration_cost_ns,
                }),
            NewidleGate::MaxNewidleLbCost => {
                let max = self.sd_state(cpu, 0).max_newidle_lb_cost;
                (avg_idle < max).then_some(NewidleSkip::MaxNewidleLbCost {
                    avg_idle,
                    max_newidle_lb_cost: max,
                })
            }
        };
        if let Some(skip) = skip {
            self.log_newidle_skip(cpu, 0, skip);
            self.update_next_balance(cpu, 0, next_balance);
            self.nohz_newidle_balance(cpu);
            return false;
        }
        self.update_blocked_averages(cpu);
        let mut curr_cost = 0u64;
        for level in 0..self.sd.per_cpu[cpu].len() {
            let max = self.sd_state(cpu, level).max_newidle_lb_cost;
            if avg_idle < curr_cost + max {
                self.log_newidle_skip(
                    cpu,
                    level,
                    NewidleSkip::DomainCost {
                        avg_idle,
                        curr_cost,
                        max_newidle_lb_cost: max,
                    },
                );
                self.update_next_balance(cpu, level, next_balance);
                break;
            }
            let d = self.sd.per_cpu[cpu][level];
            let mut pulled = false;
            if self.sd.domains[d].has(SD_BALANCE_NEWIDLE) {
                pulled = self.load_balance(cpu, level, CpuIdleType::NewlyIdle).moved > 0;
                let cost = self.newidle_lb_cost(d);
                self.update_newidle_cost(cpu, level, cost);
                curr_cost += cost;
            }
            self.update_next_balance(cpu, level, next_balance);
            if pulled || self.rqs[cpu].nr_running > 0 {
                break;
            }
        }
        if curr_cost > self.rqs[cpu].max_idle_balance_cost {
            self.rqs[cpu].max_idle_balance_cost = curr_cost;
        }
        let pulled = self.rqs[cpu].nr_running > 0;
        if pulled {
            self.rqs[cpu].idle_stamp = 0;
        } else if self.config.nohz_stats == NohzStats::NewilbKick {
            // v5.13+: any newly-idle balance that pulled nothing.
            self.nohz_newidle_balance(cpu);
        }
        pulled
    }

    /// `update_blocked_averages()` of `cpu`: age its signals to now; `rq->has_blocked_load` stays
    /// set while its load or utilization has not decayed to 0 (`cfs_rq_has_blocked()`).
    pub fn update_blocked_averages(&mut self, cpu: usize) {
        self.update_load_avg(cpu, None);
        let jiffies = self.jiffies();
        let rq = &mut self.rqs[cpu];
        rq.last_blocked_load_update_tick = jiffies;
        rq.has_blocked_load = rq.avg.load_avg != 0 || rq.avg.util_avg != 0;
    }

    /// `update_nohz_stats()`: age an idle CPU's blocked load if it has some and was not updated
    /// this jiffy (v4.17-v5.12 with `force`: whatever the jiffy). Returns whether blocked load
    /// remains.
    fn update_nohz_stats(&mut self, cpu: usize, force: bool) -> bool {
        if !self.rqs[cpu].has_blocked_load || !self.idle_cpu(cpu) {
            return false;
        }
        if !force && self.jiffies() <= self.rqs[cpu].last_blocked_load_update_tick {
            return true;
        }
        self.update_blocked_averages(cpu);
        self.rqs[cpu].has_blocked_load
    }

    /// `nohz_balance_enter_idle()`: `cpu` went tickless idle with load still to decay.
    pub fn nohz_balance_enter_idle(&mut self, cpu: usize) {
        self.rqs[cpu].has_blocked_load = true;
        self.nohz_has_blocked = true;
    }

    /// `nohz_newidle_balance()` (v4.17+): a CPU about to idle long enough (`avg_idle >=
    /// sysctl_sched_migration_cost`) updates the blocked load of the other idle CPUs when it is
    /// due, instead of waking one (v4.17-v5.12 in place; v5.13+ through `NOHZ_NEWILB_KICK` on
    /// entering idle, the same instant in the model). Simplification: v5.13+ may also update the
    /// CPU itself when it is still in `nohz.idle_cpus_mask`; the model never does.
    fn nohz_newidle_balance(&mut self, cpu: usize) {
        if self.config.nohz_stats == NohzStats::None
            || self.rqs[cpu].avg_idle < self.config.sched_migration_cost_ns
            || !self.nohz_has_blocked
            || self.jiffies() < self.nohz_next_blocked
        {
            return;
        }
        self.nohz_idle_stats_and_balance(cpu, false, Some(cpu));
    }

    /// `LBF_NOHZ_STATS` (v4.17-v5.12): a newly-idle balance updates the blocked load of the idle
    /// CPUs of the domain before reading them; when that covered every idle CPU, the periodic
    /// update can wait another 32 ms.
    fn lbf_nohz_stats(&mut self, env: &LbEnv) {
        if self.config.nohz_stats != NohzStats::Kick
            || env.idle != CpuIdleType::NewlyIdle
            || !self.nohz_has_blocked
        {
            return;
        }
        let span = self.sd.domains[env.sd].span.and(&env.cpus);
        let mut again = false;
        for i in span.iter() {
            again |= self.update_nohz_stats(i, false);
        }
        if again && self.idle_mask.is_subset_of(&self.sd.domains[env.sd].span) {
            self.nohz_next_blocked = self.jiffies() + self.msecs_to_jiffies(LOAD_AVG_PERIOD_MS);
        }
    }

    /// `update_misfit_status()` (v4.20+): the running task does not fit its CPU.
    pub fn update_misfit_status(&mut self, cpu: usize) {
        if !self.config.misfit || self.sd.sd_asym_cpucapacity[cpu].is_none() {
            return;
        }
        let load = match self.rqs[cpu].curr {
            Some(p)
                if self.tasks[p].allowed.weight() > 1
                    && !fits_capacity(self.task_util_est(p), self.capacity_of(cpu)) =>
            {
                self.tasks[p].avg.load_avg.max(1)
            }
            _ => 0,
        };
        self.rqs[cpu].misfit_task_load = load;
    }

    /// `nohz_balancer_kick()` (v5.1+, v6.8 form; v4.x's is `nohz_kick_needed()`): should a busy
    /// CPU's tick wake an idle CPU to balance for all idle CPUs, or (v4.17+, [`NohzStats`]) only to
    /// update their blocked load once `nohz.next_blocked` passed? Returns the CPU to send the IPI
    /// to (`find_new_ilb()`: the first idle CPU), with the kick's flags left in
    /// [`World::nohz_kick_flags`].
    pub fn nohz_balancer_kick(&mut self, cpu: usize) -> Option<usize> {
        if self.config.nohz_kick == NohzKick::KickNeeded {
            return self.nohz_kick_needed(cpu);
        }
        let idle_mask = self.idle_mask;
        if idle_mask.is_empty() {
            return None;
        }
        let jiffies = self.jiffies();
        let stats_on = self.config.nohz_stats != NohzStats::None;
        let stats = stats_on && self.nohz_has_blocked && jiffies > self.nohz_next_blocked;
        let balance = jiffies >= self.nohz_next_balance
            && (self.rqs[cpu].nr_running >= 2
                || self.sd.sd_asym_packing[cpu].is_some_and(|sd| {
                    let span = self.sd.domains[sd].span.and(&idle_mask);
                    span.iter().any(|i| {
                        self.sched_use_asym_prio(sd, i) && self.sd.sched_asym_prefer(i, cpu)
                    })
                })
                || match self.sd.sd_asym_cpucapacity[cpu] {
                    // check_misfit_status(); the LLC test is skipped on asymmetric systems.
                    Some(_) => {
                        self.rqs[cpu].misfit_task_load > 0
                            && self.capacity_of(cpu) < self.sd.max_cpu_capacity
                    }
                    None => self.sd.sd_llc[cpu].is_some_and(|llc| {
                        let span = self.sd.domains[llc].span;
                        span.iter().filter(|&c| !self.idle_cpu(c)).count() > 1
                    }),
                });
        let flags = if balance {
            NOHZ_BALANCE_KICK | if stats_on { NOHZ_STATS_KICK } else { 0 }
        } else if stats {
            NOHZ_STATS_KICK
        } else {
            return None;
        };
        // kick_ilb(): a full kick pushes nohz.next_balance out by a jiffy until the ILB sets it.
        if balance {
            self.nohz_next_balance = jiffies + 1;
            self.counters.nohz_kicks += 1;
        }
        let ilb = idle_mask.first()?;
        let pending = self.nohz_kick_flags[ilb];
        self.nohz_kick_flags[ilb] |= flags;
        // An IPI already on its way carries the new flags too.
        (pending == 0).then_some(ilb)
    }

    /// The nohz idle-balance IPI reached `ilb` (`nohz_idle_balance()`): handle the kick's flags.
    pub fn nohz_idle_balance(&mut self, ilb: usize) {
        let flags = std::mem::take(&mut self.nohz_kick_flags[ilb]);
        if flags == 0 || !self.idle_cpu(ilb) {
            return;
        }
        if self.config.nohz_stats == NohzStats::None {
            self.nohz_idle_stats_and_balance(ilb, true, None);
        } else {
            let balance = flags & NOHZ_BALANCE_KICK != 0;
            self.nohz_idle_stats_and_balance(ilb, balance, None);
        }
    }

    /// `_nohz_idle_balance()`: on `ilb`, visit every idle CPU (but `skip`) from `ilb + 1` on:
    /// age its blocked load and, for a full kick, balance it if its `next_balance` is due.
    /// Before v4.17 every kick is a full one and ages every idle CPU; since, the blocked-load
    /// update is `update_nohz_stats()` and resets `nohz.next_blocked`.
    fn nohz_idle_stats_and_balance(&mut self, ilb: usize, balance: bool, skip: Option<usize>) {
        let stats_on = self.config.nohz_stats != NohzStats::None;
        let force = self.config.nohz_stats == NohzStats::Kick;
        if stats_on {
            self.nohz_has_blocked = false;
        }
        let mut has_blocked = false;
        let mut next = u64::MAX;
        let mask = self.idle_mask;
        for cpu in mask.iter_wrap(ilb + 1) {
            if Some(cpu) == skip || !self.idle_cpu(cpu) {
                continue;
            }
            if stats_on {
                has_blocked |= self.update_nohz_stats(cpu, force);
            } else {
                self.update_blocked_averages(cpu);
            }
            if balance && self.jiffies() >= self.rqs[cpu].next_balance {
                self.rebalance_domains(cpu, CpuIdleType::Idle);
            }
            next = next.min(self.rqs[cpu].next_balance);
        }
        if next != u64::MAX {
            self.nohz_next_balance = next;
        }
        if stats_on {
            self.nohz_next_blocked = self.jiffies() + self.msecs_to_jiffies(LOAD_AVG_PERIOD_MS);
        }
        if has_blocked {
            self.nohz_has_blocked = true;
        }
    }
}

/// `NOHZ_BALANCE_KICK` and `NOHZ_STATS_KICK` bits of `nohz_flags()`.
pub const NOHZ_BALANCE_KICK: u8 = 1;
pub const NOHZ_STATS_KICK: u8 = 2;
/// `LOAD_AVG_PERIOD` (32) as ms: how often the blocked load of idle CPUs is updated.
const LOAD_AVG_PERIOD_MS: u64 = 32;

/// `shr_bound()`: shift right, bounded to the type's width.
pub fn shr_bound(val: u64, shift: u32) -> u64 {
    val >> shift.min(63)
}
