//! The machine editor: start from a preset, then edit anything the core's `MachineSpec` holds:
//! clusters (or packages), cores, SMT threads and sharing groups, capacity_orig, OPP tables, turbo
//! bins, frequency domains, the power model. Each field shows the core's message when it is wrong.

use std::rc::Rc;

use schedlab_core::topology::{presets, FreqDomainSpan, LlcSpan};
use yew::prelude::*;

use crate::components::field::{SelectField, TextField};
use crate::draft::machine::{
    cluster_field_id, CLUSTER_FIELDS, MACHINE_ID, MACHINE_NAME_ID, POWER_FIELDS,
};
use crate::draft::{Draft, Edit, Problems};

#[derive(Properties, PartialEq)]
pub struct MachineProps {
    pub draft: Rc<Draft>,
    pub disabled: bool,
    pub on_edit: Callback<Edit>,
}

/// The value of the preset menu for a machine that no longer equals a preset.
pub const CUSTOM: &str = "custom";

fn problem(p: &Problems, id: &str) -> Option<AttrValue> {
    p.get(id).map(|m| AttrValue::from(m.to_string()))
}

const LLC: &[(LlcSpan, &str, &str)] = &[
    (
        LlcSpan::Cluster,
        "cluster",
        "each cluster (MC per cluster, DIE above)",
    ),
    (
        LlcSpan::Package,
        "package",
        "the package (one MC: DynamIQ, x86 L3)",
    ),
];
const FREQ: &[(FreqDomainSpan, &str)] = &[
    (FreqDomainSpan::Cluster, "cluster"),
    (FreqDomainSpan::Core, "core"),
    (FreqDomainSpan::Cpu, "cpu"),
];

