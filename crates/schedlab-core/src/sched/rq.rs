//! The CFS runqueue: vruntime ordering, nice weights, slices and tick/wake-up preemption
//! (kernel/sched/fair.c, the pre-EEVDF CFS of v4.x-v6.5), and the PELT updates that go with enqueue,
//! dequeue and the tick (`update_load_avg()`, `attach/detach_entity_load_avg()`).
//!
//! Buddies as the pre-EEVDF kernel has them: `check_preempt_wakeup()` makes a preempting woken
//! task the next buddy, and (LAST_BUDDY, with at least `sched_nr_latency` tasks) the preempted curr
//! the last buddy; `pick_next_entity()` prefers skip < last < next over the leftmost task when that
//! is not unfair by more than a wake-up granularity ([`KernelConfig::wakeup_preempt_next_buddy`],
//! [`KernelConfig::last_buddy`]; the NEXT_BUDDY feature, off by default, is not modelled).
//!
//! From v6.6 ([`KernelConfig::fair_pick`] = eevdf) the pick, placement, slices and preemption
//! are EEVDF's, in [`crate::sched::eevdf`]; this file dispatches to it at each of those points.
//!
//! Simplifications: one cfs_rq per CPU (no task groups, so no hierarchical load); vruntime is kept
//! absolute and renormalised against `min_vruntime` when a task changes CPU, as
//! `migrate_task_rq_fair()` does, but against the old queue's `min_vruntime` at the enqueue rather
//! than at the dequeue or wake-up.
//!
//! [`KernelConfig::wakeup_preempt_next_buddy`]: crate::kernel::KernelConfig::wakeup_preempt_next_buddy
//! [`KernelConfig::last_buddy`]: crate::kernel::KernelConfig::last_buddy
//! [`KernelConfig::fair_pick`]: crate::kernel::KernelConfig::fair_pick

use super::cfs_tasks::{list_add_head, list_del, list_move_head};
use super::{TaskId, TaskState, World};
use crate::kernel::{FairPick, PeltInvariance, PeltUpdate, PostInitCap};
use crate::pelt::{Scale, SchedAvg, LOAD_AVG_MAX};

/// `cfs_rq->min_vruntime` starts here so that `place_entity()`'s subtraction never underflows.
pub const VRUNTIME_ORIGIN: u64 = 1 << 40;

impl World {
    /// `calc_delta_fair()`: runtime to vruntime for a task of this weight. Exact division where the
    /// kernel multiplies by a 32-bit inverse weight (`__calc_delta()`); they differ by under 1 ns.
    pub(super) fn calc_delta_fair(delta: u64, weight: u64) -> u64 {
        if weight == super::NICE_0_LOAD {
            delta
        } else {
            delta * super::NICE_0_LOAD / weight.max(1)
        }
    }

    /// `__sched_period()`.
    fn sched_period(&self, nr_running: usize) -> u64 {
        if nr_running > self.sched_nr_latency {
            nr_running as u64 * self.sched_min_granularity
        } else {
            self.sched_latency
        }
    }

    /// `sched_slice()`: the wall time `task` should run in one period on `cpu`.
    pub fn sched_slice(&self, cpu: usize, task: TaskId, on_rq: bool) -> u64 {
        let rq = &self.rqs[cpu];
        let w = self.tasks[task].weight;
        let nr = rq.nr_running + usize::from(!on_rq);
        let total = rq.load_weight + if on_rq { 0 } else { w };
        let period = self.sched_period(nr);
        // The task alone on its rq (the common tick): the whole period, without a divide.
        if total == w && w > 0 {
            return period;
        }
        period * w / total.max(1)
    }

    /// `update_curr()`: charge curr for the time it ran.
    pub fn update_curr(&mut self, cpu: usize) {
        let now = self.now;
        let Some(t) = self.rqs[cpu].curr else { return };
        let task = &mut self.tasks[t];
        let delta = now.saturating_sub(task.exec_start);
        if delta == 0 {
            return;
        }
        task.exec_start = now;
        task.sum_exec_runtime += delta;
        task.vruntime += Self::calc_delta_fair(delta, task.weight);
        if self.config.fair_pick == FairPick::Eevdf {
            self.update_deadline(cpu, t);
            self.did_preempt_short(cpu, t);
        }
        self.update_min_vruntime(cpu);
    }

    /// `update_min_vruntime()`.
    pub(super) fn update_min_vruntime(&mut self, cpu: usize) {
        let rq = &self.rqs[cpu];
        let mut vruntime = rq.min_vruntime;
        let curr_v = rq.curr.map(|t| self.tasks[t].vruntime);
        if let Some(v) = curr_v {
            vruntime = v;
        }
        if let Some(&(lv, _)) = rq.queue.first() {
            vruntime = match curr_v {
                None => lv,
                Some(_) => vruntime.min(lv),
            };
        }
        // __update_min_vruntime(): only forwards, and (v6.6+) the avg_vruntime keys follow.
        let delta = vruntime.wrapping_sub(rq.min_vruntime) as i64;
        if delta > 0 {
            self.avg_vruntime_update(cpu, delta);
            self.rqs[cpu].min_vruntime = vruntime;
        }
    }

