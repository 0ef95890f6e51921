//! fair.c rules on small hand-built cases: tasks are placed by hand and their PELT signals set to
//! the values the rule under test reads.

use super::balance::{group_classify, CpuIdleType, GroupType, SgStats};
use super::rq::Enqueue;
use super::wakeup::WakeKind;
use super::{Task, TaskId, World};
use crate::domains::SchedDomains;
use crate::kernel::{build_config, Governor};
use crate::topology::{presets::preset, Topology};
use crate::units::NSEC_PER_MSEC;

pub(super) fn world(machine: &str, baseline: &str, patches: &[&str]) -> World {
    let t = Topology::build(&preset(machine).unwrap()).unwrap();
    let p: Vec<String> = patches.iter().map(|s| s.to_string()).collect();
    let c = build_config(baseline, &p, None, Governor::Performance).unwrap();
    let d = SchedDomains::build(&t, &c).unwrap();
    let mut w = World::new(t, d, c);
    w.now = 100 * NSEC_PER_MSEC;
    w
}

/// A runnable task on `cpu` with the given utilization; it runs if the CPU was idle.
pub(super) fn add_task(w: &mut World, cpu: usize, util: u64) -> TaskId {
    let id = w.tasks.len();
    let all = w.topo.all_cpus();
    w.tasks.push(Task::new(id, cpu, all, 0, None, 0));
    w.task_fork_fair(cpu, id, None);
    w.enqueue_task(cpu, id, Enqueue::New);
    w.tasks[id].avg.util_avg = util;
    w.tasks[id].avg.runnable_avg = util;
    w.tasks[id].avg.load_avg = 1024;
    if w.rqs[cpu].curr.is_none() {
        w.pick_next_task(cpu);
    }
    settle(w);
    id
}

/// Runqueue signals = the sum of their tasks' (what PELT converges to).
pub(super) fn settle(w: &mut World) {
    for cpu in 0..w.nr_cpus() {
        let tasks: Vec<TaskId> = w.rqs[cpu]
            .queue
            .iter()
            .map(|&(_, t)| t)
            .chain(w.rqs[cpu].curr)
            .collect();
        let rq = &mut w.rqs[cpu];
        rq.avg.util_avg = tasks.iter().map(|&t| w.tasks[t].avg.util_avg).sum();
        rq.avg.runnable_avg = 1024 * tasks.len() as u64;
        rq.avg.load_avg = 1024 * tasks.len() as u64;
    }
}

#[test]
fn asym_packing_makes_an_idle_big_cpu_pull_a_little_cpus_running_task() {
    let mut w = world("hikey960-dynamiq", "v4.16", &["dynamiq-asym-packing"]);
    add_task(&mut w, 1, 462);
    // v4.16 forces the pull at once when newly idle (an idle CPU waits for failures, see
    // lb_v4::tests).
    let out = w.load_balance(4, 0, CpuIdleType::NewlyIdle);
    assert!(out.active, "need_active_balance() must trigger");
    assert_eq!(w.pending_active, vec![(1, 4)]);
    // Another little CPU has no priority over CPU1: nothing to do.
    let mut w = world("hikey960-dynamiq", "v4.16", &["dynamiq-asym-packing"]);
    add_task(&mut w, 1, 462);
    let out = w.load_balance(2, 0, CpuIdleType::NewlyIdle);
    assert!(!out.active && w.pending_active.is_empty());
}

#[test]
fn asym_packing_never_pulls_a_lone_task_off_a_preferred_cpu() {
    let mut w = world("hikey960-dynamiq", "v4.16", &["dynamiq-asym-packing"]);
    add_task(&mut w, 5, 1024);
    let out = w.load_balance(0, 0, CpuIdleType::Idle);
    assert_eq!((out.moved, out.active), (0, false));
}

