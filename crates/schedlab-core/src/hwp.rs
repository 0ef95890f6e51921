//! intel_pstate in active mode with HWP, powersave policy (drivers/cpufreq/intel_pstate.c as v5.2
//! drives it; read: the v5.0-v5.3 file, unchanged in these functions through v5.6).
//!
//! Two halves, kept apart because only one is the kernel's:
//!
//! **The kernel (modelled as v5.2 has it).** With HWP the driver writes each logical CPU's
//! `MSR_HWP_REQUEST`: min = `cpuinfo.min_freq` (1000 MHz on the 8260L), max = HWP highest
//! performance (the 1-core turbo, 3900 MHz), EPP = the firmware's value, which the powersave
//! policy leaves alone (`intel_pstate_hwp_set()`), 128 "balance_performance" unless written through
//! sysfs (`intel_pstate_set_energy_pref_index()`; [`KernelConfig::hwp_epp`]). Then it never looks at
//! utilization: `intel_pstate_set_update_util_hook()` installs no hook at all unless `hwp_boost`
//! ([`KernelConfig::hwp_dynamic_boost`], v4.18+, on by default on SKYLAKE_X and SKYLAKE_DESKTOP
//! with an ACPI server PM profile, `intel_pstate_init_cpu()`). Its hook,
//! `intel_pstate_update_util_hwp()`, is [`World::hwp_update_util`]: it ORs the update's flags into
//! `cpu->sched_flags` and, only on the CPU itself, runs `intel_pstate_update_util_hwp_local()`: an
//! IOWAIT update less than two ticks after the previous IOWAIT update raises the thread's HWP min
//! one level (`intel_pstate_hwp_boost_up()`: (min + P1) / 2, then P1, then max; 1700, 2400, 3900
//! MHz on the 8260L); any other update drops the boost if more than `hwp_boost_hold_time_ns` (3 ms)
//! passed since the previous one (`intel_pstate_hwp_boost_down()`; every such update restarts
//! that clock, so a CPU whose updates come closer than 3 ms apart keeps its boost).
//!
//! **The hardware: an [assumed] model.** Intel does not publish the autonomous algorithm
//! (hardware-facts.md says what is known). Modelled per core: the core runs at one frequency, the
//! highest its threads' requests allow (FreqDomainSpan::Core), chosen from that core's own recent
//! activity and nothing else:
//! - activity `a` is the core's C0 residency (any thread busy) averaged exponentially with the
//!   preset's half-life ([`HwpSpec::activity_half_life_us`]): a core busy from idle has
//!   `a(t) = 1 - 2^(-t/h)`, an idle core's activity decays as `a * 2^(-t/h)`. It is integrated
//!   exactly (to 1/1024 of a half-life) at the core's busy/idle transitions only, and read at any
//!   evaluation without changing it, so no work is done for a core at other cores' events.
//! - the core aims for a target activity `rho(EPP)`, linear between the preset's values at EPP 0
//!   and EPP 255 (defaults 0.5 and 1.0, so ~0.75 at the default EPP 128): at activity `a` it runs at
//!   `min + (max - min) * min(1, a / rho)`, the highest P-state at or below that. So a busy core
//!   ramps from its lowest to its highest frequency in `h * log2(1 / (1 - rho))`: about two
//!   half-lives (rho(128) = 769/1024: 20.06 ms with the default 10 ms) at EPP 128, one at EPP 0,
//!   ~5 to 3.8 GHz at EPP 255, whose top is only approached ("tens of ms from idle to peak",
//!   hardware-facts.md); it decays with the same half-life once idle, and a lower EPP is both a
//!   lower target and a faster ramp.
//! - the highest HWP min of the core's threads (a dynamic boost) is a floor; the result is capped by
//!   HWP max, then by the turbo bin of the package's active cores ([`World::hw_max_khz`]).
//! - no history moves with a task: a core that was idle starts low, whatever ran elsewhere.
//!
//! Simplifications: the hardware re-evaluates continuously; the model evaluates a core only at its
//! own events (its threads' busy/idle changes, wake-ups onto them, their ticks), holding the
//! frequency in between. Updates of the hook are taken as local: the kernel ignores (only
//! accumulates the flags of) an update made by another CPU's wake-up, but the woken CPU makes a
//! local one as soon as it runs the task. Scalability (stall cycles), which real HWP also weighs,
//! is not modelled.

