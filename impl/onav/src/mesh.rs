//! `TiledNavMesh` (`spec/navmesh-format.md` §5): slots with generations, tiles, polygon
//! references, area/flag edits, off-mesh link switches and incremental stitching.

use std::collections::BTreeSet;
use std::sync::Arc;

use rayon::prelude::*;

use crate::error::{FingerprintError, MeshError};
use crate::ids::{Generation, LinkIndex, PolyIndex, PolyRef, SlotIndex, TilePos, TileRef};
use crate::limits::MAX_AREA;
use crate::pack::Pack;
use crate::params::MeshParams;
#[cfg(test)]
use crate::snapshot::put_state;
use crate::snapshot::{full_extra, state_len, Chunk};
use crate::stitch::{
    first_over_budget, neighbourhood, stitch_tile, tile_landings, weight_per_cell, CellIndex,
    Landing, Landings, Link, SlotView, TileLinks,
};
use crate::tile::NavTile;

/// One slot: its generation, and its tile with the tile's links when occupied, plus the length
/// of its edits and switches in a snapshot (`spec/snapshot.md` §4.3), kept in the slot array so
/// the Full writer follows no pointer for it. `extra` is derived and kept up to date by
/// [`MeshState::refresh`].
#[derive(Debug, Clone)]
pub(crate) struct Slot {
    pub generation: Generation,
    /// Bytes the slot's edits and switches take in a snapshot, 7·E + 4·D (0 when free).
    pub extra: u32,
    pub occupied: Option<Box<Occupied>>,
}

impl Slot {
    fn free(generation: Generation) -> Self {
        Self {
            generation,
            extra: 0,
            occupied: None,
        }
    }

    /// The slot's tile, if occupied.
    pub fn tile(&self) -> Option<&NavTile> {
        self.occupied.as_ref().map(|o| &o.tile)
    }
}

/// A tile in a slot and its derived links.
#[derive(Debug, Clone)]
pub(crate) struct Occupied {
    pub tile: NavTile,
    pub links: Arc<TileLinks>,
    /// The landings of the tile's off-mesh links (derived, first stitching phase).
    pub landings: Arc<Landings>,
}

/// Everything a mesh holds besides its parameters. Restore builds one on the side and swaps it in.
#[derive(Debug, Clone)]
pub(crate) struct MeshState {
    pub slots: Vec<Slot>,
    /// Free slot indices (derived: the slots with no tile).
    pub free: BTreeSet<SlotIndex>,
    /// Occupied cells (derived).
    pub cells: CellIndex,
    /// Sum of the as-built byte lengths of the tiles held (derived; sizes Full snapshots).
    pub tile_bytes: usize,
    /// Sum of the slots' `extra` (derived; sizes snapshots exactly).
    pub extra_bytes: usize,
    /// The Referenced snapshot's slot records (`spec/snapshot.md` §4.3) in slot order, cut into
    /// chunks of [`CHUNK_SLOTS`] slots: chunk c holds the records of slots 32c .. 32c + 31 end to
    /// end (derived). Both writers copy from them.
    pub chunks: Vec<Chunk>,
    /// The as-built bytes of the tiles of the same runs of slots, packed together for the Full
    /// writer (derived, one [`Pack`] per chunk).
    pub packs: Vec<Pack>,
}

/// Slots per [`Chunk`]: a Referenced write copies one chunk per 32 slots (~1.5 KB unedited), and
/// a change to a record whose length changes moves at most the rest of its chunk. (Measured
/// against 16, 64 and 128: writes within noise of each other, edits cheapest from 32 down.)
pub(crate) const CHUNK_SLOTS: usize = 32;

impl SlotView for MeshState {
    fn occupant(&self, slot: SlotIndex) -> Option<(Generation, &NavTile)> {
        let s = self.slots.get(slot.0 as usize)?;
        s.occupied.as_ref().map(|o| (s.generation, &o.tile))
    }

