//! Energy-aware scheduling (kernel/sched/fair.c, topology.c, v5.0+), in the form each era's
//! [`crate::kernel::Eas`] names:
//!
//! - `build_perf_domains()` (topology.c, v5.0-v6.8): EAS runs only when every CPU has an
//!   SD_ASYM_CPUCAPACITY domain, every cpufreq policy runs schedutil and has an energy model
//!   (`pd_init()`), and `nr_pd * (nr_ps + nr_cpus) <= EM_MAX_COMPLEXITY` (2048); otherwise
//!   `rd->pd` stays empty and [`EasOff`] says which check failed (the kernel's `pr_info`/`pr_warn`).
//!   `sysctl_sched_energy_aware` (v5.2+, default 1) is taken as on; the `sched_smt_active()` check
//!   of later kernels is not modelled (no preset with an energy model has SMT).
//! - The root domain's `overutilized` flag: `cpu_overutilized()` is `!fits_capacity(cpu_util(cpu),
//!   capacity_of(cpu))` (v5.4+; v5.0-v5.3 `capacity_of * 1024 < cpu_util * capacity_margin`;
//!   v6.2+ `!util_fits_cpu()` with the rq's uclamp hints), set by
//!   `update_overutilized_status()` at a (non-new) enqueue and at the tick, and written by the
//!   load balancer's `update_sd_lb_stats()` (refreshed at the root domain, only ever set below it).
//!   It gates `find_busiest_group()` (an EAS system balances only while overutilized) and the
//!   wake-up (`find_energy_efficient_cpu()` gives up while overutilized).
//! - `find_energy_efficient_cpu()` with `compute_energy()` per era (see [`crate::kernel::Eas`]).
//!
//! - uclamp (v5.3+, [`super::uclamp`]): the max utilization of the energy estimate is clamped
//!   (`compute_energy()` per era), feec's candidates are filtered and ranked with the task's and
//!   the rq's hints ([`World::feec_fits`]), `cpu_overutilized()` reads the rq's hints (v6.2+).
//!
//! Left out: thermal pressure, RT/DL/IRQ utilization (none in the model), the v6.7+ runnable
//! boost of `cpu_util(..., boost)`.

use super::log::{EasLog, EasPdLog};
use super::uclamp::{UCLAMP_MAX, UCLAMP_MIN};
use super::{TaskId, World};
use crate::cpumask::CpuMask;
use crate::domains::SchedDomains;
use crate::kernel::{Eas, Governor, KernelConfig, UtilFits};
use crate::power::em::{em_register, EmPerfDomain};
use crate::topology::Topology;
use serde::{Deserialize, Serialize};

/// `EM_MAX_COMPLEXITY` (topology.c).
pub const EM_MAX_COMPLEXITY: usize = 2048;

/// Why `build_perf_domains()` left EAS off.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum EasOff {
    /// The kernel has no EAS (before v5.0: [`Eas::None`]).
    NotInKernel,
    /// "CPUs do not have asymmetric capacities": a CPU without an SD_ASYM_CPUCAPACITY domain.
    NotAsymmetric { cpu: usize },
    /// "Disabling EAS, schedutil is mandatory".
    NotSchedutil,
    /// "no EM found for CPU%d" (`pd_init()`): the CPU's cluster has no energy model.
    NoEnergyModel { cpu: usize },
    /// "Failed to start EAS, EM complexity is too high".
    TooComplex {
        nr_pd: usize,
        nr_ps: usize,
        nr_cpus: usize,
    },
}

impl EasOff {
    pub fn describe(&self) -> String {
        match self {
            EasOff::NotInKernel => "EAS off: the kernel has none (before v5.0)".into(),
            EasOff::NotAsymmetric { cpu } => format!(
                "EAS off: CPUs do not have asymmetric capacities (CPU{cpu} has no SD_ASYM_CPUCAPACITY domain)"
            ),
            EasOff::NotSchedutil => "EAS off: schedutil is mandatory".into(),
            EasOff::NoEnergyModel { cpu } => format!("EAS off: no EM found for CPU{cpu}"),
            EasOff::TooComplex {
                nr_pd,
                nr_ps,
                nr_cpus,
            } => format!(
                "EAS off: EM complexity is too high ({nr_pd} x ({nr_ps} + {nr_cpus}) > {EM_MAX_COMPLEXITY})"
            ),
        }
    }
}

