//! A sweep of random valid-shaped scenarios through `Plan::run_checked`, as an outside tester
//! would try the model: custom machines of 1-64 CPUs (mixed clusters, SMT widths and sharing
//! groups, capacities, OPPs, turbo bins, frequency domains, packages), every workload generator with
//! random parameters (rt-app files from the importer's tests, their numbers changed), random
//! baselines, patches, governors and config changes, small limits.
//!
//! Each scenario must end as a clean error or as runs that keep the engine's invariants and stay
//! within their limits: no panic, no "invariant:" report, no run past `max_sim_seconds` or
//! `max_events`, every message one line that says its kind once. A tenth of the runs are repeated
//! to check that they give the same result.
//!
//! `SCHEDLAB_SWEEP_SCENARIOS=N` (default 600) sets the count; `SCHEDLAB_SWEEP_SEED` the first seed.

use schedlab_core::experiment::{Plan, Scenario};
use schedlab_core::kernel::{BASELINES, PATCHES};
use schedlab_core::rng::Rng;
use schedlab_core::scenarios::BUILTIN;
use schedlab_core::topology::presets;
use serde_json::{json, Map, Value};
use std::path::Path;

/// What happened to the scenarios of a sweep.
#[derive(Default, Debug)]
struct Tally {
    scenarios: usize,
    refused: usize,
    runs: usize,
    run_errors: usize,
    /// The distinct first words of refusals, to see that the generator reaches past validation.
    kinds: std::collections::BTreeMap<String, usize>,
    /// The same for the errors runs ended in.
    run_kinds: std::collections::BTreeMap<String, usize>,
}

struct Gen {
    rng: Rng,
    rtapp_files: Vec<String>,
    workloads: Vec<Value>,
}

impl Gen {
    fn new(seed: u64) -> Gen {
        // The importer's own test files, and the real ones of the shared corpus when it is there.
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut rtapp_files: Vec<String> = Vec::new();
        let mut dirs = vec![root.join("tests/rtapp")];
        let shared = root.join("../../../shared/corpus/rt-app");
        for sub in ["rtapp", "rtapp/tutorial", "lisa_wa", "lisa_gen"] {
            dirs.push(shared.join(sub));
        }
        for dir in dirs {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            let mut paths: Vec<_> = entries.filter_map(|e| Some(e.ok()?.path())).collect();
            paths.sort();
            for p in paths {
                if p.extension().is_some_and(|x| x == "json") {
                    if let Ok(text) = std::fs::read_to_string(&p) {
                        rtapp_files.push(text);
                    }
                }
            }
        }
        // Every generator's parameters: the built-ins' workloads and each kind's defaults.
        let mut workloads: Vec<Value> = BUILTIN
            .iter()
            .map(|b| {
                let s = schedlab_core::scenarios::builtin(b.name).unwrap();
                serde_json::to_value(&s.workload).unwrap()
            })
            .collect();
        // Each kind with only what it requires, the rest at its defaults.
        for w in [
            json!({ "kind": "sysbench-cpu", "threads": 2 }),
            json!({ "kind": "hackbench" }),
            json!({ "kind": "ebizzy" }),
            json!({ "kind": "tbench", "clients": 4 }),
            json!({ "kind": "kernbench", "jobs": 4 }),
            json!({ "kind": "gitsource" }),
            json!({ "kind": "two-step" }),
        ] {
            if let Ok(spec) =
                serde_json::from_value::<schedlab_core::workload::WorkloadSpec>(w.clone())
            {
                workloads.push(serde_json::to_value(&spec).unwrap());
            } else {
                workloads.push(w);
            }
        }
        Gen {
            rng: Rng::new(seed),
            rtapp_files,
            workloads,
        }
    }

