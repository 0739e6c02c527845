//! Fuzz target `build_input`: see `onav_harness::fuzzing::fuzz_build_input` for what it checks.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    onav_harness::fuzzing::fuzz_build_input(data);
});
