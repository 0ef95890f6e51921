//! A workload's own speed per core type and its own SMT contention (issue 10, "Speed of a workload
//! on a core"): the HiKey960 sysbench calibration on both core types, and ebizzy sharing a POWER9
//! small core worse than the core's default.

use schedlab_core::experiment::{Plan, Scenario};
use serde_json::json;

/// One run of `workload` on `machine` (a preset), pinned with taskset, v4.16 + performance.
fn run_pinned(machine: &str, workload: serde_json::Value, cpus: &[usize]) -> f64 {
    let s: Scenario = serde_json::from_value(json!({
        "version": 1,
        "name": "speed",
        "machine": {"preset": machine},
        "workload": workload,
        "variants": [{"name": "v", "baseline": "v4.16", "governor": "performance"}],
        "runs": 1,
        "seed": 1,
        "taskset": cpus,
    }))
    .unwrap();
    let plan = Plan::new(&s).unwrap();
    plan.run(0).unwrap().value
}

fn sysbench_one_thread(extra: serde_json::Value) -> serde_json::Value {
    let mut w = json!({"kind": "sysbench-cpu", "threads": 1, "event_jitter_ppm": 0});
    for (k, v) in extra.as_object().unwrap() {
        w[k] = v.clone();
    }
    w
}

#[test]
fn sysbench_on_hikey960_runs_at_the_boards_measured_speeds() {
    // hardware-facts.md: one thread at max OPP, A73 8.86 s, A53 15.86 s. The A73 time is the
    // work size's definition (10000 events x 886 us at capacity 1024 and the highest OPP); the
    // A53 time comes from sysbench's calibrated per-MHz speed (733 -> 572 at 1844 MHz), not from
    // capacity_orig 462 (which would give 19.64 s).
    for machine in ["hikey960", "hikey960-dynamiq"] {
        let a73 = run_pinned(machine, sysbench_one_thread(json!({})), &[4]);
        let a53 = run_pinned(machine, sysbench_one_thread(json!({})), &[0]);
        assert!((a73 - 8.86).abs() < 0.01, "{machine}: A73 {a73}");
        assert!((a53 - 15.86).abs() < 0.02, "{machine}: A53 {a53}");
        let ratio = a73 / a53;
        assert!((ratio - 8.86 / 15.86).abs() < 0.002, "{machine}: {ratio}");
    }
}

#[test]
fn a_spec_speed_overrides_the_calibration_and_capacity_is_the_default() {
    // Per MHz 592 is the A53's DT capacity-dmips-mhz: the A53 then runs at capacity_orig 462.
    let w = sysbench_one_thread(json!({"speed": {"per_mhz": {"Cortex-A53": 592}}}));
    let a53 = run_pinned("hikey960", w, &[0]);
    assert!((a53 - 8.86 * 1024.0 / 462.0).abs() < 0.03, "{a53}");
    // Juno's A53 beside an A72: no figure, capacity_orig (383/1024 at the A53's highest OPP).
    let juno = run_pinned("juno-r2", sysbench_one_thread(json!({})), &[0]);
    assert!((juno - 8.86 * 1024.0 / 383.0).abs() < 0.05, "{juno}");
}

/// ebizzy records/s of two threads pinned to `cpus` of a POWER9 big core.
fn ebizzy_pair(cpus: &[usize], speed: serde_json::Value) -> f64 {
    let mut w = json!({"kind": "ebizzy", "threads": 2, "duration_ms": 200, "record_jitter_ppm": 0});
    if !speed.is_null() {
        w["speed"] = speed;
    }
    run_pinned("power9-smt8", w, cpus)
}

#[test]
fn ebizzy_shares_a_power9_small_core_worse_than_an_average_workload() {
    // Two threads pinned one per CPU of one small core ({0,2,4,6}): each copies at its share.
    let apart = ebizzy_pair(&[0, 1], serde_json::Value::Null);
    let mine = ebizzy_pair(&[0, 2], serde_json::Value::Null);
    let core_default = ebizzy_pair(&[0, 2], json!({"smt_throughput": {"POWER9": [1024, 820]}}));
    // Apart, each thread has a small core to itself; together, ebizzy's own table (522 per thread
    // with two busy) applies, not the core's 820.
    let own = mine / apart;
    let avg = core_default / apart;
    assert!((own - 522.0 / 1024.0).abs() < 0.02, "ebizzy's own: {own}");
    assert!((avg - 820.0 / 1024.0).abs() < 0.02, "core default: {avg}");
}

#[test]
fn only_e1_and_e3_run_at_speeds_other_than_capacity() {
    // The other built-ins have no calibrated speed for their core types (Juno's A72/A53, TC2's
    // A15/A7, Intel's cores: no public figure) and no workload SMT table of their own, so they
    // run exactly as capacity_orig and the cores' smt_throughput say.
    for b in schedlab_core::scenarios::BUILTIN {
        let plan = Plan::new(&schedlab_core::scenarios::builtin(b.name).unwrap()).unwrap();
        let own = plan.instances.iter().any(|i| i.rates != Default::default());
        let expected = matches!(b.name, "hikey960-asym-packing" | "power9-bigcore-asym-smt");
        assert_eq!(own, expected, "{}", b.name);
    }
}
