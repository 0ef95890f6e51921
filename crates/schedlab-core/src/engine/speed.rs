//! A running task's progress: the work it is credited with, the rate it runs at and its
//! completion event, and what changes that rate while it runs. The rate follows the CPU's
//! frequency (the governor's request, `cpufreq_update_util()`, and the package's turbo bin, which
//! follows its number of active cores) and the busy SMT siblings of its core; every change first
//! credits the work done at the old rate, then re-arms the completion at the new one.

use super::{Engine, EvKind};
use crate::sched::World;
use crate::units::WORK_SCALE;

impl Engine<'_> {
    /// Credit curr of `cpu` with the work done since the last accounting.
    pub(super) fn account(&mut self, cpu: usize) {
        let now = self.w.now;
        let rq = &mut self.w.rqs[cpu];
        if let Some(t) = rq.curr {
            let done = crate::math64::saturating_mul_u64(now - rq.last_account, rq.rate);
            let task = &mut self.w.tasks[t];
            task.work_left = task.work_left.saturating_sub(done);
        }
        rq.last_account = now;
    }

    /// Recompute curr's rate and re-arm its completion event.
    pub(super) fn refresh_rate(&mut self, cpu: usize) {
        self.account(cpu);
        if self.w.rqs[cpu].curr.is_none() {
            return;
        }
        let fd = self.w.topo.cpus[cpu].freq_domain;
        let khz = self.w.clocks[fd].cur_khz;
        let group = self.w.topo.cpus[cpu].smt_group;
        let busy = (self.w.topo.smt_group_cpus.get(group))
            .filter(|&c| self.w.rqs[c].curr.is_some())
            .count();
        let curr = self.w.rqs[cpu].curr.unwrap();
        let rate = if self.fixed_rate[curr] {
            WORK_SCALE
        } else {
            self.inst.rates.work_rate(&self.w.topo, cpu, khz, busy)
        };
        self.w.rqs[cpu].rate = rate;
        self.arm_run_done(cpu);
    }

    /// (Re-)arm the completion event of curr's `Run` op at the current rate.
    #[inline(always)]
    pub(super) fn arm_run_done(&mut self, cpu: usize) {
        let rq = &mut self.w.rqs[cpu];
        rq.run_done_seq = 0;
        let rate = rq.rate;
        let Some(t) = rq.curr else { return };
        // A run already credited to zero completes now: re-arming must not drop its completion.
        let left = self.w.tasks[t].work_left;
        let at = self.w.now + left.div_ceil(rate.max(1));
        self.w.rqs[cpu].run_done_seq = self.push(at, EvKind::RunDone(cpu));
    }

    /// A CPU started or stopped running something: SMT siblings' speed and the package's turbo
    /// budget may change.
    pub(super) fn busy_changed(&mut self, cpu: usize) {
        let busy = self.w.rqs[cpu].curr.is_some();
        let pkg = self.w.topo.cpus[cpu].package;
        let active_before = self.w.active_cores[pkg];
        self.w.set_cpu_busy(cpu, busy);
        let group = self.w.topo.cpus[cpu].smt_group;
        for k in self.w.topo.smt_group_cpus.range(group) {
            let c = self.w.topo.smt_group_cpus.at(k);
            if c != cpu && self.w.rqs[c].curr.is_some() {
                self.refresh_rate(c);
            }
        }
        // The package's turbo bin follows its number of active cores: the hardware re-caps every
        // core's frequency, the governors' requests stay as they were. Each clock runs at what
        // its requests and the cap give (`clock_target_khz()`, kept so by every change: cur =
        // min(request, cap)), so only a clock whose bin changed can be re-capped, and of those
        // only one at or above the lower of its two caps: below both it runs at its request
        // before and after.
        let active_after = self.w.active_cores[pkg];
        let caps = |w: &World, d: usize| {
            let dom = &w.topo.freq_domains[d];
            (
                dom.max_khz(active_before.max(1)),
                dom.max_khz(active_after.max(1)),
            )
        };
        if active_after == active_before {
            return;
        }
        // With one bin table for the whole package the two caps are the same for every clock:
        // read them once.
        let turbo = &self.w.turbo[pkg];
        let shared_caps = match turbo.clocks.first() {
            Some(&d) if turbo.same_bins => Some(caps(&self.w, d)),
            _ => None,
        };
        if shared_caps.is_some_and(|(old, new)| old == new) {
            return;
        }
        for i in 0..self.w.turbo[pkg].clocks.len() {
            let d = self.w.turbo[pkg].clocks[i];
            let (old, new) = shared_caps.unwrap_or_else(|| caps(&self.w, d));
            if old == new || self.w.clocks[d].cur_khz < old.min(new) {
                continue;
            }
            if let Some(khz) = self.w.turbo_capped_khz(d) {
                self.change_frequency(d, |w| w.apply_turbo_cap(d, khz));
            }
        }
    }

    /// `cpufreq_update_util(rq, flags)`: let the governor look at `cpu`'s policy; `flags` reach
    /// the governor (`SCHED_CPUFREQ_IOWAIT` on a wake-up after I/O).
    pub(super) fn freq_update(&mut self, cpu: usize, flags: u32) {
        let Some(khz) = self.w.cpufreq_target(cpu, flags) else {
            return;
        };
        let policy = self.w.topo.cpus[cpu].policy;
        let fd = self.w.topo.policies[policy].clock;
        self.change_frequency(fd, |w| w.set_frequency(policy, khz));
    }

    /// Changes domain `fd`'s frequency with `set`: PELT and the work done are first accounted at
    /// the old frequency, then the change is traced and the cores' power and running tasks' rates
    /// follow the new one.
    pub(super) fn change_frequency(&mut self, fd: usize, set: impl FnOnce(&mut World)) {
        let cpus = self.w.topo.freq_domain_cpus.range(fd);
        for k in cpus.clone() {
            let c = self.w.topo.freq_domain_cpus.at(k);
            self.w.update_load_avg(c, None);
            self.account(c);
        }
        let before = self.w.clocks[fd].cur_khz;
        set(&mut self.w);
        if self.w.clocks[fd].cur_khz == before {
            return;
        }
        self.trace_freq(fd);
        for k in self.w.topo.freq_domain_cores.range(fd) {
            let core = self.w.topo.freq_domain_cores.at(k);
            self.w.update_core_power(core);
        }
        for k in cpus {
            let c = self.w.topo.freq_domain_cpus.at(k);
            if self.w.rqs[c].curr.is_some() {
                self.refresh_rate(c);
            }
        }
    }
}
