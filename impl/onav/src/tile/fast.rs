//! The fast path of the tile reader (`spec/navmesh-format.md` §3): every rule of §3.5 checked in
//! bulk, section by section, with each record read at a fixed offset once the counts have fixed
//! the tile's exact length. It only answers "valid, with these contents" or "not valid": it
//! reports no error. `NavTile::from_bytes` runs it first and, when it declines, runs the
//! field-by-field reader (`read.rs`), which finds the first error in the order of §3.6 with its
//! offset and field path. So the checking order, which only decides the error reported, stays
//! the reader's, and a valid tile is read without building any error context.
//!
//! Both paths evaluate the same predicates with the same binary64 operations in the same order
//! (the same `orient`, `point_in_convex_xz` and `poly_area2_xz`, the same tolerance expression),
//! so they accept exactly the same tiles, and the contents they build are equal. The test kit's
//! `fuzz_tile_fast_vs_general` checks both on every input.
//!
//! Why the counts bound the bytes: with the exact length 132 + 24·V + 71·G + 67·L + 24·DV + 4·DT
//! equal to the input's, each count of rule T6 is within the bytes that remain after it (for G
//! because DT ≥ G, which T16 makes every valid tile meet), so the caps are the only part of T6
//! left to check.

use std::sync::{Arc, OnceLock};

use super::read::{on_side, portal_edge, portal_ends, sort_portals};
use super::{
    AgentSizes, DetailMesh, Edge, LinkDirection, OffMeshLink, Polygon, TileData, TILE_MAGIC,
    TILE_VERSION,
};
use crate::geom::{orient, poly_area2_xz, Vec3};
use crate::ids::{PolyIndex, SettingsDigest, Side, TilePos};
use crate::limits::*;
use crate::params::{Grid, RawGrid};

#[inline(always)]
fn le<const N: usize>(b: &[u8], at: usize) -> [u8; N] {
    let mut a = [0u8; N];
    a.copy_from_slice(&b[at..at + N]);
    a
}

#[inline(always)]
fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(le(b, at))
}

#[inline(always)]
fn f64_at(b: &[u8], at: usize) -> f64 {
    f64::from_le_bytes(le(b, at))
}

/// Three finite f64 at `at`, or `None`.
#[inline(always)]
fn vec3_at(b: &[u8], at: usize) -> Option<Vec3> {
    let v = [f64_at(b, at), f64_at(b, at + 8), f64_at(b, at + 16)];
    v.iter().all(|c| c.is_finite()).then_some(v)
}

/// Whether all three coordinates are finite.
#[inline(always)]
fn finite(v: &Vec3) -> bool {
    v[0].is_finite() & v[1].is_finite() & v[2].is_finite()
}

/// `o > 0`, false for NaN (an orientation whose products overflowed fails every rule).
#[inline(always)]
fn positive(o: f64) -> bool {
    o > 0.0
}

#[inline(always)]
fn inside(c: &[f64; 4], p: &Vec3) -> bool {
    c[0] <= p[0] && p[0] <= c[2] && c[1] <= p[2] && p[2] <= c[3]
}

