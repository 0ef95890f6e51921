//! The event queue: events ordered by (time, sequence number), so that ties resolve in insertion
//! order. It holds no kernel function. Ticks and nohz kicks are kept in first-in first-out
//! lanes: each is pushed at a time that never decreases from one push to the next (the next tick
//! boundary after now; now plus the kick's fixed IPI latency), and sequence numbers increase, so
//! push order is pop order and neither a push nor a pop searches. Everything else (run
//! completions, wake-ups, idle exits, and any lane push that would break its lane's order) is in
//! [`General`]. A pop takes the earlier of the general queue's head and the lanes' earlier head.
//!
//! Ordering is total (each event's sequence number is unique), so the events popped are the same,
//! in the same order, wherever they were kept.

use super::Ev;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// An empty place's head: later than any event (no event's tag is all ones: its kind code is at
/// most 4 of 7).
const NONE: Ev = Ev {
    t: u64::MAX,
    tag: u64::MAX,
};

/// The first-in first-out lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Lane {
    Tick = 0,
    Ilb = 1,
}

pub(super) struct EventQueue {
    general: General,
    lanes: [VecDeque<Ev>; 2],
    /// The earlier of the lanes' heads, or [`NONE`]: a pop compares the general queue's head with
    /// this one event.
    lanes_head: Ev,
}

impl EventQueue {
    /// A queue for a machine of `nr_cpus` CPUs, with room for `n` general events before it grows.
    pub(super) fn new(nr_cpus: usize, n: usize) -> EventQueue {
        EventQueue {
            general: General::with_capacity(n),
            lanes: [
                VecDeque::with_capacity(nr_cpus + 1),
                VecDeque::with_capacity(8),
            ],
            lanes_head: NONE,
        }
    }

    /// Queues an event of no particular pattern.
    ///
    /// Out of line natively (its callers keep fewer registers live), inlined on wasm32, where a
    /// call costs more: V8's frame set-up and stack check at each entry (`cargo xtask profile
    /// --instr`: 0.3-0.8% fewer instructions per bench cell in V8, with `pop_lane`'s).
    #[cfg_attr(not(target_arch = "wasm32"), inline(never))]
    #[cfg_attr(target_arch = "wasm32", inline)]
    pub(super) fn push(&mut self, ev: Ev) {
        self.general.push(ev);
    }

    /// Queues an event of `lane`: at its end when it is due no earlier than the lane's last
    /// event, which is the lane's rule; in the general queue otherwise, so that order holds
    /// whatever the caller does.
    #[inline]
    pub(super) fn push_lane(&mut self, lane: Lane, ev: Ev) {
        let fifo = &mut self.lanes[lane as usize];
        match fifo.back() {
            Some(last) if ev < *last => self.general.push(ev),
            Some(_) => fifo.push_back(ev),
            None => {
                fifo.push_back(ev);
                self.lanes_head = self.lanes_head.min(ev);
            }
        }
    }

    /// The earliest event.
    #[inline]
    pub(super) fn pop(&mut self) -> Option<Ev> {
        match self.general.pop_before(self.lanes_head) {
            Some(ev) => Some(ev),
            None if self.lanes_head == NONE => None,
            None => self.pop_lane(),
        }
    }

    /// The lanes' earlier head (called when it is not [`NONE`]). Out of line natively only, as
    /// [`EventQueue::push`].
    #[cfg_attr(not(target_arch = "wasm32"), inline(never))]
    #[cfg_attr(target_arch = "wasm32", inline)]
    fn pop_lane(&mut self) -> Option<Ev> {
        let [tick, ilb] = &mut self.lanes;
        let ev = match (tick.front(), ilb.front()) {
            (Some(a), Some(b)) if b < a => ilb.pop_front(),
            (Some(_), _) => tick.pop_front(),
            (None, _) => ilb.pop_front(),
        };
        let head = |fifo: &VecDeque<Ev>| fifo.front().copied().unwrap_or(NONE);
        self.lanes_head = head(tick).min(head(ilb));
        ev
    }

    /// Every queued event, in no particular order.
    pub(super) fn iter(&self) -> impl Iterator<Item = &Ev> {
        self.general.iter().chain(self.lanes.iter().flatten())
    }
}

