//! schbench (Chris Mason's scheduler benchmark, masoncl/schbench `schbench.c`, the v1.0 line with
//! `-F`/`-n`/`-s`/`-R`): message threads and worker threads, the benchmark scheduler patches
//! quote for wake-up latency. `-m` message threads each create `-t` workers. A worker loops:
//!
//! 1. `msg_and_wait()`: it puts itself on its message thread's list, posts the message thread's
//!    futex and waits on its own futex;
//! 2. the message thread (`run_msg_thread()`) wakes, takes the whole list and posts every worker on
//!    it (`xlist_wake_all()`), stamping each with the time it started the list walk; then it waits
//!    on its futex again. The worker, once running, records `now - wake_time`: the **wake-up
//!    latency**;
//! 3. the request (`worker_thread()`): `work_start = now`, `usleep(-s)`, then `do_work()`: `-n`
//!    naive multiplications of `matrix_size`-square matrices of `unsigned long`, with
//!    `matrix_size = sqrt(-F KB x 1024 / 3 / 8)` (104 for the default 256 KB); the **request
//!    latency** is `now - work_start`, and `loop_count++`.
//!
//! schbench prints the percentiles 50, 90, 99 and 99.9 of both latencies, in us, and "average
//! rps": all workers' `loop_count` / `-r`. Here the metric is one of those (a scenario picks it:
//! [`Schbench::metric`]); every run also keeps both histograms and the per-task-name scheduling
//! latencies ([`crate::latency`], `--report latency`).
//!
//! The model:
//! - the message thread's futex is a counting [`Op::Suspend`]/[`Op::Resume`] event, and the
//!   workers' futexes one condition that the message thread broadcasts: the workers waiting on it
//!   are exactly the ones on the list. A worker's post and wait are one step (no wake-up can fall
//!   between them). Posts that a futex would merge into one wake here make extra rounds that find
//!   the list empty; they take no time;
//! - the futex calls take no CPU time (the message thread's walk is instantaneous), so the model's
//!   wake-up latency is the scheduler's own: from `try_to_wake_up()` to the switch-in (with the
//!   target CPU's idle exit latency). Real schbench also counts the message thread's time posting
//!   the workers ahead in the list (a few us each);
//! - the matrix math is CPU work of `operations x matrix_size^3 x madd_ps` (see
//!   [`Schbench::madd_ps`]), scaling with the CPU's capacity and frequency;
//! - left out: the per-CPU spinlock held during the math (`lock_this_cpu()`; the model runs as
//!   with `-L`), the warm-up reset (`-w`; schbench zeroes it for `-r` below 30 anyway), the
//!   interval prints, pinning (`-M`/`-W`), pipe mode (`-p`), auto-RPS (`-A`) and the
//!   requests-per-second mode (`-R`), which is not modelled yet.

use super::{Instance, Metric, Op, Program};
use crate::error::{Error, Result};
use crate::latency::Pct;
use crate::topology::Topology;
use crate::units::{NSEC_PER_SEC, NSEC_PER_USEC, WORK_SCALE};
use serde::{Deserialize, Serialize};

/// What a schbench run reports as its value. Serialized as its name, the one the CLI's
/// `--report` gives the same figure: `"wakeup-p99"`, `"request-p99.9"`, `"rps"`; the older object
/// form (`{"wakeup-latency": "p99"}`) still reads ([`crate::latency::names`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SchbenchMetric {
    /// A percentile of the wake-up latency, us.
    WakeupLatency(Pct),
    /// A percentile of the request latency, us.
    RequestLatency(Pct),
    /// "average rps": requests completed per second of `-r`.
    #[default]
    Rps,
}

/// The object form of [`SchbenchMetric`]'s percentile variants before their string names.
#[derive(Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SchbenchMetricObject {
    WakeupLatency(Pct),
    RequestLatency(Pct),
}

impl From<SchbenchMetricObject> for SchbenchMetric {
    fn from(m: SchbenchMetricObject) -> SchbenchMetric {
        match m {
            SchbenchMetricObject::WakeupLatency(p) => SchbenchMetric::WakeupLatency(p),
            SchbenchMetricObject::RequestLatency(p) => SchbenchMetric::RequestLatency(p),
        }
    }
}

