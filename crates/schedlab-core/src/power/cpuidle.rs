//! CPU idle states: which state an idle CPU enters (the menu governor), what it draws there, and
//! what a wake-up pays to leave it.
//!
//! - Selection: `menu_select()` (drivers/cpuidle/governors/menu.c, v4.9-v6.8): the deepest enabled
//!   state whose `target_residency` fits the predicted idle time and whose `exit_latency` fits the
//!   latency limit, the first state being the fallback. The prediction is the distance to the CPU's
//!   next timer, lowered to `get_typical_interval()`'s estimate from the last 8 idle intervals
//!   (the v4.x-v5.x form with the `predicted_us` argument). The latency limit is the PM QoS
//!   request (none: the default) lowered to `interactivity_req = predicted / performance_multiplier()`,
//!   `performance_multiplier(nr_iowaiters) = 1 + 10 x nr_iowaiters` (v4.15+; v4.9-v4.14 also added
//!   a load term). Simplifications, said here: the correction factors per bucket
//!   (`correction_factor[]`, `menu_update()`) are taken at their steady state for timer wake-ups
//!   (1, the timer distance is the prediction); the I/O waiters are `nr_iowait_cpu()`, the
//!   tasks that went to sleep in I/O on the CPU and have not woken ([`World::nr_iowait`]); the idle CPU's tick is stopped (the engine's NO_HZ_IDLE), so the
//!   tick-retention branches of v4.17+ (`tick_nohz_get_sleep_length()`'s `delta_next`,
//!   "don't stop the tick" for short predictions) do not apply; v5.x's rule of returning
//!   `max` when at least half the samples remain (v6.15) is not modelled. A history of 8 long
//!   intervals (1 s) stands for a machine that was idle before the run **[assumed]**.
//! - Measured interval: `menu_update()` records the time from idle entry to the wake-up
//!   (the kernel measures entry to the end of the exit and subtracts the exit latency, which comes
//!   to the same).
//! - Exit latency: a wake-up of a CPU in a state pays the state's exit latency (x86
//!   `exit_latency`, DT `exit-latency-us`) before the CPU can run its task; that is the hardware,
//!   a preset field, and a machine without `idle_states` pays nothing.
//! - Power: a core draws the power of its shallowest thread's state; the cluster's shared domain
//!   ([`super::UncoreSpec`]) is awake while any of its cores is not in `deep_state` or deeper
//!   (package C6 on x86 needs every core in core C6; an Arm cluster goes down when all its CPUs
//!   chose the cluster state, PSCI's coordination). Counted per cluster at each core's change, no
//!   scan.

use super::IdleStateSpec;
use crate::sched::World;
use crate::units::{Nanos, NSEC_PER_USEC};

/// `INTERVALS`: the idle intervals `get_typical_interval()` looks at.
pub const INTERVALS: usize = 8;

/// What the CPUs' history holds before the run: long idle intervals, 1 s each **[assumed]**: the
/// machine was idle before the benchmark started.
pub const IDLE_HISTORY_US: u32 = 1_000_000;

/// `struct menu_device`: the repeating-pattern data of one CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MenuDevice {
    pub intervals: [u32; INTERVALS],
    pub interval_ptr: usize,
}

impl Default for MenuDevice {
    fn default() -> MenuDevice {
        MenuDevice {
            intervals: [IDLE_HISTORY_US; INTERVALS],
            interval_ptr: 0,
        }
    }
}

impl MenuDevice {
    /// `menu_update()`'s `data->intervals[data->interval_ptr++] = measured_us`.
    pub fn update_intervals(&mut self, measured_us: u32) {
        self.intervals[self.interval_ptr] = measured_us;
        self.interval_ptr = (self.interval_ptr + 1) % INTERVALS;
    }

    /// `get_typical_interval(data, predicted_us)` (v4.9-v5.x): the average of the recent
    /// intervals when their spread is small (stddev below a sixth of the average with at least 6
    /// samples, or variance <= 400 us^2), dropping the largest values and retrying while more
    /// than 6 samples remain; `u64::MAX` (no estimate) otherwise, or when no sample is below
    /// `predicted_us`. As in the kernel, the retry drops every sample equal to the maximum, so a
    /// lone short interval among equal long ones becomes the estimate (variance 0).
    pub fn get_typical_interval(&self, predicted_us: u64) -> u64 {
        let mut thresh = i32::MAX as u64;
        loop {
            let (mut min, mut max, mut sum, mut divisor) = (u64::MAX, 0u64, 0u64, 0u64);
            for &v in &self.intervals {
                let v = v as u64;
                if v <= thresh {
                    sum += v;
                    divisor += 1;
                    max = max.max(v);
                    min = min.min(v);
                }
            }
            if divisor == 0 || min >= predicted_us {
                return u64::MAX;
            }
            let avg = if divisor == INTERVALS as u64 {
                sum >> 3
            } else {
                sum / divisor
            };
            let mut variance = 0u64;
            for &v in &self.intervals {
                let v = v as u64;
                if v <= thresh {
                    let d = v.abs_diff(avg);
                    variance += d * d;
                }
            }
            variance = if divisor == INTERVALS as u64 {
                variance >> 3
            } else {
                variance / divisor
            };
            if variance <= u64::MAX / 36
                && ((avg * avg > variance * 36 && divisor * 4 >= INTERVALS as u64 * 3)
                    || variance <= 400)
            {
                return avg;
            }
            if divisor * 4 <= INTERVALS as u64 * 3 {
                return u64::MAX;
            }
            thresh = max - 1;
        }
    }
}

