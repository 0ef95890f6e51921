//! A fixed-size CPU bitmap, the model's `struct cpumask`.
//!
//! Fixed size so that it is `Copy` and never allocates: the engine tests and combines masks on every
//! wake-up and balance pass.

use serde::{Deserialize, Serialize};

/// The most CPUs a machine may have. Large enough for the presets (384 CPUs on epyc-9654-2s) and
/// for custom machines a browser tab can simulate in reasonable time. 512 (8 words) costs the
/// 8-CPU case nothing measurable against 256 (`schedlab bench hikey960-asym-packing`, same CPU
/// time within noise); `Op::SetAffinity` boxes its mask so ops stay small.
pub const MAX_CPUS: usize = 512;
const WORDS: usize = MAX_CPUS / 64;

/// A set of CPU ids below [`MAX_CPUS`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(into = "Vec<usize>", try_from = "Vec<usize>")]
pub struct CpuMask([u64; WORDS]);

impl CpuMask {
    pub const EMPTY: CpuMask = CpuMask([0; WORDS]);

    /// The mask of CPUs `0..n`.
    pub fn first_n(n: usize) -> CpuMask {
        let mut m = CpuMask::EMPTY;
        for cpu in 0..n.min(MAX_CPUS) {
            m.set(cpu);
        }
        m
    }

    pub fn single(cpu: usize) -> CpuMask {
        let mut m = CpuMask::EMPTY;
        m.set(cpu);
        m
    }

    pub fn set(&mut self, cpu: usize) {
        self.0[cpu / 64] |= 1 << (cpu % 64);
    }

    pub fn clear(&mut self, cpu: usize) {
        self.0[cpu / 64] &= !(1 << (cpu % 64));
    }

    pub fn test(&self, cpu: usize) -> bool {
        cpu < MAX_CPUS && self.0[cpu / 64] & (1 << (cpu % 64)) != 0
    }

    /// `cpumask_weight()`. Empty words are skipped: the target may lack a popcount instruction
    /// and most masks fill one or two of the words.
    pub fn weight(&self) -> usize {
        self.0
            .iter()
            .filter(|&&w| w != 0)
            .map(|w| w.count_ones() as usize)
            .sum()
    }

    /// `cpumask_weight() > 1` without counting every CPU: stops at the second one found.
    pub fn more_than_one(&self) -> bool {
        let mut seen = false;
        for &w in &self.0 {
            if w != 0 {
                if seen || w & (w - 1) != 0 {
                    return true;
                }
                seen = true;
            }
        }
        false
    }

    pub fn is_empty(&self) -> bool {
        // One OR over the words (vectorised), not a test and branch per word.
        self.0.iter().fold(0, |acc, &w| acc | w) == 0
    }

    pub fn and(&self, other: &CpuMask) -> CpuMask {
        let mut r = *self;
        for (a, b) in r.0.iter_mut().zip(other.0.iter()) {
            *a &= *b;
        }
        r
    }

    pub fn or(&self, other: &CpuMask) -> CpuMask {
        let mut r = *self;
        for (a, b) in r.0.iter_mut().zip(other.0.iter()) {
            *a |= *b;
        }
        r
    }

    /// `cpumask_andnot()`: the CPUs of `self` not in `other`.
    pub fn and_not(&self, other: &CpuMask) -> CpuMask {
        let mut r = *self;
        for (a, b) in r.0.iter_mut().zip(other.0.iter()) {
            *a &= !*b;
        }
        r
    }

    pub fn intersects(&self, other: &CpuMask) -> bool {
        self.0.iter().zip(other.0.iter()).any(|(a, b)| a & b != 0)
    }

    /// True if every CPU of `self` is also in `other`.
    pub fn is_subset_of(&self, other: &CpuMask) -> bool {
        self.0.iter().zip(other.0.iter()).all(|(a, b)| a & !b == 0)
    }

    /// The lowest CPU in the mask (`cpumask_first`).
    pub fn first(&self) -> Option<usize> {
        self.0
            .iter()
            .enumerate()
            .find(|(_, &w)| w != 0)
            .map(|(i, w)| i * 64 + w.trailing_zeros() as usize)
    }

