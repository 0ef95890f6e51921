//! kernbench-like (LTP utils/benchmark/kernbench-0.42, Con Kolivas): a kernel build with
//! `make -j jobs`, timed. kernbench runs it at jobs = ncpus/2, 4 x ncpus ("optimal") and unlimited.
//! The shape that matters to the scheduler: many short-lived, CPU-bound compiler processes, with
//! fork/exec/exit churn that exercises fork placement (`SD_BALANCE_FORK`), exec placement
//! (`sched_exec()`, `SD_BALANCE_EXEC`) and idle balancing. Metric: elapsed seconds.
//!
//! The model: `jobs` job slots, each a task standing for one of make's job-server slots. A slot
//! takes the next file not yet started, in Makefile order (one single-event pool per file: a slot
//! scans forward for the first file whose pool still holds its event), pays `make_us` of make's
//! work, forks the compiler for that file and waits for it, then takes the next file. The compiler
//! child execs at once ([`Op::Exec`]: make's child calls `execve()` of the shell that runs `gcc`,
//! and `sched_exec()` may move it to an idler CPU before it does any work), then does `exec_us`
//! (loading, dynamic linking, the `gcc` driver's own processes) plus the file's compile work, and
//! exits. When every file is built, the final link (`link_ms`, one process, also forked and
//! exec'd) runs alone. The clock runs from make's start to the end of the link.
//!
//! Per-file work is deterministic: file `i`'s work is `work_ms` times one of 16 factors (1/4 to
//! ~2.4, average exactly 1; [`WORK_FACTORS`]), picked by a hash of `i`, so a few files take ten
//! times as long as the shortest, as in a real tree; `jitter_ppm` adds run-to-run noise.
//!
//! Left out: that real make is one process reaping any child (here each slot waits for its own
//! child, so a finished compiler wakes its slot rather than make itself; the slot's wake-up and
//! fork come from the CPU it last ran on), the serial configuration and header steps before the
//! compile, I/O, and the several processes one compile really is (`sh`, `gcc`, `cc1`, `as`: folded
//! into `exec_us` and the compile work).

use super::{Instance, Metric, Op, Program};
use crate::error::{Error, Result};
use crate::units::{NSEC_PER_MSEC, NSEC_PER_USEC, WORK_SCALE};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Kernbench {
    /// `make -j`: concurrent compile jobs; 0 = unlimited (`make -j`), one slot per file.
    pub jobs: u32,
    /// Compilation units. An x86-64 defconfig has a few thousand; the default, 1000, is a smaller
    /// tree that a page simulates in reasonable time.
    #[serde(default = "default_files")]
    pub files: u32,
    /// Average compile work per file in ms, on a capacity-1024 CPU at its highest OPP. Assumed 100
    /// (kernel C files take ~0.1-1 s each on a 2020-era core at -O2; shorter here for the page).
    #[serde(default = "default_work_ms")]
    pub work_ms: u64,
    /// Work of starting one compiler (fork/exec of the shell, `gcc` driver, `cc1`, `as`, dynamic
    /// linking), in us; assumed 2000.
    #[serde(default = "default_exec_us")]
    pub exec_us: u64,
    /// make's own work per job (dependency check, command expansion, `fork()`), in us; assumed 200.
    #[serde(default = "default_make_us")]
    pub make_us: u64,
    /// The final link (`vmlinux`), serial, in ms; assumed 300.
    #[serde(default = "default_link_ms")]
    pub link_ms: u64,
    /// Run-to-run variation of each compile, in ppm; assumed 50000 (+-5%).
    #[serde(default = "default_jitter_ppm")]
    pub jitter_ppm: u32,
    /// This workload's speed per core type and its SMT contention, apart from the
    /// `capacity_orig` the kernel sees (see [`super::speed`]); default: none given.
    #[serde(
        default,
        skip_serializing_if = "super::speed::WorkloadSpeed::is_default"
    )]
    pub speed: super::speed::WorkloadSpeed,
}

fn default_files() -> u32 {
    1000
}
fn default_work_ms() -> u64 {
    100
}
fn default_exec_us() -> u64 {
    2_000
}
fn default_make_us() -> u64 {
    200
}
fn default_link_ms() -> u64 {
    300
}
fn default_jitter_ppm() -> u32 {
    50_000
}

