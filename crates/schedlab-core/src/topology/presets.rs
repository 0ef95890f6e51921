//! The machines of shared/reference/platforms-and-experiments.md as [`MachineSpec`] data.
//!
//! Values marked *assumed* have no primary source (see kernel-facts.md §9 and §11); they are ordinary
//! fields a user can change.

use super::{ClusterSpec, FreqDomainSpan, LlcSpan, MachineSpec, TurboBin};
use crate::cpufreq::CpufreqDriverSpec;
use crate::error::{Error, Result};
use crate::hwp::HwpSpec;
use crate::power::PowerSpec;

mod power;

pub const NAMES: &[&str] = &[
    "hikey960",
    "hikey960-dynamiq",
    "juno-r2",
    "tc2",
    "power9-smt8",
    "cascadelake-8260l",
    "ivb-ep",
    "alderlake-12900k",
    "alderlake-12900k-nosmt",
    "epyc-9654-1s",
    "epyc-9654-2s",
    "epyc-9554-2s",
    "tensor-g1",
];

/// One-line descriptions, in the order of [`NAMES`].
pub const SUMMARIES: &[&str] = &[
    "HiKey960 (Kirin 960): 4x Cortex-A53 (cap 462) + 4x Cortex-A73 (1024), classic big.LITTLE: MC per cluster, DIE above",
    "HiKey960 CPUs with all 8 in one MC domain, as a DynamIQ system with a shared DSU would have them",
    "Arm Juno r2: big CPUs 1-2 Cortex-A72 (1024), little CPUs 0,3-5 Cortex-A53 (383)",
    "Arm TC2: CPUs 0-1 Cortex-A15 (1024), CPUs 2-4 Cortex-A7 (430)",
    "IBM POWER9 SMT8 big cores: each is two SMT4 small cores, threads {0,2,4,6} and {1,3,5,7}",
    "Intel Xeon Platinum 8260L (Cascade Lake): 2 sockets x 24 cores x 2 threads, turbo by active cores",
    "Intel Ivy Bridge-EP: 2 sockets x 10 cores x 2 threads",
    "Intel Core i9-12900K (Alder Lake-S): 8 Golden Cove P-cores with HT (CPUs 0-15; 2 favoured cores at 5.2 GHz) + 8 Gracemont E-cores (16-23, 2 modules of 4 sharing L2 and a clock), one LLC; capacities 1024 (with HT on, v6.12's hybrid capacity scaling stays off: the ITMT-only view of v6.5 on), ITMT priorities from CPPC highest_perf",
    "The i9-12900K booted with nosmt: 8 P-cores one thread each (CPUs 0-7) + 8 E-cores (8-15); v6.12+ intel_pstate gives it hybrid capacities (P 1024/992, E 605) and clears ITMT",
    "AMD EPYC 9654 (Genoa), one socket: 96 Zen 4 cores x 2 threads in 12 CCDs, an L3 (LLC, MC domain) per 8-core CCX, no NUMA (epyc-9654-2s is two of them)",
    "AMD EPYC 9654 (Genoa) x 2 sockets: 2 x 96 Zen 4 cores x 2 threads (384 CPUs), an L3 (LLC, MC domain) per 8-core CCX, a NUMA node per socket (NPS1)",
    "AMD EPYC 9554 (Genoa) x 2 sockets: 2 x 64 Zen 4 cores x 2 threads (256 CPUs), an L3 (LLC, MC domain) per 8-core CCX, a NUMA node per socket (NPS1)",
    "Google Tensor G1 (gs101, Pixel 6): 4x Cortex-A55 (cap 160) + 2x Cortex-A76 (498) + 2x Cortex-X1 (1024), one DSU L3 (one MC domain, SD_ASYM_CPUCAPACITY), a cpufreq policy and energy model per cluster (gs101.dtsi)",
];

