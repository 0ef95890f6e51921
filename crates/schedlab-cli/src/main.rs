//! `schedlab`: the native command line of the model. Every command prints a one-line error and
//! exits non-zero on bad input; nothing here panics on user input.

use clap::{Parser, Subcommand, ValueEnum};
use progress::Failure;
use schedlab_core::experiment::{Plan, Quantity, RunResult, Scenario};
use schedlab_core::trace::file::{trace_file, FileFormat};
use schedlab_core::trace::text::Style as TextStyle;
use schedlab_core::{domains::SchedDomains, kernel, records, scenarios, topology, Error};
use std::process::ExitCode;
use std::time::Instant;

mod kernels;
mod progress;

#[derive(Parser)]
#[command(
    name = "schedlab",
    version,
    about = "A deterministic model of the Linux CFS scheduler"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// `explain --kind`.
#[derive(Clone, Copy, ValueEnum)]
enum ExplainKind {
    Wakeup,
    Fork,
    Balance,
    Quiet,
    Freq,
    /// Wake-ups placed by find_energy_efficient_cpu().
    Eas,
}

impl ExplainKind {
    fn kind(self) -> schedlab_core::sched::log::DecisionKind {
        use schedlab_core::sched::log::DecisionKind as K;
        match self {
            ExplainKind::Wakeup => K::Wakeup,
            ExplainKind::Fork => K::Fork,
            ExplainKind::Balance => K::Balance,
            ExplainKind::Quiet => K::Quiet,
            ExplainKind::Freq => K::Freq,
            ExplainKind::Eas => K::Eas,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Table,
    Json,
    Csv,
    /// One JSON line per run after a header (the raw data: `schedlab merge` reads it back).
    Jsonl,
    /// mmtests' compare-kernels layout (Amean/Hmean, Stddev, CoeffVar, Min, Max, BAmean.95; the
    /// change with positive = better; '*' where Welch's t-test at 95% finds it significant).
    Mmtests,
}

/// `--report`: a table quantity by its name ([`Quantity::name`]: value, energy, power,
/// perf-per-watt, busy-mhz, sched-p50 ... sched-p99.9 (wake-up latency of all tasks, us),
/// runqueue-p*, wakeup-p* and request-p* (the workload's own samples, schbench's), rps), or
/// `latency`: per task name, like `perf sched latency`, wake-up latency and runqueue wait
/// (average, percentiles, maximum) and the workload's own latency percentiles, per variant and
/// swept value over its runs.
#[derive(Clone, Copy)]
enum Report {
    Latency,
    Table(Quantity),
}

fn parse_report(s: &str) -> Result<Report, String> {
    if s == "latency" {
        return Ok(Report::Latency);
    }
    Quantity::from_name(s).map(Report::Table).ok_or_else(|| {
        let names: Vec<&str> = Quantity::ALL.iter().map(|q| q.name()).collect();
        format!("one of latency, {}", names.join(", "))
    })
}

#[derive(Subcommand)]
enum Command {
    /// Machine presets, baselines, patches and built-in scenarios.
    List,
    /// The baseline kernels and the version each stands for; `kernels diff A B` prints the switches
    /// two kernels set differently, with the kernel function each models and its versions.
    Kernels {
        #[command(subcommand)]
        cmd: Option<KernelsCmd>,
        #[arg(long, value_enum, default_value = "table")]
        format: ListFormat,
    },
    /// The sched-domain hierarchy of a machine preset under a kernel configuration.
    Domains {
        preset: String,
        #[arg(long, default_value = "v4.16")]
        baseline: String,
        /// A patch to apply (repeatable).
        #[arg(long = "patch")]
        patches: Vec<String>,
        #[arg(long)]
        json: bool,
    },
    /// Run a built-in scenario.
    Reproduce {
        scenario: String,
        #[command(flatten)]
        opts: RunOpts,
    },
    /// Run a scenario file (JSON; see `schedlab show`).
    Run {
        file: String,
        #[command(flatten)]
        opts: RunOpts,
    },
    /// Record one run of a scenario (built-in or file) and print it as ftrace text, or write it
    /// as a Perfetto trace or `trace-cmd report` text for LISA.
    Trace {
        scenario: String,
        #[command(flatten)]
        pick: PickOpts,
        /// `ftrace` (text, with a schedlab header), `perfetto` (protobuf, for ui.perfetto.dev;
        /// needs -o), `trace-cmd` (`trace-cmd report -N -t -R` text with LISA's PELT events).
        #[arg(long, value_enum, default_value = "ftrace")]
        format: TraceFormat,
        /// ftrace: add the PELT, util_est, capacity and overutilized events as `sched_pelt_*`
        /// lines (the trace-cmd and Perfetto formats always have them).
        #[arg(long)]
        pelt: bool,
        /// Write to FILE instead of standard output.
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: Option<String>,
    },
    /// Why one run of a scenario (built-in or file) went as it did: every wake-up placement and every load
    /// balance pass that found an imbalance, with the group statistics it saw.
    Explain {
        scenario: String,
        #[command(flatten)]
        pick: PickOpts,
        /// Include balance passes that found nothing to do.
        #[arg(long)]
        all: bool,
        /// Only decisions involving this CPU.
        #[arg(long)]
        cpu: Option<usize>,
        /// Only decisions of this kind; `freq` (frequency decisions: policy, CPU, util, reference,
        /// requested and delivered frequency, and why) is shown only when asked for.
        #[arg(long)]
        kind: Option<ExplainKind>,
    },
    /// Print a built-in scenario (or a scenario file, `*.json`, in canonical layout) as a JSON file
    /// to edit and `run`, or a machine preset as the machine JSON a scenario can carry.
    Show {
        scenario: String,
        /// Print only the scenario hash that keys its run records (`--format jsonl`): SHA-256
        /// of its canonical JSON, as run with these runs and seed.
        #[arg(long)]
        hash: bool,
        /// Repetitions per cell (overrides the scenario; the hash is of the scenario as run).
        #[arg(long)]
        runs: Option<u32>,
        /// Seed (overrides the scenario).
        #[arg(long)]
        seed: Option<u64>,
    },
    /// Merge run records (`run --shard I/N --format jsonl` parts) into the table one unsharded
    /// run prints; refuses parts of different scenarios, duplicate and missing runs.
    Merge {
        /// Records files (`-` reads standard input).
        #[arg(required = true)]
        parts: Vec<String>,
        #[arg(long, value_enum, default_value = "table")]
        format: Format,
        /// What to tabulate (as `run --report`).
        #[arg(long, value_parser = parse_report)]
        report: Option<Report>,
    },
    /// LISA's scheduler tests (`lisa-*` scenarios, all of them without a name): run each and
    /// print PASS/FAIL per rule with the figures. A FAIL is a result, not an error.
    Check { scenario: Option<String> },
    /// Time a built-in scenario's whole sweep: wall time and simulated CPU-seconds per wall second.
    /// The bench matrix's cells are `bench-<workload>-<cpus>` (`--list` names them).
    Bench {
        #[arg(required_unless_present = "list")]
        scenario: Option<String>,
        #[arg(long)]
        runs: Option<u32>,
        /// Worker threads (default: all cores).
        #[arg(long)]
        jobs: Option<usize>,
        /// `json`: one object (scenario, runs, threads, wall_s, events, sim_ns, busy_cpu_ns), for
        /// `cargo xtask bench`.
        #[arg(long, value_enum, default_value = "table")]
        format: ListFormat,
        /// Print the bench matrix's scenario names, one a line, and stop.
        #[arg(long)]
        list: bool,
        /// Build the plan and stop before the first run: the process's fixed cost, which
        /// `cargo xtask bench` subtracts from a callgrind count of the whole command.
        #[arg(long)]
        dry_run: bool,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum TraceFormat {
    Ftrace,
    Perfetto,
    TraceCmd,
}

#[derive(Clone, Copy, ValueEnum)]
enum ListFormat {
    Table,
    Json,
}

#[derive(Subcommand)]
enum KernelsCmd {
    /// The switches A and B set differently. Each is a baseline (`v5.2`), a baseline with patches
    /// (`v6.7+util-shr-bound`), or a scenario's variant (`juno-use-all-littles:v6.7`,
    /// `my.json:NAME`).
    Diff {
        a: String,
        b: String,
        #[arg(long, value_enum, default_value = "table")]
        format: ListFormat,
    },
}

/// Which run to record: its plan index in the scenario as run with these runs and seed.
#[derive(clap::Args)]
struct PickOpts {
    /// Run index (see the order in `Plan::run_ref`: parameter, then repetition, then variant).
    #[arg(long, default_value_t = 0)]
    run: usize,
    /// Repetitions per cell (overrides the scenario): the index counts in a plan of this size,
    /// so a run of `reproduce --runs N` is traced with the same `--runs N`.
    #[arg(long)]
    runs: Option<u32>,
    /// Seed (overrides the scenario).
    #[arg(long)]
    seed: Option<u64>,
}

#[derive(clap::Args)]
struct RunOpts {
    /// Repetitions per cell (overrides the scenario).
    #[arg(long)]
    runs: Option<u32>,
    /// Seed (overrides the scenario).
    #[arg(long)]
    seed: Option<u64>,
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
    /// What to tabulate: the workload's metric, package energy or average package power (cores and
    /// uncore of all packages, over the measured interval), or performance per watt.
    /// `reproduce` without it prints the metric and then what the experiment's cover letter
    /// reported (E2: package power and performance per watt). Latency: `latency` (per task
    /// name), sched-p99 / runqueue-p99 (all tasks; also -p50, -p90, -p99.9), wakeup-p99 /
    /// request-p99 / rps (schbench's own figures).
    #[arg(long, value_parser = parse_report)]
    report: Option<Report>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    jobs: Option<usize>,
    /// Run only shard I of N (`I/N`, from 0): the runs whose index % N == I, written as run
    /// records (`--format jsonl`) for `schedlab merge`.
    #[arg(long)]
    shard: Option<String>,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    match run(cli.command) {
        Ok(out) => {
            // A reader that stops early (`| head`) is not an error.
            use std::io::Write;
            match std::io::stdout().lock().write_all(out.as_bytes()) {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    eprintln!("schedlab: cannot write the output: {e}");
                    ExitCode::FAILURE
                }
                _ => ExitCode::SUCCESS,
            }
        }
        Err(e) => {
            eprintln!("schedlab: {e}");
            match e {
                Failure::Interrupted { .. } => ExitCode::from(130),
                Failure::Run(_) | Failure::Panicked { .. } => ExitCode::FAILURE,
            }
        }
    }
}

/// A command line clap rejects, said once on one line like every other error (clap's own text
/// adds "error: ", a usage block and a tip); `--help` and `--version` print as clap prints them.
fn usage_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind as K;
    if matches!(
        e.kind(),
        K::DisplayHelp | K::DisplayVersion | K::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        e.exit();
    }
    let text = e.render().to_string();
    let first = text.lines().next().unwrap_or("bad command line");
    let first = first.strip_prefix("error: ").unwrap_or(first);
    eprintln!("schedlab: {first} (see --help)");
    ExitCode::from(2)
}

fn run(cmd: Command) -> Result<String, Failure> {
    match cmd {
        Command::List => Ok(list()),
        Command::Kernels { cmd: None, format } => {
            Ok(kernels::list(matches!(format, ListFormat::Json)))
        }
        Command::Kernels {
            cmd: Some(KernelsCmd::Diff { a, b, format }),
            format: outer,
        } => {
            let a = kernels::resolve(&a, load_scenario)?;
            let b = kernels::resolve(&b, load_scenario)?;
            let json = matches!(format, ListFormat::Json) || matches!(outer, ListFormat::Json);
            Ok(kernels::diff(&a, &b, json))
        }
        Command::Domains {
            preset,
            baseline,
            patches,
            json,
        } => {
            let topo = topology::Topology::build(&topology::presets::preset(&preset)?)?;
            let config =
                kernel::build_config(&baseline, &patches, None, kernel::Governor::Schedutil)?;
            let sd = SchedDomains::build(&topo, &config)?;
            let view = sd.view(&topo);
            Ok(if json {
                format!("{}\n", serde_json::to_string_pretty(&view).unwrap())
            } else {
                format!(
                    "{}{}{}",
                    view.to_text(),
                    schedlab_core::cpufreq::rate_limits_text(&topo, &config),
                    schedlab_core::sched::eas::status_text(&topo, &sd, &config)
                )
            })
        }
        Command::Reproduce { scenario, opts } => {
            // A suite prints one table per member; as JSON, an array of tables.
            let members = match schedlab_core::check::scenario(&scenario) {
                Some(s) => vec![s?],
                None => scenarios::expand(&scenario)?,
            };
            if members.len() > 1 && opts.shard.is_some() {
                // One records file is one scenario's: `merge` takes the parts of one.
                let names: Vec<&str> = members.iter().map(|m| m.name.as_str()).collect();
                return Err(Error::Scenario(format!(
                    "'{scenario}' is a suite: shard each member on its own (schedlab show MEMBER > m.json; \
                     schedlab run m.json --shard I/N --format jsonl); its members: {}",
                    names.join(", ")
                ))
                .into());
            }
            let mut out = Vec::new();
            for s in members {
                let extra = scenarios::cover_letter_reports(&s.name);
                out.push(execute_reports(s, &opts, extra)?);
            }
            if out.len() == 1 {
                return Ok(out.pop().unwrap());
            }
            Ok(match opts.format {
                Format::Json => format!("[\n{}]\n", out.join(",\n")),
                // Each member's records file, header first, one after the other (the raw data;
                // `merge` takes one scenario's parts, so a suite does not shard).
                Format::Jsonl => out.concat(),
                _ => out.join("\n"),
            })
        }
        Command::Run { file, opts } => execute(read_scenario(&file)?, &opts),
        Command::Trace {
            scenario,
            pick,
            format,
            pelt,
            output,
        } => {
            let file = match format {
                TraceFormat::Ftrace => None,
                TraceFormat::Perfetto => Some(FileFormat::Perfetto),
                TraceFormat::TraceCmd => Some(FileFormat::TraceCmd),
            };
            let bytes = match file {
                None => {
                    let t = traced_with(&scenario, &pick, pelt)?;
                    format!(
                        "{}{}",
                        trace_header(&scenario, pick.run, &t),
                        t.to_text(TextStyle::Ftrace, pelt)
                    )
                    .into_bytes()
                }
                Some(f) => trace_file(&picked_plan(&scenario, &pick)?, pick.run, f)?,
            };
            write_trace(output.as_deref(), format, &bytes);
            Ok(String::new())
        }
        Command::Explain {
            scenario,
            pick,
            all,
            cpu,
            kind,
        } => {
            let t = traced(&scenario, &pick)?;
            Ok(format!(
                "{}{}",
                trace_header(&scenario, pick.run, &t),
                t.explain(all, cpu, kind.map(ExplainKind::kind))
            ))
        }
        Command::Show {
            scenario,
            hash,
            runs,
            seed,
        } => {
            let mut s = match load_scenario(&scenario) {
                Ok(s) => s,
                // A machine preset prints as the MachineSpec a scenario's "machine" can hold.
                Err(e) if !hash => match topology::presets::preset(&scenario) {
                    Ok(m) => return Ok(format!("{}\n", serde_json::to_string_pretty(&m).unwrap())),
                    Err(_) => return Err(e.into()),
                },
                Err(e) => return Err(e.into()),
            };
            if let Some(r) = runs {
                s.runs = r;
            }
            if let Some(seed) = seed {
                s.seed = seed;
            }
            Ok(if hash {
                format!("{}\n", records::scenario_hash(&s))
            } else {
                format!("{}\n", s.to_json())
            })
        }
        Command::Merge {
            parts,
            format,
            report,
        } => {
            let mut texts = Vec::with_capacity(parts.len());
            for p in &parts {
                let text = if p == "-" {
                    std::io::read_to_string(std::io::stdin())
                } else {
                    std::fs::read_to_string(p)
                };
                texts.push(text.map_err(|e| Error::Scenario(format!("cannot read {p}: {e}")))?);
            }
            let named: Vec<(&str, &str)> = parts
                .iter()
                .map(String::as_str)
                .zip(texts.iter().map(String::as_str))
                .collect();
            let merged = records::merge(&named)?;
            Ok(render(
                &merged.plan,
                &merged.results,
                None,
                format,
                report,
                &[],
            ))
        }
        Command::Check { scenario } => {
            let names = match scenario {
                Some(n) => vec![n],
                None => schedlab_core::check::scenario_names(),
            };
            let mut out = String::new();
            for n in names {
                let plan = Plan::new(&load_scenario(&n)?)?;
                let lines = schedlab_core::check::check(&plan)?.ok_or_else(|| {
                    Error::Scenario(format!(
                        "'{n}' is not a LISA scenario (schedlab list shows the lisa-* ones)"
                    ))
                })?;
                out.push_str(&format!("{n}\n"));
                for l in &lines {
                    out.push_str(&format!("  {}\n", l.to_text()));
                }
            }
            Ok(out)
        }
        Command::Bench {
            scenario,
            runs,
            jobs,
            format,
            list,
            dry_run,
        } => {
            if list {
                return Ok(schedlab_core::bench::names()
                    .iter()
                    .map(|n| format!("{n}\n"))
                    .collect());
            }
            let scenario = scenario.unwrap_or_default();
            let mut s = load_scenario(&scenario)?;
            if let Some(r) = runs {
                s.runs = r;
            }
            let plan = Plan::new(&s)?;
            let threads = jobs.unwrap_or_else(default_jobs);
            let t0 = Instant::now();
            let results = if dry_run {
                Vec::new()
            } else {
                run_all(&plan, jobs)?
            };
            let wall = t0.elapsed().as_secs_f64();
            let busy: u64 = results.iter().map(|r| r.busy_cpu_ns).sum();
            let sim: u64 = results.iter().map(|r| r.sim_ns).sum();
            let events: u64 = results.iter().map(|r| r.events).sum();
            let runs = results.len();
            Ok(match format {
                ListFormat::Json => format!(
                    "{}\n",
                    serde_json::json!({
                        "scenario": scenario,
                        "runs": runs,
                        "threads": threads,
                        "wall_s": wall,
                        "events": events,
                        "sim_ns": sim,
                        "busy_cpu_ns": busy,
                    })
                ),
                ListFormat::Table => format!(
                    "{scenario}: {runs} runs on {threads} threads in {wall:.3} s wall\n\
                     simulated: {:.1} s of machine time, {:.1} CPU-seconds busy, {events} events\n\
                     {:.0} simulated CPU-seconds per wall second, {:.1} M events per wall second\n",
                    sim as f64 / 1e9,
                    busy as f64 / 1e9,
                    busy as f64 / 1e9 / wall,
                    events as f64 / 1e6 / wall,
                ),
            })
        }
    }
}

/// Writes a trace to `path` (None: standard output, which a binary Perfetto trace never goes to
/// when it is a terminal). A write error ends the process: it is the CLI's, not a scenario's.
fn write_trace(path: Option<&str>, format: TraceFormat, bytes: &[u8]) {
    use std::io::{IsTerminal, Write};
    let fail = |m: String| -> ! {
        eprintln!("schedlab: {m}");
        std::process::exit(1)
    };
    match path {
        Some(path) => {
            if let Err(e) = std::fs::write(path, bytes) {
                fail(format!("cannot write {path}: {e}"));
            }
        }
        None => {
            let mut out = std::io::stdout().lock();
            if format == TraceFormat::Perfetto && out.is_terminal() {
                fail("a Perfetto trace is binary: write it to a file with -o FILE".into());
            }
            match out.write_all(bytes) {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    fail(format!("cannot write the output: {e}"))
                }
                _ => {}
            }
        }
    }
}

/// A built-in scenario by name, or a scenario file by path (anything ending in `.json`).
fn load_scenario(name_or_path: &str) -> Result<Scenario, Error> {
    if name_or_path.ends_with(".json") {
        read_scenario(name_or_path)
    } else if let Some(s) = schedlab_core::check::scenario(name_or_path) {
        s
    } else if let Some(s) = schedlab_core::bench::scenario(name_or_path) {
        s
    } else {
        scenarios::builtin(name_or_path)
    }
}

/// A scenario file. Its errors name the file once, inside the error's own kind
/// ("invalid scenario: FILE: not valid JSON ..."), never as a second prefix.
fn read_scenario(path: &str) -> Result<Scenario, Error> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::Scenario(format!("cannot read {path}: {e}")))?;
    Scenario::from_json(&text).map_err(|e| match e {
        Error::Scenario(m) => Error::Scenario(format!("{path}: {m}")),
        other => other,
    })
}

