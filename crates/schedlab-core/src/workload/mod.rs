//! Workloads: what the simulated tasks do, as small programs of [`Op`]s that the engine interprets,
//! and the generators that build them from benchmark parameters ([`sysbench`]).

pub mod sysbench;

use crate::error::{Error, Result};
use crate::units::{Nanos, Work};
use serde::{Deserialize, Serialize};

/// One step of a task's program. Only `Run` takes time; everything else happens at once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// Compute `work` (reference ns x WORK_SCALE), varied by up to +-`jitter_ppm` per execution.
    Run {
        work: Work,
        jitter_ppm: u32,
    },
    /// Take one event from a shared pool; when the pool is empty or the deadline has passed, jump.
    TakeEvent {
        pool: usize,
        exhausted: usize,
    },
    Jump(usize),
    Sleep(Nanos),
    /// Block until the gate is open.
    WaitGate(usize),
    /// Open the gate and wake every task waiting on it.
    OpenGate(usize),
    /// Create a task running another program (`clone()` + `wake_up_new_task()`).
    Fork(usize),
    /// Block until every child has exited.
    WaitChildren,
    /// `sched_setaffinity()`: restrict the task to these CPUs; a task on a CPU it may no longer use
    /// is moved at once (`__set_cpus_allowed_ptr()` -> `migration_cpu_stop()`).
    SetAffinity(crate::cpumask::CpuMask),
    /// `setpriority()`: change the task's nice value (-20..19).
    SetNice(i32),
    /// Start and stop the clock of the run's elapsed-time metric.
    MarkStart,
    MarkEnd,
    Exit,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    pub name: String,
    pub ops: Vec<Op>,
}

/// What a run measures.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// Seconds between `MarkStart` and `MarkEnd`.
    ElapsedSeconds,
    /// Events taken from the pools before they ran out or the deadline passed.
    Events,
}

impl Metric {
    pub fn name(self) -> &'static str {
        match self {
            Metric::ElapsedSeconds => "time",
            Metric::Events => "events",
        }
    }
    pub fn unit(self) -> &'static str {
        match self {
            Metric::ElapsedSeconds => "s",
            Metric::Events => "events",
        }
    }
    pub fn higher_is_better(self) -> bool {
        matches!(self, Metric::Events)
    }
}

/// A workload ready to run: programs, the tasks that exist at time 0 (each on a random CPU, as a
/// shell would start them), and shared state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instance {
    pub programs: Vec<Program>,
    /// Programs of the tasks present at the start.
    pub initial: Vec<usize>,
    pub pools: Vec<u64>,
    pub gates: usize,
    /// Pools stop handing out events this long after `MarkStart`.
    pub deadline_after_start: Option<Nanos>,
    pub metric: Metric,
}

/// A workload as a scenario describes it.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum WorkloadSpec {
    SysbenchCpu(sysbench::SysbenchCpu),
}

impl WorkloadSpec {
    pub fn instantiate(&self) -> Result<Instance> {
        match self {
            WorkloadSpec::SysbenchCpu(s) => s.instantiate(),
        }
    }

    pub fn metric(&self) -> Metric {
        match self {
            WorkloadSpec::SysbenchCpu(s) => s.metric(),
        }
    }

    /// Parameters a scenario may sweep.
    pub fn sweepable(&self) -> &'static [&'static str] {
        match self {
            WorkloadSpec::SysbenchCpu(_) => &["threads"],
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
        }
        w.instantiate()?;
        Ok(w)
    }
}
