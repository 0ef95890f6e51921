//! Energy-aware scheduling on hand-built HiKey960 cases (A53 CPUs 0-3, capacity 462; A73 CPUs
//! 4-7, 1024; hi3660.dtsi's dynamic-power-coefficient and OPPs), each era's energy arithmetic
//! worked by hand in the comments.
//!
//! Energy model (mW, v5.1-v5.18; cost = power * fmax / f):
//! - A53, dpc 110: 533 MHz 28 mW cost 96, 999 MHz 70/129, 1402 MHz 124/163, 1709 MHz 187/201,
//!   1844 MHz 245/245.
//! - A73, dpc 550: 903 MHz 243 mW cost 635, 1421 MHz 500/831, 1805 MHz 804/1052, 2112 MHz
//!   1161/1298, 2362 MHz 1571/1571.
//!
//! In uW (v5.19+): A53 533 MHz 28728 uW cost 99389; A73 903 MHz 243358 uW cost 636557.
//!
//! `SCHEDLAB_FLIP=eas=<value>` (or `=em_power_uw`, `=em_util_headroom`) changes that switch in
//! every kernel these tests build, to check that a test fails without its rule:
//! `SCHEDLAB_FLIP=eas=none cargo test -p schedlab-core eas_tests`.

use super::balance::CpuIdleType;
use super::eas::EasOff;
use super::log::Decision;
use super::tests::{add_task, settle};
use super::wakeup::{Placement, WakeKind};
use super::{Task, TaskId, World};
use crate::domains::SchedDomains;
use crate::kernel::{build_config, Governor, KernelConfig};
use crate::topology::{presets::preset, MachineSpec, Topology};
use crate::units::NSEC_PER_MSEC;

fn era(baseline: &str, governor: Governor) -> KernelConfig {
    let mut c = build_config(baseline, &[], None, governor).unwrap();
    if let Ok(flip) = std::env::var("SCHEDLAB_FLIP") {
        let mut v = serde_json::to_value(&c).unwrap();
        match flip.split_once('=') {
            Some((field, value)) => v[field] = serde_json::Value::String(value.into()),
            None => {
                if let Some(b) = v[flip.as_str()].as_bool() {
                    v[flip.as_str()] = serde_json::Value::Bool(!b);
                }
            }
        }
        c = serde_json::from_value(v).unwrap();
    }
    c
}

fn world_of(spec: MachineSpec, baseline: &str, governor: Governor) -> World {
    let t = Topology::build(&spec).unwrap();
    let c = era(baseline, governor);
    let d = SchedDomains::build(&t, &c).unwrap();
    let mut w = World::new(t, d, c);
    w.now = 100 * NSEC_PER_MSEC;
    w.log = Some(Vec::new());
    w
}

fn hikey(baseline: &str) -> World {
    world_of(preset("hikey960").unwrap(), baseline, Governor::Schedutil)
}

/// A task asleep since it last ran on `prev` with utilization `util`, whose blocked
/// contribution `prev`'s runqueue still carries (call after the last `add_task`).
fn sleeper(w: &mut World, prev: usize, util: u64) -> TaskId {
    let id = w.tasks.len();
    let all = w.topo.all_cpus();
    w.tasks.push(Task::new(id, prev, all, 0, None, w.now));
    w.tasks[id].avg.util_avg = util;
    w.rqs[prev].avg.util_avg += util;
    id
}

fn wake(w: &mut World, p: TaskId, waker_cpu: usize) -> (usize, Placement) {
    w.select_task_rq_fair(p, None, waker_cpu, WakeKind::Wakeup { sync: false })
}

fn last_eas(w: &World) -> super::log::EasLog {
    match w.log.as_ref().unwrap().last() {
        Some(Decision::Wakeup(d)) => d.eas.clone().expect("feec placed the wake-up"),
        other => panic!("no wake-up logged: {other:?}"),
    }
}

