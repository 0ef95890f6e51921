//! The wake-up fast path's search for an idle CPU: `select_idle_sibling()` and its helpers
//! (`select_idle_core()`, `select_idle_cpu()`, `select_idle_smt()`, `select_idle_capacity()`), the
//! LLC-wide hints they read (`sd_llc_shared->has_idle_cores`, `->nr_idle_scan`,
//! `sd_llc->avg_scan_cost`) and the code that keeps those hints: `update_idle_core()` when a CPU
//! goes idle, `update_idle_cpu_scan()` from the periodic LLC balance.
//!
//! Eras ([`crate::kernel::KernelConfig`]): the scan limit ([`SisScan`]: none in v4.9, SIS_PROP
//! v4.13-v5.18, SIS_UTIL v6.0+), the shape of the core/SMT search ([`SisCoreScan`]: v4.9-v5.11
//! separate `select_idle_core()`/`select_idle_cpu()`/`select_idle_smt()`, v5.12+ merged) and
//! `recent_used_cpu` ([`RecentUsedCpu`]).
//!
//! Simplifications: `sched_idle_cpu()` (SCHED_IDLE tasks) and core scheduling cookies do not exist
//! in the model; there are no clusters (`sched_cluster_active` is off on every preset, so v6.8's
//! `prev_aff`/`cpus_share_resources()` steps do nothing); the per-cpu-kthread stacking rule
//! (v5.6+; not in v4.16) never applies (no kthreads); the scan counts only the task's allowed CPUs
//! (v5.x; v4.16 also counted the disallowed ones against SIS_PROP's limit); the cost of a scan is
//! a fixed cost per CPU visited ([`crate::kernel::KernelConfig::sis_scan_cost_per_cpu_ns`],
//! **[assumed]**), where the kernel times it with `cpu_clock()`.

use super::{TaskId, World};
use crate::kernel::{RecentUsedCpu, SisCoreScan, SisScan};

/// One LLC's `struct sched_domain_shared` and its LLC domain's `avg_scan_cost`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LlcShared {
    /// `has_idle_cores`: some core of the LLC may be wholly idle. Set by `update_idle_core()`,
    /// cleared by a `select_idle_core()` scan that found none.
    pub has_idle_cores: bool,
    /// `nr_idle_scan` (SIS_UTIL, v6.0+): how many CPUs `select_idle_cpu()` may visit.
    pub nr_idle_scan: usize,
    /// `sd_llc->avg_scan_cost` (ns; SIS_PROP): EWMA (1/8) of the cost of completed scans.
    pub avg_scan_cost: u64,
}

impl LlcShared {
    /// The state a machine that has sat idle leaves: every core idle (so `update_idle_core()` set
    /// the hint wherever there is SMT), the last periodic balance of an idle LLC allowing a scan
    /// of every CPU (`update_idle_cpu_scan()` with zero utilization), and no scan timed yet (the
    /// domain is allocated zeroed).
    pub fn idle_machine(llc_weight: usize, smt: bool) -> LlcShared {
        LlcShared {
            has_idle_cores: smt,
            nr_idle_scan: llc_weight,
            avg_scan_cost: 0,
        }
    }
}

impl World {
    fn llc_of(&self, cpu: usize) -> usize {
        self.sd.llc_id[cpu]
    }

    /// `test_idle_cores()`.
    pub fn test_idle_cores(&self, cpu: usize) -> bool {
        self.sd.sd_llc[cpu].is_some() && self.llc_shared[self.llc_of(cpu)].has_idle_cores
    }

    /// `set_idle_cores()`.
    fn set_idle_cores(&mut self, cpu: usize, val: bool) {
        if self.sd.sd_llc[cpu].is_some() {
            let id = self.llc_of(cpu);
            self.llc_shared[id].has_idle_cores = val;
        }
    }

