//! The Web Worker: everything that needs the simulation runs here, off the page's thread, and in
//! this wasm module only (the page's module never builds a plan, which keeps it small).
//!
//! A job runs on the job workers of [`crate::pool`] when the page has asked for more than one
//! (`ToWorker::Pool`): this worker then hands the runs out and tables them, and the same
//! `SimWorker` in each helper answers `Share` and `RunIndex`. With one job worker:
//!
//! A job runs a scenario's plan one index at a time. Between runs the worker yields to its event
//! loop (at most every [`YIELD_EVERY_MS`] of compute, to keep the cost of the timer negligible) and
//! looks for a `Cancel`; so a cancel takes effect after the run in progress, and the page never
//! waits on the model. The worker keeps the job's results and sends the core's comparison table
//! of them, as the page draws it (`results::ResultsVm`: the figures and files are built here, not
//! in the page's wasm), at most every [`TABLE_EVERY_MS`], and once more at the end, of the quantity
//! the job asked for (the workload's metric, energy, or performance per watt). It keeps the last job's runs
//! afterwards, so the page can switch the quantity without running them again (`Retable`).
//!
//! A check request builds a draft's forms into a scenario (`draft::check`), so the page's wasm
//! needs none of the core's builders. Share links are made and opened here too (`link::encode`,
//! `link::decode`), so the page's wasm carries no DEFLATE.
//!
//! A trace request records one run with its events and decision log and keeps it, to answer the
//! page's requests for pages of the log and for the ftrace text without running it again; a
//! Perfetto or trace-cmd file of it is the run recorded again with signals, encoded here.

use std::time::Duration;

use futures::{FutureExt, SinkExt, StreamExt};
use schedlab_core::experiment::{Plan, Quantity, RunResult};
use yew_agent::prelude::*;

use crate::crash;
use crate::draft;
use crate::link;
use crate::pool::{self, Helper, Pool};
use crate::protocol::{self, FromWorker, ToWorker};
use crate::results::ResultsVm;
use crate::runview::{self, decisions, Traced};

/// Longest stretch of runs between two looks at the inbox.
pub const YIELD_EVERY_MS: f64 = 20.0;
/// While a job runs, its table is sent at most this often.
pub const TABLE_EVERY_MS: f64 = 250.0;
/// While a job runs, its progress is sent at most this often (and at its last run): each one
/// re-renders the page on its thread, and E1's runs take a few ms each, several at once on
/// several job workers; 20 updates a second move the bar smoothly.
pub const PROGRESS_EVERY_MS: f64 = 50.0;

pub(crate) fn now_ms() -> f64 {
    js_sys::Date::now()
}

pub(crate) type Scope = ReactorScope<ToWorker, FromWorker>;

/// The last job's plan and the runs it finished (all, or those before a cancel), kept to table
/// another quantity of them on request.
pub(crate) struct Finished {
    pub(crate) job: u64,
    pub(crate) plan: Plan,
    pub(crate) results: Vec<RunResult>,
}

