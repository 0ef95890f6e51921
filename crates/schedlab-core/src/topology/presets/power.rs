//! The presets' power models: busy power (DT `dynamic-power-coefficient` and OPP voltages where
//! the kernel's device trees publish them), idle states (x86 `intel_idle` tables, Arm DT
//! `idle-states`) and the clusters' shared domains (x86 package uncore and package C6, Arm cluster
//! power-down). Everything not published is **[assumed]**, with the reason next to it.

use crate::power::{IdleStateSpec, PowerSpec, UncoreSpec};

fn state(
    name: &str,
    entry_latency_us: u32,
    exit_latency_us: u32,
    target_residency_us: u32,
    power_uw: u64,
) -> IdleStateSpec {
    IdleStateSpec {
        name: name.into(),
        entry_latency_us,
        exit_latency_us,
        target_residency_us,
        power_uw,
    }
}

/// `ARM_CPUIDLE_WFI_STATE` (drivers/cpuidle/cpuidle-arm.c, cpuidle-psci.c, cpuidle-big_little.c):
/// state 0 of every Arm cpuidle driver, exit latency 1 us, target residency 1 us. The core is
/// clock-gated and keeps its leakage: `power_uw` is **[assumed]** to be the busy leakage.
fn wfi(leak_uw: u64) -> IdleStateSpec {
    state("WFI", 0, 1, 1, leak_uw)
}

/// The POLL state x86 puts first (`cpuidle_poll_state_init()`, v4.16+; `poll_idle` before):
/// no latency, no residency; the core spins awake.
fn poll(uw: u64) -> IdleStateSpec {
    state("POLL", 0, 0, 0, uw)
}

/// HiKey960 Cortex-A53 cluster (hi3660.dtsi, v5.2-v6.8): `dynamic-power-coefficient` 110; OPPs
/// 533/999/1402/1709/1844 MHz at 700/800/900/1000/1100 mV (`cluster0_opp`); idle states
/// CPU_SLEEP_0 (entry 400, exit 650, min-residency 1500 us) and CLUSTER_SLEEP_0 (500, 1600,
/// 3500 us). **[assumed]** (no public measurement): busy leakage 20 mW, an awake idle core
/// 10 mW, a core powered down 0; the cluster's L2/SCU 40 mW awake, 5 mW down.
pub fn hikey960_a53() -> PowerSpec {
    PowerSpec {
        ceff_pf: 110,
        v_min_mv: 700,
        v_max_mv: 1100,
        static_uw: 20_000,
        idle_uw: 10_000,
        opp_mv: vec![700, 800, 900, 1000, 1100],
        idle_states: vec![
            wfi(10_000),
            state("CPU_SLEEP_0", 400, 650, 1500, 0),
            state("CLUSTER_SLEEP_0", 500, 1600, 3500, 0),
        ],
        uncore: UncoreSpec {
            awake_uw: 40_000,
            idle_uw: 5_000,
            deep_state: Some(2),
            coordinated: true,
        },
    }
}

/// HiKey960 Cortex-A73 cluster (hi3660.dtsi): dpc 550; OPPs 903/1421/1805/2112/2362 MHz at
/// 700/800/900/1000/1100 mV (`cluster1_opp`); CPU_SLEEP_1 (400, 550, 1500 us), CLUSTER_SLEEP_1
/// (800, 2900, 3500 us). **[assumed]**: busy leakage 60 mW, awake idle core 30 mW, cluster
/// 100 mW awake, 10 mW down (a bigger L2 and core than the A53's).
pub fn hikey960_a73() -> PowerSpec {
    PowerSpec {
        ceff_pf: 550,
        v_min_mv: 700,
        v_max_mv: 1100,
        static_uw: 60_000,
        idle_uw: 30_000,
        opp_mv: vec![700, 800, 900, 1000, 1100],
        idle_states: vec![
            wfi(30_000),
            state("CPU_SLEEP_1", 400, 550, 1500, 0),
            state("CLUSTER_SLEEP_1", 800, 2900, 3500, 0),
        ],
        uncore: UncoreSpec {
            awake_uw: 100_000,
            idle_uw: 10_000,
            deep_state: Some(2),
            coordinated: true,
        },
    }
}

