//! Large and adversarial inputs: for the allocation bound (`fuzz/alloc_bounds`), the restore
//! scaling benchmark and the known superlinear cases of stitching (`spec/security.md` §4, §5,
//! §7), and meshes of many tiles built in one checked step.

use onav::limits::{MAX_SLOTS, TILE_HEADER_LEN};
use onav::{
    DetailMesh, Edge, MeshParams, NavMeshSnapshot, NavTile, Polygon, RawTile, RestoreError, Side,
    SnapshotMode, TileLibrary, TilePos, TiledNavMesh, WorldSpec,
};

use crate::fixture::fixture;
use crate::model::{SlotRecord, SnapModel};

/// `n` one-quad tiles (307 bytes each) of the default world at distinct positions on a
/// near-square grid, so neighbours stitch across their portals. Returns the world and the tiles.
pub fn tiny_tiles(n: u32) -> (WorldSpec, Vec<NavTile>) {
    let columns = (f64::from(n).sqrt().ceil() as i32).max(1);
    let w = WorldSpec {
        columns,
        rows: (n as i32 + columns - 1) / columns,
        quads: 1,
        ..WorldSpec::default()
    };
    let tiles = w
        .positions()
        .into_iter()
        .take(n as usize)
        .map(|p| w.tile(p))
        .collect();
    (w, tiles)
}

/// The snapshot, in `mode`, of `params` whose first slots hold `tiles` (generation 1, no edits or
/// switches) and whose other slots are free: the bytes of a mesh that added `tiles` in order to
/// an empty mesh, written without building one, also for tiles no mesh may hold together.
pub fn snapshot_of(params: &MeshParams, tiles: &[NavTile], mode: SnapshotMode) -> Vec<u8> {
    SnapModel::new(params, records(params, tiles, mode)).encode()
}

/// The slot records of [`snapshot_of`].
fn records(params: &MeshParams, tiles: &[NavTile], mode: SnapshotMode) -> Vec<SlotRecord> {
    (0..params.slot_count() as usize)
        .map(|i| match tiles.get(i) {
            Some(t) => SlotRecord::holding(1, t, mode),
            None => SlotRecord::free(1),
        })
        .collect()
}

/// The mesh of `params` whose first slots hold `tiles`, as [`snapshot_of`] describes it, built
/// in one step by a restore, which checks every rule (unique positions, landing budgets, …) and
/// stitches once: the fast, checked way to a mesh of many tiles.
pub fn mesh_of(params: &MeshParams, tiles: &[NavTile]) -> Result<TiledNavMesh, RestoreError> {
    let snap = snapshot_of(params, tiles, SnapshotMode::Referenced);
    NavMeshSnapshot::restore(&snap, &TileLibrary::from_tiles(tiles))
}

/// An input for the allocation bound: a snapshot, the library it is restored with, and the
/// total as-built bytes of that library.
#[derive(Debug)]
pub struct Adversarial {
    /// What the input stresses.
    pub name: &'static str,
    /// The snapshot bytes.
    pub bytes: Vec<u8>,
    /// The library passed to restore.
    pub library: TileLibrary,
    /// Sum of the library tiles' as-built byte lengths.
    pub library_bytes: usize,
    /// Whether restore must accept it.
    pub valid: bool,
}

fn library_bytes(lib: &TileLibrary) -> usize {
    lib.iter().map(|t| t.as_built_bytes().len()).sum()
}

