//! Tests of the domain build: levels, groups, capacities and flags per era, on preset machines.

use super::*;
use crate::kernel::{build_config, Governor};
use crate::topology::{presets::preset, Topology};

fn build(machine: &str, patches: &[&str], baseline: &str) -> (Topology, SchedDomains) {
    let t = Topology::build(&preset(machine).unwrap()).unwrap();
    let p: Vec<String> = patches.iter().map(|s| s.to_string()).collect();
    let c = build_config(baseline, &p, None, Governor::Performance).unwrap();
    let d = SchedDomains::build(&t, &c).unwrap();
    (t, d)
}

/// A 4-thread core with two sharing groups beside a single-thread core: the CPUs keep different
/// numbers of levels once degenerate domains go, and the groups must still be the spans of each
/// CPU's level below (this shape made the build index past a shorter chain).
#[test]
fn mixed_smt_widths_build_groups_from_the_level_below() {
    let spec: crate::topology::MachineSpec = serde_json::from_str(
        r#"{"name": "mixed", "llc": "cluster", "clusters": [
            {"name": "a", "cores": 1, "threads_per_core": 4, "smt_sharing_groups": [[0, 2], [1, 3]],
             "capacity_orig": 1024, "opps_mhz": [1000]},
            {"name": "b", "cores": 1, "capacity_orig": 512, "opps_mhz": [1000]}]}"#,
    )
    .unwrap();
    let t = Topology::build(&spec).unwrap();
    for baseline in ["v4.16", "v5.6", "v6.8"] {
        let c = build_config(baseline, &[], None, Governor::Performance).unwrap();
        let d = SchedDomains::build(&t, &c).unwrap();
        d.check_well_formed(t.nr_cpus()).unwrap();
        let top = &d.domains[*d.per_cpu[4].last().unwrap()];
        let groups: Vec<String> = top.groups.iter().map(|g| g.span.to_string()).collect();
        assert_eq!(groups, ["0-3", "4"], "{baseline}");
        assert_eq!(
            d.per_cpu[4].len(),
            1,
            "{baseline}: CPU4's own levels are degenerate"
        );
    }
    // v5.6 builds SMT from the sharing group: CPU0's SMT domain is {0,2}, its MC has the two
    // small cores as groups, which carry the SMT flags (`sg->flags = child->flags`).
    let c = build_config("v5.6", &[], None, Governor::Performance).unwrap();
    let d = SchedDomains::build(&t, &c).unwrap();
    let spans: Vec<String> = d.per_cpu[0]
        .iter()
        .map(|&i| d.domains[i].span.to_string())
        .collect();
    assert_eq!(spans, ["0,2", "0-3", "0-4"]);
    // sg->cores counts cores, not sharing groups: the top level's groups are one 4-thread
    // core and one single-thread core.
    let top = &d.domains[d.per_cpu[0][2]];
    let cores: Vec<u32> = top.groups.iter().map(|g| g.cores).collect();
    assert_eq!(cores, [1, 1]);
    let mc = &d.domains[d.per_cpu[0][1]];
    assert!(mc
        .groups
        .iter()
        .all(|g| g.flags & SD_SHARE_CPUCAPACITY != 0));
}

#[test]
fn classic_hikey960_has_mc_per_cluster_and_die_above() {
    let (_, d) = build("hikey960", &[], "v4.16");
    let levels: Vec<(SdLevel, String)> = d.per_cpu[0]
        .iter()
        .map(|&i| (d.domains[i].level, d.domains[i].span.to_string()))
        .collect();
    assert_eq!(
        levels,
        vec![(SdLevel::MC, "0-3".into()), (SdLevel::DIE, "0-7".into())]
    );
    let die = &d.domains[d.per_cpu[5][1]];
    assert_eq!(die.groups.len(), 2);
    assert_eq!(die.groups[die.local_group(5)].capacity, 4 * 1024);
    assert_eq!(die.groups[die.local_group(0)].capacity, 4 * 462);
    assert!(!die.has(SD_ASYM_CPUCAPACITY), "v4.16 arm64 never set it");
}

