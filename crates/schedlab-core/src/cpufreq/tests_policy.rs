//! Per-CPU intel_cpufreq policies on a shared core clock, the busy hold on them, the iowait boost
//! of each era, the tick-sampled x86 frequency scale and the frequency decisions in the log.

use crate::domains::SchedDomains;
use crate::kernel::{build_config, Governor, IowaitBoost};
use crate::sched::log::{Decision, FreqWhy};
use crate::sched::World;
use crate::topology::{presets::preset, FreqDomainSpan, Topology};

use super::SCHED_CPUFREQ_IOWAIT;

/// Cascade Lake on v5.2 with schedutil; `fi`: the x86-freq-invariance patch; `per_cpu`: the
/// preset's per-CPU policies (else one policy per core, the clock's span).
fn clx(fi: bool, per_cpu: bool) -> World {
    let mut spec = preset("cascadelake-8260l").unwrap();
    if !per_cpu {
        for c in &mut spec.clusters {
            c.cpufreq_policy = None;
        }
    }
    let t = Topology::build(&spec).unwrap();
    let patches: Vec<String> = if fi {
        vec!["x86-freq-invariance".into()]
    } else {
        vec![]
    };
    let mut c = build_config("v5.2", &patches, None, Governor::Schedutil).unwrap();
    c.frequency_invariance = fi;
    let d = SchedDomains::build(&t, &c).unwrap();
    World::new(t, d, c)
}

fn util(w: &mut World, cpu: usize, u: u64) {
    w.rqs[cpu].avg.util_avg = u;
    w.rqs[cpu].util_est_enqueued = 0;
}

#[test]
fn hyperthreads_have_their_own_policies_and_the_core_runs_at_the_higher_request() {
    // Invariant schedutil: 1.25 x 3.9 GHz x util/1024. CPU 0 util 252 -> 1.2 GHz, its sibling
    // CPU 48 util 588 -> 2.8 GHz.
    let mut w = clx(true, true);
    let (p0, p48) = (w.topo.cpus[0].policy, w.topo.cpus[48].policy);
    let fd = w.topo.cpus[0].freq_domain;
    assert_ne!(p0, p48);
    assert_eq!(w.topo.cpus[48].freq_domain, fd);
    // intel_cpufreq_cpu_init(): policy->cur starts at cpuinfo.min_freq.
    assert_eq!(w.policies[p0].req_khz, 1_000_000);
    util(&mut w, 0, 252);
    util(&mut w, 48, 588);
    w.cpufreq_update(0, 0);
    w.cpufreq_update(48, 0);
    assert_eq!(w.policies[p0].req_khz, 1_200_000);
    assert_eq!(w.policies[p48].req_khz, 2_800_000);
    assert_eq!(w.clocks[fd].cur_khz, 2_800_000);
    // One policy per core (the old model): sugov_next_freq_shared() gives both threads 2.8 GHz.
    let mut w = clx(true, false);
    let p = w.topo.cpus[0].policy;
    assert_eq!(w.topo.cpus[48].policy, p);
    util(&mut w, 0, 252);
    util(&mut w, 48, 588);
    w.cpufreq_update(0, 0);
    assert_eq!(w.policies[p].req_khz, 2_800_000);
}

#[test]
fn the_busy_hold_applies_to_each_hyperthreads_own_policy() {
    // sugov_update_single(): a policy whose CPU has not idled since its last update does not
    // lower its request. A shared (per-core) policy has no busy hold.
    for (per_cpu, busy_hold, want) in [
        (true, true, 3_900_000),
        (false, true, 1_200_000),
        (true, false, 1_200_000),
    ] {
        let mut w = clx(true, per_cpu);
        // v5.2 has the busy hold; the off case is the pre-v4.12 rule.
        if !busy_hold {
            w.config.schedutil_busy_hold = false;
        }
        let p = w.topo.cpus[0].policy;
        util(&mut w, 0, 1000);
        w.cpufreq_update(0, 0);
        assert_eq!(w.policies[p].req_khz, 3_900_000);
        w.now += 10_000_000;
        util(&mut w, 0, 250);
        w.cpufreq_update(0, 0);
        assert_eq!(
            w.policies[p].req_khz, want,
            "per_cpu {per_cpu} busy_hold {busy_hold}"
        );
    }
}