#[test]
fn capacity_blind_mainline_leaves_a_lone_task_on_a_little_cpu() {
    let mut w = world("hikey960-dynamiq", "v4.16", &[]);
    add_task(&mut w, 1, 462);
    let out = w.load_balance(4, 0, CpuIdleType::Idle);
    assert_eq!((out.moved, out.active), (0, false));
    assert!(w.pending_active.is_empty());
}

/// Juno r2, bigs {1,2} overloaded with three tasks, littles {0,3,4,5} with one idle CPU (the E5 case).
fn juno_overloaded_bigs(shr_bound: bool, failures: u32) -> World {
    let mut w = world("juno-r2", "v6.8", &[]);
    w.config.lb_util_shr_bound = shr_bound;
    add_task(&mut w, 1, 512);
    add_task(&mut w, 1, 512);
    add_task(&mut w, 2, 1024);
    for cpu in [3, 4, 5] {
        add_task(&mut w, cpu, 383);
    }
    let die = 1;
    assert_eq!(w.sd.domains[w.sd.per_cpu[0][die]].span_weight, 6);
    w.sd_state_mut(0, die).nr_balance_failed = failures;
    w
}

#[test]
fn migrate_util_skips_a_task_bigger_than_the_imbalance_before_v6_8() {
    // imbalance = little group's spare capacity = 4*383 - 3*383 = 383 < task util 512.
    let mut w = juno_overloaded_bigs(false, 5);
    let out = w.load_balance(0, 1, CpuIdleType::Idle);
    assert_eq!(out.moved, 0);
    assert!(w.idle_cpu(0), "the idle little CPU stays idle");
}

#[test]
fn shr_bound_lets_the_idle_little_pull_after_a_balance_failure() {
    let mut w = juno_overloaded_bigs(true, 0);
    assert_eq!(
        w.load_balance(0, 1, CpuIdleType::Idle).moved,
        0,
        "512 >> 0 > 383"
    );
    let mut w = juno_overloaded_bigs(true, 1);
    assert_eq!(
        w.load_balance(0, 1, CpuIdleType::Idle).moved,
        1,
        "512 >> 1 <= 383"
    );
    assert_eq!(w.rqs[0].nr_running, 1);
    assert_eq!(w.rqs[1].nr_running, 1);
}

#[test]
fn select_idle_sibling_prefers_target_then_prev_then_the_next_idle_cpu() {
    let mut w = world("hikey960-dynamiq", "v4.16", &[]);
    let p = add_task(&mut w, 0, 100);
    assert_eq!(w.select_idle_sibling(p, 2, 5, 5), 5);
    add_task(&mut w, 5, 100);
    assert_eq!(w.select_idle_sibling(p, 2, 5, 5), 2);
    add_task(&mut w, 2, 100);
    w.tasks[p].recent_used_cpu = 2;
    assert_eq!(
        w.select_idle_sibling(p, 2, 5, 5),
        6,
        "select_idle_cpu() scans from target + 1"
    );
}

/// A fork from CPU 3 of a DynamIQ HiKey960 where CPU 4 keeps blocked utilization but no load.
fn fork_target(baseline: &str) -> usize {
    let mut w = world("hikey960-dynamiq", baseline, &[]);
    let parent = add_task(&mut w, 3, 50);
    w.rqs[4].avg.util_avg = 100;
    let id = w.tasks.len();
    let all = w.topo.all_cpus();
    w.tasks.push(Task::new(id, 3, all, 0, Some(parent), w.now));
    w.select_task_rq_fair(id, Some(parent), 3, WakeKind::Fork).0
}

#[test]
fn fork_goes_to_the_idle_cpu_with_least_utilization_scanning_from_the_parent() {
    // v5.10+ update_pick_idlest(): equal idle CPUs, less utilization wins: CPU 5, not CPU 4.
    assert_eq!(fork_target("v6.8"), 5);
    // v4.13-v5.4: fork skips the spare-capacity step; equal runnable loads keep the first group.
    assert_eq!(fork_target("v4.16"), 4);
}

