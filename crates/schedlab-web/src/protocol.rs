//! The messages between the page and its Web Workers.
//!
//! The page talks to three workers, each through its own bridge: the *job* worker runs a
//! scenario's plan and sends back progress and comparison tables; the *detail* worker records one
//! run traced and answers questions about it (its timeline, pages of its decision log, its ftrace
//! text); the *check* worker builds the edited forms into a scenario with the core's validation and
//! the variants' sched domains ([`crate::draft::check`]). So looking into a run never waits for a
//! sweep, editing never waits for either, and a sweep never waits for a trace.
//!
//! Core values (the scenario, tables) cross the boundary as JSON text rather than through the
//! agent's binary codec: the core's serde shapes use tagged enums a non-self-describing format
//! cannot decode, and JSON with `float_roundtrip` gives back the exact f64 bits (checked by a test
//! below), so the page's numbers equal the CLI's. The page never builds a topology, a kernel
//! configuration, sched domains or a `Plan`, and never runs the model: that code lives only in the
//! worker's wasm, which keeps the page's wasm small.
//!
//! Every message carries the job id it belongs to; the page ignores messages of any job but its
//! current one, so a late answer of a cancelled or superseded request never leaks into a new one.

use schedlab_core::experiment::{Quantity, Scenario};
use schedlab_core::table::ComparisonTable;
use schedlab_core::trace::file::FileFormat;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::draft::check::{Checked, Forms};
use crate::results::ResultsVm;
use crate::runview::{DecisionPageVm, DecisionQuery, RunDetailVm, RunPick};

/// From the page to a worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ToWorker {
    /// The first message on a bridge: the `BroadcastChannel` on which the worker reports a
    /// panic ([`crate::crash`]).
    Connect { crash_channel: String },
    /// To the job worker, after `Connect`: the helper job workers of [`crate::pool`], spawned
    /// from the worker script at `script_url` (absolute: a worker's own address is a `blob:`
    /// one) when the first job has its first results or the job worker has waited a while for
    /// one (see [`crate::pool`]). `workers` is how
    /// many job workers run a sweep: 0 for as many as `navigator.hardwareConcurrency`, capped at
    /// `pool::MAX_JOB_WORKERS`; 1 runs it in the job worker itself, as before there was a pool.
    Pool { script_url: String, workers: usize },
    /// To a helper job worker ([`crate::pool`]): the scenario of `job`, whose runs follow one
    /// `RunIndex` at a time; the helper builds its plan once.
    Share { job: u64, scenario_json: String },
    /// To a helper job worker: run plan index `index` of `job` (its `Share`d scenario) and
    /// answer with its `Record` (or `Failed`); skipped if `job` was cancelled meanwhile.
    RunIndex { job: u64, index: usize },
    /// Run every plan index of `scenario_json` in order, posting progress and (at most every
    /// `agent::TABLE_EVERY_MS`) the comparison table of the runs done so far, and stop early when a
    /// `Cancel` arrives (the worker looks for one between runs).
    /// The tables report `quantity` of each run (`schedlab run --report`).
    Start {
        job: u64,
        scenario_json: String,
        #[serde(with = "quantity_name")]
        quantity: Quantity,
    },
    /// The table of another quantity of the runs of `job`, the worker's last job (answered with a
    /// `Table`), without running them again.
    Retable {
        job: u64,
        #[serde(with = "quantity_name")]
        quantity: Quantity,
    },
    /// Stop the running job after the run in progress.
    Cancel { job: u64 },
    /// Run the whole plan without yielding or posting per-run results, and report the wall time
    /// measured inside the worker (`cargo xtask bench`).
    Bench { job: u64, scenario_json: String },
    /// [`ToWorker::Bench`] of a scenario the worker opens itself by [`Opening::open`], as the
    /// check worker opens a `?scenario=` name the page's list lacks: `cargo xtask bench` runs the
    /// bench matrix's cells (`schedlab_core::bench`) one after another in one page
    /// (`window.schedlabBench(name)`), none of which is in the page's wasm.
    BenchOpening { job: u64, opening: Opening },
    /// Record one run traced; the worker keeps the trace for the `Decisions` and `Ftrace`
    /// requests that follow, and answers with its detail (timeline, counters, log size).
    Trace {
        job: u64,
        scenario_json: String,
        pick: RunPick,
    },
    /// A page of the kept trace's decision log.
    Decisions { job: u64, query: DecisionQuery },
    /// The kept trace as ftrace text (what `schedlab trace` prints).
    Ftrace { job: u64 },
    /// The kept trace's run as a file for Perfetto or LISA (what `schedlab trace --format
    /// perfetto|trace-cmd` writes), recorded again with signals.
    TraceFile { job: u64, format: FileFormat },
    /// Build the draft's forms (`forms_json` is a [`Forms`]) into a scenario and the sched
    /// domains of its variants, and with `estimate` its cost (a probe run: `Page::needs_cost`);
    /// `job` is the draft's revision.
    Check {
        job: u64,
        forms_json: String,
        estimate: bool,
    },
    /// Make the share link of `scenario_json` (`link::encode`: answered with `Linked`). The
    /// check worker compresses and the page does not, so DEFLATE stays out of the page's wasm.
    Link { job: u64, scenario_json: String },
    /// Open a share link's payload (`link::decode`: answered with `Opened`): inflating it is
    /// the check worker's, like making it.
    OpenLink { job: u64, opening: Opening },
    /// Panic inside the worker on purpose: the end-to-end tests check that a crashed worker
    /// leaves the page usable (`window.schedlabCrashWorker()`).
    Crash { job: u64 },
}

