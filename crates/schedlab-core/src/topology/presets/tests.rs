//! The JSON presets (Alder Lake, EPYC Genoa, Tensor G1): each parses and round-trips, its sched
//! domains are the levels and flags the kernel builds, its capacities and ITMT priorities are the
//! documented ones.

use super::*;
use crate::domains::flags::{
    SD_ASYM_CPUCAPACITY, SD_ASYM_CPUCAPACITY_FULL, SD_ASYM_PACKING, SD_NUMA,
};
use crate::domains::{SchedDomains, SdLevel};
use crate::kernel::{build_config, Governor};
use crate::topology::{normalize_cpu_capacity, Topology};

fn build(machine: &str, patches: &[&str], baseline: &str) -> (Topology, SchedDomains) {
    let t = Topology::build(&preset(machine).unwrap()).unwrap();
    let p: Vec<String> = patches.iter().map(|s| s.to_string()).collect();
    let c = build_config(baseline, &p, None, Governor::Schedutil).unwrap();
    let d = SchedDomains::build(&t, &c).unwrap();
    d.check_well_formed(t.nr_cpus()).unwrap();
    (t, d)
}

fn levels(d: &SchedDomains, cpu: usize) -> Vec<(SdLevel, usize)> {
    d.per_cpu[cpu]
        .iter()
        .map(|&i| (d.domains[i].level, d.domains[i].span_weight))
        .collect()
}

fn flags_at(d: &SchedDomains, cpu: usize, level: SdLevel) -> u32 {
    d.per_cpu[cpu]
        .iter()
        .map(|&i| &d.domains[i])
        .find(|sd| sd.level == level)
        .map_or(0, |sd| sd.flags)
}

#[test]
fn json_presets_parse_round_trip_and_match_their_summaries() {
    for (name, json) in JSON_PRESETS {
        let spec = preset(name).unwrap();
        assert_eq!(spec.name, *name);
        let i = NAMES.iter().position(|n| n == name).unwrap();
        assert_eq!(spec.description, SUMMARIES[i], "{name}");
        // The file is a MachineSpec as serde writes and reads it: out and back in is the same.
        let again: MachineSpec =
            serde_json::from_str(&serde_json::to_string_pretty(&spec).unwrap()).unwrap();
        assert_eq!(again, spec, "{name}");
        assert_eq!(preset_json(name), Some(*json));
        Topology::build(&spec).unwrap();
    }
    assert_eq!(preset_json("hikey960"), None);
}

#[test]
fn alderlake_has_smt_on_p_cores_and_one_mc_of_24() {
    let (t, d) = build("alderlake-12900k", &[], "v6.8");
    assert_eq!(t.nr_cpus(), 24);
    assert_eq!(t.cores[t.cpus[0].core].to_string(), "0-1");
    assert_eq!(t.cores[t.cpus[16].core].to_string(), "16");
    // P-cores: SMT (2) then MC (24); E-cores have no SMT sibling, so their SMT domain degenerates.
    assert_eq!(levels(&d, 0), vec![(SdLevel::SMT, 2), (SdLevel::MC, 24)]);
    assert_eq!(levels(&d, 16), vec![(SdLevel::MC, 24)]);
    assert_eq!(d.llc_size[16], 24);
    // All capacities 1024 (no x86 arch_scale_cpu_capacity() before v6.12): no asym capacity.
    assert_eq!(t.capacities(), vec![1024]);
    assert_eq!(flags_at(&d, 0, SdLevel::MC) & SD_ASYM_CPUCAPACITY, 0);
    // Without ITMT (the baselines) nothing packs.
    assert_eq!(flags_at(&d, 0, SdLevel::MC) & SD_ASYM_PACKING, 0);
    // E-cores: two 4-core modules, each one clock; P-cores a clock per core; a policy per CPU.
    assert_eq!(
        t.freq_domains[t.cpus[16].freq_domain].cpus.to_string(),
        "16-19"
    );
    assert_eq!(
        t.freq_domains[t.cpus[0].freq_domain].cpus.to_string(),
        "0-1"
    );
    assert_eq!(t.policies.len(), 24);
    let fav = &t.freq_domains[t.cpus[0].freq_domain];
    assert_eq!((fav.peak_khz(), fav.max_khz(16)), (5_200_000, 4_900_000));
    let p = &t.freq_domains[t.cpus[4].freq_domain];
    assert_eq!(p.peak_khz(), 5_100_000);
    let e = &t.freq_domains[t.cpus[20].freq_domain];
    assert_eq!((e.peak_khz(), e.reference_khz()), (3_900_000, 2_400_000));
}

