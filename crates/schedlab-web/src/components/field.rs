//! Form fields with their label, an optional hint, and the message of what is wrong with them,
//! shown beside the input and announced to screen readers (`aria-describedby`, `role="alert"`).
//!
//! The input's DOM id is the field's problem key (see `crate::draft`), so a message found by the
//! draft lands beside its input, and the message's id is `<id>-error`.

use web_sys::{HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};
use yew::prelude::*;

#[derive(Properties, PartialEq, Clone)]
pub struct TextFieldProps {
    pub id: AttrValue,
    pub label: AttrValue,
    pub value: AttrValue,
    #[prop_or_default]
    pub hint: Option<AttrValue>,
    #[prop_or_default]
    pub problem: Option<AttrValue>,
    #[prop_or_default]
    pub disabled: bool,
    /// A text area of this many rows instead of a one-line input.
    #[prop_or_default]
    pub rows: Option<u32>,
    /// `numeric` for number fields (a phone shows digits); text stays text so a typo can be
    /// explained instead of silently dropped by the browser.
    #[prop_or_default]
    pub inputmode: Option<AttrValue>,
    #[prop_or_default]
    pub class: Classes,
    pub on_input: Callback<String>,
}

fn described_by(id: &str, hint: bool, problem: bool) -> Option<AttrValue> {
    let ids: Vec<String> = [
        hint.then(|| format!("{id}-hint")),
        problem.then(|| format!("{id}-error")),
    ]
    .into_iter()
    .flatten()
    .collect();
    (!ids.is_empty()).then(|| ids.join(" ").into())
}

fn below(id: &str, hint: &Option<AttrValue>, problem: &Option<AttrValue>) -> Html {
    html! { <>
        if let Some(h) = hint {
            <small class="hint field-hint" id={format!("{id}-hint")}>{ h.clone() }</small>
        }
        if let Some(p) = problem {
            <p class="field-error" id={format!("{id}-error")} role="alert">{ p.clone() }</p>
        }
    </> }
}

#[component]
pub fn TextField(props: &TextFieldProps) -> Html {
    let id = props.id.to_string();
    let invalid = props.problem.is_some();
    let describedby = described_by(&id, props.hint.is_some(), invalid);
    let input = match props.rows {
        Some(rows) => {
            let cb = props.on_input.clone();
            let oninput = Callback::from(move |e: InputEvent| {
                cb.emit(e.target_unchecked_into::<HtmlTextAreaElement>().value())
            });
            html! {
                <textarea id={props.id.clone()} rows={rows.to_string()} spellcheck="false"
                    value={props.value.clone()} {oninput} disabled={props.disabled}
                    aria-invalid={invalid.to_string()} aria-describedby={describedby} />
            }
        }
        None => {
            let cb = props.on_input.clone();
            let oninput = Callback::from(move |e: InputEvent| {
                cb.emit(e.target_unchecked_into::<HtmlInputElement>().value())
            });
            html! {
                <input id={props.id.clone()} type="text" spellcheck="false" autocomplete="off"
                    inputmode={props.inputmode.clone()} value={props.value.clone()} {oninput}
                    disabled={props.disabled} aria-invalid={invalid.to_string()}
                    aria-describedby={describedby} />
            }
        }
    };
    html! {
        <div class={classes!("field", invalid.then_some("invalid"), props.class.clone())}>
            <label for={props.id.clone()}>{ props.label.clone() }</label>
            { input }
            { below(&id, &props.hint, &props.problem) }
        </div>
    }
}

#[derive(Properties, PartialEq, Clone)]
pub struct SelectFieldProps {
    pub id: AttrValue,
    pub label: AttrValue,
    /// `(value, text)` of each option.
    pub options: Vec<(AttrValue, AttrValue)>,
    pub selected: AttrValue,
    #[prop_or_default]
    pub hint: Option<AttrValue>,
    #[prop_or_default]
    pub problem: Option<AttrValue>,
    #[prop_or_default]
    pub disabled: bool,
    #[prop_or_default]
    pub class: Classes,
    pub on_change: Callback<String>,
}

#[component]
pub fn SelectField(props: &SelectFieldProps) -> Html {
    let id = props.id.to_string();
    let invalid = props.problem.is_some();
    let cb = props.on_change.clone();
    let onchange = Callback::from(move |e: Event| {
        cb.emit(e.target_unchecked_into::<HtmlSelectElement>().value())
    });
    html! {
        <div class={classes!("field", invalid.then_some("invalid"), props.class.clone())}>
            <label for={props.id.clone()}>{ props.label.clone() }</label>
            <select id={props.id.clone()} {onchange} disabled={props.disabled}
                aria-invalid={invalid.to_string()}
                aria-describedby={described_by(&id, props.hint.is_some(), invalid)}>
                { for props.options.iter().map(|(v, t)| html! {
                    <option value={v.clone()} selected={*v == props.selected}>{ t.clone() }</option>
                }) }
            </select>
            { below(&id, &props.hint, &props.problem) }
        </div>
    }
}

#[derive(Properties, PartialEq, Clone)]
pub struct CheckFieldProps {
    pub id: AttrValue,
    pub label: AttrValue,
    pub checked: bool,
    #[prop_or_default]
    pub title: Option<AttrValue>,
    #[prop_or_default]
    pub disabled: bool,
    pub on_change: Callback<bool>,
}

#[component]
pub fn CheckField(props: &CheckFieldProps) -> Html {
    let cb = props.on_change.clone();
    let onchange = Callback::from(move |e: Event| {
        cb.emit(e.target_unchecked_into::<HtmlInputElement>().checked())
    });
    html! {
        <label class="check" for={props.id.clone()} title={props.title.clone()}>
            <input type="checkbox" id={props.id.clone()} checked={props.checked} {onchange}
                disabled={props.disabled} />
            <span>{ props.label.clone() }</span>
        </label>
    }
}
