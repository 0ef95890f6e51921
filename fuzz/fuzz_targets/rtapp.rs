//! Raw bytes as an rt-app JSON file: the rt-app reader (json-c's grammar) and converter, as a
//! scenario's `{"kind": "rt-app", "json": ...}` workload on TC2 (5 CPUs of two capacities, small
//! enough to run fast), one v6.8 schedutil variant; then a short checked run under small limits.
//! The file's `cpus` keys pin threads, so the fuzzer can also reach one-CPU shapes.

#![no_main]

use libfuzzer_sys::fuzz_target;
use schedlab_core::experiment::{MachineRef, Scenario, VariantSpec, SCENARIO_VERSION};
use schedlab_core::kernel::Governor;
use schedlab_core::workload::rtapp::RtApp;
use schedlab_core::workload::WorkloadSpec;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let scenario = Scenario {
        version: SCENARIO_VERSION,
        name: "fuzz-rtapp".into(),
        title: String::new(),
        description: String::new(),
        machine: MachineRef::Preset("tc2".into()),
        workload: WorkloadSpec::RtApp(RtApp {
            json: text.into(),
            speed: Default::default(),
        }),
        sweep: None,
        variants: vec![VariantSpec {
            name: "v6.8".into(),
            baseline: "v6.8".into(),
            patches: Vec::new(),
            governor: Governor::Schedutil,
            config: None,
        }],
        runs: 1,
        seed: 1,
        extras: Default::default(),
        taskset: None,
        limits: schedlab_fuzz::FUZZ_LIMITS,
    };
    // The metric is read from the file on its own path (before any instantiation).
    let _ = scenario.workload.metric();
    schedlab_fuzz::plan_and_run(&scenario);
});
