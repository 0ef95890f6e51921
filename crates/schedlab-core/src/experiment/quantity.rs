//! What a table reports about each run: [`Quantity`] (the workload's metric, energy, power,
//! perf/W, busy frequency, the latency percentiles, requests per second), its names (the CLI's
//! `--report`, the page's `?report=`, the serialized form, through [`crate::latency::names`]), the
//! older object form it still reads ([`QuantityObject`]), and how each is computed from a
//! [`RunResult`] and described in a table's header. The plan that tabulates it is in
//! `experiment.rs`.

use super::RunResult;
use crate::latency::Pct;
use crate::workload::Metric;
use serde::{Deserialize, Serialize};

/// What a table reports about each run. Serialized as its name ([`Quantity::name`]: `"energy"`,
/// `"sched-p99"`, the CLI's `--report`); the older object form of the percentile-carrying
/// variants (`{"sched-latency": "p99"}`) still reads ([`crate::latency::names`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantity {
    /// The workload's metric.
    Value,
    /// Package energy, as RAPL measures it: the cores and the uncore (the clusters' shared power
    /// domains) of all packages, over the measured interval, joules.
    Energy,
    /// Average package power of all packages over the measured interval, watts (what turbostat
    /// reports from RAPL).
    Power,
    /// Performance per watt: for a throughput metric, the metric per average watt; for a
    /// fixed-work (time) metric, runs per kilojoule (1000 / energy), which is the same ratio.
    PerfPerWatt,
    /// The CPUs' average frequency while busy over the measured interval, MHz: turbostat's
    /// `Bzy_MHz` (base frequency x APERF / MPERF), over all CPUs' busy time.
    BusyMhz,
    /// A percentile of the scheduling wake-up latency (wake-up to switch-in) of all tasks, us
    /// ([`crate::latency`]).
    SchedLatency(Pct),
    /// A percentile of the runqueue wait (runnable to switch-in) of all tasks, us.
    RunqueueWait(Pct),
    /// A percentile of the workload's own wake-up latency samples (schbench's), us.
    WakeupLatency(Pct),
    /// A percentile of the workload's own request latency samples (schbench's), us.
    RequestLatency(Pct),
    /// Requests the workload completed (its request latency samples) per second of the measured
    /// interval: schbench's "average rps".
    Rps,
}

/// A percentile of a histogram in us, 0 without samples.
fn pct_us(h: &crate::latency::LatHist, p: Pct) -> f64 {
    h.percentile(p).map_or(0.0, |ns| ns as f64 / 1e3)
}

/// All task names' histograms of one kind merged.
fn all_names(
    r: &RunResult,
    pick: impl Fn(&crate::latency::NameLatency) -> &crate::latency::LatHist,
) -> crate::latency::LatHist {
    let mut h = crate::latency::LatHist::new();
    for n in &r.latency.names {
        h.merge(pick(n));
    }
    h
}

macro_rules! pct_names {
    ($p:expr, $a:literal, $b:literal, $c:literal, $d:literal) => {
        match $p {
            Pct::P50 => $a,
            Pct::P90 => $b,
            Pct::P99 => $c,
            Pct::P999 => $d,
        }
    };
}

/// The object form `Quantity`'s percentile-carrying variants had before their string names.
#[derive(Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum QuantityObject {
    SchedLatency(Pct),
    RunqueueWait(Pct),
    WakeupLatency(Pct),
    RequestLatency(Pct),
}

impl From<QuantityObject> for Quantity {
    fn from(q: QuantityObject) -> Quantity {
        match q {
            QuantityObject::SchedLatency(p) => Quantity::SchedLatency(p),
            QuantityObject::RunqueueWait(p) => Quantity::RunqueueWait(p),
            QuantityObject::WakeupLatency(p) => Quantity::WakeupLatency(p),
            QuantityObject::RequestLatency(p) => Quantity::RequestLatency(p),
        }
    }
}

/// Every quantity, in the order the CLI's help lists them.
const QUANTITIES: [Quantity; 22] = [
    Quantity::Value,
    Quantity::Energy,
    Quantity::Power,
    Quantity::PerfPerWatt,
    Quantity::BusyMhz,
    Quantity::SchedLatency(Pct::P50),
    Quantity::SchedLatency(Pct::P90),
    Quantity::SchedLatency(Pct::P99),
    Quantity::SchedLatency(Pct::P999),
    Quantity::RunqueueWait(Pct::P50),
    Quantity::RunqueueWait(Pct::P90),
    Quantity::RunqueueWait(Pct::P99),
    Quantity::RunqueueWait(Pct::P999),
    Quantity::WakeupLatency(Pct::P50),
    Quantity::WakeupLatency(Pct::P90),
    Quantity::WakeupLatency(Pct::P99),
    Quantity::WakeupLatency(Pct::P999),
    Quantity::RequestLatency(Pct::P50),
    Quantity::RequestLatency(Pct::P90),
    Quantity::RequestLatency(Pct::P99),
    Quantity::RequestLatency(Pct::P999),
    Quantity::Rps,
];

