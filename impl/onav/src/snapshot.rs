//! Mesh snapshots, `ONPS` version 2 (`spec/snapshot.md`, seed `snapshot-format.txt`): a canonical
//! writer in Full and Referenced modes, and a restore that validates everything, builds the new
//! state on the side, stitches it once, and only then swaps it in.
//!
//! Validation runs in four stages; the first stage with an error reports it, and within a stage
//! the lowest byte offset (equivalently the lowest slot) wins, whatever the thread count:
//! A. framing, in byte order (header, parameters, sections, slot records, counts against the
//!    bytes that remain, areas, strictly ascending lists);
//! B. tiles, by slot: inline tiles completely, referenced tiles found in the library, digests
//!    and grids against the parameters;
//! C. edits and switches against their tile, by slot;
//! D. unique positions, by slot.

use std::collections::HashMap;
use std::sync::Arc;

use rayon::prelude::*;

use crate::bytes::Reader;
use crate::error::{FingerprintError, FormatError, FormatReason as R, RestoreError};
use crate::ids::{Generation, LinkIndex, PolyIndex, TileContentId, TilePos};
use crate::library::TileLibrary;
use crate::limits::{
    EDIT_LEN, FILE_HEADER_LEN, MAX_AREA, MAX_SLOTS, MIN_SLOT_LEN, PARAMS_AT, PARAMS_DIGEST_OFFSET,
    SECTION_HEADER_LEN, TILE_DIGEST_AT, TILE_POSITION_AT,
};
use crate::mesh::{MeshState, Slot, TiledNavMesh, CHUNK_SLOTS};
use crate::params::MeshParams;
use crate::stitch::{first_over_budget, weight_per_cell};
use crate::tile::NavTile;

/// Snapshot magic, "ONPS".
pub const SNAPSHOT_MAGIC: [u8; 4] = *b"ONPS";
/// The snapshot version: 2 (`spec/snapshot.md` §4.1).
pub const SNAPSHOT_VERSION: u16 = 2;
/// The one section this version knows: slots.
pub const SECTION_SLOTS: u16 = 1;

const KIND_FREE: u8 = 0;
const KIND_INLINE: u8 = 1;
const KIND_REFERENCED: u8 = 2;

/// How tiles are stored in a snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum SnapshotMode {
    /// Each tile's as-built bytes: self-contained.
    #[default]
    Full,
    /// Each tile's 32-byte content id: restore needs a library holding the tiles.
    Referenced,
}

impl TiledNavMesh {
    /// The canonical snapshot of this mesh's dynamic state in `mode`: the same state gives the same
    /// bytes on every platform and thread count. O(S + edits + switches) plus the tile bytes in Full
    /// mode; no polygon is scanned.
    pub fn snapshot(&self, mode: SnapshotMode) -> Vec<u8> {
        let slots = &self.state.slots;
        let occupied = slots.len() - self.state.free.len();
        let len = FILE_HEADER_LEN
            + 4
            + SECTION_HEADER_LEN
            + 4
            + slots.len() * MIN_SLOT_LEN
            + occupied * 8
            + self.state.extra_bytes
            + match mode {
                SnapshotMode::Full => occupied * 4 + self.state.tile_bytes,
                SnapshotMode::Referenced => occupied * 32,
            };
        let body = (len - FILE_HEADER_LEN - 4 - SECTION_HEADER_LEN) as u32;
        let mut head = [0u8; 92];
        head[..4].copy_from_slice(&SNAPSHOT_MAGIC);
        head[4..6].copy_from_slice(&SNAPSHOT_VERSION.to_le_bytes());
        head[8..76].copy_from_slice(&self.params().to_bytes());
        head[76..80].copy_from_slice(&1u32.to_le_bytes());
        head[80..82].copy_from_slice(&SECTION_SLOTS.to_le_bytes());
        head[84..88].copy_from_slice(&body.to_le_bytes());
        head[88..92].copy_from_slice(&(slots.len() as u32).to_le_bytes());
        let out = match mode {
            SnapshotMode::Referenced => write_referenced(&self.state.chunks, head, len),
            SnapshotMode::Full => write_full(&self.state, head, len),
        };
        debug_assert_eq!(out.len(), len);
        out
    }

