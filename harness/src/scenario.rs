//! Scenario files (`spec/conformance.md`, "Scenario format"): the YAML model, exact number and
//! hex parsing, the feature registry, and the load-time checks (schema version, file prefix
//! against `class`, spec anchors, features, names defined before use, expectation placement).
//!
//! Every struct denies unknown keys. Steps are externally tagged: `- add_tile: {mesh: m, tile: a}`.
//! Numbers that feed bytes are read as their source text so that they can be checked exactly.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::Path;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Version of the scenario schema this runner reads (the `schema:` key of every file).
pub const SCHEMA_VERSION: u32 = 1;

/// The feature registry: every name a scenario may list under `features:`, and what it means.
/// A testee announces the features it supports in its `hello` reply; a scenario needing one it
/// lacks is reported `unsupported`.
pub const FEATURES: &[(&str, &str)] = &[
    (
        "tile",
        "tile bytes parsed and validated on their own (parse_tile, content_id)",
    ),
    (
        "navmesh",
        "meshes: new_mesh, add/remove/replace tile, area and flag edits, is_valid_ref",
    ),
    (
        "links",
        "stitched links observed through get_poly (also used by state comparisons)",
    ),
    ("off-mesh-links", "tiles with off-mesh links, and set_link"),
    ("layers", "several tiles in one cell at different layers"),
    (
        "snapshot-full",
        "snapshots in Full mode and restore into a new mesh",
    ),
    (
        "snapshot-referenced",
        "snapshots in Referenced mode and restore with a tile library",
    ),
    (
        "restore-in-place",
        "restore into an existing mesh (all or nothing)",
    ),
    ("meshfile", "mesh files: write_mesh and read_mesh"),
    ("query-nearest", "find_nearest_poly"),
    ("query-path", "find_path"),
    ("query-straight-path", "find_straight_path"),
    ("query-raycast", "raycast"),
];

/// True when `name` is in the registry.
pub fn is_feature(name: &str) -> bool {
    FEATURES.iter().any(|(f, _)| *f == name)
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

/// A binary64 written exactly: the shortest decimal that round-trips to it, or `0x` and 16 hex
/// digits of its bits. Always finite.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Exact(pub f64);

impl<'de> Deserialize<'de> for Exact {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        parse_exact(&s).map(Exact).map_err(serde::de::Error::custom)
    }
}

impl Serialize for Exact {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("0x{:016x}", self.0.to_bits()))
    }
}

/// Sign, significant digits (no leading or trailing zeros) and decimal exponent of a decimal
/// number written in the usual notations (`12`, `-0.5`, `1.25e-3`). `None` if it is not one.
fn decimal_parts(s: &str) -> Option<(bool, String, i64)> {
    let (neg, body) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let (mant, exp) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], body[i + 1..].parse::<i64>().ok()?),
        None => (body, 0),
    };
    let (int, frac) = match mant.find('.') {
        Some(i) => (&mant[..i], &mant[i + 1..]),
        None => (mant, ""),
    };
    if int.is_empty() && frac.is_empty()
        || !int.bytes().chain(frac.bytes()).all(|c| c.is_ascii_digit())
    {
        return None;
    }
    let digits: String = format!("{int}{frac}");
    let lead = digits.len() - digits.trim_start_matches('0').len();
    let sig = digits
        .trim_start_matches('0')
        .trim_end_matches('0')
        .to_owned();
    if sig.is_empty() {
        return Some((neg, String::new(), 0));
    }
    let point = int.len() as i64 - lead as i64 + exp;
    Some((neg, sig, point))
}

/// Parses an exact float: `0x` + 16 hex digits (bits), or the shortest round-trip decimal.
pub fn parse_exact(text: &str) -> Result<f64, String> {
    let s = text.trim();
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        if h.len() != 16 {
            return Err(format!("{s:?}: float bits need exactly 16 hex digits"));
        }
        let bits = u64::from_str_radix(h, 16).map_err(|e| format!("{s:?}: {e}"))?;
        let v = f64::from_bits(bits);
        return if v.is_finite() {
            Ok(v)
        } else {
            Err(format!("{s:?} is not finite"))
        };
    }
    let Some(parts) = decimal_parts(s) else {
        return Err(format!("{s:?} is not a decimal number or 0x float bits"));
    };
    let v: f64 = s.parse().map_err(|e| format!("{s:?}: {e}"))?;
    if !v.is_finite() {
        return Err(format!("{s:?} is not finite"));
    }
    let shortest = format!("{v:e}");
    if decimal_parts(&shortest) != Some(parts) {
        return Err(format!(
            "{s:?} is not the shortest decimal of the binary64 it rounds to; write {v} or 0x{:016x}",
            v.to_bits()
        ));
    }
    Ok(v)
}

