//! The `trace-cmd report -N -t -R`-style export read as LISA's `TxtTraceParser` reads it
//! (lisa/trace.py, ARM-software/lisa at bb5ff50): each line's header by `SimpleTxtTraceParser`'s
//! `HEADER_REGEX` (`\s*(?P<__comm>.+)-(?P<__pid>\d+)[^\[]*\[(?P<__cpu>\d*)\][^\d]+
//! (?P<__timestamp>\d+\.\d+): +(?P<__event>\w+):`), its fields by `TxtEventParser`'s
//! `{field}=(?P<{field}>.+?)(?:{blank}|$)` with `blank = ' +'` and `identifier = '\w+'`. Each
//! event's field set is the one its `TRACE_EVENT()` defines: the kernel's v6.8 sched.h / power.h
//! for the kernel's events, LISA's sched_tp module (lisa/_assets/kmodules/lisa/ftrace_events.h)
//! for `lisa__sched_*`. The events parse back to the run's, and recording the signals changes
//! nothing about the run.

use schedlab_core::experiment::{Plan, RunTrace, Scenario};
use schedlab_core::scenarios::builtin;
use schedlab_core::trace::text::Style;
use schedlab_core::trace::TraceEvent;
use std::collections::BTreeMap;

#[derive(Debug, PartialEq)]
struct Line {
    comm: String,
    pid: u64,
    cpu: usize,
    ts_ns: u64,
    event: String,
    fields: Vec<(String, String)>,
}

fn is_word(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// One line by LISA's header regex and field regexes; None for a line they do not match.
fn parse(line: &str) -> Option<Line> {
    // `(?P<__comm>.+)-(?P<__pid>\d+)[^\[]*\[(?P<__cpu>\d*)\]`: the comm is greedy, so the pid is
    // after the last `-` before the `[`.
    let open = line.find('[')?;
    let close = open + line[open..].find(']')?;
    let head = line[..open].trim_start();
    let dash = head.rfind('-')?;
    let comm = head[..dash].to_string();
    let pid_part = head[dash + 1..].trim_end();
    if comm.is_empty() || pid_part.is_empty() || !pid_part.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let cpu = line[open + 1..close].parse().ok()?;
    // `[^\d]+(?P<__timestamp>\d+\.\d+): +(?P<__event>\w+):`
    let rest = line[close + 1..].trim_start();
    let colon = rest.find(": ")?;
    let (secs, frac) = rest[..colon].split_once('.')?;
    assert_eq!(frac.len(), 9, "-t: nanosecond timestamps: {line}");
    let ts_ns = secs.parse::<u64>().ok()? * 1_000_000_000 + frac.parse::<u64>().ok()?;
    let rest = rest[colon + 2..].trim_start();
    let ev_end = rest.find(':')?;
    let event = rest[..ev_end].to_string();
    if !is_word(&event) {
        return None;
    }
    // `{field}=(?P<{field}>.+?)(?:{blank}|$)`: values end at the first blank.
    let mut fields = Vec::new();
    for tok in rest[ev_end + 1..].split(' ').filter(|t| !t.is_empty()) {
        let (k, v) = tok.split_once('=')?;
        assert!(is_word(k), "a field name is \\w+: {line}");
        assert!(
            !v.is_empty(),
            "an empty value would swallow the next field: {line}"
        );
        fields.push((k.to_string(), v.to_string()));
    }
    Some(Line {
        comm,
        pid: pid_part.parse().ok()?,
        cpu,
        ts_ns,
        event,
        fields,
    })
}

/// Each event's fields as its `TP_STRUCT__entry` lists them (the raw output's order).
fn schema(event: &str) -> &'static [&'static str] {
    match event {
        "sched_switch" => &[
            "prev_comm",
            "prev_pid",
            "prev_prio",
            "prev_state",
            "next_comm",
            "next_pid",
            "next_prio",
        ],
        "sched_waking" | "sched_wakeup" | "sched_wakeup_new" => {
            &["comm", "pid", "prio", "target_cpu"]
        }
        "sched_migrate_task" => &["comm", "pid", "prio", "orig_cpu", "dest_cpu"],
        "cpu_frequency" | "cpu_idle" => &["state", "cpu_id"],
        // ftrace_events.h, SCHED_AVG_RBL with `runnable_avg` (v5.7+): RBL_LOAD_ENTRY = runnable.
        "lisa__sched_pelt_cfs" => &["update_time", "runnable", "util", "load", "cpu", "path"],
        "lisa__sched_pelt_se" => &[
            "update_time",
            "load",
            "runnable",
            "util",
            "cpu",
            "pid",
            "path",
            "comm",
        ],
        "lisa__sched_util_est_cfs" => &["util", "enqueued", "ewma", "cpu", "path"],
        "lisa__sched_util_est_se" => &["util", "enqueued", "ewma", "cpu", "pid", "path", "comm"],
        // FREQ_INVARIANCE: capacity_orig and capacity_curr.
        "lisa__sched_cpu_capacity" => &["capacity", "capacity_orig", "capacity_curr", "cpu"],
        "lisa__sched_overutilized" => &["overutilized", "span"],
        "schedlab__migrate_reason" => &["comm", "pid", "orig_cpu", "dest_cpu", "reason"],
        other => panic!("an event the export should not print: {other}"),
    }
}

