//! `schedlab._schedlab`: the native half of the Python package. Everything crosses as text the
//! core already writes (scenario JSON, run records, the CLI's table formats), so Python gets the
//! CLI's numbers to the last bit; the Python half (`schedlab/__init__.py`) turns them into tables
//! and DataFrames. The GIL is released while simulating.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use schedlab_core::experiment::{Plan, Quantity, RunResult, RunTrace, Scenario};
use schedlab_core::records::{self, Shard};
use schedlab_core::scenarios;
use schedlab_core::trace::{PrevState, TraceEvent};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// A core error as a Python `ValueError` with the CLI's message.
fn err(e: schedlab_core::Error) -> PyErr {
    PyValueError::new_err(e.to_string())
}

fn plan_of(scenario_json: &str) -> PyResult<Plan> {
    let s = Scenario::from_json(scenario_json).map_err(err)?;
    Plan::new(&s).map_err(err)
}

/// The built-in scenarios: (name, title).
#[pyfunction]
fn builtins() -> Vec<(&'static str, &'static str)> {
    scenarios::BUILTIN
        .iter()
        .map(|b| (b.name, b.title))
        .collect()
}

/// The suites (several scenarios, one experiment): (name, member names).
#[pyfunction]
fn suites() -> Vec<(&'static str, Vec<&'static str>)> {
    scenarios::SUITES
        .iter()
        .map(|(name, members)| (*name, members.to_vec()))
        .collect()
}

/// A built-in scenario as JSON (what `schedlab show NAME` prints).
#[pyfunction]
fn show(name: &str) -> PyResult<String> {
    Ok(scenarios::builtin(name).map_err(err)?.to_json())
}

/// The members of a suite or built-in scenario, as JSON each (`schedlab reproduce` expands them).
#[pyfunction]
fn expand(name: &str) -> PyResult<Vec<String>> {
    Ok(scenarios::expand(name)
        .map_err(err)?
        .iter()
        .map(Scenario::to_json)
        .collect())
}

/// The scenario hash that keys its run records (`schedlab show --hash`).
#[pyfunction]
fn scenario_hash(scenario_json: &str) -> PyResult<String> {
    let s = Scenario::from_json(scenario_json).map_err(err)?;
    Ok(records::scenario_hash(&s))
}

/// Runs in the scenario's plan (validating it).
#[pyfunction]
fn plan_len(scenario_json: &str) -> PyResult<usize> {
    Ok(plan_of(scenario_json)?.len())
}

/// The records header line of the scenario's plan (shard `(i, n)` if given).
#[pyfunction]
#[pyo3(signature = (scenario_json, shard=None))]
fn header(scenario_json: &str, shard: Option<(usize, usize)>) -> PyResult<String> {
    let plan = plan_of(scenario_json)?;
    let hash = plan.scenario_hash();
    Ok(records::header_line(
        &plan,
        &hash,
        shard.map(|(index, count)| Shard { index, count }),
    ))
}

/// Runs run `index` and returns its record line (what a Ray task returns).
#[pyfunction]
fn run_record(py: Python<'_>, scenario_json: &str, index: usize) -> PyResult<String> {
    let plan = plan_of(scenario_json)?;
    py.detach(|| {
        let hash = plan.scenario_hash();
        plan.run_record(index, &hash).map(|r| r.to_line())
    })
    .map_err(err)
}

/// Runs the plan's runs (those of shard `(i, n)` if given) on `jobs` threads and returns the
/// records file `schedlab run --format jsonl` writes.
#[pyfunction]
#[pyo3(signature = (scenario_json, shard=None, jobs=None))]
fn run_jsonl(
    py: Python<'_>,
    scenario_json: &str,
    shard: Option<(usize, usize)>,
    jobs: Option<usize>,
) -> PyResult<String> {
    let plan = plan_of(scenario_json)?;
    let shard = match shard {
        Some((i, n)) => Some(Shard::parse(&format!("{i}/{n}")).map_err(err)?),
        None => None,
    };
    py.detach(|| {
        let indices: Vec<usize> = match shard {
            Some(s) => s.runs(plan.len()).collect(),
            None => (0..plan.len()).collect(),
        };
        let results = run_indices(&plan, &indices, jobs)?;
        Ok(records::to_jsonl(&plan, shard, &results))
    })
    .map_err(err)
}

/// As the CLI's runner: results in index order, a failure the lowest-indexed run's.
fn run_indices(
    plan: &Plan,
    indices: &[usize],
    jobs: Option<usize>,
) -> schedlab_core::Result<Vec<RunResult>> {
    let jobs = jobs
        .unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        })
        .clamp(1, 64);
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Vec::with_capacity(indices.len()));
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(&i) = indices.get(k) else {
                    break;
                };
                let r = plan.run(i);
                results.lock().unwrap().push((i, r));
            });
        }
    });
    let mut all = results.into_inner().unwrap();
    all.sort_by_key(|(i, _)| *i);
    all.into_iter().map(|(_, r)| r).collect()
}

