//! The in-place restore's fast path for a rollback (`spec/snapshot.md` S21): a snapshot whose
//! slots hold the mesh's own generations and tiles, so that only some occupied slots' edits or
//! switches differ. The mesh keeps its Referenced records byte for byte (the chunks), so a
//! whole chunk of a Referenced snapshot is checked with one comparison; otherwise each record is
//! walked: a free slot's 5 bytes, a referenced tile's content id or an inline tile's bytes
//! compared with the tile in the slot (equal bytes are the same tile: no parse, no stitch), then
//! its edits and switches compared with the slot's own, and only the differing ones read and
//! checked. A Full rollback so costs about one comparison of the tile bytes.
//!
//! It accepts only snapshots the full restore accepts, and builds exactly the state the full
//! restore builds for them (K14: the previous state with each slot's edits and switches
//! replaced): equal bytes from a valid state are valid, and every check a differing record
//! needs is made (S11–S16 against its tile, S10 by library membership, S29). On anything else
//! it declines before changing anything, and the full restore runs and reports the error, so
//! every error and its order stay those of §6. It allocates nothing once its buffers grew.

use super::write::{prefix, RECORDS_AT};
use crate::ids::{LinkIndex, PolyIndex};
use crate::library::TileLibrary;
use crate::limits::{COUNT_LEN, EDIT_LEN, MAX_AREA, MIN_SLOT_LEN, SWITCH_LEN};
use crate::mesh::{ChunkChange, MeshState, Scratch, Slot};
use crate::params::MeshParams;
use crate::record::{
    Chunk, Sizes, CHUNK_SLOTS, KIND_FREE, KIND_INLINE, KIND_REFERENCED, REFERENCED_STATE_AT,
};
use crate::tile::NavTile;

/// Offset of a Full record's tile bytes: after the generation, the kind and the tile length.
const INLINE_TILE_AT: usize = MIN_SLOT_LEN + COUNT_LEN;

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(*b.get(at..at + 4)?.first_chunk()?))
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(*b.get(at..at + 8)?.first_chunk()?))
}

/// Restores `bytes` into `state` if it is a rollback this path can prove valid, and says
/// whether it did; `false` leaves `state` exactly as it was (but for derived caches).
pub(crate) fn try_rollback(
    params: &MeshParams,
    state: &mut MeshState,
    bytes: &[u8],
    library: &TileLibrary,
) -> bool {
    let mut scratch = std::mem::take(&mut state.scratch);
    let valid = check(params, state, bytes, library, &mut scratch).is_some();
    if valid {
        // Nothing below can fail.
        apply(state, bytes, &mut scratch);
    }
    scratch.clear();
    state.scratch = scratch;
    valid
}

/// What the records walked so far hold besides the mesh's own tiles' states.
#[derive(Default)]
struct Seen {
    /// A record names its tile by content id (S10 then needs the library).
    named: bool,
    /// A record holds its tile inline (its chunk's new records are then assembled).
    inline: bool,
}

