//! The plotly.js calls the page needs, bound by hand. plotly.js itself is bundled into the
//! page from npm by trunk (index.html); it is never fetched from a CDN.

use serde::Serialize;
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

fn to_js(value: &serde_json::Value) -> Result<JsValue, String> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| e.to_string())
}

/// Draws `figure` (`{data, layout, config}`, see `TableVm::figure`) into `root`, replacing what was
/// there. An error (plotly.js missing, a bad figure) comes back as text for the page to show.
pub fn draw(root: &web_sys::Element, figure: &FigureSource) -> Result<(), String> {
    let (data, layout, config) = match figure {
        FigureSource::Value(v) => (
            to_js(&v["data"])?,
            to_js(&v["layout"])?,
            to_js(&v["config"])?,
        ),
        FigureSource::Json(text) => {
            let obj = js_sys::JSON::parse(text).map_err(|e| format!("bad figure JSON: {e:?}"))?;
            let get = |k: &str| js_sys::Reflect::get(&obj, &k.into()).map_err(|e| format!("{e:?}"));
            (get("data")?, get("layout")?, get("config")?)
        }
    };
    react(root, &data, &layout, &config)
        .map(|_| ())
        .map_err(|e| format!("plotly.js: {e:?}"))
}

/// Releases plotly's state on `root` (when the chart leaves the page).
pub fn clear(root: &web_sys::Element) {
    let _ = purge(root);
}

/// A click on a point of a chart: the point's `customdata` (null when it has none) and its x.
#[derive(Debug, Clone, PartialEq)]
pub struct Click {
    pub custom: serde_json::Value,
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
            .and_then(|c| serde_wasm_bindgen::from_value(c).ok())
            .unwrap_or(serde_json::Value::Null);
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

/// A plotly figure: built in this module's wasm, or received as JSON text (from the worker).
#[derive(Debug)]
pub enum FigureSource {
    Value(serde_json::Value),
    Json(String),
}

/// A figure shared by pointer: two are equal when they are the same allocation, so a component
/// redraws when it gets a new figure without comparing thousands of points.
#[derive(Debug, Clone)]
pub struct Figure(pub std::rc::Rc<FigureSource>);

impl Figure {
    pub fn new(value: serde_json::Value) -> Figure {
        Figure(std::rc::Rc::new(FigureSource::Value(value)))
    }

    pub fn from_json(text: String) -> Figure {
        Figure(std::rc::Rc::new(FigureSource::Json(text)))
    }
}

impl PartialEq for Figure {
    fn eq(&self, other: &Figure) -> bool {
        std::rc::Rc::ptr_eq(&self.0, &other.0)
    }
}
