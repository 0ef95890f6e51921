//! The scheduler's own tracepoints, as a run traced with signals records them: the bare
//! tracepoints v5.3 added for out-of-tree modules (`pelt_cfs_tp`, `pelt_se_tp`,
//! `sched_overutilized_tp`; `sched_util_est_cfs_tp`, `sched_util_est_se_tp` and
//! `sched_cpu_capacity_tp` v5.10) and that LISA's `sched_tp` module turns into the
//! `lisa__sched_*` ftrace events. They fire where fair.c (v6.8) calls them; the model records them
//! for every era, also before the kernel had them, so a run of any kernel can be read in LISA.
//!
//! Nothing here runs unless [`World::signals`] is set: one branch per call otherwise.

use super::{TaskId, World};
use crate::trace::TraceEvent;

impl World {
    /// `trace_pelt_se_tp(se)`: `__update_load_avg_se()` after an update that decayed the task's
    /// averages.
    pub(crate) fn trace_pelt_se(&mut self, cpu: usize, t: TaskId) {
        if let Some(tr) = &mut self.signals {
            let a = &self.tasks[t].avg;
            tr.push(TraceEvent::PeltSe {
                t: self.now,
                cpu,
                task: t,
                load: a.load_avg,
                runnable: a.runnable_avg,
                util: a.util_avg,
                update_time: a.last_update_time,
            });
        }
    }

    /// `trace_pelt_cfs_tp(cfs_rq)`: `__update_load_avg_cfs_rq()` after an update that decayed the
    /// averages, and `attach_entity_load_avg()` / `detach_entity_load_avg()`.
    pub(crate) fn trace_pelt_cfs(&mut self, cpu: usize) {
        if let Some(tr) = &mut self.signals {
            let a = &self.rqs[cpu].avg;
            tr.push(TraceEvent::PeltCfs {
                t: self.now,
                cpu,
                load: a.load_avg,
                runnable: a.runnable_avg,
                util: a.util_avg,
                update_time: a.last_update_time,
            });
        }
    }

    /// `trace_sched_util_est_cfs_tp(cfs_rq)`: `util_est_enqueue()` and `util_est_dequeue()`.
    pub(crate) fn trace_util_est_cfs(&mut self, cpu: usize) {
        if !self.config.util_est {
            return;
        }
        if let Some(tr) = &mut self.signals {
            let rq = &self.rqs[cpu];
            tr.push(TraceEvent::UtilEstCfs {
                t: self.now,
                cpu,
                enqueued: rq.util_est_enqueued,
                util: rq.avg.util_avg,
            });
        }
    }

    /// `trace_sched_util_est_se_tp(&p->se)`: the end of `util_est_update()` (v6.8's `done:`
    /// label, reached whether or not the EWMA moved).
    pub(crate) fn trace_util_est_se(&mut self, cpu: usize, t: TaskId) {
        if let Some(tr) = &mut self.signals {
            let p = &self.tasks[t];
            tr.push(TraceEvent::UtilEstSe {
                t: self.now,
                cpu,
                task: t,
                enqueued: p.util_est_enqueued,
                ewma: p.util_est_ewma,
                util: p.avg.util_avg,
            });
        }
    }

    /// `trace_sched_overutilized_tp(rd, overutilized)`: each write of `rd->overutilized` (v6.8
    /// `update_overutilized_status()` when it sets the flag, `update_sd_lb_stats()`).
    pub(crate) fn trace_overutilized(&mut self) {
        if let Some(tr) = &mut self.signals {
            tr.push(TraceEvent::Overutilized {
                t: self.now,
                overutilized: self.rd_overutilized,
            });
        }
    }

    /// Schedlab's energy counter: the meter's total after a core's power changed.
    pub(crate) fn trace_energy(&mut self) {
        if self.signals.is_some() {
            let now = self.now;
            self.energy.joules(now);
            let uj = (self.energy.total_uw_ns / 1_000_000_000) as u64;
            if let Some(tr) = &mut self.signals {
                tr.push(TraceEvent::Energy { t: now, uj });
            }
        }
    }

    /// `trace_sched_cpu_capacity_tp(rq)` for `cpu` (see [`TraceEvent::CpuCapacity`] for when).
    pub(crate) fn trace_cpu_capacity(&mut self, cpu: usize) {
        if self.signals.is_some() {
            let capacity_orig = self.capacity_orig_of(cpu);
            let ev = TraceEvent::CpuCapacity {
                t: self.now,
                cpu,
                capacity: self.capacity_of(cpu),
                capacity_orig,
                capacity_curr: (capacity_orig * self.freq_scale(cpu)) >> 10,
            };
            if let Some(tr) = &mut self.signals {
                tr.push(ev);
            }
        }
    }
}
