//! Patches: named, documented JSON merge patches over a [`KernelConfig`], and [`build_config`], which
//! builds a variant's kernel from a baseline, its patches and its own changes.

use super::*;
use crate::error::{Error, Result};
use serde_json::Value;

/// A named change to a [`KernelConfig`], with where it comes from.
pub struct Patch {
    pub name: &'static str,
    pub title: &'static str,
    /// Who posted it, when, and its fate.
    pub origin: &'static str,
    pub description: &'static str,
    /// JSON merge patch over the serialized [`KernelConfig`].
    pub changes: &'static str,
}

pub const PATCHES: &[Patch] = &[
Patch {
    name: "dynamiq-asym-packing",
    title: "sched: support dynamiQ cluster (SD_ASYM_PACKING at MC, priority = capacity)",
    origin: "Vincent Guittot, arm64 RFC, March 2018; never merged",
    description: "DynamIQ puts big and little CPUs in one MC domain, so mainline's capacity-blind \
                  balancer treats them as equal. The RFC sets SD_ASYM_PACKING on the MC level and makes \
                  arch_asym_cpu_priority() return the CPU's capacity: an idle big CPU then pulls the \
                  running task of a busy little CPU (asym_active_balance), so tasks use big CPUs first.",
    changes: r#"{"asym_packing": {"levels": ["MC"], "priority": "cpu_capacity"}}"#,
},
Patch {
    name: "asym-cpu-capacity-2016",
    title: "sched: Clean-ups and asymmetric cpu capacity support",
    origin: "Morten Rasmussen, 2016 series (v4.8-v4.10, arm topology parts out of tree)",
    description: "Makes the wake-up path capacity-aware on big.LITTLE: the topology flags the level \
                  spanning both clusters SD_ASYM_CPUCAPACITY and sets SD_BALANCE_WAKE on it and below; \
                  wake_cap() sends a task that does not fit ~80% of min(capacity(prev), capacity(waker)) \
                  to the slow path, after decaying the sleeping task's utilization to its runqueue's last update \
                  (\"Sync task util before slow-path wakeup\", v4.10); find_idlest_group() considers spare capacity; \
                  the legacy balancer's update_sd_pick_busiest() no longer picks a group of bigger CPUs running \
                  at most one task each (group_smaller_cpu_capacity()).",
    changes: r#"{"arch_cpu_capacity": true, "asym_cpucapacity_detection": true, "wake_cap": true, "wake_cap_sync": true, "balance_wake_on_asym": true, "find_idlest": "spare_capacity", "find_idlest_spare_at_fork": true, "lb_legacy": {"pick_busiest_capacity_guard": true}}"#,
},
Patch {
    name: "x86-freq-invariance",
    title: "x86, sched: Add support for frequency invariance (SKYLAKE_X)",
    origin: "Giovanni Gherdovich, Jan 2020 (1567c3e3467c, 2a0abc596998), in v5.7",
    description: "arch_scale_freq_capacity() from APERF/MPERF at each tick, normalised to the turbo frequency \
                  of the first turbo bin with at least 4 active cores and clamped to 1024; PELT becomes \
                  frequency-invariant and schedutil scales from the policy's maximum, not its current \
                  frequency.",
    changes: r#"{"frequency_invariance": true, "freq_invariance_max": {"turbo_group": {"min_active_cores": 4}}, "freq_scale_tick": true}"#,
},
Patch {
    name: "x86-itmt",
    title: "x86 ITMT on a hybrid or Turbo Boost Max 3.0 part, as v6.5+ builds it",
    origin: "mainline arch code: intel_pstate calls sched_set_itmt_support() when the CPUs' CPPC highest_perf differ; \
             v6.5 (Ricardo Neri, \"x86/sched: Remove SD_ASYM_PACKING from the SMT domain flags\")",
    description: "What the kernel does on its own on such a machine (a patch here because the baselines are not \
                  arch-specific): SD_ASYM_PACKING on MC (x86_core_flags() | x86_sched_itmt_flags(); the CLS \
                  level, which also gets it, is not modelled) but no longer on SMT, and each CPU's priority is its \
                  core's highest_perf, siblings equal; sched_use_asym_prio() decides between cores.",
    changes: r#"{"asym_packing": {"levels": ["MC"], "priority": "itmt"}}"#,
},
Patch {
    name: "x86-itmt-v4.10",
    title: "x86 ITMT as v4.10-v6.4 builds it (SD_ASYM_PACKING at SMT and MC, sibling priorities scaled)",
    origin: "Tim Chen, \"sched, x86: Enable Intel Turbo Boost Max Technology 3.0\", v4.10 (arch/x86/kernel/itmt.c)",
    description: "x86_smt_flags() and x86_core_flags() both add SD_ASYM_PACKING when ITMT is on, and \
                  sched_set_itmt_core_prio() gives the i-th SMT sibling of a core prio * smp_num_siblings / i^2: \
                  first threads of all cores first (P-cores above E-cores on Alder Lake), then the second threads, \
                  which rank below the E-cores.",
    changes: r#"{"asym_packing": {"levels": ["SMT", "MC"], "priority": "itmt_smt_scaled"}}"#,
},
Patch {
    name: "power-asym-smt",
    title: "powerpc: asym packing at the SMT level of interleaved big cores (CPU_FTR_ASYM_SMT)",
    origin: "July 2018 big-core series; in mainline CPU_FTR_ASYM_SMT stays POWER7-only",
    description: "Sets SD_ASYM_PACKING on the SMT domain with the default priority (lower thread id first): \
                  idle low threads pull work from higher ones, and because small cores interleave thread ids, \
                  two threads end up on 0 and 1, different small cores.",
    changes: r#"{"asym_packing": {"levels": ["SMT"], "priority": "lower_cpu_number"}}"#,
},
Patch {
    name: "power-smallcore-smt",
    title: "powerpc: Use cpu_smallcore_sibling_mask at SMT level on bigcores",
    origin: "Gautham R. Shenoy, v4.20-era mainline",
    description: "Builds the SMT sched domain from the small core (the threads sharing L1 and the instruction \
                  flow), so the big core's two small cores become groups of the level above and the load \
                  balancer spreads tasks across them.",
    changes: r#"{"smt_domain": "sharing_group"}"#,
},
Patch {
    name: "use-all-littles-v1",
    title: "sched/fair: Use all little CPUs for CPU-bound workload (v1)",
    origin: "Pierre Gondois, 10 Nov 2023; not merged (Vincent Guittot found it too aggressive)",
    description: "On Juno r2 with 6 CPU-bound tasks, the idle little CPU sees the big group overloaded \
                  and computes a migrate_util imbalance equal to its group's spare capacity (~350), \
                  smaller than any task's util (~512): detach_tasks() skips every task and the little \
                  CPU stays idle. v1 switches to migrate_task with imbalance 1 when the domain has \
                  SD_ASYM_CPUCAPACITY, the local group has fewer tasks than CPUs and the busiest more.",
    changes: r#"{"lb_asym_cap_migrate_task": true}"#,
},
Patch {
    name: "util-shr-bound",
    title: "sched/fair: Use all little CPUs for CPU-bound workload (merged form)",
    origin: "Pierre Gondois, tip sched/core 3af7524b1419 (Dec 2023), in v6.8; suggested by Vincent Guittot",
    description: "detach_tasks()'s migrate_util test becomes shr_bound(util, nr_balance_failed) > \
                  imbalance, mirroring migrate_load: after one or two failed balance attempts a 512-util \
                  task passes a ~350 imbalance and the idle little CPU pulls it.",
    changes: r#"{"lb_util_shr_bound": true}"#,
},
];

