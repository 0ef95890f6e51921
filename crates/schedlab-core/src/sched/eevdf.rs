//! EEVDF, the fair class's pick since v6.6 (kernel/sched/fair.c, Peter Zijlstra's series
//! 147f3efaa241 "sched/fair: Implement an EEVDF-like scheduling algorithm" and 5e963f2bd465
//! "sched/fair: Commit to EEVDF"), selected by
//! [`KernelConfig::fair_pick`] = [`FairPick::Eevdf`].
//!
//! Each task requests `se->slice` (`sysctl_sched_base_slice`, 0.75 ms scaled by
//! `1 + ilog2(min(ncpus, 8))` as `update_sysctl()` does: the model's `sched_min_granularity`,
//! the pre-v6.6 name of the same sysctl and value). Its virtual deadline is
//! `vruntime + slice * NICE_0_LOAD / weight`. A task is eligible when its vruntime is at or
//! left of the load-weighted average vruntime `V` (`avg_vruntime()`), i.e. its lag
//! `V - vruntime` is not negative. `pick_eevdf()` runs the eligible task with the earliest
//! deadline. The lag a task had when it left a queue (`update_entity_lag()`, clamped to a
//! couple of slices) is given back where it is enqueued next (`place_entity()`, PLACE_LAG), on
//! the same CPU after a sleep or on another after a migration.
//!
//! **Sources, read:** fair.c of v6.6.63 (OpenNuvoton/MA35D1_linux-6.6.y; for v6.6.0's
//! `reweight_entity()` the v6.7 patch eab03c23c2a1 that replaced it), v6.8.1 (sndrzt/linux-6.8),
//! v6.12.19 (wishday/linux-6.12.y), v6.13.7 (ChenRuiwei/linux-6.13.7) and a v6.19.0 tree
//! (matankalina/linux-6.19.10-fork); each function below was checked against them:
//! `avg_vruntime()` (floored division in all), `entity_eligible()` / `vruntime_eligible()`,
//! `entity_lag()` / `update_entity_lag()` (clamp `calc_delta_fair(max(2 * slice, TICK_NSEC))`
//! in all read), `place_entity()` (lag inflation by `(W + w) / W` with `nr_running` /
//! `nr_queued` and, v6.19, a zero `vlag` skipping it, which gives the same result),
//! `update_deadline()`, `pick_eevdf()` (v6.6: curr wins a deadline tie; v6.8+: the queued task
//! does, `entity_before(curr, best)`; the model has v6.8's, see below), `set_next_entity()`'s
//! stash, `check_preempt_wakeup()` / `check_preempt_wakeup_fair()`, `do_preempt_short()` /
//! `did_preempt_short()` (v6.12, v6.13), `yield_task_fair()`, `reweight_entity()` /
//! `reweight_eevdf()`. Found and fixed on that reading: `reweight_entity()` rescaled nothing
//! (v6.6.0 rescales the relative deadline, v6.7+ keeps the lag, both scale a sleeper's `vlag`:
//! [`KernelConfig::reweight_eevdf`]); a curr picked again was given a new RUN_TO_PARITY stash,
//! where `pick_next_task_fair()` calls no `set_next_entity()` when `prev == p`, so after
//! `update_deadline()` gives it a new slice it is no longer protected (wake-up preemption by
//! the pick can then take it). The v6.8 tree already sorts by deadline with `min_vruntime`
//! augmentation (2227a957e1d5, which the earlier text dated v6.9).
//!
//! Simplifications, each with the kernel's result kept:
//! - `pick_eevdf()` is a linear scan of the queue, O(nr_running) per pick, where the kernel
//!   walks its augmented rbtree (`min_deadline` in v6.6-v6.7, `min_vruntime` with a
//!   deadline-sorted tree from v6.8): both give the eligible entity with the earliest deadline;
//!   an exact tie of deadlines goes to the queued task of least (vruntime, id), and between
//!   curr and a queued task to the queued one (v6.8+; v6.6-v6.7 keep curr). Ties need equal ns
//!   and are rare.
//! - The pick at `schedule()` sees the previous task as `cfs_rq->curr` (the
//!   CONFIG_FAIR_GROUP_SCHED path of `pick_next_task_fair()`, which distribution kernels take),
//!   so RUN_TO_PARITY applies to it as it does to the wake-up check.
//! - One cfs_rq per CPU (no task groups), as in the rest of the model, so no group entity is
//!   ever reweighted; `reweight_eevdf()` ([`crate::sched::reweight`]) acts on nice changes.
//! - A custom slice set while the task is queued takes effect at its next deadline or placement
//!   (`sched_setattr()` re-enqueues it at once, DEQUEUE_SAVE / ENQUEUE_RESTORE).
//! - DELAY_DEQUEUE (v6.12+) is in [`crate::sched::delayed`]. v6.17+'s protected slice
//!   (`se->vprot`, [`KernelConfig::protect_slice`]) is here. Not modelled: NEXT_BUDDY (off by
//!   default in every era) and PICK_BUDDY's `cfs_rq->next`, which only NEXT_BUDDY and
//!   `yield_to()` set; the lag clamp by the queue's largest slice (after v6.19).
//!
//! [`KernelConfig::reweight_eevdf`]: crate::kernel::KernelConfig::reweight_eevdf
//! [`KernelConfig::protect_slice`]: crate::kernel::KernelConfig::protect_slice
//! [`KernelConfig::fair_pick`]: crate::kernel::KernelConfig::fair_pick
//! [`FairPick::Eevdf`]: crate::kernel::FairPick::Eevdf

