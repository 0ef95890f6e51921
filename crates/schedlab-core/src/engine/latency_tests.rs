//! The latency recorder ([`crate::latency`]) on hand-built runs whose waits can be worked out.

use super::*;
use crate::domains::SchedDomains;
use crate::kernel::{build_config, Governor};
use crate::topology::{presets::preset, Topology};
use crate::units::{NSEC_PER_MSEC, WORK_SCALE};
use crate::workload::{Metric, Op, Program};

fn run(inst: &Instance) -> RunOutcome {
    let mut spec = preset("hikey960").unwrap();
    for c in &mut spec.clusters {
        c.power.idle_states.clear();
        c.power.uncore.deep_state = None;
    }
    let t = Topology::build(&spec).unwrap();
    let c = build_config("v6.8", &[], None, Governor::Performance).unwrap();
    let d = SchedDomains::build(&t, &c).unwrap();
    inst.validate().unwrap();
    Engine::new(World::new(t, d, c), inst, 1, Limits::default(), false)
        .with_invariant_checks()
        .run()
        .unwrap()
}

fn spinner(name: &str) -> Program {
    Program::new(
        name,
        vec![
            Op::Run {
                work: 100 * NSEC_PER_MSEC * WORK_SCALE,
                jitter_ppm: 0,
            },
            Op::Exit,
        ],
    )
}

#[test]
fn two_tasks_on_one_cpu_wait_while_the_other_runs() {
    // A main task pinned to CPU 4 (an A73 at capacity 1024) forks A and B, 100 ms of work each,
    // and waits for them. From t = 0 one of them runs while the other waits, and the CPU never
    // idles: the one that exits last, at 200 ms, has run 100 ms, so it waited exactly 100 ms in
    // all (its fork wake-up's wait and every wait after a tick preemption).
    let main = vec![
        Op::SetAffinity(CpuMask::single(4)),
        Op::Fork(1),
        Op::Fork(2),
        Op::MarkStart,
        Op::WaitChildren,
        Op::MarkEnd,
        Op::Exit,
    ];
    let inst = Instance::new(
        vec![Program::new("main", main), spinner("a"), spinner("b")],
        vec![0],
        Metric::ElapsedSeconds,
    );
    let out = run(&inst);
    assert!((out.value - 0.200).abs() < 1e-6, "{}", out.value);
    let by = |name: &str| out.latency.names.iter().find(|n| n.name == name).unwrap();
    let (a, b) = (by("a"), by("b"));
    assert_eq!((a.tasks, b.tasks), (1, 1));
    // One wake-up each (the fork); the waits add the preemptions: time slicing on one CPU.
    assert_eq!((a.wakeup.nr, b.wakeup.nr), (1, 1));
    assert!(
        a.wait.nr >= 2 && b.wait.nr >= 2,
        "{} {}",
        a.wait.nr,
        b.wait.nr
    );
    let last = a.wait.sum.max(b.wait.sum);
    assert!(
        last.abs_diff(100 * NSEC_PER_MSEC) <= 1_000,
        "{} {}",
        a.wait.sum,
        b.wait.sum
    );
    // The first to run had no wake-up latency; the other waited for the first's slice.
    assert_eq!(a.wakeup.min.min(b.wakeup.min), 0);
    assert!(a.wakeup.max.max(b.wakeup.max) > 0);
    // The main task: its fork, then the wake-up when its last child exits (on an idle CPU: 0).
    let m = by("main");
    assert_eq!(m.wakeup.nr, 2);
    assert_eq!(m.wakeup.max, 0);
}
