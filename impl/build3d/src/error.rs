//! Error types. Bad input never panics: geometry, OBJ text, settings and every limit of a build
//! come back as one of these, with the place (triangle, line, field path, tile) named.

use crate::output::FormatError;

/// A tile cell: the (column, row) of the mesh grid a tile lies in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TileCell {
    /// Column: x in [ox + column·tile_size, ox + (column + 1)·tile_size].
    pub column: i32,
    /// Row: z in [oz + row·tile_size, oz + (row + 1)·tile_size].
    pub row: i32,
}

impl std::fmt::Display for TileCell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({}, {})", self.column, self.row)
    }
}

/// Which cap of [`crate::limits`] a build passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitKind {
    /// [`crate::limits::MAX_SPAN_HEIGHT`]: the geometry is too tall for the cell height.
    SpanHeight,
    /// [`crate::limits::MAX_GRID_CELLS`]: the geometry is too wide for the cell size.
    GridCells,
    /// [`crate::limits::MAX_TILES`]: too many tile cells touched, or too many tiles built.
    Tiles,
    /// [`crate::limits::MAX_BIN_ENTRIES`]: too many (triangle, tile) pairs.
    BinEntries,
    /// [`crate::limits::MAX_WINDOW_CELLS`]: the tile windows hold too many cells in total.
    WindowCells,
    /// [`crate::limits::MAX_WINDOW_CELLS_PER_TRIANGLE`]: the tile windows of the (triangle,
    /// tile) pairs hold too many cells for the number of input triangles.
    WindowCellsPerTriangle,
    /// [`crate::limits::MAX_SPANS_PER_TILE`]: one tile rasterized too many spans.
    SpansPerTile,
    /// [`crate::limits::MAX_SPANS_PER_COLUMN`]: one column holds too many walkable spans.
    SpansPerColumn,
    /// [`crate::limits::MAX_REGIONS`]: one tile has too many regions.
    Regions,
    /// [`crate::limits::MAX_LAYERS`]: one tile cell needs too many layers.
    Layers,
    /// [`crate::limits::MAX_TILE_VERTICES`]: one tile-layer has too many vertices.
    Vertices,
    /// [`crate::limits::MAX_TILE_POLYGONS`]: one tile-layer has too many polygons.
    Polygons,
    /// [`crate::limits::MAX_DETAIL_VERTICES_PER_POLYGON`]: one polygon needs too many detail
    /// vertices to reach the detail error.
    DetailVerticesPerPolygon,
    /// [`crate::limits::MAX_TILE_DETAIL_VERTICES`]: one tile-layer has too many detail vertices.
    DetailVertices,
    /// [`crate::limits::MAX_TILE_DETAIL_TRIANGLES`]: one tile-layer has too many detail
    /// triangles.
    DetailTriangles,
}

/// Why a build failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BuildError {
    /// A cap of [`crate::limits`] would be passed.
    #[error("limit {limit:?} passed{}: {value} > {max}", at(tile, layer))]
    Limit {
        /// The tile cell, when the limit is one of a tile.
        tile: Option<TileCell>,
        /// The layer, when the limit is one of a tile-layer.
        layer: Option<u32>,
        /// Which limit.
        limit: LimitKind,
        /// The value that would have been needed.
        value: u64,
        /// The cap.
        max: u64,
    },
    /// A region's contour could not be cut into triangles (`spec/build3d.md` §13).
    #[error("region {region} of tile {tile} layer {layer} could not be triangulated")]
    Triangulation {
        /// The tile cell.
        tile: TileCell,
        /// The layer.
        layer: u32,
        /// The region (tile-local id).
        region: u32,
    },
    /// A hole of a region could not be joined to its outline (`spec/build3d.md` §12).
    #[error("a hole of region {region} of tile {tile} could not be joined to its outline")]
    HoleMerge {
        /// The tile cell.
        tile: TileCell,
        /// The region (tile-local id).
        region: u32,
    },
    /// The tile written was refused by onav's reader. The builder meets every tile rule by
    /// construction, so this reports a builder bug rather than an input problem.
    #[error("tile {tile} layer {layer} refused by the tile reader: {error}")]
    TileRejected {
        /// The tile cell.
        tile: TileCell,
        /// The layer.
        layer: u32,
        /// The reader's error.
        error: FormatError,
    },
    /// The mesh parameters could not be formed (an origin or tile size that is not finite).
    #[error("mesh parameters: {0}")]
    Params(FormatError),
}

fn at(tile: &Option<TileCell>, layer: &Option<u32>) -> String {
    match (tile, layer) {
        (Some(t), Some(l)) => format!(" in tile {t} layer {l}"),
        (Some(t), None) => format!(" in tile {t}"),
        _ => String::new(),
    }
}

