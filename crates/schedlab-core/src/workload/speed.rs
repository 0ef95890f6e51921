//! How fast a workload runs on each kind of core, apart from the `capacity_orig` the kernel sees.
//!
//! The kernel schedules by `capacity_orig` (`arch_scale_cpu_capacity()`), which on Arm comes from
//! the DT's `capacity-dmips-mhz`: Dhrystone per MHz, normalised to the biggest CPU and scaled by each
//! CPU's highest frequency (`topology_normalize_cpu_scale()`). A real workload runs at its own speed
//! on each micro-architecture, set by its instruction mix: sysbench's integer-divide-bound prime
//! test runs on a HiKey960 A53 at 0.559 of an A73's speed at their highest OPPs, where the
//! capacities say 0.451 (hardware-facts.md). The model keeps the two apart: the scheduler reads
//! `capacity_orig`, the work progresses at the workload's speed.
//!
//! A workload's speed on a core type is given as the DT gives capacity, **per MHz**, in 1/1024 of
//! the work per MHz at which the machine's biggest CPU (highest `capacity_orig`, the first such)
//! delivers its `capacity_orig`. A CPU whose core type has a speed `s` then runs the workload at
//! `s x ref_mhz / biggest_ref_mhz` (its "speed_orig", in capacity units at its highest non-turbo OPP),
//! as `topology_normalize_cpu_scale()` turns `capacity-dmips-mhz` into capacity; a core type with no
//! speed runs at its `capacity_orig` exactly (the default, and what the model did before speeds
//! existed). Per MHz, rather than at the highest OPP, so that a figure is a property of the
//! micro-architecture pair and survives a change of the OPP tables.
//!
//! Where a speed comes from, first match wins: the workload spec's `speed.per_mhz` entry for the
//! core type; the workload kind's calibrated default ([`Calibration`]), which applies only when the
//! machine's biggest core is of the type it was measured against; else `capacity_orig`.
//!
//! SMT contention is a property of the workload as well as of the core: the cluster's
//! `smt_throughput` is the core's default for an average workload; the spec's
//! `speed.smt_throughput` entry for the core type, or the workload kind's default, replaces it.
//!
//! Everything is resolved once per instance ([`Rates`]); the engine's hot path only indexes.

use crate::error::{Error, Result};
use crate::topology::Topology;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Largest speed per MHz a spec may give (4x the biggest core's).
pub const MAX_PER_MHZ: u32 = 4096;
/// Largest resolved speed at a CPU's highest OPP, in capacity units (keeps
/// [`Topology::work_rate_for`] within u64).
pub const MAX_SPEED_ORIG: u32 = 16 * 1024;

/// A workload's speeds, as a scenario gives them (`"speed": {...}` in any workload kind).
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct WorkloadSpeed {
    /// Per core type (the clusters' `core_type`): work per MHz in 1/1024 of the machine's biggest
    /// CPU's (see the module doc). Core types not listed run at their `capacity_orig`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub per_mhz: BTreeMap<String, u32>,
    /// Per core type: this workload's throughput of each busy thread, in 1/1024 of a lone thread,
    /// when k threads of one SMT sharing group are busy (entry k-1; missing entries repeat the last),
    /// replacing the cluster's `smt_throughput`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub smt_throughput: BTreeMap<String, Vec<u32>>,
}

impl WorkloadSpeed {
    pub fn is_default(&self) -> bool {
        self.per_mhz.is_empty() && self.smt_throughput.is_empty()
    }
}

/// A workload kind's calibrated speed on one core type, valid on machines whose biggest CPU is of
/// type `against` (a per-MHz ratio between two micro-architectures means nothing against a third).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Calibration {
    pub core_type: &'static str,
    pub against: &'static str,
    /// Work per MHz in 1/1024 of the `against` core's.
    pub per_mhz: u32,
}

/// A workload kind's built-in defaults, below what a spec gives.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Defaults {
    pub per_mhz: &'static [Calibration],
    /// Per core type, this workload's SMT throughput table (computed by the generator from its
    /// parameters, so owned).
    pub smt_throughput: Vec<(&'static str, Vec<u32>)>,
}