/// `build_perf_domains()` (topology.c, v5.0-v6.8): one perf domain per cpufreq policy, each
/// with its energy model, or why EAS is off. `arch_capacity` is `arch_scale_cpu_capacity()` per
/// CPU (the EM's `scale_cpu`).
pub fn build_perf_domains(
    topo: &Topology,
    sd: &SchedDomains,
    config: &KernelConfig,
    arch_capacity: &[u64],
) -> Result<Vec<EmPerfDomain>, EasOff> {
    if config.eas == Eas::None {
        return Err(EasOff::NotInKernel);
    }
    let n = topo.nr_cpus();
    if let Some(cpu) = (0..n).find(|&c| sd.sd_asym_cpucapacity[c].is_none()) {
        return Err(EasOff::NotAsymmetric { cpu });
    }
    let mut pds: Vec<EmPerfDomain> = Vec::new();
    let mut nr_ps = 0;
    for cpu in 0..n {
        if pds.iter().any(|pd| pd.cpus.test(cpu)) {
            continue;
        }
        if config.governor != Governor::Schedutil {
            return Err(EasOff::NotSchedutil);
        }
        let policy = &topo.policies[topo.cpus[cpu].policy];
        let fd = &topo.freq_domains[policy.clock];
        let power = &topo.spec.clusters[topo.cpus[cpu].cluster].power;
        let first = policy.cpus.first().unwrap_or(cpu);
        let Some(pd) = em_register(
            power,
            &fd.opps_khz,
            policy.cpus,
            arch_capacity[first],
            config.em_power_uw,
        ) else {
            return Err(EasOff::NoEnergyModel { cpu });
        };
        nr_ps += pd.nr_perf_states();
        pds.push(pd);
    }
    if pds.len() * (nr_ps + n) > EM_MAX_COMPLEXITY {
        return Err(EasOff::TooComplex {
            nr_pd: pds.len(),
            nr_ps,
            nr_cpus: n,
        });
    }
    Ok(pds)
}

/// `struct energy_env` (v6.0+).
#[derive(Clone, Copy)]
struct EnergyEnv {
    task_busy_time: u64,
    pd_busy_time: u64,
    pd_cap: u64,
    cpu_cap: u64,
}

/// The best candidate so far in the v6.0+ comparison.
struct Best {
    cpu: usize,
    delta: u64,
    fits: i32,
    /// `best_thermal_cap`: the perf domain's `arch_scale_cpu_capacity()`.
    thermal_cap: u64,
}

impl World {
    /// `sched_energy_enabled()` with `rd->pd` set: EAS runs on this root domain.
    pub fn sched_energy_enabled(&self) -> bool {
        !self.pd.is_empty()
    }

    /// The era's fit test of feec and `cpu_overutilized()`: v5.0-v5.3 `!(cap * 1024 < util *
    /// capacity_margin)`, v5.4+ `fits_capacity()` (`util * 1280 < cap * 1024`; v6.2+
    /// `util_fits_cpu()` without uclamp).
    fn eas_fits(&self, util: u64, cap: u64) -> bool {
        if self.config.eas == Eas::TotalEnergy {
            cap * 1024 >= util * 1280
        } else {
            super::wakeup::fits_capacity(util, cap)
        }
    }

