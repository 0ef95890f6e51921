//! The Share button, and the page's address as the scenario's home.
//!
//! Share puts the whole scenario in the address (`#s=`, see [`crate::link`]), copies the link to
//! the clipboard when the browser allows it, and always shows it in a read-only field, selected,
//! so it can be copied by hand where the clipboard is refused (no secure context, no permission).
//! The link's payload is made by the check worker as the scenario changes (`Page::share_payload`),
//! so a click shares at once and the page's wasm carries no DEFLATE.

use schedlab_core::experiment::Scenario;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;
use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::link::{Link, FRAGMENT_KEY};
use crate::view_params::ViewParams;

/// The view the address asks for (`?run=`, `?report=`).
pub fn current_view() -> ViewParams {
    let query = web_sys::window()
        .and_then(|w| w.location().search().ok())
        .and_then(|s| web_sys::UrlSearchParams::new_with_str(&s).ok());
    ViewParams::from_query(|k| query.as_ref().and_then(|q| q.get(k)))
}

/// Puts the view in the address (without a new history entry), keeping the rest of it, so copying
/// the address also opens that run and report once the table is there.
pub fn remember_view_in_url(view: &ViewParams) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let (Ok(history), location) = (window.history(), window.location()) else {
        return;
    };
    let search = location.search().unwrap_or_default();
    let Ok(params) = web_sys::UrlSearchParams::new_with_str(&search) else {
        return;
    };
    set_view(&params, view);
    let query = String::from(params.to_string());
    let path = location.pathname().unwrap_or_default();
    let hash = location.hash().unwrap_or_default();
    let url = if query.is_empty() {
        format!("{path}{hash}")
    } else {
        format!("{path}?{query}{hash}")
    };
    let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
}

/// Sets (or removes) the view's parameters in `params`.
fn set_view(params: &web_sys::UrlSearchParams, view: &ViewParams) {
    for (key, value) in view.pairs() {
        match value {
            Some(v) => params.set(key, &v),
            None => params.delete(key),
        }
    }
}

/// The address as the page was opened: a share fragment, or the query of an old-style link.
pub fn current_link() -> Link {
    let Some(location) = web_sys::window().map(|w| w.location()) else {
        return Link::parse("", None, None, None);
    };
    let hash = location.hash().unwrap_or_default();
    let query = location
        .search()
        .ok()
        .and_then(|s| web_sys::UrlSearchParams::new_with_str(&s).ok());
    let get = |k: &str| query.as_ref().and_then(|q| q.get(k));
    Link::parse(&hash, get("scenario"), get("runs"), get("seed"))
}

/// The full share URL of a scenario: this page's address with the scenario's link `payload`
/// (`link::encode`, made by the check worker) as its fragment, and the view (picked run, report)
/// as the query.
pub fn share_url(payload: &str, view: &ViewParams) -> String {
    let base = web_sys::window()
        .and_then(|w| {
            let l = w.location();
            Some(format!("{}{}", l.origin().ok()?, l.pathname().ok()?))
        })
        .unwrap_or_default();
    let query = web_sys::UrlSearchParams::new()
        .map(|params| {
            set_view(&params, view);
            String::from(params.to_string())
        })
        .unwrap_or_default();
    let query = if query.is_empty() {
        query
    } else {
        format!("?{query}")
    };
    format!("{base}{query}#{FRAGMENT_KEY}={payload}")
}

/// Puts the scenario in the address bar (without a new history entry): the short old-style query
/// when it is a built-in as shipped (`builtin`), else the whole scenario as a share fragment
/// (`payload`, its share link; without it the address is left as it is).
pub fn remember_in_url(
    scenario: &Scenario,
    builtin: Option<&str>,
    payload: Option<&str>,
    view: &ViewParams,
) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let Ok(history) = window.history() else {
        return;
    };
    let url = match builtin {
        Some(name) => {
            let Ok(params) = web_sys::UrlSearchParams::new() else {
                return;
            };
            params.append("scenario", name);
            params.append("runs", &scenario.runs.to_string());
            params.append("seed", &scenario.seed.to_string());
            set_view(&params, view);
            // The path keeps the page; an empty fragment drops any earlier share link.
            let path = window.location().pathname().unwrap_or_default();
            format!("{path}?{}", String::from(params.to_string()))
        }
        None => match payload {
            Some(payload) => share_url(payload, view),
            None => return,
        },
    };
    let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
}

