//! The HWP model on a Cascade Lake 8260L (v5.2, intel_pstate active): the assumed ramp per core,
//! EPP, and the kernel's dynamic boost.

use super::*;
use crate::domains::SchedDomains;
use crate::kernel::build_config;
use crate::topology::{presets::preset, Topology};
use crate::units::NSEC_PER_MSEC;

fn world(epp: u32, boost: bool) -> World {
    let t = Topology::build(&preset("cascadelake-8260l").unwrap()).unwrap();
    let mut c = build_config("v5.2", &[], None, Governor::Hwp).unwrap();
    c.hwp_epp = epp;
    c.hwp_dynamic_boost = boost;
    let d = SchedDomains::build(&t, &c).unwrap();
    World::new(t, d, c)
}

fn at(w: &mut World, ms: u64) {
    w.now = ms * NSEC_PER_MSEC;
}

fn mhz(w: &World, cpu: usize) -> u32 {
    w.hwp_pick(cpu).requested_khz / 1000
}

#[test]
fn the_v5_2_baseline_has_the_boost_and_the_default_epp() {
    let c = build_config("v5.2", &[], None, Governor::Hwp).unwrap();
    assert!(c.hwp_dynamic_boost);
    assert_eq!(c.hwp_epp, 128);
    assert!(
        !build_config("v4.16", &[], None, Governor::Hwp)
            .unwrap()
            .hwp_dynamic_boost
    );
}

#[test]
fn a_busy_core_reaches_its_peak_two_half_lives_after_idle_and_decays_once_idle() {
    // EPP 128: target activity 0.75, half-life 10 ms; min 1000, HWP max 3900 MHz.
    let mut w = world(128, true);
    at(&mut w, 0);
    assert_eq!(mhz(&w, 0), 1000);
    w.set_cpu_busy(0, true);
    // One half-life: activity 0.5 -> 1000 + 2900 x 0.5/0.75 = 2933 -> the 2.9 GHz ratio.
    at(&mut w, 10);
    assert_eq!(mhz(&w, 0), 2900);
    assert_eq!(w.hwp_pick(0).reason, HwpReason::Ramp);
    // rho(128) = 512 + 512 x 128/255 = 769/1024: the peak needs 1 - 2^(-t/h) >= 769/1024,
    // t = 2.0057 half-lives: not yet at 20 ms (activity 0.75), there at 20.1 ms.
    at(&mut w, 20);
    assert_eq!(mhz(&w, 0), 3800);
    w.now = 20 * NSEC_PER_MSEC + 100_000;
    assert_eq!(mhz(&w, 0), 3900);
    // One active core: the 2-core bin grants it. With 24 active cores the hardware caps it.
    assert_eq!(w.hwp_pick(0).granted_khz(&w), 3_900_000);
    w.active_cores[0] = 24;
    let p = w.hwp_pick(0);
    assert_eq!((p.requested_khz, p.granted_khz(&w)), (3_900_000, 3_100_000));
    assert!(p.turbo_capped(&w));
    w.active_cores[0] = 1;
    // Idle from 20 ms: activity halves every 10 ms. 30 ms: 0.375 -> 2446 -> 2400 MHz; 60 ms:
    // 0.047 -> 1181 -> 1100 MHz.
    at(&mut w, 20);
    w.set_cpu_busy(0, false);
    at(&mut w, 30);
    assert_eq!(mhz(&w, 0), 2400);
    at(&mut w, 60);
    assert_eq!(mhz(&w, 0), 1100);
    // Reading the activity changed nothing: the same answer again.
    assert_eq!(mhz(&w, 0), 1100);
}

#[test]
fn the_governor_applies_the_ramp_at_the_cores_own_evaluations() {
    let mut w = world(128, true);
    at(&mut w, 0);
    // intel_pstate starts each CPU at the minimum; an idle core's ramp asks for that too.
    assert_eq!(w.cpufreq_update(0, 0), None);
    assert_eq!(w.clocks[0].cur_khz, 1_000_000);
    w.set_cpu_busy(0, true);
    at(&mut w, 10);
    w.cpufreq_update(0, 0);
    assert_eq!(w.clocks[0].cur_khz, 2_900_000);
    // The pick is the core's: the sibling's policy shows it too, and its own evaluation of the
    // same core changes nothing.
    assert_eq!(w.policies[w.topo.cpus[48].policy].req_khz, 2_900_000);
    assert_eq!(w.cpufreq_target(48, 0), None);
}

