//! Tiles (`spec/navmesh-format.md` §3): the `ONTL` format, its rules, and `NavTile`, which
//! follows the ownership rule R11 (§5.2): immutable arrays shared, current areas, flags and link
//! switches owned per copy.

mod fast;
mod raw;
mod read;
#[cfg(test)]
mod tile_tests;

use std::sync::{Arc, OnceLock};

pub use raw::RawTile;

use crate::geom::Vec3;
use crate::ids::{LinkIndex, PolyIndex, SettingsDigest, Side, TileContentId, TilePos};
use crate::limits::{DETAIL_MESH_LEN, DETAIL_TRI_LEN, MAX_VERTS_PER_POLY};
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

impl DetailMesh {
    /// The record as it lies in a tile (`spec/navmesh-format.md` §3.3): four little-endian u32.
    #[inline]
    pub(crate) fn from_record(r: &[u8; DETAIL_MESH_LEN]) -> Self {
        let u = |k: usize| u32::from_le_bytes([r[k], r[k + 1], r[k + 2], r[k + 3]]);
        Self {
            vertex_base: u(0),
            vertex_count: u(4),
            triangle_base: u(8),
            triangle_count: u(12),
        }
    }
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

/// The immutable, validated contents of a tile, shared between copies. The as-built areas and
/// flags are read from the as-built bytes, where they lie as the tile's last two arrays.
#[derive(Debug)]
pub(crate) struct TileData {
    pub grid: Grid,
    pub digest: SettingsDigest,
    pub pos: TilePos,
    pub agent: AgentSizes,
    /// The vertices, then the extra detail vertices (one allocation for both).
    pub coords: Vec<Vec3>,
    /// Number of vertices V: `coords[..V]` are the vertices.
    pub vertex_count: usize,
    pub polys: Vec<Polygon>,
    pub links: Vec<OffMeshLink>,
    /// The as-built bytes.
    pub bytes: Arc<[u8]>,
    /// Offset of the detail mesh records within `bytes`: they are read in place.
    pub details_offset: usize,
    /// Offset of the detail triangle array within `bytes`: the triangles are read in place.
    pub tris_offset: usize,
    /// Offset of the area array within `bytes`.
    pub areas_offset: usize,
    /// SHA-256 of `bytes`, computed the first time it is asked for (`spec/navmesh-format.md`
    /// C2): reading a tile, adding it to a mesh, reading a mesh file and restoring a Full
    /// snapshot never need it.
    pub content_id: OnceLock<TileContentId>,
    /// The portal edges (derived), side by side in code order, each side's sorted by
    /// (lo, hi, polygon, edge): stitching merges them against a neighbour's (§6.2).
    pub portals: Vec<PortalEdge>,
    /// Where each side's portal edges end in `portals` (side s: from the end of side s − 1).
    pub portal_ends: [u32; 4],
    /// The polygon index of `find_nearest_poly` (derived from the tile alone, so shared by every
    /// copy), built the first time a query asks for it: reading and adding tiles never pay for it.
    pub query_index: OnceLock<crate::query::TileIndex>,
}

/// A portal edge of a tile: its interval [lo, hi] along the side, its polygon and edge, and its
/// two vertices in polygon order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct PortalEdge {
    pub lo: f64,
    pub hi: f64,
    pub poly: PolyIndex,
    pub edge: u8,
    pub side: Side,
    pub a: Vec3,
    pub b: Vec3,
}

impl PartialEq for TileData {
    /// Equal contents, however they were read (the content id cache is not compared: it is the
    /// hash of `bytes`).
    fn eq(&self, o: &Self) -> bool {
        self.grid.bits_eq(&o.grid)
            && self.digest == o.digest
            && self.pos == o.pos
            && self.agent == o.agent
            && self.coords == o.coords
            && self.vertex_count == o.vertex_count
            && self.polys == o.polys
            && self.links == o.links
            && self.bytes == o.bytes
            && self.details_offset == o.details_offset
            && self.tris_offset == o.tris_offset
            && self.areas_offset == o.areas_offset
            && self.portals == o.portals
            && self.portal_ends == o.portal_ends
    }
}

impl TileData {
    /// The polygon index of the queries (`crate::query::TileIndex`), built on first use.
    pub fn query_index(&self) -> &crate::query::TileIndex {
        self.query_index.get_or_init(|| {
            crate::query::TileIndex::build(
                self.vertices(),
                &self.polys,
                &self.detail_meshes().collect::<Vec<_>>(),
                self.detail_vertices(),
            )
        })
    }