/// v6.5+ ITMT: SD_ASYM_PACKING on MC only, both siblings carry the core's highest_perf; the
/// v4.10-v6.4 form packs at SMT too and scales the second sibling down to prio * 2 / 4, below
/// the E-cores. `sched_asym_prefer(E-core, P-core's second thread)` is the difference.
#[test]
fn alderlake_itmt_priorities_by_era() {
    let (_, d) = build("alderlake-12900k", &["x86-itmt"], "v6.8");
    assert_ne!(flags_at(&d, 0, SdLevel::MC) & SD_ASYM_PACKING, 0);
    assert_eq!(flags_at(&d, 0, SdLevel::SMT) & SD_ASYM_PACKING, 0);
    assert_eq!(&d.asym_prio[0..6], &[66, 66, 66, 66, 64, 64]);
    assert_eq!(d.asym_prio[16], 39);
    assert!(d.sched_asym_prefer(0, 4) && d.sched_asym_prefer(5, 16));
    assert!(!d.sched_asym_prefer(1, 0));
    assert!(!d.sched_asym_prefer(16, 1));
    // The highest SD_ASYM_PACKING domain of every CPU is the MC.
    assert_eq!(d.domains[d.sd_asym_packing[0].unwrap()].level, SdLevel::MC);

    let (_, old) = build("alderlake-12900k", &["x86-itmt-v4.10"], "v6.8");
    assert_ne!(flags_at(&old, 0, SdLevel::SMT) & SD_ASYM_PACKING, 0);
    assert_ne!(flags_at(&old, 0, SdLevel::MC) & SD_ASYM_PACKING, 0);
    // 66 * 2 / 1, 66 * 2 / 4; 64 * 2, 64 * 2 / 4; E-cores (one sibling) 39 * 2.
    assert_eq!(&old.asym_prio[0..6], &[132, 33, 132, 33, 128, 32]);
    assert_eq!(old.asym_prio[16], 78);
    assert!(old.sched_asym_prefer(16, 1));
    assert!(old.sched_asym_prefer(0, 16));
}

/// v6.12+ intel_pstate on Alder Lake without SMT (`hybrid_init_cpu_capacity_scaling()`): the
/// CPUs' capacities become `HWP highest perf << 10 / 66` and ITMT is cleared, so MC spans
/// different capacities (SD_ASYM_CPUCAPACITY_FULL) and no longer packs (no SD_ASYM_PACKING) even
/// with the `x86-itmt` patch. v6.8 on the same machine: every CPU 1024, ITMT packing at MC.
#[test]
fn alderlake_nosmt_gets_hybrid_capacities_and_loses_itmt_from_v6_12() {
    let mc = |d: &SchedDomains| flags_at(d, 0, SdLevel::MC);
    let (t, old) = build("alderlake-12900k-nosmt", &["x86-itmt"], "v6.8");
    assert_eq!(t.nr_cpus(), 16);
    assert_eq!(levels(&old, 0), vec![(SdLevel::MC, 16)]);
    assert!((0..16).all(|c| old.domains[old.per_cpu[c][0]]
        .groups
        .iter()
        .all(|g| g.capacity == 1024)));
    assert_ne!(mc(&old) & SD_ASYM_PACKING, 0);
    assert_eq!(mc(&old) & SD_ASYM_CPUCAPACITY, 0);
    assert_eq!(old.sd_asym_cpucapacity[0], None);
    assert!(
        old.sched_asym_prefer(0, 8),
        "ITMT: the favoured P-core over an E-core"
    );

    let (t, new) = build("alderlake-12900k-nosmt", &["x86-itmt"], "v6.12");
    let c = build_config("v6.12", &[], None, Governor::Schedutil).unwrap();
    let caps: Vec<u64> = (0..16)
        .map(|cpu| crate::domains::arch_scale_cpu_capacity(&t, &c, cpu))
        .collect();
    // 66 << 10 / 66, 64 << 10 / 66 = 992, 39 << 10 / 66 = 605.
    assert_eq!(&caps[0..3], &[1024, 1024, 992]);
    assert_eq!(caps[7], 992);
    assert!(caps[8..].iter().all(|&c| c == 605));
    assert_eq!(mc(&new) & SD_ASYM_PACKING, 0, "sched_clear_itmt_support()");
    assert_ne!(mc(&new) & SD_ASYM_CPUCAPACITY_FULL, 0);
    assert_eq!(new.sd_asym_packing[0], None);
    assert_eq!(
        new.domains[new.sd_asym_cpucapacity[8].unwrap()].level,
        SdLevel::MC
    );
    assert_eq!(new.max_cpu_capacity, 1024);
}

