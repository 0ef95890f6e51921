//! ebizzy 0.3 (LTP utils/benchmark/ebizzy-0.3/ebizzy.c): `threads` threads each loop over records
//! until the run time is up; one record is: pick a chunk, `malloc` a copy of `chunk_size` bytes,
//! `memcpy` the chunk into it, `bsearch` it for a key, `free` it. The main thread allocates and
//! fills `chunks` chunks, creates the threads, sets `threads_go`, sleeps for the run time, clears
//! `threads_go` and joins the threads. Output: records (summed over threads) / elapsed seconds.
//!
//! The model:
//! - the main task fills the chunks (`chunks x chunk_size` bytes at the copy rate), creates the
//!   threads (`clone_us` each), starts the clock and opens the start gate, sleeps `duration_ms`, stops
//!   the clock and waits for the threads;
//! - a thread takes one event per record from an unlimited pool that closes `duration_ms` after the
//!   start (`threads_go` read at the top of the loop), does the record's work and `Count`s it, so a
//!   record in progress at the end still counts, as `search_mem()`'s `i` does;
//! - one record is CPU work: the copy of `chunk_size` bytes at `copy_mb_per_s` plus `record_us` for
//!   `malloc`, `free` and the binary search (17 probes of a 64 Ki-record chunk).
//!
//! Left out: the threads' busy-wait on `threads_go` before the start (modelled as a blocking wait, so
//! waiting threads do not take CPU time from the main thread while it creates the others); page
//! faults and mm-lock contention when glibc serves the copy with mmap (folded into the per-record
//! cost; glibc's dynamic mmap threshold normally moves 512 KiB allocations to the heap after the
//! first `free`); that a memory-bound copy does not speed up with frequency as CPU work does (it
//! scales with capacity, frequency and SMT contention here). The chunk picked does not matter to the
//! model (LTP 0.3's `rand_num` always returns 0 anyway); `chunks` only sizes the set-up.
//! ebizzy divides by whole seconds of `time()`; the model divides by the exact duration.

use super::{Instance, Metric, Op, Program};
use crate::error::{Error, Result};
use crate::topology::Topology;
use crate::units::{NSEC_PER_MSEC, NSEC_PER_SEC, NSEC_PER_USEC, WORK_SCALE};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Ebizzy {
    /// `-t`: threads; ebizzy's default (and this one's, when absent) is 2 x online CPUs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads: Option<u32>,
    /// `-n`: chunks; ebizzy's default is 10.
    #[serde(default = "default_chunks")]
    pub chunks: u32,
    /// `-s`: chunk size in bytes; ebizzy's default is 64 Ki records of 8 bytes = 512 KiB.
    #[serde(default = "default_chunk_size")]
    pub chunk_size: u64,
    /// `-S` in ms; ebizzy's default is 10 s.
    #[serde(default = "default_duration_ms")]
    pub duration_ms: u64,
    /// Copy rate of one thread in MB/s (10^6 bytes/s), on a capacity-1024 CPU at its highest OPP.
    /// Assumed 10000: a single core's `memcpy` of a buffer that lives in L2/L3, so 512 KiB take
    /// 52 us.
    #[serde(default = "default_copy_mb_per_s")]
    pub copy_mb_per_s: u64,
    /// Work of `malloc`, `free` and `bsearch` per record, in us; assumed 3.
    #[serde(default = "default_record_us")]
    pub record_us: u64,
    /// Run-to-run variation of a record's work, in ppm; assumed 20000 (cache and TLB noise).
    #[serde(default = "default_record_jitter_ppm")]
    pub record_jitter_ppm: u32,
    /// Work per record inside the process's `mmap_lock`, in us (default 0: no lock). glibc serves
    /// a 512 KiB `malloc()` with `mmap()`, so each record maps, faults and unmaps memory under the
    /// mm lock: threads then block on each other and are woken where the scheduler places them.
    #[serde(default)]
    pub mm_lock_us: u64,
    /// Work of `pthread_create()` in the main thread, per thread, in us; assumed 30.
    #[serde(default = "default_clone_us")]
    pub clone_us: u64,
    /// This workload's speed per core type and its SMT contention, apart from the
    /// `capacity_orig` the kernel sees (see [`super::speed`]); default: none given.
    #[serde(
        default,
        skip_serializing_if = "super::speed::WorkloadSpeed::is_default"
    )]
    pub speed: super::speed::WorkloadSpeed,
}

