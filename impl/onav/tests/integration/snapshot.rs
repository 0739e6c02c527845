//! The snapshot's guarantees and restore rules (`spec/snapshot.md` §5–§9): round trips in both
//! modes, mixtures, references across restores, ownership, the mesh file, all-or-nothing in-place
//! restore, every rule's field, thread-count independence, the cached writers against the
//! reference model, and validation separate from commit.

use onav::testing::{all_links, assert_derived, stitch_from_scratch};
use onav::{
    read_mesh, write_mesh, FormatReason, LinkIndex, NavMeshSnapshot, PolyIndex, PolyRef,
    RestoreError, SlotIndex, SnapshotMode, TileLibrary, TilePos, TiledNavMesh, WorldSpec,
};
use onav_testkit::{snapshot_mixed, SnapModel};

fn world() -> WorldSpec {
    onav_testkit::fuzz_world()
}

/// The world with another seed: the same parameters and positions, other tile contents.
fn other_world() -> WorldSpec {
    WorldSpec { seed: 7, ..world() }
}

/// `other_world`'s tiles differ from `world`'s at every position, so replacing one by the other
/// changes a slot's contents (the random histories below rely on it).
#[test]
fn other_world_has_other_contents() {
    let (w, o) = (world(), other_world());
    assert_eq!(w.params(4).to_bytes(), o.params(4).to_bytes());
    for p in w.positions() {
        assert_ne!(w.tile(p).content_id(), o.tile(p).content_id(), "{p:?}");
    }
}

/// A mesh with holes in its slots, generations above 1, edits and switched-off links (the fuzz
/// fixtures' busy mesh), and a library holding the world's tiles.
fn busy_mesh() -> (TiledNavMesh, TileLibrary) {
    let w = world();
    let tiles = w.tiles();
    let lib = TileLibrary::from_tiles(&tiles);
    (onav_testkit::busy_mesh(&w, &tiles), lib)
}

/// Both writers agree with the reference model written from the tiles through the public API
/// (`onav_testkit::SnapModel::of_mesh`), and the mesh's cached records and packs hold.
fn check_writers(m: &TiledNavMesh) {
    for mode in [SnapshotMode::Full, SnapshotMode::Referenced] {
        let reference = SnapModel::of_mesh(m, |_| mode == SnapshotMode::Full).encode();
        assert_eq!(m.snapshot(mode), reference, "{mode:?}");
        // The appending writer writes the same bytes after a prefix, exactly the stated length,
        // and never grows a writer reserved with the stated capacity.
        assert_eq!(m.snapshot_len(mode), reference.len(), "{mode:?}");
        let mut w = onav::bytes::Writer::with_capacity(3 + m.snapshot_capacity(mode));
        w.bytes(b"pre");
        m.write_snapshot(mode, &mut w);
        let out = w.into_inner();
        assert_eq!(out[..3], *b"pre");
        assert_eq!(out[3..], reference[..], "{mode:?}");
        assert!(out.capacity() <= 3 + m.snapshot_capacity(mode), "{mode:?}");
    }
    assert_derived(m);
}

/// Where one slot record of a valid snapshot lies, from the model's walker.
struct SlotLayout {
    at: usize,
    end: usize,
    kind: u8,
    edits: Vec<usize>,
    disabled: Vec<usize>,
}

/// The slot records of a valid snapshot.
fn layout(b: &[u8]) -> Vec<SlotLayout> {
    let model = SnapModel::parse(b).expect("canonical layout");
    model
        .slots
        .into_iter()
        .map(|s| {
            let span = s.span.expect("read from bytes");
            SlotLayout {
                at: span.at,
                end: span.end,
                kind: s.kind,
                edits: span.edits,
                disabled: span.disabled,
            }
        })
        .collect()
}