    /// `cpu_overutilized()` (false without EAS, as v6.x returns and as nothing reads it in v5.x);
    /// v6.2+ `!util_fits_cpu(cpu_util_cfs(cpu), rq uclamp_min, rq uclamp_max, cpu)`, so a CPU
    /// capped by uclamp_max, or missing only a boost (-1), is not overutilized.
    pub fn cpu_overutilized(&self, cpu: usize) -> bool {
        if !self.sched_energy_enabled() {
            return false;
        }
        let util = self.cpu_util(cpu);
        if self.config.uclamp && self.config.util_fits == UtilFits::UtilFitsCpu {
            let (lo, hi) = (
                self.uclamp_rq_get(cpu, UCLAMP_MIN),
                self.uclamp_rq_get(cpu, UCLAMP_MAX),
            );
            return self.util_fits_cpu(util, lo, hi, cpu) == 0;
        }
        !self.eas_fits(util, self.capacity_of(cpu))
    }

    /// `update_overutilized_status()`: a (non-new) enqueue or a tick on `cpu`.
    pub fn update_overutilized_status(&mut self, cpu: usize) {
        if self.sched_energy_enabled() && !self.rd_overutilized && self.cpu_overutilized(cpu) {
            self.rd_overutilized = true;
            self.trace_overutilized();
        }
    }

    /// `update_sd_lb_stats()`'s `SG_OVERUTILIZED` (v5.0-v6.8): any CPU of the domain
    /// overutilized; at the root domain the flag is rewritten, below it only set.
    pub(crate) fn lb_update_overutilized(&mut self, span: CpuMask, root: bool) {
        if !self.sched_energy_enabled() {
            return;
        }
        // Below the root only a set can follow: with the flag already set and no trace to write
        // the scan cannot change anything.
        if !root && self.rd_overutilized && self.signals.is_none() {
            return;
        }
        let any = span.iter().any(|c| self.cpu_overutilized(c));
        if root {
            self.rd_overutilized = any;
            self.trace_overutilized();
        } else if any {
            self.rd_overutilized = true;
            self.trace_overutilized();
        }
    }

    /// `find_busiest_group()`'s EAS gate (v5.0-v6.8): with perf domains and the root domain not
    /// overutilized, the domain is balanced.
    pub(crate) fn eas_balanced(&self) -> bool {
        self.sched_energy_enabled() && !self.rd_overutilized
    }

    /// `cpu_util_next()` (v5.0-v6.x; v6.8 `cpu_util(cpu, p, dst_cpu, 0)`): the CPU's utilization
    /// if `p` ran on `dst` (None: nowhere): `p`'s `util_avg` taken off its previous CPU or added to
    /// `dst`, `p`'s util_est added to `dst`'s, capped at `capacity_orig_of()`.
    pub fn cpu_util_next(&self, cpu: usize, p: TaskId, dst: Option<usize>) -> u64 {
        let rq = &self.rqs[cpu];
        let mut util = rq.avg.util_avg;
        let on = self.tasks[p].cpu == cpu;
        if on && dst != Some(cpu) {
            util = util.saturating_sub(self.task_util(p));
        } else if !on && dst == Some(cpu) {
            util += self.task_util(p);
        }
        if self.config.util_est {
            let mut est = rq.util_est_enqueued;
            if dst == Some(cpu) {
                est += self.task_util_est_only(p);
            }
            util = util.max(est);
        }
        util.min(self.capacity_orig_of(cpu))
    }

    /// v5.0-v5.19 `compute_energy(p, dst_cpu, pd)` of one perf domain: per CPU `util =
    /// cpu_util_next()`, `schedutil_cpu_util()` (ENERGY_UTIL for the sum, FREQUENCY_UTIL for the
    /// max) is `min(util, capacity)` without RT/DL/IRQ, the max clamped by uclamp
    /// (`uclamp_rq_util_with(rq, util, tsk)`, `tsk` = p on dst_cpu), then the EM's estimate.
    fn compute_energy_v5(&self, p: TaskId, dst: Option<usize>, pd: usize) -> u64 {
        let em = &self.pd[pd];
        let (mut max_util, mut sum_util) = (0, 0);
        for cpu in em.cpus.iter() {
            let cap = self.arch_scale_cpu_capacity(cpu);
            let util = self.cpu_util_next(cpu, p, dst).min(cap);
            sum_util += util;
            let tsk = (dst == Some(cpu)).then_some(p);
            max_util = max_util.max(self.uclamp_rq_util_with(cpu, util, tsk).min(cap));
        }
        em.energy(
            max_util,
            sum_util,
            em.scale_cpu,
            self.config.em_util_headroom,
        )
    }

