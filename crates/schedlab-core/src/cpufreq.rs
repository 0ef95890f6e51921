//! cpufreq: the governor in the kernel config drives each cpufreq policy; the hardware runs each
//! clock domain at the highest request of the policies on it.
//!
//! Policies and clocks are apart (topology: `cpufreq_policy` and `freq_domain`). On arm presets
//! a policy is its clock (a cluster: `sugov_next_freq_shared()`). intel_cpufreq (intel_pstate
//! passive) registers one policy per logical CPU (`intel_cpufreq_cpu_init()`, with `policy->cur`
//! at the minimum), so schedutil runs `sugov_update_single()` per hyperthread with its own rate
//! limit and busy hold, and the core's clock runs at the higher of its two threads' requests,
//! capped by the turbo bin of the package's active cores (fidelity review F2).
//!
//! - performance / powersave: the highest allowed / the lowest OPP.
//! - schedutil (kernel/sched/cpufreq_schedutil.c): on each utilization update (enqueue, dequeue,
//!   tick; with `SCHED_CPUFREQ_IOWAIT` on the wake-up of a task that slept on I/O) of a CPU:
//!   the CPU's iowait boost state ([`iowait`], the rule of each era), then, if `rate_limit_us`
//!   has passed since the policy's last change (v4.16+; since its last evaluation in v4.9,
//!   `schedutil_rate_limit_on_change`), take the CPU of the policy with the highest util/max
//!   (each raised by its iowait boost), and ask for `get_next_freq()` = 1.25 x reference x
//!   util/max, where reference is the policy's max frequency with frequency invariance and its
//!   current frequency without; `cpufreq_driver_resolve_freq()` picks the lowest OPP at or above
//!   it (CPUFREQ_RELATION_L). v6.8 moves the 1.25 onto the utilization (capped at the capacity)
//!   and, without invariance, onto `policy->cur` as well (`schedutil_util_headroom`).
//!
//!   With `schedutil_busy_hold`, a single-CPU policy whose CPU has not been idle since the last
//!   update never lowers its frequency (`sugov_cpu_is_busy()`, v4.12+).
//! - hwp (intel_pstate active, powersave + HWP): the hardware, not the kernel, picks the frequency
//!   of each core, ramping with the core's own activity, with the driver's HWP dynamic boost on
//!   IOWAIT wake-ups: see [`crate::hwp`]. The choice is the core's, so every thread's policy
//!   shows it and the core clock (the highest request of its policies) runs at it.
//!
//! Frequency invariance (`arch_scale_freq_capacity()`): cur/max in 1/1024, where max is the
//! policy's highest frequency (arm64 cpufreq, `topology_set_freq_scale()`) or, on x86 since v5.7,
//! the turbo frequency of the first bin covering at least `min_active_cores` active cores (4 on
//! SKYLAKE_X, `skx_set_max_freq_ratio()`), with the result clamped to 1024. On x86
//! (`freq_scale_tick`) "cur" is the average busy frequency over the CPU's last tick, sampled at
//! the tick and stale while the CPU idles ([`freq_tick`], F17); on arm it follows each change.
//!
//! Turbo: above the highest OPP, the hardware grants at most the turbo bin for the package's number
//! of active cores. A policy keeps the governor's request (`req_khz`, which is `policy->cur` for
//! the kernel) apart from what its clock delivers (`clocks[fd].cur_khz` = min(highest request,
//! turbo bin)); when the number of active cores changes, only the cap is re-applied
//! ([`World::apply_turbo_cap`]): no governor runs on behalf of another CPU.
//!
//! When the run is traced, every request that changed, every one the rate limit or the busy hold
//! held back, and every turbo re-cap is a [`Decision::Freq`] in the decision log.
//!
//! uclamp (v5.3+): each CPU's utilization is clamped by its rq's max-aggregated clamps as each
//! era does it ([`World::sugov_policy_util`], [`crate::sched::uclamp`]).
//!
//! Simplifications: frequency changes take effect at once (no transition latency); no
//! v4.9-v4.17 skip of CPUs idle for a tick in `sugov_next_freq_shared()`.
//!
//! The rate limit of each policy is `sugov_init()`'s, from the cluster's driver figures and the
//! era's rule ([`driver`]), unless the scenario writes the sysfs `rate_limit_us`.

