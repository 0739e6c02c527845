//! Tiles (`spec/navmesh-format.md` §3): the `ONTL` format, its rules, and `NavTile`, which
//! follows the ownership rule R11 (§5.2): immutable arrays shared, current areas, flags and link
//! switches owned per copy.

mod raw;
mod read;
#[cfg(test)]
mod tile_tests;

use std::sync::Arc;

pub use raw::RawTile;

use crate::geom::Vec3;
use crate::ids::{LinkIndex, PolyIndex, SettingsDigest, Side, TileContentId, TilePos};
use crate::limits::MAX_VERTS_PER_POLY;
use crate::params::Grid;

/// Tile file magic, "ONTL".
pub const TILE_MAGIC: [u8; 4] = *b"ONTL";
/// The tile format version: 2, frozen (`spec/navmesh-format.md` §1.1).
pub const TILE_VERSION: u16 = 2;

/// What lies across one polygon edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Edge {
    /// Nothing: the edge is a wall.
    #[default]
    Wall,
    /// Another ground polygon of the same tile.
    Internal(PolyIndex),
    /// A portal to the neighbouring cell across the given side.
    Portal(Side),
}

impl Edge {
    /// The u32 code (`spec/navmesh-format.md` §3.3): 0 wall, 1 + index internal, 0x8000_0000 +
    /// side portal. An internal index that has no code (one whose code would reach the portal
    /// bit) is written as `u32::MAX`, which no reader accepts.
    pub fn code(self) -> u32 {
        match self {
            Edge::Wall => 0,
            Edge::Internal(p) => {
                p.0.checked_add(1)
                    .filter(|c| c & 0x8000_0000 == 0)
                    .unwrap_or(u32::MAX)
            }
            Edge::Portal(s) => 0x8000_0000 | u32::from(s.code()),
        }
    }
}

/// A ground polygon: 3 to 6 vertex indices and an edge per vertex (edge k runs from vertex k to
/// vertex k+1 mod n).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Polygon {
    /// Number of vertices, 3 ..= 6.
    pub vertex_count: u8,
    /// Vertex indices; entries at and past `vertex_count` are 0.
    pub vertices: [u32; 6],
    /// Edge neighbours; entries at and past `vertex_count` are walls.
    pub edges: [Edge; 6],
}

impl Polygon {
    /// The used vertex indices (all six for a vertex count above six, which only a hand-built
    /// `RawTile` can hold and which no reader accepts).
    pub fn verts(&self) -> &[u32] {
        &self.vertices[..self.used()]
    }

    /// The used edges (as [`Polygon::verts`]).
    pub fn edge_list(&self) -> &[Edge] {
        &self.edges[..self.used()]
    }

    fn used(&self) -> usize {
        usize::from(self.vertex_count).min(MAX_VERTS_PER_POLY)
    }
}

/// Direction of an off-mesh link.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LinkDirection {
    /// Start to end only.
    OneWay = 0,
    /// Both ways.
    Bidirectional = 1,
}

/// An off-mesh link record. Link i is polygon `ground_poly_count + i` of its tile.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OffMeshLink {
    /// Start point; inside the tile's cell.
    pub start: Vec3,
    /// End point; inside the tile's cell or one of the eight around it.
    pub end: Vec3,
    /// Landing radius on x–z, > 0.
    pub radius: f64,
    /// One way or both.
    pub direction: LinkDirection,
    /// Free for the host.
    pub user_id: u32,
}

/// The detail mesh of one ground polygon: ranges into the tile's detail arrays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DetailMesh {
    /// First extra detail vertex.
    pub vertex_base: u32,
    /// Number of extra detail vertices.
    pub vertex_count: u32,
    /// First detail triangle.
    pub triangle_base: u32,
    /// Number of detail triangles, ≥ 1.
    pub triangle_count: u32,
}

/// Agent sizes the tile was built for, in world units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AgentSizes {
    /// Walkable height.
    pub height: f64,
    /// Agent radius.
    pub radius: f64,
    /// Walkable climb: the vertical tolerance of stitching and link landings.
    pub climb: f64,
}

/// The immutable, validated contents of a tile, shared between copies.
#[derive(Debug)]
pub(crate) struct TileData {
    pub grid: Grid,
    pub digest: SettingsDigest,
    pub pos: TilePos,
    pub agent: AgentSizes,
    pub vertices: Vec<Vec3>,
    pub polys: Vec<Polygon>,
    pub links: Vec<OffMeshLink>,
    pub detail_meshes: Vec<DetailMesh>,
    pub detail_vertices: Vec<Vec3>,
    pub detail_tris: Vec<[u8; 3]>,
    pub areas: Arc<Vec<u8>>,
    pub flags: Arc<Vec<u16>>,
    /// The as-built bytes.
    pub bytes: Arc<[u8]>,
    /// Offset of the area array within `bytes`.
    pub areas_offset: usize,
    pub content_id: TileContentId,
    /// Portal edges per side (derived; see `read::portal_lists`).
    pub portals: [Vec<PortalEdge>; 4],
    /// The polygon index of `find_nearest_poly` (derived; `crate::query::TileIndex`).
    pub query_index: crate::query::TileIndex,
}

