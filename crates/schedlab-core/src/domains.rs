//! Sched domains and groups, derived from a [`Topology`] and a [`KernelConfig`] as
//! `build_sched_domains()` (kernel/sched/topology.c) derives them from the arch's topology levels.
//!
//! Levels, bottom up: SMT (`cpu_smt_mask`, or the SMT sharing group), MC (`cpu_coregroup_mask`: the
//! LLC), DIE (the package), NUMA (all CPUs, when there are several packages). Degenerate domains are
//! removed as `cpu_attach_domain()` does (`sd_degenerate()`, `sd_parent_degenerate()`).

use crate::cpumask::CpuMask;
use crate::error::Result;
use crate::kernel::{AsymPriority, KernelConfig, SmtDomainSpan};
use crate::topology::Topology;
use serde::{Deserialize, Serialize};

mod hybrid;
pub use hybrid::{effective_asym_packing, hybrid_cpu_capacity, hybrid_max_capacity_perf};

/// `arch_scale_cpu_capacity()`: the capacity the kernel believes `cpu` has. With
/// `arch_cpu_capacity` off (arm64 before v4.10, arm TC2 with its v4.9 device tree, x86) every CPU is
/// 1024 to the scheduler, whatever the hardware does. On an x86 hybrid machine where v6.12+
/// intel_pstate enables hybrid capacity scaling ([`KernelConfig::x86_hybrid_capacity`], no SMT),
/// x86's own `arch_scale_cpu_capacity()` returns what `arch_set_cpu_capacity()` stored
/// ([`hybrid`]).
pub fn arch_scale_cpu_capacity(topo: &Topology, config: &KernelConfig, cpu: usize) -> u64 {
    if let Some(max) = hybrid_max_capacity_perf(topo, config) {
        hybrid_cpu_capacity(topo, cpu, max)
    } else if config.arch_cpu_capacity {
        topo.capacity_orig(cpu)
    } else {
        crate::units::SCHED_CAPACITY_SCALE
    }
}

/// `sd->smt_gain` (`sd_init()`, v4.9-v4.20): an SMT core is worth ~15% more than one thread.
pub const SMT_GAIN: u64 = 1178;

/// `capacity_orig_of()` as `update_cpu_capacity()` sets it, from `arch_scale_cpu_capacity(sd, cpu)`
/// with the CPU's lowest domain. With [`KernelConfig::smt_gain`], a CPU whose lowest domain is an
/// SMT domain of `w` threads gets `SMT_GAIN / w` (589 for two threads, 294 for four, 147 for eight);
/// otherwise this is [`arch_scale_cpu_capacity`]. The SMT span is the one [`SchedDomains::build`]
/// gives the level.
///
/// Simplification: the default `arch_scale_cpu_capacity()` is what x86 and powerpc use; arm and
/// arm64 override it (`topology_get_cpu_scale()`, which ignores `sd`), so an arm machine with SMT
/// would keep its capacities. No arm preset has SMT threads, so the switch alone decides.
pub fn capacity_orig(topo: &Topology, config: &KernelConfig, cpu: usize) -> u64 {
    if config.smt_gain {
        let c = &topo.cpus[cpu];
        let w = match config.smt_domain {
            SmtDomainSpan::Core => topo.cores[c.core].weight(),
            SmtDomainSpan::SharingGroup => topo.smt_groups[c.smt_group].cpus.weight(),
        };
        if w > 1 {
            return SMT_GAIN / w as u64;
        }
    }
    arch_scale_cpu_capacity(topo, config, cpu)
}

/// `per_cpu(sched_core_priority, cpu)` as v6.5+ `sched_set_itmt_core_prio(prio, cpu)` sets it:
/// the CPPC `highest_perf` of the CPU's core (0 where the machine gives none).
pub fn itmt_core_prio(topo: &Topology, cpu: usize) -> i64 {
    topo.spec.clusters[topo.cpus[cpu].cluster]
        .itmt_prio
        .unwrap_or(0) as i64
}

