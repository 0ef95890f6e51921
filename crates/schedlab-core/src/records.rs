//! Run records: one JSON line per run (`schedlab run --format jsonl`), the raw data for pandas and
//! polars, and the unit in which a plan's runs are handed out and gathered again: by shards of a
//! Slurm array (`--shard I/N`), by Ray tasks (the Python package), or by the page's workers.
//!
//! A records file is a header line, then one line per run, in any order:
//!
//! ```text
//! {"schedlab_records":1,"model":"0.1.0","scenario_hash":"…","runs_total":12,"shard":[0,4],"scenario":{…}}
//! {"scenario_hash":"…","index":0,"variant":"v4.16","variant_index":0,"param_name":"threads","param":1,…}
//! ```
//!
//! The header carries the scenario as run (after `--runs` / `--seed`), so [`merge`] needs nothing
//! but the parts; the scenario hash ([`scenario_hash`]) keys every line, so parts of different
//! scenarios never mix. A record holds every field of [`RunResult`] (floats are written in their
//! shortest round-trip form and read back exactly), so the table of merged records is the table of
//! one unsharded run, byte for byte, in every format.

use crate::error::{Error, Result};
use crate::experiment::{Plan, RunResult, Scenario};
use crate::trace::Counters;
use serde::{Deserialize, Serialize};

/// The version of the records format ([`Header::schedlab_records`]).
pub const RECORDS_VERSION: u32 = 1;

/// The model's version, written in every header: records of another build of the model are
/// refused by [`merge`] (its numbers may differ).
pub const MODEL_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The stable hash of a scenario: SHA-256 of its canonical JSON, as 64 hex digits.
///
/// The canonical JSON is the scenario's compact serde serialization: fields in the order the
/// [`Scenario`] types declare them, no whitespace, object keys of free-form config patches sorted
/// (serde_json's map without `preserve_order`), floats in shortest round-trip form. So the same
/// scenario hashes the same whatever the layout or key order of the file it came from, natively,
/// in wasm and in the Python package. It is the scenario as run: `--runs` and `--seed` change it.
/// `schedlab show NAME --hash` prints it.
pub fn scenario_hash(scenario: &Scenario) -> String {
    let canonical = serde_json::to_string(scenario).expect("a scenario always serializes");
    crate::sha256::hex(canonical.as_bytes())
}

/// Which runs a shard takes: run `i` of the plan goes to shard `i % count`, as runs are handed to
/// the page's workers by index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    /// Parses `I/N` (0 <= I < N).
    pub fn parse(text: &str) -> Result<Shard> {
        let bad = || {
            Error::Scenario(format!(
                "--shard {text:?}: expected I/N with 0 <= I < N (shard I of N, counted from 0)"
            ))
        };
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        let index: usize = i.trim().parse().map_err(|_| bad())?;
        let count: usize = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// The run indices of this shard in a plan of `len` runs, ascending.
    pub fn runs(self, len: usize) -> impl Iterator<Item = usize> {
        (self.index..len).step_by(self.count)
    }
}

/// The first line of a records file.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Header {
    /// [`RECORDS_VERSION`].
    pub schedlab_records: u32,
    /// [`MODEL_VERSION`] of the build that ran the records.
    pub model: String,
    pub scenario_hash: String,
    /// Runs in the whole plan (all shards).
    pub runs_total: usize,
    /// `(I, N)` when the file holds shard I of N, absent for a whole plan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<(usize, usize)>,
    pub scenario: Scenario,
}

/// One run, as a line of a records file: its place in the plan by index and by name, and every
/// field of its [`RunResult`].
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RunRecord {
    pub scenario_hash: String,
    /// The run's index in the plan ([`Plan::run_ref`]).
    pub index: usize,
    pub variant: String,
    pub variant_index: usize,
    /// The swept parameter's name (`run` without a sweep) and this run's value of it.
    pub param_name: String,
    pub param: u64,
    pub param_index: usize,
    pub repetition: u32,
    pub seed: u64,
    /// The workload's metric.
    pub value: f64,
    /// Package energy over the measured interval, joules, and that interval, ns.
    pub energy_j: f64,
    pub energy_ns: u64,
    /// Average frequency while busy, MHz (turbostat's `Bzy_MHz`).
    pub busy_mhz: f64,
    pub sim_ns: u64,
    pub busy_cpu_ns: u64,
    pub events: u64,
    pub counters: Counters,
    /// Wake-up latency and runqueue wait per task name and the workload's own latency samples
    /// (histograms, sparse), so that merged parts tabulate latency percentiles as one run does.
    #[serde(default)]
    pub latency: crate::latency::LatencyReport,
}

