//! Wake-up placement: `select_task_rq_fair()` and its helpers (fair.c), each era's form behind a
//! [`crate::kernel::KernelConfig`] switch: `wake_wide()`, `wake_cap()`, `wake_affine()` (v4.9's load
//! comparison, or WA_IDLE/WA_WEIGHT/WA_BIAS), the fast path `select_idle_sibling()` (in [`super::sis`])
//! and, for fork, exec (`sched_exec()`) and SD_BALANCE_WAKE, the slow path `find_idlest_cpu()` /
//! `find_idlest_group()`.
//!
//! `find_idlest_group_cpu()` ranks idle CPUs by the exit latency of their cpuidle state, then
//! `idle_stamp` (see [`crate::power::cpuidle`]). On an EAS system a wake-up first asks
//! `find_energy_efficient_cpu()` ([`super::eas`], v5.0+).

use super::balance::{group_classify, GroupType, SgStats};
use super::{TaskId, World};
use crate::domains::flags::*;
use crate::kernel::{FindIdlest, NumaImbalance, RecentUsedCpu, WakeAffine};
use crate::math64::mul_u64_u64_wide;

/// Which path placed a task.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Placement {
    FastPath,
    SlowPath,
    /// `find_energy_efficient_cpu()` (EAS, v5.0+).
    Energy,
}

/// The balance flag a placement is for (`sd_flag`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WakeKind {
    /// `try_to_wake_up()`: SD_BALANCE_WAKE, WF_TTWU.
    Wakeup { sync: bool },
    /// `wake_up_new_task()`: SD_BALANCE_FORK.
    Fork,
    /// `sched_exec()`: SD_BALANCE_EXEC, for the task running on its CPU (v4.9-v6.8).
    Exec,
}

impl World {
    /// `record_wakee()`: count how often `waker` switches between wakees; decays once a second.
    pub fn record_wakee(&mut self, waker: TaskId, wakee: TaskId) {
        let jiffies = self.jiffies();
        let hz = self.config.hz as u64;
        let w = &mut self.tasks[waker];
        if jiffies > w.wakee_flip_decay_ts + hz {
            w.wakee_flips >>= 1;
            w.wakee_flip_decay_ts = jiffies;
        }
        if w.last_wakee != Some(wakee) {
            w.last_wakee = Some(wakee);
            w.wakee_flips += 1;
        }
    }

    /// `wake_wide()`: a 1:N waker/wakee pattern wider than the LLC goes to the slow/idle path.
    pub fn wake_wide(&self, waker: TaskId, wakee: TaskId, cpu: usize) -> bool {
        let mut master = self.tasks[waker].wakee_flips;
        let mut slave = self.tasks[wakee].wakee_flips;
        let factor = self.sd.llc_size[cpu] as u32;
        if master < slave {
            std::mem::swap(&mut master, &mut slave);
        }
        !(slave < factor || master < slave * factor)
    }

    /// `wake_affine_idle()` (v4.15+): an idle waking CPU sharing prev's LLC (prev itself if idle
    /// too); the waker's CPU for a sync wake-up from its only task; and, v5.11+
    /// ([`crate::kernel::KernelConfig::wake_affine_idle_prev`]), an idle prev.
    fn wake_affine_idle(&self, this_cpu: usize, prev_cpu: usize, sync: bool) -> Option<usize> {
        if self.idle_cpu(this_cpu) && self.sd.cpus_share_cache(this_cpu, prev_cpu) {
            return Some(if self.idle_cpu(prev_cpu) {
                prev_cpu
            } else {
                this_cpu
            });
        }
        if sync && self.rqs[this_cpu].nr_running == 1 {
            return Some(this_cpu);
        }
        if self.config.wake_affine_idle_prev && self.idle_cpu(prev_cpu) {
            return Some(prev_cpu);
        }
        None
    }

