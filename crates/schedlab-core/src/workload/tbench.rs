//! tbench-like: `clients` client processes, each talking to its own server process over loopback
//! TCP in strict request/reply fashion (dbench's tbench replays the NetBench `client.txt` load; only
//! its network and process side, see kernel-facts.md §10). Every transaction is a 1:1 synchronous
//! ping-pong: the client sends a request and sleeps in `recv()`; the server wakes (`WF_SYNC`), works,
//! replies and sleeps in `recv()` again; the client wakes. Metric: MB/s (10^6 bytes) of request and
//! reply bytes over the run time.
//!
//! The model: the main task forks, per client, its server then its client (`fork_us` of work
//! each), starts the clock, opens the start gate the clients wait on, sleeps `duration_ms`, stops the
//! clock and waits for everyone to exit. A client does `client_us` of work (building the request and
//! its share of the syscalls), `Send`s `request_bytes`, `Recv`s `reply_bytes` and `Count`s both. A
//! server `Recv`s the request, does `server_us` of work and `Send`s the reply. Each pair has its own
//! two channels (request, reply). The run time ends the loop: a client checks the deadline before
//! each request (an unlimited event pool that closes `duration_ms` after the start) and, when it has
//! passed, sends a last request and exits; a server checks the deadline on each request it receives
//! and, once it has passed, replies at once and exits. So nobody is left waiting, and at most one
//! transaction per client completes after the clock stops (counted: a negligible excess when
//! transactions are short next to the run).
//!
//! The receive side of a loopback send runs on the **sending** CPU, in the sender's time. `send()`
//! goes down to `__dev_queue_xmit()` under `rcu_read_lock_bh()`; `loopback_xmit()` hands the skb to
//! `netif_rx()`, whose `netif_rx_internal()` queues it on the backlog of the CPU it runs on
//! (`enqueue_to_backlog(skb, get_cpu(), ...)`; only RPS, off by default, picks another) and raises
//! NET_RX_SOFTIRQ there; the `local_bh_enable()` of `rcu_read_unlock_bh()` then runs `do_softirq()`
//! on that CPU before `send()` returns: `net_rx_action()` -> `process_backlog()` -> `ip_rcv()` ->
//! `tcp_v4_rcv()` -> `tcp_rcv_established()` queues the data and calls `sk_data_ready`, which is
//! `sock_def_readable()`: `wake_up_interruptible_sync_poll()`, a `WF_SYNC` wake-up of the task
//! sleeping in `recv()` (drivers/net/loopback.c, net/core/dev.c, net/ipv4/tcp_input.c, v4.x-v6.x
//! alike). The model: each `Send` is preceded by that softirq's work, added to the sender's own
//! `Run` ([`Tbench::rx_softirq_work`]: `rx_softirq_ns` per skb plus `rx_softirq_ns_per_kib`),
//! so it runs on the sender's CPU at that CPU's speed, and the receiver, blocked in `Recv`, is woken
//! only at its end, from the sender's CPU, with `WF_SYNC` (what `Op::Send` does). Simplifications:
//! the softirq's time is the sender's runtime (as without `CONFIG_IRQ_TIME_ACCOUNTING`; with it the
//! kernel moves it out of the task's `clock_task`, not off the CPU); a message is sent as skbs of up
//! to 64 KiB ([`LOOPBACK_SKB_MAX_BYTES`]), each paying `rx_softirq_ns`, and the receiver, whose
//! `Recv` wants the whole message, is woken once, after the last of them (the kernel's
//! `sock_def_readable()` runs per skb, and a `recv()` without `MSG_WAITALL` may return early and
//! sleep again).
//!
//! Left out: the variety of `client.txt` operations (every transaction has the same sizes and costs
//! here; the parameters are their average), TCP's own dynamics (ACKs, delayed ACKs, window), RPS,
//! the warm-up period tbench discards.

