//! The per-CPU timeline of one traced run: which task ran where, the migrations, each frequency
//! domain's frequency and how busy its CPUs were, all over simulated time.
//!
//! Built in the worker from the run's `sched_switch`, `sched_migrate_task` and frequency events
//! and from the decision log's balance passes, and bounded before it crosses to the page: a run of
//! a few simulated seconds has hundreds of thousands of switches, more than plotly can draw (or a
//! screen can show). So the timeline is decimated, never silently:
//!
//! - Run segments: at most [`MAX_BARS`] bars over all CPUs. A segment at least the shortest
//!   drawn width long is drawn as it is; shorter ones are merged with their neighbours until the
//!   merged block is that wide, drawn in the colour of the task that ran longest in it, more
//!   transparent the more of it was idle, its tooltip giving the switch count and busy share. The
//!   width is the smallest that keeps the bars within the budget, so busy CPUs get the detail
//!   idle ones do not need.
//! - Migrations: at most [`MAX_MARKS`] markers, evenly thinned.
//! - Frequency: at most [`MAX_FREQ_POINTS`] points per line, keeping each time bin's lowest and
//!   highest value, so the envelope survives; each CPU's frequency strip (under its lane, see
//!   `freq`) has at most `MAX_FREQ_CELLS` / CPUs bins, each its time-weighted mean.
//!
//! What was thinned is said in [`TimelineVm::notes`], which the page shows under the chart.
//!
//! Utilization: the trace records no PELT signal (`util_avg` is not sampled), so the timeline
//! shows instead each group's *busy share* per time window, computed exactly from the switches;
//! the note says so. Migrations are the trace's `sched_migrate_task` events: wake-up, load
//! balance, active balance and affinity moves, each naming its task.

use schedlab_core::experiment::RunTrace;
use schedlab_core::topology::Topology;
use schedlab_core::trace::{MigrateReason, TraceEvent};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::decisions::task_label;
use super::freq::{
    cpu_freq_cells, freq_lines, line_groups, FreqCellVm, MAX_BINS_PER_CPU, MAX_FREQ_CELLS,
};
pub use super::freq::{thin_line, MAX_FREQ_POINTS, MAX_LINES};

/// Most run bars drawn over all CPUs: plotly draws each as an SVG element on the page's thread,
/// and 2500 of them draw in well under a second.
pub const MAX_BARS: usize = 2500;
/// Most migration markers drawn.
pub const MAX_MARKS: usize = 1500;
/// Time windows of the busy-share lines.
pub const BUSY_WINDOWS: usize = 200;
/// Tasks with a legend entry (and a colour) of their own; the rest share "other tasks".
pub const MAX_LEGEND_TASKS: usize = 12;

/// A task's lane colour, from a palette readable on white.
pub const PALETTE: [&str; 12] = [
    "#2f5fd0", "#d9822b", "#2a9d5c", "#c2413b", "#7b55c7", "#8c6d31", "#d45fa8", "#5b6576",
    "#1f9fb4", "#9aa829", "#e0a100", "#3d3d9e",
];
pub(crate) const OTHER_COLOUR: &str = "#a3abb8";

/// One drawn bar on a CPU's lane.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bar {
    pub cpu: usize,
    pub start_ns: u64,
    pub end_ns: u64,
    /// The task that ran (longest, for a merged block).
    pub task: usize,
    /// Time something ran within the bar.
    pub busy_ns: u64,
    /// Segments merged into this bar (1: an exact segment).
    pub segments: u32,
    /// The longest-running task's time within the bar.
    pub task_ns: u64,
}

/// A task's identity on the chart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskVm {
    /// `comm-pid`, as `schedlab explain` and ftrace name it.
    pub label: String,
    /// Index into [`PALETTE`]; `None`: drawn as "other tasks".
    pub colour: Option<usize>,
    pub busy_ns: u64,
}

/// A migration marker, on the destination CPU's lane.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MarkVm {
    pub t_ns: u64,
    pub from: usize,
    pub to: usize,
    /// `wakeup`, `load_balance`, `active_balance` or `affinity`.
    pub reason: String,
    /// The task moved.
    pub task: usize,
}

