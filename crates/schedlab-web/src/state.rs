//! The page's state and how it changes: user input, a job's life, the worker's messages.
//!
//! Plain Rust (time comes in with the action), so every transition is tested natively. The app
//! component owns one [`Page`] through `use_reducer` and turns clicks and worker messages into
//! [`Action`]s; side effects (posting to the worker, the URL) stay in the component.

use std::rc::Rc;

use schedlab_core::experiment::{MachineRef, Quantity, Scenario};
use schedlab_core::scenarios;
use schedlab_core::topology::presets;

use crate::components::bench::BenchState;
use crate::components::controls::ScenarioChoice;
use crate::draft::check::Checked;
use crate::draft::{Draft, Edit};
use crate::link::Link;
use crate::protocol::Opening;
use crate::protocol::{self, FromWorker};
use crate::results::ResultsVm;
use crate::viewmodel::{ProgressVm, TableVm};

/// Largest number of runs per cell the page accepts (a page must stay responsive).
pub const MAX_RUNS: u32 = 1000;
/// After a keystroke in a form, the draft is rebuilt once typing has paused this long.
pub const TYPING_PAUSE_MS: i32 = 150;
/// Seeds drawn by "New seed" stay below 2^53, so they survive any JSON reader.
pub const SEED_MASK: u64 = (1 << 53) - 1;

pub fn scenario_choices() -> Vec<ScenarioChoice> {
    scenarios::BUILTIN
        .iter()
        .map(|b| ScenarioChoice {
            name: b.name.to_string(),
            title: b.title.to_string(),
            summary: b.summary.to_string(),
        })
        .collect()
}

/// The scenario as loaded (a built-in, or a share link's), before any edit.
pub struct Loaded {
    pub scenario: Scenario,
}

impl Loaded {
    pub fn builtin(name: &str) -> Result<Loaded, String> {
        let scenario = scenarios::builtin(name).map_err(|e| e.to_string())?;
        Ok(Loaded { scenario })
    }
}

/// Whether `scenario` is the built-in of its name as it ships, runs and seed aside: then an
/// old-style `?scenario=` link reproduces it, and the CLI names it (`--runs`, `--seed`); else only
/// a share link or the scenario file does.
pub fn is_builtin_as_shipped(scenario: &Scenario) -> bool {
    scenarios::builtin(&scenario.name).is_ok_and(|mut b| {
        b.runs = scenario.runs;
        b.seed = scenario.seed;
        b == *scenario
    })
}

/// The scenario to run: `base` with the runs and seed typed in the form.
pub fn configure(base: &Scenario, runs: &str, seed: &str) -> Result<Scenario, String> {
    let runs: u32 = match runs.trim().parse() {
        Ok(n) if (1..=MAX_RUNS).contains(&n) => n,
        _ => {
            return Err(format!(
                "Runs per cell must be a whole number from 1 to {MAX_RUNS}."
            ))
        }
    };
    let seed: u64 = seed
        .trim()
        .parse()
        .map_err(|_| "Seed must be a whole number from 0 to 18446744073709551615.".to_string())?;
    let mut s = base.clone();
    s.runs = runs;
    s.seed = seed;
    Ok(s)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Idle,
    Running,
    Cancelling,
    Done,
    Cancelled,
    Failed,
}

impl Phase {
    pub fn name(self) -> &'static str {
        match self {
            Phase::Idle => "idle",
            Phase::Running => "running",
            Phase::Cancelling => "cancelling",
            Phase::Done => "done",
            Phase::Cancelled => "cancelled",
            Phase::Failed => "failed",
        }
    }

    pub fn busy(self) -> bool {
        matches!(self, Phase::Running | Phase::Cancelling)
    }
}