    fn landings(&self, slot: SlotIndex) -> Option<&[Option<(Landing, Landing)>]> {
        let o = self.slots.get(slot.0 as usize)?.occupied.as_ref()?;
        Some(&o.landings)
    }

    fn cell(&self, column: i32, row: i32) -> &[(u32, SlotIndex)] {
        self.cells.get(&(column, row)).map_or(&[], Vec::as_slice)
    }
}

impl MeshState {
    /// `count` free slots of generation 1.
    pub fn empty(count: u32) -> Self {
        let mut state = Self {
            slots: vec![Slot::free(Generation::FIRST); count as usize],
            free: (0..count).map(SlotIndex).collect(),
            cells: CellIndex::new(),
            tile_bytes: 0,
            extra_bytes: 0,
            chunks: Vec::new(),
            packs: Vec::new(),
        };
        state.rebuild_chunks();
        state
    }

    /// Length of this state's Full snapshot section body in bytes (O(1) from the counters).
    pub fn full_body_len(&self) -> u64 {
        let occupied = (self.slots.len() - self.free.len()) as u64;
        4 + self.slots.len() as u64 * 5
            + occupied * 12
            + self.tile_bytes as u64
            + self.extra_bytes as u64
    }

    /// Fails unless the Full body stays within a u32 after growing by `more` bytes.
    pub fn check_room(&self, more: u64) -> Result<(), MeshError> {
        if self.full_body_len() + more > u64::from(u32::MAX) {
            Err(MeshError::SnapshotTooLarge)
        } else {
            Ok(())
        }
    }

    /// Brings slot `i`'s extra and cached record, and the totals, up to date after any change
    /// to its generation, edits or switches. Every operation that changes one of these calls it
    /// (or [`MeshState::refresh_tile`]). O(E + D) for the slot's E edits and D switches, plus
    /// moving the rest of its chunk when its record's length changes.
    pub fn refresh(&mut self, i: usize) {
        self.refresh_slot(i);
        self.chunks[i / CHUNK_SLOTS].update(i % CHUNK_SLOTS, &self.slots[i]);
    }

    /// [`MeshState::refresh`] after a change of slot `i`'s tile (added, removed or replaced):
    /// also puts the new tile's bytes in the slot's pack. Amortised O(tile bytes) more.
    pub fn refresh_tile(&mut self, i: usize) {
        let bytes = self.slots[i].tile().map(NavTile::as_built_bytes);
        self.packs[i / CHUNK_SLOTS].set(i % CHUNK_SLOTS, bytes);
        self.refresh(i);
    }

    /// [`MeshState::refresh`] without the record, for callers that refresh many slots and then
    /// write the chunks once.
    fn refresh_slot(&mut self, i: usize) {
        let s = &mut self.slots[i];
        let extra = s.tile().map_or(0, |t| state_len(t) as u32);
        self.extra_bytes = self.extra_bytes - s.extra as usize + extra as usize;
        s.extra = extra;
    }

    /// Writes every chunk and pack from the slots.
    fn rebuild_chunks(&mut self) {
        self.chunks = self.slots.chunks(CHUNK_SLOTS).map(Chunk::of).collect();
        self.packs = self
            .slots
            .chunks(CHUNK_SLOTS)
            .map(|run| Pack::of(run.iter().map(|s| s.tile().map(NavTile::as_built_bytes))))
            .collect();
    }

