//! The testee protocol (`spec/conformance.md` §4), version 1: frames of a u32 little-endian
//! length then UTF-8 JSON. Requests carry `"op"`; bytes are base64; u64 references are `"0x…"`
//! with 16 hex digits; floats are JSON numbers that round-trip exactly; mesh handles are opaque
//! JSON values passed back unchanged.
//!
//! The same `Request` / `Reply` values drive the in-process reference and an external testee, so
//! the runner has one code path.

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub mod build;
pub mod cache;
pub mod frame;
pub mod query;
pub mod wire;

pub use frame::{read_frame, write_frame, MAX_FRAME};

/// The protocol version this runner offers first, and the one the reference testee speaks by
/// default (`spec/conformance.md` §6.11).
pub const PROTOCOL_VERSION: u32 = 2;

/// Every protocol version this runner and the reference testee speak, newest first. Version 2
/// adds to version 1 the rule that a `format` or `fingerprint` rejection carries its `offset`,
/// which the runner compares, and the string forms of non-finite floats.
pub const PROTOCOLS: &[u32] = &[2, 1];

/// Every op of protocol version 1, in the order of the specification.
pub const OPS: &[&str] = &[
    "hello",
    "new_mesh",
    "add_tile",
    "remove_tile",
    "replace_tile",
    "set_poly_area",
    "set_poly_flags",
    "get_poly",
    "set_link_enabled",
    "is_valid_ref",
    "snapshot",
    "restore",
    "restore_into",
    "write_mesh",
    "read_mesh",
    "tile_roundtrip",
    "content_id",
    "find_nearest_poly",
    "find_path",
    "find_straight_path",
    "raycast",
    "corridor_cost",
    "build",
    "cache_new",
    "cache_add_obstacle",
    "cache_remove_obstacle",
    "cache_add_volume",
    "cache_remove_volume",
    "cache_update",
    "cache_snapshot",
    "cache_restore",
    "cache_restore_into",
    "drop",
    "bye",
];

/// One request. Field names are the wire names.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
#[allow(missing_docs)]
pub enum Request {
    Hello {
        protocol: u32,
    },
    NewMesh {
        params: String,
    },
    AddTile {
        mesh: Value,
        tile: String,
    },
    RemoveTile {
        mesh: Value,
        tile_ref: String,
    },
    ReplaceTile {
        mesh: Value,
        tile: String,
    },
    SetPolyArea {
        mesh: Value,
        poly_ref: String,
        area: u8,
    },
    SetPolyFlags {
        mesh: Value,
        poly_ref: String,
        flags: u16,
    },
    GetPoly {
        mesh: Value,
        poly_ref: String,
    },
    SetLinkEnabled {
        mesh: Value,
        tile_ref: String,
        link: u32,
        enabled: bool,
    },
    IsValidRef {
        mesh: Value,
        poly_ref: String,
    },
    Snapshot {
        mesh: Value,
        mode: String,
    },
    Restore {
        bytes: String,
        library: Vec<String>,
    },
    RestoreInto {
        mesh: Value,
        bytes: String,
        library: Vec<String>,
    },
    WriteMesh {
        mesh: Value,
    },
    ReadMesh {
        bytes: String,
    },
    TileRoundtrip {
        tile: String,
    },
    ContentId {
        tile: String,
    },
    /// Query ops carry their own argument object (`spec/conformance.md` §4.5).
    FindNearestPoly {
        mesh: Value,
        args: Value,
    },
    FindPath {
        mesh: Value,
        args: Value,
    },
    FindStraightPath {
        mesh: Value,
        args: Value,
    },
    Raycast {
        mesh: Value,
        args: Value,
    },
    /// The cost of a given corridor (`spec/queries.md` P6).
    CorridorCost {
        mesh: Value,
        args: Value,
    },
    /// OBJ bytes and the settings encoding to tiles (`spec/conformance.md` §6.6, `build`).
    Build {
        obj: String,
        settings: String,
    },
    /// A tile cache from OBJ bytes and settings, with `slots` mesh slots or the default
    /// (`spec/conformance.md` §6.6, "Tile caches"). The reply's `cache` handle is also a mesh
    /// handle: mesh ops on it act on the cache's mesh.
    CacheNew {
        obj: String,
        settings: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        slots: Option<u32>,
    },
    /// An obstacle: `shape` is `cylinder`, `box` or `oriented_box`, `values` its 5, 6 or 7 floats.
    CacheAddObstacle {
        cache: Value,
        shape: String,
        values: Vec<Value>,
    },
    CacheRemoveObstacle {
        cache: Value,
        id: u32,
    },
    /// An area volume: corners (x, z) in either winding.
    CacheAddVolume {
        cache: Value,
        area: u8,
        min_y: Value,
        max_y: Value,
        polygon: Vec<[Value; 2]>,
    },
    CacheRemoveVolume {
        cache: Value,
        id: u32,
    },
    CacheUpdate {
        cache: Value,
        max_tiles: u64,
    },
    CacheSnapshot {
        cache: Value,
        mode: String,
    },
    /// A new cache of the geometry and settings, in the `ONTK` snapshot's state.
    CacheRestore {
        obj: String,
        settings: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        slots: Option<u32>,
        bytes: String,
        library: Vec<String>,
    },
    CacheRestoreInto {
        cache: Value,
        bytes: String,
        library: Vec<String>,
    },
    Drop {
        mesh: Value,
    },
    Bye {},
}

