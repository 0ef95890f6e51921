//! The event queue: events ordered by (time, sequence number), so that ties resolve in insertion
//! order. Small queues (a small machine's few CPUs each with a run completion and a tick pending,
//! ~9 events on average in E1) are kept sorted, latest first, so the earliest event pops off the
//! end and a push moves only the events due before it; once the queue outgrows that it becomes a
//! binary heap, with the earliest event held apart when it was pushed ahead of everything queued,
//! and sorted again when it has shrunk well below (the gap keeps a queue hovering near one size
//! from switching back and forth). A switch hands the one buffer over: it allocates nothing.
//! Ordering is total (each event's sequence number is unique), so the events popped are the same, in the same order,
//! whatever the form. It holds no kernel function.

use super::Ev;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The most events kept sorted: past this a push costs more element moves and compares than a
/// heap's ~log2(n) steps.
const SORTED_MAX: usize = 32;
/// A heap that has shrunk to this many events is sorted again.
const SORTED_AGAIN: usize = SORTED_MAX / 2;

pub(super) struct EventQueue {
    /// Whether the events are in `sorted` (else in `heap` and `first`).
    small: bool,
    /// Descending as `Ev`s (ascending as `Reverse<Ev>`s, the order `into_sorted_vec` gives):
    /// the earliest event is the last element.
    sorted: Vec<Reverse<Ev>>,
    heap: BinaryHeap<Reverse<Ev>>,
    /// An event earlier than every event of `heap`, if any: a run completion or tick re-armed as
    /// the next thing to happen pops without a heap round trip.
    first: Option<Ev>,
}

impl EventQueue {
    pub(super) fn with_capacity(n: usize) -> EventQueue {
        EventQueue {
            small: true,
            sorted: Vec::with_capacity(n),
            heap: BinaryHeap::new(),
            first: None,
        }
    }

    #[inline(never)]
    pub(super) fn push(&mut self, ev: Ev) {
        if self.small {
            let v = &mut self.sorted;
            if v.len() < SORTED_MAX {
                // Insertion from the earliest end: the events due before `ev` move up one place.
                let key = ev.key();
                let mut i = v.len();
                v.push(Reverse(ev));
                while i > 0 && v[i - 1].0.key() < key {
                    v[i] = v[i - 1];
                    i -= 1;
                }
                v[i] = Reverse(ev);
                return;
            }
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

    /// The earliest event.
    #[inline]
    pub(super) fn pop(&mut self) -> Option<Ev> {
        if self.small {
            return self.sorted.pop().map(|Reverse(ev)| ev);
        }
        if let Some(ev) = self.first.take() {
            return Some(ev);
        }
        let ev = self.heap.pop().map(|Reverse(ev)| ev);
        if self.heap.len() <= SORTED_AGAIN {
            self.become_sorted();
        }
        ev
    }

    #[cold]
    #[inline(never)]
    fn become_heap(&mut self) {
        self.heap = BinaryHeap::from(std::mem::take(&mut self.sorted));
        self.small = false;
    }

    /// Called with `first` empty.
    #[cold]
    #[inline(never)]
    fn become_sorted(&mut self) {
        self.sorted = std::mem::take(&mut self.heap).into_sorted_vec();
        self.small = true;
    }

    /// Every queued event, in no particular order.
    pub(super) fn iter(&self) -> impl Iterator<Item = &Ev> {
        self.first.iter().chain(
            self.sorted
                .iter()
                .chain(self.heap.iter())
                .map(|Reverse(ev)| ev),
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

    /// The queue pops in (time, seq) order whatever the order of pushes and pops, through its
    /// switches from sorted to heap and back: phases that grow the queue past `SORTED_MAX` and
    /// shrink it below `SORTED_AGAIN`, with ties in time.
    #[test]
    fn pops_in_time_then_sequence_order() {
        let mut q = EventQueue::with_capacity(4);
        let mut reference = BinaryHeap::new();
        let mut seq = 0u64;
        let mut x = 12345u64;
        let (mut heaps, mut sorts) = (0, 0);
        for step in 0..20_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            // Pushes outnumber pops 9:7 for 1000 steps, then pops outnumber pushes.
            let growing = (step / 1000) % 2 == 0;
            let push_below = if growing { 9 } else { 5 };
            if (x >> 60) < push_below || step < 10 {
                seq += 1;
                let now = reference.peek().map_or(0, |Reverse(e): &Reverse<Ev>| e.t);
                let ev = Ev::new(now + (x >> 20) % 50, seq, EvKind::Tick(0));
                let was_small = q.small;
                q.push(ev);
                heaps += usize::from(was_small && !q.small);
                reference.push(Reverse(ev));
            } else {
                let was_small = q.small;
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
            heaps >= 5 && sorts >= 5,
            "{heaps} switches to a heap, {sorts} back"
        );
    }
}
