//! The variants editor: one card per column of the table, in table order (the first is the
//! baseline the others are compared with). Each is a baseline kernel, patches applied in the order
//! they were ticked, a governor, and optional configuration changes as a JSON merge patch.

use std::rc::Rc;

use schedlab_core::kernel::{BASELINE_INFO, PATCHES};
use yew::prelude::*;

use crate::components::field::{CheckField, SelectField, TextField};
use crate::draft::variants::{field_id, governor_by_name, governor_name, GOVERNORS, MAX_VARIANTS};
use crate::draft::{Draft, Edit};

#[derive(Properties, PartialEq)]
pub struct VariantsProps {
    pub draft: Rc<Draft>,
    pub disabled: bool,
    pub on_edit: Callback<Edit>,
}

#[component]
pub fn VariantsEditor(props: &VariantsProps) -> Html {
    let d = &props.draft;
    let p = &d.problems;
    let edit = props.on_edit.clone();
    let disabled = props.disabled;
    let n = d.variants.len();
    let problem = |id: &str| p.get(id).map(|m| AttrValue::from(m.to_string()));
    // The names alone: `BASELINES` would link every era's switches into the page's wasm.
    let baselines: Vec<(AttrValue, AttrValue)> = BASELINE_INFO
        .iter()
        .map(|b| {
            (
                AttrValue::from(b.name),
                AttrValue::from(format!("{} — {}", b.name, b.summary)),
            )
        })
        .collect();
    let governors: Vec<(AttrValue, AttrValue)> = GOVERNORS
        .iter()
        .map(|(_, n)| (AttrValue::from(*n), AttrValue::from(*n)))
        .collect();

    let cards = d.variants.iter().enumerate().map(|(i, v)| {
        let id = |k: &str| field_id(i, k);
        let patches = PATCHES.iter().map(|patch| {
            let edit = edit.clone();
            let name = patch.name.to_string();
            let order = v.patches.iter().position(|x| x == patch.name);
            let label = match order {
                Some(k) if v.patches.len() > 1 => format!("{} ({})", patch.name, k + 1),
                _ => patch.name.to_string(),
            };
            html! {
                <CheckField id={id(&format!("patch-{}", patch.name))} {label}
                    checked={order.is_some()} {disabled}
                    title={Some(AttrValue::from(format!("{}. {}", patch.title, patch.origin)))}
                    on_change={Callback::from(move |on| edit.emit(Edit::VariantPatch(i, name.clone(), on)))} />
            }
        });
        let unknown_patches: Vec<&String> =
            v.patches.iter().filter(|x| !PATCHES.iter().any(|p| p.name == x.as_str())).collect();
        let e = edit.clone();
        let on_name = Callback::from(move |t| e.emit(Edit::VariantName(i, t)));
        let e = edit.clone();
        let on_baseline = Callback::from(move |t| e.emit(Edit::VariantBaseline(i, t)));
        let e = edit.clone();
        let on_governor = Callback::from(move |t: String| {
            if let Some(g) = governor_by_name(&t) {
                e.emit(Edit::VariantGovernor(i, g))
            }
        });
        let e = edit.clone();
        let on_config = Callback::from(move |t| e.emit(Edit::VariantConfig(i, t)));
        let on_left = edit.reform(move |_: MouseEvent| Edit::MoveVariant(i, -1));
        let on_right = edit.reform(move |_: MouseEvent| Edit::MoveVariant(i, 1));
        let on_remove = edit.reform(move |_: MouseEvent| Edit::RemoveVariant(i));
        let role = if i == 0 { " · the reference for % diff" } else { "" };
        html! {
            <fieldset class="variant" id={format!("variant-{i}")} data-name={v.name.clone()}>
                <legend>{ format!("Column {}: {}", i + 1, v.name) }<small>{ role }</small></legend>
                <TextField id={id("name")} label="name" value={v.name.clone()}
                    problem={problem(&id("name"))} {disabled} on_input={on_name} />
                <SelectField id={id("baseline")} label="baseline kernel" selected={v.baseline.clone()}
                    options={baselines.clone()} problem={problem(&id("baseline"))} {disabled}
                    on_change={on_baseline} />
                <fieldset class="patches" aria-describedby={id("patches-error")}>
                    <legend>{"patches (applied in the order ticked)"}</legend>
                    { for patches }
                    if !unknown_patches.is_empty() {
                        <p class="hint">{ format!("unknown to this build: {}", unknown_patches.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")) }</p>
                    }
                    if let Some(m) = problem(&id("patches")) {
                        <p class="field-error" id={id("patches-error")} role="alert">{ m }</p>
                    }
                </fieldset>
                <SelectField id={id("governor")} label="cpufreq governor" selected={governor_name(v.governor)}
                    options={governors.clone()} {disabled} on_change={on_governor} />
                <TextField id={id("config")} label="config changes (JSON merge patch)" value={v.config.clone()}
                    rows={Some(3)} class={classes!("mono")} problem={problem(&id("config"))} {disabled}
                    hint={Some(AttrValue::from("e.g. {\"hz\": 1000}; empty for none"))}
                    on_input={on_config} />
                <div class="variant-buttons">
                    <button type="button" class="secondary small" id={id("left")} onclick={on_left}
                        disabled={disabled || i == 0} aria-label={format!("Move {} one column left", v.name)}>{"← Move left"}</button>
                    <button type="button" class="secondary small" id={id("right")} onclick={on_right}
                        disabled={disabled || i + 1 == n} aria-label={format!("Move {} one column right", v.name)}>{"Move right →"}</button>
                    <button type="button" class="secondary small danger" id={id("remove")} onclick={on_remove}
                        disabled={disabled || n == 1} aria-label={format!("Remove {}", v.name)}>{"Remove"}</button>
                </div>
            </fieldset>
        }
    });
    let on_add = edit.reform(|_: MouseEvent| Edit::AddVariant);
    html! {
        <div class="editor variants-editor" id="variants">
            { patch_notes(&d.kernel_notes) }
            <div class="variant-cards">{ for cards }</div>
            <button type="button" class="secondary" id="add-variant" onclick={on_add}
                disabled={disabled || n >= MAX_VARIANTS}>{"Add variant (a copy of the last)"}</button>
        </div>
    }
}

/// What each patch is and which configuration switches it flips (its merge patch over the
/// baseline's `KernelConfig`), then what each column's kernel is: its baseline's switches that
/// differ from the newest baseline, and the column's own changes, with the kernel function each
/// switch models (text from the check worker, so the page links no switch table). In a disclosure
/// that the keyboard reaches, unlike a tooltip.
fn patch_notes(kernel_notes: &[String]) -> Html {
    html! {
        <details class="patch-notes" id="patch-notes">
            <summary>{"What each patch changes"}</summary>
            <dl>
                { for PATCHES.iter().map(|p| html! {
                    <>
                        <dt id={format!("patch-note-{}", p.name)}><code>{ p.name }</code>{": "}{ p.title }</dt>
                        <dd>
                            <p>{ p.description }</p>
                            <p class="hint">{ p.origin }</p>
                            <p class="hint">{"Switches it sets:"}</p>
                            <pre class="mono patch-changes">{ p.changes.trim() }</pre>
                        </dd>
                    </>
                }) }
            </dl>
            <div class="kernel-notes" id="kernel-notes">
                <h4 class="kernel-notes-head">{"What each column's kernel is"}</h4>
                { for kernel_notes.iter().enumerate().map(|(i, t)| html! {
                    <pre class="mono patch-changes kernel-note" id={format!("kernel-note-{i}")}>{ t.clone() }</pre>
                }) }
            </div>
        </details>
    }
}
