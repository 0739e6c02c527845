//! Fuzz target `snapshot_structured`: see `onav_testkit::fuzz_snapshot_structured` for what it checks.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| onav_testkit::fuzz_snapshot_structured(data));