pub fn patch(name: &str) -> Result<&'static Patch> {
    PATCHES
        .iter()
        .find(|p| p.name == name)
        .ok_or_else(|| Error::Unknown {
            kind: "patch",
            name: name.into(),
            known: PATCHES.iter().map(|p| p.name.to_string()).collect(),
        })
}

/// RFC 7386 JSON merge patch: objects merge key by key, `null` removes, anything else replaces.
fn merge(target: &mut Value, patch: &Value) {
    match (target, patch) {
        (Value::Object(t), Value::Object(p)) => {
            for (k, v) in p {
                if v.is_null() {
                    // A config field set to null means "off" for Option fields; keep the key so
                    // deserialization sees None rather than a missing field.
                    t.insert(k.clone(), Value::Null);
                } else if let Some(existing) =
                    t.get_mut(k).filter(|e| e.is_object() && v.is_object())
                {
                    merge(existing, v);
                } else {
                    t.insert(k.clone(), v.clone());
                }
            }
        }
        (t, p) => *t = p.clone(),
    }
}

/// Applies a merge patch to a config; the error names the patch and the field serde rejected.
pub fn apply_changes(config: &KernelConfig, changes: &Value, what: &str) -> Result<KernelConfig> {
    if !changes.is_object() {
        return Err(Error::Config(format!(
            "{what}: changes must be a JSON object"
        )));
    }
    let mut v = serde_json::to_value(config).map_err(|e| Error::Config(e.to_string()))?;
    merge(&mut v, changes);
    let c: KernelConfig =
        serde_json::from_value(v).map_err(|e| Error::Config(format!("{what}: {e}")))?;
    c.validate()?;
    Ok(c)
}

