//! `TiledNavMesh` (`spec/navmesh-format.md` §5): slots with generations, tiles, polygon
//! references, area/flag edits, off-mesh link switches and incremental stitching (§6.6).

mod cells;
mod free;
#[cfg(test)]
mod landing_tests;
mod state;
#[cfg(test)]
mod tests;

pub(crate) use state::{ChunkChange, MeshState, Scratch, Slot, SlotContents};

use crate::error::MeshError;
use crate::ids::{Generation, LinkIndex, PolyIndex, PolyRef, SlotIndex, TilePos, TileRef};
use crate::limits::{EDIT_LEN, MAX_AREA, SWITCH_LEN};
use crate::params::MeshParams;
use crate::record::{full_tile_len, FULL_OCCUPIED_EXTRA};
use crate::stitch::{Link, TileLinks};
use crate::tile::NavTile;
use state::Occupied;

/// A tiled navigation mesh.
#[derive(Debug, Clone)]
pub struct TiledNavMesh {
    pub(crate) params: MeshParams,
    pub(crate) state: MeshState,
}

impl TiledNavMesh {
    /// A mesh with `params.slot_count()` free slots, each of generation 1.
    pub fn new(params: MeshParams) -> Self {
        Self {
            params,
            state: MeshState::empty(params.slot_count()),
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
        self.params.slot_count()
    }

    /// Number of tiles in the mesh.
    pub fn tile_count(&self) -> usize {
        self.state.tile_count()
    }

    /// Generation of a slot.
    pub fn slot_generation(&self, slot: SlotIndex) -> Option<Generation> {
        self.state.slots.get(slot.0 as usize).map(|s| s.generation)
    }

    fn check_tile(&self, tile: &NavTile) -> Result<(), MeshError> {
        match self.params.tile_mismatch(tile.digest(), &tile.grid()) {
            Some(m) => Err(m.mesh_error()),
            None => Ok(()),
        }
    }

    /// Adds a tile in the lowest-indexed free slot and stitches it and its neighbours. The mesh
    /// keeps its own copy: later edits never reach the caller's tile.
    pub fn add_tile(&mut self, tile: NavTile) -> Result<TileRef, MeshError> {
        self.check_tile(&tile)?;
        let pos = tile.pos();
        if let Some(existing) = self.tile_ref_at(pos) {
            return Err(MeshError::PositionTaken { pos, existing });
        }
        let slot = self.state.free.lowest().ok_or(MeshError::NoFreeSlot)?;
        self.state
            .check_room(FULL_OCCUPIED_EXTRA + full_tile_len(&tile))?;
        self.state.check_landings(&tile, None)?;
        let r = TileRef::new(self.state.slots[slot.0 as usize].generation, slot);
        self.state.occupy(slot, tile);
        Ok(r)
    }

    /// Removes a tile; its slot's generation advances, so references into it become stale.
    pub fn remove_tile(&mut self, r: TileRef) -> Result<NavTile, MeshError> {
        self.occupied(r)
            .ok_or(MeshError::InvalidTileRef { tile: r })?;
        self.state
            .vacate(r.slot())
            .ok_or(MeshError::InvalidTileRef { tile: r })
    }

    /// Puts `tile` in place of the tile at its position, in the same slot, with the slot's
    /// generation advanced; the position's edits and switches become the new tile's values.
    pub fn replace_tile(&mut self, tile: NavTile) -> Result<TileRef, MeshError> {
        self.check_tile(&tile)?;
        let pos = tile.pos();
        let old = self.tile_ref_at(pos).ok_or(MeshError::NoTileAt { pos })?;
        // Conservative: the old tile's bytes are not subtracted (S29).
        self.state.check_room(full_tile_len(&tile))?;
        self.state.check_landings(&tile, Some(old.slot()))?;
        self.state.swap(old.slot(), tile);
        Ok(TileRef::new(old.generation().next(), old.slot()))
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
        let slot = self.state.cells.slot_at(pos)?;
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
            .cells
            .get(column, row)
            .iter()
            .filter_map(move |e| {
                let slot = &self.state.slots[e.slot.0 as usize];
                slot.occupied
                    .as_ref()
                    .map(|o| (TileRef::new(slot.generation, e.slot), &o.tile))
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
        self.occupied(r).map(|o| &o.links)
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
            .ok_or(MeshError::InvalidPolyRef { poly: r })?;
        let p = r.poly();
        let (Some(a), Some(fl)) = (o.tile.area(p), o.tile.flags(p)) else {
            return Err(MeshError::InvalidPolyRef { poly: r });
        };
        let (na, nf) = f(a, fl);
        // Conservative by one edit: the polygon may be edited already (S29).
        self.state.check_room(EDIT_LEN as u64)?;
        let o = self
            .occupied_mut(r.tile())
            .ok_or(MeshError::InvalidPolyRef { poly: r })?;
        o.tile.set_area_flags(p, na, nf);
        self.state.refresh(r.slot().0 as usize);
        Ok(())
    }

    /// Sets a polygon's area (0 ..= 63).
    pub fn set_poly_area(&mut self, r: PolyRef, area: u8) -> Result<(), MeshError> {
        if area > MAX_AREA {
            return Err(MeshError::AreaOutOfRange {
                area,
                max: MAX_AREA,
            });
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
        self.link_tile(r, link)?;
        self.state.check_room(SWITCH_LEN as u64)?;
        let o = self
            .occupied_mut(r)
            .ok_or(MeshError::InvalidTileRef { tile: r })?;
        o.tile.set_link_enabled(link, enabled);
        self.state.refresh(r.slot().0 as usize);
        Ok(())
    }

    /// Whether an off-mesh link is enabled.
    pub fn is_off_mesh_link_enabled(&self, r: TileRef, link: LinkIndex) -> Result<bool, MeshError> {
        Ok(self.link_tile(r, link)?.is_link_enabled(link))
    }

    /// The tile of `r`, if `link` is one of its off-mesh links; otherwise the error, in the
    /// checking order of `spec/navmesh-format.md` §5.4 (invalid reference, link out of range).
    fn link_tile(&self, r: TileRef, link: LinkIndex) -> Result<&NavTile, MeshError> {
        let o = self
            .occupied(r)
            .ok_or(MeshError::InvalidTileRef { tile: r })?;
        let count = o.tile.link_count();
        if link.0 >= count {
            return Err(MeshError::LinkOutOfRange { index: link, count });
        }
        Ok(&o.tile)
    }
}
