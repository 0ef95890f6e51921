//! The comparison table as mmtests' compare-kernels prints it, to paste into a cover letter.
//!
//! Modelled on gormanm/mmtests (bin/lib/MMTests/Compare.pm `_generateRenderTable()` and
//! `_generateHeaderTable()`, Summarise.pm `setSummaryMultiops()` / `getStatName()` /
//! `getStatCompareFunc()`, Stat.pm, PrintGeneric.pm `printRow()`):
//! - two header lines per variant, right-aligned over its columns: the kernel (the variant's
//!   baseline) and the variant's name, where mmtests splits a test name such as
//!   `6.8.0-vanilla` at its first '-';
//! - the multi-sample statistics, each for every row of the sweep: `Min`, the mean, the
//!   standard deviation, the coefficient of variation, `Max`, and the mean of the best 95% of
//!   the runs. The mean is harmonic (`Hmean`, `HStddev`, `HCoeffVar`, `BHmean.95`) when higher is
//!   better (throughput-like) and arithmetic (`Amean`, `Stddev`, `CoeffVar`, `BAmean.95`) when
//!   lower is better (time-like), as `getStatName()` picks by the preferred value;
//! - each value `%12.2f` followed by its change against the first variant as ` (%7.2f%%)`:
//!   `pdiff` (`new / base x 100 - 100`) where higher is better and `pndiff`
//!   (`100 - new / base x 100`) where lower is better, so **a positive change is always an
//!   improvement**; Stddev and CoeffVar always use `pndiff` (less spread is better);
//! - on the mean row, a significant change is marked by stars in place of the parentheses
//!   (` *  12.34%*`, PrintGeneric's `s/[()]/*/g` on `:SIG:` cells).
//!
//! Significance is Welch's t-test at 95% ([`crate::tdist::welch_significant`], mmtests'
//! `calc_welch_test()`) on the mean row's mean and standard deviation. Simplification: mmtests'
//! compare has decided its stars in other ways over time: 2017-2024 a t-test with the Welch
//! statistic but `n1 + n2 - 2` degrees of freedom at 90%, and since Nov 2024 (commit "Compare:
//! Use CI interval for significance testing") whether the two means' `qnorm(0.975) x stddev`
//! intervals stay apart (`cidiff() > 1`). The Welch test is the one this table promises.

use crate::table::ComparisonTable;
use std::fmt::Write;

/// Significance level of the stars: 5% (95% confidence).
pub const ALPHA: f64 = 0.05;

/// mmtests' `_FieldLength` for a summary (12) and `_CompareLength` (7); `_Precision` is the
/// workload's (`WorkloadSpec::mmtests_decimals`).
const FIELD: usize = 12;
const COMPARE: usize = 7;

/// The statistics of one cell's runs as mmtests' multi-sample summary computes them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MmSummary {
    pub n: usize,
    pub min: f64,
    pub max: f64,
    /// Harmonic mean where higher is better, else arithmetic; NaN where undefined (a harmonic
    /// mean of values that are not all positive).
    pub mean: f64,
    /// `calc_stddev()`: sample (n - 1) for the arithmetic mean, `sqrt(sum (1/x - 1/H)^2 x H^4 / n)`
    /// for the harmonic; NaN for fewer than two runs.
    pub stddev: f64,
    /// `calc_coeffvar()`: stddev x 100 / mean, 0 where either is undefined.
    pub coeffvar: f64,
    /// The mean (of the same kind) of the best `max(1, floor(n x 95 / 100))` runs.
    pub best95: f64,
}

fn amean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// `calc_hmean()`: NaN unless every value is positive.
fn hmean(v: &[f64]) -> f64 {
    if v.iter().any(|&x| x <= 0.0) {
        return f64::NAN;
    }
    v.len() as f64 / v.iter().map(|x| 1.0 / x).sum::<f64>()
}