impl RunRecord {
    /// The record of `result`, a run of `plan` whose scenario hashes to `hash`.
    pub fn new(plan: &Plan, hash: &str, result: &RunResult) -> RunRecord {
        RunRecord {
            scenario_hash: hash.to_string(),
            index: result.index,
            variant: plan.variants[result.variant].name.clone(),
            variant_index: result.variant,
            param_name: plan.param_name.clone(),
            param: plan.params[result.param_index],
            param_index: result.param_index,
            repetition: result.repetition,
            seed: result.seed,
            value: result.value,
            energy_j: result.energy_j,
            energy_ns: result.energy_ns,
            busy_mhz: result.busy_mhz,
            sim_ns: result.sim_ns,
            busy_cpu_ns: result.busy_cpu_ns,
            events: result.events,
            counters: result.counters.clone(),
            latency: result.latency.clone(),
        }
    }

    /// The run result this record was made from.
    pub fn to_result(&self) -> RunResult {
        RunResult {
            index: self.index,
            variant: self.variant_index,
            param_index: self.param_index,
            repetition: self.repetition,
            seed: self.seed,
            value: self.value,
            sim_ns: self.sim_ns,
            busy_cpu_ns: self.busy_cpu_ns,
            energy_j: self.energy_j,
            energy_ns: self.energy_ns,
            busy_mhz: self.busy_mhz,
            events: self.events,
            counters: self.counters.clone(),
            latency: self.latency.clone(),
        }
    }

    /// The record as one JSON line (no newline).
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).expect("a record always serializes")
    }
}

/// The header line of a records file of `plan` (no newline).
pub fn header_line(plan: &Plan, hash: &str, shard: Option<Shard>) -> String {
    let header = Header {
        schedlab_records: RECORDS_VERSION,
        model: MODEL_VERSION.to_string(),
        scenario_hash: hash.to_string(),
        runs_total: plan.len(),
        shard: shard.map(|s| (s.index, s.count)),
        scenario: plan.scenario.clone(),
    };
    serde_json::to_string(&header).expect("a header always serializes")
}

/// A whole records file: the header, then one line per result, each ending in a newline.
pub fn to_jsonl(plan: &Plan, shard: Option<Shard>, results: &[RunResult]) -> String {
    let hash = scenario_hash(&plan.scenario);
    let mut s = header_line(plan, &hash, shard);
    s.push('\n');
    for r in results {
        s.push_str(&RunRecord::new(plan, &hash, r).to_line());
        s.push('\n');
    }
    s
}

impl Plan {
    /// [`scenario_hash`] of the scenario as this plan runs it.
    pub fn scenario_hash(&self) -> String {
        scenario_hash(&self.scenario)
    }

    /// Runs run `index` and returns its record (`hash`: [`Plan::scenario_hash`], computed once by
    /// the caller).
    pub fn run_record(&self, index: usize, hash: &str) -> Result<RunRecord> {
        self.run(index).map(|r| RunRecord::new(self, hash, &r))
    }
}

/// Records gathered from one or more parts, checked to be exactly the runs of one plan.
#[derive(Debug)]
pub struct Merged {
    pub plan: Plan,
    /// Every run's result, in index order.
    pub results: Vec<RunResult>,
}

/// Reads the `"schedlab_records"` key only, to tell a header from a record.
#[derive(Deserialize)]
struct Probe {
    #[serde(default)]
    schedlab_records: Option<serde::de::IgnoredAny>,
}

