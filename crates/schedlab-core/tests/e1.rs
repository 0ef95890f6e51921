//! E1 as a whole: the outcome the RFC's cover letter reports must come out of the model.

use schedlab_core::experiment::Plan;
use schedlab_core::scenarios::builtin;
use schedlab_core::table::ComparisonTable;

fn e1(runs: u32, seed: u64) -> ComparisonTable {
    let mut s = builtin("hikey960-asym-packing").unwrap();
    s.runs = runs;
    s.seed = seed;
    let plan = Plan::new(&s).unwrap();
    let results: Vec<_> = (0..plan.len()).map(|i| plan.run(i).unwrap()).collect();
    plan.table(&results)
}

#[test]
fn asym_packing_uses_big_cpus_first_and_mainline_is_random() {
    let t = e1(12, 7);
    assert_eq!(t.variants, vec!["mainline", "dynamiq-asym-packing"]);
    assert_eq!(t.rows.len(), 8);
    for row in &t.rows {
        let (base, patch) = (&row.cells[0], &row.cells[1]);
        assert!(
            patch.spread_pct < 0.5,
            "threads {}: patch spread {}%",
            row.param,
            patch.spread_pct
        );
        assert!(
            patch.mean <= base.mean * 1.001,
            "threads {}: patch {} vs mainline {}",
            row.param,
            patch.mean,
            base.mean
        );
        if row.param <= 4 {
            // 8%, not the 10% of before sysbench's calibrated speed: an A53 now runs it at 0.559
            // of an A73 (the board's 15.86 s against 8.86 s), not at capacity's 0.451, so a thread
            // left on a little costs less. The placements are the same run for run (the scheduler
            // sees capacity_orig either way); at 4 threads the spread fell from 12.1% to 9.2%.
            assert!(
                base.spread_pct > 8.0,
                "threads {}: mainline spread only {}%",
                row.param,
                base.spread_pct
            );
            assert!(
                base.max > patch.max * 1.25,
                "threads {}: mainline never lands on little CPUs",
                row.param
            );
        }
    }
    let eight = &t.rows[7];
    assert!(
        eight.cells[1].diff_pct.unwrap().abs() < 0.5,
        "8 threads: both variants use every CPU"
    );
}

#[test]
fn one_thread_on_an_a73_matches_the_calibration() {
    // 10000 events of 886 us at capacity 1024 and 2362 MHz: 8.86 s plus start-up.
    let t = e1(4, 3);
    let patch = &t.rows[0].cells[1];
    assert!((patch.mean - 8.86).abs() < 0.02, "{}", patch.mean);
    // On an A53 the same work takes the board's 15.86 s: sysbench's own speed there (572/1024 at
    // max OPP, `sysbench::CALIBRATION`), not capacity_orig 462 (which gave 19.64 s).
    let base = &t.rows[0].cells[0];
    let little = 15.86;
    assert!(
        base.runs
            .iter()
            .all(|&r| (r - 8.86).abs() < 0.03 || (r - little).abs() < 0.06),
        "{:?}",
        base.runs
    );
}

#[test]
fn same_seed_same_bytes_other_seed_other_draws() {
    let a = serde_json::to_string(&e1(3, 42)).unwrap();
    let b = serde_json::to_string(&e1(3, 42)).unwrap();
    assert_eq!(a, b);
    let c = serde_json::to_string(&e1(3, 43)).unwrap();
    assert_ne!(a, c);
}

#[test]
fn invariants_hold_after_every_event() {
    let mut s = builtin("hikey960-asym-packing").unwrap();
    s.runs = 2;
    if let Some(sweep) = &mut s.sweep {
        sweep.values = vec![1, 3, 8];
    }
    // Keep the checked runs short: fewer events per run.
    #[allow(irrefutable_let_patterns)] // more workload kinds are coming
    if let schedlab_core::workload::WorkloadSpec::SysbenchCpu(w) = &mut s.workload {
        w.max_requests = 400;
    }
    let plan = Plan::new(&s).unwrap();
    for i in 0..plan.len() {
        let checked = plan.run_checked(i).unwrap();
        assert_eq!(
            checked,
            plan.run(i).unwrap(),
            "checking must not change the run"
        );
    }
}

#[test]
fn results_do_not_depend_on_run_order() {
    let mut s = builtin("hikey960-asym-packing").unwrap();
    s.runs = 2;
    let plan = Plan::new(&s).unwrap();
    let forward: Vec<_> = (0..plan.len()).map(|i| plan.run(i).unwrap()).collect();
    let mut backward: Vec<_> = (0..plan.len())
        .rev()
        .map(|i| plan.run(i).unwrap())
        .collect();
    backward.reverse();
    assert_eq!(forward, backward);
    let mut shuffled = forward.clone();
    shuffled.rotate_left(5);
    assert_eq!(plan.table(&forward), plan.table(&shuffled));
}