    /// Checks every derived field against a recomputation (tests only).
    #[cfg(test)]
    pub fn assert_derived(&self) {
        let mut copy = self.clone();
        let free: BTreeSet<SlotIndex> = (0..self.slots.len() as u32)
            .filter(|&i| self.slots[i as usize].occupied.is_none())
            .map(SlotIndex)
            .collect();
        assert_eq!(self.free, free);
        let bytes: usize = self
            .slots
            .iter()
            .filter_map(|s| s.occupied.as_ref())
            .map(|o| o.tile.as_built_bytes().len())
            .sum();
        assert_eq!(self.tile_bytes, bytes);
        for i in 0..copy.slots.len() {
            copy.refresh(i);
        }
        assert_eq!(
            self.extra_bytes,
            copy.slots.iter().map(|s| s.extra as usize).sum::<usize>()
        );
        for (a, b) in self.slots.iter().zip(&copy.slots) {
            assert_eq!(a.extra, b.extra);
        }
        copy.rebuild_chunks();
        assert_eq!(self.chunks, copy.chunks);
        assert_eq!(self.packs.len(), self.chunks.len());
        for p in &self.packs {
            p.assert_valid();
        }
        for (i, s) in self.slots.iter().enumerate() {
            assert_eq!(
                self.packs[i / CHUNK_SLOTS].get(i % CHUNK_SLOTS),
                s.tile().map(NavTile::as_built_bytes)
            );
        }
        // The cached records are the slots' Referenced records exactly as `put_state` writes
        // their edits and switches (S7, S8, S10–S16).
        for (i, s) in self.slots.iter().enumerate() {
            let mut want = s.generation.get().to_le_bytes().to_vec();
            match &s.occupied {
                None => want.push(0),
                Some(o) => {
                    want.push(2);
                    want.extend_from_slice(&o.tile.content_id().0);
                    put_state(&o.tile, &mut |b: &[u8]| want.extend_from_slice(b));
                    assert_eq!(want.len(), 45 + s.extra as usize);
                }
            }
            assert_eq!(self.chunks[i / CHUNK_SLOTS].record(i % CHUNK_SLOTS), want);
        }
        for (i, s) in self.slots.iter().enumerate() {
            if let Some(o) = &s.occupied {
                let p = o.tile.pos();
                assert!(self
                    .cell(p.column, p.row)
                    .contains(&(p.layer, SlotIndex(i as u32))));
            }
        }
        assert_eq!(
            self.cells.values().map(Vec::len).sum::<usize>(),
            self.slots.len() - self.free.len()
        );
    }

    /// Builds the derived indices and stitches every occupied slot (in parallel, merged in slot
    /// order). Slots whose tile in `reuse` is provably unchanged keep those links.
    pub fn from_slots(
        slots: Vec<(Generation, Option<NavTile>)>,
        reuse: Option<&MeshState>,
    ) -> Self {
        let mut state = MeshState {
            slots: Vec::with_capacity(slots.len()),
            free: BTreeSet::new(),
            cells: CellIndex::new(),
            tile_bytes: 0,
            extra_bytes: 0,
            chunks: Vec::new(),
            packs: Vec::new(),
        };
        let mut free = Vec::new();
        for (i, (generation, tile)) in slots.into_iter().enumerate() {
            let mut slot = Slot::free(generation);
            if let Some(tile) = tile {
                state.tile_bytes += tile.as_built_bytes().len();
                let p = tile.pos();
                let cell = state.cells.entry((p.column, p.row)).or_default();
                let at = cell.partition_point(|&(l, _)| l < p.layer);
                cell.insert(at, (p.layer, SlotIndex(i as u32)));
                slot.occupied = Some(Box::new(Occupied {
                    tile,
                    links: Arc::default(),
                    landings: Arc::default(),
                }));
            } else {
                free.push(SlotIndex(i as u32));
            }
            state.slots.push(slot);
            state.refresh_slot(i);
        }
        state.rebuild_chunks();
        // Built from an ascending sequence in one pass.
        state.free = free.into_iter().collect();
        let dirty = match reuse {
            Some(old) => state.dirty_against(old),
            None => (0..state.slots.len() as u32)
                .filter(|&i| state.slots[i as usize].occupied.is_some())
                .map(SlotIndex)
                .collect(),
        };
        if let Some(old) = reuse {
            for (i, s) in state.slots.iter_mut().enumerate() {
                if let (Some(o), Some(prev)) = (
                    s.occupied.as_mut(),
                    old.slots.get(i).and_then(|p| p.occupied.as_ref()),
                ) {
                    o.links = Arc::clone(&prev.links);
                    o.landings = Arc::clone(&prev.landings);
                }
            }
        }
        state.restitch(&dirty);
        state
    }

