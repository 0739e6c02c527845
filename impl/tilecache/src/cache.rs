//! `TileCache` (`spec/tilecache.md` §3–§5): the world (plan and cached intermediates), the run's
//! obstacles, volumes and rebuild queue, the mesh they build, and the library of every tile the
//! cache placed in its mesh (for Referenced snapshots).

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use onav::{NavTile, TileLibrary, TilePos, TiledNavMesh};
use onav_build3d::{AreaMark, Geometry, Plan, Settings, TileCell};
use rayon::prelude::*;

use crate::error::{CacheError, CreateError, UpdateError, UpdateErrorKind};
use crate::ids::{ObstacleId, VolumeId};
use crate::limits::{MAX_NEXT_ID, MAX_OBSTACLES, MAX_VOLUMES};
use crate::queue::RebuildQueue;
use crate::shape::{Obstacle, Volume};
use crate::snapshot::lists::ListsCode;
use crate::world::{Touch, World};

/// Options of a new cache.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheOptions {
    /// Slots of the cache's mesh (TC1). `None`: the build's tile count plus one per cached cell
    /// (room for every cell to gain a layer), at least 1. Part of the mesh parameters, so two
    /// caches restore each other's snapshots only with equal slot counts.
    pub slot_count: Option<u32>,
}

/// An obstacle or volume with the cells it may change.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry<T> {
    pub value: T,
    pub touch: Touch,
}

/// What one [`TileCache::update`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UpdateReport {
    /// Cells rebuilt (taken from the queue).
    pub cells: usize,
    /// Tiles added at positions that had none.
    pub added: usize,
    /// Tiles replaced by tiles of other contents.
    pub replaced: usize,
    /// Tiles removed (their layer no longer exists).
    pub removed: usize,
    /// Tiles rebuilt to the contents already in place (left as they were).
    pub unchanged: usize,
    /// Cells still queued.
    pub remaining: usize,
}

/// A deterministic tile cache over the 3D builder (`spec/tilecache.md`).
#[derive(Debug, Clone)]
pub struct TileCache {
    pub(crate) world: Arc<World>,
    pub(crate) obstacles: BTreeMap<ObstacleId, Entry<Obstacle>>,
    pub(crate) volumes: BTreeMap<VolumeId, Entry<Volume>>,
    pub(crate) next_obstacle: u32,
    pub(crate) next_volume: u32,
    pub(crate) queue: RebuildQueue,
    pub(crate) mesh: TiledNavMesh,
    pub(crate) library: SharedLibrary,
    /// The snapshot's encoding of the obstacle and volume lists (counts and records, TC30),
    /// made when first needed, extended by an addition and dropped by a removal: a rollback
    /// host writes a snapshot every frame while the lists change rarely, and an in-place
    /// restore compares a snapshot's lists with it.
    pub(crate) lists: OnceLock<ListsCode>,
}

/// The cache's library (TC15), shared by a cache and its clones until one of them adds a tile:
/// a clone keeps the library object, so its mesh (which remembers the library instance it last
/// found every tile in, `spec/snapshot.md` S21) restores without looking its tiles up again. An
/// addition to a shared library copies it first (a new instance, so no mesh takes the copy for
/// the library it checked), and a library only grows, so sharing is sound.
#[derive(Debug, Clone)]
pub(crate) struct SharedLibrary(Arc<TileLibrary>);

impl SharedLibrary {
    /// Adds a tile unless it is there already (then the library stays shared).
    pub(crate) fn add(&mut self, tile: &NavTile) -> onav::TileContentId {
        let id = tile.content_id();
        if self.0.get(&id).is_none() {
            Arc::make_mut(&mut self.0).add(tile);
        }
        id
    }
}

impl std::ops::Deref for SharedLibrary {
    type Target = TileLibrary;
    fn deref(&self) -> &TileLibrary {
        &self.0
    }
}

impl TileCache {
    /// A cache of `geometry` built with `settings` (TC1): every tile cell is rasterized once and
    /// its intermediate kept; the mesh holds exactly the tiles of `onav_build3d::build`, tile i
    /// in slot i. No obstacles, no volumes, an empty queue, next ids 1.
    pub fn new(geometry: &Geometry, settings: &Settings) -> Result<Self, CreateError> {
        Self::with_options(geometry, settings, CacheOptions::default())
    }

