//! The kernel's energy model (kernel/power/energy_model.c, include/linux/energy_model.h, v5.0+):
//! one table of performance states per perf domain (a cpufreq policy), each with its frequency,
//! power and `cost`, and the estimate EAS reads, `em_pd_energy()` (v5.0-v5.8) /
//! `em_cpu_energy()` (v5.9+).
//!
//! The cpufreq driver registers the model from the DT (`dev_pm_opp_of_register_em()`): power per
//! OPP from the `dynamic-power-coefficient` and the OPP's `opp-microvolt`
//! (`of_dev_pm_opp_get_cpu_power()` v5.1-v5.8, `_get_power()` / `_get_cpu_power()` v5.9+), so a
//! cluster has a model here when its [`PowerSpec`] gives the OPP voltages (`opp_mv`, one per OPP)
//! and a non-zero `ceff_pf`. The x86 presets give no OPP voltages, and x86 registers no energy
//! model. Left out: inefficient-state skipping (`EM_PERF_DOMAIN_SKIP_INEFFICIENCIES`, v5.16+,
//! which only a driver asking for it enables) and runtime-modifiable tables (v6.9+).

use super::PowerSpec;
use crate::cpumask::CpuMask;

/// `struct em_perf_state` (`em_cap_state` before v5.9).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmPerfState {
    pub frequency_khz: u64,
    /// mW (v5.1-v5.18) or uW (v5.19+), see [`crate::kernel::KernelConfig::em_power_uw`].
    pub power: u64,
    /// `power * max_freq / freq`, integer (`em_create_pd()`; `em_compute_costs()` v5.11-v6.8).
    pub cost: u64,
}

/// `struct em_perf_domain` with the perf domain's CPUs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmPerfDomain {
    pub cpus: CpuMask,
    /// Ascending frequency.
    pub table: Vec<EmPerfState>,
    /// `arch_scale_cpu_capacity()` of the domain's first CPU.
    pub scale_cpu: u64,
}

/// Power of one OPP as the DT callback computes it: `dpc * mV^2 * MHz` (MHz = Hz / 10^6,
/// truncated) divided by 10^9 for mW (v5.1-v5.18) or 10^6 for uW (v5.19+), truncating.
pub fn opp_power(dpc: u64, mv: u64, khz: u64, uw: bool) -> u64 {
    let tmp = dpc * mv * mv * (khz * 1000 / 1_000_000);
    if uw {
        tmp / 1_000_000
    } else {
        tmp / 1_000_000_000
    }
}

/// `em_dev_register_perf_domain()` / `em_create_pd()` for a policy whose OPPs are `opps_khz`
/// (ascending) on a cluster with `power`: `None` when the cluster has no model (no OPP voltages,
/// no coefficient), as `dev_pm_opp_of_register_em()` fails then; also `None` when a state's
/// power is 0 (`em_create_perf_table()` rejects `!power`).
pub fn em_register(
    power: &PowerSpec,
    opps_khz: &[u32],
    cpus: CpuMask,
    scale_cpu: u64,
    uw: bool,
) -> Option<EmPerfDomain> {
    if power.ceff_pf == 0 || opps_khz.is_empty() || power.opp_mv.len() != opps_khz.len() {
        return None;
    }
    let fmax = *opps_khz.last()? as u64;
    let mut table = Vec::with_capacity(opps_khz.len());
    for (i, &khz) in opps_khz.iter().enumerate() {
        let khz = khz as u64;
        let p = opp_power(power.ceff_pf, power.opp_mv[i] as u64, khz, uw);
        if p == 0 {
            return None;
        }
        table.push(EmPerfState {
            frequency_khz: khz,
            power: p,
            cost: fmax * p / khz,
        });
    }
    Some(EmPerfDomain {
        cpus,
        table,
        scale_cpu: scale_cpu.max(1),
    })
}

impl EmPerfDomain {
    /// `em_pd_energy()` (v5.0-v5.8) / `em_cpu_energy()` (v5.9+): the energy estimate of the domain
    /// whose busiest CPU has `max_util` and whose CPUs sum to `sum_util`: the lowest state at or
    /// above the frequency schedutil would pick, then `cost * sum_util / scale_cpu`. `headroom_on_util`
    /// ([`crate::kernel::KernelConfig::em_util_headroom`]): `freq = fmax * min(util + util/4,
    /// allowed_cap) / scale` (v5.14+), else `(fmax + fmax/4) * util / scale` (v5.0-v5.13).
    /// `allowed_cap` is the CPU capacity less thermal pressure (none in the model).
    pub fn energy(
        &self,
        max_util: u64,
        sum_util: u64,
        allowed_cap: u64,
        headroom_on_util: bool,
    ) -> u64 {
        if sum_util == 0 {
            return 0;
        }
        let fmax = self.table.last().map_or(0, |s| s.frequency_khz);
        let freq = if headroom_on_util {
            fmax * (max_util + (max_util >> 2)).min(allowed_cap) / self.scale_cpu
        } else {
            (fmax + (fmax >> 2)) * max_util / self.scale_cpu
        };
        self.cost_at(freq, sum_util)
    }

