//! The interpreter of workload programs: what each [`Op`] does to the task running it and to the
//! shared objects (gates, barriers, mutexes, conditions, events, channels, timers).

use super::{Engine, EvKind, MAX_OPS_WITHOUT_WORK};
use crate::error::Error;
use crate::math64::saturating_mul_u64;
use crate::sched::{TaskId, TaskState};
use crate::trace::MigrateReason;
use crate::units::WORK_SCALE;
use crate::workload::Op;

/// Time a `sched_yield()` system call takes, ns: **[assumed]** 1 us, the order of a syscall round
/// trip with a schedule() on the cores modelled (entry and exit, `yield_task_fair()`, the pick),
/// the same on every core and frequency.
pub const SCHED_YIELD_NS: u64 = 1_000;

impl<'a> Engine<'a> {
    /// Executes `t`'s program (running on `cpu`) from its pc until a `Run` gives it work or it
    /// blocks or exits.
    pub(super) fn step(&mut self, cpu: usize, t: TaskId) {
        // The program counter lives in a local while the ops run (nothing else reads it).
        let pc = self.w.tasks[t].pc;
        self.w.tasks[t].pc = self.run_ops(cpu, t, pc);
    }

    /// The interpreter's loop. The ops every request of a benchmark goes through (a run op, a
    /// loop, a jump, an event taken from a pool, a count, a channel's message) are done here; the
    /// others, each of which blocks, wakes or changes state elsewhere, are in
    /// [`Engine::other_op`], out of line, so that this loop keeps its few values in registers
    /// (with every op in it, the compiler set up values for all of them on each call: ~50
    /// instructions a call, a quarter of its cost).
    fn run_ops(&mut self, cpu: usize, t: TaskId, mut pc: usize) -> usize {
        let prog = self.w.tasks[t].program;
        // The instance outlives the engine: its ops are read without re-indexing per op.
        let inst: &'a crate::workload::Instance = self.inst;
        let ops = &inst.programs[prog].ops[..];
        let mut budget = MAX_OPS_WITHOUT_WORK;
        loop {
            budget -= 1;
            if budget == 0 {
                self.loops_without_work(prog);
                return pc;
            }
            let Some(op) = ops.get(pc) else {
                self.exit(cpu, t);
                return pc;
            };
            match *op {
                // A run op that has started and has no work left is done, whether its completion
                // event fired or a reschedule at the same instant got there first.
                Op::Run { .. } | Op::RunFor(_) if self.in_run[t] => {
                    self.in_run[t] = false;
                    self.fixed_rate[t] = false;
                    pc += 1;
                }
                Op::Run { work, jitter_ppm } => {
                    let w = self.jitter(work, jitter_ppm);
                    self.w.tasks[t].work_left = w.max(1);
                    self.in_run[t] = true;
                    return pc;
                }
                Op::RunFor(ns) => {
                    self.w.tasks[t].work_left = saturating_mul_u64(ns.max(1), WORK_SCALE);
                    self.fixed_rate[t] = true;
                    self.in_run[t] = true;
                    return pc;
                }
                Op::Repeat { slot, times, to } => {
                    let c = &mut self.loop_counts[t][slot];
                    *c += 1;
                    if times == 0 || *c < times {
                        pc = to;
                    } else {
                        *c = 0;
                        pc += 1;
                    }
                }
                Op::Jump(to) => pc = to,
                Op::TakeEvent { pool, exhausted } => {
                    let past_deadline = match (self.inst.deadline_after_start, self.start) {
                        (Some(d), Some(s)) => self.w.now >= s + d,
                        _ => false,
                    };
                    if self.pools[pool] > 0 && !past_deadline {
                        self.pools[pool] -= 1;
                        self.events_taken += 1;
                        pc += 1;
                    } else {
                        pc = exhausted;
                    }
                }
                Op::ResetCount => {
                    self.counted = 0;
                    pc += 1;
                }
                Op::Count(n) => {
                    self.counted = self.counted.saturating_add(n);
                    pc += 1;
                }
                // A channel's message (hackbench, tbench): the blocking halves are out of line.
                Op::Send { chan, bytes } => {
                    let ch = &mut self.channels[chan];
                    if ch.buffered + bytes > ch.capacity {
                        self.wait_on_channel(cpu, t, chan, true);
                        return pc;
                    }
                    ch.buffered += bytes;
                    pc += 1;
                    if let Some(r) = self.channels[chan].readers.pop_front() {
                        self.try_to_wake_up(r, Some((t, cpu)), true);
                    }
                }
                Op::Recv { chan, bytes } => {
                    let ch = &mut self.channels[chan];
                    if ch.buffered < bytes {
                        self.wait_on_channel(cpu, t, chan, false);
                        return pc;
                    }
                    ch.buffered -= bytes;
                    pc += 1;
                    if let Some(wr) = self.channels[chan].writers.pop_front() {
                        self.try_to_wake_up(wr, Some((t, cpu)), true);
                    }
                }
                _ => {
                    let stop;
                    (pc, stop) = self.other_op(cpu, t, prog, pc, op);
                    if stop {
                        return pc;
                    }
                }
            }
        }
    }