mod driver;
mod freq_tick;
mod iowait;
#[cfg(test)]
mod tests_policy;
#[cfg(test)]
mod tests_rate_limit;

pub use driver::{rate_limits_text, CpufreqDriverSpec, CPUFREQ_ETERNAL, LATENCY_MULTIPLIER};
pub use freq_tick::FreqTick;
pub use iowait::{SugovCpu, IOWAIT_BOOST_MIN, SCHED_CPUFREQ_IOWAIT};

use crate::hwp::HwpReason;
use crate::kernel::{FreqInvarianceMax, Governor};
use crate::sched::log::{Decision, FreqDecision, FreqWhy};
use crate::sched::{Policy, World};

impl World {
    /// The frequency `arch_scale_freq_capacity()` divides by.
    pub fn freq_invariance_max_khz(&self, fd: usize) -> u64 {
        let dom = &self.topo.freq_domains[fd];
        match self.config.freq_invariance_max {
            FreqInvarianceMax::PolicyMax => dom.peak_khz() as u64,
            FreqInvarianceMax::TurboGroup { min_active_cores } => {
                dom.turbo_bins
                    .iter()
                    .find(|b| b.max_active_cores >= min_active_cores)
                    .map_or(dom.peak_khz(), |b| b.mhz * 1000) as u64
            }
        }
    }

    /// The highest frequency a domain may run at right now.
    pub fn hw_max_khz(&self, fd: usize) -> u32 {
        let dom = &self.topo.freq_domains[fd];
        if dom.turbo_bins.is_empty() {
            return dom.reference_khz();
        }
        dom.max_khz(self.active_cores[dom.package].max(1))
    }

    /// `cpufreq_driver_resolve_freq()` with CPUFREQ_RELATION_L: the lowest OPP at or above
    /// `target`, else the highest. Above the highest non-turbo OPP of a machine with turbo bins
    /// (x86: intel_pstate, `intel_cpufreq_target()` rounding up to a P-state ratio of
    /// `pstate.scaling` = 100 MHz), every 100 MHz step up to the single-core turbo frequency may
    /// be asked for (fidelity review F4). The kernel does not know the turbo bin the hardware will
    /// grant; the cap applies to what the CPU delivers, not to the request.
    fn resolve_freq(&self, fd: usize, target: u64) -> u32 {
        let dom = &self.topo.freq_domains[fd];
        // The OPPs and the ratios above them (reference/step + 1 ..= peak/step, none when peak
        // == reference, without turbo bins), sorted and free of repeats (`FreqDomain::new`): the
        // lowest entry at or above target is the first one.
        dom.pstates().at_or_above(target, dom.peak_khz())
    }

    /// Re-evaluates `cpu`'s policy (`cpufreq_update_util(rq, flags)`) and applies the result.
    /// Returns the clock domain if the policy's request changed.
    pub fn cpufreq_update(&mut self, cpu: usize, flags: u32) -> Option<usize> {
        let khz = self.cpufreq_target(cpu, flags)?;
        let p = self.topo.cpus[cpu].policy;
        self.set_frequency(p, khz);
        Some(self.topo.policies[p].clock)
    }

    /// What the clock `fd` delivers with its policies' current requests: the highest of them
    /// (Intel: a core runs at the higher request of its hyperthreads), capped by the hardware.
    pub fn clock_target_khz(&self, fd: usize) -> u32 {
        let dom = &self.topo.freq_domains[fd];
        let req = dom
            .policies
            .iter()
            .map(|&p| self.policies[p].req_khz)
            .max()
            .unwrap_or(dom.reference_khz());
        req.min(self.hw_max_khz(fd))
    }

    /// Sets a policy's request; its clock runs at the highest request of its policies, capped by
    /// the hardware.
    pub fn set_frequency(&mut self, policy: usize, khz: u32) {
        let fd = self.topo.policies[policy].clock;
        self.policies[policy].req_khz = khz;
        self.clock_changing(fd);
        self.set_clock_khz(fd, self.clock_target_khz(fd));
        self.counters.freq_changes += 1;
        if let Some(mut d) = self.freq_pending.take() {
            d.granted_khz = self.clocks[fd].cur_khz;
            self.log_freq(d);
        }
    }