/// A line over time (step-wise for frequencies).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LineVm {
    pub label: String,
    pub t_ns: Vec<u64>,
    pub y: Vec<f64>,
}

/// A CPU's lane.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LaneVm {
    pub cpu: usize,
    pub label: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimelineVm {
    /// The run's simulated length.
    pub span_ns: u64,
    pub lanes: Vec<LaneVm>,
    pub tasks: Vec<TaskVm>,
    pub bars: Vec<Bar>,
    pub marks: Vec<MarkVm>,
    /// Per frequency domain (or cluster), MHz.
    pub freq: Vec<LineVm>,
    /// Each CPU's frequency as a heat strip beside its lane (`freq::cpu_freq_cells`).
    #[serde(default)]
    pub cpu_freq: Vec<FreqCellVm>,
    /// Per frequency domain (or cluster), % of its CPUs' time busy, per window.
    pub busy: Vec<LineVm>,
    /// What the chart leaves out or approximates, in words.
    pub notes: Vec<String>,
}

/// A run segment: `task` (None = idle) on `cpu` over `[start, end)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    pub cpu: usize,
    pub start: u64,
    pub end: u64,
    pub task: Option<usize>,
}

/// Every CPU's run segments, from the `sched_switch` events, idle included, in time order per
/// CPU; `span` closes the last one.
pub fn segments(events: &[TraceEvent], nr_cpus: usize, span: u64) -> Vec<Vec<Segment>> {
    let mut out: Vec<Vec<Segment>> = vec![Vec::new(); nr_cpus];
    let mut current: Vec<(Option<usize>, u64)> = vec![(None, 0); nr_cpus];
    let close =
        |out: &mut Vec<Vec<Segment>>, cpu: usize, (task, start): (Option<usize>, u64), end: u64| {
            if end > start {
                out[cpu].push(Segment {
                    cpu,
                    start,
                    end,
                    task,
                });
            }
        };
    for e in events {
        if let TraceEvent::Switch { t, cpu, next, .. } = *e {
            if cpu >= nr_cpus {
                continue;
            }
            close(&mut out, cpu, current[cpu], t);
            current[cpu] = (next, t);
        }
    }
    for (cpu, cur) in current.into_iter().enumerate() {
        close(&mut out, cpu, cur, span.max(cur.1));
    }
    out
}

/// A block of merged segments being built.
#[derive(Default)]
struct Block {
    start: u64,
    end: u64,
    busy: u64,
    segments: u32,
    /// (task, time) of the tasks in the block; few per block, so a vector.
    per_task: Vec<(usize, u64)>,
}

impl Block {
    fn add(&mut self, s: &Segment) {
        if self.segments == 0 {
            self.start = s.start;
        }
        self.end = s.end;
        self.segments += 1;
        if let Some(t) = s.task {
            let len = s.end - s.start;
            self.busy += len;
            match self.per_task.iter_mut().find(|(k, _)| *k == t) {
                Some(e) => e.1 += len,
                None => self.per_task.push((t, len)),
            }
        }
    }

    /// The block as a bar, unless nothing ran in it; the block is emptied either way.
    fn take(&mut self, cpu: usize) -> Option<Bar> {
        let b = std::mem::take(self);
        let (task, task_ns) = b
            .per_task
            .iter()
            .copied()
            .max_by_key(|&(t, ns)| (ns, std::cmp::Reverse(t)))?;
        Some(Bar {
            cpu,
            start_ns: b.start,
            end_ns: b.end,
            task,
            busy_ns: b.busy,
            segments: b.segments,
            task_ns,
        })
    }
}

/// One CPU's segments as bars at least `min_len` long, but for segments kept whole (see the
/// module doc); at most `2 * span / min_len` of them.
pub fn decimate(segs: &[Segment], min_len: u64) -> Vec<Bar> {
    let Some(first) = segs.first() else {
        return Vec::new();
    };
    let cpu = first.cpu;
    let min_len = min_len.max(1);
    let mut bars = Vec::new();
    let mut block = Block::default();
    for s in segs {
        let len = s.end - s.start;
        if len >= min_len {
            bars.extend(block.take(cpu));
            block.add(s);
            bars.extend(block.take(cpu));
            continue;
        }
        block.add(s);
        if block.end - block.start >= min_len {
            bars.extend(block.take(cpu));
        }
    }
    bars.extend(block.take(cpu));
    bars
}