fn default_chunks() -> u32 {
    10
}
fn default_chunk_size() -> u64 {
    8 * 64 * 1024
}
fn default_duration_ms() -> u64 {
    10_000
}
fn default_copy_mb_per_s() -> u64 {
    10_000
}
fn default_record_us() -> u64 {
    3
}
fn default_record_jitter_ppm() -> u32 {
    20_000
}
fn default_clone_us() -> u64 {
    30
}

/// Core types whose SMT threads share the L1, ERAT and load/store units ebizzy's copy is bound by,
/// as POWER9's small cores do (see [`Ebizzy::speed_defaults`]).
pub const SMT_BOUND_CORE_TYPES: &[&str] = &["POWER9"];

/// Parameters a scenario may sweep.
pub const SWEEPABLE: &[&str] = &["threads", "duration_ms"];
pub const MAX_THREADS: u32 = 4096;
pub const MAX_CHUNKS: u32 = 4096;
pub const MAX_CHUNK_SIZE: u64 = 1 << 30;
/// Longest run, in ms.
pub const MAX_DURATION_MS: u64 = 600_000;
/// Most records a run may complete, estimated from the busiest case (every CPU running a thread at
/// full speed): each record is at least two simulation events.
pub const MAX_RECORDS: u64 = 10_000_000;

impl Default for Ebizzy {
    fn default() -> Ebizzy {
        Ebizzy {
            threads: None,
            chunks: default_chunks(),
            chunk_size: default_chunk_size(),
            duration_ms: default_duration_ms(),
            copy_mb_per_s: default_copy_mb_per_s(),
            record_us: default_record_us(),
            record_jitter_ppm: default_record_jitter_ppm(),
            clone_us: default_clone_us(),
            mm_lock_us: 0,
            speed: Default::default(),
        }
    }
}

impl Ebizzy {
    /// ebizzy with `-t threads -S seconds`, other options at their defaults.
    pub fn new(threads: u32, duration_ms: u64) -> Ebizzy {
        Ebizzy {
            threads: Some(threads),
            duration_ms,
            ..Ebizzy::default()
        }
    }

    pub fn metric(&self) -> Metric {
        Metric::RecordsPerSecond
    }

    pub fn set_param(&mut self, name: &str, value: u64) -> Result<()> {
        match name {
            "threads" => {
                self.threads = Some(
                    u32::try_from(value)
                        .map_err(|_| Error::Workload("ebizzy threads is too large".into()))?,
                )
            }
            "duration_ms" => self.duration_ms = value,
            _ => {
                return Err(Error::Workload(format!(
                    "ebizzy cannot sweep '{name}'; it can sweep: {}",
                    SWEEPABLE.join(", ")
                )))
            }
        }
        Ok(())
    }

    /// Threads on `topo`: the given number or 2 x its CPUs.
    pub fn threads_on(&self, topo: &Topology) -> u32 {
        self.threads.unwrap_or(2 * topo.nr_cpus() as u32)
    }

    /// Work of one record in reference ns (copy plus `record_us`).
    pub fn record_ns(&self) -> u64 {
        let size = self.chunk_size.min(MAX_CHUNK_SIZE);
        // bytes / (MB/s) = us; x 1000 for ns. size <= 2^30: no overflow.
        size * 1_000 / self.copy_mb_per_s.max(1) + self.record_us.min(1_000_000) * 1_000
    }

