//! The load-balance and newly-idle rules that changed between v5.5 and v6.8, each on a small
//! hand-built case whose outcome differs between the eras (fidelity review F1, F6, F7, F8).
//!
//! Each era test builds its kernels with [`era`]; `SCHEDLAB_FLIP=<field>` flips that boolean
//! switch (or, for `newidle_gate`, `lb_avg_load_guard` and `nohz_stats`, swaps the era) in every kernel they build, which is how one
//! checks that a test fails without its rule:
//! `SCHEDLAB_FLIP=lb_load_shr cargo test -p schedlab-core lb_era_tests`.

use super::balance::{group_classify, CpuIdleType, GroupType, MigrationType, SgStats};
use super::log::{BalanceDecision, BalanceResult, Decision, NewidleSkip};
use super::tests::{add_task, settle};
use super::wakeup::WakeKind;
use super::{update_avg, Task, TaskId, World};
use crate::domains::SchedDomains;
use crate::kernel::{build_config, AvgLoadGuard, Governor, KernelConfig, NewidleGate, NohzStats};
use crate::topology::{presets::preset, MachineSpec, Topology};
use crate::units::{NSEC_PER_MSEC, NSEC_PER_USEC};

/// `baseline`'s kernel, with the switch named by `SCHEDLAB_FLIP` flipped.
fn era(baseline: &str) -> KernelConfig {
    let mut c = build_config(baseline, &[], None, Governor::Performance).unwrap();
    if let Ok(field) = std::env::var("SCHEDLAB_FLIP") {
        if field == "newidle_gate" {
            c.newidle_gate = match c.newidle_gate {
                NewidleGate::MigrationCost => NewidleGate::MaxNewidleLbCost,
                NewidleGate::MaxNewidleLbCost => NewidleGate::MigrationCost,
            };
        } else if field == "lb_avg_load_guard" {
            c.lb_avg_load_guard = match c.lb_avg_load_guard {
                AvgLoadGuard::None => AvgLoadGuard::BusiestAndDomain,
                AvgLoadGuard::Busiest | AvgLoadGuard::BusiestAndDomain => AvgLoadGuard::None,
            };
        } else if field == "nohz_stats" {
            c.nohz_stats = match c.nohz_stats {
                NohzStats::None => NohzStats::NewilbKick,
                NohzStats::Kick | NohzStats::NewilbKick => NohzStats::None,
            };
        } else {
            let mut v = serde_json::to_value(&c).unwrap();
            let b = v[field.as_str()]
                .as_bool()
                .expect("SCHEDLAB_FLIP names a bool field");
            v[field.as_str()] = serde_json::Value::Bool(!b);
            c = serde_json::from_value(v).unwrap();
        }
    }
    c
}

fn world_of(spec: MachineSpec, baseline: &str) -> World {
    let t = Topology::build(&spec).unwrap();
    let c = era(baseline);
    let d = SchedDomains::build(&t, &c).unwrap();
    let mut w = World::new(t, d, c);
    w.now = 100 * NSEC_PER_MSEC;
    w
}

fn machine(name: &str, baseline: &str) -> World {
    world_of(preset(name).unwrap(), baseline)
}

/// Two clusters of four equal CPUs (HiKey960 with 1024 everywhere): MC per cluster (the LLC),
/// DIE above, no capacity asymmetry.
fn two_clusters(baseline: &str) -> World {
    let mut spec = preset("hikey960").unwrap();
    for c in &mut spec.clusters {
        c.capacity_orig = 1024;
    }
    world_of(spec, baseline)
}

/// Three clusters {0,1} {2,3} {4,5} of equal CPUs: DIE has three groups.
fn three_clusters(baseline: &str) -> World {
    let mut spec = preset("hikey960").unwrap();
    let mut a = spec.clusters[1].clone();
    a.capacity_orig = 1024;
    spec.clusters = (0..3)
        .map(|i| {
            let mut c = a.clone();
            c.name = format!("C{i}");
            c.cores = 2;
            c.cpu_ids = Some(vec![2 * i, 2 * i + 1]);
            c
        })
        .collect();
    world_of(spec, baseline)
}