impl Request {
    /// The op name on the wire.
    pub fn op(&self) -> &'static str {
        match self {
            Request::Hello { .. } => "hello",
            Request::NewMesh { .. } => "new_mesh",
            Request::AddTile { .. } => "add_tile",
            Request::RemoveTile { .. } => "remove_tile",
            Request::ReplaceTile { .. } => "replace_tile",
            Request::SetPolyArea { .. } => "set_poly_area",
            Request::SetPolyFlags { .. } => "set_poly_flags",
            Request::GetPoly { .. } => "get_poly",
            Request::SetLinkEnabled { .. } => "set_link_enabled",
            Request::IsValidRef { .. } => "is_valid_ref",
            Request::Snapshot { .. } => "snapshot",
            Request::Restore { .. } => "restore",
            Request::RestoreInto { .. } => "restore_into",
            Request::WriteMesh { .. } => "write_mesh",
            Request::ReadMesh { .. } => "read_mesh",
            Request::TileRoundtrip { .. } => "tile_roundtrip",
            Request::ContentId { .. } => "content_id",
            Request::FindNearestPoly { .. } => "find_nearest_poly",
            Request::FindPath { .. } => "find_path",
            Request::FindStraightPath { .. } => "find_straight_path",
            Request::Raycast { .. } => "raycast",
            Request::CorridorCost { .. } => "corridor_cost",
            Request::Build { .. } => "build",
            Request::CacheNew { .. } => "cache_new",
            Request::CacheAddObstacle { .. } => "cache_add_obstacle",
            Request::CacheRemoveObstacle { .. } => "cache_remove_obstacle",
            Request::CacheAddVolume { .. } => "cache_add_volume",
            Request::CacheRemoveVolume { .. } => "cache_remove_volume",
            Request::CacheUpdate { .. } => "cache_update",
            Request::CacheSnapshot { .. } => "cache_snapshot",
            Request::CacheRestore { .. } => "cache_restore",
            Request::CacheRestoreInto { .. } => "cache_restore_into",
            Request::Drop { .. } => "drop",
            Request::Bye {} => "bye",
        }
    }
}

/// A reply. `Ok` carries op-specific fields (`mesh`, `tile_ref`, `bytes`, `area`, `flags`,
/// `valid`, `id`, `impl`, `ops`, `features`, query results) flattened beside `"result":"ok"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "result", rename_all = "snake_case")]
#[allow(missing_docs)]
pub enum Reply {
    Ok {
        #[serde(flatten)]
        fields: serde_json::Map<String, Value>,
    },
    Rejected {
        class: String,
        field: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        offset: Option<u64>,
        #[serde(default)]
        message: String,
    },
    Unsupported {},
    Error {
        message: String,
    },
}

impl Reply {
    /// An ok reply with these fields.
    pub fn ok(fields: impl IntoIterator<Item = (&'static str, Value)>) -> Self {
        Reply::Ok {
            fields: fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect(),
        }
    }

    /// A rejection from a restore or read error.
    pub fn rejected(e: &onav::RestoreError) -> Self {
        Reply::Rejected {
            class: e.class().into(),
            field: e.field().into(),
            offset: e.offset(),
            message: e.to_string(),
        }
    }
}

/// Why a backend could not answer at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BackendFailure {
    /// The testee exited, or sent a malformed frame.
    Crash(String),
    /// The testee did not answer in time.
    Timeout,
}

/// Something that answers requests: the in-process reference, or a testee subprocess.
pub trait Backend {
    /// Answers one request.
    fn call(&mut self, req: &Request) -> Result<Reply, BackendFailure>;

    /// True if the backend answers `op` (a testee: listed it in its `hello` reply). The runner
    /// sends no op a backend does not support.
    fn supports(&self, _op: &str) -> bool {
        true
    }

    /// True if the backend has `feature` (a testee: listed it in its `hello` reply). The runner
    /// skips cases needing a feature the backend lacks.
    fn has_feature(&self, _feature: &str) -> bool {
        true
    }

    /// The protocol version agreed in the handshake (a testee: the one its `hello` accepted).
    /// From version 2 on, the runner compares the offsets of rejections.
    fn protocol(&self) -> u32 {
        PROTOCOL_VERSION
    }

    /// The runner starts step `index` (from 1, as in reports) of a scenario, a step of kind
    /// `key`: the requests until the next call serve it. Backends ignore it; the runner's
    /// wrappers that record a case's transcript or compare it with the reference use it.
    fn begin_step(&mut self, _index: usize, _key: &'static str) {}
}

/// `0x` and 16 lowercase hex digits.
pub fn ref_to_hex(v: u64) -> String {
    format!("0x{v:016x}")
}

/// Parses `0x` (lower-case x) and 1 to 16 hex digits of either case, nothing else: no `0X`, no
/// sign (which `from_str_radix` would take), no space (`spec/conformance.md` §6.3).
pub fn ref_from_hex(s: &str) -> Option<u64> {
    let h = s.strip_prefix("0x")?;
    if h.is_empty() || h.len() > 16 || !h.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u64::from_str_radix(h, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `spec/conformance.md` §6.3: `0x`, 1 to 16 hex digits of either case, nothing else.
    #[test]
    fn references_read_only_their_one_syntax() {
        assert_eq!(ref_from_hex("0x1"), Some(1));
        assert_eq!(ref_from_hex("0xABCdef"), Some(0xabcdef));
        assert_eq!(ref_from_hex("0xffffffffffffffff"), Some(u64::MAX));
        for bad in [
            "0X1",
            "0x+1",
            "0x-1",
            "0x 1",
            "0x",
            "1",
            "0x10000000000000000",
            "0x1 ",
        ] {
            assert_eq!(ref_from_hex(bad), None, "{bad}");
        }
        assert_eq!(ref_to_hex(1), "0x0000000000000001");
    }
}
