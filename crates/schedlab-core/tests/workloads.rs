//! The benchmark generators end to end: each runs through a Plan on a small machine and gives the
//! value one can work out by hand from its parameters.

use schedlab_core::experiment::{MachineRef, Plan, Scenario, Sweep, VariantSpec, SCENARIO_VERSION};
use schedlab_core::kernel::Governor;
use schedlab_core::topology::MachineSpec;
use schedlab_core::workload::{
    ebizzy::Ebizzy, gitsource::Gitsource, hackbench::Hackbench, kernbench::Kernbench,
    tbench::Tbench, twostep::TwoStep, Metric, Op, WorkloadSpec,
};

/// `n` identical CPUs of capacity 1024 with one OPP: work runs at the reference rate everywhere.
fn flat(n: u32) -> MachineRef {
    let spec: MachineSpec = serde_json::from_value(serde_json::json!({
        "name": format!("flat{n}"),
        "llc": "cluster",
        "clusters": [{"name": "big", "cores": n, "capacity_orig": 1024, "opps_mhz": [2000]}],
    }))
    .unwrap();
    MachineRef::Custom(spec)
}

fn scenario(machine: MachineRef, workload: WorkloadSpec, runs: u32) -> Scenario {
    Scenario {
        version: SCENARIO_VERSION,
        name: "test".into(),
        title: String::new(),
        description: String::new(),
        machine,
        workload,
        sweep: None,
        variants: vec![VariantSpec {
            name: "v6.8".into(),
            baseline: "v6.8".into(),
            patches: vec![],
            governor: Governor::Performance,
            config: None,
        }],
        runs,
        seed: 5,
        taskset: None,
        extras: Default::default(),
        limits: Default::default(),
    }
}

/// Every run's value (checked runs: the engine's invariants hold after every event).
fn values(plan: &Plan) -> Vec<f64> {
    (0..plan.len())
        .map(|i| plan.run_checked(i).unwrap().value)
        .collect()
}

fn close(v: f64, expect: f64, rel: f64) -> bool {
    (v - expect).abs() <= expect * rel
}

// ---------------------------------------------------------------- hackbench

fn hackbench(groups: u32, fds: u32, loops: u64) -> Hackbench {
    Hackbench {
        fds,
        ..Hackbench::new(groups, loops)
    }
}

#[test]
fn hackbench_delivers_every_message() {
    let h = hackbench(2, 3, 20);
    let mut plan = Plan::new(&scenario(flat(4), WorkloadSpec::Hackbench(h.clone()), 2)).unwrap();
    plan.instances[0].metric = Metric::Count;
    for v in values(&plan) {
        assert_eq!(v, (2 * 3 * 3 * 20) as f64);
    }
    // A buffer that holds one message at a time makes senders wait for the receivers; still every
    // message arrives.
    let small = Hackbench {
        buffer_bytes: Some(100),
        ..h
    };
    let mut plan = Plan::new(&scenario(flat(4), WorkloadSpec::Hackbench(small), 1)).unwrap();
    plan.instances[0].metric = Metric::Count;
    assert_eq!(values(&plan), vec![360.0]);
}

#[test]
fn hackbench_on_one_cpu_takes_the_sum_of_its_message_costs() {
    // 1 x 2 x 2 x 50 = 200 messages of (2000 + 20) ns to write and as much to read, one CPU.
    let h = hackbench(1, 2, 50);
    let plan = Plan::new(&scenario(flat(1), WorkloadSpec::Hackbench(h), 1)).unwrap();
    let t = values(&plan)[0];
    let expect = 200.0 * 4040e-9;
    assert!(close(t, expect, 0.02), "{t} vs {expect}");
}

#[test]
fn hackbench_spreads_over_cpus() {
    // 2 groups x 4 x 4 x 10 = 320 messages, 1.29 ms of CPU work: four CPUs cannot do it in less
    // than a quarter of that, and they must do better than one CPU. With v6.8's EEVDF pick
    // (v6.6+) a run reaches the bound exactly: all four CPUs stay busy from the first message to
    // the last (the CFS pick left some idle time), so the bound is inclusive.
    let h = hackbench(2, 4, 10);
    let total = 320.0 * 4040e-9;
    let plan = Plan::new(&scenario(flat(4), WorkloadSpec::Hackbench(h), 2)).unwrap();
    for t in values(&plan) {
        assert!(
            t >= total / 4.0 - 1e-12 && t < total * 0.9,
            "{t} vs {total}"
        );
    }
}