use super::{TaskId, World};
use crate::kernel::FairPick;

/// `normalized_sysctl_sched_base_slice`: 0.75 ms, the base slice before `update_sysctl()`'s
/// `1 + ilog2(ncpus)` scaling, which `set_protect_slice()` uses without RUN_TO_PARITY (v6.17+).
const NORMALIZED_SCHED_BASE_SLICE: u64 = 750_000;

impl World {
    /// `sysctl_sched_base_slice` after `update_sysctl()` scaling (v6.6+): the model keeps the
    /// pre-v6.6 name, `sched_min_granularity`, for the same sysctl and value.
    pub fn sched_base_slice(&self) -> u64 {
        self.sched_min_granularity
    }

    /// `entity_key()`: vruntime relative to `min_vruntime`, signed.
    fn entity_key(&self, cpu: usize, vruntime: u64) -> i64 {
        vruntime.wrapping_sub(self.rqs[cpu].min_vruntime) as i64
    }

    /// `avg_vruntime_add()` (v6.6+): a task enters the tree (curr is not in it).
    pub(super) fn avg_vruntime_add(&mut self, cpu: usize, t: TaskId) {
        let w = self.tasks[t].weight;
        let key = self.entity_key(cpu, self.tasks[t].vruntime);
        let rq = &mut self.rqs[cpu];
        rq.avg_vruntime += key * w as i64;
        rq.avg_load += w;
    }

    /// `avg_vruntime_sub()` (v6.6+): a task leaves the tree.
    pub(super) fn avg_vruntime_sub(&mut self, cpu: usize, t: TaskId) {
        let w = self.tasks[t].weight;
        let key = self.entity_key(cpu, self.tasks[t].vruntime);
        let rq = &mut self.rqs[cpu];
        rq.avg_vruntime -= key * w as i64;
        rq.avg_load -= w;
    }

    /// `avg_vruntime_update()` (v6.6+): `min_vruntime` moved right by `delta`, so every key
    /// shrinks by it.
    pub(super) fn avg_vruntime_update(&mut self, cpu: usize, delta: i64) {
        let rq = &mut self.rqs[cpu];
        rq.avg_vruntime -= rq.avg_load as i64 * delta;
    }

    /// The sums `avg_vruntime()` and `vruntime_eligible()` start from: the tree's, plus curr.
    fn avg_sums(&self, cpu: usize) -> (i64, i64) {
        let rq = &self.rqs[cpu];
        let mut avg = rq.avg_vruntime;
        let mut load = rq.avg_load as i64;
        if let Some(c) = rq.curr {
            let w = self.tasks[c].weight as i64;
            avg += self.entity_key(cpu, self.tasks[c].vruntime) * w;
            load += w;
        }
        (avg, load)
    }

    /// `avg_vruntime()` (v6.6+): the load-weighted average vruntime `V` of the queued tasks and
    /// curr, the 0-lag point. The division floors (650cad561cce "sched/eevdf: Fix
    /// avg_vruntime()", v6.7, in v6.6 stable), so that the task of least vruntime is eligible.
    pub fn avg_vruntime(&self, cpu: usize) -> u64 {
        let (mut avg, load) = self.avg_sums(cpu);
        if load > 0 {
            if avg < 0 {
                avg -= load - 1;
            }
            avg /= load;
        }
        self.rqs[cpu].min_vruntime.wrapping_add(avg as u64)
    }

