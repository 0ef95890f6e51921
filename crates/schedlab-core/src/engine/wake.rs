//! Placing a task that becomes runnable, as `kernel/sched/core.c` does: `try_to_wake_up()`,
//! `wake_up_new_task()` (fork balancing), `sched_exec()` (exec balancing), the stopper's moves and
//! `select_fallback_rq()` when the chosen CPU is not allowed.

use super::Engine;
use crate::cpufreq::SCHED_CPUFREQ_IOWAIT;
use crate::sched::rq::Enqueue;
use crate::sched::wakeup::WakeKind;
use crate::sched::{TaskId, TaskState};
use crate::trace::MigrateReason;

impl Engine<'_> {
    /// `wake_up_new_task()`: place with SD_BALANCE_FORK, enqueue, maybe preempt.
    pub(super) fn wake_up_new_task(&mut self, parent: TaskId, cpu: usize, program: usize) {
        let Some(child) = self.new_task(program, cpu, Some(parent)) else {
            return;
        };
        self.w.counters.forks += 1;
        // sched_fork() -> task_fork_fair(), on the parent's CPU, before the placement.
        self.w.task_fork_fair(cpu, child, Some(parent));
        let (target, _) = self
            .w
            .select_task_rq_fair(child, Some(parent), cpu, WakeKind::Fork);
        let target = self.fallback(child, target);
        self.w.tasks[child].cpu = target;
        self.w.tasks[child].recent_used_cpu = target;
        self.w.enqueue_task(target, child, Enqueue::New);
        self.trace_wakeup(child, target, true);
        self.lat.woken(child, self.w.now);
        self.w.check_preempt_wakeup_new(target, child);
        self.freq_update(target, 0);
    }

    /// `sched_exec()` (v4.9-v6.8, core.c): at exec, `select_task_rq_fair(p, task_cpu(p),
    /// SD_BALANCE_EXEC)` re-places the running task through the slow path of every domain with
    /// SD_BALANCE_EXEC; if another CPU is chosen, `stop_one_cpu(migration_cpu_stop)` moves it
    /// there at once. Returns whether it moved.
    pub(super) fn sched_exec(&mut self, cpu: usize, t: TaskId) -> bool {
        self.w.counters.execs += 1;
        let (dest, _) = self.w.select_task_rq_fair(t, Some(t), cpu, WakeKind::Exec);
        let dest = self.fallback(t, dest);
        if dest == cpu {
            return false;
        }
        self.w.counters.exec_migrations += 1;
        self.stopper_move(cpu, t, dest, MigrateReason::Exec);
        self.freq_update(dest, 0);
        true
    }

    /// `migration_cpu_stop()` on `t`, running on `cpu`: the CPU's stopper preempts it and moves
    /// it to `dest`, whose curr it may preempt in turn.
    pub(super) fn stopper_move(&mut self, cpu: usize, t: TaskId, dest: usize, why: MigrateReason) {
        self.w.dequeue_task(cpu, t, true);
        self.w.enqueue_task(dest, t, Enqueue::Migrated);
        self.switch_out(cpu, t);
        self.trace_migrate(t, cpu, dest, why, cpu);
        self.w.check_preempt_wakeup(dest, t);
        self.w.resched(cpu);
    }

    /// `select_fallback_rq()`: the first allowed CPU when the choice is not allowed.
    fn fallback(&self, t: TaskId, cpu: usize) -> usize {
        let allowed = self.w.tasks[t].allowed;
        if allowed.test(cpu) {
            cpu
        } else {
            allowed.first().unwrap_or(cpu)
        }
    }

    /// `try_to_wake_up()`; `waker` is the task (and its CPU) that wakes `p`, None for a timer.
    pub(super) fn try_to_wake_up(&mut self, p: TaskId, waker: Option<(TaskId, usize)>, sync: bool) {
        if self.w.tasks[p].state == TaskState::Runnable
            || self.w.tasks[p].state == TaskState::Exited
        {
            return;
        }
        self.w.counters.wakeups += 1;
        let prev = self.w.tasks[p].cpu;
        self.trace_waking(p, waker.map_or(prev, |(_, c)| c));
        // try_to_wake_up(): the task leaves its old rq's nr_iowait before it is placed.
        if self.w.tasks[p].in_iowait {
            let c = self.w.tasks[p].iowait_cpu;
            self.w.nr_iowait[c] = self.w.nr_iowait[c].saturating_sub(1);
        }
        // ttwu_runnable() (v6.12+ DELAY_DEQUEUE): still queued, it wakes where it is.
        if self.w.tasks[p].sched_delayed {
            self.w.requeue_delayed_entity(prev, p);
            self.trace_wakeup(p, prev, false);
            if self.w.rqs[prev].curr != Some(p) {
                self.w.check_preempt_wakeup(prev, p);
            }
            self.w.tasks[p].in_iowait = false;
            self.freq_update(prev, 0);
            return;
        }
        // A timer fires on the CPU the task slept on.
        let (wk, wcpu) = match waker {
            Some((wk, wcpu)) => (Some(wk), wcpu),
            None => (None, prev),
        };
        let (target, _) = self
            .w
            .select_task_rq_fair(p, wk, wcpu, WakeKind::Wakeup { sync });
        let target = self.fallback(p, target);
        let migrated = target != prev;
        if migrated {
            self.w.update_load_avg(prev, Some(p));
            self.w.detach_entity_load_avg(prev, p);
            self.switch_out(prev, p);
            // set_task_cpu() runs on the waking CPU (a timer's: the CPU it fires on).
            self.trace_migrate(p, prev, target, MigrateReason::Wakeup, wcpu);
        }
        self.w.enqueue_task(target, p, Enqueue::Wakeup { migrated });
        self.w.ttwu_update_avg_idle(target);
        self.trace_wakeup(p, target, false);
        self.lat.woken(p, self.w.now);
        self.w.check_preempt_wakeup(target, p);
        // enqueue_task_fair(): "If in_iowait is set, the code below may not trigger any cpufreq
        // utilization updates, so do it here explicitly with the IOWAIT flag passed."
        let flags = if std::mem::take(&mut self.w.tasks[p].in_iowait) {
            SCHED_CPUFREQ_IOWAIT
        } else {
            0
        };
        self.freq_update(target, flags);
    }
}
