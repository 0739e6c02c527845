//! Mesh snapshots, `ONPS` version 2 (`spec/snapshot.md`): a canonical writer in Full and
//! Referenced modes (module `write`), and a restore that validates everything, builds the
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
mod rollback;
#[cfg(any(test, feature = "testkit"))]
pub(crate) use rollback::try_rollback;
mod write;

use crate::bytes::Writer;
use crate::error::RestoreError;
use crate::library::TileLibrary;
use crate::mesh::{MeshState, SlotContents, TiledNavMesh};
use crate::params::MeshParams;

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

    /// The length in bytes of [`TiledNavMesh::snapshot`]`(mode)`, exactly, without writing it:
    /// what a container format that embeds the snapshot (the tile cache's `ONTK`) needs to
    /// reserve its buffer once. O(1) once the mesh's records are built.
    pub fn snapshot_len(&self, mode: SnapshotMode) -> usize {
        write::len(&self.state, mode)
    }

    /// Bytes to have free in a [`Writer`] before [`TiledNavMesh::write_snapshot`] so that the
    /// write never reallocates: [`TiledNavMesh::snapshot_len`] plus a small slack (the Full
    /// writer copies short runs as fixed-size moves and then cuts back).
    pub fn snapshot_capacity(&self, mode: SnapshotMode) -> usize {
        write::capacity(self.snapshot_len(mode))
    }

    /// Appends the canonical snapshot in `mode` (`spec/snapshot.md` S22) to `w`, after whatever
    /// it holds: the same bytes as [`TiledNavMesh::snapshot`], written in place, so a format
    /// that embeds a mesh snapshot (`spec/tilecache.md` TC30) writes everything with one copy.
    /// Exactly [`TiledNavMesh::snapshot_len`] bytes are appended.
    pub fn write_snapshot(&self, mode: SnapshotMode, w: &mut Writer) {
        let len = write::len(&self.state, mode);
        write::write_into(w, self.params(), &self.state, mode, len);
    }

    /// Replaces this mesh's state with the snapshot's, in place, keeping the object
    /// (`spec/snapshot.md` S20): whatever holds the mesh (a struct, a lock shared with the
    /// queries' users) keeps holding it, and queries made from it answer for the restored
    /// state. The snapshot's parameters must equal the mesh's bitwise. Any error leaves the mesh
    /// untouched. Tiles and links that are provably unchanged are reused. The same as
    /// [`TiledNavMesh::check_restore`] and then [`TiledNavMesh::commit`].
    ///
    /// A snapshot that differs from this mesh's own only in edits and switches (a rollback) is
    /// recognised by comparing its slot records with the mesh's (S21): a Referenced one, 32 slots
    /// at a time, costs about one comparison of those bytes plus the differing records; a Full
    /// one about one comparison of the tile bytes with the mesh's own (no parse, no stitch).
    pub fn restore(&mut self, bytes: &[u8], library: &TileLibrary) -> Result<(), RestoreError> {
        if rollback::try_rollback(&self.params, &mut self.state, bytes, library) {
            return Ok(());
        }
        let snapshot = self.check_restore(bytes, library)?;
        self.commit(snapshot);
        Ok(())
    }

    /// Validates `bytes` for a restore into this mesh, in place (`spec/snapshot.md` S20 step 1:
    /// stages A–E, with the in-place comparison of the parameters, S2), without changing the
    /// mesh. Tiles the mesh holds with identical bytes are not parsed again. It accepts exactly
    /// what [`NavMeshSnapshot::check`] accepts when the snapshot's parameters equal the mesh's,
    /// with the same errors.
    pub fn check_restore(
        &self,
        bytes: &[u8],
        library: &TileLibrary,
    ) -> Result<ValidatedSnapshot, RestoreError> {
        let parsed = read::parse(bytes, Some(self.params()))?;
        let params = parsed.params;
        let slots = check::stages(parsed, library, Some(&self.state))?;
        Ok(ValidatedSnapshot { params, slots })
    }

    /// Replaces this mesh's state, in place, with a validated snapshot's (`spec/snapshot.md` S20
    /// steps 2 and 3): the state is built and stitched, then swapped in. Nothing can fail here.
    /// The mesh takes the snapshot's parameters too; they are the mesh's own when the snapshot
    /// came from [`TiledNavMesh::check_restore`]. What this mesh provably shares with the new
    /// state (unchanged slots, their links and landings, the cell index) is reused.
    pub fn commit(&mut self, snapshot: ValidatedSnapshot) {
        // The old state is taken apart only now, so that it can be reused.
        let old = std::mem::replace(&mut self.state, MeshState::empty(0));
        self.params = snapshot.params;
        self.state = MeshState::rebuild(old, snapshot.slots);
    }

    /// A new mesh with a validated snapshot's parameters and state (`spec/snapshot.md` S19),
    /// stitched once. Nothing can fail here.
    pub fn from_snapshot(snapshot: ValidatedSnapshot) -> Self {
        let state = MeshState::from_slots(snapshot.slots, None);
        Self::from_state(snapshot.params, state)
    }
}

/// A snapshot that passed every check of a restore (stages A–E, `spec/snapshot.md` §6): the
/// complete state it describes, built on the side and not yet stitched. Only
/// [`NavMeshSnapshot::check`] and [`TiledNavMesh::check_restore`] make one; only
/// [`TiledNavMesh::commit`] (in place) and [`TiledNavMesh::from_snapshot`] (a new mesh) take
/// one, and neither can fail. A caller that restores several things together (a tile cache: its
/// own state and its mesh's) validates every part first and commits only once all passed.
#[derive(Debug, Clone)]
pub struct ValidatedSnapshot {
    params: MeshParams,
    slots: SlotContents,
}

impl ValidatedSnapshot {
    /// The snapshot's mesh parameters.
    pub fn params(&self) -> &MeshParams {
        &self.params
    }

    /// Number of occupied slots.
    pub fn tile_count(&self) -> usize {
        self.slots.iter().filter(|(_, t)| t.is_some()).count()
    }
}

/// Restoring into a new mesh (`spec/snapshot.md` S19).
#[derive(Debug)]
pub struct NavMeshSnapshot;

impl NavMeshSnapshot {
    /// A new mesh with the snapshot's parameters and state: [`NavMeshSnapshot::check`], then
    /// [`TiledNavMesh::from_snapshot`].
    pub fn restore(bytes: &[u8], library: &TileLibrary) -> Result<TiledNavMesh, RestoreError> {
        Self::check(bytes, library).map(TiledNavMesh::from_snapshot)
    }

    /// Validates a snapshot for a restore into a new mesh (stages A–E, `spec/snapshot.md` S19),
    /// building the state on the side but not stitching it.
    pub fn check(bytes: &[u8], library: &TileLibrary) -> Result<ValidatedSnapshot, RestoreError> {
        let parsed = read::parse(bytes, None)?;
        let params = parsed.params;
        let slots = check::stages(parsed, library, None)?;
        Ok(ValidatedSnapshot { params, slots })
    }

    /// Whether a snapshot would restore into a new mesh: [`NavMeshSnapshot::check`] without
    /// keeping the result. Nothing is stitched.
    pub fn validate(bytes: &[u8], library: &TileLibrary) -> Result<(), RestoreError> {
        Self::check(bytes, library).map(drop)
    }
}
