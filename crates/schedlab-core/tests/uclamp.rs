//! uclamp in a whole run under EAS: one small periodic rt-app task (2 ms of A53 top-speed work
//! every 16 ms for 2 s) with `util_min` 1024 on HiKey960 with schedutil.
//!
//! - v6.8: `util_fits_cpu()` ranks the little CPUs -1 (only the boost misses) and the big ones 1,
//!   so feec places the task on a big CPU at every wake-up and schedutil runs it at the A73's
//!   2362 MHz: the CPUs' busy frequency is ~2.3 GHz.
//! - v6.8 with `uclamp` off: the task is small; feec keeps it on a little CPU at a low OPP.
//! - v5.6: schedutil is boosted too, but feec's `fits_capacity(uclamp_rq_util_with())` filter
//!   rejects every CPU for the boosted 1024, so no candidate is costed and the task stays where
//!   it first ran (the rt-app thread's first CPU, a matter of the seed): never moved by feec.

use schedlab_core::experiment::{MachineRef, Plan, Scenario, VariantSpec};
use schedlab_core::kernel::Governor;
use schedlab_core::workload::rtapp::RtApp;
use schedlab_core::workload::WorkloadSpec;

const RTAPP: &str = r#"{"global": {"duration": 2, "calibration": "CPU0"}, "tasks": {"boosted":
    {"loop": -1, "util_min": 1024, "phases": {"p": {"loop": 1, "run": 2000,
    "timer": {"ref": "unique", "period": 16000}}}}}}"#;

fn scenario() -> Scenario {
    let variant = |name: &str, baseline: &str, config: Option<serde_json::Value>| VariantSpec {
        name: name.into(),
        baseline: baseline.into(),
        patches: vec![],
        governor: Governor::Schedutil,
        config,
    };
    Scenario {
        version: 1,
        name: "hikey960-uclamp-boost".into(),
        title: String::new(),
        description: String::new(),
        machine: MachineRef::Preset("hikey960".into()),
        workload: WorkloadSpec::RtApp(RtApp {
            json: RTAPP.into(),
            speed: Default::default(),
        }),
        sweep: None,
        variants: vec![
            variant("v5.6", "v5.6", None),
            variant("v6.8", "v6.8", None),
            variant(
                "v6.8-no-uclamp",
                "v6.8",
                Some(serde_json::json!({ "uclamp": false })),
            ),
        ],
        runs: 3,
        seed: 1,
        taskset: None,
        extras: Default::default(),
        limits: Default::default(),
    }
}

#[test]
fn a_boosted_small_task_goes_big_under_eas_from_v6_2() {
    let plan = Plan::new(&scenario()).unwrap();
    let results: Vec<_> = (0..plan.len())
        .map(|i| plan.run_checked(i).unwrap())
        .collect();
    for r in &results {
        // Every period completes in all three: 2 s / 16 ms.
        assert_eq!(r.value, 124.0, "run {}", r.index);
        let mhz = r.busy_mhz;
        match r.variant {
            // Big CPUs at 2362 MHz (the first period ran little, before feec saw it).
            1 => assert!(mhz > 2200.0, "v6.8 {mhz}"),
            // A little CPU at a low OPP.
            2 => assert!(mhz < 700.0, "v6.8 without uclamp {mhz}"),
            // Boosted wherever it stays: the little cluster's 1844 MHz or a big one's 2362.
            _ => assert!(mhz > 1700.0, "v5.6 {mhz}"),
        }
    }
    let energy = |v: usize| -> f64 {
        results
            .iter()
            .filter(|r| r.variant == v)
            .map(|r| r.energy_j)
            .sum::<f64>()
            / 3.0
    };
    assert!(
        energy(1) > 2.0 * energy(2),
        "{} vs {}",
        energy(1),
        energy(2)
    );
}
