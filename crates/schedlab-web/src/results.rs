//! The results of a job as the page draws them, built in the job worker from the core's
//! [`ComparisonTable`]: the table's view model, the plotly figures (means, every run, histogram)
//! as JSON text, the wake-up classification rows, and the results files. The page's wasm only
//! renders these; it never decodes a `ComparisonTable`, builds a figure or formats a file, which
//! keeps that code (and serde_json's `Value` machinery) out of its bundle.
//!
//! While a job runs, the worker sends only the table and the means chart ([`ResultsVm::running`]);
//! the table at a job's end, cancel or failure, and every re-table, also carry the per-run views
//! and the files ([`ResultsVm::finished`]): the page draws those only once a job has stopped.

use schedlab_core::experiment::{Plan, RunResult, Scenario};
use schedlab_core::records;
use schedlab_core::table::{ComparisonTable, WakeClassCount};
use serde::{Deserialize, Serialize};

use crate::charts;
use crate::export;
use crate::viewmodel::TableVm;

/// What the page shows of a job's table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultsVm {
    pub table: TableVm,
    /// The means chart (`TableVm::figure`) as plotly JSON.
    pub means_figure: String,
    /// The views of a stopped job; `None` in the tables sent while it runs.
    pub finished: Option<FinishedVm>,
}

/// The per-run views and the files of a job that stopped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FinishedVm {
    /// The strip chart (`charts::distribution_figure`) as plotly JSON.
    pub strip_figure: String,
    /// The strip chart shows every `strip_every`-th repetition.
    pub strip_every: usize,
    /// The histogram section (`charts::histogram_figure`), when the table has one.
    pub histogram_figure: Option<String>,
    /// The table's wake-up classification section (empty when it has none).
    pub wake_classes: Vec<WakeClassCount>,
    /// The job's scenario as `schedlab show` prints it (`export::scenario_json`).
    pub scenario_file: String,
    /// `schedlab run --format json` of these runs (`export::results_json`).
    pub results_json: String,
    /// `schedlab run --format csv` (`export::results_csv`).
    pub results_csv: String,
    /// `schedlab run --format jsonl`: the runs' records (`records::to_jsonl`), empty until
    /// [`ResultsVm::with_records`] adds them.
    #[serde(default)]
    pub results_jsonl: String,
}

impl ResultsVm {
    /// A table of a running job: the table and its means chart.
    pub fn running(table: &ComparisonTable) -> ResultsVm {
        let vm = TableVm::new(table);
        let means_figure = vm.figure().to_string();
        ResultsVm {
            table: vm,
            means_figure,
            finished: None,
        }
    }

    /// A table of a stopped job, with the per-run views (`scenario` places each run's point at
    /// its plan index) and the files.
    pub fn finished(table: &ComparisonTable, scenario: &Scenario) -> ResultsVm {
        let (strip, strip_every) = charts::distribution_figure(table, scenario);
        ResultsVm {
            finished: Some(FinishedVm {
                strip_figure: strip.to_string(),
                strip_every,
                histogram_figure: charts::histogram_figure(table).map(|f| f.to_string()),
                wake_classes: table.wake_classes.clone(),
                scenario_file: export::scenario_json(scenario),
                results_json: export::results_json(table),
                results_csv: export::results_csv(table),
                results_jsonl: String::new(),
            }),
            ..ResultsVm::running(table)
        }
    }

    /// A stopped job's results with its runs' records file (what `schedlab run --format jsonl`
    /// prints for them: the same core function).
    pub fn with_records(mut self, plan: &Plan, results: &[RunResult]) -> ResultsVm {
        if let Some(f) = &mut self.finished {
            f.results_jsonl = records::to_jsonl(plan, None, results);
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol;
    use schedlab_core::scenarios;

    #[test]
    fn the_results_carry_the_cores_table_files_and_figures_across() {
        let mut s = scenarios::builtin("power9-bigcore-asym-smt").unwrap();
        s.runs = 2;
        let plan = Plan::new(&s).unwrap();
        let results: Vec<_> = (0..plan.len()).map(|i| plan.run(i).unwrap()).collect();
        let table = plan.table(&results);
        let vm = ResultsVm::finished(&table, &s).with_records(&plan, &results);
        let back: ResultsVm = protocol::decode(&protocol::encode(&vm)).unwrap();
        assert_eq!(back, vm);
        assert_eq!(back.table, TableVm::new(&table));
        let f = back.finished.as_ref().unwrap();
        assert_eq!(f.results_csv, table.to_csv());
        assert_eq!(f.results_json, export::results_json(&table));
        assert_eq!(f.results_jsonl, records::to_jsonl(&plan, None, &results));
        let merged = records::merge(&[("page", &f.results_jsonl)]).unwrap();
        assert_eq!(merged.plan.table(&merged.results), table);
        assert_eq!(f.wake_classes, table.wake_classes);
        assert_eq!(f.scenario_file, format!("{}\n", s.to_json()));
        assert_eq!(f.strip_every, 1);
        let strip: serde_json::Value = serde_json::from_str(&f.strip_figure).unwrap();
        assert_eq!(strip, charts::distribution_figure(&table, &s).0);
        let means: serde_json::Value = serde_json::from_str(&back.means_figure).unwrap();
        assert_eq!(means, TableVm::new(&table).figure());
        assert!(f.histogram_figure.is_some(), "E3 has a histogram");
        // A running job's table has no per-run views yet.
        let running = ResultsVm::running(&table);
        assert!(running.finished.is_none());
        assert_eq!(running.table, vm.table);
    }
}