    /// The state holding `slots`, built from `old` (which it consumes): when no slot changed its
    /// generation, occupancy or tile contents (the rollback case: only edits and switches
    /// differ), `old` is kept whole — cells, links, landings and slot boxes — and only each
    /// slot's tile (with its edits and switches) is swapped; otherwise [`MeshState::from_slots`]
    /// with `old` to reuse from. Both give exactly the state `from_slots(slots, None)` gives.
    pub fn rebuild(mut old: MeshState, slots: Vec<(Generation, Option<NavTile>)>) -> Self {
        let unchanged = old.slots.len() == slots.len()
            && old.slots.iter().zip(&slots).all(|(o, (g, t))| {
                o.generation == *g
                    && match (&o.occupied, t) {
                        (None, None) => true,
                        (Some(a), Some(b)) => a.tile.content_id() == b.content_id(),
                        _ => false,
                    }
            });
        if !unchanged {
            return Self::from_slots(slots, Some(&old));
        }
        // With the generation and content id unchanged, a slot's packed bytes stay (the content
        // id is the SHA-256 of those bytes), and one without edits or switches before and after
        // keeps its record and extra too: most slots of a rollback. Only the others are
        // refreshed.
        let plain = |t: &NavTile| t.edited_polys().len() == 0 && t.disabled_links().len() == 0;
        for (i, (_, tile)) in slots.into_iter().enumerate() {
            let (Some(o), Some(t)) = (old.slots[i].occupied.as_mut(), tile) else {
                // Free before and after, same generation: nothing derived changes.
                continue;
            };
            let keep = plain(&o.tile) && plain(&t);
            o.tile = t;
            if !keep {
                old.refresh(i);
            }
        }
        old
    }

    /// Slots whose links may differ from `old`'s: every occupied slot in the 3 × 3 around a slot
    /// whose generation or tile contents changed. Tile contents are compared by identity of the
    /// shared immutable data, or by content id and position.
    fn dirty_against(&self, old: &MeshState) -> Vec<SlotIndex> {
        let mut changed_cells = BTreeSet::new();
        for (i, s) in self.slots.iter().enumerate() {
            let o = old.slots.get(i);
            let same = o.is_some_and(|o| {
                o.generation == s.generation
                    && match (&o.occupied, &s.occupied) {
                        (None, None) => true,
                        (Some(a), Some(b)) => {
                            a.tile.shares_contents(&b.tile)
                                || a.tile.content_id() == b.tile.content_id()
                        }
                        _ => false,
                    }
            });
            if !same {
                for t in [o.and_then(|o| o.occupied.as_ref()), s.occupied.as_ref()]
                    .into_iter()
                    .flatten()
                {
                    let p = t.tile.pos();
                    changed_cells.insert((p.column, p.row));
                }
            }
        }
        let mut dirty = BTreeSet::new();
        for (c, r) in changed_cells {
            for (nc, nr) in neighbourhood(c, r) {
                dirty.extend(self.cell(nc, nr).iter().map(|&(_, s)| s));
            }
        }
        dirty.into_iter().collect()
    }

    /// Stitches the given occupied slots again, in two phases (ordered parallel maps; both are
    /// pure): the landings of their off-mesh links, then their links, which read the landings of
    /// the tiles around. `slots` must hold every occupied slot in the 3 × 3 around each change, so
    /// the landings of any slot left out are still valid.
    fn restitch(&mut self, slots: &[SlotIndex]) {
        let landings: Vec<Landings> = slots.par_iter().map(|&s| tile_landings(self, s)).collect();
        for (&s, l) in slots.iter().zip(landings) {
            if let Some(o) = self.slots[s.0 as usize].occupied.as_mut() {
                o.landings = Arc::new(l);
            }
        }
        let links: Vec<TileLinks> = slots.par_iter().map(|&s| stitch_tile(self, s)).collect();
        for (&s, l) in slots.iter().zip(links) {
            if let Some(o) = self.slots[s.0 as usize].occupied.as_mut() {
                o.links = Arc::new(l);
            }
        }
    }

