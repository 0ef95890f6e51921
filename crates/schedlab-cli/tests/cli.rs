//! The command line as a user meets it: documented JSON, one-line errors with a non-zero status.

use std::process::{Command, Stdio};

fn schedlab(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn reproduce_prints_the_documented_json() {
    let (code, out, _) = schedlab(&[
        "reproduce",
        "hikey960-asym-packing",
        "--runs",
        "2",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    for key in [
        "scenario",
        "metric",
        "unit",
        "higher_is_better",
        "variants",
        "rows",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    let cell = &v["rows"][0]["cells"][0];
    for key in ["variant", "mean", "stddev", "min", "max", "runs"] {
        assert!(cell.get(key).is_some(), "missing cells[].{key}");
    }
    assert_eq!(v["rows"].as_array().unwrap().len(), 8);
    assert_eq!(cell["runs"].as_array().unwrap().len(), 2);
}

#[test]
fn bad_input_is_one_line_on_stderr_and_status_1() {
    let dir = std::env::temp_dir().join(format!("schedlab-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{ not json").unwrap();
    let impossible = dir.join("impossible.json");
    let (_, shown, _) = schedlab(&["show", "hikey960-asym-packing"]);
    std::fs::write(
        &impossible,
        shown.replace(
            "\"preset\": \"hikey960-dynamiq\"",
            "\"custom\": {\"name\": \"x\", \"llc\": \"cluster\", \"clusters\": []}",
        ),
    )
    .unwrap();
    for args in [
        vec!["domains", "hikey961"],
        vec!["reproduce", "no-such-scenario"],
        vec!["run", bad.to_str().unwrap()],
        vec!["run", impossible.to_str().unwrap()],
        vec!["domains", "hikey960", "--patch", "nope"],
    ] {
        let (code, out, err) = schedlab(&args);
        assert_eq!(code, 1, "{args:?}");
        assert!(out.is_empty(), "{args:?}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("schedlab: "), "{args:?}: {err}");
    }
    let (_, _, err) = schedlab(&["run", impossible.to_str().unwrap()]);
    assert!(err.contains("no clusters"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_reader_that_stops_early_is_not_an_error() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(["trace", "hikey960-asym-packing", "--run", "1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `--runs` sizes the plan the run index counts in (index = (param x runs + repetition) x
/// variants + variant), so a run the page or `reproduce --runs N` shows is traced with the same
/// `--runs N`.
#[test]
fn trace_and_explain_take_the_runs_the_table_was_made_with() {
    let (code, three, err) = schedlab(&[
        "explain",
        "hikey960-asym-packing",
        "--runs",
        "3",
        "--seed",
        "1",
        "--run",
        "7",
    ]);
    assert_eq!(code, 0, "{err}");
    // 3 runs x 2 variants per thread count: index 7 is 2 threads, repetition 0, the patch.
    let head = three.lines().next().unwrap();
    assert!(
        head.contains("param 2") && head.contains("repetition 0") && head.contains("asym"),
        "{head}"
    );
    let (_, default, _) = schedlab(&[
        "explain",
        "hikey960-asym-packing",
        "--seed",
        "1",
        "--run",
        "7",
    ]);
    let head = default.lines().next().unwrap();
    assert!(
        head.contains("param 1") && head.contains("repetition 3"),
        "{head}"
    );
    let (code, _, err) = schedlab(&[
        "trace",
        "hikey960-asym-packing",
        "--runs",
        "3",
        "--run",
        "6",
    ]);
    assert_eq!(code, 0, "{err}");
}

/// Each error says each thing once: one kind ("invalid scenario:", "invalid kernel
/// configuration:", ...), the file's name once, the variant's name once, the run once.
#[test]
fn a_bad_file_is_named_once_and_its_error_kind_said_once() {
    let dir = std::env::temp_dir().join(format!("schedlab-cli-once-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (_, shown, _) = schedlab(&["show", "hikey960-asym-packing"]);
    let scenario: serde_json::Value = serde_json::from_str(&shown).unwrap();
    let write = |name: &str, text: String| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    let with = |f: &dyn Fn(&mut serde_json::Value)| {
        let mut s = scenario.clone();
        f(&mut s);
        serde_json::to_string(&s).unwrap()
    };
    let bad_json = write("bad.json", "{ not json".into());
    let bad_version = write("version.json", with(&|s| s["version"] = 2.into()));
    let bad_key = write("key.json", with(&|s| s["extra"] = 1.into()));
    let bad_config = write(
        "config.json",
        with(&|s| s["variants"][0]["config"] = serde_json::json!({"hzz": 1})),
    );
    let bad_patch = write(
        "patch.json",
        with(&|s| s["variants"][0]["patches"] = serde_json::json!(["nope"])),
    );
    // An rt-app file that runs past its limit, no sweep: the run is named once.
    let long = write(
        "long.json",
        with(&|s| {
            s.as_object_mut().unwrap().remove("sweep");
            s["workload"] = serde_json::json!({"kind": "rt-app", "json":
                r#"{"global": {"duration": 5}, "tasks": {"t": {"run": 1000, "sleep": 1000}}}"#});
            s["limits"] = serde_json::json!({"max_sim_seconds": 10, "max_events": 1000,
                                              "max_tasks": 20000});
        }),
    );
    let cases: Vec<(Vec<&str>, &str, &str)> = vec![
        (
            vec!["run", &bad_json],
            "invalid scenario: ",
            "not valid JSON",
        ),
        (
            vec!["trace", &bad_json],
            "invalid scenario: ",
            "not valid JSON",
        ),
        (
            vec!["explain", &bad_json],
            "invalid scenario: ",
            "not valid JSON",
        ),
        (
            vec!["bench", &bad_json],
            "invalid scenario: ",
            "not valid JSON",
        ),
        (
            vec!["run", &bad_version],
            "invalid scenario: ",
            "\"version\" must be 1",
        ),
        (
            vec!["run", &bad_key],
            "invalid scenario: ",
            "unknown field `extra`",
        ),
        (
            vec!["run", &bad_config],
            "invalid kernel configuration: ",
            "variant 'mainline': variant config: unknown field `hzz`",
        ),
        (
            vec!["run", &bad_patch],
            "invalid kernel configuration: ",
            "variant 'mainline': unknown patch 'nope'",
        ),
        (
            vec!["run", &long, "--runs", "1"],
            "limit exceeded: ",
            "run 0 (mainline): more than 1000 simulation events",
        ),
    ];
    for (args, kind, detail) in cases {
        let (code, _, err) = schedlab(&args);
        assert_eq!(code, 1, "{args:?}");
        let err = err.trim_end();
        assert!(
            err.starts_with(&format!("schedlab: {kind}")),
            "{args:?}: {err}"
        );
        assert!(err.contains(detail), "{args:?}: {err}");
        for once in [
            "invalid ",
            "limit exceeded",
            "variant '",
            "run 0",
            "schedlab:",
        ] {
            assert!(
                err.matches(once).count() <= 1,
                "{args:?}: {once:?} twice in {err}"
            );
        }
        let file = args[1];
        if kind == "invalid scenario: " {
            // The file, right after the kind, once.
            assert!(
                err.starts_with(&format!("schedlab: invalid scenario: {file}: ")),
                "{args:?}: {err}"
            );
            assert_eq!(err.matches(file).count(), 1, "{args:?}: {err}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn kernels_lists_every_baseline_with_what_it_stands_for() {
    let (code, out, err) = schedlab(&["kernels"]);
    assert_eq!(code, 0, "{err}");
    for name in [
        "v4.7", "v4.9", "v4.16", "v4.18", "v5.2", "v5.6", "v6.7", "v6.8",
    ] {
        assert!(
            out.lines()
                .any(|l| l.trim_start().starts_with(&format!("{name} "))),
            "{name} missing:\n{out}"
        );
    }
    assert!(out.contains("stands for v4.7-rc3"), "{out}");
    let (code, out, _) = schedlab(&["kernels", "--format", "json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let first = &v[0];
    for key in ["name", "stands_for", "summary", "config"] {
        assert!(first.get(key).is_some(), "missing {key}");
    }
    assert_eq!(first["name"], "v4.7");
    assert_eq!(first["config"]["wake_cap"], false);
}

#[test]
fn kernels_diff_names_each_switch_its_values_and_kernel_function() {
    let (code, out, err) = schedlab(&["kernels", "diff", "v5.2", "v6.8"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("find_idlest: A \"spare_capacity\"  B \"classify\""),
        "{out}"
    );
    assert!(out.contains("find_idlest_group()"), "{out}");
    assert!(out.contains("busy_factor: A 32  B 16"), "{out}");
    assert!(!out.contains("util_est:"), "both have util_est:\n{out}");
    // A scenario's variant against a baseline with a patch: the same kernel.
    let (code, out, err) = schedlab(&[
        "kernels",
        "diff",
        "juno-use-all-littles:merged-shr-bound",
        "v6.7+util-shr-bound",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let switches: Vec<&str> = v["switches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["switch"].as_str().unwrap())
        .collect();
    // The scenario runs the performance governor; the spec gets the baseline's schedutil.
    assert_eq!(switches, ["governor"], "{out}");
    for key in ["a", "b", "function", "versions", "meaning"] {
        assert!(v["switches"][0].get(key).is_some(), "missing {key}");
    }
    assert_eq!(v["a"]["spec"], "juno-use-all-littles:merged-shr-bound");
    let (code, out, _) = schedlab(&["kernels", "diff", "v6.7", "v6.7"]);
    assert_eq!(code, 0);
    assert!(out.contains("no switch differs"), "{out}");
}

#[test]
fn kernels_diff_rejects_unknown_names_in_one_line() {
    for args in [
        vec!["kernels", "diff", "v9.9", "v6.8"],
        vec!["kernels", "diff", "v6.8", "v6.7+nope"],
        vec!["kernels", "diff", "juno-use-all-littles:nope", "v6.8"],
        vec!["kernels", "diff", "no-such-scenario:x", "v6.8"],
    ] {
        let (code, out, err) = schedlab(&args);
        assert_eq!(code, 1, "{args:?}");
        assert!(out.is_empty(), "{args:?}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("schedlab: unknown"), "{args:?}: {err}");
    }
}

/// `schedlab trace --format perfetto|trace-cmd -o FILE` writes the core's `trace_file` of the run,
/// byte for byte (the page's downloads are the same function's bytes: the web crate's tests);
/// `--pelt` adds `sched_pelt_*` lines to the ftrace text; a binary trace never goes to a terminal
/// and a write error is one line.
#[test]
fn trace_files_are_the_cores_bytes() {
    use schedlab_core::experiment::Plan;
    use schedlab_core::trace::file::{trace_file, FileFormat};
    let s = schedlab_core::scenarios::builtin("hikey960-asym-packing").unwrap();
    let plan = Plan::new(&s).unwrap();
    let dir = std::env::temp_dir().join(format!("schedlab-cli-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, format) in [
        ("perfetto", FileFormat::Perfetto),
        ("trace-cmd", FileFormat::TraceCmd),
    ] {
        let path = dir.join(format!("run.{}", format.extension()));
        let (code, out, err) = schedlab(&[
            "trace",
            "hikey960-asym-packing",
            "--run",
            "193",
            "--format",
            name,
            "-o",
            path.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{err}");
        assert!(out.is_empty());
        let file = std::fs::read(&path).unwrap();
        assert_eq!(file, trace_file(&plan, 193, format).unwrap(), "{name}");
    }
    let (code, text, _) = schedlab(&["trace", "hikey960-asym-packing", "--run", "193", "--pelt"]);
    assert_eq!(code, 0);
    assert!(text.starts_with("# hikey960-asym-packing run 193"));
    assert!(text.contains(": sched_pelt_se: cpu="));
    let (_, plain, _) = schedlab(&["trace", "hikey960-asym-packing", "--run", "193"]);
    assert!(!plain.contains("sched_pelt_") && plain.contains(": schedlab__migrate_reason: "));
    let bad = dir.join("no/such/dir/x");
    let (code, _, err) = schedlab(&[
        "trace",
        "hikey960-asym-packing",
        "--format",
        "perfetto",
        "-o",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("schedlab: cannot write "), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `run --shard I/N --format jsonl` parts merged print what one unsharded `run` prints, byte for
/// byte, in every format and report; mixed, duplicate and missing parts are refused in one line.
#[test]
fn shards_merge_to_the_unsharded_output() {
    let dir = std::env::temp_dir().join(format!("schedlab-cli-shards-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("e1.json");
    let (_, shown, _) = schedlab(&["show", "hikey960-asym-packing"]);
    std::fs::write(&file, shown).unwrap();
    let file = file.to_str().unwrap();
    let mut parts = Vec::new();
    for i in 0..3 {
        let shard = format!("{i}/3");
        let (code, out, err) = schedlab(&[
            "run", file, "--runs", "2", "--shard", &shard, "--format", "jsonl",
        ]);
        assert_eq!(code, 0, "{err}");
        let part = dir.join(format!("part{i}"));
        std::fs::write(&part, out).unwrap();
        parts.push(part.to_str().unwrap().to_string());
    }
    for format in ["table", "json", "csv", "jsonl"] {
        // sched-p99 and latency come from the runs' latency histograms, which records carry.
        for report in [
            None,
            Some("energy"),
            Some("perf-per-watt"),
            Some("sched-p99"),
            Some("latency"),
        ] {
            let mut args = vec!["run", file, "--runs", "2", "--format", format];
            let mut m = vec!["merge", &parts[2], &parts[0], &parts[1], "--format", format];
            if let Some(r) = report {
                args.extend(["--report", r]);
                m.extend(["--report", r]);
            }
            let (code, whole, _) = schedlab(&args);
            assert_eq!(code, 0);
            let (code, merged, err) = schedlab(&m);
            assert_eq!(code, 0, "{err}");
            assert_eq!(merged, whole, "--format {format} --report {report:?}");
        }
    }
    // The header's hash is what `show --hash` prints for the scenario as run.
    let (_, hash, _) = schedlab(&["show", "hikey960-asym-packing", "--hash", "--runs", "2"]);
    let head = std::fs::read_to_string(&parts[0]).unwrap();
    assert!(head.contains(&format!("\"scenario_hash\":\"{}\"", hash.trim())));
    let (_, file_hash, _) = schedlab(&["show", file, "--hash", "--runs", "2"]);
    assert_eq!(file_hash, hash);

    let (code, _, err) = schedlab(&["merge", &parts[0], &parts[1]]);
    assert_eq!(code, 1);
    assert!(err.contains("runs are missing"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    let (code, _, err) = schedlab(&["merge", &parts[0], &parts[1], &parts[2], &parts[0]]);
    assert_eq!(code, 1);
    assert!(err.contains("is given twice"), "{err}");
    let (_, other, _) = schedlab(&[
        "run", file, "--runs", "2", "--seed", "9", "--shard", "2/3", "--format", "jsonl",
    ]);
    let other_part = dir.join("other");
    std::fs::write(&other_part, other).unwrap();
    let (code, _, err) = schedlab(&["merge", &parts[0], &parts[1], other_part.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("from another scenario"), "{err}");
    let (code, _, err) = schedlab(&["run", file, "--shard", "0/2"]);
    assert_eq!(code, 1);
    assert!(err.contains("--format jsonl"), "{err}");
    // A suite's members are several scenarios: each shards on its own.
    let (code, out, err) = schedlab(&[
        "reproduce",
        "cascadelake-freq-invariance",
        "--shard",
        "0/2",
        "--format",
        "jsonl",
    ]);
    assert_eq!(
        (code, out.as_str(), err.lines().count()),
        (1, "", 1),
        "{err}"
    );
    assert!(err.contains("cascadelake-fi-tbench"), "{err}");
}

#[test]
fn show_prints_a_machine_preset_that_runs_as_a_custom_machine() {
    let (code, machine, _) = schedlab(&["show", "tensor-g1"]);
    assert_eq!(code, 0);
    let m: serde_json::Value = serde_json::from_str(&machine).unwrap();
    assert_eq!(m["name"], "tensor-g1");
    assert_eq!(m["clusters"].as_array().unwrap().len(), 3);
    // In a scenario, as a custom machine.
    let (_, shown, _) = schedlab(&["show", "hikey960-asym-packing"]);
    let mut scenario: serde_json::Value = serde_json::from_str(&shown).unwrap();
    scenario["machine"] = serde_json::json!({ "custom": m });
    let dir = std::env::temp_dir().join(format!("schedlab-cli-show-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("g1.json");
    std::fs::write(&file, scenario.to_string()).unwrap();
    let (code, _, err) = schedlab(&["run", file.to_str().unwrap(), "--runs", "1"]);
    assert_eq!(code, 0, "{err}");
    // Neither a scenario nor a machine: the scenario's one-line error.
    let (code, _, err) = schedlab(&["show", "no-such-thing"]);
    assert_eq!((code, err.lines().count()), (1, 1), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn mmtests_format_is_compare_kernels_with_stars() {
    let (code, out, err) = schedlab(&["reproduce", "hikey960-asym-packing", "--format", "mmtests"]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "hikey960-asym-packing: time (s), lower is better");
    // Two header lines: the kernels, then the variants, each right-aligned over 23 columns.
    assert!(
        lines[1]
            .trim_end()
            .ends_with("v4.16                  v4.16"),
        "{out}"
    );
    assert!(
        lines[2].trim_end().ends_with("dynamiq-asym-packing"),
        "{out}"
    );
    // Every statistic once per swept value, in mmtests' order.
    for (i, stat) in ["Min", "Amean", "Stddev", "CoeffVar", "Max", "BAmean.95"]
        .iter()
        .enumerate()
    {
        for (j, threads) in (1..=8).enumerate() {
            let line = lines[3 + i * 8 + j];
            assert!(
                line.starts_with(&format!("{stat:<9} threads-{threads} ")),
                "{line}"
            );
        }
    }
    // One thread on the big cluster (the patch) beats the scheduler's little placement: a
    // positive, significant change on the mean row, and stars only there.
    let amean1 = lines
        .iter()
        .find(|l| l.starts_with("Amean     threads-1"))
        .unwrap();
    assert!(amean1.trim_end().ends_with('*'), "{amean1}");
    assert!(!amean1.contains("* -"), "{amean1}");
    assert!(lines
        .iter()
        .filter(|l| !l.starts_with("Amean"))
        .all(|l| !l.contains('*')));
}

#[test]
fn a_bad_flag_a_bad_file_and_an_unknown_scenario_each_say_it_once_on_one_line() {
    let dir = std::env::temp_dir().join(format!("schedlab-cli-flags-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{ not json").unwrap();
    let bad = bad.to_str().unwrap();
    let cases: Vec<(Vec<&str>, i32, String)> = vec![
        (
            vec!["reproduce", "juno-use-all-littles", "--runs", "x"],
            2,
            "schedlab: invalid value 'x' for '--runs <RUNS>': invalid digit found in string \
             (see --help)"
                .to_string(),
        ),
        (
            vec!["run", bad, "--format", "xml"],
            2,
            "schedlab: invalid value 'xml' for '--format <FORMAT>'".to_string(),
        ),
        (
            vec!["run", bad],
            1,
            format!("schedlab: invalid scenario: {bad}: not valid JSON: "),
        ),
        (
            vec!["reproduce", "no-such-scenario"],
            1,
            "schedlab: unknown scenario 'no-such-scenario'; known: hikey960-asym-packing, "
                .to_string(),
        ),
        // A suite where one scenario is wanted: its members, not "unknown" beside a list that
        // names it.
        (
            vec!["bench", "cascadelake-freq-invariance", "--runs", "1"],
            1,
            "schedlab: invalid scenario: 'cascadelake-freq-invariance' is a suite of \
             cascadelake-fi-tbench, "
                .to_string(),
        ),
    ];
    for (args, code, start) in cases {
        let (got, out, err) = schedlab(&args);
        assert_eq!(got, code, "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with(&start), "{args:?}: {err}");
        for once in ["schedlab:", "invalid scenario", "error", "unknown scenario"] {
            assert!(
                err.matches(once).count() <= 1,
                "{args:?}: {once} twice: {err}"
            );
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn piped_runs_draw_no_progress_and_ctrl_c_says_how_many_runs_finished() {
    // Piped stderr: nothing but the result.
    let (code, out, err) = schedlab(&["reproduce", "juno-use-all-littles", "--runs", "2"]);
    assert_eq!(code, 0);
    assert!(!out.is_empty());
    assert!(err.is_empty(), "{err}");
    // Ctrl-C (SIGINT) in the middle of a long sweep: the runs in progress finish, nothing is
    // printed on stdout, and stderr says how many of how many runs finished.
    let child = Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(["reproduce", "hikey960-asym-packing", "--runs", "200"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(out.stdout.is_empty());
    let last = err.lines().last().unwrap();
    let rest = last
        .strip_prefix("schedlab: interrupted: ")
        .unwrap_or_else(|| panic!("{err}"));
    let (done, total) = rest
        .strip_suffix(" runs finished")
        .and_then(|r| r.split_once(" of "))
        .unwrap_or_else(|| panic!("{err}"));
    assert_eq!(total, "3200");
    assert!(done.parse::<usize>().unwrap() < 3200, "{err}");
    assert!(err.contains("stopping after the runs in progress"), "{err}");
}