/// `per_cpu(sched_core_priority, cpu)` as v4.10-v6.4 `sched_set_itmt_core_prio(prio, core_cpu)`
/// sets it: walking the core's `topology_sibling_cpumask` in CPU order, the i-th sibling
/// (1-based) gets `prio * smp_num_siblings / (i * i)`. `smp_num_siblings` is the machine's most
/// threads per core (x86 reads it from CPUID once, for all cores).
pub fn itmt_smt_scaled_prio(topo: &Topology, cpu: usize) -> i64 {
    let smp_num_siblings = topo
        .spec
        .clusters
        .iter()
        .map(|c| c.threads_per_core)
        .max()
        .unwrap_or(1) as i64;
    let core = topo.cores[topo.cpus[cpu].core];
    let i = core.iter().take_while(|&c| c < cpu).count() as i64 + 1;
    itmt_core_prio(topo, cpu) * smp_num_siblings / (i * i)
}

/// A topology level (`struct sched_domain_topology_level`).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SdLevel {
    SMT,
    MC,
    DIE,
    NUMA,
}

impl SdLevel {
    pub fn name(self) -> &'static str {
        match self {
            SdLevel::SMT => "SMT",
            SdLevel::MC => "MC",
            SdLevel::DIE => "DIE",
            SdLevel::NUMA => "NUMA",
        }
    }
}

/// `SD_*` flags (include/linux/sched/sd_flags.h, v6.8 names; `SD_SHARE_PKG_RESOURCES` became
/// `SD_SHARE_LLC` after v6.8).
pub mod flags {
    pub const SD_BALANCE_NEWIDLE: u32 = 1 << 0;
    pub const SD_BALANCE_EXEC: u32 = 1 << 1;
    pub const SD_BALANCE_FORK: u32 = 1 << 2;
    pub const SD_BALANCE_WAKE: u32 = 1 << 3;
    pub const SD_WAKE_AFFINE: u32 = 1 << 4;
    pub const SD_ASYM_CPUCAPACITY: u32 = 1 << 5;
    pub const SD_ASYM_CPUCAPACITY_FULL: u32 = 1 << 6;
    pub const SD_SHARE_CPUCAPACITY: u32 = 1 << 7;
    pub const SD_SHARE_PKG_RESOURCES: u32 = 1 << 8;
    pub const SD_SERIALIZE: u32 = 1 << 9;
    pub const SD_ASYM_PACKING: u32 = 1 << 10;
    pub const SD_PREFER_SIBLING: u32 = 1 << 11;
    pub const SD_NUMA: u32 = 1 << 12;

    /// Flags that only mean something with more than one group (`SD_DEGENERATE_GROUPS_MASK`).
    pub const SD_DEGENERATE_GROUPS_MASK: u32 = SD_BALANCE_NEWIDLE
        | SD_BALANCE_EXEC
        | SD_BALANCE_FORK
        | SD_BALANCE_WAKE
        | SD_ASYM_CPUCAPACITY
        | SD_ASYM_CPUCAPACITY_FULL
        | SD_SHARE_CPUCAPACITY
        | SD_SHARE_PKG_RESOURCES
        | SD_ASYM_PACKING
        | SD_PREFER_SIBLING;

    pub const NAMES: &[(u32, &str)] = &[
        (SD_BALANCE_NEWIDLE, "SD_BALANCE_NEWIDLE"),
        (SD_BALANCE_EXEC, "SD_BALANCE_EXEC"),
        (SD_BALANCE_FORK, "SD_BALANCE_FORK"),
        (SD_BALANCE_WAKE, "SD_BALANCE_WAKE"),
        (SD_WAKE_AFFINE, "SD_WAKE_AFFINE"),
        (SD_ASYM_CPUCAPACITY, "SD_ASYM_CPUCAPACITY"),
        (SD_ASYM_CPUCAPACITY_FULL, "SD_ASYM_CPUCAPACITY_FULL"),
        (SD_SHARE_CPUCAPACITY, "SD_SHARE_CPUCAPACITY"),
        (SD_SHARE_PKG_RESOURCES, "SD_SHARE_PKG_RESOURCES"),
        (SD_SERIALIZE, "SD_SERIALIZE"),
        (SD_ASYM_PACKING, "SD_ASYM_PACKING"),
        (SD_PREFER_SIBLING, "SD_PREFER_SIBLING"),
        (SD_NUMA, "SD_NUMA"),
    ];

