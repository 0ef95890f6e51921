//! The draft's check: the forms built into a scenario with the core's own types and validation
//! (`Topology::build`, the kernel configurations, the workload generators, `Plan::new`), and the
//! sched domains of every variant that builds on a valid machine.
//!
//! This runs in the *check* worker, never on the page: the page sends its [`Forms`] and gets a
//! [`Checked`] back (see `protocol`), so the topology builder, the kernel configurations, the sched
//! domains, the workload generators and the rt-app importer stay out of the page's wasm. It is
//! plain Rust, so the tests call it directly.

use schedlab_core::cost::Cost;
use schedlab_core::domains::SchedDomains;
use schedlab_core::engine::Limits;
use schedlab_core::experiment::VariantSpec;
use schedlab_core::experiment::{MachineRef, Plan, Scenario, Sweep};
use schedlab_core::kernel::{self, KernelConfig, SwitchDiff};
use schedlab_core::topology::MachineSpec;
use schedlab_core::Error;
use serde::{Deserialize, Serialize};

use super::machine::{self, MachineForm};
use super::parse::Problems;
use super::variants::{self, VariantForm};
use super::workload::{self, WorkloadForm};
use crate::viewmodel::DomainsVm;

/// What the page sends to be checked: the forms as typed, and the scenario they started from
/// (its name, title, description, runs, seed, extras, taskset and limits are kept as they are).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Forms {
    pub base: Scenario,
    pub machine: MachineForm,
    pub workload: WorkloadForm,
    pub variants: Vec<VariantForm>,
}

/// What the forms build.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Checked {
    /// The scenario to run, when nothing is wrong.
    pub scenario: Option<Scenario>,
    /// What to fix, keyed by field (empty when `scenario` is `Some`).
    pub problems: Problems,
    /// `(variant name, its sched domains)` for each variant whose kernel builds on the machine,
    /// whatever the state of the workload, so the diagram follows the machine and the variants.
    pub domains: Vec<(String, DomainsVm)>,
    /// The preset the machine form equals, if any.
    pub machine_preset: Option<String>,
    /// The spec of the preset the machine form named, when the page sent one not loaded yet
    /// (`MachineForm::preset`): the page fills its form in from it.
    #[serde(default)]
    pub preset_spec: Option<MachineSpec>,
    /// Said when the scenario asks for limits above the page's: which were lowered, and where to
    /// run it as it is.
    pub limits_lowered: Option<String>,
    /// What each column's kernel is, for "What each patch changes": one text per variant whose
    /// kernel builds (see [`kernel_notes`]). Text, so the page links no switch table and no row
    /// types.
    pub kernel_notes: Vec<String>,
    /// The scenario's estimated cost with one run per cell (`cost::estimate`, one probe run),
    /// when the check was asked to estimate it; the page scales it by the runs it is set to
    /// (`Page::cost`).
    #[serde(default)]
    pub cost: Option<Cost>,
}

/// The most a scenario may ask of a visitor's browser: the core's default limits. A link or file
/// that raises its own limits runs within these on the page (and says so); the CLI runs it as it is.
pub const PAGE_LIMITS: Limits = Limits {
    max_sim_seconds: 600,
    max_events: 50_000_000,
    max_tasks: 20_000,
};

/// The scenario with its limits lowered to [`PAGE_LIMITS`], and what was lowered, if anything.
pub fn within_page_limits(mut scenario: Scenario) -> (Scenario, Option<String>) {
    let above = scenario.limits.above(&PAGE_LIMITS);
    scenario.limits = scenario.limits.at_most(PAGE_LIMITS);
    let note = (!above.is_empty()).then(|| {
        format!(
            "This scenario raises its limits above the page's: {}. The page runs it within its own \
             limits, so longer runs end with a limit error; the command line (schedlab run FILE) runs it as it is.",
            above.join(", ")
        )
    });
    (scenario, note)
}

