//! 64-bit multiply-shift helpers, as `include/linux/math64.h` has them for machines without a
//! 128-bit multiply (its generic `mul_u64_u32_shr()` and `mul_u64_u64_shr()`, all versions).
//!
//! Why not `(a as u128 * b as u128) >> s` everywhere: on wasm32 a 128-bit multiply is a call into
//! compiler-rt (`__multi3`), on the hottest paths (PELT's `decay_load()`, the run's RNG). The
//! generic forms here use only 64-bit multiplies of 32-bit halves and give exactly the same value
//! for every input (the proof is in each function; `tests` checks it against the 128-bit form).
//! Like math64.h, which takes the `__int128` form where the architecture has one
//! (`CONFIG_ARCH_SUPPORTS_INT128`, x86-64 and arm64), the public functions take the 128-bit
//! product on every target but wasm32: one multiply instruction there. The value is the same.

/// `mul_u64_u32_shr(a, mul, shift)`: `(a * mul) >> shift` truncated to 64 bits, for
/// `shift <= 32`; math64.h's generic form (v3.13+): the low and high 32-bit halves of `a`
/// multiplied separately.
///
/// Exact: with `a = ah * 2^32 + al`, `a * mul >> shift = (ah * mul) << (32 - shift) +
/// ((al * mul) >> shift)`, because `ah * mul * 2^32` is a multiple of `2^shift`. `al * mul` and
/// `ah * mul` are products of two values below `2^32`, so each fits in a u64; the shift and the
/// sum are taken modulo `2^64` (wrapping), which is what `as u64` of the 128-bit value gives.
#[inline]
pub fn mul_u64_u32_shr(a: u64, mul: u32, shift: u32) -> u64 {
    #[cfg(target_arch = "wasm32")]
    return mul_u64_u32_shr_generic(a, mul, shift);
    #[cfg(not(target_arch = "wasm32"))]
    return ((a as u128 * mul as u128) >> shift) as u64;
}

/// [`mul_u64_u32_shr`] from 32-bit halves (math64.h's form without `__int128`).
#[cfg(any(target_arch = "wasm32", test))]
#[inline]
pub(crate) fn mul_u64_u32_shr_generic(a: u64, mul: u32, shift: u32) -> u64 {
    debug_assert!(shift <= 32);
    let (al, ah) = (a & 0xffff_ffff, a >> 32);
    let low = (al * mul as u64) >> shift;
    if ah == 0 {
        return low;
    }
    low.wrapping_add((ah * mul as u64).wrapping_shl(32 - shift))
}

/// `mul_u64_u64_shr(a, b, 64)`: the high 64 bits of the 128-bit product `a * b`, from the four
/// 32x32-bit partial products (math64.h's generic `mul_u64_u64_shr()`, v4.11+, with shift 64).
///
/// Exact: with `a = a1 * 2^32 + a0` and `b = b1 * 2^32 + b0`, `a * b = p11 * 2^64 + (p01 + p10) *
/// 2^32 + p00`. The middle column `(p00 >> 32) + lo32(p01) + lo32(p10)` is below `3 * 2^32`, so it
/// fits in a u64, and its carry `mid >> 32` joins `p11 + hi32(p01) + hi32(p10)`, which is the high
/// half of a product below `2^128`, so below `2^64`: no step overflows.
#[inline]
pub fn mul_u64_u64_hi(a: u64, b: u64) -> u64 {
    #[cfg(target_arch = "wasm32")]
    return mul_u64_u64_hi_generic(a, b);
    #[cfg(not(target_arch = "wasm32"))]
    return ((a as u128 * b as u128) >> 64) as u64;
}