    /// The first CPU at or after `start`, wrapping around: the first step of
    /// `for_each_cpu_wrap()`, in a few word operations.
    pub fn next_wrap(&self, start: usize) -> Option<usize> {
        let start = start % MAX_CPUS;
        let (w0, b0) = (start / 64, start % 64);
        let first = self.0[w0] & (!0u64 << b0);
        if first != 0 {
            return Some(w0 * 64 + first.trailing_zeros() as usize);
        }
        for k in 1..=WORDS {
            let w = (w0 + k) % WORDS;
            let mut bits = self.0[w];
            if w == w0 {
                bits &= !(!0u64 << b0);
            }
            if bits != 0 {
                return Some(w * 64 + bits.trailing_zeros() as usize);
            }
        }
        None
    }

    /// CPUs in increasing order.
    pub fn iter(&self) -> CpuMaskIter {
        // One past the last word that holds a CPU, found without branches: the walk stops
        // there rather than testing every empty word after it.
        let mut end = 0;
        for (i, &w) in self.0.iter().enumerate() {
            end = if w != 0 { i + 1 } else { end };
        }
        CpuMaskIter {
            mask: *self,
            word: 0,
            end,
            bits: self.0[0],
        }
    }

    /// The CPUs of `self & other` in increasing order, as `for_each_cpu_and()` visits them, where
    /// neither mask has a CPU at or above `nr_cpus`: like the kernel's walk, which stops at
    /// `nr_cpu_ids`, it reads only the words below that bound, and copies neither mask.
    #[inline]
    pub fn iter_and<'a>(&'a self, other: &'a CpuMask, nr_cpus: usize) -> CpuMaskAndIter<'a> {
        CpuMaskAndIter {
            a: self,
            b: other,
            word: 0,
            end: nr_cpus.div_ceil(64).clamp(1, WORDS),
            bits: self.0[0] & other.0[0],
        }
    }

    /// CPUs starting at `start` and wrapping around, as `for_each_cpu_wrap()` visits them: the
    /// CPUs at or above `start` in increasing order, then those below it. Word by word, so a
    /// scan that stops early costs only the words it reached.
    pub fn iter_wrap(&self, start: usize) -> CpuMaskWrapIter {
        // Nothing at or above a start past the last CPU: the plain order, as from 0.
        let start = if start >= MAX_CPUS { 0 } else { start };
        let (w0, b0) = (start / 64, start % 64);
        let mut mask = *self;
        mask.0[w0] &= !0u64 << b0;
        CpuMaskWrapIter {
            mask,
            word: w0,
            // w0 (upper part), the words after it, the words before it, w0 again (lower part).
            steps: WORDS + 1,
            last_bits: self.0[w0] & !(!0u64 << b0),
        }
    }

    /// How many CPUs of the mask lie in `lo..hi` (`lo <= hi <= MAX_CPUS`).
    pub fn weight_range(&self, lo: usize, hi: usize) -> usize {
        if lo >= hi {
            return 0;
        }
        let (wl, bl) = (lo / 64, lo % 64);
        let (wh, bh) = (hi / 64, hi % 64);
        let ones = |w: u64| if w == 0 { 0 } else { w.count_ones() as usize };
        let low_mask = !0u64 << bl;
        if wl == wh {
            return ones(self.0[wl] & low_mask & !(!0u64 << bh));
        }
        let mut n = ones(self.0[wl] & low_mask);
        for &w in &self.0[wl + 1..wh] {
            n += ones(w);
        }
        if wh < WORDS {
            n += ones(self.0[wh] & !(!0u64 << bh));
        }
        n
    }

    /// How many CPUs of the mask `iter_wrap(start)` visits before it reaches `cpu`.
    pub fn weight_wrap_before(&self, start: usize, cpu: usize) -> usize {
        let start = if start >= MAX_CPUS { 0 } else { start };
        if cpu >= start {
            self.weight_range(start, cpu)
        } else {
            self.weight_range(start, MAX_CPUS) + self.weight_range(0, cpu)
        }
    }
}

/// The CPUs of `a & b` below `64 * end` in increasing order, without building the mask:
/// [`CpuMask::iter_and`].
pub struct CpuMaskAndIter<'a> {
    a: &'a CpuMask,
    b: &'a CpuMask,
    word: usize,
    end: usize,
    bits: u64,
}