/// Hostile and extreme snapshots (`spec/security.md` §4, "Allocation"): the largest slot count of
/// free slots, maximum counts backed by too few bytes, errors after the largest allocations,
/// many tiny tiles inline and referenced, one large tile, and truncations. `scale` (1 ..= 16)
/// multiplies the tile counts; the slot-count cases always use the format's maximum.
pub fn adversarial_snapshots(scale: u32) -> Vec<Adversarial> {
    let mut out = Vec::new();
    let plain = |name, bytes, valid| Adversarial {
        name,
        bytes,
        library: TileLibrary::new(),
        library_bytes: 0,
        valid,
    };
    let w = WorldSpec::default();

    // The largest slot count, every slot free: the largest valid input per byte.
    let max = w.params(MAX_SLOTS);
    let free = TiledNavMesh::new(max).snapshot(SnapshotMode::Full);
    out.push(plain("free_slots_max", free.clone(), true));
    // The same with an error in the very last slot (after stage A allocated every entry).
    let mut bad = free.clone();
    let last = bad.len() - 1;
    bad[last] = 3;
    out.push(plain("free_slots_max_bad_last_kind", bad, false));
    let mut bad = free.clone();
    bad[last - 4..last].copy_from_slice(&0u32.to_le_bytes());
    out.push(plain("free_slots_max_bad_last_generation", bad, false));
    // The maximum slot count backed by too few bytes: 200 records (1 000 bytes).
    let mut short = SnapModel::new(&max, vec![SlotRecord::free(1); 200]);
    short.slot_count = Some(MAX_SLOTS);
    out.push(plain("slot_count_max_few_bytes", short.encode(), false));

    // One referenced tile with the most edits, or the most disabled links, the bytes allow:
    // stage C rejects the count after stage A stored every entry.
    let fx = fixture();
    let t = &fx.tiles[0];
    let params = fx.world.params(1);
    let lib1 = TileLibrary::from_tiles([t]);
    let many = 1_000_000 * scale.min(4);
    for (name, edits) in [("edits_max", true), ("disabled_max", false)] {
        let mut slot = SlotRecord::holding(1, t, SnapshotMode::Referenced);
        if edits {
            slot.edits = (0..many).map(|p| (p, 1, 0)).collect();
        } else {
            slot.disabled = (0..many).collect();
        }
        out.push(Adversarial {
            name,
            bytes: SnapModel::new(&params, vec![slot]).encode(),
            library: lib1.clone(),
            library_bytes: library_bytes(&lib1),
            valid: false,
        });
    }

    // Many tiny tiles: Full (each parsed), Referenced (each shared from the library), with a
    // duplicate position in the last slot (stage D fails after everything else), truncated.
    let n = 20_000 * scale;
    let (tw, tiles) = tiny_tiles(n);
    let tiny_params = tw.params(n);
    let lib = TileLibrary::from_tiles(&tiles);
    let lib_bytes = library_bytes(&lib);
    for (mode, name, dup_name, cut_name) in [
        (
            SnapshotMode::Full,
            "tiny_tiles_full",
            "tiny_tiles_full_dup_last",
            "tiny_tiles_full_truncated",
        ),
        (
            SnapshotMode::Referenced,
            "tiny_tiles_referenced",
            "tiny_tiles_referenced_dup_last",
            "tiny_tiles_referenced_truncated",
        ),
    ] {
        let mut slots = records(&tiny_params, &tiles, mode);
        let snap = SnapModel::new(&tiny_params, slots.clone()).encode();
        let full = mode == SnapshotMode::Full;
        let with_lib = |name, bytes, valid| Adversarial {
            name,
            bytes,
            library: if full {
                TileLibrary::new()
            } else {
                lib.clone()
            },
            library_bytes: if full { 0 } else { lib_bytes },
            valid,
        };
        // Slot n−1 takes slot 0's tile: same record length, duplicate position.
        slots[n as usize - 1] = slots[0].clone();
        let dup = SnapModel::new(&tiny_params, slots).encode();
        let half = snap[..snap.len() / 2].to_vec();
        out.push(with_lib(name, snap, true));
        out.push(with_lib(dup_name, dup, false));
        out.push(with_lib(cut_name, half, false));
    }

    // One large tile (wide structure: 128 × 128 quads) inline.
    let big_world = WorldSpec {
        columns: 1,
        rows: 1,
        quads: 128 * scale.min(2),
        ..WorldSpec::default()
    };
    let big = big_world.tiles();
    let big_params = big_world.params(1);
    out.push(plain(
        "big_tile_full",
        snapshot_of(&big_params, &big, SnapshotMode::Full),
        true,
    ));

    // A tile whose every count is the largest the remaining bytes allow, over zero filler:
    // vertices (0, 0, 0) are read, then the first polygon (vertex count 0) is rejected. Tile
    // header offsets (`spec/navmesh-format.md` §3.1): position 72, the five counts 108 … 127.
    let mut tile = big[0].as_built_bytes()[..TILE_HEADER_LEN].to_vec();
    let filler = 4_000_000usize;
    let rem = |consumed: usize| (filler - consumed) as u32;
    tile[72..84].copy_from_slice(&[0; 12]);
    tile[108..112].copy_from_slice(&(rem(0) / 24).to_le_bytes());
    tile[112..116].copy_from_slice(&(rem(0) / 75).to_le_bytes());
    tile[116..120].copy_from_slice(&0u32.to_le_bytes());
    tile[120..124].copy_from_slice(&(rem(0) / 24).to_le_bytes());
    tile[124..128].copy_from_slice(&(rem(0) / 4).to_le_bytes());
    tile.resize(tile.len() + filler, 0);
    let mut slot = SlotRecord::free(1);
    slot.kind = crate::model::KIND_INLINE;
    slot.tile = tile;
    out.push(plain(
        "tile_counts_max_zero_filler",
        SnapModel::new(&big_params, vec![slot]).encode(),
        false,
    ));
    out
}