/// A slot's cached Referenced record follows every operation that changes its edits and
/// switches, growing, shrinking (moving the rest of its chunk) and through restores; both writers
/// stay exact.
#[test]
fn cached_records_follow_edits_and_switches() {
    let w = WorldSpec {
        columns: 2,
        rows: 1,
        quads: 3,
        links_per_tile: 4,
        ..WorldSpec::default()
    };
    let tiles = w.tiles();
    let lib = TileLibrary::from_tiles(&tiles);
    let mut m = TiledNavMesh::new(w.params(3));
    let r = m.add_tile(tiles[0].clone()).unwrap();
    m.add_tile(tiles[1].clone()).unwrap();
    let slot = r.slot().0 as usize;
    // The slot's Referenced record, as the writer copies it from the mesh's cache.
    let len = |m: &TiledNavMesh| {
        let r = &layout(&m.snapshot(SnapshotMode::Referenced))[slot];
        r.end - r.at
    };
    check_writers(&m);
    assert_eq!(len(&m), 45);
    let area = |m: &TiledNavMesh, p: u32| m.poly_area(r.poly(PolyIndex(p))).unwrap();
    let a0 = area(&m, 0);
    let a1 = area(&m, 1);
    let a2 = area(&m, 2);
    let other = |a: u8| (a + 1) % 64;
    m.set_poly_area(r.poly(PolyIndex(0)), other(a0)).unwrap();
    check_writers(&m);
    assert_eq!(len(&m), 52);
    m.set_off_mesh_link_enabled(r, LinkIndex(0), false).unwrap();
    check_writers(&m);
    assert_eq!(len(&m), 56);
    m.set_poly_flags(r.poly(PolyIndex(1)), 0xbeef).unwrap();
    check_writers(&m);
    assert_eq!(len(&m), 63);
    let full = m.snapshot(SnapshotMode::Referenced);
    m.set_off_mesh_link_enabled(r, LinkIndex(3), false).unwrap();
    check_writers(&m);
    assert_eq!(len(&m), 67);
    m.set_poly_area(r.poly(PolyIndex(2)), other(a2)).unwrap();
    check_writers(&m);
    assert_eq!(len(&m), 74);
    let spilled = m.snapshot(SnapshotMode::Full);
    // Undoing an edit (values equal to the as-built ones are no edit) and a switch.
    m.set_poly_area(r.poly(PolyIndex(2)), a2).unwrap();
    m.set_poly_area(r.poly(PolyIndex(1)), a1).unwrap();
    check_writers(&m);
    assert_eq!(len(&m), 67);
    m.set_off_mesh_link_enabled(r, LinkIndex(3), true).unwrap();
    check_writers(&m);
    assert_eq!(len(&m), 63);
    // In-place restores (the rollback path keeps the slots) both ways, and a new mesh.
    m.restore(&spilled, &lib).unwrap();
    check_writers(&m);
    assert_eq!(len(&m), 74);
    assert_eq!(m.snapshot(SnapshotMode::Full), spilled);
    m.restore(&full, &lib).unwrap();
    check_writers(&m);
    assert_eq!(len(&m), 63);
    assert_eq!(m.snapshot(SnapshotMode::Referenced), full);
    let fresh = NavMeshSnapshot::restore(&spilled, &lib).unwrap();
    check_writers(&fresh);
    // Replacing and removing drop the edits and switches; the generation moves on.
    m.restore(&spilled, &lib).unwrap();
    let r2 = m.replace_tile(tiles[0].clone()).unwrap();
    check_writers(&m);
    assert_eq!(len(&m), 45);
    m.set_poly_area(r2.poly(PolyIndex(0)), other(a0)).unwrap();
    m.remove_tile(r2).unwrap();
    check_writers(&m);
    assert_eq!(len(&m), 5);
}

/// Chunk boundaries: a mesh of 140 slots (chunks of 32: four full and one of 12) with tiles, holes and edits in
/// every chunk, records growing and shrinking at chunk ends, and restores of it.
#[test]
fn cached_records_across_chunks() {
    let w = WorldSpec {
        columns: 10,
        rows: 7,
        links_per_tile: 1,
        ..WorldSpec::default()
    };
    let tiles = w.tiles();
    let lib = TileLibrary::from_tiles(&tiles);
    let mut m = TiledNavMesh::new(w.params(140));
    let refs: Vec<_> = tiles
        .iter()
        .map(|t| m.add_tile(t.clone()).unwrap())
        .collect();
    check_writers(&m);
    let before = m.snapshot(SnapshotMode::Referenced);
    for i in [0, 62, 63, 64, 65, 69] {
        m.set_poly_flags(refs[i].poly(PolyIndex(0)), 0x5a5a)
            .unwrap();
        m.set_off_mesh_link_enabled(refs[i], LinkIndex(0), false)
            .unwrap();
    }
    check_writers(&m);
    // Rollbacks (same generations and contents) from edited to plain slots and back.
    let edits_only = m.snapshot(SnapshotMode::Referenced);
    m.restore(&before, &lib).unwrap();
    check_writers(&m);
    m.restore(&edits_only, &lib).unwrap();
    check_writers(&m);
    assert_eq!(m.snapshot(SnapshotMode::Referenced), edits_only);
    m.remove_tile(refs[63]).unwrap();
    m.remove_tile(refs[5]).unwrap();
    check_writers(&m);
    // The lowest free slot first: tile 63 lands in slot 5, tile 5 in slot 63.
    assert_eq!(m.add_tile(tiles[63].clone()).unwrap().slot().0, 5);
    assert_eq!(m.add_tile(tiles[5].clone()).unwrap().slot().0, 63);
    m.replace_tile(tiles[64].clone()).unwrap();
    check_writers(&m);
    let edited = m.snapshot(SnapshotMode::Full);
    m.restore(&before, &lib).unwrap();
    check_writers(&m);
    assert_eq!(m.snapshot(SnapshotMode::Referenced), before);
    m.restore(&edited, &lib).unwrap();
    check_writers(&m);
    assert_eq!(m.snapshot(SnapshotMode::Full), edited);
    let fresh = NavMeshSnapshot::restore(&edited, &lib).unwrap();
    check_writers(&fresh);
    // A library of separately parsed tiles: the same contents in other allocations, which the
    // slots must then hold, also on the rollback path (same generations and contents).
    let other = TileLibrary::from_tiles(&w.tiles());
    m.restore(&before, &lib).unwrap();
    m.restore(&before, &other).unwrap();
    check_writers(&m);
    assert_eq!(m.snapshot(SnapshotMode::Referenced), before);
}

