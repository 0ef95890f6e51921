//! DELAY_DEQUEUE and the other v6.7+ EEVDF rules ([`super::delayed`], [`super::eevdf`]) on
//! hand-built runqueues of a HiKey960 (base slice 3 ms, HZ 250), each era against the one
//! without the rule, with the figures the kernel's arithmetic gives.

use super::eevdf_tests::{make_curr, queued};
use super::rq::Enqueue;
use super::tests::world;
use super::{TaskId, TaskState, World};
use crate::units::NSEC_PER_MSEC;

const MS: i64 = NSEC_PER_MSEC as i64;

/// CPU 0 of `baseline`: curr A (key 0, deadline 10 ms) and C (key 2 ms, deadline 5 ms) made
/// curr and put to sleep, though V = 1 ms: its lag is -1 ms. Returns (world, A, C, base) with
/// `base` the `min_vruntime` the keys count from; A is curr afterwards.
fn c_sleeps_owing(baseline: &str, delay: bool) -> (World, TaskId, TaskId, u64) {
    let mut w = world("hikey960", baseline, &[]);
    w.config.delay_dequeue = delay;
    let base = w.rqs[0].min_vruntime;
    let a = queued(&mut w, 0, 0, 10 * MS, 0);
    let c = queued(&mut w, 0, 2 * MS, 5 * MS, 0);
    make_curr(&mut w, 0, c);
    assert!(!w.entity_eligible(0, c));
    w.dequeue_task(0, c, false);
    w.tasks[c].state = TaskState::Sleeping;
    assert_eq!(w.pick_next_task(0), Some(a));
    (w, a, c, base)
}

fn key(w: &World, t: TaskId, base: u64) -> i64 {
    w.tasks[t].vruntime.wrapping_sub(base) as i64
}

#[test]
fn a_sleeper_that_is_not_eligible_stays_queued_from_v6_12() {
    // dequeue_entity(): v6.12 DELAY_DEQUEUE keeps C queued (sched_delayed), counted in
    // nr_running and the avg_vruntime sums; v6.8 dequeues it with its lag.
    for (baseline, delay) in [("v6.12", true), ("v6.8", false)] {
        let (w, _, c, _) = c_sleeps_owing(baseline, delay);
        let rq = &w.rqs[0];
        assert_eq!(w.tasks[c].sched_delayed, delay, "{baseline}");
        assert_eq!(rq.nr_running, 1 + usize::from(delay), "{baseline}");
        assert_eq!(rq.h_nr_delayed, usize::from(delay), "{baseline}");
        assert_eq!(rq.queue.iter().any(|e| e.1 == c), delay, "{baseline}");
        assert_eq!(w.task_on_rq(c), delay, "{baseline}");
        if !delay {
            assert_eq!(w.tasks[c].vlag, -MS, "{baseline}: V - v = 1 - 2 ms");
        }
    }
}

#[test]
fn an_eligible_sleeper_is_dequeued_even_with_delay_dequeue() {
    let mut w = world("hikey960", "v6.12", &[]);
    queued(&mut w, 0, 2 * MS, 10 * MS, 0);
    let c = queued(&mut w, 0, 0, 5 * MS, 0);
    make_curr(&mut w, 0, c);
    w.dequeue_task(0, c, false);
    assert!(!w.tasks[c].sched_delayed);
    assert_eq!(w.rqs[0].nr_running, 1);
}

