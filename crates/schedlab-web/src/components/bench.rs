//! Where the in-browser benchmark reports (`?bench=1` or `window.schedlabBench()`; with a name,
//! `window.schedlabBench('bench-tbench-96')`, the job worker opens that scenario itself). Its
//! `data-job` is the job `schedlabBench()` returned, so a caller running several in turn waits
//! for its own.

use yew::prelude::*;

#[derive(Debug, Clone, PartialEq)]
pub enum BenchState {
    Idle,
    Running,
    Done {
        runs: usize,
        elapsed_ms: f64,
        busy_cpu_ns: u64,
        events: u64,
    },
    Failed(String),
}

#[derive(Properties, PartialEq)]
pub struct BenchProps {
    pub state: BenchState,
    /// The bench job shown (`data-job`: what `window.schedlabBench()` returned).
    pub job: u64,
}

#[component]
pub fn BenchResult(props: &BenchProps) -> Html {
    match &props.state {
        BenchState::Idle => html! { <span id="bench-result" data-state="idle"></span> },
        BenchState::Running => html! {
            <span id="bench-result" data-state="running" data-job={props.job.to_string()}>
                {"benchmark running…"}
            </span>
        },
        BenchState::Done {
            runs,
            elapsed_ms,
            busy_cpu_ns,
            events,
        } => {
            let cpu_s_per_s = *busy_cpu_ns as f64 / 1e9 / (elapsed_ms / 1e3);
            html! {
                <span id="bench-result" data-state="done" data-runs={runs.to_string()}
                    data-job={props.job.to_string()}
                    data-events={events.to_string()}
                    data-busy-cpu-ns={busy_cpu_ns.to_string()}
                    data-elapsed-ms={format!("{elapsed_ms}")}
                    data-cpu-s-per-s={format!("{cpu_s_per_s}")}>
                    { format!("benchmark: {runs} runs in {:.0} ms, {:.1} simulated CPU-s per wall s",
                        elapsed_ms, cpu_s_per_s) }
                </span>
            }
        }
        BenchState::Failed(e) => html! {
            <span id="bench-result" data-state="failed" data-job={props.job.to_string()}>
                { format!("benchmark failed: {e}") }
            </span>
        },
    }
}