/// The last balance decision logged.
fn last_balance(w: &World) -> BalanceDecision {
    match w.log.as_ref().unwrap().iter().rev().find_map(|d| match d {
        Decision::Balance(b) => Some(b.clone()),
        _ => None,
    }) {
        Some(b) => b,
        None => panic!("no balance decision logged"),
    }
}

/// One traced `load_balance()` pass.
fn balance(w: &mut World, cpu: usize, level: usize, idle: CpuIdleType) -> BalanceDecision {
    w.log = Some(Vec::new());
    w.load_balance(cpu, level, idle);
    last_balance(w)
}

const MC: usize = 0;
const DIE: usize = 1;

// F6 (a): group_runnable in group classification, v5.7+.

#[test]
fn runnable_makes_a_crowded_low_util_group_overloaded_from_v5_7() {
    // Cluster {4-7} runs six small tasks (util 100; runnable 1024 each): 6 tasks on 4 CPUs.
    // v5.7+: runnable 6144 x 100 > capacity 4096 x imbalance_pct -> overloaded -> migrate_util.
    // v5.6: utilization 600 leaves room -> has_spare; prefer_sibling spreads tasks instead.
    let seen = |baseline: &str| {
        let mut w = two_clusters(baseline);
        for cpu in [4, 4, 5, 5, 6, 7] {
            add_task(&mut w, cpu, 100);
        }
        let b = balance(&mut w, 0, DIE, CpuIdleType::Idle);
        (b.groups[b.busiest.unwrap()].group_type, b.migration_type)
    };
    assert_eq!(
        seen("v6.8"),
        (GroupType::Overloaded, Some(MigrationType::Util))
    );
    assert_eq!(
        seen("v5.6"),
        (GroupType::HasSpare, Some(MigrationType::Task))
    );
    // The same group statistics, classified directly.
    let sgs = SgStats {
        sum_nr_running: 6,
        group_weight: 4,
        group_capacity: 4096,
        group_util: 600,
        group_runnable: 6144,
        ..SgStats::default()
    };
    let c = era("v5.6");
    assert_eq!(
        group_classify(125, &sgs, c.lb_group_runnable),
        GroupType::HasSpare
    );
}

// F6 (b): migrate_util inside the LLC before v5.10.

#[test]
fn inside_the_llc_v5_10_spreads_tasks_where_v5_6_fills_spare_capacity() {
    // CPU 4 is idle but keeps blocked utilization 900; CPU 5 runs three tasks of util 300.
    // v5.6: migrate_util, imbalance = 1024 - 900 = 124 < every task's 300: nothing moves.
    // v5.10+: inside the LLC, migrate_task: one task moves.
    let moved = |baseline: &str| {
        let mut w = two_clusters(baseline);
        for _ in 0..3 {
            add_task(&mut w, 5, 300);
        }
        add_task(&mut w, 6, 100);
        add_task(&mut w, 7, 100);
        w.rqs[4].avg.util_avg = 900;
        let b = balance(&mut w, 4, MC, CpuIdleType::Idle);
        (b.migration_type, b.moved)
    };
    assert_eq!(moved("v6.8"), (Some(MigrationType::Task), 1));
    assert_eq!(moved("v5.6"), (Some(MigrationType::Util), 0));
}

// F6 (c): the migrate_load rule of detach_tasks().

#[test]
fn migrate_load_v5_6_moves_a_task_whose_half_load_fits_v5_10_needs_failures() {
    // MC of cluster {4-7}: CPU 4 runs one task (fully busy), CPU 5 three, CPUs 6-7 one each;
    // every task has load 1024. avg_load: local 1024, busiest 3072, domain 6144/4 = 1536, so
    // imbalance = min(3072 - 1536, 1536 - 1024) = 512.
    let moved = |baseline: &str, failed: u32| {
        let mut w = two_clusters(baseline);
        for cpu in [4, 5, 5, 5, 6, 7] {
            add_task(&mut w, cpu, 1000);
        }
        w.sd_state_mut(4, MC).nr_balance_failed = failed;
        let b = balance(&mut w, 4, MC, CpuIdleType::NotIdle);
        assert_eq!(
            (b.migration_type, b.imbalance),
            (Some(MigrationType::Load), 512)
        );
        b.moved
    };
    // v5.6: load/2 = 512 is not above 512: moves at once.
    assert_eq!(moved("v5.6", 0), 1);
    // v5.10+: 1024 >> 0 > 512 skips it; after one failure 1024 >> 1 = 512 passes.
    assert_eq!(moved("v6.8", 0), 0);
    assert_eq!(moved("v6.8", 1), 1);
}

