//! Share links: the page's address (`Link::parse`) and the link payload decoder (`decode`:
//! base64url, raw DEFLATE inflated under a size cap, UTF-8, `Scenario::from_json`). A link that
//! decodes must encode back to a link of the same scenario; one that does not must say why in
//! one line.
//!
//! The codec is the web crate's own file, compiled in by path: it uses only std, schedlab-core,
//! serde_json and miniz_oxide, so the fuzz build needs neither yew nor the browser crates. Should
//! it ever need more of the web crate, move its pure part into the core and use it from both.

#![no_main]

#[allow(dead_code)]
#[path = "../../crates/schedlab-web/src/link.rs"]
mod link;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // The fragment as `location.hash` gives it, or a bare payload.
    let payload = match link::Link::parse(text, None, None, None) {
        link::Link::Scenario(p) => p,
        link::Link::Builtin { .. } => text.to_string(),
    };
    match link::decode(&payload) {
        Ok(scenario) => {
            let again = link::encode(&scenario);
            let back = link::decode(&again).expect("an encoded scenario decodes");
            assert_eq!(back, scenario, "a scenario changed through encode/decode");
        }
        Err(e) => {
            let m = e.to_string();
            assert!(
                !m.contains('\n') && !m.contains('\r'),
                "link error spans lines: {m:?}"
            );
        }
    }
});