    fn below(&mut self, n: u64) -> u64 {
        self.rng.below(n.max(1))
    }
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        self.rng.range_inclusive(lo, hi)
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }

    /// A number near `v`: mostly a quarter to twice it, often much smaller (so that runs end
    /// within the sweep's small limits), sometimes 0, 1 or far out of range.
    fn near(&mut self, v: u64) -> u64 {
        match self.below(20) {
            0 => 0,
            1 => 1,
            2 => v.saturating_mul(1000).max(1_000_000),
            3..=10 if v > 16 => self.range(1, v / 8),
            _ => self.range(v / 4, v.saturating_mul(2).max(2)),
        }
    }

    /// Every number in `v` moved with [`Gen::near`], each with probability `percent`.
    fn perturb(&mut self, v: &mut Value, percent: u64) {
        match v {
            Value::Number(n) if self.chance(percent) => {
                if let Some(u) = n.as_u64() {
                    *v = json!(self.near(u));
                } else if let Some(i) = n.as_i64() {
                    *v = json!(-(self.near(i.unsigned_abs()) as i64));
                } else if let Some(f) = n.as_f64() {
                    *v = json!(f * (self.below(400) as f64 / 100.0));
                }
            }
            Value::Array(a) => a.iter_mut().for_each(|x| self.perturb(x, percent)),
            Value::Object(o) => o.values_mut().for_each(|x| self.perturb(x, percent)),
            _ => {}
        }
    }

    fn machine(&mut self) -> Value {
        if self.chance(15) {
            return json!({ "preset": *self.pick(presets::NAMES) });
        }
        let mut clusters = Vec::new();
        let mut cpus = 0u64;
        let nclusters = self.range(1, 4);
        let packages = if self.chance(25) { 2 } else { 1 };
        for c in 0..nclusters {
            let threads = *self.pick(&[1u64, 1, 2, 2, 4, 8]);
            let room = 64u64.saturating_sub(cpus) / threads;
            if room == 0 {
                break;
            }
            let cores = self.range(1, room.min(8));
            cpus += cores * threads;
            let nopps = self.range(1, 4);
            let mut opps: Vec<u64> = (0..nopps).map(|_| self.range(200, 3000)).collect();
            opps.sort_unstable();
            let mut cl = Map::new();
            cl.insert("name".into(), json!(format!("c{c}")));
            cl.insert("core_type".into(), json!(format!("t{}", self.below(3))));
            cl.insert("package".into(), json!(c % packages));
            cl.insert("cores".into(), json!(cores));
            cl.insert("threads_per_core".into(), json!(threads));
            // The biggest CPU is 1024, as `topology_normalize_cpu_scale()` makes it.
            let cap = if c == 0 { 1024 } else { self.range(100, 1024) };
            cl.insert("capacity_orig".into(), json!(cap));
            cl.insert("opps_mhz".into(), json!(opps));
            if threads > 1 && self.chance(40) {
                // Two interleaved sharing groups, as POWER9's small cores.
                let groups: Vec<Vec<u64>> = (0..2)
                    .map(|g| (0..threads).filter(|t| t % 2 == g).collect())
                    .collect();
                cl.insert("smt_sharing_groups".into(), json!(groups));
            }
            if threads > 1 && self.chance(50) {
                let t: Vec<u64> = (0..threads.min(4))
                    .map(|k| 1024 - k * self.range(50, 250))
                    .collect();
                cl.insert("smt_throughput".into(), json!(t));
            }
            if self.chance(30) {
                let top = *opps.last().unwrap();
                let bins: Vec<Value> = (1..=self.range(1, 3))
                    .map(|k| json!({ "max_active_cores": k * 2, "mhz": top + 400 - k * 100 }))
                    .collect();
                cl.insert("turbo_bins".into(), json!(bins));
            }
            cl.insert(
                "freq_domain".into(),
                json!(*self.pick(&["cluster", "cluster", "core", "cpu"])),
            );
            clusters.push(Value::Object(cl));
        }
        let mut m = json!({
            "name": "random",
            "llc": *self.pick(&["cluster", "package"]),
            "clusters": clusters,
        });
        if self.chance(5) {
            self.perturb(&mut m, 10);
        }
        json!({ "custom": m })
    }

    fn workload(&mut self) -> Value {
        if self.chance(20) && !self.rtapp_files.is_empty() {
            let k = self.below(self.rtapp_files.len() as u64) as usize;
            let text = self.rtapp_files[k].clone();
            // rt-app files have comments; numbers are changed in those that parse without them.
            let Ok(mut v) = serde_json::from_str::<Value>(&strip_comments(&text)) else {
                return json!({ "kind": "rt-app", "json": text });
            };
            self.perturb(&mut v, 15);
            // Keep runs short: a long duration only meets the time limit.
            if let Some(g) = v.get_mut("global").and_then(Value::as_object_mut) {
                g.insert("duration".into(), json!(self.range(1, 2)));
            }
            return json!({ "kind": "rt-app", "json": v.to_string() });
        }
        let mut w = self.pick(&self.workloads.clone()).clone();
        self.perturb(&mut w, 60);
        w
    }

    fn variants(&mut self) -> Value {
        let n = self.range(1, 3);
        let vs: Vec<Value> = (0..n)
            .map(|i| {
                let mut v = json!({
                    "name": format!("v{i}"),
                    "baseline": self.pick(BASELINES).name,
                    "governor": *self.pick(&["performance", "powersave", "schedutil", "hwp"]),
                });
                let patches: Vec<&str> = PATCHES
                    .iter()
                    .filter(|_| self.chance(20))
                    .map(|p| p.name)
                    .collect();
                v["patches"] = json!(patches);
                if self.chance(15) {
                    let config = match self.below(5) {
                        0 => json!({ "hz": *self.pick(&[100u64, 250, 300, 1000]) }),
                        1 => json!({ "util_est": self.chance(50), "misfit": self.chance(50) }),
                        2 => json!({ "schedutil_rate_limit_us": self.near(1000) }),
                        3 => json!({ "hwp_epp": self.below(256), "hwp_dynamic_boost": self.chance(50) }),
                        _ => json!({ "asym_packing": { "levels": ["MC"], "priority": "cpu_capacity" } }),
                    };
                    v["config"] = config;
                }
                v
            })
            .collect();
        json!(vs)
    }

    fn scenario(&mut self, i: usize) -> Value {
        let mut s = json!({
            "version": 1,
            "name": format!("random-{i}"),
            "machine": self.machine(),
            "workload": self.workload(),
            "variants": self.variants(),
            "runs": self.range(1, 2),
            "seed": self.below(1000),
            "limits": {
                "max_sim_seconds": self.range(1, 2),
                "max_events": self.range(5_000, 30_000),
                "max_tasks": self.range(16, 512),
            },
        });
        let sweepable: &[(&str, &[&str])] = &[
            ("sysbench-cpu", &["threads"]),
            ("hackbench", &["groups", "loops"]),
            ("tbench", &["clients"]),
            ("kernbench", &["jobs", "files"]),
            ("gitsource", &["processes", "work_us"]),
        ];
        let kind = s["workload"]["kind"].as_str().unwrap_or("").to_string();
        if let Some((_, params)) = sweepable.iter().find(|(k, _)| *k == kind) {
            if self.chance(30) {
                let param = *self.pick(params);
                let values: Vec<u64> = (0..self.range(1, 3)).map(|_| self.range(1, 16)).collect();
                s["sweep"] = json!({ "param": param, "values": values });
            }
        }
        if self.chance(10) {
            s["taskset"] = json!([0]);
        }
        s
    }
}