    /// `wake_affine_weight()`: compare capacity-scaled loads with half the imbalance_pct as bias.
    fn wake_affine_weight(
        &self,
        imbalance_pct: u64,
        p: TaskId,
        waker: Option<TaskId>,
        this_cpu: usize,
        prev_cpu: usize,
        sync: bool,
    ) -> Option<usize> {
        let mut this_eff_load = self.cpu_load(this_cpu) as i128;
        if let (true, Some(waker)) = (sync, waker) {
            let current_load = self.tasks[waker].avg.load_avg as i128;
            if current_load > this_eff_load {
                return Some(this_cpu);
            }
            this_eff_load -= current_load;
        }
        let task_load = self.tasks[p].avg.load_avg as i128;
        this_eff_load += task_load;
        this_eff_load *= 100;
        this_eff_load *= self.capacity_of(prev_cpu) as i128;
        let mut prev_eff_load = self.cpu_load(prev_cpu) as i128 - task_load;
        prev_eff_load *= 100 + (imbalance_pct as i128 - 100) / 2;
        prev_eff_load *= self.capacity_of(this_cpu) as i128;
        if sync {
            prev_eff_load += 1;
        }
        (this_eff_load < prev_eff_load).then_some(this_cpu)
    }

    /// v4.9 `wake_affine()`: pull to the waker's CPU when its capacity-scaled runnable load, with
    /// the task added, is no more than prev's with half the imbalance_pct as bias
    /// (`effective_load()` is the identity without task groups).
    fn wake_affine_load(
        &self,
        imbalance_pct: u64,
        p: TaskId,
        waker: Option<TaskId>,
        this_cpu: usize,
        prev_cpu: usize,
        sync: bool,
    ) -> Option<usize> {
        let mut this_load = self.cpu_runnable_load(this_cpu) as i128;
        let load = self.cpu_runnable_load(prev_cpu) as i128;
        if let (true, Some(w)) = (sync, waker) {
            this_load -= self.tasks[w].avg.load_avg as i128;
        }
        let weight = self.tasks[p].avg.load_avg as i128;
        let mut this_eff_load = 100 * self.capacity_of(prev_cpu) as i128;
        let mut prev_eff_load =
            (100 + (imbalance_pct as i128 - 100) / 2) * self.capacity_of(this_cpu) as i128;
        if this_load > 0 {
            this_eff_load *= this_load + weight;
            prev_eff_load *= load + weight;
        }
        (this_eff_load <= prev_eff_load).then_some(this_cpu)
    }

    /// `wake_affine()`: the waker's CPU if it looks at least as good, else prev.
    fn wake_affine(
        &mut self,
        sd: usize,
        p: TaskId,
        waker: Option<TaskId>,
        this_cpu: usize,
        prev_cpu: usize,
        sync: bool,
    ) -> usize {
        let pct = self.sd.domains[sd].imbalance_pct as u64;
        let target = match self.config.wake_affine {
            WakeAffine::Load => self.wake_affine_load(pct, p, waker, this_cpu, prev_cpu, sync),
            WakeAffine::IdleThenWeight => self
                .wake_affine_idle(this_cpu, prev_cpu, sync)
                .or_else(|| self.wake_affine_weight(pct, p, waker, this_cpu, prev_cpu, sync)),
        };
        if target != Some(this_cpu) {
            return prev_cpu;
        }
        self.counters.wake_affine_pulls += 1;
        this_cpu
    }

    /// `wake_cap()` (v4.9-v5.6): true when the task does not fit ~80% of the smaller of prev's and
    /// the waker's capacity, on a system whose capacities differ by more than 1/8. v4.10+
    /// ([`crate::kernel::KernelConfig::wake_cap_sync`]) first decays the sleeping task's signals to
    /// prev's cfs_rq clock (`sync_entity_load_avg()`), so a long sleep lowers the utilization tested.
    pub fn wake_cap(&mut self, p: TaskId, cpu: usize, prev_cpu: usize) -> bool {
        // sched_asym_cpucapacity (v5.x): the waking CPU's domains stand for the system's; every
        // preset's asymmetric domain spans all CPUs.
        if self.config.wake_cap_asym_gate && self.sd.sd_asym_cpucapacity[cpu].is_none() {
            return false;
        }
        let min_cap = self.capacity_of(cpu).min(self.capacity_of(prev_cpu));
        let max_cap = self.sd.max_cpu_capacity;
        if max_cap - min_cap < max_cap >> 3 {
            return false;
        }
        if self.config.wake_cap_sync {
            self.sync_entity_load_avg(p);
        }
        // !task_fits_capacity(p, min_cap): capacity_margin = 1280 (uclamp_task_util() v5.6+).
        !self.task_fits_capacity(p, min_cap)
    }

