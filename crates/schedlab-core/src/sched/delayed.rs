//! DELAY_DEQUEUE (v6.12+, Peter Zijlstra's "sched/fair: Implement delayed dequeue",
//! 152e11f6df29, and its series), selected by [`KernelConfig::delay_dequeue`]: a task that goes
//! to sleep while it is not eligible (negative lag) is not dequeued. It stays on its runqueue,
//! `se->sched_delayed`, competing with its vruntime frozen, so that it "burns off" the lag it
//! owes instead of carrying it through the sleep: `dequeue_entity()` returns early. It leaves
//! when `pick_next_entity()` picks it (it has become eligible: it is dequeued with
//! DEQUEUE_DELAYED and the pick goes again) or when it wakes first (`ttwu_runnable()`:
//! `enqueue_task(ENQUEUE_DELAYED)` -> `requeue_delayed_entity()`, on the same CPU, without
//! `select_task_rq()`). DELAY_ZERO ([`KernelConfig::delay_zero`]) drops the positive lag it has
//! by then.
//!
//! Accounting, per era (read in v6.12.19, v6.13.7 and v6.19.0 fair.c / pelt.c / sched.h):
//! - `cfs_rq->nr_running` (`nr_queued` from v6.14) and `rq->nr_running` count a delayed task in
//!   every version, so `update_deadline()`'s "another task queued" test, `idle_cpu()` and
//!   `available_idle_cpu()` see it. A CPU with only delayed tasks does not stay so: its next pick
//!   dequeues each of them in turn before it goes idle (`pick_task_fair()` "goto again"), so
//!   `select_idle_sibling()` never meets an idle CPU holding delayed tasks.
//! - PELT: a delayed task is `on_rq`, so its load (and the cfs_rq's) keeps accumulating; v6.12.0
//!   counts it runnable too, v6.13+ does not (`se_runnable()` false for `sched_delayed`, the
//!   cfs_rq's runnable count `h_nr_running - h_nr_delayed`; [`KernelConfig::h_nr_delayed`]).
//! - Load balancing: v6.12-v6.13 count a delayed task in `h_nr_running` and may move it like any
//!   other (it stays delayed on its new queue, its lag and relative deadline kept); v6.14+ count
//!   `h_nr_runnable` and `can_migrate_task()` refuses a delayed task unless the imbalance is
//!   migrate_load ([`KernelConfig::h_nr_runnable`]).
//!
//! Simplifications: util_est leaves the rq at the sleep and comes back at the requeue, as the
//! v6.19 tree has it (`if (!p->se.sched_delayed) util_est_dequeue()`); v6.12.19 and v6.13.7 test
//! only `sched_delayed && (migrating || DEQUEUE_SAVE)` (729288bc6856) and so subtract it a second
//! time at the DEQUEUE_DELAYED dequeue of a picked delayed task, a double count the model does
//! not reproduce; the
//! `nr_iowait` bookkeeping of an I/O sleeper that wakes while delayed is the model's usual one.
//! The kernel leaves a delayed curr as `cfs_rq->curr` until the `__schedule()` that blocked it
//! picks; the model puts it in the tree at once (the same instant, the same sums).
//!
//! [`KernelConfig::delay_dequeue`]: crate::kernel::KernelConfig::delay_dequeue
//! [`KernelConfig::delay_zero`]: crate::kernel::KernelConfig::delay_zero
//! [`KernelConfig::h_nr_delayed`]: crate::kernel::KernelConfig::h_nr_delayed
//! [`KernelConfig::h_nr_runnable`]: crate::kernel::KernelConfig::h_nr_runnable

use super::{TaskId, TaskState, World};
use crate::kernel::FairPick;

impl World {
    /// `task_on_rq_queued()`: runnable, or asleep but delayed on its runqueue.
    pub fn task_on_rq(&self, t: TaskId) -> bool {
        self.tasks[t].state == TaskState::Runnable || self.tasks[t].sched_delayed
    }

    /// `se_runnable()` for a task on its runqueue: false for a delayed one from v6.13.
    pub(super) fn se_runnable_delayed(&self, t: TaskId) -> bool {
        !(self.tasks[t].sched_delayed && self.config.h_nr_delayed)
    }

    /// The delayed tasks PELT does not count as runnable on `cpu` (`h_nr_delayed`, v6.13+).
    pub(super) fn cfs_delayed_not_runnable(&self, cpu: usize) -> usize {
        if self.config.h_nr_delayed {
            self.rqs[cpu].h_nr_delayed
        } else {
            0
        }
    }

    /// `rq->cfs.h_nr_running` as the load balancer reads it: every queued task to v6.13,
    /// `h_nr_runnable` (without the delayed ones) from v6.14.
    pub fn cfs_h_nr_runnable(&self, cpu: usize) -> usize {
        let rq = &self.rqs[cpu];
        if self.config.h_nr_runnable {
            rq.nr_running - rq.h_nr_delayed
        } else {
            rq.nr_running
        }
    }

