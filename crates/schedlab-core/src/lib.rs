//! schedlab-core: a deterministic model of the Linux CFS scheduler on asymmetric-capacity and SMT
//! machines.
//!
//! No wasm, no I/O, no wall clock: every result is a pure function of (scenario, seed). See the
//! repository's ARCHITECTURE.md for the map; each module names the kernel functions it models.

pub mod bench;
pub mod check;
pub mod cpulists;
pub mod cpumask;
pub mod error;
pub mod rng;
pub mod units;

pub mod cost;
pub mod cpufreq;
pub mod domains;
pub mod engine;
pub mod experiment;
pub mod hwp;
pub mod kernel;
pub mod latency;
pub mod math64;
pub mod mmtests;
pub mod pelt;
pub mod power;
pub mod records;
pub mod scenarios;
pub mod sched;
pub mod sha256;
pub mod stats;
pub mod table;
pub mod tdist;
pub mod topology;
pub mod trace;
pub mod workload;

pub use error::{Error, Result};
