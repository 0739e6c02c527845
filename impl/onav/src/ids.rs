//! The identifiers every other module names things by: newtypes per index space
//! (`spec/navmesh-format.md` §5: references, slots, polygons, positions, sides) and the two
//! SHA-256 digests (the settings digest of §2, the tile content id of §4). No sentinels: an
//! absent reference is `None`. A leaf module: it depends on `limits` only.

use crate::limits::{MAX_GENERATION, MAX_POLYS, MAX_SLOTS};

const SLOT_SHIFT: u32 = 20;
const GEN_SHIFT: u32 = 40;
const MASK20: u64 = (1 << 20) - 1;

/// A slot index, below the mesh's slot count (at most [`MAX_SLOTS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SlotIndex(pub u32);

/// A polygon index within one tile: ground polygons first, then off-mesh link polygons.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PolyIndex(pub u32);

/// An off-mesh link index within one tile, below the tile's link count L: link i is polygon
/// G + i of its tile, G the ground polygon count (`spec/navmesh-format.md` §3.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LinkIndex(pub u32);

/// A slot generation (salt), 1 ..= [`MAX_GENERATION`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Generation(u32);

impl Generation {
    /// The generation of every slot of a new mesh.
    pub const FIRST: Self = Self(1);

    /// A generation, if `v` is in 1 ..= [`MAX_GENERATION`].
    pub fn new(v: u32) -> Option<Self> {
        (1..=MAX_GENERATION).contains(&v).then_some(Self(v))
    }

    /// The raw value.
    pub fn get(self) -> u32 {
        self.0
    }

    /// The next generation: 16 777 215 wraps to 1.
    #[must_use]
    pub fn next(self) -> Self {
        if self.0 == MAX_GENERATION {
            Self(1)
        } else {
            Self(self.0 + 1)
        }
    }
}

/// A polygon reference: generation << 40 | slot << 20 | polygon index. Never 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PolyRef(u64);

impl PolyRef {
    /// Packs a reference.
    pub fn new(generation: Generation, slot: SlotIndex, poly: PolyIndex) -> Self {
        debug_assert!(slot.0 <= MAX_SLOTS && poly.0 <= MAX_POLYS);
        Self(
            u64::from(generation.0) << GEN_SHIFT
                | u64::from(slot.0) << SLOT_SHIFT
                | u64::from(poly.0),
        )
    }

    /// Any u64 as a reference: it may be forged or stale; the mesh answers whether it is valid.
    /// Returns `None` for values no reference can have (0, or a generation above 24 bits).
    pub fn from_raw(v: u64) -> Option<Self> {
        Generation::new((v >> GEN_SHIFT) as u32).map(|_| Self(v))
    }

    /// The raw value.
    pub fn raw(self) -> u64 {
        self.0
    }

    /// The generation field.
    pub fn generation(self) -> Generation {
        Generation((self.0 >> GEN_SHIFT) as u32)
    }

    /// The slot field.
    pub fn slot(self) -> SlotIndex {
        SlotIndex(((self.0 >> SLOT_SHIFT) & MASK20) as u32)
    }

    /// The polygon field.
    pub fn poly(self) -> PolyIndex {
        PolyIndex((self.0 & MASK20) as u32)
    }

    /// The tile this polygon belongs to.
    pub fn tile(self) -> TileRef {
        TileRef(self.0 & !MASK20)
    }
}

/// A tile reference: a polygon reference with polygon index 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TileRef(u64);

impl TileRef {
    /// Packs a tile reference.
    pub fn new(generation: Generation, slot: SlotIndex) -> Self {
        Self(PolyRef::new(generation, slot, PolyIndex(0)).0)
    }

    /// Any u64 as a tile reference, as [`PolyRef::from_raw`]; the polygon bits must be zero.
    pub fn from_raw(v: u64) -> Option<Self> {
        (v & MASK20 == 0 && Generation::new((v >> GEN_SHIFT) as u32).is_some()).then_some(Self(v))
    }

