//! The scenario being edited: machine, workload and sweep, variants, as forms, and what they build.
//!
//! A [`Draft`] starts from a scenario (a built-in, or a share link's) and changes by [`Edit`]s.
//! Each edit gives it a new revision; the forms of a revision are checked by the check worker
//! ([`check::check`]: the core's own types and validation), and its answer is taken only while the
//! draft is still at that revision. So the page never runs anything the CLI would reject, what does
//! not build is a list of [`Problems`] keyed by field, and the sched-domain views follow the machine
//! and the variants as they are edited, even while the workload is still wrong.
//!
//! Typing edits change the forms at once but ask for a check only when typing pauses
//! ([`Draft::typing_paused`]); choices ask at once.
//!
//! Plain Rust, tested natively; the components in `components::{machine, workload, variants}` only
//! render it and send edits.

pub mod check;
pub mod machine;
pub mod parse;
pub mod variants;
pub mod workload;

use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

use schedlab_core::experiment::Scenario;
use schedlab_core::kernel::Governor;
use schedlab_core::topology::{presets, FreqDomainSpan, LlcSpan};

use crate::viewmodel::DomainsVm;
use check::{Checked, Forms};
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
    /// A keystroke in a text field. The form takes it at once; the check waits until typing
    /// pauses ([`Draft::apply_typing`]), because on a 96-CPU machine with three variants a
    /// check (sched domains per variant, the plan's workload checks) costs tens of ms.
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
    /// The machine form the draft started with (filled in with `machine` when its preset loads),
    /// for [`Draft::machine_modified`].
    base_machine: MachineForm,
    pub workload: WorkloadForm,
    pub variants: Vec<VariantForm>,
    /// What the forms built at the last check; `Err` lists what to fix.
    pub built: Result<Scenario, Problems>,
    /// The problems of the last check (empty when `built` is `Ok`), for the views.
    pub problems: Problems,
    /// `(variant name, its sched domains)` for each variant that builds on the machine.
    pub domains: Rc<Vec<(String, DomainsVm)>>,
    /// The preset the machine form equals, whatever the state of the other forms.
    pub machine_preset: Option<String>,
    /// The last check lowered the scenario's limits to the page's, and says so.
    pub limits_lowered: Option<String>,
    /// Each built column's kernel as text, from the check worker (`check::kernel_notes`).
    pub kernel_notes: Rc<Vec<String>>,
    /// The last check's cost estimate with one run per cell (`Checked::cost`).
    pub cost: Option<schedlab_core::cost::Cost>,
    /// The forms' revision: unique over all drafts of the page, so an answer meant for another
    /// draft or an earlier edit is never taken.
    revision: u64,
    /// The revision `built`, `problems` and `domains` are of (`None`: no check has come back).
    checked: Option<u64>,
    /// The current revision should be checked now (false while typing goes on).
    due: bool,
}

/// Revisions are drawn from one counter for the whole page (the wasm has one thread; the
/// native tests have several, hence the atomic). The page's other requests to the check worker
/// (a share link to make or to open) take their ids from it too, so no answer on that bridge is
/// ever taken for another request.
static NEXT_REVISION: AtomicU64 = AtomicU64::new(1);

pub(crate) fn next_revision() -> u64 {
    NEXT_REVISION.fetch_add(1, Ordering::Relaxed)
}

impl Draft {
    pub fn new(base: &Scenario) -> Draft {
        // A preset's form is filled in by the first check (`MachineForm::preset`); an unknown
        // preset is reported there, at the machine.
        let machine = MachineForm::from_ref(&base.machine);
        let sweep = base
            .sweep
            .as_ref()
            .map(|s| (s.param.as_str(), s.values.as_slice()));
        // The form holds its preset as loaded: the machine menu shows it before the first check.
        let machine_preset = machine.origin_preset.clone();
        let mut d = Draft {
            base: base.clone(),
            base_machine: machine.clone(),
            machine,
            workload: WorkloadForm::from_spec(&base.workload, sweep),
            variants: base.variants.iter().map(VariantForm::from_spec).collect(),
            built: Err(Problems::default()),
            problems: Problems::default(),
            domains: Rc::new(Vec::new()),
            machine_preset,
            limits_lowered: None,
            cost: None,
            kernel_notes: Rc::new(Vec::new()),
            revision: 0,
            checked: None,
            due: false,
        };
        d.changed(true);
        d
    }