use crate::kernel::Governor;
use crate::sched::World;
use crate::topology::Topology;
use crate::units::Nanos;
use serde::{Deserialize, Serialize};

/// `hwp_boost_hold_time_ns` (v4.18-v6.8): 3 ms, chosen by the driver's authors from measurements
/// (a longer hold hurt performance per watt).
pub const HWP_BOOST_HOLD_TIME_NS: Nanos = 3_000_000;
/// `pstate.scaling` of `core_funcs`: one HWP performance unit (a P-state ratio) is 100 MHz.
pub const PSTATE_SCALING_KHZ: u32 = 100_000;

/// The autonomous algorithm's parameters: hardware, so preset data. All **[assumed]** (see the
/// module doc): Intel publishes none of them.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(default, deny_unknown_fields)]
pub struct HwpSpec {
    /// Half-life of the core's average C0 residency, us. **[assumed]** 10 ms: with the default
    /// targets a busy core reaches its peak 20 ms after leaving idle at EPP 128 ("tens of ms").
    pub activity_half_life_us: u64,
    /// The activity, in 1/1024, at which the core asks for its highest performance with EPP 0
    /// ("performance"). **[assumed]** 512: a half-busy core runs flat out.
    pub target_activity_epp_0: u32,
    /// The same at EPP 255 ("power"). **[assumed]** 1024: only a core that never idles approaches
    /// its peak. Linear in EPP between the two.
    pub target_activity_epp_255: u32,
}

impl Default for HwpSpec {
    fn default() -> HwpSpec {
        HwpSpec {
            activity_half_life_us: 10_000,
            target_activity_epp_0: 512,
            target_activity_epp_255: 1024,
        }
    }
}

impl HwpSpec {
    /// Why the spec cannot be used, if it cannot.
    pub fn check(&self) -> Result<(), String> {
        if self.activity_half_life_us == 0 || self.activity_half_life_us > 1_000_000 {
            return Err("hwp.activity_half_life_us must be 1 us to 1 s".into());
        }
        let ok = |t: u32| (1..=1024).contains(&t);
        if !ok(self.target_activity_epp_0) || !ok(self.target_activity_epp_255) {
            return Err("hwp target activities must be 1 to 1024".into());
        }
        Ok(())
    }

    pub fn is_default(&self) -> bool {
        *self == HwpSpec::default()
    }

    /// rho(EPP) in 1/1024, at least 1.
    pub fn target_activity(&self, epp: u32) -> u64 {
        let (lo, hi) = (
            self.target_activity_epp_0 as i64,
            self.target_activity_epp_255 as i64,
        );
        (lo + (hi - lo) * epp.min(255) as i64 / 255).max(1) as u64
    }
}

/// Activity in Q30: `ACT_ONE` is a core that never idles.
pub const ACT_ONE: u64 = 1 << 30;

/// 2^(-2^-j) in Q32 for j = 1..=10.
const HALF_POWERS_Q32: [u64; 10] = [
    3_037_000_500,
    3_611_622_603,
    3_938_502_376,
    4_112_874_773,
    4_202_935_003,
    4_248_701_965,
    4_271_771_996,
    4_283_353_945,
    4_289_156_690,
    4_292_061_010,
];

