//! View models: what each view shows, computed from core results, with no browser in sight.
//!
//! Everything here is plain Rust and tested natively (`cargo test -p schedlab-web`); the
//! components only turn these into HTML and the chart module hands the figure to plotly.js.
//!
//! This file holds the comparison table, its figure and the progress; the sched-domains
//! diagram's view model is in `viewmodel/domains.rs`, re-exported here.

mod domains;

use schedlab_core::table::ComparisonTable;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

pub use domains::{AlikeChildren, CpuLeafVm, DomainBoxVm, DomainsVm, NodeKind, NodeVm};

/// A difference smaller than this (in %) is shown as neither better nor worse.
pub const SAME_WITHIN_PCT: f64 = 0.5;

/// How a variant's mean compares with the first (baseline) variant's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    Baseline,
    Better,
    Worse,
    Same,
}

impl Verdict {
    /// `diff_pct` is the variant's mean relative to the baseline's, `(v - base) / base * 100`.
    pub fn of(diff_pct: Option<f64>, higher_is_better: bool) -> Verdict {
        match diff_pct {
            None => Verdict::Baseline,
            Some(d) if !d.is_finite() || d.abs() < SAME_WITHIN_PCT => Verdict::Same,
            Some(d) if (d > 0.0) == higher_is_better => Verdict::Better,
            Some(_) => Verdict::Worse,
        }
    }

    pub fn class(self) -> &'static str {
        match self {
            Verdict::Baseline => "baseline",
            Verdict::Better => "better",
            Verdict::Worse => "worse",
            Verdict::Same => "same",
        }
    }
}

/// A metric value as the table prints it: 4 decimals, fewer for large values.
pub fn fmt_value(x: f64) -> String {
    if !x.is_finite() {
        return "-".into();
    }
    match x.abs() {
        a if a >= 100_000.0 => format!("{x:.0}"),
        a if a >= 1_000.0 => format!("{x:.2}"),
        _ => format!("{x:.4}"),
    }
}

