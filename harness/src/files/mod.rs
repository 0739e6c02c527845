//! onav files for people and patches: the one structural decoder ([`decode`]), annotated decodes
//! ([`inspect`]), structural differences ([`diff`]) and byte edits by field path ([`patch`]).

pub mod decode;
pub mod diff;
pub mod inspect;
pub mod patch;

/// A mesh of `slots` slots holding every tile of `w`: the files the tests decode, patch and
/// compare.
#[cfg(test)]
pub(crate) fn mesh_of(w: &onav::WorldSpec, slots: u32) -> onav::TiledNavMesh {
    let mut m = onav::TiledNavMesh::new(w.params(slots));
    for t in w.tiles() {
        m.add_tile(t).unwrap();
    }
    m
}