#[reactor]
pub async fn SimWorker(mut scope: Scope) {
    // A message that arrived while a job ran and was not a cancel of it: handled next.
    let mut pending: Option<ToWorker> = None;
    // The last traced run.
    let mut kept: Option<Traced> = None;
    // The last job's runs.
    let mut finished: Option<Finished> = None;
    // The job worker's helpers, once the page has sent `Pool` (see `pool`).
    let mut workers: Option<Pool> = None;
    // A helper's job (see `pool`).
    let mut helper = Helper::default();
    loop {
        let msg = match pending.take() {
            Some(m) => m,
            None => {
                let next = match workers.as_mut().filter(|pool| pool.waiting()) {
                    // Helpers not spawned yet: spawned when no job has come for a while.
                    Some(pool) => {
                        let idle = std::pin::pin!(yew::platform::time::sleep(
                            Duration::from_millis(pool::HELPERS_IDLE_START_MS.into())
                        ));
                        match futures::future::select(scope.next(), idle).await {
                            futures::future::Either::Left((m, _)) => m,
                            futures::future::Either::Right(_) => {
                                pool.start_helpers();
                                continue;
                            }
                        }
                    }
                    None => scope.next().await,
                };
                match next {
                    Some(m) => m,
                    None => return,
                }
            }
        };
        if let Some(job) = msg.job() {
            crash::set_job(job);
        }
        let reply = match msg {
            ToWorker::Connect { crash_channel } => {
                crash::set_channel(crash_channel);
                None
            }
            ToWorker::Pool {
                script_url,
                workers: n,
            } => {
                workers = Pool::new(&script_url, n);
                None
            }
            ToWorker::Share { job, scenario_json } => helper.share(job, &scenario_json),
            ToWorker::RunIndex { job, index } => helper.run(job, index),
            ToWorker::Cancel { job } => {
                helper.cancel(job); // a helper's queued runs of it; else nothing runs
                None
            }
            ToWorker::Crash { job } => crash_on_purpose(job),
            ToWorker::Bench { job, scenario_json } => Some(bench(job, &scenario_json)),
            ToWorker::BenchOpening { job, opening } => Some(match opening.open() {
                Ok(s) => bench(job, &protocol::encode_scenario(&s)),
                Err(message) => FromWorker::Failed { job, message },
            }),
            ToWorker::Start {
                job,
                scenario_json,
                quantity,
            } => {
                finished = None;
                pending = match &mut workers {
                    Some(pool) => {
                        pool::run_job(
                            &mut scope,
                            pool,
                            job,
                            &scenario_json,
                            quantity,
                            &mut finished,
                        )
                        .await
                    }
                    None => run_job(&mut scope, job, &scenario_json, quantity, &mut finished).await,
                };
                None
            }
            ToWorker::Retable { job, quantity } => Some(match &finished {
                Some(f) if f.job == job => {
                    table_message(job, &f.plan, &f.results, quantity, Stage::Stopped)
                }
                _ => FromWorker::Failed {
                    job,
                    message: "the runs of this job are no longer kept: press Run again".into(),
                },
            }),
            ToWorker::Trace {
                job,
                scenario_json,
                pick,
            } => Some(trace(job, &scenario_json, pick, &mut kept)),
            ToWorker::Decisions { job, query } => Some(match &kept {
                Some(t) => FromWorker::DecisionPage {
                    job,
                    page_json: protocol::encode(&decisions::page(&t.trace, &query)),
                },
                None => no_trace(job),
            }),
            ToWorker::Check {
                job,
                forms_json,
                estimate,
            } => Some(match protocol::decode(&forms_json) {
                Ok(forms) => FromWorker::Checked {
                    job,
                    checked_json: protocol::encode(&draft::check::check(&forms, estimate)),
                },
                Err(message) => FromWorker::Failed { job, message },
            }),
            ToWorker::Link { job, scenario_json } => {
                Some(match protocol::decode_scenario(&scenario_json) {
                    Ok(scenario) => FromWorker::Linked {
                        job,
                        payload: link::encode(&scenario),
                    },
                    Err(message) => FromWorker::Failed { job, message },
                })
            }
            ToWorker::OpenLink { job, opening } => Some(FromWorker::Opened {
                job,
                opened: opening.open().map(|s| protocol::encode_scenario(&s)),
            }),
            ToWorker::Ftrace { job } => Some(match &kept {
                Some(t) => FromWorker::FtraceText {
                    job,
                    text: t.ftrace(),
                },
                None => no_trace(job),
            }),
            ToWorker::TraceFile { job, format } => Some(match &kept {
                Some(t) => match t.file(format) {
                    Ok(bytes) => FromWorker::TraceFile { job, format, bytes },
                    Err(message) => FromWorker::Failed { job, message },
                },
                None => no_trace(job),
            }),
        };
        if let Some(reply) = reply {
            let _ = scope.send(reply).await;
        }
    }
}

fn no_trace(job: u64) -> FromWorker {
    FromWorker::Failed {
        job,
        message: "no run has been traced yet".into(),
    }
}

/// The page asked for a crash (`window.schedlabCrashWorker()`, for the end-to-end tests).
pub(crate) fn crash_on_purpose(job: u64) -> ! {
    panic!("a deliberate crash of the worker, asked for by the page (job {job})")
}

pub(crate) fn plan_of(scenario_json: &str) -> Result<Plan, String> {
    protocol::decode_scenario(scenario_json).and_then(|s| Plan::new(&s).map_err(|e| e.to_string()))
}

/// A job's start, whichever worker runs it: its plan, and `Planned` (runs, workers) to the page;
/// or `Failed` with the scenario's message and `None`.
pub(crate) async fn plan_and_announce(
    scope: &mut Scope,
    job: u64,
    scenario_json: &str,
    workers: usize,
) -> Option<Plan> {
    use futures::SinkExt;
    match plan_of(scenario_json) {
        Ok(plan) => {
            let total = plan.len();
            let _ = scope
                .send(FromWorker::Planned {
                    job,
                    total,
                    workers,
                })
                .await;
            Some(plan)
        }
        Err(message) => {
            let _ = scope.send(FromWorker::Failed { job, message }).await;
            None
        }
    }
}

/// Whether a table is of a job still running (table and means only) or of one that stopped
/// (with the per-run views and the results files: `ResultsVm::finished`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stage {
    Running,
    Stopped,
}

/// The table of `results` as the page draws it (`results::ResultsVm`).
pub(crate) fn table_message(
    job: u64,
    plan: &Plan,
    results: &[RunResult],
    quantity: Quantity,
    stage: Stage,
) -> FromWorker {
    let table = plan.table_of(results, quantity);
    let vm = match stage {
        Stage::Running => ResultsVm::running(&table),
        Stage::Stopped => ResultsVm::finished(&table, &plan.scenario).with_records(plan, results),
    };
    FromWorker::Table {
        job,
        done: results.len(),
        results_json: protocol::encode(&vm),
    }
}