    /// Landing budgets (`spec/navmesh-format.md` K17) of the state that puts `tile` at its
    /// position, in a free slot or in place of the tile in slot `replacing`: the new tile is
    /// checked first, then the tiles around it by ascending slot (only their landing work can
    /// change). The tiles whose links can end in a cell of the 3 × 3 lie in the 5 × 5 around it.
    pub fn check_landings(
        &self,
        tile: &NavTile,
        replacing: Option<SlotIndex>,
    ) -> Result<(), MeshError> {
        let pos = tile.pos();
        let kept = |&&(_, s): &&(u32, SlotIndex)| Some(s) != replacing;
        let mut near: Vec<&NavTile> = vec![tile];
        for dc in -2..=2 {
            for dr in -2..=2 {
                let (Some(c), Some(r)) = (pos.column.checked_add(dc), pos.row.checked_add(dr))
                else {
                    continue;
                };
                near.extend(
                    self.cell(c, r)
                        .iter()
                        .filter(kept)
                        .filter_map(|&(_, s)| self.occupant(s).map(|(_, t)| t)),
                );
            }
        }
        let cells = weight_per_cell(near);
        let mut around: Vec<SlotIndex> = neighbourhood(pos.column, pos.row)
            .flat_map(|(c, r)| self.cell(c, r).iter().filter(kept).map(|&(_, s)| s))
            .collect();
        around.sort_unstable();
        let candidates = std::iter::once(tile).chain(
            around
                .iter()
                .filter_map(|&s| self.occupant(s).map(|(_, t)| t)),
        );
        match first_over_budget(candidates.map(|t| (t.pos(), t)), &cells) {
            Some((pos, work, budget)) => Err(MeshError::LandingBudget { pos, work, budget }),
            None => Ok(()),
        }
    }

    /// Stitches again every occupied slot in the 3 × 3 around `pos`.
    fn restitch_around(&mut self, pos: TilePos) {
        let mut v: Vec<SlotIndex> = neighbourhood(pos.column, pos.row)
            .flat_map(|(c, r)| self.cell(c, r).iter().map(|&(_, s)| s))
            .collect();
        v.sort_unstable();
        self.restitch(&v);
    }
}

/// A tiled navigation mesh.
#[derive(Debug, Clone)]
pub struct TiledNavMesh {
    params: MeshParams,
    pub(crate) state: MeshState,
}

impl TiledNavMesh {
    /// A mesh with `params.slot_count` free slots, each of generation 1.
    pub fn new(params: MeshParams) -> Self {
        Self {
            params,
            state: MeshState::empty(params.slot_count),
        }
    }

    pub(crate) fn from_state(params: MeshParams, state: MeshState) -> Self {
        Self { params, state }
    }

    /// The mesh parameters.
    pub fn params(&self) -> &MeshParams {
        &self.params
    }

    /// The number of slots S.
    pub fn slot_count(&self) -> u32 {
        self.params.slot_count
    }

    /// Number of tiles in the mesh.
    pub fn tile_count(&self) -> usize {
        self.state.slots.len() - self.state.free.len()
    }

    /// Generation of a slot.
    pub fn slot_generation(&self, slot: SlotIndex) -> Option<Generation> {
        self.state.slots.get(slot.0 as usize).map(|s| s.generation)
    }

    fn check_tile(&self, tile: &NavTile) -> Result<(), MeshError> {
        if tile.digest() != self.params.digest {
            return Err(MeshError::Fingerprint(FingerprintError {
                offset: None,
                field: "tile.params.settings_digest".into(),
                expected: self.params.digest,
                found: tile.digest(),
            }));
        }
        if !tile.grid().bits_eq(&self.params.grid) {
            return Err(MeshError::ParamsMismatch);
        }
        Ok(())
    }