/// The contents of `b` when it is a valid tile (every rule of §3.5), else `None`.
pub(super) fn parse(b: &[u8]) -> Option<TileData> {
    // Header (T1–T7).
    if b.len() < TILE_HEADER_LEN
        || b[0..4] != TILE_MAGIC
        || u16::from_le_bytes(le(b, 4)) != TILE_VERSION
        || u16::from_le_bytes(le(b, 6)) != 0
    {
        return None;
    }
    let grid = Grid::checked(RawGrid {
        origin: [f64_at(b, 8), f64_at(b, 16), f64_at(b, 24)],
        tile_size: f64_at(b, 32),
    })?;
    let digest = SettingsDigest(le(b, 40));
    let column = i32::from_le_bytes(le(b, 72));
    let row = i32::from_le_bytes(le(b, 76));
    let layer = u32_at(b, 80);
    let agent = [f64_at(b, 84), f64_at(b, 92), f64_at(b, 100)];
    if layer > MAX_LAYER || !agent.iter().all(|a| a.is_finite() && *a >= 0.0) {
        return None;
    }
    let (nv, ng, nl, ndv, ndt) = (
        u32_at(b, 108),
        u32_at(b, 112),
        u32_at(b, 116),
        u32_at(b, 120),
        u32_at(b, 124),
    );
    if nv > MAX_VERTS
        || ng > MAX_POLYS
        || nl > MAX_POLYS
        || ng + nl > MAX_POLYS
        || ndv > MAX_DETAIL_VERTS
        || ndt > MAX_DETAIL_TRIS
        || u32_at(b, 128) != 0
    {
        return None;
    }
    let (nv, ng, nl, ndv, ndt) = (
        nv as usize,
        ng as usize,
        nl as usize,
        ndv as usize,
        ndt as usize,
    );
    let np = ng + nl;
    // Every count is at most 2^20, so this cannot overflow.
    let polys_at = TILE_HEADER_LEN + VERTEX_LEN * nv;
    let links_at = polys_at + POLY_LEN * ng;
    let details_at = links_at + LINK_LEN * nl;
    let dverts_at = details_at + DETAIL_MESH_LEN * ng;
    let tris_at = dverts_at + VERTEX_LEN * ndv;
    let areas_at = tris_at + DETAIL_TRI_LEN * ndt;
    if areas_at + AREA_FLAGS_LEN * np != b.len() {
        return None;
    }
    let cell = grid.cell_bounds(column, row);

    // T8: vertices. The extra detail vertices follow in the same vector.
    // Read in one pass with the verdict folded in (no early exit: every record is in bounds).
    let mut coords: Vec<Vec3> = Vec::with_capacity(nv + ndv);
    let mut ok = true;
    coords.extend(
        b[TILE_HEADER_LEN..polys_at]
            .chunks_exact(VERTEX_LEN)
            .map(|r| {
                let v = [f64_at(r, 0), f64_at(r, 8), f64_at(r, 16)];
                ok &= finite(&v) && inside(&cell, &v);
                v
            }),
    );
    if !ok {
        return None;
    }

    // T9–T13: ground polygons.
    let mut polys = Vec::with_capacity(ng);
    let mut portal_count = 0;
    for (i, r) in b[polys_at..links_at].chunks_exact(POLY_LEN).enumerate() {
        let p = poly(r, i, ng, &coords, &cell)?;
        portal_count += p
            .edge_list()
            .iter()
            .filter(|e| matches!(e, Edge::Portal(_)))
            .count();
        polys.push(p);
    }

    // T15: off-mesh links.
    let region = grid.region_bounds(column, row);
    let mut links = Vec::with_capacity(nl);
    for r in b[links_at..details_at].chunks_exact(LINK_LEN) {
        let start = vec3_at(r, 0)?;
        let end = vec3_at(r, 24)?;
        let radius = f64_at(r, 48);
        let direction = match r[56] {
            0 => LinkDirection::OneWay,
            1 => LinkDirection::Bidirectional,
            _ => return None,
        };
        if !inside(&cell, &start)
            || !inside(&region, &end)
            || !radius.is_finite()
            || radius <= 0.0
            || r[57..60] != [0, 0, 0]
        {
            return None;
        }
        links.push(OffMeshLink {
            start,
            end,
            radius,
            direction,
            user_id: u32_at(r, 60),
        });
    }

    // T16: detail records, contiguous in polygon order, then their totals.
    let mut detail_meshes = Vec::with_capacity(ng);
    let (mut next_v, mut next_t) = (0u64, 0u64);
    for r in b[details_at..dverts_at].chunks_exact(DETAIL_MESH_LEN) {
        let d = DetailMesh {
            vertex_base: u32_at(r, 0),
            vertex_count: u32_at(r, 4),
            triangle_base: u32_at(r, 8),
            triangle_count: u32_at(r, 12),
        };
        let (vc, tc) = (u64::from(d.vertex_count), u64::from(d.triangle_count));
        if u64::from(d.vertex_base) != next_v
            || d.vertex_count > MAX_DETAIL_VERTS_PER_POLY
            || next_v + vc > ndv as u64
            || u64::from(d.triangle_base) != next_t
            || tc == 0
            || next_t + tc > ndt as u64
        {
            return None;
        }
        next_v += vc;
        next_t += tc;
        detail_meshes.push(d);
    }
    if next_v != ndv as u64 || next_t != ndt as u64 {
        return None;
    }
    // T16: detail vertices, finite.
    coords.extend(b[dverts_at..tris_at].chunks_exact(VERTEX_LEN).map(|r| {
        let v = [f64_at(r, 0), f64_at(r, 8), f64_at(r, 16)];
        ok &= finite(&v);
        v
    }));
    if !ok {
        return None;
    }
    // T16: detail triangles, indices in range for their polygon (the records are contiguous,
    // so file order is polygon order), reserved byte zero.
    // The records cover 0 .. DT in order, so the triangles are read in one pass, and each
    // polygon's are checked by their largest index and the OR of their reserved bytes.
    let tris = &b[tris_at..areas_at];
    for (p, d) in polys.iter().zip(&detail_meshes) {
        let limit = u32::from(p.vertex_count) + d.vertex_count;
        let (t0, t1) = (
            d.triangle_base as usize,
            (d.triangle_base + d.triangle_count) as usize,
        );
        let (mut top, mut reserved) = (0u8, 0u8);
        for r in tris[t0 * DETAIL_TRI_LEN..t1 * DETAIL_TRI_LEN].chunks_exact(DETAIL_TRI_LEN) {
            top = top.max(r[0]).max(r[1]).max(r[2]);
            reserved |= r[3];
        }
        if u32::from(top) >= limit || reserved != 0 {
            return None;
        }
    }
    let detail_tris: Vec<[u8; 3]> = tris
        .chunks_exact(DETAIL_TRI_LEN)
        .map(|r| [r[0], r[1], r[2]])
        .collect();
    // T18: areas ≤ 63 (flags take any value). T19 holds: the length is exact.
    if b[areas_at..areas_at + np].iter().any(|&a| a > MAX_AREA) {
        return None;
    }

    // Stage 2: T14, T17, T20.
    let (vertices, extra) = coords.split_at(nv);
    if !symmetric(&polys) || !detail_covers(&polys, vertices, &detail_meshes, extra, &detail_tris) {
        return None;
    }
    let mut portals = Vec::with_capacity(portal_count);
    for (i, p) in polys.iter().enumerate() {
        let n = usize::from(p.vertex_count);
        for (k, e) in p.edge_list().iter().enumerate() {
            if let Edge::Portal(side) = *e {
                let a = vertices[p.vertices[k] as usize];
                let b = vertices[p.vertices[if k + 1 == n { 0 } else { k + 1 }] as usize];
                portals.push(portal_edge(side, PolyIndex(i as u32), k as u8, a, b));
            }
        }
    }
    sort_portals(&mut portals);
    if portals
        .windows(2)
        .any(|w| w[1].side == w[0].side && w[1].lo < w[0].hi)
    {
        return None;
    }
    let portal_ends = portal_ends(&portals);

    Some(TileData {
        grid,
        digest,
        pos: TilePos { column, row, layer },
        agent: AgentSizes {
            height: agent[0],
            radius: agent[1],
            climb: agent[2],
        },
        coords,
        vertex_count: nv,
        polys,
        links,
        detail_meshes,
        detail_tris,
        bytes: Arc::from(b),
        areas_offset: areas_at,
        content_id: OnceLock::new(),
        portals,
        portal_ends,
        query_index: OnceLock::new(),
    })
}

