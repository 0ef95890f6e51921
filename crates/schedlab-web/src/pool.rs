//! A sweep on all the machine's cores: the job worker hands a plan's runs out, one index at a
//! time, to helper job workers it spawns itself (nested dedicated workers, each the same
//! `worker.js` and its [`crate::agent::SimWorker`]), and tables what they send back by run index.
//!
//! - **Who runs what.** Once a helper has answered, the job worker ([`Pool`], the
//!   *coordinator*) runs no simulation: it stays free to answer the page at once (Cancel,
//!   progress, tables) and to hand out the next index the moment a helper finishes one. Each
//!   helper holds at most [`IN_FLIGHT`] indices (the one it runs and the next), so it never waits
//!   for the coordinator, and a slow run holds up only itself: there are no fixed shards. Until
//!   the first answer (on a page that just loaded, the helpers are still compiling their wasm)
//!   the coordinator runs indices itself, as one job worker does, so the first results come as
//!   soon as they would with one worker.
//! - **The same table to the last bit.** A helper sends each run as a records line
//!   (`records::RunRecord`, every field of the run's result, floats in shortest round-trip form
//!   and read back exactly: the records format `schedlab merge` gathers shards with). The
//!   coordinator keeps the results in slots by index and tables them in index order, so the
//!   table, the records JSONL, the mmtests text and the significance marks are the very bytes one
//!   worker gives, and the CLI's.
//! - **Progress** counts the runs done over the plan's total, across helpers.
//! - **Cancel** stops handing out indices, sends `Cancel` to every helper (each then skips what
//!   it holds of that job once it looks at its inbox, after the run in progress and at most one
//!   queued run), tables the runs done and says `Cancelled`; a helper's late answers of that job
//!   are ignored by job id, so the next Run starts clean.
//! - **A run's error** is said once: the first `Failed` of the job stops it as a cancel does, and
//!   the page gets the table of the runs done and that one message.
//! - **A helper's panic** is reported to the page by the helper itself (`crash`: the coordinator
//!   gives it its own crash channel), and the page replaces the job worker, which ends its
//!   helpers with it.
//!
//! **When the helpers start.** The page sends `ToWorker::Pool` as it connects; the helpers are
//! spawned when the first job has sent its first table ([`Pool::start_helpers`], mid-job: they
//! are told the job and handed indices as they come up), or once the job worker has waited
//! [`HELPERS_IDLE_START_MS`] with no job (the page is waiting for its visitor's Run), whichever
//! comes first. Each helper's start (its worker, its wasm compiled and instantiated) is ~0.2 s of
//! CPU; spawned with the page, on a 2-core machine, two of them competed with everything a link
//! waits for before its first results (the page's own start, the check worker's check and
//! probe run, the coordinator's first run) and held those results back by ~0.2 s. Their number
//! is [`job_workers`].

use futures::future::{select, select_all, Either};
use futures::StreamExt;
use schedlab_core::experiment::{Plan, Quantity, RunResult};
use schedlab_core::records::RunRecord;
use yew_agent::reactor::{ReactorBridge, ReactorSpawner};

use crate::agent::{self, Finished, SimWorker, Stage};
use crate::crash;
use crate::protocol::{FromWorker, ToWorker};

/// At most this many job workers run a sweep, whatever `navigator.hardwareConcurrency` says.
/// Each is a whole wasm instance (its own compiled module and heap) and each run it finishes is a
/// message the coordinator decodes and the page's thread is told of; past a handful of workers
/// a sweep of the page's size (E1: 512 runs of a few ms) gains little, while a many-core
/// visitor's tab would hold dozens of instances. 8 is **[assumed]**, not measured beyond the
/// 2-core machines this was built on.
pub const MAX_JOB_WORKERS: usize = 8;

/// Indices a helper holds at once: the run in progress and the next one.
pub const IN_FLIGHT: usize = 2;

/// A job worker with helpers not spawned yet spawns them once it has waited this long (ms) for a
/// job: the page then waits for its visitor (a Run press comes later than this), and the helpers
/// are up when it comes. **[assumed]**: longer than a link's check takes to let a small
/// scenario run on a 2-core machine (~0.5 s from the page's load), so a link's first results
/// do not wait for the helpers' start, and shorter than a visitor takes to read the page and
/// press Run.
pub const HELPERS_IDLE_START_MS: u32 = 1500;

