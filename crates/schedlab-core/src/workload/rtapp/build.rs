//! Programs: the tasks read from the file as the model's [`Instance`], as rt-app runs them
//! (`src/rt-app.c`): the main thread forking one program per thread, each thread's phases and
//! events as [`Op`]s (`thread_body()`, `run_event()`), resources numbered per name space
//! (`get_resource_index()`) and barrier parties counted as rt-app counts them at parse time.

use super::read::{Calibration, Event, File};
use super::{err, MAX_THREADS};
use crate::error::Result;
use crate::topology::Topology;
use crate::units::{NSEC_PER_SEC, NSEC_PER_USEC, SCHED_CAPACITY_SCALE, WORK_SCALE};
use crate::workload::{Instance, Metric, Op, Program};
use std::collections::BTreeMap;

/// Names to ids, in order of first use.
#[derive(Default)]
struct Names(BTreeMap<String, usize>);

impl Names {
    fn id(&mut self, name: &str) -> usize {
        let n = self.0.len();
        *self.0.entry(name.to_string()).or_insert(n)
    }
    fn len(&self) -> usize {
        self.0.len()
    }
}

/// Executions of a loop body: `loops` times, or unbounded (`u64::MAX`) for 0 or less.
fn times(loops: i32) -> u64 {
    if loops > 0 {
        loops as u64
    } else {
        u64::MAX
    }
}

pub(super) struct Build<'a> {
    file: &'a File,
    topo: &'a Topology,
    mutexes: Names,
    conds: Names,
    barriers: Names,
    sems: Names,
    shared_timers: Names,
    /// Timers beyond the shared ones (unique and delay timers), numbered after them at the end.
    private_timers: usize,
    /// Parties of each barrier name (rt-app's count: per event, the task's instances).
    parties: BTreeMap<String, u32>,
    /// Shared timers some event declares absolute.
    absolute_shared: BTreeMap<String, bool>,
    /// Per task: its unique timers, and whether some event declares each absolute.
    absolute_unique: Vec<BTreeMap<String, bool>>,
    /// Program index of each task's fork template.
    templates: BTreeMap<String, usize>,
}

/// A timer op's timer until private timers are numbered after the shared ones.
enum TimerRef {
    Shared(usize),
    Private(usize),
}

/// A program whose `Timer` ops (at these pcs) still need their ids.
type Pending = (Program, Vec<(usize, TimerRef)>);

