//! The scenario machine's sched-domain hierarchy for one variant: per CPU and level, the span,
//! the SD_* flags and the groups with their capacities.

use std::rc::Rc;

use web_sys::HtmlSelectElement;
use yew::prelude::*;

use crate::viewmodel::DomainsVm;

#[derive(Properties, PartialEq)]
pub struct DomainsProps {
    /// `(variant name, its domains)`, in the scenario's variant order.
    pub views: Rc<Vec<(String, DomainsVm)>>,
}

#[component]
pub fn Domains(props: &DomainsProps) -> Html {
    let selected = use_state(|| 0usize);
    let index = (*selected).min(props.views.len().saturating_sub(1));
    let on_change = {
        let selected = selected.clone();
        Callback::from(move |e: Event| {
            let v = e
                .target_unchecked_into::<HtmlSelectElement>()
                .selected_index();
            selected.set(v.max(0) as usize);
        })
    };
    let Some((variant, vm)) = props.views.get(index) else {
        return html! { <p class="hint">{"No variant."}</p> };
    };
    let head = vm
        .levels
        .iter()
        .map(|l| html! { <th scope="col">{ l.clone() }</th> });
    let rows = vm.cpus.iter().map(|c| {
        let levels = c.levels.iter().zip(&vm.levels).map(|(l, name)| match l {
            Some(l) => html! {
                <td class="level" data-cpu={c.cpu.clone()} data-level={name.clone()}
                    data-flags={l.flags.join(" ")}>
                    <div class="span">
                        {"span "}<b>{ l.span.clone() }</b>
                        <span class="imb" title="sd->imbalance_pct">{ format!(" · imbalance_pct {}", l.imbalance_pct) }</span>
                    </div>
                    <div class="flags">
                        { for l.flags.iter().map(|f| html! {
                            <span class={classes!("flag", f.contains("ASYM").then_some("asym"))}>{ f.clone() }</span>
                        }) }
                    </div>
                    <div class="groups">
                        {"groups "}
                        { for l.groups.iter().map(|(span, cap)| html! {
                            <span class="group" title="group span: capacity">
                                {"{"}{ span.clone() }{"}"}<small>{ cap.clone() }</small>
                            </span>
                        }) }
                    </div>
                </td>
            },
            None => html! { <td class="level none" data-cpu={c.cpu.clone()} data-level={name.clone()}>{"—"}</td> },
        });
        html! {
            <tr>
                <th scope="row" class="cpu">
                    <span class="cpu-id">{ format!("CPU{}", c.cpu) }</span>
                    <span class="cpu-meta">{ format!("{} · cap {}", c.cluster, c.capacity) }</span>
                </th>
                { for levels }
            </tr>
        }
    });
    html! {
        <div class="domains" id="domains" data-variant={variant.clone()}>
            <div class="field inline">
                <label for="domains-variant">{"Variant"}</label>
                <select id="domains-variant" onchange={on_change}>
                    { for props.views.iter().enumerate().map(|(i, (name, _))| html! {
                        <option value={name.clone()} selected={i == index}>{ name.clone() }</option>
                    }) }
                </select>
                <span class="hint">{ format!("machine {}", vm.machine) }</span>
            </div>
            <div class="table-scroll">
                <table class="domains-grid">
                    <thead><tr><th scope="col">{"CPU"}</th>{ for head }</tr></thead>
                    <tbody>{ for rows }</tbody>
                </table>
            </div>
        </div>
    }
}
