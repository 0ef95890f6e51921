//! Scheduling latency, recorded for every workload: per task the wake-up latency (from
//! `try_to_wake_up()` / `wake_up_new_task()` to the task's next switch-in, perf's `sched_wakeup` to
//! `sched_switch`) and the runqueue wait (every interval a task spends runnable but not running:
//! after a wake-up and after a preemption, schedstat's `run_delay`, what `perf sched latency`
//! calls "delay"); and the latencies a benchmark measures itself (schbench's wake-up and request
//! latencies, see [`crate::workload::schbench`]).
//!
//! Samples go into [`LatHist`], the log-linear histogram schbench and fio use (`plat[]`,
//! `plat_val_to_idx()`), in ns: values below `2 x PLAT_VAL` (128 ns) are exact, above that each
//! power-of-two range is split into `PLAT_VAL` = 64 buckets, so a bucket's midpoint (what a
//! percentile reports, as `plat_idx_to_val()` does) is within 1/128 (0.8%) of every sample in it.
//! [`PLAT_GROUP_NR`] groups cover up to 2^44 ns (4.9 hours); longer samples land in the last
//! bucket. The histogram is allocated once per task name at the start of a run: recording is an
//! index computation and two additions, no allocation.
//!
//! Reports group tasks by name, as `perf sched latency` does by default (by `comm`; `-p` splits by
//! pid, not modelled).

use crate::units::Nanos;
use serde::{Deserialize, Serialize};

pub mod names;

/// Bits of a sample kept below its most significant bit (schbench has 8, in us; 6 in ns here).
pub const PLAT_BITS: u32 = 6;
pub const PLAT_VAL: usize = 1 << PLAT_BITS;
/// Groups of `PLAT_VAL` buckets: up to 2^(PLAT_GROUP_NR + PLAT_BITS - 1) ns.
pub const PLAT_GROUP_NR: usize = 39;
pub const PLAT_NR: usize = PLAT_GROUP_NR * PLAT_VAL;

/// A percentile as schbench prints them (`plist[]`: 50, 90, 99, 99.9).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pct {
    #[serde(rename = "p50")]
    P50,
    #[serde(rename = "p90")]
    P90,
    #[serde(rename = "p99")]
    P99,
    #[serde(rename = "p99.9")]
    P999,
}

impl Pct {
    pub const ALL: [Pct; 4] = [Pct::P50, Pct::P90, Pct::P99, Pct::P999];
    /// The percentile in tenths of a percent.
    pub fn permille(self) -> u64 {
        match self {
            Pct::P50 => 500,
            Pct::P90 => 900,
            Pct::P99 => 990,
            Pct::P999 => 999,
        }
    }
    pub fn label(self) -> &'static str {
        match self {
            Pct::P50 => "p50",
            Pct::P90 => "p90",
            Pct::P99 => "p99",
            Pct::P999 => "p99.9",
        }
    }
}

/// schbench's `plat_val_to_idx()`, for ns.
pub fn plat_val_to_idx(val: u64) -> usize {
    let msb = if val == 0 {
        0
    } else {
        63 - val.leading_zeros()
    };
    if msb <= PLAT_BITS {
        return val as usize;
    }
    let error_bits = msb - PLAT_BITS;
    let base = ((error_bits + 1) as usize) << PLAT_BITS;
    let offset = (PLAT_VAL - 1) & (val >> error_bits) as usize;
    (base + offset).min(PLAT_NR - 1)
}

/// schbench's `plat_idx_to_val()`: the midpoint of the bucket (rounded down to a whole ns).
pub fn plat_idx_to_val(idx: usize) -> u64 {
    if idx < (PLAT_VAL << 1) {
        return idx as u64;
    }
    let error_bits = (idx >> PLAT_BITS) as u32 - 1;
    let base = 1u64 << (error_bits + PLAT_BITS);
    let k = (idx % PLAT_VAL) as u64;
    base + k * (1u64 << error_bits) + (1u64 << error_bits) / 2
}

/// A latency histogram (see the module doc) with the count, sum, min and max of its samples.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct LatHist {
    /// Serialized sparse, as `[bucket, count]` pairs of the non-empty buckets (a run record
    /// carries every histogram of its run: dense, one is 2496 numbers).
    #[serde(with = "sparse_plat")]
    plat: Vec<u32>,
    pub nr: u64,
    pub sum: u64,
    pub min: u64,
    pub max: u64,
}

impl Default for LatHist {
    fn default() -> LatHist {
        LatHist::new()
    }
}

impl LatHist {
    pub fn new() -> LatHist {
        LatHist {
            plat: vec![0; PLAT_NR],
            nr: 0,
            sum: 0,
            min: 0,
            max: 0,
        }
    }

