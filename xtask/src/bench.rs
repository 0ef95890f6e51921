//! `cargo xtask bench`: the issue-13 table, one run of everything.
//!
//! Rows: the bench matrix's cells (`schedlab bench --list`: `schedlab_core::bench`, workload x
//! machine of 8, 24, 96 and 384 CPUs) and E1's whole sweep (`hikey960-asym-packing`, 512 runs).
//! How each figure is measured:
//! - native `events`, `wall`: `schedlab bench NAME --jobs 1 --format json` (the release CLI, one
//!   thread, so it compares with the page's one worker), the fastest of [`REPEAT`] invocations
//!   taken round by round over the rows (the machine is shared; the fastest is the one least
//!   disturbed; the table ends with the load average to judge by). `wall` is the CLI's own
//!   clock around the runs only (plan built before it starts, no process start-up).
//!   `events/s` = events / wall; `CPU-s/s` = simulated busy CPU-seconds / wall.
//! - E1's sweep on 2 threads (the first figure): `schedlab bench hikey960-asym-packing
//!   --jobs 2`, [`SWEEP_REPEAT`] samples, fastest and median, printed under the table.
//! - `instr/ev` (when `valgrind` runs): callgrind's total `Collected` Ir of the same command,
//!   minus that of `--dry-run` (process start-up, scenario and plan built, no run), divided by
//!   the events: the instructions of the runs themselves, world set-up included; `Minstr/CPU-s`
//!   is the same count per simulated busy CPU-second. Instruction counts repeat exactly from one
//!   invocation to the next whatever else the machine does, which wall time does not (so two
//!   callgrinds run at once, [`VALGRIND_JOBS`]).
//! - wasm: the release page (dist/) in headless Chromium (tests/e2e/bench.mjs): one page, the
//!   job worker runs each row in turn (`window.schedlabBench(name)`, E1 included), timed inside
//!   the worker around the runs, the fastest of 3 as natively; `wasm/nat` = wasm wall / native
//!   wall. (bench.mjs also prints E1 by `?bench=1` on its own page load, as before; the table
//!   takes the cell's figure.)
//! - page: from a cold cache, E1 as shipped (Run ready, first results, whole table, as
//!   Playwright sees them, and by the page's own clock: first results painted, whole table) and
//!   on one job worker, each the median of 5 cold loads taken in turn (`SCHEDLAB_BENCH_COLD_REPEAT`;
//!   one cold load varies by half a second on 2 cores), and the whole E2 suite (its three
//!   scenarios opened and run in turn as a visitor does, load to whole table, summed), the
//!   median of 3 (`SCHEDLAB_BENCH_SUITE_REPEAT`), with the CPU time of the page's own thread
//!   and of its renderer process over it (what the page takes from the job workers, which the
//!   wall time of a shared machine hides).
//!
//! `SCHEDLAB_BENCH_VALGRIND=0` skips callgrind, `SCHEDLAB_BENCH_E2=0` the E2 suite,
//! `SCHEDLAB_BENCH_WASM=0` the browser (native columns only).

use crate::{cmd, flush, header, Ctx, Result};
use serde_json::Value;
use std::collections::BTreeMap;
use std::process::{Command, Stdio};

/// Native invocations per cell; the fastest counts.
pub(crate) const REPEAT: usize = 3;
/// E1's sweep on two threads: this many samples.
const SWEEP_REPEAT: usize = 7;
/// callgrind processes at a time (this project's machines have 2 cores).
const VALGRIND_JOBS: usize = 2;
/// E1's sweep, the row the first figures are about.
const E1: &str = "hikey960-asym-packing";

#[derive(Default)]
struct Row {
    events: u64,
    busy_cpu_ns: u64,
    wall_s: f64,
    instructions: Option<u64>,
    wasm_s: Option<f64>,
}

#[derive(Default)]
struct Page {
    /// E1 from a cold load: as shipped, and on one job worker.
    e1: Option<ColdLoad>,
    e1_one: Option<ColdLoad>,
    e2_ms: Option<f64>,
    /// CPU time over that suite of the page's own thread and of its renderer process, the
    /// job workers included (Chromium's ThreadTime and ProcessTime).
    e2_cpu_ms: Option<(f64, f64)>,
    e2_members: Vec<(String, u64, f64)>,
}

/// A cold load of E1 (medians, ms): as Playwright saw it (running, first results, whole table),
/// and by the page's own clock (the first results painted, the whole table).
#[derive(Clone, Copy)]
struct ColdLoad {
    runs: u64,
    ready: f64,
    first: f64,
    done: f64,
    first_painted: f64,
    done_in_page: f64,
}

