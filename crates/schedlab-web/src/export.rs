//! Downloads: the scenario, the results, a run's trace and the charts, as files.
//!
//! The text formats are the CLI's own, produced by the same core functions, byte for byte:
//! the scenario as `schedlab show` prints it, the results as `schedlab run --format json|csv`
//! prints them, a run as `schedlab trace` prints it. A file saved from the page can therefore be
//! diffed against, or fed to, the CLI. Files are handed to the browser as Blob URLs: nothing
//! leaves the machine.

use schedlab_core::experiment::Scenario;
use schedlab_core::table::ComparisonTable;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// `schedlab show NAME`.
pub fn scenario_json(scenario: &Scenario) -> String {
    format!("{}\n", scenario.to_json())
}

/// `schedlab run FILE --format json` (one scenario, not a suite).
pub fn results_json(table: &ComparisonTable) -> String {
    format!(
        "{}\n",
        serde_json::to_string_pretty(table).expect("a ComparisonTable always serializes")
    )
}

/// `schedlab run FILE --format csv`.
pub fn results_csv(table: &ComparisonTable) -> String {
    table.to_csv()
}

/// `schedlab run FILE --format mmtests` (with `--report` for another quantity): compare-kernels'
/// layout, the variants' baselines heading their columns.
pub fn results_mmtests(table: &ComparisonTable, scenario: &Scenario) -> String {
    let kernels: Vec<String> = scenario
        .variants
        .iter()
        .map(|v| v.baseline.clone())
        .collect();
    table.to_mmtests(&kernels, scenario.workload.mmtests_decimals())
}

/// A file name stem that says what the file holds: scenario, runs per cell and seed.
pub fn stem(scenario: &Scenario) -> String {
    let safe: String = scenario
        .name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{safe}-runs{}-seed{}", scenario.runs, scenario.seed)
}

/// Offers `bytes` to the user as a file named `name`.
pub fn download_bytes(name: &str, mime: &str, bytes: &[u8]) -> Result<(), String> {
    let array = js_sys::Uint8Array::from(bytes);
    let parts = js_sys::Array::of1(&array);
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &options)
        .map_err(|e| format!("cannot make the file: {e:?}"))?;
    let url = web_sys::Url::create_object_url_with_blob(&blob)
        .map_err(|e| format!("cannot make the file's address: {e:?}"))?;
    let result = click_link(name, &url);
    // Free the address once the browser has surely read the file (revoking it at once can cut
    // a download short in some browsers).
    let revoke = Closure::once_into_js(move || {
        let _ = web_sys::Url::revoke_object_url(&url);
    });
    if let Some(w) = web_sys::window() {
        let _ =
            w.set_timeout_with_callback_and_timeout_and_arguments_0(revoke.unchecked_ref(), 60_000);
    }
    result
}

pub fn download_text(name: &str, mime: &str, text: &str) -> Result<(), String> {
    download_bytes(name, mime, text.as_bytes())
}

fn click_link(name: &str, url: &str) -> Result<(), String> {
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let a: web_sys::HtmlAnchorElement = document
        .create_element("a")
        .map_err(|e| format!("{e:?}"))?
        .dyn_into()
        .map_err(|_| "not an anchor")?;
    a.set_href(url);
    a.set_download(name);
    a.style().set_property("display", "none").ok();
    let body = document.body().ok_or("no body")?;
    body.append_child(&a).map_err(|e| format!("{e:?}"))?;
    a.click();
    a.remove();
    Ok(())
}

/// The bytes of a `data:` URL as plotly's `toImage` returns it (base64 for PNG, percent-encoded
/// text for SVG).
pub fn data_url_bytes(url: &str) -> Result<Vec<u8>, String> {
    let (head, body) = url.split_once(',').ok_or("not a data: URL (no comma)")?;
    if !head.starts_with("data:") {
        return Err("not a data: URL".into());
    }
    if head.ends_with(";base64") {
        base64_decode(body)
    } else {
        percent_decode(body)
    }
}

/// Standard base64 as a data URL carries it (whitespace and padding ignored).
fn base64_decode(s: &str) -> Result<Vec<u8>, String> {
    let clean: String = s
        .chars()
        .filter(|c| !c.is_ascii_whitespace() && *c != '=')
        .collect();
    crate::link::base64_decode_alphabet(&clean, b'+', b'/')
        .ok_or_else(|| "the image data is not valid base64".to_string())
}

