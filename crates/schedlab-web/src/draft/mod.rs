//! The scenario being edited: machine, workload and sweep, variants, as forms, and what they build.
//!
//! A [`Draft`] starts from a scenario (a built-in, or a share link's) and changes by [`Edit`]s.
//! After each edit it rebuilds the scenario with the core's own types and validation, so the page
//! never runs anything the CLI would reject; what does not build is a list of [`Problems`] keyed by
//! field. The sched-domain views are rebuilt too, for every variant whose kernel builds on a valid
//! machine, so the diagram follows the machine and the variants as they are edited, even while
//! the workload is still wrong.
//!
//! Plain Rust, tested natively; the components in `components::{machine, workload, variants}` only
//! render it and send edits.

pub mod machine;
pub mod parse;
pub mod variants;
pub mod workload;

use std::rc::Rc;

use schedlab_core::domains::SchedDomains;
use schedlab_core::experiment::{MachineRef, Plan, Scenario, Sweep};
use schedlab_core::kernel::Governor;
use schedlab_core::topology::{presets, FreqDomainSpan, LlcSpan};
use schedlab_core::Error;

use crate::viewmodel::DomainsVm;
use machine::MachineForm;
pub use parse::Problems;
use variants::{unique_name, VariantForm, MAX_VARIANTS};
use workload::WorkloadForm;

/// One change a user makes.
#[derive(Debug, Clone, PartialEq)]
pub enum Edit {
    /// Replace the machine with a preset's.
    Preset(String),
    MachineName(String),
    Llc(LlcSpan),
    /// `(cluster, field key, text)`; keys as in [`machine::CLUSTER_FIELDS`] or `power.<key>`.
    Cluster(usize, String, String),
    FreqDomain(usize, FreqDomainSpan),
    AddCluster,
    RemoveCluster(usize),
    WorkloadKind(String),
    /// `(parameter, text)`; for rt-app the parameter is `json`.
    Workload(String, String),
    SweepParam(String),
    SweepValues(String),
    VariantName(usize, String),
    VariantBaseline(usize, String),
    VariantGovernor(usize, Governor),
    /// `(variant, patch, on)`.
    VariantPatch(usize, String, bool),
    VariantConfig(usize, String),
    /// Adds a copy of the last variant under a new name.
    AddVariant,
    RemoveVariant(usize),
    /// Moves a variant one place left (`-1`) or right (`1`); the first column is the baseline
    /// every other column is compared with.
    MoveVariant(usize, isize),
}

impl Edit {
    /// A keystroke in a text field. The form takes it at once; the rebuild waits until typing
    /// pauses ([`Draft::apply_typing`]), because on a 96-CPU machine with three variants a
    /// rebuild (sched domains per variant, the plan's workload checks) costs tens of ms.
    pub fn is_typing(&self) -> bool {
        matches!(
            self,
            Edit::MachineName(_)
                | Edit::Cluster(..)
                | Edit::Workload(..)
                | Edit::SweepValues(_)
                | Edit::VariantName(..)
                | Edit::VariantConfig(..)
        )
    }
}

/// The scenario as edited.
#[derive(Debug, Clone, PartialEq)]
pub struct Draft {
    /// The scenario the draft started from: its name, title, description, runs, seed, extras,
    /// taskset and limits are kept as they are.
    pub base: Scenario,
    pub machine: MachineForm,
    pub workload: WorkloadForm,
    pub variants: Vec<VariantForm>,
    /// What the forms build; `Err` lists what to fix.
    pub built: Result<Scenario, Problems>,
    /// The problems of the last rebuild (empty when `built` is `Ok`), for the views.
    pub problems: Problems,
    /// `(variant name, its sched domains)` for each variant that builds on the machine.
    pub domains: Rc<Vec<(String, DomainsVm)>>,
    /// The preset the machine form equals, whatever the state of the other forms.
    pub machine_preset: Option<String>,
    /// A typing edit changed the forms after the last rebuild: `built`, `problems` and `domains`
    /// are of the forms as they were.
    pub stale: bool,
}

impl Draft {
    pub fn new(base: &Scenario) -> Draft {
        let machine = MachineForm::from_ref(&base.machine).unwrap_or_else(|| {
            MachineForm::from_spec(
                &presets::preset(presets::NAMES[0]).expect("the first preset builds"),
                Some(presets::NAMES[0]),
            )
        });
        let sweep = base
            .sweep
            .as_ref()
            .map(|s| (s.param.as_str(), s.values.as_slice()));
        let mut d = Draft {
            base: base.clone(),
            machine,
            workload: WorkloadForm::from_spec(&base.workload, sweep),
            variants: base.variants.iter().map(VariantForm::from_spec).collect(),
            built: Err(Problems::default()),
            problems: Problems::default(),
            domains: Rc::new(Vec::new()),
            machine_preset: None,
            stale: false,
        };
        d.refresh();
        d
    }

