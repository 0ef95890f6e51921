//! gitsource-like: git's test suite (`make test` in a git checkout, as mmtests' gitsource runs it),
//! which is a long, mostly serial chain of short single-threaded processes: a shell forks a `git`
//! command, waits for it, forks the next. Each lives for a millisecond or two, so the chain keeps
//! starting tasks on idle CPUs with no utilization history, which is what makes it sensitive to fork
//! placement and to how fast cpufreq reacts (E2). Metric: elapsed seconds.
//!
//! The model: the shell ("sh") runs `processes` commands. Per command it does `shell_us` of work
//! (parsing, `fork()`), forks the command and waits for it. A command first execs ([`Op::Exec`]:
//! the forked shell child calls `execve()` of `git` or the test's helper, and `sched_exec()` may
//! move it to an idler CPU), then does `exec_us` (loading and dynamic linking) plus its own work,
//! and exits; every `io_every`-th command sleeps `io_us` halfway
//! through (a read or fsync that misses the page cache: an [`Op::IoSleep`], so its wake-up is an
//! IOWAIT one for schedutil's iowait boost; the commands' other blocking, waiting for children,
//! is not I/O). Every `parallel_every`-th step is a
//! two-command pipeline (`git ... | grep ...`): both are forked before the shell waits, so they run
//! at the same time: this is the small parallel fraction. Command `i`'s work is `work_us` times one of
//! 8 factors (1/4 to 2.5, average exactly 1; [`WORK_FACTORS`]) picked by a hash of `i`.
//!
//! Left out: the test scripts' own structure (several shells, `make` running scripts one after
//! another), file-system work beyond the occasional sleep, and everything git does in more than one
//! thread. All values are assumptions chosen for the shape, not a measured profile.

