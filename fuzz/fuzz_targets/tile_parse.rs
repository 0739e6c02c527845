//! Fuzz target `tile_parse`: see `onav_testkit::fuzz_tile_parse` for what it checks.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| onav_testkit::fuzz_tile_parse(data));
