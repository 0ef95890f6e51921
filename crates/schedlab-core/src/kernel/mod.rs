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

/// How `pick_next_entity()` chooses among a cfs_rq's runnable tasks.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum FairPick {
    /// CFS (v2.6.23-v6.5): the leftmost vruntime, with the skip/last/next buddies, slices from
    /// `sched_slice()` and `check_preempt_tick()`/`wakeup_preempt_entity()` (see
    /// [`crate::sched::rq`]).
    #[default]
    Cfs,
    /// EEVDF (v6.6+, 147f3efaa241 / 5e963f2bd465): the eligible task with the earliest virtual
    /// deadline, `pick_eevdf()`, with `place_entity()`'s lag and `update_deadline()` (see
    /// [`crate::sched::eevdf`]).
    Eevdf,
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
    /// v5.18+ (`sd->imb_numa_nr`), in its v6.8 form: `adjust_numa_imbalance(imbalance,
    /// dst_running, imb_numa_nr)` ignores an imbalance of up to `NUMA_IMBALANCE_MIN` (2) while the
    /// destination node would run at most `imb_numa_nr` tasks. `calculate_imbalance()` applies it
    /// to the task imbalance; `find_idlest_group()` to the difference of idle CPUs, with
    /// `imb_numa_nr` capped by the task's allowed CPUs of the local node (v6.8 fair.c:10448).
    /// Simplification: v5.18's first `find_idlest_group()` form (stay while
    /// `allow_numa_imbalance(local nr + 1, imb_numa_nr)`, whatever the idle difference) has no
    /// variant of its own.
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

/// How far `select_idle_cpu()` scans the LLC for an idle CPU.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SisScan {
    /// v4.9-v4.12: the whole LLC (SIS_AVG_CPU exists but defaults off).
    Full,
    /// SIS_PROP (v4.13-v5.18 default; v4.13-v5.12 form): at most
    /// `max(4, llc_weight * (this_rq()->avg_idle / 512) / (sd_llc->avg_scan_cost + 1))` CPUs, where
    /// `avg_scan_cost` is an EWMA (1/8) of the cost of the scans that ran to their end. v5.13+ read
    /// `wake_avg_idle` instead and v5.12+ skip the limit while an idle core is hoped for; no
    /// baseline falls in v5.13-v5.19, so that form is not modelled.
    Prop,
    /// SIS_UTIL (v6.0+, Chen Yu: read in v6.0.19 with SIS_PROP defaulting off, and v6.8 without
    /// SIS_PROP; v5.19 still has SIS_PROP only): at most
    /// `sd_llc_shared->nr_idle_scan` CPUs, which `update_idle_cpu_scan()` sets from the LLC's
    /// utilization at each periodic LLC balance; none at all when it is 0.
    Util,
}

/// How `select_idle_sibling()` looks for an idle core and an idle SMT sibling.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SisCoreScan {
    /// v4.9-v5.11: `select_idle_core()` (only while `has_idle_cores` is set; a failed scan clears
    /// it), then `select_idle_cpu()` from target, then `select_idle_smt()` on target's siblings.
    Separate,
    /// v5.12+ (Mel Gorman, "Merge select_idle_core/cpu()"): without the hint, `select_idle_smt()` on
    /// prev's siblings first; `select_idle_cpu()` then scans whole cores (no scan limit) while the
    /// hint is set, remembering the first idle CPU, and single CPUs otherwise; from target + 1
    /// (v5.15+; v5.12-v5.14 still started at target). Read in v5.12.9, v5.14, v5.15, v6.0, v6.8;
    /// v5.11.14 still has the separate form.
    Merged,
}

/// The era of `p->recent_used_cpu` in `select_idle_sibling()`.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RecentUsedCpu {
    /// Before v4.16: no recent_used_cpu.
    Off,
    /// v4.16-v5.12 (32e839dda3ba, Mel Gorman; read in v4.16.13, v5.6, v5.7, v5.10, v5.11,
    /// v5.12): the candidate is used when idle and sharing target's LLC, and only then replaced by
    /// prev; an affine wake-up sets the *waker's* `current->recent_used_cpu` to the waking CPU
    /// (`select_task_rq_fair()`). v5.14 (read) has dropped the waker's update but still replaces
    /// only when used: that in-between form is not modelled (no baseline falls there).
    WakerCpu,
    /// v5.15+ (read in v5.15, v6.0 and v6.8): `p->recent_used_cpu = prev` on every pass through
    /// that step, and the waker's is not set.
    Prev,
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

/// schedutil's iowait boost: what an `SCHED_CPUFREQ_IOWAIT` update (a task woken after an I/O
/// wait) does to its CPU's frequency (`sugov_iowait_boost()` / `sugov_set_iowait_boost()` and
/// `sugov_iowait_apply()`), per CPU, in every era reset when the CPU had no update for more than a
/// tick (`TICK_NSEC`).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum IowaitBoost {
    /// v4.9-v4.15 (read in v4.9.115, v4.12, v4.14.4): the boost jumps to
    /// `cpuinfo.max_freq` and halves at each use; applied as the (frequency, max frequency) pair
    /// when it is above util/max.
    MaxFreq,
    /// v4.16-v4.17 (read in v4.16.13, v4.17): the boost starts at `policy->min` and doubles per
    /// IOWAIT update (once per use: `iowait_boost_pending`) up to `cpuinfo.max_freq`, halves
    /// at a use with no new request and drops to 0 below `policy->min`; in frequencies.
    DoublingFreq,
    /// v4.18-v5.0 (read in v4.19.1, v4.20, v5.0.1): as `doubling_freq`, with
    /// `sugov_iowait_reset()`: an IOWAIT update after more than a tick restarts at `policy->min`.
    DoublingFreqReset,
    /// v5.2+ (read in v5.2.1, v5.4, v5.6.4, v6.8): in utilization, from `IOWAIT_BOOST_MIN` =
    /// `SCHED_CAPACITY_SCALE / 8` doubling to 1024, applied as `max(util, boost * max >> 10)`.
    /// (v5.1's floor, `sg_cpu->min` from the policy's min/max frequency, is not modelled.)
    DoublingUtil,
}

