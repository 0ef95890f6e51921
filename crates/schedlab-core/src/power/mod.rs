//! Power and energy, as RAPL measures a package: the cores (busy C x V^2 x f + leakage, idle by
//! C-state) plus each cluster's shared power domain (an x86 package's uncore, an Arm cluster's
//! L2/SCU), drawn while any of its cores is awake and dropping to the domain's idle figure (package
//! C6, cluster off) only when every core of it is in the deep state. Energy is integrated exactly
//! between the moments a domain's power changes ([`EnergyMeter`]), so performance per watt comes
//! out of the same run as the performance.
//!
//! - Busy power: `P = C x V(f)^2 x f + static`. `ceff_pf` is numerically the DT
//!   `dynamic-power-coefficient` (uW/MHz/V^2 = pF): `of_dev_pm_opp_get_cpu_power()` /
//!   `_get_cpu_power()` (v5.1+ energy model, `em_dev_register_perf_domain()` from v5.9) compute
//!   `mW = dpc x mV^2 x MHz / 10^9`, which is this formula. V(f) is the OPP table's voltage where
//!   the preset gives one (`opp_mv`, the DT `opp-microvolt`), else linear from `v_min_mv` to
//!   `v_max_mv`; turbo frequencies above the highest OPP interpolate up to `v_max_mv`.
//! - Idle power by state: see [`cpuidle`] (the menu governor, exit latency, the states' power).
//!
//! Which figures are published and which are **[assumed]** is said where each preset sets them
//! (`topology::presets`).

pub mod cpuidle;
pub mod em;

use crate::math64::saturating_mul_u64;
use serde::{Deserialize, Serialize};

/// One idle state of a CPU (`struct cpuidle_state`): what the governor sees and what the core draws
/// while in it. x86: `intel_idle`'s tables (drivers/idle/intel_idle.c) after the POLL state
/// (`cpuidle_poll_state_init()`); Arm: WFI (`ARM_CPUIDLE_WFI_STATE`) then the DT `idle-states`
/// the CPU lists in `cpu-idle-states` (`dt_init_idle_driver()`).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct IdleStateSpec {
    pub name: String,
    /// DT `entry-latency-us` (0 on x86, whose tables give one figure): `dt_idle_states.c`'s
    /// `init_state_node()` hands the governor `exit_latency = entry + exit` when the DT has no
    /// `wakeup-latency-us`.
    #[serde(default)]
    pub entry_latency_us: u32,
    /// Time from the wake-up to the CPU running again (x86 `exit_latency`, DT `exit-latency-us`):
    /// what a wake-up of a CPU in this state pays before its task runs.
    pub exit_latency_us: u32,
    /// `target_residency` (DT `min-residency-us`): the shortest idle period that repays entering.
    pub target_residency_us: u32,
    /// Power of the core while in this state (with all its threads in it), microwatts.
    pub power_uw: u64,
}

impl IdleStateSpec {
    /// The `exit_latency` the governor compares with its latency limit (entry + exit on DT
    /// systems, see [`IdleStateSpec::entry_latency_us`]).
    pub fn governor_exit_latency_us(&self) -> u64 {
        self.entry_latency_us as u64 + self.exit_latency_us as u64
    }
}

/// A cluster's shared power domain: on the x86 presets each cluster is a package, so this is the
/// package's uncore (mesh, LLC, memory controller, I/O) and package C6; on Arm, the cluster's L2,
/// SCU and its power-down state.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, Default)]
#[serde(deny_unknown_fields)]
pub struct UncoreSpec {
    /// Power while any core of the cluster is awake (not in the deep state), microwatts.
    #[serde(default)]
    pub awake_uw: u64,
    /// Power with every core in the deep state (package C6, cluster off), microwatts.
    #[serde(default)]
    pub idle_uw: u64,
    /// Index into the cluster's `idle_states` of the state every core must be in (or deeper) for
    /// the domain to reach `idle_uw`; `None`: never (the domain is always awake).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deep_state: Option<usize>,
    /// The deep state is a cluster state coordinated by the firmware (PSCI platform-coordinated
    /// mode, the Arm presets): the cluster powers down only when its last CPU asks for it, and a
    /// CPU that asked while others were up sits in the state below, so a wake-up while the
    /// cluster is up pays that state's exit latency. Off (x86): the deep state is the core's own.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub coordinated: bool,
}

