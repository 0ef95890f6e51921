//! `cargo xtask`: the project's own build and test orchestration.
//!
//! ```text
//! cargo xtask setup                  install what the web build and the tests need (idempotent)
//! cargo xtask serve [--port 8080]    setup, then `trunk serve` the page
//! cargo xtask dist                   setup, then `trunk build --release` into dist/ and print sizes
//! cargo xtask test                   setup, then every check CI runs, in order, stopping at the first failure
//! cargo xtask e2e                    setup, release builds, then only the browser end-to-end tests
//! cargo xtask python                 only the Python package's checks (virtualenv, build, pytest; see python.rs)
//! cargo xtask bench                  the issue-13 table: bench matrix x native/wasm, instructions, page timings (bench.rs)
//! cargo xtask profile [CELL ...]     self time per function of bench cells, native (perf) beside wasm (V8) (profile.rs)
//! cargo xtask profile --instr [CELL ...]   the same in instructions, both sides under callgrind (instr.rs)
//! cargo xtask golden                 rewrite the built-ins' golden outputs with the release CLI
//! cargo xtask fuzz [TARGET] [--seconds N]   the fuzz targets of fuzz/ (needs nightly; see fuzz.rs)
//! cargo xtask lisa                   LISA's own parser reads a trace-cmd export (a venv under target/)
//! ```
//!
//! Everything a fresh clone needs is installed from here (`.ci/run` is `cargo xtask test`):
//! the wasm32 target, trunk, wasm-bindgen-cli at the version in Cargo.lock, the npm packages of
//! package.json (wasm-opt from binaryen, plotly.js, playwright-core) and Debian's Chromium and
//! chromedriver. Each install is skipped when the right version is already there.

use std::env;
use std::ffi::OsString;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

mod bench;
mod callgrind;
mod fuzz;
mod instr;
mod lisa;
mod profile;
mod python;
mod sizes;

/// trunk's version: 0.22 needs a newer rustc than this project's 1.95.
const TRUNK_VERSION: &str = "0.21.14";
/// What `wasm-opt --version` must report (npm `binaryen@132.0.0`, see package.json).
const WASM_OPT_VERSION: &str = "version_132";
const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
/// The core must build for the browser without a JS host: none of these may be in its tree.
const FORBIDDEN_IN_CORE: &[&str] = &["wasm-bindgen", "js-sys", "web-sys", "getrandom"];
const WASM: &str = "wasm32-unknown-unknown";
type Result<T = ()> = std::result::Result<T, String>;