/// Where the page stands.
#[derive(Clone)]
pub struct Page {
    pub scenario_name: String,
    pub runs_text: String,
    pub seed_text: String,
    pub loaded: Result<Rc<Loaded>, String>,
    /// The current job's id (0 = none yet); messages of other jobs are ignored.
    pub job: u64,
    pub phase: Phase,
    pub message: String,
    /// The scenario of the current job (what its table, run details and exports are of).
    pub scenario: Option<Rc<Scenario>>,
    /// Runs of the current job finished, as its last table (or its end) said; the progress
    /// views show the live count beside it (`components::progress::LiveProgress`).
    pub done: usize,
    pub total: usize,
    /// The job workers the current job runs on (0 until its plan is built).
    pub workers: usize,
    /// The table of the finished runs as the worker last sent it, with its figures (and, once
    /// the job stopped, its per-run views and files).
    pub results: Option<Rc<ResultsVm>>,
    pub table: Option<Rc<TableVm>>,
    pub bench_job: u64,
    pub bench: BenchState,
    /// What the table reports of each run: the workload's metric, energy, or performance per watt.
    pub report: Quantity,
    /// A table of another quantity of the current job's runs was asked for and has not come yet.
    pub retabling: bool,
    /// The scenario as edited in the machine, workload and variant forms; what Run runs.
    pub draft: Rc<Draft>,
    /// Why the address's share link could not be opened (the page fell back to the default).
    pub link_error: Option<String>,
    /// The address named the scenario (`?scenario=` or a share link): a reader followed a link
    /// to these numbers, so a small scenario runs at once (`Page::autorun`).
    pub from_link: bool,
    /// The address's share link, `(request id, payload)`, while the check worker opens it
    /// (`link::decode` runs there, not in the page's wasm): until it answers, nothing runs.
    pub opening: Option<(u64, Opening)>,
    /// The share link asked of the check worker: `(request id, the scenario it is of)`.
    pub linking: Option<(u64, Scenario)>,
    /// The last share link the check worker made: `(its scenario, what follows #s=)`.
    pub share_link: Option<(Scenario, String)>,
}

pub enum Action {
    SelectScenario(String),
    /// A change in the machine, workload or variant forms.
    Edit(Edit),
    /// No keystroke for [`TYPING_PAUSE_MS`]: the draft is due for a check after typing edits.
    TypingPaused,
    /// The check worker's answer for a revision of the draft.
    Checked {
        revision: u64,
        checked: Box<Checked>,
    },
    /// The check of a revision failed (the check worker crashed on it); also a share link's
    /// request of that id.
    CheckFailed {
        revision: u64,
        message: String,
    },
    /// The check worker opened the address's share link (request `job`): its scenario, or why
    /// it cannot be opened.
    Opened {
        job: u64,
        opened: Result<Box<Scenario>, String>,
    },
    /// The share link of `scenario` was asked of the check worker as request `job`.
    Linking {
        job: u64,
        scenario: Box<Scenario>,
    },
    /// The check worker's answer to request `job`: what follows `#s=`.
    Linked {
        job: u64,
        payload: String,
    },
    SetRuns(String),
    /// The table is to report this quantity; when the current job has finished runs, the job
    /// worker was asked for their table of it.
    SetReport(Quantity),
    SetSeed(String),
    /// A job was posted to the worker with this scenario.
    Started {
        job: u64,
        scenario: Box<Scenario>,
    },
    CancelRequested,
    BenchStarted {
        job: u64,
    },
    /// A message from the worker, and the time it arrived (ms).
    Worker(FromWorker, f64),
    WorkerGone,
}

impl Page {
    /// The page as loaded, from the URL's `scenario`, `runs` and `seed` if given.
    pub fn new(scenario: Option<&str>, runs: Option<&str>, seed: Option<&str>) -> Page {
        let name = scenario.map(str::to_string).unwrap_or_else(|| {
            scenarios::BUILTIN
                .first()
                .map(|b| b.name.to_string())
                .unwrap_or_default()
        });
        let mut page = Page {
            scenario_name: String::new(),
            runs_text: String::new(),
            seed_text: String::new(),
            loaded: Err(String::new()),
            job: 0,
            phase: Phase::Idle,
            message: String::new(),
            scenario: None,
            done: 0,
            total: 0,
            workers: 0,
            results: None,
            table: None,
            bench_job: 0,
            bench: BenchState::Idle,
            report: Quantity::Value,
            retabling: false,
            draft: Rc::new(Draft::new(
                &scenarios::builtin(scenarios::BUILTIN[0].name).expect("the first built-in loads"),
            )),
            link_error: None,
            from_link: false,
            opening: None,
            linking: None,
            share_link: None,
        };
        page.apply(Action::SelectScenario(name));
        if let Some(r) = runs {
            page.runs_text = r.to_string();
        }
        if let Some(s) = seed {
            page.seed_text = s.to_string();
        }
        page
    }