    pub fn names(f: u32) -> Vec<&'static str> {
        NAMES
            .iter()
            .filter(|(bit, _)| f & bit != 0)
            .map(|(_, n)| *n)
            .collect()
    }
}
use flags::*;

/// A sched group with its `sched_group_capacity`.
#[derive(Clone, Debug, PartialEq)]
pub struct SchedGroup {
    pub span: CpuMask,
    pub weight: usize,
    /// Sum of `capacity_of()` of its CPUs (`sgc->capacity`).
    pub capacity: u64,
    pub min_capacity: u64,
    pub max_capacity: u64,
    /// Highest-priority CPU for asym packing (`sg->asym_prefer_cpu`, init_sched_groups_capacity()).
    pub asym_prefer_cpu: usize,
    /// Flags of the child domain this group stands for (`sg->flags`, v6.5+), 0 for single CPUs.
    pub flags: u32,
    /// Number of cores (SMT sibling sets) its CPUs belong to (`sg->cores`, v6.6+,
    /// init_sched_groups_capacity()); counted once here rather than at every balance.
    pub cores: u32,
}

/// One sched domain. CPUs with the same span at the same level share it; the per-CPU balancing
/// state the kernel keeps in each CPU's copy lives in the engine.
#[derive(Clone, Debug, PartialEq)]
pub struct SchedDomain {
    pub level: SdLevel,
    pub span: CpuMask,
    pub span_weight: usize,
    pub flags: u32,
    /// Ordered by first CPU; a CPU walks them from its own (`sd->groups` is the local group).
    pub groups: Vec<SchedGroup>,
    /// For each CPU id: the index of its group, or `u16::MAX` outside the span.
    pub group_of: Vec<u16>,
    pub imbalance_pct: u32,
    pub cache_nice_tries: u32,
    pub busy_factor: u32,
    /// `sd->imb_numa_nr`: tasks a node may run before a NUMA imbalance is corrected (0 below the
    /// first level above the LLC; see [`SchedDomains::build`]).
    pub imb_numa_nr: u32,
    /// ms; `sd_init()`: span weight.
    pub min_interval: u64,
    /// ms; `sd_init()`: twice the span weight.
    pub max_interval: u64,
}

impl SchedDomain {
    pub fn has(&self, f: u32) -> bool {
        self.flags & f != 0
    }
    pub fn local_group(&self, cpu: usize) -> usize {
        self.group_of[cpu] as usize
    }
    /// Group indices starting with `cpu`'s own, in the order `sd->groups->next` visits them.
    pub fn groups_from(&self, cpu: usize) -> impl Iterator<Item = usize> {
        let n = self.groups.len();
        let start = self.local_group(cpu);
        (0..n).map(move |i| (start + i) % n)
    }
}

/// The whole hierarchy for one (topology, config).
#[derive(Clone, Debug, PartialEq)]
pub struct SchedDomains {
    pub domains: Vec<SchedDomain>,
    /// For each CPU, its domains bottom up (`for_each_domain()` order).
    pub per_cpu: Vec<Vec<usize>>,
    /// `sd_llc`: the highest domain with `SD_SHARE_PKG_RESOURCES`.
    pub sd_llc: Vec<Option<usize>>,
    /// `sd_llc_size`.
    pub llc_size: Vec<usize>,
    /// `sd_llc_id`: first CPU of the LLC span.
    pub llc_id: Vec<usize>,
    /// `sd_asym_packing`: the highest domain with `SD_ASYM_PACKING`.
    pub sd_asym_packing: Vec<Option<usize>>,
    /// `sd_asym_cpucapacity`: the lowest domain with `SD_ASYM_CPUCAPACITY_FULL`.
    pub sd_asym_cpucapacity: Vec<Option<usize>>,
    /// `arch_asym_cpu_priority()` of each CPU.
    pub asym_prio: Vec<i64>,
    /// `rd->max_cpu_capacity`.
    pub max_cpu_capacity: u64,
}

impl SchedDomains {
    /// `sched_asym_prefer(a, b)`: is `a` preferred over `b`.
    pub fn sched_asym_prefer(&self, a: usize, b: usize) -> bool {
        self.asym_prio[a] > self.asym_prio[b]
    }
    /// `cpus_share_cache()`.
    pub fn cpus_share_cache(&self, a: usize, b: usize) -> bool {
        self.llc_id[a] == self.llc_id[b]
    }