/// Parses an integer written in decimal (optionally signed) or `0x` hex.
pub fn parse_int(text: &str) -> Result<i128, String> {
    let s = text.trim();
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s),
    };
    let v = match body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        Some(h) => i128::from_str_radix(h, 16),
        None => body.parse::<i128>(),
    }
    .map_err(|_| format!("{s:?} is not an integer"))?;
    Ok(if neg { -v } else { v })
}

/// Parses hex bytes: whitespace is ignored and `#` starts a comment to the end of the line, so
/// long blobs can be written as commented chunks.
pub fn parse_hex(text: &str) -> Result<Vec<u8>, String> {
    let mut digits = Vec::new();
    for line in text.lines() {
        let code = line.split('#').next().unwrap_or("");
        for c in code.chars().filter(|c| !c.is_whitespace()) {
            let d = c
                .to_digit(16)
                .ok_or_else(|| format!("{c:?} is not a hex digit"))?;
            digits.push(d as u8);
        }
    }
    if digits.len() % 2 != 0 {
        return Err(format!("odd number of hex digits ({})", digits.len()));
    }
    Ok(digits.chunks(2).map(|p| p[0] << 4 | p[1]).collect())
}

/// A whole scenario file.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Schema version; must be [`SCHEMA_VERSION`].
    pub schema: u32,
    /// `area/prefix_name`: the path below `scenarios/` without `.yaml`.
    pub id: String,
    /// One line for people.
    pub title: String,
    /// Accept, reject or implementation-defined; agrees with the file prefix.
    pub class: Class,
    /// Spec anchors (`snapshot.md#s12`) of the rules exercised.
    pub spec: Vec<String>,
    /// Features needed, from [`FEATURES`].
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
    pub columns: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layers: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<[Exact; 3]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tile_size: Option<Exact>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quads: Option<u32>,
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
    pub links_per_tile: Option<u32>,
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
    pub at: (i32, i32, u32),
}

/// `tiles`: every tile of `world`, in (layer, row, column) order, one name each.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct TilesStep {
    pub world: String,
    pub names: Vec<String>,
}

/// `bytes`: inline bytes written as commented hex chunks, or read from a file (relative to the
/// scenario's folder; in a compiled suite, to its `bytes/` folder).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct BytesStep {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hex: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
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
}

/// The mesh state after the step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StateExpect {
    /// Equal to the state before the step: Full snapshot and every polygon's links.
    Unchanged,
}

/// An expected link of `get_poly`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkExpect {
    /// The target polygon (a reference).
    pub to: String,
    /// `internal`, `portal`, `to_off_mesh` or `from_off_mesh`.
    pub kind: String,
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
    pub query: Option<crate::query::QueryExpect>,
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
    World(WorldStep),
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
    FindNearestPoly(Box<crate::query::QueryStep>),
    FindPath(Box<crate::query::QueryStep>),
    FindStraightPath(Box<crate::query::QueryStep>),
    Raycast(Box<crate::query::QueryStep>),
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
            | Step::Raycast(q) => Some(&q.mesh),
            _ => None,
        }
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
        )
    }
}

/// A scenario that loaded and passed every load-time check.
#[derive(Debug, Clone)]
pub struct Case {
    /// `area/prefix_name`.
    pub id: String,
    /// The folder below `scenarios/`.
    pub area: String,
    /// The parsed file.
    pub scenario: Scenario,
    /// Where `bytes: {file}` paths start (the file's folder).
    pub dir: std::path::PathBuf,
}

/// A load error: which file and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    /// The file.
    pub path: String,
    /// Why it was refused.
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// Loads and checks one scenario file. `id` is its path below `scenarios/` without `.yaml`.
pub fn load_str(id: &str, text: &str) -> Result<Case, String> {
    let opts = serde_saphyr::options! { strict_booleans: true };
    let scenario: Scenario =
        serde_saphyr::from_str_with_options(text, opts).map_err(|e| e.to_string())?;
    check(id, &scenario)?;
    let area = id.split('/').next().unwrap_or("").to_owned();
    Ok(Case {
        id: id.to_owned(),
        area,
        scenario,
        dir: std::path::PathBuf::from("."),
    })
}

/// Loads one file below `root` (the `scenarios/` folder).
pub fn load_file(root: &Path, path: &Path) -> Result<Case, LoadError> {
    let err = |m: String| LoadError {
        path: path.display().to_string(),
        message: m,
    };
    let rel = path
        .strip_prefix(root)
        .map_err(|_| err(format!("not below {}", root.display())))?;
    let id = rel
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/");
    let text = std::fs::read_to_string(path).map_err(|e| err(e.to_string()))?;
    let mut c = load_str(&id, &text).map_err(err)?;
    c.dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    Ok(c)
}

