//! The messages between the page and its Web Worker.
//!
//! Core values (the scenario, run results) cross the boundary as JSON text rather than through the
//! agent's binary codec: the core's serde shapes may use features a non-self-describing format
//! cannot decode, and JSON with `float_roundtrip` gives back the exact f64 bits (checked by a test
//! below), so the page's numbers equal the CLI's.
//!
//! Every message carries the job id it belongs to; the page ignores messages of any job but its
//! current one, so a late result of a cancelled run never leaks into a new one.

use schedlab_core::experiment::{RunResult, Scenario};
use serde::{Deserialize, Serialize};

/// From the page to the worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ToWorker {
    /// Run every plan index of `scenario_json` in order, posting each result back, and stop early
    /// when a `Cancel` arrives (the worker looks for one between runs).
    Start { job: u64, scenario_json: String },
    /// Stop the running job after the run in progress.
    Cancel { job: u64 },
    /// Run the whole plan without yielding or posting per-run results, and report the wall time
    /// measured inside the worker (`cargo xtask bench`).
    Bench { job: u64, scenario_json: String },
}

/// From the worker to the page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum FromWorker {
    /// The plan was built: `total` runs will follow unless cancelled.
    Planned { job: u64, total: usize },
    /// One run finished (`result_json` is a [`RunResult`]).
    Result {
        job: u64,
        index: usize,
        result_json: String,
    },
    /// All runs of the job finished.
    Done { job: u64, elapsed_ms: f64 },
    /// The job stopped on request after `done` runs.
    Cancelled { job: u64, done: usize },
    /// The scenario or a run failed; the message is the core's error text.
    Failed { job: u64, message: String },
    /// A bench job finished: `runs` runs in `elapsed_ms` of wall time inside the worker.
    BenchDone {
        job: u64,
        runs: usize,
        elapsed_ms: f64,
        busy_cpu_ns: u64,
        sim_ns: u64,
    },
}

impl FromWorker {
    pub fn job(&self) -> u64 {
        match self {
            FromWorker::Planned { job, .. }
            | FromWorker::Result { job, .. }
            | FromWorker::Done { job, .. }
            | FromWorker::Cancelled { job, .. }
            | FromWorker::Failed { job, .. }
            | FromWorker::BenchDone { job, .. } => *job,
        }
    }
}

/// The scenario file format of the CLI (`Scenario::to_json`), so a job is a scenario file.
pub fn encode_scenario(scenario: &Scenario) -> String {
    scenario.to_json()
}

pub fn decode_scenario(json: &str) -> Result<Scenario, String> {
    Scenario::from_json(json).map_err(|e| e.to_string())
}

pub fn encode_result(result: &RunResult) -> String {
    serde_json::to_string(result).expect("a RunResult always serializes")
}

pub fn decode_result(json: &str) -> Result<RunResult, String> {
    serde_json::from_str(json).map_err(|e| format!("bad run result JSON: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f64_survives_the_json_round_trip_bit_for_bit() {
        // Values whose shortest decimal form is hard to parse back exactly without
        // `float_roundtrip`.
        let values = [
            0.1 + 0.2,
            8.86,
            1.0 / 3.0,
            2.2250738585072014e-308,
            9007199254740993.0,
            123_456.789_012_345_67,
            5e-324,
            f64::MAX,
            0.30000000000000004,
            18.860000000000003,
        ];
        for v in values {
            let text = serde_json::to_string(&v).unwrap();
            let back: f64 = serde_json::from_str(&text).unwrap();
            assert_eq!(v.to_bits(), back.to_bits(), "{v} -> {text} -> {back}");
        }
        // A sweep of awkward values.
        let mut x: u64 = 0x1234_5678_9abc_def0;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = f64::from_bits(x >> 2);
            if !v.is_finite() {
                continue;
            }
            let back: f64 = serde_json::from_str(&serde_json::to_string(&v).unwrap()).unwrap();
            assert_eq!(v.to_bits(), back.to_bits());
        }
    }

    #[test]
    fn a_builtin_scenario_survives_the_trip_to_the_worker() {
        for b in schedlab_core::scenarios::BUILTIN {
            let s = schedlab_core::scenarios::builtin(b.name).unwrap();
            let back = decode_scenario(&encode_scenario(&s)).unwrap();
            assert_eq!(encode_scenario(&back), encode_scenario(&s));
        }
        assert!(decode_scenario("{").is_err());
    }

    #[test]
    fn messages_know_their_job() {
        let m = FromWorker::Cancelled { job: 7, done: 3 };
        assert_eq!(m.job(), 7);
    }
}
