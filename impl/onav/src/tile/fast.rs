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
    AgentSizes, DetailMesh, Edge, LinkDirection, OffMeshLink, Polygon, PortalEdge, TileData,
    TILE_MAGIC, TILE_VERSION,
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

/// The three f64 at `at`.
#[inline(always)]
fn vec3_at(b: &[u8], at: usize) -> Vec3 {
    [f64_at(b, at), f64_at(b, at + 8), f64_at(b, at + 16)]
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
    // Within finite cell bounds, x and z are finite when inside (a NaN fails every comparison,
    // an infinity the bound on its side), so only y is tested for it.
    let mut coords: Vec<Vec3> = Vec::with_capacity(nv + ndv);
    let mut ok = true;
    let bounded = cell.iter().all(|c| c.is_finite());
    coords.extend(
        b[TILE_HEADER_LEN..polys_at]
            .as_chunks::<VERTEX_LEN>()
            .0
            .iter()
            .map(|r| {
                let v = vec3_at(r, 0);
                ok &= (if bounded {
                    v[1].is_finite()
                } else {
                    finite(&v)
                }) && inside(&cell, &v);
                v
            }),
    );
    if !ok {
        return None;
    }

    // T9–T13 and T20: the ground polygons and their portal edges.
    let records = b[polys_at..links_at].as_chunks::<POLY_LEN>().0;
    let (polys, portals) = PORTALS.with(|scratch| match scratch.try_borrow_mut() {
        Ok(mut s) => ground_polys(records, &coords, &cell, &mut s),
        Err(_) => ground_polys(records, &coords, &cell, &mut Vec::new()),
    })?;

    // T15: off-mesh links.
    let region = grid.region_bounds(column, row);
    let mut links = Vec::with_capacity(nl);
    for r in b[links_at..details_at].as_chunks::<LINK_LEN>().0 {
        let start = vec3_at(r, 0);
        let end = vec3_at(r, 24);
        let radius = f64_at(r, 48);
        let direction = match r[56] {
            0 => LinkDirection::OneWay,
            1 => LinkDirection::Bidirectional,
            _ => return None,
        };
        if !finite(&start)
            || !finite(&end)
            || !inside(&cell, &start)
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

    // T16: detail records, contiguous in polygon order, then their totals (the records are kept
    // in the bytes).
    let details = b[details_at..dverts_at].as_chunks::<DETAIL_MESH_LEN>().0;
    let (mut next_v, mut next_t) = (0u64, 0u64);
    for r in details {
        let d = DetailMesh::from_record(r);
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
    }
    if next_v != ndv as u64 || next_t != ndt as u64 {
        return None;
    }
    // T16: detail vertices, finite.
    coords.extend(
        b[dverts_at..tris_at]
            .as_chunks::<VERTEX_LEN>()
            .0
            .iter()
            .map(|r| {
                let v = vec3_at(r, 0);
                ok &= finite(&v);
                v
            }),
    );
    if !ok {
        return None;
    }
    // T18: areas ≤ 63 (flags take any value). T19 holds: the length is exact.
    if b[areas_at..areas_at + np].iter().any(|&a| a > MAX_AREA) {
        return None;
    }

    // T16's detail triangles (indices in range, reserved byte zero) with stage 2's T14 and T17.
    let (vertices, extra) = coords.split_at(nv);
    let tris = b[tris_at..areas_at].as_chunks::<DETAIL_TRI_LEN>().0;
    if !symmetric(&polys) || !detail_covers(&polys, vertices, details, extra, tris) {
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
        bytes: Arc::from(b),
        details_offset: details_at,
        tris_offset: tris_at,
        areas_offset: areas_at,
        content_id: OnceLock::new(),
        portals,
        portal_ends,
        query_index: OnceLock::new(),
    })
}