// calculate_imbalance()'s avg_load guards for a local group that is not overloaded.

#[test]
fn v5_6_computes_a_load_imbalance_for_a_local_group_above_the_average() {
    // MC of cluster {4-7} seen from busy CPU 4 (one task, runqueue load `local`); CPU 5 runs
    // three tasks (avg_load 3072), CPUs 6-7 are idle.
    let pass = |c: &str, guard: Option<AvgLoadGuard>, local: u64| {
        let mut w = two_clusters(c);
        if let Some(g) = guard {
            w.config.lb_avg_load_guard = g;
        }
        for cpu in [4, 5, 5, 5] {
            add_task(&mut w, cpu, 1000);
        }
        w.rqs[4].avg.load_avg = local;
        let b = balance(&mut w, 4, MC, CpuIdleType::NotIdle);
        (b.imbalance, b.moved)
    };
    // Local 3100 is above the busiest's 3072. v5.6: domain average (3100 + 3072) / 4 = 1543,
    // (1543 - 3100) wraps, so min() takes (3072 - 1543): imbalance 1529, one task moves.
    assert_eq!(pass("v5.6", None, 3100), (1529, 1));
    // v5.7+: no pull while local >= busiest.
    assert_eq!(pass("v5.6", Some(AvgLoadGuard::Busiest), 3100), (0, 0));
    // Local 1100 is below the busiest but above the average 1043: v5.7-v5.15 move the
    // busiest's excess (2029: two tasks), v6.8 nothing.
    assert_eq!(pass("v5.6", Some(AvgLoadGuard::Busiest), 1100), (2029, 2));
    assert_eq!(pass("v6.8", None, 1100), (0, 0));
}

// F6 (d, h): active balance after repeated failures.

#[test]
fn v5_6_kicks_an_active_balance_for_migrate_util_after_failures_v6_does_not() {
    // Juno r2, the E5 case: bigs {1,2} run 3 tasks, littles have one idle CPU; migrate_util with
    // imbalance 383 cannot detach a 512-util task. After cache_nice_tries + 2 failures v5.5-v5.12
    // push CPU 1's running task to CPU 0 and set nr_balance_failed = cache_nice_tries + 1; v5.13+
    // only do that for migrate_task.
    let run = |baseline: &str| {
        let mut w = machine("juno-r2", baseline);
        add_task(&mut w, 1, 512);
        add_task(&mut w, 1, 512);
        add_task(&mut w, 2, 1024);
        for cpu in [3, 4, 5] {
            add_task(&mut w, cpu, 383);
        }
        let tries = w.sd.domains[w.sd.per_cpu[0][DIE]].cache_nice_tries;
        w.sd_state_mut(0, DIE).nr_balance_failed = tries + 2;
        let interval = w.sd_state(0, DIE).balance_interval;
        let b = balance(&mut w, 0, DIE, CpuIdleType::Idle);
        assert_eq!((b.migration_type, b.moved), (Some(MigrationType::Util), 0));
        let st = *w.sd_state(0, DIE);
        (
            b.result,
            w.pending_active.clone(),
            st.nr_balance_failed == tries + 1,
            st.balance_interval == 2 * interval,
        )
    };
    assert_eq!(
        run("v5.6"),
        (BalanceResult::ActiveBalance, vec![(1, 0)], true, true)
    );
    let (result, pending, _, _) = run("v6.7");
    assert_eq!((result, pending), (BalanceResult::NothingMoved, vec![]));
}