    /// The clock PELT reads on `cpu`, and how contributions are scaled.
    #[inline(always)]
    fn pelt_clock(&mut self, cpu: usize) -> (u64, Scale) {
        // The rq is idle only when it runs the idle task (`is_idle_task(rq->curr)`), that is when
        // nothing is queued: between put_prev and set_next of a switch it is still busy.
        let busy = self.rqs[cpu].curr.is_some() || self.rqs[cpu].nr_running > 0;
        let cpu_scale = self.arch_scale_cpu_capacity(cpu);
        let freq_scale = self.freq_scale(cpu);
        let now = self.now;
        let clk = &mut self.rqs[cpu].clock_pelt;
        clk.update(now, busy, cpu_scale, freq_scale);
        match self.config.pelt_invariance {
            PeltInvariance::ScaleTime => (clk.now(), Scale::Time),
            PeltInvariance::ScaleContribution => (
                now,
                Scale::Contribution {
                    freq: freq_scale,
                    cpu: cpu_scale,
                },
            ),
        }
    }

    /// `update_load_avg(cfs_rq, se)`: age the task (if given, and on this rq) and the cfs_rq to now.
    /// The inputs are those that held since the last update, so this must run before any change.
    ///
    /// Out of line, with its two halves and the clock inlined into it and into `enqueue_task()`:
    /// left to the inliner, the split moved its budget elsewhere (E1 +0.8% instructions).
    #[inline(never)]
    pub fn update_load_avg(&mut self, cpu: usize, task: Option<TaskId>) {
        let (now, scale) = self.pelt_clock(cpu);
        if let Some(t) = task {
            self.update_se_load_avg(cpu, t, now, scale);
        }
        self.update_cfs_rq_load_avg(cpu, now, scale);
    }

    /// `__update_load_avg_se()`: task `t`'s half of [`World::update_load_avg`], at the PELT
    /// clock `now` [`World::pelt_clock`] gave.
    #[inline(always)]
    fn update_se_load_avg(&mut self, cpu: usize, t: TaskId, now: u64, scale: Scale) {
        let on_rq = self.task_on_rq(t) && self.tasks[t].cpu == cpu;
        let runnable = on_rq && self.se_runnable_delayed(t);
        let running = self.rqs[cpu].curr == Some(t);
        let w = self.tasks[t].weight;
        let path = self.config.pelt_update;
        let decayed = self.tasks[t].avg.update(
            now,
            w,
            u64::from(on_rq),
            u64::from(runnable),
            running,
            scale,
            path,
        );
        if decayed {
            self.trace_pelt_se(cpu, t);
        }
    }

    /// `update_cfs_rq_load_avg()`: the cfs_rq's half of [`World::update_load_avg`].
    #[inline(always)]
    fn update_cfs_rq_load_avg(&mut self, cpu: usize, now: u64, scale: Scale) {
        let path = self.config.pelt_update;
        // v6.13+: the cfs_rq's runnable count leaves delayed tasks out (h_nr_delayed).
        let runnable = (self.rqs[cpu].nr_running - self.cfs_delayed_not_runnable(cpu)) as u64;
        let rq = &mut self.rqs[cpu];
        let load = rq.load_weight;
        let running = rq.curr.is_some();
        if rq.avg.update(now, 1, load, runnable, running, scale, path) {
            self.trace_pelt_cfs(cpu);
        }
    }

    /// `attach_entity_load_avg()` (v4.15+ form, v5.7 as read): the task's sums are rebuilt from its
    /// averages against the cfs_rq's divider and added to the cfs_rq. Before v4.15 (v4.9
    /// fair.c:3096, v4.12 alike) the task keeps its own `period_contrib` and its sums are added as
    /// they are (a migrated or new task has `last_update_time == 0`, so ATTACH_AGE_LOAD does not
    /// age it).
    fn attach_entity_load_avg(&mut self, cpu: usize, t: TaskId) {
        if self.config.pelt_update != PeltUpdate::Accumulate {
            let rq_last = self.rqs[cpu].avg.last_update_time;
            self.tasks[t].avg.last_update_time = rq_last;
            let sa = self.tasks[t].avg;
            let ra = &mut self.rqs[cpu].avg;
            ra.load_avg += sa.load_avg;
            ra.load_sum += sa.load_sum;
            ra.util_avg += sa.util_avg;
            ra.util_sum += sa.util_sum;
            ra.runnable_avg += sa.runnable_avg;
            ra.runnable_sum += sa.runnable_sum;
            self.trace_pelt_cfs(cpu);
            return;
        }
        let rq_avg = self.rqs[cpu].avg;
        let divider = rq_avg.divider();
        let w = self.tasks[t].weight;
        let sa = &mut self.tasks[t].avg;
        sa.last_update_time = rq_avg.last_update_time;
        sa.period_contrib = rq_avg.period_contrib;
        sa.util_sum = sa.util_avg * divider;
        sa.runnable_sum = sa.runnable_avg * divider;
        sa.load_sum = sa.load_avg * divider / w.max(1);
        let sa = *sa;
        let ra = &mut self.rqs[cpu].avg;
        ra.load_avg += sa.load_avg;
        ra.load_sum += w * sa.load_sum;
        ra.util_avg += sa.util_avg;
        ra.util_sum += sa.util_sum;
        ra.runnable_avg += sa.runnable_avg;
        ra.runnable_sum += sa.runnable_sum;
        self.trace_pelt_cfs(cpu);
    }

