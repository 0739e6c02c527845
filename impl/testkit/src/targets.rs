//! The fuzz entry points (`spec/security.md` §9). Each `fuzz_*` function takes arbitrary bytes,
//! runs one parser or one operation sequence, and asserts the invariants that hold for every
//! input: it panics exactly when it finds a bug. The cargo-fuzz targets in `fuzz/` are one-line
//! wrappers around these functions, and onav's integration test `fuzz_replay` replays every seed
//! and regression file through them on stable Rust, so a crash found once stays tested.
//!
//! Invariants checked:
//! - every rejection is an error (never a panic) whose byte offset lies within the input and
//!   whose field path is not empty;
//! - every accepted input is canonical: writing the accepted state back gives the input bytes
//!   (a tile through its as-built bytes and through [`RawTile`]; a snapshot in the same mix of
//!   Full and Referenced slot records it was read with; a mesh file through `write_mesh`);
//! - the links of an accepted mesh equal a from-scratch stitch (history independence, and the
//!   link reuse of in-place restore);
//! - a failed in-place restore leaves the mesh byte-identical (Full snapshot and every link);
//! - in-place restore accepts exactly what restore into a new mesh accepts when the parameters
//!   match, with the same error, and yields the same state;
//! - Full and Referenced snapshots of any reachable state restore to identical states that
//!   snapshot back to identical bytes.

use onav::bytes::Reader;
use onav::limits::{FILE_HEADER_LEN, PARAMS_AT};
use onav::testing::{all_links, same_tile_data, stitch_from_scratch, tile_reader_paths};
use onav::{
    read_mesh, write_mesh, MeshParams, NavMeshSnapshot, NavTile, PolyIndex, RawTile, RestoreError,
    SnapshotMode, TileLibrary, TileLinks, TiledNavMesh,
};
use sha2::{Digest, Sha256};

use crate::cursor::Cursor;
use crate::fixture::fixture;
use crate::model::{snapshot_mixed, SnapModel, KIND_INLINE};
use crate::ops::{decode_step, Context, Twins};
use crate::structured::mutate;

/// A fuzz entry point: arbitrary bytes in, a panic on a finding.
pub type EntryPoint = fn(&[u8]);

/// Every fuzz target by name, with its entry point. The names are the folder names under
/// `fuzz/seeds/`, `fuzz/regressions/` and `fuzz/fuzz_targets/`.
pub const TARGETS: &[(&str, EntryPoint)] = &[
    ("tile_parse", fuzz_tile_parse),
    ("tile_fast_vs_general", fuzz_tile_fast_vs_general),
    ("restore_new", fuzz_restore_new),
    ("restore_in_place", fuzz_restore_in_place),
    ("read_mesh", fuzz_read_mesh),
    ("snapshot_structured", fuzz_snapshot_structured),
    ("differential", fuzz_differential),
];

/// A rejection must name a field and point inside (or just past the end of) the input.
fn check_error(e: &RestoreError, len: usize) {
    assert!(!e.field().is_empty(), "error without a field path: {e:?}");
    if let Some(off) = e.offset() {
        assert!(
            off <= len as u64,
            "error offset {off} past input of {len}: {e:?}"
        );
    }
}

/// What every accepted snapshot must satisfy: it is the canonical encoding of the state it
/// restored to (in its own mix of modes), and the restored links equal a from-scratch stitch.
fn check_accepted_snapshot(m: &TiledNavMesh, data: &[u8]) {
    let model = SnapModel::parse(data).expect("an accepted snapshot has the one-section layout");
    let inline: Vec<bool> = model.slots.iter().map(|s| s.kind == KIND_INLINE).collect();
    assert!(
        snapshot_mixed(m, &inline) == data,
        "accepted snapshot is not canonical"
    );
    assert!(
        all_links(m) == stitch_from_scratch(m),
        "restored links differ from a from-scratch stitch"
    );
}

/// Target `tile_parse`: [`NavTile::from_bytes`]. An accepted tile writes back to the input (its
/// as-built bytes, `to_bytes`, and [`RawTile`] re-encoding its parsed fields), and its content id
/// is the SHA-256 of the input.
pub fn fuzz_tile_parse(data: &[u8]) {
    match NavTile::from_bytes(data) {
        Ok(t) => {
            assert!(t.as_built_bytes() == data, "as-built bytes differ");
            assert!(t.to_bytes() == data, "to_bytes differs from the input");
            assert!(
                RawTile::from_tile(&t).to_bytes() == data,
                "re-encoded fields differ from the input (non-canonical tile accepted)"
            );
            let id: [u8; 32] = Sha256::digest(data).into();
            assert_eq!(
                t.content_id().0,
                id,
                "content id is not SHA-256 of the input"
            );
            assert_eq!(t.poly_count(), t.ground_poly_count() + t.link_count());
            check_orientations(&t);
        }
        Err(e) => check_error(&e.into(), data.len()),
    }
}