/// The presets kept as [`MachineSpec`] JSON files (crates/schedlab-core/presets/), compiled in: a
/// user can copy one and edit it. Their sources and what is **[assumed]** are in
/// crates/schedlab-core/presets/README.md.
///
/// - `alderlake-12900k`: Intel ARK (i9-12900K: P-core base 3.2 GHz, Turbo Boost Max 3.0 5.2 GHz,
///   P-core max turbo 5.1 GHz, E-core base 2.4 / max turbo 3.9 GHz, PL1 125 W, PL2 241 W);
///   `adl_cstates` (drivers/idle/intel_idle.c, v5.18+: C1E 2/4, C6 220/600, C8 280/800,
///   C10 680/2000 us exit latency / target residency; C1 is `CPUIDLE_FLAG_UNUSABLE` by default
///   and left out); intel_cpufreq per CPU as on the Xeon presets. Capacities are all 1024: x86
///   before v6.12 has no `arch_scale_cpu_capacity()` of its own, and v6.12's (intel_pstate's
///   hybrid capacity scaling) stays off with SMT on (`alderlake-12900k-nosmt` is the machine it
///   acts on), so the E-cores' lower speed per clock is the workload's (`speed` per core type "Gracemont").
///   `itmt_prio` **[assumed]**: HWP highest_perf in intel_pstate's own units, frequency /
///   scaling factor (`HYBRID_SCALING_FACTOR` 78741 kHz per unit on P-cores, 100000 on E-cores):
///   the favoured pair's 5.2 GHz -> 66, the other P-cores' 5.1 GHz -> 64, the E-cores' 3.9 GHz
///   -> 39 (rounded down). `hwp_highest_perf` **[assumed]**: the same figures (v6.12+ intel_pstate
///   reads HWP_CAP highest for its hybrid capacities; the ACPI _CPC highest_perf of HWP parts
///   commonly reads that same field through an FFH register).
/// - `alderlake-12900k-nosmt`: the same part booted with `nosmt`, the one configuration where
///   v6.12+ intel_pstate enables hybrid capacity scaling (`hybrid_init_cpu_capacity_scaling()`
///   requires `!sched_smt_active()`). The kernel keeps the offline siblings' numbers (P-cores
///   0, 2, ..., 14); the model has no offline CPUs and numbers the online ones 0-15.
/// - `epyc-9654-1s`, `epyc-9654-2s`, `epyc-9554-2s`: AMD product pages (9654: base 2.4, max boost 3.7, all-core
///   boost 3.55 GHz, 360 W; 9554: base 3.1, max and all-core boost 3.75 GHz, 360 W); Linux CPU
///   numbering of x86 (thread t of core c of socket p is `t * cores_total + p * cores + c`);
///   one LLC per CCX (`cpu_coregroup_mask()` = `cpu_llc_shared_mask()`), a NUMA node per socket.
/// - `tensor-g1`: arch/arm64/boot/dts/exynos/google/gs101.dtsi (today's mainline; the OPP
///   tables came after the initial gs101 support): capacity-dmips-mhz 250/620/1024, dynamic-power-coefficient 70/284/650, the
///   three `opp-shared` OPP tables with their `opp-microvolt`, `clock-latency-ns` 500000, and
///   the `c2` idle state of each core type; capacities by `topology_normalize_cpu_scale()`
///   (250 x 1803 and 620 x 2253 against 1024 x 2802 MHz: 160 and 498).
const JSON_PRESETS: &[(&str, &str)] = &[
    (
        "alderlake-12900k",
        include_str!("../../presets/alderlake-12900k.json"),
    ),
    (
        "alderlake-12900k-nosmt",
        include_str!("../../presets/alderlake-12900k-nosmt.json"),
    ),
    (
        "epyc-9654-1s",
        include_str!("../../presets/epyc-9654-1s.json"),
    ),
    (
        "epyc-9654-2s",
        include_str!("../../presets/epyc-9654-2s.json"),
    ),
    (
        "epyc-9554-2s",
        include_str!("../../presets/epyc-9554-2s.json"),
    ),
    ("tensor-g1", include_str!("../../presets/tensor-g1.json")),
];

