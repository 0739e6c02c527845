//! The scenario model (`spec/conformance.md` §1.1–§1.7): a file, its steps and expectations, as
//! serde reads them from YAML (and, compiled, from JSON).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::build::{BuildStep, SettingsStep};
use super::cache::{
    CacheRestoreIntoStep, CacheRestoreStep, CacheSnapshotStep, CacheStep, CacheVolumeStep,
    ObstacleStep, RemoveIdStep, UpdateStep,
};
use super::numbers::Exact;
use super::query::{QueryExpect, QueryStep};

/// Version of the scenario schema this runner reads (the `schema:` key of every file).
pub const SCHEMA_VERSION: u32 = 1;

/// A value and where the file wrote it: line and column from 1, as the YAML reader counts them
/// (0 when unknown: a compiled suite is JSON, read without positions). Values compare equal
/// whatever their positions; it serializes as the bare value.
#[derive(Debug, Clone, Copy, Default)]
pub struct Located<T> {
    /// The value.
    pub value: T,
    /// Line, from 1 (0: unknown).
    pub line: u64,
    /// Column, from 1 (0: unknown).
    pub column: u64,
}

impl<T> Located<T> {
    /// A value written nowhere in particular.
    pub fn new(value: T) -> Self {
        Self {
            value,
            line: 0,
            column: 0,
        }
    }
}

impl<T: PartialEq> PartialEq for Located<T> {
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Located<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = serde_saphyr::Spanned::<T>::deserialize(d)?;
        Ok(Self {
            value: s.value,
            line: s.referenced.line(),
            column: s.referenced.column(),
        })
    }
}

impl<T: Serialize> Serialize for Located<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.value.serialize(s)
    }
}

/// What a scenario asserts about itself; agrees with the file prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// `y_`: everything must be accepted.
    Accept,
    /// `n_`: some input must be rejected, with the class and field given.
    Reject,
    /// `i_`: implementation-defined; the outcome may be either, but must not crash or hang.
    ImplementationDefined,
}

impl Class {
    /// The file prefix of this class.
    pub fn prefix(self) -> &'static str {
        match self {
            Class::Accept => "y_",
            Class::Reject => "n_",
            Class::ImplementationDefined => "i_",
        }
    }
}

/// A whole scenario file.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Schema version; must be `SCHEMA_VERSION`.
    pub schema: u32,
    /// `area/prefix_name`: the path below `scenarios/` without `.yaml`.
    pub id: String,
    /// One line for people.
    pub title: String,
    /// Accept, reject or implementation-defined; agrees with the file prefix.
    pub class: Class,
    /// Spec anchors (`snapshot.md#s12`) of the rules exercised.
    pub spec: Vec<String>,
    /// Features needed, from the registry (`spec/conformance.md` §1.9).
    pub features: Vec<String>,
    /// Longer notes for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    /// The steps, run in order.
    pub steps: Vec<Step>,
}

/// Agent sizes of a world.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct Agent {
    pub height: Exact,
    pub radius: Exact,
    pub climb: Exact,
}

/// `world`: a named `WorldSpec` for the deterministic generator. Unset fields take the values of
/// `like` (another world) or the generator's defaults.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct WorldStep {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub like: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub columns: Option<Located<i32>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<Located<i32>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layers: Option<Located<u32>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<[Exact; 3]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tile_size: Option<Exact>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quads: Option<Located<u32>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vary_density: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slope: Option<[Exact; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bump: Option<Exact>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hole_chance: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layer_gap: Option<Exact>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub links_per_tile: Option<Located<u32>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<Agent>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub area_kinds: Option<u8>,
}

/// `tile`: the generated tile of `world` at `at` = [column, row, layer].
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct TileStep {
    pub name: String,
    pub world: String,
    pub at: Located<(i32, i32, u32)>,
}

/// `tiles`: every tile of `world`, in (layer, row, column) order, one name each.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct TilesStep {
    pub world: String,
    pub names: Vec<String>,
}