#[test]
fn a_delayed_task_that_wakes_before_it_is_eligible_keeps_its_lag() {
    // A runs 0.5 ms: V = (0.5 + 2) / 2 ms, C's lag -0.75 ms. v6.12: ttwu_runnable() ->
    // requeue_delayed_entity() leaves C where it was (key 2 ms; DELAY_ZERO drops only a positive
    // lag). v6.8: C slept with vlag -1 ms and place_entity() puts it at V - vlag * (W + w) / W
    // = 0.5 + 1 x 2 = 2.5 ms.
    for (baseline, delay, want) in [("v6.12", true, 2 * MS), ("v6.8", false, 5 * MS / 2)] {
        let (mut w, _, c, base) = c_sleeps_owing(baseline, delay);
        w.now += NSEC_PER_MSEC / 2;
        w.update_curr(0);
        if delay {
            assert!(w.tasks[c].sched_delayed, "{baseline}");
            w.requeue_delayed_entity(0, c);
        } else {
            w.enqueue_task(0, c, Enqueue::Wakeup { migrated: false });
        }
        assert_eq!(key(&w, c, base), want, "{baseline}");
        assert_eq!(w.tasks[c].state, TaskState::Runnable);
        assert!(!w.tasks[c].sched_delayed);
        assert_eq!((w.rqs[0].nr_running, w.rqs[0].h_nr_delayed), (2, 0));
        if delay {
            // Its deadline is the one it slept with.
            assert_eq!(w.tasks[c].deadline.wrapping_sub(base) as i64, 5 * MS);
        }
    }
}

#[test]
fn delay_zero_places_a_delayed_task_that_wakes_eligible_at_the_zero_lag_point() {
    // A runs 4 ms: V = (4 + 2) / 2 = 3 ms, C's lag is +1 ms. DELAY_ZERO: requeue_delayed_entity()
    // places it again with vlag 0: at V of the queue without it (A alone, 4 ms), deadline a
    // slice later. Without DELAY_ZERO it keeps key 2 ms and its deadline.
    for (zero, want, dl) in [(true, 4 * MS, 7 * MS), (false, 2 * MS, 5 * MS)] {
        let (mut w, _, c, base) = c_sleeps_owing("v6.12", true);
        w.config.delay_zero = zero;
        w.now += 4 * NSEC_PER_MSEC;
        w.update_curr(0);
        assert!(w.entity_eligible(0, c));
        w.requeue_delayed_entity(0, c);
        assert_eq!(key(&w, c, base), want, "DELAY_ZERO {zero}");
        assert_eq!(w.tasks[c].deadline.wrapping_sub(base) as i64, dl);
        assert_eq!(w.rqs[0].nr_running, 2);
    }
}

#[test]
fn a_picked_delayed_task_is_dequeued_and_the_pick_goes_again() {
    // A runs 4 ms (not eligible then: V = 3 ms); pick_eevdf() chooses C, which is delayed:
    // pick_next_entity() dequeues it (DEQUEUE_DELAYED) and the pick returns A. C leaves with
    // vlag = V - v = 3 - 2 = +1 ms (update_entity_lag() before it leaves the sums), which
    // DELAY_ZERO drops.
    for (zero, vlag) in [(true, 0), (false, MS)] {
        let (mut w, a, c, _) = c_sleeps_owing("v6.12", true);
        w.config.delay_zero = zero;
        w.now += 4 * NSEC_PER_MSEC;
        assert_eq!(w.pick_next_task(0), Some(a));
        assert!(!w.tasks[c].sched_delayed && !w.task_on_rq(c));
        assert_eq!((w.rqs[0].nr_running, w.rqs[0].h_nr_delayed), (1, 0));
        assert_eq!(w.tasks[c].vlag, vlag, "DELAY_ZERO {zero}");
        // Asleep all along: a wake-up now is an ordinary one.
        assert_eq!(w.tasks[c].state, TaskState::Sleeping);
    }
}

#[test]
fn a_delayed_task_is_runnable_for_pelt_in_v6_12_only() {
    // v6.12.0: se_runnable() is on_rq, so a delayed task's runnable_avg keeps growing; v6.13
    // (h_nr_delayed) counts it out. Its load keeps accumulating in both (it is on_rq).
    let mut figures = Vec::new();
    for baseline in ["v6.12", "v6.13"] {
        let (mut w, _, c, _) = c_sleeps_owing(baseline, true);
        w.tasks[c].avg.runnable_avg = 0;
        w.tasks[c].avg.runnable_sum = 0;
        w.now += 32 * NSEC_PER_MSEC;
        w.update_load_avg(0, Some(c));
        figures.push((w.tasks[c].avg.runnable_avg, w.tasks[c].avg.load_avg));
    }
    assert!(figures[0].0 > 200, "v6.12 {figures:?}");
    assert_eq!(figures[1].0, 0, "v6.13 {figures:?}");
    assert_eq!(figures[0].1, figures[1].1);
}

