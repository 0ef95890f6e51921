//! The kernel as data: [`KernelConfig`] holds every behavioural switch a variant needs; a [`Patch`] is
//! a named, documented change to it; a variant is a baseline plus patches plus a governor.
//!
//! Nothing in the model asks which preset or which patch it runs: behaviour comes from the topology's
//! data and these switches. A patch is a JSON merge patch (RFC 7386) over the serialized config, so a
//! user can read exactly what it changes, and a scenario can carry its own.

use crate::domains::SdLevel;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

mod baselines;
mod patches;
mod switches;

pub use baselines::{baseline, newest, Baseline, BASELINES};
pub use patches::{apply_changes, build_config, patch, Patch, PATCHES};
pub use switches::{diff, switch_doc, SwitchDiff, SwitchDoc, SWITCHES};

/// How PELT makes its signals invariant (kernel-facts.md §1.3).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PeltInvariance {
    /// Before v5.1: each contribution is scaled by freq and CPU capacity (`cap_scale()` in
    /// `__update_load_avg()`); an always-running task saturates at the CPU's current capacity.
    ScaleContribution,
    /// v5.1+ (23127296889f): time is scaled instead (`update_rq_clock_pelt()`); an always-running
    /// task grows towards 1024 on any CPU, more slowly on a small or slow one.
    ScaleTime,
}

/// Whose number says which CPU asym packing prefers (`arch_asym_cpu_priority()`).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum AsymPriority {
    /// The weak default since v4.10: `-cpu`, lower CPU numbers preferred.
    LowerCpuNumber,
    /// The DynamIQ RFC (March 2018): priority = `capacity_orig`, bigger CPUs preferred.
    CpuCapacity,
}

/// `SD_ASYM_PACKING` on the listed levels, with the priority hook.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct AsymPacking {
    pub levels: Vec<SdLevel>,
    pub priority: AsymPriority,
}

/// How the SMT sched domain is built on machines whose cores have several sharing groups.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SmtDomainSpan {
    /// `cpu_smt_mask`: all threads of the core (POWER9 big core in v4.9).
    Core,
    /// The threads sharing execution resources (POWER9 small core, v4.20+ `smallcore_smt_mask`).
    SharingGroup,
}

/// The era of `find_idlest_group()`, the slow wake-up path's group choice.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum FindIdlest {
    /// v4.9: least capacity-scaled runnable load; the local group unless another is lighter by
    /// half the imbalance_pct.
    Load,
    /// v4.10-v5.4 (Morten Rasmussen, "Consider spare cpu capacity at task wake-up"): prefer the
    /// group with the most spare capacity when it exceeds half the task's utilization (not for fork),
    /// then fall back to runnable and blocked load.
    SpareCapacity,
    /// v5.5+: classify groups as the load balancer does (`update_sg_wakeup_stats()`).
    Classify,
}

/// How much imbalance between NUMA nodes fork placement and load balancing tolerate, so that a few
/// communicating tasks stay on one node.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum NumaImbalance {
    /// Before v5.5: no allowance beyond the load comparisons.
    None,
    /// v5.6-v5.10: `find_idlest_group()` keeps a new task on the local node while that node has an
    /// idle CPU (v5.5 rework); `calculate_imbalance()` ignores an imbalance when the busiest node
    /// runs at most 2 tasks (Mel Gorman, v5.6, "Allow a small load imbalance between low utilisation
    /// SD_NUMA domains").
    LocalIdle,
    /// v5.18+: both allow the imbalance while the destination node would run at most
    /// `sd->imb_numa_nr` tasks (`allow_numa_imbalance()`), and `adjust_numa_imbalance()` then
    /// ignores an imbalance of up to `NUMA_IMBALANCE_MIN` (2).
    ImbNumaNr,
}

/// The era of `wake_affine()`.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum WakeAffine {
    /// v4.9: one capacity-scaled load comparison (`effective_load()` is the identity without task
    /// groups).
    Load,
    /// v4.15+: `wake_affine_idle()` (prefer an idle CPU sharing the cache) then `wake_affine_weight()`.
    IdleThenWeight,
}