/// Juno r2 idle states (juno-r2.dts, both clusters): CPU_SLEEP_0 (entry 300, exit 1200,
/// min-residency 2000 us), CLUSTER_SLEEP_0 (400, 1200, 2500 us).
fn juno_states(wfi_uw: u64) -> Vec<IdleStateSpec> {
    vec![
        wfi(wfi_uw),
        state("CPU_SLEEP_0", 300, 1200, 2000, 0),
        state("CLUSTER_SLEEP_0", 400, 1200, 2500, 0),
    ]
}

/// Juno r2 Cortex-A53 (juno-r2.dts): dpc 140. The OPPs come from the SCP firmware, not the DT:
/// voltages **[assumed]** 820/900/1000 mV at 450/800/950 MHz; leakage and idle figures
/// **[assumed]** as HiKey960's A53.
pub fn juno_a53() -> PowerSpec {
    PowerSpec {
        ceff_pf: 140,
        v_min_mv: 820,
        v_max_mv: 1000,
        static_uw: 20_000,
        idle_uw: 10_000,
        opp_mv: vec![820, 900, 1000],
        idle_states: juno_states(10_000),
        uncore: UncoreSpec {
            awake_uw: 40_000,
            idle_uw: 5_000,
            deep_state: Some(2),
            coordinated: true,
        },
    }
}

/// Juno r2 Cortex-A72 (juno-r2.dts): dpc 450; voltages **[assumed]** 820/900/1000 mV at
/// 600/1000/1200 MHz (SCP firmware); leakage and idle figures **[assumed]** as HiKey960's A73.
pub fn juno_a72() -> PowerSpec {
    PowerSpec {
        ceff_pf: 450,
        v_min_mv: 820,
        v_max_mv: 1000,
        static_uw: 60_000,
        idle_uw: 30_000,
        opp_mv: vec![820, 900, 1000],
        idle_states: juno_states(30_000),
        uncore: UncoreSpec {
            awake_uw: 100_000,
            idle_uw: 10_000,
            deep_state: Some(2),
            coordinated: true,
        },
    }
}

/// TC2 Cortex-A15 (vexpress-v2p-ca15_a7.dts): dpc 990; one idle state after WFI,
/// CLUSTER_SLEEP_BIG (entry 1000, exit 700, min-residency 2000 us). Voltages **[assumed]**
/// (SPC firmware) 900-1050 mV linear; leakage and idle figures **[assumed]**.
pub fn tc2_a15() -> PowerSpec {
    PowerSpec {
        ceff_pf: 990,
        v_min_mv: 900,
        v_max_mv: 1050,
        static_uw: 100_000,
        idle_uw: 40_000,
        opp_mv: vec![],
        idle_states: vec![wfi(40_000), state("CLUSTER_SLEEP_BIG", 1000, 700, 2000, 0)],
        uncore: UncoreSpec {
            awake_uw: 100_000,
            idle_uw: 10_000,
            deep_state: Some(1),
            coordinated: true,
        },
    }
}

/// TC2 Cortex-A7: dpc 133; CLUSTER_SLEEP_LITTLE (1000, 500, 2500 us). Voltages **[assumed]**
/// 800-1000 mV linear; leakage and idle figures **[assumed]**.
pub fn tc2_a7() -> PowerSpec {
    PowerSpec {
        ceff_pf: 133,
        v_min_mv: 800,
        v_max_mv: 1000,
        static_uw: 15_000,
        idle_uw: 5_000,
        opp_mv: vec![],
        idle_states: vec![
            wfi(5_000),
            state("CLUSTER_SLEEP_LITTLE", 1000, 500, 2500, 0),
        ],
        uncore: UncoreSpec {
            awake_uw: 30_000,
            idle_uw: 5_000,
            deep_state: Some(1),
            coordinated: true,
        },
    }
}