/// How many job workers run a sweep: `asked` if not 0, else `navigator.hardwareConcurrency`
/// (1 where the browser does not say), capped at [`MAX_JOB_WORKERS`], at least 1.
pub fn job_workers(asked: usize, hardware_concurrency: Option<usize>) -> usize {
    let n = if asked > 0 {
        asked
    } else {
        hardware_concurrency.unwrap_or(1)
    };
    n.clamp(1, MAX_JOB_WORKERS)
}

/// `navigator.hardwareConcurrency` of this worker's global scope.
fn hardware_concurrency() -> Option<usize> {
    let navigator = js_sys::Reflect::get(&js_sys::global(), &"navigator".into()).ok()?;
    let n = js_sys::Reflect::get(&navigator, &"hardwareConcurrency".into()).ok()?;
    n.as_f64().filter(|n| *n >= 1.0).map(|n| n as usize)
}

/// The coordinator's helpers.
pub struct Pool {
    helpers: Vec<ReactorBridge<SimWorker>>,
    /// The helpers to spawn, until they are: the loader's address and how many.
    unspawned: Option<(String, usize)>,
}

impl Pool {
    /// The helpers for `workers` job workers (see [`job_workers`]), to be spawned by
    /// [`Pool::start_helpers`]; `None` for one job worker (the job worker then runs the sweep
    /// itself) or where workers cannot be spawned (said on the console; the sweep still runs,
    /// on one worker).
    pub fn new(script_url: &str, workers: usize) -> Option<Pool> {
        let n = job_workers(workers, hardware_concurrency());
        if n < 2 {
            return None;
        }
        let loader = match loader_url(script_url) {
            Ok(url) => url,
            Err(e) => {
                web_sys::console::warn_1(
                    &format!("schedlab: one job worker only, the helpers cannot start: {e:?}")
                        .into(),
                );
                return None;
            }
        };
        Some(Pool {
            helpers: Vec::new(),
            unspawned: Some((loader, n)),
        })
    }

    /// Whether the helpers are still to be spawned.
    pub fn waiting(&self) -> bool {
        self.unspawned.is_some()
    }

    /// Spawns the helpers, once.
    pub fn start_helpers(&mut self) {
        let Some((loader, n)) = self.unspawned.take() else {
            return;
        };
        self.helpers = (0..n)
            .map(|_| {
                let bridge = ReactorSpawner::<SimWorker>::new()
                    .as_module(false)
                    .with_loader(true)
                    .spawn(&loader);
                if let Some(channel) = crash::channel() {
                    bridge.send_input(ToWorker::Connect {
                        crash_channel: channel,
                    });
                }
                bridge
            })
            .collect();
    }

    /// The job workers' number the page is told: the helpers, spawned or not.
    pub fn len(&self) -> usize {
        self.unspawned.as_ref().map_or(self.helpers.len(), |u| u.1)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn tell_all(&self, msg: &ToWorker) {
        for h in &self.helpers {
            h.send_input(msg.clone());
        }
    }
}

/// What yew-agent's own spawner writes for a classic worker (`importScripts` of the script,
/// then its wasm next to it), as a `blob:` URL made here: that spawner reads the page's
/// `window` for the address, which a worker has not.
fn loader_url(script_url: &str) -> Result<String, wasm_bindgen::JsValue> {
    let wasm_url = script_url.replace(".js", "_bg.wasm");
    let parts = js_sys::Array::new();
    parts.push(&format!(r#"importScripts("{script_url}");wasm_bindgen("{wasm_url}");"#).into());
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("application/javascript");
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options)?;
    web_sys::Url::create_object_url_with_blob(&blob)
}

/// The sweep's runs so far, by index.
struct Slots {
    slots: Vec<Option<RunResult>>,
    done: usize,
}

impl Slots {
    /// Takes run `index` from its records line; an error for a line that is not one of this
    /// plan's runs (which cannot come from a helper of this build). A run the coordinator ran
    /// itself meanwhile is not taken twice (the same run gives the same result).
    fn take(&mut self, index: usize, line: &str) -> Result<(), String> {
        let record: RunRecord = serde_json::from_str(line)
            .map_err(|e| format!("run {index}: a bad record from a job worker: {e}"))?;
        if record.index != index || index >= self.slots.len() {
            return Err(format!(
                "run {index}: an unexpected record from a job worker"
            ));
        }
        self.put(index, record.to_result());
        Ok(())
    }

    /// Puts run `index`'s result in its slot, unless it is there already.
    fn put(&mut self, index: usize, result: RunResult) {
        if self.slots[index].is_none() {
            self.slots[index] = Some(result);
            self.done += 1;
        }
    }

    /// A run not done yet, for the coordinator to run itself when it has handed out every index
    /// and no helper has answered (a helper that never starts does not hold the job up).
    fn missing(&self) -> Option<usize> {
        self.slots.iter().position(Option::is_none)
    }

    /// The runs done, in index order (what one worker's table of them would see).
    fn results(&self) -> Vec<RunResult> {
        self.slots.iter().flatten().cloned().collect()
    }
}

/// Something the coordinator hears while a job runs: a page message, or helper `i`'s answer.
enum Heard {
    Page(Option<ToWorker>),
    Helper(Option<FromWorker>, usize),
}

/// A job in progress on the pool.
struct Job<'a> {
    job: u64,
    plan: &'a Plan,
    quantity: Quantity,
    runs: Slots,
    /// The next index to hand out (or run here).
    next: usize,
    last_table: f64,
    last_progress: f64,
    /// Whether a helper has answered this job yet: until one has, the coordinator runs indices
    /// itself (the helpers may still be compiling their wasm on a page that just loaded).
    helpers_up: bool,
    /// Why the job stopped early: superseded (the next message) or not, and an error to say.
    stopped: Option<(Option<ToWorker>, Option<String>)>,
    /// Messages for the page, sent by the loop.
    outbox: Vec<FromWorker>,
}

impl Job<'_> {
    fn hand_out(&mut self, helper: &ReactorBridge<SimWorker>) {
        if self.next < self.runs.slots.len() {
            helper.send_input(ToWorker::RunIndex {
                job: self.job,
                index: self.next,
            });
            self.next += 1;
        }
    }

