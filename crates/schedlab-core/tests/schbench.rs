//! schbench end to end on machines small enough that its latencies can be worked out by hand, and
//! the per-task-name latency report every workload gets.

use schedlab_core::experiment::{MachineRef, Plan, Scenario, VariantSpec, SCENARIO_VERSION};
use schedlab_core::kernel::Governor;
use schedlab_core::latency::Pct;
use schedlab_core::topology::MachineSpec;
use schedlab_core::workload::schbench::{Schbench, SchbenchMetric};
use schedlab_core::workload::WorkloadSpec;

/// `n` CPUs of capacity 1024 with one OPP; with `exit_us`, one idle state of that exit latency
/// (and a 1 us target residency, so an idle CPU always enters it).
fn flat(n: u32, exit_us: Option<u32>) -> MachineRef {
    let mut cluster = serde_json::json!({
        "name": "big", "cores": n, "capacity_orig": 1024, "opps_mhz": [2000]
    });
    if let Some(e) = exit_us {
        cluster["power"] = serde_json::json!({
            "ceff_pf": 400, "v_min_mv": 700, "v_max_mv": 1000, "static_uw": 80_000,
            "idle_uw": 10_000,
            "idle_states": [{"name": "C1", "exit_latency_us": e, "target_residency_us": 1,
                             "power_uw": 0}]
        });
    }
    let spec: MachineSpec = serde_json::from_value(serde_json::json!({
        "name": format!("flat{n}"), "llc": "cluster", "clusters": [cluster],
    }))
    .unwrap();
    MachineRef::Custom(spec)
}

fn scenario(machine: MachineRef, s: Schbench) -> Scenario {
    Scenario {
        version: SCENARIO_VERSION,
        name: "schbench".into(),
        title: String::new(),
        description: String::new(),
        machine,
        workload: WorkloadSpec::Schbench(s),
        sweep: None,
        variants: vec![VariantSpec {
            name: "v6.8".into(),
            baseline: "v6.8".into(),
            patches: vec![],
            governor: Governor::Performance,
            config: None,
        }],
        runs: 1,
        seed: 3,
        taskset: None,
        extras: Default::default(),
        limits: Default::default(),
    }
}

fn one_worker(report: SchbenchMetric) -> Schbench {
    Schbench {
        worker_threads: 1,
        runtime_s: 1,
        report,
        ..Schbench::default()
    }
}

/// Within the histogram's resolution (1/128 of the value).
fn near(v: f64, expect: f64) -> bool {
    (v - expect).abs() <= expect / 128.0 + 1e-9
}

#[test]
fn one_cpu_wakeups_are_instant_and_requests_are_sleep_plus_math() {
    // One CPU, no idle states: the worker posts the message thread and waits; the message thread
    // runs at once on the only CPU, broadcasts, waits; the worker runs at that instant: every
    // wake-up latency is 0. A request is the 100 us usleep plus 5 x 104^3 x 3 ns of math at the
    // reference rate, 16872.96 us: 16972.96 us, so 1 s holds 58 whole requests.
    let plan = Plan::new(&scenario(
        flat(1, None),
        one_worker(SchbenchMetric::WakeupLatency(Pct::P99)),
    ))
    .unwrap();
    let r = plan.run_checked(0).unwrap();
    assert_eq!(r.value, 0.0);
    let lat = &r.latency;
    assert_eq!(lat.wakeup.max, 0);
    assert_eq!(lat.request.nr, 58);
    assert_eq!((lat.request.min, lat.request.max), (16_972_960, 16_972_960));
    let p50 = lat.request.percentile(Pct::P50).unwrap() as f64;
    assert!(near(p50, 16_972_960.0), "{p50}");
    // RPS: 58 requests in 1 s.
    let plan = Plan::new(&scenario(flat(1, None), one_worker(SchbenchMetric::Rps))).unwrap();
    assert_eq!(plan.run_checked(0).unwrap().value, 58.0);
}

#[test]
fn idle_cpus_make_wakeups_cost_the_exit_latency() {
    // Four CPUs with one 50 us idle state, one worker: the CPUs the message thread and the worker
    // are woken on are idle (in C1), so each wake-up either runs at once (the worker placed on the
    // CPU the message thread has just left, switched in at the same instant) or pays C1's exit
    // latency; nothing else runs. The request's usleep ends in a wake-up from C1 as well.
    let plan = Plan::new(&scenario(
        flat(4, Some(50)),
        one_worker(SchbenchMetric::WakeupLatency(Pct::P99)),
    ))
    .unwrap();
    let r = plan.run_checked(0).unwrap();
    let lat = &r.latency;
    assert!(lat.wakeup.nr > 50, "{}", lat.wakeup.nr);
    assert!(lat.wakeup.max <= 50_000, "{}", lat.wakeup.max);
    for p in Pct::ALL {
        let v = lat.wakeup.percentile(p).unwrap();
        assert!(v == 0 || near(v as f64, 50_000.0), "{p:?}: {v}");
    }
    // Every request: usleep + exit latency + math.
    let expect = 100_000 + 50_000 + 16_872_960;
    assert_eq!((lat.request.min, lat.request.max), (expect, expect));
    // The per-name rows: the worker's wake-ups (the broadcast's and the usleep's) and the
    // message thread's, each 0 or the exit latency.
    let worker = lat
        .names
        .iter()
        .find(|n| n.name == "schbench-worker")
        .unwrap();
    assert_eq!(worker.tasks, 1);
    assert!(worker.wakeup.nr >= 2 * lat.request.nr);
    assert!(worker.wakeup.max <= 50_000);
    let text = lat.to_text();
    for needle in [
        "schbench-worker",
        "schbench-msg",
        "Wakeup Latencies",
        "Request Latencies",
    ] {
        assert!(text.contains(needle), "{text}");
    }
}