#[test]
fn epp_sets_how_fast_and_how_far_a_core_ramps() {
    // Ten ms busy from idle (activity 0.5): EPP 0 targets 0.5, so the peak already; EPP 128
    // targets 0.75: 2.9 GHz; EPP 255 targets 1.0: 1000 + 2900 / 2 -> 2.4 GHz.
    for (epp, want) in [(0, 3900), (128, 2900), (255, 2400)] {
        let mut w = world(epp, true);
        w.set_cpu_busy(0, true);
        at(&mut w, 10);
        assert_eq!(mhz(&w, 0), want, "EPP {epp}");
    }
}

#[test]
fn no_history_moves_with_the_work_but_a_sibling_thread_shares_its_core() {
    let mut w = world(128, true);
    // CPU 0 (core 0) busy for 30 ms: at its peak.
    w.set_cpu_busy(0, true);
    at(&mut w, 30);
    assert_eq!(mhz(&w, 0), 3900);
    // The work moves to CPU 1, another core, idle so far: it starts at the lowest P-state.
    w.set_cpu_busy(0, false);
    w.set_cpu_busy(1, true);
    assert_eq!(mhz(&w, 1), 1000);
    at(&mut w, 40);
    assert_eq!(mhz(&w, 1), 2900);
    // Had it moved to CPU 48, core 0's other thread, the core's activity would have come along.
    let mut w = world(128, true);
    w.set_cpu_busy(0, true);
    at(&mut w, 30);
    w.set_cpu_busy(0, false);
    w.set_cpu_busy(48, true);
    assert_eq!(mhz(&w, 48), 3900);
}

#[test]
fn iowait_wake_ups_boost_the_hwp_min_in_three_steps_held_3_ms() {
    let mut w = world(128, true);
    // First IOWAIT update: only a candidate (the previous one is more than two ticks back).
    at(&mut w, 100);
    w.hwp_update_util(0, true, true);
    assert_eq!(mhz(&w, 0), 1000);
    // Each further one within two ticks (8 ms at HZ 250) raises the min a level:
    // (10 + 24) / 2 = 17 -> 1700 MHz, then P1 2400, then max 3900, then no further.
    let mut steps = vec![];
    for t in [101, 102, 103, 104] {
        at(&mut w, t);
        w.hwp_update_util(0, true, true);
        steps.push(mhz(&w, 0));
    }
    assert_eq!(steps, vec![1700, 2400, 3900, 3900]);
    let p = w.hwp_pick(0);
    assert_eq!(
        (p.reason, p.floor_khz),
        (HwpReason::DynamicBoost, 3_900_000)
    );
    // The hold clock started at the last raise (103 ms; 104 changed nothing). An update 3 ms
    // later is not after the hold: kept, and the clock restarts.
    at(&mut w, 106);
    w.hwp_update_util(0, false, true);
    assert_eq!(mhz(&w, 0), 3900);
    // 3.5 ms after that one: dropped, back to the ramp (an idle core: 1000 MHz).
    w.now = 109 * NSEC_PER_MSEC + 500_000;
    w.hwp_update_util(0, false, true);
    assert_eq!(mhz(&w, 0), 1000);
    assert_eq!(w.hwp_pick(0).reason, HwpReason::Ramp);
}

#[test]
fn the_boost_needs_the_hook_and_a_local_update() {
    // hwp_dynamic_boost off: no hook is installed, IOWAIT updates do nothing.
    let mut w = world(128, false);
    for t in [100, 101, 102] {
        at(&mut w, t);
        w.hwp_update_util(0, true, true);
    }
    assert_eq!(mhz(&w, 0), 1000);
    // On: a remote update only leaves its flag; the CPU's next local update acts on it.
    let mut w = world(128, true);
    at(&mut w, 100);
    w.hwp_update_util(0, true, true);
    at(&mut w, 101);
    w.hwp_update_util(0, true, false);
    assert_eq!(mhz(&w, 0), 1000);
    w.hwp_update_util(0, false, true);
    assert_eq!(mhz(&w, 0), 1700);
    // A boosted thread raises its whole core: the sibling reads the same floor.
    assert_eq!(mhz(&w, 48), 1700);
}

