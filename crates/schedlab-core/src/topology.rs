//! Machines: CPUs, SMT threads and the groups of threads that share a core's resources, clusters,
//! packages, `capacity_orig`, OPP tables and turbo bins.
//!
//! A [`MachineSpec`] is plain data (serde): what a user edits, what a scenario or URL carries. It is
//! validated into a [`Topology`], the indexed form the engine uses. Presets live in [`presets`].

pub mod presets;
mod pstates;

pub use pstates::PStates;

use crate::cpufreq::CpufreqDriverSpec;
use crate::cpulists::CpuLists;
use crate::cpumask::{CpuMask, MAX_CPUS};
use crate::error::{Error, Result};
use crate::hwp::{HwpSpec, PSTATE_SCALING_KHZ};
use crate::power::PowerSpec;
use crate::units::SCHED_CAPACITY_SCALE;
use serde::{Deserialize, Serialize};

/// How far the last-level cache, and so the MC sched domain, reaches.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum LlcSpan {
    /// One LLC per cluster: classic big.LITTLE (MC per cluster, DIE above).
    Cluster,
    /// One LLC for the whole package: DynamIQ's DSU, Intel's L3.
    Package,
}

/// Which CPUs share something frequency-related: a clock (`freq_domain`: the CPUs the hardware runs
/// at one frequency) or a cpufreq policy (`cpufreq_policy`: the CPUs the kernel asks for one
/// frequency for).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum FreqDomainSpan {
    /// Narrowest first: the order is how `cpufreq_policy` is checked against `freq_domain`.
    Cpu,
    /// The SMT threads of one core share a clock: Intel cores run at the highest request of their
    /// threads (P-state requests, HWP requests and intel_cpufreq policies are per logical CPU).
    Core,
    Cluster,
}

/// Highest frequency allowed while at most `max_active_cores` cores of the package are busy.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct TurboBin {
    pub max_active_cores: u32,
    pub mhz: u32,
}