    /// v6.0+ `compute_energy(eenv, pd, cpus, p, dst_cpu)`: `eenv_pd_max_util()` (each CPU's
    /// `cpu_util(cpu, p, dst)` capped at its capacity, the max capped at `eenv->cpu_cap`) and the
    /// busy time `pd_busy_time` (+ the task's, capped at `pd_cap`, for a destination). uclamp
    /// enters the max: v6.0-v6.7 `effective_cpu_util(FREQUENCY_UTIL, tsk)` clamps with
    /// `uclamp_rq_util_with(rq, util, tsk)`; v6.8 (`schedutil_util_headroom`) applies
    /// `sugov_effective_cpu_perf()` with the rq's hints raised by tsk's (tsk's max alone on an
    /// idle rq), headroom included, and `em_cpu_energy()` adds none.
    fn compute_energy_eenv(
        &self,
        eenv: &EnergyEnv,
        p: TaskId,
        dst: Option<usize>,
        pd: usize,
    ) -> u64 {
        let EnergyEnv {
            task_busy_time,
            pd_busy_time,
            pd_cap,
            cpu_cap,
        } = *eenv;
        let em = &self.pd[pd];
        let v6_8 = self.config.schedutil_util_headroom;
        let mut max_util = 0;
        for cpu in em.cpus.iter() {
            let cap = self.arch_scale_cpu_capacity(cpu);
            let util = self.cpu_util_next(cpu, p, dst).min(cap);
            let tsk = (dst == Some(cpu)).then_some(p);
            let eff = if v6_8 {
                let (lo, hi) = self.uclamp_sugov_bounds(cpu, tsk);
                (util + (util >> 2)).min(hi).max(lo)
            } else {
                self.uclamp_rq_util_with(cpu, util, tsk).min(cap)
            };
            max_util = max_util.max(eff);
        }
        let max_util = max_util.min(cpu_cap);
        let busy = match dst {
            Some(_) => (pd_busy_time + task_busy_time).min(pd_cap),
            None => pd_busy_time,
        };
        if v6_8 {
            return em.energy_perf(max_util, busy);
        }
        em.energy(max_util, busy, cpu_cap, self.config.em_util_headroom)
    }

    /// `find_energy_efficient_cpu()`: None where the kernel returns -1 (no perf domains,
    /// overutilized, or no SD_ASYM_CPUCAPACITY domain of the waking CPU spans prev_cpu), else the
    /// CPU. `cpu` is the waking CPU (`sd_asym_cpucapacity` is read on it). When the run is traced,
    /// leaves its figures in `eas_log` for the wake-up's decision.
    pub fn find_energy_efficient_cpu(
        &mut self,
        p: TaskId,
        prev_cpu: usize,
        cpu: usize,
    ) -> Option<usize> {
        if !self.sched_energy_enabled() || self.rd_overutilized {
            return None;
        }
        let d0 = self.sd.sd_asym_cpucapacity[cpu]?;
        let levels = &self.sd.per_cpu[cpu];
        let start = levels.iter().position(|&d| d == d0)?;
        let sd = levels[start..]
            .iter()
            .copied()
            .find(|&d| self.sd.domains[d].span.test(prev_cpu))?;
        let span = self.sd.domains[sd].span;
        self.sync_entity_load_avg(p);
        let task_util = self.task_util_est(p);
        let mut log = self.log.as_ref().map(|_| EasLog {
            rule: self.config.eas,
            pds: Vec::with_capacity(self.pd.len()),
            prev: None,
            best: None,
            best_cpu: prev_cpu,
            base_energy: 0,
            margin: None,
            reversed: false,
            fits: None,
            target: prev_cpu,
        });
        // v6.8: `!task_util_est(p) && p_util_min == 0` (v6.2-v6.7 `!uclamp_task_util()`, which
        // differs only for a uclamp_max of 0); before v6.2 `!task_util_est(p)`.
        let boosted = self.config.util_fits == UtilFits::UtilFitsCpu
            && self.uclamp_eff_value(p, UCLAMP_MIN) > 0;
        let target = if task_util == 0 && !boosted {
            prev_cpu
        } else {
            match self.config.eas {
                Eas::None => return None,
                Eas::TotalEnergy | Eas::BaseEnergy => self.feec_v5(p, prev_cpu, span, &mut log),
                Eas::Eenv => self.feec_eenv(p, prev_cpu, span, &mut log),
            }
        };
        if let Some(mut l) = log {
            l.target = target;
            self.eas_log = Some(l);
        }
        Some(target)
    }

