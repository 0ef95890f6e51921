//! The Web Worker's entry point (trunk: `data-bin="worker" data-type="worker"`).

use schedlab_core::experiment::{Plan, Scenario};
use schedlab_web::protocol::Opening;
use wasm_bindgen::prelude::wasm_bindgen;
use yew_agent::Registrable;

fn main() {
    // Before anything can panic: a panic is reported to the page, not lost (see `crash`).
    schedlab_web::crash::install_worker_hook();
    schedlab_web::agent::SimWorker::registrar().register();
}

/// Every run of the scenario named `name` (a bench cell, a check or a built-in, as `?scenario=`
/// opens it), or of the scenario file whose JSON text `name` is (it starts with `{`), one after
/// another; returns the events simulated, or -1 when the name opens nothing, the file does not
/// parse, or a run fails.
///
/// Not used by the page: `tests/e2e/wasm-instr.mjs` calls it in Node, with stub imports (it
/// touches none: it is the core alone), under callgrind, to count the instructions V8's code of
/// this very worker executes for a cell (`cargo xtask profile --instr`). It lives in
/// the worker binary, not the library, so the page's wasm (which links the library) does not
/// carry it.
#[wasm_bindgen]
pub fn bench_named(name: &str) -> f64 {
    let scenario = if name.trim_start().starts_with('{') {
        Scenario::from_json(name).map_err(|e| e.to_string())
    } else {
        Opening::Named {
            name: name.to_string(),
            runs: None,
            seed: None,
        }
        .open()
    };
    let Ok(plan) = scenario.and_then(|s| Plan::new(&s).map_err(|e| e.to_string())) else {
        return -1.0;
    };
    let mut events = 0u64;
    for index in 0..plan.len() {
        match plan.run(index) {
            Ok(r) => events += r.events,
            Err(_) => return -1.0,
        }
    }
    events as f64
}
