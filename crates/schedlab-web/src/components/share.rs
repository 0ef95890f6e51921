//! The Share button, and the page's address as the scenario's home.
//!
//! Share puts the whole scenario in the address (`#s=`, see [`crate::link`]), copies the link to
//! the clipboard when the browser allows it, and always shows it in a read-only field, selected,
//! so it can be copied by hand where the clipboard is refused (no secure context, no permission).

use schedlab_core::experiment::Scenario;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;
use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::link::{self, Link, FRAGMENT_KEY};
use crate::runview::RunPick;

/// The query parameter that names the run looked at closely (see [`RunPick::to_param`]).
pub const RUN_KEY: &str = "run";

/// The run the address names (`?run=`), if any.
pub fn current_pick() -> Option<RunPick> {
    let search = web_sys::window()?.location().search().ok()?;
    let query = web_sys::UrlSearchParams::new_with_str(&search).ok()?;
    RunPick::parse(&query.get(RUN_KEY)?)
}

/// Puts the run looked at closely in the address (or takes it out), keeping the rest of it, so
/// copying the address also opens that run once the table is there.
pub fn remember_pick_in_url(pick: Option<RunPick>) {
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
    match pick {
        Some(p) => params.set(RUN_KEY, &p.to_param()),
        None => params.delete(RUN_KEY),
    }
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

/// The full share URL of a scenario: this page's address with the scenario as its fragment, and
/// the run looked at closely, if any, as `?run=`.
pub fn share_url(scenario: &Scenario, pick: Option<RunPick>) -> String {
    let base = web_sys::window()
        .and_then(|w| {
            let l = w.location();
            Some(format!("{}{}", l.origin().ok()?, l.pathname().ok()?))
        })
        .unwrap_or_default();
    let run = pick.map_or(String::new(), |p| format!("?{RUN_KEY}={}", p.to_param()));
    format!("{base}{run}#{FRAGMENT_KEY}={}", link::encode(scenario))
}

/// Puts the scenario in the address bar (without a new history entry): the short old-style query
/// when it is a built-in as shipped (`builtin`), else the whole scenario as a share fragment.
pub fn remember_in_url(scenario: &Scenario, builtin: Option<&str>, pick: Option<RunPick>) {
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
            if let Some(p) = pick {
                params.append(RUN_KEY, &p.to_param());
            }
            // The path keeps the page; an empty fragment drops any earlier share link.
            let path = window.location().pathname().unwrap_or_default();
            format!("{path}?{}", String::from(params.to_string()))
        }
        None => share_url(scenario, pick),
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
async fn copy(text: &str) -> bool {
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
    /// The run looked at closely: the link opens it too.
    pub pick: Option<RunPick>,
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
        let pick = props
            .pick
            .filter(|p| scenario.as_ref().is_some_and(|s| p.fits(s)));
        Callback::from(move |_: MouseEvent| {
            let Some(scenario) = &scenario else { return };
            let url = share_url(scenario, pick);
            remember_in_url(scenario, None, pick);
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
                disabled={props.scenario.is_none()}
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
