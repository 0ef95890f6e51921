//! The scenario machine's sched-domain hierarchy for one variant, as nested boxes: the top
//! level's domains, inside each the domains of the level below, down to the CPUs. Each box names
//! its level and span, its SD_* flags and imbalance_pct; the boxes inside it are its sched groups,
//! in the kernel's order (local group first), labelled with the group's capacity.

use std::rc::Rc;

use web_sys::HtmlSelectElement;
use yew::prelude::*;

use crate::viewmodel::{CpuLeafVm, DomainBoxVm, DomainsVm, NodeKind, NodeVm};

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
    let levels = vm
        .levels
        .iter()
        .rev()
        .cloned()
        .collect::<Vec<_>>()
        .join(" › ");
    html! {
        <div class="domains" id="domains" data-variant={variant.clone()}>
            <div class="field inline">
                <label for="domains-variant">{"Variant"}</label>
                <select id="domains-variant" onchange={on_change}>
                    { for props.views.iter().enumerate().map(|(i, (name, _))| html! {
                        <option value={name.clone()} selected={i == index}>{ name.clone() }</option>
                    }) }
                </select>
                <span class="hint">{ format!("machine {} · {} CPUs · {}", vm.machine, vm.nr_cpus, levels) }</span>
            </div>
            <p class="hint sd-legend">
                {"Each box is a sched domain; the boxes inside it are its sched groups, local group first, \
                  with their capacity ("}<span class="sd-cap">{"grp N"}</span>{"). Chips are CPUs: capacity_orig · cluster."}
            </p>
            <div class="sd-tree">
                { for vm.roots.iter().map(|n| node(n, Shared::default())) }
            </div>
        </div>
    }
}

/// What a box above has already said for the boxes under it, so they need not repeat it.
#[derive(Clone, Copy, Default)]
struct Shared {
    /// The parent stated this box's flags and imbalance_pct once for all its alike children.
    settings: bool,
    /// The parent stated the group capacity all its children share.
    group_capacity: bool,
    /// An ancestor stated the capacity and cluster every CPU under it shares.
    cpu_meta: bool,
}

fn node(n: &NodeVm, shared: Shared) -> Html {
    match &n.kind {
        NodeKind::Domain(d) => {
            let capacity = n
                .group_capacity
                .as_deref()
                .filter(|_| !shared.group_capacity);
            domain_box(d, capacity, shared)
        }
        NodeKind::Cpu(c) => cpu_chip(c, n.group_capacity.as_deref(), shared.cpu_meta),
    }
}

/// A group capacity badge, for the box that is a group of the box around it.
fn group_cap(capacity: Option<&str>) -> Html {
    match capacity {
        Some(cap) => html! {
            <span class="sd-cap" title="capacity of the sched group this box is in the domain around it (sgc->capacity)">
                { format!("grp {cap}") }
            </span>
        },
        None => html! {},
    }
}

fn flag_chips(flags: &[String]) -> Html {
    html! {
        <div class="flags">
            { for flags.iter().map(|f| html! {
                <span class={classes!("flag", f.contains("ASYM").then_some("asym"))}>{ f.clone() }</span>
            }) }
        </div>
    }
}

fn domain_box(d: &DomainBoxVm, capacity: Option<&str>, shared: Shared) -> Html {
    let alike = d.alike_children();
    let uniform = (!shared.cpu_meta).then(|| d.uniform_cpu_meta()).flatten();
    let below = Shared {
        settings: alike.is_some(),
        group_capacity: alike.as_ref().is_some_and(|a| a.group_capacity.is_some()),
        cpu_meta: shared.cpu_meta || uniform.is_some(),
    };
    // A folded box of CPUs (an SMT pair) is its chips: they say the span, the parent the rest.
    let head = !shared.settings || !d.holds_only_cpus() || capacity.is_some();
    let label = format!("{} domain, CPUs {}", d.level, d.span);
    html! {
        <section class={classes!("sd-box", shared.settings.then_some("compact"))}
            data-level={d.level.clone()} data-span={d.span.clone()} data-flags={d.flags.join(" ")}
            aria-label={label}>
            if head {
                <div class="sd-head">
                    if !shared.settings {
                        <span class="sd-level">{ d.level.clone() }</span>
                    }
                    <span class="sd-span">{ d.span.clone() }</span>
                    { group_cap(capacity) }
                    if !shared.settings {
                        <span class="imb" title="sd->imbalance_pct: how much busier the busiest group must be before load balancing acts">
                            { format!("imbalance_pct {}", d.imbalance_pct) }
                        </span>
                    }
                </div>
            }
            if !shared.settings {
                { flag_chips(&d.flags) }
            }
            if !d.groups_are_children() {
                <div class="groups">
                    {"groups "}
                    { for d.groups.iter().map(|(span, cap)| html! {
                        <span class="group" title="group span: capacity">
                            {"{"}{ span.clone() }{"}"}<small>{ cap.clone() }</small>
                        </span>
                    }) }
                </div>
            }
            if let Some(meta) = uniform {
                <p class="sd-shared">{"every CPU: "}<span class="cpu-meta">{ meta }</span></p>
            }
            if let Some(a) = &alike {
                <div class="sd-shared">
                    <span>{ format!("each of the {} {} domains below: imbalance_pct {}", a.count, a.level, a.imbalance_pct) }</span>
                    if let Some(cap) = a.group_capacity {
                        {" · "}<span class="sd-cap">{ format!("grp {cap}") }</span>
                    }
                    { flag_chips(a.flags) }
                </div>
            }
            <div class={classes!("sd-children", alike.is_some().then_some("packed"))}>
                { for d.children.iter().map(|c| node(c, below)) }
            </div>
        </section>
    }
}

fn cpu_chip(c: &CpuLeafVm, capacity: Option<&str>, meta_shared: bool) -> Html {
    // The group of one CPU has that CPU's capacity as the scheduler sees it; say it only where
    // it differs from capacity_orig (capacities the kernel ignores, e.g. before v4.10 on arm64).
    let group = capacity.filter(|cap| *cap != c.capacity);
    html! {
        <div class={classes!("sd-cpu", meta_shared.then_some("short"))} data-cpu={c.cpu.to_string()}
            data-capacity={c.capacity.clone()} title={format!("CPU{}: {}", c.cpu, c.meta())}>
            <span class="cpu-id"><span class="cpu-word">{"CPU"}</span>{ c.cpu }</span>
            if !meta_shared {
                <span class="cpu-meta">{ c.meta() }</span>
            }
            { group_cap(group) }
        </div>
    }
}
