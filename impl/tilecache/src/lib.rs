//! onav-tilecache: a deterministic tile cache over the 3D builder — temporary obstacles, run-time
//! area volumes and a rebuild queue that never drops work, rebuilding tiles through the
//! builder's own pipeline, and the `ONTK` snapshot with all-or-nothing restore.
//!
//! The normative description is `spec/tilecache.md`. Data flows one way: `shape` (validated
//! obstacles and volumes, each with its build3d mark) → `cache` (the run state, `update` through
//! `onav_build3d::Plan::finish` into the cache's `TiledNavMesh`) → `snapshot` (`ONTK` written
//! from and restored into a cache). `world` holds what is state of the world (the plan and the
//! per-cell intermediates), `queue` the rebuild queue, `limits` every cap.
#![forbid(unsafe_code)]

mod cache;
mod error;
mod ids;
pub mod limits;
mod queue;
mod shape;
mod snapshot;
mod world;

pub use cache::{CacheOptions, TileCache, UpdateReport};
pub use error::{CacheError, CreateError, UpdateError, UpdateErrorKind};
pub use ids::{ObstacleId, VolumeId};
pub use shape::{
    oriented_box_corners, Obstacle, ObstacleShape, ShapeError, Volume, SHAPE_BOX, SHAPE_CYLINDER,
    SHAPE_ORIENTED_BOX,
};
pub use snapshot::{
    check_without_cache, FromSnapshotError, SnapshotSummary, ValidatedCacheSnapshot, ONTK_MAGIC,
    ONTK_VERSION,
};