/// A variant's kernel: baseline, then each patch in order, then the scenario's own changes, then
/// the governor.
pub fn build_config(
    baseline_name: &str,
    patches: &[String],
    overrides: Option<&Value>,
    governor: Governor,
) -> Result<KernelConfig> {
    let mut c = baseline(baseline_name)?;
    for name in patches {
        let p = patch(name)?;
        let changes: Value =
            serde_json::from_str(p.changes).expect("built-in patches are valid JSON");
        c = apply_changes(&c, &changes, &format!("patch '{name}'"))?;
    }
    if let Some(o) = overrides {
        c = apply_changes(&c, o, "variant config")?;
    }
    c.governor = governor;
    c.validate()?;
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domains::SdLevel;

    #[test]
    fn the_dynamiq_patch_turns_on_asym_packing_at_mc_by_capacity() {
        let c = build_config(
            "v4.16",
            &["dynamiq-asym-packing".into()],
            None,
            Governor::Performance,
        )
        .unwrap();
        let ap = c.asym_packing.unwrap();
        assert_eq!(ap.levels, vec![SdLevel::MC]);
        assert_eq!(ap.priority, AsymPriority::CpuCapacity);
        assert_eq!(c.governor, Governor::Performance);
        assert!(KernelConfig::v4_16().asym_packing.is_none());
    }

    #[test]
    fn every_builtin_patch_applies_to_every_baseline() {
        for b in BASELINES {
            for p in PATCHES {
                build_config(b.name, &[p.name.to_string()], None, Governor::Schedutil).unwrap();
            }
        }
    }

    #[test]
    fn overrides_merge_and_null_turns_an_option_off() {
        let o: Value = serde_json::from_str(r#"{"hz": 1000, "asym_packing": null}"#).unwrap();
        let c = build_config(
            "v4.16",
            &["dynamiq-asym-packing".into()],
            Some(&o),
            Governor::Schedutil,
        )
        .unwrap();
        assert_eq!(c.hz, 1000);
        assert!(c.asym_packing.is_none());
    }

    #[test]
    fn bad_overrides_name_the_problem() {
        let o: Value = serde_json::from_str(r#"{"hzz": 1000}"#).unwrap();
        let e = build_config("v4.16", &[], Some(&o), Governor::Schedutil)
            .unwrap_err()
            .to_string();
        assert!(e.contains("hzz"), "{e}");
        let o: Value = serde_json::from_str(r#"{"hz": 7}"#).unwrap();
        assert!(build_config("v4.16", &[], Some(&o), Governor::Schedutil).is_err());
        assert!(build_config("v9.9", &[], None, Governor::Schedutil)
            .unwrap_err()
            .to_string()
            .contains("v4.16"));
        assert!(build_config("v4.16", &["nope".into()], None, Governor::Schedutil).is_err());
    }
}