    /// ebizzy's SMT contention on the core types where it is known to be worse than an average
    /// workload's ([`SMT_BOUND_CORE_TYPES`]): the copy, which is most of a record (52 of 55 us with
    /// the defaults), streams a 512 KiB chunk through the small core's L1, ERAT and load/store
    /// units, which POWER9's threads of one small core share (425752c63b6f; hardware-facts.md).
    /// **[assumed]**: one thread's copy already takes the small core's whole load/store bandwidth,
    /// so k busy threads share it (each copies at 1/k of a lone thread's speed), while the rest of a
    /// record (`record_us`, `mm_lock_us`: allocator, search, page faults) shares the core as an
    /// average workload does (the cluster's `smt_throughput`). Per busy thread, in 1/1024 of a lone
    /// one: `1024 x (copy + rest) / (k x copy + rest x 1024 / core[k-1])`; with the defaults on
    /// POWER9 `[1024, 522, 350, 263]`, against the core's `[1024, 820, 660, 540]`. Derived from the
    /// record's make-up, not from any result. Other SMT core types (Intel's) keep their default
    /// **[assumed]**: no figure for ebizzy there.
    pub fn speed_defaults(&self, topo: &Topology) -> super::speed::Defaults {
        let copy = self.chunk_size.min(MAX_CHUNK_SIZE) * 1_000 / self.copy_mb_per_s.max(1);
        let rest = (self.record_us.min(1_000_000) + self.mm_lock_us.min(1_000_000)) * 1_000;
        let mut smt_throughput = Vec::new();
        for &ty in SMT_BOUND_CORE_TYPES {
            let Some(cpu) = topo.cpus.iter().find(|c| {
                topo.spec.clusters[c.cluster].core_type == ty && topo.cores[c.core].weight() > 1
            }) else {
                continue;
            };
            let core = &topo.smt_groups[cpu.smt_group].throughput;
            let n = topo.smt_groups[cpu.smt_group].cpus.weight().max(core.len());
            let table = (1..=n as u64)
                .map(|k| {
                    let tp = *core.get(k as usize - 1).or(core.last()).unwrap_or(&1024) as u64;
                    let denom = k * copy + rest * 1024 / tp.max(1);
                    (1024 * (copy + rest) / denom.max(1)).clamp(1, 1024) as u32
                })
                .collect();
            smt_throughput.push((ty, table));
        }
        super::speed::Defaults {
            per_mhz: &[],
            smt_throughput,
        }
    }

