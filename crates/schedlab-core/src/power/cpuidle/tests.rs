//! Idle states and package power on small cases: the menu governor's choice by predicted idle
//! time, package C6 only with every core in C6, and the package's idle figure.

use super::*;
use crate::domains::SchedDomains;
use crate::kernel::{build_config, Governor};
use crate::topology::{presets::preset, Topology};
use crate::units::NSEC_PER_SEC;

fn world(machine: &str) -> World {
    let t = Topology::build(&preset(machine).unwrap()).unwrap();
    let c = build_config("v5.2", &[], None, Governor::Performance).unwrap();
    let d = SchedDomains::build(&t, &c).unwrap();
    World::new(t, d, c)
}

fn skx() -> Vec<IdleStateSpec> {
    preset("cascadelake-8260l").unwrap().clusters[0]
        .power
        .idle_states
        .clone()
}

fn name(states: &[IdleStateSpec], i: usize) -> &str {
    &states[i].name
}

/// menu.c: the deepest state whose target residency fits the prediction (and whose exit latency
/// fits `predicted / performance_multiplier()`), POLL being the fallback. skx_cstates: C1 2/2,
/// C1E 10/20, C6 133/600 us.
#[test]
fn menu_picks_the_deepest_skx_state_the_predicted_idle_time_repays() {
    let states = skx();
    let menu = MenuDevice::default();
    let pick = |us: u64| name(&states, menu_select(&states, &menu, us, u64::MAX, 0).0).to_string();
    assert_eq!(pick(1), "POLL");
    assert_eq!(pick(5), "C1");
    assert_eq!(pick(50), "C1E");
    assert_eq!(pick(599), "C1E");
    assert_eq!(pick(1000), "C6");
    // A PM QoS latency limit below C6's exit latency keeps the CPU in C1E.
    assert_eq!(
        name(&states, menu_select(&states, &menu, 1000, 100, 0).0),
        "C1E"
    );
    // One task asleep in I/O on the CPU: interactivity_req = 1000 / (1 + 10) = 90 us, below
    // C6's 133 us; at 2000 us predicted (181 us) C6 is back.
    assert_eq!(
        name(&states, menu_select(&states, &menu, 1000, u64::MAX, 1).0),
        "C1E"
    );
    assert_eq!(
        name(&states, menu_select(&states, &menu, 2000, u64::MAX, 1).0),
        "C6"
    );
}

/// get_typical_interval(): eight recent idle periods of ~50 us predict the next one, whatever
/// the next timer says; with a spread-out history the timer decides.
#[test]
fn recent_short_intervals_lower_the_prediction_below_the_next_timer() {
    let states = skx();
    let mut menu = MenuDevice::default();
    for us in [48, 52, 50, 49, 51, 50, 50, 50] {
        menu.update_intervals(us);
    }
    assert_eq!(menu.get_typical_interval(10_000), 50);
    let (i, predicted) = menu_select(&states, &menu, 10_000, u64::MAX, 0);
    assert_eq!((name(&states, i), predicted), ("C1E", 50));
    let mut spread = MenuDevice::default();
    for us in [10, 5_000, 40, 20_000, 300, 9_000, 70, 2_000] {
        spread.update_intervals(us);
    }
    assert_eq!(spread.get_typical_interval(10_000), u64::MAX);
    assert_eq!(
        name(
            &states,
            menu_select(&states, &spread, 10_000, u64::MAX, 0).0
        ),
        "C6"
    );
}

/// A machine idle for 1 s: every core in C6, so both packages in package C6, drawing the idle
/// figure (13.5 W each, ~27 W for the two sockets of hardware-facts.md).
#[test]
fn an_idle_cascade_lake_draws_the_package_idle_figure() {
    let mut w = world("cascadelake-8260l");
    let j = w.energy.joules(NSEC_PER_SEC);
    assert!((j - 27.0).abs() < 1e-9, "{j} J");
}

/// Package C6 needs every core of the package in core C6: one awake thread (its sibling and the
/// other 23 cores in C6) keeps the uncore awake; so does a core in C1E. The other package stays
/// in package C6.
#[test]
fn the_package_is_not_in_package_c6_while_one_core_is_awake() {
    let mut w = world("cascadelake-8260l");
    let base = w.idle.uncore_base;
    assert_eq!(w.energy.core_uw[base], 13_500_000);
    w.now = 5 * NSEC_PER_SEC;
    // CPU 0 (package 0, core 0, thread 0) wakes: exits C6 (133 us).
    assert_eq!(w.cpuidle_exit(0), 133_000);
    assert_eq!(w.energy.core_uw[base], 25_000_000, "package 0 uncore awake");
    assert_eq!(w.energy.core_uw[base + 1], 13_500_000, "package 1 in PC6");
    assert_eq!(w.idle.awake_cores, vec![1, 0]);
    // It goes idle with a timer 50 us away: C1E, still not core C6, so no package C6.
    assert_eq!(w.cpuidle_enter(0, Some(w.now + 50_000)), Some(2));
    assert_eq!(w.energy.core_uw[base], 25_000_000);
    assert_eq!(w.energy.core_uw[0], 400_000, "core 0 in C1E");
    // After 5 s in C1E, a long idle: C6, and the package drops to its idle figure again.
    w.now += 5 * NSEC_PER_SEC;
    w.cpuidle_exit(0);
    assert_eq!(w.cpuidle_enter(0, None), Some(3));
    assert_eq!(w.energy.core_uw[base], 13_500_000);
}

/// HiKey960: the A53 cluster goes down when all four CPUs chose CLUSTER_SLEEP_0; one CPU in
/// CPU_SLEEP_0 keeps the cluster's L2 powered.
#[test]
fn an_arm_cluster_powers_down_only_with_all_its_cpus_in_the_cluster_state() {
    let mut w = world("hikey960");
    let a53 = w.idle.uncore_base;
    assert_eq!(
        w.energy.core_uw[a53], 5_000,
        "all CPUs start in CLUSTER_SLEEP_0"
    );
    w.now = 5 * NSEC_PER_SEC;
    assert_eq!(w.cpuidle_exit(1), 1_600_000);
    assert_eq!(w.energy.core_uw[a53], 40_000);
    // A timer 2 ms away: CPU_SLEEP_0 (1500 us residency) but not CLUSTER_SLEEP_0 (3500 us).
    assert_eq!(w.cpuidle_enter(1, Some(w.now + 2_000_000)), Some(1));
    assert_eq!(w.energy.core_uw[a53], 40_000);
    w.now += 5 * NSEC_PER_SEC;
    w.cpuidle_exit(1);
    assert_eq!(w.cpuidle_enter(1, Some(w.now + 10_000_000)), Some(2));
    assert_eq!(w.energy.core_uw[a53], 5_000);
}
