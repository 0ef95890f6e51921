//! Student's t distribution and Welch's t-test, for the significance marks of mmtests-style tables.
//!
//! Written with `+ - * /` and `sqrt` only (all IEEE-exact, and Rust never fuses them), so the
//! same inputs give the same bits natively and in wasm: no `ln`, `exp`, `pow` or `atan` from a
//! platform libm whose last bits may differ. The distribution function is the closed form for
//! integer degrees of freedom (Abramowitz & Stegun 26.7.3 and 26.7.4), the quantile is found by
//! bisection on it.

/// `atan(x)` from `+ - * / sqrt`: halve the angle with `atan(x) = 2 atan(x / (1 + sqrt(1 + x^2)))`
/// until `|x| < 1/16`, then sum the Taylor series to the last bit.
fn atan(x: f64) -> f64 {
    let mut x = x;
    let mut scale = 1.0;
    while x.abs() >= 0.0625 {
        x /= 1.0 + (1.0 + x * x).sqrt();
        scale *= 2.0;
    }
    let x2 = x * x;
    let mut term = x;
    let mut sum = 0.0;
    let mut k = 0u32;
    loop {
        let add = term / (2 * k + 1) as f64;
        if k.is_multiple_of(2) {
            sum += add;
        } else {
            sum -= add;
        }
        if add.abs() < 1e-20 {
            break;
        }
        term *= x2;
        k += 1;
    }
    sum * scale
}

/// `A(t | df)`: the probability that `|T| < t` for Student's t with integer `df >= 1` degrees of
/// freedom (A&S 26.7.3 for odd df, 26.7.4 for even df), for `t >= 0`.
pub fn two_sided_inside(t: f64, df: u32) -> f64 {
    let df = df.max(1);
    let nu = df as f64;
    let r = (nu + t * t).sqrt();
    let sin = t / r;
    let cos2 = nu / (t * t + nu);
    if df.is_multiple_of(2) {
        // sin(theta) (1 + 1/2 cos^2 + (1 3)/(2 4) cos^4 + ... + (1 3 .. df-3)/(2 4 .. df-2) cos^(df-2))
        let mut term = 1.0;
        let mut sum = 1.0;
        let mut k = 1u32;
        while 2 * k < df {
            term *= (2 * k - 1) as f64 / (2 * k) as f64 * cos2;
            sum += term;
            k += 1;
        }
        sin * sum
    } else {
        // 2/pi (theta + sin cos (1 + 2/3 cos^2 + ... + (2 4 .. df-3)/(1 3 .. df-2) cos^(df-3)))
        let theta = atan(t / nu.sqrt());
        let mut inner = 0.0;
        if df > 1 {
            let cos = nu.sqrt() / r;
            let mut term = 1.0;
            let mut sum = 1.0;
            let mut k = 1u32;
            while 2 * k + 1 < df {
                term *= (2 * k) as f64 / (2 * k + 1) as f64 * cos2;
                sum += term;
                k += 1;
            }
            inner = sin * cos * sum;
        }
        2.0 / std::f64::consts::PI * (theta + inner)
    }
}

/// The upper `alpha / 2` quantile of Student's t with `df` degrees of freedom: the `t` with
/// `P(|T| > t) = alpha` (R's `qt(alpha / 2, df, lower.tail = FALSE)`), for `0 < alpha < 1`.
/// Bisection on [`two_sided_inside`] to the last bit.
pub fn critical_value(alpha: f64, df: u32) -> f64 {
    let target = 1.0 - alpha;
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    while two_sided_inside(hi, df) < target && hi < 1e12 {
        lo = hi;
        hi *= 2.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if two_sided_inside(mid, df) < target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi
}

/// One sample's summary as the test takes it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    pub mean: f64,
    pub stddev: f64,
    pub n: usize,
}