    /// The content id, computed once per contents (every copy and library shares it).
    pub fn content_id(&self) -> TileContentId {
        *self
            .content_id
            .get_or_init(|| TileContentId::of_bytes(&self.bytes))
    }

    /// True when both contents have the same as-built bytes (so the same content id, C1):
    /// the same shared data, or equal ids when both are known, or else equal bytes.
    pub fn same_as_built(&self, other: &TileData) -> bool {
        if std::ptr::eq(self, other) {
            return true;
        }
        if self.bytes.len() != other.bytes.len() {
            return false;
        }
        match (self.content_id.get(), other.content_id.get()) {
            (Some(a), Some(b)) => a == b,
            _ => self.bytes == other.bytes,
        }
    }

    /// The vertices.
    #[inline]
    pub fn vertices(&self) -> &[Vec3] {
        &self.coords[..self.vertex_count]
    }

    /// The extra detail vertices.
    #[inline]
    pub fn detail_vertices(&self) -> &[Vec3] {
        &self.coords[self.vertex_count..]
    }

    /// The detail mesh records as they lie in the bytes, one per ground polygon.
    #[inline]
    pub fn detail_records(&self) -> &[[u8; DETAIL_MESH_LEN]] {
        let end = self.details_offset + DETAIL_MESH_LEN * self.polys.len();
        self.bytes[self.details_offset..end].as_chunks().0
    }

    /// The detail mesh of ground polygon `i` (< G).
    #[inline]
    pub fn detail_mesh(&self, i: usize) -> DetailMesh {
        DetailMesh::from_record(&self.detail_records()[i])
    }

    /// The detail mesh records, decoded, in polygon order.
    pub fn detail_meshes(&self) -> impl ExactSizeIterator<Item = DetailMesh> + Clone + '_ {
        self.detail_records().iter().map(DetailMesh::from_record)
    }

    /// The detail triangles as they lie in the bytes: three indices and the reserved byte.
    #[inline]
    pub fn detail_tris(&self) -> &[[u8; DETAIL_TRI_LEN]] {
        self.bytes[self.tris_offset..self.areas_offset]
            .as_chunks()
            .0
    }

    /// Polygon count P = G + L.
    #[inline]
    pub fn poly_count(&self) -> usize {
        self.polys.len() + self.links.len()
    }

    /// The as-built areas, one per polygon.
    #[inline]
    pub fn areas(&self) -> &[u8] {
        &self.bytes[self.areas_offset..self.areas_offset + self.poly_count()]
    }

    /// The as-built areas and then flags (3 P bytes), as the tile bytes hold them.
    #[inline]
    fn values(&self) -> &[u8] {
        &self.bytes[self.areas_offset..self.areas_offset + 3 * self.poly_count()]
    }

    /// The as-built flags of polygon `i` (< P).
    #[inline]
    pub fn flags(&self, i: usize) -> u16 {
        let at = self.areas_offset + self.poly_count() + 2 * i;
        u16::from_le_bytes([self.bytes[at], self.bytes[at + 1]])
    }

    /// The portal edges on `side`, sorted by (lo, hi, polygon, edge).
    #[inline]
    pub fn portals(&self, side: Side) -> &[PortalEdge] {
        let s = usize::from(side.code());
        let start = if s == 0 { 0 } else { self.portal_ends[s - 1] };
        &self.portals[start as usize..self.portal_ends[s] as usize]
    }
}

/// Bytes of as-built values per edit above which putting a tile's values back copies them all
/// at once (one short copy costs about as much as a few single values).
const RESET_COPY_BYTES: usize = 64;

/// The current areas and flags of a copy whose values were ever edited (R12), laid out as the
/// tile bytes hold them (`spec/navmesh-format.md` §3.5): P areas, then P little-endian u16
/// flags. So putting every value back is one copy of the tile's own bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Current {
    values: Vec<u8>,
}

impl Current {
    /// The as-built values of `d`.
    fn as_built(d: &TileData) -> Self {
        Self {
            values: d.values().to_vec(),
        }
    }

    /// The areas, one per polygon (`np` of them).
    #[inline]
    fn areas(&self, np: usize) -> &[u8] {
        &self.values[..np]
    }

    /// The flags of polygon `i` (< `np`).
    #[inline]
    fn flags(&self, np: usize, i: usize) -> u16 {
        let at = np + 2 * i;
        u16::from_le_bytes([self.values[at], self.values[at + 1]])
    }

