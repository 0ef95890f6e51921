//! What the engine tells ftrace: `sched_switch` as each CPU's view of what it runs changes,
//! `sched_migrate_task` from the CPU doing the move, `sched_waking`, `sched_wakeup`,
//! `cpu_frequency`, `cpu_idle`. The events go into the run's trace only when it is traced; the
//! switches are counted either way. A run traced with signals also has the scheduler's own
//! tracepoints ([`crate::sched::tracepoints`]), which the world buffers and [`Engine::record`]
//! moves into the trace ahead of each engine event, so the trace stays in time order.

use super::Engine;
use crate::sched::{TaskId, TaskState};
use crate::trace::{MigrateReason, PrevState, TraceEvent, PWR_EVENT_EXIT};

impl Engine<'_> {
    /// Record the scheduler's own tracepoints (PELT, util_est, capacity, overutilized, energy)
    /// too: the events of [`crate::sched::tracepoints`]. Only for a traced run.
    pub fn with_signals(mut self) -> Self {
        if self.trace.is_some() {
            self.w.signals = Some(Vec::new());
        }
        self
    }

    /// Appends `ev` to the trace, after the world's signal events so far.
    fn record(&mut self, ev: TraceEvent) {
        self.flush_signals();
        if let Some(tr) = &mut self.trace {
            tr.push(ev);
        }
    }

    /// Moves the world's buffered signal events into the trace.
    pub(super) fn flush_signals(&mut self) {
        if let (Some(sig), Some(tr)) = (&mut self.w.signals, &mut self.trace) {
            tr.append(sig);
        }
    }

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
        if self.trace.is_some() {
            let prev_state = match prev.map(|p| self.w.tasks[p].state) {
                None => PrevState::Idle,
                Some(TaskState::Runnable) => PrevState::Preempted,
                Some(TaskState::Sleeping | TaskState::Blocked) => PrevState::Sleeping,
                Some(TaskState::Exited) => PrevState::Exited,
            };
            self.record(TraceEvent::Switch {
                t: self.w.now,
                cpu,
                prev,
                prev_state,
                next,
            });
        }
    }
    /// rt-app's slack of an activation: the timer's next expiry `next` minus now.
    pub(super) fn trace_rtapp_slack(&mut self, task: TaskId, next: u64) {
        if self.trace.is_some() {
            let now = self.w.now;
            self.record(TraceEvent::RtappSlack {
                t: now,
                task,
                slack_ns: next as i64 - now as i64,
            });
        }
    }
    pub(super) fn trace_wakeup(&mut self, task: TaskId, cpu: usize, new: bool) {
        if self.trace.is_some() {
            self.record(TraceEvent::Wakeup {
                t: self.w.now,
                task,
                cpu,
                new,
            });
        }
    }
    /// `sched_waking`, at the start of `try_to_wake_up()` on `cpu`, the waking CPU.
    pub(super) fn trace_waking(&mut self, task: TaskId, cpu: usize) {
        if self.trace.is_some() {
            self.record(TraceEvent::Waking {
                t: self.w.now,
                cpu,
                task,
                target_cpu: self.w.tasks[task].cpu,
            });
        }
    }
    /// `cpu_idle` as `cpu` enters the idle state the governor picked (`state`: its index), or
    /// leaves it (`None`: `PWR_EVENT_EXIT`).
    pub(super) fn trace_idle(&mut self, cpu: usize, state: Option<usize>) {
        if self.trace.is_some() {
            self.record(TraceEvent::Idle {
                t: self.w.now,
                cpu,
                state: state.map_or(PWR_EVENT_EXIT, |s| s as u32),
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
        if self.trace.is_some() {
            self.record(TraceEvent::Migrate {
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
        self.flush_signals();
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

    /// `cpu_frequency` for the CPUs of `domain`, and with signals their capacities.
    pub(super) fn trace_freq(&mut self, domain: usize) {
        if self.trace.is_some() {
            self.record(TraceEvent::Frequency {
                t: self.w.now,
                domain,
                khz: self.w.clocks[domain].cur_khz,
            });
            if self.w.signals.is_some() {
                for cpu in self.w.topo.freq_domains[domain].cpus.iter() {
                    self.w.trace_cpu_capacity(cpu);
                }
            }
        }
    }

    /// The start of the run: the idle state each CPU is in (the machine was idle before), and
    /// with signals every CPU's capacities.
    pub(super) fn trace_start(&mut self) {
        for cpu in 0..self.w.nr_cpus() {
            if self.w.in_idle_state(cpu) {
                let state = self.w.idle.state[cpu] as usize - 1;
                self.trace_idle(cpu, Some(state));
            }
        }
        if self.w.signals.is_some() {
            for cpu in 0..self.w.nr_cpus() {
                self.w.trace_cpu_capacity(cpu);
            }
        }
    }
}