    /// v5.0-v5.19: [`Eas::TotalEnergy`] and [`Eas::BaseEnergy`].
    fn feec_v5(
        &self,
        p: TaskId,
        prev_cpu: usize,
        span: CpuMask,
        log: &mut Option<EasLog>,
    ) -> usize {
        let total = self.config.eas == Eas::TotalEnergy;
        let (mut prev_e, mut best_e, mut base_energy) = (u64::MAX, u64::MAX, 0u64);
        let mut best_cpu = prev_cpu;
        // v5.0-v5.3 costs a candidate over every perf domain.
        let all = |s: &World, dst: Option<usize>| -> u64 {
            (0..s.pd.len())
                .map(|pd| s.compute_energy_v5(p, dst, pd))
                .sum()
        };
        for pd in 0..self.pd.len() {
            let base_pd = if total {
                0
            } else {
                self.compute_energy_v5(p, None, pd)
            };
            base_energy += base_pd;
            let (mut max_spare, mut msc) = (0u64, None);
            let mut entry = EasPdLog {
                cpus: self.pd[pd].cpus,
                base: (!total).then_some(base_pd),
                ..EasPdLog::default()
            };
            for c in self.pd[pd].cpus.and(&span).iter() {
                if !self.tasks[p].allowed.test(c) {
                    continue;
                }
                let util = self.cpu_util_next(c, p, Some(c));
                let cap = self.capacity_of(c);
                // v5.6+: "Take uclamp into account to see how much capacity we can get out of
                // the CPU" (the spare capacity stays unclamped).
                let fit_util = if self.config.util_fits == UtilFits::Util {
                    util
                } else {
                    self.uclamp_rq_util_with(c, util, Some(p))
                };
                if !self.eas_fits(fit_util, cap) {
                    continue;
                }
                if c == prev_cpu {
                    prev_e = if total {
                        all(self, Some(prev_cpu))
                    } else {
                        self.compute_energy_v5(p, Some(prev_cpu), pd)
                            .wrapping_sub(base_pd)
                    };
                    best_e = best_e.min(prev_e);
                    entry.prev = Some(prev_e);
                    entry.prev_spare = Some(cap - util);
                    if total {
                        // v5.0-v5.3: prev is not a max-spare candidate.
                        continue;
                    }
                }
                let spare = cap - util;
                if spare > max_spare {
                    max_spare = spare;
                    msc = Some(c);
                }
            }
            if let Some(m) = msc.filter(|&m| m != prev_cpu) {
                let cur = if total {
                    all(self, Some(m))
                } else {
                    self.compute_energy_v5(p, Some(m), pd).wrapping_sub(base_pd)
                };
                entry.candidate = Some((m, max_spare, cur));
                if cur < best_e {
                    best_e = cur;
                    best_cpu = m;
                }
            }
            if let Some(l) = log {
                l.pds.push(entry);
            }
        }
        let margin = if total {
            prev_e >> 4
        } else {
            prev_e.wrapping_add(base_energy) >> 4
        };
        if let Some(l) = log {
            l.prev = (prev_e != u64::MAX).then_some(prev_e);
            l.best = (best_e != u64::MAX).then_some(best_e);
            l.best_cpu = best_cpu;
            l.base_energy = base_energy;
            l.margin = (prev_e != u64::MAX).then_some(margin);
        }
        // Pick the best CPU if prev_cpu cannot be used, or if it saves at least 6% of the
        // energy used by prev_cpu.
        if prev_e == u64::MAX || prev_e - best_e > margin {
            best_cpu
        } else {
            prev_cpu
        }
    }