/// Loads a suite written by `onav compile`: its cases, with `bytes: {file}` paths below
/// `dir/bytes`. Every case passes the same load-time checks as a YAML file.
pub fn load_compiled(dir: &Path) -> Result<Vec<Case>, String> {
    let path = dir.join("suite.json");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let doc: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    for c in doc["cases"].as_array().into_iter().flatten() {
        let mut c = c.clone();
        let id = c["id"].as_str().unwrap_or_default().to_owned();
        c["schema"] = serde_json::json!(doc["schema"]);
        let scenario: Scenario = serde_json::from_value(c).map_err(|e| format!("{id}: {e}"))?;
        check(&id, &scenario).map_err(|e| format!("{id}: {e}"))?;
        out.push(Case {
            area: id.split('/').next().unwrap_or("").to_owned(),
            id,
            scenario,
            dir: dir.join("bytes"),
        });
    }
    Ok(out)
}

/// Every `*.yaml` file below `dir`, sorted.
pub fn find_files(dir: &Path) -> std::io::Result<Vec<std::path::PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d)? {
            let p = e?.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "yaml") {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Loads every scenario below `root`: the cases, and the files that failed to load.
pub fn load_dir(root: &Path) -> (Vec<Case>, Vec<LoadError>) {
    let files = match find_files(root) {
        Ok(f) => f,
        Err(e) => {
            return (
                Vec::new(),
                vec![LoadError {
                    path: root.display().to_string(),
                    message: e.to_string(),
                }],
            )
        }
    };
    let mut cases = Vec::new();
    let mut errors = Vec::new();
    for f in files {
        match load_file(root, &f) {
            Ok(c) => cases.push(c),
            Err(e) => errors.push(e),
        }
    }
    (cases, errors)
}

/// What a name holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A `WorldSpec`.
    World,
    /// Bytes (tiles, snapshots, mesh files).
    Bytes,
    /// A mesh handle.
    Mesh,
    /// A tile reference.
    Ref,
}

/// Names defined so far, with their kind.
#[derive(Debug, Default)]
struct Scope {
    names: BTreeMap<String, Kind>,
}

impl Scope {
    fn def(&mut self, name: &str, kind: Kind) -> Result<(), String> {
        if !valid_name(name) {
            return Err(format!(
                "name {name:?}: use letters, digits, '_' and '-', starting with a letter"
            ));
        }
        if self.names.insert(name.to_owned(), kind).is_some() {
            return Err(format!("name {name:?} is defined twice"));
        }
        Ok(())
    }
    fn want(&self, name: &str, kind: Kind) -> Result<(), String> {
        match self.names.get(name) {
            Some(k) if *k == kind => Ok(()),
            Some(k) => Err(format!("{name:?} is a {k:?}, not a {kind:?}")),
            None => Err(format!("{name:?} is not defined before this step")),
        }
    }
    fn want_ref(&self, spec: &str) -> Result<(), String> {
        match RefSpec::parse(spec)? {
            RefSpec::Named { name, .. } => self.want(&name, Kind::Ref),
            _ => Ok(()),
        }
    }
}

fn valid_name(n: &str) -> bool {
    n.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && n.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// A reference as written in a scenario.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefSpec {
    /// `0x…`: any u64, forged or not.
    Raw(u64),
    /// `G:S:P`: generation, slot and polygon packed as the spec says.
    Packed {
        /// Generation (24 bits).
        generation: u64,
        /// Slot (20 bits).
        slot: u64,
        /// Polygon (20 bits).
        poly: u64,
    },
    /// `NAME` or `NAME#P`: a stored tile reference, with polygon P (0 if absent).
    Named {
        /// The stored reference.
        name: String,
        /// Polygon index.
        poly: u64,
    },
}

impl RefSpec {
    /// Parses a reference spec.
    pub fn parse(s: &str) -> Result<Self, String> {
        let bad = || format!("reference {s:?}: write 0x…, G:S:P, NAME or NAME#P");
        if s.starts_with("0x") {
            return crate::protocol::ref_from_hex(s)
                .map(RefSpec::Raw)
                .ok_or_else(bad);
        }
        if s.contains(':') {
            let p: Vec<&str> = s.split(':').collect();
            let n: Vec<u64> = p
                .iter()
                .map(|x| x.parse::<u64>())
                .collect::<Result<_, _>>()
                .map_err(|_| bad())?;
            if n.len() != 3 || n[0] >= 1 << 24 || n[1] >= 1 << 20 || n[2] >= 1 << 20 {
                return Err(bad());
            }
            return Ok(RefSpec::Packed {
                generation: n[0],
                slot: n[1],
                poly: n[2],
            });
        }
        let (name, poly) = match s.split_once('#') {
            Some((n, p)) => (n, p.parse::<u64>().map_err(|_| bad())?),
            None => (s, 0),
        };
        if poly >= 1 << 20 || !valid_name(name) {
            return Err(bad());
        }
        Ok(RefSpec::Named {
            name: name.to_owned(),
            poly,
        })
    }

