//! The embed view (`?view=embed`): only the comparison table and its chart, compact, for an
//! iframe in a cover letter's discussion or a document. It runs the linked scenario on load, so
//! the numbers are computed by the reader's browser, and links to the full page.

use std::rc::Rc;

use yew::prelude::*;

use crate::components::chart::Chart;
use crate::components::progress::{LiveProgress, Progress};
use crate::components::table::ComparisonTableView;
use crate::results::ResultsVm;
use crate::viewmodel::{ProgressVm, TableVm};

#[derive(Properties, PartialEq)]
pub struct EmbedProps {
    pub title: String,
    pub table: Option<Rc<TableVm>>,
    /// The same table's results (its means chart).
    pub results: Option<Rc<ResultsVm>>,
    pub progress: ProgressVm,
    /// The live count of runs done (see [`LiveProgress`]), of `job` while `busy`.
    pub live: LiveProgress,
    pub job: u64,
    pub busy: bool,
    /// idle | running | cancelling | done | cancelled | failed
    pub state: &'static str,
    pub message: String,
    /// The same address without `view=embed`.
    pub full_link: String,
}

#[component]
pub fn EmbedView(props: &EmbedProps) -> Html {
    html! {
        <div class="embed" id="embed">
            <div class="embed-head">
                <span class="embed-title">{ props.title.clone() }</span>
                <a href={props.full_link.clone()} target="_blank" rel="noopener" id="embed-open">
                    {"Open in Schedlab ↗"}
                </a>
            </div>
            <Progress progress={props.progress} live={props.live.clone()} job={props.job} busy={props.busy}
                state={props.state} message={props.message.clone()} compact=true />
            if let (Some(t), Some(r)) = (props.table.clone(), props.results.clone()) {
                <ComparisonTableView vm={t} />
                <Chart results={r} />
            }
        </div>
    }
}