impl<'a> Build<'a> {
    pub(super) fn new(file: &'a File, topo: &'a Topology) -> Build<'a> {
        let mut parties = BTreeMap::new();
        let mut absolute_shared = BTreeMap::new();
        let mut absolute_unique = Vec::new();
        for t in &file.tasks {
            let mut uniq = BTreeMap::new();
            for e in t.phases.iter().flat_map(|p| &p.events) {
                match e {
                    Event::Barrier(b) => {
                        let c: &mut u32 = parties.entry(b.clone()).or_default();
                        *c = c.saturating_add(t.instances);
                    }
                    Event::Timer {
                        name,
                        unique,
                        absolute,
                        ..
                    } => {
                        let map = if *unique {
                            &mut uniq
                        } else {
                            &mut absolute_shared
                        };
                        let a: &mut bool = map.entry(name.clone()).or_default();
                        *a |= *absolute;
                    }
                    _ => {}
                }
            }
            absolute_unique.push(uniq);
        }
        Build {
            file,
            topo,
            mutexes: Names::default(),
            conds: Names::default(),
            barriers: Names::default(),
            sems: Names::default(),
            shared_timers: Names::default(),
            private_timers: 0,
            parties,
            absolute_shared,
            absolute_unique,
            templates: BTreeMap::new(),
        }
    }

    fn task(&self, name: &str) -> Option<usize> {
        self.file.tasks.iter().position(|t| t.name == name)
    }

    fn new_private_timer(&mut self) -> usize {
        self.private_timers += 1;
        self.private_timers - 1
    }

    /// Work of `run: us` (reference ns x WORK_SCALE).
    fn run_work(&self, us: u64) -> u64 {
        match self.file.calibration {
            Calibration::Cpu(cpu) => {
                us * NSEC_PER_USEC * self.topo.capacity_orig(cpu) * WORK_SCALE
                    / SCHED_CAPACITY_SCALE
            }
            Calibration::NsPerLoop(p) => {
                // loadwait(): whole seconds first, then the rest, each floored to whole loops.
                let loops = us / 1_000_000 * (NSEC_PER_SEC / p) + us % 1_000_000 * 1000 / p;
                loops * p * WORK_SCALE
            }
        }
    }

    /// For each task some event forks: how many times it may be forked (`u64::MAX`: unbounded).
    fn forks(&self) -> Result<BTreeMap<usize, u64>> {
        let file = self.file;
        let mut targets = BTreeMap::new();
        for t in &file.tasks {
            for e in t.phases.iter().flat_map(|p| &p.events) {
                if let Event::Fork(target) = e {
                    let Some(ti) = self.task(target) else {
                        let known: Vec<&str> = file.tasks.iter().map(|t| t.name.as_str()).collect();
                        return Err(err(format!(
                            "task '{}': \"fork\" names '{target}', which is not a task (tasks: {})",
                            t.name,
                            known.join(", ")
                        )));
                    };
                    targets.insert(ti, 0u64);
                }
            }
        }
        for (fi, t) in file.tasks.iter().enumerate() {
            for p in &t.phases {
                for e in &p.events {
                    if let Event::Fork(target) = e {
                        // A forked forker runs its fork events an unknown number of times.
                        let n = if targets.contains_key(&fi) {
                            u64::MAX
                        } else if t.loops == 0 {
                            0
                        } else {
                            (t.instances as u64)
                                .saturating_mul(times(t.loops))
                                .saturating_mul(times(p.loops))
                        };
                        let c = targets.get_mut(&self.task(target).unwrap()).unwrap();
                        *c = c.saturating_add(n);
                    }
                }
            }
        }
        Ok(targets)
    }

    pub(super) fn instance(mut self) -> Result<Instance> {
        let file = self.file;
        let nthreads: u64 = file.tasks.iter().map(|t| t.instances as u64).sum();
        if nthreads == 0 {
            return Err(err(
                "no thread starts: every task has \"instance\": 0 (such tasks only run when forked)",
            ));
        }
        if nthreads > MAX_THREADS as u64 {
            return Err(err(format!(
                "the file starts {nthreads} threads; at most {MAX_THREADS}"
            )));
        }
        let nthreads = nthreads as usize;
        let forked = self.forks()?;
        for (k, &ti) in forked.keys().enumerate() {
            self.templates
                .insert(file.tasks[ti].name.clone(), 1 + nthreads + k);
        }
        // rt-app's threads_barrier: threads created at start begin together.
        let start_barrier = self.barriers.id("\0start");
        let mut pending: Vec<Pending> = Vec::with_capacity(1 + nthreads + forked.len());
        let mut main = vec![Op::MarkStart];
        main.extend((1..=nthreads).map(Op::Fork));
        main.extend([Op::WaitChildren, Op::MarkEnd, Op::Exit]);
        pending.push((Program::new("rt-app", main), Vec::new()));
        let mut index = 0;
        for (ti, t) in file.tasks.iter().enumerate() {
            for _ in 0..t.instances {
                let name = format!("{}-{index}", t.name);
                pending.push(self.program(ti, name, Some((start_barrier, nthreads as u32)))?);
                index += 1;
            }
        }
        for (&ti, &n) in &forked {
            let t = &file.tasks[ti];
            if n > 1 && !self.absolute_unique[ti].is_empty() {
                return Err(err(format!(
                    "task '{}' uses a \"unique\" timer and may be forked more than once: rt-app \
                     gives each forked thread its own timer, the model gives a forked program one \
                     set of timers; fork it once, or use a named timer",
                    t.name
                )));
            }
            pending.push(self.program(ti, t.name.clone(), None)?);
        }
        // Private timers are numbered after the shared ones.
        let shared = self.shared_timers.len();
        let programs: Vec<Program> = pending
            .into_iter()
            .map(|(mut p, timer_ops)| {
                for (pc, tr) in timer_ops {
                    if let Op::Timer { timer, .. } = &mut p.ops[pc] {
                        *timer = match tr {
                            TimerRef::Shared(i) => i,
                            TimerRef::Private(i) => shared + i,
                        };
                    }
                }
                p
            })
            .collect();
        let metric = if file.duration_s.is_some() {
            Metric::Count
        } else {
            Metric::ElapsedSeconds
        };
        let mut inst = Instance::new(programs, vec![0], metric);
        inst.mutexes = self.mutexes.len();
        inst.conds = self.conds.len();
        inst.barriers = self.barriers.len();
        inst.events = self.sems.len();
        inst.timers = shared + self.private_timers;
        inst.stop_at = file.duration_s.map(|s| s.saturating_mul(NSEC_PER_SEC));
        Ok(inst)
    }

    /// The program of one thread of task `ti`; `start` is the start barrier of the threads rt-app
    /// creates at start, None for a fork template.
    fn program(&mut self, ti: usize, name: String, start: Option<(usize, u32)>) -> Result<Pending> {
        let file: &'a File = self.file;
        let t = &file.tasks[ti];
        let mut ops = Vec::new();
        let mut timer_ops: Vec<(usize, TimerRef)> = Vec::new();
        // This thread's unique timers.
        let mut unique: BTreeMap<String, usize> = BTreeMap::new();
        if let Some((id, parties)) = start {
            ops.push(Op::Barrier { id, parties });
        }
        let delay = t.delay_us * NSEC_PER_USEC;
        if delay > 0 {
            // rt-app sleeps until t_zero + delay (absolute), forked threads too, and the timers
            // the thread is first to use count from there.
            ops.push(Op::Delay(delay));
        }
        ops.push(Op::SetNice(t.nice));
        if t.slice > 0 {
            ops.push(Op::SetSlice(t.slice));
        }
        if t.uclamp != (None, None) {
            ops.push(Op::SetUclamp {
                min: t.uclamp.0,
                max: t.uclamp.1,
            });
        }
        let any_cpus = t.cpus.is_some() || t.phases.iter().any(|p| p.cpus.is_some());
        let mut slot = 0;
        let mut forever = t.loops < 0;
        if t.loops != 0 {
            let top = ops.len();
            for p in &t.phases {
                if any_cpus {
                    let mask = p.cpus.or(t.cpus).unwrap_or(self.topo.all_cpus());
                    ops.push(Op::affinity(mask));
                }
                if let Some(n) = p.nice {
                    ops.push(Op::SetNice(n));
                }
                if p.slice > 0 {
                    ops.push(Op::SetSlice(p.slice));
                }
                if p.uclamp != (None, None) {
                    ops.push(Op::SetUclamp {
                        min: p.uclamp.0,
                        max: p.uclamp.1,
                    });
                }
                let body = ops.len();
                for e in &p.events {
                    self.event(ti, e, &mut ops, &mut timer_ops, &mut unique)?;
                }
                // One row of rt-app's log per phase-loop iteration.
                ops.push(Op::Count(1));
                if p.loops != 1 {
                    forever |= p.loops <= 0;
                    ops.push(Op::Repeat {
                        slot,
                        times: p.loops.max(0) as u64,
                        to: body,
                    });
                    slot += 1;
                }
            }
            if t.loops != 1 {
                ops.push(Op::Repeat {
                    slot,
                    times: t.loops.max(0) as u64,
                    to: top,
                });
            }
        }
        ops.extend([Op::MarkEnd, Op::Exit]);
        if forever && self.file.duration_s.is_none() {
            return Err(err(format!(
                "task '{}' loops forever (a task \"loop\" of -1, the default with \"phases\", or a \
                 phase \"loop\" of 0 or less) and \"global\" sets no \"duration\": rt-app would run \
                 until killed; set a \"duration\" or finite loops",
                t.name
            )));
        }
        Ok((Program::new(name, ops), timer_ops))
    }

    fn event(
        &mut self,
        ti: usize,
        e: &Event,
        ops: &mut Vec<Op>,
        timer_ops: &mut Vec<(usize, TimerRef)>,
        unique: &mut BTreeMap<String, usize>,
    ) -> Result<()> {
        let file: &'a File = self.file;
        let task_name = &file.tasks[ti].name;
        let us = |v: u64| v * NSEC_PER_USEC;
        match e {
            Event::Run(v) => ops.push(Op::Run {
                work: self.run_work(*v),
                jitter_ppm: 0,
            }),
            Event::RunTime(v) => ops.push(Op::RunFor(us(*v))),
            Event::Sleep(v) => ops.push(Op::Sleep(us(*v))),
            Event::Timer {
                name,
                unique: is_unique,
                period_us,
                ..
            } => {
                let (tr, absolute) = if *is_unique {
                    let id = match unique.get(name) {
                        Some(&id) => id,
                        None => {
                            let id = self.new_private_timer();
                            unique.insert(name.clone(), id);
                            id
                        }
                    };
                    (TimerRef::Private(id), self.absolute_unique[ti][name])
                } else {
                    let id = self.shared_timers.id(name);
                    (TimerRef::Shared(id), self.absolute_shared[name])
                };
                timer_ops.push((ops.len(), tr));
                ops.push(Op::Timer {
                    timer: 0,
                    period: us(*period_us),
                    absolute,
                });
            }
            Event::Lock(m) => ops.push(Op::Lock(self.mutexes.id(m))),
            Event::Unlock(m) => ops.push(Op::Unlock(self.mutexes.id(m))),
            Event::Wait { cond, mutex } => {
                let (c, m) = (self.conds.id(cond), self.mutexes.id(mutex));
                ops.extend([Op::CondWait { cond: c, mutex: m }, Op::Lock(m)]);
            }
            Event::Sync { cond, mutex } => {
                let (c, m) = (self.conds.id(cond), self.mutexes.id(mutex));
                ops.extend([
                    Op::CondSignal(c),
                    Op::CondWait { cond: c, mutex: m },
                    Op::Lock(m),
                ]);
            }
            Event::Signal(c) => ops.push(Op::CondSignal(self.conds.id(c))),
            Event::Broad(c) => ops.push(Op::CondBroadcast(self.conds.id(c))),
            Event::Barrier(b) => {
                let parties = self.parties.get(b).copied().unwrap_or(0);
                if parties == 0 {
                    return Err(err(format!(
                        "task '{task_name}': barrier '{b}' is used only by tasks with \"instance\": \
                         0; rt-app counts a barrier's parties from the instances of the tasks that \
                         use it, so forked threads are not counted and would wait forever"
                    )));
                }
                ops.push(Op::Barrier {
                    id: self.barriers.id(b),
                    parties,
                });
            }
            Event::Suspend => {
                let (c, m) = (self.conds.id(task_name), self.mutexes.id(task_name));
                ops.extend([
                    Op::Lock(m),
                    Op::CondWait { cond: c, mutex: m },
                    Op::Lock(m),
                    Op::Unlock(m),
                ]);
            }
            Event::Resume(target) => {
                let (c, m) = (self.conds.id(target), self.mutexes.id(target));
                ops.extend([Op::Lock(m), Op::CondBroadcast(c), Op::Unlock(m)]);
            }
            Event::Yield => ops.push(Op::Yield),
            Event::Fork(target) => ops.push(Op::Fork(self.templates[target])),
            Event::SemPost(s) => ops.push(Op::Resume(self.sems.id(s))),
            Event::SemWait(s) => ops.push(Op::Suspend(self.sems.id(s))),
        }
        Ok(())
    }
}
