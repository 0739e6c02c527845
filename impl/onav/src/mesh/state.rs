//! A mesh's state besides its parameters: the slots and what is derived from them (free slots,
//! cells, links and landings, snapshot sizes, cached records and packed tile bytes).

use std::collections::BTreeSet;
use std::sync::OnceLock;

use super::cells::Cells;
use super::free::FreeSlots;
use crate::error::MeshError;
use crate::ids::{Generation, SlotIndex, TilePos};
use crate::ids::{PolyIndex, PolyRef, Side};
use crate::par;
use crate::record::{self, Chunk, Pack, Sizes, CHUNK_SLOTS};
use crate::stitch::{
    end_lands_in, first_over_budget, neighbourhood, portal_key, portal_links, stitch_tile,
    tile_landings, weight_per_cell, CellEntry, Landing, Landings, Link, LinkKind, SlotView,
    TileLinks,
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
    pub links: TileLinks,
    /// The landings of the tile's off-mesh links (derived, first stitching phase).
    pub landings: Landings,
}

impl Occupied {
    /// A tile not stitched yet.
    pub fn unstitched(tile: NavTile) -> Box<Self> {
        Box::new(Self {
            tile,
            links: TileLinks::default(),
            landings: Landings::default(),
        })
    }
}

/// The contents of a mesh's slots: for each slot its generation and its tile, if any. What a
/// restore or a mesh file read builds a state from, once every rule holds.
pub(crate) type SlotContents = Vec<(Generation, Option<NavTile>)>;

/// Everything a mesh holds besides its parameters. Restore builds one on the side and swaps it in.
#[derive(Debug, Clone)]
pub(crate) struct MeshState {
    pub slots: Vec<Slot>,
    /// Free slot indices (derived: the slots with no tile).
    pub free: FreeSlots,
    /// Occupied cells (derived).
    pub cells: Cells,
    /// Number of tiles with off-mesh links (derived): while it is zero no landing search or
    /// landing budget (K17) has anything to do.
    pub linked_tiles: usize,
    /// Sum of the as-built byte lengths of the tiles held (derived; sizes Full snapshots).
    pub tile_bytes: usize,
    /// Sum of the slots' `extra` (derived; sizes snapshots exactly).
    pub extra_bytes: usize,
    /// The Referenced snapshot's slot records (`spec/snapshot.md` §4.3) in slot order, cut into
    /// chunks of [`CHUNK_SLOTS`] slots: chunk c holds the records of slots 32c .. 32c + 31 end to
    /// end (derived). Both writers copy from them. Each is built the first time a snapshot needs
    /// it and then kept up to date, or dropped when keeping it would need a content id not
    /// computed yet: a built chunk's tiles all have their content ids at hand.
    pub chunks: Vec<OnceLock<Chunk>>,
    /// The as-built bytes of the tiles of the same runs of slots, packed together for the Full
    /// writer (derived, one [`Pack`] per chunk), built by the first Full snapshot that needs it
    /// and then kept up to date.
    pub packs: Vec<OnceLock<Pack>>,
    /// The instance number of a library known to hold every tile of this state (derived, a
    /// cache for the in-place restore's membership rule, `spec/snapshot.md` S10): libraries only
    /// grow, so it stays true until a slot's tile changes, which clears it.
    pub verified_in: Option<u64>,
    /// A buffer [`MeshState::relink`] reuses (not state: empty between operations).
    relinks: Vec<(SlotIndex, u64, Link)>,
    /// Buffers the in-place restore's rollback path reuses (not state: empty between
    /// operations), so that a rollback allocates nothing once they have grown.
    pub scratch: Scratch,
}

/// Buffers an in-place restore reuses between calls (module `snapshot`, the rollback path).
#[derive(Debug, Clone, Default)]
pub(crate) struct Scratch {
    /// Slots whose edits or switches change: (slot, offset of its edit count in the snapshot,
    /// end of its switches), ascending.
    pub slots: Vec<(usize, usize, usize)>,
    /// The chunks holding such slots, ascending.
    pub chunks: Vec<ChunkChange>,
    /// For each chunk of `chunks`, where each of its slots' records starts in the snapshot,
    /// from the chunk's first record.
    pub starts: Vec<u32>,
    /// A chunk's new records, and where each starts, when assembled.
    pub bytes: Vec<u8>,
    /// Where each of the assembled records starts.
    pub assembled: Vec<u32>,
}

