//! Signals and pick per era (fidelity review F9, F11, F12, F14, F23): small hand-built cases whose
//! outcome differs between the kernels with and without each rule.

use super::balance::{CpuIdleType, LbEnv, MigrationType};
use super::rq::Enqueue;
use super::tests::{add_task, settle, world};
use super::{Task, TaskId, TaskState, World};
use crate::domains::flags::*;
use crate::kernel::{FairPick, PostInitCap};
use crate::units::NSEC_PER_MSEC;

/// A task forked on `cpu` by no running parent: `task_fork_fair()` then `wake_up_new_task()`'s
/// enqueue, with the signals `post_init_entity_util_avg()` gives it.
fn fork_new(w: &mut World, cpu: usize) -> TaskId {
    let id = w.tasks.len();
    let all = w.topo.all_cpus();
    w.tasks.push(Task::new(id, cpu, all, 0, None, 0));
    w.task_fork_fair(cpu, id, None);
    w.enqueue_task(cpu, id, Enqueue::New);
    id
}

/// A sleeping task of `cpu` that wakes with this absolute vruntime (above `place_entity()`'s floor).
fn wake_at(w: &mut World, cpu: usize, vruntime: u64) -> TaskId {
    let id = w.tasks.len();
    let all = w.topo.all_cpus();
    w.tasks.push(Task::new(id, cpu, all, 0, None, 0));
    w.tasks[id].state = TaskState::Sleeping;
    w.tasks[id].vruntime = vruntime;
    w.enqueue_task(cpu, id, Enqueue::Wakeup { migrated: false });
    id
}

#[test]
fn a_new_task_starts_at_half_of_1024_before_v4_20_and_of_its_cpus_capacity_after() {
    // TC2 with its capacities known (the 2016 series): CPU 2 is an A7, capacity 430, and idle.
    let mut w = world("tc2", "v4.9", &["asym-cpu-capacity-2016"]);
    assert_eq!(w.arch_scale_cpu_capacity(2), 430);
    let t = fork_new(&mut w, 2);
    assert_eq!(w.tasks[t].avg.util_avg, 512, "v4.9: (1024 - 0) / 2");
    let mut w = world("tc2", "v6.8", &[]);
    let t = fork_new(&mut w, 2);
    assert_eq!(w.tasks[t].avg.util_avg, 215, "v4.20+: (430 - 0) / 2");
    // With utilization on the cfs_rq: util * se->load.weight (1024 << 10 on 64-bit) / (load + 1)
    // is far above the cap, so the cap decides in both eras.
    for (baseline, patches, want) in [
        ("v4.9", &["asym-cpu-capacity-2016"][..], (1024 - 100) / 2),
        ("v6.8", &[][..], (430 - 100) / 2),
    ] {
        let mut w = world("tc2", baseline, patches);
        w.rqs[2].avg.util_avg = 100;
        w.rqs[2].avg.load_avg = 1024;
        w.rqs[2].avg.last_update_time = w.now;
        let t = fork_new(&mut w, 2);
        assert_eq!(w.tasks[t].avg.util_avg, want, "{baseline}");
    }
}

#[test]
fn the_v4_20_cap_switch_is_what_moves_the_initial_utilization() {
    let mut w = world("tc2", "v4.9", &["asym-cpu-capacity-2016"]);
    w.config.post_init_cap = PostInitCap::CpuCapacity;
    let t = fork_new(&mut w, 2);
    assert_eq!(w.tasks[t].avg.util_avg, 215);
}

/// On big CPU 4 of a HiKey960: curr C has run 20 ms; L (queued, not preempting) is 0.5
/// wake-up granularities left of W, which wakes 1.5 granularities left of C and preempts it.
/// Returns the world and (C, L, W), after `check_preempt_wakeup(W)`.
fn next_buddy_case(baseline: &str) -> (World, [TaskId; 3]) {
    let mut w = world("hikey960", baseline, &[]);
    // The buddy switches alone, on the CFS pick these vruntimes are set for (v6.8's EEVDF pick,
    // which has no buddies either, is tested in eevdf_tests).
    w.config.fair_pick = FairPick::Cfs;
    let cpu = 4;
    let c = fork_new(&mut w, cpu);
    w.pick_next_task(cpu);
    w.now += 20 * NSEC_PER_MSEC;
    w.update_curr(cpu);
    let g = w.sched_wakeup_granularity;
    let cv = w.tasks[c].vruntime;
    let l = wake_at(&mut w, cpu, cv - 2 * g);
    let wk = wake_at(&mut w, cpu, cv - 3 * g / 2);
    w.check_preempt_wakeup(cpu, wk);
    assert!(
        w.need_resched.test(cpu),
        "{baseline}: W is 1.5 granularities left of C"
    );
    (w, [c, l, wk])
}

