//! The statistics `find_busiest_group()` reads (v5.5+): `group_is_overloaded()`,
//! `group_has_capacity()`, `group_classify()`, `capacity_greater()`, `sched_asym()`,
//! `update_sg_lb_stats()`, `update_sd_pick_busiest()`, `update_sd_lb_stats()` with `struct
//! sd_lb_stats`, and `sibling_imbalance()` (v6.6+).

use super::{CpuIdleType, GroupType, LbEnv, SgStats};
use crate::domains::flags::*;
use crate::domains::{SchedDomain, SchedGroup};
use crate::sched::World;
use crate::units::SCHED_CAPACITY_SCALE;

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
/// `struct sd_lb_stats`.
#[derive(Clone, Debug, Default)]
pub(super) struct SdLbStats {
    pub(super) busiest: Option<usize>,
    pub(super) local: usize,
    pub(super) total_load: u64,
    pub(super) total_capacity: u64,
    pub(super) avg_load: u64,
    pub(super) prefer_sibling: bool,
    pub(super) busiest_stat: SgStats,
    pub(super) local_stat: SgStats,
}

impl World {
    /// `sched_asym()` (v6.8).
    fn sched_asym(&self, env: &LbEnv, sgs: &SgStats, g: &SchedGroup) -> bool {
        if !self.sched_use_asym_prio(env.sd, env.dst_cpu) {
            return false;
        }
        if g.flags & SD_SHARE_CPUCAPACITY != 0 && sgs.group_weight - sgs.idle_cpus != 1 {
            return false;
        }
        self.sd.sched_asym_prefer(env.dst_cpu, g.asym_prefer_cpu)
    }

