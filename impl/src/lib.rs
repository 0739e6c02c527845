//! onav: deterministic tiled navigation meshes whose whole dynamic state snapshots to canonical
//! bytes and restores exactly. Normative specs live in the repository's `spec/` folder.
#![forbid(unsafe_code)]

pub mod bytes;
pub mod error;
pub mod geom;
pub mod ids;
pub mod limits;
pub mod params;
pub mod tile;

pub use error::{FingerprintError, FormatError, FormatReason, MeshError, RestoreError};
pub use ids::{Generation, PolyIndex, PolyRef, Side, SlotIndex, TileContentId, TilePos, TileRef};
pub use params::{Grid, MeshParams, SettingsDigest};
pub use tile::{
    AgentSizes, DetailMesh, Edge, LinkDirection, NavTile, OffMeshLink, Polygon, RawTile,
};
