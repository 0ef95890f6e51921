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
    /// Runs of the current job finished.
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
            FromWorker::Progress { done, .. } => self.done = done,
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
mod tests {
    use super::*;
    use crate::draft::check::check;
    use crate::link;
    use crate::viewmodel::DomainsVm;
    use schedlab_core::experiment::{Plan, Quantity, RunResult};
    use schedlab_core::table::ComparisonTable;

    /// The results the job worker sends of the table of a stopped job.
    fn results_of(plan: &Plan, table: &ComparisonTable) -> ResultsVm {
        ResultsVm::finished(table, &plan.scenario)
    }

    /// The check worker answers whatever the page has due: the address's share link to open,
    /// the draft's check, the configured scenario's share link.
    fn settle(page: &mut Page) {
        if let Some((job, opening)) = page.opening.clone() {
            let opened = opening.open().map(Box::new);
            page.apply(Action::Opened { job, opened });
        }
        if let Some(revision) = page.draft.check_due() {
            let checked = Box::new(check(&page.draft.forms(), page.needs_cost()));
            page.apply(Action::Checked { revision, checked });
        }
        if let Some(scenario) = page.share_due() {
            let job = crate::draft::next_revision();
            let payload = link::encode(&scenario);
            page.apply(Action::Linking {
                job,
                scenario: Box::new(scenario),
            });
            page.apply(Action::Linked { job, payload });
        }
    }

    /// A page as loaded, once its first check came back.
    fn loaded_page(scenario: Option<&str>, runs: Option<&str>, seed: Option<&str>) -> Page {
        let mut p = Page::new(scenario, runs, seed);
        settle(&mut p);
        p
    }

    /// A user action, then the check worker's answer if it asked for one.
    fn act(page: &mut Page, action: Action) {
        page.apply(action);
        settle(page);
    }