/// 2^(-dt / half_life) in Q32, the fraction of a half-life taken to 1/1024 (rounded down).
fn decay_q32(dt: Nanos, half_life: Nanos) -> u64 {
    let half_life = half_life.max(1);
    let n = dt / half_life;
    if n >= 32 {
        return 0;
    }
    // In 64 bits whenever `rem * 1024` fits (any half-life below 2^54 ns), else in 128: the
    // same value either way, without wasm32's 128-bit division call on the common path.
    let rem = dt % half_life;
    let frac = match rem.checked_mul(1024) {
        Some(scaled) => scaled / half_life,
        None => (rem as u128 * 1024 / half_life as u128) as u64,
    };
    let mut d = (1u64 << 32) >> n;
    // Each set bit of the 10-bit fraction, highest first (bit 9 is j = 0): the same products in
    // the same order as a pass over all ten bits, without the clear ones (half of them on
    // average; this runs on every HWP frequency update).
    let mut bits = frac as u32; // rem < half_life: frac <= 1023
    while bits != 0 {
        let top = 31 - bits.leading_zeros();
        d = (d * HALF_POWERS_Q32[(9 - top) as usize]) >> 32;
        bits ^= 1 << top;
    }
    d
}

/// The activity `dt` after `act`, the core busy (or idle) throughout.
pub fn activity_after(act: u64, busy: bool, dt: Nanos, half_life: Nanos) -> u64 {
    let d = decay_q32(dt, half_life);
    if busy {
        ACT_ONE - (((ACT_ONE - act.min(ACT_ONE)) * d) >> 32)
    } else {
        (act.min(ACT_ONE) * d) >> 32
    }
}

/// A core's activity at its last busy/idle transition.
#[derive(Clone, Copy, Debug, Default)]
pub struct HwpCore {
    pub activity: u64,
    pub since: Nanos,
}

/// The `struct cpudata` fields the HWP boost uses, per logical CPU.
#[derive(Clone, Copy, Debug, Default)]
pub struct HwpCpu {
    /// `sched_flags & SCHED_CPUFREQ_IOWAIT`, accumulated until a local update.
    pub sched_flags_iowait: bool,
    /// `sample.time`: the time of the last local update.
    pub sample_time: Nanos,
    /// `last_update`: the boost's hold clock.
    pub last_update: Nanos,
    /// `last_io_update`: the last local IOWAIT update.
    pub last_io_update: Nanos,
    /// `hwp_boost_min` in HWP performance units (P-state ratios); 0: not boosted.
    pub boost_min: u32,
}

/// The HWP model's state: per core (the hardware) and per CPU (the driver).
#[derive(Clone, Debug)]
pub struct HwpState {
    pub cores: Vec<HwpCore>,
    pub cpus: Vec<HwpCpu>,
    /// Each core's parameters (its cluster's [`HwpSpec`]), looked up once: every frequency
    /// update of an HWP machine reads them.
    specs: Vec<HwpSpec>,
}

impl HwpState {
    pub fn new(topo: &Topology) -> HwpState {
        let ncores = topo.cores.len();
        let specs = (0..ncores)
            .map(|core| {
                let cpu = topo.core_cpus.get(core).next().unwrap_or(0);
                topo.spec.clusters[topo.cpus[cpu].cluster].hwp
            })
            .collect();
        HwpState {
            cores: vec![HwpCore::default(); ncores],
            cpus: vec![HwpCpu::default(); topo.nr_cpus()],
            specs,
        }
    }
}

/// Why the core runs at what it asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HwpReason {
    /// The autonomous ramp from the core's own activity.
    Ramp,
    /// A thread's HWP min, raised by `intel_pstate_hwp_boost_up()`, is above the ramp.
    DynamicBoost,
}

/// One HWP evaluation of a core, for the decision log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HwpPick {
    pub core: usize,
    /// The core's activity now, in 1/1024.
    pub activity: u64,
    /// What the ramp alone gives.
    pub ramp_khz: u32,
    /// The highest HWP min of the core's threads.
    pub floor_khz: u32,
    /// What the core asks for: the ramp, at least the floor, at most HWP max.
    pub requested_khz: u32,
    /// The core's clock domain.
    pub fd: usize,
    pub reason: HwpReason,
}

