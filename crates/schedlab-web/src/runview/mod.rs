//! One run looked at closely: which run (a [`RunPick`]), and what the page shows of it once the
//! worker has recorded it traced (a [`RunDetailVm`]: the run's identity and counters, its
//! timeline as a ready plotly figure (from [`timeline::TimelineVm`]) and the size of its decision
//! log, whose pages come separately).
//!
//! Everything here is built in the worker from a core `RunTrace` and crosses to the page as JSON;
//! it is plain Rust, tested natively. The timeline's figure is built in the worker too and crosses
//! as JSON text the page hands to plotly.js as it is: the page's wasm holds no code for it.

pub mod decisions;
pub mod figure;
pub mod freq;
pub mod state;
pub mod timeline;

use schedlab_core::experiment::{Plan, RunTrace};
use schedlab_core::trace::file::{trace_file, FileFormat};
use serde::{Deserialize, Serialize};

pub use decisions::{DecisionCounts, DecisionPageVm, DecisionQuery};
pub use timeline::TimelineVm;

/// Most simulator events a traced run may take in the page's worker; a longer run would record
/// more trace than a tab should hold (the CLI traces any run: `schedlab trace FILE --run N`).
pub const MAX_TRACED_EVENTS: u64 = 3_000_000;

/// A run of a plan by its coordinates in the table: parameter row, variant column, repetition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunPick {
    pub param_index: usize,
    pub variant: usize,
    pub repetition: u32,
}

impl RunPick {
    /// The `run` parameter of the page's address: `param_index.variant.repetition`.
    pub fn to_param(&self) -> String {
        format!("{}.{}.{}", self.param_index, self.variant, self.repetition)
    }

    /// Reads a `run` parameter back; `None` for anything else.
    pub fn parse(text: &str) -> Option<RunPick> {
        let mut parts = text.trim().split('.').map(str::parse::<u64>);
        let (Some(Ok(p)), Some(Ok(v)), Some(Ok(r)), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return None;
        };
        Some(RunPick {
            param_index: usize::try_from(p).ok()?,
            variant: usize::try_from(v).ok()?,
            repetition: u32::try_from(r).ok()?,
        })
    }

    /// Whether `scenario` has this run (a pick from a link may be of another scenario).
    pub fn fits(&self, scenario: &schedlab_core::experiment::Scenario) -> bool {
        let params = scenario.sweep.as_ref().map_or(1, |s| s.values.len());
        self.param_index < params
            && self.variant < scenario.variants.len()
            && self.repetition < scenario.runs
    }

    /// The plan index of this run (the `--run` of `schedlab trace` and `explain` for the same
    /// scenario file), found through the plan's own `run_ref` so the two never disagree.
    pub fn index_in(&self, plan: &Plan) -> Option<usize> {
        (0..plan.len())
            .find(|&i| plan.run_ref(i) == (self.variant, self.param_index, self.repetition))
    }
}

/// What the page shows about one traced run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunDetailVm {
    pub scenario: String,
    /// The plan index.
    pub index: usize,
    pub pick: RunPick,
    pub variant: String,
    pub param_name: String,
    pub param: u64,
    pub seed: u64,
    pub metric: String,
    pub unit: String,
    pub value: f64,
    pub sim_ns: u64,
    pub events: u64,
    /// The run's counters by the core's names, those that are not zero.
    pub counters: Vec<(String, u64)>,
    pub decisions: DecisionCounts,
    pub timeline: TimelineSummary,
    /// The timeline's plotly figure (`TimelineVm::figure`), as JSON text.
    pub timeline_figure: String,
}

/// What the page says about the timeline besides drawing it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimelineSummary {
    pub lanes: usize,
    pub bars: usize,
    pub marks: usize,
    /// Cells of the per-CPU frequency strips (0: no frequency was recorded).
    #[serde(default)]
    pub freq_cells: usize,
    /// What the drawing leaves out or approximates.
    pub notes: Vec<String>,
}

