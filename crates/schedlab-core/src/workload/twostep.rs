//! E5's workload ("Use all little CPUs for CPU-bound workload", Nov 2023; see
//! shared/reference/platforms-and-experiments.md): N CPU-bound tasks. Step 1 (`step1_ms`, 100 ms):
//! each task is pinned to one CPU, laid out so that one little CPU is idle and one big CPU has two
//! tasks. Step 2: the affinity is removed; each task then has `work_ms` of work (~10 s as measured
//! on a big CPU at its highest OPP, which is what reference units are). Metric: time from the start
//! until every task has finished.
//!
//! The model: the main task starts the clock at time 0 and, for each task, sets its own affinity to
//! that task's CPU and forks it (the child inherits the mask, as `taskset` would give it), then
//! frees its own affinity and waits for the tasks. A task runs `step1_chunk_us` pieces of work while
//! the step-1 clock runs (an unlimited event pool that closes `step1_ms` after the start: the task
//! notices the end of step 1 within one piece), then `sched_setaffinity()`s itself to every CPU
//! and does its `work_ms`.
//!
//! The layout is data ([`TwoStep::pins`]): the default [1, 1, 2, 3, 4, 5] is E5's on juno-r2, whose
//! big CPUs are 1-2 and littles 0 and 3-5: big CPU 1 has two tasks and little CPU 0 is idle.

use super::{Instance, Metric, Op, Program};
use crate::cpumask::CpuMask;
use crate::error::{Error, Result};
use crate::topology::Topology;
use crate::units::{NSEC_PER_MSEC, NSEC_PER_USEC, WORK_SCALE};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TwoStep {
    /// The CPU each task is pinned to in step 1 (one entry per task). Default: E5's layout for six
    /// tasks on juno-r2, [1, 1, 2, 3, 4, 5].
    #[serde(default = "default_pins")]
    pub pins: Vec<usize>,
    /// Length of step 1 in ms; E5's is 100.
    #[serde(default = "default_step1_ms")]
    pub step1_ms: u64,
    /// Work of each task after step 1, in ms on a capacity-1024 CPU at its highest OPP; E5's is
    /// ~10 s.
    #[serde(default = "default_work_ms")]
    pub work_ms: u64,
    /// Work between two looks at the step-1 clock, in us; 100 (the task unpins itself at most this
    /// late, 0.27 ms on a little CPU of capacity 383).
    #[serde(default = "default_step1_chunk_us")]
    pub step1_chunk_us: u64,
    /// This workload's speed per core type and its SMT contention, apart from the
    /// `capacity_orig` the kernel sees (see [`super::speed`]); default: none given.
    #[serde(
        default,
        skip_serializing_if = "super::speed::WorkloadSpeed::is_default"
    )]
    pub speed: super::speed::WorkloadSpeed,
}

fn default_pins() -> Vec<usize> {
    vec![1, 1, 2, 3, 4, 5]
}
fn default_step1_ms() -> u64 {
    100
}
fn default_work_ms() -> u64 {
    10_000
}
fn default_step1_chunk_us() -> u64 {
    100
}

/// Parameters a scenario may sweep.
pub const SWEEPABLE: &[&str] = &["work_ms", "step1_ms"];
pub const MAX_TASKS: usize = 1024;
pub const MAX_WORK_MS: u64 = 600_000;
pub const MAX_STEP1_MS: u64 = 60_000;

impl Default for TwoStep {
    fn default() -> TwoStep {
        TwoStep {
            pins: default_pins(),
            step1_ms: default_step1_ms(),
            work_ms: default_work_ms(),
            step1_chunk_us: default_step1_chunk_us(),
            speed: Default::default(),
        }
    }
}

impl TwoStep {
    pub fn metric(&self) -> Metric {
        Metric::ElapsedSeconds
    }

    pub fn set_param(&mut self, name: &str, value: u64) -> Result<()> {
        match name {
            "work_ms" => self.work_ms = value,
            "step1_ms" => self.step1_ms = value,
            _ => {
                return Err(Error::Workload(format!(
                    "two-step cannot sweep '{name}'; it can sweep: {}",
                    SWEEPABLE.join(", ")
                )))
            }
        }
        Ok(())
    }

