//! Per-run views of the results: every run's value (strip chart), the histogram and the wake-up
//! classification sections of scenarios that ask for them. All from the core's table, drawn by the
//! job worker (`results::FinishedVm`).

use std::rc::Rc;

use yew::prelude::*;

use crate::components::plot::Plot;
use crate::plotly::{Click, Figure};
use crate::results::ResultsVm;
use crate::runview::RunPick;

#[derive(Properties, PartialEq)]
pub struct DistributionsProps {
    /// A stopped job's results (nothing is drawn without their `finished` part).
    pub results: Rc<ResultsVm>,
    /// A click on a run's point picks that run.
    pub on_pick: Callback<RunPick>,
    /// File name stem of the chart downloads.
    pub image_name: AttrValue,
}

/// `[param_index, variant, repetition]`, as the strip chart's points carry it.
fn pick_of(click: &Click) -> Option<RunPick> {
    match click.custom[..] {
        [p, v, r] => Some(RunPick {
            param_index: p as usize,
            variant: v as usize,
            repetition: r as u32,
        }),
        _ => None,
    }
}

#[component]
pub fn Distributions(props: &DistributionsProps) -> Html {
    let figures = use_memo(props.results.clone(), |r| {
        r.finished.as_ref().map(|f| {
            (
                Figure::from_json(f.strip_figure.clone()),
                f.strip_every,
                f.histogram_figure.clone().map(Figure::from_json),
            )
        })
    });
    let (Some((strip, every, histogram)), Some(f)) =
        ((*figures).clone(), props.results.finished.as_ref())
    else {
        return html! {};
    };
    let on_click = {
        let on_pick = props.on_pick.clone();
        Callback::from(move |c: Click| {
            if let Some(p) = pick_of(&c) {
                on_pick.emit(p);
            }
        })
    };
    let t = &props.results.table;
    html! {
        <div class="distributions" id="distributions">
            <h3>{"Every run"}</h3>
            <p class="hint">
                { "Each point is one run; the bar marks the mean. Click a point to see that run's timeline and decisions." }
                if every > 1 {
                    <span class="decimated" id="strip-thinned">
                        { format!(" Showing every {}th repetition of each cell to keep the page responsive.", every) }
                    </span>
                }
            </p>
            <Plot id="distribution-chart" figure={strip} on_click={on_click}
                image_name={format!("{}-runs", props.image_name)} />
            if let Some(h) = histogram {
                <h3>{"Histogram"}</h3>
                <p class="hint">{ format!("Runs of each variant by {} (all parameter values together), in the scenario's buckets.", t.metric) }</p>
                <Plot id="histogram-chart" figure={h} image_name={format!("{}-histogram", props.image_name)} />
            }
            if !f.checks.is_empty() {
                <h3>{"LISA checks"}</h3>
                <p class="hint">{"LISA's pass rules for this test, from a traced run of each variant (schedlab check)."}</p>
                <ul class="lisa-checks" id="lisa-checks">
                    { for f.checks.iter().map(|l| html! { <li><code>{ l.clone() }</code></li> }) }
                </ul>
            }
            if !f.wake_classes.is_empty() {
                <h3>{"Wake-up classification"}</h3>
                <p class="hint">{"Wake-ups summed over all runs, by task size (big: does not fit ~80% of the smallest capacity), \
                    the CPUs it ran on, was woken from and was placed on (big: above the smallest capacity), and the path that placed it."}</p>
                <div class="table-scroll">
                    <table class="wake-classes" id="wake-classes">
                        <thead><tr>
                            <th>{"task"}</th><th>{"prev CPU"}</th><th>{"waker CPU"}</th><th>{"woken onto"}</th><th>{"path"}</th>
                            { for t.variants.iter().map(|v| html! { <th class="num">{ v.clone() }</th> }) }
                        </tr></thead>
                        <tbody>
                            { for f.wake_classes.iter().map(|c| html! {
                                <tr>
                                    <td>{ c.task.clone() }</td><td>{ c.prev_cpu.clone() }</td><td>{ c.waker_cpu.clone() }</td>
                                    <td>{ c.woken_onto.clone() }</td><td>{ c.path.clone() }</td>
                                    { for c.counts.iter().map(|n| html! { <td class="num">{ n }</td> }) }
                                </tr>
                            }) }
                        </tbody>
                    </table>
                </div>
            }
        </div>
    }
}
