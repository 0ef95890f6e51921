//! Wake-up placement by era on small hand-built cases: each test sets up the runqueues so that the
//! rule under test decides, and asserts what each era's fair.c returns.

use super::balance::CpuIdleType;
use super::tests::{add_task, settle};
use super::wakeup::WakeKind;
use super::{Task, TaskId, World};
use crate::domains::SchedDomains;
use crate::kernel::{build_config, Governor};
use crate::topology::{presets::preset, Topology};
use crate::units::NSEC_PER_MSEC;

fn world_with(machine: &str, baseline: &str, patches: &[&str], overrides: &str) -> World {
    let t = Topology::build(&preset(machine).unwrap()).unwrap();
    let p: Vec<String> = patches.iter().map(|s| s.to_string()).collect();
    let o: serde_json::Value = serde_json::from_str(overrides).unwrap();
    let c = build_config(baseline, &p, Some(&o), Governor::Performance).unwrap();
    let d = SchedDomains::build(&t, &c).unwrap();
    let mut w = World::new(t, d, c);
    w.now = 100 * NSEC_PER_MSEC;
    w
}

fn cascadelake(baseline: &str, overrides: &str) -> World {
    world_with("cascadelake-8260l", baseline, &[], overrides)
}

/// A sleeping task that last ran on `cpu` (so `recent_used_cpu` = prev, which never counts).
fn sleeper(w: &mut World, cpu: usize) -> TaskId {
    let id = w.tasks.len();
    let all = w.topo.all_cpus();
    w.tasks.push(Task::new(id, cpu, all, 0, None, w.now));
    id
}

/// Socket 0 of the Xeon (CPUs 0-23 and their siblings 48-71, one LLC of 48) busy but for `idle`.
fn busy_socket0(w: &mut World, idle: &[usize], util: u64) {
    for cpu in (0..24).chain(48..72) {
        if !idle.contains(&cpu) {
            add_task(w, cpu, util);
        }
    }
}

/// Socket 0 busy but CPU 23 (its sibling 71 busy): the only idle CPU is the last one a scan from
/// CPU 0 reaches but one, and no core is wholly idle.
fn lone_idle_cpu_23(baseline: &str, overrides: &str, avg_idle: u64) -> usize {
    let mut w = cascadelake(baseline, overrides);
    busy_socket0(&mut w, &[23], 1024);
    let p = sleeper(&mut w, 0);
    w.rqs[0].avg_idle = avg_idle;
    w.select_idle_sibling(p, 0, 0, 0)
}

#[test]
fn sis_prop_stops_the_scan_before_the_only_idle_cpu() {
    // v5.6 SIS_PROP: avg_idle / 512 = 0, so nr = 4: CPUs 0, 1, 2 are visited, the fourth visit
    // gives up, select_idle_smt(0) finds CPU 48 busy: the task stays on busy target CPU 0.
    assert_eq!(lone_idle_cpu_23("v5.6", "{}", 0), 0);
    // A CPU that idles long (avg_idle at its 1 ms cap): nr = 48 * 1953 / 1, the scan reaches 23.
    assert_eq!(lone_idle_cpu_23("v5.6", "{}", 1_000_000), 23);
    // v4.9 has no limit (SIS_PROP came in v4.13): the whole LLC is scanned.
    assert_eq!(lone_idle_cpu_23("v4.9", "{}", 0), 23);
}

#[test]
fn sis_prop_learns_the_scan_cost() {
    // A completed scan of v5.6 feeds avg_scan_cost += (cost - avg) / 8; a cut one does not.
    let mut w = cascadelake("v5.6", "{}");
    busy_socket0(&mut w, &[23], 1024);
    let p = sleeper(&mut w, 0);
    assert_eq!(w.select_idle_sibling(p, 0, 0, 0), 23);
    // CPUs 0-23 visited (the core scan cleared has_idle_cores first), 100 ns each: 2400 / 8.
    assert_eq!(w.llc_shared[0].avg_scan_cost, 300);
    w.rqs[0].avg_idle = 0;
    assert_eq!(w.select_idle_sibling(p, 0, 0, 0), 0);
    assert_eq!(w.llc_shared[0].avg_scan_cost, 300);
}