    /// `detach_entity_load_avg()` / `remove_entity_load_avg()`: subtract, clamping at zero, and keep
    /// sums consistent with averages (`PELT_MIN_DIVIDER` clamp, v5.13+).
    ///
    /// Before v4.15 a migrating task leaves through `remove_entity_load_avg()` (v4.9 fair.c:3255):
    /// the cfs_rq loses the task's averages and `average * LOAD_AVG_MAX` of each sum (the kernel
    /// applies it at the cfs_rq's next update; here at once).
    pub(crate) fn detach_entity_load_avg(&mut self, cpu: usize, t: TaskId) {
        let sa: SchedAvg = self.tasks[t].avg;
        let w = self.tasks[t].weight;
        if self.config.pelt_update != PeltUpdate::Accumulate {
            let ra = &mut self.rqs[cpu].avg;
            ra.load_avg = ra.load_avg.saturating_sub(sa.load_avg);
            ra.load_sum = ra.load_sum.saturating_sub(sa.load_avg * LOAD_AVG_MAX);
            ra.util_avg = ra.util_avg.saturating_sub(sa.util_avg);
            ra.util_sum = ra.util_sum.saturating_sub(sa.util_avg * LOAD_AVG_MAX);
            ra.runnable_avg = ra.runnable_avg.saturating_sub(sa.runnable_avg);
            ra.runnable_sum = ra
                .runnable_sum
                .saturating_sub(sa.runnable_avg * LOAD_AVG_MAX);
            self.trace_pelt_cfs(cpu);
            return;
        }
        let ra = &mut self.rqs[cpu].avg;
        let min = crate::pelt::PELT_MIN_DIVIDER;
        ra.load_avg = ra.load_avg.saturating_sub(sa.load_avg);
        ra.load_sum = ra
            .load_sum
            .saturating_sub(w * sa.load_sum)
            .max(ra.load_avg * min);
        ra.util_avg = ra.util_avg.saturating_sub(sa.util_avg);
        ra.util_sum = ra
            .util_sum
            .saturating_sub(sa.util_sum)
            .max(ra.util_avg * min);
        ra.runnable_avg = ra.runnable_avg.saturating_sub(sa.runnable_avg);
        ra.runnable_sum = ra
            .runnable_sum
            .saturating_sub(sa.runnable_sum)
            .max(ra.runnable_avg * min);
        self.trace_pelt_cfs(cpu);
    }

    /// `post_init_entity_util_avg()`: a new task starts with half the spare capacity, in proportion
    /// to the cfs_rq's current utilization per unit of load. The spare is taken from
    /// [`KernelConfig::post_init_cap`] (1024 before v4.20, the CPU's capacity after). The kernel
    /// multiplies by `se->load.weight`, which on 64-bit is `scale_load()`d (1024 << 10 for nice 0)
    /// while `cfs_rq->avg.load_avg` is not: the proportional value is 1024 times too big, so in
    /// practice a new task gets the cap (v4.9 fair.c:744, v5.6, v6.8 fair.c:1081 alike).
    ///
    /// Before v4.15 the sums are set too (`init_entity_runnable_average()`: `period_contrib` 1023,
    /// `load_sum = load_avg * LOAD_AVG_MAX`; `util_sum = util_avg * LOAD_AVG_MAX`), since
    /// [`World::attach_entity_load_avg`] then adds them as they are.
    ///
    /// [`KernelConfig::post_init_cap`]: crate::kernel::KernelConfig::post_init_cap
    fn post_init_entity_util_avg(&mut self, cpu: usize, t: TaskId) {
        let cap = match self.config.post_init_cap {
            PostInitCap::CapacityScale => crate::units::SCHED_CAPACITY_SCALE,
            PostInitCap::CpuCapacity => self.arch_scale_cpu_capacity(cpu),
        };
        let rq = &self.rqs[cpu].avg;
        let spare = (cap as i64 - rq.util_avg as i64) / 2;
        let w = self.tasks[t].weight;
        // scale_load(): the 64-bit kernel's load.weight resolution.
        let load_weight = w << super::SCHED_FIXEDPOINT_SHIFT;
        let util = if spare <= 0 {
            0
        } else if rq.util_avg != 0 {
            (rq.util_avg * load_weight / (rq.load_avg + 1)).min(spare as u64)
        } else {
            spare as u64
        };
        let legacy = self.config.pelt_update != PeltUpdate::Accumulate;
        let sa = &mut self.tasks[t].avg;
        sa.util_avg = util;
        // init_entity_runnable_average(): a new task starts as fully loaded.
        sa.load_avg = w;
        sa.runnable_avg = util;
        if legacy {
            sa.period_contrib = 1023;
            sa.load_sum = w * LOAD_AVG_MAX;
            sa.util_sum = util * LOAD_AVG_MAX;
            sa.runnable_sum = util * LOAD_AVG_MAX;
        }
    }