/// The JSON text of a preset kept as a file (see [`JSON_PRESETS`]), for `schedlab` to print
/// so a user can copy it.
pub fn preset_json(name: &str) -> Option<&'static str> {
    JSON_PRESETS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, json)| *json)
}

/// Whether `name` is a preset, without building it (the page checks a link's machine with this:
/// it carries no preset, see crates/schedlab-web/src/draft/machine.rs).
pub fn known(name: &str) -> Result<()> {
    if NAMES.contains(&name) {
        Ok(())
    } else {
        Err(unknown(name))
    }
}

fn unknown(name: &str) -> Error {
    Error::Unknown {
        kind: "machine preset",
        name: name.into(),
        known: NAMES.iter().map(|s| s.to_string()).collect(),
    }
}

pub fn preset(name: &str) -> Result<MachineSpec> {
    Ok(match name {
        "hikey960" => hikey960(LlcSpan::Cluster),
        "hikey960-dynamiq" => {
            let mut m = hikey960(LlcSpan::Package);
            m.name = "hikey960-dynamiq".into();
            m.description = SUMMARIES[1].into();
            m
        }
        "juno-r2" => juno_r2(),
        "tc2" => tc2(),
        "power9-smt8" => power9_smt8(2),
        "cascadelake-8260l" => cascadelake_8260l(),
        "ivb-ep" => ivb_ep(),
        _ if preset_json(name).is_some() => {
            let json = preset_json(name).unwrap_or_default();
            serde_json::from_str(json).map_err(|e| {
                Error::Topology(format!(
                    "built-in machine preset '{name}' does not parse: {e}"
                ))
            })?
        }
        _ => return Err(unknown(name)),
    })
}

fn cluster(
    name: &str,
    core_type: &str,
    cpu_ids: Vec<usize>,
    capacity: u32,
    opps: &[u32],
    power: PowerSpec,
) -> ClusterSpec {
    ClusterSpec {
        name: name.into(),
        core_type: core_type.into(),
        package: 0,
        cores: cpu_ids.len() as u32,
        threads_per_core: 1,
        cpu_ids: Some(cpu_ids),
        smt_sharing_groups: None,
        smt_throughput: vec![],
        capacity_orig: capacity,
        opps_mhz: opps.to_vec(),
        turbo_bins: vec![],
        freq_domain: FreqDomainSpan::Cluster,
        cpufreq_policy: None,
        policy_starts_at_min: false,
        power,
        cpufreq_driver: CpufreqDriverSpec::default(),
        hwp: HwpSpec::default(),
        itmt_prio: None,
        hwp_highest_perf: None,
    }
}

/// cpufreq-dt on HiKey960: `dev_pm_opp_get_max_transition_latency()` = the OPP tables'
/// `clock-latency-ns` of 300 000 (every OPP of both clusters, hi3660.dtsi in v5.2.1 and v6.8) plus
/// no voltage latency (the CPU nodes have no `cpu-supply`: the stub clock's firmware sets the
/// voltage). No `transition_delay_us`.
fn cpufreq_dt_hi3660() -> CpufreqDriverSpec {
    CpufreqDriverSpec {
        name: "cpufreq-dt".into(),
        transition_latency_ns: 300_000,
        ..CpufreqDriverSpec::default()
    }
}

/// scpi-cpufreq on Juno r2 (arm_big_little with the SCPI ops in v4.9.115 and v4.14.4, a driver of
/// its own in v4.16.13):
/// the latency is the SCP firmware's DVFS domain info (`scpi_dvfs_get_info()`, "uS to nS"), which
/// neither the kernel nor the DT holds. **[assumed]** 1200 us, the Juno DVFS `latency` of Arm's
/// open SCP-firmware (its SCMI successor; later versions say 1450 us). Any value of 10 us or more
/// gives the same 10 ms from v4.15. No `transition_delay_us`.
fn scpi_cpufreq_juno() -> CpufreqDriverSpec {
    CpufreqDriverSpec {
        name: "scpi-cpufreq".into(),
        transition_latency_ns: 1_200_000,
        ..CpufreqDriverSpec::default()
    }
}

