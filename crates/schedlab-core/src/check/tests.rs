//! Each rule's arithmetic on hand-built records, LISA's profile sizing, and every LISA scenario
//! running with its checks computed.

use super::eas_behaviour::{negative_pct, observed_energy, optimal_energy, placement_line};
use super::em::LisaEm;
use super::load_tracking::{almost_equal, signal_mean};
use super::rta::{Platform, Task};
use super::*;
use crate::cpumask::CpuMask;
use crate::power::em::{EmPerfDomain, EmPerfState};

/// Two CPUs in two perf domains: CPU0 little (capacity 512 at 500 MHz: states 256 @ 100, 512 @
/// 300), CPU1 big (1024 at 1000 MHz: 512 @ 400, 1024 @ 1000).
fn two_cpu_em() -> LisaEm {
    let pd = |cpu: usize, scale: u64, table: &[(u64, u64)]| EmPerfDomain {
        cpus: CpuMask::try_from(vec![cpu]).unwrap(),
        table: table
            .iter()
            .map(|&(f, p)| EmPerfState {
                frequency_khz: f,
                power: p,
                cost: 0,
            })
            .collect(),
        scale_cpu: scale,
    };
    LisaEm::from_perf_domains(
        &[
            pd(0, 512, &[(250_000, 100), (500_000, 300)]),
            pd(1, 1024, &[(500_000, 400), (1_000_000, 1000)]),
        ],
        2,
    )
}

fn plat2() -> Platform {
    Platform {
        nr_cpus: 2,
        capacities: vec![512, 1024],
        classes: vec![vec![0], vec![1]],
        hz: 250,
        freqs_khz: vec![vec![250_000, 500_000], vec![500_000, 1_000_000]],
    }
}

#[test]
fn placement_rule_margin() {
    // 10% above the best: FAIL at LISA's default 5%, PASS at ThreeSmallTasks' 20%.
    assert!(!placement_line("v", 110.0, 100.0, 5.0).pass);
    assert!(placement_line("v", 110.0, 100.0, 20.0).pass);
    // The bound is strict (`est_energy < threshold`).
    assert!(!placement_line("v", 105.0, 100.0, 5.0).pass);
}

#[test]
fn em_estimate_and_optimal_by_hand() {
    let em = two_cpu_em();
    assert_eq!(em.capacity_scale, 1024.0);
    // util 200 on the little: lowest OPP covering it is 256 @ 100: 100 * 200/256 = 78.125.
    assert_eq!(em.estimate_from_cpu_util(&[200.0, 0.0]), 78.125);
    // On the big: 512 @ 400: 400 * 200/512 = 156.25.
    assert_eq!(em.estimate_from_cpu_util(&[0.0, 200.0]), 156.25);
    // Over the little's top capacity: overutilized, not a candidate.
    assert!(em.guess_freqs(&[600.0, 0.0]).1);
    // One task of 200: the little is best.
    let (p, utils) = em.optimal(&[200.0]).unwrap();
    assert_eq!((p, utils), (78.125, vec![200.0, 0.0]));
    // Two of 400: both on the little would need 800 > 512 (overutilized); little + big:
    // 300 * 400/512 + 400 * 400/512 = 546.875; both on the big at 1024: 1000 * 800/1024 = 781.25.
    let (p, utils) = em.optimal(&[400.0, 400.0]).unwrap();
    assert_eq!((p, utils), (546.875, vec![400.0, 400.0]));
    // Beyond the machine: none.
    assert!(em.optimal(&[1000.0, 1000.0]).is_none());
}