fn traced(scenario: &str, pick: &PickOpts) -> Result<schedlab_core::experiment::RunTrace, Error> {
    traced_with(scenario, pick, false)
}

/// [`traced`], with the signal events when `signals`.
fn traced_with(
    scenario: &str,
    pick: &PickOpts,
    signals: bool,
) -> Result<schedlab_core::experiment::RunTrace, Error> {
    picked_plan(scenario, pick)?.run_traced_with(pick.run, signals)
}

/// The plan of `scenario` with the pick's runs and seed.
fn picked_plan(scenario: &str, pick: &PickOpts) -> Result<Plan, Error> {
    let mut s = load_scenario(scenario)?;
    if let Some(runs) = pick.runs {
        s.runs = runs;
    }
    if let Some(seed) = pick.seed {
        s.seed = seed;
    }
    Plan::new(&s)
}

fn trace_header(scenario: &str, run: usize, t: &schedlab_core::experiment::RunTrace) -> String {
    format!(
        "# {scenario} run {run}: variant {}, param {}, repetition {}, seed {}: value {}\n# counters: {}\n",
        t.variant,
        t.param,
        t.result.repetition,
        t.result.seed,
        t.result.value,
        serde_json::to_string(&t.result.counters).unwrap()
    )
}

fn default_jobs() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

