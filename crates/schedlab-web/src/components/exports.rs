//! The results as files: the scenario (to run with the CLI or edit), the table as JSON or CSV,
//! byte for byte what `schedlab run scenario.json --format json|csv --report <quantity>` prints,
//! and the runs' records (`--format jsonl`).

use std::rc::Rc;

use schedlab_core::experiment::{Quantity, Scenario};
use yew::prelude::*;

use crate::components::report::report_name;
use crate::export;
use crate::results::ResultsVm;

#[derive(Properties, PartialEq)]
pub struct ExportsProps {
    pub scenario: Rc<Scenario>,
    /// A stopped job's results: their files (`ResultsVm::finished`); none are offered without.
    pub results: Rc<ResultsVm>,
    /// What the table reports; results files of another quantity than the workload's metric say
    /// so in their name.
    pub quantity: Quantity,
}

#[component]
pub fn Exports(props: &ExportsProps) -> Html {
    let error = use_state(|| None::<String>);
    let stem = export::stem(&props.scenario);
    let results_stem = match props.quantity {
        Quantity::Value => stem.clone(),
        q => format!("{stem}-{}", report_name(q)),
    };
    let offer = |what: &'static str| {
        let results = props.results.clone();
        let error = error.clone();
        let stem = stem.clone();
        let results_stem = results_stem.clone();
        Callback::from(move |_: MouseEvent| {
            let files = results.finished.as_ref();
            let (name, mime, text) = match what {
                "scenario" => (
                    format!("{stem}-scenario.json"),
                    "application/json",
                    files.map(|f| f.scenario_file.clone()).unwrap_or_default(),
                ),
                "json" => (
                    format!("{results_stem}.json"),
                    "application/json",
                    files.map(|f| f.results_json.clone()).unwrap_or_default(),
                ),
                "jsonl" => (
                    format!("{stem}-records.jsonl"),
                    "application/x-ndjson",
                    files.map(|f| f.results_jsonl.clone()).unwrap_or_default(),
                ),
                _ => (
                    format!("{results_stem}.csv"),
                    "text/csv",
                    files.map(|f| f.results_csv.clone()).unwrap_or_default(),
                ),
            };
            error.set(export::download_text(&name, mime, &text).err());
        })
    };
    html! {
        <div class="exports" id="exports">
            <span class="exports-label">{"Download"}</span>
            <button type="button" class="secondary small" id="export-scenario" onclick={offer("scenario")}
                title="The scenario with these runs and seed: `schedlab run` it to get the same numbers">{"Scenario JSON"}</button>
            <button type="button" class="secondary small" id="export-json" onclick={offer("json")}
                title="What `schedlab run --format json` prints">{"Results JSON"}</button>
            <button type="button" class="secondary small" id="export-csv" onclick={offer("csv")}
                title="What `schedlab run --format csv` prints">{"Results CSV"}</button>
            <button type="button" class="secondary small" id="export-jsonl" onclick={offer("jsonl")}
                title="One JSON line per run (value, energy, counters), what `schedlab run --format jsonl` prints: for pandas, polars or `schedlab merge`">{"Run records JSONL"}</button>
            if let Some(e) = (*error).clone() {
                <span class="error">{ e }</span>
            }
        </div>
    }
}