    pub fn build(topo: &Topology, config: &KernelConfig) -> Result<SchedDomains> {
        let n = topo.nr_cpus();
        // arch_scale_cpu_capacity() of each CPU, once.
        let arch_caps: Vec<u64> = (0..n)
            .map(|c| arch_scale_cpu_capacity(topo, config, c))
            .collect();
        let mut all_caps = arch_caps.clone();
        all_caps.sort_unstable();
        all_caps.dedup();
        let asym_packing = effective_asym_packing(topo, config);
        let asym_prio: Vec<i64> = (0..n)
            .map(|cpu| match asym_packing.map(|a| a.priority) {
                Some(AsymPriority::CpuCapacity) => arch_caps[cpu] as i64,
                Some(AsymPriority::Itmt) => itmt_core_prio(topo, cpu),
                Some(AsymPriority::ItmtSmtScaled) => itmt_smt_scaled_prio(topo, cpu),
                Some(AsymPriority::LowerCpuNumber) | None => -(cpu as i64),
            })
            .collect();
        // Per CPU: the candidate (level, span, flags) chain, bottom up.
        let mut chains: Vec<Vec<(SdLevel, CpuMask, u32)>> = Vec::with_capacity(n);
        for cpu in 0..n {
            let c = &topo.cpus[cpu];
            let smt = match config.smt_domain {
                SmtDomainSpan::Core => topo.cores[c.core],
                SmtDomainSpan::SharingGroup => topo.smt_groups[c.smt_group].cpus,
            };
            let mut chain = vec![
                (
                    SdLevel::SMT,
                    smt,
                    SD_SHARE_CPUCAPACITY | SD_SHARE_PKG_RESOURCES | SD_PREFER_SIBLING,
                ),
                (
                    SdLevel::MC,
                    topo.llc_mask(cpu).or(&smt),
                    SD_SHARE_PKG_RESOURCES,
                ),
                (
                    SdLevel::DIE,
                    topo.packages[c.package].or(&topo.llc_mask(cpu)),
                    SD_PREFER_SIBLING,
                ),
            ];
            if config.prefer_sibling_all_levels {
                chain[1].2 |= SD_PREFER_SIBLING;
            }
            if topo.packages.len() > 1 {
                chain.push((SdLevel::NUMA, topo.all_cpus(), SD_NUMA | SD_SERIALIZE));
            }
            for (level, span, f) in chain.iter_mut() {
                *f |= SD_BALANCE_NEWIDLE | SD_BALANCE_EXEC | SD_BALANCE_FORK | SD_WAKE_AFFINE;
                if config.asym_cpucapacity_detection {
                    // asym_cpu_capacity_classify() (v6.8): some capacities differ inside the span.
                    let mut caps: Vec<u64> = span.iter().map(|i| arch_caps[i]).collect();
                    caps.sort_unstable();
                    caps.dedup();
                    if caps.len() > 1 {
                        *f |= SD_ASYM_CPUCAPACITY;
                        if caps == all_caps {
                            *f |= SD_ASYM_CPUCAPACITY_FULL;
                        }
                    }
                }
                if let Some(ap) = asym_packing {
                    if ap.levels.contains(level) {
                        *f |= SD_ASYM_PACKING;
                    }
                }
            }
            // v4.20+ sd_init(): no spreading across CPUs of different capacities, so the child of
            // an SD_ASYM_CPUCAPACITY domain loses SD_PREFER_SIBLING (before the degenerate
            // domains go, as the kernel builds sd->child first).
            if config.prefer_sibling_asym_clear {
                for k in 1..chain.len() {
                    if chain[k].2 & SD_ASYM_CPUCAPACITY != 0 {
                        chain[k - 1].2 &= !SD_PREFER_SIBLING;
                    }
                }
            }
            // v4.9 sd_init(): a domain with SD_ASYM_CPUCAPACITY, and every domain below it, balance
            // on wake-up (the slow path for tasks wake_cap() finds too big).
            if config.balance_wake_on_asym {
                if let Some(top) = chain
                    .iter()
                    .rposition(|(_, _, f)| f & SD_ASYM_CPUCAPACITY != 0)
                {
                    for entry in chain.iter_mut().take(top + 1) {
                        entry.2 |= SD_BALANCE_WAKE;
                    }
                }
            }
            chains.push(chain);
        }
        let attached = cpu_attach_domains(&chains);
        // Share domains by (level, span).
        let mut domains: Vec<SchedDomain> = Vec::new();
        let mut per_cpu: Vec<Vec<usize>> = vec![Vec::new(); n];
        for cpu in 0..n {
            for &(k, f) in &attached.kept[cpu] {
                let (level, span, _) = chains[cpu][k];
                let idx = match domains
                    .iter()
                    .position(|d| d.level == level && d.span == span)
                {
                    Some(i) => i,
                    None => {
                        // build_sched_groups() / get_group(): a group is the span of the child
                        // domain (the topology level below, before any degenerate domain is
                        // removed) of each CPU of the span; a single CPU at the lowest level.
                        let child_spans: Vec<CpuMask> = span
                            .iter()
                            .map(|i| match k {
                                0 => CpuMask::single(i),
                                _ => chains[i][k - 1].1,
                            })
                            .collect();
                        let group_flags: Vec<u32> = child_spans
                            .iter()
                            .map(|g| attached.group_flags(&chains, k, g.first().unwrap_or(0)))
                            .collect();
                        domains.push(make_domain(
                            topo,
                            config,
                            &asym_prio,
                            level,
                            span,
                            f,
                            &child_spans,
                            &group_flags,
                        ));
                        domains.len() - 1
                    }
                };
                per_cpu[cpu].push(idx);
            }
        }
        set_imb_numa_nr(&mut domains, &per_cpu);
        let highest = |cpu: usize, f: u32| {
            per_cpu[cpu]
                .iter()
                .rev()
                .copied()
                .find(|&d| domains[d].has(f))
        };
        let lowest = |cpu: usize, f: u32| per_cpu[cpu].iter().copied().find(|&d| domains[d].has(f));
        let sd_llc: Vec<Option<usize>> =
            (0..n).map(|c| highest(c, SD_SHARE_PKG_RESOURCES)).collect();
        let llc_size = (0..n)
            .map(|c| sd_llc[c].map_or(1, |d| domains[d].span_weight))
            .collect();
        let llc_id = (0..n)
            .map(|c| sd_llc[c].map_or(c, |d| domains[d].span.first().unwrap()))
            .collect();
        let sd_asym_packing = (0..n).map(|c| highest(c, SD_ASYM_PACKING)).collect();
        let sd_asym_cpucapacity = (0..n)
            .map(|c| lowest(c, SD_ASYM_CPUCAPACITY_FULL))
            .collect();
        let max_cpu_capacity = (0..n)
            .map(|c| capacity_orig(topo, config, c))
            .max()
            .unwrap_or(1024);
        Ok(SchedDomains {
            domains,
            per_cpu,
            sd_llc,
            llc_size,
            llc_id,
            sd_asym_packing,
            sd_asym_cpucapacity,
            asym_prio,
            max_cpu_capacity,
        })
    }