/// A built chunk whose records a rollback changes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ChunkChange {
    /// The chunk.
    pub chunk: usize,
    /// Start and end of its slots' records in the snapshot.
    pub records: (usize, usize),
    /// Whether those bytes are the chunk's new records as they are (Referenced and free
    /// records only, no inline tile).
    pub as_is: bool,
    /// Where its records' starts begin in [`Scratch::starts`].
    pub starts: usize,
    /// Where its changed slots begin in [`Scratch::slots`].
    pub slots: usize,
}

impl Scratch {
    /// Empties the buffers, keeping their capacity.
    pub fn clear(&mut self) {
        self.slots.clear();
        self.chunks.clear();
        self.starts.clear();
        self.bytes.clear();
        self.assembled.clear();
    }
}

impl SlotView for MeshState {
    fn occupant(&self, slot: SlotIndex) -> Option<(Generation, &NavTile)> {
        let s = self.slots.get(slot.0 as usize)?;
        s.occupied.as_ref().map(|o| (s.generation, &o.tile))
    }

    fn landings(&self, slot: SlotIndex) -> Option<&[Option<(Landing, Landing)>]> {
        let o = self.slots.get(slot.0 as usize)?.occupied.as_ref()?;
        Some(&o.landings)
    }

    fn cell(&self, column: i32, row: i32) -> &[CellEntry] {
        self.cells.get(column, row)
    }

    fn any_links(&self) -> bool {
        self.linked_tiles > 0
    }
}

impl MeshState {
    /// `count` free slots of generation 1.
    pub fn empty(count: u32) -> Self {
        let mut state = Self {
            slots: vec![Slot::free(Generation::FIRST); count as usize],
            free: FreeSlots::all(count),
            cells: Cells::default(),
            linked_tiles: 0,
            tile_bytes: 0,
            extra_bytes: 0,
            chunks: Vec::new(),
            packs: Vec::new(),
            verified_in: None,
            relinks: Vec::new(),
            scratch: Scratch::default(),
        };
        state.rebuild_chunks();
        state
    }

