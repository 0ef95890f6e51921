//! The comparison table, laid out as mmtests and scheduler cover letters lay it out: one row per
//! swept parameter, per variant mean +- spread%, min, max, and the difference to the first variant.

use crate::stats::Summary;
use serde::{Deserialize, Serialize};

/// One variant's results for one parameter value.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Cell {
    pub variant: String,
    pub mean: f64,
    pub stddev: f64,
    pub spread_pct: f64,
    pub min: f64,
    pub max: f64,
    /// (mean - baseline mean) / baseline mean x 100, against the first variant; None for the first.
    pub diff_pct: Option<f64>,
    /// Every run's value, in repetition order.
    pub runs: Vec<f64>,
    /// Whether the mean differs from the first variant's significantly (Welch's t-test at 95%
    /// on mmtests' mean of the metric's kind, `mmtests::significant`); None for the first
    /// variant and where either side has fewer than two runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub significant: Option<bool>,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Row {
    pub param: u64,
    /// Cells of the variants that have results, in variant order.
    pub cells: Vec<Cell>,
}

/// The stable JSON output of `schedlab reproduce/run --format json` (documented in the README).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct ComparisonTable {
    pub scenario: String,
    pub metric: String,
    pub unit: String,
    pub higher_is_better: bool,
    pub param_name: String,
    /// The workload's name, for a scenario without a sweep: its one row is labelled by it
    /// rather than by `param_name` and a parameter value (`row_label`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload: Option<String>,
    pub seed: u64,
    pub variants: Vec<String>,
    pub rows: Vec<Row>,
    /// Per variant, how the runs' values spread over fixed-width buckets (scenarios that ask).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub histogram: Vec<Histogram>,
    /// Per variant, wake-ups counted by class, summed over runs (scenarios that ask).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub wake_classes: Vec<WakeClassCount>,
}

/// A histogram of one variant's run values (all parameters together).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Histogram {
    pub variant: String,
    /// Bucket width, in the metric's unit.
    pub bucket: f64,
    /// (lower edge, runs in [edge, edge + bucket)), ascending, empty buckets between left out.
    pub buckets: Vec<(f64, u64)>,
}

/// One class of wake-ups of the 2016 asymmetric-capacity evaluation, with its count per variant.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct WakeClassCount {
    pub task: String,
    pub prev_cpu: String,
    pub waker_cpu: String,
    pub woken_onto: String,
    pub path: String,
    /// Counts in variant order.
    pub counts: Vec<u64>,
}

impl ComparisonTable {
    /// Builds the table from per-cell run values: `values[param][variant]`.
    #[allow(clippy::too_many_arguments)]
    pub fn build(
        scenario: &str,
        metric: &str,
        unit: &str,
        higher_is_better: bool,
        param_name: &str,
        seed: u64,
        variants: &[String],
        params: &[u64],
        values: &[Vec<Vec<f64>>],
    ) -> ComparisonTable {
        let mut rows = Vec::new();
        for (pi, &param) in params.iter().enumerate() {
            let base = Summary::of(&values[pi][0]);
            let base_runs = &values[pi][0];
            let mut cells = Vec::new();
            for (vi, name) in variants.iter().enumerate() {
                let Some(s) = Summary::of(&values[pi][vi]) else {
                    continue;
                };
                let diff_pct = match (vi, base) {
                    (0, _) | (_, None) => None,
                    (_, Some(b)) if b.mean != 0.0 => Some((s.mean - b.mean) / b.mean * 100.0),
                    _ => None,
                };
                cells.push(Cell {
                    variant: name.clone(),
                    mean: s.mean,
                    stddev: s.stddev,
                    spread_pct: s.spread_pct,
                    min: s.min,
                    max: s.max,
                    diff_pct,
                    runs: values[pi][vi].clone(),
                    significant: if vi == 0 {
                        None
                    } else {
                        crate::mmtests::significant(base_runs, &values[pi][vi], higher_is_better)
                    },
                });
            }
            if !cells.is_empty() {
                rows.push(Row { param, cells });
            }
        }
        ComparisonTable {
            scenario: scenario.into(),
            metric: metric.into(),
            unit: unit.into(),
            higher_is_better,
            param_name: param_name.into(),
            workload: None,
            seed,
            variants: variants.to_vec(),
            rows,
            histogram: Vec::new(),
            wake_classes: Vec::new(),
        }
    }

    /// Labels the one row of a scenario without a sweep by its workload.
    pub fn with_workload(mut self, name: &str) -> ComparisonTable {
        self.workload = Some(name.to_string());
        self
    }

    /// A row's label: the workload's name for a scenario without a sweep, else
    /// `param_name-value` (mmtests' operation names, `groups-4`).
    pub fn row_label(&self, row: &Row) -> String {
        match &self.workload {
            Some(w) => w.clone(),
            None => format!("{}-{}", self.param_name, row.param),
        }
    }

    /// Adds a histogram per variant with buckets of width `bucket`.
    pub fn with_histogram(mut self, bucket: f64) -> ComparisonTable {
        if !bucket.is_finite() || bucket <= 0.0 {
            return self;
        }
        for v in &self.variants {
            let mut counts: Vec<(i64, u64)> = Vec::new();
            for row in &self.rows {
                for c in row.cells.iter().filter(|c| &c.variant == v) {
                    for &r in &c.runs {
                        let k = (r / bucket).floor() as i64;
                        match counts.iter_mut().find(|(b, _)| *b == k) {
                            Some(e) => e.1 += 1,
                            None => counts.push((k, 1)),
                        }
                    }
                }
            }
            counts.sort_unstable();
            self.histogram.push(Histogram {
                variant: v.clone(),
                bucket,
                buckets: counts
                    .into_iter()
                    .map(|(k, n)| (k as f64 * bucket, n))
                    .collect(),
            });
        }
        self
    }

