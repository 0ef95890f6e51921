//! One component per view. Each takes its view model (from `crate::viewmodel`) as props and
//! renders it; none of them computes results.

pub mod bench;
pub mod chart;
pub mod controls;
pub mod domains;
pub mod progress;
pub mod table;