/// POWER9, all **[assumed]** (no per-core figures are public; the stop states come from the
/// firmware's device tree, `ibm,cpu-idle-state-*`, which no kernel tree carries): ~6 W per busy
/// core at 3.8 GHz; snooze, stop0_lite (1/10 us), stop2 (10/100 us) and a deep stop4 (100/1000
/// us) whose residency frees the chip's shared power.
pub fn power9_core() -> PowerSpec {
    PowerSpec {
        ceff_pf: 3000,
        v_min_mv: 800,
        v_max_mv: 1100,
        static_uw: 2_000_000,
        idle_uw: 1_000_000,
        opp_mv: vec![],
        idle_states: vec![
            poll(1_500_000),
            state("stop0_lite", 0, 1, 10, 800_000),
            state("stop2", 0, 10, 100, 300_000),
            state("stop4", 0, 100, 1000, 0),
        ],
        uncore: UncoreSpec {
            awake_uw: 20_000_000,
            idle_uw: 8_000_000,
            deep_state: Some(3),
            coordinated: false,
        },
    }
}

/// Xeon Platinum 8260L (Cascade Lake), per package. Idle states: `skx_cstates` (intel_idle.c,
/// Cascade Lake is INTEL_FAM6_SKYLAKE_X): C1 2/2 us, C1E 10/20 us, C6 133/600 us (exit latency
/// / target residency), after POLL. Package: ~27 W with both sockets idle (13.5 W each, package
/// C6), 165 W TDP.
///
/// **[assumed]**, with reasons:
/// - the uncore (mesh, LLC, memory controller, UPI, I/O) of an awake package draws 25 W: above
///   the 13.5 W package-C6 figure by the clocks and voltage a C0 package keeps; no split is
///   published.
/// - per-core busy power: V(f) linear from 700 mV at 1.0 GHz to 1100 mV at 3.9 GHz, leakage
///   1.0 W, and Ceff 1590 pF chosen so that 24 busy cores at the all-core turbo (3.1 GHz, 989 mV:
///   4.82 W + 1.0 W each, 140 W) plus the 25 W uncore come to the 165 W TDP.
/// - idle cores: POLL 1.5 W (spinning at low frequency), C1 0.8 W (clock-gated, voltage kept:
///   about the leakage), C1E 0.4 W (at the lowest voltage), C6 0 (power-gated; its residue is in
///   the package-C6 figure); an awake core running nothing 1.0 W.
pub fn cascadelake_core() -> PowerSpec {
    PowerSpec {
        ceff_pf: 1590,
        v_min_mv: 700,
        v_max_mv: 1100,
        static_uw: 1_000_000,
        idle_uw: 1_000_000,
        opp_mv: vec![],
        idle_states: vec![
            poll(1_500_000),
            state("C1", 0, 2, 2, 800_000),
            state("C1E", 0, 10, 20, 400_000),
            state("C6", 0, 133, 600, 0),
        ],
        uncore: UncoreSpec {
            awake_uw: 25_000_000,
            idle_uw: 13_500_000,
            deep_state: Some(3),
            coordinated: false,
        },
    }
}

/// Ivy Bridge-EP, per package: `ivt_cstates` (intel_idle.c, 2-socket systems): C1 1/1, C1E
/// 10/80, C3 59/156, C6 82/300 us, after POLL. Power figures **[assumed]** as Cascade Lake's
/// scaled to 10 cores (uncore 20 W awake, 10 W in package C6; Ceff 1800 pF at 22 nm).
pub fn ivb_ep_core() -> PowerSpec {
    PowerSpec {
        ceff_pf: 1800,
        v_min_mv: 700,
        v_max_mv: 1100,
        static_uw: 1_000_000,
        idle_uw: 1_000_000,
        opp_mv: vec![],
        idle_states: vec![
            poll(1_500_000),
            state("C1", 0, 1, 1, 800_000),
            state("C1E", 0, 10, 80, 400_000),
            state("C3", 0, 59, 156, 200_000),
            state("C6", 0, 82, 300, 0),
        ],
        uncore: UncoreSpec {
            awake_uw: 20_000_000,
            idle_uw: 10_000_000,
            deep_state: Some(4),
            coordinated: false,
        },
    }
}
