//! What each switch of [`KernelConfig`] models, for `schedlab kernels diff` and the page's
//! "What each patch changes": one entry per serialized key, naming the kernel function(s), the
//! versions, and the value each mainline era has.
//!
//! One source of truth per switch, and it cannot drift: a test fails when a `KernelConfig` key
//! has no entry or an entry names no key, and another checks every baseline against the eras
//! listed here (a baseline named `vX.Y` must hold, for each switch with eras, the value of the last
//! era starting at or before X.Y). The field docs in `mod.rs` say the same at more length.
//!
//! The table is text, so only the CLI and the page's check worker link it (through [`diff`]); the
//! page's own wasm gets the worker's rows, never the table.

use super::KernelConfig;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One switch: its serialized key, the kernel code it models and where in history it belongs.
pub struct SwitchDoc {
    /// The key in the serialized [`KernelConfig`] (what a merge patch names).
    pub key: &'static str,
    /// The kernel function(s), or the Kconfig / sysctl / arch hook, it models.
    pub function: &'static str,
    /// The versions (and commits, where known) each value belongs to.
    pub versions: &'static str,
    /// What it does, in one line.
    pub meaning: &'static str,
    /// `(first version, value as JSON)` for each mainline era, oldest first, as the baselines set
    /// it; empty for a tunable, an arch or driver property, or a model parameter, which no
    /// version decides.
    pub eras: &'static [(&'static str, &'static str)],
}