fn main() -> ExitCode {
    let args: Vec<String> = env::args().skip(1).collect();
    let ctx = match Ctx::new() {
        Ok(ctx) => ctx,
        Err(e) => {
            eprintln!("xtask: {e}");
            return ExitCode::FAILURE;
        }
    };
    let started = Instant::now();
    let result = match args.first().map(String::as_str) {
        Some("setup") => ctx.setup(),
        Some("serve") => ctx.serve(&args[1..]),
        Some("dist") => ctx.dist(),
        Some("test") => ctx.test(),
        Some("e2e") => ctx.e2e_only(),
        Some("python") => ctx.python_tests(),
        Some("bench") => ctx.bench(),
        Some("profile") => ctx.profile(&args[1..]),
        Some("golden") => ctx.golden(),
        Some("fuzz") => ctx.fuzz(&args[1..]),
        Some("lisa") => ctx.lisa_check(),
        Some("help" | "--help" | "-h") | None => {
            println!("{}", USAGE);
            Ok(())
        }
        Some(other) => Err(format!("unknown subcommand '{other}'\n\n{USAGE}")),
    };
    match result {
        Ok(()) => {
            eprintln!("xtask: ok ({:.0} s)", started.elapsed().as_secs_f64());
            // The browser tests' count closes the output, for CI to read.
            if let Some(line) = ctx.e2e_summary.take() {
                println!("e2e: {line}");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("\nxtask: FAILED: {e}");
            ExitCode::FAILURE
        }
    }
}

const USAGE: &str = "usage: cargo xtask <setup|serve [--port N] [--address A]|dist|test|e2e|python|bench|profile [--instr] [CELL ...]|golden|fuzz|lisa>
  setup  install the wasm target, trunk, wasm-bindgen-cli, npm packages, Chromium (skips what is there)
  serve  setup, then trunk serve (default 127.0.0.1:8080)
  dist   setup, then trunk build --release into dist/ and print the bundle sizes
  test   setup, then fmt, clippy (native and wasm32), tests, the Python package's tests (a
         virtualenv under target/pyenv; skipped if its packages do not install), LISA reading a
         trace-cmd export (a venv under target/; skipped when lisa-linux does not install), the
         fuzz targets (30 s each, when
         nightly is installed), the core's wasm build and dependency guard, wasm-bindgen tests in
         Chromium, the release page build and the browser e2e tests
  e2e    setup, release builds of the page and CLI, then only the browser e2e tests
  python only the Python package's checks (needs target/debug/schedlab: cargo build -p schedlab-cli)
  bench  one table: the bench matrix (schedlab bench --list) and E1, native (one thread) and
         wasm (headless Chromium) side by side, instructions per event (callgrind, when
         valgrind is there), page timings (E1 cold load, the E2 suite); see xtask/src/bench.rs
  profile [CELL ...]: each function's self time in bench cells (`schedlab bench --list`; default
         four), natively (perf) beside the page's job worker (V8's profiler, the worker's names
         kept), to read the wasm/native gap function by function; see xtask/src/profile.rs.
         --instr: instructions instead of time, both sides under callgrind (V8 in Node), exact
         from run to run; 1-3 minutes a cell; a cell may be a scenario file (*.json) to
         profile part of a long built-in; see xtask/src/instr.rs
  golden rewrite crates/schedlab-cli/tests/golden/ with the release CLI's outputs (a result moved:
         say in the commit what and why; `cargo test -p schedlab-cli --test golden` compares)
  fuzz   [TARGET] [--seconds N] [--keep-going]: run the fuzz targets (default all, 60 s each)
  lisa   LISA's TxtTraceParser reads `schedlab trace --format trace-cmd` (venv under target/)";

struct Ctx {
    root: PathBuf,
    target_dir: PathBuf,
    step: std::cell::Cell<usize>,
    /// The e2e runner's closing "N passed, M failed" line, once it ran.
    e2e_summary: std::cell::Cell<Option<String>>,
}

