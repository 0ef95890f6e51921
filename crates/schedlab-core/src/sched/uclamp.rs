//! Utilization clamping (uclamp, `CONFIG_UCLAMP_TASK`, v5.3+; kernel/sched/core.c, sched.h,
//! fair.c, cpufreq_schedutil.c; read in v5.6.4, v5.10.13, v5.12.9, v5.15.0, v6.5 and v6.8), on
//! where [`KernelConfig::uclamp`](crate::kernel::KernelConfig::uclamp) is set:
//!
//! - Per task, the requests `p->uclamp_req[UCLAMP_MIN/MAX]` (default 0 / 1024, inherited at fork,
//!   `uclamp_fork()`), set by `sched_setattr()` with SCHED_FLAG_UTIL_CLAMP_MIN/MAX
//!   ([`World::sched_setattr_uclamp`], `uclamp_validate()` / `__setscheduler_uclamp()`); the
//!   effective value `uclamp_eff_get()`: the request limited by the system defaults
//!   `sysctl_sched_uclamp_util_min/max` (no task groups in the model, so no
//!   `uclamp_tg_restrict()`), and `uclamp_eff_value()`, the value refcounted while queued.
//! - Per rq, `rq->uclamp[clamp_id]`: `UCLAMP_BUCKETS` (5, `CONFIG_UCLAMP_BUCKETS_COUNT`'s
//!   default) buckets of `UCLAMP_BUCKET_DELTA` (205) each counting the queued tasks whose
//!   effective clamp falls in it and keeping their max ("local max aggregation", which may
//!   over-boost tasks of the same bucket after the max one leaves, as the kernel accepts); the
//!   rq's value is the max over tasks (`uclamp_rq_inc_id()` / `uclamp_rq_dec_id()`, O(1) per
//!   enqueue/dequeue, `uclamp_rq_max_value()` scanning the 5 buckets only when the top one
//!   empties). When the last task leaves, UCLAMP_MIN drops to 0 and UCLAMP_MAX keeps the last
//!   task's value with UCLAMP_FLAG_IDLE set (`uclamp_idle_value()`), so blocked utilization
//!   does not raise the frequency; the next enqueue resets it (`uclamp_idle_reset()`).
//! - Consumers: [`World::uclamp_rq_util_with`] (schedutil to v6.7, EAS's energy estimate),
//!   [`World::uclamp_sugov_bounds`] (v6.8's `effective_cpu_util()` min/max),
//!   [`World::task_fits_cpu`] (per [`UtilFits`]), [`World::util_fits_cpu`] (v6.2+).
//!
//! Simplifications: the `sched_uclamp_used` static key (v5.9+) is taken as enabled from boot.
//! Until some task sets a clamp, every task and rq holds the defaults (0, 1024), with which every
//! consumer returns what it would without uclamp; what is left out is only the transient of
//! v5.9+ after the first `sched_setattr()` (tasks queued before it are not refcounted until
//! their next enqueue). The rqs start as v6.8's `init_uclamp_rq()` leaves them (1024 retained,
//! UCLAMP_FLAG_IDLE); v5.3-v5.8 zero them and the first task at boot sets them to the same,
//! which the pre-run history stands for. No RT tasks (so no `sysctl_sched_uclamp_util_min_rt_default`),
//! no cgroup clamps, no thermal pressure (`capacity_orig_thermal` is
//! `arch_scale_cpu_capacity()`), no `sched_util_min = -1` reset requests.

use super::{TaskId, TaskState, World};
use crate::kernel::UtilFits;

/// `UCLAMP_MIN`.
pub const UCLAMP_MIN: usize = 0;
/// `UCLAMP_MAX`.
pub const UCLAMP_MAX: usize = 1;
/// `UCLAMP_BUCKETS` (`CONFIG_UCLAMP_BUCKETS_COUNT`, default 5).
pub const UCLAMP_BUCKETS: usize = 5;
/// `UCLAMP_BUCKET_DELTA`: `DIV_ROUND_CLOSEST(SCHED_CAPACITY_SCALE, UCLAMP_BUCKETS)` = 205.
pub const UCLAMP_BUCKET_DELTA: u32 = (1024 + UCLAMP_BUCKETS as u32 / 2) / UCLAMP_BUCKETS as u32;

