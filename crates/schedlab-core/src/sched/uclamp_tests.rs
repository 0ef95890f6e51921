//! uclamp on hand-built HiKey960 cases (A53 CPUs 0-3, capacity 462, OPPs 533..1844 MHz; A73
//! CPUs 4-7, 1024, 903..2362 MHz), each era's outcome worked by hand from its code.
//!
//! `SCHEDLAB_FLIP=<switch>` (a bool switch is negated; `key=value` sets a string one) changes
//! that switch in every kernel these tests build, to check that a test fails without its rule:
//! `SCHEDLAB_FLIP=uclamp cargo test -p schedlab-core uclamp_tests`.

use super::log::Decision;
use super::rq::Enqueue;
use super::tests::{add_task, settle};
use super::uclamp::{UCLAMP_MAX, UCLAMP_MIN};
use super::wakeup::{Placement, WakeKind};
use super::{Task, TaskId, World};
use crate::cpufreq::SCHED_CPUFREQ_IOWAIT;
use crate::domains::SchedDomains;
use crate::kernel::{build_config, Governor};
use crate::topology::{presets::preset, Topology};
use crate::units::NSEC_PER_MSEC;

fn hikey(baseline: &str) -> World {
    let t = Topology::build(&preset("hikey960").unwrap()).unwrap();
    let mut c = build_config(baseline, &[], None, Governor::Schedutil).unwrap();
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
    let d = SchedDomains::build(&t, &c).unwrap();
    let mut w = World::new(t, d, c);
    w.now = 100 * NSEC_PER_MSEC;
    w.log = Some(Vec::new());
    // Every policy starts at its lowest OPP, with no rate limit (sysfs rate_limit_us = 0), so
    // each update shows its request.
    for p in 0..w.policies.len() {
        w.policies[p].freq_update_delay_ns = 0;
        let min = w.topo.freq_domains[w.topo.policies[p].clock].min_khz();
        w.set_frequency(p, min);
    }
    w
}

/// A task asleep since it last ran on `prev` with utilization `util` and the given clamps.
fn sleeper(w: &mut World, prev: usize, util: u64, min: Option<u32>, max: Option<u32>) -> TaskId {
    let id = w.tasks.len();
    let all = w.topo.all_cpus();
    w.tasks.push(Task::new(id, prev, all, 0, None, w.now));
    w.tasks[id].avg.util_avg = util;
    w.rqs[prev].avg.util_avg += util;
    w.sched_setattr_uclamp(id, min, max);
    id
}

/// A runnable task on `cpu` whose clamps were set before it was enqueued.
fn clamped_task(
    w: &mut World,
    cpu: usize,
    util: u64,
    min: Option<u32>,
    max: Option<u32>,
) -> TaskId {
    let id = w.tasks.len();
    let all = w.topo.all_cpus();
    w.tasks.push(Task::new(id, cpu, all, 0, None, 0));
    w.sched_setattr_uclamp(id, min, max);
    w.task_fork_fair(cpu, id, None);
    w.enqueue_task(cpu, id, Enqueue::New);
    w.tasks[id].avg.util_avg = util;
    w.tasks[id].avg.load_avg = 1024;
    if w.rqs[cpu].curr.is_none() {
        w.pick_next_task(cpu);
    }
    settle(w);
    id
}

fn rq_clamps(w: &World, cpu: usize) -> (u64, u64, bool) {
    (
        w.uclamp_rq_get(cpu, UCLAMP_MIN),
        w.uclamp_rq_get(cpu, UCLAMP_MAX),
        w.uclamp_rq_is_idle(cpu),
    )
}

/// The policy of `cpu` asks for (MHz) after an update.
fn request_mhz(w: &mut World, cpu: usize) -> u32 {
    w.cpufreq_update(cpu, 0);
    w.policies[w.topo.cpus[cpu].policy].req_khz / 1000
}