impl SchbenchMetric {
    /// The name ([`crate::experiment::Quantity::name`] of the same figure).
    pub fn name(self) -> &'static str {
        use crate::latency::names::pct_name;
        match self {
            SchbenchMetric::WakeupLatency(p) => pct_name!(p, "wakeup"),
            SchbenchMetric::RequestLatency(p) => pct_name!(p, "request"),
            SchbenchMetric::Rps => "rps",
        }
    }
}

impl crate::latency::names::PctNamed for SchbenchMetric {
    const ALL: &'static [SchbenchMetric] = &[
        SchbenchMetric::WakeupLatency(Pct::P50),
        SchbenchMetric::WakeupLatency(Pct::P90),
        SchbenchMetric::WakeupLatency(Pct::P99),
        SchbenchMetric::WakeupLatency(Pct::P999),
        SchbenchMetric::RequestLatency(Pct::P50),
        SchbenchMetric::RequestLatency(Pct::P90),
        SchbenchMetric::RequestLatency(Pct::P99),
        SchbenchMetric::RequestLatency(Pct::P999),
        SchbenchMetric::Rps,
    ];
    const WHAT: &'static str = "schbench report";
    type Legacy = SchbenchMetricObject;
    fn name(self) -> &'static str {
        SchbenchMetric::name(self)
    }
}

impl Serialize for SchbenchMetric {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        crate::latency::names::serialize(self, s)
    }
}

impl<'de> Deserialize<'de> for SchbenchMetric {
    fn deserialize<D: serde::Deserializer<'de>>(
        d: D,
    ) -> std::result::Result<SchbenchMetric, D::Error> {
        crate::latency::names::deserialize(d)
    }
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Schbench {
    /// `-m`: message threads; schbench's default is 1.
    #[serde(default = "default_message_threads")]
    pub message_threads: u32,
    /// `-t`: workers per message thread; 0 (schbench's default) means
    /// `ceil(nr_cpus / message_threads)` (`main()`).
    #[serde(default)]
    pub worker_threads: u32,
    /// `-r`: seconds of the run; schbench's default is 30.
    #[serde(default = "default_runtime_s")]
    pub runtime_s: u64,
    /// `-F`: cache footprint of each worker's matrices, KB; default 256.
    #[serde(default = "default_cache_footprint_kb")]
    pub cache_footprint_kb: u64,
    /// `-n`: matrix multiplications per request; default 5.
    #[serde(default = "default_operations")]
    pub operations: u64,
    /// `-s`: the request's `usleep()`, us; default 100.
    #[serde(default = "default_sleep_us")]
    pub sleep_us: u64,
    /// Time of one multiply-add of `do_some_math()`'s inner loop on a capacity-1024 CPU at its
    /// highest OPP, in picoseconds. Default 3000, from schbench's README calibration run
    /// (`-F 256 -n 5 --calibrate`: request p50 16864 us for 5 x 104^3 multiply-adds = 3.0 ns each;
    /// the README does not name the CPU, so **[assumed]** to stand for the presets' big cores).
    #[serde(default = "default_madd_ps")]
    pub madd_ps: u64,
    /// What the run reports (default: RPS).
    #[serde(default)]
    pub report: SchbenchMetric,
    /// This workload's speed per core type and its SMT contention (see [`super::speed`]).
    #[serde(
        default,
        skip_serializing_if = "super::speed::WorkloadSpeed::is_default"
    )]
    pub speed: super::speed::WorkloadSpeed,
}

fn default_message_threads() -> u32 {
    1
}
fn default_runtime_s() -> u64 {
    30
}
fn default_cache_footprint_kb() -> u64 {
    256
}
fn default_operations() -> u64 {
    5
}
fn default_sleep_us() -> u64 {
    100
}
fn default_madd_ps() -> u64 {
    3_000
}

/// Parameters a scenario may sweep.
pub const SWEEPABLE: &[&str] = &[
    "message_threads",
    "worker_threads",
    "operations",
    "sleep_us",
];

/// Most workers one run may have.
pub const MAX_WORKERS: u64 = 10_000;
/// Longest run, seconds.
pub const MAX_RUNTIME_S: u64 = 600;