/// Runs every run of the plan on `jobs` threads (a progress bar on a terminal, Ctrl-C stops).
fn run_all(plan: &Plan, jobs: Option<usize>) -> Result<Vec<RunResult>, Failure> {
    let all: Vec<usize> = (0..plan.len()).collect();
    run_indices(plan, &all, jobs)
}

/// Runs the given runs of the plan (ascending indices), as [`run_all`].
fn run_indices(
    plan: &Plan,
    indices: &[usize],
    jobs: Option<usize>,
) -> Result<Vec<RunResult>, Failure> {
    progress::run_indices(plan, indices, jobs.unwrap_or_else(default_jobs))
}

fn execute(scenario: Scenario, opts: &RunOpts) -> Result<String, Failure> {
    execute_reports(scenario, opts, &[])
}

/// Runs a scenario and tables it as `--report` says; without `--report`, the metric and then
/// each of `extra` (as text only: JSON and CSV stay one table).
fn execute_reports(
    mut scenario: Scenario,
    opts: &RunOpts,
    extra: &[Quantity],
) -> Result<String, Failure> {
    if let Some(r) = opts.runs {
        scenario.runs = r;
    }
    if let Some(s) = opts.seed {
        scenario.seed = s;
    }
    let shard = opts
        .shard
        .as_deref()
        .map(records::Shard::parse)
        .transpose()?;
    if shard.is_some() && !matches!(opts.format, Format::Jsonl) {
        return Err(Error::Scenario(
            "--shard writes run records: add --format jsonl (and `schedlab merge` the parts)"
                .into(),
        )
        .into());
    }
    let plan = Plan::new(&scenario)?;
    let results = match shard {
        Some(sh) => run_indices(&plan, &sh.runs(plan.len()).collect::<Vec<_>>(), opts.jobs)?,
        None => run_all(&plan, opts.jobs)?,
    };
    Ok(render(
        &plan,
        &results,
        shard,
        opts.format,
        opts.report,
        extra,
    ))
}