    /// `__enqueue_entity()`: into the tree (and its `avg_vruntime` sums).
    pub(super) fn queue_insert(&mut self, cpu: usize, t: TaskId) {
        self.avg_vruntime_add(cpu, t);
        let key = (self.tasks[t].vruntime, t);
        let q = &mut self.rqs[cpu].queue;
        let pos = q.partition_point(|e| *e < key);
        q.insert(pos, key);
    }

    /// `__dequeue_entity()`: out of the tree, if it is there (curr is not).
    pub(super) fn queue_remove(&mut self, cpu: usize, t: TaskId) {
        let key = (self.tasks[t].vruntime, t);
        let q = &self.rqs[cpu].queue;
        let pos = q
            .binary_search(&key)
            .ok()
            .or_else(|| q.iter().position(|e| e.1 == t));
        if let Some(pos) = pos {
            self.rqs[cpu].queue.remove(pos);
            self.avg_vruntime_sub(cpu, t);
        }
    }

    /// `task_fork_fair()` (v4.9-v6.5): the child starts from its parent's vruntime when the parent is
    /// the curr of `cpu` (it is, when it forks), `place_entity(initial)` then puts it at least one
    /// vslice after `min_vruntime` (START_DEBIT), and the result is kept relative to that
    /// `min_vruntime` until [`World::enqueue_task`] adds the new queue's (`Enqueue::New`). The
    /// child-runs-first swap (`sysctl_sched_child_runs_first`, off by default) is not modelled.
    ///
    /// EEVDF (v6.6+): `update_curr()` and `place_entity(ENQUEUE_INITIAL)` on the parent's queue;
    /// the enqueue places the child again, on its own CPU (ENQUEUE_INITIAL from
    /// `wake_up_new_task()`), which is the placement that counts.
    pub fn task_fork_fair(&mut self, cpu: usize, child: TaskId, parent: Option<TaskId>) {
        if self.config.fair_pick == FairPick::Eevdf {
            self.update_curr(cpu);
            self.tasks[child].vlag = 0;
            self.place_entity_eevdf(cpu, child, true);
            return;
        }
        self.tasks[child].vruntime = 0;
        if let Some(p) = parent.filter(|&p| self.rqs[cpu].curr == Some(p)) {
            self.update_curr(cpu);
            self.tasks[child].vruntime = self.tasks[p].vruntime;
        }
        self.place_entity(cpu, child, true);
        let min = self.rqs[cpu].min_vruntime;
        let task = &mut self.tasks[child];
        task.vruntime = task.vruntime.wrapping_sub(min);
    }

    /// `place_entity()` (v4.9-v6.5): sleepers get at most half a latency period of credit
    /// (GENTLE_FAIR_SLEEPERS); new tasks start one vslice behind (START_DEBIT).
    fn place_entity(&mut self, cpu: usize, t: TaskId, initial: bool) {
        let mut vruntime = self.rqs[cpu].min_vruntime;
        if initial {
            let slice = self.sched_slice(cpu, t, false);
            vruntime += Self::calc_delta_fair(slice, self.tasks[t].weight);
        } else {
            vruntime -= self.sched_latency / 2;
        }
        let task = &mut self.tasks[t];
        task.vruntime = task.vruntime.max(vruntime);
    }

