//! One component per view. Each takes its view model (from `crate::viewmodel`) as props and
//! renders it; none of them computes results.

pub mod bench;
pub mod chart;
pub mod controls;
pub mod domains;
pub mod experiments;
pub mod field;
pub mod machine;
pub mod progress;
pub mod share;
pub mod table;
pub mod variants;
pub mod workload;