/// `bytes`: inline bytes written as commented hex chunks, the UTF-8 bytes of a text (OBJ
/// geometry), or read from a file (relative to the scenario's folder; in a compiled suite, to its
/// `bytes/` folder).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct BytesStep {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hex: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// OBJ text repeated after `text` (`spec/conformance.md` §1.13): geometry of many copies
    /// without as many lines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat: Option<RepeatText>,
}

/// `repeat: {text, copies, step}` of a `bytes` step: `copies` copies of an OBJ text, copy k
/// with every vertex moved by k · `step` (x, y, z).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RepeatText {
    /// The OBJ text of one copy; its faces should use negative (relative) indices.
    pub text: String,
    /// How many copies (at least 1).
    pub copies: u32,
    /// The offset between consecutive copies (wu).
    pub step: [crate::scenario::numbers::Exact; 3],
}

/// Why a `repeat` makes no bytes (`spec/conformance.md` §1.13).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RepeatFault {
    /// A `v` line does not hold three finite numbers.
    Vertex,
    /// The copies would make more than the bytes a step may make; generation stopped there.
    TooLong {
        /// The most bytes the step may make.
        max: u64,
    },
}

impl RepeatText {
    /// The copies, in order (`spec/conformance.md` §1.13), after `head`: lines of the text other
    /// than `v` lines unchanged; in copy k a line `v X Y Z` becomes `v x y z` with
    /// x = X + k·dx (binary64, k as a binary64), written as Rust's `{}` writes an f64 (the
    /// shortest text that reads back to the same value), likewise y and z.
    ///
    /// The size is counted while the copies are made, and generation stops as soon as the
    /// output passes `max` bytes: a number's text is not bounded by its magnitude in a useful way
    /// (`{}` never switches to an exponent, so 1e300 is 301 characters), so no bound computed
    /// beforehand is both sound and loose enough for real cases. Every line adds at least its LF,
    /// so the loop runs at most `max + 1` lines; an empty text makes no bytes at all, whatever
    /// `copies` says.
    pub fn expand(&self, head: &str, max: u64) -> Result<Vec<u8>, RepeatFault> {
        let mut out = String::from(head);
        let too_long = |out: &String| out.len() as u64 > max;
        if too_long(&out) {
            return Err(RepeatFault::TooLong { max });
        }
        if self.text.is_empty() {
            return Ok(out.into_bytes());
        }
        for k in 0..self.copies {
            let kf = f64::from(k);
            for line in self.text.lines() {
                let mut words = line.split_whitespace();
                if words.next() == Some("v") {
                    let xyz: Vec<f64> = words
                        .map(|w| w.parse::<f64>())
                        .collect::<Result<_, _>>()
                        .map_err(|_| RepeatFault::Vertex)?;
                    if xyz.len() != 3 || xyz.iter().any(|v| !v.is_finite()) {
                        return Err(RepeatFault::Vertex);
                    }
                    let m = |i: usize| xyz[i] + kf * self.step[i].0;
                    out.push_str(&format!("v {} {} {}\n", m(0), m(1), m(2)));
                } else {
                    out.push_str(line);
                    out.push('\n');
                }
                if too_long(&out) {
                    return Err(RepeatFault::TooLong { max });
                }
            }
        }
        Ok(out.into_bytes())
    }
}

/// One expected byte run of an output (the compiled form of `fields`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BytesAt {
    /// Absolute offset.
    pub offset: u64,
    /// The bytes expected there.
    pub hex: String,
    /// The field path, for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}