#[test]
fn tick_preempts_a_task_that_used_its_slice() {
    let mut w = world("hikey960-dynamiq", "v4.16", &[]);
    let a = add_task(&mut w, 0, 1024);
    add_task(&mut w, 0, 1024);
    // Two nice-0 tasks: slice = 24 ms (6 ms x (1 + ilog2(8))) / 2.
    assert_eq!(w.sched_slice(0, a, true), 12 * NSEC_PER_MSEC);
    w.now += 11 * NSEC_PER_MSEC;
    w.update_curr(0);
    w.check_preempt_tick(0);
    assert!(!w.need_resched.test(0));
    w.now += 2 * NSEC_PER_MSEC;
    w.update_curr(0);
    w.check_preempt_tick(0);
    assert!(w.need_resched.test(0));
}

#[test]
fn wake_wide_needs_flips_above_the_llc_size() {
    let mut w = world("hikey960-dynamiq", "v4.16", &[]);
    let waker = add_task(&mut w, 0, 100);
    let wakee = add_task(&mut w, 1, 100);
    w.tasks[waker].wakee_flips = 64;
    w.tasks[wakee].wakee_flips = 7;
    assert!(!w.wake_wide(waker, wakee, 0), "slave 7 < llc size 8");
    w.tasks[wakee].wakee_flips = 8;
    assert!(w.wake_wide(waker, wakee, 0));
}

#[test]
fn group_classification_follows_capacity_and_runnable() {
    let g = |nr, util, runnable| SgStats {
        sum_nr_running: nr,
        group_weight: 2,
        group_capacity: 2048,
        group_util: util,
        group_runnable: runnable,
        ..SgStats::default()
    };
    assert_eq!(
        group_classify(117, &g(1, 1024, 1024), true),
        GroupType::HasSpare
    );
    assert_eq!(
        group_classify(117, &g(2, 1000, 2048), true),
        GroupType::HasSpare
    );
    assert_eq!(
        group_classify(117, &g(2, 1900, 2048), true),
        GroupType::FullyBusy,
        "util x 117% over capacity"
    );
    assert_eq!(
        group_classify(117, &g(3, 1900, 3072), true),
        GroupType::Overloaded
    );
    assert_eq!(
        group_classify(117, &g(3, 900, 1500), true),
        GroupType::HasSpare,
        "more tasks than CPUs, but utilization and runnable both leave room"
    );
}

#[test]
fn nice_weights_match_the_kernel_table_and_share_time_by_weight() {
    assert_eq!(super::nice_to_weight(0), 1024);
    assert_eq!(super::nice_to_weight(-20), 88761);
    assert_eq!(super::nice_to_weight(19), 15);
    assert_eq!(super::nice_to_weight(5), 335);
    // Two tasks on one CPU, nice 0 and nice 5: slices in proportion 1024 : 335.
    let mut w = world("hikey960-dynamiq", "v4.16", &[]);
    let a = add_task(&mut w, 0, 1024);
    let b = add_task(&mut w, 0, 1024);
    w.set_nice(b, 5);
    assert_eq!(w.rqs[0].load_weight, 1024 + 335);
    let (sa, sb) = (w.sched_slice(0, a, true), w.sched_slice(0, b, true));
    assert_eq!(sa, 24 * NSEC_PER_MSEC * 1024 / 1359);
    assert_eq!(sb, 24 * NSEC_PER_MSEC * 335 / 1359);
}

#[test]
fn the_v1_rule_migrates_a_task_at_the_first_attempt() {
    let mut w = juno_overloaded_bigs(false, 0);
    w.config.lb_asym_cap_migrate_task = true;
    assert_eq!(
        w.load_balance(0, 1, CpuIdleType::Idle).moved,
        1,
        "migrate_task, imbalance 1"
    );
    assert_eq!(w.rqs[0].nr_running, 1);
}

