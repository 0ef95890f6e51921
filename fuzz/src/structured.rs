//! The `structured` target's input: a built-in scenario and a list of edits to its fields, drawn
//! from the fuzzer's bytes with `arbitrary`. Where raw JSON mostly fails to parse, every input here
//! is a well-formed scenario, so the fuzzer spends its time in `Topology::build`,
//! `SchedDomains::build`, `KernelConfig::validate`, the workload generators and the engine.
//!
//! Edits reach: the machine's shape (clusters, cores, SMT width and sharing groups, SMT throughput,
//! capacities, OPPs, turbo bins, frequency-domain span, packages, CPU numbers, LLC span, power
//! model), the workload (kind, and any field of its JSON form), the sweep, the variants (baseline,
//! patches, governor, config overrides: any key of [`KernelConfig`] set to a fuzzed value or to
//! another baseline's value), runs, seed, extras, limits (only ever lowered, see
//! [`crate::FUZZ_LIMITS`]) and the taskset. Names (presets, baselines, patches, keys) are picked by
//! index from the core's own lists, so new ones are fuzzed without touching this file.
//!
//! [`KernelConfig`]: schedlab_core::kernel::KernelConfig

use arbitrary::Arbitrary;
use schedlab_core::engine::Limits;
use schedlab_core::experiment::{MachineRef, Scenario, Sweep, VariantSpec};
use schedlab_core::kernel::{self, Governor};
use schedlab_core::scenarios;
use schedlab_core::topology::{
    presets, ClusterSpec, FreqDomainSpan, LlcSpan, MachineSpec, TurboBin,
};
use schedlab_core::workload::WorkloadSpec;
use serde_json::{Map, Value};
use std::sync::OnceLock;

/// One fuzz input: the index of a built-in scenario and the edits applied to it, in order.
#[derive(Arbitrary, Debug)]
pub struct Input {
    pub base: u8,
    pub edits: Vec<Edit>,
}

/// A number as the fuzzer draws it: mostly small, sometimes anything.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Num {
    Small(u8),
    Mid(u16),
    Raw(u64),
}

impl Num {
    pub fn get(self) -> u64 {
        match self {
            Num::Small(n) => n as u64,
            Num::Mid(n) => n as u64,
            Num::Raw(n) => n,
        }
    }
    fn u32(self) -> u32 {
        self.get() as u32
    }
}

/// A JSON value for a config override or a workload field.
#[derive(Arbitrary, Debug)]
pub enum Leaf {
    Bool(bool),
    Num(Num),
    Neg(i32),
    Float(f64),
    /// One of [`names`] (presets, baselines, patches, and every string of the baselines' configs).
    Name(u8),
    Null,
    Array(Vec<Num>),
    Object,
}

#[derive(Arbitrary, Debug)]
pub enum Edit {
    /// The machine becomes preset `i` (by name).
    Preset(u8),
    /// The LLC spans a cluster (`false`) or the package (`true`).
    Llc(bool),
    AddCluster {
        copy_of: u8,
    },
    RemoveCluster(u8),
    Cluster {
        index: u8,
        edit: ClusterEdit,
    },
    /// The workload becomes built-in scenario `i`'s.
    WorkloadOf(u8),
    /// A field of the workload's JSON form (any key but `kind`) gets a value.
    WorkloadField {
        key: u8,
        value: Leaf,
    },
    /// Sweep the workload's sweepable parameter `param` over `values`.
    Sweep {
        param: u8,
        values: Vec<Num>,
    },
    NoSweep,
    AddVariant {
        baseline: u8,
        governor: Gov,
    },
    RemoveVariant(u8),
    Variant {
        index: u8,
        edit: VariantEdit,
    },
    Runs(u8),
    Seed(u64),
    /// Lower the limits (they can only go down from [`crate::FUZZ_LIMITS`]).
    Limits {
        sim_s: u8,
        events: u32,
        tasks: u16,
    },
    Taskset(Option<Vec<Num>>),
    Histogram(Option<f64>),
    WakeClasses(bool),
}

#[derive(Arbitrary, Debug)]
pub enum ClusterEdit {
    Cores(Num),
    Threads(Num),
    Package(Num),
    Capacity(Num),
    Opps(Vec<Num>),
    TurboBins(Vec<(Num, Num)>),
    FreqDomain(u8),
    SharingGroups(Option<Vec<Vec<Num>>>),
    SmtThroughput(Vec<Num>),
    CpuIds(Option<Vec<Num>>),
    /// The core type of cluster `i` of all presets' clusters (workloads may key on it).
    CoreTypeOf(u8),
    Power {
        field: u8,
        value: Num,
    },
}