/// Four IOWAIT wake-ups then four plain updates of an idle-between CPU 0 with no utilization,
/// 600 us apart (past the 500 us rate limit, within a 4 ms tick): the requests.
fn iowait_run(w: &mut World) -> (Vec<u32>, Vec<u64>) {
    let p = w.topo.cpus[0].policy;
    let (mut reqs, mut boosts) = (Vec::new(), Vec::new());
    for i in 0..8 {
        w.now += 600_000;
        // The CPU idled in between (the task slept on I/O): no busy hold.
        w.idle_calls[0] += 1;
        let flags = if i < 4 { SCHED_CPUFREQ_IOWAIT } else { 0 };
        if let Some(f) = w.cpufreq_target(0, flags) {
            w.set_frequency(p, f);
        }
        reqs.push(w.policies[p].req_khz / 1000);
        boosts.push(w.sg_cpu[0].iowait_boost);
    }
    (reqs, boosts)
}

#[test]
fn iowait_boost_doubles_from_an_eighth_per_iowait_wakeup_and_halves_when_not_renewed() {
    let mut w = clx(true, true);
    util(&mut w, 0, 0);
    let (reqs, boosts) = iowait_run(&mut w);
    // v5.2: 128, 256, 512, 1024 (1.25 x 3.9 GHz x boost/1024 -> 1.0, 1.3, 2.5, 3.9 GHz), then
    // 512, 256, 128 and off.
    assert_eq!(boosts, [128, 256, 512, 1024, 512, 256, 128, 0]);
    assert_eq!(reqs, [1000, 1300, 2500, 3900, 2500, 1300, 1000, 1000]);
    // v4.18-v5.0: in frequencies from policy->min (1.0 GHz) to cpuinfo.max_freq (3.9 GHz);
    // halved to 975 MHz, below policy->min, it ends.
    let mut w = clx(true, true);
    w.config.schedutil_iowait_boost = IowaitBoost::DoublingFreqReset;
    util(&mut w, 0, 0);
    let (reqs, _) = iowait_run(&mut w);
    assert_eq!(reqs, [1300, 2500, 3900, 3900, 2500, 1000, 1000, 1000]);
    // v4.9-v4.15: straight to cpuinfo.max_freq at every IOWAIT wake-up.
    let mut w = clx(true, true);
    w.config.schedutil_iowait_boost = IowaitBoost::MaxFreq;
    util(&mut w, 0, 0);
    let (reqs, _) = iowait_run(&mut w);
    assert_eq!(reqs, [3900, 3900, 3900, 3900, 2500, 1300, 1000, 1000]);
}

#[test]
fn iowait_boost_is_reset_after_a_tick_without_update() {
    let mut w = clx(true, true);
    util(&mut w, 0, 0);
    for _ in 0..3 {
        w.now += 600_000;
        w.idle_calls[0] += 1;
        w.cpufreq_update(0, SCHED_CPUFREQ_IOWAIT);
    }
    assert_eq!(w.sg_cpu[0].iowait_boost, 512);
    // More than a tick later: sugov_iowait_reset() restarts at IOWAIT_BOOST_MIN.
    w.now += w.config.tick_ns() + 1;
    w.cpufreq_update(0, SCHED_CPUFREQ_IOWAIT);
    assert_eq!(w.sg_cpu[0].iowait_boost, 128);
    // v4.16-v4.17 (no reset on an IOWAIT update): it doubles on.
    let mut w = clx(true, true);
    w.config.schedutil_iowait_boost = IowaitBoost::DoublingFreq;
    util(&mut w, 0, 0);
    for _ in 0..2 {
        w.now += 600_000;
        w.idle_calls[0] += 1;
        w.cpufreq_update(0, SCHED_CPUFREQ_IOWAIT);
    }
    assert_eq!(w.sg_cpu[0].iowait_boost, 2_000_000);
    w.now += w.config.tick_ns() + 1;
    w.cpufreq_update(0, SCHED_CPUFREQ_IOWAIT);
    assert_eq!(w.sg_cpu[0].iowait_boost, 3_900_000);
}

