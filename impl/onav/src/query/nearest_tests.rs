//! `find_nearest_poly` against the rule of `spec/queries.md` §3 written out directly (its
//! reference twin): every ground polygon of every tile, bounds recomputed from the vertices on
//! every call, heights by the plain rule of `spec/navmesh-format.md` §6.4. The tile index and the cell enumeration may only skip work whose result is known
//! (`spec/navmesh-format.md` K16), so the two must agree on every input.

use proptest::prelude::*;

use super::*;
use crate::generator::WorldSpec;
use crate::geom::closest_point_on_poly_xz;
use crate::ids::PolyIndex;
use crate::TiledNavMesh;

/// §3 (Q1–Q3) over every tile, with nothing precomputed.
fn exhaustive(
    mesh: &TiledNavMesh,
    center: Vec3,
    half_extents: Vec3,
    filter: &QueryFilter,
) -> Option<NearestPoly> {
    let bmin = [0, 1, 2].map(|k| center[k] - half_extents[k]);
    let bmax = [0, 1, 2].map(|k| center[k] + half_extents[k]);
    let mut best: Option<(f64, f64, NearestPoly)> = None;
    for (r, tile) in mesh.tiles() {
        for i in 0..tile.ground_poly_count() {
            let index = PolyIndex(i);
            let pr = r.poly(index);
            if !filter.passes(mesh, pr) {
                continue;
            }
            let (lo, hi) = recomputed_bounds(tile, i);
            if !(0..3).all(|k| lo[k] <= bmax[k] && hi[k] >= bmin[k]) {
                continue;
            }
            let corners: Vec<Vec3> = tile.poly_vertices(index).unwrap().collect();
            let (q, edge) = closest_point_on_poly_xz(&center, &corners);
            let h = reference_height(tile, i, &q);
            assert_eq!(tile.poly_height(index, &q), Some(h));
            let point = [q[0], h, q[2]];
            let over_poly = edge.is_none();
            let dy = (center[1] - point[1]).abs();
            let d = if over_poly {
                let e = dy - tile.agent().climb;
                if e > 0.0 {
                    e * e
                } else {
                    0.0
                }
            } else {
                super::geom::dist2_3(&center, &point)
            };
            let better = best.as_ref().is_none_or(|(bd, bdy, b)| {
                d < *bd || (d == *bd && (dy < *bdy || (dy == *bdy && pr < b.poly)))
            });
            if better {
                best = Some((
                    d,
                    dy,
                    NearestPoly {
                        poly: pr,
                        point,
                        over_poly,
                    },
                ));
            }
        }
    }
    best.map(|(_, _, b)| b)
}

/// `spec/navmesh-format.md` §6.4 written out: the first detail triangle containing p (inclusive
/// orient tests) gives the barycentric height; else the y of the closest point over the
/// triangles' edges in order, strict `<`.
fn reference_height(tile: &crate::NavTile, i: u32, p: &Vec3) -> f64 {
    use crate::geom::{closest_t_on_segment_xz, dist2_xz, lerp, orient};
    let d = tile.detail_mesh(PolyIndex(i)).unwrap();
    let tris: Vec<[Vec3; 3]> = (d.triangle_base..d.triangle_base + d.triangle_count)
        .map(|t| tile.detail_triangle(PolyIndex(i), t).unwrap())
        .collect();
    for [a, b, c] in &tris {
        let (oa, ob, oc) = (orient(b, c, p), orient(c, a, p), orient(a, b, p));
        if oa >= 0.0 && ob >= 0.0 && oc >= 0.0 {
            let den = orient(a, b, c);
            return (oa / den) * a[1] + (ob / den) * b[1] + (oc / den) * c[1];
        }
    }
    let mut best = (f64::INFINITY, 0.0);
    for tri in &tris {
        for k in 0..3 {
            let (a, b) = (&tri[k], &tri[(k + 1) % 3]);
            let q = lerp(a, b, closest_t_on_segment_xz(p, a, b));
            let dd = dist2_xz(p, &q);
            if dd < best.0 {
                best = (dd, q[1]);
            }
        }
    }
    best.1
}

/// The per-axis min and max over a polygon's vertices and extra detail vertices.
fn recomputed_bounds(tile: &crate::NavTile, i: u32) -> (Vec3, Vec3) {
    let d = tile.detail_mesh(PolyIndex(i)).unwrap();
    let extra = &tile.detail_vertices()[d.vertex_base as usize..][..d.vertex_count as usize];
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for v in tile
        .poly_vertices(PolyIndex(i))
        .unwrap()
        .chain(extra.iter().copied())
    {
        for k in 0..3 {
            lo[k] = lo[k].min(v[k]);
            hi[k] = hi[k].max(v[k]);
        }
    }
    (lo, hi)
}

