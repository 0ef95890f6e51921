//! Scenario (serde, versioned) -> [`Plan`] (variants x parameter values x repetitions) -> runs ->
//! [`ComparisonTable`]. Runs are independent and identified by their index, so a caller can run
//! them in any order, in parallel threads or in a Web Worker, and get the same table.

use crate::domains::{DomainsView, SchedDomains};
use crate::engine::RunOutcome;
use crate::engine::{Engine, Limits};
use crate::error::{Error, Result};
use crate::kernel::{build_config, Governor, KernelConfig};
use crate::latency::Pct;
use crate::rng::Rng;
use crate::sched::log::Decision;
use crate::sched::World;
use crate::table::ComparisonTable;
use crate::topology::{presets, MachineSpec, Topology};
use crate::trace::{Counters, TraceEvent};
use crate::workload::{Instance, Metric, WorkloadSpec};
use serde::{Deserialize, Serialize};

/// The scenario format version this build reads and writes.
pub const SCENARIO_VERSION: u32 = 1;
/// Most runs one plan may have.
pub const MAX_RUNS: usize = 200_000;
/// Most memory the workload programs of one plan may take, all swept values together
/// ([`Instance::footprint_bytes`]), so a scenario that fits in a link cannot make
/// [`Plan::new`] allocate gigabytes before its first run. The largest built-in plan (E2's kernbench
/// suite) takes under 1 MiB; 64 MiB leaves room for big hand-made sweeps while keeping a page's
/// worker well inside what a browser grants it.
pub const MAX_PLAN_PROGRAM_BYTES: usize = 64 << 20;

/// A machine by preset name or in full.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum MachineRef {
    Preset(String),
    Custom(MachineSpec),
}

impl MachineRef {
    pub fn spec(&self) -> Result<MachineSpec> {
        match self {
            MachineRef::Preset(name) => presets::preset(name),
            MachineRef::Custom(spec) => Ok(spec.clone()),
        }
    }
}

/// The parameter a scenario varies, and its values (one table row each).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Sweep {
    pub param: String,
    pub values: Vec<u64>,
}

/// One column: a baseline kernel, patches applied in order, optional further config changes (a
/// JSON merge patch over [`KernelConfig`]), and a governor.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct VariantSpec {
    pub name: String,
    pub baseline: String,
    #[serde(default)]
    pub patches: Vec<String>,
    pub governor: Governor,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<serde_json::Value>,
}

/// Optional sections a scenario's table carries besides the comparison.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Extras {
    /// A histogram of each variant's run values with buckets this wide (in the metric's unit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub histogram_bucket: Option<f64>,
    /// The wake-up classification of the asymmetric-capacity series' evaluation.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub wake_classes: bool,
}

impl Extras {
    pub fn is_empty(&self) -> bool {
        self.histogram_bucket.is_none() && !self.wake_classes
    }
}

/// Everything needed to reproduce a table.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub version: u32,
    pub name: String,
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub description: String,
    pub machine: MachineRef,
    pub workload: WorkloadSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep: Option<Sweep>,
    pub variants: Vec<VariantSpec>,
    /// Repetitions per (parameter, variant) cell.
    pub runs: u32,
    pub seed: u64,
    /// Extra sections of the results table.
    #[serde(default, skip_serializing_if = "Extras::is_empty")]
    pub extras: Extras,
    /// Run the workload under `taskset -c` with these CPUs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub taskset: Option<Vec<usize>>,
    #[serde(default)]
    pub limits: Limits,
}

impl Scenario {
    /// Parses a scenario file; the error names the line and column.
    ///
    /// Two passes over the text, no `serde_json::Value` in between: the first checks the JSON and
    /// reads only `"version"` (so a file of another version is named as such, whatever else it
    /// holds), the second reads the scenario. Keeping `Value` out of this path keeps a second copy
    /// of every scenario type's deserializer out of the page's wasm.
    pub fn from_json(text: &str) -> Result<Scenario> {
        let version: FileVersion = serde_json::from_str(text)
            .map_err(|e| Error::Scenario(format!("not valid JSON: {e}")))?;
        if version.0 != Some(SCENARIO_VERSION as u64) {
            return Err(Error::Scenario(format!(
                "\"version\" must be {SCENARIO_VERSION} (this build reads version {SCENARIO_VERSION} scenarios)"
            )));
        }
        serde_json::from_str(text).map_err(|e| Error::Scenario(e.to_string()))
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a scenario always serializes")
    }
}

