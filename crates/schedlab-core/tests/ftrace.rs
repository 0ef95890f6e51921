//! The ftrace export replayed as a trace reader replays it: per task, never switched in on one
//! CPU while still running on another; every `sched_migrate_task` of a task that no CPU runs,
//! in the column of the CPU doing the move; every task switched in where it was last placed; and a
//! task woken to do no work (a zero-time activation) switched in and out like any other.
//!
//! The kernel's order for a migration of a running task: on the source CPU, `sched_switch` away
//! from it, then `sched_migrate_task` (from the source CPU's stopper for an active balance or an
//! affinity change, from the balancing CPU for a `detach_tasks()` pull, from the waker's CPU for a
//! wake-up), then on the destination `sched_switch` to it.

use schedlab_core::experiment::{MachineRef, Plan, Scenario, VariantSpec};
use schedlab_core::kernel::Governor;
use schedlab_core::scenarios::builtin;
use schedlab_core::workload::rtapp::RtApp;
use schedlab_core::workload::WorkloadSpec;
use std::collections::BTreeMap;

/// `key=value` of a trace line.
fn field<'a>(line: &'a str, key: &str) -> &'a str {
    let at = line
        .find(&format!(" {key}="))
        .unwrap_or_else(|| panic!("no {key} in {line}"));
    let rest = &line[at + key.len() + 2..];
    rest.split_whitespace().next().unwrap()
}

fn num(line: &str, key: &str) -> usize {
    field(line, key)
        .parse()
        .unwrap_or_else(|e| panic!("{key} in {line}: {e}"))
}

/// The CPU column and the TASK-PID's pid of a trace line.
fn column(line: &str) -> (usize, usize) {
    let open = line.find('[').unwrap();
    let cpu = line[open + 1..open + 4].parse().unwrap();
    let pid = line[..open]
        .trim()
        .rsplit('-')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    (cpu, pid)
}

#[derive(Default, Debug)]
struct Replay {
    /// sched_migrate_task lines by reason.
    migrations: BTreeMap<String, usize>,
    /// Affinity and active-balance moves to a lower-numbered CPU (the order that went wrong).
    moves_down: usize,
    /// Switches in and out of each pid, and the prev_state of its switches out.
    switched_in: BTreeMap<usize, usize>,
    states_out: BTreeMap<usize, BTreeMap<String, usize>>,
    wakeups: BTreeMap<usize, usize>,
}