#[test]
fn placement_energy_of_a_trace() {
    let em = two_cpu_em();
    // One task of 50% of 400 (duty 50 -> util 512) for 1 s: a 512 util fits the little's top
    // OPP exactly (300 x 1), or the big's 512 state (400 x 1).
    let tasks = vec![Task::periodic("t", 50, 1_000_000, 0, None)];
    let best = optimal_energy(&em, &tasks).unwrap();
    assert!((best - 300.0).abs() < 1e-9, "{best}");
    // Observed on the big from t = 10 ms to the end: 400 bogo-W for 1 s.
    let start = 10_000_000;
    let on_big = observed_energy(&em, &tasks, start, &[(start, 0, 1)]);
    assert!((on_big - 400.0).abs() < 1e-9, "{on_big}");
    // On the little for the first half, then the big.
    let mixed = observed_energy(
        &em,
        &tasks,
        start,
        &[(start, 0, 0), (start + 500_000_000, 0, 1)],
    );
    assert!((mixed - 350.0).abs() < 1e-9, "{mixed}");
    // 400 is 33% above 300: FAIL at 5%; the mixed run is 16.7% above: FAIL at 15, PASS at 18.
    assert!(!placement_line("v", on_big, best, 5.0).pass);
    assert!(!placement_line("v", mixed, best, 15.0).pass);
    assert!(placement_line("v", mixed, best, 18.0).pass);
}

#[test]
fn slack_rule() {
    assert_eq!(negative_pct(&[-1, 5, 3, -2]), 50.0);
    assert_eq!(negative_pct(&[]), 0.0);
    let tasks = vec![Task::periodic("t", 10, 1_000_000, 0, None)];
    let mut tl = Timeline {
        slacks: vec![vec![1; 17]],
        ..Timeline::default()
    };
    // 2 negative of 17 (11.8%) pass at 15%; 3 of 17 (17.6%) fail.
    tl.slacks[0][..2].fill(-1);
    assert!(eas_behaviour::test_slack("v", &tasks, &tl, 15.0)[0].pass);
    tl.slacks[0][2] = -1;
    assert!(!eas_behaviour::test_slack("v", &tasks, &tl, 15.0)[0].pass);
}

#[test]
fn misfit_idle_rules() {
    // CPU1 (big) busy 0-10 ms and 12-20 ms: idle 2 ms within a little's run of 0-20 ms.
    let tl = Timeline {
        cpu_busy: vec![vec![], vec![(0, 10_000_000), (12_000_000, 20_000_000)]],
        ..Timeline::default()
    };
    assert_eq!(tl.max_idle(1, 0, 20_000_000), 2_000_000);
    assert_eq!(tl.max_idle(1, 0, 10_000_000), 0);
    // After the last busy span the CPU idles to the window's end.
    assert_eq!(tl.max_idle(1, 15_000_000, 25_000_000), 5_000_000);
    assert_eq!(tl.max_idle(0, 0, 3), 3);
    let span = Span {
        start: 0,
        end: 20_000_000,
        cpu: 0,
    };
    assert_eq!(misfit::max_idle_over(&tl, &[span], &[1]), (2_000_000, 1));
}

#[test]
fn invariance_rule() {
    // A triangle 0 -> 100 -> 0 over 2 s: mean 50.
    let s = [(0, 0.0), (1_000_000_000, 100.0), (2_000_000_000, 0.0)];
    assert_eq!(signal_mean(&s), Some(50.0));
    assert!(almost_equal(100.0, 114.9, 15.0));
    assert!(!almost_equal(100.0, 115.1, 15.0));
    assert!(!almost_equal(100.0, 84.9, 15.0));
}

