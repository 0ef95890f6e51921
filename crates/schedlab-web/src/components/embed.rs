//! The embed view (`?view=embed`): only the comparison table and its chart, compact, for an
//! iframe in a cover letter's discussion or a document. It runs the linked scenario on load, so
//! the numbers are computed by the reader's browser, and links to the full page.

use std::rc::Rc;

use yew::prelude::*;

use crate::components::chart::Chart;
use crate::components::progress::{use_live_progress, LiveProgress};
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
    /// idle | running | done | cancelled | failed
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
            <EmbedStatus progress={props.progress} live={props.live.clone()} job={props.job} busy={props.busy}
                state={props.state} message={props.message.clone()} />
            if let (Some(t), Some(r)) = (props.table.clone(), props.results.clone()) {
                <ComparisonTableView vm={t} />
                <Chart results={r} />
            }
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct EmbedStatusProps {
    progress: ProgressVm,
    live: LiveProgress,
    job: u64,
    busy: bool,
    state: &'static str,
    message: String,
}

/// The embed's one status line: it alone re-renders at each progress message.
#[component]
fn EmbedStatus(props: &EmbedStatusProps) -> Html {
    let p = use_live_progress(props.progress, &props.live, props.job, props.busy);
    html! {
        <div class={classes!("embed-status", props.state)} id="status" data-state={props.state} aria-live="polite">
            <span id="progress-text" data-done={p.done.to_string()} data-total={p.total.to_string()}>{ p.label() }</span>
            <span class="status-message" id="status-message">{ props.message.clone() }</span>
        </div>
    }
}
