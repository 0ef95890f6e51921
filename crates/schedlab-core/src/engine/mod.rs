//! The discrete-event loop: integer nanoseconds, one event queue ordered by (time, sequence number)
//! so ties resolve in insertion order, one seeded RNG per run. It interprets the workload's programs
//! and calls into [`crate::sched`] for every scheduling decision; it is the only code that advances
//! simulated time.
//!
//! Work progress: the running task of each CPU does `rate` work units per ns, where the rate follows
//! the workload's speed on the CPU's core type (`capacity_orig` unless the workload has its own,
//! [`crate::workload::speed`]), frequency and busy SMT siblings (the core's contention or the
//! workload's own, [`crate::workload::speed::Rates::work_rate`]). Whenever a rate changes, the
//! progress so far is accounted and the CPU's completion event is re-armed; stale events are
//! recognised by a per-CPU generation number (`speed`). Wake-ups and forks are placed in `wake`, the
//! ops are interpreted in `ops`, and the events are packed as `event` says.
//!
//! Sources of run-to-run variation, all drawn from the run's RNG: the order in which the CPUs last
//! went idle before the run (`idle_stamp`, see `draw_idle_history`), the CPU the first task starts
//! on (the shell's CPU), and per-execution jitter of `Run` ops (start-up work, event work).

use crate::cpumask::CpuMask;
use crate::error::{Error, Result};
use crate::rng::Rng;
use crate::sched::balance::CpuIdleType;
use crate::sched::rq::Enqueue;
use crate::sched::{Task, TaskId, TaskState, World};
use crate::trace::{Counters, MigrateReason, TraceEvent};
use crate::units::{Nanos, NSEC_PER_SEC, NSEC_PER_USEC};
use crate::workload::{Instance, Metric};
use event::{Ev, EvKind, MAX_EVENT_SEQ, MAX_EVENT_TASKS};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

#[cfg(test)]
mod delayed_tests;
mod event;
mod history;
#[cfg(test)]
mod latency_tests;
mod ops;
mod queue;
mod speed;
#[cfg(test)]
mod tests;
mod tracepoints;
mod verify;
mod wake;

/// A socket or pipe: a byte buffer with the tasks waiting to read and to write.
#[derive(Clone, Debug, Default)]
struct Channel {
    capacity: u64,
    buffered: u64,
    readers: VecDeque<TaskId>,
    writers: VecDeque<TaskId>,
}

/// Bounds that keep a run finite and a page responsive; exceeding one is an error, not a hang.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Simulated seconds.
    pub max_sim_seconds: u64,
    /// Events processed by the loop.
    pub max_events: u64,
    /// Tasks created.
    pub max_tasks: usize,
}

impl Limits {
    /// These limits, none above `max`'s: what a page runs a scenario from a link with, so that a
    /// link cannot make a visitor's browser simulate for hours.
    pub fn at_most(self, max: Limits) -> Limits {
        Limits {
            max_sim_seconds: self.max_sim_seconds.min(max.max_sim_seconds),
            max_events: self.max_events.min(max.max_events),
            max_tasks: self.max_tasks.min(max.max_tasks),
        }
    }

    /// The limits set above `max`'s, as `name value (max)` phrases, for telling a user which of
    /// a scenario's limits were lowered.
    pub fn above(&self, max: &Limits) -> Vec<String> {
        let mut out = Vec::new();
        for (name, v, m) in [
            ("max_sim_seconds", self.max_sim_seconds, max.max_sim_seconds),
            ("max_events", self.max_events, max.max_events),
            ("max_tasks", self.max_tasks as u64, max.max_tasks as u64),
        ] {
            if v > m {
                out.push(format!("{name} {v} (at most {m})"));
            }
        }
        out
    }
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_sim_seconds: 600,
            max_events: 50_000_000,
            max_tasks: 20_000,
        }
    }
}

