//! What the engine tells ftrace: `sched_switch` as each CPU's view of what it runs changes,
//! `sched_migrate_task` from the CPU doing the move, `sched_wakeup`, `cpu_frequency`. The events
//! go into the run's trace only when it is traced; the switches are counted either way.

use super::Engine;
use crate::sched::{TaskId, TaskState};
use crate::trace::{MigrateReason, PrevState, TraceEvent};

impl Engine<'_> {
    /// `context_switch()` as ftrace sees it: `cpu` switches from what it was running to `next`
    /// (None: idle), counted and traced; nothing when that is already what it runs.
    pub(super) fn switch_to(&mut self, cpu: usize, next: Option<TaskId>) {
        let prev = self.running[cpu];
        if prev != next {
            self.w.counters.context_switches += 1;
            self.trace_switch(cpu, prev, next);
            self.running[cpu] = next;
            if let Some(p) = prev {
                if self.w.tasks[p].state == TaskState::Runnable {
                    self.lat.preempted(p, self.w.now);
                }
            }
        }
        // Also when `next` was already shown running (woken before its CPU switched away from
        // it): its wake-up latency is then 0.
        if let Some(n) = next {
            self.lat.switched_in(n, self.w.now);
        }
    }

    /// `p` leaves `cpu` before `cpu` has picked its next task: the source CPU's stopper
    /// (`migration/N`, which `active_load_balance_cpu_stop()` and the affinity change's
    /// `migration_cpu_stop()` run on) preempts it, or it blocked and is woken elsewhere (the
    /// kernel's `try_to_wake_up()` waits for `p->on_cpu` to clear before it picks a CPU). Either
    /// way the kernel switches `p` out on `cpu` before `sched_migrate_task`, so that switch is
    /// made now, ahead of the move. Simplification: the stopper is not a task of the model, so
    /// `cpu` shows idle between `p` and whatever it runs next, for no time.
    pub(super) fn switch_out(&mut self, cpu: usize, p: TaskId) {
        if self.running[cpu] == Some(p) {
            self.switch_to(cpu, None);
        }
    }

    pub(super) fn trace_switch(&mut self, cpu: usize, prev: Option<TaskId>, next: Option<TaskId>) {
        if let Some(tr) = &mut self.trace {
            let prev_state = match prev.map(|p| self.w.tasks[p].state) {
                None => PrevState::Idle,
                Some(TaskState::Runnable) => PrevState::Preempted,
                Some(TaskState::Sleeping | TaskState::Blocked) => PrevState::Sleeping,
                Some(TaskState::Exited) => PrevState::Exited,
            };
            tr.push(TraceEvent::Switch {
                t: self.w.now,
                cpu,
                prev,
                prev_state,
                next,
            });
            // `sched_pelt_se` of the two tasks, as the switch's entity updates leave them.
            for task in [prev, next].into_iter().flatten() {
                let se = &self.w.tasks[task];
                if se.state != TaskState::Exited {
                    tr.push(TraceEvent::PeltSe {
                        t: self.w.now,
                        cpu,
                        task,
                        util: se.avg.util_avg,
                        load: se.avg.load_avg,
                    });
                }
            }
        }
    }
    /// rt-app's slack of an activation: the timer's next expiry `next` minus now.
    pub(super) fn trace_rtapp_slack(&mut self, task: TaskId, next: u64) {
        if let Some(tr) = &mut self.trace {
            let now = self.w.now;
            tr.push(TraceEvent::RtappSlack {
                t: now,
                task,
                slack_ns: next as i64 - now as i64,
            });
        }
    }
    pub(super) fn trace_wakeup(&mut self, task: TaskId, cpu: usize, new: bool) {
        if let Some(tr) = &mut self.trace {
            tr.push(TraceEvent::Wakeup {
                t: self.w.now,
                task,
                cpu,
                new,
            });
        }
    }
    /// `sched_migrate_task`, printed by `cpu`, the CPU doing the move.
    pub(super) fn trace_migrate(
        &mut self,
        task: TaskId,
        from: usize,
        to: usize,
        reason: MigrateReason,
        cpu: usize,
    ) {
        if let Some(tr) = &mut self.trace {
            tr.push(TraceEvent::Migrate {
                t: self.w.now,
                cpu,
                task,
                from,
                to,
                reason,
            });
        }
    }
    /// `sched_migrate_task` for each task a balance pass moved (`World::move_task`), in the order
    /// moved and before anything the moves lead to, printed by `cpu`, the balancing CPU
    /// (`detach_tasks()` runs there; for a nohz idle balance, the idle-load-balancer). Fork placement
    /// fires none: the kernel sets a new task's CPU with `__set_task_cpu()`, which does not trace
    /// (v6.8 `wake_up_new_task()`).
    pub(super) fn trace_balance_moves(&mut self, cpu: usize) {
        let now = self.w.now;
        let (Some(moves), Some(tr)) = (&mut self.w.balance_moves, &mut self.trace) else {
            return;
        };
        tr.extend(moves.drain(..).map(|(task, from, to)| TraceEvent::Migrate {
            t: now,
            cpu,
            task,
            from,
            to,
            reason: MigrateReason::LoadBalance,
        }));
    }

    pub(super) fn trace_freq(&mut self, domain: usize) {
        if let Some(tr) = &mut self.trace {
            tr.push(TraceEvent::Frequency {
                t: self.w.now,
                domain,
                khz: self.w.clocks[domain].cur_khz,
            });
        }
    }
}
