//! Per-entity load tracking, in the kernel's fixed-point arithmetic (kernel/sched/pelt.c, v5.7;
//! constants from the generated kernel/sched/sched-pelt.h).
//!
//! Time is cut into 1024 us periods (the kernel counts in units of 1024 ns); a contribution `p`
//! periods old weighs y^p with y^32 = 1/2. Sums are decayed with [`decay_load`] and averaged with the
//! v5.7+ divider `LOAD_AVG_MAX - 1024 + period_contrib`.
//!
//! Both invariance styles are here (kernel-facts.md §1.3): with [`Scale::Time`] the caller passes a
//! clock that already runs slower on small or slow CPUs (`rq_clock_pelt()`, v5.1+) and contributions
//! are not scaled; with [`Scale::Contribution`] each contribution is multiplied by the frequency and
//! CPU scale factors as v4.9-v5.0 `__update_load_avg()`/`accumulate_sum()` did. Simplification: the
//! pre-v4.17 three-segment loop (`__compute_runnable_contrib`) is expressed with the v4.17+
//! `__accumulate_pelt_segments()`. Only that split is the same series (in real arithmetic; the
//! integer roundings differ): v4.9's `__update_load_avg()` also divides its averages by
//! `LOAD_AVG_MAX` rather than by the divider above, so v4.9's arithmetic is not this one
//! (fidelity-review F13).

use crate::units::SCHED_CAPACITY_SHIFT;

/// `LOAD_AVG_PERIOD`: the half-life in periods.
pub const LOAD_AVG_PERIOD: u64 = 32;
/// `LOAD_AVG_MAX`: the truncated-integer limit of 1024 * sum(y^n).
pub const LOAD_AVG_MAX: u64 = 47742;
/// `PELT_MIN_DIVIDER`.
pub const PELT_MIN_DIVIDER: u64 = LOAD_AVG_MAX - 1024;

/// `runnable_avg_yN_inv[n]` = y^n * 2^32, as Documentation/scheduler/sched-pelt.c generates it.
pub const RUNNABLE_AVG_YN_INV: [u32; 32] = [
    0xffffffff, 0xfa83b2da, 0xf5257d14, 0xefe4b99a, 0xeac0c6e6, 0xe5b906e6, 0xe0ccdeeb, 0xdbfbb796,
    0xd744fcc9, 0xd2a81d91, 0xce248c14, 0xc9b9bd85, 0xc5672a10, 0xc12c4cc9, 0xbd08a39e, 0xb8fbaf46,
    0xb504f333, 0xb123f581, 0xad583ee9, 0xa9a15ab4, 0xa5fed6a9, 0xa2704302, 0x9ef5325f, 0x9b8d39b9,
    0x9837f050, 0x94f4efa8, 0x91c3d373, 0x8ea4398a, 0x8b95c1e3, 0x88980e80, 0x85aac367, 0x82cd8698,
];

/// `struct sched_avg`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SchedAvg {
    /// In ns of the clock the caller passes (a multiple of 1024 ns after an update).
    pub last_update_time: u64,
    pub load_sum: u64,
    pub runnable_sum: u64,
    pub util_sum: u64,
    pub period_contrib: u64,
    pub load_avg: u64,
    pub runnable_avg: u64,
    pub util_avg: u64,
}

/// How contributions are made invariant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// v5.1+: the clock passed in is already scaled; contributions are not.
    Time,
    /// v4.9-v5.0: scale each contribution by `freq` (load, runnable and util) and `cpu` (util only),
    /// both in 1/1024.
    Contribution { freq: u64, cpu: u64 },
}

/// `decay_load()`: `val * y^n`.
pub fn decay_load(mut val: u64, n: u64) -> u64 {
    if n > LOAD_AVG_PERIOD * 63 {
        return 0;
    }
    let mut local_n = n;
    if local_n >= LOAD_AVG_PERIOD {
        val >>= local_n / LOAD_AVG_PERIOD;
        local_n %= LOAD_AVG_PERIOD;
    }
    // mul_u64_u32_shr(val, runnable_avg_yN_inv[local_n], 32)
    ((val as u128 * RUNNABLE_AVG_YN_INV[local_n as usize] as u128) >> 32) as u64
}

/// `__accumulate_pelt_segments()`: d1 * y^p + 1024 * sum(y^n, n=1..p-1) + d3.
fn accumulate_pelt_segments(periods: u64, d1: u64, d3: u64) -> u64 {
    let c1 = decay_load(d1, periods);
    let c2 = LOAD_AVG_MAX - decay_load(LOAD_AVG_MAX, periods) - 1024;
    c1 + c2 + d3
}

/// `cap_scale(v, s)`: `v * s >> SCHED_CAPACITY_SHIFT`.
pub fn cap_scale(v: u64, s: u64) -> u64 {
    (v * s) >> SCHED_CAPACITY_SHIFT
}