    /// `entity_eligible()` / `vruntime_eligible()` (v6.6+; the latter name from v6.10): the
    /// lag `V - vruntime` is not negative, tested without dividing:
    /// `sum(key_j * w_j) >= key * sum(w_j)`.
    pub fn entity_eligible(&self, cpu: usize, t: TaskId) -> bool {
        let (avg, load) = self.avg_sums(cpu);
        avg >= self.entity_key(cpu, self.tasks[t].vruntime) * load
    }

    /// `update_entity_lag()` (v6.6+), at every dequeue: `vlag = V - vruntime`, clamped to
    /// `calc_delta_fair(max(2 * slice, TICK_NSEC))` either way.
    pub(super) fn update_entity_lag(&mut self, cpu: usize, t: TaskId) {
        let avruntime = self.avg_vruntime(cpu);
        self.tasks[t].vlag = self.entity_lag(avruntime, t);
    }

    /// `entity_lag()` (v6.6+): `avruntime - vruntime`, clamped to
    /// `calc_delta_fair(max(2 * slice, TICK_NSEC))` at the task's current weight.
    pub(super) fn entity_lag(&self, avruntime: u64, t: TaskId) -> i64 {
        let lag = avruntime.wrapping_sub(self.tasks[t].vruntime) as i64;
        let tick_nsec = 1_000_000_000 / u64::from(self.config.hz.max(1));
        let slice = self.task_slice(t);
        let limit = Self::calc_delta_fair((2 * slice).max(tick_nsec), self.tasks[t].weight) as i64;
        lag.clamp(-limit, limit)
    }

    /// `se->slice`: `sysctl_sched_base_slice`, or (v6.12+) the task's custom slice.
    pub(super) fn task_slice(&self, t: TaskId) -> u64 {
        if self.tasks[t].custom_slice {
            return self.tasks[t].slice;
        }
        self.sched_base_slice()
    }

    /// `__setscheduler_params()` for a fair task (v6.12+): a non-zero `sched_runtime` is the
    /// task's slice, clamped to 0.1 ms (HZ=1000 x 10) .. 100 ms (HZ=100 / 10); zero returns it to
    /// the base slice. Before v6.12 ([`KernelConfig::custom_slice`] off) it is ignored.
    ///
    /// [`KernelConfig::custom_slice`]: crate::kernel::KernelConfig::custom_slice
    pub fn set_custom_slice(&mut self, t: TaskId, sched_runtime: u64) {
        if !self.config.custom_slice {
            return;
        }
        let base = self.sched_base_slice();
        let task = &mut self.tasks[t];
        task.custom_slice = sched_runtime != 0;
        task.slice = match sched_runtime {
            0 => base,
            r => r.clamp(
                crate::units::NSEC_PER_MSEC / 10,
                100 * crate::units::NSEC_PER_MSEC,
            ),
        };
    }

    /// `place_entity()` (v6.6+), at every enqueue (wake-up, migration, new task) and at fork:
    /// the task starts at the 0-lag point minus the lag it left with (PLACE_LAG, only when the
    /// queue is not empty), inflated by `(W + w_i) / W` so that its lag after it joins the
    /// average is the one saved: `vl_i = (W + w_i) * vl'_i / W`. Its deadline is a slice
    /// (weighted) later, half of one for a new task (PLACE_DEADLINE_INITIAL). Runs before the
    /// task is counted in the queue.
    pub(super) fn place_entity_eevdf(&mut self, cpu: usize, t: TaskId, initial: bool) {
        let vruntime = self.avg_vruntime(cpu);
        // v6.12: "if (!se->custom_slice) se->slice = sysctl_sched_base_slice".
        let slice = self.task_slice(t);
        self.tasks[t].slice = slice;
        let w = self.tasks[t].weight;
        let mut vslice = Self::calc_delta_fair(slice, w);
        let mut lag: i64 = 0;
        if self.config.place_lag && self.rqs[cpu].nr_running > 0 {
            lag = self.tasks[t].vlag;
            let (_, load) = self.avg_sums(cpu);
            let load = load.max(1);
            // div_s64(): truncation towards zero.
            lag = lag * (load + w as i64) / load;
        }
        let v = vruntime.wrapping_sub(lag as u64);
        // v6.12+ PLACE_REL_DEADLINE: a migrated task keeps the deadline it had, relative.
        if self.config.place_rel_deadline && self.tasks[t].rel_deadline {
            let task = &mut self.tasks[t];
            task.vruntime = v;
            task.deadline = task.deadline.wrapping_add(v);
            task.rel_deadline = false;
            return;
        }
        if self.config.place_deadline_initial && initial {
            vslice /= 2;
        }
        let task = &mut self.tasks[t];
        task.vruntime = v;
        task.deadline = v + vslice;
    }

