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

/// A count too large for the bytes that remain is the error itself, at the count, with the
/// largest count those bytes allow as its maximum (`spec/navmesh-format.md` §1.2; snapshot S3
/// and S6, tile T6): worked out from each rule's smallest element and the input's length. (That
/// nothing is allocated first is what `fuzz/alloc_bounds` measures.)
#[test]
fn counts_larger_than_the_bytes_are_rejected_at_the_count() {
    use onav::{FormatError, FormatReason};
    let (_, m, lib) = small();
    let s = m.snapshot(SnapshotMode::Full);
    let n = s.len() as u64;
    let too_many = |max| FormatReason::CountTooLarge {
        count: u64::from(u32::MAX),
        max,
    };
    // (offset, field, reason): the section count at 76 (sections of at least 8 bytes after it),
    // the first section's length at 84 (the bytes after it), the slot count at 88 (slots of at
    // least 5 bytes after it).
    let cases = [
        (76, "section_count", too_many((n - 80) / 8)),
        (
            84,
            "section[0].length",
            FormatReason::Truncated {
                needed: u64::from(u32::MAX),
                available: n - 88,
            },
        ),
        (88, "slots.slot_count", too_many((n - 92) / 5)),
    ];
    for (at, field, reason) in cases {
        let mut b = s.clone();
        b[at as usize..at as usize + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        let e = NavMeshSnapshot::restore(&b, &lib).unwrap_err();
        assert_eq!(e, FormatError::new(at, field, reason).into());
    }
    // Every tile count at u32::MAX, each with its smallest element size (T6): a vertex 24
    // bytes; a ground polygon 52 + its detail record 16 + a detail triangle 4 + its area and
    // flags 3; a link 64 + 3; a detail vertex 24; a detail triangle 4.
    let tile = m.tiles().next().unwrap().1.as_built_bytes().to_vec();
    let len = tile.len() as u64;
    for (at, field, elem) in [
        (108u64, "vertex_count", 24),
        (112, "polygon_count", 75),
        (116, "link_count", 67),
        (120, "detail_vertex_count", 24),
        (124, "detail_triangle_count", 4),
    ] {
        let mut b = tile.clone();
        b[at as usize..at as usize + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        let e = onav::NavTile::from_bytes(&b).unwrap_err();
        assert_eq!(
            e,
            FormatError::new(at, field, too_many((len - at - 4) / elem))
        );
    }
}