/// How `sugov_init()` derives schedutil's default `rate_limit_us` for a policy from its cpufreq
/// driver's figures (`policy->cpuinfo.transition_latency` in ns, `policy->transition_delay_us`).
/// The latency is truncated to whole microseconds first (`/ NSEC_PER_USEC`), and the product is
/// `unsigned int` arithmetic in every era.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TransitionDelay {
    /// v4.7-v4.11 `sugov_init()` (read in v4.9.115, v4.10.17, v4.11): `LATENCY_MULTIPLIER` (1000)
    /// x the latency in us, or 1000 us when it is 0; the field `transition_delay_us` does not
    /// exist yet, and nothing caps the product.
    LatencyMultiplier,
    /// v4.12-v4.14 `sugov_init()` (read in v4.12, v4.14.4): the driver's `transition_delay_us`
    /// when it sets one, else as `latency_multiplier`, uncapped.
    DriverDelay,
    /// v4.15-v6.8 `cpufreq_policy_transition_delay_us()` (read in v4.16.13, v5.2.1, v6.8): the
    /// driver's `transition_delay_us` when set, else min(1000 x latency in us, 10 000 us), else
    /// (latency 0) 1000 us. v6.9 lowers the cap to 2 ms and later kernels drop the multiplier:
    /// not modelled, no baseline is that new.
    DriverDelayCapped,
}

/// What lets `newidle_balance()` start at all, besides `rd->overload`.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum NewidleGate {
    /// v3.x-v5.15 `idle_balance()` / `newidle_balance()`: skip when `this_rq->avg_idle <
    /// sysctl_sched_migration_cost` (the CPU's expected idle time is too short to be worth it).
    MigrationCost,
    /// v5.16+ ("sched/fair: Remove sysctl_sched_migration_cost condition"): skip
    /// when `this_rq->avg_idle < sd->max_newidle_lb_cost` of the lowest domain.
    MaxNewidleLbCost,
}

/// How the blocked load of tickless idle CPUs is kept from going stale (`NOHZ_STATS_KICK`).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum NohzStats {
    /// Up to v4.16: only balancing ages an idle CPU's signals (its own balance, or the nohz idle
    /// balancer's pass over the CPUs it balances).
    None,
    /// v4.17-v5.12 (Vincent Guittot's "update blocked load of idle CPUs" series): a busy CPU's
    /// tick kicks an idle CPU to only update the idle CPUs' blocked load once `nohz.next_blocked`
    /// (32 ms after the last full update) has passed; a CPU whose newly-idle balance did not run
    /// does that update itself (`nohz_newidle_balance()`), and newly-idle load balancing updates
    /// the idle CPUs it reads (`LBF_NOHZ_STATS`).
    Kick,
    /// v5.13+ ("Trigger the update of blocked load on newly idle cpu", "Remove update of blocked
    /// load from newidle_balance"; v5.10 has the old form, v5.15 this): every newly-idle balance
    /// that pulls nothing flags `NOHZ_NEWILB_KICK` and the CPU updates the other idle CPUs as it
    /// enters idle (`nohz_run_idle_balance()`); newly-idle load balancing no longer does.
    NewilbKick,
}

/// The avg_load guards of `calculate_imbalance()` before it computes a migrate_load imbalance
/// for a local group that is not overloaded.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum AvgLoadGuard {
    /// v5.5-v5.6: none. `min((busiest - avg) * cap, (avg - local) * cap)` is unsigned: a local
    /// group above the domain average wraps its term, so the busiest group's excess is moved.
    None,
    /// v5.7-v5.15: no imbalance while the local avg_load is at least the busiest's.
    Busiest,
    /// v6.8 (absent in v5.15; "sched/fair: Fix imbalance overflow"): nor while it is at least
    /// the domain's average.
    BusiestAndDomain,
}

/// Which `load_balance()` the kernel has: the era of `find_busiest_group()` and what it moves.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum LoadBalancer {
    /// Before v5.5 (v4.9-v5.4 modelled, see [`LegacyLb`]): `group_other` / `group_misfit_task`
    /// (v4.20+) / `group_imbalanced` / `group_overloaded`, the avg_load imbalance with
    /// `fix_small_imbalance()`, load-only `detach_tasks()` ([`crate::sched::lb_v4`]).
    Legacy,
    /// v5.5+ (Vincent Guittot, 0b0695f2b34a "sched/fair: Rework load_balance()"): group types with
    /// spare capacity, migration types load/util/task/misfit ([`crate::sched::balance`]).
    Rework,
}

/// Which test a busy CPU's tick applies before kicking the idle load balancer.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum NohzKick {
    /// v4.9-v5.0 `nohz_kick_needed()` / `nohz_balancer_kick()`: kick when this CPU runs two tasks
    /// (or, v4.20+, a misfit task), when its LLC has more than one busy CPU, or when an idle CPU of
    /// `sd_asym` is preferred over it. The LLC test holds on asymmetric-capacity systems too.
    KickNeeded,
    /// v5.1+ `nohz_balancer_kick()` (v6.8 form, with v6.5's `sched_use_asym_prio()`): under
    /// `sd_asym_cpucapacity` only `check_misfit_status()` counts and the LLC test is skipped.
    BalancerKick,
}

