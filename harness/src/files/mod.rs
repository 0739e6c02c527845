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

/// One hostile edit of `g` picked by `h` (a byte flipped, set to 0xff, the bytes cut there or one
/// inserted): the inputs of the tests that every tool survives damaged files.
#[cfg(test)]
pub(crate) fn mutate(g: &mut Vec<u8>, h: u64) {
    let at = (h % g.len() as u64) as usize;
    match h >> 62 {
        0 => g[at] ^= (h >> 8) as u8 | 1,
        1 => g[at] = 0xff,
        2 => g.truncate(at),
        _ => g.splice(at..at, [(h >> 16) as u8]).for_each(drop),
    }
}