use super::{Instance, Metric, Op, Program};
use crate::error::{Error, Result};
use crate::math64::saturating_mul_u64;
use crate::topology::Topology;
use crate::units::{NSEC_PER_MSEC, NSEC_PER_USEC, WORK_SCALE};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Tbench {
    /// Client/server pairs (tbench's positional argument).
    pub clients: u32,
    /// Length of the measured run in ms. tbench's own default (`-t`) is 600 s, which a page cannot
    /// simulate; throughput here is steady after a few ms, so the default is 1 s.
    #[serde(default = "default_duration_ms")]
    pub duration_ms: u64,
    /// Warm-up before the measured `duration_ms`, in ms: transactions run but are not counted, as
    /// tbench discards its warm-up (default 0).
    #[serde(default)]
    pub warmup_ms: u64,
    /// Bytes of one request; assumed 256 (an SMB-like request header and a small operation).
    #[serde(default = "default_request_bytes")]
    pub request_bytes: u64,
    /// Bytes of one reply; assumed 4096 (a page of a ReadX reply).
    #[serde(default = "default_reply_bytes")]
    pub reply_bytes: u64,
    /// Client work per transaction, in us on a capacity-1024 CPU at its highest OPP: preparing the
    /// request, `send()` and `recv()`. Assumed 5.
    #[serde(default = "default_client_us")]
    pub client_us: u64,
    /// Server work per transaction, in us: `recv()`, carrying out the operation, `send()`. Assumed 10,
    /// so one pair alone moves 4352 bytes per 15 us of the tasks' own work (17.1 us with the two
    /// sends' receive softirqs, ~255 MB/s): the order of magnitude tbench reports for one client
    /// on a 2020-era x86 core (unverified).
    #[serde(default = "default_server_us")]
    pub server_us: u64,
    /// Work of one `fork()` in the main task, in us; assumed.
    #[serde(default = "default_fork_us")]
    pub fork_us: u64,
    /// Receive-side softirq work of one loopback send on the sending CPU, per skb, in ns on
    /// a capacity-1024 CPU at its highest OPP: `netif_rx()` to `tcp_v4_rcv()` and
    /// `sock_def_readable()`. **[assumed]** 1000: the IPv4/TCP receive path of one skb is a few
    /// thousand instructions (backlog, IP, socket lookup, TCP fast path, queueing, the wake-up
    /// call), about a microsecond on a 2-3 GHz server core; no measurement of it was found.
    #[serde(default = "default_rx_softirq_ns")]
    pub rx_softirq_ns: u64,
    /// The same softirq's work per KiB of the message, in ns. **[assumed]** 20: on loopback the skb
    /// is handed over, not copied, and its checksum is not verified (`CHECKSUM_PARTIAL` from
    /// `loopback_xmit()`'s device features), so the payload is not read in softirq (the copy to
    /// user space is the receiver's `recv()`); what grows with the size is the skb's page
    /// bookkeeping and the socket's memory accounting, a few cache lines per KiB.
    #[serde(default = "default_rx_softirq_ns_per_kib")]
    pub rx_softirq_ns_per_kib: u64,
    /// This workload's speed per core type and its SMT contention, apart from the
    /// `capacity_orig` the kernel sees (see [`super::speed`]); default: none given.
    #[serde(
        default,
        skip_serializing_if = "super::speed::WorkloadSpeed::is_default"
    )]
    pub speed: super::speed::WorkloadSpeed,
}

fn default_duration_ms() -> u64 {
    1_000
}
fn default_request_bytes() -> u64 {
    256
}
fn default_reply_bytes() -> u64 {
    4_096
}
fn default_client_us() -> u64 {
    5
}
fn default_server_us() -> u64 {
    10
}
fn default_fork_us() -> u64 {
    50
}
fn default_rx_softirq_ns() -> u64 {
    1_000
}
fn default_rx_softirq_ns_per_kib() -> u64 {
    20
}

/// Largest skb a loopback send hands to `loopback_xmit()`: TCP builds GSO skbs of up to
/// `gso_max_size` (64 KiB; loopback's MTU is 64 KiB too), each one `netif_rx()` and one softirq pass.
pub const LOOPBACK_SKB_MAX_BYTES: u64 = 65_536;

/// Parameters a scenario may sweep.
pub const SWEEPABLE: &[&str] = &["clients", "duration_ms"];
pub const MAX_CLIENTS: u32 = 4096;
pub const MAX_DURATION_MS: u64 = 600_000;
pub const MAX_MESSAGE_BYTES: u64 = 1 << 24;
/// Most transactions a run may complete, estimated from the busiest case (every CPU that has a task
/// working all the time); each transaction is at least two simulation events.
pub const MAX_TRANSACTIONS: u64 = 10_000_000;

impl Tbench {
    pub fn new(clients: u32) -> Tbench {
        Tbench {
            clients,
            duration_ms: default_duration_ms(),
            warmup_ms: 0,
            request_bytes: default_request_bytes(),
            reply_bytes: default_reply_bytes(),
            client_us: default_client_us(),
            server_us: default_server_us(),
            fork_us: default_fork_us(),
            rx_softirq_ns: default_rx_softirq_ns(),
            rx_softirq_ns_per_kib: default_rx_softirq_ns_per_kib(),
            speed: Default::default(),
        }
    }

    pub fn metric(&self) -> Metric {
        Metric::MegabytesPerSecond
    }