/// Everything observable of a mesh's state: its Full snapshot, its links, and its parameters.
fn observe(m: &TiledNavMesh) -> (Vec<u8>, Vec<Option<onav::TileLinks>>) {
    (m.snapshot(SnapshotMode::Full), all_links(m))
}

fn mutate(m: &mut TiledNavMesh) {
    let w = world();
    let first = m.tiles().next().map(|(r, _)| r).unwrap();
    m.remove_tile(first).unwrap();
    let (r, _) = m.tiles().nth(2).unwrap();
    m.set_poly_area(r.poly(PolyIndex(0)), 63).unwrap();
    let _ = m.add_tile(w.tile(TilePos {
        column: 1,
        row: 0,
        layer: 0,
    }));
}

#[test]
fn snapshot_mutate_restore_gives_identical_bytes_in_both_modes() {
    for mode in [SnapshotMode::Full, SnapshotMode::Referenced] {
        let (mut m, lib) = busy_mesh();
        let before = observe(&m);
        let snap = m.snapshot(mode);
        mutate(&mut m);
        assert_ne!(observe(&m).0, before.0);
        // New mesh.
        let fresh = NavMeshSnapshot::restore(&snap, &lib).unwrap();
        assert_eq!(fresh.snapshot(mode), snap);
        assert_eq!(observe(&fresh), before);
        // In place.
        m.restore(&snap, &lib).unwrap();
        assert_eq!(m.snapshot(mode), snap);
        assert_eq!(observe(&m), before);
        assert_eq!(all_links(&m), stitch_from_scratch(&m));
    }
}

#[test]
fn full_and_referenced_restore_to_identical_states_and_mixtures_are_read() {
    let (m, lib) = busy_mesh();
    let full =
        NavMeshSnapshot::restore(&m.snapshot(SnapshotMode::Full), &TileLibrary::new()).unwrap();
    let referenced = NavMeshSnapshot::restore(&m.snapshot(SnapshotMode::Referenced), &lib).unwrap();
    assert_eq!(observe(&full), observe(&referenced));
    assert_eq!(observe(&full), observe(&m));
    // A mixture: slot 0 inline, the rest referenced. Built by splicing slot 0's Full record in.
    let inline: Vec<bool> = (0..m.slot_count()).map(|i| i == 0).collect();
    let mixed = snapshot_mixed(&m, &inline);
    let restored = NavMeshSnapshot::restore(&mixed, &lib).unwrap();
    assert_eq!(observe(&restored), observe(&m));
}

#[test]
fn references_current_stale_and_forged_behave_as_before() {
    let (mut m, lib) = busy_mesh();
    let snap = m.snapshot(SnapshotMode::Referenced);
    let mut refs: Vec<u64> = Vec::new();
    for s in 0..16u32 {
        for g in 1..4u32 {
            for p in [0u32, 1, 3, 7, 1000] {
                refs.push(
                    PolyRef::new(
                        onav::Generation::new(g).unwrap(),
                        SlotIndex(s),
                        PolyIndex(p),
                    )
                    .raw(),
                );
            }
        }
    }
    let mut x = 7u64;
    for _ in 0..2000 {
        x = onav::generator::mix(x);
        refs.push(x);
    }
    let valid_before: Vec<bool> = refs.iter().map(|&r| m.is_valid_raw_ref(r)).collect();
    assert!(valid_before.iter().any(|&v| v) && valid_before.iter().any(|&v| !v));
    mutate(&mut m);
    m.restore(&snap, &lib).unwrap();
    let valid_after: Vec<bool> = refs.iter().map(|&r| m.is_valid_raw_ref(r)).collect();
    assert_eq!(valid_before, valid_after);
}

#[test]
fn ownership_edits_never_reach_the_callers_tile_or_other_meshes() {
    let w = world();
    let tile = w.tile(TilePos {
        column: 0,
        row: 0,
        layer: 0,
    });
    let mut a = TiledNavMesh::new(w.params(4));
    let mut b = TiledNavMesh::new(w.params(4));
    let ra = a.add_tile(tile.clone()).unwrap();
    let rb = b.add_tile(tile.clone()).unwrap();
    let a0 = tile.area(PolyIndex(0)).unwrap();
    assert_ne!(a0, 9);
    a.set_poly_area(ra.poly(PolyIndex(0)), 9).unwrap();
    assert_eq!(tile.area(PolyIndex(0)), Some(a0));
    assert_eq!(b.poly_area(rb.poly(PolyIndex(0))), Some(a0));
    // A tile taken from an edited mesh carries its current values; as-built stay the original.
    let taken = a.tile(ra).unwrap().clone();
    assert_eq!(taken.area(PolyIndex(0)), Some(9));
    assert_eq!(taken.content_id(), tile.content_id());
    let mut c = TiledNavMesh::new(w.params(4));
    let rc = c.add_tile(taken).unwrap();
    assert_eq!(c.poly_area(rc.poly(PolyIndex(0))), Some(9));
    assert_eq!(
        c.snapshot(SnapshotMode::Referenced),
        a.snapshot(SnapshotMode::Referenced)
    );
    // Replace resets the position's edits to the new tile's values.
    c.replace_tile(tile.clone()).unwrap();
    let (rc2, _) = c.tile_at(tile.pos()).unwrap();
    assert_eq!(c.poly_area(rc2.poly(PolyIndex(0))), Some(a0));
    assert_eq!(c.tile(rc2).unwrap().edited_polys().len(), 0);
}

