//! Mesh snapshots, `ONPS` version 2 (`spec/snapshot.md`): a canonical writer in Full and
//! Referenced modes ([`write`](self::write)), and a restore that validates everything, builds the
//! new state on the side, stitches it once, and only then swaps it in (§7).
//!
//! Validation runs in five stages (§6); the first stage with an error reports it, and within a
//! stage the lowest byte offset (equivalently the lowest slot) wins, whatever the thread count:
//! A. framing, in byte order (header, parameters, sections, slot records, counts against the
//!    bytes that remain, areas, strictly ascending lists) — module `read`;
//! B. tiles, by slot: inline tiles completely, referenced tiles found in the library, digests
//!    and grids against the parameters;
//! C. edits and switches against their tile, by slot;
//! D. unique positions, by slot (S17);
//! then the size of the state's Full snapshot (S29), and
//! E. landing budgets, by slot (S30) — B to E in module `check`.

mod check;
mod read;
#[cfg(test)]
mod tests;
#[cfg(test)]
pub(crate) mod tests_support;
mod write;

use crate::error::RestoreError;
use crate::library::TileLibrary;
use crate::mesh::{MeshState, TiledNavMesh};

/// Snapshot magic, "ONPS".
pub const SNAPSHOT_MAGIC: [u8; 4] = *b"ONPS";
/// The snapshot version: 2 (`spec/snapshot.md` §4.1).
pub const SNAPSHOT_VERSION: u16 = 2;
/// The one section this version knows: slots (`spec/snapshot.md` §4.2).
pub const SECTION_SLOTS: u16 = 1;

/// How tiles are stored in a snapshot (`spec/snapshot.md` §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum SnapshotMode {
    /// Each tile's as-built bytes: self-contained.
    #[default]
    Full,
    /// Each tile's 32-byte content id: restore needs a library holding the tiles.
    Referenced,
}

impl TiledNavMesh {
    /// The canonical snapshot of this mesh's dynamic state in `mode` (`spec/snapshot.md` S22): the
    /// same state gives the same bytes on every platform and thread count. O(S + edits +
    /// switches) plus the tile bytes in Full mode; no polygon is scanned.
    pub fn snapshot(&self, mode: SnapshotMode) -> Vec<u8> {
        write::snapshot(self.params(), &self.state, mode)
    }

    /// Replaces this mesh's state with the snapshot's, in place, keeping the object
    /// (`spec/snapshot.md` S20): whatever holds the mesh (a struct, a lock shared with the
    /// queries' users) keeps holding it, and queries made from it answer for the restored
    /// state. The snapshot's parameters must equal the mesh's bitwise. Any error leaves the mesh
    /// untouched. Tiles and links that are provably unchanged are reused.
    pub fn restore(&mut self, bytes: &[u8], library: &TileLibrary) -> Result<(), RestoreError> {
        let parsed = read::parse(bytes, Some(self.params()))?;
        let slots = check::build(parsed, library, Some(&self.state))?;
        // Everything is validated: from here on nothing can fail. The old state is taken apart
        // only now, so what it provably shares with the new one (unchanged slots, their links
        // and landings, the cell index) is reused instead of rebuilt.
        let old = std::mem::replace(&mut self.state, MeshState::empty(0));
        self.state = MeshState::rebuild(old, slots);
        Ok(())
    }
}

/// Restoring into a new mesh (`spec/snapshot.md` S19).
#[derive(Debug)]
pub struct NavMeshSnapshot;

impl NavMeshSnapshot {
    /// A new mesh with the snapshot's parameters and state.
    pub fn restore(bytes: &[u8], library: &TileLibrary) -> Result<TiledNavMesh, RestoreError> {
        let parsed = read::parse(bytes, None)?;
        let params = parsed.params;
        let slots = check::build(parsed, library, None)?;
        Ok(TiledNavMesh::from_state(
            params,
            MeshState::from_slots(slots, None),
        ))
    }

    /// Validates a snapshot completely without building anything a caller keeps.
    pub fn validate(bytes: &[u8], library: &TileLibrary) -> Result<(), RestoreError> {
        Self::restore(bytes, library).map(drop)
    }
}
