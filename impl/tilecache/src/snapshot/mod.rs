//! The tile cache snapshot `ONTK`, version 1 (`spec/tilecache.md` §6): the canonical writer and
//! the restore, which validates everything in three stages before it changes anything:
//!
//! A. the `ONTK` framing and values, in byte order, obstacles and volumes through their
//!    constructors (module `read`);
//! B. the embedded mesh snapshot, with all its own rules (`spec/snapshot.md`), as an in-place
//!    restore into the cache's mesh (so its fingerprint and parameters are compared first),
//!    errors nested under `mesh.` at their absolute offsets;
//! C. the queue against the cache: at most the number of cached cells, each a cached cell.
//!
//! Then the mesh is committed (it cannot fail) and the lists are swapped in.

mod read;
mod write;

use std::collections::BTreeMap;

use onav::{FormatError, FormatReason, RestoreError, SnapshotMode, TileLibrary, ValidatedSnapshot};
use onav_build3d::{Geometry, Settings};

use crate::cache::{CacheOptions, Entry, TileCache};
use crate::error::CreateError;
use crate::ids::{ObstacleId, VolumeId};
use crate::queue::RebuildQueue;
use crate::shape::{Obstacle, Volume};

/// Snapshot magic, "ONTK".
pub const ONTK_MAGIC: [u8; 4] = *b"ONTK";
/// The snapshot version.
pub const ONTK_VERSION: u16 = 1;

/// An `ONTK` snapshot that passed every check of a restore into one cache (stages A–C): the
/// complete new state, built on the side. Only [`TileCache::check_restore`] makes one and
/// [`TileCache::commit`] takes it; committing cannot fail.
#[derive(Debug, Clone)]
pub struct ValidatedCacheSnapshot {
    next_obstacle: u32,
    next_volume: u32,
    obstacles: BTreeMap<ObstacleId, Entry<Obstacle>>,
    volumes: BTreeMap<VolumeId, Entry<Volume>>,
    queue: RebuildQueue,
    mesh: ValidatedSnapshot,
    /// The lists' bytes as read (canonical, so the cache's writer can reuse them).
    lists: Vec<u8>,
    /// The digest of the cache it was checked against.
    digest: onav::SettingsDigest,
}

/// Why [`TileCache::from_snapshot`] failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FromSnapshotError {
    /// The cache could not be created from the geometry and settings.
    #[error(transparent)]
    Create(#[from] CreateError),
    /// The snapshot was refused.
    #[error(transparent)]
    Restore(#[from] RestoreError),
}

/// What an `ONTK` snapshot holds, as far as [`check_without_cache`] can tell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotSummary {
    /// The next obstacle and volume ids.
    pub next_ids: (u32, u32),
    /// Obstacles.
    pub obstacles: usize,
    /// Area volumes.
    pub volumes: usize,
    /// Queued cells.
    pub queue: usize,
    /// Slots and tiles of the mesh it restores.
    pub mesh: (u32, usize),
}

/// Checks an `ONTK` snapshot as far as it can be checked without the cache it belongs to, for
/// tools (`onav inspect`): stage A (`spec/tilecache.md` TC18–TC28) and the embedded mesh
/// snapshot's own rules as a restore into a new mesh with `library` (its errors nested under
/// `mesh.` at absolute offsets). What needs the cache is not checked: the comparison of the
/// mesh's parameters and fingerprint with the cache's (stage B) and the queue against the cached
/// cells (stage C); [`TileCache::check_restore`] does all of it.
pub fn check_without_cache(
    bytes: &[u8],
    library: &TileLibrary,
) -> Result<SnapshotSummary, RestoreError> {
    let p = read::parse(bytes)?;
    let m =
        onav::NavMeshSnapshot::restore(p.mesh, library).map_err(|e| e.nested(p.mesh_at, "mesh"))?;
    Ok(SnapshotSummary {
        next_ids: (p.next_obstacle, p.next_volume),
        obstacles: p.obstacles.len(),
        volumes: p.volumes.len(),
        queue: p.queue.len(),
        mesh: (m.slot_count(), m.tile_count()),
    })
}

impl TileCache {
    /// The canonical `ONTK` snapshot of the cache, its mesh in `mode` (TC30): the same state
    /// gives the same bytes on every platform and thread count.
    pub fn snapshot(&self, mode: SnapshotMode) -> Vec<u8> {
        write::snapshot(self, mode)
    }