    /// The shape `build_sched_domains()` guarantees, checked (for tests and the random-scenario
    /// sweep): each CPU's domains strictly grow bottom up and contain it; each domain's groups
    /// partition its span, each group being the CPU's next-lower domain span or a single CPU at the
    /// bottom; `group_of` names the group of every CPU of the span and no other.
    pub fn check_well_formed(&self, nr_cpus: usize) -> std::result::Result<(), String> {
        for cpu in 0..nr_cpus {
            let mut below: Option<CpuMask> = None;
            for &d in &self.per_cpu[cpu] {
                let sd = &self.domains[d];
                if !sd.span.test(cpu) {
                    return Err(format!(
                        "CPU{cpu}'s {} domain {} misses it",
                        sd.level.name(),
                        sd.span
                    ));
                }
                if let Some(b) = below {
                    if !b.is_subset_of(&sd.span) || b == sd.span {
                        return Err(format!(
                            "CPU{cpu}: {} domain {} does not strictly contain {b}",
                            sd.level.name(),
                            sd.span
                        ));
                    }
                }
                below = Some(sd.span);
            }
        }
        for sd in &self.domains {
            let mut covered = CpuMask::default();
            for g in &sd.groups {
                if g.span.is_empty()
                    || !g.span.is_subset_of(&sd.span)
                    || !g.span.and(&covered).is_empty()
                {
                    return Err(format!(
                        "{} domain {}: group {} overlaps another or leaves the span",
                        sd.level.name(),
                        sd.span,
                        g.span
                    ));
                }
                covered = covered.or(&g.span);
            }
            if covered != sd.span || sd.groups.len() < 2 {
                return Err(format!(
                    "{} domain {}: its {} groups cover {covered}",
                    sd.level.name(),
                    sd.span,
                    sd.groups.len()
                ));
            }
            for cpu in 0..nr_cpus {
                let g = sd.group_of.get(cpu).copied().unwrap_or(u16::MAX);
                let inside = sd.span.test(cpu);
                if inside != (g != u16::MAX) || (inside && !sd.groups[g as usize].span.test(cpu)) {
                    return Err(format!(
                        "{} domain {}: group_of[{cpu}] is wrong",
                        sd.level.name(),
                        sd.span
                    ));
                }
            }
        }
        Ok(())
    }

