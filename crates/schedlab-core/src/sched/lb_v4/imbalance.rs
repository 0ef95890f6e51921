//! The pre-v5.5 imbalance and what it moves: `check_asym_packing()`, `calculate_imbalance()`
//! with `fix_small_imbalance()`, `find_busiest_group()`, `find_busiest_queue()` and the load-only
//! `detach_tasks()` (v4.9-v5.4).

use super::super::balance::{CpuIdleType, GroupType, LbEnv};
use super::super::log::{LegacyImbalance, LegacyImbalancePath};
use super::super::World;
use super::stats::{group_has_capacity, SdLbStats};
use crate::domains::flags::*;
use crate::units::SCHED_CAPACITY_SCALE;

/// `scale_load_down(NICE_0_LOAD)`.
const NICE_0_LOAD: u64 = 1024;

/// What `find_busiest_group()` found: the group, its type (`env->src_grp_type`, v4.20+) and the
/// figures for the decision log.
#[derive(Clone, Copy, Debug)]
pub struct Busiest {
    pub group: usize,
    pub group_type: GroupType,
    pub log: LegacyImbalance,
}

impl World {
    /// `check_asym_packing()` (v4.9-v5.4): an idle CPU of higher priority than the busiest
    /// group's preferred CPU takes all of that group's load, whatever the load checks say.
    fn check_asym_packing(&self, env: &mut LbEnv, sds: &SdLbStats) -> bool {
        if !self.sd.domains[env.sd].has(SD_ASYM_PACKING) || env.idle == CpuIdleType::NotIdle {
            return false;
        }
        let Some(b) = sds.busiest else {
            return false;
        };
        let busiest_cpu = self.sd.domains[env.sd].groups[b].asym_prefer_cpu;
        if self.sd.sched_asym_prefer(busiest_cpu, env.dst_cpu) {
            return false;
        }
        let bs = &sds.busiest_stat;
        env.imbalance = if self.config.lb_legacy.asym_imbalance_group_load {
            bs.group_load
        } else {
            // DIV_ROUND_CLOSEST
            (bs.avg_load * bs.group_capacity + SCHED_CAPACITY_SCALE / 2) / SCHED_CAPACITY_SCALE
        } as i64;
        true
    }

    /// `fix_small_imbalance()`: the computed imbalance is below one task's load; move one task
    /// anyway if that brings the groups' avg_load closer, or if it raises the total capacity used.
    /// Returns whether it set the imbalance to `busiest->load_per_task`.
    fn fix_small_imbalance(&self, env: &mut LbEnv, sds: &mut SdLbStats) -> bool {
        let scale = SCHED_CAPACITY_SCALE;
        let busiest = sds.busiest_stat;
        let local = &mut sds.local_stat;
        let mut imbn = 2;
        if local.sum_nr_running == 0 {
            // cpu_avg_load_per_task(env->dst_cpu)
            let nr = self.rqs[env.dst_cpu].nr_running as u64;
            local.load_per_task = self
                .cpu_runnable_load(env.dst_cpu)
                .checked_div(nr)
                .unwrap_or(0);
        } else if busiest.load_per_task > local.load_per_task {
            imbn = 1;
        }
        let scaled_busy_load_per_task = busiest.load_per_task * scale / busiest.group_capacity;
        if busiest.avg_load + scaled_busy_load_per_task
            >= local.avg_load + scaled_busy_load_per_task * imbn
        {
            env.imbalance = busiest.load_per_task as i64;
            return true;
        }
        // Not enough imbalance to justify moving tasks; maybe moving one uses more capacity.
        let mut capa_now = busiest.group_capacity * busiest.load_per_task.min(busiest.avg_load);
        capa_now += local.group_capacity * local.load_per_task.min(local.avg_load);
        capa_now /= scale;
        let mut capa_move = 0;
        if busiest.avg_load > scaled_busy_load_per_task {
            capa_move += busiest.group_capacity
                * busiest
                    .load_per_task
                    .min(busiest.avg_load - scaled_busy_load_per_task);
        }
        let tmp = if busiest.avg_load * busiest.group_capacity < busiest.load_per_task * scale {
            busiest.avg_load * busiest.group_capacity / local.group_capacity
        } else {
            busiest.load_per_task * scale / local.group_capacity
        };
        capa_move += local.group_capacity * local.load_per_task.min(local.avg_load + tmp);
        capa_move /= scale;
        if capa_move > capa_now {
            env.imbalance = busiest.load_per_task as i64;
            return true;
        }
        false
    }

