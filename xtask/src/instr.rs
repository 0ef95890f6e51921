//! `cargo xtask profile --instr [CELL ...]`: the instructions each function executes in a bench
//! cell, natively beside V8's code of the page's job worker, both counted by callgrind. Unlike
//! the sampled profile (profile.rs) the counts repeat to the instruction whatever else the shared
//! machine is doing, so a change to the wasm side can be judged by a few tenths of a percent.
//!
//! - native: callgrind of `schedlab bench CELL --jobs 1` (the whole command: its start is a few
//!   million instructions), self instructions by function.
//! - wasm: the worker built as shipped with its names kept (profile.rs's page), run in Node under
//!   callgrind by tests/e2e/wasm-instr.mjs: compiled once by the optimising tier before anything
//!   runs, the cell between two marks at which callgrind dumps, so that the second part holds
//!   the cell alone. V8's perf map names the function of each instruction address
//!   (`--dump-instr=yes`); what runs outside the worker's code (V8's builtins, Node) is listed as
//!   `[node] <symbol>`.
//!
//! Node's V8 is older than Chromium's, and an instruction is not a unit of time: read the wasm
//! column as the shape of V8's code (spills, checks, calls), the ratio as what it costs. On this
//! project's machines the cells' instruction ratio has been within ~0.1 of the wall-time ratio
//! of `cargo xtask bench` (hackbench-8: 1.47 and 1.47; sysbench-8: 1.49 and 1.55).
//!
//! Under callgrind Node runs ~40 times slower: a cell takes 1-3 minutes (most of it compiling the
//! worker), two at a time.
//!
//! A cell may also be a scenario file (`*.json`, as `schedlab show` writes it): `schedlab bench
//! FILE` natively, and the worker is handed the file's text. Cut a long built-in down to the
//! variants and sweep points in question (all of `cascadelake-fi-tbench` is ~78 G instructions
//! natively, over an hour in V8 under callgrind).

use crate::callgrind::{self_costs, PerfMap, SelfCosts};
use crate::profile::{cell_table, function_name, Side, Unit};
use crate::{header, Ctx, Result};
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};

/// callgrind processes at a time (this project's machines have 2 cores).
const JOBS: usize = 2;

