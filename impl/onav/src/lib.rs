//! onav: deterministic tiled navigation meshes whose whole dynamic state snapshots to canonical
//! bytes and restores exactly. Normative specs live in the repository's `spec/` folder.
#![forbid(unsafe_code)]

pub mod bytes;
pub mod error;
#[cfg(any(test, feature = "testkit"))]
pub mod generator;
pub mod geom;
mod hash;
pub mod ids;
pub mod library;
pub mod limits;
pub mod mesh;
pub mod meshfile;
mod par;
pub mod params;
pub mod query;
mod record;
pub mod snapshot;
pub mod stitch;
#[cfg(any(test, feature = "testkit"))]
pub mod testing;
pub mod tile;

pub use error::{FingerprintError, FormatError, FormatReason, MeshError, RestoreError};
#[cfg(any(test, feature = "testkit"))]
pub use generator::WorldSpec;
pub use ids::{
    Generation, LinkIndex, PolyIndex, PolyRef, SettingsDigest, Side, SlotIndex, TileContentId,
    TilePos, TileRef,
};
pub use library::TileLibrary;
pub use mesh::TiledNavMesh;
pub use meshfile::{read_mesh, write_mesh};
pub use params::{Grid, MeshParams, RawGrid, RawParams};
pub use query::{
    NavMeshQuery, NearestPoly, PathResult, PathStatus, QueryError, QueryFilter, RaycastHit,
    RaycastOptions, RaycastStop, StraightPathFlags, StraightPathOptions, StraightPoint,
};
pub use snapshot::{NavMeshSnapshot, SnapshotMode, ValidatedSnapshot};
pub use stitch::{Link, LinkEnd, LinkKind, TileLinks};
pub use tile::{
    AgentSizes, DetailMesh, Edge, LinkDirection, NavTile, OffMeshLink, Polygon, RawTile,
};