#[test]
fn a_preempting_wakee_is_the_next_buddy_before_eevdf() {
    // v5.6 check_preempt_wakeup(): set_next_buddy(W); pick_next_entity() prefers W over the
    // leftmost L because W is within one granularity of L.
    let (mut w, [_, _, wk]) = next_buddy_case("v5.6");
    assert_eq!(w.rqs[4].next, Some(wk));
    assert_eq!(w.pick_next_task(4), Some(wk));
    assert_eq!(w.rqs[4].next, None, "picking a buddy clears it");
    // v6.6+ has no buddies without NEXT_BUDDY: the leftmost runs.
    let (mut w, [_, l, _]) = next_buddy_case("v6.8");
    assert_eq!(w.rqs[4].next, None);
    assert_eq!(w.pick_next_task(4), Some(l));
}

/// CPU 4 runs C at vruntime X with `fillers` more tasks far right; L waits at X - g/2; W wakes at
/// X - 1.2g, preempts C and runs; then W blocks at once. Returns who runs next, and L and C.
fn last_buddy_case(baseline: &str, fillers: usize) -> (Option<TaskId>, TaskId, TaskId) {
    let mut w = world("hikey960", baseline, &[]);
    // The buddy switches alone, on the CFS pick these vruntimes are set for (v6.8's EEVDF pick,
    // which has no buddies either, is tested in eevdf_tests).
    w.config.fair_pick = FairPick::Cfs;
    let cpu = 4;
    let c = fork_new(&mut w, cpu);
    w.pick_next_task(cpu);
    w.now += 20 * NSEC_PER_MSEC;
    w.update_curr(cpu);
    let g = w.sched_wakeup_granularity;
    let x = w.tasks[c].vruntime;
    for _ in 0..fillers {
        wake_at(&mut w, cpu, x + 5 * g);
    }
    let l = wake_at(&mut w, cpu, x - g / 2);
    let wk = wake_at(&mut w, cpu, x - 6 * g / 5);
    w.check_preempt_wakeup(cpu, wk);
    w.need_resched.clear(cpu);
    assert_eq!(w.pick_next_task(cpu), Some(wk), "{baseline}: W is leftmost");
    w.dequeue_task(cpu, wk, false);
    w.tasks[wk].state = TaskState::Sleeping;
    (w.pick_next_task(cpu), l, c)
}

#[test]
fn with_eight_tasks_the_preempted_curr_is_the_last_buddy_before_eevdf() {
    // v5.6 LAST_BUDDY: 9 tasks >= sched_nr_latency (8), so C became the last buddy; C is within a
    // granularity of the leftmost L, so it gets the CPU back.
    let (next, _, c) = last_buddy_case("v5.6", 6);
    assert_eq!(next, Some(c));
    // Below sched_nr_latency (7 tasks) there is no last buddy: the leftmost L runs.
    let (next, l, _) = last_buddy_case("v5.6", 4);
    assert_eq!(next, Some(l));
    // v6.8 (EEVDF removed LAST_BUDDY): the leftmost L runs.
    let (next, l, _) = last_buddy_case("v6.8", 6);
    assert_eq!(next, Some(l));
}

fn lb_env(w: &World, dst: usize, src: usize, level: usize) -> LbEnv {
    let sd = w.sd.per_cpu[dst][level];
    LbEnv {
        sd,
        level,
        dst_cpu: dst,
        src_cpu: src,
        idle: CpuIdleType::Idle,
        imbalance: 1,
        migration_type: MigrationType::Task,
        cpus: w.sd.domains[sd].span,
        all_pinned: false,
        some_pinned: false,
        new_dst_cpu: None,
        balance_cpu: dst,
        active_lb: false,
        busiest_group: None,
        imbalance_found: 0,
    }
}

#[test]
fn a_next_buddy_is_cache_hot_to_a_busy_destination() {
    // The next buddy W of CPU 4 last ran long ago, so only CACHE_HOT_BUDDY makes it hot; CPU 5 of
    // the same cluster runs a task.
    for (baseline, hot) in [("v5.6", true), ("v6.8", false)] {
        let (mut w, [_, _, wk]) = next_buddy_case(baseline);
        add_task(&mut w, 5, 100);
        let env = lb_env(&w, 5, 4, 0);
        assert_eq!(w.task_hot(&env, wk), hot, "{baseline}");
        // An idle destination never finds a buddy hot.
        let env = lb_env(&w, 6, 4, 0);
        assert!(!w.task_hot(&env, wk), "{baseline}");
    }
}