/// Speeds resolved against one machine: what the engine reads per event.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rates {
    /// Per CPU: the workload's work rate at the CPU's highest non-turbo OPP, in capacity units
    /// (1024 = the biggest CPU's `capacity_orig`). Empty: every CPU's `capacity_orig`.
    pub speed_orig: Vec<u32>,
    /// Per SMT sharing group of the topology: the throughput table. Empty: the topology's.
    pub smt_throughput: Vec<Vec<u32>>,
}

impl Rates {
    /// Work (reference ns x [`crate::units::WORK_SCALE`]) `cpu` does per ns for this workload: its
    /// speed at the reference frequency x `freq/reference_freq` x its SMT throughput with
    /// `busy_siblings_in_group` busy threads (see [`Topology::work_rate_for`]).
    pub fn work_rate(
        &self,
        topo: &Topology,
        cpu: usize,
        freq_khz: u32,
        busy_siblings_in_group: usize,
    ) -> u64 {
        let c = &topo.cpus[cpu];
        let speed = self.speed_orig.get(cpu).copied().unwrap_or(c.capacity_orig);
        let tp = match self.smt_throughput.get(c.smt_group) {
            Some(t) => t.as_slice(),
            None => topo.smt_groups[c.smt_group].throughput.as_slice(),
        };
        topo.work_rate_for(cpu, freq_khz, busy_siblings_in_group, speed, tp)
    }