    /// `t` blocks on channel `chan`: as a writer when it is full, else as a reader when it is
    /// empty (out of [`Engine::run_ops`]'s loop: its blocking path is long).
    #[inline(never)]
    fn wait_on_channel(&mut self, cpu: usize, t: TaskId, chan: usize, writer: bool) {
        self.block(cpu, t, TaskState::Blocked);
        let ch = &mut self.channels[chan];
        if writer {
            ch.writers.push_back(t);
        } else {
            ch.readers.push_back(t);
        }
    }

    #[cold]
    #[inline(never)]
    fn loops_without_work(&mut self, prog: usize) {
        let name = self.inst.programs[prog].name.clone();
        self.fail(Error::Workload(format!(
            "program '{name}' loops without doing any work"
        )));
    }

    /// Does `op`, one of the ops [`Engine::run_ops`] leaves out of its loop, for `t` at `pc`.
    /// Returns the next pc, and whether `t` stops running its program here (it blocked, exited,
    /// moved, or the run failed). The pc goes in and out by value so that `run_ops` keeps its own
    /// in a register: a pc whose address is passed to a call lives in memory all through the loop.
    #[inline(never)]
    fn other_op(
        &mut self,
        cpu: usize,
        t: TaskId,
        prog: usize,
        pc: usize,
        op: &Op,
    ) -> (usize, bool) {
        let mut pc = pc;
        let stop = self.other_op_at(cpu, t, prog, &mut pc, op);
        (pc, stop)
    }