impl MmSummary {
    /// None for no values.
    pub fn of(values: &[f64], higher_is_better: bool) -> Option<MmSummary> {
        if values.is_empty() {
            return None;
        }
        let n = values.len();
        let mut sorted = values.to_vec();
        // Best first, as `extractSummary()` sorts before it summarises.
        sorted.sort_by(|a, b| a.total_cmp(b));
        if higher_is_better {
            sorted.reverse();
        }
        let mean_of = |v: &[f64]| if higher_is_better { hmean(v) } else { amean(v) };
        let mean = mean_of(&sorted);
        let stddev = if n <= 1 || mean.is_nan() {
            f64::NAN
        } else if higher_is_better {
            let d: f64 = sorted
                .iter()
                .map(|x| (1.0 / x - 1.0 / mean) * (1.0 / x - 1.0 / mean))
                .sum();
            (d * (mean * mean * mean * mean) / n as f64).sqrt()
        } else {
            let d: f64 = sorted.iter().map(|x| (x - mean) * (x - mean)).sum();
            (d / (n - 1) as f64).sqrt()
        };
        let coeffvar = if stddev.is_nan() || mean.is_nan() || mean == 0.0 {
            0.0
        } else {
            stddev * 100.0 / mean
        };
        let best = (n * 95 / 100).max(1);
        Some(MmSummary {
            n,
            min: sorted.iter().copied().fold(f64::INFINITY, f64::min),
            max: sorted.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            mean,
            stddev,
            coeffvar,
            best95: mean_of(&sorted[..best]),
        })
    }

    fn sample(&self) -> crate::tdist::Sample {
        crate::tdist::Sample {
            mean: self.mean,
            stddev: if self.stddev.is_nan() {
                0.0
            } else {
                self.stddev
            },
            n: self.n,
        }
    }
}

/// Whether `runs` differ significantly from `base` (Welch's t-test at 95% on mmtests' mean and
/// standard deviation of the metric's kind); None where there is nothing to test (fewer than
/// two runs on either side, or an undefined mean).
pub fn significant(base: &[f64], runs: &[f64], higher_is_better: bool) -> Option<bool> {
    let b = MmSummary::of(base, higher_is_better)?;
    let r = MmSummary::of(runs, higher_is_better)?;
    crate::tdist::welch_significant(r.sample(), b.sample(), ALPHA)
}

/// `pdiff()`: the percentage a higher-is-better value gained.
fn pdiff(new: f64, base: f64) -> f64 {
    if new == base || new == 0.0 {
        0.0
    } else if base == 0.0 || base.is_nan() {
        100.0
    } else {
        new * 100.0 / base - 100.0
    }
}

/// `pndiff()`: the percentage a lower-is-better value gained (fell).
fn pndiff(new: f64, base: f64) -> f64 {
    if new == base {
        0.0
    } else if new == 0.0 {
        100.0
    } else if base == 0.0 {
        -99.0
    } else {
        100.0 - new * 100.0 / base
    }
}

#[derive(Clone, Copy)]
enum Stat {
    Min,
    Mean,
    Stddev,
    CoeffVar,
    Max,
    Best95,
}

impl Stat {
    const ALL: [Stat; 6] = [
        Stat::Min,
        Stat::Mean,
        Stat::Stddev,
        Stat::CoeffVar,
        Stat::Max,
        Stat::Best95,
    ];

    fn name(self, higher: bool) -> &'static str {
        match (self, higher) {
            (Stat::Min, _) => "Min",
            (Stat::Max, _) => "Max",
            (Stat::Mean, true) => "Hmean",
            (Stat::Mean, false) => "Amean",
            (Stat::Stddev, true) => "HStddev",
            (Stat::Stddev, false) => "Stddev",
            (Stat::CoeffVar, true) => "HCoeffVar",
            (Stat::CoeffVar, false) => "CoeffVar",
            (Stat::Best95, true) => "BHmean.95",
            (Stat::Best95, false) => "BAmean.95",
        }
    }

    /// mmtests prints an undefined statistic (`NaN`, `-1`) as 0 with no change.
    fn of(self, s: &MmSummary) -> f64 {
        let v = match self {
            Stat::Min => s.min,
            Stat::Max => s.max,
            Stat::Mean => s.mean,
            Stat::Stddev => s.stddev,
            Stat::CoeffVar => s.coeffvar,
            Stat::Best95 => s.best95,
        };
        if v.is_nan() {
            0.0
        } else {
            v
        }
    }

    fn compare(self, new: f64, base: f64, higher: bool) -> f64 {
        match self {
            Stat::Stddev | Stat::CoeffVar => pndiff(new, base),
            _ if higher => pdiff(new, base),
            _ => pndiff(new, base),
        }
    }
}

