//! Fuzz entry point for scenario files (`spec/security.md` §1 and §9: scenario files are
//! untrusted input). Behind the `fuzzing` feature: it is not part of the library's API. The
//! cargo-fuzz target `scenario_yaml` calls it, and the unit tests below replay the committed
//! seeds through it.
//!
//! An input is loaded, and a scenario that loads is run against the in-process reference, as
//! `onav run` would run it, when it fits a budget that keeps one input fast ([`Budget`]). Any
//! input must give a load error, a case that loads, or a run that ends with a status, never a
//! panic (in a build with overflow checks, a panic is also any arithmetic overflow).

use std::collections::BTreeMap;
use std::path::Path;

use onav::generator::WorldSpec;

use crate::exec::{self, CaseRun, Status};
use crate::scenario::{self, world, Scenario, Step};
use crate::testee::reference::Reference;

pub use crate::draw::fuzz_draw;
mod build;
pub use build::{fuzz_build_input, BuildBudget, BuildFuzzed, BUILD_BUDGET};

/// What a run may cost, so that one fuzz input stays fast: the load-time caps bound what is
/// safe, this bounds what is quick. Inputs beyond it are loaded and checked, not run.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// Steps, counting each operation of a `continue`.
    pub steps: usize,
    /// Tiles of one world.
    pub world_tiles: u64,
    /// Quads per cell side of a world.
    pub quads: u32,
    /// Off-mesh links per tile of a world.
    pub links_per_tile: u32,
    /// Slots of a `new_mesh` (by `slots` or in its `params` block).
    pub slots: u32,
    /// `max_nodes` of a query.
    pub max_nodes: u32,
    /// Bytes a patch may make.
    pub bytes: usize,
}

/// The budget of the `scenario_yaml` target.
pub const BUDGET: Budget = Budget {
    steps: 48,
    world_tiles: 16,
    quads: 4,
    links_per_tile: 8,
    slots: 64,
    max_nodes: 4096,
    bytes: 1 << 20,
};

impl Budget {
    /// True when running `s` stays within the budget. Scenarios reading files are not run (a
    /// fuzz input must not reach the file system).
    pub fn admits(&self, s: &Scenario) -> bool {
        let ops: usize = s
            .steps
            .iter()
            .map(|st| match st {
                Step::Continue(c) => 1 + c.ops.len(),
                _ => 1,
            })
            .sum();
        if ops > self.steps {
            return false;
        }
        let mut worlds: BTreeMap<&str, WorldSpec> = BTreeMap::new();
        for (i, st) in s.steps.iter().enumerate() {
            let ok = match st {
                Step::World(w) => {
                    let like = w.like.as_deref().and_then(|l| worlds.get(l));
                    match world::world(i, w, like) {
                        Ok(spec) => {
                            let ok = world::tile_count(&spec) <= self.world_tiles
                                && spec.quads <= self.quads
                                && spec.links_per_tile <= self.links_per_tile;
                            worlds.insert(&w.name, spec);
                            ok
                        }
                        Err(_) => false,
                    }
                }
                Step::Bytes(b) => {
                    // The copies are made here, stopping at the budget: their size is only
                    // known by making them (spec/conformance.md §1.13).
                    b.file.is_none()
                        && b.repeat.as_ref().is_none_or(|r| {
                            r.expand(b.text.as_deref().unwrap_or_default(), self.bytes as u64)
                                .is_ok()
                        })
                }
                // Builds have their own target (`build_input`), within a budget of their own.
                Step::Build(_) => false,
                // Tile caches build too (from any OBJ and settings): outside this budget.
                Step::Cache(_) | Step::CacheRestore(_) => false,
                Step::Settings(st) => st.volumes_len() <= self.bytes as u64,
                Step::NewMesh(n) => {
                    let in_params = n
                        .params
                        .as_deref()
                        .and_then(|h| scenario::parse_hex(h).ok())
                        .and_then(|b| Some(u32::from_le_bytes(b.get(32..36)?.try_into().ok()?)));
                    n.slots.or(in_params).unwrap_or(0) <= self.slots
                }
                Step::FindNearestPoly(q)
                | Step::FindPath(q)
                | Step::FindStraightPath(q)
                | Step::Raycast(q)
                | Step::CorridorCost(q) => q.max_nodes.unwrap_or(0) <= self.max_nodes,
                Step::Continue(c) => c.ops.iter().all(|op| match op {
                    Step::FindNearestPoly(q)
                    | Step::FindPath(q)
                    | Step::FindStraightPath(q)
                    | Step::Raycast(q)
                    | Step::CorridorCost(q) => q.max_nodes.unwrap_or(0) <= self.max_nodes,
                    _ => true,
                }),
                _ => true,
            };
            if !ok {
                return false;
            }
        }
        true
    }
}