/// `uclamp_bucket_id()` (v6.8's form with the `min()`; v5.6's `clamp_value / DELTA` gives the
/// same for every value up to 1024).
pub fn uclamp_bucket_id(value: u32) -> u8 {
    (value / UCLAMP_BUCKET_DELTA).min(UCLAMP_BUCKETS as u32 - 1) as u8
}

/// `uclamp_none()`: 0 for UCLAMP_MIN, 1024 for UCLAMP_MAX.
pub fn uclamp_none(clamp_id: usize) -> u32 {
    if clamp_id == UCLAMP_MIN {
        0
    } else {
        1024
    }
}

/// `struct uclamp_se`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UclampSe {
    pub value: u32,
    pub bucket_id: u8,
    /// Refcounted in a bucket of the task's rq.
    pub active: bool,
    pub user_defined: bool,
}

impl UclampSe {
    /// `uclamp_se_set()`.
    pub fn new(value: u32, user_defined: bool) -> UclampSe {
        UclampSe {
            value,
            bucket_id: uclamp_bucket_id(value),
            active: false,
            user_defined,
        }
    }
}

/// A task's clamps: `p->uclamp_req[]` (what was asked for) and `p->uclamp[]` (the effective
/// value while refcounted).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskUclamp {
    pub req: [UclampSe; 2],
    pub eff: [UclampSe; 2],
}

impl Default for TaskUclamp {
    /// `init_task`'s / a default fork's requests: `uclamp_none()`.
    fn default() -> TaskUclamp {
        let none = [
            UclampSe::new(uclamp_none(UCLAMP_MIN), false),
            UclampSe::new(uclamp_none(UCLAMP_MAX), false),
        ];
        TaskUclamp {
            req: none,
            eff: none,
        }
    }
}

/// `struct uclamp_bucket`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UclampBucket {
    pub value: u32,
    pub tasks: u32,
}

/// `rq->uclamp[]` and `rq->uclamp_flags`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UclampRq {
    pub value: [u32; 2],
    pub bucket: [[UclampBucket; UCLAMP_BUCKETS]; 2],
    /// UCLAMP_FLAG_IDLE: no task refcounted; UCLAMP_MAX holds the last one's value.
    pub idle: bool,
}

impl Default for UclampRq {
    /// `init_uclamp_rq()` (v6.8): `uclamp_none()` values, UCLAMP_FLAG_IDLE.
    fn default() -> UclampRq {
        UclampRq {
            value: [uclamp_none(UCLAMP_MIN), uclamp_none(UCLAMP_MAX)],
            bucket: [[UclampBucket::default(); UCLAMP_BUCKETS]; 2],
            idle: true,
        }
    }
}

impl UclampRq {
    /// The number of tasks refcounted for `clamp_id` (for the invariant checker).
    pub fn tasks(&self, clamp_id: usize) -> u32 {
        self.bucket[clamp_id].iter().map(|b| b.tasks).sum()
    }
}

/// `clamp(val, lo, hi)` as the kernel's macro: `min(max(val, lo), hi)`.
fn clamp(v: u64, lo: u64, hi: u64) -> u64 {
    v.max(lo).min(hi)
}

impl World {
    /// `uclamp_eff_get()`: the task's request, limited by the system default
    /// (`uclamp_default[]` = `sysctl_sched_uclamp_util_min/max`).
    fn uclamp_eff_get(&self, p: TaskId, clamp_id: usize) -> UclampSe {
        let req = self.tasks[p].uclamp.req[clamp_id];
        let max = if clamp_id == UCLAMP_MIN {
            self.config.sched_util_clamp_min
        } else {
            self.config.sched_util_clamp_max
        };
        if req.value > max {
            UclampSe::new(max, false)
        } else {
            req
        }
    }