    /// `can_migrate_task()`'s first test (v6.14+): a delayed task moves only for migrate_load.
    pub(super) fn delayed_pinned(&self, t: TaskId, migrate_load: bool) -> bool {
        self.config.h_nr_runnable && self.tasks[t].sched_delayed && !migrate_load
    }

    /// `dequeue_entity()`'s DELAY_DEQUEUE test (v6.12+), for a sleep, after `update_curr()` and
    /// `util_est_dequeue()`: a task that is not eligible stays queued, delayed. Its PELT is
    /// brought up to date (`update_load_avg(cfs_rq, se, 0)`), `util_est_update()` runs as for
    /// any sleep, and `set_delayed()` counts it in `h_nr_delayed`. Returns whether it stayed.
    pub(super) fn delay_dequeue_entity(&mut self, cpu: usize, t: TaskId) -> bool {
        if self.config.fair_pick != FairPick::Eevdf
            || !self.config.delay_dequeue
            || self.entity_eligible(cpu, t)
        {
            return false;
        }
        self.clear_buddies(cpu, t);
        self.update_load_avg(cpu, Some(t));
        if self.config.util_est {
            self.util_est_update(cpu, t);
        }
        self.tasks[t].sched_delayed = true;
        self.rqs[cpu].h_nr_delayed += 1;
        if self.rqs[cpu].curr == Some(t) {
            // put_prev_entity() of the `__schedule()` that blocks it: back into the tree.
            self.put_curr(cpu);
            self.queue_insert(cpu, t);
        }
        true
    }

    /// `pick_next_entity()` (v6.12+) in `pick_task_fair()`'s loop: a delayed task that
    /// `pick_eevdf()` chooses is dequeued (DEQUEUE_SLEEP | DEQUEUE_DELAYED) and the pick runs
    /// again. Without delayed tasks this is [`World::pick_eevdf`].
    pub(super) fn pick_eevdf_undelayed(&mut self, cpu: usize) -> Option<TaskId> {
        loop {
            match self.pick_eevdf(cpu) {
                Some(t) if self.tasks[t].sched_delayed => self.finish_delayed_dequeue(cpu, t),
                other => return other,
            }
        }
    }

    /// `dequeue_entities(DEQUEUE_SLEEP | DEQUEUE_DELAYED)` of a delayed task: the dequeue its
    /// sleep skipped (`update_entity_lag()` now, at a lag of about zero or more), then
    /// `finish_delayed_dequeue_entity()`: `clear_delayed()`, and DELAY_ZERO drops a positive lag.
    pub(super) fn finish_delayed_dequeue(&mut self, cpu: usize, t: TaskId) {
        self.update_curr(cpu);
        self.dequeue_entity(cpu, t, true, false);
        self.tasks[t].sched_delayed = false;
        if self.config.delay_zero && self.tasks[t].vlag > 0 {
            self.tasks[t].vlag = 0;
        }
    }

    /// `ttwu_runnable()` -> `enqueue_task_fair(ENQUEUE_DELAYED)` -> `requeue_delayed_entity()`
    /// (v6.12+): a delayed task wakes where it is queued. With DELAY_ZERO a positive lag (it
    /// became eligible while delayed) is dropped by placing it again at the 0-lag point (out of
    /// the tree and its count meanwhile, as the kernel does); a negative one is kept, vruntime and
    /// deadline as they were. Then `update_load_avg()`, `clear_delayed()`, and
    /// `util_est_enqueue()`. The caller runs `wakeup_preempt()` if it is not curr.
    pub fn requeue_delayed_entity(&mut self, cpu: usize, t: TaskId) {
        if self.config.delay_zero {
            self.update_entity_lag(cpu, t);
            if self.tasks[t].vlag > 0 {
                let in_tree = self.rqs[cpu].curr != Some(t);
                self.rqs[cpu].nr_running -= 1;
                if in_tree {
                    self.queue_remove(cpu, t);
                }
                self.tasks[t].vlag = 0;
                self.place_entity_eevdf(cpu, t, false);
                if in_tree {
                    self.queue_insert(cpu, t);
                }
                self.rqs[cpu].nr_running += 1;
            }
        }
        // ttwu_runnable() requeues through core.c enqueue_task(ENQUEUE_DELAYED), whose
        // uclamp_rq_inc() counts the task again (its sleep released it).
        if self.config.uclamp {
            self.uclamp_rq_inc(cpu, t);
        }
        self.update_load_avg(cpu, Some(t));
        self.tasks[t].sched_delayed = false;
        self.rqs[cpu].h_nr_delayed -= 1;
        self.tasks[t].state = TaskState::Runnable;
        let est = self.task_util_est_only(t);
        self.rqs[cpu].util_est_enqueued += est;
    }
}