    /// Number of occupied slots.
    pub fn tile_count(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// What this state's snapshots' lengths depend on (O(1), from the derived counters).
    pub fn sizes(&self) -> Sizes {
        Sizes {
            slots: self.slots.len() as u64,
            occupied: self.tile_count() as u64,
            tile_bytes: self.tile_bytes as u64,
            state_bytes: self.extra_bytes as u64,
        }
    }

    /// Fails unless the Full body (`spec/snapshot.md` S29) stays within a u32 after growing by
    /// `more` bytes.
    pub fn check_room(&self, more: u64) -> Result<(), MeshError> {
        if self.sizes().full_body() + more > u64::from(u32::MAX) {
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
        let s = &self.slots[i];
        if let Some(chunk) = self.chunks[i / CHUNK_SLOTS].get_mut() {
            chunk.update(i % CHUNK_SLOTS, s.generation, s.tile());
        }
    }

    /// [`MeshState::refresh`] after a change of slot `i`'s tile (added, removed or replaced):
    /// also puts the new tile's bytes in the slot's pack, if built (amortised O(tile bytes)
    /// more), and drops the slot's chunk if the new tile's content id is not known yet (the next
    /// Referenced snapshot writes the chunk again, hashing what it must).
    pub fn refresh_tile(&mut self, i: usize) {
        self.verified_in = None;
        let (c, k) = (i / CHUNK_SLOTS, i % CHUNK_SLOTS);
        let tile = self.slots[i].tile();
        if let Some(pack) = self.packs[c].get_mut() {
            pack.set(k, tile.map(NavTile::as_built_bytes));
        }
        if tile.is_some_and(|t| !t.content_id_known()) {
            self.chunks[c].take();
        }
        self.refresh(i);
    }

    /// Chunk `c`, built from the slots if it is not yet.
    pub fn chunk(&self, c: usize) -> &Chunk {
        self.chunks[c].get_or_init(|| self.fresh_chunk(c))
    }

    /// Pack `c`, built from the slots if it is not yet.
    pub fn pack(&self, c: usize) -> &Pack {
        self.packs[c].get_or_init(|| self.fresh_pack(c))
    }

    /// [`MeshState::refresh`] without the record, for callers that refresh many slots and then
    /// write the chunks once.
    fn refresh_slot(&mut self, i: usize) {
        let s = &mut self.slots[i];
        let extra = s.tile().map_or(0, |t| record::state_len(t) as u32);
        self.extra_bytes = self.extra_bytes - s.extra as usize + extra as usize;
        s.extra = extra;
    }

    /// Drops every chunk and pack: they are built again when a snapshot needs them.
    fn rebuild_chunks(&mut self) {
        let n = self.slots.len().div_ceil(CHUNK_SLOTS);
        self.chunks = vec![OnceLock::new(); n];
        self.packs = vec![OnceLock::new(); n];
    }

    /// The slots of chunk `c`.
    fn run(&self, c: usize) -> &[Slot] {
        let start = c * CHUNK_SLOTS;
        &self.slots[start..(start + CHUNK_SLOTS).min(self.slots.len())]
    }

    /// Chunk `c` written from scratch.
    fn fresh_chunk(&self, c: usize) -> Chunk {
        Chunk::of(self.run(c).iter().map(|s| (s.generation, s.tile())))
    }

    /// Pack `c` written from scratch.
    fn fresh_pack(&self, c: usize) -> Pack {
        Pack::of(
            self.run(c)
                .iter()
                .map(|s| s.tile().map(NavTile::as_built_bytes)),
        )
    }

    /// Checks every derived field against a recomputation (tests only).
    #[cfg(any(test, feature = "testkit"))]
    pub fn assert_derived(&self) {
        let mut free = FreeSlots::none(self.slots.len() as u32);
        for (i, s) in self.slots.iter().enumerate() {
            if s.occupied.is_none() {
                free.insert(SlotIndex(i as u32));
            }
        }
        assert_eq!(self.free, free);
        let linked = self.slots.iter().filter_map(Slot::tile);
        assert_eq!(
            self.linked_tiles,
            linked.filter(|t| t.link_count() > 0).count()
        );
        let mut copy = self.clone();
        for i in 0..copy.slots.len() {
            copy.refresh_slot(i);
        }
        assert_eq!(self.sizes(), Sizes::of(self.slots.iter().map(Slot::tile)));
        for (a, b) in self.slots.iter().zip(&copy.slots) {
            assert_eq!(a.extra, b.extra);
        }
        assert_eq!(self.chunks.len(), self.slots.len().div_ceil(CHUNK_SLOTS));
        assert_eq!(self.packs.len(), self.chunks.len());
        for (c, chunk) in self.chunks.iter().enumerate() {
            if let Some(chunk) = chunk.get() {
                assert!(self
                    .run(c)
                    .iter()
                    .filter_map(Slot::tile)
                    .all(NavTile::content_id_known));
                assert_eq!(*chunk, self.fresh_chunk(c));
            }
        }
        for p in self.packs.iter().filter_map(OnceLock::get) {
            p.assert_valid();
        }
        for (i, s) in self.slots.iter().enumerate() {
            if let Some(pack) = self.packs[i / CHUNK_SLOTS].get() {
                assert_eq!(
                    pack.get(i % CHUNK_SLOTS),
                    s.tile().map(NavTile::as_built_bytes)
                );
            }
            if let Some(t) = s.tile() {
                assert_eq!(self.cells.slot_at(t.pos()), Some(SlotIndex(i as u32)));
            }
        }
        assert_eq!(self.cells.tile_count(), self.tile_count());
    }

    /// Builds the derived indices and stitches every occupied slot (in parallel, merged in slot
    /// order). Slots whose tile in `reuse` is provably unchanged keep those links. The caller
    /// has checked every rule the contents must meet (`spec/navmesh-format.md` §5.2 and K17):
    /// matching parameters, unique positions, landing budgets.
    pub fn from_slots(slots: SlotContents, reuse: Option<MeshState>) -> Self {
        let occupied = slots.iter().filter(|(_, t)| t.is_some()).count();
        let mut state = MeshState {
            slots: Vec::with_capacity(slots.len()),
            free: FreeSlots::none(slots.len() as u32),
            cells: Cells::with_capacity(occupied),
            linked_tiles: 0,
            tile_bytes: 0,
            extra_bytes: 0,
            chunks: Vec::new(),
            packs: Vec::new(),
            verified_in: None,
            relinks: Vec::new(),
            scratch: Scratch::default(),
        };
        for (i, (generation, tile)) in slots.into_iter().enumerate() {
            let mut slot = Slot::free(generation);
            let index = SlotIndex(i as u32);
            if let Some(tile) = tile {
                state.tile_bytes += tile.as_built_bytes().len();
                state.linked_tiles += usize::from(tile.link_count() > 0);
                state.cells.insert(tile.pos(), index);
                slot.occupied = Some(Occupied::unstitched(tile));
            } else {
                state.free.insert(index);
            }
            state.slots.push(slot);
            state.refresh_slot(i);
        }
        state.rebuild_chunks();
        let dirty = match &reuse {
            Some(old) => state.dirty_against(old),
            None => state.occupied_slots(),
        };
        if let Some(mut old) = reuse {
            // Every slot takes its predecessor's links and landings; the dirty ones are
            // stitched again below.
            for (s, prev) in state.slots.iter_mut().zip(&mut old.slots) {
                if let (Some(o), Some(prev)) = (s.occupied.as_mut(), prev.occupied.as_mut()) {
                    o.links = std::mem::take(&mut prev.links);
                    o.landings = std::mem::take(&mut prev.landings);
                }
            }
        }
        state.restitch(&dirty);
        state
    }

    /// The occupied slots, ascending.
    pub fn occupied_slots(&self) -> Vec<SlotIndex> {
        (0..self.slots.len() as u32)
            .map(SlotIndex)
            .filter(|s| self.slots[s.0 as usize].occupied.is_some())
            .collect()
    }

    /// The state holding `slots`, built from `old` (which it consumes): when no slot changed its
    /// generation, occupancy or tile contents (the rollback case: only edits and switches
    /// differ), `old` is kept whole — cells, links, landings and slot boxes — and only each
    /// slot's tile (with its edits and switches) is swapped; otherwise [`MeshState::from_slots`]
    /// with `old` to reuse from. Both give exactly the state `from_slots(slots, None)` gives.
    pub fn rebuild(mut old: MeshState, slots: SlotContents) -> Self {
        let unchanged = old.slots.len() == slots.len()
            && old.slots.iter().zip(&slots).all(|(o, (g, t))| {
                o.generation == *g
                    && match (&o.occupied, t) {
                        (None, None) => true,
                        (Some(a), Some(b)) => a.tile.same_as_built(b),
                        _ => false,
                    }
            });
        if !unchanged {
            return Self::from_slots(slots, Some(old));
        }
        // With the generation and the as-built bytes unchanged, a slot's packed bytes stay, and
        // one without edits or switches before and after
        // keeps its record and extra too: most slots of a rollback. Only the others are
        // refreshed.
        let plain = |t: &NavTile| t.edited_polys().len() == 0 && t.disabled_links().len() == 0;
        for (i, (_, tile)) in slots.into_iter().enumerate() {
            let (Some(o), Some(t)) = (old.slots[i].occupied.as_mut(), tile) else {
                // Free before and after, same generation: nothing derived changes.
                continue;
            };
            let keep = plain(&o.tile) && plain(&t);
            if !t.content_id_known() {
                // Equal bytes, other contents not hashed yet: a built chunk stays only with
                // every id at hand.
                old.chunks[i / CHUNK_SLOTS].take();
            }
            o.tile = t;
            if !keep {
                old.refresh(i);
            }
        }
        old
    }

    /// True when `slots` has this state's slot count and every slot the same occupancy and tile
    /// contents (content ids; generations may differ): the slots hold this state's own tiles at
    /// their own positions.
    pub fn same_tiles(&self, slots: &SlotContents) -> bool {
        self.slots.len() == slots.len()
            && self
                .slots
                .iter()
                .zip(slots)
                .all(|(o, (_, t))| match (&o.occupied, t) {
                    (None, None) => true,
                    (Some(a), Some(b)) => a.tile.same_as_built(b),
                    _ => false,
                })
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
                        (Some(a), Some(b)) => a.tile.same_as_built(&b.tile),
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
                dirty.extend(self.cell(nc, nr).iter().map(|e| e.slot));
            }
        }
        dirty.into_iter().collect()
    }