    /// The scenario to run, or the first problem to fix.
    pub fn scenario(&self) -> Result<&Scenario, String> {
        if self.stale {
            return Err("Checking the edit…".into());
        }
        self.built.as_ref().map_err(|p| match p.first() {
            Some((_, m)) => format!("Fix the marked field first: {m}"),
            None => "The scenario is incomplete.".into(),
        })
    }

    /// Whether the draft builds to something other than the scenario it started from (runs and
    /// seed aside, which the run controls own).
    pub fn modified(&self) -> bool {
        match &self.built {
            Ok(s) => *s != self.base,
            Err(_) => true,
        }
    }

    /// Whether the machine form differs from the machine the draft started with.
    pub fn machine_modified(&self) -> bool {
        MachineForm::from_ref(&self.base.machine).as_ref() != Some(&self.machine)
    }

    /// Applies an edit and rebuilds.
    pub fn apply(&mut self, edit: Edit) {
        self.change(edit);
        self.refresh();
    }

    /// Applies a typing edit without rebuilding; [`Draft::refresh_if_stale`] rebuilds later.
    pub fn apply_typing(&mut self, edit: Edit) {
        self.change(edit);
        self.stale = true;
    }

    /// Rebuilds after typing edits, if there were any since the last rebuild.
    pub fn refresh_if_stale(&mut self) {
        if self.stale {
            self.refresh();
        }
    }

    fn change(&mut self, edit: Edit) {
        match edit {
            Edit::Preset(name) => {
                if let Ok(spec) = presets::preset(&name) {
                    self.machine = MachineForm::from_spec(&spec, Some(&name));
                }
            }
            Edit::MachineName(t) => self.machine.name = t,
            Edit::Llc(l) => self.machine.llc = l,
            Edit::Cluster(i, key, text) => {
                if let Some(c) = self.machine.clusters.get_mut(i) {
                    c.set(&key, text);
                }
            }
            Edit::FreqDomain(i, f) => {
                if let Some(c) = self.machine.clusters.get_mut(i) {
                    c.freq_domain = f;
                }
            }
            Edit::AddCluster => self.machine.add_cluster(),
            Edit::RemoveCluster(i) => {
                if self.machine.clusters.len() > 1 && i < self.machine.clusters.len() {
                    self.machine.clusters.remove(i);
                }
            }
            Edit::WorkloadKind(k) => self.workload.set_kind(&k),
            Edit::Workload(key, text) => self.workload.set(&key, text),
            Edit::SweepParam(p) => self.workload.sweep_param = p,
            Edit::SweepValues(v) => self.workload.sweep_values = v,
            Edit::VariantName(i, t) => self.with_variant(i, |v| v.name = t),
            Edit::VariantBaseline(i, b) => self.with_variant(i, |v| v.baseline = b),
            Edit::VariantGovernor(i, g) => self.with_variant(i, |v| v.governor = g),
            Edit::VariantPatch(i, p, on) => self.with_variant(i, |v| v.set_patch(&p, on)),
            Edit::VariantConfig(i, c) => self.with_variant(i, |v| v.config = c),
            Edit::AddVariant => {
                if self.variants.len() < MAX_VARIANTS {
                    if let Some(mut v) = self.variants.last().cloned() {
                        let taken: Vec<&str> =
                            self.variants.iter().map(|v| v.name.as_str()).collect();
                        v.name = unique_name(v.name.trim(), &taken);
                        self.variants.push(v);
                    }
                }
            }
            Edit::RemoveVariant(i) => {
                if self.variants.len() > 1 && i < self.variants.len() {
                    self.variants.remove(i);
                }
            }
            Edit::MoveVariant(i, by) => {
                let j = i as isize + by;
                if i < self.variants.len() && j >= 0 && (j as usize) < self.variants.len() {
                    self.variants.swap(i, j as usize);
                }
            }
        }
    }

    fn with_variant(&mut self, i: usize, f: impl FnOnce(&mut VariantForm)) {
        if let Some(v) = self.variants.get_mut(i) {
            f(v);
        }
    }

    /// Rebuilds the scenario, the problems and the domain views from the forms.
    fn refresh(&mut self) {
        self.stale = false;
        let mut p = Problems::default();
        let machine = self.machine.build(&mut p);
        self.machine_preset = match &machine {
            Some((MachineRef::Preset(name), _)) => Some(name.clone()),
            _ => None,
        };
        let topo = machine.as_ref().map(|(_, t)| t);
        let workload = self.workload.build(topo, &mut p);
        let sweep = self.workload.sweep(&mut p);
        let variants = variants::build_all(&self.variants, &mut p);
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
        self.domains = Rc::new(domains);
        // `Some(None)`: nothing swept; `None`: the sweep has a problem.
        let sweep = match sweep {
            None => Some(None),
            Some(Ok(s)) => Some(Some(s)),
            Some(Err(())) => None,
        };
        let (Some((machine, _)), Some(workload), Some(sweep)) = (machine, workload, sweep) else {
            self.finish(p);
            return;
        };
        let Some(variants) = variants
            .into_iter()
            .map(|v| v.map(|(spec, _)| spec))
            .collect::<Option<Vec<_>>>()
        else {
            self.finish(p);
            return;
        };
        if !p.is_empty() {
            self.finish(p);
            return;
        }
        let scenario = Scenario {
            machine,
            workload,
            sweep: sweep.map(|(param, values)| Sweep { param, values }),
            variants,
            ..self.base.clone()
        };
        // The plan's own checks (sweep values the generator rejects, run limits), with one run per
        // cell: the run controls set the real count later.
        let mut one = scenario.clone();
        one.runs = 1;
        if let Err(e) = Plan::new(&one) {
            p.add(plan_error_field(&e), e.to_string());
        }
        if p.is_empty() {
            self.problems = p;
            self.built = Ok(scenario);
        } else {
            self.finish(p);
        }
    }

