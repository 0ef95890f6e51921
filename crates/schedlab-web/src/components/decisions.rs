//! A traced run's decision log, one page at a time, filtered by CPU, kind and busiest group type.
//! The pages come from the worker (see `runview::decisions`); this view only lays them out.

use std::rc::Rc;

use schedlab_core::sched::balance::GroupType;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

use crate::runview::decisions::{
    group_type_name, kind, DecisionEntryVm, DecisionPageVm, DecisionQuery,
};
use crate::runview::DecisionCounts;

/// v5.5+ group types, then the pre-v5.5 `group_other` (legacy balancer runs).
const GROUP_TYPES: [GroupType; 8] = [
    GroupType::HasSpare,
    GroupType::FullyBusy,
    GroupType::MisfitTask,
    GroupType::SmtBalance,
    GroupType::AsymPacking,
    GroupType::Imbalanced,
    GroupType::Overloaded,
    GroupType::Other,
];

/// How a filter control changes the query.
type Edit = Box<dyn Fn(DecisionQuery, &Event) -> DecisionQuery>;

#[derive(Properties, PartialEq)]
pub struct DecisionLogProps {
    pub page: Option<Rc<DecisionPageVm>>,
    pub query: DecisionQuery,
    pub counts: DecisionCounts,
    pub nr_cpus: usize,
    /// A request for the page this query describes.
    pub on_query: Callback<DecisionQuery>,
    /// A page request is in flight.
    pub loading: bool,
}

fn entry_view(e: &DecisionEntryVm) -> Html {
    let badges = html! { <>
        if let Some(t) = &e.busiest_type {
            <span class={classes!("badge", t.contains("asym").then_some("asym"))} title="the busiest group's group_type">{ t.clone() }</span>
        }
        if let Some(m) = &e.migration_type {
            <span class="badge" title="migration_type">{ m.clone() }</span>
        }
        if let Some(p) = &e.imbalance_path {
            <span class="badge" title="how the pre-v5.5 balancer set the imbalance">{ p.clone() }</span>
        }
        if let Some(i) = e.imbalance {
            <span class="badge" title="env->imbalance">{ format!("imbalance {i}") }</span>
        }
    </> };
    html! {
        <li class={classes!("decision", e.kind.clone())} data-kind={e.kind.clone()} data-cpu={e.cpu.to_string()}
            data-index={e.index.to_string()} data-busiest={e.busiest_type.clone().unwrap_or_default()}>
            <div class="decision-head">
                <span class="kind">{ e.kind.clone() }</span>
                <code class="headline">{ e.headline.clone() }</code>
                { badges }
            </div>
            if !e.groups.is_empty() {
                <div class="table-scroll">
                    <table class="groups-table">
                        <thead><tr>
                            <th></th><th>{"CPUs"}</th><th>{"group_type"}</th><th class="num">{"nr"}</th>
                            <th class="num">{"idle"}</th><th class="num">{"load"}</th><th class="num">{"util"}</th>
                            <th class="num">{"runnable"}</th><th class="num">{"capacity"}</th>
                            <th class="num">{"misfit"}</th><th class="num">{"avg_load"}</th>
                        </tr></thead>
                        <tbody>
                            { for e.groups.iter().map(|g| html! {
                                <tr class={g.role.clone()}>
                                    <td class="role">{ g.role.clone() }</td>
                                    <td class="mono">{ format!("{{{}}}", g.cpus) }</td>
                                    <td class={classes!("mono", g.group_type.contains("asym").then_some("asym"))}>{ g.group_type.clone() }</td>
                                    <td class="num">{ g.nr_running }</td><td class="num">{ g.idle_cpus }</td>
                                    <td class="num">{ g.load }</td><td class="num">{ g.util }</td>
                                    <td class="num">{ g.runnable }</td><td class="num">{ g.capacity }</td>
                                    <td class="num">{ g.misfit_task_load }</td><td class="num">{ g.avg_load }</td>
                                </tr>
                            }) }
                        </tbody>
                    </table>
                </div>
            }
        </li>
    }
}

