//! The kernel as data: [`KernelConfig`] holds every behavioural switch a variant needs; a [`Patch`] is
//! a named, documented change to it; a variant is a baseline plus patches plus a governor.
//!
//! Nothing in the model asks which preset or which patch it runs: behaviour comes from the topology's
//! data and these switches. A patch is a JSON merge patch (RFC 7386) over the serialized config, so a
//! user can read exactly what it changes, and a scenario can carry its own.

use crate::domains::SdLevel;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use serde_json::Value;

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

/// The integer path of a PELT update (fidelity review F13).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PeltUpdate {
    /// v4.9-v4.11 `__update_load_avg()`: three segments (the rest of the open period, the full
    /// periods via `__compute_runnable_contrib()`, the new partial period), each `cap_scale()`d on
    /// its own; the sums are decayed by `periods + 1` after the first segment is added;
    /// `last_update_time = now` (the sub-1024 ns remainder is dropped); the weight is folded into
    /// `load_sum`; the averages divide by `LOAD_AVG_MAX`.
    Segments,
    /// v4.12-v4.14 `accumulate_sum()` (Yuyang Du / Peter Zijlstra rewrite): one `cap_scale()` of
    /// the whole contribution, `last_update_time` advanced in whole 1024 ns units, still the weight
    /// in `load_sum` and `LOAD_AVG_MAX` as divider (seen in the v4.12 tree).
    AccumulateLoadAvgMax,
    /// v4.15+ (625ed2bf049d "sched/cfs: Make util/load_avg more stable", present in v4.16): the
    /// divider `LOAD_AVG_MAX - 1024 + period_contrib`, the weight applied at averaging
    /// (`___update_load_avg(sa, se_weight(se))`) and sums rebuilt from averages at attach.
    Accumulate,
}