    /// Replaces the cache's run state (obstacles, volumes, next ids, queue, mesh) with the
    /// snapshot's, in place (TC31): the same as [`TileCache::check_restore`] with no extra
    /// library, then [`TileCache::commit`]. Any error leaves the cache untouched.
    pub fn restore(&mut self, bytes: &[u8]) -> Result<(), RestoreError> {
        let v = self.check_restore(bytes, None)?;
        self.commit(v);
        Ok(())
    }

    /// As [`TileCache::restore`], with the tiles of `library` available to a Referenced mesh
    /// snapshot besides the cache's own library (TC15).
    pub fn restore_with(
        &mut self,
        bytes: &[u8],
        library: &TileLibrary,
    ) -> Result<(), RestoreError> {
        let v = self.check_restore(bytes, Some(library))?;
        self.commit(v);
        Ok(())
    }

    /// Validates `bytes` for a restore into this cache (stages A–C, TC18–TC29) without changing
    /// it. Referenced mesh tiles are looked up in the cache's library and then in `extra`.
    pub fn check_restore(
        &self,
        bytes: &[u8],
        extra: Option<&TileLibrary>,
    ) -> Result<ValidatedCacheSnapshot, RestoreError> {
        let p = read::parse(bytes)?;
        let merged;
        let library = match extra {
            Some(x) if !x.is_empty() => {
                let mut lib = self.library.clone();
                for t in x.iter() {
                    lib.add(t);
                }
                merged = lib;
                &merged
            }
            _ => &self.library,
        };
        let mesh = self
            .mesh
            .check_restore(p.mesh, library)
            .map_err(|e| e.nested(p.mesh_at, "mesh"))?;
        let cells = self.world.cells.len();
        if p.queue.len() > cells {
            let reason = FormatReason::CountTooLarge {
                count: p.queue.len() as u64,
                max: cells as u64,
            };
            return Err(FormatError::new(p.queue_at, "queue_length", reason).into());
        }
        let mut order = Vec::with_capacity(p.queue.len());
        for (j, &(cell, at)) in p.queue.iter().enumerate() {
            let Some(k) = self.world.index_of(cell) else {
                let e = FormatError::new(at, format!("queue[{j}]"), FormatReason::OutOfRange);
                return Err(e.into());
            };
            order.push(k as u32);
        }
        let obstacles = p
            .obstacles
            .into_iter()
            .map(|(id, value)| {
                let touch = self.world.touch(value.mark());
                (id, Entry { value, touch })
            })
            .collect();
        let volumes = p
            .volumes
            .into_iter()
            .map(|(id, value)| {
                let touch = self.world.touch(value.mark());
                (id, Entry { value, touch })
            })
            .collect();
        Ok(ValidatedCacheSnapshot {
            next_obstacle: p.next_obstacle,
            next_volume: p.next_volume,
            obstacles,
            volumes,
            queue: RebuildQueue::from_order(cells, &order),
            mesh,
            lists: p.lists.to_vec(),
            digest: self.digest(),
        })
    }

    /// Swaps a validated snapshot's state in (TC31 steps 2–3): the mesh is committed in place
    /// (`TiledNavMesh::commit`), then the lists, ids and queue replace the cache's, and every
    /// tile of the restored mesh joins the library (so a later Referenced snapshot finds it).
    /// Nothing can fail here.
    ///
    /// # Panics
    ///
    /// If `v` was checked against a cache of another world (a caller's bug, not bad input).
    pub fn commit(&mut self, v: ValidatedCacheSnapshot) {
        assert!(
            v.digest == self.digest(),
            "a snapshot checked against another cache"
        );
        self.mesh.commit(v.mesh);
        self.obstacles = v.obstacles;
        self.volumes = v.volumes;
        self.next_obstacle = v.next_obstacle;
        self.next_volume = v.next_volume;
        self.queue = v.queue;
        self.lists = std::sync::OnceLock::from(v.lists);
        for (_, t) in self.mesh.tiles() {
            if self.library.get(&t.content_id()).is_none() {
                self.library.add(t);
            }
        }
    }

    /// A new cache of `geometry` and `settings` (with `options`) in the snapshot's state
    /// (TC32): [`TileCache::with_options`], then [`TileCache::restore_with`] with `library`.
    pub fn from_snapshot(
        geometry: &Geometry,
        settings: &Settings,
        options: CacheOptions,
        bytes: &[u8],
        library: &TileLibrary,
    ) -> Result<Self, FromSnapshotError> {
        let mut c = Self::with_options(geometry, settings, options)?;
        c.restore_with(bytes, library)?;
        Ok(c)
    }
}