    /// `update_sg_lb_stats()`. Returns whether a CPU had more than one task (SG_OVERLOAD).
    fn update_sg_lb_stats(
        &self,
        env: &LbEnv,
        dom: &SchedDomain,
        g: &SchedGroup,
        group_imbalanced: bool,
        local_group: bool,
        sgs: &mut SgStats,
    ) -> bool {
        let mut overload = false;
        // The sums are kept in locals and stored once: stores through `sgs` each CPU would
        // otherwise be repeated for every CPU of the group.
        let (mut load, mut util, mut runnable) = (0, 0, 0);
        let (mut nr_running, mut h_nr_running, mut idle_cpus) = (0, 0, 0);
        let mut misfit_task_load = sgs.group_misfit_task_load;
        let misfit = !local_group && dom.has(SD_ASYM_CPUCAPACITY);
        for i in g.span.iter_and(&env.cpus, self.nr_cpus()) {
            load += self.cpu_load(i);
            util += self.cpu_util(i);
            runnable += self.cpu_runnable(i);
            let nr = self.rqs[i].nr_running;
            // v6.14+: rq->cfs.h_nr_runnable, without delayed tasks (sched::delayed).
            h_nr_running += self.cfs_h_nr_runnable(i);
            nr_running += nr;
            if nr > 1 {
                overload = true;
            }
            if nr == 0 && self.idle_cpu(i) {
                idle_cpus += 1;
                continue;
            }
            // Only a group other than the local one under SD_ASYM_CPUCAPACITY.
            if misfit && misfit_task_load < self.rqs[i].misfit_task_load {
                misfit_task_load = self.rqs[i].misfit_task_load;
                overload = true;
            }
        }
        sgs.group_load += load;
        sgs.group_util += util;
        sgs.group_runnable += runnable;
        sgs.sum_nr_running += nr_running;
        sgs.sum_h_nr_running += h_nr_running;
        sgs.idle_cpus += idle_cpus;
        sgs.group_misfit_task_load = misfit_task_load;
        sgs.group_capacity = g.capacity;
        sgs.group_weight = g.weight;
        sgs.group_imbalanced = group_imbalanced;
        if !local_group
            && dom.has(SD_ASYM_PACKING)
            && env.idle != CpuIdleType::NotIdle
            && sgs.sum_h_nr_running > 0
            && self.sched_asym(env, sgs, g)
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
        dom: &SchedDomain,
        sds: &SdLbStats,
        sg: &SchedGroup,
        sgs: &SgStats,
    ) -> bool {
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
    pub(super) fn update_sd_lb_stats(&mut self, env: &LbEnv) -> SdLbStats {
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
        let logging = self.log.is_some();
        // The domain and its groups' flags are read through these borrows for the whole walk,
        // not looked up again for each group (nothing in the walk changes them).
        let dom = &self.sd.domains[d];
        let imbalanced = &self.group_imbalance[d][..];
        let local_group = dom.local_group(env.dst_cpu);
        sds.local = local_group;
        let mut overload = false;
        let ngroups = dom.groups.len();
        // sd->groups is a ring starting at the local group.
        let mut g = local_group;
        for _ in 0..ngroups {
            let is_local = g == local_group;
            let sg = &dom.groups[g];
            let mut sgs = SgStats::default();
            overload |= self.update_sg_lb_stats(env, dom, sg, imbalanced[g], is_local, &mut sgs);
            if logging {
                self.lb_groups.push(crate::sched::log::GroupLog {
                    cpus: sg.span,
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
            } else if self.update_sd_pick_busiest(env, dom, &sds, sg, &sgs) {
                sds.busiest = Some(g);
                sds.busiest_stat = sgs;
            }
            sds.total_load += sgs.group_load;
            sds.total_capacity += sgs.group_capacity;
            g = if g + 1 == ngroups { 0 } else { g + 1 };
        }
        self.update_idle_cpu_scan(env);
        // v6.5+: the busiest group's child domain decides (sg->flags, v6.8 fair.c:10605).
        if self.config.prefer_sibling_from_busiest {
            if let Some(b) = sds.busiest {
                sds.prefer_sibling = self.sd.domains[d].groups[b].flags & SD_PREFER_SIBLING != 0;
            }
        }
        self.update_sd_root_flags(env, overload);
        sds
    }

    /// The end of `update_sd_lb_stats()` (both balancers): at the root domain `rd->overload` is
    /// rewritten (`overload`: some CPU of the span runs more than one task, or, v4.20+, a misfit
    /// task), and under EAS (v5.0+) `SG_OVERUTILIZED` is rewritten there and only set below.
    /// Inlined into its four callers, as [`World::update_idle_cpu_scan`].
    #[inline(always)]
    pub(in crate::sched) fn update_sd_root_flags(&mut self, env: &LbEnv, overload: bool) {
        let root = self.sd.per_cpu[env.dst_cpu].len() == env.level + 1;
        if root {
            self.rd_overload = overload;
        }
        self.lb_update_overutilized(self.sd.domains[env.sd].span, root);
    }

    /// A shortcut of the simulator, not a kernel rule: whether every CPU this pass reads
    /// (`env.cpus`) is idle, so that no group has a task and the pass ends balanced whatever the
    /// groups' loads; their statistics then need not be summed (each balancer's
    /// `find_busiest_group()` says why its pass ends there, and does what the statistics would
    /// have left behind). Not when the decision log records each group's figures. The test is a
    /// mask's; what it saves is the group loop of an idle CPU's pass over idle siblings, most of
    /// a nohz idle balance on a large machine with few tasks (cascadelake-fi-kernbench: 17% of
    /// its instructions). `sched::idle_span_tests` checks that a logged world, which takes the
    /// whole pass, ends every such pass in the same state.
    pub(in crate::sched) fn idle_span(&self, env: &LbEnv) -> bool {
        self.log.is_none() && env.cpus.is_subset_of(&self.idle_mask)
    }

    /// `sibling_imbalance()` (v6.6+).
    pub(super) fn sibling_imbalance(&self, env: &LbEnv, sds: &SdLbStats) -> i64 {
        let busiest = &sds.busiest_stat;
        let local = &sds.local_stat;
        if env.idle == CpuIdleType::NotIdle || busiest.sum_nr_running == 0 {
            return 0;
        }
        // sg->cores, counted when the domains were built.
        let groups = &self.sd.domains[env.sd].groups;
        let nb = groups[sds.busiest.unwrap()].cores as i64;
        let nl = groups[sds.local].cores as i64;
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
}