/// The capacity `post_init_entity_util_avg()` gives half the spare of (fidelity review F12).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PostInitCap {
    /// v4.9-v4.19: `cap = (SCHED_CAPACITY_SCALE - cfs_rq util) / 2`, so a new task on a little CPU
    /// may start above that CPU's capacity.
    CapacityScale,
    /// v4.20+ (8fe5c5a937d0, Quentin Perret, in the v4.20 tree): `cap = (arch_scale_cpu_capacity()
    /// - cfs_rq util) / 2`.
    CpuCapacity,
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
    /// Whether `arch_scale_freq_capacity()` reports cur/max frequency (arm64 cpufreq, x86 APERF/MPERF
    /// v5.7+). Off means it returns 1024 always.
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
    /// `wake_cap()` in `select_task_rq_fair()` (v4.9-v5.6): a task that does not fit ~80% of
    /// min(capacity(prev), capacity(waker)) skips the affine fast path.
    pub wake_cap: bool,
    /// v4.9 `sd_init()`: SD_BALANCE_WAKE on an SD_ASYM_CPUCAPACITY domain and every domain below.
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
    /// `sd_init()`: `SD_PREFER_SIBLING` on the cache-sharing (MC) level too, so on every non-NUMA
    /// level. v4.9-v4.12 set it on SMT and on the levels above the LLC only (the v4.12 tree);
    /// v4.16 sets it on MC as well (topology.c:1166), and v5.x+ sets it by default and clears it on
    /// NUMA, which is the same set.
    pub prefer_sibling_all_levels: bool,
    /// `sd_init()`: a domain with `SD_ASYM_CPUCAPACITY` clears `SD_PREFER_SIBLING` on its child
    /// ("Don't attempt to spread across CPUs of different capacities"; present in v4.20, v5.6
    /// topology.c:1384 and v6.8 topology.c:1643, absent in v4.16).
    pub prefer_sibling_asym_clear: bool,
    /// `update_sd_lb_stats()` reads `prefer_sibling` from the busiest group's flags (the flags of
    /// its child domain: v6.5+, Ricardo Neri, "Use the busiest group to set prefer_sibling"; v6.8
    /// fair.c:10605) instead of the destination CPU's child domain (v4.9-v6.4).
    pub prefer_sibling_from_busiest: bool,
    /// `arch_scale_cpu_capacity(sd, cpu)`'s default (architectures that do not override it: x86,
    /// powerpc) returns `sd->smt_gain / sd->span_weight` (smt_gain 1178, set by `sd_init()`) for an
    /// `SD_SHARE_CPUCAPACITY` domain, so `update_cpu_capacity()` gives each SMT thread 1178/threads as
    /// `capacity_orig` (589 per HT thread, 147 per SMT8 thread). v4.9-v4.20 (the v4.20 sched.h still
    /// has it); removed in v5.0. PELT and schedutil call it with `sd = NULL` and keep 1024. (arm's
    /// override ignores `sd`, but no arm preset has SMT; see [`crate::domains::capacity_orig`].)
    pub smt_gain: bool,
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
    /// PELT's integer path: see [`PeltUpdate`].
    pub pelt_update: PeltUpdate,
    pub post_init_cap: PostInitCap,
    /// `check_preempt_wakeup()` calls `set_next_buddy(woken)` whenever the woken task preempts
    /// curr, whatever the NEXT_BUDDY feature says (v2.6.3x-v6.5; v5.6 fair.c:6658). EEVDF (v6.6)
    /// sets a next buddy only under NEXT_BUDDY, which is off, so v6.6+ has none.
    pub wakeup_preempt_next_buddy: bool,
    /// The LAST_BUDDY feature (default true in v4.9/v4.16/v5.6 features.h, removed with EEVDF in
    /// v6.6): a preempted curr becomes the last buddy when the cfs_rq runs at least
    /// `sched_nr_latency` (8) tasks, and `pick_next_entity()` prefers it if that is not unfair.
    pub last_buddy: bool,
    /// `task_hot()`: "SMT siblings share cache", no task is cache hot to a balance inside an
    /// `SD_SHARE_CPUCAPACITY` domain (v5.10+, Josh Don, "ignore cache hotness for SMT migration";
    /// v6.8 fair.c:8813; absent in v4.9 and v5.6).
    pub task_hot_smt_cold: bool,
    /// `sysctl_sched_migration_cost`: a task that ran more recently than this is cache hot (0.5 ms).
    pub sched_migration_cost_ns: u64,
    /// schedutil's `rate_limit_us` between frequency updates of a policy.
    pub schedutil_rate_limit_us: u64,
    /// schedutil restarts the rate-limit clock (`last_freq_update_time`) only when the requested
    /// frequency changes (`sugov_update_commit()` v4.16, `sugov_update_next_freq()` v5.6/v6.8),
    /// so a utilization change right after an unchanged evaluation is acted on at once. Off: every
    /// evaluation restarts it (v4.9 `sugov_update_commit()`, cpufreq_schedutil.c:90). Fidelity
    /// review F3.
    pub schedutil_rate_limit_on_change: bool,
    /// v6.8 schedutil (Vincent Guittot's performance-estimation rework): the 25% headroom goes on
    /// the utilization, capped at the CPU's capacity (`sugov_effective_cpu_perf()` with
    /// `map_util_perf()`), and without frequency invariance the reference is `policy->cur * 1.25`
    /// (`get_capacity_ref_freq()`), so the factors stack to ~1.56. Off: v4.9-v6.7
    /// `get_next_freq()`, `1.25 * (invariant ? max_freq : cur) * util / max`. Fidelity review F18;
    /// the v6.8 runnable boost (`cpu_util_cfs_boost()`) is not modelled.
    pub schedutil_util_headroom: bool,
    /// schedutil keeps the frequency of a single-CPU policy whose CPU has not idled since the
    /// last update (`sugov_cpu_is_busy()`, v4.12+).
    pub schedutil_busy_hold: bool,
    /// The HWP model's evaluation window, us.
    pub hwp_window_us: u64,
    pub governor: Governor,
}

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
            prefer_sibling_all_levels: true,
            prefer_sibling_asym_clear: false,
            prefer_sibling_from_busiest: false,
            smt_gain: true,
            smt_balance: false,
            lb_util_shr_bound: false,
            lb_asym_cap_migrate_task: false,
            numa_imbalance: NumaImbalance::None,
            busy_factor: 32,
            imbalance_pct_die: 125,
            sched_latency_ns: 6_000_000,
            sched_min_granularity_ns: 750_000,
            sched_wakeup_granularity_ns: 1_000_000,
            pelt_update: PeltUpdate::Accumulate,
            post_init_cap: PostInitCap::CapacityScale,
            wakeup_preempt_next_buddy: true,
            last_buddy: true,
            task_hot_smt_cold: false,
            sched_migration_cost_ns: 500_000,
            schedutil_rate_limit_us: 10_000,
            schedutil_rate_limit_on_change: true,
            schedutil_util_headroom: false,
            schedutil_busy_hold: true,
            hwp_window_us: 4_000,
            governor: Governor::Schedutil,
        }
    }

    /// v6.8 (pre-EEVDF runqueue; see [`crate::sched::rq`] for what that leaves out): capacity
    /// detection, misfit, PELT scaling time, busy_factor 16, imbalance_pct 117. The CFS stand-in
    /// has no next/last buddies, as EEVDF (v6.6+) has none with NEXT_BUDDY off; `task_hot()`
    /// ignores SMT siblings (v5.10+); `prefer_sibling` comes from the busiest group (v6.5+).
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
            prefer_sibling_asym_clear: true,
            prefer_sibling_from_busiest: true,
            smt_gain: false,
            post_init_cap: PostInitCap::CpuCapacity,
            wakeup_preempt_next_buddy: false,
            last_buddy: false,
            task_hot_smt_cold: true,
            smt_balance: true,
            lb_util_shr_bound: true,
            lb_asym_cap_migrate_task: false,
            numa_imbalance: NumaImbalance::ImbNumaNr,
            busy_factor: 16,
            imbalance_pct_die: 117,
            schedutil_rate_limit_us: 1_000,
            schedutil_util_headroom: true,
            ..KernelConfig::v4_16()
        }
    }

    /// v4.9 (Morten Rasmussen's 2016 series was partly in, the rest out of tree): the capacity-blind
    /// wake-up path (no `wake_cap()`, load-based `find_idlest_group()`, the old `wake_affine()`), no
    /// `recent_used_cpu`; PELT's three-segment `__update_load_avg()` dividing by `LOAD_AVG_MAX`,
    /// `SD_PREFER_SIBLING` on SMT and DIE only, schedutil's rate limit restarted by every
    /// evaluation. The 2016 series is the `asym-cpu-capacity-2016` patch.
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
            schedutil_rate_limit_on_change: false,
            pelt_update: PeltUpdate::Segments,
            prefer_sibling_all_levels: false,
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
            prefer_sibling_from_busiest: false,
            wakeup_preempt_next_buddy: true,
            last_buddy: true,
            task_hot_smt_cold: false,
            schedutil_util_headroom: false,
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
            schedutil_util_headroom: false,
            ..KernelConfig::v6_8()
        }
    }

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
                  to the slow path; find_idlest_group() considers spare capacity.",
    changes: r#"{"arch_cpu_capacity": true, "asym_cpucapacity_detection": true, "wake_cap": true, "balance_wake_on_asym": true, "find_idlest": "spare_capacity", "find_idlest_spare_at_fork": true}"#,
},
Patch {
    name: "x86-freq-invariance",
    title: "x86, sched: Add support for frequency invariance (SKYLAKE_X)",
    origin: "Giovanni Gherdovich, Jan 2020 (1567c3e3467c, 2a0abc596998), in v5.7",
    description: "arch_scale_freq_capacity() from APERF/MPERF at each tick, normalised to the turbo frequency \
                  of the first turbo bin with at least 4 active cores and clamped to 1024; PELT becomes \
                  frequency-invariant and schedutil scales from the policy's maximum, not its current \
                  frequency.",
    changes: r#"{"frequency_invariance": true, "freq_invariance_max": {"turbo_group": {"min_active_cores": 4}}}"#,
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