impl HwpPick {
    /// What the core gets: the request capped by the turbo bin of the package's active cores
    /// now. Read on demand: the governor's update needs only the request (the clock applies the
    /// cap itself), and the cap is a lookup in the package's bin table.
    pub fn granted_khz(&self, w: &World) -> u32 {
        self.requested_khz.min(w.hw_max_khz(self.fd))
    }

    /// The turbo bin of the package's active cores is below the request.
    pub fn turbo_capped(&self, w: &World) -> bool {
        self.granted_khz(w) < self.requested_khz
    }
}

impl World {
    fn hwp_spec(&self, core: usize) -> &HwpSpec {
        &self.hwp.specs[core]
    }

    fn hwp_activity(&self, core: usize, busy: bool) -> u64 {
        self.hwp_activity_of(core, busy, self.hwp_spec(core))
    }

    /// [`World::hwp_activity`] with the core's spec already at hand.
    fn hwp_activity_of(&self, core: usize, busy: bool, spec: &HwpSpec) -> u64 {
        let half_life = spec.activity_half_life_us * 1000;
        let c = self.hwp.cores[core];
        activity_after(c.activity, busy, self.now - c.since, half_life)
    }

    /// Core `core` just changed between busy and idle (`was_busy` before): integrate its activity
    /// up to now with the state it had.
    pub(crate) fn hwp_core_transition(&mut self, core: usize, was_busy: bool) {
        if self.config.governor != Governor::Hwp {
            return;
        }
        let activity = self.hwp_activity(core, was_busy);
        self.hwp.cores[core] = HwpCore {
            activity,
            since: self.now,
        };
    }

    /// (min, guaranteed = P1, max) of `cpu`'s HWP request and capabilities, in P-state ratios:
    /// `hwp_req_cached`'s min and max, `HWP_GUARANTEED_PERF(hwp_cap_cached)`.
    fn hwp_limits(&self, cpu: usize) -> (u32, u32, u32) {
        let dom = &self.topo.freq_domains[self.topo.cpus[cpu].freq_domain];
        (
            dom.min_khz() / PSTATE_SCALING_KHZ,
            dom.reference_khz() / PSTATE_SCALING_KHZ,
            dom.peak_khz() / PSTATE_SCALING_KHZ,
        )
    }

    /// `intel_pstate_update_util_hwp()` (v4.18-v6.8), the hook `cpufreq_update_util()` calls when
    /// `hwp_boost` is on: the flags accumulate; on the CPU itself (`local`),
    /// `intel_pstate_update_util_hwp_local()` runs. Call it with `iowait` when the update carries
    /// SCHED_CPUFREQ_IOWAIT (`enqueue_task_fair()` of a task with `in_iowait`).
    /// Without `hwp_dynamic_boost` no hook is installed and this does nothing.
    pub fn hwp_update_util(&mut self, cpu: usize, iowait: bool, local: bool) {
        if !self.config.hwp_dynamic_boost {
            return;
        }
        let now = self.now;
        let two_ticks = 2 * self.tick_ns;
        let c = &mut self.hwp.cpus[cpu];
        c.sched_flags_iowait |= iowait;
        if !local {
            return;
        }
        c.sample_time = now;
        if c.sched_flags_iowait {
            c.sched_flags_iowait = false;
            // Two IOWAIT updates within two ticks make a boost candidate.
            let do_io = now < c.last_io_update + two_ticks;
            c.last_io_update = now;
            if do_io {
                self.hwp_boost_up(cpu);
            }
        } else {
            self.hwp_boost_down(cpu);
        }
    }

