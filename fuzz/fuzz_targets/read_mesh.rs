//! Fuzz target `read_mesh`: see `onav::fuzzing::fuzz_read_mesh` for what it checks.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| onav::fuzzing::fuzz_read_mesh(data));
