//! Parse-and-validate of `ONTL` tile bytes. Checking order (`spec/navmesh-format.md` §3.6): stage 1
//! reads every field in byte order and applies each rule that needs only what came before it;
//! stage 2 applies the cross-record rules T14 (symmetry) and T17 (detail coverage) by ascending
//! polygon index. The first failure is the error reported.

use std::sync::Arc;

use super::{
    AgentSizes, DetailMesh, Edge, LinkDirection, OffMeshLink, Polygon, PortalEdge, TileData,
    TILE_MAGIC, TILE_VERSION,
};
use crate::bytes::Reader;
use crate::error::{FormatError, FormatReason as R};
use crate::geom::{orient, poly_area2_xz, Vec3};
use crate::ids::{PolyIndex, SettingsDigest, Side, TilePos};
use crate::limits::*;
use crate::params::Grid;

fn vec3(r: &mut Reader<'_>, name: &dyn Fn() -> String) -> Result<Vec3, FormatError> {
    Ok([
        r.f64(|| format!("{}.x", name()))?,
        r.f64(|| format!("{}.y", name()))?,
        r.f64(|| format!("{}.z", name()))?,
    ])
}

fn inside(b: &[f64; 4], p: &Vec3) -> bool {
    b[0] <= p[0] && p[0] <= b[2] && b[1] <= p[2] && p[2] <= b[3]
}