    /// `uclamp_eff_value()`: the back-annotated value while the task is refcounted, else
    /// `uclamp_eff_get()`'s; `uclamp_none()` without uclamp.
    pub fn uclamp_eff_value(&self, p: TaskId, clamp_id: usize) -> u64 {
        if !self.config.uclamp {
            return uclamp_none(clamp_id) as u64;
        }
        let eff = self.tasks[p].uclamp.eff[clamp_id];
        if eff.active {
            return eff.value as u64;
        }
        self.uclamp_eff_get(p, clamp_id).value as u64
    }

    /// `uclamp_rq_get()`.
    pub fn uclamp_rq_get(&self, cpu: usize, clamp_id: usize) -> u64 {
        self.rqs[cpu].uclamp.value[clamp_id] as u64
    }

    /// `uclamp_rq_is_idle()`: UCLAMP_FLAG_IDLE.
    pub fn uclamp_rq_is_idle(&self, cpu: usize) -> bool {
        self.rqs[cpu].uclamp.idle
    }

    /// `uclamp_rq_inc()` (core.c `enqueue_task()`, before the class's enqueue): refcount `p`'s
    /// effective clamps on `cpu`'s rq, then clear UCLAMP_FLAG_IDLE.
    pub(crate) fn uclamp_rq_inc(&mut self, cpu: usize, p: TaskId) {
        for clamp_id in [UCLAMP_MIN, UCLAMP_MAX] {
            self.uclamp_rq_inc_id(cpu, p, clamp_id);
        }
        self.rqs[cpu].uclamp.idle = false;
    }

    /// `uclamp_rq_inc_id()`: update the task's effective clamp, count it in its bucket (local
    /// max aggregation), reset an idle rq's retained value (`uclamp_idle_reset()`), and raise
    /// the rq's value.
    fn uclamp_rq_inc_id(&mut self, cpu: usize, p: TaskId, clamp_id: usize) {
        let mut se = self.uclamp_eff_get(p, clamp_id);
        se.active = true;
        self.tasks[p].uclamp.eff[clamp_id] = se;
        let uc = &mut self.rqs[cpu].uclamp;
        let bucket = &mut uc.bucket[clamp_id][se.bucket_id as usize];
        bucket.tasks += 1;
        if uc.idle {
            uc.value[clamp_id] = se.value;
        }
        if bucket.tasks == 1 || se.value > bucket.value {
            bucket.value = se.value;
        }
        if se.value > uc.value[clamp_id] {
            uc.value[clamp_id] = se.value;
        }
    }

    /// `uclamp_rq_dec()` (core.c `dequeue_task()`, before the class's dequeue).
    pub(crate) fn uclamp_rq_dec(&mut self, cpu: usize, p: TaskId) {
        for clamp_id in [UCLAMP_MIN, UCLAMP_MAX] {
            self.uclamp_rq_dec_id(cpu, p, clamp_id);
        }
    }

    /// `uclamp_rq_dec_id()`: release the task's bucket; when it empties and held the rq's value,
    /// the rq's value becomes the top non-empty bucket's (`uclamp_rq_max_value()`), or with no
    /// task left `uclamp_idle_value()`: 0 for UCLAMP_MIN, the leaving task's value for
    /// UCLAMP_MAX with UCLAMP_FLAG_IDLE set.
    fn uclamp_rq_dec_id(&mut self, cpu: usize, p: TaskId, clamp_id: usize) {
        let se = self.tasks[p].uclamp.eff[clamp_id];
        // v5.9+: a task enqueued before the static key was enabled is not refcounted.
        if !se.active {
            return;
        }
        self.tasks[p].uclamp.eff[clamp_id].active = false;
        let uc = &mut self.rqs[cpu].uclamp;
        let bucket = &mut uc.bucket[clamp_id][se.bucket_id as usize];
        bucket.tasks = bucket.tasks.saturating_sub(1);
        if bucket.tasks > 0 {
            return;
        }
        if bucket.value >= uc.value[clamp_id] {
            let top = uc.bucket[clamp_id].iter().rev().find(|b| b.tasks > 0);
            uc.value[clamp_id] = match top {
                Some(b) => b.value,
                None if clamp_id == UCLAMP_MAX => {
                    uc.idle = true;
                    se.value
                }
                None => uclamp_none(UCLAMP_MIN),
            };
        }
    }