/// Welch's t-test of `x` against `y` at significance level `alpha` (0.05 for 95%), two-sided, as
/// mmtests' `calc_welch_test()` (bin/lib/MMTests/Stat.pm) computes it: `t = (mx - my) /
/// sqrt(sx^2/m + sy^2/n)`, degrees of freedom by Welch-Satterthwaite rounded down, rejected when
/// `|t| > qt(alpha/2, k, lower.tail = FALSE)`. `None` when either sample has fewer than two
/// values (no variance to test with). Where both variances are zero the means are compared
/// directly (a difference is significant), as mmtests' compare did (`_significanceTest()`,
/// 2017-2024).
pub fn welch_significant(x: Sample, y: Sample, alpha: f64) -> Option<bool> {
    if x.n < 2 || y.n < 2 || !x.mean.is_finite() || !y.mean.is_finite() {
        return None;
    }
    let (m, n) = (x.n as f64, y.n as f64);
    let tsx = x.stddev * x.stddev / m;
    let tsy = y.stddev * y.stddev / n;
    let se2 = tsx + tsy;
    if se2.is_nan() || se2 <= 0.0 {
        return Some(x.mean != y.mean);
    }
    let k = (m - 1.0) * (n - 1.0) * se2 * se2 / ((n - 1.0) * tsx * tsx + (m - 1.0) * tsy * tsy);
    let k = k.floor().clamp(1.0, 1e9) as u32;
    let t = (x.mean - y.mean) / se2.sqrt();
    Some(t.abs() > critical_value(alpha, k))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atan_matches_known_angles() {
        let pi = std::f64::consts::PI;
        assert!((atan(1.0) - pi / 4.0).abs() < 1e-15);
        assert!((atan(3f64.sqrt()) - pi / 3.0).abs() < 1e-15);
        assert!((atan(-1.0 / 3f64.sqrt()) + pi / 6.0).abs() < 1e-15);
        assert_eq!(atan(0.0), 0.0);
    }

    #[test]
    fn critical_values_match_the_t_tables() {
        // qt(0.975, df), computed with mpmath's regularized incomplete beta to 30 digits.
        let known = [
            (1, 12.7062047361747),
            (2, 4.30265272974946),
            (3, 3.18244630528371),
            (4, 2.77644510519779),
            (5, 2.57058183563631),
            (7, 2.36462425159278),
            (10, 2.22813885198627),
            (15, 2.13144954555978),
            (20, 2.08596344726586),
            (30, 2.04227245630124),
            (60, 2.00029782201426),
            (120, 1.97993040508244),
            (1000, 1.96233908082641),
        ];
        for (df, q) in known {
            let got = critical_value(0.05, df);
            assert!((got - q).abs() < 1e-9 * q, "df {df}: {got} vs {q}");
        }
        // 99% two-sided, a few.
        for (df, q) in [
            (1, 63.6567411628716),
            (5, 4.03214298355523),
            (30, 2.74999565356722),
        ] {
            let got = critical_value(0.01, df);
            assert!((got - q).abs() < 1e-7 * q, "df {df}: {got} vs {q}");
        }
    }

    #[test]
    fn welch_rejects_separated_means_and_keeps_overlapping_ones() {
        let s = |mean, stddev, n| Sample { mean, stddev, n };
        // t = 1 / sqrt(0.5^2/5 * 2) = 3.162, k = 8: qt = 2.306, significant.
        assert_eq!(
            welch_significant(s(11.0, 0.5, 5), s(10.0, 0.5, 5), 0.05),
            Some(true)
        );
        // t = 0.632, k = 8: not significant.
        assert_eq!(
            welch_significant(s(10.2, 0.5, 5), s(10.0, 0.5, 5), 0.05),
            Some(false)
        );
        // Unequal variances: k = floor(...) small, the test is harder to pass.
        // t = 1 / sqrt(4/3 + 0.0001/3) = 0.866: not significant.
        assert_eq!(
            welch_significant(s(11.0, 2.0, 3), s(10.0, 0.01, 3), 0.05),
            Some(false)
        );
        assert_eq!(
            welch_significant(s(11.0, 0.0, 3), s(10.0, 0.0, 3), 0.05),
            Some(true)
        );
        assert_eq!(
            welch_significant(s(10.0, 0.0, 3), s(10.0, 0.0, 3), 0.05),
            Some(false)
        );
        assert_eq!(
            welch_significant(s(11.0, 0.5, 1), s(10.0, 0.5, 5), 0.05),
            None
        );
    }
}
