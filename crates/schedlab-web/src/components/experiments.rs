//! The reference experiments E1-E5 (shared/reference/platforms-and-experiments.md), one click
//! away: a button per built-in scenario, and for the loaded one, what patch it shows and what to
//! look at.
//!
//! The explanations are written from that document; numbers are only those it gives.

use schedlab_core::scenarios;
use yew::prelude::*;

/// One reference experiment: its built-in scenarios (`(name, button text)`) and explanations.
pub struct Experiment {
    pub id: &'static str,
    pub title: &'static str,
    pub patch: &'static str,
    pub look_at: &'static str,
    pub scenarios: &'static [(&'static str, &'static str)],
}

pub const EXPERIMENTS: &[Experiment] = &[
    Experiment {
        id: "E1",
        title: "Asym packing for DynamIQ (HiKey960)",
        patch: "The arm64 “support DynamIQ cluster” RFC (March 2018) sets SD_ASYM_PACKING on the MC \
                domain with arch_asym_cpu_priority() = CPU capacity, so an idle big CPU pulls the task \
                of a busy little one.",
        look_at: "Time to finish per thread count: mainline picks big or little CPUs at random while \
                  there are more CPUs than threads (wide spread); the patch uses big CPUs first, faster \
                  and stable; both are equal at 8 threads. The sched domains show SD_ASYM_PACKING at MC \
                  for the patched column only.",
        scenarios: &[("hikey960-asym-packing", "Load E1")],
    },
    Experiment {
        id: "E2",
        title: "x86 frequency invariance (Cascade Lake)",
        patch: "Frequency invariance for x86 (SKYLAKE_X, January 2020, in v5.7): freq_scale from \
                APERF/MPERF against the turbo of the first group of at least 4 active cores (3700 MHz \
                here), clamped to 1024. Compared with schedutil without it and intel_pstate HWP.",
        look_at: "tbench (MB/s), kernbench and gitsource (s): invariance helps most when the machine \
                  is lightly loaded; at saturation all three are equal.",
        scenarios: &[
            ("cascadelake-fi-tbench", "tbench"),
            ("cascadelake-fi-kernbench", "kernbench"),
            ("cascadelake-fi-gitsource", "gitsource"),
        ],
    },
    Experiment {
        id: "E3",
        title: "Asym SMT on POWER9 big cores",
        patch: "CPU_FTR_ASYM_SMT for interleaved big cores (July 2018): SD_ASYM_PACKING at the SMT \
                level, lower thread first, which puts two threads on different small cores. A third \
                column builds the SMT domain from the small core, as later mainline does.",
        look_at: "ebizzy records/s over 100 runs and its histogram: threads that share a small core \
                  contend, threads on different small cores do not.",
        scenarios: &[("power9-bigcore-asym-smt", "Load E3")],
    },
    Experiment {
        id: "E4",
        title: "Asymmetric-capacity wake-up (TC2)",
        patch: "The 2016 series “sched: Clean-ups and asymmetric cpu capacity support”: \
                SD_ASYM_CPUCAPACITY with SD_BALANCE_WAKE below it, wake_cap() (a task that does not fit \
                ~80% of min(capacity(prev), capacity(waker)) takes the slow path), and a \
                spare-capacity-aware find_idlest_group(), against v4.9.",
        look_at: "sysbench events in 3 s (one thread on an A15 at its top OPP does about 217.9); \
                  hackbench on TC2's A7s and on IVB-EP should be neutral; the rt-app mix's wake-up \
                  classification shows where each wake-up went and by which path.",
        scenarios: &[
            ("tc2-wakeup-sysbench", "sysbench"),
            ("tc2-wakeup-hackbench-a7", "hackbench A7"),
            ("ivb-ep-hackbench", "hackbench IVB-EP"),
            ("tc2-wakeup-rtapp", "rt-app"),
        ],
    },
    Experiment {
        id: "E5",
        title: "Use all little CPUs (Juno r2)",
        patch: "“Use all little CPUs for CPU-bound workload” (November 2023): v6.7's detach_tasks() \
                skips a task whose util exceeds the imbalance, so an idle little CPU cannot pull a \
                512-util task. v1 switches to migrate_task; the merged form (v6.8) tests \
                (util >> nr_balance_failed) > imbalance.",
        look_at: "Time until all 6 CPU-bound tasks finish, after a 100 ms pinned step that leaves a \
                  little CPU idle and a big CPU with two tasks: both patches finish sooner.",
        scenarios: &[("juno-use-all-littles", "Load E5")],
    },
    Experiment {
        id: "schbench",
        title: "schbench wake-up latency (Cascade Lake, CFS and EEVDF)",
        patch: "No patch: schbench (message and worker threads), the benchmark recent scheduler \
                patches quote, with its defaults on 96 CPUs, under v5.6 (CFS) and v6.8 (EEVDF).",
        look_at: "Wake-up latency p99 (the message thread's wake to the worker running), request \
                  latency p99, requests per second; the report menu's wake-up latency and runqueue \
                  wait percentiles cover every task.",
        scenarios: &[("cascadelake-schbench", "Load schbench")],
    },
];