/// What one run produced.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOutcome {
    pub value: f64,
    pub sim_ns: Nanos,
    /// Sum over CPUs of the time something ran.
    pub busy_cpu_ns: u64,
    /// Package energy (cores and the clusters' shared domains, all packages) over the measured
    /// interval (from the workload's start mark to its end mark or the run's end), joules (see
    /// [`crate::power`]).
    pub energy_j: f64,
    /// Length of that interval, ns.
    pub energy_ns: Nanos,
    /// The average frequency of the CPUs while busy over that interval, MHz: turbostat's
    /// `Bzy_MHz` (base x APERF / MPERF), summed over all CPUs' busy time; 0 when nothing ran.
    pub busy_mhz: f64,
    pub events: u64,
    pub counters: Counters,
    pub trace: Option<Vec<TraceEvent>>,
    /// The decision log, when traced.
    pub decisions: Option<Vec<crate::sched::log::Decision>>,
    /// The program each task ran, by task id.
    pub task_programs: Vec<usize>,
    /// Scheduling latencies per task name and the workload's own latency samples.
    pub latency: crate::latency::LatencyReport,
}

/// Latency of the nohz kick IPI.
const ILB_IPI_NS: Nanos = 2 * NSEC_PER_USEC;
/// The most zero-time ops a task may execute in a row (a program looping without `Run`).
const MAX_OPS_WITHOUT_WORK: u32 = 100_000;
/// The most reschedules and active balances handled at one instant (see `Engine::drain`): far more
/// than any machine's CPUs could need (each CPU reschedules a few times per event at most).
const MAX_DRAIN_ROUNDS: u32 = 1_000_000;

pub struct Engine<'a> {
    w: World,
    inst: &'a Instance,
    pools: Vec<u64>,
    gate_open: Vec<bool>,
    gate_waiters: Vec<Vec<TaskId>>,
    waiting_children: Vec<bool>,
    queue: queue::EventQueue,
    seq: u64,
    rng: Rng,
    start: Option<Nanos>,
    end: Option<Nanos>,
    events_taken: u64,
    /// What each CPU was last seen running by [`Engine::schedule`] (curr may already be gone).
    running: Vec<Option<TaskId>>,
    /// `distribute_cpu_mask_prev`.
    distribute_prev: usize,
    /// Per task: its program's loop counters.
    loop_counts: Vec<Vec<u64>>,
    /// Per task: the current run op is wall-clock time (`RunFor`), not work.
    fixed_rate: Vec<bool>,
    /// Per task: the op at its pc is a `Run`/`RunFor` that has started.
    in_run: Vec<bool>,
    /// Per task: rt-app's `t_first`, where the timers it first uses start: the run's start
    /// (`t_zero`), moved by an [`Op::Delay`].
    t_first: Vec<Nanos>,
    timer_next: Vec<Option<Nanos>>,
    barrier_waiters: Vec<Vec<TaskId>>,
    mutex_owner: Vec<Option<TaskId>>,
    mutex_waiters: Vec<VecDeque<TaskId>>,
    cond_waiters: Vec<VecDeque<TaskId>>,
    event_pending: Vec<u64>,
    event_waiters: Vec<VecDeque<TaskId>>,
    channels: Vec<Channel>,
    counted: u64,
    live_tasks: usize,
    limits: Limits,
    trace: Option<Vec<TraceEvent>>,
    error: Option<Error>,
    check_invariants: bool,
    /// Per CPU: the expiry times of the timers armed on it (sleeps, rt-app timers), earliest
    /// first; expired ones are dropped lazily. The menu governor's next-timer distance.
    timers: Vec<BinaryHeap<Reverse<Nanos>>>,
    /// CPUs woken out of an idle state and still paying its exit latency.
    exiting: CpuMask,
    /// The energy meter's reading at the start mark and at the end mark, joules.
    energy_at_start: f64,
    energy_at_end: Option<f64>,
    /// APERF/MPERF totals of all CPUs at the start and end marks ([`World::aperf_mperf_totals`]).
    aperf_at_start: (u128, u64),
    aperf_at_end: Option<(u128, u64)>,
    /// Wake-up latency and runqueue wait of every task ([`crate::latency`]).
    pub(super) lat: crate::latency::Recorder,
}

