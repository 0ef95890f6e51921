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
        key: "freq_scale_tick",
        function: "arch_scale_freq_tick() (x86 APERF/MPERF) vs topology_set_freq_scale()",
        versions: "x86 v5.7+ (1567c3e3467c), the x86-freq-invariance patch; arm/arm64 cpufreq-set (no AMU) in every version",
        meaning: "freq_scale is the average busy frequency over the CPU's last tick, stale while it idles; off: the current frequency",
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
        key: "wake_cap_asym_gate",
        function: "wake_cap(): static_branch_unlikely(&sched_asym_cpucapacity)",
        versions: "v4.20-v5.6 (the key came with the misfit series; read v5.2.1, v5.6; absent in v4.16, v4.19.1); wake_cap() is gone in v5.7",
        meaning: "wake_cap() acts only on a root domain with SD_ASYM_CPUCAPACITY",
        eras: &[("v4.7", "false"), ("v4.20", "true"), ("v5.7", "false")],
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
        key: "wake_cap_sync",
        function: "wake_cap(): sync_entity_load_avg()",
        versions: "v4.10+ (\"Sync task util before slow-path wakeup\"); absent in v4.9",
        meaning: "the task's utilization is decayed to its runqueue's last update before the fit test",
        eras: &[("v4.7", "false"), ("v4.10", "true")],
    },
    SwitchDoc {
        key: "wake_affine_idle_prev",
        function: "wake_affine_idle(): if (available_idle_cpu(prev_cpu)) return prev_cpu",
        versions: "v5.11+ (read v5.11.14, v6.8); absent in v4.15-v5.10",
        meaning: "an idle prev CPU wins the affine choice when this CPU is busy",
        eras: &[("v4.7", "false"), ("v5.11", "true")],
    },
    SwitchDoc {
        key: "sis_recent_used_cpu",
        function: "select_idle_sibling(): p->recent_used_cpu; select_task_rq_fair()'s waker update",
        versions: "off before v4.16; v4.16-v5.12 set to prev only when used, the waker records its CPU; v5.15+ p->recent_used_cpu = prev on every pass",
        meaning: "the wake-up scan tries the task's recently used CPU",
        eras: &[("v4.7", r#""off""#), ("v4.16", r#""waker_cpu""#), ("v5.15", r#""prev""#)],
    },
    SwitchDoc {
        key: "sis_scan",
        function: "select_idle_cpu(): SIS_PROP (avg_idle / avg_scan_cost), SIS_UTIL (sd_llc_shared->nr_idle_scan, update_idle_cpu_scan())",
        versions: "full scan before v4.13; SIS_PROP v4.13-v5.19; SIS_UTIL v6.0+ (read v6.0.19: SIS_PROP off)",
        meaning: "how many CPUs of the LLC the idle-CPU scan may visit",
        eras: &[("v4.7", r#""full""#), ("v4.13", r#""prop""#), ("v6.0", r#""util""#)],
    },
    SwitchDoc {
        key: "sis_core_scan",
        function: "select_idle_core() / select_idle_cpu() / select_idle_smt()",
        versions: "separate scans v4.9-v5.11; merged with select_idle_smt(prev) first v5.12+",
        meaning: "the order of the idle-core, idle-CPU and SMT-sibling searches",
        eras: &[("v4.7", r#""separate""#), ("v5.12", r#""merged""#)],
    },
    SwitchDoc {
        key: "sis_scan_cost_per_cpu_ns",
        function: "sd_llc->avg_scan_cost (cpu_clock() around the scan)",
        versions: "model parameter [assumed] 100 ns per CPU visited",
        meaning: "the cost SIS_PROP learns for each CPU its scan visits",
        eras: &[],
    },
    SwitchDoc {
        key: "find_idlest_spare_numa",
        function: "find_idlest_group() (spare-capacity form): SD_NUMA min_runnable_load + imbalance >= this_runnable_load",
        versions: "v4.17+ (in v4.17 and v4.19.1; absent in v4.10-v4.16); the classifying v5.5+ form has its own",
        meaning: "a fork or slow-path wake-up stays on the local node unless another is clearly lighter",
        eras: &[("v4.7", "false"), ("v4.17", "true")],
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
        key: "prefer_sibling_asym_clear",
        function: "sd_init(): clear SD_PREFER_SIBLING on the child of an SD_ASYM_CPUCAPACITY domain",
        versions: "v4.20+ (v5.6 topology.c:1384, v6.8 :1643); absent in v4.16",
        meaning: "no spreading across CPUs of different capacities",
        eras: &[("v4.7", "false"), ("v4.20", "true")],
    },
    SwitchDoc {
        key: "prefer_sibling_from_busiest",
        function: "update_sd_lb_stats(): sds->prefer_sibling",
        versions: "v6.5+ from the busiest group's flags (v6.8 fair.c:10605); v4.9-v6.4 from the destination's child domain",
        meaning: "whose SD_PREFER_SIBLING makes the balancer spread tasks",
        eras: &[("v4.7", "false"), ("v6.5", "true")],
    },
    SwitchDoc {
        key: "smt_gain",
        function: "arch_scale_cpu_capacity(sd, cpu): sd->smt_gain / span_weight (update_cpu_capacity())",
        versions: "v4.9-v4.20 (1178 per core); removed in v5.0",
        meaning: "SMT threads get capacity 1178/threads (589 per HT thread, 147 per SMT8 thread)",
        eras: &[("v4.7", "true"), ("v5.0", "false")],
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
        key: "lb_group_runnable",
        function: "group_is_overloaded() / group_has_capacity(): group_runnable",
        versions: "v5.7+ (v5.5-v5.6 without it); rework only",
        meaning: "group classification also compares runnable_avg with capacity",
        eras: &[("v5.5", "false"), ("v5.7", "true")],
    },
    SwitchDoc {
        key: "lb_spread_in_llc",
        function: "calculate_imbalance(): migrate_util only outside SD_SHARE_PKG_RESOURCES",
        versions: "v5.10+ (v5.5-v5.9 migrate_util at every level); rework only",
        meaning: "inside the LLC an overloaded group spreads tasks instead of utilization",
        eras: &[("v5.5", "false"), ("v5.10", "true")],
    },
    SwitchDoc {
        key: "lb_load_shr",
        function: "detach_tasks(): migrate_load skip test",
        versions: "v5.10+ load >> nr_balance_failed > imbalance (shr_bound() v6.8); v5.5-v5.9 load/2 > imbalance && failed <= cache_nice_tries; rework only",
        meaning: "how heavy a task may be and still move for a load imbalance",
        eras: &[("v5.5", "false"), ("v5.10", "true")],
    },
    SwitchDoc {
        key: "lb_imbalanced_active_balance",
        function: "need_active_balance(): imbalanced_active_balance(); load_balance() after a kick",
        versions: "v5.13+ migrate_task only; v5.5-v5.12 any type after cache_nice_tries + 2 failures, then nr_balance_failed = cache_nice_tries + 1 and interval back-off; rework only",
        meaning: "when repeated failures force an active balance",
        eras: &[("v5.5", "false"), ("v5.13", "true")],
    },
    SwitchDoc {
        key: "lb_avg_load_guard",
        function: "calculate_imbalance(): local avg_load >= busiest (/ domain) avg_load guards",
        versions: "none v5.5-v5.6; busiest v5.7-v5.15; busiest and domain later (v6.8); rework only",
        meaning: "no migrate_load imbalance while the local group is as loaded",
        eras: &[("v5.5", r#""none""#), ("v5.7", r#""busiest""#), ("v6.0", r#""busiest_and_domain""#)],
    },
    SwitchDoc {
        key: "should_we_balance_idle_core",
        function: "should_we_balance(): first idle CPU on an idle core",
        versions: "v6.6+; before, the group's first idle CPU; rework only",
        meaning: "which idle CPU of a group balances for it",
        eras: &[("v5.5", "false"), ("v6.6", "true")],
    },
    SwitchDoc {
        key: "fbq_util_skip_single",
        function: "find_busiest_queue() migrate_util: nr_running <= 1 skip",
        versions: "v5.7+; rework only",
        meaning: "a CPU running a single task is not taken as busiest for utilization",
        eras: &[("v5.5", "false"), ("v5.7", "true")],
    },
    SwitchDoc {
        key: "fbq_util_boost",
        function: "find_busiest_queue() migrate_util: cpu_util_cfs_boost()",
        versions: "v6.5+ (runnable boosting); before, cpu_util(); rework only",
        meaning: "utilization of a busy CPU counts its runnable time",
        eras: &[("v5.5", "false"), ("v6.5", "true")],
    },
    SwitchDoc {
        key: "pick_busiest_smt",
        function: "update_sd_pick_busiest(): fully_busy SMT ties, smt_vs_nonsmt_groups()",
        versions: "v6.6+; rework only",
        meaning: "SMT groups are preferred as busiest over non-SMT ones",
        eras: &[("v5.5", "false"), ("v6.6", "true")],
    },
    SwitchDoc {
        key: "sg_wakeup_avg_load_busy",
        function: "update_sg_wakeup_stats(): avg_load of busy groups",
        versions: "v5.7+ (v5.6 computes it only below group_fully_busy, a bug); rework's find_idlest_group()",
        meaning: "fork placement compares the load of busy groups",
        eras: &[("v5.5", "false"), ("v5.7", "true")],
    },
    SwitchDoc {
        key: "pick_idlest_util_tiebreak",
        function: "update_pick_idlest(): has_spare tie broken by group_util",
        versions: "in v5.10 (absent in v5.7; v5.8-v5.9 not read, taken as v5.10); rework's find_idlest_group()",
        meaning: "of two groups with as many idle CPUs, the less utilized wins",
        eras: &[("v5.5", "false"), ("v5.10", "true")],
    },
    SwitchDoc {
        key: "newidle_gate",
        function: "newidle_balance() / idle_balance(): avg_idle test",
        versions: "sysctl_sched_migration_cost v3.x-v5.15; sd->max_newidle_lb_cost v5.16+",
        meaning: "what a CPU's expected idle time must exceed for a newly-idle balance",
        eras: &[("v4.7", r#""migration_cost""#), ("v5.16", r#""max_newidle_lb_cost""#)],
    },
    SwitchDoc {
        key: "update_newidle_cost",
        function: "update_newidle_cost()",
        versions: "v5.16+; before, newidle only raises max_newidle_lb_cost and rebalance_domains() decays it",
        meaning: "how the newly-idle cost estimate decays",
        eras: &[("v4.7", "false"), ("v5.16", "true")],
    },
    SwitchDoc {
        key: "update_avg_div",
        function: "update_avg() (rq->avg_idle EWMA)",
        versions: "diff / 8 v5.7+; diff >> 3 up to v5.6",
        meaning: "the rounding of the avg_idle average",
        eras: &[("v4.7", "false"), ("v5.7", "true")],
    },
    SwitchDoc {
        key: "nohz_stats",
        function: "NOHZ_STATS_KICK, nohz_newidle_balance(), LBF_NOHZ_STATS; NOHZ_NEWILB_KICK",
        versions: "none up to v4.16; kick v4.17-v5.12; newilb_kick v5.13+",
        meaning: "how idle CPUs' blocked load is kept up to date",
        eras: &[("v4.7", r#""none""#), ("v4.17", r#""kick""#), ("v5.13", r#""newilb_kick""#)],
    },
    SwitchDoc {
        key: "newidle_lb_cost_base_ns",
        function: "sched_clock_cpu() around a newly-idle load_balance() (sd->max_newidle_lb_cost)",
        versions: "model parameter [assumed] 2 us a pass",
        meaning: "the time one newly-idle balance pass is taken to cost",
        eras: &[],
    },
    SwitchDoc {
        key: "newidle_lb_cost_per_cpu_ns",
        function: "the same, per CPU of the domain span",
        versions: "model parameter [assumed] 0.25 us a CPU",
        meaning: "the cost's part that grows with the domain",
        eras: &[],
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
        key: "load_balancer",
        function: "load_balance() / find_busiest_group()",
        versions: "legacy before v5.5; the rework v5.5+ (0b0695f2b34a)",
        meaning: "which load balancer: group_other/avg_load/fix_small_imbalance, or group types and migration types",
        eras: &[("v4.7", r#""legacy""#), ("v5.5", r#""rework""#)],
    },
    SwitchDoc {
        key: "lb_legacy",
        function: "the pre-v5.5 balancer's per-version rules (LegacyLb)",
        versions: "v4.9, v4.10, v4.16, v4.20, v5.0, v5.2, v5.4 forms; read only by the legacy balancer",
        meaning: "force_balance, prefer_sibling, redo, capacity guard, active-balance and interval rules of each version",
        eras: &[("v4.7", r#"{"force_balance_any_idle": false, "prefer_sibling_vs_local": false, "redo_outside_dst_group": false, "pick_busiest_capacity_guard": false, "balanced_without_imbalance": false, "newidle_keeps_interval": false, "voluntary_active_balance": false, "all_pinned_keeps_group_imbalance": false, "asym_imbalance_group_load": false}"#), ("v4.16", r#"{"force_balance_any_idle": true, "prefer_sibling_vs_local": true, "redo_outside_dst_group": true, "pick_busiest_capacity_guard": true, "balanced_without_imbalance": false, "newidle_keeps_interval": false, "voluntary_active_balance": false, "all_pinned_keeps_group_imbalance": false, "asym_imbalance_group_load": false}"#), ("v5.2", r#"{"force_balance_any_idle": true, "prefer_sibling_vs_local": true, "redo_outside_dst_group": true, "pick_busiest_capacity_guard": true, "balanced_without_imbalance": true, "newidle_keeps_interval": true, "voluntary_active_balance": true, "all_pinned_keeps_group_imbalance": false, "asym_imbalance_group_load": true}"#), ("v5.4", r#"{"force_balance_any_idle": true, "prefer_sibling_vs_local": true, "redo_outside_dst_group": true, "pick_busiest_capacity_guard": true, "balanced_without_imbalance": true, "newidle_keeps_interval": true, "voluntary_active_balance": true, "all_pinned_keeps_group_imbalance": true, "asym_imbalance_group_load": true}"#)],
    },
    SwitchDoc {
        key: "nohz_kick",
        function: "nohz_kick_needed() / nohz_balancer_kick()",
        versions: "kick_needed v4.9-v5.0 (LLC test on asymmetric systems too); balancer_kick v5.1+",
        meaning: "when a busy tick wakes the idle load balancer",
        eras: &[("v4.7", r#""kick_needed""#), ("v5.1", r#""balancer_kick""#)],
    },
    SwitchDoc {
        key: "preemption",
        function: "detach_tasks(): #ifdef CONFIG_PREEMPTION (CONFIG_PREEMPT before v5.3)",
        versions: "Kconfig, every version (on in Android/arm64 builds; x86 distributions usually PREEMPT_VOLUNTARY)",
        meaning: "a newly-idle pass moves one task and lets the CPU run it",
        eras: &[],
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
        key: "pelt_update",
        function: "__update_load_avg() (__compute_runnable_contrib) / accumulate_sum()",
        versions: "segments v4.9-v4.11; accumulate dividing by LOAD_AVG_MAX v4.12-v4.14; accumulate v4.15+",
        meaning: "PELT's integer path, bit for bit",
        eras: &[("v4.7", r#""segments""#), ("v4.12", r#""accumulate_load_avg_max""#), ("v4.15", r#""accumulate""#)],
    },
    SwitchDoc {
        key: "post_init_cap",
        function: "post_init_entity_util_avg(): cap",
        versions: "(SCHED_CAPACITY_SCALE - util) / 2 up to v4.19; (cpu capacity - util) / 2 v4.20+ (read v4.20)",
        meaning: "the largest utilization a new task starts with",
        eras: &[("v4.7", r#""capacity_scale""#), ("v4.20", r#""cpu_capacity""#)],
    },
    SwitchDoc {
        key: "wakeup_preempt_next_buddy",
        function: "check_preempt_wakeup(): set_next_buddy()",
        versions: "every wake-up preemption before v6.6; EEVDF (v6.6) only under NEXT_BUDDY (off)",
        meaning: "a task that preempts on wake-up is picked next",
        eras: &[("v4.7", "true"), ("v6.6", "false")],
    },
    SwitchDoc {
        key: "last_buddy",
        function: "LAST_BUDDY (check_preempt_wakeup() -> set_last_buddy(), pick_next_entity())",
        versions: "before v6.6 (removed with EEVDF)",
        meaning: "a preempted task with >= sched_nr_latency tasks around is picked back",
        eras: &[("v4.7", "true"), ("v6.6", "false")],
    },
    SwitchDoc {
        key: "fair_pick",
        function: "pick_next_entity(): leftmost + buddies (CFS) or pick_eevdf(); place_entity(), update_deadline(), check_preempt_wakeup(_fair)()",
        versions: "cfs before v6.6; eevdf v6.6+ (147f3efaa241, 5e963f2bd465)",
        meaning: "which task a CPU runs next: least vruntime, or the eligible one with the earliest virtual deadline",
        eras: &[("v4.7", "\"cfs\""), ("v6.6", "\"eevdf\"")],
    },
    SwitchDoc {
        key: "run_to_parity",
        function: "RUN_TO_PARITY (pick_eevdf(), set_next_entity() stashing the deadline in vlag)",
        versions: "v6.6+ (63304558ba5d), EEVDF only",
        meaning: "an eligible curr keeps the CPU until its slice ends: no wake-up preemption before that",
        eras: &[("v4.7", "false"), ("v6.6", "true")],
    },
    SwitchDoc {
        key: "place_lag",
        function: "PLACE_LAG (update_entity_lag() at dequeue, place_entity())",
        versions: "v6.6+, EEVDF only",
        meaning: "a waking or migrating task keeps the lag it had when it left (scaled by (W + w) / W)",
        eras: &[("v4.7", "false"), ("v6.6", "true")],
    },
    SwitchDoc {
        key: "place_deadline_initial",
        function: "PLACE_DEADLINE_INITIAL (place_entity() with ENQUEUE_INITIAL)",
        versions: "v6.6+, EEVDF only",
        meaning: "a new task's first virtual deadline is half a slice away",
        eras: &[("v4.7", "false"), ("v6.6", "true")],
    },
    SwitchDoc {
        key: "custom_slice",
        function: "__setscheduler_params(): sched_attr.sched_runtime -> se->slice, se->custom_slice",
        versions: "v6.12+ (857b158dc5e8), EEVDF only",
        meaning: "a fair task may ask for its own slice (0.1-100 ms); earlier kernels ignore it",
        eras: &[("v4.7", "false"), ("v6.12", "true")],
    },
    SwitchDoc {
        key: "preempt_short",
        function: "PREEMPT_SHORT (do_preempt_short(), cancel_protect_slice(), did_preempt_short())",
        versions: "v6.12+ (85e511df3cec), EEVDF only",
        meaning: "a woken task with a shorter slice cancels curr's RUN_TO_PARITY protection",
        eras: &[("v4.7", "false"), ("v6.12", "true")],
    },
    SwitchDoc {
        key: "task_hot_smt_cold",
        function: "task_hot(): SMT siblings share cache",
        versions: "v5.10+ (Josh Don); absent in v4.9, v5.6",
        meaning: "no task is cache hot to a balance between SMT siblings",
        eras: &[("v4.7", "false"), ("v5.10", "true")],
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
        function: "sysfs schedutil/rate_limit_us (rate_limit_us_store())",
        versions: "tunable; null: each policy keeps sugov_init()'s value from its driver",
        meaning: "an override of the shortest time between two frequency updates of a policy",
        eras: &[],
    },
    SwitchDoc {
        key: "schedutil_transition_delay",
        function: "sugov_init() rate_limit_us; cpufreq_policy_transition_delay_us()",
        versions: "1000 x latency_us v4.7-v4.11; driver's transition_delay_us first v4.12-v4.14; capped at 10 ms v4.15-v6.8 (2 ms cap v6.9+ not modelled)",
        meaning: "how a policy's default rate limit follows from its driver's latency and delay",
        eras: &[("v4.7", "\"latency_multiplier\""), ("v4.12", "\"driver_delay\""), ("v4.15", "\"driver_delay_capped\"")],
    },
    SwitchDoc {
        key: "intel_cpufreq_hwp",
        function: "intel_cpufreq_cpu_init(): INTEL_CPUFREQ_TRANSITION_DELAY_HWP",
        versions: "v5.9+ (passive mode with HWP enabled; read: absent in v5.6.4, in v5.10.13 and v6.8); before, passive mode runs without HWP",
        meaning: "intel_cpufreq's transition delay is its HWP one (5 ms, not 500 us)",
        eras: &[("v4.7", "false"), ("v5.9", "true")],
    },
    SwitchDoc {
        key: "schedutil_rate_limit_on_change",
        function: "sugov_update_commit() / sugov_update_next_freq(): last_freq_update_time",
        versions: "every evaluation in v4.9; only on a changed request v4.16+ (v4.10-v4.15 not read)",
        meaning: "whether an unchanged evaluation restarts the rate limit",
        eras: &[("v4.7", "false"), ("v4.16", "true")],
    },
    SwitchDoc {
        key: "schedutil_util_headroom",
        function: "sugov_effective_cpu_perf() / map_util_perf(), get_capacity_ref_freq()",
        versions: "v6.8+; v4.9-v6.7 get_next_freq() 1.25 x ref x util / max",
        meaning: "where schedutil puts its 25% headroom (v6.8: on the util, with uclamp as min/max hints around it, in schedutil and EAS)",
        eras: &[("v4.7", "false"), ("v6.8", "true")],
    },
    SwitchDoc {
        key: "schedutil_busy_hold",
        function: "sugov_cpu_is_busy() in sugov_update_single()",
        versions: "v4.12+",
        meaning: "a single-CPU policy whose CPU has not idled keeps its frequency",
        eras: &[("v4.7", "false"), ("v4.12", "true")],
    },
    SwitchDoc {
        key: "schedutil_iowait_boost",
        function: "sugov_iowait_boost() / sugov_set_iowait_boost(), sugov_iowait_reset(), sugov_iowait_apply()",
        versions: "max_freq v4.9-v4.15; doubling from policy->min v4.16-v4.17, with reset v4.18-v5.0; in util from 1024/8 v5.2+ (v5.1 not modelled)",
        meaning: "what an IOWAIT wake-up does to its CPU's frequency request",
        eras: &[("v4.7", "\"max_freq\""), ("v4.16", "\"doubling_freq\""), ("v4.18", "\"doubling_freq_reset\""), ("v5.2", "\"doubling_util\"")],
    },
    SwitchDoc {
        key: "hwp_epp",
        function: "intel_pstate_hwp_set(), intel_pstate_set_energy_pref_index()",
        versions: "sysfs setting; the firmware's 128 (balance_performance) kept by powersave",
        meaning: "HWP energy-performance preference, 0 performance .. 255 power ([assumed] effect)",
        eras: &[],
    },
    SwitchDoc {
        key: "hwp_dynamic_boost",
        function: "intel_pstate_update_util_hwp(), intel_pstate_hwp_boost_up/down()",
        versions: "v4.18+ (default on for SKX with a server PM profile)",
        meaning: "repeated IOWAIT wake-ups raise the CPU's HWP min, held 3 ms",
        eras: &[("v4.7", "false"), ("v4.18", "true")],
    },
    SwitchDoc {
        key: "eas",
        function: "find_energy_efficient_cpu(), compute_energy(), sched_energy_enabled()",
        versions: "v5.0-v5.3 total_energy, v5.4-v5.19 base_energy (eb92692b2544), v6.0+ eenv",
        meaning: "energy-aware wake-up placement on EAS systems, and its energy comparison rule",
        eras: &[
            ("v4.7", "\"none\""),
            ("v5.0", "\"total_energy\""),
            ("v5.4", "\"base_energy\""),
            ("v6.0", "\"eenv\""),
        ],
    },
    SwitchDoc {
        key: "em_power_uw",
        function: "_get_power() / of_dev_pm_opp_get_cpu_power(), em_compute_costs()",
        versions: "v5.19+ (uW; mW v5.1-v5.18)",
        meaning: "the energy model's power per OPP in uW rather than mW (cost rounding)",
        eras: &[("v4.7", "false"), ("v5.19", "true")],
    },
    SwitchDoc {
        key: "em_util_headroom",
        function: "em_cpu_energy() map_util_perf() / em_pd_energy() map_util_freq()",
        versions: "v5.14+ (on util, capped at cpu capacity; on the frequency v5.0-v5.13)",
        meaning: "where the energy estimate adds the 25% DVFS headroom when picking the OPP",
        eras: &[("v4.7", "false"), ("v5.14", "true")],
    },
    SwitchDoc {
        key: "uclamp",
        function: "uclamp_rq_inc()/uclamp_rq_dec(), uclamp_eff_value(), uclamp_rq_util_with() / effective_cpu_util()",
        versions: "v5.3+ (CONFIG_UCLAMP_TASK); v6.8 applies it in sugov_effective_cpu_perf()",
        meaning: "per-task util_min/util_max, max-aggregated per rq, clamp schedutil's and EAS's utilization",
        eras: &[("v4.7", "false"), ("v5.3", "true")],
    },
    SwitchDoc {
        key: "util_fits",
        function: "task_fits_capacity() / task_fits_cpu(), util_fits_cpu(), feec's candidate filter",
        versions: "util before v5.6; uclamp_task_util v5.6-v6.1 (read in v5.6.4-v5.15.0); util_fits_cpu v6.2+ (48d5e9daa8b7; read in v6.5, v6.8)",
        meaning: "whether a task fits a CPU: its util, its clamped util, or util and hints apart (-1: only uclamp_min misses)",
        eras: &[
            ("v4.7", "\"util\""),
            ("v5.6", "\"uclamp_task_util\""),
            ("v6.2", "\"util_fits_cpu\""),
        ],
    },
    SwitchDoc {
        key: "uclamp_rq_idle_ignore",
        function: "uclamp_rq_util_with(rq, util, p) with uclamp_rq_is_idle()",
        versions: "v5.13+ (3e1493f46390; read: absent in v5.12.9, present in v5.15.0)",
        meaning: "a waking task's clamps replace an idle CPU's retained ones instead of max-aggregating with them",
        eras: &[("v4.7", "false"), ("v5.13", "true")],
    },
    SwitchDoc {
        key: "uclamp_max_sugov",
        function: "sugov_iowait_apply() uclamp_rq_util_with(); sugov_update_single_freq() uclamp_rq_is_capped()",
        versions: "v5.17+ (d37aee9018e6, 7a17e1db1265; read: absent in v5.15.0, present in v6.5)",
        meaning: "schedutil's iowait boost is capped by uclamp_max and the busy hold skipped while capped",
        eras: &[("v4.7", "false"), ("v5.17", "true")],
    },
    SwitchDoc {
        key: "sched_util_clamp_min",
        function: "sysctl sched_util_clamp_min (sysctl_sched_uclamp_util_min), uclamp_eff_get()",
        versions: "v5.3+, default 1024",
        meaning: "system-wide ceiling on every task's uclamp_min",
        eras: &[],
    },
    SwitchDoc {
        key: "sched_util_clamp_max",
        function: "sysctl sched_util_clamp_max (sysctl_sched_uclamp_util_max), uclamp_eff_get()",
        versions: "v5.3+, default 1024",
        meaning: "system-wide ceiling on every task's uclamp_max",
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
        // v6.8 also moved schedutil's headroom (map_util_perf()), which the patch does not touch.
        let rest: Vec<String> = diff(&patched, &new).into_iter().map(|r| r.switch).collect();
        assert_eq!(rest, ["schedutil_util_headroom"]);
        let d = diff(&KernelConfig::v6_7(), &patched);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].switch, "lb_util_shr_bound");
    }
}