/// One cluster of identical cores.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ClusterSpec {
    /// Short name shown in tables and diagrams ("A53", "big").
    pub name: String,
    /// Micro-architecture ("Cortex-A53"); workloads may give a speed ratio per core type.
    #[serde(default)]
    pub core_type: String,
    #[serde(default)]
    pub package: u32,
    pub cores: u32,
    #[serde(default = "one")]
    pub threads_per_core: u32,
    /// Linux CPU numbers of this cluster's threads, core-major (core 0 thread 0, core 0 thread 1, ...).
    /// Default: the next consecutive numbers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_ids: Option<Vec<usize>>,
    /// Thread indices (within a core) that share execution resources, e.g. POWER9's small cores
    /// `[[0,2,4,6],[1,3,5,7]]`. Default: all threads of a core form one group.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub smt_sharing_groups: Option<Vec<Vec<u32>>>,
    /// Throughput of each busy thread, in 1/1024 of a lone thread, when k threads of one sharing group
    /// are busy (entry k-1). Missing entries repeat the last one. Default: no contention. This is
    /// the core's figure for an average workload; a workload may bring its own for the core type
    /// (`speed.smt_throughput`, see [`crate::workload::speed`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub smt_throughput: Vec<u32>,
    /// `capacity_orig` of each CPU (`arch_scale_cpu_capacity`), at most 1024.
    pub capacity_orig: u32,
    /// Operating points in MHz; the highest is the reference frequency for capacity and work.
    pub opps_mhz: Vec<u32>,
    /// Frequencies above the highest OPP by number of active cores in the package, if any.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub turbo_bins: Vec<TurboBin>,
    /// The clock: the CPUs that always run at the same frequency.
    #[serde(default = "cluster_span")]
    pub freq_domain: FreqDomainSpan,
    /// The cpufreq policy, when it is narrower than the clock. intel_pstate in passive mode
    /// (intel_cpufreq) registers one policy per logical CPU (`intel_cpufreq_cpu_init()`, v4.x-v6.8:
    /// `policy->cpus` is the CPU itself), so schedutil runs `sugov_update_single()` with its busy
    /// hold and rate limit per thread, while both threads of a core share its clock, which runs
    /// at the higher of their requests. Default: the policy is the clock (cpufreq-dt, arm
    /// big.LITTLE: `sugov_next_freq_shared()` over the cluster). Must not be wider than
    /// `freq_domain`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpufreq_policy: Option<FreqDomainSpan>,
    /// `policy->cur` starts at the lowest OPP (intel_cpufreq: `intel_cpufreq_cpu_init()` sets
    /// `policy->cur = policy->cpuinfo.min_freq`). Default false: it starts at the highest non-turbo
    /// OPP (the model's boot frequency for cpufreq-dt, which reads the clock: **[assumed]**).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub policy_starts_at_min: bool,
    /// Power model of each core (see [`crate::power`]).
    #[serde(default)]
    pub power: PowerSpec,
    /// The cpufreq driver's transition latency and delay, from which schedutil's `sugov_init()`
    /// derives each policy's rate limit (see [`CpufreqDriverSpec`]). Default: a driver that
    /// reports neither (the kernel then uses 1000 us).
    #[serde(default, skip_serializing_if = "CpufreqDriverSpec::is_default")]
    pub cpufreq_driver: CpufreqDriverSpec,
    /// The HWP hardware's autonomous algorithm (see [`crate::hwp`]; all **[assumed]**), used by
    /// the `hwp` governor.
    #[serde(default, skip_serializing_if = "HwpSpec::is_default")]
    pub hwp: HwpSpec,
    /// The cores' CPPC `highest_perf` (ACPI `_CPC`, or `HWP_CAPABILITIES` bits 7:0 where the
    /// firmware reports 255), which intel_pstate hands to `sched_set_itmt_core_prio()`
    /// (`intel_pstate_set_itmt_prio()`, v4.10+; arch/x86/kernel/itmt.c) and the scheduler reads
    /// back as `arch_asym_cpu_priority()` when asym packing uses the ITMT priority
    /// ([`crate::kernel::AsymPriority::Itmt`]). `None`: the platform gives no priority (0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub itmt_prio: Option<u32>,
    /// The cores' HWP highest performance (`MSR_HWP_CAPABILITIES` bits 7:0, 1 to 255), which
    /// v6.12+ intel_pstate takes as `capacity_perf` (`hybrid_get_capacity_perf()`) for the hybrid
    /// capacities (`KernelConfig::x86_hybrid_capacity`, `domains::hybrid`). `None`: not an HWP
    /// machine, or not given; a machine whose every cluster gives one, with more than one
    /// `core_type`, is what the model takes as `hwp_is_hybrid`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hwp_highest_perf: Option<u32>,
}

fn one() -> u32 {
    1
}
fn cluster_span() -> FreqDomainSpan {
    FreqDomainSpan::Cluster
}

/// A machine as data.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MachineSpec {
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub llc: LlcSpan,
    pub clusters: Vec<ClusterSpec>,
}

/// One logical CPU.
#[derive(Clone, Debug, PartialEq)]
pub struct Cpu {
    pub id: usize,
    pub cluster: usize,
    pub package: usize,
    /// Index into [`Topology::cores`].
    pub core: usize,
    /// Index into [`Topology::smt_groups`].
    pub smt_group: usize,
    pub capacity_orig: u32,
    /// Index into [`Topology::freq_domains`]: the clock this CPU runs at.
    pub freq_domain: usize,
    /// Index into [`Topology::policies`]: the cpufreq policy the kernel drives it through.
    pub policy: usize,
}

/// Threads that contend for one core's execution resources.
#[derive(Clone, Debug, PartialEq)]
pub struct SmtGroup {
    pub cpus: CpuMask,
    /// Per-thread throughput in 1/1024 with k busy threads (index k-1); never empty.
    pub throughput: Vec<u32>,
}

/// A clock domain: CPUs that share one frequency, what the hardware runs them at.
#[derive(Clone, Debug, PartialEq)]
pub struct FreqDomain {
    pub cpus: CpuMask,
    /// The cpufreq policies whose CPUs run on this clock (indices into [`Topology::policies`],
    /// ascending): the clock runs at the highest of their requests.
    pub policies: Vec<usize>,
    pub package: usize,
    /// Ascending, kHz.
    pub opps_khz: Vec<u32>,
    /// Ascending by `max_active_cores`, kHz.
    pub turbo_bins: Vec<TurboBin>,
    /// [`FreqDomain::max_khz`] by number of active cores, up to one past the last turbo bin
    /// (whose entry, the reference frequency, holds for any count above): looked up on every
    /// busy change.
    max_khz_by_active: Vec<u32>,
    /// Every P-state HWP may pick, ascending and without repeats: the OPPs, then each
    /// [`PSTATE_SCALING_KHZ`] ratio above the reference frequency up to the peak (see
    /// [`FreqDomain::pstates`]).
    pstates: PStates,
}

