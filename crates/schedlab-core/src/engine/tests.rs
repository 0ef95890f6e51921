//! The interpreter's ops on small programs, each checked against what the op must do to time.

use super::*;
use crate::domains::SchedDomains;
use crate::kernel::{build_config, Governor};
use crate::topology::{presets::preset, Topology};
use crate::units::{NSEC_PER_MSEC, WORK_SCALE};
use crate::workload::{Metric, Op, Program};

fn ms(m: u64) -> u64 {
    m * NSEC_PER_MSEC * WORK_SCALE
}

/// Runs `inst` on a preset without its idle states: these tests time the ops, and a wake-up's
/// exit latency (see [`a_wake_up_from_a_deep_idle_state_waits_out_its_exit_latency`]) would add
/// the preset's idle-state latencies to every figure.
fn run(machine: &str, inst: &Instance) -> Result<RunOutcome> {
    let mut spec = preset(machine).unwrap();
    for c in &mut spec.clusters {
        c.power.idle_states.clear();
        c.power.uncore.deep_state = None;
    }
    let t = Topology::build(&spec).unwrap();
    let c = build_config("v4.16", &[], None, Governor::Performance).unwrap();
    let d = SchedDomains::build(&t, &c).unwrap();
    inst.validate()?;
    Engine::new(World::new(t, d, c), inst, 1, Limits::default(), false)
        .with_invariant_checks()
        .run()
}

fn work(m: u64) -> Op {
    Op::Run {
        work: ms(m),
        jitter_ppm: 0,
    }
}

/// A main task pinned to `pin` forks the given programs (1..) and times until they all exit.
fn forking(pin: CpuMask, children: Vec<Program>, metric: Metric) -> Instance {
    let mut main = vec![Op::affinity(pin)];
    main.extend((1..=children.len()).map(Op::Fork));
    main.extend([Op::MarkStart, Op::WaitChildren, Op::MarkEnd, Op::Exit]);
    let mut programs = vec![Program::new("main", main)];
    programs.extend(children);
    Instance::new(programs, vec![0], metric)
}

/// Task A (nice 0) and task B (nice `nice_b`) share CPU 4 of a HiKey960; the value is the time A
/// takes to do 100 ms of work while B keeps running.
fn shared_cpu_time(nice_b: i32) -> f64 {
    let a = Program::new("a", vec![work(100), Op::MarkEnd, Op::Exit]);
    let b = Program::new("b", vec![Op::SetNice(nice_b), work(400), Op::Exit]);
    let mut inst = forking(CpuMask::single(4), vec![a, b], Metric::ElapsedSeconds);
    // A marks the end itself; the main task's mark comes later and is dropped here.
    inst.programs[0].ops.retain(|op| *op != Op::MarkEnd);
    run("hikey960", &inst).unwrap().value
}

#[test]
fn cpu_time_is_shared_in_proportion_to_nice_weights() {
    // Equal weights: A gets about half the CPU (~200 ms, give or take a slice); nice 5 (weight 335):
    // A gets 1024/1359 of it.
    let equal = shared_cpu_time(0);
    assert!((equal - 0.200).abs() < 0.015, "{equal}");
    let favoured = shared_cpu_time(5);
    let expect = 0.100 * 1359.0 / 1024.0;
    assert!((favoured - expect).abs() < 0.012, "{favoured} vs {expect}");
}

#[test]
fn run_takes_longer_on_a_little_cpu_and_run_for_does_not() {
    let one = |pin: usize, op: Op| {
        let child = Program::new("c", vec![op, Op::Exit]);
        run(
            "hikey960",
            &forking(CpuMask::single(pin), vec![child], Metric::ElapsedSeconds),
        )
        .unwrap()
        .value
    };
    let big = one(4, work(10));
    let little = one(0, work(10));
    assert!((big - 0.010).abs() < 1e-4, "{big}");
    assert!((little - 0.010 * 1024.0 / 462.0).abs() < 1e-4, "{little}");
    let wall = one(0, Op::RunFor(10 * NSEC_PER_MSEC));
    assert!((wall - 0.010).abs() < 1e-4, "{wall}");
}

