//! `cargo xtask fuzz [TARGET] [--seconds N] [--keep-going]`: the fuzz targets of fuzz/ (cargo-fuzz,
//! libFuzzer), one after another.
//!
//! Needs a nightly toolchain (cargo-fuzz builds with `-Z` sanitizer-coverage flags); installs
//! cargo-fuzz when it is missing. Each target runs for N seconds (default 60) with
//! `-rss_limit_mb=2048` and a per-input `-timeout`, its corpus in target/fuzz-corpus/TARGET
//! (seeded from fuzz/seeds/TARGET, fuzz/regressions/TARGET, the built-in scenarios and, when it exists, the shared corpus
//! beside the repository: ../shared/corpus/rt-app and ../shared/corpus/fuzz-findings; copied at
//! run time, never into the repository) and its findings in target/fuzz-artifacts/TARGET. The
//! output of libFuzzer goes to target/fuzz-logs/TARGET.log; the summary line per target gives the
//! executions, coverage (`cov`, `ft` of libFuzzer's last stats line) and the outcome. Any crash,
//! hang or OOM fails the command, naming the file and how to reproduce it.
//!
//! The targets are built without a sanitizer (`-s none`): the core is safe Rust, so AddressSanitizer
//! would find nothing there and halve the executions per second. Panics (overflow checks and debug
//! assertions are on) abort the input as crashes.

use super::{cmd, flush, header, run_quiet, show, Ctx, Result};
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// The fuzz targets, in the order `cargo xtask fuzz` runs them.
pub const TARGETS: &[&str] = &["scenario_json", "rtapp", "share_link", "structured"];
/// Seconds per target when `--seconds` is not given.
pub const DEFAULT_SECONDS: u64 = 60;
/// Seconds per target in `cargo xtask test`.
pub const TEST_SECONDS: u64 = 30;
/// libFuzzer's memory limit: an input that needs more is an OOM finding.
const RSS_LIMIT_MB: u32 = 2048;
/// libFuzzer's per-input limit in seconds: an input that runs longer is a hang. A checked run
/// verifies the engine after every event, so a legitimate input under the fuzz limits (2 simulated
/// seconds, 200k events, 256 tasks) takes up to about a second in the instrumented build (0.9 s
/// for the slowest built-in, power9-bigcore-asym-smt); a hang runs forever.
const TIMEOUT_S: u32 = 20;
/// Prefixes of the libFuzzer artifact files that are findings (a `slow-unit-*` is not).
const ARTIFACT_KINDS: &[&str] = &["crash", "timeout", "oom", "leak"];

const USAGE: &str =
    "usage: cargo xtask fuzz [TARGET] [--seconds N] [--keep-going]   (TARGET: one of scenario_json, \
     rtapp, share_link, structured; default all)";

/// What `cargo xtask fuzz` was asked.
#[derive(Debug, PartialEq, Eq)]
pub struct FuzzArgs {
    pub targets: Vec<&'static str>,
    pub seconds: u64,
    /// libFuzzer's fork mode, going on past crashes, hangs and OOMs (to see several findings).
    pub keep_going: bool,
}

pub fn parse_args(args: &[String]) -> Result<FuzzArgs> {
    let mut targets = Vec::new();
    let mut seconds = DEFAULT_SECONDS;
    let mut keep_going = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--seconds" => {
                let v = it.next().ok_or("--seconds needs a value")?;
                seconds = match v.parse::<u64>() {
                    Ok(n) if n > 0 => n,
                    _ => return Err(format!("--seconds {v}: not a positive number")),
                };
            }
            "--keep-going" => keep_going = true,
            t => match TARGETS.iter().find(|&&k| k == t) {
                Some(&k) if !targets.contains(&k) => targets.push(k),
                Some(_) => {}
                None => return Err(format!("fuzz: unknown target or argument '{t}'\n{USAGE}")),
            },
        }
    }
    if targets.is_empty() {
        targets = TARGETS.to_vec();
    }
    Ok(FuzzArgs {
        targets,
        seconds,
        keep_going,
    })
}

/// What libFuzzer's output says about a run.
#[derive(Debug, Default, PartialEq, Eq, Clone, Copy)]
pub struct Stats {
    pub execs: u64,
    pub cov: Option<u64>,
    pub ft: Option<u64>,
}