    /// `update_deadline()` (v6.6+), from `update_curr()`: once curr's vruntime reaches its
    /// deadline it gets a new slice and deadline, and, with another task queued, the CPU is
    /// rescheduled (EEVDF's tick preemption; `check_preempt_tick()` is gone).
    ///
    /// v6.17+ ([`KernelConfig::protect_slice`]): `update_curr()` also reschedules, with another
    /// task queued, a curr that has left its protected slice (`!protect_slice()`).
    ///
    /// [`KernelConfig::protect_slice`]: crate::kernel::KernelConfig::protect_slice
    pub(super) fn update_deadline(&mut self, cpu: usize, t: TaskId) {
        let task = &self.tasks[t];
        let renewed = (task.vruntime.wrapping_sub(task.deadline) as i64) >= 0;
        if renewed {
            let slice = self.task_slice(t);
            let vslice = Self::calc_delta_fair(slice, task.weight);
            let task = &mut self.tasks[t];
            task.slice = slice;
            task.deadline = task.vruntime + vslice;
        }
        let unprotected = self.config.protect_slice && !self.protect_slice(t);
        if (renewed || unprotected) && self.rqs[cpu].nr_running > 1 {
            self.resched(cpu);
            self.clear_buddies(cpu, t);
        }
    }

    /// `cfs_rq_min_slice()` (v6.12+): the shortest `se->slice` of curr and the queued tasks
    /// (the kernel keeps it in the tree's augmented `min_slice`; a scan here).
    fn cfs_rq_min_slice(&self, cpu: usize) -> u64 {
        let rq = &self.rqs[cpu];
        rq.queue
            .iter()
            .map(|&(_, t)| t)
            .chain(rq.curr)
            .map(|t| self.task_slice(t))
            .min()
            .unwrap_or(u64::MAX)
    }

    /// `protect_slice()` (v6.17+): curr has not reached its `vprot`.
    fn protect_slice(&self, t: TaskId) -> bool {
        (self.tasks[t].vprot.wrapping_sub(self.tasks[t].vruntime) as i64) > 0
    }

    /// `set_protect_slice()` (v6.17+), at the pick of `t` (out of the tree, not yet curr):
    /// protected up to its deadline, or, when the queue holds a shorter slice (RUN_TO_PARITY) or
    /// its slice is above the normalized base slice (NO_RUN_TO_PARITY: 0.75 ms, the sysctl
    /// before `update_sysctl()` scaling), a vruntime that slice later.
    fn set_protect_slice(&mut self, cpu: usize, t: TaskId) {
        let own = self.task_slice(t);
        let mut slice = if self.config.run_to_parity {
            self.cfs_rq_min_slice(cpu)
        } else {
            NORMALIZED_SCHED_BASE_SLICE
        };
        slice = slice.min(own);
        let task = &self.tasks[t];
        let mut vprot = task.deadline;
        if slice != own {
            let v = task.vruntime + Self::calc_delta_fair(slice, task.weight);
            if (v.wrapping_sub(vprot) as i64) < 0 {
                vprot = v;
            }
        }
        self.tasks[t].vprot = vprot;
    }

    /// `update_protect_slice()` (v6.17+, RUN_TO_PARITY), after a wake-up that did not preempt:
    /// curr's protection ends no later than the queue's shortest slice from now.
    fn update_protect_slice(&mut self, cpu: usize, t: TaskId) {
        let slice = self.cfs_rq_min_slice(cpu);
        let task = &self.tasks[t];
        let v = task.vruntime + Self::calc_delta_fair(slice, task.weight);
        if (v.wrapping_sub(task.vprot) as i64) < 0 {
            self.tasks[t].vprot = v;
        }
    }

    /// `cancel_protect_slice()` (v6.17+).
    fn cancel_protect_slice(&mut self, t: TaskId) {
        if self.protect_slice(t) {
            self.tasks[t].vprot = self.tasks[t].vruntime;
        }
    }