/// A portal edge of a tile: its interval [lo, hi] along the side, its polygon and edge, and its
/// two vertices in polygon order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct PortalEdge {
    pub lo: f64,
    pub hi: f64,
    pub poly: PolyIndex,
    pub edge: u8,
    pub a: Vec3,
    pub b: Vec3,
}

/// A tile: shared immutable contents plus this copy's current areas, flags and link switches.
#[derive(Debug, Clone)]
pub struct NavTile {
    data: Arc<TileData>,
    areas: Arc<Vec<u8>>,
    flags: Arc<Vec<u16>>,
    /// Polygons whose current area or flags differ from the as-built ones, strictly ascending.
    edited: SortedSet<PolyIndex>,
    /// Disabled link indices, strictly ascending.
    disabled: SortedSet<LinkIndex>,
}

impl PartialEq for NavTile {
    /// Equal content ids and equal current state.
    fn eq(&self, other: &Self) -> bool {
        self.data.content_id == other.data.content_id
            && self.areas == other.areas
            && self.flags == other.flags
            && self.disabled == other.disabled
    }
}

impl NavTile {
    /// Parses and validates tile bytes (every rule of `spec/navmesh-format.md` §3.5). The bytes
    /// become the as-built values; errors carry offsets relative to the slice.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, crate::error::FormatError> {
        Self::from_bytes_at(bytes, 0)
    }

    /// As [`NavTile::from_bytes`], with error offsets shifted by `base` (a tile inside a file).
    pub fn from_bytes_at(bytes: &[u8], base: u64) -> Result<Self, crate::error::FormatError> {
        read::parse(bytes, base).map(|d| Self::from_data(Arc::new(d)))
    }

    pub(crate) fn from_data(data: Arc<TileData>) -> Self {
        Self {
            areas: Arc::clone(&data.areas),
            flags: Arc::clone(&data.flags),
            data,
            edited: SortedSet::default(),
            disabled: SortedSet::default(),
        }
    }

    pub(crate) fn data(&self) -> &Arc<TileData> {
        &self.data
    }

    /// True when both copies share the same immutable contents (no comparison of bytes).
    pub fn shares_contents(&self, other: &NavTile) -> bool {
        Arc::ptr_eq(&self.data, &other.data)
    }

    /// SHA-256 of the as-built bytes; computed once at parse, O(1) here.
    pub fn content_id(&self) -> TileContentId {
        self.data.content_id
    }

    /// The polygon index of the queries (derived from the tile alone, shared by every copy).
    pub(crate) fn query_index(&self) -> &crate::query::TileIndex {
        &self.data.query_index
    }

    /// The tile's position.
    pub fn pos(&self) -> TilePos {
        self.data.pos
    }

    /// Origin and tile size the tile was built for.
    pub fn grid(&self) -> Grid {
        self.data.grid
    }

    /// The tile's settings digest.
    pub fn digest(&self) -> SettingsDigest {
        self.data.digest
    }

    /// Agent sizes.
    pub fn agent(&self) -> AgentSizes {
        self.data.agent
    }

    /// Cell bounds `[min_x, min_z, max_x, max_z]`.
    pub fn cell_bounds(&self) -> [f64; 4] {
        self.data
            .grid
            .cell_bounds(self.data.pos.column, self.data.pos.row)
    }

    /// The vertices.
    pub fn vertices(&self) -> &[Vec3] {
        &self.data.vertices
    }

    /// The ground polygons (indices 0 .. ground_poly_count).
    pub fn ground_polys(&self) -> &[Polygon] {
        &self.data.polys
    }

    /// Number of ground polygons G.
    pub fn ground_poly_count(&self) -> u32 {
        self.data.polys.len() as u32
    }

    /// Number of polygons P = G + L.
    pub fn poly_count(&self) -> u32 {
        (self.data.polys.len() + self.data.links.len()) as u32
    }

    /// The off-mesh links; link i is polygon G + i.
    pub fn off_mesh_links(&self) -> &[OffMeshLink] {
        &self.data.links
    }

    /// Number of off-mesh links L.
    pub fn link_count(&self) -> u32 {
        self.data.links.len() as u32
    }

    /// The link index of a polygon, if it is an off-mesh link polygon.
    pub fn link_of_poly(&self, poly: PolyIndex) -> Option<LinkIndex> {
        poly.0
            .checked_sub(self.ground_poly_count())
            .filter(|&i| i < self.link_count())
            .map(LinkIndex)
    }

    /// The polygon of an off-mesh link: G + link, if the link exists.
    pub fn poly_of_link(&self, link: LinkIndex) -> Option<PolyIndex> {
        (link.0 < self.link_count()).then(|| PolyIndex(self.ground_poly_count() + link.0))
    }

    /// The vertex positions of ground polygon `poly`.
    pub fn poly_vertices(&self, poly: PolyIndex) -> Option<impl Iterator<Item = Vec3> + '_> {
        let p = self.data.polys.get(poly.0 as usize)?;
        Some(p.verts().iter().map(|&v| self.data.vertices[v as usize]))
    }

    /// The detail mesh records, one per ground polygon.
    pub fn detail_meshes(&self) -> &[DetailMesh] {
        &self.data.detail_meshes
    }

    /// The extra detail vertices.
    pub fn detail_vertices(&self) -> &[Vec3] {
        &self.data.detail_vertices
    }

    /// The detail triangles: indices below the polygon's vertex count name polygon vertices,
    /// the others name extra detail vertices from the polygon's base.
    pub fn detail_triangles(&self) -> &[[u8; 3]] {
        &self.data.detail_tris
    }

    /// The three corners of detail triangle `t` (absolute index) of ground polygon `poly`; `None`
    /// for an off-mesh link polygon, an index out of range, or a triangle of another polygon.
    pub fn detail_triangle(&self, poly: PolyIndex, t: u32) -> Option<[Vec3; 3]> {
        let p = self.data.polys.get(poly.0 as usize)?;
        let d = &self.data.detail_meshes[poly.0 as usize];
        if !(d.triangle_base..d.triangle_base + d.triangle_count).contains(&t) {
            return None;
        }
        Some(self.corners_of(p, d, t))
    }

    /// Corners of triangle `t`, known to belong to polygon `p` with detail record `d`.
    fn corners_of(&self, p: &Polygon, d: &DetailMesh, t: u32) -> [Vec3; 3] {
        let tri = self.data.detail_tris[t as usize];
        let nv = u32::from(p.vertex_count);
        tri.map(|i| {
            let i = u32::from(i);
            if i < nv {
                self.data.vertices[p.vertices[i as usize] as usize]
            } else {
                self.data.detail_vertices[(d.vertex_base + i - nv) as usize]
            }
        })
    }

    /// Current area of a polygon.
    pub fn area(&self, poly: PolyIndex) -> Option<u8> {
        self.areas.get(poly.0 as usize).copied()
    }

    /// Current flags of a polygon.
    pub fn flags(&self, poly: PolyIndex) -> Option<u16> {
        self.flags.get(poly.0 as usize).copied()
    }

    /// As-built area of a polygon.
    pub fn as_built_area(&self, poly: PolyIndex) -> Option<u8> {
        self.data.areas.get(poly.0 as usize).copied()
    }

    /// As-built flags of a polygon.
    pub fn as_built_flags(&self, poly: PolyIndex) -> Option<u16> {
        self.data.flags.get(poly.0 as usize).copied()
    }

    /// Current areas of all polygons.
    pub fn areas(&self) -> &[u8] {
        &self.areas
    }

    /// Current flags of all polygons.
    pub fn all_flags(&self) -> &[u16] {
        &self.flags
    }

    /// Whether off-mesh link `link` is enabled (all links start enabled).
    pub fn is_link_enabled(&self, link: LinkIndex) -> bool {
        !self.disabled.contains(link)
    }

    /// Polygons whose current area or flags differ from the as-built values, ascending.
    pub fn edited_polys(&self) -> impl ExactSizeIterator<Item = PolyIndex> + '_ {
        self.edited.iter().copied()
    }

    /// Disabled link indices, ascending.
    pub fn disabled_links(&self) -> impl ExactSizeIterator<Item = LinkIndex> + '_ {
        self.disabled.iter().copied()
    }

    /// Sets a polygon's area and flags, keeping the edited set exact. The caller has checked the
    /// index and the area range.
    pub(crate) fn set_area_flags(&mut self, poly: PolyIndex, area: u8, flags: u16) {
        let i = poly.0 as usize;
        if self.areas[i] != area {
            Arc::make_mut(&mut self.areas)[i] = area;
        }
        if self.flags[i] != flags {
            Arc::make_mut(&mut self.flags)[i] = flags;
        }
        if area == self.data.areas[i] && flags == self.data.flags[i] {
            self.edited.remove(poly);
        } else {
            self.edited.insert(poly);
        }
    }

    /// Turns a link on or off. The caller has checked the index.
    pub(crate) fn set_link_enabled(&mut self, link: LinkIndex, enabled: bool) {
        if enabled {
            self.disabled.remove(link);
        } else {
            self.disabled.insert(link);
        }
    }

    /// The as-built tile bytes (what the content id hashes).
    pub fn as_built_bytes(&self) -> &[u8] {
        &self.data.bytes
    }

    /// The tile serialized with its current areas and flags.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = self.data.bytes.to_vec();
        if !self.edited.is_empty() {
            let p = self.areas.len();
            let at = self.data.areas_offset;
            out[at..at + p].copy_from_slice(&self.areas);
            for (i, f) in self.flags.iter().enumerate() {
                out[at + p + 2 * i..at + p + 2 * i + 2].copy_from_slice(&f.to_le_bytes());
            }
        }
        out
    }
}