#[component]
pub fn DecisionLog(props: &DecisionLogProps) -> Html {
    let q = props.query;
    let ask = |f: Edit| {
        let on_query = props.on_query.clone();
        Callback::from(move |e: Event| on_query.emit(f(q, &e)))
    };
    let on_cpu = ask(Box::new(|q, e| {
        let v = e.target_unchecked_into::<HtmlSelectElement>().value();
        DecisionQuery {
            cpu: v.parse().ok(),
            page: 0,
            ..q
        }
    }));
    let on_busiest = ask(Box::new(|q, e| {
        let i = e
            .target_unchecked_into::<HtmlSelectElement>()
            .selected_index();
        let busiest = usize::try_from(i - 1)
            .ok()
            .and_then(|i| GROUP_TYPES.get(i).copied());
        // Balance passes are what have a busiest group: make sure they are shown.
        let kinds = if busiest.is_some() {
            q.kinds | kind::BALANCE
        } else {
            q.kinds
        };
        DecisionQuery {
            busiest,
            kinds,
            page: 0,
            ..q
        }
    }));
    let kind_box = |bit: u8, label: String, id: &'static str| {
        let on_change = ask(Box::new(move |q, e| {
            let on = e.target_unchecked_into::<HtmlInputElement>().checked();
            let kinds = if on { q.kinds | bit } else { q.kinds & !bit };
            DecisionQuery {
                kinds,
                page: 0,
                ..q
            }
        }));
        html! {
            <label class="check"><input type="checkbox" id={id} checked={q.kinds & bit != 0} onchange={on_change} />{ label }</label>
        }
    };
    let go = |page: usize| {
        let on_query = props.on_query.clone();
        Callback::from(move |_: MouseEvent| {
            on_query.emit(DecisionQuery {
                page,
                at_ns: None,
                ..q
            })
        })
    };
    let c = props.counts;
    let (pages, matching, page) = props
        .page
        .as_ref()
        .map_or((1, 0, 0), |p| (p.pages, p.matching, p.query.page));
    let nav = html! {
        <div class="pager">
            <button type="button" class="secondary small" id="log-first" onclick={go(0)} disabled={page == 0 || props.loading}>{"« first"}</button>
            <button type="button" class="secondary small" id="log-prev" onclick={go(page.saturating_sub(1))} disabled={page == 0 || props.loading}>{"‹ prev"}</button>
            <span class="page-of" id="log-page" data-page={page.to_string()} data-pages={pages.to_string()} data-matching={matching.to_string()}>
                { format!("page {} of {} · {} decisions", page + 1, pages, matching) }
            </span>
            <button type="button" class="secondary small" id="log-next" onclick={go(page + 1)} disabled={page + 1 >= pages || props.loading}>{"next ›"}</button>
            <button type="button" class="secondary small" id="log-last" onclick={go(pages - 1)} disabled={page + 1 >= pages || props.loading}>{"last »"}</button>
        </div>
    };
    html! {
        <div class="decision-log" id="decision-log" aria-busy={props.loading.to_string()}>
            <div class="log-filters">
                <div class="field inline">
                    <label for="log-cpu">{"CPU"}</label>
                    <select id="log-cpu" onchange={on_cpu}>
                        <option value="" selected={q.cpu.is_none()}>{"all"}</option>
                        { for (0..props.nr_cpus).map(|cpu| html! {
                            <option value={cpu.to_string()} selected={q.cpu == Some(cpu)}>{ format!("CPU{cpu}") }</option>
                        }) }
                    </select>
                    <label for="log-busiest">{"busiest group"}</label>
                    <select id="log-busiest" onchange={on_busiest}>
                        <option selected={q.busiest.is_none()}>{"any"}</option>
                        { for GROUP_TYPES.iter().map(|t| html! {
                            <option value={group_type_name(*t)} selected={q.busiest == Some(*t)}>{ group_type_name(*t) }</option>
                        }) }
                    </select>
                </div>
                <div class="kinds">
                    { kind_box(kind::WAKEUP, format!("wake-ups ({})", c.wakeups), "log-wakeup") }
                    { kind_box(kind::FORK, format!("forks ({})", c.forks), "log-fork") }
                    { kind_box(kind::BALANCE, format!("balance passes that found an imbalance ({})", c.balance), "log-balance") }
                    { kind_box(kind::QUIET, format!("passes that found none ({})", c.quiet), "log-quiet") }
                    { kind_box(kind::FREQ, format!("frequency decisions ({})", c.freq), "log-freq") }
                </div>
            </div>
            { nav.clone() }
            if let Some(p) = &props.page {
                if p.entries.is_empty() {
                    <p class="hint" id="log-empty">{"No decision matches these filters."}</p>
                } else {
                    <ol class="decisions" id="decisions">
                        { for p.entries.iter().map(entry_view) }
                    </ol>
                }
                if let Some(last) = p.entries.last() {
                    <p class="hint">{ format!("This page ends at {:.6} s of the run.", last.t_ns as f64 / 1e9) }</p>
                }
            } else {
                <p class="hint">{"Loading the decision log…"}</p>
            }
            { nav }
        </div>
    }
}