fn percent_decode(s: &str) -> Result<Vec<u8>, String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = s
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| format!("bad percent escape at {i}"))?;
            out.push(hex);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Ok(out)
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = Plotly, js_name = toImage, catch)]
    fn to_image(root: &web_sys::Element, options: &JsValue) -> Result<js_sys::Promise, JsValue>;
}

/// A chart as an image file (`format`: "png" or "svg"), at its size on screen (PNG at twice the
/// pixels, for print).
pub async fn download_chart(
    root: &web_sys::Element,
    format: &str,
    name: &str,
) -> Result<(), String> {
    let options = js_sys::Object::new();
    let set = |k: &str, v: JsValue| js_sys::Reflect::set(&options, &k.into(), &v).map(|_| ());
    let width = root.client_width().max(600);
    let height = root.client_height().max(300);
    set("format", format.into())
        .and_then(|_| set("width", width.into()))
        .and_then(|_| set("height", height.into()))
        .and_then(|_| set("scale", if format == "png" { 2 } else { 1 }.into()))
        .map_err(|e| format!("{e:?}"))?;
    let promise = to_image(root, &options).map_err(|e| format!("plotly.js: {e:?}"))?;
    let url = wasm_bindgen_futures::JsFuture::from(promise)
        .await
        .map_err(|e| format!("plotly.js could not draw the image: {e:?}"))?
        .as_string()
        .ok_or("plotly.js returned no image")?;
    let bytes = data_url_bytes(&url)?;
    let mime = if format == "svg" {
        "image/svg+xml"
    } else {
        "image/png"
    };
    download_bytes(&format!("{name}.{format}"), mime, &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_core::experiment::Plan;
    use schedlab_core::scenarios;

    #[test]
    fn results_are_the_cores_json_and_csv_of_the_same_runs() {
        let mut s = scenarios::builtin("hikey960-asym-packing").unwrap();
        s.runs = 2;
        s.seed = 3;
        let plan = Plan::new(&s).unwrap();
        let results: Vec<_> = (0..plan.len()).map(|i| plan.run(i).unwrap()).collect();
        let table = plan.table(&results);
        // What the worker sends and the page decodes is what the CLI formats.
        let back = crate::protocol::decode(&crate::protocol::encode(&table)).unwrap();
        assert_eq!(results_csv(&back), table.to_csv());
        let json = results_json(&back);
        assert_eq!(
            json,
            format!("{}\n", serde_json::to_string_pretty(&table).unwrap())
        );
        assert!(json.ends_with("}\n"));
        let parsed: ComparisonTable = serde_json::from_str(&json).unwrap();
        assert_eq!(parsed, table);
        let csv = results_csv(&back);
        assert!(csv.starts_with("threads,variant,mean,"));
        assert_eq!(csv.lines().count(), 1 + table.rows.len() * s.variants.len());
    }

    #[test]
    fn the_scenario_file_reads_back_as_the_same_scenario() {
        let s = scenarios::builtin("tc2-wakeup-rtapp").unwrap();
        let text = scenario_json(&s);
        assert!(text.ends_with("}\n"));
        assert_eq!(Scenario::from_json(&text).unwrap(), s);
        assert_eq!(
            stem(&s),
            format!("tc2-wakeup-rtapp-runs{}-seed{}", s.runs, s.seed)
        );
        let mut odd = s.clone();
        odd.name = "a b/c".into();
        assert!(stem(&odd).starts_with("a_b_c-"));
    }

    #[test]
    fn data_urls_decode() {
        assert_eq!(
            data_url_bytes("data:image/png;base64,aGVsbG8=").unwrap(),
            b"hello"
        );
        assert_eq!(data_url_bytes("data:image/png;base64,aGk=").unwrap(), b"hi");
        assert_eq!(
            data_url_bytes("data:image/svg+xml,%3Csvg%3E%3C%2Fsvg%3E").unwrap(),
            b"<svg></svg>"
        );
        assert!(data_url_bytes("hello").is_err());
        assert!(data_url_bytes("data:x;base64,a*b").is_err());
        assert!(data_url_bytes("data:x,%zz").is_err());
    }
}