impl Iterator for CpuMaskAndIter<'_> {
    type Item = usize;
    #[inline]
    fn next(&mut self) -> Option<usize> {
        loop {
            if self.bits != 0 {
                let bit = self.bits.trailing_zeros() as usize;
                self.bits &= self.bits - 1;
                return Some(self.word * 64 + bit);
            }
            self.word += 1;
            if self.word >= self.end {
                return None;
            }
            self.bits = self.a.0[self.word] & self.b.0[self.word];
        }
    }
}

/// [`CpuMask::iter`]'s iterator.
pub struct CpuMaskIter {
    mask: CpuMask,
    /// The current word and its CPUs not visited yet.
    word: usize,
    bits: u64,
    /// One past the last word that holds a CPU.
    end: usize,
}

impl Iterator for CpuMaskIter {
    type Item = usize;
    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.bits == 0 {
            self.word += 1;
            if self.word >= self.end {
                return None;
            }
            self.bits = self.mask.0[self.word];
        }
        let bit = self.bits.trailing_zeros() as usize;
        self.bits &= self.bits - 1;
        Some(self.word * 64 + bit)
    }
}

/// [`CpuMask::iter_wrap`]'s iterator.
pub struct CpuMaskWrapIter {
    mask: CpuMask,
    word: usize,
    /// Words still to visit, the current one included.
    steps: usize,
    /// The bits of the start word below the start, visited last.
    last_bits: u64,
}

impl Iterator for CpuMaskWrapIter {
    type Item = usize;
    fn next(&mut self) -> Option<usize> {
        while self.steps > 0 {
            let w = self.mask.0[self.word];
            if w != 0 {
                self.mask.0[self.word] &= w - 1;
                return Some(self.word * 64 + w.trailing_zeros() as usize);
            }
            self.steps -= 1;
            if self.steps == 0 {
                break;
            }
            self.word = (self.word + 1) % WORDS;
            if self.steps == 1 {
                // Back at the start word: its bits below the start.
                self.mask.0[self.word] = self.last_bits;
            }
        }
        None
    }
}

impl std::fmt::Debug for CpuMask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self)
    }
}

/// Formats as the kernel's cpulist format, e.g. `0-3,6`.
impl std::fmt::Display for CpuMask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let cpus: Vec<usize> = self.iter().collect();
        let mut first = true;
        let mut i = 0;
        while i < cpus.len() {
            let mut j = i;
            while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
                j += 1;
            }
            if !first {
                write!(f, ",")?;
            }
            first = false;
            if j == i {
                write!(f, "{}", cpus[i])?;
            } else {
                write!(f, "{}-{}", cpus[i], cpus[j])?;
            }
            i = j + 1;
        }
        Ok(())
    }
}

impl From<CpuMask> for Vec<usize> {
    fn from(m: CpuMask) -> Vec<usize> {
        m.iter().collect()
    }
}