    /// `enqueue_task_fair()`: `how` tells whether this is a wake-up, a new task or a migration.
    pub fn enqueue_task(&mut self, cpu: usize, t: TaskId, how: Enqueue) {
        // core.c enqueue_task(): uclamp_rq_inc() before the class's enqueue (v5.3+). A delayed
        // task moved by a balancer is not counted: its sleep released it, and nothing would
        // release it again when its pick dequeues it. That is uclamp_rq_inc()'s "only inc the
        // delayed task which being woken up" of v6.15+ (simplified: v6.12-v6.14 count it and
        // leak the count until its next wake-up; not modelled).
        if self.config.uclamp && !self.tasks[t].sched_delayed {
            self.uclamp_rq_inc(cpu, t);
        }
        self.update_curr(cpu);
        // The cfs_rq is aged to now first; a task woken in place is aged below, at the same
        // clock (nothing between changes it: the clock, curr and the queue are as they were).
        let (now, scale) = self.pelt_clock(cpu);
        self.update_cfs_rq_load_avg(cpu, now, scale);
        let from = self.tasks[t].cpu;
        if from != cpu {
            // migrate_task_rq_fair(): vruntime relative to the old queue, then to the new one. The
            // relative value may be negative (a task left of min_vruntime keeps its lead).
            let v = self.tasks[t].vruntime;
            self.tasks[t].vruntime = v
                .wrapping_sub(self.rqs[from].min_vruntime)
                .wrapping_add(self.rqs[cpu].min_vruntime);
            self.tasks[t].nr_migrations += 1;
            self.counters.migrations += 1;
            self.tasks[t].cpu = cpu;
        }
        let eevdf = self.config.fair_pick == FairPick::Eevdf;
        match how {
            Enqueue::New if eevdf => {
                self.place_entity_eevdf(cpu, t, true);
                self.post_init_entity_util_avg(cpu, t);
                self.attach_entity_load_avg(cpu, t);
            }
            Enqueue::New => {
                // The relative vruntime task_fork_fair() left, against this queue.
                let rel = self.tasks[t].vruntime;
                self.tasks[t].vruntime = self.rqs[cpu].min_vruntime.wrapping_add(rel);
                self.post_init_entity_util_avg(cpu, t);
                self.attach_entity_load_avg(cpu, t);
            }
            Enqueue::Wakeup { migrated } => {
                if migrated {
                    self.attach_entity_load_avg(cpu, t);
                } else {
                    // Decay the sleeping task to now before it counts again. The cfs_rq half of
                    // update_load_avg() would find its clock where it is, and do nothing.
                    self.update_se_load_avg(cpu, t, now, scale);
                }
                if eevdf {
                    self.place_entity_eevdf(cpu, t, false);
                } else {
                    self.place_entity(cpu, t, false);
                }
            }
            Enqueue::Migrated => {
                self.attach_entity_load_avg(cpu, t);
                // v6.6+: enqueue_entity() places every entity, a migrated one too.
                if eevdf {
                    self.place_entity_eevdf(cpu, t, false);
                }
            }
        }
        let prev_nr = self.rqs[cpu].nr_running;
        if self.tasks[t].sched_delayed {
            // A delayed task moved by a balancer (v6.12+): still asleep and delayed on its new
            // queue; util_est_enqueue() skips it ("sched_delayed && task_on_rq_migrating").
            self.rqs[cpu].h_nr_delayed += 1;
        } else {
            let est = self.task_util_est_only(t);
            self.rqs[cpu].util_est_enqueued += est;
            self.trace_util_est_cfs(cpu);
            self.tasks[t].state = TaskState::Runnable;
        }
        self.queue_insert(cpu, t);
        let rq = &mut self.rqs[cpu];
        rq.nr_running += 1;
        rq.load_weight += self.tasks[t].weight;
        list_add_head(&mut rq.cfs_tasks, t);
        // add_nr_running(): the root domain is overloaded once a CPU has two tasks.
        if prev_nr < 2 && rq.nr_running >= 2 {
            self.rd_overload = true;
        }
        // enqueue_task_fair(): `if (!task_new) update_overutilized_status(rq)` (v5.0+).
        if !matches!(how, Enqueue::New) {
            self.update_overutilized_status(cpu);
        }
        self.update_min_vruntime(cpu);
        self.update_idle_mask(cpu);
    }

    /// `dequeue_task_fair()`. For a sleep, the task keeps its signals attached to this CPU (they
    /// decay as blocked load); for a migration they are detached.
    ///
    /// v6.12+ DELAY_DEQUEUE: a sleep of a task that is not eligible stops early and leaves it
    /// queued (`delay_dequeue_entity()`, [`crate::sched::delayed`]); a delayed task's own
    /// dequeue (picked, or moved by a balancer) skips `util_est_dequeue()`, which its sleep
    /// already did.
    pub fn dequeue_task(&mut self, cpu: usize, t: TaskId, migrating: bool) {
        // core.c dequeue_task(): uclamp_rq_dec() before the class's dequeue (v5.3+), and so also
        // at a sleep that DELAY_DEQUEUE then leaves queued ("must be before ->dequeue_task()
        // because ->dequeue_task() can 'fail'", v6.12); a no-op for a task already released.
        if self.config.uclamp {
            self.uclamp_rq_dec(cpu, t);
        }
        let delayed = self.tasks[t].sched_delayed;
        if !delayed {
            // util_est_dequeue(): the rq's estimate loses the task's before its signals move.
            let est = self.task_util_est_only(t);
            self.rqs[cpu].util_est_enqueued = self.rqs[cpu].util_est_enqueued.saturating_sub(est);
            self.trace_util_est_cfs(cpu);
        }
        self.update_curr(cpu);
        if !migrating && !delayed && self.delay_dequeue_entity(cpu, t) {
            return;
        }
        self.dequeue_entity(cpu, t, !migrating, migrating);
    }