    fn first_builtin() -> &'static str {
        scenarios::BUILTIN[0].name
    }

    /// What the job worker sends after `results`: their progress and their table.
    fn after(job: u64, plan: &Plan, results: &[RunResult]) -> [FromWorker; 2] {
        [
            FromWorker::Progress {
                job,
                done: results.len(),
            },
            FromWorker::Table {
                job,
                done: results.len(),
                results_json: protocol::encode(&results_of(plan, &plan.table(results))),
            },
        ]
    }

    fn send(page: &mut Page, msgs: impl IntoIterator<Item = FromWorker>) {
        for m in msgs {
            page.apply(Action::Worker(m, 0.0));
        }
    }

    #[test]
    fn loads_the_builtin_with_its_defaults_and_url_overrides() {
        let page = loaded_page(None, None, None);
        assert_eq!(page.scenario_name, first_builtin());
        let loaded = page.loaded.as_ref().unwrap();
        assert_eq!(page.runs_text, loaded.scenario.runs.to_string());
        let page = loaded_page(Some(first_builtin()), Some("3"), Some("1"));
        let s = page.configured().unwrap();
        assert_eq!((s.runs, s.seed), (3, 1));
        let page = loaded_page(Some("no-such-scenario"), None, None);
        assert!(page.loaded.is_err() && page.configured().is_err());
    }

    #[test]
    fn every_builtin_checks_to_itself_with_the_plans_domains() {
        for b in scenarios::BUILTIN {
            let mut page = Page::new(Some(b.name), None, None);
            settle(&mut page);
            let loaded = page.loaded.as_ref().unwrap();
            assert_eq!(
                page.draft.scenario().unwrap(),
                &loaded.scenario,
                "{}",
                b.name
            );
            let plan = Plan::new(&loaded.scenario).unwrap();
            assert_eq!(page.draft.domains.len(), plan.variants.len());
            for (i, (name, vm)) in page.draft.domains.iter().enumerate() {
                assert_eq!(name, &plan.variants[i].name);
                assert_eq!(*vm, DomainsVm::new(&plan.domains_view(i)), "{}", b.name);
            }
        }
    }

    #[test]
    fn a_check_answer_for_an_earlier_revision_is_dropped() {
        let mut page = Page::new(None, Some("1"), Some("1"));
        let first = page.draft.check_due().unwrap();
        let answer = check(&page.draft.forms(), false);
        page.apply(Action::Edit(Edit::AddVariant));
        page.apply(Action::Checked {
            revision: first,
            checked: Box::new(answer),
        });
        assert!(
            page.configured().is_err(),
            "still waiting for the edit's check"
        );
        settle(&mut page);
        assert_eq!(page.configured().unwrap().variants.len(), 3);
        // A crashed check of the current revision says so.
        page.apply(Action::Edit(Edit::AddVariant));
        let r = page.draft.check_due().unwrap();
        page.apply(Action::CheckFailed {
            revision: r,
            message: "boom".into(),
        });
        assert!(page.configured().unwrap_err().contains("boom"));
    }

    #[test]
    fn bad_inputs_are_explained() {
        let base = scenarios::builtin(first_builtin()).unwrap();
        assert!(configure(&base, "0", "1")
            .unwrap_err()
            .contains("Runs per cell"));
        assert!(configure(&base, "1001", "1").is_err());
        assert!(configure(&base, "x", "1").is_err());
        assert!(configure(&base, "3", "-1").unwrap_err().contains("Seed"));
        assert_eq!(
            configure(&base, " 3 ", "18446744073709551615")
                .unwrap()
                .seed,
            u64::MAX
        );
    }

    #[test]
    fn a_job_collects_tables_and_ignores_other_jobs() {
        let mut page = loaded_page(None, Some("1"), Some("5"));
        let scenario = page.configured().unwrap();
        let plan = Plan::new(&scenario).unwrap();
        page.apply(Action::Started {
            job: 2,
            scenario: Box::new(scenario.clone()),
        });
        assert_eq!(page.phase, Phase::Running);
        assert_eq!(page.scenario.as_deref(), Some(&scenario));
        send(
            &mut page,
            [FromWorker::Planned {
                job: 2,
                total: plan.len(),
                workers: 2,
            }],
        );
        assert_eq!(
            page.progress(),
            ProgressVm {
                done: 0,
                total: plan.len(),
                workers: 2,
            }
        );
        let all: Vec<RunResult> = (0..plan.len()).map(|i| plan.run(i).unwrap()).collect();
        // A late table of job 1 is ignored.
        send(&mut page, after(1, &plan, &all[..1]));
        assert!(page.table.is_none() && page.done == 0);
        send(&mut page, after(2, &plan, &all[..1]));
        assert_eq!(page.done, 1);
        send(&mut page, after(2, &plan, &all));
        send(
            &mut page,
            [FromWorker::Done {
                job: 2,
                elapsed_ms: 12.0,
            }],
        );
        assert_eq!(page.phase, Phase::Done);
        assert_eq!(page.progress().done, plan.len());
        // The page's table is the core's table of the same results.
        assert_eq!(*page.table.unwrap(), TableVm::new(&plan.table(&all)));
        assert_eq!(*page.results.unwrap(), results_of(&plan, &plan.table(&all)));
    }

    #[test]
    fn another_report_retables_the_finished_runs_and_ignores_strays() {
        let mut page = loaded_page(None, Some("1"), Some("3"));
        let scenario = page.configured().unwrap();
        let plan = Plan::new(&scenario).unwrap();
        // Before any job: the choice is kept for the next Start, nothing to re-table.
        act(&mut page, Action::SetReport(Quantity::PerfPerWatt));
        assert!(!page.retabling);
        act(&mut page, Action::SetReport(Quantity::Value));
        page.apply(Action::Started {
            job: 3,
            scenario: Box::new(scenario),
        });
        // While the job runs the report cannot change.
        page.apply(Action::SetReport(Quantity::Energy));
        assert_eq!(page.report, Quantity::Value);
        let all: Vec<RunResult> = (0..plan.len()).map(|i| plan.run(i).unwrap()).collect();
        send(&mut page, after(3, &plan, &all));
        send(
            &mut page,
            [FromWorker::Done {
                job: 3,
                elapsed_ms: 1.0,
            }],
        );
        assert!(page.can_retable());
        // A table that nobody asked for is ignored once the job is done.
        let energy = plan.table_of(&all, Quantity::Energy);
        let energy_msg = FromWorker::Table {
            job: 3,
            done: all.len(),
            results_json: protocol::encode(&results_of(&plan, &energy)),
        };
        send(&mut page, [energy_msg.clone()]);
        assert_eq!(
            *page.results.clone().unwrap(),
            results_of(&plan, &plan.table(&all))
        );
        // Asked for: the energy table of the same runs replaces the metric's.
        page.apply(Action::SetReport(Quantity::Energy));
        assert!(page.retabling);
        send(&mut page, [energy_msg]);
        assert!(!page.retabling);
        assert_eq!(*page.results.clone().unwrap(), results_of(&plan, &energy));
        assert_eq!(page.phase, Phase::Done);
        assert_ne!(energy, plan.table(&all));
    }

    #[test]
    fn cancel_keeps_the_partial_table() {
        let mut page = loaded_page(None, Some("2"), Some("1"));
        let scenario = page.configured().unwrap();
        let plan = Plan::new(&scenario).unwrap();
        page.apply(Action::Started {
            job: 1,
            scenario: Box::new(scenario),
        });
        let two: Vec<RunResult> = (0..2).map(|i| plan.run(i).unwrap()).collect();
        send(&mut page, after(1, &plan, &two));
        page.apply(Action::CancelRequested);
        assert_eq!(page.phase, Phase::Cancelling);
        // Inputs cannot change the scenario while busy.
        page.apply(Action::SelectScenario(first_builtin().into()));
        assert_eq!(page.phase, Phase::Cancelling);
        send(&mut page, [FromWorker::Cancelled { job: 1, done: 2 }]);
        assert_eq!(page.phase, Phase::Cancelled);
        // The partial table holds exactly the two runs that came in.
        let table = page.table.unwrap();
        let runs: usize = table
            .rows
            .iter()
            .flat_map(|r| r.cells.iter().flatten())
            .map(|c| c.runs)
            .sum();
        assert_eq!(runs, 2);
    }

    #[test]
    fn a_share_link_reopens_the_edited_scenario_with_its_runs_and_seed() {
        let mut page = loaded_page(None, Some("2"), Some("77"));
        act(
            &mut page,
            Action::Edit(Edit::Llc(schedlab_core::topology::LlcSpan::Cluster)),
        );
        act(&mut page, Action::Edit(Edit::AddVariant));
        let scenario = page.configured().unwrap();
        assert!(!is_builtin_as_shipped(&scenario));
        let mut opened = Page::open(Link::Scenario(link::encode(&scenario)));
        settle(&mut opened);
        assert_eq!(opened.link_error, None);
        assert_eq!(opened.configured().unwrap(), scenario);
        assert_eq!(
            (opened.runs_text.as_str(), opened.seed_text.as_str()),
            ("2", "77")
        );
        // The same scenario gives the same results, run for run.
        let plan = Plan::new(&scenario).unwrap();
        let again = Plan::new(&opened.configured().unwrap()).unwrap();
        assert_eq!(plan.run(1).unwrap(), again.run(1).unwrap());
    }

    #[test]
    fn the_check_worker_opens_and_makes_share_links_and_nothing_runs_before() {
        let mut s = scenarios::builtin("juno-use-all-littles").unwrap();
        s.seed = 9;
        let mut page = Page::open(Link::Scenario(link::encode(&s)));
        let (job, _) = page.opening.clone().unwrap();
        assert!(page.configured().unwrap_err().contains("Opening"));
        assert!(!page.autorun(true) && page.share_due().is_none());
        // An answer to another request is not the link's.
        page.apply(Action::Opened {
            job: job + 1_000_000,
            opened: Err("other".into()),
        });
        assert!(page.opening.is_some() && page.link_error.is_none());
        settle(&mut page);
        assert!(page.opening.is_none() && page.from_link);
        assert_eq!(page.configured().unwrap(), s);
        // The configured scenario's link was made, and follows the seed typed.
        assert_eq!(page.share_payload(&s), Some(link::encode(&s).as_str()));
        assert_eq!(page.share_due(), None);
        act(&mut page, Action::SetSeed("10".into()));
        let now = page.configured().unwrap();
        assert_eq!(page.share_payload(&s), None);
        assert_eq!(link::decode(page.share_payload(&now).unwrap()), Ok(now));
        // A late answer for a link asked earlier is dropped.
        page.apply(Action::Linked {
            job: 0,
            payload: "1.x".into(),
        });
        assert!(page.share_payload(&page.configured().unwrap()).is_some());
        // The check worker crashed on the link: the default scenario, and why.
        let mut page = Page::open(Link::Scenario(link::encode(&s)));
        let (job, _) = page.opening.clone().unwrap();
        page.apply(Action::CheckFailed {
            revision: job,
            message: "boom".into(),
        });
        assert!(page.link_error.as_deref().unwrap().contains("boom"));
        settle(&mut page);
        assert_eq!(page.scenario_name, first_builtin());
        assert!(page.configured().is_ok());
    }

    /// `?scenario=lisa-...` names a scenario the page's list lacks: the check worker builds it
    /// (`check::scenario`), the link's runs and seed apply, and a name nobody knows says so.
    #[test]
    fn a_lisa_scenario_link_is_opened_by_the_worker_with_its_runs_and_seed() {
        let name = schedlab_core::check::scenario_names()[0].clone();
        let mut page = Page::open(Link::Builtin {
            name: Some(name.clone()),
            runs: Some("3".into()),
            seed: Some("7".into()),
        });
        assert!(page.configured().unwrap_err().contains("Opening"));
        settle(&mut page);
        assert!(page.opening.is_none() && page.from_link && page.link_error.is_none());
        let s = page.configured().unwrap();
        assert_eq!((s.name.as_str(), s.runs, s.seed), (name.as_str(), 3, 7));
        let mut page = Page::open(Link::Builtin {
            name: Some("no-such-scenario".into()),
            runs: None,
            seed: None,
        });
        settle(&mut page);
        assert!(page
            .link_error
            .as_deref()
            .unwrap()
            .contains("no-such-scenario"));
        assert_eq!(page.scenario_name, first_builtin());
    }

    #[test]
    fn a_broken_link_falls_back_to_the_default_and_says_why() {
        let mut page = Page::open(Link::Scenario("1.not-a-scenario".into()));
        settle(&mut page);
        assert!(page.link_error.as_deref().unwrap().contains("damaged"));
        assert_eq!(page.scenario_name, first_builtin());
        assert!(page.configured().is_ok());
        let mut page = Page::open(Link::Scenario("9.AAAA".into()));
        settle(&mut page);
        assert!(page.link_error.as_deref().unwrap().contains("format 9"));
        // Old links keep working, and an unmodified built-in is recognised as such.
        let mut page = Page::open(Link::Builtin {
            name: Some(first_builtin().into()),
            runs: Some("4".into()),
            seed: Some("2".into()),
        });
        settle(&mut page);
        let s = page.configured().unwrap();
        assert_eq!((s.runs, s.seed), (4, 2));
        assert!(is_builtin_as_shipped(&s));
    }

    #[test]
    fn a_link_to_a_small_scenario_runs_on_load_and_a_big_one_waits_and_says_its_cost() {
        let open = |name: &str, runs: &str| {
            let mut page = Page::open(Link::Builtin {
                name: Some(name.into()),
                runs: Some(runs.into()),
                seed: None,
            });
            assert!(!page.autorun(false), "not before the check");
            settle(&mut page);
            page
        };
        // Every built-in as shipped is small: a link to one runs at once.
        for b in scenarios::BUILTIN {
            let mut page = Page::open(Link::Builtin {
                name: Some(b.name.into()),
                runs: None,
                seed: None,
            });
            settle(&mut page);
            assert!(page.from_link);
            assert!(page.autorun(false), "{}: {:?}", b.name, page.cost());
            assert_eq!(page.waiting_note(), None);
        }
        // The same scenario at 1000 runs a cell: estimated big, so it waits and says why.
        let page = open("power9-bigcore-asym-smt", "1000");
        let cost = page.cost().unwrap();
        assert_eq!(cost.runs, 3 * 1000, "three variants, no sweep");
        assert!(!page.autorun(false));
        let note = page.waiting_note().unwrap();
        assert!(
            note.contains("(3000 runs)") && note.contains("Press Run"),
            "{note}"
        );
        // The embed view has no Run button: it runs whatever the link holds.
        assert!(page.autorun(true));
        // The page without a link waits for Run, whatever the cost, and says nothing of it;
        // its checks probe no run for a cost it never reads.
        let page = loaded_page(None, None, None);
        assert!(!page.from_link && !page.autorun(false));
        assert!(!page.needs_cost() && page.cost().is_none());
        assert_eq!(page.waiting_note(), None);
        // Once a job started, nothing runs again by itself, and no check probes the cost.
        let mut page = open("juno-use-all-littles", "2");
        assert!(page.needs_cost());
        page.job = 1;
        assert!(!page.autorun(false) && !page.needs_cost());
        // A scenario picked from the list after a link is not the link's: it waits for Run.
        let mut page = open("power9-bigcore-asym-smt", "1000");
        act(
            &mut page,
            Action::SelectScenario("hikey960-asym-packing".into()),
        );
        assert!(!page.needs_cost() && !page.autorun(false));
    }

    /// The probe run is the check's only part that grows with the scenario (a second or so on a
    /// big machine): a check asked not to estimate runs nothing and says no cost, and a link's
    /// page, which decides on the cost, gets one.
    #[test]
    fn a_check_probes_the_cost_only_when_asked() {
        let page = loaded_page(Some("ivb-ep-hackbench"), None, None);
        let forms = page.draft.forms();
        assert_eq!(check(&forms, false).cost, None);
        let cost = check(&forms, true).cost.unwrap();
        assert!(cost.probe_events.unwrap() > 0);
        let mut page = Page::open(Link::Builtin {
            name: Some("ivb-ep-hackbench".into()),
            runs: None,
            seed: None,
        });
        settle(&mut page);
        assert!(page.cost().is_some() && page.autorun(false));
    }

    #[test]
    fn typing_rebuilds_the_draft_only_when_typing_pauses() {
        let mut page = loaded_page(None, Some("1"), Some("1"));
        let before = page.configured().unwrap();
        // A keystroke that breaks the sweep: the form shows it, the scenario waits.
        act(&mut page, Action::Edit(Edit::SweepValues("1, x".into())));
        assert!(page.draft.stale());
        assert_eq!(page.draft.workload.sweep_values, "1, x");
        assert!(page.configured().unwrap_err().contains("Checking"));
        act(&mut page, Action::TypingPaused);
        assert!(!page.draft.stale());
        assert!(
            page.configured().is_err(),
            "the bad sweep is reported once checked"
        );
        // Fixing it by typing, then the pause: the scenario builds again, with the new sweep.
        act(&mut page, Action::Edit(Edit::SweepValues("1, 2".into())));
        act(&mut page, Action::TypingPaused);
        let after = page.configured().unwrap();
        assert_ne!(after, before);
        assert_eq!(after.sweep.unwrap().values, vec![1, 2]);
        // A choice (not typing) rebuilds at once.
        act(&mut page, Action::Edit(Edit::AddVariant));
        assert!(!page.draft.stale());
        assert_eq!(
            page.configured().unwrap().variants.len(),
            before.variants.len() + 1
        );
    }

    #[test]
    fn edits_wait_while_a_job_runs() {
        let mut page = loaded_page(None, Some("1"), Some("1"));
        let scenario = page.configured().unwrap();
        page.apply(Action::Started {
            job: 1,
            scenario: Box::new(scenario.clone()),
        });
        act(&mut page, Action::Edit(Edit::AddVariant));
        assert_eq!(page.configured().unwrap(), scenario);
    }

    #[test]
    fn a_crashed_or_failed_worker_ends_the_job_with_its_message() {
        let mut page = loaded_page(None, Some("2"), Some("1"));
        let scenario = page.configured().unwrap();
        page.apply(Action::Started {
            job: 4,
            scenario: Box::new(scenario),
        });
        let report = crate::crash::CrashReport {
            job: 4,
            message: "boom".into(),
        };
        send(
            &mut page,
            [FromWorker::Failed {
                job: 4,
                message: report.page_message(),
            }],
        );
        assert_eq!(page.phase, Phase::Failed);
        assert!(page.message.contains("boom") && !page.phase.busy());
        // A report of an earlier job does not touch a later one.
        page.apply(Action::Started {
            job: 5,
            scenario: Box::new(page.configured().unwrap()),
        });
        send(
            &mut page,
            [FromWorker::Failed {
                job: 4,
                message: "late".into(),
            }],
        );
        assert_eq!(page.phase, Phase::Running);
    }

    #[test]
    fn bench_results_are_reported_apart_from_jobs() {
        let mut page = loaded_page(None, None, None);
        page.apply(Action::BenchStarted { job: 9 });
        page.apply(Action::Worker(
            FromWorker::BenchDone {
                job: 9,
                runs: 4,
                elapsed_ms: 100.0,
                busy_cpu_ns: 2_000_000_000,
                sim_ns: 1,
                events: 7,
            },
            0.0,
        ));
        assert_eq!(
            page.bench,
            BenchState::Done {
                runs: 4,
                elapsed_ms: 100.0,
                busy_cpu_ns: 2_000_000_000,
                events: 7,
            }
        );
        assert_eq!(page.phase, Phase::Idle);
    }
}