    /// Sets polygon `i`'s (< `np`) area and flags.
    #[inline]
    fn set(&mut self, np: usize, i: usize, area: u8, flags: u16) {
        self.values[i] = area;
        let at = np + 2 * i;
        self.values[at..at + 2].copy_from_slice(&flags.to_le_bytes());
    }
}

/// A tile: shared immutable contents plus this copy's current areas, flags and link switches.
#[derive(Debug, Clone)]
pub struct NavTile {
    data: Arc<TileData>,
    /// The current areas and flags, once any was edited (before that: the as-built ones). Kept
    /// when the edits are undone, so that a rollback loop allocates nothing.
    /// Boxed, not shared: a rollback writes it for many tiles, and a shared (`Arc`) copy would
    /// cost an atomic read-modify-write per tile to mutate.
    current: Option<Box<Current>>,
    /// Polygons whose current area or flags differ from the as-built ones, strictly ascending.
    edited: SortedSet<PolyIndex>,
    /// Disabled link indices, strictly ascending.
    disabled: SortedSet<LinkIndex>,
}

impl PartialEq for NavTile {
    /// Equal as-built contents (equal content ids) and equal current state.
    fn eq(&self, other: &Self) -> bool {
        self.data.same_as_built(&other.data)
            && self.areas() == other.areas()
            && self.all_flags().eq(other.all_flags())
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
    ///
    /// A valid tile is accepted by a fast validator that checks every rule in bulk; any tile it
    /// does not accept goes through the field-by-field reader, which reports the first error in
    /// the order of §3.6. Both accept exactly the same tiles, with the same contents (checked by
    /// the `tile_fast_vs_general` fuzz target and its test).
    pub fn from_bytes_at(bytes: &[u8], base: u64) -> Result<Self, crate::error::FormatError> {
        let data = match fast::parse(bytes) {
            Some(d) => d,
            None => read::parse(bytes, base)?,
        };
        Ok(Self::from_data(Arc::new(data)))
    }

    /// The reader's two paths on the same bytes, each on its own (tests of their agreement): the
    /// fast validator's tile, and the field-by-field reader's tile or error.
    #[cfg(any(test, feature = "testkit"))]
    pub(crate) fn reader_paths(
        bytes: &[u8],
    ) -> (Option<Self>, Result<Self, crate::error::FormatError>) {
        let wrap = |d| Self::from_data(Arc::new(d));
        (
            fast::parse(bytes).map(wrap),
            read::parse(bytes, 0).map(wrap),
        )
    }

    /// Equal contents in every field the reader builds, derived ones included (tests).
    #[cfg(any(test, feature = "testkit"))]
    pub(crate) fn same_data(&self, other: &NavTile) -> bool {
        *self.data == *other.data
    }

    pub(crate) fn from_data(data: Arc<TileData>) -> Self {
        Self {
            data,
            current: None,
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

    /// SHA-256 of the as-built bytes (`spec/navmesh-format.md` C1), computed the first time
    /// any copy of these contents is asked for it (C2); O(1) after that.
    pub fn content_id(&self) -> TileContentId {
        self.data.content_id()
    }

    /// Whether the content id has been computed already (by any copy of these contents).
    pub(crate) fn content_id_known(&self) -> bool {
        self.data.content_id.get().is_some()
    }

    /// True when both tiles have the same as-built bytes, hence the same content id (C1, C3),
    /// whatever their current edits and switches. Computes no hash: shared contents or known ids
    /// answer at once, otherwise the bytes are compared.
    pub fn same_as_built(&self, other: &NavTile) -> bool {
        self.data.same_as_built(&other.data)
    }

    /// The polygon index of the queries (derived from the tile alone, shared by every copy).
    pub(crate) fn query_index(&self) -> &crate::query::TileIndex {
        self.data.query_index()
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
    #[inline]
    pub fn vertices(&self) -> &[Vec3] {
        self.data.vertices()
    }

    /// The ground polygons (indices 0 .. ground_poly_count).
    #[inline]
    pub fn ground_polys(&self) -> &[Polygon] {
        &self.data.polys
    }

    /// Number of ground polygons G.
    #[inline]
    pub fn ground_poly_count(&self) -> u32 {
        self.data.polys.len() as u32
    }

    /// Number of polygons P = G + L.
    #[inline]
    pub fn poly_count(&self) -> u32 {
        self.data.poly_count() as u32
    }

    /// The off-mesh links; link i is polygon G + i.
    #[inline]
    pub fn off_mesh_links(&self) -> &[OffMeshLink] {
        &self.data.links
    }

    /// Number of off-mesh links L.
    #[inline]
    pub fn link_count(&self) -> u32 {
        self.data.links.len() as u32
    }

    /// The link index of a polygon, if it is an off-mesh link polygon.
    #[inline]
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
        let v = self.data.vertices();
        Some(p.verts().iter().map(move |&k| v[k as usize]))
    }

    /// The detail mesh records, one per ground polygon, decoded from the as-built bytes (where
    /// they are kept).
    pub fn detail_meshes(&self) -> impl ExactSizeIterator<Item = DetailMesh> + Clone + '_ {
        self.data.detail_meshes()
    }

    /// The detail mesh record of ground polygon `poly`; `None` for an off-mesh link polygon or an
    /// index out of range.
    #[inline]
    pub fn detail_mesh(&self, poly: PolyIndex) -> Option<DetailMesh> {
        let i = poly.0 as usize;
        (i < self.data.polys.len()).then(|| self.data.detail_mesh(i))
    }

    /// The extra detail vertices.
    pub fn detail_vertices(&self) -> &[Vec3] {
        self.data.detail_vertices()
    }

    /// The detail triangles, read in place from the as-built bytes: each is its three vertex
    /// indices and the reserved byte (0). Indices below the polygon's vertex count name polygon
    /// vertices, the others name extra detail vertices from the polygon's base.
    pub fn detail_triangles(&self) -> &[[u8; 4]] {
        self.data.detail_tris()
    }

    /// The three corners of detail triangle `t` (absolute index) of ground polygon `poly`; `None`
    /// for an off-mesh link polygon, an index out of range, or a triangle of another polygon.
    pub fn detail_triangle(&self, poly: PolyIndex, t: u32) -> Option<[Vec3; 3]> {
        let p = self.data.polys.get(poly.0 as usize)?;
        let d = &self.data.detail_mesh(poly.0 as usize);
        if !(d.triangle_base..d.triangle_base + d.triangle_count).contains(&t) {
            return None;
        }
        Some(self.corners_of(p, d, t))
    }

    /// Corners of triangle `t`, known to belong to polygon `p` with detail record `d`.
    fn corners_of(&self, p: &Polygon, d: &DetailMesh, t: u32) -> [Vec3; 3] {
        let tri = self.data.detail_tris()[t as usize];
        let nv = u32::from(p.vertex_count);
        let (verts, extra) = (self.data.vertices(), self.data.detail_vertices());
        [tri[0], tri[1], tri[2]].map(|i| {
            let i = u32::from(i);
            if i < nv {
                verts[p.vertices[i as usize] as usize]
            } else {
                extra[(d.vertex_base + i - nv) as usize]
            }
        })
    }

    /// Current area of a polygon.
    #[inline]
    pub fn area(&self, poly: PolyIndex) -> Option<u8> {
        self.areas().get(poly.0 as usize).copied()
    }

    /// Current flags of a polygon. Always inlined: the path search asks it for every polygon
    /// it enters (`spec/queries.md` §2.1), and the call cost as much as the look-up.
    #[inline(always)]
    pub fn flags(&self, poly: PolyIndex) -> Option<u16> {
        let (i, np) = (poly.0 as usize, self.data.poly_count());
        match &self.current {
            Some(c) => (i < np).then(|| c.flags(np, i)),
            None => (i < np).then(|| self.data.flags(i)),
        }
    }

    /// As-built area of a polygon.
    pub fn as_built_area(&self, poly: PolyIndex) -> Option<u8> {
        self.data.areas().get(poly.0 as usize).copied()
    }

    /// As-built flags of a polygon.
    pub fn as_built_flags(&self, poly: PolyIndex) -> Option<u16> {
        let i = poly.0 as usize;
        (i < self.data.poly_count()).then(|| self.data.flags(i))
    }

    /// Current areas of all polygons.
    #[inline]
    pub fn areas(&self) -> &[u8] {
        match &self.current {
            Some(c) => c.areas(self.data.poly_count()),
            None => self.data.areas(),
        }
    }

    /// Current flags of all polygons, in polygon order.
    pub fn all_flags(&self) -> impl ExactSizeIterator<Item = u16> + '_ {
        let (current, np) = (self.current.as_deref(), self.data.poly_count());
        (0..np).map(move |i| match current {
            Some(c) => c.flags(np, i),
            None => self.data.flags(i),
        })
    }

    /// Whether off-mesh link `link` is enabled (all links start enabled).
    #[inline]
    pub fn is_link_enabled(&self, link: LinkIndex) -> bool {
        !self.disabled.contains(link)
    }

    /// Polygons whose current area or flags differ from the as-built values, ascending.
    pub fn edited_polys(&self) -> impl ExactSizeIterator<Item = PolyIndex> + '_ {
        self.edited.iter().copied()
    }

