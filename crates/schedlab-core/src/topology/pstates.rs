//! A clock domain's P-states (its OPPs, then the 100 MHz ratios above them up to the peak) and
//! the two searches the governors make of them on every frequency update: schedutil's
//! `cpufreq_driver_resolve_freq()` (the lowest at or above a target) and HWP's pick (the highest
//! at or below). It holds no kernel function: the kernel's drivers search their own tables.

/// Ascending P-states, kHz, without repeats; never empty.
#[derive(Clone, Debug, PartialEq)]
pub struct PStates {
    khz: Vec<u32>,
    /// `(first, step)` when the P-states are evenly spaced (every x86 preset: 100 MHz ratios from
    /// the lowest to the single-core turbo): the searches are then arithmetic, the same entry as
    /// the binary search finds, without its loop (a loop V8 compiles with a stack check and
    /// reloads per iteration).
    even: Option<(u64, u64)>,
}

impl PStates {
    /// `khz` ascending, without repeats, not empty.
    pub fn new(khz: Vec<u32>) -> PStates {
        debug_assert!(!khz.is_empty() && khz.windows(2).all(|w| w[0] < w[1]));
        let even = match khz[..] {
            [a, b, ..] if khz.windows(2).all(|w| w[1] - w[0] == b - a) => {
                Some((a as u64, (b - a) as u64))
            }
            _ => None,
        };
        PStates { khz, even }
    }

    pub fn as_slice(&self) -> &[u32] {
        &self.khz
    }

    /// The lowest P-state at or above `target`, or `above_all` when every one is below it.
    #[inline]
    pub fn at_or_above(&self, target: u64, above_all: u32) -> u32 {
        let at = match self.even {
            // The count of entries below target: first + k * step < target.
            Some((first, step)) => match target.checked_sub(first) {
                None | Some(0) => 0,
                Some(over) => over.div_ceil(step).min(self.khz.len() as u64) as usize,
            },
            None => self.khz.partition_point(|&f| (f as u64) < target),
        };
        self.khz.get(at).copied().unwrap_or(above_all)
    }

    /// The highest P-state at or below `khz`, or `below_all` when every one is above it.
    #[inline]
    pub fn at_or_below(&self, khz: u64, below_all: u32) -> u32 {
        let n = match self.even {
            // The count of entries at or below khz: first + k * step <= khz.
            Some((first, step)) => match khz.checked_sub(first) {
                None => 0,
                Some(over) => (over / step + 1).min(self.khz.len() as u64) as usize,
            },
            None => self.khz.partition_point(|&f| f as u64 <= khz),
        };
        match n {
            0 => below_all,
            n => self.khz[n - 1],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both searches give, for every target around every entry, what a binary search of the
    /// table gives: on an evenly spaced table (arithmetic) and on uneven ones (the search).
    #[test]
    fn each_search_finds_the_entry_a_binary_search_finds() {
        let tables: [(Vec<u32>, bool); 4] = [
            ((10..=39).map(|r| r * 100_000).collect(), true),
            (vec![2_400_000], false),
            (
                vec![533_000, 999_000, 1_402_000, 1_709_000, 2_100_000],
                false,
            ),
            (vec![1_000_000, 1_500_000, 2_000_000, 2_100_000], false),
        ];
        for (khz, even) in tables {
            let p = PStates::new(khz.clone());
            assert_eq!(p.even.is_some(), even, "{khz:?}");
            let mut targets: Vec<u64> = vec![0, 1, u64::MAX];
            for &f in &khz {
                targets.extend([f as u64 - 1, f as u64, f as u64 + 1, f as u64 + 50_000]);
            }
            for t in targets {
                let above = khz.partition_point(|&f| (f as u64) < t);
                assert_eq!(
                    p.at_or_above(t, 7),
                    khz.get(above).copied().unwrap_or(7),
                    "{t}"
                );
                let below = khz.partition_point(|&f| f as u64 <= t);
                let want = if below == 0 { 9 } else { khz[below - 1] };
                assert_eq!(p.at_or_below(t, 9), want, "{t}");
            }
        }
    }
}
