//! Power and energy: a per-core CMOS model, P = Ceff x V(f)^2 x f + static when busy and an idle
//! power otherwise, with V rising linearly from the lowest to the highest frequency. Energy is
//! integrated exactly between the moments a core's state or frequency changes, so performance per
//! watt comes out of the same run as the performance.
//!
//! The coefficients are *assumed* (no vendor energy model is public for all presets); they are
//! ordinary fields of each cluster, documented where a preset sets them.

use serde::{Deserialize, Serialize};

/// A cluster's power model.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct PowerSpec {
    /// Effective switched capacitance in picofarads.
    pub ceff_pf: u64,
    /// Voltage at the lowest OPP, mV.
    pub v_min_mv: u64,
    /// Voltage at the highest frequency (turbo included), mV.
    pub v_max_mv: u64,
    /// Leakage of a busy core, microwatts.
    pub static_uw: u64,
    /// Power of an idle core (its shallow idle state), microwatts.
    pub idle_uw: u64,
}

impl Default for PowerSpec {
    /// A mid-size out-of-order core: ~1.2 W busy at 2.4 GHz.
    fn default() -> PowerSpec {
        PowerSpec {
            ceff_pf: 400,
            v_min_mv: 700,
            v_max_mv: 1000,
            static_uw: 80_000,
            idle_uw: 10_000,
        }
    }
}

impl PowerSpec {
    /// V(f): linear between (f_min, v_min) and (f_max, v_max).
    pub fn voltage_mv(&self, khz: u64, min_khz: u64, max_khz: u64) -> u64 {
        if max_khz <= min_khz || khz <= min_khz {
            return self.v_min_mv;
        }
        let k = khz.min(max_khz) - min_khz;
        self.v_min_mv + (self.v_max_mv.saturating_sub(self.v_min_mv)) * k / (max_khz - min_khz)
    }

    /// Power of a busy core at `khz`, microwatts: Ceff(pF) x V(mV)^2 x f(kHz) x 1e-9 + static.
    pub fn busy_uw(&self, khz: u64, min_khz: u64, max_khz: u64) -> u64 {
        let v = self.voltage_mv(khz, min_khz, max_khz);
        self.ceff_pf.saturating_mul(v * v).saturating_mul(khz) / 1_000_000_000 + self.static_uw
    }
}

/// Energy of one run, integrated per core.
#[derive(Clone, Debug, Default)]
pub struct EnergyMeter {
    /// Current power of each core, microwatts.
    pub core_uw: Vec<u64>,
    /// When each core's power last changed.
    pub since: Vec<u64>,
    /// Microwatt-nanoseconds (1e-15 J).
    pub total_uw_ns: u128,
}

impl EnergyMeter {
    pub fn new(cores: usize) -> EnergyMeter {
        EnergyMeter {
            core_uw: vec![0; cores],
            since: vec![0; cores],
            total_uw_ns: 0,
        }
    }

    /// Credit the energy used so far at the old power and switch to `uw`.
    pub fn set(&mut self, core: usize, now: u64, uw: u64) {
        let dt = now.saturating_sub(self.since[core]);
        self.total_uw_ns += self.core_uw[core] as u128 * dt as u128;
        self.core_uw[core] = uw;
        self.since[core] = now;
    }

    /// Settle every core to `now` and return the total in joules.
    pub fn joules(&mut self, now: u64) -> f64 {
        for core in 0..self.core_uw.len() {
            let uw = self.core_uw[core];
            self.set(core, now, uw);
        }
        self.total_uw_ns as f64 * 1e-15
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn power_grows_with_frequency_and_voltage() {
        let p = PowerSpec {
            ceff_pf: 2200,
            v_min_mv: 700,
            v_max_mv: 1100,
            static_uw: 0,
            idle_uw: 0,
        };
        // 2200 pF x 1.1 V^2 x 3.9 GHz = 10.4 W at the top.
        assert_eq!(
            p.busy_uw(3_900_000, 1_000_000, 3_900_000),
            2200 * 1100 * 1100 * 3_900_000 / 1_000_000_000
        );
        assert_eq!(p.voltage_mv(1_000_000, 1_000_000, 3_900_000), 700);
        let mid = p.busy_uw(2_400_000, 1_000_000, 3_900_000);
        let top = p.busy_uw(3_900_000, 1_000_000, 3_900_000);
        assert!(
            mid * 2 < top,
            "power rises faster than frequency: {mid} vs {top}"
        );
    }

    #[test]
    fn the_meter_integrates_piecewise_constant_power() {
        let mut m = EnergyMeter::new(2);
        m.set(0, 0, 1_000_000); // 1 W from t=0
        m.set(0, 500_000_000, 0); // off at 0.5 s
        m.set(1, 0, 2_000_000); // 2 W throughout
        assert!((m.joules(1_000_000_000) - 2.5).abs() < 1e-9);
    }
}