/// A 100-util task asleep on the idle big CPU4 wakes (timer, on CPU4); everything else idle.
///
/// v5.6 (v5.4 base-energy feec, mW, headroom on the frequency):
/// - A53 pd: base 0 (nothing runs). Each A53 with the task: util 100, fits (100 * 1280 < 462 *
///   1024), spare 362; CPU0 first. freq = (1844000 + 461000) * 100 / 462 = 498917 kHz -> 533 MHz,
///   energy 96 * 100 / 462 = 20: delta 20.
/// - A73 pd: base 0 (CPU4 without the task: 100 - 100 = 0). prev CPU4: freq = (2362000 +
///   590500) * 100 / 1024 = 288330 -> 903 MHz, 635 * 100 / 1024 = 62: prev_delta 62; CPU4 is
///   also the pd's max-spare CPU (924, the first of four), so no other candidate.
/// - margin (62 + 0) >> 4 = 3; 62 - 20 = 42 > 3: CPU0.
///
/// v6.8 (eenv, uW, headroom on the utilization): A53: max util 100 + 25 = 125, 1844000 * 125 /
/// 462 = 498917 -> 533 MHz, busy 0 + 100, 99389 * 100 / 462 = 21512; A73 prev: 2362000 * 125 /
/// 1024 = 288330 -> 903 MHz, 636557 * 100 / 1024 = 62163; CPU5..7 have no more spare than prev,
/// so only prev is costed there. 21512 < 62163: CPU0.
///
/// v4.16 has no EAS: select_idle_sibling() keeps the task on its idle prev CPU4. With the root
/// domain overutilized, feec gives up and v6.8 does the same.
#[test]
fn feec_moves_a_small_task_to_the_little_cluster_by_the_energy_model() {
    let mut w = hikey("v5.6");
    let p = sleeper(&mut w, 4, 100);
    assert_eq!(wake(&mut w, p, 4), (0, Placement::Energy));
    let l = last_eas(&w);
    assert_eq!(l.pds[0].base, Some(0));
    assert_eq!(l.pds[0].candidate, Some((0, 362, 20)));
    assert_eq!((l.pds[1].prev, l.pds[1].prev_spare), (Some(62), Some(924)));
    assert_eq!(l.pds[1].candidate, None);
    assert_eq!((l.prev, l.best, l.margin), (Some(62), Some(20), Some(3)));

    let mut w = hikey("v6.8");
    let p = sleeper(&mut w, 4, 100);
    assert_eq!(wake(&mut w, p, 4), (0, Placement::Energy));
    let l = last_eas(&w);
    assert_eq!(l.pds[0].candidate, Some((0, 362, 21512)));
    assert_eq!(l.pds[1].prev, Some(62163));
    assert_eq!(l.margin, None);

    let mut w = hikey("v4.16");
    let p = sleeper(&mut w, 4, 100);
    assert_eq!(wake(&mut w, p, 4), (4, Placement::FastPath));

    // Overutilized: find_energy_efficient_cpu() returns -1, the usual path keeps prev.
    let mut w = hikey("v6.8");
    let p = sleeper(&mut w, 4, 100);
    w.rd_overutilized = true;
    assert_eq!(wake(&mut w, p, 4), (4, Placement::FastPath));
}

/// The v5.x 6% margin. A 290-util task asleep on little CPU0 (CPU0 util 290, blocked), little
/// CPUs 1-3 each running a 100-util task, bigs idle; the task wakes on CPU0.
///
/// v5.6 (mW): A53 pd: base = max 100, sum 300: (2305000 * 100 / 462 = 498917 -> 533 MHz)
/// 96 * 300 / 462 = 62. CPU1-3 with the task: 390 does not fit 462 (390 * 1280 > 462 * 1024);
/// prev CPU0: max 290, sum 590: 2305000 * 290 / 462 = 1446861 -> 1709 MHz, 201 * 590 / 462 = 256,
/// prev_delta 256 - 62 = 194. A73 pd: base 0; CPU4 (spare 734): 2952500 * 290 / 1024 = 836162 ->
/// 903 MHz, 635 * 290 / 1024 = 179. Saving 194 - 179 = 15, margin (194 + 62) >> 4 = 16: not
/// enough, the task stays on CPU0.
///
/// v6.8 (eenv, uW, no margin): A53 base 64538, prev 259038 -> delta 194500; A73 CPU4: 180274.
/// 180274 < 194500: CPU4.
#[test]
fn feec_needs_a_six_percent_saving_before_v6_0() {
    let case = |baseline: &str| {
        let mut w = hikey(baseline);
        for cpu in 1..4 {
            add_task(&mut w, cpu, 100);
        }
        settle(&mut w);
        let p = sleeper(&mut w, 0, 290);
        let target = wake(&mut w, p, 0).0;
        (target, last_eas(&w))
    };
    let (target, l) = case("v5.6");
    assert_eq!(l.pds[0].base, Some(62));
    assert_eq!(l.pds[0].prev, Some(194));
    assert_eq!(l.pds[1].candidate, Some((4, 734, 179)));
    assert_eq!(l.margin, Some(16));
    assert_eq!(target, 0);
    let (target, l) = case("v6.8");
    assert_eq!(l.pds[0].base, Some(64538));
    assert_eq!(l.pds[0].prev, Some(194500));
    assert_eq!(l.pds[1].candidate, Some((4, 734, 180274)));
    assert_eq!(target, 4);
}

/// v5.0-v5.3 cost each candidate over every perf domain (the first case's v5.2 figures): CPU0
/// 20 + 0 = 20, prev CPU4 0 + 62 = 62; margin 62 >> 4 = 3: CPU0.
#[test]
fn feec_v5_0_costs_candidates_over_all_perf_domains() {
    let mut w = hikey("v5.2");
    let p = sleeper(&mut w, 4, 100);
    assert_eq!(wake(&mut w, p, 4), (0, Placement::Energy));
    let l = last_eas(&w);
    assert_eq!(l.pds[0].base, None);
    assert_eq!(l.pds[0].candidate, Some((0, 362, 20)));
    assert_eq!((l.prev, l.margin), (Some(62), Some(3)));
}

