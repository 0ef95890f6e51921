//! The plotly.js calls the page needs, bound by hand. plotly.js itself is bundled into the
//! page from npm by trunk (index.html); it is never fetched from a CDN.

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