#[derive(Arbitrary, Debug)]
pub enum VariantEdit {
    Baseline(u8),
    Governor(Gov),
    AddPatch(u8),
    ClearPatches,
    /// Config key `key` (of the serialized [`kernel::KernelConfig`]) gets `value`.
    ConfigKey {
        key: u8,
        value: Leaf,
    },
    /// Config key `key` gets baseline `baseline`'s value of it: eras mixed field by field.
    ConfigFrom {
        key: u8,
        baseline: u8,
    },
    ClearConfig,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Gov {
    Performance,
    Powersave,
    Schedutil,
    Hwp,
}

impl From<Gov> for Governor {
    fn from(g: Gov) -> Governor {
        match g {
            Gov::Performance => Governor::Performance,
            Gov::Powersave => Governor::Powersave,
            Gov::Schedutil => Governor::Schedutil,
            Gov::Hwp => Governor::Hwp,
        }
    }
}

fn pick<T>(items: &[T], i: u8) -> Option<&T> {
    if items.is_empty() {
        None
    } else {
        items.get(i as usize % items.len())
    }
}

fn pick_mut<T>(items: &mut [T], i: u8) -> Option<&mut T> {
    let n = items.len();
    if n == 0 {
        None
    } else {
        items.get_mut(i as usize % n)
    }
}

/// The keys of a baseline's config, in serialization order.
fn config_keys() -> Vec<String> {
    match serde_json::to_value(kernel::baseline(kernel::BASELINES[0].name).ok()) {
        Ok(Value::Object(m)) => m.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

/// Every name a string-valued field might take: presets, baselines, patches, the strings of the
/// baselines' configs (enum values, level names), a few odd ones.
pub fn names() -> Vec<String> {
    fn strings(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::String(s) => out.push(s.clone()),
            Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
            Value::Object(m) => m.values().for_each(|x| strings(x, out)),
            _ => {}
        }
    }
    let mut out: Vec<String> = presets::NAMES.iter().map(|s| s.to_string()).collect();
    out.extend(kernel::BASELINES.iter().map(|b| b.name.to_string()));
    out.extend(kernel::PATCHES.iter().map(|p| p.name.to_string()));
    for b in kernel::BASELINES {
        if let Ok(v) = serde_json::to_value((b.config)()) {
            strings(&v, &mut out);
        }
    }
    out.extend(
        [
            "SMT", "MC", "DIE", "NUMA", "cluster", "package", "core", "cpu", "", "\u{0}",
        ]
        .map(String::from),
    );
    out.sort();
    out.dedup();
    out
}

impl Leaf {
    fn value(&self, names: &[String]) -> Value {
        match self {
            Leaf::Bool(b) => Value::Bool(*b),
            Leaf::Num(n) => Value::from(n.get()),
            Leaf::Neg(n) => Value::from(*n),
            Leaf::Float(f) => serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number),
            Leaf::Name(i) => pick(names, *i).map_or(Value::Null, |s| Value::String(s.clone())),
            Leaf::Null => Value::Null,
            Leaf::Array(a) => Value::Array(a.iter().map(|n| Value::from(n.get())).collect()),
            Leaf::Object => Value::Object(Map::new()),
        }
    }
}

/// The machine as a custom spec, for editing.
fn custom(machine: &mut MachineRef) -> Option<&mut MachineSpec> {
    if let MachineRef::Preset(name) = machine {
        *machine = MachineRef::Custom(presets::preset(name).ok()?);
    }
    match machine {
        MachineRef::Custom(spec) => Some(spec),
        MachineRef::Preset(_) => None,
    }
}

fn edit_cluster(c: &mut ClusterSpec, edit: &ClusterEdit) {
    match edit {
        ClusterEdit::Cores(n) => c.cores = n.u32(),
        ClusterEdit::Threads(n) => c.threads_per_core = n.u32(),
        ClusterEdit::Package(n) => c.package = n.u32(),
        ClusterEdit::Capacity(n) => c.capacity_orig = n.u32(),
        ClusterEdit::Opps(v) => c.opps_mhz = v.iter().map(|n| n.u32()).collect(),
        ClusterEdit::TurboBins(v) => {
            c.turbo_bins = v
                .iter()
                .map(|(cores, mhz)| TurboBin {
                    max_active_cores: cores.u32(),
                    mhz: mhz.u32(),
                })
                .collect()
        }
        ClusterEdit::FreqDomain(i) => {
            c.freq_domain = [
                FreqDomainSpan::Cluster,
                FreqDomainSpan::Core,
                FreqDomainSpan::Cpu,
            ][*i as usize % 3]
        }
        ClusterEdit::SharingGroups(g) => {
            c.smt_sharing_groups = g.as_ref().map(|g| {
                g.iter()
                    .map(|grp| grp.iter().map(|n| n.u32()).collect())
                    .collect()
            })
        }
        ClusterEdit::SmtThroughput(v) => c.smt_throughput = v.iter().map(|n| n.u32()).collect(),
        ClusterEdit::CpuIds(ids) => {
            c.cpu_ids = ids
                .as_ref()
                .map(|ids| ids.iter().map(|n| n.get() as usize).collect())
        }
        ClusterEdit::CoreTypeOf(i) => {
            let types: Vec<String> = presets::NAMES
                .iter()
                .filter_map(|n| presets::preset(n).ok())
                .flat_map(|m| m.clusters.into_iter().map(|c| c.core_type))
                .collect();
            if let Some(t) = pick(&types, *i) {
                c.core_type = t.clone();
            }
        }
        ClusterEdit::Power { field, value } => {
            let p = &mut c.power;
            let v = value.get();
            match field % 5 {
                0 => p.ceff_pf = v,
                1 => p.v_min_mv = v,
                2 => p.v_max_mv = v,
                3 => p.static_uw = v,
                _ => p.idle_uw = v,
            }
        }
    }
}

/// Sets `key` (by index, not `kind`) of the workload's JSON form; the result must still parse as
/// a workload, else the edit is dropped (the fuzzer learns nothing from a serde error here that
/// `scenario_json` does not cover).
fn edit_workload(w: &mut WorkloadSpec, key: u8, value: Value) {
    let Ok(Value::Object(mut m)) = serde_json::to_value(&*w) else {
        return;
    };
    let keys: Vec<String> = m.keys().filter(|k| *k != "kind").cloned().collect();
    let Some(k) = pick(&keys, key) else {
        return;
    };
    m.insert(k.clone(), value);
    if let Ok(new) = serde_json::from_value(Value::Object(m)) {
        *w = new;
    }
}

fn edit_variant(v: &mut VariantSpec, edit: &VariantEdit, keys: &[String], names: &[String]) {
    match edit {
        VariantEdit::Baseline(i) => {
            if let Some(b) = pick(kernel::BASELINES, *i) {
                v.baseline = b.name.to_string();
            }
        }
        VariantEdit::Governor(g) => v.governor = (*g).into(),
        VariantEdit::AddPatch(i) => {
            if let Some(p) = pick(kernel::PATCHES, *i) {
                v.patches.push(p.name.to_string());
            }
        }
        VariantEdit::ClearPatches => v.patches.clear(),
        VariantEdit::ConfigKey { key, value } => {
            if let Some(k) = pick(keys, *key) {
                set_config(v, k, value.value(names));
            }
        }
        VariantEdit::ConfigFrom { key, baseline } => {
            let (Some(k), Some(b)) = (pick(keys, *key), pick(kernel::BASELINES, *baseline)) else {
                return;
            };
            if let Ok(Value::Object(m)) = serde_json::to_value((b.config)()) {
                if let Some(x) = m.get(k) {
                    set_config(v, k, x.clone());
                }
            }
        }
        VariantEdit::ClearConfig => v.config = None,
    }
}

fn set_config(v: &mut VariantSpec, key: &str, value: Value) {
    let mut m = match v.config.take() {
        Some(Value::Object(m)) => m,
        _ => Map::new(),
    };
    m.insert(key.to_string(), value);
    v.config = Some(Value::Object(m));
}

impl Input {
    /// The scenario this input describes; `None` when there is no built-in scenario to start from.
    pub fn scenario(&self) -> Option<Scenario> {
        let base = pick(scenarios::BUILTIN, self.base)?;
        let mut s = scenarios::builtin(base.name).ok()?;
        s.limits = crate::small_limits(&s.limits);
        static KEYS: OnceLock<Vec<String>> = OnceLock::new();
        static NAMES: OnceLock<Vec<String>> = OnceLock::new();
        let keys = KEYS.get_or_init(config_keys);
        let names = NAMES.get_or_init(names);
        for edit in &self.edits {
            self.apply(&mut s, edit, keys, names);
        }
        Some(s)
    }