/// What `arch_scale_freq_capacity()` divides the current frequency by.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum FreqInvarianceMax {
    /// The policy's highest frequency (arm/arm64 cpufreq: `topology_set_freq_scale()`).
    PolicyMax,
    /// x86 (v5.7+): the turbo frequency of the first turbo bin covering at least this many active
    /// cores (4 on SKYLAKE_X and Cascade Lake), above which the scale is clamped to 1024.
    TurboGroup { min_active_cores: u32 },
}

/// The cpufreq governor of every policy.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Governor {
    /// Highest frequency allowed (including turbo where the hardware grants it).
    Performance,
    /// Lowest OPP.
    Powersave,
    /// `cpufreq_schedutil.c`: frequency from utilization, see [`crate::cpufreq`].
    Schedutil,
    /// intel_pstate active mode, powersave policy, HWP: the hardware picks each core's frequency
    /// from its recent busy time (see [`crate::cpufreq`]).
    Hwp,
}

/// Every behavioural switch of the modelled kernel. Field docs name the version a value belongs to.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct KernelConfig {
    /// What this configuration stands for, shown next to results.
    pub label: String,
    /// CONFIG_HZ: tick rate, which paces PELT-free periodic work: tick preemption, periodic balance.
    pub hz: u32,
    pub pelt_invariance: PeltInvariance,
    /// Whether `arch_scale_freq_capacity()` reports cur/max frequency (arm/arm64 cpufreq
    /// `topology_set_freq_scale()` v4.15+, x86 APERF/MPERF v5.7+). Off means it returns 1024 always
    /// (arm64 before v4.15; x86 before v5.7, which the x86 scenarios set in their variants).
    pub frequency_invariance: bool,
    pub freq_invariance_max: FreqInvarianceMax,
    /// Whether `arch_scale_cpu_capacity()` reports the machine's capacities (arm/arm64 with
    /// `capacity-dmips-mhz`). Off: every CPU is 1024 to the scheduler, though the hardware still
    /// runs at its own speed (arm64 before v4.10; TC2 with its v4.9 device tree; x86 hybrid-less).
    pub arch_cpu_capacity: bool,
    /// Whether the topology code sets `SD_ASYM_CPUCAPACITY` (and `_FULL`) on domains spanning CPUs of
    /// different capacities (`asym_cpu_capacity_classify()`, automatic since v4.20; never on arm64
    /// before that in mainline).
    pub asym_cpucapacity_detection: bool,
    /// Misfit handling (v4.20, 3b1baa6496e6): `update_misfit_status()` and `group_misfit_task`;
    /// only acts under `SD_ASYM_CPUCAPACITY`.
    pub misfit: bool,
    /// `wake_cap()` in `select_task_rq_fair()` (v4.8-v5.6: absent in v4.7-rc3, removed in v5.7): a
    /// task that does not fit ~80% of min(capacity(prev), capacity(waker)) skips the affine fast
    /// path. It acts only when the CPUs' capacities differ by more than 1/8.
    pub wake_cap: bool,
    /// `sd_init()` (v4.8-v5.6: absent in v4.7-rc3, gone in v5.7): SD_BALANCE_WAKE on an
    /// SD_ASYM_CPUCAPACITY domain and every domain below. Acts only where that flag is set.
    pub balance_wake_on_asym: bool,
    pub find_idlest: FindIdlest,
    /// With [`FindIdlest::SpareCapacity`], whether fork placement uses spare capacity too. Mainline
    /// skips it for fork (a new task's utilization is not set yet); *assumed*: the 2016 series as
    /// posted did not, which is how a new sysbench thread lands on a big CPU.
    pub find_idlest_spare_at_fork: bool,
    pub wake_affine: WakeAffine,
    /// `select_idle_sibling()` tries `p->recent_used_cpu` (v4.16+, Mel Gorman).
    pub sis_recent_used_cpu: bool,
    /// `select_idle_sibling()` is capacity-aware under SD_ASYM_CPUCAPACITY_FULL:
    /// `select_idle_capacity()` (v5.7+) and `asym_fits_cpu()` on the early candidates (v5.10+).
    pub sis_asym_capacity: bool,
    /// util_est (v4.17+, v5.7 form): a task's utilization estimate survives its sleeps, and a
    /// CPU's utilization is at least the sum of its enqueued tasks' estimates.
    pub util_est: bool,
    /// `SD_ASYM_PACKING` levels and priority; `None` in mainline arm64.
    pub asym_packing: Option<AsymPacking>,
    pub smt_domain: SmtDomainSpan,
    /// `sd_init()` sets `SD_PREFER_SIBLING` on every non-NUMA level, the LLC (MC) included (v4.16+:
    /// present in v4.16.13, absent in v4.14.4); before, on SMT and DIE only.
    pub prefer_sibling_all_levels: bool,
    /// `group_smt_balance` and `smt_balance()` (v6.6+, Tim Chen): an idle CPU pulls from an SMT
    /// group running more than one task.
    pub smt_balance: bool,
    /// `detach_tasks()` migrate_util test: `shr_bound(util, nr_balance_failed) > imbalance` (v6.8,
    /// 3af7524b1419) instead of `util > imbalance` (v5.5-v6.7).
    pub lb_util_shr_bound: bool,
    /// The v1 "use all little CPUs" rule in `calculate_imbalance()` (never merged): under
    /// SD_ASYM_CPUCAPACITY, local has an idle CPU and busiest more tasks than CPUs -> migrate_task.
    pub lb_asym_cap_migrate_task: bool,
    pub numa_imbalance: NumaImbalance,
    /// `sd->busy_factor`: 32 until v5.9, 16 since v5.10.
    pub busy_factor: u32,
    /// `imbalance_pct` of levels above the LLC (DIE/PKG): 125 until v5.9, 117 since v5.10.
    pub imbalance_pct_die: u32,
    /// `sysctl_sched_latency` before tunable scaling (6 ms).
    pub sched_latency_ns: u64,
    /// `sysctl_sched_min_granularity` before tunable scaling (0.75 ms).
    pub sched_min_granularity_ns: u64,
    /// `sysctl_sched_wakeup_granularity` before tunable scaling (1 ms).
    pub sched_wakeup_granularity_ns: u64,
    /// `sysctl_sched_migration_cost`: a task that ran more recently than this is cache hot (0.5 ms).
    pub sched_migration_cost_ns: u64,
    /// schedutil's `rate_limit_us` between frequency updates of a policy.
    pub schedutil_rate_limit_us: u64,
    /// schedutil keeps the frequency of a single-CPU policy whose CPU has not idled since the
    /// last update (`sugov_cpu_is_busy()`, v4.12+).
    pub schedutil_busy_hold: bool,
    /// The HWP model's evaluation window, us.
    pub hwp_window_us: u64,
    pub governor: Governor,
}