    /// The clock `fd`'s frequency is about to change: its CPUs' APERF/MPERF stand-ins are
    /// advanced at the old one.
    fn clock_changing(&mut self, fd: usize) {
        for k in self.topo.freq_domain_cpus.range(fd) {
            self.freq_tick_account(self.topo.freq_domain_cpus.at(k));
        }
    }

    /// The frequency the hardware delivers to `fd` with its current requests, if that differs
    /// from what it runs at (the package's number of active cores changed its turbo bin).
    pub fn turbo_capped_khz(&self, fd: usize) -> Option<u32> {
        let khz = self.clock_target_khz(fd);
        (khz != self.clocks[fd].cur_khz).then_some(khz)
    }

    /// Applies [`World::turbo_capped_khz`]: the requests stay, the delivered frequency follows the
    /// cap.
    pub fn apply_turbo_cap(&mut self, fd: usize, khz: u32) {
        self.clock_changing(fd);
        self.set_clock_khz(fd, khz);
        self.counters.freq_changes += 1;
        if self.log.is_some() {
            let dom = &self.topo.freq_domains[fd];
            let policy = dom.policies.first().copied().unwrap_or(0);
            let req_khz = dom
                .policies
                .iter()
                .map(|&p| self.policies[p].req_khz)
                .max()
                .unwrap_or(khz);
            let d = FreqDecision {
                t: self.now,
                policy,
                cpu: dom.cpus.first().unwrap_or(0),
                util: 0,
                max: 0,
                ref_khz: 0,
                req_khz,
                granted_khz: khz,
                why: FreqWhy::TurboCap,
            };
            self.log_freq(d);
        }
    }

    fn log_freq(&mut self, d: FreqDecision) {
        if let Some(log) = &mut self.log {
            log.push(Decision::Freq(d));
        }
    }

    /// `sugov_get_util()`: the cfs_rq's utilization (with util_est where the era has it) clamped to
    /// `arch_scale_cpu_capacity(NULL, cpu)`, the `max` it is compared with. Not `cpu_util()`'s
    /// `capacity_orig_of()` clamp: the two differ on SMT threads before v5.0 (smt_gain), where v4.9
    /// takes `min(rq->cfs.avg.util_avg, cfs_max)` with `cfs_max` 1024.
    fn sugov_get_util(&self, cpu: usize) -> u64 {
        let rq = &self.rqs[cpu];
        let util = if self.config.util_est {
            rq.avg.util_avg.max(rq.util_est_enqueued)
        } else {
            rq.avg.util_avg
        };
        util.min(self.arch_scale_cpu_capacity(cpu))
    }

    /// The (util, max) a policy's request comes from: its CPU with the highest util/max
    /// (`sugov_next_freq_shared()`; a single CPU's for `sugov_update_single()`), each CPU's util
    /// clamped by its rq's uclamp values and raised by its iowait boost where `boost` (the boost
    /// state must have been applied, [`World::sugov_iowait_apply`]), with v6.8's headroom on
    /// it; and why: [`FreqWhy::IowaitBoost`] if a boost decided it, [`FreqWhy::Uclamp`] if the
    /// clamps moved it.
    ///
    /// uclamp per era: v5.3-v6.7 `schedutil_cpu_util()` / `effective_cpu_util()` take
    /// `min(max, uclamp_rq_util_with(rq, util, NULL))` before the boost, which escapes the clamps
    /// until v5.17 (`uclamp_max_sugov`: clamped the same way, in [`World::iowait_boosted`]);
    /// v6.8 `sugov_effective_cpu_perf()`: `max(min, min(util * 1.25, max))` with
    /// `util = max(util, boost)` and the hints of [`World::uclamp_sugov_bounds`], so no headroom
    /// is added on top of a clamp.
    ///
    /// `shared` and `cpu` are the policy's ([`Policy::shared`], [`Policy::cpu`]): the caller
    /// has read them already.
    fn sugov_policy_util(
        &self,
        p: usize,
        shared: bool,
        cpu: usize,
        boost: bool,
    ) -> (u64, u64, FreqWhy) {
        // Nothing busy: (0, 1) and Util, whatever the CPUs' capacities (the decision log shows
        // max 1 for an idle policy).
        let (mut util, mut max, mut why) = (0u64, 1u64, FreqWhy::Util);
        if !shared {
            // sugov_update_single(): the one CPU's figures.
            let (j_util, j_max, j_why) = self.sugov_cpu_util(cpu, boost);
            return if j_util > 0 {
                (j_util, j_max, j_why)
            } else {
                (util, max, why)
            };
        }
        for j in self.topo.policies[p].cpus.iter() {
            let (j_util, j_max, j_why) = self.sugov_cpu_util(j, boost);
            if j_util * max > j_max * util {
                util = j_util;
                max = j_max;
                why = j_why;
            }
        }
        (util, max, why)
    }