/// A parameter value (thread count, client count...): an integer when it is one.
pub fn fmt_param(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

/// A signed percentage with two decimals, as mmtests prints it.
pub fn fmt_pct(x: f64) -> String {
    if !x.is_finite() {
        return "-".into();
    }
    if x.abs() < 0.005 {
        return "0.00%".into(); // no "-0.00%"
    }
    format!("{x:+.2}%")
}

/// The exact value for a data attribute: the shortest text that parses back to the same f64
/// (Rust's `Display` for f64 is shortest round-trip, like JSON).
pub fn exact(x: f64) -> String {
    format!("{x}")
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellVm {
    pub variant: String,
    pub mean: f64,
    pub stddev: f64,
    pub min: f64,
    pub max: f64,
    pub runs: usize,
    pub mean_text: String,
    pub spread_text: String,
    pub min_text: String,
    pub max_text: String,
    /// `None` for the baseline variant.
    pub diff_text: Option<String>,
    pub verdict: Verdict,
    /// The difference to the baseline is significant (Welch's t-test at 95%, the core's
    /// `Cell::significant`); `None` for the baseline and where there are too few runs to tell.
    #[serde(default)]
    pub significant: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RowVm {
    pub param: f64,
    pub param_text: String,
    /// One entry per variant, in the table's variant order; `None` while no run of it is in.
    pub cells: Vec<Option<CellVm>>,
}

/// The comparison table in mmtests layout: rows = parameter values; per variant mean, ± spread,
/// min, max, and (after the first variant) the % difference to the first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableVm {
    pub scenario: String,
    pub metric: String,
    pub unit: String,
    pub param_name: String,
    /// The workload's name for a scenario without a sweep (`ComparisonTable::workload`): its
    /// one row is labelled by it, and the chart draws one dot per variant.
    #[serde(default)]
    pub workload: Option<String>,
    pub higher_is_better: bool,
    pub variants: Vec<String>,
    pub rows: Vec<RowVm>,
}

impl TableVm {
    pub fn new(table: &ComparisonTable) -> TableVm {
        let rows = table
            .rows
            .iter()
            .map(|row| RowVm {
                param: row.param as f64,
                param_text: match &table.workload {
                    Some(w) => w.clone(),
                    None => fmt_param(row.param as f64),
                },
                cells: table
                    .variants
                    .iter()
                    .map(|v| {
                        row.cells
                            .iter()
                            .find(|c| &c.variant == v)
                            .filter(|c| !c.runs.is_empty())
                            .map(|c| CellVm {
                                variant: c.variant.clone(),
                                mean: c.mean,
                                stddev: c.stddev,
                                min: c.min,
                                max: c.max,
                                runs: c.runs.len(),
                                mean_text: fmt_value(c.mean),
                                spread_text: format!("±{:.2}%", c.spread_pct),
                                min_text: fmt_value(c.min),
                                max_text: fmt_value(c.max),
                                diff_text: c.diff_pct.map(fmt_pct),
                                verdict: Verdict::of(c.diff_pct, table.higher_is_better),
                                significant: c.significant,
                            })
                    })
                    .collect(),
            })
            .collect();
        TableVm {
            scenario: table.scenario.clone(),
            metric: table.metric.clone(),
            unit: table.unit.clone(),
            param_name: table.param_name.clone(),
            workload: table.workload.clone(),
            higher_is_better: table.higher_is_better,
            variants: table.variants.clone(),
            rows,
        }
    }

    /// The heading of the rows' column: the swept parameter, or "workload" without a sweep.
    pub fn row_heading(&self) -> String {
        match self.workload {
            Some(_) => "workload".to_string(),
            None => self.param_name.clone(),
        }
    }

    /// The caption line: what is measured and which way is better.
    pub fn caption(&self) -> String {
        let unit = if self.unit.is_empty() {
            String::new()
        } else {
            format!(" ({})", self.unit)
        };
        let better = if self.higher_is_better {
            "higher is better"
        } else {
            "lower is better"
        };
        let what = match &self.workload {
            Some(w) => format!("{}{unit} of {w}; {better}", self.metric),
            None => format!("{}{unit} by {}; {better}", self.metric, self.param_name),
        };
        let tested = self
            .rows
            .iter()
            .flat_map(|r| r.cells.iter().flatten())
            .any(|c| c.significant.is_some());
        if tested {
            format!("{what}; * significant, ~ within run-to-run noise (Welch's t-test, 95%)")
        } else {
            what
        }
    }

    /// The plotly figure: mean per parameter value for each variant, with min/max error bars;
    /// without a sweep, one dot per variant (`variant_figure`).
    pub fn figure(&self) -> Value {
        if self.workload.is_some() {
            return self.variant_figure();
        }
        let data: Vec<Value> = self
            .variants
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let cells: Vec<(&RowVm, &CellVm)> = self
                    .rows
                    .iter()
                    .filter_map(|r| r.cells[i].as_ref().map(|c| (r, c)))
                    .collect();
                json!({
                    "type": "scatter",
                    "mode": "lines+markers",
                    "name": name,
                    "x": cells.iter().map(|(r, _)| r.param).collect::<Vec<_>>(),
                    "y": cells.iter().map(|(_, c)| c.mean).collect::<Vec<_>>(),
                    "error_y": {
                        "type": "data",
                        "symmetric": false,
                        "array": cells.iter().map(|(_, c)| c.max - c.mean).collect::<Vec<_>>(),
                        "arrayminus": cells.iter().map(|(_, c)| c.mean - c.min).collect::<Vec<_>>(),
                        "thickness": 1.5,
                        "width": 4,
                    },
                })
            })
            .collect();
        let unit = if self.unit.is_empty() {
            String::new()
        } else {
            format!(" ({})", self.unit)
        };
        json!({
            "data": data,
            "layout": {
                "xaxis": { "title": { "text": self.param_name } },
                "yaxis": { "title": { "text": format!("mean {}{unit}", self.metric) }, "rangemode": "tozero" },
                "legend": { "orientation": "h", "x": 0, "y": 1.02, "yanchor": "bottom" },
                "margin": { "l": 60, "r": 16, "t": 36, "b": 50 },
                "autosize": true,
            },
            "config": { "responsive": true, "displaylogo": false },
        })
    }
}