// F6 (e): should_we_balance() and idle cores.

#[test]
fn should_we_balance_prefers_an_idle_core_from_v6_6() {
    // Cascade Lake, NUMA level, node 0's group: CPU 0 is idle but its sibling runs a task; the
    // next core is wholly idle. v6.6+: the first idle CPU of an idle core balances; v5.6: CPU 0.
    let balancer = |baseline: &str| {
        let mut w = machine("cascadelake-8260l", baseline);
        let core0 = w.topo.cores[w.topo.cpus[0].core];
        let sibling = core0.iter().find(|&c| c != 0).unwrap();
        add_task(&mut w, sibling, 500);
        let next = (1..96)
            .find(|&c| w.topo.cpus[c].package == 0 && !core0.test(c))
            .unwrap();
        let level = w.sd.per_cpu[0].len() - 1;
        [0, next]
            .into_iter()
            .filter(|&cpu| {
                balance(&mut w, cpu, level, CpuIdleType::Idle).result != BalanceResult::NotThisCpu
            })
            .collect::<Vec<_>>()
    };
    let v68 = balancer("v6.8");
    assert_eq!(v68.len(), 1);
    assert_ne!(v68[0], 0, "v6.8: the idle core's CPU");
    assert_eq!(balancer("v5.6"), vec![0]);
}

// F6 (f): find_busiest_queue() for migrate_util.

/// Cluster {4-7} overloaded: CPU 4 runs tasks of the utilizations `cpu4`, CPUs 5-7 two tasks
/// of util `pair` each. Returns the busiest CPU picked and how many tasks CPU 0 pulled.
fn util_busiest(w: &mut World, cpu4: &[u64], pair: u64) -> (Option<usize>, usize) {
    for &u in cpu4 {
        add_task(w, 4, u);
    }
    for cpu in [5, 5, 6, 6, 7, 7] {
        add_task(w, cpu, pair);
    }
    let b = balance(w, 0, DIE, CpuIdleType::Idle);
    assert_eq!(b.migration_type, Some(MigrationType::Util));
    (b.src_cpu, b.moved)
}

#[test]
fn v5_6_may_pick_a_cpu_with_one_task_for_migrate_util_and_move_nothing() {
    // CPU 4's lone task has the highest cpu_util(): v5.6 picks it and cannot detach anything;
    // v5.7+ skip a CPU with one task and pull from CPU 5.
    let mut w = two_clusters("v5.6");
    assert_eq!(util_busiest(&mut w, &[1000], 450), (Some(4), 0));
    let mut w = two_clusters("v5.6");
    w.config.fbq_util_skip_single = true;
    assert_eq!(util_busiest(&mut w, &[1000], 450), (Some(5), 1));
}

#[test]
fn v6_5_compares_runnable_boosted_util_in_find_busiest_queue() {
    // CPU 4 runs two tasks of util 300, CPUs 5-7 two of 450. cpu_util(): CPU 5 (900 > 600).
    // cpu_util_cfs_boost(): every CPU reads its runnable 2048, clamped to 1024: the first, CPU 4.
    let mut w = two_clusters("v6.8");
    assert_eq!(util_busiest(&mut w, &[300, 300], 450).0, Some(4));
    let mut w = two_clusters("v6.8");
    w.config.fbq_util_boost = false;
    assert_eq!(util_busiest(&mut w, &[300, 300], 450).0, Some(5));
}

// F6 (g): SMT-aware ties in update_sd_pick_busiest().

#[test]
fn fully_busy_ties_keep_the_first_group_before_v6_6_and_the_last_after() {
    // Three clusters of two: {0,1} idle, {2,3} and {4,5} one task each (fully busy, avg_load
    // not computed, so equal). v5.5-v6.5 keep the first (CPU 2's group), v6.6+ the last
    // non-SMT one (CPU 4's); prefer_sibling then asks for one task from its first CPU.
    let src = |baseline: &str| {
        let mut w = three_clusters(baseline);
        for cpu in 2..6 {
            add_task(&mut w, cpu, 1000);
        }
        let b = balance(&mut w, 0, DIE, CpuIdleType::Idle);
        assert_eq!(
            b.groups[b.busiest.unwrap()].group_type,
            GroupType::FullyBusy
        );
        b.src_cpu
    };
    assert_eq!(src("v5.6"), Some(2));
    assert_eq!(src("v6.8"), Some(4));
}