    /// Adds one sample, in ns.
    pub fn add(&mut self, ns: u64) {
        let b = &mut self.plat[plat_val_to_idx(ns)];
        *b = b.saturating_add(1);
        self.min = if self.nr == 0 { ns } else { self.min.min(ns) };
        self.nr += 1;
        self.sum = self.sum.saturating_add(ns);
        self.max = self.max.max(ns);
    }

    /// Adds every sample of `other` (schbench's `combine_stats()`).
    pub fn merge(&mut self, other: &LatHist) {
        if other.nr == 0 {
            return;
        }
        for (a, b) in self.plat.iter_mut().zip(&other.plat) {
            *a = a.saturating_add(*b);
        }
        self.min = if self.nr == 0 {
            other.min
        } else {
            self.min.min(other.min)
        };
        self.nr += other.nr;
        self.sum = self.sum.saturating_add(other.sum);
        self.max = self.max.max(other.max);
    }

    /// schbench's `calc_percentiles()`: the value of the first bucket at which the running count
    /// reaches `pct` of the samples (in integers: `count x 1000 >= permille x nr`, where schbench
    /// compares against the double `pct / 100.0 x nr`). None without samples.
    pub fn percentile(&self, pct: Pct) -> Option<u64> {
        if self.nr == 0 {
            return None;
        }
        let want = pct.permille() as u128 * self.nr as u128;
        let mut sum = 0u128;
        for (i, &c) in self.plat.iter().enumerate() {
            sum += c as u128;
            if sum * 1000 >= want {
                return Some(plat_idx_to_val(i));
            }
        }
        Some(plat_idx_to_val(PLAT_NR - 1))
    }

    /// The mean in ns (0 without samples).
    pub fn mean(&self) -> f64 {
        if self.nr == 0 {
            0.0
        } else {
            self.sum as f64 / self.nr as f64
        }
    }
}

/// [`LatHist::plat`] as `[[bucket, count], ...]` of its non-empty buckets.
mod sparse_plat {
    use super::PLAT_NR;
    use serde::de::Error;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(plat: &[u32], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(
            plat.iter()
                .enumerate()
                .filter(|(_, &c)| c > 0)
                .map(|(i, &c)| (i as u32, c)),
        )
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u32>, D::Error> {
        let pairs: Vec<(u32, u32)> = Vec::deserialize(d)?;
        let mut plat = vec![0; PLAT_NR];
        for (i, c) in pairs {
            let slot = plat.get_mut(i as usize).ok_or_else(|| {
                D::Error::custom(format!("latency bucket {i} is not below {PLAT_NR}"))
            })?;
            *slot = c;
        }
        Ok(plat)
    }
}

/// The latencies of the tasks of one name.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct NameLatency {
    pub name: String,
    /// Tasks of this name created in the run.
    pub tasks: u64,
    /// Wake-up to switch-in.
    pub wakeup: LatHist,
    /// Runnable to switch-in (after a wake-up or a preemption).
    pub wait: LatHist,
}

/// What a run recorded: per task name, and the workload's own measurements.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, Default)]
pub struct LatencyReport {
    pub names: Vec<NameLatency>,
    /// The workload's wake-up latency samples ([`crate::workload::Op::WakeupSample`]).
    pub wakeup: LatHist,
    /// The workload's request latency samples ([`crate::workload::Op::RequestEnd`]).
    pub request: LatHist,
}

impl LatencyReport {
    /// Adds another run's samples, name by name (names missing here are appended).
    pub fn merge(&mut self, other: &LatencyReport) {
        for n in &other.names {
            match self.names.iter_mut().find(|m| m.name == n.name) {
                Some(m) => {
                    m.tasks += n.tasks;
                    m.wakeup.merge(&n.wakeup);
                    m.wait.merge(&n.wait);
                }
                None => self.names.push(n.clone()),
            }
        }
        self.wakeup.merge(&other.wakeup);
        self.request.merge(&other.request);
    }
}

fn us(ns: u64) -> String {
    format!("{:.3}", ns as f64 / 1e3)
}

fn pct_or_dash(h: &LatHist, p: Pct) -> String {
    h.percentile(p).map_or_else(|| "-".to_string(), us)
}