/// Runs a job to its end, its cancel, or a message that supersedes it (returned, to be handled
/// next). Its plan and the runs it finished are left in `finished`.
async fn run_job(
    scope: &mut Scope,
    job: u64,
    scenario_json: &str,
    quantity: Quantity,
    finished: &mut Option<Finished>,
) -> Option<ToWorker> {
    let plan = plan_and_announce(scope, job, scenario_json, 1).await?;
    let total = plan.len();
    let start = now_ms();
    let mut last_yield = start;
    let mut last_table = f64::NEG_INFINITY;
    let mut last_progress = f64::NEG_INFINITY;
    let mut results: Vec<RunResult> = Vec::with_capacity(total);
    for index in 0..total {
        match plan.run(index) {
            Ok(result) => results.push(result),
            Err(e) => {
                if !results.is_empty() {
                    let _ = scope
                        .send(table_message(
                            job,
                            &plan,
                            &results,
                            quantity,
                            Stage::Stopped,
                        ))
                        .await;
                }
                let message = format!("run {index}: {e}");
                let _ = scope.send(FromWorker::Failed { job, message }).await;
                return None;
            }
        }
        let done = results.len();
        if done == total || now_ms() - last_progress >= PROGRESS_EVERY_MS {
            let _ = scope.send(FromWorker::Progress { job, done }).await;
            last_progress = now_ms();
        }
        if done < total && now_ms() - last_table >= TABLE_EVERY_MS {
            let _ = scope
                .send(table_message(
                    job,
                    &plan,
                    &results,
                    quantity,
                    Stage::Running,
                ))
                .await;
            last_table = now_ms();
        }
        if done < total && now_ms() - last_yield >= YIELD_EVERY_MS {
            // Let the worker's event loop deliver what the page sent.
            yew::platform::time::sleep(Duration::ZERO).await;
            last_yield = now_ms();
            while let Some(Some(m)) = scope.next().now_or_never() {
                match m {
                    ToWorker::Cancel { job: j } if j != job => {}
                    ToWorker::Connect { crash_channel } => crash::set_channel(crash_channel),
                    ToWorker::Crash { job } => crash_on_purpose(job),
                    other => {
                        // A cancel of this job, or a new request: this job stops here.
                        let _ = scope
                            .send(table_message(
                                job,
                                &plan,
                                &results,
                                quantity,
                                Stage::Stopped,
                            ))
                            .await;
                        let _ = scope.send(FromWorker::Cancelled { job, done }).await;
                        crash::set_job(other.job().unwrap_or(job));
                        *finished = Some(Finished { job, plan, results });
                        return (!matches!(other, ToWorker::Cancel { .. })).then_some(other);
                    }
                }
            }
        }
    }
    let _ = scope
        .send(table_message(
            job,
            &plan,
            &results,
            quantity,
            Stage::Stopped,
        ))
        .await;
    let elapsed_ms = now_ms() - start;
    let _ = scope.send(FromWorker::Done { job, elapsed_ms }).await;
    *finished = Some(Finished { job, plan, results });
    None
}

/// Records one run traced and keeps it.
fn trace(
    job: u64,
    scenario_json: &str,
    pick: runview::RunPick,
    kept: &mut Option<Traced>,
) -> FromWorker {
    let result = plan_of(scenario_json).and_then(|plan| runview::trace_run(&plan, pick));
    match result {
        Ok((detail, traced)) => {
            *kept = Some(traced);
            FromWorker::Traced {
                job,
                detail_json: protocol::encode(&detail),
            }
        }
        Err(message) => FromWorker::Failed { job, message },
    }
}

/// The whole plan in one go, without yielding and without posting results.
fn bench(job: u64, scenario_json: &str) -> FromWorker {
    let plan = match plan_of(scenario_json) {
        Ok(plan) => plan,
        Err(message) => return FromWorker::Failed { job, message },
    };
    let start = now_ms();
    let (mut busy_cpu_ns, mut sim_ns, mut events) = (0u64, 0u64, 0u64);
    for index in 0..plan.len() {
        match plan.run(index) {
            Ok(r) => {
                busy_cpu_ns += r.busy_cpu_ns;
                sim_ns += r.sim_ns;
                events += r.events;
            }
            Err(e) => {
                return FromWorker::Failed {
                    job,
                    message: format!("run {index}: {e}"),
                }
            }
        }
    }
    FromWorker::BenchDone {
        job,
        runs: plan.len(),
        elapsed_ms: now_ms() - start,
        busy_cpu_ns,
        sim_ns,
        events,
    }
}