impl FreqDomain {
    pub fn new(
        cpus: CpuMask,
        package: usize,
        opps_khz: Vec<u32>,
        turbo_bins: Vec<TurboBin>,
    ) -> FreqDomain {
        let reference = *opps_khz
            .last()
            .expect("validated: OPP table is never empty");
        let top = turbo_bins.last().map_or(0, |b| b.max_active_cores);
        let max_khz_by_active = (0..=top + 1)
            .map(|active| {
                turbo_bins
                    .iter()
                    .find(|b| active <= b.max_active_cores)
                    .map(|b| b.mhz * 1000)
                    .unwrap_or(reference)
                    .max(reference)
            })
            .collect::<Vec<u32>>();
        let peak = max_khz_by_active[1.min(max_khz_by_active.len() - 1)];
        let ratios = reference / PSTATE_SCALING_KHZ + 1..=peak / PSTATE_SCALING_KHZ;
        let mut pstates_khz: Vec<u32> = (opps_khz.iter().copied())
            .chain(ratios.map(|r| r * PSTATE_SCALING_KHZ))
            .collect();
        pstates_khz.sort_unstable();
        pstates_khz.dedup();
        FreqDomain {
            cpus,
            policies: Vec::new(),
            package,
            opps_khz,
            turbo_bins,
            max_khz_by_active,
            pstates: PStates::new(pstates_khz),
        }
    }

    /// The P-states HWP picks from (`hwp_pstate_at_or_below()`), ascending: the OPP table, then
    /// the 100 MHz ratios above the reference frequency up to the single-core turbo (none
    /// without turbo bins). Built once: HWP reads it on every frequency update.
    pub fn pstates_khz(&self) -> &[u32] {
        self.pstates.as_slice()
    }

    /// [`FreqDomain::pstates_khz`], with the searches the governors make of them.
    pub fn pstates(&self) -> &PStates {
        &self.pstates
    }

    /// The highest non-turbo OPP: the frequency at which a CPU delivers its `capacity_orig`.
    pub fn reference_khz(&self) -> u32 {
        *self
            .opps_khz
            .last()
            .expect("validated: OPP table is never empty")
    }
    pub fn min_khz(&self) -> u32 {
        self.opps_khz[0]
    }
    /// The highest frequency the hardware allows with `active_cores` busy cores in the package.
    /// The bin is the first (ascending) whose `max_active_cores` covers `active_cores`; none
    /// (or one below the reference frequency) leaves the reference frequency.
    pub fn max_khz(&self, active_cores: u32) -> u32 {
        let t = &self.max_khz_by_active;
        t[(active_cores as usize).min(t.len() - 1)]
    }
    /// The highest frequency at all (single-core turbo where there is turbo).
    pub fn peak_khz(&self) -> u32 {
        self.max_khz(1)
    }
}

/// A cpufreq policy (`struct cpufreq_policy`): the CPUs the governor asks for one frequency for.
/// Its CPUs share one clock ([`CpufreqPolicy::clock`]); a clock may have several policies
/// (intel_cpufreq: one per hyperthread).
#[derive(Clone, Debug, PartialEq)]
pub struct CpufreqPolicy {
    pub cpus: CpuMask,
    /// Index into [`Topology::freq_domains`].
    pub clock: usize,
    /// `policy->cur` at boot, kHz (see [`ClusterSpec::policy_starts_at_min`]).
    pub init_khz: u32,
    /// The cluster's cpufreq driver figures ([`ClusterSpec::cpufreq_driver`]).
    pub driver: CpufreqDriverSpec,
}