    fn apply(&self, s: &mut Scenario, edit: &Edit, keys: &[String], names: &[String]) {
        match edit {
            Edit::Preset(i) => {
                if let Some(n) = pick(presets::NAMES, *i) {
                    s.machine = MachineRef::Preset(n.to_string());
                }
            }
            Edit::Llc(package) => {
                if let Some(m) = custom(&mut s.machine) {
                    m.llc = if *package {
                        LlcSpan::Package
                    } else {
                        LlcSpan::Cluster
                    };
                }
            }
            Edit::AddCluster { copy_of } => {
                if let Some(m) = custom(&mut s.machine) {
                    if let Some(c) = pick(&m.clusters, *copy_of).cloned() {
                        m.clusters.push(c);
                    }
                }
            }
            Edit::RemoveCluster(i) => {
                if let Some(m) = custom(&mut s.machine) {
                    if !m.clusters.is_empty() {
                        let n = m.clusters.len();
                        m.clusters.remove(*i as usize % n);
                    }
                }
            }
            Edit::Cluster { index, edit } => {
                if let Some(m) = custom(&mut s.machine) {
                    if let Some(c) = pick_mut(&mut m.clusters, *index) {
                        edit_cluster(c, edit);
                    }
                }
            }
            Edit::WorkloadOf(i) => {
                if let Some(b) = pick(scenarios::BUILTIN, *i) {
                    if let Ok(other) = scenarios::builtin(b.name) {
                        s.workload = other.workload;
                    }
                }
            }
            Edit::WorkloadField { key, value } => {
                edit_workload(&mut s.workload, *key, value.value(names))
            }
            Edit::Sweep { param, values } => {
                if let Some(p) = pick(s.workload.sweepable(), *param) {
                    s.sweep = Some(Sweep {
                        param: p.to_string(),
                        values: values.iter().map(|n| n.get()).collect(),
                    });
                }
            }
            Edit::NoSweep => s.sweep = None,
            Edit::AddVariant { baseline, governor } => {
                if let Some(b) = pick(kernel::BASELINES, *baseline) {
                    s.variants.push(VariantSpec {
                        name: format!("v{}", s.variants.len()),
                        baseline: b.name.to_string(),
                        patches: Vec::new(),
                        governor: (*governor).into(),
                        config: None,
                    });
                }
            }
            Edit::RemoveVariant(i) => {
                if !s.variants.is_empty() {
                    let n = s.variants.len();
                    s.variants.remove(*i as usize % n);
                }
            }
            Edit::Variant { index, edit } => {
                if let Some(v) = pick_mut(&mut s.variants, *index) {
                    edit_variant(v, edit, keys, names);
                }
            }
            Edit::Runs(n) => s.runs = *n as u32,
            Edit::Seed(n) => s.seed = *n,
            Edit::Limits {
                sim_s,
                events,
                tasks,
            } => {
                s.limits = crate::small_limits(&Limits {
                    max_sim_seconds: *sim_s as u64,
                    max_events: *events as u64,
                    max_tasks: *tasks as usize,
                })
            }
            Edit::Taskset(cpus) => {
                s.taskset = cpus
                    .as_ref()
                    .map(|c| c.iter().map(|n| n.get() as usize).collect())
            }
            Edit::Histogram(b) => {
                // A scenario file cannot hold a NaN or an infinity (JSON has none).
                if b.is_none_or(|b| b.is_finite()) {
                    s.extras.histogram_bucket = *b;
                }
            }
            Edit::WakeClasses(on) => s.extras.wake_classes = *on,
        }
    }
}

/// The `structured` target: the edited scenario must survive its own file format (what the CLI's
/// `show` writes, the page saves and a share link carries, read back equal), then plan and run.
pub fn run(input: &Input) {
    let Some(s) = input.scenario() else {
        return;
    };
    let text = s.to_json();
    match schedlab_core::experiment::Scenario::from_json(&text) {
        Ok(back) => assert_eq!(back, s, "a scenario changed through its JSON file"),
        Err(e) => panic!("a scenario's own JSON does not read back: {e}"),
    }
    crate::plan_and_run(&s);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_edits_is_the_builtin_scenario() {
        let input = Input {
            base: 0,
            edits: Vec::new(),
        };
        let s = input.scenario().unwrap();
        let mut want = scenarios::builtin(scenarios::BUILTIN[0].name).unwrap();
        want.limits = crate::small_limits(&want.limits);
        assert_eq!(s, want);
    }

    #[test]
    fn edits_reach_the_machine_and_the_config() {
        let input = Input {
            base: 0,
            edits: vec![
                Edit::Cluster {
                    index: 0,
                    edit: ClusterEdit::Threads(Num::Small(2)),
                },
                Edit::Variant {
                    index: 0,
                    edit: VariantEdit::ConfigKey {
                        key: 1,
                        value: Leaf::Num(Num::Small(250)),
                    },
                },
            ],
        };
        let s = input.scenario().unwrap();
        let MachineRef::Custom(m) = &s.machine else {
            panic!("the machine became custom")
        };
        assert_eq!(m.clusters[0].threads_per_core, 2);
        let key = &config_keys()[1];
        assert_eq!(s.variants[0].config.as_ref().unwrap()[key], 250);
        run(&input);
    }

    #[test]
    fn names_include_presets_baselines_and_config_strings() {
        let n = names();
        assert!(n.iter().any(|s| s == "tc2"));
        assert!(n.iter().any(|s| s == "v6.8"));
        assert!(n.len() > 20);
    }
}
