//! Running a plan's runs on all cores, with a progress bar on a terminal and a clean stop on
//! Ctrl-C.
//!
//! The bar (runs done / total, ETA) is drawn on stderr only when stderr is a terminal
//! (`std::io::IsTerminal`): piped or redirected, the CLI prints nothing but its result and its
//! errors. Ctrl-C is taken the way the page's Cancel is (the job worker looks for a cancel
//! between runs): no new run starts, the runs in progress finish, and the command says how many
//! runs finished. A second Ctrl-C quits at once.

use schedlab_core::experiment::{Plan, RunResult};
use schedlab_core::Error;
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, Once};
use std::time::{Duration, Instant};

/// Set by Ctrl-C; the workers look at it before taking the next run.
static CANCEL: AtomicBool = AtomicBool::new(false);

/// A run loop that did not give a table.
#[derive(Debug)]
pub enum Failure {
    /// A run failed (the lowest-indexed failure).
    Run(Error),
    /// Ctrl-C: `done` of `total` runs had finished.
    Interrupted { done: usize, total: usize },
    /// The simulation of run `run` panicked (a bug: the core returns errors as values). The
    /// other runs stop being handed out, as on Ctrl-C; the lowest-indexed panic is the one told.
    Panicked { run: usize, message: String },
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        Failure::Run(e)
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Run(e) => e.fmt(f),
            Failure::Interrupted { done, total } => {
                write!(f, "interrupted: {done} of {total} runs finished")
            }
            Failure::Panicked { run, message } => write!(
                f,
                "run {run} stopped on an internal error ({message}): this is a bug in schedlab; \
                 please report it with the scenario and the run index (`schedlab trace SCENARIO \
                 --run {run}`, with the same --runs and --seed, repeats it alone)"
            ),
        }
    }
}

/// Installs the Ctrl-C handler (once per process).
fn install_handler() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // Without a handler (no signal support) Ctrl-C keeps its default: the process ends.
        let _ = ctrlc::set_handler(|| {
            if CANCEL.swap(true, Ordering::SeqCst) {
                std::process::exit(130);
            }
            // Over the bar's line where there is one.
            let clear = if std::io::stderr().is_terminal() {
                "\r\x1b[K"
            } else {
                ""
            };
            eprintln!(
                "{clear}schedlab: stopping after the runs in progress (Ctrl-C again to quit now)"
            );
        });
    });
}

fn fmt_secs(s: f64) -> String {
    let s = s.max(0.0).round() as u64;
    if s >= 3600 {
        format!("{}h{:02}m", s / 3600, s / 60 % 60)
    } else if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
}

/// One line of the bar: `[#####.....] 12/40 runs, 3.1 s, ETA 8s`.
pub fn bar_line(done: usize, total: usize, elapsed: f64) -> String {
    const W: usize = 30;
    let filled = (done * W).checked_div(total).unwrap_or(W);
    let eta = if done == 0 {
        "ETA -".to_string()
    } else {
        format!(
            "ETA {}",
            fmt_secs(elapsed / done as f64 * (total - done) as f64)
        )
    };
    format!(
        "[{}{}] {done}/{total} runs, {}, {eta}",
        "#".repeat(filled),
        ".".repeat(W - filled),
        fmt_secs(elapsed)
    )
}

/// Runs the given runs of the plan (ascending indices: all of them, or a shard's) on `jobs`
/// threads; results come back in index order, and a failure is the lowest-indexed run's,
/// whichever thread got there first.
pub fn run_indices(plan: &Plan, indices: &[usize], jobs: usize) -> Result<Vec<RunResult>, Failure> {
    run_each(indices, jobs, |i| plan.run(i))
}

