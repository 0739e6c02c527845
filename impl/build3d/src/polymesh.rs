//! Polygons (`spec/build3d.md` §13): the contours of one tile-layer cut into strictly convex,
//! counter-clockwise polygons of at most `verts_per_poly` corners, with adjacency and portals,
//! in local corner coordinates.
//!
//! 1. **Vertices.** Contour points are welded into one vertex list, contours in ascending
//!    region, points in contour order: a point reuses the first earlier vertex at the same
//!    (x, z) whose y differs by at most 2 cells, else it is appended.
//! 2. **Triangles.** Each contour is cut by ear clipping in exact integer arithmetic: an ear is
//!    a strictly convex corner whose diagonal lies inside both end corners and meets no edge
//!    that does not touch its ends; the ear with the shortest diagonal (ties: first in the
//!    contour) is cut first. If no ear exists, a relaxed test (diagonal properly crossing no
//!    edge, corners allowed on it) is tried; if that fails too the build fails. A triangle
//!    whose welded corners repeat is dropped.
//! 3. **Merging.** Within each contour, repeatedly, the two polygons sharing the longest edge
//!    (ties: lowest first polygon, then second, then edge) whose union is strictly convex with at
//!    most `verts_per_poly` corners are merged, until no pair qualifies.
//! 4. **Adjacency.** An edge used exactly once in each direction links its two polygons;
//!    every other edge is a wall, except that an edge on a tile side line becomes a portal to
//!    that side.
//!
//! Limits: L13 (vertices), L14 (polygons) per tile-layer.

use std::collections::BTreeMap;

use crate::contours::{orient_i, same_xz, segments_meet, Contour, Pt};
use crate::error::{check, BuildError, LimitKind, TileCell};
use crate::limits::Caps;
use crate::output::EdgeOut;

/// A polygon of a layer's mesh.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MeshPoly {
    pub verts: Vec<u32>,
    pub edges: Vec<EdgeOut>,
    pub region: u32,
    pub area: u8,
}

/// The polygons of one tile-layer.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct PolyMesh {
    pub verts: Vec<Pt>,
    pub polys: Vec<MeshPoly>,
}

/// Whether the diagonal from position a to position b of `poly` (indices into `pts`) is a
/// diagonal: inside both corners and meeting no edge that does not touch its ends (strict), or
/// only crossing no edge properly (relaxed).
fn diagonal(pts: &[Pt], poly: &[usize], a: usize, b: usize, relaxed: bool) -> bool {
    let n = poly.len();
    let p = |k: usize| pts[poly[k % n]];
    let cone = |at: usize, to: Pt| {
        let (a0, a1, a2) = (p(at + n - 1), p(at), p(at + 1));
        if orient_i(a0, a1, a2) >= 0 {
            if relaxed {
                orient_i(a0, a1, to) >= 0 && orient_i(a1, a2, to) >= 0
            } else {
                orient_i(a0, a1, to) > 0 && orient_i(a1, a2, to) > 0
            }
        } else {
            !(orient_i(a0, a1, to) <= 0 && orient_i(a1, a2, to) <= 0)
        }
    };
    let (pa, pb) = (p(a), p(b));
    if !cone(a, pb) || !cone(b, pa) {
        return false;
    }
    // The segment's bounding box (x–z): an edge outside it can neither meet nor cross it.
    let (x0, x1) = (pa[0].min(pb[0]), pa[0].max(pb[0]));
    let (z0, z1) = (pa[2].min(pb[2]), pa[2].max(pb[2]));
    // Every edge once (the answer does not depend on the order), without a remainder per edge.
    let mut prev = pts[poly[n - 1]];
    for &v in poly {
        let (e0, e1) = (prev, pts[v]);
        prev = e1;
        if e0[0].max(e1[0]) < x0
            || e0[0].min(e1[0]) > x1
            || e0[2].max(e1[2]) < z0
            || e0[2].min(e1[2]) > z1
        {
            continue;
        }
        if same_xz(e0, pa) || same_xz(e0, pb) || same_xz(e1, pa) || same_xz(e1, pb) {
            continue;
        }
        let hit = if relaxed {
            proper_cross(pa, pb, e0, e1)
        } else {
            segments_meet(pa, pb, e0, e1)
        };
        if hit {
            return false;
        }
    }
    true
}

fn proper_cross(a: Pt, b: Pt, c: Pt, d: Pt) -> bool {
    let (o1, o2) = (orient_i(a, b, c), orient_i(a, b, d));
    let (o3, o4) = (orient_i(c, d, a), orient_i(c, d, b));
    ((o1 > 0 && o2 < 0) || (o1 < 0 && o2 > 0)) && ((o3 > 0 && o4 < 0) || (o3 < 0 && o4 > 0))
}