/// Target `tile_fast_vs_general`: the tile reader's fast validator and its field-by-field reader
/// (`onav::testing::tile_reader_paths`) accept exactly the same inputs, build the same contents
/// from them, and `NavTile::from_bytes` gives the field-by-field reader's result: the same tile,
/// or the same error (field path, offset and reason).
pub fn fuzz_tile_fast_vs_general(data: &[u8]) {
    let (fast, general) = tile_reader_paths(data);
    let whole = NavTile::from_bytes(data);
    match (&fast, &general) {
        (Some(f), Ok(g)) => assert!(
            same_tile_data(f, g),
            "the two paths read different contents"
        ),
        (None, Err(e)) => assert_eq!(
            whole.as_ref().err(),
            Some(e),
            "from_bytes changed the error"
        ),
        (Some(_), Err(e)) => panic!("the fast path accepts what the reader rejects: {e:?}"),
        (None, Ok(_)) => panic!("the fast path rejects a valid tile"),
    }
    if let (Ok(w), Ok(g)) = (&whole, &general) {
        assert!(same_tile_data(w, g), "from_bytes read different contents");
    }
}

/// Rules T12 and T17 recomputed on an accepted tile: every polygon turns strictly left at each
/// vertex and every detail triangle is counter-clockwise, each orientation provably positive
/// (not NaN).
fn check_orientations(t: &NavTile) {
    use onav::geom::orient;
    for (i, p) in t.ground_polys().iter().enumerate() {
        let v: Vec<_> = p
            .verts()
            .iter()
            .map(|&k| t.vertices()[k as usize])
            .collect();
        let n = v.len();
        for k in 0..n {
            let o = orient(&v[k], &v[(k + 1) % n], &v[(k + 2) % n]);
            assert!(
                o > 0.0,
                "accepted polygon {i} has orientation {o} at vertex {k}"
            );
        }
        let Some(d) = t.detail_mesh(PolyIndex(i as u32)) else {
            panic!("ground polygon {i} has no detail record");
        };
        for tri in d.triangle_base..d.triangle_base + d.triangle_count {
            let Some([a, b, c]) = t.detail_triangle(PolyIndex(i as u32), tri) else {
                panic!("detail triangle {tri} of polygon {i} is not its own");
            };
            let o = orient(&a, &b, &c);
            assert!(
                o > 0.0,
                "accepted detail triangle {tri} has orientation {o}"
            );
        }
    }
}

/// Target `restore_new`: [`NavMeshSnapshot::restore`] with the fixture library. An accepted
/// snapshot is canonical and its links equal a from-scratch stitch.
pub fn fuzz_restore_new(data: &[u8]) {
    let fx = fixture();
    match NavMeshSnapshot::restore(data, &fx.library) {
        Ok(m) => check_accepted_snapshot(&m, data),
        Err(e) => check_error(&e, data.len()),
    }
}

/// Target `restore_in_place`: [`TiledNavMesh::restore`] into a copy of the busy mesh, checked by
/// [`restore_in_place_into`].
pub fn fuzz_restore_in_place(data: &[u8]) {
    let fx = fixture();
    restore_in_place_into(&fx.busy, &fx.busy_full, &fx.busy_links, data, &fx.library);
}

/// The parameter block of a snapshot, if it can be read.
fn params_of(data: &[u8]) -> Option<MeshParams> {
    let block = data.get(PARAMS_AT as usize..FILE_HEADER_LEN)?;
    MeshParams::read(&mut Reader::new(block, PARAMS_AT)).ok()
}

/// The `restore_in_place` checks against any base mesh, given its Full snapshot and links: a
/// failure leaves the mesh byte-identical (Full snapshot and links); a success is canonical,
/// reuses links correctly, and agrees with restore into a new mesh. In place and into a new mesh
/// accept exactly the same inputs, with the same error, unless the snapshot's parameters differ
/// from the mesh's (in place then rejects them, `spec/snapshot.md` S2).
///
/// # Panics
///
/// On any breach of these rules.
pub fn restore_in_place_into(
    base: &TiledNavMesh,
    base_full: &[u8],
    base_links: &[Option<TileLinks>],
    data: &[u8],
    lib: &TileLibrary,
) {
    let mut m = base.clone();
    let fresh = NavMeshSnapshot::restore(data, lib);
    let same_params = params_of(data).is_none_or(|p| p.bits_eq(base.params()));
    match m.restore(data, lib) {
        Err(e) => {
            check_error(&e, data.len());
            assert!(
                m.snapshot(SnapshotMode::Full) == base_full,
                "failed in-place restore changed the mesh's snapshot"
            );
            assert!(
                all_links(&m) == base_links,
                "failed in-place restore changed the mesh's links"
            );
            match fresh {
                Ok(_) => assert!(
                    !same_params,
                    "in-place rejected what a new-mesh restore accepts with equal parameters: {e:?}"
                ),
                Err(e2) => assert!(
                    !same_params || e == e2,
                    "in-place and new-mesh restores fail differently: {e:?} and {e2:?}"
                ),
            }
        }
        Ok(()) => {
            check_accepted_snapshot(&m, data);
            let f = fresh.expect("in-place accepted what a new-mesh restore rejects");
            assert!(f.params().bits_eq(m.params()));
            assert!(
                f.snapshot(SnapshotMode::Full) == m.snapshot(SnapshotMode::Full),
                "in-place and new-mesh restores differ"
            );
            assert!(
                all_links(&f) == all_links(&m),
                "in-place and new-mesh links differ"
            );
        }
    }
}