impl BuildError {
    pub(crate) fn limit(limit: LimitKind, value: u64, max: u64) -> Self {
        Self::Limit {
            tile: None,
            layer: None,
            limit,
            value,
            max,
        }
    }

    pub(crate) fn tile_limit(
        tile: TileCell,
        layer: Option<u32>,
        limit: LimitKind,
        value: u64,
        max: u64,
    ) -> Self {
        Self::Limit {
            tile: Some(tile),
            layer,
            limit,
            value,
            max,
        }
    }
}

/// Checks `value ≤ max` for a cap of [`crate::limits`].
pub(crate) fn check(
    tile: Option<TileCell>,
    layer: Option<u32>,
    limit: LimitKind,
    value: u64,
    max: u64,
) -> Result<(), BuildError> {
    if value > max {
        Err(BuildError::Limit {
            tile,
            layer,
            limit,
            value,
            max,
        })
    } else {
        Ok(())
    }
}

/// Triangle geometry given through the API that breaks a rule of `spec/build3d.md` §2.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GeometryError {
    /// The vertex array's length is not a multiple of 3.
    #[error("vertex array length {len} is not a multiple of 3")]
    VertexArrayLength {
        /// Its length.
        len: u64,
    },
    /// The index array's length is not a multiple of 3.
    #[error("index array length {len} is not a multiple of 3")]
    IndexArrayLength {
        /// Its length.
        len: u64,
    },
    /// The area array does not hold one entry per triangle.
    #[error("{areas} area ids for {triangles} triangles")]
    AreaCount {
        /// Entries given.
        areas: u64,
        /// Triangles given.
        triangles: u64,
    },
    /// A vertex coordinate is NaN or infinite.
    #[error("vertex {vertex} coordinate {axis} is not finite")]
    NotFinite {
        /// The vertex.
        vertex: u64,
        /// 0 = x, 1 = y, 2 = z.
        axis: u8,
    },
    /// A triangle names a vertex that does not exist.
    #[error("triangle {triangle} corner {corner} names vertex {index} of {vertices}")]
    IndexOutOfRange {
        /// The triangle.
        triangle: u64,
        /// Its corner, 0 ..= 2.
        corner: u8,
        /// The index given.
        index: u32,
        /// The number of vertices.
        vertices: u64,
    },
    /// An area id above 63.
    #[error("triangle {triangle} has area {area} (at most 63)")]
    AreaOutOfRange {
        /// The triangle.
        triangle: u64,
        /// The area given.
        area: u8,
    },
    /// More triangles than [`crate::limits::MAX_TRIANGLES`].
    #[error("{count} triangles (at most {max})")]
    TooManyTriangles {
        /// Triangles given.
        count: u64,
        /// The cap.
        max: u64,
    },
}

/// An OBJ file that cannot be read (`spec/build3d.md` §2.2), with its 1-based line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("OBJ line {line}: {reason}")]
pub struct ObjError {
    /// 1-based line number.
    pub line: u64,
    /// What is wrong.
    pub reason: ObjReason,
}

/// What is wrong with an OBJ line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ObjReason {
    /// A `v` line with fewer than 3 numbers.
    #[error("a vertex needs x, y and z")]
    MissingCoordinate,
    /// A `v` line with more than 7 numbers.
    #[error("a vertex has at most 7 numbers")]
    TooManyCoordinates,
    /// A token that is not a number where one is needed.
    #[error("not a number: {token:?}")]
    BadNumber {
        /// The token (at most 32 bytes of it, lossily decoded).
        token: String,
    },
    /// A vertex coordinate that is NaN, infinite, or too large for binary64.
    #[error("coordinate is not finite")]
    NotFinite,
    /// A face with fewer than 3 corners.
    #[error("a face needs at least 3 corners")]
    FaceTooShort,
    /// A face corner whose vertex index is not an integer.
    #[error("not a face corner: {token:?}")]
    BadIndex {
        /// The token (at most 32 bytes of it, lossily decoded).
        token: String,
    },
    /// A vertex index of 0 (OBJ indices start at 1).
    #[error("vertex index 0")]
    IndexZero,
    /// A vertex index that names no vertex defined before the face.
    #[error("vertex index {index} with {vertices} vertices defined")]
    IndexOutOfRange {
        /// The index as written.
        index: i64,
        /// Vertices defined so far.
        vertices: u64,
    },
    /// More vertices than [`crate::limits::MAX_OBJ_VERTICES`].
    #[error("too many vertices")]
    TooManyVertices,
    /// More triangles than [`crate::limits::MAX_TRIANGLES`].
    #[error("too many triangles")]
    TooManyTriangles,
}