#[component]
pub fn MachineEditor(props: &MachineProps) -> Html {
    let d = &props.draft;
    let m = &d.machine;
    let p = &d.problems;
    let edit = props.on_edit.clone();
    let disabled = props.disabled;
    // The preset shown: the one the machine still equals, else "custom".
    let shown = d
        .machine_preset
        .clone()
        .unwrap_or_else(|| CUSTOM.to_string());
    let mut options: Vec<(AttrValue, AttrValue)> = presets::NAMES
        .iter()
        .map(|n| (AttrValue::from(*n), AttrValue::from(*n)))
        .collect();
    if shown == CUSTOM {
        let from = m
            .origin_preset
            .as_deref()
            .map(|o| format!(" (edited from {o})"))
            .unwrap_or_default();
        options.push((CUSTOM.into(), format!("custom{from}").into()));
    }
    let summary = presets::NAMES
        .iter()
        .position(|n| *n == shown)
        .and_then(|i| presets::SUMMARIES.get(i))
        .map(|s| AttrValue::from(*s));
    let on_preset = edit.reform(Edit::Preset);
    let on_name = edit.reform(Edit::MachineName);
    let on_llc = edit.reform(|v: String| {
        Edit::Llc(
            LLC.iter()
                .find(|(_, n, _)| *n == v)
                .map_or(LlcSpan::Cluster, |(l, _, _)| *l),
        )
    });
    let llc_options: Vec<(AttrValue, AttrValue)> = LLC
        .iter()
        .map(|(_, n, t)| (AttrValue::from(*n), AttrValue::from(*t)))
        .collect();
    let llc_selected = LLC
        .iter()
        .find(|(l, _, _)| *l == m.llc)
        .map_or("cluster", |(_, n, _)| n);
    let many = m.clusters.len() > 1;

    let clusters = m.clusters.iter().enumerate().map(|(i, c)| {
        let fields = CLUSTER_FIELDS.iter().map(|(key, hint)| {
            let id = cluster_field_id(i, key);
            let edit = edit.clone();
            let key_s = key.to_string();
            let numeric = !matches!(*key, "name" | "core_type");
            html! {
                <TextField id={id.clone()} label={*key} value={c.get(key).to_string()}
                    hint={(!hint.is_empty()).then(|| AttrValue::from(*hint))}
                    problem={problem(p, &id)} {disabled}
                    inputmode={numeric.then_some(AttrValue::from("numeric"))}
                    class={classes!(matches!(*key, "smt_sharing_groups" | "opps_mhz" | "turbo_bins" | "smt_throughput" | "cpu_ids").then_some("wide"))}
                    on_input={Callback::from(move |v| edit.emit(Edit::Cluster(i, key_s.clone(), v)))} />
            }
        });
        let power = POWER_FIELDS.iter().zip(&c.power).map(|(key, text)| {
            let full = format!("power.{key}");
            let id = cluster_field_id(i, &full);
            let edit = edit.clone();
            html! {
                <TextField id={id.clone()} label={*key} value={text.clone()} problem={problem(p, &id)}
                    {disabled} inputmode={Some(AttrValue::from("numeric"))}
                    on_input={Callback::from(move |v| edit.emit(Edit::Cluster(i, full.clone(), v)))} />
            }
        });
        let freq_id = cluster_field_id(i, "freq_domain");
        let on_freq = {
            let edit = edit.clone();
            Callback::from(move |v: String| {
                let f = FREQ.iter().find(|(_, n)| *n == v).map_or(FreqDomainSpan::Cluster, |(f, _)| *f);
                edit.emit(Edit::FreqDomain(i, f))
            })
        };
        let freq_selected = FREQ.iter().find(|(f, _)| *f == c.freq_domain).map_or("cluster", |(_, n)| n);
        let on_remove = edit.reform(move |_: MouseEvent| Edit::RemoveCluster(i));
        let power_open = p.any_under(&cluster_field_id(i, "power"));
        html! {
            <fieldset class="cluster" id={format!("cluster-{i}")}>
                <legend>{ format!("Cluster {i}: {}", c.get("name")) }</legend>
                <div class="form-grid">
                    { for fields }
                    <SelectField id={freq_id} label="freq_domain" selected={freq_selected}
                        hint={Some(AttrValue::from("CPUs that share one frequency"))}
                        options={FREQ.iter().map(|(_, n)| (AttrValue::from(*n), AttrValue::from(*n))).collect::<Vec<_>>()}
                        {disabled} on_change={on_freq} />
                </div>
                <details class="power" open={power_open}>
                    <summary>{"Power model (per core: P = Ceff·V²·f + static when busy)"}</summary>
                    <div class="form-grid">{ for power }</div>
                </details>
                if many {
                    <button type="button" class="secondary small" id={format!("remove-cluster-{i}")}
                        onclick={on_remove} {disabled}>{ format!("Remove cluster {i}") }</button>
                }
            </fieldset>
        }
    });
    let on_add = edit.reform(|_: MouseEvent| Edit::AddCluster);
    html! {
        <div class="editor machine-editor" id="machine">
            <div class="form-grid">
                <SelectField id="machine-preset" label="Start from preset" selected={shown.clone()}
                    options={options} {disabled} on_change={on_preset} class={classes!("wide")}
                    hint={summary} />
                <TextField id={MACHINE_NAME_ID} label="Machine name" value={m.name.clone()}
                    problem={problem(p, MACHINE_NAME_ID)} {disabled} on_input={on_name} />
                <SelectField id="machine-llc" label="Last-level cache (MC domain) spans"
                    selected={llc_selected} options={llc_options} {disabled} on_change={on_llc}
                    class={classes!("wide")} />
            </div>
            if let Some(msg) = problem(p, MACHINE_ID) {
                <p class="field-error" id="machine-error" role="alert">{ msg }</p>
            }
            if m.unloaded_preset().is_some() {
                <p class="hint" id="machine-loading">{"Loading the preset…"}</p>
            }
            { for clusters }
            <button type="button" class="secondary" id="add-cluster" onclick={on_add}
                disabled={disabled || m.unloaded_preset().is_some()}>
                {"Add cluster"}
            </button>
        </div>
    }
}