/// The switches of the pre-v5.5 balancer ([`LoadBalancer::Legacy`]) that changed between v4.9
/// and v5.4. The rework does not read them. Each constructor names the trees read; a version no
/// tree was read for is marked so.
///
/// | field | v4.9 | v4.10 | v4.16 (v4.18 assumed) | v4.20 | v5.0 | v5.2 | v5.4 |
/// |---|---|---|---|---|---|---|---|
/// | `force_balance_any_idle` | no | no | yes | yes | yes | yes | yes |
/// | `prefer_sibling_vs_local` | no | no | yes | yes | yes | yes | yes |
/// | `redo_outside_dst_group` | no | no | yes | yes | yes | yes | yes |
/// | `pick_busiest_capacity_guard` | no (2016 patch: yes) | yes | yes | yes | yes | yes | yes |
/// | `balanced_without_imbalance` | no | no | no | yes | yes | yes | yes |
/// | `newidle_keeps_interval` | no | no | no | no | yes | yes | yes |
/// | `voluntary_active_balance` | no | no | no | no | no | yes | yes |
/// | `all_pinned_keeps_group_imbalance` | no | no | no | no | no | no | yes |
/// | `asym_imbalance_group_load` | no | no | no | no | no | yes | yes |
///
/// With these the v4.20+ baselines also need `misfit: true` (group_misfit_task) where the
/// topology sets SD_ASYM_CPUCAPACITY, and from v5.1 [`NohzKick::BalancerKick`].
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct LegacyLb {
    /// `find_busiest_group()` forces a balance when dst is idle, the local group has capacity and
    /// the busiest has none, for any idle type (v4.16) rather than only CPU_NEWLY_IDLE (v4.9,
    /// v4.10; changed between v4.10.17 and v4.16.13).
    pub force_balance_any_idle: bool,
    /// `update_sd_lb_stats()` with a SD_PREFER_SIBLING child marks a group with no capacity when
    /// it runs more than one task beyond the local group (`sum_nr_running > local + 1`, v4.16)
    /// rather than more than one task (v4.9, v4.10).
    pub prefer_sibling_vs_local: bool,
    /// `load_balance()` after LBF_ALL_PINNED redoes while busiest CPUs outside the destination
    /// group remain (`!cpumask_subset(cpus, dst_grpmask)`, v4.16) rather than while any CPU
    /// remains (`!cpumask_empty(cpus)`, v4.9, v4.10).
    pub redo_outside_dst_group: bool,
    /// `update_sd_pick_busiest()` under SD_ASYM_CPUCAPACITY skips a group with at most one task
    /// per CPU whose CPUs are bigger than the local group's (`group_smaller_cpu_capacity()`,
    /// Morten Rasmussen's 2016 series, v4.10+).
    pub pick_busiest_capacity_guard: bool,
    /// `find_busiest_group()` calls the domain balanced when the computed imbalance is 0
    /// (`return env->imbalance ? sds.busiest : NULL`, v4.20; v4.16 returns the group and the pass
    /// then fails, counting `nr_balance_failed`).
    pub balanced_without_imbalance: bool,
    /// `load_balance()` does not double `balance_interval` after a balanced CPU_NEWLY_IDLE pass
    /// (`if (env.idle == CPU_NEWLY_IDLE) goto out`, v5.0+; v4.x doubles it for newidle too).
    pub newidle_keeps_interval: bool,
    /// `voluntary_active_balance()` / `asym_active_balance()` (Vincent Guittot's asym_packing
    /// fixes, v5.1; in v5.2.1, not in v5.0.1): asym packing forces an active balance on any idle
    /// type, not only CPU_NEWLY_IDLE, and a voluntary active balance keeps `balance_interval` at
    /// its minimum instead of doubling it.
    pub voluntary_active_balance: bool,
    /// `out_balanced:` leaves the parent's `sgc->imbalance` set when LBF_ALL_PINNED is (v5.4; not
    /// in v5.2.1).
    pub all_pinned_keeps_group_imbalance: bool,
    /// `check_asym_packing()`'s imbalance is the busiest group's load (v5.2) rather than
    /// `DIV_ROUND_CLOSEST(avg_load * group_capacity, SCHED_CAPACITY_SCALE)` (v4.10-v5.0).
    pub asym_imbalance_group_load: bool,
}

impl LegacyLb {
    /// v4.9.115 (alcorrius/linux-4.9.115) and v4.10.17 but for the capacity guard.
    pub fn v4_9() -> LegacyLb {
        LegacyLb {
            force_balance_any_idle: false,
            prefer_sibling_vs_local: false,
            redo_outside_dst_group: false,
            pick_busiest_capacity_guard: false,
            ..LegacyLb::v4_16()
        }
    }

    /// v4.16.13 (lizuobin/linux-4.16.13_tiny4412); v4.17 and v4.18 assumed the same (no tree read).
    pub fn v4_16() -> LegacyLb {
        LegacyLb {
            force_balance_any_idle: true,
            prefer_sibling_vs_local: true,
            redo_outside_dst_group: true,
            pick_busiest_capacity_guard: true,
            balanced_without_imbalance: false,
            newidle_keeps_interval: false,
            voluntary_active_balance: false,
            all_pinned_keeps_group_imbalance: false,
            asym_imbalance_group_load: false,
        }
    }

    /// v4.20 (a4913994/linux-4.20).
    pub fn v4_20() -> LegacyLb {
        LegacyLb {
            balanced_without_imbalance: true,
            ..LegacyLb::v4_16()
        }
    }

    /// v5.0.1 (VVvector/linux-5.0.1).
    pub fn v5_0() -> LegacyLb {
        LegacyLb {
            newidle_keeps_interval: true,
            ..LegacyLb::v4_20()
        }
    }

    /// v5.2.1 (wangliang-cs/linux-5.2.1).
    pub fn v5_2() -> LegacyLb {
        LegacyLb {
            voluntary_active_balance: true,
            asym_imbalance_group_load: true,
            ..LegacyLb::v5_0()
        }
    }

    /// v5.4.214 (GunWooJung/git-linux-5.4.214).
    pub fn v5_4() -> LegacyLb {
        LegacyLb {
            all_pinned_keeps_group_imbalance: true,
            ..LegacyLb::v5_2()
        }
    }
}