    /// The u64 value, given the stored tile references.
    pub fn resolve(&self, lookup: impl Fn(&str) -> Option<u64>) -> Option<u64> {
        match self {
            RefSpec::Raw(v) => Some(*v),
            RefSpec::Packed {
                generation,
                slot,
                poly,
            } => Some(generation << 40 | slot << 20 | poly),
            RefSpec::Named { name, poly } => lookup(name).map(|t| t | poly),
        }
    }
}

/// A spec anchor: `file.md#id`, where id is a rule id in lower case (`t12`, `s3`) or a section
/// number (`3`, `6.2`).
fn check_anchor(a: &str) -> Result<(), String> {
    let ok = a.split_once('#').is_some_and(|(file, id)| {
        let stem = file.strip_suffix(".md").unwrap_or("");
        !stem.is_empty()
            && stem
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
            && (is_rule_id(id) || is_section(id))
    });
    if ok {
        Ok(())
    } else {
        Err(format!(
            "spec anchor {a:?}: write file.md#t12 (a rule id) or file.md#6.2 (a section number)"
        ))
    }
}

fn is_rule_id(id: &str) -> bool {
    let mut c = id.chars();
    c.next().is_some_and(|f| f.is_ascii_lowercase())
        && !id[1..].is_empty()
        && id[1..].chars().all(|d| d.is_ascii_digit())
}

fn is_section(id: &str) -> bool {
    !id.is_empty()
        && id
            .split('.')
            .all(|p| !p.is_empty() && p.chars().all(|d| d.is_ascii_digit()))
}

/// Whether anchor `id` names something in spec text `text`: a paragraph opening with the rule
/// id in bold (`**T12.`), or a heading numbered with the section (`## 6.` or `### 6.2 `).
pub fn anchor_in(text: &str, id: &str) -> bool {
    if is_rule_id(id) {
        let bold = format!("**{}.", id.to_uppercase());
        text.lines().any(|l| l.starts_with(&bold))
    } else {
        text.lines().any(|l| {
            let h = l.trim_start_matches('#');
            h.len() < l.len()
                && h.strip_prefix(' ')
                    .and_then(|r| r.strip_prefix(id))
                    .is_some_and(|r| r.starts_with(['.', ' ']))
        })
    }
}

fn valid_label(l: &str) -> bool {
    !l.is_empty()
        && l.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
}

/// The load-time checks.
pub fn check(id: &str, s: &Scenario) -> Result<(), String> {
    if s.schema != SCHEMA_VERSION {
        return Err(format!(
            "schema {} is not the version this runner reads ({SCHEMA_VERSION})",
            s.schema
        ));
    }
    if s.id != id {
        return Err(format!("id {:?} must equal the file's path {id:?}", s.id));
    }
    let file = id.rsplit('/').next().unwrap_or(id);
    if !id.contains('/') {
        return Err("a scenario lives in an area folder: scenarios/<area>/".into());
    }
    if !file.starts_with(s.class.prefix()) {
        return Err(format!(
            "class {:?} needs the file prefix {}",
            s.class,
            s.class.prefix()
        ));
    }
    let rest = &file[2..];
    if rest.is_empty()
        || !rest
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return Err("file names are <prefix>_<lowercase-words-with-dashes>.yaml".into());
    }
    if s.spec.is_empty() {
        return Err("at least one spec anchor is needed".into());
    }
    for a in &s.spec {
        check_anchor(a)?;
    }
    let mut declared = BTreeSet::new();
    for f in &s.features {
        if !is_feature(f) {
            return Err(format!(
                "unknown feature {f:?}; known: {}",
                FEATURES.iter().map(|f| f.0).collect::<Vec<_>>().join(", ")
            ));
        }
        if !declared.insert(f.as_str()) {
            return Err(format!("feature {f:?} listed twice"));
        }
    }
    if s.steps.is_empty() {
        return Err("no steps".into());
    }
    let mut scope = Scope::default();
    let mut implied = BTreeSet::new();
    let mut labels = BTreeSet::new();
    let mut stats = Stats::default();
    check_steps(
        &s.steps,
        &mut scope,
        &mut implied,
        &mut labels,
        &mut stats,
        false,
    )
    .map_err(|(i, m)| format!("step {}: {m}", i + 1))?;
    for f in &implied {
        if !declared.contains(f) {
            return Err(format!(
                "the steps use feature {f:?}; list it under features"
            ));
        }
    }
    match s.class {
        Class::Accept if stats.rejections > 0 => {
            Err("a y_ scenario expects no rejection (use n_)".into())
        }
        Class::Reject if stats.errors == 0 => {
            Err("an n_ scenario needs an expect with an error class and field".into())
        }
        Class::ImplementationDefined if stats.any == 0 => Err(
            "an i_ scenario needs an expect with outcome: any or outcome: rejected (no class or field)"
                .into(),
        ),
        _ => Ok(()),
    }
}