    /// feec's candidate test: v6.2+ `util_fits_cpu(util, util_min, util_max, cpu)` with the
    /// task's hints max-aggregated with the rq's unless the rq is idle (`uclamp_rq_util_with()`
    /// open-coded without the clamp); v5.6-v6.1 `fits_capacity(uclamp_rq_util_with(rq, util,
    /// p), capacity_of)`; before, `fits_capacity(util)`. 1 fits, -1 fits but for uclamp_min, 0
    /// skip.
    fn feec_fits(&self, p: TaskId, cpu: usize, util: u64, cap: u64) -> i32 {
        match self.config.util_fits {
            UtilFits::UtilFitsCpu if self.config.uclamp => {
                let mut lo = self.uclamp_eff_value(p, UCLAMP_MIN);
                let mut hi = self.uclamp_eff_value(p, UCLAMP_MAX);
                if !self.uclamp_rq_is_idle(cpu) {
                    lo = lo.max(self.uclamp_rq_get(cpu, UCLAMP_MIN));
                    hi = hi.max(self.uclamp_rq_get(cpu, UCLAMP_MAX));
                }
                self.util_fits_cpu(util, lo, hi, cpu)
            }
            UtilFits::Util => self.eas_fits(util, cap) as i32,
            _ => self.eas_fits(self.uclamp_rq_util_with(cpu, util, Some(p)), cap) as i32,
        }
    }

