//! The results charts besides the mean-per-parameter line chart: every run's value (a strip
//! chart per variant and parameter) and the histogram section a scenario may ask for. Both are
//! drawn from the core's [`ComparisonTable`] as the worker computed it, never recomputed here.
//!
//! plotly.js is bundled in its "basic" build (scatter, bar), which keeps the page light; so the
//! strip chart is a scatter with each variant's points spread over its own slot of the parameter,
//! and the histogram is a bar chart of the core's buckets.

use schedlab_core::experiment::Scenario;
use schedlab_core::table::ComparisonTable;
use serde_json::{json, Value};

use crate::runview::timeline::PALETTE;
use crate::viewmodel::{fmt_param, fmt_value};

/// Most points the strip chart draws; beyond this it shows every k-th repetition, and says so.
pub const MAX_STRIP_POINTS: usize = 12_000;

/// The plan's index of a parameter value: its position in the sweep (the first, should a sweep
/// list a value twice), 0 for a scenario without a sweep. Table rows cannot be used for this:
/// a partial table leaves out the rows that have no run yet.
pub fn param_index(scenario: &Scenario, param: u64) -> Option<usize> {
    match &scenario.sweep {
        Some(s) => s.values.iter().position(|&v| v == param),
        None => Some(0),
    }
}

/// The strip chart's horizontal position of repetition `rep` of `variant` (of `nv`) at the
/// parameter in slot `slot`: each variant has its own band, and repetitions spread across it by
/// the golden ratio, so points never depend on anything but their coordinates.
pub fn strip_x(slot: usize, variant: usize, nv: usize, rep: usize) -> f64 {
    let band = 0.8 / nv.max(1) as f64;
    let spread = ((rep as f64 * 0.618_033_988_749_895).fract() - 0.5) * band * 0.7;
    strip_centre(slot, variant, nv) + spread
}

/// The centre of `variant`'s band at the parameter in slot `slot` (where its mean is marked).
pub fn strip_centre(slot: usize, variant: usize, nv: usize) -> f64 {
    let band = 0.8 / nv.max(1) as f64;
    slot as f64 + (variant as f64 - (nv as f64 - 1.0) / 2.0) * band
}

/// " (unit)" after the metric's name, unless the name says it already.
fn unit_suffix(table: &ComparisonTable) -> String {
    if table.unit.is_empty() || table.unit == table.metric {
        String::new()
    } else {
        format!(" ({})", table.unit)
    }
}

/// "threads 4", or the workload's name without a sweep.
fn row_text(table: &ComparisonTable, param: u64) -> String {
    match &table.workload {
        Some(w) => w.clone(),
        None => format!("{} {}", table.param_name, fmt_param(param as f64)),
    }
}