/// Reloads the page when the address's fragment changes under it (a share link pasted into the
/// address bar of an open page changes only the fragment, which does not reload by itself). The
/// page's own `replaceState` writes fire no `hashchange`. Returns the listener's remover.
pub fn reload_on_hash_change() -> impl FnOnce() {
    let window = web_sys::window();
    let listener = wasm_bindgen::closure::Closure::<dyn Fn()>::new(|| {
        if let Some(w) = web_sys::window() {
            let _ = w.location().reload();
        }
    });
    if let Some(w) = &window {
        let _ = w.add_event_listener_with_callback(
            "hashchange",
            wasm_bindgen::JsCast::unchecked_ref(listener.as_ref()),
        );
    }
    move || {
        if let Some(w) = &window {
            let _ = w.remove_event_listener_with_callback(
                "hashchange",
                wasm_bindgen::JsCast::unchecked_ref(listener.as_ref()),
            );
        }
        drop(listener);
    }
}

/// Copies `text` to the clipboard; `false` when the browser refuses (the caller offers the text).
pub(crate) async fn copy(text: &str) -> bool {
    let Some(window) = web_sys::window() else {
        return false;
    };
    let clipboard = js_sys::Reflect::get(&window.navigator(), &"clipboard".into())
        .ok()
        .filter(|c| !c.is_undefined() && !c.is_null());
    let Some(clipboard) = clipboard else {
        return false;
    };
    let Some(write) = js_sys::Reflect::get(&clipboard, &"writeText".into())
        .ok()
        .and_then(|f| wasm_bindgen::JsCast::dyn_into::<js_sys::Function>(f).ok())
    else {
        return false;
    };
    let Ok(promise) = write.call1(&clipboard, &JsValue::from_str(text)) else {
        return false;
    };
    let Ok(promise) = wasm_bindgen::JsCast::dyn_into::<js_sys::Promise>(promise) else {
        return false;
    };
    JsFuture::from(promise).await.is_ok()
}

#[derive(Properties, PartialEq)]
pub struct ShareProps {
    /// The scenario to share (with the form's runs and seed), or `None` while it cannot run.
    pub scenario: Option<Scenario>,
    /// Its share link's payload, once the check worker has made it.
    pub payload: Option<String>,
    /// The run looked at closely and the report: the link opens them too.
    pub view: ViewParams,
}

#[derive(Clone, PartialEq)]
enum Shared {
    None,
    Copied(String),
    CopyByHand(String),
}

#[component]
pub fn Share(props: &ShareProps) -> Html {
    let shared = use_state(|| Shared::None);
    let field = use_node_ref();
    let onclick = {
        let shared = shared.clone();
        let scenario = props.scenario.clone();
        let payload = props.payload.clone();
        // A picked run the scenario does not have (it was edited since) is left out.
        let view = ViewParams {
            pick: props
                .view
                .pick
                .filter(|p| scenario.as_ref().is_some_and(|s| p.fits(s))),
            ..props.view
        };
        Callback::from(move |_: MouseEvent| {
            let (Some(scenario), Some(payload)) = (&scenario, &payload) else {
                return;
            };
            let url = share_url(payload, &view);
            remember_in_url(scenario, None, Some(payload), &view);
            let shared = shared.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let state = if copy(&url).await {
                    Shared::Copied(url)
                } else {
                    Shared::CopyByHand(url)
                };
                shared.set(state);
            });
        })
    };
    {
        // Select the link once shown, so a plain Ctrl+C copies it.
        let field = field.clone();
        use_effect_with((*shared).clone(), move |_| {
            if let Some(input) = field.cast::<HtmlInputElement>() {
                input.select();
            }
        });
    }
    let (url, note) = match &*shared {
        Shared::None => (None, None),
        Shared::Copied(u) => (
            Some(u.clone()),
            Some("Link copied: it opens this scenario with these runs and seed."),
        ),
        Shared::CopyByHand(u) => (
            Some(u.clone()),
            Some("Copy the link below (the browser did not allow copying)."),
        ),
    };
    html! {
        <div class="share" id="share-box">
            <button type="button" class="secondary" id="share" onclick={onclick}
                disabled={props.scenario.is_none() || props.payload.is_none()}
                title="Put the whole scenario in the address and copy the link">{"Share link"}</button>
            if let Some(url) = url {
                <div class="field share-field">
                    <label for="share-link">{ note.unwrap_or_default() }</label>
                    <input id="share-link" type="text" readonly=true value={url} ref={field.clone()}
                        onfocus={Callback::from(|e: FocusEvent| e.target_unchecked_into::<HtmlInputElement>().select())} />
                </div>
            }
        </div>
    }
}