    /// `sync_entity_load_avg()`: decay a sleeping task's signals to its cfs_rq's last update.
    pub(super) fn sync_entity_load_avg(&mut self, p: TaskId) {
        let last = self.rqs[self.tasks[p].cpu].avg.last_update_time;
        let w = self.tasks[p].weight;
        let path = self.config.pelt_update;
        let sa = &mut self.tasks[p].avg;
        if last > sa.last_update_time {
            // A blocked update: nothing runs, so the scale style does not matter.
            sa.update(last, w, 0, 0, false, crate::pelt::Scale::Time, path);
        }
    }

    /// `select_task_rq_fair()`: where `p` goes when woken by `waker` running on `cpu` (None: a timer
    /// on `p`'s previous CPU), or forked by it. Logs the decision when the run is traced.
    pub fn select_task_rq_fair(
        &mut self,
        p: TaskId,
        waker: Option<TaskId>,
        cpu: usize,
        kind: WakeKind,
    ) -> (usize, Placement) {
        let prev_cpu = self.tasks[p].cpu;
        let (sd_flag, sync) = match kind {
            WakeKind::Wakeup { sync } => (SD_BALANCE_WAKE, sync),
            WakeKind::Fork => (SD_BALANCE_FORK, false),
            WakeKind::Exec => (SD_BALANCE_EXEC, false),
        };
        let mut want_affine = false;
        let (mut wide, mut cap) = (false, false);
        if let WakeKind::Wakeup { .. } = kind {
            if let Some(w) = waker {
                self.record_wakee(w, p);
            }
            // v5.0+: on an EAS root domain, find_energy_efficient_cpu() places the task unless
            // it gives up (-1).
            if self.sched_energy_enabled() {
                if let Some(target) = self.find_energy_efficient_cpu(p, prev_cpu, cpu) {
                    self.counters.wake_energy += 1;
                    self.log_wakeup(p, waker, cpu, kind, target);
                    return (target, Placement::Energy);
                }
            }
            if let Some(w) = waker {
                wide = self.wake_wide(w, p, cpu);
            }
            if wide {
                self.counters.wake_wide += 1;
            }
            cap = self.config.wake_cap && self.wake_cap(p, cpu, prev_cpu);
            want_affine = !wide && !cap && self.tasks[p].allowed.test(cpu);
        }
        let mut new_cpu = prev_cpu;
        let mut affine_cpu = None;
        let mut slow_sd = None;
        for i in 0..self.sd.per_cpu[cpu].len() {
            let d = self.sd.per_cpu[cpu][i];
            let dom = &self.sd.domains[d];
            if want_affine && dom.has(SD_WAKE_AFFINE) && dom.span.test(prev_cpu) {
                if cpu != prev_cpu {
                    new_cpu = self.wake_affine(d, p, waker, cpu, prev_cpu, sync);
                    affine_cpu = Some(new_cpu);
                }
                slow_sd = None;
                break;
            }
            if dom.has(sd_flag) {
                slow_sd = Some(i);
            } else if !want_affine {
                break;
            }
        }
        let (target, path) = if let Some(level) = slow_sd {
            self.counters.wake_slow_path += 1;
            if sd_flag == SD_BALANCE_WAKE {
                self.counters.balance_wake += 1;
            }
            (
                self.find_idlest_cpu(level, p, cpu, prev_cpu, sd_flag),
                Placement::SlowPath,
            )
        } else if let WakeKind::Wakeup { .. } = kind {
            self.counters.wake_fast_path += 1;
            let target = self.select_idle_sibling(p, prev_cpu, new_cpu, cpu);
            // v4.16-v5.12: an affine wake-up records the waking CPU in the waker's
            // recent_used_cpu (`current->recent_used_cpu = cpu`).
            if let (RecentUsedCpu::WakerCpu, true, Some(w)) =
                (self.config.sis_recent_used_cpu, want_affine, waker)
            {
                self.tasks[w].recent_used_cpu = cpu;
            }
            (target, Placement::FastPath)
        } else {
            (new_cpu, Placement::FastPath)
        };
        if let WakeKind::Wakeup { .. } = kind {
            self.classify_wakeup(p, prev_cpu, waker.map(|_| cpu), target, path);
        }
        if self.log.is_some() {
            let decision = super::log::Decision::Wakeup(super::log::WakeDecision {
                t: self.now,
                task: p,
                fork: kind == WakeKind::Fork,
                exec: kind == WakeKind::Exec,
                prev_cpu,
                waker_cpu: waker.map(|_| cpu),
                task_util: self.task_util_est(p),
                wake_wide: wide,
                wake_cap: cap,
                want_affine,
                affine_cpu,
                path,
                slow_path_level: slow_sd.map(|l| self.sd.domains[self.sd.per_cpu[cpu][l]].level),
                target,
                eas: None,
            });
            if let Some(log) = &mut self.log {
                log.push(decision);
            }
        }
        (target, path)
    }

