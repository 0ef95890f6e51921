//! `reweight_entity()` (kernel/sched/fair.c), reached from `set_user_nice()`: a task's weight
//! changes, and with it its runqueue's load and, for a queued task, the `avg_vruntime()` sums;
//! with EEVDF (v6.6+) its lag and deadline are rescaled as each era does
//! ([`KernelConfig::reweight_eevdf`], v6.7+). The model has no task groups, so no group entity is
//! ever reweighted; nice changes are the only path.
//!
//! [`KernelConfig::reweight_eevdf`]: crate::kernel::KernelConfig::reweight_eevdf

use super::{TaskId, World};
use crate::kernel::FairPick;

impl World {
    /// `reweight_entity()` via `set_user_nice()`: a task's weight changes, and its runqueue's
    /// (and, for a queued task, the `avg_vruntime` sums). With EEVDF (v6.6+) the task's lag and
    /// deadline are rescaled (`reweight_eevdf()` below).
    pub fn set_nice(&mut self, t: TaskId, nice: i32) {
        let weight = super::nice_to_weight(nice);
        let cpu = self.tasks[t].cpu;
        let on_rq = self.task_on_rq(t);
        let in_tree = on_rq && self.rqs[cpu].curr != Some(t);
        let mut avruntime = 0;
        if on_rq {
            self.update_curr(cpu);
            avruntime = self.avg_vruntime(cpu);
            self.update_load_avg(cpu, Some(t));
            let rq = &mut self.rqs[cpu];
            rq.load_weight = rq.load_weight - self.tasks[t].weight + weight;
        }
        if in_tree {
            self.queue_remove(cpu, t);
        }
        if self.config.fair_pick == FairPick::Eevdf {
            self.reweight_eevdf(cpu, t, on_rq, avruntime, weight);
        }
        self.tasks[t].weight = weight;
        if in_tree {
            self.queue_insert(cpu, t);
        }
        if on_rq && self.config.fair_pick == FairPick::Eevdf && self.config.reweight_eevdf {
            self.update_min_vruntime(cpu);
        }
    }

    /// `reweight_entity()`'s EEVDF part, before the task's weight becomes `weight` (the caller
    /// has taken a queued task out of the tree and computed `avruntime = avg_vruntime()` after
    /// `update_curr()`). A task that is not queued has its `vlag` scaled by `w / w'` (v6.6+, so
    /// that its real lag `w * vlag` is kept). A queued one:
    /// - v6.7+ `reweight_eevdf()` ([`KernelConfig::reweight_eevdf`]): at a non-zero lag its
    ///   vruntime moves so the lag is kept, `v' = V - entity_lag(V) * w / w'`, and the deadline
    ///   is rescaled about V, `d' = V + (d - V) * w / w'`;
    /// - v6.6.0: vruntime stays, the relative deadline is rescaled, `d' = v + (d - v) * w / w'`.
    ///
    /// `div_s64()` truncates towards zero, as Rust's `/` does. For curr the RUN_TO_PARITY stash in
    /// `vlag` is left alone, so a moved deadline ends curr's protection, as in the kernel.
    ///
    /// [`KernelConfig::reweight_eevdf`]: crate::kernel::KernelConfig::reweight_eevdf
    pub(super) fn reweight_eevdf(
        &mut self,
        _cpu: usize,
        t: TaskId,
        on_rq: bool,
        avruntime: u64,
        weight: u64,
    ) {
        let old = self.tasks[t].weight as i64;
        let new = weight.max(1) as i64;
        if !on_rq {
            let task = &mut self.tasks[t];
            task.vlag = task.vlag * old / new;
            return;
        }
        if self.config.reweight_eevdf {
            if avruntime != self.tasks[t].vruntime {
                let vlag = self.entity_lag(avruntime, t) * old / new;
                self.tasks[t].vruntime = avruntime.wrapping_sub(vlag as u64);
            }
            let task = &mut self.tasks[t];
            let vslice = task.deadline.wrapping_sub(avruntime) as i64 * old / new;
            task.deadline = avruntime.wrapping_add(vslice as u64);
        } else {
            let task = &mut self.tasks[t];
            let rel = task.deadline.wrapping_sub(task.vruntime) as i64 * old / new;
            task.deadline = task.vruntime.wrapping_add(rel as u64);
        }
    }
}
