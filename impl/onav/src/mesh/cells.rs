//! The cell index of a mesh (derived): for each occupied cell, the slots of its tiles by
//! ascending layer.

use crate::hash::FixedMap;
use crate::ids::{SlotIndex, TilePos};
use crate::stitch::CellEntry;

/// The tiles of one cell by ascending layer: up to two inline (most cells hold one or two
/// layers), more in a vector.
#[derive(Debug, Clone)]
struct CellTiles {
    len: u32,
    inline: [CellEntry; 2],
    spill: Vec<CellEntry>,
}

impl Default for CellTiles {
    fn default() -> Self {
        let unused = CellEntry {
            layer: 0,
            slot: SlotIndex(0),
        };
        Self {
            len: 0,
            inline: [unused; 2],
            spill: Vec::new(),
        }
    }
}

impl CellTiles {
    fn as_slice(&self) -> &[CellEntry] {
        if self.len as usize <= self.inline.len() {
            &self.inline[..self.len as usize]
        } else {
            &self.spill
        }
    }

    fn insert(&mut self, e: CellEntry) {
        let n = self.len as usize;
        if n < self.inline.len() {
            let at = self.inline[..n].partition_point(|x| x.layer < e.layer);
            self.inline.copy_within(at..n, at + 1);
            self.inline[at] = e;
        } else {
            if n == self.inline.len() {
                self.spill = self.inline.to_vec();
            }
            let at = self.spill.partition_point(|x| x.layer < e.layer);
            self.spill.insert(at, e);
        }
        self.len += 1;
    }

    /// Removes slot `slot`'s entry, if present.
    fn remove(&mut self, slot: SlotIndex) {
        let Some(at) = self.as_slice().iter().position(|e| e.slot == slot) else {
            return;
        };
        let n = self.len as usize;
        if n <= self.inline.len() {
            self.inline.copy_within(at + 1..n, at);
        } else {
            self.spill.remove(at);
            if n - 1 == self.inline.len() {
                self.inline.copy_from_slice(&self.spill);
                self.spill = Vec::new();
            }
        }
        self.len -= 1;
    }
}

/// Cells to tiles. Only ever looked up by key, never iterated into an output, so the map's order
/// cannot reach one (`spec/navmesh-format.md` §6.1: links depend on the slots' contents only).
#[derive(Debug, Clone, Default)]
pub(crate) struct Cells(FixedMap<(i32, i32), CellTiles>);

impl Cells {
    /// The tiles of cell (column, row), by ascending layer.
    #[inline]
    pub(crate) fn get(&self, column: i32, row: i32) -> &[CellEntry] {
        self.0.get(&(column, row)).map_or(&[], CellTiles::as_slice)
    }

    /// The slot of the tile at `pos`.
    pub(crate) fn slot_at(&self, pos: TilePos) -> Option<SlotIndex> {
        let cell = self.get(pos.column, pos.row);
        cell.iter().find(|e| e.layer == pos.layer).map(|e| e.slot)
    }

    /// Records that slot `slot` holds a tile at `pos` (whose position is free).
    pub(crate) fn insert(&mut self, pos: TilePos, slot: SlotIndex) {
        self.0
            .entry((pos.column, pos.row))
            .or_default()
            .insert(CellEntry {
                layer: pos.layer,
                slot,
            });
    }

    /// Forgets the tile of slot `slot` at `pos`.
    pub(crate) fn remove(&mut self, pos: TilePos, slot: SlotIndex) {
        if let Some(cell) = self.0.get_mut(&(pos.column, pos.row)) {
            cell.remove(slot);
            if cell.len == 0 {
                self.0.remove(&(pos.column, pos.row));
            }
        }
    }

    /// Room for `n` cells without growing.
    pub(crate) fn with_capacity(n: usize) -> Self {
        Self(FixedMap::with_capacity_and_hasher(n, Default::default()))
    }

    /// Number of tiles recorded (a test of the derived state).
    #[cfg(any(test, feature = "testkit"))]
    pub(crate) fn tile_count(&self) -> usize {
        #[allow(clippy::disallowed_methods)] // A sum: the same in any order.
        let n = self.0.values().map(|c| c.as_slice().len()).sum();
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Any sequence of inserts and removals in one cell keeps its entries, by ascending layer,
    /// equal to a sorted vector's, across the inline/spill boundary both ways.
    #[test]
    fn cell_tiles_match_a_sorted_vector() {
        let mut model: Vec<CellEntry> = Vec::new();
        let mut cell = CellTiles::default();
        let mut x = 12345u32;
        for step in 0..2000 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let layer = (x >> 16) % 6;
            let slot = SlotIndex(layer * 10 + 1);
            match model.iter().position(|e| e.layer == layer) {
                Some(at) if step % 3 != 0 => {
                    model.remove(at);
                    cell.remove(slot);
                }
                Some(_) => {}
                None => {
                    let e = CellEntry { layer, slot };
                    let at = model.partition_point(|m| m.layer < layer);
                    model.insert(at, e);
                    cell.insert(e);
                }
            }
            assert_eq!(cell.as_slice(), model.as_slice(), "step {step}");
            assert_eq!(cell.len as usize, model.len());
        }
    }
}