impl Ctx {
    fn new() -> Result<Ctx> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .ok_or("xtask must live one level below the workspace root")?
            .to_path_buf();
        let target_dir = match env::var_os("CARGO_TARGET_DIR") {
            Some(d) => env::current_dir().map_err(|e| e.to_string())?.join(d),
            None => root.join("target"),
        };
        // Child processes find the tools installed here: npm's (wasm-opt) and cargo's (trunk,
        // wasm-bindgen, wasm-bindgen-test-runner).
        let mut paths = vec![
            root.join("node_modules").join(".bin"),
            cargo_home().join("bin"),
        ];
        paths.extend(env::split_paths(&env::var_os("PATH").unwrap_or_default()));
        let path: OsString = env::join_paths(paths).map_err(|e| e.to_string())?;
        env::set_var("PATH", path);
        env::set_current_dir(&root).map_err(|e| format!("cd {}: {e}", root.display()))?;
        Ok(Ctx {
            root,
            target_dir,
            step: std::cell::Cell::new(0),
            e2e_summary: std::cell::Cell::new(None),
        })
    }

    // ---- subcommands -------------------------------------------------------------------------

    fn setup(&self) -> Result {
        header("setup");
        self.ensure_wasm_target()?;
        let bindgen_version = self.wasm_bindgen_version()?;
        self.check_trunk_toml(&bindgen_version)?;
        self.ensure_trunk()?;
        self.ensure_wasm_bindgen_cli(&bindgen_version)?;
        self.ensure_npm_packages()?;
        self.ensure_chromium()?;
        // trunk builds with `cargo --offline --locked`: have every crate downloaded first.
        run_quiet("cargo fetch", cmd("cargo", &["fetch"]))?;
        println!("setup: everything is in place");
        Ok(())
    }

    fn serve(&self, args: &[String]) -> Result {
        let mut port = "8080".to_string();
        let mut address = "127.0.0.1".to_string();
        let mut it = args.iter();
        while let Some(a) = it.next() {
            match a.as_str() {
                "--port" => port = it.next().ok_or("--port needs a value")?.clone(),
                "--address" => address = it.next().ok_or("--address needs a value")?.clone(),
                other => return Err(format!("serve: unknown argument '{other}'")),
            }
        }
        port.parse::<u16>()
            .map_err(|_| format!("--port {port}: not a port number"))?;
        self.setup()?;
        self.step(
            "trunk serve",
            cmd("trunk", &["serve", "--port", &port, "--address", &address]),
        )
    }

    fn dist(&self) -> Result {
        self.setup()?;
        self.step(
            "trunk build --release",
            cmd("trunk", &["build", "--release"]),
        )?;
        self.print_sizes()
    }

    fn test(&self) -> Result {
        self.setup()?;
        self.step(
            "cargo fmt --all -- --check",
            cmd("cargo", &["fmt", "--all", "--", "--check"]),
        )?;
        self.step(
            "cargo fmt --check of fuzz/ (its own workspace)",
            cmd(
                "cargo",
                &["fmt", "--manifest-path", "fuzz/Cargo.toml", "--", "--check"],
            ),
        )?;
        self.step(
            "cargo clippy --workspace --all-targets (native)",
            cmd(
                "cargo",
                &[
                    "clippy",
                    "--workspace",
                    "--all-targets",
                    "--",
                    "-D",
                    "warnings",
                ],
            ),
        )?;
        self.step(
            "cargo clippy -p schedlab-core -p schedlab-web (wasm32)",
            cmd(
                "cargo",
                &[
                    "clippy",
                    "-p",
                    "schedlab-core",
                    "-p",
                    "schedlab-web",
                    "--target",
                    WASM,
                    "--",
                    "-D",
                    "warnings",
                ],
            ),
        )?;
        self.step(
            "cargo test --workspace (native)",
            cmd("cargo", &["test", "--workspace"]),
        )?;
        self.lisa_check()?;
        self.python_tests()?;
        self.fuzz_in_test()?;
        self.step(
            "cargo build -p schedlab-core (wasm32, no JS host)",
            cmd("cargo", &["build", "-p", "schedlab-core", "--target", WASM]),
        )?;
        self.guard_core_dependencies()?;
        let mut wbt = cmd("cargo", &["test", "-p", "schedlab-web", "--target", WASM]);
        wbt.env("CHROMEDRIVER", CHROMEDRIVER)
            .env("WASM_BINDGEN_TEST_TIMEOUT", "60")
            // Debian's Chromium and the same quiet flags as the e2e tests (the runner adds
            // headless and no-sandbox itself).
            .env(
                "WASM_BINDGEN_TEST_WEBDRIVER_JSON",
                self.root.join("crates/schedlab-web/webdriver.json"),
            );
        self.step(
            "wasm-bindgen tests of schedlab-web (headless Chromium)",
            wbt,
        )?;
        self.e2e()
    }

    fn e2e_only(&self) -> Result {
        self.setup()?;
        self.e2e()
    }

    /// The release page, the release CLI (the reference numbers), then the browser tests.
    fn e2e(&self) -> Result {
        self.step(
            "trunk build --release",
            cmd("trunk", &["build", "--release"]),
        )?;
        self.print_sizes()?;
        self.build_release_cli()?;
        let mut node = cmd("node", &["tests/e2e/run.mjs"]);
        node.env("SCHEDLAB_BIN", self.cli_path())
            .env("SCHEDLAB_DIST", self.root.join("dist"));
        let mut summary = None;
        let result = self.step_with_lines(
            "browser end-to-end tests (tests/e2e/run.mjs)",
            node,
            |line| {
                if is_pass_fail_line(line) {
                    summary = Some(line.to_string());
                }
            },
        );
        self.e2e_summary.set(summary);
        result
    }

    /// The golden outputs (crates/schedlab-cli/tests/golden.rs) written by the release CLI: the
    /// test's own command list, run with `SCHEDLAB_GOLDEN_WRITE=1` against target/release/schedlab.
    fn golden(&self) -> Result {
        self.build_release_cli()?;
        let mut write = cmd(
            "cargo",
            &[
                "test",
                "-p",
                "schedlab-cli",
                "--test",
                "golden",
                "--",
                "--exact",
                "every_built_in_gives_its_golden_output",
            ],
        );
        write.env("SCHEDLAB_GOLDEN_WRITE", "1").env(
            "SCHEDLAB_GOLDEN_BIN",
            self.target_dir.join("release/schedlab"),
        );
        self.step("golden outputs from the release CLI", write)
    }

    // ---- steps ---------------------------------------------------------------------------------

    /// Numbers the next step and prints its header; returns the step number.
    fn begin_step(&self, title: &str) -> usize {
        let n = self.step.get() + 1;
        self.step.set(n);
        header(&format!("[{n}] {title}"));
        n
    }

    /// The end of a step that ran `command`: an error naming it, or the `--- ok` line.
    fn finish_step(
        n: usize,
        title: &str,
        command: &Command,
        status: std::process::ExitStatus,
        t: Instant,
    ) -> Result {
        if !status.success() {
            return Err(format!(
                "step [{n}] '{title}' failed ({status}); command: {}",
                show(command)
            ));
        }
        println!("--- [{n}] {title}: ok ({:.0} s)", t.elapsed().as_secs_f64());
        Ok(())
    }

    fn step(&self, title: &str, mut command: Command) -> Result {
        let n = self.begin_step(title);
        println!("$ {}", show(&command));
        flush();
        let t = Instant::now();
        let status = command
            .status()
            .map_err(|e| format!("{title}: cannot start {}: {e}", show(&command)))?;
        Self::finish_step(n, title, &command, status, t)
    }

    /// Like [`Ctx::step`], passing each line of the command's stdout to `on_line` as it prints.
    fn step_with_lines(
        &self,
        title: &str,
        mut command: Command,
        mut on_line: impl FnMut(&str),
    ) -> Result {
        use std::io::BufRead;
        let n = self.begin_step(title);
        println!("$ {}", show(&command));
        flush();
        let t = Instant::now();
        let mut child = command
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("{title}: cannot start {}: {e}", show(&command)))?;
        if let Some(out) = child.stdout.take() {
            for line in std::io::BufReader::new(out).lines().map_while(|l| l.ok()) {
                println!("{line}");
                on_line(&line);
            }
        }
        let status = child.wait().map_err(|e| format!("{title}: {e}"))?;
        Self::finish_step(n, title, &command, status, t)
    }

    fn guard_core_dependencies(&self) -> Result {
        let title = "guard: no wasm-bindgen/js-sys/web-sys/getrandom in the core's wasm32 tree";
        let n = self.begin_step(title);
        let args = [
            "tree",
            "-p",
            "schedlab-core",
            "--target",
            WASM,
            "-e",
            "normal",
            "--prefix",
            "none",
        ];
        let tree = capture(cmd("cargo", &args))?;
        let found = forbidden_in_tree(&tree);
        if !found.is_empty() {
            return Err(format!(
                "step [{n}] '{title}' failed: schedlab-core depends on {} when built for {WASM}.\n\
                 The core must stay free of browser and OS-entropy crates (see DESIGN.md); \
                 `cargo tree -p schedlab-core --target {WASM} -i <crate>` shows who pulls it in.",
                found.join(", ")
            ));
        }
        println!(
            "--- [{n}] {title}: ok ({} crates checked)",
            tree.lines().count()
        );
        Ok(())
    }

    /// `cargo build --release -p schedlab-cli` as a step; the binary's path.
    fn build_release_cli(&self) -> Result<String> {
        self.step(
            "cargo build --release -p schedlab-cli",
            cmd("cargo", &["build", "--release", "-p", "schedlab-cli"]),
        )?;
        self.cli_path()
            .to_str()
            .map(str::to_string)
            .ok_or_else(|| "the CLI's path is not UTF-8".to_string())
    }

    fn cli_path(&self) -> PathBuf {
        self.target_dir
            .join("release")
            .join(format!("schedlab{}", env::consts::EXE_SUFFIX))
    }

    // ---- setup pieces --------------------------------------------------------------------------

    fn ensure_wasm_target(&self) -> Result {
        let installed = capture(cmd("rustup", &["target", "list", "--installed"]))?;
        if installed.lines().any(|l| l.trim() == WASM) {
            println!("setup: rust target {WASM}: present");
            return Ok(());
        }
        run_quiet("rustup target add", cmd("rustup", &["target", "add", WASM]))
    }

    /// The `wasm-bindgen` version in Cargo.lock: the CLI trunk runs must be exactly this one.
    fn wasm_bindgen_version(&self) -> Result<String> {
        let lock = self.root.join("Cargo.lock");
        if !lock.exists() {
            run_quiet(
                "cargo generate-lockfile",
                cmd("cargo", &["generate-lockfile"]),
            )?;
        }
        let text = fs::read_to_string(&lock).map_err(|e| format!("{}: {e}", lock.display()))?;
        lock_version(&text, "wasm-bindgen").ok_or_else(|| {
            "Cargo.lock has no wasm-bindgen package; is crates/schedlab-web a member?".to_string()
        })
    }

    fn check_trunk_toml(&self, bindgen: &str) -> Result {
        let path = self.root.join("Trunk.toml");
        let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        match toml_string(&text, "wasm_bindgen") {
            Some(v) if v == bindgen => Ok(()),
            Some(v) => Err(format!(
                "Trunk.toml [tools] wasm_bindgen = \"{v}\" but Cargo.lock has wasm-bindgen {bindgen}; \
                 make them equal (the workspace pins wasm-bindgen with `=`)"
            )),
            None => Err("Trunk.toml has no [tools] wasm_bindgen = \"...\"".into()),
        }
    }

    fn ensure_trunk(&self) -> Result {
        let want = format!("trunk {TRUNK_VERSION}");
        if version_of("trunk", "--version").is_some_and(|v| v.trim() == want) {
            println!("setup: {want}: present");
            return Ok(());
        }
        println!("setup: installing trunk {TRUNK_VERSION} (takes 12-15 minutes on 2 cores)");
        run_quiet(
            "cargo install trunk",
            cmd(
                "cargo",
                &["install", "trunk", "--version", TRUNK_VERSION, "--locked"],
            ),
        )
    }

    fn ensure_wasm_bindgen_cli(&self, version: &str) -> Result {
        let ok = |bin: &str| {
            version_of(bin, "--version")
                .is_some_and(|v| v.split_whitespace().nth(1) == Some(version))
        };
        if ok("wasm-bindgen") && ok("wasm-bindgen-test-runner") {
            println!("setup: wasm-bindgen-cli {version}: present");
            return Ok(());
        }
        println!("setup: installing wasm-bindgen-cli {version} (takes 4-6 minutes)");
        // No --locked: one of the CLI's locked dependencies is no longer in the registry.
        run_quiet(
            "cargo install wasm-bindgen-cli",
            cmd(
                "cargo",
                &[
                    "install",
                    "wasm-bindgen-cli",
                    "--version",
                    version,
                    "--force",
                ],
            ),
        )
    }

    fn ensure_npm_packages(&self) -> Result {
        let node = version_of("node", "--version").ok_or(
            "node is not installed: install Node.js 20 or newer (Debian: apt-get install -y nodejs npm)",
        )?;
        let major: u32 = node
            .trim()
            .trim_start_matches('v')
            .split('.')
            .next()
            .and_then(|m| m.parse().ok())
            .unwrap_or(0);
        if major < 20 {
            return Err(format!(
                "node {} is too old: playwright-core needs Node.js 20 or newer",
                node.trim()
            ));
        }
        let nm = self.root.join("node_modules");
        let lock = self.root.join("package-lock.json");
        let hidden_lock = nm.join(".package-lock.json");
        let wanted = [
            nm.join(".bin").join("wasm-opt"),
            nm.join("plotly.js-basic-dist-min")
                .join("plotly-basic.min.js"),
            nm.join("playwright-core").join("package.json"),
        ];
        let stale = !wanted.iter().all(|p| p.exists())
            || !hidden_lock.exists()
            || (lock.exists() && modified(&lock) > modified(&hidden_lock))
            || modified(&self.root.join("package.json")) > modified(&hidden_lock);
        if stale {
            let args: &[&str] = if lock.exists() {
                &["ci", "--no-audit", "--no-fund"]
            } else {
                &["install", "--no-audit", "--no-fund"]
            };
            run_quiet(&format!("npm {}", args[0]), cmd("npm", args))?;
        } else {
            println!("setup: node_modules: up to date with package-lock.json");
        }
        let wasm_opt = version_of("wasm-opt", "--version").unwrap_or_default();
        if !wasm_opt.contains(WASM_OPT_VERSION) {
            return Err(format!(
                "wasm-opt on PATH reports '{}', trunk needs {WASM_OPT_VERSION} (npm binaryen, node_modules/.bin)",
                wasm_opt.trim()
            ));
        }
        Ok(())
    }

    fn ensure_chromium(&self) -> Result {
        if Path::new(CHROMIUM).exists() && Path::new(CHROMEDRIVER).exists() {
            println!("setup: {CHROMIUM} and {CHROMEDRIVER}: present");
            return Ok(());
        }
        println!("setup: installing Debian's chromium and chromium-driver");
        let sudo = !is_root() && version_of("sudo", "--version").is_some();
        let apt = |args: &[&str]| {
            let mut c = if sudo {
                cmd("sudo", &[&["apt-get"], args].concat())
            } else {
                cmd("apt-get", args)
            };
            c.env("DEBIAN_FRONTEND", "noninteractive");
            c
        };
        run_quiet("apt-get update", apt(&["update"]))?;
        run_quiet(
            "apt-get install chromium",
            apt(&["install", "-y", "chromium", "chromium-driver"]),
        )?;
        if !Path::new(CHROMIUM).exists() {
            return Err(format!("{CHROMIUM} is still missing after apt-get install"));
        }
        Ok(())
    }
}