    /// The hierarchy as data for the CLI and the page.
    pub fn view(&self, topo: &Topology) -> DomainsView {
        DomainsView {
            machine: topo.spec.name.clone(),
            cpus: (0..topo.nr_cpus())
                .map(|cpu| CpuDomainsView {
                    cpu,
                    capacity_orig: topo.cpus[cpu].capacity_orig,
                    cluster: topo.cluster_name(cpu).to_string(),
                    levels: self.per_cpu[cpu]
                        .iter()
                        .map(|&d| {
                            let sd = &self.domains[d];
                            LevelView {
                                level: sd.level.name().to_string(),
                                span: sd.span.to_string(),
                                flags: flags::names(sd.flags)
                                    .into_iter()
                                    .map(String::from)
                                    .collect(),
                                imbalance_pct: sd.imbalance_pct,
                                groups: sd
                                    .groups_from(cpu)
                                    .map(|g| GroupView {
                                        span: sd.groups[g].span.to_string(),
                                        capacity: sd.groups[g].capacity,
                                    })
                                    .collect(),
                            }
                        })
                        .collect(),
                })
                .collect(),
        }
    }
}

/// What `cpu_attach_domain()` (v6.8 topology.c) leaves of each CPU's candidate domains, and the
/// `sg->flags` it rewrites on the way.
struct Attached {
    /// Per CPU: (index into its candidate chain, the domain's flags after the clean-up), bottom up.
    kept: Vec<Vec<(usize, u32)>>,
    /// `sg->flags` overwritten by the clean-up, by (chain index of the group's domain, the group's
    /// first CPU); the last write wins, CPUs being attached in order as `build_sched_domains()` does.
    group_flags_set: Vec<(usize, usize, u32)>,
}

impl Attached {
    /// `sg->flags` of the group starting at `first` in the domains of chain index `k`: the flags of
    /// the child domain it was built from (`get_group()`: `sg->flags = child->flags`, 0 for a single
    /// CPU at the lowest level), unless the clean-up rewrote them.
    fn group_flags(&self, chains: &[Vec<(SdLevel, CpuMask, u32)>], k: usize, first: usize) -> u32 {
        let built = match k {
            0 => 0,
            _ => chains[first][k - 1].2,
        };
        self.group_flags_set
            .iter()
            .rev()
            .find(|&&(gk, gfirst, _)| gk == k && gfirst == first)
            .map_or(built, |&(_, _, f)| f)
    }
}

