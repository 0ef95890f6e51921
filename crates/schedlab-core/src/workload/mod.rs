//! Workloads: what the simulated tasks do, as small programs of [`Op`]s that the engine interprets,
//! and the generators that build them from benchmark parameters ([`sysbench`]).

pub mod ebizzy;
pub mod gitsource;
pub mod hackbench;
pub mod kernbench;
pub mod rtapp;
pub mod schbench;
pub mod speed;
pub mod sysbench;
pub mod tbench;
pub mod twostep;

use crate::error::{Error, Result};
use crate::latency::Pct;
use crate::topology::Topology;
use crate::units::{Nanos, Work};
use serde::{Deserialize, Serialize};

/// One step of a task's program. Only `Run` and `RunFor` take CPU time; blocking ops take wall
/// time; everything else happens at once.
///
/// Blocking ops that wait for a resource (`Lock`, `Send`, `Recv`, `Suspend`) are retried when the
/// task is woken, as a futex-based implementation retries: another task may take the resource first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// Compute `work` (reference ns x WORK_SCALE), varied by up to +-`jitter_ppm` per execution:
    /// slower CPUs and lower frequencies take longer.
    Run {
        work: Work,
        jitter_ppm: u32,
    },
    /// Stay busy for this much wall time while running, whatever the CPU's speed (rt-app `runtime`).
    RunFor(Nanos),
    /// Take one event from a shared pool; when the pool is empty or the deadline has passed, jump.
    TakeEvent {
        pool: usize,
        exhausted: usize,
    },
    Jump(usize),
    /// Loop: jump back to `to` until this op has been reached `times` times (0 = forever), then
    /// reset the task's counter in `slot` and fall through.
    Repeat {
        slot: usize,
        times: u64,
        to: usize,
    },
    Sleep(Nanos),
    /// Sleep this long waiting for I/O (`io_schedule()`: a read or fsync that misses the page
    /// cache): as [`Op::Sleep`], with `p->in_iowait` set, so the wake-up's enqueue calls
    /// `cpufreq_update_util(rq, SCHED_CPUFREQ_IOWAIT)` (`enqueue_task_fair()`, v4.9-v6.8).
    IoSleep(Nanos),
    /// rt-app's thread `delay`: `t_first = t_zero + delay`, and sleep until that absolute time
    /// (no sleep when it has passed, as `clock_nanosleep(TIMER_ABSTIME)`); `t_zero` is the run's
    /// start. The thread's timers count from `t_first` (rt-app `thread_body()`).
    Delay(Nanos),
    /// rt-app `timer`: sleep until the timer's next expiry, `period` after the previous one. The
    /// first expiry is `period` after the `t_first` of the task that first uses it: the run's
    /// start, or that task's [`Op::Delay`] (rt-app `run_event()`: `t_next = *t_first` on the
    /// timer's first use), whenever the task was created, forked ones included. When the expiry
    /// has already passed, a relative timer restarts from now; an absolute one keeps its schedule
    /// (and does not sleep).
    Timer {
        timer: usize,
        period: Nanos,
        absolute: bool,
    },
    /// Block until the gate is open.
    WaitGate(usize),
    /// Open the gate and wake every task waiting on it.
    OpenGate(usize),
    /// Wait until `parties` tasks have reached barrier `id`; the last one wakes the others.
    Barrier {
        id: usize,
        parties: u32,
    },
    /// Take mutex `id`, blocking while another task holds it.
    Lock(usize),
    /// Release mutex `id` and wake one waiter.
    Unlock(usize),
    /// `pthread_cond_wait()`: release `mutex` and block until condition `cond` is signalled. The
    /// program re-takes the mutex with a `Lock` after it.
    CondWait {
        cond: usize,
        mutex: usize,
    },
    /// Wake one task waiting on the condition.
    CondSignal(usize),
    /// Wake every task waiting on the condition.
    CondBroadcast(usize),
    /// rt-app `suspend`: block until a `Resume` of the same event (a resume with nobody suspended is
    /// remembered).
    Suspend(usize),
    Resume(usize),
    /// `sched_yield()`: let the next task on this CPU run (`yield_task_fair()`'s skip buddy),
    /// after the system call's own time (`engine::ops::SCHED_YIELD_NS`).
    Yield,
    /// Write `bytes` into channel `chan` (a socket or pipe), blocking while its buffer lacks room;
    /// wakes a reader (`WF_SYNC`, as socket and pipe writes do).
    Send {
        chan: usize,
        bytes: u64,
    },
    /// Read `bytes` from channel `chan`, blocking until that many are buffered; wakes a writer
    /// waiting for room.
    Recv {
        chan: usize,
        bytes: u64,
    },
    /// Create a task running another program (`clone()` + `wake_up_new_task()`).
    Fork(usize),
    /// `execve()`: the task starts a new program image; the scheduler re-places it with
    /// `sched_exec()` (SD_BALANCE_EXEC), which may move it to another CPU before it runs on.
    Exec,
    /// Block until every child has exited.
    WaitChildren,
    /// `sched_setaffinity()`: restrict the task to these CPUs; a task on a CPU it may no longer use
    /// is moved at once (`__set_cpus_allowed_ptr()` -> `migration_cpu_stop()`).
    SetAffinity(crate::cpumask::CpuMask),
    /// `setpriority()`: change the task's nice value (-20..19).
    SetNice(i32),
    /// `sched_setattr()` of a SCHED_OTHER task with `sched_runtime` in ns (rt-app's
    /// `dl-runtime`): its own EEVDF slice on v6.12+ (0 returns it to the base slice); earlier
    /// kernels ignore it.
    SetSlice(u64),
    /// `sched_setattr()` with SCHED_FLAG_KEEP_ALL and SCHED_FLAG_UTIL_CLAMP_MIN / _MAX for the
    /// values given (rt-app's `util_min` / `util_max`): the task's uclamp requests, v5.3+ (see
    /// [`crate::sched::uclamp`]). A kernel without uclamp refuses it (-EOPNOTSUPP) and the task
    /// runs on unclamped; an invalid pair (min above max, with the request kept for the absent
    /// one) ends the run with an error, as it ends rt-app.
    SetUclamp {
        min: Option<u32>,
        max: Option<u32>,
    },
    /// Add to the run's work counter (records, transactions, bytes: what the metric counts).
    Count(u64),
    /// Forget what was counted so far: the end of a warm-up.
    ResetCount,
    /// Record the wake-up latency of the task's current run (from the `try_to_wake_up()` that
    /// ended its last sleep to its switch-in) as one of the workload's own wake-up latency samples:
    /// what schbench's `msg_and_wait()` measures after `fwait()` returns (see
    /// [`crate::latency`]). Nothing is recorded if the task has not been woken since the last
    /// sample, or if the latency was 0.
    WakeupSample,
    /// A request starts now (schbench's `work_start`).
    RequestStart,
    /// The request started by the last `RequestStart` ends: its latency is one of the workload's
    /// request latency samples.
    RequestEnd,
    /// Start and stop the clock of the run's elapsed-time metric.
    MarkStart,
    MarkEnd,
    Exit,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    pub name: String,
    pub ops: Vec<Op>,
    /// Loop counters the program's `Repeat` ops use (slots `0..loop_slots`).
    pub loop_slots: usize,
}

