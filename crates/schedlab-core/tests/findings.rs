//! Every input the fuzzers and the random-scenario sweep found breaking a promise (a panic, a hang,
//! unbounded memory, an overflow, a false invariant report; `tests/findings/README.md` says what
//! each did) ends as a clean one-line error or a normal run, each with the outcome it must have.

use schedlab_core::engine::Limits;
use schedlab_core::experiment::{Plan, Scenario};
use schedlab_core::Error;
use std::path::Path;

fn load(rel: &str) -> Scenario {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/findings")
        .join(rel);
    let text = std::fs::read_to_string(&path).unwrap();
    Scenario::from_json(&text).unwrap()
}

/// Plans the scenario and runs its first run with the invariant checks: the outcome's text.
fn outcome(rel: &str) -> Result<f64, String> {
    let s = load(rel);
    let out = Plan::new(&s).and_then(|p| p.run_checked(0).map(|r| r.value));
    out.map_err(|e| {
        let m = e.to_string();
        assert!(!m.contains('\n'), "{rel}: a message of one line: {m}");
        assert!(!m.contains("invariant"), "{rel}: {m}");
        m
    })
}

fn err(rel: &str) -> String {
    match outcome(rel) {
        Ok(v) => panic!("{rel} ran ({v}); it must be refused"),
        Err(m) => m,
    }
}

#[test]
fn machines_mixing_smt_widths_build_their_domains() {
    // D1: SchedDomains::build indexed past a shorter degenerate-pruned chain. The machines now
    // build; what stops these scenarios is their own workload.
    assert!(err("panic-domains/D1-domains288-minimal.json").contains("rt-app: not valid JSON"));
    assert!(err("panic-domains/D1-domains288.from-struct.scenario.json")
        .contains("sysbench-cpu threads must be 1 to 1024, not 0"));
    assert!(err("panic-domains/D1-from-fuzzing.json").contains("loops forever"));
    for rel in [
        "panic-domains/D1-domains288-minimal.json",
        "panic-domains/D1-domains288.from-struct.scenario.json",
        "panic-domains/D1-from-fuzzing.json",
    ] {
        let s = load(rel);
        let topo = schedlab_core::topology::Topology::build(&s.machine.spec().unwrap()).unwrap();
        for v in &s.variants {
            let c = schedlab_core::kernel::build_config(
                &v.baseline,
                &v.patches,
                v.config.as_ref(),
                v.governor,
            )
            .unwrap();
            let d = schedlab_core::domains::SchedDomains::build(&topo, &c).unwrap();
            d.check_well_formed(topo.nr_cpus()).unwrap();
        }
    }
}

#[test]
fn an_aborted_event_reports_its_own_error_not_a_half_done_state() {
    // D2: run_checked verified the state an aborted event left and reported "runs task ... with
    // no completion event", losing the real error.
    assert!(
        err("false-invariant/D2-ivb-ep-hackbench-max-tasks-2000.json")
            .contains("more than 2000 tasks")
    );
    assert!(err("false-invariant/D2-rtapp-lock-twice.json").contains("locks mutex 0 twice"));
    // This one's rt-app duration (6 s) is above its own limit (5 s), which Plan::new now refuses
    // up front; with room for its duration it reaches the error the false report hid.
    assert!(
        err("false-invariant/D2-rtapp-invariant-masks-error.scenario.json")
            .contains("longer than limits.max_sim_seconds 5")
    );
    let mut s = load("false-invariant/D2-rtapp-invariant-masks-error.scenario.json");
    s.limits.max_sim_seconds = 10;
    let e = Plan::new(&s)
        .unwrap()
        .run_checked(0)
        .unwrap_err()
        .to_string();
    assert!(e.contains("locks mutex 0 twice"), "{e}");
    // The checked and the unchecked run agree.
    let s = load("false-invariant/D2-ivb-ep-hackbench-max-tasks-2000.json");
    let p = Plan::new(&s).unwrap();
    assert_eq!(p.run(0).unwrap_err(), p.run_checked(0).unwrap_err());
}

#[test]
fn a_yield_spinner_on_one_cpu_runs_to_its_stop() {
    // D4: drain() looped inside one event, memory growing without bound.
    let v = outcome("hang/D4-hang-1cpu-default-limits.json").unwrap();
    assert!(v > 900_000.0, "1 s of 1 us runs at the 1 MHz OPP: {v}");
    assert!(outcome("hang/D4-hang-yield-spinner-tc2-taskset0.json").unwrap() > 900_000.0);
    // With 200 000 events allowed, the same second of 1 us runs is refused by the event limit.
    assert!(
        err("hang/D4-hang-1cpu-small-limits.json").contains("more than 200000 simulation events")
    );
}

#[test]
fn a_sweep_cannot_allocate_without_bound_before_it_runs() {
    // D3: Plan::new instantiated every swept value first (3.4 GB for 1,000 kernbench values).
    for rel in [
        "plan-memory/D3-plan-new-sweep-1000-values-3.4GB.json",
        "plan-memory/D3-plan-new-sweep-10000-values-oom.json",
    ] {
        let e = Plan::new(&load(rel)).unwrap_err();
        assert!(
            matches!(&e, Error::Limit(m) if m.contains("MiB")),
            "{rel}: {e}"
        );
    }
}

#[test]
fn unchecked_numbers_are_refused_before_any_arithmetic() {
    // D5-D7: overflow in debug builds, silent wrap-around in release.
    // D5's key, the old HWP model's window, is gone (the ramp is preset data now): refused by name.
    assert!(err("overflow/D5-cpufreq147-hwp-window-minimal.json").contains("hwp_window_us"));
    let e = err("overflow/D5-cpufreq147-hwp-window-minimal.json");
    assert_eq!(
        e.matches("invalid kernel configuration").count(),
        1,
        "said once: {e}"
    );
    assert!(err("overflow/D6-topology285-turbo-mhz-overflow.json").contains("turbo bin"));
    assert!(err("overflow/D7-topology307-cpu-id-overflow.json").contains("cpu_ids"));
}

#[test]
fn limits_a_scenario_raises_are_lowered_to_a_pages_maxima_on_request() {
    // O1: a scenario may raise its own limits without bound; a page lowers them to its own.
    let s = load("limits/O1-limits-raised-by-scenario.json");
    let page = Limits::default();
    assert_eq!(s.limits.at_most(page), page);
    let above = s.limits.above(&page);
    assert_eq!(above.len(), 3, "{above:?}");
    assert!(
        above[0].starts_with("max_sim_seconds 18446744073709551615"),
        "{above:?}"
    );
    assert!(page.above(&page).is_empty());
}
