//! Summary statistics of a cell's runs. Plain IEEE arithmetic (sum, division, sqrt), which gives the
//! same bits natively and in wasm.

use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    pub n: usize,
    pub mean: f64,
    /// Sample standard deviation (n - 1); 0 for a single run.
    pub stddev: f64,
    /// stddev as a percentage of the mean: the "+-%" of cover-letter tables.
    pub spread_pct: f64,
    pub min: f64,
    pub max: f64,
}

impl Summary {
    /// None for no values.
    pub fn of(values: &[f64]) -> Option<Summary> {
        if values.is_empty() {
            return None;
        }
        let n = values.len();
        let mean = values.iter().sum::<f64>() / n as f64;
        let var = if n > 1 {
            values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - 1) as f64
        } else {
            0.0
        };
        let stddev = var.sqrt();
        let min = values.iter().copied().fold(f64::INFINITY, f64::min);
        let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let spread_pct = if mean != 0.0 {
            stddev / mean * 100.0
        } else {
            0.0
        };
        Some(Summary {
            n,
            mean,
            stddev,
            spread_pct,
            min,
            max,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_statistics() {
        let s = Summary::of(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).unwrap();
        assert_eq!(s.mean, 5.0);
        assert!((s.stddev - 2.138089935299395).abs() < 1e-12);
        assert_eq!((s.min, s.max, s.n), (2.0, 9.0, 8));
        assert!((s.spread_pct - 42.7617987059879).abs() < 1e-9);
        assert_eq!(Summary::of(&[3.0]).unwrap().stddev, 0.0);
        assert!(Summary::of(&[]).is_none());
    }
}
