//! Golden outputs: every built-in scenario's table, run records, traces and decision logs, and
//! LISA's checks, at the scenarios' own seeds and a fixed number of runs, as the release CLI
//! printed them. The guard of performance work (issue 13): an optimisation leaves every byte here
//! alone; a change that moves one is a model change and says so by regenerating these files.
//!
//! - `cargo test -p schedlab-cli --test golden` compares the CLI this test is built with (debug:
//!   so the comparison is also debug == release) against `tests/golden/*.txt`.
//! - `cargo xtask golden` builds the release CLI and rewrites the files with its output
//!   (`SCHEDLAB_GOLDEN_WRITE=1`, `SCHEDLAB_GOLDEN_BIN=target/release/schedlab`); `git diff` then
//!   shows what moved: small outputs are kept whole, large ones (traces, logs, records) as their
//!   length, line count and a 64-bit FNV-1a digest.
//!
//! Which outputs: per built-in, `reproduce --runs 1` (table text) and its `--format jsonl` records
//! (every run's raw figures, latency histograms included); for the first and the last run, the
//! ftrace text with PELT events and the decision log with every balance pass and every frequency
//! decision; for the first run, the trace-cmd and Perfetto exports. E1 also as mmtests text with
//! three runs a cell (its statistics and significance marks). And `schedlab check` (all of LISA's).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;

/// The built-in scenarios (`schedlab list`); a test below checks that this is all of them.
const SCENARIOS: &[&str] = &[
    "hikey960-asym-packing",
    "cascadelake-fi-tbench",
    "cascadelake-fi-kernbench",
    "cascadelake-fi-gitsource",
    "power9-bigcore-asym-smt",
    "tc2-wakeup-sysbench",
    "tc2-wakeup-hackbench-a7",
    "ivb-ep-hackbench",
    "tc2-wakeup-rtapp",
    "juno-use-all-littles",
    "cascadelake-schbench",
];

/// Outputs up to this size are kept whole in the golden file; larger ones as a digest.
const INLINE_MAX: usize = 16 * 1024;

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

fn binary() -> PathBuf {
    match std::env::var_os("SCHEDLAB_GOLDEN_BIN") {
        // A relative path is the workspace root's (the test runs in the crate's directory).
        Some(path) => Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(path),
        None => PathBuf::from(env!("CARGO_BIN_EXE_schedlab")),
    }
}

fn writing() -> bool {
    std::env::var_os("SCHEDLAB_GOLDEN_WRITE").is_some_and(|v| v == "1")
}

/// One command's output as the golden file keeps it.
struct Output {
    bytes: u64,
    lines: u64,
    fnv: u64,
    /// The whole text when it is small enough.
    text: Option<String>,
}

impl Output {
    fn of(data: &[u8]) -> Output {
        let mut out = Output::streaming();
        out.feed(data);
        out.text = (data.len() <= INLINE_MAX).then(|| String::from_utf8_lossy(data).into_owned());
        out
    }

    fn streaming() -> Output {
        Output {
            bytes: 0,
            lines: 0,
            fnv: 0xcbf2_9ce4_8422_2325,
            text: None,
        }
    }

    /// FNV-1a over the bytes; cheap in a debug build, where the traces run to hundreds of MB.
    fn feed(&mut self, data: &[u8]) {
        let mut h = self.fnv;
        for &b in data {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        self.fnv = h;
        self.bytes += data.len() as u64;
        self.lines += data.iter().filter(|&&b| b == b'\n').count() as u64;
    }

    fn render(&self) -> String {
        let summary = format!(
            "{} bytes, {} lines, fnv1a64 {:016x}\n",
            self.bytes, self.lines, self.fnv
        );
        match &self.text {
            Some(text) => format!("{summary}{text}"),
            None => summary,
        }
    }
}

/// Runs the CLI; the output is stdout, or the file given with `-o` when `output` names one.
/// Large outputs are digested as they stream, never held whole.
fn run(args: &[String], output: Option<&Path>) -> Result<Output, String> {
    let mut child = Command::new(binary())
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", binary().display()))?;
    let mut stdout = child.stdout.take().unwrap();
    let mut out = Output::streaming();
    let mut head = Vec::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = stdout.read(&mut buf).map_err(|e| e.to_string())?;
        if n == 0 {
            break;
        }
        out.feed(&buf[..n]);
        if head.len() <= INLINE_MAX {
            head.extend_from_slice(&buf[..n]);
        }
    }
    let result = child.wait_with_output().map_err(|e| e.to_string())?;
    if !result.status.success() {
        return Err(format!(
            "schedlab {} failed ({}): {}",
            args.join(" "),
            result.status,
            String::from_utf8_lossy(&result.stderr).trim()
        ));
    }
    if let Some(path) = output {
        let data = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let _ = std::fs::remove_file(path);
        return Ok(Output::of(&data));
    }
    if out.bytes as usize <= INLINE_MAX {
        out.text = Some(String::from_utf8_lossy(&head).into_owned());
    }
    Ok(out)
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// A golden file's commands: (label shown in the file, arguments, output file if any).
type Step = (String, Vec<String>, Option<PathBuf>);

/// The number of runs of `scenario` at `--runs 1`, from its records' header.
fn runs_total(scenario: &str) -> Result<u64, String> {
    let out = Command::new(binary())
        .args(["show", scenario])
        .output()
        .map_err(|e| e.to_string())?;
    let spec: serde_json::Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("schedlab show {scenario}: {e}"))?;
    let params = spec["sweep"]["values"]
        .as_array()
        .map_or(1, |v| v.len() as u64);
    let variants = spec["variants"].as_array().map_or(1, |v| v.len() as u64);
    Ok(params * variants)
}

