//! The 68-byte mesh parameter block (`spec/navmesh-format.md` §2): the cell grid, the slot count
//! and the settings digest that fingerprints a build.

use crate::bytes::{Field, Reader, Writer};
use crate::error::{FingerprintError, FormatError, FormatReason, MeshError, RestoreError};
use crate::ids::SettingsDigest;
use crate::limits::{MAX_SLOTS, PARAMS_AT, TILE_DIGEST_AT};

/// The cell geometry shared by a mesh and its tiles: origin and tile size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Grid {
    /// World origin (x, y, z) in world units.
    pub origin: [f64; 3],
    /// Edge length of a square cell on the x–z plane, > 0.
    pub tile_size: f64,
}

impl Grid {
    /// Bitwise equality (the rule for comparing parameters).
    pub fn bits_eq(&self, other: &Grid) -> bool {
        self.origin
            .iter()
            .zip(other.origin.iter())
            .all(|(a, b)| a.to_bits() == b.to_bits())
            && self.tile_size.to_bits() == other.tile_size.to_bits()
    }

    /// Cell bounds on x–z as `[min_x, min_z, max_x, max_z]`: `ox + c·size` and `ox + (c + 1)·size`
    /// with c converted to f64 first (`spec/navmesh-format.md` §1.4), so neighbouring cells
    /// share their border values bit for bit.
    pub fn cell_bounds(&self, column: i32, row: i32) -> [f64; 4] {
        self.span(f64::from(column), f64::from(row), 1.0)
    }

    /// The 3 × 3 cells around (column, row): `ox + (c − 1)·size` to `ox + (c + 2)·size`, likewise
    /// in z. An off-mesh link's end lies here (rule T15).
    pub fn region_bounds(&self, column: i32, row: i32) -> [f64; 4] {
        self.span(f64::from(column) - 1.0, f64::from(row) - 1.0, 3.0)
    }

    fn span(&self, c: f64, r: f64, n: f64) -> [f64; 4] {
        let s = self.tile_size;
        [
            self.origin[0] + c * s,
            self.origin[2] + r * s,
            self.origin[0] + (c + n) * s,
            self.origin[2] + (r + n) * s,
        ]
    }

    pub(crate) fn read(r: &mut Reader<'_>, prefix: &str) -> Result<Self, FormatError> {
        let ox = r.f64(|| format!("{prefix}.origin.x"))?;
        let oy = r.f64(|| format!("{prefix}.origin.y"))?;
        let oz = r.f64(|| format!("{prefix}.origin.z"))?;
        let at = r.offset();
        let tile_size = r.f64(|| format!("{prefix}.tile_size"))?;
        if tile_size <= 0.0 {
            return Err(r.error_at(
                at,
                || format!("{prefix}.tile_size"),
                FormatReason::OutOfRange,
            ));
        }
        Ok(Self {
            origin: [ox, oy, oz],
            tile_size,
        })
    }

    pub(crate) fn write(&self, w: &mut Writer) {
        for v in self.origin {
            w.f64(v);
        }
        w.f64(self.tile_size);
    }
}

/// The mesh parameters: the 68-byte block at offsets 8..75 of mesh files and snapshots.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeshParams {
    /// Origin and tile size.
    pub grid: Grid,
    /// Number of slots S, 1 ..= 1 048 575.
    pub slot_count: u32,
    /// The build fingerprint.
    pub digest: SettingsDigest,
}

impl MeshParams {
    /// Encoded size in bytes.
    pub const LEN: usize = 68;

    /// Parameters after checking every rule of the block (P1–P4).
    pub fn new(
        origin: [f64; 3],
        tile_size: f64,
        slot_count: u32,
        digest: SettingsDigest,
    ) -> Result<Self, FormatError> {
        let mut w = Writer::with_capacity(Self::LEN);
        Self {
            grid: Grid { origin, tile_size },
            slot_count,
            digest,
        }
        .write(&mut w);
        let bytes = w.into_inner();
        Self::read(&mut Reader::new(&bytes, 0))
    }