/// A validated machine.
#[derive(Clone, Debug, PartialEq)]
pub struct Topology {
    pub spec: MachineSpec,
    pub cpus: Vec<Cpu>,
    /// Threads of each physical core (the kernel's `cpu_smt_mask`).
    pub cores: Vec<CpuMask>,
    pub smt_groups: Vec<SmtGroup>,
    pub clusters: Vec<CpuMask>,
    pub packages: Vec<CpuMask>,
    pub freq_domains: Vec<FreqDomain>,
    /// cpufreq policies; for machines whose policies are their clocks, policy `i` is clock `i`.
    pub policies: Vec<CpufreqPolicy>,
    /// The CPUs of each core, SMT group and clock domain as lists (the masks above, walked).
    pub core_cpus: CpuLists,
    pub smt_group_cpus: CpuLists,
    pub freq_domain_cpus: CpuLists,
    /// The cores (indices into [`Topology::cores`]) with a CPU on each clock domain.
    pub freq_domain_cores: CpuLists,
}

impl Topology {
    pub fn nr_cpus(&self) -> usize {
        self.cpus.len()
    }

    pub fn all_cpus(&self) -> CpuMask {
        CpuMask::first_n(self.cpus.len())
    }

    pub fn capacity_orig(&self, cpu: usize) -> u64 {
        self.cpus[cpu].capacity_orig as u64
    }

    /// The mask of CPUs sharing the last-level cache with `cpu` (`cpu_coregroup_mask`).
    pub fn llc_mask(&self, cpu: usize) -> CpuMask {
        match self.spec.llc {
            LlcSpan::Cluster => self.clusters[self.cpus[cpu].cluster],
            LlcSpan::Package => self.packages[self.cpus[cpu].package],
        }
    }

    /// Distinct capacity values, ascending.
    pub fn capacities(&self) -> Vec<u32> {
        let mut caps: Vec<u32> = self.cpus.iter().map(|c| c.capacity_orig).collect();
        caps.sort_unstable();
        caps.dedup();
        caps
    }

    pub fn cluster_name(&self, cpu: usize) -> &str {
        &self.spec.clusters[self.cpus[cpu].cluster].name
    }

    /// Work (in reference ns x [`crate::units::WORK_SCALE`]) a CPU does per ns for a workload that
    /// runs at the CPU's `capacity_orig` and the core's SMT throughput (see [`Self::work_rate_for`]).
    pub fn work_rate(&self, cpu: usize, freq_khz: u32, busy_siblings_in_group: usize) -> u64 {
        let c = &self.cpus[cpu];
        let group = &self.smt_groups[c.smt_group];
        self.work_rate_for(
            cpu,
            freq_khz,
            busy_siblings_in_group,
            c.capacity_orig,
            &group.throughput,
        )
    }

    /// Work a CPU does per ns for a workload whose speed at the CPU's reference frequency is
    /// `speed_orig` (capacity units) and whose SMT throughput table is `throughput` (never empty):
    /// `speed_orig/1024 * freq/reference_freq * throughput[k-1]/1024`. The workload's own speeds
    /// are in [`crate::workload::speed`].
    pub fn work_rate_for(
        &self,
        cpu: usize,
        freq_khz: u32,
        busy_siblings_in_group: usize,
        speed_orig: u32,
        throughput: &[u32],
    ) -> u64 {
        let c = &self.cpus[cpu];
        let k = busy_siblings_in_group.max(1);
        let tp = *throughput
            .get(k - 1)
            .or(throughput.last())
            .expect("validated: a throughput table is never empty") as u64;
        let reference = self.freq_domains[c.freq_domain].reference_khz() as u64;
        // Fits in u64: 1024 x 16384 (`MAX_SPEED_ORIG`) x 2e7 kHz x 1024 < 2^59.
        let rate = crate::units::WORK_SCALE * speed_orig as u64 * freq_khz as u64 * tp
            / (SCHED_CAPACITY_SCALE * reference * 1024);
        rate.max(1)
    }