// ---------------------------------------------------------------- ebizzy

#[test]
fn ebizzy_records_per_second_follow_the_record_cost() {
    // One record: 512 KiB at 10000 MB/s + 3 us = 55.43 us. Two CPUs busy for 400 ms (less up to a
    // tick of one CPU: the threads wait for the start blocked, and both may be woken on one CPU
    // until a balance pass spreads them).
    let record = 524_288.0 * 1e-10 + 3e-6;
    let expect = 2.0 / record;
    for threads in [2, 4] {
        let e = Ebizzy::new(threads, 400);
        let plan = Plan::new(&scenario(flat(2), WorkloadSpec::Ebizzy(e), 1)).unwrap();
        let v = values(&plan)[0];
        assert!(
            close(v, expect, 0.015),
            "{threads} threads: {v} vs {expect}"
        );
    }
    // One thread on two CPUs: half the rate.
    let plan = Plan::new(&scenario(
        flat(2),
        WorkloadSpec::Ebizzy(Ebizzy::new(1, 400)),
        1,
    ))
    .unwrap();
    let v = values(&plan)[0];
    assert!(close(v, expect / 2.0, 0.015), "{v}");
}

#[test]
fn ebizzy_threads_default_to_twice_the_cpus_and_sweep() {
    let mut s = scenario(flat(3), WorkloadSpec::Ebizzy(Ebizzy::default()), 1);
    s.sweep = Some(Sweep {
        param: "threads".into(),
        values: vec![1, 6],
    });
    let plan = Plan::new(&s).unwrap();
    assert_eq!((forks(&plan, 0), forks(&plan, 1)), (1, 6));
    let w = WorkloadSpec::Ebizzy(Ebizzy::default());
    let plan = Plan::new(&scenario(flat(3), w, 1)).unwrap();
    assert_eq!(forks(&plan, 0), 6);
}

/// Forks the first program of parameter `i`'s instance makes.
fn forks(plan: &Plan, i: usize) -> usize {
    plan.instances[i].programs[0]
        .ops
        .iter()
        .filter(|op| matches!(op, Op::Fork(_)))
        .count()
}

// ---------------------------------------------------------------- tbench

/// Bytes over time of one transaction alone: (256 + 4096) bytes per (5 + 10) us of the tasks' own
/// work plus each send's loopback receive softirq on the sender's CPU (1000 ns per message and
/// 20 ns per KiB: 1005 ns for the request, 1080 ns for the reply).
const TBENCH_ONE_PAIR_MB_S: f64 = 4352.0 / 17.085e-6 / 1e6;

/// CPU time the tasks named `name` got in a traced run, from their `sched_switch` intervals; task 0
/// (the main task, which forks the others) left out.
fn runtime_by_name(trace: &schedlab_core::experiment::RunTrace, name: &str) -> u64 {
    use schedlab_core::trace::TraceEvent;
    let mut on_cpu: Vec<Option<(usize, u64)>> = vec![None; 64];
    let mut total = vec![0u64; trace.task_names.len()];
    for e in &trace.events {
        if let TraceEvent::Switch { t, cpu, next, .. } = *e {
            if let Some((task, since)) = on_cpu[cpu].take() {
                total[task] += t - since;
            }
            on_cpu[cpu] = next.map(|n| (n, t));
        }
    }
    (1..total.len())
        .filter(|&i| trace.task_names[i] == name)
        .map(|i| total[i])
        .sum()
}

#[test]
fn tbench_the_loopback_receive_softirq_is_the_senders_time() {
    // One pair on two CPUs: per transaction the client runs its 5 us and its request's softirq
    // (1005 ns), the server its 10 us and its reply's (1080 ns), each on its own CPU before the
    // other is woken: with the softirq charged to the receiver instead, the client's share would be
    // 5 + 1.08 us.
    let t = Tbench {
        duration_ms: 20,
        ..Tbench::new(1)
    };
    let plan = Plan::new(&scenario(flat(2), WorkloadSpec::Tbench(t), 1)).unwrap();
    let trace = plan.run_traced(0).unwrap();
    let transactions = trace.result.value * 1e6 * 0.020 / 4352.0;
    let client = runtime_by_name(&trace, "tbench") as f64 / transactions;
    let server = runtime_by_name(&trace, "tbench_srv") as f64 / transactions;
    assert!(
        (client - 6_005.0).abs() < 60.0,
        "client {client} ns per transaction"
    );
    assert!(
        (server - 11_080.0).abs() < 60.0,
        "server {server} ns per transaction"
    );
    // Without the softirq cost the pair is back at (5 + 10) us per transaction.
    let t = Tbench {
        duration_ms: 20,
        rx_softirq_ns: 0,
        rx_softirq_ns_per_kib: 0,
        ..Tbench::new(1)
    };
    let plan = Plan::new(&scenario(flat(2), WorkloadSpec::Tbench(t), 1)).unwrap();
    let v = plan.run(0).unwrap().value;
    assert!(close(v, 4352.0 / 15e-6 / 1e6, 0.02), "{v}");
}

