//! The baseline kernels: one constructor per version, each deriving from an older or newer one
//! with exactly the switches that differ, and [`BASELINES`], the list a variant names.

use super::*;
use crate::error::{Error, Result};

impl KernelConfig {
    /// The arm64 mainline of the DynamIQ RFC's time (v4.16, March 2018): no capacity awareness on
    /// arm64 (no `SD_ASYM_CPUCAPACITY`, no misfit), PELT scaling contributions, busy_factor 32.
    ///
    /// Simplification: the load balancer is modelled in its v5.5+ form (group types, migration types).
    /// With one CPU-bound task per CPU and no capacity flags, v4.16's `find_busiest_group()` and the
    /// rework both leave a lone task on a little CPU where it is (no group is overloaded and the
    /// busiest has a single task), which is what E1's baseline depends on.
    pub fn v4_16() -> KernelConfig {
        KernelConfig {
            label: "v4.16 (arm64 mainline, March 2018)".into(),
            hz: 250,
            pelt_invariance: PeltInvariance::ScaleContribution,
            frequency_invariance: true,
            freq_invariance_max: FreqInvarianceMax::PolicyMax,
            arch_cpu_capacity: true,
            asym_cpucapacity_detection: false,
            misfit: false,
            util_est: false,
            wake_cap: false,
            balance_wake_on_asym: false,
            find_idlest: FindIdlest::SpareCapacity,
            find_idlest_spare_at_fork: false,
            wake_affine: WakeAffine::IdleThenWeight,
            sis_recent_used_cpu: true,
            sis_asym_capacity: false,
            asym_packing: None,
            smt_domain: SmtDomainSpan::Core,
            prefer_sibling_all_levels: false,
            smt_balance: false,
            lb_util_shr_bound: false,
            lb_asym_cap_migrate_task: false,
            numa_imbalance: NumaImbalance::None,
            busy_factor: 32,
            imbalance_pct_die: 125,
            sched_latency_ns: 6_000_000,
            sched_min_granularity_ns: 750_000,
            sched_wakeup_granularity_ns: 1_000_000,
            sched_migration_cost_ns: 500_000,
            schedutil_rate_limit_us: 10_000,
            schedutil_busy_hold: true,
            hwp_window_us: 4_000,
            governor: Governor::Schedutil,
        }
    }

    /// v6.8 (pre-EEVDF runqueue; see [`crate::sched::rq`] for what that leaves out): capacity
    /// detection, misfit, PELT scaling time, busy_factor 16, imbalance_pct 117.
    pub fn v6_8() -> KernelConfig {
        KernelConfig {
            label: "v6.8".into(),
            pelt_invariance: PeltInvariance::ScaleTime,
            asym_cpucapacity_detection: true,
            misfit: true,
            util_est: true,
            find_idlest: FindIdlest::Classify,
            sis_asym_capacity: true,
            smt_domain: SmtDomainSpan::SharingGroup,
            prefer_sibling_all_levels: true,
            smt_balance: true,
            lb_util_shr_bound: true,
            lb_asym_cap_migrate_task: false,
            numa_imbalance: NumaImbalance::ImbNumaNr,
            busy_factor: 16,
            imbalance_pct_die: 117,
            schedutil_rate_limit_us: 1_000,
            ..KernelConfig::v4_16()
        }
    }

    /// v4.9 (Morten Rasmussen's 2016 series was partly in, the rest out of tree): the capacity-blind
    /// wake-up path (no `wake_cap()`, load-based `find_idlest_group()`, the old `wake_affine()`), no
    /// `recent_used_cpu`. The 2016 series is the `asym-cpu-capacity-2016` patch.
    ///
    /// Simplification: the load balancer is modelled in its v5.5+ form; v4.9's (group_other /
    /// imbalanced / overloaded, load-only `detach_tasks()`) differs in how it moves load, which E4's
    /// wake-up placement measurements do not depend on.
    pub fn v4_9() -> KernelConfig {
        KernelConfig {
            label: "v4.9".into(),
            find_idlest: FindIdlest::Load,
            wake_affine: WakeAffine::Load,
            sis_recent_used_cpu: false,
            schedutil_busy_hold: false,
            ..KernelConfig::v4_16()
        }
    }

    /// v5.6: the v5.5 load-balance rework and `find_idlest_group()` classification are in; not yet
    /// `select_idle_capacity()` (v5.7), the v5.10 busy_factor/imbalance_pct changes, `smt_balance`
    /// (v6.6) or the `shr_bound` migrate_util test (v6.8). Frequency invariance is on as arm64 had
    /// it; x86 got it in v5.7, so x86 scenarios of this era turn it off in their variants.
    pub fn v5_6() -> KernelConfig {
        KernelConfig {
            label: "v5.6".into(),
            sis_asym_capacity: false,
            busy_factor: 32,
            imbalance_pct_die: 125,
            smt_balance: false,
            lb_util_shr_bound: false,
            numa_imbalance: NumaImbalance::LocalIdle,
            schedutil_rate_limit_us: 500,
            ..KernelConfig::v6_8()
        }
    }

    /// v6.7: v6.8 without 3af7524b1419, so `detach_tasks()` skips a task whose utilization is above
    /// a migrate_util imbalance however often balancing failed.
    pub fn v6_7() -> KernelConfig {
        KernelConfig {
            label: "v6.7".into(),
            lb_util_shr_bound: false,
            ..KernelConfig::v6_8()
        }
    }
}

/// A baseline kernel a variant starts from.
pub struct Baseline {
    pub name: &'static str,
    pub summary: &'static str,
    pub config: fn() -> KernelConfig,
}

pub const BASELINES: &[Baseline] = &[
    Baseline {
        name: "v4.9",
        summary: "2016 mainline: capacity-blind wake-up path (load-based find_idlest_group)",
        config: KernelConfig::v4_9,
    },
    Baseline {
        name: "v4.16",
        summary: "arm64 mainline of March 2018: capacity-blind",
        config: KernelConfig::v4_16,
    },
    Baseline {
        name: "v5.6",
        summary: "after the v5.5 load-balance rework, before x86 frequency invariance (v5.7)",
        config: KernelConfig::v5_6,
    },
    Baseline {
        name: "v6.7",
        summary: "capacity-aware mainline; detach_tasks() skips tasks with util > imbalance",
        config: KernelConfig::v6_7,
    },
    Baseline {
        name: "v6.8",
        summary: "capacity-aware mainline (misfit, SD_ASYM_CPUCAPACITY)",
        config: KernelConfig::v6_8,
    },
];

pub fn baseline(name: &str) -> Result<KernelConfig> {
    BASELINES
        .iter()
        .find(|b| b.name == name)
        .map(|b| (b.config)())
        .ok_or_else(|| Error::Unknown {
            kind: "baseline kernel",
            name: name.into(),
            known: BASELINES.iter().map(|b| b.name.to_string()).collect(),
        })
}
