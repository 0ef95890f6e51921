//! The baseline kernels: one constructor per version, each deriving from an older or newer one
//! with exactly the switches that differ, and [`BASELINES`], the list a variant names.

use super::*;
use crate::error::{Error, Result};

impl KernelConfig {
    /// The arm64 mainline of the DynamIQ RFC's time (v4.16, March 2018; read: v4.16.13): no
    /// capacity awareness on arm64 (no `SD_ASYM_CPUCAPACITY`, no misfit), PELT scaling contributions,
    /// busy_factor 32. The merged half of the 2016 series is in (`wake_cap()`, the `sd_init()`
    /// SD_BALANCE_WAKE rule) but acts only where capacities differ or SD_ASYM_CPUCAPACITY is set.
    /// `sd_init()` sets SD_PREFER_SIBLING on SMT, the LLC and DIE: every non-NUMA level.
    /// Wake-up (read in v4.16.13): `wake_cap()` (active on HiKey960, whose capacities differ),
    /// SIS_PROP, `select_idle_core()`/`select_idle_cpu()`/`select_idle_smt()` in turn,
    /// `recent_used_cpu` with the waker's update (new in v4.16), `wake_affine_idle()` without the
    /// idle-prev step, a spare-capacity `find_idlest_group()` without the SD_NUMA clause.
    ///
    /// The pre-v5.5 load balancer ([`LoadBalancer::Legacy`] with [`LegacyLb::v4_16`]) and the
    /// v4.x nohz kick ([`NohzKick::KickNeeded`]).
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
            wake_cap: true,
            wake_cap_asym_gate: false,
            balance_wake_on_asym: true,
            find_idlest: FindIdlest::SpareCapacity,
            find_idlest_spare_at_fork: false,
            wake_affine: WakeAffine::IdleThenWeight,
            wake_cap_sync: true,
            wake_affine_idle_prev: false,
            sis_recent_used_cpu: RecentUsedCpu::WakerCpu,
            sis_scan: SisScan::Prop,
            sis_core_scan: SisCoreScan::Separate,
            sis_scan_cost_per_cpu_ns: 100,
            find_idlest_spare_numa: false,
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
            // The balancer is modelled in its v5.5+ form (see above); its era switches keep the
            // v6.8 values the model had before they became switches. The pre-v5.5 balancer is a
            // separate piece of work.
            lb_group_runnable: true,
            lb_spread_in_llc: true,
            lb_load_shr: true,
            lb_imbalanced_active_balance: true,
            lb_avg_load_guard: AvgLoadGuard::BusiestAndDomain,
            should_we_balance_idle_core: true,
            fbq_util_skip_single: true,
            fbq_util_boost: true,
            pick_busiest_smt: true,
            sg_wakeup_avg_load_busy: true,
            pick_idlest_util_tiebreak: true,
            // v4.x newidle gating and avg_idle arithmetic.
            newidle_gate: NewidleGate::MigrationCost,
            update_newidle_cost: false,
            update_avg_div: false,
            newidle_lb_cost_base_ns: 2_000,
            newidle_lb_cost_per_cpu_ns: 250,
            nohz_stats: NohzStats::None,
            numa_imbalance: NumaImbalance::None,
            load_balancer: LoadBalancer::Legacy,
            lb_legacy: LegacyLb::v4_16(),
            nohz_kick: NohzKick::KickNeeded,
            preemption: true,
            busy_factor: 32,
            imbalance_pct_die: 125,
            sched_latency_ns: 6_000_000,
            sched_min_granularity_ns: 750_000,
            sched_wakeup_granularity_ns: 1_000_000,
            pelt_update: PeltUpdate::Accumulate,
            post_init_cap: PostInitCap::CapacityScale,
            wakeup_preempt_next_buddy: true,
            last_buddy: true,
            fair_pick: FairPick::Cfs,
            run_to_parity: false,
            place_lag: false,
            place_deadline_initial: false,
            custom_slice: false,
            preempt_short: false,
            reweight_eevdf: false,
            delay_dequeue: false,
            delay_zero: false,
            place_rel_deadline: false,
            h_nr_delayed: false,
            h_nr_runnable: false,
            protect_slice: false,
            wakeup_fork_no_preempt: false,
            yield_to_deadline: false,
            x86_hybrid_capacity: false,
            task_hot_smt_cold: false,
            sched_migration_cost_ns: 500_000,
            schedutil_rate_limit_us: None,
            schedutil_transition_delay: TransitionDelay::DriverDelayCapped,
            intel_cpufreq_hwp: false,
            schedutil_rate_limit_on_change: true,
            schedutil_util_headroom: false,
            schedutil_busy_hold: true,
            // sugov_set_iowait_boost(): doubling from policy->min, in frequencies.
            schedutil_iowait_boost: IowaitBoost::DoublingFreq,
            freq_scale_tick: false,
            hwp_epp: 128,
            hwp_dynamic_boost: false,
            // No energy model or perf domains before v5.0.
            eas: Eas::None,
            em_power_uw: false,
            em_util_headroom: false,
            // No uclamp before v5.3.
            uclamp: false,
            util_fits: UtilFits::Util,
            uclamp_rq_idle_ignore: false,
            uclamp_max_sugov: false,
            sched_util_clamp_min: 1024,
            sched_util_clamp_max: 1024,
            governor: Governor::Schedutil,
        }
    }

    /// v6.8: EEVDF picks (v6.6+, [`crate::sched::eevdf`], with RUN_TO_PARITY, PLACE_LAG and
    /// PLACE_DEADLINE_INITIAL, the v6.8 features.h defaults); capacity
    /// detection, misfit, PELT scaling time, busy_factor 16, imbalance_pct 117; `wake_cap()` and the
    /// `sd_init()` SD_BALANCE_WAKE rule are gone (v5.7, replaced by `select_idle_capacity()`).
    /// Wake-up: SIS_UTIL (SIS_PROP is gone), the merged core/CPU scan with `select_idle_smt(prev)`
    /// first, `p->recent_used_cpu = prev` on every pass, the idle-prev step of `wake_affine_idle()`.
    /// The reworked load balancer (`lb_legacy` is v5.4's, for a variant that turns the legacy
    /// balancer back on). No next/last buddies: EEVDF (v6.6+) has none with NEXT_BUDDY off;
    /// `task_hot()` ignores SMT siblings (v5.10+); `prefer_sibling` comes
    /// from the busiest group (v6.5+).
    pub fn v6_8() -> KernelConfig {
        KernelConfig {
            label: "v6.8".into(),
            pelt_invariance: PeltInvariance::ScaleTime,
            asym_cpucapacity_detection: true,
            misfit: true,
            util_est: true,
            find_idlest: FindIdlest::Classify,
            wake_cap: false,
            balance_wake_on_asym: false,
            // Only the spare-capacity find_idlest_group() reads it; its SD_NUMA clause is in
            // every kernel from v4.17 that has that form.
            find_idlest_spare_numa: true,
            sis_asym_capacity: true,
            wake_affine_idle_prev: true,
            sis_recent_used_cpu: RecentUsedCpu::Prev,
            sis_scan: SisScan::Util,
            sis_core_scan: SisCoreScan::Merged,
            smt_domain: SmtDomainSpan::SharingGroup,
            prefer_sibling_all_levels: true,
            prefer_sibling_asym_clear: true,
            prefer_sibling_from_busiest: true,
            smt_gain: false,
            post_init_cap: PostInitCap::CpuCapacity,
            wakeup_preempt_next_buddy: false,
            last_buddy: false,
            fair_pick: FairPick::Eevdf,
            run_to_parity: true,
            place_lag: true,
            place_deadline_initial: true,
            // v6.7 eab03c23c2a1 (v6.6 keeps v6.6.0's relative-deadline rescaling).
            reweight_eevdf: true,
            task_hot_smt_cold: true,
            smt_balance: true,
            lb_util_shr_bound: true,
            lb_asym_cap_migrate_task: false,
            numa_imbalance: NumaImbalance::ImbNumaNr,
            newidle_gate: NewidleGate::MaxNewidleLbCost,
            update_newidle_cost: true,
            update_avg_div: true,
            nohz_stats: NohzStats::NewilbKick,
            load_balancer: LoadBalancer::Rework,
            lb_legacy: LegacyLb::v5_4(),
            nohz_kick: NohzKick::BalancerKick,
            busy_factor: 16,
            imbalance_pct_die: 117,
            // intel_cpufreq keeps HWP on (v5.9+): its transition delay is 5 ms.
            intel_cpufreq_hwp: true,
            schedutil_util_headroom: true,
            // v5.2+: sugov_iowait_boost() in utilization from IOWAIT_BOOST_MIN.
            schedutil_iowait_boost: IowaitBoost::DoublingUtil,
            // intel_pstate's HWP dynamic boost, v4.18+ (still in v6.8).
            hwp_dynamic_boost: true,
            // v6.0+ feec with struct energy_env and no margin; EM power in uW (v5.19+), the DVFS
            // headroom on the utilization (v5.14+).
            eas: Eas::Eenv,
            em_power_uw: true,
            em_util_headroom: true,
            // uclamp (v5.3+) with util_fits_cpu() (v6.2+), the idle-rq rule of
            // uclamp_rq_util_with() (v5.13+) and schedutil's uclamp_max fixes (v5.17+).
            uclamp: true,
            util_fits: UtilFits::UtilFitsCpu,
            uclamp_rq_idle_ignore: true,
            uclamp_max_sugov: true,
            ..KernelConfig::v4_16()
        }
    }

    /// v4.9 (read: v4.9.115): the merged half of Morten Rasmussen's 2016 series is in (v4.8:
    /// `wake_cap()`, SD_ASYM_CPUCAPACITY with the `sd_init()` SD_BALANCE_WAKE rule, which no
    /// in-tree arch sets yet), the rest (spare capacity in `find_idlest_group()`) arrived in v4.10.
    /// The wake-up path is the load-based one: `find_idlest_group()` by load, the old
    /// `wake_affine()`, no `recent_used_cpu`. The 2016 series is the `asym-cpu-capacity-2016`
    /// patch. `wake_cap()` tests the signal as last updated (the sync came in v4.10),
    /// `select_idle_cpu()` scans the whole LLC (SIS_PROP came in v4.13); PELT's three-segment
    /// `__update_load_avg()` divides by `LOAD_AVG_MAX`; schedutil's rate limit restarts at every
    /// evaluation. The legacy load balancer with v4.9's rules ([`LegacyLb::v4_9`]).
    pub fn v4_9() -> KernelConfig {
        KernelConfig {
            label: "v4.9".into(),
            // arm64 has no arch_scale_freq_capacity() before v4.15 (arch/arm64 topology.h in v4.9
            // defines none; the generic one returns 1024), arm neither.
            frequency_invariance: false,
            // arm64 reads capacity-dmips-mhz from v4.10; v4.9 arm64 has no
            // arch_scale_cpu_capacity(), and arm's (efficiency table x clock-frequency) gives
            // 1024 on TC2's v4.9 device tree.
            arch_cpu_capacity: false,
            find_idlest: FindIdlest::Load,
            wake_affine: WakeAffine::Load,
            wake_cap_sync: false,
            sis_recent_used_cpu: RecentUsedCpu::Off,
            sis_scan: SisScan::Full,
            schedutil_busy_hold: false,
            // sugov_set_iowait_boost(): straight to cpuinfo.max_freq.
            schedutil_iowait_boost: IowaitBoost::MaxFreq,
            lb_legacy: LegacyLb::v4_9(),
            schedutil_rate_limit_on_change: false,
            // sugov_init(): LATENCY_MULTIPLIER x transition latency, no transition_delay_us.
            schedutil_transition_delay: TransitionDelay::LatencyMultiplier,
            pelt_update: PeltUpdate::Segments,
            // sd_init() sets SD_PREFER_SIBLING on SMT and the "else" (DIE) levels, not the LLC
            // (through v4.14; v4.16 has it on the LLC too).
            prefer_sibling_all_levels: false,
            ..KernelConfig::v4_16()
        }
    }

    /// v4.7-rc3, the tip of mid-2016 the 2016 series "sched: Clean-ups and asymmetric cpu capacity
    /// support" was posted and measured on (E4): v4.9 without the half of that series merged in
    /// v4.8, i.e. no `wake_cap()` in `select_task_rq_fair()` and no SD_ASYM_CPUCAPACITY /
    /// SD_BALANCE_WAKE rule in `sd_init()` (read: both absent from v4.7-rc3's fair.c and core.c).
    ///
    /// Read against v4.9.115 for every rule E4 involves, the rest is the same code:
    /// `find_idlest_group()`, `find_idlest_cpu()`, `wake_affine()` (v4.9 only passes prev_cpu in),
    /// `wake_wide()`, `__update_load_avg()` (identical), `post_init_entity_util_avg()` (same
    /// initial util; v4.9 also attaches the new task's load there). Not a switch:
    /// `select_idle_sibling()` in v4.7 is the older group scan (a wholly idle group of each level
    /// below sd_llc, from target's group on) where v4.9 has `select_idle_core()` /
    /// `select_idle_cpu()` / `select_idle_smt()`, which the model implements. Without SMT (TC2) both
    /// pick the first idle CPU after target in the LLC; with SMT (E4c's IVB-EP) v4.7 prefers an idle
    /// core, then target's idle sibling, where v4.9 takes any idle CPU of the LLC before the sibling.
    pub fn v4_7() -> KernelConfig {
        KernelConfig {
            label: "v4.7-rc3 (tip of mid-2016)".into(),
            wake_cap: false,
            balance_wake_on_asym: false,
            ..KernelConfig::v4_9()
        }
    }

    /// v4.18-rc3 (E3, the POWER9 big-core series' base; read: v4.17 and v4.19.1, which agree on
    /// every rule here): v4.16 with util_est (v4.17). The SMT domain still spans the whole big core
    /// (small-core SMT domains came in v4.20); no misfit or SD_ASYM_CPUCAPACITY detection (v4.20).
    pub fn v4_18() -> KernelConfig {
        KernelConfig {
            label: "v4.18-rc3".into(),
            util_est: true,
            // The spare-capacity find_idlest_group()'s SD_NUMA stay-local clause (in v4.17 and
            // v4.19.1, absent in v4.16.13).
            find_idlest_spare_numa: true,
            // v4.17's NOHZ_STATS_KICK: idle CPUs' blocked load updated by kicks of their own.
            nohz_stats: NohzStats::Kick,
            // sugov_iowait_reset() (in v4.19.1): an IOWAIT update after a tick restarts the boost.
            schedutil_iowait_boost: IowaitBoost::DoublingFreqReset,
            // intel_pstate's HWP dynamic boost (v4.18), on for SKX server parts.
            hwp_dynamic_boost: true,
            ..KernelConfig::v4_16()
        }
    }

    /// v5.2 (E2: the x86 frequency-invariance series was measured on it; read: v5.2.1): v4.18 plus
    /// misfit and automatic SD_ASYM_CPUCAPACITY (v4.20), small-core SMT domains on POWER9 (v4.20),
    /// PELT scaling time (v5.1, 23127296889f). Still the pre-rework balancer and spare-capacity
    /// `find_idlest_group()` (the rework is v5.5), `wake_cap()`, no `select_idle_capacity()` (v5.7),
    /// busy_factor 32 and imbalance_pct 125 (v5.10).
    ///
    /// `frequency_invariance` stays on as arm64 has it; x86 has none before v5.7, so E2's variants
    /// turn it off and its third variant applies `x86-freq-invariance`. schedutil's rate limit is
    /// computed per policy from the driver (`cpufreq_policy_transition_delay_us()`): on Cascade Lake
    /// intel_cpufreq's `transition_delay_us` of 500 us (v5.2 intel_pstate.c).
    pub fn v5_2() -> KernelConfig {
        KernelConfig {
            label: "v5.2".into(),
            pelt_invariance: PeltInvariance::ScaleTime,
            asym_cpucapacity_detection: true,
            misfit: true,
            smt_domain: SmtDomainSpan::SharingGroup,
            // sugov_iowait_boost() in utilization from IOWAIT_BOOST_MIN.
            schedutil_iowait_boost: IowaitBoost::DoublingUtil,
            // The pre-rework balancer with its v5.1-v5.2 rules (read in v5.2.1), and v5.1's
            // nohz_balancer_kick() (the LLC test skipped under SD_ASYM_CPUCAPACITY).
            lb_legacy: LegacyLb::v5_2(),
            nohz_kick: NohzKick::BalancerKick,
            // v4.20: wake_cap() only on an asymmetric root domain, PREFER_SIBLING cleared below an
            // SD_ASYM_CPUCAPACITY domain, post_init_entity_util_avg() capped by the CPU's capacity.
            wake_cap_asym_gate: true,
            prefer_sibling_asym_clear: true,
            post_init_cap: PostInitCap::CpuCapacity,
            // smt_gain was removed in v5.0.
            smt_gain: false,
            // EAS (v5.0): feec costs each candidate over every perf domain, 6% margin; EM in mW.
            eas: Eas::TotalEnergy,
            ..KernelConfig::v4_18()
        }
    }

    /// v5.6: the v5.5 load-balance rework and `find_idlest_group()` classification are in; so are
    /// `wake_cap()` and the `sd_init()` SD_BALANCE_WAKE rule (both removed in v5.7); not yet
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
            fair_pick: FairPick::Cfs,
            run_to_parity: false,
            place_lag: false,
            place_deadline_initial: false,
            reweight_eevdf: false,
            task_hot_smt_cold: false,
            schedutil_util_headroom: false,
            numa_imbalance: NumaImbalance::LocalIdle,
            lb_group_runnable: false,
            lb_spread_in_llc: false,
            lb_load_shr: false,
            lb_imbalanced_active_balance: false,
            lb_avg_load_guard: AvgLoadGuard::None,
            should_we_balance_idle_core: false,
            fbq_util_skip_single: false,
            fbq_util_boost: false,
            pick_busiest_smt: false,
            sg_wakeup_avg_load_busy: false,
            pick_idlest_util_tiebreak: false,
            newidle_gate: NewidleGate::MigrationCost,
            update_newidle_cost: false,
            update_avg_div: false,
            nohz_stats: NohzStats::Kick,
            // intel_cpufreq turns HWP off (passive mode with HWP came in v5.9).
            intel_cpufreq_hwp: false,
            // v5.4's feec (base energy per perf domain, 6% margin on prev_delta + base); the EM in
            // mW (before v5.19) with the headroom on the frequency (before v5.14).
            eas: Eas::BaseEnergy,
            em_power_uw: false,
            em_util_headroom: false,
            // uclamp (v5.3+) with v5.6's uclamp-aware placement (uclamp_task_util()), before
            // the idle-rq rule (v5.13) and schedutil's uclamp_max fixes (v5.17).
            util_fits: UtilFits::UclampTaskUtil,
            uclamp_rq_idle_ignore: false,
            uclamp_max_sugov: false,
            wake_cap: true,
            balance_wake_on_asym: true,
            wake_cap_asym_gate: true,
            wake_affine_idle_prev: false,
            sis_recent_used_cpu: RecentUsedCpu::WakerCpu,
            sis_scan: SisScan::Prop,
            sis_core_scan: SisCoreScan::Separate,
            ..KernelConfig::v6_8()
        }
    }

    /// v6.12 (LTS, November 2024; read: v6.12.19, see [`crate::sched::eevdf`] and
    /// [`crate::sched::delayed`]): v6.8 with per-task slices from `sched_attr.sched_runtime`,
    /// PREEMPT_SHORT, and Peter Zijlstra's "Complete EEVDF" series: DELAY_DEQUEUE with
    /// DELAY_ZERO, and PLACE_REL_DEADLINE. v6.12.0's PELT counts delayed tasks runnable (the
    /// `h_nr_delayed` fix of v6.13 is in 6.12 stable, not in this baseline). The balancer and
    /// cpufreq changes between v6.8 and v6.12 keep their v6.8 values here.
    pub fn v6_12() -> KernelConfig {
        KernelConfig {
            label: "v6.12".into(),
            custom_slice: true,
            preempt_short: true,
            delay_dequeue: true,
            delay_zero: true,
            place_rel_deadline: true,
            // intel_pstate sets the hybrid CPUs' capacities and clears ITMT where SMT is off
            // (929ebc93ccaa, v6.12-rc1).
            x86_hybrid_capacity: true,
            ..KernelConfig::v6_8()
        }
    }

    /// v6.13 (January 2025; read: v6.13.7): v6.12 with 76f2f783294d "sched/eevdf: More PELT vs
    /// DELAYED_DEQUEUE": delayed tasks are not runnable for PELT (`h_nr_delayed`).
    pub fn v6_13() -> KernelConfig {
        KernelConfig {
            label: "v6.13".into(),
            h_nr_delayed: true,
            ..KernelConfig::v6_12()
        }
    }

    /// v6.19 (February 2026, the newest release read: a v6.19.0 tree; a "6.18.y" tree read
    /// beside it carries later backports and was not used): v6.13 with the v6.14
    /// `h_nr_runnable` / `h_nr_queued` accounting (the load balancer counts and moves runnable
    /// tasks, not delayed ones: `can_migrate_task()` lets a delayed task go only for
    /// migrate_load), RUN_TO_PARITY as a protected slice (`se->vprot`, v6.17's series),
    /// `check_preempt_wakeup_fair()` that lets a new or delayed task preempt only by a shorter
    /// slice, and `yield_task_fair()` moving an eligible task to its deadline. Not modelled:
    /// NEXT_BUDDY's rework (the feature is off by default), the lag clamp by the queue's largest
    /// slice (later than v6.19), and the balancer and cpufreq changes after v6.8, which keep
    /// their v6.8 values here.
    pub fn v6_19() -> KernelConfig {
        KernelConfig {
            label: "v6.19".into(),
            h_nr_runnable: true,
            protect_slice: true,
            wakeup_fork_no_preempt: true,
            yield_to_deadline: true,
            ..KernelConfig::v6_13()
        }
    }

    /// v6.6 (October 2023, the first EEVDF release; its EEVDF rules taken as equal to v6.8's on
    /// everything modelled here (see [`crate::sched::eevdf`] for what was read), with the `avg_vruntime()` floor-division fix
    /// 650cad561cce of v6.7 that v6.6 stable has): v6.7 with its label. `smt_balance` and
    /// `prefer_sibling_from_busiest` are already in (v6.6 / v6.5).
    pub fn v6_6() -> KernelConfig {
        KernelConfig {
            label: "v6.6".into(),
            // v6.6.0's reweight_entity() rescales only the relative deadline (d - v); v6.7's
            // reweight_eevdf() (eab03c23c2a1, later in 6.6 stable) is not in the release.
            reweight_eevdf: false,
            ..KernelConfig::v6_7()
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
}

/// A baseline kernel a variant starts from.
pub struct Baseline {
    pub name: &'static str,
    pub summary: &'static str,
    /// The kernel it stands for: the release or tip, and the tree its switches were read from.
    pub stands_for: &'static str,
    pub config: fn() -> KernelConfig,
}

/// The baselines, oldest first.
pub const BASELINES: &[Baseline] = &ALL;

/// A baseline's name and what it stands for, without its switches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BaselineInfo {
    pub name: &'static str,
    pub summary: &'static str,
    pub stands_for: &'static str,
}