pub(crate) fn parse(bytes: &[u8], base: u64) -> Result<TileData, FormatError> {
    let mut r = Reader::new(bytes, base);
    // T1–T3: file header.
    r.header(TILE_MAGIC, TILE_VERSION)?;
    // T4: grid and digest.
    let grid = Grid::read(&mut r, "params")?;
    let digest = SettingsDigest(r.hash32("params.settings_digest")?);
    let column = r.i32("position.column")?;
    let row = r.i32("position.row")?;
    let at = r.offset();
    let layer = r.u32("position.layer")?;
    if layer > MAX_LAYER {
        return Err(r.error_at(at, "position.layer", R::OutOfRange));
    }
    let pos = TilePos { column, row, layer };
    // T5: agent sizes, finite and ≥ 0.
    let mut agent = [0.0; 3];
    for (i, name) in ["agent.height", "agent.radius", "agent.climb"]
        .into_iter()
        .enumerate()
    {
        let at = r.offset();
        agent[i] = r.f64(name)?;
        if agent[i] < 0.0 {
            return Err(r.error_at(at, name, R::OutOfRange));
        }
    }
    let agent = AgentSizes {
        height: agent[0],
        radius: agent[1],
        climb: agent[2],
    };
    // T6: counts within limits (each checked against the bytes that remain before any
    // allocation, with the smallest size per element that follows).
    let nv = r.count("vertex_count", MAX_VERTS, VERTEX_LEN)?;
    let ng = r.count(
        "polygon_count",
        MAX_POLYS,
        POLY_LEN + DETAIL_MESH_LEN + DETAIL_TRI_LEN + AREA_FLAGS_LEN,
    )?;
    let at = r.offset();
    let nl = r.count("link_count", MAX_POLYS, LINK_LEN + AREA_FLAGS_LEN)?;
    if ng + nl > MAX_POLYS {
        return Err(r.error_at(
            at,
            "link_count",
            R::CountTooLarge {
                count: u64::from(nl),
                max: u64::from(MAX_POLYS - ng),
            },
        ));
    }
    let ndv_at = r.offset();
    let ndv = r.count("detail_vertex_count", MAX_DETAIL_VERTS, VERTEX_LEN)?;
    let ndt_at = r.offset();
    let ndt = r.count("detail_triangle_count", MAX_DETAIL_TRIS, DETAIL_TRI_LEN)?;
    r.reserved_u32("reserved")?;
    let cell = grid.cell_bounds(column, row);

    // T8: vertices, finite and inside the cell. The extra detail vertices follow them in the
    // same vector.
    let mut vertices = Vec::with_capacity(nv as usize + ndv as usize);
    for i in 0..nv {
        let at = r.offset();
        let v = vec3(&mut r, &|| format!("vertex[{i}]"))?;
        if !inside(&cell, &v) {
            return Err(r.error_at(at, || format!("vertex[{i}]"), R::OutsideCell));
        }
        vertices.push(v);
    }

    // T9–T13: ground polygons.
    let polys_at = r.offset();
    let mut polys = Vec::with_capacity(ng as usize);
    for i in 0..ng {
        polys.push(read_poly(&mut r, i, ng, &vertices, &cell)?);
    }

    // T15: off-mesh links.
    let mut links = Vec::with_capacity(nl as usize);
    let region = grid.region_bounds(column, row);
    for i in 0..nl {
        let at = r.offset();
        let start = vec3(&mut r, &|| format!("link[{i}].start"))?;
        if !inside(&cell, &start) {
            return Err(r.error_at(at, || format!("link[{i}].start"), R::OutsideCell));
        }
        let at = r.offset();
        let end = vec3(&mut r, &|| format!("link[{i}].end"))?;
        if !inside(&region, &end) {
            return Err(r.error_at(at, || format!("link[{i}].end"), R::OutsideCell));
        }
        let at = r.offset();
        let radius = r.f64(|| format!("link[{i}].radius"))?;
        if radius <= 0.0 {
            return Err(r.error_at(at, || format!("link[{i}].radius"), R::OutOfRange));
        }
        let at = r.offset();
        let direction = match r.u8(|| format!("link[{i}].direction"))? {
            0 => LinkDirection::OneWay,
            1 => LinkDirection::Bidirectional,
            _ => return Err(r.error_at(at, || format!("link[{i}].direction"), R::OutOfRange)),
        };
        for k in 0..3 {
            r.reserved_u8(|| format!("link[{i}].reserved[{k}]"))?;
        }
        let user_id = r.u32(|| format!("link[{i}].user_id"))?;
        links.push(OffMeshLink {
            start,
            end,
            radius,
            direction,
            user_id,
        });
    }

    // T16: detail meshes, contiguous in polygon order.
    let details_at = r.offset();
    let details_offset = r.position();
    let mut detail_meshes = Vec::with_capacity(ng as usize);
    let (mut next_v, mut next_t) = (0u32, 0u32);
    for i in 0..ng {
        let at = r.offset();
        let vertex_base = r.u32(|| format!("detail[{i}].vertex_base"))?;
        if vertex_base != next_v {
            return Err(r.error_at(at, || format!("detail[{i}].vertex_base"), R::OutOfRange));
        }
        let at = r.offset();
        let vertex_count = r.u32(|| format!("detail[{i}].vertex_count"))?;
        if vertex_count > MAX_DETAIL_VERTS_PER_POLY
            || u64::from(vertex_base) + u64::from(vertex_count) > u64::from(ndv)
        {
            return Err(r.error_at(at, || format!("detail[{i}].vertex_count"), R::OutOfRange));
        }
        let at = r.offset();
        let triangle_base = r.u32(|| format!("detail[{i}].triangle_base"))?;
        if triangle_base != next_t {
            return Err(r.error_at(at, || format!("detail[{i}].triangle_base"), R::OutOfRange));
        }
        let at = r.offset();
        let triangle_count = r.u32(|| format!("detail[{i}].triangle_count"))?;
        if triangle_count == 0
            || u64::from(triangle_base) + u64::from(triangle_count) > u64::from(ndt)
        {
            return Err(r.error_at(at, || format!("detail[{i}].triangle_count"), R::OutOfRange));
        }
        next_v = vertex_base + vertex_count;
        next_t = triangle_base + triangle_count;
        detail_meshes.push(DetailMesh {
            vertex_base,
            vertex_count,
            triangle_base,
            triangle_count,
        });
    }
    if next_v != ndv {
        return Err(r.error_at(ndv_at, "detail_vertex_count", R::OutOfRange));
    }
    if next_t != ndt {
        return Err(r.error_at(ndt_at, "detail_triangle_count", R::OutOfRange));
    }

    // T16: detail vertices, finite.
    let dverts_at = r.offset();
    let mut coords = vertices;
    for i in 0..ndv {
        coords.push(vec3(&mut r, &|| format!("detail_vertex[{i}]"))?);
    }
    let (vertices, detail_vertices) = coords.split_at(nv as usize);
    // T16: detail triangles, indices in range for their polygon.
    let tris_at = r.offset();
    let tris_offset = r.position();
    for (pi, d) in detail_meshes.iter().enumerate() {
        let limit = u32::from(polys[pi].vertex_count) + d.vertex_count;
        for t in d.triangle_base..d.triangle_base + d.triangle_count {
            for k in 0..3 {
                let at = r.offset();
                let v = r.u8(|| format!("detail_triangle[{t}].vertex[{k}]"))?;
                if u32::from(v) >= limit {
                    return Err(r.error_at(
                        at,
                        || format!("detail_triangle[{t}].vertex[{k}]"),
                        R::OutOfRange,
                    ));
                }
            }
            r.reserved_u8(|| format!("detail_triangle[{t}].reserved"))?;
        }
    }
    // T18: areas ≤ 63, then flags.
    let areas_offset = r.position();
    let np = ng + nl;
    let area_bytes = r.bytes(np as usize, "area")?;
    if let Some(i) = area_bytes.iter().position(|&a| a > MAX_AREA) {
        return Err(r.error_at(
            base + areas_offset as u64 + i as u64,
            || format!("area[{i}]"),
            R::OutOfRange,
        ));
    }
    for i in 0..np {
        r.u16(|| format!("flags[{i}]"))?;
    }
    // T19: nothing after the flags.
    r.finish("end")?;

    // Stage 2.
    check_symmetry(&polys, polys_at)?;
    let detail_at = DetailOffsets {
        meshes: details_at,
        vertices: dverts_at,
        triangles: tris_at,
    };
    let detail_tris = bytes[tris_offset..areas_offset].as_chunks().0;
    check_detail(
        &polys,
        vertices,
        &detail_meshes,
        detail_vertices,
        detail_tris,
        &detail_at,
    )?;
    let (portals, portal_ends) = portal_lists(&polys, vertices);
    check_portals_disjoint(&portals, polys_at)?;

    Ok(TileData {
        grid,
        digest,
        pos,
        agent,
        coords,
        vertex_count: nv as usize,
        polys,
        links,
        bytes: Arc::from(bytes),
        details_offset,
        tris_offset,
        areas_offset,
        content_id: std::sync::OnceLock::new(),
        portals,
        portal_ends,
        query_index: std::sync::OnceLock::new(),
    })
}

