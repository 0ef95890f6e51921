//! The file as rt-app's parser reads it (`src/rt-app_parse_config.c`: `parse_global()`,
//! `parse_resources()`, `parse_task_data()`, `parse_task_phase_data()`,
//! `parse_task_event_data()`): the JSON value, type-checked as rt-app checks it, read into tasks
//! of phases of events, with the keys rt-app accepts and the model cannot follow refused.

use super::err;
use super::json::Value;
use crate::cpumask::CpuMask;
use crate::error::{Error, Result};
use crate::topology::Topology;
use crate::units::NSEC_PER_USEC;

/// `calibration`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Calibration {
    Cpu(usize),
    NsPerLoop(u64),
}

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Event {
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
pub(super) struct Phase {
    pub(super) loops: i32,
    pub(super) cpus: Option<CpuMask>,
    pub(super) nice: Option<i32>,
    pub(super) uclamp: Uclamp,
    /// `sched_runtime` (ns) of the phase's `sched_setattr()`, 0 for none (SCHED_FLAG_KEEP_PARAMS).
    pub(super) slice: u64,
    pub(super) events: Vec<Event>,
}

/// `util_min` / `util_max` as `_set_thread_uclamp()` passes them (None: -1, no change).
type Uclamp = (Option<u32>, Option<u32>);

#[derive(Clone, Debug)]
pub(super) struct Task {
    pub(super) name: String,
    pub(super) instances: u32,
    pub(super) delay_us: u64,
    pub(super) loops: i32,
    pub(super) nice: i32,
    pub(super) uclamp: Uclamp,
    /// `sched_runtime` (ns) of the thread's `sched_setattr()`, 0 for none.
    pub(super) slice: u64,
    pub(super) cpus: Option<CpuMask>,
    pub(super) phases: Vec<Phase>,
}

pub(super) struct File {
    pub(super) duration_s: Option<u64>,
    pub(super) calibration: Calibration,
    pub(super) tasks: Vec<Task>,
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
pub(super) fn global_duration(root: &Value) -> Result<Option<u64>> {
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

pub(super) fn read_file(root: &Value, topo: &Topology) -> Result<File> {
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
/// value they set, if any, the uclamp values, and the `sched_attr.sched_runtime` (ns, 0 for none)
/// rt-app passes with the nice value.
type Sched = (Option<i32>, Uclamp, u64);

fn read_sched(o: Obj<'_>, task_level: bool, has_phases: bool, topo: &Topology) -> Result<Sched> {
    let policy = o.str("policy")?;
    if let Some(p) = policy {
        check_policy(p, &format!("{}: \"policy\"", o.at))?;
    }
    // parse_sched_data(): "dl-runtime" (us). For SCHED_OTHER rt-app passes it as
    // sched_attr.sched_runtime (c9d45bd "Add sched_runtime support for SCHED_OTHER",
    // __set_thread_sched_other_attrs()): a custom slice on Linux 6.12+; "dl-period" and
    // "dl-deadline" are not passed for SCHED_OTHER.
    let mut runtime_us = 0;
    for key in ["dl-runtime", "dl-period", "dl-deadline"] {
        let v = o.int(key)?.unwrap_or(0);
        if v < 0 {
            return Err(err(format!("{}: \"{key}\" {v} is negative", o.at)));
        }
        if key == "dl-runtime" {
            runtime_us = v as u64;
        }
    }
    if task_level && has_phases && runtime_us == 0 {
        // The legacy grammar reads task-level "runtime" as dl-runtime (and "period",
        // "deadline" as dl-*, not passed for SCHED_OTHER). Without phases "runtime" is also the
        // task's runtime event; there rt-app sets the slice from it too, which the model does not
        // (such a file keeps the base slice).
        let v = o.int("runtime")?.unwrap_or(0);
        if v < 0 {
            return Err(err(format!("{}: \"runtime\" {v} is negative", o.at)));
        }
        runtime_us = v as u64;
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
    // _set_thread_cfs(): a phase that sets no priority (or policy) calls no sched_setattr(), so
    // its "dl-runtime" does nothing; the task level always has one (SCHED_OTHER, nice 0).
    let slice = if nice.is_some() || task_level {
        runtime_us * NSEC_PER_USEC
    } else {
        0
    };
    Ok((nice, uclamp, slice))
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
                (phase.nice, phase.uclamp, phase.slice) = sched?;
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
    let (nice, uclamp, slice) = sched?;
    Ok(Task {
        name: name.to_string(),
        instances: instances as u32,
        delay_us,
        loops,
        nice: nice.unwrap_or(0),
        uclamp,
        slice,
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
        slice: 0,
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
