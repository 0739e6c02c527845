//! Edge cases of every parser, small enough for Miri (`spec/security.md`, "Platforms"): every
//! truncation and a spread of single-byte changes of a tile, a mesh file and snapshots in both
//! modes go through the same checks as the fuzz targets (`onav_testkit::targets`): rejected with an
//! in-range offset, or accepted only when canonical; a failed in-place restore leaves the mesh
//! untouched. Under Miri the inputs are sampled with a stride to keep the run short.

use onav::{
    read_mesh, write_mesh, NavMeshSnapshot, RestoreError, SnapshotMode, TileLibrary, TiledNavMesh,
    WorldSpec,
};
use onav_testkit::{fuzz_read_mesh, fuzz_tile_parse, restore_in_place_into, snapshot_mixed};

/// Two cells, one layer, one quad each, one off-mesh link per tile: the smallest world that
/// stitches portals and links.
fn small() -> (WorldSpec, TiledNavMesh, TileLibrary) {
    let w = WorldSpec {
        columns: 2,
        rows: 1,
        quads: 1,
        links_per_tile: 1,
        area_kinds: 2,
        ..WorldSpec::default()
    };
    let tiles = w.tiles();
    let lib = TileLibrary::from_tiles(&tiles);
    let mut m = TiledNavMesh::new(w.params(3));
    let r0 = m.add_tile(tiles[0].clone()).unwrap();
    m.add_tile(tiles[1].clone()).unwrap();
    m.remove_tile(r0).unwrap();
    let r0 = m.add_tile(tiles[0].clone()).unwrap();
    m.set_poly_area(r0.poly(onav::PolyIndex(0)), 9).unwrap();
    if m.tile(r0).unwrap().link_count() > 0 {
        m.set_off_mesh_link_enabled(r0, onav::LinkIndex(0), false)
            .unwrap();
    }
    (w, m, lib)
}

/// Offsets to try: all of them natively, a stride under Miri.
fn offsets(len: usize) -> impl Iterator<Item = usize> {
    let step = if cfg!(miri) { (len / 24).max(1) } else { 1 };
    (0..len).step_by(step)
}

fn snapshots(m: &TiledNavMesh) -> Vec<Vec<u8>> {
    let n = m.slot_count() as usize;
    vec![
        m.snapshot(SnapshotMode::Full),
        m.snapshot(SnapshotMode::Referenced),
        snapshot_mixed(m, &(0..n).map(|i| i % 2 == 0).collect::<Vec<_>>()),
    ]
}

#[test]
fn tile_truncations_and_byte_changes() {
    let (_, m, _) = small();
    let tile = m.tiles().next().unwrap().1.as_built_bytes().to_vec();
    fuzz_tile_parse(&tile);
    for cut in offsets(tile.len()) {
        assert!(onav::NavTile::from_bytes(&tile[..cut]).is_err());
        fuzz_tile_parse(&tile[..cut]);
    }
    for at in offsets(tile.len()) {
        for x in [0x01u8, 0x80, 0xff] {
            let mut b = tile.clone();
            b[at] ^= x;
            fuzz_tile_parse(&b);
        }
    }
}

#[test]
fn snapshot_truncations_and_byte_changes_leave_the_mesh_untouched() {
    let (_, m, lib) = small();
    let full = m.snapshot(SnapshotMode::Full);
    let links = onav::testing::all_links(&m);
    for s in snapshots(&m) {
        restore_in_place_into(&m, &full, &links, &s, &lib);
        assert_eq!(
            NavMeshSnapshot::restore(&s, &lib)
                .unwrap()
                .snapshot(SnapshotMode::Full),
            full
        );
        for cut in offsets(s.len()) {
            let r = NavMeshSnapshot::restore(&s[..cut], &lib);
            assert!(matches!(r, Err(RestoreError::Format(_))), "cut {cut}");
            restore_in_place_into(&m, &full, &links, &s[..cut], &lib);
        }
        for at in offsets(s.len()) {
            let mut b = s.clone();
            b[at] ^= 0x41;
            restore_in_place_into(&m, &full, &links, &b, &lib);
        }
    }
}

#[test]
fn referenced_snapshot_needs_its_library() {
    let (_, m, lib) = small();
    let s = m.snapshot(SnapshotMode::Referenced);
    let e = NavMeshSnapshot::restore(&s, &TileLibrary::new()).unwrap_err();
    assert_eq!(e.class(), "format");
    assert!(e.field().ends_with("content_id"), "{e}");
    assert!(NavMeshSnapshot::restore(&s, &lib).is_ok());
}

#[test]
fn mesh_file_truncations_and_byte_changes() {
    let (_, m, _) = small();
    let file = write_mesh(&m);
    fuzz_read_mesh(&file);
    assert_eq!(write_mesh(&read_mesh(&file).unwrap()), file);
    for cut in offsets(file.len()) {
        assert!(read_mesh(&file[..cut]).is_err());
    }
    for at in offsets(file.len()) {
        let mut b = file.clone();
        b[at] ^= 0x10;
        fuzz_read_mesh(&b);
    }
}

#[test]
fn counts_larger_than_the_bytes_are_rejected_before_allocation() {
    let (_, m, lib) = small();
    let mut s = m.snapshot(SnapshotMode::Full);
    // Slot count (offset 88) and section count (offset 76) at their maxima.
    for (at, v) in [(88usize, u32::MAX), (76, u32::MAX), (84, u32::MAX)] {
        let keep = s[at..at + 4].to_vec();
        s[at..at + 4].copy_from_slice(&v.to_le_bytes());
        assert!(NavMeshSnapshot::restore(&s, &lib).is_err());
        s[at..at + 4].copy_from_slice(&keep);
    }
    // Every tile count at u32::MAX.
    let tile = m.tiles().next().unwrap().1.as_built_bytes().to_vec();
    for at in [108usize, 112, 116, 120, 124] {
        let mut b = tile.clone();
        b[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        let e = onav::NavTile::from_bytes(&b).unwrap_err();
        assert_eq!(e.offset, at as u64, "{e}");
    }
}

/// Rule T6: ground polygons plus links at most `MAX_POLYS`. Each count alone fits the bytes that
/// remain, so the sum check is reached only with about 85 MB of input (beyond what the fuzzers
/// generate); checked here directly.
#[test]
#[cfg_attr(miri, ignore)]
fn polygon_plus_link_count_above_the_limit_is_rejected() {
    let (_, m, _) = small();
    let mut tile = m.tiles().next().unwrap().1.as_built_bytes()[..132].to_vec();
    let half = onav::limits::MAX_POLYS / 2 + 1;
    tile[108..112].copy_from_slice(&0u32.to_le_bytes());
    tile[112..116].copy_from_slice(&half.to_le_bytes());
    tile[116..120].copy_from_slice(&half.to_le_bytes());
    tile.resize(132 + half as usize * (75 + 67), 0);
    let e = onav::NavTile::from_bytes(&tile).unwrap_err();
    assert_eq!(e.offset, 116, "{e}");
    assert_eq!(e.field, "link_count");
    assert!(
        matches!(e.reason, onav::FormatReason::CountTooLarge { .. }),
        "{e}"
    );
}