/// vexpress-spc-cpufreq on TC2: `ve_spc_get_transition_latency()` returns 1 ms (v4.9.115, v5.2.1;
/// v6.8 sets `cpuinfo.transition_latency = 1000000` itself, arm_big_little.c being merged in). No
/// `transition_delay_us`.
fn vexpress_spc() -> CpufreqDriverSpec {
    CpufreqDriverSpec {
        name: "vexpress-spc".into(),
        transition_latency_ns: 1_000_000,
        ..CpufreqDriverSpec::default()
    }
}

/// Skylake-SP / Cascade Lake-SP HWP (Speed Shift): the autonomous algorithm is not published, so
/// every figure is **[assumed]** (hardware-facts.md: "tens of ms to reach peak from idle"): a 10 ms
/// half-life of the core's C0-residency average, full speed at half activity with EPP 0 and only
/// when never idle at EPP 255, so 20 ms from idle to the peak at the default EPP 128. The
/// defaults of [`HwpSpec`], named here because this is the part they are chosen for.
const XEON_HWP: HwpSpec = HwpSpec {
    activity_half_life_us: 10_000,
    target_activity_epp_0: 512,
    target_activity_epp_255: 1024,
};
/// hi3660.dtsi (v6.8): A53 capacity-dmips-mhz 592, A73 1024; capacities 462/1024 after
/// `topology_normalize_cpu_scale()` with max OPPs 1844 and 2362 MHz.
fn hikey960(llc: LlcSpan) -> MachineSpec {
    with_driver(
        cpufreq_dt_hi3660(),
        MachineSpec {
            name: "hikey960".into(),
            description: SUMMARIES[0].into(),
            llc,
            clusters: vec![
                cluster(
                    "A53",
                    "Cortex-A53",
                    vec![0, 1, 2, 3],
                    462,
                    &[533, 999, 1402, 1709, 1844],
                    power::hikey960_a53(),
                ),
                cluster(
                    "A73",
                    "Cortex-A73",
                    vec![4, 5, 6, 7],
                    1024,
                    &[903, 1421, 1805, 2112, 2362],
                    power::hikey960_a73(),
                ),
            ],
        },
    )
}

/// Every cluster of `m` runs `driver`.
fn with_driver(driver: CpufreqDriverSpec, mut m: MachineSpec) -> MachineSpec {
    for c in &mut m.clusters {
        c.cpufreq_driver = driver.clone();
    }
    m
}

/// juno-r2.dts: A72 1024, A53 485 dmips/MHz; Linux capacities 1024/383. OPP tables come from SCP
/// firmware: *assumed* 450/800/950 MHz (A53) and 600/1000/1200 MHz (A72), maxima inferred from
/// 383 = 485 x 950 / 1200.
fn juno_r2() -> MachineSpec {
    with_driver(
        scpi_cpufreq_juno(),
        MachineSpec {
            name: "juno-r2".into(),
            description: SUMMARIES[2].into(),
            llc: LlcSpan::Cluster,
            clusters: vec![
                cluster(
                    "A53",
                    "Cortex-A53",
                    vec![0, 3, 4, 5],
                    383,
                    &[450, 800, 950],
                    power::juno_a53(),
                ),
                cluster(
                    "A72",
                    "Cortex-A72",
                    vec![1, 2],
                    1024,
                    &[600, 1000, 1200],
                    power::juno_a72(),
                ),
            ],
        },
    )
}

