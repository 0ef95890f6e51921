//! rt-app (github.com/scheduler-tools/rt-app: `src/rt-app_parse_config.c`, `src/rt-app.c`,
//! `doc/tutorial.txt`): a JSON file describing threads as phases of events (run, sleep, timer,
//! locks, conditions, barriers, fork...), imported as programs of [`Op`]s.
//!
//! # The file
//! rt-app reads its file with json-c's non-strict tokener, so this importer reads it with the same
//! grammar ([`json`]): `/* */` and `//` comments, trailing commas, single-quoted strings, and
//! **duplicate keys as json-c keeps them: in the place of the first occurrence, with the value of
//! the last** (`json_object_object_add()` replaces the value in place). So
//! `{"run": 1000, "sleep": 500, "run": 3000}` is *run 3000, sleep 500*, not three events; write
//! distinct keys (`run0`, `run1`) for repeated events, as rt-app's own examples do (rt-app's
//! `workgen` script renames duplicates before calling rt-app; rt-app itself does not). Keys keep
//! their file order, which is the order of phases and of the events in a phase. A JSON `null`
//! counts as an absent key, as json-c stores null as no object.
//!
//! # Events: prefix-matched keys
//! A key of a phase is an event if it *starts with* an event name (`obj_is_event()`); the type is
//! decided in `parse_task_event_data()`'s order: a key starting with `run` or `sleep` is `sleep`
//! if it starts with `sleep`, `runtime` if it starts with `runtime`, else `run` (so `run0`,
//! `runXYZ`, `running` are run events and `runtime_big` is a runtime event); then `memrun`,
//! `mem`/`iorun`, `lock`/`unlock`, `signal`/`broad`, `wait`/`sync`, `barrier`, `timer`,
//! `resume`, `suspend`, `yield`, `fork`, `sem_post`, `sem_wait`. Other keys are properties
//! (`loop`, `cpus`, `priority`, `policy`, ...) or are ignored, as rt-app ignores them (a key such
//! as `"description"`; also event keys at task level when the task has `"phases"`).
//!
//! | rt-app | model |
//! |---|---|
//! | `run: us` | [`Op::Run`]: fixed work, calibrated below; longer on a slower or down-clocked CPU |
//! | `runtime: us` | [`Op::RunFor`]: busy for that wall time (rt-app's up to 32 us overshoot is left out) |
//! | `sleep: us` | [`Op::Sleep`] |
//! | `timer: {ref, period, mode}` | [`Op::Timer`], one timer per `ref`; a `ref` starting with `unique` is one timer per thread |
//! | `lock`/`unlock: m` | [`Op::Lock`]/[`Op::Unlock`] |
//! | `wait: {ref, mutex}` | [`Op::CondWait`] then [`Op::Lock`] (pthread_cond_wait() re-takes the mutex) |
//! | `signal`/`broad: c` | [`Op::CondSignal`]/[`Op::CondBroadcast`] |
//! | `sync: {ref, mutex}` | `CondSignal`, `CondWait`, `Lock` (rt-app's signal-and-wait) |
//! | `barrier: b` | [`Op::Barrier`]; parties counted as rt-app counts them (below) |
//! | `suspend` | `Lock(m)`, `CondWait(c, m)`, `Lock(m)`, `Unlock(m)` on the condition and mutex named after the task |
//! | `resume: task` | `Lock(m)`, `CondBroadcast(c)`, `Unlock(m)` on that task's condition and mutex |
//! | `sem_post`/`sem_wait: s` | [`Op::Resume`]/[`Op::Suspend`]: a counting semaphore starting at 0 |
//! | `yield` | [`Op::Yield`] |
//! | `fork: task` | [`Op::Fork`] of that task's program |
//!
//! `suspend`/`resume` follow rt-app's code (`run_event()`), not a semaphore: rt-app waits on the
//! condition variable named after the suspending task and `resume` *broadcasts* it under the
//! mutex of that name, so a resume wakes every suspended instance and a resume that comes when
//! nobody is suspended is lost. Those names share rt-app's name spaces: `"signal": "taskB"` wakes
//! a suspended `taskB`, as it does in rt-app.
//!
//! Names of mutexes, conditions, timers, barriers and semaphores are separate name spaces, as in
//! `get_resource_index()` (which looks a resource up by name *and* type). A timer's `mode` is a
//! property of the timer, not of the event: if any event of a timer says `"absolute"` (rt-app
//! compares the prefix), every use of that timer is absolute; anything else is relative. A
//! missing `ref` is the shared timer `"unknown"`, a missing `period` is 0, as in rt-app.
//!
//! # Threads, phases, loops
//! rt-app's main thread creates every thread (`instance` of each task, default 1; 0 creates none,
//! the task is then only a template for `fork`) with `pthread_create()`, and the threads wait on a
//! start barrier. The model does the same: program 0, `rt-app`, forks one program per thread
//! (named as rt-app names threads, `<task>-<index>` with a global index in file order) and waits
//! for them; each thread passes a barrier of all threads, then:
//! 1. `delay` (us): [`Op::Delay`]: rt-app sleeps until the absolute time `t_zero + delay` (no
//!    sleep when it has passed) and the timers the thread is first to use count from there;
//! 2. [`Op::SetNice`] with the task's `priority` (the nice value for SCHED_OTHER, default 0);
//!    With it, [`Op::SetSlice`] with the task's `dl-runtime` (us; for a task with phases the
//!    legacy task-level `runtime` when `dl-runtime` is absent): rt-app (c9d45bd) passes it to
//!    `sched_setattr()` as `sched_runtime`, a custom slice on Linux 6.12+. `dl-period` and
//!    `dl-deadline` are not passed for SCHED_OTHER. (Without phases, task-level `runtime` is the
//!    runtime event, and rt-app takes it for the slice too; the model does not, so such files
//!    keep the base slice.) Then [`Op::SetUclamp`] with its `util_min` / `util_max` if either is
//!    given (not -1: `_set_thread_uclamp()`'s `sched_setattr()` with SCHED_FLAG_KEEP_ALL and
//!    SCHED_FLAG_UTIL_CLAMP_MIN / _MAX for the given ones);
//! 3. each phase in key order: [`Op::SetAffinity`] with the phase's `cpus`, else the task's, else
//!    all CPUs (only when some `cpus` is given), [`Op::SetNice`] when the phase sets `priority`
//!    or `policy` (and then [`Op::SetSlice`] with its `dl-runtime`, if any), [`Op::SetUclamp`] when it sets `util_min` / `util_max`, then its events in key order and [`Op::Count`]`(1)`, repeated `loop` times
//!    (default 1; 0 or less is forever, as rt-app's `phase_loop == loop` test never holds); the
//!    count is one per phase-loop iteration, the unit rt-app logs (`thread_body()` writes one
//!    `log_timing()` row and one `rtapp_loop` ftrace mark per `run()` of a phase);
//! 4. the passes repeat `loop` times (task level; default -1 = forever; 0 runs nothing). A task
//!    without `"phases"` is one phase: its `loop` is the phase's, and the thread then makes one
//!    pass if `loop` is given, else loops forever (`parse_task_data()`);
//! 5. [`Op::MarkEnd`], [`Op::Exit`].
//!
//! A forked thread skips the start barrier (as rt-app's do); its `delay` and timers count from
//! `t_zero` too, not from the fork. `barrier` parties are what rt-app counts at parse time: for every barrier event
//! of a task (an event listed twice counts twice), the task's `instance`; so forked threads are
//! not counted (rt-app's documentation: barrier can't be used with fork).
//!
//! # Global
//! `duration` (s): the run stops then ([`Instance::stop_at`]) and the metric is
//! [`Metric::Count`], the phase-loop iterations all threads completed (the rows of rt-app's logs;
//! an iteration cut by the end is not logged, `continue_running` being false); without it (or -1, or 0) every thread must end
//! and the metric is [`Metric::ElapsedSeconds`] from the start to the last thread's exit; a file
//! whose threads loop forever then is an error. `calibration`: `run` events are fixed work,
//! `n = us * 1000 / pLoad` loops of rt-app's busy loop, each taking `pLoad` ns on the calibration
//! CPU. With `"CPU<n>"` (default `CPU0`) a loop is measured on CPU n at its highest OPP, so
//! `run: us` is `us` of that CPU's time: `us * 1000 * capacity_orig(n) / 1024` reference ns
//! (hence, on a HiKey960 calibrated on CPU0, a little CPU, `run: 1000` takes 1 ms on a little CPU
//! and 0.45 ms on a big one). With a number, it is `pLoad` in ns, taken as measured on a
//! capacity-1024 CPU at its highest OPP; `n` is floored per second of work as `loadwait()` does.
//! `default_policy` must be SCHED_OTHER. The logging keys (`logdir`, `log_basename`, `log_size`,
//! `ftrace`, `gnuplot`, `cumulative_slack`), `lock_pages`, `io_device` and `mem_buffer_size` have
//! no effect on scheduling and are accepted, type-checked as rt-app checks them (an `ftrace`
//! category rt-app does not know is rejected, as rt-app rejects it); `resources` is accepted (rt-app creates resources
//! when events name them anyway).
//!
//! # Rejected, with an error naming the key
//! What rt-app does and the model cannot: SCHED_FIFO, SCHED_RR, SCHED_DEADLINE, SCHED_BATCH and
//! SCHED_IDLE (`policy`, `default_policy`), `pi_enabled: true` (priority-inheritance mutexes),
//! `taskgroup` (cgroups), a `nodes_membind` that leaves out some of the machine's NUMA nodes (one
//! that binds every node is an unbound thread and is accepted), and the memory and I/O events `mem`,
//! `memrun`, `iorun`. A task's (and a phase's) events are read before its scheduling keys are
//! refused, so a file rt-app itself rejects for an event (the legacy grammar's `lock_order`) is
//! rejected for that, not refused for a feature the model lacks.
//!
//! # Left out
//! `t_zero` is the run's start; rt-app takes it when its first thread starts, a few microseconds
//! after creating the threads. rt-app's calibration time before the use case, its logging, and
//! `mlockall()` are not modelled.

