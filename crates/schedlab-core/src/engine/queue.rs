//! The event queue: events ordered by (time, sequence number), so that ties resolve in insertion
//! order. A binary heap, with the earliest event held apart when it was pushed ahead of
//! everything queued: a run completion or tick re-armed as the next thing to happen (one busy CPU,
//! the common case on a small machine) is then popped without a heap round trip. The order of the
//! events popped is the heap's alone: the slot only ever holds an event earlier than all the heap
//! holds. It holds no kernel function.

use super::Ev;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub(super) struct EventQueue {
    heap: BinaryHeap<Reverse<Ev>>,
    /// An event earlier than every event of `heap`, if any.
    first: Option<Ev>,
}

impl EventQueue {
    pub(super) fn with_capacity(n: usize) -> EventQueue {
        EventQueue {
            heap: BinaryHeap::with_capacity(n),
            first: None,
        }
    }

    #[inline]
    pub(super) fn push(&mut self, ev: Ev) {
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
        match self.first.take() {
            Some(ev) => Some(ev),
            None => self.heap.pop().map(|Reverse(ev)| ev),
        }
    }

    /// Every queued event, in no particular order.
    pub(super) fn iter(&self) -> impl Iterator<Item = &Ev> {
        self.first
            .iter()
            .chain(self.heap.iter().map(|Reverse(ev)| ev))
    }
}

#[cfg(test)]
mod tests {
    use super::super::EvKind;
    use super::*;

    /// The queue pops in (time, seq) order whatever the order of pushes and pops.
    #[test]
    fn pops_in_time_then_sequence_order() {
        let mut q = EventQueue::with_capacity(4);
        let mut reference = BinaryHeap::new();
        let mut seq = 0u64;
        let mut x = 12345u64;
        for step in 0..2000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            if (x >> 60) < 9 || step < 10 {
                seq += 1;
                let ev = Ev {
                    t: (x >> 20) % 50,
                    seq,
                    kind: EvKind::Tick(0),
                };
                q.push(ev);
                reference.push(Reverse(ev));
            } else {
                assert_eq!(q.pop(), reference.pop().map(|Reverse(e)| e));
            }
        }
        while let Some(Reverse(e)) = reference.pop() {
            assert_eq!(q.pop(), Some(e));
        }
        assert_eq!(q.pop(), None);
    }
}