#[test]
fn more_workers_than_cpus_wait_on_the_runqueue() {
    // Two CPUs, four workers busy with 16.9 ms requests: woken workers queue behind running
    // ones, so the wake-up latency tail is of the order of a request, and RPS is bounded by the
    // CPUs: at most 2 / 16.973 ms = 117.8 requests per second.
    let s = Schbench {
        worker_threads: 4,
        runtime_s: 2,
        report: SchbenchMetric::WakeupLatency(Pct::P99),
        ..Schbench::default()
    };
    // On the CFS pick (v5.6) a woken worker that does not preempt waits for the running one
    // (p99 970 us). For EEVDF (v6.8) see the next test.
    let mut scn = scenario(flat(2, None), s.clone());
    scn.variants[0].baseline = "v5.6".into();
    let plan = Plan::new(&scn).unwrap();
    let r = plan.run_checked(0).unwrap();
    assert!(r.value > 500.0, "p99 {} us", r.value);
    let rps = r.latency.request.nr as f64 / 2.0;
    assert!(rps <= 118.0 && rps > 100.0, "{rps}");
    let worker = r
        .latency
        .names
        .iter()
        .find(|n| n.name == "schbench-worker")
        .unwrap();
    assert!(worker.wait.nr >= worker.wakeup.nr, "preemptions add waits");
    // Deterministic: the same seed gives the same histograms.
    assert_eq!(plan.run(0).unwrap().latency, r.latency);
}

/// The message thread's and the workers' latencies of the 2-CPU, 4-worker run, per variant.
fn two_cpus_four_workers(baseline: &str, config: Option<serde_json::Value>) -> (f64, LatencyRow) {
    let s = Schbench {
        worker_threads: 4,
        runtime_s: 2,
        report: SchbenchMetric::WakeupLatency(Pct::P99),
        ..Schbench::default()
    };
    let mut scn = scenario(flat(2, None), s);
    scn.variants[0].baseline = baseline.into();
    scn.variants[0].config = config;
    let r = Plan::new(&scn).unwrap().run_checked(0).unwrap();
    let msg = r
        .latency
        .names
        .iter()
        .find(|n| n.name == "schbench-msg")
        .unwrap();
    let row = LatencyRow {
        msg_wakeups: msg.wakeup.nr,
        msg_wait_p99: msg.wait.percentile(Pct::P99).unwrap(),
        msg_wait_max: msg.wait.max,
        wakeup_max: r.latency.wakeup.max,
        request_p99: r.latency.request.percentile(Pct::P99).unwrap(),
    };
    (r.value, row)
}

#[derive(Debug)]
struct LatencyRow {
    msg_wakeups: u64,
    msg_wait_p99: u64,
    msg_wait_max: u64,
    wakeup_max: u64,
    request_p99: u64,
}

#[test]
fn under_eevdf_the_message_thread_waits_and_the_workers_do_not() {
    // The same 2 CPUs and 4 workers under v6.8: schbench's wake-up latency is 0 in every sample.
    // Not because a woken worker preempts (it would not), but because none is woken onto a busy
    // CPU: a worker that ends its request posts the message thread M and sleeps; M is placed
    // at the average vruntime of the CPU's queue with the poster still counted, so once the
    // poster sleeps the other worker there is eligible and M is not (sched/eevdf_tests.rs, with
    // this run's figures: +436480 ns against an average of +218240). M waits until that worker's
    // request ends too, 872.96 us at most here, and then wakes everyone on its list onto CPUs
    // where nobody runs. schbench stamps wake_time when M starts its list walk
    // (xlist_wake_all()), so M's own wait is not in the wake-up latency; it shows in M's
    // runqueue wait (--report latency). With the futex calls free (workload/schbench.rs), each
    // woken worker runs at the walk's instant. The pairs sharing a CPU then run their requests
    // side by side: every request is two requests' time, 33.8 ms.
    let (p99, eevdf) = two_cpus_four_workers("v6.8", None);
    assert_eq!(p99, 0.0);
    assert_eq!(eevdf.wakeup_max, 0, "{eevdf:?}");
    assert_eq!(eevdf.msg_wait_max, 872_960, "{eevdf:?}");
    assert!(near(eevdf.request_p99 as f64, 33_816_576.0), "{eevdf:?}");
    // v6.8 with the CFS pick (the switch the difference comes from; RUN_TO_PARITY plays no
    // part): M, placed half a latency period left of min_vruntime, preempts the running worker
    // at once and wakes the poster alone onto a CPU where the other worker computes: the
    // wake-up latency is back, M waits in fewer than 1% of its wake-ups, and walks twice as
    // often (one worker each, against two under EEVDF).
    let (p99, cfs) = two_cpus_four_workers("v6.8", Some(serde_json::json!({"fair_pick": "cfs"})));
    assert!(p99 > 500.0, "p99 {p99} us");
    assert_eq!(cfs.msg_wait_p99, 0, "{cfs:?}");
    assert!(
        cfs.msg_wakeups > 230 && eevdf.msg_wakeups < 125,
        "{cfs:?} {eevdf:?}"
    );
    let (p99, no_parity) =
        two_cpus_four_workers("v6.8", Some(serde_json::json!({"run_to_parity": false})));
    assert_eq!(p99, 0.0);
    assert_eq!(no_parity.msg_wait_max, 872_960, "{no_parity:?}");
}
