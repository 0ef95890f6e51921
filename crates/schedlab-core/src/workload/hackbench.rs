//! hackbench as `perf bench sched messaging` (tools/perf/bench/sched-messaging.c, v6.8): `groups`
//! groups of `fds` receivers and `fds` senders. Each receiver owns one AF_UNIX SOCK_STREAM socketpair
//! (a pipe with `-p`); every sender of a group writes one `datasize`-byte message to each of its
//! group's receivers, `loops` times; each receiver reads `fds x loops` messages. Receivers block on an
//! empty socket, senders on a full one, so the run is wake-up driven and many-to-many within a group,
//! with no traffic between groups. Metric: elapsed time from the common start to the last exit.
//!
//! The model:
//! - the main task ("perf") forks, group by group, the receivers and then the senders (as `group()`
//!   does), paying `fork_us` of work per fork;
//! - each worker does `worker_init_us` of start-up work, writes one byte to the shared "ready" pipe
//!   and waits for the start (`ready()`: poll on the wake fd, modelled as a gate);
//! - the main task reads one ready byte per worker (one wake-up each, as `read(readyfds[0], .., 1)` in
//!   a loop does), starts the clock, opens the gate (the write to the wake fd), waits for every
//!   worker to exit (`reap_worker()`), stops the clock;
//! - a write costs `write_ns + datasize / copy rate` of CPU work and is followed by the `Send`, which
//!   wakes the receiver (`WF_SYNC`); a read is the `Recv` followed by `read_ns + datasize / copy rate`
//!   of work. The socket or pipe is a byte buffer of `buffer_bytes` (see [`Hackbench::buffer_bytes`]).
//!
//! Left out: short writes and reads (the benchmark loops until a whole message is moved; here a
//! message moves at once), the cost of context switches themselves (folded into the per-message
//! costs), and `-t`'s difference from processes (thread mode only changes the task names: the
//! scheduler treats threads and processes alike in everything modelled here).
//!
//! Scale: `groups x fds x fds x loops` messages, each at least two simulation events. The benchmark's
//! defaults (`-g 10 -l 100`: 400,000 messages) run in well under a second of host time; the E4
//! command line `-g 50 -l 5000` is 10^8 messages, ten times [`MAX_MESSAGES`]. Once all groups are
//! running the elapsed time grows linearly with `loops`, so run fewer loops and scale:
//! `-g 50 -l 50` takes about 1/100 of `-g 50 -l 5000`.

use super::{Instance, Metric, Op, Program};
use crate::error::{Error, Result};
use crate::units::{Work, NSEC_PER_USEC, WORK_SCALE};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Hackbench {
    /// `-g`: number of groups; perf's default is 10.
    #[serde(default = "default_groups")]
    pub groups: u32,
    /// `-l`: messages each sender writes to each receiver; perf's default is 100.
    #[serde(default = "default_loops")]
    pub loops: u64,
    /// `-f`: receivers (and senders) per group; perf's default is 20.
    #[serde(default = "default_fds")]
    pub fds: u32,
    /// Bytes per message (`DATASIZE`, 100 in perf).
    #[serde(default = "default_datasize")]
    pub datasize: u64,
    /// `-p`: pipes instead of AF_UNIX sockets (changes the default buffer size).
    #[serde(default)]
    pub pipe: bool,
    /// `-t`: threads instead of processes (only the task names change).
    #[serde(default)]
    pub threads: bool,
    /// Payload bytes one socket or pipe holds before a writer blocks. Default: for a pipe 65536
    /// (16 pages, `PIPE_DEF_BUFFERS`, small writes merge into the last page); for a socket, the
    /// sender's `sk_sndbuf` (`net.core.wmem_default` = 212992) divided by the truesize charged per
    /// message (about `datasize` + 576 bytes of sk_buff and skb_shared_info on x86-64; an
    /// approximation) times `datasize`: 315 messages, 31500 bytes, for 100-byte messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_bytes: Option<u64>,
    /// CPU work of one `write()` besides the copy, in ns on a capacity-1024 CPU at its highest OPP:
    /// syscall entry and exit, sk_buff allocation, queueing, the wake-up of the reader, and a share of
    /// the context switches. Assumed (no published per-syscall figure): 2 us, so that a message costs
    /// ~4 us and `-g 50 -l 5000` on the 40-CPU ivb-ep takes seconds (10^8 x 4 us / 40 CPUs = 10 s).
    #[serde(default = "default_syscall_ns")]
    pub write_ns: u64,
    /// CPU work of one `read()` besides the copy, in ns (as `write_ns`; assumed 2 us).
    #[serde(default = "default_syscall_ns")]
    pub read_ns: u64,
    /// Copy rate of message payloads, in MB/s (10^6 bytes/s); assumed 5000 (cache-hot copy), so a
    /// 100-byte copy adds 20 ns.
    #[serde(default = "default_copy_mb_per_s")]
    pub copy_mb_per_s: u64,
    /// Work of one `fork()` (or `pthread_create()`) in the main task, in us; assumed.
    #[serde(default = "default_fork_us")]
    pub fork_us: u64,
    /// Work a new worker does before it reports ready (`socketpair` closing, `memset` of the
    /// message), in us; assumed.
    #[serde(default = "default_worker_init_us")]
    pub worker_init_us: u64,
    /// This workload's speed per core type and its SMT contention, apart from the
    /// `capacity_orig` the kernel sees (see [`super::speed`]); default: none given.
    #[serde(
        default,
        skip_serializing_if = "super::speed::WorkloadSpeed::is_default"
    )]
    pub speed: super::speed::WorkloadSpeed,
}

