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
//! Then the mesh is committed (it cannot fail) and the lists are swapped in. `restore` checks C
//! before B (reporting B's error first when both fail) so that the mesh can be restored by its
//! own in-place restore and its rollback path.

pub(crate) mod lists;
mod read;
mod write;

use std::borrow::Cow;
use std::collections::BTreeMap;

use onav::{FormatError, FormatReason, RestoreError, SnapshotMode, TileLibrary, ValidatedSnapshot};
use onav_build3d::{Geometry, Settings, TileCell};

use crate::cache::{CacheOptions, Entry, TileCache};
use crate::error::CreateError;
use crate::ids::{ObstacleId, VolumeId};
use crate::shape::{Obstacle, Volume};
use lists::ListsCode;
use read::Section;

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
    obstacles: Vec<(u32, Obstacle, u32)>,
    volumes: Vec<(u32, Volume, u32)>,
    queue: Vec<u32>,
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
    let p = read::parse(bytes, None)?;
    let m =
        onav::NavMeshSnapshot::restore(p.mesh, library).map_err(|e| e.nested(p.mesh_at, "mesh"))?;
    Ok(SnapshotSummary {
        next_ids: (p.next_obstacle, p.next_volume),
        obstacles: p.obstacles.new.len(),
        volumes: p.volumes.new.len(),
        queue: p.queue.len(),
        mesh: (m.slot_count(), m.tile_count()),
    })
}