/// The top-level `"version"` of a JSON document when it is an object holding a whole number
/// there (the last one, should the key repeat); `None` for any other document. Reads any valid
/// JSON, so only a syntax error fails.
struct FileVersion(Option<u64>);

impl<'de> Deserialize<'de> for FileVersion {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        d.deserialize_any(DocVisitor).map(FileVersion)
    }
}

/// The document: an object is searched for `"version"`; anything else has none.
struct DocVisitor;

/// A `"version"` value: a whole number, or nothing of use.
struct NumberVisitor;

/// What both visitors answer for a value they do not look into.
macro_rules! no_version {
    ($($f:ident: $t:ty),*) => {$(
        fn $f<E: serde::de::Error>(self, _: $t) -> std::result::Result<Self::Value, E> {
            Ok(None)
        }
    )*};
}

/// The visitor methods of every JSON value but an object, each answering `None` (a number is
/// `$u64`'s business).
macro_rules! other_values {
    () => {
        no_version!(visit_bool: bool, visit_i64: i64, visit_f64: f64, visit_str: &str);
        fn visit_unit<E: serde::de::Error>(self) -> std::result::Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> std::result::Result<Self::Value, A::Error> {
            while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
            Ok(None)
        }
    };
}

impl<'de> serde::de::Visitor<'de> for DocVisitor {
    type Value = Option<u64>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON document")
    }

    other_values!();
    no_version!(visit_u64: u64);

    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<Self::Value, A::Error> {
        let mut version = None;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if key == "version" {
                version = map.next_value::<FileVersionValue>()?.0;
            } else {
                map.next_value::<serde::de::IgnoredAny>()?;
            }
        }
        Ok(version)
    }
}

/// The value of a `"version"` key ([`NumberVisitor`]).
struct FileVersionValue(Option<u64>);

impl<'de> Deserialize<'de> for FileVersionValue {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        d.deserialize_any(NumberVisitor).map(FileVersionValue)
    }
}

impl<'de> serde::de::Visitor<'de> for NumberVisitor {
    type Value = Option<u64>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    other_values!();

    fn visit_u64<E: serde::de::Error>(self, v: u64) -> std::result::Result<Self::Value, E> {
        Ok(Some(v))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<Self::Value, A::Error> {
        while map
            .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
            .is_some()
        {}
        Ok(None)
    }
}

/// A variant ready to run.
#[derive(Clone, Debug)]
pub struct PlannedVariant {
    pub name: String,
    pub config: KernelConfig,
    pub domains: SchedDomains,
}

/// One run's result: the metric value and what it cost.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct RunResult {
    pub index: usize,
    pub variant: usize,
    pub param_index: usize,
    pub repetition: u32,
    pub seed: u64,
    pub value: f64,
    pub sim_ns: u64,
    pub busy_cpu_ns: u64,
    /// Package energy (cores and uncore of all packages) over the measured interval, joules.
    pub energy_j: f64,
    /// Length of the measured interval, ns (0 in results from before it was recorded: then
    /// `sim_ns`).
    #[serde(default)]
    pub energy_ns: u64,
    /// Average busy frequency over the measured interval, MHz (turbostat's `Bzy_MHz`; 0 in
    /// results from before it was recorded).
    #[serde(default)]
    pub busy_mhz: f64,
    pub events: u64,
    pub counters: Counters,
    /// Wake-up latency and runqueue wait per task name, and the workload's own latency samples
    /// (`--report latency`). Not serialized: its histograms are large, and a results file keeps
    /// the table's quantities.
    #[serde(skip)]
    pub latency: crate::latency::LatencyReport,
}

impl RunResult {
    /// The measured interval in seconds (`sim_ns` for results without one), never 0.
    fn energy_seconds(&self) -> f64 {
        let ns = if self.energy_ns > 0 {
            self.energy_ns
        } else {
            self.sim_ns
        };
        ns.max(1) as f64 / 1e9
    }
}