fn default_groups() -> u32 {
    10
}
fn default_loops() -> u64 {
    100
}
fn default_fds() -> u32 {
    20
}
fn default_datasize() -> u64 {
    100
}
fn default_syscall_ns() -> u64 {
    2_000
}
fn default_copy_mb_per_s() -> u64 {
    5_000
}
fn default_fork_us() -> u64 {
    50
}
fn default_worker_init_us() -> u64 {
    20
}

/// Parameters a scenario may sweep.
pub const SWEEPABLE: &[&str] = &["groups", "loops"];

/// Most messages one run may move (see the module doc for scaling larger runs).
pub const MAX_MESSAGES: u64 = 10_000_000;
/// Most workers (senders + receivers) one run may have.
pub const MAX_WORKERS: u64 = 10_000;
/// Most receivers (and senders) per group.
pub const MAX_FDS: u32 = 256;
/// Largest message and buffer, in bytes.
pub const MAX_DATASIZE: u64 = 1 << 20;
pub const MAX_BUFFER_BYTES: u64 = 1 << 30;

/// Bytes `sk_sndbuf` charges for an sk_buff besides its payload (approximation, see `buffer_bytes`).
const SKB_OVERHEAD: u64 = 576;
/// `net.core.wmem_default`.
const WMEM_DEFAULT: u64 = 212_992;
/// 16 pages of 4 KiB (`PIPE_DEF_BUFFERS`).
const PIPE_BYTES: u64 = 65_536;

impl Default for Hackbench {
    fn default() -> Hackbench {
        Hackbench {
            groups: default_groups(),
            loops: default_loops(),
            fds: default_fds(),
            datasize: default_datasize(),
            pipe: false,
            threads: false,
            buffer_bytes: None,
            write_ns: default_syscall_ns(),
            read_ns: default_syscall_ns(),
            copy_mb_per_s: default_copy_mb_per_s(),
            fork_us: default_fork_us(),
            worker_init_us: default_worker_init_us(),
            speed: Default::default(),
        }
    }
}

impl Hackbench {
    /// `perf bench sched messaging -g groups -l loops` with the other options at their defaults.
    pub fn new(groups: u32, loops: u64) -> Hackbench {
        Hackbench {
            groups,
            loops,
            ..Hackbench::default()
        }
    }

    pub fn metric(&self) -> Metric {
        Metric::ElapsedSeconds
    }

    /// Sets a sweepable parameter ([`SWEEPABLE`]).
    pub fn set_param(&mut self, name: &str, value: u64) -> Result<()> {
        match name {
            "groups" => {
                self.groups = u32::try_from(value)
                    .map_err(|_| Error::Workload("hackbench groups is too large".into()))?
            }
            "loops" => self.loops = value,
            _ => {
                return Err(Error::Workload(format!(
                    "hackbench cannot sweep '{name}'; it can sweep: {}",
                    SWEEPABLE.join(", ")
                )))
            }
        }
        Ok(())
    }

    /// Messages the run moves: `groups x fds (senders) x fds (receivers) x loops`.
    pub fn messages(&self) -> Option<u64> {
        (self.groups as u64)
            .checked_mul(self.fds as u64 * self.fds as u64)?
            .checked_mul(self.loops)
    }

    /// The payload capacity of one socket or pipe (the explicit value or the default above).
    pub fn buffer_bytes(&self) -> u64 {
        self.buffer_bytes.unwrap_or(if self.pipe {
            PIPE_BYTES
        } else {
            WMEM_DEFAULT / (self.datasize.min(MAX_DATASIZE) + SKB_OVERHEAD) * self.datasize
        })
    }

