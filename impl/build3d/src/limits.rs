//! Every cap of the builder, in one place (`spec/build3d.md` §16 "Limits"). A build that would
//! pass a cap fails with [`crate::BuildError::Limit`] naming the tile (where there is one) and the
//! cap; nothing is truncated. The caps that are the tile format's own (L7, L13–L17) are taken
//! from onav's `limits` (through `output`), so each has one home.

use crate::output as format;

/// Most triangles of one input (`spec/build3d.md` §2, L1): triangle indices are `u32` and each
/// triangle costs about 80 bytes.
pub const MAX_TRIANGLES: u64 = 1 << 26;
/// Most vertices an OBJ file may define (§2, L2): face indices are resolved to `u32`.
pub const MAX_OBJ_VERTICES: u64 = u32::MAX as u64;
/// Smallest tile side in cells (§3, L3).
pub const MIN_TILE_SIZE: u32 = 4;
/// Largest tile side in cells (§3, L3): bounds the work and memory of one tile.
pub const MAX_TILE_SIZE: u32 = 1024;
/// Largest agent radius in cells, `ceil(agent_radius / cell_size)` (§3, L4): the tile border
/// is radius + 3 cells.
pub const MAX_RADIUS_CELLS: u32 = 255;
/// Largest height in cells above the origin that a span may reach, and the cap of the derived
/// agent height and climb in cells (§4, L5).
pub const MAX_SPAN_HEIGHT: u32 = 1 << 24;
/// Largest extent of the geometry on x or z in cells (§4, L6): cell indices stay far inside `i32`.
pub const MAX_GRID_CELLS: u64 = 1 << 30;
/// Most tile cells (column, row) the triangles touch, border included, and most output tiles
/// (tile-layers) of one build (§4, L7): the slot limit of a mesh (`spec/navmesh-format.md` P5).
pub const MAX_TILES: u64 = format::MAX_SLOTS as u64;
/// Most (triangle, tile cell) pairs of the triangle bins (§4, L8): the bins take 4 bytes per
/// pair, so at most 1 GiB.
pub const MAX_BIN_ENTRIES: u64 = 1 << 28;
/// Most cells of all tile windows together: tile cells × (tile size + 2 · border)² (§4, L20).
/// Every stage walks its window's columns, so this bounds the work of any input.
pub const MAX_WINDOW_CELLS: u64 = 1 << 31;
/// Most window cells per input triangle (§4, L21): the (triangle, tile cell) pairs times the
/// window's cells, S² = (tile size + 2 · border)², may be at most this many times the number of
/// triangles. Rasterizing a pair and every later stage of a tile cell cost at most its window's
/// cells, so the work of a build is bounded in proportion to its input: one triangle buys at
/// most 2^26 window cells (about 20 000 tiles of the demo settings), and a few triangles over
/// a vast area fail fast instead of building thousands of empty tiles.
pub const MAX_WINDOW_CELLS_PER_TRIANGLE: u64 = 1 << 26;
/// Most raw spans one tile cell may rasterize (§5 B19, L9): counted over the whole cell before
/// any is stored (16 bytes each), by a rasterization that stores nothing when the cheap bound of
/// the triangles' cell ranges exceeds it, so a cell over it fails in bounded memory.
pub const MAX_SPANS_PER_TILE: u64 = 1 << 28;
/// Most walkable spans in one column of a tile's compact heightfield (§7, L10): neighbour
/// indices are 16 bits.
pub const MAX_SPANS_PER_COLUMN: u32 = 65_535;
/// Most regions of one tile cell (§10 B28, L11), counted as the sweep numbers them. Not a type
/// bound (region ids are `u32`): a bound of one tile's work. Not lowered, because the format's
/// caps are per tile-layer and one cell has up to 256 layers, so a lower cap would refuse tiles
/// that build (§16.1 L11).
pub const MAX_REGIONS: u64 = 1 << 24;
/// Most layers of one tile cell (§11, L12): a layer number is at most 255
/// (`spec/navmesh-format.md` T4).
pub const MAX_LAYERS: u64 = 256;
/// Most vertices of one tile-layer (§13, L13; `spec/navmesh-format.md` T6).
pub const MAX_TILE_VERTICES: u64 = format::MAX_VERTS as u64;
/// Most polygons of one tile-layer (§13, L14; T6: the builder writes no off-mesh links, so
/// every polygon is a ground polygon).
pub const MAX_TILE_POLYGONS: u64 = format::MAX_POLYS as u64;
/// Most extra detail vertices of one polygon (§14, L15; T16: detail indices are one byte).
pub const MAX_DETAIL_VERTICES_PER_POLYGON: u64 = format::MAX_DETAIL_VERTS_PER_POLY as u64;
/// Most detail vertices of one tile-layer (§14, L16; T6).
pub const MAX_TILE_DETAIL_VERTICES: u64 = format::MAX_DETAIL_VERTS as u64;
/// Most detail triangles of one tile-layer (§14, L17; T6).
pub const MAX_TILE_DETAIL_TRIANGLES: u64 = format::MAX_DETAIL_TRIS as u64;
/// Most convex area volumes of one settings value (§3, L18).
pub const MAX_VOLUMES: u32 = 65_535;
/// Most corners of one area volume's polygon (§3, L19).
pub const MAX_VOLUME_VERTICES: u32 = 256;
/// Most edge flips after one detail vertex is inserted, per triangle of the detail mesh (§14):
/// not a truncation of output, a fixed bound of the Delaunay repair that keeps it terminating.
pub const DETAIL_FLIPS_PER_TRIANGLE: usize = 4;

/// The caps a build checks while it runs: the constants above. The crate's own tests lower
/// them to reach every limit's error path on small inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Caps {
    pub tiles: u64,
    pub bin_entries: u64,
    pub window_cells: u64,
    pub window_cells_per_triangle: u64,
    pub spans_per_tile: u64,
    pub spans_per_column: u64,
    pub regions: u64,
    pub layers: u64,
    pub tile_vertices: u64,
    pub tile_polygons: u64,
    pub detail_per_polygon: u64,
    pub tile_detail_vertices: u64,
    pub tile_detail_triangles: u64,
}

impl Caps {
    /// The limits of `spec/build3d.md` §16.
    pub const DEFAULT: Caps = Caps {
        tiles: MAX_TILES,
        bin_entries: MAX_BIN_ENTRIES,
        window_cells: MAX_WINDOW_CELLS,
        window_cells_per_triangle: MAX_WINDOW_CELLS_PER_TRIANGLE,
        spans_per_tile: MAX_SPANS_PER_TILE,
        spans_per_column: MAX_SPANS_PER_COLUMN as u64,
        regions: MAX_REGIONS,
        layers: MAX_LAYERS,
        tile_vertices: MAX_TILE_VERTICES,
        tile_polygons: MAX_TILE_POLYGONS,
        detail_per_polygon: MAX_DETAIL_VERTICES_PER_POLYGON,
        tile_detail_vertices: MAX_TILE_DETAIL_VERTICES,
        tile_detail_triangles: MAX_TILE_DETAIL_TRIANGLES,
    };
}
