//! Per-entity load tracking, in the kernel's fixed-point arithmetic (kernel/sched/pelt.c, v5.7;
//! constants from the generated kernel/sched/sched-pelt.h), and the older integer paths of fair.c.
//!
//! Time is cut into 1024 us periods (the kernel counts in units of 1024 ns); a contribution `p`
//! periods old weighs y^p with y^32 = 1/2. Sums are decayed with [`decay_load`] and averaged with the
//! v4.15+ divider `LOAD_AVG_MAX - 1024 + period_contrib`.
//!
//! Both invariance styles are here (kernel-facts.md §1.3): with [`Scale::Time`] the caller passes a
//! clock that already runs slower on small or slow CPUs (`rq_clock_pelt()`, v5.1+) and contributions
//! are not scaled; with [`Scale::Contribution`] each contribution is multiplied by the frequency and
//! CPU scale factors as v4.9-v5.0 `__update_load_avg()`/`accumulate_sum()` did.
//!
//! The integer path is an era switch ([`PeltUpdate`]): the v4.9-v4.11 three segments with
//! `__compute_runnable_contrib()`, the v4.12-v4.14 `accumulate_sum()` still dividing by
//! `LOAD_AVG_MAX`, and the v4.15+ form. The series are the same in real arithmetic, but not to the
//! last integer. Before v4.15 the weight is folded into `load_sum` (`load_avg = load_sum /
//! LOAD_AVG_MAX`); from v4.15 `load_sum` counts runnable time and the weight is applied when averaging.
//!
//! The `runnable_*` signal (nr_running-weighted, v5.7+) has no counterpart in the older kernels
//! (their `runnable_load_avg` is the load of the queued tasks); it is kept with the era's arithmetic
//! so that the code reading it needs no special case.

pub use crate::kernel::PeltUpdate;
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
pub fn decay_load(val: u64, n: u64) -> u64 {
    Decay::by(n).apply(val)
}

/// [`decay_load`] for one `n`, taken apart so that the values `accumulate_sum()` decays by the
/// same number of periods (its three sums, `d1` and `LOAD_AVG_MAX`) share the work on `n`: the
/// same arithmetic, value for value.
#[derive(Clone, Copy)]
struct Decay {
    /// `n > LOAD_AVG_PERIOD * 63`: the value decays to 0.
    to_zero: bool,
    /// Whole half-lives, `n / LOAD_AVG_PERIOD`.
    halvings: u32,
    /// `runnable_avg_yN_inv[n % LOAD_AVG_PERIOD]`.
    inv: u32,
}

impl Decay {
    #[inline(always)]
    fn by(n: u64) -> Decay {
        Decay {
            to_zero: n > LOAD_AVG_PERIOD * 63,
            halvings: (n / LOAD_AVG_PERIOD).min(63) as u32,
            inv: RUNNABLE_AVG_YN_INV[(n % LOAD_AVG_PERIOD) as usize],
        }
    }

    #[inline(always)]
    fn apply(self, val: u64) -> u64 {
        if self.to_zero {
            return 0;
        }
        // 64-bit halves, as the kernel's generic helper: no 128-bit multiply (a call in wasm32).
        crate::math64::mul_u64_u32_shr(val >> self.halvings, self.inv, 32)
    }
}

/// v4.9 `decay_load()`: as [`decay_load`], except that `n == 0` returns `val` unchanged (v4.11 dropped
/// that shortcut, after which `y^0` is `0xffffffff / 2^32`).
pub fn decay_load_v4_9(val: u64, n: u64) -> u64 {
    if n == 0 {
        val
    } else {
        decay_load(val, n)
    }
}

/// `runnable_avg_yN_sum[n]` (v4.9 fair.c): floor(1024 * sum(y^k, k=1..n)), n = 0..32.
pub const RUNNABLE_AVG_YN_SUM: [u32; 33] = [
    0, 1002, 1982, 2941, 3880, 4798, 5697, 6576, 7437, 8279, 9103, 9909, 10698, 11470, 12226,
    12966, 13690, 14398, 15091, 15769, 16433, 17082, 17718, 18340, 18949, 19545, 20128, 20698,
    21256, 21802, 22336, 22859, 23371,
];