impl Ctx {
    pub(crate) fn bench(&self) -> Result {
        let wasm = std::env::var("SCHEDLAB_BENCH_WASM").as_deref() != Ok("0");
        if wasm {
            self.setup()?;
        }
        let cli = self.build_release_cli()?;
        let cli = cli.as_str();
        let list = crate::capture(cmd(cli, &["bench", "--list"]))?;
        let mut names: Vec<String> = list.lines().map(str::to_string).collect();
        names.push(E1.to_string());
        let mut rows: BTreeMap<String, Row> = BTreeMap::new();

        let load_before = loadavg();
        let n = self.begin_step("native: schedlab bench NAME --jobs 1 --format json");
        let t = std::time::Instant::now();
        // Round by round over all rows, so that a busy spell of the shared machine does not take
        // every sample of one row.
        for round in 0..REPEAT {
            for name in &names {
                let v = bench_json(cli, name, "1")?;
                let row = Row {
                    events: v["events"].as_u64().unwrap_or(0),
                    busy_cpu_ns: v["busy_cpu_ns"].as_u64().unwrap_or(0),
                    wall_s: v["wall_s"].as_f64().unwrap_or(0.0),
                    ..Row::default()
                };
                let best = rows.entry(name.clone()).or_insert(Row {
                    wall_s: f64::INFINITY,
                    ..Row::default()
                });
                if row.wall_s < best.wall_s {
                    *best = row;
                }
                if round + 1 == REPEAT {
                    println!(
                        "  {name}: {} events, {:.3} s (fastest of {REPEAT})",
                        best.events, best.wall_s
                    );
                    flush();
                }
            }
        }
        println!("--- [{n}] native: ok ({:.0} s)", t.elapsed().as_secs_f64());

        // E1's sweep on two threads (the first figure): samples in turn with nothing
        // else running (its output is read once the command is done).
        let n = self.begin_step(&format!(
            "native: schedlab bench {E1} --jobs 2 --format json"
        ));
        let mut two_threads = Vec::new();
        for _ in 0..SWEEP_REPEAT {
            let v = bench_json(cli, E1, "2")?;
            two_threads.push(v["wall_s"].as_f64().unwrap_or(f64::NAN));
        }
        two_threads.sort_by(f64::total_cmp);
        println!("--- [{n}] native, 2 threads: ok");

        let valgrind = std::env::var("SCHEDLAB_BENCH_VALGRIND").as_deref() != Ok("0")
            && crate::version_of("valgrind", "--version").is_some();
        if valgrind {
            let n = self.begin_step(
                "instructions: valgrind --tool=callgrind, run minus --dry-run (2 at a time)",
            );
            let t = std::time::Instant::now();
            // Counts do not depend on what else runs: two at a time, one per core here.
            let next = std::sync::atomic::AtomicUsize::new(0);
            let counts: std::sync::Mutex<Vec<(usize, Result<u64>)>> = Default::default();
            std::thread::scope(|scope| {
                for _ in 0..VALGRIND_JOBS {
                    scope.spawn(|| loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(name) = names.get(i) else { break };
                        let ir =
                            callgrind(cli, &["bench", name, "--jobs", "1", "--format", "json"])
                                .and_then(|whole| {
                                    let fixed = callgrind(
                                        cli,
                                        &["bench", name, "--jobs", "1", "--dry-run"],
                                    )?;
                                    println!(
                                        "  {name}: {whole} - {fixed} = {} instructions",
                                        whole.saturating_sub(fixed)
                                    );
                                    flush();
                                    Ok(whole.saturating_sub(fixed))
                                });
                        counts.lock().unwrap().push((i, ir));
                    });
                }
            });
            for (i, ir) in counts.into_inner().unwrap() {
                if let Some(r) = rows.get_mut(&names[i]) {
                    r.instructions = Some(ir?);
                }
            }
            println!(
                "--- [{n}] instructions: ok ({:.0} s)",
                t.elapsed().as_secs_f64()
            );
        } else {
            println!("\n(valgrind not run: no instructions per event)");
        }
        let load_after = loadavg();

