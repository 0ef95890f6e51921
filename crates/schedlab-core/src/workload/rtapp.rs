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
//! 2. [`Op::SetNice`] with the task's `priority` (the nice value for SCHED_OTHER, default 0),
//!    then [`Op::SetUclamp`] with its `util_min` / `util_max` if either is given (not -1:
//!    `_set_thread_uclamp()`'s `sched_setattr()` with SCHED_FLAG_KEEP_ALL and
//!    SCHED_FLAG_UTIL_CLAMP_MIN / _MAX for the given ones);
//! 3. each phase in key order: [`Op::SetAffinity`] with the phase's `cpus`, else the task's, else
//!    all CPUs (only when some `cpus` is given), [`Op::SetNice`] when the phase sets `priority`
//!    or `policy`, [`Op::SetUclamp`] when it sets `util_min` / `util_max`, then its events in key order and [`Op::Count`]`(1)`, repeated `loop` times
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
//! SCHED_IDLE (`policy`, `default_policy`), their parameters (`dl-runtime`, `dl-period`,
//! `dl-deadline`, and the legacy task-level `period`, `deadline`, and `runtime` when the task has
//! phases; they also request a custom slice on Linux 6.12+, which the modelled CFS kernels do not
//! have), `pi_enabled: true` (priority-inheritance mutexes),
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

mod json;

pub use json::{ParseError, Value};

use super::{Instance, Metric, Op, Program};
use crate::cpumask::CpuMask;
use crate::error::{Error, Result};
use crate::topology::Topology;
use crate::units::{NSEC_PER_SEC, NSEC_PER_USEC, SCHED_CAPACITY_SCALE, WORK_SCALE};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

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

// ---------------------------------------------------------------------------------------------
// The file as rt-app's parser reads it.

/// `calibration`.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Calibration {
    Cpu(usize),
    NsPerLoop(u64),
}

#[derive(Clone, Debug, PartialEq)]
enum Event {
    Run(u64),
    RunTime(u64),
    Sleep(u64),
    Timer {
        name: String,
        unique: bool,
        period_us: u64,
        absolute: bool,
    },
    Lock(String),
    Unlock(String),
    Wait {
        cond: String,
        mutex: String,
    },
    Sync {
        cond: String,
        mutex: String,
    },
    Signal(String),
    Broad(String),
    Barrier(String),
    Suspend,
    Resume(String),
    Yield,
    Fork(String),
    SemPost(String),
    SemWait(String),
}

#[derive(Clone, Debug)]
struct Phase {
    loops: i32,
    cpus: Option<CpuMask>,
    nice: Option<i32>,
    uclamp: Uclamp,
    events: Vec<Event>,
}

/// `util_min` / `util_max` as `_set_thread_uclamp()` passes them (None: -1, no change).
type Uclamp = (Option<u32>, Option<u32>);

#[derive(Clone, Debug)]
struct Task {
    name: String,
    instances: u32,
    delay_us: u64,
    loops: i32,
    nice: i32,
    uclamp: Uclamp,
    cpus: Option<CpuMask>,
    phases: Vec<Phase>,
}

struct File {
    duration_s: Option<u64>,
    calibration: Calibration,
    tasks: Vec<Task>,
}

/// An object's fields; `get` treats null as absent, as json-c does.
#[derive(Clone, Copy)]
struct Obj<'a> {
    fields: &'a [(String, Value)],
    /// "task 'x' phase 'p'", for messages.
    at: &'a str,
}

impl<'a> Obj<'a> {
    fn get(&self, key: &str) -> Option<&'a Value> {
        self.fields
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
            .filter(|v| **v != Value::Null)
    }

    fn type_error(&self, key: &str, want: &str, v: &Value) -> Error {
        err(format!(
            "{}: \"{key}\" must be {want}, not {}",
            self.at,
            v.type_name()
        ))
    }

    /// `get_int_value_from()`: an integer, clamped to C int as `json_object_get_int()` does.
    fn int(&self, key: &str) -> Result<Option<i32>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Int(i)) => Ok(Some((*i).clamp(i32::MIN as i64, i32::MAX as i64) as i32)),
            Some(v) => Err(self.type_error(key, "an integer", v)),
        }
    }

    fn bool(&self, key: &str) -> Result<Option<bool>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(v) => Err(self.type_error(key, "true or false", v)),
        }
    }

    fn str(&self, key: &str) -> Result<Option<&'a str>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Str(s)) => Ok(Some(s)),
            Some(v) => Err(self.type_error(key, "a string", v)),
        }
    }
}

fn as_obj<'a>(v: &'a Value, at: &'a str) -> Option<Obj<'a>> {
    match v {
        Value::Object(fields) => Some(Obj { fields, at }),
        _ => None,
    }
}

/// The global `duration` in seconds, if the file sets a positive one.
fn global_duration(root: &Value) -> Result<Option<u64>> {
    let Some(root) = as_obj(root, "the file") else {
        return Err(err(
            "the file must be a JSON object with a \"tasks\" object",
        ));
    };
    let Some(global) = root.get("global") else {
        return Ok(None);
    };
    let Some(global) = as_obj(global, "global") else {
        return Err(err("\"global\" must be an object"));
    };
    Ok(global.int("duration")?.filter(|&d| d > 0).map(|d| d as u64))
}

