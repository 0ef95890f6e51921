//! The run-detail panel's state: which run is shown, the requests in flight to the detail worker,
//! and what came back. Plain Rust, tested natively; the component turns user input and worker
//! messages into [`DetailAction`]s and sends the requests [`DetailState::apply`] returns.

use std::rc::Rc;

use crate::protocol::{self, FromWorker, ToWorker};
use crate::runview::{DecisionPageVm, DecisionQuery, RunDetailVm, RunPick};
use schedlab_core::trace::file::FileFormat;

#[derive(Debug, Clone, PartialEq)]
pub enum DetailPhase {
    Idle,
    Tracing,
    Ready,
    Failed(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct DetailState {
    /// The last request id used; answers to older requests are dropped.
    pub last_job: u64,
    pub trace_job: u64,
    pub page_job: u64,
    pub ftrace_job: u64,
    pub pick: Option<RunPick>,
    pub phase: DetailPhase,
    pub detail: Option<Rc<RunDetailVm>>,
    pub query: DecisionQuery,
    pub page: Option<Rc<DecisionPageVm>>,
    /// A page request is in flight.
    pub paging: bool,
    /// An ftrace export is being prepared.
    pub exporting: bool,
    /// The file request in flight is for the Perfetto UI.
    pub file_open: bool,
}

pub enum DetailAction {
    /// Trace this run of this scenario (JSON).
    Trace {
        scenario_json: String,
        pick: RunPick,
    },
    Query(DecisionQuery),
    Ftrace,
    /// The run as a file in this format; `open`: for the Perfetto UI, not to save.
    TraceFile {
        format: FileFormat,
        open: bool,
    },
    Worker(FromWorker),
    /// The worker crashed while on request `job`.
    Crashed {
        job: u64,
        message: String,
    },
}

/// What the state asks the component to do after an action.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    Send(ToWorker),
    /// Offer this ftrace text as a file.
    SaveFtrace(String),
    /// Offer these bytes as a file in `format`.
    SaveFile {
        format: FileFormat,
        bytes: Vec<u8>,
    },
    /// Hand this Perfetto trace to the Perfetto UI window the click opened.
    OpenPerfetto(Vec<u8>),
}

impl Default for DetailState {
    fn default() -> DetailState {
        DetailState {
            last_job: 0,
            trace_job: 0,
            page_job: 0,
            ftrace_job: 0,
            pick: None,
            phase: DetailPhase::Idle,
            detail: None,
            query: DecisionQuery::default(),
            page: None,
            paging: false,
            exporting: false,
            file_open: false,
        }
    }
}

impl DetailState {
    fn next_job(&mut self) -> u64 {
        self.last_job += 1;
        self.last_job
    }

    fn ask_page(&mut self, query: DecisionQuery) -> Vec<Effect> {
        self.query = query;
        self.page_job = self.next_job();
        self.paging = true;
        vec![Effect::Send(ToWorker::Decisions {
            job: self.page_job,
            query,
        })]
    }

    pub fn apply(&mut self, action: DetailAction) -> Vec<Effect> {
        match action {
            DetailAction::Trace {
                scenario_json,
                pick,
            } => {
                self.trace_job = self.next_job();
                self.pick = Some(pick);
                self.phase = DetailPhase::Tracing;
                self.page = None;
                self.paging = false;
                vec![Effect::Send(ToWorker::Trace {
                    job: self.trace_job,
                    scenario_json,
                    pick,
                })]
            }
            DetailAction::Query(q) if self.phase == DetailPhase::Ready => self.ask_page(q),
            DetailAction::Query(_) => Vec::new(),
            DetailAction::Ftrace if self.phase == DetailPhase::Ready && !self.exporting => {
                self.ftrace_job = self.next_job();
                self.exporting = true;
                vec![Effect::Send(ToWorker::Ftrace {
                    job: self.ftrace_job,
                })]
            }
            DetailAction::Ftrace => Vec::new(),
            DetailAction::TraceFile { format, open }
                if self.phase == DetailPhase::Ready && !self.exporting =>
            {
                self.ftrace_job = self.next_job();
                self.exporting = true;
                self.file_open = open;
                vec![Effect::Send(ToWorker::TraceFile {
                    job: self.ftrace_job,
                    format,
                })]
            }
            DetailAction::TraceFile { .. } => Vec::new(),
            DetailAction::Crashed { job, message } => {
                if job == self.trace_job || job == self.page_job || job == self.ftrace_job {
                    self.phase = DetailPhase::Failed(message);
                    self.detail = None;
                    self.page = None;
                    self.paging = false;
                    self.exporting = false;
                }
                Vec::new()
            }
            DetailAction::Worker(msg) => self.on_worker(msg),
        }
    }