mod build;
mod json;
mod read;

pub use json::{ParseError, Value};

use super::{Instance, Metric};
// For the module doc's links.
#[cfg(doc)]
use super::Op;
use crate::error::{Error, Result};
use crate::topology::Topology;
use build::Build;
use read::{global_duration, read_file};
use serde::{Deserialize, Serialize};

/// An rt-app workload: the rt-app JSON file, verbatim.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RtApp {
    pub json: String,
    /// This workload's speed per core type and its SMT contention, apart from the
    /// `capacity_orig` the kernel sees (see [`super::speed`]); default: none given.
    #[serde(
        default,
        skip_serializing_if = "super::speed::WorkloadSpeed::is_default"
    )]
    pub speed: super::speed::WorkloadSpeed,
}

impl RtApp {
    pub fn instantiate(&self, topo: &Topology) -> Result<Instance> {
        parse(&self.json, topo)
    }

    /// [`Metric::Count`] (phase-loop iterations) when the file sets a `duration`, else
    /// [`Metric::ElapsedSeconds`]. A file that does not parse gets the latter; instantiating it
    /// reports the error.
    pub fn metric(&self) -> Metric {
        match json::parse(&self.json) {
            Ok(root) => match global_duration(&root) {
                Ok(Some(_)) => Metric::Count,
                _ => Metric::ElapsedSeconds,
            },
            Err(_) => Metric::ElapsedSeconds,
        }
    }
}

/// Largest rt-app file accepted, in bytes.
pub const MAX_FILE_BYTES: usize = 4 << 20;
/// Most threads the file may create at start (the page must stay responsive).
pub const MAX_THREADS: u32 = 4096;

fn err(msg: impl Into<String>) -> Error {
    Error::Workload(format!("rt-app: {}", msg.into()))
}

/// Parses an rt-app file into the programs and objects of a run on `topo` (validated).
pub fn parse(json_text: &str, topo: &Topology) -> Result<Instance> {
    if json_text.len() > MAX_FILE_BYTES {
        return Err(err(format!(
            "the file has {} bytes; at most {MAX_FILE_BYTES}",
            json_text.len()
        )));
    }
    let root = json::parse(json_text).map_err(|e| err(format!("not valid JSON: {e}")))?;
    let file = read_file(&root, topo)?;
    let inst = Build::new(&file, topo).instance()?;
    inst.validate()?;
    Ok(inst)
}
