//! The page: the worker provider, and the component that wires the views to the state.

use std::cell::Cell;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use web_sys::UrlSearchParams;
use yew::prelude::*;
use yew_agent::reactor::ReactorProvider;
use yew_agent::Reach;

use crate::agent::SimWorker;
use crate::charts;
use crate::components::bench::BenchResult;
use crate::components::chart::Chart;
use crate::components::controls::Controls;
use crate::components::distribution::Distributions;
use crate::components::domains::Domains;
use crate::components::embed::EmbedView;
use crate::components::experiments::ReferenceExperiments;
use crate::components::exports::Exports;
use crate::components::machine::MachineEditor;
use crate::components::progress::{LiveProgress, Progress};
use crate::components::report::ReportPicker;
use crate::components::run_detail::RunDetail;
use crate::components::share::{self, Share};
use crate::components::table::ComparisonTableView;
use crate::components::variants::VariantsEditor;
use crate::components::workload::WorkloadEditor;
use crate::export;
use crate::protocol::{self, FromWorker, Opening, ToWorker};
use crate::runview::RunPick;
use crate::state::{self, Action, Page};
use crate::view_params::ViewParams;
use crate::workers::{use_sim_worker, use_sim_worker_then, WorkerEvent};

/// The worker script trunk emits for the `worker` binary, relative to the page.
pub const WORKER_PATH: &str = "worker.js";

#[component]
pub fn App() -> Html {
    html! {
        // Private: each bridge has a worker of its own (the job's, the run detail's), and a
        // crashed worker can be replaced (see `workers`).
        <ReactorProvider<SimWorker> path={WORKER_PATH} reach={Reach::Private}>
            <Main />
        </ReactorProvider<SimWorker>>
    }
}

fn query() -> Option<UrlSearchParams> {
    let search = web_sys::window()?.location().search().ok()?;
    UrlSearchParams::new_with_str(&search).ok()
}

/// The job worker's `Pool` request: the worker script's absolute address, and the job workers
/// the address asks for (`?workers=N`; 0, the default, for `navigator.hardwareConcurrency`,
/// capped: `pool::job_workers`). The benchmark (`?bench=1`) measures one worker against one
/// native thread, and no helper compiles its wasm beside it.
fn pool_request() -> Option<ToWorker> {
    let href = web_sys::window()?.location().href().ok()?;
    let script_url = web_sys::Url::new_with_base(WORKER_PATH, &href).ok()?.href();
    let q = query();
    let bench = q
        .as_ref()
        .and_then(|q| q.get("bench"))
        .is_some_and(|b| b == "1");
    let workers = match q
        .and_then(|q| q.get("workers"))
        .and_then(|n| n.parse().ok())
    {
        _ if bench => 1,
        Some(n) => n,
        None => 0,
    };
    Some(ToWorker::Pool {
        script_url,
        workers,
    })
}

fn now_ms() -> f64 {
    js_sys::Date::now()
}

/// A random seed below 2^53 for the "New seed" button.
fn random_seed() -> Option<u64> {
    let mut buf = [0u8; 8];
    getrandom::fill(&mut buf).ok()?;
    Some(u64::from_le_bytes(buf) & state::SEED_MASK)
}

/// This page's address without `view=embed`: the full playground for the same scenario.
fn full_link() -> String {
    let Some(location) = web_sys::window().map(|w| w.location()) else {
        return "./".into();
    };
    let params = query().unwrap_or_else(|| UrlSearchParams::new().expect("an empty query"));
    params.delete("view");
    let path = location.pathname().unwrap_or_default();
    // A share link keeps its scenario in the fragment.
    let hash = location.hash().unwrap_or_default();
    format!("{path}?{}{hash}", String::from(params.to_string()))
}

