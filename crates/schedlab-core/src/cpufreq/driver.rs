//! The cpufreq driver's figures a policy is registered with, and the rate limit schedutil's
//! `sugov_init()` derives from them.
//!
//! A driver's `->init()` fills `policy->cpuinfo.transition_latency` (ns; cpufreq-dt: the OPP
//! table's `clock-latency-ns` plus the regulator's voltage latency, `CPUFREQ_ETERNAL` when that is
//! 0) and, since v4.12, may set `policy->transition_delay_us` (intel_cpufreq does). These are
//! machine data ([`CpufreqDriverSpec`], per cluster in the presets); the rule turning them into
//! `rate_limit_us` is the era's (`KernelConfig::schedutil_transition_delay`). The result is
//! computed once per run, when the policies are built ([`crate::sched::World::new`]); the sysfs
//! `rate_limit_us` (`KernelConfig::schedutil_rate_limit_us`), when given, replaces it for every
//! policy, as writing the tunable after boot does.

use crate::cpumask::CpuMask;
use crate::kernel::{KernelConfig, TransitionDelay};
use crate::topology::Topology;
use serde::{Deserialize, Serialize};

/// `LATENCY_MULTIPLIER` (include/linux/cpufreq.h, v4.7-v6.8).
pub const LATENCY_MULTIPLIER: u32 = 1000;
/// `CPUFREQ_ETERNAL` (-1 as `unsigned int`): what drivers report when the latency is unknown.
pub const CPUFREQ_ETERNAL: u32 = u32::MAX;
/// The cap of `cpufreq_policy_transition_delay_us()` on a latency-derived delay (v4.15-v6.8).
const TRANSITION_DELAY_CAP_US: u32 = 10_000;

/// What a cluster's cpufreq driver tells the core about its frequency changes.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct CpufreqDriverSpec {
    /// The driver's name, for display ("cpufreq-dt", "intel_cpufreq").
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// `policy->cpuinfo.transition_latency` in ns; 0 = the driver sets none (powernv), `u32::MAX` =
    /// `CPUFREQ_ETERNAL`. Default 0.
    #[serde(default)]
    pub transition_latency_ns: u32,
    /// `policy->transition_delay_us` (v4.12+); 0 = the driver sets none. Default 0.
    #[serde(default)]
    pub transition_delay_us: u32,
    /// intel_cpufreq's `INTEL_CPUFREQ_TRANSITION_DELAY_HWP`: the `transition_delay_us` it sets
    /// instead when it keeps HWP on (`KernelConfig::intel_cpufreq_hwp`, v5.9+); 0 = the driver has
    /// no such value. Default 0.
    #[serde(default)]
    pub transition_delay_hwp_us: u32,
}

impl CpufreqDriverSpec {
    pub fn is_default(&self) -> bool {
        *self == CpufreqDriverSpec::default()
    }

    /// `policy->transition_delay_us` as the driver sets it in this kernel (0: none).
    pub fn transition_delay_us(&self, config: &KernelConfig) -> u32 {
        if config.intel_cpufreq_hwp && self.transition_delay_hwp_us != 0 {
            self.transition_delay_hwp_us
        } else {
            self.transition_delay_us
        }
    }

    /// The `rate_limit_us` `sugov_init()` gives a policy of this driver, before any sysfs write.
    /// `unsigned int` arithmetic, as the kernel's (the latency is truncated to whole us).
    pub fn sugov_rate_limit_us(&self, config: &KernelConfig) -> u32 {
        let latency_us = self.transition_latency_ns / 1000;
        let delay_us = self.transition_delay_us(config);
        match config.schedutil_transition_delay {
            // v4.7-v4.11 sugov_init(): no transition_delay_us yet.
            TransitionDelay::LatencyMultiplier => latency_multiplier(latency_us),
            // v4.12-v4.14 sugov_init(): the driver's delay first.
            TransitionDelay::DriverDelay if delay_us != 0 => delay_us,
            TransitionDelay::DriverDelay => latency_multiplier(latency_us),
            // v4.15-v6.8 cpufreq_policy_transition_delay_us().
            TransitionDelay::DriverDelayCapped if delay_us != 0 => delay_us,
            TransitionDelay::DriverDelayCapped if latency_us != 0 => latency_us
                .wrapping_mul(LATENCY_MULTIPLIER)
                .min(TRANSITION_DELAY_CAP_US),
            TransitionDelay::DriverDelayCapped => LATENCY_MULTIPLIER,
        }
    }

    /// `sg_policy->freq_update_delay_ns` of a policy of this driver: the sysfs override when
    /// given, else `sugov_init()`'s value.
    pub fn freq_update_delay_ns(&self, config: &KernelConfig) -> u64 {
        let us = config
            .schedutil_rate_limit_us
            .unwrap_or_else(|| self.sugov_rate_limit_us(config) as u64);
        us * 1000
    }
}