/// The output of a plan's runs in `format`: run records, or the table of `report` (without one,
/// the metric and then each of `extra`, as text only).
fn render(
    plan: &Plan,
    results: &[RunResult],
    shard: Option<records::Shard>,
    format: Format,
    report: Option<Report>,
    extra: &[Quantity],
) -> String {
    if let (Some(Report::Latency), false) = (report, matches!(format, Format::Jsonl)) {
        return latency_text(plan, results);
    }
    let quantity = match report {
        Some(Report::Table(q)) => q,
        None | Some(Report::Latency) => Quantity::Value,
    };
    let table = plan.table_of(results, quantity);
    match format {
        Format::Table => {
            let mut text = format!("{}{}", table.to_text(), table.extras_text());
            if report.is_none() {
                for &q in extra {
                    text.push('\n');
                    text.push_str(&plan.table_of(results, q).to_text());
                }
            }
            text
        }
        Format::Mmtests => {
            let mut text = plan.mmtests_text(&table);
            if report.is_none() {
                for &q in extra {
                    text.push('\n');
                    text.push_str(&plan.mmtests_text(&plan.table_of(results, q)));
                }
            }
            text
        }
        Format::Json => format!("{}\n", serde_json::to_string_pretty(&table).unwrap()),
        Format::Csv => table.to_csv(),
        Format::Jsonl => records::to_jsonl(plan, shard, results),
    }
}

