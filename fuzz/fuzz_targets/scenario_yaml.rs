//! Fuzz target `scenario_yaml`: see `onav_harness::fuzzing::fuzz_scenario_yaml` for what it checks.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    onav_harness::fuzzing::fuzz_scenario_yaml(data);
});