fn read_file(root: &Value, topo: &Topology) -> Result<File> {
    let duration_s = global_duration(root)?;
    let root = as_obj(root, "the file").expect("checked by global_duration");
    let calibration = match root.get("global") {
        Some(g) => read_global(as_obj(g, "global").expect("checked"), topo)?,
        None => Calibration::Cpu(0),
    };
    if let Some(res) = root.get("resources") {
        read_resources(res)?;
    }
    let tasks = match root.get("tasks") {
        Some(Value::Object(fields)) => fields,
        Some(v) => {
            return Err(err(format!(
                "\"tasks\" must be an object, not {}",
                v.type_name()
            )))
        }
        None => return Err(err("the file has no \"tasks\" object")),
    };
    if tasks.is_empty() {
        return Err(err("\"tasks\" is empty"));
    }
    let tasks = tasks
        .iter()
        .map(|(name, v)| read_task(name, v, topo))
        .collect::<Result<Vec<_>>>()?;
    Ok(File {
        duration_s,
        calibration,
        tasks,
    })
}

/// `parse_global()`.
fn read_global(g: Obj<'_>, topo: &Topology) -> Result<Calibration> {
    if let Some(p) = g.str("default_policy")? {
        check_policy(p, "global: \"default_policy\"")?;
    }
    if g.bool("pi_enabled")? == Some(true) {
        return Err(err(
            "global: \"pi_enabled\": true asks for priority-inheritance mutexes, which the model \
             does not have (its mutexes have no priority boosting); remove it or set it to false",
        ));
    }
    // Keys with no effect on scheduling, type-checked as rt-app does.
    for key in ["gnuplot", "lock_pages", "cumulative_slack"] {
        g.bool(key)?;
    }
    for key in ["logdir", "log_basename", "io_device"] {
        g.str(key)?;
    }
    g.int("mem_buffer_size")?;
    if let Some(v) = g.get("log_size") {
        if !matches!(v, Value::Int(_) | Value::Str(_)) {
            return Err(g.type_error("log_size", "an integer or a string", v));
        }
    }
    match g.get("ftrace") {
        None | Some(Value::Bool(_)) => {}
        Some(Value::Str(s)) => check_ftrace_categories(s)?,
        Some(v) => return Err(g.type_error("ftrace", "a string", v)),
    }
    let calibration = match g.get("calibration") {
        None => Calibration::Cpu(0),
        // An integer is ns per loop; 0 means "calibrate", on CPU0.
        Some(Value::Int(0)) => Calibration::Cpu(0),
        Some(Value::Int(n)) if *n > 0 => Calibration::NsPerLoop((*n).min(i32::MAX as i64) as u64),
        Some(Value::Int(n)) => {
            return Err(err(format!(
                "global: \"calibration\" {n}: ns per loop must be positive"
            )))
        }
        Some(Value::Str(s)) => {
            // sscanf(s, "CPU%d"): "CPU", then an integer after optional blanks.
            let cpu = s
                .strip_prefix("CPU")
                .map(|r| r.trim_start())
                .and_then(|r| {
                    let end = r
                        .char_indices()
                        .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && "+-".contains(c))))
                        .map_or(r.len(), |(i, _)| i);
                    r[..end].parse::<i64>().ok()
                })
                .ok_or_else(|| {
                    err(format!(
                        "global: \"calibration\" \"{s}\" must be \"CPU<n>\" or ns per loop"
                    ))
                })?;
            if cpu < 0 || cpu as usize >= topo.nr_cpus() {
                return Err(err(format!(
                    "global: \"calibration\" \"{s}\": this machine has CPUs 0 to {}",
                    topo.nr_cpus() - 1
                )));
            }
            Calibration::Cpu(cpu as usize)
        }
        Some(v) => return Err(g.type_error("calibration", "\"CPU<n>\" or an integer", v)),
    };
    Ok(calibration)
}

/// The categories rt-app's `ftrace_setup()` knows (rt-app HEAD, `src/rt-app_utils.c`).
const FTRACE_CATEGORIES: [&str; 6] = ["main", "task", "loop", "event", "stats", "none"];

/// `ftrace_setup()`: a comma-separated list (`strtok()`, so empty items are skipped) of category
/// names, each matched whole and ignoring case (`strncasecmp()` over the name and its NUL);
/// anything else makes rt-app exit with "Invalid ftrace categories". rt-app's tutorial also lists
/// `run`, which its code does not accept; the code is followed.
fn check_ftrace_categories(s: &str) -> Result<()> {
    for cat in s.split(',').filter(|c| !c.is_empty()) {
        if !FTRACE_CATEGORIES
            .iter()
            .any(|known| known.eq_ignore_ascii_case(cat))
        {
            return Err(err(format!(
                "global: \"ftrace\" category \"{cat}\" is not one of {} (rt-app: \"Invalid ftrace \
                 categories\")",
                FTRACE_CATEGORIES.join(", ")
            )));
        }
    }
    Ok(())
}