    /// Replaces this mesh's state with the snapshot's, in place, keeping the object
    /// (`spec/snapshot.md` S20): whatever holds the mesh (a struct, a lock shared with the
    /// queries' users) keeps holding it, and queries made from it answer for the restored
    /// state. The snapshot's parameters must equal the mesh's bitwise. Any error leaves the mesh
    /// untouched. Tiles and links that are provably unchanged are reused.
    pub fn restore(&mut self, bytes: &[u8], library: &TileLibrary) -> Result<(), RestoreError> {
        let parsed = parse(bytes, Some(self.params()))?;
        let slots = build(parsed, library, Some(&self.state))?;
        // Everything is validated: from here on nothing can fail. The old state is taken apart
        // only now, so what it provably shares with the new one (unchanged slots, their links
        // and landings, the cell index) is reused instead of rebuilt.
        let old = std::mem::replace(&mut self.state, MeshState::empty(0));
        self.state = MeshState::rebuild(old, slots);
        Ok(())
    }
}

/// Appends a slot's edit count, edits, switch count and switches (`spec/snapshot.md` S11–S16).
/// The writers copy these bytes from the mesh's [`Chunk`]s, which are written with this function.
pub(crate) fn put_state(t: &NavTile, put: &mut impl FnMut(&[u8])) {
    put(&(t.edited_polys().len() as u32).to_le_bytes());
    for pi in t.edited_polys() {
        let (b, f) = (pi.0.to_le_bytes(), t.flags(pi).unwrap_or(0).to_le_bytes());
        put(&[b[0], b[1], b[2], b[3], t.area(pi).unwrap_or(0), f[0], f[1]]);
    }
    put(&(t.disabled_links().len() as u32).to_le_bytes());
    for l in t.disabled_links() {
        put(&l.0.to_le_bytes());
    }
}

/// Length of an occupied slot's Referenced record up to its counts: generation, kind 2 and
/// content id (S7, S8, S10). Its edits and switches follow.
const REFERENCED_HEAD: usize = 37;

/// Length of a slot's Referenced record (`spec/snapshot.md` §4.3): 5 free, 45 + 7·E + 4·D
/// occupied.
fn record_len(tile: Option<&NavTile>) -> usize {
    tile.map_or(MIN_SLOT_LEN, |t| REFERENCED_HEAD + 8 + state_len(t))
}

/// Writes a slot's Referenced record (S7, S8, S10–S16) into `out`, which is exactly
/// [`record_len`] long.
fn write_record(generation: Generation, tile: Option<&NavTile>, out: &mut [u8]) {
    out[..4].copy_from_slice(&generation.get().to_le_bytes());
    let Some(t) = tile else {
        out[4] = KIND_FREE;
        return;
    };
    out[4] = KIND_REFERENCED;
    out[5..REFERENCED_HEAD].copy_from_slice(&t.content_id().0);
    let mut at = REFERENCED_HEAD;
    put_state(t, &mut |b: &[u8]| {
        out[at..at + b.len()].copy_from_slice(b);
        at += b.len();
    });
}

/// The Referenced snapshot records (`spec/snapshot.md` §4.3) of up to [`CHUNK_SLOTS`]
/// consecutive slots, end to end, as the mesh caches them (`MeshState::chunks`, derived): the
/// Referenced writer copies whole chunks, the Full writer takes each slot's edits and switches
/// from here, and a change to one slot rewrites only its record (moving the rest of the chunk
/// when the length changes).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Chunk {
    /// The records, in slot order.
    bytes: Vec<u8>,
    /// Where each slot's record starts in `bytes`, and then the end: one more than the slots.
    /// (A record is at most 45 + 11 · 1 048 575 bytes (T6), so 32 of them fit a u32.)
    starts: Vec<u32>,
}