    fn finish(&mut self, p: Problems) {
        self.problems = p.clone();
        self.built = Err(p);
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
    use schedlab_core::scenarios;

    #[test]
    fn every_builtin_loads_unmodified() {
        for b in scenarios::BUILTIN {
            let s = scenarios::builtin(b.name).unwrap();
            let d = Draft::new(&s);
            assert_eq!(
                d.built.as_ref().ok(),
                Some(&s),
                "{}: {:?}",
                b.name,
                d.problems
            );
            assert!(!d.modified(), "{}", b.name);
            assert_eq!(d.domains.len(), s.variants.len(), "{}", b.name);
        }
    }

    #[test]
    fn changing_the_machine_changes_the_domains() {
        let s = scenarios::builtin("hikey960-asym-packing").unwrap();
        let mut d = Draft::new(&s);
        let mc_only = d.domains[0].1.levels.clone();
        d.apply(Edit::Llc(LlcSpan::Cluster));
        assert!(d.modified());
        assert_ne!(
            d.domains[0].1.levels, mc_only,
            "DIE appears above per-cluster MC"
        );
        d.apply(Edit::Preset("power9-smt8".into()));
        assert!(d.domains[0].1.levels.contains(&"SMT".to_string()));
        assert!(d.scenario().is_ok());
    }

    #[test]
    fn an_invalid_machine_blocks_the_run_and_empties_the_diagram() {
        let s = scenarios::builtin("hikey960-asym-packing").unwrap();
        let mut d = Draft::new(&s);
        d.apply(Edit::Cluster(0, "capacity_orig".into(), "0".into()));
        assert!(d.scenario().unwrap_err().contains("capacity_orig"));
        assert!(d.problems.get("cluster-0-capacity_orig").is_some());
        assert!(d.domains.is_empty());
        d.apply(Edit::Cluster(0, "capacity_orig".into(), "462".into()));
        assert_eq!(d.built.as_ref().ok(), Some(&s));
    }

    #[test]
    fn variants_are_added_renamed_moved_and_removed() {
        let s = scenarios::builtin("hikey960-asym-packing").unwrap();
        let mut d = Draft::new(&s);
        d.apply(Edit::AddVariant);
        assert_eq!(d.variants.len(), 3);
        d.apply(Edit::VariantName(2, "hz1000".into()));
        d.apply(Edit::VariantConfig(2, "{\"hz\": 1000}".into()));
        d.apply(Edit::MoveVariant(2, -1));
        d.apply(Edit::MoveVariant(0, -1)); // no place to go: nothing happens
        let names: Vec<_> = d
            .scenario()
            .unwrap()
            .variants
            .iter()
            .map(|v| v.name.clone())
            .collect();
        assert_eq!(names[1], "hz1000");
        assert_eq!(d.domains.len(), 3);
        d.apply(Edit::RemoveVariant(0));
        d.apply(Edit::RemoveVariant(0));
        d.apply(Edit::RemoveVariant(0)); // the last one stays
        assert_eq!(d.variants.len(), 1);
        assert!(d.scenario().is_ok());
    }

    #[test]
    fn a_sweep_value_the_generator_rejects_is_shown_at_the_sweep() {
        let s = scenarios::builtin("hikey960-asym-packing").unwrap();
        let mut d = Draft::new(&s);
        d.apply(Edit::SweepValues("1, 0".into()));
        assert!(
            d.problems.get(workload::SWEEP_VALUES_ID).is_some(),
            "{:?}",
            d.problems
        );
        d.apply(Edit::SweepParam(String::new()));
        let built = d.scenario().unwrap();
        assert!(built.sweep.is_none());
    }

    #[test]
    fn switching_to_rtapp_gives_a_runnable_example() {
        let s = scenarios::builtin("hikey960-asym-packing").unwrap();
        let mut d = Draft::new(&s);
        d.apply(Edit::WorkloadKind("rt-app".into()));
        let built = d.scenario().unwrap().clone();
        assert!(built.sweep.is_none());
        let mut one = built;
        one.runs = 1;
        let plan = Plan::new(&one).unwrap();
        assert!(plan.run(0).unwrap().value > 0.0);
    }
}
