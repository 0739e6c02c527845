//! The in-place restore's fast path for a rollback (`spec/snapshot.md` S21): a Referenced
//! snapshot whose slot records equal the mesh's own (S22), except that some occupied slots hold
//! other edits or switches. The mesh keeps its Referenced records byte for byte (the chunks), so
//! a whole chunk is checked with one comparison, and only the differing records are read.
//!
//! It accepts only snapshots the full restore accepts, and builds exactly the state the full
//! restore builds for them (K14: the previous state with each slot's edits and switches
//! replaced): equal bytes from a valid state are valid, and every check a differing record
//! needs is made (S11–S16 against its tile, S10 by library membership, S29). On anything else
//! it declines before changing anything, and the full restore runs and reports the error, so
//! every error and its order stay those of §6.

use super::{SECTION_SLOTS, SNAPSHOT_MAGIC, SNAPSHOT_VERSION};
use crate::bytes::Writer;
use crate::ids::{LinkIndex, PolyIndex};
use crate::library::TileLibrary;
use crate::limits::{COUNT_LEN, EDIT_LEN, FILE_HEADER_LEN, MAX_AREA, SWITCH_LEN};
use crate::mesh::MeshState;
use crate::params::MeshParams;
use crate::record::{Sizes, CHUNK_SLOTS, REFERENCED_STATE_AT};
use crate::tile::NavTile;

/// Offset of the first slot record: the header, the section count, the section's id, reserved
/// field and length, and the slot count (§4.1, §4.2).
const RECORDS_AT: usize = FILE_HEADER_LEN + 4 * COUNT_LEN;

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

/// Restores `bytes` into `state` if it is a rollback this path can prove valid, and says
/// whether it did; `false` leaves `state` exactly as it was.
pub(crate) fn try_rollback(
    params: &MeshParams,
    state: &mut MeshState,
    bytes: &[u8],
    library: &TileLibrary,
) -> bool {
    let Some(pending) = check(params, state, bytes, library) else {
        return false;
    };
    // Nothing below can fail.
    for &(i, at) in &pending {
        let Some(o) = state.slots[i].occupied.as_mut() else {
            continue;
        };
        let end = apply(&mut o.tile, bytes, at);
        state.refresh_with_record(i, &bytes[at - REFERENCED_STATE_AT..end]);
    }
    true
}

/// The slots whose records differ (slot, offset of its edit count), when `bytes` restores into
/// `state` by replacing only their edits and switches; `None` otherwise.
fn check(
    params: &MeshParams,
    state: &mut MeshState,
    bytes: &[u8],
    library: &TileLibrary,
) -> Option<Vec<(usize, usize)>> {
    // Header, parameters, one slots section spanning the rest, the slot count (S1–S6).
    let mut w = Writer::with_capacity(FILE_HEADER_LEN);
    w.header(SNAPSHOT_MAGIC, SNAPSHOT_VERSION);
    params.write(&mut w);
    let header = w.into_inner();
    let section_len = bytes.len().checked_sub(FILE_HEADER_LEN + 3 * COUNT_LEN)?;
    let framed = bytes.get(..FILE_HEADER_LEN)? == header.as_slice()
        && u32_at(bytes, FILE_HEADER_LEN)? == 1
        && u16_at(bytes, FILE_HEADER_LEN + 4)? == SECTION_SLOTS
        && u16_at(bytes, FILE_HEADER_LEN + 6)? == 0
        && u32_at(bytes, FILE_HEADER_LEN + 8)? as usize == section_len
        && u32_at(bytes, FILE_HEADER_LEN + 12)? as usize == state.slots.len();
    if !framed {
        return None;
    }
    // The records, chunk by chunk: equal bytes are the mesh's own records.
    let mut pos = RECORDS_AT;
    let mut pending = Vec::new();
    let mut state_bytes = state.extra_bytes;
    for (c, chunk) in state.chunks.iter().enumerate() {
        let chunk = chunk.get()?;
        let all = chunk.bytes();
        if bytes.get(pos..pos + all.len()) == Some(all) {
            pos += all.len();
            continue;
        }
        for k in 0..chunk.slots() {
            let mine = chunk.record(k);
            if bytes.get(pos..pos + mine.len()) == Some(mine) {
                pos += mine.len();
                continue;
            }
            // Same generation, kind 2 and content id, other edits or switches.
            let i = c * CHUNK_SLOTS + k;
            let slot = &state.slots[i];
            let tile = slot.tile()?;
            if bytes.get(pos..pos + REFERENCED_STATE_AT)? != &mine[..REFERENCED_STATE_AT] {
                return None;
            }
            let at = pos + REFERENCED_STATE_AT;
            let end = valid_state(tile, bytes, at)?;
            state_bytes = state_bytes - slot.extra as usize + (end - at - 2 * COUNT_LEN);
            pending.push((i, at));
            pos = end;
        }
    }
    if pos != bytes.len() {
        return None;
    }
    // S29 with the new edits and switches.
    let sizes = Sizes {
        state_bytes: state_bytes as u64,
        ..state.sizes()
    };
    if sizes.full_body() > u64::from(u32::MAX) {
        return None;
    }
    // S10: the library holds every tile (the records name the mesh's own tiles).
    if state.verified_in != Some(library.instance()) {
        let held = state
            .slots
            .iter()
            .filter_map(|s| s.tile())
            .all(|t| library.get(&t.content_id()).is_some());
        if !held {
            return None;
        }
        state.verified_in = Some(library.instance());
    }
    Some(pending)
}

