//! Fuzz target `read_mesh`: see `onav_testkit::fuzz_read_mesh` for what it checks.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| onav_testkit::fuzz_read_mesh(data));
