//! Scenario (serde, versioned) -> [`Plan`] (variants x parameter values x repetitions) -> runs ->
//! [`ComparisonTable`]. Runs are independent and identified by their index, so a caller can run
//! them in any order, in parallel threads or in a Web Worker, and get the same table.

use crate::domains::{DomainsView, SchedDomains};
use crate::engine::Engine;
use crate::engine::RunOutcome;
use crate::error::{Error, Result};
use crate::kernel::{build_config, KernelConfig};
use crate::rng::Rng;
use crate::sched::log::Decision;
use crate::sched::World;
use crate::table::ComparisonTable;
use crate::topology::Topology;
use crate::trace::{Counters, TraceEvent};
use crate::workload::{Instance, Metric, WorkloadSpec};
use serde::{Deserialize, Serialize};

mod quantity;
mod scenario;

pub use quantity::{Quantity, QuantityObject};
pub use scenario::{Extras, MachineRef, Scenario, Sweep, VariantSpec, SCENARIO_VERSION};

/// Most runs one plan may have.
pub const MAX_RUNS: usize = 200_000;
/// Most memory the workload programs of one plan may take, all swept values together
/// ([`Instance::footprint_bytes`]), so a scenario that fits in a link cannot make
/// [`Plan::new`] allocate gigabytes before its first run. The largest built-in plan (E2's kernbench
/// suite) takes under 1 MiB; 64 MiB leaves room for big hand-made sweeps while keeping a page's
/// worker well inside what a browser grants it.
pub const MAX_PLAN_PROGRAM_BYTES: usize = 64 << 20;

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