#[test]
fn tbench_one_client_moves_a_transaction_per_client_and_server_work() {
    let t = Tbench {
        duration_ms: 50,
        ..Tbench::new(1)
    };
    let plan = Plan::new(&scenario(flat(2), WorkloadSpec::Tbench(t), 2)).unwrap();
    for v in values(&plan) {
        assert!(close(v, TBENCH_ONE_PAIR_MB_S, 0.02), "{v}");
    }
}

#[test]
fn tbench_clients_share_the_cpus() {
    // Four pairs on two CPUs keep both busy: twice one pair's throughput at most, and more than one
    // pair's. On one CPU, four pairs get what one pair gets.
    let t = Tbench {
        duration_ms: 50,
        ..Tbench::new(4)
    };
    let mut s = scenario(flat(2), WorkloadSpec::Tbench(t.clone()), 1);
    let v = values(&Plan::new(&s).unwrap())[0];
    assert!(
        v > 1.3 * TBENCH_ONE_PAIR_MB_S && v < 2.02 * TBENCH_ONE_PAIR_MB_S,
        "{v}"
    );
    s.machine = flat(1);
    let v = values(&Plan::new(&s).unwrap())[0];
    assert!(close(v, TBENCH_ONE_PAIR_MB_S, 0.02), "{v}");
}

// ---------------------------------------------------------------- kernbench

/// 60 files of 4 ms on average, a 10 ms link, no noise.
fn small_build(jobs: u32) -> Kernbench {
    Kernbench {
        files: 60,
        work_ms: 4,
        link_ms: 10,
        jitter_ppm: 0,
        ..Kernbench::new(jobs)
    }
}

/// Per file: make's work, the compiler's start and its compile, in seconds.
fn job_seconds(k: &Kernbench, i: u32) -> f64 {
    (k.make_us as f64 * 1e3 + k.exec_us as f64 * 1e3 + k.file_work_ns(i) as f64) * 1e-9
}

#[test]
fn kernbench_with_one_job_takes_the_sum_of_its_files() {
    let k = small_build(1);
    let expect = (0..k.files).map(|i| job_seconds(&k, i)).sum::<f64>() + 0.010;
    let plan = Plan::new(&scenario(flat(2), WorkloadSpec::Kernbench(k), 1)).unwrap();
    let t = values(&plan)[0];
    assert!(close(t, expect, 0.01), "{t} vs {expect}");
}

#[test]
fn kernbench_jobs_run_in_parallel_in_makefile_order() {
    // make -j4 on four CPUs: each file goes to the first free slot, in order (a list schedule).
    let k = small_build(4);
    let mut free = [0.0f64; 4];
    for i in 0..k.files {
        let slot = (0..4).min_by(|&a, &b| free[a].total_cmp(&free[b])).unwrap();
        free[slot] += job_seconds(&k, i);
    }
    let expect = free.iter().cloned().fold(0.0, f64::max) + 0.010;
    let mut s = scenario(flat(4), WorkloadSpec::Kernbench(k.clone()), 2);
    s.sweep = Some(Sweep {
        param: "jobs".into(),
        values: vec![4, 0],
    });
    let plan = Plan::new(&s).unwrap();
    let v = values(&plan);
    for &t in &v[..2] {
        assert!(close(t, expect, 0.05), "{t} vs {expect}");
    }
    // Unlimited jobs on four CPUs: all compilers at once, time-shared; the CPUs stay busy.
    let total = (0..k.files).map(|i| job_seconds(&k, i)).sum::<f64>();
    for &t in &v[2..] {
        assert!(
            t > total / 4.0 && t < total / 4.0 * 1.15 + 0.010,
            "{t} vs {total}"
        );
    }
}

// ---------------------------------------------------------------- gitsource