impl KernelConfig {
    /// Tick length in ns (`TICK_NSEC`).
    pub fn tick_ns(&self) -> u64 {
        crate::units::NSEC_PER_SEC / self.hz as u64
    }

    pub fn validate(&self) -> Result<()> {
        if !(100..=1000).contains(&self.hz) {
            return Err(Error::Config(format!(
                "hz must be 100 to 1000, not {}",
                self.hz
            )));
        }
        if self.busy_factor == 0 || self.busy_factor > 64 {
            return Err(Error::Config("busy_factor must be 1 to 64".into()));
        }
        if !(100..=200).contains(&self.imbalance_pct_die) {
            return Err(Error::Config("imbalance_pct_die must be 100 to 200".into()));
        }
        for (name, v) in [
            ("sched_latency_ns", self.sched_latency_ns),
            ("sched_min_granularity_ns", self.sched_min_granularity_ns),
            (
                "sched_wakeup_granularity_ns",
                self.sched_wakeup_granularity_ns,
            ),
        ] {
            if v == 0 || v > 1_000_000_000 {
                return Err(Error::Config(format!("{name} must be 1 ns to 1 s")));
            }
        }
        if self.sched_migration_cost_ns > 1_000_000_000 || self.schedutil_rate_limit_us > 1_000_000
        {
            return Err(Error::Config(
                "sched_migration_cost_ns and schedutil_rate_limit_us must be at most 1 s".into(),
            ));
        }
        if let Some(ap) = &self.asym_packing {
            if ap.levels.is_empty() {
                return Err(Error::Config(
                    "asym_packing lists no levels; use null to turn it off".into(),
                ));
            }
        }
        Ok(())
    }
}
