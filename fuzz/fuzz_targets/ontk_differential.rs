//! Fuzz target `ontk_differential`: see `onav_testkit::fuzz_ontk_differential` for what it checks.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| onav_testkit::fuzz_ontk_differential(data));