#[test]
fn util_est_remembers_a_sleeping_task_and_feeds_cpu_util() {
    let mut w = world("hikey960", "v6.8", &[]);
    let t = add_task(&mut w, 4, 600);
    // Sleep: the estimate takes util_avg at once when it grew (UTIL_EST_FASTUP).
    w.dequeue_task(4, t, false);
    assert_eq!(
        (w.tasks[t].util_est_enqueued, w.tasks[t].util_est_ewma),
        (600, 600)
    );
    // A smaller activation moves the EWMA a quarter of the way: 600 + (200 - 600) / 4 = 500.
    w.tasks[t].avg.util_avg = 200;
    w.enqueue_task(4, t, Enqueue::Wakeup { migrated: false });
    w.tasks[t].avg.util_avg = 200;
    w.dequeue_task(4, t, false);
    assert_eq!(
        (w.tasks[t].util_est_enqueued, w.tasks[t].util_est_ewma),
        (200, 500)
    );
    // Woken on a CPU with no history, the CPU's utilization is at least the estimate.
    w.tasks[t].avg.util_avg = 0;
    w.rqs[5].avg.util_avg = 0;
    w.tasks[t].cpu = 5;
    w.enqueue_task(5, t, Enqueue::Wakeup { migrated: false });
    assert_eq!(w.cpu_util(5), 500);
    assert_eq!(w.task_util_est(t), 500);
    // Without util_est (v4.16), only PELT counts.
    let mut old = world("hikey960", "v4.16", &[]);
    let u = add_task(&mut old, 4, 600);
    old.dequeue_task(4, u, false);
    assert_eq!(old.task_util_est(u), old.task_util(u));
}

#[test]
fn pinned_tasks_mark_the_parent_group_imbalanced() {
    // Classic HiKey960 (v6.8): three tasks pinned to CPU 4. CPU 5's MC balance cannot move any;
    // it flags the big cluster's group at DIE, where a little CPU then sees it group_imbalanced.
    let mut w = world("hikey960", "v6.8", &[]);
    for _ in 0..3 {
        let t = add_task(&mut w, 4, 300);
        w.tasks[t].allowed = crate::cpumask::CpuMask::single(4);
    }
    w.log = Some(Vec::new());
    let out = w.load_balance(5, 0, CpuIdleType::Idle);
    assert_eq!(out.moved, 0);
    let die = w.sd.per_cpu[5][1];
    let big = w.sd.domains[die].local_group(5);
    assert!(
        w.group_imbalance[die][big],
        "sgc->imbalance set on the parent's group"
    );
    w.load_balance(0, 1, CpuIdleType::Idle);
    let Some(super::log::Decision::Balance(b)) = w.log.as_ref().unwrap().last().cloned() else {
        panic!()
    };
    let seen = b.groups.iter().find(|g| g.cpus.test(4)).unwrap();
    assert_eq!(seen.group_type, GroupType::Imbalanced);
    // Unpinned, the tasks move; the first pass that then finds balance clears the flag.
    for t in 0..3 {
        w.tasks[t].allowed = w.topo.all_cpus();
    }
    assert_eq!(w.load_balance(5, 0, CpuIdleType::Idle).moved, 1);
    assert!(
        w.group_imbalance[die][big],
        "only a balanced pass clears it"
    );
    settle(&mut w);
    for cpu in [6, 7] {
        w.load_balance(cpu, 0, CpuIdleType::Idle);
    }
    settle(&mut w);
    w.load_balance(6, 0, CpuIdleType::Idle);
    assert!(!w.group_imbalance[die][big]);
}