#[derive(Debug, Default)]
struct Stats {
    rejections: usize,
    errors: usize,
    any: usize,
}

fn world_features(w: &WorldStep, implied: &mut BTreeSet<&'static str>) {
    if w.layers.is_some_and(|l| l > 1) {
        implied.insert("layers");
    }
    if w.links_per_tile.is_some_and(|l| l > 0) {
        implied.insert("off-mesh-links");
    }
}

type StepErr = (usize, String);

fn check_steps(
    steps: &[Step],
    scope: &mut Scope,
    implied: &mut BTreeSet<&'static str>,
    labels: &mut BTreeSet<String>,
    stats: &mut Stats,
    in_continue: bool,
) -> Result<(), StepErr> {
    for (i, step) in steps.iter().enumerate() {
        let at = |m: String| (i, m);
        if in_continue {
            match step.mesh_key() {
                Some(None) => {}
                Some(Some(_)) => {
                    return Err(at(format!(
                        "{} inside continue takes no mesh key: it applies to both meshes",
                        step.key()
                    )))
                }
                None => {
                    return Err(at(format!(
                        "{} is not a mesh operation; continue takes add_tile, remove_tile, \
                         replace_tile, set_area, set_flags, set_link, is_valid_ref, get_poly, \
                         snapshot and the queries",
                        step.key()
                    )))
                }
            }
        } else if let Some(m) = step.mesh_key() {
            match m {
                Some(m) => scope.want(m, Kind::Mesh).map_err(at)?,
                None => return Err(at(format!("{} needs a mesh key", step.key()))),
            }
        }
        if let Step::Expect(e) = step {
            if i == 0 || matches!(steps[i - 1], Step::Expect(_)) {
                return Err(at("expect follows the step it checks".into()));
            }
            let prev = &steps[i - 1];
            if matches!(prev, Step::World(_) | Step::Tiles(_) | Step::Continue(_)) {
                return Err(at(format!("{} has nothing to expect", prev.key())));
            }
            if (e.error.is_some() || e.outcome.is_some()) && prev.is_local() {
                return Err(at(format!(
                    "{} is computed by the runner and cannot be rejected",
                    prev.key()
                )));
            }
            if e.error.is_some() && e.outcome.is_some_and(|o| o != OutcomeKind::Rejected) {
                return Err(at("error implies outcome: rejected".into()));
            }
            if e.state.is_some() || e.same_state.is_some() {
                implied.insert("links");
                let acts_on_mesh =
                    prev.mesh_key().is_some() || matches!(prev, Step::RestoreInto(_));
                let makes_mesh = matches!(prev, Step::Restore(_) | Step::ReadMesh(_));
                if e.state.is_some() && !acts_on_mesh {
                    return Err(at(format!("{} has no mesh state before it", prev.key())));
                }
                if !acts_on_mesh && !makes_mesh {
                    return Err(at(format!("{} has no mesh to compare", prev.key())));
                }
            }
            if let Some(m) = &e.same_state {
                scope.want(m, Kind::Mesh).map_err(at)?;
            }
            for b in [&e.equals, &e.differs].into_iter().flatten() {
                scope.want(b, Kind::Bytes).map_err(at)?;
            }
            if let Some(t) = &e.tile_ref {
                scope.want_ref(t).map_err(at)?;
            }
            if let Some(links) = &e.links {
                for l in links {
                    scope.want_ref(&l.to).map_err(at)?;
                    if !["internal", "portal", "to_off_mesh", "from_off_mesh"]
                        .contains(&l.kind.as_str())
                    {
                        return Err(at(format!("link kind {:?} is unknown", l.kind)));
                    }
                }
            }
            if let Some(g) = &e.golden {
                if !valid_label(g) {
                    return Err(at(format!("golden label {g:?}: use a-z, 0-9, '-' and '_'")));
                }
                if !labels.insert(g.clone()) {
                    return Err(at(format!("golden label {g:?} used twice")));
                }
            }
            if let Some(q) = &e.query {
                if crate::query::Op::of(prev.key()).is_none() {
                    return Err(at(format!("{} is not a query", prev.key())));
                }
                for r in q.refs() {
                    scope.want_ref(r).map_err(at)?;
                }
            }
            if let Some(h) = &e.sha256 {
                if h.len() != 64 || parse_hex(h).is_err() {
                    return Err(at("sha256 is 64 hex digits".into()));
                }
            }
            for b in e.bytes_at.iter().flatten() {
                parse_hex(&b.hex).map_err(at)?;
            }
            if let Some(id) = &e.id {
                if id != "sha256" && (id.len() != 64 || parse_hex(id).is_err()) {
                    return Err(at("id is 64 hex digits or sha256".into()));
                }
            }
            if e.error.is_some() {
                stats.errors += 1;
            }
            if e.admits_rejection() {
                stats.rejections += 1;
            }
            if e.error.is_none() && e.outcome.is_some_and(|o| o != OutcomeKind::Ok) {
                stats.any += 1;
            }
            continue;
        }
        check_step(step, scope, implied).map_err(at)?;
        if let Step::Continue(c) = step {
            if in_continue {
                return Err(at("continue does not nest".into()));
            }
            scope.want(&c.meshes.0, Kind::Mesh).map_err(at)?;
            scope.want(&c.meshes.1, Kind::Mesh).map_err(at)?;
            implied.insert("links");
            if c.ops.is_empty() {
                return Err(at("continue needs operations".into()));
            }
            check_steps(&c.ops, scope, implied, labels, stats, true)
                .map_err(|(j, m)| (i, format!("operation {}: {m}", j + 1)))?;
        }
    }
    Ok(())
}