/// Merges records files (`(name, text)`, the name for messages): each a header and its records,
/// in any order, lines written by [`to_jsonl`] (or by [`RunRecord::to_line`] after a
/// [`header_line`]). Refuses parts of different scenarios (hash) or model versions, records whose
/// run does not match the scenario's, a run given twice, and a plan with runs missing.
pub fn merge(parts: &[(&str, &str)]) -> Result<Merged> {
    let bad = |m: String| Error::Scenario(m);
    if parts.is_empty() {
        return Err(bad("merge needs at least one records file".into()));
    }
    let mut first: Option<(String, Header, Plan)> = None;
    let mut slots: Vec<Option<(RunResult, usize)>> = Vec::new();
    for (part, (name, text)) in parts.iter().enumerate() {
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty());
        let (_, head) = lines
            .next()
            .ok_or_else(|| bad(format!("{name}: empty (no records header)")))?;
        let header = read_header(name, head)?;
        let hash = match &first {
            None => {
                let plan = Plan::new(&header.scenario).map_err(|e| e.context(name))?;
                if plan.len() != header.runs_total {
                    return Err(bad(format!(
                        "{name}: the header says {} runs but its scenario has {}",
                        header.runs_total,
                        plan.len()
                    )));
                }
                slots = vec![None; plan.len()];
                let hash = header.scenario_hash.clone();
                first = Some((name.to_string(), header, plan));
                hash
            }
            Some((first_name, h, _)) => {
                if header.scenario_hash != h.scenario_hash {
                    return Err(bad(format!(
                        "{name} is from another scenario than {first_name}: scenario hash {} \
                         ('{}'), not {} ('{}'); merge only the parts of one run",
                        short(&header.scenario_hash),
                        header.scenario.name,
                        short(&h.scenario_hash),
                        h.scenario.name
                    )));
                }
                if header.model != h.model {
                    return Err(bad(format!(
                        "{name} was run by schedlab {}, {first_name} by {}: parts of different \
                         builds may not agree; rerun them with one build",
                        header.model, h.model
                    )));
                }
                header.scenario_hash
            }
        };
        let plan = &first.as_ref().expect("set above").2;
        for (line_no, line) in lines {
            let at = || format!("{name}:{}", line_no + 1);
            let probe: Probe = serde_json::from_str(line)
                .map_err(|e| bad(format!("{}: not a JSON record: {e}", at())))?;
            if probe.schedlab_records.is_some() {
                return Err(bad(format!(
                    "{}: a second records header (concatenated files?); give each part as its own file",
                    at()
                )));
            }
            let record: RunRecord = serde_json::from_str(line)
                .map_err(|e| bad(format!("{}: not a run record: {e}", at())))?;
            if record.scenario_hash != hash {
                return Err(bad(format!(
                    "{}: a record of another scenario (hash {}, the header's {})",
                    at(),
                    short(&record.scenario_hash),
                    short(&hash)
                )));
            }
            check_record(plan, &record).map_err(|m| bad(format!("{}: {m}", at())))?;
            match &slots[record.index] {
                Some((_, other)) => {
                    return Err(bad(if *other == part {
                        format!("run {} is twice in {name}", record.index)
                    } else if parts[*other].0 == *name {
                        format!("{name} is given twice (run {} again)", record.index)
                    } else {
                        let other = parts[*other].0;
                        format!("run {} is in both {other} and {name}", record.index)
                    }));
                }
                None => slots[record.index] = Some((record.to_result(), part)),
            }
        }
    }
    let (_, _, plan) = first.expect("at least one part");
    let missing: Vec<usize> = (0..slots.len()).filter(|&i| slots[i].is_none()).collect();
    if !missing.is_empty() {
        let shown: Vec<String> = missing.iter().take(10).map(|i| i.to_string()).collect();
        let more = if missing.len() > 10 {
            format!(" and {} more", missing.len() - 10)
        } else {
            String::new()
        };
        return Err(bad(format!(
            "{} of the plan's {} runs are missing: {}{more}; merge every shard",
            missing.len(),
            slots.len(),
            shown.join(", ")
        )));
    }
    let results = slots
        .into_iter()
        .map(|s| s.expect("none missing").0)
        .collect();
    Ok(Merged { plan, results })
}

/// The first 12 hex digits of a hash, for messages.
fn short(hash: &str) -> &str {
    hash.get(..12).unwrap_or(hash)
}

fn read_header(name: &str, line: &str) -> Result<Header> {
    let bad = |m: String| Error::Scenario(m);
    let probe: Probe = serde_json::from_str(line)
        .map_err(|e| bad(format!("{name}:1: not a JSON records header: {e}")))?;
    if probe.schedlab_records.is_none() {
        return Err(bad(format!(
            "{name}:1: not a records header (files written by `schedlab run --format jsonl` \
             start with one)"
        )));
    }
    let header: Header = serde_json::from_str(line)
        .map_err(|e| bad(format!("{name}:1: not a records header: {e}")))?;
    if header.schedlab_records != RECORDS_VERSION {
        return Err(bad(format!(
            "{name}: records format {}, this build reads {RECORDS_VERSION}",
            header.schedlab_records
        )));
    }
    let hash = scenario_hash(&header.scenario);
    if hash != header.scenario_hash {
        return Err(bad(format!(
            "{name}: its scenario hashes to {}, not the {} its header says (edited?)",
            short(&hash),
            short(&header.scenario_hash)
        )));
    }
    Ok(header)
}

/// A record's coordinates against the plan's run of the same index.
fn check_record(plan: &Plan, r: &RunRecord) -> std::result::Result<(), String> {
    if r.index >= plan.len() {
        return Err(format!(
            "run {} does not exist; the plan has {} runs",
            r.index,
            plan.len()
        ));
    }
    let (variant, param_index, repetition) = plan.run_ref(r.index);
    let expected = (
        variant,
        plan.variants[variant].name.as_str(),
        param_index,
        plan.params[param_index],
        repetition,
        plan.run_seed(param_index, repetition),
    );
    let got = (
        r.variant_index,
        r.variant.as_str(),
        r.param_index,
        r.param,
        r.repetition,
        r.seed,
    );
    if expected != got {
        return Err(format!(
            "run {} is (variant {:?}, {} {}, repetition {}, seed {}) in the scenario, the record \
             says (variant {:?}, {} {}, repetition {}, seed {})",
            r.index,
            expected.1,
            plan.param_name,
            expected.3,
            expected.4,
            expected.5,
            got.1,
            r.param_name,
            got.3,
            got.4,
            got.5
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