    /// A run finished (here or in a helper): progress at most every `PROGRESS_EVERY_MS` (and
    /// at the last run), a table at most every `TABLE_EVERY_MS`.
    fn finished_one(&mut self) {
        let (job, done) = (self.job, self.runs.done);
        let total = self.runs.slots.len();
        if done == total || agent::now_ms() - self.last_progress >= agent::PROGRESS_EVERY_MS {
            self.outbox.push(FromWorker::Progress { job, done });
            self.last_progress = agent::now_ms();
        }
        if done < self.runs.slots.len()
            && agent::now_ms() - self.last_table >= agent::TABLE_EVERY_MS
        {
            let results = self.runs.results();
            self.outbox.push(agent::table_message(
                job,
                self.plan,
                &results,
                self.quantity,
                Stage::Running,
            ));
            self.last_table = agent::now_ms();
        }
    }

    fn hear(&mut self, heard: Heard, pool: &Pool) {
        let job = self.job;
        match heard {
            Heard::Page(None) => self.stopped = Some((None, None)), // the page is gone
            Heard::Page(Some(m)) => match m {
                ToWorker::Cancel { job: j } if j != job => {}
                ToWorker::Connect { crash_channel } => crash::set_channel(crash_channel),
                ToWorker::Crash { job } => agent::crash_on_purpose(job),
                ToWorker::Cancel { .. } => self.stopped = Some((None, None)),
                other => self.stopped = Some((Some(other), None)),
            },
            Heard::Helper(None, _) => {
                self.stopped = Some((None, Some("a job worker stopped".to_string())));
            }
            Heard::Helper(Some(m), i) => match m {
                FromWorker::Record {
                    job: j,
                    index,
                    line,
                } if j == job => match self.runs.take(index, &line) {
                    Ok(()) => {
                        self.helpers_up = true;
                        self.hand_out(&pool.helpers[i]);
                        self.finished_one();
                    }
                    Err(message) => self.stopped = Some((None, Some(message))),
                },
                FromWorker::Failed { job: j, message } if j == job => {
                    self.stopped = Some((None, Some(message)));
                }
                _ => {} // a late answer of an earlier job
            },
        }
    }
}