#[test]
fn write_mesh_keeps_current_values_as_built_and_drops_switches() {
    let (m, _) = busy_mesh();
    let file = write_mesh(&m);
    let back = read_mesh(&file).unwrap();
    assert_eq!(back.tile_count(), m.tile_count());
    for ((_, a), (rb, b)) in m.tiles().zip(back.tiles()) {
        assert_eq!(a.areas(), b.areas());
        assert!(a.all_flags().eq(b.all_flags()));
        assert_eq!(b.edited_polys().len(), 0, "current values became as-built");
        assert_eq!(
            b.disabled_links().len(),
            0,
            "no link switches in a mesh file"
        );
        assert_eq!(rb.generation().get(), 1);
    }
    assert_eq!(write_mesh(&back), file);
    for cut in 0..file.len() {
        assert!(read_mesh(&file[..cut]).is_err());
    }
}

/// Restores `bytes` in place; on error the mesh must be exactly as before; on success the input
/// must have been canonical: a re-snapshot in one of the modes gives it back.
fn check_all_or_nothing(
    m: &mut TiledNavMesh,
    lib: &TileLibrary,
    bytes: &[u8],
    before: &(Vec<u8>, Vec<Option<onav::TileLinks>>),
) -> bool {
    match m.restore(bytes, lib) {
        Err(_) => {
            assert_eq!(&observe(m), before, "failed restore changed the mesh");
            true
        }
        Ok(()) => {
            let full = m.snapshot(SnapshotMode::Full);
            let refd = m.snapshot(SnapshotMode::Referenced);
            assert!(
                full == bytes || refd == bytes,
                "accepted a non-canonical snapshot"
            );
            m.restore(&before.0, &TileLibrary::new()).unwrap();
            false
        }
    }
}

#[test]
fn failed_in_place_restore_leaves_the_mesh_untouched_truncations_and_byte_changes() {
    let (base, lib) = busy_mesh();
    let (other, _) = {
        let (mut o, l) = busy_mesh();
        mutate(&mut o);
        (o, l)
    };
    for src in [&base, &other] {
        for mode in [SnapshotMode::Referenced, SnapshotMode::Full] {
            let snap = src.snapshot(mode);
            let mut m = base.clone();
            mutate(&mut m);
            let before = observe(&m);
            for cut in 0..snap.len() {
                assert!(check_all_or_nothing(&mut m, &lib, &snap[..cut], &before));
            }
            let values: &[u8] = if mode == SnapshotMode::Referenced {
                &[1, 2, 4, 8, 16, 32, 64, 128, 0xff, 0x7f, 0x55]
            } else {
                &[1, 0x80, 0xff]
            };
            let mut rejected = 0;
            for i in 0..snap.len() {
                for &x in values {
                    let mut bad = snap.clone();
                    bad[i] ^= x;
                    rejected += usize::from(check_all_or_nothing(&mut m, &lib, &bad, &before));
                }
            }
            assert!(
                rejected > snap.len(),
                "most single-byte changes must be rejected"
            );
        }
    }
}

fn expect_err(bytes: &[u8], lib: &TileLibrary, class: &str, field: &str) {
    let (mut m, _) = busy_mesh();
    let before = observe(&m);
    let e = m.restore(bytes, lib).expect_err("must reject");
    assert_eq!((e.class(), e.field()), (class, field), "{e}");
    assert_eq!(observe(&m), before);
    let e2 = NavMeshSnapshot::restore(bytes, lib).expect_err("must reject");
    if field != "params" && field != "params.settings_digest" {
        assert_eq!((e2.class(), e2.field()), (class, field));
    }
}