    /// One CPU's (util, max, why) for [`World::sugov_policy_util`].
    fn sugov_cpu_util(&self, j: usize, boost: bool) -> (u64, u64, FreqWhy) {
        let headroom = self.config.schedutil_util_headroom;
        let j_max = self.arch_scale_cpu_capacity(j);
        let raw = self.sugov_get_util(j);
        let mut j_util = raw;
        if !headroom {
            j_util = self.uclamp_rq_util_with(j, j_util, None).min(j_max);
        }
        let mut j_why = if j_util != raw {
            FreqWhy::Uclamp
        } else {
            FreqWhy::Util
        };
        let mut j_max = j_max;
        if boost {
            let boosted;
            (j_util, j_max, boosted) = self.iowait_boosted(j, j_util, j_max);
            if boosted {
                j_why = FreqWhy::IowaitBoost;
            }
        }
        if headroom {
            // v6.8 sugov_effective_cpu_perf(): map_util_perf(), capped at max, at least min.
            let (lo, hi) = self.uclamp_sugov_bounds(j, None);
            let perf = (j_util + (j_util >> 2)).min(j_max);
            let clamped = perf.min(hi).max(lo);
            if clamped != perf {
                j_why = FreqWhy::Uclamp;
            }
            j_util = clamped;
        }
        (j_util, j_max, j_why)
    }

    /// `get_next_freq()` (v6.8: with `get_capacity_ref_freq()`) resolved to a P-state / OPP:
    /// (reference kHz, frequency). `cur_khz` is the policy's last request ([`Policy::req_khz`],
    /// `policy->cur`).
    fn sugov_next_freq(&self, fd: usize, cur_khz: u32, util: u64, max: u64) -> (u64, u32) {
        let dom = &self.topo.freq_domains[fd];
        let reference = if self.config.frequency_invariance {
            dom.peak_khz()
        } else {
            cur_khz
        } as u64;
        let next = if self.config.schedutil_util_headroom {
            // v6.8 get_capacity_ref_freq(): the max frequency when invariant, else
            // policy->cur + 25%; map_util_freq() = freq * util / max.
            let ref_freq = if self.config.frequency_invariance {
                reference
            } else {
                reference + (reference >> 2)
            };
            ref_freq * util / max
        } else {
            // v4.9-v6.7 get_next_freq(): (freq + freq/4) * util / max.
            (reference + (reference >> 2)) * util / max
        };
        (reference, self.resolve_freq(fd, next))
    }

