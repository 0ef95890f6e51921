//! The page's end of a worker bridge, with crash recovery: `use_sim_worker` spawns a worker of
//! its own (the provider is private), tells it where to report a panic, listens there, and on a
//! crash reports it and spawns a fresh worker in its place. See [`crate::crash`].

use std::cell::RefCell;
use std::rc::Rc;

use yew::prelude::*;
use yew_agent::reactor::{use_reactor_bridge, ReactorEvent, UseReactorBridgeHandle};

use crate::agent::SimWorker;
use crate::crash::{self, CrashListener, CrashReport};
use crate::protocol::{FromWorker, ToWorker};

/// What a worker bridge reports to its owner.
#[derive(Debug, Clone, PartialEq)]
pub enum WorkerEvent {
    Output(FromWorker),
    /// The worker panicked on request `job` and has been replaced by a fresh one.
    Crashed(CrashReport),
    /// The worker's side of the bridge ended.
    Gone,
}

/// Counts the workers spawned for one bridge (a crash spawns the next).
#[derive(Default, PartialEq)]
struct Generation(u32);

impl Reducible for Generation {
    type Action = ();
    fn reduce(self: Rc<Self>, _: ()) -> Rc<Self> {
        Rc::new(Generation(self.0 + 1))
    }
}

type Handler = Rc<dyn Fn(WorkerEvent)>;

#[hook]
pub fn use_sim_worker<F>(on_event: F) -> UseReactorBridgeHandle<SimWorker>
where
    F: Fn(WorkerEvent) + 'static,
{
    use_sim_worker_then(None, on_event)
}

/// [`use_sim_worker`] whose worker, the first and every replacement, is sent `after_connect`
/// right after `Connect` (the job worker's `ToWorker::Pool`).
#[hook]
pub fn use_sim_worker_then<F>(
    after_connect: Option<ToWorker>,
    on_event: F,
) -> UseReactorBridgeHandle<SimWorker>
where
    F: Fn(WorkerEvent) + 'static,
{
    let channel = use_memo((), |_| crash::new_channel_name());
    let generation = use_reducer(Generation::default);
    let handler: Rc<RefCell<Option<Handler>>> = use_mut_ref(|| None);
    *handler.borrow_mut() = Some(Rc::new(on_event));
    let emit = {
        let handler = handler.clone();
        move |e: WorkerEvent| {
            let h = handler.borrow().clone();
            if let Some(h) = h {
                h(e);
            }
        }
    };
    let bridge = {
        let emit = emit.clone();
        use_reactor_bridge::<SimWorker, _>(move |event| match event {
            ReactorEvent::Output(m) => emit(WorkerEvent::Output(m)),
            ReactorEvent::Finished => emit(WorkerEvent::Gone),
        })
    };
    let current: Rc<RefCell<Option<UseReactorBridgeHandle<SimWorker>>>> = use_mut_ref(|| None);
    *current.borrow_mut() = Some(bridge.clone());
    {
        // Listen for crash reports as long as the page shows this bridge.
        let channel = channel.clone();
        let dispatch = generation.dispatcher();
        let current = current.clone();
        use_effect_with((), move |_| {
            let listener = CrashListener::new(&channel, move |report| {
                let bridge = current.borrow().clone();
                if let Some(b) = bridge {
                    b.reset(); // a fresh worker on the next render
                }
                dispatch.dispatch(());
                emit(WorkerEvent::Crashed(report));
            });
            if let Err(e) = &listener {
                web_sys::console::warn_1(
                    &format!("schedlab: worker crashes cannot be reported: {e}").into(),
                );
            }
            move || drop(listener)
        });
    }
    {
        // Each worker, the first and every replacement, learns where to report.
        let bridge = bridge.clone();
        let channel = (*channel).clone();
        use_effect_with(generation.0, move |_| {
            bridge.send(ToWorker::Connect {
                crash_channel: channel,
            });
            if let Some(m) = after_connect {
                bridge.send(m);
            }
        });
    }
    bridge
}
