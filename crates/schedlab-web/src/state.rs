//! The page's state and how it changes: user input, a job's life, the worker's messages.
//!
//! Plain Rust (time comes in with the action), so every transition is tested natively. The app
//! component owns one [`Page`] through `use_reducer` and turns clicks and worker messages into
//! [`Action`]s; side effects (posting to the worker, the URL) stay in the component.

use std::rc::Rc;

use schedlab_core::experiment::{Plan, RunResult, Scenario};
use schedlab_core::scenarios;

use crate::components::bench::BenchState;
use crate::components::controls::ScenarioChoice;
use crate::draft::{Draft, Edit};
use crate::link::{self, Link};
use crate::protocol::{self, FromWorker};
use crate::viewmodel::{DomainsVm, ProgressVm, TableVm};

/// Largest number of runs per cell the page accepts (a page must stay responsive).
pub const MAX_RUNS: u32 = 1000;
/// Seeds drawn by "New seed" stay below 2^53, so they survive any JSON reader.
pub const SEED_MASK: u64 = (1 << 53) - 1;
/// While a job runs, the table and chart are rebuilt at most this often.
pub const TABLE_REFRESH_MS: f64 = 250.0;

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

/// A built-in scenario as loaded, with what does not depend on a run.
pub struct Loaded {
    pub scenario: Scenario,
    /// `(variant name, its sched domains)` per variant.
    pub domains: Rc<Vec<(String, DomainsVm)>>,
}

impl Loaded {
    pub fn builtin(name: &str) -> Result<Loaded, String> {
        let scenario = scenarios::builtin(name).map_err(|e| e.to_string())?;
        Loaded::new(scenario)
    }

    /// Any scenario (a share link's, say), validated as a plan would be.
    pub fn new(scenario: Scenario) -> Result<Loaded, String> {
        let plan = Plan::new(&scenario).map_err(|e| e.to_string())?;
        let domains = scenario
            .variants
            .iter()
            .enumerate()
            .map(|(i, v)| (v.name.clone(), DomainsVm::new(&plan.domains_view(i))))
            .collect();
        Ok(Loaded {
            scenario,
            domains: Rc::new(domains),
        })
    }
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
    pub plan: Option<Rc<Plan>>,
    pub results: Vec<RunResult>,
    pub total: usize,
    pub table: Option<Rc<TableVm>>,
    /// `now_ms` of the last table rebuild.
    pub table_at: f64,
    pub bench_job: u64,
    pub bench: BenchState,
    /// The scenario as edited in the machine, workload and variant forms; what Run runs.
    pub draft: Rc<Draft>,
    /// Why the address's share link could not be opened (the page fell back to the default).
    pub link_error: Option<String>,
}

