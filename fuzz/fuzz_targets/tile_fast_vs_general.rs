//! Fuzz target `tile_fast_vs_general`: see `onav_testkit::fuzz_tile_fast_vs_general`.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| onav_testkit::fuzz_tile_fast_vs_general(data));