    /// `dequeue_entity()` past the DELAY_DEQUEUE test, and the rest of `dequeue_task_fair()`:
    /// `sleep` is DEQUEUE_SLEEP, `detach` a migration (DO_DETACH).
    pub(super) fn dequeue_entity(&mut self, cpu: usize, t: TaskId, sleep: bool, detach: bool) {
        let migrating = detach;
        self.update_load_avg(cpu, Some(t));
        // v6.6+ dequeue_entity(): the lag it leaves with, for its next place_entity().
        if self.config.fair_pick == FairPick::Eevdf {
            self.update_entity_lag(cpu, t);
            // v6.12+ PLACE_REL_DEADLINE: a dequeue that is not a sleep keeps d - v.
            if self.config.place_rel_deadline && !sleep {
                let task = &mut self.tasks[t];
                task.deadline = task.deadline.wrapping_sub(task.vruntime);
                task.rel_deadline = true;
            }
        }
        if self.rqs[cpu].curr == Some(t) {
            self.put_curr(cpu);
        }
        // dequeue_entity(): clear_buddies().
        self.clear_buddies(cpu, t);
        self.queue_remove(cpu, t);
        let rq = &mut self.rqs[cpu];
        rq.nr_running -= 1;
        rq.load_weight -= self.tasks[t].weight;
        if self.tasks[t].sched_delayed {
            rq.h_nr_delayed -= 1;
        }
        list_del(&mut rq.cfs_tasks, t);
        if migrating {
            self.detach_entity_load_avg(cpu, t);
        } else if self.config.util_est && !self.tasks[t].sched_delayed {
            self.util_est_update(cpu, t);
            self.trace_util_est_se(cpu, t);
        }
        self.update_min_vruntime(cpu);
        self.update_idle_mask(cpu);
    }

    /// `put_prev_entity()` for a curr that leaves the CPU (without dequeuing it).
    pub(super) fn put_curr(&mut self, cpu: usize) {
        if let Some(t) = self.rqs[cpu].curr.take() {
            self.tasks[t].last_ran = self.now;
            self.rqs[cpu].run_done_seq = 0;
        }
    }

    /// `clear_buddies()`: `t` stops being any buddy of `cpu`'s cfs_rq.
    pub(super) fn clear_buddies(&mut self, cpu: usize, t: TaskId) {
        let rq = &mut self.rqs[cpu];
        for b in [&mut rq.last, &mut rq.next, &mut rq.skip] {
            if *b == Some(t) {
                *b = None;
            }
        }
    }

    /// `wakeup_preempt_entity(curr, se)`: 1 when `se` is more than `wakeup_gran(se)` left of
    /// `curr`, -1 when it is not left of it at all, 0 in between.
    fn wakeup_preempt_entity(&self, curr: TaskId, se: TaskId) -> i32 {
        let vdiff = self.tasks[curr].vruntime as i64 - self.tasks[se].vruntime as i64;
        if vdiff <= 0 {
            return -1;
        }
        let gran =
            Self::calc_delta_fair(self.sched_wakeup_granularity, self.tasks[se].weight) as i64;
        i32::from(vdiff > gran)
    }

    /// `pick_next_entity()` (v4.9-v6.5) with curr already put back in the tree (no task groups):
    /// the leftmost task, unless it is the skip buddy and the second is not unfairly far right;
    /// then the last buddy, then the next buddy, each if it is within a wake-up granularity of the
    /// leftmost. Returns the position in the queue.
    fn pick_next_entity(&self, cpu: usize) -> Option<usize> {
        let rq = &self.rqs[cpu];
        let q = &rq.queue;
        let (_, left) = *q.first()?;
        let mut se = left;
        if rq.skip == Some(left) {
            if let Some(&(_, second)) = q.get(1) {
                if self.wakeup_preempt_entity(second, left) < 1 {
                    se = second;
                }
            }
        }
        for buddy in [rq.last, rq.next].into_iter().flatten() {
            if self.wakeup_preempt_entity(buddy, left) < 1 {
                se = buddy;
            }
        }
        if se == left {
            return Some(0);
        }
        let key = (self.tasks[se].vruntime, se);
        q.binary_search(&key)
            .ok()
            .or_else(|| q.iter().position(|e| e.1 == se))
    }