    /// `update_idle_core()` (v4.9+; `__update_idle_core()` in v5.x+): `cpu` has just gone idle
    /// (`pick_next_task_idle()`); if every SMT sibling is idle too, set `has_idle_cores`. Only
    /// with SMT (`sched_smt_present`).
    pub fn update_idle_core(&mut self, cpu: usize) {
        if !self.smt_active || self.sd.sd_llc[cpu].is_none() || self.test_idle_cores(cpu) {
            return;
        }
        if self.idle_cores.whole.test(cpu) {
            self.set_idle_cores(cpu, true);
        }
    }

    /// `asym_fits_cpu()` (v6.0+; `asym_fits_capacity()` v5.10+): under asymmetric capacity, does
    /// the task fit.
    fn asym_fits_cpu(&self, p: TaskId, cpu: usize) -> bool {
        if !self.config.sis_asym_capacity || self.sd.sd_asym_cpucapacity[cpu].is_none() {
            return true;
        }
        // v6.2+: util_fits_cpu(util, util_min, util_max, cpu) > 0.
        self.task_fits_cpu(p, cpu)
    }

    /// `select_idle_sibling()`: target if idle, else prev if it shares the LLC and is idle, else
    /// `p->recent_used_cpu` on the same terms (v4.16+); then `select_idle_capacity()` under
    /// asymmetric capacity (v5.7+), or an idle core, CPU or SMT sibling in target's LLC as the
    /// era searches for them; else target. `this_cpu` is the CPU the wake-up runs on (the
    /// waker's, or prev for a timer): SIS_PROP reads its `avg_idle` and its LLC's scan cost.
    pub fn select_idle_sibling(
        &mut self,
        p: TaskId,
        prev: usize,
        target: usize,
        this_cpu: usize,
    ) -> usize {
        let allowed = self.tasks[p].allowed;
        if self.idle_cpu(target) && self.asym_fits_cpu(p, target) {
            return target;
        }
        if prev != target
            && self.sd.cpus_share_cache(prev, target)
            && self.idle_cpu(prev)
            && self.asym_fits_cpu(p, prev)
        {
            return prev;
        }
        let recent = self.tasks[p].recent_used_cpu;
        let mode = self.config.sis_recent_used_cpu;
        if mode == RecentUsedCpu::Prev {
            self.tasks[p].recent_used_cpu = prev;
        }
        if mode != RecentUsedCpu::Off
            && recent != prev
            && recent != target
            && self.sd.cpus_share_cache(recent, target)
            && self.idle_cpu(recent)
            && allowed.test(recent)
            && self.asym_fits_cpu(p, recent)
        {
            // v4.16-v5.12 replace the candidate with prev only when it is used.
            self.tasks[p].recent_used_cpu = prev;
            return recent;
        }
        if let Some(d) =
            self.sd.sd_asym_cpucapacity[target].filter(|_| self.config.sis_asym_capacity)
        {
            return self.select_idle_capacity(p, d, target);
        }
        let Some(llc) = self.sd.sd_llc[target] else {
            return target;
        };
        let found = match self.config.sis_core_scan {
            SisCoreScan::Separate => self
                .select_idle_core(p, llc, target)
                .or_else(|| self.select_idle_cpu(p, llc, target, this_cpu, false))
                .or_else(|| self.select_idle_smt(p, target)),
            SisCoreScan::Merged => {
                let mut has_idle_core = false;
                let mut smt = None;
                if self.smt_active {
                    has_idle_core = self.test_idle_cores(target);
                    if !has_idle_core && self.sd.cpus_share_cache(prev, target) {
                        smt = self.select_idle_smt(p, prev);
                    }
                }
                smt.or_else(|| self.select_idle_cpu(p, llc, target, this_cpu, has_idle_core))
            }
        };
        found.unwrap_or(target)
    }

    /// v4.9-v5.11 `select_idle_core()`: while `has_idle_cores` is set, the first core of the LLC
    /// (from target) whose SMT siblings are all idle; a scan that finds none clears the hint.
    pub(super) fn select_idle_core(
        &mut self,
        p: TaskId,
        llc: usize,
        target: usize,
    ) -> Option<usize> {
        if !self.smt_active || !self.test_idle_cores(target) {
            return None;
        }
        let cpus = self.sd.domains[llc].span.and(&self.tasks[p].allowed);
        // The walk by cores from target, in word operations (`first_idle_core_wrap()`).
        let found = self.first_idle_core_wrap(&cpus, target);
        if found.is_none() {
            self.set_idle_cores(target, false);
        }
        found
    }