fn traced(s: &Scenario, run: usize) -> (RunTrace, RunTrace) {
    let plan = Plan::new(s).unwrap();
    let with = plan.run_traced_with(run, true).unwrap();
    let without = plan.run_traced(run).unwrap();
    // Recording the signals changes nothing about the run: its result, its decisions and its
    // scheduling events are those of the run traced without them, and of the untraced run.
    assert_eq!(with.result, without.result);
    assert_eq!(with.result, plan.run(run).unwrap());
    assert_eq!(with.decisions, without.decisions);
    let sched: Vec<&TraceEvent> = with.events.iter().filter(|e| !e.is_signal()).collect();
    assert_eq!(sched, without.events.iter().collect::<Vec<_>>());
    assert!(without.events.iter().all(|e| !e.is_signal()));
    (with, without)
}

/// The lines of `tr` as LISA reads them, checked against each event's schema and the run.
fn read_back(tr: &RunTrace) -> BTreeMap<String, Vec<Line>> {
    let text = tr.to_text(Style::TraceCmd, true);
    let mut lines = text.lines();
    let nr_cpus = tr.freq_domain_cpus.iter().flatten().count();
    assert_eq!(lines.next(), Some(format!("cpus={nr_cpus}").as_str()));
    let mut by_event: BTreeMap<String, Vec<Line>> = BTreeMap::new();
    let mut last = 0;
    for l in lines {
        let p = parse(l).unwrap_or_else(|| panic!("LISA's regexes do not match: {l}"));
        let names: Vec<&str> = p.fields.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names, schema(&p.event), "{l}");
        assert!(p.ts_ns >= last, "time order: {l}");
        last = p.ts_ns;
        assert!(p.comm.len() <= 15, "TASK_COMM_LEN: {l}");
        by_event.entry(p.event.clone()).or_default().push(p);
    }
    // Each event of the run is one line (a frequency change one per CPU of its policy; a migration
    // a sched_migrate_task and its schedlab__migrate_reason).
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for e in &tr.events {
        let (name, n) = match e {
            TraceEvent::Switch { .. } => ("sched_switch", 1),
            TraceEvent::Wakeup { new: false, .. } => ("sched_wakeup", 1),
            TraceEvent::Wakeup { new: true, .. } => ("sched_wakeup_new", 1),
            TraceEvent::Waking { .. } => ("sched_waking", 1),
            TraceEvent::Migrate { .. } => ("sched_migrate_task", 1),
            TraceEvent::Frequency { domain, .. } => {
                ("cpu_frequency", tr.freq_domain_cpus[*domain].len())
            }
            TraceEvent::Idle { .. } => ("cpu_idle", 1),
            TraceEvent::PeltCfs { .. } => ("lisa__sched_pelt_cfs", 1),
            TraceEvent::PeltSe { .. } => ("lisa__sched_pelt_se", 1),
            TraceEvent::UtilEstCfs { .. } => ("lisa__sched_util_est_cfs", 1),
            TraceEvent::UtilEstSe { .. } => ("lisa__sched_util_est_se", 1),
            TraceEvent::CpuCapacity { .. } => ("lisa__sched_cpu_capacity", 1),
            TraceEvent::Overutilized { .. } => ("lisa__sched_overutilized", 1),
            TraceEvent::Energy { .. } | TraceEvent::RtappSlack { .. } => continue,
        };
        *counts.entry(name).or_default() += n;
        if name == "sched_migrate_task" {
            *counts.entry("schedlab__migrate_reason").or_default() += 1;
        }
    }
    let got: BTreeMap<&str, usize> = by_event
        .iter()
        .map(|(k, v)| (k.as_str(), v.len()))
        .collect();
    assert_eq!(got, counts);
    by_event
}

fn field<'a>(l: &'a Line, k: &str) -> &'a str {
    &l.fields.iter().find(|(n, _)| n == k).unwrap().1
}