    /// Adds a tile in the lowest-indexed free slot and stitches it and its neighbours. The mesh
    /// keeps its own copy: later edits never reach the caller's tile.
    pub fn add_tile(&mut self, tile: NavTile) -> Result<TileRef, MeshError> {
        self.check_tile(&tile)?;
        let pos = tile.pos();
        if let Some(existing) = self.tile_ref_at(pos) {
            return Err(MeshError::PositionTaken { pos, existing });
        }
        let slot = *self.state.free.first().ok_or(MeshError::NoFreeSlot)?;
        let slot = slot.0;
        self.state.check_room(12 + full_extra(&tile))?;
        self.state.check_landings(&tile, None)?;
        self.state.free.remove(&SlotIndex(slot));
        let cell = self.state.cells.entry((pos.column, pos.row)).or_default();
        let at = cell.partition_point(|&(l, _)| l < pos.layer);
        cell.insert(at, (pos.layer, SlotIndex(slot)));
        self.state.tile_bytes += tile.as_built_bytes().len();
        let s = &mut self.state.slots[slot as usize];
        s.occupied = Some(Box::new(Occupied {
            tile,
            links: Arc::default(),
            landings: Arc::default(),
        }));
        let r = TileRef::new(s.generation, SlotIndex(slot));
        self.state.refresh_tile(slot as usize);
        self.state.restitch_around(pos);
        Ok(r)
    }

    /// Removes a tile; its slot's generation advances, so references into it become stale.
    pub fn remove_tile(&mut self, r: TileRef) -> Result<NavTile, MeshError> {
        self.occupied(r).ok_or(MeshError::InvalidTileRef(r))?;
        let slot = r.slot().0;
        let s = &mut self.state.slots[slot as usize];
        let occ = s.occupied.take().expect("checked occupied");
        s.generation = s.generation.next();
        self.state.free.insert(SlotIndex(slot));
        self.state.tile_bytes -= occ.tile.as_built_bytes().len();
        self.state.refresh_tile(slot as usize);
        let pos = occ.tile.pos();
        if let Some(cell) = self.state.cells.get_mut(&(pos.column, pos.row)) {
            cell.retain(|&(_, sl)| sl.0 != slot);
            if cell.is_empty() {
                self.state.cells.remove(&(pos.column, pos.row));
            }
        }
        self.state.restitch_around(pos);
        Ok(occ.tile)
    }

    /// Puts `tile` in place of the tile at its position, in the same slot, with the slot's
    /// generation advanced; the position's edits and switches become the new tile's values.
    pub fn replace_tile(&mut self, tile: NavTile) -> Result<TileRef, MeshError> {
        self.check_tile(&tile)?;
        let pos = tile.pos();
        let old = self.tile_ref_at(pos).ok_or(MeshError::NoTileAt { pos })?;
        self.state.check_room(full_extra(&tile))?;
        self.state.check_landings(&tile, Some(old.slot()))?;
        let s = &mut self.state.slots[old.slot().0 as usize];
        s.generation = s.generation.next();
        let added = tile.as_built_bytes().len();
        let prev = s.occupied.replace(Box::new(Occupied {
            tile,
            links: Arc::default(),
            landings: Arc::default(),
        }));
        let r = TileRef::new(s.generation, old.slot());
        if let Some(prev) = prev {
            self.state.tile_bytes -= prev.tile.as_built_bytes().len();
        }
        self.state.tile_bytes += added;
        self.state.refresh_tile(old.slot().0 as usize);
        self.state.restitch_around(pos);
        Ok(r)
    }

    fn occupied(&self, r: TileRef) -> Option<&Occupied> {
        let s = self.state.slots.get(r.slot().0 as usize)?;
        (s.generation == r.generation()).then_some(())?;
        s.occupied.as_deref()
    }

    fn occupied_mut(&mut self, r: TileRef) -> Option<&mut Occupied> {
        let s = self.state.slots.get_mut(r.slot().0 as usize)?;
        (s.generation == r.generation()).then_some(())?;
        s.occupied.as_deref_mut()
    }

