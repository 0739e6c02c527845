//! Fuzz entry point for the scenario loader (`spec/security.md`, threat model: scenario files).
//! The cargo-fuzz target `scenario_yaml` calls it, and `cargo test` replays the committed seeds and
//! regressions through it.

use crate::scenario;

/// Loads a scenario file from fuzz input: the first line is the file's id (its path below
/// `scenarios/` without `.yaml`, which the loader checks against the file's `id` and `class`),
/// the rest is the file's text. Any input must give a case or an error, never a panic; a case that
/// loads has the id it was given, its area, and passes its checks again.
pub fn fuzz_scenario_yaml(data: &[u8]) {
    let Ok(all) = std::str::from_utf8(data) else {
        return;
    };
    let (id, text) = all.split_once('\n').unwrap_or((all, ""));
    if let Ok(case) = scenario::load_str(id, text) {
        assert_eq!(case.id, id);
        assert_eq!(Some(case.area.as_str()), id.split('/').next());
        assert_eq!(
            scenario::check(id, &case.scenario),
            Ok(()),
            "a loaded scenario passes its checks again"
        );
    }
}