/// `cpu_attach_domain()`'s clean-up of each CPU's domains, as v6.8 has it: drop a parent that adds
/// nothing over its child (`sd_parent_degenerate()`): the grandparent's local group takes the
/// child's flags and `SD_PREFER_SIBLING` passes down; then drop a bottom domain of one CPU
/// (`sd_degenerate()`; every domain here has `SD_WAKE_AFFINE`, so only a one-CPU span degenerates),
/// clearing the flags of the new bottom domain's local group. (The kernel's clearing loop never
/// advances past `sd->groups`, so only the local group is cleared; modelled as it is.)
///
/// The groups themselves are built before the clean-up from the undegenerated levels, which is why
/// a machine whose CPUs keep different numbers of levels (SMT cores beside single-thread ones)
/// still has well-formed groups.
fn cpu_attach_domains(chains: &[Vec<(SdLevel, CpuMask, u32)>]) -> Attached {
    let mut kept = Vec::with_capacity(chains.len());
    let mut group_flags_set = Vec::new();
    for (cpu, chain) in chains.iter().enumerate() {
        let mut live: Vec<(usize, u32)> = chain.iter().enumerate().map(|(k, d)| (k, d.2)).collect();
        let mut i = 0;
        while i + 1 < live.len() {
            let (ck, cflags) = live[i];
            let (pk, mut pflags) = live[i + 1];
            let (cspan, pspan) = (chain[ck].1, chain[pk].1);
            let parent_degenerate = if pspan.weight() == 1 {
                true
            } else if pspan != cspan {
                false
            } else {
                // The parent has a single group (the child's span): group flags mean nothing there.
                pflags &= !SD_DEGENERATE_GROUPS_MASK;
                pflags & !cflags == 0
            };
            if parent_degenerate {
                if let Some(&(gk, _)) = live.get(i + 2) {
                    group_flags_set.push((gk, group_first_cpu(chains, gk, cpu), cflags));
                }
                if live[i + 1].1 & SD_PREFER_SIBLING != 0 {
                    live[i].1 |= SD_PREFER_SIBLING;
                }
                live.remove(i + 1);
            } else {
                i += 1;
            }
        }
        if live.first().is_some_and(|&(k, _)| chain[k].1.weight() == 1) {
            live.remove(0);
            if let Some(&(k, _)) = live.first() {
                group_flags_set.push((k, group_first_cpu(chains, k, cpu), 0));
            }
        }
        kept.push(live);
    }
    Attached {
        kept,
        group_flags_set,
    }
}

/// The first CPU of `cpu`'s own group in its domain of chain index `k` (`sd->groups`).
fn group_first_cpu(chains: &[Vec<(SdLevel, CpuMask, u32)>], k: usize, cpu: usize) -> usize {
    match k {
        0 => cpu,
        _ => chains[cpu][k - 1].1.first().unwrap_or(cpu),
    }
}

/// The distinct cores among `span`'s CPUs: init_sched_groups_capacity() (v6.6+) counts one per
/// SMT mask it meets while clearing that mask from a copy of the span.
fn group_cores(topo: &Topology, span: CpuMask) -> u32 {
    let mut seen = CpuMask::EMPTY;
    for c in span.iter() {
        seen.set(topo.cpus[c].core);
    }
    seen.weight() as u32
}

#[allow(clippy::too_many_arguments)]
fn make_domain(
    topo: &Topology,
    config: &KernelConfig,
    asym_prio: &[i64],
    level: SdLevel,
    span: CpuMask,
    flags: u32,
    child_spans: &[CpuMask],
    group_flags: &[u32],
) -> SchedDomain {
    // build_sched_groups(): one group per child span, in CPU order.
    let mut groups: Vec<SchedGroup> = Vec::new();
    let mut group_of = vec![u16::MAX; topo.nr_cpus()];
    for (i, cpu) in span.iter().enumerate() {
        let gspan = child_spans[i];
        let gi = match groups.iter().position(|g| g.span == gspan) {
            Some(gi) => gi,
            None => {
                // init_sched_groups_capacity(): the sum of the CPUs' capacity_of().
                let caps: Vec<u64> = gspan
                    .iter()
                    .map(|c| capacity_orig(topo, config, c))
                    .collect();
                let mut prefer = gspan.first().unwrap();
                for c in gspan.iter() {
                    if asym_prio[c] > asym_prio[prefer] {
                        prefer = c;
                    }
                }
                groups.push(SchedGroup {
                    span: gspan,
                    weight: gspan.weight(),
                    capacity: caps.iter().sum(),
                    min_capacity: *caps.iter().min().unwrap(),
                    max_capacity: *caps.iter().max().unwrap(),
                    asym_prefer_cpu: prefer,
                    flags: group_flags[i],
                    cores: group_cores(topo, gspan),
                });
                groups.len() - 1
            }
        };
        group_of[cpu] = gi as u16;
    }
    // sd_init(): imbalance_pct and cache_nice_tries by the kind of level.
    let (imbalance_pct, cache_nice_tries) = if flags & SD_SHARE_CPUCAPACITY != 0 {
        (110, 0)
    } else if flags & SD_SHARE_PKG_RESOURCES != 0 {
        (117, 1)
    } else if flags & SD_NUMA != 0 {
        (config.imbalance_pct_die, 2)
    } else {
        (config.imbalance_pct_die, 1)
    };
    let w = span.weight();
    SchedDomain {
        level,
        span,
        span_weight: w,
        flags,
        groups,
        group_of,
        imbalance_pct,
        cache_nice_tries,
        busy_factor: config.busy_factor,
        imb_numa_nr: 0,
        min_interval: w as u64,
        max_interval: 2 * w as u64,
    }
}