/// Target `read_mesh`: [`read_mesh`]. An accepted mesh file writes back to the input, and the
/// mesh's links equal a from-scratch stitch.
pub fn fuzz_read_mesh(data: &[u8]) {
    match read_mesh(data) {
        Ok(m) => {
            assert!(
                write_mesh(&m) == data,
                "accepted mesh file is not canonical"
            );
            assert!(all_links(&m) == stitch_from_scratch(&m), "links differ");
        }
        Err(e) => check_error(&e, data.len()),
    }
}

/// Target `snapshot_structured`: picks a valid base snapshot (the busy mesh in Full, Referenced
/// or mixed mode, or a mesh holding every tile), applies field-aware mutations to counts, ids,
/// generations, edits, link indices, positions and framing, encodes it, and runs the
/// `restore_new` and `restore_in_place` checks on the result. Unmutated, the base must restore.
pub fn fuzz_snapshot_structured(data: &[u8]) {
    let fx = fixture();
    let mut c = Cursor::new(data);
    let base = match c.u8() % 4 {
        0 => fx.busy_full.clone(),
        1 => fx.busy_referenced.clone(),
        2 => {
            let inline: Vec<bool> = (0..fx.busy.slot_count()).map(|_| c.bool()).collect();
            snapshot_mixed(&fx.busy, &inline)
        }
        _ => fx.all_snapshots[usize::from(c.bool())].clone(),
    };
    let lib: Vec<&NavTile> = fx.library.iter().collect();
    let mut model = SnapModel::parse(&base).expect("fixture snapshot layout");
    let rounds = c.u8() % 8;
    for _ in 0..rounds {
        if c.done() {
            break;
        }
        mutate(&mut model, &mut c, &lib);
    }
    let bytes = model.encode();
    if rounds == 0 {
        assert!(bytes == base, "model encoding differs from its base");
        NavMeshSnapshot::validate(&bytes, &fx.library).expect("a valid base snapshot validates");
    }
    fuzz_restore_new(&bytes);
    fuzz_restore_in_place(&bytes);
}

/// Target `differential`: a slot count, then up to 64 twin steps ([`decode_step`]): mesh
/// operations (add, remove, replace, area, flags, link switches, with current, stale and forged
/// references) both twins apply; excursions of one twin (snapshot, operations, restore new or in
/// place: the bytes must come back); re-seats of the other from the first's snapshot; failed
/// restores that must leave it as it was. After every step the twins agree on every result and
/// byte. At the end, the Full snapshot (restored with an empty library) and the Referenced
/// snapshot restore to identical states that snapshot back to the same bytes, in both modes, and
/// every link set equals a from-scratch stitch.
pub fn fuzz_differential(data: &[u8]) {
    let fx = fixture();
    let pool = fx.pool();
    let cx = Context {
        pool: &pool,
        library: &fx.library,
    };
    let mut c = Cursor::new(data);
    let slots = u32::from(c.u8() % 16) + 1;
    let mut twins = Twins::new(fx.world.params(slots));
    let mut steps = 0;
    while !c.done() && steps < 64 {
        steps += 1;
        let step = decode_step(&mut c, fx.tiles.len());
        twins.step(&cx, &step);
    }
    let a = &twins.a;
    let full = a.snapshot(SnapshotMode::Full);
    let referenced = a.snapshot(SnapshotMode::Referenced);
    let x = NavMeshSnapshot::restore(&full, &TileLibrary::new()).expect("Full is self-contained");
    let y = NavMeshSnapshot::restore(&referenced, &fx.library).expect("Referenced restores");
    for m in [&x, &y] {
        assert!(
            m.snapshot(SnapshotMode::Full) == full,
            "Full re-snapshot differs"
        );
        assert!(
            m.snapshot(SnapshotMode::Referenced) == referenced,
            "Referenced re-snapshot differs"
        );
    }
    let links = all_links(a);
    assert!(
        links == stitch_from_scratch(a),
        "incremental links differ from scratch"
    );
    assert!(
        all_links(&x) == links && all_links(&y) == links,
        "restored links differ"
    );
}
