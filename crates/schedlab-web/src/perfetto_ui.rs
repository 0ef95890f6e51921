//! "Open in Perfetto": hands a trace to ui.perfetto.dev in a new window, with the handshake
//! Perfetto documents (google/perfetto docs/visualization/deep-linking-to-perfetto-ui.md,
//! "Option 2: Using postMessage"): `window.open('https://ui.perfetto.dev')` in the click itself
//! (so no popup blocker stops it), then, once the trace is ready, `'PING'` every 50 ms until the
//! window answers `'PONG'`, then `postMessage({perfetto: {buffer, title, fileName}})` to that
//! origin. The trace leaves the page for that window only, on that explicit click.
//!
//! The two steps are a few lines of JavaScript built once as functions: the page's wasm carries
//! no bindings for them.

use wasm_bindgen::JsValue;

/// Where the trace goes.
pub const ORIGIN: &str = "https://ui.perfetto.dev";

/// Opens the Perfetto UI in a new window (call it from the click); None when the browser refused.
pub fn open_window() -> Option<JsValue> {
    let open = js_sys::Function::new_with_args("u", "return window.open(u) || null;");
    open.call1(&JsValue::NULL, &ORIGIN.into())
        .ok()
        .filter(|w| !w.is_null() && !w.is_undefined())
}

/// Sends `bytes` to the window [`open_window`] opened, as the trace titled `title` (file `name`).
pub fn send(window: &JsValue, bytes: &[u8], title: &str, name: &str) {
    let post = js_sys::Function::new_with_args(
        "w,u,b,t,f",
        "const timer = setInterval(() => w.postMessage('PING', u), 50);\
         const onMessage = (e) => {\
           if (e.origin !== u || e.data !== 'PONG') return;\
           clearInterval(timer);\
           window.removeEventListener('message', onMessage);\
           w.postMessage({perfetto: {buffer: b, title: t, fileName: f}}, u);\
         };\
         window.addEventListener('message', onMessage);\
         setTimeout(() => { clearInterval(timer); window.removeEventListener('message', onMessage); }, 60000);",
    );
    let buffer = js_sys::Uint8Array::from(bytes).buffer();
    let args = js_sys::Array::of5(window, &ORIGIN.into(), &buffer, &title.into(), &name.into());
    if let Err(e) = post.apply(&JsValue::NULL, &args) {
        web_sys::console::warn_1(&e);
    }
}