/// `uclamp_rq_inc_id()` / `uclamp_rq_dec_id()`: the rq's value is the max over its queued tasks
/// (700 with tasks asking 300 and 700; 300 once the 700 one leaves); with none left, UCLAMP_MIN
/// is 0 and UCLAMP_MAX keeps the last task's 600 with UCLAMP_FLAG_IDLE. Tasks of one bucket
/// (205-409: 250 and 400) share the bucket's max: the 400 one leaving leaves the rq at 400,
/// the kernel's accepted over-boost. Without uclamp the rq holds (0, 1024) throughout.
#[test]
fn rq_clamps_max_aggregate_the_queued_tasks_and_fall_back_when_they_leave() {
    let mut w = hikey("v6.8");
    let a = clamped_task(&mut w, 4, 100, Some(300), Some(600));
    let b = clamped_task(&mut w, 4, 100, Some(700), Some(900));
    assert_eq!(rq_clamps(&w, 4), (700, 900, false));
    w.dequeue_task(4, b, false);
    assert_eq!(rq_clamps(&w, 4), (300, 600, false));
    w.dequeue_task(4, a, false);
    assert_eq!(rq_clamps(&w, 4), (0, 600, true));

    let c = clamped_task(&mut w, 5, 100, Some(250), None);
    let d = clamped_task(&mut w, 5, 100, Some(400), None);
    assert_eq!(w.uclamp_rq_get(5, UCLAMP_MIN), 400);
    w.dequeue_task(5, d, false);
    assert_eq!(w.uclamp_rq_get(5, UCLAMP_MIN), 400, "local max aggregation");
    w.dequeue_task(5, c, false);
    assert_eq!(w.uclamp_rq_get(5, UCLAMP_MIN), 0);
}

/// `uclamp_idle_reset()`: the first task enqueued on an idle rq replaces the retained max (800
/// from the last task) with its own (300), rather than max-aggregating with it.
#[test]
fn the_first_enqueue_on_an_idle_rq_resets_the_retained_max() {
    let mut w = hikey("v6.8");
    let a = clamped_task(&mut w, 4, 100, None, Some(800));
    w.dequeue_task(4, a, false);
    assert_eq!(rq_clamps(&w, 4), (0, 800, true));
    clamped_task(&mut w, 4, 100, None, Some(300));
    assert_eq!(rq_clamps(&w, 4), (0, 300, false));
}

/// schedutil with a util_min = 1024 task of utilization 50 on little CPU0: v5.6
/// (`uclamp_rq_util_with()` in `schedutil_cpu_util()`): min(462, clamp(50, 1024, 1024)) = 462,
/// 1.25 x 1844000 x 462 / 462 -> 1844 MHz, the top OPP. v6.8 (`sugov_effective_cpu_perf()`):
/// max(1024, min(62, 462)) = 1024, 1844000 x 1024 / 462 -> 1844 MHz. Without uclamp: 1.25 x
/// 1844000 x 50 / 462 = 249459 kHz -> 533 MHz. The decision says "uclamp".
#[test]
fn a_util_min_1024_task_runs_its_policy_at_max_frequency() {
    for baseline in ["v5.6", "v6.8"] {
        let mut w = hikey(baseline);
        clamped_task(&mut w, 0, 50, Some(1024), None);
        assert_eq!(request_mhz(&mut w, 0), 1844, "{baseline}");
        let why = w.log.as_ref().unwrap().iter().rev().find_map(|d| match d {
            Decision::Freq(f) => Some(f.why),
            _ => None,
        });
        assert_eq!(why, Some(super::log::FreqWhy::Uclamp), "{baseline}");
    }
    let mut w = hikey("v4.18");
    clamped_task(&mut w, 0, 50, Some(1024), None);
    assert_eq!(request_mhz(&mut w, 0), 533, "no uclamp before v5.3");
}

/// util_max 512 on an 800-util task on big CPU4: v6.7 clamps first and adds the headroom to the
/// clamped value: 1.25 x 2362000 x 512 / 1024 = 1476250 -> 1805 MHz; v6.8's
/// `sugov_effective_cpu_perf()` caps the headroomed value: min(1000, 512) = 512, 2362000 x 512 /
/// 1024 = 1181000 -> 1421 MHz. Unclamped: 2362 MHz on both.
#[test]
fn util_max_caps_the_request_before_or_after_the_headroom() {
    let req = |baseline: &str| {
        let mut w = hikey(baseline);
        clamped_task(&mut w, 4, 800, None, Some(512));
        request_mhz(&mut w, 4)
    };
    assert_eq!(req("v6.7"), 1805);
    assert_eq!(req("v6.8"), 1421);
}

/// The iowait boost against util_max 200 (v6.7, v5.17+ `uclamp_max_sugov`): after four iowait
/// wake-ups the boost is 1024 -> 1024 x 1024 >> 10 = 1024, clamped to 200 by
/// `uclamp_rq_util_with(rq, boost, NULL)`: 1.25 x 2362000 x 200 / 1024 = 576660 -> 903 MHz.
/// v5.6 lets the boost escape: 2362 MHz.
#[test]
fn the_iowait_boost_respects_util_max_from_v5_17() {
    let req = |baseline: &str| {
        let mut w = hikey(baseline);
        clamped_task(&mut w, 4, 50, None, Some(200));
        for _ in 0..4 {
            w.now += 600_000;
            w.idle_calls[4] += 1;
            w.cpufreq_update(4, SCHED_CPUFREQ_IOWAIT);
        }
        w.policies[w.topo.cpus[4].policy].req_khz / 1000
    };
    assert_eq!(req("v6.7"), 903);
    assert_eq!(req("v5.6"), 2362);
}

