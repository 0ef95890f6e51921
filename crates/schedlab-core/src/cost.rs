//! What a plan will cost to run, estimated before running it, so that a page opened from a link
//! can run a small scenario at once and ask before a big one.
//!
//! The unit is the simulation event (what the engine's loop processes; `RunResult::events`):
//! deterministic, the same natively and in wasm, and what the CPU time of a run follows (about
//! 0.1-1.5 us each natively, by the machine's size). A run's events are not known before it
//! runs, so one run is probed: the last parameter value's first variant, repetition 0 (a
//! sweep's last value is, in every built-in, its biggest: most threads, groups or clients), run
//! under at most [`PROBE_MAX_EVENTS`] events. The estimate is its events times the plan's runs.
//! Simplification: repetitions and variants of one value are taken to cost what the probe did,
//! and smaller values as much as the last.

use crate::engine::Limits;
use crate::experiment::Plan;
use crate::Error;
use serde::{Deserialize, Serialize};

/// The probe stops here: a run bigger than this makes the plan big whatever else it holds.
/// **[assumed]** (a page parameter, not a model one): about half a second of the probe in a
/// browser's worker on a slow machine; the biggest probe of a built-in is ~2.0 M events
/// (`ivb-ep-hackbench`).
pub const PROBE_MAX_EVENTS: u64 = 4_000_000;

/// Plans estimated at no more events than this run at once on load. **[assumed]** (a page
/// parameter): a minute or two in a browser for the costliest events (a 48-CPU machine's);
/// every built-in as shipped is below it (the biggest estimate, ~33 M, is
/// `cascadelake-fi-tbench`).
pub const SMALL_EVENTS: u64 = 60_000_000;

/// A plan's estimated cost.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cost {
    /// The plan's runs.
    pub runs: usize,
    /// The probe's events; None when it reached [`PROBE_MAX_EVENTS`] (or another limit) first.
    pub probe_events: Option<u64>,
}

impl Cost {
    /// The estimated events of the whole plan; None when the probe did not finish.
    pub fn events(&self) -> Option<u64> {
        self.probe_events
            .map(|e| e.saturating_mul(self.runs as u64))
    }

    /// Small enough to run without asking.
    pub fn is_small(&self) -> bool {
        self.events().is_some_and(|e| e <= SMALL_EVENTS)
    }

    /// "about 12 M simulation events (40 runs)" and the like.
    pub fn text(&self) -> String {
        match self.events() {
            Some(e) => format!(
                "about {} simulation events ({} runs)",
                millions(e),
                self.runs
            ),
            None => format!(
                "more than {} simulation events per run ({} runs)",
                millions(PROBE_MAX_EVENTS),
                self.runs
            ),
        }
    }
}

fn millions(e: u64) -> String {
    if e >= 1_000_000 {
        format!("{:.1} M", e as f64 / 1e6)
    } else {
        format!("{} k", e.div_ceil(1000))
    }
}

/// The cost of `plan`: one probe run (see the module's comment). A probe that fails on a limit
/// makes the plan big, not an error: the real runs will say what went wrong.
pub fn estimate(plan: &Plan) -> Cost {
    let runs = plan.len();
    if runs == 0 {
        return Cost {
            runs,
            probe_events: Some(0),
        };
    }
    let per_param = plan.variants.len() * plan.scenario.runs as usize;
    let index = (plan.params.len() - 1) * per_param;
    let limits = Limits {
        max_events: plan.scenario.limits.max_events.min(PROBE_MAX_EVENTS),
        ..plan.scenario.limits
    };
    let probe_events = match plan.run_within(index, limits) {
        Ok(r) => Some(r.events),
        Err(Error::Limit(_)) | Err(_) => None,
    };
    Cost { runs, probe_events }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenarios;

    #[test]
    fn every_builtin_as_shipped_is_small() {
        for b in scenarios::BUILTIN {
            let plan = Plan::new(&scenarios::builtin(b.name).unwrap()).unwrap();
            let cost = estimate(&plan);
            assert!(cost.is_small(), "{}: {}", b.name, cost.text());
            assert_eq!(cost.runs, plan.len());
        }
    }

    #[test]
    fn many_runs_or_a_long_run_make_a_plan_big() {
        let mut s = scenarios::builtin("power9-bigcore-asym-smt").unwrap();
        s.runs = 1000;
        let cost = estimate(&Plan::new(&s).unwrap());
        assert!(!cost.is_small(), "{}", cost.text());
        assert!(cost.text().ends_with("(3000 runs)"), "{}", cost.text());
        // The same probe, and its cost scales with the runs.
        let mut one = s.clone();
        one.runs = 1;
        let small = estimate(&Plan::new(&one).unwrap());
        assert_eq!(small.probe_events, cost.probe_events);
        assert_eq!(small.events().unwrap() * 1000, cost.events().unwrap());
        // A probe that reaches its event cap: big, whatever the runs.
        let mut heavy = scenarios::builtin("ivb-ep-hackbench").unwrap();
        heavy.runs = 1;
        if let crate::workload::WorkloadSpec::Hackbench(h) = &mut heavy.workload {
            h.loops *= 10;
        }
        let cost = estimate(&Plan::new(&heavy).unwrap());
        assert_eq!(cost.probe_events, None, "{}", cost.text());
        assert!(!cost.is_small());
        assert!(
            cost.text().starts_with("more than 4.0 M"),
            "{}",
            cost.text()
        );
    }
}