/// Every switch, in the order of [`KernelConfig`]'s fields.
pub const SWITCHES: &[SwitchDoc] = &[
    SwitchDoc {
        key: "label",
        function: "-",
        versions: "-",
        meaning: "what the configuration stands for (not compared)",
        eras: &[],
    },
    SwitchDoc {
        key: "hz",
        function: "CONFIG_HZ (TICK_NSEC)",
        versions: "Kconfig, every version",
        meaning: "tick rate: tick preemption, periodic balance, jiffies of the balance intervals",
        eras: &[],
    },
    SwitchDoc {
        key: "pelt_invariance",
        function: "__update_load_avg() / accumulate_sum(); update_rq_clock_pelt()",
        versions: "scale_contribution before v5.1; scale_time v5.1+ (23127296889f)",
        meaning: "PELT scales each contribution, or scales time (a running task then reaches 1024 on any CPU)",
        eras: &[("v4.7", "\"scale_contribution\""), ("v5.1", "\"scale_time\"")],
    },
    SwitchDoc {
        key: "frequency_invariance",
        function: "arch_scale_freq_capacity() (topology_get_freq_scale, arch_freq_scale)",
        versions: "arm/arm64 v4.15+ (topology_set_freq_scale(); absent in v4.14.4, in v4.16.13); x86 v5.7+ (1567c3e3467c), which x86 variants set",
        meaning: "PELT and schedutil see cur/max frequency; off: 1024 always",
        eras: &[("v4.7", "false"), ("v4.15", "true")],
    },
    SwitchDoc {
        key: "freq_invariance_max",
        function: "topology_set_freq_scale() / arch_max_freq_ratio (skx_set_max_freq_ratio())",
        versions: "arm: policy max; x86 v5.7+: turbo of the first bin of >= 4 active cores (2a0abc596998)",
        meaning: "what the current frequency is divided by",
        eras: &[],
    },
    SwitchDoc {
        key: "arch_cpu_capacity",
        function: "arch_scale_cpu_capacity() (topology_get_cpu_scale)",
        versions: "arm64 v4.10+ (capacity-dmips-mhz; absent in v4.9.115, in v4.10.17); arm v4.9 gives 1024 on TC2's v4.9 DT",
        meaning: "the scheduler sees the machine's CPU capacities; off: every CPU is 1024",
        eras: &[("v4.7", "false"), ("v4.10", "true")],
    },
    SwitchDoc {
        key: "asym_cpucapacity_detection",
        function: "asym_cpu_capacity_level() / asym_cpu_capacity_classify()",
        versions: "v4.20+ (automatic SD_ASYM_CPUCAPACITY); _FULL ~v5.14",
        meaning: "the topology code flags domains spanning CPUs of different capacities",
        eras: &[("v4.7", "false"), ("v4.20", "true")],
    },
    SwitchDoc {
        key: "misfit",
        function: "update_misfit_status(), group_misfit_task, migrate_misfit",
        versions: "v4.20+ (3b1baa6496e6)",
        meaning: "a task too big for its CPU is pulled by a bigger idle one (under SD_ASYM_CPUCAPACITY)",
        eras: &[("v4.7", "false"), ("v4.20", "true")],
    },
    SwitchDoc {
        key: "wake_cap",
        function: "wake_cap() in select_task_rq_fair()",
        versions: "v4.8-v5.6 (absent in v4.7-rc3, removed in v5.7)",
        meaning: "a task not fitting ~80% of min(capacity(prev), capacity(waker)) skips the affine path",
        eras: &[("v4.7", "false"), ("v4.8", "true"), ("v5.7", "false")],
    },
    SwitchDoc {
        key: "balance_wake_on_asym",
        function: "sd_init(): SD_BALANCE_WAKE below SD_ASYM_CPUCAPACITY",
        versions: "v4.8-v5.6 (absent in v4.7-rc3, gone in v5.7)",
        meaning: "wake-ups under an asym-capacity domain may take the slow path (find_idlest_group)",
        eras: &[("v4.7", "false"), ("v4.8", "true"), ("v5.7", "false")],
    },
    SwitchDoc {
        key: "find_idlest",
        function: "find_idlest_group() (update_sg_wakeup_stats() v5.5+)",
        versions: "load to v4.9; spare_capacity v4.10-v5.4; classify v5.5+ (0b0695f2b34a series)",
        meaning: "how the slow wake-up / fork path picks a group",
        eras: &[
            ("v4.7", "\"load\""),
            ("v4.10", "\"spare_capacity\""),
            ("v5.5", "\"classify\""),
        ],
    },
    SwitchDoc {
        key: "find_idlest_spare_at_fork",
        function: "find_idlest_group() spare-capacity step at SD_BALANCE_FORK",
        versions: "never in mainline (skipped at fork since v4.10); the 2016 series as posted [assumed]",
        meaning: "fork placement also prefers the group with most spare capacity",
        eras: &[("v4.7", "false")],
    },
    SwitchDoc {
        key: "wake_affine",
        function: "wake_affine() (wake_affine_idle(), wake_affine_weight())",
        versions: "load to v4.14; idle_then_weight v4.15+",
        meaning: "how the affine wake-up decides between the waker's CPU and prev",
        eras: &[("v4.7", "\"load\""), ("v4.15", "\"idle_then_weight\"")],
    },
    SwitchDoc {
        key: "sis_recent_used_cpu",
        function: "select_idle_sibling(): p->recent_used_cpu",
        versions: "v4.16+ (Mel Gorman)",
        meaning: "the wake-up scan tries the task's recently used CPU",
        eras: &[("v4.7", "false"), ("v4.16", "true")],
    },
    SwitchDoc {
        key: "sis_asym_capacity",
        function: "select_idle_capacity() (v5.7+, b7a331615d25), asym_fits_cpu() (v5.10+)",
        versions: "v5.7+",
        meaning: "the wake-up scan picks an idle CPU the task fits under SD_ASYM_CPUCAPACITY_FULL",
        eras: &[("v4.7", "false"), ("v5.7", "true")],
    },
    SwitchDoc {
        key: "util_est",
        function: "util_est_enqueue/dequeue(), _task_util_est(), cpu_util_cfs()",
        versions: "v4.17+ (v5.7 form)",
        meaning: "a task's utilization estimate survives its sleeps",
        eras: &[("v4.7", "false"), ("v4.17", "true")],
    },
    SwitchDoc {
        key: "asym_packing",
        function: "SD_ASYM_PACKING, arch_asym_cpu_priority(), sched_asym()",
        versions: "arch-set (POWER7 CPU_FTR_ASYM_SMT, x86 ITMT); none on arm64 mainline",
        meaning: "levels where an idle preferred CPU pulls work, and whose priority decides",
        eras: &[("v4.7", "null")],
    },
    SwitchDoc {
        key: "smt_domain",
        function: "powerpc SMT topology level (cpu_smt_mask / smallcore_smt_mask)",
        versions: "core to v4.19; sharing_group v4.20+ (POWER9 big cores)",
        meaning: "the SMT domain spans the core, or the threads sharing execution resources",
        eras: &[("v4.7", "\"core\""), ("v4.20", "\"sharing_group\"")],
    },
    SwitchDoc {
        key: "prefer_sibling_all_levels",
        function: "sd_init(): SD_PREFER_SIBLING",
        versions: "v4.16+ on every non-NUMA level (absent from the LLC in v4.14.4); before, SMT and DIE",
        meaning: "the LLC (MC) level also prefers spreading to sibling groups",
        eras: &[("v4.7", "false"), ("v4.16", "true")],
    },
    SwitchDoc {
        key: "smt_balance",
        function: "group_smt_balance, smt_balance(), sibling_imbalance()",
        versions: "v6.6+ (Tim Chen, fee1759e4f04)",
        meaning: "an idle CPU pulls from an SMT group running more than one task",
        eras: &[("v4.7", "false"), ("v6.6", "true")],
    },
    SwitchDoc {
        key: "lb_util_shr_bound",
        function: "detach_tasks() migrate_util test",
        versions: "util > imbalance v5.5-v6.7; shr_bound(util, nr_balance_failed) > imbalance v6.8+ (3af7524b1419)",
        meaning: "after failed balance attempts a task bigger than the util imbalance can be pulled",
        eras: &[("v4.7", "false"), ("v6.8", "true")],
    },
    SwitchDoc {
        key: "lb_asym_cap_migrate_task",
        function: "calculate_imbalance() (Gondois v1, Nov 2023)",
        versions: "never merged",
        meaning: "under SD_ASYM_CPUCAPACITY, spare local CPUs and an overloaded busiest give migrate_task",
        eras: &[("v4.7", "false")],
    },
    SwitchDoc {
        key: "numa_imbalance",
        function: "find_idlest_group() / calculate_imbalance() NUMA allowance (adjust_numa_imbalance())",
        versions: "none before v5.6; local_idle v5.6-v5.10; imb_numa_nr v5.18+",
        meaning: "how much imbalance between NUMA nodes placement and balancing tolerate",
        eras: &[
            ("v4.7", "\"none\""),
            ("v5.6", "\"local_idle\""),
            ("v5.18", "\"imb_numa_nr\""),
        ],
    },
    SwitchDoc {
        key: "busy_factor",
        function: "sd_init(): sd->busy_factor (get_sd_balance_interval())",
        versions: "32 to v5.9; 16 v5.10+",
        meaning: "how much longer a busy CPU waits between periodic balances",
        eras: &[("v4.7", "32"), ("v5.10", "16")],
    },
    SwitchDoc {
        key: "imbalance_pct_die",
        function: "sd_init(): sd->imbalance_pct of levels above the LLC",
        versions: "125 to v5.9; 117 v5.10+",
        meaning: "the imbalance DIE/PKG levels tolerate",
        eras: &[("v4.7", "125"), ("v5.10", "117")],
    },
    SwitchDoc {
        key: "sched_latency_ns",
        function: "sysctl_sched_latency (__sched_period())",
        versions: "tunable, 6 ms before scaling; no EEVDF (v6.6+) in the model",
        meaning: "the period over which every runnable task runs once",
        eras: &[],
    },
    SwitchDoc {
        key: "sched_min_granularity_ns",
        function: "sysctl_sched_min_granularity (sched_slice())",
        versions: "tunable, 0.75 ms before scaling",
        meaning: "the shortest slice",
        eras: &[],
    },
    SwitchDoc {
        key: "sched_wakeup_granularity_ns",
        function: "sysctl_sched_wakeup_granularity (wakeup_preempt_entity())",
        versions: "tunable, 1 ms before scaling",
        meaning: "how much less vruntime a woken task needs to preempt",
        eras: &[],
    },
    SwitchDoc {
        key: "sched_migration_cost_ns",
        function: "sysctl_sched_migration_cost (task_hot())",
        versions: "tunable, 0.5 ms",
        meaning: "a task that ran more recently than this is cache hot",
        eras: &[],
    },
    SwitchDoc {
        key: "schedutil_rate_limit_us",
        function: "sugov rate_limit_us (cpufreq_policy_transition_delay_us())",
        versions: "driver-dependent: transition latency, intel_pstate 500 us",
        meaning: "the shortest time between two frequency updates of a policy",
        eras: &[],
    },
    SwitchDoc {
        key: "schedutil_busy_hold",
        function: "sugov_cpu_is_busy() in sugov_update_single()",
        versions: "v4.12+",
        meaning: "a single-CPU policy whose CPU has not idled keeps its frequency",
        eras: &[("v4.7", "false"), ("v4.12", "true")],
    },
    SwitchDoc {
        key: "hwp_window_us",
        function: "(model) the HWP evaluation window",
        versions: "model parameter [assumed]",
        meaning: "the busy-time window the HWP model picks a frequency from",
        eras: &[],
    },
    SwitchDoc {
        key: "governor",
        function: "cpufreq governor (performance, powersave, schedutil, intel_pstate HWP)",
        versions: "the variant's choice",
        meaning: "who sets each policy's frequency",
        eras: &[],
    },
];