/// One run with everything it recorded: the scheduler events (for timelines and ftrace export)
/// and the decision log (why each wake-up went where it went, what each balance pass saw).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct RunTrace {
    pub result: RunResult,
    pub variant: String,
    pub param: u64,
    /// Task names (`comm`: the program's name) by task id; the pid is the id + 1.
    pub task_names: Vec<String>,
    pub events: Vec<TraceEvent>,
    pub decisions: Vec<Decision>,
    /// The CPUs of each frequency domain (a `Frequency` event's `domain` indexes this).
    pub freq_domain_cpus: Vec<Vec<usize>>,
}

impl RunTrace {
    /// The run as ftrace text.
    pub fn to_ftrace(&self) -> String {
        crate::trace::to_ftrace(&self.events, &self.task_names, &self.freq_domain_cpus)
    }

    /// The run as text in `style`, with the signal events (PELT lines) when `signals` (see
    /// [`crate::trace::text`]).
    pub fn to_text(&self, style: crate::trace::text::Style, signals: bool) -> String {
        crate::trace::text::render(
            &self.events,
            &self.task_names,
            &self.freq_domain_cpus,
            style,
            signals,
        )
    }

    /// The run as a Perfetto protobuf trace (see [`crate::trace::perfetto`]).
    pub fn to_perfetto(&self) -> Vec<u8> {
        crate::trace::perfetto::to_perfetto(&self.events, &self.task_names, &self.freq_domain_cpus)
    }