/// One libFuzzer status line: `#4096\tpulse  cov: 1234 ft: 5678 corp: ...` (fork mode:
/// `#4096: cov: 1234 ft: 5678 ...`).
pub fn parse_stats_line(line: &str) -> Option<Stats> {
    let rest = line.strip_prefix('#')?;
    let mut words = rest.split_whitespace();
    let execs = words.next()?.trim_end_matches(':').parse::<u64>().ok()?;
    let mut stats = Stats {
        execs,
        cov: None,
        ft: None,
    };
    while let Some(w) = words.next() {
        match w {
            "cov:" => stats.cov = words.next().and_then(|v| v.parse().ok()),
            "ft:" => stats.ft = words.next().and_then(|v| v.parse().ok()),
            _ => {}
        }
    }
    Some(stats)
}

/// The last status line of a log, with the executions of `-print_final_stats` when printed.
pub fn summarize(log: &str) -> Stats {
    let mut stats = Stats::default();
    for line in log.lines() {
        if let Some(s) = parse_stats_line(line) {
            stats.execs = stats.execs.max(s.execs);
            if s.cov.is_some() {
                stats.cov = s.cov;
            }
            if s.ft.is_some() {
                stats.ft = s.ft;
            }
        } else if let Some(n) = line.strip_prefix("stat::number_of_executed_units:") {
            if let Ok(n) = n.trim().parse::<u64>() {
                stats.execs = stats.execs.max(n);
            }
        }
    }
    stats
}

/// Why libFuzzer stopped, in one line: a panic's location and message, or libFuzzer's own error
/// (`deadly signal`, `timeout after N seconds`, `out-of-memory (...)`).
pub fn crash_reason(log: &str) -> Option<String> {
    let mut lines = log.lines();
    let mut libfuzzer = None;
    while let Some(l) = lines.next() {
        if let Some((_, at)) = l.split_once(" panicked at ") {
            let msg = lines.next().unwrap_or("").trim();
            return Some(format!("panic at {} {msg}", at.trim_end_matches(':')));
        }
        if let Some((_, e)) = l.split_once("ERROR: libFuzzer: ") {
            libfuzzer.get_or_insert_with(|| e.trim().to_string());
        }
    }
    libfuzzer
}

/// The files libFuzzer says it wrote (`... Test unit written to PATH`).
pub fn written_artifacts(log: &str) -> Vec<PathBuf> {
    log.lines()
        .filter_map(|l| l.split_once("Test unit written to ").map(|(_, p)| p.trim()))
        .map(PathBuf::from)
        .filter(|p| is_artifact(p))
        .collect()
}

/// The libFuzzer artifacts (crash-*, timeout-*, oom-*...) of a directory, sorted.
fn artifacts(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| is_artifact(p))
        .collect();
    found.sort();
    found
}

fn is_artifact(p: &Path) -> bool {
    p.file_name().and_then(OsStr::to_str).is_some_and(|n| {
        ARTIFACT_KINDS
            .iter()
            .any(|k| n.starts_with(&format!("{k}-")))
    })
}

/// `3 (2 crash, 1 oom)`: how many artifacts of each kind, in [`ARTIFACT_KINDS`] order.
pub fn count_kinds(artifacts: &[PathBuf]) -> String {
    let kinds: Vec<String> = ARTIFACT_KINDS
        .iter()
        .filter_map(|k| {
            let n = artifacts
                .iter()
                .filter(|a| {
                    a.file_name()
                        .and_then(OsStr::to_str)
                        .is_some_and(|f| f.starts_with(&format!("{k}-")))
                })
                .count();
            (n > 0).then(|| format!("{n} {k}"))
        })
        .collect();
    format!("{} ({})", artifacts.len(), kinds.join(", "))
}

/// The one-line verdict on a toolchain list (`rustup toolchain list`).
pub fn has_nightly(toolchains: &str) -> bool {
    toolchains
        .lines()
        .any(|l| l.trim_start().starts_with("nightly"))
}

/// Unpadded base64url (the share links' alphabet, crates/schedlab-web/src/link.rs).
pub fn base64url(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for i in 0..chunk.len() + 1 {
            out.push(A[(n >> (18 - 6 * i)) as usize & 63] as char);
        }
    }
    out
}

/// A share link's payload (`1.` + base64url(raw DEFLATE(compact JSON))) for a scenario file.
fn link_payload(scenario_json: &str) -> Option<String> {
    use std::io::Write;
    let v: serde_json::Value = serde_json::from_str(scenario_json).ok()?;
    let compact = serde_json::to_string(&v).ok()?;
    let mut enc = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
    enc.write_all(compact.as_bytes()).ok()?;
    Some(format!("1.{}", base64url(&enc.finish().ok()?)))
}