    /// `calculate_imbalance()` (v4.9-v5.4): the load to move so that neither group crosses the
    /// domain's average, no more than the busiest group's load above its capacity when both are
    /// overloaded, at least a misfit task's load (v4.20+); below one task's load,
    /// `fix_small_imbalance()` decides.
    fn calculate_imbalance_v4(&self, env: &mut LbEnv, sds: &mut SdLbStats) -> Option<bool> {
        let local = sds.local_stat;
        let busiest = &mut sds.busiest_stat;
        if busiest.group_type == GroupType::Imbalanced {
            // Affinity: group-wide averages cannot be trusted; look at wider ones.
            busiest.load_per_task = busiest.load_per_task.min(sds.avg_load);
        }
        let busiest = *busiest;
        if busiest.group_type != GroupType::MisfitTask
            && (busiest.avg_load <= sds.avg_load || local.avg_load >= sds.avg_load)
        {
            env.imbalance = 0;
            return Some(self.fix_small_imbalance(env, sds));
        }
        let mut load_above_capacity = u64::MAX;
        if busiest.group_type == GroupType::Overloaded && local.group_type == GroupType::Overloaded
        {
            let lac = busiest.sum_nr_running as u64 * SCHED_CAPACITY_SCALE;
            if lac > busiest.group_capacity {
                load_above_capacity =
                    (lac - busiest.group_capacity) * NICE_0_LOAD / busiest.group_capacity;
            }
        }
        let max_pull = busiest
            .avg_load
            .saturating_sub(sds.avg_load)
            .min(load_above_capacity);
        let imbalance = (max_pull.saturating_mul(busiest.group_capacity))
            .min(sds.avg_load.saturating_sub(local.avg_load) * local.group_capacity)
            / SCHED_CAPACITY_SCALE;
        env.imbalance = imbalance as i64;
        if busiest.group_type == GroupType::MisfitTask {
            env.imbalance = env.imbalance.max(busiest.group_misfit_task_load as i64);
        }
        if env.imbalance < busiest.load_per_task as i64 {
            return Some(self.fix_small_imbalance(env, sds));
        }
        None
    }

    /// `find_busiest_group()` (v4.9-v5.4). Returns the busiest group with `env.imbalance` set.
    pub(super) fn find_busiest_group_v4(&mut self, env: &mut LbEnv) -> Option<Busiest> {
        if self.idle_span(env) {
            // No group has a task: `busiest->sum_nr_running == 0` ends the search at
            // out_balanced. Only check_asym_packing() comes before that test, and the idle group
            // it may return has no CPU find_busiest_queue() could take (an idle CPU's runnable
            // load is 0 here), which ends the pass the same way. What update_sd_lb_stats()
            // leaves behind is still done: no CPU of the span runs two tasks.
            self.update_sd_root_flags(env, false);
            return None;
        }
        let mut sds = self.update_sd_lb_stats_v4(env);
        // v5.0+: an EAS root domain balances only while overutilized.
        if self.eas_balanced() {
            return None;
        }
        let log = |path, sds: &SdLbStats, fix| LegacyImbalance {
            path,
            avg_load: sds.avg_load,
            local_avg_load: sds.local_stat.avg_load,
            busiest_avg_load: sds.busiest_stat.avg_load,
            load_per_task: sds.busiest_stat.load_per_task,
            fix_small_imbalance: fix,
        };
        // The ASYM feature bypasses the nice load balance checks.
        if self.check_asym_packing(env, &sds) {
            let group = sds.busiest?;
            return Some(Busiest {
                group,
                group_type: sds.busiest_stat.group_type,
                log: log(LegacyImbalancePath::CheckAsymPacking, &sds, None),
            });
        }
        let group = sds.busiest?;
        let local = sds.local_stat;
        let busiest = sds.busiest_stat;
        if busiest.sum_nr_running == 0 {
            return None;
        }
        sds.avg_load = SCHED_CAPACITY_SCALE * sds.total_load / sds.total_capacity.max(1);
        let pct = self.sd.domains[env.sd].imbalance_pct as u64;
        let dst_idle = if self.config.lb_legacy.force_balance_any_idle {
            env.idle != CpuIdleType::NotIdle
        } else {
            env.idle == CpuIdleType::NewlyIdle
        };
        let force = busiest.group_type == GroupType::Imbalanced
            || (dst_idle && group_has_capacity(pct, &local) && busiest.group_no_capacity)
            || busiest.group_type == GroupType::MisfitTask;
        let path = if force {
            LegacyImbalancePath::ForceBalance
        } else {
            if local.avg_load >= busiest.avg_load || local.avg_load >= sds.avg_load {
                return None;
            }
            if env.idle == CpuIdleType::Idle {
                // The imbalance is significant if idle CPUs differ by more than one.
                if busiest.group_type != GroupType::Overloaded
                    && local.idle_cpus <= busiest.idle_cpus + 1
                {
                    return None;
                }
            } else if 100 * busiest.avg_load <= pct * local.avg_load {
                return None;
            }
            LegacyImbalancePath::CalculateImbalance
        };
        let fix = self.calculate_imbalance_v4(env, &mut sds);
        if self.config.lb_legacy.balanced_without_imbalance && env.imbalance == 0 {
            return None;
        }
        Some(Busiest {
            group,
            group_type: busiest.group_type,
            log: log(path, &sds, fix),
        })
    }

