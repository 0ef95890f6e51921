//! The pre-v5.5 balancer's rules on small hand-built cases, each against the era (or balancer)
//! without the rule.

use super::super::balance::{CpuIdleType, GroupType};
use super::super::log::{BalanceDecision, Decision, LegacyImbalancePath};
use super::super::tests::{add_task, settle, world};
use super::super::World;
use crate::cpumask::CpuMask;
use crate::kernel::{LegacyLb, LoadBalancer, NohzKick};

/// The last balance decision of a logged world.
fn last_balance(w: &World) -> BalanceDecision {
    match w.log.as_ref().and_then(|l| l.last()) {
        Some(Decision::Balance(b)) => b.clone(),
        other => panic!("no balance decision: {other:?}"),
    }
}

/// HiKey960 DynamIQ with the RFC (asym packing at MC, priority = capacity): a CPU-bound task on
/// little CPU1; big CPU4 is idle.
fn dynamiq_one_little_task(lb: LegacyLb) -> World {
    let mut w = world("hikey960-dynamiq", "v4.16", &["dynamiq-asym-packing"]);
    w.config.lb_legacy = lb;
    add_task(&mut w, 1, 462);
    w
}

#[test]
fn v4_16_asym_packing_pulls_at_once_only_when_newly_idle() {
    // v4.16 need_active_balance(): the asym test is inside `if (env->idle == CPU_NEWLY_IDLE)`.
    let mut w = dynamiq_one_little_task(LegacyLb::v4_16());
    w.log = Some(Vec::new());
    let out = w.load_balance(4, 0, CpuIdleType::NewlyIdle);
    assert!(out.active, "{out:?}");
    assert_eq!(w.pending_active, vec![(1, 4)]);
    let b = last_balance(&w);
    assert_eq!(
        b.legacy.map(|l| l.path),
        Some(LegacyImbalancePath::CheckAsymPacking)
    );
    assert_eq!(b.migration_type, None, "no migration type before v5.5");
    // "We've kicked active balancing, force task migration": cache_nice_tries (1 at MC) + 1.
    assert_eq!(w.sd_state(4, 0).nr_balance_failed, 2);
}

#[test]
fn v4_16_asym_packing_on_an_idle_cpu_waits_for_the_fourth_failure() {
    // CPU_IDLE (nohz idle balance): only `nr_balance_failed > cache_nice_tries + 2` (1 + 2 at
    // MC) kicks the active balance: passes 1-3 fail, the 4th pulls.
    let mut w = dynamiq_one_little_task(LegacyLb::v4_16());
    for pass in 1..=3 {
        let out = w.load_balance(4, 0, CpuIdleType::Idle);
        assert!(!out.active && out.moved == 0, "pass {pass}: {out:?}");
        assert_eq!(w.sd_state(4, 0).nr_balance_failed, pass);
    }
    assert!(w.load_balance(4, 0, CpuIdleType::Idle).active);
    assert_eq!(w.pending_active, vec![(1, 4)]);
    assert_eq!(w.sd_state(4, 0).nr_balance_failed, 2);
    // v5.1+ asym_active_balance(): any idle type pulls at the first pass.
    let mut w = dynamiq_one_little_task(LegacyLb::v5_2());
    assert!(w.load_balance(4, 0, CpuIdleType::Idle).active);
    // So does the rework.
    let mut w = dynamiq_one_little_task(LegacyLb::v4_16());
    w.config.load_balancer = LoadBalancer::Rework;
    assert!(w.load_balance(4, 0, CpuIdleType::Idle).active);
}

/// Classic HiKey960 (v4.16), the little cluster's MC: CPU0 runs two tasks, CPUs 1-3 one each.
fn littles_two_on_cpu0() -> World {
    let mut w = world("hikey960", "v4.16", &[]);
    for cpu in [0, 0, 1, 2, 3] {
        add_task(&mut w, cpu, 100);
    }
    w.log = Some(Vec::new());
    w
}

#[test]
fn fix_small_imbalance_moves_one_task_where_the_average_moves_none() {
    // Busy CPU1's MC balance: avg_load per capacity c is 2048/c (busiest), 1024/c (local),
    // 1280/c (domain): calculate_imbalance() gives min(768, 256) = 256 load, below one task's
    // 1024 (and under detach_tasks()'s load/2 test). fix_small_imbalance(): busiest avg +
    // one task >= local avg + 2 tasks, so the imbalance becomes one task's load and one moves.
    let mut w = littles_two_on_cpu0();
    let out = w.load_balance(1, 0, CpuIdleType::NotIdle);
    assert_eq!(out.moved, 1);
    assert_eq!(w.rqs[1].nr_running, 2);
    let b = last_balance(&w);
    let l = b.legacy.unwrap();
    assert_eq!(l.path, LegacyImbalancePath::CalculateImbalance);
    assert_eq!(l.fix_small_imbalance, Some(true));
    assert_eq!(b.imbalance, 1024);
    assert_eq!(b.groups[b.busiest.unwrap()].group_type, GroupType::Other);
    let text = Decision::Balance(b).to_text(&|t| format!("t{t}"));
    assert!(
        text.contains("group_other") && text.contains("fix_small_imbalance"),
        "{text}"
    );
    // The rework's migrate_load imbalance is the same 256, and a 1024 task is more: none moves.
    let mut w = littles_two_on_cpu0();
    w.config.load_balancer = LoadBalancer::Rework;
    assert_eq!(w.load_balance(1, 0, CpuIdleType::NotIdle).moved, 0);
}