/// [`BASELINES`] without their switches, in the same order. What only lists the baselines (the
/// page's variant menu) reads this: [`Baseline::config`]'s function pointers would link every
/// era's constructor into it (13 KB of the page's wasm).
pub const BASELINE_INFO: [BaselineInfo; ALL.len()] = infos(&ALL);

const fn infos<const N: usize>(all: &[Baseline; N]) -> [BaselineInfo; N] {
    let mut out = [BaselineInfo {
        name: "",
        summary: "",
        stands_for: "",
    }; N];
    let mut i = 0;
    while i < N {
        out[i] = BaselineInfo {
            name: all[i].name,
            summary: all[i].summary,
            stands_for: all[i].stands_for,
        };
        i += 1;
    }
    out
}

const ALL: [Baseline; 12] = [
    Baseline {
        name: "v4.7",
        summary: "mid-2016 tip the asym-capacity series was measured on (E4): no wake_cap()",
        stands_for: "v4.7-rc3 (read: a v4.7-rc3 import)",
        config: KernelConfig::v4_7,
    },
    Baseline {
        name: "v4.9",
        summary: "2016 mainline: capacity-blind wake-up path (load-based find_idlest_group)",
        stands_for: "v4.9 (read: v4.9.115)",
        config: KernelConfig::v4_9,
    },
    Baseline {
        name: "v4.16",
        summary: "arm64 mainline of March 2018 (E1): capacity-blind",
        stands_for: "v4.16 (read: v4.16.13)",
        config: KernelConfig::v4_16,
    },
    Baseline {
        name: "v4.18",
        summary: "POWER9 big-core series' base (E3): util_est, SMT domain over the big core",
        stands_for: "v4.18-rc3 (read: v4.17 and v4.19.1, equal on these rules)",
        config: KernelConfig::v4_18,
    },
    Baseline {
        name: "v5.2",
        summary: "x86 frequency-invariance series' base (E2): misfit, PELT time scaling, pre-rework balancer",
        stands_for: "v5.2 (read: v5.2.1)",
        config: KernelConfig::v5_2,
    },
    Baseline {
        name: "v5.6",
        summary: "after the v5.5 load-balance rework, before x86 frequency invariance (v5.7)",
        stands_for: "v5.6 (read: v5.6.4)",
        config: KernelConfig::v5_6,
    },
    Baseline {
        name: "v6.6",
        summary: "first EEVDF release: pick_eevdf(), lag-preserving place_entity(), RUN_TO_PARITY",
        stands_for: "v6.6 (EEVDF as v6.8's, see sched/eevdf.rs for sources; the rest as v6.7)",
        config: KernelConfig::v6_6,
    },
    Baseline {
        name: "v6.7",
        summary: "EEVDF, capacity-aware mainline (E5); detach_tasks() skips tasks with util > imbalance",
        stands_for: "v6.7 (tip of Nov 2023; load balancer read as v6.8 minus 3af7524b1419)",
        config: KernelConfig::v6_7,
    },
    Baseline {
        name: "v6.8",
        summary: "EEVDF, capacity-aware mainline (misfit, SD_ASYM_CPUCAPACITY, shr_bound migrate_util)",
        stands_for: "v6.8 (read: v6.8.0)",
        config: KernelConfig::v6_8,
    },
    Baseline {
        name: "v6.12",
        summary: "LTS: EEVDF with per-task slices (sched_runtime), PREEMPT_SHORT, DELAY_DEQUEUE, PLACE_REL_DEADLINE",
        stands_for: "v6.12 (read: v6.12.19 EEVDF; the rest as v6.8)",
        config: KernelConfig::v6_12,
    },
    Baseline {
        name: "v6.13",
        summary: "delayed tasks not runnable for PELT (h_nr_delayed)",
        stands_for: "v6.13 (read: v6.13.7 EEVDF; the rest as v6.8)",
        config: KernelConfig::v6_13,
    },
    Baseline {
        name: "v6.19",
        summary: "newest: h_nr_runnable balancing, RUN_TO_PARITY by vprot, no preemption by new tasks",
        stands_for: "v6.19 (read: a v6.19.0 tree's EEVDF; the rest as v6.8)",
        config: KernelConfig::v6_19,
    },
];

/// The newest baseline, which `kernels diff` and the page compare older ones with.
pub fn newest() -> &'static Baseline {
    &BASELINES[BASELINES.len() - 1]
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn baseline_info_is_each_baseline_without_its_switches_in_order() {
        let listed: Vec<BaselineInfo> = BASELINES
            .iter()
            .map(|b| BaselineInfo {
                name: b.name,
                summary: b.summary,
                stands_for: b.stands_for,
            })
            .collect();
        assert_eq!(listed, BASELINE_INFO);
    }
}
