//! The plotly.js calls the page needs, bound by hand. plotly.js itself is bundled into the
//! page from npm by trunk (index.html); it is never fetched from a CDN.
//!
//! It is fetched once the page has started ([`prefetch`]) and run when the page first draws a
//! chart ([`when_loaded`]): index.html names the file trunk copied (hashed, with its integrity)
//! in an inert `<script id="plotly-js" type="text/plain">`, which the browser neither fetches nor
//! runs. Loaded with the page, as a classic script in its head, plotly.js (1.1 MB) was fetched
//! before the app and run before it, ~0.2 s of the page's thread on a 2-core machine, all of it
//! before the page could start its workers: on the path to a link's first results, which need
//! no chart. Fetched early and kept, it is there when the page is offline by the time it draws.

use std::cell::RefCell;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen]
extern "C" {
    /// `Plotly.react`: draws like `newPlot` the first time, then updates in place (much cheaper
    /// than redrawing while results stream in).
    #[wasm_bindgen(js_namespace = Plotly, js_name = react, catch)]
    fn react(
        root: &web_sys::Element,
        data: &JsValue,
        layout: &JsValue,
        config: &JsValue,
    ) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(js_namespace = Plotly, js_name = purge, catch)]
    fn purge(root: &web_sys::Element) -> Result<JsValue, JsValue>;
}

/// The id of index.html's inert script element that names plotly.js's file.
const SCRIPT_ID: &str = "plotly-js";

type Waiter = Box<dyn FnOnce(Result<(), String>)>;

/// Where plotly.js stands on the page.
enum Source {
    /// Not asked for yet, or the last attempt failed (the next chart asks again).
    NotAsked,
    Fetching,
    /// The file, as the fetch gave it (a `Blob`: it never crosses into wasm's memory).
    Fetched(JsValue),
    /// Its script element is on the page, running it.
    Running,
    /// It has run: `Plotly` is defined.
    Ready,
}

/// Where loading plotly.js stands, and the charts waiting for it to run.
struct Load {
    source: Source,
    waiters: Vec<Waiter>,
}

thread_local! {
    static LOAD: RefCell<Load> = const {
        RefCell::new(Load {
            source: Source::NotAsked,
            waiters: Vec::new(),
        })
    };
}

/// Starts fetching plotly.js (at low priority, once), so that the first chart finds it here,
/// the page offline or not.
pub fn prefetch() {
    let start = LOAD.with(|load| {
        let mut load = load.borrow_mut();
        let idle = matches!(load.source, Source::NotAsked);
        if idle {
            load.source = Source::Fetching;
        }
        idle
    });
    if start {
        wasm_bindgen_futures::spawn_local(async {
            let fetched = fetch_source().await;
            LOAD.with(|load| {
                load.borrow_mut().source = match &fetched {
                    Ok(blob) => Source::Fetched(blob.clone()),
                    Err(_) => Source::NotAsked,
                }
            });
            let waiting = LOAD.with(|load| !load.borrow().waiters.is_empty());
            match fetched {
                Ok(_) if waiting => run_fetched(),
                Err(e) if waiting => loaded(Err(e)),
                _ => {}
            }
        });
    }
}

/// Runs `f` once plotly.js has run (at once when it has), with the reason when it cannot.
pub fn when_loaded(f: impl FnOnce(Result<(), String>) + 'static) {
    let waiter: Waiter = Box::new(f);
    let ready = LOAD.with(|load| {
        let mut load = load.borrow_mut();
        if matches!(load.source, Source::Ready) {
            Some(waiter)
        } else {
            load.waiters.push(waiter);
            None
        }
    });
    if let Some(f) = ready {
        return f(Ok(()));
    }
    let fetched = LOAD.with(|load| matches!(load.borrow().source, Source::Fetched(_)));
    if fetched {
        run_fetched();
    } else {
        prefetch(); // when the fetch ends, it runs the source for the waiters (or says why not)
    }
}

/// Runs the fetched file: a script element whose source is the file's `blob:` address (a
/// script with a source is parsed and compiled off the page's thread, as it streams in; an
/// inline script of the same text took the page's thread for ~1 s on a 2-core machine). The
/// script's `load` or `error` event tells the waiters.
fn run_fetched() {
    let blob = LOAD.with(|load| {
        let mut load = load.borrow_mut();
        match std::mem::replace(&mut load.source, Source::Running) {
            Source::Fetched(blob) => Some(blob),
            other => {
                load.source = other;
                None
            }
        }
    });
    if let Some(blob) = blob {
        if let Err(e) = add_script(&blob) {
            loaded(Err(e));
        }
    }
}