/// Classic HiKey960 (v4.16): three tasks on big CPU4; little CPU0 balances DIE while idle.
fn three_on_cpu4(imbalanced: bool) -> World {
    let mut w = world("hikey960", "v4.16", &[]);
    for _ in 0..3 {
        add_task(&mut w, 4, 300);
    }
    let die = w.sd.per_cpu[0][1];
    let big = w.sd.domains[die].local_group(4);
    // v4.16 sets SD_PREFER_SIBLING on MC too, and with it the busiest group's 3 tasks (more than
    // the local 0 + 1) would force the balance on their own; without it only sg_imbalanced() can.
    for cpu in [0, 4] {
        let mc = w.sd.per_cpu[cpu][0];
        w.sd.domains[mc].flags &= !crate::domains::flags::SD_PREFER_SIBLING;
    }
    // As a pass at MC leaves it when affinity kept it from reaching balance.
    w.group_imbalance[die][big] = imbalanced;
    w.log = Some(Vec::new());
    w
}

#[test]
fn group_imbalanced_forces_a_balance_the_idle_cpu_rule_would_skip() {
    // group_other: an idle CPU's balance is skipped while its group has at most one idle CPU
    // more than the busiest (4 <= 3 + 1).
    let mut w = three_on_cpu4(false);
    assert_eq!(w.load_balance(0, 1, CpuIdleType::Idle).moved, 0);
    assert_eq!(
        last_balance(&w).result,
        super::super::log::BalanceResult::Balanced
    );
    // sg_imbalanced(): group_imbalanced goes to force_balance.
    let mut w = three_on_cpu4(true);
    assert_eq!(w.load_balance(0, 1, CpuIdleType::Idle).moved, 1);
    let b = last_balance(&w);
    assert_eq!(
        b.groups[b.busiest.unwrap()].group_type,
        GroupType::Imbalanced
    );
    assert_eq!(b.legacy.unwrap().path, LegacyImbalancePath::ForceBalance);
    // Both balancers have the rule (the rework moves one task, migrate_task); it is the flag, set
    // by affinity below, that makes the difference.
}

#[test]
fn v4_16_clears_the_affinity_flag_its_own_all_pinned_redo_set() {
    // Three tasks pinned to CPU4; CPU5's MC balance cannot move them and flags the big group at
    // DIE; LBF_ALL_PINNED then redoes without CPU4, finds nothing and reaches out_balanced,
    // which in v4.16 clears the flag again. v5.4 keeps it while LBF_ALL_PINNED is set.
    let flagged = |lb: LegacyLb| {
        let mut w = world("hikey960", "v4.16", &[]);
        w.config.lb_legacy = lb;
        for _ in 0..3 {
            let t = add_task(&mut w, 4, 300);
            w.tasks[t].allowed = CpuMask::single(4);
        }
        assert_eq!(w.load_balance(5, 0, CpuIdleType::Idle).moved, 0);
        let die = w.sd.per_cpu[5][1];
        w.group_imbalance[die][w.sd.domains[die].local_group(5)]
    };
    assert!(!flagged(LegacyLb::v4_16()));
    assert!(!flagged(LegacyLb::v5_2()));
    assert!(flagged(LegacyLb::v5_4()));
}

/// TC2 with the 2016 series on v4.9: one CPU-bound task on each A15 (CPUs 0, 1); A7 CPU2 idle,
/// three failed DIE balances behind it.
fn tc2_busy_a15s(guard: bool) -> World {
    let mut w = world("tc2", "v4.9", &["asym-cpu-capacity-2016"]);
    if !guard {
        // v4.9 with the series' topology and wake-up parts but not 9e0994c0a1c1.
        w.config.lb_legacy.pick_busiest_capacity_guard = false;
    }
    add_task(&mut w, 0, 1024);
    add_task(&mut w, 1, 1024);
    assert_eq!(w.sd.per_cpu[2].len(), 2);
    w.sd_state_mut(2, 1).nr_balance_failed = 3;
    w
}