/// The worlds: the shared layered one, big tiles (the tree: 144 and 576 polygons per tile), close
/// bumpy layers, and layers whose tiles have four different climbs (see `meshes`).
fn worlds() -> Vec<WorldSpec> {
    vec![
        crate::generator::worlds::layered(),
        WorldSpec {
            columns: 2,
            rows: 2,
            quads: 12,
            vary_density: true,
            bump: 0.5,
            hole_chance: 40,
            area_kinds: 3,
            ..WorldSpec::default()
        },
        WorldSpec {
            columns: 3,
            rows: 3,
            layers: 2,
            layer_gap: 1.1,
            quads: 3,
            slope: [0.02, 0.04],
            bump: 0.4,
            hole_chance: 30,
            ..WorldSpec::default()
        },
        WorldSpec {
            columns: 3,
            rows: 2,
            layers: 3,
            layer_gap: 0.7,
            quads: 5,
            slope: [0.03, -0.02],
            bump: 0.6,
            hole_chance: 50,
            area_kinds: 2,
            ..WorldSpec::default()
        },
    ]
}

/// The worlds' meshes; in the last one every tile has its own climb (0.3, 0.6, 0.9 or 1.2), so
/// that a candidate's score must use its own tile's.
fn meshes() -> &'static [(WorldSpec, TiledNavMesh)] {
    static M: std::sync::OnceLock<Vec<(WorldSpec, TiledNavMesh)>> = std::sync::OnceLock::new();
    M.get_or_init(|| {
        let n = worlds().len();
        worlds()
            .into_iter()
            .enumerate()
            .map(|(k, w)| {
                let mut m = TiledNavMesh::new(w.params_fitting());
                for pos in w.positions() {
                    let mut raw = w.raw_tile(pos);
                    if k + 1 == n {
                        let step = (pos.column + pos.row + pos.layer as i32).rem_euclid(4);
                        raw.agent.climb = 0.3 * f64::from(step + 1);
                    }
                    m.add_tile(raw.build().unwrap()).unwrap();
                }
                (w, m)
            })
            .collect()
    })
}

#[test]
fn the_index_holds_the_exact_bounds_of_every_polygon() {
    for (_, m) in meshes() {
        for (_, t) in m.tiles() {
            for i in 0..t.ground_poly_count() {
                let b = t.query_index().bounds(i);
                assert_eq!((b.lo, b.hi), recomputed_bounds(t, i));
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The nearest polygon is the exhaustive rule's, for boxes of every size (zero included),
    /// centres in and around the worlds and at every height, and filters.
    #[test]
    fn nearest_equals_the_exhaustive_rule(
        world in 0..4usize,
        u in -0.2..1.2f64, v in -0.2..1.2f64, y in -3.0..6.0f64,
        hx in prop_oneof![Just(0.0), 0.0..1.0f64, 0.0..40.0], hy in prop_oneof![Just(0.0), 0.0..5.0f64],
        hz in prop_oneof![Just(0.0), 0.0..1.0f64, 0.0..40.0], exclude in 0u16..8,
    ) {
        let (w, mesh) = &meshes()[world];
        let q = NavMeshQuery::new(mesh, 16).unwrap();
        let mut filter = QueryFilter::default();
        filter.set_exclude_flags(exclude & 3);
        let c = [
            u * f64::from(w.columns) * w.tile_size,
            y + f64::from(w.layers - 1) * w.layer_gap * u,
            v * f64::from(w.rows) * w.tile_size,
        ];
        let a = q.find_nearest_poly(c, [hx, hy, hz], &filter).unwrap();
        prop_assert_eq!(a, exhaustive(mesh, c, [hx, hy, hz], &filter));
        if let Some(n) = a {
            prop_assert!(filter.passes(mesh, n.poly));
        }
    }

    /// Boxes whose faces lie exactly on a polygon's bounds (the inclusive test) find it.
    #[test]
    fn boxes_touching_a_bound_find_the_polygon(world in 0..4usize, pick in 0..10_000usize, face in 0..6usize) {
        let (_, mesh) = &meshes()[world];
        let tiles: Vec<_> = mesh.tiles().collect();
        let (r, t) = tiles[pick % tiles.len()];
        let i = (pick / tiles.len()) as u32 % t.ground_poly_count();
        let (lo, hi) = recomputed_bounds(t, i);
        // A flat box outside the polygon's bounds but for one face it shares with them.
        let axis = face % 3;
        let mut c = [0, 1, 2].map(|k| (lo[k] + hi[k]) * 0.5);
        c[axis] = if face < 3 { lo[axis] - 0.25 } else { hi[axis] + 0.25 };
        let mut he = [0.01; 3];
        he[axis] = 0.25;
        let q = NavMeshQuery::new(mesh, 16).unwrap();
        let filter = QueryFilter::default();
        let a = q.find_nearest_poly(c, he, &filter).unwrap();
        prop_assert_eq!(a, exhaustive(mesh, c, he, &filter));
        let bmin = [0, 1, 2].map(|k| c[k] - he[k]);
        let bmax = [0, 1, 2].map(|k| c[k] + he[k]);
        if (0..3).all(|k| lo[k] <= bmax[k] && hi[k] >= bmin[k]) {
            prop_assert!(a.is_some(), "{:?} touches the box", r.poly(PolyIndex(i)));
        }
    }
}