thread_local! {
    /// The portal edges of the tile being read, kept per thread so that a tile's portal list is
    /// allocated once, at its exact length.
    static PORTALS: std::cell::RefCell<Vec<PortalEdge>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The ground polygons of the records (T9–T13) and their portal edges, sorted as
/// [`sort_portals`] sorts them, with disjoint interiors on each side (T20); `scratch` gathers
/// the portal edges.
fn ground_polys(
    records: &[[u8; POLY_LEN]],
    vertices: &[Vec3],
    cell: &[f64; 4],
    scratch: &mut Vec<PortalEdge>,
) -> Option<(Vec<Polygon>, Vec<PortalEdge>)> {
    scratch.clear();
    let ng = records.len();
    let mut polys = Vec::with_capacity(ng);
    for (i, r) in records.iter().enumerate() {
        polys.push(Polygon::default());
        let p = polys.last_mut()?;
        let ok = match r[0] {
            3 => poly::<3>(r, i, ng, vertices, cell, scratch, p),
            4 => poly::<4>(r, i, ng, vertices, cell, scratch, p),
            5 => poly::<5>(r, i, ng, vertices, cell, scratch, p),
            6 => poly::<6>(r, i, ng, vertices, cell, scratch, p),
            _ => false,
        };
        if !ok {
            return None;
        }
    }
    sort_portals(scratch);
    if scratch
        .windows(2)
        .any(|w| w[1].side == w[0].side && w[1].lo < w[0].hi)
    {
        return None;
    }
    Some((polys, scratch.to_vec()))
}

/// Reads ground polygon record `r` (polygon `i` of `ng`) of `N` vertices (its vertex count
/// byte) into `p` (a default polygon) and appends its portal edges to `portals`: true if it
/// meets T9–T13.
#[inline]
fn poly<const N: usize>(
    r: &[u8; POLY_LEN],
    i: usize,
    ng: usize,
    vertices: &[Vec3],
    cell: &[f64; 4],
    portals: &mut Vec<PortalEdge>,
    p: &mut Polygon,
) -> bool {
    // T9 (the count is N, 3 ..= 6): the reserved bytes.
    let mut bad = (r[1] | r[2] | r[3]) != 0;
    p.vertex_count = N as u8;
    // T10: used indices in range, unused ones zero.
    for k in 0..MAX_VERTS_PER_POLY {
        let v = u32_at(r, 4 + 4 * k);
        bad |= if k < N {
            v as usize >= vertices.len()
        } else {
            v != 0
        };
        p.vertices[k] = v;
    }
    if bad {
        return false;
    }
    // T11: no vertex twice.
    let idx = &p.vertices;
    for k in 0..N {
        for j in k + 1..N {
            bad |= idx[k] == idx[j];
        }
    }
    if bad {
        return false;
    }
    // T12: every turn strictly left (part 1), and every corner strictly left of every edge (part
    // 2). Part 1's values are part 2's for corner k + 2 of edge k (the same operands, the same
    // operations), so part 2 over every corner off the edge decides both. Each edge's two
    // differences are computed once, exactly as `orient` computes them for every corner.
    let c: [Vec3; N] = std::array::from_fn(|k| vertices[idx[k] as usize]);
    let mut convex = true;
    for k in 0..N {
        let e = Edge2::of(&c[k], &c[(k + 1) % N]);
        for j in 2..N {
            convex &= positive(e.orient(&c[(k + j) % N]));
        }
    }
    if !convex {
        return false;
    }
    // T13: walls, internal neighbours other than itself, portals on their side.
    for k in 0..MAX_VERTS_PER_POLY {
        let code = u32_at(r, 28 + 4 * k);
        if k >= N {
            if code != 0 {
                return false;
            }
            continue;
        }
        p.edges[k] = if code == 0 {
            Edge::Wall
        } else if code & 0x8000_0000 != 0 {
            let Some(s) = Side::from_code(code & 0x7fff_ffff) else {
                return false;
            };
            let (a, b) = (c[k], c[(k + 1) % N]);
            if !on_side(cell, s, &a) || !on_side(cell, s, &b) {
                return false;
            }
            portals.push(portal_edge(s, PolyIndex(i as u32), k as u8, a, b));
            Edge::Portal(s)
        } else if ((code - 1) as usize) < ng && (code - 1) as usize != i {
            Edge::Internal(PolyIndex(code - 1))
        } else {
            return false;
        };
    }
    true
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

/// The rest of T16 and T17, polygon by polygon: each detail triangle's indices below the
/// polygon's vertex count plus its extra vertex count and its reserved byte zero; each extra
/// detail vertex inside its polygon, each detail triangle counter-clockwise, and the triangles'
/// areas summing to the polygon's. The same operations as the reader's (`point_in_convex_xz`,
/// `orient`, `poly_area2_xz`), with each polygon edge's differences computed once.
///
/// A polygon's points (its corners, then its extra detail vertices: what triangle index x names)
/// are copied into a buffer of 256 points that holds NaN everywhere else, so any one-byte index
/// reads a point, and an index past the polygon's points (against T16) reads NaN: its
/// triangle's orientation is NaN (a difference or product with a NaN operand is NaN), which
/// fails the "strictly positive" test. So the orientation test decides the index range too.
fn detail_covers(
    polys: &[Polygon],
    vertices: &[Vec3],
    meshes: &[[u8; DETAIL_MESH_LEN]],
    dverts: &[Vec3],
    tris: &[[u8; DETAIL_TRI_LEN]],
) -> bool {
    POINTS.with(|cell| match cell.try_borrow_mut() {
        Ok(mut pts) => covers_with(polys, vertices, meshes, dverts, tris, &mut pts),
        Err(_) => covers_with(polys, vertices, meshes, dverts, tris, &mut [NAN3; 256]),
    })
}

/// A point of NaN coordinates.
const NAN3: Vec3 = [f64::NAN; 3];

thread_local! {
    /// The point buffer of [`detail_covers`], kept per thread; all NaN between calls.
    static POINTS: std::cell::RefCell<[Vec3; 256]> = const { std::cell::RefCell::new([NAN3; 256]) };
}

/// [`detail_covers`] with `pts` as the point buffer (all NaN on entry and on return).
fn covers_with(
    polys: &[Polygon],
    vertices: &[Vec3],
    meshes: &[[u8; DETAIL_MESH_LEN]],
    dverts: &[Vec3],
    tris: &[[u8; DETAIL_TRI_LEN]],
    pts: &mut [Vec3; 256],
) -> bool {
    for (p, d) in polys.iter().zip(meshes) {
        let d = DetailMesh::from_record(d);
        let nv = usize::from(p.vertex_count).min(MAX_VERTS_PER_POLY);
        for (o, &k) in pts.iter_mut().zip(p.verts()) {
            *o = vertices[k as usize];
        }
        let extra = &dverts[d.vertex_base as usize..(d.vertex_base + d.vertex_count) as usize];
        let mut ok = true;
        if !extra.is_empty() {
            ok &= match nv {
                3 => all_inside::<3>(&pts[..], extra),
                4 => all_inside::<4>(&pts[..], extra),
                5 => all_inside::<5>(&pts[..], extra),
                _ => all_inside::<6>(&pts[..], extra),
            };
            pts[nv..nv + extra.len()].copy_from_slice(extra);
        }
        let mut reserved = 0u8;
        let mut sum = 0.0;
        let t0 = d.triangle_base as usize;
        for t in &tris[t0..t0 + d.triangle_count as usize] {
            reserved |= t[3];
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
        ok &= reserved == 0 && (sum - area).abs() <= DETAIL_AREA_TOLERANCE * area;
        pts[..nv + extra.len()].fill(NAN3);
        if !ok {
            return false;
        }
    }
    true
}

/// Whether every point of `pts` is on or left of every edge of the polygon whose `N` corners are
/// `c[..N]` (`orient(a, b, p) ≥ 0` for each edge (a, b); a NaN fails): `point_in_convex_xz` for
/// each point. The edges' differences are computed once; each point's N tests are independent
/// and branch-free, computed bit for bit as `orient` computes them (no fused multiply-add: Rust
/// never contracts).
#[inline(always)]
fn all_inside<const N: usize>(c: &[Vec3], pts: &[Vec3]) -> bool {
    let e: [Edge2; N] = std::array::from_fn(|k| Edge2::of(&c[k], &c[(k + 1) % N]));
    // One verdict per edge, folded over the points: independent lanes the compiler can keep in
    // registers.
    let mut ok = [true; N];
    for p in pts {
        for (f, e) in ok.iter_mut().zip(&e) {
            *f &= e.orient(p) >= 0.0;
        }
    }
    ok.iter().all(|&f| f)
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