/// Each built column's kernel as text: its baseline's switches that differ from the newest
/// baseline's (once per baseline: a developer knows today's kernel, and the columns of a scenario
/// nearly always share one baseline, so comparing with the first column's would say nothing),
/// then what the column changes over its baseline (patches, config changes, governor); each
/// switch with both values, the kernel function it models and its versions (`kernel::diff`).
pub fn kernel_notes(variants: &[Option<(VariantSpec, KernelConfig)>]) -> Vec<String> {
    let newest = kernel::newest();
    let newest_config = (newest.config)();
    let mut seen: Vec<(&str, usize)> = Vec::new();
    variants
        .iter()
        .enumerate()
        .filter_map(|(i, v)| v.as_ref().map(|(spec, config)| (i, spec, config)))
        .filter_map(|(i, spec, config)| {
            let b = kernel::BASELINES.iter().find(|b| b.name == spec.baseline)?;
            let base = (b.config)();
            let mut t = format!(
                "Column {}: {}, baseline {} ({})\n",
                i + 1,
                spec.name,
                b.name,
                b.stands_for
            );
            if b.name == newest.name {
                t.push_str(&format!("{} is the newest baseline.\n", b.name));
            } else if let Some((_, col)) = seen.iter().find(|(n, _)| *n == b.name) {
                t.push_str(&format!(
                    "{} against {}: as column {}.\n",
                    b.name, newest.name, col
                ));
            } else {
                seen.push((b.name, i + 1));
                t.push_str(&format!(
                    "{} against {} (the newest baseline):\n",
                    b.name, newest.name
                ));
                rows(&mut t, &kernel::diff(&base, &newest_config));
            }
            let own = kernel::diff(&base, config);
            if own.is_empty() {
                t.push_str(&format!("No changes over {}.\n", b.name));
            } else {
                t.push_str(&format!("This column over {}:\n", b.name));
                rows(&mut t, &own);
            }
            Some(t)
        })
        .collect()
}

fn rows(t: &mut String, rows: &[SwitchDiff]) {
    for r in rows {
        t.push_str(&format!(
            "  {}: {} -> {}\n      {}; {}\n",
            r.switch, r.a, r.b, r.function, r.versions
        ));
    }
}

/// Builds the forms into a scenario, with the problems found and the domain views, and with
/// `estimate` its cost: a probe run, up to a second of the check worker's time on a big machine
/// (`cost::PROBE_MAX_EVENTS`), which the page asks for only when it decides on it
/// (`Page::needs_cost`).
pub fn check(forms: &Forms, estimate: bool) -> Checked {
    let mut p = Problems::default();
    let preset_spec = match forms.machine.resolve() {
        Ok(spec) => spec,
        Err(e) => {
            p.add(machine::MACHINE_ID, e);
            None
        }
    };
    let machine = match (&preset_spec, forms.machine.unloaded_preset()) {
        (Some(spec), name) => MachineForm::from_spec(spec, name).build(&mut p),
        (None, Some(_)) => None,
        (None, None) => forms.machine.build(&mut p),
    };
    let machine_preset = match &machine {
        Some((MachineRef::Preset(name), _)) => Some(name.clone()),
        _ => None,
    };
    let topo = machine.as_ref().map(|(_, t)| t);
    let workload = forms.workload.build(topo, &mut p);
    let sweep = forms.workload.sweep(&mut p);
    let variants = variants::build_all(&forms.variants, &mut p);
    let domains: Vec<(String, DomainsVm)> = match topo {
        Some(topo) => variants
            .iter()
            .flatten()
            .filter_map(|(spec, config)| {
                let d = SchedDomains::build(topo, config).ok()?;
                Some((spec.name.clone(), DomainsVm::new(&d.view(topo))))
            })
            .collect(),
        None => Vec::new(),
    };
    let kernel_notes = kernel_notes(&variants);
    let failed = |problems: Problems| Checked {
        scenario: None,
        problems,
        domains: domains.clone(),
        machine_preset: machine_preset.clone(),
        preset_spec: preset_spec.clone(),
        limits_lowered: None,
        kernel_notes: kernel_notes.clone(),
        cost: None,
    };
    // `Some(None)`: nothing swept; `None`: the sweep has a problem.
    let sweep = match sweep {
        None => Some(None),
        Some(Ok(s)) => Some(Some(s)),
        Some(Err(())) => None,
    };
    let (Some((machine, _)), Some(workload), Some(sweep)) = (machine, workload, sweep) else {
        return failed(p);
    };
    let Some(variants) = variants
        .into_iter()
        .map(|v| v.map(|(spec, _)| spec))
        .collect::<Option<Vec<_>>>()
    else {
        return failed(p);
    };
    if !p.is_empty() {
        return failed(p);
    }
    let (scenario, limits_lowered) = within_page_limits(Scenario {
        machine,
        workload,
        sweep: sweep.map(|(param, values)| Sweep { param, values }),
        variants,
        ..forms.base.clone()
    });
    // The plan's own checks (sweep values the generator rejects, run limits), with one run per
    // cell: the run controls set the real count later.
    let mut one = scenario.clone();
    one.runs = 1;
    let cost = match Plan::new(&one) {
        Err(e) => {
            p.add(plan_error_field(&e), e.to_string());
            return failed(p);
        }
        Ok(plan) => estimate.then(|| schedlab_core::cost::estimate(&plan)),
    };
    Checked {
        scenario: Some(scenario),
        problems: p,
        domains,
        machine_preset,
        preset_spec,
        limits_lowered,
        kernel_notes,
        cost,
    }
}