#[test]
fn waits_too_far_apart_never_boost() {
    // IOWAIT updates 9 ms apart (more than two 4 ms ticks): never a candidate pair.
    let mut w = world(128, true);
    for t in [100, 109, 118, 127] {
        at(&mut w, t);
        w.hwp_update_util(0, true, true);
        assert_eq!(mhz(&w, 0), 1000, "{t} ms");
    }
    // The next one within two ticks of the last: the first level.
    at(&mut w, 130);
    w.hwp_update_util(0, true, true);
    assert_eq!(mhz(&w, 0), 1700);
}

#[test]
fn the_decay_is_exact_at_whole_half_lives_and_monotonic_between() {
    let h = 10 * NSEC_PER_MSEC;
    assert_eq!(activity_after(0, true, h, h), ACT_ONE / 2);
    assert_eq!(activity_after(0, true, 2 * h, h), ACT_ONE * 3 / 4);
    assert_eq!(activity_after(ACT_ONE, false, 3 * h, h), ACT_ONE / 8);
    assert_eq!(activity_after(ACT_ONE, false, 40 * h, h), 0);
    let mut last = ACT_ONE;
    for k in 1..=100 {
        let a = activity_after(ACT_ONE, false, k * h / 50, h);
        assert!(a <= last, "{k}");
        last = a;
    }
    // Half a half-life: 2^-0.5.
    let a = activity_after(ACT_ONE, false, h / 2, h) as f64 / ACT_ONE as f64;
    assert!((a - 0.5f64.sqrt()).abs() < 1e-6, "{a}");
}

#[test]
fn a_bad_hwp_spec_is_refused() {
    let mut spec = preset("cascadelake-8260l").unwrap();
    spec.clusters[0].hwp.activity_half_life_us = 0;
    assert!(Topology::build(&spec).is_err());
    let mut spec = preset("cascadelake-8260l").unwrap();
    spec.clusters[1].hwp.target_activity_epp_255 = 2000;
    assert!(Topology::build(&spec).is_err());
    let mut c = build_config("v5.2", &[], None, Governor::Hwp).unwrap();
    c.hwp_epp = 256;
    assert!(c.validate().is_err());
}

/// Frequencies of core 0's domain over a run of one task pinned to CPU 0 doing `work_ms` of work
/// (at the 2.4 GHz reference), then sleeping `sleep_ms`, then doing the work again.
fn pinned_run(epp: u32, work_ms: u64, sleep_ms: u64) -> Vec<(u64, u32)> {
    use crate::cpumask::CpuMask;
    use crate::engine::{Engine, Limits};
    use crate::trace::TraceEvent;
    use crate::units::WORK_SCALE;
    use crate::workload::{Instance, Metric, Op, Program};
    let w = world(epp, true);
    let fd = w.topo.cpus[0].freq_domain;
    let work = Op::Run {
        work: work_ms * NSEC_PER_MSEC * WORK_SCALE,
        jitter_ppm: 0,
    };
    let ops = vec![
        Op::affinity(CpuMask::single(0)),
        Op::MarkStart,
        work.clone(),
        Op::Sleep(sleep_ms * NSEC_PER_MSEC),
        work,
        Op::MarkEnd,
        Op::Exit,
    ];
    let inst = Instance::new(
        vec![Program::new("t", ops)],
        vec![0],
        Metric::ElapsedSeconds,
    );
    let out = Engine::new(w, &inst, 1, Limits::default(), true)
        .with_invariant_checks()
        .run()
        .unwrap();
    out.trace
        .unwrap()
        .iter()
        .filter_map(|e| match *e {
            TraceEvent::Frequency { t, domain, khz } if domain == fd => Some((t, khz / 1000)),
            _ => None,
        })
        .collect()
}