    /// Stitches the given occupied slots again, in two phases (ordered parallel maps; both are
    /// pure): the landings of their off-mesh links, then their links, which read the landings of
    /// the tiles around. `slots` must hold every occupied slot in the 3 × 3 around each change, so
    /// the landings of any slot left out are still valid.
    pub fn restitch(&mut self, slots: &[SlotIndex]) {
        let polys = slots
            .iter()
            .filter_map(|&s| self.occupant(s))
            .map(|(_, t)| t.poly_count() as usize)
            .sum();
        if self.linked_tiles > 0 {
            let landings: Vec<Landings> = par::map(slots, polys, par::PAR_MIN_POLYS, |_, &s| {
                tile_landings(self, s)
            });
            for (&s, l) in slots.iter().zip(landings) {
                if let Some(o) = self.slots[s.0 as usize].occupied.as_mut() {
                    o.landings = l;
                }
            }
        }
        let links: Vec<TileLinks> = par::map(slots, polys, par::PAR_MIN_POLYS, |_, &s| {
            stitch_tile(self, s)
        });
        for (&s, l) in slots.iter().zip(links) {
            if let Some(o) = self.slots[s.0 as usize].occupied.as_mut() {
                o.links = l;
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
        if tile.link_count() == 0 && self.linked_tiles == 0 {
            // No tile of the resulting state has a link: every landing work is 0.
            return Ok(());
        }
        let pos = tile.pos();
        let kept = |e: &&CellEntry| Some(e.slot) != replacing;
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
                        .filter_map(|e| self.occupant(e.slot).map(|(_, t)| t)),
                );
            }
        }
        let cells = weight_per_cell(near);
        let mut around: Vec<SlotIndex> = neighbourhood(pos.column, pos.row)
            .flat_map(|(c, r)| self.cell(c, r).iter().filter(kept).map(|e| e.slot))
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
    pub fn restitch_around(&mut self, pos: TilePos) {
        let mut v: Vec<SlotIndex> = neighbourhood(pos.column, pos.row)
            .flat_map(|(c, r)| self.cell(c, r).iter().map(|e| e.slot))
            .collect();
        v.sort_unstable();
        self.restitch(&v);
    }

