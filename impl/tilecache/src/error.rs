//! Error types of the tile cache's operations (`spec/tilecache.md` §7). Snapshot restores report
//! onav's [`onav::RestoreError`] (format or fingerprint, with the byte offset and field path).

use onav::{FormatError, MeshError};
use onav_build3d::{BuildError, ObjError, TileCell};

use crate::ids::{ObstacleId, VolumeId};

/// Why an obstacle or volume operation was refused; the cache is unchanged (TC2, TC7).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CacheError {
    /// The next obstacle id is 2^31 − 1: no id is left to give.
    #[error("obstacle ids exhausted (next id {next})")]
    ObstacleIdsExhausted {
        /// The next id.
        next: u32,
    },
    /// The next volume id is 2^31 − 1: no id is left to give.
    #[error("volume ids exhausted (next id {next})")]
    VolumeIdsExhausted {
        /// The next id.
        next: u32,
    },
    /// The cache holds the most obstacles a snapshot can list.
    #[error("the cache holds {max} obstacles already")]
    TooManyObstacles {
        /// The cap, 2^20.
        max: u32,
    },
    /// The cache holds the most volumes a snapshot can list.
    #[error("the cache holds {max} volumes already")]
    TooManyVolumes {
        /// The cap, 2^20.
        max: u32,
    },
    /// No obstacle has this id.
    #[error("no obstacle {id}")]
    UnknownObstacle {
        /// The id given.
        id: ObstacleId,
    },
    /// No volume has this id.
    #[error("no volume {id}")]
    UnknownVolume {
        /// The id given.
        id: VolumeId,
    },
}

/// Why a cache could not be created (TC1).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CreateError {
    /// The OBJ bytes.
    #[error(transparent)]
    Obj(#[from] ObjError),
    /// The settings encoding (field path and offset within it).
    #[error("settings: {0}")]
    Settings(FormatError),
    /// The build (a limit of `spec/build3d.md` §16, or a tile cell that failed).
    #[error(transparent)]
    Build(#[from] BuildError),
    /// The slot count asked for is below the number of tiles of the build, or above the
    /// mesh's largest slot count.
    #[error("slot count {asked} does not fit {tiles} tiles (at most {max})")]
    SlotCount {
        /// The slot count asked for.
        asked: u32,
        /// Tiles of the build.
        tiles: usize,
        /// The largest slot count of a mesh.
        max: u32,
    },
    /// The mesh refused a tile of the build (a builder bug).
    #[error("mesh: {0}")]
    Mesh(MeshError),
}

/// What went wrong in [`crate::TileCache::update`]: the cell at the front of the queue that could
/// not be rebuilt. It stays at the front; the cells before it were rebuilt and left the queue
/// (TC12).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("tile cell {cell}: {kind}")]
pub struct UpdateError {
    /// The cell.
    pub cell: TileCell,
    /// Why.
    pub kind: UpdateErrorKind,
}

/// Why a cell could not be rebuilt.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum UpdateErrorKind {
    /// The builder failed (a limit of `spec/build3d.md` §16, a triangulation, ...).
    #[error(transparent)]
    Build(#[from] BuildError),
    /// The cell needs more tiles than the mesh has free slots (TC13); the cell is unchanged.
    #[error("needs {needed} free slots, {free} free")]
    NoFreeSlot {
        /// Free slots the cell's new tiles need.
        needed: usize,
        /// Free slots the mesh has (after the cell's removed tiles).
        free: usize,
    },
    /// The mesh refused a tile (only a mesh whose Full snapshot would pass 4 GiB can).
    #[error("mesh: {0}")]
    Mesh(MeshError),
}
