//! How much to move and from where (v5.5+): `calculate_imbalance()` (with the v1 "use all
//! little CPUs" switch), `adjust_numa_imbalance()`, `find_busiest_group()`'s decision matrix and
//! `find_busiest_queue()`.

use super::stats::SdLbStats;
use super::{capacity_greater, CpuIdleType, GroupType, LbEnv, MigrationType, SgStats};
use crate::domains::flags::*;
use crate::kernel::{AvgLoadGuard, NumaImbalance};
use crate::sched::World;
use crate::units::SCHED_CAPACITY_SCALE;

impl World {
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
    pub(super) fn find_busiest_group(&mut self, env: &mut LbEnv) -> Option<usize> {
        if self.idle_span(env) {
            // No group has a task, and update_sd_pick_busiest() passes over a group without one
            // first: no busiest. What update_sd_lb_stats() leaves behind is still done, in its
            // order.
            self.lbf_nohz_stats(env);
            self.update_idle_cpu_scan(env);
            self.update_sd_root_flags(env, false);
            return None;
        }
        let mut sds = self.update_sd_lb_stats(env);
        // v5.0+: an EAS root domain balances only while overutilized.
        if self.eas_balanced() {
            return None;
        }
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
    pub(super) fn find_busiest_queue(&self, env: &LbEnv, group: usize) -> Option<usize> {
        let dom = &self.sd.domains[env.sd];
        let mut busiest = None;
        let (mut busiest_load, mut busiest_capacity, mut busiest_util, mut busiest_nr) =
            (0u64, 1u64, 0u64, 0usize);
        for i in dom.groups[group].span.iter_and(&env.cpus, self.nr_cpus()) {
            // v6.14+: rq->cfs.h_nr_runnable (sched::delayed).
            let nr = self.cfs_h_nr_runnable(i);
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
}