#[test]
fn repeat_loops_the_given_number_of_times() {
    let child = Program::new(
        "c",
        vec![
            work(1),
            Op::Count(1),
            Op::Repeat {
                slot: 0,
                times: 7,
                to: 0,
            },
            Op::Exit,
        ],
    );
    let out = run(
        "hikey960",
        &forking(CpuMask::single(4), vec![child], Metric::Count),
    )
    .unwrap();
    assert_eq!(out.value, 7.0);
}

#[test]
fn a_periodic_timer_paces_a_loop_and_a_late_relative_timer_restarts() {
    // 10 periods of 4 ms, 1 ms of work each: done after ~40 ms, asleep most of the time.
    let periodic = |run_ms: u64, absolute: bool| {
        let child = Program::new(
            "c",
            vec![
                work(run_ms),
                Op::Timer {
                    timer: 0,
                    period: 4 * NSEC_PER_MSEC,
                    absolute,
                },
                Op::Repeat {
                    slot: 0,
                    times: 10,
                    to: 0,
                },
                Op::Exit,
            ],
        );
        let mut inst = forking(CpuMask::single(4), vec![child], Metric::ElapsedSeconds);
        inst.timers = 1;
        run("hikey960", &inst).unwrap()
    };
    let out = periodic(1, false);
    assert!((out.value - 0.040).abs() < 1e-4, "{}", out.value);
    assert!(out.busy_cpu_ns < 12 * NSEC_PER_MSEC, "{}", out.busy_cpu_ns);
    // 6 ms of work per 4 ms period: always late; no sleeping either way, the work dominates.
    let late = periodic(6, false);
    assert!((late.value - 0.060).abs() < 1e-3, "{}", late.value);
}

#[test]
fn a_barrier_releases_everyone_when_the_last_arrives() {
    // Three tasks on three CPUs do 1, 5 and 9 ms before the barrier, then 1 ms each.
    let child = |m| {
        Program::new(
            "c",
            vec![
                work(m),
                Op::Barrier { id: 0, parties: 3 },
                work(1),
                Op::Exit,
            ],
        )
    };
    let mut inst = forking(
        CpuMask::try_from(vec![4, 5, 6]).unwrap(),
        vec![child(1), child(5), child(9)],
        Metric::ElapsedSeconds,
    );
    inst.barriers = 1;
    let out = run("hikey960", &inst).unwrap();
    assert!((out.value - 0.010).abs() < 2e-4, "{}", out.value);
}

#[test]
fn a_mutex_serialises_critical_sections() {
    // Two tasks on two big CPUs each hold one mutex for 5 ms, three times: 30 ms in all.
    let child = || {
        Program::new(
            "c",
            vec![
                Op::Lock(0),
                work(5),
                Op::Unlock(0),
                Op::Repeat {
                    slot: 0,
                    times: 3,
                    to: 0,
                },
                Op::Exit,
            ],
        )
    };
    let mut inst = forking(
        CpuMask::try_from(vec![4, 5]).unwrap(),
        vec![child(), child()],
        Metric::ElapsedSeconds,
    );
    inst.mutexes = 1;
    let out = run("hikey960", &inst).unwrap();
    assert!((out.value - 0.030).abs() < 3e-4, "{}", out.value);
}

#[test]
fn condition_signal_and_suspend_resume_hand_work_over() {
    // A waits on a condition; B works 3 ms then signals; A then works 2 ms: 5 ms.
    let a = Program::new(
        "a",
        vec![
            Op::Lock(0),
            Op::CondWait { cond: 0, mutex: 0 },
            Op::Lock(0),
            Op::Unlock(0),
            work(2),
            Op::Exit,
        ],
    );
    let b = Program::new(
        "b",
        vec![
            work(3),
            Op::Lock(0),
            Op::CondSignal(0),
            Op::Unlock(0),
            Op::Exit,
        ],
    );
    let mut inst = forking(
        CpuMask::try_from(vec![4, 5]).unwrap(),
        vec![a, b],
        Metric::ElapsedSeconds,
    );
    inst.mutexes = 1;
    inst.conds = 1;
    let out = run("hikey960", &inst).unwrap();
    assert!((out.value - 0.005).abs() < 2e-4, "{}", out.value);
    // A resume that comes first is remembered.
    let a = Program::new("a", vec![work(4), Op::Suspend(0), work(1), Op::Exit]);
    let b = Program::new("b", vec![work(1), Op::Resume(0), Op::Exit]);
    let mut inst = forking(
        CpuMask::try_from(vec![4, 5]).unwrap(),
        vec![a, b],
        Metric::ElapsedSeconds,
    );
    inst.events = 1;
    let out = run("hikey960", &inst).unwrap();
    assert!((out.value - 0.005).abs() < 2e-4, "{}", out.value);
}

