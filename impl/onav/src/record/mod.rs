//! The slot records of a snapshot's slots section (`spec/snapshot.md` §4.3) and the one formula
//! for a snapshot's size (S29). This layer lies below the mesh and knows tiles only: the mesh
//! keeps every slot's Referenced record ready ([`Chunk`]) and its tiles' bytes packed ([`Pack`])
//! for the writers, and sizes its Full snapshot with [`Sizes`] before any change (S29); the
//! snapshot writers, the reader and restore (module `snapshot`) lie above the mesh.

mod chunk;
mod pack;

pub(crate) use chunk::Chunk;
pub(crate) use pack::Pack;

use crate::bytes::Writer;
use crate::ids::Generation;
use crate::limits::{
    COUNT_LEN, DIGEST_LEN, EDIT_LEN, FILE_HEADER_LEN, MIN_SLOT_LEN, SECTION_HEADER_LEN, SWITCH_LEN,
};
use crate::tile::NavTile;

/// Slot kind 0: a free slot (S8).
pub(crate) const KIND_FREE: u8 = 0;
/// Slot kind 1: an inline tile (S9).
pub(crate) const KIND_INLINE: u8 = 1;
/// Slot kind 2: a tile referenced by content id (S10).
pub(crate) const KIND_REFERENCED: u8 = 2;

/// Slots per [`Chunk`] and per [`Pack`]: a Referenced write copies one chunk per 32 slots
/// (~1.5 KB unedited), and a change to a record whose length changes moves at most the rest of
/// its chunk. (Measured against 16, 64 and 128: writes within noise of each other, edits
/// cheapest from 32 down.)
pub(crate) const CHUNK_SLOTS: usize = 32;

/// Offset of the edit count in an occupied slot's Referenced record: after the generation, the
/// kind and the content id (S7, S8, S10).
pub(crate) const REFERENCED_STATE_AT: usize = MIN_SLOT_LEN + DIGEST_LEN;

/// Bytes a tile's edits and switches take in a snapshot after their two counts, 7·E + 4·D
/// (S11–S16).
pub(crate) fn state_len(t: &NavTile) -> usize {
    EDIT_LEN * t.edited_polys().len() + SWITCH_LEN * t.disabled_links().len()
}

/// Writes a tile's edit count, its edits by ascending polygon (polygon, current area, current
/// flags), its disabled link count and the disabled link indices, ascending (S11–S16).
pub(crate) fn write_state(w: &mut Writer, t: &NavTile) {
    w.u32(t.edited_polys().len() as u32);
    for (p, area, flags) in t.edits() {
        // One 7-byte record at a time (EDIT_LEN): polygon, area, flags.
        let [p0, p1, p2, p3] = p.0.to_le_bytes();
        let [f0, f1] = flags.to_le_bytes();
        w.bytes(&[p0, p1, p2, p3, area, f0, f1]);
    }
    w.u32(t.disabled_links().len() as u32);
    for l in t.disabled_links() {
        w.u32(l.0);
    }
}

/// Length of a slot's Referenced record: 5 when free, 45 + 7·E + 4·D when occupied (S7–S16).
pub(crate) fn referenced_len(tile: Option<&NavTile>) -> usize {
    tile.map_or(MIN_SLOT_LEN, |t| {
        REFERENCED_STATE_AT + 2 * COUNT_LEN + state_len(t)
    })
}

/// Writes a slot's Referenced record: generation, kind, and for an occupied slot the tile's
/// content id and its edits and switches (S7, S8, S10–S16).
pub(crate) fn write_referenced(w: &mut Writer, generation: Generation, tile: Option<&NavTile>) {
    w.u32(generation.get());
    match tile {
        None => w.u8(KIND_FREE),
        Some(t) => {
            w.u8(KIND_REFERENCED);
            w.bytes(&t.content_id().0);
            write_state(w, t);
        }
    }
}

/// Bytes an occupied slot's Full record takes beyond a free slot's 5, but for its tile's bytes
/// and state: the tile length and the two counts (S9, S11, S15).
pub(crate) const FULL_OCCUPIED_EXTRA: u64 = 3 * COUNT_LEN as u64;

/// The bytes a tile adds to a Full snapshot besides the 17 bytes of its slot record's fields: its
/// as-built bytes, edits and switches.
pub(crate) fn full_tile_len(t: &NavTile) -> u64 {
    (t.as_built_bytes().len() + state_len(t)) as u64
}

/// What a snapshot's length depends on: the slot count, the occupied slots, the sum of their
/// tiles' as-built byte lengths and the sum of their edits' and switches' bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Sizes {
    pub slots: u64,
    pub occupied: u64,
    pub tile_bytes: u64,
    pub state_bytes: u64,
}

impl Sizes {
    /// The sizes of these slots' tiles.
    pub(crate) fn of<'a>(slots: impl IntoIterator<Item = Option<&'a NavTile>>) -> Self {
        let mut s = Self::default();
        for t in slots {
            s.slots += 1;
            if let Some(t) = t {
                s.occupied += 1;
                s.tile_bytes += t.as_built_bytes().len() as u64;
                s.state_bytes += state_len(t) as u64;
            }
        }
        s
    }

    /// Length of the slots section body of the Full snapshot (S29): 4 + 5·S + Σ over occupied
    /// slots (12 + tile bytes + 7·E + 4·D). The one formula: the mesh's size check before every
    /// change, the writer and restore's S29 check all use it.
    pub(crate) fn full_body(&self) -> u64 {
        COUNT_LEN as u64
            + self.slots * MIN_SLOT_LEN as u64
            + self.occupied * FULL_OCCUPIED_EXTRA
            + self.tile_bytes
            + self.state_bytes
    }

    /// Length of the slots section body of the Referenced snapshot: 4 + 5·S + Σ over occupied
    /// slots (40 + 7·E + 4·D).
    pub(crate) fn referenced_body(&self) -> u64 {
        COUNT_LEN as u64
            + self.slots * MIN_SLOT_LEN as u64
            + self.occupied * (DIGEST_LEN + 2 * COUNT_LEN) as u64
            + self.state_bytes
    }
}

/// Length of a snapshot whose one section has a body of `body` bytes: the header, the section
/// count and the section header before it (`spec/snapshot.md` §4.1, §4.2).
pub(crate) fn snapshot_len(body: u64) -> u64 {
    (FILE_HEADER_LEN + COUNT_LEN + SECTION_HEADER_LEN) as u64 + body
}
