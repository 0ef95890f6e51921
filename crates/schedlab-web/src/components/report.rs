//! What the results report of each run: the workload's metric, package energy or power,
//! performance per watt, or a scheduling-latency percentile (the CLI's `--report`). Switching
//! after a job re-tables its runs in the job worker; nothing runs again.

use schedlab_core::experiment::Quantity;
use schedlab_core::latency::Pct;
use yew::prelude::*;

use crate::components::field::SelectField;

/// `(quantity, its --report name, what the menu says)`.
pub const REPORTS: &[(Quantity, &str, &str)] = &[
    (Quantity::Value, "value", "the workload's metric"),
    (
        Quantity::Energy,
        "energy",
        "package energy, all packages (J)",
    ),
    (Quantity::Power, "power", "package power, all packages (W)"),
    (
        Quantity::PerfPerWatt,
        "perf-per-watt",
        "performance per watt",
    ),
    (
        Quantity::BusyMhz,
        "busy-mhz",
        "frequency while busy (Bzy_MHz)",
    ),
    (
        Quantity::SchedLatency(Pct::P99),
        "sched-p99",
        "wake-up latency p99, all tasks (us)",
    ),
    (
        Quantity::RunqueueWait(Pct::P99),
        "runqueue-p99",
        "runqueue wait p99, all tasks (us)",
    ),
    (
        Quantity::WakeupLatency(Pct::P99),
        "wakeup-p99",
        "schbench wake-up latency p99 (us)",
    ),
    (
        Quantity::RequestLatency(Pct::P99),
        "request-p99",
        "schbench request latency p99 (us)",
    ),
    (Quantity::Rps, "rps", "schbench requests per second"),
];

/// The `--report` name of a quantity, as the CLI spells it.
pub fn report_name(q: Quantity) -> &'static str {
    REPORTS
        .iter()
        .find(|(r, _, _)| *r == q)
        .map_or("value", |(_, name, _)| name)
}

/// The quantity of a `--report` name, `None` for any other text.
pub fn report_by_name(name: &str) -> Option<Quantity> {
    REPORTS
        .iter()
        .find(|(_, n, _)| *n == name)
        .map(|(q, _, _)| *q)
}

#[derive(Properties, PartialEq)]
pub struct ReportPickerProps {
    pub current: Quantity,
    pub disabled: bool,
    pub on_change: Callback<Quantity>,
}

#[component]
pub fn ReportPicker(props: &ReportPickerProps) -> Html {
    let options: Vec<(AttrValue, AttrValue)> = REPORTS
        .iter()
        .map(|(_, name, text)| (AttrValue::from(*name), AttrValue::from(*text)))
        .collect();
    let on_change = props
        .on_change
        .reform(|name: String| report_by_name(&name).unwrap_or(Quantity::Value));
    html! {
        <SelectField id="report" label="Report" options={options}
            selected={report_name(props.current)} disabled={props.disabled} class={classes!("report-field")}
            hint={Some(AttrValue::from("energy and power from the machine's power model, frequency from the run; the CLI's --report"))}
            on_change={on_change} />
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_names_are_the_clis() {
        // Quantity's serialized names are what `schedlab run --report` takes.
        for (q, name, _) in REPORTS {
            assert_eq!(serde_json::to_value(q).unwrap(), *name);
            assert_eq!(q.name(), *name);
            assert_eq!(report_name(*q), *name);
        }
    }
}
