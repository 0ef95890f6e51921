//! Units of simulated time and work.
//!
//! Time is integer nanoseconds (`Nanos`). Work is measured in "reference nanoseconds": the time a
//! piece of work takes on a CPU of capacity 1024 running at its highest (non-turbo) OPP with no SMT
//! sibling busy. A CPU of capacity `c` at frequency `f` of `f_max` does `c/1024 * f/f_max` reference
//! ns of work per ns; see [`crate::topology::Topology::work_rate`].

/// Simulated time in nanoseconds since the start of a run.
pub type Nanos = u64;

/// Work in reference nanoseconds, scaled by [`WORK_SCALE`] to keep integer precision when a slow CPU
/// does a fraction of a reference ns per ns.
pub type Work = u64;

/// Fixed-point scale of [`Work`]: one reference nanosecond is `WORK_SCALE` work units.
pub const WORK_SCALE: u64 = 1 << 10;

pub const NSEC_PER_USEC: u64 = 1_000;
pub const NSEC_PER_MSEC: u64 = 1_000_000;
pub const NSEC_PER_SEC: u64 = 1_000_000_000;

/// `SCHED_CAPACITY_SCALE` (include/linux/sched.h): capacities and utilizations are in 1/1024.
pub const SCHED_CAPACITY_SCALE: u64 = 1024;
pub const SCHED_CAPACITY_SHIFT: u32 = 10;