/// With HT on, `hybrid_init_cpu_capacity_scaling()` does nothing (`sched_smt_active()`): v6.12
/// on the i9-12900K builds what v6.8 builds, ITMT packing and every CPU at 1024.
#[test]
fn alderlake_with_smt_keeps_itmt_and_1024_under_v6_12() {
    let (t, new) = build("alderlake-12900k", &["x86-itmt"], "v6.12");
    let (_, old) = build("alderlake-12900k", &["x86-itmt"], "v6.8");
    let c = build_config("v6.12", &[], None, Governor::Schedutil).unwrap();
    assert!((0..24).all(|cpu| crate::domains::arch_scale_cpu_capacity(&t, &c, cpu) == 1024));
    for cpu in [0, 5, 16, 23] {
        assert_eq!(levels(&new, cpu), levels(&old, cpu));
        for level in [SdLevel::SMT, SdLevel::MC] {
            assert_eq!(
                flags_at(&new, cpu, level),
                flags_at(&old, cpu, level),
                "CPU{cpu}"
            );
        }
    }
    assert_eq!(new.asym_prio, old.asym_prio);
    assert_ne!(flags_at(&new, 0, SdLevel::MC) & SD_ASYM_PACKING, 0);
}

#[test]
fn epyc_has_an_mc_domain_per_ccx_and_numa_across_sockets() {
    let (t, d) = build("epyc-9654-1s", &[], "v6.8");
    assert_eq!(t.nr_cpus(), 192);
    // Thread 1 of core 0 is CPU 96; CCX 1 starts at core 8.
    assert_eq!(t.cores[t.cpus[0].core].to_string(), "0,96");
    assert_eq!(
        levels(&d, 0),
        vec![(SdLevel::SMT, 2), (SdLevel::MC, 16), (SdLevel::DIE, 192)]
    );
    assert_eq!(d.llc_size[0], 16);
    assert!(d.cpus_share_cache(0, 103) && !d.cpus_share_cache(0, 8));
    let dom = &d.domains[d.per_cpu[0][2]];
    assert_eq!(dom.groups.len(), 12);

    let (t, d) = build("epyc-9554-2s", &[], "v6.8");
    assert_eq!(t.nr_cpus(), 256);
    assert_eq!(t.cores[t.cpus[64].core].to_string(), "64,192");
    assert_eq!(t.cpus[64].package, 1);
    assert_eq!(
        levels(&d, 0),
        vec![
            (SdLevel::SMT, 2),
            (SdLevel::MC, 16),
            (SdLevel::DIE, 128),
            (SdLevel::NUMA, 256)
        ]
    );
    assert_ne!(flags_at(&d, 0, SdLevel::NUMA) & SD_NUMA, 0);
    // sd->imb_numa_nr (v6.8 build_sched_domains()): 8 LLCs per node, so the DIE gets 8 and the
    // NUMA domain 8 x its one node-span.
    assert_eq!(d.domains[d.per_cpu[0][2]].imb_numa_nr, 8);
}