impl RunDetailVm {
    pub fn build(plan: &Plan, pick: RunPick, index: usize, trace: &RunTrace) -> RunDetailVm {
        let counters = match serde_json::to_value(&trace.result.counters) {
            Ok(serde_json::Value::Object(map)) => map
                .into_iter()
                .filter_map(|(k, v)| Some((k, v.as_u64()?)))
                .filter(|(_, v)| *v > 0)
                .collect(),
            _ => Vec::new(),
        };
        let timeline = TimelineVm::build(trace, &plan.topo);
        RunDetailVm {
            scenario: plan.scenario.name.clone(),
            index,
            pick,
            variant: trace.variant.clone(),
            param_name: plan.param_name.clone(),
            param: trace.param,
            seed: trace.result.seed,
            metric: plan.metric.name().to_string(),
            unit: plan.metric.unit().to_string(),
            value: trace.result.value,
            sim_ns: trace.result.sim_ns,
            events: trace.result.events,
            counters,
            decisions: decisions::counts(&trace.decisions),
            timeline_figure: timeline.figure().to_string(),
            timeline: TimelineSummary {
                lanes: timeline.lanes.len(),
                bars: timeline.bars.len(),
                marks: timeline.marks.len(),
                freq_cells: timeline.cpu_freq.len(),
                notes: timeline.notes,
            },
        }
    }
}

/// What the worker keeps of the last traced run, to answer questions about it.
#[derive(Debug)]
pub struct Traced {
    pub trace: RunTrace,
    /// `schedlab trace`'s header for this run (the ftrace export starts with it).
    pub header: String,
    /// The plan and index it came from, to record it again with signals for a file
    /// ([`Traced::file`]).
    pub plan: Plan,
    pub index: usize,
}

/// Records run `pick` of `plan` traced. A run longer than [`MAX_TRACED_EVENTS`] is refused with
/// a message saying how to trace it with the CLI instead.
pub fn trace_run(plan: &Plan, pick: RunPick) -> Result<(RunDetailVm, Traced), String> {
    trace_run_within(plan, pick, MAX_TRACED_EVENTS)
}

fn trace_run_within(
    plan: &Plan,
    pick: RunPick,
    max_events: u64,
) -> Result<(RunDetailVm, Traced), String> {
    let index = pick.index_in(plan).ok_or_else(|| {
        format!(
            "there is no run at {} #{}, variant #{}, repetition {} in this scenario",
            plan.param_name, pick.param_index, pick.variant, pick.repetition
        )
    })?;
    // The limit only turns a too-long run into an error; a run within it is the same run.
    let mut bounded = plan.clone();
    bounded.scenario.limits.max_events = bounded.scenario.limits.max_events.min(max_events);
    let trace = bounded.run_traced(index).map_err(|e| {
        if bounded.scenario.limits.max_events < plan.scenario.limits.max_events {
            format!(
                "{e}. The page traces runs of up to {max_events} events; save the scenario \
                 and run `schedlab trace scenario.json --run {index}` for this one"
            )
        } else {
            e.to_string()
        }
    })?;
    let detail = RunDetailVm::build(plan, pick, index, &trace);
    let header = ftrace_header(&plan.scenario.name, index, &trace);
    Ok((
        detail,
        Traced {
            trace,
            header,
            plan: bounded,
            index,
        },
    ))
}

/// The two comment lines `schedlab trace` prints before the events.
pub fn ftrace_header(scenario: &str, index: usize, t: &RunTrace) -> String {
    format!(
        "# {scenario} run {index}: variant {}, param {}, repetition {}, seed {}: value {}\n# counters: {}\n",
        t.variant,
        t.param,
        t.result.repetition,
        t.result.seed,
        t.result.value,
        serde_json::to_string(&t.result.counters).expect("counters always serialize")
    )
}

impl Traced {
    /// The run as `schedlab trace` prints it.
    pub fn ftrace(&self) -> String {
        format!("{}{}", self.header, self.trace.to_ftrace())
    }