    /// The raw value.
    pub fn raw(self) -> u64 {
        self.0
    }

    /// The generation field.
    pub fn generation(self) -> Generation {
        Generation((self.0 >> GEN_SHIFT) as u32)
    }

    /// The slot field.
    pub fn slot(self) -> SlotIndex {
        SlotIndex(((self.0 >> SLOT_SHIFT) & MASK20) as u32)
    }

    /// The reference of polygon `poly` of this tile.
    pub fn poly(self, poly: PolyIndex) -> PolyRef {
        PolyRef(self.0 | u64::from(poly.0))
    }
}

/// A tile position: cell column (along x), cell row (along z) and layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TilePos {
    /// Cell column: the tile covers x in [ox + column·size, ox + (column+1)·size].
    pub column: i32,
    /// Cell row: the tile covers z in [oz + row·size, oz + (row+1)·size].
    pub row: i32,
    /// Layer, 0 ..= 255: several tiles may share a cell at different layers.
    pub layer: u32,
}

/// A side of a cell (`spec/navmesh-format.md` §3.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Side {
    /// The +x side (x = cell maximum).
    PosX = 0,
    /// The +z side (z = cell maximum).
    PosZ = 1,
    /// The −x side (x = cell minimum).
    NegX = 2,
    /// The −z side (z = cell minimum).
    NegZ = 3,
}

impl Side {
    /// All four sides in code order.
    pub const ALL: [Side; 4] = [Side::PosX, Side::PosZ, Side::NegX, Side::NegZ];

    /// The side from its code 0 ..= 3.
    pub fn from_code(c: u32) -> Option<Self> {
        Self::ALL.get(c as usize).copied()
    }

    /// The code 0 ..= 3.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The side facing this one across the border.
    pub fn opposite(self) -> Self {
        Self::ALL[(self as usize + 2) % 4]
    }

    /// Column and row step to the neighbouring cell across this side.
    pub fn step(self) -> (i32, i32) {
        match self {
            Side::PosX => (1, 0),
            Side::PosZ => (0, 1),
            Side::NegX => (-1, 0),
            Side::NegZ => (0, -1),
        }
    }

    /// True for the sides whose border runs along z (±x sides): their portals are measured in z.
    pub fn along_z(self) -> bool {
        matches!(self, Side::PosX | Side::NegX)
    }
}

/// A 32-byte SHA-256 (FIPS 180-4) digest newtype: made from bytes, shown as 64 lowercase hex
/// digits.
macro_rules! sha256_newtype {
    ($(#[$doc:meta])* $name:ident, $of:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        pub struct $name(pub [u8; 32]);

        impl $name {
            #[doc = concat!("The SHA-256 of ", $of, ".")]
            pub fn of_bytes(bytes: &[u8]) -> Self {
                use sha2::Digest;
                Self(sha2::Sha256::digest(bytes).into())
            }

            /// 64 lowercase hex digits.
            pub fn to_hex(&self) -> String {
                hex(&self.0)
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}({})", stringify!($name), self.to_hex())
            }
        }
    };
}

sha256_newtype!(
    /// SHA-256 (FIPS 180-4) of a tile's as-built bytes (`spec/navmesh-format.md` §4, rule C1).
    TileContentId,
    "these as-built tile bytes"
);

sha256_newtype!(
    /// SHA-256 of the canonical build settings: the build fingerprint (`spec/navmesh-format.md`
    /// §2, P6).
    SettingsDigest,
    "arbitrary canonical settings bytes"
);

impl std::fmt::Display for SettingsDigest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_hex())
    }
}

/// Lowercase hex of bytes.
pub fn hex(bytes: &[u8]) -> String {
    const D: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(D[usize::from(b >> 4)] as char);
        s.push(D[usize::from(b & 15)] as char);
    }
    s
}
