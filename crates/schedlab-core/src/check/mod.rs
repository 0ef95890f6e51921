//! LISA's scheduler tests (ARM-software/lisa, `lisa/tests/scheduler/`) as built-in checks:
//! scenarios that run each test's rt-app profile on the Juno r2 and HiKey960 presets under the
//! newest baseline with EAS on, and each test's own pass rule computed from the run's trace,
//! reported as PASS/FAIL lines with the figures (`schedlab check`). Reimplemented from LISA's
//! code, not copied:
//!
//! - `eas_behaviour.py`: OneSmallTask, ThreeSmallTasks, TwoBigTasks, TwoBigThreeSmall, RampUp,
//!   RampDown, EnergyModelWakeMigration; `test_task_placement` (the estimated energy of the
//!   observed placement against the optimal placement's, [`eas_behaviour`], [`em`]) and
//!   `test_slack`;
//! - `misfit.py`: StaggeredFinishes; `test_preempt_time`, `test_migration_delay`,
//!   `test_throughput` ([`misfit`]);
//! - `load_tracking.py`: Invariance; `test_task_util_avg` per (CPU, frequency) item,
//!   `test_cpu_invariance`, `test_freq_invariance` ([`load_tracking`]).
//!
//! Profiles ([`rta`]) are sized from the platform as LISA sizes them. A check is a result: a
//! FAIL says what the modelled kernel did, not that something broke; only a run that cannot
//! be made is an error.

pub mod eas_behaviour;
pub mod em;
pub mod load_tracking;
pub mod misfit;
pub mod rta;
#[cfg(test)]
mod tests;

use crate::error::Result;
use crate::experiment::{MachineRef, Plan, RunTrace, Scenario, VariantSpec, SCENARIO_VERSION};
use crate::kernel::{build_config, Governor};
use crate::topology::{presets, Topology};
use crate::trace::{PrevState, TraceEvent};
use crate::workload::WorkloadSpec;
use rta::{Platform, Task};
use serde::{Deserialize, Serialize};

/// The baseline the LISA scenarios run: the newest, with EAS on (`schedlab domains`).
pub const BASELINE: &str = "v6.12";
/// The machines LISA's EAS tests were published on that the model has.
pub const PRESETS: [&str; 2] = ["juno-r2", "hikey960"];

/// One of LISA's test classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LisaTest {
    OneSmallTask,
    ThreeSmallTasks,
    TwoBigTasks,
    TwoBigThreeSmall,
    RampUp,
    RampDown,
    EnergyModelWakeMigration,
    StaggeredFinishes,
    Invariance,
}

pub const ALL_TESTS: [LisaTest; 9] = [
    LisaTest::OneSmallTask,
    LisaTest::ThreeSmallTasks,
    LisaTest::TwoBigTasks,
    LisaTest::TwoBigThreeSmall,
    LisaTest::RampUp,
    LisaTest::RampDown,
    LisaTest::EnergyModelWakeMigration,
    LisaTest::StaggeredFinishes,
    LisaTest::Invariance,
];