    /// The decision-log entry of a wake-up `find_energy_efficient_cpu()` placed.
    fn log_wakeup(
        &mut self,
        p: TaskId,
        waker: Option<TaskId>,
        cpu: usize,
        kind: WakeKind,
        target: usize,
    ) {
        let prev_cpu = self.tasks[p].cpu;
        self.classify_wakeup(p, prev_cpu, waker.map(|_| cpu), target, Placement::Energy);
        let eas = self.eas_log.take();
        if self.log.is_some() {
            let decision = super::log::Decision::Wakeup(super::log::WakeDecision {
                t: self.now,
                task: p,
                fork: kind == WakeKind::Fork,
                exec: kind == WakeKind::Exec,
                prev_cpu,
                waker_cpu: waker.map(|_| cpu),
                task_util: self.task_util_est(p),
                wake_wide: false,
                wake_cap: false,
                want_affine: false,
                affine_cpu: None,
                path: Placement::Energy,
                slow_path_level: None,
                target,
                eas,
            });
            if let Some(log) = &mut self.log {
                log.push(decision);
            }
        }
    }

    /// Counts the wake-up in the E4 classification (`Counters::wake_classes`): task big or little
    /// (whether it fits ~80% of the smallest capacity), prev, waker and target CPU big or little,
    /// fast or slow path.
    fn classify_wakeup(
        &mut self,
        p: TaskId,
        prev: usize,
        waker_cpu: Option<usize>,
        target: usize,
        path: Placement,
    ) {
        let min_cap = self.min_capacity_orig;
        let big = |cpu: usize| self.topo.capacity_orig(cpu) > min_cap;
        let task_big = !fits_capacity(self.task_util_est(p), min_cap);
        let idx = crate::trace::WakeClass {
            task_big,
            prev_big: big(prev),
            waker_big: waker_cpu.is_some_and(big),
            target_big: big(target),
            slow_path: path == Placement::SlowPath,
        }
        .index();
        self.counters.wake_classes[idx] += 1;
    }