// update_pick_idlest(): the group_util tie-break.

#[test]
fn fork_ties_between_idle_cpus_go_to_the_least_utilized_from_v5_10() {
    // DynamIQ HiKey960, parent on CPU 3, CPU 4 idle with blocked utilization 100, CPU 5 idle
    // with none: equal idle CPUs. v5.10+ prefer the lower group_util (CPU 5); v5.6 keeps the
    // first group visited after the local one (CPU 4).
    let target = |baseline: &str| {
        let mut w = machine("hikey960-dynamiq", baseline);
        let parent = add_task(&mut w, 3, 50);
        w.rqs[4].avg.util_avg = 100;
        let child = fork_child(&mut w, parent, 3);
        w.select_task_rq_fair(child, Some(parent), 3, WakeKind::Fork)
            .0
    };
    assert_eq!(target("v6.8"), 5);
    assert_eq!(target("v5.6"), 4);
}

// F7: update_sg_wakeup_stats() avg_load, and find_idlest_group()'s SD_NUMA clause.

#[test]
fn v5_6_fork_stays_in_a_busy_local_group_whatever_the_other_groups_load() {
    // All 8 CPUs run one task (fully busy); cluster {0-3}'s runqueues carry load 2048, {4-7}'s
    // 1024. v5.7+: the remote group's avg_load 1024 is well below 2048: fork goes there. v5.6
    // computes no avg_load for busy groups (0 = 0): the new task stays local.
    let cluster_of_child = |baseline: &str| {
        let mut w = two_clusters(baseline);
        let parent = add_task(&mut w, 0, 1000);
        for cpu in 1..8 {
            add_task(&mut w, cpu, 1000);
        }
        for cpu in 0..4 {
            w.rqs[cpu].avg.load_avg = 2048;
        }
        let child = fork_child(&mut w, parent, 0);
        let cpu = w
            .select_task_rq_fair(child, Some(parent), 0, WakeKind::Fork)
            .0;
        w.topo.cpus[cpu].cluster
    };
    assert_eq!(cluster_of_child("v6.8"), 1);
    assert_eq!(cluster_of_child("v5.6"), 0);
}

fn fork_child(w: &mut World, parent: TaskId, cpu: usize) -> TaskId {
    let id = w.tasks.len();
    let all = w.topo.all_cpus();
    w.tasks
        .push(Task::new(id, cpu, all, 0, Some(parent), w.now));
    id
}

#[test]
fn across_numa_nodes_fork_stays_unless_the_remote_node_is_lighter_by_the_imbalance() {
    // Cascade Lake, every CPU busy (fully busy nodes). Per-CPU load: node 1 800, node 0 just
    // above imbalance_pct x 800 but within NICE_0_LOAD x (pct - 100)% of it. Without the SD_NUMA
    // clause the imbalance_pct test would send the child to node 1; with it, it stays.
    let mut w = machine("cascadelake-8260l", "v6.8");
    let numa = *w.sd.per_cpu[0].last().unwrap();
    let pct = w.sd.domains[numa].imbalance_pct as u64;
    let remote = 800;
    let local = remote * pct / 100 + 10;
    assert!(local <= remote + 1024 * (pct - 100) / 100);
    let mut parent = None;
    for cpu in 0..96 {
        let t = add_task(&mut w, cpu, 1000);
        parent.get_or_insert(t);
    }
    for cpu in 0..96 {
        w.rqs[cpu].avg.load_avg = if w.topo.cpus[cpu].package == 0 {
            local
        } else {
            remote
        };
    }
    let parent = parent.unwrap();
    let child = fork_child(&mut w, parent, 0);
    let cpu = w
        .select_task_rq_fair(child, Some(parent), 0, WakeKind::Fork)
        .0;
    assert_eq!(w.topo.cpus[cpu].package, 0, "CPU {cpu}");
}