impl TableVm {
    /// A scenario without a sweep: each variant's mean as a dot at its own place on a category
    /// axis, with bars from its min to its max, so the variants read side by side (not one point
    /// each at x = 0).
    fn variant_figure(&self) -> Value {
        let data: Vec<Value> = self
            .variants
            .iter()
            .enumerate()
            .filter_map(|(i, name)| {
                let c = self.rows.first()?.cells[i].as_ref()?;
                let sig = if c.significant == Some(true) {
                    ", significant (Welch's t-test, 95%)"
                } else {
                    ""
                };
                Some(json!({
                    "type": "scatter",
                    "mode": "markers",
                    "name": name,
                    "x": [name],
                    "y": [c.mean],
                    "marker": { "size": 12, "color": crate::runview::timeline::PALETTE[i % crate::runview::timeline::PALETTE.len()] },
                    "error_y": {
                        "type": "data",
                        "symmetric": false,
                        "array": [c.max - c.mean],
                        "arrayminus": [c.mean - c.min],
                        "thickness": 2,
                        "width": 10,
                    },
                    "hovertext": [format!(
                        "{name}: mean {} (min {}, max {}, {} runs){}{sig}",
                        c.mean_text, c.min_text, c.max_text, c.runs,
                        c.diff_text.as_ref().map(|d| format!(", {d} vs {}", self.variants[0])).unwrap_or_default()
                    )],
                    "hoverinfo": "text",
                }))
            })
            .collect();
        let unit = if self.unit.is_empty() {
            String::new()
        } else {
            format!(" ({})", self.unit)
        };
        json!({
            "data": data,
            "layout": {
                "xaxis": { "type": "category", "automargin": true, "title": { "text": self.workload.clone().unwrap_or_default() } },
                "yaxis": { "title": { "text": format!("mean {}{unit}, min to max", self.metric) }, "rangemode": "tozero" },
                "showlegend": false,
                "margin": { "l": 60, "r": 16, "t": 16, "b": 50 },
                "autosize": true,
            },
            "config": { "responsive": true, "displaylogo": false },
        })
    }
}

/// Runs done out of runs planned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ProgressVm {
    pub done: usize,
    pub total: usize,
    /// The job workers the runs are spread over (0 before the plan is built).
    pub workers: usize,
}

