//! The variants (the table's columns) as a form: each a name, a baseline kernel, patches applied in
//! order, a governor, and optional configuration changes (a JSON merge patch over the kernel
//! configuration, as the scenario file has them).

use schedlab_core::experiment::VariantSpec;
use schedlab_core::kernel::{build_config, Governor, KernelConfig};
use serde::{Deserialize, Serialize};

use super::parse::Problems;

/// Most variants a scenario may have in the page (each is a column of the table).
pub const MAX_VARIANTS: usize = 8;

/// Every governor, as the scenario file names them.
pub const GOVERNORS: &[(Governor, &str)] = &[
    (Governor::Performance, "performance"),
    (Governor::Powersave, "powersave"),
    (Governor::Schedutil, "schedutil"),
    (Governor::Hwp, "hwp"),
];

pub fn governor_name(g: Governor) -> &'static str {
    GOVERNORS
        .iter()
        .find(|(x, _)| *x == g)
        .map_or("schedutil", |(_, n)| n)
}

pub fn governor_by_name(name: &str) -> Option<Governor> {
    GOVERNORS.iter().find(|(_, n)| *n == name).map(|(g, _)| *g)
}

/// DOM id (and problem key) of a variant's field (`name`, `baseline`, `patches`, `config`...).
pub fn field_id(index: usize, key: &str) -> String {
    format!("variant-{index}-{key}")
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VariantForm {
    pub name: String,
    pub baseline: String,
    /// Applied in this order.
    pub patches: Vec<String>,
    pub governor: Governor,
    /// The merge patch as typed; empty for none.
    pub config: String,
}

impl VariantForm {
    pub fn from_spec(v: &VariantSpec) -> VariantForm {
        VariantForm {
            name: v.name.clone(),
            baseline: v.baseline.clone(),
            patches: v.patches.clone(),
            governor: v.governor,
            config: v
                .config
                .as_ref()
                .map(|c| serde_json::to_string_pretty(c).unwrap_or_default())
                .unwrap_or_default(),
        }
    }

    /// Turns a patch on (appended, so it applies last) or off.
    pub fn set_patch(&mut self, patch: &str, on: bool) {
        self.patches.retain(|p| p != patch);
        if on {
            self.patches.push(patch.to_string());
        }
    }

    /// The spec and its kernel configuration, or `None` with the problems found.
    pub fn build(
        &self,
        index: usize,
        problems: &mut Problems,
    ) -> Option<(VariantSpec, KernelConfig)> {
        let id = |key: &str| field_id(index, key);
        let name = self.name.trim();
        if name.is_empty() {
            problems.add(id("name"), "a variant needs a name");
        }
        let config = if self.config.trim().is_empty() {
            None
        } else {
            match serde_json::from_str::<serde_json::Value>(&self.config) {
                Ok(v) if v.is_object() => Some(v),
                Ok(_) => {
                    problems.add(
                        id("config"),
                        "write a JSON object, e.g. {\"hz\": 1000}, or leave it empty",
                    );
                    return None;
                }
                Err(e) => {
                    problems.add(id("config"), format!("not valid JSON: {e}"));
                    return None;
                }
            }
        };
        match build_config(
            &self.baseline,
            &self.patches,
            config.as_ref(),
            self.governor,
        ) {
            Ok(kc) if !name.is_empty() => Some((
                VariantSpec {
                    name: name.to_string(),
                    baseline: self.baseline.clone(),
                    patches: self.patches.clone(),
                    governor: self.governor,
                    config,
                },
                kc,
            )),
            Ok(_) => None,
            Err(e) => {
                let msg = e.to_string();
                let key = if msg.contains("variant config") || msg.contains("validate") {
                    "config"
                } else if msg.contains("patch") {
                    "patches"
                } else if msg.contains("baseline") {
                    "baseline"
                } else {
                    "config"
                };
                problems.add(id(key), msg);
                None
            }
        }
    }
}

/// A name no variant in `taken` has: `base`, else `base-2`, `base-3`...
pub fn unique_name(base: &str, taken: &[&str]) -> String {
    if !taken.contains(&base) {
        return base.to_string();
    }
    (2..)
        .map(|n| format!("{base}-{n}"))
        .find(|n| !taken.contains(&n.as_str()))
        .expect("an unused name exists")
}

/// Builds every variant; names must be unique (every column sharing a name is marked, so the
/// one being typed in shows the message). Returns one entry per variant.
pub fn build_all(
    variants: &[VariantForm],
    problems: &mut Problems,
) -> Vec<Option<(VariantSpec, KernelConfig)>> {
    let built: Vec<_> = variants
        .iter()
        .enumerate()
        .map(|(i, v)| v.build(i, problems))
        .collect();
    for (i, v) in variants.iter().enumerate() {
        let name = v.name.trim();
        let same = variants.iter().filter(|w| w.name.trim() == name).count();
        if !name.is_empty() && same > 1 {
            problems.add(
                field_id(i, "name"),
                format!("another variant is already called '{name}'"),
            );
        }
    }
    built
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_core::scenarios;

    #[test]
    fn builtin_variants_round_trip() {
        for b in scenarios::BUILTIN {
            let s = scenarios::builtin(b.name).unwrap();
            let forms: Vec<_> = s.variants.iter().map(VariantForm::from_spec).collect();
            let mut p = Problems::default();
            let back: Vec<VariantSpec> = build_all(&forms, &mut p)
                .into_iter()
                .map(|v| v.unwrap().0)
                .collect();
            assert_eq!(back, s.variants, "{}", b.name);
            assert!(p.is_empty());
        }
    }

    #[test]
    fn problems_land_at_the_field() {
        let s = scenarios::builtin("hikey960-asym-packing").unwrap();
        let mut forms: Vec<_> = s.variants.iter().map(VariantForm::from_spec).collect();
        forms[1].name = forms[0].name.clone();
        forms[0].config = "{\"hzz\": 1}".into();
        let mut p = Problems::default();
        build_all(&forms, &mut p);
        assert!(p.get("variant-1-name").unwrap().contains("already"));
        assert!(p.get("variant-0-config").unwrap().contains("hzz"), "{p:?}");
        forms[0].config = "[1]".into();
        forms[1].name = " ".into();
        let mut p = Problems::default();
        build_all(&forms, &mut p);
        assert!(p.get("variant-0-config").unwrap().contains("JSON object"));
        assert!(p.get("variant-1-name").unwrap().contains("needs a name"));
        forms[0].config = String::new();
        forms[0].baseline = "v9.9".into();
        let mut p = Problems::default();
        build_all(&forms, &mut p);
        assert!(
            p.get("variant-0-baseline").unwrap().contains("v4.16"),
            "{p:?}"
        );
    }

    #[test]
    fn patches_apply_in_the_order_they_were_turned_on() {
        let mut v = VariantForm::from_spec(
            &scenarios::builtin("juno-use-all-littles").unwrap().variants[0],
        );
        v.patches.clear();
        v.set_patch("util-shr-bound", true);
        v.set_patch("use-all-littles-v1", true);
        assert_eq!(v.patches, ["util-shr-bound", "use-all-littles-v1"]);
        v.set_patch("util-shr-bound", false);
        assert_eq!(v.patches, ["use-all-littles-v1"]);
        assert_eq!(unique_name("a", &["a", "a-2"]), "a-3");
        assert_eq!(
            governor_by_name(governor_name(Governor::Hwp)),
            Some(Governor::Hwp)
        );
    }
}