    /// Bitwise equality of the encoded blocks (the in-place restore rule).
    pub fn bits_eq(&self, other: &MeshParams) -> bool {
        self.grid.bits_eq(&other.grid)
            && self.slot_count == other.slot_count
            && self.digest == other.digest
    }

    /// Reads and validates the block.
    pub fn read(r: &mut Reader<'_>) -> Result<Self, FormatError> {
        let grid = Grid::read(r, "params")?;
        let at = r.offset();
        let slot_count = r.u32("params.slot_count")?;
        if slot_count == 0 || slot_count > MAX_SLOTS {
            return Err(r.error_at(at, "params.slot_count", FormatReason::OutOfRange));
        }
        let digest = SettingsDigest(r.hash32("params.settings_digest")?);
        Ok(Self {
            grid,
            slot_count,
            digest,
        })
    }

    /// Writes the 68-byte block.
    pub fn write(&self, w: &mut Writer) {
        self.grid.write(w);
        w.u32(self.slot_count);
        w.bytes(&self.digest.0);
    }

    /// The 68 bytes.
    pub fn to_bytes(&self) -> [u8; 68] {
        let mut w = Writer::with_capacity(Self::LEN);
        self.write(&mut w);
        let mut out = [0u8; 68];
        out.copy_from_slice(&w.into_inner());
        out
    }
}

/// How a tile's build parameters differ from a mesh's, the first difference in checking order:
/// the settings digest (a fingerprint error), then the grid (a format error, *params
/// mismatch*) (`spec/navmesh-format.md` §5.2 and M9, `spec/snapshot.md` S9 and S10). Every
/// place that takes a tile into a mesh checks it with [`MeshParams::tile_mismatch`] and reports
/// it with one of the methods here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TileMismatch {
    /// The tile's settings digest is not the mesh's.
    Digest {
        expected: SettingsDigest,
        found: SettingsDigest,
    },
    /// The tile's origin or tile size differ bitwise from the mesh's.
    Grid,
}

impl MeshParams {
    /// How a tile with `digest` and `grid` differs from these parameters, if it does.
    pub(crate) fn tile_mismatch(
        &self,
        digest: SettingsDigest,
        grid: &Grid,
    ) -> Option<TileMismatch> {
        if digest != self.digest {
            Some(TileMismatch::Digest {
                expected: self.digest,
                found: digest,
            })
        } else if !grid.bits_eq(&self.grid) {
            Some(TileMismatch::Grid)
        } else {
            None
        }
    }
}

impl TileMismatch {
    /// The error in the tile's own bytes: the digest field (offset 40) or the grid (offset 8),
    /// to be [nested](RestoreError::nested) where the tile's bytes lie.
    pub(crate) fn in_tile(self) -> RestoreError {
        match self {
            Self::Digest { expected, found } => FingerprintError {
                offset: Some(TILE_DIGEST_AT),
                field: "params.settings_digest".into(),
                expected,
                found,
            }
            .into(),
            Self::Grid => {
                FormatError::new(PARAMS_AT, "params", FormatReason::ParamsMismatch).into()
            }
        }
    }

    /// The error at the content id (offset `at`, field `field`) that names the tile.
    pub(crate) fn at_reference(self, at: u64, field: impl Field) -> RestoreError {
        match self {
            Self::Digest { expected, found } => FingerprintError {
                offset: Some(at),
                field: field.path(),
                expected,
                found,
            }
            .into(),
            Self::Grid => FormatError::new(at, field.path(), FormatReason::ParamsMismatch).into(),
        }
    }

    /// The error of a mesh operation given the tile (`spec/navmesh-format.md` §5.4).
    pub(crate) fn mesh_error(self) -> MeshError {
        match self {
            Self::Digest { expected, found } => MeshError::Fingerprint(FingerprintError {
                offset: None,
                field: "tile.params.settings_digest".into(),
                expected,
                found,
            }),
            Self::Grid => MeshError::ParamsMismatch,
        }
    }
}