impl Ctx {
    pub(crate) fn profile_instructions(&self, cells: &[String]) -> Result {
        if crate::version_of("valgrind", "--version").is_none() {
            return Err("--instr needs valgrind (callgrind), which is not installed".into());
        }
        let cli = self.build_release_cli()?;
        let dir = self.target_dir.join("profile");
        fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let dist = self.profile_page(&dir)?;
        let wasm = dist.join("worker_bg.wasm");
        let script = self.root.join("tests/e2e/wasm-instr.mjs");

        let n = self.begin_step("callgrind: each cell natively and in Node's V8 (2 at a time)");
        // Every (cell, side) job, run JOBS at a time; each result is printed as it comes.
        let jobs: Vec<(usize, bool)> = (0..cells.len())
            .flat_map(|i| [(i, false), (i, true)])
            .collect();
        let next = std::sync::atomic::AtomicUsize::new(0);
        let results = std::sync::Mutex::new(BTreeMap::<(usize, bool), Result<Count>>::new());
        std::thread::scope(|s| {
            for _ in 0..JOBS {
                s.spawn(|| loop {
                    let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(&(i, in_wasm)) = jobs.get(k) else {
                        return;
                    };
                    let cell = &cells[i];
                    let out = dir.join(format!(
                        "{}.{}.callgrind",
                        out_stem(cell),
                        side_name(in_wasm)
                    ));
                    let r = if in_wasm {
                        wasm_count(&script, &wasm, cell, &dir, &out)
                    } else {
                        native_count(&cli, cell, &out)
                    };
                    match &r {
                        Ok(c) => println!(
                            "  {cell}, {}: {:.1} M instructions, {} events",
                            side_name(in_wasm),
                            c.costs.summary as f64 / 1e6,
                            c.events
                        ),
                        Err(e) => println!("  {cell}, {}: {e}", side_name(in_wasm)),
                    }
                    results.lock().unwrap().insert((i, in_wasm), r);
                });
            }
        });
        println!("--- [{n}] callgrind: done");

        header("instructions per function (cargo xtask profile --instr)");
        let mut results = results.into_inner().unwrap();
        let mut failed = None;
        for (i, cell) in cells.iter().enumerate() {
            let mut side = |in_wasm| match results.remove(&(i, in_wasm)) {
                Some(Ok(c)) => Some(c),
                Some(Err(e)) => {
                    failed.get_or_insert(format!("{cell}: {e}"));
                    None
                }
                None => None,
            };
            let (native, wasm) = (side(false), side(true));
            let per_event = |c: &Option<Count>| {
                c.as_ref().map_or("-".into(), |c| {
                    format!("{:.0}", c.costs.summary as f64 / c.events.max(1) as f64)
                })
            };
            print!(
                "{}",
                cell_table(
                    cell,
                    native.as_ref().map(Count::side).as_ref(),
                    wasm.as_ref().map(Count::side).as_ref(),
                    Unit::MInstr,
                )
            );
            println!(
                "instructions per event: native {}, wasm {}",
                per_event(&native),
                per_event(&wasm)
            );
        }
        match failed {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// A cell's name in its output files: a scenario file's stem, else the cell itself.
fn out_stem(cell: &str) -> String {
    if !is_scenario_file(cell) {
        return cell.to_string();
    }
    Path::new(cell)
        .file_stem()
        .map_or("scenario".into(), |s| s.to_string_lossy().into_owned())
}

/// Whether `cell` names a scenario file rather than a bench cell or a built-in.
pub(crate) fn is_scenario_file(cell: &str) -> bool {
    cell.ends_with(".json")
}

fn side_name(in_wasm: bool) -> &'static str {
    if in_wasm {
        "wasm"
    } else {
        "native"
    }
}

/// One side of one cell: its self instructions by function, and the events it simulated.
struct Count {
    costs: SelfCosts,
    events: u64,
}

impl Count {
    /// In millions of instructions, as the profile's table takes them.
    fn side(&self) -> Side {
        Side {
            total: self.costs.summary as f64 / 1e6,
            functions: self
                .costs
                .functions
                .iter()
                .map(|(name, ir)| (name.clone(), *ir as f64 / 1e6))
                .collect(),
        }
    }
}

/// callgrind of the CLI's run of `cell` on one thread.
fn native_count(cli: &str, cell: &str, out: &Path) -> Result<Count> {
    let out_arg = format!("--callgrind-out-file={}", out.display());
    let (stdout, _) = valgrind(
        Command::new("valgrind")
            .args(["--tool=callgrind", &out_arg, cli])
            .args(["bench", cell, "--jobs", "1", "--format", "json"]),
    )?;
    let v: serde_json::Value = serde_json::from_str(stdout.trim())
        .map_err(|e| format!("schedlab bench {cell}: not JSON ({e})"))?;
    let events = v["events"]
        .as_u64()
        .ok_or_else(|| format!("schedlab bench {cell}: no events in {stdout}"))?;
    let text = fs::read_to_string(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let costs = self_costs(&text, |f, _| function_name(f))?;
    Ok(Count { costs, events })
}

/// callgrind of Node running `cell` in the worker `wasm` (tests/e2e/wasm-instr.mjs) in `dir`: the
/// second part of the output, each address named by V8's perf map.
fn wasm_count(script: &Path, wasm: &Path, cell: &str, dir: &Path, out: &Path) -> Result<Count> {
    // The worker opens a scenario file from its text (Node runs in `dir`: the path is read here).
    let arg = if is_scenario_file(cell) {
        fs::read_to_string(cell).map_err(|e| format!("{cell}: {e}"))?
    } else {
        cell.to_string()
    };
    let out_arg = format!("--callgrind-out-file={}", out.display());
    let mut command = Command::new("valgrind");
    command
        .args([
            "--tool=callgrind",
            // V8 writes its code into memory valgrind has already translated.
            "--smc-check=all-non-file",
            "--dump-before=uv_getrusage",
            "--dump-instr=yes",
            "--dump-line=no",
            &out_arg,
            "node",
            "--perf-basic-prof",
            "--no-liftoff",
            "--no-wasm-lazy-compilation",
        ])
        .arg(script)
        .arg(wasm)
        .arg(&arg)
        // `--perf-basic-prof` also has V8 write an `isolate-*-v8.log` into the current directory:
        // target/profile/, not the checkout.
        .current_dir(dir);
    let (stdout, pid) = valgrind(&mut command)?;
    let events = stdout
        .lines()
        .find_map(|l| l.strip_prefix("WASM_INSTR "))
        .and_then(|j| serde_json::from_str::<serde_json::Value>(j).ok())
        .and_then(|v| v["events"].as_u64())
        .ok_or_else(|| format!("wasm-instr.mjs {cell}: no result in {stdout}"))?;
    let map_path = format!("/tmp/perf-{pid}.map");
    let map = fs::read_to_string(&map_path).map_err(|e| format!("{map_path}: {e}"));
    let _ = fs::remove_file(&map_path);
    let map = PerfMap::parse(&map?);
    // Part 1 is Node's start and the compilation, part 2 the cell, the file itself what follows.
    let part = format!("{}.2", out.display());
    let text = fs::read_to_string(&part).map_err(|e| format!("{part}: {e}"))?;
    let costs = self_costs(&text, |f, address| {
        match address.and_then(|a| map.name(a)) {
            Some(code) => function_name(&v8_code_name(code)),
            None => format!("[node] {f}"),
        }
    })?;
    Ok(Count { costs, events })
}

/// A perf map name of V8's code as the function's own name: `JS:name-INDEX-TIER` (a wasm
/// function of the module, its index, its compiler) as `name`; others as they are.
fn v8_code_name(code: &str) -> String {
    let Some(name) = code.strip_prefix("JS:") else {
        return code.to_string();
    };
    let mut parts = name.rsplitn(3, '-');
    match (parts.next(), parts.next(), parts.next()) {
        (Some(_tier), Some(index), Some(name)) if index.bytes().all(|b| b.is_ascii_digit()) => {
            name.to_string()
        }
        _ => name.to_string(),
    }
}

/// Runs `command` (a valgrind), returning its standard output and its process id (the id of the
/// program valgrind runs: valgrind runs it in its own process, and V8 names its perf map by it).
fn valgrind(command: &mut Command) -> Result<(String, u32)> {
    let child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start valgrind: {e}"))?;
    let pid = child.id();
    let out = child
        .wait_with_output()
        .map_err(|e| format!("valgrind: {e}"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = err.lines().rev().take(5).collect();
        return Err(format!(
            "valgrind failed: {}",
            tail.into_iter().rev().collect::<Vec<_>>().join(" / ")
        ));
    }
    Ok((String::from_utf8_lossy(&out.stdout).into_owned(), pid))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v8_code_is_named_as_the_function() {
        let code = "JS:schedlab_core::engine::ops::<impl schedlab_core::engine::Engine>::step::hbd000b4c668f1c4b-159-turbofan";
        assert_eq!(
            function_name(&v8_code_name(code)),
            "engine::ops::<impl engine::Engine>::step"
        );
        // A name with a dash of its own keeps it.
        assert_eq!(v8_code_name("JS:a-b-12-turbofan"), "a-b");
        assert_eq!(
            v8_code_name("Builtin:WasmStackGuard"),
            "Builtin:WasmStackGuard"
        );
    }
}