    /// `intel_pstate_hwp_boost_up()` (v4.18-v6.8): the thread's HWP min goes one level up:
    /// (min + P1) / 2, P1, then max (P0, the highest performance); nothing when min == max or the
    /// boost is at max already. Only a change restarts the hold clock.
    fn hwp_boost_up(&mut self, cpu: usize) {
        let (min_limit, guaranteed, max_limit) = self.hwp_limits(cpu);
        let c = &mut self.hwp.cpus[cpu];
        if max_limit == min_limit || c.boost_min >= max_limit {
            return;
        }
        if c.boost_min == 0 {
            c.boost_min = min_limit;
        }
        let level1 = (guaranteed + min_limit) >> 1;
        if c.boost_min < level1 {
            c.boost_min = level1;
        } else if c.boost_min < guaranteed {
            c.boost_min = guaranteed;
        } else if c.boost_min == guaranteed && max_limit != guaranteed {
            c.boost_min = max_limit;
        } else {
            return;
        }
        c.last_update = c.sample_time;
    }

    /// `intel_pstate_hwp_boost_down()` (v4.18-v6.8): a boost is dropped when this update comes more
    /// than `hwp_boost_hold_time_ns` after the previous one ("idle for hold time"); every call
    /// restarts the clock.
    fn hwp_boost_down(&mut self, cpu: usize) {
        let c = &mut self.hwp.cpus[cpu];
        if c.boost_min != 0 && c.sample_time > c.last_update + HWP_BOOST_HOLD_TIME_NS {
            c.boost_min = 0;
        }
        c.last_update = c.sample_time;
    }

    /// The highest P-state of `fd` at or below `khz` (OPPs, then 100 MHz ratios up to the peak),
    /// else the lowest: a search of [`FreqDomain::pstates`], which holds those P-states sorted.
    ///
    /// [`FreqDomain::pstates`]: crate::topology::FreqDomain::pstates
    fn hwp_pstate_at_or_below(&self, fd: usize, khz: u64) -> u32 {
        let dom = &self.topo.freq_domains[fd];
        dom.pstates().at_or_below(khz, dom.min_khz())
    }

    /// The hardware's choice for `cpu`'s core now (see the module doc), with its parts. Each
    /// input is read once (the core's spec, its domain's limits): this runs on every
    /// `cpufreq_update_util()` of an HWP machine.
    pub fn hwp_pick(&self, cpu: usize) -> HwpPick {
        let core = self.topo.cpus[cpu].core;
        let fd = self.topo.cpus[cpu].freq_domain;
        let dom = &self.topo.freq_domains[fd];
        let (lo, hi) = (dom.min_khz(), dom.peak_khz());
        let spec = self.hwp_spec(core);
        let activity = self.hwp_activity_of(core, self.core_busy(core), spec);
        let target = spec.target_activity(self.config.hwp_epp);
        let level = (activity * 1024 / target).min(ACT_ONE);
        let ramp = lo as u64 + (((hi - lo) as u64 * level) >> 30);
        let ramp_khz = self.hwp_pstate_at_or_below(fd, ramp);
        // hwp_limits()'s min: `cpu`'s domain is `fd`.
        let min_limit = lo / PSTATE_SCALING_KHZ;
        let floor_ratio = (self.topo.core_cpus.get(core))
            .map(|t| self.hwp.cpus[t].boost_min.max(min_limit))
            .max()
            .unwrap_or(min_limit);
        let floor_khz = (floor_ratio.saturating_mul(PSTATE_SCALING_KHZ)).clamp(lo, hi);
        let requested_khz = ramp_khz.max(floor_khz).min(hi);
        HwpPick {
            core,
            activity: activity >> 20,
            ramp_khz,
            floor_khz,
            requested_khz,
            fd,
            reason: if floor_khz > ramp_khz {
                HwpReason::DynamicBoost
            } else {
                HwpReason::Ramp
            },
        }
    }
}

#[cfg(test)]
#[path = "hwp_tests.rs"]
mod tests;