/// [`mul_u64_u64_hi`] from the four 32x32-bit partial products.
#[cfg(any(target_arch = "wasm32", test))]
#[inline]
pub(crate) fn mul_u64_u64_hi_generic(a: u64, b: u64) -> u64 {
    const LO: u64 = 0xffff_ffff;
    if b <= LO {
        // `b` below `2^32` (a bound of `Rng::below`): `p01` and `p11` are zero, and `a1 * b +
        // (p00 >> 32)` is at most `(2^32 - 1)^2 + 2^32 - 1 < 2^64`. Two multiplies, nothing LLVM
        // turns into a call, so no opaque value either.
        return ((a >> 32) * b + (((a & LO) * b) >> 32)) >> 32;
    }
    // LLVM (22) recognises this ladder of partial products as the high half of a 128-bit
    // product and, on wasm32, turns it back into the `__multi3` call it is here to avoid. An
    // opaque `a1` (a store and a load on wasm32's shadow stack; the value is the same) keeps the
    // four 64-bit multiplies.
    let (a0, a1) = (a & LO, std::hint::black_box(a >> 32));
    let (b0, b1) = (b & LO, b >> 32);
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let p11 = a1 * b1;
    let mid = (p00 >> 32) + (p01 & LO) + (p10 & LO);
    p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32)
}

/// The full 128-bit product `a * b`; on wasm32 built from [`mul_u64_u64_hi_generic`] and the
/// wrapping 64-bit product (the low half): the same value, without wasm32's call.
#[inline]
pub fn mul_u64_u64_wide(a: u64, b: u64) -> u128 {
    #[cfg(target_arch = "wasm32")]
    return mul_u64_u64_wide_generic(a, b);
    #[cfg(not(target_arch = "wasm32"))]
    return a as u128 * b as u128;
}

/// [`mul_u64_u64_wide`] without a 128-bit multiply. When the operands' bit lengths add up to at
/// most 64 the product is below `2^64`: one 64-bit multiply gives it (the common case: a ns delta
/// times a kHz or a power), without the partial products, whose opaque `a1` costs a store and a
/// load on wasm32's shadow stack (`cargo xtask profile --instr`: `freq_tick_account` executed 2.3
/// times the native instructions in V8).
#[cfg(any(target_arch = "wasm32", test))]
#[inline]
pub(crate) fn mul_u64_u64_wide_generic(a: u64, b: u64) -> u128 {
    if a.leading_zeros() + b.leading_zeros() >= 64 {
        return a.wrapping_mul(b) as u128;
    }
    ((mul_u64_u64_hi_generic(a, b) as u128) << 64) | a.wrapping_mul(b) as u128
}

/// `a.saturating_mul(b)`. On wasm32 an overflow-checked 64-bit multiply is lowered to a call
/// into compiler-rt (`__multi3`, the 128-bit product, whose high half tells the overflow): 3-6%
/// of a run's time in V8 on the engine's hottest paths (work accounting, a request's jitter, a
/// core's power). When the operands' bit lengths add up to at most 64 the product is below
/// `2^64` and cannot overflow, so the plain multiply gives the same value; only wider operands
/// take the checked form. Elsewhere the checked multiply is one instruction and a flag.
#[inline(always)]
pub fn saturating_mul_u64(a: u64, b: u64) -> u64 {
    #[cfg(target_arch = "wasm32")]
    return saturating_mul_u64_generic(a, b);
    #[cfg(not(target_arch = "wasm32"))]
    return a.saturating_mul(b);
}

/// [`saturating_mul_u64`] with the short form for operands that cannot overflow.
#[cfg(any(target_arch = "wasm32", test))]
#[inline(always)]
pub(crate) fn saturating_mul_u64_generic(a: u64, b: u64) -> u64 {
    if a.leading_zeros() + b.leading_zeros() >= 64 {
        a.wrapping_mul(b)
    } else {
        a.saturating_mul(b)
    }
}