#[test]
fn sis_util_scans_nothing_on_a_busy_llc() {
    // v6.8: the periodic balance of idle CPU 23 sees 47 of 48 CPUs at util 1024: x = 1002, and
    // x^2 * 117^2 / (10000 * 1024) >= 1024, so nr_idle_scan = 0 and the wake-up scans nothing.
    let mut w = cascadelake("v6.8", "{}");
    assert_eq!(
        w.llc_shared[0].nr_idle_scan, 48,
        "an idle LLC may scan all of itself"
    );
    busy_socket0(&mut w, &[23], 1024);
    w.load_balance(23, 1, CpuIdleType::Idle);
    assert!(w.idle_cpu(23));
    assert_eq!(w.llc_shared[0].nr_idle_scan, 0);
    w.llc_shared[0].has_idle_cores = false;
    let p = sleeper(&mut w, 0);
    assert_eq!(w.select_idle_sibling(p, 0, 0, 0), 0);
    // v5.6's SIS_PROP with a long avg_idle scans on and finds CPU 23.
    let mut w = cascadelake("v5.6", "{}");
    busy_socket0(&mut w, &[23], 1024);
    w.load_balance(23, 1, CpuIdleType::Idle);
    let p = sleeper(&mut w, 0);
    assert_eq!(w.select_idle_sibling(p, 0, 0, 0), 23);
}

#[test]
fn sis_util_scan_shrinks_with_the_llcs_utilization() {
    // Half of the LLC's capacity used: x = 512, 512^2 * 117^2 / 10240000 = 350, y = 674:
    // nr_idle_scan = 48 * 674 / 1024 = 31.
    let mut w = cascadelake("v6.8", "{}");
    let busy: Vec<usize> = (0..24).chain(48..72).filter(|c| c % 2 == 0).collect();
    for &cpu in &busy {
        add_task(&mut w, cpu, 1024);
    }
    w.load_balance(1, 1, CpuIdleType::Idle);
    assert_eq!(w.llc_shared[0].nr_idle_scan, 31);
    // A newly idle balance leaves the hint alone; v5.6 has no SIS_UTIL at all.
    w.llc_shared[0].nr_idle_scan = 7;
    w.load_balance(1, 1, CpuIdleType::NewlyIdle);
    assert_eq!(w.llc_shared[0].nr_idle_scan, 7);
}

/// Socket 0 busy but CPU 1 (sibling 49 busy) and the whole core {10, 58}; target CPU 0.
fn idle_core_case(baseline: &str, hint: bool) -> usize {
    let mut w = cascadelake(baseline, "{}");
    busy_socket0(&mut w, &[1, 10, 58], 1024);
    w.llc_shared[0].has_idle_cores = hint;
    let p = sleeper(&mut w, 0);
    w.select_idle_sibling(p, 0, 0, 0)
}

#[test]
fn has_idle_cores_gates_the_idle_core_search() {
    // With the hint, select_idle_core() (v4.9-v5.11) or the merged core scan (v5.12+) passes
    // CPU 1, whose sibling is busy, for the idle core {10, 58}; without it the first idle CPU wins.
    for baseline in ["v4.9", "v5.6", "v6.8"] {
        assert_eq!(idle_core_case(baseline, true), 10, "{baseline}");
        assert_eq!(idle_core_case(baseline, false), 1, "{baseline}");
    }
}