// ---- helpers -----------------------------------------------------------------------------------

fn header(title: &str) {
    println!("\n=== {title} ===");
    flush();
}

fn flush() {
    let _ = std::io::stdout().flush();
}

fn cmd(program: &str, args: &[&str]) -> Command {
    let mut c = Command::new(program);
    c.args(args);
    c
}

fn show(c: &Command) -> String {
    let mut s = c.get_program().to_string_lossy().into_owned();
    for a in c.get_args() {
        s.push(' ');
        s.push_str(&a.to_string_lossy());
    }
    s
}

/// Runs a setup command with its output visible; fails with its name.
fn run_quiet(title: &str, mut c: Command) -> Result {
    println!("setup: $ {}", show(&c));
    flush();
    let status = c
        .status()
        .map_err(|e| format!("{title}: cannot start {}: {e}", show(&c)))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{title} failed ({status}): {}", show(&c)))
    }
}

fn capture(mut c: Command) -> Result<String> {
    let out = c
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot start {}: {e}", show(&c)))?;
    if !out.status.success() {
        return Err(format!("{} failed ({})", show(&c), out.status));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// First line of `program flag`'s output, or `None` when it does not run.
fn version_of(program: &str, flag: &str) -> Option<String> {
    let out = Command::new(program)
        .arg(flag)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .map(str::to_string)
}

fn cargo_home() -> PathBuf {
    env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .unwrap_or_else(|| PathBuf::from(".cargo"))
}

fn is_root() -> bool {
    capture(cmd("id", &["-u"])).is_ok_and(|u| u.trim() == "0")
}

fn modified(p: &Path) -> Option<std::time::SystemTime> {
    fs::metadata(p).and_then(|m| m.modified()).ok()
}

/// The version of package `name` in a Cargo.lock (the first one, if several).
fn lock_version(lock: &str, name: &str) -> Option<String> {
    let want = format!("name = \"{name}\"");
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == want {
            let next = lines.next()?.trim();
            return next
                .strip_prefix("version = \"")?
                .strip_suffix('"')
                .map(str::to_string);
        }
    }
    None
}

/// The string value of `key = "value"` in a small TOML file.
fn toml_string(text: &str, key: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once('=')?;
        if k.trim() != key {
            return None;
        }
        let v = v.split('#').next()?.trim();
        v.strip_prefix('"')?.strip_suffix('"').map(str::to_string)
    })
}