    /// The edited polygons with their current area and flags, ascending (what a snapshot
    /// record lists, S11–S13): one look at the current values for all of them.
    #[inline]
    pub(crate) fn edits(&self) -> impl Iterator<Item = (PolyIndex, u8, u16)> + '_ {
        let np = self.data.poly_count();
        let values = match &self.current {
            Some(c) => c.values.as_slice(),
            None => self.data.values(),
        };
        self.edited.iter().filter_map(move |&p| {
            let i = p.0 as usize;
            let at = np + 2 * i;
            let area = *values.get(i)?;
            let flags = values.get(at..at + 2)?;
            Some((p, area, u16::from_le_bytes([flags[0], flags[1]])))
        })
    }

    /// Disabled link indices, ascending.
    pub fn disabled_links(&self) -> impl ExactSizeIterator<Item = LinkIndex> + '_ {
        self.disabled.iter().copied()
    }

    /// Sets a polygon's area and flags, keeping the edited set exact. The caller has checked the
    /// index and the area range.
    pub(crate) fn set_area_flags(&mut self, poly: PolyIndex, area: u8, flags: u16) {
        let i = poly.0 as usize;
        let as_built = area == self.data.areas()[i] && flags == self.data.flags(i);
        if self.current.is_none() {
            if as_built {
                // Never edited and set to the as-built values: nothing changes.
                return;
            }
            self.current = Some(Box::new(Current::as_built(&self.data)));
        }
        if let Some(c) = &mut self.current {
            c.set(self.data.poly_count(), i, area, flags);
        }
        if as_built {
            self.edited.remove(poly);
        } else {
            self.edited.insert(poly);
        }
    }

    /// Puts every area and flag back to its as-built value and enables every link, keeping the
    /// buffers (a rollback loop allocates nothing).
    #[inline]
    pub(crate) fn reset_state(&mut self) {
        if let (Some(c), false) = (&mut self.current, self.edited.is_empty()) {
            let d = &self.data;
            let (np, values) = (d.poly_count(), d.values());
            if RESET_COPY_BYTES * self.edited.0.len() >= values.len() {
                // Enough edits: one copy of the tile's 3 P bytes instead of one by one.
                c.values.copy_from_slice(values);
            } else {
                for p in self.edited.iter() {
                    let i = p.0 as usize;
                    let at = np + 2 * i;
                    c.values[i] = values[i];
                    c.values[at..at + 2].copy_from_slice(&values[at..at + 2]);
                }
            }
        }
        self.edited.0.clear();
        self.disabled.0.clear();
    }

    /// Replaces the current state with `edits` (polygon, area, flags) and `disabled`: every
    /// other polygon back to its as-built values, every other link on; the buffers are kept. The
    /// caller has checked both lists as a restore does (`spec/snapshot.md` S11–S16): strictly
    /// ascending, in range, areas ≤ 63, no edit equal to the as-built values.
    pub(crate) fn replace_state(
        &mut self,
        edits: impl ExactSizeIterator<Item = (PolyIndex, u8, u16)>,
        disabled: impl Iterator<Item = LinkIndex>,
    ) {
        self.reset_state();
        if edits.len() > 0 {
            let c = self
                .current
                .get_or_insert_with(|| Box::new(Current::as_built(&self.data)));
            let np = self.data.poly_count();
            for (p, area, flags) in edits {
                c.set(np, p.0 as usize, area, flags);
                self.edited.0.push(p);
            }
        }
        for l in disabled {
            self.disabled.0.push(l);
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
        if let (Some(c), false) = (&self.current, self.edited.is_empty()) {
            let at = self.data.areas_offset;
            out[at..at + c.values.len()].copy_from_slice(&c.values);
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
        let d = &self.data.detail_mesh(poly.0 as usize);
        let tris = &self.data.detail_tris()
            [d.triangle_base as usize..(d.triangle_base + d.triangle_count) as usize];
        // Detail index i names the polygon's vertex i below its vertex count, else its extra
        // detail vertex i − n (rule T16 keeps every index in range); the corners are read once.
        let n = usize::from(pg.vertex_count).min(pg.vertices.len());
        let vertices = self.data.vertices();
        let mut own = [[0.0; 3]; 6];
        for (o, &v) in own.iter_mut().zip(&pg.vertices[..n]) {
            *o = vertices[v as usize];
        }
        let extra = &self.data.detail_vertices()
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