#[test]
fn the_balancer_counts_h_nr_runnable_and_leaves_delayed_tasks_from_v6_14() {
    // v6.13: rq->cfs.h_nr_running counts the delayed C, which can_migrate_task() may move;
    // v6.14+ (v6.19 here): h_nr_runnable leaves it out, and it moves only for migrate_load.
    for (baseline, nr, pinned) in [("v6.13", 2, false), ("v6.19", 1, true)] {
        let (w, _, c, _) = c_sleeps_owing(baseline, true);
        assert_eq!(w.cfs_h_nr_runnable(0), nr, "{baseline}");
        assert_eq!(w.delayed_pinned(c, false), pinned, "{baseline}");
        assert!(!w.delayed_pinned(c, true), "{baseline}: migrate_load");
    }
}

#[test]
fn place_rel_deadline_keeps_the_relative_deadline_across_a_migration() {
    // B is 2 ms into its 3 ms request (deadline 1 ms past its vruntime) when it moves to CPU 1.
    // v6.12 PLACE_REL_DEADLINE: dequeue_entity() keeps d - v and place_entity() restores it;
    // v6.8 gives it a new request, a whole slice.
    for (baseline, rel) in [("v6.12", MS), ("v6.8", 3 * MS)] {
        let mut w = world("hikey960", baseline, &[]);
        queued(&mut w, 0, 0, 3 * MS, 0);
        let b = queued(&mut w, 0, 0, MS, 0);
        w.dequeue_task(0, b, true);
        w.enqueue_task(1, b, Enqueue::Migrated);
        let t = &w.tasks[b];
        assert_eq!(
            t.deadline.wrapping_sub(t.vruntime) as i64,
            rel,
            "{baseline}"
        );
        assert!(!t.rel_deadline);
    }
}

#[test]
fn reweight_eevdf_keeps_a_queued_tasks_lag_from_v6_7() {
    // A (key 0) and B (key -2 ms, deadline +1 ms), nice 0: V = -1 ms, B's lag +1 ms. B goes to
    // nice 5 (weight 1024 -> 335). v6.7 reweight_eevdf(): v' = V - 1 ms x 1024/335, d' = V +
    // 2 ms x 1024/335. v6.6.0: vruntime stays, d' = v + 3 ms x 1024/335 (div_s64 truncates).
    let scaled = |x: i64| x * 1024 / 335;
    for (baseline, v, d) in [
        ("v6.7", -MS - scaled(MS), -MS + scaled(2 * MS)),
        ("v6.6", -2 * MS, -2 * MS + scaled(3 * MS)),
    ] {
        let mut w = world("hikey960", baseline, &[]);
        let base = w.rqs[0].min_vruntime;
        queued(&mut w, 0, 0, 10 * MS, 0);
        let b = queued(&mut w, 0, -2 * MS, MS, 0);
        w.set_nice(b, 5);
        assert_eq!(key(&w, b, base), v, "{baseline}");
        assert_eq!(
            w.tasks[b].deadline.wrapping_sub(base) as i64,
            d,
            "{baseline}"
        );
        assert_eq!(w.tasks[b].weight, 335);
        // A sleeping task's vlag is scaled in both: its real lag w * vlag is kept.
        let s = queued(&mut w, 0, 0, MS, 0);
        w.dequeue_task(0, s, false);
        w.tasks[s].state = TaskState::Sleeping;
        w.tasks[s].vlag = MS;
        w.set_nice(s, 5);
        assert_eq!(w.tasks[s].vlag, scaled(MS), "{baseline}");
    }
}