impl ToWorker {
    /// The job a request belongs to (`Connect` belongs to none).
    pub fn job(&self) -> Option<u64> {
        match self {
            ToWorker::Connect { .. } | ToWorker::Pool { .. } => None,
            ToWorker::Start { job, .. }
            | ToWorker::Share { job, .. }
            | ToWorker::RunIndex { job, .. }
            | ToWorker::Cancel { job }
            | ToWorker::Retable { job, .. }
            | ToWorker::Bench { job, .. }
            | ToWorker::BenchOpening { job, .. }
            | ToWorker::Trace { job, .. }
            | ToWorker::Decisions { job, .. }
            | ToWorker::Ftrace { job }
            | ToWorker::TraceFile { job, .. }
            | ToWorker::Check { job, .. }
            | ToWorker::Link { job, .. }
            | ToWorker::OpenLink { job, .. }
            | ToWorker::Crash { job } => Some(*job),
        }
    }
}

/// From a worker to the page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum FromWorker {
    /// The plan was built: `total` runs will follow unless cancelled, on `workers` job workers
    /// ([`crate::pool`]; 1 when the job worker runs them itself).
    Planned {
        job: u64,
        total: usize,
        workers: usize,
    },
    /// `done` runs of the job have finished.
    Progress { job: u64, done: usize },
    /// The comparison table of the `done` runs finished so far as the page draws it
    /// (`results_json` is a [`ResultsVm`], built from the core's [`ComparisonTable`]: its results
    /// files are exactly what `schedlab run --format json|csv --report <quantity>` prints for them).
    Table {
        job: u64,
        done: usize,
        results_json: String,
    },
    /// From a helper job worker to the job worker ([`crate::pool`]): run `index` of `job` as a
    /// records line (`records::RunRecord::to_line`: every field of the run's result, floats
    /// read back exactly), which the job worker tables by index as if it had run it itself.
    Record {
        job: u64,
        index: usize,
        line: String,
    },
    /// All runs of the job finished (the last `Table` came before this).
    Done { job: u64, elapsed_ms: f64 },
    /// The job stopped on request after `done` runs.
    Cancelled { job: u64, done: usize },
    /// The scenario, a run or a request failed; the message is the core's error text. A worker
    /// that panicked reports through [`crate::crash`] instead, with the same shape.
    Failed { job: u64, message: String },
    /// A bench job finished: `runs` runs in `elapsed_ms` of wall time inside the worker, with
    /// `events` simulation events in all.
    BenchDone {
        job: u64,
        runs: usize,
        elapsed_ms: f64,
        busy_cpu_ns: u64,
        sim_ns: u64,
        events: u64,
    },
    /// A traced run: `detail_json` is a [`RunDetailVm`].
    Traced { job: u64, detail_json: String },
    /// `page_json` is a [`DecisionPageVm`].
    DecisionPage { job: u64, page_json: String },
    /// The traced run as ftrace text.
    FtraceText { job: u64, text: String },
    /// The traced run as a file in `format` (its bytes, as the CLI writes them).
    TraceFile {
        job: u64,
        format: FileFormat,
        bytes: Vec<u8>,
    },
    /// The answer to a `Check`: `checked_json` is a [`Checked`].
    Checked { job: u64, checked_json: String },
    /// The answer to a `Link`: what follows `#s=` in the scenario's share link.
    Linked { job: u64, payload: String },
    /// The answer to an `OpenLink`: the link's scenario (compact scenario JSON), or why it
    /// cannot be opened (`LinkError`'s message).
    Opened {
        job: u64,
        opened: Result<String, String>,
    },
}