#[test]
fn smt_siblings_share_cache_from_v5_10() {
    // Cascade Lake: CPU 48 is CPU 0's sibling. A task queued on 48 that ran 0.1 ms ago is hot
    // to CPU 0's SMT-level balance in v5.6, not in v6.8.
    for (baseline, hot) in [("v5.6", true), ("v6.8", false)] {
        let mut w = world("cascadelake-8260l", baseline, &[]);
        add_task(&mut w, 48, 300);
        let p = add_task(&mut w, 48, 300);
        w.tasks[p].exec_start = w.now - NSEC_PER_MSEC / 10;
        let env = lb_env(&w, 0, 48, 0);
        assert!(w.sd.domains[env.sd].has(SD_SHARE_CPUCAPACITY));
        assert_eq!(w.task_hot(&env, p), hot, "{baseline}");
    }
}

#[test]
fn smt_gain_gives_each_thread_its_share_of_1178_before_v5_0() {
    // IVB-EP (2 threads per core): 589 per thread, 1178 per core group, in v4.9.
    let w = world("ivb-ep", "v4.9", &[]);
    assert_eq!(w.capacity_of(0), 589);
    let mc = &w.sd.domains[w.sd.per_cpu[0][1]];
    assert_eq!(mc.groups[mc.local_group(0)].capacity, 1178);
    assert_eq!(w.arch_scale_cpu_capacity(0), 1024, "PELT's sd = NULL call");
    // POWER9 SMT8 big cores (v4.16 builds SMT from all 8 threads): 147 per thread.
    let w = world("power9-smt8", "v4.16", &[]);
    assert_eq!(w.capacity_of(0), 147);
    let mc = &w.sd.domains[w.sd.per_cpu[0][1]];
    assert_eq!(mc.groups[mc.local_group(0)].capacity, 8 * 147);
    // v5.0+: no smt_gain, every thread is 1024.
    let w = world("ivb-ep", "v6.8", &[]);
    assert_eq!(w.capacity_of(0), 1024);
    let mc = &w.sd.domains[w.sd.per_cpu[0][1]];
    assert_eq!(mc.groups[mc.local_group(0)].capacity, 2048);
}

#[test]
fn cpu_util_is_clamped_to_the_smt_thread_capacity_before_v5_0() {
    for (baseline, want) in [("v4.9", 589), ("v6.8", 1024)] {
        let mut w = world("ivb-ep", baseline, &[]);
        add_task(&mut w, 0, 1024);
        assert_eq!(w.cpu_util(0), want, "{baseline}");
    }
}

#[test]
fn the_mc_level_prefers_siblings_from_v4_16_unless_its_parent_is_asymmetric() {
    let mc_prefers = |baseline: &str, patches: &[&str]| {
        let w = world("hikey960", baseline, patches);
        w.sd.domains[w.sd.per_cpu[0][0]].has(SD_PREFER_SIBLING)
    };
    // v4.9 sd_init(): SMT and DIE only; v4.16 adds the LLC level.
    assert!(!mc_prefers("v4.9", &[]));
    assert!(mc_prefers("v4.16", &[]));
    // Under an SD_ASYM_CPUCAPACITY DIE: v4.16 keeps it, v4.20+ clears it.
    let w = world("hikey960", "v4.16", &["asym-cpu-capacity-2016"]);
    assert!(w.sd.domains[w.sd.per_cpu[0][1]].has(SD_ASYM_CPUCAPACITY));
    assert!(mc_prefers("v4.16", &["asym-cpu-capacity-2016"]));
    assert!(!mc_prefers("v6.8", &[]));
    assert!(!mc_prefers("v5.6", &[]));
}