    /// What the check worker needs.
    pub fn forms(&self) -> Forms {
        Forms {
            base: self.base.clone(),
            machine: self.machine.clone(),
            workload: self.workload.clone(),
            variants: self.variants.clone(),
        }
    }

    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// The forms changed after the last check came back (or none has yet): `built`, `problems`
    /// and `domains` are of the forms as they were.
    pub fn stale(&self) -> bool {
        self.checked != Some(self.revision)
    }

    /// The revision to send to the check worker now, if any: a choice asks at once, typing when
    /// it pauses.
    pub fn check_due(&self) -> Option<u64> {
        (self.due && self.stale()).then_some(self.revision)
    }

    /// Takes the check worker's answer for `revision`; an answer for any other revision is of
    /// forms that have changed since, and is dropped. Returns whether it was taken.
    pub fn accept(&mut self, revision: u64, checked: Checked) -> bool {
        if revision != self.revision {
            return false;
        }
        // The preset the forms named is filled in: the answer is of the filled-in form.
        if let (Some(spec), Some(name)) = (&checked.preset_spec, self.machine.unloaded_preset()) {
            let form = MachineForm::from_spec(spec, Some(name));
            if self.base_machine == self.machine {
                self.base_machine = form.clone();
            }
            self.machine = form;
        }
        self.problems = checked.problems;
        self.built = match checked.scenario {
            Some(s) if self.problems.is_empty() => Ok(s),
            _ => Err(self.problems.clone()),
        };
        self.domains = Rc::new(checked.domains);
        self.machine_preset = checked.machine_preset;
        self.limits_lowered = checked.limits_lowered;
        self.kernel_notes = Rc::new(checked.kernel_notes);
        self.cost = checked.cost;
        self.checked = Some(revision);
        true
    }

    /// The check of `revision` could not be done (the worker crashed on it): the draft cannot run
    /// until an edit gets a check through, and says why.
    pub fn check_failed(&mut self, revision: u64, message: &str) {
        if revision != self.revision {
            return;
        }
        let mut p = Problems::default();
        p.add(
            workload::WORKLOAD_ID,
            format!("the scenario could not be checked: {message}"),
        );
        self.problems = p.clone();
        self.built = Err(p);
        self.checked = Some(revision);
    }

    /// Checks the forms here and takes the answer, as the check worker would answer. Tests only:
    /// on the page it would link the whole check into the page's wasm.
    #[cfg(test)]
    pub fn check_now(&mut self) {
        let checked = check::check(&self.forms(), true);
        self.accept(self.revision, checked);
    }

    fn changed(&mut self, due: bool) {
        self.revision = next_revision();
        self.due = due;
    }