#[test]
fn profiles_sized_from_the_platform() {
    let p = plat2();
    // 50% of the little's 512: int(512 / 1024 * 50) = 25% of the big.
    let small = LisaTest::OneSmallTask.profile(&p);
    assert_eq!(small[0].phases[0].duty_pct, 25);
    // 16 ms period, 25%: sleep 16000 * 75 / 100 = 12000, run 4000, 1 s / 16 ms = 62 loops.
    assert_eq!(small[0].phases[0].events(), (62, 4000, 12000));
    // RampUp: int(512 * 10 / 1024) = 5% to 70%, steps of 5: 5, 10, ..., 70.
    let ramp = LisaTest::RampUp.profile(&p);
    let steps: Vec<u32> = ramp[0].phases.iter().map(|ph| ph.duty_pct).collect();
    assert_eq!(steps, (1..=14).map(|i| i * 5).collect::<Vec<u32>>());
    // RampDown clips its last step: 70, 65, ..., 10, then 5.
    let down = LisaTest::RampDown.profile(&p);
    let steps: Vec<u32> = down[0].phases.iter().map(|ph| ph.duty_pct).collect();
    assert_eq!(steps.first(), Some(&70));
    assert_eq!(steps.last(), Some(&5));
    assert_eq!(steps.len(), 14);
    // EnergyModelWakeMigration: one task per big CPU, 10% -> 70%, twice.
    let emwm = LisaTest::EnergyModelWakeMigration.profile(&p);
    assert_eq!(emwm.len(), 1);
    assert_eq!(emwm[0].loops, 2);
    let steps: Vec<u32> = emwm[0].phases.iter().map(|ph| ph.duty_pct).collect();
    assert_eq!(steps, [10, 70]);
    // StaggeredFinishes on 2 CPUs at HZ 250: max lb interval (250 * 2 // 10) / 250 = 0.2 s;
    // free time 0.22 s; stagger 0.22 // 20 = 0.
    let mis = LisaTest::StaggeredFinishes.profile(&p);
    assert_eq!(mis[1].delay_us, 1_000_000);
    assert_eq!(mis[1].phases[0].cpus, Some(vec![1]));
    assert_eq!(mis[1].phases[1].duration_us, 220_000);
    assert_eq!(mis[0].phases[1].duration_us, mis[1].phases[1].duration_us);
}

#[test]
fn scenario_names_round_trip() {
    let names = scenario_names();
    assert_eq!(names.len(), 18);
    for n in &names {
        let (t, p) = test_of(n).unwrap();
        assert_eq!(format!("lisa-{p}-{}", t.slug()), *n);
    }
    assert!(test_of("lisa-juno-r2-nope").is_none());
    assert!(scenario("juno-use-all-littles").is_none());
}

/// Every LISA scenario plans, runs and computes its rules (a FAIL is a result; an undefined
/// figure is not).
#[test]
fn every_lisa_scenario_runs_and_checks() {
    for n in scenario_names() {
        let s = scenario(&n).unwrap().unwrap();
        // The JSON round trip a user gets from `schedlab show`.
        assert_eq!(Scenario::from_json(&s.to_json()).unwrap(), s);
        let plan = Plan::new(&s).unwrap();
        let lines = check(&plan).unwrap().unwrap();
        assert!(!lines.is_empty(), "{n}");
        for l in &lines {
            assert!(l.observed.is_finite(), "{n}: {}", l.to_text());
        }
    }
}

/// The placement rule tells EAS from no EAS: HiKey960's three small tasks fit the littles; with
/// feec (v6.12) the placement is within ThreeSmallTasks' 20% of the optimum, without EAS
/// (`eas: none`, same kernel otherwise) the wake-up path spreads them over big CPUs and fails.
#[test]
fn three_small_tasks_placement_needs_eas() {
    let mut s = scenario("lisa-hikey960-three-small-tasks")
        .unwrap()
        .unwrap();
    let mut off = s.variants[0].clone();
    off.name = "no-eas".into();
    off.config = Some(serde_json::json!({"eas": "none"}));
    s.variants.push(off);
    let plan = Plan::new(&s).unwrap();
    let lines = check(&plan).unwrap().unwrap();
    let placement = |v: &str| {
        lines
            .iter()
            .find(|l| l.variant == v && l.rule == "test_task_placement")
            .unwrap()
            .pass
    };
    assert!(placement(BASELINE));
    assert!(!placement("no-eas"));
}