/// The portal edges, side by side in code order, each side's sorted by (lo, hi, polygon, edge),
/// and where each side's run ends: derived data that stitching merges against a neighbour's
/// (`spec/navmesh-format.md` §6.2).
pub(super) fn portal_lists(polys: &[Polygon], vertices: &[Vec3]) -> (Vec<PortalEdge>, [u32; 4]) {
    let mut out = Vec::new();
    for (i, p) in polys.iter().enumerate() {
        let n = usize::from(p.vertex_count);
        for (k, e) in p.edge_list().iter().enumerate() {
            if let Edge::Portal(side) = *e {
                let (a, b) = (
                    vertices[p.vertices[k] as usize],
                    vertices[p.vertices[(k + 1) % n] as usize],
                );
                out.push(portal_edge(side, PolyIndex(i as u32), k as u8, a, b));
            }
        }
    }
    sort_portals(&mut out);
    let ends = portal_ends(&out);
    (out, ends)
}

/// The portal edge of polygon `poly`'s edge `edge` from `a` to `b` on `side`.
pub(super) fn portal_edge(side: Side, poly: PolyIndex, edge: u8, a: Vec3, b: Vec3) -> PortalEdge {
    let u = if side.along_z() { 2 } else { 0 };
    let (lo, hi) = if a[u] < b[u] {
        (a[u], b[u])
    } else {
        (b[u], a[u])
    };
    PortalEdge {
        lo,
        hi,
        poly,
        edge,
        side,
        a,
        b,
    }
}

/// Sorts portal edges by (side, lo, hi, polygon, edge); no two have equal keys (one polygon
/// edge each).
pub(super) fn sort_portals(list: &mut [PortalEdge]) {
    list.sort_unstable_by(|x, y| {
        x.side
            .cmp(&y.side)
            .then(x.lo.total_cmp(&y.lo))
            .then(x.hi.total_cmp(&y.hi))
            .then(x.poly.cmp(&y.poly))
            .then(x.edge.cmp(&y.edge))
    });
}

/// Where each side's run ends in a sorted list of portal edges.
pub(super) fn portal_ends(list: &[PortalEdge]) -> [u32; 4] {
    Side::ALL.map(|s| list.partition_point(|e| e.side <= s) as u32)
}

/// Offset of `polygon[i].neighbour[k]`, the polygon records starting at `polys_at`.
fn neighbour_at(polys_at: u64, i: usize, k: usize) -> u64 {
    polys_at + (i * POLY_LEN) as u64 + POLY_NEIGHBOURS_OFFSET + 4 * k as u64
}

/// T20: on each side, the portal edges' intervals have disjoint interiors (a tile is one layer:
/// at most one of its polygons crosses any point of a side). In sorted order each interval must
/// start at or after the end of the one before; the later of the first overlapping pair is
/// reported, sides in code order.
fn check_portals_disjoint(portals: &[PortalEdge], polys_at: u64) -> Result<(), FormatError> {
    for w in portals.windows(2) {
        if w[1].side == w[0].side && w[1].lo < w[0].hi {
            let (i, k) = (w[1].poly.0 as usize, usize::from(w[1].edge));
            let at = neighbour_at(polys_at, i, k);
            return Err(FormatError::new(
                at,
                format!("polygon[{i}].neighbour[{k}]"),
                R::PortalOverlap,
            ));
        }
    }
    Ok(())
}

