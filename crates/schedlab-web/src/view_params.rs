//! What the address says about how to look at the results, beside the scenario itself: the run
//! looked at closely (`run=<param>.<variant>.<repetition>`) and what the table reports
//! (`report=energy|perf-per-watt`; the workload's metric when absent). A link with them opens the
//! same view once its table is there. Plain Rust, tested natively; `components::share` reads and
//! writes the address.

use schedlab_core::experiment::Quantity;

use crate::components::report::{report_by_name, report_name};
use crate::runview::RunPick;

/// The query parameter of the picked run.
pub const RUN_KEY: &str = "run";
/// The query parameter of the report.
pub const REPORT_KEY: &str = "report";

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ViewParams {
    pub pick: Option<RunPick>,
    pub report: Quantity,
}

impl Default for ViewParams {
    fn default() -> Self {
        ViewParams {
            pick: None,
            report: Quantity::Value,
        }
    }
}

impl ViewParams {
    /// From the address's query (`get` looks a parameter up); what does not parse is left out.
    pub fn from_query(get: impl Fn(&str) -> Option<String>) -> ViewParams {
        ViewParams {
            pick: get(RUN_KEY).and_then(|t| RunPick::parse(&t)),
            report: get(REPORT_KEY)
                .and_then(|t| report_by_name(&t))
                .unwrap_or(Quantity::Value),
        }
    }

    /// Each parameter's value, `None` for one the address should not carry.
    pub fn pairs(&self) -> [(&'static str, Option<String>); 2] {
        [
            (RUN_KEY, self.pick.map(|p| p.to_param())),
            (
                REPORT_KEY,
                (self.report != Quantity::Value).then(|| report_name(self.report).to_string()),
            ),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(v: ViewParams) -> ViewParams {
        let pairs = v.pairs();
        ViewParams::from_query(|k| {
            pairs
                .iter()
                .find(|(key, _)| *key == k)
                .and_then(|(_, value)| value.clone())
        })
    }

    #[test]
    fn the_view_survives_the_address() {
        let pick = Some(RunPick {
            param_index: 2,
            variant: 1,
            repetition: 0,
        });
        for report in [Quantity::Value, Quantity::Energy, Quantity::PerfPerWatt] {
            let v = ViewParams { pick, report };
            assert_eq!(round_trip(v), v);
        }
        // The default view adds nothing to the address.
        assert!(ViewParams::default()
            .pairs()
            .iter()
            .all(|(_, v)| v.is_none()));
        // What does not parse is the default.
        let odd = ViewParams::from_query(|k| Some(if k == RUN_KEY { "x" } else { "watts" }.into()));
        assert_eq!(odd, ViewParams::default());
    }
}