/// Ground polygon record `r` (polygon `i` of `ng`), if it meets T9–T13.
#[inline]
fn poly(r: &[u8], i: usize, ng: usize, vertices: &[Vec3], cell: &[f64; 4]) -> Option<Polygon> {
    // T9.
    let n = usize::from(r[0]);
    if !(MIN_VERTS_PER_POLY..=MAX_VERTS_PER_POLY).contains(&n) || r[1..4] != [0, 0, 0] {
        return None;
    }
    let mut p = Polygon {
        vertex_count: n as u8,
        ..Polygon::default()
    };
    // T10.
    for k in 0..MAX_VERTS_PER_POLY {
        let v = u32_at(r, 4 + 4 * k);
        if if k < n {
            v as usize >= vertices.len()
        } else {
            v != 0
        } {
            return None;
        }
        p.vertices[k] = v;
    }
    // T11.
    let idx = &p.vertices[..n];
    for k in 0..n {
        if idx[k + 1..].contains(&idx[k]) {
            return None;
        }
    }
    // T12: every turn strictly left (part 1), and every corner strictly left of every edge (part
    // 2). Part 1's values are part 2's for j = k + 2 (the same operands, the same operations), so
    // part 2 over every j ∉ {k, k + 1} decides both. Each edge's two differences are computed
    // once, exactly as `orient` computes them for every corner.
    // The corners twice over, so that the n − 2 corners after edge k's two are c2[k + 2 ..
    // k + n] with no wrapping.
    let mut c2 = [[0.0; 3]; 2 * MAX_VERTS_PER_POLY];
    for k in 0..n {
        c2[k] = vertices[idx[k] as usize];
        c2[k + n] = c2[k];
    }
    let c = &c2[..n];
    let next = |k: usize| if k + 1 == n { 0 } else { k + 1 };
    let mut convex = true;
    for k in 0..n {
        let e = Edge2::of(&c2[k], &c2[k + 1]);
        for v in &c2[k + 2..k + n] {
            convex &= positive(e.orient(v));
        }
    }
    if !convex {
        return None;
    }
    // T13.
    for k in 0..MAX_VERTS_PER_POLY {
        let code = u32_at(r, 28 + 4 * k);
        if k >= n {
            if code != 0 {
                return None;
            }
            continue;
        }
        p.edges[k] = match code {
            0 => Edge::Wall,
            c if c & 0x8000_0000 != 0 => Edge::Portal(Side::from_code(c & 0x7fff_ffff)?),
            c if ((c - 1) as usize) < ng && (c - 1) as usize != i => {
                Edge::Internal(PolyIndex(c - 1))
            }
            _ => return None,
        };
        if let Edge::Portal(s) = p.edges[k] {
            if !on_side(cell, s, &c[k]) || !on_side(cell, s, &c[next(k)]) {
                return None;
            }
        }
    }
    Some(p)
}

