//! The pre-run CPU history (`draw_idle_history()` and its bounds): the blocked PELT load and the
//! `rq->idle_stamp` order that the shell, `taskset` and kworkers leave on a real machine before a
//! benchmark starts, drawn from the run's RNG. It holds no kernel function: it sets up the
//! `cfs_rq->avg` and `rq->idle_stamp` the kernel would have when the run starts.

use super::Engine;
use crate::pelt::{Scale, SchedAvg};
use crate::sched::NICE_0_LOAD;
use crate::units::Nanos;

/// Longest run of a CPU's pre-run housekeeping (see `draw_idle_history`), ns: assumed 2 ms.
const HISTORY_MAX_RUN: u64 = 2_000_000;
/// Longest time since a CPU's pre-run housekeeping went to sleep, ns: assumed 64 ms (two PELT
/// half-lives), so some CPUs carry visible blocked load and others almost none.
const HISTORY_MAX_IDLE: u64 = 64_000_000;

impl Engine<'_> {
    /// What ran before the workload. On a real machine the CPUs are not all pristine when a
    /// benchmark starts: the shell, `taskset` and per-CPU kworkers ran here and there and left
    /// (a) blocked load and utilization on their CPU's cfs_rq, decaying, and (b) a different
    /// `rq->idle_stamp` per CPU. Both steer fork and wake-up placement: `find_idlest_group()`
    /// breaks ties between idle groups on `avg_load` (which includes blocked load) and
    /// `find_idlest_group_cpu()` takes the most recently idled CPU. With pristine CPUs every tie
    /// would go to the first CPU in group order, a regularity no real machine has.
    ///
    /// The model: on each CPU a nice-0 kthread (which sleeps, so its load stays attached) ran for a
    /// time uniform in `0..HISTORY_MAX_RUN` and went to sleep a time uniform in
    /// `0..HISTORY_MAX_IDLE` before the run starts; its PELT signal is computed by the kernel's
    /// arithmetic and decayed to t = 0. The order in which the CPUs went idle becomes `idle_stamp`
    /// 1..=n ns (only the order matters, and every CPU that goes idle during the run is later; 0
    /// would mean "not idle" to the `avg_idle` update, so the stamps start at 1). The first
    /// wake-up onto such a CPU samples its idle time from the run's start, which the
    /// `2 * max_idle_balance_cost` cap bounds as it would the real, longer idle time.
    /// Both bounds are assumptions (a few ms of housekeeping, within the last PELT half-lives).
    pub(super) fn draw_idle_history(&mut self) {
        let n = self.w.nr_cpus();
        let mut idle_since = Vec::with_capacity(n);
        for cpu in 0..n {
            let ran = self.rng.below(HISTORY_MAX_RUN) & !1023;
            let ago = self.rng.below(HISTORY_MAX_IDLE) & !1023;
            let mut avg = SchedAvg::default();
            let path = self.w.config.pelt_update;
            avg.update(ran, 1, NICE_0_LOAD, 1, true, Scale::Time, path);
            avg.update(ran + ago, 1, 0, 0, false, Scale::Time, path);
            avg.last_update_time = 0;
            self.w.rqs[cpu].avg = avg;
            idle_since.push((ago, cpu));
        }
        // Longest ago first: the CPU that went idle last gets the highest stamp.
        idle_since.sort_unstable_by(|a, b| b.cmp(a));
        // From 1: in the kernel an idle CPU's stamp is never 0 (it is set as the CPU goes idle),
        // and `find_idlest_group_cpu()` never picks a CPU whose stamp is 0.
        for (rank, &(_, cpu)) in idle_since.iter().enumerate() {
            self.w.rqs[cpu].idle_stamp = rank as Nanos + 1;
        }
    }
}