        let mut page = Page::default();
        if wasm {
            self.step(
                "trunk build --release",
                cmd("trunk", &["build", "--release"]),
            )?;
            let cells: Vec<&str> = names.iter().map(String::as_str).collect();
            let mut node = cmd("node", &["tests/e2e/bench.mjs"]);
            node.env("SCHEDLAB_DIST", self.root.join("dist"))
                .env("SCHEDLAB_SCENARIO", E1)
                .env("SCHEDLAB_BENCH_CELLS", cells.join(","));
            let mut figures: Vec<Value> = Vec::new();
            self.step_with_lines(
                "wasm: the cells and E1's sweep in headless Chromium, and the page timings",
                node,
                |line| {
                    if let Some(json) = line.strip_prefix("BENCH ") {
                        if let Ok(v) = serde_json::from_str(json) {
                            figures.push(v);
                        }
                    }
                },
            )?;
            for v in &figures {
                let ms = |k: &str| v[k].as_f64().unwrap_or(f64::NAN);
                match v["kind"].as_str() {
                    Some("cell" | "sweep") => {
                        if let Some(r) = v["scenario"].as_str().and_then(|s| rows.get_mut(s)) {
                            r.wasm_s = Some(ms("elapsed_ms") / 1e3);
                        }
                    }
                    Some("page") => match v["what"].as_str() {
                        Some(what @ ("E1 cold" | "E1 cold one worker")) => {
                            let cold = ColdLoad {
                                runs: v["runs"].as_u64().unwrap_or(0),
                                ready: ms("ready_ms"),
                                first: ms("first_ms"),
                                done: ms("done_ms"),
                                first_painted: ms("first_painted_ms"),
                                done_in_page: ms("done_in_page_ms"),
                            };
                            if what == "E1 cold" {
                                page.e1 = Some(cold);
                            } else {
                                page.e1_one = Some(cold);
                            }
                        }
                        Some("E2 suite") => {
                            page.e2_ms = Some(ms("ms"));
                            page.e2_cpu_ms = v["page_thread_cpu_ms"]
                                .as_f64()
                                .zip(v["process_cpu_ms"].as_f64());
                        }
                        Some(member) => page.e2_members.push((
                            member.to_string(),
                            v["runs"].as_u64().unwrap_or(0),
                            ms("ms"),
                        )),
                        None => {}
                    },
                    _ => {}
                }
            }
        }
        header("the bench table (cargo xtask bench)");
        print!("{}", table(&names, &rows, &page));
        println!(
            "native, E1 sweep ({E1}, as shipped) on 2 threads, {} samples: fastest {:.3} s, median {:.3} s ({})",
            two_threads.len(),
            two_threads[0],
            two_threads[two_threads.len() / 2],
            two_threads
                .iter()
                .map(|w| format!("{w:.3}"))
                .collect::<Vec<_>>()
                .join(" ")
        );
        println!(
            "load average (1 min) of the machine: {load_before} before the native runs, {load_after} after callgrind, {} at the end",
            loadavg()
        );
        flush();
        Ok(())
    }
}

/// `schedlab bench NAME --jobs JOBS --format json`, read: one object (wall_s, events, ...).
pub(crate) fn bench_json(cli: &str, name: &str, jobs: &str) -> Result<Value> {
    let out = crate::capture(cmd(
        cli,
        &["bench", name, "--jobs", jobs, "--format", "json"],
    ))?;
    serde_json::from_str(out.trim())
        .map_err(|e| format!("schedlab bench {name} --jobs {jobs}: not JSON ({e}): {out}"))
}

/// The 1-minute load average (`/proc/loadavg`), to judge the wall times by: the machine is shared.
fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".into())
}

/// callgrind's `Collected` instruction count of one command (its output file thrown away).
fn callgrind(cli: &str, args: &[&str]) -> Result<u64> {
    let out = Command::new("valgrind")
        .args(["--tool=callgrind", "--callgrind-out-file=/dev/null", cli])
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("cannot start valgrind: {e}"))?;
    let err = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!("valgrind {cli} {}: {err}", args.join(" ")));
    }
    err.lines()
        .find_map(|l| {
            let (_, n) = l.split_once("Collected :")?;
            n.trim().parse().ok()
        })
        .ok_or_else(|| format!("no 'Collected' line from callgrind: {err}"))
}

/// Instructions per event of each workload's cells against its 8-CPU cell (the goal:
/// 96 CPUs within 1.5x, 384 within 2x).
fn growth(names: &[String], rows: &BTreeMap<String, Row>) -> String {
    let per_event = |n: &str| {
        let r = rows.get(n)?;
        Some(r.instructions? as f64 / r.events.max(1) as f64)
    };
    let mut s = String::new();
    for name in names {
        let Some(rest) = name.strip_prefix("bench-") else {
            continue;
        };
        let Some((workload, cpus)) = rest.rsplit_once('-') else {
            continue;
        };
        if cpus == "8" {
            continue;
        }
        let (Some(base), Some(this)) = (per_event(&format!("bench-{workload}-8")), per_event(name))
        else {
            continue;
        };
        if !s.contains(&format!("{workload}:")) {
            s.push_str(&format!("\n  {workload}:"));
        } else {
            s.push(',');
        }
        s.push_str(&format!(" {cpus} CPUs {:.2}x", this / base));
    }
    if s.is_empty() {
        s
    } else {
        format!("instructions per event against 8 CPUs:{s}\n")
    }
}