/// The entry of a serialized key.
pub fn switch_doc(key: &str) -> Option<&'static SwitchDoc> {
    SWITCHES.iter().find(|s| s.key == key)
}

/// One switch whose value differs between two configurations, with what it models.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct SwitchDiff {
    pub switch: String,
    /// The first configuration's value, as compact JSON.
    pub a: String,
    /// The second's.
    pub b: String,
    pub function: String,
    pub versions: String,
    pub meaning: String,
}

/// The switches whose values differ between `a` and `b`, in [`SWITCHES`] order (the label is not
/// compared).
pub fn diff(a: &KernelConfig, b: &KernelConfig) -> Vec<SwitchDiff> {
    let (va, vb) = (to_object(a), to_object(b));
    SWITCHES
        .iter()
        .filter(|s| s.key != "label")
        .filter_map(|s| {
            let (x, y) = (va.get(s.key)?, vb.get(s.key)?);
            (x != y).then(|| SwitchDiff {
                switch: s.key.to_string(),
                a: x.to_string(),
                b: y.to_string(),
                function: s.function.to_string(),
                versions: s.versions.to_string(),
                meaning: s.meaning.to_string(),
            })
        })
        .collect()
}

fn to_object(c: &KernelConfig) -> serde_json::Map<String, Value> {
    // A struct of plain fields always serializes to an object.
    match serde_json::to_value(c) {
        Ok(Value::Object(m)) => m,
        _ => serde_json::Map::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::{build_config, Governor, BASELINES};

    /// "v4.18" -> (4, 18).
    fn version(name: &str) -> (u32, u32) {
        let (major, minor) = name.trim_start_matches('v').split_once('.').unwrap();
        (major.parse().unwrap(), minor.parse().unwrap())
    }

    #[test]
    fn every_key_has_one_entry_and_every_entry_a_key() {
        let keys: Vec<String> = to_object(&KernelConfig::v6_8()).keys().cloned().collect();
        for k in &keys {
            assert_eq!(
                SWITCHES.iter().filter(|s| s.key == k).count(),
                1,
                "KernelConfig key {k} needs exactly one entry in SWITCHES"
            );
        }
        for s in SWITCHES {
            assert!(
                keys.iter().any(|k| k == s.key),
                "SWITCHES names {}, which KernelConfig does not have",
                s.key
            );
            for (v, json) in s.eras {
                version(v);
                serde_json::from_str::<Value>(json)
                    .unwrap_or_else(|e| panic!("{}: era {v}: {json}: {e}", s.key));
            }
            let starts: Vec<_> = s.eras.iter().map(|(v, _)| version(v)).collect();
            assert!(
                starts.windows(2).all(|w| w[0] < w[1]),
                "{}: eras out of order",
                s.key
            );
        }
    }

    #[test]
    fn every_baseline_holds_the_value_of_its_era() {
        for b in BASELINES {
            let v = version(b.name);
            let c = to_object(&(b.config)());
            for s in SWITCHES {
                let Some((from, json)) = s.eras.iter().rev().find(|(from, _)| version(from) <= v)
                else {
                    continue;
                };
                let want: Value = serde_json::from_str(json).unwrap();
                assert_eq!(
                    c[s.key], want,
                    "baseline {}: {} is {} but its era (since {from}) says {want}",
                    b.name, s.key, c[s.key]
                );
            }
        }
    }

    #[test]
    fn diff_lists_exactly_the_switches_that_differ() {
        let old = KernelConfig::v5_2();
        let new = KernelConfig::v6_8();
        let d = diff(&old, &new);
        let names: Vec<&str> = d.iter().map(|r| r.switch.as_str()).collect();
        for k in [
            "find_idlest",
            "wake_cap",
            "busy_factor",
            "sis_asym_capacity",
        ] {
            assert!(names.contains(&k), "{k} missing from {names:?}");
        }
        assert!(!names.contains(&"label") && !names.contains(&"util_est"));
        let busy = d.iter().find(|r| r.switch == "busy_factor").unwrap();
        assert_eq!((busy.a.as_str(), busy.b.as_str()), ("32", "16"));
        assert!(busy.function.contains("sd_init"));
        assert!(diff(&new, &new).is_empty());
        // A variant: the patch's switches, and nothing else.
        let patched = build_config(
            "v6.7",
            &["util-shr-bound".into()],
            None,
            Governor::Schedutil,
        )
        .unwrap();
        assert!(diff(&patched, &new).is_empty());
        let d = diff(&KernelConfig::v6_7(), &patched);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].switch, "lb_util_shr_bound");
    }
}
