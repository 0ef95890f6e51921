//! The timeline as a plotly figure: lanes on top (one bar trace per coloured task, migration
//! markers, and under each lane its CPU's frequency strip with a colour bar for MHz), frequency
//! lines and busy share below, one time axis. Built in the worker; the page gets
//! the figure as JSON text.

use serde_json::{json, Value};

use super::freq::FreqCellVm;
use super::timeline::{fmt_duration, Bar, MarkVm, TimelineVm, OTHER_COLOUR, PALETTE};

/// The colours of the frequency strips, low MHz to high: pale to dark, so idle CPUs at their
/// lowest frequency recede and fast ones stand out (ordered in lightness, so it reads in grey too).
const STRIP_SCALE: [(f64, &str); 4] = [
    (0.0, "#fdf1d3"),
    (0.35, "#f9b35e"),
    (0.7, "#d9541a"),
    (1.0, "#6b1500"),
];

impl TimelineVm {
    /// The plotly figure: lanes on top, frequency and busy share below, one time axis.
    pub fn figure(&self) -> Value {
        let strips = !self.cpu_freq.is_empty();
        // A lane holds its task bars and, under them, its CPU's frequency strip.
        let lane_px = (1100 / self.lanes.len().max(1)).clamp(if strips { 12 } else { 9 }, 26);
        let (bar_width, bar_offset) = if strips { (0.62, -0.45) } else { (0.8, -0.4) };
        let lanes_h = (lane_px * self.lanes.len()).max(140);
        let sub_h = 130;
        let has_freq = !self.freq.is_empty();
        let gap = 46;
        let plot_h = lanes_h + gap + sub_h + if has_freq { gap + sub_h } else { 0 };
        let frac = |px: usize| px as f64 / plot_h as f64;
        let busy_dom = [0.0, frac(sub_h)];
        let freq_dom = [frac(sub_h + gap), frac(2 * sub_h + gap)];
        let lanes_dom = [1.0 - frac(lanes_h), 1.0];
        let lane_label = |cpu: usize| {
            self.lanes
                .get(cpu)
                .map_or_else(|| format!("CPU{cpu}"), |l| l.label.clone())
        };
        let secs = |ns: u64| ns as f64 / 1e9;

        let mut data: Vec<Value> = Vec::new();
        // One bar trace per coloured task, one for all others.
        let mut groups: Vec<(Option<usize>, Vec<&Bar>)> = Vec::new();
        for b in &self.bars {
            let c = self.tasks.get(b.task).and_then(|t| t.colour);
            match groups.iter_mut().find(|(k, _)| *k == c) {
                Some(g) => g.1.push(b),
                None => groups.push((c, vec![b])),
            }
        }
        groups.sort_by_key(|(c, _)| c.unwrap_or(usize::MAX));
        for (c, bars) in groups {
            let name = match c {
                Some(_) => self.tasks[bars[0].task].label.clone(),
                None => "other tasks".to_string(),
            };
            let colour = c.map_or(OTHER_COLOUR, |i| PALETTE[i % PALETTE.len()]);
            let text: Vec<String> = bars.iter().map(|b| self.bar_hover(b)).collect();
            let opacity: Vec<f64> = bars
                .iter()
                .map(|b| {
                    if b.segments == 1 {
                        1.0
                    } else {
                        0.3 + 0.7 * b.busy_ns as f64 / (b.end_ns - b.start_ns).max(1) as f64
                    }
                })
                .collect();
            data.push(json!({
                "type": "bar", "orientation": "h", "name": name,
                "y": bars.iter().map(|b| lane_label(b.cpu)).collect::<Vec<_>>(),
                "base": bars.iter().map(|b| secs(b.start_ns)).collect::<Vec<_>>(),
                "x": bars.iter().map(|b| secs(b.end_ns - b.start_ns)).collect::<Vec<_>>(),
                "marker": { "color": colour, "opacity": opacity, "line": { "width": 0 } },
                "width": bar_width, "offset": bar_offset,
                "hovertext": text, "hoverinfo": "text",
                "legendgroup": "tasks",
                "xaxis": "x", "yaxis": "y",
            }));
        }
        if strips {
            let cells = &self.cpu_freq;
            let lo = cells
                .iter()
                .map(|c| c.min_mhz)
                .fold(f64::INFINITY, f64::min);
            let hi = cells
                .iter()
                .map(|c| c.max_mhz)
                .fold(f64::NEG_INFINITY, f64::max);
            // One frequency all run long still gets a scale, centred on it.
            let (lo, hi) = if hi > lo {
                (lo, hi)
            } else {
                (lo - 1.0, hi + 1.0)
            };
            let lanes_len = lanes_dom[1] - lanes_dom[0];
            data.push(json!({
                "type": "bar", "orientation": "h", "name": "MHz per CPU", "showlegend": false,
                "y": cells.iter().map(|c| lane_label(c.cpu)).collect::<Vec<_>>(),
                "base": cells.iter().map(|c| secs(c.start_ns)).collect::<Vec<_>>(),
                "x": cells.iter().map(|c| secs(c.end_ns - c.start_ns)).collect::<Vec<_>>(),
                "width": 0.24, "offset": 0.2,
                "marker": { "color": cells.iter().map(|c| c.mhz).collect::<Vec<_>>(),
                            "colorscale": STRIP_SCALE.iter().map(|&(at, c)| json!([at, c])).collect::<Vec<_>>(), "cmin": lo, "cmax": hi, "line": { "width": 0 },
                            "showscale": true,
                            "colorbar": { "title": { "text": "MHz", "side": "top", "font": { "size": 11 } },
                                          "thickness": 10, "x": 1.0, "xpad": 6, "xanchor": "left",
                                          "y": lanes_dom[1], "yanchor": "top", "len": lanes_len.min(0.45),
                                          "lenmode": "fraction", "outlinewidth": 0, "tickfont": { "size": 10 } } },
                "hovertext": cells.iter().map(freq_hover).collect::<Vec<_>>(), "hoverinfo": "text",
                "xaxis": "x", "yaxis": "y",
            }));
        }
        if !self.marks.is_empty() {
            data.push(json!({
                "type": "scatter", "mode": "markers", "name": "migration",
                "x": self.marks.iter().map(|m| secs(m.t_ns)).collect::<Vec<_>>(),
                "y": self.marks.iter().map(|m| lane_label(m.to)).collect::<Vec<_>>(),
                "marker": { "symbol": "triangle-right", "size": 8, "color": "#1d2430",
                            "line": { "color": "#ffffff", "width": 1 } },
                "hovertext": self.marks.iter().map(|m| self.mark_hover(m)).collect::<Vec<_>>(),
                "hoverinfo": "text",
                "xaxis": "x", "yaxis": "y",
            }));
        }
        for (i, l) in self.freq.iter().enumerate() {
            data.push(json!({
                "type": "scatter", "mode": "lines", "name": format!("MHz: {}", l.label),
                "x": l.t_ns.iter().map(|&t| secs(t)).collect::<Vec<_>>(), "y": l.y,
                "line": { "shape": "hv", "width": 1.5, "color": PALETTE[(i + 4) % PALETTE.len()] },
                "hovertemplate": "%{y:.0f} MHz at %{x:.6f} s<extra>%{fullData.name}</extra>",
                "xaxis": "x", "yaxis": "y2", "legendgroup": "freq",
            }));
        }
        for (i, l) in self.busy.iter().enumerate() {
            data.push(json!({
                "type": "scatter", "mode": "lines", "name": format!("busy %: {}", l.label),
                "x": l.t_ns.iter().map(|&t| secs(t)).collect::<Vec<_>>(), "y": l.y,
                "line": { "width": 1.5, "color": PALETTE[(i + 4) % PALETTE.len()], "dash": "dot" },
                "hovertemplate": "%{y:.1f} % busy around %{x:.4f} s<extra>%{fullData.name}</extra>",
                "xaxis": "x", "yaxis": if has_freq { "y3" } else { "y2" }, "legendgroup": "busy",
            }));
        }
        let categories: Vec<String> = self.lanes.iter().map(|l| l.label.clone()).collect();
        // An invisible point per lane, so idle CPUs keep their lane (a category axis only shows
        // the categories its data has).
        data.push(json!({
            "type": "scatter", "mode": "markers", "name": "lanes", "showlegend": false,
            "x": vec![0.0; categories.len()], "y": categories, "hoverinfo": "skip",
            "marker": { "opacity": 0 }, "xaxis": "x", "yaxis": "y",
        }));
        let mut layout = json!({
            "height": plot_h + 150,
            "barmode": "overlay",
            "bargap": 0.1,
            "hovermode": "closest",
            "showlegend": true,
            // Below the time axis and its title (plotly grows the margin to fit it).
            // Entries flow in rows ("normal": not a column per legend group).
            "legend": { "orientation": "h", "traceorder": "normal", "x": 0, "y": -(64.0 / plot_h as f64),
                        "yanchor": "top", "font": { "size": 11 } },
            // Room above the lanes for plotly's tool bar, and with strips on the right for the
            // MHz colour bar.
            "margin": { "l": 92, "r": if strips { 64 } else { 16 }, "t": 30, "b": 30 },
            "xaxis": { "title": { "text": "simulated time (s)", "standoff": 4 }, "anchor": if has_freq { "y3" } else { "y2" },
                       "range": [0.0, secs(self.span_ns)], "zeroline": false },
            "yaxis": { "domain": lanes_dom, "type": "category", "categoryorder": "array",
                       "categoryarray": categories, "autorange": "reversed",
                       "tickfont": { "size": if lane_px < 14 { 9 } else { 11 } } },
        });
        let axis = |dom: [f64; 2], title: &str, range: Option<[f64; 2]>| {
            let mut a = json!({ "domain": dom, "title": { "text": title, "font": { "size": 11 } }, "zeroline": false });
            if let Some(r) = range {
                a["range"] = json!(r);
            }
            a
        };
        // Up to 100 % when the busiest window comes near it; else a scale that shows the line (on
        // a 96-CPU machine running a few tasks, the groups are a few % busy).
        let peak = self
            .busy
            .iter()
            .flat_map(|l| &l.y)
            .fold(0.0f64, |m, &y| m.max(y));
        let busy_top = if peak > 40.0 {
            105.0
        } else {
            (peak * 1.25).max(5.0).ceil()
        };
        if has_freq {
            layout["yaxis2"] = axis(freq_dom, "MHz", None);
            layout["yaxis3"] = axis(busy_dom, "busy %", Some([0.0, busy_top]));
        } else {
            layout["yaxis2"] = axis(busy_dom, "busy %", Some([0.0, busy_top]));
        }
        json!({
            "data": data,
            "layout": layout,
            "config": { "responsive": true, "displaylogo": false },
        })
    }

