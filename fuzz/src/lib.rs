//! What the fuzz targets share: the small limits every input runs under, the bounded subset of a
//! plan's runs that is simulated, and the checks that turn a broken promise into a panic for
//! libFuzzer to report.
//!
//! The promise checked (ARCHITECTURE.md, "Invariants"): nothing reachable from a scenario panics,
//! hangs or exhausts memory; bad input comes back as an [`Error`] whose message is one line. A
//! checked run ([`Plan::run_checked`]) must also never report a broken engine invariant (an error
//! whose message starts with `invariant:`): that is the model's bug, not the input's.
//!
//! Panics, hangs (libFuzzer's `-timeout`) and OOMs (`-rss_limit_mb`) are found by libFuzzer
//! itself; the two error checks are assertions here.

pub mod dict;
pub mod structured;

use schedlab_core::engine::Limits;
use schedlab_core::experiment::{Plan, RunResult, Scenario};
use schedlab_core::Error;
use std::sync::OnceLock;

/// The limits an input runs under: an input's own limits may only lower them. Small, so that one
/// input stays well under libFuzzer's per-input timeout even verifying after every event.
pub const FUZZ_LIMITS: Limits = Limits {
    max_sim_seconds: 2,
    max_events: 200_000,
    max_tasks: 256,
};

/// Most runs one input simulates: every variant of the first run, up to this many, then the
/// plan's last run (the last parameter value and repetition).
pub const MAX_RUNS_PER_INPUT: usize = 3;

/// `limits` lowered to [`FUZZ_LIMITS`] field by field.
pub fn small_limits(limits: &Limits) -> Limits {
    Limits {
        max_sim_seconds: limits.max_sim_seconds.min(FUZZ_LIMITS.max_sim_seconds),
        max_events: limits.max_events.min(FUZZ_LIMITS.max_events),
        max_tasks: limits.max_tasks.min(FUZZ_LIMITS.max_tasks),
    }
}

/// The runs an input simulates, in order: indices `0..min(variants, MAX)` (each variant of the
/// first parameter value and repetition), then `len - 1` if not among them.
pub fn run_subset(len: usize, variants: usize) -> Vec<usize> {
    let mut runs: Vec<usize> = (0..len.min(variants).min(MAX_RUNS_PER_INPUT)).collect();
    if len > 0 && !runs.contains(&(len - 1)) {
        if runs.len() == MAX_RUNS_PER_INPUT {
            runs.pop();
        }
        runs.push(len - 1);
    }
    runs
}

/// Known findings a triage run may tolerate, from `SCHEDLAB_FUZZ_ALLOW` (comma-separated), so that
/// while one is open the fuzzer can look past it: `multiline` (an error message that spans
/// lines), `false-invariant` (a checked run reports a broken invariant where the unchecked run
/// gives another error: the engine's own error masked, fuzz-findings/false-invariant). Panics,
/// hangs and OOMs are never tolerated.
fn allowed(class: &str) -> bool {
    static ALLOW: OnceLock<Vec<String>> = OnceLock::new();
    ALLOW
        .get_or_init(|| {
            std::env::var("SCHEDLAB_FUZZ_ALLOW")
                .unwrap_or_default()
                .split(',')
                .map(|s| s.trim().to_string())
                .collect()
        })
        .iter()
        .any(|a| a == class)
}

/// An error from parsing or planning: its message must be one line.
pub fn check_error(stage: &str, e: &Error) {
    let text = e.to_string();
    assert!(
        !text.contains(['\n', '\r']) || allowed("multiline"),
        "{stage}: an error message spans lines: {text:?}"
    );
}

/// Whether `e` reports a broken engine invariant (`Plan::run_checked`'s `verify()`).
pub fn is_invariant(e: &Error) -> bool {
    matches!(e, Error::Scenario(m) if m.starts_with("invariant:"))
}

/// An error from checked run `index` of `plan`: one line, and not a broken engine invariant. The
/// report says what the unchecked run gives, which tells a false report (the engine's own error
/// masked by verifying a half-done event) from a true one.
pub fn check_run_error(plan: &Plan, index: usize, e: &Error) {
    check_error("run_checked", e);
    if is_invariant(e) {
        let unchecked = plan.run(index).map(|_| ());
        let masked = matches!(&unchecked, Err(u) if !is_invariant(u));
        if masked && allowed("false-invariant") {
            return;
        }
        panic!("run_checked({index}) reports a broken invariant: {e}; run({index}) gives {unchecked:?}");
    }
}

/// Plans `scenario` under [`FUZZ_LIMITS`], runs the subset of [`run_subset`] checked, and
/// renders the table of the runs that finished.
pub fn plan_and_run(scenario: &Scenario) {
    let mut scenario = scenario.clone();
    scenario.limits = small_limits(&scenario.limits);
    let plan = match Plan::new(&scenario) {
        Ok(p) => p,
        Err(e) => return check_error("Plan::new", &e),
    };
    let mut results: Vec<RunResult> = Vec::new();
    for i in run_subset(plan.len(), plan.variants.len()) {
        match plan.run_checked(i) {
            Ok(r) => results.push(r),
            Err(e) => check_run_error(&plan, i, &e),
        }
    }
    if !results.is_empty() {
        let table = plan.table(&results);
        let _ = table.to_text();
        let _ = table.extras_text();
        let _ = table.to_csv();
    }
}

/// The `scenario_json` target: a scenario file as `schedlab run FILE` reads it.
pub fn scenario_text(text: &str) {
    match Scenario::from_json(text) {
        Ok(s) => plan_and_run(&s),
        Err(e) => check_error("Scenario::from_json", &e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_only_go_down() {
        let l = small_limits(&Limits::default());
        assert_eq!(l, FUZZ_LIMITS);
        let tiny = Limits {
            max_sim_seconds: 1,
            max_events: 5,
            max_tasks: 300,
        };
        assert_eq!(
            small_limits(&tiny),
            Limits {
                max_sim_seconds: 1,
                max_events: 5,
                max_tasks: 256
            }
        );
    }

    #[test]
    fn the_subset_is_bounded_and_ends_with_the_last_run() {
        assert_eq!(run_subset(0, 1), Vec::<usize>::new());
        assert_eq!(run_subset(1, 1), [0]);
        assert_eq!(run_subset(2, 2), [0, 1]);
        assert_eq!(run_subset(10, 1), [0, 9]);
        assert_eq!(run_subset(3, 3), [0, 1, 2]);
        assert_eq!(run_subset(200_000, 5), [0, 1, 199_999]);
    }

    #[test]
    fn every_builtin_scenario_passes() {
        for b in schedlab_core::scenarios::BUILTIN {
            eprintln!("{}", b.name);
            plan_and_run(&schedlab_core::scenarios::builtin(b.name).unwrap());
        }
    }
}
