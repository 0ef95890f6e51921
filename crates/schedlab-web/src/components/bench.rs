//! Where the in-browser benchmark reports (`?bench=1` or `window.schedlabBench()`).

use yew::prelude::*;

#[derive(Debug, Clone, PartialEq)]
pub enum BenchState {
    Idle,
    Running,
    Done {
        runs: usize,
        elapsed_ms: f64,
        busy_cpu_ns: u64,
    },
    Failed(String),
}

#[derive(Properties, PartialEq)]
pub struct BenchProps {
    pub state: BenchState,
}

#[component]
pub fn BenchResult(props: &BenchProps) -> Html {
    match &props.state {
        BenchState::Idle => html! { <span id="bench-result" data-state="idle"></span> },
        BenchState::Running => html! {
            <span id="bench-result" data-state="running">{"benchmark running…"}</span>
        },
        BenchState::Done {
            runs,
            elapsed_ms,
            busy_cpu_ns,
        } => {
            let cpu_s_per_s = *busy_cpu_ns as f64 / 1e9 / (elapsed_ms / 1e3);
            html! {
                <span id="bench-result" data-state="done" data-runs={runs.to_string()}
                    data-elapsed-ms={format!("{elapsed_ms}")}
                    data-cpu-s-per-s={format!("{cpu_s_per_s}")}>
                    { format!("benchmark: {runs} runs in {:.0} ms, {:.1} simulated CPU-s per wall s",
                        elapsed_ms, cpu_s_per_s) }
                </span>
            }
        }
        BenchState::Failed(e) => html! {
            <span id="bench-result" data-state="failed">{ format!("benchmark failed: {e}") }</span>
        },
    }
}