    pub fn instantiate(&self, topo: &Topology) -> Result<Instance> {
        let err = |m: String| Err(Error::Workload(format!("ebizzy {m}")));
        let threads = self.threads_on(topo);
        if threads == 0 || threads > MAX_THREADS {
            return err(format!("threads must be 1 to {MAX_THREADS}, not {threads}"));
        }
        let chunks = self.chunks;
        if chunks == 0 || chunks > MAX_CHUNKS {
            return err(format!("chunks must be 1 to {MAX_CHUNKS}, not {chunks}"));
        }
        let chunk_size = self.chunk_size;
        if !(8..=MAX_CHUNK_SIZE).contains(&chunk_size) {
            return err(format!(
                "chunk_size must be 8 (one record) to {MAX_CHUNK_SIZE} bytes, not {chunk_size}"
            ));
        }
        let duration_ms = self.duration_ms;
        if duration_ms == 0 || duration_ms > MAX_DURATION_MS {
            return err(format!(
                "duration_ms must be 1 to {MAX_DURATION_MS}, not {duration_ms}"
            ));
        }
        let rate = self.copy_mb_per_s;
        if rate == 0 || rate > 10_000_000 {
            return err("copy_mb_per_s must be 1 to 10000000".into());
        }
        let (record_us, clone_us) = (self.record_us, self.clone_us);
        if record_us > 1_000_000 || clone_us > 1_000_000 || self.mm_lock_us > 1_000_000 {
            return err("record_us, clone_us and mm_lock_us must be at most 1000000 (1 s)".into());
        }
        let jitter = self.record_jitter_ppm;
        if jitter > 500_000 {
            return err("record_jitter_ppm must be at most 500000".into());
        }
        let record_ns = self.record_ns().max(1);
        // Upper bound: every CPU runs a thread at full speed (turbo ignored, a few % at most).
        let busy = threads.min(topo.nr_cpus() as u32) as u64;
        let records = busy * duration_ms * NSEC_PER_MSEC / record_ns;
        if records > MAX_RECORDS {
            return err(format!(
                "would complete about {records} records ({busy} threads running for {duration_ms} \
                 ms, {record_ns} ns each); at most {MAX_RECORDS} keep a page responsive: use a \
                 shorter duration_ms, fewer threads or bigger chunks"
            ));
        }

        let us = |v: u64| v * NSEC_PER_USEC * WORK_SCALE;
        // Filling the chunks: chunks x chunk_size bytes written at the copy rate.
        let fill_ns = (chunks as u64 * chunk_size).saturating_mul(1_000) / rate;
        let mut main = Vec::with_capacity(2 * threads as usize + 8);
        main.push(Op::Run {
            work: fill_ns.clamp(1, 60 * NSEC_PER_SEC) * WORK_SCALE,
            jitter_ppm: 0,
        });
        for _ in 0..threads {
            main.push(Op::Run {
                work: us(clone_us).max(1),
                jitter_ppm: 200_000,
            });
            main.push(Op::Fork(1));
        }
        main.extend([
            Op::MarkStart,
            Op::OpenGate(0),
            Op::Sleep(duration_ms * NSEC_PER_MSEC),
            Op::MarkEnd,
            Op::WaitChildren,
            Op::Exit,
        ]);
        let mut thread = vec![
            Op::WaitGate(0),
            Op::TakeEvent {
                pool: 0,
                exhausted: 0,
            },
        ];
        if self.mm_lock_us > 0 {
            // The mmap_lock section of malloc()/free() of a chunk served by mmap (and its faults).
            thread.extend([
                Op::Lock(0),
                Op::Run {
                    work: us(self.mm_lock_us),
                    jitter_ppm: jitter,
                },
                Op::Unlock(0),
            ]);
        }
        thread.extend([
            Op::Run {
                work: record_ns * WORK_SCALE,
                jitter_ppm: jitter,
            },
            Op::Count(1),
            Op::Jump(1),
        ]);
        let exit = thread.len();
        thread[1] = Op::TakeEvent {
            pool: 0,
            exhausted: exit,
        };
        thread.push(Op::Exit);
        let mut inst = Instance::new(
            vec![
                Program::new("ebizzy", main),
                Program::new("ebizzy-thread", thread),
            ],
            vec![0],
            self.metric(),
        );
        inst.pools = vec![u64::MAX];
        inst.gates = 1;
        inst.mutexes = usize::from(self.mm_lock_us > 0);
        inst.deadline_after_start = Some(duration_ms * NSEC_PER_MSEC);
        Ok(inst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::presets::preset;

    fn topo(name: &str) -> Topology {
        Topology::build(&preset(name).unwrap()).unwrap()
    }

    #[test]
    fn smt_contention_is_ebizzys_own_on_power9_only() {
        let e = Ebizzy::default();
        let d = e.speed_defaults(&topo("power9-smt8"));
        assert_eq!(
            d.smt_throughput,
            vec![("POWER9", vec![1024, 522, 350, 263])]
        );
        // The mm lock's page-fault work shares the core as an average workload: less contention.
        let locked = Ebizzy {
            mm_lock_us: 2,
            ..Ebizzy::default()
        };
        let d = locked.speed_defaults(&topo("power9-smt8"));
        assert_eq!(d.smt_throughput[0].1[1], 529);
        // Intel's hyperthreads and non-SMT cores keep the core's default.
        assert!(e
            .speed_defaults(&topo("cascadelake-8260l"))
            .smt_throughput
            .is_empty());
        assert!(e
            .speed_defaults(&topo("hikey960"))
            .smt_throughput
            .is_empty());
    }

    #[test]
    fn defaults_are_ebizzys() {
        let e = Ebizzy::default();
        let t = topo("hikey960");
        assert_eq!(e.threads_on(&t), 16);
        // 512 KiB at 10000 MB/s = 52.4 us, plus 3 us.
        assert_eq!(e.record_ns(), 524_288 * 1000 / 10_000 + 3_000);
        let inst = e.instantiate(&t).unwrap();
        inst.validate().unwrap();
        let forks = inst.programs[0]
            .ops
            .iter()
            .filter(|op| **op == Op::Fork(1))
            .count();
        assert_eq!(forks, 16);
        assert_eq!(inst.deadline_after_start, Some(10 * NSEC_PER_SEC));
        assert!(inst.programs[0].ops.contains(&Op::Sleep(10 * NSEC_PER_SEC)));
    }

    #[test]
    fn bad_parameters_say_what_to_change() {
        let t = topo("hikey960");
        let e = Ebizzy::new(0, 1000).instantiate(&t).unwrap_err();
        assert!(e.to_string().contains("threads must be 1 to"), "{e}");
        let mut big = Ebizzy::new(8, 600_000);
        big.chunk_size = 4096;
        let e = big.instantiate(&t).unwrap_err();
        assert!(e.to_string().contains("shorter duration_ms"), "{e}");
        let mut odd = Ebizzy::new(2, 100);
        odd.chunk_size = u64::MAX;
        assert!(odd.instantiate(&t).is_err());
        odd.chunk_size = 4096;
        odd.copy_mb_per_s = 0;
        assert!(odd.instantiate(&t).is_err());
    }
}