    /// Programs: 0 = main, 1 = a task.
    pub fn instantiate(&self, topo: &Topology) -> Result<Instance> {
        let err = |m: String| Err(Error::Workload(format!("two-step {m}")));
        if self.pins.is_empty() || self.pins.len() > MAX_TASKS {
            return err(format!(
                "pins must list 1 to {MAX_TASKS} CPUs (one per task), not {}",
                self.pins.len()
            ));
        }
        let all = topo.all_cpus();
        if let Some(&bad) = self
            .pins
            .iter()
            .find(|&&c| c >= crate::cpumask::MAX_CPUS || !all.test(c))
        {
            return err(format!(
                "pins names CPU {bad}, which this machine does not have (its CPUs: {all}); the \
                 default layout is E5's for juno-r2"
            ));
        }
        if self.work_ms == 0 || self.work_ms > MAX_WORK_MS {
            return err(format!(
                "work_ms must be 1 to {MAX_WORK_MS}, not {}",
                self.work_ms
            ));
        }
        if self.step1_ms > MAX_STEP1_MS {
            return err(format!(
                "step1_ms must be at most {MAX_STEP1_MS}, not {}",
                self.step1_ms
            ));
        }
        if self.step1_chunk_us == 0 || self.step1_chunk_us > 1_000_000 {
            return err(format!(
                "step1_chunk_us must be 1 to 1000000, not {}",
                self.step1_chunk_us
            ));
        }
        let mut main = vec![Op::MarkStart];
        for &cpu in &self.pins {
            main.extend([Op::affinity(CpuMask::single(cpu)), Op::Fork(1)]);
        }
        main.extend([Op::affinity(all), Op::WaitChildren, Op::MarkEnd, Op::Exit]);
        let task = vec![
            Op::TakeEvent {
                pool: 0,
                exhausted: 3,
            },
            Op::Run {
                work: self.step1_chunk_us * NSEC_PER_USEC * WORK_SCALE,
                jitter_ppm: 0,
            },
            Op::Jump(0),
            Op::affinity(all),
            Op::Run {
                work: self.work_ms * NSEC_PER_MSEC * WORK_SCALE,
                jitter_ppm: 0,
            },
            Op::Exit,
        ];
        let mut inst = Instance::new(
            vec![Program::new("main", main), Program::new("cpu-bound", task)],
            vec![0],
            self.metric(),
        );
        inst.pools = vec![u64::MAX];
        inst.deadline_after_start = Some(self.step1_ms * NSEC_PER_MSEC);
        Ok(inst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::presets::preset;

    fn juno() -> Topology {
        Topology::build(&preset("juno-r2").unwrap()).unwrap()
    }

    #[test]
    fn the_default_is_e5s_layout_on_juno() {
        let inst = TwoStep::default().instantiate(&juno()).unwrap();
        inst.validate().unwrap();
        let pins: Vec<usize> = inst.programs[0]
            .ops
            .iter()
            .filter_map(|op| match op {
                Op::SetAffinity(m) if m.weight() == 1 => m.first(),
                _ => None,
            })
            .collect();
        assert_eq!(pins, vec![1, 1, 2, 3, 4, 5]);
        assert!(!pins.contains(&0));
        assert_eq!(inst.deadline_after_start, Some(100 * NSEC_PER_MSEC));
        assert_eq!(inst.programs[1].ops[3], Op::affinity(juno().all_cpus()));
        assert_eq!(
            inst.programs[1].ops[4],
            Op::Run {
                work: 10_000 * NSEC_PER_MSEC * WORK_SCALE,
                jitter_ppm: 0
            }
        );
    }

    #[test]
    fn a_cpu_the_machine_lacks_is_an_error() {
        let t = TwoStep {
            pins: vec![1, 6],
            ..TwoStep::default()
        };
        let e = t.instantiate(&juno()).unwrap_err();
        assert!(e.to_string().contains("CPU 6"), "{e}");
        let t = TwoStep {
            pins: vec![usize::MAX],
            ..TwoStep::default()
        };
        assert!(t.instantiate(&juno()).is_err());
        let t = TwoStep {
            pins: vec![],
            ..TwoStep::default()
        };
        assert!(t.instantiate(&juno()).is_err());
        let t = TwoStep {
            work_ms: u64::MAX,
            ..TwoStep::default()
        };
        assert!(t.instantiate(&juno()).is_err());
    }
}