/// HiKey960 under schedutil: every kind of event, and each PELT line carries the run's values.
#[test]
fn lisa_reads_a_hikey960_run_back() {
    let mut s = builtin("hikey960-asym-packing").unwrap();
    s.runs = 1;
    s.sweep.as_mut().unwrap().values = vec![4];
    s.variants[1].governor = schedlab_core::kernel::Governor::Schedutil;
    let (tr, _) = traced(&s, 1);
    let by = read_back(&tr);
    for ev in [
        "sched_switch",
        "sched_waking",
        "sched_wakeup",
        "sched_wakeup_new",
        "sched_migrate_task",
        "cpu_frequency",
        "cpu_idle",
        "lisa__sched_pelt_cfs",
        "lisa__sched_pelt_se",
        "lisa__sched_cpu_capacity",
    ] {
        assert!(by.contains_key(ev), "no {ev}");
    }
    // E1's kernel is v4.16: util_est came with v4.17, so there is none to trace.
    assert!(
        !by.contains_key("lisa__sched_util_est_cfs") && !by.contains_key("lisa__sched_util_est_se")
    );
    let se: Vec<(u64, usize, u64, u64, u64, u64)> = tr
        .events
        .iter()
        .filter_map(|e| match *e {
            TraceEvent::PeltSe {
                t,
                cpu,
                task,
                load,
                runnable,
                util,
                ..
            } => Some((t, cpu, task as u64 + 1, load, runnable, util)),
            _ => None,
        })
        .collect();
    let read: Vec<(u64, usize, u64, u64, u64, u64)> = by["lisa__sched_pelt_se"]
        .iter()
        .map(|l| {
            let n = |k| field(l, k).parse::<u64>().unwrap();
            (
                l.ts_ns,
                n("cpu") as usize,
                n("pid"),
                n("load"),
                n("runnable"),
                n("util"),
            )
        })
        .collect();
    assert_eq!(read, se);
    // prev_state is the raw number (-R), and the header's CPU is the event's CPU.
    for l in &by["sched_switch"] {
        assert!(
            ["0", "1", "16", "256"].contains(&field(l, "prev_state")),
            "{l:?}"
        );
    }
    for l in &by["lisa__sched_pelt_cfs"] {
        assert_eq!(field(l, "cpu").parse::<usize>().unwrap(), l.cpu);
    }
    // The migration's reason follows it, named as schedlab names it.
    let reasons: std::collections::BTreeSet<&str> = by["schedlab__migrate_reason"]
        .iter()
        .map(|l| field(l, "reason"))
        .collect();
    assert!(reasons.is_subset(
        &[
            "wakeup",
            "load_balance",
            "active_balance",
            "affinity",
            "exec"
        ]
        .into_iter()
        .collect()
    ));
}

/// An EAS system (Juno under schedutil, v6.7): `lisa__sched_overutilized` with the root
/// domain's span, as the kernel writes the flag.
#[test]
fn overutilized_is_traced_where_eas_runs() {
    let mut s = builtin("juno-use-all-littles").unwrap();
    s.runs = 1;
    for v in &mut s.variants {
        v.governor = schedlab_core::kernel::Governor::Schedutil;
    }
    let (tr, _) = traced(&s, 0);
    let by = read_back(&tr);
    let ou = by
        .get("lisa__sched_overutilized")
        .expect("EAS writes rd->overutilized");
    assert!(ou.iter().all(|l| field(l, "span") == "3f"), "six CPUs");
    assert!(ou.iter().any(|l| field(l, "overutilized") == "1"));
    // v6.7 has util_est: the cfs_rq's at each enqueue and dequeue, the task's at each sleep.
    assert!(by.contains_key("lisa__sched_util_est_cfs"));
    assert!(by.contains_key("lisa__sched_util_est_se"));
}

/// The ftrace export prints the signals as `sched_pelt_*` lines only when asked, in their
/// TP_printk order; without the flag it has the kernel's events and schedlab's migrate reason.
#[test]
fn ftrace_prints_pelt_lines_on_request() {
    let mut s = builtin("juno-use-all-littles").unwrap();
    s.runs = 1;
    let (tr, plain) = traced(&s, 0);
    let with = tr.to_text(Style::Ftrace, true);
    let without = tr.to_text(Style::Ftrace, false);
    assert_eq!(without, plain.to_ftrace());
    assert!(!without.contains("sched_pelt_"));
    let pelt = with
        .lines()
        .find(|l| l.contains(": sched_pelt_se: "))
        .unwrap();
    let keys: Vec<&str> = pelt
        .split(": sched_pelt_se: ")
        .nth(1)
        .unwrap()
        .split(' ')
        .map(|kv| kv.split('=').next().unwrap())
        .collect();
    // "cpu=%d path=%s comm=%s pid=%d load=%lu util=%lu update_time=%llu" " runnable=%lu"
    assert_eq!(
        keys,
        [
            "cpu",
            "path",
            "comm",
            "pid",
            "load",
            "util",
            "update_time",
            "runnable"
        ]
    );
    assert!(with.contains(": sched_pelt_cfs: cpu="));
    assert!(!with.contains("lisa__"));
}