/// Energy-aware scheduling as the era's `find_energy_efficient_cpu()` has it (kernel/sched/fair.c),
/// with `compute_energy()` and the energy model's `em_pd_energy()` / `em_cpu_energy()`
/// (include/linux/energy_model.h). It acts only where `sched_energy_enabled()` holds (see
/// [`crate::sched::eas`]: SD_ASYM_CPUCAPACITY, an energy model for every CPU, schedutil, and
/// `EM_MAX_COMPLEXITY`). uclamp enters feec as [`KernelConfig::util_fits`] says; without thermal
/// pressure in the model, the thermal capacity of v6.2+ feec is `arch_scale_cpu_capacity()`.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum Eas {
    /// No EAS (before v5.0: no energy model, no perf domains).
    #[default]
    None,
    /// v5.0-v5.3 (732cd75b8c92): each candidate (prev_cpu and each perf domain's max-spare-capacity
    /// CPU other than prev) is costed with `compute_energy()` over every perf domain; the winner
    /// replaces prev only if it saves more than 1/16 of prev's energy
    /// (`prev_energy - best_energy > prev_energy >> 4`). Overutilized candidates are skipped by
    /// `cpu_cap * 1024 < util * capacity_margin`.
    TotalEnergy,
    /// v5.4-v5.19 (eb92692b2544, "Speed-up energy-aware wake-ups"): energy deltas against each perf
    /// domain's base energy (without the task); prev_cpu also competes for max spare capacity;
    /// the margin is `prev_delta - best_delta > (prev_delta + base_energy) >> 4`.
    BaseEnergy,
    /// v6.0+ (Vincent Donnefort's feec series): `struct energy_env` with each perf domain's busy time
    /// computed once without the task (`eenv_pd_busy_time()`, capped at the domain's capacity)
    /// plus the task's (`eenv_task_busy_time()`), the max utilization per candidate
    /// (`eenv_pd_max_util()`), the max-spare CPU among the CPUs other than prev evaluated only if
    /// its spare capacity beats prev's, a reversed ordering (`energy < base`) aborting to prev,
    /// and no margin: the winner replaces prev when `best_delta < prev_delta`.
    Eenv,
}

/// The test `task_fits_cpu()` / `task_fits_capacity()` and feec's candidate filter apply: which
/// utilization they compare with a CPU's capacity, and how uclamp enters (see
/// [`crate::sched::uclamp`]). Read only where [`KernelConfig::uclamp`] is on; without uclamp every
/// form is `fits_capacity(task_util_est(p), capacity_of(cpu))`.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum UtilFits {
    /// Before v5.6 (v5.3-v5.5 had uclamp in schedutil only): `fits_capacity(task_util_est(p),
    /// capacity)`, and feec filters on `cpu_util_next()` alone.
    #[default]
    Util,
    /// v5.6-v6.1 (Valentin Schneider's "uclamp-aware task placement": read in v5.6.4, v5.10.13,
    /// v5.12.9, v5.15.0): `task_fits_capacity()` is `fits_capacity(uclamp_task_util(p),
    /// capacity)` with `uclamp_task_util() = clamp(task_util_est, uclamp_min, uclamp_max)`;
    /// feec skips a CPU unless `fits_capacity(uclamp_rq_util_with(rq, util, p), capacity_of)`.
    UclampTaskUtil,
    /// v6.2+ (Qais Yousef, 48d5e9daa8b7 "sched/uclamp: Fix relationship between uclamp and
    /// migration margin"; read in v6.5 and v6.8): `util_fits_cpu(util, uclamp_min, uclamp_max,
    /// cpu)`, the real util against `capacity_of()` and the hints against
    /// `arch_scale_cpu_capacity()`, returning -1 when only uclamp_min does not fit; used by
    /// `task_fits_cpu()`, `select_idle_capacity()` (the -1 CPUs ranked by capacity),
    /// `asym_fits_cpu()`, `cpu_overutilized()` (with the rq's clamps) and feec (with the fits
    /// ranking of its candidates).
    UtilFitsCpu,
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
    /// intel_pstate active mode, powersave policy, HWP: the hardware picks each core's frequency,
    /// ramping with the core's own activity (see [`crate::hwp`]).
    Hwp,
}