/// Ends a load: every chart waiting for it is told. After a failure the next chart asks again.
fn loaded(result: Result<(), String>) {
    let waiters = LOAD.with(|load| {
        let mut load = load.borrow_mut();
        load.source = match result {
            Ok(()) => Source::Ready,
            Err(_) => Source::NotAsked,
        };
        std::mem::take(&mut load.waiters)
    });
    for w in waiters {
        w(result.clone());
    }
}

/// index.html's inert script element that names plotly.js's file.
fn named_element() -> Result<web_sys::Element, String> {
    web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(SCRIPT_ID))
        .ok_or_else(|| "the page does not name plotly.js (index.html's script#plotly-js)".into())
}

/// The file index.html names (its address and integrity).
fn named_file() -> Result<(String, Option<String>), String> {
    let named = named_element()?;
    let src = named
        .get_attribute("src")
        .ok_or("the page's script#plotly-js has no src")?;
    Ok((src, named.get_attribute("integrity")))
}

/// plotly.js's file, fetched at low priority and checked against its integrity.
async fn fetch_source() -> Result<JsValue, String> {
    let (src, integrity) = named_file()?;
    let failed = |why: String| {
        format!(
            "plotly.js could not be loaded from {src} ({why}); the next chart drawn tries again"
        )
    };
    let js_failed = |e: JsValue| {
        failed(
            e.dyn_ref::<js_sys::Error>()
                .map_or_else(|| format!("{e:?}"), |e| String::from(e.message())),
        )
    };
    let window = web_sys::window().ok_or("no window to fetch plotly.js in")?;
    let init = web_sys::RequestInit::new();
    if let Some(integrity) = &integrity {
        init.set_integrity(integrity);
    }
    // Behind the page's own files (Fetch's `priority`; ignored where unknown).
    let _ = js_sys::Reflect::set(&init, &"priority".into(), &"low".into());
    let response =
        wasm_bindgen_futures::JsFuture::from(window.fetch_with_str_and_init(&src, &init))
            .await
            .map_err(js_failed)?;
    let response: web_sys::Response = response.dyn_into().map_err(js_failed)?;
    if !response.ok() {
        return Err(failed(format!("HTTP {}", response.status())));
    }
    wasm_bindgen_futures::JsFuture::from(response.blob().map_err(js_failed)?)
        .await
        .map_err(js_failed)
}

/// Adds a script element that runs `blob`, which calls [`loaded`] when it has run or failed.
fn add_script(blob: &JsValue) -> Result<(), String> {
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document to run plotly.js in")?;
    let js_err = |e: JsValue| format!("plotly.js could not be run: {e:?}");
    let url = web_sys::Url::create_object_url_with_blob(blob.unchecked_ref()).map_err(js_err)?;
    let script = document.create_element("script").map_err(js_err)?;
    script.set_attribute("src", &url).map_err(js_err)?;
    let revoke = |url: &str| {
        let _ = web_sys::Url::revoke_object_url(url);
    };
    let on_load = {
        let url = url.clone();
        Closure::once_into_js(move || {
            revoke(&url);
            let defined = js_sys::Reflect::get(&js_sys::global(), &"Plotly".into())
                .is_ok_and(|p| p.is_object());
            loaded(if defined {
                Ok(())
            } else {
                Err("plotly.js ran but did not define Plotly".to_string())
            })
        })
    };
    let on_error = {
        let url = url.clone();
        let failed = script.clone();
        Closure::once_into_js(move |_: JsValue| {
            revoke(&url);
            failed.remove();
            loaded(Err(
                "plotly.js could not be run; the next chart drawn tries again".to_string(),
            ))
        })
    };
    script
        .add_event_listener_with_callback("load", on_load.unchecked_ref())
        .map_err(js_err)?;
    script
        .add_event_listener_with_callback("error", on_error.unchecked_ref())
        .map_err(js_err)?;
    let parent = named_element()?
        .parent_element()
        .ok_or("the page's script#plotly-js has no parent")?;
    parent.append_child(&script).map_err(js_err)?;
    Ok(())
}

