//! x86 frequency invariance as `arch_scale_freq_tick()` computes it (arch/x86/kernel/smpboot.c,
//! v5.7+; the `x86-freq-invariance` patch on v5.2): at each tick of a CPU, `arch_freq_scale` =
//! (APERF delta << 2 * SCHED_CAPACITY_SHIFT) / (MPERF delta * `arch_max_freq_ratio`), clamped to
//! 1024. APERF counts at the delivered frequency and MPERF at the base frequency, both only in
//! C0, so the ratio is the CPU's average frequency while busy over the last tick. The scale then
//! holds until the CPU's next tick: a CPU whose tick is stopped (NO_HZ idle) keeps a stale one.
//!
//! The counters are modelled as per-CPU accumulators of (kHz x busy ns) and busy ns, advanced
//! when the CPU's busy state or its clock's frequency changes: no scan. The same counters, never
//! reset, give a run's average busy frequency (turbostat's `Bzy_MHz` = base x APERF / MPERF),
//! whatever the kernel does with them.

use crate::kernel::FreqInvarianceMax;
use crate::sched::World;
use crate::units::Nanos;

/// One CPU's APERF/MPERF since its last tick.
#[derive(Clone, Copy, Debug)]
pub struct FreqTick {
    /// When the accumulators were last advanced.
    pub mark: Nanos,
    /// APERF's stand-in: kHz x ns of busy time since the last tick.
    pub khz_ns: u128,
    /// MPERF's stand-in: busy ns since the last tick.
    pub busy_ns: u64,
    /// `arch_freq_scale` (`per_cpu(arch_freq_scale)`, SCHED_CAPACITY_SCALE at boot).
    pub scale: u64,
    /// APERF and MPERF since the start of the run (kHz x busy ns, busy ns), as turbostat reads
    /// them.
    pub total_khz_ns: u128,
    pub total_busy_ns: u64,
}

impl Default for FreqTick {
    fn default() -> FreqTick {
        FreqTick {
            mark: 0,
            khz_ns: 0,
            busy_ns: 0,
            scale: 1024,
            total_khz_ns: 0,
            total_busy_ns: 0,
        }
    }
}

impl World {
    /// Advances `cpu`'s counters to now at its current busy state and frequency. Call before
    /// either changes.
    pub(crate) fn freq_tick_account(&mut self, cpu: usize) {
        let khz = self.clocks[self.topo.cpus[cpu].freq_domain].cur_khz as u64;
        let busy = self.busy_since[cpu].is_some();
        let now = self.now;
        let ft = &mut self.freq_tick[cpu];
        let dt = now.saturating_sub(ft.mark);
        if busy {
            // Exact 128-bit product without a 128-bit multiply (a call in wasm32).
            let khz_ns = crate::math64::mul_u64_u64_wide(dt, khz);
            ft.khz_ns += khz_ns;
            ft.busy_ns += dt;
            ft.total_khz_ns += khz_ns;
            ft.total_busy_ns += dt;
        }
        ft.mark = now;
    }

    /// APERF and MPERF of all CPUs since the start of the run, up to now: (kHz x busy ns, busy ns).
    /// Once per run (a scan of the CPUs).
    pub fn aperf_mperf_totals(&mut self) -> (u128, u64) {
        let mut totals = (0u128, 0u64);
        for cpu in 0..self.nr_cpus() {
            self.freq_tick_account(cpu);
            totals.0 += self.freq_tick[cpu].total_khz_ns;
            totals.1 += self.freq_tick[cpu].total_busy_ns;
        }
        totals
    }

    /// `arch_scale_freq_tick()` on `cpu`'s tick: the scale from the average busy frequency since
    /// the last tick, normalised as `freq_scale` does (x86: `arch_max_freq_ratio` from 100 MHz
    /// ratios). With no busy time (MPERF did not move) the kernel keeps the old value.
    pub fn arch_scale_freq_tick(&mut self, cpu: usize) {
        if !self.config.freq_scale_tick {
            return;
        }
        self.freq_tick_account(cpu);
        let fd = self.topo.cpus[cpu].freq_domain;
        let ft = self.freq_tick[cpu];
        if ft.busy_ns > 0 {
            let scale = match self.config.freq_invariance_max {
                FreqInvarianceMax::PolicyMax => {
                    (ft.khz_ns * 1024)
                        / (ft.busy_ns as u128 * self.freq_invariance_max_khz(fd).max(1) as u128)
                }
                FreqInvarianceMax::TurboGroup { .. } => {
                    let (base_khz, ratio) = self.arch_max_freq_ratio(fd);
                    (ft.khz_ns << 20) / (ft.busy_ns as u128 * base_khz as u128 * ratio as u128)
                }
            };
            if scale > 0 {
                self.freq_tick[cpu].scale = (scale as u64).min(1024);
            }
        }
        let ft = &mut self.freq_tick[cpu];
        ft.khz_ns = 0;
        ft.busy_ns = 0;
    }
}
