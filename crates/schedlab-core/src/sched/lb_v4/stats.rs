//! The statistics of the pre-v5.5 `find_busiest_group()`: `update_sg_lb_stats()`,
//! `group_classify()`, `update_sd_pick_busiest()` and `update_sd_lb_stats()` (v4.9-v5.4).

use super::super::balance::{CpuIdleType, GroupType, LbEnv};
use super::super::log::GroupLog;
use super::super::World;
use crate::domains::flags::*;
use crate::domains::{SchedDomain, SchedGroup};
use crate::units::SCHED_CAPACITY_SCALE;

/// `struct sg_lb_stats` before v5.5.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SgLbStats {
    /// `group_load * SCHED_CAPACITY_SCALE / group_capacity`, for every group.
    pub avg_load: u64,
    pub group_load: u64,
    /// `sum_weighted_load / sum_nr_running`.
    pub load_per_task: u64,
    pub group_capacity: u64,
    pub group_util: u64,
    pub sum_nr_running: usize,
    pub idle_cpus: usize,
    pub group_weight: usize,
    pub group_type: GroupType,
    /// `group_no_capacity`: `group_is_overloaded()`, or forced by prefer_sibling.
    pub group_no_capacity: bool,
    /// v4.20+ (with [`crate::kernel::KernelConfig::misfit`]).
    pub group_misfit_task_load: u64,
}

impl SgLbStats {
    /// `init_sd_lb_stats()`'s busiest_stat: `group_type = group_other`, all else 0.
    pub fn none() -> SgLbStats {
        SgLbStats {
            group_type: GroupType::Other,
            ..SgLbStats::default()
        }
    }
}

/// `struct sd_lb_stats` before v5.5.
#[derive(Clone, Copy, Debug)]
pub struct SdLbStats {
    pub busiest: Option<usize>,
    pub local: usize,
    pub total_load: u64,
    pub total_capacity: u64,
    pub avg_load: u64,
    pub busiest_stat: SgLbStats,
    pub local_stat: SgLbStats,
}

/// `group_has_capacity()` (v4.x: no runnable test).
pub fn group_has_capacity(imbalance_pct: u64, sgs: &SgLbStats) -> bool {
    sgs.sum_nr_running < sgs.group_weight
        || sgs.group_capacity * 100 > sgs.group_util * imbalance_pct
}

/// `group_is_overloaded()` (v4.x: utilization only).
pub fn group_is_overloaded(imbalance_pct: u64, sgs: &SgLbStats) -> bool {
    sgs.sum_nr_running > sgs.group_weight
        && sgs.group_capacity * 100 < sgs.group_util * imbalance_pct
}

/// `group_classify()` before v5.5: overloaded, then `sg_imbalanced()`, then (v4.20+) misfit.
pub fn group_classify(group_imbalanced: bool, sgs: &SgLbStats) -> GroupType {
    if sgs.group_no_capacity {
        GroupType::Overloaded
    } else if group_imbalanced {
        GroupType::Imbalanced
    } else if sgs.group_misfit_task_load != 0 {
        GroupType::MisfitTask
    } else {
        GroupType::Other
    }
}

/// `fits_capacity()` / `capacity_margin` (1280): `cap` fits in 80% of `max`.
fn smaller_capacity(cap: u64, max: u64) -> bool {
    cap * 1280 < max * 1024
}

impl World {
    /// `update_sg_lb_stats()` (v4.9-v5.4). Returns whether a CPU runs more than one task.
    ///
    /// Simplification: a CPU's load is `weighted_cpuload()` (the runnable load, `load_idx` 0) for
    /// every idle type; the kernel reads `source_load()`/`target_load()` with the domain's
    /// `busy_idx` (2 at MC and DIE) on busy balances and `idle_idx` 1 at DIE, which bias towards
    /// the decayed `rq->cpu_load[]` history (LB_BIAS, off from v4.20). Idle and newly-idle passes
    /// at SMT and MC use index 0 as modelled.
    pub(super) fn update_sg_lb_stats_v4(
        &self,
        env: &LbEnv,
        dom: &SchedDomain,
        g: &SchedGroup,
        group_imbalanced: bool,
        sgs: &mut SgLbStats,
    ) -> bool {
        let mut overload = false;
        let mut sum_weighted_load = 0;
        // The sums are kept in locals and stored once, not through `sgs` for every CPU.
        let (mut load, mut util, mut nr_running, mut idle_cpus) = (0, 0, 0, 0);
        let mut misfit_task_load = sgs.group_misfit_task_load;
        let misfit = dom.has(SD_ASYM_CPUCAPACITY);
        for i in g.span.iter_and(&env.cpus, self.nr_cpus()) {
            let cpu_load = self.cpu_runnable_load(i);
            load += cpu_load;
            util += self.cpu_util(i);
            let nr = self.rqs[i].nr_running;
            nr_running += nr;
            if nr > 1 {
                overload = true;
            }
            sum_weighted_load += cpu_load;
            if nr == 0 && self.idle_cpu(i) {
                idle_cpus += 1;
            }
            // v4.20 (misfit_task_load is 0 without the misfit switch).
            if misfit && misfit_task_load < self.rqs[i].misfit_task_load {
                misfit_task_load = self.rqs[i].misfit_task_load;
            }
        }
        sgs.group_load += load;
        sgs.group_util += util;
        sgs.sum_nr_running += nr_running;
        sgs.idle_cpus += idle_cpus;
        sgs.group_misfit_task_load = misfit_task_load;
        sgs.group_capacity = g.capacity.max(1);
        sgs.avg_load = sgs.group_load * SCHED_CAPACITY_SCALE / sgs.group_capacity;
        if sgs.sum_nr_running > 0 {
            sgs.load_per_task = sum_weighted_load / sgs.sum_nr_running as u64;
        }
        sgs.group_weight = g.weight;
        sgs.group_no_capacity = group_is_overloaded(dom.imbalance_pct as u64, sgs);
        sgs.group_type = group_classify(group_imbalanced, sgs);
        overload
    }