/// Replays `text`; the first line that breaks a rule is the error.
fn replay(text: &str) -> Result<Replay, String> {
    let mut r = Replay::default();
    // pid -> the CPU it runs on; CPU -> the pid it runs (0: idle); pid -> the CPU it was placed on.
    let mut running_on: BTreeMap<usize, usize> = BTreeMap::new();
    let mut current: BTreeMap<usize, usize> = BTreeMap::new();
    let mut placed: BTreeMap<usize, usize> = BTreeMap::new();
    let lines: Vec<&str> = text.lines().collect();
    for (n, line) in lines
        .iter()
        .copied()
        .enumerate()
        .filter(|(_, l)| !l.starts_with('#'))
    {
        let at = |m: String| format!("line {}: {m}\n{line}", n + 1);
        let (cpu, line_pid) = column(line);
        if line.contains(": sched_switch: ") {
            let (prev, next) = (num(line, "prev_pid"), num(line, "next_pid"));
            if line_pid != prev {
                return Err(at(format!("printed by pid {line_pid}, not prev {prev}")));
            }
            let was = current.get(&cpu).copied().unwrap_or(0);
            if was != 0 && prev != was {
                return Err(at(format!("CPU{cpu} runs pid {was}, not prev {prev}")));
            }
            if prev != 0 {
                running_on.remove(&prev);
                *r.states_out
                    .entry(prev)
                    .or_default()
                    .entry(field(line, "prev_state").to_string())
                    .or_default() += 1;
            }
            if next != 0 {
                if let Some(other) = running_on.get(&next) {
                    return Err(at(format!(
                        "pid {next} switched in on CPU{cpu} while running on CPU{other}"
                    )));
                }
                // The first task runs where the run starts it.
                let p = *placed.entry(next).or_insert(cpu);
                if p != cpu {
                    return Err(at(format!(
                        "pid {next} switched in on CPU{cpu}, placed on CPU{p}"
                    )));
                }
                running_on.insert(next, cpu);
                *r.switched_in.entry(next).or_default() += 1;
            }
            current.insert(cpu, next);
        } else if line.contains(": sched_migrate_task: ") {
            let (pid, from, to) = (
                num(line, "pid"),
                num(line, "orig_cpu"),
                num(line, "dest_cpu"),
            );
            // Why it moved is schedlab's own event, on the next line (the kernel's event has
            // the kernel's fields only).
            let next = lines.get(n + 1).copied().unwrap_or_default();
            if !next.contains(": schedlab__migrate_reason: ") || num(next, "pid") != pid {
                return Err(at(format!("no schedlab__migrate_reason after it: {next}")));
            }
            if line.contains(" reason=") {
                return Err(at("a reason= on the kernel's event".into()));
            }
            let reason = field(next, "reason").to_string();
            if let Some(on) = running_on.get(&pid) {
                return Err(at(format!("pid {pid} moved while running on CPU{on}")));
            }
            if placed.get(&pid).is_some_and(|&p| p != from) {
                return Err(at(format!(
                    "pid {pid} moved from CPU{from}, placed elsewhere"
                )));
            }
            if current.get(&cpu).copied().unwrap_or(0) != line_pid {
                return Err(at(format!(
                    "printed by pid {line_pid}, CPU{cpu} runs another"
                )));
            }
            let mover_ok = match reason.as_str() {
                // The source CPU's stopper.
                "active_balance" | "affinity" => cpu == from,
                // The balancing CPU: the destination, or an idle CPU balancing for it (nohz).
                "load_balance" => cpu == to || line_pid == 0,
                // The waking CPU: never the task itself.
                "wakeup" => line_pid != pid,
                other => return Err(at(format!("unknown reason {other}"))),
            };
            if !mover_ok {
                return Err(at(format!("a {reason} move printed on CPU{cpu}")));
            }
            if (reason == "active_balance" || reason == "affinity") && to < from {
                r.moves_down += 1;
            }
            placed.insert(pid, to);
            *r.migrations.entry(reason).or_default() += 1;
        } else if line.contains(": sched_wakeup") {
            let pid = num(line, "pid");
            placed.insert(pid, num(line, "target_cpu"));
            *r.wakeups.entry(pid).or_default() += 1;
        }
    }
    Ok(r)
}

fn rtapp_scenario(machine: &str, json: &str) -> Scenario {
    Scenario {
        version: 1,
        name: "rt-app".into(),
        title: String::new(),
        description: String::new(),
        machine: MachineRef::Preset(machine.into()),
        workload: WorkloadSpec::RtApp(RtApp {
            json: json.into(),
            speed: Default::default(),
        }),
        sweep: None,
        variants: vec![VariantSpec {
            name: "v6.8".into(),
            baseline: "v6.8".into(),
            patches: vec![],
            governor: Governor::Performance,
            config: None,
        }],
        runs: 1,
        seed: 1,
        taskset: None,
        extras: Default::default(),
        limits: Default::default(),
    }
}

fn traced(s: &Scenario, run: usize) -> (String, Vec<String>) {
    let t = Plan::new(s).unwrap().run_traced(run).unwrap();
    (t.to_ftrace(), t.task_names.clone())
}

/// E5's active balances move the task running on a big CPU to an idle little one, CPU0 among
/// them: the big CPU switches away from it before the move, the little one switches to it after.
#[test]
fn an_active_balance_switches_the_task_out_before_it_moves() {
    let (text, _) = traced(&builtin("juno-use-all-littles").unwrap(), 0);
    let r = replay(&text).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        r.migrations.get("active_balance").is_some_and(|&n| n > 0),
        "{r:?}"
    );
    assert!(r.moves_down > 0, "{r:?}");
}