impl ComparisonTable {
    /// The table in compare-kernels' layout, values with `decimals` places. `kernels[i]` heads
    /// variant i's columns above its name (the variant's baseline kernel); missing entries leave
    /// that line blank. Cells without runs print as mmtests prints missing data: 0 with no change.
    pub fn to_mmtests(&self, kernels: &[String], decimals: usize) -> String {
        let higher = self.higher_is_better;
        let ops: Vec<String> = self.rows.iter().map(|r| self.row_label(r)).collect();
        let stat_w = Stat::ALL
            .iter()
            .map(|s| s.name(higher).len())
            .max()
            .unwrap_or(0);
        let op_w = ops.iter().map(|o| o.len()).max().unwrap_or(0);
        let lead = stat_w + 1 + op_w;
        let col = FIELD + COMPARE + 4;
        let mut s = format!(
            "{}: {} ({}), {} is better\n",
            self.scenario,
            self.metric,
            self.unit,
            if higher { "higher" } else { "lower" }
        );
        let mut head1 = format!("{:>lead$}", "");
        let mut head2 = head1.clone();
        for (i, v) in self.variants.iter().enumerate() {
            let k = kernels.get(i).map(String::as_str).unwrap_or("");
            let _ = write!(head1, "{k:>col$}");
            let _ = write!(head2, "{v:>col$}");
        }
        s.push_str(head1.trim_end());
        s.push('\n');
        s.push_str(head2.trim_end());
        s.push('\n');
        for stat in Stat::ALL {
            for (row, op) in self.rows.iter().zip(&ops) {
                let summaries: Vec<Option<MmSummary>> = self
                    .variants
                    .iter()
                    .map(|v| {
                        row.cells
                            .iter()
                            .find(|c| &c.variant == v)
                            .and_then(|c| MmSummary::of(&c.runs, higher))
                    })
                    .collect();
                let base = summaries.first().copied().flatten();
                let _ = write!(s, "{:<stat_w$} {:<op_w$}", stat.name(higher), op);
                for (i, cell) in summaries.iter().enumerate() {
                    let (value, change) = match (cell, base) {
                        (Some(c), Some(b)) => {
                            let v = stat.of(c);
                            (v, stat.compare(v, stat.of(&b), higher))
                        }
                        (Some(c), None) => (stat.of(c), 0.0),
                        _ => (0.0, 0.0),
                    };
                    let star = matches!(stat, Stat::Mean)
                        && i > 0
                        && match (cell, base) {
                            (Some(c), Some(b)) => {
                                crate::tdist::welch_significant(c.sample(), b.sample(), ALPHA)
                                    == Some(true)
                            }
                            _ => false,
                        };
                    let (open, close) = if star { ('*', '*') } else { ('(', ')') };
                    let _ = write!(
                        s,
                        "{value:>FIELD$.decimals$} {open}{change:>COMPARE$.2}%{close}"
                    );
                }
                s.push('\n');
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(higher: bool, base: Vec<f64>, patch: Vec<f64>) -> ComparisonTable {
        ComparisonTable::build(
            "t",
            "time",
            "s",
            higher,
            "groups",
            1,
            &["vanilla".to_string(), "patched".to_string()],
            &[4],
            &[vec![base, patch]],
        )
    }

    #[test]
    fn the_layout_is_compare_kernels() {
        let t = table(false, vec![10.0, 11.0, 12.0], vec![8.0, 8.1, 8.2]);
        let text = t.to_mmtests(&["v6.7".into(), "v6.7".into()], 2);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "t: time (s), lower is better");
        // Stat names are 9 wide ("BAmean.95"), the row label 8 ("groups-4"): 18 before the
        // first 23-wide variant column.
        assert_eq!(lines[1], format!("{:18}{:>23}{:>23}", "", "v6.7", "v6.7"));
        assert_eq!(
            lines[2],
            format!("{:18}{:>23}{:>23}", "", "vanilla", "patched")
        );
        assert_eq!(
            lines[3],
            "Min       groups-4       10.00 (   0.00%)        8.00 (  20.00%)"
        );
        // 8.1 vs 11: 26.36% better, and significant (t = 5.00 > qt(0.975, k = 2) = 4.30).
        assert_eq!(
            lines[4],
            "Amean     groups-4       11.00 (   0.00%)        8.10 *  26.36%*"
        );
        assert_eq!(
            lines[5],
            "Stddev    groups-4        1.00 (   0.00%)        0.10 (  90.00%)"
        );
        assert!(lines[6].starts_with("CoeffVar  groups-4        9.09 (   0.00%)"));
        assert!(lines[7].starts_with("Max       groups-4       12.00"));
        // Best 95% of 3 runs: the best 2.
        assert!(lines[8].starts_with("BAmean.95 groups-4       10.50"));
        assert_eq!(lines.len(), 9);
        // A wider patch: t = 3.87 but k = 2, not significant.
        let t = table(false, vec![10.0, 11.0, 12.0], vec![8.0, 8.5, 9.0]);
        let text = t.to_mmtests(&[], 2);
        let mean = text.lines().find(|l| l.starts_with("Amean")).unwrap();
        assert!(mean.ends_with("8.50 (  22.73%)"), "{mean}");
    }

    #[test]
    fn higher_is_better_uses_the_harmonic_mean_and_pdiff() {
        let t = table(true, vec![100.0, 200.0], vec![150.0, 150.0]);
        let text = t.to_mmtests(&[], 2);
        // Hmean(100, 200) = 133.33; 150 is 12.5% more: positive is better.
        let mean = text.lines().find(|l| l.starts_with("Hmean")).unwrap();
        assert!(mean.contains("133.33 (   0.00%)"), "{mean}");
        assert!(mean.contains("150.00 (  12.50%)"), "{mean}");
        // HStddev = sqrt(((1/100 - 3/400)^2 + (1/200 - 3/400)^2) x H^4 / 2) = 44.44
        let sd = text.lines().find(|l| l.starts_with("HStddev")).unwrap();
        assert!(sd.contains("44.44"), "{sd}");
        for name in ["HCoeffVar", "BHmean.95", "Min", "Max"] {
            assert!(text.lines().any(|l| l.starts_with(name)), "{name}: {text}");
        }
    }

    #[test]
    fn a_worse_result_has_a_negative_change() {
        let t = table(false, vec![10.0, 10.0], vec![11.0, 11.0]);
        let text = t.to_mmtests(&[], 2);
        let mean = text.lines().find(|l| l.starts_with("Amean")).unwrap();
        // Zero variance on both sides and different means: significant.
        assert!(mean.ends_with("11.00 * -10.00%*"), "{mean}");
        // hackbench's shellpack asks for 4 decimal places.
        let mean = t.to_mmtests(&[], 4);
        let mean = mean.lines().find(|l| l.starts_with("Amean")).unwrap();
        assert!(mean.ends_with("    11.0000 * -10.00%*"), "{mean}");
    }

    #[test]
    fn significance_needs_two_runs_a_side() {
        assert_eq!(significant(&[1.0], &[2.0, 2.1], false), None);
        assert_eq!(significant(&[1.0, 1.1], &[2.0, 2.1], false), Some(true));
        assert_eq!(significant(&[1.0, 3.0], &[2.0, 2.5], false), Some(false));
    }
}
