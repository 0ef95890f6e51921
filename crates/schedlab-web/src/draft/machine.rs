//! The machine as a form: every field of the core's [`MachineSpec`] as the text a user types, and
//! its way back to a spec and a validated [`Topology`].
//!
//! Lists are typed as comma-separated numbers; SMT sharing groups as groups separated by `|`
//! (`0,2,4,6 | 1,3,5,7`, POWER9's small cores); turbo bins as `cores:MHz` pairs (`2:3900, 4:3700`).
//! A field that does not parse gets its own message; a spec that parses but is impossible gets the
//! core's validation message ([`Topology::build`]), placed beside the field it names.

use schedlab_core::cpufreq::CpufreqDriverSpec;
use schedlab_core::experiment::MachineRef;
use schedlab_core::hwp::HwpSpec;
use schedlab_core::power::PowerSpec;
use schedlab_core::topology::{
    presets, ClusterSpec, FreqDomainSpan, LlcSpan, MachineSpec, Topology, TurboBin,
};
use serde::{Deserialize, Serialize};

use super::parse::{list, number, Problems};

/// Fields of a cluster, in form order: `(key, hint)`. The key is the spec's field name and the
/// label, so the core's messages (which name fields) find their field, and a user reading a
/// scenario file recognises it.
pub const CLUSTER_FIELDS: &[(&str, &str)] = &[
    ("name", ""),
    ("core_type", "micro-architecture, e.g. Cortex-A53"),
    ("package", "socket, numbered from 0"),
    ("cores", ""),
    ("threads_per_core", "SMT threads, 1 to 8"),
    ("capacity_orig", "1 to 1024; the biggest CPU is 1024"),
    (
        "opps_mhz",
        "MHz, comma-separated; the highest is the reference",
    ),
    ("turbo_bins", "active cores:MHz, e.g. 2:3900, 4:3700"),
    ("cpu_ids", "core-major; empty: the next numbers"),
    (
        "smt_sharing_groups",
        "threads sharing a core's resources, e.g. 0,2,4,6 | 1,3,5,7; empty: all",
    ),
    (
        "smt_throughput",
        "per busy thread in 1/1024, by busy threads; empty: no contention",
    ),
];

/// The power model's fields (all integers; see `schedlab_core::power::PowerSpec`).
pub const POWER_FIELDS: &[&str] = &["ceff_pf", "v_min_mv", "v_max_mv", "static_uw", "idle_uw"];

/// One cluster as typed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClusterForm {
    /// Text of each [`CLUSTER_FIELDS`] entry, in that order.
    pub text: Vec<String>,
    pub freq_domain: FreqDomainSpan,
    /// Carried from the preset, not edited: the cpufreq policy span and its boot `policy->cur`.
    #[serde(default)]
    pub cpufreq_policy: Option<FreqDomainSpan>,
    #[serde(default)]
    pub policy_starts_at_min: bool,
    /// Text of each [`POWER_FIELDS`] entry, in that order.
    pub power: Vec<String>,
    /// The HWP model's parameters, carried through as loaded (not a form field).
    #[serde(default)]
    pub hwp: HwpSpec,
    /// The power model's parts the form does not edit (OPP voltages, idle states, uncore), kept
    /// as the spec had them.
    #[serde(default)]
    pub power_rest: PowerSpec,
    /// The cpufreq driver's figures, carried through as loaded (not a form field).
    #[serde(default)]
    pub cpufreq_driver: CpufreqDriverSpec,
    /// The ITMT priority, carried through as loaded (not a form field).
    #[serde(default)]
    pub itmt_prio: Option<u32>,
    /// The HWP highest performance, carried through as loaded (not a form field).
    #[serde(default)]
    pub hwp_highest_perf: Option<u32>,
}

/// The machine as typed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MachineForm {
    /// The preset the form was loaded from: while the spec still equals it, the scenario names
    /// the preset instead of carrying the spec (shorter links, and the built-in stays as it is).
    pub origin_preset: Option<String>,
    pub name: String,
    pub description: String,
    pub llc: LlcSpan,
    pub clusters: Vec<ClusterForm>,
}