    /// `update_sd_pick_busiest()` (v4.9-v5.4): the highest group type, then the highest avg_load;
    /// under SD_ASYM_CPUCAPACITY not a group of bigger CPUs with a task or less each (v4.10+) and
    /// (v4.20+) the biggest misfit; under SD_ASYM_PACKING, seen from an idle CPU, only groups of
    /// lower priority than dst, the lowest first.
    pub(super) fn update_sd_pick_busiest_v4(
        &self,
        env: &LbEnv,
        dom: &SchedDomain,
        sds: &SdLbStats,
        sg: &SchedGroup,
        sgs: &SgLbStats,
    ) -> bool {
        let local = &dom.groups[sds.local];
        let busiest = &sds.busiest_stat;
        // v4.20: don't pull misfit tasks we can't help.
        if sgs.group_type == GroupType::MisfitTask
            && (!smaller_capacity(sg.max_capacity, local.max_capacity)
                || !group_has_capacity(dom.imbalance_pct as u64, &sds.local_stat))
        {
            return false;
        }
        if sgs.group_type > busiest.group_type {
            return true;
        }
        if sgs.group_type < busiest.group_type {
            return false;
        }
        if sgs.avg_load <= busiest.avg_load {
            return false;
        }
        if dom.has(SD_ASYM_CPUCAPACITY) {
            // group_smaller_cpu_capacity(sds->local, sg)
            if self.config.lb_legacy.pick_busiest_capacity_guard
                && sgs.sum_nr_running <= sgs.group_weight
                && smaller_capacity(local.min_capacity, sg.min_capacity)
            {
                return false;
            }
            if sgs.group_type == GroupType::MisfitTask
                && sgs.group_misfit_task_load < busiest.group_misfit_task_load
            {
                return false;
            }
        }
        // asym_packing:
        if !dom.has(SD_ASYM_PACKING) || env.idle == CpuIdleType::NotIdle {
            return true;
        }
        if sgs.sum_nr_running > 0 && self.sd.sched_asym_prefer(env.dst_cpu, sg.asym_prefer_cpu) {
            let Some(b) = sds.busiest else {
                return true;
            };
            if self
                .sd
                .sched_asym_prefer(dom.groups[b].asym_prefer_cpu, sg.asym_prefer_cpu)
            {
                return true;
            }
        }
        false
    }

    /// `update_sd_lb_stats()` (v4.9-v5.4), with the prefer_sibling capacity rule of each version.
    pub(super) fn update_sd_lb_stats_v4(&mut self, env: &LbEnv) -> SdLbStats {
        let d = env.sd;
        let local_group = self.sd.domains[d].local_group(env.dst_cpu);
        let mut sds = SdLbStats {
            busiest: None,
            local: local_group,
            total_load: 0,
            total_capacity: 0,
            avg_load: 0,
            busiest_stat: SgLbStats::none(),
            local_stat: SgLbStats::none(),
        };
        let prefer_sibling = env.level > 0
            && self.sd.domains[self.sd.per_cpu[env.dst_cpu][env.level - 1]].has(SD_PREFER_SIBLING);
        let logging = self.log.is_some();
        if logging {
            // A redo logs the groups it saw last.
            self.lb_groups.clear();
            self.lb_legacy = None;
        }
        // The domain and its groups' flags are read through these borrows for the whole walk,
        // not looked up again for each group (nothing in the walk changes them).
        let dom = &self.sd.domains[d];
        let imbalanced = &self.group_imbalance[d][..];
        let pct = dom.imbalance_pct as u64;
        let mut overload = false;
        let ngroups = dom.groups.len();
        // sd->groups is a ring starting at the local group.
        let mut g = local_group;
        for _ in 0..ngroups {
            let sg = &dom.groups[g];
            let mut sgs = SgLbStats::none();
            overload |= self.update_sg_lb_stats_v4(env, dom, sg, imbalanced[g], &mut sgs);
            if g == local_group {
                sds.local_stat = sgs;
            } else {
                // A SD_PREFER_SIBLING child: treat a group with tasks to spare as having no
                // capacity while the local group has some.
                let local = &sds.local_stat;
                let spare = if self.config.lb_legacy.prefer_sibling_vs_local {
                    sgs.sum_nr_running > local.sum_nr_running + 1
                } else {
                    sgs.sum_nr_running > 1
                };
                if prefer_sibling && group_has_capacity(pct, local) && spare {
                    sgs.group_no_capacity = true;
                    sgs.group_type = group_classify(imbalanced[g], &sgs);
                }
                if self.update_sd_pick_busiest_v4(env, dom, &sds, sg, &sgs) {
                    sds.busiest = Some(g);
                    sds.busiest_stat = sgs;
                }
            }
            if logging {
                self.lb_groups.push(GroupLog {
                    cpus: sg.span,
                    group_type: sgs.group_type,
                    load: sgs.group_load,
                    util: sgs.group_util,
                    runnable: 0,
                    capacity: sgs.group_capacity,
                    nr_running: sgs.sum_nr_running,
                    idle_cpus: sgs.idle_cpus,
                    misfit_task_load: sgs.group_misfit_task_load,
                    avg_load: sgs.avg_load,
                });
            }
            sds.total_load += sgs.group_load;
            sds.total_capacity += sgs.group_capacity;
            g = if g + 1 == ngroups { 0 } else { g + 1 };
        }
        self.update_sd_root_flags(env, overload);
        sds
    }
}