impl ProgressVm {
    pub fn percent(&self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            self.done as f64 * 100.0 / self.total as f64
        }
    }

    pub fn label(&self) -> String {
        match self.workers {
            0 | 1 => format!("{} / {} runs", self.done, self.total),
            n => format!("{} / {} runs on {n} workers", self.done, self.total),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table_json() -> Value {
        json!({
            "scenario": "hikey960-asym-packing", "metric": "time", "unit": "s", "higher_is_better": false, "seed": 1,
            "variants": ["mainline", "asym-packing"], "param_name": "threads",
            "rows": [
                {"param": 1, "cells": [
                    {"variant": "mainline", "mean": 12.5, "stddev": 2.0, "spread_pct": 16.0, "min": 8.86, "max": 19.1,
                     "diff_pct": null, "runs": [8.86, 19.1, 9.54]},
                    {"variant": "asym-packing", "mean": 8.86, "stddev": 0.0, "spread_pct": 0.0, "min": 8.86, "max": 8.86,
                     "diff_pct": -29.12, "runs": [8.86, 8.86, 8.86]}]},
                {"param": 2, "cells": [
                    {"variant": "mainline", "mean": 8.9, "stddev": 0.0, "spread_pct": 0.0, "min": 8.9, "max": 8.9,
                     "diff_pct": null, "runs": [8.9]}]}
            ]
        })
    }

    fn table() -> ComparisonTable {
        serde_json::from_value(table_json()).expect("the table JSON of the CLI")
    }

    #[test]
    fn verdict_follows_higher_is_better() {
        assert_eq!(Verdict::of(None, false), Verdict::Baseline);
        assert_eq!(Verdict::of(Some(-10.0), false), Verdict::Better);
        assert_eq!(Verdict::of(Some(10.0), false), Verdict::Worse);
        assert_eq!(Verdict::of(Some(10.0), true), Verdict::Better);
        assert_eq!(Verdict::of(Some(-10.0), true), Verdict::Worse);
        assert_eq!(Verdict::of(Some(0.2), true), Verdict::Same);
        assert_eq!(Verdict::of(Some(f64::NAN), true), Verdict::Same);
    }

    #[test]
    fn table_rows_have_one_slot_per_variant_in_order() {
        let vm = TableVm::new(&table());
        assert_eq!(vm.variants, ["mainline", "asym-packing"]);
        assert_eq!(vm.rows.len(), 2);
        assert_eq!(vm.rows[0].param_text, "1");
        let patched = vm.rows[0].cells[1].as_ref().unwrap();
        assert_eq!(patched.variant, "asym-packing");
        assert_eq!(patched.mean_text, "8.8600");
        assert_eq!(patched.diff_text.as_deref(), Some("-29.12%"));
        assert_eq!(patched.verdict, Verdict::Better);
        assert_eq!(patched.runs, 3);
        let base = vm.rows[0].cells[0].as_ref().unwrap();
        assert_eq!(base.verdict, Verdict::Baseline);
        assert_eq!(base.spread_text, "±16.00%");
        // A cell with no runs yet (partial results) is an empty slot, not a zero.
        assert!(vm.rows[1].cells[1].is_none());
        assert_eq!(vm.caption(), "time (s) by threads; lower is better");
    }

    #[test]
    fn exact_values_round_trip() {
        for x in [8.86, 0.1 + 0.2, 1.0 / 3.0, 12.345678901234567] {
            assert_eq!(exact(x).parse::<f64>().unwrap().to_bits(), x.to_bits());
        }
    }

    #[test]
    fn formatting() {
        assert_eq!(fmt_value(8.86), "8.8600");
        assert_eq!(fmt_value(1234.5678), "1234.57");
        assert_eq!(fmt_value(f64::NAN), "-");
        assert_eq!(fmt_param(8.0), "8");
        assert_eq!(fmt_param(0.5), "0.5");
        assert_eq!(fmt_pct(4.5678), "+4.57%");
        assert_eq!(fmt_pct(-0.5), "-0.50%");
        assert_eq!(fmt_pct(-0.004), "0.00%");
    }

    #[test]
    fn figure_has_a_trace_per_variant_with_min_max_bars() {
        let fig = TableVm::new(&table()).figure();
        let data = fig["data"].as_array().unwrap();
        assert_eq!(data.len(), 2);
        assert_eq!(data[0]["name"], "mainline");
        assert_eq!(data[0]["x"], json!([1.0, 2.0]));
        assert_eq!(data[0]["y"], json!([12.5, 8.9]));
        let plus = data[0]["error_y"]["array"][0].as_f64().unwrap();
        let minus = data[0]["error_y"]["arrayminus"][0].as_f64().unwrap();
        assert!((plus - 6.6).abs() < 1e-9 && (minus - 3.64).abs() < 1e-9);
        assert_eq!(data[1]["x"], json!([1.0]));
    }

    #[test]
    fn progress() {
        let mut p = ProgressVm {
            done: 3,
            total: 12,
            workers: 1,
        };
        assert_eq!(p.label(), "3 / 12 runs");
        p.workers = 4;
        assert_eq!(p.label(), "3 / 12 runs on 4 workers");
        assert_eq!(p.percent(), 25.0);
        assert_eq!(ProgressVm::default().percent(), 0.0);
    }
}

#[cfg(test)]
mod no_sweep_tests {
    use super::*;
    use schedlab_core::experiment::Plan;
    use schedlab_core::scenarios;

    fn table_of(name: &str, runs: u32) -> ComparisonTable {
        let mut s = scenarios::builtin(name).unwrap();
        s.runs = runs;
        let plan = Plan::new(&s).unwrap();
        let results: Vec<_> = (0..plan.len()).map(|i| plan.run(i).unwrap()).collect();
        plan.table(&results)
    }

    #[test]
    fn a_scenario_without_a_sweep_names_its_workload_and_draws_a_dot_per_variant() {
        let table = table_of("juno-use-all-littles", 2);
        let vm = TableVm::new(&table);
        assert_eq!(vm.workload.as_deref(), Some("two-step"));
        assert_eq!(vm.rows[0].param_text, "two-step");
        assert_eq!(vm.row_heading(), "workload");
        assert!(vm.caption().contains(" of two-step;"), "{}", vm.caption());
        let fig = vm.figure();
        let data = fig["data"].as_array().unwrap();
        assert_eq!(data.len(), vm.variants.len());
        assert_eq!(fig["layout"]["xaxis"]["type"], "category");
        for (i, d) in data.iter().enumerate() {
            let c = vm.rows[0].cells[i].as_ref().unwrap();
            // One dot per variant at its own category, with bars from min to max.
            assert_eq!(d["x"], json!([vm.variants[i]]));
            assert_eq!(d["y"][0].as_f64().unwrap(), c.mean);
            assert_eq!(d["error_y"]["array"][0].as_f64().unwrap(), c.max - c.mean);
            assert_eq!(
                d["error_y"]["arrayminus"][0].as_f64().unwrap(),
                c.mean - c.min
            );
        }
        // A sweep keeps its line chart over the parameter.
        let swept = TableVm::new(&table_of("hikey960-asym-packing", 1));
        assert_eq!(swept.workload, None);
        assert_eq!(swept.row_heading(), "threads");
        assert_eq!(swept.figure()["data"][0]["mode"], "lines+markers");
    }

    #[test]
    fn cells_carry_the_cores_significance() {
        let table = table_of("juno-use-all-littles", 3);
        let vm = TableVm::new(&table);
        assert_eq!(vm.rows[0].cells[0].as_ref().unwrap().significant, None);
        for (i, cell) in table.rows[0].cells.iter().enumerate() {
            assert_eq!(
                vm.rows[0].cells[i].as_ref().unwrap().significant,
                cell.significant
            );
        }
        assert_eq!(
            table.rows[0].cells[1].significant,
            Some(true),
            "E5's 8.8% gain"
        );
    }
}