    /// Validates a spec and builds the indexed topology.
    pub fn build(spec: &MachineSpec) -> Result<Topology> {
        if spec.clusters.is_empty() {
            return Err(Error::Topology("the machine has no clusters".into()));
        }
        let mut cpus: Vec<Option<Cpu>> = Vec::new();
        let mut cores = Vec::new();
        let mut smt_groups = Vec::new();
        let mut clusters = Vec::new();
        let mut freq_domains: Vec<FreqDomain> = Vec::new();
        let mut next_id = 0usize;
        let mut total_threads = 0usize;
        let nr_packages = spec
            .clusters
            .iter()
            .map(|c| c.package as usize + 1)
            .max()
            .unwrap_or(1);
        if nr_packages > MAX_CPUS {
            return Err(Error::Topology(format!(
                "package numbers must be below {MAX_CPUS}"
            )));
        }
        let mut packages = vec![CpuMask::EMPTY; nr_packages];
        for (ci, cl) in spec.clusters.iter().enumerate() {
            let who = format!("cluster '{}'", cl.name);
            if cl.cores == 0 {
                return Err(Error::Topology(format!("{who} has no cores")));
            }
            if cl.threads_per_core == 0 || cl.threads_per_core > 8 {
                return Err(Error::Topology(format!(
                    "{who}: threads_per_core must be 1 to 8"
                )));
            }
            let nthreads = cl.cores as usize * cl.threads_per_core as usize;
            // Explicit `cpu_ids` are range-checked below; counting from `next_id` (one past the
            // highest id so far) would refuse x86 numberings whose siblings sit far apart.
            total_threads += nthreads;
            if total_threads > MAX_CPUS || (cl.cpu_ids.is_none() && next_id + nthreads > MAX_CPUS) {
                return Err(Error::Topology(format!(
                    "the machine has more than {MAX_CPUS} CPUs"
                )));
            }
            if cl.capacity_orig == 0 || cl.capacity_orig > 1024 {
                return Err(Error::Topology(format!(
                    "{who}: capacity_orig must be 1 to 1024"
                )));
            }
            if cl.opps_mhz.is_empty() {
                return Err(Error::Topology(format!("{who} has an empty OPP table")));
            }
            let mut opps_khz: Vec<u32> = Vec::with_capacity(cl.opps_mhz.len());
            for &mhz in &cl.opps_mhz {
                if mhz == 0 || mhz > 20_000 {
                    return Err(Error::Topology(format!(
                        "{who}: OPP {mhz} MHz is out of range (1 to 20000)"
                    )));
                }
                opps_khz.push(mhz * 1000);
            }
            opps_khz.sort_unstable();
            opps_khz.dedup();
            let mut turbo = cl.turbo_bins.clone();
            turbo.sort_by_key(|b| b.max_active_cores);
            let top = *opps_khz.last().unwrap();
            for b in &turbo {
                // The range test first: `mhz * 1000` of an unchecked number can overflow.
                if b.mhz > 20_000 || b.max_active_cores == 0 || b.mhz * 1000 < top {
                    return Err(Error::Topology(format!(
                        "{who}: turbo bin {} cores / {} MHz must have at least one core and a frequency \
                         at or above the highest OPP ({} MHz)",
                        b.max_active_cores,
                        b.mhz,
                        top / 1000
                    )));
                }
            }
            let ids: Vec<usize> = match &cl.cpu_ids {
                Some(ids) => {
                    if ids.len() != nthreads {
                        return Err(Error::Topology(format!(
                            "{who}: cpu_ids lists {} CPUs but the cluster has {nthreads} threads",
                            ids.len()
                        )));
                    }
                    if let Some(&id) = ids.iter().find(|&&id| id >= MAX_CPUS) {
                        return Err(Error::Topology(format!(
                            "{who}: cpu_ids: CPU id {id} is out of range (0 to {})",
                            MAX_CPUS - 1
                        )));
                    }
                    ids.clone()
                }
                None => (next_id..next_id + nthreads).collect(),
            };
            next_id = next_id.max(ids.iter().copied().max().unwrap_or(0) + 1);
            let sharing: Vec<Vec<u32>> = match &cl.smt_sharing_groups {
                Some(g) => g.clone(),
                None => vec![(0..cl.threads_per_core).collect()],
            };
            let mut seen = vec![false; cl.threads_per_core as usize];
            for g in &sharing {
                for &t in g {
                    if t >= cl.threads_per_core || seen[t as usize] {
                        return Err(Error::Topology(format!(
                            "{who}: smt_sharing_groups must list each thread 0..{} exactly once",
                            cl.threads_per_core
                        )));
                    }
                    seen[t as usize] = true;
                }
            }
            if seen.iter().any(|s| !s) {
                return Err(Error::Topology(format!(
                    "{who}: smt_sharing_groups must list each thread 0..{} exactly once",
                    cl.threads_per_core
                )));
            }
            let pw = &cl.power;
            if pw.ceff_pf > 1_000_000
                || pw.v_min_mv == 0
                || pw.v_max_mv < pw.v_min_mv
                || pw.v_max_mv > 5_000
            {
                return Err(Error::Topology(format!(
                    "{who}: power needs ceff_pf <= 1000000 and 0 < v_min_mv <= v_max_mv <= 5000"
                )));
            }
            if pw.static_uw > 1_000_000_000 || pw.idle_uw > 1_000_000_000 {
                return Err(Error::Topology(format!(
                    "{who}: static_uw and idle_uw must be at most 1 kW"
                )));
            }
            if cl.hwp_highest_perf.is_some_and(|p| p == 0 || p > 255) {
                return Err(Error::Topology(format!(
                    "{who}: hwp_highest_perf must be 1 to 255 (an 8-bit HWP_CAPABILITIES field)"
                )));
            }
            if cl.itmt_prio.is_some_and(|p| p > 1_000_000) {
                return Err(Error::Topology(format!(
                    "{who}: itmt_prio must be at most 1000000"
                )));
            }
            cl.hwp
                .check()
                .map_err(|m| Error::Topology(format!("{who}: {m}")))?;
            if let Some(msg) = crate::power::validate(pw, cl.opps_mhz.len()) {
                return Err(Error::Topology(format!("{who}: power: {msg}")));
            }
            if cl.smt_throughput.iter().any(|&t| t == 0 || t > 1024) {
                return Err(Error::Topology(format!(
                    "{who}: smt_throughput entries must be 1 to 1024"
                )));
            }
            let throughput = if cl.smt_throughput.is_empty() {
                vec![1024]
            } else {
                cl.smt_throughput.clone()
            };
            if cl.cpufreq_policy.is_some_and(|p| p > cl.freq_domain) {
                return Err(Error::Topology(format!(
                    "{who}: cpufreq_policy must not be wider than freq_domain"
                )));
            }
            let mut cluster_mask = CpuMask::EMPTY;
            let mut cluster_fd: Option<usize> = None;
            for core in 0..cl.cores as usize {
                let core_index = cores.len();
                let mut core_mask = CpuMask::EMPTY;
                let tpc = cl.threads_per_core as usize;
                let core_ids = &ids[core * tpc..(core + 1) * tpc];
                for &id in core_ids {
                    if id >= MAX_CPUS {
                        return Err(Error::Topology(format!(
                            "{who}: CPU id {id} is out of range"
                        )));
                    }
                    core_mask.set(id);
                }
                let core_fd = match cl.freq_domain {
                    FreqDomainSpan::Core => Some(freq_domains.len()),
                    _ => None,
                };
                if core_fd.is_some() {
                    freq_domains.push(FreqDomain::new(
                        core_mask,
                        cl.package as usize,
                        opps_khz.clone(),
                        turbo.clone(),
                    ));
                }
                for g in &sharing {
                    let gi = smt_groups.len();
                    let mut gmask = CpuMask::EMPTY;
                    for &t in g {
                        gmask.set(core_ids[t as usize]);
                    }
                    smt_groups.push(SmtGroup {
                        cpus: gmask,
                        throughput: throughput.clone(),
                    });
                    for &t in g {
                        let id = core_ids[t as usize];
                        if cpus.len() <= id {
                            cpus.resize(id + 1, None);
                        }
                        if cpus[id].is_some() {
                            return Err(Error::Topology(format!("CPU {id} is listed twice")));
                        }
                        let fd = match cl.freq_domain {
                            FreqDomainSpan::Cluster => *cluster_fd.get_or_insert_with(|| {
                                freq_domains.push(FreqDomain::new(
                                    CpuMask::EMPTY,
                                    cl.package as usize,
                                    opps_khz.clone(),
                                    turbo.clone(),
                                ));
                                freq_domains.len() - 1
                            }),
                            FreqDomainSpan::Core => core_fd.unwrap(),
                            FreqDomainSpan::Cpu => {
                                freq_domains.push(FreqDomain::new(
                                    CpuMask::single(id),
                                    cl.package as usize,
                                    opps_khz.clone(),
                                    turbo.clone(),
                                ));
                                freq_domains.len() - 1
                            }
                        };
                        freq_domains[fd].cpus.set(id);
                        cpus[id] = Some(Cpu {
                            id,
                            cluster: ci,
                            package: cl.package as usize,
                            core: core_index,
                            smt_group: gi,
                            capacity_orig: cl.capacity_orig,
                            freq_domain: fd,
                            policy: 0,
                        });
                    }
                }
                cores.push(core_mask);
                cluster_mask = cluster_mask.or(&core_mask);
            }
            packages[cl.package as usize] = packages[cl.package as usize].or(&cluster_mask);
            clusters.push(cluster_mask);
        }
        let mut dense = Vec::with_capacity(cpus.len());
        for (id, c) in cpus.into_iter().enumerate() {
            match c {
                Some(c) => dense.push(c),
                None => {
                    return Err(Error::Topology(format!(
                        "CPU ids must be 0..N-1 with no gaps: CPU {id} is missing"
                    )))
                }
            }
        }
        if packages.iter().any(|p| p.is_empty()) {
            return Err(Error::Topology(
                "package numbers must be 0..N-1 with no gaps".into(),
            ));
        }
        if dense.iter().all(|c| c.capacity_orig != 1024) {
            return Err(Error::Topology(
                "at least one CPU must have capacity_orig 1024 (capacities are normalised to the biggest CPU)"
                    .into(),
            ));
        }
        let policies = build_policies(spec, &mut dense, &cores, &mut freq_domains);
        let freq_domain_cores: Vec<CpuMask> = freq_domains
            .iter()
            .map(|d| {
                let mut m = CpuMask::EMPTY;
                for c in d.cpus.iter() {
                    m.set(dense[c].core);
                }
                m
            })
            .collect();
        Ok(Topology {
            spec: spec.clone(),
            cpus: dense,
            core_cpus: CpuLists::from_masks(&cores),
            smt_group_cpus: CpuLists::from_masks(smt_groups.iter().map(|g| &g.cpus)),
            freq_domain_cpus: CpuLists::from_masks(freq_domains.iter().map(|d| &d.cpus)),
            freq_domain_cores: CpuLists::from_masks(&freq_domain_cores),
            cores,
            smt_groups,
            clusters,
            packages,
            freq_domains,
            policies,
        })
    }
}