    /// `uclamp_rq_util_with(rq, util, p)` (sched.h, v5.3+; `uclamp_util_with()` in v5.3): `util`
    /// clamped to the rq's max-aggregated clamps, max-aggregated with `p`'s; with
    /// `uclamp_rq_idle_ignore` (v5.13+) `p`'s alone on an idle rq. An inversion (min >= max)
    /// returns min. `util` unchanged without uclamp.
    pub fn uclamp_rq_util_with(&self, cpu: usize, util: u64, p: Option<TaskId>) -> u64 {
        if !self.config.uclamp {
            return util;
        }
        let (mut min, mut max) = (0, 0);
        if let Some(p) = p {
            min = self.uclamp_eff_value(p, UCLAMP_MIN);
            max = self.uclamp_eff_value(p, UCLAMP_MAX);
        }
        if p.is_none() || !(self.config.uclamp_rq_idle_ignore && self.uclamp_rq_is_idle(cpu)) {
            min = min.max(self.uclamp_rq_get(cpu, UCLAMP_MIN));
            max = max.max(self.uclamp_rq_get(cpu, UCLAMP_MAX));
        }
        if min >= max {
            return min;
        }
        clamp(util, min, max)
    }

    /// v6.8 `effective_cpu_util(cpu, util, &min, &max)`'s hints as `sugov_get_util()` and
    /// `eenv_pd_max_util()` read them: `min = uclamp_rq_get(UCLAMP_MIN)` (no DL or IRQ in the
    /// model), `max = min(arch_scale_cpu_capacity, uclamp_rq_get(UCLAMP_MAX))`; with `p` (the
    /// waking task costed on this CPU) raised by its own clamps, its max replacing an idle rq's
    /// retained one. (0, capacity) without uclamp.
    pub fn uclamp_sugov_bounds(&self, cpu: usize, p: Option<TaskId>) -> (u64, u64) {
        let scale = self.arch_scale_cpu_capacity(cpu);
        if !self.config.uclamp {
            return (0, scale);
        }
        let mut min = self.uclamp_rq_get(cpu, UCLAMP_MIN);
        let mut max = scale.min(self.uclamp_rq_get(cpu, UCLAMP_MAX));
        if let Some(p) = p {
            min = min.max(self.uclamp_eff_value(p, UCLAMP_MIN));
            let p_max = self.uclamp_eff_value(p, UCLAMP_MAX);
            max = if self.uclamp_rq_is_idle(cpu) {
                p_max
            } else {
                max.max(p_max)
            };
        }
        (min, max)
    }

    /// `uclamp_rq_is_capped()` (v5.17+): the rq's UCLAMP_MAX is below 1024 and its CFS
    /// utilization has reached it.
    pub fn uclamp_rq_is_capped(&self, cpu: usize) -> bool {
        if !self.config.uclamp {
            return false;
        }
        let max = self.uclamp_rq_get(cpu, UCLAMP_MAX);
        max != 1024 && self.cpu_util(cpu) >= max
    }

    /// `uclamp_task_util()` (v5.6-v6.1): `clamp(task_util_est(p), uclamp_min, uclamp_max)`.
    pub fn uclamp_task_util(&self, p: TaskId) -> u64 {
        clamp(
            self.task_util_est(p),
            self.uclamp_eff_value(p, UCLAMP_MIN),
            self.uclamp_eff_value(p, UCLAMP_MAX),
        )
    }

    /// `util_fits_cpu(util, uclamp_min, uclamp_max, cpu)` (v6.2+): 1 if `util` fits
    /// `capacity_of()` (`fits_capacity()`) or the cap `uclamp_max` fits the CPU's original
    /// capacity (a 1024 max on a 1024 CPU does not count); -1 if it fits but a boost above
    /// `util` (`min(uclamp_min, uclamp_max)`) exceeds the original capacity (thermal pressure is
    /// not modelled); else 0. Without uclamp, `fits_capacity()` alone.
    pub fn util_fits_cpu(&self, util: u64, uclamp_min: u64, uclamp_max: u64, cpu: usize) -> i32 {
        let mut fits = super::wakeup::fits_capacity(util, self.capacity_of(cpu));
        if !self.config.uclamp {
            return fits as i32;
        }
        let capacity_orig = self.arch_scale_cpu_capacity(cpu);
        let capacity_orig_thermal = capacity_orig;
        let both_full = capacity_orig == 1024 && uclamp_max == 1024;
        let uclamp_max_fits = !both_full && uclamp_max <= capacity_orig;
        fits = fits || uclamp_max_fits;
        let uclamp_min = uclamp_min.min(uclamp_max);
        if fits && util < uclamp_min && uclamp_min > capacity_orig_thermal {
            return -1;
        }
        fits as i32
    }

