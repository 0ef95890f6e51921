//! The bench matrix: a fixed set of scenarios that measure the simulator's own speed (issue 13),
//! workload x machine size, runnable by name everywhere a scenario name is taken: `schedlab bench
//! bench-tbench-96` (and `reproduce`, `trace` ...), and the page's `?scenario=bench-tbench-96` or
//! the job worker's named bench, both through the web crate's `protocol::Opening::Named`, which
//! looks names up here after LISA's. They are not in the page's menu or in the app's wasm.
//!
//! These are instruments, not experiments: nothing here is compared across kernels, and nothing
//! is tuned to a result. Each cell is one run (`runs: 1`, seed 1) of one kernel, v6.8 with
//! schedutil (the current mainline's common case: EEVDF, the reworked balancer, and EAS where the
//! machine has an energy model and asymmetric capacities, HiKey960), so a row shows what the
//! engine costs as the machine grows, not what a kernel does.
//!
//! Machines ([`MACHINES`]): HiKey960 (8 CPUs, two clusters), Alder Lake i9-12900K (24 CPUs,
//! hybrid with SMT), Cascade Lake 8260L (96 CPUs, 2 sockets) and EPYC 9654 2S (384 CPUs).
//!
//! Workloads ([`WORKLOADS`]), each sized so that every machine gets about the same simulated work
//! (busy CPU-seconds or messages), which keeps a cell at ~0.15-0.8 s of native wall time on one
//! thread of this project's machines (before issue 13's work; enough that a shared machine's noise
//! is small against it, few enough that callgrind runs all of them in ~5 minutes) and makes the
//! rows of one workload comparable per unit of work:
//! - `sysbench`: sysbench-cpu with one thread per CPU, `--max-time` = 2880 busy CPU-seconds / CPUs
//!   (360 s of machine time on 8 CPUs, 7.5 s on 384): ticks of CPUs with one runnable task, PELT
//!   and the periodic balancer, the cheapest simulated second there is;
//! - `tbench`: CPUs / 2 client/server pairs (E2's transaction sizes and costs), 384 / CPUs seconds
//!   after a 100 ms warm-up (each pair keeps about one CPU busy: ~190 busy CPU-seconds per cell):
//!   sync wake-ups, `select_idle_sibling()`, newly-idle balancing, schedutil updates;
//! - `hackbench`: `perf bench sched messaging` with CPUs / 8 groups (at least one) of 20 + 20
//!   tasks and 2560 / groups loops (about 10^6 messages per cell): the wake-up-heaviest load, many
//!   tasks per CPU.

use crate::error::{Error, Result};
use crate::experiment::Scenario;

/// The kernel every cell runs (a baseline of `kernel::baselines`).
pub const BASELINE: &str = "v6.8";

/// The machine presets of the matrix and their CPU counts (a test checks each count against the
/// preset's topology).
pub const MACHINES: &[(&str, u32)] = &[
    ("hikey960", 8),
    ("alderlake-12900k", 24),
    ("cascadelake-8260l", 96),
    ("epyc-9654-2s", 384),
];

/// The workloads of the matrix, in the table's order.
pub const WORKLOADS: &[&str] = &["sysbench", "tbench", "hackbench"];

/// Busy CPU-seconds of a `sysbench` cell.
const SYSBENCH_CPU_SECONDS: u64 = 2880;
/// Machine time of a `tbench` cell on one CPU, in ms (divided by the CPU count).
const TBENCH_MS_TIMES_CPUS: u64 = 384_000;
/// Messages of a `hackbench` cell per 400 (one loop of one group: 20 senders x 20 receivers).
const HACKBENCH_GROUP_LOOPS: u64 = 2560;

/// Every bench scenario's name, workload by workload, machines from small to large.
pub fn names() -> Vec<String> {
    WORKLOADS
        .iter()
        .flat_map(|w| MACHINES.iter().map(move |(_, cpus)| name(w, *cpus)))
        .collect()
}