/// Splits each clock domain into its cpufreq policies (in the order of their first CPU), as
/// `cpufreq_policy` says: the clock itself, one per core, or one per CPU.
fn build_policies(
    spec: &MachineSpec,
    cpus: &mut [Cpu],
    cores: &[CpuMask],
    freq_domains: &mut [FreqDomain],
) -> Vec<CpufreqPolicy> {
    let mut policies: Vec<CpufreqPolicy> = Vec::new();
    for (d, dom) in freq_domains.iter_mut().enumerate() {
        let Some(first) = dom.cpus.first() else {
            continue;
        };
        let cl = &spec.clusters[cpus[first].cluster];
        let span = cl.cpufreq_policy.unwrap_or(cl.freq_domain);
        let init_khz = if cl.policy_starts_at_min {
            dom.min_khz()
        } else {
            dom.reference_khz()
        };
        for c in dom.cpus.iter() {
            let mask = match span {
                FreqDomainSpan::Cpu => CpuMask::single(c),
                FreqDomainSpan::Core => cores[cpus[c].core].and(&dom.cpus),
                FreqDomainSpan::Cluster => dom.cpus,
            };
            if mask.first() != Some(c) {
                continue;
            }
            let p = policies.len();
            for i in mask.iter() {
                cpus[i].policy = p;
            }
            dom.policies.push(p);
            policies.push(CpufreqPolicy {
                cpus: mask,
                clock: d,
                init_khz,
                driver: cl.cpufreq_driver.clone(),
            });
        }
    }
    policies
}