    /// The run as `schedlab trace --format perfetto|trace-cmd` writes it: the core's
    /// [`trace_file`], which records it again with signals (the same run).
    pub fn file(&self, format: FileFormat) -> Result<Vec<u8>, String> {
        trace_file(&self.plan, self.index, format).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    #[test]
    fn a_pick_survives_the_address_and_is_checked_against_the_scenario() {
        let pick = RunPick {
            param_index: 3,
            variant: 1,
            repetition: 17,
        };
        assert_eq!(pick.to_param(), "3.1.17");
        assert_eq!(RunPick::parse("3.1.17"), Some(pick));
        for bad in ["", "3.1", "3.1.17.0", "a.1.2", "-1.0.0", "1.0.99999999999"] {
            assert_eq!(RunPick::parse(bad), None, "{bad}");
        }
        let s = schedlab_core::scenarios::builtin("hikey960-asym-packing").unwrap();
        assert!(
            pick.fits(&s),
            "8 thread counts, 2 variants, {} runs",
            s.runs
        );
        assert!(!RunPick {
            param_index: 8,
            ..pick
        }
        .fits(&s));
        assert!(!RunPick { variant: 2, ..pick }.fits(&s));
        assert!(!RunPick {
            repetition: s.runs,
            ..pick
        }
        .fits(&s));
    }

    use super::*;
    use schedlab_core::scenarios;
    use std::sync::OnceLock;

    /// E1 as built in (32 runs per cell, seed 1): run 193 is the patched variant with SD_ASYM_PACKING.
    pub fn e1_plan() -> &'static Plan {
        static PLAN: OnceLock<Plan> = OnceLock::new();
        PLAN.get_or_init(|| {
            Plan::new(&scenarios::builtin("hikey960-asym-packing").unwrap()).unwrap()
        })
    }

    pub fn e1_trace() -> &'static RunTrace {
        static TRACE: OnceLock<RunTrace> = OnceLock::new();
        TRACE.get_or_init(|| e1_plan().run_traced(193).unwrap())
    }

    #[test]
    fn a_pick_finds_its_plan_index() {
        let plan = e1_plan();
        for i in [0, 1, 193, plan.len() - 1] {
            let (variant, param_index, repetition) = plan.run_ref(i);
            let pick = RunPick {
                param_index,
                variant,
                repetition,
            };
            assert_eq!(pick.index_in(plan), Some(i));
        }
        let none = RunPick {
            param_index: 99,
            variant: 0,
            repetition: 0,
        };
        assert_eq!(none.index_in(plan), None);
        assert!(trace_run(plan, none).unwrap_err().contains("no run"));
    }

    /// The page's Perfetto and trace-cmd files are the core's `trace_file` of the run on the
    /// scenario's own plan, which is what `schedlab trace --format perfetto|trace-cmd` writes
    /// (checked against the binary in the CLI's tests): the same bytes.
    #[test]
    fn the_pages_trace_files_are_the_clis_bytes() {
        let plan = e1_plan();
        let (variant, param_index, repetition) = plan.run_ref(193);
        let pick = RunPick {
            param_index,
            variant,
            repetition,
        };
        let (_, traced) = trace_run(plan, pick).unwrap();
        for format in [FileFormat::Perfetto, FileFormat::TraceCmd] {
            let page = traced.file(format).unwrap();
            assert_eq!(page, trace_file(plan, 193, format).unwrap(), "{format:?}");
            assert!(page.len() > 10_000);
        }
    }

    #[test]
    fn the_detail_of_run_193_names_it_as_the_cli_does() {
        let plan = e1_plan();
        let (variant, param_index, repetition) = plan.run_ref(193);
        let pick = RunPick {
            param_index,
            variant,
            repetition,
        };
        let (detail, traced) = trace_run(plan, pick).unwrap();
        assert_eq!(detail.index, 193);
        assert_eq!(detail.variant, plan.variants[variant].name);
        assert_eq!(traced.trace, *e1_trace());
        assert_eq!(
            detail.value.to_bits(),
            plan.run(193).unwrap().value.to_bits()
        );
        assert!(detail
            .counters
            .iter()
            .any(|(k, v)| k == "wakeups" && *v > 0));
        assert!(detail.counters.iter().all(|(k, _)| k != "wake_classes"));
        let text = traced.ftrace();
        assert!(text.starts_with("# hikey960-asym-packing run 193: variant "));
        assert!(text.contains("sched_switch"));
        let json = crate::protocol::encode(&detail);
        assert_eq!(
            crate::protocol::decode::<RunDetailVm>(&json).unwrap(),
            detail
        );
    }

    #[test]
    fn a_run_too_long_to_trace_is_refused_with_the_cli_command() {
        let plan = e1_plan();
        let pick = RunPick {
            param_index: 0,
            variant: 0,
            repetition: 0,
        };
        let err = trace_run_within(plan, pick, 1_000).unwrap_err();
        assert!(
            err.contains("1000") && err.contains("schedlab trace scenario.json --run 0"),
            "{err}"
        );
    }
}
