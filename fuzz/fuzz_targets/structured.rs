//! Structure-aware: a built-in scenario with fuzzed edits to its machine, workload, sweep,
//! variants, limits and taskset (see the crate's `structured` module), then `Plan::new` and a
//! bounded subset of checked runs under small limits.

#![no_main]

use libfuzzer_sys::fuzz_target;
use schedlab_fuzz::structured::{run, Input};

fuzz_target!(|input: Input| {
    run(&input);
});