#[component]
fn Main() -> Html {
    let page = use_reducer(|| {
        let mut page = Page::open(share::current_link());
        page.report = share::current_view().report;
        page
    });
    let next_job = use_mut_ref(|| Cell::new(0u64));
    // plotly.js runs with the first chart; fetched now, it is here then (offline too).
    use_effect_with((), |_| crate::plotly::prefetch());

    // The job worker spawns its helpers after a link's first results, or before Run is pressed
    // (`pool`: when no job has come for a while);
    // `?workers=N` asks for N job workers (1: the sweep runs in the job worker alone).
    let pool = use_memo((), |_| pool_request());
    // A job's progress messages re-render the progress views only, not the page.
    let live = use_memo((), |_| LiveProgress::default());
    let bridge = {
        let dispatch = page.dispatcher();
        let live = (*live).clone();
        use_sim_worker_then((*pool).clone(), move |event| match event {
            WorkerEvent::Output(FromWorker::Progress { job, done }) => live.set(job, done),
            WorkerEvent::Output(msg) => dispatch.dispatch(Action::Worker(msg, now_ms())),
            WorkerEvent::Crashed(r) => {
                let message = r.page_message();
                dispatch.dispatch(Action::Worker(
                    FromWorker::Failed {
                        job: r.job,
                        message,
                    },
                    now_ms(),
                ))
            }
            WorkerEvent::Gone => dispatch.dispatch(Action::WorkerGone),
        })
    };
    // The check worker builds the edited forms (see `draft`): each revision that is due is sent
    // once, and its answer is taken only if the draft is still at that revision.
    let check_bridge = {
        let dispatch = page.dispatcher();
        use_sim_worker(move |event| match event {
            WorkerEvent::Output(FromWorker::Checked { job, checked_json }) => {
                dispatch.dispatch(match protocol::decode(&checked_json) {
                    Ok(checked) => Action::Checked {
                        revision: job,
                        checked: Box::new(checked),
                    },
                    Err(message) => Action::CheckFailed {
                        revision: job,
                        message,
                    },
                })
            }
            WorkerEvent::Output(FromWorker::Linked { job, payload }) => {
                dispatch.dispatch(Action::Linked { job, payload })
            }
            WorkerEvent::Output(FromWorker::Opened { job, opened }) => {
                dispatch.dispatch(Action::Opened {
                    job,
                    opened: opened.and_then(|json| protocol::decode_scenario(&json).map(Box::new)),
                })
            }
            WorkerEvent::Output(FromWorker::Failed { job, message }) => {
                dispatch.dispatch(Action::CheckFailed {
                    revision: job,
                    message,
                })
            }
            WorkerEvent::Output(_) | WorkerEvent::Gone => {}
            WorkerEvent::Crashed(r) => dispatch.dispatch(Action::CheckFailed {
                revision: r.job,
                message: r.page_message(),
            }),
        })
    };
    {
        let draft = page.draft.clone();
        let check_bridge = check_bridge.clone();
        let estimate = page.needs_cost();
        use_effect_with(page.draft.check_due(), move |due| {
            if let Some(revision) = *due {
                check_bridge.send(ToWorker::Check {
                    job: revision,
                    forms_json: protocol::encode(&draft.forms()),
                    estimate,
                });
            }
        });
    }
    {
        // The address's share link is opened by the check worker (`link::decode`).
        let check_bridge = check_bridge.clone();
        use_effect_with(page.opening.clone(), move |opening| {
            if let Some((job, opening)) = opening {
                check_bridge.send(ToWorker::OpenLink {
                    job: *job,
                    opening: opening.clone(),
                });
            }
        });
    }
    {
        // The configured scenario's share link is made by the check worker as it changes, so
        // Share and the address have it at once (`link::encode` is not in the page's wasm).
        let dispatch = page.dispatcher();
        use_effect_with(page.share_due(), move |due| {
            if let Some(scenario) = due {
                let job = crate::draft::next_revision();
                check_bridge.send(ToWorker::Link {
                    job,
                    scenario_json: protocol::encode_scenario(scenario),
                });
                dispatch.dispatch(Action::Linking {
                    job,
                    scenario: Box::new(scenario.clone()),
                });
            }
        });
    }
    // The run looked at closely (table cell, chart point or the picker).
    // A link may name one (`?run=`); it is shown once a table is there.
    let pick = use_state(|| share::current_view().pick);
    let embed = *use_memo((), |_| {
        query().and_then(|q| q.get("view")).as_deref() == Some("embed")
    });
    let view = ViewParams {
        pick: *pick,
        report: page.report,
    };
    use_effect_with(view, move |view| {
        if !embed {
            share::remember_view_in_url(view);
        }
    });
    {
        // A job's scenario goes in the address: a built-in as shipped by name, else its share
        // link, as soon as the check worker has made it (at once when Run is pressed on a
        // scenario whose link is there already).
        let scenario = page.scenario.clone();
        let name = page.scenario_name.clone();
        let payload = scenario
            .as_deref()
            .and_then(|s| page.share_payload(s))
            .map(str::to_string);
        use_effect_with((page.job, payload), move |(job, payload)| {
            if let (false, 1.., Some(scenario)) = (embed, *job, scenario) {
                let builtin = state::is_builtin_as_shipped(&scenario);
                let name = builtin.then_some(name.as_str());
                share::remember_in_url(&scenario, name, payload.as_deref(), &view);
            }
        });
    }
    {
        // `window.schedlabCrashWorker()`: the e2e tests crash the job worker on purpose.
        let bridge = bridge.clone();
        let job = use_mut_ref(|| 0u64);
        *job.borrow_mut() = page.job;
        use_effect_with((), move |_| {
            let hook = Closure::<dyn Fn()>::new(move || {
                bridge.send(ToWorker::Crash { job: *job.borrow() })
            });
            if let Some(w) = web_sys::window() {
                let _ = js_sys::Reflect::set(
                    &w,
                    &"schedlabCrashWorker".into(),
                    hook.as_ref().unchecked_ref(),
                );
            }
            move || drop(hook)
        });
    }

    // The benchmark: `?bench=1` starts it on load; `window.schedlabBench()` starts it on demand,
    // and `window.schedlabBench(name)` benches the scenario of that name, which the job worker
    // opens (`Opening::Named`: the bench matrix's cells are not in the page). Returns the job (0:
    // nothing started), which the result's `data-job` carries.
    let start_bench = {
        let bridge = bridge.clone();
        let dispatch = page.dispatcher();
        let next_job = next_job.clone();
        let loaded = page.loaded.clone();
        Rc::new(move |name: Option<String>| -> u64 {
            let request = |job| match &name {
                Some(name) => Some(ToWorker::BenchOpening {
                    job,
                    opening: Opening::Named {
                        name: name.clone(),
                        runs: None,
                        seed: None,
                    },
                }),
                None => {
                    let mut scenario = loaded.as_ref().ok()?.scenario.clone();
                    if let Some(runs) = query()
                        .and_then(|q| q.get("runs"))
                        .and_then(|r| r.parse().ok())
                    {
                        scenario.runs = runs;
                    }
                    Some(ToWorker::Bench {
                        job,
                        scenario_json: protocol::encode_scenario(&scenario),
                    })
                }
            };
            let job = next_job.borrow().get() + 1;
            let Some(msg) = request(job) else { return 0 };
            next_job.borrow().set(job);
            dispatch.dispatch(Action::BenchStarted { job });
            bridge.send(msg);
            job
        })
    };
    {
        let start_bench = start_bench.clone();
        use_effect_with((), move |_| {
            let hook = Closure::<dyn Fn(JsValue) -> JsValue>::new(move |name: JsValue| {
                JsValue::from_f64(start_bench(name.as_string()) as f64)
            });
            if let Some(w) = web_sys::window() {
                let _ = js_sys::Reflect::set(
                    &w,
                    &"schedlabBench".into(),
                    hook.as_ref().unchecked_ref(),
                );
                if query()
                    .and_then(|q| q.get("bench"))
                    .is_some_and(|b| b == "1")
                {
                    let _ = js_sys::Reflect::get(&w, &"schedlabBench".into())
                        .ok()
                        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
                        .map(|f| f.call0(&JsValue::NULL));
                }
            }
            move || drop(hook)
        });
    }

    use_effect_with((), |_| share::reload_on_hash_change());

    let on_run = {
        let bridge = bridge.clone();
        let page = page.clone();
        let next_job = next_job.clone();
        let pick = pick.clone();
        Callback::from(move |()| {
            if page.phase.busy() {
                return;
            }
            let Ok(scenario) = page.configured() else {
                return;
            };
            let job = {
                let c = next_job.borrow();
                c.set(c.get() + 1);
                c.get()
            };
            // The run looked at stays picked while the new scenario has it.
            let kept = (*pick).filter(|p| p.fits(&scenario));
            pick.set(kept);
            let scenario_json = protocol::encode_scenario(&scenario);
            page.dispatch(Action::Started {
                job,
                scenario: Box::new(scenario),
            });
            bridge.send(ToWorker::Start {
                job,
                scenario_json,
                quantity: page.report,
            });
        })
    };
    let on_cancel = {
        let bridge = bridge.clone();
        let page = page.clone();
        Callback::from(move |()| {
            if page.phase.busy() {
                bridge.send(ToWorker::Cancel { job: page.job });
                page.dispatch(Action::CancelRequested);
            }
        })
    };
    let on_scenario = page
        .dispatcher()
        .to_callback()
        .reform(Action::SelectScenario);
    // Typing edits change the form at once and rebuild the draft when typing pauses: one timer,
    // restarted by every keystroke.
    let typing_timer = use_mut_ref(|| None::<(i32, Closure<dyn Fn()>)>);
    let on_edit = {
        let dispatch = page.dispatcher();
        Callback::from(move |edit: crate::draft::Edit| {
            let typing = edit.is_typing();
            dispatch.dispatch(Action::Edit(edit));
            if !typing {
                return;
            }
            let Some(window) = web_sys::window() else {
                return;
            };
            if let Some((handle, _)) = typing_timer.borrow_mut().take() {
                window.clear_timeout_with_handle(handle);
            }
            let paused = {
                let dispatch = dispatch.clone();
                Closure::<dyn Fn()>::new(move || dispatch.dispatch(Action::TypingPaused))
            };
            if let Ok(handle) = window.set_timeout_with_callback_and_timeout_and_arguments_0(
                paused.as_ref().unchecked_ref(),
                state::TYPING_PAUSE_MS,
            ) {
                *typing_timer.borrow_mut() = Some((handle, paused));
            }
        })
    };
    // Another quantity of the same runs: the job worker tables them again.
    let on_report = {
        let bridge = bridge.clone();
        let page = page.clone();
        Callback::from(move |q| {
            if page.can_retable() && q != page.report {
                bridge.send(ToWorker::Retable {
                    job: page.job,
                    quantity: q,
                });
            }
            page.dispatch(Action::SetReport(q));
        })
    };
    let on_runs = page.dispatcher().to_callback().reform(Action::SetRuns);
    let on_seed = page.dispatcher().to_callback().reform(Action::SetSeed);
    let on_new_seed = {
        let dispatch = page.dispatcher();
        Callback::from(move |()| {
            if let Some(seed) = random_seed() {
                dispatch.dispatch(Action::SetSeed(seed.to_string()));
            }
        })
    };

    {
        // The embed view runs the linked scenario as soon as it is checked; the full page does
        // when a link named a scenario whose estimated cost is small.
        // `?autorun=0` opens the full page without running (to edit first; the e2e tests).
        let on_run = on_run.clone();
        let held = *use_memo((), |_| {
            query().and_then(|q| q.get("autorun")).as_deref() == Some("0")
        });
        let ready = page.autorun(embed) && (embed || !held);
        use_effect_with(ready, move |ready| {
            if *ready {
                on_run.emit(());
            }
        });
    }
    if embed {
        let title = page
            .loaded
            .as_ref()
            .map_or_else(|_| page.scenario_name.clone(), |l| l.scenario.title.clone());
        // A link whose scenario does not check says why instead of waiting forever.
        let embed_message = match page.configured() {
            Err(e) if page.phase == state::Phase::Idle && !page.draft.stale() => e,
            _ if page.message.is_empty() => page.draft.limits_lowered.clone().unwrap_or_default(),
            _ => page.message.clone(),
        };
        return html! {
            <EmbedView title={title} table={page.table.clone()} results={page.results.clone()} progress={page.progress()}
                live={(*live).clone()} job={page.job} busy={page.phase.busy()}
                state={page.phase.name()} message={embed_message} full_link={full_link()} />
        };
    }
    let on_pick = {
        let pick = pick.clone();
        Callback::from(move |p: RunPick| pick.set(Some(p)))
    };
    let results = match (
        page.table.clone(),
        page.results.clone(),
        page.scenario.clone(),
    ) {
        (Some(vm), Some(results), Some(scenario)) => {
            let on_cell = {
                let on_pick = on_pick.clone();
                let scenario = scenario.clone();
                Callback::from(move |(param, variant): (u64, usize)| {
                    if let Some(param_index) = charts::param_index(&scenario, param) {
                        on_pick.emit(RunPick {
                            param_index,
                            variant,
                            repetition: 0,
                        });
                    }
                })
            };
            let stem = export::stem(&scenario);
            Some(html! { <>
                <ComparisonTableView vm={vm.clone()} on_cell={on_cell} />
                <Chart results={results.clone()} image_name={format!("{stem}-means")} />
                // The files and every run's value come with the table of a stopped job, so
                // streaming results only redraw the table and the means.
                if results.finished.is_some() && !page.phase.busy() {
                    <Exports scenario={scenario.clone()} results={results.clone()} quantity={page.report} />
                    <Distributions results={results} on_pick={on_pick.clone()} image_name={stem} />
                }
            </> })
        }
        _ => None,
    };
    // While the check worker has not answered, Run waits and says so, without an error's colour.
    let checking = page.draft.stale() || page.opening.is_some();
    let invalid = if checking {
        None
    } else {
        page.configured().err()
    };
    let description = page
        .loaded
        .as_ref()
        .ok()
        .map(|l| l.scenario.description.clone());
    html! {
        <>
        <header class="top">
            <h1>{"Schedlab"}</h1>
            <p class="tagline">{"A deterministic model of the Linux CFS scheduler, running in your browser."}</p>
        </header>
        <main>
            if let Some(e) = &page.link_error {
                <p class="error link-error" id="link-error" role="alert">{ e.clone() }</p>
            }
            <section class="card" id="reference">
                <h2>{"Reference experiments"}</h2>
                <ReferenceExperiments current={page.scenario_name.clone()} disabled={page.phase.busy()}
                    on_load={on_scenario.clone()} />
            </section>
            <section class="card" id="setup">
                <h2>{"Experiment"}</h2>
                <Controls scenarios={state::scenario_choices()} scenario={page.scenario_name.clone()}
                    runs={page.runs_text.clone()} seed={page.seed_text.clone()} running={page.phase.busy()}
                    invalid={invalid} checking={checking} on_scenario={on_scenario} on_runs={on_runs} on_seed={on_seed}
                    on_new_seed={on_new_seed} on_run={on_run} on_cancel={on_cancel} />
                <Share payload={page.configured().ok().and_then(|s| page.share_payload(&s).map(str::to_string))}
                    scenario={page.configured().ok()} view={view} />
                if let Some(d) = description {
                    <details class="description"><summary>{"About this scenario"}</summary><p>{ d }</p></details>
                }
                if let Some(note) = &page.draft.limits_lowered {
                    <p class="hint" id="limits-lowered" role="note">{ note.clone() }</p>
                }
                if let Some(note) = page.waiting_note() {
                    <p class="hint" id="cost-note" role="note">{ note }</p>
                }
                <Progress progress={page.progress()} live={(*live).clone()} job={page.job} busy={page.phase.busy()}
                    state={page.phase.name()} message={page.message.clone()} />
            </section>
            <section class="card" id="results">
                <h2>{"Results"}</h2>
                <ReportPicker current={page.report} disabled={page.phase.busy()} on_change={on_report} />
                if let Some(results) = results {
                    { results }
                } else {
                    <p class="hint" id="no-results">{"Press Run: the runs execute in a Web Worker and the table fills in as they finish."}</p>
                }
            </section>
            if let (Some(scenario), Some(_)) = (page.scenario.clone(), page.table.as_ref()) {
                <section class="card" id="detail">
                    <h2>{"One run, closely"}</h2>
                    <RunDetail scenario={scenario} pick={*pick} on_pick={on_pick} />
                </section>
            }
            <section class="card" id="machine-card">
                <h2>{"Machine"}{ modified(page.draft.machine_modified()) }</h2>
                <MachineEditor draft={page.draft.clone()} disabled={page.phase.busy()} on_edit={on_edit.clone()} />
            </section>
            <section class="card" id="topology">
                <h2>{"Sched domains"}</h2>
                if let Err(e) = &page.loaded {
                    <p class="error">{ e.clone() }</p>
                } else if page.draft.domains.is_empty() && page.draft.stale() {
                    <p class="hint" id="domains-checking">{"Building the sched domains…"}</p>
                } else if page.draft.domains.is_empty() {
                    <p class="hint" id="domains-unavailable">{"Fix the machine above (or a variant's kernel below) to see its sched domains."}</p>
                } else {
                    <Domains views={page.draft.domains.clone()} />
                }
            </section>
            <section class="card" id="workload-card">
                <h2>{"Workload"}</h2>
                <WorkloadEditor draft={page.draft.clone()} disabled={page.phase.busy()} on_edit={on_edit.clone()} />
            </section>
            <section class="card" id="variants-card">
                <h2>{"Variants"}</h2>
                <VariantsEditor draft={page.draft.clone()} disabled={page.phase.busy()} on_edit={on_edit} />
            </section>
        </main>
        <footer class="bottom">
            <span>{"Same scenario and seed, same numbers: in this page, in the CLI, in any browser."}</span>
            <BenchResult state={page.bench.clone()} job={page.bench_job} />
        </footer>
        </>
    }
}

/// A mark beside a section's title while it differs from the loaded scenario.
fn modified(yes: bool) -> Html {
    if yes {
        html! { <span class="modified" title="differs from the loaded scenario">{"edited"}</span> }
    } else {
        html! {}
    }
}