#[test]
fn field_aware_corruptions_are_rejected_with_their_field() {
    let (m, lib) = busy_mesh();
    let snap = m.snapshot(SnapshotMode::Referenced);
    let lay = layout(&snap);
    let set32 = |at: usize, v: u32| {
        let mut b = snap.clone();
        b[at..at + 4].copy_from_slice(&v.to_le_bytes());
        b
    };
    expect_err(&set32(0, 0), &lib, "format", "magic");
    expect_err(&set32(76, 2), &lib, "format", "section[1].id");
    expect_err(&set32(76, 0), &lib, "format", "section_count");
    expect_err(&set32(84, 5), &lib, "format", "slots.slot_count");
    expect_err(&set32(84, 0xffff_fff0), &lib, "format", "section[0].length");
    expect_err(&set32(88, 17), &lib, "format", "slots.slot_count");
    let occupied = lay.iter().position(|s| s.kind == 2).unwrap();
    let s = &lay[occupied];
    expect_err(
        &set32(s.at, 0),
        &lib,
        "format",
        &format!("slot[{occupied}].generation"),
    );
    expect_err(
        &set32(s.at, 1 << 24),
        &lib,
        "format",
        &format!("slot[{occupied}].generation"),
    );
    let mut b = snap.clone();
    b[s.at + 4] = 3;
    expect_err(&b, &lib, "format", &format!("slot[{occupied}].kind"));
    let mut b = snap.clone();
    b[s.at + 5] ^= 1;
    expect_err(&b, &lib, "format", &format!("slot[{occupied}].content_id"));
    // Fingerprints: a library tile built with other settings.
    let mut w2 = world();
    w2.agent.climb = 0.5;
    let lib2 = TileLibrary::from_tiles(&w2.tiles());
    let mut b = snap.clone();
    let t = w2.tile(
        m.tiles()
            .find(|(r, _)| r.slot().0 == occupied as u32)
            .unwrap()
            .1
            .pos(),
    );
    b[s.at + 5..s.at + 37].copy_from_slice(&t.content_id().0);
    expect_err(
        &b,
        &lib2,
        "fingerprint",
        &format!("slot[{occupied}].content_id"),
    );
    // Snapshot digest differs from the mesh's: fingerprint for in place.
    let mut b = snap.clone();
    b[44] ^= 1;
    let (mut mm, _) = busy_mesh();
    assert_eq!(mm.restore(&b, &lib).unwrap_err().class(), "fingerprint");
    // Edits: area > 63, order, equal to as-built, polygon out of range.
    let e = lay.iter().position(|s| !s.edits.is_empty()).unwrap();
    let at = lay[e].edits[0];
    let mut b = snap.clone();
    b[at + 4] = 64;
    expect_err(&b, &lib, "format", &format!("slot[{e}].edit[0].area"));
    let mut b = snap.clone();
    b[at + 4] = m
        .tiles()
        .find(|(r, _)| r.slot().0 == e as u32)
        .unwrap()
        .1
        .as_built_area(PolyIndex(0))
        .unwrap();
    b[at + 5..at + 7].copy_from_slice(
        &m.tiles()
            .find(|(r, _)| r.slot().0 == e as u32)
            .unwrap()
            .1
            .as_built_flags(PolyIndex(0))
            .unwrap()
            .to_le_bytes(),
    );
    expect_err(&b, &lib, "format", &format!("slot[{e}].edit[0]"));
    let at1 = lay[e].edits[1];
    let b = set32(at1, 0);
    expect_err(&b, &lib, "format", &format!("slot[{e}].edit[1].polygon"));
    let last = *lay[e].edits.last().unwrap();
    let b = set32(last, 1_000_000);
    expect_err(
        &b,
        &lib,
        "format",
        &format!("slot[{e}].edit[{}].polygon", lay[e].edits.len() - 1),
    );
    // Link switches out of range.
    let d = lay.iter().position(|s| !s.disabled.is_empty()).unwrap();
    let b = set32(lay[d].disabled[0], 99);
    expect_err(&b, &lib, "format", &format!("slot[{d}].disabled[0]"));
    // Trailing bytes.
    let mut b = snap.clone();
    b.push(0);
    expect_err(&b, &lib, "format", "end");
    let mut b = snap.clone();
    b.push(0);
    let n = b.len() - 88 - 1;
    b[84..88].copy_from_slice(&(n as u32 + 1).to_le_bytes());
    expect_err(&b, &lib, "format", "section[0].length");
}

#[test]
fn duplicate_positions_are_rejected() {
    let (m, lib) = busy_mesh();
    let snap = m.snapshot(SnapshotMode::Referenced);
    let lay = layout(&snap);
    let occ: Vec<usize> = lay
        .iter()
        .enumerate()
        .filter(|(_, s)| s.kind == 2)
        .map(|(i, _)| i)
        .collect();
    let mut b = snap.clone();
    let src = lay[occ[0]].at + 5;
    let dst = lay[occ[1]].at + 5;
    let id: Vec<u8> = b[src..src + 32].to_vec();
    b[dst..dst + 32].copy_from_slice(&id);
    // In place, too: the mesh is untouched.
    let (mut inplace, _) = busy_mesh();
    let before = observe(&inplace);
    assert!(inplace.restore(&b, &lib).is_err());
    assert_eq!(observe(&inplace), before);
    let err = NavMeshSnapshot::restore(&b, &lib).unwrap_err();
    match err {
        RestoreError::Format(e) if e.reason == FormatReason::DuplicatePosition => {
            assert_eq!(e.field, format!("slot[{}].content_id", occ[1]))
        }
        RestoreError::Format(e) => {
            assert!(e.field.starts_with(&format!("slot[{}]", occ[1])), "{e}")
        }
        other => panic!("{other}"),
    }
}