/// T14: every internal edge is matched by its neighbour's edge back, vertices reversed.
fn symmetric(polys: &[Polygon]) -> bool {
    polys.iter().enumerate().all(|(i, p)| {
        let n = usize::from(p.vertex_count);
        (0..n).all(|k| {
            let Edge::Internal(q) = p.edges[k] else {
                return true;
            };
            let q_poly = &polys[q.0 as usize];
            let (a, b) = (
                p.vertices[k],
                p.vertices[if k + 1 == n { 0 } else { k + 1 }],
            );
            let m = usize::from(q_poly.vertex_count);
            (0..m).any(|j| {
                q_poly.edges[j] == Edge::Internal(PolyIndex(i as u32))
                    && q_poly.vertices[j] == b
                    && q_poly.vertices[if j + 1 == m { 0 } else { j + 1 }] == a
            })
        })
    })
}

/// T17: each extra detail vertex inside its polygon, each detail triangle counter-clockwise, and
/// the triangles' areas summing to the polygon's. The same operations as the reader's
/// (`point_in_convex_xz`, `orient`, `poly_area2_xz`), with each polygon edge's differences
/// computed once.
fn detail_covers(
    polys: &[Polygon],
    vertices: &[Vec3],
    meshes: &[DetailMesh],
    dverts: &[Vec3],
    tris: &[[u8; 3]],
) -> bool {
    PTS.with(|cell| match cell.try_borrow_mut() {
        Ok(mut pts) => covers_with(polys, vertices, meshes, dverts, tris, &mut pts),
        Err(_) => covers_with(polys, vertices, meshes, dverts, tris, &mut Vec::new()),
    })
}