impl Chunk {
    /// The chunk of `slots`, written from their tiles.
    pub(crate) fn of(slots: &[Slot]) -> Self {
        let tile = Slot::tile;
        let mut starts = Vec::with_capacity(slots.len() + 1);
        let mut at = 0;
        for s in slots {
            starts.push(at as u32);
            at += record_len(tile(s));
        }
        starts.push(at as u32);
        let mut bytes = vec![0; at];
        for (k, s) in slots.iter().enumerate() {
            let r = starts[k] as usize..starts[k + 1] as usize;
            write_record(s.generation, tile(s), &mut bytes[r]);
        }
        Self { bytes, starts }
    }

    /// Rewrites the record of the chunk's slot `k`, which is now `slot`.
    pub(crate) fn update(&mut self, k: usize, slot: &Slot) {
        let tile = slot.tile();
        let (a, b) = (self.starts[k] as usize, self.starts[k + 1] as usize);
        let n = record_len(tile);
        if n != b - a {
            // Move the records after it (a splice, without its per-byte refill).
            let end = self.bytes.len();
            if n > b - a {
                self.bytes.resize(end + n - (b - a), 0);
            }
            self.bytes.copy_within(b..end, a + n);
            self.bytes.truncate(end + n - (b - a));
            for s in &mut self.starts[k + 1..] {
                *s = (*s as usize + n - (b - a)) as u32;
            }
        }
        write_record(slot.generation, tile, &mut self.bytes[a..a + n]);
    }

    /// The record of the chunk's slot `k`.
    #[cfg(test)]
    pub(crate) fn record(&self, k: usize) -> &[u8] {
        &self.bytes[self.starts[k] as usize..self.starts[k + 1] as usize]
    }
}

/// Referenced output is the header and then the mesh's cached chunks of slot records, one copy
/// per 32 slots into an exactly reserved, unzeroed buffer. (Copying the records slot by slot,
/// even as fixed-size moves, ran at 1.9–2.1 × a memcpy of the output: three 16-byte stores per
/// 45-byte record, a third of them split across cache lines.)
fn write_referenced(chunks: &[Chunk], head: [u8; 92], len: usize) -> Vec<u8> {
    let mut buf = Vec::with_capacity(len);
    buf.extend_from_slice(&head);
    for c in chunks {
        buf.extend_from_slice(&c.bytes);
    }
    buf
}

/// Bytes copied at once for a slot's edits and switches in a Full write (a fixed-size move,
/// then cut back), when that many can be read from the chunk; longer states are copied exactly.
const STATE_COPY: usize = 32;

/// Full output is mostly tile bytes, copied from the mesh's packs (each run of 32 slots' tile
/// bytes side by side, see `pack.rs` for why), appended to an exactly reserved buffer (plus the
/// slack of the fixed-size state copy) that is never zeroed. Each slot's edits and switches are
/// copied from its cached Referenced record, where they follow the 37-byte head.
fn write_full(state: &MeshState, head: [u8; 92], len: usize) -> Vec<u8> {
    let mut buf = Vec::with_capacity(len + STATE_COPY);
    buf.extend_from_slice(&head);
    let runs = state
        .slots
        .chunks(CHUNK_SLOTS)
        .zip(&state.chunks)
        .zip(&state.packs);
    for ((group, chunk), pack) in runs {
        for (k, s) in group.iter().enumerate() {
            let g = s.generation.get().to_le_bytes();
            let Some(b) = pack.get(k) else {
                buf.extend_from_slice(&[g[0], g[1], g[2], g[3], KIND_FREE]);
                continue;
            };
            let n = (b.len() as u32).to_le_bytes();
            buf.extend_from_slice(&[g[0], g[1], g[2], g[3], KIND_INLINE, n[0], n[1], n[2], n[3]]);
            buf.extend_from_slice(b);
            if s.extra == 0 {
                // No edits or switches: both counts are zero.
                buf.extend_from_slice(&[0; 8]);
                continue;
            }
            let at = chunk.starts[k] as usize + REFERENCED_HEAD;
            let end = chunk.starts[k + 1] as usize;
            match chunk.bytes.get(at..at + STATE_COPY) {
                Some(line) if end - at <= STATE_COPY => {
                    let keep = buf.len() + (end - at);
                    buf.extend_from_slice(line);
                    buf.truncate(keep);
                }
                _ => buf.extend_from_slice(&chunk.bytes[at..end]),
            }
        }
    }
    buf
}