/// HiKey960 v4.16, DIE balance by idle CPU 0: littles run 2 tasks (CPUs 1, 2), bigs 4 (CPU 4 two,
/// 5 and 6 one). The little cluster's MC domain is made to not prefer siblings while the big
/// cluster's group keeps the flag: the two reads of `prefer_sibling` disagree.
fn prefer_sibling_case(from_busiest: bool) -> usize {
    let mut w = world("hikey960", "v4.16", &[]);
    // The rework's read of the flag (v4.16 itself runs the pre-v5.5 balancer, which reads the
    // destination's child only).
    w.config.load_balancer = crate::kernel::LoadBalancer::Rework;
    w.config.prefer_sibling_from_busiest = from_busiest;
    for cpu in [1, 2, 4, 4, 5, 6] {
        add_task(&mut w, cpu, 300);
    }
    settle(&mut w);
    let little_mc = w.sd.per_cpu[0][0];
    w.sd.domains[little_mc].flags &= !SD_PREFER_SIBLING;
    let die = &w.sd.domains[w.sd.per_cpu[0][1]];
    assert!(die.groups[die.local_group(4)].flags & SD_PREFER_SIBLING != 0);
    w.load_balance(0, 1, CpuIdleType::Idle).moved
}

#[test]
fn prefer_sibling_comes_from_the_busiest_group_from_v6_5() {
    // v4.9-v6.4: the destination's child (the little MC) does not prefer siblings; the bigs are
    // not overloaded and the littles have no more idle CPUs than the bigs + 1: balanced.
    assert_eq!(prefer_sibling_case(false), 0);
    // v6.5+: the busiest group's child (the big MC) does; 4 - 2 tasks > 1 forces the balance.
    assert_eq!(prefer_sibling_case(true), 1);
}

#[test]
fn a_forked_child_starts_at_its_parents_vruntime_when_that_is_later() {
    // task_fork_fair(): max(parent's vruntime, min_vruntime + vslice).
    let mut w = world("hikey960", "v5.6", &[]);
    let parent = fork_new(&mut w, 4);
    w.pick_next_task(4);
    let q = fork_new(&mut w, 4);
    w.now += 60 * NSEC_PER_MSEC;
    w.update_curr(4);
    let pv = w.tasks[parent].vruntime;
    let min = w.rqs[4].min_vruntime;
    assert!(
        pv > min + w.sched_latency,
        "the parent ran ahead of the queued task"
    );
    let id = w.tasks.len();
    let all = w.topo.all_cpus();
    w.tasks.push(Task::new(id, 4, all, 0, Some(parent), w.now));
    w.task_fork_fair(4, id, Some(parent));
    // Placed on another CPU: relative to CPU 4's min_vruntime, then to CPU 0's.
    w.tasks[id].cpu = 0;
    let min0 = w.rqs[0].min_vruntime;
    w.enqueue_task(0, id, Enqueue::New);
    assert_eq!(w.tasks[id].vruntime - min0, pv - min);
    let _ = q;
    // Without a running parent the child starts one vslice after min_vruntime.
    // (START_DEBIT: 24 ms, the whole scaled latency for one task.)
    let mut w = world("hikey960", "v5.6", &[]);
    let min = w.rqs[4].min_vruntime;
    let t = fork_new(&mut w, 4);
    assert_eq!(w.tasks[t].vruntime, min + w.sched_latency);
}

#[test]
fn a_migrating_task_keeps_its_lead_over_min_vruntime() {
    // A task left of its queue's min_vruntime (placed by hand) keeps the negative offset on the
    // new queue, as migrate_task_rq_fair() + enqueue_entity() do with signed arithmetic.
    let mut w = world("hikey960", "v5.6", &[]);
    let a = fork_new(&mut w, 4);
    w.pick_next_task(4);
    w.now += 10 * NSEC_PER_MSEC;
    w.update_curr(4);
    let min = w.rqs[4].min_vruntime;
    let b = wake_at(&mut w, 4, min);
    w.dequeue_task(4, b, true);
    w.tasks[b].vruntime = w.rqs[4].min_vruntime - 1000;
    let min0 = w.rqs[0].min_vruntime;
    w.enqueue_task(0, b, Enqueue::Migrated);
    assert_eq!(w.tasks[b].vruntime, min0 - 1000);
    let _ = a;
}

#[test]
fn v4_9_pelt_keeps_last_update_time_unaligned() {
    // v4.9 __update_load_avg(): last_update_time = now; v4.12+ advances it in whole 1024 ns units.
    for (baseline, aligned) in [("v4.9", false), ("v4.16", true)] {
        let mut w = world("tc2", baseline, &[]);
        let t = fork_new(&mut w, 0);
        w.pick_next_task(0);
        w.now += 2 * NSEC_PER_MSEC + 500;
        w.update_load_avg(0, Some(t));
        let last = w.tasks[t].avg.last_update_time;
        assert_eq!(last == w.now, !aligned, "{baseline}");
        assert_eq!(
            last.is_multiple_of(1024),
            aligned || w.now.is_multiple_of(1024),
            "{baseline}"
        );
    }
}