    /// Whether `pick_eevdf()` keeps an eligible curr: RUN_TO_PARITY's stash (`vlag == deadline`,
    /// v6.6-v6.16) or, v6.17+, `protect_slice()` (the pick's `protect` argument).
    fn curr_protected(&self, c: TaskId, protect: bool) -> bool {
        if self.config.protect_slice {
            protect && self.protect_slice(c)
        } else {
            self.config.run_to_parity && self.tasks[c].vlag == self.tasks[c].deadline as i64
        }
    }

    /// `did_preempt_short()` (v6.12+ PREEMPT_SHORT), from `update_curr()` with another task
    /// queued: a curr whose RUN_TO_PARITY protection was cancelled is rescheduled once it is not
    /// eligible.
    pub(super) fn did_preempt_short(&mut self, cpu: usize, t: TaskId) {
        // v6.17+: gone, update_deadline()'s `!protect_slice()` does it.
        if !self.config.preempt_short || self.config.protect_slice || self.rqs[cpu].nr_running <= 1
        {
            return;
        }
        if self.tasks[t].vlag == self.tasks[t].deadline as i64 || self.entity_eligible(cpu, t) {
            return;
        }
        self.resched(cpu);
        self.clear_buddies(cpu, t);
    }

    /// `do_preempt_short()` (v6.12+ PREEMPT_SHORT): the woken `pse` asks for a shorter slice than
    /// curr `se`, is eligible, and either has the earlier deadline (`entity_before()`, by
    /// deadline from v6.9) or curr is not eligible.
    fn do_preempt_short(&self, cpu: usize, pse: TaskId, se: TaskId) -> bool {
        if !self.config.preempt_short {
            return false;
        }
        if self.task_slice(pse) >= self.task_slice(se) || !self.entity_eligible(cpu, pse) {
            return false;
        }
        let before = (self.tasks[pse]
            .deadline
            .wrapping_sub(self.tasks[se].deadline) as i64)
            < 0;
        before || !self.entity_eligible(cpu, se)
    }

    /// `pick_eevdf()` (v6.6+): among curr (if it is eligible) and the queued tasks, the eligible
    /// one with the earliest virtual deadline. With RUN_TO_PARITY an eligible curr whose deadline
    /// is still the one it was picked with (`vlag == deadline`, the stash of
    /// [`World::set_next_entity_eevdf`]) is kept. A linear scan (see the module doc).
    pub fn pick_eevdf(&self, cpu: usize) -> Option<TaskId> {
        self.pick_eevdf_protect(cpu, true)
    }

    /// `__pick_eevdf(cfs_rq, protect)` (v6.17+; `pick_eevdf()` before): `protect` false is the
    /// PREEMPT_SHORT wake-up's pick, which ignores curr's protected slice.
    fn pick_eevdf_protect(&self, cpu: usize, protect: bool) -> Option<TaskId> {
        let rq = &self.rqs[cpu];
        if rq.queue.is_empty() {
            return rq.curr;
        }
        let (avg, load) = self.avg_sums(cpu);
        let eligible = |t: TaskId| avg >= self.entity_key(cpu, self.tasks[t].vruntime) * load;
        let curr = rq.curr.filter(|&c| eligible(c));
        if let Some(c) = curr {
            if self.curr_protected(c, protect) {
                return Some(c);
            }
        }
        let deadline_gt = |a: TaskId, b: TaskId| {
            (self.tasks[a].deadline.wrapping_sub(self.tasks[b].deadline) as i64) > 0
        };
        let mut best: Option<TaskId> = None;
        for &(_, t) in &rq.queue {
            if eligible(t) && best.is_none_or(|b| deadline_gt(b, t)) {
                best = Some(t);
            }
        }
        if let Some(c) = curr {
            if best.is_none_or(|b| deadline_gt(b, c)) {
                best = Some(c);
            }
        }
        // "EEVDF scheduling fail, picking leftmost": cannot happen with the floored average.
        best.or_else(|| rq.queue.first().map(|&(_, t)| t))
    }

    /// `set_next_entity()`'s EEVDF part (v6.6+): "HACK, stash a copy of deadline at the point of
    /// pick in vlag, which isn't used until dequeue" (read by RUN_TO_PARITY).
    ///
    /// v6.17+ ([`KernelConfig::protect_slice`]): `set_protect_slice()` instead.
    ///
    /// [`KernelConfig::protect_slice`]: crate::kernel::KernelConfig::protect_slice
    pub(super) fn set_next_entity_eevdf(&mut self, cpu: usize, t: TaskId) {
        if self.config.protect_slice {
            self.set_protect_slice(cpu, t);
            return;
        }
        let task = &mut self.tasks[t];
        task.vlag = task.deadline as i64;
    }