/// Ear clipping of a counter-clockwise contour (§13 step 2): triangles as contour indices.
pub(crate) fn triangulate(pts: &[Pt]) -> Option<Vec<[usize; 3]>> {
    let mut poly: Vec<usize> = (0..pts.len()).collect();
    let mut tris = Vec::with_capacity(pts.len());
    let ear = |poly: &[usize], i: usize, relaxed: bool| {
        let n = poly.len();
        let (a, b, c) = (
            pts[poly[(i + n - 1) % n]],
            pts[poly[i]],
            pts[poly[(i + 1) % n]],
        );
        orient_i(a, b, c) > 0 && diagonal(pts, poly, (i + n - 1) % n, (i + 1) % n, relaxed)
    };
    let mut ears: Vec<bool> = (0..poly.len()).map(|i| ear(&poly, i, false)).collect();
    while poly.len() > 3 {
        let n = poly.len();
        let len2 = |i: usize| {
            let (a, c) = (pts[poly[(i + n - 1) % n]], pts[poly[(i + 1) % n]]);
            let (dx, dz) = (i64::from(c[0] - a[0]), i64::from(c[2] - a[2]));
            dx * dx + dz * dz
        };
        let mut best: Option<(i64, usize)> = None;
        for (i, &e) in ears.iter().enumerate() {
            if e && best.is_none_or(|(d, _)| len2(i) < d) {
                best = Some((len2(i), i));
            }
        }
        if best.is_none() {
            for i in 0..n {
                if ear(&poly, i, true) && best.is_none_or(|(d, _)| len2(i) < d) {
                    best = Some((len2(i), i));
                }
            }
        }
        let (_, i) = best?;
        tris.push([poly[(i + n - 1) % n], poly[i], poly[(i + 1) % n]]);
        poly.remove(i);
        ears.remove(i);
        let n = poly.len();
        let prev = (i + n - 1) % n;
        let next = i % n;
        ears[prev] = ear(&poly, prev, false);
        ears[next] = ear(&poly, next, false);
    }
    if orient_i(pts[poly[0]], pts[poly[1]], pts[poly[2]]) > 0 {
        tris.push([poly[0], poly[1], poly[2]]);
    }
    Some(tris)
}

/// The merged polygon of a and b across a's edge ea (= b's edge eb reversed), if strictly
/// convex with at most `nvp` corners.
fn merged(
    verts: &[Pt],
    a: &[u32],
    ea: usize,
    b: &[u32],
    eb: usize,
    nvp: usize,
) -> Option<Vec<u32>> {
    let (na, nb) = (a.len(), b.len());
    if na + nb - 2 > nvp {
        return None;
    }
    let mut out = Vec::with_capacity(na + nb - 2);
    for k in 0..na - 1 {
        out.push(a[(ea + 1 + k) % na]);
    }
    for k in 0..nb - 1 {
        out.push(b[(eb + 1 + k) % nb]);
    }
    let n = out.len();
    let v = |k: usize| verts[out[k % n] as usize];
    (0..n)
        .all(|k| orient_i(v(k + n - 1), v(k), v(k + 1)) > 0)
        .then_some(out)
}

/// The best merge of polygons a and b (a the earlier): over a's edges ea whose reverse is an
/// edge of b (its first such, eb), the longest (ties: the lowest ea) whose union qualifies, as
/// (length², merged polygon).
fn pair_best(verts: &[Pt], a: &[u32], b: &[u32], nvp: usize) -> Option<(i64, Vec<u32>)> {
    let mut best: Option<(i64, Vec<u32>)> = None;
    for ea in 0..a.len() {
        let (v0, v1) = (a[ea], a[(ea + 1) % a.len()]);
        let Some(eb) = (0..b.len()).find(|&k| b[k] == v1 && b[(k + 1) % b.len()] == v0) else {
            continue;
        };
        let (p, q) = (verts[v0 as usize], verts[v1 as usize]);
        let (dx, dz) = (i64::from(q[0] - p[0]), i64::from(q[2] - p[2]));
        let len2 = dx * dx + dz * dz;
        if best.as_ref().is_some_and(|(l, _)| *l >= len2) {
            continue;
        }
        if let Some(m) = merged(verts, a, ea, b, eb, nvp) {
            best = Some((len2, m));
        }
    }
    best
}

/// Merges the polygons of one contour (§13 step 3). Each round takes, among the pairs i < j,
/// the longest qualifying shared edge (ties: lowest i, then j, then edge of i). A pair's best
/// depends only on its two polygons, so the pairs' bests are kept between rounds and only the
/// pairs of the merged polygon are evaluated again; a merged-away polygon's slot is left empty
/// (live polygons have at least 3 corners, and the order of the live slots is the order of the
/// list) and the empty slots dropped at the end.
fn merge_polys(verts: &[Pt], polys: &mut Vec<Vec<u32>>, nvp: usize) {
    let n = polys.len();
    // (i, j, length², merged polygon), sorted by (i, j).
    let mut cands: Vec<(usize, usize, i64, Vec<u32>)> = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            if let Some((l, m)) = pair_best(verts, &polys[i], &polys[j], nvp) {
                cands.push((i, j, l, m));
            }
        }
    }
    loop {
        let mut best: Option<usize> = None;
        for (k, c) in cands.iter().enumerate() {
            if best.is_none_or(|b| c.2 > cands[b].2) {
                best = Some(k);
            }
        }
        let Some(b) = best else { break };
        let (i, j, _, m) = cands.remove(b);
        polys[i] = m;
        polys[j] = Vec::new();
        cands.retain(|c| c.0 != i && c.1 != i && c.0 != j && c.1 != j);
        for k in (0..n).filter(|&k| k != i && !polys[k].is_empty()) {
            let (lo, hi) = (k.min(i), k.max(i));
            if let Some((l, m)) = pair_best(verts, &polys[lo], &polys[hi], nvp) {
                let at = cands.partition_point(|c| (c.0, c.1) < (lo, hi));
                cands.insert(at, (lo, hi, l, m));
            }
        }
    }
    polys.retain(|p| !p.is_empty());
}

