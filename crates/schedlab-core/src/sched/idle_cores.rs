//! Which cores are wholly or partly idle, kept beside [`World::idle_mask`] so that the wake-up
//! path's idle-core searches (`select_idle_core()`, v4.9+ and its v5.12+ merged form) are a few
//! word operations instead of a walk over the LLC's cores testing every sibling.
//!
//! The kernel walks the cores (`for_each_cpu_wrap(cpu, cpus, target)` with
//! `cpumask_andnot(cpus, cpus, cpu_smt_mask(cpu))` after each) and tests each sibling's
//! `available_idle_cpu()`; the walk's answer depends only on which cores are wholly idle and which
//! have an idle thread, which is what these masks hold. They are bookkeeping, not kernel state.

use super::World;
use crate::cpumask::CpuMask;
use crate::topology::Topology;

/// Per core, how many of its threads are in the idle mask, and the two masks that follow.
#[derive(Clone, Debug, Default)]
pub struct IdleCores {
    /// Threads of each core (index into [`Topology::cores`]) with nothing running or queued.
    idle_threads: Vec<u32>,
    /// Threads of each core.
    threads: Vec<u32>,
    /// CPUs whose every SMT sibling (`cpu_smt_mask()`, themselves included) is idle.
    pub whole: CpuMask,
    /// CPUs of cores with at least one idle thread.
    pub some: CpuMask,
}

impl IdleCores {
    /// The bookkeeping for `idle` (a mask of idle CPUs).
    pub fn new(topo: &Topology, idle: &CpuMask) -> IdleCores {
        let mut s = IdleCores {
            idle_threads: vec![0; topo.cores.len()],
            threads: topo.cores.iter().map(|m| m.weight() as u32).collect(),
            whole: CpuMask::EMPTY,
            some: CpuMask::EMPTY,
        };
        for (core, mask) in topo.cores.iter().enumerate() {
            let n = mask.and(idle).weight();
            s.idle_threads[core] = n as u32;
            if n as u32 == s.threads[core] {
                s.whole = s.whole.or(mask);
            }
            if n > 0 {
                s.some = s.some.or(mask);
            }
        }
        s
    }

    /// `cpu` entered (`idle`) or left the idle mask. Called only on a change.
    fn changed(&mut self, topo: &Topology, cpu: usize, idle: bool) {
        let core = topo.cpus[cpu].core;
        let mask = &topo.cores[core];
        let weight = self.threads[core];
        let n = &mut self.idle_threads[core];
        // The masks move only when the count crosses 0 <-> 1 (some) or weight - 1 <-> weight
        // (whole).
        if idle {
            *n += 1;
            if *n == 1 {
                self.some = self.some.or(mask);
            }
            if *n == weight {
                self.whole = self.whole.or(mask);
            }
        } else {
            if *n == weight {
                self.whole = self.whole.and_not(mask);
            }
            if *n == 1 {
                self.some = self.some.and_not(mask);
            }
            *n -= 1;
        }
    }
}

impl World {
    /// Keeps [`World::idle_mask`] (and [`World::idle_cores`]) in step with a runqueue that
    /// changed.
    pub(crate) fn update_idle_mask(&mut self, cpu: usize) {
        let idle = self.rqs[cpu].curr.is_none() && self.rqs[cpu].nr_running == 0;
        if idle == self.idle_mask.test(cpu) {
            return;
        }
        if idle {
            self.idle_mask.set(cpu);
        } else {
            self.idle_mask.clear(cpu);
        }
        self.idle_cores.changed(&self.topo, cpu, idle);
    }

    /// Sets the idle mask wholesale (tests that pose a machine state directly).
    #[cfg(test)]
    pub(crate) fn set_idle_mask(&mut self, idle: CpuMask) {
        self.idle_mask = idle;
        self.idle_cores = IdleCores::new(&self.topo, &idle);
    }

    /// The first CPU of `cpus` from `start` in `for_each_cpu_wrap()` order whose core is wholly
    /// idle: what the kernel's walk over `cpus` by cores returns (the visited CPU of the first
    /// core whose siblings are all `available_idle_cpu()`). A core is visited at the first of
    /// its CPUs in `cpus`, and all of its CPUs are in [`IdleCores::whole`] together.
    pub(crate) fn first_idle_core_wrap(&self, cpus: &CpuMask, start: usize) -> Option<usize> {
        cpus.and(&self.idle_cores.whole).next_wrap(start)
    }

    /// v5.12+ `select_idle_core()`'s `*idle_cpu` after a walk over `cpus` from `start` that found
    /// no wholly idle core: the lowest idle sibling in `allowed` of the first core visited that
    /// has one. The first CPU of `cpus` (wrap order) in a core with an idle thread is where that
    /// core is visited; a core whose idle threads are all disallowed is passed over.
    pub(crate) fn first_idle_smt_wrap(
        &self,
        cpus: &CpuMask,
        allowed: &CpuMask,
        start: usize,
    ) -> Option<usize> {
        let mut candidates = cpus.and(&self.idle_cores.some);
        while let Some(cpu) = candidates.next_wrap(start) {
            let core = &self.topo.cores[self.topo.cpus[cpu].core];
            if let Some(c) = core.and(allowed).and(&self.idle_mask).first() {
                return Some(c);
            }
            candidates = candidates.and_not(core);
        }
        None
    }
}
