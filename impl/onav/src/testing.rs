//! Read-only hooks for tests that need what the public API does not show: a mesh's links
//! against a from-scratch stitch (`spec/navmesh-format.md` §6.6), and its derived state against a
//! recomputation. Compiled only in this crate's own tests and with the `testkit` feature (for
//! `onav-testkit`); nothing here can change a mesh, so no state that breaks a rule can be made
//! with it.

use crate::error::FormatError;
use crate::ids::SlotIndex;
use crate::mesh::TiledNavMesh;
use crate::stitch::{reference, tile_landings, TileLinks};
use crate::tile::NavTile;

/// The current links of every slot, in slot order (`None` for a free slot).
pub fn all_links(mesh: &TiledNavMesh) -> Vec<Option<TileLinks>> {
    mesh.state
        .slots
        .iter()
        .map(|s| s.occupied.as_ref().map(|o| o.links.clone()))
        .collect()
}

/// The links of every slot stitched from scratch by the reference twin of the stitcher (the
/// procedure of §6.3 as written, `stitch/reference.rs`), for comparing against the mesh's own
/// links ([`all_links`]): they must be equal whatever the mesh's history (§6.6).
pub fn stitch_from_scratch(mesh: &TiledNavMesh) -> Vec<Option<TileLinks>> {
    let state = &mesh.state;
    let mut fresh = state.clone();
    for i in 0..fresh.slots.len() {
        let landings = tile_landings(state, SlotIndex(i as u32));
        if let Some(o) = fresh.slots[i].occupied.as_mut() {
            o.landings = landings;
        }
    }
    (0..fresh.slots.len())
        .map(|i| {
            fresh.slots[i].occupied.as_ref()?;
            Some(reference::stitch_tile(&fresh, SlotIndex(i as u32)))
        })
        .collect()
}

/// Checks every derived field of the mesh's state (free slots, cells, snapshot sizes, cached
/// records, packed tile bytes) against a recomputation.
///
/// # Panics
///
/// When one differs.
pub fn assert_derived(mesh: &TiledNavMesh) {
    mesh.state.assert_derived();
}

/// The tile reader's two paths on the same bytes, each run on its own: the fast validator's tile
/// (`None` when it declines) and the field-by-field reader's tile or error.
/// `NavTile::from_bytes` runs the first and, when it declines, the second; the two must accept
/// exactly the same bytes, with the same contents ([`same_tile_data`]).
pub fn tile_reader_paths(bytes: &[u8]) -> (Option<NavTile>, Result<NavTile, FormatError>) {
    NavTile::reader_paths(bytes)
}

/// Whether two tiles hold equal contents in every field the reader builds: the as-built bytes,
/// every decoded array and the derived portal lists (not only equal bytes).
pub fn same_tile_data(a: &NavTile, b: &NavTile) -> bool {
    a.same_data(b)
}

/// An in-place restore's two paths, each run on its own copy of `mesh`: the rollback fast path's
/// result (`None` when it declines) and the full restore's (`spec/snapshot.md` S21).
/// [`TiledNavMesh::restore`] runs the first and, when it declines, the second; whenever the
/// first applies, the second must succeed with the same state.
pub fn restore_paths(
    mesh: &TiledNavMesh,
    bytes: &[u8],
    library: &crate::library::TileLibrary,
) -> (
    Option<TiledNavMesh>,
    Result<TiledNavMesh, crate::error::RestoreError>,
) {
    let mut fast = mesh.clone();
    let applied = crate::snapshot::try_rollback(&fast.params, &mut fast.state, bytes, library);
    let mut general = mesh.clone();
    let result = general
        .check_restore(bytes, library)
        .map(|s| general.commit(s))
        .map(|()| general);
    (applied.then_some(fast), result)
}
