//! schedutil's iowait boost (kernel/sched/cpufreq_schedutil.c), per CPU: what a wake-up after an
//! I/O wait (`SCHED_CPUFREQ_IOWAIT`, from `enqueue_task_fair()` when `p->in_iowait`) does to the
//! frequency the CPU's policy asks for. The rule of each era is [`IowaitBoost`]; the state is the
//! kernel's `struct sugov_cpu` fields `iowait_boost`, `iowait_boost_pending` and `last_update`.

use crate::kernel::IowaitBoost;
use crate::sched::World;
use crate::units::{Nanos, SCHED_CAPACITY_SCALE};

/// `SCHED_CPUFREQ_IOWAIT`: the update comes from a task's wake-up after an I/O wait.
pub const SCHED_CPUFREQ_IOWAIT: u32 = 1 << 0;

/// `IOWAIT_BOOST_MIN` (v5.2+): `SCHED_CAPACITY_SCALE / 8`.
pub const IOWAIT_BOOST_MIN: u64 = SCHED_CAPACITY_SCALE / 8;

/// schedutil's per-CPU state (`struct sugov_cpu`), apart from the busy hold's saved idle calls,
/// which live in the CPU's policy.
#[derive(Clone, Copy, Debug, Default)]
pub struct SugovCpu {
    /// `sg_cpu->last_update`: the time of this CPU's last schedutil update (any flags).
    pub last_update: Nanos,
    /// `sg_cpu->iowait_boost`: in utilization (v5.2+) or kHz (before), 0 when off.
    pub iowait_boost: u64,
    /// `sg_cpu->iowait_boost_pending`: an IOWAIT request not yet used.
    pub iowait_boost_pending: bool,
    /// The boost this evaluation applies (set by [`World::sugov_iowait_apply`]), 0 for none.
    pub boost_used: u64,
}

impl World {
    /// The boost's floor and ceiling in the era's unit: (`IOWAIT_BOOST_MIN`, 1024) in
    /// utilization, (`policy->min`, `cpuinfo.max_freq`) in kHz before v5.2.
    fn iowait_bounds(&self, cpu: usize) -> (u64, u64) {
        let dom = &self.topo.freq_domains[self.topo.cpus[cpu].freq_domain];
        match self.config.schedutil_iowait_boost {
            IowaitBoost::DoublingUtil => (IOWAIT_BOOST_MIN, SCHED_CAPACITY_SCALE),
            _ => (dom.min_khz() as u64, dom.peak_khz() as u64),
        }
    }

    /// `sugov_iowait_reset()` (v4.18+): after more than a tick without an update the boost
    /// restarts at the floor for an IOWAIT update, else ends.
    fn sugov_iowait_reset(&mut self, cpu: usize, set: bool) -> bool {
        let tick = self.tick_ns;
        let (min, _) = self.iowait_bounds(cpu);
        let sg = &mut self.sg_cpu[cpu];
        if self.now.saturating_sub(sg.last_update) <= tick {
            return false;
        }
        sg.iowait_boost = if set { min } else { 0 };
        sg.iowait_boost_pending = set;
        true
    }