/// One edit of a tile as plain data (`raw_tile`). The result is written without any check.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
#[allow(missing_docs)]
pub enum RawEdit {
    /// Moves vertex `index`.
    SetVertex { index: u32, value: [Exact; 3] },
    /// Sets the as-built area of polygon `poly`.
    SetArea { poly: u32, value: u8 },
    /// Sets the as-built flags of polygon `poly`.
    SetFlags { poly: u32, value: u16 },
    /// Appends an off-mesh link (area 0, flags 1).
    AddLink {
        start: [Exact; 3],
        end: [Exact; 3],
        radius: Exact,
        bidirectional: bool,
        #[serde(default)]
        user_id: u32,
    },
    /// Removes every off-mesh link.
    ClearLinks,
    /// Writes the settings digest of another world.
    DigestOf(String),
    /// Writes these agent sizes.
    Agent(Agent),
}

/// `raw_tile`: a tile derived from another (valid) tile by edits of its plain data.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct RawTileStep {
    pub name: String,
    pub from: String,
    pub edits: Vec<RawEdit>,
}

/// `new_mesh`: a mesh with `world`'s parameters and `slots` slots; `origin`, `tile_size` and
/// `digest_of` (another world) override parts of the parameter block. Or `params`: the 68-byte
/// parameter block itself, in hex (the compiled form).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct NewMeshStep {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub world: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slots: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<[Exact; 3]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tile_size: Option<Exact>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest_of: Option<String>,
}

/// `add_tile` and `replace_tile`: the reply's tile reference is stored under `name`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct AddTileStep {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mesh: Option<String>,
    pub tile: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// `remove_tile`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct RemoveTileStep {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mesh: Option<String>,
    #[serde(rename = "ref")]
    pub tile_ref: String,
}

/// `set_area`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct SetAreaStep {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mesh: Option<String>,
    pub poly: String,
    pub area: u8,
}

/// `set_flags`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct SetFlagsStep {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mesh: Option<String>,
    pub poly: String,
    pub flags: u16,
}

/// `set_link`: turns off-mesh link `link` of a tile on or off.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct SetLinkStep {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mesh: Option<String>,
    #[serde(rename = "ref")]
    pub tile_ref: String,
    pub link: u32,
    pub enabled: bool,
}

/// `is_valid_ref` and `get_poly`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct PolyStep {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mesh: Option<String>,
    pub poly: String,
}

/// Snapshot mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)]
pub enum Mode {
    Full,
    Referenced,
}

impl Mode {
    /// The wire name.
    pub fn wire(self) -> &'static str {
        match self {
            Mode::Full => "full",
            Mode::Referenced => "referenced",
        }
    }
}

/// `snapshot`: the mesh's snapshot bytes, stored under `name`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct SnapshotStep {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mesh: Option<String>,
    pub mode: Mode,
    pub name: String,
}

/// `restore`: a new mesh from snapshot bytes and a library of tiles (byte names).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct RestoreStep {
    pub bytes: String,
    #[serde(default)]
    pub library: Vec<String>,
    pub name: String,
}

/// `restore_into`: restores snapshot bytes into an existing mesh, in place.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct RestoreIntoStep {
    pub mesh: String,
    pub bytes: String,
    #[serde(default)]
    pub library: Vec<String>,
}

/// `write_mesh`: the mesh file bytes, stored under `name`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct WriteMeshStep {
    pub mesh: String,
    pub name: String,
}

/// `read_mesh`: a new mesh from mesh file bytes.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct ReadMeshStep {
    pub bytes: String,
    pub name: String,
}

/// `parse_tile`: the testee parses tile bytes and writes them back (output; stored under `name`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct ParseTileStep {
    pub tile: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// `content_id`: the testee's content id of tile bytes.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct ContentIdStep {
    pub tile: String,
}

/// Where a patch edit applies: a field path of the structural decode, or a byte offset.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct SetEdit {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    /// The new value, read as the field's type (integer, exact float or `nan`/`inf`/`-inf`, or
    /// hex for byte fields).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// Added (wrapping) to an integer field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub add: Option<i64>,
    /// Raw bytes written at the field or offset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hex: Option<String>,
    /// The SHA-256 of these named bytes (a content id), written into a 32-byte field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256_of: Option<String>,
}