impl LisaTest {
    /// LISA's class name.
    pub fn class(self) -> &'static str {
        match self {
            LisaTest::OneSmallTask => "OneSmallTask",
            LisaTest::ThreeSmallTasks => "ThreeSmallTasks",
            LisaTest::TwoBigTasks => "TwoBigTasks",
            LisaTest::TwoBigThreeSmall => "TwoBigThreeSmall",
            LisaTest::RampUp => "RampUp",
            LisaTest::RampDown => "RampDown",
            LisaTest::EnergyModelWakeMigration => "EnergyModelWakeMigration",
            LisaTest::StaggeredFinishes => "StaggeredFinishes",
            LisaTest::Invariance => "Invariance",
        }
    }

    /// The scenario-name part: kebab case of the class.
    pub fn slug(self) -> &'static str {
        match self {
            LisaTest::OneSmallTask => "one-small-task",
            LisaTest::ThreeSmallTasks => "three-small-tasks",
            LisaTest::TwoBigTasks => "two-big-tasks",
            LisaTest::TwoBigThreeSmall => "two-big-three-small",
            LisaTest::RampUp => "ramp-up",
            LisaTest::RampDown => "ramp-down",
            LisaTest::EnergyModelWakeMigration => "em-wake-migration",
            LisaTest::StaggeredFinishes => "staggered-finishes",
            LisaTest::Invariance => "invariance",
        }
    }

    fn module(self) -> &'static str {
        match self {
            LisaTest::StaggeredFinishes => "misfit",
            LisaTest::Invariance => "load_tracking",
            _ => "eas_behaviour",
        }
    }

    /// `test_task_placement`'s `energy_est_threshold_pct` for the class (eas_behaviour.py).
    pub fn energy_threshold_pct(self) -> f64 {
        match self {
            LisaTest::ThreeSmallTasks => 20.0,
            LisaTest::RampUp => 15.0,
            LisaTest::RampDown => 18.0,
            _ => 5.0,
        }
    }

    /// The class's `get_rtapp_profile(plat_info)`.
    pub fn profile(self, p: &Platform) -> Vec<Task> {
        let little = p.littlest();
        let bigs = p.biggest_class().to_vec();
        let big = bigs.first().copied().unwrap_or(0);
        const S: u64 = 1_000_000;
        let small =
            |name: &str| Task::periodic(name, p.unscaled_utilization(little, 50), S, 0, None);
        let bigt = |name: &str| Task::periodic(name, p.unscaled_utilization(big, 80), S, 0, None);
        match self {
            LisaTest::OneSmallTask => vec![small("small")],
            LisaTest::ThreeSmallTasks => (0..3).map(|i| small(&format!("small_{i}"))).collect(),
            LisaTest::TwoBigTasks => (0..2).map(|i| bigt(&format!("big_{i}"))).collect(),
            LisaTest::TwoBigThreeSmall => (0..3)
                .map(|i| small(&format!("small_{i}")))
                .chain((0..2).map(|i| bigt(&format!("big_{i}"))))
                .collect(),
            LisaTest::EnergyModelWakeMigration => (0..bigs.len())
                .map(|i| {
                    Task::step(
                        &format!("emwm_{i}"),
                        p.unscaled_utilization(little, 20),
                        p.unscaled_utilization(big, 70),
                        2 * S,
                        2,
                    )
                })
                .collect(),
            LisaTest::RampUp => vec![Task::ramp(
                "ramp_up",
                p.unscaled_utilization(little, 10),
                p.unscaled_utilization(big, 70),
                5,
                S / 2,
                1,
            )],
            LisaTest::RampDown => vec![Task::ramp(
                "ramp_down",
                p.unscaled_utilization(big, 70),
                p.unscaled_utilization(little, 10),
                5,
                S / 2,
                1,
            )],
            LisaTest::StaggeredFinishes => misfit::profile(p),
            LisaTest::Invariance => load_tracking::profile(p),
        }
    }

    /// The governors of the scenario's variants: schedutil (EAS needs it), except Invariance,
    /// whose items run at fixed frequencies (LISA's `userspace` governor; the model has none, so
    /// its items are each CPU's highest and lowest OPP: `performance` and `powersave`).
    fn governors(self) -> &'static [Governor] {
        match self {
            LisaTest::Invariance => &[Governor::Performance, Governor::Powersave],
            _ => &[Governor::Schedutil],
        }
    }
}

/// The built-in LISA scenario names, `lisa-<preset>-<test>`.
pub fn scenario_names() -> Vec<String> {
    PRESETS
        .iter()
        .flat_map(|p| {
            ALL_TESTS
                .iter()
                .map(move |t| format!("lisa-{p}-{}", t.slug()))
        })
        .collect()
}

/// The test a scenario name stands for, and its preset.
pub fn test_of(name: &str) -> Option<(LisaTest, &'static str)> {
    let rest = name.strip_prefix("lisa-")?;
    PRESETS.iter().find_map(|&p| {
        let slug = rest.strip_prefix(p)?.strip_prefix('-')?;
        ALL_TESTS.iter().find(|t| t.slug() == slug).map(|&t| (t, p))
    })
}

/// The built-in LISA scenario of that name (`None`: not one).
pub fn scenario(name: &str) -> Option<Result<Scenario>> {
    let (test, preset) = test_of(name)?;
    Some(build_scenario(test, preset))
}

fn build_scenario(test: LisaTest, preset: &str) -> Result<Scenario> {
    let topo = Topology::build(&presets::preset(preset)?)?;
    let config = build_config(BASELINE, &[], None, Governor::Schedutil)?;
    let plat = Platform::new(&topo, &config);
    let tasks = test.profile(&plat);
    let json = rta::rtapp_json(&tasks, &plat);
    let variants = test
        .governors()
        .iter()
        .map(|&g| VariantSpec {
            name: match g {
                Governor::Schedutil => BASELINE.to_string(),
                g => format!("{BASELINE}-{}", governor_name(g)),
            },
            baseline: BASELINE.into(),
            patches: Vec::new(),
            governor: g,
            config: None,
        })
        .collect();
    let workload = WorkloadSpec::RtApp(crate::workload::rtapp::RtApp {
        json,
        speed: Default::default(),
    });
    Ok(Scenario {
        version: SCENARIO_VERSION,
        name: format!("lisa-{preset}-{}", test.slug()),
        title: format!("LISA {}.{} on {preset}", test.module(), test.class()),
        description: format!(
            "LISA's lisa/tests/scheduler/{}.py {} on {preset} under {BASELINE} (EAS on with \
             schedutil): its rt-app profile sized from the platform's capacities as LISA sizes \
             it; `schedlab check` computes the test's pass rules from the run.",
            test.module(),
            test.class()
        ),
        machine: MachineRef::Preset(preset.into()),
        workload,
        sweep: None,
        variants,
        runs: 1,
        seed: 1,
        extras: Default::default(),
        taskset: None,
        limits: Default::default(),
    })
}

