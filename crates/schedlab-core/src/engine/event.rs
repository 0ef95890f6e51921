//! The events of the loop and how they are packed: a kind with its CPU or task, and a sequence
//! number that makes the order of events due at the same time their insertion order.

use crate::sched::TaskId;
use crate::units::Nanos;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum EvKind {
    /// curr of `cpu` finished its `Run` op, if this is the completion event last armed for it
    /// (`Rq::run_done_seq`).
    RunDone(usize),
    Tick(usize),
    /// A sleep ended.
    Wake(TaskId),
    /// The nohz idle-balance IPI reached `cpu`.
    Ilb(usize),
    /// `cpu` has left its idle state (its exit latency has passed) and schedules.
    IdleExit(usize),
}

/// Bits of an event's `tag` below its sequence number: the kind (3 bits) and its CPU or task.
const EV_KIND_BITS: u32 = 24;
/// Bits of the CPU or task an event is about.
const EV_ID_BITS: u32 = EV_KIND_BITS - 3;
/// The most tasks a run may create: each must fit in an event's `EV_ID_BITS`.
pub(super) const MAX_EVENT_TASKS: usize = 1 << EV_ID_BITS;
/// The most events a run may queue: each sequence number must fit above the kind.
pub(super) const MAX_EVENT_SEQ: u64 = 1 << (64 - EV_KIND_BITS);

/// An event of the queue, ordered by (time, sequence number): 16 bytes, so that the queue moves
/// and compares little. `tag` holds the sequence number above the kind and its CPU or task;
/// `seq` is unique, so (t, tag) orders events as (t, seq) does and totally, one `u128` compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Ev {
    pub(super) t: Nanos,
    pub(super) tag: u64,
}

impl Ev {
    #[inline(always)]
    pub(super) fn new(t: Nanos, seq: u64, kind: EvKind) -> Ev {
        let (code, id) = match kind {
            EvKind::RunDone(cpu) => (0, cpu),
            EvKind::Tick(cpu) => (1, cpu),
            EvKind::Wake(t) => (2, t),
            EvKind::Ilb(cpu) => (3, cpu),
            EvKind::IdleExit(cpu) => (4, cpu),
        };
        debug_assert!(id < MAX_EVENT_TASKS && seq < MAX_EVENT_SEQ);
        Ev {
            t,
            tag: (seq << EV_KIND_BITS) | (code << EV_ID_BITS) | id as u64,
        }
    }

    pub(super) fn seq(&self) -> u64 {
        self.tag >> EV_KIND_BITS
    }

    pub(super) fn kind(&self) -> EvKind {
        let id = (self.tag & ((1 << EV_ID_BITS) - 1)) as usize;
        match (self.tag >> EV_ID_BITS) & 7 {
            0 => EvKind::RunDone(id),
            1 => EvKind::Tick(id),
            2 => EvKind::Wake(id),
            3 => EvKind::Ilb(id),
            _ => EvKind::IdleExit(id),
        }
    }

    /// The order as one number (native only: see [`Ev::cmp`]).
    #[cfg(not(target_arch = "wasm32"))]
    #[inline(always)]
    pub(super) fn key(&self) -> u128 {
        (u128::from(self.t) << 64) | u128::from(self.tag)
    }
}

impl PartialOrd for Ev {
    #[inline(always)]
    fn partial_cmp(&self, other: &Ev) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ev {
    /// One `u128` compare natively (two instructions); on wasm32, `t` then `tag`: V8 compiles
    /// `i64` pairs of a 128-bit compare into three compares, two `setcc` and a `cmov`.
    #[inline(always)]
    fn cmp(&self, other: &Ev) -> std::cmp::Ordering {
        #[cfg(target_arch = "wasm32")]
        return self.t.cmp(&other.t).then(self.tag.cmp(&other.tag));
        #[cfg(not(target_arch = "wasm32"))]
        return self.key().cmp(&other.key());
    }
}