    /// `put_prev_task_fair()` + `pick_next_task_fair()` + `set_next_entity()`: the previous curr,
    /// if still runnable, goes back into the tree, and [`World::pick_next_entity`]'s choice
    /// becomes curr (its buddy marks are cleared). Returns the new curr.
    ///
    /// EEVDF (v6.6+): [`World::pick_eevdf`] chooses with prev still curr (see
    /// [`crate::sched::eevdf`]); the pick of another task than prev stashes its deadline in
    /// vlag (v6.17+: sets its vprot). `__schedule()` clears the
    /// need-resched flag after the pick, so a reschedule `update_deadline()` asks for during it
    /// is dropped.
    pub fn pick_next_task(&mut self, cpu: usize) -> Option<TaskId> {
        let eevdf = self.config.fair_pick == FairPick::Eevdf;
        let resched_before = self.need_resched.test(cpu);
        self.update_curr(cpu);
        let chosen = if eevdf {
            self.pick_eevdf_undelayed(cpu)
        } else {
            None
        };
        if eevdf && !resched_before {
            self.need_resched.clear(cpu);
        }
        let prev = self.rqs[cpu].curr;
        if let Some(prev) = prev {
            self.update_load_avg(cpu, Some(prev));
            self.put_curr(cpu);
            self.queue_insert(cpu, prev);
        }
        let idx = match chosen {
            Some(t) => {
                let q = &self.rqs[cpu].queue;
                q.binary_search(&(self.tasks[t].vruntime, t)).ok()?
            }
            None => self.pick_next_entity(cpu)?,
        };
        let (_, next) = self.rqs[cpu].queue[idx];
        self.clear_buddies(cpu, next);
        self.update_load_avg(cpu, Some(next));
        self.rqs[cpu].queue.remove(idx);
        self.avg_vruntime_sub(cpu, next);
        // pick_next_task_fair(): `if (prev != p)` guards put_prev_entity() / set_next_entity(),
        // so prev picked again keeps the RUN_TO_PARITY stash (or vprot) of its earlier pick.
        if eevdf && prev != Some(next) {
            self.set_next_entity_eevdf(cpu, next);
        }
        let now = self.now;
        let task = &mut self.tasks[next];
        task.exec_start = now;
        task.prev_sum_exec_runtime = task.sum_exec_runtime;
        let rq = &mut self.rqs[cpu];
        rq.curr = Some(next);
        list_move_head(&mut rq.cfs_tasks, next);
        Some(next)
    }

    /// `yield_task_fair()`: clear curr's buddy marks and make it the skip buddy, so the next pick
    /// prefers another task, and reschedule.
    pub fn yield_task(&mut self, cpu: usize) {
        if self.config.fair_pick == FairPick::Eevdf {
            self.yield_task_eevdf(cpu);
            return;
        }
        self.update_curr(cpu);
        if let Some(curr) = self.rqs[cpu].curr {
            self.clear_buddies(cpu, curr);
        }
        self.rqs[cpu].skip = self.rqs[cpu].curr;
        self.resched(cpu);
    }

    /// `check_preempt_tick()` (v4.9-v6.5): curr used its slice, or is a slice ahead of the
    /// leftmost task. EEVDF (v6.6+) has no such check: the tick's `update_curr()` reschedules
    /// through `update_deadline()`.
    pub fn check_preempt_tick(&mut self, cpu: usize) {
        if self.config.fair_pick == FairPick::Eevdf {
            return;
        }
        let Some(curr) = self.rqs[cpu].curr else {
            return;
        };
        let ideal_runtime = self.sched_slice(cpu, curr, true);
        let task = &self.tasks[curr];
        let delta_exec = task.sum_exec_runtime - task.prev_sum_exec_runtime;
        if delta_exec > ideal_runtime {
            self.resched(cpu);
            // The slice is used up: curr must not come straight back as a buddy.
            self.clear_buddies(cpu, curr);
            return;
        }
        if delta_exec < self.sched_min_granularity {
            return;
        }
        if let Some(&(lv, _)) = self.rqs[cpu].queue.first() {
            let v = self.tasks[curr].vruntime;
            if v > lv && v - lv > ideal_runtime {
                self.resched(cpu);
            }
        }
    }

    /// `check_preempt_wakeup()` with `wakeup_preempt_entity()`: a woken task preempts curr when its
    /// vruntime is more than `wakeup_gran()` behind. Pre-v6.6 the preempting task becomes the next
    /// buddy, and with LAST_BUDDY and at least `sched_nr_latency` tasks on the cfs_rq the preempted
    /// curr the last buddy (v5.6 fair.c:6599). A curr already due for rescheduling is left alone
    /// (`test_tsk_need_resched()`).
    /// EEVDF (v6.6+): [`World::check_preempt_wakeup_fair`].
    pub fn check_preempt_wakeup(&mut self, cpu: usize, woken: TaskId) {
        if self.config.fair_pick == FairPick::Eevdf {
            self.check_preempt_wakeup_fair(cpu, woken, false);
            return;
        }
        let Some(curr) = self.rqs[cpu].curr else {
            self.resched(cpu);
            return;
        };
        if curr == woken || self.need_resched.test(cpu) {
            return;
        }
        self.update_curr(cpu);
        if self.wakeup_preempt_entity(curr, woken) == 1 {
            if self.config.wakeup_preempt_next_buddy {
                self.rqs[cpu].next = Some(woken);
            }
            self.resched(cpu);
            // sched_nr_latency = sysctl_sched_latency / sysctl_sched_min_granularity.
            let nr_latency = (self.sched_latency / self.sched_min_granularity).max(1) as usize;
            if self.config.last_buddy && self.rqs[cpu].nr_running >= nr_latency {
                self.rqs[cpu].last = Some(curr);
            }
        }
    }