/// Two tiles side by side, at columns 0 and 1 of the default world, each made of `p` identical
/// triangles whose edge 0 is a portal spanning the whole shared border. Were they valid, every
/// portal edge of one would overlap every portal edge of the other and stitching would make 2·p²
/// links from about 150·p bytes; rule T20 (a side's portal edges have disjoint interiors) rejects
/// them for p ≥ 2, which is what keeps portal matching linear. Returned as plain data.
pub fn sliver_pair(p: usize) -> (WorldSpec, [RawTile; 2]) {
    let w = WorldSpec::default();
    let make = |column: i32| {
        let (vertices, side) = if column == 0 {
            (
                vec![[16.0, 0.0, 0.0], [16.0, 0.0, 16.0], [15.0, 0.0, 8.0]],
                Side::PosX,
            )
        } else {
            (
                vec![[16.0, 0.0, 16.0], [16.0, 0.0, 0.0], [17.0, 0.0, 8.0]],
                Side::NegX,
            )
        };
        let mut edges = [Edge::Wall; 6];
        edges[0] = Edge::Portal(side);
        RawTile {
            grid: w.grid(),
            digest: w.digest(),
            pos: TilePos {
                column,
                row: 0,
                layer: 0,
            },
            agent: w.agent,
            vertices,
            polys: vec![
                Polygon {
                    vertex_count: 3,
                    vertices: [0, 1, 2, 0, 0, 0],
                    edges,
                };
                p
            ],
            links: Vec::new(),
            detail_meshes: (0..p as u32)
                .map(|i| DetailMesh {
                    vertex_base: 0,
                    vertex_count: 0,
                    triangle_base: i,
                    triangle_count: 1,
                })
                .collect(),
            detail_vertices: Vec::new(),
            detail_tris: vec![[0, 1, 2]; p],
            areas: vec![0; p],
            flags: vec![1; p],
        }
    };
    let tiles = [make(0), make(1)];
    (w, tiles)
}

/// One generated tile of q × q quads with q² off-mesh links: landing work about 2·q⁴ polygon
/// visits for about 140·q² bytes, over its landing budget (format rule K17) from q = 33 on. No
/// mesh can hold it; [`snapshot_of`] writes its snapshot, which restore rejects before stitching.
pub fn dense_link_tile(q: u32) -> (WorldSpec, NavTile) {
    let w = WorldSpec {
        columns: 1,
        rows: 1,
        quads: q,
        links_per_tile: q * q,
        ..WorldSpec::default()
    };
    let t = w.tiles().remove(0);
    (w, t)
}