pub enum Action {
    SelectScenario(String),
    /// A change in the machine, workload or variant forms.
    Edit(Edit),
    SetRuns(String),
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
            plan: None,
            results: Vec::new(),
            total: 0,
            table: None,
            table_at: f64::NEG_INFINITY,
            bench_job: 0,
            bench: BenchState::Idle,
            draft: Rc::new(Draft::new(
                &scenarios::builtin(scenarios::BUILTIN[0].name).expect("the first built-in loads"),
            )),
            link_error: None,
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
            Link::Builtin { name, runs, seed } => {
                Page::new(name.as_deref(), runs.as_deref(), seed.as_deref())
            }
            Link::Scenario(payload) => {
                let opened = link::decode(&payload)
                    .map_err(|e| e.to_string())
                    .and_then(|s| Loaded::new(s.clone()).map(|l| (s, l)));
                let mut page = Page::new(None, None, None);
                match opened {
                    Ok((scenario, loaded)) => {
                        page.runs_text = scenario.runs.to_string();
                        page.seed_text = scenario.seed.to_string();
                        page.scenario_name = scenario.name.clone();
                        page.draft = Rc::new(Draft::new(&scenario));
                        page.loaded = Ok(Rc::new(loaded));
                    }
                    Err(e) => {
                        page.link_error = Some(format!(
                        "This link could not be opened: {e}. Showing the default scenario instead."
                    ))
                    }
                }
                page
            }
        }
    }

    /// The scenario the form describes, or why it cannot run.
    pub fn configured(&self) -> Result<Scenario, String> {
        self.loaded.as_ref().map_err(|e| e.clone())?;
        configure(self.draft.scenario()?, &self.runs_text, &self.seed_text)
    }

    /// Whether the configured scenario is the built-in of `scenario_name` as it ships, runs and
    /// seed aside: then an old-style `?scenario=` link reproduces it, else only a share link does.
    pub fn is_builtin_as_is(&self, scenario: &Scenario) -> bool {
        scenarios::builtin(&self.scenario_name).is_ok_and(|mut b| {
            b.runs = scenario.runs;
            b.seed = scenario.seed;
            b == *scenario
        })
    }

    pub fn progress(&self) -> ProgressVm {
        ProgressVm {
            done: self.results.len(),
            total: self.total,
        }
    }

    fn rebuild_table(&mut self, now_ms: f64) {
        if let Some(plan) = &self.plan {
            if !self.results.is_empty() {
                self.table = Some(Rc::new(TableVm::new(&plan.table(&self.results))));
            }
        }
        self.table_at = now_ms;
    }

    pub fn apply(&mut self, action: Action) {
        match action {
            Action::SelectScenario(name) => {
                if self.phase.busy() {
                    return;
                }
                self.loaded = Loaded::builtin(&name).map(Rc::new);
                if let Ok(l) = &self.loaded {
                    self.runs_text = l.scenario.runs.to_string();
                    self.seed_text = l.scenario.seed.to_string();
                    self.draft = Rc::new(Draft::new(&l.scenario));
                }
                self.scenario_name = name;
                self.phase = Phase::Idle;
                self.message.clear();
                self.plan = None;
                self.results.clear();
                self.total = 0;
                self.table = None;
            }
            Action::Edit(edit) => {
                if !self.phase.busy() {
                    Rc::make_mut(&mut self.draft).apply(edit);
                }
            }
            Action::SetRuns(t) => self.runs_text = t,
            Action::SetSeed(t) => self.seed_text = t,
            Action::Started { job, scenario } => match Plan::new(&scenario) {
                Ok(plan) => {
                    self.job = job;
                    self.phase = Phase::Running;
                    self.message = format!("running {} (seed {})", scenario.name, scenario.seed);
                    self.total = plan.len();
                    self.plan = Some(Rc::new(plan));
                    self.results.clear();
                    self.table = None;
                    self.table_at = f64::NEG_INFINITY;
                }
                Err(e) => {
                    self.job = job;
                    self.phase = Phase::Failed;
                    self.message = e.to_string();
                }
            },
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
            Action::Worker(msg, now_ms) => self.on_worker(msg, now_ms),
        }
    }

    fn on_worker(&mut self, msg: FromWorker, now_ms: f64) {
        if msg.job() == self.bench_job && self.bench == BenchState::Running {
            match msg {
                FromWorker::BenchDone {
                    runs,
                    elapsed_ms,
                    busy_cpu_ns,
                    ..
                } => {
                    self.bench = BenchState::Done {
                        runs,
                        elapsed_ms,
                        busy_cpu_ns,
                    };
                }
                FromWorker::Failed { message, .. } => self.bench = BenchState::Failed(message),
                _ => {}
            }
            return;
        }
        if msg.job() != self.job || !self.phase.busy() {
            return; // a late message of an earlier job
        }
        match msg {
            FromWorker::Planned { total, .. } => self.total = total,
            FromWorker::Result { result_json, .. } => match protocol::decode_result(&result_json) {
                Ok(r) => {
                    self.results.push(r);
                    if now_ms - self.table_at >= TABLE_REFRESH_MS {
                        self.rebuild_table(now_ms);
                    }
                }
                Err(e) => {
                    self.phase = Phase::Failed;
                    self.message = e;
                }
            },
            FromWorker::Done { elapsed_ms, .. } => {
                self.rebuild_table(now_ms);
                self.phase = Phase::Done;
                self.message = format!(
                    "done: {} runs in {:.1} s",
                    self.results.len(),
                    elapsed_ms / 1e3
                );
            }
            FromWorker::Cancelled { done, .. } => {
                self.rebuild_table(now_ms);
                self.phase = Phase::Cancelled;
                self.message = format!("cancelled after {done} of {} runs", self.total);
            }
            FromWorker::Failed { message, .. } => {
                self.rebuild_table(now_ms);
                self.phase = Phase::Failed;
                self.message = message;
            }
            FromWorker::BenchDone { .. } => {}
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

    fn first_builtin() -> &'static str {
        scenarios::BUILTIN[0].name
    }

    fn result_msg(job: u64, plan: &Plan, index: usize) -> FromWorker {
        let r = plan.run(index).unwrap();
        FromWorker::Result {
            job,
            index,
            result_json: protocol::encode_result(&r),
        }
    }

    #[test]
    fn loads_the_builtin_with_its_defaults_and_url_overrides() {
        let page = Page::new(None, None, None);
        assert_eq!(page.scenario_name, first_builtin());
        let loaded = page.loaded.as_ref().unwrap();
        assert_eq!(page.runs_text, loaded.scenario.runs.to_string());
        assert_eq!(loaded.domains.len(), loaded.scenario.variants.len());
        let page = Page::new(Some(first_builtin()), Some("3"), Some("1"));
        let s = page.configured().unwrap();
        assert_eq!((s.runs, s.seed), (3, 1));
        let page = Page::new(Some("no-such-scenario"), None, None);
        assert!(page.loaded.is_err() && page.configured().is_err());
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
    fn a_job_collects_results_and_ignores_other_jobs() {
        let mut page = Page::new(None, Some("1"), Some("5"));
        let scenario = page.configured().unwrap();
        let plan = Plan::new(&scenario).unwrap();
        page.apply(Action::Started {
            job: 2,
            scenario: Box::new(scenario.clone()),
        });
        assert_eq!(page.phase, Phase::Running);
        assert_eq!(
            page.progress(),
            ProgressVm {
                done: 0,
                total: plan.len()
            }
        );
        // A late result of job 1 is ignored.
        page.apply(Action::Worker(result_msg(1, &plan, 0), 0.0));
        assert_eq!(page.results.len(), 0);
        for i in 0..plan.len() {
            page.apply(Action::Worker(result_msg(2, &plan, i), 0.0));
        }
        page.apply(Action::Worker(
            FromWorker::Done {
                job: 2,
                elapsed_ms: 12.0,
            },
            1.0,
        ));
        assert_eq!(page.phase, Phase::Done);
        assert_eq!(page.progress().done, plan.len());
        // The page's table is the core's table of the same results.
        let all: Vec<RunResult> = (0..plan.len()).map(|i| plan.run(i).unwrap()).collect();
        assert_eq!(*page.table.unwrap(), TableVm::new(&plan.table(&all)));
    }

    #[test]
    fn cancel_keeps_the_partial_table() {
        let mut page = Page::new(None, Some("2"), Some("1"));
        let scenario = page.configured().unwrap();
        let plan = Plan::new(&scenario).unwrap();
        page.apply(Action::Started {
            job: 1,
            scenario: Box::new(scenario),
        });
        page.apply(Action::Worker(result_msg(1, &plan, 0), 0.0));
        page.apply(Action::Worker(result_msg(1, &plan, 1), 10.0)); // within the refresh interval
        page.apply(Action::CancelRequested);
        assert_eq!(page.phase, Phase::Cancelling);
        // Inputs cannot change the scenario while busy.
        page.apply(Action::SelectScenario(first_builtin().into()));
        assert_eq!(page.phase, Phase::Cancelling);
        page.apply(Action::Worker(
            FromWorker::Cancelled { job: 1, done: 2 },
            20.0,
        ));
        assert_eq!(page.phase, Phase::Cancelled);
        assert!(page.progress().done < page.progress().total);
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
        let mut page = Page::new(None, Some("2"), Some("77"));
        page.apply(Action::Edit(Edit::Llc(
            schedlab_core::topology::LlcSpan::Cluster,
        )));
        page.apply(Action::Edit(Edit::AddVariant));
        let scenario = page.configured().unwrap();
        assert!(!page.is_builtin_as_is(&scenario));
        let opened = Page::open(Link::Scenario(link::encode(&scenario)));
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
    fn a_broken_link_falls_back_to_the_default_and_says_why() {
        let page = Page::open(Link::Scenario("1.not-a-scenario".into()));
        assert!(page.link_error.as_deref().unwrap().contains("damaged"));
        assert_eq!(page.scenario_name, first_builtin());
        assert!(page.configured().is_ok());
        let page = Page::open(Link::Scenario("9.AAAA".into()));
        assert!(page.link_error.as_deref().unwrap().contains("format 9"));
        // Old links keep working, and an unmodified built-in is recognised as such.
        let page = Page::open(Link::Builtin {
            name: Some(first_builtin().into()),
            runs: Some("4".into()),
            seed: Some("2".into()),
        });
        let s = page.configured().unwrap();
        assert_eq!((s.runs, s.seed), (4, 2));
        assert!(page.is_builtin_as_is(&s));
    }

    #[test]
    fn edits_wait_while_a_job_runs() {
        let mut page = Page::new(None, Some("1"), Some("1"));
        let scenario = page.configured().unwrap();
        page.apply(Action::Started {
            job: 1,
            scenario: Box::new(scenario.clone()),
        });
        page.apply(Action::Edit(Edit::AddVariant));
        assert_eq!(page.configured().unwrap(), scenario);
    }

    #[test]
    fn bench_results_are_reported_apart_from_jobs() {
        let mut page = Page::new(None, None, None);
        page.apply(Action::BenchStarted { job: 9 });
        page.apply(Action::Worker(
            FromWorker::BenchDone {
                job: 9,
                runs: 4,
                elapsed_ms: 100.0,
                busy_cpu_ns: 2_000_000_000,
                sim_ns: 1,
            },
            0.0,
        ));
        assert_eq!(
            page.bench,
            BenchState::Done {
                runs: 4,
                elapsed_ms: 100.0,
                busy_cpu_ns: 2_000_000_000
            }
        );
        assert_eq!(page.phase, Phase::Idle);
    }
}