    /// `sugov_iowait_boost()` (v4.18+) / `sugov_set_iowait_boost()` (v4.9-v4.17): the update of
    /// `cpu` with `flags`, before `sg_cpu->last_update` is set to now.
    pub(crate) fn sugov_iowait_boost(&mut self, cpu: usize, flags: u32) {
        let set = flags & SCHED_CPUFREQ_IOWAIT != 0;
        let tick = self.tick_ns;
        let (min, max) = self.iowait_bounds(cpu);
        let idle_for = self.now.saturating_sub(self.sg_cpu[cpu].last_update);
        match self.config.schedutil_iowait_boost {
            IowaitBoost::MaxFreq => {
                let sg = &mut self.sg_cpu[cpu];
                if set {
                    sg.iowait_boost = max;
                } else if sg.iowait_boost != 0 && idle_for > tick {
                    // "Clear iowait_boost if the CPU apprears to have been idle."
                    sg.iowait_boost = 0;
                }
            }
            IowaitBoost::DoublingFreq => {
                let sg = &mut self.sg_cpu[cpu];
                if set {
                    if sg.iowait_boost_pending {
                        return;
                    }
                    sg.iowait_boost_pending = true;
                    sg.iowait_boost = if sg.iowait_boost != 0 {
                        (sg.iowait_boost << 1).min(max)
                    } else {
                        min
                    };
                } else if sg.iowait_boost != 0 && idle_for > tick {
                    sg.iowait_boost = 0;
                    sg.iowait_boost_pending = false;
                }
            }
            IowaitBoost::DoublingFreqReset | IowaitBoost::DoublingUtil => {
                if self.sg_cpu[cpu].iowait_boost != 0 && self.sugov_iowait_reset(cpu, set) {
                    return;
                }
                let sg = &mut self.sg_cpu[cpu];
                // Boost only tasks waking up after IO, doubling once per request.
                if !set || sg.iowait_boost_pending {
                    return;
                }
                sg.iowait_boost_pending = true;
                sg.iowait_boost = if sg.iowait_boost != 0 {
                    (sg.iowait_boost << 1).min(max)
                } else {
                    min
                };
            }
        }
    }

    /// The state half of `sugov_iowait_apply()` (v4.18+) / `sugov_iowait_boost()` (v4.9-v4.17)
    /// for CPU `j` of a policy being evaluated now: decay or end the boost, and leave in
    /// `boost_used` the value this evaluation applies (see [`World::iowait_boosted`]).
    pub(crate) fn sugov_iowait_apply(&mut self, j: usize) {
        self.sg_cpu[j].boost_used = 0;
        if self.sg_cpu[j].iowait_boost == 0 {
            return;
        }
        match self.config.schedutil_iowait_boost {
            IowaitBoost::MaxFreq => {
                // Used, then halved.
                let sg = &mut self.sg_cpu[j];
                sg.boost_used = sg.iowait_boost;
                sg.iowait_boost >>= 1;
                return;
            }
            IowaitBoost::DoublingFreq => {}
            IowaitBoost::DoublingFreqReset | IowaitBoost::DoublingUtil => {
                if self.sugov_iowait_reset(j, false) {
                    return;
                }
            }
        }
        let (min, _) = self.iowait_bounds(j);
        let sg = &mut self.sg_cpu[j];
        if !sg.iowait_boost_pending {
            // No boost pending: reduce the boost value.
            sg.iowait_boost >>= 1;
            if sg.iowait_boost < min {
                sg.iowait_boost = 0;
                return;
            }
        }
        sg.iowait_boost_pending = false;
        sg.boost_used = sg.iowait_boost;
    }

    /// The comparison half of the boost: `(util, max)` of CPU `j` after its boost, and whether the
    /// boost won. v5.2+: `max(util, boost * max >> SCHED_CAPACITY_SHIFT)`; before: the pair
    /// (boost, `cpuinfo.max_freq`) replaces (util, max) when `util * boost_max < max * boost`.
    pub(crate) fn iowait_boosted(&self, j: usize, util: u64, max: u64) -> (u64, u64, bool) {
        let boost = self.sg_cpu[j].boost_used;
        if boost == 0 {
            return (util, max, false);
        }
        match self.config.schedutil_iowait_boost {
            IowaitBoost::DoublingUtil => {
                let mut b = (boost * max) >> 10;
                // v5.17-v6.7 sugov_iowait_apply(): uclamp_rq_util_with(rq, boost, NULL) (v6.8
                // caps the sum in sugov_effective_cpu_perf() instead).
                if self.config.uclamp_max_sugov && !self.config.schedutil_util_headroom {
                    b = self.uclamp_rq_util_with(j, b, None);
                }
                if b > util {
                    (b, max, true)
                } else {
                    (util, max, false)
                }
            }
            _ => {
                let (_, boost_max) = self.iowait_bounds(j);
                if util * boost_max < max * boost {
                    (boost, boost_max, true)
                } else {
                    (util, max, false)
                }
            }
        }
    }
}