/// [`run_indices`] with the run given as `run`.
fn run_each(
    indices: &[usize],
    jobs: usize,
    run: impl Fn(usize) -> Result<RunResult, Error> + Sync,
) -> Result<Vec<RunResult>, Failure> {
    install_handler();
    let total = indices.len();
    let jobs = jobs.clamp(1, 64);
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let finished = AtomicBool::new(false);
    let results: Mutex<Vec<(usize, Result<RunResult, Error>)>> =
        Mutex::new(Vec::with_capacity(total));
    // The lowest-indexed run that panicked, and its message.
    let panicked: Mutex<Option<(usize, String)>> = Mutex::new(None);
    let stop = AtomicBool::new(false);
    let show = std::io::stderr().is_terminal() && total > 1;
    let t0 = Instant::now();
    let work = || loop {
        if CANCEL.load(Ordering::SeqCst) || stop.load(Ordering::SeqCst) {
            break;
        }
        let k = next.fetch_add(1, Ordering::Relaxed);
        let Some(&i) = indices.get(k) else {
            break;
        };
        // A panic is caught here so that it ends the command with the run named, rather than
        // ending one thread and leaving the table a run short. (The panic hook has already
        // printed where it happened.) Nothing the closure touched outlives the run but `results`,
        // which is not locked while it runs.
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(i))) {
            Ok(r) => results.lock().unwrap().push((i, r)),
            Err(payload) => {
                stop.store(true, Ordering::SeqCst);
                let message = payload
                    .downcast_ref::<&str>()
                    .map(|m| m.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a panic without a message".into());
                let mut first = panicked.lock().unwrap();
                if first.as_ref().is_none_or(|(j, _)| i < *j) {
                    *first = Some((i, message));
                }
            }
        }
        done.fetch_add(1, Ordering::Relaxed);
    };
    std::thread::scope(|s| {
        if show {
            s.spawn(|| {
                let mut err = std::io::stderr();
                // Quiet for the first half second: a short command draws nothing.
                let mut drawn = false;
                while !finished.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(100));
                    let elapsed = t0.elapsed().as_secs_f64();
                    if elapsed < 0.5 || finished.load(Ordering::Relaxed) {
                        continue;
                    }
                    let line = bar_line(done.load(Ordering::Relaxed), total, elapsed);
                    let _ = write!(err, "\r\x1b[K{line}");
                    let _ = err.flush();
                    drawn = true;
                }
                if drawn {
                    let _ = write!(err, "\r\x1b[K");
                    let _ = err.flush();
                }
            });
        }
        // The calling thread takes runs too rather than waiting in join(): one thread fewer to
        // start and place (E1's sweep on 2 threads, 8 samples: 0.163-0.182 -> 0.162-0.167 s),
        // and `--jobs 1` spawns none.
        let workers: Vec<_> = (1..jobs).map(|_| s.spawn(work)).collect();
        work();
        for w in workers {
            let _ = w.join();
        }
        finished.store(true, Ordering::Relaxed);
    });
    if let Some((run, message)) = panicked.into_inner().unwrap() {
        return Err(Failure::Panicked { run, message });
    }
    let mut all = results.into_inner().unwrap();
    if CANCEL.load(Ordering::SeqCst) && all.len() < total {
        return Err(Failure::Interrupted {
            done: all.len(),
            total,
        });
    }
    all.sort_by_key(|(i, _)| *i);
    Ok(all
        .into_iter()
        .map(|(_, r)| r)
        .collect::<Result<Vec<_>, Error>>()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bar_counts_runs_and_estimates_the_rest() {
        assert_eq!(
            bar_line(10, 40, 5.0),
            "[#######.......................] 10/40 runs, 5s, ETA 15s"
        );
        assert_eq!(
            bar_line(0, 4, 0.6),
            "[..............................] 0/4 runs, 1s, ETA -"
        );
        assert!(bar_line(1, 100, 100.0).ends_with("ETA 2h45m"));
    }

    /// A run that panics ends the command with that run named (the lowest-indexed of several),
    /// on one thread or many, instead of a table a run short.
    #[test]
    fn a_panicking_run_is_named_not_dropped() {
        let plan = Plan::new(&schedlab_core::scenarios::builtin("hikey960-asym-packing").unwrap())
            .unwrap();
        let indices: Vec<usize> = (0..6).collect();
        for jobs in [1, 3] {
            let got = run_each(&indices, jobs, |i| {
                if i == 2 || i == 4 {
                    panic!("bad state in run {i}");
                }
                plan.run(i)
            });
            match got {
                Err(Failure::Panicked { run, message }) => {
                    assert_eq!(run, 2, "jobs {jobs}");
                    assert_eq!(message, "bad state in run 2");
                }
                other => panic!("jobs {jobs}: {:?}", other.map(|r| r.len())),
            }
        }
        let all = run_each(&indices, 2, |i| plan.run(i)).unwrap();
        assert_eq!(all.iter().map(|r| r.index).collect::<Vec<_>>(), indices);
    }
}