/// The end of the valid edits and switches (S11–S16) of an occupied slot holding `tile`, whose
/// edit count is at `at`.
fn valid_state(tile: &NavTile, bytes: &[u8], at: usize) -> Option<usize> {
    let e = u32_at(bytes, at)? as usize;
    if e > tile.poly_count() as usize {
        return None;
    }
    let edits = bytes.get(at + COUNT_LEN..at + COUNT_LEN + EDIT_LEN * e)?;
    let mut prev = None;
    for r in edits.chunks_exact(EDIT_LEN) {
        let p = u32::from_le_bytes([r[0], r[1], r[2], r[3]]);
        let (area, flags) = (r[4], u16::from_le_bytes([r[5], r[6]]));
        if prev.is_some_and(|q| p <= q) || area > MAX_AREA {
            return None;
        }
        let pi = PolyIndex(p);
        if (tile.as_built_area(pi)?, tile.as_built_flags(pi)?) == (area, flags) {
            return None;
        }
        prev = Some(p);
    }
    let at = at + COUNT_LEN + EDIT_LEN * e;
    let d = u32_at(bytes, at)? as usize;
    let nl = tile.link_count();
    if d > nl as usize {
        return None;
    }
    let switches = bytes.get(at + COUNT_LEN..at + COUNT_LEN + SWITCH_LEN * d)?;
    let mut prev = None;
    for r in switches.chunks_exact(SWITCH_LEN) {
        let l = u32::from_le_bytes([r[0], r[1], r[2], r[3]]);
        if prev.is_some_and(|q| l <= q) || l >= nl {
            return None;
        }
        prev = Some(l);
    }
    Some(at + COUNT_LEN + SWITCH_LEN * d)
}

/// Replaces the tile's edits and switches with the valid ones at `at`; returns their end.
fn apply(tile: &mut NavTile, bytes: &[u8], at: usize) -> usize {
    tile.reset_state();
    let e = u32_at(bytes, at).unwrap_or(0) as usize;
    let edits = &bytes[at + COUNT_LEN..at + COUNT_LEN + EDIT_LEN * e];
    for r in edits.chunks_exact(EDIT_LEN) {
        let p = u32::from_le_bytes([r[0], r[1], r[2], r[3]]);
        tile.set_area_flags(PolyIndex(p), r[4], u16::from_le_bytes([r[5], r[6]]));
    }
    let at = at + COUNT_LEN + EDIT_LEN * e;
    let d = u32_at(bytes, at).unwrap_or(0) as usize;
    let end = at + COUNT_LEN + SWITCH_LEN * d;
    for r in bytes[at + COUNT_LEN..end].chunks_exact(SWITCH_LEN) {
        let l = u32::from_le_bytes([r[0], r[1], r[2], r[3]]);
        tile.set_link_enabled(LinkIndex(l), false);
    }
    end
}