/// What one input did: not a case, a case beyond the budget, or a run and how it ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fuzzed {
    /// Not UTF-8, or not a scenario that passes the load-time checks.
    NotLoaded,
    /// A case, not run: beyond [`BUDGET`].
    Loaded,
    /// A case, run to this status.
    Ran(Status),
}

/// Loads a scenario file from fuzz input and runs it: the first line is the file's id (its path
/// below `scenarios/` without `.yaml`, which the loader checks against the file's `id` and
/// `class`), the rest is the file's text. A case that loads has the id it was given, its area,
/// and passes its checks again; a case within [`BUDGET`] runs against the reference, twice, to
/// the same end (the reference and the runner are deterministic).
pub fn fuzz_scenario_yaml(data: &[u8]) -> Fuzzed {
    let Ok(all) = std::str::from_utf8(data) else {
        return Fuzzed::NotLoaded;
    };
    let (id, text) = all.split_once('\n').unwrap_or((all, ""));
    let Ok(case) = scenario::load_str(id, text) else {
        return Fuzzed::NotLoaded;
    };
    assert_eq!(case.id, id);
    assert_eq!(Some(case.area.as_str()), id.split('/').next());
    assert_eq!(
        scenario::check::check(id, &case.scenario),
        Ok(()),
        "a loaded scenario passes its checks again"
    );
    if !BUDGET.admits(&case.scenario) {
        return Fuzzed::Loaded;
    }
    let opts = exec::Options {
        max_bytes: BUDGET.bytes,
        ..exec::Options::in_dir(Path::new("."))
    };
    let run = || exec::run(id, &case.scenario, &mut Reference::new(), &opts);
    let (a, b): (CaseRun, CaseRun) = (run(), run());
    assert_eq!(
        (&a.stop, &a.trace, &a.goldens, &a.lowered),
        (&b.stop, &b.trace, &b.goldens, &b.lowered),
        "two runs of one scenario end alike"
    );
    Fuzzed::Ran(a.status())
}

#[cfg(test)]
mod tests {
    use onav_testkit::corpus::inputs;

    use super::*;

    /// A fuzz input: the id line, then a scenario needing `tile` with these steps.
    fn input(id: &str, steps: &str) -> String {
        format!("{id}\n{}", crate::scenario::test_text(id, "tile", steps))
    }

    /// The committed seeds and regressions of the `scenario_yaml` target replay through the
    /// entry point the fuzzer calls. The seeds are real scenario files behind their id line:
    /// every one loads, and most of them run within the budget, passing.
    #[test]
    fn scenario_yaml_seeds_and_regressions_replay() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
        let seeds = inputs(&root.join("seeds/scenario_yaml"));
        assert!(seeds.len() >= 50, "the seed corpus is committed");
        let mut by: BTreeMap<String, usize> = BTreeMap::new();
        for s in &seeds {
            let f = fuzz_scenario_yaml(s);
            *by.entry(format!("{f:?}")).or_default() += 1;
            assert_ne!(f, Fuzzed::NotLoaded, "every seed loads");
        }
        for r in inputs(&root.join("regressions/scenario_yaml")) {
            fuzz_scenario_yaml(&r);
        }
        let passed = by.get("Ran(Pass)").copied().unwrap_or(0);
        assert!(
            passed * 4 >= seeds.len() * 3,
            "most seeds run and pass: {by:?}"
        );
    }

    /// Inputs that once panicked (in a build with overflow checks), each with what it found.
    #[test]
    fn regressions_replay() {
        // An expectation of bytes at offset u64::MAX: the end of the range overflowed.
        let bytes_at = input(
            "tile/y_r",
            "  - world: {name: w, columns: 1, rows: 1, quads: 1}
  - tile: {name: a, world: w, at: [0, 0, 0]}
  - expect: {bytes_at: [{offset: 18446744073709551615, hex: '00'}]}
",
        );
        assert_eq!(
            fuzz_scenario_yaml(bytes_at.as_bytes()),
            Fuzzed::Ran(Status::Fail)
        );
    }

    #[test]
    fn inputs_beyond_the_budget_load_but_do_not_run() {
        let text = input(
            "tile/y_b",
            "  - world: {name: w, columns: 5, rows: 5}
  - tile: {name: a, world: w, at: [0, 0, 0]}
  - parse_tile: {tile: a}
",
        );
        assert_eq!(fuzz_scenario_yaml(text.as_bytes()), Fuzzed::Loaded);
        let small = text.replace("columns: 5, rows: 5", "columns: 2, rows: 2");
        assert_eq!(
            fuzz_scenario_yaml(small.as_bytes()),
            Fuzzed::Ran(Status::Pass)
        );
        assert_eq!(fuzz_scenario_yaml(b"\xff"), Fuzzed::NotLoaded);
        assert_eq!(
            fuzz_scenario_yaml(b"tile/y_b\nschema: 1"),
            Fuzzed::NotLoaded
        );
    }
}
