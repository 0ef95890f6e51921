//! `schedlab kernels`: the baselines, and `kernels diff A B`: the switches two kernels set
//! differently, each with the kernel function it models and its versions, so a user sees what
//! "v5.2 vs v6.8" means before running anything.

use schedlab_core::experiment::Scenario;
use schedlab_core::kernel::{self, Governor, KernelConfig};
use schedlab_core::Error;
use serde_json::json;

/// A kernel as the user names it, and the configuration it builds.
pub struct Resolved {
    pub spec: String,
    pub config: KernelConfig,
}

/// `NAME` (a baseline), `BASELINE+PATCH+...` (a baseline with patches, governor schedutil), or
/// `SCENARIO:VARIANT` (a variant of a built-in scenario or of a scenario file, as it runs there).
pub fn resolve(
    spec: &str,
    load_scenario: impl Fn(&str) -> Result<Scenario, Error>,
) -> Result<Resolved, Error> {
    let config = if let Some((scenario, variant)) = spec.rsplit_once(':') {
        let s = load_scenario(scenario)?;
        let v = s
            .variants
            .iter()
            .find(|v| v.name == variant)
            .ok_or_else(|| Error::Unknown {
                kind: "variant",
                name: variant.into(),
                known: s.variants.iter().map(|v| v.name.clone()).collect(),
            })?;
        kernel::build_config(&v.baseline, &v.patches, v.config.as_ref(), v.governor)?
    } else {
        let mut parts = spec.split('+');
        let baseline = parts.next().unwrap_or_default();
        let patches: Vec<String> = parts.map(str::to_string).collect();
        kernel::build_config(baseline, &patches, None, Governor::Schedutil)?
    };
    Ok(Resolved {
        spec: spec.to_string(),
        config,
    })
}

/// The baselines: name, the kernel each stands for, and what it is.
pub fn list(json: bool) -> String {
    if json {
        let rows: Vec<_> = kernel::BASELINES
            .iter()
            .map(|b| {
                json!({
                    "name": b.name,
                    "stands_for": b.stands_for,
                    "summary": b.summary,
                    "config": (b.config)(),
                })
            })
            .collect();
        return format!("{}\n", serde_json::to_string_pretty(&rows).unwrap());
    }
    let mut s = String::from(
        "baseline kernels (oldest first; `schedlab kernels diff A B` compares two):\n",
    );
    for b in kernel::BASELINES {
        s.push_str(&format!(
            "  {:<7} {}\n  {:<7} stands for {}\n",
            b.name, b.summary, "", b.stands_for
        ));
    }
    s
}

/// The switches `a` and `b` set differently.
pub fn diff(a: &Resolved, b: &Resolved, json: bool) -> String {
    let rows = kernel::diff(&a.config, &b.config);
    if json {
        let v = json!({
            "a": {"spec": a.spec, "label": a.config.label},
            "b": {"spec": b.spec, "label": b.config.label},
            "switches": rows,
        });
        return format!("{}\n", serde_json::to_string_pretty(&v).unwrap());
    }
    let mut s = format!(
        "A: {} ({})\nB: {} ({})\n",
        a.spec, a.config.label, b.spec, b.config.label
    );
    if rows.is_empty() {
        s.push_str("no switch differs\n");
        return s;
    }
    s.push_str(&format!(
        "{} switch{} differ{}:\n",
        rows.len(),
        if rows.len() == 1 { "" } else { "es" },
        if rows.len() == 1 { "s" } else { "" }
    ));
    for r in &rows {
        s.push_str(&format!(
            "\n  {}: A {}  B {}\n    models   {}\n    versions {}\n    meaning  {}\n",
            r.switch, r.a, r.b, r.function, r.versions, r.meaning
        ));
    }
    s
}
