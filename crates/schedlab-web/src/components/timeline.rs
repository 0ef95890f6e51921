//! One traced run's per-CPU timeline (drawn from the figure the worker built, see
//! `runview::timeline`), with what the drawing leaves out.

use std::rc::Rc;

use yew::prelude::*;

use crate::components::plot::Plot;
use crate::plotly::{Click, Figure};
use crate::runview::RunDetailVm;

#[derive(Properties, PartialEq)]
pub struct TimelineProps {
    /// The traced run (its `timeline` is drawn).
    pub run: Rc<RunDetailVm>,
    /// A click on the chart gives its time (ns): the decision log jumps there.
    pub on_time: Callback<u64>,
    pub image_name: AttrValue,
}

#[component]
pub fn Timeline(props: &TimelineProps) -> Html {
    let figure = use_memo(props.run.clone(), |run| {
        Figure::from_json(run.timeline_figure.clone())
    });
    let on_click = {
        let on_time = props.on_time.clone();
        Callback::from(move |c: Click| {
            if let Some(x) = c.x.filter(|x| x.is_finite() && *x >= 0.0) {
                on_time.emit((x * 1e9) as u64);
            }
        })
    };
    let vm = &props.run.timeline;
    html! {
        <div class="timeline" id="timeline" data-bars={vm.bars.to_string()} data-freq-cells={vm.freq_cells.to_string()}
            data-marks={vm.marks.to_string()} data-lanes={vm.lanes.to_string()}>
            <p class="hint">
                {"Which task ran on each CPU (lanes, labelled with capacity), migrations (▸ on the destination CPU), "}
                if vm.freq_cells > 0 {
                    {"each CPU's frequency (the strip under its lane, coloured by MHz), "}
                }
                {"each frequency domain's frequency and its CPUs' busy share. Click the chart to list the decisions from that moment."}
            </p>
            <Plot id="timeline-chart" class="timeline-chart" figure={(*figure).clone()} on_click={on_click}
                image_name={props.image_name.clone()} />
            <ul class="notes" id="timeline-notes">
                { for vm.notes.iter().map(|n| html! { <li>{ n.clone() }</li> }) }
            </ul>
        </div>
    }
}
