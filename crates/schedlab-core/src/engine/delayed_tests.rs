//! DELAY_DEQUEUE (v6.12+, [`crate::sched::delayed`]) in whole runs with the invariant checker on
//! after every event (`verify.rs`: queue membership with delayed tasks, `h_nr_delayed`, the
//! `avg_vruntime` sums, util_est without the delayed tasks' estimates).

use super::*;
use crate::domains::SchedDomains;
use crate::kernel::{build_config, Governor};
use crate::topology::{presets::preset, Topology};
use crate::units::{NSEC_PER_USEC, WORK_SCALE};
use crate::workload::{Metric, Op, Program};

fn run(baseline: &str, delay: bool) -> RunOutcome {
    let t = Topology::build(&preset("hikey960").unwrap()).unwrap();
    let mut c = build_config(baseline, &[], None, Governor::Performance).unwrap();
    c.delay_dequeue = delay;
    let d = SchedDomains::build(&t, &c).unwrap();
    // Four tasks on CPUs 4-5 running 1.3 ms and sleeping 0.7 ms, one changing its nice value
    // every pass: sleeps at negative lag are common, and delayed tasks get picked, woken,
    // reweighted and balanced between the two CPUs.
    let us = |n: u64| n * NSEC_PER_USEC;
    let child = |nice: bool| {
        let mut ops = vec![Op::Run {
            work: us(1300) * WORK_SCALE,
            jitter_ppm: 0,
        }];
        ops.push(Op::Sleep(us(700)));
        if nice {
            ops.push(Op::SetNice(5));
            ops.push(Op::Run {
                work: us(300) * WORK_SCALE,
                jitter_ppm: 0,
            });
            ops.push(Op::SetNice(-3));
        }
        ops.push(Op::Repeat {
            slot: 0,
            times: 150,
            to: 0,
        });
        ops.push(Op::Exit);
        ops
    };
    let mask = CpuMask::try_from(vec![4, 5]).unwrap();
    let mut main = vec![Op::affinity(mask)];
    main.extend((1..=4).map(Op::Fork));
    main.extend([Op::MarkStart, Op::WaitChildren, Op::MarkEnd, Op::Exit]);
    let mut programs = vec![Program::new("main", main)];
    for i in 0..4 {
        programs.push(Program::new("c", child(i == 0)));
    }
    let inst = Instance::new(programs, vec![0], Metric::ElapsedSeconds);
    inst.validate().unwrap();
    Engine::new(World::new(t, d, c), &inst, 1, Limits::default(), false)
        .with_invariant_checks()
        .run()
        .unwrap_or_else(|e| panic!("{baseline} delay {delay}: {e}"))
}

#[test]
fn runs_with_delayed_tasks_keep_the_runqueue_invariants() {
    let on = run("v6.12", true);
    let off = run("v6.12", false);
    // The delayed tasks change who runs when (the schedule), not the work done.
    assert_ne!(on.counters.context_switches, off.counters.context_switches);
    for baseline in ["v6.13", "v6.19"] {
        run(baseline, true);
    }
}