/// The rt-app file of a scenario whose workload is rt-app.
fn rtapp_of(scenario_json: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(scenario_json).ok()?;
    let w = v.get("workload")?;
    (w.get("kind")?.as_str()? == "rt-app")
        .then(|| w.get("json")?.as_str().map(str::to_string))
        .flatten()
}

/// Every file under `dir`, sorted (none when it does not exist).
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn has_ext(p: &Path, ext: &str) -> bool {
    p.to_string_lossy().ends_with(ext)
}

/// A corpus file name for `p` under `base`: its relative path with `/` as `_`, and a prefix.
fn corpus_name(prefix: &str, base: &Path, p: &Path) -> String {
    let rel = p.strip_prefix(base).unwrap_or(p).to_string_lossy();
    format!("{prefix}-{}", rel.replace(['/', '\\'], "_"))
}

struct Finding {
    target: &'static str,
    artifact: PathBuf,
}

impl Ctx {
    pub(crate) fn fuzz(&self, args: &[String]) -> Result {
        let args = parse_args(args)?;
        if let Some(why) = self.no_nightly() {
            return Err(format!("fuzz: {why}"));
        }
        self.fuzz_targets(&args)
    }

    /// The fuzz step of `cargo xtask test`: every target for [`TEST_SECONDS`], or one line saying
    /// it is skipped when there is no nightly toolchain.
    pub(crate) fn fuzz_in_test(&self) -> Result {
        if let Some(why) = self.no_nightly() {
            println!("\n--- fuzz targets: skipped ({why})");
            return Ok(());
        }
        self.fuzz_targets(&FuzzArgs {
            targets: TARGETS.to_vec(),
            seconds: TEST_SECONDS,
            keep_going: false,
        })
    }