/// The most events [`General`] keeps sorted: past this a push costs more element moves and
/// compares than a heap's ~log2(n) steps. A queue parameter, not a model one (the pop order is
/// the same whatever it is); 16 measured better than 32 under callgrind once ticks left for their lane
/// (hackbench on 24 CPUs hovers near 32 general events, where 32 made sorted pushes the costliest
/// function of the run).
const SORTED_MAX: usize = 16;
/// A heap that has shrunk to this many events is sorted again.
const SORTED_AGAIN: usize = SORTED_MAX / 2;
/// The sorted events' array: twice [`SORTED_MAX`], so that the events slide down to its start
/// (when a push finds its end taken) at most once every [`SORTED_MAX`] pushes.
const SORTED_CAP: usize = 2 * SORTED_MAX;

/// Events of no particular pattern. Few (a small machine's wake-ups and idle exits) are kept
/// sorted, earliest first, in a fixed array whose used part moves up as events pop off its
/// start; more become a binary heap, with the earliest event held apart when it was pushed
/// ahead of everything queued, and are sorted again when they have shrunk well below (the gap
/// keeps a queue hovering near one size from switching back and forth). The heap's buffer is
/// kept across switches: it allocates only when it grows.
struct General {
    /// Whether the events are in `sorted` (else in `heap` and `first`).
    small: bool,
    /// `sorted[head..tail]`, ascending: the earliest event pops off `head` and a push moves only
    /// the events due after it (most events pushed are completions due after nearly everything
    /// queued here, a run of ~1 ms among wake-ups' and idle exits' shorter waits; ticks have
    /// their lane), so a pop moves nothing and a push few. (Kept latest first in a `Vec`, each
    /// push moved the events due before it, nearly all of them, in a `memmove` call: 81
    /// instructions a push under callgrind on E1.)
    sorted: [Ev; SORTED_CAP],
    head: usize,
    tail: usize,
    heap: BinaryHeap<Reverse<Ev>>,
    /// An event earlier than every event of `heap`, if any: an event pushed as the next thing to
    /// happen pops without a heap round trip.
    first: Option<Ev>,
}

impl General {
    fn with_capacity(n: usize) -> General {
        General {
            small: true,
            sorted: [NONE; SORTED_CAP],
            head: 0,
            tail: 0,
            heap: BinaryHeap::with_capacity(n),
            first: None,
        }
    }

    #[inline(always)]
    fn push(&mut self, ev: Ev) {
        if self.small && self.tail - self.head < SORTED_MAX && self.tail < SORTED_CAP {
            self.insert_sorted(ev);
        } else {
            self.push_slow(ev);
        }
    }

    /// Places `ev` among the sorted events (there is room after them), searching from the
    /// latest end and moving each later event up one.
    #[inline(always)]
    fn insert_sorted(&mut self, ev: Ev) {
        let mut i = self.tail;
        while i > self.head && self.sorted[i - 1] > ev {
            self.sorted[i] = self.sorted[i - 1];
            i -= 1;
        }
        self.sorted[i] = ev;
        self.tail += 1;
    }

    /// A push that finds the sorted array's end taken, or [`SORTED_MAX`] events queued: out of
    /// line (a tail call), so that the common push saves no registers for it.
    #[inline(never)]
    fn push_slow(&mut self, ev: Ev) {
        if self.small && self.tail - self.head < SORTED_MAX {
            // Fewer than `SORTED_MAX` events fill the array's end: as many places free up at
            // its start.
            self.sorted.copy_within(self.head..self.tail, 0);
            self.tail -= self.head;
            self.head = 0;
            self.insert_sorted(ev);
            return;
        }
        if self.small {
            self.become_heap();
        }
        match self.first {
            Some(first) if ev < first => {
                self.heap.push(Reverse(first));
                self.first = Some(ev);
            }
            Some(_) => self.heap.push(Reverse(ev)),
            None => match self.heap.peek() {
                Some(Reverse(top)) if *top < ev => self.heap.push(Reverse(ev)),
                _ => self.first = Some(ev),
            },
        }
    }

    /// The earliest event, or [`NONE`].
    #[cfg(test)]
    fn peek(&self) -> Ev {
        if self.small {
            return if self.head < self.tail {
                self.sorted[self.head]
            } else {
                NONE
            };
        }
        match (self.first, self.heap.peek()) {
            (Some(ev), _) => ev,
            (None, Some(r)) => r.0,
            (None, None) => NONE,
        }
    }