    /// schedutil's `sugov_update_single()` / `sugov_update_shared()` for an update of `cpu` with
    /// `flags`: the iowait boost state, `sg_cpu->last_update`, the rate limit, the busy hold of a
    /// single-CPU policy, the request. Returns the new request if it differs from the last.
    fn sugov_update(&mut self, cpu: usize, flags: u32) -> Option<u32> {
        let p = self.topo.cpus[cpu].policy;
        let fd = self.topo.policies[p].clock;
        let now = self.now;
        self.sugov_iowait_boost(cpu, flags);
        self.sg_cpu[cpu].last_update = now;
        // The policy's fields, read once: nothing below changes them until they are written
        // back at the end.
        let &Policy {
            req_khz,
            last_update,
            rate_limited,
            freq_update_delay_ns,
            updated_once,
            idle_calls: saved_idle_calls,
            shared,
            cpu: first_cpu,
        } = &self.policies[p];
        if rate_limited && now < last_update + freq_update_delay_ns {
            if self.log.is_some() {
                let (util, max, _) = self.sugov_policy_util(p, shared, first_cpu, false);
                let (reference, f) = self.sugov_next_freq(fd, req_khz, util, max);
                if f != req_khz {
                    self.log_held(cpu, p, (util, max, reference, f), FreqWhy::RateLimited);
                }
            }
            return None;
        }
        // sugov_cpu_is_busy(), before the utilization is read.
        let single = !shared;
        let idle_calls = self.idle_calls[cpu];
        let busy = single && updated_once && saved_idle_calls == idle_calls;
        if shared {
            for j in self.topo.policies[p].cpus.iter() {
                self.sugov_iowait_apply(j);
            }
        } else {
            self.sugov_iowait_apply(first_cpu);
        }
        let (util, max, why) = self.sugov_policy_util(p, shared, first_cpu, true);
        let (reference, f) = self.sugov_next_freq(fd, req_khz, util, max);
        let on_change = self.config.schedutil_rate_limit_on_change;
        // The busy hold keeps next_freq, which is then no change either; not while the rq is
        // capped by uclamp_max (v5.17+, `uclamp_rq_is_capped()`).
        let capped = self.config.uclamp_max_sugov && single && self.uclamp_rq_is_capped(cpu);
        let hold = self.config.schedutil_busy_hold && busy && f < req_khz && !capped;
        let policy = &mut self.policies[p];
        policy.idle_calls = idle_calls;
        policy.updated_once = true;
        if !on_change || (!hold && f != req_khz) {
            policy.last_update = now;
            policy.rate_limited = true;
        }
        if hold {
            if self.log.is_some() {
                self.log_held(cpu, p, (util, max, reference, f), FreqWhy::BusyHold);
            }
            return None;
        }
        if f == req_khz {
            return None;
        }
        if self.log.is_some() {
            self.freq_pending = Some(FreqDecision {
                t: now,
                policy: p,
                cpu,
                util,
                max,
                ref_khz: reference as u32,
                req_khz: f,
                granted_khz: 0,
                why,
            });
        }
        Some(f)
    }

    /// Logs a request the governor held back: `(util, max, reference, would-be frequency)`; a
    /// repeat of the entry just logged (a second update of the policy in the same instant, as an
    /// enqueue and the pick after it make) is left out.
    fn log_held(&mut self, cpu: usize, p: usize, v: (u64, u64, u64, u32), why: FreqWhy) {
        if let Some(Some(Decision::Freq(last))) = self.log.as_ref().map(|l| l.last()) {
            if last.t == self.now && last.policy == p && last.why == why && last.req_khz == v.3 {
                return;
            }
        }
        let fd = self.topo.policies[p].clock;
        let d = FreqDecision {
            t: self.now,
            policy: p,
            cpu,
            util: v.0,
            max: v.1,
            ref_khz: v.2 as u32,
            req_khz: v.3,
            granted_khz: self.clocks[fd].cur_khz,
            why,
        };
        self.log_freq(d);
    }

    /// What the governor requests for `cpu`'s policy on an update with `flags`
    /// (`SCHED_CPUFREQ_IOWAIT`, ...), if that differs from its last request. When the run is
    /// traced, a changed request leaves its decision for [`World::set_frequency`] to log with the
    /// frequency the clock then delivers.
    pub fn cpufreq_target(&mut self, cpu: usize, flags: u32) -> Option<u32> {
        let p = self.topo.cpus[cpu].policy;
        let fd = self.topo.policies[p].clock;
        let dom = &self.topo.freq_domains[fd];
        let target = match self.config.governor {
            Governor::Performance => dom.peak_khz(),
            Governor::Powersave => dom.min_khz(),
            Governor::Schedutil => return self.sugov_update(cpu, flags),
            Governor::Hwp => return self.hwp_request(cpu, p, fd, flags),
        };
        let changed = target != self.policies[p].req_khz;
        if changed && self.log.is_some() {
            self.freq_pending = Some(FreqDecision {
                t: self.now,
                policy: p,
                cpu,
                util: 0,
                max: 0,
                ref_khz: 0,
                req_khz: target,
                granted_khz: 0,
                why: FreqWhy::Util,
            });
        }
        changed.then_some(target)
    }