    /// The page for the address: a share link's scenario (`#s=`), or a built-in with the runs
    /// and seed of an old-style link. A link that cannot be opened leaves the default scenario
    /// loaded and says why in `link_error`.
    pub fn open(link: Link) -> Page {
        match link {
            // A name the page's list lacks (LISA's `lisa-*`): the check worker builds it.
            Link::Builtin {
                name: Some(name),
                runs,
                seed,
            } if scenarios::builtin(&name).is_err() => {
                let mut page = Page::new(None, None, None);
                page.opening = Some((
                    crate::draft::next_revision(),
                    Opening::Named { name, runs, seed },
                ));
                page
            }
            Link::Builtin { name, runs, seed } => {
                let mut page = Page::new(name.as_deref(), runs.as_deref(), seed.as_deref());
                page.from_link = name.is_some() && page.loaded.is_ok();
                page
            }
            Link::Scenario(payload) => {
                // The check worker opens it (`Action::Opened`); the default scenario waits.
                let mut page = Page::new(None, None, None);
                page.opening = Some((crate::draft::next_revision(), Opening::Share(payload)));
                page
            }
        }
    }

    /// The check worker's answer to the address's share link. An unknown preset is the one
    /// thing the forms cannot hold (they would fall back to the default machine); every other
    /// problem is shown beside its field.
    fn opened(&mut self, opened: Result<Scenario, String>) {
        let opened = opened.and_then(|s| match &s.machine {
            // Only the name: the page never looks a preset up (see `MachineForm::preset`).
            MachineRef::Preset(name) => match presets::known(name) {
                Ok(()) => Ok(s),
                Err(e) => Err(e.to_string()),
            },
            MachineRef::Custom(_) => Ok(s),
        });
        match opened {
            Ok(scenario) => {
                self.runs_text = scenario.runs.to_string();
                self.seed_text = scenario.seed.to_string();
                self.scenario_name = scenario.name.clone();
                self.draft = Rc::new(Draft::new(&scenario));
                self.loaded = Ok(Rc::new(Loaded { scenario }));
                self.from_link = true;
            }
            Err(e) => {
                self.link_error = Some(format!(
                    "This link could not be opened: {e}. Showing the default scenario instead."
                ))
            }
        }
    }

    /// The share link of `scenario`, once the check worker has made it.
    pub fn share_payload(&self, scenario: &Scenario) -> Option<&str> {
        match &self.share_link {
            Some((s, payload)) if s == scenario => Some(payload),
            _ => None,
        }
    }

    /// The scenario whose share link the check worker should make now: the configured one, when
    /// its link is neither made nor asked for.
    pub fn share_due(&self) -> Option<Scenario> {
        let scenario = self.configured().ok()?;
        let asked = self.linking.as_ref().is_some_and(|(_, s)| *s == scenario);
        (!asked && self.share_payload(&scenario).is_none()).then_some(scenario)
    }

    /// The scenario the form describes, or why it cannot run.
    pub fn configured(&self) -> Result<Scenario, String> {
        if self.opening.is_some() {
            return Err("Opening the link…".into());
        }
        self.loaded.as_ref().map_err(|e| e.clone())?;
        configure(self.draft.scenario()?, &self.runs_text, &self.seed_text)
    }

    /// Whether the page decides anything on the scenario's cost: only a link's scenario before
    /// anything ran ([`Page::autorun`], [`Page::waiting_note`]). Checks ask the check worker for
    /// the estimate (a probe run) only then.
    pub fn needs_cost(&self) -> bool {
        self.from_link && self.job == 0
    }

    /// The estimated cost of the scenario as configured (runs included), once it is checked with
    /// its estimate ([`Page::needs_cost`]).
    pub fn cost(&self) -> Option<schedlab_core::cost::Cost> {
        if self.draft.stale() {
            return None;
        }
        let one = self.draft.cost?;
        let runs = self.configured().ok()?.runs as usize;
        Some(schedlab_core::cost::Cost {
            runs: one.runs.saturating_mul(runs),
            ..one
        })
    }