/// vexpress-v2p-ca15_a7: A15 1024, A7 516 dmips/MHz; little capacity 430 = 516 x 1000 / 1200.
/// OPPs *assumed* (SPC firmware): A15 500-1200 MHz, A7 350-1000 MHz.
fn tc2() -> MachineSpec {
    with_driver(
        vexpress_spc(),
        MachineSpec {
            name: "tc2".into(),
            description: SUMMARIES[3].into(),
            llc: LlcSpan::Cluster,
            clusters: vec![
                cluster(
                    "A15",
                    "Cortex-A15",
                    vec![0, 1],
                    1024,
                    &[500, 600, 700, 800, 900, 1000, 1100, 1200],
                    power::tc2_a15(),
                ),
                cluster(
                    "A7",
                    "Cortex-A7",
                    vec![2, 3, 4],
                    430,
                    &[350, 400, 500, 600, 700, 800, 900, 1000],
                    power::tc2_a7(),
                ),
            ],
        },
    )
}

/// POWER9 SMT8 big cores. Thread groups as `ibm,thread-groups` describes them (parse_thread_groups(),
/// v6.8): even threads form one small core, odd threads the other. Per-thread throughput within a
/// small core is *assumed* (POWER8 data: ~80% per thread at SMT2); frequency *assumed* ~3.8 GHz.
pub fn power9_smt8(big_cores: u32) -> MachineSpec {
    MachineSpec {
        name: "power9-smt8".into(),
        description: SUMMARIES[4].into(),
        llc: LlcSpan::Package,
        clusters: vec![ClusterSpec {
            name: "P9".into(),
            core_type: "POWER9".into(),
            package: 0,
            cores: big_cores,
            threads_per_core: 8,
            cpu_ids: None,
            smt_sharing_groups: Some(vec![vec![0, 2, 4, 6], vec![1, 3, 5, 7]]),
            smt_throughput: vec![1024, 820, 660, 540],
            capacity_orig: 1024,
            opps_mhz: vec![2300, 2800, 3300, 3800],
            turbo_bins: vec![],
            freq_domain: FreqDomainSpan::Cluster,
            cpufreq_policy: None,
            policy_starts_at_min: false,
            power: power::power9_core(),
            // powernv-cpufreq sets no transition latency or delay (v4.9.115 and v6.8
            // powernv_cpufreq_cpu_init()): schedutil gets LATENCY_MULTIPLIER, 1000 us.
            cpufreq_driver: CpufreqDriverSpec {
                name: "powernv-cpufreq".into(),
                ..CpufreqDriverSpec::default()
            },
            hwp: HwpSpec::default(),
            itmt_prio: None,
            hwp_highest_perf: None,
        }],
    }
}

/// Linux numbers x86 SMT siblings far apart: package p core c thread t is CPU
/// `t * (packages * cores) + p * cores + c`.
fn x86_ids(package: usize, packages: usize, cores: usize) -> Vec<usize> {
    let mut ids = Vec::with_capacity(cores * 2);
    for c in 0..cores {
        for t in 0..2 {
            ids.push(t * packages * cores + package * cores + c);
        }
    }
    ids
}

fn x86_package(
    name: &str,
    core_type: &str,
    package: usize,
    packages: usize,
    cores: usize,
    opps: Vec<u32>,
    turbo: Vec<TurboBin>,
) -> ClusterSpec {
    ClusterSpec {
        name: name.into(),
        core_type: core_type.into(),
        package: package as u32,
        cores: cores as u32,
        threads_per_core: 2,
        cpu_ids: Some(x86_ids(package, packages, cores)),
        smt_sharing_groups: None,
        // *assumed*: two busy hyperthreads give ~1.25x one thread's throughput.
        smt_throughput: vec![1024, 640],
        capacity_orig: 1024,
        opps_mhz: opps,
        turbo_bins: turbo,
        // The two hyperthreads of a core share its clock, which runs at the higher of their
        // requests; intel_pstate (both modes) asks per logical CPU: intel_cpufreq (passive)
        // registers one cpufreq policy per CPU with policy->cur at the minimum
        // (`intel_cpufreq_cpu_init()`, v4.x-v6.8), HWP requests are per-CPU MSRs
        // (fidelity review F2).
        freq_domain: FreqDomainSpan::Core,
        cpufreq_policy: Some(FreqDomainSpan::Cpu),
        policy_starts_at_min: true,
        power: PowerSpec::default(),
        // Skylake and later have HWP; ivb_ep() replaces it.
        cpufreq_driver: intel_cpufreq(true),
        hwp: XEON_HWP,
        itmt_prio: None,
        hwp_highest_perf: None,
    }
}