#[test]
fn asym_packing_at_smt_pulls_the_second_thread_onto_the_other_small_core() {
    // POWER9 big core, one SMT domain over its 8 threads with SD_ASYM_PACKING, lower thread first.
    // Threads 0 and 2 (both in small core {0,2,4,6}) are busy; idle thread 1 (the other small
    // core) is preferred over thread 2 and pulls its running task by active balance.
    let mut w = world("power9-smt8", "v4.16", &["power-asym-smt"]);
    add_task(&mut w, 0, 800);
    add_task(&mut w, 2, 800);
    let smt = &w.sd.domains[w.sd.per_cpu[1][0]];
    assert_eq!(smt.span.to_string(), "0-7");
    assert!(smt.has(crate::domains::flags::SD_ASYM_PACKING));
    // v4.16: at once when newly idle; as an idle CPU's balance, after the 3rd failure
    // (cache_nice_tries 0 at SMT, so nr_balance_failed > 2).
    let out = w.load_balance(1, 0, CpuIdleType::NewlyIdle);
    assert!(out.active);
    assert_eq!(w.pending_active, vec![(2, 1)]);
    let mut w = world("power9-smt8", "v4.16", &["power-asym-smt"]);
    add_task(&mut w, 0, 800);
    add_task(&mut w, 2, 800);
    for _ in 0..2 {
        assert!(!w.load_balance(1, 0, CpuIdleType::Idle).active);
    }
    assert!(w.load_balance(1, 0, CpuIdleType::Idle).active);
    assert_eq!(w.pending_active, vec![(2, 1)]);
    // Without the patch the SMT domain is blind to small cores: nothing moves.
    let mut w = world("power9-smt8", "v4.16", &[]);
    add_task(&mut w, 0, 800);
    add_task(&mut w, 2, 800);
    let out = w.load_balance(1, 0, CpuIdleType::Idle);
    assert!(!out.active && out.moved == 0);
}

#[test]
fn wake_cap_sends_a_big_task_to_the_slow_path() {
    // TC2 with the 2016 series: a task of util 600 last ran on an A7 (430) and is woken from an
    // A7: it does not fit ~80% of min(430, 430), so want_affine is off and SD_BALANCE_WAKE's slow
    // path picks an idle A15.
    let mut w = world("tc2", "v4.9", &["asym-cpu-capacity-2016"]);
    let waker = add_task(&mut w, 3, 100);
    let p = w.tasks.len();
    let all = w.topo.all_cpus();
    w.tasks.push(Task::new(p, 2, all, 0, None, w.now));
    w.tasks[p].avg.util_avg = 600;
    assert!(w.wake_cap(p, 3, 2));
    let (target, path) = w.select_task_rq_fair(p, Some(waker), 3, WakeKind::Wakeup { sync: false });
    assert_eq!(path, super::wakeup::Placement::SlowPath);
    assert!(
        w.topo.capacity_orig(target) == 1024,
        "woken onto CPU{target}"
    );
    // A small task fits: the fast path keeps it in the A7 cluster.
    w.tasks[p].avg.util_avg = 100;
    assert!(!w.wake_cap(p, 3, 2));
    let (target, path) = w.select_task_rq_fair(p, Some(waker), 3, WakeKind::Wakeup { sync: false });
    assert_eq!(path, super::wakeup::Placement::FastPath);
    assert_eq!(w.topo.capacity_orig(target), 430);
}

#[test]
fn dst_pinned_hands_pinned_tasks_to_another_cpu_of_the_local_group() {
    // IVB-EP (v6.8): three tasks queued on CPU 1 may run only there and on CPU 0's SMT sibling.
    // CPU 0's MC balance may not take them itself; LBF_DST_PINNED retries the same busiest CPU with
    // the sibling as dst_cpu, which may.
    let mut w = world("ivb-ep", "v6.8", &[]);
    let sibling = w.topo.cores[w.topo.cpus[0].core]
        .iter()
        .find(|&c| c != 0)
        .unwrap();
    assert_eq!(w.topo.cpus[1].package, w.topo.cpus[0].package);
    assert_ne!(w.topo.cpus[1].core, w.topo.cpus[0].core);
    let mut allowed = crate::cpumask::CpuMask::single(1);
    allowed.set(sibling);
    for _ in 0..3 {
        let t = add_task(&mut w, 1, 300);
        w.tasks[t].allowed = allowed;
    }
    let mc = 1;
    assert_eq!(
        w.sd.domains[w.sd.per_cpu[0][mc]].level,
        crate::domains::SdLevel::MC
    );
    let out = w.load_balance(0, mc, CpuIdleType::Idle);
    assert!(out.moved >= 1, "{out:?}");
    assert_eq!(w.rqs[0].nr_running, 0);
    assert_eq!(w.rqs[sibling].nr_running, out.moved);
    // A newly idle pass does not look for another destination (LBF_DST_PINNED is skipped there).
    let mut w = world("ivb-ep", "v6.8", &[]);
    for _ in 0..3 {
        let t = add_task(&mut w, 1, 300);
        w.tasks[t].allowed = allowed;
    }
    assert_eq!(w.load_balance(0, mc, CpuIdleType::NewlyIdle).moved, 0);
}