    /// As [`TileCache::new`], with options.
    pub fn with_options(
        geometry: &Geometry,
        settings: &Settings,
        options: CacheOptions,
    ) -> Result<Self, CreateError> {
        let plan = Plan::new(geometry, settings)?;
        let (world, tiles) = World::build(plan)?;
        let default = (tiles.len() + world.cells.len()).max(1);
        let max = onav::limits::MAX_SLOTS;
        let slots = match options.slot_count {
            Some(n) if (n as usize) >= tiles.len() && n >= 1 && n <= max => n,
            None if default <= max as usize => default as u32,
            asked => {
                return Err(CreateError::SlotCount {
                    asked: asked.unwrap_or(u32::MAX),
                    tiles: tiles.len(),
                    max,
                })
            }
        };
        let params = world.plan.mesh_params(slots)?;
        let mut mesh = TiledNavMesh::new(params);
        for t in &tiles {
            mesh.add_tile(t.clone()).map_err(CreateError::Mesh)?;
        }
        let cells = world.cells.len();
        Ok(Self {
            world: Arc::new(world),
            obstacles: BTreeMap::new(),
            volumes: BTreeMap::new(),
            next_obstacle: 1,
            next_volume: 1,
            queue: RebuildQueue::new(cells),
            mesh,
            library: SharedLibrary(Arc::new(TileLibrary::from_tiles(&tiles))),
            lists: OnceLock::new(),
        })
    }

    /// A cache from OBJ bytes (`spec/build3d.md` B4) and the canonical settings encoding (B8):
    /// the entry point for a harness or testee.
    pub fn from_obj_bytes(obj: &[u8], settings: &[u8]) -> Result<Self, CreateError> {
        let settings = Settings::from_bytes(settings).map_err(CreateError::Settings)?;
        let geometry = Geometry::from_obj(obj)?;
        Self::new(&geometry, &settings)
    }

    /// The mesh: every query runs on it.
    pub fn mesh(&self) -> &TiledNavMesh {
        &self.mesh
    }

    /// The mesh, for run-time edits (`set_poly_area`, `set_poly_flags`, link switches): they are
    /// part of its snapshot. A rebuild replaces a cell's tiles and resets their edits (TC13).
    /// Tiles added by hand are not in the cache's library: a Referenced snapshot naming them
    /// restores only with a library holding them ([`TileCache::restore_with`]).
    pub fn mesh_mut(&mut self) -> &mut TiledNavMesh {
        &mut self.mesh
    }

    /// Every tile the cache has placed in its mesh or restored into it (TC15).
    pub fn library(&self) -> &TileLibrary {
        &self.library
    }

    /// Keeps in the library only the tiles of the current mesh and those `keep` names (by
    /// content id), and returns how many were dropped (TC15): after it, Referenced snapshots
    /// restore exactly when each tile they name is in the mesh or kept.
    pub fn retain_library(&mut self, keep: &[onav::TileContentId]) -> usize {
        let before = self.library.len();
        let mut ids: Vec<onav::TileContentId> = keep.to_vec();
        ids.extend(self.mesh.tiles().map(|(_, t)| t.content_id()));
        ids.sort_unstable();
        ids.dedup();
        let mut lib = TileLibrary::new();
        for id in &ids {
            if let Some(t) = self.library.get(id) {
                lib.add(t);
            }
        }
        self.library = SharedLibrary(Arc::new(lib));
        before - self.library.len()
    }

    /// The cached tile cells, ascending (row, column).
    pub fn cells(&self) -> &[TileCell] {
        &self.world.cells
    }

    /// Bytes the cached intermediates hold.
    pub fn intermediate_bytes(&self) -> usize {
        self.world.intermediate_bytes()
    }

    /// The settings digest of the cache's tiles (settings, pipeline version and geometry).
    pub fn digest(&self) -> onav::SettingsDigest {
        self.mesh.params().digest()
    }

