//! The simulation loop allocates nothing per event: a run ten times longer makes (almost) no more
//! allocations. A counting global allocator watches this test binary only.

use schedlab_core::experiment::Plan;
use schedlab_core::scenarios::builtin;
use schedlab_core::workload::WorkloadSpec;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

struct Counting;
static ALLOCS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The counter is global: tests that read it must not run at the same time.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn allocations_for(requests: u64, threads: u64) -> (u64, u64) {
    let mut s = builtin("hikey960-asym-packing").unwrap();
    s.runs = 1;
    s.sweep.as_mut().unwrap().values = vec![threads];
    #[allow(irrefutable_let_patterns)]
    if let WorkloadSpec::SysbenchCpu(w) = &mut s.workload {
        w.max_requests = requests;
    }
    let plan = Plan::new(&s).unwrap();
    let before = ALLOCS.load(Ordering::Relaxed);
    let r = plan.run(1).unwrap(); // the patched variant: migrations and active balances happen
    (ALLOCS.load(Ordering::Relaxed) - before, r.events)
}

/// tbench: two wake-ups per transaction, on a 96-CPU SMT NUMA machine.
fn tbench_allocations_for(duration_ms: u64) -> (u64, u64) {
    let text = format!(
        r#"{{"version": 1, "name": "alloc", "machine": {{"preset": "cascadelake-8260l"}},
            "workload": {{"kind": "tbench", "clients": 8, "duration_ms": {duration_ms}}},
            "variants": [{{"name": "v", "baseline": "v6.8", "governor": "schedutil"}}],
            "runs": 1, "seed": 1}}"#
    );
    let plan = Plan::new(&schedlab_core::experiment::Scenario::from_json(&text).unwrap()).unwrap();
    let before = ALLOCS.load(Ordering::Relaxed);
    let r = plan.run(0).unwrap();
    (ALLOCS.load(Ordering::Relaxed) - before, r.events)
}

#[test]
fn wake_up_heavy_runs_do_not_allocate_per_event_either() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (short, short_events) = tbench_allocations_for(10);
    let (long, long_events) = tbench_allocations_for(100);
    assert!(long_events > 5 * short_events);
    assert!(
        long <= short + 64,
        "{short} allocations for {short_events} events, {long} for {long_events}"
    );
}

#[test]
fn allocations_do_not_grow_with_events() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for threads in [2, 5] {
        let (short, short_events) = allocations_for(1_000, threads);
        let (long, long_events) = allocations_for(10_000, threads);
        assert!(long_events > 5 * short_events);
        assert!(
            long <= short + 16,
            "{threads} threads: {short} allocations for {short_events} events, {long} for {long_events}"
        );
    }
}
