//! `cargo xtask profile [CELL ...]`: where the time of a bench cell goes, per function, natively
//! and in the page's job worker side by side, so that the wasm/native gap of issue 13 can be read
//! function by function (is it one function, or all of them?).
//!
//! - native: `perf record` (software clock, every 100 µs) of `schedlab bench CELL --jobs 1`, and
//!   each function's share of its samples times the cell's fastest wall time of
//!   [`crate::bench::REPEAT`] unprofiled invocations. Without a working `perf` the native
//!   columns are left out and the reason is printed.
//! - wasm: the page built as shipped but with the worker's function names kept (`wasm-opt -g`;
//!   same code, plus a name section), into `target/profile/dist`, and V8's sampling profiler on
//!   its workers while the job worker runs the cell (tests/e2e/profile.mjs: one unprofiled run
//!   for V8's tier-up, then `SCHEDLAB_PROFILE_REPEAT` runs, default 3).
//!
//! `--instr` counts instructions instead, both sides under callgrind, the same on every run
//! (instr.rs): the tool to judge a change of a few percent on this shared machine.
//!
//! To see why one function is slower in the page: `node tests/e2e/wasm-code.mjs NAME` prints the
//! code Node's V8 (older than Chromium's) optimises it to, from that build of the worker, to read
//! beside `objdump -d` of the CLI.
//!
//! Functions are matched by name, the symbol hash left out. A function that one side inlined
//! into its caller shows only on the other side (binaryen's `-O3` inlines any function with one
//! caller, `#[inline(never)]` or not: `Engine::tick` and `Engine::event_loop` are inside
//! `Plan::simulate` in the worker).

use crate::{capture, cmd, header, Ctx, Result};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The cells profiled when none is named: a schedutil-bound sysbench, E1's sweep, the 96-CPU
/// wake-up-bound tbench and hackbench.
const DEFAULT_CELLS: &[&str] = &[
    "bench-sysbench-8",
    "hikey960-asym-packing",
    "bench-tbench-96",
    "bench-hackbench-24",
];
/// Rows printed per cell.
const TOP: usize = 25;
/// `perf record`'s sampling frequency (Hz).
const PERF_HZ: &str = "10000";

/// One side's self cost per function over one invocation of the cell, and that invocation's
/// whole cost: ms of wall time, or millions of instructions (`--instr`).
#[derive(Default)]
pub(crate) struct Side {
    pub(crate) total: f64,
    pub(crate) functions: BTreeMap<String, f64>,
}

/// What a [`Side`] counts.
#[derive(Clone, Copy)]
pub(crate) enum Unit {
    /// ms of wall time (sampled).
    Ms,
    /// Millions of instructions (callgrind).
    MInstr,
}

impl Ctx {
    pub(crate) fn profile(&self, args: &[String]) -> Result {
        let instr = args.iter().any(|a| a == "--instr");
        let named: Vec<String> = args.iter().filter(|a| *a != "--instr").cloned().collect();
        let cells: Vec<String> = if named.is_empty() {
            DEFAULT_CELLS.iter().map(|s| s.to_string()).collect()
        } else {
            named
        };
        if !instr {
            if let Some(file) = cells.iter().find(|c| crate::instr::is_scenario_file(c)) {
                return Err(format!(
                    "{file}: a scenario file is profiled with --instr only (the sampled profile \
                     drives the page, which opens cells by name)"
                ));
            }
        }
        self.setup()?;
        if instr {
            return self.profile_instructions(&cells);
        }
        let cli = self.build_release_cli()?;
        let cli = cli.as_str();
        let dir = self.target_dir.join("profile");
        fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;

        let n = self.begin_step("native: perf record of schedlab bench CELL --jobs 1");
        let mut native: BTreeMap<String, Side> = BTreeMap::new();
        let mut why_no_native = None;
        for cell in &cells {
            match native_profile(cli, cell, &dir) {
                Ok(side) => {
                    println!("  {cell}: {:.1} ms", side.total);
                    native.insert(cell.clone(), side);
                }
                Err(e) => {
                    println!("  {cell}: {e}");
                    why_no_native = Some(e);
                    break;
                }
            }
        }
        println!("--- [{n}] native: done");

        let dist = self.profile_page(&dir)?;
        let mut node = Command::new("node");
        if !node_has_websocket() {
            node.arg("--experimental-websocket");
        }
        node.arg("tests/e2e/profile.mjs")
            .env("SCHEDLAB_DIST", &dist)
            .env("SCHEDLAB_PROFILE_CELLS", cells.join(","));
        let mut wasm: BTreeMap<String, Side> = BTreeMap::new();
        self.step_with_lines(
            "wasm: V8's sampling profiler on the job worker (tests/e2e/profile.mjs)",
            node,
            |line| {
                let Some(v) = line
                    .strip_prefix("PROFILE ")
                    .and_then(|j| serde_json::from_str::<Value>(j).ok())
                else {
                    return;
                };
                let runs = v["runs"].as_f64().unwrap_or(1.0).max(1.0);
                let mut side = Side {
                    total: v["elapsed_ms"].as_f64().unwrap_or(f64::NAN) / runs,
                    ..Side::default()
                };
                for f in v["functions"].as_array().into_iter().flatten() {
                    if let (Some(name), Some(ms)) = (f[0].as_str(), f[1].as_f64()) {
                        *side.functions.entry(function_name(name)).or_default() += ms / runs;
                    }
                }
                if let Some(cell) = v["cell"].as_str() {
                    wasm.insert(cell.to_string(), side);
                }
            },
        )?;

        header("where the time goes (cargo xtask profile)");
        if let Some(e) = &why_no_native {
            println!("(no native columns: {e})\n");
        }
        for cell in &cells {
            print!(
                "{}",
                cell_table(cell, native.get(cell), wasm.get(cell), Unit::Ms)
            );
        }
        Ok(())
    }