#[test]
fn a_numa_node_may_keep_a_small_imbalance() {
    // Cascade Lake (2 nodes of 48 CPUs, one LLC each): imb_numa_nr = 2 LLCs at the NUMA level.
    let w = world("cascadelake-8260l", "v6.8", &[]);
    let numa = *w.sd.per_cpu[0].last().unwrap();
    assert!(w.sd.domains[numa].has(crate::domains::flags::SD_NUMA));
    assert_eq!(w.sd.domains[numa].imb_numa_nr, 2);
    // A new task of a lone parent on node 0 stays on node 0 (v5.6 and v6.8 alike); v4.16's
    // spare-capacity era and a kernel without the allowance would also consider node 1.
    for baseline in ["v5.6", "v6.8"] {
        let mut w = world("cascadelake-8260l", baseline, &[]);
        let parent = add_task(&mut w, 0, 600);
        let id = w.tasks.len();
        let all = w.topo.all_cpus();
        w.tasks.push(Task::new(id, 0, all, 0, Some(parent), w.now));
        let cpu = w.select_task_rq_fair(id, Some(parent), 0, WakeKind::Fork).0;
        assert_eq!(w.topo.cpus[cpu].package, 0, "{baseline}: CPU {cpu}");
    }
    // Two tasks on node 0: node 1's NUMA-level balance finds no imbalance (1 <= 2 is allowed);
    // with four, the local node would still run few tasks but the imbalance exceeds
    // NUMA_IMBALANCE_MIN, so it is kept (and halved: two tasks to move).
    let node1_cpu = (0..96).find(|&c| w.topo.cpus[c].package == 1).unwrap();
    let level = w.sd.per_cpu[node1_cpu].len() - 1;
    let imbalance_seen = |numa: crate::kernel::NumaImbalance, tasks: usize| {
        let mut w = world("cascadelake-8260l", "v6.8", &[]);
        w.config.numa_imbalance = numa;
        for cpu in 0..tasks {
            add_task(&mut w, cpu, 600);
        }
        w.log = Some(Vec::new());
        w.load_balance(node1_cpu, level, CpuIdleType::Idle);
        let Some(super::log::Decision::Balance(b)) = w.log.unwrap().pop() else {
            panic!("no balance decision logged")
        };
        b.imbalance
    };
    use crate::kernel::NumaImbalance::*;
    assert_eq!(imbalance_seen(ImbNumaNr, 2), 0);
    assert_eq!(imbalance_seen(ImbNumaNr, 4), 2);
    // v5.6: nothing while the busiest node runs at most two tasks.
    assert_eq!(imbalance_seen(LocalIdle, 2), 0);
    assert_eq!(imbalance_seen(LocalIdle, 4), 2);
    // Without the allowance, two tasks are already an imbalance of one task.
    assert_eq!(imbalance_seen(None, 2), 1);
}

#[test]
fn a_newly_idle_cpu_brings_its_next_periodic_balance_forward() {
    // A CPU that was busy had its next balance a busy interval away (busy_factor x interval).
    // Going idle, `newidle_balance()` moves `rq->next_balance` to when its domains are due at
    // the idle interval, whether or not it balanced (`update_next_balance()`, v4.9-v6.8). Without
    // it an idle CPU would wait out the busy interval before its next idle balance.
    for (baseline, overloaded) in [("v4.16", false), ("v6.8", false), ("v6.8", true)] {
        let mut w = world("hikey960", baseline, &[]);
        w.rd_overload = overloaded;
        let cpu = 2;
        let j = w.jiffies();
        w.rqs[cpu].next_balance = j + 1000;
        for level in 0..w.sd.per_cpu[cpu].len() {
            w.sd_state_mut(cpu, level).last_balance = j;
        }
        w.newidle_balance(cpu);
        let due = w.rqs[cpu].next_balance;
        assert!(
            due > j && due <= j + 8,
            "{baseline} overloaded {overloaded}: next balance at {due} (now {j})"
        );
    }
}

