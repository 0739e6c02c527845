//! Running scenarios against the reference: passes, failures with their messages, scenario
//! errors, and the checks that run again at run time.

use super::*;
use crate::scenario::{load_str, test_text};
use crate::testee::reference::Reference;

fn run(id: &str, text: &str) -> CaseRun {
    let c = load_str(id, text).unwrap();
    run_scenario(id, &c.scenario, &mut Reference::new(), Path::new("."))
}

const BASE: &str = "
schema: 1
id: snapshot/n_x
title: t
class: reject
spec: [snapshot.md#s7]
features: [navmesh, snapshot-full, restore-in-place, links]
steps:
  - world: {name: w, columns: 2, rows: 1, quads: 1}
  - tiles: {world: w, names: [a, b]}
  - new_mesh: {name: m, world: w, slots: 3}
  - add_tile: {mesh: m, tile: a, name: ra}
  - expect: {tile_ref: '1:0:0'}
  - add_tile: {mesh: m, tile: b, name: rb}
  - get_poly: {mesh: m, poly: ra}
  - expect: {links: [{to: rb, kind: portal, edge: 1, side: '+x', lo: 0, hi: 16}]}
  - snapshot: {mesh: m, mode: full, name: s}
  - expect:
      fields:
        slot[0].generation: 1
        slot[2].kind: 0
  - patch:
      from: s
      name: bad
      edits:
        - set: {field: 'slot[1].generation', value: 0}
  - restore_into: {mesh: m, bytes: bad}
  - expect: {error: {class: format, field: 'slot[1].generation', offset: 416}, state: unchanged}
";

#[test]
fn a_scenario_passes_and_fails_without_its_patch() {
    let r = run("snapshot/n_x", BASE);
    assert_eq!(r.status(), Status::Pass, "{}", r.message());
    assert!(r.lowered.iter().any(|v| v.get("patch").is_some()));
    let c = load_str("snapshot/n_x", BASE).unwrap();
    let s = without_corruptions(&c.scenario).unwrap();
    let r = run_scenario("snapshot/n_x", &s, &mut Reference::new(), Path::new("."));
    assert_eq!(r.status(), Status::Fail, "{}", r.message());
    assert!(
        r.message().contains("accepted; expected a rejection"),
        "{}",
        r.message()
    );
}

#[test]
fn wrong_expectations_fail_with_a_message() {
    for (from, to, want) in [
        ("tile_ref: '1:0:0'", "tile_ref: '2:0:0'", "tile_ref is"),
        ("hi: 16}", "hi: 8}", "links are [portal 0x0000010000100000 edge 1 side \"+x\" lo 0.0 hi 16.0], expected [portal 0x0000010000100000 edge 1 side \"+x\" lo 0.0 hi 8.0]"),
        ("slot[2].kind: 0", "slot[2].kind: 1", "slot[2].kind is 0"),
        (
            "field: 'slot[1].generation', offset: 416}, state",
            "field: 'slot[0].generation', offset: 416}, state",
            "expected (format, slot[0].generation)",
        ),
        (
            "offset: 416}",
            "offset: 415}",
            "rejected (format, slot[1].generation) with offset 416; expected offset 415",
        ),
    ] {
        let r = run("snapshot/n_x", &BASE.replace(from, to));
        assert_eq!(r.status(), Status::Fail, "{from}");
        assert!(r.message().contains(want), "{}", r.message());
    }
}

/// A testee whose Full snapshots name a tile of generation 0: no polygon reference can name
/// its polygons, so its state cannot be observed, and the case fails saying so.
#[test]
fn a_snapshot_naming_impossible_references_fails_the_observation() {
    struct ZeroGeneration(Reference);
    impl Backend for ZeroGeneration {
        fn call(&mut self, req: &Request) -> Result<Reply, BackendFailure> {
            let mut r = self.0.call(req)?;
            if let (Request::Snapshot { .. }, Reply::Ok { fields }) = (req, &mut r) {
                let b = fields["bytes"].as_str().unwrap();
                let mut b = crate::protocol::wire::unb64("bytes", b).unwrap();
                let d = crate::files::decode::decode(&b);
                let at = d.field("slot[0].generation").unwrap().offset as usize;
                b[at..at + 4].copy_from_slice(&0u32.to_le_bytes());
                fields.insert("bytes".into(), crate::protocol::wire::b64(&b).into());
            }
            Ok(r)
        }
    }
    let text = test_text(
        "navmesh/y_x",
        "navmesh, links",
        "  - world: {name: w, columns: 1, rows: 1, quads: 1}
  - tile: {name: a, world: w, at: [0, 0, 0]}
  - new_mesh: {name: m, world: w, slots: 1}
  - add_tile: {mesh: m, tile: a}
  - is_valid_ref: {mesh: m, poly: '1:0:0'}
  - expect: {valid: true, state: unchanged}
",
    );
    let c = load_str("navmesh/y_x", &text).unwrap();
    let r = run_scenario(
        "navmesh/y_x",
        &c.scenario,
        &mut ZeroGeneration(Reference::new()),
        Path::new("."),
    );
    assert_eq!(r.status(), Status::Fail, "{}", r.message());
    assert_eq!(
        r.message(),
        "step 5 (is_valid_ref): the Full snapshot of m holds a tile in slot 0 (generation 0, 1 \
             polygons) that no polygon reference can name"
    );
}

/// A `tiles` step compares the world's tile count with its names before generating
/// anything: a world of a million tiles with one name fails at once.
#[test]
fn tiles_are_counted_before_they_are_generated() {
    let text = test_text(
        "tile/y_x",
        "tile",
        "  - world: {name: w, columns: 1048575, rows: 1, quads: 255}
  - tiles: {world: w, names: [a]}
",
    );
    let c = load_str("tile/y_x", &text).unwrap();
    let start = std::time::Instant::now();
    let r = run_scenario(
        "tile/y_x",
        &c.scenario,
        &mut Reference::new(),
        Path::new("."),
    );
    assert_eq!(r.status(), Status::Error);
    assert_eq!(
        r.message(),
        "step 2 (tiles): world w has 1048575 tiles; 1 names given"
    );
    assert!(r.blobs.is_empty());
    assert!(start.elapsed() < std::time::Duration::from_secs(5));
}

/// A scenario built in code, past the load-time checks, meets the same ranges at run time.
#[test]
fn worlds_out_of_range_are_refused_at_run_time_too() {
    let c = load_str("tile/y_x", &a_world()).unwrap();
    let mut s = c.scenario.clone();
    if let Step::World(w) = &mut s.steps[0] {
        w.quads = Some(crate::scenario::Located::new(70_000));
    }
    let r = run_scenario("tile/y_x", &s, &mut Reference::new(), Path::new("."));
    assert_eq!(r.status(), Status::Error);
    assert!(
        r.message()
            .starts_with("step 1 (world): steps[0].world.quads is 70000, outside 0 ..= 255"),
        "{}",
        r.message()
    );
}

fn a_world() -> String {
    test_text(
        "tile/y_x",
        "tile",
        "  - world: {name: w, columns: 1, rows: 1, quads: 2}
  - tile: {name: a, world: w, at: [0, 0, 0]}
  - parse_tile: {tile: a}
",
    )
}