impl Default for Schbench {
    fn default() -> Schbench {
        Schbench {
            message_threads: default_message_threads(),
            worker_threads: 0,
            runtime_s: default_runtime_s(),
            cache_footprint_kb: default_cache_footprint_kb(),
            operations: default_operations(),
            sleep_us: default_sleep_us(),
            madd_ps: default_madd_ps(),
            report: SchbenchMetric::default(),
            speed: Default::default(),
        }
    }
}

impl Schbench {
    pub fn metric(&self) -> Metric {
        match self.report {
            SchbenchMetric::WakeupLatency(p) => Metric::WakeupLatency(p),
            SchbenchMetric::RequestLatency(p) => Metric::RequestLatency(p),
            SchbenchMetric::Rps => Metric::RecordsPerSecond,
        }
    }

    /// Sets a sweepable parameter ([`SWEEPABLE`]).
    pub fn set_param(&mut self, name: &str, value: u64) -> Result<()> {
        let small = |v: u64| {
            u32::try_from(v).map_err(|_| Error::Workload(format!("schbench {name} is too large")))
        };
        match name {
            "message_threads" => self.message_threads = small(value)?,
            "worker_threads" => self.worker_threads = small(value)?,
            "operations" => self.operations = value,
            "sleep_us" => self.sleep_us = value,
            _ => {
                return Err(Error::Workload(format!(
                    "schbench cannot sweep '{name}'; it can sweep: {}",
                    SWEEPABLE.join(", ")
                )))
            }
        }
        Ok(())
    }

    /// `matrix_size = sqrt(cache_footprint_kb * 1024 / 3 / sizeof(unsigned long))` (`main()`).
    pub fn matrix_size(&self) -> u64 {
        (self.cache_footprint_kb.saturating_mul(1024) / 3 / 8).isqrt()
    }

    /// Workers per message thread on a machine of `nr_cpus` CPUs.
    pub fn workers_per_message_thread(&self, nr_cpus: usize) -> u64 {
        if self.worker_threads > 0 {
            self.worker_threads as u64
        } else {
            (nr_cpus as u64).div_ceil(self.message_threads.max(1) as u64)
        }
    }

    /// The matrix math of one request, ns on a capacity-1024 CPU at its highest OPP.
    pub fn request_work_ns(&self) -> u64 {
        let n = self.matrix_size();
        self.operations
            .saturating_mul(n * n * n)
            .saturating_mul(self.madd_ps)
            / 1000
    }

    fn validate(&self, nr_cpus: usize) -> Result<()> {
        let err = |m: String| Err(Error::Workload(format!("schbench {m}")));
        if self.message_threads == 0 {
            return err("needs at least one message thread".into());
        }
        let workers = self.message_threads as u64 * self.workers_per_message_thread(nr_cpus);
        if workers > MAX_WORKERS {
            return err(format!(
                "has {workers} workers; at most {MAX_WORKERS} (fewer -m or -t)"
            ));
        }
        if self.runtime_s == 0 || self.runtime_s > MAX_RUNTIME_S {
            return err(format!(
                "runtime_s must be 1 to {MAX_RUNTIME_S}, not {}",
                self.runtime_s
            ));
        }
        if self.cache_footprint_kb == 0 || self.cache_footprint_kb > 1 << 20 {
            return err("cache_footprint_kb must be 1 to 1048576 (1 GB)".into());
        }
        if self.madd_ps == 0 || self.madd_ps > 1_000_000 {
            return err("madd_ps must be 1 to 1000000".into());
        }
        if self.operations > 1_000_000 || self.sleep_us > 10_000_000 {
            return err("operations must be at most 1000000 and sleep_us at most 10000000".into());
        }
        if self.request_work_ns() == 0 && self.sleep_us == 0 {
            return err("requests must take some time (operations or sleep_us)".into());
        }
        if self.request_work_ns() > 10 * NSEC_PER_SEC {
            return err("one request's matrix math must be at most 10 s".into());
        }
        Ok(())
    }