thread_local! {
    /// The buffer of [`detail_covers`], kept per thread so that checking a tile allocates
    /// nothing.
    static PTS: std::cell::RefCell<Vec<Vec3>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// [`detail_covers`] with `pts` as the buffer of one polygon's points.
fn covers_with(
    polys: &[Polygon],
    vertices: &[Vec3],
    meshes: &[DetailMesh],
    dverts: &[Vec3],
    tris: &[[u8; 3]],
    pts: &mut Vec<Vec3>,
) -> bool {
    let mut ok = true;
    for (p, d) in polys.iter().zip(meshes) {
        // The polygon's corners, then its extra detail vertices: what triangle index x names
        // (T16 has checked every index against their number).
        let nv = usize::from(p.vertex_count).min(MAX_VERTS_PER_POLY);
        pts.clear();
        pts.extend(p.verts().iter().map(|&k| vertices[k as usize]));
        let extra = &dverts[d.vertex_base as usize..(d.vertex_base + d.vertex_count) as usize];
        if !extra.is_empty() {
            ok &= Edges6::of(pts).all_inside(extra);
            pts.extend_from_slice(extra);
        }
        let mut sum = 0.0;
        let t0 = d.triangle_base as usize;
        for t in &tris[t0..t0 + d.triangle_count as usize] {
            let o = orient(
                &pts[usize::from(t[0])],
                &pts[usize::from(t[1])],
                &pts[usize::from(t[2])],
            );
            ok &= positive(o);
            sum += o;
        }
        let area = poly_area2_xz(&pts[..nv]);
        // Written so that a NaN (sum and area both overflowed) fails, as in the reader.
        ok &= (sum - area).abs() <= DETAIL_AREA_TOLERANCE * area;
        if !ok {
            return false;
        }
    }
    true
}

/// The edges of a polygon of at most six corners as `Edge2`s laid out column-wise, padded to six
/// with edges whose `orient` is 0 for every finite point (all four values 0: `0·z − 0·x`), so
/// that the inside test of one point is six independent, branch-free evaluations of exactly the
/// operations of `orient` (no fused multiply-add: Rust never contracts), which the compiler can
/// vectorise. A padding edge never fails the test (`0 ≥ 0`, and −0 ≥ 0), so the verdict is the
/// one of the polygon's own edges, each computed bit for bit as `point_in_convex_xz` computes it.
#[derive(Debug, Clone, Copy, Default)]
struct Edges6 {
    ax: [f64; MAX_VERTS_PER_POLY],
    az: [f64; MAX_VERTS_PER_POLY],
    d1: [f64; MAX_VERTS_PER_POLY],
    d3: [f64; MAX_VERTS_PER_POLY],
}

impl Edges6 {
    /// The edges of the polygon with corners `c` (3 ..= 6 of them), in order.
    #[inline(always)]
    fn of(c: &[Vec3]) -> Self {
        let mut e = Self::default();
        let n = c.len().min(MAX_VERTS_PER_POLY);
        for k in 0..n {
            let (a, b) = (&c[k], &c[if k + 1 == n { 0 } else { k + 1 }]);
            e.ax[k] = a[0];
            e.az[k] = a[2];
            e.d1[k] = b[0] - a[0];
            e.d3[k] = b[2] - a[2];
        }
        e
    }

    /// Whether every point of `pts` is on or left of every edge (`orient(a, b, p) ≥ 0`; a NaN
    /// fails). Finite points only (the padding's 0 relies on it).
    #[inline(always)]
    fn all_inside(&self, pts: &[Vec3]) -> bool {
        // One verdict per edge, folded over the points: independent lanes the compiler can
        // keep in registers (a NaN fails, as `o >= 0.0` is false for it).
        let mut ok = [true; MAX_VERTS_PER_POLY];
        for p in pts {
            for (k, f) in ok.iter_mut().enumerate() {
                let o = self.d1[k] * (p[2] - self.az[k]) - self.d3[k] * (p[0] - self.ax[k]);
                *f &= o >= 0.0;
            }
        }
        ok.iter().all(|&f| f)
    }
}

/// An edge from `a` to `b` with the two differences `orient(a, b, p)` takes from it, so that
/// `orient` of many points against one edge computes them once: the result is bit for bit
/// `orient(a, b, p)` (`spec/navmesh-format.md` §3.4: d1 = b.x − a.x, d3 = b.z − a.z, then
/// d1·(p.z − a.z) − d3·(p.x − a.x)).
#[derive(Debug, Clone, Copy, Default)]
struct Edge2 {
    ax: f64,
    az: f64,
    d1: f64,
    d3: f64,
}

impl Edge2 {
    #[inline(always)]
    fn of(a: &Vec3, b: &Vec3) -> Self {
        Self {
            ax: a[0],
            az: a[2],
            d1: b[0] - a[0],
            d3: b[2] - a[2],
        }
    }

    #[inline(always)]
    fn orient(&self, p: &Vec3) -> f64 {
        self.d1 * (p[2] - self.az) - self.d3 * (p[0] - self.ax)
    }
}