#[test]
fn the_x86_tick_samples_the_average_busy_frequency_and_goes_stale_on_an_idle_cpu() {
    for tick_sampled in [true, false] {
        // The x86-freq-invariance patch sets freq_scale_tick; the off case is arm's rule.
        let mut w = clx(true, true);
        if !tick_sampled {
            w.config.freq_scale_tick = false;
        }
        let p = w.topo.cpus[0].policy;
        let tick = w.config.tick_ns();
        w.set_frequency(p, 2_400_000);
        w.set_cpu_busy(0, true);
        w.now = tick / 2;
        w.set_frequency(p, 3_600_000);
        w.now = tick;
        w.arch_scale_freq_tick(0);
        // The average, 3.0 GHz: (3.0 GHz << 20) / (2.4 GHz x floor(37 x 1024 / 24)) = 830.
        // Without tick sampling, the current 3.6 GHz: 996.
        let want = if tick_sampled { 830 } else { 996 };
        assert_eq!(w.freq_scale(0), want, "tick sampled {tick_sampled}");
        // The CPU idles, its tick stops; the clock drops to 1.0 GHz. The scale keeps the last
        // tick's value (MPERF does not count outside C0), not 1.0 GHz's 276.
        w.set_cpu_busy(0, false);
        w.now = tick + tick / 4;
        w.set_frequency(p, 1_000_000);
        w.now = 3 * tick;
        w.arch_scale_freq_tick(0);
        let want = if tick_sampled { 830 } else { 276 };
        assert_eq!(w.freq_scale(0), want, "tick sampled {tick_sampled}");
    }
}

#[test]
fn frequency_decisions_are_logged_with_their_reason_when_traced() {
    let mut w = clx(true, true);
    w.log = Some(Vec::new());
    util(&mut w, 0, 588);
    util(&mut w, 48, 252);
    w.cpufreq_update(0, 0);
    w.cpufreq_update(48, 0);
    // Within the rate limit: a different request held back.
    w.now += 100_000;
    util(&mut w, 0, 1000);
    w.cpufreq_update(0, 0);
    // No change at all: nothing logged.
    w.now += 1_000_000;
    util(&mut w, 48, 252);
    w.cpufreq_update(48, 0);
    let log = w.log.take().unwrap();
    let f: Vec<_> = log
        .iter()
        .map(|d| match d {
            Decision::Freq(f) => (f.cpu, f.req_khz / 1000, f.granted_khz / 1000, f.why),
            _ => panic!("{d:?}"),
        })
        .collect();
    assert_eq!(
        f,
        [
            (0, 2800, 2800, FreqWhy::Util),
            (48, 1200, 2800, FreqWhy::Util),
            (0, 3900, 2800, FreqWhy::RateLimited),
        ]
    );
    // With 24 active cores a 3.9 GHz request runs at the 24-core bin's 3.1 GHz; down to 2 active
    // cores, the hardware lifts the cap: a turbo-cap entry, no governor involved.
    let mut w2 = clx(true, true);
    w2.log = Some(Vec::new());
    let pkg = w2.topo.cpus[0].package;
    w2.active_cores[pkg] = 24;
    let fd = w2.topo.cpus[0].freq_domain;
    w2.set_frequency(w2.topo.cpus[0].policy, 3_900_000);
    assert_eq!(w2.clocks[fd].cur_khz, 3_100_000);
    w2.active_cores[pkg] = 2;
    let khz = w2.turbo_capped_khz(fd).unwrap();
    w2.apply_turbo_cap(fd, khz);
    let Some(Decision::Freq(cap)) = w2.log.unwrap().pop() else {
        panic!("no turbo cap logged")
    };
    assert_eq!(
        (cap.req_khz, cap.granted_khz, cap.why),
        (3_900_000, 3_900_000, FreqWhy::TurboCap)
    );
    let text = log[1].to_text(&|t| format!("t{t}"));
    assert_eq!(
        text,
        "    0.000000 CPU48 policy1 util: util 252/1024 ref 3900 MHz, asks 1200 MHz, runs 2800 MHz"
    );
}

#[test]
fn a_policy_may_not_be_wider_than_its_clock() {
    let mut spec = preset("cascadelake-8260l").unwrap();
    spec.clusters[0].cpufreq_policy = Some(FreqDomainSpan::Cluster);
    assert!(Topology::build(&spec).is_err());
}
