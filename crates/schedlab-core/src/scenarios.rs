//! The built-in reference experiments of shared/reference/platforms-and-experiments.md, as
//! scenario files (crates/schedlab-core/scenarios/*.json) compiled in: the same JSON a user can
//! `schedlab show`, edit and `schedlab run`.
//!
//! An experiment that measures several workloads (E2, E4) is a suite of scenarios.

use crate::error::{Error, Result};
use crate::experiment::{Quantity, Scenario};

pub struct BuiltinScenario {
    pub name: &'static str,
    pub title: &'static str,
    pub summary: &'static str,
    json: &'static str,
}

macro_rules! builtin {
    ($name:literal, $title:literal, $summary:literal) => {
        BuiltinScenario {
            name: $name,
            title: $title,
            summary: $summary,
            json: include_str!(concat!("../scenarios/", $name, ".json")),
        }
    };
}

pub const BUILTIN: &[BuiltinScenario] = &[
    builtin!(
        "hikey960-asym-packing",
        "E1: SD_ASYM_PACKING for DynamIQ on HiKey960",
        "sysbench-cpu, 1-8 threads, on HiKey960 CPUs in one DynamIQ MC domain: mainline places threads on big or \
         little CPUs by chance; with SD_ASYM_PACKING at MC and priority = capacity, idle big CPUs pull the work from \
         little ones."
    ),
    builtin!(
        "cascadelake-fi-tbench",
        "E2a: x86 frequency invariance, tbench",
        "tbench-like ping-pong, 1-384 clients, on a 96-CPU Cascade Lake: schedutil, intel_pstate HWP, and schedutil \
         with frequency invariance."
    ),
    builtin!(
        "cascadelake-fi-kernbench",
        "E2b: x86 frequency invariance, kernbench",
        "make -j 2-192 on a 96-CPU Cascade Lake: schedutil, intel_pstate HWP, and schedutil with frequency invariance."
    ),
    builtin!(
        "cascadelake-fi-gitsource",
        "E2c: x86 frequency invariance, gitsource",
        "git's test suite, a mostly serial chain of short processes: the lightest load, where invariance matters most."
    ),
    builtin!(
        "power9-bigcore-asym-smt",
        "E3: asym packing across POWER9 small cores",
        "ebizzy, 2 threads on one SMT8 big core: one SMT domain over 8 threads, with asym packing (lower thread \
         first), or small-core SMT domains. Records/s and its histogram."
    ),
    builtin!(
        "tc2-wakeup-sysbench",
        "E4a: asymmetric-capacity wake-up, sysbench",
        "sysbench-cpu 1 thread for 3 s on TC2: the 2016 series against the capacity-blind v4.9 wake-up path."
    ),
    builtin!(
        "tc2-wakeup-hackbench-a7",
        "E4b: asymmetric-capacity wake-up, hackbench on TC2's A7s",
        "hackbench on TC2's three A7s only: the 2016 series should be neutral."
    ),
    builtin!(
        "ivb-ep-hackbench",
        "E4c: asymmetric-capacity wake-up, hackbench on IVB-EP",
        "hackbench -g 50 on a symmetric 40-CPU Ivy Bridge-EP: the 2016 series should be neutral."
    ),
    builtin!(
        "tc2-wakeup-rtapp",
        "E4d: asymmetric-capacity wake-up, rt-app mix",
        "rt-app small and big periodic tasks on TC2, with the wake-up classification table."
    ),
    builtin!(
        "juno-use-all-littles",
        "E5: use all little CPUs for CPU-bound work",
        "6 CPU-bound tasks on Juno r2 after a pinned step: v6.7, the v1 migrate_task patch, and the merged \
         shr_bound form."
    ),
    builtin!(
        "cascadelake-schbench",
        "schbench on a 96-CPU Cascade Lake, v5.6 (CFS) and v6.8 (EEVDF)",
        "schbench defaults (1 message thread, 96 workers) for 10 s on Cascade Lake: v5.6 and v6.8 with \
         performance, v6.8 with schedutil: wake-up latency p99, request latency p99, RPS."
    ),
];