/// `build_sched_domains()` (v6.8): the NUMA imbalance allowance. The first domain above the LLC
/// allows as many tasks as it has LLCs (an eighth of its CPUs when it has one LLC); the domains
/// above it scale that by how many of the first NUMA domain's spans they cover.
fn set_imb_numa_nr(domains: &mut [SchedDomain], per_cpu: &[Vec<usize>]) {
    for chain in per_cpu {
        let (mut imb, mut imb_span) = (0usize, 1usize);
        for (k, &d) in chain.iter().enumerate() {
            let child = k.checked_sub(1).map(|c| chain[c]);
            let first_above_llc = child.is_some_and(|c| {
                !domains[d].has(SD_SHARE_PKG_RESOURCES) && domains[c].has(SD_SHARE_PKG_RESOURCES)
            });
            if let (true, Some(c)) = (first_above_llc, child) {
                let nr_llcs = domains[d].span_weight / domains[c].span_weight;
                imb = if nr_llcs == 1 {
                    domains[d].span_weight >> 3
                } else {
                    nr_llcs
                }
                .max(1);
                domains[d].imb_numa_nr = imb as u32;
                imb_span = chain[k + 1..]
                    .iter()
                    .find(|&&p| domains[p].has(SD_NUMA))
                    .map_or(domains[d].span_weight, |&p| domains[p].span_weight);
            } else {
                let factor = (domains[d].span_weight / imb_span).max(1);
                domains[d].imb_numa_nr = (imb * factor) as u32;
            }
        }
    }
}

/// The hierarchy of each CPU, for display.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct DomainsView {
    pub machine: String,
    pub cpus: Vec<CpuDomainsView>,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct CpuDomainsView {
    pub cpu: usize,
    pub capacity_orig: u32,
    pub cluster: String,
    pub levels: Vec<LevelView>,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct LevelView {
    pub level: String,
    pub span: String,
    pub flags: Vec<String>,
    pub imbalance_pct: u32,
    pub groups: Vec<GroupView>,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct GroupView {
    pub span: String,
    pub capacity: u64,
}

impl DomainsView {
    /// `schedlab domains` text: one block per CPU, one line per level.
    pub fn to_text(&self) -> String {
        let mut s = format!("sched domains of {}\n", self.machine);
        for c in &self.cpus {
            s.push_str(&format!(
                "CPU{} ({}, capacity {})\n",
                c.cpu, c.cluster, c.capacity_orig
            ));
            for (depth, l) in c.levels.iter().enumerate() {
                let groups: Vec<String> = l
                    .groups
                    .iter()
                    .map(|g| format!("{{{}}}:{}", g.span, g.capacity))
                    .collect();
                s.push_str(&format!(
                    "  {:indent$}domain-{depth} {:<4} span {:<8} imbalance_pct {} groups {}\n    {:indent$}flags {}\n",
                    "",
                    l.level,
                    l.span,
                    l.imbalance_pct,
                    groups.join(" "),
                    "",
                    l.flags.join("|"),
                    indent = depth * 2
                ));
            }
        }
        s
    }
}

#[cfg(test)]
mod tests;
