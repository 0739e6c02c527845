//! Fuzz target `ontk_restore_new`: see `onav_testkit::fuzz_ontk_restore_new` for what it checks.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| onav_testkit::fuzz_ontk_restore_new(data));
