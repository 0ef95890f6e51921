//! One run looked at closely: pick a run (here, or by clicking the table or the per-run chart),
//! and a worker of its own records it traced; then its timeline and its decision log show why
//! it went as it did. The trace stays in that worker, which answers for pages of the log and the
//! ftrace text, so a long run never loads the page.

use std::rc::Rc;

use schedlab_core::experiment::Scenario;
use schedlab_core::trace::file::FileFormat;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

use crate::components::decisions::DecisionLog;
use crate::components::timeline::Timeline;
use crate::export;
use crate::perfetto_ui;
use crate::protocol;
use crate::runview::state::{DetailAction, DetailPhase, DetailState, Effect};
use crate::runview::timeline::fmt_duration;
use crate::runview::{DecisionQuery, RunPick};
use crate::viewmodel::{fmt_param, fmt_value};
use crate::workers::{use_sim_worker, WorkerEvent};

#[derive(Properties, PartialEq)]
pub struct RunDetailProps {
    /// The scenario whose runs are shown (the current job's).
    pub scenario: Rc<Scenario>,
    /// The run to show; None until one is picked.
    pub pick: Option<RunPick>,
    pub on_pick: Callback<RunPick>,
}

#[component]
pub fn RunDetail(props: &RunDetailProps) -> Html {
    let state = use_mut_ref(DetailState::default);
    let update = use_force_update();
    let bridge_slot = use_mut_ref(|| None);
    // The Perfetto UI window the last "Open in Perfetto" click opened, waiting for its trace.
    let perfetto_window = use_mut_ref(|| None::<wasm_bindgen::JsValue>);
    let stem = export::stem(&props.scenario);
    // Parses the built-in of that name: once per scenario, not per render.
    let as_shipped = *use_memo(props.scenario.clone(), |s| {
        crate::state::is_builtin_as_shipped(s)
    });
    let run: Rc<dyn Fn(DetailAction)> = {
        let state = state.clone();
        let bridge_slot = bridge_slot.clone();
        let stem = stem.clone();
        let perfetto_window = perfetto_window.clone();
        Rc::new(move |action| {
            let effects = state.borrow_mut().apply(action);
            for e in effects {
                match e {
                    Effect::Send(m) => {
                        let bridge: Option<
                            yew_agent::reactor::UseReactorBridgeHandle<crate::agent::SimWorker>,
                        > = bridge_slot.borrow().clone();
                        if let Some(b) = bridge {
                            b.send(m);
                        }
                    }
                    Effect::SaveFtrace(text) => {
                        let index = state.borrow().detail.as_ref().map_or(0, |d| d.index);
                        let name = format!("{stem}-run{index}.ftrace.txt");
                        if let Err(e) = export::download_text(&name, "text/plain", &text) {
                            web_sys::console::warn_1(&e.into());
                        }
                    }
                    Effect::SaveFile { format, bytes } => {
                        let index = state.borrow().detail.as_ref().map_or(0, |d| d.index);
                        let name = format!("{stem}-run{index}.{}", format.extension());
                        if let Err(e) = export::download_bytes(&name, format.mime(), &bytes) {
                            web_sys::console::warn_1(&e.into());
                        }
                    }
                    Effect::OpenPerfetto(bytes) => {
                        let index = state.borrow().detail.as_ref().map_or(0, |d| d.index);
                        let name = format!("{stem}-run{index}.perfetto-trace");
                        if let Some(w) = perfetto_window.borrow_mut().take() {
                            perfetto_ui::send(&w, &bytes, &format!("{stem} run {index}"), &name);
                        }
                    }
                }
            }
            update.force_update();
        })
    };
    let bridge = {
        let run = run.clone();
        use_sim_worker(move |event| match event {
            WorkerEvent::Output(m) => run(DetailAction::Worker(m)),
            WorkerEvent::Crashed(r) => run(DetailAction::Crashed {
                job: r.job,
                message: r.page_message(),
            }),
            WorkerEvent::Gone => {}
        })
    };
    *bridge_slot.borrow_mut() = Some(bridge);
    {
        // A new pick (or a new scenario for the same pick): trace it.
        let run = run.clone();
        use_effect_with(
            (props.pick, props.scenario.clone()),
            move |(pick, scenario)| {
                if let Some(pick) = *pick {
                    run(DetailAction::Trace {
                        scenario_json: protocol::encode_scenario(scenario),
                        pick,
                    });
                }
            },
        );
    }

    let s = state.borrow().clone();
    let scenario = &props.scenario;
    let params: Vec<u64> = scenario
        .sweep
        .as_ref()
        .map_or_else(|| vec![0], |sw| sw.values.clone());
    let param_name = scenario
        .sweep
        .as_ref()
        .map_or("run".to_string(), |sw| sw.param.clone());
    let current = props.pick.unwrap_or(RunPick {
        param_index: 0,
        variant: scenario.variants.len().saturating_sub(1),
        repetition: 0,
    });
    let pick_with = |f: fn(RunPick, &Event) -> RunPick| {
        let on_pick = props.on_pick.clone();
        Callback::from(move |e: Event| on_pick.emit(f(current, &e)))
    };
    fn selected(e: &Event) -> usize {
        e.target_unchecked_into::<HtmlSelectElement>()
            .selected_index()
            .max(0) as usize
    }
    let on_param = pick_with(|p, e| RunPick {
        param_index: selected(e),
        ..p
    });
    let on_variant = pick_with(|p, e| RunPick {
        variant: selected(e),
        ..p
    });
    let on_rep = pick_with(|p, e| RunPick {
        repetition: e
            .target_unchecked_into::<HtmlInputElement>()
            .value()
            .trim()
            .parse()
            .unwrap_or(p.repetition),
        ..p
    });
    let on_trace = {
        let on_pick = props.on_pick.clone();
        Callback::from(move |_: MouseEvent| on_pick.emit(current))
    };
    let on_query = {
        let run = run.clone();
        Callback::from(move |q: DecisionQuery| run(DetailAction::Query(q)))
    };
    let on_time = {
        let run = run.clone();
        let q = s.query;
        Callback::from(move |t: u64| {
            run(DetailAction::Query(DecisionQuery {
                at_ns: Some(t),
                ..q
            }))
        })
    };
    let on_ftrace = {
        let run = run.clone();
        Callback::from(move |_: MouseEvent| run(DetailAction::Ftrace))
    };
    let on_file = |format: FileFormat, open: bool| {
        let run = run.clone();
        let perfetto_window = perfetto_window.clone();
        Callback::from(move |_: MouseEvent| {
            if open {
                // In the click itself, or the browser blocks the window.
                *perfetto_window.borrow_mut() = perfetto_ui::open_window();
                if perfetto_window.borrow().is_none() {
                    web_sys::console::warn_1(&"schedlab: the browser did not open a window".into());
                    return;
                }
            }
            run(DetailAction::TraceFile { format, open })
        })
    };
    let phase = match &s.phase {
        DetailPhase::Idle => "idle",
        DetailPhase::Tracing => "tracing",
        DetailPhase::Ready => "ready",
        DetailPhase::Failed(_) => "failed",
    };

    html! {
        <div class="run-detail" id="run-detail" data-state={phase}>
            <div class="run-picker">
                <div class="field">
                    <label for="pick-param">{ param_name.clone() }</label>
                    <select id="pick-param" onchange={on_param}>
                        { for params.iter().enumerate().map(|(i, v)| html! {
                            <option selected={i == current.param_index}>{ fmt_param(*v as f64) }</option>
                        }) }
                    </select>
                </div>
                <div class="field">
                    <label for="pick-variant">{"Variant"}</label>
                    <select id="pick-variant" onchange={on_variant}>
                        { for scenario.variants.iter().enumerate().map(|(i, v)| html! {
                            <option selected={i == current.variant}>{ v.name.clone() }</option>
                        }) }
                    </select>
                </div>
                <div class="field">
                    <label for="pick-rep">{"Repetition"}</label>
                    <input id="pick-rep" type="number" min="0" max={scenario.runs.saturating_sub(1).to_string()}
                        value={current.repetition.to_string()} onchange={on_rep} />
                </div>
                <div class="field buttons">
                    <button type="button" id="trace-run" onclick={on_trace} disabled={s.phase == DetailPhase::Tracing}>
                        { if props.pick.is_some() { "Trace again" } else { "Trace this run" } }
                    </button>
                </div>
            </div>
            { match &s.phase {
                DetailPhase::Idle => html! {
                    <p class="hint">{"Pick a run above, or click a point of the per-run chart or a cell of the table."}</p>
                },
                DetailPhase::Tracing => html! {
                    <p class="hint" id="detail-status">{"Recording the run with its events and decisions…"}</p>
                },
                DetailPhase::Failed(m) => html! { <p class="error" id="detail-error">{ m.clone() }</p> },
                DetailPhase::Ready => html! {},
            } }
            if let (Some(d), true) = (s.detail.clone(), s.phase == DetailPhase::Ready) {
                <div class="detail-head" id="detail-head" data-index={d.index.to_string()} data-variant={d.variant.clone()}>
                    <p>
                        <b>{ format!("Run {}", d.index) }</b>
                        { format!(": {}, {} {}, repetition {}, seed {}: {} {} {} in {} simulated, {} events.",
                            d.variant, d.param_name, d.param, d.pick.repetition, d.seed, d.metric,
                            fmt_value(d.value), d.unit, fmt_duration(d.sim_ns), d.events) }
                    </p>
                    <p class="hint" id="terminal-hint">
                        if as_shipped {
                            { "The same in a terminal: " }
                            <code>{ format!("schedlab explain {} --runs {} --seed {} --run {}",
                                props.scenario.name, props.scenario.runs, props.scenario.seed, d.index) }</code>
                            { " (or " }<code>{"schedlab trace"}</code>{" with the same arguments)."}
                        } else {
                            { "The same in a terminal: save the scenario (Download → Scenario JSON) and run " }
                            <code>{ format!("schedlab explain {}-scenario.json --run {}", stem, d.index) }</code>
                            { " or " }<code>{ format!("schedlab trace … --run {}", d.index) }</code>{"."}
                        }
                    </p>
                    <details class="counters">
                        <summary>{"Counters"}</summary>
                        <dl>
                            { for d.counters.iter().map(|(k, v)| html! { <><dt>{ k.clone() }</dt><dd>{ v }</dd></> }) }
                        </dl>
                    </details>
                    <div class="exports">
                        <span class="exports-label">{"Download"}</span>
                        <button type="button" class="secondary small" id="export-ftrace" onclick={on_ftrace} disabled={s.exporting}
                            title="What `schedlab trace` prints for this run">{ if s.exporting { "Preparing…" } else { "Trace (ftrace text)" } }</button>
                        <button type="button" class="secondary small" id="export-perfetto" onclick={on_file(FileFormat::Perfetto, false)} disabled={s.exporting}
                            title="A Perfetto trace of this run (what `schedlab trace --format perfetto` writes): open it at ui.perfetto.dev">{"Perfetto trace"}</button>
                        <button type="button" class="secondary small" id="export-tracecmd" onclick={on_file(FileFormat::TraceCmd, false)} disabled={s.exporting}
                            title="`trace-cmd report` text with LISA's PELT events (what `schedlab trace --format trace-cmd` writes), for LISA's TxtTraceParser">{"Trace for LISA (trace-cmd text)"}</button>
                        <button type="button" class="secondary small" id="open-perfetto" onclick={on_file(FileFormat::Perfetto, true)} disabled={s.exporting}
                            title="Leaves this page: opens ui.perfetto.dev in a new window and sends it this run's trace">{"Open in Perfetto ↗"}</button>
                    </div>
                </div>
                <h3>{"Timeline"}</h3>
                <Timeline run={d.clone()} on_time={on_time}
                    image_name={format!("{stem}-run{}-timeline", d.index)} />
                <h3>{"Decisions"}</h3>
                <p class="hint">{"Why each task went where it went: every wake-up's placement, and each load-balance pass with the \
                    statistics of the groups it compared (the local group first), the busiest group's type, the migration type and the imbalance."}</p>
                <DecisionLog page={s.page.clone()} query={s.query} counts={d.decisions}
                    nr_cpus={d.timeline.lanes} on_query={on_query} loading={s.paging} />
            }
        </div>
    }
}
