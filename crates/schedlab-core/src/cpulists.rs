//! The members of many small sets (each core's threads, each SMT group's and each clock domain's
//! CPUs, each clock domain's cores) as lists of ids, beside their [`CpuMask`]s: the engine walks them on every busy change and frequency
//! change, where a mask walk would copy the mask and scan all its words for two CPUs.

use crate::cpumask::CpuMask;

/// Lists of ids (CPUs, or cores), ascending, one per set, stored end to end.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CpuLists {
    /// Where list `i` starts in `cpus`; list `i` ends where list `i + 1` starts.
    starts: Vec<u32>,
    cpus: Vec<u16>,
}

impl CpuLists {
    /// One list per mask, in order.
    pub fn from_masks<'a>(masks: impl IntoIterator<Item = &'a CpuMask>) -> CpuLists {
        let mut l = CpuLists {
            starts: vec![0],
            cpus: Vec::new(),
        };
        for m in masks {
            // Masks hold ids below MAX_CPUS (512), which fit in u16.
            l.cpus.extend(m.iter().map(|c| c as u16));
            l.starts.push(l.cpus.len() as u32);
        }
        l
    }

    /// The CPUs of set `i`, ascending.
    #[inline]
    pub fn get(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        let (a, b) = (self.starts[i] as usize, self.starts[i + 1] as usize);
        self.cpus[a..b].iter().map(|&c| c as usize)
    }

    /// The positions of set `i`'s CPUs, for [`CpuLists::at`]: a walk that needs `&mut` on what
    /// holds the lists holds this range, not a borrow.
    #[inline]
    pub fn range(&self, i: usize) -> std::ops::Range<usize> {
        self.starts[i] as usize..self.starts[i + 1] as usize
    }

    /// The CPU at position `k` (from [`CpuLists::range`]).
    #[inline]
    pub fn at(&self, k: usize) -> usize {
        self.cpus[k] as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_list_holds_its_masks_cpus_in_order() {
        let mut a = CpuMask::EMPTY;
        for c in [3, 64, 130, 511] {
            a.set(c);
        }
        let masks = [a, CpuMask::EMPTY, CpuMask::single(7)];
        let l = CpuLists::from_masks(&masks);
        assert_eq!(l.get(0).collect::<Vec<_>>(), vec![3, 64, 130, 511]);
        assert_eq!(l.get(1).count(), 0);
        assert_eq!(l.get(2).collect::<Vec<_>>(), vec![7]);
        assert_eq!(l.range(2).map(|k| l.at(k)).collect::<Vec<_>>(), vec![7]);
    }
}