    /// Whether a change of the tile at `pos` (added, removed or replaced; `linked` when that tile,
    /// before or after, has off-mesh links) can change any off-mesh link's links: when the tile
    /// has links, or a tile of the 3 × 3 around has a link whose end may land in `pos`'s cell
    /// (K9). Otherwise only portal links between the tile and the tiles of the four
    /// edge-adjacent cells change (K3, K5).
    fn off_mesh_involved(&self, pos: TilePos, linked: bool) -> bool {
        if linked {
            return true;
        }
        if self.linked_tiles == 0 {
            return false;
        }
        neighbourhood(pos.column, pos.row).any(|(c, r)| {
            self.cell(c, r).iter().any(|e| {
                self.occupant(e.slot).is_some_and(|(_, t)| {
                    t.off_mesh_links()
                        .iter()
                        .any(|l| end_lands_in(t, &l.end, pos.column, pos.row))
                })
            })
        })
    }

    /// Brings the links up to date after the tile in `slot` (at `pos`) changed, `linked` as for
    /// [`MeshState::off_mesh_involved`]: with an off-mesh link involved, every tile of the 3 × 3
    /// is stitched again; otherwise the tile's own links are stitched (none when `slot` is now
    /// free) and, in each tile of the four edge-adjacent cells, the portal links to the slot are
    /// dropped and those to its new tile merged in at their canonical places (K12). Both give
    /// the links a from-scratch stitch gives (K13).
    fn relink(&mut self, slot: SlotIndex, pos: TilePos, linked: bool) {
        if self.off_mesh_involved(pos, linked) {
            self.restitch_around(pos);
            return;
        }
        let links = stitch_tile(self, slot);
        let gen = self.slots[slot.0 as usize].generation;
        let tile = self.slots[slot.0 as usize]
            .occupied
            .as_ref()
            .map(|o| &o.tile);
        // The neighbours' new portal links to the tile, computed with the neighbour's edge first
        // (K6: a from-scratch stitch of the neighbour computes them so).
        let mut new = std::mem::take(&mut self.relinks);
        new.clear();
        for side in Side::ALL {
            let Some((nc, nr)) = across(pos, side) else {
                continue;
            };
            let Some(t) = tile else { break };
            for e in self.cell(nc, nr) {
                let Some((_, u)) = self.occupant(e.slot) else {
                    continue;
                };
                let theirs = side.opposite();
                portal_links(u, t, theirs, |f, g, lo, hi| {
                    let link = Link {
                        target: PolyRef::new(gen, slot, g.poly),
                        kind: LinkKind::Portal {
                            edge: f.edge,
                            side: theirs,
                            lo,
                            hi,
                        },
                    };
                    new.push((e.slot, portal_key(f.poly, f.edge, slot, g.poly), link));
                });
            }
        }
        if let Some(o) = self.slots[slot.0 as usize].occupied.as_mut() {
            o.links = links;
        }
        new.sort_unstable_by_key(|&(u, key, _)| (u, key));
        for side in Side::ALL {
            let Some((nc, nr)) = across(pos, side) else {
                continue;
            };
            for e in self.cells.get(nc, nr) {
                let Some(o) = self.slots[e.slot.0 as usize].occupied.as_mut() else {
                    continue;
                };
                let at = new.partition_point(|x| x.0 < e.slot);
                let n = new[at..].iter().take_while(|x| x.0 == e.slot).count();
                let mine = &new[at..at + n];
                if mine.is_empty() && !o.links.targets(slot) {
                    continue;
                }
                o.links.remove_slot(slot);
                o.links.insert(mine, |&(_, key, link)| {
                    (PolyIndex((key >> 43) as u32), link)
                });
            }
        }
        new.clear();
        self.relinks = new;
    }