/// `N passed, M failed`, the closing line of the e2e runner.
fn is_pass_fail_line(line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    matches!(words.as_slice(), [n, "passed,", m, "failed"] if n.parse::<u32>().is_ok() && m.parse::<u32>().is_ok())
}

/// The forbidden crates named in `cargo tree --prefix none` output (lines like `js-sys v0.3.107`).
fn forbidden_in_tree(tree: &str) -> Vec<String> {
    let mut found: Vec<String> = tree
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| FORBIDDEN_IN_CORE.contains(name))
        .map(str::to_string)
        .collect();
    found.sort();
    found.dedup();
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_forbidden_crates_in_a_tree() {
        let clean = "schedlab-core v0.1.0 (/w/crates/schedlab-core)\nserde v1.0.228\nserde_json v1.0.145\nitoa v1.0.15\n";
        assert!(forbidden_in_tree(clean).is_empty());
        let dirty = "schedlab-core v0.1.0 (/w)\nrand v0.9.0\ngetrandom v0.3.4\njs-sys v0.3.107\nwasm-bindgen v0.2.130\n\
                     wasm-bindgen-macro v0.2.130\njs-sys v0.3.107 (*)\n";
        assert_eq!(
            forbidden_in_tree(dirty),
            ["getrandom", "js-sys", "wasm-bindgen"]
        );
        // Only whole crate names count.
        assert!(
            forbidden_in_tree("wasm-bindgen-shared v0.2.130\nweb-sys-like v1.0.0\n").is_empty()
        );
    }

    #[test]
    fn reads_a_package_version_from_cargo_lock() {
        let lock = "version = 4\n\n[[package]]\nname = \"wasm-bindgen\"\nversion = \"0.2.130\"\nsource = \"x\"\n\n\
                    [[package]]\nname = \"wasm-bindgen-futures\"\nversion = \"0.4.80\"\n";
        assert_eq!(
            lock_version(lock, "wasm-bindgen").as_deref(),
            Some("0.2.130")
        );
        assert_eq!(
            lock_version(lock, "wasm-bindgen-futures").as_deref(),
            Some("0.4.80")
        );
        assert_eq!(lock_version(lock, "yew"), None);
    }

    #[test]
    fn reads_a_string_from_trunk_toml() {
        let t = "[build]\ndist = \"dist\"\n[tools]\nwasm_bindgen = \"0.2.130\"  # keep equal\nwasm_opt = \"version_132\"\n";
        assert_eq!(toml_string(t, "wasm_bindgen").as_deref(), Some("0.2.130"));
        assert_eq!(toml_string(t, "wasm_opt").as_deref(), Some("version_132"));
        assert_eq!(toml_string(t, "missing"), None);
    }

    #[test]
    fn recognises_the_e2e_closing_line() {
        assert!(is_pass_fail_line("7 passed, 0 failed"));
        assert!(is_pass_fail_line("0 passed, 1 failed"));
        assert!(!is_pass_fail_line("ok   7 passed tests"));
        assert!(!is_pass_fail_line("x passed, 0 failed"));
    }
}