/// The strip chart and the thinning it applied (k: every k-th repetition is drawn).
pub fn distribution_figure(table: &ComparisonTable, scenario: &Scenario) -> (Value, usize) {
    let points: usize = table
        .rows
        .iter()
        .flat_map(|r| &r.cells)
        .map(|c| c.runs.len())
        .sum();
    let every = points.div_ceil(MAX_STRIP_POINTS).max(1);
    let nv = table.variants.len();
    let unit = unit_suffix(table);
    let mut data = Vec::new();
    for (v, name) in table.variants.iter().enumerate() {
        let colour = PALETTE[v % PALETTE.len()];
        let (mut x, mut y, mut custom, mut text) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let (mut mx, mut my) = (Vec::new(), Vec::new());
        for (slot, row) in table.rows.iter().enumerate() {
            let Some(cell) = row.cells.iter().find(|c| &c.variant == name) else {
                continue;
            };
            let pi = param_index(scenario, row.param).unwrap_or(slot);
            for (rep, &value) in cell.runs.iter().enumerate().step_by(every) {
                x.push(strip_x(slot, v, nv, rep));
                y.push(value);
                custom.push(json!([pi, v, rep]));
                text.push(format!(
                    "{name}, {}, repetition {rep}: {}{unit}<br>click to trace this run",
                    row_text(table, row.param),
                    fmt_value(value)
                ));
            }
            mx.push(strip_centre(slot, v, nv));
            my.push(cell.mean);
        }
        data.push(json!({
            "type": "scatter", "mode": "markers", "name": name,
            "x": x, "y": y, "customdata": custom, "hovertext": text, "hoverinfo": "text",
            "marker": { "color": colour, "size": 6, "opacity": 0.7 },
            "legendgroup": name,
        }));
        data.push(json!({
            "type": "scatter", "mode": "markers", "name": format!("{name} mean"),
            "x": mx, "y": my, "showlegend": false, "hoverinfo": "skip", "legendgroup": name,
            "marker": { "symbol": "line-ew", "size": (90.0 / nv.max(1) as f64).clamp(12.0, 40.0),
                        "line": { "color": colour, "width": 3 } },
        }));
    }
    let ticks: Vec<String> = table
        .rows
        .iter()
        .map(|r| match &table.workload {
            Some(w) => w.clone(),
            None => fmt_param(r.param as f64),
        })
        .collect();
    let x_title = match &table.workload {
        Some(_) => "workload",
        None => table.param_name.as_str(),
    };
    let figure = json!({
        "data": data,
        "layout": {
            "xaxis": { "title": { "text": x_title }, "tickmode": "array",
                       "tickvals": (0..table.rows.len()).collect::<Vec<_>>(), "ticktext": ticks,
                       "range": [-0.5, table.rows.len() as f64 - 0.5], "zeroline": false,
                       "showgrid": false },
            // Not from zero: the spread between runs is what this chart is for.
            "yaxis": { "title": { "text": format!("{}{unit} per run", table.metric) } },
            "legend": { "orientation": "h", "x": 0, "y": 1.02, "yanchor": "bottom" },
            "margin": { "l": 60, "r": 16, "t": 36, "b": 50 },
            "hovermode": "closest",
            "autosize": true,
        },
        "config": { "responsive": true, "displaylogo": false },
    });
    (figure, every)
}