    /// The decision log as text; `quiet` includes balance passes that found nothing to do;
    /// `kind`, only decisions of that kind (frequency decisions are shown only when asked for:
    /// `Some(DecisionKind::Freq)`).
    pub fn explain(
        &self,
        quiet: bool,
        cpu: Option<usize>,
        kind: Option<crate::sched::log::DecisionKind>,
    ) -> String {
        use crate::sched::log::DecisionKind;
        let name = |t: usize| {
            format!(
                "{}-{}",
                self.task_names.get(t).map_or("task", String::as_str),
                t + 1
            )
        };
        let mut s = String::new();
        for d in &self.decisions {
            match kind {
                Some(k) if d.kind() != k => continue,
                Some(_) => {}
                None if d.kind() == DecisionKind::Freq || (!quiet && d.is_quiet()) => continue,
                None => {}
            }
            if let Some(c) = cpu {
                // A frequency decision involves every CPU of its clock.
                let same_clock = |f_cpu: usize| {
                    self.freq_domain_cpus
                        .iter()
                        .any(|cpus| cpus.contains(&f_cpu) && cpus.contains(&c))
                };
                if !d.involves(c, &same_clock) {
                    continue;
                }
            }
            s.push_str(&d.to_text(&name));
            s.push('\n');
        }
        s
    }
}

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

    fn of(self, r: &RunResult, metric: Metric) -> f64 {
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
    fn describe(self, metric: Metric) -> (&'static str, &'static str, bool) {
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

/// A validated scenario, expanded into runs.
#[derive(Clone, Debug)]
pub struct Plan {
    pub scenario: Scenario,
    pub topo: Topology,
    pub variants: Vec<PlannedVariant>,
    pub param_name: String,
    pub params: Vec<u64>,
    pub instances: Vec<Instance>,
    pub metric: Metric,
}

impl Plan {
    pub fn new(scenario: &Scenario) -> Result<Plan> {
        if scenario.version != SCENARIO_VERSION {
            return Err(Error::Scenario(format!(
                "version must be {SCENARIO_VERSION}"
            )));
        }
        if scenario.variants.is_empty() {
            return Err(Error::Scenario(
                "a scenario needs at least one variant".into(),
            ));
        }
        if let Some(b) = scenario.extras.histogram_bucket {
            if !b.is_finite() || b <= 0.0 {
                return Err(Error::Scenario(
                    "extras.histogram_bucket must be a positive number".into(),
                ));
            }
        }
        if scenario.runs == 0 || scenario.runs > 1000 {
            return Err(Error::Scenario("runs must be 1 to 1000".into()));
        }
        let mut names: Vec<&str> = scenario.variants.iter().map(|v| v.name.as_str()).collect();
        names.sort_unstable();
        if names.windows(2).any(|w| w[0] == w[1]) || names.iter().any(|n| n.is_empty()) {
            return Err(Error::Scenario(
                "variant names must be unique and not empty".into(),
            ));
        }
        let topo = Topology::build(&scenario.machine.spec()?)?;
        let mut variants = Vec::new();
        for v in &scenario.variants {
            let config = build_config(&v.baseline, &v.patches, v.config.as_ref(), v.governor)
                .map_err(|e| match e {
                    // An unknown baseline or patch is the variant's kernel configuration.
                    unknown @ Error::Unknown { .. } => {
                        Error::Config(format!("variant '{}': {unknown}", v.name))
                    }
                    e => e.context(&format!("variant '{}'", v.name)),
                })?;
            let domains = SchedDomains::build(&topo, &config)?;
            variants.push(PlannedVariant {
                name: v.name.clone(),
                config,
                domains,
            });
        }
        let (param_name, specs) = match &scenario.sweep {
            Some(s) => {
                if s.values.is_empty() {
                    return Err(Error::Scenario("sweep.values is empty".into()));
                }
                let specs = s
                    .values
                    .iter()
                    .map(|&v| scenario.workload.with_param(&s.param, v))
                    .collect::<Result<Vec<WorkloadSpec>>>()?;
                (
                    s.param.clone(),
                    specs
                        .into_iter()
                        .zip(s.values.iter().copied())
                        .collect::<Vec<_>>(),
                )
            }
            None => ("run".to_string(), vec![(scenario.workload.clone(), 0)]),
        };
        let params: Vec<u64> = specs.iter().map(|(_, v)| *v).collect();
        // Count the runs before instantiating anything: a sweep's values are cheap to list and
        // expensive to build.
        let total = variants
            .len()
            .saturating_mul(params.len())
            .saturating_mul(scenario.runs as usize);
        if total > MAX_RUNS {
            return Err(Error::Limit(format!(
                "the scenario has {total} runs ({} variants x {} {} values x {} runs); at most {MAX_RUNS}",
                variants.len(),
                params.len(),
                param_name,
                scenario.runs
            )));
        }
        let mut instances = Vec::with_capacity(specs.len());
        let mut footprint = 0usize;
        for (w, v) in &specs {
            let inst = w.instantiate(&topo)?;
            let max_ns = scenario
                .limits
                .max_sim_seconds
                .saturating_mul(crate::units::NSEC_PER_SEC);
            if let Some(stop) = inst.stop_at.filter(|&stop| stop > max_ns) {
                return Err(Error::Limit(format!(
                    "the workload runs for {} s (its duration), longer than limits.max_sim_seconds {}: \
                     raise the limit or shorten the duration",
                    stop as f64 / 1e9,
                    scenario.limits.max_sim_seconds
                )));
            }
            footprint += inst.footprint_bytes();
            if footprint > MAX_PLAN_PROGRAM_BYTES {
                return Err(Error::Limit(format!(
                    "the workload programs of the sweep's first {} values (the last {param_name} {v}) \
                     take {:.1} MiB, more than the {} MiB a plan may hold: sweep fewer or smaller values",
                    instances.len() + 1,
                    footprint as f64 / (1 << 20) as f64,
                    MAX_PLAN_PROGRAM_BYTES >> 20
                )));
            }
            instances.push(inst);
        }
        if let Some(cpus) = &scenario.taskset {
            let mask = crate::cpumask::CpuMask::try_from(cpus.clone()).map_err(Error::Scenario)?;
            if mask.is_empty() || !mask.is_subset_of(&topo.all_cpus()) {
                return Err(Error::Scenario(format!(
                    "taskset {cpus:?} must list CPUs of the machine (0..{})",
                    topo.nr_cpus()
                )));
            }
            for inst in &mut instances {
                inst.taskset = Some(mask);
            }
        }
        Ok(Plan {
            metric: scenario.workload.metric(),
            scenario: scenario.clone(),
            topo,
            variants,
            param_name,
            params,
            instances,
        })
    }

    /// Number of runs.
    pub fn len(&self) -> usize {
        self.variants.len() * self.params.len() * self.scenario.runs as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// (variant, param_index, repetition) of run `index`; runs are ordered by parameter, then
    /// repetition, then variant, so a table fills row by row.
    pub fn run_ref(&self, index: usize) -> (usize, usize, u32) {
        let nv = self.variants.len();
        let runs = self.scenario.runs as usize;
        let variant = index % nv;
        let rep = (index / nv) % runs;
        let param = index / (nv * runs);
        (variant, param, rep as u32)
    }

    /// The seed of a run: the same for every variant of a (parameter, repetition), so variants are
    /// compared on the same random draws.
    pub fn run_seed(&self, param_index: usize, repetition: u32) -> u64 {
        Rng::derive(
            self.scenario.seed,
            (param_index * self.scenario.runs as usize + repetition as usize) as u64,
        )
    }

    /// Runs one simulation.
    pub fn run(&self, index: usize) -> Result<RunResult> {
        self.simulate(index, 0, false, self.scenario.limits)
            .map(|(r, _)| r)
    }

    /// Runs one simulation under `limits` instead of the scenario's (the cost probe,
    /// `cost::estimate`).
    pub fn run_within(&self, index: usize, limits: crate::engine::Limits) -> Result<RunResult> {
        self.simulate(index, 0, false, limits).map(|(r, _)| r)
    }

    /// Runs one simulation verifying the engine's invariants after every event (slow; for tests).
    pub fn run_checked(&self, index: usize) -> Result<RunResult> {
        self.simulate(index, 0, true, self.scenario.limits)
            .map(|(r, _)| r)
    }

    /// Runs one simulation recording its scheduler events and decisions.
    pub fn run_traced(&self, index: usize) -> Result<RunTrace> {
        self.run_traced_with(index, false)
    }

    /// [`Plan::run_traced`], with `signals` also the scheduler's own tracepoints (PELT,
    /// util_est, capacity, overutilized) and the energy meter: what the Perfetto and trace-cmd
    /// exports' counters need. The run is the same run either way.
    pub fn run_traced_with(&self, index: usize, signals: bool) -> Result<RunTrace> {
        let (result, out) = self.simulate(
            index,
            if signals { 2 } else { 1 },
            false,
            self.scenario.limits,
        )?;
        let inst = &self.instances[result.param_index];
        Ok(RunTrace {
            variant: self.variants[result.variant].name.clone(),
            param: self.params[result.param_index],
            task_names: out
                .task_programs
                .iter()
                .map(|&p| inst.programs[p].name.clone())
                .collect(),
            events: out.trace.unwrap_or_default(),
            decisions: out.decisions.unwrap_or_default(),
            freq_domain_cpus: self
                .topo
                .freq_domains
                .iter()
                .map(|d| d.cpus.iter().collect())
                .collect(),
            result,
        })
    }

    /// One run; `trace`: 0 untraced, 1 traced, 2 traced with signals.
    fn simulate(
        &self,
        index: usize,
        trace: u8,
        check: bool,
        limits: crate::engine::Limits,
    ) -> Result<(RunResult, RunOutcome)> {
        if index >= self.len() {
            return Err(Error::Scenario(format!(
                "run {index} does not exist; the plan has {} runs",
                self.len()
            )));
        }
        let (variant, param_index, repetition) = self.run_ref(index);
        let v = &self.variants[variant];
        let seed = self.run_seed(param_index, repetition);
        let world = World::new(self.topo.clone(), v.domains.clone(), v.config.clone());
        let mut engine = Engine::new(world, &self.instances[param_index], seed, limits, trace > 0);
        if trace > 1 {
            engine = engine.with_signals();
        }
        if check {
            engine = engine.with_invariant_checks();
        }
        let mut out = engine.run().map_err(|e| match e {
            // Without a sweep there is no parameter to name (only the run index, already given).
            Error::Limit(m) if self.scenario.sweep.is_none() => {
                Error::Limit(format!("run {index} ({}): {m}", v.name))
            }
            Error::Limit(m) => Error::Limit(format!(
                "run {index} ({}, {} {}): {m}",
                v.name, self.param_name, self.params[param_index]
            )),
            other => other,
        })?;
        let result = RunResult {
            index,
            variant,
            param_index,
            repetition,
            seed,
            value: out.value,
            sim_ns: out.sim_ns,
            busy_cpu_ns: out.busy_cpu_ns,
            energy_j: out.energy_j,
            energy_ns: out.energy_ns,
            busy_mhz: out.busy_mhz,
            events: out.events,
            // Moved, not copied: the callers read the outcome only for its trace, decisions and
            // task programs.
            counters: std::mem::take(&mut out.counters),
            latency: std::mem::take(&mut out.latency),
        };
        Ok((result, out))
    }

    /// The comparison table of whatever results are given (any subset, any order).
    pub fn table(&self, results: &[RunResult]) -> ComparisonTable {
        self.table_of(results, Quantity::Value)
    }

    /// The comparison table of one quantity of the runs, with the scenario's extra sections.
    pub fn table_of(&self, results: &[RunResult], quantity: Quantity) -> ComparisonTable {
        let mut table = self.comparison(results, quantity);
        if let (Some(bucket), Quantity::Value) = (self.scenario.extras.histogram_bucket, quantity) {
            table = table.with_histogram(bucket);
        }
        if self.scenario.extras.wake_classes {
            table.wake_classes = self.wake_classes(results);
        }
        table
    }

    /// Wake-ups by class, summed over runs, per variant; classes that never occur are left out.
    pub fn wake_classes(&self, results: &[RunResult]) -> Vec<crate::table::WakeClassCount> {
        let nv = self.variants.len();
        let mut counts = vec![[0u64; 32]; nv];
        for r in results.iter().filter(|r| r.variant < nv) {
            for (i, n) in r.counters.wake_classes.iter().enumerate() {
                counts[r.variant][i] += n;
            }
        }
        let size = |big: bool| if big { "big" } else { "little" }.to_string();
        (0..32)
            .filter(|&i| counts.iter().any(|c| c[i] > 0))
            .map(|i| {
                let c = crate::trace::WakeClass::from_index(i);
                crate::table::WakeClassCount {
                    task: size(c.task_big),
                    prev_cpu: size(c.prev_big),
                    waker_cpu: size(c.waker_big),
                    woken_onto: size(c.target_big),
                    path: if c.slow_path {
                        "find_idlest (slow)"
                    } else {
                        "select_idle_sibling"
                    }
                    .to_string(),
                    counts: counts.iter().map(|v| v[i]).collect(),
                }
            })
            .collect()
    }

    fn comparison(&self, results: &[RunResult], quantity: Quantity) -> ComparisonTable {
        let nv = self.variants.len();
        let runs = self.scenario.runs as usize;
        let mut slots: Vec<Vec<Vec<Option<f64>>>> =
            vec![vec![vec![None; runs]; nv]; self.params.len()];
        for r in results {
            if r.param_index < self.params.len() && r.variant < nv && (r.repetition as usize) < runs
            {
                slots[r.param_index][r.variant][r.repetition as usize] =
                    Some(quantity.of(r, self.metric));
            }
        }
        let values: Vec<Vec<Vec<f64>>> = slots
            .into_iter()
            .map(|p| {
                p.into_iter()
                    .map(|v| v.into_iter().flatten().collect())
                    .collect()
            })
            .collect();
        let names: Vec<String> = self.variants.iter().map(|v| v.name.clone()).collect();
        let (name, unit, higher) = quantity.describe(self.metric);
        let table = ComparisonTable::build(
            &self.scenario.name,
            name,
            unit,
            higher,
            &self.param_name,
            self.scenario.seed,
            &names,
            &self.params,
            &values,
        );
        match self.scenario.sweep {
            None => table.with_workload(self.scenario.workload.kind_name()),
            Some(_) => table,
        }
    }

    /// The table of `results` in mmtests' layout: each variant's baseline kernel heads its
    /// columns, values with the workload's decimal places (`ComparisonTable::to_mmtests`).
    pub fn mmtests_text(&self, table: &ComparisonTable) -> String {
        table.to_mmtests(
            &self.kernel_names(),
            self.scenario.workload.mmtests_decimals(),
        )
    }

    /// Each variant's baseline kernel, in variant order: the first header line of the mmtests
    /// layout (`ComparisonTable::to_mmtests`).
    pub fn kernel_names(&self) -> Vec<String> {
        self.scenario
            .variants
            .iter()
            .map(|v| v.baseline.clone())
            .collect()
    }

    /// The sched-domain hierarchy a variant builds on this machine.
    pub fn domains_view(&self, variant: usize) -> DomainsView {
        self.variants[variant.min(self.variants.len() - 1)]
            .domains
            .view(&self.topo)
    }
}