    /// Whether to run now, unasked: nothing has run yet, the scenario is checked and runs, and
    /// either the view is the embed (which has no Run button) or the page was opened from a
    /// link to a scenario small enough to run without asking (`cost::SMALL_EVENTS`).
    pub fn autorun(&self, embed: bool) -> bool {
        self.job == 0
            && self.opening.is_none()
            && !self.draft.stale()
            && (embed || (self.needs_cost() && self.cost().is_some_and(|c| c.is_small())))
    }

    /// What a link to a big scenario says instead of running it.
    pub fn waiting_note(&self) -> Option<String> {
        let cost = self.cost()?;
        (self.needs_cost() && !cost.is_small()).then(|| {
            format!(
                "Not run yet: this scenario is estimated at {}. Press Run to start it.",
                cost.text()
            )
        })
    }

    pub fn progress(&self) -> ProgressVm {
        ProgressVm {
            done: self.done,
            total: self.total,
            workers: self.workers,
        }
    }

    /// Whether the current job has runs whose table the job worker can give again (it keeps the
    /// last job's runs; a failed job's are gone).
    pub fn can_retable(&self) -> bool {
        self.job != 0
            && self.results.is_some()
            && matches!(self.phase, Phase::Done | Phase::Cancelled)
    }

    fn clear_job(&mut self) {
        self.scenario = None;
        self.done = 0;
        self.total = 0;
        self.workers = 0;
        self.results = None;
        self.table = None;
        self.retabling = false;
    }

    pub fn apply(&mut self, action: Action) {
        match action {
            Action::SelectScenario(name) => {
                if self.phase.busy() {
                    return;
                }
                // A choice made before the address's link opened wins over it, and the link's
                // scenario is no longer the one on the page: nothing runs unasked after it.
                self.opening = None;
                self.from_link = false;
                self.loaded = Loaded::builtin(&name).map(Rc::new);
                if let Ok(l) = &self.loaded {
                    self.runs_text = l.scenario.runs.to_string();
                    self.seed_text = l.scenario.seed.to_string();
                    self.draft = Rc::new(Draft::new(&l.scenario));
                }
                self.scenario_name = name;
                self.phase = Phase::Idle;
                self.message.clear();
                self.clear_job();
            }
            Action::Edit(edit) => {
                if !self.phase.busy() {
                    let draft = Rc::make_mut(&mut self.draft);
                    if edit.is_typing() {
                        draft.apply_typing(edit);
                    } else {
                        draft.apply(edit);
                    }
                }
            }
            Action::TypingPaused => {
                if self.draft.stale() {
                    Rc::make_mut(&mut self.draft).typing_paused();
                }
            }
            Action::Checked { revision, checked } => {
                if revision == self.draft.revision() {
                    Rc::make_mut(&mut self.draft).accept(revision, *checked);
                }
            }
            Action::CheckFailed { revision, message } => {
                if revision == self.draft.revision() {
                    Rc::make_mut(&mut self.draft).check_failed(revision, &message);
                }
                if self.opening.as_ref().is_some_and(|(id, _)| *id == revision) {
                    self.opening = None;
                    self.opened(Err(message));
                }
            }
            Action::Opened { job, opened } => {
                if self.opening.as_ref().is_some_and(|(id, _)| *id == job) {
                    let opening = self.opening.take().map(|(_, o)| o);
                    let ok = opened.is_ok();
                    self.opened(opened.map(|s| *s));
                    // An old-style link's runs and seed apply to the scenario it names.
                    if let (true, Some(Opening::Named { runs, seed, .. })) = (ok, opening) {
                        if let Some(r) = runs {
                            self.runs_text = r;
                        }
                        if let Some(s) = seed {
                            self.seed_text = s;
                        }
                    }
                }
            }
            Action::Linking { job, scenario } => self.linking = Some((job, *scenario)),
            Action::Linked { job, payload } => {
                if let Some((_, scenario)) = self.linking.take_if(|(id, _)| *id == job) {
                    self.share_link = Some((scenario, payload));
                }
            }
            Action::SetRuns(t) => self.runs_text = t,
            Action::SetReport(q) => {
                if !self.phase.busy() && q != self.report {
                    self.report = q;
                    self.retabling = self.can_retable();
                }
            }
            Action::SetSeed(t) => self.seed_text = t,
            Action::Started { job, scenario } => {
                // The worker validates the scenario and plans it; a bad one comes back Failed.
                self.clear_job();
                self.job = job;
                self.phase = Phase::Running;
                self.message = format!("running {} (seed {})", scenario.name, scenario.seed);
                self.scenario = Some(Rc::new(*scenario));
            }
            Action::CancelRequested => {
                if self.phase == Phase::Running {
                    self.phase = Phase::Cancelling;
                    self.message = "cancelling after the run in progress…".into();
                }
            }
            Action::BenchStarted { job } => {
                self.bench_job = job;
                self.bench = BenchState::Running;
            }
            Action::WorkerGone => {
                if self.phase.busy() {
                    self.phase = Phase::Failed;
                    self.message = "the worker stopped unexpectedly; reload the page".into();
                }
            }
            Action::Worker(msg, _now_ms) => self.on_worker(msg),
        }
    }