#[derive(Properties, PartialEq)]
pub struct ExperimentsProps {
    /// The scenario loaded now (its button is marked).
    pub current: AttrValue,
    pub disabled: bool,
    pub on_load: Callback<String>,
}

/// The experiment a built-in scenario belongs to.
pub fn experiment_of(scenario: &str) -> Option<&'static Experiment> {
    EXPERIMENTS
        .iter()
        .find(|x| x.scenarios.iter().any(|(n, _)| *n == scenario))
}

/// One compact box per experiment (its title and a button per scenario), then what the loaded
/// experiment's patch does and what to look at: the page's first screen keeps room for Run and
/// the table.
#[component]
pub fn ReferenceExperiments(props: &ExperimentsProps) -> Html {
    let current = experiment_of(&props.current);
    let boxes = EXPERIMENTS.iter().map(|x| {
        let buttons = x.scenarios.iter().map(|(name, text)| {
            let on_load = props.on_load.clone();
            let name_s = name.to_string();
            let pressed = props.current == *name;
            let title = scenarios::BUILTIN
                .iter()
                .find(|b| b.name == *name)
                .map(|b| b.title);
            html! {
                <button type="button" id={format!("load-{name}")}
                    class={classes!(if pressed { "current" } else { "secondary" }, "small")}
                    aria-pressed={pressed.to_string()} title={title} disabled={props.disabled}
                    onclick={Callback::from(move |_: MouseEvent| on_load.emit(name_s.clone()))}>
                    { *text }
                </button>
            }
        });
        let is_current = current.is_some_and(|c| c.id == x.id);
        html! {
            <article class={classes!("experiment", is_current.then_some("current"))}
                id={format!("experiment-{}", x.id)}>
                <h3><span class="xid">{ x.id }</span>{ x.title }</h3>
                <div class="experiment-buttons">{ for buttons }</div>
            </article>
        }
    });
    html! {
        <>
        <div class="experiments" id="experiments">{ for boxes }</div>
        if let Some(x) = current {
            <div class="experiment-about" id="experiment-about" data-experiment={x.id}>
                <p><b>{ format!("{}, the patch: ", x.id) }</b>{ x.patch }</p>
                <p><b>{"Look at: "}</b>{ x.look_at }</p>
            </div>
        } else {
            <p class="hint" id="experiment-about">{"This scenario is not one of the reference experiments; load one above to compare with it."}</p>
        }
        </>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_experiment_loads_a_builtin_and_every_builtin_is_reachable() {
        for x in EXPERIMENTS {
            for (name, _) in x.scenarios {
                scenarios::builtin(name).unwrap_or_else(|e| panic!("{}: {e}", x.id));
            }
        }
        assert_eq!(experiment_of("tc2-wakeup-rtapp").map(|x| x.id), Some("E4"));
        assert!(experiment_of("my-own").is_none());
        for b in scenarios::BUILTIN {
            assert!(
                EXPERIMENTS
                    .iter()
                    .any(|x| x.scenarios.iter().any(|(n, _)| *n == b.name)),
                "{} has no button",
                b.name
            );
        }
    }
}
