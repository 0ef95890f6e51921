//! Load balancing as fair.c had it before the v5.5 rework (0b0695f2b34a), v4.9 to v5.4, chosen by
//! [`crate::kernel::LoadBalancer::Legacy`]; the differences between those versions are the
//! switches of [`crate::kernel::LegacyLb`].
//!
//! `find_busiest_group()` classifies groups as `group_other` / `group_misfit_task` (v4.20+) /
//! `group_imbalanced` / `group_overloaded` and compares their capacity-scaled runnable load
//! (`avg_load`); `check_asym_packing()` bypasses that for SD_ASYM_PACKING; `calculate_imbalance()`
//! and `fix_small_imbalance()` give the load to move, which `detach_tasks()` moves task by task
//! (load only: no util or task-count migration types). Active balance comes after
//! `nr_balance_failed > cache_nice_tries + 2`, at once for asym packing only on CPU_NEWLY_IDLE
//! before v5.1. The busy tick's idle-balancer kick is [`World::nohz_kick_needed`] (v4.9-v5.0).
//!
//! Shared with [`super::balance`]: `struct lb_env`, `can_migrate_task()`/`task_hot()`,
//! `detach_task()`/`attach_task()` ([`World::move_task`]), the `sgc->imbalance` flags, the
//! interval back-off, `rebalance_domains()`, `newidle_balance()`, nohz idle balancing and the
//! active balance stopper. Simplifications of this module are noted where they are made.

mod imbalance;
mod stats;
#[cfg(test)]
mod tests;

pub use stats::{SdLbStats, SgLbStats};

use super::balance::{BalanceOutcome, CpuIdleType, GroupType, LbEnv};
use super::log::BalanceResult;
use super::World;
use crate::domains::flags::*;

impl World {
    /// `should_we_balance()` (v4.9-v5.4): every CPU balances when newly idle; otherwise the first
    /// idle CPU of the local group, else its first CPU (no idle-core preference before v5.x).
    fn should_we_balance_v4(&self, env: &LbEnv) -> bool {
        if !env.cpus.test(env.dst_cpu) {
            return false;
        }
        if env.idle == CpuIdleType::NewlyIdle {
            return true;
        }
        let dom = &self.sd.domains[env.sd];
        let span = &dom.groups[dom.local_group(env.dst_cpu)].span;
        let balance_cpu = span
            .iter_and(&env.cpus, self.nr_cpus())
            .find(|&c| self.idle_cpu(c))
            .or(span.first());
        balance_cpu == Some(env.dst_cpu)
    }

    /// `asym_active_balance()` (v5.1+) or the v4.x CPU_NEWLY_IDLE-only form inside
    /// `need_active_balance()`: dst has priority over src.
    fn asym_active_balance_v4(&self, env: &LbEnv) -> bool {
        let any_idle = self.config.lb_legacy.voluntary_active_balance;
        let idle_ok = if any_idle {
            env.idle != CpuIdleType::NotIdle
        } else {
            env.idle == CpuIdleType::NewlyIdle
        };
        idle_ok
            && self.sd.domains[env.sd].has(SD_ASYM_PACKING)
            && self.sd.sched_asym_prefer(env.dst_cpu, env.src_cpu)
    }

    /// `voluntary_active_balance()` (v5.1+; the same tests inside `need_active_balance()` before):
    /// asym packing, or a misfit busiest group (v4.20+).
    ///
    /// Simplification: the reduced-capacity rule (`check_cpu_capacity()`, RT/IRQ pressure) never
    /// fires, as `capacity_of()` has no such pressure.
    fn voluntary_active_balance_v4(&self, env: &LbEnv, src_grp_type: GroupType) -> bool {
        self.asym_active_balance_v4(env) || src_grp_type == GroupType::MisfitTask
    }