impl SchedAvg {
    /// `get_pelt_divider()`.
    pub fn divider(&self) -> u64 {
        PELT_MIN_DIVIDER + self.period_contrib
    }

    /// `accumulate_sum()`; `delta` in 1024 ns units. Returns the number of periods crossed.
    fn accumulate_sum(
        &mut self,
        delta: u64,
        load: u64,
        runnable: u64,
        running: bool,
        scale: Scale,
    ) -> u64 {
        let mut contrib = delta; // periods == 0 -> delta < 1024
        let delta = delta + self.period_contrib;
        let periods = delta / 1024;
        let rem = delta % 1024;
        if periods > 0 {
            self.load_sum = decay_load(self.load_sum, periods);
            self.runnable_sum = decay_load(self.runnable_sum, periods);
            self.util_sum = decay_load(self.util_sum, periods);
            if load > 0 {
                contrib = accumulate_pelt_segments(periods, 1024 - self.period_contrib, rem);
            }
        }
        self.period_contrib = rem;
        match scale {
            Scale::Time => {
                self.load_sum += load * contrib;
                self.runnable_sum += (runnable * contrib) << SCHED_CAPACITY_SHIFT;
                if running {
                    self.util_sum += contrib << SCHED_CAPACITY_SHIFT;
                }
            }
            Scale::Contribution { freq, cpu } => {
                let scaled = cap_scale(contrib, freq);
                self.load_sum += load * scaled;
                self.runnable_sum += (runnable * scaled) << SCHED_CAPACITY_SHIFT;
                if running {
                    self.util_sum += scaled * cpu;
                }
            }
        }
        periods
    }

    /// `___update_load_sum()`: accumulate from `last_update_time` to `now` (ns) with the inputs that
    /// held over that time. Returns true when a period boundary was crossed (the averages are due).
    pub fn update_load_sum(
        &mut self,
        now: u64,
        load: u64,
        runnable: u64,
        running: bool,
        scale: Scale,
    ) -> bool {
        if now < self.last_update_time {
            self.last_update_time = now;
            return false;
        }
        let delta = (now - self.last_update_time) >> 10;
        if delta == 0 {
            return false;
        }
        self.last_update_time += delta << 10;
        let (runnable, running) = if load == 0 {
            (0, false)
        } else {
            (runnable, running)
        };
        self.accumulate_sum(delta, load, runnable, running, scale) > 0
    }

    /// `___update_load_avg()`: `load` is the entity weight (`se_weight()`, 1 for a cfs_rq).
    pub fn update_load_avg(&mut self, load: u64) {
        let divider = self.divider();
        self.load_avg = load * self.load_sum / divider;
        self.runnable_avg = self.runnable_sum / divider;
        self.util_avg = self.util_sum / divider;
    }

    /// Both steps, as `__update_load_avg_se()` / `__update_load_avg_cfs_rq()` do.
    pub fn update(
        &mut self,
        now: u64,
        weight: u64,
        load: u64,
        runnable: u64,
        running: bool,
        scale: Scale,
    ) -> bool {
        if self.update_load_sum(now, load, runnable, running, scale) {
            self.update_load_avg(weight);
            true
        } else {
            false
        }
    }
}

/// `update_rq_clock_pelt()` (pelt.h, v5.1+): while busy, the PELT clock advances by
/// `delta * cpu_scale/1024 * freq_scale/1024`; an idle CPU's clock is synced to `clock_task`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClockPelt {
    pub clock_pelt: u64,
    pub clock_task: u64,
    /// `rq->lost_idle_time`: idle time not credited because util_sum was saturated.
    pub lost_idle_time: u64,
}

impl ClockPelt {
    /// Advance to `now` (clock_task) having been busy (or idle) since the last call.
    pub fn update(&mut self, now: u64, busy: bool, cpu_scale: u64, freq_scale: u64) {
        let delta = now.saturating_sub(self.clock_task);
        self.clock_task = now;
        if !busy {
            self.clock_pelt = now;
            return;
        }
        self.clock_pelt += cap_scale(cap_scale(delta, cpu_scale), freq_scale);
    }

    /// `update_idle_rq_clock_pelt()`: called when the CPU goes idle; if the rq's util_sum is
    /// saturated, the time the scaled clock lags behind is lost idle time, not idle time.
    pub fn going_idle(&mut self, rq_util_sum: u64) {
        let divider = ((LOAD_AVG_MAX - 1024) << SCHED_CAPACITY_SHIFT) - LOAD_AVG_MAX;
        if rq_util_sum >= divider {
            self.lost_idle_time += self.clock_task.saturating_sub(self.clock_pelt);
        }
        self.clock_pelt = self.clock_task;
    }