    /// Work (reference ns x WORK_SCALE) of the loopback receive softirq that a send of `bytes`
    /// runs on the sending CPU before the receiver's wake-up (see the module doc).
    pub fn rx_softirq_work(&self, bytes: u64) -> u64 {
        let skbs = bytes.div_ceil(LOOPBACK_SKB_MAX_BYTES).max(1);
        let ns = saturating_mul_u64(skbs, self.rx_softirq_ns)
            + saturating_mul_u64(bytes, self.rx_softirq_ns_per_kib) / 1024;
        saturating_mul_u64(ns, WORK_SCALE)
    }

    pub fn set_param(&mut self, name: &str, value: u64) -> Result<()> {
        match name {
            "clients" => {
                self.clients = u32::try_from(value)
                    .map_err(|_| Error::Workload("tbench clients is too large".into()))?
            }
            "duration_ms" => self.duration_ms = value,
            _ => {
                return Err(Error::Workload(format!(
                    "tbench cannot sweep '{name}'; it can sweep: {}",
                    SWEEPABLE.join(", ")
                )))
            }
        }
        Ok(())
    }

    /// Programs: 0 = main, then per client `i` its server (`1 + 2i`) and client (`2 + 2i`).
    /// Channels: `2i` carries client i's requests, `2i + 1` its replies.
    pub fn instantiate(&self, topo: &Topology) -> Result<Instance> {
        let err = |m: String| Err(Error::Workload(format!("tbench {m}")));
        if self.clients == 0 || self.clients > MAX_CLIENTS {
            return err(format!(
                "clients must be 1 to {MAX_CLIENTS}, not {}",
                self.clients
            ));
        }
        if self.warmup_ms > MAX_DURATION_MS {
            return Err(Error::Workload(format!(
                "tbench warmup_ms must be at most {MAX_DURATION_MS}"
            )));
        }
        if self.duration_ms == 0 || self.duration_ms > MAX_DURATION_MS {
            return err(format!(
                "duration_ms must be 1 to {MAX_DURATION_MS}, not {}",
                self.duration_ms
            ));
        }
        for (what, v) in [
            ("request_bytes", self.request_bytes),
            ("reply_bytes", self.reply_bytes),
        ] {
            if v == 0 || v > MAX_MESSAGE_BYTES {
                return err(format!("{what} must be 1 to {MAX_MESSAGE_BYTES}, not {v}"));
            }
        }
        if self.client_us == 0 || self.server_us == 0 {
            return err("client_us and server_us must be at least 1".into());
        }
        if self.client_us > 1_000_000 || self.server_us > 1_000_000 || self.fork_us > 1_000_000 {
            return err("client_us, server_us and fork_us must be at most 1000000 (1 s)".into());
        }
        if self.rx_softirq_ns > 1_000_000_000 || self.rx_softirq_ns_per_kib > 1_000_000 {
            return err(
                "rx_softirq_ns must be at most 1000000000 (1 s) and rx_softirq_ns_per_kib at most \
                 1000000"
                    .into(),
            );
        }
        let busy = (2 * self.clients as u64).min(topo.nr_cpus() as u64);
        let per_transaction_ns = (self.client_us + self.server_us) * NSEC_PER_USEC;
        let transactions =
            busy * (self.duration_ms + self.warmup_ms) * NSEC_PER_MSEC / per_transaction_ns;
        if transactions > MAX_TRANSACTIONS {
            return err(format!(
                "could complete about {transactions} transactions ({busy} busy CPUs for {} ms); at \
                 most {MAX_TRANSACTIONS} keep a page responsive: use a shorter duration_ms (the \
                 throughput settles within a few ms)",
                self.duration_ms
            ));
        }

        let us = |v: u64| v * NSEC_PER_USEC * WORK_SCALE;
        let n = self.clients as usize;
        let (rq, rp) = (self.request_bytes, self.reply_bytes);
        let (request_rx, reply_rx) = (self.rx_softirq_work(rq), self.rx_softirq_work(rp));
        let mut main = Vec::with_capacity(4 * n + 6);
        for i in 0..n {
            for p in [1 + 2 * i, 2 + 2 * i] {
                main.push(Op::Run {
                    work: us(self.fork_us).max(1),
                    jitter_ppm: 200_000,
                });
                main.push(Op::Fork(p));
            }
        }
        main.push(Op::OpenGate(0));
        if self.warmup_ms > 0 {
            // tbench's warm-up: transactions run but do not count.
            main.push(Op::Sleep(self.warmup_ms * NSEC_PER_MSEC));
        }
        main.extend([
            Op::ResetCount,
            Op::MarkStart,
            Op::Sleep(self.duration_ms * NSEC_PER_MSEC),
            Op::MarkEnd,
            Op::WaitChildren,
            Op::Exit,
        ]);
        let mut programs = Vec::with_capacity(1 + 2 * n);
        programs.push(Program::new("tbench", main));
        for i in 0..n {
            let (req, resp) = (2 * i, 2 * i + 1);
            programs.push(Program::new(
                "tbench_srv",
                vec![
                    Op::Recv {
                        chan: req,
                        bytes: rq,
                    },
                    Op::TakeEvent {
                        pool: 0,
                        exhausted: 5,
                    },
                    // The operation, then the reply's loopback receive softirq on this CPU.
                    Op::Run {
                        work: us(self.server_us) + reply_rx,
                        jitter_ppm: 0,
                    },
                    Op::Send {
                        chan: resp,
                        bytes: rp,
                    },
                    Op::Jump(0),
                    // Past the deadline: answer the last request and leave.
                    Op::Run {
                        work: reply_rx,
                        jitter_ppm: 0,
                    },
                    Op::Send {
                        chan: resp,
                        bytes: rp,
                    },
                    Op::Exit,
                ],
            ));
            programs.push(Program::new(
                "tbench",
                vec![
                    Op::WaitGate(0),
                    Op::TakeEvent {
                        pool: 0,
                        exhausted: 7,
                    },
                    // The request, then its loopback receive softirq on this CPU.
                    Op::Run {
                        work: us(self.client_us) + request_rx,
                        jitter_ppm: 0,
                    },
                    Op::Send {
                        chan: req,
                        bytes: rq,
                    },
                    Op::Recv {
                        chan: resp,
                        bytes: rp,
                    },
                    Op::Count(rq + rp),
                    Op::Jump(1),
                    // Past the deadline: a last request lets a waiting server see it and leave.
                    Op::Run {
                        work: request_rx,
                        jitter_ppm: 0,
                    },
                    Op::Send {
                        chan: req,
                        bytes: rq,
                    },
                    Op::Exit,
                ],
            ));
        }
        let mut inst = Instance::new(programs, vec![0], self.metric());
        // Ping-pong keeps at most one message (and the last one) in flight per direction.
        inst.channels = vec![2 * rq.max(rp); 2 * n];
        inst.gates = 1;
        inst.pools = vec![u64::MAX];
        inst.deadline_after_start = Some(self.duration_ms * NSEC_PER_MSEC);
        Ok(inst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::presets::preset;

    fn topo() -> Topology {
        Topology::build(&preset("cascadelake-8260l").unwrap()).unwrap()
    }

    #[test]
    fn each_pair_has_its_own_channels_and_sizes_match() {
        let inst = Tbench::new(3).instantiate(&topo()).unwrap();
        inst.validate().unwrap();
        assert_eq!(inst.programs.len(), 7);
        assert_eq!(inst.channels.len(), 6);
        for i in 0..3 {
            let (srv, cli) = (&inst.programs[1 + 2 * i], &inst.programs[2 + 2 * i]);
            let sends = |p: &Program, chan| {
                p.ops
                    .iter()
                    .filter(|op| matches!(op, Op::Send { chan: c, .. } if *c == chan))
                    .count()
            };
            assert_eq!(sends(cli, 2 * i), 2);
            assert_eq!(sends(srv, 2 * i + 1), 2);
            assert!(cli.ops.contains(&Op::Count(4352)));
            assert!(srv.ops.contains(&Op::Recv {
                chan: 2 * i,
                bytes: 256
            }));
        }
    }

    #[test]
    fn the_receive_softirq_costs_per_skb_and_per_kib() {
        let t = Tbench::new(1);
        assert_eq!(t.rx_softirq_work(256), (1_000 + 5) * WORK_SCALE);
        assert_eq!(t.rx_softirq_work(4096), (1_000 + 80) * WORK_SCALE);
        // 128 KiB leave as two 64 KiB skbs.
        assert_eq!(t.rx_softirq_work(131_072), (2_000 + 2_560) * WORK_SCALE);
        // Before each send, the sender's own run carries its message's softirq.
        let inst = t.instantiate(&topo()).unwrap();
        let client = &inst.programs[2].ops;
        let send = client
            .iter()
            .position(|op| matches!(op, Op::Send { .. }))
            .unwrap();
        assert_eq!(
            client[send - 1],
            Op::Run {
                work: 5_000 * WORK_SCALE + t.rx_softirq_work(256),
                jitter_ppm: 0
            }
        );
    }

    #[test]
    fn limits_say_what_to_change() {
        let e = Tbench::new(0).instantiate(&topo()).unwrap_err();
        assert!(e.to_string().contains("clients must be 1 to"), "{e}");
        let mut t = Tbench::new(384);
        t.duration_ms = 60_000;
        let e = t.instantiate(&topo()).unwrap_err();
        assert!(e.to_string().contains("shorter duration_ms"), "{e}");
        t.duration_ms = 100;
        assert!(t.instantiate(&topo()).is_ok());
        t.reply_bytes = u64::MAX;
        assert!(t.instantiate(&topo()).is_err());
    }
}
