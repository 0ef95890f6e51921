//! Moving tasks: `task_hot()`, `can_migrate_task()`, `detach_tasks()` + `attach_tasks()`,
//! `detach_task()` + `attach_task()` (`move_task()`), `voluntary_active_balance()`,
//! `need_active_balance()` (with `asym_active_balance()` and `imbalanced_active_balance()`),
//! `should_we_balance()`, the v5.5+ body of `load_balance()`, and its `sd_parent` group-imbalance
//! flag and `out_one_pinned` interval back-off. `can_migrate_task()`, `move_task()` and the last
//! two serve [`super::super::lb_v4`] too.

use super::{shr_bound, BalanceOutcome, CpuIdleType, LbEnv, MigrationType};
use crate::domains::flags::*;
use crate::sched::log::BalanceResult;
use crate::sched::{TaskId, World};

impl World {
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
    pub(in crate::sched) fn can_migrate_task(&self, env: &mut LbEnv, p: TaskId) -> bool {
        // v6.14+: a delayed task moves only for migrate_load (sched::delayed).
        if self.delayed_pinned(p, env.migration_type == MigrationType::Load) {
            return false;
        }
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
                    if self.task_fits_cpu(p, src) {
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
        self.enqueue_task(dst, p, crate::sched::rq::Enqueue::Migrated);
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
        let span = &dom.groups[dom.local_group(env.dst_cpu)].span;
        let mut first = None;
        let mut idle_smt = None;
        for cpu in span.iter_and(&env.cpus, self.nr_cpus()) {
            first.get_or_insert(cpu);
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
        // The group's first CPU of env->cpus.
        first == Some(env.dst_cpu)
    }

    pub(super) fn load_balance_pass(
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
    pub(in crate::sched) fn set_parent_group_imbalance(
        &mut self,
        cpu: usize,
        level: usize,
        on: bool,
    ) {
        if let Some(&parent) = self.sd.per_cpu[cpu].get(level + 1) {
            let g = self.sd.domains[parent].local_group(cpu);
            self.group_imbalance[parent][g] = on;
        }
    }

    /// `out_one_pinned`: back off the balance interval when balanced or pinned.
    pub(in crate::sched) fn tune_up_interval(
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
}