impl NavTile {
    /// Height of ground polygon `poly` at x–z point `p` from its detail triangles
    /// (`spec/navmesh-format.md` §6.4): the first triangle, in order, that contains p (inclusive
    /// orient tests) gives the barycentric height `((wa·a.y + wb·b.y) + wc·c.y)` with
    /// `wa = orient(b, c, p)/d`, `wb = orient(c, a, p)/d`, `wc = orient(a, b, p)/d`,
    /// `d = orient(a, b, c)`; when none contains it (p on the rim, rounded outside), the closest
    /// triangle edge on x–z gives `a.y + (b.y − a.y)·t`, the first edge winning ties.
    /// `None` for an off-mesh link polygon or an index out of range.
    pub fn poly_height(&self, poly: PolyIndex, p: &Vec3) -> Option<f64> {
        use crate::geom::{closest_t_on_segment_xz, dist2_xz, lerp, orient};
        let pg = self.data.polys.get(poly.0 as usize)?;
        let d = &self.data.detail_meshes[poly.0 as usize];
        let tris = &self.data.detail_tris
            [d.triangle_base as usize..(d.triangle_base + d.triangle_count) as usize];
        // Detail index i names the polygon's vertex i below its vertex count, else its extra
        // detail vertex i − n (rule T16 keeps every index in range).
        let n = usize::from(pg.vertex_count).min(pg.vertices.len());
        let mut own = [[0.0; 3]; 6];
        for (o, &v) in own.iter_mut().zip(&pg.vertices[..n]) {
            *o = self.data.vertices[v as usize];
        }
        let extra = &self.data.detail_vertices
            [d.vertex_base as usize..(d.vertex_base + d.vertex_count) as usize];
        let corner = |i: u8| -> &Vec3 {
            let i = usize::from(i);
            if i < n {
                &own[i]
            } else {
                &extra[i - n]
            }
        };
        for t in tris {
            let (a, b, c) = (corner(t[0]), corner(t[1]), corner(t[2]));
            // The three tests in turn (a NaN fails like a negative).
            let oa = orient(b, c, p);
            if oa >= 0.0 {
                let ob = orient(c, a, p);
                if ob >= 0.0 {
                    let oc = orient(a, b, p);
                    if oc >= 0.0 {
                        let den = orient(a, b, c);
                        return Some((oa / den) * a[1] + (ob / den) * b[1] + (oc / den) * c[1]);
                    }
                }
            }
        }
        let mut best = (f64::INFINITY, 0.0);
        for t in tris {
            let tri = [corner(t[0]), corner(t[1]), corner(t[2])];
            for k in 0..3 {
                let (a, b) = (tri[k], tri[if k == 2 { 0 } else { k + 1 }]);
                let s = closest_t_on_segment_xz(p, a, b);
                let q = lerp(a, b, s);
                let dd = dist2_xz(p, &q);
                if dd < best.0 {
                    best = (dd, q[1]);
                }
            }
            // Nothing is strictly closer than 0: the first edge at distance 0 wins.
            if best.0 == 0.0 {
                break;
            }
        }
        Some(best.1)
    }
}

/// A set of indices kept as a strictly ascending vector: contiguous to iterate (the snapshot
/// writer lists it in order), binary search to look up; appending in ascending order (restore) is
/// O(1).
#[derive(Debug, Clone, PartialEq, Eq)]
struct SortedSet<T>(Vec<T>);

impl<T> Default for SortedSet<T> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

impl<T: Ord + Copy> SortedSet<T> {
    fn contains(&self, v: T) -> bool {
        self.0.binary_search(&v).is_ok()
    }

    fn insert(&mut self, v: T) {
        if self.0.last().is_none_or(|&l| l < v) {
            self.0.push(v);
        } else if let Err(at) = self.0.binary_search(&v) {
            self.0.insert(at, v);
        }
    }

    fn remove(&mut self, v: T) {
        if let Ok(at) = self.0.binary_search(&v) {
            self.0.remove(at);
        }
    }

    fn iter(&self) -> impl ExactSizeIterator<Item = &T> + '_ {
        self.0.iter()
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}