impl Program {
    pub fn new(name: impl Into<String>, ops: Vec<Op>) -> Program {
        let loop_slots = ops
            .iter()
            .filter_map(|op| {
                if let Op::Repeat { slot, .. } = op {
                    Some(slot + 1)
                } else {
                    None
                }
            })
            .max()
            .unwrap_or(0);
        Program {
            name: name.into(),
            ops,
            loop_slots,
        }
    }
}

/// What a run measures.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// Seconds between `MarkStart` and `MarkEnd`.
    ElapsedSeconds,
    /// Events taken from the pools before they ran out or the deadline passed.
    Events,
    /// `Count`s per second between `MarkStart` and `MarkEnd` (or the end of the run).
    RecordsPerSecond,
    /// `Count`ed bytes per second, in MB/s (10^6 bytes).
    MegabytesPerSecond,
    /// `Count`s in total.
    Count,
    /// A percentile of the workload's wake-up latency samples ([`Op::WakeupSample`]), in us.
    WakeupLatency(crate::latency::Pct),
    /// A percentile of the workload's request latency samples ([`Op::RequestEnd`]), in us.
    RequestLatency(crate::latency::Pct),
}

impl Metric {
    pub fn name(self) -> &'static str {
        match self {
            Metric::ElapsedSeconds => "time",
            Metric::Events => "events",
            Metric::RecordsPerSecond => "records/s",
            Metric::MegabytesPerSecond => "throughput",
            Metric::Count => "count",
            Metric::WakeupLatency(p) => match p {
                Pct::P50 => "wakeup latency p50",
                Pct::P90 => "wakeup latency p90",
                Pct::P99 => "wakeup latency p99",
                Pct::P999 => "wakeup latency p99.9",
            },
            Metric::RequestLatency(p) => match p {
                Pct::P50 => "request latency p50",
                Pct::P90 => "request latency p90",
                Pct::P99 => "request latency p99",
                Pct::P999 => "request latency p99.9",
            },
        }
    }
    pub fn unit(self) -> &'static str {
        match self {
            Metric::ElapsedSeconds => "s",
            Metric::Events => "events",
            Metric::RecordsPerSecond => "records/s",
            Metric::MegabytesPerSecond => "MB/s",
            Metric::Count => "count",
            Metric::WakeupLatency(_) | Metric::RequestLatency(_) => "us",
        }
    }
    pub fn higher_is_better(self) -> bool {
        !matches!(
            self,
            Metric::ElapsedSeconds | Metric::WakeupLatency(_) | Metric::RequestLatency(_)
        )
    }
}