/// Checks that `bytes` restores into `state` by replacing only some slots' edits and switches,
/// filling `sc` with those slots and their chunks; `None` otherwise. Nothing of the state
/// changes but derived caches.
fn check(
    params: &MeshParams,
    state: &mut MeshState,
    bytes: &[u8],
    library: &TileLibrary,
    sc: &mut Scratch,
) -> Option<()> {
    // Header, parameters (P7: bitwise), one slots section spanning the rest, the slot count
    // (S1–S6): exactly the bytes the writer puts before the records.
    let body = u32::try_from(bytes.len().checked_sub(RECORDS_AT - COUNT_LEN)?).ok()?;
    if *bytes.get(..RECORDS_AT)? != prefix(params, body, state.slots.len() as u32) {
        return None;
    }
    // The records, chunk by chunk: a run of bytes equal to the mesh's own records is its state.
    let mut pos = RECORDS_AT;
    let mut state_bytes = state.extra_bytes;
    let mut named = false;
    for (c, cell) in state.chunks.iter().enumerate() {
        let chunk = cell.get();
        let first = c * CHUNK_SLOTS;
        let slots = &state.slots[first..(first + CHUNK_SLOTS).min(state.slots.len())];
        if let Some(all) = chunk.map(Chunk::bytes) {
            if bytes.get(pos..pos + all.len()) == Some(all) {
                pos += all.len();
                // Only free records are 5 bytes long; any other names a tile.
                named |= all.len() > MIN_SLOT_LEN * slots.len();
                continue;
            }
        }
        let start = pos;
        let change = ChunkChange {
            chunk: c,
            records: (start, start),
            as_is: true,
            starts: sc.starts.len(),
            slots: sc.slots.len(),
        };
        let mut seen = Seen::default();
        pos = match chunk {
            Some(ch) => walk_built(
                ch,
                slots,
                first,
                bytes,
                pos,
                sc,
                &mut seen,
                &mut state_bytes,
            )?,
            None => walk(slots, first, bytes, pos, sc, &mut seen, &mut state_bytes)?,
        };
        named |= seen.named;
        if chunk.is_some() && sc.slots.len() > change.slots {
            sc.chunks.push(ChunkChange {
                records: (start, pos),
                as_is: !seen.inline,
                ..change
            });
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
    // S10: the library holds every tile named (the records name the mesh's own tiles).
    if named && state.verified_in != Some(library.instance()) {
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
    Some(())
}

/// Walks the records of `slots` (the first being slot `first`) from `start`, against their
/// records in the mesh's chunk `ch`: each must hold the slot's generation and tile, and each
/// whose edits and switches differ from the mesh's own is checked and put in `sc`. Returns the
/// end of the records.
#[allow(clippy::too_many_arguments)]
#[inline]
fn walk_built(
    ch: &Chunk,
    slots: &[Slot],
    first: usize,
    bytes: &[u8],
    start: usize,
    sc: &mut Scratch,
    seen: &mut Seen,
    state_bytes: &mut usize,
) -> Option<usize> {
    let mine = ch.bytes();
    let mut p = start;
    // Where each record starts, from the first: kept (in `sc.starts`) only if a slot changes.
    let mut starts = [0u32; CHUNK_SLOTS];
    let changed_from = sc.slots.len();
    for (k, (slot, w)) in slots.iter().zip(ch.starts().windows(2)).enumerate() {
        // A chunk's records take at most u32::MAX bytes (see `Chunk`), so do these: they are
        // walked only while they equal its own but for edits and switches.
        if let Some(s) = starts.get_mut(k) {
            *s = (p - start) as u32;
        }
        let m = mine.get(w[0] as usize..w[1] as usize)?;
        let kind = *bytes.get(p + 4)?;
        let Some(head) = m.first_chunk::<REFERENCED_STATE_AT>() else {
            // A free slot: its 5 bytes.
            if bytes.get(p..p + MIN_SLOT_LEN)? != m {
                return None;
            }
            p += MIN_SLOT_LEN;
            continue;
        };
        let at = if kind == KIND_INLINE {
            // The generation, kind 1 and the bytes of the tile in the slot (S9).
            let h = bytes.get(p..p + INLINE_TILE_AT)?;
            let b = slot.tile()?.as_built_bytes();
            let n = u32_at(h, MIN_SLOT_LEN)? as usize;
            let at = p + INLINE_TILE_AT;
            if h[..4] != head[..4] || n != b.len() || bytes.get(at..at + n)? != b {
                return None;
            }
            seen.inline = true;
            at + n
        } else {
            // Generation, kind 2 and content id: the mesh's own (S10).
            if !same_head(bytes.get(p..p + REFERENCED_STATE_AT)?.first_chunk()?, head) {
                return None;
            }
            seen.named = true;
            p + REFERENCED_STATE_AT
        };
        // The same edits and switches as the mesh's (S22: one state, one encoding), or others.
        let mine_state = &m[REFERENCED_STATE_AT..];
        let r = bytes.get(at..)?;
        let same = match (mine_state.first_chunk::<8>(), r.first_chunk::<8>()) {
            (Some(a), Some(b)) if mine_state.len() == 8 => a == b,
            (Some(a), Some(b)) => a[..4] == b[..4] && r.starts_with(mine_state),
            _ => false,
        };
        if same {
            p = at + mine_state.len();
            continue;
        }
        let end = if r.first_chunk::<8>() == Some(&[0; 8]) {
            // No edits, no switches: valid for any tile (most rollbacks).
            at + 2 * COUNT_LEN
        } else {
            valid_state(slot.tile()?, bytes, at)?
        };
        *state_bytes = *state_bytes - slot.extra as usize + (end - at - 2 * COUNT_LEN);
        sc.slots.push((first + k, at, end));
        p = end;
    }
    if sc.slots.len() > changed_from {
        sc.starts.extend_from_slice(starts.get(..slots.len())?);
    }
    Some(p)
}

/// Whether two records' generation, kind and content id are equal, compared as five
/// overlapping 8-byte words (no call for 37 bytes).
#[inline]
fn same_head(a: &[u8; REFERENCED_STATE_AT], b: &[u8; REFERENCED_STATE_AT]) -> bool {
    // Constant offsets within the arrays: each word is one load, the fallback never taken.
    let word = |s: &[u8; REFERENCED_STATE_AT], i: usize| {
        u64::from_le_bytes(*s[i..].first_chunk::<8>().unwrap_or(&[0; 8]))
    };
    let last = REFERENCED_STATE_AT - 8;
    [0, 8, 16, 24, last]
        .iter()
        .fold(0, |d, &i| d | (word(a, i) ^ word(b, i)))
        == 0
}

/// [`walk_built`] for a run of slots whose chunk is not built: each record is compared with the
/// slot's tile and its current edits and switches.
#[inline]
fn walk(
    slots: &[Slot],
    first: usize,
    bytes: &[u8],
    mut pos: usize,
    sc: &mut Scratch,
    seen: &mut Seen,
    state_bytes: &mut usize,
) -> Option<usize> {
    for (k, slot) in slots.iter().enumerate() {
        let Some(at) = same_tile(slot, bytes, pos, seen)? else {
            pos += MIN_SLOT_LEN;
            continue;
        };
        if let Some(end) = same_state(slot.tile()?, bytes, at) {
            pos = end;
            continue;
        }
        let end = valid_state(slot.tile()?, bytes, at)?;
        *state_bytes = *state_bytes - slot.extra as usize + (end - at - 2 * COUNT_LEN);
        sc.slots.push((first + k, at, end));
        pos = end;
    }
    Some(pos)
}

/// The tile part of the record at `pos` when it is the one of `slot`: `Some(None)` for a free
/// slot, `Some(Some(at))` with the
/// offset of the edit count for the slot's own tile, by content id (S10) or as equal bytes
/// (S9); `None` for anything else.
#[inline]
fn same_tile(slot: &Slot, bytes: &[u8], pos: usize, seen: &mut Seen) -> Option<Option<usize>> {
    let kind = *bytes.get(pos + 4)?;
    if kind == KIND_REFERENCED {
        // Generation, kind and content id: the slot's (its id computed once if not yet, C2,
        // as the full restore's lookup would need it).
        let head = bytes.get(pos..pos + REFERENCED_STATE_AT)?;
        let t = slot.tile()?;
        seen.named = true;
        let same =
            u32_at(head, 0)? == slot.generation.get() && head[MIN_SLOT_LEN..] == t.content_id().0;
        return same.then_some(Some(pos + REFERENCED_STATE_AT));
    }
    if u32_at(bytes, pos)? != slot.generation.get() {
        return None;
    }
    match (kind, slot.tile()) {
        (KIND_FREE, None) => Some(None),
        (KIND_INLINE, Some(t)) => {
            let b = t.as_built_bytes();
            let n = u32_at(bytes, pos + MIN_SLOT_LEN)? as usize;
            let at = pos + INLINE_TILE_AT;
            if n != b.len() || bytes.get(at..at + n)? != b {
                return None;
            }
            seen.inline = true;
            Some(Some(at + n))
        }
        _ => None,
    }
}

/// Puts the checked edits and switches of `sc`'s slots into their tiles and their records into
/// the chunks; cannot fail.
fn apply(state: &mut MeshState, bytes: &[u8], sc: &mut Scratch) {
    for &(i, at, end) in &sc.slots {
        let s = &mut state.slots[i];
        let Some(o) = s.occupied.as_mut() else {
            continue;
        };
        let extra = (end - at - 2 * COUNT_LEN) as u32;
        state.extra_bytes = state.extra_bytes - s.extra as usize + extra as usize;
        s.extra = extra;
        if extra == 0 {
            // No edits, no switches: the tile as built (most rollbacks).
            o.tile.reset_state();
            continue;
        }
        let e = u32_at(bytes, at).unwrap_or(0) as usize;
        let edits = &bytes[at + COUNT_LEN..at + COUNT_LEN + EDIT_LEN * e];
        let switches = &bytes[at + 2 * COUNT_LEN + EDIT_LEN * e..end];
        o.tile.replace_state(
            edits.chunks_exact(EDIT_LEN).map(|r| {
                let p = u32::from_le_bytes([r[0], r[1], r[2], r[3]]);
                (PolyIndex(p), r[4], u16::from_le_bytes([r[5], r[6]]))
            }),
            switches
                .chunks_exact(SWITCH_LEN)
                .map(|r| LinkIndex(u32::from_le_bytes([r[0], r[1], r[2], r[3]]))),
        );
    }
    for (j, ch) in sc.chunks.iter().enumerate() {
        let Some(chunk) = state.chunks[ch.chunk].get_mut() else {
            continue;
        };
        let n = chunk.slots();
        if ch.as_is {
            let (start, end) = ch.records;
            chunk.replace(&bytes[start..end], &sc.starts[ch.starts..ch.starts + n]);
            continue;
        }
        // Inline tiles among them: the chunk's own records, the changed ones' heads followed
        // by their new edits and switches.
        // Its changed slots (those of a later chunk that is not built may follow them).
        let upto = sc.chunks.get(j + 1).map_or(sc.slots.len(), |c| c.slots);
        let mut changed = sc.slots[ch.slots..upto]
            .iter()
            .take_while(|s| s.0 / CHUNK_SLOTS == ch.chunk)
            .peekable();
        sc.bytes.clear();
        sc.assembled.clear();
        for k in 0..n {
            sc.assembled.push(sc.bytes.len() as u32);
            let record = chunk.record(k);
            match changed.next_if(|s| s.0 % CHUNK_SLOTS == k) {
                Some(&(_, at, end)) => {
                    sc.bytes.extend_from_slice(&record[..REFERENCED_STATE_AT]);
                    sc.bytes.extend_from_slice(&bytes[at..end]);
                }
                None => sc.bytes.extend_from_slice(record),
            }
        }
        chunk.replace(&sc.bytes, &sc.assembled);
    }
}

/// The end of the edits and switches at `at` if they are exactly `tile`'s current ones.
fn same_state(tile: &NavTile, bytes: &[u8], at: usize) -> Option<usize> {
    let e = u32_at(bytes, at)? as usize;
    if e != tile.edited_polys().len() {
        return None;
    }
    let edits = bytes.get(at + COUNT_LEN..at + COUNT_LEN + EDIT_LEN * e)?;
    for (r, p) in edits.chunks_exact(EDIT_LEN).zip(tile.edited_polys()) {
        let q = u32::from_le_bytes([r[0], r[1], r[2], r[3]]);
        let flags = u16::from_le_bytes([r[5], r[6]]);
        if q != p.0 || tile.area(p) != Some(r[4]) || tile.flags(p) != Some(flags) {
            return None;
        }
    }
    let at = at + COUNT_LEN + EDIT_LEN * e;
    let d = u32_at(bytes, at)? as usize;
    if d != tile.disabled_links().len() {
        return None;
    }
    let switches = bytes.get(at + COUNT_LEN..at + COUNT_LEN + SWITCH_LEN * d)?;
    for (r, l) in switches.chunks_exact(SWITCH_LEN).zip(tile.disabled_links()) {
        if u32::from_le_bytes([r[0], r[1], r[2], r[3]]) != l.0 {
            return None;
        }
    }
    Some(at + COUNT_LEN + SWITCH_LEN * d)
}

/// The end of the valid edits and switches (S11–S16) of an occupied slot holding `tile`, whose
/// edit count is at `at`.
#[inline]
fn valid_state(tile: &NavTile, bytes: &[u8], at: usize) -> Option<usize> {
    if u64_at(bytes, at)? == 0 {
        // No edits, no switches: valid for any tile (most rollbacks).
        return Some(at + 2 * COUNT_LEN);
    }
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