/// Restoring into a new mesh (the seed's `NavMeshSnapshot.Restore`).
#[derive(Debug)]
pub struct NavMeshSnapshot;

impl NavMeshSnapshot {
    /// A new mesh with the snapshot's parameters and state.
    pub fn restore(bytes: &[u8], library: &TileLibrary) -> Result<TiledNavMesh, RestoreError> {
        let parsed = parse(bytes, None)?;
        let params = parsed.params;
        let slots = build(parsed, library, None)?;
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

/// A slot's tile as read in stage A.
enum TileEntry<'a> {
    Inline { bytes: &'a [u8], at: u64 },
    Referenced { id: TileContentId, at: u64 },
}

struct SlotEntry<'a> {
    generation: Generation,
    tile: Option<TileEntry<'a>>,
    /// (polygon, area, flags, offset of the polygon field).
    edits: Vec<(u32, u8, u16, u64)>,
    edit_count_at: u64,
    /// (link index, offset).
    disabled: Vec<(u32, u64)>,
    disabled_count_at: u64,
}

struct Parsed<'a> {
    params: MeshParams,
    /// Offset of the slots section body.
    slots_at: u64,
    slots: Vec<SlotEntry<'a>>,
}

/// Stage A: framing, in byte order.
fn parse<'a>(bytes: &'a [u8], expect: Option<&MeshParams>) -> Result<Parsed<'a>, RestoreError> {
    let mut r = Reader::new(bytes, 0);
    r.header(SNAPSHOT_MAGIC, SNAPSHOT_VERSION)?;
    let params_at = r.offset();
    let params = MeshParams::read(&mut r)?;
    if let Some(mine) = expect {
        if params.digest != mine.digest {
            return Err(FingerprintError {
                offset: Some(params_at + PARAMS_DIGEST_OFFSET),
                field: "params.settings_digest".into(),
                expected: mine.digest,
                found: params.digest,
            }
            .into());
        }
        if !params.bits_eq(mine) {
            return Err(FormatError::new(params_at, "params", R::ParamsMismatch).into());
        }
    }
    let count_at = r.offset();
    let n = r.count("section_count", u32::MAX, SECTION_HEADER_LEN)?;
    let mut slots = None;
    let mut prev_id = 0u16;
    for i in 0..n {
        let at = r.offset();
        let id = r.u16(|| format!("section[{i}].id"))?;
        if id <= prev_id {
            return Err(FormatError::new(at, format!("section[{i}].id"), R::NotAscending).into());
        }
        if id != SECTION_SLOTS {
            return Err(
                FormatError::new(at, format!("section[{i}].id"), R::UnknownSection { id }).into(),
            );
        }
        prev_id = id;
        r.reserved_u16(|| format!("section[{i}].reserved"))?;
        let (body_at, body) = r.length_prefixed(|| format!("section[{i}].length"))?;
        let mut br = Reader::new(body, body_at);
        slots = Some((body_at, parse_slots(&mut br, &params)?));
        if br.remaining() != 0 {
            return Err(br
                .error(|| format!("section[{i}].length"), R::SectionLength)
                .into());
        }
    }
    let Some((slots_at, slots)) = slots else {
        let missing = R::MissingSection { id: SECTION_SLOTS };
        return Err(FormatError::new(count_at, "section_count", missing).into());
    };
    r.finish("end")?;
    Ok(Parsed {
        params,
        slots_at,
        slots,
    })
}