/// Per-file work factors in 1/1024 of `work_ms`; their average is exactly 1024.
pub const WORK_FACTORS: [u64; 16] = [
    256, 320, 384, 448, 512, 576, 640, 768, 896, 1024, 1152, 1280, 1536, 1792, 2304, 2496,
];

/// Parameters a scenario may sweep.
pub const SWEEPABLE: &[&str] = &["jobs", "files"];
pub const MAX_JOBS: u32 = 4096;
pub const MAX_FILES: u32 = 10_000;
/// Most CPU work a run may have in total, in ms (an hour: ~900k scheduler ticks).
pub const MAX_TOTAL_WORK_MS: u64 = 3_600_000;

/// splitmix64's finaliser: a fixed, well-mixed hash of the file index.
fn mix(i: u64) -> u64 {
    let mut z = i.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Kernbench {
    pub fn new(jobs: u32) -> Kernbench {
        Kernbench {
            jobs,
            files: default_files(),
            work_ms: default_work_ms(),
            exec_us: default_exec_us(),
            make_us: default_make_us(),
            link_ms: default_link_ms(),
            jitter_ppm: default_jitter_ppm(),
            speed: Default::default(),
        }
    }

    pub fn metric(&self) -> Metric {
        Metric::ElapsedSeconds
    }

    pub fn set_param(&mut self, name: &str, value: u64) -> Result<()> {
        let v = u32::try_from(value)
            .map_err(|_| Error::Workload(format!("kernbench {name} is too large")));
        match name {
            "jobs" => self.jobs = v?,
            "files" => self.files = v?,
            _ => {
                return Err(Error::Workload(format!(
                    "kernbench cannot sweep '{name}'; it can sweep: {}",
                    SWEEPABLE.join(", ")
                )))
            }
        }
        Ok(())
    }

    /// Compile work of file `i` in reference ns, before jitter and without `exec_us`.
    pub fn file_work_ns(&self, i: u32) -> u64 {
        let factor = WORK_FACTORS[(mix(i as u64) >> 60) as usize];
        self.work_ms.min(MAX_TOTAL_WORK_MS) * NSEC_PER_MSEC * factor / 1024
    }

    /// Job slots: `jobs`, or one per file when unlimited (0) or more than the files.
    pub fn slots(&self) -> u32 {
        if self.jobs == 0 {
            self.files
        } else {
            self.jobs.min(self.files)
        }
    }

    /// Programs: 0 = make, 1 = a job slot, 2 = the link, `3 + i` = the compiler of file `i`.
    /// Pool `i` holds file `i`'s one event.
    pub fn instantiate(&self) -> Result<Instance> {
        let err = |m: String| Err(Error::Workload(format!("kernbench {m}")));
        if self.jobs > MAX_JOBS {
            return err(format!(
                "jobs must be at most {MAX_JOBS} (0 = unlimited), not {}",
                self.jobs
            ));
        }
        if self.files == 0 || self.files > MAX_FILES {
            return err(format!(
                "files must be 1 to {MAX_FILES}, not {}",
                self.files
            ));
        }
        if self.work_ms == 0 || self.work_ms > 60_000 {
            return err(format!(
                "work_ms must be 1 to 60000 (a minute per file), not {}",
                self.work_ms
            ));
        }
        let total_ms = (self.files as u64).saturating_mul(self.work_ms);
        if total_ms > MAX_TOTAL_WORK_MS {
            return err(format!(
                "has files x work_ms = {total_ms} ms of compile work; at most {MAX_TOTAL_WORK_MS} \
                 keep a page responsive: use fewer files or less work per file"
            ));
        }
        if self.exec_us > 1_000_000 || self.make_us > 1_000_000 {
            return err("exec_us and make_us must be at most 1000000 (1 s)".into());
        }
        if self.link_ms > 600_000 {
            return err("link_ms must be at most 600000 (10 min)".into());
        }
        if self.jitter_ppm > 500_000 {
            return err("jitter_ppm must be at most 500000".into());
        }

        let files = self.files as usize;
        let us = |v: u64| v * NSEC_PER_USEC * WORK_SCALE;
        let mut make = Vec::with_capacity(self.slots() as usize + 6);
        make.push(Op::MarkStart);
        make.extend((0..self.slots()).map(|_| Op::Fork(1)));
        make.push(Op::WaitChildren);
        if self.link_ms > 0 {
            make.extend([Op::Fork(2), Op::WaitChildren]);
        }
        make.extend([Op::MarkEnd, Op::Exit]);
        // Slot: per file, [take it or skip to the next, make's work, fork, wait].
        let mut slot = Vec::with_capacity(4 * files + 1);
        for i in 0..files {
            slot.extend([
                Op::TakeEvent {
                    pool: i,
                    exhausted: 4 * (i + 1),
                },
                Op::Run {
                    work: us(self.make_us).max(1),
                    jitter_ppm: 200_000,
                },
                Op::Fork(3 + i),
                Op::WaitChildren,
            ]);
        }
        slot.push(Op::Exit);
        let mut programs = Vec::with_capacity(3 + files);
        programs.push(Program::new("make", make));
        programs.push(Program::new("make", slot));
        programs.push(Program::new(
            "ld",
            vec![
                Op::Exec,
                Op::Run {
                    work: (self.link_ms * NSEC_PER_MSEC * WORK_SCALE).max(1),
                    jitter_ppm: self.jitter_ppm,
                },
                Op::Exit,
            ],
        ));
        for i in 0..self.files {
            programs.push(Program::new(
                "cc1",
                vec![
                    Op::Exec,
                    Op::Run {
                        work: (us(self.exec_us) + self.file_work_ns(i) * WORK_SCALE).max(1),
                        jitter_ppm: self.jitter_ppm,
                    },
                    Op::Exit,
                ],
            ));
        }
        let mut inst = Instance::new(programs, vec![0], self.metric());
        inst.pools = vec![1; files];
        Ok(inst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_factors_average_one_and_files_spread_over_them() {
        assert_eq!(WORK_FACTORS.iter().sum::<u64>(), 16 * 1024);
        let k = Kernbench::new(8);
        let mut seen = [0u32; 16];
        for i in 0..1000 {
            let w = k.file_work_ns(i);
            let f = WORK_FACTORS
                .iter()
                .position(|&f| f * 100 * NSEC_PER_MSEC / 1024 == w);
            seen[f.unwrap()] += 1;
        }
        // Each factor gets its share (1000 / 16 = 62.5) within a loose margin.
        assert!(seen.iter().all(|&n| (35..=95).contains(&n)), "{seen:?}");
        let total: u64 = (0..1000).map(|i| k.file_work_ns(i)).sum();
        let mean_ms = total as f64 / 1000.0 / 1e6;
        assert!((mean_ms - 100.0).abs() < 8.0, "{mean_ms}");
    }

    #[test]
    fn slots_take_files_in_order_and_unlimited_means_one_slot_per_file() {
        let k = Kernbench {
            files: 5,
            ..Kernbench::new(2)
        };
        let inst = k.instantiate().unwrap();
        inst.validate().unwrap();
        assert_eq!(inst.pools, vec![1; 5]);
        let forks = inst.programs[0].ops.iter().filter(|op| **op == Op::Fork(1));
        assert_eq!(forks.count(), 2);
        let slot = &inst.programs[1].ops;
        assert_eq!(slot.len(), 21);
        assert_eq!(
            slot[8],
            Op::TakeEvent {
                pool: 2,
                exhausted: 12
            }
        );
        assert_eq!(slot[10], Op::Fork(5));
        // The compiler and the link exec before they do any work.
        assert_eq!(inst.programs[5].ops[0], Op::Exec);
        assert_eq!(inst.programs[2].ops[0], Op::Exec);
        let unlimited = Kernbench {
            files: 5,
            ..Kernbench::new(0)
        };
        assert_eq!(unlimited.slots(), 5);
        assert_eq!(
            Kernbench {
                files: 5,
                ..Kernbench::new(64)
            }
            .slots(),
            5
        );
    }

    #[test]
    fn limits_say_what_to_change() {
        let e = Kernbench {
            files: 10_000,
            work_ms: 1_000,
            ..Kernbench::new(8)
        }
        .instantiate()
        .unwrap_err();
        assert!(e.to_string().contains("fewer files"), "{e}");
        assert!(Kernbench::new(MAX_JOBS + 1).instantiate().is_err());
        let e = Kernbench {
            files: 0,
            ..Kernbench::new(8)
        }
        .instantiate()
        .unwrap_err();
        assert!(e.to_string().contains("files must be 1 to"), "{e}");
        assert!(Kernbench {
            work_ms: u64::MAX,
            ..Kernbench::new(8)
        }
        .instantiate()
        .is_err());
    }
}
