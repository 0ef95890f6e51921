//! LISA's energy model estimate (`lisa/energy_model.py`: `LinuxEnergyModel.from_target()`,
//! `EnergyModel.guess_freqs()`, `estimate_from_cpu_util()`, `get_optimal_placements()`),
//! reimplemented over the kernel's own energy model ([`crate::power::em`], as debugfs
//! `energy_model/` shows it).
//!
//! `LinuxEnergyModel` gives each CPU the active states of its perf domain: per OPP, capacity
//! `f * cpu_capacity / f_max` and the EM's power, and idle states of power 0 (the simplified
//! model has no idle data); no cluster-level nodes. Estimating a per-CPU utilization: each CPU
//! needs the lowest OPP whose capacity covers its utilization (`capacity_margin_pct` 0, as the
//! tests call it), a frequency domain runs at the highest its CPUs need, and a CPU's power is the
//! OPP's power times its active time `min(util / capacity(f), 1)`. Floats, as LISA computes them:
//! this is a test oracle, not a kernel quantity.

use crate::kernel::KernelConfig;
use crate::power::em::{em_register, EmPerfDomain};
use crate::topology::Topology;

/// The platform's energy model as debugfs shows it: one perf domain per cpufreq policy with the
/// table its driver registers (`em_dev_register_perf_domain()`), whether or not the scheduler
/// then uses it (LISA reads the model whatever the governor; `build_perf_domains()`' EAS gates
/// are the kernel's business). `None` when some policy has no model.
pub fn platform_perf_domains(
    topo: &Topology,
    config: &KernelConfig,
    arch_capacity: &[u64],
) -> Option<Vec<EmPerfDomain>> {
    let mut pds: Vec<EmPerfDomain> = Vec::new();
    for cpu in 0..topo.nr_cpus() {
        if pds.iter().any(|pd| pd.cpus.test(cpu)) {
            continue;
        }
        let policy = &topo.policies[topo.cpus[cpu].policy];
        let fd = &topo.freq_domains[policy.clock];
        let power = &topo.spec.clusters[topo.cpus[cpu].cluster].power;
        let first = policy.cpus.first().unwrap_or(cpu);
        pds.push(em_register(
            power,
            &fd.opps_khz,
            policy.cpus,
            *arch_capacity.get(first)?,
            config.em_power_uw,
        )?);
    }
    Some(pds)
}

/// One CPU's active states: (capacity, power), ascending frequency.
#[derive(Clone, Debug, PartialEq)]
pub struct CpuNode {
    pub states: Vec<(f64, f64)>,
    /// The CPU's frequency domain (index into [`LisaEm::freq_domains`]).
    pub domain: usize,
}

/// `LinuxEnergyModel`: CPU nodes and frequency domains.
#[derive(Clone, Debug, PartialEq)]
pub struct LisaEm {
    pub cpus: Vec<CpuNode>,
    pub freq_domains: Vec<Vec<usize>>,
    /// `capacity_scale`: the largest capacity of any CPU at its top OPP.
    pub capacity_scale: f64,
}

/// The optimal placements' figures: the lowest power and one placement (per-CPU utilization)
/// that gives it; `None` when no placement fits (`EnergyModelCapacityError`).
pub type Optimal = Option<(f64, Vec<f64>)>;

impl LisaEm {
    /// From the kernel's perf domains (`rd->pd`), as `LinuxEnergyModel.from_target()` reads
    /// them: `cpu_capacity` is the domain's `scale_cpu`.
    pub fn from_perf_domains(pds: &[EmPerfDomain], nr_cpus: usize) -> LisaEm {
        let mut cpus = vec![
            CpuNode {
                states: Vec::new(),
                domain: 0,
            };
            nr_cpus
        ];
        let mut freq_domains = Vec::new();
        for (d, pd) in pds.iter().enumerate() {
            let fmax = pd.table.last().map_or(1, |s| s.frequency_khz).max(1) as f64;
            let states: Vec<(f64, f64)> = pd
                .table
                .iter()
                .map(|s| {
                    (
                        s.frequency_khz as f64 * pd.scale_cpu as f64 / fmax,
                        s.power as f64,
                    )
                })
                .collect();
            let members: Vec<usize> = pd.cpus.iter().filter(|&c| c < nr_cpus).collect();
            for &c in &members {
                cpus[c] = CpuNode {
                    states: states.clone(),
                    domain: d,
                };
            }
            freq_domains.push(members);
        }
        let capacity_scale = cpus
            .iter()
            .filter_map(|n| n.states.last().map(|s| s.0))
            .fold(0.0, f64::max);
        LisaEm {
            cpus,
            freq_domains,
            capacity_scale,
        }
    }

    /// `_guess_freqs()`: the OPP index each CPU runs at, and whether some CPU cannot provide
    /// its utilization (overutilized: it then takes its top OPP).
    pub fn guess_freqs(&self, utils: &[f64]) -> (Vec<usize>, bool) {
        let mut over = false;
        let ideal: Vec<usize> = self
            .cpus
            .iter()
            .enumerate()
            .map(
                |(c, n)| match n.states.iter().position(|s| s.0 >= utils[c]) {
                    Some(i) => i,
                    None => {
                        over = true;
                        n.states.len().saturating_sub(1)
                    }
                },
            )
            .collect();
        let mut freqs = ideal.clone();
        for dom in &self.freq_domains {
            let f = dom.iter().map(|&c| ideal[c]).max().unwrap_or(0);
            for &c in dom {
                freqs[c] = f;
            }
        }
        (freqs, over)
    }

    /// `estimate_from_cpu_util()` summed over the nodes: the power of a per-CPU utilization.
    pub fn estimate_from_cpu_util(&self, utils: &[f64]) -> f64 {
        let (freqs, _) = self.guess_freqs(utils);
        self.power_at(utils, &freqs)
    }

    fn power_at(&self, utils: &[f64], freqs: &[usize]) -> f64 {
        self.cpus
            .iter()
            .enumerate()
            .filter_map(|(c, n)| {
                let (cap, power) = *n.states.get(freqs[c])?;
                let active = if cap > 0.0 {
                    (utils[c] / cap).min(1.0)
                } else {
                    1.0
                };
                // Idle states have power 0 in the simplified model.
                Some(power * active)
            })
            .sum()
    }

    /// `get_optimal_placements()`: every assignment of the tasks (utilizations) to CPUs, left
    /// out when a CPU's sum exceeds `capacity_scale` or some CPU is overutilized; the lowest
    /// power and the first placement (in `itertools.product` order) that has it.
    pub fn optimal(&self, task_utils: &[f64]) -> Optimal {
        let n = self.cpus.len();
        if n == 0 {
            return None;
        }
        let mut best: Optimal = None;
        let mut pick = vec![0usize; task_utils.len()];
        let mut utils = vec![0.0; n];
        loop {
            utils.iter_mut().for_each(|u| *u = 0.0);
            for (t, &c) in pick.iter().enumerate() {
                utils[c] += task_utils[t];
            }
            if utils.iter().all(|&u| u <= self.capacity_scale) {
                let (freqs, over) = self.guess_freqs(&utils);
                if !over {
                    let p = self.power_at(&utils, &freqs);
                    if best.as_ref().is_none_or(|(bp, _)| p < *bp) {
                        best = Some((p, utils.clone()));
                    }
                }
            }
            // Next assignment, the last task varying fastest (`product()` order).
            let mut i = pick.len();
            loop {
                if i == 0 {
                    return best;
                }
                i -= 1;
                pick[i] += 1;
                if pick[i] < n {
                    break;
                }
                pick[i] = 0;
            }
        }
    }
}