/// rt-app's tutorial example 8 as a hand-built case: a thread moved by its phases' `cpus` from
/// CPU 2 to CPU 0 and CPU 1 and back (sched_setaffinity() on itself: the stopper of its CPU
/// moves it), twice down to a lower-numbered CPU per pass.
#[test]
fn an_affinity_move_switches_the_task_out_on_its_old_cpu_first() {
    let json = r#"{ "tasks": { "thread0": { "cpus": [2], "phases": {
                        "phase1": { "cpus": [0], "run": 1500 },
                        "phase2": { "cpus": [1], "run": 1500 },
                        "phase3": { "run": 1500 } } } },
                    "global": { "duration": 1 } }"#;
    let (text, _) = traced(&rtapp_scenario("hikey960", json), 0);
    let r = replay(&text).unwrap_or_else(|e| panic!("{e}"));
    let moves = r.migrations.get("affinity").copied().unwrap_or(0);
    assert!(moves > 300, "{r:?}");
    assert!(r.moves_down > 100, "{r:?}");
    // Every affinity move's line is in the source CPU's column, with the stopper (idle here)
    // as its task.
    for line in text.lines().filter(|l| l.contains("reason=affinity")) {
        let (cpu, pid) = column(line);
        assert_eq!(cpu, num(line, "orig_cpu"), "{line}");
        assert_eq!(pid, 0, "{line}");
    }
}

/// rt-app's mp3 use case in small: a timer thread whose activations do no work (resume another
/// thread, re-arm the timer) is switched in and out at each one, and a thread that exits after
/// its last sleep shows `prev_state=X`.
#[test]
fn a_zero_time_activation_is_switched_in_and_out() {
    let json = r#"{ "tasks": {
            "tick": { "cpus": [0], "loop": 50, "phases": {
                "p1": { "resume": "out", "timer": { "ref": "t", "period": 6000 } } } },
            "out": { "cpus": [1], "loop": -1, "suspend": "out", "run": 500 },
            "last": { "loop": 1, "run": 100, "sleep": 1000 } },
        "global": { "duration": 1 } }"#;
    let (text, names) = traced(&rtapp_scenario("hikey960", json), 0);
    let r = replay(&text).unwrap_or_else(|e| panic!("{e}"));
    let pid = |name: &str| names.iter().position(|n| n == name).unwrap() + 1;
    let tick = pid("tick-0");
    // Woken by its timer 50 times (the first pass starts at the start barrier).
    assert!(r.wakeups[&tick] >= 49, "{r:?}");
    assert!(r.switched_in[&tick] >= 50, "{r:?}");
    assert!(r.states_out[&tick]["S"] >= 49, "{r:?}");
    // tick exits after its last timer, last after its sleep: both without work at the end.
    assert_eq!(r.states_out[&tick].get("X"), Some(&1), "{r:?}");
    assert_eq!(r.states_out[&pid("last-2")].get("X"), Some(&1), "{r:?}");
}

/// The built-in experiments' traces keep every rule too (E1 with 12 threads: load-balance moves;
/// E4's hackbench on the A7s: wake-up moves; E4's rt-app run). E1 once gave the wake-up moves as
/// well: its threads blocked at sysbench's start until the main thread released them. Now each
/// forked thread first waits for its CPU's exit from CLUSTER_SLEEP (1.6 ms on an A53, 2.9 ms on
/// an A73), the main thread releases the start before any has got there, and no thread sleeps.
#[test]
fn the_experiments_traces_replay_cleanly() {
    let mut e1 = builtin("hikey960-asym-packing").unwrap();
    e1.sweep.as_mut().unwrap().values = vec![12];
    let (text, _) = traced(&e1, 0);
    let r = replay(&text).unwrap_or_else(|e| panic!("E1: {e}"));
    assert!(
        r.migrations.get("load_balance").is_some_and(|&n| n > 0),
        "{r:?}"
    );
    let (text, _) = traced(&builtin("tc2-wakeup-hackbench-a7").unwrap(), 0);
    let r = replay(&text).unwrap_or_else(|e| panic!("E4 hackbench: {e}"));
    assert!(r.migrations.get("wakeup").is_some_and(|&n| n > 0), "{r:?}");
    let (text, _) = traced(&builtin("tc2-wakeup-rtapp").unwrap(), 1);
    replay(&text).unwrap_or_else(|e| panic!("E4 rt-app: {e}"));
}