impl crate::latency::names::PctNamed for Quantity {
    const ALL: &'static [Quantity] = &QUANTITIES;
    const WHAT: &'static str = "report";
    type Legacy = QuantityObject;
    fn name(self) -> &'static str {
        Quantity::name(self)
    }
}

impl Serialize for Quantity {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        crate::latency::names::serialize(self, s)
    }
}

impl<'de> Deserialize<'de> for Quantity {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Quantity, D::Error> {
        crate::latency::names::deserialize(d)
    }
}

impl Quantity {
    /// Every quantity, in the order the CLI's help lists them.
    pub const ALL: &'static [Quantity] = &QUANTITIES;

    /// The name: the CLI's `--report`, the page's `?report=`, the serialized form.
    pub fn name(self) -> &'static str {
        use crate::latency::names::pct_name;
        match self {
            Quantity::Value => "value",
            Quantity::Energy => "energy",
            Quantity::Power => "power",
            Quantity::PerfPerWatt => "perf-per-watt",
            Quantity::BusyMhz => "busy-mhz",
            Quantity::SchedLatency(p) => pct_name!(p, "sched"),
            Quantity::RunqueueWait(p) => pct_name!(p, "runqueue"),
            Quantity::WakeupLatency(p) => pct_name!(p, "wakeup"),
            Quantity::RequestLatency(p) => pct_name!(p, "request"),
            Quantity::Rps => "rps",
        }
    }

    /// The quantity of a name ([`Quantity::name`]; `p999` is taken for `p99.9`).
    pub fn from_name(name: &str) -> Option<Quantity> {
        <Quantity as crate::latency::names::PctNamed>::from_name(name)
    }

    pub(super) fn of(self, r: &RunResult, metric: Metric) -> f64 {
        match self {
            Quantity::Value => r.value,
            Quantity::Energy => r.energy_j,
            Quantity::Power => r.energy_j / r.energy_seconds(),
            Quantity::PerfPerWatt if r.energy_j <= 0.0 => 0.0,
            Quantity::PerfPerWatt if metric.higher_is_better() => {
                let watts = r.energy_j / r.energy_seconds();
                r.value / watts
            }
            Quantity::PerfPerWatt => 1000.0 / r.energy_j,
            Quantity::BusyMhz => r.busy_mhz,
            Quantity::SchedLatency(p) => pct_us(&all_names(r, |n| &n.wakeup), p),
            Quantity::RunqueueWait(p) => pct_us(&all_names(r, |n| &n.wait), p),
            Quantity::WakeupLatency(p) => pct_us(&r.latency.wakeup, p),
            Quantity::RequestLatency(p) => pct_us(&r.latency.request, p),
            Quantity::Rps => r.latency.request.nr as f64 / r.energy_seconds(),
        }
    }

    /// (metric name, unit, higher is better).
    pub(super) fn describe(self, metric: Metric) -> (&'static str, &'static str, bool) {
        match self {
            Quantity::Value => (metric.name(), metric.unit(), metric.higher_is_better()),
            Quantity::Energy => ("package energy (all packages)", "J", false),
            Quantity::Power => ("package power (all packages)", "W", false),
            Quantity::PerfPerWatt if metric.higher_is_better() => ("perf/W", "per W", true),
            Quantity::PerfPerWatt => ("perf/W", "runs per kJ", true),
            Quantity::BusyMhz => ("Bzy_MHz, frequency while busy", "MHz", true),
            Quantity::SchedLatency(p) => (
                pct_names!(
                    p,
                    "sched wake-up latency p50",
                    "sched wake-up latency p90",
                    "sched wake-up latency p99",
                    "sched wake-up latency p99.9"
                ),
                "us",
                false,
            ),
            Quantity::RunqueueWait(p) => (
                pct_names!(
                    p,
                    "runqueue wait p50",
                    "runqueue wait p90",
                    "runqueue wait p99",
                    "runqueue wait p99.9"
                ),
                "us",
                false,
            ),
            Quantity::WakeupLatency(p) => {
                let m = Metric::WakeupLatency(p);
                (m.name(), m.unit(), false)
            }
            Quantity::RequestLatency(p) => {
                let m = Metric::RequestLatency(p);
                (m.name(), m.unit(), false)
            }
            Quantity::Rps => ("requests per second", "rps", true),
        }
    }
}