    fn validate(&self) -> Result<()> {
        let err = |m: String| Err(Error::Workload(format!("hackbench {m}")));
        if self.groups == 0 || self.fds == 0 || self.loops == 0 {
            return err("groups, fds and loops must be at least 1".into());
        }
        if self.fds > MAX_FDS {
            return err(format!("fds must be at most {MAX_FDS}, not {}", self.fds));
        }
        let workers = 2 * self.groups as u64 * self.fds as u64;
        if workers > MAX_WORKERS {
            return err(format!(
                "has 2 x groups x fds = {workers} workers; at most {MAX_WORKERS} (use fewer groups)"
            ));
        }
        match self.messages() {
            Some(m) if m <= MAX_MESSAGES => {}
            m => {
                return err(format!(
                    "moves groups x fds x fds x loops = {} messages; at most {MAX_MESSAGES} keep a \
                     page responsive. The time grows linearly with loops, so use fewer loops and \
                     scale the result (-l 50 takes about 1/100 of -l 5000)",
                    m.map_or("too many".to_string(), |m| m.to_string())
                ))
            }
        }
        if self.datasize == 0 || self.datasize > MAX_DATASIZE {
            return err(format!(
                "datasize must be 1 to {MAX_DATASIZE} bytes, not {}",
                self.datasize
            ));
        }
        let buf = self.buffer_bytes();
        if buf < self.datasize || buf > MAX_BUFFER_BYTES {
            return err(format!(
                "buffer_bytes must hold at least one message ({} bytes) and be at most \
                 {MAX_BUFFER_BYTES}, not {buf}",
                self.datasize
            ));
        }
        if self.write_ns > 10_000_000 || self.read_ns > 10_000_000 {
            return err("write_ns and read_ns must be at most 10000000 (10 ms)".into());
        }
        if self.copy_mb_per_s == 0 || self.copy_mb_per_s > 1_000_000 {
            return err("copy_mb_per_s must be 1 to 1000000".into());
        }
        if self.fork_us > 1_000_000 || self.worker_init_us > 1_000_000 {
            return err("fork_us and worker_init_us must be at most 1000000 (1 s)".into());
        }
        Ok(())
    }

    /// CPU work of one write (`syscall_ns` plus the copy of the payload).
    fn message_work(&self, syscall_ns: u64) -> Work {
        // datasize <= 2^20 and copy rate >= 1 MB/s: at most ~1e9 ns, no overflow.
        let copy_ns = self.datasize * 1_000 / self.copy_mb_per_s;
        (syscall_ns + copy_ns).max(1) * WORK_SCALE
    }