fn join<T: ToString>(xs: &[T]) -> String {
    xs.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

impl ClusterForm {
    pub fn from_spec(c: &ClusterSpec) -> ClusterForm {
        let text = CLUSTER_FIELDS
            .iter()
            .map(|(key, _)| match *key {
                "name" => c.name.clone(),
                "core_type" => c.core_type.clone(),
                "package" => c.package.to_string(),
                "cores" => c.cores.to_string(),
                "threads_per_core" => c.threads_per_core.to_string(),
                "capacity_orig" => c.capacity_orig.to_string(),
                "opps_mhz" => join(&c.opps_mhz),
                "turbo_bins" => c
                    .turbo_bins
                    .iter()
                    .map(|b| format!("{}:{}", b.max_active_cores, b.mhz))
                    .collect::<Vec<_>>()
                    .join(", "),
                "cpu_ids" => c.cpu_ids.as_deref().map(join).unwrap_or_default(),
                "smt_sharing_groups" => c
                    .smt_sharing_groups
                    .as_ref()
                    .map(|gs| gs.iter().map(|g| join(g)).collect::<Vec<_>>().join(" | "))
                    .unwrap_or_default(),
                "smt_throughput" => join(&c.smt_throughput),
                _ => String::new(),
            })
            .collect();
        let p = &c.power;
        ClusterForm {
            text,
            freq_domain: c.freq_domain,
            cpufreq_policy: c.cpufreq_policy,
            policy_starts_at_min: c.policy_starts_at_min,
            power: [p.ceff_pf, p.v_min_mv, p.v_max_mv, p.static_uw, p.idle_uw]
                .iter()
                .map(u64::to_string)
                .collect(),
            hwp: c.hwp,
            power_rest: p.clone(),
            cpufreq_driver: c.cpufreq_driver.clone(),
            itmt_prio: c.itmt_prio,
            hwp_highest_perf: c.hwp_highest_perf,
        }
    }

    pub fn get(&self, key: &str) -> &str {
        CLUSTER_FIELDS
            .iter()
            .position(|(k, _)| *k == key)
            .map_or("", |i| &self.text[i])
    }

    /// Sets a field by key: a [`CLUSTER_FIELDS`] key or `power.<POWER_FIELDS key>`.
    pub fn set(&mut self, key: &str, value: String) {
        if let Some(p) = key.strip_prefix("power.") {
            if let Some(i) = POWER_FIELDS.iter().position(|k| *k == p) {
                self.power[i] = value;
            }
        } else if let Some(i) = CLUSTER_FIELDS.iter().position(|(k, _)| *k == key) {
            self.text[i] = value;
        }
    }

    /// The spec, or `None` with a message per field that does not parse.
    fn spec(&self, index: usize, problems: &mut Problems) -> Option<ClusterSpec> {
        let id = |key: &str| cluster_field_id(index, key);
        let before = problems.len();
        let mut num = |key: &str| number::<u32>(self.get(key), &id(key), problems).unwrap_or(0);
        let package = num("package");
        let cores = num("cores");
        let threads_per_core = num("threads_per_core");
        let capacity_orig = num("capacity_orig");
        let opps_mhz = list::<u32>(self.get("opps_mhz"), &id("opps_mhz"), problems);
        let turbo_bins = turbo_bins(self.get("turbo_bins"), &id("turbo_bins"), problems);
        let cpu_ids = optional_list::<usize>(self.get("cpu_ids"), &id("cpu_ids"), problems);
        let smt_sharing_groups = sharing_groups(
            self.get("smt_sharing_groups"),
            &id("smt_sharing_groups"),
            problems,
        );
        let smt_throughput =
            list::<u32>(self.get("smt_throughput"), &id("smt_throughput"), problems);
        let power: Vec<u64> = POWER_FIELDS
            .iter()
            .zip(&self.power)
            .map(|(k, t)| {
                number::<u64>(t, &id(&format!("power.{k}")), problems).unwrap_or_default()
            })
            .collect();
        if self.get("name").trim().is_empty() {
            problems.add(id("name"), "a cluster needs a name");
        }
        if problems.len() > before {
            return None;
        }
        Some(ClusterSpec {
            name: self.get("name").trim().to_string(),
            core_type: self.get("core_type").trim().to_string(),
            package,
            cores,
            threads_per_core,
            cpu_ids,
            smt_sharing_groups,
            smt_throughput: smt_throughput.unwrap_or_default(),
            capacity_orig,
            opps_mhz: opps_mhz.unwrap_or_default(),
            turbo_bins: turbo_bins.unwrap_or_default(),
            freq_domain: self.freq_domain,
            cpufreq_policy: self.cpufreq_policy,
            policy_starts_at_min: self.policy_starts_at_min,
            power: PowerSpec {
                ceff_pf: power[0],
                v_min_mv: power[1],
                v_max_mv: power[2],
                static_uw: power[3],
                idle_uw: power[4],
                ..self.power_rest.clone()
            },
            hwp: self.hwp,
            cpufreq_driver: self.cpufreq_driver.clone(),
            itmt_prio: self.itmt_prio,
            hwp_highest_perf: self.hwp_highest_perf,
        })
    }
}

/// The DOM id (and problem key) of a cluster's field.
pub fn cluster_field_id(index: usize, key: &str) -> String {
    format!("cluster-{index}-{}", key.replace('.', "-"))
}

/// Problem key of messages about the machine as a whole (CPU numbering, packages, capacities).
pub const MACHINE_ID: &str = "machine";
/// DOM id of the machine's name field.
pub const MACHINE_NAME_ID: &str = "machine-name";

fn optional_list<T: std::str::FromStr>(
    text: &str,
    id: &str,
    problems: &mut Problems,
) -> Option<Vec<T>> {
    if text.trim().is_empty() {
        None
    } else {
        list(text, id, problems)
    }
}

/// `2:3900, 4:3700` -> turbo bins.
fn turbo_bins(text: &str, id: &str, problems: &mut Problems) -> Option<Vec<TurboBin>> {
    let mut bins = Vec::new();
    for item in text
        .split([',', ';'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        let parsed = item.split_once(':').and_then(|(c, m)| {
            Some(TurboBin {
                max_active_cores: c.trim().parse().ok()?,
                mhz: m.trim().parse().ok()?,
            })
        });
        match parsed {
            Some(b) => bins.push(b),
            None => {
                problems.add(
                    id,
                    format!("'{item}' is not active cores:MHz (for example 4:3700)"),
                );
                return None;
            }
        }
    }
    Some(bins)
}

/// `0,2,4,6 | 1,3,5,7` -> groups; empty -> `None` (one group per core).
fn sharing_groups(text: &str, id: &str, problems: &mut Problems) -> Option<Vec<Vec<u32>>> {
    if text.trim().is_empty() {
        return None;
    }
    let mut groups = Vec::new();
    for g in text.split('|') {
        groups.push(list::<u32>(g, id, problems)?);
    }
    Some(groups)
}

impl MachineForm {
    pub fn from_spec(spec: &MachineSpec, origin_preset: Option<&str>) -> MachineForm {
        MachineForm {
            origin_preset: origin_preset.map(str::to_string),
            name: spec.name.clone(),
            description: spec.description.clone(),
            llc: spec.llc,
            clusters: spec.clusters.iter().map(ClusterForm::from_spec).collect(),
        }
    }

    /// A preset's form before its spec is known: its name, and no clusters yet. The page never
    /// looks a preset up (the JSON presets alone would burst its wasm budget): the check worker
    /// fills the form in ([`MachineForm::resolve`]) and the draft takes the filled form with the
    /// check's answer. A loaded form always has a cluster (the last one cannot be removed).
    pub fn preset(name: &str) -> MachineForm {
        let summary = presets::NAMES
            .iter()
            .position(|n| *n == name)
            .and_then(|i| presets::SUMMARIES.get(i));
        MachineForm {
            origin_preset: Some(name.to_string()),
            name: name.to_string(),
            description: summary.map(|s| s.to_string()).unwrap_or_default(),
            llc: LlcSpan::Cluster,
            clusters: Vec::new(),
        }
    }

    /// The preset this form still has to be filled in from, if it is one not yet loaded.
    pub fn unloaded_preset(&self) -> Option<&str> {
        self.origin_preset
            .as_deref()
            .filter(|_| self.clusters.is_empty())
    }

    /// The form of a scenario's machine: a preset's is filled in by the check worker.
    pub fn from_ref(machine: &MachineRef) -> MachineForm {
        match machine {
            MachineRef::Preset(name) => MachineForm::preset(name),
            MachineRef::Custom(spec) => MachineForm::from_spec(spec, None),
        }
    }

    /// In the check worker: the spec of the preset this form has to be filled in from
    /// (`Ok(None)` when the form is loaded already), or the message for an unknown preset. The
    /// worker sends the spec, not the form: the page already reads specs (a scenario's custom
    /// machine) and fills the form itself ([`MachineForm::from_spec`]).
    pub fn resolve(&self) -> Result<Option<MachineSpec>, String> {
        let Some(name) = self.unloaded_preset() else {
            return Ok(None);
        };
        presets::preset(name).map(Some).map_err(|e| e.to_string())
    }

    /// The preset whose spec the form holds, if it still holds one unchanged.
    pub fn current_preset(&self, spec: &MachineSpec) -> Option<&str> {
        let name = self.origin_preset.as_deref()?;
        (presets::preset(name).ok().as_ref() == Some(spec)).then_some(name)
    }

    /// Adds a cluster like the last one (one core, consecutive CPU numbers, its own name); a
    /// preset not loaded yet has none to copy, and waits for its load.
    pub fn add_cluster(&mut self) {
        let Some(mut c) = self.clusters.last().cloned() else {
            return;
        };
        c.set("name", format!("C{}", self.clusters.len()));
        c.set("cpu_ids", String::new());
        self.clusters.push(c);
    }

    /// The scenario's machine and its topology, or `None` with the problems found.
    pub fn build(&self, problems: &mut Problems) -> Option<(MachineRef, Topology)> {
        let before = problems.len();
        if self.name.trim().is_empty() {
            problems.add(MACHINE_NAME_ID, "the machine needs a name");
        }
        let clusters: Vec<Option<ClusterSpec>> = self
            .clusters
            .iter()
            .enumerate()
            .map(|(i, c)| c.spec(i, problems))
            .collect();
        if problems.len() > before {
            return None;
        }
        let spec = MachineSpec {
            name: self.name.trim().to_string(),
            description: self.description.clone(),
            llc: self.llc,
            clusters: clusters.into_iter().flatten().collect(),
        };
        match Topology::build(&spec) {
            Ok(topo) => {
                let r = match self.current_preset(&spec) {
                    Some(name) => MachineRef::Preset(name.to_string()),
                    None => MachineRef::Custom(spec),
                };
                Some((r, topo))
            }
            Err(e) => {
                problems.add(topology_error_field(&e.to_string(), &spec), e.to_string());
                None
            }
        }
    }
}

/// Where a [`Topology::build`] message belongs: the field of the cluster it names, or the machine.
/// The core's messages say `cluster '<name>'` and name the field (`capacity_orig`, `OPP`,
/// `turbo bin`...), so this only reads them; a message it cannot place goes to the machine.
pub fn topology_error_field(message: &str, spec: &MachineSpec) -> String {
    let Some(index) = spec
        .clusters
        .iter()
        .position(|c| message.contains(&format!("cluster '{}'", c.name)))
    else {
        return MACHINE_ID.to_string();
    };
    const KEYWORDS: &[(&str, &str)] = &[
        ("cpu_ids", "cpu_ids"),
        ("CPU id", "cpu_ids"),
        ("smt_sharing_groups", "smt_sharing_groups"),
        ("smt_throughput", "smt_throughput"),
        ("threads_per_core", "threads_per_core"),
        ("capacity_orig", "capacity_orig"),
        ("turbo bin", "turbo_bins"),
        ("OPP", "opps_mhz"),
        ("no cores", "cores"),
        ("power", "power.ceff_pf"),
        ("static_uw", "power.static_uw"),
    ];
    let key = KEYWORDS
        .iter()
        .find(|(word, _)| message.contains(word))
        .map_or("name", |(_, key)| key);
    cluster_field_id(index, key)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(preset: &str) -> MachineForm {
        let unloaded = MachineForm::from_ref(&MachineRef::Preset(preset.into()));
        assert_eq!(unloaded.unloaded_preset(), Some(preset));
        let spec = unloaded
            .resolve()
            .unwrap()
            .expect("a preset not loaded yet");
        MachineForm::from_spec(&spec, Some(preset))
    }

    #[test]
    fn a_preset_is_filled_in_by_the_worker_and_an_unknown_one_says_so() {
        let f = form("alderlake-12900k");
        assert_eq!(f.unloaded_preset(), None);
        assert_eq!(f.resolve(), Ok(None), "a loaded form stays as it is");
        assert_eq!(
            f.clusters.len(),
            presets::preset("alderlake-12900k").unwrap().clusters.len()
        );
        let mut empty = MachineForm::preset("alderlake-12900k");
        empty.add_cluster();
        assert!(empty.clusters.is_empty(), "nothing to copy before the load");
        let e = MachineForm::preset("pdp-11").resolve().unwrap_err();
        assert!(e.contains("pdp-11"), "{e}");
    }

    #[test]
    fn every_preset_round_trips_through_the_form_as_itself() {
        for name in presets::NAMES {
            let mut p = Problems::default();
            let (r, topo) = form(name).build(&mut p).unwrap();
            assert!(p.is_empty(), "{name}: {p:?}");
            assert_eq!(r, MachineRef::Preset(name.to_string()));
            assert_eq!(topo.spec, presets::preset(name).unwrap());
            // As a custom machine, the spec comes back equal field for field.
            let spec = presets::preset(name).unwrap();
            let custom = MachineForm::from_ref(&MachineRef::Custom(spec.clone()));
            let (r, _) = custom.build(&mut Problems::default()).unwrap();
            assert_eq!(r, MachineRef::Custom(spec), "{name}");
        }
    }

    #[test]
    fn an_edit_makes_a_custom_machine_and_undoing_it_gives_the_preset_back() {
        let mut f = form("hikey960");
        f.clusters[0].set("capacity_orig", "500".into());
        let (r, topo) = f.build(&mut Problems::default()).unwrap();
        assert!(matches!(r, MachineRef::Custom(_)));
        assert_eq!(topo.cpus[0].capacity_orig, 500);
        f.clusters[0].set("capacity_orig", "462".into());
        let (r, _) = f.build(&mut Problems::default()).unwrap();
        assert_eq!(r, MachineRef::Preset("hikey960".into()));
    }

    #[test]
    fn text_that_does_not_parse_is_reported_at_its_field() {
        let mut f = form("cascadelake-8260l");
        f.clusters[1].set("opps_mhz", "1000, fast".into());
        f.clusters[0].set("turbo_bins", "2-3900".into());
        f.clusters[0].set("power.idle_uw", "-1".into());
        let mut p = Problems::default();
        assert!(f.build(&mut p).is_none());
        assert!(p.get("cluster-1-opps_mhz").unwrap().contains("fast"));
        assert!(p.get("cluster-0-turbo_bins").unwrap().contains("4:3700"));
        assert!(p.get("cluster-0-power-idle_uw").is_some());
    }

    #[test]
    fn the_cores_validation_message_lands_beside_the_field_it_names() {
        let cases = [
            ("capacity_orig", "2000", "capacity_orig"),
            ("opps_mhz", "", "opps_mhz"),
            ("cores", "0", "cores"),
            ("threads_per_core", "9", "threads_per_core"),
            ("cpu_ids", "0, 1", "cpu_ids"),
            ("turbo_bins", "2:100", "turbo_bins"),
        ];
        for (key, value, field) in cases {
            let mut f = form("hikey960");
            f.clusters[1].set(key, value.into());
            let mut p = Problems::default();
            assert!(f.build(&mut p).is_none(), "{key}={value} was accepted");
            let at = cluster_field_id(1, field);
            assert!(
                p.get(&at).is_some(),
                "{key}={value}: {p:?} has nothing at {at}"
            );
        }
        // POWER9 small cores that list a thread twice.
        let mut f = form("power9-smt8");
        f.clusters[0].set("smt_sharing_groups", "0,1 | 1,2".into());
        let mut p = Problems::default();
        assert!(f.build(&mut p).is_none());
        assert!(p
            .get("cluster-0-smt_sharing_groups")
            .unwrap()
            .contains("exactly once"));
        // No CPU of capacity 1024: a machine-wide message.
        let mut f = form("hikey960");
        f.clusters[1].set("capacity_orig", "1000".into());
        let mut p = Problems::default();
        assert!(f.build(&mut p).is_none());
        assert!(p.get(MACHINE_ID).unwrap().contains("1024"));
    }

    #[test]
    fn clusters_can_be_added_and_smt_groups_edited() {
        let mut f = form("power9-smt8");
        f.clusters[0].set("smt_sharing_groups", String::new());
        let (_, topo) = f.build(&mut Problems::default()).unwrap();
        assert_eq!(topo.smt_groups[0].cpus.to_string(), "0-7");
        let mut f = form("hikey960");
        f.add_cluster();
        let (_, topo) = f.build(&mut Problems::default()).unwrap();
        assert_eq!(topo.nr_cpus(), 12);
        assert_eq!(topo.spec.clusters[2].name, "C2");
    }
}
