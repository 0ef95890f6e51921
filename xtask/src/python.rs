//! The Python package (`python/`) in `cargo xtask test`: a virtualenv under target/pyenv with
//! maturin, pytest, pandas, polars and ray from the registry (each install timed), the native
//! crate's fmt and clippy, `pip install ./python`, then its pytest suite against the CLI that
//! `cargo test --workspace` built. When the registry installs fail (no Python, no network), the
//! step says so and is skipped; a failing build or test of the package fails CI. Measured on the
//! 2-core development machine: the installs ~40 s (ray ~15 s of it), the wheel's release build
//! ~1.5 min of CPU, pytest ~30 s (the local Ray instance ~15 s).

use crate::{cmd, flush, show, Ctx, Result};
use std::process::Command;
use std::time::Instant;

/// What the tests need besides the package; ray is installed apart (its test is skipped by
/// pytest if it does not install).
const TEST_PACKAGES: &[&str] = &["maturin>=1.5,<2", "pytest", "pandas", "polars"];

impl Ctx {
    pub(crate) fn python_tests(&self) -> Result {
        let venv = self.target_dir.join("pyenv");
        let python = venv.join("bin").join("python");
        let py = python
            .to_str()
            .ok_or("target dir is not UTF-8")?
            .to_string();
        if !python.exists() {
            let base = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
            let venv_s = venv.to_str().ok_or("target dir is not UTF-8")?;
            if let Err(why) =
                self.try_step("python: virtualenv", cmd(&base, &["-m", "venv", venv_s]))
            {
                println!("--- python package tests: skipped (no virtualenv: {why})");
                return Ok(());
            }
        }
        let mut pip = vec!["-m", "pip", "install", "--disable-pip-version-check", "-q"];
        pip.extend(TEST_PACKAGES);
        if let Err(why) = self.try_step(
            "python: pip install maturin pytest pandas polars",
            cmd(&py, &pip),
        ) {
            println!("--- python package tests: skipped (the test tools did not install: {why})");
            return Ok(());
        }
        let ray = [
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "-q",
            "ray",
        ];
        if let Err(why) = self.try_step("python: pip install ray", cmd(&py, &ray)) {
            println!("--- ray did not install ({why}): the Ray test will be skipped");
        }
        let manifest = "python/Cargo.toml";
        let native_target = self.target_dir.join("python");
        // As if the virtualenv were activated: maturin's build backend runs `maturin` from PATH.
        let mut path = vec![venv.join("bin")];
        path.extend(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        ));
        let path = std::env::join_paths(path).map_err(|e| e.to_string())?;
        let with_env = |mut c: Command| {
            c.env("PYO3_PYTHON", &python)
                .env("CARGO_TARGET_DIR", &native_target)
                .env("VIRTUAL_ENV", &venv)
                .env("PATH", &path);
            c
        };
        self.step(
            "cargo fmt --check of python/ (the package's native crate)",
            cmd(
                "cargo",
                &["fmt", "--manifest-path", manifest, "--", "--check"],
            ),
        )?;
        self.step(
            "cargo clippy of python/",
            with_env(cmd(
                "cargo",
                &[
                    "clippy",
                    "--manifest-path",
                    manifest,
                    "--all-targets",
                    "--",
                    "-D",
                    "warnings",
                ],
            )),
        )?;
        // maturin is in the virtualenv already: no second download into an isolated build env.
        self.step(
            "pip install ./python (maturin, abi3 wheel)",
            with_env(cmd(
                &py,
                &[
                    "-m",
                    "pip",
                    "install",
                    "--disable-pip-version-check",
                    "-q",
                    "--no-build-isolation",
                    "--force-reinstall",
                    "--no-deps",
                    "./python",
                ],
            )),
        )?;
        let mut pytest = cmd(&py, &["-m", "pytest", "-q", "python/tests"]);
        pytest.env(
            "SCHEDLAB_BIN",
            self.target_dir
                .join("debug")
                .join(format!("schedlab{}", std::env::consts::EXE_SUFFIX)),
        );
        self.step("pytest python/tests (the Python package, Ray)", pytest)
    }

    /// A step whose failure the caller handles: Err(why) instead of failing the run.
    fn try_step(&self, title: &str, mut command: Command) -> std::result::Result<(), String> {
        let n = self.begin_step(title);
        println!("$ {}", show(&command));
        flush();
        let t = Instant::now();
        let status = command
            .status()
            .map_err(|e| format!("cannot start it: {e}"))?;
        if !status.success() {
            return Err(format!("{} exited with {status}", show(&command)));
        }
        println!("--- [{n}] {title}: ok ({:.1} s)", t.elapsed().as_secs_f64());
        Ok(())
    }
}