    /// Plain-text table for terminals and mail.
    pub fn to_text(&self) -> String {
        const W: usize = 40;
        let mut s = format!(
            "{}: {} ({}), {} is better, seed {}\n",
            self.scenario,
            self.metric,
            self.unit,
            if self.higher_is_better {
                "higher"
            } else {
                "lower"
            },
            self.seed
        );
        // A scenario without a sweep names its workload where a sweep names its parameter.
        let (column, label): (&str, Option<&str>) = match &self.workload {
            Some(w) => ("workload", Some(w)),
            None => (&self.param_name, None),
        };
        let lw = label.map_or(8, |l| l.len().max(8));
        let mut head1 = format!("{:>lw$} ", "");
        let mut head2 = format!("{:>lw$} ", column);
        for (i, v) in self.variants.iter().enumerate() {
            let w = if i == 0 { W } else { W + 9 };
            head1.push_str(&format!("| {:<w$}", v));
            head2.push_str(&format!(
                "| {:>9} {:>8} {:>9} {:>9} ",
                "mean", "+-%", "min", "max"
            ));
            if i > 0 {
                head2.push_str(&format!("{:>8} ", "diff"));
            }
        }
        s.push_str(head1.trim_end());
        s.push('\n');
        s.push_str(head2.trim_end());
        s.push('\n');
        for row in &self.rows {
            let mut line = match label {
                Some(l) => format!("{l:>lw$} "),
                None => format!("{:>lw$} ", row.param),
            };
            for (i, v) in self.variants.iter().enumerate() {
                match row.cells.iter().find(|c| &c.variant == v) {
                    Some(c) => {
                        line.push_str(&format!(
                            "| {:>9.3} {:>7.2}% {:>9.3} {:>9.3} ",
                            c.mean, c.spread_pct, c.min, c.max
                        ));
                        if i > 0 {
                            match c.diff_pct {
                                Some(d) => line.push_str(&format!("{:>+7.2}% ", d)),
                                None => line.push_str(&format!("{:>8} ", "-")),
                            }
                        }
                    }
                    None => line.push_str(&format!(
                        "| {:<w$}",
                        "(no runs)",
                        w = if i == 0 { W } else { W + 9 }
                    )),
                }
            }
            s.push_str(line.trim_end());
            s.push('\n');
        }
        s
    }

    /// The extra sections (histogram, wake-up classes) as text.
    pub fn extras_text(&self) -> String {
        let mut s = String::new();
        for h in &self.histogram {
            s.push_str(&format!(
                "histogram of {} ({} {} buckets):\n",
                h.variant, h.bucket, self.unit
            ));
            let max = h.buckets.iter().map(|b| b.1).max().unwrap_or(1).max(1);
            for &(lo, n) in &h.buckets {
                let bar = "#".repeat(((n * 40).div_ceil(max)) as usize);
                s.push_str(&format!("  {:>14.1} {:>5} {bar}\n", lo, n));
            }
        }
        if !self.wake_classes.is_empty() {
            s.push_str("wake-up classification (summed over runs):\n");
            s.push_str(&format!(
                "  {:<6} {:<6} {:<6} {:<8} {:<20}",
                "task", "prev", "waker", "woken", "path"
            ));
            for v in &self.variants {
                s.push_str(&format!(" {:>12}", v));
            }
            s.push('\n');
            for c in &self.wake_classes {
                s.push_str(&format!(
                    "  {:<6} {:<6} {:<6} {:<8} {:<20}",
                    c.task, c.prev_cpu, c.waker_cpu, c.woken_onto, c.path
                ));
                for n in &c.counts {
                    s.push_str(&format!(" {:>12}", n));
                }
                s.push('\n');
            }
        }
        s
    }

    /// One line per (param, variant) cell; the runs joined with ';'.
    pub fn to_csv(&self) -> String {
        let mut s = format!(
            "{},variant,mean,stddev,spread_pct,min,max,diff_pct,runs\n",
            self.param_name
        );
        for row in &self.rows {
            for c in &row.cells {
                let runs: Vec<String> = c.runs.iter().map(|r| r.to_string()).collect();
                s.push_str(&format!(
                    "{},{},{},{},{},{},{},{},{}\n",
                    row.param,
                    c.variant,
                    c.mean,
                    c.stddev,
                    c.spread_pct,
                    c.min,
                    c.max,
                    c.diff_pct.map(|d| d.to_string()).unwrap_or_default(),
                    runs.join(";")
                ));
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> ComparisonTable {
        let variants = vec!["base".to_string(), "patch".to_string()];
        ComparisonTable::build(
            "t",
            "time",
            "s",
            false,
            "threads",
            1,
            &variants,
            &[1, 2],
            &[
                vec![vec![10.0, 12.0], vec![8.0, 8.0]],
                vec![vec![5.0], vec![]],
            ],
        )
    }

    #[test]
    fn diff_is_against_the_first_variant_and_empty_cells_are_left_out() {
        let t = table();
        assert_eq!(
            t.rows[0].cells[1].diff_pct,
            Some((8.0 - 11.0) / 11.0 * 100.0)
        );
        assert_eq!(t.rows[0].cells[0].diff_pct, None);
        assert_eq!(t.rows[1].cells.len(), 1);
    }

    #[test]
    fn text_and_csv_carry_every_cell() {
        let t = table();
        let text = t.to_text();
        assert!(text.contains("-27.27%"), "{text}");
        assert!(text.contains("(no runs)"));
        let csv = t.to_csv();
        assert_eq!(csv.lines().count(), 4);
        assert!(csv.contains("1,patch,8,0,0,8,8,"));
    }
}
