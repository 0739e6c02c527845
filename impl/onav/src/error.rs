//! Error types (`spec/navmesh-format.md` §1.6, §5.4; `spec/snapshot.md` §6.1): `FormatError` for
//! bytes that break a rule, `FingerprintError` for a settings digest that does not match,
//! `RestoreError` for either, `MeshError` for mesh operations.

use crate::ids::{LinkIndex, PolyRef, SettingsDigest, TilePos, TileRef};

/// Why bytes were rejected. Conformance compares only the error class and field path; the reason
/// is for people and for tests of this implementation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FormatReason {
    /// Fewer bytes remain than the field needs.
    #[error("truncated: needs {needed} bytes, {available} remain")]
    Truncated {
        /// Bytes the field needs.
        needed: u64,
        /// Bytes that remain.
        available: u64,
    },
    /// The magic is not the one of this kind of file.
    #[error("wrong magic")]
    BadMagic,
    /// The version is not the one this reader knows.
    #[error("unsupported version {found}")]
    BadVersion {
        /// Version found.
        found: u16,
    },
    /// A field that must be zero is not.
    #[error("reserved field is not zero")]
    NonZeroReserved,
    /// A float is NaN or infinite.
    #[error("float is not finite")]
    NotFinite,
    /// A value lies outside the range its rule allows.
    #[error("value out of range")]
    OutOfRange,
    /// A count exceeds its limit or the bytes that remain.
    #[error("count {count} exceeds {max}")]
    CountTooLarge {
        /// The count read.
        count: u64,
        /// The largest count allowed here.
        max: u64,
    },
    /// A list is not in strictly ascending order.
    #[error("not strictly ascending")]
    NotAscending,
    /// A value duplicates an earlier one where values must be unique.
    #[error("duplicate value")]
    Duplicate,
    /// Bytes remain after the end of the structure.
    #[error("{count} trailing bytes")]
    TrailingBytes {
        /// How many bytes remain.
        count: u64,
    },
    /// A polygon is not convex and counter-clockwise, or repeats a vertex.
    #[error("polygon is not convex counter-clockwise")]
    NotConvex,
    /// Adjacency is not symmetric.
    #[error("adjacency is not symmetric")]
    AsymmetricAdjacency,
    /// A portal edge does not lie on its cell side.
    #[error("portal edge is not on its cell side")]
    PortalOffSide,
    /// Two portal edges of one side overlap (rule T20).
    #[error("portal edges of one side overlap")]
    PortalOverlap,
    /// A point lies outside the cell (or region) it must lie in.
    #[error("point outside its cell")]
    OutsideCell,
    /// A detail mesh does not cover its polygon.
    #[error("detail mesh does not cover its polygon")]
    DetailMismatch,
    /// A snapshot edit repeats the as-built values (one state, one encoding).
    #[error("edit equals the as-built values")]
    EditEqualsAsBuilt,
    /// The section id is not one this version knows.
    #[error("unknown section id {id}")]
    UnknownSection {
        /// The id read.
        id: u16,
    },
    /// A required section is missing.
    #[error("missing section {id}")]
    MissingSection {
        /// The id expected.
        id: u16,
    },
    /// The section body length does not match what its contents use.
    #[error("section body length does not match its contents")]
    SectionLength,
    /// A content id names no tile of the library.
    #[error("content id not in the library")]
    UnknownContentId,
    /// Parameters other than the digest differ (origin, tile size, slot count).
    #[error("mesh parameters differ")]
    ParamsMismatch,
    /// Two tiles occupy the same (column, row, layer) position.
    #[error("duplicate tile position")]
    DuplicatePosition,
    /// The state would not fit a Full snapshot (its section body exceeds 2^32 − 1 bytes).
    #[error("state too large for a Full snapshot")]
    StateTooLarge,
    /// A tile's landing work exceeds its budget (`spec/navmesh-format.md` K17).
    #[error("landing work {work} exceeds the tile's budget {budget}")]
    LandingBudget {
        /// The tile's landing work in the state.
        work: u64,
        /// Its budget: 512 × its polygon count.
        budget: u64,
    },
}

/// Bytes that break a format rule: error class `format` (`spec/navmesh-format.md` §1.6).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("format error at byte {offset}, {field}: {reason}")]
pub struct FormatError {
    /// Absolute byte offset of the offending field in the outermost input.
    pub offset: u64,
    /// Field path in the spec's names, e.g. `slot[17].edit[2].area`.
    pub field: String,
    /// What is wrong.
    pub reason: FormatReason,
}

impl FormatError {
    /// A format error at `offset` in `field`.
    pub fn new(offset: u64, field: impl Into<String>, reason: FormatReason) -> Self {
        Self {
            offset,
            field: field.into(),
            reason,
        }
    }