    /// `Governor::Hwp` on an update of `cpu` with `flags`: the driver's hook
    /// (`intel_pstate_update_util_hwp()`, told of SCHED_CPUFREQ_IOWAIT), then the hardware's
    /// choice for `cpu`'s core ([`World::hwp_pick`]). HWP picks per core, so the choice stands for
    /// every thread's policy on the clock: the clock, the highest request of its policies, runs at
    /// it rather than at a sibling's older pick. Simplification: every update counts as the CPU's
    /// own (the kernel's hook only stores a remote CPU's flags; the woken CPU's own update follows
    /// at once when its task runs).
    fn hwp_request(&mut self, cpu: usize, p: usize, fd: usize, flags: u32) -> Option<u32> {
        self.hwp_update_util(cpu, flags & SCHED_CPUFREQ_IOWAIT != 0, true);
        let pick = self.hwp_pick(cpu);
        let f = pick.requested_khz;
        let mut changed = false;
        for &q in self.topo.freq_domains[fd].policies.iter() {
            if self.policies[q].req_khz != f {
                self.policies[q].req_khz = f;
                changed = true;
            }
        }
        // The caller's set_frequency() then recomputes the clock from the requests.
        if !changed {
            return None;
        }
        if self.log.is_some() {
            self.freq_pending = Some(FreqDecision {
                t: self.now,
                policy: p,
                cpu,
                util: pick.activity,
                max: 1024,
                ref_khz: self.topo.freq_domains[fd].peak_khz(),
                req_khz: f,
                granted_khz: 0,
                why: match pick.reason {
                    HwpReason::Ramp => FreqWhy::HwpRamp,
                    HwpReason::DynamicBoost => FreqWhy::HwpBoost,
                },
            });
        }
        Some(f)
    }
}

#[cfg(test)]
mod tests {
    use crate::domains::SchedDomains;
    use crate::kernel::{build_config, Governor};
    use crate::sched::World;
    use crate::topology::{presets::preset, Topology};

    fn world(machine: &str, governor: Governor, invariant: bool) -> World {
        world_of("v6.8", machine, governor, invariant)
    }

    fn world_of(baseline: &str, machine: &str, governor: Governor, invariant: bool) -> World {
        let t = Topology::build(&preset(machine).unwrap()).unwrap();
        let mut c = build_config(baseline, &[], None, governor).unwrap();
        c.frequency_invariance = invariant;
        let d = SchedDomains::build(&t, &c).unwrap();
        World::new(t, d, c)
    }

    #[test]
    fn schedutil_asks_for_125_percent_of_util_rounded_up_to_an_opp() {
        let mut w = world("hikey960", Governor::Schedutil, true);
        // A73 policy: util 400 of 1024 -> 1.25 * 2362 MHz * 400/1024 = 1153 MHz -> OPP 1421.
        w.rqs[4].avg.util_avg = 400;
        assert!(w.cpufreq_update(4, 0).is_some());
        assert_eq!(w.clocks[1].cur_khz, 1_421_000);
        // The rate limit holds the next request back.
        w.rqs[4].avg.util_avg = 1000;
        assert!(w.cpufreq_update(4, 0).is_none());
        w.now += w.policies[1].freq_update_delay_ns;
        w.cpufreq_update(4, 0);
        assert_eq!(w.clocks[1].cur_khz, 2_362_000);
    }

    #[test]
    fn schedutil_without_invariance_scales_from_the_current_frequency() {
        let mut w = world("hikey960", Governor::Schedutil, false);
        w.set_frequency(1, 903_000);
        // util 1000/1024 at 903 MHz: 1.25 * 903 * 1000/1024 = 1102 MHz -> 1421, not the max OPP:
        // without invariance a saturated CPU climbs one step per update.
        w.rqs[5].avg.util_avg = 1000;
        w.cpufreq_update(5, 0);
        assert_eq!(w.clocks[1].cur_khz, 1_421_000);
    }

    #[test]
    fn x86_frequency_invariance_divides_by_the_4_core_turbo_and_clamps() {
        // kernel-facts.md §3.4: ratio floor(37 x 1024 / 24) = 1578.
        let mut w = world("cascadelake-8260l", Governor::Performance, true);
        w.config.freq_invariance_max = crate::kernel::FreqInvarianceMax::TurboGroup {
            min_active_cores: 4,
        };
        let mut scale_at = |mhz: u32| {
            w.set_clock_khz(0, mhz * 1000);
            w.freq_scale(0)
        };
        let got: Vec<u64> = [1000, 2400, 3100, 3300, 3600, 3700, 3900]
            .iter()
            .map(|&f| scale_at(f))
            .collect();
        assert_eq!(got, vec![276, 664, 858, 913, 996, 1024, 1024]);
    }