    /// Programs: 0 = main, 1..=groups = the senders of each group, then one receiver program per
    /// receiver (each reads its own channel). Channels: receiver `g x fds + r`, then the ready pipe.
    /// Every received message is `Count`ed, so `Metric::Count` gives the messages delivered.
    pub fn instantiate(&self) -> Result<Instance> {
        self.validate()?;
        let (groups, fds) = (self.groups as usize, self.fds as usize);
        let receivers = groups * fds;
        let workers = 2 * receivers;
        let ready = receivers;
        let us = |v: u64| v * NSEC_PER_USEC * WORK_SCALE;
        let suffix = if self.threads { "-thread" } else { "" };
        let ready_ops = || {
            [
                Op::Run {
                    work: us(self.worker_init_us).max(1),
                    jitter_ppm: 200_000,
                },
                Op::Send {
                    chan: ready,
                    bytes: 1,
                },
                Op::WaitGate(0),
            ]
        };
        let fork_work = Op::Run {
            work: us(self.fork_us).max(1),
            jitter_ppm: 200_000,
        };

        let mut main = Vec::with_capacity(4 * workers + 8);
        for g in 0..groups {
            for r in 0..fds {
                main.push(fork_work.clone());
                main.push(Op::Fork(1 + groups + g * fds + r));
            }
            for _ in 0..fds {
                main.push(fork_work.clone());
                main.push(Op::Fork(1 + g));
            }
        }
        let read_ready = main.len();
        main.extend([
            Op::Recv {
                chan: ready,
                bytes: 1,
            },
            Op::Repeat {
                slot: 0,
                times: workers as u64,
                to: read_ready,
            },
            Op::MarkStart,
            Op::OpenGate(0),
            Op::WaitChildren,
            Op::MarkEnd,
            Op::Exit,
        ]);

        let mut programs = Vec::with_capacity(1 + groups + receivers);
        programs.push(Program::new("perf", main));
        let write = Op::Run {
            work: self.message_work(self.write_ns),
            jitter_ppm: 0,
        };
        for g in 0..groups {
            let mut ops: Vec<Op> = ready_ops().into();
            let body = ops.len();
            for r in 0..fds {
                ops.push(write.clone());
                ops.push(Op::Send {
                    chan: g * fds + r,
                    bytes: self.datasize,
                });
            }
            ops.push(Op::Repeat {
                slot: 0,
                times: self.loops,
                to: body,
            });
            ops.push(Op::Exit);
            programs.push(Program::new(format!("sender{suffix}"), ops));
        }
        let read = Op::Run {
            work: self.message_work(self.read_ns),
            jitter_ppm: 0,
        };
        for chan in 0..receivers {
            let mut ops: Vec<Op> = ready_ops().into();
            let body = ops.len();
            ops.extend([
                Op::Recv {
                    chan,
                    bytes: self.datasize,
                },
                read.clone(),
                Op::Count(1),
                Op::Repeat {
                    slot: 0,
                    times: fds as u64 * self.loops,
                    to: body,
                },
                Op::Exit,
            ]);
            programs.push(Program::new(format!("receiver{suffix}"), ops));
        }

        let mut inst = Instance::new(programs, vec![0], self.metric());
        let mut channels = vec![self.buffer_bytes(); receivers];
        channels.push(PIPE_BYTES.max(workers as u64));
        inst.channels = channels;
        inst.gates = 1;
        Ok(inst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_receiver_reads_what_its_group_sends_and_nothing_else() {
        let h = Hackbench {
            groups: 3,
            fds: 4,
            loops: 7,
            ..Hackbench::default()
        };
        let inst = h.instantiate().unwrap();
        inst.validate().unwrap();
        assert_eq!(inst.programs.len(), 1 + 3 + 12);
        assert_eq!(inst.channels.len(), 13);
        // Bytes written into each channel per run: fds senders x loops x datasize.
        let mut written = vec![0u64; 12];
        let mut read = vec![0u64; 12];
        let forks = |p: usize| {
            inst.programs[0]
                .ops
                .iter()
                .filter(|op| **op == Op::Fork(p))
                .count() as u64
        };
        for (p, prog) in inst.programs.iter().enumerate().skip(1) {
            let times = prog
                .ops
                .iter()
                .find_map(|op| match op {
                    Op::Repeat { times, .. } => Some(*times),
                    _ => None,
                })
                .unwrap();
            for op in &prog.ops {
                match *op {
                    Op::Send { chan, bytes } if chan < 12 => {
                        written[chan] += forks(p) * times * bytes
                    }
                    Op::Recv { chan, bytes } => read[chan] += forks(p) * times * bytes,
                    _ => {}
                }
            }
        }
        assert!(written.iter().all(|&b| b == 4 * 7 * 100), "{written:?}");
        assert_eq!(written, read);
        // Senders of group 1 write only to group 1's receivers (channels 4..8).
        assert!(inst.programs[2].ops.iter().all(|op| match op {
            Op::Send { chan, .. } => (4..8).contains(chan) || *chan == 12,
            _ => true,
        }));
        // Every worker reports ready once; the main task reads that many bytes.
        assert!(inst.programs[0].ops.contains(&Op::Repeat {
            slot: 0,
            times: 24,
            to: 48
        }));
    }

    #[test]
    fn buffer_defaults_follow_the_transport() {
        let mut h = Hackbench::default();
        assert_eq!(h.buffer_bytes(), 315 * 100);
        h.pipe = true;
        assert_eq!(h.buffer_bytes(), 65_536);
        h.buffer_bytes = Some(50);
        assert!(h
            .instantiate()
            .unwrap_err()
            .to_string()
            .contains("buffer_bytes"));
    }

    #[test]
    fn too_many_messages_is_an_error_that_says_how_to_scale() {
        let e = Hackbench::new(50, 5000).instantiate().unwrap_err();
        assert!(e.to_string().contains("100000000 messages"), "{e}");
        assert!(e.to_string().contains("fewer loops"), "{e}");
        assert!(Hackbench::new(50, 500).instantiate().is_ok());
        let e = Hackbench::new(300, 1).instantiate().unwrap_err();
        assert!(e.to_string().contains("workers"), "{e}");
        let e = Hackbench::new(u32::MAX, u64::MAX)
            .instantiate()
            .unwrap_err();
        assert!(matches!(e, Error::Workload(_)));
        assert!(Hackbench::new(0, 1).instantiate().is_err());
    }
}
