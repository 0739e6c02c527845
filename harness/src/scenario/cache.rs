//! Tile cache steps (`spec/conformance.md` §1.14): a cache from OBJ bytes and settings bytes,
//! its obstacles, volumes, `update`, `ONTK` snapshots and restores — each the request of the same
//! name in the testee protocol (§6.6, "Tile caches"). A cache's name is also a mesh name: the mesh
//! steps (`snapshot`, the queries, `get_poly`, …) and `state`/`same_state` act on its mesh, and a
//! cache's observed state includes its Full `ONTK` snapshot.

use serde::{Deserialize, Serialize};

use super::model::Mode;
use super::numbers::Exact;

/// `cache`: a new cache of `obj` (OBJ bytes) built with `settings` (settings bytes), with `slots`
/// mesh slots (default: `spec/tilecache.md` TC1).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct CacheStep {
    pub name: String,
    pub obj: String,
    pub settings: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slots: Option<u32>,
}

/// An obstacle shape's name (`spec/tilecache.md` TC3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)]
pub enum ShapeName {
    Cylinder,
    Box,
    OrientedBox,
}

impl ShapeName {
    /// The wire name.
    pub fn wire(self) -> &'static str {
        match self {
            ShapeName::Cylinder => "cylinder",
            ShapeName::Box => "box",
            ShapeName::OrientedBox => "oriented_box",
        }
    }

    /// How many values the shape has (TC3): 5, 6 or 7.
    pub fn value_count(self) -> usize {
        match self {
            ShapeName::Cylinder => 5,
            ShapeName::Box => 6,
            ShapeName::OrientedBox => 7,
        }
    }
}

/// `add_obstacle`: a shape and its values in the order of TC3.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct ObstacleStep {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<String>,
    pub shape: ShapeName,
    pub values: Vec<Exact>,
}

/// `add_volume`: an area volume (TC5), corners (x, z) in either winding.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct CacheVolumeStep {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<String>,
    pub area: u8,
    pub min_y: Exact,
    pub max_y: Exact,
    pub polygon: Vec<[Exact; 2]>,
}

/// `remove_obstacle`, `remove_volume`: the id an add answered.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct RemoveIdStep {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<String>,
    pub id: u32,
}

/// `update`: rebuild at most `max_tiles` queued cells (TC11).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct UpdateStep {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<String>,
    pub max_tiles: u64,
}

/// `cache_snapshot`: the cache's `ONTK` bytes, its mesh in `mode`, stored under `name`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct CacheSnapshotStep {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<String>,
    pub mode: Mode,
    pub name: String,
}

/// `cache_restore`: a new cache of `obj` and `settings` (and `slots`) in the state of `ONTK`
/// bytes, Referenced mesh tiles also looked up in `library` (TC32).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct CacheRestoreStep {
    pub obj: String,
    pub settings: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slots: Option<u32>,
    pub bytes: String,
    #[serde(default)]
    pub library: Vec<String>,
    pub name: String,
}

/// `cache_restore_into`: `ONTK` bytes restored into a cache in place, all or nothing (TC31).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct CacheRestoreIntoStep {
    pub cache: String,
    pub bytes: String,
    #[serde(default)]
    pub library: Vec<String>,
}

/// The reply fields a cache step's `expect: {cache: …}` may name after an add: the id it
/// answered (TC2).
pub const ADD_REPLY_KEYS: &[&str] = &["id"];

/// The reply fields of `update`: its counts (TC11, TC13).
pub const UPDATE_REPLY_KEYS: &[&str] = &[
    "cells",
    "added",
    "replaced",
    "removed",
    "unchanged",
    "remaining",
];
