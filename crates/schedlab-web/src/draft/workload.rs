//! The workload as a form: a generator (`kind`) and its parameters, read from the core's own
//! serialized form of the spec, so every parameter a generator has is editable under the name the
//! scenario file uses, and a generator the core gains shows up without changes here.
//!
//! The rt-app generator has one parameter, `json`, the rt-app file itself; its import errors (which
//! name the key and the problem) go beside the text area. The sweep (which parameter varies, and
//! its values) lives here too, as it depends on the generator.

use schedlab_core::topology::Topology;
use schedlab_core::workload::WorkloadSpec;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::parse::{list, Problems};

/// Every generator, in menu order, with the smallest spec that selects it (the generator's own
/// defaults fill in the rest).
pub const KINDS: &[(&str, &str)] = &[
    ("sysbench-cpu", r#"{"kind": "sysbench-cpu", "threads": 4}"#),
    ("rt-app", ""),
    ("hackbench", r#"{"kind": "hackbench"}"#),
    ("ebizzy", r#"{"kind": "ebizzy"}"#),
    ("tbench", r#"{"kind": "tbench", "clients": 4}"#),
    ("kernbench", r#"{"kind": "kernbench", "jobs": 8}"#),
    ("gitsource", r#"{"kind": "gitsource"}"#),
    ("two-step", r#"{"kind": "two-step"}"#),
    ("schbench", r#"{"kind": "schbench", "runtime_s": 2}"#),
];

/// Parameters that are JSON objects in the spec (a workload's `speed`: per core type speeds and
/// SMT contention), edited as JSON text; empty leaves them unset.
const JSON_FIELDS: &[&str] = &["speed"];

/// Optional parameters the core leaves out of a spec while unset; the form shows them empty.
const OPTIONAL: &[(&str, &str)] = &[("ebizzy", "threads"), ("hackbench", "buffer_bytes")];

/// The rt-app file a new rt-app workload starts with: two periodic threads (2 ms of CPU0's work
/// every 10 ms) for one second; the metric counts the periods completed.
pub const RTAPP_EXAMPLE: &str = r#"{
  "global": {
    "duration": 1,
    "calibration": "CPU0",
    "default_policy": "SCHED_OTHER"
  },
  "tasks": {
    "periodic": {
      "instance": 2,
      "loop": -1,
      "phases": {
        "p": {
          "loop": 1,
          "run": 2000,
          "timer": { "ref": "unique", "period": 10000 }
        }
      }
    }
  }
}"#;

/// DOM id (and problem key) of a workload parameter.
pub fn field_id(key: &str) -> String {
    format!("workload-{key}")
}
/// Problem key of messages about the workload as a whole.
pub const WORKLOAD_ID: &str = "workload-kind";
pub const SWEEP_PARAM_ID: &str = "sweep-param";
pub const SWEEP_VALUES_ID: &str = "sweep-values";

/// How a parameter is typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum FieldKind {
    Number,
    /// A number that may be left empty (the generator's default, e.g. ebizzy's 2 x CPUs threads).
    Optional,
    Bool,
    /// Comma-separated numbers (two-step's `pins`).
    List,
    /// Free text (rt-app's `json`).
    Text,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Field {
    pub key: String,
    pub kind: FieldKind,
    /// As typed; `true`/`false` for a [`FieldKind::Bool`].
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkloadForm {
    pub kind: String,
    pub fields: Vec<Field>,
    /// The swept parameter, empty for none.
    pub sweep_param: String,
    pub sweep_values: String,
}

/// A generator's spec with its defaults.
pub fn default_spec(kind: &str) -> Option<WorkloadSpec> {
    if kind == "rt-app" {
        return serde_json::from_value(
            serde_json::json!({"kind": "rt-app", "json": RTAPP_EXAMPLE}),
        )
        .ok();
    }
    let (_, json) = KINDS.iter().find(|(k, _)| *k == kind)?;
    serde_json::from_str(json).ok()
}

impl WorkloadForm {
    pub fn from_spec(spec: &WorkloadSpec, sweep: Option<(&str, &[u64])>) -> WorkloadForm {
        let v = serde_json::to_value(spec).expect("a workload always serializes");
        let obj = v.as_object().cloned().unwrap_or_default();
        let kind = obj
            .get("kind")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let mut fields: Vec<Field> = obj
            .iter()
            .filter(|(k, _)| *k != "kind")
            .map(|(k, v)| {
                let (fk, text) = match v {
                    Value::Bool(b) => (FieldKind::Bool, b.to_string()),
                    Value::Number(n) if OPTIONAL.contains(&(kind.as_str(), k.as_str())) => {
                        (FieldKind::Optional, n.to_string())
                    }
                    Value::Number(n) => (FieldKind::Number, n.to_string()),
                    Value::Array(a) => (
                        FieldKind::List,
                        a.iter()
                            .map(|x| x.to_string())
                            .collect::<Vec<_>>()
                            .join(", "),
                    ),
                    Value::String(s) => (FieldKind::Text, s.clone()),
                    Value::Null => (FieldKind::Optional, String::new()),
                    Value::Object(_) => (FieldKind::Text, v.to_string()),
                };
                Field {
                    key: k.clone(),
                    kind: fk,
                    text,
                }
            })
            .collect();
        for (_, key) in OPTIONAL.iter().filter(|(k, _)| *k == kind) {
            if !fields.iter().any(|f| f.key == *key) {
                fields.push(Field {
                    key: key.to_string(),
                    kind: FieldKind::Optional,
                    text: String::new(),
                });
            }
        }
        // Sweepable parameters first: they are the ones a comparison varies.
        let sweepable = spec.sweepable();
        fields.sort_by_key(|f| {
            (
                f.kind == FieldKind::Text,
                !sweepable.contains(&f.key.as_str()),
            )
        });
        let (sweep_param, sweep_values) = match sweep {
            Some((p, values)) => (
                p.to_string(),
                values
                    .iter()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join(", "),
            ),
            None => (String::new(), String::new()),
        };
        WorkloadForm {
            kind,
            fields,
            sweep_param,
            sweep_values,
        }
    }

    /// Switches the generator: its default parameters, and the sweep moved to one of its sweepable
    /// parameters (or dropped when it has none).
    pub fn set_kind(&mut self, kind: &str) {
        let Some(spec) = default_spec(kind) else {
            return;
        };
        let had_sweep = !self.sweep_param.is_empty();
        let values = std::mem::take(&mut self.sweep_values);
        *self = WorkloadForm::from_spec(&spec, None);
        if had_sweep {
            if let Some(p) = spec.sweepable().first() {
                self.sweep_param = p.to_string();
                self.sweep_values = values;
            }
        }
    }

    pub fn set(&mut self, key: &str, text: String) {
        if let Some(f) = self.fields.iter_mut().find(|f| f.key == key) {
            f.text = text;
        }
    }

    /// The parameters this generator can sweep.
    pub fn sweepable(&self) -> &'static [&'static str] {
        default_spec(&self.kind).map_or(&[], |s| s.sweepable())
    }

    /// The spec, checked against the machine when there is one (the generators' own validation,
    /// and rt-app's import); `None` with the problems found.
    pub fn build(&self, topo: Option<&Topology>, problems: &mut Problems) -> Option<WorkloadSpec> {
        let before = problems.len();
        let mut obj = Map::new();
        obj.insert("kind".into(), Value::String(self.kind.clone()));
        for f in &self.fields {
            let id = field_id(&f.key);
            let t = f.text.trim();
            let v = match f.kind {
                FieldKind::Bool => Some(Value::Bool(t == "true")),
                FieldKind::Text if JSON_FIELDS.contains(&f.key.as_str()) => {
                    if t.is_empty() {
                        None
                    } else {
                        match serde_json::from_str(t) {
                            Ok(v @ Value::Object(_)) => Some(v),
                            _ => {
                                problems.add(&id, format!("'{t}' is not a JSON object"));
                                None
                            }
                        }
                    }
                }
                FieldKind::Text => Some(Value::String(f.text.clone())),
                FieldKind::Optional if t.is_empty() => None,
                FieldKind::Number | FieldKind::Optional => match serde_json::from_str(t) {
                    Ok(n @ Value::Number(_)) => Some(n),
                    _ => {
                        problems.add(&id, format!("'{t}' is not a number"));
                        None
                    }
                },
                FieldKind::List => list::<u64>(t, &id, problems)
                    .map(|xs| Value::Array(xs.into_iter().map(Value::from).collect())),
            };
            if let Some(v) = v {
                obj.insert(f.key.clone(), v);
            }
        }
        if problems.len() > before {
            return None;
        }
        let spec: WorkloadSpec = match serde_json::from_value(Value::Object(obj)) {
            Ok(s) => s,
            Err(e) => {
                // serde names the out-of-range value, not the field: find the field by its text.
                let msg = e.to_string();
                let at = self
                    .fields
                    .iter()
                    .find(|f| {
                        !f.text.trim().is_empty() && msg.contains(&format!("`{}`", f.text.trim()))
                    })
                    .map_or(WORKLOAD_ID.to_string(), |f| field_id(&f.key));
                problems.add(at, msg);
                return None;
            }
        };
        if let Some(topo) = topo {
            if let Err(e) = spec.instantiate(topo) {
                problems.add(self.error_field(&e.to_string()), e.to_string());
                return None;
            }
        }
        Some(spec)
    }

    /// The field a generator's message is about: the parameter it names (the longest name that
    /// occurs as a word, so `threads` does not claim a message about `max_threads`), else the
    /// generator as a whole.
    pub fn error_field(&self, message: &str) -> String {
        let is_word = |key: &str| {
            message.match_indices(key).any(|(i, _)| {
                let before = message[..i].chars().next_back();
                let after = message[i + key.len()..].chars().next();
                let sep = |c: Option<char>| !c.is_some_and(|c| c.is_alphanumeric() || c == '_');
                sep(before) && sep(after)
            })
        };
        let mut keys: Vec<&Field> = self.fields.iter().collect();
        keys.sort_by_key(|f| std::cmp::Reverse(f.key.len()));
        match keys.iter().find(|f| f.kind == FieldKind::Text) {
            // rt-app: every message is about the file.
            Some(f) if message.contains("rt-app") => field_id(&f.key),
            _ => keys
                .iter()
                .find(|f| is_word(&f.key))
                .map_or(WORKLOAD_ID.to_string(), |f| field_id(&f.key)),
        }
    }

    /// The sweep: `None` when nothing is swept, `Some(Err)` after recording a problem.
    pub fn sweep(&self, problems: &mut Problems) -> Option<Result<(String, Vec<u64>), ()>> {
        if self.sweep_param.is_empty() {
            return None;
        }
        if !self.sweepable().contains(&self.sweep_param.as_str()) {
            problems.add(
                SWEEP_PARAM_ID,
                format!("{} cannot sweep '{}'", self.kind, self.sweep_param),
            );
            return Some(Err(()));
        }
        match list::<u64>(&self.sweep_values, SWEEP_VALUES_ID, problems) {
            Some(v) if v.is_empty() => {
                problems.add(SWEEP_VALUES_ID, "list at least one value");
                Some(Err(()))
            }
            Some(v) => Some(Ok((self.sweep_param.clone(), v))),
            None => Some(Err(())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_core::topology::presets;

    fn topo(name: &str) -> Topology {
        Topology::build(&presets::preset(name).unwrap()).unwrap()
    }

    #[test]
    fn every_generator_has_defaults_that_run_on_a_preset() {
        let t = topo("juno-r2");
        for (kind, _) in KINDS {
            let spec = default_spec(kind).unwrap_or_else(|| panic!("{kind}"));
            let form = WorkloadForm::from_spec(&spec, None);
            assert_eq!(form.kind, *kind);
            let mut p = Problems::default();
            let back = form.build(Some(&t), &mut p);
            assert_eq!(back.as_ref(), Some(&spec), "{kind}: {p:?}");
        }
    }

    #[test]
    fn a_workloads_speed_round_trips_as_json_text() {
        let spec: WorkloadSpec = serde_json::from_value(serde_json::json!({
            "kind": "sysbench-cpu", "threads": 1,
            "speed": {"per_mhz": {"Cortex-A53": 700}}
        }))
        .unwrap();
        let form = WorkloadForm::from_spec(&spec, None);
        let mut p = Problems::default();
        assert_eq!(
            form.build(Some(&topo("juno-r2")), &mut p),
            Some(spec),
            "{p:?}"
        );
        let mut form = form;
        form.set("speed", "".into());
        let back = form.build(None, &mut Problems::default()).unwrap();
        assert!(back.speed().is_default());
        form.set("speed", "[1]".into());
        let mut p = Problems::default();
        assert!(form.build(None, &mut p).is_none());
        assert!(p.get("workload-speed").is_some());
    }

    #[test]
    fn optional_parameters_show_empty_and_stay_unset() {
        let form = WorkloadForm::from_spec(&default_spec("ebizzy").unwrap(), None);
        let threads = form.fields.iter().find(|f| f.key == "threads").unwrap();
        assert_eq!(
            (threads.kind, threads.text.as_str()),
            (FieldKind::Optional, "")
        );
        let mut form = form;
        form.set("threads", "3".into());
        let spec = form.build(None, &mut Problems::default()).unwrap();
        assert_eq!(serde_json::to_value(&spec).unwrap()["threads"], 3);
    }

    #[test]
    fn bad_parameters_are_reported_beside_their_field() {
        let mut form = WorkloadForm::from_spec(&default_spec("sysbench-cpu").unwrap(), None);
        form.set("threads", "many".into());
        let mut p = Problems::default();
        assert!(form.build(None, &mut p).is_none());
        assert!(p.get("workload-threads").is_some());
        // Out of range for the type: serde's message, placed by the value it quotes.
        form.set("threads", "5000000000".into());
        let mut p = Problems::default();
        assert!(form.build(None, &mut p).is_none());
        assert!(p.get("workload-threads").is_some(), "{p:?}");
        // The generator's own validation names the parameter.
        let mut form = WorkloadForm::from_spec(&default_spec("tbench").unwrap(), None);
        form.set("clients", "0".into());
        let mut p = Problems::default();
        assert!(form.build(Some(&topo("tc2")), &mut p).is_none());
        assert!(
            p.get("workload-clients").unwrap().contains("clients"),
            "{p:?}"
        );
    }

    #[test]
    fn rtapp_errors_go_beside_the_file_and_name_the_key() {
        let mut form = WorkloadForm::from_spec(&default_spec("rt-app").unwrap(), None);
        form.set(
            "json",
            r#"{"tasks": {"t": {"policy": "SCHED_FIFO", "run": 100, "loop": 1}}}"#.into(),
        );
        let mut p = Problems::default();
        assert!(form.build(Some(&topo("tc2")), &mut p).is_none());
        let msg = p
            .get("workload-json")
            .expect("the message is at the text area");
        assert!(msg.contains("policy"), "{msg}");
        form.set("json", "{\"tasks\": {".into());
        let mut p = Problems::default();
        assert!(form.build(Some(&topo("tc2")), &mut p).is_none());
        assert!(p.get("workload-json").unwrap().contains("line"), "{p:?}");
    }

    #[test]
    fn the_sweep_follows_the_generator() {
        let mut form = WorkloadForm::from_spec(
            &default_spec("sysbench-cpu").unwrap(),
            Some(("threads", &[1, 2])),
        );
        assert_eq!(form.sweep_values, "1, 2");
        assert_eq!(
            form.sweep(&mut Problems::default()),
            Some(Ok(("threads".into(), vec![1, 2])))
        );
        form.set_kind("tbench");
        assert_eq!(form.sweep_param, "clients");
        form.set_kind("rt-app");
        assert_eq!(form.sweep_param, "");
        assert_eq!(form.sweep(&mut Problems::default()), None);
        let mut form =
            WorkloadForm::from_spec(&default_spec("kernbench").unwrap(), Some(("jobs", &[])));
        let mut p = Problems::default();
        assert_eq!(form.sweep(&mut p), Some(Err(())));
        assert!(p.get(SWEEP_VALUES_ID).is_some());
        form.sweep_values = "2, x".into();
        assert_eq!(form.sweep(&mut Problems::default()), Some(Err(())));
    }

    #[test]
    fn a_message_names_the_longest_matching_parameter() {
        let form = WorkloadForm::from_spec(&default_spec("sysbench-cpu").unwrap(), None);
        assert_eq!(
            form.error_field("max_requests must be ..."),
            "workload-max_requests"
        );
        assert_eq!(
            form.error_field("threads must be 1 to 1024"),
            "workload-threads"
        );
        assert_eq!(form.error_field("something else"), WORKLOAD_ID);
    }
}