/// `--report latency`: one table per variant and swept value, its runs' samples merged.
fn latency_text(plan: &Plan, results: &[RunResult]) -> String {
    let mut out = String::new();
    for (pi, param) in plan.params.iter().enumerate() {
        for (vi, v) in plan.variants.iter().enumerate() {
            let mut merged = schedlab_core::latency::LatencyReport::default();
            let mut runs = 0;
            for r in results
                .iter()
                .filter(|r| r.param_index == pi && r.variant == vi)
            {
                merged.merge(&r.latency);
                runs += 1;
            }
            let sweep = if plan.scenario.sweep.is_some() {
                format!(", {} {param}", plan.param_name)
            } else {
                String::new()
            };
            out.push_str(&format!(
                "{}: {}{sweep} ({runs} runs): scheduling latency per task name\n",
                plan.scenario.name, v.name
            ));
            out.push_str(&merged.to_text());
            out.push('\n');
        }
    }
    out
}

fn list() -> String {
    let mut s = String::from("machine presets:\n");
    for (name, summary) in topology::presets::NAMES
        .iter()
        .zip(topology::presets::SUMMARIES)
    {
        s.push_str(&format!("  {name:<20} {summary}\n"));
    }
    s.push_str("baseline kernels (details: schedlab kernels):\n");
    for b in kernel::BASELINES {
        s.push_str(&format!("  {:<20} {}\n", b.name, b.summary));
    }
    s.push_str("patches:\n");
    for p in kernel::PATCHES {
        s.push_str(&format!(
            "  {:<20} {}\n  {:<20} ({})\n  {:<20} changes: {}\n",
            p.name, p.title, "", p.origin, "", p.changes
        ));
    }
    s.push_str("scenarios:\n");
    for b in scenarios::BUILTIN {
        s.push_str(&format!("  {:<26} {}\n", b.name, b.title));
    }
    s.push_str("LISA's scheduler tests (schedlab check):\n");
    for name in schedlab_core::check::scenario_names() {
        s.push_str(&format!("  {name}\n"));
    }
    s.push_str("suites (several scenarios, one experiment):\n");
    for (name, members) in scenarios::SUITES {
        s.push_str(&format!("  {:<26} {}\n", name, members.join(", ")));
    }
    s
}
