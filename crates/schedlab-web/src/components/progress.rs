//! "runs done / runs planned", and where the job stands; the live count of runs done comes
//! straight from the job worker's bridge ([`LiveProgress`]), not through the page's state.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use yew::prelude::*;

use crate::viewmodel::ProgressVm;

/// The runs done of a job as the job worker's `Progress` messages say them (up to 20 a second:
/// `agent::PROGRESS_EVERY_MS`). The bridge sets it, and only the progress view re-renders.
///
/// Why not through `state::Page`: every action there re-renders `Main`, the whole page (the
/// page's state copied, the forms' scenario built and compared for each view that takes it).
/// Measured in a trace of a 5–6 s sweep of cascadelake-fi-kernbench on 2 cores, that was ~2 ms
/// of script per progress message, ~0.2 s in all, on the page's thread, which the job workers
/// lose when they hold every core. `Page` keeps the runs done that its tables and the job's end
/// say; a view shows the larger of the two ([`live_progress`]).
#[derive(Clone, Default)]
pub struct LiveProgress(Rc<Live>);

#[derive(Default)]
struct Live {
    /// `(job, runs done)` of the last progress message; job 0 is none.
    last: Cell<(u64, usize)>,
    /// The view that shows it (the page shows one: the full page's or the embed's).
    view: RefCell<Option<Callback<()>>>,
}

impl PartialEq for LiveProgress {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl LiveProgress {
    /// `job` has `done` runs done: the view that shows progress re-renders.
    pub fn set(&self, job: u64, done: usize) {
        self.0.last.set((job, done));
        // Cloned out first: the view's render may replace it meanwhile.
        let view = self.0.view.borrow().clone();
        if let Some(v) = view {
            v.emit(());
        }
    }

    /// The runs done of `job` as its last progress message said, if one came.
    pub fn done(&self, job: u64) -> Option<usize> {
        let (last_job, done) = self.0.last.get();
        (job != 0 && last_job == job).then_some(done)
    }

    /// `view` re-renders at each progress message from now on, instead of the one before.
    fn show_in(&self, view: Callback<()>) {
        *self.0.view.borrow_mut() = Some(view);
    }

    /// `view` is gone: unless another took its place already (a view that replaced it may
    /// start before it ends).
    fn gone(&self, view: &Callback<()>) {
        let mut slot = self.0.view.borrow_mut();
        if slot.as_ref() == Some(view) {
            *slot = None;
        }
    }
}

/// `progress` (the page's: the runs done of its last table) with the runs done of `job` as its
/// last progress message said, while the job runs; once it stopped, the page's alone, which its
/// end set (a late message then changes nothing, as the page ignored them before).
pub fn live_progress(
    progress: ProgressVm,
    live: &LiveProgress,
    job: u64,
    busy: bool,
) -> ProgressVm {
    match live.done(job) {
        Some(done) if busy => ProgressVm {
            done: progress.done.max(done),
            ..progress
        },
        _ => progress,
    }
}

/// [`live_progress`], re-rendering the calling component at every progress message.
#[hook]
fn use_live_progress(
    progress: ProgressVm,
    live: &LiveProgress,
    job: u64,
    busy: bool,
) -> ProgressVm {
    let update = use_force_update();
    use_effect_with(live.clone(), move |live| {
        let view = Callback::from(move |()| update.force_update());
        live.show_in(view.clone());
        let live = live.clone();
        move || live.gone(&view)
    });
    live_progress(progress, live, job, busy)
}

#[derive(Properties, PartialEq)]
pub struct ProgressProps {
    /// The page's progress: runs planned, job workers, and the runs done its tables said.
    pub progress: ProgressVm,
    pub live: LiveProgress,
    /// The job shown (the live count of another is not this one's).
    pub job: u64,
    /// idle | running | cancelling | done | cancelled | failed
    pub state: &'static str,
    pub busy: bool,
    pub message: String,
    /// The embed view's one status line: no bar, no worker count. (One component for both keeps
    /// the page's wasm within its budget.)
    #[prop_or_default]
    pub compact: bool,
}

#[component]
pub fn Progress(props: &ProgressProps) -> Html {
    let p = use_live_progress(props.progress, &props.live, props.job, props.busy);
    if props.compact {
        return html! {
            <div class={classes!("embed-status", props.state)} id="status" data-state={props.state} aria-live="polite">
                <span id="progress-text" data-done={p.done.to_string()} data-total={p.total.to_string()}>{ p.label() }</span>
                <span class="status-message" id="status-message">{ props.message.clone() }</span>
            </div>
        };
    }
    html! {
        <section class={classes!("progress", props.state)} id="status" data-state={props.state}
            aria-live="polite">
            <progress id="progress" max={p.total.max(1).to_string()} value={p.done.to_string()}></progress>
            <span id="progress-text" data-done={p.done.to_string()} data-total={p.total.to_string()}
                data-workers={p.workers.to_string()}>
                { p.label() }
            </span>
            <span class="status-message" id="status-message">{ props.message.clone() }</span>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(done: usize) -> ProgressVm {
        ProgressVm {
            done,
            total: 10,
            workers: 2,
        }
    }

    #[test]
    fn a_running_job_shows_its_latest_progress_message() {
        let live = LiveProgress::default();
        assert_eq!(live_progress(page(0), &live, 3, true), page(0));
        live.set(3, 4);
        assert_eq!(live_progress(page(0), &live, 3, true), page(4));
        // A table that came after the message counts more runs: the larger shows.
        assert_eq!(live_progress(page(6), &live, 3, true), page(6));
    }

    #[test]
    fn another_jobs_progress_and_a_stopped_jobs_late_message_are_not_shown() {
        let live = LiveProgress::default();
        // No message yet is no job's (job 0 is "none yet" on the page).
        assert_eq!(live.done(0), None);
        live.set(2, 7);
        assert_eq!(live_progress(page(0), &live, 3, true), page(0));
        live.set(3, 9);
        assert_eq!(live_progress(page(5), &live, 3, false), page(5));
    }

    #[test]
    fn the_view_shown_in_is_told_until_it_goes() {
        let live = LiveProgress::default();
        let counter = |told: &Rc<Cell<u32>>| {
            let told = told.clone();
            Callback::from(move |()| told.set(told.get() + 1))
        };
        let (told, told_next) = (Rc::new(Cell::new(0)), Rc::new(Cell::new(0)));
        let (view, next) = (counter(&told), counter(&told_next));
        live.show_in(view.clone());
        live.set(1, 1);
        live.set(1, 2);
        assert_eq!(told.get(), 2);
        // A view that replaces it starts before it ends: the new one stays.
        live.show_in(next.clone());
        live.gone(&view);
        live.set(1, 3);
        assert_eq!((told.get(), told_next.get()), (2, 1));
        live.gone(&next);
        live.set(1, 4);
        assert_eq!((told.get(), told_next.get()), (2, 1));
        assert_eq!(live.done(1), Some(4));
    }
}