#[test]
fn update_idle_core_sets_the_hint_and_a_failed_core_scan_clears_it() {
    let mut w = cascadelake("v5.6", "{}");
    busy_socket0(&mut w, &[1], 1024);
    let p = sleeper(&mut w, 0);
    assert!(w.llc_shared[0].has_idle_cores);
    assert_eq!(w.select_idle_sibling(p, 0, 0, 0), 1);
    assert!(!w.llc_shared[0].has_idle_cores, "no core was wholly idle");
    // CPU 49's task leaves: CPU 49 goes idle with its sibling 1 idle, a whole core.
    let t = w.rqs[49].curr.unwrap();
    w.dequeue_task(49, t, false);
    w.update_idle_core(49);
    assert!(w.llc_shared[0].has_idle_cores);
    // A CPU going idle next to a busy sibling does not set it.
    let mut w = cascadelake("v5.6", "{}");
    busy_socket0(&mut w, &[], 1024);
    w.llc_shared[0].has_idle_cores = false;
    let t = w.rqs[2].curr.unwrap();
    w.dequeue_task(2, t, false);
    w.update_idle_core(2);
    assert!(!w.llc_shared[0].has_idle_cores);
}

/// prev = CPU 5 (busy) with its sibling 53 idle, CPU 1 idle (sibling busy), target CPU 0, no
/// idle core hoped for.
fn smt_case(baseline: &str, overrides: &str) -> usize {
    let mut w = cascadelake(baseline, overrides);
    busy_socket0(&mut w, &[1, 53], 1024);
    w.llc_shared[0].has_idle_cores = false;
    let p = sleeper(&mut w, 5);
    w.select_idle_sibling(p, 5, 0, 0)
}

#[test]
fn select_idle_smt_tries_prevs_sibling_first_from_v5_12() {
    // v5.12+: without the idle-core hint, select_idle_smt(prev) comes before the LLC scan.
    assert_eq!(smt_case("v6.8", "{}"), 53);
    // v4.9-v5.11: select_idle_cpu() from target finds CPU 1; select_idle_smt() would only have
    // looked at target's siblings, after a scan that found nothing.
    assert_eq!(smt_case("v5.6", "{}"), 1);
}

#[test]
fn select_idle_smt_after_a_cut_scan_takes_targets_sibling_before_v5_12() {
    // v5.6: SIS_PROP gives up after CPUs 0-2; select_idle_smt(target 0) finds its sibling 48.
    let mut w = cascadelake("v5.6", "{}");
    busy_socket0(&mut w, &[23, 48], 1024);
    w.llc_shared[0].has_idle_cores = false;
    w.rqs[0].avg_idle = 0;
    let p = sleeper(&mut w, 0);
    assert_eq!(w.select_idle_sibling(p, 0, 0, 0), 48);
}

/// prev CPU 2 and target CPU 5 busy, the rest of socket 0 idle; `recent_used_cpu` = `recent`.
fn recent_case(baseline: &str, recent: usize) -> (usize, usize) {
    let mut w = cascadelake(baseline, "{}");
    add_task(&mut w, 2, 1024);
    add_task(&mut w, 5, 1024);
    add_task(&mut w, 20, 1024);
    let p = sleeper(&mut w, 2);
    w.tasks[p].recent_used_cpu = recent;
    let cpu = w.select_idle_sibling(p, 2, 5, 5);
    (cpu, w.tasks[p].recent_used_cpu)
}

#[test]
fn recent_used_cpu_by_era() {
    // v4.9: no such candidate; select_idle_core() from target 5 finds the idle core {6, 54}.
    assert_eq!(recent_case("v4.9", 7), (6, 7));
    // v4.16+: the idle recent CPU 7 is taken, and replaced by prev.
    assert_eq!(recent_case("v4.16", 7), (7, 2));
    assert_eq!(recent_case("v6.8", 7), (7, 2));
    // A busy recent CPU: v4.16-v5.12 keep it; v5.15+ replace it with prev all the same.
    assert_eq!(recent_case("v4.16", 20).1, 20);
    assert_eq!(recent_case("v6.8", 20).1, 2);
}