/// Reads ground polygon `i` and applies rules T9–T13, which need only the vertices.
fn read_poly(
    r: &mut Reader<'_>,
    i: u32,
    ng: u32,
    vertices: &[Vec3],
    cell: &[f64; 4],
) -> Result<Polygon, FormatError> {
    let at = r.offset();
    let n = r.u8(|| format!("polygon[{i}].vertex_count"))?;
    if !(MIN_VERTS_PER_POLY..=MAX_VERTS_PER_POLY).contains(&usize::from(n)) {
        return Err(r.error_at(at, || format!("polygon[{i}].vertex_count"), R::OutOfRange));
    }
    for k in 0..3 {
        r.reserved_u8(|| format!("polygon[{i}].reserved[{k}]"))?;
    }
    let n = usize::from(n);
    let mut p = Polygon {
        vertex_count: n as u8,
        ..Polygon::default()
    };
    let verts_at = r.offset();
    for k in 0..MAX_VERTS_PER_POLY {
        let at = r.offset();
        let v = r.u32(|| format!("polygon[{i}].vertex[{k}]"))?;
        // T10: used indices in range, unused ones zero.
        let ok = if k < n {
            (v as usize) < vertices.len()
        } else {
            v == 0
        };
        if !ok {
            let reason = if k < n {
                R::OutOfRange
            } else {
                R::NonZeroReserved
            };
            return Err(r.error_at(at, || format!("polygon[{i}].vertex[{k}]"), reason));
        }
        p.vertices[k] = v;
    }
    // T11: no repeated vertex; T12: strictly convex and counter-clockwise.
    let idx = &p.vertices[..n];
    for k in 0..n {
        if idx[k + 1..].contains(&idx[k]) {
            return Err(r.error_at(
                verts_at + 4 * k as u64,
                || format!("polygon[{i}].vertex[{k}]"),
                R::Duplicate,
            ));
        }
    }
    for k in 0..n {
        let (a, b, c) = (
            &vertices[idx[k] as usize],
            &vertices[idx[(k + 1) % n] as usize],
            &vertices[idx[(k + 2) % n] as usize],
        );
        // NaN (an overflowing product, inf − inf) must fail too: accept only a provably
        // positive orientation.
        let o = orient(a, b, c);
        if o.is_nan() || o <= 0.0 {
            let kk = (k + 1) % n;
            return Err(r.error_at(
                verts_at + 4 * kk as u64,
                || format!("polygon[{i}].vertex[{kk}]"),
                R::NotConvex,
            ));
        }
    }
    // T12, continued: with five or six vertices every turn can be to the left while the polygon
    // winds twice (a pentagram), so every vertex must also lie strictly left of every edge.
    for k in 0..n {
        let (a, b) = (
            &vertices[idx[k] as usize],
            &vertices[idx[(k + 1) % n] as usize],
        );
        for j in (0..n).filter(|&j| j != k && j != (k + 1) % n) {
            let o = orient(a, b, &vertices[idx[j] as usize]);
            if o.is_nan() || o <= 0.0 {
                return Err(r.error_at(
                    verts_at + 4 * j as u64,
                    || format!("polygon[{i}].vertex[{j}]"),
                    R::NotConvex,
                ));
            }
        }
    }
    for k in 0..MAX_VERTS_PER_POLY {
        let at = r.offset();
        let code = r.u32(|| format!("polygon[{i}].neighbour[{k}]"))?;
        if k >= n {
            if code != 0 {
                return Err(r.error_at(
                    at,
                    || format!("polygon[{i}].neighbour[{k}]"),
                    R::NonZeroReserved,
                ));
            }
            continue;
        }
        // T13: a wall, an internal neighbour other than itself, or a portal on its side.
        let edge = match code {
            0 => Edge::Wall,
            c if c & 0x8000_0000 != 0 => match Side::from_code(c & 0x7fff_ffff) {
                Some(s) => Edge::Portal(s),
                None => {
                    return Err(r.error_at(
                        at,
                        || format!("polygon[{i}].neighbour[{k}]"),
                        R::OutOfRange,
                    ))
                }
            },
            c if c - 1 < ng && c - 1 != i => Edge::Internal(PolyIndex(c - 1)),
            _ => {
                return Err(r.error_at(
                    at,
                    || format!("polygon[{i}].neighbour[{k}]"),
                    R::OutOfRange,
                ))
            }
        };
        if let Edge::Portal(s) = edge {
            let (a, b) = (
                &vertices[idx[k] as usize],
                &vertices[idx[(k + 1) % n] as usize],
            );
            if !on_side(cell, s, a) || !on_side(cell, s, b) {
                return Err(r.error_at(
                    at,
                    || format!("polygon[{i}].neighbour[{k}]"),
                    R::PortalOffSide,
                ));
            }
        }
        p.edges[k] = edge;
    }
    Ok(p)
}

