//! One component per view. Each takes its view model (from `crate::viewmodel`) as props and
//! renders it; none of them computes results.

pub mod bench;
pub mod chart;
pub mod controls;
pub mod decisions;
pub mod distribution;
pub mod domains;
pub mod embed;
pub mod experiments;
pub mod exports;
pub mod field;
pub mod machine;
pub mod plot;
pub mod progress;
pub mod report;
pub mod run_detail;
pub mod share;
pub mod table;
pub mod timeline;
pub mod variants;
pub mod workload;