/// `flip`: one bit of a field (bit 0 = least significant bit of its first byte) or of a byte.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct FlipEdit {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    pub bit: u32,
}

/// `truncate`: keep the first `keep` bytes, drop the last `drop`, or cut `at` a field's start.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct TruncateEdit {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keep: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drop: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
}

/// `copy`: the bytes of field `from` written over field `to` (same size).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct CopyEdit {
    pub from: String,
    pub to: String,
}

/// `splice`: replaces a range with new bytes. The range is a field (`field`), an empty range
/// before or after a field (`before`, `after`), or `offset` with `remove` bytes; with `until`, it
/// extends from its start to the start of that field (`end`: to the end of the bytes). The new bytes are `hex` or a named blob
/// (`blob`), optionally preceded by their u32 length.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct SpliceEdit {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remove: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hex: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
    #[serde(default)]
    pub length_prefix: bool,
}

/// One edit of a `patch`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
#[allow(missing_docs)]
pub enum PatchEdit {
    Set(SetEdit),
    Flip(FlipEdit),
    Truncate(TruncateEdit),
    /// Hex bytes appended at the end.
    Append(String),
    Copy(CopyEdit),
    Splice(SpliceEdit),
    /// Sets the u32 length field at this path to the number of bytes that follow it.
    FitLength(String),
}

/// `patch`: bytes `from` edited in order into new bytes `name`. Field paths are looked up in the
/// structural decode of the bytes as they are before each edit.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct PatchStep {
    pub from: String,
    pub name: String,
    pub edits: Vec<PatchEdit>,
}

/// What the outcome must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutcomeKind {
    /// Accepted.
    Ok,
    /// Rejected (any class and field).
    Rejected,
    /// Either; only a crash, a hang or a protocol error fails.
    Any,
}

/// An expected rejection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorExpect {
    /// `format`, `fingerprint` or `mesh`.
    pub class: String,
    /// The spec field path.
    pub field: String,
    /// The byte offset of the offending field in the input the request carried (compared when
    /// the testee speaks protocol 2; required for classes `format` and `fingerprint`, absent for
    /// `mesh` and `query`, whose rejections carry none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
}

/// The mesh state after the step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StateExpect {
    /// Equal to the state before the step: Full snapshot and every polygon's links.
    Unchanged,
}

/// An expected link of `get_poly`: every field of its kind (`navmesh-format.md` K2), checked at
/// load: `edge` for `internal`; `edge`, `side`, `lo` and `hi` for `portal`; `end` for
/// `to_off_mesh` and `from_off_mesh`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkExpect {
    /// The target polygon (a reference).
    pub to: String,
    /// `internal`, `portal`, `to_off_mesh` or `from_off_mesh`.
    pub kind: String,
    /// The source polygon's edge (internal and portal links).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edge: Option<u8>,
    /// The cell side of a portal link: `+x`, `+z`, `-x` or `-z`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side: Option<String>,
    /// The start of a portal link's overlap along the side's axis.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lo: Option<Exact>,
    /// The end of a portal link's overlap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hi: Option<Exact>,
    /// Which end of the off-mesh link: `start` or `end`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<String>,
}