    /// The page as shipped, with the worker's names (`wasm-opt -g`), built into `dir/dist`:
    /// index.html rewritten into `dir` (its paths made relative to there) with one more wasm-opt
    /// parameter. Returns the dist directory.
    pub(crate) fn profile_page(&self, dir: &Path) -> Result<PathBuf> {
        let html = fs::read_to_string(self.root.join("index.html"))
            .map_err(|e| format!("index.html: {e}"))?;
        let html = profile_html(&html)?;
        let html_path = dir.join("index.html");
        fs::write(&html_path, html).map_err(|e| format!("{}: {e}", html_path.display()))?;
        let dist = dir.join("dist");
        let (html_arg, dist_arg) = (
            html_path.to_str().ok_or("target/ is not UTF-8")?,
            dist.to_str().ok_or("target/ is not UTF-8")?,
        );
        self.step(
            "trunk build --release (the worker's names kept)",
            cmd(
                "trunk",
                &["build", "--release", "--dist", dist_arg, html_arg],
            ),
        )?;
        Ok(dist)
    }
}

/// `index.html` as `target/profile/index.html`: its trunk paths two levels up, and the worker's
/// wasm-opt told to keep the name section (`-g`).
fn profile_html(html: &str) -> Result<String> {
    let worker = r#"data-bin="worker" data-type="worker""#;
    if !html.contains(worker) {
        return Err(format!(
            "index.html has no `{worker}` link any more: update xtask/src/profile.rs"
        ));
    }
    let mut out = html.to_string();
    for attr in ["href", "src"] {
        for dir in ["web/", "node_modules/", "crates/"] {
            out = out.replace(
                &format!(r#"{attr}="{dir}"#),
                &format!(r#"{attr}="../../{dir}"#),
            );
        }
    }
    Ok(out.replace(worker, &format!(r#"{worker} data-wasm-opt-params="-g""#)))
}

/// Whether `node` has `WebSocket` without a flag (Node 22 on).
fn node_has_websocket() -> bool {
    Command::new("node")
        .args([
            "-e",
            "process.exit(typeof WebSocket === 'function' ? 0 : 1)",
        ])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The native side of one cell: its fastest wall time and `perf`'s self shares.
fn native_profile(cli: &str, cell: &str, dir: &std::path::Path) -> Result<Side> {
    let mut wall_s = f64::INFINITY;
    // Unprofiled, the fastest of as many as `cargo xtask bench` takes.
    for _ in 0..crate::bench::REPEAT {
        let v = crate::bench::bench_json(cli, cell, "1")?;
        wall_s = wall_s.min(v["wall_s"].as_f64().unwrap_or(f64::INFINITY));
    }
    let data = dir.join(format!("{cell}.perf.data"));
    let data = data.to_str().ok_or("target/ is not UTF-8")?;
    let record = Command::new("perf")
        .args([
            "record",
            "-q",
            "-F",
            PERF_HZ,
            "-e",
            "cpu-clock",
            "-o",
            data,
            "--",
        ])
        .args([cli, "bench", cell, "--jobs", "1"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("perf cannot start ({e})"))?;
    if !record.status.success() {
        let why = String::from_utf8_lossy(&record.stderr);
        return Err(format!(
            "perf record failed: {}",
            why.lines().next().unwrap_or("")
        ));
    }
    let report = capture(cmd(
        "perf",
        &[
            "report",
            "-i",
            data,
            "--stdio",
            "--no-children",
            "--sort",
            "sym",
            "--percent-limit",
            "0.05",
        ],
    ))?;
    let total_ms = wall_s * 1e3;
    let mut side = Side {
        total: total_ms,
        ..Side::default()
    };
    for (percent, name) in report.lines().filter_map(perf_line) {
        *side.functions.entry(function_name(name)).or_default() += percent / 100.0 * total_ms;
    }
    Ok(side)
}

/// A row of `perf report --sort sym`: `  19.73%  [.] name` as (19.73, name).
fn perf_line(line: &str) -> Option<(f64, &str)> {
    let (percent, rest) = line.trim_start().split_once('%')?;
    let percent: f64 = percent.parse().ok()?;
    let name = rest.trim_start().strip_prefix("[.]")?;
    Some((percent, name.trim()))
}

/// A function's name as both sides can match it: the symbol hash (`::h` and 16 hex digits, in
/// the worker's name section) and the core's crate prefix left out.
pub(crate) fn function_name(name: &str) -> String {
    let name = match name.rsplit_once("::h") {
        Some((head, hash)) if hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()) => {
            head
        }
        _ => name,
    };
    name.replace("schedlab_core::", "")
}

/// One cell's rows: its [`TOP`] functions by wasm cost (by native cost without a wasm side).
pub(crate) fn cell_table(
    cell: &str,
    native: Option<&Side>,
    wasm: Option<&Side>,
    unit: Unit,
) -> String {
    let (unit, what) = match unit {
        Unit::Ms => ("ms", "self time, ms"),
        Unit::MInstr => ("M instr", "self instructions, millions"),
    };
    use std::fmt::Write;
    let mut s = String::new();
    let ratio = |w: f64, n: f64| {
        if n > 0.0 && w > 0.0 {
            format!("{:.2}", w / n)
        } else {
            "-".into()
        }
    };
    let (nt, wt) = (
        native.map_or(f64::NAN, |n| n.total),
        wasm.map_or(f64::NAN, |w| w.total),
    );
    let _ = writeln!(
        s,
        "\n{cell}: native {nt:.1} {unit}, wasm {wt:.1} {unit}, wasm/native {}",
        ratio(wt, nt)
    );
    let _ = writeln!(
        s,
        "{:<84} {:>9} {:>6} {:>9} {:>6} {:>7}",
        format!("function ({what})"),
        "native",
        "%",
        "wasm",
        "%",
        "wasm/n"
    );
    let empty = BTreeMap::new();
    let nf = native.map_or(&empty, |n| &n.functions);
    let wf = wasm.map_or(&empty, |w| &w.functions);
    let mut names: Vec<&String> = nf.keys().chain(wf.keys()).collect();
    names.sort();
    names.dedup();
    let key = |n: &String| wf.get(n).or_else(|| nf.get(n)).copied().unwrap_or(0.0);
    names.sort_by(|a, b| key(b).total_cmp(&key(a)));
    let cell_of = |v: Option<&f64>, total: f64| match v {
        Some(ms) => format!("{ms:>9.2} {:>6.1}", 100.0 * ms / total),
        None => format!("{:>9} {:>6}", "-", "-"),
    };
    for name in names.into_iter().take(TOP) {
        let short: String = if name.chars().count() > 84 {
            let tail: String = name.chars().rev().take(81).collect();
            format!("...{}", tail.chars().rev().collect::<String>())
        } else {
            name.clone()
        };
        let _ = writeln!(
            s,
            "{short:<84} {} {} {:>7}",
            cell_of(nf.get(name), nt),
            cell_of(wf.get(name), wt),
            // A function the other side inlined nearly whole has a sliver left there: no ratio.
            match (wf.get(name), nf.get(name)) {
                (Some(&w), Some(&n)) if w >= wt / 1e3 && n >= nt / 1e3 => ratio(w, n),
                _ => "-".into(),
            }
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_across_the_two_sides() {
        let wasm = "schedlab_core::engine::ops::<impl schedlab_core::engine::Engine>::step::hbd000b4c668f1c4b";
        let native = "schedlab_core::engine::ops::<impl schedlab_core::engine::Engine>::step";
        assert_eq!(function_name(wasm), function_name(native));
        assert_eq!(
            function_name(native),
            "engine::ops::<impl engine::Engine>::step"
        );
        // Not a hash: kept.
        assert_eq!(function_name("a::hash_len"), "a::hash_len");
    }

    #[test]
    fn perf_rows_are_read_and_other_lines_are_not() {
        assert_eq!(
            perf_line("    19.73%  [.] schedlab_core::engine::Engine::tick"),
            Some((19.73, "schedlab_core::engine::Engine::tick"))
        );
        assert_eq!(perf_line("# Samples: 602  of event 'cpu-clock:ppp'"), None);
        assert_eq!(perf_line("     0.10%  [k] _raw_spin_unlock"), None);
    }

    #[test]
    fn the_profile_page_points_two_levels_up_and_keeps_the_workers_names() {
        let html = r#"<link data-trunk rel="css" href="web/style.css">
<script data-trunk src="node_modules/p.js"></script>
<link data-trunk rel="rust" href="crates/w/Cargo.toml" data-bin="worker" data-type="worker" data-wasm-opt="3">"#;
        let out = profile_html(html).unwrap();
        assert!(out.contains(r#"href="../../web/style.css""#));
        assert!(out.contains(r#"src="../../node_modules/p.js""#));
        assert!(out.contains(r#"href="../../crates/w/Cargo.toml""#));
        assert!(out.contains(r#"data-type="worker" data-wasm-opt-params="-g""#));
        assert!(profile_html("<html></html>").is_err());
    }
}