#[test]
fn a_newly_idle_pass_moves_one_task_only_with_config_preemption() {
    // Four tasks on CPU 0 of the DynamIQ HiKey960, CPU 1 newly idle at MC: the imbalance is two
    // tasks. With CONFIG_PREEMPTION detach_tasks() stops after the first (fidelity review F22).
    let moved = |preemption: bool| {
        let mut w = world("hikey960-dynamiq", "v6.8", &[]);
        w.config.preemption = preemption;
        for _ in 0..4 {
            add_task(&mut w, 0, 300);
        }
        w.load_balance(1, 0, CpuIdleType::NewlyIdle).moved
    };
    assert_eq!(moved(true), 1);
    assert!(
        moved(false) >= 2,
        "PREEMPT_VOLUNTARY moves the whole imbalance"
    );
}

/// `find_idlest_group_cpu()` (v4.9-v6.8): of two idle SMT siblings, the one in the shallower
/// cpuidle state wins even though the other went idle more recently (`idle_get_state()`'s exit
/// latency first, `idle_stamp` only between equal states). Cascade Lake core 5 = CPUs 5 and 53.
#[test]
fn find_idlest_group_cpu_prefers_the_shallowest_idle_state_over_the_latest_stamp() {
    let mut w = world("cascadelake-8260l", "v5.2", &[]);
    let all = w.topo.all_cpus();
    w.tasks.push(Task::new(0, 0, all, 0, None, 0));
    // CPU 5 wakes and goes idle again with a timer 5 us away: C1 (exit latency 2 us).
    w.cpuidle_exit(5);
    w.cpuidle_enter(5, Some(w.now + 5_000));
    assert_eq!(w.idle_get_state_exit_latency(5), Some(2));
    // CPU 53 stays in C6 (133 us) but has the later idle stamp.
    assert_eq!(w.idle_get_state_exit_latency(53), Some(133));
    w.rqs[5].idle_stamp = 10;
    w.rqs[53].idle_stamp = 20;
    let mc = w.sd.per_cpu[5]
        .iter()
        .copied()
        .find(|&d| w.sd.domains[d].span.weight() > 2)
        .unwrap();
    let group = w.sd.domains[mc].local_group(5);
    assert!(w.sd.domains[mc].groups[group].span.test(53));
    assert_eq!(w.find_idlest_group_cpu(mc, group, 0, 0), 5);
    // After 5 s in C1 CPU 5 wakes, and its next long idle is in C6 too: the later stamp decides.
    w.now += 5 * crate::units::NSEC_PER_SEC;
    w.cpuidle_exit(5);
    w.cpuidle_enter(5, None);
    assert_eq!(w.idle_get_state_exit_latency(5), Some(133));
    assert_eq!(w.find_idlest_group_cpu(mc, group, 0, 0), 53);
}

/// Alder Lake with v6.5+ ITMT (`x86-itmt`): the favoured P-core's idle CPU 0 (priority 66) pulls
/// the lone task of E-core CPU 16 (39) at MC, as `sched_asym()` / `asym_active_balance()` allow
/// since CPU 0's core is idle (`sched_use_asym_prio()`). Without ITMT (the baselines: no
/// SD_ASYM_PACKING, every CPU 1024) a lone task is no imbalance and stays.
#[test]
fn itmt_makes_an_idle_favoured_p_core_pull_an_e_cores_lone_task() {
    let mut w = world("alderlake-12900k", "v6.8", &["x86-itmt"]);
    add_task(&mut w, 16, 300);
    let out = w.load_balance(0, 1, CpuIdleType::NewlyIdle);
    // The task is running, so the pull is the active balance of a running task.
    assert_eq!((out.moved, out.active), (0, true));
    assert_eq!(w.pending_active, vec![(16, 0)]);

    let mut w = world("alderlake-12900k", "v6.8", &[]);
    add_task(&mut w, 16, 300);
    let out = w.load_balance(0, 1, CpuIdleType::NewlyIdle);
    assert_eq!((out.moved, out.active), (0, false));
    assert!(w.pending_active.is_empty());
}