/// An 800-util task capped at util_max 400 running on little CPU0 (capacity 462):
/// v6.8 `util_fits_cpu(800, 0, 400, cpu0)`: 800 does not fit, but the cap 400 <= 462 does, so
/// `task_fits_cpu()` holds and `update_misfit_status()` clears misfit; and `cpu_overutilized()`
/// (the rq's clamps 0 / 400) is false. v5.6 `task_fits_capacity()`: `uclamp_task_util()` = 400,
/// 400 x 1280 = 512000 > 462 x 1024: misfit; and its `cpu_overutilized()` ignores uclamp.
#[test]
fn util_max_lets_a_big_task_fit_a_little_cpu_only_with_util_fits_cpu() {
    let misfit = |baseline: &str| {
        let mut w = hikey(baseline);
        let t = clamped_task(&mut w, 0, 800, None, Some(400));
        assert_eq!(w.rqs[0].curr, Some(t));
        w.update_misfit_status(0);
        w.update_overutilized_status(0);
        (w.rqs[0].misfit_task_load > 0, w.rd_overutilized)
    };
    assert_eq!(misfit("v6.8"), (false, false));
    assert_eq!(misfit("v5.6"), (true, true));
}

/// `select_idle_capacity()` (v6.8): the capped task (util 800, util_max 400) waking with little
/// CPU0 as prev and everything idle stays on CPU0, which `util_fits_cpu()` says fits; with the
/// v5.7-v6.1 test (`util_fits` = `uclamp_task_util`, 400 does not fit 462) it goes to the first
/// idle big CPU, CPU4. EAS is off here (performance governor).
#[test]
fn select_idle_capacity_keeps_a_capped_task_on_an_idle_little_cpu() {
    let wake = |util_fits: Option<&str>| {
        let t = Topology::build(&preset("hikey960").unwrap()).unwrap();
        let mut c = build_config("v6.8", &[], None, Governor::Performance).unwrap();
        if let Some(f) = util_fits {
            c.util_fits = serde_json::from_value(serde_json::Value::String(f.into())).unwrap();
        }
        let d = SchedDomains::build(&t, &c).unwrap();
        let mut w = World::new(t, d, c);
        w.now = 100 * NSEC_PER_MSEC;
        let p = sleeper(&mut w, 0, 800, None, Some(400));
        w.select_task_rq_fair(p, None, 0, WakeKind::Wakeup { sync: false })
            .0
    };
    assert_eq!(wake(None), 0);
    assert_eq!(wake(Some("uclamp_task_util")), 4);
}

fn last_eas(w: &World) -> super::log::EasLog {
    match w.log.as_ref().unwrap().last() {
        Some(Decision::Wakeup(d)) => d.eas.clone().expect("feec placed the wake-up"),
        other => panic!("no wake-up logged: {other:?}"),
    }
}

/// A boosted small task under EAS: util 100, util_min 1024, asleep on little CPU0, all idle
/// (uW energy model, v5.19+; costs: A53 1844 MHz 245436, A73 903 MHz 636557, 2362 MHz 1571911).
/// v6.8 feec: on a little CPU `util_fits_cpu(100, 1024, 1024)` is -1 (100 fits, the boost does
/// not fit 462); on a big one 1. prev CPU0 costs at max(1024, 125) capped at 462 -> 1844 MHz:
/// 245436 x 100 / 462 = 53124; CPU4 at the boost, 1024 -> 2362 MHz: 1571911 x 100 / 1024 =
/// 153506. CPU4 costs more but fits better (`best_fits > prev_fits`): CPU4. Unboosted, v6.8
/// keeps the task on CPU0 by energy (CPU4 would cost 636557 x 100 / 1024 = 62163). v5.6: the
/// filter's `fits_capacity(uclamp_rq_util_with(rq, 100, p) = 1024, cap)` fails on every CPU, so
/// there is no candidate and the task stays on prev CPU0.
#[test]
fn feec_puts_a_boosted_small_task_on_a_big_cpu_from_v6_2() {
    let place = |baseline: &str, min: Option<u32>| {
        let mut w = hikey(baseline);
        let p = sleeper(&mut w, 0, 100, min, None);
        let r = w.select_task_rq_fair(p, None, 0, WakeKind::Wakeup { sync: false });
        (r, last_eas(&w))
    };
    let (r, l) = place("v6.8", Some(1024));
    assert_eq!(r, (4, Placement::Energy));
    assert_eq!(l.pds[0].prev, Some(53124));
    assert_eq!(l.pds[1].candidate, Some((4, 924, 153506)));
    assert_eq!(l.fits, Some((-1, 1)));
    assert!(
        l.to_text().ends_with("uclamp fits prev -1 best 1"),
        "{}",
        l.to_text()
    );
    let (r, l) = place("v6.8", None);
    assert_eq!(r.0, 0);
    assert_eq!(l.pds[1].candidate, Some((4, 924, 62163)));
    let (r, l) = place("v5.6", Some(1024));
    assert_eq!(r.0, 0);
    assert!(l
        .pds
        .iter()
        .all(|pd| pd.prev.is_none() && pd.candidate.is_none()));
}