/// An affine wake-up from CPU 8 of a task that last ran on CPU 2: the waker's recent_used_cpu.
fn waker_recent(baseline: &str) -> usize {
    let mut w = cascadelake(baseline, "{}");
    let waker = add_task(&mut w, 8, 100);
    w.tasks[waker].recent_used_cpu = 30;
    let p = sleeper(&mut w, 2);
    let (_, path) = w.select_task_rq_fair(p, Some(waker), 8, WakeKind::Wakeup { sync: false });
    assert_eq!(path, super::wakeup::Placement::FastPath);
    w.tasks[waker].recent_used_cpu
}

#[test]
fn an_affine_wakeup_sets_the_wakers_recent_used_cpu_in_v4_16_to_v5_12() {
    assert_eq!(waker_recent("v4.16"), 8);
    assert_eq!(waker_recent("v5.6"), 8);
    assert_eq!(waker_recent("v6.8"), 30);
}

/// The waker runs on CPU 0 (socket 0); the task last ran on CPU 24 (socket 1), idle now but
/// with blocked load 2048, so wake_affine_weight() prefers the waker's CPU.
fn affine_idle_prev(baseline: &str, overrides: &str) -> usize {
    let mut w = cascadelake(baseline, overrides);
    let waker = add_task(&mut w, 0, 100);
    let p = sleeper(&mut w, 24);
    settle(&mut w);
    w.rqs[24].avg.load_avg = 2048;
    w.select_task_rq_fair(p, Some(waker), 0, WakeKind::Wakeup { sync: false })
        .0
}

#[test]
fn wake_affine_idle_keeps_an_idle_prev_from_v5_11() {
    // v6.8: this_cpu busy, not sync, prev idle -> prev, and select_idle_sibling() keeps it.
    assert_eq!(affine_idle_prev("v6.8", "{}"), 24);
    // v5.6: wake_affine_weight(): 1024 * 100 * 1024 < 2048 * 112 * 1024, so the waker's CPU;
    // select_idle_sibling() then takes the first idle core of socket 0 from CPU 0.
    assert_eq!(affine_idle_prev("v5.6", "{}"), 1);
}

/// TC2 with the 2016 series: a task of util 600 slept on A7 CPU 2 for 100 ms before prev's
/// cfs_rq last updated, and is woken from A7 CPU 3.
fn wake_cap_after_sleep(patches: &[&str], overrides: &str) -> bool {
    let mut w = world_with("tc2", "v4.9", patches, overrides);
    add_task(&mut w, 3, 100);
    let p = sleeper(&mut w, 2);
    let sa = &mut w.tasks[p].avg;
    sa.util_avg = 600;
    sa.util_sum = 600 * sa.divider();
    w.rqs[2].avg.last_update_time = 100 * NSEC_PER_MSEC;
    w.wake_cap(p, 3, 2)
}