/// intel_cpufreq (intel_pstate in passive mode, the driver schedutil runs on): `cpuinfo.
/// transition_latency` = `INTEL_CPUFREQ_TRANSITION_LATENCY` (20 000 ns, v4.10+) and
/// `transition_delay_us` = `INTEL_CPUFREQ_TRANSITION_DELAY` (500 us, v4.12+; read in v4.12,
/// v5.2.1, v6.8 `intel_cpufreq_cpu_init()`), or `INTEL_CPUFREQ_TRANSITION_DELAY_HWP` (5000 us,
/// v5.9+) when the CPU has HWP (Skylake and later, not Ivy Bridge).
fn intel_cpufreq(hwp_capable: bool) -> CpufreqDriverSpec {
    CpufreqDriverSpec {
        name: "intel_cpufreq".into(),
        transition_latency_ns: 20_000,
        transition_delay_us: 500,
        transition_delay_hwp_us: if hwp_capable { 5_000 } else { 0 },
    }
}

/// Xeon Platinum 8260L: base 2400 MHz, minimum 1000 MHz; turbo bins by active cores (*assumed*, as in
/// the platform table): 2C 3900, 4C 3700, 8-16C 3600, 20C 3300, 24C 3100 MHz.
fn cascadelake_8260l() -> MachineSpec {
    let opps: Vec<u32> = (10..=24).map(|r| r * 100).collect();
    let turbo = vec![
        TurboBin {
            max_active_cores: 2,
            mhz: 3900,
        },
        TurboBin {
            max_active_cores: 4,
            mhz: 3700,
        },
        TurboBin {
            max_active_cores: 8,
            mhz: 3600,
        },
        TurboBin {
            max_active_cores: 12,
            mhz: 3600,
        },
        TurboBin {
            max_active_cores: 16,
            mhz: 3600,
        },
        TurboBin {
            max_active_cores: 20,
            mhz: 3300,
        },
        TurboBin {
            max_active_cores: 24,
            mhz: 3100,
        },
    ];
    MachineSpec {
        name: "cascadelake-8260l".into(),
        description: SUMMARIES[5].into(),
        llc: LlcSpan::Package,
        clusters: (0..2)
            .map(|p| {
                let mut c = x86_package(
                    &format!("S{p}"),
                    "Cascade Lake",
                    p,
                    2,
                    24,
                    opps.clone(),
                    turbo.clone(),
                );
                c.power = power::cascadelake_core();
                c
            })
            .collect(),
    }
}

/// Ivy Bridge-EP 2x10x2 (Peter Zijlstra's test box). SKU unknown: base 2800 MHz, turbo 3600 MHz
/// *assumed*; only used for a hackbench neutrality check.
fn ivb_ep() -> MachineSpec {
    let opps: Vec<u32> = (12..=28).map(|r| r * 100).collect();
    let turbo = vec![
        TurboBin {
            max_active_cores: 2,
            mhz: 3600,
        },
        TurboBin {
            max_active_cores: 10,
            mhz: 3100,
        },
    ];
    MachineSpec {
        name: "ivb-ep".into(),
        description: SUMMARIES[6].into(),
        llc: LlcSpan::Package,
        clusters: (0..2)
            .map(|p| {
                let mut c = x86_package(
                    &format!("S{p}"),
                    "Ivy Bridge-EP",
                    p,
                    2,
                    10,
                    opps.clone(),
                    turbo.clone(),
                );
                c.power = power::ivb_ep_core();
                // Ivy Bridge has no HWP.
                c.cpufreq_driver = intel_cpufreq(false);
                c
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests;