    /// `find_idlest_cpu()`: walk down from `level`, picking the idlest group then its idlest CPU.
    fn find_idlest_cpu(
        &mut self,
        level: usize,
        p: TaskId,
        cpu: usize,
        prev_cpu: usize,
        sd_flag: u32,
    ) -> usize {
        let allowed = self.tasks[p].allowed;
        let top = self.sd.per_cpu[cpu][level];
        if !self.sd.domains[top].span.intersects(&allowed) {
            return prev_cpu;
        }
        let mut cpu = cpu;
        // v4.9-v5.4 return prev_cpu when no level found a better group; v5.5+ the current CPU.
        let mut new_cpu = if self.config.find_idlest == FindIdlest::Classify {
            cpu
        } else {
            prev_cpu
        };
        let mut level = Some(level);
        while let Some(l) = level {
            let d = self.sd.per_cpu[cpu][l];
            if !self.sd.domains[d].has(sd_flag) {
                level = l.checked_sub(1);
                continue;
            }
            let group = match self.config.find_idlest {
                FindIdlest::Classify => self.find_idlest_group(d, p, cpu),
                FindIdlest::Load => self.find_idlest_group_load(d, p, cpu),
                FindIdlest::SpareCapacity => self.find_idlest_group_spare(d, p, cpu, sd_flag),
            };
            let Some(group) = group else {
                level = l.checked_sub(1);
                continue;
            };
            new_cpu = self.find_idlest_group_cpu(d, group, p, cpu);
            if new_cpu == cpu {
                level = l.checked_sub(1);
                continue;
            }
            // Restart below the domain that spans as many CPUs on the new CPU.
            let weight = self.sd.domains[d].span_weight;
            cpu = new_cpu;
            level = None;
            for (i, &t) in self.sd.per_cpu[cpu].iter().enumerate() {
                if weight <= self.sd.domains[t].span_weight {
                    break;
                }
                if self.sd.domains[t].has(sd_flag) {
                    level = Some(i);
                }
            }
        }
        new_cpu
    }

    /// `find_idlest_group_cpu()` (v4.9-v6.8): among idle CPUs, the one in the idle state with the
    /// smallest exit latency (`idle_get_state()`, the cpuidle state the CPU is in: "priority to a
    /// CPU whose idle state has the smallest exit latency irrespective of any idle timestamp"),
    /// ties and CPUs without a cpuidle state going to the most recently idled; else the least
    /// loaded. An idle CPU wins a tie only by `idle_stamp > latest_idle_timestamp`, which starts
    /// at 0, so a CPU whose stamp is 0 is taken only for a smaller exit latency.
    pub(crate) fn find_idlest_group_cpu(
        &self,
        d: usize,
        group: usize,
        p: TaskId,
        this_cpu: usize,
    ) -> usize {
        let g = &self.sd.domains[d].groups[group];
        if g.weight == 1 {
            return g.span.first().unwrap();
        }
        let mut min_exit_latency = u64::MAX;
        let mut latest_stamp = 0u64;
        let mut shallowest = None::<usize>;
        let mut least_loaded = None::<(u64, usize)>;
        for i in g.span.and(&self.tasks[p].allowed).iter() {
            if self.idle_cpu(i) {
                let stamp = self.rqs[i].idle_stamp;
                let idle = self.idle_get_state_exit_latency(i);
                if let Some(lat) = idle.filter(|&lat| lat < min_exit_latency) {
                    min_exit_latency = lat;
                    latest_stamp = stamp;
                    shallowest = Some(i);
                } else if idle.is_none_or(|lat| lat == min_exit_latency) && stamp > latest_stamp {
                    latest_stamp = stamp;
                    shallowest = Some(i);
                }
            } else if shallowest.is_none() {
                let load = self.cpu_load(i);
                if least_loaded.is_none_or(|(l, _)| load < l) {
                    least_loaded = Some((load, i));
                }
            }
        }
        shallowest
            .or(least_loaded.map(|(_, c)| c))
            .unwrap_or(this_cpu)
    }

    /// v4.9 `find_idlest_group()`: the least capacity-scaled runnable load, unless the local group
    /// is within half the imbalance_pct of it.
    fn find_idlest_group_load(&self, d: usize, p: TaskId, this_cpu: usize) -> Option<usize> {
        let dom = &self.sd.domains[d];
        let allowed = self.tasks[p].allowed;
        let imbalance = 100 + (dom.imbalance_pct as u64 - 100) / 2;
        let local_group = dom.local_group(this_cpu);
        let (mut this_load, mut min_load, mut idlest) = (0u64, u64::MAX, None);
        for g in dom.groups_from(this_cpu) {
            let group = &dom.groups[g];
            if !group.span.intersects(&allowed) {
                continue;
            }
            let load: u64 = group.span.iter().map(|i| self.cpu_runnable_load(i)).sum();
            let avg_load = load * 1024 / group.capacity.max(1);
            if g == local_group {
                this_load = avg_load;
            } else if avg_load < min_load {
                min_load = avg_load;
                idlest = Some(g);
            }
        }
        let idlest = idlest?;
        if 100 * this_load < imbalance * min_load {
            return None;
        }
        Some(idlest)
    }