// F8: v6.8's NUMA rule for has_spare nodes.

#[test]
fn v6_8_keeps_a_fork_local_only_if_the_allowed_local_cpus_leave_room() {
    // Cascade Lake, a lone parent on CPU 0; the child may run on CPU 1 and on node 1 only.
    // v6.8: imb_numa_nr = min(2, allowed CPUs of node 0 = 1); local tasks + 1 = 2 > 1, so the
    // imbalance of idle CPUs (1) is not excused and node 1 (more idle CPUs) wins. v5.6 keeps the
    // task on node 0 while it has an idle CPU.
    let node_of_child = |baseline: &str| {
        let mut w = machine("cascadelake-8260l", baseline);
        let parent = add_task(&mut w, 0, 600);
        let child = fork_child(&mut w, parent, 0);
        let mut allowed = crate::cpumask::CpuMask::single(1);
        for c in 0..96 {
            if w.topo.cpus[c].package == 1 {
                allowed.set(c);
            }
        }
        w.tasks[child].allowed = allowed;
        let cpu = w
            .select_task_rq_fair(child, Some(parent), 0, WakeKind::Fork)
            .0;
        w.topo.cpus[cpu].package
    };
    assert_eq!(node_of_child("v6.8"), 1);
    assert_eq!(node_of_child("v5.6"), 0);
}

// F1: rq->avg_idle and newidle gating.

#[test]
fn update_avg_is_the_kernels_ewma_in_both_roundings() {
    // (800 - 0) / 8 = 100 either way.
    assert_eq!(update_avg(0, 800, false), 100);
    assert_eq!(update_avg(0, 800, true), 100);
    // diff = 1 - 1000000 = -999999: v5.6 `>> 3` floors to -125000, v5.7+ `/ 8` truncates to
    // -124999.
    assert_eq!(update_avg(1_000_000, 1, false), 875_000);
    assert_eq!(update_avg(1_000_000, 1, true), 875_001);
    // An exact multiple of 8: no difference.
    assert_eq!(update_avg(1_000_000, 200_000, false), 900_000);
    assert_eq!(update_avg(1_000_000, 200_000, true), 900_000);
}

#[test]
fn a_wake_up_feeds_the_idle_time_to_avg_idle_capped_at_twice_the_balance_cost() {
    let mut w = machine("hikey960", "v5.6");
    let cpu = 2;
    // sched_init(): avg_idle = 2 x migration cost, max_idle_balance_cost = migration cost.
    assert_eq!(w.rqs[cpu].avg_idle, 1_000_000);
    assert_eq!(w.rqs[cpu].max_idle_balance_cost, 500_000);
    // Goes idle (newidle_balance() stamps it; nothing to pull) and is woken 200.001 us later:
    // diff = 200001 - 1000000 = -799999, which v5.6 shifts to -100000 (v5.7+ divide: -99999).
    assert!(!w.newidle_balance(cpu));
    assert_eq!(w.rqs[cpu].idle_stamp, w.now);
    w.now += 200 * NSEC_PER_USEC + 1;
    w.ttwu_update_avg_idle(cpu);
    assert_eq!(w.rqs[cpu].avg_idle, 900_000);
    assert_eq!(w.rqs[cpu].idle_stamp, 0, "cleared");
    // A second wake-up without idling in between samples nothing.
    w.now += 5 * NSEC_PER_MSEC;
    w.ttwu_update_avg_idle(cpu);
    assert_eq!(w.rqs[cpu].avg_idle, 900_000);
    // A long idle: 900000 + (5 ms - 900000) / 8 = 1412500, capped at 2 x 500 us.
    w.newidle_balance(cpu);
    w.now += 5 * NSEC_PER_MSEC;
    w.ttwu_update_avg_idle(cpu);
    assert_eq!(w.rqs[cpu].avg_idle, 1_000_000);
}

