//! x86 hybrid CPU capacity scaling (v6.12+): intel_pstate gives the scheduler the P- and E-cores'
//! capacities, and turns ITMT off for it.
//!
//! v6.12 (929ebc93ccaa "cpufreq: intel_pstate: Set asymmetric CPU capacity on hybrid systems", on
//! top of "x86/sched: Add basic support for CPU capacity scaling" in
//! arch/x86/kernel/cpu/aperfmperf.c): at driver init, `hybrid_init_cpu_capacity_scaling()` does
//! this only when `hwp_is_hybrid && !sched_smt_active() && arch_enable_hybrid_capacity_scale()`:
//! on a hybrid part booted with SMT on (the i9-12900K's P-cores have HT) nothing changes, x86's
//! `arch_scale_cpu_capacity()` stays at `SCHED_CAPACITY_SCALE` and ITMT keeps packing. Otherwise:
//!
//! - `hybrid_update_cpu_capacity_scaling()` picks the CPU of the highest `capacity_perf`
//!   (`hybrid_get_capacity_perf()`: `HWP_HIGHEST_PERF(hwp_cap_cached)` with turbo on) as
//!   `hybrid_max_perf_cpu`;
//! - `hybrid_set_cpu_capacity()` calls `arch_set_cpu_capacity(cpu, capacity_perf,
//!   max capacity_perf, ...)`, which stores `capacity_perf << SCHED_CAPACITY_SHIFT / max`; the
//!   scheduler reads it back as `arch_scale_cpu_capacity(cpu)`;
//! - `sched_clear_itmt_support()`: the sched domains are rebuilt without SD_ASYM_PACKING, and with
//!   the capacities differing, `asym_cpu_capacity_scan()` / `asym_cpu_capacity_classify()` flag
//!   the domains spanning P- and E-cores SD_ASYM_CPUCAPACITY (v6.12's own comment: "Disabling
//!   ITMT causes sched domains to be rebuilt to disable asym packing and enable asym capacity").
//!
//! The model's `hwp_is_hybrid` (X86_FEATURE_HYBRID_CPU with HWP): every cluster gives its
//! [`crate::topology::ClusterSpec::hwp_highest_perf`] and the clusters have more than one
//! `core_type`. `sched_smt_active()`: some cluster has more than one thread per core.
//!
//! Left out: the per-CPU `freq_ratio` the same call sets for frequency invariance (`cap_freq /
//! base_freq`: the model's x86 invariance keeps its machine-wide reference), the `no_turbo`
//! case (`capacity_perf` from `max_pstate_physical`), capacity updates when HWP_CAP changes at run
//! time (`hybrid_update_capacity()`), and the energy model intel_pstate registers for EAS from
//! v6.16 (`hybrid_register_perf_domain()`), so EAS stays off on x86 ("no EM").

use crate::kernel::{AsymPacking, AsymPriority, KernelConfig};
use crate::topology::Topology;
use crate::units::SCHED_CAPACITY_SCALE;

/// `hybrid_max_perf_cpu->capacity_perf` where v6.12's intel_pstate enables hybrid capacity
/// scaling on this machine under this kernel (see the module doc), else `None`. A few operations
/// per cluster: no per-CPU work.
pub fn hybrid_max_capacity_perf(topo: &Topology, config: &KernelConfig) -> Option<u64> {
    if !config.x86_hybrid_capacity {
        return None;
    }
    let clusters = &topo.spec.clusters;
    let first = clusters.first()?;
    let hwp_is_hybrid = clusters.iter().all(|c| c.hwp_highest_perf.is_some())
        && clusters.iter().any(|c| c.core_type != first.core_type);
    let sched_smt_active = clusters.iter().any(|c| c.threads_per_core > 1);
    if !hwp_is_hybrid || sched_smt_active {
        return None;
    }
    clusters
        .iter()
        .filter_map(|c| c.hwp_highest_perf)
        .max()
        .filter(|&max| max > 0)
        .map(u64::from)
}

/// `arch_set_cpu_capacity()`'s capacity: `capacity_perf << SCHED_CAPACITY_SHIFT / max_cap_perf`.
pub fn hybrid_cpu_capacity(topo: &Topology, cpu: usize, max_cap_perf: u64) -> u64 {
    let perf = topo.spec.clusters[topo.cpus[cpu].cluster]
        .hwp_highest_perf
        .unwrap_or(0) as u64;
    perf * SCHED_CAPACITY_SCALE / max_cap_perf
}

/// The asym packing the sched domains are built with: the kernel's, except that ITMT's (the
/// priorities x86 sets through `sched_set_itmt_support()`) is gone once intel_pstate has called
/// `sched_clear_itmt_support()` for hybrid capacity scaling.
pub fn effective_asym_packing<'a>(
    topo: &Topology,
    config: &'a KernelConfig,
) -> Option<&'a AsymPacking> {
    let ap = config.asym_packing.as_ref()?;
    let itmt = matches!(
        ap.priority,
        AsymPriority::Itmt | AsymPriority::ItmtSmtScaled
    );
    if itmt && hybrid_max_capacity_perf(topo, config).is_some() {
        None
    } else {
        Some(ap)
    }
}