/// Runs a job on the pool to its end, its cancel, a run's error, or a message that supersedes it
/// (returned, to be handled next), with the page's messages of `agent::run_job`. Its plan and the
/// runs done are left in `finished`.
///
/// Until a helper has answered, this worker runs indices itself, one at a time, looking at its
/// inbox at most every `agent::YIELD_EVERY_MS` as one job worker does; from the first answer on,
/// it only hands out indices and tables.
pub(crate) async fn run_job(
    scope: &mut agent::Scope,
    pool: &mut Pool,
    job: u64,
    scenario_json: &str,
    quantity: Quantity,
    finished: &mut Option<Finished>,
) -> Option<ToWorker> {
    use futures::{FutureExt, SinkExt};
    let plan = agent::plan_and_announce(scope, job, scenario_json, pool.len()).await?;
    let total = plan.len();
    let start = agent::now_ms();
    pool.tell_all(&ToWorker::Share {
        job,
        scenario_json: scenario_json.to_string(),
    });
    let mut state = Job {
        job,
        plan: &plan,
        quantity,
        runs: Slots {
            slots: vec![None; total],
            done: 0,
        },
        next: 0,
        last_table: f64::NEG_INFINITY,
        last_progress: f64::NEG_INFINITY,
        helpers_up: false,
        stopped: None,
        outbox: Vec::new(),
    };
    for _ in 0..IN_FLIGHT {
        for h in &pool.helpers {
            state.hand_out(h);
        }
    }
    let mut last_yield = start;
    while state.runs.done < total && state.stopped.is_none() {
        if !state.helpers_up {
            // A run here, while the helpers start: the next index, or once all are handed out,
            // one a helper holds and has not answered.
            let index = if state.next < total {
                state.next += 1;
                state.next - 1
            } else {
                state.runs.missing().unwrap_or(0)
            };
            match plan.run(index) {
                Ok(result) => {
                    state.runs.put(index, result);
                    state.finished_one();
                }
                Err(e) => state.stopped = Some((None, Some(format!("run {index}: {e}")))),
            }
            if agent::now_ms() - last_yield >= agent::YIELD_EVERY_MS {
                yew::platform::time::sleep(std::time::Duration::ZERO).await;
                last_yield = agent::now_ms();
                // What arrived meanwhile (a stream that ended says so once).
                while let Some(m) = scope.next().now_or_never() {
                    let end = m.is_none();
                    state.hear(Heard::Page(m), pool);
                    if end {
                        break;
                    }
                }
                for i in 0..pool.helpers.len() {
                    while let Some(m) = pool.helpers[i].next().now_or_never() {
                        let end = m.is_none();
                        state.hear(Heard::Helper(m, i), pool);
                        if end {
                            break;
                        }
                    }
                }
            }
        } else {
            let heard = {
                let from_helpers = select_all(pool.helpers.iter_mut().map(|h| h.next()));
                match select(scope.next(), from_helpers).await {
                    Either::Left((m, _)) => Heard::Page(m),
                    Either::Right(((m, i, _), _)) => Heard::Helper(m, i),
                }
            };
            state.hear(heard, pool);
        }
        let tabled = state
            .outbox
            .iter()
            .any(|m| matches!(m, FromWorker::Table { .. }));
        for m in state.outbox.drain(..) {
            let _ = scope.send(m).await;
        }
        if tabled && pool.waiting() && state.stopped.is_none() {
            // The first results are on their way to the page: now the helpers (see the
            // module's doc), told this job and handed its next indices.
            pool.start_helpers();
            pool.tell_all(&ToWorker::Share {
                job,
                scenario_json: scenario_json.to_string(),
            });
            for _ in 0..IN_FLIGHT {
                for h in &pool.helpers {
                    state.hand_out(h);
                }
            }
        }
    }
    let results = state.runs.results();
    match state.stopped {
        None => {
            let _ = scope
                .send(agent::table_message(
                    job,
                    &plan,
                    &results,
                    quantity,
                    Stage::Stopped,
                ))
                .await;
            let elapsed_ms = agent::now_ms() - start;
            let _ = scope.send(FromWorker::Done { job, elapsed_ms }).await;
            *finished = Some(Finished { job, plan, results });
            None
        }
        Some((superseding, error)) => {
            pool.tell_all(&ToWorker::Cancel { job });
            if error.is_none() || !results.is_empty() {
                let _ = scope
                    .send(agent::table_message(
                        job,
                        &plan,
                        &results,
                        quantity,
                        Stage::Stopped,
                    ))
                    .await;
            }
            let done = results.len();
            match error {
                Some(message) => {
                    let _ = scope.send(FromWorker::Failed { job, message }).await;
                }
                None => {
                    let _ = scope.send(FromWorker::Cancelled { job, done }).await;
                    crash::set_job(superseding.as_ref().and_then(|m| m.job()).unwrap_or(job));
                    *finished = Some(Finished { job, plan, results });
                }
            }
            superseding
        }
    }
}