/// Two clusters, two tasks on CPU 1 and the root domain overloaded; CPU 0 goes idle with
/// `avg_idle` (ns). Returns whether it pulled and the decision log.
fn newidle_with_avg_idle(baseline: &str, avg_idle: u64) -> (bool, Vec<Decision>) {
    let mut w = two_clusters(baseline);
    add_task(&mut w, 1, 400);
    add_task(&mut w, 1, 400);
    settle(&mut w);
    w.rd_overload = true;
    w.rqs[0].avg_idle = avg_idle;
    w.log = Some(Vec::new());
    let pulled = w.newidle_balance(0);
    (pulled, w.log.take().unwrap())
}

#[test]
fn newidle_balance_is_skipped_below_the_migration_cost_until_v5_16() {
    // An expected idle time of 400 us: v5.6 skips (< 500 us) and logs why; v5.16+ compare it
    // with the lowest domain's max_newidle_lb_cost (a few us) and pull.
    let (pulled, log) = newidle_with_avg_idle("v5.6", 400_000);
    assert!(!pulled);
    let Some(Decision::Balance(b)) = log.last() else {
        panic!("{log:?}")
    };
    assert_eq!(b.result, BalanceResult::NewidleSkipped);
    assert_eq!(
        b.newidle_skip,
        Some(NewidleSkip::MigrationCost {
            avg_idle: 400_000,
            migration_cost: 500_000
        })
    );
    let text = log.last().unwrap().to_text(&|t| format!("t{t}"));
    assert!(
        text.contains("avg_idle 400000 ns < sysctl_sched_migration_cost 500000 ns"),
        "{text}"
    );
    let (pulled, _) = newidle_with_avg_idle("v6.8", 400_000);
    assert!(pulled);
    // A long expected idle time balances in every era.
    assert!(newidle_with_avg_idle("v5.6", 600_000).0);
}

#[test]
fn newidle_balance_stops_where_the_levels_cost_exceeds_the_expected_idle_time() {
    // v6.8, avg_idle 10 us, the lowest level's recorded cost 3 us (passes the gate); MC costs
    // 2 + 4 x 0.25 = 3 us, so DIE (recorded 8 us) needs 3 + 8 = 11 us > 10 us: stop there.
    // CPU 5's tasks are in the other cluster, so nothing is pulled.
    let mut w = two_clusters("v6.8");
    add_task(&mut w, 5, 400);
    add_task(&mut w, 5, 400);
    w.rd_overload = true;
    w.rqs[0].avg_idle = 10 * NSEC_PER_USEC;
    w.sd_state_mut(0, MC).max_newidle_lb_cost = 3_000;
    w.sd_state_mut(0, DIE).max_newidle_lb_cost = 8_000;
    w.log = Some(Vec::new());
    assert!(!w.newidle_balance(0));
    let log = w.log.take().unwrap();
    let Some(Decision::Balance(b)) = log.last() else {
        panic!("{log:?}")
    };
    assert_eq!(
        b.newidle_skip,
        Some(NewidleSkip::DomainCost {
            avg_idle: 10_000,
            curr_cost: 3_000,
            max_newidle_lb_cost: 8_000
        })
    );
    assert_eq!(
        w.rqs[0].max_idle_balance_cost, 500_000,
        "3 us is below the floor"
    );
    // With 12 us it balances DIE too and pulls a task from CPU 5.
    let mut w = two_clusters("v6.8");
    add_task(&mut w, 5, 400);
    add_task(&mut w, 5, 400);
    w.rd_overload = true;
    w.rqs[0].avg_idle = 12 * NSEC_PER_USEC;
    w.sd_state_mut(0, MC).max_newidle_lb_cost = 3_000;
    w.sd_state_mut(0, DIE).max_newidle_lb_cost = 8_000;
    assert!(w.newidle_balance(0));
    // DIE's pass cost 2 + 8 x 0.25 = 4 us: below its recorded 8 us, which stays.
    assert_eq!(w.sd_state(0, DIE).max_newidle_lb_cost, 8_000);
    assert_eq!(w.rqs[0].idle_stamp, 0, "a pull clears idle_stamp");
}