/// A workload ready to run: programs, the tasks that exist at time 0 (each on a random CPU, as a
/// shell would start them), and the shared objects the programs use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instance {
    pub programs: Vec<Program>,
    /// Programs of the tasks present at the start.
    pub initial: Vec<usize>,
    pub pools: Vec<u64>,
    pub gates: usize,
    pub mutexes: usize,
    pub conds: usize,
    pub barriers: usize,
    /// Suspend/resume events.
    pub events: usize,
    pub timers: usize,
    /// Buffer size in bytes of each channel.
    pub channels: Vec<u64>,
    /// Pools stop handing out events this long after `MarkStart`.
    pub deadline_after_start: Option<Nanos>,
    /// The run ends at this time even if tasks are left (rt-app `duration`).
    pub stop_at: Option<Nanos>,
    /// `taskset`: the CPUs the first tasks (and so, by inheritance, all) may use.
    pub taskset: Option<crate::cpumask::CpuMask>,
    pub metric: Metric,
    /// The workload's speed on each CPU and its SMT contention, resolved against the machine
    /// ([`speed::Rates`]; empty: `capacity_orig` and the cores' own SMT throughput).
    pub rates: speed::Rates,
}

impl Instance {
    /// An instance with these programs and no shared objects; generators add what they use.
    pub fn new(programs: Vec<Program>, initial: Vec<usize>, metric: Metric) -> Instance {
        Instance {
            programs,
            initial,
            pools: vec![],
            gates: 0,
            mutexes: 0,
            conds: 0,
            barriers: 0,
            events: 0,
            timers: 0,
            channels: vec![],
            deadline_after_start: None,
            stop_at: None,
            taskset: None,
            metric,
            rates: speed::Rates::default(),
        }
    }

    /// Roughly how many bytes of memory the instance's programs hold: what a plan pays for each
    /// swept value before anything runs (see [`crate::experiment::MAX_PLAN_PROGRAM_BYTES`]).
    pub fn footprint_bytes(&self) -> usize {
        let programs: usize = self
            .programs
            .iter()
            .map(|p| {
                std::mem::size_of::<Program>()
                    + p.name.len()
                    + p.ops.len() * std::mem::size_of::<Op>()
            })
            .sum();
        programs
            + (self.initial.len() + self.pools.len() + self.channels.len())
                * std::mem::size_of::<u64>()
    }

