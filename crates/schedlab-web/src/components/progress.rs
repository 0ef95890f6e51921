//! "runs done / runs planned", and where the job stands.

use yew::prelude::*;

use crate::viewmodel::ProgressVm;

#[derive(Properties, PartialEq)]
pub struct ProgressProps {
    pub progress: ProgressVm,
    /// idle | running | done | cancelled | failed
    pub state: &'static str,
    pub message: String,
}

#[component]
pub fn Progress(props: &ProgressProps) -> Html {
    let p = props.progress;
    html! {
        <section class={classes!("progress", props.state)} id="status" data-state={props.state}
            aria-live="polite">
            <progress id="progress" max={p.total.max(1).to_string()} value={p.done.to_string()}></progress>
            <span id="progress-text" data-done={p.done.to_string()} data-total={p.total.to_string()}
                data-workers={p.workers.to_string()}>
                { p.label() }
            </span>
            <span class="status-message" id="status-message">{ props.message.clone() }</span>
        </section>
    }
}