    fn on_worker(&mut self, msg: FromWorker) {
        if msg.job() == self.bench_job && self.bench == BenchState::Running {
            match msg {
                FromWorker::BenchDone {
                    runs,
                    elapsed_ms,
                    busy_cpu_ns,
                    events,
                    ..
                } => {
                    self.bench = BenchState::Done {
                        runs,
                        elapsed_ms,
                        busy_cpu_ns,
                        events,
                    };
                }
                FromWorker::Failed { message, .. } => self.bench = BenchState::Failed(message),
                _ => {}
            }
            return;
        }
        if msg.job() != self.job {
            return; // a late message of an earlier job
        }
        if !self.phase.busy() {
            // The answer to a change of the report: the same runs, another quantity.
            if self.retabling {
                self.retabling = false;
                match msg {
                    FromWorker::Table { results_json, .. } => self.take_table(&results_json),
                    FromWorker::Failed { message, .. } => self.message = message,
                    _ => {}
                }
            }
            return;
        }
        match msg {
            FromWorker::Planned { total, workers, .. } => {
                self.total = total;
                self.workers = workers;
            }
            // The live count goes to the progress views alone (`components::progress::LiveProgress`);
            // the runs done here are what the tables and the job's end say.
            FromWorker::Progress { .. } => {}
            FromWorker::Table {
                done, results_json, ..
            } => {
                self.done = self.done.max(done);
                self.take_table(&results_json);
            }
            FromWorker::Done { elapsed_ms, .. } => {
                self.phase = Phase::Done;
                self.message = format!("done: {} runs in {:.1} s", self.done, elapsed_ms / 1e3);
            }
            FromWorker::Cancelled { done, .. } => {
                self.phase = Phase::Cancelled;
                self.done = self.done.max(done);
                self.message = format!("cancelled after {done} of {} runs", self.total);
            }
            FromWorker::Failed { message, .. } => {
                self.phase = Phase::Failed;
                self.message = message;
            }
            FromWorker::BenchDone { .. }
            | FromWorker::Record { .. }
            | FromWorker::Traced { .. }
            | FromWorker::DecisionPage { .. }
            | FromWorker::FtraceText { .. }
            | FromWorker::TraceFile { .. }
            | FromWorker::Checked { .. }
            | FromWorker::Linked { .. }
            | FromWorker::Opened { .. } => {}
        }
    }
}

impl Page {
    /// Shows the worker's table (its quantity is what the job or the report change asked for).
    fn take_table(&mut self, results_json: &str) {
        match protocol::decode::<ResultsVm>(results_json) {
            Ok(r) => {
                self.table = Some(Rc::new(r.table.clone()));
                self.results = Some(Rc::new(r));
            }
            Err(e) => {
                self.phase = Phase::Failed;
                self.message = e;
            }
        }
    }
}

impl yew::Reducible for Page {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = Rc::unwrap_or_clone(self);
        next.apply(action);
        Rc::new(next)
    }
}

#[cfg(test)]
mod tests;