    /// Resolves a spec's speeds, over the kind's `defaults`, against `topo`. Without any speed or
    /// SMT entry that applies, the result is empty and the engine uses the topology's own figures.
    pub fn resolve(spec: &WorkloadSpeed, defaults: &Defaults, topo: &Topology) -> Result<Rates> {
        for (ty, &p) in &spec.per_mhz {
            if p == 0 || p > MAX_PER_MHZ {
                return Err(Error::Workload(format!(
                    "speed.per_mhz of '{ty}' must be 1 to {MAX_PER_MHZ}, not {p}"
                )));
            }
        }
        for (ty, t) in &spec.smt_throughput {
            if t.is_empty() || t.len() > 8 || t.iter().any(|&x| x == 0 || x > 1024) {
                return Err(Error::Workload(format!(
                    "speed.smt_throughput of '{ty}' must list 1 to 8 entries of 1 to 1024"
                )));
            }
        }
        let biggest = (0..topo.nr_cpus())
            .max_by_key(|&c| (topo.cpus[c].capacity_orig, std::cmp::Reverse(c)))
            .expect("validated: a topology has CPUs");
        let core_type = |cpu: usize| {
            topo.spec.clusters[topo.cpus[cpu].cluster]
                .core_type
                .as_str()
        };
        let ref_khz = |cpu: usize| topo.freq_domains[topo.cpus[cpu].freq_domain].reference_khz();
        let big_type = core_type(biggest);
        let per_mhz = |ty: &str| -> Option<u32> {
            spec.per_mhz.get(ty).copied().or_else(|| {
                defaults
                    .per_mhz
                    .iter()
                    .find(|c| c.core_type == ty && c.against == big_type)
                    .map(|c| c.per_mhz)
            })
        };
        let mut rates = Rates::default();
        if (0..topo.nr_cpus()).any(|c| per_mhz(core_type(c)).is_some()) {
            let big_khz = ref_khz(biggest) as u64;
            rates.speed_orig = (0..topo.nr_cpus())
                .map(|c| match per_mhz(core_type(c)) {
                    // topology_normalize_cpu_scale(): dmips-mhz x max freq, over the biggest's.
                    Some(p) => {
                        let s = (p as u64 * ref_khz(c) as u64 + big_khz / 2) / big_khz;
                        s.clamp(1, MAX_SPEED_ORIG as u64) as u32
                    }
                    None => topo.cpus[c].capacity_orig,
                })
                .collect();
        }
        let smt = |ty: &str| -> Option<&[u32]> {
            spec.smt_throughput.get(ty).map(Vec::as_slice).or_else(|| {
                defaults
                    .smt_throughput
                    .iter()
                    .find(|(t, _)| *t == ty)
                    .map(|(_, v)| v.as_slice())
            })
        };
        let group_type = |g: usize| {
            let first = topo.smt_groups[g]
                .cpus
                .iter()
                .next()
                .expect("validated: an SMT group has CPUs");
            core_type(first)
        };
        if (0..topo.smt_groups.len()).any(|g| smt(group_type(g)).is_some()) {
            rates.smt_throughput = (0..topo.smt_groups.len())
                .map(|g| match smt(group_type(g)) {
                    Some(t) => t.to_vec(),
                    None => topo.smt_groups[g].throughput.clone(),
                })
                .collect();
        }
        Ok(rates)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::presets::preset;

    fn topo(name: &str) -> Topology {
        Topology::build(&preset(name).unwrap()).unwrap()
    }

    #[test]
    fn no_speed_means_capacity_orig_and_the_cores_smt_table() {
        let t = topo("hikey960");
        let r = Rates::resolve(&WorkloadSpeed::default(), &Defaults::default(), &t).unwrap();
        assert_eq!(r, Rates::default());
        for cpu in 0..t.nr_cpus() {
            assert_eq!(
                r.work_rate(&t, cpu, 1_844_000, 1),
                t.work_rate(cpu, 1_844_000, 1)
            );
        }
    }

    #[test]
    fn per_mhz_scales_by_the_highest_opp_as_dt_capacity_does() {
        let t = topo("hikey960");
        let mut s = WorkloadSpeed::default();
        // The A53's DT capacity-dmips-mhz: per MHz, 592 gives capacity_orig 462 exactly.
        s.per_mhz.insert("Cortex-A53".into(), 592);
        let r = Rates::resolve(&s, &Defaults::default(), &t).unwrap();
        assert_eq!(&r.speed_orig[..4], &[462; 4]);
        assert_eq!(&r.speed_orig[4..], &[1024; 4]);
    }

    #[test]
    fn a_calibration_applies_only_against_its_own_big_core() {
        const CAL: &[Calibration] = &[Calibration {
            core_type: "Cortex-A53",
            against: "Cortex-A73",
            per_mhz: 733,
        }];
        let d = Defaults {
            per_mhz: CAL,
            smt_throughput: vec![],
        };
        let hikey = topo("hikey960");
        let r = Rates::resolve(&WorkloadSpeed::default(), &d, &hikey).unwrap();
        assert_eq!(r.speed_orig[0], 572);
        // Juno's A53s sit beside A72s: no figure, capacity_orig.
        let juno = topo("juno-r2");
        let r = Rates::resolve(&WorkloadSpeed::default(), &d, &juno).unwrap();
        assert_eq!(r, Rates::default());
        // A spec's own figure wins over the calibration.
        let mut s = WorkloadSpeed::default();
        s.per_mhz.insert("Cortex-A53".into(), 592);
        let r = Rates::resolve(&s, &d, &hikey).unwrap();
        assert_eq!(r.speed_orig[0], 462);
    }

    #[test]
    fn a_workloads_smt_table_replaces_the_cores() {
        let t = topo("power9-smt8");
        let mut s = WorkloadSpeed::default();
        s.smt_throughput.insert("POWER9".into(), vec![1024, 512]);
        let r = Rates::resolve(&s, &Defaults::default(), &t).unwrap();
        assert_eq!(r.smt_throughput.len(), t.smt_groups.len());
        let khz = t.freq_domains[0].reference_khz();
        assert_eq!(r.work_rate(&t, 0, khz, 2) * 2, r.work_rate(&t, 0, khz, 1));
        assert!(r.work_rate(&t, 0, khz, 2) < t.work_rate(0, khz, 2));
        s.smt_throughput.insert("POWER9".into(), vec![1024, 0]);
        assert!(Rates::resolve(&s, &Defaults::default(), &t).is_err());
        let mut s = WorkloadSpeed::default();
        s.per_mhz.insert("POWER9".into(), 0);
        assert!(Rates::resolve(&s, &Defaults::default(), &t).is_err());
    }
}