impl LatencyReport {
    /// A table like `perf sched latency`'s, one row per task name: its tasks, wake-ups with their
    /// average, percentiles and maximum latency, and runqueue waits (after wake-ups and
    /// preemptions) with theirs, in us; then the workload's own samples, as schbench prints them.
    pub fn to_text(&self) -> String {
        let mut s = format!(
            " {:<20} | {:>6} | {:>9} | {:>10} {:>10} {:>10} {:>10} {:>10} | {:>9} | {:>10} {:>10} {:>10}\n",
            "Task",
            "Tasks",
            "Wakeups",
            "avg us",
            "p50 us",
            "p99 us",
            "p99.9 us",
            "max us",
            "Waits",
            "avg us",
            "p99 us",
            "max us"
        );
        s.push_str(&format!("{}\n", "-".repeat(s.len().saturating_sub(1))));
        for n in &self.names {
            if n.tasks == 0 {
                continue;
            }
            s.push_str(&format!(
                " {:<20} | {:>6} | {:>9} | {:>10.3} {:>10} {:>10} {:>10} {:>10} | {:>9} | {:>10.3} {:>10} {:>10}\n",
                n.name,
                n.tasks,
                n.wakeup.nr,
                n.wakeup.mean() / 1e3,
                pct_or_dash(&n.wakeup, Pct::P50),
                pct_or_dash(&n.wakeup, Pct::P99),
                pct_or_dash(&n.wakeup, Pct::P999),
                us(n.wakeup.max),
                n.wait.nr,
                n.wait.mean() / 1e3,
                pct_or_dash(&n.wait, Pct::P99),
                us(n.wait.max),
            ));
        }
        for (label, h) in [
            ("Wakeup Latencies", &self.wakeup),
            ("Request Latencies", &self.request),
        ] {
            if h.nr == 0 {
                continue;
            }
            s.push_str(&format!(
                "{label} percentiles (usec) ({} total samples)\n",
                h.nr
            ));
            for p in Pct::ALL {
                s.push_str(&format!("\t  {:>6}: {}\n", p.label(), pct_or_dash(h, p)));
            }
            s.push_str(&format!("\t  min={}, max={}\n", us(h.min), us(h.max)));
        }
        s
    }
}

/// The engine's recorder: per task the pending wake-up and wait start, per name the histograms.
pub(crate) struct Recorder {
    /// The name index of each program.
    name_of_program: Vec<usize>,
    report: LatencyReport,
    /// Per task: its name index.
    name_of_task: Vec<usize>,
    /// Per task: when it was woken, until it next runs.
    woken_at: Vec<Option<Nanos>>,
    /// Per task: since when it is runnable without running.
    waiting_since: Vec<Option<Nanos>>,
    /// Per task: the wake-up latency of its current run, until a `WakeupSample` takes it.
    last_wakeup: Vec<Option<u64>>,
    /// Per task: when its current request started.
    request_start: Vec<Option<Nanos>>,
}

impl Recorder {
    /// One histogram pair per distinct program name, in order of first appearance.
    pub(crate) fn new(program_names: impl Iterator<Item = String>) -> Recorder {
        let mut names: Vec<NameLatency> = Vec::new();
        let mut name_of_program = Vec::new();
        for name in program_names {
            let i = match names.iter().position(|n| n.name == name) {
                Some(i) => i,
                None => {
                    names.push(NameLatency {
                        name,
                        tasks: 0,
                        wakeup: LatHist::new(),
                        wait: LatHist::new(),
                    });
                    names.len() - 1
                }
            };
            name_of_program.push(i);
        }
        Recorder {
            name_of_program,
            report: LatencyReport {
                names,
                wakeup: LatHist::new(),
                request: LatHist::new(),
            },
            name_of_task: Vec::new(),
            woken_at: Vec::new(),
            waiting_since: Vec::new(),
            last_wakeup: Vec::new(),
            request_start: Vec::new(),
        }
    }

    pub(crate) fn new_task(&mut self, program: usize) {
        let n = self.name_of_program[program];
        self.report.names[n].tasks += 1;
        self.name_of_task.push(n);
        self.woken_at.push(None);
        self.waiting_since.push(None);
        self.last_wakeup.push(None);
        self.request_start.push(None);
    }

    /// `t` was woken (or is new) and enqueued at `now`.
    pub(crate) fn woken(&mut self, t: usize, now: Nanos) {
        self.woken_at[t] = Some(now);
        self.waiting_since[t].get_or_insert(now);
    }

    /// `t` was switched out still runnable (preempted, or moved by a stopper).
    pub(crate) fn preempted(&mut self, t: usize, now: Nanos) {
        self.waiting_since[t].get_or_insert(now);
    }

    /// `t` is switched in at `now`.
    pub(crate) fn switched_in(&mut self, t: usize, now: Nanos) {
        let n = self.name_of_task[t];
        if let Some(w) = self.woken_at[t].take() {
            let d = now.saturating_sub(w);
            self.last_wakeup[t] = Some(d);
            self.report.names[n].wakeup.add(d);
        }
        if let Some(s) = self.waiting_since[t].take() {
            self.report.names[n].wait.add(now.saturating_sub(s));
        }
    }

