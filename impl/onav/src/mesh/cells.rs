//! The cell index of a mesh (derived): for each occupied cell, the slots of its tiles by
//! ascending layer.

use crate::hash::FixedState;
use crate::ids::{SlotIndex, TilePos};
use crate::stitch::CellEntry;

/// Cells to tiles. Only ever looked up by key, never iterated into an output, so the map's order
/// cannot reach one (`spec/navmesh-format.md` §6.1: links depend on the slots' contents only).
#[allow(clippy::disallowed_types)] // Lookup only (the one iteration, a count, is order-free).
#[derive(Debug, Clone, Default)]
pub(crate) struct Cells(std::collections::HashMap<(i32, i32), Vec<CellEntry>, FixedState>);

impl Cells {
    /// The tiles of cell (column, row), by ascending layer.
    pub(crate) fn get(&self, column: i32, row: i32) -> &[CellEntry] {
        self.0.get(&(column, row)).map_or(&[], Vec::as_slice)
    }

    /// The slot of the tile at `pos`.
    pub(crate) fn slot_at(&self, pos: TilePos) -> Option<SlotIndex> {
        let cell = self.get(pos.column, pos.row);
        cell.iter().find(|e| e.layer == pos.layer).map(|e| e.slot)
    }

    /// Records that slot `slot` holds a tile at `pos` (whose position is free).
    pub(crate) fn insert(&mut self, pos: TilePos, slot: SlotIndex) {
        let cell = self.0.entry((pos.column, pos.row)).or_default();
        let at = cell.partition_point(|e| e.layer < pos.layer);
        cell.insert(
            at,
            CellEntry {
                layer: pos.layer,
                slot,
            },
        );
    }

    /// Forgets the tile of slot `slot` at `pos`.
    pub(crate) fn remove(&mut self, pos: TilePos, slot: SlotIndex) {
        if let Some(cell) = self.0.get_mut(&(pos.column, pos.row)) {
            cell.retain(|e| e.slot != slot);
            if cell.is_empty() {
                self.0.remove(&(pos.column, pos.row));
            }
        }
    }

    /// Number of tiles recorded (a test of the derived state).
    #[cfg(any(test, feature = "testkit"))]
    pub(crate) fn tile_count(&self) -> usize {
        #[allow(clippy::disallowed_methods)] // A sum: the same in any order.
        let n = self.0.values().map(Vec::len).sum();
        n
    }
}