use super::{Instance, Metric, Op, Program};
use crate::error::{Error, Result};
use crate::units::{NSEC_PER_USEC, WORK_SCALE};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Gitsource {
    /// Commands in the chain; assumed 2000 (the real suite runs hundreds of thousands; the time per
    /// command is what the comparison shows).
    #[serde(default = "default_processes")]
    pub processes: u32,
    /// Average work of one command in us, on a capacity-1024 CPU at its highest OPP; assumed 1500.
    #[serde(default = "default_work_us")]
    pub work_us: u64,
    /// Work of exec and dynamic linking per command, in us; assumed 300.
    #[serde(default = "default_exec_us")]
    pub exec_us: u64,
    /// The shell's work per command (parsing, `fork()`, `wait()`), in us; assumed 100.
    #[serde(default = "default_shell_us")]
    pub shell_us: u64,
    /// Every n-th command sleeps for I/O halfway through (0 = never); assumed 5.
    #[serde(default = "default_io_every")]
    pub io_every: u32,
    /// Length of that sleep, in us; assumed 200.
    #[serde(default = "default_io_us")]
    pub io_us: u64,
    /// Every n-th step runs two commands at once, a pipeline (0 = never); assumed 20, so ~5% of
    /// steps have two commands running.
    #[serde(default = "default_parallel_every")]
    pub parallel_every: u32,
    /// Run-to-run variation of each command's work, in ppm; assumed 50000 (+-5%).
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

fn default_processes() -> u32 {
    2000
}
fn default_work_us() -> u64 {
    1500
}
fn default_exec_us() -> u64 {
    300
}
fn default_shell_us() -> u64 {
    100
}
fn default_io_every() -> u32 {
    5
}
fn default_io_us() -> u64 {
    200
}
fn default_parallel_every() -> u32 {
    20
}
fn default_jitter_ppm() -> u32 {
    50_000
}

/// Per-command work factors in 1/1024 of `work_us`; their average is exactly 1024.
pub const WORK_FACTORS: [u64; 8] = [256, 384, 512, 768, 1024, 1280, 1408, 2560];

/// Parameters a scenario may sweep.
pub const SWEEPABLE: &[&str] = &["processes", "work_us"];
pub const MAX_PROCESSES: u32 = 15_000;

/// splitmix64's finaliser: a fixed, well-mixed hash of the command index.
fn mix(i: u64) -> u64 {
    let mut z = i.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Default for Gitsource {
    fn default() -> Gitsource {
        Gitsource {
            processes: default_processes(),
            work_us: default_work_us(),
            exec_us: default_exec_us(),
            shell_us: default_shell_us(),
            io_every: default_io_every(),
            io_us: default_io_us(),
            parallel_every: default_parallel_every(),
            jitter_ppm: default_jitter_ppm(),
            speed: Default::default(),
        }
    }
}

impl Gitsource {
    pub fn metric(&self) -> Metric {
        Metric::ElapsedSeconds
    }

    pub fn set_param(&mut self, name: &str, value: u64) -> Result<()> {
        match name {
            "processes" => {
                self.processes = u32::try_from(value)
                    .map_err(|_| Error::Workload("gitsource processes is too large".into()))?
            }
            "work_us" => self.work_us = value,
            _ => {
                return Err(Error::Workload(format!(
                    "gitsource cannot sweep '{name}'; it can sweep: {}",
                    SWEEPABLE.join(", ")
                )))
            }
        }
        Ok(())
    }

    /// The class (index into [`WORK_FACTORS`]) of command `i`.
    fn class(i: u32) -> usize {
        (mix(i as u64) >> 61) as usize
    }

    /// Work of command `i` in reference ns, before jitter and without `exec_us`.
    pub fn command_work_ns(&self, i: u32) -> u64 {
        self.work_us.min(1_000_000) * NSEC_PER_USEC * WORK_FACTORS[Self::class(i)] / 1024
    }

    /// Whether command `i` sleeps for I/O.
    pub fn does_io(&self, i: u32) -> bool {
        self.io_every > 0 && (i + 1).is_multiple_of(self.io_every)
    }

    /// The commands of each step: one, or two for a pipeline.
    pub fn steps(&self) -> Vec<std::ops::Range<u32>> {
        let mut steps = Vec::new();
        let mut i = 0;
        while i < self.processes {
            let step = steps.len() as u32 + 1;
            let n = if self.parallel_every > 0 && step.is_multiple_of(self.parallel_every) {
                2.min(self.processes - i)
            } else {
                1
            };
            steps.push(i..i + n);
            i += n;
        }
        steps
    }

    /// Programs: 0 = the shell, then one per (work class, with or without I/O): `1 + 2c + io`.
    pub fn instantiate(&self) -> Result<Instance> {
        let err = |m: String| Err(Error::Workload(format!("gitsource {m}")));
        if self.processes == 0 || self.processes > MAX_PROCESSES {
            return err(format!(
                "processes must be 1 to {MAX_PROCESSES}, not {}",
                self.processes
            ));
        }
        if self.work_us == 0 || self.work_us > 1_000_000 {
            return err(format!(
                "work_us must be 1 to 1000000 (1 s), not {}",
                self.work_us
            ));
        }
        if self.exec_us > 1_000_000 || self.shell_us > 1_000_000 || self.io_us > 1_000_000 {
            return err("exec_us, shell_us and io_us must be at most 1000000 (1 s)".into());
        }
        if self.jitter_ppm > 500_000 {
            return err("jitter_ppm must be at most 500000".into());
        }
        let us = |v: u64| v * NSEC_PER_USEC * WORK_SCALE;
        let mut sh = vec![Op::MarkStart];
        for step in self.steps() {
            for i in step {
                let io = self.does_io(i) as usize;
                sh.push(Op::Run {
                    work: us(self.shell_us).max(1),
                    jitter_ppm: self.jitter_ppm,
                });
                sh.push(Op::Fork(1 + 2 * Self::class(i) + io));
            }
            sh.push(Op::WaitChildren);
        }
        sh.extend([Op::MarkEnd, Op::Exit]);
        let mut programs = vec![Program::new("sh", sh)];
        for &factor in &WORK_FACTORS {
            let work = self.work_us * NSEC_PER_USEC * factor / 1024 * WORK_SCALE;
            let run = |w: u64| Op::Run {
                work: w.max(1),
                jitter_ppm: self.jitter_ppm,
            };
            programs.push(Program::new(
                "git",
                vec![Op::Exec, run(us(self.exec_us) + work), Op::Exit],
            ));
            programs.push(Program::new(
                "git",
                vec![
                    Op::Exec,
                    run(us(self.exec_us) + work / 2),
                    Op::IoSleep((self.io_us * NSEC_PER_USEC).max(1)),
                    run(work - work / 2),
                    Op::Exit,
                ],
            ));
        }
        Ok(Instance::new(programs, vec![0], self.metric()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chain_is_serial_but_for_pipelines() {
        let g = Gitsource {
            processes: 45,
            ..Gitsource::default()
        };
        let steps = g.steps();
        // Steps 20 and 40 are pipelines: 43 steps for 45 commands.
        assert_eq!(steps.len(), 43);
        assert_eq!(steps[19], 19..21);
        assert_eq!(steps[39], 40..42);
        let inst = g.instantiate().unwrap();
        inst.validate().unwrap();
        let ops = &inst.programs[0].ops;
        let forks = ops.iter().filter(|op| matches!(op, Op::Fork(_))).count();
        let waits = ops.iter().filter(|op| **op == Op::WaitChildren).count();
        assert_eq!((forks, waits), (45, 43));
        // Commands 4, 9, ... (every fifth) run a program that sleeps.
        let io_forks = ops
            .iter()
            .filter(|op| matches!(op, Op::Fork(p) if (p - 1) % 2 == 1))
            .count();
        assert_eq!(io_forks, 9);
        // Every command execs before it does any work.
        assert!(inst.programs[1..].iter().all(|p| p.ops[0] == Op::Exec));
    }

    #[test]
    fn work_factors_average_one() {
        assert_eq!(WORK_FACTORS.iter().sum::<u64>(), 8 * 1024);
        let g = Gitsource::default();
        let mean = (0..2000).map(|i| g.command_work_ns(i)).sum::<u64>() as f64 / 2000.0;
        assert!((mean - 1.5e6).abs() < 0.1e6, "{mean}");
    }

    #[test]
    fn limits_say_what_to_change() {
        let e = Gitsource {
            processes: 0,
            ..Gitsource::default()
        }
        .instantiate()
        .unwrap_err();
        assert!(e.to_string().contains("processes must be 1 to"), "{e}");
        assert!(Gitsource {
            work_us: u64::MAX,
            ..Gitsource::default()
        }
        .instantiate()
        .is_err());
    }
}