    /// The obstacles, ascending id.
    pub fn obstacles(&self) -> impl ExactSizeIterator<Item = (ObstacleId, &Obstacle)> + '_ {
        self.obstacles.iter().map(|(k, e)| (*k, &e.value))
    }

    /// The volumes, ascending id.
    pub fn volumes(&self) -> impl ExactSizeIterator<Item = (VolumeId, &Volume)> + '_ {
        self.volumes.iter().map(|(k, e)| (*k, &e.value))
    }

    /// The next obstacle id and the next volume id.
    pub fn next_ids(&self) -> (u32, u32) {
        (self.next_obstacle, self.next_volume)
    }

    /// The queued cells, front first.
    pub fn queue(&self) -> impl ExactSizeIterator<Item = TileCell> + '_ {
        self.queue.iter().map(|k| self.world.cells[k as usize])
    }

    /// True when nothing is queued.
    pub fn is_up_to_date(&self) -> bool {
        self.queue.is_empty()
    }

    fn queue_touched(&mut self, t: &Touch) {
        for k in self.world.touched(t) {
            self.queue.push(k);
        }
    }

    /// Adds an obstacle (TC6, TC9): it takes the next obstacle id and queues, at the back and
    /// in ascending (row, column), every cached cell it may change that is not queued already.
    /// An obstacle that touches no cached cell is kept all the same.
    pub fn add_obstacle(&mut self, obstacle: Obstacle) -> Result<ObstacleId, CacheError> {
        if self.obstacles.len() >= MAX_OBSTACLES as usize {
            return Err(CacheError::TooManyObstacles { max: MAX_OBSTACLES });
        }
        if self.next_obstacle >= MAX_NEXT_ID {
            return Err(CacheError::ObstacleIdsExhausted {
                next: self.next_obstacle,
            });
        }
        let id = ObstacleId(self.next_obstacle);
        self.next_obstacle += 1;
        let touch = self.world.touch(obstacle.mark());
        self.queue_touched(&touch);
        if let Some(code) = self.lists.get_mut() {
            code.push_obstacle(id, &obstacle);
        }
        self.obstacles.insert(
            id,
            Entry {
                value: obstacle,
                touch,
            },
        );
        Ok(id)
    }

    /// Removes an obstacle and queues the cells it may have changed (TC6, TC9).
    pub fn remove_obstacle(&mut self, id: ObstacleId) -> Result<Obstacle, CacheError> {
        let e = self
            .obstacles
            .remove(&id)
            .ok_or(CacheError::UnknownObstacle { id })?;
        self.lists = OnceLock::new();
        self.queue_touched(&e.touch);
        Ok(e.value)
    }

    /// Adds an area volume (TC6, TC9), as [`TileCache::add_obstacle`].
    pub fn add_volume(&mut self, volume: Volume) -> Result<VolumeId, CacheError> {
        if self.volumes.len() >= MAX_VOLUMES as usize {
            return Err(CacheError::TooManyVolumes { max: MAX_VOLUMES });
        }
        if self.next_volume >= MAX_NEXT_ID {
            return Err(CacheError::VolumeIdsExhausted {
                next: self.next_volume,
            });
        }
        let id = VolumeId(self.next_volume);
        self.next_volume += 1;
        let touch = self.world.touch(volume.mark());
        self.queue_touched(&touch);
        if let Some(code) = self.lists.get_mut() {
            code.push_volume(id, &volume);
        }
        self.volumes.insert(
            id,
            Entry {
                value: volume,
                touch,
            },
        );
        Ok(id)
    }

    /// Removes an area volume and queues the cells it may have changed (TC6, TC9).
    pub fn remove_volume(&mut self, id: VolumeId) -> Result<Volume, CacheError> {
        let e = self
            .volumes
            .remove(&id)
            .ok_or(CacheError::UnknownVolume { id })?;
        self.lists = OnceLock::new();
        self.queue_touched(&e.touch);
        Ok(e.value)
    }

    /// The marks of cached cell `k` (TC8): the volumes that may change it in ascending id, then
    /// the obstacles that may change it in ascending id.
    pub(crate) fn marks_of(&self, k: usize) -> Vec<AreaMark> {
        let cell = self.world.cells[k];
        let vols = self
            .volumes
            .values()
            .filter(|e| e.touch.contains(cell))
            .map(|e| e.value.mark().clone());
        let obs = self
            .obstacles
            .values()
            .filter(|e| e.touch.contains(cell))
            .map(|e| e.value.mark().clone());
        vols.chain(obs).collect()
    }

    /// The tiles cached cell `k` has with the current obstacles and volumes, from scratch.
    pub fn build_cell(&self, cell: TileCell) -> Option<Result<Vec<NavTile>, UpdateError>> {
        let k = self.world.index_of(cell)?;
        Some(
            self.world
                .finish(k, &self.marks_of(k))
                .map_err(|e| UpdateError {
                    cell,
                    kind: e.into(),
                }),
        )
    }

    /// Rebuilds up to `max_tiles` cells from the front of the queue (TC11–TC13). The cells of one
    /// call are built in parallel (an ordered map on the current rayon pool) and placed in the
    /// mesh in queue order, each leaving the queue once placed. The result is the same for every
    /// thread count, and the final mesh after the queue drains is the same for every sequence of
    /// budgets. On an error the failing cell stays at the front, unchanged; the cells before it
    /// are placed.
    pub fn update(&mut self, max_tiles: usize) -> Result<UpdateReport, UpdateError> {
        let batch: Vec<u32> = self.queue.front(max_tiles).collect();
        let built: Vec<_> = {
            let this = &*self;
            batch
                .par_iter()
                .map(|&k| this.world.rebuild(k as usize, &this.marks_of(k as usize)))
                .collect()
        };
        let mut report = UpdateReport::default();
        for (&k, tiles) in batch.iter().zip(built) {
            let cell = self.world.cells[k as usize];
            let tiles = tiles.map_err(|e| UpdateError {
                cell,
                kind: e.into(),
            })?;
            self.place(cell, tiles, &mut report)
                .map_err(|kind| UpdateError { cell, kind })?;
            self.queue.pop_front(k);
            report.cells += 1;
        }
        report.remaining = self.queue.len();
        Ok(report)
    }

    /// Rebuilds until the queue is empty.
    pub fn update_all(&mut self) -> Result<UpdateReport, UpdateError> {
        self.update(usize::MAX)
    }

    /// Places a cell's new tiles (layers 0 … n − 1) in the mesh (TC13): the cell's tiles at
    /// layers ≥ n are removed first (ascending layer); then for each layer in order, a tile
    /// with the content id of the tile in place leaves that tile as it is, another replaces it
    /// (`replace_tile`: same slot, generation advanced, edits reset), and a layer without a
    /// tile gets one (`add_tile`: the lowest free slot). Nothing changes unless the free slots
    /// suffice.
    fn place(
        &mut self,
        cell: TileCell,
        tiles: Vec<NavTile>,
        report: &mut UpdateReport,
    ) -> Result<(), UpdateErrorKind> {
        let n = tiles.len() as u32;
        let existing: Vec<(onav::TileRef, u32)> = self
            .mesh
            .tiles_in_cell(cell.column, cell.row)
            .map(|(r, t)| (r, t.pos().layer))
            .collect();
        let freed = existing.iter().filter(|e| e.1 >= n).count();
        let needed = (0..n)
            .filter(|&l| !existing.iter().any(|e| e.1 == l))
            .count();
        let free = self.mesh.slot_count() as usize - self.mesh.tile_count() + freed;
        if needed > free {
            return Err(UpdateErrorKind::NoFreeSlot { needed, free });
        }
        for &(r, layer) in &existing {
            if layer >= n {
                self.mesh.remove_tile(r).map_err(UpdateErrorKind::Mesh)?;
                report.removed += 1;
            }
        }
        for t in tiles {
            // Equal as-built bytes are equal content ids (C1), found without hashing.
            match self.mesh.tile_at(t.pos()) {
                Some((_, e)) if e.same_as_built(&t) => report.unchanged += 1,
                Some(_) => {
                    self.library.add(&t);
                    self.mesh.replace_tile(t).map_err(UpdateErrorKind::Mesh)?;
                    report.replaced += 1;
                }
                None => {
                    self.library.add(&t);
                    self.mesh.add_tile(t).map_err(UpdateErrorKind::Mesh)?;
                    report.added += 1;
                }
            }
        }
        Ok(())
    }

    /// The position of a tile of a cached cell (for tests and tools).
    pub fn tile_at(&self, cell: TileCell, layer: u32) -> Option<&NavTile> {
        self.mesh
            .tile_at(TilePos {
                column: cell.column,
                row: cell.row,
                layer,
            })
            .map(|(_, t)| t)
    }
}