/// A list after a restore: its first `s.kept` entries stay (they are the snapshot's leading
/// records), the rest are replaced by the section's new entries, each with its touch range.
fn merge<K: Ord, T>(
    map: &mut BTreeMap<K, Entry<T>>,
    s: Section<T>,
    key: impl Fn(u32) -> K,
    touch: impl Fn(&T) -> crate::world::Touch,
) {
    if s.kept == 0 {
        map.clear();
    } else if map.len() > s.kept {
        // The entries after the last kept one, taken from the back (`split_off` would
        // allocate new nodes for them on every restore).
        let last = key(s.last_kept);
        while map.last_key_value().is_some_and(|(k, _)| *k > last) {
            map.pop_last();
        }
    }
    for (id, value, _) in s.new {
        let t = touch(&value);
        map.insert(key(id), Entry { value, touch: t });
    }
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
        self.restore_in_place(bytes, None)
    }

    /// As [`TileCache::restore`], with the tiles of `library` available to a Referenced mesh
    /// snapshot besides the cache's own library (TC15).
    pub fn restore_with(
        &mut self,
        bytes: &[u8],
        library: &TileLibrary,
    ) -> Result<(), RestoreError> {
        self.restore_in_place(bytes, Some(library))
    }

    /// The library a Referenced mesh snapshot is checked with: the cache's, merged with `extra`
    /// when that holds anything.
    fn restore_library<'a>(
        own: &'a TileLibrary,
        extra: Option<&TileLibrary>,
    ) -> Cow<'a, TileLibrary> {
        match extra {
            Some(x) if !x.is_empty() => {
                let mut lib = own.clone();
                for t in x.iter() {
                    lib.add(t);
                }
                Cow::Owned(lib)
            }
            _ => Cow::Borrowed(own),
        }
    }

    /// Stage C (TC29): the queue against the cached cells; the index of each queued cell.
    fn check_queue(
        &self,
        queue: &[(TileCell, u64)],
        queue_at: u64,
    ) -> Result<Vec<u32>, FormatError> {
        let cells = self.world.cells.len();
        if queue.len() > cells {
            let reason = FormatReason::CountTooLarge {
                count: queue.len() as u64,
                max: cells as u64,
            };
            return Err(FormatError::new(queue_at, "queue_length", reason));
        }
        let mut order = Vec::with_capacity(queue.len());
        for (j, &(cell, at)) in queue.iter().enumerate() {
            let Some(k) = self.world.index_of(cell) else {
                return Err(FormatError::new(
                    at,
                    format!("queue[{j}]"),
                    FormatReason::OutOfRange,
                ));
            };
            order.push(k as u32);
        }
        Ok(order)
    }

    /// [`TileCache::restore`] and [`TileCache::restore_with`]: the same checks in the same order
    /// as [`TileCache::check_restore`] then [`TileCache::commit`], with the same result, but the
    /// mesh is restored by [`onav::TiledNavMesh::restore`], whose rollback path (`snapshot.md`
    /// S21) costs about a comparison of the slot records when only edits and switches differ.
    /// Stage C does not depend on the mesh, so it runs first; when it fails, stage B is still
    /// checked (without changing the mesh) so that its error wins as TC29 orders. When it
    /// passes, the mesh restore is the last step that can fail (and a failed one changes
    /// nothing); only then are the lists, ids and queue swapped in.
    fn restore_in_place(
        &mut self,
        bytes: &[u8],
        extra: Option<&TileLibrary>,
    ) -> Result<(), RestoreError> {
        let own = self.lists.get_or_init(|| ListsCode::of(self));
        let p = read::parse(bytes, Some(own))?;
        let (mesh_at, mesh_bytes) = (p.mesh_at, p.mesh);
        let nest = |e: RestoreError| e.nested(mesh_at, "mesh");
        let order = match self.check_queue(&p.queue, p.queue_at) {
            Ok(order) => order,
            Err(e) => {
                let library = Self::restore_library(&self.library, extra);
                self.mesh
                    .check_restore(mesh_bytes, &library)
                    .map_err(nest)?;
                return Err(e.into());
            }
        };
        let library = Self::restore_library(&self.library, extra);
        self.mesh.restore(mesh_bytes, &library).map_err(nest)?;
        drop(library);
        // A mesh snapshot naming every tile by content id (its length is then the restored
        // mesh's Referenced length: an inline tile is longer than a content id) took every tile
        // from the cache's own library when no other was given: none needs adding.
        let own_tiles = extra.is_none_or(TileLibrary::is_empty)
            && mesh_bytes.len() == self.mesh.snapshot_len(SnapshotMode::Referenced);
        self.swap_lists(
            (p.next_obstacle, p.next_volume),
            p.obstacles,
            p.volumes,
            &order,
            p.lists,
        );
        if !own_tiles {
            self.add_mesh_tiles_to_library();
        }
        Ok(())
    }

    /// Swaps the lists, ids and queue in after the mesh was restored: the leading entries a
    /// section kept stay, the others are replaced by its new ones; the lists' encoding is
    /// updated the same way.
    fn swap_lists(
        &mut self,
        (next_obstacle, next_volume): (u32, u32),
        obstacles: Section<Obstacle>,
        volumes: Section<Volume>,
        queue: &[u32],
        lists: &[u8],
    ) {
        let kept = (obstacles.kept, obstacles.new.iter().map(|e| e.2));
        let kept_volumes = (volumes.kept, volumes.new.iter().map(|e| e.2));
        match self.lists.get_mut() {
            Some(code) => code.replace(lists, kept, kept_volumes),
            None => {
                let mut code = ListsCode::empty();
                code.replace(lists, kept, kept_volumes);
                self.lists = std::sync::OnceLock::from(code);
            }
        }
        let world = &self.world;
        merge(&mut self.obstacles, obstacles, ObstacleId, |o| {
            world.touch(o.mark())
        });
        merge(&mut self.volumes, volumes, VolumeId, |v| {
            world.touch(v.mark())
        });
        self.next_obstacle = next_obstacle;
        self.next_volume = next_volume;
        self.queue.set_order(queue);
        debug_assert_eq!(self.lists.get(), Some(&ListsCode::of(self)));
    }

    /// Adds every tile of the mesh that the library lacks (so a later Referenced snapshot finds
    /// it).
    fn add_mesh_tiles_to_library(&mut self) {
        for (_, t) in self.mesh.tiles() {
            if self.library.get(&t.content_id()).is_none() {
                self.library.add(t);
            }
        }
    }

    /// Validates `bytes` for a restore into this cache (stages A–C, TC18–TC29) without changing
    /// it. Referenced mesh tiles are looked up in the cache's library and then in `extra`.
    pub fn check_restore(
        &self,
        bytes: &[u8],
        extra: Option<&TileLibrary>,
    ) -> Result<ValidatedCacheSnapshot, RestoreError> {
        let p = read::parse(bytes, None)?;
        let library = Self::restore_library(&self.library, extra);
        let mesh = self
            .mesh
            .check_restore(p.mesh, &library)
            .map_err(|e| e.nested(p.mesh_at, "mesh"))?;
        let queue = self.check_queue(&p.queue, p.queue_at)?;
        Ok(ValidatedCacheSnapshot {
            next_obstacle: p.next_obstacle,
            next_volume: p.next_volume,
            obstacles: p.obstacles.new,
            volumes: p.volumes.new,
            queue,
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
        self.swap_lists(
            (v.next_obstacle, v.next_volume),
            Section::whole(v.obstacles),
            Section::whole(v.volumes),
            &v.queue,
            &v.lists,
        );
        self.add_mesh_tiles_to_library();
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