    /// `select_idle_smt()`: an idle, allowed SMT sibling of `cpu` (target's in v4.9-v5.11, prev's
    /// in v5.12+).
    fn select_idle_smt(&self, p: TaskId, cpu: usize) -> Option<usize> {
        if !self.smt_active {
            return None;
        }
        // The lowest idle allowed sibling, in word operations.
        let mut siblings = self.topo.cores[self.topo.cpus[cpu].core]
            .and(&self.tasks[p].allowed)
            .and(&self.idle_mask);
        siblings.clear(cpu);
        siblings.first()
    }

    /// SIS_PROP's limit: `max(4, span_weight * (avg_idle / 512) / (avg_scan_cost + 1))`.
    fn sis_prop_nr(&self, llc: usize, this_cpu: usize) -> usize {
        let avg_idle = self.rqs[this_cpu].avg_idle / 512;
        let avg_cost = self.llc_shared[self.llc_of(this_cpu)].avg_scan_cost + 1;
        let span_avg = self.sd.domains[llc].span_weight as u64 * avg_idle;
        if span_avg > 4 * avg_cost {
            (span_avg / avg_cost) as usize
        } else {
            4
        }
    }

    /// `select_idle_cpu()`: scan target's LLC for an idle CPU, as far as the era's limit allows.
    ///
    /// v4.9-v5.11 (`has_idle_core` is always false here): from target, at most `nr - 1` CPUs
    /// (`if (!--nr) return -1`); a scan that ran to its end (found a CPU or visited all) feeds
    /// `avg_scan_cost += (cost - avg_scan_cost) / 8`. v5.12+: while `has_idle_core`, whole cores
    /// without limit (`select_idle_core()` per core, remembering the first idle allowed CPU; none
    /// found clears the hint), else single CPUs while `--nr > 0`; from target + 1.
    pub(super) fn select_idle_cpu(
        &mut self,
        p: TaskId,
        llc: usize,
        target: usize,
        this_cpu: usize,
        has_idle_core: bool,
    ) -> Option<usize> {
        let merged = self.config.sis_core_scan == SisCoreScan::Merged;
        let mut nr = usize::MAX;
        match self.config.sis_scan {
            SisScan::Full => {}
            SisScan::Prop if merged && has_idle_core => {}
            SisScan::Prop => nr = self.sis_prop_nr(llc, this_cpu),
            SisScan::Util => {
                // "because !--nr is the condition to stop scan"
                nr = self.llc_shared[self.llc_of(target)].nr_idle_scan + 1;
                if nr == 1 {
                    return None;
                }
            }
        }
        let span = self.sd.domains[llc].span;
        let cpus = span.and(&self.tasks[p].allowed);
        let start = if merged { target + 1 } else { target };
        let (visited, idle_cpu) = if !has_idle_core {
            // The single-CPU scan in word operations: the scan visits `cpus` in
            // `for_each_cpu_wrap()` order and stops at the first idle one (the k-th visited) or
            // after all of them; `--nr` reaching 0 at a visit no later than that one ends it
            // with -1, untimed. Same outcome, same count of visits, as the loop CPU by CPU.
            let found = cpus.and(&self.idle_mask).next_wrap(start);
            let k = match found {
                Some(cpu) => cpus.weight_wrap_before(start, cpu) + 1,
                None => cpus.weight(),
            };
            if k > 0 && nr <= k {
                return None;
            }
            (k as u64, found)
        } else {
            // select_idle_core(p, cpu, cpus, &idle_cpu) on each core from start, in word
            // operations: the first wholly idle core's visited CPU, else the first idle allowed
            // sibling found on the way. This scan is never timed.
            if let Some(cpu) = self.first_idle_core_wrap(&cpus, start) {
                return Some(cpu);
            }
            let idle_cpu = self.first_idle_smt_wrap(&cpus, &self.tasks[p].allowed, start);
            self.set_idle_cores(target, false);
            (0, idle_cpu)
        };
        let timed = match self.config.sis_scan {
            SisScan::Full => !merged,
            SisScan::Prop => !has_idle_core,
            SisScan::Util => false,
        };
        if timed {
            let cost = visited * self.config.sis_scan_cost_per_cpu_ns;
            let id = self.llc_of(this_cpu);
            let avg = &mut self.llc_shared[id].avg_scan_cost;
            // v4.9-v5.11: delta = (s64)(time - cost) / 8 (truncating); v5.12+ update_avg() (>> 3).
            let diff = cost as i64 - *avg as i64;
            let delta = if merged { diff >> 3 } else { diff / 8 };
            *avg = (*avg as i64 + delta).max(0) as u64;
        }
        idle_cpu
    }

