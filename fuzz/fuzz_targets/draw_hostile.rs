//! Fuzz target `draw_hostile`: see `onav_harness::fuzzing::fuzz_draw` for what it checks.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    onav_harness::fuzzing::fuzz_draw(data);
});