/// Every behavioural switch of the modelled kernel. Field docs name the version a value belongs to.
/// (The v5.5-v6.8 balancer switches: version bounds checked against v5.6, v5.7, v5.10, v5.15 and
/// v6.8 sources; the commit titles quoted are from memory.)
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
    /// x86 frequency invariance as `arch_scale_freq_tick()` has it (v5.7+, 1567c3e3467c; the
    /// `x86-freq-invariance` patch on v5.2): each CPU's `arch_freq_scale` is set at its tick from
    /// APERF/MPERF over the last tick, i.e. the average frequency the CPU ran at while busy (both
    /// count only in C0), and stays as it was while the CPU's tick is stopped (idle). Off: the
    /// scale follows the policy's frequency at every change (arm/arm64 cpufreq
    /// `topology_set_freq_scale()`, called from the cpufreq transition).
    #[serde(default)]
    pub freq_scale_tick: bool,
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
    /// In the legacy balancer it also brings the same series' `find_busiest_queue()` rule: a lone
    /// task on a CPU bigger than dst stays.
    pub misfit: bool,
    /// `wake_cap()` in `select_task_rq_fair()` (v4.8-v5.6: absent in v4.7-rc3, removed in v5.7): a
    /// task that does not fit ~80% of min(capacity(prev), capacity(waker)) skips the affine fast
    /// path. It acts only when the CPUs' capacities differ by more than 1/8.
    pub wake_cap: bool,
    /// `wake_cap()` returns 0 unless the `sched_asym_cpucapacity` static key is on, i.e. some
    /// domain has SD_ASYM_CPUCAPACITY: read in v5.2.1 and v5.6, absent in v4.16 and v4.19.1 (the
    /// key came with the v4.20 misfit series).
    pub wake_cap_asym_gate: bool,
    /// `sd_init()` (v4.8-v5.6: absent in v4.7-rc3, gone in v5.7): SD_BALANCE_WAKE on an
    /// SD_ASYM_CPUCAPACITY domain and every domain below. Acts only where that flag is set.
    pub balance_wake_on_asym: bool,
    pub find_idlest: FindIdlest,
    /// With [`FindIdlest::SpareCapacity`], whether fork placement uses spare capacity too. Mainline
    /// skips it for fork (a new task's utilization is not set yet); *assumed*: the 2016 series as
    /// posted did not, which is how a new sysbench thread lands on a big CPU.
    pub find_idlest_spare_at_fork: bool,
    pub wake_affine: WakeAffine,
    /// `wake_cap()` brings the task's utilization up to date with `sync_entity_load_avg()` before
    /// testing it (v4.10+; v4.9's tests the signal as last updated, at the task's dequeue).
    pub wake_cap_sync: bool,
    /// `wake_affine_idle()` returns an idle prev_cpu when this_cpu is busy (`if
    /// (available_idle_cpu(prev_cpu)) return prev_cpu;`): v5.11+ (read in v5.11.14, v5.12, v5.14,
    /// v6.0, v6.8), absent in v4.15-v5.10 (read in v4.16, v5.6, v5.7, v5.8.18, v5.10.13).
    pub wake_affine_idle_prev: bool,
    /// `select_idle_sibling()`'s `p->recent_used_cpu` candidate, by era.
    pub sis_recent_used_cpu: RecentUsedCpu,
    /// `select_idle_cpu()`'s scan limit, by era.
    pub sis_scan: SisScan,
    /// `select_idle_core()` / `select_idle_smt()` / `select_idle_cpu()` structure, by era.
    pub sis_core_scan: SisCoreScan,
    /// The cost of `select_idle_cpu()` visiting one CPU, in ns: the kernel times the scan with
    /// `cpu_clock()` and keeps `sd_llc->avg_scan_cost` for SIS_PROP. **[assumed]** 100 ns: each
    /// visit reads another CPU's runqueue state (`idle_cpu()`: `rq->curr`, `nr_running`,
    /// `ttwu_pending`), about one cache miss to another core's L2 or a remote LLC slice, which is
    /// 50-100 ns on the x86 servers modelled (the upper end, for the loop and mask work around it);
    /// the model has no clock to time the real scan with. Chosen before any run, not fitted.
    pub sis_scan_cost_per_cpu_ns: u64,
    /// The spare-capacity `find_idlest_group()` ([`FindIdlest::SpareCapacity`]) ends with the
    /// SD_NUMA test `min_runnable_load + imbalance >= this_runnable_load -> stay local`. Absent in
    /// v4.10-v4.16 (read in v4.16.13), present in v4.19.1 and v5.2.1 (read); v4.17/v4.18 not read.
    pub find_idlest_spare_numa: bool,
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
    /// `group_is_overloaded()` / `group_has_capacity()` also test `group_runnable` against the
    /// group's capacity (v5.7+, "sched/fair: Take into account runnable_avg to
    /// classify group"); v5.5-v5.6 classify by task count and utilization only.
    pub lb_group_runnable: bool,
    /// `calculate_imbalance()`: an overloaded busiest group and a local group with spare capacity
    /// give `migrate_util` only outside the LLC (`!(sd->flags & SD_SHARE_PKG_RESOURCES)`), inside it
    /// the number of tasks is spread (v5.10+, "sched/fair: Ensure tasks spreading in
    /// LLC during LB"); v5.5-v5.9 use `migrate_util` at every level.
    pub lb_spread_in_llc: bool,
    /// `detach_tasks()` migrate_load test: skip a task while `load >> nr_balance_failed >
    /// imbalance` (v5.10+, "sched/fair: Relax constraint on task's load during load
    /// balance"; `shr_bound()` since v6.8). Off, the v5.5-v5.9 rule: skip while `load/2 >
    /// imbalance && nr_balance_failed <= cache_nice_tries`.
    pub lb_load_shr: bool,
    /// `need_active_balance()` forces an active balance after `nr_balance_failed >
    /// cache_nice_tries + 2` only for `migrate_task` (`imbalanced_active_balance()`, v5.13+,
    /// "sched/fair: Reduce cases for active balance"). Off, the v5.5-v5.12 form: after
    /// those failures for any migration type (`voluntary_active_balance()` or the failure count),
    /// and `load_balance()` then sets `nr_balance_failed = cache_nice_tries + 1` and, for a
    /// non-voluntary kick, doubles `balance_interval` (both gone by v5.15; v5.10 still has them).
    pub lb_imbalanced_active_balance: bool,
    /// See [`AvgLoadGuard`].
    pub lb_avg_load_guard: AvgLoadGuard,
    /// `should_we_balance()` prefers the first idle CPU on an idle core above the SMT level (v6.6+,
    /// "sched/fair: Consider the idle state of the whole core for load balance");
    /// before, the first idle CPU of the group.
    pub should_we_balance_idle_core: bool,
    /// `find_busiest_queue()` migrate_util skips a CPU running a single task (v5.7+); v5.5-v5.6
    /// may pick it and then fail to detach anything.
    pub fbq_util_skip_single: bool,
    /// `find_busiest_queue()` migrate_util compares `cpu_util_cfs_boost()` = max(util_avg,
    /// runnable_avg) (v6.5+, runnable boosting); before, `cpu_util()` (util_avg with util_est).
    pub fbq_util_boost: bool,
    /// `update_sd_pick_busiest()` SMT rules (v6.6+): a fully_busy group ties with an SMT busiest
    /// ("Keep a fully_busy SMT sched group as busiest") and has_spare never prefers an
    /// SMT group running one task over a non-SMT group (`smt_vs_nonsmt_groups()`). Off, v5.5-v6.5:
    /// fully_busy keeps the first of equal avg_load, has_spare compares idle CPUs and tasks only.
    pub pick_busiest_smt: bool,
    /// `update_sg_wakeup_stats()` computes avg_load of fully_busy and overloaded groups (v5.7+).
    /// Off, v5.5-v5.6: `if (sgs->group_type < group_fully_busy)`, i.e. only for groups with spare
    /// capacity, where it is never read: busy groups compare avg_load 0, so `find_idlest_group()`
    /// keeps the first busy group and stays local whenever the local group is as busy.
    pub sg_wakeup_avg_load_busy: bool,
    /// `update_pick_idlest()` breaks a tie of idle CPUs between has_spare groups by the lower
    /// group_util (present in v5.10, absent in v5.7). Off: the first group with the most idle CPUs.
    pub pick_idlest_util_tiebreak: bool,
    /// When `newidle_balance()` may start (see [`NewidleGate`]). Both eras also stop at the first
    /// domain where `avg_idle < curr_cost + sd->max_newidle_lb_cost`.
    pub newidle_gate: NewidleGate,
    /// `update_newidle_cost()` (v5.16+, "sched/fair: Wait before decaying
    /// max_newidle_lb_cost"): raising `sd->max_newidle_lb_cost` restarts its 1 s decay timer, and
    /// newidle passes decay it too. Off, v3.x-v5.15: a newidle pass only raises it; the decay
    /// (x253/256 once per second) runs from `rebalance_domains()` on its own `next_decay_max_lb_cost`.
    pub update_newidle_cost: bool,
    /// `update_avg()`, the EWMA of `rq->avg_idle`: `*avg += diff / 8` (v5.7+, in sched.h) instead
    /// of `diff >> 3` (core.c up to v5.6); they differ by one for a negative difference.
    pub update_avg_div: bool,
    /// The blocked-load updates of idle CPUs (see [`NohzStats`]).
    pub nohz_stats: NohzStats,
    /// **[assumed]** The time one newly-idle `load_balance()` pass at a domain takes, as
    /// `sched_clock_cpu()` would measure it: this constant plus [`Self::newidle_lb_cost_per_cpu_ns`]
    /// per CPU of the domain's span (the pass reads every CPU's runqueue in
    /// `update_sg_lb_stats()`). The model's balance takes no simulated time; this cost only feeds
    /// `sd->max_newidle_lb_cost` and `rq->max_idle_balance_cost`. The numbers (2 us + 0.25 us per
    /// CPU: ~4 us for an 8-CPU LLC, ~26 us across 96 CPUs) are the orders of magnitude the
    /// kernel's sched_domain debug files show for such domains, not a measurement of any modelled
    /// machine, and are not tuned to a result.
    pub newidle_lb_cost_base_ns: u64,
    /// **[assumed]** Per CPU of the domain's span; see [`Self::newidle_lb_cost_base_ns`].
    pub newidle_lb_cost_per_cpu_ns: u64,
    /// The v1 "use all little CPUs" rule in `calculate_imbalance()` (never merged): under
    /// SD_ASYM_CPUCAPACITY, local has an idle CPU and busiest more tasks than CPUs -> migrate_task.
    pub lb_asym_cap_migrate_task: bool,
    pub numa_imbalance: NumaImbalance,
    /// Which `load_balance()`: [`LoadBalancer::Legacy`] for v4.9-v5.4, [`LoadBalancer::Rework`]
    /// from v5.5 (0b0695f2b34a).
    pub load_balancer: LoadBalancer,
    /// The per-version rules of the legacy balancer (read only with [`LoadBalancer::Legacy`]).
    pub lb_legacy: LegacyLb,
    /// The nohz idle-balance kick test of the busy tick.
    pub nohz_kick: NohzKick,
    /// CONFIG_PREEMPTION (CONFIG_PREEMPT before v5.3): `detach_tasks()` stops after one task in a
    /// newly-idle pass (`#ifdef CONFIG_PREEMPTION`, every version), so that the CPU runs it at once.
    /// A build option, not an era: Android and arm64 development kernels build with it; x86
    /// distribution kernels usually build PREEMPT_VOLUNTARY, which moves the whole imbalance.
    /// The baselines keep it on (the model's behaviour before it became a switch); a scenario of a
    /// distribution kernel may turn it off.
    pub preemption: bool,
    /// `sd->busy_factor`: 32 until v5.9, 16 since v5.10.
    pub busy_factor: u32,
    /// `imbalance_pct` of levels above the LLC (DIE/PKG): 125 until v5.9, 117 since v5.10.
    pub imbalance_pct_die: u32,
    /// `sysctl_sched_latency` before tunable scaling (6 ms).
    pub sched_latency_ns: u64,
    /// `sysctl_sched_min_granularity` before tunable scaling (0.75 ms); from v6.6 the same value is
    /// `sysctl_sched_base_slice` (renamed by the EEVDF series, scaled alike by `update_sysctl()`),
    /// EEVDF's request size `se->slice`.
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
    /// `pick_next_entity()`: the CFS pick (v4.x-v6.5) or EEVDF's `pick_eevdf()` (v6.6+), with
    /// everything that goes with each (placement, slices, tick and wake-up preemption).
    #[serde(default)]
    pub fair_pick: FairPick,
    /// EEVDF's RUN_TO_PARITY feature (features.h, v6.6+ 63304558ba5d, default on):
    /// `pick_eevdf()` keeps an eligible curr until it gets a new slice (the pick stashes the
    /// deadline in `se->vlag`, the "HACK" of `set_next_entity()`), which inhibits wake-up
    /// preemption. Read only with [`FairPick::Eevdf`].
    #[serde(default)]
    pub run_to_parity: bool,
    /// EEVDF's PLACE_LAG feature (v6.6+, default on): `place_entity()` puts a waking or migrating
    /// task at `avg_vruntime() - vlag`, the lag it had at its dequeue (`update_entity_lag()`),
    /// inflated by `(W + w_i) / W`; off, at the 0-lag point. Read only with [`FairPick::Eevdf`].
    #[serde(default)]
    pub place_lag: bool,
    /// EEVDF's PLACE_DEADLINE_INITIAL feature (v6.6+, default on): a new task's first virtual
    /// deadline is half a slice away (`place_entity()` with ENQUEUE_INITIAL), as if it joined
    /// halfway through the others' slices. Read only with [`FairPick::Eevdf`].
    #[serde(default)]
    pub place_deadline_initial: bool,
    /// Per-task slices (v6.12+, 857b158dc5e8 "sched/eevdf: Use sched_attr::sched_runtime to set
    /// request/slice suggestion"): `__setscheduler_params()` takes a fair task's
    /// `sched_attr.sched_runtime` as its `se->slice` (`custom_slice`, clamped to 0.1-100 ms), which
    /// `place_entity()` and `update_deadline()` then keep; before, the field is ignored for
    /// SCHED_OTHER. Read only with [`FairPick::Eevdf`].
    #[serde(default)]
    pub custom_slice: bool,
    /// EEVDF's PREEMPT_SHORT feature (v6.12+, 85e511df3cec "sched/eevdf: Allow shorter slices to
    /// wakeup-preempt", default on): a woken eligible task with a shorter slice than curr cancels
    /// curr's RUN_TO_PARITY protection (`do_preempt_short()` / `cancel_protect_slice()`), and
    /// `update_curr()` reschedules an unprotected curr once it is not eligible
    /// (`did_preempt_short()`). Read only with [`FairPick::Eevdf`].
    #[serde(default)]
    pub preempt_short: bool,
    /// `task_hot()`: "SMT siblings share cache", no task is cache hot to a balance inside an
    /// `SD_SHARE_CPUCAPACITY` domain (v5.10+, Josh Don, "ignore cache hotness for SMT migration";
    /// v6.8 fair.c:8813; absent in v4.9 and v5.6).
    pub task_hot_smt_cold: bool,
    /// `sysctl_sched_migration_cost`: a task that ran more recently than this is cache hot (0.5 ms).
    pub sched_migration_cost_ns: u64,
    /// The sysfs tunable `schedutil/rate_limit_us` (`rate_limit_us_store()`), written after
    /// boot: the shortest time between two frequency changes of every policy. None (the default):
    /// each policy keeps what `sugov_init()` gave it from its driver
    /// (`schedutil_transition_delay`).
    #[serde(default)]
    pub schedutil_rate_limit_us: Option<u64>,
    /// How `sugov_init()` computes a policy's default `rate_limit_us` from its cpufreq driver's
    /// transition latency and delay (see [`TransitionDelay`]; the driver figures are machine data,
    /// [`crate::topology::CpufreqDriverSpec`]).
    #[serde(default = "transition_delay_default")]
    pub schedutil_transition_delay: TransitionDelay,
    /// intel_cpufreq (intel_pstate passive) keeps HWP on where the CPU has it and then sets
    /// `policy->transition_delay_us = INTEL_CPUFREQ_TRANSITION_DELAY_HWP` (5000 us) instead of
    /// `INTEL_CPUFREQ_TRANSITION_DELAY` (500 us) in `intel_cpufreq_cpu_init()` (v5.9+, "Use passive
    /// mode with HWP enabled"; read: absent in v5.6.4, present in v5.10.13 and v6.8). Off: passive
    /// mode runs without HWP. Only a driver with a `transition_delay_hwp_us` is affected.
    #[serde(default = "intel_cpufreq_hwp_default")]
    pub intel_cpufreq_hwp: bool,
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
    /// the v6.8 runnable boost (`cpu_util_cfs_boost()`) is not modelled. The same rework (read in
    /// v6.8) applies uclamp as hints, `max(min, min(util * 1.25, max))`, in schedutil
    /// and in EAS's `eenv_pd_max_util()` (whose `em_cpu_energy()` then adds no headroom), where
    /// v5.3-v6.7 clamp the utilization first (`uclamp_rq_util_with()`); see [`crate::sched::uclamp`].
    pub schedutil_util_headroom: bool,
    /// schedutil keeps the frequency of a single-CPU policy whose CPU has not idled since the
    /// last update (`sugov_cpu_is_busy()`, v4.12+).
    pub schedutil_busy_hold: bool,
    /// schedutil's iowait boost rule (see [`IowaitBoost`]; fidelity review F18).
    #[serde(default = "iowait_boost_default")]
    pub schedutil_iowait_boost: IowaitBoost,
    /// intel_pstate (HWP active, powersave policy): the energy-performance preference written to
    /// each CPU's `MSR_HWP_REQUEST` (bits 31:24), 0 ("performance") to 255 ("power"). The powersave
    /// policy keeps the firmware's value (`intel_pstate_hwp_set()`, v4.10+), 128 =
    /// `HWP_EPP_BALANCE_PERFORMANCE`; sysfs `energy_performance_preference` changes it
    /// (`intel_pstate_set_energy_pref_index()`). How the hardware uses it is the **[assumed]**
    /// mapping of [`crate::hwp`].
    pub hwp_epp: u32,
    /// intel_pstate HWP dynamic boost (`hwp_boost`, sysfs `hwp_dynamic_boost`, v4.18+): the update
    /// hook `intel_pstate_update_util_hwp()` raises a CPU's HWP min on repeated IOWAIT wake-ups
    /// (`intel_pstate_hwp_boost_up()`) and drops it after `hwp_boost_hold_time_ns`
    /// (`intel_pstate_hwp_boost_down()`). v4.18+ turns it on by default on SKYLAKE_X (Cascade Lake
    /// included) with an ACPI server PM profile (`intel_pstate_init_cpu()`), the only HWP machine
    /// modelled, so the era value is on. Off: no hook (before v4.18, or a client profile).
    pub hwp_dynamic_boost: bool,
    /// Energy-aware scheduling and its `find_energy_efficient_cpu()` form (see [`Eas`]): none before
    /// v5.0, [`Eas::TotalEnergy`] v5.0-v5.3, [`Eas::BaseEnergy`] v5.4-v5.19, [`Eas::Eenv`] v6.0+.
    #[serde(default)]
    pub eas: Eas,
    /// The energy model's power unit: microwatts (v5.19+, "PM: EM: convert power field to
    /// micro-Watts precision": `_get_power()` divides `dpc * mV^2 * MHz` by 10^6) or milliwatts
    /// (v5.1-v5.18 `of_dev_pm_opp_get_cpu_power()` / `_get_cpu_power()`, by 10^9). Each state's
    /// `cost = power * max_freq / freq` (integer, `em_create_pd()` / `em_compute_costs()`, to v6.8)
    /// inherits the rounding.
    #[serde(default)]
    pub em_power_uw: bool,
    /// Where the energy estimate puts the 25% DVFS headroom: on the utilization,
    /// `freq = max_freq * min(util + util/4, cpu_cap) / scale_cpu` (v5.14+ `map_util_perf()` in
    /// `em_cpu_energy()`, with the thermal `allowed_cpu_cap`; in v6.8 moved into
    /// `eenv_pd_max_util()` by `sugov_effective_cpu_perf()`, same figure), or on the frequency,
    /// `freq = (max_freq + max_freq/4) * util / scale_cpu` (v5.0-v5.13 `map_util_freq()` in
    /// `em_pd_energy()`).
    #[serde(default)]
    pub em_util_headroom: bool,
    /// Utilization clamping (`CONFIG_UCLAMP_TASK`, v5.3+, Patrick Bellasi; read in v5.6.4,
    /// v5.15.0, v6.5, v6.8): per-task `uclamp_req[UCLAMP_MIN/MAX]` set with `sched_setattr()`
    /// (SCHED_FLAG_UTIL_CLAMP_MIN/MAX, [`crate::workload::Op::SetUclamp`]), limited by the
    /// system defaults (`uclamp_eff_get()`); the rq's max-aggregated clamps in
    /// `UCLAMP_BUCKETS` buckets (`uclamp_rq_inc()` / `uclamp_rq_dec()` in core.c's
    /// `enqueue_task()` / `dequeue_task()`, UCLAMP_FLAG_IDLE's max retention); schedutil's
    /// utilization clamped by them (`uclamp_rq_util_with()` in `schedutil_cpu_util()` v5.3-v5.10,
    /// `effective_cpu_util()` v5.11-v6.7; v6.8 applies min and max in
    /// `sugov_effective_cpu_perf()`, which `schedutil_util_headroom` stands for), and the EAS
    /// energy estimate's. Fitting follows [`KernelConfig::util_fits`]. Off: no clamps
    /// anywhere (before v5.3, or `CONFIG_UCLAMP_TASK=n`). See [`crate::sched::uclamp`].
    #[serde(default)]
    pub uclamp: bool,
    /// How task placement tests that a task fits a CPU, with uclamp (see [`UtilFits`]).
    #[serde(default)]
    pub util_fits: UtilFits,
    /// `uclamp_rq_util_with(rq, util, p)` ignores the rq's clamps when the rq is idle
    /// (`uclamp_rq_is_idle()`, UCLAMP_FLAG_IDLE: the max clamp retained from the last task), as
    /// `p` will reset them (v5.13+, 3e1493f46390 "sched/uclamp: Ignore max aggregation if rq is
    /// idle"; read: absent in v5.12.9, present in v5.15.0 and v6.5; v6.8's `eenv_pd_max_util()`
    /// open-codes the same). Matters where a waking task is costed: feec's filter and the energy
    /// estimate. Off: the retained max of an idle CPU still caps the waking task there.
    #[serde(default)]
    pub uclamp_rq_idle_ignore: bool,
    /// schedutil honours a uclamp_max cap (v5.17+, Qais Yousef: d37aee9018e6 "sched/uclamp: Fix
    /// iowait boost escaping uclamp restriction" clamps the iowait boost with
    /// `uclamp_rq_util_with(rq, boost, NULL)` in `sugov_iowait_apply()`, and 7a17e1db1265
    /// "sched/sugov: Ignore 'busy' filter when rq is capped by uclamp_max" skips the busy hold
    /// while `uclamp_rq_is_capped()`; read: neither in v5.15.0, both in v6.5 and v6.8). Off: the
    /// iowait boost and the busy hold escape the cap.
    #[serde(default)]
    pub uclamp_max_sugov: bool,
    /// The sysctl `sched_util_clamp_min` (`sysctl_sched_uclamp_util_min`, v5.3+, default 1024):
    /// the highest uclamp_min any task gets (`uclamp_eff_get()`). A tunable.
    #[serde(default = "uclamp_default")]
    pub sched_util_clamp_min: u32,
    /// The sysctl `sched_util_clamp_max` (`sysctl_sched_uclamp_util_max`, default 1024): the
    /// highest uclamp_max any task gets. A tunable.
    #[serde(default = "uclamp_default")]
    pub sched_util_clamp_max: u32,
    pub governor: Governor,
}

