//! The 68-byte mesh parameter block (`spec/navmesh-format.md` §2): the cell grid, the slot count
//! and the settings digest that fingerprints a build. Each value comes twice, as with tiles
//! (`RawTile` and `NavTile`): as plain data that may break the rules ([`RawGrid`],
//! [`RawParams`]: for writing deliberately bad bytes, and for tiles as plain data), and checked
//! ([`Grid`], [`MeshParams`]: private fields, made only by reading or checking, so every value
//! meets rules P1–P5).

use crate::bytes::{Field, Reader, Writer};
use crate::error::{FingerprintError, FormatError, FormatReason, MeshError, RestoreError};
use crate::ids::SettingsDigest;
use crate::limits::{MAX_SLOTS, PARAMS_AT, PARAMS_LEN, TILE_DIGEST_AT};

/// Origin and tile size as plain data, unchecked.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RawGrid {
    /// World origin (x, y, z) in world units.
    pub origin: [f64; 3],
    /// Edge length of a square cell on the x–z plane, in world units.
    pub tile_size: f64,
}

impl RawGrid {
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

    /// Writes the 32 bytes: origin x, y, z, tile size.
    pub fn write(&self, w: &mut Writer) {
        for v in self.origin {
            w.f64(v);
        }
        w.f64(self.tile_size);
    }
}

/// The cell geometry shared by a mesh and its tiles: origin and tile size, checked (rules P1–P3:
/// the origin finite, the tile size finite and > 0). Read from bytes, or taken from
/// [`MeshParams::grid`] or a tile.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Grid(RawGrid);

impl Grid {
    /// World origin (x, y, z) in world units.
    pub fn origin(&self) -> [f64; 3] {
        self.0.origin
    }

    /// Edge length of a square cell on the x–z plane, in world units, > 0.
    pub fn tile_size(&self) -> f64 {
        self.0.tile_size
    }

    /// The values as plain data.
    pub fn raw(&self) -> RawGrid {
        self.0
    }

    /// Bitwise equality (the rule for comparing parameters, P7).
    pub fn bits_eq(&self, other: &Grid) -> bool {
        let (a, b) = (&self.0, &other.0);
        a.origin
            .iter()
            .zip(b.origin.iter())
            .all(|(x, y)| x.to_bits() == y.to_bits())
            && a.tile_size.to_bits() == b.tile_size.to_bits()
    }

    /// Cell bounds on x–z (see [`RawGrid::cell_bounds`]).
    pub fn cell_bounds(&self, column: i32, row: i32) -> [f64; 4] {
        self.0.cell_bounds(column, row)
    }

    /// The 3 × 3 cells around (column, row) (see [`RawGrid::region_bounds`]).
    pub fn region_bounds(&self, column: i32, row: i32) -> [f64; 4] {
        self.0.region_bounds(column, row)
    }

    /// The grid of these values when they meet P1–P3 and P8 (origin finite, tile size finite and
    /// > 0): the check [`Grid::read`] makes, without the error.
    pub(crate) fn checked(raw: RawGrid) -> Option<Self> {
        let ok = raw.origin.iter().all(|v| v.is_finite())
            && raw.tile_size.is_finite()
            && raw.tile_size > 0.0;
        ok.then_some(Self(raw))
    }

    /// Reads and checks origin and tile size (P1–P3, P8), fields `{prefix}.origin.x` …
    /// `{prefix}.tile_size`.
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
        Ok(Self(RawGrid {
            origin: [ox, oy, oz],
            tile_size,
        }))
    }
}

impl From<Grid> for RawGrid {
    fn from(g: Grid) -> Self {
        g.0
    }
}

/// The parameter block as plain data, unchecked: for writing blocks that break a rule (the
/// conformance suite's must-reject cases) and for checking values made in code.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RawParams {
    /// Origin and tile size.
    pub grid: RawGrid,
    /// Number of slots S.
    pub slot_count: u32,
    /// The build fingerprint.
    pub digest: SettingsDigest,
}

impl RawParams {
    /// Writes the 68-byte block as it is.
    pub fn write(&self, w: &mut Writer) {
        self.grid.write(w);
        w.u32(self.slot_count);
        w.bytes(&self.digest.0);
    }

    /// The 68 bytes, as they are.
    pub fn to_bytes(&self) -> [u8; PARAMS_LEN] {
        let mut w = Writer::with_capacity(PARAMS_LEN);
        self.write(&mut w);
        let mut out = [0u8; PARAMS_LEN];
        out.copy_from_slice(&w.into_inner());
        out
    }

    /// The parameters, if they meet every rule of the block (P1–P6), checked by encoding the
    /// block and reading it back (§2, informative note): the error's offset is relative to the
    /// block (0 … 67), its field path the one of a file.
    pub fn check(&self) -> Result<MeshParams, FormatError> {
        MeshParams::read(&mut Reader::new(&self.to_bytes(), 0))
    }
}

/// The mesh parameters: the 68-byte block at offsets 8 … 75 of mesh files and snapshots, checked
/// (rules P1–P6).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeshParams {
    grid: Grid,
    slot_count: u32,
    digest: SettingsDigest,
}

impl MeshParams {
    /// Encoded size in bytes.
    pub const LEN: usize = PARAMS_LEN;

    /// Parameters after checking every rule of the block (P1–P6); see [`RawParams::check`].
    pub fn new(
        origin: [f64; 3],
        tile_size: f64,
        slot_count: u32,
        digest: SettingsDigest,
    ) -> Result<Self, FormatError> {
        RawParams {
            grid: RawGrid { origin, tile_size },
            slot_count,
            digest,
        }
        .check()
    }

    /// Origin and tile size.
    pub fn grid(&self) -> Grid {
        self.grid
    }

