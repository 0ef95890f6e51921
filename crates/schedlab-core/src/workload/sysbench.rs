//! sysbench `--test=cpu` (0.4/0.5; src/tests/cpu/sb_cpu.c, src/sysbench.c): N threads pull events
//! from one shared pool until `--max-requests` events have been handed out or `--max-time` has
//! passed. One event is a fixed amount of CPU work (trial division of the numbers below
//! `--cpu-max-prime`), so a faster CPU completes more events. No blocking but the start barrier.
//!
//! The model: a main thread (started on a random CPU, as the shell's) creates the threads one after
//! another; each does a little start-up work and waits on a gate; the main thread opens the gate,
//! starts the clock, waits for all threads, stops the clock.
//!
//! Speed: `event_us` is work on a capacity-1024 CPU at its highest OPP, so one thread's 10000 events
//! take 8.86 s on a HiKey960 A73 at 2362 MHz, the board's measurement. On other core types the
//! prime test runs at its own speed ([`CALIBRATION`], [`super::speed`]), not at capacity_orig.

use super::{Instance, Metric, Op, Program};
use crate::error::{Error, Result};
use crate::units::{NSEC_PER_MSEC, NSEC_PER_USEC, WORK_SCALE};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SysbenchCpu {
    /// `--num-threads`.
    pub threads: u32,
    /// `--max-requests` (0 = no limit); sysbench's default is 10000.
    #[serde(default = "default_max_requests")]
    pub max_requests: u64,
    /// `--max-time` in ms (0 = no limit).
    #[serde(default)]
    pub max_time_ms: u64,
    /// Work of one event in microseconds on a capacity-1024 CPU at its highest OPP. The default 886
    /// is E1's calibration: one thread on a HiKey960 A73 at 2362 MHz does 10000 events in 8.86 s.
    #[serde(default = "default_event_us")]
    pub event_us: u64,
    /// Run-to-run variation of one event's work, in parts per million (cache and interrupt noise).
    #[serde(default = "default_event_jitter_ppm")]
    pub event_jitter_ppm: u32,
    /// Work of `pthread_create()` in the main thread, per thread, in us.
    #[serde(default = "default_clone_us")]
    pub clone_us: u64,
    /// Work a new thread does before it waits at the start barrier, in us.
    #[serde(default = "default_thread_init_us")]
    pub thread_init_us: u64,
    /// This workload's speed per core type and its SMT contention, apart from the
    /// `capacity_orig` the kernel sees (see [`super::speed`]); default: none given.
    #[serde(
        default,
        skip_serializing_if = "super::speed::WorkloadSpeed::is_default"
    )]
    pub speed: super::speed::WorkloadSpeed,
}

/// sysbench-cpu's measured speed per MHz, from the DynamIQ RFC's HiKey960 board (March 2018,
/// hardware-facts.md): one thread at max OPP takes 8.86 s on an A73 (2362 MHz) and 15.86 s on an A53
/// (1844 MHz), a speed ratio of 0.5586 at max OPP where the capacities say 462/1024 = 0.451. Per
/// MHz: 1024 x (8.86 / 15.86) x (2362 / 1844) = 732.8 -> 733, which the A53's 1844 MHz turns back
/// into 572 (0.5586 of the A73's 1024: 15.86 s). The prime test is integer-divide bound, where the
/// in-order A53 loses less to the A73 than on Dhrystone. Other pairs (A72/A53 on Juno, A15/A7 on
/// TC2) have no public figure **[assumed]**: they run at capacity_orig.
pub const CALIBRATION: &[super::speed::Calibration] = &[super::speed::Calibration {
    core_type: "Cortex-A53",
    against: "Cortex-A73",
    per_mhz: 733,
}];

fn default_max_requests() -> u64 {
    10_000
}
fn default_event_us() -> u64 {
    886
}
fn default_event_jitter_ppm() -> u32 {
    2_000
}
fn default_clone_us() -> u64 {
    30
}
fn default_thread_init_us() -> u64 {
    100
}

/// Most threads a sysbench workload may have (the page must stay responsive).
pub const MAX_THREADS: u32 = 1024;

impl SysbenchCpu {
    pub fn new(threads: u32) -> SysbenchCpu {
        SysbenchCpu {
            threads,
            max_requests: default_max_requests(),
            max_time_ms: 0,
            event_us: default_event_us(),
            event_jitter_ppm: default_event_jitter_ppm(),
            clone_us: default_clone_us(),
            thread_init_us: default_thread_init_us(),
            speed: Default::default(),
        }
    }

    pub fn metric(&self) -> Metric {
        if self.max_time_ms > 0 {
            Metric::Events
        } else {
            Metric::ElapsedSeconds
        }
    }

    pub fn instantiate(&self) -> Result<Instance> {
        if self.threads == 0 || self.threads > MAX_THREADS {
            return Err(Error::Workload(format!(
                "sysbench-cpu threads must be 1 to {MAX_THREADS}, not {}",
                self.threads
            )));
        }
        if self.max_requests == 0 && self.max_time_ms == 0 {
            return Err(Error::Workload(
                "sysbench-cpu needs max_requests or max_time_ms, or it never ends".into(),
            ));
        }
        if self.max_time_ms > 24 * 3_600_000 {
            return Err(Error::Workload(
                "sysbench-cpu max_time_ms must be at most a day".into(),
            ));
        }
        if self.event_us == 0 || self.event_us > 10_000_000 {
            return Err(Error::Workload(
                "sysbench-cpu event_us must be 1 to 10000000".into(),
            ));
        }
        if self.event_jitter_ppm > 500_000 {
            return Err(Error::Workload(
                "sysbench-cpu event_jitter_ppm must be at most 500000".into(),
            ));
        }
        if self.clone_us > 1_000_000 || self.thread_init_us > 1_000_000 {
            return Err(Error::Workload(
                "sysbench-cpu clone_us and thread_init_us must be at most 1 s".into(),
            ));
        }
        let us = |v: u64| v * NSEC_PER_USEC * WORK_SCALE;
        let mut main = Vec::with_capacity(self.threads as usize * 2 + 5);
        for _ in 0..self.threads {
            main.push(Op::Run {
                work: us(self.clone_us),
                jitter_ppm: 500_000,
            });
            main.push(Op::Fork(1));
        }
        main.extend([
            Op::OpenGate(0),
            Op::MarkStart,
            Op::WaitChildren,
            Op::MarkEnd,
            Op::Exit,
        ]);
        let worker = vec![
            Op::Run {
                work: us(self.thread_init_us),
                jitter_ppm: 500_000,
            },
            Op::WaitGate(0),
            Op::TakeEvent {
                pool: 0,
                exhausted: 5,
            },
            Op::Run {
                work: us(self.event_us),
                jitter_ppm: self.event_jitter_ppm,
            },
            Op::Jump(2),
            Op::Exit,
        ];
        let mut inst = Instance::new(
            vec![
                Program::new("sysbench", main),
                Program::new("sysbench-thread", worker),
            ],
            vec![0],
            self.metric(),
        );
        inst.pools = vec![if self.max_requests == 0 {
            u64::MAX
        } else {
            self.max_requests
        }];
        inst.gates = 1;
        inst.deadline_after_start =
            (self.max_time_ms > 0).then(|| self.max_time_ms * NSEC_PER_MSEC);
        Ok(inst)
    }
}