    /// v4.10-v5.4 `find_idlest_group()` (spare capacity, then runnable and blocked load), in its
    /// v4.15+ form: the local loads start at ULONG_MAX (v4.10 started them at 0, which only differs
    /// when the task may not run in the local group).
    fn find_idlest_group_spare(
        &self,
        d: usize,
        p: TaskId,
        this_cpu: usize,
        sd_flag: u32,
    ) -> Option<usize> {
        let dom = &self.sd.domains[d];
        let allowed = self.tasks[p].allowed;
        let imbalance_scale = 100 + (dom.imbalance_pct as u64 - 100) / 2;
        let imbalance = super::NICE_0_LOAD * (dom.imbalance_pct as u64 - 100) / 100;
        let local_group = dom.local_group(this_cpu);
        let (mut min_runnable_load, mut min_avg_load) = (u64::MAX, u64::MAX);
        let (mut this_runnable_load, mut this_avg_load) = (u64::MAX, u64::MAX);
        let (mut most_spare, mut this_spare) = (0u64, 0u64);
        let (mut idlest, mut most_spare_sg) = (None, None);
        for g in dom.groups_from(this_cpu) {
            let group = &dom.groups[g];
            if !group.span.intersects(&allowed) {
                continue;
            }
            let (mut runnable_load, mut avg_load, mut max_spare_cap) = (0u64, 0u64, 0u64);
            for i in group.span.iter() {
                runnable_load += self.cpu_runnable_load(i);
                avg_load += self.cpu_load(i);
                // capacity_spare_wake()
                let spare = self
                    .capacity_of(i)
                    .saturating_sub(self.cpu_util_without(i, p));
                max_spare_cap = max_spare_cap.max(spare);
            }
            let cap = group.capacity.max(1);
            let (avg_load, runnable_load) = (avg_load * 1024 / cap, runnable_load * 1024 / cap);
            if g == local_group {
                this_runnable_load = runnable_load;
                this_avg_load = avg_load;
                this_spare = max_spare_cap;
            } else {
                if min_runnable_load > runnable_load.saturating_add(imbalance) {
                    min_runnable_load = runnable_load;
                    min_avg_load = avg_load;
                    idlest = Some(g);
                } else if runnable_load < min_runnable_load.saturating_add(imbalance)
                    // The products in 128 bits, as math64 forms them: exact whatever the loads,
                    // and on wasm32 without compiler-rt's `__multi3` (5% of V8's instructions on
                    // cascadelake-fi-gitsource, whose forks and execs take this slow path).
                    && mul_u64_u64_wide(100, min_avg_load)
                        > mul_u64_u64_wide(imbalance_scale, avg_load)
                {
                    min_avg_load = avg_load;
                    idlest = Some(g);
                }
                if most_spare < max_spare_cap {
                    most_spare = max_spare_cap;
                    most_spare_sg = Some(g);
                }
            }
        }
        // Mainline skips spare capacity for fork: the new task's utilization is not set yet.
        if sd_flag & SD_BALANCE_FORK == 0 || self.config.find_idlest_spare_at_fork {
            let util = self.task_util(p);
            if this_spare > util / 2 && imbalance_scale * this_spare > 100 * most_spare {
                return None;
            }
            if most_spare > util / 2 {
                return most_spare_sg;
            }
        }
        let idlest = idlest?;
        if self.config.find_idlest_spare_numa
            && dom.has(SD_NUMA)
            && min_runnable_load.saturating_add(imbalance) >= this_runnable_load
        {
            return None;
        }
        if min_runnable_load > this_runnable_load.saturating_add(imbalance) {
            return None;
        }
        if this_runnable_load < min_runnable_load.saturating_add(imbalance)
            && mul_u64_u64_wide(100, this_avg_load)
                < mul_u64_u64_wide(imbalance_scale, min_avg_load)
        {
            return None;
        }
        Some(idlest)
    }