/// Where a plan's message belongs: sweep values a generator rejects go to the sweep; the rest to
/// the workload, which is what a plan adds over the forms' own checks.
fn plan_error_field(e: &Error) -> String {
    match e {
        Error::Workload(_) => workload::SWEEP_VALUES_ID.to_string(),
        Error::Limit(_) => workload::SWEEP_VALUES_ID.to_string(),
        Error::Topology(_) => machine::MACHINE_ID.to_string(),
        Error::Config(_) | Error::Unknown { .. } => variants::field_id(0, "config"),
        Error::Scenario(_) => workload::WORKLOAD_ID.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::draft::Draft;
    use schedlab_core::scenarios;

    #[test]
    fn forms_and_answers_survive_the_trip_to_the_worker_and_back() {
        for b in scenarios::BUILTIN {
            let forms = Draft::new(&scenarios::builtin(b.name).unwrap()).forms();
            let json = crate::protocol::encode(&forms);
            assert_eq!(crate::protocol::decode::<Forms>(&json).unwrap(), forms);
            let checked = check(&forms, true);
            let json = crate::protocol::encode(&checked);
            assert_eq!(crate::protocol::decode::<Checked>(&json).unwrap(), checked);
        }
    }

    #[test]
    fn a_scenario_raising_its_limits_runs_within_the_pages_and_says_so() {
        assert_eq!(
            PAGE_LIMITS,
            Limits::default(),
            "the page's maxima are the core's defaults"
        );
        let mut s = scenarios::builtin("hikey960-asym-packing").unwrap();
        s.limits.max_sim_seconds = u64::MAX;
        s.limits.max_events = 1_000;
        let checked = check(&Draft::new(&s).forms(), true);
        let built = checked.scenario.expect("E1 builds");
        assert_eq!(built.limits.max_sim_seconds, PAGE_LIMITS.max_sim_seconds);
        assert_eq!(
            built.limits.max_events, 1_000,
            "lower limits stay as they are"
        );
        let note = checked.limits_lowered.expect("said");
        assert!(
            note.contains("max_sim_seconds 18446744073709551615 (at most 600)"),
            "{note}"
        );
        let shipped = check(
            &Draft::new(&scenarios::builtin("hikey960-asym-packing").unwrap()).forms(),
            true,
        );
        assert_eq!(shipped.limits_lowered, None);
    }

    #[test]
    fn a_plan_problem_keeps_the_domains() {
        let mut d = Draft::new(&scenarios::builtin("hikey960-asym-packing").unwrap());
        d.apply(crate::draft::Edit::SweepValues("1, 0".into()));
        let checked = check(&d.forms(), true);
        assert!(checked.scenario.is_none());
        assert!(checked.problems.get(workload::SWEEP_VALUES_ID).is_some());
        assert_eq!(checked.domains.len(), 2);
        assert_eq!(checked.machine_preset.as_deref(), Some("hikey960-dynamiq"));
        assert_eq!(checked.kernel_notes.len(), 2);
    }

    #[test]
    fn each_column_gets_its_baseline_against_the_newest_and_its_own_changes() {
        let d = Draft::new(&scenarios::builtin("tc2-wakeup-sysbench").unwrap());
        let notes = check(&d.forms(), true).kernel_notes;
        assert_eq!(notes.len(), 3);
        let base = &notes[0];
        assert!(
            base.contains("v4.7 against v6.19 (the newest baseline):"),
            "{base}"
        );
        assert!(
            base.contains("find_idlest: \"load\" -> \"classify\""),
            "{base}"
        );
        assert!(base.contains("find_idlest_group()"), "{base}");
        assert!(
            !base.contains("  wake_cap:"),
            "v4.7 and v6.19 both lack wake_cap(): {base}"
        );
        // The baseline column changes only the governor; the series' column its switches too.
        let own = base.split("This column over v4.7:").nth(1).unwrap();
        assert!(
            own.contains("governor") && !own.contains("find_idlest"),
            "{own}"
        );
        assert!(
            notes[1].contains("v4.7 against v6.19: as column 1."),
            "{}",
            notes[1]
        );
        assert!(notes[1].contains("wake_cap: false -> true"), "{}", notes[1]);
        // A newest-baseline column has nothing to say against itself.
        let d = Draft::new(&scenarios::builtin("juno-use-all-littles").unwrap());
        let mut forms = d.forms();
        forms.variants[0].baseline = "v6.19".into();
        assert!(check(&forms, true).kernel_notes[0].contains("v6.19 is the newest baseline."));
    }
}