/// A cluster's power model.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct PowerSpec {
    /// Effective switched capacitance in picofarads: numerically the DT
    /// `dynamic-power-coefficient` (uW/MHz/V^2).
    #[serde(alias = "dynamic_power_coefficient")]
    pub ceff_pf: u64,
    /// Voltage at the lowest OPP, mV (used where `opp_mv` is empty).
    pub v_min_mv: u64,
    /// Voltage at the highest frequency (turbo included), mV.
    pub v_max_mv: u64,
    /// Leakage of a busy core, microwatts.
    pub static_uw: u64,
    /// Power of a core that is awake but runs nothing (exiting an idle state, or a machine without
    /// `idle_states`), microwatts.
    pub idle_uw: u64,
    /// Voltage of each OPP, mV, in the order of `opps_mhz` (the DT `opp-microvolt`). Empty: linear
    /// from `v_min_mv` to `v_max_mv`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub opp_mv: Vec<u32>,
    /// The CPUs' idle states, shallowest first. Empty: no idle states (an idle core draws
    /// `idle_uw`, a wake-up pays no exit latency).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub idle_states: Vec<IdleStateSpec>,
    /// The cluster's shared power domain.
    #[serde(default)]
    pub uncore: UncoreSpec,
}

impl Default for PowerSpec {
    /// A mid-size out-of-order core: ~1.2 W busy at 2.4 GHz; no idle states, no uncore.
    fn default() -> PowerSpec {
        PowerSpec {
            ceff_pf: 400,
            v_min_mv: 700,
            v_max_mv: 1000,
            static_uw: 80_000,
            idle_uw: 10_000,
            opp_mv: Vec::new(),
            idle_states: Vec::new(),
            uncore: UncoreSpec::default(),
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

    /// V(f) from the OPP table: the voltage of the lowest OPP at or above `khz`; above the highest
    /// OPP (turbo), linear from it up to `v_max_mv` at `peak_khz`. Without `opp_mv`, see
    /// [`PowerSpec::voltage_mv`].
    pub fn opp_voltage_mv(&self, khz: u64, opps_khz: &[u32], peak_khz: u64) -> u64 {
        if self.opp_mv.is_empty() || self.opp_mv.len() != opps_khz.len() {
            let min = opps_khz.first().copied().unwrap_or(0) as u64;
            return self.voltage_mv(khz, min, peak_khz);
        }
        if let Some(i) = opps_khz.iter().position(|&f| f as u64 >= khz) {
            return self.opp_mv[i] as u64;
        }
        let top_khz = *opps_khz.last().unwrap() as u64;
        let top_mv = *self.opp_mv.last().unwrap() as u64;
        if peak_khz <= top_khz || self.v_max_mv <= top_mv {
            return top_mv;
        }
        let k = khz.min(peak_khz) - top_khz;
        top_mv + (self.v_max_mv - top_mv) * k / (peak_khz - top_khz)
    }

    /// Power of a busy core at `khz`, microwatts: Ceff(pF) x V(mV)^2 x f(kHz) x 1e-9 + static,
    /// with V(f) linear between `min_khz` and `max_khz`.
    pub fn busy_uw(&self, khz: u64, min_khz: u64, max_khz: u64) -> u64 {
        let v = self.voltage_mv(khz, min_khz, max_khz);
        Self::dynamic_uw(self.ceff_pf, v, khz) + self.static_uw
    }

    /// Power of a busy core at `khz` with V(f) from the OPP table ([`PowerSpec::opp_voltage_mv`]).
    pub fn busy_uw_at_opp(&self, khz: u64, opps_khz: &[u32], peak_khz: u64) -> u64 {
        let v = self.opp_voltage_mv(khz, opps_khz, peak_khz);
        Self::dynamic_uw(self.ceff_pf, v, khz) + self.static_uw
    }

    /// `C x V^2 x f` in microwatts: pF x mV^2 x kHz / 10^9 (= dpc x mV^2 x MHz / 10^6).
    fn dynamic_uw(ceff_pf: u64, mv: u64, khz: u64) -> u64 {
        saturating_mul_u64(saturating_mul_u64(ceff_pf, mv * mv), khz) / 1_000_000_000
    }
}

/// What is wrong with a cluster's power model beyond its basic ranges (checked by
/// `Topology::build`), if anything.
pub fn validate(p: &PowerSpec, nr_opps: usize) -> Option<String> {
    if !p.opp_mv.is_empty() && p.opp_mv.len() != nr_opps {
        return Some(format!(
            "opp_mv lists {} voltages for {nr_opps} OPPs",
            p.opp_mv.len()
        ));
    }
    if p.opp_mv.iter().any(|&mv| mv == 0 || mv > 5_000) {
        return Some("opp_mv entries must be 1 to 5000 mV".into());
    }
    if p.idle_states.len() > 16 {
        return Some("at most 16 idle_states".into());
    }
    for s in &p.idle_states {
        if s.exit_latency_us > 10_000_000
            || s.entry_latency_us > 10_000_000
            || s.target_residency_us > 100_000_000
            || s.power_uw > 1_000_000_000
        {
            return Some(format!(
                "idle state '{}': latencies at most 10 s, residency at most 100 s, power at most 1 kW",
                s.name
            ));
        }
    }
    if p.uncore.awake_uw > 1_000_000_000 || p.uncore.idle_uw > 1_000_000_000 {
        return Some("uncore power at most 1 kW".into());
    }
    if let Some(d) = p.uncore.deep_state {
        if d >= p.idle_states.len() {
            return Some(format!(
                "uncore.deep_state {d} names no idle state (there are {})",
                p.idle_states.len()
            ));
        }
    }
    None
}

/// Energy of one run, integrated per power domain (the cores, then the clusters' shared domains).
#[derive(Clone, Debug, Default)]
pub struct EnergyMeter {
    /// Current power of each domain, microwatts.
    pub core_uw: Vec<u64>,
    /// When each domain's power last changed.
    pub since: Vec<u64>,
    /// Microwatt-nanoseconds (1e-15 J).
    pub total_uw_ns: u128,
}

impl EnergyMeter {
    pub fn new(domains: usize) -> EnergyMeter {
        EnergyMeter {
            core_uw: vec![0; domains],
            since: vec![0; domains],
            total_uw_ns: 0,
        }
    }

    /// Credit the energy used so far at the old power and switch to `uw`.
    pub fn set(&mut self, domain: usize, now: u64, uw: u64) {
        let dt = now.saturating_sub(self.since[domain]);
        // Exact 128-bit product without a 128-bit multiply (a call in wasm32).
        self.total_uw_ns += crate::math64::mul_u64_u64_wide(self.core_uw[domain], dt);
        self.core_uw[domain] = uw;
        self.since[domain] = now;
    }

    /// Settle every domain to `now` and return the total in joules.
    pub fn joules(&mut self, now: u64) -> f64 {
        for d in 0..self.core_uw.len() {
            let uw = self.core_uw[d];
            self.set(d, now, uw);
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
            ..PowerSpec::default()
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

    /// A power model written before idle states, OPP voltages and the uncore existed (scenario
    /// files, share links) still reads: no idle states, no uncore, linear V(f).
    #[test]
    fn an_old_power_model_still_parses() {
        let p: PowerSpec = serde_json::from_str(
            r#"{"ceff_pf":400,"v_min_mv":700,"v_max_mv":1000,"static_uw":80000,"idle_uw":10000}"#,
        )
        .unwrap();
        assert_eq!(p, PowerSpec::default());
        let dpc: PowerSpec = serde_json::from_str(
            r#"{"dynamic_power_coefficient":550,"v_min_mv":700,"v_max_mv":1100,"static_uw":0,"idle_uw":0}"#,
        )
        .unwrap();
        assert_eq!(dpc.ceff_pf, 550);
    }

    /// hi3660.dtsi: A73 `dynamic-power-coefficient` 550, top OPP 2362 MHz at 1100000 uV. The
    /// energy model's `_get_cpu_power()`: 550 x 1100^2 x 2362 / 10^9 = 1571 mW (+ the leakage,
    /// which the DT coefficient does not include).
    #[test]
    fn a_busy_a73_at_its_top_opp_draws_the_dt_dynamic_power() {
        let spec = crate::topology::presets::preset("hikey960").unwrap();
        let a73 = &spec.clusters[1].power;
        assert_eq!(a73.ceff_pf, 550);
        let opps: Vec<u32> = spec.clusters[1].opps_mhz.iter().map(|m| m * 1000).collect();
        let uw = a73.busy_uw_at_opp(2_362_000, &opps, 2_362_000);
        assert_eq!(uw - a73.static_uw, 550 * 1100 * 1100 * 2362 / 1_000_000);
        assert_eq!((uw - a73.static_uw) / 1000, 1571);
        // One OPP down (2112 MHz, 1000 mV): the DT voltage, not a straight line.
        let uw = a73.busy_uw_at_opp(2_112_000, &opps, 2_362_000);
        assert_eq!(uw - a73.static_uw, 550 * 1000 * 1000 * 2112 / 1_000_000);
    }
}