/// `parse_resources()`: the section only pre-creates resources; its types are checked.
fn read_resources(v: &Value) -> Result<()> {
    let Value::Object(fields) = v else {
        return Ok(()); // rt-app skips a "resources" that is not an object
    };
    for (name, r) in fields {
        let at = format!("resource '{name}'");
        let ty = match as_obj(r, &at) {
            Some(o) => o.str("type")?,
            None => None,
        };
        if let Some(ty) = ty {
            const TYPES: [&str; 8] = [
                "mutex",
                "signal",
                "wait",
                "broadcast",
                "sync",
                "sleep",
                "run",
                "timer",
            ];
            if !TYPES.contains(&ty) {
                return Err(err(format!(
                    "{at}: type \"{ty}\" is not one of {}",
                    TYPES.join(", ")
                )));
            }
        }
    }
    Ok(())
}

/// `string_to_policy()`, keeping what the model has: SCHED_OTHER.
fn check_policy(p: &str, at: &str) -> Result<()> {
    match p {
        "SCHED_OTHER" => Ok(()),
        "SCHED_FIFO" | "SCHED_RR" | "SCHED_DEADLINE" | "SCHED_BATCH" | "SCHED_IDLE" => {
            Err(err(format!(
                "{at} \"{p}\" is not supported: the model schedules SCHED_OTHER (CFS) tasks only"
            )))
        }
        _ => Err(err(format!(
            "{at} \"{p}\" is not a policy (SCHED_OTHER, SCHED_BATCH, SCHED_IDLE, SCHED_RR, \
             SCHED_FIFO, SCHED_DEADLINE)"
        ))),
    }
}

/// `parse_numa_data()` (with libnuma): an array of node numbers, none above the machine's highest
/// node, which `set_thread_membind()` passes to `numa_set_membind()`. The model has no memory
/// placement: its NUMA nodes are the packages (a NUMA sched domain spans several), and a binding to
/// every node is what an unbound thread has, so it is accepted with no effect (LISA writes
/// `"nodes_membind": [0]` into every phase it generates, one node on most boards). A binding to
/// some of the nodes only is refused as not modelled.
fn read_nodes_membind(o: Obj<'_>, topo: &Topology) -> Result<()> {
    let Some(v) = o.get("nodes_membind") else {
        return Ok(());
    };
    let Value::Array(items) = v else {
        return Err(o.type_error("nodes_membind", "an array of NUMA node numbers", v));
    };
    let nodes = topo.packages.len();
    let mut bound = vec![false; nodes];
    for item in items {
        match item {
            Value::Int(n) if *n >= 0 && (*n as u64) < nodes as u64 => bound[*n as usize] = true,
            Value::Int(n) => {
                return Err(err(format!(
                    "{}: \"nodes_membind\" has node {n}; this machine has NUMA nodes 0 to {} \
                     (rt-app: \"Invalid node\")",
                    o.at,
                    nodes - 1
                )))
            }
            other => {
                return Err(o.type_error("nodes_membind", "an array of NUMA node numbers", other))
            }
        }
    }
    if bound.iter().all(|&b| b) {
        return Ok(());
    }
    let unbound: Vec<String> = (0..nodes)
        .filter(|&n| !bound[n])
        .map(|n| n.to_string())
        .collect();
    Err(err(format!(
        "{}: \"nodes_membind\" leaves out NUMA node {}: binding memory to part of the machine \
         (NUMA memory placement) is not modelled; bind every node or remove the key",
        o.at,
        unbound.join(", ")
    )))
}

/// `parse_cpuset_data()`.
fn read_cpus(o: Obj<'_>, topo: &Topology) -> Result<Option<CpuMask>> {
    let Some(v) = o.get("cpus") else {
        return Ok(None);
    };
    let Value::Array(items) = v else {
        return Err(o.type_error("cpus", "an array of CPU numbers", v));
    };
    let n = topo.nr_cpus();
    let mut mask = CpuMask::EMPTY;
    for item in items {
        match item {
            Value::Int(c) if *c >= 0 && (*c as u64) < n as u64 => mask.set(*c as usize),
            Value::Int(c) => {
                return Err(err(format!(
                    "{}: \"cpus\" has CPU {c}; this machine has CPUs 0 to {}",
                    o.at,
                    n - 1
                )))
            }
            other => return Err(o.type_error("cpus", "an array of CPU numbers", other)),
        }
    }
    if mask.is_empty() {
        return Err(err(format!(
            "{}: \"cpus\" is empty (sched_setaffinity() refuses an empty set)",
            o.at
        )));
    }
    Ok(Some(mask))
}