fn table(names: &[String], rows: &BTreeMap<String, Row>, page: &Page) -> String {
    let mut s = String::new();
    s.push_str(&format!(
        "{:<24} {:>5} | {:>10} {:>8} {:>7} {:>8} {:>8} {:>12} | {:>8} {:>7} {:>8} {:>8}\n",
        "", "", "native", "", "", "", "", "", "wasm", "", "", ""
    ));
    s.push_str(&format!(
        "{:<24} {:>5} | {:>10} {:>8} {:>7} {:>8} {:>8} {:>12} | {:>8} {:>7} {:>8} {:>8}\n",
        "scenario",
        "CPUs",
        "events",
        "wall s",
        "Mev/s",
        "CPU-s/s",
        "instr/ev",
        "Minstr/CPU-s",
        "wall s",
        "Mev/s",
        "CPU-s/s",
        "wasm/nat"
    ));
    s.push_str(&format!("{}\n", "-".repeat(24 + 6 + 59 + 3 + 36)));
    for name in names {
        let Some(r) = rows.get(name) else { continue };
        let cpus = name
            .strip_prefix("bench-")
            .and_then(|n| n.rsplit('-').next())
            .unwrap_or(if name == E1 { "8" } else { "" });
        let busy = r.busy_cpu_ns as f64 / 1e9;
        let (ipe, ipc) = match r.instructions {
            Some(ir) if r.events > 0 => (
                format!("{:.0}", ir as f64 / r.events as f64),
                format!("{:.2}", ir as f64 / 1e6 / busy),
            ),
            _ => ("-".into(), "-".into()),
        };
        let wasm = match r.wasm_s {
            Some(w) if w > 0.0 => format!(
                "{:>8.3} {:>7.2} {:>8.0} {:>8.2}",
                w,
                r.events as f64 / 1e6 / w,
                busy / w,
                w / r.wall_s
            ),
            _ => format!("{:>8} {:>7} {:>8} {:>8}", "-", "-", "-", "-"),
        };
        s.push_str(&format!(
            "{:<24} {:>5} | {:>10} {:>8.3} {:>7.2} {:>8.0} {:>8} {:>12} | {}\n",
            name,
            cpus,
            r.events,
            r.wall_s,
            r.events as f64 / 1e6 / r.wall_s,
            busy / r.wall_s,
            ipe,
            ipc,
            wasm
        ));
    }
    s.push_str(
        "(native: one thread, fastest of 3; instr: callgrind of the runs (whole command minus \
         --dry-run); wasm: the page's job worker, one thread, fastest of 3)\n",
    );
    s.push_str(&growth(names, rows));
    for (label, e1) in [
        (
            "as shipped (job workers: hardwareConcurrency, capped)",
            page.e1,
        ),
        ("on one job worker (&workers=1)", page.e1_one),
    ] {
        if let Some(c) = e1 {
            s.push_str(&format!(
                "page, cold cache, E1 {label} ({} runs, median of the cold loads): running {:.3} s, first results {:.3} s, whole table {:.3} s; by the page's clock: first results painted {:.3} s, whole table {:.3} s\n",
                c.runs,
                c.ready / 1e3,
                c.first / 1e3,
                c.done / 1e3,
                c.first_painted / 1e3,
                c.done_in_page / 1e3
            ));
        }
    }
    if let Some(ms) = page.e2_ms {
        let members: Vec<String> = page
            .e2_members
            .iter()
            .map(|(n, runs, ms)| format!("{n} {runs} runs {:.1} s", ms / 1e3))
            .collect();
        let page_thread = page
            .e2_cpu_ms
            .map(|(thread, process)| {
                format!(
                    "; CPU: the page's own thread {:.3} s, its renderer process (job workers included) {:.3} s",
                    thread / 1e3,
                    process / 1e3
                )
            })
            .unwrap_or_default();
        s.push_str(&format!(
            "page, whole E2 suite as shipped (median): {:.3} s ({}){page_thread}\n",
            ms / 1e3,
            members.join(", ")
        ));
    }
    s
}
