//! `lisa/tests/scheduler/eas_behaviour.py`'s pass rules.
//!
//! `test_task_placement(energy_est_threshold_pct)`: the workload's expected per-task
//! utilization over time (`_get_expected_task_utils_df()`: each phase's duty cycle x 1024 / 100)
//! is placed twice: optimally (`_get_expected_power_df()`: at each change of the tasks'
//! utilizations, [`LisaEm::optimal`]'s power), and where the trace put the tasks
//! (`_get_estimated_power_df()`: each task counted on the CPU it last switched in on, from the
//! first switch of any of its tasks, [`LisaEm::estimate_from_cpu_util`]). Each power series is
//! integrated with the left-rectangle rule (`area_under_curve(method='rect')`); the test passes
//! when the observed placement's energy is below `optimal x (1 + threshold / 100)`.
//!
//! `test_slack(negative_slack_allowed_pct = 15)`: per task, the share of its activations whose
//! rt-app slack was negative; the test fails when any task's share exceeds the allowance.

use super::em::LisaEm;
use super::rta::Task;
use super::{CheckLine, Timeline};

/// Left-rectangle integral of `(t ns, value)` rows, in value x seconds.
pub fn area_rect(rows: &[(u64, f64)]) -> f64 {
    rows.windows(2)
        .map(|w| w[0].1 * (w[1].0.saturating_sub(w[0].0)) as f64 / 1e9)
        .sum()
}

/// Each task's expected utilization at each of its transitions, as `(t ns from the start, per
/// task utils)` rows, forward-filled (a task before its first transition counts 0).
pub fn expected_rows(tasks: &[Task]) -> Vec<(u64, Vec<f64>)> {
    let mut times: Vec<u64> = tasks
        .iter()
        .flat_map(|t| t.expected_utils().into_iter().map(|(us, _)| us * 1000))
        .collect();
    times.sort_unstable();
    times.dedup();
    let series: Vec<Vec<(u64, f64)>> = tasks
        .iter()
        .map(|t| {
            t.expected_utils()
                .into_iter()
                .map(|(us, u)| (us * 1000, u))
                .collect()
        })
        .collect();
    times
        .into_iter()
        .map(|t| {
            let utils = series.iter().map(|s| util_at(s, t)).collect();
            (t, utils)
        })
        .collect()
}

/// The value of a step series at `t`: the last row at or before it (the last of equal times).
fn util_at(s: &[(u64, f64)], t: u64) -> f64 {
    s.iter()
        .take_while(|r| r.0 <= t)
        .last()
        .map_or(0.0, |r| r.1)
}

/// The optimal placement's energy over the expected utilizations.
pub fn optimal_energy(em: &LisaEm, tasks: &[Task]) -> Option<f64> {
    let mut rows = Vec::new();
    for (t, utils) in expected_rows(tasks) {
        let (p, _) = em.optimal(&utils)?;
        rows.push((t, p));
    }
    Some(area_rect(&rows))
}

/// The observed placement's energy: `placements` are `(t ns, profile task, cpu)` switch-ins,
/// time-ordered; `start` the first of them.
pub fn observed_energy(
    em: &LisaEm,
    tasks: &[Task],
    start: u64,
    placements: &[(u64, usize, usize)],
) -> f64 {
    let expected = expected_rows(tasks);
    let mut times: Vec<u64> = expected.iter().map(|r| r.0 + start).collect();
    times.extend(placements.iter().map(|p| p.0));
    times.sort_unstable();
    times.dedup();
    let n = em.cpus.len();
    let mut cpu_of: Vec<Option<usize>> = vec![None; tasks.len()];
    let mut pi = 0;
    let mut ei = 0;
    let mut rows = Vec::with_capacity(times.len());
    let mut utils = vec![0.0; tasks.len()];
    for t in times {
        while pi < placements.len() && placements[pi].0 <= t {
            let (_, k, c) = placements[pi];
            cpu_of[k] = Some(c);
            pi += 1;
        }
        while ei < expected.len() && expected[ei].0 + start <= t {
            utils.clone_from(&expected[ei].1);
            ei += 1;
        }
        let mut cpu_utils = vec![0.0; n];
        for (k, c) in cpu_of.iter().enumerate() {
            if let Some(c) = *c {
                if c < n {
                    cpu_utils[c] += utils[k];
                }
            }
        }
        rows.push((t, em.estimate_from_cpu_util(&cpu_utils)));
    }
    area_rect(&rows)
}

/// The placement rule's verdict from the two energies.
pub fn placement_line(variant: &str, observed: f64, optimal: f64, threshold_pct: f64) -> CheckLine {
    let limit = optimal * (1.0 + threshold_pct / 100.0);
    CheckLine {
        variant: variant.into(),
        rule: "test_task_placement".into(),
        subject: format!("threshold {limit:.3}"),
        observed,
        expected: optimal,
        margin: format!("{threshold_pct}%"),
        unit: "bogo-J".into(),
        pass: observed < limit,
    }
}

pub fn test_task_placement(
    variant: &str,
    em: &LisaEm,
    tasks: &[Task],
    tl: &Timeline,
    threshold_pct: f64,
) -> CheckLine {
    let mut placements: Vec<(u64, usize, usize)> = tl
        .runs
        .iter()
        .enumerate()
        .flat_map(|(k, r)| r.iter().map(move |s| (s.start, k, s.cpu)))
        .collect();
    placements.sort_unstable();
    let Some(start) = tl.start() else {
        return CheckLine {
            pass: false,
            subject: "the tasks never ran".into(),
            ..placement_line(variant, f64::NAN, f64::NAN, threshold_pct)
        };
    };
    let observed = observed_energy(em, tasks, start, &placements);
    match optimal_energy(em, tasks) {
        Some(optimal) => placement_line(variant, observed, optimal, threshold_pct),
        None => CheckLine {
            pass: false,
            subject: "no placement fits (EnergyModelCapacityError)".into(),
            ..placement_line(variant, observed, f64::NAN, threshold_pct)
        },
    }
}

/// The share of negative slacks, %.
pub fn negative_pct(slacks: &[i64]) -> f64 {
    if slacks.is_empty() {
        return 0.0;
    }
    slacks.iter().filter(|&&s| s < 0).count() as f64 * 100.0 / slacks.len() as f64
}

pub fn test_slack(
    variant: &str,
    tasks: &[Task],
    tl: &Timeline,
    allowed_pct: f64,
) -> Vec<CheckLine> {
    tasks
        .iter()
        .enumerate()
        .map(|(k, t)| {
            let pct = negative_pct(&tl.slacks[k]);
            CheckLine {
                variant: variant.into(),
                rule: "test_slack".into(),
                subject: format!("{} delayed activations of {}", t.name, tl.slacks[k].len()),
                observed: pct,
                expected: 0.0,
                margin: format!("{allowed_pct}%"),
                unit: "%".into(),
                pass: pct <= allowed_pct,
            }
        })
        .collect()
}