/// `a.saturating_mul(b)` for signed operands, as [`saturating_mul_u64`]: when the magnitudes'
/// bit lengths add up to at most 63 the product's magnitude is below `2^63`, which fits.
#[inline(always)]
pub fn saturating_mul_i64(a: i64, b: i64) -> i64 {
    #[cfg(target_arch = "wasm32")]
    return saturating_mul_i64_generic(a, b);
    #[cfg(not(target_arch = "wasm32"))]
    return a.saturating_mul(b);
}

/// [`saturating_mul_i64`] with the short form for operands that cannot overflow.
#[cfg(any(target_arch = "wasm32", test))]
#[inline(always)]
pub(crate) fn saturating_mul_i64_generic(a: i64, b: i64) -> i64 {
    if a.unsigned_abs().leading_zeros() + b.unsigned_abs().leading_zeros() >= 65 {
        a.wrapping_mul(b)
    } else {
        a.saturating_mul(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// Values at the edges of the halves, plus a stream of random ones.
    fn samples() -> Vec<u64> {
        let mut v = vec![
            0,
            1,
            2,
            0x7fff_ffff,
            0xffff_ffff,
            0x1_0000_0000,
            0x1_0000_0001,
            0xffff_ffff_0000_0000,
            0x8000_0000_0000_0000,
            u64::MAX - 1,
            u64::MAX,
        ];
        let mut r = Rng::new(13);
        for i in 0..2000 {
            let x = r.next_u64();
            // Mix in small values and values of every width.
            v.push(x >> (i % 64));
        }
        v
    }

    #[test]
    fn mul_u64_u32_shr_equals_the_128_bit_product() {
        let s = samples();
        for &a in &s {
            for &m in s.iter().step_by(37) {
                let m = m as u32;
                for shift in [0, 1, 10, 31, 32] {
                    let want = ((a as u128 * m as u128) >> shift) as u64;
                    assert_eq!(mul_u64_u32_shr(a, m, shift), want, "{a} {m} {shift}");
                    assert_eq!(
                        mul_u64_u32_shr_generic(a, m, shift),
                        want,
                        "{a} {m} {shift}"
                    );
                }
            }
        }
    }

    #[test]
    fn mul_u64_u64_hi_equals_the_128_bit_product() {
        let s = samples();
        for &a in &s {
            for &b in s.iter().step_by(7) {
                let want = ((a as u128 * b as u128) >> 64) as u64;
                assert_eq!(mul_u64_u64_hi(a, b), want, "{a} {b}");
                assert_eq!(mul_u64_u64_hi_generic(a, b), want, "{a} {b}");
                assert_eq!(mul_u64_u64_wide(a, b), a as u128 * b as u128, "{a} {b}");
                assert_eq!(
                    mul_u64_u64_wide_generic(a, b),
                    a as u128 * b as u128,
                    "{a} {b}"
                );
            }
        }
    }

    /// Both forms against the 128-bit product clamped to the type, on every pair of widths
    /// (products just below and just above `2^64` / `2^63` among them).
    #[test]
    fn saturating_multiplies_equal_the_clamped_128_bit_product() {
        let s = samples();
        for &a in &s {
            for &b in s.iter().step_by(7) {
                let want = (a as u128 * b as u128).min(u64::MAX as u128) as u64;
                assert_eq!(saturating_mul_u64(a, b), want, "{a} {b}");
                assert_eq!(saturating_mul_u64_generic(a, b), want, "{a} {b}");
                for (x, y) in [
                    (a as i64, b as i64),
                    ((a >> 1) as i64, -((b >> 1) as i64)),
                    (-((a >> 1) as i64), -((b >> 1) as i64)),
                    (i64::MIN, (b % 3) as i64 - 1),
                ] {
                    let want = (x as i128 * y as i128).clamp(i64::MIN as i128, i64::MAX as i128);
                    assert_eq!(saturating_mul_i64(x, y) as i128, want, "{x} {y}");
                    assert_eq!(saturating_mul_i64_generic(x, y) as i128, want, "{x} {y}");
                }
            }
        }
    }
}
