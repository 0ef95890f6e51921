//! Raw bytes as a scenario file: `Scenario::from_json`, `Plan::new`, then a bounded subset of the
//! runs, checked, under small limits (see the crate's `plan_and_run`). Input that is not UTF-8 is
//! skipped, as the CLI refuses it before the core sees it.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        schedlab_fuzz::scenario_text(text);
    }
});