impl TryFrom<Vec<usize>> for CpuMask {
    type Error = String;
    fn try_from(v: Vec<usize>) -> Result<CpuMask, String> {
        let mut m = CpuMask::EMPTY;
        for cpu in v {
            if cpu >= MAX_CPUS {
                return Err(format!(
                    "CPU {cpu} is out of range (at most {} CPUs)",
                    MAX_CPUS
                ));
            }
            m.set(cpu);
        }
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpulist_format_matches_the_kernels() {
        let m = CpuMask::try_from(vec![0, 1, 2, 3, 6, 8, 9]).unwrap();
        assert_eq!(m.to_string(), "0-3,6,8-9");
        assert_eq!(m.weight(), 7);
        assert_eq!(m.first(), Some(0));
    }

    #[test]
    fn more_than_one_is_weight_above_one_for_every_word_layout() {
        let mut cases = vec![CpuMask::EMPTY];
        for a in [0usize, 1, 63, 64, 130, 511] {
            cases.push(CpuMask::single(a));
            for b in [0usize, 2, 63, 64, 65, 300, 511] {
                let mut m = CpuMask::single(a);
                m.set(b);
                cases.push(m);
            }
        }
        cases.push(CpuMask::first_n(8));
        for m in cases {
            assert_eq!(m.more_than_one(), m.weight() > 1, "{m}");
        }
    }

    #[test]
    fn iter_and_visits_the_intersection_below_the_bound() {
        let mut a = CpuMask::EMPTY;
        let mut b = CpuMask::EMPTY;
        for c in [0usize, 3, 63, 64, 100, 191, 200, 383] {
            a.set(c);
        }
        for c in [3usize, 5, 63, 64, 191, 383] {
            b.set(c);
        }
        for nr in [384usize, 400, 512] {
            let got: Vec<usize> = a.iter_and(&b, nr).collect();
            assert_eq!(got, a.and(&b).iter().collect::<Vec<_>>());
        }
        // Only the words below the bound are read.
        assert_eq!(a.iter_and(&b, 64).collect::<Vec<_>>(), vec![3, 63]);
        assert_eq!(a.iter_and(&b, 1).collect::<Vec<_>>(), vec![3, 63]);
        assert_eq!(CpuMask::EMPTY.iter_and(&b, 512).next(), None);
    }

    #[test]
    fn wrap_iteration_starts_at_the_given_cpu() {
        let m = CpuMask::first_n(6);
        assert_eq!(m.iter_wrap(4).collect::<Vec<_>>(), vec![4, 5, 0, 1, 2, 3]);
    }

    #[test]
    fn wrap_iteration_matches_the_filtered_order() {
        let m = CpuMask::try_from(vec![0, 3, 63, 64, 70, 127, 128, 130, 200, 511]).unwrap();
        for start in 0..=MAX_CPUS + 1 {
            let want: Vec<usize> = m
                .iter()
                .filter(|&c| c >= start)
                .chain(m.iter().filter(|&c| c < start))
                .collect();
            assert_eq!(m.iter_wrap(start).collect::<Vec<_>>(), want, "{start}");
            for (k, &cpu) in want.iter().enumerate() {
                assert_eq!(m.weight_wrap_before(start, cpu), k, "{start} {cpu}");
            }
        }
        assert_eq!(CpuMask::EMPTY.iter_wrap(7).next(), None);
        let full = CpuMask::first_n(MAX_CPUS);
        assert_eq!(full.iter_wrap(5).count(), MAX_CPUS);
        for (lo, hi) in [
            (0, 0),
            (0, 512),
            (3, 64),
            (63, 65),
            (64, 128),
            (100, 300),
            (511, 512),
        ] {
            assert_eq!(full.weight_range(lo, hi), hi - lo);
            assert_eq!(
                m.weight_range(lo, hi),
                m.iter().filter(|&c| c >= lo && c < hi).count()
            );
        }
    }

    #[test]
    fn next_wrap_finds_the_first_cpu_from_start() {
        let m = CpuMask::try_from(vec![3, 70, 130]).unwrap();
        assert_eq!(m.next_wrap(0), Some(3));
        assert_eq!(m.next_wrap(4), Some(70));
        assert_eq!(m.next_wrap(71), Some(130));
        assert_eq!(m.next_wrap(131), Some(3));
        assert_eq!(m.next_wrap(3), Some(3));
        assert_eq!(CpuMask::EMPTY.next_wrap(5), None);
        for start in 0..140 {
            assert_eq!(m.next_wrap(start), m.iter_wrap(start).next(), "{start}");
        }
    }

    #[test]
    fn high_cpus_use_the_upper_words() {
        let mut m = CpuMask::EMPTY;
        m.set(200);
        m.set(63);
        m.set(64);
        assert_eq!(m.iter().collect::<Vec<_>>(), vec![63, 64, 200]);
        assert!(CpuMask::try_from(vec![MAX_CPUS]).is_err());
    }

    /// The iterator visits exactly the set CPUs in increasing order, whichever words they are in
    /// (an empty first word, only the last word, every word, none).
    #[test]
    fn iteration_visits_every_set_cpu_in_order() {
        let cases: Vec<Vec<usize>> = vec![
            vec![],
            vec![0],
            vec![63],
            vec![64, 65],
            vec![MAX_CPUS - 1],
            vec![1, 511],
            (0..MAX_CPUS).step_by(37).collect(),
            (0..MAX_CPUS).collect(),
        ];
        for cpus in cases {
            let m = CpuMask::try_from(cpus.clone()).unwrap();
            let by_test: Vec<usize> = (0..MAX_CPUS).filter(|&c| m.test(c)).collect();
            assert_eq!(by_test, cpus);
            assert_eq!(m.iter().collect::<Vec<_>>(), cpus);
            assert_eq!(m.is_empty(), cpus.is_empty());
        }
    }
}