    /// [`Engine::other_op`]'s body, with the pc in a local.
    #[inline(always)]
    fn other_op_at(&mut self, cpu: usize, t: TaskId, prog: usize, pc: &mut usize, op: &Op) -> bool {
        match *op {
            Op::Run { .. }
            | Op::RunFor(_)
            | Op::Repeat { .. }
            | Op::Jump(_)
            | Op::TakeEvent { .. }
            | Op::ResetCount
            | Op::Count(_)
            | Op::Send { .. }
            | Op::Recv { .. } => unreachable!("run_ops() does {op:?} itself"),
            Op::Timer {
                timer,
                period,
                absolute,
            } => {
                let now = self.w.now;
                // A timer starts at its first user's t_first.
                let next = self.timer_next[timer]
                    .unwrap_or(self.t_first[t])
                    .saturating_add(period);
                self.timer_next[timer] = Some(next);
                *pc += 1;
                self.trace_rtapp_slack(t, next);
                if now < next {
                    self.block(cpu, t, TaskState::Sleeping);
                    self.arm_timer(t, cpu, next);
                    return true;
                }
                if !absolute {
                    self.timer_next[timer] = Some(now);
                }
            }
            Op::Barrier { id, parties } => {
                *pc += 1;
                if self.barrier_waiters[id].len() + 1 < parties as usize {
                    self.block(cpu, t, TaskState::Blocked);
                    self.barrier_waiters[id].push(t);
                    return true;
                }
                let waiters = std::mem::take(&mut self.barrier_waiters[id]);
                for &wt in &waiters {
                    self.try_to_wake_up(wt, Some((t, cpu)), false);
                }
                self.barrier_waiters[id] = waiters;
                self.barrier_waiters[id].clear();
            }
            Op::Lock(m) => match self.mutex_owner[m] {
                None => {
                    self.mutex_owner[m] = Some(t);
                    *pc += 1;
                }
                Some(owner) if owner == t => {
                    let name = self.inst.programs[prog].name.clone();
                    self.fail(Error::Workload(format!(
                        "program '{name}' locks mutex {m} twice"
                    )));
                    return true;
                }
                Some(_) => {
                    self.block(cpu, t, TaskState::Blocked);
                    self.mutex_waiters[m].push_back(t);
                    return true;
                }
            },
            Op::Unlock(m) => {
                *pc += 1;
                self.unlock(m, t, cpu);
            }
            Op::CondWait { cond, mutex } => {
                *pc += 1;
                self.unlock(mutex, t, cpu);
                self.block(cpu, t, TaskState::Blocked);
                self.cond_waiters[cond].push_back(t);
                return true;
            }
            Op::CondSignal(c) => {
                *pc += 1;
                if let Some(wt) = self.cond_waiters[c].pop_front() {
                    self.try_to_wake_up(wt, Some((t, cpu)), false);
                }
            }
            Op::CondBroadcast(c) => {
                *pc += 1;
                while let Some(wt) = self.cond_waiters[c].pop_front() {
                    self.try_to_wake_up(wt, Some((t, cpu)), false);
                }
            }
            Op::Suspend(e) => {
                if self.event_pending[e] > 0 {
                    self.event_pending[e] -= 1;
                    *pc += 1;
                } else {
                    self.block(cpu, t, TaskState::Blocked);
                    self.event_waiters[e].push_back(t);
                    return true;
                }
            }
            Op::Resume(e) => {
                *pc += 1;
                self.event_pending[e] += 1;
                if let Some(wt) = self.event_waiters[e].pop_front() {
                    self.try_to_wake_up(wt, Some((t, cpu)), false);
                }
            }
            // `sched_yield()` is a system call: its time is spent first (as a wall-clock run,
            // like `RunFor`), then `yield_task_fair()` and the pick. Without that time a task
            // yielding in a loop would never age, and once the other task is a wake-up
            // granularity ahead `pick_next_entity()` would pick the yielder again at the same
            // instant, forever.
            Op::Yield if self.in_run[t] => {
                self.in_run[t] = false;
                self.fixed_rate[t] = false;
                *pc += 1;
                self.w.yield_task(cpu);
                return true;
            }
            Op::Yield => {
                self.w.tasks[t].work_left = SCHED_YIELD_NS * WORK_SCALE;
                self.fixed_rate[t] = true;
                self.in_run[t] = true;
                return true;
            }
            Op::Delay(delay) => {
                *pc += 1;
                self.t_first[t] = delay;
                if self.w.now < delay {
                    self.block(cpu, t, TaskState::Sleeping);
                    self.arm_timer(t, cpu, delay);
                    return true;
                }
            }
            Op::IoSleep(ns) => {
                *pc += 1;
                self.w.tasks[t].in_iowait = true;
                // io_schedule_prepare(): the rq counts its I/O waiters.
                self.w.tasks[t].iowait_cpu = cpu;
                self.w.nr_iowait[cpu] += 1;
                self.block(cpu, t, TaskState::Sleeping);
                self.push(self.w.now + ns.max(1), EvKind::Wake(t));
                return true;
            }
            Op::Sleep(ns) => {
                *pc += 1;
                self.block(cpu, t, TaskState::Sleeping);
                self.arm_timer(t, cpu, self.w.now + ns.max(1));
                return true;
            }
            Op::WaitGate(g) => {
                *pc += 1;
                if !self.gate_open[g] {
                    self.block(cpu, t, TaskState::Blocked);
                    self.gate_waiters[g].push(t);
                    return true;
                }
            }
            Op::OpenGate(g) => {
                *pc += 1;
                self.gate_open[g] = true;
                let waiters = std::mem::take(&mut self.gate_waiters[g]);
                for wt in waiters {
                    self.try_to_wake_up(wt, Some((t, cpu)), false);
                }
            }
            Op::Fork(program) => {
                *pc += 1;
                self.wake_up_new_task(t, cpu, program);
                if self.error.is_some() {
                    return true;
                }
            }
            Op::Exec => {
                *pc += 1;
                if self.sched_exec(cpu, t) {
                    return true;
                }
            }
            Op::WaitChildren => {
                if self.w.tasks[t].live_children == 0 {
                    *pc += 1;
                } else {
                    self.waiting_children[t] = true;
                    self.block(cpu, t, TaskState::Blocked);
                    return true;
                }
            }
            Op::SetAffinity(ref mask) => {
                *pc += 1;
                let mask = mask.and(&self.w.topo.all_cpus());
                if mask.is_empty() {
                    let name = self.inst.programs[prog].name.clone();
                    self.fail(Error::Workload(format!(
                        "program '{name}' sets an affinity with no CPU of this machine"
                    )));
                    return true;
                }
                self.w.tasks[t].allowed = mask;
                if !mask.test(cpu) {
                    // cpumask_any_and_distribute(): the next allowed CPU after the last one chosen.
                    let dest = mask.iter_wrap(self.distribute_prev + 1).next().unwrap();
                    self.distribute_prev = dest;
                    // __set_cpus_allowed_ptr() on the running task: the stopper of its
                    // CPU preempts it and moves it.
                    self.stopper_move(cpu, t, dest, MigrateReason::Affinity);
                    return true;
                }
            }
            Op::SetNice(nice) => {
                self.w.set_nice(t, nice);
                *pc += 1;
            }
            Op::SetUclamp { min, max } => {
                if self.w.config.uclamp {
                    if !self.w.sched_setattr_uclamp(t, min, max) {
                        let name = self.inst.programs[prog].name.clone();
                        self.fail(Error::Workload(format!(
                            "program '{name}': sched_setattr() refuses util_min {min:?} / \
                                 util_max {max:?} (EINVAL: min above max or above 1024)"
                        )));
                        return true;
                    }
                    // The re-enqueue's cpufreq_update_util().
                    self.freq_update(cpu, 0);
                }
                *pc += 1;
            }
            Op::SetSlice(ns) => {
                self.w.set_custom_slice(t, ns);
                *pc += 1;
            }
            Op::WakeupSample => {
                self.lat.sample_wakeup(t);
                *pc += 1;
            }
            Op::RequestStart => {
                self.lat.request_start(t, self.w.now);
                *pc += 1;
            }
            Op::RequestEnd => {
                self.lat.request_end(t, self.w.now);
                *pc += 1;
            }
            Op::MarkStart => {
                self.start = Some(self.w.now);
                self.energy_at_start = self.energy_now();
                self.aperf_at_start = self.w.aperf_mperf_totals();
                *pc += 1;
            }
            Op::MarkEnd => {
                self.end = Some(self.w.now);
                self.energy_at_end = Some(self.energy_now());
                self.aperf_at_end = Some(self.w.aperf_mperf_totals());
                *pc += 1;
            }
            Op::Exit => {
                self.exit(cpu, t);
                return true;
            }
        }
        false
    }

    fn jitter(&mut self, work: u64, ppm: u32) -> u64 {
        if ppm == 0 {
            return work;
        }
        // work <= ~1e13 (validated workloads) and |r| <= 5e5, so the product fits in i64.
        let r = self.rng.below(2 * ppm as u64 + 1) as i64 - ppm as i64;
        (work as i64)
            .saturating_add(crate::math64::saturating_mul_i64(work as i64, r) / 1_000_000)
            .max(1) as u64
    }

    /// Release mutex `m` held by `t` and wake the first waiter, which retries its `Lock`.
    fn unlock(&mut self, m: usize, t: TaskId, cpu: usize) {
        if self.mutex_owner[m] == Some(t) {
            self.mutex_owner[m] = None;
            if let Some(wt) = self.mutex_waiters[m].pop_front() {
                self.try_to_wake_up(wt, Some((t, cpu)), false);
            }
        }
    }
}
