//! LISA's platform facts and rt-app profiles (ARM-software/lisa: `lisa/platforms/platinfo.py`'s
//! `cpu-capacities` and `capacity-classes`, `lisa/wlgen/rta.py`'s `Phase`, `Periodic`, `Ramp`,
//! `Step`, and each test's `get_rtapp_profile()`), reimplemented: the tests size their tasks
//! from the platform's capacities, so the same computation runs here on the model's topology.
//!
//! A profile becomes rt-app JSON as LISA's `Phase.get_rtapp_repr()` writes it: a phase of duty
//! cycle 0 is one `sleep` of its duration, 100 one `run` of it, anything else `duration //
//! period` loops of `run` then a `timer` on the task's own reference, `run = period - period *
//! (100 - duty) // 100` (integer us); every phase names its `cpus` (all of them when the task
//! gives none). `calibration` is the first CPU of the biggest capacity class: LISA's `RTA` hands
//! rt-app the smallest per-CPU calibration (pLoad, ns per loop) it measured, which is the fastest
//! CPU's, so a `run` of N us is N us of that CPU's work at its highest OPP.

use crate::domains::arch_scale_cpu_capacity;
use crate::kernel::KernelConfig;
use crate::topology::Topology;

/// LISA's `TASK_PERIOD_MS` (`RTATestBundle`), in us.
pub const TASK_PERIOD_US: u64 = 16_000;

/// What LISA's tests read from `plat_info`.
#[derive(Clone, Debug, PartialEq)]
pub struct Platform {
    pub nr_cpus: usize,
    /// `cpu-capacities`: the capacity the kernel gives each CPU (`arch_scale_cpu_capacity()`).
    pub capacities: Vec<u64>,
    /// `capacity-classes`: the CPUs grouped by capacity, smallest capacity first.
    pub classes: Vec<Vec<usize>>,
    /// `CONFIG_HZ`.
    pub hz: u32,
    /// `freqs`: each CPU's OPPs, kHz, ascending.
    pub freqs_khz: Vec<Vec<u32>>,
}

impl Platform {
    pub fn new(topo: &Topology, config: &KernelConfig) -> Platform {
        let n = topo.nr_cpus();
        let capacities: Vec<u64> = (0..n)
            .map(|c| arch_scale_cpu_capacity(topo, config, c))
            .collect();
        let mut caps: Vec<u64> = capacities.clone();
        caps.sort_unstable();
        caps.dedup();
        let classes = caps
            .iter()
            .map(|&cap| (0..n).filter(|&c| capacities[c] == cap).collect())
            .collect();
        let freqs_khz = (0..n)
            .map(|c| {
                let policy = &topo.policies[topo.cpus[c].policy];
                topo.freq_domains[policy.clock].opps_khz.clone()
            })
            .collect();
        Platform {
            nr_cpus: n,
            capacities,
            classes,
            hz: config.hz,
            freqs_khz,
        }
    }

    /// `RTATestBundle.unscaled_utilization()`: `utilization_pct` of `cpu`'s capacity as a duty
    /// cycle of the biggest CPU, `int(capacity / 1024 * pct)` (capacity_scale 1024).
    pub fn unscaled_utilization(&self, cpu: usize, pct: u64) -> u32 {
        (self.capacities[cpu] * pct / 1024) as u32
    }

    pub fn littlest(&self) -> usize {
        self.classes
            .first()
            .and_then(|c| c.first())
            .copied()
            .unwrap_or(0)
    }

    pub fn biggest_class(&self) -> &[usize] {
        self.classes.last().map_or(&[][..], Vec::as_slice)
    }
}

/// `lisa.wlgen.rta.Phase`.
#[derive(Clone, Debug, PartialEq)]
pub struct Phase {
    pub duration_us: u64,
    pub period_us: u64,
    pub duty_pct: u32,
    /// `None`: every CPU.
    pub cpus: Option<Vec<usize>>,
}

impl Phase {
    /// `(loops, run us, sleep us)` as `get_rtapp_repr()` computes them; a sleep-only or
    /// run-only phase is one loop.
    pub fn events(&self) -> (u64, u64, u64) {
        match self.duty_pct {
            0 => (1, 0, self.duration_us),
            100 => (1, self.duration_us, 0),
            d => {
                let sleep = self.period_us * (100 - d as u64) / 100;
                (
                    self.duration_us / self.period_us.max(1),
                    self.period_us - sleep,
                    sleep,
                )
            }
        }
    }
}

/// `lisa.wlgen.rta.RTATask`: a task's phases, run `loops` times after `delay_us`.
#[derive(Clone, Debug, PartialEq)]
pub struct Task {
    pub name: String,
    pub delay_us: u64,
    pub loops: u32,
    pub phases: Vec<Phase>,
}