/// True when p lies exactly on the cell's side s.
pub(crate) fn on_side(cell: &[f64; 4], s: Side, p: &Vec3) -> bool {
    match s {
        Side::PosX => p[0] == cell[2],
        Side::PosZ => p[2] == cell[3],
        Side::NegX => p[0] == cell[0],
        Side::NegZ => p[2] == cell[1],
    }
}

/// T14: every internal edge k of p naming q is matched by an edge of q naming p with the same two
/// vertices in reverse order.
fn check_symmetry(polys: &[Polygon], polys_at: u64) -> Result<(), FormatError> {
    for (i, p) in polys.iter().enumerate() {
        let n = usize::from(p.vertex_count);
        for k in 0..n {
            let Edge::Internal(q) = p.edges[k] else {
                continue;
            };
            let q_poly = &polys[q.0 as usize];
            let (a, b) = (p.vertices[k], p.vertices[(k + 1) % n]);
            let m = usize::from(q_poly.vertex_count);
            let matched = (0..m).any(|j| {
                q_poly.edges[j] == Edge::Internal(PolyIndex(i as u32))
                    && q_poly.vertices[j] == b
                    && q_poly.vertices[(j + 1) % m] == a
            });
            if !matched {
                let at = neighbour_at(polys_at, i, k);
                return Err(FormatError::new(
                    at,
                    format!("polygon[{i}].neighbour[{k}]"),
                    R::AsymmetricAdjacency,
                ));
            }
        }
    }
    Ok(())
}

/// Where the detail records, the detail vertices and the detail triangles start.
struct DetailOffsets {
    meshes: u64,
    vertices: u64,
    triangles: u64,
}

/// T17: each detail triangle is counter-clockwise with positive area, each extra detail vertex
/// lies inside its polygon, and the triangles' areas sum to the polygon's area.
fn check_detail(
    polys: &[Polygon],
    vertices: &[Vec3],
    meshes: &[DetailMesh],
    dverts: &[Vec3],
    tris: &[[u8; DETAIL_TRI_LEN]],
    at: &DetailOffsets,
) -> Result<(), FormatError> {
    let mut corners = Vec::with_capacity(MAX_VERTS_PER_POLY);
    for (i, (p, d)) in polys.iter().zip(meshes).enumerate() {
        corners.clear();
        corners.extend(p.verts().iter().map(|&v| vertices[v as usize]));
        let nv = u32::from(p.vertex_count);
        let extra = &dverts[d.vertex_base as usize..(d.vertex_base + d.vertex_count) as usize];
        for (k, v) in extra.iter().enumerate() {
            if !crate::geom::point_in_convex_xz(v, &corners) {
                let at = at.vertices + (d.vertex_base as usize + k) as u64 * VERTEX_LEN as u64;
                return Err(FormatError::new(
                    at,
                    format!("detail_vertex[{}]", d.vertex_base as usize + k),
                    R::DetailMismatch,
                ));
            }
        }
        let get = |x: u8| -> Vec3 {
            let x = u32::from(x);
            if x < nv {
                corners[x as usize]
            } else {
                extra[(x - nv) as usize]
            }
        };
        let mut sum = 0.0;
        for t in d.triangle_base..d.triangle_base + d.triangle_count {
            let tri = &tris[t as usize];
            let [a, b, c] = [tri[0], tri[1], tri[2]].map(get);
            let o = orient(&a, &b, &c);
            if o.is_nan() || o <= 0.0 {
                let at = at.triangles + u64::from(t) * DETAIL_TRI_LEN as u64;
                return Err(FormatError::new(
                    at,
                    format!("detail_triangle[{t}]"),
                    R::DetailMismatch,
                ));
            }
            sum += o;
        }
        let area = poly_area2_xz(&corners);
        // Written so that a NaN (sum and area both overflowed) fails.
        let covered = (sum - area).abs() <= DETAIL_AREA_TOLERANCE * area;
        if !covered {
            let at = at.meshes + (i * DETAIL_MESH_LEN) as u64 + DETAIL_TRIANGLE_COUNT_OFFSET;
            return Err(FormatError::new(
                at,
                format!("detail[{i}].triangle_count"),
                R::DetailMismatch,
            ));
        }
    }
    Ok(())
}