/// The scheduling keys of a task (`task_level`) or phase (`parse_sched_data()`); returns the nice
/// value they set, if any, and the uclamp values.
fn read_sched(
    o: Obj<'_>,
    task_level: bool,
    has_phases: bool,
    topo: &Topology,
) -> Result<(Option<i32>, Uclamp)> {
    let policy = o.str("policy")?;
    if let Some(p) = policy {
        check_policy(p, &format!("{}: \"policy\"", o.at))?;
    }
    for key in ["dl-runtime", "dl-period", "dl-deadline"] {
        if o.int(key)?.is_some_and(|v| v != 0) {
            return Err(err(format!(
                "{}: \"{key}\" is a SCHED_DEADLINE parameter (or a custom slice request on Linux \
                 6.12+), which the model does not have",
                o.at
            )));
        }
    }
    if task_level {
        // The legacy grammar reads "runtime", "period", "deadline" at task level as dl-*. Without
        // phases, "runtime" is also the task's runtime event, and that is what it does here.
        let legacy: &[&str] = if has_phases {
            &["runtime", "period", "deadline"]
        } else {
            &["period", "deadline"]
        };
        for &key in legacy {
            if o.int(key)?.is_some_and(|v| v != 0) {
                return Err(err(format!(
                    "{}: task-level \"{key}\" is a legacy SCHED_DEADLINE parameter, which the \
                     model does not have",
                    o.at
                )));
            }
        }
    }
    let uclamp = read_uclamp(o)?;
    if o.str("taskgroup")?.is_some_and(|t| !t.is_empty()) {
        return Err(err(format!(
            "{}: \"taskgroup\" (cgroup CPU controller) is not modelled",
            o.at
        )));
    }
    read_nodes_membind(o, topo)?;
    let prio = o.int("priority")?;
    let nice = match (prio, policy) {
        (Some(p), _) => Some(p),
        // A policy alone sets the policy's default priority: nice 0 for SCHED_OTHER.
        (None, Some(_)) => Some(0),
        (None, None) => None,
    };
    if let Some(n) = nice {
        if !(-20..=19).contains(&n) {
            return Err(err(format!(
                "{}: \"priority\" {n} is not a nice value (-20 to 19) for SCHED_OTHER",
                o.at
            )));
        }
    }
    Ok((nice, uclamp))
}

/// `util_min` / `util_max` (`parse_sched_data()`: default -1, "no changes"; more than 1024 is
/// "Invalid util_min"). Below -1, sched_setattr() gets a huge unsigned value and refuses it
/// (EINVAL), as it refuses `util_min` above `util_max` in one object; rt-app then exits, so
/// both are rejected here. (A min above a max set by an earlier object fails at run time.)
fn read_uclamp(o: Obj<'_>) -> Result<Uclamp> {
    let mut out = [None, None];
    for (i, key) in ["util_min", "util_max"].into_iter().enumerate() {
        match o.int(key)? {
            None | Some(-1) => {}
            Some(v) if (0..=1024).contains(&v) => out[i] = Some(v as u32),
            Some(v) if v > 1024 => {
                return Err(err(format!(
                    "{}: \"{key}\" {v} is invalid (rt-app: more than 1024)",
                    o.at
                )))
            }
            Some(v) => {
                return Err(err(format!(
                "{}: \"{key}\" {v} is refused by sched_setattr() (EINVAL); -1 leaves it unchanged",
                o.at
            )))
            }
        }
    }
    if let [Some(lo), Some(hi)] = out {
        if lo > hi {
            return Err(err(format!(
                "{}: \"util_min\" {lo} is above \"util_max\" {hi} (sched_setattr(): EINVAL)",
                o.at
            )));
        }
    }
    Ok((out[0], out[1]))
}

fn read_task(name: &str, v: &Value, topo: &Topology) -> Result<Task> {
    let at = format!("task '{name}'");
    let Some(o) = as_obj(v, &at) else {
        return Err(err(format!(
            "{at} must be an object, not {}",
            v.type_name()
        )));
    };
    let instances = o.int("instance")?.unwrap_or(1);
    if instances < 0 {
        return Err(err(format!("{at}: \"instance\" {instances} is negative")));
    }
    // rt-app sleeps only for a positive delay.
    let delay_us = o.int("delay")?.unwrap_or(0).max(0) as u64;
    let cpus = read_cpus(o, topo)?;
    let phases_v = o.get("phases");
    // The scheduling keys' verdict waits for the events': a file rt-app rejects for an event
    // (the legacy grammar's `"lock_order": [...]`, "Unknown or mismatch lock_order event type")
    // is rejected for that, not refused for a scheduling feature the model lacks.
    let sched = read_sched(o, true, phases_v.is_some(), topo);
    let (phases, loops) = match phases_v {
        Some(pv) => {
            let Value::Object(pf) = pv else {
                return Err(o.type_error("phases", "an object", pv));
            };
            if pf.is_empty() {
                return Err(err(format!("{at}: \"phases\" is empty")));
            }
            let mut phases = Vec::with_capacity(pf.len());
            for (pname, p) in pf {
                let pat = format!("{at} phase '{pname}'");
                let Some(po) = as_obj(p, &pat) else {
                    return Err(err(format!(
                        "{pat} must be an object, not {}",
                        p.type_name()
                    )));
                };
                let sched = read_sched(po, false, false, topo);
                let mut phase = read_phase(po, None, topo)?;
                (phase.nice, phase.uclamp) = sched?;
                phases.push(phase);
            }
            (phases, o.int("loop")?.unwrap_or(-1))
        }
        None => {
            // The task is its only phase; the phase takes "loop", and the thread makes one pass
            // if "loop" is given, else loops forever. Its scheduling keys are the task's.
            let phase = read_phase(o, None, topo)?;
            let loops = if o.get("loop").is_some() { 1 } else { -1 };
            (vec![phase], loops)
        }
    };
    let (nice, uclamp) = sched?;
    Ok(Task {
        name: name.to_string(),
        instances: instances as u32,
        delay_us,
        loops,
        nice: nice.unwrap_or(0),
        uclamp,
        cpus,
        phases,
    })
}