/// `schedlab domains`: the rate limit schedutil gives each cpufreq policy of `topo` under
/// `config`, one line per cluster and limit (in the order of their first CPU).
pub fn rate_limits_text(topo: &Topology, config: &KernelConfig) -> String {
    let mut groups: Vec<(usize, &CpufreqDriverSpec, u64, CpuMask, usize)> = Vec::new();
    for p in &topo.policies {
        let cluster = p.cpus.first().map_or(0, |c| topo.cpus[c].cluster);
        let ns = p.driver.freq_update_delay_ns(config);
        match groups.iter_mut().find(|g| g.0 == cluster && g.2 == ns) {
            Some(g) => {
                g.3 = g.3.or(&p.cpus);
                g.4 += 1;
            }
            None => groups.push((cluster, &p.driver, ns, p.cpus, 1)),
        }
    }
    let source = match config.schedutil_rate_limit_us {
        Some(_) => "the sysfs override".to_string(),
        None => format!(
            "sugov_init() from the driver, rule {}",
            serde_json::to_string(&config.schedutil_transition_delay)
                .unwrap_or_default()
                .trim_matches('"')
        ),
    };
    let mut s = format!("schedutil rate_limit_us per cpufreq policy ({source})\n");
    for (cluster, d, ns, cpus, n) in groups {
        let name = if d.name.is_empty() {
            "unnamed driver"
        } else {
            d.name.as_str()
        };
        s.push_str(&format!(
            "  {} CPUs {cpus} ({n} polic{}): {name}, transition_latency {} ns, transition_delay_us {} -> rate_limit_us {}\n",
            topo.spec.clusters[cluster].name,
            if n == 1 { "y" } else { "ies" },
            d.transition_latency_ns,
            d.transition_delay_us(config),
            ns / 1000
        ));
    }
    s
}

/// `rate_limit_us = LATENCY_MULTIPLIER; if (lat) rate_limit_us *= lat;`
fn latency_multiplier(latency_us: u32) -> u32 {
    if latency_us == 0 {
        LATENCY_MULTIPLIER
    } else {
        LATENCY_MULTIPLIER.wrapping_mul(latency_us)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn driver(latency_ns: u32, delay_us: u32, hwp_us: u32) -> CpufreqDriverSpec {
        CpufreqDriverSpec {
            name: String::new(),
            transition_latency_ns: latency_ns,
            transition_delay_us: delay_us,
            transition_delay_hwp_us: hwp_us,
        }
    }

    fn limits(d: &CpufreqDriverSpec) -> [u32; 3] {
        [
            KernelConfig::v4_9(),
            KernelConfig::v4_16(),
            KernelConfig::v6_8(),
        ]
        .map(|c| d.sugov_rate_limit_us(&c))
    }

    #[test]
    fn a_latency_gives_1000_times_it_in_v4_9_and_at_most_10_ms_from_v4_15() {
        // 63.8 us: truncated to 63 us, x 1000.
        assert_eq!(limits(&driver(63_800, 0, 0)), [63_000, 10_000, 10_000]);
        // 5 us: below the cap, the same in every era.
        assert_eq!(limits(&driver(5_000, 0, 0)), [5_000, 5_000, 5_000]);
        // HiKey960's clock-latency-ns 300 000.
        assert_eq!(limits(&driver(300_000, 0, 0)), [300_000, 10_000, 10_000]);
        // Under 1 us or no latency at all: LATENCY_MULTIPLIER.
        assert_eq!(limits(&driver(999, 0, 0)), [1_000, 1_000, 1_000]);
        assert_eq!(limits(&driver(0, 0, 0)), [1_000, 1_000, 1_000]);
        // CPUFREQ_ETERNAL: 4 294 967 us x 1000 still fits an unsigned int.
        assert_eq!(
            limits(&driver(CPUFREQ_ETERNAL, 0, 0)),
            [4_294_967_000, 10_000, 10_000]
        );
    }

    #[test]
    fn the_drivers_transition_delay_wins_from_v4_12_and_is_ignored_in_v4_9() {
        // intel_cpufreq: latency 20 us, delay 500 us (HWP: 5000 us from v5.9).
        let d = driver(20_000, 500, 5_000);
        assert_eq!(limits(&d), [20_000, 500, 5_000]);
        let mut v5_2 = KernelConfig::v5_2();
        assert_eq!(d.sugov_rate_limit_us(&v5_2), 500);
        // v4.12-v4.14: the delay first, an uncapped latency otherwise.
        v5_2.schedutil_transition_delay = TransitionDelay::DriverDelay;
        assert_eq!(d.sugov_rate_limit_us(&v5_2), 500);
        assert_eq!(driver(63_800, 0, 0).sugov_rate_limit_us(&v5_2), 63_000);
    }

    #[test]
    fn the_sysfs_rate_limit_overrides_every_driver() {
        let mut c = KernelConfig::v4_9();
        c.schedutil_rate_limit_us = Some(2_000);
        for d in [
            driver(63_800, 0, 0),
            driver(20_000, 500, 5_000),
            driver(0, 0, 0),
        ] {
            assert_eq!(d.freq_update_delay_ns(&c), 2_000_000);
        }
        c.schedutil_rate_limit_us = None;
        assert_eq!(driver(63_800, 0, 0).freq_update_delay_ns(&c), 63_000_000);
    }
}