/// `expect`: checks on the outcome and output of the step just before it. Without `outcome`
/// or `error`, the step must have been accepted.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// Accepted, rejected, or either.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<OutcomeKind>,
    /// Rejected with this class and field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorExpect>,
    /// The mesh of the step is as it was before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<StateExpect>,
    /// The mesh of the step has the same state as this other mesh.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub same_state: Option<String>,
    /// The output bytes are a golden under this label (hashed into the manifest).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub golden: Option<String>,
    /// Fields of the output's structural decode have these values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fields: Option<BTreeMap<String, String>>,
    /// The output bytes equal these named bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub equals: Option<String>,
    /// The output bytes differ from these named bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub differs: Option<String>,
    /// The output has this many bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub length: Option<u64>,
    /// The output's SHA-256 (64 hex digits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// The output holds these bytes at these offsets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes_at: Option<Vec<BytesAt>>,
    /// `is_valid_ref` answered this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valid: Option<bool>,
    /// `get_poly` answered this area.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub area: Option<u8>,
    /// `get_poly` answered these flags.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flags: Option<u16>,
    /// `get_poly` answered these links, in this order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub links: Option<Vec<LinkExpect>>,
    /// The tile reference returned (a reference spec).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tile_ref: Option<String>,
    /// `content_id` answered this: 64 hex digits, or `sha256` for the SHA-256 of the tile bytes
    /// as the runner computes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// A query answered these values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<QueryExpect>,
    /// A `build` gave tiles at these positions [column, row, layer], in this order; with
    /// `golden`, each tile is a golden of its own (`scenario::build::tile_label`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tiles: Option<Vec<(i32, i32, u32)>>,
    /// A tile cache step answered these reply fields (`scenario::cache::ADD_REPLY_KEYS`, the
    /// id of an add; `UPDATE_REPLY_KEYS`, the counts of an `update`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<BTreeMap<String, u64>>,
}

impl Expect {
    /// True when this expectation admits a rejection.
    pub fn admits_rejection(&self) -> bool {
        self.error.is_some()
            || matches!(self.outcome, Some(OutcomeKind::Rejected | OutcomeKind::Any))
    }
}

/// `continue`: the same operations applied to two meshes, comparing their replies and their
/// states after every operation.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContinueStep {
    /// The two meshes (typically a restored one and a twin that never left).
    pub meshes: (String, String),
    /// Mesh operations without their `mesh` key.
    pub ops: Vec<Step>,
}

/// One step.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)]
pub enum Step {
    World(Box<WorldStep>),
    Tile(TileStep),
    Tiles(TilesStep),
    Bytes(BytesStep),
    RawTile(RawTileStep),
    NewMesh(NewMeshStep),
    AddTile(AddTileStep),
    RemoveTile(RemoveTileStep),
    ReplaceTile(AddTileStep),
    SetArea(SetAreaStep),
    SetFlags(SetFlagsStep),
    SetLink(SetLinkStep),
    IsValidRef(PolyStep),
    GetPoly(PolyStep),
    Snapshot(SnapshotStep),
    Restore(RestoreStep),
    RestoreInto(RestoreIntoStep),
    WriteMesh(WriteMeshStep),
    ReadMesh(ReadMeshStep),
    ParseTile(ParseTileStep),
    ContentId(ContentIdStep),
    Patch(PatchStep),
    Expect(Box<Expect>),
    Continue(ContinueStep),
    FindNearestPoly(Box<QueryStep>),
    FindPath(Box<QueryStep>),
    FindStraightPath(Box<QueryStep>),
    Raycast(Box<QueryStep>),
    CorridorCost(Box<QueryStep>),
    Settings(Box<SettingsStep>),
    Build(BuildStep),
    Cache(CacheStep),
    AddObstacle(ObstacleStep),
    RemoveObstacle(RemoveIdStep),
    AddVolume(CacheVolumeStep),
    RemoveVolume(RemoveIdStep),
    Update(UpdateStep),
    CacheSnapshot(CacheSnapshotStep),
    CacheRestore(CacheRestoreStep),
    CacheRestoreInto(CacheRestoreIntoStep),
}

