//! Bad input comes back as an error a user can act on, never as a panic or a hang.

use schedlab_core::experiment::{Plan, Scenario};
use schedlab_core::rng::Rng;
use schedlab_core::scenarios::builtin;
use schedlab_core::Error;
use serde_json::Value;

fn e1_json() -> String {
    builtin("hikey960-asym-packing").unwrap().to_json()
}

fn plan_err(text: &str) -> String {
    match Scenario::from_json(text).and_then(|s| Plan::new(&s)) {
        Ok(_) => panic!("accepted: {text}"),
        Err(e) => e.to_string(),
    }
}

/// `Scenario::from_json` reads `"version"` before the rest (without a `serde_json::Value`): only
/// broken JSON is "not valid JSON", any other document without version 1 at its top is named by
/// its version, and a scenario's own errors name their line.
#[test]
fn the_version_is_read_first_from_any_json_document() {
    let version_err = |text: &str| {
        let e = Scenario::from_json(text).unwrap_err().to_string();
        assert!(e.contains("\"version\" must be 1"), "{text}: {e}");
    };
    for text in [
        "[]",
        "5",
        "null",
        "\"x\"",
        "{}",
        "{\"version\": \"1\"}",
        "{\"version\": 1.0}",
        "{\"version\": -1}",
        "{\"version\": [1]}",
        "{\"version\": {\"v\": 1}}",
        "{\"version\": 1, \"version\": 2}",
        "{\"inner\": {\"version\": 1}}",
    ] {
        version_err(text);
    }
    for broken in [
        "{",
        "{\"version\": 1",
        "{\"version\": 1} x",
        "",
        "{\"a\": [1,]}",
    ] {
        let e = Scenario::from_json(broken).unwrap_err().to_string();
        assert!(e.contains("not valid JSON"), "{broken}: {e}");
    }
    // Version 1 and nothing else: the scenario's own error, with its place.
    let e = Scenario::from_json("{\"version\": 1}")
        .unwrap_err()
        .to_string();
    assert!(e.contains("missing field") && e.contains("line 1"), "{e}");
    // A key given twice is an error of its own (the file is read once, not through a map).
    let e = Scenario::from_json(&e1_json().replace("\"seed\": 1", "\"seed\": 1, \"seed\": 2"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("duplicate field `seed`"), "{e}");
    assert_eq!(
        Scenario::from_json(&e1_json()).unwrap(),
        builtin("hikey960-asym-packing").unwrap()
    );
}

#[test]
fn scenario_errors_name_the_problem() {
    assert!(plan_err("{").contains("not valid JSON"));
    assert!(plan_err(&e1_json().replace("\"version\": 1", "\"version\": 9")).contains("version"));
    assert!(plan_err(&e1_json().replace("hikey960-dynamiq", "hikey961"))
        .contains("unknown machine preset 'hikey961'"));
    assert!(plan_err(&e1_json().replace("\"runs\": 32", "\"runs\": 0")).contains("runs must be"));
    assert!(
        plan_err(&e1_json().replace("\"seed\": 1", "\"seed\": 1, \"sede\": 2")).contains("sede")
    );
    assert!(
        plan_err(&e1_json().replace("\"dynamiq-asym-packing\"\n", "\"no-such-patch\"\n"))
            .contains("no-such-patch")
    );
    assert!(plan_err(&e1_json().replace("\"v4.16\"", "\"v2.6\"")).contains("baseline"));
    let mut v: Value = serde_json::from_str(&e1_json()).unwrap();
    v["sweep"]["values"] = serde_json::json!([1, 0]);
    assert!(plan_err(&v.to_string()).contains("threads must be 1 to"));
    v["sweep"]["param"] = serde_json::json!("clients");
    assert!(plan_err(&v.to_string()).contains("cannot sweep 'clients'"));
}

#[test]
fn a_run_that_cannot_finish_in_time_is_a_limit_error() {
    let mut s = builtin("hikey960-asym-packing").unwrap();
    s.limits.max_sim_seconds = 1;
    let plan = Plan::new(&s).unwrap();
    assert!(matches!(plan.run(0), Err(Error::Limit(m)) if m.contains("1 simulated seconds")));
    s.limits.max_sim_seconds = 600;
    s.limits.max_events = 1000;
    let plan = Plan::new(&s).unwrap();
    assert!(matches!(plan.run(0), Err(Error::Limit(m)) if m.contains("events")));
    assert!(plan.run(plan.len()).is_err());
}

/// Replace one random leaf of the scenario with a hostile value.
fn mutate(v: &mut Value, rng: &mut Rng) {
    let hostile = |rng: &mut Rng| match rng.below(7) {
        0 => Value::from(0),
        1 => Value::from(u64::MAX),
        2 => Value::from(-1),
        3 => Value::from("x"),
        4 => Value::Null,
        5 => Value::from(1e300),
        _ => Value::from(rng.below(100_000)),
    };
    match v {
        Value::Object(m) if !m.is_empty() => {
            let i = rng.below(m.len() as u64) as usize;
            let key = m.keys().nth(i).unwrap().clone();
            mutate(m.get_mut(&key).unwrap(), rng);
        }
        Value::Array(a) if !a.is_empty() => {
            let i = rng.below(a.len() as u64) as usize;
            mutate(&mut a[i], rng);
        }
        leaf => *leaf = hostile(rng),
    }
}

#[test]
fn hostile_scenarios_never_panic() {
    let preset: Value = serde_json::from_str(&e1_json()).unwrap();
    let mut custom = preset.clone();
    let spec = schedlab_core::topology::presets::preset("hikey960-dynamiq").unwrap();
    custom["machine"] = serde_json::json!({ "custom": spec });
    let mut rng = Rng::new(2026);
    for i in 0..300 {
        let mut v = if i % 2 == 0 {
            preset.clone()
        } else {
            custom.clone()
        };
        for _ in 0..1 + rng.below(3) {
            mutate(&mut v, &mut rng);
        }
        // Bound the work a mutated scenario may ask for, as the page does.
        if let Some(l) = v.get_mut("limits").and_then(|l| l.as_object_mut()) {
            l.insert("max_events".into(), Value::from(20_000));
        }
        let Ok(s) = Scenario::from_json(&v.to_string()) else {
            continue;
        };
        let Ok(plan) = Plan::new(&s) else { continue };
        let _ = plan.run(0);
        let _ = plan.run(plan.len() - 1);
    }
}