/// The smallest bar width (ns) at which all CPUs' bars number at most `max`: bisection, since
/// fewer bars come out the wider they must be.
pub fn shortest_width(segs: &[Vec<Segment>], span: u64, max: usize) -> u64 {
    let count = |w: u64| -> usize { segs.iter().map(|s| decimate(s, w).len()).sum() };
    if count(1) <= max {
        return 1;
    }
    let (mut lo, mut hi) = (1u64, span.max(2));
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if count(mid) <= max {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

/// Busy share (%) of each group's CPUs per window, exact from the segments.
fn busy_lines(
    segs: &[Vec<Segment>],
    span: u64,
    groups: &[(String, Vec<usize>, Vec<usize>)],
) -> Vec<LineVm> {
    if span == 0 {
        return Vec::new();
    }
    let windows = BUSY_WINDOWS.min(span as usize).max(1);
    let width = span.div_ceil(windows as u64);
    groups
        .iter()
        .map(|(label, _, cpus)| {
            let mut busy = vec![0u64; windows];
            for &cpu in cpus {
                for s in segs
                    .get(cpu)
                    .into_iter()
                    .flatten()
                    .filter(|s| s.task.is_some())
                {
                    let mut t = s.start;
                    while t < s.end {
                        let w = ((t / width) as usize).min(windows - 1);
                        let w_end = ((w as u64 + 1) * width).min(span).max(t + 1);
                        let until = s.end.min(w_end);
                        busy[w] += until - t;
                        t = until;
                    }
                }
            }
            let ncpu = cpus.len().max(1) as f64;
            LineVm {
                label: label.clone(),
                t_ns: (0..windows).map(|w| w as u64 * width + width / 2).collect(),
                y: busy
                    .iter()
                    .enumerate()
                    .map(|(w, &b)| {
                        let len = ((w as u64 + 1) * width).min(span) - (w as u64 * width).min(span);
                        if len == 0 {
                            0.0
                        } else {
                            b as f64 * 100.0 / (len as f64 * ncpu)
                        }
                    })
                    .collect(),
            }
        })
        .collect()
}

fn reason_name(r: MigrateReason) -> String {
    match serde_json::to_value(r) {
        Ok(Value::String(s)) => s,
        _ => "migration".into(),
    }
}

/// Every migration: the trace's `sched_migrate_task` events (wake-up, load balance, active
/// balance, affinity), in time order.
fn migrations(trace: &RunTrace) -> Vec<MarkVm> {
    trace
        .events
        .iter()
        .filter_map(|e| match *e {
            TraceEvent::Migrate {
                t,
                task,
                from,
                to,
                reason,
                ..
            } => Some(MarkVm {
                t_ns: t,
                from,
                to,
                reason: reason_name(reason),
                task,
            }),
            _ => None,
        })
        .collect()
}

/// Every `k`-th item so that at most `max` remain.
fn thin<T: Clone>(items: &[T], max: usize) -> Vec<T> {
    if items.len() <= max || max == 0 {
        return items.to_vec();
    }
    let step = items.len().div_ceil(max);
    items.iter().step_by(step).cloned().collect()
}

impl TimelineVm {
    pub fn build(trace: &RunTrace, topo: &Topology) -> TimelineVm {
        let nr = topo.nr_cpus();
        let span = trace
            .result
            .sim_ns
            .max(trace.events.last().map_or(0, TraceEvent::t));
        let segs = segments(&trace.events, nr, span);
        let nsegs: usize = segs.iter().map(Vec::len).sum();
        let min_len = shortest_width(&segs, span, MAX_BARS);
        let bars: Vec<Bar> = segs.iter().flat_map(|s| decimate(s, min_len)).collect();

        // Tasks: the longest-running get their own colour and legend entry.
        let ntasks = trace.task_names.len();
        let mut busy = vec![0u64; ntasks];
        for s in segs.iter().flatten() {
            if let Some(t) = s.task.filter(|&t| t < ntasks) {
                busy[t] += s.end - s.start;
            }
        }
        let mut order: Vec<usize> = (0..ntasks).collect();
        order.sort_by_key(|&t| (std::cmp::Reverse(busy[t]), t));
        let mut colour = vec![None; ntasks];
        for (rank, &t) in order.iter().take(MAX_LEGEND_TASKS).enumerate() {
            if busy[t] > 0 {
                colour[t] = Some(rank);
            }
        }
        let tasks = (0..ntasks)
            .map(|t| TaskVm {
                label: task_label(&trace.task_names, t),
                colour: colour[t],
                busy_ns: busy[t],
            })
            .collect();

        let all_marks = migrations(trace);
        let marks = thin(&all_marks, MAX_MARKS);
        let groups = line_groups(topo);
        let raw_freq = freq_lines(&trace.events, topo, &groups);
        let freq_points: usize = raw_freq.iter().map(|l| l.t_ns.len()).sum();
        let freq: Vec<LineVm> = raw_freq
            .iter()
            .map(|l| thin_line(l, MAX_FREQ_POINTS, span))
            .collect();
        let freq_drawn: usize = freq.iter().map(|l| l.t_ns.len()).sum();
        let busy_lines = busy_lines(&segs, span, &groups);
        let cpu_freq = cpu_freq_cells(&trace.events, topo, span);

        let mut notes = Vec::new();
        let merged = bars.iter().filter(|b| b.segments > 1).count();
        if merged > 0 {
            notes.push(format!(
                "{nsegs} run segments drawn as {} bars: segments shorter than {} are merged into blocks \
                 coloured by the task that ran longest in them, fainter the more idle they were.",
                bars.len(),
                fmt_duration(min_len)
            ));
        }
        if marks.len() < all_marks.len() {
            notes.push(format!(
                "{} of {} migrations marked (every {}th).",
                marks.len(),
                all_marks.len(),
                all_marks.len().div_ceil(MAX_MARKS)
            ));
        }
        if freq_drawn < freq_points {
            notes.push(format!(
                "{freq_drawn} of {freq_points} frequency changes drawn (each time bin's first, lowest and highest)."
            ));
        }
        if topo.freq_domains.len() > MAX_LINES {
            notes.push(format!(
                "{} frequency domains: lines are per cluster, the mean of its domains.",
                topo.freq_domains.len()
            ));
        }
        if freq.is_empty() {
            notes.push("No frequency change was recorded in this run.".into());
        } else {
            notes.push(format!(
                "The strip under each CPU's lane is its frequency (its domain's), coloured by MHz: \
                 the time-weighted mean over bins of {}.",
                fmt_duration(span.div_ceil(
                    (MAX_FREQ_CELLS / nr.max(1)).clamp(1, MAX_BINS_PER_CPU) as u64
                ))
            ));
        }
        notes.push(
            "Busy % is each group's share of time running a task, per window, from the switches; the trace \
             records no PELT util_avg samples."
                .into(),
        );

        TimelineVm {
            span_ns: span,
            lanes: (0..nr)
                .map(|cpu| LaneVm {
                    cpu,
                    label: format!("CPU{cpu} · {}", topo.capacity_orig(cpu)),
                })
                .collect(),
            tasks,
            bars,
            marks,
            freq,
            cpu_freq,
            busy: busy_lines,
            notes,
        }
    }
}

/// A duration in the unit that reads best.
pub fn fmt_duration(ns: u64) -> String {
    match ns {
        n if n >= 1_000_000_000 => format!("{:.3} s", n as f64 / 1e9),
        n if n >= 1_000_000 => format!("{:.3} ms", n as f64 / 1e6),
        n if n >= 1_000 => format!("{:.1} µs", n as f64 / 1e3),
        n => format!("{n} ns"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runview::tests::{e1_plan, e1_trace};
    use schedlab_core::trace::PrevState;

    fn seg(cpu: usize, start: u64, end: u64, task: Option<usize>) -> Segment {
        Segment {
            cpu,
            start,
            end,
            task,
        }
    }

    #[test]
    fn switches_become_segments_that_tile_each_cpu() {
        let events = vec![
            TraceEvent::Switch {
                t: 10,
                cpu: 0,
                prev: None,
                prev_state: PrevState::Idle,
                next: Some(3),
            },
            TraceEvent::Frequency {
                t: 12,
                domain: 0,
                khz: 100,
            },
            TraceEvent::Switch {
                t: 25,
                cpu: 0,
                prev: Some(3),
                prev_state: PrevState::Sleeping,
                next: None,
            },
            TraceEvent::Switch {
                t: 30,
                cpu: 1,
                prev: None,
                prev_state: PrevState::Idle,
                next: Some(1),
            },
            TraceEvent::Switch {
                t: 30,
                cpu: 7,
                prev: None,
                prev_state: PrevState::Idle,
                next: Some(1),
            },
        ];
        let s = segments(&events, 2, 50);
        assert_eq!(
            s[0],
            [
                seg(0, 0, 10, None),
                seg(0, 10, 25, Some(3)),
                seg(0, 25, 50, None)
            ]
        );
        assert_eq!(s[1], [seg(1, 0, 30, None), seg(1, 30, 50, Some(1))]);
        let e1 = e1_trace();
        let plan = e1_plan();
        let span = e1.result.sim_ns;
        for lane in segments(&e1.events, plan.topo.nr_cpus(), span) {
            let mut t = 0;
            for s in &lane {
                assert_eq!(s.start, t);
                t = s.end;
            }
            assert_eq!(t, span);
        }
    }

    #[test]
    fn long_segments_stay_exact_and_short_ones_merge_by_dominant_task() {
        // Budget 10 over 100 ns: bars at least 10 ns wide.
        let segs = vec![
            seg(0, 0, 40, Some(1)),
            seg(0, 40, 43, Some(2)),
            seg(0, 43, 45, None),
            seg(0, 45, 52, Some(3)),
            seg(0, 52, 100, None),
        ];
        let bars = decimate(&segs, 10);
        assert_eq!(bars.len(), 2, "{bars:?}");
        assert_eq!(
            (
                bars[0].start_ns,
                bars[0].end_ns,
                bars[0].task,
                bars[0].segments
            ),
            (0, 40, 1, 1)
        );
        let m = &bars[1];
        assert_eq!((m.start_ns, m.end_ns, m.segments), (40, 52, 3));
        assert_eq!((m.task, m.task_ns, m.busy_ns), (3, 7, 10));
        // Idle stretches draw nothing.
        assert!(decimate(&[seg(0, 0, 100, None)], 10).is_empty());
        assert!(decimate(&[], 10).is_empty());
    }

    #[test]
    fn decimation_bounds_the_bars_and_keeps_busy_time() {
        // 10 000 alternating 1 ns segments.
        let segs: Vec<Segment> = (0..10_000u64)
            .map(|i| {
                seg(
                    0,
                    i,
                    i + 1,
                    if i % 2 == 0 {
                        Some((i % 6) as usize)
                    } else {
                        None
                    },
                )
            })
            .collect();
        let bars = decimate(&segs, 200);
        assert!(bars.len() <= 100, "{} bars", bars.len());
        // The width found keeps any set of lanes within the budget, and is the smallest that does.
        let lanes = vec![
            segs.clone(),
            segs.iter().map(|s| Segment { cpu: 1, ..*s }).collect(),
        ];
        let w = shortest_width(&lanes, 10_000, 300);
        let count = |w: u64| lanes.iter().map(|l| decimate(l, w).len()).sum::<usize>();
        assert!(count(w) <= 300 && count(w - 1) > 300, "width {w}");
        assert_eq!(shortest_width(&lanes, 10_000, 1_000_000), 1);
        assert_eq!(bars.iter().map(|b| b.busy_ns).sum::<u64>(), 5_000);
        // The real run: bounded overall, busy time preserved.
        let t = e1_trace();
        let plan = e1_plan();
        let vm = TimelineVm::build(t, &plan.topo);
        assert!(vm.bars.len() <= MAX_BARS);
        let drawn: u64 = vm.bars.iter().map(|b| b.busy_ns).sum();
        assert_eq!(
            drawn, t.result.busy_cpu_ns,
            "busy time drawn = busy time of the run"
        );
    }

    #[test]
    fn thinning_keeps_the_envelope() {
        let line = LineVm {
            label: "x".into(),
            t_ns: (0..10_000).collect(),
            y: (0..10_000)
                .map(|i| if i == 5_000 { 9.0 } else { (i % 7) as f64 })
                .collect(),
        };
        let thin = thin_line(&line, 300, 10_000);
        assert!(thin.t_ns.len() <= 300);
        assert!(thin.y.contains(&9.0) && thin.y.contains(&0.0));
        assert!(thin.t_ns.windows(2).all(|w| w[0] < w[1]));
        let short = LineVm {
            label: "s".into(),
            t_ns: vec![1, 2],
            y: vec![1.0, 2.0],
        };
        assert_eq!(thin_line(&short, 300, 10), short);
    }

    #[test]
    fn the_e1_timeline_has_lanes_frequencies_busy_share_and_migrations() {
        let t = e1_trace();
        let plan = e1_plan();
        let vm = TimelineVm::build(t, &plan.topo);
        assert_eq!(vm.lanes.len(), 8);
        assert_eq!(
            vm.lanes[7].label,
            format!("CPU7 · {}", plan.topo.capacity_orig(7))
        );
        assert!(!vm.bars.is_empty());
        assert!(
            !vm.marks.is_empty(),
            "the patched variant migrates onto big CPUs"
        );
        assert_eq!(vm.busy.len(), plan.topo.freq_domains.len());
        for l in &vm.busy {
            assert!(l.y.iter().all(|&y| (0.0..=100.0 + 1e-9).contains(&y)));
        }
        assert!(vm.notes.iter().any(|n| n.contains("util_avg")));
        let fig = vm.figure();
        let data = fig["data"].as_array().unwrap();
        assert!(data.iter().any(|d| d["type"] == "bar"));
        assert!(data.iter().any(|d| d["name"] == "migration"));
        assert_eq!(
            fig["layout"]["yaxis"]["categoryarray"]
                .as_array()
                .unwrap()
                .len(),
            8
        );
        // Colours go to the tasks that ran longest.
        let coloured: Vec<&TaskVm> = vm.tasks.iter().filter(|t| t.colour.is_some()).collect();
        assert!(!coloured.is_empty() && coloured.len() <= MAX_LEGEND_TASKS);
    }

    #[test]
    fn frequency_strips_sit_under_the_task_bars_with_a_colour_bar() {
        let plan = e1_plan();
        let mut vm = TimelineVm::build(e1_trace(), &plan.topo);
        let plain = vm.figure();
        assert!(plain["data"]
            .as_array()
            .unwrap()
            .iter()
            .all(|d| d["name"] != "MHz per CPU"));
        vm.cpu_freq = (0..8)
            .map(|cpu| FreqCellVm {
                cpu,
                start_ns: 0,
                end_ns: vm.span_ns,
                mhz: 533.0 + cpu as f64 * 100.0,
                min_mhz: 533.0,
                max_mhz: 533.0 + cpu as f64 * 100.0,
            })
            .collect();
        let fig = vm.figure();
        let data = fig["data"].as_array().unwrap();
        let strip = data.iter().find(|d| d["name"] == "MHz per CPU").unwrap();
        assert_eq!(strip["y"].as_array().unwrap().len(), 8);
        assert_eq!(strip["marker"]["cmin"], 533.0);
        assert_eq!(strip["marker"]["cmax"], 1233.0);
        assert_eq!(strip["marker"]["showscale"], true);
        // Task bars keep the lane's upper part, the strip its lower part.
        let task = data.iter().find(|d| d["legendgroup"] == "tasks").unwrap();
        let (tw, to) = (
            task["width"].as_f64().unwrap(),
            task["offset"].as_f64().unwrap(),
        );
        let (sw, so) = (
            strip["width"].as_f64().unwrap(),
            strip["offset"].as_f64().unwrap(),
        );
        assert!(
            to + tw < so && so + sw < 0.5 && to > -0.5,
            "{to}+{tw} / {so}+{sw}"
        );
    }

    #[test]
    fn durations_read_well() {
        assert_eq!(fmt_duration(1_500_000_000), "1.500 s");
        assert_eq!(fmt_duration(2_500_000), "2.500 ms");
        assert_eq!(fmt_duration(1_500), "1.5 µs");
        assert_eq!(fmt_duration(15), "15 ns");
    }
}