fn check_step(
    step: &Step,
    scope: &mut Scope,
    implied: &mut BTreeSet<&'static str>,
) -> Result<(), String> {
    let bytes = |scope: &Scope, n: &str| scope.want(n, Kind::Bytes);
    match step {
        Step::World(w) => {
            if let Some(l) = &w.like {
                scope.want(l, Kind::World)?;
            }
            world_features(w, implied);
            scope.def(&w.name, Kind::World)?;
        }
        Step::Tile(t) => {
            scope.want(&t.world, Kind::World)?;
            scope.def(&t.name, Kind::Bytes)?;
        }
        Step::Tiles(t) => {
            scope.want(&t.world, Kind::World)?;
            for n in &t.names {
                scope.def(n, Kind::Bytes)?;
            }
        }
        Step::Bytes(b) => {
            match (&b.hex, &b.file) {
                (Some(h), None) => {
                    parse_hex(h)?;
                }
                (None, Some(f)) => {
                    if f.split('/').any(|c| c == ".." || c.is_empty()) || f.starts_with('/') {
                        return Err(format!(
                            "file {f:?}: a relative path below the folder, without '..'"
                        ));
                    }
                }
                _ => return Err("bytes: give hex or file".into()),
            }
            scope.def(&b.name, Kind::Bytes)?;
        }
        Step::RawTile(r) => {
            bytes(scope, &r.from)?;
            for e in &r.edits {
                match e {
                    RawEdit::DigestOf(w) => scope.want(w, Kind::World)?,
                    RawEdit::AddLink { .. } => {
                        implied.insert("off-mesh-links");
                    }
                    _ => {}
                }
            }
            scope.def(&r.name, Kind::Bytes)?;
        }
        Step::NewMesh(n) => {
            implied.insert("navmesh");
            match (&n.world, n.slots, &n.params) {
                (Some(w), Some(_), None) => scope.want(w, Kind::World)?,
                (None, None, Some(p))
                    if n.origin.is_none() && n.tile_size.is_none() && n.digest_of.is_none() =>
                {
                    if parse_hex(p)?.len() != 68 {
                        return Err("params is the 68-byte parameter block".into());
                    }
                }
                _ => {
                    return Err(
                        "new_mesh takes world and slots (with optional overrides), or params"
                            .into(),
                    )
                }
            }
            if let Some(d) = &n.digest_of {
                scope.want(d, Kind::World)?;
            }
            scope.def(&n.name, Kind::Mesh)?;
        }
        Step::AddTile(a) | Step::ReplaceTile(a) => {
            bytes(scope, &a.tile)?;
            if let Some(n) = &a.name {
                scope.def(n, Kind::Ref)?;
            }
        }
        Step::RemoveTile(r) => scope.want_ref(&r.tile_ref)?,
        Step::SetArea(SetAreaStep { poly, .. })
        | Step::SetFlags(SetFlagsStep { poly, .. })
        | Step::IsValidRef(PolyStep { poly, .. }) => scope.want_ref(poly)?,
        Step::GetPoly(p) => {
            implied.insert("links");
            scope.want_ref(&p.poly)?;
        }
        Step::SetLink(s) => {
            implied.insert("off-mesh-links");
            scope.want_ref(&s.tile_ref)?;
        }
        Step::Snapshot(s) => {
            implied.insert(match s.mode {
                Mode::Full => "snapshot-full",
                Mode::Referenced => "snapshot-referenced",
            });
            scope.def(&s.name, Kind::Bytes)?;
        }
        Step::Restore(r) => {
            implied.insert("snapshot-full");
            if !r.library.is_empty() {
                implied.insert("snapshot-referenced");
            }
            bytes(scope, &r.bytes)?;
            for l in &r.library {
                bytes(scope, l)?;
            }
            scope.def(&r.name, Kind::Mesh)?;
        }
        Step::RestoreInto(r) => {
            implied.insert("restore-in-place");
            if !r.library.is_empty() {
                implied.insert("snapshot-referenced");
            }
            scope.want(&r.mesh, Kind::Mesh)?;
            bytes(scope, &r.bytes)?;
            for l in &r.library {
                bytes(scope, l)?;
            }
        }
        Step::WriteMesh(w) => {
            implied.insert("meshfile");
            scope.want(&w.mesh, Kind::Mesh)?;
            scope.def(&w.name, Kind::Bytes)?;
        }
        Step::ReadMesh(r) => {
            implied.insert("meshfile");
            bytes(scope, &r.bytes)?;
            scope.def(&r.name, Kind::Mesh)?;
        }
        Step::ParseTile(p) => {
            implied.insert("tile");
            bytes(scope, &p.tile)?;
            if let Some(n) = &p.name {
                scope.def(n, Kind::Bytes)?;
            }
        }
        Step::ContentId(c) => {
            implied.insert("tile");
            bytes(scope, &c.tile)?;
        }
        Step::Patch(p) => {
            bytes(scope, &p.from)?;
            if p.edits.is_empty() {
                return Err("a patch needs edits".into());
            }
            for e in &p.edits {
                check_patch_edit(e, scope)?;
            }
            scope.def(&p.name, Kind::Bytes)?;
        }
        Step::Expect(_) | Step::Continue(_) => {}
        Step::FindNearestPoly(q)
        | Step::FindPath(q)
        | Step::FindStraightPath(q)
        | Step::Raycast(q) => {
            let op = crate::query::Op::of(step.key()).ok_or("not a query")?;
            implied.insert(op.feature());
            q.check(op, &|r: &str| scope.want_ref(r))?;
        }
    }
    Ok(())
}