    /// `util_fits_cpu()` of `p` on `cpu` with its own hints (the `fits` of
    /// `select_idle_capacity()`); `fits_capacity()` of the era's utilization before v6.2.
    pub fn task_util_fits_cpu(&self, p: TaskId, cpu: usize) -> i32 {
        if self.config.uclamp && self.config.util_fits == UtilFits::UtilFitsCpu {
            let min = self.uclamp_eff_value(p, UCLAMP_MIN);
            let max = self.uclamp_eff_value(p, UCLAMP_MAX);
            return self.util_fits_cpu(self.task_util_est(p), min, max, cpu);
        }
        self.task_fits_capacity(p, self.capacity_of(cpu)) as i32
    }

    /// `task_fits_cpu()` (v6.2+: `util_fits_cpu(...) > 0`) / `task_fits_capacity(p,
    /// capacity_of(cpu))` (before), as [`UtilFits`] says.
    pub fn task_fits_cpu(&self, p: TaskId, cpu: usize) -> bool {
        self.task_util_fits_cpu(p, cpu) > 0
    }

    /// `task_fits_capacity(p, capacity)` (v4.20-v6.1): `fits_capacity()` of the task's
    /// utilization, `uclamp_task_util()` from v5.6 (also what `wake_cap()`'s capacity test
    /// reads, whatever the era's `util_fits`: wake_cap() was gone before v6.2).
    pub fn task_fits_capacity(&self, p: TaskId, capacity: u64) -> bool {
        let util = if self.config.uclamp && self.config.util_fits != UtilFits::Util {
            self.uclamp_task_util(p)
        } else {
            self.task_util_est(p)
        };
        super::wakeup::fits_capacity(util, capacity)
    }

    /// `sched_setattr()` of `p` with SCHED_FLAG_KEEP_ALL and SCHED_FLAG_UTIL_CLAMP_MIN/MAX for
    /// the given values (rt-app's `_set_thread_uclamp()`): `uclamp_validate()` (each at most
    /// 1024, min <= max with the request kept for an absent one; else -EINVAL and nothing
    /// changes; -EOPNOTSUPP without uclamp), then `__sched_setscheduler()`: a queued task is
    /// dequeued and enqueued again around `__setscheduler_uclamp()` (DEQUEUE_SAVE /
    /// ENQUEUE_RESTORE), which re-refcounts its clamps on its rq; only the uclamp half of that
    /// round trip is modelled (the fair class's dequeue/enqueue with SAVE/RESTORE leave its
    /// place and signals as they were). Returns whether the call succeeded.
    pub fn sched_setattr_uclamp(&mut self, p: TaskId, min: Option<u32>, max: Option<u32>) -> bool {
        if !self.config.uclamp {
            return false;
        }
        let req = self.tasks[p].uclamp.req;
        let lo = min.unwrap_or(req[UCLAMP_MIN].value);
        let hi = max.unwrap_or(req[UCLAMP_MAX].value);
        if lo > hi || hi > 1024 {
            return false;
        }
        let cpu = self.tasks[p].cpu;
        let queued = self.tasks[p].state == TaskState::Runnable;
        if queued {
            self.uclamp_rq_dec(cpu, p);
        }
        if let Some(v) = min {
            self.tasks[p].uclamp.req[UCLAMP_MIN] = UclampSe::new(v, true);
        }
        if let Some(v) = max {
            self.tasks[p].uclamp.req[UCLAMP_MAX] = UclampSe::new(v, true);
        }
        if queued {
            self.uclamp_rq_inc(cpu, p);
        }
        true
    }
}
