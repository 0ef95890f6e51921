//! `lisa/tests/scheduler/load_tracking.py`: Invariance and its pass rules.
//!
//! An `InvarianceItem` runs a 10% task (16 ms period, 2 s) pinned to one CPU of each capacity
//! class at a fixed frequency; the item's `test_task_util_avg(allowed_error_pct = 15)` compares
//! the mean of the task's `util_avg` (from its `sched_pelt_se` samples in the task's window on
//! that CPU, the first `UTIL_AVG_CONVERGENCE_TIME_S` = 0.3 s left out, integrated with the
//! trapezoid rule over the samples' span) with `duty_cycle x capacity x freq / max_freq`, where
//! the duty cycle is the share of the window the task ran (`SchedAssert.getDutyCycle()`).
//! `test_cpu_invariance`: the item at each CPU's highest frequency passes;
//! `test_freq_invariance`: some CPU passes at every frequency tried.
//!
//! Simplification: LISA sets each frequency with the `userspace` governor and runs one item at a
//! time; the model has no `userspace` governor, so the items are each CPU's highest OPP
//! (`performance`) and lowest (`powersave`), the two variants of the scenario, and the CPUs of
//! one variant run in the same run (pinned to CPUs of different clusters, they do not meet).

use super::rta::{Platform, Task};
use super::{CheckLine, Timeline};
use crate::kernel::Governor;

const CONVERGENCE_NS: u64 = 300_000_000;

pub fn profile(p: &Platform) -> Vec<Task> {
    p.classes
        .iter()
        .filter_map(|c| c.first())
        .map(|&cpu| {
            Task::periodic(
                &format!("invariance_cpu{cpu}"),
                10,
                2_000_000,
                0,
                Some(vec![cpu]),
            )
        })
        .collect()
}

/// Trapezoid mean of `(t, value)` samples over their span (`area_under_curve / span`).
pub fn signal_mean(samples: &[(u64, f64)]) -> Option<f64> {
    let (first, last) = (samples.first()?.0, samples.last()?.0);
    if last <= first {
        return samples.first().map(|s| s.1);
    }
    let area: f64 = samples
        .windows(2)
        .map(|w| (w[0].1 + w[1].1) / 2.0 * (w[1].0 - w[0].0) as f64)
        .sum();
    Some(area / (last - first) as f64)
}

/// `is_almost_equal(target, value, pct)`.
pub fn almost_equal(target: f64, value: f64, pct: f64) -> bool {
    let d = target * pct / 100.0;
    target - d <= value && value <= target + d
}

pub fn check(
    variant: &str,
    p: &Platform,
    tasks: &[Task],
    tl: &Timeline,
    governor: Governor,
) -> Vec<CheckLine> {
    let mut out = Vec::new();
    for (k, t) in tasks.iter().enumerate() {
        let Some(cpu) = t.phases[0].cpus.as_ref().and_then(|c| c.first()).copied() else {
            continue;
        };
        let freqs = &p.freqs_khz[cpu];
        let (fmax, f) = match governor {
            Governor::Powersave => (
                freqs.last().copied().unwrap_or(1),
                freqs.first().copied().unwrap_or(1),
            ),
            _ => {
                let m = freqs.last().copied().unwrap_or(1);
                (m, m)
            }
        };
        let runs: Vec<_> = tl.runs[k].iter().filter(|s| s.cpu == cpu).collect();
        let subject = format!("{}: cpu{cpu}@{f}", t.name);
        let (Some(first), Some(last)) = (runs.first(), runs.last()) else {
            out.push(CheckLine {
                variant: variant.into(),
                rule: "test_task_util_avg".into(),
                subject: subject + " never ran",
                observed: f64::NAN,
                expected: f64::NAN,
                margin: "15%".into(),
                unit: String::new(),
                pass: false,
            });
            continue;
        };
        let (ws, we) = (first.start, last.end);
        let busy: u64 = runs.iter().map(|s| s.end - s.start).sum();
        let duty = busy as f64 * 100.0 / (we - ws).max(1) as f64;
        let capacity = p.capacities[cpu] as f64 * f as f64 / fmax as f64;
        let expected = duty / 100.0 * capacity;
        let samples: Vec<(u64, f64)> = tl.utils[k]
            .iter()
            .filter(|s| s.0 >= ws + CONVERGENCE_NS && s.0 <= we)
            .map(|&(t, u)| (t, u as f64))
            .collect();
        let mean = signal_mean(&samples).unwrap_or(f64::NAN);
        out.push(CheckLine {
            variant: variant.into(),
            rule: "test_task_util_avg".into(),
            subject,
            observed: mean,
            expected,
            margin: "15%".into(),
            unit: "util".into(),
            pass: almost_equal(expected, mean, 15.0),
        });
    }
    out
}

/// `test_cpu_invariance` and `test_freq_invariance` from the items' lines: an item's CPU is in
/// its subject (`name: cpuN@khz`), its frequency is the highest when its variant ran at
/// `performance` (no `-powersave` suffix).
pub fn aggregate(items: &[CheckLine]) -> Vec<CheckLine> {
    let cpu_of = |l: &CheckLine| {
        l.subject
            .split(": ")
            .nth(1)
            .and_then(|s| s.split('@').next())
            .unwrap_or("")
            .to_string()
    };
    let mut cpus: Vec<String> = items.iter().map(cpu_of).collect();
    cpus.sort();
    cpus.dedup();
    let max_items: Vec<&CheckLine> = items
        .iter()
        .filter(|l| l.rule == "test_task_util_avg" && !l.variant.ends_with("-powersave"))
        .collect();
    let cpu_ok = !max_items.is_empty() && max_items.iter().all(|l| l.pass);
    let passing_cpus: Vec<&String> = cpus
        .iter()
        .filter(|c| {
            items
                .iter()
                .filter(|l| l.rule == "test_task_util_avg" && cpu_of(l) == **c)
                .all(|l| l.pass)
        })
        .collect();
    let variant = items
        .first()
        .map(|l| l.variant.trim_end_matches("-powersave").to_string())
        .unwrap_or_default();
    vec![
        CheckLine {
            variant: variant.clone(),
            rule: "test_cpu_invariance".into(),
            subject: format!(
                "{} of {} items at the highest frequency pass",
                max_items.iter().filter(|l| l.pass).count(),
                max_items.len()
            ),
            observed: max_items.iter().filter(|l| l.pass).count() as f64,
            expected: max_items.len() as f64,
            margin: "all".into(),
            unit: "items".into(),
            pass: cpu_ok,
        },
        CheckLine {
            variant,
            rule: "test_freq_invariance".into(),
            subject: format!(
                "CPUs passing at every frequency: {}",
                if passing_cpus.is_empty() {
                    "none".to_string()
                } else {
                    passing_cpus
                        .iter()
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            ),
            observed: passing_cpus.len() as f64,
            expected: 1.0,
            margin: "at least one CPU".into(),
            unit: "CPUs".into(),
            pass: !passing_cpus.is_empty(),
        },
    ]
}