    /// `rq_clock_pelt()`.
    pub fn now(&self) -> u64 {
        self.clock_pelt - self.lost_idle_time.min(self.clock_pelt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decay_table_matches_the_kernels_generator() {
        // Documentation/scheduler/sched-pelt.c: ((1UL<<32)-1) * pow(y, i), y = 0.5^(1/32).
        let y = 0.5f64.powf(1.0 / 32.0);
        for (i, &v) in RUNNABLE_AVG_YN_INV.iter().enumerate() {
            let x = (((1u64 << 32) - 1) as f64 * y.powi(i as i32)) as u64;
            assert_eq!(v as u64, x, "entry {i}");
        }
    }

    #[test]
    fn load_avg_max_is_the_generators_converged_sum() {
        // calc_converged_max(): max = (max * y_inv >> 32) + 1024 until it stops changing.
        let y_inv = (((1u64 << 32) - 1) as f64 * 0.5f64.powf(1.0 / 32.0)) as u64;
        let (mut max, mut last) = (0u64, u64::MAX);
        while last != max {
            last = max;
            max = ((max * y_inv) >> 32) + 1024;
        }
        assert_eq!(max, LOAD_AVG_MAX);
    }

    #[test]
    fn decay_load_halves_every_32_periods_in_fixed_point() {
        assert_eq!(decay_load(1024, 0), 1023); // 0xffffffff is just below 1.0
        assert_eq!(decay_load(1024, 32), 511);
        assert_eq!(decay_load(1 << 20, 64), (1 << 18) - 1);
        assert_eq!(decay_load(u32::MAX as u64, 32 * 63 + 1), 0);
    }

    /// A task that runs from t=0, updated every ms like a tick would.
    fn run_for(ms: u64, scale: Scale, clock_rate: (u64, u64)) -> SchedAvg {
        let mut sa = SchedAvg::default();
        let mut clk = ClockPelt::default();
        for t in 1..=ms {
            clk.update(t * 1_000_000, true, clock_rate.0, clock_rate.1);
            let now = if scale == Scale::Time {
                clk.now()
            } else {
                t * 1_000_000
            };
            sa.update(now, 1024, 1, 1, true, scale);
        }
        sa
    }

    #[test]
    fn step_response_of_an_always_running_task() {
        // util(t) follows 1024 * (1 - y^(t / 1.024 ms)) within a few percent: the divider (LOAD_AVG_MAX - 1024 +
        // period_contrib, not the analytic 47788) makes the fixed point run up to ~2.5% high, and
        // the partial first period a little low.
        let y = 0.5f64.powf(1.0 / 32.0);
        for ms in [4u64, 8, 16, 32, 64, 100, 200, 345] {
            let got = run_for(ms, Scale::Time, (1024, 1024)).util_avg as f64;
            let ideal = 1024.0 * (1.0 - y.powf(ms as f64 / 1.024));
            assert!(
                got >= ideal * 0.97 - 2.0 && got <= ideal * 1.025 + 2.0,
                "{ms} ms: {got} vs {ideal}"
            );
        }
        let sat = run_for(1000, Scale::Time, (1024, 1024));
        assert!((1018..=1024).contains(&sat.util_avg), "{}", sat.util_avg);
        assert!((1018..=1024).contains(&sat.load_avg));
        assert!((1018..=1024).contains(&sat.runnable_avg));
    }

    #[test]
    fn invariance_styles_differ_on_a_little_cpu() {
        // capacity 462 at max frequency: scaling contributions caps util at ~462 (pre-v5.1)...
        let old = run_for(
            1000,
            Scale::Contribution {
                freq: 1024,
                cpu: 462,
            },
            (1024, 1024),
        );
        assert!((455..=462).contains(&old.util_avg), "{}", old.util_avg);
        // ...scaling time lets it reach ~1024, more slowly (v5.1+).
        let new_early = run_for(100, Scale::Time, (462, 1024));
        let new_late = run_for(3000, Scale::Time, (462, 1024));
        assert!(new_early.util_avg < run_for(100, Scale::Time, (1024, 1024)).util_avg);
        assert!(new_late.util_avg >= 1018, "{}", new_late.util_avg);
    }

    #[test]
    fn idle_entity_decays_and_sum_matches_average() {
        let mut sa = run_for(200, Scale::Time, (1024, 1024));
        let before = sa.util_avg;
        sa.update(200_000_000 + 32 * 1_024_000, 1024, 0, 0, false, Scale::Time);
        assert!(
            (sa.util_avg as i64 - before as i64 / 2).abs() <= 8,
            "{} vs {}",
            sa.util_avg,
            before
        );
    }

    #[test]
    fn saturated_clock_records_lost_idle_time() {
        let mut clk = ClockPelt::default();
        clk.update(10_000_000, true, 512, 1024);
        assert_eq!(clk.clock_pelt, 5_000_000);
        clk.going_idle(LOAD_AVG_MAX << 10);
        assert_eq!(clk.lost_idle_time, 5_000_000);
        assert_eq!(clk.now(), 5_000_000);
        let mut clk2 = ClockPelt::default();
        clk2.update(10_000_000, true, 512, 1024);
        clk2.going_idle(0);
        assert_eq!(clk2.now(), 10_000_000);
    }
}