    /// `need_active_balance()` (v4.9-v5.4): voluntary reasons, else more than
    /// `cache_nice_tries + 2` failed balances.
    fn need_active_balance_v4(&self, env: &LbEnv, src_grp_type: GroupType) -> bool {
        if self.voluntary_active_balance_v4(env, src_grp_type) {
            return true;
        }
        let sd = &self.sd.domains[env.sd];
        self.sd_state(env.balance_cpu, env.level).nr_balance_failed > sd.cache_nice_tries + 2
    }

    /// `out_one_pinned`: v4.x doubles the interval after newly-idle passes too; v5.0+ does not,
    /// which is what the shared back-off does.
    fn tune_up_interval_v4(&mut self, cpu: usize, level: usize, idle: CpuIdleType, pinned: bool) {
        let as_idle =
            if idle == CpuIdleType::NewlyIdle && !self.config.lb_legacy.newidle_keeps_interval {
                // The shared back-off skips newly-idle passes (v5.0+); v4.x treats them like others.
                CpuIdleType::Idle
            } else {
                idle
            };
        self.tune_up_interval(cpu, level, as_idle, pinned);
    }

    /// `load_balance()` (v4.9-v5.4) at one level of `this_cpu`'s hierarchy.
    pub(super) fn load_balance_pass_v4(
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
        // redo:
        loop {
            if !self.should_we_balance_v4(&env) {
                result = BalanceResult::NotThisCpu;
                break;
            }
            let Some(b) = self.find_busiest_group_v4(&mut env) else {
                break;
            };
            env.busiest_group = Some(b.group);
            env.imbalance_found = env.imbalance;
            if self.log.is_some() {
                self.lb_legacy = Some(b.log);
            }
            let Some(busiest) = self.find_busiest_queue_v4(&env, &b) else {
                result = BalanceResult::NoBusiestQueue;
                break;
            };
            env.src_cpu = busiest;
            if self.rqs[busiest].nr_running > 1 {
                env.all_pinned = true;
                out.moved += self.detach_tasks_v4(&mut env);
                // LBF_DST_PINNED: the same busiest CPU, another dst of our group (more_balance).
                while let Some(new_dst) = env.new_dst_cpu.take() {
                    if env.imbalance <= 0 {
                        break;
                    }
                    env.cpus.clear(env.dst_cpu);
                    env.dst_cpu = new_dst;
                    out.moved += self.detach_tasks_v4(&mut env);
                }
                if env.some_pinned && env.imbalance > 0 {
                    self.set_parent_group_imbalance(this_cpu, level, true);
                }
                if env.all_pinned {
                    env.cpus.clear(busiest);
                    let redo = if self.config.lb_legacy.redo_outside_dst_group {
                        let dom = &self.sd.domains[sd];
                        let dst_grpmask = &dom.groups[dom.local_group(this_cpu)].span;
                        !env.cpus.is_subset_of(dst_grpmask)
                    } else {
                        !env.cpus.is_empty()
                    };
                    if redo {
                        continue;
                    }
                    // out_all_pinned
                    self.sd_state_mut(this_cpu, level).nr_balance_failed = 0;
                    self.tune_up_interval_v4(this_cpu, level, idle, true);
                    return (out, BalanceResult::AllPinned, env);
                }
            }
            let mut active_started = false;
            if out.moved == 0 {
                // Only periodic balancing counts failures.
                if idle != CpuIdleType::NewlyIdle {
                    self.sd_state_mut(this_cpu, level).nr_balance_failed += 1;
                }
                if self.need_active_balance_v4(&env, b.group_type) {
                    let curr_allowed = self.rqs[busiest]
                        .curr
                        .is_some_and(|c| self.tasks[c].allowed.test(this_cpu));
                    if !curr_allowed {
                        // out_one_pinned with LBF_ALL_PINNED
                        self.tune_up_interval_v4(this_cpu, level, idle, true);
                        return (out, BalanceResult::AllPinned, env);
                    }
                    if !self.rqs[busiest].active_balance {
                        self.rqs[busiest].active_balance = true;
                        self.pending_active.push((busiest, this_cpu));
                        active_started = true;
                        out.active = true;
                    }
                    // "We've kicked active balancing, force task migration."
                    let tries = self.sd.domains[sd].cache_nice_tries;
                    self.sd_state_mut(this_cpu, level).nr_balance_failed = tries + 1;
                }
            } else {
                self.counters.load_balance_moved += out.moved as u64;
                self.sd_state_mut(this_cpu, level).nr_balance_failed = 0;
            }
            let keep_min = self.config.lb_legacy.voluntary_active_balance
                && self.voluntary_active_balance_v4(&env, b.group_type);
            let (min, max) = (
                self.sd.domains[sd].min_interval,
                self.sd.domains[sd].max_interval,
            );
            let st = self.sd_state_mut(this_cpu, level);
            if !active_started || keep_min {
                st.balance_interval = min;
            } else if st.balance_interval < max {
                // Active balancing begun: start to back off.
                st.balance_interval *= 2;
            }
            let result = out.result();
            return (out, result, env);
        }
        // out_balanced: affinity constraints may have been met; clear the parent's flag.
        if !(env.all_pinned && self.config.lb_legacy.all_pinned_keeps_group_imbalance) {
            self.set_parent_group_imbalance(this_cpu, level, false);
        }
        // out_all_pinned
        self.sd_state_mut(this_cpu, level).nr_balance_failed = 0;
        self.tune_up_interval_v4(this_cpu, level, idle, env.all_pinned);
        (out, result, env)
    }