impl FromWorker {
    pub fn job(&self) -> u64 {
        match self {
            FromWorker::Planned { job, .. }
            | FromWorker::Progress { job, .. }
            | FromWorker::Table { job, .. }
            | FromWorker::Record { job, .. }
            | FromWorker::Done { job, .. }
            | FromWorker::Cancelled { job, .. }
            | FromWorker::Failed { job, .. }
            | FromWorker::BenchDone { job, .. }
            | FromWorker::Traced { job, .. }
            | FromWorker::DecisionPage { job, .. }
            | FromWorker::FtraceText { job, .. }
            | FromWorker::TraceFile { job, .. }
            | FromWorker::Checked { job, .. }
            | FromWorker::Linked { job, .. }
            | FromWorker::Opened { job, .. } => *job,
        }
    }
}

/// The scenario file format of the CLI, so a job is a scenario file; compact (the page's wasm
/// then carries one JSON writer for scenarios, the share links'; the pretty `Scenario::to_json`
/// of the files to download is written by the job worker, `results::FinishedVm`).
pub fn encode_scenario(scenario: &Scenario) -> String {
    serde_json::to_string(scenario).expect("a scenario always serializes")
}

pub fn decode_scenario(json: &str) -> Result<Scenario, String> {
    Scenario::from_json(json).map_err(|e| e.to_string())
}