    /// Programs: 0 = main ("schbench"), then per message thread `i` its program (1 + 2i) and its
    /// workers' (2 + 2i). Message thread `i` uses event `i` (its futex) and condition `i` (its
    /// workers' futexes); mutex 0 is never taken (the condition's wait needs one).
    pub fn instantiate(&self, topo: &Topology) -> Result<Instance> {
        let nr_cpus = topo.nr_cpus();
        self.validate(nr_cpus)?;
        let m = self.message_threads as usize;
        let workers = self.workers_per_message_thread(nr_cpus) as usize;
        // pthread_create(): assumed 20 us of the creating thread's work, as hackbench's fork.
        let create = Op::Run {
            work: 20 * NSEC_PER_USEC * WORK_SCALE,
            jitter_ppm: 200_000,
        };
        let mut main = vec![Op::MarkStart];
        for i in 0..m {
            main.extend([create.clone(), Op::Fork(1 + 2 * i)]);
        }
        main.push(Op::Exit);
        let mut programs = vec![Program::new("schbench", main)];
        let request = self.request_work_ns().max(1) * WORK_SCALE;
        for i in 0..m {
            let mut msg = Vec::with_capacity(2 * workers + 4);
            for _ in 0..workers {
                msg.extend([create.clone(), Op::Fork(2 + 2 * i)]);
            }
            let top = msg.len();
            msg.extend([Op::Suspend(i), Op::CondBroadcast(i), Op::Jump(top)]);
            programs.push(Program::new("schbench-msg", msg));
            let mut w = vec![
                Op::Resume(i),
                Op::CondWait { cond: i, mutex: 0 },
                Op::WakeupSample,
                Op::RequestStart,
            ];
            if self.sleep_us > 0 {
                w.push(Op::Sleep(self.sleep_us * NSEC_PER_USEC));
            }
            w.extend([
                Op::Run {
                    work: request,
                    jitter_ppm: 0,
                },
                Op::RequestEnd,
                Op::Count(1),
                Op::Jump(0),
            ]);
            programs.push(Program::new("schbench-worker", w));
        }
        let mut inst = Instance::new(programs, vec![0], self.metric());
        inst.events = m;
        inst.conds = m;
        inst.mutexes = 1;
        inst.stop_at = Some(self.runtime_s * NSEC_PER_SEC);
        Ok(inst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_follow_schbench() {
        let s = Schbench::default();
        assert_eq!(s.matrix_size(), 104);
        // 5 x 104^3 x 3 ns = 16.873 ms: the README's calibration p50 (16864 us).
        assert_eq!(s.request_work_ns(), 16_872_960);
        assert_eq!(s.workers_per_message_thread(52), 52);
        let two = Schbench {
            message_threads: 2,
            ..Schbench::default()
        };
        assert_eq!(two.workers_per_message_thread(5), 3);
        assert_eq!(s.metric(), Metric::RecordsPerSecond);
        let p: Schbench =
            serde_json::from_str(r#"{"report": {"wakeup-latency": "p99.9"}}"#).unwrap();
        assert_eq!(p.metric(), Metric::WakeupLatency(Pct::P999));
    }

    #[test]
    fn reports_are_strings_and_the_object_form_still_reads() {
        let name = |m: SchbenchMetric| serde_json::to_value(m).unwrap();
        assert_eq!(name(SchbenchMetric::WakeupLatency(Pct::P99)), "wakeup-p99");
        assert_eq!(
            name(SchbenchMetric::RequestLatency(Pct::P999)),
            "request-p99.9"
        );
        assert_eq!(name(SchbenchMetric::Rps), "rps");
        for &m in <SchbenchMetric as crate::latency::names::PctNamed>::ALL {
            let back: SchbenchMetric = serde_json::from_value(name(m)).unwrap();
            assert_eq!(back, m);
            // The same figure's table quantity has the same name.
            let q = crate::experiment::Quantity::from_name(m.name()).unwrap();
            assert_eq!(q.name(), m.name());
        }
        let read = |j: &str| serde_json::from_str::<SchbenchMetric>(j);
        assert_eq!(
            read(r#"{"request-latency": "p90"}"#).unwrap(),
            SchbenchMetric::RequestLatency(Pct::P90)
        );
        assert_eq!(
            read(r#""wakeup-p999""#).unwrap(),
            SchbenchMetric::WakeupLatency(Pct::P999)
        );
        let e = read(r#""wakeup-p42""#).unwrap_err().to_string();
        assert!(e.contains("unknown schbench report `wakeup-p42`"), "{e}");
        assert!(e.contains("request-p99.9, rps"), "{e}");
        assert!(read(r#"{"rps": "p99"}"#).is_err());
    }
}