    fn on_worker(&mut self, msg: FromWorker) -> Vec<Effect> {
        let job = msg.job();
        match msg {
            FromWorker::Traced { detail_json, .. } if job == self.trace_job => {
                match protocol::decode(&detail_json) {
                    Ok(d) => {
                        self.detail = Some(Rc::new(d));
                        self.phase = DetailPhase::Ready;
                        // A new run: its log from the start, with the same filters.
                        let query = DecisionQuery {
                            page: 0,
                            at_ns: None,
                            ..self.query
                        };
                        return self.ask_page(query);
                    }
                    Err(e) => self.phase = DetailPhase::Failed(e),
                }
            }
            FromWorker::DecisionPage { page_json, .. } if job == self.page_job => {
                self.paging = false;
                match protocol::decode::<DecisionPageVm>(&page_json) {
                    Ok(p) => {
                        self.query = p.query;
                        self.page = Some(Rc::new(p));
                    }
                    Err(e) => self.phase = DetailPhase::Failed(e),
                }
            }
            FromWorker::FtraceText { text, .. } if job == self.ftrace_job => {
                self.exporting = false;
                return vec![Effect::SaveFtrace(text)];
            }
            FromWorker::TraceFile { format, bytes, .. } if job == self.ftrace_job => {
                self.exporting = false;
                return vec![if self.file_open && format == FileFormat::Perfetto {
                    Effect::OpenPerfetto(bytes)
                } else {
                    Effect::SaveFile { format, bytes }
                }];
            }
            FromWorker::Failed { message, .. } if job == self.trace_job => {
                self.phase = DetailPhase::Failed(message);
                self.detail = None;
            }
            FromWorker::Failed { message, .. }
                if job == self.page_job || job == self.ftrace_job =>
            {
                self.paging = false;
                self.exporting = false;
                self.phase = DetailPhase::Failed(message);
            }
            _ => {} // an answer to an older request
        }
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runview::tests::{e1_plan, e1_trace};
    use crate::runview::{decisions, trace_run};

    fn pick() -> RunPick {
        let (variant, param_index, repetition) = e1_plan().run_ref(193);
        RunPick {
            param_index,
            variant,
            repetition,
        }
    }

    fn traced_msg(job: u64) -> FromWorker {
        let (detail, _) = trace_run(e1_plan(), pick()).unwrap();
        FromWorker::Traced {
            job,
            detail_json: protocol::encode(&detail),
        }
    }

    #[test]
    fn a_trace_then_its_first_page_then_paging() {
        let mut s = DetailState::default();
        let fx = s.apply(DetailAction::Trace {
            scenario_json: "{}".into(),
            pick: pick(),
        });
        assert!(matches!(
            &fx[..],
            [Effect::Send(ToWorker::Trace { job: 1, .. })]
        ));
        assert_eq!(s.phase, DetailPhase::Tracing);
        // Queries wait for the trace.
        assert!(s
            .apply(DetailAction::Query(DecisionQuery::default()))
            .is_empty());
        let fx = s.apply(DetailAction::Worker(traced_msg(1)));
        assert_eq!(s.phase, DetailPhase::Ready);
        let [Effect::Send(ToWorker::Decisions { job, query })] = &fx[..] else {
            panic!("{fx:?}")
        };
        assert_eq!((*job, query.page), (2, 0));
        let page = decisions::page(e1_trace(), query);
        s.apply(DetailAction::Worker(FromWorker::DecisionPage {
            job: 2,
            page_json: protocol::encode(&page),
        }));
        assert_eq!(s.page.as_deref(), Some(&page));
        assert!(!s.paging);
        // The next page; an answer to the older request is dropped.
        let fx = s.apply(DetailAction::Query(DecisionQuery { page: 1, ..s.query }));
        assert!(s.paging && fx.len() == 1);
        s.apply(DetailAction::Worker(FromWorker::DecisionPage {
            job: 2,
            page_json: protocol::encode(&page),
        }));
        assert!(s.paging);
    }

    #[test]
    fn late_answers_and_failures_of_older_requests_are_ignored() {
        let mut s = DetailState::default();
        s.apply(DetailAction::Trace {
            scenario_json: "{}".into(),
            pick: pick(),
        });
        s.apply(DetailAction::Trace {
            scenario_json: "{}".into(),
            pick: pick(),
        });
        s.apply(DetailAction::Worker(traced_msg(1)));
        assert_eq!(s.phase, DetailPhase::Tracing);
        s.apply(DetailAction::Worker(FromWorker::Failed {
            job: 1,
            message: "old".into(),
        }));
        assert_eq!(s.phase, DetailPhase::Tracing);
        s.apply(DetailAction::Crashed {
            job: 2,
            message: "boom".into(),
        });
        assert_eq!(s.phase, DetailPhase::Failed("boom".into()));
    }

    #[test]
    fn the_ftrace_export_is_asked_once_and_handed_over() {
        let mut s = DetailState::default();
        assert!(
            s.apply(DetailAction::Ftrace).is_empty(),
            "nothing traced yet"
        );
        s.apply(DetailAction::Trace {
            scenario_json: "{}".into(),
            pick: pick(),
        });
        s.apply(DetailAction::Worker(traced_msg(1)));
        let fx = s.apply(DetailAction::Ftrace);
        let [Effect::Send(ToWorker::Ftrace { job })] = &fx[..] else {
            panic!("{fx:?}")
        };
        assert!(s.apply(DetailAction::Ftrace).is_empty(), "one at a time");
        let fx = s.apply(DetailAction::Worker(FromWorker::FtraceText {
            job: *job,
            text: "x".into(),
        }));
        assert_eq!(fx, [Effect::SaveFtrace("x".into())]);
        assert!(!s.exporting);
    }

    #[test]
    fn a_perfetto_file_is_saved_or_handed_to_the_perfetto_ui() {
        let mut s = DetailState::default();
        let ask = |open| DetailAction::TraceFile {
            format: FileFormat::Perfetto,
            open,
        };
        assert!(s.apply(ask(false)).is_empty(), "nothing traced yet");
        s.apply(DetailAction::Trace {
            scenario_json: "{}".into(),
            pick: pick(),
        });
        s.apply(DetailAction::Worker(traced_msg(1)));
        for open in [false, true] {
            let fx = s.apply(ask(open));
            let [Effect::Send(ToWorker::TraceFile { job, format })] = &fx[..] else {
                panic!("{fx:?}")
            };
            assert_eq!(*format, FileFormat::Perfetto);
            assert!(s.apply(ask(open)).is_empty(), "one at a time");
            let fx = s.apply(DetailAction::Worker(FromWorker::TraceFile {
                job: *job,
                format: FileFormat::Perfetto,
                bytes: vec![1, 2],
            }));
            let want = if open {
                Effect::OpenPerfetto(vec![1, 2])
            } else {
                Effect::SaveFile {
                    format: FileFormat::Perfetto,
                    bytes: vec![1, 2],
                }
            };
            assert_eq!(fx, [want]);
            assert!(!s.exporting);
        }
    }
}