/// `parse_task_phase_data()`.
fn read_phase(o: Obj<'_>, nice: Option<i32>, topo: &Topology) -> Result<Phase> {
    let loops = o.int("loop")?.unwrap_or(1);
    let cpus = read_cpus(o, topo)?;
    let mut events = Vec::new();
    for (key, v) in o.fields {
        if let Some(e) = read_event(o, key, v)? {
            events.push(e);
        }
    }
    if events.is_empty() {
        return Err(err(format!(
            "{}: no events (rt-app: \"Task must have events or it's useless\")",
            o.at
        )));
    }
    Ok(Phase {
        loops,
        cpus,
        nice,
        uclamp: (None, None),
        events,
    })
}

/// A duration in us: an integer, not negative.
fn duration(o: Obj<'_>, key: &str, v: &Value) -> Result<Option<u64>> {
    match v {
        Value::Int(i) if *i >= 0 => Ok(Some((*i).min(i32::MAX as i64) as u64)),
        Value::Int(i) => Err(err(format!(
            "{}: event \"{key}\": {i} us is negative",
            o.at
        ))),
        _ => Ok(None),
    }
}

/// `parse_task_event_data()`: `Ok(None)` if `key` is not an event.
fn read_event(o: Obj<'_>, key: &str, v: &Value) -> Result<Option<Event>> {
    let is = |p: &str| key.starts_with(p);
    let mismatch = |want: &str| {
        err(format!(
            "{}: event \"{key}\" must be {want}, not {} (rt-app: \"Unknown or mismatch {key} \
             event type\")",
            o.at,
            v.type_name()
        ))
    };
    let string = |want: &str| match v {
        Value::Str(s) => Ok(s.clone()),
        _ => Err(mismatch(want)),
    };
    // A non-object reads as an empty one (json_object_object_get_ex() finds nothing in it).
    let empty: &[(String, Value)] = &[];
    let sub_at = format!("{} event \"{key}\"", o.at);
    let sub = match v {
        Value::Object(f) => Obj {
            fields: f,
            at: &sub_at,
        },
        _ => Obj {
            fields: empty,
            at: &sub_at,
        },
    };
    let e = if is("run") || is("sleep") {
        let us = duration(o, key, v)?.ok_or_else(|| mismatch("an integer (us)"))?;
        if is("sleep") {
            Event::Sleep(us)
        } else if is("runtime") {
            Event::RunTime(us)
        } else {
            Event::Run(us)
        }
    } else if is("memrun") || is("mem") || is("iorun") {
        return Err(err(format!(
            "{}: event \"{key}\" (memory or I/O load) is not supported: the model has no memory \
             or I/O devices; use run or runtime for CPU time",
            o.at
        )));
    } else if is("lock") {
        Event::Lock(string("a mutex name")?)
    } else if is("unlock") {
        Event::Unlock(string("a mutex name")?)
    } else if is("signal") {
        Event::Signal(string("a condition name")?)
    } else if is("broad") {
        Event::Broad(string("a condition name")?)
    } else if is("wait") || is("sync") {
        let cond = sub.str("ref")?.unwrap_or("unknown").to_string();
        let mutex = sub.str("mutex")?.unwrap_or("unknown").to_string();
        if is("wait") {
            Event::Wait { cond, mutex }
        } else {
            Event::Sync { cond, mutex }
        }
    } else if is("barrier") {
        Event::Barrier(string("a barrier name")?)
    } else if is("timer") {
        let name = sub.str("ref")?.unwrap_or("unknown").to_string();
        let period_us = match sub.get("period") {
            None => 0,
            Some(p) => duration(sub, "period", p)?
                .ok_or_else(|| sub.type_error("period", "an integer (us)", p))?,
        };
        let absolute = sub.str("mode")?.is_some_and(|m| m.starts_with("absolute"));
        Event::Timer {
            unique: name.starts_with("unique"),
            name,
            period_us,
            absolute,
        }
    } else if is("resume") {
        Event::Resume(string("a task name")?)
    } else if is("suspend") {
        Event::Suspend
    } else if is("yield") {
        Event::Yield
    } else if is("fork") {
        Event::Fork(string("a task name")?)
    } else if is("sem_post") {
        Event::SemPost(string("a semaphore name")?)
    } else if is("sem_wait") {
        Event::SemWait(string("a semaphore name")?)
    } else {
        return Ok(None);
    };
    Ok(Some(e))
}

