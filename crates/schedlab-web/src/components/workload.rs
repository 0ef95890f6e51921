//! The workload editor: the generator and its parameters, or an rt-app file pasted or loaded from
//! disk; and the sweep (which parameter becomes the table's rows, and its values).

use std::rc::Rc;

use wasm_bindgen_futures::JsFuture;
use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::components::field::{CheckField, SelectField, TextField};
use crate::draft::workload::{
    field_id, FieldKind, KINDS, SWEEP_PARAM_ID, SWEEP_VALUES_ID, WORKLOAD_ID,
};
use crate::draft::{Draft, Edit};

#[derive(Properties, PartialEq)]
pub struct WorkloadProps {
    pub draft: Rc<Draft>,
    pub disabled: bool,
    pub on_edit: Callback<Edit>,
}

/// What each generator models, for the menu.
fn kind_label(kind: &str) -> String {
    let what = match kind {
        "sysbench-cpu" => "CPU-bound threads pulling events",
        "rt-app" => "an rt-app JSON file",
        "hackbench" => "perf bench sched messaging",
        "ebizzy" => "memory-allocation records per second",
        "tbench" => "client/server ping-pong",
        "kernbench" => "make -j of compiler processes",
        "gitsource" => "a chain of short processes",
        "two-step" => "pinned step, then free CPU-bound tasks",
        _ => "",
    };
    format!("{kind} — {what}")
}

/// Reads the chosen file's text and hands it on as the rt-app file; a file that cannot be read
/// gives a message instead (shown by the caller).
fn read_file(input: HtmlInputElement, on_text: Callback<String>, on_error: Callback<String>) {
    let Some(file) = input.files().and_then(|f| f.get(0)) else {
        return;
    };
    wasm_bindgen_futures::spawn_local(async move {
        match JsFuture::from(file.text()).await {
            Ok(v) => match v.as_string() {
                Some(text) => on_text.emit(text),
                None => on_error.emit(format!("{} is not a text file", file.name())),
            },
            Err(_) => on_error.emit(format!("{} could not be read", file.name())),
        }
        // Choosing the same file again after editing it must load it again.
        input.set_value("");
    });
}

#[component]
pub fn WorkloadEditor(props: &WorkloadProps) -> Html {
    let d = &props.draft;
    let w = &d.workload;
    let p = &d.problems;
    let edit = props.on_edit.clone();
    let disabled = props.disabled;
    let file_error = use_state(|| None::<String>);
    let problem = |id: &str| p.get(id).map(|m| AttrValue::from(m.to_string()));

    let kinds: Vec<(AttrValue, AttrValue)> = KINDS
        .iter()
        .map(|(k, _)| (AttrValue::from(*k), AttrValue::from(kind_label(k))))
        .collect();
    let fields = w.fields.iter().map(|f| {
        let id = field_id(&f.key);
        let key = f.key.clone();
        let edit = edit.clone();
        match f.kind {
            FieldKind::Bool => {
                let checked = f.text == "true";
                html! {
                    <div class="field check-field">
                        <CheckField id={id.clone()} label={f.key.clone()} {checked} {disabled}
                            on_change={Callback::from(move |on: bool| edit.emit(Edit::Workload(key.clone(), on.to_string())))} />
                        if let Some(msg) = problem(&id) {
                            <p class="field-error" id={format!("{id}-error")} role="alert">{ msg }</p>
                        }
                    </div>
                }
            }
            FieldKind::Text => {
                let on_text = {
                    let edit = edit.clone();
                    let key = key.clone();
                    let file_error = file_error.clone();
                    Callback::from(move |t: String| {
                        file_error.set(None);
                        edit.emit(Edit::Workload(key.clone(), t))
                    })
                };
                let on_file = {
                    let on_text = on_text.clone();
                    let file_error = file_error.clone();
                    Callback::from(move |e: Event| {
                        let file_error = file_error.clone();
                        read_file(
                            e.target_unchecked_into::<HtmlInputElement>(),
                            on_text.clone(),
                            Callback::from(move |m| file_error.set(Some(m))),
                        )
                    })
                };
                let label = if w.kind == "rt-app" { "rt-app file (JSON)".to_string() } else { f.key.clone() };
                html! {
                    <div class="rtapp wide">
                        <TextField id={id.clone()} {label} value={f.text.clone()} rows={Some(14)}
                            problem={problem(&id)} {disabled} class={classes!("mono")}
                            hint={Some(AttrValue::from("Paste a file, or load one below. rt-app's own grammar: comments and trailing commas are fine."))}
                            on_input={on_text} />
                        <div class="field">
                            <label for="rtapp-file">{"Load an rt-app file from disk"}</label>
                            <input type="file" id="rtapp-file" accept=".json,application/json,text/plain"
                                onchange={on_file} {disabled} />
                            if let Some(m) = (*file_error).clone() {
                                <p class="field-error" id="rtapp-file-error" role="alert">{ m }</p>
                            }
                        </div>
                    </div>
                }
            }
            FieldKind::Number | FieldKind::Optional | FieldKind::List => {
                let hint = match f.kind {
                    FieldKind::Optional => Some(AttrValue::from("empty: the generator's default")),
                    FieldKind::List => Some(AttrValue::from("comma-separated")),
                    _ => None,
                };
                html! {
                    <TextField id={id.clone()} label={f.key.clone()} value={f.text.clone()} {hint}
                        problem={problem(&id)} {disabled}
                        inputmode={(f.kind != FieldKind::List).then_some(AttrValue::from("numeric"))}
                        on_input={Callback::from(move |v| edit.emit(Edit::Workload(key.clone(), v)))} />
                }
            }
        }
    });
    let sweepable = w.sweepable();
    let mut sweep_options: Vec<(AttrValue, AttrValue)> =
        vec![("".into(), "nothing (one row)".into())];
    sweep_options.extend(
        sweepable
            .iter()
            .map(|s| (AttrValue::from(*s), AttrValue::from(*s))),
    );
    html! {
        <div class="editor workload-editor" id="workload">
            <div class="form-grid">
                <SelectField id={WORKLOAD_ID} label="Generator" selected={w.kind.clone()} options={kinds}
                    problem={problem(WORKLOAD_ID)} {disabled} class={classes!("wide")}
                    on_change={edit.reform(Edit::WorkloadKind)} />
            </div>
            <div class="form-grid params">{ for fields }</div>
            <fieldset class="sweep">
                <legend>{"Sweep: one table row per value"}</legend>
                <div class="form-grid">
                    <SelectField id={SWEEP_PARAM_ID} label="Parameter" selected={w.sweep_param.clone()} class={classes!("wide")}
                        options={sweep_options} problem={problem(SWEEP_PARAM_ID)}
                        disabled={disabled || sweepable.is_empty()}
                        hint={sweepable.is_empty().then(|| AttrValue::from("this generator has no parameter to sweep"))}
                        on_change={edit.reform(Edit::SweepParam)} />
                    <TextField id={SWEEP_VALUES_ID} label="Values" value={w.sweep_values.clone()}
                        hint={Some(AttrValue::from("comma-separated, e.g. 1, 2, 4, 8"))}
                        problem={problem(SWEEP_VALUES_ID)} disabled={disabled || w.sweep_param.is_empty()}
                        class={classes!("wide")}
                        on_input={edit.reform(Edit::SweepValues)} />
                </div>
            </fieldset>
        </div>
    }
}