#[test]
fn a_channel_blocks_the_writer_when_full_and_the_reader_when_empty() {
    // The writer sends 10 messages of 100 bytes into a 200-byte buffer; the reader takes 1 ms per
    // message. The writer waits for room, the reader for data; all bytes arrive.
    let writer = Program::new(
        "w",
        vec![
            Op::Send {
                chan: 0,
                bytes: 100,
            },
            Op::Repeat {
                slot: 0,
                times: 10,
                to: 0,
            },
            Op::Exit,
        ],
    );
    let reader = Program::new(
        "r",
        vec![
            Op::Recv {
                chan: 0,
                bytes: 100,
            },
            Op::Count(100),
            work(1),
            Op::Repeat {
                slot: 0,
                times: 10,
                to: 0,
            },
            Op::Exit,
        ],
    );
    let mut inst = forking(
        CpuMask::try_from(vec![4, 5]).unwrap(),
        vec![writer, reader],
        Metric::MegabytesPerSecond,
    );
    inst.channels = vec![200];
    let out = run("hikey960", &inst).unwrap();
    let expect = 1000.0 / 0.010 / 1e6;
    assert!(
        (out.value - expect).abs() / expect < 0.02,
        "{} vs {expect}",
        out.value
    );
}

#[test]
fn yield_lets_the_other_task_run() {
    // Both on one CPU: A yields after each 1 ms; B runs 1 ms then marks. Without yield, B waits for
    // A's slice; with it, B finishes within ~2 ms.
    let a = Program::new(
        "a",
        vec![
            work(1),
            Op::Yield,
            Op::Repeat {
                slot: 0,
                times: 20,
                to: 0,
            },
            Op::Exit,
        ],
    );
    let b = Program::new("b", vec![work(1), Op::MarkEnd, Op::Exit]);
    let mut inst = forking(CpuMask::single(4), vec![a, b], Metric::ElapsedSeconds);
    inst.programs[0].ops.retain(|op| *op != Op::MarkEnd);
    let out = run("hikey960", &inst).unwrap();
    assert!(out.value < 0.0025, "{}", out.value);
}

#[test]
fn a_workload_that_never_wakes_up_is_an_error() {
    let a = Program::new("a", vec![Op::Suspend(0), Op::Exit]);
    let mut inst = forking(CpuMask::single(4), vec![a], Metric::ElapsedSeconds);
    inst.events = 1;
    assert!(matches!(run("hikey960", &inst), Err(Error::Scenario(m)) if m.contains("deadlocked")));
    let spin = Program::new("s", vec![Op::Count(1), Op::Jump(0)]);
    let inst = forking(CpuMask::single(4), vec![spin], Metric::Count);
    assert!(
        matches!(run("hikey960", &inst), Err(Error::Workload(m)) if m.contains("without doing any work"))
    );
    let bad = Program::new("b", vec![Op::Lock(3)]);
    assert!(forking(CpuMask::single(4), vec![bad], Metric::Count)
        .validate()
        .is_err());
}

#[test]
fn the_run_stops_at_its_duration() {
    let spin = Program::new("s", vec![work(1), Op::Count(1), Op::Jump(0)]);
    let mut inst = forking(CpuMask::single(4), vec![spin], Metric::Count);
    inst.stop_at = Some(50 * NSEC_PER_MSEC);
    let out = run("hikey960", &inst).unwrap();
    assert_eq!(out.sim_ns, 50 * NSEC_PER_MSEC);
    assert!((48.0..=50.0).contains(&out.value), "{}", out.value);
}