#[test]
fn the_2016_series_keeps_an_idle_a7_from_pulling_an_a15_task() {
    // Without group_smaller_cpu_capacity(): the A15 group is the busiest, fix_small_imbalance()
    // asks for one task, each A15 runs only one, so the pass fails; the 4th failure at DIE
    // (cache_nice_tries 1 + 2) starts an active balance that pulls a task onto the A7.
    let mut w = tc2_busy_a15s(false);
    let out = w.load_balance(2, 1, CpuIdleType::Idle);
    assert!(out.active, "{out:?}");
    // With it, the A15 group runs no more than a task per CPU on bigger CPUs: no busiest.
    let mut w = tc2_busy_a15s(true);
    let out = w.load_balance(2, 1, CpuIdleType::Idle);
    assert!(!out.active && out.moved == 0, "{out:?}");
    assert_eq!(w.sd_state(2, 1).nr_balance_failed, 0, "balanced");
}

#[test]
fn detach_tasks_moves_up_to_twice_the_imbalance_and_waits_out_cache_hot_tasks() {
    // Two tasks on CPU0 (little MC); CPU1 idle. The queued task's load is 1024.
    let setup = |hot: bool| {
        let mut w = world("hikey960", "v4.16", &[]);
        add_task(&mut w, 0, 100);
        let q = add_task(&mut w, 0, 100);
        if hot {
            w.tasks[q].exec_start = w.now;
        }
        settle(&mut w);
        let mut env = w.lb_env(1, 0, CpuIdleType::Idle);
        env.src_cpu = 0;
        (w, env)
    };
    // load / 2 = 512 > 400: skipped; 512 <= 600: moved (the rework's migrate_load needs
    // load >> nr_balance_failed <= imbalance).
    let (mut w, mut env) = setup(false);
    env.imbalance = 400;
    assert_eq!(w.detach_tasks_v4(&mut env), 0);
    env.imbalance = 600;
    assert_eq!(w.detach_tasks_v4(&mut env), 1);
    // A cache-hot task moves only once nr_balance_failed > cache_nice_tries (1 at MC).
    for (failed, moved) in [(0, 0), (1, 0), (2, 1)] {
        let (mut w, mut env) = setup(true);
        w.sd_state_mut(1, 0).nr_balance_failed = failed;
        env.imbalance = 1024;
        assert_eq!(
            w.detach_tasks_v4(&mut env),
            moved,
            "nr_balance_failed {failed}"
        );
    }
}

#[test]
fn v4_nohz_kick_keeps_the_llc_rule_on_asymmetric_systems() {
    // TC2 with the 2016 series (SD_ASYM_CPUCAPACITY at DIE): both A15s busy with one task each,
    // the A7s idle. v4.9's nohz_kick_needed(): two busy CPUs in the LLC kick the idle balancer.
    // v5.1+ skips the LLC test under sd_asym_cpucapacity (no misfit here): no kick.
    let kicked = |kick: Option<NohzKick>| {
        let mut w = world("tc2", "v4.9", &["asym-cpu-capacity-2016"]);
        if let Some(k) = kick {
            w.config.nohz_kick = k;
        }
        add_task(&mut w, 0, 1024);
        add_task(&mut w, 1, 1024);
        assert!(w.sd.sd_asym_cpucapacity[0].is_some());
        w.nohz_balancer_kick(0)
    };
    assert_eq!(kicked(None), Some(2), "v4.9");
    assert_eq!(kicked(Some(NohzKick::BalancerKick)), None);
}

/// Classic HiKey960: idle little CPU0, tasks on CPUs 1-3 (local group has capacity); five on the
/// bigs (two on CPU4): the big group is overloaded but its avg_load (5120 / 4096) is below both
/// the domain's (8192 / 5944) and the local group's (3072 / 1848).
fn overloaded_but_light_bigs(lb: LegacyLb) -> World {
    let mut w = world("hikey960", "v4.16", &[]);
    w.config.lb_legacy = lb;
    for cpu in [1, 2, 3] {
        add_task(&mut w, cpu, 400);
    }
    for (cpu, util) in [(4, 512), (4, 512), (5, 1024), (6, 1024), (7, 1024)] {
        add_task(&mut w, cpu, util);
    }
    w.log = Some(Vec::new());
    w
}