/// find_busiest_group() on an EAS root domain balances only while it is overutilized. Two
/// 150-util tasks on little CPU0 (300 < 462 * 0.8): idle CPU1's MC balance finds nothing to do
/// (v5.2's legacy balancer and v6.8's alike); with CPU0 at 2 x 200 = 400 (overutilized) it
/// pulls one. Without EAS (performance governor) it pulls in both cases.
#[test]
fn overutilized_gates_find_busiest_group() {
    for baseline in ["v5.2", "v6.8"] {
        let pulls = |governor: Governor, util: u64| {
            let mut w = world_of(preset("hikey960").unwrap(), baseline, governor);
            add_task(&mut w, 0, util);
            add_task(&mut w, 0, util);
            w.load_balance(1, 0, CpuIdleType::NewlyIdle).moved
        };
        assert_eq!(
            pulls(Governor::Schedutil, 150),
            0,
            "{baseline}: EAS, not overutilized"
        );
        assert_eq!(
            pulls(Governor::Schedutil, 200),
            1,
            "{baseline}: EAS, overutilized"
        );
        assert_eq!(pulls(Governor::Performance, 150), 1, "{baseline}: no EAS");
    }
}

/// The overutilized flag: set by a (non-new) enqueue or a tick on a CPU whose utilization does
/// not fit 80% of its capacity, and rewritten by a balance pass at the root domain.
#[test]
fn overutilized_is_set_by_the_cpu_and_cleared_at_the_root_domain() {
    let mut w = hikey("v6.8");
    let t = add_task(&mut w, 0, 400);
    assert!(!w.rd_overutilized, "a new task does not update it");
    w.update_overutilized_status(0);
    assert!(w.rd_overutilized, "400 does not fit 462 * 0.8");
    w.tasks[t].avg.util_avg = 100;
    settle(&mut w);
    let root = w.sd.per_cpu[1].len() - 1;
    w.load_balance(1, root, CpuIdleType::NewlyIdle);
    assert!(!w.rd_overutilized, "the root domain's pass clears it");
}

/// build_perf_domains(): EAS on HiKey960 and Juno r2 with schedutil from v5.0; off without
/// schedutil, on a symmetric machine, without an energy model (TC2's preset gives no OPP
/// voltages; x86 has none), and before v5.0.
#[test]
fn eas_is_enabled_only_where_the_kernel_enables_it() {
    let off = |w: &World| w.eas_off.clone();
    assert_eq!(off(&hikey("v6.8")), None);
    assert_eq!(off(&hikey("v5.2")), None);
    assert_eq!(
        off(&world_of(
            preset("juno-r2").unwrap(),
            "v6.8",
            Governor::Schedutil
        )),
        None
    );
    assert_eq!(hikey("v6.8").pd.len(), 2);
    assert_eq!(off(&hikey("v4.18")), Some(EasOff::NotInKernel));
    assert_eq!(
        off(&world_of(
            preset("hikey960").unwrap(),
            "v6.8",
            Governor::Performance
        )),
        Some(EasOff::NotSchedutil)
    );
    let mut sym = preset("hikey960").unwrap();
    for c in &mut sym.clusters {
        c.capacity_orig = 1024;
    }
    assert!(matches!(
        off(&world_of(sym, "v6.8", Governor::Schedutil)),
        Some(EasOff::NotAsymmetric { .. })
    ));
    assert!(matches!(
        off(&world_of(
            preset("tc2").unwrap(),
            "v6.8",
            Governor::Schedutil
        )),
        Some(EasOff::NoEnergyModel { .. })
    ));
    assert!(matches!(
        off(&world_of(
            preset("cascadelake-8260l").unwrap(),
            "v6.8",
            Governor::Schedutil
        )),
        Some(EasOff::NotAsymmetric { .. })
    ));
}

/// Where the energy estimate puts the DVFS headroom. A 493-util task asleep on CPU4 wakes (it
/// does not fit a little CPU: 493 * 1280 > 462 * 1024; CPU5-7 have no more spare than prev, so
/// prev is the only candidate). v5.6 (on the frequency): (2362000 + 590500) * 493 / 1024 =
/// 1421474 kHz -> 1805 MHz, prev_delta 1052 * 493 / 1024 = 506. With v5.14+'s form (on the
/// utilization, as v6.7 has it, here on v5.6's mW model): 493 + 123 = 616, 2362000 * 616 / 1024
/// = 1420906 -> 1421 MHz, 831 * 493 / 1024 = 400.
#[test]
fn em_headroom_on_the_frequency_or_the_utilization() {
    let prev_delta = |headroom_on_util: Option<bool>| {
        let mut w = hikey("v5.6");
        if let Some(h) = headroom_on_util {
            w.config.em_util_headroom = h;
        }
        let p = sleeper(&mut w, 4, 493);
        assert_eq!(wake(&mut w, p, 4).0, 4);
        last_eas(&w).pds[1].prev
    };
    assert_eq!(prev_delta(None), Some(506));
    assert_eq!(prev_delta(Some(true)), Some(400));
}
