//! Schedlab in the browser: a Yew page (`bin/app.rs`) and the Web Worker that runs the model
//! (`bin/worker.rs`).
//!
//! The crate is thin by design: `protocol` is what crosses the worker boundary, `state`,
//! `viewmodel`, `charts`, `results` and `runview` are plain Rust computed from core results (and tested
//! natively), `components` render them, `plotly` hands a figure to plotly.js, `export` turns
//! results into files. No simulation logic lives here: the page's tables come from the same
//! `Plan::table` as the CLI's, computed in the worker, so they are bit-identical; the page's own
//! wasm never builds a plan (see `agent`).

pub mod agent;
pub mod app;
pub mod charts;
pub mod components;
pub mod crash;
pub mod draft;
pub mod export;
pub mod link;
pub mod perfetto_ui;
pub mod plotly;
pub mod pool;
pub mod protocol;
pub mod results;
pub mod runview;
pub mod state;
pub mod view_params;
pub mod viewmodel;
pub mod workers;