    fn bar_hover(&self, b: &Bar) -> String {
        let name = self
            .tasks
            .get(b.task)
            .map_or_else(|| format!("task {}", b.task), |t| t.label.clone());
        let len = b.end_ns - b.start_ns;
        let at = format!(
            "CPU{} {:.6}–{:.6} s",
            b.cpu,
            b.start_ns as f64 / 1e9,
            b.end_ns as f64 / 1e9
        );
        if b.segments == 1 {
            format!("{name}<br>{at} ({})", fmt_duration(len))
        } else {
            format!(
                "{} segments merged<br>{at}<br>busy {:.0} %, longest: {name} {:.0} %",
                b.segments,
                b.busy_ns as f64 * 100.0 / len.max(1) as f64,
                b.task_ns as f64 * 100.0 / len.max(1) as f64
            )
        }
    }

    fn mark_hover(&self, m: &MarkVm) -> String {
        let what = self
            .tasks
            .get(m.task)
            .map_or_else(|| format!("task {}", m.task), |x| x.label.clone());
        format!(
            "{what}: CPU{} → CPU{} ({}) at {:.6} s",
            m.from,
            m.to,
            m.reason,
            m.t_ns as f64 / 1e9
        )
    }
}

/// A strip cell's tooltip: the CPU, its mean frequency over the cell, and the range within.
fn freq_hover(c: &FreqCellVm) -> String {
    let at = format!(
        "CPU{} {:.6}–{:.6} s",
        c.cpu,
        c.start_ns as f64 / 1e9,
        c.end_ns as f64 / 1e9
    );
    if c.min_mhz == c.max_mhz {
        format!("{:.0} MHz<br>{at}", c.mhz)
    } else {
        format!(
            "{:.0} MHz mean ({:.0}–{:.0})<br>{at}",
            c.mhz, c.min_mhz, c.max_mhz
        )
    }
}