fn steps_of(scenario: &str, tmp: &Path) -> Result<Vec<Step>, String> {
    let n = runs_total(scenario)?;
    let mut steps: Vec<Step> = Vec::new();
    let mut push = |list: Vec<String>, output: Option<PathBuf>| {
        let mut label = list.join(" ");
        if output.is_some() {
            label = label.replace(&tmp.display().to_string(), "FILE");
        }
        steps.push((label, list, output));
    };
    let base = |cmd: &str| args(&[cmd, scenario, "--runs", "1"]);
    push(base("reproduce"), None);
    let mut jsonl = base("reproduce");
    jsonl.extend(args(&["--format", "jsonl", "--jobs", "2"]));
    push(jsonl, None);
    if scenario == "hikey960-asym-packing" {
        push(
            args(&["reproduce", scenario, "--runs", "3", "--format", "mmtests"]),
            None,
        );
    }
    let mut runs = vec![0];
    if n > 1 {
        runs.push(n - 1);
    }
    for run in runs {
        let run = run.to_string();
        let mut trace = base("trace");
        trace.extend(args(&["--run", &run, "--pelt"]));
        push(trace, None);
        let mut explain = base("explain");
        explain.extend(args(&["--run", &run, "--all"]));
        push(explain, None);
        let mut freq = base("explain");
        freq.extend(args(&["--run", &run, "--kind", "freq"]));
        push(freq, None);
    }
    let mut tracecmd = base("trace");
    tracecmd.extend(args(&["--format", "trace-cmd"]));
    push(tracecmd, None);
    let file = tmp.join(format!("{scenario}.perfetto-trace"));
    let mut perfetto = base("trace");
    perfetto.extend(args(&["--format", "perfetto", "-o"]));
    perfetto.push(file.display().to_string());
    push(perfetto, Some(file));
    Ok(steps)
}

/// Renders one golden file from its steps' outputs.
fn render(title: &str, steps: &[Step], outputs: &[Output]) -> String {
    let mut text = format!(
        "# Golden outputs of {title}, written by `cargo xtask golden` (release CLI).\n\
         # A change here is a change of a result; see crates/schedlab-cli/tests/golden.rs.\n"
    );
    for ((label, _, _), out) in steps.iter().zip(outputs) {
        text.push_str(&format!("\n$ schedlab {label}\n"));
        text.push_str(&out.render());
    }
    text
}

/// Runs the steps of every file on a few threads; returns (file name, rendered text) in order.
/// Each step's output once it ran, per file.
type Outputs = Vec<Vec<Option<Result<Output, String>>>>;

fn produce(files: Vec<(String, Vec<Step>)>) -> Vec<(String, Result<String, String>)> {
    let jobs = std::thread::available_parallelism().map_or(2, |n| n.get().min(4));
    let work: Vec<(usize, usize)> = files
        .iter()
        .enumerate()
        .flat_map(|(f, (_, steps))| (0..steps.len()).map(move |s| (f, s)))
        .collect();
    let next = Mutex::new(0usize);
    let results: Mutex<Outputs> = Mutex::new(
        files
            .iter()
            .map(|(_, steps)| (0..steps.len()).map(|_| None).collect())
            .collect(),
    );
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| loop {
                let i = {
                    let mut next = next.lock().unwrap();
                    let i = *next;
                    *next += 1;
                    i
                };
                let Some(&(f, s)) = work.get(i) else { break };
                let (_, list, output) = &files[f].1[s];
                let out = run(list, output.as_deref());
                results.lock().unwrap()[f][s] = Some(out);
            });
        }
    });
    let results = results.into_inner().unwrap();
    files
        .iter()
        .zip(results)
        .map(|((name, steps), outs)| {
            let outs: Result<Vec<Output>, String> = outs.into_iter().map(|o| o.unwrap()).collect();
            (name.clone(), outs.map(|outs| render(name, steps, &outs)))
        })
        .collect()
}

/// The first line where two texts differ, for the failure message.
fn first_difference(want: &str, got: &str) -> String {
    for (i, (w, g)) in want.lines().zip(got.lines()).enumerate() {
        if w != g {
            return format!("line {}:\n  golden: {w}\n  now:    {g}", i + 1);
        }
    }
    format!(
        "lengths differ ({} vs {} lines)",
        want.lines().count(),
        got.lines().count()
    )
}

#[test]
fn every_built_in_gives_its_golden_output() {
    let tmp = std::env::temp_dir().join(format!("schedlab-golden-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut files = Vec::new();
    for scenario in SCENARIOS {
        files.push((scenario.to_string(), steps_of(scenario, &tmp).unwrap()));
    }
    files.push((
        "lisa-checks".to_string(),
        vec![("check".to_string(), args(&["check"]), None)],
    ));
    let produced = produce(files);
    let _ = std::fs::remove_dir_all(&tmp);
    let dir = golden_dir();
    let mut failures = Vec::new();
    for (name, text) in produced {
        let text = match text {
            Ok(text) => text,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let path = dir.join(format!("{name}.txt"));
        if writing() {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &text).unwrap();
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(want) if want == text => {}
            Ok(want) => failures.push(format!(
                "{name}: output differs from {}: {}",
                path.display(),
                first_difference(&want, &text)
            )),
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of the golden outputs moved (a result changed; if that is meant, regenerate with \
         `cargo xtask golden` and say in the commit what moved and why):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn the_golden_list_is_every_built_in() {
    let out = Command::new(binary()).arg("list").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let listed: Vec<&str> = text
        .split("scenarios:\n")
        .nth(1)
        .unwrap()
        .lines()
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(listed, SCENARIOS, "add the new built-in to SCENARIOS");
}