#[test]
fn through_the_engine_a_busy_core_climbs_at_its_ticks_and_an_idle_one_decays() {
    let tick = 4 * NSEC_PER_MSEC;
    let f = pinned_run(128, 100, 30);
    // Starts at the lowest P-state (the preset's policies start at the minimum, so there is no
    // change to trace at t = 0): the first change is the first tick's step up, from 3.87 ms of
    // activity (the task waits out CPU 0's 133 us exit from C6 first).
    assert_eq!(f[0], (tick, 1800), "{f:?}");
    // While busy, changes only at its own ticks, upwards, reaching the peak at the first tick
    // after 20.06 ms: 24 ms (the task starts at 0 on CPU 0, the first tick is at 4 ms).
    let climb: Vec<_> = f
        .iter()
        .filter(|(t, _)| *t > 0 && *t < 30 * NSEC_PER_MSEC)
        .collect();
    assert!(climb.iter().all(|(t, _)| t % tick == 0), "{climb:?}");
    assert!(climb.windows(2).all(|w| w[0].1 < w[1].1), "{climb:?}");
    assert_eq!(climb.last().copied(), Some(&(24 * NSEC_PER_MSEC, 3900)));
    // After 30 ms of sleep the core's activity is 1/8 of what it was: the second run starts at
    // 1000 + 2900 x (1/8) / (769/1024) = 1483 -> 1400 MHz, and climbs again.
    let wake = f
        .iter()
        .find(|(t, khz)| *t > 40 * NSEC_PER_MSEC && *khz < 3900)
        .unwrap();
    assert_eq!(wake.1, 1400, "{f:?}");
    // With EPP 0 the same core is at its peak by the first tick after one half-life (12 ms).
    let f0 = pinned_run(0, 100, 30);
    let first_peak = f0.iter().find(|(_, khz)| *khz == 3900).unwrap();
    assert_eq!(first_peak.0, 12 * NSEC_PER_MSEC, "{f0:?}");
}

/// HWP's P-state search (a binary search of the domain's P-state table) finds what the
/// definition finds: the highest of the OPPs and the 100 MHz ratios from above the reference
/// frequency up to the peak that is at or below the frequency asked, else the lowest OPP; on
/// every clock of every preset, at every 10 MHz and at each P-state and either side of it.
#[test]
fn the_pstate_search_finds_the_highest_pstate_at_or_below() {
    for name in crate::topology::presets::NAMES {
        let t = Topology::build(&preset(name).unwrap()).unwrap();
        let c = build_config("v5.2", &[], None, Governor::Hwp).unwrap();
        let d = SchedDomains::build(&t, &c).unwrap();
        let w = World::new(t, d, c);
        for (fd, dom) in w.topo.freq_domains.iter().enumerate() {
            let ratios =
                dom.reference_khz() / PSTATE_SCALING_KHZ + 1..=dom.peak_khz() / PSTATE_SCALING_KHZ;
            let by_definition = |khz: u64| {
                (dom.opps_khz.iter().copied())
                    .chain(ratios.clone().map(|r| r * PSTATE_SCALING_KHZ))
                    .filter(|&f| f as u64 <= khz)
                    .max()
                    .unwrap_or(dom.min_khz())
            };
            let mut probes: Vec<u64> = (0..=700).map(|k| k * 10_000).collect();
            for &f in dom.pstates_khz() {
                probes.extend([f as u64 - 1, f as u64, f as u64 + 1]);
            }
            for khz in probes {
                assert_eq!(
                    w.hwp_pstate_at_or_below(fd, khz),
                    by_definition(khz),
                    "{name} clock {fd} at {khz} kHz"
                );
            }
        }
    }
}

/// `decay_q32()` multiplies by the set bits' half powers only: the same value, to the bit, as
/// the product over all ten bits of the fraction in order (each truncated to Q32), for every
/// fraction and every whole number of half-lives, and known points of 2^-x.
#[test]
fn decay_q32_equals_the_product_over_every_bit_of_the_fraction() {
    fn every_bit(dt: Nanos, half_life: Nanos) -> u64 {
        let n = dt / half_life;
        if n >= 32 {
            return 0;
        }
        let frac = (dt % half_life) * 1024 / half_life;
        let mut d = (1u64 << 32) >> n;
        for (j, p) in HALF_POWERS_Q32.iter().enumerate() {
            if frac & (512 >> j) != 0 {
                d = (d * p) >> 32;
            }
        }
        d
    }
    let half_life = 1024 * 977;
    for n in 0..33 {
        for frac in 0..1024 {
            let dt = n * half_life + frac * 977;
            assert_eq!(
                decay_q32(dt, half_life),
                every_bit(dt, half_life),
                "n {n}, frac {frac}"
            );
        }
    }
    // 2^0, 2^-1, 2^-1.5 (frac 512: one factor, 2^-0.5 = 3037000500 / 2^32).
    assert_eq!(decay_q32(0, half_life), 1 << 32);
    assert_eq!(decay_q32(half_life, half_life), 1 << 31);
    assert_eq!(
        decay_q32(half_life + half_life / 2, half_life),
        3_037_000_500 >> 1
    );
}
