//! The scenario file's format: a [`Scenario`] names its machine ([`MachineRef`]), its workload, the
//! parameter it sweeps ([`Sweep`]), its variants ([`VariantSpec`]) and the extra sections of its
//! table ([`Extras`]). [`Scenario::from_json`] reads the file's `"version"` first, so a file of
//! another version than [`SCENARIO_VERSION`] is named as such; the plan a scenario expands into is
//! in `experiment.rs`.

// Only the doc links name it.
#[cfg(doc)]
use crate::kernel::KernelConfig;

use crate::engine::Limits;
use crate::error::{Error, Result};
use crate::kernel::Governor;
use crate::topology::{presets, MachineSpec};
use crate::workload::WorkloadSpec;
use serde::{Deserialize, Serialize};

/// The scenario format version this build reads and writes.
pub const SCENARIO_VERSION: u32 = 1;

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