/// The histogram section (`extras.histogram_bucket`): one bar series per variant over the core's
/// buckets; `None` when the table has no histogram.
pub fn histogram_figure(table: &ComparisonTable) -> Option<Value> {
    if table.histogram.is_empty() {
        return None;
    }
    let unit = unit_suffix(table);
    // Each variant gets its own slice of every bucket, so equal buckets do not hide each other.
    let nv = table.histogram.len() as f64;
    let data: Vec<Value> = table
        .histogram
        .iter()
        .enumerate()
        .map(|(v, h)| {
            let slice = h.bucket * 0.9 / nv;
            json!({
                "type": "bar", "name": h.variant,
                "x": h.buckets.iter().map(|&(lo, _)| lo).collect::<Vec<_>>(),
                "y": h.buckets.iter().map(|&(_, n)| n).collect::<Vec<_>>(),
                "width": h.buckets.iter().map(|_| slice).collect::<Vec<_>>(),
                "offset": h.bucket * 0.05 + v as f64 * slice,
                "hovertext": h.buckets.iter().map(|&(lo, n)| format!(
                    "{}: {n} runs in [{}, {})", h.variant, fmt_value(lo), fmt_value(lo + h.bucket)
                )).collect::<Vec<_>>(),
                "hoverinfo": "text",
                "marker": { "color": PALETTE[v % PALETTE.len()], "opacity": 0.85 },
            })
        })
        .collect();
    let bucket = table.histogram[0].bucket;
    // Whole buckets in view, with a tick at each edge while they are few enough to label.
    let edges = table
        .histogram
        .iter()
        .flat_map(|h| h.buckets.iter().map(|b| b.0));
    let lo = edges.clone().fold(f64::INFINITY, f64::min);
    let hi = edges.fold(f64::NEG_INFINITY, f64::max) + bucket;
    let mut xaxis = json!({
        "title": { "text": format!("{}{unit}, buckets of {}", table.metric, fmt_value(bucket)) },
        "range": [lo, hi],
    });
    if (hi - lo) / bucket <= 24.0 {
        xaxis["tick0"] = json!(lo);
        xaxis["dtick"] = json!(bucket);
    }
    Some(json!({
        "data": data,
        "layout": {
            "barmode": "overlay",
            "xaxis": xaxis,
            "yaxis": { "title": { "text": "runs" }, "rangemode": "tozero" },
            "legend": { "orientation": "h", "x": 0, "y": 1.02, "yanchor": "bottom" },
            "margin": { "l": 60, "r": 16, "t": 36, "b": 50 },
            "autosize": true,
        },
        "config": { "responsive": true, "displaylogo": false },
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_core::experiment::Plan;
    use schedlab_core::scenarios;

    fn table_of(name: &str, runs: u32) -> (Scenario, ComparisonTable) {
        let mut s = scenarios::builtin(name).unwrap();
        s.runs = runs;
        let plan = Plan::new(&s).unwrap();
        let results: Vec<_> = (0..plan.len()).map(|i| plan.run(i).unwrap()).collect();
        (s.clone(), plan.table(&results))
    }

    #[test]
    fn the_strip_chart_has_every_run_at_its_coordinates() {
        let (s, table) = table_of("hikey960-asym-packing", 2);
        let (fig, every) = distribution_figure(&table, &s);
        assert_eq!(every, 1);
        let data = fig["data"].as_array().unwrap();
        assert_eq!(data.len(), 2 * table.variants.len());
        let points = &data[2];
        assert_eq!(points["name"], table.variants[1]);
        let ys = points["y"].as_array().unwrap();
        assert_eq!(ys.len(), table.rows.len() * 2);
        // The first point: parameter 0, variant 1, repetition 0, with the table's value.
        assert_eq!(points["customdata"][0], json!([0, 1, 0]));
        assert_eq!(ys[0].as_f64().unwrap(), table.rows[0].cells[1].runs[0]);
        // Points stay inside their variant's band of the parameter's slot.
        for x in points["x"].as_array().unwrap() {
            let x = x.as_f64().unwrap();
            let slot = x.round();
            assert!(
                x > slot && x < slot + 0.4,
                "variant 1 of 2 sits right of centre: {x}"
            );
        }
        // The mean marks sit at the band centres.
        assert_eq!(data[3]["x"][0].as_f64().unwrap(), 0.2);
        assert_eq!(
            data[3]["y"][0].as_f64().unwrap(),
            table.rows[0].cells[1].mean
        );
    }

    #[test]
    fn a_big_table_is_thinned_and_says_by_how_much() {
        let (s, mut table) = table_of("hikey960-asym-packing", 1);
        for row in &mut table.rows {
            for c in &mut row.cells {
                c.runs = vec![1.0; 1000];
            }
        }
        let (fig, every) = distribution_figure(&table, &s);
        assert!(every > 1);
        let drawn: usize = fig["data"]
            .as_array()
            .unwrap()
            .iter()
            .step_by(2)
            .map(|d| d["y"].as_array().unwrap().len())
            .sum();
        assert!(drawn <= MAX_STRIP_POINTS, "{drawn}");
    }

    #[test]
    fn param_indices_follow_the_sweep() {
        let s = scenarios::builtin("hikey960-asym-packing").unwrap();
        let values = &s.sweep.as_ref().unwrap().values;
        assert_eq!(param_index(&s, values[3]), Some(3));
        assert_eq!(param_index(&s, 12345), None);
        let mut flat = s.clone();
        flat.sweep = None;
        assert_eq!(param_index(&flat, 0), Some(0));
    }

    #[test]
    fn the_e3_histogram_uses_the_cores_buckets() {
        let (_, table) = table_of("power9-bigcore-asym-smt", 3);
        let fig = histogram_figure(&table).expect("E3 has a histogram");
        let data = fig["data"].as_array().unwrap();
        assert_eq!(data.len(), table.histogram.len());
        let h = &table.histogram[0];
        let ys: Vec<u64> = data[0]["y"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert_eq!(ys, h.buckets.iter().map(|b| b.1).collect::<Vec<_>>());
        assert_eq!(ys.iter().sum::<u64>(), 3);
        // Bars start at the bucket's lower edge, each variant in its own slice of it.
        assert_eq!(data[0]["x"][0].as_f64().unwrap(), h.buckets[0].0);
        let slice = data[0]["width"][0].as_f64().unwrap();
        let offset = |v: usize| data[v]["offset"].as_f64().unwrap();
        assert!((offset(1) - offset(0) - slice).abs() < 1e-9);
        assert!(offset(2) + slice <= h.bucket + 1e-9);
        let (_, e1) = table_of("hikey960-asym-packing", 1);
        assert!(histogram_figure(&e1).is_none());
    }
}