fn parse_slots<'a>(
    r: &mut Reader<'a>,
    params: &MeshParams,
) -> Result<Vec<SlotEntry<'a>>, FormatError> {
    let at = r.offset();
    let s = r.count("slots.slot_count", MAX_SLOTS, MIN_SLOT_LEN)?;
    if s != params.slot_count {
        return Err(r.error_at(at, "slots.slot_count", R::ParamsMismatch));
    }
    let mut out = Vec::with_capacity(s as usize);
    for i in 0..s {
        let at = r.offset();
        let g = r.u32(|| format!("slot[{i}].generation"))?;
        let generation = Generation::new(g)
            .ok_or_else(|| r.error_at(at, || format!("slot[{i}].generation"), R::OutOfRange))?;
        let at = r.offset();
        let kind = r.u8(|| format!("slot[{i}].kind"))?;
        let tile = match kind {
            KIND_FREE => {
                out.push(SlotEntry {
                    generation,
                    tile: None,
                    edits: Vec::new(),
                    edit_count_at: 0,
                    disabled: Vec::new(),
                    disabled_count_at: 0,
                });
                continue;
            }
            KIND_INLINE => {
                let (at, bytes) = r.length_prefixed(|| format!("slot[{i}].tile_length"))?;
                TileEntry::Inline { bytes, at }
            }
            KIND_REFERENCED => {
                let at = r.offset();
                TileEntry::Referenced {
                    id: TileContentId(r.hash32(|| format!("slot[{i}].content_id"))?),
                    at,
                }
            }
            _ => return Err(r.error_at(at, || format!("slot[{i}].kind"), R::OutOfRange)),
        };
        let edit_count_at = r.offset();
        let e = r.count(|| format!("slot[{i}].edit_count"), u32::MAX, EDIT_LEN)?;
        let mut edits: Vec<(u32, u8, u16, u64)> = Vec::with_capacity(e as usize);
        for j in 0..e {
            let at = r.offset();
            let poly = r.u32(|| format!("slot[{i}].edit[{j}].polygon"))?;
            if edits.last().is_some_and(|&(p, ..)| poly <= p) {
                return Err(r.error_at(
                    at,
                    || format!("slot[{i}].edit[{j}].polygon"),
                    R::NotAscending,
                ));
            }
            let aat = r.offset();
            let area = r.u8(|| format!("slot[{i}].edit[{j}].area"))?;
            if area > MAX_AREA {
                return Err(r.error_at(aat, || format!("slot[{i}].edit[{j}].area"), R::OutOfRange));
            }
            let flags = r.u16(|| format!("slot[{i}].edit[{j}].flags"))?;
            edits.push((poly, area, flags, at));
        }
        let disabled_count_at = r.offset();
        let d = r.count(|| format!("slot[{i}].disabled_count"), u32::MAX, 4)?;
        let mut disabled: Vec<(u32, u64)> = Vec::with_capacity(d as usize);
        for j in 0..d {
            let at = r.offset();
            let l = r.u32(|| format!("slot[{i}].disabled[{j}]"))?;
            if disabled.last().is_some_and(|&(p, _)| l <= p) {
                return Err(r.error_at(at, || format!("slot[{i}].disabled[{j}]"), R::NotAscending));
            }
            disabled.push((l, at));
        }
        out.push(SlotEntry {
            generation,
            tile: Some(tile),
            edits,
            edit_count_at,
            disabled,
            disabled_count_at,
        });
    }
    Ok(out)
}

