//! A worker that panics must not leave the page waiting forever.
//!
//! A panic in wasm traps: the worker's Rust stops mid-job and can send nothing through its agent
//! bridge any more (the bridge's messages go out through async tasks that will never run again).
//! So the worker's panic hook reports synchronously on a `BroadcastChannel` whose name the page
//! chose at random and sent in [`crate::protocol::ToWorker::Connect`], naming the job it was on,
//! then closes the worker. The page listens on that channel, turns the report into a failed job
//! with the panic's message, and spawns a fresh worker.

use std::cell::RefCell;

use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// What the worker posts when it panics.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CrashReport {
    pub job: u64,
    pub message: String,
}

impl CrashReport {
    /// The text the page shows.
    pub fn page_message(&self) -> String {
        format!(
            "The worker crashed: {}. A new worker has been started; press Run to try again.",
            self.message.trim_end_matches('.')
        )
    }
}

thread_local! {
    /// (channel name, job in progress) of this worker.
    static ARMED: RefCell<(Option<String>, u64)> = const { RefCell::new((None, 0)) };
}

/// Worker side: where to report (the page's channel).
pub fn set_channel(name: String) {
    ARMED.with(|a| a.borrow_mut().0 = Some(name));
}

/// Worker side: the channel this worker reports to, for the job workers it spawns
/// ([`crate::pool`]), which report to the same page.
pub fn channel() -> Option<String> {
    ARMED.with(|a| a.borrow().0.clone())
}

/// Worker side: the job a panic from now on belongs to.
pub fn set_job(job: u64) {
    ARMED.with(|a| a.borrow_mut().1 = job);
}

/// A panic's message and place, on one line.
pub fn describe(info: &std::panic::PanicHookInfo<'_>) -> String {
    let payload = info
        .payload()
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| info.payload().downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".to_string());
    match info.location() {
        Some(l) => format!("{payload} (at {}:{})", l.file(), l.line()),
        None => payload,
    }
}

/// Worker side: installs the hook (once, at the worker's start).
pub fn install_worker_hook() {
    std::panic::set_hook(Box::new(|info| {
        let message = describe(info);
        web_sys::console::error_1(&format!("schedlab worker panicked: {message}").into());
        let (channel, job) = ARMED
            .try_with(|a| a.try_borrow().map(|a| a.clone()).unwrap_or((None, 0)))
            .unwrap_or((None, 0));
        let Some(channel) = channel else { return };
        let report = CrashReport { job, message };
        if let (Ok(bc), Ok(text)) = (
            web_sys::BroadcastChannel::new(&channel),
            serde_json::to_string(&report),
        ) {
            let _ = bc.post_message(&text.into());
            bc.close();
        }
        // Whatever the worker still had queued cannot run: close it.
        if let Ok(scope) = js_sys::global().dyn_into::<web_sys::DedicatedWorkerGlobalScope>() {
            scope.close();
        }
    }));
}

/// Page side: a fresh channel name for one worker.
pub fn new_channel_name() -> String {
    let mut buf = [0u8; 8];
    let n = match getrandom::fill(&mut buf) {
        Ok(()) => u64::from_le_bytes(buf),
        Err(_) => js_sys::Date::now() as u64,
    };
    format!("schedlab-crash-{n:016x}")
}

/// Page side: listens for crash reports on `name` while it lives.
pub struct CrashListener {
    channel: web_sys::BroadcastChannel,
    _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
}

impl CrashListener {
    pub fn new(
        name: &str,
        on_crash: impl Fn(CrashReport) + 'static,
    ) -> Result<CrashListener, String> {
        let channel = web_sys::BroadcastChannel::new(name).map_err(|e| format!("{e:?}"))?;
        let on_message =
            Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
                if let Some(report) = e
                    .data()
                    .as_string()
                    .and_then(|t| serde_json::from_str::<CrashReport>(&t).ok())
                {
                    on_crash(report);
                }
            });
        channel.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        Ok(CrashListener {
            channel,
            _on_message: on_message,
        })
    }
}

impl Drop for CrashListener {
    fn drop(&mut self) {
        self.channel.set_onmessage(None);
        self.channel.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_message_says_what_happened_and_what_to_do() {
        let r = CrashReport {
            job: 3,
            message: "index out of bounds (at src/x.rs:4).".into(),
        };
        let m = r.page_message();
        assert!(m.starts_with("The worker crashed: index out of bounds (at src/x.rs:4)."));
        assert!(m.contains("press Run"));
        let text = serde_json::to_string(&r).unwrap();
        assert_eq!(serde_json::from_str::<CrashReport>(&text).unwrap(), r);
    }

    #[test]
    fn a_panic_is_described_on_one_line_with_its_place() {
        let seen = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let keep = seen.clone();
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| *keep.lock().unwrap() = describe(info)));
        let _ = std::panic::catch_unwind(|| panic!("boom {}", 7));
        std::panic::set_hook(prev);
        let text = seen.lock().unwrap().clone();
        assert!(text.starts_with("boom 7 (at "), "{text}");
        assert!(text.contains("crash.rs:"));
    }
}