    /// The mesh's copy of the tile, if the reference is current.
    pub fn tile(&self, r: TileRef) -> Option<&NavTile> {
        self.occupied(r).map(|o| &o.tile)
    }

    /// The reference of the tile at a position.
    pub fn tile_ref_at(&self, pos: TilePos) -> Option<TileRef> {
        let cell = self.state.cells.get(&(pos.column, pos.row))?;
        let &(_, slot) = cell.iter().find(|&&(l, _)| l == pos.layer)?;
        Some(TileRef::new(
            self.state.slots[slot.0 as usize].generation,
            slot,
        ))
    }

    /// The tile at a position.
    pub fn tile_at(&self, pos: TilePos) -> Option<(TileRef, &NavTile)> {
        let r = self.tile_ref_at(pos)?;
        Some((r, self.tile(r)?))
    }

    /// Every tile in slot order.
    pub fn tiles(&self) -> impl Iterator<Item = (TileRef, &NavTile)> + '_ {
        self.state.slots.iter().enumerate().filter_map(|(i, s)| {
            s.occupied
                .as_ref()
                .map(|o| (TileRef::new(s.generation, SlotIndex(i as u32)), &o.tile))
        })
    }

    /// The tiles in a cell, by ascending layer.
    pub fn tiles_in_cell(
        &self,
        column: i32,
        row: i32,
    ) -> impl Iterator<Item = (TileRef, &NavTile)> + '_ {
        self.state
            .cell(column, row)
            .iter()
            .filter_map(move |&(_, s)| {
                let slot = &self.state.slots[s.0 as usize];
                slot.occupied
                    .as_ref()
                    .map(|o| (TileRef::new(slot.generation, s), &o.tile))
            })
    }

    /// True iff the reference is valid now: slot < S, occupied, same generation, polygon index
    /// below the tile's polygon count.
    pub fn is_valid_poly_ref(&self, r: PolyRef) -> bool {
        self.poly(r).is_some()
    }

    /// As [`TiledNavMesh::is_valid_poly_ref`] for any u64, forged or not.
    pub fn is_valid_raw_ref(&self, raw: u64) -> bool {
        PolyRef::from_raw(raw).is_some_and(|r| self.is_valid_poly_ref(r))
    }

    /// The tile of a valid polygon reference and the polygon index.
    pub fn poly(&self, r: PolyRef) -> Option<(&NavTile, PolyIndex)> {
        let o = self.occupied(r.tile())?;
        (r.poly().0 < o.tile.poly_count()).then_some((&o.tile, r.poly()))
    }

    /// The links of a polygon, in canonical order.
    pub fn links(&self, r: PolyRef) -> Option<&[Link]> {
        let o = self.occupied(r.tile())?;
        (r.poly().0 < o.tile.poly_count()).then(|| o.links.of(r.poly()))
    }

    /// The links of every polygon of a tile.
    pub fn tile_links(&self, r: TileRef) -> Option<&TileLinks> {
        self.occupied(r).map(|o| &*o.links)
    }

    /// Current area of a polygon.
    pub fn poly_area(&self, r: PolyRef) -> Option<u8> {
        let (t, p) = self.poly(r)?;
        t.area(p)
    }

    /// Current flags of a polygon.
    pub fn poly_flags(&self, r: PolyRef) -> Option<u16> {
        let (t, p) = self.poly(r)?;
        t.flags(p)
    }

    fn edit(&mut self, r: PolyRef, f: impl FnOnce(u8, u16) -> (u8, u16)) -> Result<(), MeshError> {
        let o = self
            .occupied_mut(r.tile())
            .ok_or(MeshError::InvalidPolyRef(r))?;
        let p = r.poly();
        let (Some(a), Some(fl)) = (o.tile.area(p), o.tile.flags(p)) else {
            return Err(MeshError::InvalidPolyRef(r));
        };
        let (na, nf) = f(a, fl);
        self.state.check_room(7)?;
        let o = self
            .occupied_mut(r.tile())
            .ok_or(MeshError::InvalidPolyRef(r))?;
        o.tile.set_area_flags(p, na, nf);
        self.state.refresh(r.slot().0 as usize);
        Ok(())
    }

    /// Sets a polygon's area (0 ..= 63).
    pub fn set_poly_area(&mut self, r: PolyRef, area: u8) -> Result<(), MeshError> {
        if area > MAX_AREA {
            return Err(MeshError::AreaOutOfRange(area));
        }
        self.edit(r, |_, f| (area, f))
    }

    /// Sets a polygon's flags.
    pub fn set_poly_flags(&mut self, r: PolyRef, flags: u16) -> Result<(), MeshError> {
        self.edit(r, |a, _| (a, flags))
    }

    /// Turns off-mesh link `link` of a tile on or off. Disabled links stay stitched; queries
    /// treat them as impassable.
    pub fn set_off_mesh_link_enabled(
        &mut self,
        r: TileRef,
        link: LinkIndex,
        enabled: bool,
    ) -> Result<(), MeshError> {
        let o = self.occupied_mut(r).ok_or(MeshError::InvalidTileRef(r))?;
        let count = o.tile.link_count();
        if link.0 >= count {
            return Err(MeshError::LinkOutOfRange { index: link, count });
        }
        self.state.check_room(4)?;
        let o = self.occupied_mut(r).ok_or(MeshError::InvalidTileRef(r))?;
        o.tile.set_link_enabled(link, enabled);
        self.state.refresh(r.slot().0 as usize);
        Ok(())
    }

    /// Whether an off-mesh link is enabled.
    pub fn is_off_mesh_link_enabled(&self, r: TileRef, link: LinkIndex) -> Result<bool, MeshError> {
        let o = self.occupied(r).ok_or(MeshError::InvalidTileRef(r))?;
        let count = o.tile.link_count();
        if link.0 >= count {
            return Err(MeshError::LinkOutOfRange { index: link, count });
        }
        Ok(o.tile.is_link_enabled(link))
    }

    /// The links of every slot stitched from scratch, for comparing against the incremental ones.
    pub fn stitch_from_scratch(&self) -> Vec<Option<TileLinks>> {
        let mut fresh = self.state.clone();
        for s in fresh.slots.iter_mut().filter_map(|s| s.occupied.as_mut()) {
            s.links = Arc::default();
            s.landings = Arc::default();
        }
        let all: Vec<SlotIndex> = (0..fresh.slots.len() as u32)
            .filter(|&i| fresh.slots[i as usize].occupied.is_some())
            .map(SlotIndex)
            .collect();
        fresh.restitch(&all);
        fresh
            .slots
            .iter()
            .map(|s| s.occupied.as_ref().map(|o| (*o.links).clone()))
            .collect()
    }

    /// The current links of every slot (None for free slots).
    pub fn all_links(&self) -> Vec<Option<TileLinks>> {
        self.state
            .slots
            .iter()
            .map(|s| s.occupied.as_ref().map(|o| (*o.links).clone()))
            .collect()
    }
}

impl TiledNavMesh {
    /// Adds already-checked tiles (matching parameters, unique free positions, at most the free
    /// slot count, landing budgets met) into the lowest free slots, stitching once at the end.
    pub(crate) fn add_tiles(&mut self, tiles: Vec<NavTile>) {
        let mut slots: Vec<(Generation, Option<NavTile>)> =
            std::mem::replace(&mut self.state, MeshState::empty(0))
                .slots
                .into_iter()
                .map(|s| (s.generation, s.occupied.map(|o| o.tile)))
                .collect();
        let mut free = slots.iter_mut().filter(|s| s.1.is_none());
        for t in tiles {
            if let Some(s) = free.next() {
                s.1 = Some(t);
            }
        }
        self.state = MeshState::from_slots(slots, None);
    }
}