fn check_patch_edit(e: &PatchEdit, scope: &Scope) -> Result<(), String> {
    fn one(n: usize, what: &str) -> Result<(), String> {
        if n == 1 {
            Ok(())
        } else {
            Err(format!("{what}: give exactly one"))
        }
    }
    match e {
        PatchEdit::Set(s) => {
            one(
                usize::from(s.field.is_some()) + usize::from(s.offset.is_some()),
                "set: field or offset",
            )?;
            one(
                usize::from(s.value.is_some())
                    + usize::from(s.add.is_some())
                    + usize::from(s.hex.is_some())
                    + usize::from(s.sha256_of.is_some()),
                "set: value, add, hex or sha256_of",
            )?;
            if let Some(b) = &s.sha256_of {
                scope.want(b, Kind::Bytes)?;
            }
            if s.offset.is_some() && s.hex.is_none() {
                return Err("set at an offset takes hex".into());
            }
            if let Some(h) = &s.hex {
                parse_hex(h)?;
            }
        }
        PatchEdit::Flip(f) => one(
            usize::from(f.field.is_some()) + usize::from(f.offset.is_some()),
            "flip: field or offset",
        )?,
        PatchEdit::Truncate(t) => one(
            usize::from(t.keep.is_some())
                + usize::from(t.drop.is_some())
                + usize::from(t.at.is_some()),
            "truncate: keep, drop or at",
        )?,
        PatchEdit::Append(h) => {
            parse_hex(h)?;
        }
        PatchEdit::Copy(_) | PatchEdit::FitLength(_) => {}
        PatchEdit::Splice(s) => {
            one(
                usize::from(s.field.is_some())
                    + usize::from(s.before.is_some())
                    + usize::from(s.after.is_some())
                    + usize::from(s.offset.is_some()),
                "splice: field, before, after or offset",
            )?;
            if s.remove.is_some() && s.offset.is_none() {
                return Err("splice: remove goes with offset".into());
            }
            if s.until.is_some() && (s.offset.is_some() || s.after.is_some() || s.field.is_some()) {
                return Err("splice: until goes with before".into());
            }
            one(
                usize::from(s.hex.is_some()) + usize::from(s.blob.is_some()),
                "splice: hex or blob",
            )?;
            if let Some(h) = &s.hex {
                parse_hex(h)?;
            }
            if let Some(b) = &s.blob {
                scope.want(b, Kind::Bytes)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_floats_accept_shortest_decimals_and_bits_only() {
        for (s, v) in [
            ("16", 16.0),
            ("16.0", 16.0),
            ("0.1", 0.1),
            ("-0.5", -0.5),
            ("1e-3", 0.001),
            ("0.30000000000000004", 0.1 + 0.2),
            ("0x3fb999999999999a", 0.1),
            ("-0", -0.0),
            ("0.02", 0.02),
        ] {
            let got = parse_exact(s).unwrap();
            assert_eq!(got.to_bits(), f64::to_bits(v), "{s}");
        }
        for s in [
            "0.1000000000000000055511151231257827",
            "0.30000000000000000001",
            "nan",
            "inf",
            "0x7ff0000000000000",
            "0x12",
            "1/3",
            "",
        ] {
            assert!(parse_exact(s).is_err(), "{s}");
        }
    }

    #[test]
    fn hex_ignores_whitespace_and_comments() {
        assert_eq!(
            parse_hex("4f4e 544c   # magic\n0200 # version\n").unwrap(),
            b"ONTL\x02\x00"
        );
        assert!(parse_hex("4f4").is_err());
        assert!(parse_hex("zz").is_err());
    }

    #[test]
    fn references_parse() {
        assert_eq!(RefSpec::parse("0x10").unwrap(), RefSpec::Raw(16));
        let p = RefSpec::parse("2:1:3").unwrap();
        assert_eq!(p.resolve(|_| None), Some(2 << 40 | 1 << 20 | 3));
        let n = RefSpec::parse("ra#5").unwrap();
        assert_eq!(n.resolve(|_| Some(1 << 40)), Some(1 << 40 | 5));
        for bad in ["1:2", "x#y", "16777216:0:0", "#3", "0xg"] {
            assert!(RefSpec::parse(bad).is_err(), "{bad}");
        }
    }

    const OK: &str = "
schema: 1
id: snapshot/n_example
title: example
class: reject
spec: [snapshot.md#s1]
features: [navmesh, snapshot-full]
steps:
  - world: {name: w, columns: 1, rows: 1}
  - tile: {name: a, world: w, at: [0, 0, 0]}
  - new_mesh: {name: m, world: w, slots: 1}
  - add_tile: {mesh: m, tile: a, name: ra}
  - snapshot: {mesh: m, mode: full, name: s}
  - patch:
      from: s
      name: bad
      edits:
        - set: {field: magic, value: '0x58535058'}
  - restore: {bytes: bad, name: m2}
  - expect: {error: {class: format, field: magic}}
";

    #[test]
    fn load_checks() {
        load_str("snapshot/n_example", OK).unwrap();
        let cases = [
            (
                "snapshot/y_example",
                &OK.replace("n_example", "y_example"),
                "prefix",
            ),
            ("snapshot/n_other", &OK.to_string(), "must equal"),
            (
                "snapshot/n_example",
                &OK.replace("schema: 1", "schema: 2"),
                "schema",
            ),
            (
                "snapshot/n_example",
                &OK.replace("[navmesh, snapshot-full]", "[navmesh]"),
                "snapshot-full",
            ),
            (
                "snapshot/n_example",
                &OK.replace("[navmesh, ", "[bogus, navmesh, "),
                "unknown feature",
            ),
            (
                "snapshot/n_example",
                &OK.replace("bytes: bad", "bytes: nope"),
                "not defined",
            ),
            (
                "snapshot/n_example",
                &OK.replace("title: example", "title: example\nextra: 1"),
                "unknown field",
            ),
            (
                "snapshot/n_example",
                &OK.replace("columns: 1", "columns: 1, colums: 2"),
                "unknown field",
            ),
            (
                "snapshot/n_example",
                &OK.replace("{error: {class: format, field: magic}}", "{outcome: any}"),
                "error class",
            ),
            (
                "snapshot/n_example",
                &OK.replace("spec: [snapshot.md#s1]", "spec: [snapshot]"),
                "anchor",
            ),
            (
                "snapshot/n_example",
                &OK.replace("  - expect:", "  - expect: {outcome: ok}\n  - expect:"),
                "follows",
            ),
            (
                "snapshot/n_example",
                &OK.replace("add_tile: {mesh: m,", "add_tile: {"),
                "needs a mesh",
            ),
        ];
        for (id, text, want) in cases {
            let e = load_str(id, text).unwrap_err();
            assert!(e.contains(want), "{id}: {e}");
        }
    }
}