// ---------------------------------------------------------------------------------------------
// Programs.

/// Names to ids, in order of first use.
#[derive(Default)]
struct Names(BTreeMap<String, usize>);

impl Names {
    fn id(&mut self, name: &str) -> usize {
        let n = self.0.len();
        *self.0.entry(name.to_string()).or_insert(n)
    }
    fn len(&self) -> usize {
        self.0.len()
    }
}

/// Executions of a loop body: `loops` times, or unbounded (`u64::MAX`) for 0 or less.
fn times(loops: i32) -> u64 {
    if loops > 0 {
        loops as u64
    } else {
        u64::MAX
    }
}

struct Build<'a> {
    file: &'a File,
    topo: &'a Topology,
    mutexes: Names,
    conds: Names,
    barriers: Names,
    sems: Names,
    shared_timers: Names,
    /// Timers beyond the shared ones (unique and delay timers), numbered after them at the end.
    private_timers: usize,
    /// Parties of each barrier name (rt-app's count: per event, the task's instances).
    parties: BTreeMap<String, u32>,
    /// Shared timers some event declares absolute.
    absolute_shared: BTreeMap<String, bool>,
    /// Per task: its unique timers, and whether some event declares each absolute.
    absolute_unique: Vec<BTreeMap<String, bool>>,
    /// Program index of each task's fork template.
    templates: BTreeMap<String, usize>,
}

/// A timer op's timer until private timers are numbered after the shared ones.
enum TimerRef {
    Shared(usize),
    Private(usize),
}

/// A program whose `Timer` ops (at these pcs) still need their ids.
type Pending = (Program, Vec<(usize, TimerRef)>);

