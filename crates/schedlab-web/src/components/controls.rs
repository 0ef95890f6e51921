//! Scenario choice, runs and seed, and the Run / Cancel buttons.

use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioChoice {
    pub name: String,
    pub title: String,
    pub summary: String,
}

#[derive(Properties, PartialEq)]
pub struct ControlsProps {
    pub scenarios: Vec<ScenarioChoice>,
    pub scenario: String,
    pub runs: String,
    pub seed: String,
    pub running: bool,
    /// Why the inputs cannot be run as they are (shown under the inputs), if they cannot.
    pub invalid: Option<String>,
    /// The check worker has not yet answered for the forms as they are.
    #[prop_or_default]
    pub checking: bool,
    pub on_scenario: Callback<String>,
    pub on_runs: Callback<String>,
    pub on_seed: Callback<String>,
    pub on_new_seed: Callback<()>,
    pub on_run: Callback<()>,
    pub on_cancel: Callback<()>,
}

#[component]
pub fn Controls(props: &ControlsProps) -> Html {
    let on_scenario = {
        let cb = props.on_scenario.clone();
        Callback::from(move |e: Event| {
            cb.emit(e.target_unchecked_into::<HtmlSelectElement>().value())
        })
    };
    let on_runs = {
        let cb = props.on_runs.clone();
        Callback::from(move |e: InputEvent| {
            cb.emit(e.target_unchecked_into::<HtmlInputElement>().value())
        })
    };
    let on_seed = {
        let cb = props.on_seed.clone();
        Callback::from(move |e: InputEvent| {
            cb.emit(e.target_unchecked_into::<HtmlInputElement>().value())
        })
    };
    let on_new_seed = props.on_new_seed.reform(|_: MouseEvent| ());
    let on_run = {
        let cb = props.on_run.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            cb.emit(())
        })
    };
    let on_cancel = props.on_cancel.reform(|_: MouseEvent| ());
    let summary = props
        .scenarios
        .iter()
        .find(|s| s.name == props.scenario)
        .map(|s| s.summary.clone());

    html! {
        <form class="controls" id="controls" onsubmit={on_run}
            data-checking={if props.checking { "true" } else { "false" }}>
            <div class="field scenario-field">
                <label for="scenario">{"Scenario"}</label>
                <select id="scenario" onchange={on_scenario} disabled={props.running}>
                    // A scenario from a share link that is not a built-in.
                    if summary.is_none() {
                        <option value={props.scenario.clone()} selected=true>
                            { format!("{} (from a link)", props.scenario) }
                        </option>
                    }
                    { for props.scenarios.iter().map(|s| html! {
                        <option value={s.name.clone()} selected={s.name == props.scenario}>
                            { format!("{} — {}", s.name, s.title) }
                        </option>
                    }) }
                </select>
            </div>
            <div class="field">
                <label for="runs">{"Runs per cell"}</label>
                <input id="runs" type="number" min="1" max="1000" inputmode="numeric"
                    value={props.runs.clone()} oninput={on_runs} disabled={props.running} />
            </div>
            <div class="field seed-field">
                <label for="seed">{"Seed"}</label>
                <div class="seed-row">
                    <input id="seed" type="text" inputmode="numeric" spellcheck="false"
                        value={props.seed.clone()} oninput={on_seed} disabled={props.running} />
                    <button type="button" id="new-seed" class="secondary" onclick={on_new_seed}
                        disabled={props.running} title="Draw a random seed">{"New seed"}</button>
                </div>
            </div>
            <div class="field buttons">
                <button type="submit" id="run"
                    disabled={props.running || props.checking || props.invalid.is_some()}>{"Run"}</button>
                <button type="button" id="cancel" class="secondary" onclick={on_cancel}
                    disabled={!props.running}>{"Cancel"}</button>
            </div>
            if let Some(summary) = summary {
                <p class="hint summary" id="scenario-summary">{summary}</p>
            }
            if props.checking {
                <p class="hint" id="input-checking" aria-live="polite">{"Checking the scenario…"}</p>
            } else if let Some(msg) = &props.invalid {
                <p class="error" id="input-error">{msg.clone()}</p>
            }
        </form>
    }
}