    #[test]
    fn schedutil_busy_hold_keeps_a_busy_single_cpu_policy_up() {
        let mut spec = preset("juno-r2").unwrap();
        for c in &mut spec.clusters {
            c.freq_domain = crate::topology::FreqDomainSpan::Cpu;
        }
        let t = Topology::build(&spec).unwrap();
        let c = build_config("v6.8", &[], None, Governor::Schedutil).unwrap();
        let d = SchedDomains::build(&t, &c).unwrap();
        let mut w = World::new(t, d, c);
        let fd = w.topo.cpus[1].freq_domain;
        w.rqs[1].avg.util_avg = 1000;
        w.now = 10_000_000;
        if let Some(f) = w.cpufreq_target(1, 0) {
            w.set_frequency(fd, f);
        }
        assert_eq!(w.clocks[fd].cur_khz, 1_200_000);
        // Utilization drops but the CPU never idled: the frequency holds...
        w.rqs[1].avg.util_avg = 100;
        w.now += 10_000_000;
        assert_eq!(w.cpufreq_target(1, 0), None);
        // ...until it has been idle once.
        w.idle_calls[1] += 1;
        w.now += 10_000_000;
        assert_eq!(w.cpufreq_target(1, 0), Some(600_000));
    }

    #[test]
    fn the_rate_limit_clock_restarts_on_a_change_from_v4_16_and_on_every_evaluation_in_v4_9() {
        // hikey960 A73 policy: util 400 -> OPP 1421 MHz at t = 0.
        for (baseline, acted) in [("v4.16", true), ("v6.8", true), ("v4.9", false)] {
            let mut w = world_of(baseline, "hikey960", Governor::Schedutil, true);
            let limit = w.policies[1].freq_update_delay_ns;
            w.rqs[4].avg.util_avg = 400;
            assert!(w.cpufreq_update(4, 0).is_some());
            // 1.2 limits later, an evaluation that asks for the same frequency.
            w.now += limit * 6 / 5;
            assert!(w.cpufreq_update(4, 0).is_none());
            // Util jumps 0.2 limits later: 1.4 limits after the change, 0.2 after the evaluation.
            w.now += limit / 5;
            w.rqs[4].avg.util_avg = 1000;
            assert_eq!(w.cpufreq_update(4, 0).is_some(), acted, "{baseline}");
        }
    }

    #[test]
    fn schedutil_reads_util_against_1024_on_smt_threads_of_the_smt_gain_era() {
        // IVB-EP v4.9: capacity_orig is 589 per thread (smt_gain), but sugov_get_util() clamps to
        // arch_scale_cpu_capacity(NULL) = 1024: a saturated thread asks for the top OPP.
        let mut w = world_of("v4.9", "ivb-ep", Governor::Schedutil, true);
        assert_eq!(w.capacity_of(0), 589);
        w.rqs[0].avg.util_avg = 1024;
        let fd = w.topo.cpus[0].freq_domain;
        let top = w.topo.freq_domains[fd].peak_khz();
        let got = w.cpufreq_target(0, 0).unwrap_or(w.policies[fd].req_khz);
        assert_eq!(got, top);
    }

    #[test]
    fn v6_8_schedutil_stacks_the_headroom_without_invariance() {
        // hikey960 A73 policy at 903 MHz, util 700/1024, no invariance.
        // v6.7: 1.25 * 903 * 700/1024 = 771.6 MHz -> OPP 903.
        // v6.8: (903 + 225.75) * min(700 + 175, 1024)/1024 = 964.5 MHz -> OPP 1421.
        for (baseline, want) in [("v6.7", 903_000), ("v6.8", 1_421_000)] {
            let mut w = world_of(baseline, "hikey960", Governor::Schedutil, false);
            w.set_frequency(1, 903_000);
            w.rqs[4].avg.util_avg = 700;
            w.rqs[4].util_est_enqueued = 0;
            let got = w.cpufreq_target(4, 0).unwrap_or(w.policies[1].req_khz);
            assert_eq!(got, want, "{baseline}");
        }
    }

