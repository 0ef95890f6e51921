//! Per-run views of the results: every run's value (strip chart), the histogram and the wake-up
//! classification sections of scenarios that ask for them. All from the core's table.

use std::rc::Rc;

use schedlab_core::experiment::Scenario;
use schedlab_core::table::ComparisonTable;
use yew::prelude::*;

use crate::charts;
use crate::components::plot::Plot;
use crate::plotly::{Click, Figure};
use crate::runview::RunPick;

#[derive(Properties, PartialEq)]
pub struct DistributionsProps {
    pub table: Rc<ComparisonTable>,
    pub scenario: Rc<Scenario>,
    /// A click on a run's point picks that run.
    pub on_pick: Callback<RunPick>,
    /// File name stem of the chart downloads.
    pub image_name: AttrValue,
}

/// `[param_index, variant, repetition]`, as the strip chart's points carry it.
fn pick_of(click: &Click) -> Option<RunPick> {
    let c = click.custom.as_array()?;
    Some(RunPick {
        param_index: c.first()?.as_u64()? as usize,
        variant: c.get(1)?.as_u64()? as usize,
        repetition: c.get(2)?.as_u64()? as u32,
    })
}

#[component]
pub fn Distributions(props: &DistributionsProps) -> Html {
    let strip = use_memo((props.table.clone(), props.scenario.clone()), |(t, s)| {
        let (fig, every) = charts::distribution_figure(t, s);
        (Figure::new(fig), every)
    });
    let histogram = use_memo(props.table.clone(), |t| {
        charts::histogram_figure(t).map(Figure::new)
    });
    let on_click = {
        let on_pick = props.on_pick.clone();
        Callback::from(move |c: Click| {
            if let Some(p) = pick_of(&c) {
                on_pick.emit(p);
            }
        })
    };
    let t = &props.table;
    html! {
        <div class="distributions" id="distributions">
            <h3>{"Every run"}</h3>
            <p class="hint">
                { "Each point is one run; the bar marks the mean. Click a point to see that run's timeline and decisions." }
                if strip.1 > 1 {
                    <span class="decimated" id="strip-thinned">
                        { format!(" Showing every {}th repetition of each cell to keep the page responsive.", strip.1) }
                    </span>
                }
            </p>
            <Plot id="distribution-chart" figure={strip.0.clone()} on_click={on_click}
                image_name={format!("{}-runs", props.image_name)} />
            if let Some(h) = (*histogram).clone() {
                <h3>{"Histogram"}</h3>
                <p class="hint">{ format!("Runs of each variant by {} (all parameter values together), in the scenario's buckets.", t.metric) }</p>
                <Plot id="histogram-chart" figure={h} image_name={format!("{}-histogram", props.image_name)} />
            }
            if !t.wake_classes.is_empty() {
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
                            { for t.wake_classes.iter().map(|c| html! {
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