    /// The earliest event if it is due before `bound`.
    #[inline]
    fn pop_before(&mut self, bound: Ev) -> Option<Ev> {
        if self.small {
            if self.head < self.tail {
                let ev = self.sorted[self.head];
                if ev < bound {
                    self.head += 1;
                    return Some(ev);
                }
            }
            return None;
        }
        match self.first {
            Some(ev) if ev < bound => self.first.take(),
            Some(_) => None,
            None => match self.heap.peek() {
                Some(Reverse(ev)) if *ev < bound => self.pop_heap(),
                _ => None,
            },
        }
    }

    /// Pops the heap's top, and sorts what is left once it is small.
    fn pop_heap(&mut self) -> Option<Ev> {
        let ev = self.heap.pop().map(|Reverse(ev)| ev);
        if self.heap.len() <= SORTED_AGAIN {
            self.become_sorted();
        }
        ev
    }

    /// The earliest event (every event is due before [`NONE`]).
    #[cfg(test)]
    fn pop(&mut self) -> Option<Ev> {
        self.pop_before(NONE)
    }

    #[cold]
    #[inline(never)]
    fn become_heap(&mut self) {
        let live = &self.sorted[self.head..self.tail];
        self.heap.extend(live.iter().map(|&ev| Reverse(ev)));
        (self.head, self.tail) = (0, 0);
        self.small = false;
    }

    /// Called with `first` empty and at most [`SORTED_AGAIN`] events in the heap.
    #[cold]
    #[inline(never)]
    fn become_sorted(&mut self) {
        // Ascending as `Reverse`s is latest first. (Not `BinaryHeap::pop` in a loop: a second
        // caller took it out of line from the event loop's pop, +3% on hackbench.)
        let mut v = std::mem::take(&mut self.heap).into_sorted_vec();
        let n = v.len();
        for (place, Reverse(ev)) in self.sorted[..n].iter_mut().rev().zip(&v) {
            *place = *ev;
        }
        (self.head, self.tail) = (0, n);
        v.clear();
        self.heap = BinaryHeap::from(v);
        self.small = true;
    }