/// `bench-<workload>-<cpus>`.
pub fn name(workload: &str, cpus: u32) -> String {
    format!("bench-{workload}-{cpus}")
}

/// The bench scenario of that name (`None`: not one).
pub fn scenario(name: &str) -> Option<Result<Scenario>> {
    let rest = name.strip_prefix("bench-")?;
    let (workload, cpus) = rest.rsplit_once('-')?;
    let cpus: u32 = cpus.parse().ok()?;
    let &(preset, _) = MACHINES.iter().find(|(_, n)| *n == cpus)?;
    let workload = WORKLOADS.iter().find(|w| **w == workload)?;
    Some(build(name, workload, preset, cpus))
}

fn build(name: &str, workload: &str, preset: &str, cpus: u32) -> Result<Scenario> {
    let (spec, what) = match workload {
        "sysbench" => {
            let ms = SYSBENCH_CPU_SECONDS * 1000 / cpus as u64;
            (
                format!(
                    r#"{{"kind": "sysbench-cpu", "threads": {cpus}, "max_requests": 0, "max_time_ms": {ms}}}"#
                ),
                format!("sysbench-cpu, {cpus} threads for {ms} ms"),
            )
        }
        "tbench" => {
            let clients = (cpus / 2).max(1);
            let ms = TBENCH_MS_TIMES_CPUS / cpus as u64;
            (
                format!(
                    r#"{{"kind": "tbench", "clients": {clients}, "duration_ms": {ms}, "warmup_ms": 100,
                        "request_bytes": 8192, "reply_bytes": 131072, "client_us": 160, "server_us": 320}}"#
                ),
                format!("tbench, {clients} clients for {ms} ms after 100 ms of warm-up"),
            )
        }
        "hackbench" => {
            let groups = cpus.div_ceil(8);
            let loops = HACKBENCH_GROUP_LOOPS / groups as u64;
            (
                format!(r#"{{"kind": "hackbench", "groups": {groups}, "loops": {loops}}}"#),
                format!("hackbench -g {groups} -l {loops}"),
            )
        }
        other => return Err(Error::Scenario(format!("no bench workload '{other}'"))),
    };
    let json = format!(
        r#"{{
  "version": {version},
  "name": "{name}",
  "title": "bench: {what} on {preset}",
  "description": "A cell of the bench matrix (schedlab_core::bench): the simulator's own speed, {what} on {preset} ({cpus} CPUs) under {BASELINE} with schedutil, one run. Not an experiment.",
  "machine": {{"preset": "{preset}"}},
  "workload": {spec},
  "variants": [{{"name": "{BASELINE}", "baseline": "{BASELINE}", "governor": "schedutil"}}],
  "runs": 1,
  "seed": 1
}}"#,
        version = crate::experiment::SCENARIO_VERSION,
    );
    Scenario::from_json(&json)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::{MachineRef, Plan};
    use crate::topology::{presets, Topology};

    #[test]
    fn every_name_opens_a_valid_one_run_plan_on_its_machine_size() {
        let names = names();
        assert_eq!(names.len(), WORKLOADS.len() * MACHINES.len());
        for n in &names {
            let s = scenario(n).expect("a bench name").expect("builds");
            assert_eq!(&s.name, n);
            let plan = Plan::new(&s).expect("plans");
            assert_eq!(plan.len(), 1, "{n}");
            let MachineRef::Preset(p) = &s.machine else {
                panic!("{n}: a preset machine")
            };
            let cpus: u32 = n.rsplit('-').next().unwrap().parse().unwrap();
            let topo = Topology::build(&presets::preset(p).unwrap()).unwrap();
            assert_eq!(topo.nr_cpus() as u32, cpus, "{n} on {p}");
        }
    }

    #[test]
    fn other_names_are_not_bench_scenarios() {
        for n in [
            "bench",
            "bench-sysbench",
            "bench-sysbench-9",
            "bench-foo-8",
            "hikey960-asym-packing",
            "bench-sysbench-x",
        ] {
            assert!(scenario(n).is_none(), "{n}");
        }
    }
}
