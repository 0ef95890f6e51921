//! The kernel as data: [`KernelConfig`] holds every behavioural switch a variant needs; a [`Patch`] is
//! a named, documented change to it; a variant is a baseline plus patches plus a governor.
//!
//! Nothing in the model asks which preset or which patch it runs: behaviour comes from the topology's
//! data and these switches. A patch is a JSON merge patch (RFC 7386) over the serialized config, so a
//! user can read exactly what it changes, and a scenario can carry its own.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

mod baselines;
mod choices;
mod patches;
mod switches;

pub use baselines::{baseline, newest, Baseline, BaselineInfo, BASELINES, BASELINE_INFO};
pub use choices::*;
pub use patches::{apply_changes, build_config, patch, Patch, PATCHES};
pub use switches::{diff, switch_doc, SwitchDiff, SwitchDoc, SWITCHES};

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
    /// x86 hybrid CPU capacity scaling (v6.12+: 929ebc93ccaa, intel_pstate's
    /// `hybrid_init_cpu_capacity_scaling()` with `arch_enable_hybrid_capacity_scale()` and
    /// `arch_set_cpu_capacity()` of arch/x86/kernel/cpu/aperfmperf.c): on a hybrid HWP machine
    /// without SMT, x86's `arch_scale_cpu_capacity()` returns each CPU's HWP highest performance
    /// relative to the highest (`capacity_perf << 10 / max`), and ITMT is cleared
    /// (`sched_clear_itmt_support()`), so the domains get SD_ASYM_CPUCAPACITY instead of
    /// SD_ASYM_PACKING. With SMT on, or off here (v6.11 and before), every x86 CPU is 1024. See
    /// `domains::hybrid`.
    #[serde(default)]
    pub x86_hybrid_capacity: bool,
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
    /// preemption. With [`KernelConfig::protect_slice`] (v6.17+) it sets how far the protection
    /// reaches instead (the queue's shortest slice; off, 0.75 ms) and whether a wake-up that does
    /// not preempt shortens it. Read only with [`FairPick::Eevdf`].
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
    /// (`did_preempt_short()`). With [`KernelConfig::protect_slice`] (v6.17+): a woken task with
    /// a shorter slice is picked for without curr's protection, and cancels it if it wins.
    /// Read only with [`FairPick::Eevdf`].
    #[serde(default)]
    pub preempt_short: bool,
    /// `reweight_eevdf()` (v6.7+, eab03c23c2a1 "sched/eevdf: Fix vruntime adjustment on
    /// reweight"; in v6.6 stable): a queued task whose weight changes (a nice change,
    /// `reweight_entity()`) keeps its lag, `v' = V - (V - v) * w / w'`, and its deadline is
    /// rescaled about V, `d' = V + (d - V) * w / w'`. Off (v6.6.0): vruntime stays and only the
    /// relative deadline `d - v` is rescaled. Both scale a sleeping task's `vlag` by `w / w'`.
    /// Read only with [`FairPick::Eevdf`].
    #[serde(default)]
    pub reweight_eevdf: bool,
    /// DELAY_DEQUEUE (v6.12+, 152e11f6df29 "sched/fair: Implement delayed dequeue"): a task
    /// going to sleep while not eligible stays on its runqueue, `sched_delayed`
    /// (`dequeue_entity()` returns early), still counted in `nr_running`, the load and the
    /// `avg_vruntime()` sums, until `pick_next_entity()` picks it (then it is dequeued,
    /// DEQUEUE_DELAYED) or it wakes (`ttwu_runnable()` -> `requeue_delayed_entity()`, on the same
    /// CPU, no `select_task_rq()`). Read only with [`FairPick::Eevdf`].
    #[serde(default)]
    pub delay_dequeue: bool,
    /// DELAY_ZERO (v6.12+, with DELAY_DEQUEUE): a delayed task's positive lag is dropped when it
    /// finally leaves (`finish_delayed_dequeue_entity()`) or is re-placed at the 0-lag point
    /// when it wakes with positive lag (`requeue_delayed_entity()`).
    #[serde(default)]
    pub delay_zero: bool,
    /// PLACE_REL_DEADLINE (v6.12+, 82e9d0456e06 "sched/fair: Avoid re-setting virtual deadline
    /// on 'migrations'"): a dequeue that is not a sleep (a migration) keeps the deadline relative
    /// to vruntime (`se->rel_deadline`), and `place_entity()` restores it instead of granting a
    /// new slice. Read only with [`FairPick::Eevdf`].
    #[serde(default)]
    pub place_rel_deadline: bool,
    /// `cfs_rq->h_nr_delayed` (v6.13+, 76f2f783294d "sched/eevdf: More PELT vs
    /// DELAYED_DEQUEUE"; in 6.12 stable): delayed tasks are not runnable for PELT (`se_runnable()`
    /// false, the cfs_rq's runnable count `h_nr_running - h_nr_delayed`); v6.12.0 counted them.
    #[serde(default)]
    pub h_nr_delayed: bool,
    /// `cfs_rq->h_nr_runnable` / `h_nr_queued` (v6.14+, the rename of `h_nr_running` and
    /// `h_nr_delayed`): the load balancer counts runnable tasks without the delayed ones
    /// (`update_sg_lb_stats()` `sum_h_nr_running`, `find_busiest_queue()`), and
    /// `can_migrate_task()` refuses a delayed task unless the imbalance is migrate_load.
    #[serde(default)]
    pub h_nr_runnable: bool,
    /// RUN_TO_PARITY as a protected slice (Vincent Guittot's "sched/fair: Limit run to parity
    /// to the min slice of enqueued entities" series; absent in v6.13.7, present in v6.19): the
    /// pick of a task sets `se->vprot` (`set_protect_slice()`: its deadline, or earlier, a
    /// vruntime `min(slice)` of the queue later; without RUN_TO_PARITY the normalized 0.75 ms
    /// base slice), `pick_eevdf()` keeps curr while `vruntime < vprot`, `update_curr()`
    /// reschedules once curr leaves it (`!protect_slice()`, replacing `did_preempt_short()`), a
    /// wake-up that does not preempt shortens it (`update_protect_slice()`), and PREEMPT_SHORT is
    /// a woken task with a shorter slice, picked without protection (`do_preempt_short()` is
    /// gone). Off: the v6.6-v6.13 stash of the deadline in `vlag`. Read only with
    /// [`FairPick::Eevdf`].
    #[serde(default)]
    pub protect_slice: bool,
    /// `check_preempt_wakeup_fair()` returns before the pick for a woken task that is new
    /// (WF_FORK) or delayed (v6.19 as read, with Mel Gorman's NEXT_BUDDY rework): only a shorter
    /// slice (PREEMPT_SHORT) lets a new task preempt. Off (v6.6-v6.13): the pick decides.
    #[serde(default)]
    pub wakeup_fork_no_preempt: bool,
    /// `yield_task_fair()` moves an eligible curr's vruntime to its deadline before the deadline
    /// moves a slice later (absent in v6.13.7, present in v6.19); off: only the deadline moves.
    #[serde(default)]
    pub yield_to_deadline: bool,
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