/// A helper's side: the plan of the job it was last given, and the last job cancelled.
#[derive(Default)]
pub struct Helper {
    shared: Option<(u64, Plan, String)>,
    cancelled: u64,
}

impl Helper {
    /// `ToWorker::Share`: builds the job's plan (an error is the answer to its first index).
    pub fn share(&mut self, job: u64, scenario_json: &str) -> Option<FromWorker> {
        match agent::plan_of(scenario_json) {
            Ok(plan) => {
                let hash = plan.scenario_hash();
                self.shared = Some((job, plan, hash));
                None
            }
            Err(message) => {
                self.shared = None;
                Some(FromWorker::Failed { job, message })
            }
        }
    }

    pub fn cancel(&mut self, job: u64) {
        self.cancelled = self.cancelled.max(job);
    }

    /// `ToWorker::RunIndex`: the run's records line, or its error as one worker says it.
    pub fn run(&mut self, job: u64, index: usize) -> Option<FromWorker> {
        if job <= self.cancelled {
            return None;
        }
        let (shared_job, plan, hash) = self.shared.as_ref()?;
        if *shared_job != job {
            return None;
        }
        Some(match plan.run_record(index, hash) {
            Ok(record) => FromWorker::Record {
                job,
                index,
                line: record.to_line(),
            },
            Err(e) => FromWorker::Failed {
                job,
                message: format!("run {index}: {e}"),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_core::records;

    #[test]
    fn the_worker_count_is_the_machines_capped_or_the_one_asked_for() {
        assert_eq!(job_workers(0, Some(2)), 2);
        assert_eq!(job_workers(0, Some(64)), MAX_JOB_WORKERS);
        assert_eq!(job_workers(0, None), 1);
        assert_eq!(job_workers(0, Some(0)), 1);
        assert_eq!(job_workers(1, Some(16)), 1);
        assert_eq!(job_workers(3, Some(1)), 3);
        assert_eq!(job_workers(100, Some(1)), MAX_JOB_WORKERS);
    }

    /// Runs handed to two helpers in an interleaved order and gathered by index give one
    /// worker's table, records and mmtests text, byte for byte.
    #[test]
    fn runs_gathered_by_index_table_as_one_worker_does() {
        let mut s = schedlab_core::scenarios::builtin("power9-bigcore-asym-smt").unwrap();
        s.runs = 3;
        let json = crate::protocol::encode_scenario(&s);
        let plan = Plan::new(&s).unwrap();
        let one: Vec<_> = (0..plan.len()).map(|i| plan.run(i).unwrap()).collect();
        let mut helpers = [Helper::default(), Helper::default()];
        for h in &mut helpers {
            assert!(h.share(5, &json).is_none());
        }
        let mut runs = Slots {
            slots: vec![None; plan.len()],
            done: 0,
        };
        // Answers arrive out of order: helper 1 runs the odd indices, last first.
        let mut order: Vec<usize> = (0..plan.len()).collect();
        order.reverse();
        for index in order {
            match helpers[index % 2].run(5, index) {
                Some(FromWorker::Record {
                    job,
                    index: i,
                    line,
                }) => {
                    assert_eq!((job, i), (5, index));
                    runs.take(index, &line).unwrap();
                }
                other => panic!("{other:?}"),
            }
        }
        // A run given twice is taken once; a record in another run's place is refused.
        let line0 = records::RunRecord::new(&plan, "h", &one[0]).to_line();
        runs.take(0, &line0).unwrap();
        assert_eq!(runs.done, plan.len());
        assert!(runs.take(1, &line0).is_err());
        assert!(runs.take(plan.len(), &line0).is_err());
        assert_eq!(runs.missing(), None);
        let merged = runs.results();
        assert_eq!(merged, one);
        for &q in Quantity::ALL {
            assert_eq!(plan.table_of(&merged, q), plan.table_of(&one, q));
        }
        let table = plan.table(&merged);
        assert_eq!(
            plan.mmtests_text(&table),
            plan.mmtests_text(&plan.table(&one))
        );
        assert_eq!(
            records::to_jsonl(&plan, None, &merged),
            records::to_jsonl(&plan, None, &one)
        );
        // A cancelled job's queued indices are skipped, another job's are not run on this plan.
        helpers[0].cancel(5);
        assert!(helpers[0].run(5, 0).is_none());
        assert!(helpers[1].run(6, 0).is_none());
        assert!(matches!(
            Helper::default().share(7, "{"),
            Some(FromWorker::Failed { job: 7, .. })
        ));
    }
}
