//! The idle-span shortcut of both balancers' `find_busiest_group()` ([`World::idle_span`]): a
//! pass whose CPUs are all idle skips the group statistics, and must leave the world exactly as
//! the full pass does. The full pass is the one a logged world takes (the decision log records
//! every group's figures), so each case runs twice, logged and not, and compares.

use super::balance::CpuIdleType;
use super::log::{BalanceResult, Decision};
use super::tests::world;
use super::World;

/// Idle CPUs with something to read: blocked utilization and load (some CPUs near or over their
/// capacity, so that EAS's overutilized test can fire), sgc->imbalance flags on every other
/// group, and a root domain that still says overloaded.
fn idle_with_history(machine: &str, kernel: (&str, &[&str]), logged: bool) -> World {
    let mut w = world(machine, kernel.0, kernel.1);
    for cpu in 0..w.nr_cpus() {
        let rq = &mut w.rqs[cpu];
        rq.avg.util_avg = 150 + 211 * cpu as u64 % 900;
        rq.avg.runnable_avg = rq.avg.util_avg;
        rq.avg.load_avg = 300 + 97 * cpu as u64 % 700;
    }
    for flags in w.group_imbalance.iter_mut() {
        for (g, f) in flags.iter_mut().enumerate() {
            *f = g % 2 == 1;
        }
    }
    w.rd_overload = true;
    // Blocked load to decay (the newly-idle nohz stats of v4.17-v5.12).
    for rq in w.rqs.iter_mut() {
        rq.has_blocked_load = true;
    }
    w.nohz_has_blocked = true;
    w.log = logged.then(Vec::new);
    w
}

/// What a balance pass may leave behind.
fn state(w: &World) -> String {
    format!(
        "overload {} overutilized {} imbalance {:?} sd {:?} counters {:?} llc {:?} rqs {:?} \
         next_blocked {} has_blocked {} pending {:?}",
        w.rd_overload,
        w.rd_overutilized,
        w.group_imbalance,
        w.sd_state,
        w.counters,
        w.llc_shared,
        w.rqs,
        w.nohz_next_blocked,
        w.nohz_has_blocked,
        w.pending_active,
    )
}

/// How the logged (whole) passes of the shortcut's cases ended.
#[derive(Default)]
struct Passes {
    shortcut: usize,
    /// Passes where the whole pass found a busiest group (asym packing) but no queue in it.
    no_busiest_queue: usize,
}

/// Every CPU's every level, idle and newly idle, with and without the log: the same outcomes
/// and the same world after each pass.
fn same_with_and_without_log(machine: &str, kernel: (&str, &[&str])) -> Passes {
    let mut full = idle_with_history(machine, kernel, true);
    let mut quick = idle_with_history(machine, kernel, false);
    let mut passes = Passes::default();
    for idle in [CpuIdleType::Idle, CpuIdleType::NewlyIdle] {
        for cpu in 0..quick.nr_cpus() {
            for level in 0..quick.sd.per_cpu[cpu].len() {
                let env = quick.lb_env(cpu, level, idle);
                let shortcut = quick.idle_span(&env);
                let a = full.load_balance(cpu, level, idle);
                if shortcut {
                    passes.shortcut += 1;
                    if let Some(Some(Decision::Balance(d))) = full.log.as_ref().map(|l| l.last()) {
                        if d.result == BalanceResult::NoBusiestQueue {
                            passes.no_busiest_queue += 1;
                        }
                    }
                }
                let b = quick.load_balance(cpu, level, idle);
                let what = format!("{machine} {kernel:?}: cpu {cpu} level {level} {idle:?}");
                assert_eq!(a, b, "{what}");
                assert_eq!(state(&full), state(&quick), "{what}");
            }
        }
        // The next pass is a jiffy later (the nohz stats' and intervals' clocks move).
        full.now += full.tick_ns;
        quick.now += quick.tick_ns;
    }
    passes
}

#[test]
fn the_legacy_balancer_skips_nothing_an_idle_span_would_change() {
    // v5.2 (cascadelake-fi's kernels): SMT, MC, NUMA; no EAS, no asym packing.
    assert!(same_with_and_without_log("cascadelake-8260l", ("v5.2", &[])).shortcut > 0);
    // v4.16 on big.LITTLE: asymmetric capacities (misfit load), MC and DIE.
    assert!(same_with_and_without_log("hikey960", ("v4.16", &[])).shortcut > 0);
    // v4.18 on POWER9 with the July 2018 patch (SD_ASYM_PACKING at SMT): check_asym_packing()
    // returns an idle group (flagged imbalanced), in which find_busiest_queue() finds nothing.
    let power9 = same_with_and_without_log("power9-smt8", ("v4.18", &["power-asym-smt"]));
    assert!(power9.no_busiest_queue > 0);
}

#[test]
fn the_reworked_balancer_skips_nothing_an_idle_span_would_change() {
    // v6.8: SIS_UTIL's nr_idle_scan from the LLC pass.
    assert!(same_with_and_without_log("cascadelake-8260l", ("v6.8", &[])).shortcut > 0);
    // v6.7 on Juno: EAS, so the root domain's overutilized flag.
    assert!(same_with_and_without_log("juno-r2", ("v6.7", &[])).shortcut > 0);
    // v5.6: the first reworked balancer, with LBF_NOHZ_STATS on newly-idle passes.
    assert!(same_with_and_without_log("hikey960", ("v5.6", &[])).shortcut > 0);
}
