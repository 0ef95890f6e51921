//! Records round-trip: shards merged give the table of one unsharded run, byte for byte; parts
//! that do not make exactly one plan are refused with a message saying why.

use super::*;
use crate::experiment::Quantity;
use crate::scenarios;

/// HiKey960's E1 cut down: two thread counts, two repetitions, both variants (8 runs), so runs
/// differ in parameter, repetition and variant.
fn small() -> Plan {
    let mut s = scenarios::builtin("hikey960-asym-packing").unwrap();
    s.runs = 2;
    s.sweep.as_mut().unwrap().values = vec![1, 2];
    Plan::new(&s).unwrap()
}

fn run_all(plan: &Plan) -> Vec<RunResult> {
    (0..plan.len()).map(|i| plan.run(i).unwrap()).collect()
}

/// Shard `i` of `n`, as `schedlab run --shard i/n --format jsonl` writes it.
fn shard_text(plan: &Plan, results: &[RunResult], index: usize, count: usize) -> String {
    let shard = Shard { index, count };
    let mine: Vec<RunResult> = shard.runs(plan.len()).map(|i| results[i].clone()).collect();
    to_jsonl(plan, Some(shard), &mine)
}

fn tables(plan: &Plan, results: &[RunResult]) -> Vec<String> {
    [Quantity::Value, Quantity::Energy, Quantity::PerfPerWatt]
        .into_iter()
        .flat_map(|q| {
            let t = plan.table_of(results, q);
            [
                serde_json::to_string_pretty(&t).unwrap(),
                t.to_text(),
                t.extras_text(),
                t.to_csv(),
            ]
        })
        .collect()
}

#[test]
fn shards_merge_to_the_unsharded_table_byte_for_byte() {
    let plan = small();
    let results = run_all(&plan);
    let parts: Vec<String> = (0..3).map(|i| shard_text(&plan, &results, i, 3)).collect();
    // Given in any order.
    let named = [
        ("p2", parts[2].as_str()),
        ("p0", parts[0].as_str()),
        ("p1", parts[1].as_str()),
    ];
    let merged = merge(&named).unwrap();
    assert_eq!(merged.results, results);
    assert_eq!(
        tables(&merged.plan, &merged.results),
        tables(&plan, &results)
    );
    // The whole plan in one file merges too, and writes back the same file.
    let whole = to_jsonl(&plan, None, &results);
    let again = merge(&[("all", whole.as_str())]).unwrap();
    assert_eq!(to_jsonl(&again.plan, None, &again.results), whole);
}

#[test]
fn shards_hand_out_runs_by_index() {
    let s = Shard::parse("1/3").unwrap();
    assert_eq!(s.runs(8).collect::<Vec<_>>(), vec![1, 4, 7]);
    assert_eq!(Shard::parse("0/1").unwrap().runs(3).count(), 3);
    for bad in ["3/3", "1", "a/2", "0/0", "-1/2"] {
        assert!(Shard::parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn the_hash_is_of_the_canonical_scenario() {
    let s = scenarios::builtin("tc2-wakeup-sysbench").unwrap();
    // The same scenario from a compact file with another key order.
    let mut v: serde_json::Value = serde_json::from_str(&s.to_json()).unwrap();
    let obj = v.as_object_mut().unwrap();
    let seed = obj.remove("seed").unwrap();
    let mut reordered = serde_json::Map::new();
    reordered.insert("seed".into(), seed);
    reordered.extend(obj.clone());
    let text = serde_json::to_string(&reordered).unwrap();
    let again = Scenario::from_json(&text).unwrap();
    assert_eq!(scenario_hash(&again), scenario_hash(&s));
    let mut other = s.clone();
    other.seed += 1;
    assert_ne!(scenario_hash(&other), scenario_hash(&s));
    // The documented definition: SHA-256 of the compact serde JSON.
    assert_eq!(
        scenario_hash(&s),
        crate::sha256::hex(serde_json::to_string(&s).unwrap().as_bytes())
    );
}

fn err(parts: &[(&str, &str)]) -> String {
    merge(parts).unwrap_err().to_string()
}

#[test]
fn merge_refuses_other_scenarios_duplicates_and_gaps() {
    let plan = small();
    let results = run_all(&plan);
    let p0 = shard_text(&plan, &results, 0, 2);
    let p1 = shard_text(&plan, &results, 1, 2);

    let missing = err(&[("p0", &p0)]);
    assert!(
        missing.contains("4 of the plan's 8 runs are missing: 1, 3, 5, 7"),
        "{missing}"
    );
    let twice = err(&[("p0", &p0), ("p1", &p1), ("again", &p0)]);
    assert!(twice.contains("run 0 is in both p0 and again"), "{twice}");

    // Another seed is another scenario.
    let mut s = plan.scenario.clone();
    s.seed += 1;
    let other_plan = Plan::new(&s).unwrap();
    let other: Vec<RunResult> = Shard { index: 1, count: 2 }
        .runs(other_plan.len())
        .map(|i| other_plan.run(i).unwrap())
        .collect();
    let other = to_jsonl(&other_plan, Some(Shard { index: 1, count: 2 }), &other);
    let mixed = err(&[("p0", &p0), ("q1", &other)]);
    assert!(
        mixed.contains("q1 is from another scenario than p0"),
        "{mixed}"
    );

    // A record line moved into a part of another scenario.
    let stray = format!("{}{}", p0, other.lines().nth(1).unwrap());
    let e = err(&[("p0", &stray), ("p1", &p1)]);
    assert!(e.contains("p0:6: a record of another scenario"), "{e}");

    // An edited header scenario no longer matches its hash.
    let edited = p0.replacen("\"runs\":2", "\"runs\":3", 1);
    let e = err(&[("p0", &edited), ("p1", &p1)]);
    assert!(e.contains("edited?"), "{e}");

    // A record whose coordinates do not match its index.
    let lines: Vec<&str> = p1.lines().collect();
    let bent = lines[1].replacen("\"repetition\":0", "\"repetition\":1", 1);
    let bent = format!("{}\n{bent}\n", lines[0]);
    let e = err(&[("p0", &p0), ("p1", &bent)]);
    assert!(e.contains("p1:2: run 1 is"), "{e}");

    let e = err(&[("x", "{\"index\":0}\n")]);
    assert!(e.contains("x:1: not a records header"), "{e}");
    assert!(err(&[("p0", &format!("{p0}{p1}"))]).contains("a second records header"));
    assert!(err(&[]).contains("at least one"));
}