    /// `nohz_kick_needed()` (v4.9-v4.16; the same tests in v4.17-v5.0's `nohz_balancer_kick()`):
    /// should a busy CPU's tick kick an idle CPU to balance for all idle CPUs? Kicks when this CPU
    /// runs two tasks (or, v4.20+, a misfit task), when more than one CPU of its LLC is busy, even on
    /// asymmetric-capacity systems, or when an idle CPU of `sd_asym` has priority over it.
    /// Returns the CPU to kick (`find_new_ilb()`: the first idle CPU).
    ///
    /// v4.9 tests `cpumask_first_and(idle, span) < cpu`, the lower-CPU-number priority that
    /// `sched_asym_prefer()` has by default, so one form serves both.
    pub(super) fn nohz_kick_needed(&mut self, cpu: usize) -> Option<usize> {
        let idle_mask = &self.idle_mask;
        if idle_mask.is_empty() || self.jiffies() < self.nohz_next_balance {
            return None;
        }
        let nr_cpus = self.nr_cpus();
        let kick = self.rqs[cpu].nr_running >= 2
            || self.rqs[cpu].misfit_task_load > 0
            // sd_llc_shared->nr_busy_cpus > 1 (the kernel keeps a counter; masks here).
            || self.sd.sd_llc[cpu].is_some_and(|llc| {
                let span = &self.sd.domains[llc].span;
                span.iter().filter(|&c| !idle_mask.test(c)).nth(1).is_some()
            })
            || self.sd.sd_asym_packing[cpu].is_some_and(|sd| {
                self.sd.domains[sd]
                    .span
                    .iter_and(idle_mask, nr_cpus)
                    .any(|i| i != cpu && self.sd.sched_asym_prefer(i, cpu))
            });
        if !kick {
            return None;
        }
        let ilb = idle_mask.first();
        // nohz_balancer_kick(): nohz.next_balance++ until the ILB sets it.
        self.nohz_next_balance += 1;
        self.counters.nohz_kicks += 1;
        // A full kick (`NOHZ_BALANCE_KICK`, plus the stats kick where the era has it), carried by
        // the IPI the way `nohz_balancer_kick()`'s is.
        let ilb = ilb?;
        let flags = super::balance::NOHZ_BALANCE_KICK
            | if self.config.nohz_stats != crate::kernel::NohzStats::None {
                super::balance::NOHZ_STATS_KICK
            } else {
                0
            };
        let pending = self.nohz_kick_flags[ilb];
        self.nohz_kick_flags[ilb] |= flags;
        (pending == 0).then_some(ilb)
    }
}