fn governor_name(g: Governor) -> &'static str {
    match g {
        Governor::Performance => "performance",
        Governor::Powersave => "powersave",
        Governor::Schedutil => "schedutil",
        Governor::Hwp => "hwp",
    }
}

/// One pass rule's outcome.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct CheckLine {
    pub variant: String,
    /// LISA's test method, e.g. `test_task_placement`.
    pub rule: String,
    /// What it is about: a task, an item (`cpu1@1200000`), or empty for the whole run.
    pub subject: String,
    pub observed: f64,
    /// The reference the rule compares with (the optimal energy, the expected util...).
    pub expected: f64,
    /// The margin as LISA states it (`5%`, `1 ms`).
    pub margin: String,
    pub unit: String,
    pub pass: bool,
}

impl CheckLine {
    pub fn to_text(&self) -> String {
        let subject = if self.subject.is_empty() {
            String::new()
        } else {
            format!(" {}", self.subject)
        };
        format!(
            "{} {} {}{}: observed {:.3} {}, expected {:.3} {}, margin {}",
            if self.pass { "PASS" } else { "FAIL" },
            self.variant,
            self.rule,
            subject,
            self.observed,
            self.unit,
            self.expected,
            self.unit,
            self.margin
        )
    }
}

/// All check lines as text, one per line.
pub fn to_text(lines: &[CheckLine]) -> String {
    lines.iter().map(|l| l.to_text() + "\n").collect()
}

/// Runs the first repetition of each variant of a LISA scenario traced and computes its test's
/// rules. `Ok(None)`: the scenario is not a LISA one (its name says which test it is).
pub fn check(plan: &Plan) -> Result<Option<Vec<CheckLine>>> {
    let Some((test, _)) = test_of(&plan.scenario.name) else {
        return Ok(None);
    };
    let mut out = Vec::new();
    for v in 0..plan.variants.len().min(plan.len()) {
        let trace = plan.run_traced_with(v, true)?;
        out.extend(check_trace(plan, test, &trace));
    }
    if test == LisaTest::Invariance {
        out.extend(load_tracking::aggregate(&out));
    }
    Ok(Some(out))
}

/// The test's rules on one traced run of `plan`.
pub fn check_trace(plan: &Plan, test: LisaTest, trace: &RunTrace) -> Vec<CheckLine> {
    let variant = &plan.variants[trace.result.variant];
    let plat = Platform::new(&plan.topo, &variant.config);
    let tasks = test.profile(&plat);
    let tl = Timeline::new(trace, &tasks, plat.nr_cpus);
    let name = &variant.name;
    match test {
        LisaTest::StaggeredFinishes => misfit::check(name, &plat, &tasks, &tl),
        LisaTest::Invariance => {
            load_tracking::check(name, &plat, &tasks, &tl, variant.config.governor)
        }
        _ => {
            let mut lines = Vec::new();
            match em::platform_perf_domains(&plan.topo, &variant.config, &plat.capacities) {
                Some(pds) => {
                    let em = em::LisaEm::from_perf_domains(&pds, plat.nr_cpus);
                    lines.push(eas_behaviour::test_task_placement(
                        name,
                        &em,
                        &tasks,
                        &tl,
                        test.energy_threshold_pct(),
                    ));
                }
                // LISA cannot create the bundle without an energy model (CannotCreateError):
                // the placement rule has nothing to compare with.
                None => lines.push(CheckLine {
                    variant: name.clone(),
                    rule: "test_task_placement".into(),
                    subject: "the platform has no energy model".into(),
                    observed: f64::NAN,
                    expected: f64::NAN,
                    margin: format!("{}%", test.energy_threshold_pct()),
                    unit: String::new(),
                    pass: false,
                }),
            }
            lines.extend(eas_behaviour::test_slack(name, &tasks, &tl, 15.0));
            lines
        }
    }
}

/// A task's time on a CPU.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Span {
    pub start: u64,
    pub end: u64,
    pub cpu: usize,
}

/// A sleep, with what took the CPU when the task went to sleep.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sleep {
    pub start: u64,
    pub end: u64,
    pub next: Option<usize>,
}