fn chain(processes: u32, io_every: u32, parallel_every: u32) -> Gitsource {
    Gitsource {
        processes,
        io_every,
        parallel_every,
        jitter_ppm: 0,
        ..Gitsource::default()
    }
}

/// Shell, exec and command work of command `i`, in seconds.
fn command_seconds(g: &Gitsource, i: u32) -> f64 {
    ((g.shell_us + g.exec_us) as f64 * 1e3 + g.command_work_ns(i) as f64) * 1e-9
}

#[test]
fn gitsource_serial_chain_takes_the_sum_of_its_commands() {
    let g = chain(200, 0, 0);
    let work: f64 = (0..200).map(|i| command_seconds(&g, i)).sum();
    let plan = Plan::new(&scenario(flat(4), WorkloadSpec::Gitsource(g), 1)).unwrap();
    let t = values(&plan)[0];
    assert!(close(t, work, 0.01), "{t} vs {work}");
    // Every fifth command also sleeps 200 us: 40 sleeps more.
    let g = chain(200, 5, 0);
    let plan = Plan::new(&scenario(flat(4), WorkloadSpec::Gitsource(g), 1)).unwrap();
    let t = values(&plan)[0];
    let expect = work + 40.0 * 200e-6;
    assert!(close(t, expect, 0.01), "{t} vs {expect}");
}

#[test]
fn gitsource_pipelines_overlap_on_two_cpus_and_not_on_one() {
    // Every second step is a pipeline of two commands.
    let g = chain(150, 0, 2);
    let work: f64 = (0..150).map(|i| command_seconds(&g, i)).sum();
    let step_time: f64 = g
        .steps()
        .iter()
        .map(|s| {
            // The shell forks the commands one after another; they then run side by side.
            let shell = s.len() as f64 * g.shell_us as f64 * 1e-6;
            let longest = s
                .clone()
                .map(|i| command_seconds(&g, i) - g.shell_us as f64 * 1e-6)
                .fold(0.0, f64::max);
            shell + longest
        })
        .sum();
    let plan = Plan::new(&scenario(flat(4), WorkloadSpec::Gitsource(g.clone()), 1)).unwrap();
    let t = values(&plan)[0];
    assert!(close(t, step_time, 0.03), "{t} vs {step_time}");
    let plan = Plan::new(&scenario(flat(1), WorkloadSpec::Gitsource(g), 1)).unwrap();
    let t = values(&plan)[0];
    assert!(close(t, work, 0.01), "{t} vs {work}");
}

// ---------------------------------------------------------------- two-step (E5)

fn two_step(pins: Vec<usize>, step1_ms: u64, work_ms: u64) -> WorkloadSpec {
    WorkloadSpec::TwoStep(TwoStep {
        pins,
        step1_ms,
        work_ms,
        ..TwoStep::default()
    })
}

#[test]
fn two_step_tasks_work_through_step_one_then_their_work() {
    // One task per CPU: 50 ms of step 1, then 100 ms of work each.
    let plan = Plan::new(&scenario(flat(4), two_step(vec![0, 1, 2, 3], 50, 100), 1)).unwrap();
    let t = values(&plan)[0];
    assert!(close(t, 0.150, 0.01), "{t}");
    // Two tasks share CPU 0 and CPU 3 is idle in step 1. Once free, the tasks spread over the four
    // CPUs: ~150 ms again plus the time balancing takes; had they stayed pinned, 250 ms.
    let plan = Plan::new(&scenario(flat(4), two_step(vec![0, 0, 1, 2], 50, 100), 1)).unwrap();
    let t = values(&plan)[0];
    assert!(t > 0.149 && t < 0.170, "{t}");
}

#[test]
fn two_step_runs_e5s_layout_on_juno() {
    // 6 tasks of 200 ms (reference) on 2 bigs (1024) and 4 littles (383) after a 20 ms step 1: the
    // total work over the total capacity bounds the time from below; a task stuck on a little CPU
    // bounds it from above.
    let s = scenario(
        MachineRef::Preset("juno-r2".into()),
        two_step(TwoStep::default().pins, 20, 200),
        2,
    );
    let plan = Plan::new(&s).unwrap();
    let lower = 6.0 * 0.200 / ((2.0 * 1024.0 + 4.0 * 383.0) / 1024.0);
    let upper = 0.020 + 2.0 * 0.200 * 1024.0 / 383.0;
    for t in values(&plan) {
        assert!(t > lower && t < upper, "{t} outside {lower}..{upper}");
    }
}