/// The same pull on Alder Lake booted without SMT: v6.8 with ITMT, the idle favoured P-core
/// (CPU 0) pulls the E-core's (CPU 8) lone task. v6.12 (`x86_hybrid_capacity`): intel_pstate
/// cleared ITMT and the E-core's capacity is 605; a 300-utilization task fits it (not misfit), so
/// a lone task is no imbalance and stays, `x86-itmt` patch or not.
#[test]
fn hybrid_capacity_scaling_ends_itmts_pull_of_an_e_cores_lone_task() {
    let mut w = world("alderlake-12900k-nosmt", "v6.8", &["x86-itmt"]);
    add_task(&mut w, 8, 300);
    let out = w.load_balance(0, 0, CpuIdleType::NewlyIdle);
    assert_eq!((out.moved, out.active), (0, true));
    assert_eq!(w.pending_active, vec![(8, 0)]);

    let mut w = world("alderlake-12900k-nosmt", "v6.12", &["x86-itmt"]);
    assert_eq!(w.sd.asym_prio.len(), 16);
    add_task(&mut w, 8, 300);
    let out = w.load_balance(0, 0, CpuIdleType::NewlyIdle);
    assert_eq!((out.moved, out.active), (0, false));
    assert!(w.pending_active.is_empty());
}

/// `jiffies` is `now` in ticks whichever way `now` moves: forward within a jiffy, onto its last
/// nanosecond and the next one's first, far ahead, and back (tests set `now` as they like).
#[test]
fn jiffies_follow_now_in_whole_ticks() {
    let mut w = world("hikey960", "v6.8", &[]);
    let tick = w.tick_ns;
    assert!(tick > 1);
    for now in [
        0,
        1,
        tick - 1,
        tick,
        tick + 1,
        5 * tick - 1,
        5 * tick,
        3 * tick + 7,
        tick - 1,
        0,
        u64::MAX / 2,
        7 * tick,
    ] {
        w.now = now;
        assert_eq!(w.jiffies(), now / tick, "now {now}");
        assert_eq!(w.jiffies(), now / tick, "now {now}, read again");
    }
}

/// `get_sd_balance_interval()` caps at `max_load_balance_interval`, `HZ * num_online_cpus() /
/// 10` jiffies (`update_max_interval()`): 96 CPUs at HZ 250 wait at most 2400 jiffies (9.6 s),
/// 8 CPUs 200. A short interval is converted from ms, less one jiffy when busy.
#[test]
fn the_balance_interval_is_capped_by_max_load_balance_interval() {
    for (machine, cap) in [("cascadelake-8260l", 2400), ("hikey960", 200)] {
        let mut w = world(machine, "v5.2", &[]);
        assert_eq!(w.config.hz, 250);
        assert_eq!(w.max_load_balance_interval, cap, "{machine}");
        let top = w.sd.per_cpu[0].len() - 1;
        w.sd_state_mut(0, top).balance_interval = 1_000_000;
        assert_eq!(w.get_sd_balance_interval(0, top, false), cap, "{machine}");
        assert_eq!(w.get_sd_balance_interval(0, top, true), cap, "{machine}");
        w.sd_state_mut(0, 0).balance_interval = 8;
        let j = w.msecs_to_jiffies(8);
        assert_eq!(w.get_sd_balance_interval(0, 0, false), j, "{machine}");
    }
}