    /// The same error nested inside a container that starts at `base` under `prefix`
    /// (a tile inside a snapshot slot, for instance).
    #[must_use]
    pub fn nested(mut self, base: u64, prefix: &str) -> Self {
        self.offset += base;
        self.field = format!("{prefix}.{}", self.field);
        self
    }
}

/// A settings digest that does not match: error class `fingerprint` (`spec/navmesh-format.md`
/// §1.6).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("fingerprint mismatch at {field}: expected {expected}, found {found}")]
pub struct FingerprintError {
    /// Byte offset of the digest in the input, when the digest came from bytes.
    pub offset: Option<u64>,
    /// Field path of the digest that differs, e.g. `slot[3].tile.settings_digest`.
    pub field: String,
    /// The digest required (the mesh's).
    pub expected: SettingsDigest,
    /// The digest found.
    pub found: SettingsDigest,
}

impl FingerprintError {
    /// The same error nested inside a container that starts at `base` under `prefix`, as
    /// [`FormatError::nested`].
    #[must_use]
    pub fn nested(mut self, base: u64, prefix: &str) -> Self {
        self.offset = self.offset.map(|o| o + base);
        self.field = format!("{prefix}.{}", self.field);
        self
    }
}

/// Either failure of a restore or a read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RestoreError {
    /// Malformed bytes.
    #[error(transparent)]
    Format(#[from] FormatError),
    /// Wrong build fingerprint.
    #[error(transparent)]
    Fingerprint(#[from] FingerprintError),
}

impl RestoreError {
    /// The conformance error class: `format` or `fingerprint`.
    pub fn class(&self) -> &'static str {
        match self {
            Self::Format(_) => "format",
            Self::Fingerprint(_) => "fingerprint",
        }
    }

    /// The spec field path of the error.
    pub fn field(&self) -> &str {
        match self {
            Self::Format(e) => &e.field,
            Self::Fingerprint(e) => &e.field,
        }
    }

    /// The same error nested inside a container that starts at `base` under `prefix` (a tile
    /// inside a snapshot slot, a snapshot inside another file).
    #[must_use]
    pub fn nested(self, base: u64, prefix: &str) -> Self {
        match self {
            Self::Format(e) => Self::Format(e.nested(base, prefix)),
            Self::Fingerprint(e) => Self::Fingerprint(e.nested(base, prefix)),
        }
    }

    /// The byte offset of the error, where it has one.
    pub fn offset(&self) -> Option<u64> {
        match self {
            Self::Format(e) => Some(e.offset),
            Self::Fingerprint(e) => e.offset,
        }
    }
}

/// Failure of a mesh operation (`spec/navmesh-format.md` §5.4).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MeshError {
    /// The tile's digest differs from the mesh's.
    #[error(transparent)]
    Fingerprint(#[from] FingerprintError),
    /// The tile's origin or tile size differ bitwise from the mesh's.
    #[error("tile parameters differ from the mesh's")]
    ParamsMismatch,
    /// Another tile already occupies the position.
    #[error("position {pos:?} is taken by {existing:?}")]
    PositionTaken {
        /// The position asked for.
        pos: TilePos,
        /// The tile there.
        existing: TileRef,
    },
    /// No tile occupies the position (replace).
    #[error("no tile at position {pos:?}")]
    NoTileAt {
        /// The position asked for.
        pos: TilePos,
    },
    /// Every slot holds a tile.
    #[error("no free slot")]
    NoFreeSlot,
    /// The tile reference is not valid in this mesh.
    #[error("invalid tile reference {tile:?}")]
    InvalidTileRef {
        /// The reference given.
        tile: TileRef,
    },
    /// The polygon reference is not valid in this mesh.
    #[error("invalid polygon reference {poly:?}")]
    InvalidPolyRef {
        /// The reference given.
        poly: PolyRef,
    },
    /// The change would make the mesh's Full snapshot exceed its 2^32 − 1 byte section body
    /// (`spec/snapshot.md` S29); the mesh is unchanged.
    #[error("the mesh's Full snapshot would exceed 4 GiB")]
    SnapshotTooLarge,
    /// The change would give a tile more landing work than its budget
    /// (`spec/navmesh-format.md` K17): the added or replacing tile, or one around it whose
    /// off-mesh links end in its cell. The mesh is unchanged.
    #[error("tile at {pos:?} would have landing work {work}, over its budget {budget}")]
    LandingBudget {
        /// Position of the tile over budget.
        pos: TilePos,
        /// Its landing work after the change.
        work: u64,
        /// Its budget.
        budget: u64,
    },
    /// An area above 63.
    #[error("area {area} exceeds {max}")]
    AreaOutOfRange {
        /// The area given.
        area: u8,
        /// The largest area, 63.
        max: u8,
    },
    /// A link index not below the tile's link count.
    #[error("off-mesh link index {} out of range (tile has {count})", index.0)]
    LinkOutOfRange {
        /// Index asked for.
        index: LinkIndex,
        /// Links in the tile.
        count: u32,
    },
}