/// A duration equal to `limits.max_sim_seconds` is within the limit: the run stops at its
/// duration (rt-app's own `mp3-long.json` runs 600 s, the default limit).
/// One task spinning on CPU 4 of hikey960 (v4.16, performance) for a second, and its world.
fn spinning_one_second() -> (Instance, World) {
    let spin = Program::new("s", vec![work(1), Op::Count(1), Op::Jump(0)]);
    let mut inst = forking(CpuMask::single(4), vec![spin], Metric::Count);
    inst.stop_at = Some(NSEC_PER_SEC);
    let t = Topology::build(&preset("hikey960").unwrap()).unwrap();
    let c = build_config("v4.16", &[], None, Governor::Performance).unwrap();
    let d = SchedDomains::build(&t, &c).unwrap();
    (inst, World::new(t, d, c))
}

#[test]
fn a_duration_equal_to_the_time_limit_stops_the_run() {
    let (inst, world) = spinning_one_second();
    let limits = Limits {
        max_sim_seconds: 1,
        ..Limits::default()
    };
    let out = Engine::new(world, &inst, 1, limits, false).run().unwrap();
    assert_eq!(out.sim_ns, NSEC_PER_SEC);
}

/// A run that would queue more events than an event's tag can number fails with a limit error
/// (the sequence number would spill into the kind bits).
#[test]
fn a_run_out_of_event_numbers_fails_with_a_limit() {
    let (inst, world) = spinning_one_second();
    let mut engine = Engine::new(world, &inst, 1, Limits::default(), false);
    engine.seq = MAX_EVENT_SEQ - 100;
    match engine.run() {
        Err(Error::Limit(m)) => assert!(m.contains("events queued"), "{m}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_run_that_ends_on_a_tick_preemption_is_not_run_twice() {
    // Two tasks doing 20 x 1 ms each on one CPU: their runs end on tick boundaries (4 ms) where
    // the tick preempts; the CPU must be busy exactly 40 ms.
    let child = || {
        Program::new(
            "c",
            vec![
                work(1),
                Op::Repeat {
                    slot: 0,
                    times: 20,
                    to: 0,
                },
                Op::Exit,
            ],
        )
    };
    let inst = forking(
        CpuMask::single(4),
        vec![child(), child()],
        Metric::ElapsedSeconds,
    );
    let out = run("hikey960", &inst).unwrap();
    assert!((out.value - 0.040).abs() < 1e-4, "{}", out.value);
}

#[test]
fn a_run_with_a_duration_ends_there_when_everyone_is_blocked() {
    let a = Program::new("a", vec![work(1), Op::Suspend(0), Op::Exit]);
    let mut inst = forking(CpuMask::single(4), vec![a], Metric::Count);
    inst.events = 1;
    inst.stop_at = Some(20 * NSEC_PER_MSEC);
    let out = run("hikey960", &inst).unwrap();
    assert_eq!(out.sim_ns, 20 * NSEC_PER_MSEC);
}

#[test]
fn a_cpu_bound_task_keeps_its_cpus_utilization_through_slice_ends() {
    // One task on a Juno little CPU, preempted by the tick at each slice end with nothing else to
    // run: the switch must not count as idle time (the PELT clock only syncs when the rq is idle),
    // so the rq's util_avg keeps up with its runnable_avg.
    let a = Program::new(
        "a",
        vec![
            work(1),
            Op::Repeat {
                slot: 0,
                times: 200,
                to: 0,
            },
            Op::Exit,
        ],
    );
    let inst = forking(CpuMask::single(3), vec![a], Metric::ElapsedSeconds);
    let t = Topology::build(&preset("juno-r2").unwrap()).unwrap();
    let c = build_config("v6.7", &[], None, Governor::Performance).unwrap();
    let d = SchedDomains::build(&t, &c).unwrap();
    let out = Engine::new(World::new(t, d, c), &inst, 1, Limits::default(), true)
        .run()
        .unwrap();
    let mut seen = 0;
    for dec in out.decisions.unwrap() {
        if let crate::sched::log::Decision::Balance(b) = dec {
            for g in b.groups.iter().filter(|g| {
                g.cpus == CpuMask::single(3) && g.nr_running == 1 && b.t > 100 * NSEC_PER_MSEC
            }) {
                assert_eq!(
                    g.util, 383,
                    "at {} ns: util {} runnable {}",
                    b.t, g.util, g.runnable
                );
                seen += 1;
            }
        }
    }
    assert!(seen > 0);
}

#[test]
fn a_yield_spinner_beside_a_running_task_lets_time_advance() {
    // Fuzz finding D4: on one CPU, a task yielding in a loop and a task running 1 us in a loop.
    // The yield's reschedule request used to outlive the pick it asked for, so `drain()` kept
    // scheduling the CPU at one instant, forever. Now the runner makes progress until the stop.
    let spin = Program::new("y", vec![Op::Yield, Op::Jump(0)]);
    let runner = Program::new(
        "r",
        vec![
            Op::Run {
                work: 1000 * WORK_SCALE,
                jitter_ppm: 0,
            },
            Op::Count(1),
            Op::Jump(0),
        ],
    );
    let mut inst = forking(CpuMask::single(4), vec![spin, runner], Metric::Count);
    inst.stop_at = Some(20 * NSEC_PER_MSEC);
    let out = run("hikey960", &inst).unwrap();
    assert_eq!(out.sim_ns, 20 * NSEC_PER_MSEC);
    // The runner shares the CPU with the spinner, which gives it back at once: nearly all of it.
    assert!(out.value > 15_000.0, "{}", out.value);
}

#[test]
fn tasks_waking_each_other_without_work_are_an_error_not_a_hang() {
    // Two tasks on two CPUs hand a token back and forth with no work in between: every wake-up
    // reschedules the other CPU at the same instant. The engine stops with a message instead of
    // looping inside one event.
    let ping = Program::new(
        "ping",
        vec![
            Op::affinity(CpuMask::single(4)),
            Op::Resume(0),
            Op::Suspend(1),
            Op::Jump(1),
        ],
    );
    let pong = Program::new(
        "pong",
        vec![
            Op::affinity(CpuMask::single(5)),
            Op::Suspend(0),
            Op::Resume(1),
            Op::Jump(1),
        ],
    );
    let mut inst = forking(
        CpuMask::single(4).or(&CpuMask::single(5)),
        vec![ping, pong],
        Metric::Count,
    );
    inst.events = 2;
    let e = run("hikey960", &inst).unwrap_err().to_string();
    assert!(e.contains("reschedules in one instant"), "{e}");
}

/// Task A wakes on HiKey960 CPU 4, where B (pinned there) has run for 40 ms, is let run anywhere,
/// and execs; the counters of the run.
fn exec_from_a_shared_cpu(exec: bool) -> Counters {
    let all = CpuMask::first_n(8);
    let mut a = vec![
        Op::affinity(CpuMask::single(4)),
        Op::Sleep(40 * NSEC_PER_MSEC),
        Op::affinity(all),
    ];
    if exec {
        a.push(Op::Exec);
    }
    a.extend([work(10), Op::Exit]);
    let b = vec![Op::affinity(CpuMask::single(4)), work(60), Op::Exit];
    let inst = forking(
        CpuMask::single(0),
        vec![Program::new("a", a), Program::new("b", b)],
        Metric::ElapsedSeconds,
    );
    run("hikey960", &inst).unwrap().counters
}

#[test]
fn sched_exec_moves_a_task_off_a_shared_cpu() {
    // sched_exec(): select_task_rq_fair(SD_BALANCE_EXEC) from CPU 4, where B also runs, takes the
    // slow path: v4.16's find_idlest_group() at MC sees B's ~600 utilization on CPU 4 and an idle
    // big CPU with all its capacity spare, and sends A there.
    let c = exec_from_a_shared_cpu(true);
    assert_eq!((c.execs, c.exec_migrations), (1, 1));
    let c = exec_from_a_shared_cpu(false);
    assert_eq!((c.execs, c.exec_migrations), (0, 0));
}

/// A HiKey960 A73 CPU idle for 20 ms with its task's timer 20 ms away: the menu governor picks
/// CLUSTER_SLEEP_1 (min-residency 3500 us, entry + exit 3700 us), and the timer's wake-up pays its
/// exit latency (2900 us) before the task runs again. Without idle states it pays nothing.
#[test]
fn a_wake_up_from_a_deep_idle_state_waits_out_its_exit_latency() {
    let elapsed = |spec: crate::topology::MachineSpec, sibling_busy: bool| {
        let t = Topology::build(&spec).unwrap();
        let c = build_config("v4.16", &[], None, Governor::Performance).unwrap();
        let d = SchedDomains::build(&t, &c).unwrap();
        let main = vec![
            Op::affinity(CpuMask::single(4)),
            Op::MarkStart,
            Op::Sleep(20 * NSEC_PER_MSEC),
            work(1),
            Op::MarkEnd,
            Op::Exit,
        ];
        let spin = vec![Op::affinity(CpuMask::single(5)), work(40), Op::Exit];
        let mut programs = vec![Program::new("main", main)];
        let mut starts = vec![0];
        if sibling_busy {
            programs.push(Program::new("spin", spin));
            starts.push(1);
        }
        let inst = Instance::new(programs, starts, Metric::ElapsedSeconds);
        Engine::new(World::new(t, d, c), &inst, 1, Limits::default(), false)
            .with_invariant_checks()
            .run()
            .unwrap()
            .value
    };
    let with_states = elapsed(preset("hikey960").unwrap(), false);
    let mut flat = preset("hikey960").unwrap();
    for c in &mut flat.clusters {
        c.power.idle_states.clear();
        c.power.uncore.deep_state = None;
    }
    let without = elapsed(flat.clone(), false);
    assert!((without - 0.021).abs() < 1e-9, "{without}");
    assert!(
        (with_states - without - 0.0029).abs() < 1e-9,
        "{with_states} vs {without}"
    );
    // CPU 5 busy throughout keeps the A73 cluster up: CPU 4 asked for CLUSTER_SLEEP_1 but the
    // firmware only took it to CPU_SLEEP_1 (PSCI platform coordination), whose exit is 550 us.
    let kept_up = elapsed(preset("hikey960").unwrap(), true);
    let without = elapsed(flat, true);
    assert!(
        (kept_up - without - 0.00055).abs() < 1e-9,
        "{kept_up} vs {without}"
    );
}

/// turbostat's Bzy_MHz: the average frequency over the CPUs' busy time only. An A53 busy for
/// 10 ms at 1844 MHz and an A73 busy for 30 ms at 2362 MHz read (1844 x 10 + 2362 x 30) / 40 =
/// 2232.5 MHz; the six idle CPUs, whatever their clocks, count for nothing.
#[test]
fn busy_mhz_averages_the_frequency_over_busy_time_only() {
    let t = Topology::build(&preset("hikey960").unwrap()).unwrap();
    let c = build_config("v4.16", &[], None, Governor::Performance).unwrap();
    let d = SchedDomains::build(&t, &c).unwrap();
    let pinned = |name: &str, cpu: usize, ms: u64| {
        let ops = vec![
            Op::affinity(CpuMask::single(cpu)),
            Op::RunFor(ms * NSEC_PER_MSEC),
            Op::Exit,
        ];
        Program::new(name, ops)
    };
    let inst = Instance::new(
        vec![pinned("little", 0, 10), pinned("big", 4, 30)],
        vec![0, 1],
        Metric::Count,
    );
    let mut w = World::new(t, d, c);
    for cpu in [0, 4] {
        let p = w.topo.cpus[cpu].policy;
        let fd = w.topo.cpus[cpu].freq_domain;
        let peak = w.topo.freq_domains[fd].peak_khz();
        w.set_frequency(p, peak);
    }
    let out = Engine::new(w, &inst, 1, Limits::default(), false)
        .run()
        .unwrap();
    assert!((out.busy_mhz - 2232.5).abs() < 1e-6, "{}", out.busy_mhz);
}