/// Draws `figure` (`{data, layout, config}` as JSON text, built in a worker) into `root`,
/// replacing what was there. An error (plotly.js missing, a bad figure) comes back as text for the
/// page to show.
pub fn draw(root: &web_sys::Element, figure: &str) -> Result<(), String> {
    let obj = js_sys::JSON::parse(figure).map_err(|e| format!("bad figure JSON: {e:?}"))?;
    let get = |k: &str| js_sys::Reflect::get(&obj, &k.into()).map_err(|e| format!("{e:?}"));
    let (data, layout, config) = (get("data")?, get("layout")?, get("config")?);
    react(root, &data, &layout, &config)
        .map(|_| ())
        .map_err(|e| format!("plotly.js: {e:?}"))
}

/// Runs `f` once the browser has painted its next frame: from a task the next animation frame
/// queues (the frame callback runs just before that paint). A chart drawn so leaves what changed
/// with it (a results table) to be painted first: plotly's first draw of a chart takes a few
/// hundred ms of the page's thread, longer while the job workers load the cores. (A hidden tab
/// paints no frames: its charts are drawn when it is shown.)
pub fn after_paint(f: impl FnOnce() + 'static) {
    let Some(window) = web_sys::window() else {
        return f();
    };
    let task = Closure::once_into_js(f);
    let frame = Closure::once_into_js(move || {
        if let Some(w) = web_sys::window() {
            let _ =
                w.set_timeout_with_callback_and_timeout_and_arguments_0(task.unchecked_ref(), 0);
        }
    });
    let _ = window.request_animation_frame(frame.unchecked_ref());
}

/// [`after_paint`], `wait_ms` from now (at once when it is not positive).
pub fn after_paint_in(wait_ms: f64, f: impl FnOnce() + 'static) {
    let Some(window) = web_sys::window().filter(|_| wait_ms > 0.0) else {
        return after_paint(f);
    };
    let later = Closure::once_into_js(move || after_paint(f));
    let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(
        later.unchecked_ref(),
        wait_ms.ceil().min(i32::MAX as f64) as i32,
    );
}

/// Releases plotly's state on `root` (when the chart leaves the page).
pub fn clear(root: &web_sys::Element) {
    let _ = purge(root);
}

/// A click on a point of a chart: the point's `customdata` (its leading numbers, when it is an
/// array; empty otherwise) and its x.
#[derive(Debug, Clone, PartialEq)]
pub struct Click {
    pub custom: Vec<f64>,
    pub x: Option<f64>,
}

/// The JS callback of a chart's clicks, kept alive by whoever holds it.
pub type ClickHandler = Closure<dyn FnMut(JsValue)>;

/// Calls `on_click` with the first point of each click on the chart drawn in `root`
/// (plotly's `plotly_click` event); replaces the chart's earlier click handlers.
pub fn on_click(
    root: &web_sys::Element,
    on_click: impl Fn(Click) + 'static,
) -> Result<ClickHandler, String> {
    let handler = Closure::<dyn FnMut(JsValue)>::new(move |event: JsValue| {
        let point = js_sys::Reflect::get(&event, &"points".into())
            .ok()
            .and_then(|p| js_sys::Reflect::get(&p, &0.into()).ok())
            .filter(|p| p.is_object());
        let Some(point) = point else { return };
        let custom = js_sys::Reflect::get(&point, &"customdata".into())
            .ok()
            .filter(js_sys::Array::is_array)
            .map(|c| {
                js_sys::Array::from(&c)
                    .iter()
                    .map_while(|n| n.as_f64())
                    .collect()
            })
            .unwrap_or_default();
        let x = js_sys::Reflect::get(&point, &"x".into())
            .ok()
            .and_then(|x| x.as_f64());
        on_click(Click { custom, x });
    });
    let method = |name: &str| {
        js_sys::Reflect::get(root, &name.into())
            .ok()
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
            .ok_or_else(|| format!("the chart has no {name}() (plotly.js did not draw it)"))
    };
    let _ = method("removeAllListeners")?.call1(root, &"plotly_click".into());
    method("on")?
        .call2(root, &"plotly_click".into(), handler.as_ref())
        .map_err(|e| format!("plotly.js: {e:?}"))?;
    Ok(handler)
}

/// A plotly figure as JSON text (every figure is built in a worker: the page's wasm carries no
/// JSON value machinery), shared by pointer: two are equal when they are the same allocation, so
/// a component redraws when it gets a new figure without comparing thousands of points.
#[derive(Debug, Clone)]
pub struct Figure(pub std::rc::Rc<String>);

impl Figure {
    pub fn from_json(text: String) -> Figure {
        Figure(std::rc::Rc::new(text))
    }
}

impl PartialEq for Figure {
    fn eq(&self, other: &Figure) -> bool {
        std::rc::Rc::ptr_eq(&self.0, &other.0)
    }
}