/// Stage B for one slot: the tile, validated and checked against the parameters.
fn resolve(
    i: usize,
    entry: &TileEntry<'_>,
    params: &MeshParams,
    library: &TileLibrary,
    old: Option<&NavTile>,
) -> Result<NavTile, RestoreError> {
    match *entry {
        TileEntry::Inline { bytes, at } => {
            let tile = match old {
                // A tile already held with identical bytes needs no second parse.
                Some(t) if t.as_built_bytes() == bytes => NavTile::from_data(Arc::clone(t.data())),
                _ => NavTile::from_bytes_at(bytes, at).map_err(|e| {
                    let mut e = e;
                    e.field = format!("slot[{i}].tile.{}", e.field);
                    e
                })?,
            };
            if tile.digest() != params.digest {
                return Err(FingerprintError {
                    offset: Some(at + TILE_DIGEST_AT),
                    field: format!("slot[{i}].tile.params.settings_digest"),
                    expected: params.digest,
                    found: tile.digest(),
                }
                .into());
            }
            if !tile.grid().bits_eq(&params.grid) {
                return Err(FormatError::new(
                    at + PARAMS_AT,
                    format!("slot[{i}].tile.params"),
                    R::ParamsMismatch,
                )
                .into());
            }
            Ok(tile)
        }
        TileEntry::Referenced { id, at } => {
            let t = library.get(&id).ok_or_else(|| {
                FormatError::new(at, format!("slot[{i}].content_id"), R::UnknownContentId)
            })?;
            if t.digest() != params.digest {
                return Err(FingerprintError {
                    offset: Some(at),
                    field: format!("slot[{i}].content_id"),
                    expected: params.digest,
                    found: t.digest(),
                }
                .into());
            }
            if !t.grid().bits_eq(&params.grid) {
                return Err(FormatError::new(
                    at,
                    format!("slot[{i}].content_id"),
                    R::ParamsMismatch,
                )
                .into());
            }
            Ok(NavTile::from_data(Arc::clone(t.data())))
        }
    }
}

