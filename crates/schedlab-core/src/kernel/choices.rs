//! The values the switches of [`KernelConfig`] take beyond bools and numbers: an enum per rule that
//! changed between eras ([`PeltInvariance`], [`FairPick`], [`FindIdlest`], [`SisScan`],
//! [`LoadBalancer`], [`Eas`], ...), [`AsymPacking`], [`LegacyLb`] with its per-version
//! constructors, and the [`Governor`]. Each variant names the kernel function(s) and the versions
//! it stands for; the fields that hold them, and their serde defaults, are in `mod.rs`.

// Only the doc links name it.
#[cfg(doc)]
use super::KernelConfig;
use crate::domains::SdLevel;
use serde::{Deserialize, Serialize};

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
    /// x86 ITMT, v6.5+ (arch/x86/kernel/itmt.c `sched_set_itmt_core_prio(prio, cpu)`, Ricardo
    /// Neri's SMT series): each CPU's priority is its core's CPPC `highest_perf`
    /// ([`crate::topology::ClusterSpec::itmt_prio`]), the same for both SMT siblings; from
    /// v6.5 `sched_use_asym_prio()` keeps a busy core's sibling from counting as idle instead.
    Itmt,
    /// x86 ITMT, v4.10-v6.4 (`sched_set_itmt_core_prio(prio, core_cpu)`): the i-th SMT sibling
    /// of a core (1-based, in CPU order) gets `prio * smp_num_siblings / (i * i)`, so every
    /// core's first thread ranks above any core's second thread. `smp_num_siblings` is the
    /// machine's most threads per core (2 on Alder Lake, for its E-cores too).
    ItmtSmtScaled,
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