#[test]
fn bytes_states_and_errors_are_identical_for_every_thread_count() {
    let (m, lib) = busy_mesh();
    let snaps = [
        m.snapshot(SnapshotMode::Full),
        m.snapshot(SnapshotMode::Referenced),
    ];
    let mut broken = snaps[0].clone();
    let lay = layout(&broken);
    // Break two inline tiles: the lower slot's error must always win.
    let occ: Vec<usize> = lay
        .iter()
        .enumerate()
        .filter(|(_, s)| s.kind == 1)
        .map(|(i, _)| i)
        .collect();
    for &i in &occ[1..3] {
        broken[lay[i].at + 9] ^= 0xff; // tile magic
    }
    let run = || {
        let a = NavMeshSnapshot::restore(&snaps[0], &lib)
            .unwrap()
            .snapshot(SnapshotMode::Full);
        let b = NavMeshSnapshot::restore(&snaps[1], &lib)
            .unwrap()
            .snapshot(SnapshotMode::Referenced);
        let e = NavMeshSnapshot::restore(&broken, &lib).unwrap_err();
        (a, b, e)
    };
    let results: Vec<_> = [1, 2, 4, 8]
        .iter()
        .map(|&n| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .unwrap()
                .install(run)
        })
        .collect();
    for r in &results[1..] {
        assert_eq!(r, &results[0]);
    }
    assert_eq!(results[0].2.field(), format!("slot[{}].tile.magic", occ[1]));
    assert_eq!(results[0].0, snaps[0]);
}

/// Validation and commit are separate steps: a checked snapshot commits to exactly what
/// `restore` gives, in place and into a new mesh, and two snapshots can be checked before either
/// is committed (the tile cache's two-phase restore).
#[test]
fn check_then_commit_equals_restore() {
    let (m, lib) = busy_mesh();
    let full = m.snapshot(SnapshotMode::Full);
    let referenced = m.snapshot(SnapshotMode::Referenced);
    let mut other = m.clone();
    mutate(&mut other);
    let before = observe(&other);

    // Both checked first; a failing check of a third changes nothing.
    let a = other.check_restore(&full, &lib).unwrap();
    let b = NavMeshSnapshot::check(&referenced, &lib).unwrap();
    assert!(other.check_restore(&full[..full.len() - 1], &lib).is_err());
    assert_eq!(observe(&other), before);
    assert_eq!(a.params().to_bytes(), m.params().to_bytes());
    assert_eq!(a.tile_count(), m.tile_count());

    other.commit(a);
    assert_eq!(observe(&other), observe(&m));
    let fresh = TiledNavMesh::from_snapshot(b);
    assert_eq!(observe(&fresh), observe(&m));
    assert_eq!(NavMeshSnapshot::validate(&referenced, &lib), Ok(()));
}

/// A restore error nested in an outer input (a mesh snapshot inside another file) moves by the
/// outer offset and gains the outer field prefix, for both classes.
#[test]
fn restore_errors_nest_in_an_outer_input() {
    let (m, lib) = busy_mesh();
    let mut b = m.snapshot(SnapshotMode::Referenced);
    b[0] ^= 1;
    let e = NavMeshSnapshot::restore(&b, &lib)
        .unwrap_err()
        .nested(100, "mesh");
    assert_eq!(
        (e.class(), e.field(), e.offset()),
        ("format", "mesh.magic", Some(100))
    );
    let mut b = m.snapshot(SnapshotMode::Referenced);
    b[44] ^= 1;
    let mut mm = m.clone();
    let e = mm.restore(&b, &lib).unwrap_err().nested(7, "mesh");
    assert_eq!(
        (e.class(), e.field(), e.offset()),
        ("fingerprint", "mesh.params.settings_digest", Some(51))
    );
}

/// Edits and switches only, no tile changes: flags on every third polygon of every other tile,
/// and the first two links of every tile with links switched by `seed`'s parity.
fn edit_only(m: &mut TiledNavMesh, seed: u16) {
    let refs: Vec<_> = m
        .tiles()
        .map(|(r, t)| (r, t.poly_count(), t.link_count()))
        .collect();
    for (k, &(r, np, nl)) in refs.iter().enumerate() {
        if (k + usize::from(seed)).is_multiple_of(2) {
            for p in (0..np).filter(|p| (*p as usize + k).is_multiple_of(3)) {
                m.set_poly_flags(r.poly(PolyIndex(p)), seed ^ (p as u16) ^ 0x4000)
                    .unwrap();
            }
        }
        for l in 0..nl.min(2) {
            m.set_off_mesh_link_enabled(r, LinkIndex(l), seed.is_multiple_of(2))
                .unwrap();
        }
    }
}

/// Checks an in-place restore's two paths on `bytes` (`onav::testing::restore_paths`): when the
/// rollback fast path applies, the full restore succeeds with the same state, and
/// `TiledNavMesh::restore` gives what the full restore gives, result and state. True when the
/// fast path applied.
fn same_restore_paths(dst: &TiledNavMesh, bytes: &[u8], lib: &TileLibrary) -> bool {
    let (fast, general) = onav::testing::restore_paths(dst, bytes, lib);
    let mut m = dst.clone();
    let combined = m.restore(bytes, lib);
    assert_eq!(combined, general.as_ref().map(drop).map_err(Clone::clone));
    let expect = general.as_ref().map_or_else(|_| observe(dst), observe);
    assert_eq!(observe(&m), expect);
    let Some(f) = fast else {
        return false;
    };
    let g = general.expect("the fast path applied, so the full restore must succeed");
    assert_eq!(observe(&f), observe(&g));
    for mode in [SnapshotMode::Full, SnapshotMode::Referenced] {
        assert_eq!(f.snapshot(mode), g.snapshot(mode), "{mode:?}");
    }
    assert_eq!(f.snapshot(SnapshotMode::Referenced), bytes);
    check_writers(&f);
    true
}