    /// `check_preempt_wakeup()` (v6.6-v6.7; `check_preempt_wakeup_fair()` from v6.8): after
    /// `update_curr()`, the woken task preempts curr if `pick_eevdf()` would run it. A curr
    /// already due for rescheduling is left alone (`test_tsk_need_resched()`).
    ///
    /// v6.17+ ([`KernelConfig::protect_slice`]): a woken task with a shorter slice than curr
    /// (PREEMPT_SHORT) is picked for without protection and, if it wins, cancels curr's
    /// protection; v6.19 ([`KernelConfig::wakeup_fork_no_preempt`]) returns here for a new
    /// (`fork`, WF_FORK) or delayed task; otherwise the protected pick decides, and a wake-up
    /// that does not preempt ends curr's protection within the queue's shortest slice
    /// (`update_protect_slice()`, RUN_TO_PARITY).
    ///
    /// [`KernelConfig::protect_slice`]: crate::kernel::KernelConfig::protect_slice
    /// [`KernelConfig::wakeup_fork_no_preempt`]: crate::kernel::KernelConfig::wakeup_fork_no_preempt
    pub(super) fn check_preempt_wakeup_fair(&mut self, cpu: usize, woken: TaskId, fork: bool) {
        let Some(curr) = self.rqs[cpu].curr else {
            self.resched(cpu);
            return;
        };
        if curr == woken || self.need_resched.test(cpu) {
            return;
        }
        self.update_curr(cpu);
        if self.config.protect_slice {
            let short = self.config.preempt_short && self.task_slice(woken) < self.task_slice(curr);
            if !short
                && self.config.wakeup_fork_no_preempt
                && (fork || self.tasks[woken].sched_delayed)
            {
                return;
            }
            if self.pick_eevdf_protect(cpu, !short) == Some(woken) {
                if short {
                    self.cancel_protect_slice(curr);
                }
                self.resched(cpu);
            } else if self.config.run_to_parity {
                self.update_protect_slice(cpu, curr);
            }
            return;
        }
        // v6.12 PREEMPT_SHORT: cancel_protect_slice(), so that pick_eevdf() may choose the woken.
        if self.do_preempt_short(cpu, woken, curr) {
            let c = &mut self.tasks[curr];
            if c.vlag == c.deadline as i64 {
                c.vlag = c.deadline as i64 + 1;
            }
        }
        if self.pick_eevdf(cpu) == Some(woken) {
            self.resched(cpu);
        }
    }

    /// `wakeup_preempt()` from `wake_up_new_task()` (WF_FORK): EEVDF's check knows the woken
    /// task is new (v6.19 [`KernelConfig::wakeup_fork_no_preempt`]); CFS's does not look.
    ///
    /// [`KernelConfig::wakeup_fork_no_preempt`]: crate::kernel::KernelConfig::wakeup_fork_no_preempt
    pub fn check_preempt_wakeup_new(&mut self, cpu: usize, child: TaskId) {
        if self.config.fair_pick == FairPick::Eevdf {
            self.check_preempt_wakeup_fair(cpu, child, true);
        } else {
            self.check_preempt_wakeup(cpu, child);
        }
    }

    /// `yield_task_fair()` (v6.6+): curr's deadline moves a slice later (no skip buddy).
    ///
    /// [`KernelConfig::yield_to_deadline`] (after v6.13): an eligible curr first moves to its
    /// deadline, giving up the rest of its request.
    ///
    /// [`KernelConfig::yield_to_deadline`]: crate::kernel::KernelConfig::yield_to_deadline
    pub(super) fn yield_task_eevdf(&mut self, cpu: usize) {
        self.update_curr(cpu);
        if let Some(curr) = self.rqs[cpu].curr {
            self.clear_buddies(cpu, curr);
            if self.rqs[cpu].nr_running > 1 {
                if self.config.yield_to_deadline && self.entity_eligible(cpu, curr) {
                    self.tasks[curr].vruntime = self.tasks[curr].deadline;
                }
                let vslice = Self::calc_delta_fair(self.task_slice(curr), self.tasks[curr].weight);
                self.tasks[curr].deadline += vslice;
            }
        }
        self.resched(cpu);
    }
}