/// `--report` as the CLI spells it.
fn quantity(report: Option<&str>) -> PyResult<Quantity> {
    Ok(match report {
        None | Some("value") => Quantity::Value,
        Some("energy") => Quantity::Energy,
        Some("power") => Quantity::Power,
        Some("perf-per-watt") => Quantity::PerfPerWatt,
        Some("busy-mhz") => Quantity::BusyMhz,
        Some(other) => {
            return Err(PyValueError::new_err(format!(
                "report {other:?}: one of value, energy, power, perf-per-watt, busy-mhz"
            )))
        }
    })
}

/// Merges records files (`[(name, text)]`) and prints the table as `schedlab merge --format F
/// --report R` does (`table`, `json`, `csv`, `jsonl`), byte for byte.
#[pyfunction]
#[pyo3(signature = (parts, format="json", report=None))]
fn merge(
    py: Python<'_>,
    parts: Vec<(String, String)>,
    format: &str,
    report: Option<&str>,
) -> PyResult<String> {
    let q = quantity(report)?;
    if !matches!(format, "table" | "json" | "csv" | "jsonl") {
        return Err(PyValueError::new_err(format!(
            "format {format:?}: one of table, json, csv, jsonl"
        )));
    }
    py.detach(|| {
        let named: Vec<(&str, &str)> = parts
            .iter()
            .map(|(n, t)| (n.as_str(), t.as_str()))
            .collect();
        let m = records::merge(&named).map_err(err)?;
        if format == "jsonl" {
            return Ok(records::to_jsonl(&m.plan, None, &m.results));
        }
        let table = m.plan.table_of(&m.results, q);
        Ok(match format {
            "table" => format!("{}{}", table.to_text(), table.extras_text()),
            "csv" => table.to_csv(),
            _ => format!("{}\n", serde_json::to_string_pretty(&table).unwrap()),
        })
    })
}

/// Records run `run` and returns (ftrace text, JSON `{event: [[field, column], ...]}`): the
/// columns LISA's `trace.df_event(NAME)` has, with `Time` in seconds.
#[pyfunction]
fn trace(py: Python<'_>, scenario_json: &str, run: usize) -> PyResult<(String, String)> {
    let plan = plan_of(scenario_json)?;
    py.detach(|| {
        let t = plan.run_traced(run).map_err(err)?;
        let frames = serde_json::to_string(&event_columns(&t)).unwrap();
        Ok((t.to_ftrace(), frames))
    })
}

/// The kernel's `prev_state` letters (`__trace_sched_switch_state()`), as the ftrace export.
fn prev_state(s: PrevState) -> &'static str {
    match s {
        PrevState::Idle => "R",
        PrevState::Preempted => "R+",
        PrevState::Sleeping => "S",
        PrevState::Exited => "X",
    }
}