    /// v6.8 `em_cpu_energy()` after `eenv_pd_max_util()` applied `sugov_effective_cpu_perf()`
    /// (headroom and uclamp hints, capped at the allowed capacity) to `max_perf`:
    /// `freq = fmax * max_perf / scale_cpu`, no headroom of its own.
    pub fn energy_perf(&self, max_perf: u64, sum_util: u64) -> u64 {
        if sum_util == 0 {
            return 0;
        }
        let fmax = self.table.last().map_or(0, |s| s.frequency_khz);
        self.cost_at(fmax * max_perf / self.scale_cpu, sum_util)
    }

    /// The lowest state at or above `freq` (else the highest): `cost * sum_util / scale_cpu`.
    fn cost_at(&self, freq: u64, sum_util: u64) -> u64 {
        let ps = self
            .table
            .iter()
            .find(|s| s.frequency_khz >= freq)
            .or(self.table.last());
        ps.map_or(0, |s| s.cost * sum_util / self.scale_cpu)
    }

    pub fn nr_perf_states(&self) -> usize {
        self.table.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// HiKey960's A73 as hi3660.dtsi has it: dpc 550, OPPs 903/1421/1805/2112/2362 MHz at
    /// 700/800/900/1000/1100 mV.
    fn a73() -> (PowerSpec, [u32; 5]) {
        let pw = PowerSpec {
            opp_mv: vec![700, 800, 900, 1000, 1100],
            ceff_pf: 550,
            ..PowerSpec::default()
        };
        (pw, [903_000, 1_421_000, 1_805_000, 2_112_000, 2_362_000])
    }

    /// mW (v5.1-v5.18): 550 * 700^2 * 903 / 1e9 = 243.36 -> 243; 550 * 1100^2 * 2362 / 1e9 =
    /// 1571.9 -> 1571. uW (v5.19+): 243358 and 1571911. cost = power * 2362000 / freq:
    /// 243 * 2362000 / 903000 = 635.6 -> 635 (mW), 243358 * 2362000 / 903000 = 636557 (uW).
    #[test]
    fn hikey960_a73_table_per_era() {
        let (pw, opps) = a73();
        let mw = em_register(&pw, &opps, CpuMask::EMPTY, 1024, false).unwrap();
        let p: Vec<u64> = mw.table.iter().map(|s| s.power).collect();
        assert_eq!(p, [243, 500, 804, 1161, 1571]);
        let c: Vec<u64> = mw.table.iter().map(|s| s.cost).collect();
        assert_eq!(c, [635, 831, 1052, 1298, 1571]);
        let uw = em_register(&pw, &opps, CpuMask::EMPTY, 1024, true).unwrap();
        assert_eq!(uw.table[0].power, 243_358);
        assert_eq!(uw.table[4].power, 1_571_911);
        assert_eq!(uw.table[0].cost, 636_557);
        // No OPP voltages: no energy model (x86, or a DT without opp-microvolt).
        let none = PowerSpec::default();
        assert!(em_register(&none, &opps, CpuMask::EMPTY, 1024, false).is_none());
    }

    /// Where the headroom goes decides the OPP at a boundary: max_util 493 of 1024. On the
    /// frequency (v5.0-v5.13): (2362000 + 590500) * 493 / 1024 = 1421474 kHz -> 1805 MHz, energy
    /// 1052 * 493 / 1024 = 506. On the utilization (v5.14+): 493 + 123 = 616, 2362000 * 616 /
    /// 1024 = 1420906 -> 1421 MHz, energy 831 * 493 / 1024 = 400.
    #[test]
    fn headroom_on_freq_or_util() {
        let (pw, opps) = a73();
        let pd = em_register(&pw, &opps, CpuMask::EMPTY, 1024, false).unwrap();
        assert_eq!(pd.energy(493, 493, 1024, false), 506);
        assert_eq!(pd.energy(493, 493, 1024, true), 400);
        // Above the top OPP both take it: 1571 * 1000 / 1024 = 1534.
        assert_eq!(pd.energy(1000, 1000, 1024, false), 1534);
        assert_eq!(pd.energy(1000, 1000, 1024, true), 1534);
        assert_eq!(pd.energy(0, 0, 1024, true), 0);
    }
}