    /// The scenario to run, or the first problem to fix.
    pub fn scenario(&self) -> Result<&Scenario, String> {
        if self.stale() {
            return Err("Checking the scenario…".into());
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
        self.base_machine != self.machine
    }

    /// Applies an edit; its check is due at once.
    pub fn apply(&mut self, edit: Edit) {
        self.change(edit);
        self.changed(true);
    }

    /// Applies a typing edit; its check waits for [`Draft::typing_paused`].
    pub fn apply_typing(&mut self, edit: Edit) {
        self.change(edit);
        self.changed(false);
    }

    /// Typing paused: the forms as typed are due for a check, if they changed since the last one.
    pub fn typing_paused(&mut self) {
        if self.stale() {
            self.due = true;
        }
    }

    fn change(&mut self, edit: Edit) {
        match edit {
            Edit::Preset(name) => {
                if presets::NAMES.contains(&name.as_str()) {
                    self.machine = MachineForm::preset(&name);
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_core::experiment::{MachineRef, Plan};
    use schedlab_core::scenarios;

    /// A draft whose first check came back, as the check worker would answer it.
    fn new_draft(s: &Scenario) -> Draft {
        let mut d = Draft::new(s);
        d.check_now();
        d
    }

    /// An edit, and its check's answer.
    fn edit(d: &mut Draft, e: Edit) {
        d.apply(e);
        d.check_now();
    }

    #[test]
    fn only_the_answer_for_the_current_revision_is_taken() {
        let s = scenarios::builtin("hikey960-asym-packing").unwrap();
        let mut d = Draft::new(&s);
        assert!(
            d.stale() && d.scenario().is_err(),
            "nothing runs before the first check"
        );
        let first = d.check_due().expect("a new draft asks for a check at once");
        let answer = check::check(&d.forms(), true);
        // An edit before the answer arrives: the answer is of forms that no longer exist.
        d.apply(Edit::Llc(LlcSpan::Cluster));
        let second = d.check_due().unwrap();
        assert_ne!(first, second);
        assert!(!d.accept(first, answer));
        assert!(d.stale());
        let answer = check::check(&d.forms(), true);
        assert!(d.accept(second, answer));
        assert!(!d.stale() && d.check_due().is_none());
        assert!(d.scenario().is_ok());
        // Another draft's revisions never collide with this one's.
        let other = Draft::new(&s);
        assert!(other.check_due().unwrap() > second);
    }

    #[test]
    fn a_preset_is_filled_in_by_the_check_and_the_page_never_looks_it_up() {
        let s = scenarios::builtin("hikey960-asym-packing").unwrap();
        let mut d = Draft::new(&s);
        assert_eq!(d.machine.unloaded_preset(), Some("hikey960-dynamiq"));
        assert_eq!(d.machine_preset.as_deref(), Some("hikey960-dynamiq"));
        assert!(!d.machine_modified());
        d.check_now();
        assert_eq!(d.machine.unloaded_preset(), None);
        assert_eq!(d.machine.clusters.len(), 2);
        assert!(
            !d.machine_modified(),
            "the loaded form is the one started from"
        );
        assert!(d.scenario().is_ok());
        // Another preset: unloaded until its check, then filled in, and a change of machine.
        d.apply(Edit::Preset("alderlake-12900k".into()));
        assert_eq!(d.machine.unloaded_preset(), Some("alderlake-12900k"));
        assert!(d.scenario().is_err(), "nothing runs before the check");
        d.check_now();
        assert!(!d.machine.clusters.is_empty());
        assert!(d.machine_modified());
        assert_eq!(d.machine_preset.as_deref(), Some("alderlake-12900k"));
        let built = d.scenario().unwrap();
        assert_eq!(built.machine, MachineRef::Preset("alderlake-12900k".into()));
        // A name that is no preset is not taken; a scenario naming one is reported at the machine.
        d.apply(Edit::Preset("pdp-11".into()));
        assert_eq!(d.machine.origin_preset.as_deref(), Some("alderlake-12900k"));
        let mut bad = s.clone();
        bad.machine = MachineRef::Preset("pdp-11".into());
        let d = new_draft(&bad);
        assert!(d
            .problems
            .get(machine::MACHINE_ID)
            .unwrap()
            .contains("pdp-11"));
    }

    #[test]
    fn typing_asks_for_a_check_only_when_it_pauses() {
        let s = scenarios::builtin("hikey960-asym-packing").unwrap();
        let mut d = new_draft(&s);
        d.apply_typing(Edit::SweepValues("1, 2, x".into()));
        assert!(d.stale() && d.check_due().is_none());
        assert!(d.scenario().unwrap_err().contains("Checking"));
        d.typing_paused();
        let r = d.check_due().expect("due after the pause");
        d.accept(r, check::check(&d.forms(), true));
        assert!(d.problems.get(workload::SWEEP_VALUES_ID).is_some());
    }

    #[test]
    fn a_failed_check_blocks_the_run_and_says_why() {
        let s = scenarios::builtin("hikey960-asym-packing").unwrap();
        let mut d = Draft::new(&s);
        let r = d.check_due().unwrap();
        d.check_failed(r, "the worker crashed");
        assert!(!d.stale() && d.check_due().is_none());
        assert!(d.scenario().unwrap_err().contains("the worker crashed"));
        // The next edit gets a check through.
        edit(&mut d, Edit::AddVariant);
        assert!(d.scenario().is_ok());
    }

    #[test]
    fn every_builtin_loads_unmodified() {
        for b in scenarios::BUILTIN {
            let s = scenarios::builtin(b.name).unwrap();
            let d = new_draft(&s);
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
        let mut d = new_draft(&s);
        let mc_only = d.domains[0].1.levels.clone();
        edit(&mut d, Edit::Llc(LlcSpan::Cluster));
        assert!(d.modified());
        assert_ne!(
            d.domains[0].1.levels, mc_only,
            "DIE appears above per-cluster MC"
        );
        edit(&mut d, Edit::Preset("power9-smt8".into()));
        assert!(d.domains[0].1.levels.contains(&"SMT".to_string()));
        assert!(d.scenario().is_ok());
    }

    #[test]
    fn an_invalid_machine_blocks_the_run_and_empties_the_diagram() {
        let s = scenarios::builtin("hikey960-asym-packing").unwrap();
        let mut d = new_draft(&s);
        edit(&mut d, Edit::Cluster(0, "capacity_orig".into(), "0".into()));
        assert!(d.scenario().unwrap_err().contains("capacity_orig"));
        assert!(d.problems.get("cluster-0-capacity_orig").is_some());
        assert!(d.domains.is_empty());
        edit(
            &mut d,
            Edit::Cluster(0, "capacity_orig".into(), "462".into()),
        );
        assert_eq!(d.built.as_ref().ok(), Some(&s));
    }

    #[test]
    fn variants_are_added_renamed_moved_and_removed() {
        let s = scenarios::builtin("hikey960-asym-packing").unwrap();
        let mut d = new_draft(&s);
        edit(&mut d, Edit::AddVariant);
        assert_eq!(d.variants.len(), 3);
        edit(&mut d, Edit::VariantName(2, "hz1000".into()));
        edit(&mut d, Edit::VariantConfig(2, "{\"hz\": 1000}".into()));
        edit(&mut d, Edit::MoveVariant(2, -1));
        edit(&mut d, Edit::MoveVariant(0, -1)); // no place to go: nothing happens
        let names: Vec<_> = d
            .scenario()
            .unwrap()
            .variants
            .iter()
            .map(|v| v.name.clone())
            .collect();
        assert_eq!(names[1], "hz1000");
        assert_eq!(d.domains.len(), 3);
        edit(&mut d, Edit::RemoveVariant(0));
        edit(&mut d, Edit::RemoveVariant(0));
        edit(&mut d, Edit::RemoveVariant(0)); // the last one stays
        assert_eq!(d.variants.len(), 1);
        assert!(d.scenario().is_ok());
    }

    #[test]
    fn a_sweep_value_the_generator_rejects_is_shown_at_the_sweep() {
        let s = scenarios::builtin("hikey960-asym-packing").unwrap();
        let mut d = new_draft(&s);
        edit(&mut d, Edit::SweepValues("1, 0".into()));
        assert!(
            d.problems.get(workload::SWEEP_VALUES_ID).is_some(),
            "{:?}",
            d.problems
        );
        edit(&mut d, Edit::SweepParam(String::new()));
        let built = d.scenario().unwrap();
        assert!(built.sweep.is_none());
    }

    #[test]
    fn switching_to_rtapp_gives_a_runnable_example() {
        let s = scenarios::builtin("hikey960-asym-packing").unwrap();
        let mut d = new_draft(&s);
        edit(&mut d, Edit::WorkloadKind("rt-app".into()));
        let built = d.scenario().unwrap().clone();
        assert!(built.sweep.is_none());
        let mut one = built;
        one.runs = 1;
        let plan = Plan::new(&one).unwrap();
        assert!(plan.run(0).unwrap().value > 0.0);
    }
}