/// A [`Quantity`] crosses as its name: its own `Deserialize` also reads the older object form,
/// through `deserialize_any`, which the agent's binary codec cannot serve (the worker would panic
/// on every `Start`).
mod quantity_name {
    use schedlab_core::experiment::Quantity;
    use serde::{de, Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(q: &Quantity, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(q.name())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Quantity, D::Error> {
        let name = String::deserialize(d)?;
        Quantity::from_name(&name)
            .ok_or_else(|| de::Error::custom(format!("unknown quantity `{name}`")))
    }
}

/// A value that crosses as JSON text (see the module's comment), and what an error calls it.
pub trait Wire: Serialize + DeserializeOwned {
    const WHAT: &'static str;
}

impl Wire for ComparisonTable {
    const WHAT: &'static str = "comparison table";
}

impl Wire for ResultsVm {
    const WHAT: &'static str = "results";
}

impl Wire for RunDetailVm {
    const WHAT: &'static str = "run detail";
}

impl Wire for DecisionPageVm {
    const WHAT: &'static str = "decision log page";
}

impl Wire for Forms {
    const WHAT: &'static str = "draft forms";
}

impl Wire for Checked {
    const WHAT: &'static str = "check answer";
}

pub fn encode<T: Wire>(value: &T) -> String {
    // Plain data with string keys: serde_json cannot fail on it.
    serde_json::to_string(value).unwrap_or_else(|e| panic!("a {} always serializes: {e}", T::WHAT))
}

pub fn decode<T: Wire>(json: &str) -> Result<T, String> {
    serde_json::from_str(json)
        .map_err(|e| format!("bad {} JSON across the worker boundary: {e}", T::WHAT))
}

/// What the check worker opens for the page's address: a share link's payload (`#s=`), or a
/// scenario name the page's own list does not hold, such as LISA's generated `lisa-*` scenarios
/// (`schedlab_core::check` builds them, which the page's wasm does not link), with the runs and
/// seed of the link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Opening {
    Share(String),
    Named {
        name: String,
        runs: Option<String>,
        seed: Option<String>,
    },
}

impl Opening {
    /// The check worker's side: the scenario, or why not (one line).
    pub fn open(&self) -> Result<Scenario, String> {
        match self {
            Opening::Share(payload) => crate::link::decode(payload).map_err(|e| e.to_string()),
            Opening::Named { name, .. } => match schedlab_core::check::scenario(name)
                .or_else(|| schedlab_core::bench::scenario(name))
            {
                Some(s) => s.map_err(|e| e.to_string()),
                None => schedlab_core::scenarios::builtin(name).map_err(|e| e.to_string()),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_core::experiment::Plan;

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
    fn a_table_with_its_extra_sections_survives_the_trip_back() {
        let mut s = schedlab_core::scenarios::builtin("power9-bigcore-asym-smt").unwrap();
        s.runs = 2;
        let plan = Plan::new(&s).unwrap();
        let results: Vec<_> = (0..plan.len()).map(|i| plan.run(i).unwrap()).collect();
        let table = plan.table(&results);
        assert!(!table.histogram.is_empty());
        assert_eq!(decode::<ComparisonTable>(&encode(&table)).unwrap(), table);
        assert!(decode::<ComparisonTable>("[]").is_err());
    }

    #[test]
    fn every_message_with_a_quantity_crosses_the_agents_binary_codec() {
        // What yew-agent's `Bincode` codec does, without its `JsValue`.
        let config = bincode::config::standard();
        for &quantity in Quantity::ALL {
            for m in [
                ToWorker::Start {
                    job: 1,
                    scenario_json: "{}".into(),
                    quantity,
                },
                ToWorker::Retable { job: 2, quantity },
            ] {
                let bytes = bincode::serde::encode_to_vec(&m, config).unwrap();
                let (back, _): (ToWorker, usize) =
                    bincode::serde::decode_from_slice(&bytes, config).unwrap();
                assert_eq!(back, m);
            }
        }
    }

    #[test]
    fn messages_know_their_job() {
        let m = FromWorker::Cancelled { job: 7, done: 3 };
        assert_eq!(m.job(), 7);
        let m = FromWorker::FtraceText {
            job: 9,
            text: String::new(),
        };
        assert_eq!(m.job(), 9);
    }

    #[test]
    fn a_bench_cell_is_opened_by_name_as_the_cli_opens_it() {
        // Not in the page's list, so a `?scenario=` link to it goes to the check worker, and
        // `window.schedlabBench(name)` to the job worker, both by `Opening::open`.
        assert!(schedlab_core::scenarios::builtin("bench-tbench-96").is_err());
        let named = |name: &str| Opening::Named {
            name: name.into(),
            runs: None,
            seed: None,
        };
        let s = named("bench-tbench-96").open().unwrap();
        assert_eq!(
            s,
            schedlab_core::bench::scenario("bench-tbench-96")
                .unwrap()
                .unwrap()
        );
        assert!(Plan::new(&s).is_ok());
        assert!(named("bench-tbench-97").open().is_err());
        let m = ToWorker::BenchOpening {
            job: 3,
            opening: named("bench-sysbench-8"),
        };
        // Across yew-agent's `Bincode` codec, as the other messages.
        let config = bincode::config::standard();
        let bytes = bincode::serde::encode_to_vec(&m, config).unwrap();
        let (back, _): (ToWorker, usize) =
            bincode::serde::decode_from_slice(&bytes, config).unwrap();
        assert_eq!(back, m);
        assert_eq!(m.job(), Some(3));
    }
}