impl<'a> Build<'a> {
    fn new(file: &'a File, topo: &'a Topology) -> Build<'a> {
        let mut parties = BTreeMap::new();
        let mut absolute_shared = BTreeMap::new();
        let mut absolute_unique = Vec::new();
        for t in &file.tasks {
            let mut uniq = BTreeMap::new();
            for e in t.phases.iter().flat_map(|p| &p.events) {
                match e {
                    Event::Barrier(b) => {
                        let c: &mut u32 = parties.entry(b.clone()).or_default();
                        *c = c.saturating_add(t.instances);
                    }
                    Event::Timer {
                        name,
                        unique,
                        absolute,
                        ..
                    } => {
                        let map = if *unique {
                            &mut uniq
                        } else {
                            &mut absolute_shared
                        };
                        let a: &mut bool = map.entry(name.clone()).or_default();
                        *a |= *absolute;
                    }
                    _ => {}
                }
            }
            absolute_unique.push(uniq);
        }
        Build {
            file,
            topo,
            mutexes: Names::default(),
            conds: Names::default(),
            barriers: Names::default(),
            sems: Names::default(),
            shared_timers: Names::default(),
            private_timers: 0,
            parties,
            absolute_shared,
            absolute_unique,
            templates: BTreeMap::new(),
        }
    }

    fn task(&self, name: &str) -> Option<usize> {
        self.file.tasks.iter().position(|t| t.name == name)
    }

    fn new_private_timer(&mut self) -> usize {
        self.private_timers += 1;
        self.private_timers - 1
    }

    /// Work of `run: us` (reference ns x WORK_SCALE).
    fn run_work(&self, us: u64) -> u64 {
        match self.file.calibration {
            Calibration::Cpu(cpu) => {
                us * NSEC_PER_USEC * self.topo.capacity_orig(cpu) * WORK_SCALE
                    / SCHED_CAPACITY_SCALE
            }
            Calibration::NsPerLoop(p) => {
                // loadwait(): whole seconds first, then the rest, each floored to whole loops.
                let loops = us / 1_000_000 * (NSEC_PER_SEC / p) + us % 1_000_000 * 1000 / p;
                loops * p * WORK_SCALE
            }
        }
    }

    /// For each task some event forks: how many times it may be forked (`u64::MAX`: unbounded).
    fn forks(&self) -> Result<BTreeMap<usize, u64>> {
        let file = self.file;
        let mut targets = BTreeMap::new();
        for t in &file.tasks {
            for e in t.phases.iter().flat_map(|p| &p.events) {
                if let Event::Fork(target) = e {
                    let Some(ti) = self.task(target) else {
                        let known: Vec<&str> = file.tasks.iter().map(|t| t.name.as_str()).collect();
                        return Err(err(format!(
                            "task '{}': \"fork\" names '{target}', which is not a task (tasks: {})",
                            t.name,
                            known.join(", ")
                        )));
                    };
                    targets.insert(ti, 0u64);
                }
            }
        }
        for (fi, t) in file.tasks.iter().enumerate() {
            for p in &t.phases {
                for e in &p.events {
                    if let Event::Fork(target) = e {
                        // A forked forker runs its fork events an unknown number of times.
                        let n = if targets.contains_key(&fi) {
                            u64::MAX
                        } else if t.loops == 0 {
                            0
                        } else {
                            (t.instances as u64)
                                .saturating_mul(times(t.loops))
                                .saturating_mul(times(p.loops))
                        };
                        let c = targets.get_mut(&self.task(target).unwrap()).unwrap();
                        *c = c.saturating_add(n);
                    }
                }
            }
        }
        Ok(targets)
    }

    fn instance(mut self) -> Result<Instance> {
        let file = self.file;
        let nthreads: u64 = file.tasks.iter().map(|t| t.instances as u64).sum();
        if nthreads == 0 {
            return Err(err(
                "no thread starts: every task has \"instance\": 0 (such tasks only run when forked)",
            ));
        }
        if nthreads > MAX_THREADS as u64 {
            return Err(err(format!(
                "the file starts {nthreads} threads; at most {MAX_THREADS}"
            )));
        }
        let nthreads = nthreads as usize;
        let forked = self.forks()?;
        for (k, &ti) in forked.keys().enumerate() {
            self.templates
                .insert(file.tasks[ti].name.clone(), 1 + nthreads + k);
        }
        // rt-app's threads_barrier: threads created at start begin together.
        let start_barrier = self.barriers.id("\0start");
        let mut pending: Vec<Pending> = Vec::with_capacity(1 + nthreads + forked.len());
        let mut main = vec![Op::MarkStart];
        main.extend((1..=nthreads).map(Op::Fork));
        main.extend([Op::WaitChildren, Op::MarkEnd, Op::Exit]);
        pending.push((Program::new("rt-app", main), Vec::new()));
        let mut index = 0;
        for (ti, t) in file.tasks.iter().enumerate() {
            for _ in 0..t.instances {
                let name = format!("{}-{index}", t.name);
                pending.push(self.program(ti, name, Some((start_barrier, nthreads as u32)))?);
                index += 1;
            }
        }
        for (&ti, &n) in &forked {
            let t = &file.tasks[ti];
            if n > 1 && !self.absolute_unique[ti].is_empty() {
                return Err(err(format!(
                    "task '{}' uses a \"unique\" timer and may be forked more than once: rt-app \
                     gives each forked thread its own timer, the model gives a forked program one \
                     set of timers; fork it once, or use a named timer",
                    t.name
                )));
            }
            pending.push(self.program(ti, t.name.clone(), None)?);
        }
        // Private timers are numbered after the shared ones.
        let shared = self.shared_timers.len();
        let programs: Vec<Program> = pending
            .into_iter()
            .map(|(mut p, timer_ops)| {
                for (pc, tr) in timer_ops {
                    if let Op::Timer { timer, .. } = &mut p.ops[pc] {
                        *timer = match tr {
                            TimerRef::Shared(i) => i,
                            TimerRef::Private(i) => shared + i,
                        };
                    }
                }
                p
            })
            .collect();
        let metric = if file.duration_s.is_some() {
            Metric::Count
        } else {
            Metric::ElapsedSeconds
        };
        let mut inst = Instance::new(programs, vec![0], metric);
        inst.mutexes = self.mutexes.len();
        inst.conds = self.conds.len();
        inst.barriers = self.barriers.len();
        inst.events = self.sems.len();
        inst.timers = shared + self.private_timers;
        inst.stop_at = file.duration_s.map(|s| s.saturating_mul(NSEC_PER_SEC));
        Ok(inst)
    }

    /// The program of one thread of task `ti`; `start` is the start barrier of the threads rt-app
    /// creates at start, None for a fork template.
    fn program(&mut self, ti: usize, name: String, start: Option<(usize, u32)>) -> Result<Pending> {
        let file: &'a File = self.file;
        let t = &file.tasks[ti];
        let mut ops = Vec::new();
        let mut timer_ops: Vec<(usize, TimerRef)> = Vec::new();
        // This thread's unique timers.
        let mut unique: BTreeMap<String, usize> = BTreeMap::new();
        if let Some((id, parties)) = start {
            ops.push(Op::Barrier { id, parties });
        }
        let delay = t.delay_us * NSEC_PER_USEC;
        if delay > 0 {
            // rt-app sleeps until t_zero + delay (absolute), forked threads too, and the timers
            // the thread is first to use count from there.
            ops.push(Op::Delay(delay));
        }
        ops.push(Op::SetNice(t.nice));
        if t.uclamp != (None, None) {
            ops.push(Op::SetUclamp {
                min: t.uclamp.0,
                max: t.uclamp.1,
            });
        }
        let any_cpus = t.cpus.is_some() || t.phases.iter().any(|p| p.cpus.is_some());
        let mut slot = 0;
        let mut forever = t.loops < 0;
        if t.loops != 0 {
            let top = ops.len();
            for p in &t.phases {
                if any_cpus {
                    let mask = p.cpus.or(t.cpus).unwrap_or(self.topo.all_cpus());
                    ops.push(Op::SetAffinity(mask));
                }
                if let Some(n) = p.nice {
                    ops.push(Op::SetNice(n));
                }
                if p.uclamp != (None, None) {
                    ops.push(Op::SetUclamp {
                        min: p.uclamp.0,
                        max: p.uclamp.1,
                    });
                }
                let body = ops.len();
                for e in &p.events {
                    self.event(ti, e, &mut ops, &mut timer_ops, &mut unique)?;
                }
                // One row of rt-app's log per phase-loop iteration.
                ops.push(Op::Count(1));
                if p.loops != 1 {
                    forever |= p.loops <= 0;
                    ops.push(Op::Repeat {
                        slot,
                        times: p.loops.max(0) as u64,
                        to: body,
                    });
                    slot += 1;
                }
            }
            if t.loops != 1 {
                ops.push(Op::Repeat {
                    slot,
                    times: t.loops.max(0) as u64,
                    to: top,
                });
            }
        }
        ops.extend([Op::MarkEnd, Op::Exit]);
        if forever && self.file.duration_s.is_none() {
            return Err(err(format!(
                "task '{}' loops forever (a task \"loop\" of -1, the default with \"phases\", or a \
                 phase \"loop\" of 0 or less) and \"global\" sets no \"duration\": rt-app would run \
                 until killed; set a \"duration\" or finite loops",
                t.name
            )));
        }
        Ok((Program::new(name, ops), timer_ops))
    }

    fn event(
        &mut self,
        ti: usize,
        e: &Event,
        ops: &mut Vec<Op>,
        timer_ops: &mut Vec<(usize, TimerRef)>,
        unique: &mut BTreeMap<String, usize>,
    ) -> Result<()> {
        let file: &'a File = self.file;
        let task_name = &file.tasks[ti].name;
        let us = |v: u64| v * NSEC_PER_USEC;
        match e {
            Event::Run(v) => ops.push(Op::Run {
                work: self.run_work(*v),
                jitter_ppm: 0,
            }),
            Event::RunTime(v) => ops.push(Op::RunFor(us(*v))),
            Event::Sleep(v) => ops.push(Op::Sleep(us(*v))),
            Event::Timer {
                name,
                unique: is_unique,
                period_us,
                ..
            } => {
                let (tr, absolute) = if *is_unique {
                    let id = match unique.get(name) {
                        Some(&id) => id,
                        None => {
                            let id = self.new_private_timer();
                            unique.insert(name.clone(), id);
                            id
                        }
                    };
                    (TimerRef::Private(id), self.absolute_unique[ti][name])
                } else {
                    let id = self.shared_timers.id(name);
                    (TimerRef::Shared(id), self.absolute_shared[name])
                };
                timer_ops.push((ops.len(), tr));
                ops.push(Op::Timer {
                    timer: 0,
                    period: us(*period_us),
                    absolute,
                });
            }
            Event::Lock(m) => ops.push(Op::Lock(self.mutexes.id(m))),
            Event::Unlock(m) => ops.push(Op::Unlock(self.mutexes.id(m))),
            Event::Wait { cond, mutex } => {
                let (c, m) = (self.conds.id(cond), self.mutexes.id(mutex));
                ops.extend([Op::CondWait { cond: c, mutex: m }, Op::Lock(m)]);
            }
            Event::Sync { cond, mutex } => {
                let (c, m) = (self.conds.id(cond), self.mutexes.id(mutex));
                ops.extend([
                    Op::CondSignal(c),
                    Op::CondWait { cond: c, mutex: m },
                    Op::Lock(m),
                ]);
            }
            Event::Signal(c) => ops.push(Op::CondSignal(self.conds.id(c))),
            Event::Broad(c) => ops.push(Op::CondBroadcast(self.conds.id(c))),
            Event::Barrier(b) => {
                let parties = self.parties.get(b).copied().unwrap_or(0);
                if parties == 0 {
                    return Err(err(format!(
                        "task '{task_name}': barrier '{b}' is used only by tasks with \"instance\": \
                         0; rt-app counts a barrier's parties from the instances of the tasks that \
                         use it, so forked threads are not counted and would wait forever"
                    )));
                }
                ops.push(Op::Barrier {
                    id: self.barriers.id(b),
                    parties,
                });
            }
            Event::Suspend => {
                let (c, m) = (self.conds.id(task_name), self.mutexes.id(task_name));
                ops.extend([
                    Op::Lock(m),
                    Op::CondWait { cond: c, mutex: m },
                    Op::Lock(m),
                    Op::Unlock(m),
                ]);
            }
            Event::Resume(target) => {
                let (c, m) = (self.conds.id(target), self.mutexes.id(target));
                ops.extend([Op::Lock(m), Op::CondBroadcast(c), Op::Unlock(m)]);
            }
            Event::Yield => ops.push(Op::Yield),
            Event::Fork(target) => ops.push(Op::Fork(self.templates[target])),
            Event::SemPost(s) => ops.push(Op::Resume(self.sems.id(s))),
            Event::SemWait(s) => ops.push(Op::Suspend(self.sems.id(s))),
        }
        Ok(())
    }
}