    /// Number of slots S, 1 ..= [`MAX_SLOTS`].
    pub fn slot_count(&self) -> u32 {
        self.slot_count
    }

    /// The build fingerprint.
    pub fn digest(&self) -> SettingsDigest {
        self.digest
    }

    /// The values as plain data.
    pub fn raw(&self) -> RawParams {
        RawParams {
            grid: self.grid.raw(),
            slot_count: self.slot_count,
            digest: self.digest,
        }
    }

    /// Bitwise equality of the encoded blocks (the in-place restore rule, P7).
    pub fn bits_eq(&self, other: &MeshParams) -> bool {
        self.grid.bits_eq(&other.grid)
            && self.slot_count == other.slot_count
            && self.digest == other.digest
    }

    /// Reads and checks the block (P1–P6 in the order of P8); the reader's offsets are those of
    /// the input it reads.
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
        self.raw().write(w);
    }

    /// The 68 bytes.
    pub fn to_bytes(&self) -> [u8; PARAMS_LEN] {
        self.raw().to_bytes()
    }
}

/// How a tile's build parameters differ from a mesh's, the first difference in checking order
/// (`spec/navmesh-format.md` P7): the settings digest (a fingerprint error), then the grid (a
/// format error, *params mismatch*). Every place that takes a tile into a mesh (§5.2 R7, §8 M9
/// and M10, `spec/snapshot.md` S9 and S10) checks it with [`MeshParams::tile_mismatch`] and
/// reports it with one of the methods here.
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

    /// The error of a mesh operation given the tile (`spec/navmesh-format.md` R7.1, §5.4): a
    /// digest that differs is named by its path and offset in the tile's own bytes, as every
    /// other error about a tile argument is.
    pub(crate) fn mesh_error(self) -> MeshError {
        match self {
            Self::Digest { expected, found } => MeshError::Fingerprint(FingerprintError {
                offset: Some(TILE_DIGEST_AT),
                field: "params.settings_digest".into(),
                expected,
                found,
            }),
            Self::Grid => MeshError::ParamsMismatch,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(origin: [f64; 3], tile_size: f64, slot_count: u32) -> RawParams {
        RawParams {
            grid: RawGrid { origin, tile_size },
            slot_count,
            digest: SettingsDigest([7; 32]),
        }
    }

    /// R7.1: the digest of a refused tile is named by its path and offset in the tile's bytes.
    #[test]
    fn a_mesh_names_a_tile_digest_by_its_place_in_the_tile() {
        let d = |b| SettingsDigest([b; 32]);
        let e = TileMismatch::Digest {
            expected: d(1),
            found: d(2),
        }
        .mesh_error();
        match e {
            MeshError::Fingerprint(f) => {
                assert_eq!(
                    (f.field.as_str(), f.offset),
                    ("params.settings_digest", Some(40))
                );
                assert_eq!((f.expected, f.found), (d(1), d(2)));
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            TileMismatch::Grid.mesh_error(),
            MeshError::ParamsMismatch
        ));
    }

    /// Rules P1–P5, each with the field and block-relative offset the block layout gives
    /// (origin 0, 8, 16; tile size 24; slot count 32).
    #[test]
    fn checking_applies_every_rule_at_its_field() {
        let err = |p: RawParams| p.check().unwrap_err();
        let fe = |at, field: &str, reason| FormatError::new(at, field, reason);
        let r = FormatReason::OutOfRange;
        assert_eq!(
            err(raw([0.0, f64::NAN, 0.0], 1.0, 1)),
            fe(8, "params.origin.y", FormatReason::NotFinite)
        );
        assert_eq!(
            err(raw([0.0; 3], f64::INFINITY, 1)),
            fe(24, "params.tile_size", FormatReason::NotFinite)
        );
        for size in [0.0, -0.0, -1.0] {
            assert_eq!(
                err(raw([0.0; 3], size, 1)),
                fe(24, "params.tile_size", r.clone())
            );
        }
        for n in [0, MAX_SLOTS + 1, u32::MAX] {
            assert_eq!(
                err(raw([0.0; 3], 1.0, n)),
                fe(32, "params.slot_count", r.clone())
            );
        }
        let ok = raw([-0.0, 1e300, 5.0], f64::MIN_POSITIVE, MAX_SLOTS)
            .check()
            .unwrap();
        assert_eq!(
            ok.raw(),
            raw([-0.0, 1e300, 5.0], f64::MIN_POSITIVE, MAX_SLOTS)
        );
        assert_eq!(ok.to_bytes(), ok.raw().to_bytes());
        assert_eq!(
            MeshParams::new([0.0; 3], 0.0, 1, SettingsDigest::default()).unwrap_err(),
            fe(24, "params.tile_size", r)
        );
    }

    /// P7: bitwise comparison (+0.0 and −0.0 differ), the digest before the grid.
    #[test]
    fn parameters_compare_bitwise_digest_first() {
        let a = raw([0.0; 3], 1.0, 4).check().unwrap();
        let b = raw([-0.0, 0.0, 0.0], 1.0, 4).check().unwrap();
        assert!(a.bits_eq(&a) && !a.bits_eq(&b));
        assert_eq!(a, b, "numerically equal");
        assert!(!a.grid().bits_eq(&b.grid()));
        assert_eq!(a.tile_mismatch(a.digest(), &a.grid()), None);
        assert_eq!(
            a.tile_mismatch(a.digest(), &b.grid()),
            Some(TileMismatch::Grid)
        );
        let other = SettingsDigest([8; 32]);
        assert_eq!(
            a.tile_mismatch(other, &b.grid()),
            Some(TileMismatch::Digest {
                expected: a.digest(),
                found: other
            })
        );
    }
}