    /// `Op::WakeupSample`: the wake-up latency of `t`'s current run into the workload's
    /// histogram. schbench drops zero deltas (`if (delta > 0)`: under 1 us, at gettimeofday()'s
    /// resolution); here a 0 is kept: the model's futex calls take no time, so a worker switched in
    /// at the instant it is woken has a true 0, which dropping would hide.
    pub(crate) fn sample_wakeup(&mut self, t: usize) {
        if let Some(d) = self.last_wakeup[t].take() {
            self.report.wakeup.add(d);
        }
    }

    pub(crate) fn request_start(&mut self, t: usize, now: Nanos) {
        self.request_start[t] = Some(now);
    }

    /// `Op::RequestEnd`: `now` minus the request's start (zero deltas dropped, as schbench's
    /// `worker_thread()` does).
    pub(crate) fn request_end(&mut self, t: usize, now: Nanos) {
        if let Some(d) = self.request_start[t]
            .take()
            .map(|s| now.saturating_sub(s))
            .filter(|&d| d > 0)
        {
            self.report.request.add(d);
        }
    }

    pub(crate) fn into_report(self) -> LatencyReport {
        self.report
    }

    pub(crate) fn report(&self) -> &LatencyReport {
        &self.report
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_follow_schbench_plat_table() {
        // Exact below 2 x PLAT_VAL.
        for v in [0u64, 1, 63, 64, 127] {
            assert_eq!(plat_val_to_idx(v), v as usize);
            assert_eq!(plat_idx_to_val(v as usize), v);
        }
        // 128..=129 share a bucket of width 2 (error_bits 1): index 128, midpoint 129.
        assert_eq!(plat_val_to_idx(128), 128);
        assert_eq!(plat_val_to_idx(129), 128);
        assert_eq!(plat_val_to_idx(130), 129);
        assert_eq!(plat_idx_to_val(128), 129);
        // 1000 ns: msb 9, error_bits 3, base 4 x 64 = 256, offset (1000 >> 3) & 63 = 125 & 63 = 61.
        assert_eq!(plat_val_to_idx(1000), 256 + 61);
        // Bucket [2^9 + 61 x 8, +8) = [1000, 1008): midpoint 1004.
        assert_eq!(plat_idx_to_val(256 + 61), 1004);
        // Every value's bucket midpoint is within 1/128 of it.
        for v in (0..2_000_000u64).step_by(997) {
            let m = plat_idx_to_val(plat_val_to_idx(v));
            assert!(m.abs_diff(v) * 128 <= v.max(1), "{v} -> {m}");
        }
        assert_eq!(plat_val_to_idx(u64::MAX), PLAT_NR - 1);
    }

    #[test]
    fn percentiles_by_hand() {
        // 1000 samples: 1..=1000 ns. The running count reaches 500 in the bucket holding 500:
        // [500, 504) (width 4 above 256), midpoint 502; p90: 900 in [896, 904) -> 900; p99: 990 in
        // [984, 992) -> 988; p99.9: 999 in [992, 1000) -> 996.
        let mut h = LatHist::new();
        for v in 1..=1000 {
            h.add(v);
        }
        assert_eq!(h.percentile(Pct::P50), Some(502));
        assert_eq!(h.percentile(Pct::P90), Some(900));
        assert_eq!(h.percentile(Pct::P99), Some(988));
        assert_eq!(h.percentile(Pct::P999), Some(996));
        assert_eq!((h.nr, h.min, h.max, h.sum), (1000, 1, 1000, 500_500));
        // Ten samples, one outlier: p50 and p90 are the small value, p99 and p99.9 the outlier
        // (9 of 10 samples is 90%: the count reaches 900/1000 at the first bucket).
        let mut h = LatHist::new();
        for _ in 0..9 {
            h.add(10);
        }
        h.add(1_000_000);
        assert_eq!(h.percentile(Pct::P50), Some(10));
        assert_eq!(h.percentile(Pct::P90), Some(10));
        let big = h.percentile(Pct::P99).unwrap();
        assert!(big.abs_diff(1_000_000) * 128 <= 1_000_000, "{big}");
        assert_eq!(h.percentile(Pct::P999), Some(big));
        assert_eq!(LatHist::new().percentile(Pct::P50), None);
        let mut m = LatHist::new();
        m.merge(&h);
        m.merge(&h);
        assert_eq!((m.nr, m.min, m.max), (20, 10, 1_000_000));
        assert_eq!(m.percentile(Pct::P90), Some(10));
    }
}