    /// `None` when `cargo +nightly` works, else why not, in one line.
    fn no_nightly(&self) -> Option<String> {
        let listed = Command::new("rustup")
            .args(["toolchain", "list"])
            .stderr(Stdio::null())
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
        let works = || {
            Command::new("cargo")
                .args(["+nightly", "--version"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        };
        match listed {
            Some(list) if has_nightly(&list) && works() => None,
            _ => Some(
                "no nightly toolchain (cargo-fuzz needs one: rustup toolchain install nightly)"
                    .into(),
            ),
        }
    }

    fn ensure_cargo_fuzz(&self) -> Result {
        let present = Command::new("cargo")
            .args(["+nightly", "fuzz", "--version"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if present {
            println!("fuzz: cargo-fuzz: present");
            return Ok(());
        }
        println!("fuzz: installing cargo-fuzz (takes 2-4 minutes)");
        run_quiet(
            "cargo install cargo-fuzz",
            cmd("cargo", &["install", "cargo-fuzz"]),
        )
    }

    /// The shared corpus beside the repository (`../shared/corpus`, as CI and /work/main have it;
    /// a worktree one level deeper finds `../../shared`), or `$SCHEDLAB_SHARED/corpus`.
    fn shared_corpus(&self) -> Option<PathBuf> {
        let mut candidates: Vec<PathBuf> = std::env::var_os("SCHEDLAB_SHARED")
            .map(|s| PathBuf::from(s).join("corpus"))
            .into_iter()
            .collect();
        if let Some(up) = self.root.parent() {
            candidates.push(up.join("shared").join("corpus"));
            if let Some(up2) = up.parent() {
                candidates.push(up2.join("shared").join("corpus"));
            }
        }
        candidates.into_iter().find(|c| c.is_dir())
    }

    /// Fills target/fuzz-corpus/TARGET (existing files are kept); returns how many it copied.
    fn seed_corpus(&self, target: &str, corpus: &Path) -> Result<usize> {
        fs::create_dir_all(corpus).map_err(|e| format!("{}: {e}", corpus.display()))?;
        let mut seeds: Vec<(String, Vec<u8>)> = Vec::new();
        // The committed seeds, and the inputs of past findings (fuzz/regressions/TARGET).
        for (dir, prefix) in [("seeds", "seed"), ("regressions", "regression")] {
            let committed = self.root.join("fuzz").join(dir).join(target);
            for p in files_under(&committed) {
                if let Ok(b) = fs::read(&p) {
                    seeds.push((corpus_name(prefix, &committed, &p), b));
                }
            }
        }
        // Scenario files: the built-ins, and the shared findings (scenarios unless named
        // otherwise).
        let builtin_dir = self.root.join("crates/schedlab-core/scenarios");
        let mut scenarios: Vec<(String, String)> = files_under(&builtin_dir)
            .into_iter()
            .filter(|p| has_ext(p, ".json"))
            .filter_map(|p| {
                let text = fs::read_to_string(&p).ok()?;
                Some((corpus_name("builtin", &builtin_dir, &p), text))
            })
            .collect();
        let shared = self.shared_corpus();
        if let Some(shared) = &shared {
            let findings = shared.join("fuzz-findings");
            for p in files_under(&findings) {
                let name = corpus_name("finding", &findings, &p);
                if has_ext(&p, ".link-payload.txt") && target == "share_link" {
                    if let Ok(b) = fs::read(&p) {
                        seeds.push((name, b));
                    }
                } else if has_ext(&p, ".json") {
                    if let Ok(text) = fs::read_to_string(&p) {
                        scenarios.push((name, text));
                    }
                }
            }
        }
        match target {
            "scenario_json" => {
                seeds.extend(scenarios.into_iter().map(|(n, t)| (n, t.into_bytes())));
            }
            "rtapp" => {
                seeds.extend(
                    scenarios
                        .iter()
                        .filter_map(|(n, t)| Some((n.clone(), rtapp_of(t)?.into_bytes()))),
                );
                if let Some(shared) = &shared {
                    let rt = shared.join("rt-app");
                    for p in files_under(&rt).into_iter().filter(|p| has_ext(p, ".json")) {
                        if let Ok(b) = fs::read(&p) {
                            seeds.push((corpus_name("shared-rtapp", &rt, &p), b));
                        }
                    }
                }
            }
            "share_link" => {
                seeds.extend(scenarios.iter().filter_map(|(n, t)| {
                    Some((format!("{n}.link"), link_payload(t)?.into_bytes()))
                }))
            }
            _ => {}
        }
        let mut copied = 0;
        for (name, bytes) in seeds {
            let dest = corpus.join(&name);
            if !dest.exists() {
                fs::write(&dest, bytes).map_err(|e| format!("{}: {e}", dest.display()))?;
                copied += 1;
            }
        }
        let from_shared = match &shared {
            Some(s) => format!("and {}", s.display()),
            None => "(no shared corpus beside the repository)".into(),
        };
        println!(
            "fuzz: {target}: corpus {} ({copied} seeds added from fuzz/seeds, fuzz/regressions, the built-ins {from_shared})",
            corpus.display()
        );
        Ok(copied)
    }

    fn fuzz_targets(&self, args: &FuzzArgs) -> Result {
        self.ensure_cargo_fuzz()?;
        let fuzz_dir = self.root.join("fuzz");
        let fuzz_dir_s = fuzz_dir.to_string_lossy().into_owned();
        let mut build = cmd(
            "cargo",
            &[
                "+nightly",
                "fuzz",
                "build",
                "-s",
                "none",
                "--fuzz-dir",
                &fuzz_dir_s,
            ],
        );
        // `cargo fuzz build` takes one target or all.
        if let [t] = args.targets[..] {
            build.arg(t);
        }
        self.step("cargo +nightly fuzz build -s none", build)?;
        let mut findings = Vec::new();
        for &target in &args.targets {
            findings.extend(self.fuzz_one(target, args)?);
        }
        if findings.is_empty() {
            println!(
                "fuzz: no crash, hang or OOM in {} target(s)",
                args.targets.len()
            );
            return Ok(());
        }
        /// Files named per target in the closing error; the rest are counted.
        const LISTED: usize = 5;
        let mut list = Vec::new();
        for &target in &args.targets {
            let mine: Vec<&Finding> = findings.iter().filter(|f| f.target == target).collect();
            for f in mine.iter().take(LISTED) {
                list.push(format!(
                    "  {target}: {}\n    reproduce: cargo +nightly fuzz run -s none {target} {}",
                    f.artifact.display(),
                    f.artifact.display()
                ));
            }
            if mine.len() > LISTED {
                list.push(format!(
                    "  {target}: and {} more in {}",
                    mine.len() - LISTED,
                    self.target_dir
                        .join("fuzz-artifacts")
                        .join(target)
                        .display()
                ));
            }
        }
        Err(format!(
            "the fuzzers found {} input(s) that crash, hang or run out of memory:\n{}",
            findings.len(),
            list.join("\n")
        ))
    }

    fn fuzz_one(&self, target: &'static str, args: &FuzzArgs) -> Result<Vec<Finding>> {
        let title = format!("fuzz {target} for {} s", args.seconds);
        let n = self.begin_step(&title);
        let corpus = self.target_dir.join("fuzz-corpus").join(target);
        let artifact_dir = self.target_dir.join("fuzz-artifacts").join(target);
        let log_dir = self.target_dir.join("fuzz-logs");
        for d in [&artifact_dir, &log_dir] {
            fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
        }
        self.seed_corpus(target, &corpus)?;
        let before = artifacts(&artifact_dir);
        let log_path = log_dir.join(format!("{target}.log"));
        let log =
            fs::File::create(&log_path).map_err(|e| format!("{}: {e}", log_path.display()))?;
        let mut c = Command::new("cargo");
        c.args(["+nightly", "fuzz", "run", "-s", "none", "--fuzz-dir"])
            .arg(self.root.join("fuzz"))
            .arg(target)
            .arg(&corpus)
            .arg("--")
            .arg(format!("-max_total_time={}", args.seconds))
            .arg(format!("-rss_limit_mb={RSS_LIMIT_MB}"))
            .arg(format!("-timeout={TIMEOUT_S}"))
            .arg(format!("-artifact_prefix={}/", artifact_dir.display()))
            .arg("-print_final_stats=1");
        let dict = self.root.join("fuzz/dict").join(format!("{target}.dict"));
        if dict.exists() {
            c.arg(format!("-dict={}", dict.display()));
        }
        if args.keep_going {
            c.args([
                "-fork=1",
                "-ignore_crashes=1",
                "-ignore_timeouts=1",
                "-ignore_ooms=1",
            ]);
        }
        let log_err = log.try_clone().map_err(|e| e.to_string())?;
        c.stdout(log).stderr(log_err);
        println!("$ {}  > {}", show(&c), log_path.display());
        flush();
        let t = Instant::now();
        let status = c
            .status()
            .map_err(|e| format!("{title}: cannot start {}: {e}", show(&c)))?;
        let text = fs::read_to_string(&log_path).unwrap_or_default();
        let stats = summarize(&text);
        // New files, and those the log names (an input found again overwrites its old file).
        let mut new: Vec<PathBuf> = artifacts(&artifact_dir)
            .into_iter()
            .filter(|a| !before.contains(a))
            .collect();
        for a in written_artifacts(&text) {
            if a.exists() && !new.contains(&a) {
                new.push(a);
            }
        }
        let show_opt = |v: Option<u64>| v.map_or("?".to_string(), |v| v.to_string());
        let outcome = if !new.is_empty() {
            format!("FOUND {}", count_kinds(&new))
        } else if status.success() {
            "clean".to_string()
        } else {
            let tail: Vec<&str> = text.lines().rev().take(15).collect();
            header(&format!("last lines of {}", log_path.display()));
            for l in tail.iter().rev() {
                println!("{l}");
            }
            return Err(format!(
                "step [{n}] '{title}' failed ({status}) without an artifact; see {}",
                log_path.display()
            ));
        };
        println!(
            "--- [{n}] fuzz {target}: {} execs, cov {}, ft {}: {outcome} ({:.0} s)",
            stats.execs,
            show_opt(stats.cov),
            show_opt(stats.ft),
            t.elapsed().as_secs_f64()
        );
        if !new.is_empty() {
            if let Some(why) = crash_reason(&text) {
                println!("    {why}");
            }
        }
        for a in &new {
            println!("    {}", a.display());
        }
        Ok(new
            .into_iter()
            .map(|artifact| Finding { target, artifact })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn parses_targets_seconds_and_keep_going() {
        let all = parse_args(&[]).unwrap();
        assert_eq!(all.targets, TARGETS);
        assert_eq!(all.seconds, DEFAULT_SECONDS);
        assert!(!all.keep_going);
        let one = parse_args(&args(&["rtapp", "--seconds", "5", "--keep-going"])).unwrap();
        assert_eq!(
            one,
            FuzzArgs {
                targets: vec!["rtapp"],
                seconds: 5,
                keep_going: true
            }
        );
        let two = parse_args(&args(&["structured", "share_link", "structured"])).unwrap();
        assert_eq!(two.targets, ["structured", "share_link"]);
        assert!(parse_args(&args(&["nope"]))
            .unwrap_err()
            .contains("unknown target"));
        assert!(parse_args(&args(&["--seconds"])).is_err());
        assert!(parse_args(&args(&["--seconds", "0"])).is_err());
        assert!(parse_args(&args(&["--seconds", "x"])).is_err());
    }

    #[test]
    fn reads_libfuzzer_status_lines() {
        assert_eq!(
            parse_stats_line("#4096\tpulse  cov: 1234 ft: 5678 corp: 40/3kb exec/s: 200 rss: 60Mb"),
            Some(Stats {
                execs: 4096,
                cov: Some(1234),
                ft: Some(5678)
            })
        );
        // Fork mode.
        assert_eq!(
            parse_stats_line("#120: cov: 99 ft: 150 corp: 12 exec/s: 4 oom/timeout/crash: 0/0/1 time: 30s job: 3 dft_time: 0"),
            Some(Stats {
                execs: 120,
                cov: Some(99),
                ft: Some(150)
            })
        );
        assert_eq!(parse_stats_line("INFO: Seed: 42"), None);
        assert_eq!(parse_stats_line("#x cov: 1"), None);
        let log = "INFO: Seed: 1\n#2\tINITED cov: 10 ft: 11 corp: 1/1b\n#5\tNEW    cov: 12 ft: 14 corp: 2/3b\n\
                   #9\tREDUCE cov: 12 ft: 15 corp: 2/3b\nDone 11 runs in 2 second(s)\nstat::number_of_executed_units: 11\n";
        assert_eq!(
            summarize(log),
            Stats {
                execs: 11,
                cov: Some(12),
                ft: Some(15)
            }
        );
        assert_eq!(summarize(""), Stats::default());
    }

    #[test]
    fn says_why_libfuzzer_stopped() {
        let panic = "INFO: x\nthread '<unnamed>' (1) panicked at src/lib.rs:67:9:\nrun_checked(0) reports a broken invariant\n\
                     stack backtrace:\n==1== ERROR: libFuzzer: deadly signal\n";
        assert_eq!(
            crash_reason(panic).as_deref(),
            Some("panic at src/lib.rs:67:9 run_checked(0) reports a broken invariant")
        );
        let oom =
            "#2 INITED\n==9== ERROR: libFuzzer: out-of-memory (used: 2100Mb; exceeds: 2048Mb)\n";
        assert_eq!(
            crash_reason(oom).as_deref(),
            Some("out-of-memory (used: 2100Mb; exceeds: 2048Mb)")
        );
        assert_eq!(crash_reason("Done 5 runs in 1 second(s)\n"), None);
        let log = "MS: 0 ;\nartifact_prefix='/t/a/'; Test unit written to /t/a/crash-12ab\nBase64: e30=\n\
                   Test unit written to ./slow-unit-9\n";
        assert_eq!(written_artifacts(log), [PathBuf::from("/t/a/crash-12ab")]);
    }

    #[test]
    fn tells_artifacts_and_nightly() {
        assert!(is_artifact(Path::new("a/crash-0123abcd")));
        assert!(is_artifact(Path::new("oom-99")));
        assert!(is_artifact(Path::new("timeout-1")));
        assert!(!is_artifact(Path::new("a/crashes")));
        assert!(!is_artifact(Path::new("0123abcd")));
        assert!(has_nightly(
            "stable-x86_64-unknown-linux-gnu (active, default)\nnightly-x86_64-unknown-linux-gnu\n"
        ));
        assert!(!has_nightly(
            "stable-x86_64-unknown-linux-gnu (default)\n1.95.0-x86_64\n"
        ));
    }

    #[test]
    fn seeds_are_link_payloads_and_rtapp_files() {
        assert_eq!(base64url(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64url(&[0xfb, 0xff]), "-_8");
        let p = link_payload("{\"version\": 1}").unwrap();
        assert!(p.starts_with("1.") && !p.contains(['+', '/', '=']), "{p}");
        assert_eq!(link_payload("not json"), None);
        let s = r#"{"workload": {"kind": "rt-app", "json": "{\"tasks\": {}}"}}"#;
        assert_eq!(rtapp_of(s).as_deref(), Some("{\"tasks\": {}}"));
        assert_eq!(rtapp_of(r#"{"workload": {"kind": "ebizzy"}}"#), None);
        assert_eq!(
            corpus_name(
                "shared",
                Path::new("/s/rt-app"),
                Path::new("/s/rt-app/lisa/a.json")
            ),
            "shared-lisa_a.json"
        );
    }
}