/// `__accumulated_sum_N32[n]` (v4.9 fair.c): the sum for n*32 periods, rounded down.
pub const ACCUMULATED_SUM_N32: [u32; 12] = [
    0, 23371, 35056, 40899, 43820, 45281, 46011, 46376, 46559, 46650, 46696, 46719,
];

/// `LOAD_AVG_MAX_N`: periods after which the v4.9 sum is taken as `LOAD_AVG_MAX`.
pub const LOAD_AVG_MAX_N: u64 = 345;

/// `__compute_runnable_contrib()` (v4.9-v4.11): 1024 * sum(y^k, k=1..n) from the two tables.
pub fn compute_runnable_contrib(n: u64) -> u64 {
    if n <= LOAD_AVG_PERIOD {
        return RUNNABLE_AVG_YN_SUM[n as usize] as u64;
    } else if n >= LOAD_AVG_MAX_N {
        return LOAD_AVG_MAX;
    }
    let contrib = ACCUMULATED_SUM_N32[(n / LOAD_AVG_PERIOD) as usize] as u64;
    let n = n % LOAD_AVG_PERIOD;
    decay_load_v4_9(contrib, n) + RUNNABLE_AVG_YN_SUM[n as usize] as u64
}

/// `__accumulate_pelt_segments()`: d1 * y^p + 1024 * sum(y^n, n=1..p-1) + d3, with `decay` y^p.
fn accumulate_pelt_segments(decay: Decay, d1: u64, d3: u64) -> u64 {
    let c1 = decay.apply(d1);
    let c2 = LOAD_AVG_MAX - decay.apply(LOAD_AVG_MAX) - 1024;
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
            let decay = Decay::by(periods);
            self.load_sum = decay.apply(self.load_sum);
            self.runnable_sum = decay.apply(self.runnable_sum);
            self.util_sum = decay.apply(self.util_sum);
            if load > 0 {
                contrib = accumulate_pelt_segments(decay, 1024 - self.period_contrib, rem);
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

    /// Both steps, as `__update_load_avg_se()` / `__update_load_avg_cfs_rq()` do (v4.15+), or the
    /// era's older path. `weight` is the entity's weight (`se_weight()`, 1 for a cfs_rq) and `load`
    /// what it is multiplied by (on_rq for a task, the queued weight for a cfs_rq).
    #[allow(clippy::too_many_arguments)]
    pub fn update(
        &mut self,
        now: u64,
        weight: u64,
        load: u64,
        runnable: u64,
        running: bool,
        scale: Scale,
        path: PeltUpdate,
    ) -> bool {
        match path {
            PeltUpdate::Accumulate => {
                if self.update_load_sum(now, load, runnable, running, scale) {
                    self.update_load_avg(weight);
                    true
                } else {
                    false
                }
            }
            PeltUpdate::AccumulateLoadAvgMax => {
                // v4.12 ___update_load_avg(): the weight goes into the sum, the divider is fixed.
                if self.update_load_sum(now, weight * load, runnable, running, scale) {
                    self.average_by_load_avg_max();
                    true
                } else {
                    false
                }
            }
            PeltUpdate::Segments => {
                self.update_segments(now, weight * load, runnable, running, scale)
            }
        }
    }

    /// The pre-v4.15 averages: each sum divided by `LOAD_AVG_MAX` (`div_u64(sa->load_sum,
    /// LOAD_AVG_MAX)`, `sa->util_sum / LOAD_AVG_MAX`).
    fn average_by_load_avg_max(&mut self) {
        self.load_avg = self.load_sum / LOAD_AVG_MAX;
        self.runnable_avg = self.runnable_sum / LOAD_AVG_MAX;
        self.util_avg = self.util_sum / LOAD_AVG_MAX;
    }

    /// One scaled segment into the sums: `weight * scaled` to load, `scaled * scale_cpu` to util
    /// when running.
    fn add_segment(&mut self, load: u64, runnable: u64, running: bool, scaled: u64, cpu: u64) {
        if load > 0 {
            self.load_sum += load * scaled;
            self.runnable_sum += (runnable * scaled) << SCHED_CAPACITY_SHIFT;
        }
        if running {
            self.util_sum += scaled * cpu;
        }
    }

    /// v4.9-v4.11 `__update_load_avg()` (v4.9 fair.c:2790). `load` is the weight times on_rq
    /// (`se->on_rq * scale_load_down(se->load.weight)`, or the cfs_rq's queued weight).
    fn update_segments(
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
        let mut delta = (now - self.last_update_time) >> 10;
        if delta == 0 {
            return false;
        }
        // Not advanced in whole units: the sub-1024 ns remainder is lost (fixed in v4.12).
        self.last_update_time = now;
        let (runnable, running) = if load == 0 {
            (0, false)
        } else {
            (runnable, running)
        };
        let (freq, cpu) = match scale {
            Scale::Time => (1024, 1024),
            Scale::Contribution { freq, cpu } => (freq, cpu),
        };
        let mut decayed = false;
        if delta + self.period_contrib >= 1024 {
            decayed = true;
            // The rest of the open period, accrued before the decay.
            let delta_w = 1024 - self.period_contrib;
            self.period_contrib = 0;
            self.add_segment(load, runnable, running, cap_scale(delta_w, freq), cpu);
            delta -= delta_w;
            let periods = delta / 1024;
            delta %= 1024;
            self.load_sum = decay_load_v4_9(self.load_sum, periods + 1);
            self.runnable_sum = decay_load_v4_9(self.runnable_sum, periods + 1);
            self.util_sum = decay_load_v4_9(self.util_sum, periods + 1);
            // The full periods in between.
            let contrib = cap_scale(compute_runnable_contrib(periods), freq);
            self.add_segment(load, runnable, running, contrib, cpu);
        }
        // The remainder, against the new open period.
        self.add_segment(load, runnable, running, cap_scale(delta, freq), cpu);
        self.period_contrib += delta;
        if decayed {
            self.average_by_load_avg_max();
        }
        decayed
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

    /// `decay_load()` as fair.c has it (v4.11+): 0 past 63 half-lives, else `val >>= n / 32` and the
    /// 128-bit product with `runnable_avg_yN_inv[n % 32]`. [`Decay`] gives the same value for
    /// every `n` around each boundary and values up to a sum's largest.
    #[test]
    fn decay_load_equals_fair_c_for_every_period_count() {
        fn kernel(mut val: u64, n: u64) -> u64 {
            if n > LOAD_AVG_PERIOD * 63 {
                return 0;
            }
            if n >= LOAD_AVG_PERIOD {
                val >>= n / LOAD_AVG_PERIOD;
            }
            ((val as u128 * RUNNABLE_AVG_YN_INV[(n % LOAD_AVG_PERIOD) as usize] as u128) >> 32)
                as u64
        }
        let vals = [
            0,
            1,
            1023,
            LOAD_AVG_MAX,
            88761 * 1024 * 1024,
            u64::MAX >> 1,
            u64::MAX,
        ];
        for n in (0..=2100).chain([4096, 1 << 40, u64::MAX]) {
            for &v in &vals {
                assert_eq!(decay_load(v, n), kernel(v, n), "decay_load({v}, {n})");
            }
        }
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
            sa.update(now, 1024, 1, 1, true, scale, PeltUpdate::Accumulate);
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
        sa.update(
            200_000_000 + 32 * 1_024_000,
            1024,
            0,
            0,
            false,
            Scale::Time,
            PeltUpdate::Accumulate,
        );
        assert!(
            (sa.util_avg as i64 - before as i64 / 2).abs() <= 8,
            "{} vs {}",
            sa.util_avg,
            before
        );
    }

    #[test]
    fn v4_9_runnable_contrib_comes_from_its_two_tables() {
        // __compute_runnable_contrib(): n <= 32 straight from runnable_avg_yN_sum; above, the
        // 32-period sums decayed by n % 32 plus the rest.
        assert_eq!(compute_runnable_contrib(0), 0);
        assert_eq!(compute_runnable_contrib(32), 23371);
        // 36: decay_load(23371, 4) = 23371 * 0xeac0c6e6 >> 32 = 21431, + yN_sum[4] 3880.
        assert_eq!(compute_runnable_contrib(36), 25311);
        // 64: v4.9's decay_load(35056, 0) returns 35056 (v4.11+ would give 35055).
        assert_eq!(compute_runnable_contrib(64), 35056);
        assert_eq!(decay_load(35056, 0), 35055);
        assert_eq!(compute_runnable_contrib(345), LOAD_AVG_MAX);
    }

    /// A nice-0 task (weight 1024) updated four times through v4.9 `__update_load_avg()`, every
    /// intermediate value worked out by hand from the kernel's formulas and tables (v4.9 fair.c:2790).
    #[test]
    fn v4_9_update_is_the_three_segment_path_bit_for_bit() {
        let seg = PeltUpdate::Segments;
        let full = Scale::Contribution {
            freq: 1024,
            cpu: 1024,
        };
        let slow = Scale::Contribution {
            freq: 700,
            cpu: 430,
        };
        let mut sa = SchedAvg::default();
        let state = |sa: &SchedAvg| {
            (
                sa.load_sum,
                sa.util_sum,
                sa.period_contrib,
                sa.load_avg,
                sa.util_avg,
                sa.last_update_time,
            )
        };
        // 1) runnable and running 0 -> 2 ms: delta = 2000000 >> 10 = 1953, period_contrib 0.
        //    delta_w = 1024, scaled 1024: sums 1024 * 1024 = 1048576; delta = 929, periods 0;
        //    decay by 1: 1048576 * 0xfa83b2da >> 32 = 1026107; contrib yN_sum[0] = 0; remainder
        //    929: + 1024 * 929 = 1977403. period_contrib 929; avg 1977403 / 47742 = 41.
        //    last_update_time = now, not 1953 << 10 = 1999872.
        assert!(sa.update(2_000_000, 1024, 1, 1, true, full, seg));
        assert_eq!(state(&sa), (1977403, 1977403, 929, 41, 41, 2_000_000));
        // 2) 2 -> 40 ms at freq 700, cpu 430: delta = 38000000 >> 10 = 37109.
        //    delta_w = 1024 - 929 = 95, cap_scale(95, 700) = 64: load + 1024 * 64 = 2042939,
        //    util + 64 * 430 = 2004923; delta = 37014, periods 36, delta 150;
        //    decay by 37 (>> 1, then y^5): load 916619, util 899562;
        //    contrib(36) = 25311, cap_scale -> 17302: load + 1024 * 17302 = 18633867,
        //    util + 17302 * 430 = 8339422; remainder cap_scale(150, 700) = 102: load 18738315,
        //    util 8383282; period_contrib 150; avgs 392 and 175.
        assert!(sa.update(40_000_000, 1024, 1, 1, true, slow, seg));
        assert_eq!(state(&sa), (18738315, 8383282, 150, 392, 175, 40_000_000));
        // 3) 0.5 ms more: delta 488, 150 + 488 < 1024: only the remainder, cap_scale(488, 700) =
        //    333: load 19079307, util 8526472; no period crossed, so the averages stay.
        assert!(!sa.update(40_500_000, 1024, 1, 1, true, slow, seg));
        assert_eq!(state(&sa), (19079307, 8526472, 638, 392, 175, 40_500_000));
        // 4) asleep (weight 0, not running) to 60 ms: delta 19042; nothing accrues, decay by
        //    18 + 1 = 19: load 12642298, util 5649796; period_contrib = 19042 - 386 - 18 * 1024 =
        //    224; avgs 264 and 118.
        assert!(sa.update(60_000_000, 1024, 0, 0, false, slow, seg));
        assert_eq!(state(&sa), (12642298, 5649796, 224, 264, 118, 60_000_000));
    }

    #[test]
    fn v4_15_path_differs_from_v4_9_on_the_same_inputs() {
        // The same first step through accumulate_sum() and the period_contrib divider: contrib =
        // decay(1024, 1) + 0 + 929 = 1931, util_sum 1931 << 10, load_sum 1931 (weight applied
        // at averaging), last_update_time aligned to 1953 << 10.
        let full = Scale::Contribution {
            freq: 1024,
            cpu: 1024,
        };
        let mut sa = SchedAvg::default();
        assert!(sa.update(2_000_000, 1024, 1, 1, true, full, PeltUpdate::Accumulate));
        assert_eq!(
            (sa.load_sum, sa.util_sum, sa.last_update_time),
            (1931, 1931 << 10, 1999872)
        );
        assert_eq!(
            (sa.load_avg, sa.util_avg),
            (1024 * 1931 / 47647, (1931 << 10) / 47647)
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