/// The trace seen as LISA's analyses see it: per profile task, its running spans, its sleeps
/// (from the switch out in state S to its wake-up), its CPU changes, its PELT samples and its
/// rt-app slacks; per CPU, its busy spans.
#[derive(Clone, Debug, Default)]
pub struct Timeline {
    /// Trace task id of each profile task (`None`: it never appeared).
    pub ids: Vec<Option<usize>>,
    pub runs: Vec<Vec<Span>>,
    pub sleeps: Vec<Vec<Sleep>>,
    pub utils: Vec<Vec<(u64, u64)>>,
    pub slacks: Vec<Vec<i64>>,
    pub cpu_busy: Vec<Vec<(u64, u64)>>,
    /// The end of the trace (the run's simulated time).
    pub end: u64,
}

impl Timeline {
    /// rt-app names thread `i` of the file (tasks in key order) `<task>-<i>`.
    pub fn new(trace: &RunTrace, tasks: &[Task], nr_cpus: usize) -> Timeline {
        let mut order: Vec<usize> = (0..tasks.len()).collect();
        order.sort_by(|&a, &b| tasks[a].name.cmp(&tasks[b].name));
        let mut ids = vec![None; tasks.len()];
        for (i, &k) in order.iter().enumerate() {
            let want = format!("{}-{i}", tasks[k].name);
            ids[k] = trace.task_names.iter().position(|n| *n == want);
        }
        let nt = trace.task_names.len();
        // Profile index of each trace task.
        let mut prof = vec![None; nt];
        for (k, id) in ids.iter().enumerate() {
            if let Some(id) = *id {
                prof[id] = Some(k);
            }
        }
        let n = tasks.len();
        let mut tl = Timeline {
            ids,
            runs: vec![Vec::new(); n],
            sleeps: vec![Vec::new(); n],
            utils: vec![Vec::new(); n],
            slacks: vec![Vec::new(); n],
            cpu_busy: vec![Vec::new(); nr_cpus],
            end: trace.result.sim_ns,
        };
        let mut running: Vec<Option<(usize, u64)>> = vec![None; nr_cpus];
        let mut asleep: Vec<Option<Sleep>> = vec![None; n];
        let close_run = |tl: &mut Timeline, cpu: usize, task: usize, since: u64, t: u64| {
            if let Some(Some(k)) = prof.get(task) {
                tl.runs[*k].push(Span {
                    start: since,
                    end: t,
                    cpu,
                });
            }
            if cpu < tl.cpu_busy.len() {
                match tl.cpu_busy[cpu].last_mut() {
                    Some(last) if last.1 == since => last.1 = t,
                    _ => tl.cpu_busy[cpu].push((since, t)),
                }
            }
        };
        for e in &trace.events {
            match *e {
                TraceEvent::Switch {
                    t,
                    cpu,
                    prev,
                    prev_state,
                    next,
                } if cpu < nr_cpus => {
                    if let Some((p, since)) = running[cpu].take() {
                        close_run(&mut tl, cpu, p, since, t);
                    }
                    if let (Some(p), PrevState::Sleeping) = (prev, prev_state) {
                        if let Some(Some(k)) = prof.get(p) {
                            asleep[*k] = Some(Sleep {
                                start: t,
                                end: t,
                                next,
                            });
                        }
                    }
                    if let Some(nx) = next {
                        running[cpu] = Some((nx, t));
                    }
                }
                TraceEvent::Wakeup { t, task, .. } => {
                    if let Some(Some(k)) = prof.get(task) {
                        if let Some(mut s) = asleep[*k].take() {
                            s.end = t;
                            tl.sleeps[*k].push(s);
                        }
                    }
                }
                TraceEvent::PeltSe { t, task, util, .. } => {
                    if let Some(Some(k)) = prof.get(task) {
                        tl.utils[*k].push((t, util));
                    }
                }
                TraceEvent::RtappSlack { task, slack_ns, .. } => {
                    if let Some(Some(k)) = prof.get(task) {
                        tl.slacks[*k].push(slack_ns);
                    }
                }
                _ => {}
            }
        }
        let end = tl.end;
        for (cpu, r) in running.iter_mut().enumerate() {
            if let Some((p, since)) = r.take() {
                close_run(&mut tl, cpu, p, since, end.max(since));
            }
        }
        tl
    }

    /// The first time any profile task is switched in (LISA's `_get_start_time()`).
    pub fn start(&self) -> Option<u64> {
        self.runs
            .iter()
            .filter_map(|r| r.first().map(|s| s.start))
            .min()
    }

    /// The longest idle stretch of `cpu` within `[start, end]` (`_max_idle_time()` for one CPU).
    pub fn max_idle(&self, cpu: usize, start: u64, end: u64) -> u64 {
        let mut best = 0;
        let mut at = start;
        for &(s, e) in &self.cpu_busy[cpu] {
            if e <= at {
                continue;
            }
            if s >= end {
                break;
            }
            best = best.max(s.saturating_sub(at));
            at = at.max(e);
        }
        if at < end {
            best = best.max(end - at);
        }
        best
    }
}
