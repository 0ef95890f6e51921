//! schedutil's rate limit per policy, from the driver's figures and the era's `sugov_init()` rule,
//! and the sysfs `rate_limit_us` over it.

use crate::domains::SchedDomains;
use crate::kernel::{build_config, Governor, KernelConfig, TransitionDelay};
use crate::sched::World;
use crate::topology::{presets::preset, Topology};
use serde_json::json;

const MS: u64 = 1_000_000;

fn world(machine: &str, c: KernelConfig) -> World {
    let t = Topology::build(&preset(machine).unwrap()).unwrap();
    let d = SchedDomains::build(&t, &c).unwrap();
    World::new(t, d, c)
}

fn config(baseline: &str, overrides: Option<serde_json::Value>) -> KernelConfig {
    build_config(baseline, &[], overrides.as_ref(), Governor::Schedutil).unwrap()
}

/// A change at t = 0 (util 400), then at `later` util 1000: was the second request acted on?
fn acted_after(w: &mut World, cpu: usize, later: u64) -> bool {
    w.rqs[cpu].avg.util_avg = 400;
    w.rqs[cpu].util_est_enqueued = 0;
    assert!(w.cpufreq_update(cpu, 0).is_some());
    w.now += later;
    w.rqs[cpu].avg.util_avg = 1000;
    w.cpufreq_update(cpu, 0).is_some()
}

#[test]
fn hikey960_policies_wait_300_ms_in_v4_9_and_10_ms_from_v4_15() {
    // cpufreq-dt, clock-latency-ns 300 000: v4.9 sugov_init() 1000 x 300 us = 300 ms; v4.16+
    // cpufreq_policy_transition_delay_us() caps it at 10 ms.
    for (baseline, limit_ms) in [("v4.9", 300), ("v4.16", 10), ("v6.8", 10)] {
        let w = world("hikey960", config(baseline, None));
        for p in &w.policies {
            assert_eq!(p.freq_update_delay_ns, limit_ms * MS, "{baseline}");
        }
        // The A73 policy, 20 ms after a change: held in v4.9 only.
        let mut w = world("hikey960", config(baseline, None));
        assert_eq!(
            acted_after(&mut w, 4, 20 * MS),
            limit_ms == 10,
            "{baseline}"
        );
        // 300 ms after it, every era acts.
        let mut w = world("hikey960", config(baseline, None));
        assert!(acted_after(&mut w, 4, 300 * MS), "{baseline}");
    }
}

#[test]
fn intel_cpufreq_waits_500_us_without_hwp_and_5_ms_with_it() {
    // E2's v5.2: INTEL_CPUFREQ_TRANSITION_DELAY, 500 us (v4.9: 1000 x 20 us, the delay unknown to
    // sugov_init()); v6.8 keeps HWP on in passive mode: INTEL_CPUFREQ_TRANSITION_DELAY_HWP.
    for (baseline, limit_us) in [
        ("v4.9", 20_000),
        ("v5.2", 500),
        ("v5.6", 500),
        ("v6.8", 5_000),
    ] {
        // Invariant in every era, so that util 400 and 1000 ask for two frequencies.
        let mut c = config(baseline, None);
        c.frequency_invariance = true;
        let mut w = world("cascadelake-8260l", c);
        let p = w.topo.cpus[0].policy;
        assert_eq!(
            w.policies[p].freq_update_delay_ns,
            limit_us * 1000,
            "{baseline}"
        );
        // 1 ms after a change of CPU 0's policy, another request.
        assert_eq!(acted_after(&mut w, 0, MS), limit_us < 1000, "{baseline}");
    }
    // Ivy Bridge has no HWP: 500 us in v6.8 too.
    let w = world("ivb-ep", config("v6.8", None));
    assert!(w.policies.iter().all(|p| p.freq_update_delay_ns == 500_000));
}

#[test]
fn the_sysfs_rate_limit_wins_over_every_driver_and_era() {
    for baseline in ["v4.9", "v5.2", "v6.8"] {
        // An existing scenario's number still parses and means the override.
        let c = config(baseline, Some(json!({ "schedutil_rate_limit_us": 2000 })));
        assert_eq!(c.schedutil_rate_limit_us, Some(2000));
        for machine in ["hikey960", "cascadelake-8260l", "power9-smt8"] {
            let w = world(machine, c.clone());
            assert!(w.policies.iter().all(|p| p.freq_update_delay_ns == 2 * MS));
        }
        let mut w = world("hikey960", c.clone());
        assert!(!acted_after(&mut w, 4, 1_500_000), "{baseline}");
        let mut w = world("hikey960", c);
        assert!(acted_after(&mut w, 4, 2 * MS), "{baseline}");
    }
    // null is the driver's value again; a limit over 1 s is refused.
    assert_eq!(
        config("v4.16", Some(json!({ "schedutil_rate_limit_us": null }))).schedutil_rate_limit_us,
        None
    );
    let too_long = json!({ "schedutil_rate_limit_us": 2_000_000 });
    assert!(build_config("v4.16", &[], Some(&too_long), Governor::Schedutil).is_err());
}

#[test]
fn the_era_rule_alone_moves_the_limit() {
    // The same driver figures under each rule (switch flipped on one baseline).
    let mut c = config("v4.16", None);
    let mut limit = |rule| {
        c.schedutil_transition_delay = rule;
        let w = world("tc2", c.clone());
        w.policies[0].freq_update_delay_ns / 1000
    };
    // vexpress-spc: 1 ms latency.
    assert_eq!(limit(TransitionDelay::LatencyMultiplier), 1_000_000);
    assert_eq!(limit(TransitionDelay::DriverDelay), 1_000_000);
    assert_eq!(limit(TransitionDelay::DriverDelayCapped), 10_000);
}