/// Stages B to D: every slot's tile validated, resolved and given its edits and switches.
/// What is returned is a complete, valid new state; building the mesh from it cannot fail.
fn build(
    parsed: Parsed<'_>,
    library: &TileLibrary,
    old: Option<&MeshState>,
) -> Result<Vec<(Generation, Option<NavTile>)>, RestoreError> {
    let params = parsed.params;
    // Stage B, in parallel; the lowest failing slot is reported.
    let tiles: Vec<Option<Result<NavTile, RestoreError>>> = parsed
        .slots
        .par_iter()
        .enumerate()
        .map(|(i, s)| {
            s.tile.as_ref().map(|e| {
                let prev = old
                    .and_then(|o| o.slots.get(i))
                    .and_then(|s| s.occupied.as_ref())
                    .map(|o| &o.tile);
                resolve(i, e, &params, library, prev)
            })
        })
        .collect();
    let mut slots = Vec::with_capacity(tiles.len());
    for (s, t) in parsed.slots.iter().zip(tiles) {
        slots.push((s.generation, t.transpose()?));
    }
    // Stage C: edits and switches against their tile.
    for (i, (s, (_, tile))) in parsed.slots.iter().zip(slots.iter_mut()).enumerate() {
        let Some(tile) = tile else { continue };
        let np = tile.poly_count();
        if s.edits.len() as u64 > u64::from(np) {
            return Err(FormatError::new(
                s.edit_count_at,
                format!("slot[{i}].edit_count"),
                R::CountTooLarge {
                    count: s.edits.len() as u64,
                    max: np.into(),
                },
            )
            .into());
        }
        for (j, &(p, area, flags, at)) in s.edits.iter().enumerate() {
            let pi = PolyIndex(p);
            let (Some(a0), Some(f0)) = (tile.as_built_area(pi), tile.as_built_flags(pi)) else {
                return Err(FormatError::new(
                    at,
                    format!("slot[{i}].edit[{j}].polygon"),
                    R::OutOfRange,
                )
                .into());
            };
            if (a0, f0) == (area, flags) {
                return Err(FormatError::new(
                    at,
                    format!("slot[{i}].edit[{j}]"),
                    R::EditEqualsAsBuilt,
                )
                .into());
            }
            tile.set_area_flags(pi, area, flags);
        }
        let nl = tile.link_count();
        if s.disabled.len() as u64 > u64::from(nl) {
            return Err(FormatError::new(
                s.disabled_count_at,
                format!("slot[{i}].disabled_count"),
                R::CountTooLarge {
                    count: s.disabled.len() as u64,
                    max: nl.into(),
                },
            )
            .into());
        }
        for (j, &(l, at)) in s.disabled.iter().enumerate() {
            if l >= nl {
                return Err(FormatError::new(
                    at,
                    format!("slot[{i}].disabled[{j}]"),
                    R::OutOfRange,
                )
                .into());
            }
            tile.set_link_enabled(LinkIndex(l), false);
        }
    }
    // Stage D: unique positions (a map used for lookup only). When every occupied slot holds
    // the tile the mesh already holds there (equal content ids, and the position is part of the
    // content), the positions are the mesh's own, which are unique: nothing to check.
    let same_tiles = old.is_some_and(|o| same_contents(o, &slots));
    if !same_tiles {
        let mut seen: HashMap<TilePos, usize> = HashMap::with_capacity(slots.len());
        for (i, (s, (_, tile))) in parsed.slots.iter().zip(slots.iter()).enumerate() {
            let (Some(tile), Some(entry)) = (tile, &s.tile) else {
                continue;
            };
            if seen.insert(tile.pos(), i).is_some() {
                let (at, field) = match entry {
                    TileEntry::Inline { at, .. } => {
                        (at + TILE_POSITION_AT, format!("slot[{i}].tile.position"))
                    }
                    TileEntry::Referenced { at, .. } => (*at, format!("slot[{i}].content_id")),
                };
                return Err(FormatError::new(at, field, R::DuplicatePosition).into());
            }
        }
    }
    // S29: every state a mesh holds has a Full snapshot (a Referenced one may name tiles whose
    // bytes would not fit a u32 section body).
    let body = 4 + slots
        .iter()
        .map(|(_, t)| 5 + t.as_ref().map_or(0, |t| 12 + full_extra(t)))
        .sum::<u64>();
    if body > u64::from(u32::MAX) {
        return Err(FormatError::new(parsed.slots_at, "slots", R::StateTooLarge).into());
    }
    // Stage E, K17: landing budgets, by slot. A rollback state holds the mesh's own tiles at the
    // mesh's own positions, which met their budgets already.
    if !same_tiles {
        let tiles = || {
            parsed
                .slots
                .iter()
                .zip(&slots)
                .enumerate()
                .filter_map(|(i, (s, (_, t)))| Some(((i, s.tile.as_ref()?), t.as_ref()?)))
        };
        let cells = weight_per_cell(tiles().map(|(_, t)| t));
        if let Some(((i, entry), work, budget)) = first_over_budget(tiles(), &cells) {
            let (at, field) = match entry {
                TileEntry::Inline { at, .. } => (*at, format!("slot[{i}].tile")),
                TileEntry::Referenced { at, .. } => (*at, format!("slot[{i}].content_id")),
            };
            return Err(FormatError::new(at, field, R::LandingBudget { work, budget }).into());
        }
    }
    Ok(slots)
}

/// Bytes a tile's edits and switches take in a snapshot after their two counts, 7·E + 4·D
/// (`spec/snapshot.md` S11–S16).
pub(crate) fn state_len(t: &NavTile) -> usize {
    EDIT_LEN * t.edited_polys().len() + 4 * t.disabled_links().len()
}

/// The bytes a tile adds to a Full snapshot besides its 17-byte slot header: tile bytes, edits
/// and switches.
pub(crate) fn full_extra(t: &NavTile) -> u64 {
    (t.as_built_bytes().len() + state_len(t)) as u64
}

/// True when `slots` has the same slot count as `old` and every slot the same occupancy and
/// tile contents (content ids); generations may differ.
fn same_contents(old: &MeshState, slots: &[(Generation, Option<NavTile>)]) -> bool {
    old.slots.len() == slots.len()
        && old
            .slots
            .iter()
            .zip(slots)
            .all(|(o, (_, t))| match (&o.occupied, t) {
                (None, None) => true,
                (Some(a), Some(b)) => a.tile.content_id() == b.content_id(),
                _ => false,
            })
}

