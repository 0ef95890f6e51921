//! The drivers of balancing (both balancers): periodic `rebalance_domains()` with
//! `get_sd_balance_interval()` and the `max_newidle_lb_cost` decay, `newidle_balance()` with
//! `update_next_balance()` and `update_newidle_cost()`, the blocked-load updates
//! (`update_blocked_averages()`, `update_nohz_stats()`, `nohz_newidle_balance()`,
//! `LBF_NOHZ_STATS`), `update_misfit_status()`, `nohz_balancer_kick()` and
//! `nohz_idle_balance()` / `_nohz_idle_balance()`.

use super::{CpuIdleType, LbEnv, NOHZ_BALANCE_KICK, NOHZ_STATS_KICK};
use crate::domains::flags::*;
use crate::kernel::{NewidleGate, NohzKick, NohzStats};
use crate::sched::log::{BalanceDecision, BalanceResult, Decision, NewidleSkip};
use crate::sched::World;

impl World {
    /// `get_sd_balance_interval()` in jiffies.
    pub(in crate::sched) fn get_sd_balance_interval(
        &self,
        cpu: usize,
        level: usize,
        busy: bool,
    ) -> u64 {
        let mut interval = self.sd_state(cpu, level).balance_interval;
        if busy {
            interval *= self.sd.domains[self.sd.per_cpu[cpu][level]].busy_factor as u64;
        }
        let mut j = self.msecs_to_jiffies(interval);
        if busy {
            j = j.saturating_sub(1);
        }
        j.clamp(1, self.max_load_balance_interval)
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
    pub(super) fn lbf_nohz_stats(&mut self, env: &LbEnv) {
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
            // p->nr_cpus_allowed > 1
            Some(p) if self.tasks[p].allowed.more_than_one() && !self.task_fits_cpu(p, cpu) => {
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
        let idle_mask = &self.idle_mask;
        if idle_mask.is_empty() {
            return None;
        }
        let nr_cpus = self.nr_cpus();
        let jiffies = self.jiffies();
        let stats_on = self.config.nohz_stats != NohzStats::None;
        let stats = stats_on && self.nohz_has_blocked && jiffies > self.nohz_next_blocked;
        let balance = jiffies >= self.nohz_next_balance
            && (self.rqs[cpu].nr_running >= 2
                || self.sd.sd_asym_packing[cpu].is_some_and(|sd| {
                    let span = &self.sd.domains[sd].span;
                    span.iter_and(idle_mask, nr_cpus).any(|i| {
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
                        // sd_llc_shared->nr_busy_cpus > 1: counted up to the second busy CPU.
                        let span = &self.sd.domains[llc].span;
                        span.iter().filter(|&c| !self.idle_cpu(c)).nth(1).is_some()
                    }),
                });
        let flags = if balance {
            NOHZ_BALANCE_KICK | if stats_on { NOHZ_STATS_KICK } else { 0 }
        } else if stats {
            NOHZ_STATS_KICK
        } else {
            return None;
        };
        let ilb = idle_mask.first();
        // kick_ilb(): a full kick pushes nohz.next_balance out by a jiffy until the ILB sets it.
        if balance {
            self.nohz_next_balance = jiffies + 1;
            self.counters.nohz_kicks += 1;
        }
        let ilb = ilb?;
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

const LOAD_AVG_PERIOD_MS: u64 = 32;