impl Task {
    /// `Periodic(duty_cycle_pct, duration_s, period_ms, delay_s, cpus)`: `Pulse(duty, 0)`, one
    /// phase.
    pub fn periodic(
        name: &str,
        duty_pct: u32,
        duration_us: u64,
        delay_us: u64,
        cpus: Option<Vec<usize>>,
    ) -> Task {
        Task {
            name: name.into(),
            delay_us,
            loops: 1,
            phases: vec![Phase {
                duration_us,
                period_us: TASK_PERIOD_US,
                duty_pct,
                cpus,
            }],
        }
    }

    /// `Ramp(start_pct, end_pct, delta_pct, time_s, period_ms, loops)`: steps
    /// `range(start, end + delta, delta)` (delta signed toward `end`), the last clipped to `end`;
    /// a step of 0% is a sleep phase.
    pub fn ramp(name: &str, start: u32, end: u32, delta: u32, time_us: u64, loops: u32) -> Task {
        let (s, e, d) = (start as i64, end as i64, delta.max(1) as i64);
        let d = if s <= e { d } else { -d };
        let stop = e + d;
        let mut steps = Vec::new();
        let mut v = s;
        while (d > 0 && v < stop) || (d < 0 && v > stop) {
            steps.push(v);
            v += d;
        }
        if let Some(last) = steps.last_mut() {
            *last = e;
        }
        Task {
            name: name.into(),
            delay_us: 0,
            loops,
            phases: steps
                .into_iter()
                .map(|load| Phase {
                    duration_us: time_us,
                    period_us: if load == 0 { 0 } else { TASK_PERIOD_US },
                    duty_pct: load as u32,
                    cpus: None,
                })
                .collect(),
        }
    }

    /// `Step(start_pct, end_pct, time_s, loops)`: a ramp whose delta is `|end - start|`.
    pub fn step(name: &str, start: u32, end: u32, time_us: u64, loops: u32) -> Task {
        Task::ramp(name, start, end, start.abs_diff(end), time_us, loops)
    }

    /// The task's expected utilization over time, `_get_expected_task_utils_df()`: from its
    /// `delay`, each phase's `duty_cycle_pct * 1024 / 100` for the phase's duration, then 0.
    /// `(time from the start us, util)` transitions.
    pub fn expected_utils(&self) -> Vec<(u64, f64)> {
        let mut t = self.delay_us;
        let mut out = vec![(t, 0.0)];
        for _ in 0..self.loops {
            for p in &self.phases {
                out.push((t, p.duty_pct as f64 * 1024.0 / 100.0));
                t += p.duration_us;
            }
        }
        out.push((t, 0.0));
        out
    }
}

/// rt-app JSON for `tasks` as LISA's `RTA.by_profile()` writes it (see the module doc), tasks
/// and phases in key order. Written out by hand (names are LISA's own, `[a-z0-9_]`), so the page's
/// wasm needs no JSON value machinery for it.
pub fn rtapp_json(tasks: &[Task], plat: &Platform) -> String {
    let list = |cpus: &[usize]| {
        cpus.iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let all: Vec<usize> = (0..plat.nr_cpus).collect();
    let calib = plat.biggest_class().first().copied().unwrap_or(0);
    let mut order: Vec<&Task> = tasks.iter().collect();
    order.sort_by(|a, b| a.name.cmp(&b.name));
    let mut s = format!(
        "{{\n  \"global\": {{\n    \"duration\": -1,\n    \"calibration\": \"CPU{calib}\",\n    \
         \"default_policy\": \"SCHED_OTHER\"\n  }},\n  \"tasks\": {{"
    );
    for (ti, task) in order.iter().enumerate() {
        s += if ti > 0 { ",\n" } else { "\n" };
        s += &format!(
            "    \"{}\": {{\n      \"loop\": {},\n",
            task.name, task.loops
        );
        if task.delay_us > 0 {
            s += &format!("      \"delay\": {},\n", task.delay_us);
        }
        s += "      \"phases\": {";
        for (i, p) in task.phases.iter().enumerate() {
            let (loops, run, sleep) = p.events();
            s += if i > 0 { ",\n" } else { "\n" };
            s += &format!("        \"phase_{i:06}\": {{\"loop\": {loops}, ");
            s += &match p.duty_pct {
                0 => format!("\"sleep\": {sleep}, "),
                100 => format!("\"run\": {run}, "),
                _ => format!(
                    "\"run\": {run}, \"timer\": {{\"ref\": \"{}\", \"period\": {}}}, ",
                    task.name, p.period_us
                ),
            };
            s += &format!("\"cpus\": [{}]}}", list(p.cpus.as_deref().unwrap_or(&all)));
        }
        s += "\n      }\n    }";
    }
    s += "\n  }\n}\n";
    s
}
