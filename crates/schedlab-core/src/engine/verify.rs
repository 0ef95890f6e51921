//! The invariant checker of [`Engine::with_invariant_checks`] runs (tests): `verify()`, after
//! every event, checks the runqueues against their tasks (membership, counts, weights,
//! `util_est`, vruntime order, the `avg_vruntime` sums), the idle mask and the idle-core masks that follow it, each clock's frequency scale, the pending completion events, the per-package
//! active-core counts and each clock's frequency against its requests and turbo cap. It holds no kernel function.

use super::{Engine, EvKind};
use crate::error::{Error, Result};
use crate::sched::{TaskId, TaskState};

impl Engine<'_> {
    /// Every runnable task is on exactly one runqueue (queued or running), runqueue counts and
    /// weights match their tasks, a CPU runs at most one task, and blocked tasks are on none.
    ///
    /// One pass over the event queue and the runqueues: linear in the machine's size per event, so
    /// checked sweeps stay within a few times the cost of plain runs.
    #[inline(never)]
    pub(super) fn verify(&self) -> Result<()> {
        let n = self.w.nr_cpus();
        let mut seen = vec![0u32; self.w.tasks.len()];
        // Which CPUs have the completion event of their current generation pending.
        let mut armed = vec![false; n];
        for e in self.queue.iter() {
            if let EvKind::RunDone(cpu) = e.kind() {
                if self.w.rqs[cpu].run_done_seq == e.seq() {
                    armed[cpu] = true;
                }
            }
        }
        if self.w.tick_ns != self.w.config.tick_ns() {
            return Err(Error::Scenario(
                "invariant: the tick length out of step with the kernel's HZ".into(),
            ));
        }
        for (fd, clock) in self.w.clocks.iter().enumerate() {
            if clock.freq_scale != self.w.freq_scale_at(fd, clock.cur_khz) {
                return Err(Error::Scenario(format!(
                    "invariant: clock {fd}'s frequency scale out of step with its frequency"
                )));
            }
        }
        let rebuilt = crate::sched::idle_cores::IdleCores::new(&self.w.topo, &self.w.idle_mask);
        if rebuilt.whole != self.w.idle_cores.whole || rebuilt.some != self.w.idle_cores.some {
            return Err(Error::Scenario(
                "invariant: idle-core masks out of step with the idle mask".into(),
            ));
        }
        for (cpu, rq) in self.w.rqs.iter().enumerate() {
            let mut weight = 0;
            let members: Vec<TaskId> = rq.queue.iter().map(|&(_, t)| t).chain(rq.curr).collect();
            for &t in &members {
                seen[t] += 1;
                weight += self.w.tasks[t].weight;
                if self.w.tasks[t].cpu != cpu || !self.w.task_on_rq(t) {
                    return Err(Error::Scenario(format!(
                        "invariant: task {t} on rq {cpu} has cpu {} state {:?}",
                        self.w.tasks[t].cpu, self.w.tasks[t].state
                    )));
                }
            }
            if members.len() != rq.nr_running
                || weight != rq.load_weight
                || rq.cfs_tasks.len() != rq.nr_running
            {
                return Err(Error::Scenario(format!(
                    "invariant: rq {cpu} nr_running {} but {} tasks ({} in cfs_tasks)",
                    rq.nr_running,
                    members.len(),
                    rq.cfs_tasks.len()
                )));
            }
            let delayed = members
                .iter()
                .filter(|&&t| self.w.tasks[t].sched_delayed)
                .count();
            if delayed != rq.h_nr_delayed {
                return Err(Error::Scenario(format!(
                    "invariant: rq {cpu} h_nr_delayed {} but {delayed} delayed tasks",
                    rq.h_nr_delayed
                )));
            }
            if self.w.config.util_est {
                // A delayed task's estimate left the rq at its sleep (util_est_dequeue()).
                let sum: u64 = members
                    .iter()
                    .filter(|&&t| !self.w.tasks[t].sched_delayed)
                    .map(|&t| {
                        self.w.tasks[t]
                            .util_est_ewma
                            .max(self.w.tasks[t].util_est_enqueued)
                    })
                    .sum();
                if sum != rq.util_est_enqueued {
                    return Err(Error::Scenario(format!(
                        "invariant: rq {cpu} util_est.enqueued {} but its tasks' estimates sum to {sum}",
                        rq.util_est_enqueued
                    )));
                }
            }
            // uclamp: every queued task refcounted once per clamp id (a DELAY_DEQUEUE'd task
            // was released at its sleep, core.c dequeue_task(), unless a balancer moved it and
            // enqueue_task() counted it again), and the rq's value the max of its counted tasks'
            // (the bucket max may exceed a task's, never the rq's).
            if self.w.config.uclamp {
                for id in [
                    crate::sched::uclamp::UCLAMP_MIN,
                    crate::sched::uclamp::UCLAMP_MAX,
                ] {
                    let counted = |t: &&usize| self.w.tasks[**t].uclamp.eff[id].active;
                    let nr = members.iter().filter(counted).count();
                    let top = members
                        .iter()
                        .filter(counted)
                        .map(|&t| self.w.tasks[t].uclamp.eff[id].value)
                        .max();
                    let ok = rq.uclamp.tasks(id) as usize == nr
                        && members
                            .iter()
                            .all(|&t| self.w.tasks[t].sched_delayed || counted(&&t))
                        && top.is_none_or(|m| rq.uclamp.value[id] >= m)
                        && rq.uclamp.idle == (nr == 0);
                    if !ok {
                        return Err(Error::Scenario(format!(
                            "invariant: rq {cpu} uclamp[{id}] {:?} does not match its {} tasks",
                            rq.uclamp, rq.nr_running
                        )));
                    }
                }
            }
            if self.w.idle_mask.test(cpu) != (rq.curr.is_none() && rq.nr_running == 0) {
                return Err(Error::Scenario(format!(
                    "invariant: idle mask out of step on CPU{cpu}"
                )));
            }
            if rq.curr.is_none() && rq.nr_running > 0 && !self.exiting.test(cpu) {
                return Err(Error::Scenario(format!(
                    "invariant: CPU{cpu} has {} runnable tasks and runs none",
                    rq.nr_running
                )));
            }
            if let Some(t) = rq.curr {
                // Whatever curr does, its completion event (for this generation) is pending.
                if !armed[cpu] {
                    return Err(Error::Scenario(format!(
                        "invariant: CPU{cpu} runs task {t} (work left {}) with no completion event",
                        self.w.tasks[t].work_left
                    )));
                }
            }
            if rq.queue.windows(2).any(|w| w[0] > w[1]) {
                return Err(Error::Scenario(format!(
                    "invariant: rq {cpu} queue out of vruntime order"
                )));
            }
            // cfs_rq->avg_vruntime / avg_load: the tree's keys times weights, and its weights.
            let (mut avg, mut load) = (0i64, 0u64);
            for &(v, t) in &rq.queue {
                let w = self.w.tasks[t].weight;
                avg += v.wrapping_sub(rq.min_vruntime) as i64 * w as i64;
                load += w;
            }
            if (avg, load) != (rq.avg_vruntime, rq.avg_load) {
                return Err(Error::Scenario(format!(
                    "invariant: rq {cpu} avg_vruntime/avg_load {}/{} where its queue sums {avg}/{load}",
                    rq.avg_vruntime, rq.avg_load
                )));
            }
        }
        let mut busy_cores = vec![0u32; self.w.active_cores.len()];
        for c in &self.w.topo.cores {
            if c.iter().any(|i| self.w.busy_since[i].is_some()) {
                busy_cores[self.w.topo.cpus[c.first().unwrap_or(0)].package] += 1;
            }
        }
        for (p, &n) in self.w.active_cores.iter().enumerate() {
            let busy = busy_cores[p];
            if busy != n {
                return Err(Error::Scenario(format!(
                    "invariant: package {p} counts {n} active cores, {busy} are"
                )));
            }
        }
        for (fd, clock) in self.w.clocks.iter().enumerate() {
            let khz = self.w.clock_target_khz(fd);
            if clock.cur_khz != khz {
                return Err(Error::Scenario(format!(
                    "invariant: clock {fd} runs at {} kHz where its requests and cap give {khz}",
                    clock.cur_khz
                )));
            }
        }
        for (t, task) in self.w.tasks.iter().enumerate() {
            let expect = u32::from(task.state == TaskState::Runnable || task.sched_delayed);
            if seen[t] != expect {
                return Err(Error::Scenario(format!(
                    "invariant: task {t} ({:?}) is on {} runqueues",
                    task.state, seen[t]
                )));
            }
        }
        Ok(())
    }
}