fn uclamp_default() -> u32 {
    1024
}

fn iowait_boost_default() -> IowaitBoost {
    IowaitBoost::DoublingUtil
}

fn transition_delay_default() -> TransitionDelay {
    TransitionDelay::DriverDelayCapped
}

fn intel_cpufreq_hwp_default() -> bool {
    true
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
        if self.sis_scan_cost_per_cpu_ns == 0 || self.sis_scan_cost_per_cpu_ns > 1_000_000 {
            return Err(Error::Config(
                "sis_scan_cost_per_cpu_ns must be 1 ns to 1 ms".into(),
            ));
        }
        if self.newidle_lb_cost_base_ns > 1_000_000_000
            || self.newidle_lb_cost_per_cpu_ns > 1_000_000_000
        {
            return Err(Error::Config(
                "newidle_lb_cost_base_ns and newidle_lb_cost_per_cpu_ns must be at most 1 s".into(),
            ));
        }
        if self.sched_migration_cost_ns > 1_000_000_000
            || self
                .schedutil_rate_limit_us
                .is_some_and(|us| us > 1_000_000)
        {
            return Err(Error::Config(
                "sched_migration_cost_ns and schedutil_rate_limit_us must be at most 1 s".into(),
            ));
        }
        if self.hwp_epp > 255 {
            return Err(Error::Config(format!(
                "hwp_epp must be 0 to 255, not {}",
                self.hwp_epp
            )));
        }
        // sysctl_sched_uclamp_handler(): min <= max <= SCHED_CAPACITY_SCALE.
        if self.sched_util_clamp_min > self.sched_util_clamp_max || self.sched_util_clamp_max > 1024
        {
            return Err(Error::Config(format!(
                "sched_util_clamp_min ({}) must be at most sched_util_clamp_max ({}), and that at \
                 most 1024",
                self.sched_util_clamp_min, self.sched_util_clamp_max
            )));
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
