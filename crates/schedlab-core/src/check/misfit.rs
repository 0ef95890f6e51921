//! `lisa/tests/scheduler/misfit.py`: StaggeredFinishes and its pass rules.
//!
//! The profile: one 100% task per CPU, `misfit_<cpu>`, pinned to its CPU for `PIN_DELAY_S` (1 ms)
//! after `IDLING_DELAY_S` (1 s), then free on every CPU for `free_time_s = 1.1 x
//! max_load_balance_interval` (`HZ x nr_cpus / 10` jiffies) plus `cpu x stagger_s`, where
//! `stagger_s = free_time_s // (10 x nr_cpus)` is Python's floor division of floats, which is 0 s
//! on these machines (so the tasks do not actually stagger, as in LISA).
//!
//! The window: from the last task to start on its own CPU (after `0.9 x IDLING_DELAY_S` from the
//! first task's first switch-in) to the last switch out of any misfit task. `src_cpus` are the
//! smallest capacity class, `dst_cpus` all the others.
//! - `test_preempt_time(allowed_preempt_pct = 1)`: per task, the time it slept after switches
//!   where another misfit task took its CPU (LISA's code selects those switches *and* the
//!   sleeping state, `curr_state == S`, which is what is computed here), as a share of the window.
//! - `test_migration_delay(allowed_delay_s = 0.001)` (the version of misfit.py that has it):
//!   while a task runs on a `src` CPU before its first run on a `dst` CPU, no `dst` CPU may stay
//!   idle longer than the allowance.
//! - `test_throughput(allowed_idle_time_s = 1 ms x nr_cpus)`: the same over every run of a task
//!   on a `src` CPU in the window.

use super::rta::{Phase, Platform, Task, TASK_PERIOD_US};
use super::{CheckLine, Span, Timeline};

const PIN_DELAY_US: u64 = 1_000;
const IDLING_DELAY_US: u64 = 1_000_000;

/// `get_max_lb_interval()` in seconds, `((HZ * cpus) // 10) / HZ`.
fn max_lb_interval_s(p: &Platform) -> f64 {
    let hz = p.hz.max(1) as u64;
    ((hz * p.nr_cpus as u64) / 10) as f64 / hz as f64
}

pub fn profile(p: &Platform) -> Vec<Task> {
    let free_time_s = 1.1 * max_lb_interval_s(p);
    let stagger_s = (free_time_s / (10 * p.nr_cpus) as f64).floor();
    let all: Vec<usize> = (0..p.nr_cpus).collect();
    (0..p.nr_cpus)
        .map(|cpu| {
            let mut t = Task::periodic(
                &format!("misfit_{cpu}"),
                100,
                PIN_DELAY_US,
                IDLING_DELAY_US,
                Some(vec![cpu]),
            );
            t.phases.push(Phase {
                duration_us: ((free_time_s + cpu as f64 * stagger_s) * 1e6) as u64,
                period_us: TASK_PERIOD_US,
                duty_pct: 100,
                cpus: Some(all.clone()),
            });
            t
        })
        .collect()
}

/// `(start, end)` of the test window, ns.
pub fn window(tl: &Timeline, nr_cpus: usize) -> Option<(u64, u64)> {
    let init = tl.start()?;
    let from = init + IDLING_DELAY_US * 1000 * 9 / 10;
    let mut start = 0;
    for (k, runs) in tl.runs.iter().enumerate().take(nr_cpus) {
        let s = runs.iter().find(|s| s.cpu == k && s.start >= from)?.start;
        start = start.max(s);
    }
    let end = tl
        .runs
        .iter()
        .filter_map(|r| r.last().map(|s| s.end))
        .max()?;
    Some((start, end.max(start)))
}

/// Spans clipped to start at `start` (LISA's `squash_df`), empty ones dropped.
fn clip(spans: impl Iterator<Item = Span>, start: u64) -> Vec<Span> {
    spans
        .filter(|s| s.end > start)
        .map(|s| Span {
            start: s.start.max(start),
            ..s
        })
        .collect()
}

/// `_test_cpus_busy()` for one task's spans: the longest idle stretch of any `cpus` within a
/// span, and the CPU.
pub fn max_idle_over(tl: &Timeline, spans: &[Span], cpus: &[usize]) -> (u64, usize) {
    let mut best = (0, 0);
    for s in spans {
        for &c in cpus {
            let idle = tl.max_idle(c, s.start, s.end);
            if idle > best.0 {
                best = (idle, c);
            }
        }
    }
    best
}

pub fn check(variant: &str, p: &Platform, tasks: &[Task], tl: &Timeline) -> Vec<CheckLine> {
    let line =
        |rule: &str, subject: String, observed: f64, margin: String, unit: &str, pass| CheckLine {
            variant: variant.into(),
            rule: rule.into(),
            subject,
            observed,
            expected: 0.0,
            margin,
            unit: unit.into(),
            pass,
        };
    let Some((start, end)) = window(tl, p.nr_cpus) else {
        return vec![line(
            "window",
            "a misfit task never started on its own CPU".into(),
            f64::NAN,
            String::new(),
            "",
            false,
        )];
    };
    let duration = (end - start).max(1) as f64;
    let src: Vec<usize> = p.classes.first().cloned().unwrap_or_default();
    let dst: Vec<usize> = p.classes.iter().skip(1).flatten().copied().collect();
    let misfit_ids: Vec<usize> = tl.ids.iter().flatten().copied().collect();
    let mut out = Vec::new();
    for (k, t) in tasks.iter().enumerate() {
        let preempt: u64 = tl.sleeps[k]
            .iter()
            .filter(|s| s.next.is_some_and(|n| misfit_ids.contains(&n)) && s.end > start)
            .map(|s| s.end - s.start.max(start))
            .sum();
        let pct = preempt as f64 * 100.0 / duration;
        out.push(line(
            "test_preempt_time",
            format!("{} ({:.3} ms)", t.name, preempt as f64 / 1e6),
            pct,
            "1%".into(),
            "%",
            pct <= 1.0,
        ));
    }
    for (k, t) in tasks.iter().enumerate() {
        let active = clip(tl.runs[k].iter().copied(), start);
        let first_big = active.iter().position(|s| dst.contains(&s.cpu));
        let before: Vec<Span> = active[..first_big.unwrap_or(active.len())]
            .iter()
            .filter(|s| src.contains(&s.cpu))
            .copied()
            .collect();
        let (idle, cpu) = max_idle_over(tl, &before, &dst);
        out.push(line(
            "test_migration_delay",
            format!("{} max idle of CPU{cpu}", t.name),
            idle as f64 / 1e6,
            "1 ms".into(),
            "ms",
            idle <= 1_000_000,
        ));
    }
    let allowed = 1_000_000 * p.nr_cpus as u64;
    for (k, t) in tasks.iter().enumerate() {
        let on_src: Vec<Span> = clip(tl.runs[k].iter().copied(), start)
            .into_iter()
            .filter(|s| src.contains(&s.cpu))
            .collect();
        let (idle, cpu) = max_idle_over(tl, &on_src, &dst);
        out.push(line(
            "test_throughput",
            format!("{} max idle of CPU{cpu}", t.name),
            idle as f64 / 1e6,
            format!("{} ms", allowed / 1_000_000),
            "ms",
            idle <= allowed,
        ));
    }
    out
}