#[test]
fn an_idle_cpu_forces_a_balance_against_an_overloaded_group_from_v4_16() {
    use super::super::log::BalanceResult;
    // DIE's balance_interval starts at max_interval (16 ms here) to show the pinned back-off.
    let run = |lb: LegacyLb| {
        let mut w = overloaded_but_light_bigs(lb);
        let max = w.sd.domains[w.sd.per_cpu[0][1]].max_interval;
        w.sd_state_mut(0, 1).balance_interval = max;
        w.load_balance(0, 1, CpuIdleType::Idle);
        (w.sd_state(0, 1).balance_interval / max, w)
    };
    // v4.9 forces only when newly idle: as an idle CPU, local avg_load >= busiest's: balanced.
    let (backoff, w) = run(LegacyLb::v4_9());
    let b = last_balance(&w);
    assert_eq!(
        (b.result, b.busiest, backoff),
        (BalanceResult::Balanced, None, 1)
    );
    // v4.16 forces for any idle type: calculate_imbalance() finds the busiest below the domain's
    // average and fix_small_imbalance() nothing to gain, yet the group is returned with imbalance
    // 0; detach_tasks() returns at once, LBF_ALL_PINNED is still set, so the pass redoes without
    // CPU4, finds balance, and backs off as a pinned pass does (up to 512 ms, past max_interval).
    let (backoff, w) = run(LegacyLb::v4_16());
    assert_eq!(
        (last_balance(&w).result, backoff),
        (BalanceResult::Balanced, 2)
    );
    // v4.20 ("return env->imbalance ? sds.busiest : NULL"): balanced at once, a plain back-off.
    let (backoff, w) = run(LegacyLb::v4_20());
    assert_eq!(
        (last_balance(&w).result, backoff),
        (BalanceResult::Balanced, 1)
    );
}

#[test]
fn v4_x_backs_off_after_a_balanced_newly_idle_pass_too() {
    let interval_after = |lb: LegacyLb| {
        let mut w = world("hikey960", "v4.16", &[]);
        w.config.lb_legacy = lb;
        let before = w.sd_state(0, 0).balance_interval;
        w.load_balance(0, 0, CpuIdleType::NewlyIdle);
        (before, w.sd_state(0, 0).balance_interval)
    };
    let (before, after) = interval_after(LegacyLb::v4_16());
    assert_eq!(after, 2 * before, "v4.16 doubles it");
    let (before, after) = interval_after(LegacyLb::v5_0());
    assert_eq!(after, before, "v5.0 leaves it (goto out)");
}

#[test]
fn v4_9_prefer_sibling_calls_a_core_with_two_tasks_overloaded() {
    // IVB-EP, CPU0's MC balance (its child SMT has SD_PREFER_SIBLING): CPU0's sibling runs one
    // task, both threads of another core of the package one each.
    let busiest_type = |lb: LegacyLb| {
        let mut w = world("ivb-ep", "v4.16", &[]);
        w.config.lb_legacy = lb;
        let core0 = w.topo.cpus[0].core;
        let sibling = w.topo.cores[core0].iter().find(|&c| c != 0).unwrap();
        let other = (0..w.nr_cpus())
            .find(|&c| {
                w.topo.cpus[c].package == w.topo.cpus[0].package && w.topo.cpus[c].core != core0
            })
            .unwrap();
        add_task(&mut w, sibling, 300);
        for c in w.topo.cores[w.topo.cpus[other].core]
            .iter()
            .collect::<Vec<_>>()
        {
            add_task(&mut w, c, 300);
        }
        let mc = 1;
        assert_eq!(
            w.sd.domains[w.sd.per_cpu[0][mc]].level,
            crate::domains::SdLevel::MC
        );
        w.log = Some(Vec::new());
        w.load_balance(0, mc, CpuIdleType::NewlyIdle);
        let b = last_balance(&w);
        b.groups
            .iter()
            .find(|g| g.cpus.test(other))
            .unwrap()
            .group_type
    };
    // v4.9: more than one task -> group_no_capacity while the local group has capacity.
    assert_eq!(busiest_type(LegacyLb::v4_9()), GroupType::Overloaded);
    // v4.16: only when it runs more than one task beyond the local group (2 > 1 + 1 is false).
    assert_eq!(busiest_type(LegacyLb::v4_16()), GroupType::Other);
}

#[test]
fn v4_16_stops_redoing_once_only_its_own_group_is_left() {
    use super::super::log::BalanceResult;
    // TC2 DIE, A7 CPU2 idle; two tasks on each A15, all pinned there. After both A15s are
    // cleared from env->cpus only the A7 group is left: v4.16 goes to out_all_pinned; v4.9 redoes
    // while any CPU is left, finds no busiest group and ends at out_balanced.
    let result = |lb: LegacyLb| {
        let mut w = world("tc2", "v4.9", &[]);
        w.config.lb_legacy = lb;
        for cpu in [0, 0, 1, 1] {
            let t = add_task(&mut w, cpu, 1024);
            w.tasks[t].allowed = CpuMask::single(cpu);
        }
        w.log = Some(Vec::new());
        w.load_balance(2, 1, CpuIdleType::Idle);
        last_balance(&w).result
    };
    assert_eq!(result(LegacyLb::v4_9()), BalanceResult::Balanced);
    assert_eq!(result(LegacyLb::v4_16()), BalanceResult::AllPinned);
}