#[test]
fn protect_slice_ends_run_to_parity_at_the_queues_shortest_slice_from_v6_17() {
    // C (3 ms slice) is picked beside W, which asked for 1 ms. v6.19 set_protect_slice():
    // vprot = min(deadline 3 ms, 0 + 1 ms), so after 1.5 ms update_curr() reschedules C
    // (`!protect_slice()`). v6.13: the stash keeps C protected to its deadline.
    for (baseline, resched) in [("v6.19", true), ("v6.13", false)] {
        let mut w = world("hikey960", baseline, &[]);
        let c = queued(&mut w, 0, 0, 3 * MS, 0);
        let wk = queued(&mut w, 0, MS / 2, 20 * MS, 0);
        w.set_custom_slice(wk, NSEC_PER_MSEC);
        assert_eq!(w.pick_next_task(0), Some(c));
        w.now += 3 * NSEC_PER_MSEC / 2;
        w.update_curr(0);
        assert_eq!(w.need_resched.test(0), resched, "{baseline}");
    }
}

#[test]
fn a_new_task_preempts_only_by_a_shorter_slice_in_v6_19() {
    // Curr C is not protected (no pick stash / vprot); the new N is eligible with the earliest
    // deadline. v6.13: the pick chooses N, which preempts. v6.19: WF_FORK returns before the pick;
    // an ordinary wake-up of the same task still preempts.
    for (baseline, fork_preempts) in [("v6.13", true), ("v6.19", false)] {
        for fork in [true, false] {
            let mut w = world("hikey960", baseline, &[]);
            let c = queued(&mut w, 0, 0, 10 * MS, 0);
            make_curr(&mut w, 0, c);
            let n = queued(&mut w, 0, 0, MS, 0);
            if fork {
                w.check_preempt_wakeup_new(0, n);
            } else {
                w.check_preempt_wakeup(0, n);
            }
            let want = !fork || fork_preempts;
            assert_eq!(w.need_resched.test(0), want, "{baseline} fork {fork}");
        }
    }
}

#[test]
fn an_eligible_task_that_yields_gives_up_its_request_in_v6_19() {
    // C (key 0, deadline 3 ms) yields beside A (key 1 ms). v6.19: vruntime = deadline, then the
    // deadline moves a slice on; v6.13 moves only the deadline.
    for (baseline, v) in [("v6.19", 3 * MS), ("v6.13", 0)] {
        let mut w = world("hikey960", baseline, &[]);
        let base = w.rqs[0].min_vruntime;
        queued(&mut w, 0, MS, 10 * MS, 0);
        let c = queued(&mut w, 0, 0, 3 * MS, 0);
        make_curr(&mut w, 0, c);
        w.yield_task(0);
        assert_eq!(key(&w, c, base), v, "{baseline}");
        assert_eq!(w.tasks[c].deadline.wrapping_sub(base) as i64, 6 * MS);
    }
}

#[test]
fn curr_picked_again_keeps_the_stash_of_its_first_pick() {
    // pick_next_task_fair(): prev picked again gets no set_next_entity(). C is picked (stash =
    // deadline 3 ms), runs to its deadline (new one 6 ms) and is picked again, A being far right:
    // its stash is the old deadline, so RUN_TO_PARITY no longer holds and a woken W (key 3.5 ms,
    // deadline 4 ms) preempts it. Every EEVDF era.
    for baseline in ["v6.8", "v6.13"] {
        let mut w = world("hikey960", baseline, &[]);
        queued(&mut w, 0, 5 * MS, 8 * MS, 0);
        let c = queued(&mut w, 0, 0, 3 * MS, 0);
        assert_eq!(w.pick_next_task(0), Some(c));
        w.now += 3 * NSEC_PER_MSEC;
        assert_eq!(w.pick_next_task(0), Some(c));
        assert_ne!(w.tasks[c].vlag, w.tasks[c].deadline as i64, "{baseline}");
        let wk = queued(&mut w, 0, MS / 2, MS, 0);
        w.check_preempt_wakeup(0, wk);
        assert!(w.need_resched.test(0), "{baseline}");
    }
}