#[test]
fn dynamiq_has_one_mc_domain_and_no_die() {
    let (_, d) = build("hikey960-dynamiq", &[], "v4.16");
    for cpu in 0..8 {
        assert_eq!(d.per_cpu[cpu].len(), 1);
        let sd = &d.domains[d.per_cpu[cpu][0]];
        assert_eq!(sd.level, SdLevel::MC);
        assert_eq!(sd.span_weight, 8);
        assert_eq!(sd.groups.len(), 8);
        assert!(!sd.has(SD_ASYM_PACKING));
    }
    assert_eq!(d.llc_size[3], 8);
}

#[test]
fn dynamiq_patch_sets_asym_packing_with_capacity_priority() {
    let (_, d) = build("hikey960-dynamiq", &["dynamiq-asym-packing"], "v4.16");
    let sd = &d.domains[d.per_cpu[0][0]];
    assert!(sd.has(SD_ASYM_PACKING));
    assert!(d.sched_asym_prefer(4, 0));
    assert!(!d.sched_asym_prefer(0, 4));
    assert!(
        !d.sched_asym_prefer(5, 4),
        "equal capacities: no preference"
    );
    assert_eq!(d.sd_asym_packing[2], Some(d.per_cpu[2][0]));
}

#[test]
fn v6_8_detects_asym_cpucapacity_on_the_level_spanning_both_clusters() {
    let (_, d) = build("hikey960", &[], "v6.8");
    let mc = &d.domains[d.per_cpu[0][0]];
    let die = &d.domains[d.per_cpu[0][1]];
    assert!(!mc.has(SD_ASYM_CPUCAPACITY));
    assert!(die.has(SD_ASYM_CPUCAPACITY) && die.has(SD_ASYM_CPUCAPACITY_FULL));
    assert_eq!(d.sd_asym_cpucapacity[0], Some(d.per_cpu[0][1]));
}

#[test]
fn power9_smt_domain_follows_the_config() {
    let (_, big) = build("power9-smt8", &[], "v4.16");
    let smt = &big.domains[big.per_cpu[0][0]];
    assert_eq!(
        (smt.level, smt.span.to_string()),
        (SdLevel::SMT, "0-7".into())
    );
    assert_eq!(smt.imbalance_pct, 110);
    let (_, small) = build("power9-smt8", &[], "v6.8");
    let smt = &small.domains[small.per_cpu[0][0]];
    assert_eq!(smt.span.to_string(), "0,2,4,6");
    let mc = &small.domains[small.per_cpu[0][1]];
    assert_eq!(mc.groups.len(), 4, "two big cores = four small-core groups");
}

#[test]
fn cascadelake_has_smt_mc_and_numa() {
    let (_, d) = build("cascadelake-8260l", &[], "v6.8");
    let levels: Vec<SdLevel> = d.per_cpu[0].iter().map(|&i| d.domains[i].level).collect();
    assert_eq!(levels, vec![SdLevel::SMT, SdLevel::MC, SdLevel::NUMA]);
    assert_eq!(d.domains[d.per_cpu[0][0]].span.to_string(), "0,48");
    assert_eq!(d.domains[d.per_cpu[0][1]].span_weight, 48);
    assert_eq!(d.llc_size[0], 48);
    assert!(!d.cpus_share_cache(0, 24));
    // sg->cores: an MC group is one core's two threads, a NUMA group a socket's 24 cores.
    let mc = &d.domains[d.per_cpu[0][1]];
    assert!(mc.groups.iter().all(|g| g.weight == 2 && g.cores == 1));
    let numa = &d.domains[d.per_cpu[0][2]];
    assert!(numa.groups.iter().all(|g| g.weight == 48 && g.cores == 24));
}

#[test]
fn groups_are_visited_from_the_local_one() {
    let (_, d) = build("hikey960-dynamiq", &[], "v4.16");
    let sd = &d.domains[d.per_cpu[5][0]];
    let order: Vec<usize> = sd
        .groups_from(5)
        .map(|g| sd.groups[g].span.first().unwrap())
        .collect();
    assert_eq!(order, vec![5, 6, 7, 0, 1, 2, 3, 4]);
}
