//! Every size cap of the formats, in one place. Each cites the spec rule that states it.

/// Largest slot count of a mesh (`spec/navmesh-format.md` §2, rule P5): slot indices take 20 bits of a reference.
pub const MAX_SLOTS: u32 = 1_048_575;
/// Largest polygon count of one tile, ground polygons plus off-mesh link polygons (rule T6).
pub const MAX_POLYS: u32 = 1_048_575;
/// Largest vertex count of one tile (rule T6).
pub const MAX_VERTS: u32 = 1_048_575;
/// Largest detail vertex count of one tile (rule T6).
pub const MAX_DETAIL_VERTS: u32 = 1_048_575;
/// Largest detail triangle count of one tile (rule T6).
pub const MAX_DETAIL_TRIS: u32 = 1_048_575;
/// Largest layer number (rule T4).
pub const MAX_LAYER: u32 = 255;
/// Most vertices of one polygon (rule T9).
pub const MAX_VERTS_PER_POLY: usize = 6;
/// Fewest vertices of one ground polygon (rule T9).
pub const MIN_VERTS_PER_POLY: usize = 3;
/// Largest area id (rule T18; snapshot edits too).
pub const MAX_AREA: u8 = 63;
/// Largest generation (`spec/navmesh-format.md` §5): generations take 24 bits of a reference.
pub const MAX_GENERATION: u32 = 16_777_215;
/// Most extra detail vertices of one polygon: detail triangle indices are one byte (rule T16).
pub const MAX_DETAIL_VERTS_PER_POLY: u32 = 255 - MAX_VERTS_PER_POLY as u32;
/// Most landing work of a tile per polygon of the tile (`spec/navmesh-format.md` rule K17): bounds
/// the time stitching spends on off-mesh links to a constant per polygon held.
pub const LANDING_WORK_PER_POLYGON: u64 = 512;
/// Number of area ids, and of area costs in a query filter.
pub const AREA_COUNT: usize = 64;

/// Size of the tile header in bytes (`spec/navmesh-format.md` §3.1).
pub const TILE_HEADER_LEN: usize = 132;
/// Size of one vertex record (three f64).
pub const VERTEX_LEN: usize = 24;
/// Size of one ground polygon record.
pub const POLY_LEN: usize = 52;
/// Size of one off-mesh link record.
pub const LINK_LEN: usize = 64;
/// Size of one detail mesh record.
pub const DETAIL_MESH_LEN: usize = 16;
/// Size of one detail triangle record.
pub const DETAIL_TRI_LEN: usize = 4;
/// Bytes per polygon in the area and flag arrays.
pub const AREA_FLAGS_LEN: usize = 3;

/// Size of the mesh file and snapshot headers: magic, version, flags and the parameter block.
pub const FILE_HEADER_LEN: usize = 76;
/// Smallest encoded slot in a snapshot: generation and kind (snapshot rule S6).
pub const MIN_SLOT_LEN: usize = 5;
/// Smallest encoded section: its header (snapshot rule S3).
pub const SECTION_HEADER_LEN: usize = 8;
/// Size of one polygon edit in a snapshot (snapshot rule S11).
pub const EDIT_LEN: usize = 7;
