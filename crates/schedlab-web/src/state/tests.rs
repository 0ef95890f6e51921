//! Tests of the page's state machine: loading, checking, running, cancelling, share links and
//! worker failures, driven through `Page::apply` with the workers' messages written out.

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

/// A page running job 1 (`runs` per cell, seed 1) whose first two runs came in, with their table.
fn two_runs_in(runs: &str) -> Page {
    let mut page = loaded_page(None, Some(runs), Some("1"));
    let scenario = page.configured().unwrap();
    let plan = Plan::new(&scenario).unwrap();
    page.apply(Action::Started {
        job: 1,
        scenario: Box::new(scenario),
    });
    let two: Vec<RunResult> = (0..2).map(|i| plan.run(i).unwrap()).collect();
    send(&mut page, after(1, &plan, &two));
    page
}

#[test]
fn runs_done_come_from_the_tables_and_the_jobs_end_not_from_progress_messages() {
    let mut page = two_runs_in("4");
    assert_eq!(page.done, 2);
    // The live count is the progress views' (`LiveProgress`): the page is not re-rendered by it.
    send(&mut page, [FromWorker::Progress { job: 1, done: 3 }]);
    assert_eq!(page.done, 2);
    page.apply(Action::CancelRequested);
    // A third run finished after the last table: the job's end says so.
    send(&mut page, [FromWorker::Cancelled { job: 1, done: 3 }]);
    assert_eq!(page.progress().done, 3);
}

#[test]
fn cancel_keeps_the_partial_table() {
    let mut page = two_runs_in("2");
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
