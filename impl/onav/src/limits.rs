//! Every size cap, record size and fixed byte offset of the formats, in one place. Each cites the
//! spec rule or section that states it: `spec/navmesh-format.md` (P, T, K, M rules) unless
//! another document is named.

// ---------------------------------------------------------------------------------------------
// Caps.

/// Largest slot count of a mesh (§2, rule P5): slot indices take 20 bits of a reference.
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
/// Largest area id (rule T18; snapshot edits too, `spec/snapshot.md` S14).
pub const MAX_AREA: u8 = 63;
/// Number of area ids, and of area costs in a query filter (`spec/queries.md` §2).
pub const AREA_COUNT: usize = 64;
/// Largest generation (§5.1): generations take 24 bits of a reference.
pub const MAX_GENERATION: u32 = 16_777_215;
/// Most extra detail vertices of one polygon: detail triangle indices are one byte (rule T16).
pub const MAX_DETAIL_VERTS_PER_POLY: u32 = 255 - MAX_VERTS_PER_POLY as u32;
/// Relative tolerance of the detail-coverage area check (rule T17).
pub const DETAIL_AREA_TOLERANCE: f64 = 1e-9;
/// Most landing work of a tile per polygon of the tile (rule K17): bounds the time stitching
/// spends on off-mesh links to a constant per polygon held.
pub const LANDING_WORK_PER_POLYGON: u64 = 512;
/// The largest node-pool size a query accepts (`spec/queries.md` §1.1).
pub const MAX_QUERY_NODES: u32 = 1 << 22;

// ---------------------------------------------------------------------------------------------
// Record sizes.

/// Size of the file header every format starts with: magic, version, flags (§1.1).
pub const MAGIC_VERSION_FLAGS_LEN: usize = 8;
/// Size of the mesh parameter block (§2).
pub const PARAMS_LEN: usize = 68;
/// Size of the mesh file and snapshot headers: magic, version, flags and the parameter block
/// (§8.1, `spec/snapshot.md` §4.1).
pub const FILE_HEADER_LEN: usize = MAGIC_VERSION_FLAGS_LEN + PARAMS_LEN;
/// Size of the tile header in bytes (§3.1).
pub const TILE_HEADER_LEN: usize = 132;
/// Size of one vertex record, three f64 (§3.2); detail vertices too.
pub const VERTEX_LEN: usize = 24;
/// Size of one ground polygon record (§3.2).
pub const POLY_LEN: usize = 52;
/// Size of one off-mesh link record (§3.2).
pub const LINK_LEN: usize = 64;
/// Size of one detail mesh record (§3.2).
pub const DETAIL_MESH_LEN: usize = 16;
/// Size of one detail triangle record (§3.2).
pub const DETAIL_TRI_LEN: usize = 4;
/// Bytes per polygon in the area and flag arrays: one area byte and a u16 of flags (§3.2).
pub const AREA_FLAGS_LEN: usize = 3;
/// Size of a u32 count or length field (§1.1).
pub const COUNT_LEN: usize = 4;
/// Size of a digest or content id (§1.1).
pub const DIGEST_LEN: usize = 32;
/// Size of a snapshot section header: id, reserved, body length (`spec/snapshot.md` S3).
pub const SECTION_HEADER_LEN: usize = 8;
/// Size of a free slot record, and of the generation and kind every slot record starts with
/// (`spec/snapshot.md` S6–S8).
pub const MIN_SLOT_LEN: usize = 5;
/// Size of one polygon edit in a snapshot: polygon u32, area u8, flags u16 (`spec/snapshot.md`
/// S11).
pub const EDIT_LEN: usize = 7;
/// Size of one disabled off-mesh link index in a snapshot (`spec/snapshot.md` S15).
pub const SWITCH_LEN: usize = 4;

// ---------------------------------------------------------------------------------------------
// Layout: fixed offsets, from the start of the structure named.

/// Offset of the parameter block in a mesh file and a snapshot, and of the grid in a tile:
/// right after magic, version and flags (§2, §3.1, §8.1).
pub const PARAMS_AT: u64 = MAGIC_VERSION_FLAGS_LEN as u64;
/// Offset of the settings digest within the parameter block: after the origin, the tile size and
/// the slot count (§2).
pub const PARAMS_DIGEST_OFFSET: u64 = 36;
/// Offset of the settings digest in a tile: after the header and the grid (§3.1).
pub const TILE_DIGEST_AT: u64 = 40;
/// Offset of the position (column, row, layer) in a tile (§3.1).
pub const TILE_POSITION_AT: u64 = 72;
/// Offset of the neighbour codes within a ground polygon record: after the vertex count, three
/// reserved bytes and six vertex indices (§3.2).
pub const POLY_NEIGHBOURS_OFFSET: u64 = 28;
/// Offset of `triangle_count` within a detail record (§3.2).
pub const DETAIL_TRIANGLE_COUNT_OFFSET: u64 = 12;
/// Offset of the section count in a snapshot (`spec/snapshot.md` §4.1).
pub const SNAPSHOT_SECTION_COUNT_AT: u64 = FILE_HEADER_LEN as u64;
/// Offset of the body length of a snapshot's first section: after the section count, the
/// section id and its reserved field (`spec/snapshot.md` §4.2).
pub const SNAPSHOT_SECTION_LEN_AT: u64 = SNAPSHOT_SECTION_COUNT_AT + 8;
/// Offset of a snapshot's first section body; in a snapshot of this version, the slot count
/// (`spec/snapshot.md` §4.3).
pub const SNAPSHOT_SLOTS_AT: u64 = SNAPSHOT_SECTION_LEN_AT + 4;
/// Offset of the first slot record of a snapshot (`spec/snapshot.md` §4.3).
pub const SNAPSHOT_FIRST_SLOT_AT: u64 = SNAPSHOT_SLOTS_AT + COUNT_LEN as u64;
