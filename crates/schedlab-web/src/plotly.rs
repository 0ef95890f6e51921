//! The two plotly.js calls the page needs, bound by hand. plotly.js itself is bundled into the
//! page from npm by trunk (index.html); it is never fetched from a CDN.

use serde::Serialize;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = Plotly, js_name = newPlot, catch)]
    fn new_plot(
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
pub fn draw(root: &web_sys::Element, figure: &serde_json::Value) -> Result<(), String> {
    let data = to_js(&figure["data"])?;
    let layout = to_js(&figure["layout"])?;
    let config = to_js(&figure["config"])?;
    new_plot(root, &data, &layout, &config)
        .map(|_| ())
        .map_err(|e| format!("plotly.js: {e:?}"))
}

/// Releases plotly's state on `root` (when the chart leaves the page).
pub fn clear(root: &web_sys::Element) {
    let _ = purge(root);
}