/// The in-place restore's rollback fast path (S21) accepts exactly the rollbacks the full restore
/// accepts and builds the same state, and declines everything else (truncations, byte changes,
/// a library without the tiles), so every error comes from the full restore.
#[test]
fn rollback_fast_path_equals_the_full_restore() {
    let (base, lib) = busy_mesh();
    let mut states = vec![base.clone()];
    for seed in [1, 2, 0x8001] {
        let mut m = base.clone();
        edit_only(&mut m, seed);
        states.push(m);
    }
    // Edits undone: the busy mesh's edited polygons back to their as-built values.
    let mut undone = base.clone();
    let (r, t) = undone
        .tiles()
        .find(|(_, t)| t.edited_polys().len() > 0)
        .unwrap();
    let edited: Vec<_> = t
        .edited_polys()
        .map(|p| (p, t.as_built_area(p).unwrap(), t.as_built_flags(p).unwrap()))
        .collect();
    for (p, a, f) in edited {
        undone.set_poly_area(r.poly(p), a).unwrap();
        undone.set_poly_flags(r.poly(p), f).unwrap();
    }
    states.push(undone);
    for s in &states {
        // A rollback loop's mesh has written its Referenced snapshot before.
        let _ = s.snapshot(SnapshotMode::Referenced);
    }
    let mut accepted_changes = 0;
    for src in &states {
        let snap = src.snapshot(SnapshotMode::Referenced);
        for dst in &states {
            assert!(same_restore_paths(dst, &snap, &lib), "a pure rollback");
            // Another library with the tiles, then one without: the membership rule (S10) is
            // checked, not remembered across libraries.
            let mut m = dst.clone();
            m.restore(&snap, &lib).unwrap();
            assert!(same_restore_paths(&m, &snap, &lib.clone()));
            assert!(!same_restore_paths(&m, &snap, &TileLibrary::new()));
            assert!(m.restore(&snap, &TileLibrary::new()).is_err());
        }
        let dst = &states[1];
        for cut in 0..snap.len() {
            assert!(!same_restore_paths(dst, &snap[..cut], &lib));
        }
        for i in 0..snap.len() {
            for x in [1, 0x40, 0x80, 0xff] {
                let mut bad = snap.clone();
                bad[i] ^= x;
                accepted_changes += usize::from(same_restore_paths(dst, &bad, &lib));
            }
        }
    }
    // Some byte changes are other valid edits (a flags byte): the fast path takes those.
    assert!(accepted_changes > 0);
}

/// The fast path remembers which library holds the mesh's tiles only until a tile changes: a
/// tile the library lacks, put in by `replace_tile`, makes the next rollback to a state holding
/// it fail as the full restore fails (S10).
#[test]
fn rollback_membership_is_checked_again_after_a_tile_change() {
    let (mut m, lib) = busy_mesh();
    let snap = m.snapshot(SnapshotMode::Referenced);
    edit_only(&mut m, 1);
    m.restore(&snap, &lib).unwrap();
    let pos = m.tiles().next().unwrap().1.pos();
    m.replace_tile(other_world().tile(pos)).unwrap();
    let with_other = m.snapshot(SnapshotMode::Referenced);
    edit_only(&mut m, 2);
    let _ = m.snapshot(SnapshotMode::Referenced);
    assert!(!same_restore_paths(&m, &with_other, &lib));
    let err = m.restore(&with_other, &lib).unwrap_err();
    assert!(err.to_string().contains("content_id"), "{err}");
}

/// A Full rollback whose changed slots lie in a chunk of records the mesh has built and in a
/// later one it has not (adding a tile whose content id is not computed yet dropped it): the
/// built chunk takes only its own slots' new edits, and an edit the snapshot keeps stays.
#[test]
fn rollback_across_a_built_and_an_unbuilt_chunk() {
    let w = WorldSpec {
        columns: 7,
        rows: 7,
        quads: 1,
        ..WorldSpec::default()
    };
    let tiles = w.tiles();
    assert_eq!(tiles.len(), 49);
    let lib = TileLibrary::from_tiles(&tiles);
    let mut m = onav_testkit::mesh_of(&w.params(49), &tiles[..48]).unwrap();
    let _ = m.snapshot(SnapshotMode::Referenced);
    m.add_tile(w.tile(tiles[48].pos())).unwrap();
    let poly = |m: &TiledNavMesh, slot: u32| {
        let (r, _) = m
            .tiles()
            .find(|(r, _)| r.slot() == SlotIndex(slot))
            .unwrap();
        r.poly(PolyIndex(0))
    };
    m.set_poly_flags(poly(&m, 8), 0x55).unwrap();
    let snap = m.snapshot(SnapshotMode::Full);
    m.set_poly_flags(poly(&m, 3), 0x66).unwrap();
    m.set_poly_flags(poly(&m, 40), 0x77).unwrap();
    let (fast, general) = onav::testing::restore_paths(&m, &snap, &lib);
    let (f, g) = (
        fast.expect("edits only: the fast path applies"),
        general.unwrap(),
    );
    assert_eq!(observe(&f), observe(&g));
    for mode in [SnapshotMode::Full, SnapshotMode::Referenced] {
        assert_eq!(f.snapshot(mode), g.snapshot(mode), "{mode:?}");
    }
    assert_eq!(f.snapshot(SnapshotMode::Full), snap);
    check_writers(&f);
}