/// `performance_multiplier(nr_iowaiters)` (v4.15+): `1 + 10 x nr_iowaiters`.
pub fn performance_multiplier(nr_iowaiters: u64) -> u64 {
    1 + 10 * nr_iowaiters
}

/// `menu_select()`'s choice: the index of the deepest state whose target residency fits
/// `predicted_us` and whose (governor) exit latency fits `latency_req_us`; state 0 is the
/// fallback. Returns (state, predicted_us).
pub fn menu_select(
    states: &[IdleStateSpec],
    menu: &MenuDevice,
    next_timer_us: u64,
    latency_req_us: u64,
    nr_iowaiters: u64,
) -> (usize, u64) {
    let predicted = next_timer_us.min(menu.get_typical_interval(next_timer_us));
    let interactivity_req = predicted / performance_multiplier(nr_iowaiters);
    let latency_req = latency_req_us.min(interactivity_req);
    let mut idx = 0;
    for (i, s) in states.iter().enumerate().skip(1) {
        if s.target_residency_us as u64 > predicted {
            break;
        }
        if s.governor_exit_latency_us() > latency_req {
            break;
        }
        idx = i;
    }
    (idx, predicted)
}

/// Per-CPU idle-state bookkeeping of a run.
#[derive(Clone, Debug, Default)]
pub struct IdleTracker {
    /// Per CPU: 0 while awake (running, or exiting a state), `i + 1` while in `idle_states[i]`.
    pub state: Vec<u8>,
    /// Per CPU: when it entered its state; `None` for the state it was in before the run (idle
    /// for [`IDLE_HISTORY_US`] by then).
    pub entered: Vec<Option<Nanos>>,
    pub menu: Vec<MenuDevice>,
    /// Per core: all its threads are in the cluster's `deep_state` or deeper.
    pub core_deep: Vec<bool>,
    /// Per cluster: cores not deep (the shared domain is awake while this is above 0).
    pub awake_cores: Vec<u32>,
    /// Where the clusters' shared domains start in the energy meter (after the cores).
    pub uncore_base: usize,
    /// Per core: the last (kHz, busy power in uW) [`World::update_core_power`] computed. A core's
    /// cluster and clock never change within a run, so its busy power is a function of the kHz
    /// alone; most recomputations (a thread starts or stops, a sibling enters or leaves a
    /// state) find the clock where it was.
    pub busy_uw_at: Vec<(u32, u64)>,
}

impl World {
    /// The idle states of `cpu`'s cluster.
    fn idle_states_of(&self, cpu: usize) -> &[IdleStateSpec] {
        &self.topo.spec.clusters[self.topo.cpus[cpu].cluster]
            .power
            .idle_states
    }

    /// The machine before the run: every CPU idle in its deepest state, every domain's power set.
    pub(crate) fn init_idle_states(&mut self) {
        let n = self.nr_cpus();
        let ncores = self.topo.cores.len();
        let nclusters = self.topo.spec.clusters.len();
        self.idle.state = (0..n).map(|c| self.idle_states_of(c).len() as u8).collect();
        self.idle.entered = vec![None; n];
        self.idle.menu = vec![MenuDevice::default(); n];
        self.idle.core_deep = vec![false; ncores];
        // No clock runs near u32::MAX kHz (`Topology::build` caps frequencies at 20 GHz): every
        // first look computes.
        self.idle.busy_uw_at = vec![(u32::MAX, 0); ncores];
        self.idle.awake_cores = vec![0; nclusters];
        self.idle.uncore_base = ncores;
        for core in 0..ncores {
            let cl = self.topo.cpus[self.topo.cores[core].first().unwrap()].cluster;
            self.idle.awake_cores[cl] += 1;
        }
        for cl in 0..nclusters {
            let u = &self.topo.spec.clusters[cl].power.uncore;
            self.energy.set(ncores + cl, self.now, u.awake_uw);
        }
        for core in 0..ncores {
            self.update_core_power(core);
        }
    }