/// The text without `/* */` and `//` comments outside strings (what json-c skips).
fn strip_comments(text: &str) -> String {
    let (mut out, mut chars) = (String::new(), text.chars().peekable());
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                '\\' => out.extend(chars.next()),
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('*')) => {
                chars.next();
                let mut last = ' ';
                for d in chars.by_ref() {
                    if last == '*' && d == '/' {
                        break;
                    }
                    last = d;
                }
            }
            ('/', Some('/')) => {
                for d in chars.by_ref() {
                    if d == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// A message with its numbers and names blurred, to count messages by kind.
fn kind_of(m: &str) -> String {
    let mut out = String::new();
    let mut quoted = false;
    for c in m.chars() {
        match c {
            '\'' => quoted = !quoted,
            _ if quoted => {}
            '0'..='9' => {
                if !out.ends_with('#') {
                    out.push('#')
                }
            }
            _ => out.push(c),
        }
    }
    out.chars().take(90).collect()
}

/// One line, its kind said once.
fn check_message(m: &str, what: &str) {
    assert!(
        !m.is_empty() && !m.contains('\n'),
        "{what}: message of one line: {m:?}"
    );
    assert!(!m.contains("invariant"), "{what}: {m}");
    for kind in [
        "invalid machine:",
        "invalid kernel configuration:",
        "invalid workload:",
        "invalid scenario:",
        "limit exceeded:",
    ] {
        assert!(
            m.matches(kind).count() <= 1,
            "{what}: '{kind}' said twice: {m}"
        );
    }
}

fn sweep(first_seed: u64, count: usize) -> Tally {
    let mut gen = Gen::new(first_seed);
    let mut tally = Tally::default();
    for i in 0..count {
        let v = gen.scenario(i);
        let what = format!("scenario {i} (seed {first_seed}): {v}");
        tally.scenarios += 1;
        let plan = Scenario::from_json(&v.to_string()).and_then(|s| Plan::new(&s));
        let plan = match plan {
            Ok(p) => p,
            Err(e) => {
                let m = e.to_string();
                check_message(&m, &what);
                tally.refused += 1;
                *tally.kinds.entry(kind_of(&m)).or_default() += 1;
                continue;
            }
        };
        let limits = plan.scenario.limits;
        for run in 0..plan.len().min(4) {
            tally.runs += 1;
            match plan.run_checked(run) {
                Ok(r) => {
                    assert!(
                        r.sim_ns <= limits.max_sim_seconds * 1_000_000_000,
                        "{what}: run {run} past its time"
                    );
                    assert!(
                        r.events <= limits.max_events,
                        "{what}: run {run} past its events"
                    );
                    assert!(
                        r.value.is_finite() && r.energy_j.is_finite(),
                        "{what}: run {run}: {r:?}"
                    );
                    if run % 10 == 0 {
                        assert_eq!(plan.run(run).as_ref(), Ok(&r), "{what}: run {run} repeats");
                    }
                }
                Err(e) => {
                    let m = e.to_string();
                    check_message(&m, &format!("{what}: run {run}"));
                    tally.run_errors += 1;
                    *tally.run_kinds.entry(kind_of(&m)).or_default() += 1;
                }
            }
        }
    }
    tally
}

#[test]
fn random_scenarios_end_in_clean_errors_or_runs_that_keep_their_invariants() {
    let count = std::env::var("SCHEDLAB_SWEEP_SCENARIOS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(600);
    let seed = std::env::var("SCHEDLAB_SWEEP_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let t = sweep(seed, count);
    println!(
        "{} scenarios: {} refused, {} runs ({} ended in an error); refusals by kind: {:#?}; run errors: {:#?}",
        t.scenarios, t.refused, t.runs, t.run_errors, t.kinds, t.run_kinds
    );
    // The generator must reach the engine, not only the validation.
    assert!(t.runs * 2 > t.scenarios, "{t:?}");
}
