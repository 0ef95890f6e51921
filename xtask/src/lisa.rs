//! The trace-cmd export read by LISA itself: a virtualenv under target/ with `lisa-linux` from
//! PyPI (pinned to versions that import together: lisa-linux 3.1.0 wants NumPy 1.x, so pyarrow
//! before 15; it also imports nest_asyncio without declaring it), then `xtask/lisa_check.py` reads
//! a run's `schedlab trace --format trace-cmd` file with LISA's `TxtTraceParser` and checks every
//! line of every PELT and scheduling event came through with its values; `xtask/perfetto_check.py`
//! parses the same run's `--format perfetto` file with the classes generated from Perfetto's own
//! schema (the `perfetto` package; its trace_processor downloads a binary, so it is not used).
//! Bounded: the install
//! gets [`INSTALL_SECONDS`], the check [`CHECK_SECONDS`]; without Python or when the install
//! fails (no registry, say) the step is skipped with a message, not failed.

use crate::{cmd, Ctx, Result};
use std::process::Command;

const INSTALL_SECONDS: &str = "600";
const CHECK_SECONDS: &str = "300";
/// What pip installs into the venv.
const PACKAGES: &[&str] = &[
    "lisa-linux==3.1.0",
    "numpy<2",
    "pyarrow<15",
    "nest_asyncio",
    "perfetto==0.59.1",
    "protobuf",
];
/// The run checked: Juno under v6.7, which has util_est (E5's first run).
const SCENARIO: &str = "juno-use-all-littles";

impl Ctx {
    pub(crate) fn lisa_check(&self) -> Result {
        let target = self.target_dir.clone();
        let venv = target.join("lisa-venv");
        let python = venv.join("bin/python");
        let marker = venv.join(".schedlab-installed");
        // Installed once per package list (the marker holds the list it was installed with).
        if std::fs::read_to_string(&marker).ok().as_deref() != Some(&PACKAGES.join("\n")) {
            let made = Command::new("python3")
                .args(["-m", "venv"])
                .arg(&venv)
                .status()
                .map(|s| s.success())
                .unwrap_or(false);
            if !made {
                println!("\n--- LISA check: skipped (python3 -m venv failed)");
                return Ok(());
            }
            let mut pip = cmd("timeout", &[INSTALL_SECONDS]);
            pip.arg(venv.join("bin/pip"))
                .args(["install", "--quiet"])
                .args(PACKAGES);
            println!("\n--- LISA check: installing {}", PACKAGES.join(" "));
            let ok = pip.status().map(|s| s.success()).unwrap_or(false);
            if !ok {
                println!("--- LISA check: skipped (pip could not install lisa-linux)");
                return Ok(());
            }
            std::fs::write(&marker, PACKAGES.join("\n")).map_err(|e| e.to_string())?;
        }
        self.step(
            "cargo build -p schedlab-cli (for the LISA check)",
            cmd("cargo", &["build", "-p", "schedlab-cli"]),
        )?;
        let file = target.join("lisa-check.trace-cmd.txt");
        let mut trace = Command::new(target.join("debug/schedlab"));
        trace
            .args(["trace", SCENARIO, "--format", "trace-cmd", "-o"])
            .arg(&file);
        self.step(
            "schedlab trace --format trace-cmd (for the LISA check)",
            trace,
        )?;
        let mut check = cmd("timeout", &[CHECK_SECONDS]);
        check
            .arg(&python)
            .arg(self.root.join("xtask/lisa_check.py"))
            .arg(&file);
        self.step("LISA's TxtTraceParser reads the trace-cmd export", check)?;
        let pftrace = target.join("lisa-check.perfetto-trace");
        let mut trace = Command::new(target.join("debug/schedlab"));
        trace
            .args(["trace", SCENARIO, "--format", "perfetto", "-o"])
            .arg(&pftrace);
        self.step(
            "schedlab trace --format perfetto (for the schema check)",
            trace,
        )?;
        let mut check = cmd("timeout", &[CHECK_SECONDS]);
        check
            .arg(&python)
            .arg(self.root.join("xtask/perfetto_check.py"))
            .arg(&pftrace)
            .arg(&file);
        self.step(
            "Perfetto's generated Trace classes parse the Perfetto export",
            check,
        )
    }
}