    fn iter(&self) -> impl Iterator<Item = &Ev> {
        self.first.iter().chain(
            self.sorted[self.head..self.tail]
                .iter()
                .chain(self.heap.iter().map(|Reverse(ev)| ev)),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::EvKind;
    use super::*;

    /// An event gives back the kind, CPU or task and sequence number it was made with, at the
    /// largest each may be, and events order by (time, sequence number) whatever their kinds.
    #[test]
    fn an_event_keeps_its_kind_and_orders_by_time_then_sequence() {
        use super::super::{MAX_EVENT_SEQ, MAX_EVENT_TASKS};
        let top = MAX_EVENT_TASKS - 1;
        for kind in [
            EvKind::RunDone(511),
            EvKind::Tick(0),
            EvKind::Wake(top),
            EvKind::Ilb(3),
            EvKind::IdleExit(top),
        ] {
            for seq in [1, 12345, MAX_EVENT_SEQ - 1] {
                let ev = Ev::new(7, seq, kind);
                assert_eq!((ev.t, ev.seq(), ev.kind()), (7, seq, kind));
            }
        }
        // A later sequence number sorts later at the same time, whatever the kind and id.
        let early = Ev::new(5, 2, EvKind::IdleExit(top));
        let late = Ev::new(5, 3, EvKind::RunDone(0));
        assert!(early < late);
        assert!(Ev::new(4, MAX_EVENT_SEQ - 1, EvKind::Wake(top)) < early);
    }

    /// The general queue pops in (time, seq) order whatever the order of pushes and pops, through
    /// its switches from sorted to heap and back and its sorted events' slides to their array's start: phases that grow it past `SORTED_MAX` and shrink
    /// it below `SORTED_AGAIN`, with ties in time.
    #[test]
    fn general_pops_in_time_then_sequence_order() {
        let mut q = General::with_capacity(4);
        let mut reference = BinaryHeap::new();
        let mut seq = 0u64;
        let mut x = 12345u64;
        let (mut heaps, mut sorts, mut slides) = (0, 0, 0);
        for step in 0..20_000 {
            x = lcg(x);
            // Pushes outnumber pops 9:7 for 1000 steps, then pops outnumber pushes.
            let growing = (step / 1000) % 2 == 0;
            let push_below = if growing { 9 } else { 5 };
            if (x >> 60) < push_below || step < 10 {
                seq += 1;
                let now = reference.peek().map_or(0, |Reverse(e): &Reverse<Ev>| e.t);
                let ev = Ev::new(now + (x >> 20) % 50, seq, EvKind::Wake(0));
                let was_small = q.small;
                slides +=
                    usize::from(q.small && q.tail == SORTED_CAP && q.tail - q.head < SORTED_MAX);
                q.push(ev);
                heaps += usize::from(was_small && !q.small);
                reference.push(Reverse(ev));
            } else {
                let was_small = q.small;
                assert_eq!(q.peek(), reference.peek().map_or(NONE, |r| r.0));
                assert_eq!(q.pop(), reference.pop().map(|Reverse(e)| e));
                sorts += usize::from(!was_small && q.small);
            }
            assert_eq!(q.iter().count(), reference.len());
        }
        while let Some(Reverse(e)) = reference.pop() {
            assert_eq!(q.pop(), Some(e));
        }
        assert_eq!(q.pop(), None);
        assert!(
            heaps >= 5 && sorts >= 5 && slides >= 5,
            "{heaps} switches to a heap, {sorts} back, {slides} slides of the sorted events"
        );
    }

    /// The whole queue pops every event pushed, in (time, seq) order, wherever it was kept: lane
    /// events in and out of their lane's order (the latter go to the general queue), and general
    /// events, with ties in time. Phases that grow and drain the queue empty the lanes often, so
    /// that a lane starts again while the other holds an earlier head.
    #[test]
    fn pops_every_event_in_time_then_sequence_order() {
        let mut q = EventQueue::new(5, 4);
        assert_eq!(q.pop(), None);
        let mut reference = BinaryHeap::new();
        let mut seq = 0u64;
        let mut x = 987654321u64;
        let (mut in_lanes, mut out_of_order, mut restarts_behind) = (0, 0, 0);
        let mut draining = false;
        for step in 0..50_000 {
            x = lcg(x);
            let now = reference.peek().map_or(0, |Reverse(e): &Reverse<Ev>| e.t);
            // Pushes outnumber pops 5:3 until 24 events are queued, then pops outnumber pushes
            // until none is.
            draining = match reference.len() {
                0 => false,
                24.. => true,
                _ => draining,
            };
            let push_below = if draining { 3 } else { 5 };
            if (x >> 61) < push_below || step < 10 {
                seq += 1;
                let at = now + (x >> 20) % 40;
                match (x >> 40) % 4 {
                    0 => {
                        let ev = Ev::new(at, seq, EvKind::Tick(0));
                        out_of_order += usize::from(q.lanes[0].back().is_some_and(|l| ev < *l));
                        q.push_lane(Lane::Tick, ev);
                        reference.push(Reverse(ev));
                    }
                    1 => {
                        let ev = Ev::new(at, seq, EvKind::Ilb(0));
                        restarts_behind += usize::from(
                            q.lanes[1].is_empty() && q.lanes[0].front().is_some_and(|h| *h < ev),
                        );
                        q.push_lane(Lane::Ilb, ev);
                        reference.push(Reverse(ev));
                    }
                    _ => {
                        let ev = Ev::new(at, seq, EvKind::Wake(1));
                        q.push(ev);
                        reference.push(Reverse(ev));
                    }
                }
            } else {
                assert_eq!(q.pop(), reference.pop().map(|Reverse(e)| e));
            }
            in_lanes = in_lanes.max(q.lanes[0].len().min(q.lanes[1].len()));
            assert_eq!(q.iter().count(), reference.len());
        }
        while let Some(Reverse(e)) = reference.pop() {
            assert_eq!(q.pop(), Some(e));
        }
        assert_eq!(q.pop(), None);
        assert!(
            out_of_order > 100 && in_lanes >= 3 && restarts_behind > 100,
            "{out_of_order} ticks out of order, lanes held {in_lanes} each at most, \
             {restarts_behind} kicks started their lane behind a tick"
        );
    }

    fn lcg(x: u64) -> u64 {
        x.wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407)
    }
}
