//! The one module that uses `onav`'s API (`spec/build3d.md` §15): mesh parameters, cell bounds,
//! the x–z geometry helpers of `spec/navmesh-format.md` §1.3, the byte reader and writer, and
//! writing a tile through `onav::RawTile` and the one validating reader. Everything else in the
//! crate reaches onav through here, so a port to another onav API touches only this file.

pub use onav::bytes::{Reader, Writer};
pub use onav::geom::{closest_t_on_segment_xz, dist2_xz, lerp, orient, point_in_convex_xz};
pub use onav::geom::{poly_area2_xz, Vec3};
pub use onav::{
    FormatError, FormatReason, MeshError, MeshParams, NavTile, SettingsDigest, TiledNavMesh,
};

use onav::{AgentSizes, DetailMesh, Edge, PolyIndex, Polygon, RawTile, Side, TilePos};

/// The format's caps that the builder's limits are made of (`spec/navmesh-format.md` P5, T6,
/// T16) and the relative tolerance of the detail-coverage rule T17, from their one home in
/// onav's `limits`: the builder checks each detail mesh with exactly the reader's formula and
/// tolerance, and caps its tiles where the reader does.
pub use onav::limits::{
    DETAIL_AREA_TOLERANCE, MAX_DETAIL_TRIS, MAX_DETAIL_VERTS, MAX_DETAIL_VERTS_PER_POLY, MAX_POLYS,
    MAX_SLOTS, MAX_VERTS,
};

/// A mesh holding `tiles` (added in order, so tile i takes slot i).
pub fn mesh_of(params: MeshParams, tiles: &[NavTile]) -> Result<TiledNavMesh, MeshError> {
    let mut m = TiledNavMesh::new(params);
    for t in tiles {
        m.add_tile(t.clone())?;
    }
    Ok(m)
}

/// SHA-256 of bytes as a settings digest.
pub fn digest_of(bytes: &[u8]) -> SettingsDigest {
    SettingsDigest::of_bytes(bytes)
}

/// Mesh parameters through onav's validating constructor.
pub fn mesh_params(
    origin: [f64; 3],
    tile_size: f64,
    slot_count: u32,
    digest: SettingsDigest,
) -> Result<MeshParams, FormatError> {
    MeshParams::new(origin, tile_size, slot_count, digest)
}

/// onav's bounds of cell (column, row) as `[min_x, min_z, max_x, max_z]`
/// (`spec/navmesh-format.md` §1.4): tile borders are these values, bit for bit.
pub fn cell_bounds(params: &MeshParams, column: i32, row: i32) -> [f64; 4] {
    params.grid().cell_bounds(column, row)
}

/// What lies across one polygon edge of a built tile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EdgeOut {
    /// Nothing.
    #[default]
    Wall,
    /// Ground polygon of the same tile-layer.
    Internal(u32),
    /// The neighbouring cell across side 0 +x, 1 +z, 2 −x, 3 −z.
    Portal(u8),
}

/// One ground polygon of a built tile-layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PolyOut {
    /// Vertex indices, the first `count` used.
    pub verts: [u32; 6],
    /// Edge k runs from vertex k to vertex k + 1 mod count.
    pub edges: [EdgeOut; 6],
    /// 3 ..= 6.
    pub count: u8,
}

/// The contents of one tile-layer in world units, ready to be written.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LayerMesh {
    /// Vertices (x, y, z).
    pub vertices: Vec<Vec3>,
    /// Ground polygons.
    pub polys: Vec<PolyOut>,
    /// One per polygon: (vertex base, vertex count, triangle base, triangle count).
    pub detail_meshes: Vec<[u32; 4]>,
    /// Extra detail vertices.
    pub detail_vertices: Vec<Vec3>,
    /// Detail triangles: indices below a polygon's vertex count name its corners.
    pub detail_tris: Vec<[u8; 3]>,
    /// One area per polygon.
    pub areas: Vec<u8>,
}

/// Writes one tile through `RawTile` and reads it back with onav's one validating reader.
/// Every polygon gets flags 1 (`spec/build3d.md` §15).
#[allow(clippy::too_many_arguments)]
pub fn write_tile(
    params: &MeshParams,
    column: i32,
    row: i32,
    layer: u32,
    agent: [f64; 3],
    mesh: &LayerMesh,
) -> Result<NavTile, FormatError> {
    let polys = mesh
        .polys
        .iter()
        .map(|p| {
            let mut edges = [Edge::Wall; 6];
            for (e, o) in edges.iter_mut().zip(&p.edges[..usize::from(p.count)]) {
                *e = match *o {
                    EdgeOut::Wall => Edge::Wall,
                    EdgeOut::Internal(q) => Edge::Internal(PolyIndex(q)),
                    // Codes 0..=3 only; anything else is a builder bug the reader reports.
                    EdgeOut::Portal(s) => {
                        Side::from_code(u32::from(s)).map_or(Edge::Wall, Edge::Portal)
                    }
                };
            }
            Polygon {
                vertex_count: p.count,
                vertices: p.verts,
                edges,
            }
        })
        .collect();
    let raw = RawTile {
        grid: params.grid().raw(),
        digest: params.digest(),
        pos: TilePos { column, row, layer },
        agent: AgentSizes {
            height: agent[0],
            radius: agent[1],
            climb: agent[2],
        },
        vertices: mesh.vertices.clone(),
        polys,
        links: Vec::new(),
        detail_meshes: mesh
            .detail_meshes
            .iter()
            .map(|d| DetailMesh {
                vertex_base: d[0],
                vertex_count: d[1],
                triangle_base: d[2],
                triangle_count: d[3],
            })
            .collect(),
        detail_vertices: mesh.detail_vertices.clone(),
        detail_tris: mesh.detail_tris.clone(),
        areas: mesh.areas.clone(),
        flags: vec![1; mesh.polys.len()],
    };
    raw.build()
}
