//! Worlds shared by the benchmarks and the ratio report, so both measure the same thing.
#![allow(dead_code)]

use onav::{
    NavMeshQuery, NearestPoly, PolyIndex, QueryFilter, TileLibrary, TiledNavMesh, WorldSpec,
};

/// An n × n world of q × q quads per tile with holes, slopes, bumps, one link per tile, 3 areas.
pub fn world(n: i32, quads: u32) -> WorldSpec {
    WorldSpec {
        columns: n,
        rows: n,
        quads,
        hole_chance: 16,
        slope: [0.01, 0.02],
        bump: 0.2,
        links_per_tile: 1,
        area_kinds: 3,
        ..WorldSpec::default()
    }
}

/// The world's tiles in a mesh with one slot per tile, and a library holding them.
pub fn mesh(w: &WorldSpec) -> (TiledNavMesh, TileLibrary) {
    let tiles = w.tiles();
    let lib = TileLibrary::from_tiles(&tiles);
    let mut m = TiledNavMesh::new(w.params_fitting());
    for t in tiles {
        m.add_tile(t).unwrap();
    }
    (m, lib)
}

/// Rollback-style changes: an area edit on every 7th tile and, where it has a link, a switch.
pub fn edit(m: &mut TiledNavMesh, k: u32) {
    let refs: Vec<_> = m.tiles().map(|(r, _)| r).collect();
    for (i, r) in refs.iter().enumerate().step_by(7) {
        m.set_poly_area(r.poly(PolyIndex(0)), ((i as u32 + k) % 60) as u8 + 1)
            .unwrap();
        if m.tile(*r).unwrap().link_count() > 0 {
            m.set_off_mesh_link_enabled(*r, onav::LinkIndex(0), (i as u32 + k).is_multiple_of(2))
                .unwrap();
        }
    }
}

/// The ratio report's `n` seeded pairs of tile centres of a 16 × 16 world, each point on the
/// surface under it (the benches and the report time the same pairs).
pub fn centre_pairs(
    q: &NavMeshQuery<'_>,
    w: &WorldSpec,
    filter: &QueryFilter,
    n: usize,
) -> Vec<(NearestPoly, NearestPoly)> {
    let size = w.tile_size;
    let centre = |i: u64| {
        let (c, r) = ((i % 16) as f64, ((i / 16) % 16) as f64);
        let p = [(c + 0.5) * size, 0.0, (r + 0.5) * size];
        q.find_nearest_poly(p, [size * 0.5, 100.0, size * 0.5], filter)
            .unwrap()
    };
    let mut pairs = Vec::new();
    let mut s = 7u64;
    while pairs.len() < n {
        s = onav::generator::mix(s);
        if let (Some(a), Some(b)) = (centre(s % 256), centre((s >> 8) % 256)) {
            pairs.push((a, b));
        }
    }
    pairs
}
