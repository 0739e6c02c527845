//! States over their landing budget (`spec/navmesh-format.md` K17) are rejected by every reader
//! at the tile over budget: restores (`spec/snapshot.md` S30), in place too, and mesh files
//! (M13). No mesh can hold such a state, so the bytes are written by the test kit's model.

use onav::limits::LANDING_WORK_PER_POLYGON;
use onav::{
    read_mesh, FormatReason, NavMeshSnapshot, RestoreError, SnapshotMode, TileLibrary,
    TiledNavMesh, WorldSpec,
};
use onav_testkit::{mesh_file, snapshot_of};

#[test]
fn restores_and_mesh_files_over_budget_are_rejected_at_the_tile() {
    // One cell of 16 × 16 quads (256 ground polygons of two detail triangles: landing weight
    // 512) with up to 300 links ending in the cell: each link's work is the cell's weight twice,
    // its start's and its end's, 1 024, against a budget of 512 per polygon.
    let w = WorldSpec {
        columns: 1,
        rows: 1,
        quads: 16,
        links_per_tile: 300,
        ..WorldSpec::default()
    };
    let t = w.tiles().remove(0);
    assert_eq!(t.ground_poly_count(), 256);
    let work = 1024 * u64::from(t.link_count());
    let budget = LANDING_WORK_PER_POLYGON * u64::from(t.poly_count());
    assert!(work > budget, "{work} {budget}");
    let reason = FormatReason::LandingBudget { work, budget };
    let lib = TileLibrary::from_tiles([&t]);
    let check = |e: RestoreError, offset: u64, field: &str| match e {
        RestoreError::Format(f) => {
            assert_eq!(
                (f.offset, f.field.as_str(), &f.reason),
                (offset, field, &reason)
            );
        }
        other => panic!("{other:?}"),
    };
    // Header 76, section count 4, section header 8, slot count 4; slot 0: generation 4, kind 1,
    // length 4, then the tile (at 101); or generation 4, kind 2, then the content id (at 97).
    let params = w.params(3);
    let full = snapshot_of(&params, std::slice::from_ref(&t), SnapshotMode::Full);
    check(
        NavMeshSnapshot::restore(&full, &lib).unwrap_err(),
        101,
        "slot[0].tile",
    );
    let referenced = snapshot_of(&params, std::slice::from_ref(&t), SnapshotMode::Referenced);
    check(
        NavMeshSnapshot::restore(&referenced, &lib).unwrap_err(),
        97,
        "slot[0].content_id",
    );
    let mut mesh = TiledNavMesh::new(params);
    let before = mesh.snapshot(SnapshotMode::Full);
    check(mesh.restore(&full, &lib).unwrap_err(), 101, "slot[0].tile");
    check(
        mesh.restore(&referenced, &lib).unwrap_err(),
        97,
        "slot[0].content_id",
    );
    assert_eq!(mesh.snapshot(SnapshotMode::Full), before);
    // Mesh file: header 76, tile count 4, then tile 0's length 4.
    check(
        read_mesh(&mesh_file(&params, &[&t])).unwrap_err(),
        84,
        "tile[0]",
    );
    // The same tile alone is refused by add_tile as well.
    assert!(mesh.add_tile(t).is_err());
}