    /// v6.0+: [`Eas::Eenv`]. Candidates rank by `fits` (1 over -1); among CPUs that miss only
    /// uclamp_min the one of the bigger perf domain (`cpu_thermal_cap`, no thermal pressure in
    /// the model) wins.
    fn feec_eenv(
        &self,
        p: TaskId,
        prev_cpu: usize,
        span: CpuMask,
        log: &mut Option<EasLog>,
    ) -> usize {
        // eenv_task_busy_time(): the task's utilization (no IRQ time in the model).
        let task_busy_time = self.task_util_est(p);
        let (mut prev_delta, mut best_delta) = (u64::MAX, u64::MAX);
        let mut prev_fits = -1;
        let mut best = Best {
            cpu: prev_cpu,
            delta: u64::MAX,
            fits: -1,
            thermal_cap: 0,
        };
        let mut prev_thermal_cap = 0;
        // Some CPU fitted all but uclamp_min (shown in the log with the fits ranks).
        let mut boost_missed = false;
        let finish = |log: &mut Option<EasLog>,
                      prev: u64,
                      best: &Best,
                      reversed: bool,
                      fits: Option<(i32, i32)>| {
            if let Some(l) = log {
                l.prev = (prev != u64::MAX).then_some(prev);
                l.best = (best.delta != u64::MAX).then_some(best.delta);
                l.best_cpu = best.cpu;
                l.reversed = reversed;
                l.fits = fits;
            }
        };
        for pd in 0..self.pd.len() {
            let cpus = self.pd[pd].cpus;
            let Some(first) = cpus.first() else { continue };
            let cpu_cap = self.arch_scale_cpu_capacity(first);
            let pd_cap = cpu_cap * cpus.weight() as u64;
            let (mut prev_spare, mut max_spare): (i64, i64) = (-1, -1);
            let (mut msc, mut max_fits) = (None, -1);
            for c in cpus.iter() {
                if !span.test(c) || !self.tasks[p].allowed.test(c) {
                    continue;
                }
                let util = self.cpu_util_next(c, p, Some(c));
                let cap = self.capacity_of(c);
                let fits = self.feec_fits(p, c, util, cap);
                if fits == 0 {
                    continue;
                }
                boost_missed |= fits < 0;
                let left = cap.saturating_sub(util) as i64;
                if c == prev_cpu {
                    prev_spare = left;
                    prev_fits = fits;
                } else if fits > max_fits || (fits == max_fits && left > max_spare) {
                    max_spare = left;
                    msc = Some(c);
                    max_fits = fits;
                }
            }
            if msc.is_none() && prev_spare < 0 {
                continue;
            }
            // eenv_pd_busy_time(): without the task, capped at the domain's capacity.
            let pd_busy: u64 = cpus
                .iter()
                .map(|c| {
                    self.cpu_util_next(c, p, None)
                        .min(self.arch_scale_cpu_capacity(c))
                })
                .sum::<u64>()
                .min(pd_cap);
            let eenv = EnergyEnv {
                task_busy_time,
                pd_busy_time: pd_busy,
                pd_cap,
                cpu_cap,
            };
            let energy = |dst| self.compute_energy_eenv(&eenv, p, dst, pd);
            let base = energy(None);
            let mut entry = EasPdLog {
                cpus,
                base: Some(base),
                prev_spare: (prev_spare >= 0).then_some(prev_spare as u64),
                ..EasPdLog::default()
            };
            if prev_spare > -1 {
                let e = energy(Some(prev_cpu));
                // CPU utilization has reversed the ordering.
                if e < base {
                    if let Some(l) = log {
                        l.pds.push(entry);
                    }
                    finish(log, prev_delta, &best, true, None);
                    return prev_cpu;
                }
                prev_delta = e - base;
                prev_thermal_cap = cpu_cap;
                entry.prev = Some(prev_delta);
                best_delta = best_delta.min(prev_delta);
            }
            if let Some(m) = msc.filter(|_| max_spare > prev_spare) {
                // The best so far fits better; or neither meets uclamp_min and it has at least
                // this domain's capacity.
                if max_fits < best.fits || (max_fits < 0 && cpu_cap <= best.thermal_cap) {
                    if let Some(l) = log {
                        l.pds.push(entry);
                    }
                    continue;
                }
                let e = energy(Some(m));
                if e < base {
                    if let Some(l) = log {
                        l.pds.push(entry);
                    }
                    finish(log, prev_delta, &best, true, None);
                    return prev_cpu;
                }
                let cur = e - base;
                entry.candidate = Some((m, max_spare as u64, cur));
                // Both fit, and the best so far costs less.
                if !(max_fits > 0 && best.fits > 0 && cur >= best_delta) {
                    best_delta = cur;
                    best = Best {
                        cpu: m,
                        delta: cur,
                        fits: max_fits,
                        thermal_cap: cpu_cap,
                    };
                }
            }
            if let Some(l) = log {
                l.pds.push(entry);
            }
        }
        let fits = boost_missed.then_some((prev_fits, best.fits));
        finish(log, prev_delta, &best, false, fits);
        if best.fits > prev_fits
            || (best.fits > 0 && best_delta < prev_delta)
            || (best.fits < 0 && best.thermal_cap > prev_thermal_cap)
        {
            best.cpu
        } else {
            prev_cpu
        }
    }
}

/// `schedlab domains`' EAS line: the perf domains and their energy models, or why EAS is off.
pub fn status_text(topo: &Topology, sd: &SchedDomains, config: &KernelConfig) -> String {
    let arch: Vec<u64> = (0..topo.nr_cpus())
        .map(|c| crate::domains::arch_scale_cpu_capacity(topo, config, c))
        .collect();
    match build_perf_domains(topo, sd, config, &arch) {
        Err(why) => format!("{}\n", why.describe()),
        Ok(pds) => {
            let unit = if config.em_power_uw { "uW" } else { "mW" };
            let mut s = String::from("EAS on (rd->pd):\n");
            for pd in &pds {
                let states: Vec<String> = pd
                    .table
                    .iter()
                    .map(|ps| {
                        format!(
                            "{} MHz {} {unit} cost {}",
                            ps.frequency_khz / 1000,
                            ps.power,
                            ps.cost
                        )
                    })
                    .collect();
                s += &format!("  pd{{{}}}: {}\n", pd.cpus, states.join(", "));
            }
            s
        }
    }
}