impl Step {
    /// The step's key in the file.
    pub fn key(&self) -> &'static str {
        match self {
            Step::World(_) => "world",
            Step::Tile(_) => "tile",
            Step::Tiles(_) => "tiles",
            Step::Bytes(_) => "bytes",
            Step::RawTile(_) => "raw_tile",
            Step::NewMesh(_) => "new_mesh",
            Step::AddTile(_) => "add_tile",
            Step::RemoveTile(_) => "remove_tile",
            Step::ReplaceTile(_) => "replace_tile",
            Step::SetArea(_) => "set_area",
            Step::SetFlags(_) => "set_flags",
            Step::SetLink(_) => "set_link",
            Step::IsValidRef(_) => "is_valid_ref",
            Step::GetPoly(_) => "get_poly",
            Step::Snapshot(_) => "snapshot",
            Step::Restore(_) => "restore",
            Step::RestoreInto(_) => "restore_into",
            Step::WriteMesh(_) => "write_mesh",
            Step::ReadMesh(_) => "read_mesh",
            Step::ParseTile(_) => "parse_tile",
            Step::ContentId(_) => "content_id",
            Step::Patch(_) => "patch",
            Step::Expect(_) => "expect",
            Step::Continue(_) => "continue",
            Step::FindNearestPoly(_) => "find_nearest_poly",
            Step::FindPath(_) => "find_path",
            Step::FindStraightPath(_) => "find_straight_path",
            Step::Raycast(_) => "raycast",
            Step::CorridorCost(_) => "corridor_cost",
            Step::Settings(_) => "settings",
            Step::Build(_) => "build",
            Step::Cache(_) => "cache",
            Step::AddObstacle(_) => "add_obstacle",
            Step::RemoveObstacle(_) => "remove_obstacle",
            Step::AddVolume(_) => "add_volume",
            Step::RemoveVolume(_) => "remove_volume",
            Step::Update(_) => "update",
            Step::CacheSnapshot(_) => "cache_snapshot",
            Step::CacheRestore(_) => "cache_restore",
            Step::CacheRestoreInto(_) => "cache_restore_into",
        }
    }

    /// The `mesh` key of a mesh operation (the ops allowed inside `continue`).
    pub fn mesh_key(&self) -> Option<&Option<String>> {
        match self {
            Step::AddTile(s) | Step::ReplaceTile(s) => Some(&s.mesh),
            Step::RemoveTile(s) => Some(&s.mesh),
            Step::SetArea(s) => Some(&s.mesh),
            Step::SetFlags(s) => Some(&s.mesh),
            Step::SetLink(s) => Some(&s.mesh),
            Step::IsValidRef(s) | Step::GetPoly(s) => Some(&s.mesh),
            Step::Snapshot(s) => Some(&s.mesh),
            Step::FindNearestPoly(q)
            | Step::FindPath(q)
            | Step::FindStraightPath(q)
            | Step::Raycast(q)
            | Step::CorridorCost(q) => Some(&q.mesh),
            Step::AddObstacle(s) => Some(&s.cache),
            Step::RemoveObstacle(s) | Step::RemoveVolume(s) => Some(&s.cache),
            Step::AddVolume(s) => Some(&s.cache),
            Step::Update(s) => Some(&s.cache),
            Step::CacheSnapshot(s) => Some(&s.cache),
            _ => None,
        }
    }

    /// True for the tile cache operations that act on a cache named by their `cache` key (and
    /// may appear in a `continue` over two caches).
    pub fn is_cache_op(&self) -> bool {
        matches!(
            self,
            Step::AddObstacle(_)
                | Step::RemoveObstacle(_)
                | Step::AddVolume(_)
                | Step::RemoveVolume(_)
                | Step::Update(_)
                | Step::CacheSnapshot(_)
        )
    }

    /// True for steps the runner computes itself (no request to the testee).
    pub fn is_local(&self) -> bool {
        matches!(
            self,
            Step::World(_)
                | Step::Tile(_)
                | Step::Tiles(_)
                | Step::Bytes(_)
                | Step::RawTile(_)
                | Step::Patch(_)
                | Step::Settings(_)
        )
    }
}

/// True for a name steps may define (`spec/conformance.md` §1.2): a letter, then letters, digits,
/// `_` and `-`.
pub fn valid_name(n: &str) -> bool {
    n.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && n.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}