/// `uclamp_rq_util_with(rq, util, p)` on an idle rq (v5.13+ ignores its retained max): a 600-util
/// task capped at 300 waking from big CPU4, all idle (each rq retains the default 1024). v6.7
/// (uW, headroom on the utilization): the little CPUs fit by the cap (`util_fits_cpu(600, 0,
/// 300)`: 300 <= 462). With the rule the estimate clamps to the task's 300: CPU0 at 375 ->
/// 1844000 x 375 / 462 = 1496753 -> 1709 MHz, 202840 x 600 / 462 = 263428; prev CPU4 at 375 ->
/// 903 MHz, 636557 x 600 / 1024 = 372982. Without it (`uclamp_rq_idle_ignore` off, v5.6-v5.12)
/// max(300, 1024) leaves the util: CPU0 462 -> 1844 MHz, 245436 x 600 / 462 = 318748; CPU4 750
/// -> 1805 MHz, 1052270 x 600 / 1024 = 616564. CPU0 either way.
#[test]
fn an_idle_rq_s_retained_max_does_not_uncap_the_waking_task_from_v5_13() {
    let figures = |ignore: bool| {
        let mut w = hikey("v6.7");
        w.config.uclamp_rq_idle_ignore = ignore;
        let p = sleeper(&mut w, 4, 600, None, Some(300));
        let r = w.select_task_rq_fair(p, None, 4, WakeKind::Wakeup { sync: false });
        let l = last_eas(&w);
        (r.0, l.pds[0].candidate, l.pds[1].prev)
    };
    assert_eq!(figures(true), (0, Some((0, 0, 263428)), Some(372982)));
    assert_eq!(figures(false), (0, Some((0, 0, 318748)), Some(616564)));
}

/// `sched_setattr()`'s `uclamp_validate()`: min above max (with the kept request for the absent
/// one) or above 1024 is refused and changes nothing; without uclamp nothing is accepted.
#[test]
fn sched_setattr_refuses_an_inverted_or_out_of_range_pair() {
    let mut w = hikey("v6.8");
    let t = sleeper(&mut w, 0, 100, None, Some(300));
    assert!(!w.sched_setattr_uclamp(t, Some(400), None));
    assert!(!w.sched_setattr_uclamp(t, None, Some(1025)));
    assert_eq!(w.uclamp_eff_value(t, UCLAMP_MIN), 0);
    assert_eq!(w.uclamp_eff_value(t, UCLAMP_MAX), 300);
    // The sysctl ceilings limit the effective values.
    w.config.sched_util_clamp_max = 200;
    assert_eq!(w.uclamp_eff_value(t, UCLAMP_MAX), 200);
    let mut w = hikey("v4.18");
    let t = sleeper(&mut w, 0, 100, None, None);
    assert!(!w.sched_setattr_uclamp(t, Some(100), None));
    assert_eq!(w.uclamp_eff_value(t, UCLAMP_MIN), 0);
}

/// A queued task's new clamps are refcounted at once (`__sched_setscheduler()`'s dequeue and
/// enqueue around `__setscheduler_uclamp()`).
#[test]
fn setting_a_queued_task_s_clamps_updates_its_rq() {
    let mut w = hikey("v6.8");
    let t = add_task(&mut w, 4, 100);
    assert_eq!(rq_clamps(&w, 4), (0, 1024, false));
    assert!(w.sched_setattr_uclamp(t, Some(512), Some(700)));
    assert_eq!(rq_clamps(&w, 4), (512, 700, false));
}