    /// `find_busiest_queue()` (v4.9-v5.4): the CPU with the most runnable load per capacity,
    /// skipping a lone task heavier than the imbalance; for a misfit group (v4.20+) the CPU with
    /// the biggest misfit task.
    ///
    /// Simplification: `check_cpu_capacity()` (capacity reduced by RT/IRQ) is never true here, as
    /// `capacity_of()` has no RT or IRQ pressure.
    pub(super) fn find_busiest_queue_v4(&self, env: &LbEnv, b: &Busiest) -> Option<usize> {
        let dom = &self.sd.domains[env.sd];
        let mut busiest = None;
        let (mut busiest_load, mut busiest_capacity) = (0u64, 1u64);
        for i in dom.groups[b.group].span.iter_and(&env.cpus, self.nr_cpus()) {
            let rq = &self.rqs[i];
            if b.group_type == GroupType::MisfitTask {
                if rq.misfit_task_load > busiest_load {
                    busiest_load = rq.misfit_task_load;
                    busiest = Some(i);
                }
                continue;
            }
            let capacity = self.capacity_of(i);
            // v4.20, with misfit: don't take a lone task off a bigger CPU.
            if self.config.misfit
                && dom.has(SD_ASYM_CPUCAPACITY)
                && self.capacity_of(env.dst_cpu) < capacity
                && rq.nr_running == 1
            {
                continue;
            }
            let wl = self.cpu_runnable_load(i);
            if rq.nr_running == 1 && wl as i64 > env.imbalance {
                continue;
            }
            if wl * busiest_capacity > busiest_load * capacity {
                busiest_load = wl;
                busiest_capacity = capacity;
                busiest = Some(i);
            }
        }
        busiest
    }

    /// `detach_tasks()` + `attach_tasks()` (v4.9-v5.4): from the tail of `cfs_tasks`, move each
    /// migratable task whose load is at most twice the imbalance left, until it is met.
    ///
    /// Simplification: `loop_break` (LBF_NEED_BREAK every 32 tasks, then more_balance again) is
    /// left out; a task's load is at least 1 (v5.4's `max_t(..., 1)`, harmless for v4.x).
    pub(super) fn detach_tasks_v4(&mut self, env: &mut LbEnv) -> usize {
        if env.imbalance <= 0 {
            return 0;
        }
        let src = env.src_cpu;
        let loop_max = self.rqs[src].nr_running.min(32);
        let mut moved = 0;
        let mut seen = 0;
        let mut idx = self.rqs[src].cfs_tasks.len();
        while idx > 0 {
            if env.idle != CpuIdleType::NotIdle && self.rqs[src].nr_running <= 1 {
                break;
            }
            seen += 1;
            if seen > loop_max {
                break;
            }
            idx -= 1;
            let p = self.rqs[src].cfs_tasks[idx];
            if !self.can_migrate_task(env, p) {
                continue;
            }
            let load = self.tasks[p].avg.load_avg.max(1);
            if (load / 2) as i64 > env.imbalance {
                continue;
            }
            self.move_task(p, src, env.dst_cpu);
            moved += 1;
            env.imbalance -= load as i64;
            // CONFIG_PREEMPT: one task per newly-idle pass.
            if (self.config.preemption && env.idle == CpuIdleType::NewlyIdle) || env.imbalance <= 0
            {
                break;
            }
        }
        moved
    }
}