#[test]
fn wake_cap_syncs_the_sleeping_tasks_utilization_from_v4_10() {
    // The series as merged in v4.10: sync_entity_load_avg() decays 600 over 100 ms (~3
    // half-lives) to ~70, which fits.
    let series = ["asym-cpu-capacity-2016"];
    assert!(!wake_cap_after_sleep(&series, "{}"));
    assert!(wake_cap_after_sleep(&series, r#"{"wake_cap_sync": false}"#));
    // v4.9's own wake_cap() (given TC2's capacities) tests the stale 600: does not fit 80% of 430.
    assert!(wake_cap_after_sleep(&[], r#"{"arch_cpu_capacity": true}"#));
}

/// A fork from the only task of a two-node Ivy Bridge-EP (v4.16's spare-capacity
/// find_idlest_group(), which skips spare capacity at fork): the node the child lands on.
fn numa_fork_node(overrides: &str) -> usize {
    let mut w = world_with("ivb-ep", "v4.16", &[], overrides);
    let parent = add_task(&mut w, 0, 100);
    let child = sleeper(&mut w, 0);
    let (cpu, _) = w.select_task_rq_fair(child, Some(parent), 0, WakeKind::Fork);
    w.topo.cpus[cpu].package
}

#[test]
fn the_spare_capacity_find_idlest_group_of_v4_16_has_no_numa_clause() {
    // v4.10-v4.16: local runnable load 1024 * 1024 / 20480 = 51 is within the 256 imbalance of
    // the idle node, but 100 * 51 < 112 * 0 fails, so the idle node wins.
    assert_eq!(numa_fork_node("{}"), 1);
    // With the later SD_NUMA clause, min_runnable_load + imbalance >= this_runnable_load: stay.
    assert_eq!(numa_fork_node(r#"{"find_idlest_spare_numa": true}"#), 0);
}

/// HiKey960 (classic big.LITTLE, capacities 462 and 1024): a task of util 600 that last ran on
/// little CPU 1 is woken from little CPU 2; did `wake_cap()` say it does not fit?
fn hikey_wake_cap(baseline: &str, overrides: &str) -> bool {
    let mut w = world_with("hikey960", baseline, &[], overrides);
    let waker = add_task(&mut w, 2, 100);
    let p = sleeper(&mut w, 1);
    let sa = &mut w.tasks[p].avg;
    sa.util_avg = 600;
    sa.util_sum = 600 * sa.divider();
    w.log = Some(Vec::new());
    w.select_task_rq_fair(p, Some(waker), 2, WakeKind::Wakeup { sync: false });
    match w.log.as_ref().unwrap().last() {
        Some(super::log::Decision::Wakeup(d)) => {
            assert_eq!(d.want_affine, !d.wake_cap);
            d.wake_cap
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn wake_cap_applies_wherever_capacities_differ_until_v5_x_gated_it_on_asym_capacity() {
    // v4.16: rd->max_cpu_capacity 1024 - 462 >= 1024 / 8 and 462 * 1024 < 600 * 1280: no affine
    // wake-up, though mainline arm64 sets no SD_ASYM_CPUCAPACITY.
    assert!(hikey_wake_cap("v4.16", "{}"));
    // v5.6: only under sched_asym_cpucapacity.
    assert!(hikey_wake_cap("v5.6", "{}"));
    assert!(!hikey_wake_cap(
        "v5.6",
        r#"{"asym_cpucapacity_detection": false}"#
    ));
    assert!(hikey_wake_cap(
        "v4.16",
        r#"{"asym_cpucapacity_detection": false}"#
    ));
    // v5.7 removed wake_cap().
    assert!(!hikey_wake_cap("v6.8", "{}"));
}

/// `select_idle_cpu()`'s single-CPU scan CPU by CPU, as fair.c loops (`for_each_cpu_wrap()` over
/// the LLC, skipping disallowed CPUs, `if (!--nr) return -1`): `None` for a scan cut by its limit,
/// else the idle CPU found (if any) and the number of CPUs visited.
fn scan_cpu_by_cpu(
    w: &World,
    p: TaskId,
    llc: usize,
    start: usize,
    mut nr: usize,
) -> Option<(Option<usize>, u64)> {
    let span = w.sd.domains[llc].span;
    let cpus = span.and(&w.tasks[p].allowed);
    let mut visited = 0;
    for cpu in wrap_order(&span, start) {
        if !cpus.test(cpu) {
            continue;
        }
        nr -= 1;
        if nr == 0 {
            return None;
        }
        visited += 1;
        if w.idle_cpu(cpu) {
            return Some((Some(cpu), visited));
        }
    }
    Some((None, visited))
}

/// Random machine states for the word-level searches' tests (xorshift64).
struct RandomStates(u64);

impl RandomStates {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Each CPU idle with probability `idle_in_64`/64 and allowed to `p` but for one in
    /// `disallowed_one_in`.
    fn pose(&mut self, w: &mut World, p: TaskId, idle_in_64: u64, disallowed_one_in: u64) {
        let mut idle = crate::cpumask::CpuMask::EMPTY;
        let mut allowed = crate::cpumask::CpuMask::EMPTY;
        for cpu in 0..w.nr_cpus() {
            if self.next() % 64 < idle_in_64 {
                idle.set(cpu);
            }
            if !self.next().is_multiple_of(disallowed_one_in) {
                allowed.set(cpu);
            }
        }
        w.set_idle_mask(idle);
        w.tasks[p].allowed = allowed;
    }
}

#[test]
fn the_word_level_idle_cpu_scan_finds_and_counts_as_the_cpu_by_cpu_loop() {
    // v4.9: no limit, separate scans from target, timed; v5.6: SIS_PROP, timed; v6.8: SIS_UTIL (nr = nr_idle_scan + 1), merged scan from target + 1, untimed.
    for (baseline, merged, timed) in [
        ("v4.9", false, true),
        ("v5.6", false, true),
        ("v6.8", true, false),
    ] {
        let mut w = cascadelake(baseline, "{}");
        let p = sleeper(&mut w, 0);
        let llc = w.sd.sd_llc[0].unwrap();
        let span = w.sd.domains[llc].span;
        let id = w.sd.llc_id[0];
        let mut rng = RandomStates(0x9e37_79b9_7f4a_7c15);
        let mut outcomes = [0usize; 3];
        for round in 0..3000 {
            rng.pose(&mut w, p, [0, 1, 4, 32][round % 4], 8);
            let target = span.iter().nth((rng.next() % 48) as usize).unwrap();
            w.rqs[target].avg_idle = [0, 1_000, 20_000, 1_000_000][(rng.next() % 4) as usize];
            w.llc_shared[id].nr_idle_scan = (rng.next() % 50) as usize;
            let nr = match baseline {
                "v4.9" => usize::MAX,
                "v5.6" => {
                    // SIS_PROP: max(4, span_weight * (avg_idle / 512) / (avg_scan_cost + 1)).
                    let span_avg = 48 * (w.rqs[target].avg_idle / 512);
                    let avg_cost = w.llc_shared[id].avg_scan_cost + 1;
                    if span_avg > 4 * avg_cost {
                        (span_avg / avg_cost) as usize
                    } else {
                        4
                    }
                }
                _ => w.llc_shared[id].nr_idle_scan + 1,
            };
            let start = if merged { target + 1 } else { target };
            let avg = w.llc_shared[id].avg_scan_cost;
            let want = if nr == 1 {
                None
            } else {
                scan_cpu_by_cpu(&w, p, llc, start, nr)
            };
            let got = w.select_idle_cpu(p, llc, target, target, false);
            let (cpu, avg_after) = match want {
                None => (None, avg),
                Some((cpu, visited)) if timed => {
                    let diff = (visited * w.config.sis_scan_cost_per_cpu_ns) as i64 - avg as i64;
                    (cpu, (avg as i64 + diff / 8).max(0) as u64)
                }
                Some((cpu, _)) => (cpu, avg),
            };
            assert_eq!(got, cpu, "{baseline} round {round}");
            assert_eq!(
                w.llc_shared[id].avg_scan_cost, avg_after,
                "{baseline} round {round}"
            );
            outcomes[match want {
                None => 0,
                Some((None, _)) => 1,
                Some((Some(_), _)) => 2,
            }] += 1;
        }
        // Every outcome occurs: scans cut by the limit (where there is one), scans that found
        // nothing, scans that found a CPU.
        let cut_ok = baseline == "v4.9" || outcomes[0] > 50;
        assert!(
            cut_ok && outcomes[1] > 50 && outcomes[2] > 50,
            "{baseline} {outcomes:?}"
        );
    }
}

/// `for_each_cpu_wrap(cpu, span, start)` written out plainly: the CPUs at or above `start`, then
/// those below it.
fn wrap_order(span: &crate::cpumask::CpuMask, start: usize) -> impl Iterator<Item = usize> + '_ {
    span.iter()
        .filter(move |&c| c >= start)
        .chain(span.iter().filter(move |&c| c < start))
}

/// The kernel's walk by cores (`select_idle_core()`, v4.9-v5.11 and v5.12+ alike): from `start`
/// over the LLC's allowed CPUs, each core once (its siblings leave `cpus` after its visit), its
/// siblings tested with `available_idle_cpu()`. Returns the visited CPU of the first wholly idle
/// core, else v5.12's `*idle_cpu`: the first idle allowed sibling seen on the way.
fn walk_cores(w: &World, p: TaskId, llc: usize, start: usize) -> Result<usize, Option<usize>> {
    let span = w.sd.domains[llc].span;
    let mut cpus = span.and(&w.tasks[p].allowed);
    let mut idle_cpu = None;
    for cpu in wrap_order(&span, start) {
        if !cpus.test(cpu) {
            continue;
        }
        let core = w.topo.cores[w.topo.cpus[cpu].core];
        let mut idle = true;
        for c in core.iter() {
            if !w.idle_cpu(c) {
                idle = false;
                if idle_cpu.is_none() {
                    continue;
                }
                break;
            }
            if idle_cpu.is_none() && cpus.test(c) {
                idle_cpu = Some(c);
            }
        }
        if idle {
            return Ok(cpu);
        }
        for c in core.iter() {
            cpus.clear(c);
        }
    }
    Err(idle_cpu)
}

#[test]
fn the_word_level_idle_core_search_finds_what_the_walk_by_cores_finds() {
    // cascadelake: siblings n and n + 48; power9-smt8: SMT4 thread groups {0,2,4,6}, {1,3,5,7}
    // interleaved, so a core's first CPU in wrap order is not always its lowest.
    for (machine, baseline) in [
        ("cascadelake-8260l", "v4.9"),
        ("cascadelake-8260l", "v6.8"),
        ("power9-smt8", "v4.9"),
        ("power9-smt8", "v6.8"),
    ] {
        let mut w = world_with(machine, baseline, &[], "{}");
        assert!(w.smt_active, "{machine}");
        let p = sleeper(&mut w, 0);
        let llc = w.sd.sd_llc[0].unwrap();
        let span = w.sd.domains[llc].span;
        let id = w.sd.llc_id[0];
        let merged = baseline == "v6.8";
        let mut rng = RandomStates(0x2545_f491_4f6c_dd1d);
        let mut outcomes = [0usize; 3];
        for round in 0..3000 {
            rng.pose(&mut w, p, [1, 4, 16, 56][round % 4], 4);
            let target = span
                .iter()
                .nth((rng.next() % span.weight() as u64) as usize)
                .unwrap();
            w.llc_shared[id].has_idle_cores = true;
            let want = walk_cores(&w, p, llc, if merged { target + 1 } else { target });
            let got = if merged {
                w.select_idle_cpu(p, llc, target, target, true)
            } else {
                w.select_idle_core(p, llc, target)
            };
            match want {
                Ok(cpu) => assert_eq!(got, Some(cpu), "{machine} {baseline} round {round}"),
                // Before v5.12 a failed core search returns -1 (select_idle_cpu() runs next).
                Err(idle_cpu) => {
                    let expect = if merged { idle_cpu } else { None };
                    assert_eq!(got, expect, "{machine} {baseline} round {round}");
                }
            }
            // A search that found no idle core clears the hint.
            assert_eq!(
                w.llc_shared[id].has_idle_cores,
                want.is_ok(),
                "{machine} {baseline} round {round}"
            );
            outcomes[match want {
                Ok(_) => 0,
                Err(None) => 1,
                Err(Some(_)) => 2,
            }] += 1;
        }
        assert!(
            outcomes.iter().all(|&n| n > 50),
            "{machine} {baseline} {outcomes:?}"
        );
    }
}