    #[test]
    fn intel_pstate_resolves_turbo_requests_to_100_mhz_ratios() {
        // Cascade Lake 8260L: OPPs 1.0-2.4 GHz, turbo up to 3.9 GHz. util 700/1024 of the 3.9 GHz
        // reference (invariant): 1.25 * 3900 * 700/1024 = 3332.5 MHz -> the 3.4 GHz ratio, not
        // the next turbo-bin frequency (3.6 GHz).
        let mut w = world("cascadelake-8260l", Governor::Schedutil, true);
        let fd = w.topo.cpus[0].freq_domain;
        w.rqs[0].avg.util_avg = 700;
        w.rqs[0].util_est_enqueued = 0;
        assert_eq!(w.cpufreq_target(0, 0), Some(3_400_000));
        // 2.5 GHz asked for: 2.5 GHz, not 3.1.
        assert_eq!(w.resolve_freq(fd, 2_450_000), 2_500_000);
        // Without turbo (hikey960) only the OPP table counts.
        let w = world("hikey960", Governor::Schedutil, true);
        assert_eq!(w.resolve_freq(1, 1_000_000), 1_421_000);
    }

    #[test]
    fn performance_and_powersave_pin_the_ends() {
        let mut w = world("hikey960", Governor::Powersave, true);
        w.cpufreq_update(0, 0);
        assert_eq!(w.clocks[0].cur_khz, 533_000);
        let mut w = world("hikey960", Governor::Performance, true);
        w.set_frequency(0, 533_000);
        w.cpufreq_update(0, 0);
        assert_eq!(w.clocks[0].cur_khz, 1_844_000);
    }

    #[test]
    fn turbo_caps_what_the_cpu_gets_not_what_the_governor_asked_for() {
        let mut w = world("cascadelake-8260l", Governor::Schedutil, false);
        let fd = w.topo.cpus[0].freq_domain;
        let pkg = w.topo.freq_domains[fd].package;
        w.active_cores[pkg] = 1;
        w.set_frequency(fd, 3_900_000);
        assert_eq!(w.clocks[fd].cur_khz, 3_900_000);
        assert_eq!(w.turbo_capped_khz(fd), None);
        // 24 active cores: the hardware grants the 24-core bin; the request (policy->cur, the
        // reference of non-invariant schedutil) stays at 3.9 GHz.
        w.active_cores[pkg] = 24;
        assert_eq!(w.turbo_capped_khz(fd), Some(3_100_000));
        w.apply_turbo_cap(fd, 3_100_000);
        assert_eq!(
            (w.clocks[fd].cur_khz, w.policies[fd].req_khz),
            (3_100_000, 3_900_000)
        );
        // Back to 2 active cores: the 2-core bin, the request unchanged.
        w.active_cores[pkg] = 2;
        assert_eq!(w.turbo_capped_khz(fd), Some(3_900_000));
        // A request below the cap is delivered as asked.
        w.active_cores[pkg] = 24;
        w.set_frequency(fd, 2_000_000);
        assert_eq!(w.clocks[fd].cur_khz, 2_000_000);
        assert_eq!(w.turbo_capped_khz(fd), None);
    }

    /// `resolve_freq()` (a binary search of the domain's P-state table) finds what its
    /// definition finds: the lower of the lowest OPP and the lowest 100 MHz ratio (above the
    /// reference frequency, up to the peak) at or above the target, else the peak; on every clock
    /// of every preset, at every 10 MHz and at each entry and either side of it.
    #[test]
    fn resolve_freq_finds_the_lowest_pstate_at_or_above_the_target() {
        const STEP: u64 = 100_000;
        for name in crate::topology::presets::NAMES {
            let w = world(name, Governor::Schedutil, false);
            for (fd, dom) in w.topo.freq_domains.iter().enumerate() {
                let by_definition = |target: u64| {
                    let opp = dom.opps_khz.iter().copied().find(|&f| f as u64 >= target);
                    let (lo, hi) = (
                        dom.reference_khz() as u64 / STEP + 1,
                        dom.peak_khz() as u64 / STEP,
                    );
                    let r = target.div_ceil(STEP).max(lo);
                    let step = (r <= hi).then(|| (r * STEP) as u32);
                    match (opp, step) {
                        (Some(a), Some(b)) => a.min(b),
                        (a, b) => a.or(b).unwrap_or(dom.peak_khz()),
                    }
                };
                let mut probes: Vec<u64> = (0..=700).map(|k| k * 10_000).collect();
                for &f in dom.pstates_khz() {
                    probes.extend([f as u64 - 1, f as u64, f as u64 + 1]);
                }
                for target in probes {
                    assert_eq!(
                        w.resolve_freq(fd, target),
                        by_definition(target),
                        "{name} clock {fd} at {target} kHz"
                    );
                }
            }
        }
    }
}