/// A small deterministic generator for the random histories below (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// One frame of a random history: some polygons get new flags or areas (some back to their
/// as-built values), some links switch.
fn random_frame(m: &mut TiledNavMesh, rng: &mut Rng) {
    let tiles: Vec<_> = m
        .tiles()
        .map(|(r, t)| (r, t.poly_count(), t.link_count()))
        .collect();
    for _ in 0..rng.below(12) {
        let (r, np, nl) = tiles[rng.below(tiles.len() as u64) as usize];
        let p = r.poly(PolyIndex(rng.below(u64::from(np)) as u32));
        match rng.below(5) {
            0 => m.set_poly_area(p, rng.below(64) as u8).unwrap(),
            1 | 2 => m.set_poly_flags(p, rng.below(4) as u16).unwrap(),
            3 => {
                // Back to the as-built values.
                let (t, i) = m.poly(p).unwrap();
                let (a, f) = (t.as_built_area(i).unwrap(), t.as_built_flags(i).unwrap());
                m.set_poly_area(p, a).unwrap();
                m.set_poly_flags(p, f).unwrap();
            }
            _ if nl > 0 => {
                let l = LinkIndex(rng.below(u64::from(nl)) as u32);
                let on = m.is_off_mesh_link_enabled(r, l).unwrap();
                m.set_off_mesh_link_enabled(r, l, !on).unwrap();
            }
            _ => {}
        }
    }
}

/// The rollback fast path (S21) and the full restore agree over a random history of 40 frames
/// of edits and switches on a mesh of three chunks of slots (with free slots), for Full,
/// Referenced and mixed snapshots, into meshes whose cached records are built or not: the fast
/// path applies to every such rollback and builds the state the full restore builds, whose
/// snapshots are the frame's own.
#[test]
fn rollback_fast_path_agrees_with_the_full_restore_over_random_frames() {
    let w = WorldSpec {
        columns: 9,
        rows: 5,
        quads: 2,
        vary_density: true,
        links_per_tile: 2,
        area_kinds: 3,
        ..WorldSpec::default()
    };
    let tiles = w.tiles();
    let lib = TileLibrary::from_tiles(&tiles);
    let mut m = TiledNavMesh::new(w.params(80));
    let refs: Vec<_> = tiles
        .iter()
        .map(|t| m.add_tile(t.clone()).unwrap())
        .collect();
    for r in refs.iter().step_by(5) {
        m.remove_tile(*r).unwrap();
    }
    let mut rng = Rng(13);
    let mut frames = Vec::new();
    for _ in 0..40 {
        random_frame(&mut m, &mut rng);
        let inline: Vec<bool> = (0..80).map(|_| rng.below(2) == 0).collect();
        frames.push((
            m.snapshot(SnapshotMode::Full),
            m.snapshot(SnapshotMode::Referenced),
            snapshot_mixed(&m, &inline),
        ));
    }
    let mut applied = 0;
    for (j, (full, referenced, mixed)) in frames.iter().enumerate() {
        // Into the mesh as it ended (cached records built), and into a copy restored from a
        // Full snapshot that never wrote a Referenced one (none built).
        let fresh = NavMeshSnapshot::restore(&frames[(j * 7) % 40].0, &lib).unwrap();
        for dst in [&m, &fresh] {
            for bytes in [full, referenced, mixed] {
                let (fast, general) = onav::testing::restore_paths(dst, bytes, &lib);
                let f = fast.expect("edits and switches only: the fast path applies");
                let g = general.unwrap();
                assert_eq!(observe(&f), observe(&g));
                assert_eq!(f.snapshot(SnapshotMode::Full), *full, "frame {j}");
                assert_eq!(
                    f.snapshot(SnapshotMode::Referenced),
                    *referenced,
                    "frame {j}"
                );
                for ((_, a), (_, b)) in f.tiles().zip(g.tiles()) {
                    assert_eq!(a, b);
                }
                check_writers(&f);
                applied += 1;
            }
        }
        // Restoring in place twice in a row: the second one changes nothing.
        let mut again = m.clone();
        again.restore(mixed, &lib).unwrap();
        again.restore(full, &lib).unwrap();
        assert_eq!(again.snapshot(SnapshotMode::Referenced), *referenced);
        m.restore(referenced, &lib).unwrap();
        random_frame(&mut m, &mut rng);
    }
    assert_eq!(applied, 240);
}