    /// Checks that every op refers to objects and programs that exist, so the engine can index
    /// without checks.
    pub fn validate(&self) -> Result<()> {
        if self.initial.is_empty() {
            return Err(Error::Workload("the workload starts no task".into()));
        }
        let np = self.programs.len();
        if self.initial.iter().any(|&p| p >= np) {
            return Err(Error::Workload(
                "an initial task runs a program that does not exist".into(),
            ));
        }
        for prog in &self.programs {
            let bad = |what: &str| Err(Error::Workload(format!("program '{}': {what}", prog.name)));
            let n = prog.ops.len();
            for op in &prog.ops {
                let ok = match *op {
                    Op::TakeEvent { pool, exhausted } => pool < self.pools.len() && exhausted <= n,
                    Op::Jump(to) => to < n,
                    Op::Repeat { slot, to, .. } => slot < prog.loop_slots && to < n,
                    Op::Timer { timer, .. } => timer < self.timers,
                    Op::WaitGate(g) | Op::OpenGate(g) => g < self.gates,
                    Op::Barrier { id, parties } => id < self.barriers && parties > 0,
                    Op::Lock(m) | Op::Unlock(m) => m < self.mutexes,
                    Op::CondWait { cond, mutex } => cond < self.conds && mutex < self.mutexes,
                    Op::CondSignal(c) | Op::CondBroadcast(c) => c < self.conds,
                    Op::Suspend(e) | Op::Resume(e) => e < self.events,
                    Op::Send { chan, bytes } | Op::Recv { chan, bytes } => {
                        chan < self.channels.len() && bytes > 0 && bytes <= self.channels[chan]
                    }
                    Op::Fork(p) => p < np,
                    _ => true,
                };
                if !ok {
                    return bad(&format!("{op:?} refers to something that does not exist"));
                }
            }
        }
        Ok(())
    }
}

/// A workload as a scenario describes it.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum WorkloadSpec {
    SysbenchCpu(sysbench::SysbenchCpu),
    Hackbench(hackbench::Hackbench),
    Ebizzy(ebizzy::Ebizzy),
    /// An rt-app JSON file, carried verbatim (`{"kind": "rt-app", "json": "..."}`).
    RtApp(rtapp::RtApp),
    Tbench(tbench::Tbench),
    Kernbench(kernbench::Kernbench),
    Gitsource(gitsource::Gitsource),
    TwoStep(twostep::TwoStep),
    Schbench(schbench::Schbench),
}

impl WorkloadSpec {
    /// The programs and objects of one run on `topo` (rt-app's `calibration` and the like refer to
    /// the machine's CPUs). The result is validated.
    pub fn instantiate(&self, topo: &Topology) -> Result<Instance> {
        let mut inst = match self {
            WorkloadSpec::SysbenchCpu(s) => s.instantiate()?,
            WorkloadSpec::Hackbench(s) => s.instantiate()?,
            WorkloadSpec::Ebizzy(s) => s.instantiate(topo)?,
            WorkloadSpec::RtApp(r) => r.instantiate(topo)?,
            WorkloadSpec::Tbench(s) => s.instantiate(topo)?,
            WorkloadSpec::Kernbench(s) => s.instantiate()?,
            WorkloadSpec::Gitsource(s) => s.instantiate()?,
            WorkloadSpec::TwoStep(s) => s.instantiate(topo)?,
            WorkloadSpec::Schbench(s) => s.instantiate(topo)?,
        };
        inst.validate()?;
        inst.rates = speed::Rates::resolve(self.speed(), &self.speed_defaults(topo), topo)?;
        Ok(inst)
    }

