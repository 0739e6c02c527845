//! Random histories of mesh operations, run by the test kit's one interpreter
//! (`onav_testkit::ops`): stitching does not depend on the history that reached a state
//! (`spec/navmesh-format.md` §6.6), and a mesh that takes snapshot/restore excursions stays
//! byte-identical to a twin that does not (`spec/snapshot.md` §9).

use onav::testing::{all_links, assert_derived, stitch_from_scratch};
use onav::{NavMeshSnapshot, NavTile, SnapshotMode, TileLibrary, TiledNavMesh, WorldSpec};
use onav_testkit::ops::strategy;
use onav_testkit::{Context, Op, SnapModel, Step, TileTarget, Twins};
use proptest::prelude::*;

/// The layered world of the stitching tests (3 × 3 cells, two layers, holes, links), and its
/// tiles followed by those of the same world with another seed: the same positions and
/// parameters, other contents, so a replacement can change a slot's bytes.
fn layered() -> (WorldSpec, Vec<NavTile>) {
    let w = onav::generator::worlds::layered();
    let pool = [
        w.tiles(),
        WorldSpec {
            seed: 7,
            ..w.clone()
        }
        .tiles(),
    ]
    .concat();
    (w, pool)
}

/// The fixtures' world and its tiles, followed by those of the same world with another seed.
fn fuzz_pool() -> (WorldSpec, Vec<NavTile>) {
    let w = onav_testkit::fuzz_world();
    let pool = [
        w.tiles(),
        WorldSpec {
            seed: 7,
            ..w.clone()
        }
        .tiles(),
    ]
    .concat();
    (w, pool)
}

/// The second half of a pool differs from the first at every position, so replacing one by the
/// other changes a slot's contents (the histories rely on it).
#[test]
fn the_pools_halves_differ_at_every_position() {
    for (w, pool) in [
        layered(),
        fuzz_pool(),
        layered_unlinked(false),
        layered_unlinked(true),
    ] {
        let (a, b) = pool.split_at(pool.len() / 2);
        assert_eq!(a.len(), w.positions().len());
        for (x, y) in a.iter().zip(b) {
            assert_eq!(x.pos(), y.pos());
            assert_ne!(x.content_id(), y.content_id(), "{:?}", x.pos());
        }
    }
}

/// Incremental links equal a from-scratch stitch, the derived state holds, and a new mesh
/// restored from the state's snapshot (every slot placed at once with its generation and
/// stitched once, in slot order) has the same links.
fn check_history(lib: &TileLibrary, mesh: &TiledNavMesh) {
    assert_eq!(all_links(mesh), stitch_from_scratch(mesh));
    assert_derived(mesh);
    let other = NavMeshSnapshot::restore(&mesh.snapshot(SnapshotMode::Referenced), lib).unwrap();
    assert_eq!(all_links(mesh), all_links(&other));
}

/// The layered world's tiles without off-mesh links, then the same with links (`linked`) or
/// without, from another seed: histories that never, or only sometimes, have a link near a change.
fn layered_unlinked(linked: bool) -> (WorldSpec, Vec<NavTile>) {
    let w = WorldSpec {
        links_per_tile: 0,
        ..onav::generator::worlds::layered()
    };
    let other = WorldSpec {
        seed: 7,
        links_per_tile: if linked { 2 } else { 0 },
        ..w.clone()
    };
    let pool = [w.tiles(), other.tiles()].concat();
    (w, pool)
}

fn run_history(ops: &[Op]) {
    run_history_on(layered(), ops);
}

fn run_history_on((w, pool): (WorldSpec, Vec<NavTile>), ops: &[Op]) {
    let lib = TileLibrary::from_tiles(&pool);
    let cx = Context {
        pool: &pool,
        library: &lib,
    };
    let mut mesh = TiledNavMesh::new(w.params(20));
    for (k, op) in ops.iter().enumerate() {
        cx.apply(&mut mesh, op);
        // K13 holds after every operation, not only at the end of a history: a wrong merge
        // that a later operation happens to overwrite must still fail here.
        assert_eq!(
            all_links(&mesh),
            stitch_from_scratch(&mesh),
            "after op {k}: {op:?}"
        );
    }
    check_history(&lib, &mesh);
}

/// Histories proptest once shrank a failure to (kept as cases).
#[test]
fn stitching_history_regressions() {
    for ops in [
        vec![Op::Add(0), Op::Add(1)],
        vec![Op::Add(10), Op::Add(11)],
        vec![Op::Add(15), Op::Remove(TileTarget::At(15))],
    ] {
        run_history(&ops);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Stitching after any history of adds, removals and replacements is the stitching of the
    /// state reached.
    #[test]
    fn stitching_is_history_independent(ops in proptest::collection::vec(strategy::tiles(36), 1..40)) {
        run_history(&ops);
    }

    /// The same without any off-mesh link (every change takes the mesh's incremental path, which
    /// touches only the portal links of the four edge-adjacent cells), and with links on half
    /// of the pool (changes switch between that path and stitching the 3 × 3 again).
    #[test]
    fn stitching_is_history_independent_with_and_without_links(
        linked in any::<bool>(),
        ops in proptest::collection::vec(strategy::tiles(36), 1..40),
    ) {
        run_history_on(layered_unlinked(linked), &ops);
    }
}

fn run_twins(ops: &[Op]) {
    let (w, pool) = fuzz_pool();
    let lib = TileLibrary::from_tiles(&pool);
    let cx = Context {
        pool: &pool,
        library: &lib,
    };
    let mut twins = Twins::new(w.params(9));
    for op in ops {
        let step = match op {
            Op::Excursion { .. } => Step::First(op.clone()),
            _ => Step::Both(op.clone()),
        };
        twins.step(&cx, &step);
        for mode in [SnapshotMode::Full, SnapshotMode::Referenced] {
            let reference = SnapModel::of_mesh(&twins.a, |_| mode == SnapshotMode::Full).encode();
            assert_eq!(twins.a.snapshot(mode), reference, "{mode:?}");
        }
    }
    assert_eq!(all_links(&twins.a), stitch_from_scratch(&twins.a));
    assert_derived(&twins.a);
    assert_derived(&twins.b);
}

/// Twin histories proptest once shrank a failure to (kept as cases).
#[test]
fn twin_regressions() {
    use onav_testkit::PolyTarget;
    for ops in [
        vec![
            Op::Add(6),
            Op::SetFlags(PolyTarget::Index(TileTarget::At(6), 0), 2),
        ],
        vec![Op::Add(0), Op::Replace(12)],
        vec![Op::Add(0), Op::Remove(TileTarget::At(0))],
    ] {
        run_twins(&ops);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A mesh that takes snapshot/mutate/restore excursions stays byte-identical, step by step,
    /// to a twin that applies the same operations without them, and both writers match the
    /// reference model after every step.
    #[test]
    fn continuing_after_restores_keeps_twins_identical(ops in proptest::collection::vec(strategy::with_excursions(24), 1..30)) {
        run_twins(&ops);
    }
}