#[test]
fn max_newidle_lb_cost_decay_waits_after_a_new_maximum_from_v5_16() {
    // At jiffy HZ + 1 a newidle pass records a new maximum at MC; the periodic balance one jiffy
    // later decays it in v5.6 (its decay clock never moved) but not in v5.16+ (the new maximum
    // restarted it).
    let cost_after = |baseline: &str| {
        let mut w = two_clusters(baseline);
        let hz = w.config.hz as u64;
        w.now = (hz + 1) * w.config.tick_ns();
        w.rd_overload = true;
        w.rqs[0].avg_idle = 1_000_000;
        w.newidle_balance(0);
        let fresh = w.sd_state(0, MC).max_newidle_lb_cost;
        assert_eq!(fresh, 3_000, "2 us + 4 CPUs x 0.25 us");
        w.now += w.config.tick_ns();
        w.rebalance_domains(0, CpuIdleType::Idle);
        w.sd_state(0, MC).max_newidle_lb_cost
    };
    assert_eq!(cost_after("v5.6"), 3_000 * 253 / 256);
    assert_eq!(cost_after("v6.8"), 3_000);
}

// F24: the blocked load of idle CPUs (NOHZ_STATS_KICK).

/// An idle CPU with blocked utilization 300 last updated at t = 0.
fn stale_idle_cpu(w: &mut World, cpu: usize) {
    w.rqs[cpu].avg.util_avg = 300;
    w.rqs[cpu].avg.load_avg = 300;
    w.nohz_balance_enter_idle(cpu);
}

#[test]
fn from_v4_17_a_busy_tick_kicks_an_idle_cpu_to_age_the_blocked_load_of_idle_cpus() {
    // CPU 0 runs one task: no reason for a balance kick. CPU 5 idles with stale utilization.
    // v4.17+: nohz.next_blocked passed, so CPU 0's tick sends a stats-only kick and the ILB
    // ages CPU 5 (100 ms of decay) without balancing; v4.16 leaves it stale.
    let after_tick = |baseline: &str| {
        let mut w = two_clusters(baseline);
        add_task(&mut w, 0, 500);
        stale_idle_cpu(&mut w, 5);
        let before = w.counters.load_balance_calls;
        let ilb = w.nohz_balancer_kick(0);
        if let Some(ilb) = ilb {
            w.nohz_idle_balance(ilb);
        }
        assert_eq!(w.counters.load_balance_calls, before, "no balancing");
        (ilb, w.rqs[5].avg.util_avg, w.nohz_next_blocked)
    };
    let (ilb, util, next_blocked) = after_tick("v6.8");
    assert_eq!(ilb, Some(1), "the first idle CPU");
    assert!(util < 50, "{util}");
    assert_eq!(next_blocked, 25 + 8, "32 ms later at HZ 250");
    assert_eq!(after_tick("v4.16"), (None, 300, 0));
}

#[test]
fn v5_6_newidle_balance_ages_the_idle_cpus_it_scans_v5_13_all_idle_cpus() {
    // CPU 0 goes idle (root domain overloaded, avg_idle 600 us); DIE costs more than that, so
    // only MC is balanced and nothing is pulled. CPUs 2 (same cluster) and 6 (other cluster)
    // idle with stale utilization. v4.17-v5.12: LBF_NOHZ_STATS ages the MC CPUs it reads;
    // v5.13+: the pull-less newidle balance ages every other idle CPU.
    let utils = |baseline: &str| {
        let mut w = two_clusters(baseline);
        stale_idle_cpu(&mut w, 2);
        stale_idle_cpu(&mut w, 6);
        w.rd_overload = true;
        w.rqs[0].avg_idle = 600 * NSEC_PER_USEC;
        w.sd_state_mut(0, DIE).max_newidle_lb_cost = NSEC_PER_MSEC;
        assert!(!w.newidle_balance(0));
        (w.rqs[2].avg.util_avg < 300, w.rqs[6].avg.util_avg < 300)
    };
    assert_eq!(utils("v5.6"), (true, false));
    assert_eq!(utils("v6.8"), (true, true));
    assert_eq!(utils("v4.16"), (false, false));
}