/// Experiments made of several scenarios.
pub const SUITES: &[(&str, &[&str])] = &[
    (
        "cascadelake-freq-invariance",
        &[
            "cascadelake-fi-tbench",
            "cascadelake-fi-kernbench",
            "cascadelake-fi-gitsource",
        ],
    ),
    (
        "tc2-asym-capacity-wakeup",
        &[
            "tc2-wakeup-sysbench",
            "tc2-wakeup-hackbench-a7",
            "ivb-ep-hackbench",
            "tc2-wakeup-rtapp",
        ],
    ),
];

/// What the cover letter of a built-in experiment reported besides the workload's metric: E2's
/// (the x86 frequency-invariance series, Jan 2020) gave package power from RAPL (turbostat) and
/// performance per watt for each benchmark. `schedlab reproduce` prints these tables after the
/// metric's.
pub fn cover_letter_reports(name: &str) -> &'static [Quantity] {
    match name {
        "cascadelake-fi-tbench" | "cascadelake-fi-kernbench" | "cascadelake-fi-gitsource" => {
            &[Quantity::Power, Quantity::PerfPerWatt]
        }
        // What schbench prints besides the wake-up latency, and the scheduler's own view.
        // p50 and p99.9 too: p99 is the C6 exit latency in every variant, the eras part below
        // and above it.
        "cascadelake-schbench" => &[
            Quantity::WakeupLatency(crate::latency::Pct::P50),
            Quantity::WakeupLatency(crate::latency::Pct::P999),
            Quantity::RequestLatency(crate::latency::Pct::P99),
            Quantity::Rps,
            Quantity::SchedLatency(crate::latency::Pct::P99),
        ],
        _ => &[],
    }
}

/// A built-in scenario. A suite's name is refused with its members named: `expand` opens a suite,
/// and only `reproduce` runs one, where every other command takes a single scenario.
pub fn builtin(name: &str) -> Result<Scenario> {
    if let Some((_, members)) = SUITES.iter().find(|s| s.0 == name) {
        return Err(Error::Scenario(format!(
            "'{name}' is a suite of {}: name one of them (`reproduce` runs a whole suite)",
            members.join(", ")
        )));
    }
    let b = BUILTIN
        .iter()
        .find(|b| b.name == name)
        .ok_or_else(|| Error::Unknown {
            kind: "scenario",
            name: name.into(),
            known: BUILTIN
                .iter()
                .map(|b| b.name.to_string())
                .chain(SUITES.iter().map(|s| s.0.to_string()))
                .collect(),
        })?;
    Scenario::from_json(b.json).map_err(|e| e.context(&format!("built-in scenario '{name}'")))
}

/// The scenarios of a built-in name: a suite's members, or the scenario itself.
pub fn expand(name: &str) -> Result<Vec<Scenario>> {
    match SUITES.iter().find(|s| s.0 == name) {
        Some((_, members)) => members.iter().map(|m| builtin(m)).collect(),
        None => Ok(vec![builtin(name)?]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::Plan;

    #[test]
    fn every_builtin_scenario_parses_and_plans_under_its_own_name() {
        for b in BUILTIN {
            let s = builtin(b.name).unwrap();
            assert_eq!(s.name, b.name);
            assert_eq!(s.title, b.title);
            Plan::new(&s).unwrap_or_else(|e| panic!("{}: {e}", b.name));
        }
        for (suite, members) in SUITES {
            assert_eq!(expand(suite).unwrap().len(), members.len());
        }
        assert!(builtin("nope")
            .unwrap_err()
            .to_string()
            .contains("cascadelake-freq-invariance"));
        // A suite's name is known, but not as one scenario: the error names its members.
        assert_eq!(
            builtin("cascadelake-freq-invariance").unwrap_err().to_string(),
            "invalid scenario: 'cascadelake-freq-invariance' is a suite of cascadelake-fi-tbench, \
             cascadelake-fi-kernbench, cascadelake-fi-gitsource: name one of them (`reproduce` runs \
             a whole suite)"
        );
    }
}