    /// Puts `tile` in the free slot `slot` and stitches around it; the caller has checked every
    /// rule (position free, room, landing budgets).
    pub fn occupy(&mut self, slot: SlotIndex, tile: NavTile) {
        let pos = tile.pos();
        let linked = tile.link_count() > 0;
        self.free.remove(slot);
        self.cells.insert(pos, slot);
        self.tile_bytes += tile.as_built_bytes().len();
        self.linked_tiles += usize::from(linked);
        self.slots[slot.0 as usize].occupied = Some(Occupied::unstitched(tile));
        self.refresh_tile(slot.0 as usize);
        self.relink(slot, pos, linked);
    }

    /// Empties the occupied slot `slot`, advancing its generation, and stitches around it.
    /// Returns its tile.
    pub fn vacate(&mut self, slot: SlotIndex) -> Option<NavTile> {
        let s = &mut self.slots[slot.0 as usize];
        let occ = s.occupied.take()?;
        s.generation = s.generation.next();
        let linked = occ.tile.link_count() > 0;
        self.free.insert(slot);
        self.tile_bytes -= occ.tile.as_built_bytes().len();
        self.linked_tiles -= usize::from(linked);
        self.refresh_tile(slot.0 as usize);
        let pos = occ.tile.pos();
        self.cells.remove(pos, slot);
        self.relink(slot, pos, linked);
        Some(occ.tile)
    }

    /// Puts `tile` in the occupied slot `slot` in place of the tile at the same position,
    /// advancing its generation, and stitches around it; the caller has checked every rule.
    pub fn swap(&mut self, slot: SlotIndex, tile: NavTile) {
        let pos = tile.pos();
        let added = tile.as_built_bytes().len();
        let mut linked = tile.link_count() > 0;
        self.linked_tiles += usize::from(linked);
        let s = &mut self.slots[slot.0 as usize];
        s.generation = s.generation.next();
        if let Some(prev) = s.occupied.replace(Occupied::unstitched(tile)) {
            self.tile_bytes -= prev.tile.as_built_bytes().len();
            let was = prev.tile.link_count() > 0;
            self.linked_tiles -= usize::from(was);
            linked |= was;
        }
        self.tile_bytes += added;
        self.refresh_tile(slot.0 as usize);
        self.relink(slot, pos, linked);
    }
}

/// The cell across `side` of the cell at `pos`, unless it lies outside the i32 range.
fn across(pos: TilePos, side: Side) -> Option<(i32, i32)> {
    let (dc, dr) = side.step();
    Some((pos.column.checked_add(dc)?, pos.row.checked_add(dr)?))
}