    /// `task_util()`: the PELT signal alone.
    pub fn task_util(&self, t: TaskId) -> u64 {
        self.tasks[t].avg.util_avg
    }

    /// `_task_util_est()`: max(ewma, enqueued), or 0 without util_est.
    pub(crate) fn task_util_est_only(&self, t: TaskId) -> u64 {
        if !self.config.util_est {
            return 0;
        }
        self.tasks[t]
            .util_est_ewma
            .max(self.tasks[t].util_est_enqueued)
    }

    /// `task_util_est()`: what placement and balancing read for a task.
    pub fn task_util_est(&self, t: TaskId) -> u64 {
        self.task_util(t).max(self.task_util_est_only(t))
    }

    /// `cpu_util_cfs()` (v5.7): max(util_avg, util_est.enqueued) clamped to `capacity_orig_of()`
    /// (v4.9 `cpu_util()` clamps likewise, to the smt_gain capacity on SMT threads).
    pub fn cpu_util(&self, cpu: usize) -> u64 {
        let rq = &self.rqs[cpu];
        let util = if self.config.util_est {
            rq.avg.util_avg.max(rq.util_est_enqueued)
        } else {
            rq.avg.util_avg
        };
        util.min(self.capacity_orig_of(cpu))
    }

    /// `cpu_util_without()`: the CPU's utilization without `p`'s contribution if it is attached here.
    pub fn cpu_util_without(&self, cpu: usize, p: TaskId) -> u64 {
        let rq = &self.rqs[cpu];
        let here = self.tasks[p].cpu == cpu && self.tasks[p].state != TaskState::Exited;
        let mut util = rq.avg.util_avg;
        if here {
            util = util.saturating_sub(self.task_util(p));
        }
        if self.config.util_est {
            let mut est = rq.util_est_enqueued;
            if here && self.tasks[p].state == TaskState::Runnable {
                est = est.saturating_sub(self.task_util_est_only(p));
            }
            util = util.max(est);
        }
        util.min(self.capacity_orig_of(cpu))
    }

    /// `util_est_update()` at a dequeue for sleep (v5.7 `util_est_dequeue()`): remember util_avg,
    /// and move the EWMA a quarter of the way to it (at once when it grew, UTIL_EST_FASTUP), unless
    /// within 1% or the task used more than the CPU could give.
    pub(super) fn util_est_update(&mut self, cpu: usize, t: TaskId) {
        let util = self.task_util(t);
        let cap = self.capacity_orig_of(cpu);
        let task = &mut self.tasks[t];
        task.util_est_enqueued = util;
        if task.util_est_ewma < util {
            task.util_est_ewma = util;
            return;
        }
        let diff = util as i64 - task.util_est_ewma as i64;
        if diff.abs() < (crate::units::SCHED_CAPACITY_SCALE / 100) as i64 || util > cap {
            return;
        }
        // UTIL_EST_WEIGHT_SHIFT = 2
        task.util_est_ewma = (((task.util_est_ewma as i64) << 2) + diff).max(0) as u64 >> 2;
    }

    /// `cpu_load()`.
    pub fn cpu_load(&self, cpu: usize) -> u64 {
        self.rqs[cpu].avg.load_avg
    }

    /// `weighted_cpuload()` of v4.x: `runnable_load_avg`, the load of the tasks enqueued now (blocked
    /// tasks' load, which `load_avg` keeps decaying, does not count).
    pub fn cpu_runnable_load(&self, cpu: usize) -> u64 {
        let rq = &self.rqs[cpu];
        rq.queue
            .iter()
            .map(|&(_, t)| t)
            .chain(rq.curr)
            .map(|t| self.tasks[t].avg.load_avg)
            .sum()
    }

    /// `cpu_load_without()`.
    pub fn cpu_load_without(&self, cpu: usize, p: TaskId) -> u64 {
        let l = self.rqs[cpu].avg.load_avg;
        if self.tasks[p].cpu == cpu && self.tasks[p].state != TaskState::Exited {
            l.saturating_sub(self.tasks[p].avg.load_avg)
        } else {
            l
        }
    }

    /// `cpu_runnable()`.
    pub fn cpu_runnable(&self, cpu: usize) -> u64 {
        self.rqs[cpu].avg.runnable_avg
    }

    /// `cpu_runnable_without()`.
    pub fn cpu_runnable_without(&self, cpu: usize, p: TaskId) -> u64 {
        let r = self.rqs[cpu].avg.runnable_avg;
        if self.tasks[p].cpu == cpu && self.tasks[p].state != TaskState::Exited {
            r.saturating_sub(self.tasks[p].avg.runnable_avg)
        } else {
            r
        }
    }
}

/// Why a task is enqueued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enqueue {
    /// `wake_up_new_task()`.
    New,
    /// `ttwu_do_activate()`; `migrated` when it wakes on another CPU than it slept on.
    Wakeup { migrated: bool },
    /// `attach_task()` after a load-balance migration.
    Migrated,
}
