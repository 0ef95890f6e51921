//! The run's random number generator: xoshiro256** seeded through SplitMix64.
//!
//! Written out here (a dozen lines) rather than taken from a crate so that the core has no
//! dependency that could pull in `getrandom`, and so that the sequence is fixed by this file alone:
//! the same seed gives the same numbers natively and in wasm, forever.

/// One seeded generator per run; the engine is its only user.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        let mut sm = seed;
        let mut next = || {
            sm = sm.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = sm;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        Rng {
            s: [next(), next(), next(), next()],
        }
    }

    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in `0..n` (`n > 0`), by Lemire's multiply-shift; the tiny bias is irrelevant here
    /// and the result is the same on every platform. The high half of the 128-bit product is
    /// [`crate::math64::mul_u64_u64_hi`]: on wasm32 taken in 64-bit pieces (exact), since a
    /// 128-bit multiply is a call there.
    pub fn below(&mut self, n: u64) -> u64 {
        crate::math64::mul_u64_u64_hi(self.next_u64(), n)
    }

    /// Uniform in `lo..=hi`.
    pub fn range_inclusive(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            return lo;
        }
        lo + self.below(hi - lo + 1)
    }

    /// A seed for an independent sub-stream (one per run of a plan).
    pub fn derive(seed: u64, stream: u64) -> u64 {
        let mut r = Rng::new(seed ^ stream.wrapping_mul(0xa076_1d64_78bd_642f));
        r.next_u64()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_sequence_and_known_first_value() {
        let mut a = Rng::new(42);
        let mut b = Rng::new(42);
        let xs: Vec<u64> = (0..4).map(|_| a.next_u64()).collect();
        let ys: Vec<u64> = (0..4).map(|_| b.next_u64()).collect();
        assert_eq!(xs, ys);
        assert_ne!(Rng::new(43).next_u64(), xs[0]);
    }

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut r = Rng::new(1);
        let mut seen = [false; 8];
        for _ in 0..1000 {
            let v = r.below(8) as usize;
            seen[v] = true;
        }
        assert!(seen.iter().all(|&s| s));
    }
}