    /// `update_sg_wakeup_stats()`: group statistics as if `p` were not on any of its CPUs.
    ///
    /// Misfit: v6.8 marks the group unless some CPU of it fits the task; v5.6 tests the group's
    /// `max_capacity`. Without rt/irq pressure (`capacity_of()` = `capacity_orig`) both say the
    /// same. avg_load: see [`crate::kernel::KernelConfig::sg_wakeup_avg_load_busy`].
    fn sg_wakeup_stats(&self, d: usize, group: usize, p: TaskId) -> SgStats {
        let dom = &self.sd.domains[d];
        let g = &dom.groups[group];
        let mut s = SgStats::default();
        let asym = dom.has(SD_ASYM_CPUCAPACITY);
        let mut fits_some = false;
        for i in g.span.iter() {
            s.group_load += self.cpu_load_without(i, p);
            s.group_util += self.cpu_util_without(i, p);
            s.group_runnable += self.cpu_runnable_without(i, p);
            let local = usize::from(self.rqs[i].curr == Some(p));
            let nr = self.rqs[i].nr_running - local;
            s.sum_h_nr_running += nr;
            s.sum_nr_running += nr;
            if nr == 0 && self.rqs[i].curr.is_none_or(|c| c == p) {
                s.idle_cpus += 1;
            }
            if asym && !fits_some && self.task_fits_cpu(p, i) {
                fits_some = true;
            }
        }
        if asym && !fits_some {
            s.group_misfit_task_load = 1;
        }
        s.group_capacity = g.capacity;
        s.group_weight = g.weight;
        s.group_imbalanced = self.group_imbalance[d][group];
        s.group_type = group_classify(dom.imbalance_pct as u64, &s, self.config.lb_group_runnable);
        let busy = matches!(s.group_type, GroupType::FullyBusy | GroupType::Overloaded);
        // v5.7+ computes avg_load of busy groups; v5.5-v5.6 tests `group_type < group_fully_busy`.
        if busy == self.config.sg_wakeup_avg_load_busy {
            s.avg_load = s.group_load * 1024 / s.group_capacity.max(1);
        }
        s
    }

    /// `update_pick_idlest()`.
    fn update_pick_idlest(
        &self,
        d: usize,
        idlest: usize,
        idlest_sgs: &SgStats,
        group: usize,
        sgs: &SgStats,
    ) -> bool {
        if sgs.group_type != idlest_sgs.group_type {
            return sgs.group_type < idlest_sgs.group_type;
        }
        let groups = &self.sd.domains[d].groups;
        match sgs.group_type {
            GroupType::Overloaded | GroupType::FullyBusy => idlest_sgs.avg_load > sgs.avg_load,
            // group_other is the legacy balancer's; v5.5+ classification never gives it.
            GroupType::Other
            | GroupType::Imbalanced
            | GroupType::AsymPacking
            | GroupType::SmtBalance => false,
            GroupType::MisfitTask => groups[idlest].max_capacity < groups[group].max_capacity,
            GroupType::HasSpare if self.config.pick_idlest_util_tiebreak => {
                !(idlest_sgs.idle_cpus > sgs.idle_cpus
                    || (idlest_sgs.idle_cpus == sgs.idle_cpus
                        && idlest_sgs.group_util <= sgs.group_util))
            }
            GroupType::HasSpare => idlest_sgs.idle_cpus < sgs.idle_cpus,
        }
    }

