//! View models: what each view shows, computed from core results, with no browser in sight.
//!
//! Everything here is plain Rust and tested natively (`cargo test -p schedlab-web`); the
//! components only turn these into HTML and the chart module hands the figure to plotly.js.

use schedlab_core::domains::DomainsView;
use schedlab_core::table::ComparisonTable;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// A difference smaller than this (in %) is shown as neither better nor worse.
pub const SAME_WITHIN_PCT: f64 = 0.5;

/// How a variant's mean compares with the first (baseline) variant's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

#[derive(Debug, Clone, PartialEq)]
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
}

#[derive(Debug, Clone, PartialEq)]
pub struct RowVm {
    pub param: f64,
    pub param_text: String,
    /// One entry per variant, in the table's variant order; `None` while no run of it is in.
    pub cells: Vec<Option<CellVm>>,
}

/// The comparison table in mmtests layout: rows = parameter values; per variant mean, ± spread,
/// min, max, and (after the first variant) the % difference to the first.
#[derive(Debug, Clone, PartialEq)]
pub struct TableVm {
    pub scenario: String,
    pub metric: String,
    pub unit: String,
    pub param_name: String,
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
                param_text: fmt_param(row.param as f64),
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
            higher_is_better: table.higher_is_better,
            variants: table.variants.clone(),
            rows,
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
        format!("{}{unit} by {}; {better}", self.metric, self.param_name)
    }

    /// The plotly figure: mean per parameter value for each variant, with min/max error bars.
    pub fn figure(&self) -> Value {
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

/// Runs done out of runs planned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ProgressVm {
    pub done: usize,
    pub total: usize,
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
        format!("{} / {} runs", self.done, self.total)
    }
}

/// The sched-domain hierarchy as a CPU x level grid.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DomainsVm {
    pub machine: String,
    /// Level names, lowest first (SMT, MC, PKG/DIE, NUMA...), as they occur.
    pub levels: Vec<String>,
    pub cpus: Vec<CpuVm>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CpuVm {
    pub cpu: String,
    pub capacity: String,
    pub cluster: String,
    /// One entry per `DomainsVm::levels`; `None` when this CPU has no domain at that level.
    pub levels: Vec<Option<LevelVm>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LevelVm {
    pub span: String,
    /// `sd->imbalance_pct`: how much busier the busiest group must be before load balancing acts.
    pub imbalance_pct: String,
    pub flags: Vec<String>,
    /// `(span, capacity)` of each group, in the kernel's order (the local group first).
    pub groups: Vec<(String, String)>,
}

impl DomainsVm {
    pub fn new(view: &DomainsView) -> DomainsVm {
        let mut levels: Vec<String> = Vec::new();
        for cpu in &view.cpus {
            for l in &cpu.levels {
                if !levels.contains(&l.level) {
                    levels.push(l.level.clone());
                }
            }
        }
        let cpus = view
            .cpus
            .iter()
            .map(|c| CpuVm {
                cpu: c.cpu.to_string(),
                capacity: c.capacity_orig.to_string(),
                cluster: c.cluster.to_string(),
                levels: levels
                    .iter()
                    .map(|name| {
                        c.levels.iter().find(|l| &l.level == name).map(|l| LevelVm {
                            span: l.span.to_string(),
                            imbalance_pct: l.imbalance_pct.to_string(),
                            flags: l.flags.iter().map(|f| f.to_string()).collect(),
                            groups: l
                                .groups
                                .iter()
                                .map(|g| (g.span.to_string(), g.capacity.to_string()))
                                .collect(),
                        })
                    })
                    .collect(),
            })
            .collect();
        DomainsVm {
            machine: view.machine.clone(),
            levels,
            cpus,
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
        let p = ProgressVm { done: 3, total: 12 };
        assert_eq!(p.label(), "3 / 12 runs");
        assert_eq!(p.percent(), 25.0);
        assert_eq!(ProgressVm::default().percent(), 0.0);
    }

    #[test]
    fn domains_grid_has_a_column_per_level() {
        let view: DomainsView = serde_json::from_value(json!({
            "machine": "hikey960",
            "cpus": [
                {"cpu": 0, "capacity_orig": 462, "cluster": "little", "levels": [
                    {"level": "MC", "span": "0-3", "flags": ["SD_SHARE_PKG_RESOURCES"], "imbalance_pct": 117,
                     "groups": [{"span": "0", "capacity": 462}, {"span": "1", "capacity": 462}]},
                    {"level": "DIE", "span": "0-7", "flags": ["SD_ASYM_CPUCAPACITY"], "imbalance_pct": 117,
                     "groups": [{"span": "0-3", "capacity": 1848}, {"span": "4-7", "capacity": 4096}]}]},
                {"cpu": 4, "capacity_orig": 1024, "cluster": "big", "levels": [
                    {"level": "DIE", "span": "0-7", "flags": [], "imbalance_pct": 117, "groups": []}]}
            ]
        }))
        .expect("the domains JSON of the CLI");
        let vm = DomainsVm::new(&view);
        assert_eq!(vm.levels, ["MC", "DIE"]);
        assert_eq!(
            vm.cpus[0].levels[1].as_ref().unwrap().groups[1],
            ("4-7".to_string(), "4096".to_string())
        );
        assert!(vm.cpus[1].levels[0].is_none());
        assert_eq!(vm.cpus[1].capacity, "1024");
        assert_eq!(vm.cpus[0].levels[0].as_ref().unwrap().imbalance_pct, "117");
    }
}