    /// `select_idle_capacity()` (v5.7+): the first idle CPU from target where the task fits, else the
    /// idle CPU with the most capacity (v5.7-v6.1: `fits_capacity(uclamp_task_util(p))`). v6.2+
    /// with `util_fits_cpu()`: the first CPU that fits in full; else, among the CPUs where only
    /// uclamp_min misses (-1, ranked by `arch_scale_cpu_capacity()`: no thermal load in the
    /// model), the biggest, and only then the one with most `capacity_of()` among the rest.
    fn select_idle_capacity(&self, p: TaskId, sd: usize, target: usize) -> usize {
        let span = self.sd.domains[sd].span.and(&self.tasks[p].allowed);
        let mut best_cap = 0;
        let mut best_fits = 0;
        let mut best_cpu = None;
        for cpu in span.iter_wrap(target) {
            if !self.idle_cpu(cpu) {
                continue;
            }
            let mut cap = self.capacity_of(cpu);
            let fits = self.task_util_fits_cpu(p, cpu);
            if fits > 0 {
                return cpu;
            } else if fits < 0 {
                cap = self.arch_scale_cpu_capacity(cpu);
            }
            if fits < best_fits || (fits == best_fits && cap > best_cap) {
                best_cap = cap;
                best_cpu = Some(cpu);
                best_fits = fits;
            }
        }
        best_cpu.unwrap_or(target)
    }

    /// `update_idle_cpu_scan()` (SIS_UTIL, v6.0+), called at the end of `update_sd_lb_stats()`:
    /// on a periodic (not newly idle) balance of an LLC domain, the number of CPUs the next
    /// wake-ups may scan falls with the square of the LLC's utilization,
    /// `nr_idle_scan = llc_weight * (1024 - min(1024, x^2 * pct^2 / (10000 * 1024))) / 1024` with
    /// `x = sum_util / llc_weight`, reaching 0 at `x = 100 / imbalance_pct` (85% at pct 117).
    /// `sum_util` is the sum of the groups' `group_util`, i.e. of `cpu_util()` over the span.
    // Inlined into both callers (update_sd_lb_stats() and the idle-span shortcut): out of line,
    // its call on every balance pass cost bench-tbench-96 0.3% more instructions (callgrind).
    #[inline(always)]
    pub(crate) fn update_idle_cpu_scan(&mut self, env: &super::balance::LbEnv) {
        if self.config.sis_scan != SisScan::Util
            || env.idle == super::balance::CpuIdleType::NewlyIdle
        {
            return;
        }
        let llc_weight = self.sd.llc_size[env.dst_cpu];
        let dom = &self.sd.domains[env.sd];
        if dom.span_weight != llc_weight || self.sd.sd_llc[env.dst_cpu].is_none() {
            return;
        }
        let sum_util: u64 = dom.span.iter().map(|i| self.cpu_util(i)).sum();
        let x = sum_util / llc_weight as u64;
        let pct = dom.imbalance_pct as u64;
        let tmp = (x * x * pct * pct / (10_000 * 1024)).min(1024);
        let y = (1024 - tmp) * llc_weight as u64 / 1024;
        let id = self.llc_of(env.dst_cpu);
        self.llc_shared[id].nr_idle_scan = y as usize;
    }
}
