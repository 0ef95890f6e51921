//! String names for the things that carry a percentile ([`super::Pct`]): a table's
//! [`crate::experiment::Quantity`] and schbench's report
//! ([`crate::workload::schbench::SchbenchMetric`]) serialize as one string each, `"wakeup-p99"`,
//! `"sched-p99.9"`, `"rps"`, the names the CLI's `--report` and the page's report menu take, so a
//! scenario file, a results file and a share link spell them alike.
//!
//! Reading also takes the older externally tagged objects (`{"wakeup-latency": "p99"}`), so
//! scenario JSON written before the string names still parses, and `p999` for `p99.9` (the CLI's
//! first spelling).

use serde::de::{self, DeserializeOwned, MapAccess, Visitor};
use serde::{Deserializer, Serializer};
use std::fmt;
use std::marker::PhantomData;

/// A type with one name per value ([`PctNamed::name`]), percentile-carrying values named
/// `<prefix>-<Pct::label>`.
pub trait PctNamed: Sized + Copy + 'static {
    /// Every value, in the order error messages list them.
    const ALL: &'static [Self];
    /// What a value is, for error messages ("report", "quantity").
    const WHAT: &'static str;
    /// The value's name.
    fn name(self) -> &'static str;
    /// The older object form (`{"variant": "p99"}`), converted.
    type Legacy: DeserializeOwned + Into<Self>;

    /// The value of a name (`p999` is taken for `p99.9`), `None` for any other text.
    fn from_name(name: &str) -> Option<Self> {
        if let Some(head) = name.strip_suffix("p999") {
            return Self::ALL
                .iter()
                .copied()
                .find(|v| v.name().strip_suffix("p99.9") == Some(head));
        }
        Self::ALL.iter().copied().find(|v| v.name() == name)
    }

    /// Every name, comma-separated.
    fn names() -> String {
        Self::ALL
            .iter()
            .map(|v| v.name())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The name of `p` after `prefix`: `prefix-p99`. For the `name()` tables.
macro_rules! pct_name {
    ($p:expr, $prefix:literal) => {
        match $p {
            $crate::latency::Pct::P50 => concat!($prefix, "-p50"),
            $crate::latency::Pct::P90 => concat!($prefix, "-p90"),
            $crate::latency::Pct::P99 => concat!($prefix, "-p99"),
            $crate::latency::Pct::P999 => concat!($prefix, "-p99.9"),
        }
    };
}
pub(crate) use pct_name;

/// Serializes a value as its name.
pub fn serialize<T: PctNamed, S: Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(v.name())
}

/// Reads a name, or the older object form.
pub fn deserialize<'de, T: PctNamed, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
    struct V<T>(PhantomData<T>);
    impl<'de, T: PctNamed> Visitor<'de> for V<T> {
        type Value = T;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            write!(f, "a {} name: one of {}", T::WHAT, T::names())
        }
        fn visit_str<E: de::Error>(self, s: &str) -> Result<T, E> {
            T::from_name(s).ok_or_else(|| {
                E::custom(format!(
                    "unknown {} `{s}`, expected one of {}",
                    T::WHAT,
                    T::names()
                ))
            })
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
            let legacy: T::Legacy =
                serde::Deserialize::deserialize(de::value::MapAccessDeserializer::new(map))?;
            Ok(legacy.into())
        }
    }
    d.deserialize_any(V(PhantomData))
}

#[cfg(test)]
mod tests {
    use crate::experiment::Quantity;
    use crate::latency::Pct;

    #[test]
    fn quantities_are_their_names_and_read_back() {
        let mut seen = std::collections::BTreeSet::new();
        for &q in Quantity::ALL {
            let v = serde_json::to_value(q).unwrap();
            assert_eq!(v, q.name());
            assert!(seen.insert(q.name()), "two quantities named {}", q.name());
            assert_eq!(serde_json::from_value::<Quantity>(v).unwrap(), q);
        }
        assert_eq!(Quantity::SchedLatency(Pct::P999).name(), "sched-p99.9");
        assert_eq!(
            Quantity::from_name("sched-p999"),
            Some(Quantity::SchedLatency(Pct::P999))
        );
        assert_eq!(
            Quantity::from_name("perf-per-watt"),
            Some(Quantity::PerfPerWatt)
        );
        assert_eq!(Quantity::from_name("sched"), None);
        // The object form written before the names.
        let old: Quantity = serde_json::from_str(r#"{"runqueue-wait": "p50"}"#).unwrap();
        assert_eq!(old, Quantity::RunqueueWait(Pct::P50));
        let e = serde_json::from_str::<Quantity>(r#""joules""#).unwrap_err();
        assert!(e.to_string().contains("unknown report `joules`"), "{e}");
    }
}