/// Helpers for tests that edit snapshots field by field.
#[cfg(test)]
pub(crate) mod tests_support {
    use super::*;

    /// An edit's offsets.
    #[derive(Debug, Clone, Copy)]
    pub struct Edit {
        /// Offset of the polygon field.
        pub at: usize,
    }

    /// Where one slot record lies.
    #[derive(Debug, Clone)]
    pub struct SlotLayout {
        pub at: usize,
        pub end: usize,
        pub kind: u8,
        pub edits: Vec<Edit>,
        pub disabled: Vec<usize>,
    }

    /// The slot records of a valid snapshot.
    pub fn layout(b: &[u8]) -> Vec<SlotLayout> {
        let u32_at = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap()) as usize;
        let n = u32_at(88);
        let mut at = 92;
        let mut out = Vec::new();
        for _ in 0..n {
            let start = at;
            let kind = b[at + 4];
            at += 5;
            let mut edits = Vec::new();
            let mut disabled = Vec::new();
            if kind != 0 {
                at += if kind == 1 { 4 + u32_at(at) } else { 32 };
                let e = u32_at(at);
                at += 4;
                for _ in 0..e {
                    edits.push(Edit { at });
                    at += 7;
                }
                let d = u32_at(at);
                at += 4;
                for _ in 0..d {
                    disabled.push(at);
                    at += 4;
                }
            }
            out.push(SlotLayout {
                at: start,
                end: at,
                kind,
                edits,
                disabled,
            });
        }
        out
    }

    /// `m`'s snapshot written the slow way, straight from the tiles with [`put_state`] and no
    /// cached record: the oracle the cached writers are compared with.
    pub fn reference(m: &TiledNavMesh, mode: SnapshotMode) -> Vec<u8> {
        let slots = &m.state.slots;
        let mut body = (slots.len() as u32).to_le_bytes().to_vec();
        for s in slots {
            body.extend_from_slice(&s.generation.get().to_le_bytes());
            let Some(o) = &s.occupied else {
                body.push(KIND_FREE);
                continue;
            };
            match mode {
                SnapshotMode::Full => {
                    let b = o.tile.as_built_bytes();
                    body.push(KIND_INLINE);
                    body.extend_from_slice(&(b.len() as u32).to_le_bytes());
                    body.extend_from_slice(b);
                }
                SnapshotMode::Referenced => {
                    body.push(KIND_REFERENCED);
                    body.extend_from_slice(&o.tile.content_id().0);
                }
            }
            put_state(&o.tile, &mut |b: &[u8]| body.extend_from_slice(b));
        }
        let mut out = SNAPSHOT_MAGIC.to_vec();
        out.extend_from_slice(&SNAPSHOT_VERSION.to_le_bytes());
        out.extend_from_slice(&[0, 0]);
        out.extend_from_slice(&m.params().to_bytes());
        out.extend_from_slice(&1u32.to_le_bytes());
        out.extend_from_slice(&SECTION_SLOTS.to_le_bytes());
        out.extend_from_slice(&[0, 0]);
        out.extend_from_slice(&(body.len() as u32).to_le_bytes());
        out.extend_from_slice(&body);
        out
    }

    /// A Referenced snapshot of `m` with the slots in `inline` written as Full records.
    pub fn mixed(m: &TiledNavMesh, inline: &[usize]) -> Vec<u8> {
        let r = m.snapshot(SnapshotMode::Referenced);
        let f = m.snapshot(SnapshotMode::Full);
        let (lr, lf) = (layout(&r), layout(&f));
        let mut out = r[..92].to_vec();
        for i in 0..lr.len() {
            let src = if inline.contains(&i) {
                &f[lf[i].at..lf[i].end]
            } else {
                &r[lr[i].at..lr[i].end]
            };
            out.extend_from_slice(src);
        }
        let body = (out.len() - 88) as u32;
        out[84..88].copy_from_slice(&body.to_le_bytes());
        out
    }
}