/// Column-wise tables of a run's events, one per event name, with the kernel's field names and
/// trace-cmd's common fields `__cpu`, `__pid`, `__comm` (the task the CPU ran when it traced the
/// event, as the ftrace export's TASK-PID column has it).
fn event_columns(t: &RunTrace) -> Value {
    /// Columns of one event, in order.
    struct Frame {
        names: &'static [&'static str],
        cols: Vec<Vec<Value>>,
    }
    impl Frame {
        fn new(fields: &'static [&'static str]) -> Frame {
            Frame {
                names: fields,
                cols: vec![Vec::new(); fields.len()],
            }
        }
        fn push(&mut self, row: Vec<Value>) {
            for (c, v) in self.cols.iter_mut().zip(row) {
                c.push(v);
            }
        }
        /// `[[name, column], ...]`: a list, so the fields keep their order.
        fn into_value(self) -> Value {
            Value::Array(
                self.names
                    .iter()
                    .zip(self.cols)
                    .map(|(n, c)| json!([n, c]))
                    .collect(),
            )
        }
    }
    let mut switch = Frame::new(&[
        "Time",
        "__cpu",
        "__pid",
        "__comm",
        "prev_comm",
        "prev_pid",
        "prev_prio",
        "prev_state",
        "next_comm",
        "next_pid",
        "next_prio",
    ]);
    let wake_fields: &'static [&'static str] = &[
        "Time",
        "__cpu",
        "__pid",
        "__comm",
        "comm",
        "pid",
        "prio",
        "target_cpu",
    ];
    let mut waking = Frame::new(wake_fields);
    let mut idle = Frame::new(&["Time", "__cpu", "__pid", "__comm", "state", "cpu_id"]);
    let mut wakeup = Frame::new(wake_fields);
    let mut wakeup_new = Frame::new(wake_fields);
    let mut migrate = Frame::new(&[
        "Time", "__cpu", "__pid", "__comm", "comm", "pid", "prio", "orig_cpu", "dest_cpu",
    ]);
    let mut freq = Frame::new(&["Time", "__cpu", "__pid", "__comm", "state", "cpu_id"]);
    let comm = |task: Option<usize>| match task {
        Some(i) => (
            t.task_names
                .get(i)
                .map_or("task", String::as_str)
                .to_string(),
            i as u64 + 1,
        ),
        None => ("<idle>".to_string(), 0),
    };
    let secs = |ns: u64| json!(ns as f64 / 1e9);
    let mut current: Vec<Option<usize>> = Vec::new();
    for e in &t.events {
        match *e {
            TraceEvent::Switch {
                t: ts,
                cpu,
                prev,
                prev_state: st,
                next,
            } => {
                if current.len() <= cpu {
                    current.resize(cpu + 1, None);
                }
                current[cpu] = next;
                let (pc, pp) = comm(prev);
                let (nc, np) = comm(next);
                switch.push(vec![
                    secs(ts),
                    json!(cpu),
                    json!(pp),
                    json!(pc),
                    json!(pc),
                    json!(pp),
                    json!(120),
                    json!(prev_state(st)),
                    json!(nc),
                    json!(np),
                    json!(120),
                ]);
            }
            TraceEvent::Wakeup {
                t: ts,
                task,
                cpu,
                new,
            } => {
                let (c, p) = comm(Some(task));
                let row = vec![
                    secs(ts),
                    json!(cpu),
                    json!(p),
                    json!(c),
                    json!(c),
                    json!(p),
                    json!(120),
                    json!(cpu),
                ];
                if new {
                    wakeup_new.push(row)
                } else {
                    wakeup.push(row)
                }
            }
            TraceEvent::Migrate {
                t: ts,
                cpu,
                task,
                from,
                to,
                ..
            } => {
                let (c, p) = comm(Some(task));
                let (mc, mp) = comm(current.get(cpu).copied().flatten());
                migrate.push(vec![
                    secs(ts),
                    json!(cpu),
                    json!(mp),
                    json!(mc),
                    json!(c),
                    json!(p),
                    json!(120),
                    json!(from),
                    json!(to),
                ]);
            }
            TraceEvent::Frequency { t: ts, domain, khz } => {
                for &cpu in t
                    .freq_domain_cpus
                    .get(domain)
                    .map_or(&[][..], Vec::as_slice)
                {
                    freq.push(vec![
                        secs(ts),
                        json!(cpu),
                        json!(0),
                        json!("<idle>"),
                        json!(khz),
                        json!(cpu),
                    ]);
                }
            }
            // sched_waking, cpu_idle and the signal events: not (yet) frames of this module.
            TraceEvent::Waking {
                t: ts,
                cpu,
                task,
                target_cpu,
            } => {
                let (c, p) = comm(Some(task));
                let (wc, wp) = comm(current.get(cpu).copied().flatten());
                waking.push(vec![
                    secs(ts),
                    json!(cpu),
                    json!(wp),
                    json!(wc),
                    json!(c),
                    json!(p),
                    json!(120),
                    json!(target_cpu),
                ]);
            }
            TraceEvent::Idle { t: ts, cpu, state } => {
                // `state` as the kernel's u32 prints it (PWR_EVENT_EXIT is 4294967295).
                idle.push(vec![
                    secs(ts),
                    json!(cpu),
                    json!(0),
                    json!("<idle>"),
                    json!(state),
                    json!(cpu),
                ]);
            }
            // The signal events (PELT, util_est, capacity, energy) come only from a run traced
            // with signals, which `trace()` does not ask for; rt-app's slack is schedlab's own.
            _ => {}
        }
    }
    json!({
        "sched_switch": switch.into_value(),
        "sched_waking": waking.into_value(),
        "sched_wakeup": wakeup.into_value(),
        "cpu_idle": idle.into_value(),
        "sched_wakeup_new": wakeup_new.into_value(),
        "sched_migrate_task": migrate.into_value(),
        "cpu_frequency": freq.into_value(),
    })
}

#[pymodule]
fn _schedlab(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("MODEL_VERSION", records::MODEL_VERSION)?;
    m.add_function(wrap_pyfunction!(builtins, m)?)?;
    m.add_function(wrap_pyfunction!(suites, m)?)?;
    m.add_function(wrap_pyfunction!(show, m)?)?;
    m.add_function(wrap_pyfunction!(expand, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_hash, m)?)?;
    m.add_function(wrap_pyfunction!(plan_len, m)?)?;
    m.add_function(wrap_pyfunction!(header, m)?)?;
    m.add_function(wrap_pyfunction!(run_record, m)?)?;
    m.add_function(wrap_pyfunction!(run_jsonl, m)?)?;
    m.add_function(wrap_pyfunction!(merge, m)?)?;
    m.add_function(wrap_pyfunction!(trace, m)?)?;
    Ok(())
}
