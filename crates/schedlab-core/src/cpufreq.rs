//! cpufreq: one policy per frequency domain, driven by the governor in the kernel config.
//!
//! - performance / powersave: the highest allowed / the lowest OPP.
//! - schedutil (kernel/sched/cpufreq_schedutil.c): on each utilization update (enqueue, dequeue,
//!   tick) of a CPU, if `rate_limit_us` has passed since the policy's last change, take the CPU of
//!   the policy with the highest util/capacity (`sugov_next_freq_shared()`), and ask for
//!   `get_next_freq()` = 1.25 x reference x util/max, where reference is the policy's max frequency
//!   with frequency invariance and its current frequency without; `cpufreq_driver_resolve_freq()`
//!   picks the lowest OPP at or above it (CPUFREQ_RELATION_L).
//!
//! Turbo: above the highest OPP, the hardware grants at most the turbo bin for the package's number
//! of active cores. Simplifications: frequency changes take effect at once (no transition latency);
//! no iowait boost, no uclamp, no busy hold (issue 3 adds them where experiments need them).

use crate::kernel::Governor;
use crate::sched::World;

impl World {
    /// Busy cores (any thread running) in a package.
    fn active_cores(&self, package: usize) -> u32 {
        let mut n = 0;
        for core in &self.topo.cores {
            let first = core.first().unwrap();
            if self.topo.cpus[first].package == package && core.iter().any(|c| !self.idle_cpu(c)) {
                n += 1;
            }
        }
        n
    }

    /// The highest frequency a domain may run at right now.
    fn hw_max_khz(&self, fd: usize) -> u32 {
        let dom = &self.topo.freq_domains[fd];
        if dom.turbo_bins.is_empty() {
            return dom.reference_khz();
        }
        dom.max_khz(self.active_cores(dom.package).max(1))
    }

    /// `cpufreq_driver_resolve_freq()` with CPUFREQ_RELATION_L: the lowest OPP (or turbo bin) at or
    /// above `target`, within what the hardware allows now.
    fn resolve_freq(&self, fd: usize, target: u64) -> u32 {
        let dom = &self.topo.freq_domains[fd];
        let hw_max = self.hw_max_khz(fd);
        let opp = dom
            .opps_khz
            .iter()
            .copied()
            .chain(dom.turbo_bins.iter().map(|b| b.mhz * 1000))
            .filter(|&f| f as u64 >= target)
            .min()
            .unwrap_or(hw_max);
        opp.min(hw_max)
    }

    /// Re-evaluates `cpu`'s policy and applies the result. Returns the frequency domain if its
    /// frequency changed.
    pub fn cpufreq_update(&mut self, cpu: usize) -> Option<usize> {
        let khz = self.cpufreq_target(cpu)?;
        let fd = self.topo.cpus[cpu].freq_domain;
        self.set_frequency(fd, khz);
        Some(fd)
    }

    /// Sets a policy's frequency.
    pub fn set_frequency(&mut self, fd: usize, khz: u32) {
        self.policies[fd].cur_khz = khz;
        self.counters.freq_changes += 1;
    }

    /// What the governor wants for `cpu`'s policy, if that differs from the current frequency.
    pub fn cpufreq_target(&mut self, cpu: usize) -> Option<u32> {
        let fd = self.topo.cpus[cpu].freq_domain;
        let dom = &self.topo.freq_domains[fd];
        let target = match self.config.governor {
            Governor::Performance => self.hw_max_khz(fd),
            Governor::Powersave => dom.min_khz(),
            Governor::Schedutil => {
                let policy = &self.policies[fd];
                let rate_limit = self.config.schedutil_rate_limit_us * 1000;
                if policy.updated_once && self.now < policy.last_update + rate_limit {
                    return None;
                }
                // sugov_next_freq_shared(): the CPU with the highest util/max decides.
                let (mut util, mut max) = (0u64, 1u64);
                for j in dom.cpus.iter() {
                    let j_util = self.cpu_util(j);
                    let j_max = self.arch_scale_cpu_capacity(j);
                    if j_util * max > j_max * util {
                        util = j_util;
                        max = j_max;
                    }
                }
                let reference = if self.config.frequency_invariance {
                    dom.peak_khz()
                } else {
                    self.policies[fd].cur_khz
                } as u64;
                // get_next_freq(): map_util_freq() = (freq + freq/4) * util / max.
                let next = (reference + (reference >> 2)) * util / max;
                self.policies[fd].last_update = self.now;
                self.policies[fd].updated_once = true;
                self.resolve_freq(fd, next)
            }
        };
        (target != self.policies[fd].cur_khz).then_some(target)
    }
}

#[cfg(test)]
mod tests {
    use crate::domains::SchedDomains;
    use crate::kernel::{build_config, Governor};
    use crate::sched::World;
    use crate::topology::{presets::preset, Topology};

    fn world(machine: &str, governor: Governor, invariant: bool) -> World {
        let t = Topology::build(&preset(machine).unwrap()).unwrap();
        let mut c = build_config("v6.8", &[], None, governor).unwrap();
        c.frequency_invariance = invariant;
        let d = SchedDomains::build(&t, &c).unwrap();
        World::new(t, d, c)
    }

    #[test]
    fn schedutil_asks_for_125_percent_of_util_rounded_up_to_an_opp() {
        let mut w = world("hikey960", Governor::Schedutil, true);
        // A73 policy: util 400 of 1024 -> 1.25 * 2362 MHz * 400/1024 = 1153 MHz -> OPP 1421.
        w.rqs[4].avg.util_avg = 400;
        assert!(w.cpufreq_update(4).is_some());
        assert_eq!(w.policies[1].cur_khz, 1_421_000);
        // The rate limit holds the next request back.
        w.rqs[4].avg.util_avg = 1000;
        assert!(w.cpufreq_update(4).is_none());
        w.now += w.config.schedutil_rate_limit_us * 1000;
        w.cpufreq_update(4);
        assert_eq!(w.policies[1].cur_khz, 2_362_000);
    }

    #[test]
    fn schedutil_without_invariance_scales_from_the_current_frequency() {
        let mut w = world("hikey960", Governor::Schedutil, false);
        w.policies[1].cur_khz = 903_000;
        // util 1000/1024 at 903 MHz: 1.25 * 903 * 1000/1024 = 1102 MHz -> 1421, not the max OPP:
        // without invariance a saturated CPU climbs one step per update.
        w.rqs[5].avg.util_avg = 1000;
        w.cpufreq_update(5);
        assert_eq!(w.policies[1].cur_khz, 1_421_000);
    }

    #[test]
    fn performance_and_powersave_pin_the_ends() {
        let mut w = world("hikey960", Governor::Powersave, true);
        w.cpufreq_update(0);
        assert_eq!(w.policies[0].cur_khz, 533_000);
        let mut w = world("hikey960", Governor::Performance, true);
        w.policies[0].cur_khz = 533_000;
        w.cpufreq_update(0);
        assert_eq!(w.policies[0].cur_khz, 1_844_000);
    }
}