/// `topology_normalize_cpu_scale()` (drivers/base/arch_topology.c, v4.10+): capacity =
/// dmips_mhz x max_freq, normalised so the biggest CPU gets 1024. Used by presets to derive
/// capacities from device-tree values, and offered to custom machines.
pub fn normalize_cpu_capacity(dmips_mhz_and_max_khz: &[(u64, u64)]) -> Vec<u32> {
    let raw: Vec<u64> = dmips_mhz_and_max_khz.iter().map(|(d, f)| d * f).collect();
    let max = raw.iter().copied().max().unwrap_or(1).max(1);
    raw.iter()
        .map(|r| (r * SCHED_CAPACITY_SCALE / max) as u32)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hikey960_capacity_comes_from_the_device_tree_values() {
        // hi3660.dtsi: capacity-dmips-mhz 592 (A53) and 1024 (A73); max OPPs 1844 and 2362 MHz.
        assert_eq!(
            normalize_cpu_capacity(&[(592, 1_844_000), (1024, 2_362_000)]),
            vec![462, 1024]
        );
        // The binding document's own example: 578 x 850 / 1100 -> 446.
        assert_eq!(normalize_cpu_capacity(&[(578, 850), (1024, 1100)])[0], 446);
    }

    #[test]
    fn every_preset_builds_and_is_dense() {
        for name in presets::NAMES {
            let t = Topology::build(&presets::preset(name).unwrap()).unwrap();
            assert_eq!(t.all_cpus().weight(), t.nr_cpus(), "{name}");
            for (i, c) in t.cpus.iter().enumerate() {
                assert_eq!(c.id, i);
            }
        }
    }

    #[test]
    fn power9_small_cores_interleave_thread_ids() {
        let t = Topology::build(&presets::preset("power9-smt8").unwrap()).unwrap();
        let g0 = &t.smt_groups[t.cpus[0].smt_group];
        assert_eq!(g0.cpus.to_string(), "0,2,4,6");
        let g1 = &t.smt_groups[t.cpus[1].smt_group];
        assert_eq!(g1.cpus.to_string(), "1,3,5,7");
        assert_eq!(t.cores[t.cpus[0].core].to_string(), "0-7");
    }

    #[test]
    fn cascadelake_siblings_are_48_apart_and_turbo_depends_on_active_cores() {
        let t = Topology::build(&presets::preset("cascadelake-8260l").unwrap()).unwrap();
        assert_eq!(t.nr_cpus(), 96);
        assert_eq!(t.cores[t.cpus[0].core].to_string(), "0,48");
        assert_eq!(t.cores[t.cpus[24].core].to_string(), "24,72");
        assert_eq!(t.cpus[24].package, 1);
        let fd = &t.freq_domains[t.cpus[0].freq_domain];
        assert_eq!(fd.max_khz(1), 3_900_000);
        assert_eq!(fd.max_khz(4), 3_700_000);
        assert_eq!(fd.max_khz(24), 3_100_000);
        assert_eq!(fd.reference_khz(), 2_400_000);
    }

    #[test]
    fn juno_numbering_puts_bigs_on_1_and_2() {
        let t = Topology::build(&presets::preset("juno-r2").unwrap()).unwrap();
        let caps: Vec<u32> = t.cpus.iter().map(|c| c.capacity_orig).collect();
        assert_eq!(caps, vec![383, 1024, 1024, 383, 383, 383]);
    }

    #[test]
    fn work_rate_scales_with_capacity_frequency_and_smt() {
        let t = Topology::build(&presets::preset("hikey960").unwrap()).unwrap();
        assert_eq!(t.work_rate(4, 2_362_000, 1), 1024);
        assert_eq!(t.work_rate(0, 1_844_000, 1), 462);
        assert_eq!(t.work_rate(0, 922_000, 1), 231);
        let c = Topology::build(&presets::preset("cascadelake-8260l").unwrap()).unwrap();
        assert!(c.work_rate(0, 2_400_000, 2) < c.work_rate(0, 2_400_000, 1));
    }

    #[test]
    fn invalid_machines_are_errors_not_panics() {
        let mut spec = presets::preset("hikey960").unwrap();
        spec.clusters[0].opps_mhz.clear();
        assert!(
            matches!(Topology::build(&spec), Err(Error::Topology(m)) if m.contains("empty OPP"))
        );
        let mut spec = presets::preset("hikey960").unwrap();
        spec.clusters[1].cpu_ids = Some(vec![0, 1, 2, 3]);
        assert!(Topology::build(&spec).is_err());
        let mut spec = presets::preset("hikey960").unwrap();
        spec.clusters[1].cpu_ids = Some(vec![5, 6, 7, 8]);
        assert!(matches!(Topology::build(&spec), Err(Error::Topology(m)) if m.contains("missing")));
        let mut spec = presets::preset("hikey960").unwrap();
        spec.clusters[0].cores = 300;
        assert!(Topology::build(&spec).is_err());
        let mut spec = presets::preset("power9-smt8").unwrap();
        spec.clusters[0].smt_sharing_groups = Some(vec![vec![0, 1], vec![1, 2]]);
        assert!(Topology::build(&spec).is_err());
    }
}