    /// `find_idlest_group()` (v5.5+): classify groups as the load balancer does; keep the local
    /// group unless another is clearly better. Busy groups across NUMA nodes also stay local
    /// unless the remote node is lighter by more than the load imbalance (v5.5-v6.8); the era
    /// switches `sg_wakeup_avg_load_busy` (v5.7), `pick_idlest_util_tiebreak` (by v5.10) and
    /// [`NumaImbalance`] decide the rest. (CONFIG_NUMA_BALANCING's `numa_preferred_nid` steps are
    /// not modelled.)
    fn find_idlest_group(&self, d: usize, p: TaskId, this_cpu: usize) -> Option<usize> {
        let dom = &self.sd.domains[d];
        let allowed = self.tasks[p].allowed;
        let local_group = dom.local_group(this_cpu);
        let mut local = None;
        let mut idlest: Option<(usize, SgStats)> = None;
        for g in dom.groups_from(this_cpu) {
            if !dom.groups[g].span.intersects(&allowed) {
                continue;
            }
            let sgs = self.sg_wakeup_stats(d, g, p);
            if g == local_group {
                local = Some(sgs);
                continue;
            }
            let better = match &idlest {
                None => true,
                Some((ig, isgs)) => self.update_pick_idlest(d, *ig, isgs, g, &sgs),
            };
            if better {
                idlest = Some((g, sgs));
            }
        }
        let (idlest, idlest_sgs) = idlest?;
        let Some(local_sgs) = local else {
            return Some(idlest);
        };
        if local_sgs.group_type < idlest_sgs.group_type {
            return None;
        }
        if local_sgs.group_type > idlest_sgs.group_type {
            return Some(idlest);
        }
        match local_sgs.group_type {
            GroupType::Overloaded | GroupType::FullyBusy => {
                let imbalance = super::NICE_0_LOAD * (dom.imbalance_pct as u64 - 100) / 100;
                // v5.5+ (v5.6 fair.c:8482, v6.8 :10397): across nodes, the remote node must be
                // lighter by more than `imbalance`, else stay local.
                if dom.has(SD_NUMA) && idlest_sgs.avg_load + imbalance >= local_sgs.avg_load {
                    return None;
                }
                if idlest_sgs.avg_load >= local_sgs.avg_load + imbalance {
                    return None;
                }
                if 100 * local_sgs.avg_load <= dom.imbalance_pct as u64 * idlest_sgs.avg_load {
                    return None;
                }
            }
            GroupType::Other
            | GroupType::Imbalanced
            | GroupType::AsymPacking
            | GroupType::SmtBalance => return None,
            GroupType::MisfitTask => {
                if dom.groups[local_group].max_capacity >= dom.groups[idlest].max_capacity {
                    return None;
                }
            }
            GroupType::HasSpare => {
                // Keep the task near its waker or parent while the node may stay imbalanced;
                // periodic balancing moves it if there is a real need.
                if dom.has(SD_NUMA) {
                    let stay = match self.config.numa_imbalance {
                        NumaImbalance::None => false,
                        NumaImbalance::LocalIdle => local_sgs.idle_cpus > 0,
                        // v6.8: !adjust_numa_imbalance(|idle diff|, local nr + 1, imb_numa_nr),
                        // imb_numa_nr capped by the task's allowed CPUs of the local node
                        // (`p->nr_cpus_allowed != NR_CPUS` holds for any real task).
                        NumaImbalance::ImbNumaNr => {
                            let local_allowed = dom.groups[local_group].span.and(&allowed).weight();
                            let imb_numa_nr = (dom.imb_numa_nr as usize).min(local_allowed);
                            let idle_diff = local_sgs.idle_cpus.abs_diff(idlest_sgs.idle_cpus);
                            let dst_running = local_sgs.sum_nr_running + 1;
                            let adjusted = if dst_running > imb_numa_nr || idle_diff > 2 {
                                idle_diff
                            } else {
                                0
                            };
                            adjusted == 0
                        }
                    };
                    if stay {
                        return None;
                    }
                }
                if local_sgs.idle_cpus >= idlest_sgs.idle_cpus {
                    return None;
                }
            }
        }
        Some(idlest)
    }
}

/// `fits_capacity()`: util fits in ~80% of the capacity (`util * 1280 < cap * 1024`).
pub fn fits_capacity(util: u64, capacity: u64) -> bool {
    util * 1280 < capacity * 1024
}
