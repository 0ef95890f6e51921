//! What the baselines' era switches change, on small hand-built cases: each test runs the same
//! case on the two baselines either side of a change and asserts each kernel's outcome.

use super::rq::Enqueue;
use super::wakeup::WakeKind;
use super::{Task, TaskId, World};
use crate::domains::flags::{SD_BALANCE_WAKE, SD_PREFER_SIBLING};
use crate::domains::{SchedDomains, SdLevel};
use crate::kernel::{build_config, Governor};
use crate::topology::{presets::preset, Topology};
use crate::units::NSEC_PER_MSEC;

fn world(machine: &str, baseline: &str, overrides: &str) -> World {
    let t = Topology::build(&preset(machine).unwrap()).unwrap();
    let o: serde_json::Value = serde_json::from_str(overrides).unwrap();
    let c = build_config(baseline, &[], Some(&o), Governor::Performance).unwrap();
    let d = SchedDomains::build(&t, &c).unwrap();
    let mut w = World::new(t, d, c);
    w.now = 100 * NSEC_PER_MSEC;
    w
}

/// A running or queued task on `cpu` with these PELT signals; runqueue sums follow.
fn add_task(w: &mut World, cpu: usize, util: u64, load: u64) -> TaskId {
    let id = w.tasks.len();
    let all = w.topo.all_cpus();
    w.tasks.push(Task::new(id, cpu, all, 0, None, 0));
    w.enqueue_task(cpu, id, Enqueue::New);
    w.tasks[id].avg.util_avg = util;
    w.tasks[id].avg.runnable_avg = util;
    w.tasks[id].avg.load_avg = load;
    if w.rqs[cpu].curr.is_none() {
        w.pick_next_task(cpu);
    }
    for c in 0..w.nr_cpus() {
        let tasks: Vec<TaskId> = w.rqs[c]
            .queue
            .iter()
            .map(|&(_, t)| t)
            .chain(w.rqs[c].curr)
            .collect();
        let rq = &mut w.rqs[c];
        rq.avg.util_avg = tasks.iter().map(|&t| w.tasks[t].avg.util_avg).sum();
        rq.avg.runnable_avg = tasks.iter().map(|&t| w.tasks[t].avg.runnable_avg).sum();
        rq.avg.load_avg = tasks.iter().map(|&t| w.tasks[t].avg.load_avg).sum();
    }
    id
}

/// The level's domain of `cpu`.
fn domain(w: &World, cpu: usize, level: SdLevel) -> Option<&crate::domains::SchedDomain> {
    w.sd.per_cpu[cpu]
        .iter()
        .map(|&d| &w.sd.domains[d])
        .find(|d| d.level == level)
}

/// TC2 with the capacities visible (1024 / 430): a task of util 600 that last ran on a busy A15
/// (CPU0) is woken by a light task on an A7 (CPU3), with CPU1 (A15) idle. v4.9's `wake_cap()`
/// finds it does not fit ~80% of min(1024, 430): no affine wake-up, `select_idle_sibling()`
/// around prev finds the idle A15. v4.7-rc3 has no `wake_cap()`: `wake_affine()` takes the
/// waker's side (its load is far lighter) and the scan around CPU3 finds an idle A7.
#[test]
fn v4_9_wake_cap_keeps_a_big_task_off_the_little_cluster_v4_7_does_not() {
    for (baseline, want_cap) in [("v4.9", 1024), ("v4.7", 430)] {
        let mut w = world("tc2", baseline, r#"{"arch_cpu_capacity": true}"#);
        add_task(&mut w, 0, 1024, 1024);
        add_task(&mut w, 0, 1024, 1024);
        let waker = add_task(&mut w, 3, 100, 100);
        let p = w.tasks.len();
        let all = w.topo.all_cpus();
        w.tasks.push(Task::new(p, 0, all, 0, None, w.now));
        w.tasks[p].avg.util_avg = 600;
        w.tasks[p].avg.load_avg = 600;
        let (cpu, _) = w.select_task_rq_fair(p, Some(waker), 3, WakeKind::Wakeup { sync: false });
        assert_eq!(
            w.topo.capacity_orig(cpu),
            want_cap,
            "{baseline}: woken onto CPU{cpu}"
        );
    }
}

/// `sd_init()` in v4.8-v5.6 gives an SD_ASYM_CPUCAPACITY domain and every domain below it
/// SD_BALANCE_WAKE; v4.7-rc3 has no such rule, and v5.7 removed it. Juno r2 on v5.2 (automatic
/// SD_ASYM_CPUCAPACITY since v4.20) vs v6.7; TC2 with the flag set on v4.9 vs v4.7.
#[test]
fn sd_balance_wake_under_asym_capacity_is_a_v4_8_to_v5_6_rule() {
    for (machine, baseline, overrides, want) in [
        ("juno-r2", "v5.2", "{}", true),
        ("juno-r2", "v5.6", "{}", true),
        ("juno-r2", "v6.7", "{}", false),
        (
            "tc2",
            "v4.9",
            r#"{"arch_cpu_capacity": true, "asym_cpucapacity_detection": true}"#,
            true,
        ),
        (
            "tc2",
            "v4.7",
            r#"{"arch_cpu_capacity": true, "asym_cpucapacity_detection": true}"#,
            false,
        ),
    ] {
        let w = world(machine, baseline, overrides);
        for level in [SdLevel::MC, SdLevel::DIE] {
            let d = domain(&w, 0, level).unwrap();
            assert_eq!(
                d.has(SD_BALANCE_WAKE),
                want,
                "{machine} {baseline} {level:?}"
            );
        }
    }
}

/// v4.16's `sd_init()` sets SD_PREFER_SIBLING on the LLC branch too; v4.9's only on SMT and the
/// "else" (DIE) branch. Juno r2: the MC level (a cluster) of CPU 0, under a DIE level that is not
/// degenerate (a degenerate parent would hand its flag down, as `sd_parent_degenerate()` does).
#[test]
fn the_llc_prefers_siblings_from_v4_16_not_in_v4_9() {
    for (baseline, want) in [("v4.9", false), ("v4.16", true), ("v4.18", true)] {
        let w = world("juno-r2", baseline, "{}");
        let mc = domain(&w, 0, SdLevel::MC).unwrap();
        assert_eq!(mc.has(SD_PREFER_SIBLING), want, "{baseline}");
        assert!(domain(&w, 0, SdLevel::DIE).unwrap().has(SD_PREFER_SIBLING));
    }
}
