//! The built-in reference experiments of shared/reference/platforms-and-experiments.md.

use crate::error::{Error, Result};
use crate::experiment::{MachineRef, Scenario, Sweep, VariantSpec, SCENARIO_VERSION};
use crate::kernel::Governor;
use crate::workload::{sysbench::SysbenchCpu, WorkloadSpec};

pub struct BuiltinScenario {
    pub name: &'static str,
    pub title: &'static str,
    pub summary: &'static str,
    build: fn() -> Scenario,
}

pub const BUILTIN: &[BuiltinScenario] = &[BuiltinScenario {
    name: "hikey960-asym-packing",
    title: "E1: SD_ASYM_PACKING for DynamIQ on HiKey960",
    summary:
        "sysbench-cpu, 1-8 threads, on HiKey960 CPUs in one DynamIQ MC domain: mainline places \
              threads on big or little CPUs by chance; with SD_ASYM_PACKING at MC and priority = \
              capacity, idle big CPUs pull the work from little ones.",
    build: e1,
}];

pub fn builtin(name: &str) -> Result<Scenario> {
    BUILTIN
        .iter()
        .find(|b| b.name == name)
        .map(|b| (b.build)())
        .ok_or_else(|| Error::Unknown {
            kind: "scenario",
            name: name.into(),
            known: BUILTIN.iter().map(|b| b.name.to_string()).collect(),
        })
}

/// E1 (arm64 "support DynamIQ cluster" RFC, March 2018): time for sysbench-cpu's 10000 events.
fn e1() -> Scenario {
    Scenario {
        version: SCENARIO_VERSION,
        name: "hikey960-asym-packing".into(),
        title: BUILTIN_TITLE_E1.into(),
        description: "HiKey960's eight CPUs in one MC domain, as a DynamIQ system with a shared DSU has \
                      them. Mainline (v4.16) sees no difference between a Cortex-A53 (capacity 462) and a \
                      Cortex-A73 (1024): threads stay where fork placement put them, which depends on the \
                      CPU the benchmark started from, so with fewer threads than CPUs the time varies \
                      from run to run. The RFC sets SD_ASYM_PACKING on MC with arch_asym_cpu_priority() = \
                      capacity: a busy little CPU's tick kicks an idle big CPU, whose balance pass finds \
                      the little group asym_packing and pulls its running task by active balance. \
                      Look at: the patch's spread (near zero) and its time at 1-4 threads; both equal \
                      at 8 threads."
            .into(),
        machine: MachineRef::Preset("hikey960-dynamiq".into()),
        workload: WorkloadSpec::SysbenchCpu(SysbenchCpu::new(1)),
        sweep: Some(Sweep { param: "threads".into(), values: (1..=8).collect() }),
        variants: vec![
            VariantSpec {
                name: "mainline".into(),
                baseline: "v4.16".into(),
                patches: vec![],
                governor: Governor::Performance,
                config: None,
            },
            VariantSpec {
                name: "dynamiq-asym-packing".into(),
                baseline: "v4.16".into(),
                patches: vec!["dynamiq-asym-packing".into()],
                governor: Governor::Performance,
                config: None,
            },
        ],
        runs: 32,
        seed: 1,
        taskset: None,
        limits: Default::default(),
    }
}

const BUILTIN_TITLE_E1: &str = "E1: SD_ASYM_PACKING for DynamIQ on HiKey960";
