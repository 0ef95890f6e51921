//! The Web Worker: runs a scenario's plan one index at a time, off the page's thread.
//!
//! Between runs it yields to the worker's event loop (at most every [`YIELD_EVERY_MS`] of compute,
//! to keep the cost of the timer negligible) and looks for a `Cancel`; so a cancel takes effect
//! after the run in progress, and the page never waits on the model.

use std::time::Duration;

use futures::{FutureExt, SinkExt, StreamExt};
use schedlab_core::experiment::Plan;
use yew_agent::prelude::*;

use crate::protocol::{self, FromWorker, ToWorker};

/// Longest stretch of runs between two looks at the inbox.
pub const YIELD_EVERY_MS: f64 = 20.0;

fn now_ms() -> f64 {
    js_sys::Date::now()
}

#[reactor]
pub async fn SimWorker(mut scope: ReactorScope<ToWorker, FromWorker>) {
    // A message that arrived while a job ran and was not a cancel of it: handled next.
    let mut pending: Option<ToWorker> = None;
    loop {
        let msg = match pending.take() {
            Some(m) => m,
            None => match scope.next().await {
                Some(m) => m,
                None => return,
            },
        };
        match msg {
            ToWorker::Cancel { .. } => {} // nothing running
            ToWorker::Bench { job, scenario_json } => {
                let out = bench(job, &scenario_json);
                let _ = scope.send(out).await;
            }
            ToWorker::Start { job, scenario_json } => {
                let plan = match protocol::decode_scenario(&scenario_json)
                    .and_then(|s| Plan::new(&s).map_err(|e| e.to_string()))
                {
                    Ok(plan) => plan,
                    Err(message) => {
                        let _ = scope.send(FromWorker::Failed { job, message }).await;
                        continue;
                    }
                };
                let total = plan.len();
                let _ = scope.send(FromWorker::Planned { job, total }).await;
                let start = now_ms();
                let mut last_yield = start;
                let mut finished = true;
                for index in 0..total {
                    match plan.run(index) {
                        Ok(result) => {
                            let result_json = protocol::encode_result(&result);
                            let _ = scope
                                .send(FromWorker::Result {
                                    job,
                                    index,
                                    result_json,
                                })
                                .await;
                        }
                        Err(e) => {
                            let message = format!("run {index}: {e}");
                            let _ = scope.send(FromWorker::Failed { job, message }).await;
                            finished = false;
                            break;
                        }
                    }
                    if index + 1 < total && now_ms() - last_yield >= YIELD_EVERY_MS {
                        // Let the worker's event loop deliver any message the page sent.
                        yew::platform::time::sleep(Duration::ZERO).await;
                        last_yield = now_ms();
                        if let Some(Some(m)) = scope.next().now_or_never() {
                            if !matches!(&m, ToWorker::Cancel { job: j } if *j != job) {
                                // A cancel of this job, or a new job: this one stops here.
                                let _ = scope
                                    .send(FromWorker::Cancelled {
                                        job,
                                        done: index + 1,
                                    })
                                    .await;
                                finished = false;
                                if !matches!(m, ToWorker::Cancel { .. }) {
                                    pending = Some(m);
                                }
                                break;
                            }
                        }
                    }
                }
                if finished {
                    let elapsed_ms = now_ms() - start;
                    let _ = scope.send(FromWorker::Done { job, elapsed_ms }).await;
                }
            }
        }
    }
}

/// The whole plan in one go, without yielding and without posting results.
fn bench(job: u64, scenario_json: &str) -> FromWorker {
    let plan = match protocol::decode_scenario(scenario_json)
        .and_then(|s| Plan::new(&s).map_err(|e| e.to_string()))
    {
        Ok(plan) => plan,
        Err(message) => return FromWorker::Failed { job, message },
    };
    let start = now_ms();
    let (mut busy_cpu_ns, mut sim_ns) = (0u64, 0u64);
    for index in 0..plan.len() {
        match plan.run(index) {
            Ok(r) => {
                busy_cpu_ns += r.busy_cpu_ns;
                sim_ns += r.sim_ns;
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
    }
}