    /// The speeds the spec gives (`"speed"`).
    pub fn speed(&self) -> &speed::WorkloadSpeed {
        match self {
            WorkloadSpec::SysbenchCpu(s) => &s.speed,
            WorkloadSpec::Hackbench(s) => &s.speed,
            WorkloadSpec::Ebizzy(s) => &s.speed,
            WorkloadSpec::RtApp(r) => &r.speed,
            WorkloadSpec::Tbench(s) => &s.speed,
            WorkloadSpec::Kernbench(s) => &s.speed,
            WorkloadSpec::Gitsource(s) => &s.speed,
            WorkloadSpec::TwoStep(s) => &s.speed,
            WorkloadSpec::Schbench(s) => &s.speed,
        }
    }

    /// The kind's own calibrated speeds and SMT contention, below what the spec gives. Kinds and
    /// core types without a figure run at `capacity_orig` and the core's `smt_throughput`
    /// **[assumed]**: no public per-workload measurement was found for them.
    pub fn speed_defaults(&self, topo: &Topology) -> speed::Defaults {
        match self {
            WorkloadSpec::SysbenchCpu(_) => speed::Defaults {
                per_mhz: sysbench::CALIBRATION,
                smt_throughput: vec![],
            },
            WorkloadSpec::Ebizzy(s) => s.speed_defaults(topo),
            _ => speed::Defaults::default(),
        }
    }

    pub fn metric(&self) -> Metric {
        match self {
            WorkloadSpec::SysbenchCpu(s) => s.metric(),
            WorkloadSpec::Hackbench(s) => s.metric(),
            WorkloadSpec::Ebizzy(s) => s.metric(),
            WorkloadSpec::RtApp(r) => r.metric(),
            WorkloadSpec::Tbench(s) => s.metric(),
            WorkloadSpec::Kernbench(s) => s.metric(),
            WorkloadSpec::Gitsource(s) => s.metric(),
            WorkloadSpec::TwoStep(s) => s.metric(),
            WorkloadSpec::Schbench(s) => s.metric(),
        }
    }

    /// Parameters a scenario may sweep.
    pub fn sweepable(&self) -> &'static [&'static str] {
        match self {
            WorkloadSpec::SysbenchCpu(_) => &["threads"],
            WorkloadSpec::Hackbench(_) => hackbench::SWEEPABLE,
            WorkloadSpec::Ebizzy(_) => ebizzy::SWEEPABLE,
            WorkloadSpec::RtApp(_) => &[],
            WorkloadSpec::Tbench(_) => tbench::SWEEPABLE,
            WorkloadSpec::Kernbench(_) => kernbench::SWEEPABLE,
            WorkloadSpec::Gitsource(_) => gitsource::SWEEPABLE,
            WorkloadSpec::TwoStep(_) => twostep::SWEEPABLE,
            WorkloadSpec::Schbench(_) => schbench::SWEEPABLE,
        }
    }

    /// The same workload with one parameter set.
    pub fn with_param(&self, name: &str, value: u64) -> Result<WorkloadSpec> {
        let mut w = self.clone();
        match &mut w {
            WorkloadSpec::SysbenchCpu(s) => match name {
                "threads" => {
                    s.threads = u32::try_from(value)
                        .map_err(|_| Error::Workload("threads is too large".into()))?
                }
                _ => {
                    return Err(Error::Workload(format!(
                        "sysbench-cpu cannot sweep '{name}'; it can sweep: {}",
                        self.sweepable().join(", ")
                    )))
                }
            },
            WorkloadSpec::Hackbench(s) => s.set_param(name, value)?,
            WorkloadSpec::Ebizzy(s) => s.set_param(name, value)?,
            WorkloadSpec::RtApp(_) => {
                return Err(Error::Workload(format!(
                    "rt-app cannot sweep '{name}': an rt-app workload has no sweepable parameter"
                )))
            }
            WorkloadSpec::Tbench(s) => s.set_param(name, value)?,
            WorkloadSpec::Kernbench(s) => s.set_param(name, value)?,
            WorkloadSpec::Gitsource(s) => s.set_param(name, value)?,
            WorkloadSpec::TwoStep(s) => s.set_param(name, value)?,
            WorkloadSpec::Schbench(s) => s.set_param(name, value)?,
        }
        Ok(w)
    }
}