/// The machine: two EPYC 9654 sockets, 384 CPUs (past the old 256-bit CpuMask). Thread 1
/// of core c is CPU 192 + c; CCX 12 (socket 1's first) starts at core 96.
#[test]
fn epyc_9654_2s_is_384_cpus_with_smt_mc_per_ccx_die_and_numa() {
    let (t, d) = build("epyc-9654-2s", &[], "v6.12");
    assert_eq!(t.nr_cpus(), 384);
    assert_eq!(t.cores[t.cpus[0].core].to_string(), "0,192");
    assert_eq!(t.cores[t.cpus[383].core].to_string(), "191,383");
    assert_eq!(
        (t.cpus[95].package, t.cpus[96].package, t.cpus[288].package),
        (0, 1, 1)
    );
    for cpu in [0, 191, 192, 383] {
        assert_eq!(
            levels(&d, cpu),
            vec![
                (SdLevel::SMT, 2),
                (SdLevel::MC, 16),
                (SdLevel::DIE, 192),
                (SdLevel::NUMA, 384)
            ],
            "CPU{cpu}"
        );
    }
    assert_eq!(d.llc_size[383], 16);
    assert!(d.cpus_share_cache(96, 295) && !d.cpus_share_cache(95, 96));
    assert_eq!(d.domains[d.per_cpu[0][2]].groups.len(), 12);
    assert_eq!(d.domains[d.per_cpu[0][3]].groups.len(), 2);
    // 12 LLCs per node.
    assert_eq!(d.domains[d.per_cpu[0][2]].imb_numa_nr, 12);
}

#[test]
fn tensor_g1_capacities_come_from_the_device_tree_and_mc_is_asymmetric() {
    // gs101.dtsi: capacity-dmips-mhz 250/620/1024, highest OPPs 1803/2253/2802 MHz.
    assert_eq!(
        normalize_cpu_capacity(&[(250, 1_803_000), (620, 2_253_000), (1024, 2_802_000)]),
        vec![160, 498, 1024]
    );
    let (t, d) = build("tensor-g1", &[], "v6.8");
    let caps: Vec<u32> = t.cpus.iter().map(|c| c.capacity_orig).collect();
    assert_eq!(caps, vec![160, 160, 160, 160, 498, 498, 1024, 1024]);
    // One DSU L3: a single MC domain over all 8, flagged asymmetric (all capacities in it).
    assert_eq!(levels(&d, 0), vec![(SdLevel::MC, 8)]);
    let mc = flags_at(&d, 0, SdLevel::MC);
    assert_ne!(mc & SD_ASYM_CPUCAPACITY, 0);
    assert_ne!(mc & SD_ASYM_CPUCAPACITY_FULL, 0);
    assert_eq!(mc & SD_ASYM_PACKING, 0);
    assert_eq!(
        d.domains[d.sd_asym_cpucapacity[0].unwrap()].level,
        SdLevel::MC
    );
    // A frequency domain and cpufreq policy per cluster, OPP voltages as the DT gives them.
    assert_eq!(t.freq_domains.len(), 3);
    assert_eq!(t.policies.len(), 3);
    assert_eq!(
        t.freq_domains[t.cpus[6].freq_domain].cpus.to_string(),
        "6-7"
    );
    for c in &t.spec.clusters {
        assert_eq!(c.power.opp_mv.len(), c.opps_mhz.len(), "{}", c.name);
        assert_eq!(c.power.idle_states.len(), 2);
        assert_eq!(c.cpufreq_driver.transition_latency_ns, 500_000);
    }
    let x1 = &t.spec.clusters[2];
    assert_eq!((x1.power.ceff_pf, x1.power.opp_mv[16]), (650, 1056));
    assert_eq!(
        x1.power.idle_states[1].governor_exit_latency_us(),
        235 + 220
    );
}

#[test]
fn an_itmt_priority_out_of_range_is_an_error() {
    let mut spec = preset("alderlake-12900k").unwrap();
    spec.clusters[0].itmt_prio = Some(2_000_000);
    assert!(
        matches!(Topology::build(&spec), Err(crate::error::Error::Topology(m)) if m.contains("itmt_prio"))
    );
    // MAX_CPUS + 1 threads with explicit, far-apart ids are still too many.
    let mut spec = preset("epyc-9554-2s").unwrap();
    let total: usize = spec
        .clusters
        .iter()
        .map(|c| (c.cores * c.threads_per_core) as usize)
        .sum();
    let last = spec.clusters.len() - 1;
    let tpc = spec.clusters[last].threads_per_core as usize;
    let extra = (crate::cpumask::MAX_CPUS + 1 - total).div_ceil(tpc);
    spec.clusters[last].cores += extra as u32;
    spec.clusters[last]
        .cpu_ids
        .as_mut()
        .unwrap()
        .extend(total..total + extra * tpc);
    assert!(
        matches!(Topology::build(&spec), Err(crate::error::Error::Topology(m)) if m.contains("more than"))
    );
}
