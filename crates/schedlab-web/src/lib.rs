//! Schedlab in the browser: a Yew page (`bin/app.rs`) and the Web Worker that runs the model
//! (`bin/worker.rs`).
//!
//! The crate is thin by design: `protocol` is what crosses the worker boundary, `state` and
//! `viewmodel` are plain Rust computed from core results (and tested natively), `components`
//! render them, `plotly` hands a figure to plotly.js. No simulation logic lives here: the page's
//! tables come from the same `Plan::table` as the CLI's, so they are bit-identical.

pub mod agent;
pub mod app;
pub mod components;
pub mod draft;
pub mod link;
pub mod plotly;
pub mod protocol;
pub mod state;
pub mod viewmodel;