impl<'a> Engine<'a> {
    pub fn new(
        mut world: World,
        inst: &'a Instance,
        seed: u64,
        limits: Limits,
        trace: bool,
    ) -> Engine<'a> {
        if trace {
            world.log = Some(Vec::new());
            world.balance_moves = Some(Vec::new());
        }
        let n = world.nr_cpus();
        Engine {
            pools: inst.pools.clone(),
            gate_open: vec![false; inst.gates],
            gate_waiters: vec![Vec::new(); inst.gates],
            waiting_children: Vec::new(),
            queue: queue::EventQueue::new(n, 4 * n + 64),
            seq: 0,
            rng: Rng::new(seed),
            start: None,
            end: None,
            events_taken: 0,
            running: vec![None; n],
            distribute_prev: n - 1,
            loop_counts: Vec::new(),
            fixed_rate: Vec::new(),
            in_run: Vec::new(),
            t_first: Vec::new(),
            timer_next: vec![None; inst.timers],
            barrier_waiters: vec![Vec::new(); inst.barriers],
            mutex_owner: vec![None; inst.mutexes],
            mutex_waiters: vec![VecDeque::new(); inst.mutexes],
            cond_waiters: vec![VecDeque::new(); inst.conds],
            event_pending: vec![0; inst.events],
            event_waiters: vec![VecDeque::new(); inst.events],
            channels: inst
                .channels
                .iter()
                .map(|&capacity| Channel {
                    capacity,
                    ..Channel::default()
                })
                .collect(),
            counted: 0,
            live_tasks: 0,
            limits,
            trace: trace.then(Vec::new),
            error: None,
            check_invariants: false,
            timers: (0..n).map(|_| BinaryHeap::with_capacity(8)).collect(),
            exiting: CpuMask::EMPTY,
            energy_at_start: 0.0,
            energy_at_end: None,
            aperf_at_start: (0, 0),
            aperf_at_end: None,
            lat: crate::latency::Recorder::new(inst.programs.iter().map(|p| p.name.clone())),
            w: world,
            inst,
        }
    }

    /// Verify the world's invariants after every event (slow; for tests).
    pub fn with_invariant_checks(mut self) -> Self {
        self.check_invariants = true;
        self
    }

    /// Queues `kind` at `t` and returns its sequence number; a run that has queued more events
    /// than an event can number fails instead (and gets 0). Inlined, so that each call site
    /// builds its event's tag from a known kind; the queue's own push is one function.
    #[inline(always)]
    fn push(&mut self, t: Nanos, kind: EvKind) -> u64 {
        if self.seq + 1 >= MAX_EVENT_SEQ {
            return self.too_many_events();
        }
        self.seq += 1;
        let ev = Ev::new(t, self.seq, kind);
        match kind {
            EvKind::Tick(_) => self.queue.push_lane(queue::Lane::Tick, ev),
            EvKind::Ilb(_) => self.queue.push_lane(queue::Lane::Ilb, ev),
            EvKind::RunDone(_) | EvKind::Wake(_) | EvKind::IdleExit(_) => self.queue.push(ev),
        }
        self.seq
    }

    #[cold]
    #[inline(never)]
    fn too_many_events(&mut self) -> u64 {
        self.fail(Error::Limit(format!(
            "more than {} events queued",
            MAX_EVENT_SEQ - 1
        )));
        0
    }

    fn fail(&mut self, e: Error) {
        if self.error.is_none() {
            self.error = Some(e);
        }
    }

    fn new_task(&mut self, program: usize, cpu: usize, parent: Option<TaskId>) -> Option<TaskId> {
        // Also no more than an event can name (two million).
        let max_tasks = self.limits.max_tasks.min(MAX_EVENT_TASKS);
        if self.w.tasks.len() >= max_tasks {
            self.fail(Error::Limit(format!("more than {max_tasks} tasks")));
            return None;
        }
        let id = self.w.tasks.len();
        let allowed = match parent {
            Some(p) => self.w.tasks[p].allowed,
            None => self.inst.taskset.unwrap_or_else(|| self.w.topo.all_cpus()),
        };
        self.w
            .tasks
            .push(Task::new(id, cpu, allowed, program, parent, self.w.now));
        self.waiting_children.push(false);
        self.loop_counts
            .push(vec![0; self.inst.programs[program].loop_slots]);
        self.fixed_rate.push(false);
        self.in_run.push(false);
        self.t_first.push(0);
        self.lat.new_task(program);
        self.live_tasks += 1;
        if let Some(p) = parent {
            self.w.tasks[p].live_children += 1;
            // uclamp_fork(): the child keeps its parent's requests (no sched_reset_on_fork).
            self.w.tasks[id].uclamp.req = self.w.tasks[p].uclamp.req;
        }
        Some(id)
    }

    /// Runs the workload to completion. The first tasks start on random CPUs.
    ///
    /// Three functions, not one: the event loop alone is what runs hot. Set-up and the outcome
    /// are kept out of it (`#[inline(never)]`) so that the loop is a function of its own size;
    /// in the browser that is what V8 compiles again, optimised, once it is hot, and a loop
    /// with everything around it inlined took a quarter to half a second to compile, while
    /// the runs waited on baseline code (measured on a cold page on 2 cores).
    pub fn run(mut self) -> Result<RunOutcome> {
        self.start();
        let events = self.event_loop()?;
        self.outcome(events)
    }

    /// The run's beginning: the governors' first look, the idle history, the first tasks.
    #[inline(never)]
    fn start(&mut self) {
        let n = self.w.nr_cpus();
        self.trace_start();
        for cpu in 0..n {
            if let Some(fd) = self.w.cpufreq_update(cpu, 0) {
                self.trace_freq(fd);
            }
        }
        self.draw_idle_history();
        // The shell's CPU: uniform over the CPUs the workload may use (`taskset`).
        let start_mask = self
            .inst
            .taskset
            .unwrap_or_else(|| self.w.topo.all_cpus())
            .and(&self.w.topo.all_cpus());
        let start_cpus = start_mask.weight().max(1) as u64;
        for i in 0..self.inst.initial.len() {
            let k = self.rng.below(start_cpus) as usize;
            let cpu = start_mask.iter().nth(k).unwrap_or(0);
            let Some(t) = self.new_task(self.inst.initial[i], cpu, None) else {
                break;
            };
            self.w.task_fork_fair(cpu, t, None);
            self.w.enqueue_task(cpu, t, Enqueue::New);
            self.w.check_preempt_wakeup(cpu, t);
            self.trace_wakeup(t, cpu, true);
            self.lat.woken(t, self.w.now);
        }
        self.drain();
    }

    /// Events in (time, sequence) order until the tasks are done, the run's stop time, an
    /// error or a limit; returns how many there were.
    #[inline(never)]
    fn event_loop(&mut self) -> Result<u64> {
        let max_ns = self.limits.max_sim_seconds.saturating_mul(NSEC_PER_SEC);
        let mut events = 0u64;
        while self.live_tasks > 0 && self.error.is_none() {
            let Some(ev) = self.queue.pop() else {
                // Everyone is blocked: a run with a duration simply ends then (rt-app does), if
                // the duration is within the limit.
                if let Some(stop) = self.inst.stop_at {
                    if stop > max_ns {
                        return Err(self.past_time_limit());
                    }
                    self.w.now = stop.max(self.w.now);
                    break;
                }
                return Err(Error::Scenario(
                    "the workload deadlocked: tasks are blocked and nothing will wake them".into(),
                ));
            };
            if ev.t < self.w.now {
                return Err(Error::Scenario(format!(
                    "invariant: time went backwards from {} to {}",
                    self.w.now, ev.t
                )));
            }
            // The stop time first: a run whose duration equals the limit ends at its duration.
            if let Some(stop) = self
                .inst
                .stop_at
                .filter(|&stop| ev.t > stop && stop <= max_ns)
            {
                self.w.now = stop;
                break;
            }
            if ev.t > max_ns {
                return Err(self.past_time_limit());
            }
            self.w.now = ev.t;
            events += 1;
            if events > self.limits.max_events {
                return Err(Error::Limit(format!(
                    "more than {} simulation events",
                    self.limits.max_events
                )));
            }
            match ev.kind() {
                EvKind::RunDone(cpu) => {
                    if self.w.rqs[cpu].run_done_seq == ev.seq() && self.w.rqs[cpu].curr.is_some() {
                        self.run_done(cpu);
                    }
                }
                EvKind::Tick(cpu) => self.tick(cpu),
                EvKind::Wake(t) => self.try_to_wake_up(t, None, false),
                EvKind::Ilb(cpu) => {
                    self.w.nohz_idle_balance(cpu);
                    self.trace_balance_moves(cpu);
                }
                EvKind::IdleExit(cpu) => {
                    self.exiting.clear(cpu);
                    self.w.resched(cpu);
                }
            }
            // Most events leave nothing pending: skip the drain loop's set-up then.
            if !self.w.pending_active.is_empty() || !self.w.need_resched.is_empty() {
                self.drain();
            }
            // An event the engine aborted (`fail`) leaves a half-done state behind: its error is
            // the run's outcome, and checking the state would only report that half.
            if self.check_invariants && self.error.is_none() {
                self.verify()?;
            }
        }
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(events),
        }
    }

    /// What the run produced, once its `events` are done.
    #[inline(never)]
    fn outcome(mut self, events: u64) -> Result<RunOutcome> {
        let n = self.w.nr_cpus();
        self.flush_signals();
        let busy_cpu_ns: u64 = (0..n).map(|c| self.w.busy_ns_until_now(c)).sum();
        let now = self.w.now;
        let energy_total = self.w.energy.joules(now);
        // Without marks, the clock runs from the start to the end of the run.
        let elapsed = self
            .end
            .unwrap_or(self.w.now)
            .saturating_sub(self.start.unwrap_or(0));
        let energy_j = (self.energy_at_end.unwrap_or(energy_total) - self.energy_at_start).max(0.0);
        let aperf_total = self.w.aperf_mperf_totals();
        let (aperf, mperf) = self.aperf_at_end.unwrap_or(aperf_total);
        let (aperf, mperf) = (aperf - self.aperf_at_start.0, mperf - self.aperf_at_start.1);
        let busy_mhz = if mperf == 0 {
            0.0
        } else {
            aperf as f64 / mperf as f64 / 1000.0
        };
        let per_second = |count: u64| {
            if elapsed == 0 {
                0.0
            } else {
                count as f64 * NSEC_PER_SEC as f64 / elapsed as f64
            }
        };
        let value = match self.inst.metric {
            Metric::ElapsedSeconds => {
                if self.start.is_none() || (self.end.is_none() && self.inst.stop_at.is_none()) {
                    return Err(Error::Workload(
                        "the workload never started or stopped its clock".into(),
                    ));
                }
                elapsed as f64 / NSEC_PER_SEC as f64
            }
            Metric::Events => self.events_taken as f64,
            Metric::RecordsPerSecond => per_second(self.counted),
            Metric::MegabytesPerSecond => per_second(self.counted) / 1e6,
            Metric::Count => self.counted as f64,
            Metric::WakeupLatency(p) | Metric::RequestLatency(p) => {
                let r = self.lat.report();
                let (h, what) = match self.inst.metric {
                    Metric::WakeupLatency(_) => (&r.wakeup, "wake-up"),
                    _ => (&r.request, "request"),
                };
                match h.percentile(p) {
                    Some(ns) => ns as f64 / 1e3,
                    None => {
                        return Err(Error::Workload(format!(
                            "the workload recorded no {what} latency samples"
                        )))
                    }
                }
            }
        };
        Ok(RunOutcome {
            value,
            sim_ns: self.w.now,
            busy_cpu_ns,
            energy_j,
            energy_ns: elapsed,
            busy_mhz,
            events,
            counters: self.w.counters.clone(),
            trace: self.trace,
            decisions: self.w.log.take(),
            task_programs: self.w.tasks.iter().map(|t| t.program).collect(),
            latency: self.lat.into_report(),
        })
    }

    fn past_time_limit(&self) -> Error {
        Error::Limit(format!(
            "the run did not finish within {} simulated seconds (limits.max_sim_seconds)",
            self.limits.max_sim_seconds
        ))
    }

    /// Handle everything a step left pending: active balances, then reschedules. Each round does
    /// work or clears a request, but a workload can keep asking (tasks that wake each other without
    /// doing any work): past [`MAX_DRAIN_ROUNDS`] the run stops with an error rather than loop
    /// inside one instant of simulated time.
    fn drain(&mut self) {
        let mut rounds = 0u32;
        loop {
            rounds += 1;
            if rounds > MAX_DRAIN_ROUNDS {
                self.fail(Error::Workload(format!(
                    "the tasks keep rescheduling each other at {} ns without doing any work ({MAX_DRAIN_ROUNDS} \
                     reschedules in one instant): give the looping tasks some work (a run or sleep)",
                    self.w.now
                )));
                return;
            }
            if let Some((src, dst)) = self.w.pending_active.pop() {
                self.active_load_balance(src, dst);
                continue;
            }
            let Some(cpu) = self.w.need_resched.first() else {
                break;
            };
            self.w.need_resched.clear(cpu);
            // A CPU in an idle state first leaves it: the exit latency passes before it can
            // schedule (`IdleExit`); meanwhile its requests are that one.
            if self.exiting.test(cpu) {
                continue;
            }
            if self.w.rqs[cpu].curr.is_none() && self.w.in_idle_state(cpu) {
                let latency = self.w.cpuidle_exit(cpu);
                self.trace_idle(cpu, None);
                if latency > 0 {
                    self.exiting.set(cpu);
                    self.push(self.w.now + latency, EvKind::IdleExit(cpu));
                    continue;
                }
            }
            self.schedule(cpu);
            if self.error.is_some() {
                break;
            }
        }
    }

    /// `__schedule()`: pick the next task of `cpu`, running its zero-time ops until one has work to
    /// do or blocks; go idle (after a newly-idle balance) when nothing is left.
    ///
    /// The picked task is switched in before its zero-time ops run, as in the kernel, where a task
    /// woken to take a lock, signal or re-arm a timer is switched in, does that, and is switched
    /// out (`prev_state=S`, or `X` when it exits). Simplification: such an activation takes no
    /// time in the model, so the CPU's busy bookkeeping (power, turbo's active cores, `idle_stamp`,
    /// the PELT idle clock, the governor's idle update) sees a CPU that did no work as never having
    /// left idle; `running` (what ftrace shows) and `context_switches` do see it.
    fn schedule(&mut self, cpu: usize) {
        self.account(cpu);
        let mut picks = 0u32;
        loop {
            picks += 1;
            if picks > MAX_OPS_WITHOUT_WORK {
                self.fail(Error::Workload(
                    "tasks yield or block in a loop without doing any work".into(),
                ));
                return;
            }
            let next = if self.w.rqs[cpu].nr_running > 0 {
                self.w.pick_next_task(cpu)
            } else {
                None
            };
            let Some(t) = next else {
                let pulled = self.w.newidle_balance(cpu);
                self.trace_balance_moves(cpu);
                if pulled {
                    continue;
                }
                self.go_idle(cpu);
                return;
            };
            self.w.update_misfit_status(cpu);
            self.switch_to(cpu, Some(t));
            if self.w.tasks[t].work_left == 0 {
                self.w.rqs[cpu].last_account = self.w.now;
                self.step(cpu, t);
                if self.error.is_some() {
                    return;
                }
                // Blocked, exited, moved, or yielded: pick again. That pick is the `__schedule()`
                // the step asked for (`sched_yield()` and blocking call `schedule()` themselves), so
                // the request is satisfied here: left set, it would make `drain()` schedule this CPU
                // again for nothing, forever if the next pick yields again.
                if self.w.rqs[cpu].curr != Some(t) || self.w.tasks[t].work_left == 0 {
                    self.w.need_resched.clear(cpu);
                    continue;
                }
            }
            self.w.rqs[cpu].last_account = self.w.now;
            self.refresh_rate(cpu);
            if self.w.busy_since[cpu].is_none() {
                self.busy_changed(cpu);
            }
            if !self.w.rqs[cpu].tick_armed {
                self.w.rqs[cpu].tick_armed = true;
                let tick = self.w.tick_ns;
                let at = (self.w.now / tick + 1) * tick;
                self.push(at, EvKind::Tick(cpu));
            }
            self.freq_update(cpu, 0);
            return;
        }
    }

    /// `cpu` has nothing to run: it switches to idle, and if it was doing work its idle
    /// bookkeeping starts (see [`Engine::schedule`] for a zero-time activation).
    fn go_idle(&mut self, cpu: usize) {
        self.w.rqs[cpu].run_done_seq = 0;
        self.switch_to(cpu, None);
        if self.w.busy_since[cpu].is_some() {
            // rq->idle_stamp was set by newidle_balance(), just before.
            let rq = &mut self.w.rqs[cpu];
            let util_sum = rq.avg.util_sum;
            rq.clock_pelt.going_idle(util_sum);
            self.w.update_idle_core(cpu);
            self.w.nohz_balance_enter_idle(cpu);
            self.busy_changed(cpu);
            self.freq_update(cpu, 0);
        }
        let next_timer = self.next_timer(cpu);
        if let Some(state) = self.w.cpuidle_enter(cpu, next_timer) {
            self.trace_idle(cpu, Some(state));
        }
    }

    /// Arms a timer on `cpu` that wakes `t` at `at` (a sleep, an rt-app timer).
    pub(super) fn arm_timer(&mut self, t: TaskId, cpu: usize, at: Nanos) {
        self.drop_expired_timers(cpu);
        self.timers[cpu].push(Reverse(at));
        self.push(at, EvKind::Wake(t));
    }

    fn drop_expired_timers(&mut self, cpu: usize) {
        while let Some(&Reverse(at)) = self.timers[cpu].peek() {
            if at > self.w.now {
                break;
            }
            self.timers[cpu].pop();
        }
    }

    /// The expiry of the earliest pending timer of `cpu` (`tick_nohz_get_sleep_length()`'s next
    /// event, the tick being stopped), if any.
    fn next_timer(&mut self, cpu: usize) -> Option<Nanos> {
        self.drop_expired_timers(cpu);
        self.timers[cpu].peek().map(|&Reverse(at)| at)
    }

    /// The energy meter's reading now, joules (settles every domain: once per mark, not per
    /// event).
    pub(super) fn energy_now(&mut self) -> f64 {
        let now = self.w.now;
        self.w.energy.joules(now)
    }

    /// curr of `cpu` finished its `Run` op.
    fn run_done(&mut self, cpu: usize) {
        self.account(cpu);
        let t = self.w.rqs[cpu].curr.unwrap();
        self.w.tasks[t].work_left = 0;
        let was_fixed = self.fixed_rate[t];
        self.step(cpu, t);
        if was_fixed || self.fixed_rate[t] {
            // The next op's speed differs from this one's: recompute the rate.
            if self.w.rqs[cpu].curr == Some(t) && self.w.tasks[t].work_left > 0 {
                self.refresh_rate(cpu);
                return;
            }
        }
        if self.w.rqs[cpu].curr == Some(t) && self.w.tasks[t].work_left > 0 {
            // Same task, same CPU, same speed: only the completion time is new.
            self.arm_run_done(cpu);
        } else {
            self.w.resched(cpu);
        }
    }

    /// The running task `t` stops being runnable (`deactivate_task()`).
    fn block(&mut self, cpu: usize, t: TaskId, state: TaskState) {
        self.w.dequeue_task(cpu, t, false);
        self.w.tasks[t].state = state;
        self.w.resched(cpu);
    }

    fn exit(&mut self, cpu: usize, t: TaskId) {
        self.w.dequeue_task(cpu, t, true);
        self.w.tasks[t].state = TaskState::Exited;
        self.w.resched(cpu);
        self.live_tasks -= 1;
        if let Some(p) = self.w.tasks[t].parent {
            self.w.tasks[p].live_children -= 1;
            if self.w.tasks[p].live_children == 0 && self.waiting_children[p] {
                self.waiting_children[p] = false;
                self.try_to_wake_up(p, Some((t, cpu)), false);
            }
        }
    }

    /// `scheduler_tick()` on a busy CPU; an idle CPU stops its tick (NO_HZ_IDLE). Out of the
    /// event loop's body (see [`Engine::run`]): a call is nothing beside a tick's work.
    #[inline(never)]
    fn tick(&mut self, cpu: usize) {
        if self.w.rqs[cpu].curr.is_none() {
            self.w.rqs[cpu].tick_armed = false;
            return;
        }
        self.w.counters.ticks += 1;
        // scheduler_tick(): arch_scale_freq_tick() first, so this tick's PELT update scales by it.
        self.w.arch_scale_freq_tick(cpu);
        self.account(cpu);
        self.w.update_curr(cpu);
        let curr = self.w.rqs[cpu].curr;
        self.w.update_load_avg(cpu, curr);
        self.w.check_preempt_tick(cpu);
        self.w.update_misfit_status(cpu);
        // task_tick_fair(): update_overutilized_status() (v5.0+).
        self.w.update_overutilized_status(cpu);
        self.freq_update(cpu, 0);
        // trigger_load_balance()
        if self.w.jiffies() >= self.w.rqs[cpu].next_balance {
            self.w.rebalance_domains(cpu, CpuIdleType::NotIdle);
            self.trace_balance_moves(cpu);
        }
        if let Some(ilb) = self.w.nohz_balancer_kick(cpu) {
            self.push(self.w.now + ILB_IPI_NS, EvKind::Ilb(ilb));
        }
        let tick = self.w.tick_ns;
        self.push(self.w.now + tick, EvKind::Tick(cpu));
    }

    /// `active_load_balance_cpu_stop()`: the stopper on `src` preempts its task and pushes one
    /// migratable task (from the tail of `cfs_tasks`) to `dst`, then resets the domain's
    /// `nr_balance_failed`.
    fn active_load_balance(&mut self, src: usize, dst: usize) {
        self.w.rqs[src].active_balance = false;
        if self.w.rqs[src].nr_running == 0 {
            return;
        }
        self.account(src);
        self.w.counters.active_balances += 1;
        // detach_one_task(): the first migratable task from the tail of cfs_tasks.
        let Some(p) = self.w.rqs[src]
            .cfs_tasks
            .iter()
            .rev()
            .copied()
            .find(|&p| self.w.tasks[p].allowed.test(dst))
        else {
            return;
        };
        let was_curr = self.w.rqs[src].curr == Some(p);
        self.w.dequeue_task(src, p, true);
        self.w.enqueue_task(dst, p, Enqueue::Migrated);
        // "Active balancing done, reset the failure counter" (v4.9-v6.8): of dst's lowest domain
        // spanning src.
        if let Some(level) = (0..self.w.sd.per_cpu[dst].len())
            .find(|&l| self.w.sd.domains[self.w.sd.per_cpu[dst][l]].span.test(src))
        {
            self.w.sd_state_mut(dst, level).nr_balance_failed = 0;
        }
        // The stopper preempted p on src, then moves it from there.
        self.switch_out(src, p);
        self.trace_migrate(p, src, dst, MigrateReason::ActiveBalance, src);
        self.w.check_preempt_wakeup(dst, p);
        if was_curr {
            self.w.resched(src);
        }
    }
}