/// Welds a point into the vertex list (§13 step 1).
fn weld(verts: &mut Vec<Pt>, index: &mut BTreeMap<(i32, i32), Vec<u32>>, p: Pt) -> u32 {
    let list = index.entry((p[0], p[2])).or_default();
    for &k in list.iter() {
        if (verts[k as usize][1] - p[1]).abs() <= 2 {
            return k;
        }
    }
    let k = verts.len() as u32;
    verts.push(p);
    list.push(k);
    k
}

/// Builds the polygons of the contours of one layer (§13). `contours` are in ascending region;
/// `area_of(region)` is the region's area; `lo`/`hi` are the tile side lines.
#[allow(clippy::too_many_arguments)]
pub(crate) fn polymesh(
    contours: &[&Contour],
    area_of: impl Fn(u32) -> u8,
    nvp: usize,
    lo: i32,
    hi: i32,
    cell: TileCell,
    layer: u32,
    caps: &Caps,
) -> Result<PolyMesh, BuildError> {
    let mut mesh = PolyMesh::default();
    let mut index = BTreeMap::new();
    for c in contours {
        let ids: Vec<u32> = c
            .pts
            .iter()
            .map(|&p| weld(&mut mesh.verts, &mut index, p))
            .collect();
        let tris = triangulate(&c.pts).ok_or(BuildError::Triangulation {
            tile: cell,
            layer,
            region: c.region,
        })?;
        let mut polys: Vec<Vec<u32>> = tris
            .iter()
            .map(|t| t.map(|k| ids[k]))
            .filter(|t| t[0] != t[1] && t[1] != t[2] && t[0] != t[2])
            .map(|t| t.to_vec())
            .collect();
        merge_polys(&mesh.verts, &mut polys, nvp);
        let area = area_of(c.region);
        for p in polys {
            let n = p.len();
            mesh.polys.push(MeshPoly {
                verts: p,
                edges: vec![EdgeOut::Wall; n],
                region: c.region,
                area,
            });
        }
    }
    check(
        Some(cell),
        Some(layer),
        LimitKind::Vertices,
        mesh.verts.len() as u64,
        caps.tile_vertices,
    )?;
    check(
        Some(cell),
        Some(layer),
        LimitKind::Polygons,
        mesh.polys.len() as u64,
        caps.tile_polygons,
    )?;
    adjacency(&mut mesh, lo, hi);
    Ok(mesh)
}

/// Links each edge used once in each direction; portals on the side lines (§13 step 4).
fn adjacency(mesh: &mut PolyMesh, lo: i32, hi: i32) {
    let mut edges: Vec<(u32, u32, u32, u8)> = Vec::new();
    for (pi, p) in mesh.polys.iter().enumerate() {
        let n = p.verts.len();
        for k in 0..n {
            edges.push((p.verts[k], p.verts[(k + 1) % n], pi as u32, k as u8));
        }
    }
    edges.sort_unstable_by_key(|&(a, b, p, k)| (a.min(b), a.max(b), p, k));
    let mut i = 0;
    while i < edges.len() {
        let key = |e: &(u32, u32, u32, u8)| (e.0.min(e.1), e.0.max(e.1));
        let mut j = i + 1;
        while j < edges.len() && key(&edges[j]) == key(&edges[i]) {
            j += 1;
        }
        if j - i == 2 && edges[i].0 == edges[i + 1].1 && edges[i].2 != edges[i + 1].2 {
            let (e, f) = (edges[i], edges[i + 1]);
            mesh.polys[e.2 as usize].edges[usize::from(e.3)] = EdgeOut::Internal(f.2);
            mesh.polys[f.2 as usize].edges[usize::from(f.3)] = EdgeOut::Internal(e.2);
        }
        i = j;
    }
    for p in &mut mesh.polys {
        let n = p.verts.len();
        for k in 0..n {
            if p.edges[k] != EdgeOut::Wall {
                continue;
            }
            let (a, b) = (
                mesh.verts[p.verts[k] as usize],
                mesh.verts[p.verts[(k + 1) % n] as usize],
            );
            let side = if a[0] == hi && b[0] == hi {
                Some(0)
            } else if a[2] == hi && b[2] == hi {
                Some(1)
            } else if a[0] == lo && b[0] == lo {
                Some(2)
            } else if a[2] == lo && b[2] == lo {
                Some(3)
            } else {
                None
            };
            if let Some(s) = side {
                p.edges[k] = EdgeOut::Portal(s);
            }
        }
    }
}

#[cfg(test)]
#[path = "polymesh_tests.rs"]
mod tests;