    /// `cpuidle_idle_call()` on a CPU that has nothing to run: the menu governor picks a state from
    /// the next timer's distance (`None`: no timer) and the CPU enters it. Returns the state index
    /// (None without idle states).
    pub fn cpuidle_enter(&mut self, cpu: usize, next_timer: Option<Nanos>) -> Option<usize> {
        if self.idle.state[cpu] != 0 || self.idle_states_of(cpu).is_empty() {
            return None;
        }
        let next_timer_us =
            next_timer.map_or(u64::MAX, |t| t.saturating_sub(self.now) / NSEC_PER_USEC);
        let (idx, _) = menu_select(
            self.idle_states_of(cpu),
            &self.idle.menu[cpu],
            next_timer_us,
            u64::MAX,
            self.nr_iowait[cpu] as u64,
        );
        self.idle.state[cpu] = idx as u8 + 1;
        self.idle.entered[cpu] = Some(self.now);
        self.update_core_power(self.topo.cpus[cpu].core);
        Some(idx)
    }

    /// A wake-up reached an idle `cpu`: it leaves its state, `menu_update()` records the idle
    /// interval, and the exit latency the CPU pays before it runs is returned (0 when awake).
    pub fn cpuidle_exit(&mut self, cpu: usize) -> Nanos {
        let s = self.idle.state[cpu];
        if s == 0 {
            return 0;
        }
        let cluster = self.topo.cpus[cpu].cluster;
        let uncore = &self.topo.spec.clusters[cluster].power.uncore;
        // A coordinated cluster state while another core kept the cluster up: the CPU only went
        // as deep as the state below.
        let mut state = s as usize - 1;
        if let Some(d) = uncore.deep_state {
            if uncore.coordinated && state >= d && d > 0 && self.idle.awake_cores[cluster] > 0 {
                state = d - 1;
            }
        }
        let exit = self.idle_states_of(cpu)[state].exit_latency_us as u64 * NSEC_PER_USEC;
        let measured_us = match self.idle.entered[cpu] {
            Some(t) => (self.now - t) / NSEC_PER_USEC,
            None => IDLE_HISTORY_US as u64 + self.now / NSEC_PER_USEC,
        };
        self.idle.menu[cpu].update_intervals(measured_us.min(u32::MAX as u64) as u32);
        self.idle.state[cpu] = 0;
        self.update_core_power(self.topo.cpus[cpu].core);
        exit
    }

    /// `idle_get_state(rq)->exit_latency`: the (governor's) exit latency of the cpuidle state
    /// `cpu` is in, `None` outside one (awake, or a machine without idle states).
    pub fn idle_get_state_exit_latency(&self, cpu: usize) -> Option<u64> {
        let s = self.idle.state[cpu];
        (s != 0).then(|| self.idle_states_of(cpu)[s as usize - 1].governor_exit_latency_us())
    }

    /// Whether `cpu` is in an idle state (not awake).
    pub fn in_idle_state(&self, cpu: usize) -> bool {
        self.idle.state[cpu] != 0
    }

    /// Recompute a core's power after a change of its busy state, frequency or idle state, and its
    /// cluster's shared domain when the core enters or leaves the deep state.
    pub fn update_core_power(&mut self, core: usize) {
        let threads = self.topo.core_cpus.range(core);
        let c = &self.topo.cpus[self.topo.core_cpus.at(threads.start)];
        let cluster = c.cluster;
        let spec = &self.topo.spec.clusters[cluster].power;
        // The core's state: its shallowest thread's (0 = awake).
        let shallowest = threads
            .map(|k| self.idle.state[self.topo.core_cpus.at(k)])
            .min()
            .unwrap_or(0);
        let uw = if self.core_busy(core) {
            let khz = self.clocks[c.freq_domain].cur_khz;
            match self.idle.busy_uw_at[core] {
                (at, uw) if at == khz => uw,
                _ => {
                    let fd = &self.topo.freq_domains[c.freq_domain];
                    let uw = spec.busy_uw_at_opp(khz as u64, &fd.opps_khz, fd.peak_khz() as u64);
                    self.idle.busy_uw_at[core] = (khz, uw);
                    uw
                }
            }
        } else if shallowest == 0 {
            spec.idle_uw
        } else {
            spec.idle_states[shallowest as usize - 1].power_uw
        };
        let deep = match spec.uncore.deep_state {
            Some(d) => shallowest as usize > d,
            None => false,
        };
        let (awake_uw, idle_uw) = (spec.uncore.awake_uw, spec.uncore.idle_uw);
        self.energy.set(core, self.now, uw);
        if deep != self.idle.core_deep[core] {
            self.idle.core_deep[core] = deep;
            let before = self.idle.awake_cores[cluster];
            let after = if deep { before - 1 } else { before + 1 };
            self.idle.awake_cores[cluster] = after;
            let domain = self.idle.uncore_base + cluster;
            if after == 0 {
                self.energy.set(domain, self.now, idle_uw);
            } else if before == 0 {
                self.energy.set(domain, self.now, awake_uw);
            }
        }
        self.trace_energy();
    }
}

#[cfg(test)]
mod tests;
