//! The one model of a snapshot's bytes (`spec/snapshot.md` §4), written from the spec and
//! independently of onav's writers: read from bytes (the one layout walker, which also records
//! where every record, edit and switch lies), built from a mesh through its public accessors (the
//! reference writer that onav's cached writers are checked against), spliced from a mesh's Full
//! and Referenced snapshots (the one mixer), mutated field by field (the structure-aware fuzzer)
//! and encoded. Also the mesh file written from the spec (`spec/navmesh-format.md` §8), for
//! states no mesh may hold.

use onav::bytes::Writer;
use onav::limits::{
    FILE_HEADER_LEN, SNAPSHOT_FIRST_SLOT_AT, SNAPSHOT_SECTION_COUNT_AT, SNAPSHOT_SECTION_LEN_AT,
    SNAPSHOT_SLOTS_AT,
};
use onav::meshfile::{MESH_MAGIC, MESH_VERSION};
use onav::snapshot::{SECTION_SLOTS, SNAPSHOT_MAGIC, SNAPSHOT_VERSION};
use onav::{MeshParams, NavTile, SlotIndex, SnapshotMode, TiledNavMesh};

/// Slot kind 0: free (S8).
pub const KIND_FREE: u8 = 0;
/// Slot kind 1: an inline tile (S9).
pub const KIND_INLINE: u8 = 1;
/// Slot kind 2: a tile referenced by content id (S10).
pub const KIND_REFERENCED: u8 = 2;

/// Where a record read from bytes lies in them: its start and end, and the offsets of its edits'
/// polygon fields and of its disabled link indices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    /// Offset of the generation.
    pub at: usize,
    /// Offset just past the record.
    pub end: usize,
    /// Offset of each edit (its polygon field).
    pub edits: Vec<usize>,
    /// Offset of each disabled link index.
    pub disabled: Vec<usize>,
}

/// One slot record (S7–S16), with optional overrides of its derived lengths.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlotRecord {
    /// The generation.
    pub generation: u32,
    /// The kind (0, 1 or 2 in a valid snapshot).
    pub kind: u8,
    /// Inline tile bytes (kind 1) or the 32-byte content id (kind 2); empty for a free slot.
    pub tile: Vec<u8>,
    /// Written instead of the tile's length, when set.
    pub tile_len: Option<u32>,
    /// Edits: polygon, area, flags.
    pub edits: Vec<(u32, u8, u16)>,
    /// Written instead of the edit count, when set.
    pub edit_count: Option<u32>,
    /// Disabled link indices.
    pub disabled: Vec<u32>,
    /// Written instead of the disabled count, when set.
    pub disabled_count: Option<u32>,
    /// Where the record lay in the bytes it was read from (`None` for a record made in code).
    pub span: Option<Span>,
}

impl SlotRecord {
    /// A free slot.
    pub fn free(generation: u32) -> Self {
        Self {
            generation,
            kind: KIND_FREE,
            tile: Vec::new(),
            tile_len: None,
            edits: Vec::new(),
            edit_count: None,
            disabled: Vec::new(),
            disabled_count: None,
            span: None,
        }
    }

    /// A slot holding `tile` with its current edits and switches, inline or by content id.
    pub fn holding(generation: u32, tile: &NavTile, mode: SnapshotMode) -> Self {
        let (kind, bytes) = match mode {
            SnapshotMode::Full => (KIND_INLINE, tile.as_built_bytes().to_vec()),
            SnapshotMode::Referenced => (KIND_REFERENCED, tile.content_id().0.to_vec()),
        };
        let edits = tile
            .edited_polys()
            .filter_map(|p| Some((p.0, tile.area(p)?, tile.flags(p)?)))
            .collect();
        Self {
            kind,
            tile: bytes,
            edits,
            disabled: tile.disabled_links().map(|l| l.0).collect(),
            ..Self::free(generation)
        }
    }
}

/// A snapshot with one section, as fields, with optional overrides of every derived length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapModel {
    /// Magic, version, flags and the parameter block (76 bytes when valid).
    pub header: Vec<u8>,
    /// Written instead of the section count 1, when set.
    pub section_count: Option<u32>,
    /// The section id.
    pub section_id: u16,
    /// The section's reserved field.
    pub section_reserved: u16,
    /// Added to the section body's length.
    pub section_len_delta: i32,
    /// Written instead of the slot count, when set.
    pub slot_count: Option<u32>,
    /// The slot records.
    pub slots: Vec<SlotRecord>,
    /// Bytes after the section.
    pub trailing: Vec<u8>,
    /// Bytes cut from the end of the encoding.
    pub truncate: usize,
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(
        b.get(at..at.checked_add(4)?)?.try_into().ok()?,
    ))
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(
        b.get(at..at.checked_add(2)?)?.try_into().ok()?,
    ))
}

impl SnapModel {
    /// A canonical snapshot of `params` holding `slots`.
    pub fn new(params: &MeshParams, slots: Vec<SlotRecord>) -> Self {
        let mut w = Writer::with_capacity(FILE_HEADER_LEN);
        w.header(SNAPSHOT_MAGIC, SNAPSHOT_VERSION);
        params.write(&mut w);
        Self {
            header: w.into_inner(),
            section_count: None,
            section_id: SECTION_SLOTS,
            section_reserved: 0,
            section_len_delta: 0,
            slot_count: None,
            slots,
            trailing: Vec::new(),
            truncate: 0,
        }
    }

    /// The snapshot of `m`, written from its public accessors, with slot `i` inline when
    /// `inline(i)` and referenced otherwise: the reference the library's writers must match.
    pub fn of_mesh(m: &TiledNavMesh, inline: impl Fn(usize) -> bool) -> Self {
        let mut tiles = m.tiles().peekable();
        let slots = (0..m.slot_count())
            .map(|i| {
                let generation = m.slot_generation(SlotIndex(i)).map_or(0, |g| g.get());
                match tiles.next_if(|(r, _)| r.slot().0 == i) {
                    None => SlotRecord::free(generation),
                    Some((_, t)) => {
                        let mode = if inline(i as usize) {
                            SnapshotMode::Full
                        } else {
                            SnapshotMode::Referenced
                        };
                        SlotRecord::holding(generation, t, mode)
                    }
                }
            })
            .collect();
        Self::new(m.params(), slots)
    }

    /// The model of bytes with the canonical one-section layout (§4: one slots section, its
    /// body used exactly, nothing after it), recording where every record lies; `None` for any
    /// other bytes. Every snapshot a restore accepts has this layout.
    pub fn parse(b: &[u8]) -> Option<Self> {
        let at = |a: u64| a as usize;
        if u32_at(b, at(SNAPSHOT_SECTION_COUNT_AT))? != 1
            || u16_at(b, at(SNAPSHOT_SECTION_COUNT_AT) + 4)? != SECTION_SLOTS
            || u16_at(b, at(SNAPSHOT_SECTION_COUNT_AT) + 6)? != 0
        {
            return None;
        }
        let body_end =
            at(SNAPSHOT_SLOTS_AT).checked_add(u32_at(b, at(SNAPSHOT_SECTION_LEN_AT))? as usize)?;
        if body_end != b.len() {
            return None;
        }
        let n = u32_at(b, at(SNAPSHOT_SLOTS_AT))?;
        let mut pos = at(SNAPSHOT_FIRST_SLOT_AT);
        let mut slots = Vec::new();
        for _ in 0..n {
            let start = pos;
            let generation = u32_at(b, pos)?;
            let kind = *b.get(pos + 4)?;
            pos += 5;
            let mut record = SlotRecord::free(generation);
            record.kind = kind;
            let mut span = Span {
                at: start,
                end: 0,
                edits: Vec::new(),
                disabled: Vec::new(),
            };
            match kind {
                KIND_FREE => {}
                KIND_INLINE | KIND_REFERENCED => {
                    let len = if kind == KIND_INLINE {
                        let len = u32_at(b, pos)? as usize;
                        pos += 4;
                        len
                    } else {
                        32
                    };
                    record.tile = b.get(pos..pos.checked_add(len)?)?.to_vec();
                    pos += len;
                    let edits = u32_at(b, pos)?;
                    pos += 4;
                    for _ in 0..edits {
                        let edit = (u32_at(b, pos)?, *b.get(pos + 4)?, u16_at(b, pos + 5)?);
                        span.edits.push(pos);
                        record.edits.push(edit);
                        pos += 7;
                    }
                    let disabled = u32_at(b, pos)?;
                    pos += 4;
                    for _ in 0..disabled {
                        record.disabled.push(u32_at(b, pos)?);
                        span.disabled.push(pos);
                        pos += 4;
                    }
                }
                _ => return None,
            }
            if pos > body_end {
                return None;
            }
            span.end = pos;
            record.span = Some(span);
            slots.push(record);
        }
        if pos != body_end {
            return None;
        }
        Some(Self {
            header: b[..FILE_HEADER_LEN].to_vec(),
            section_count: None,
            section_id: SECTION_SLOTS,
            section_reserved: 0,
            section_len_delta: 0,
            slot_count: None,
            slots,
            trailing: Vec::new(),
            truncate: 0,
        })
    }

    /// The bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut body = Writer::default();
        body.u32(self.slot_count.unwrap_or(self.slots.len() as u32));
        for s in &self.slots {
            body.u32(s.generation);
            body.u8(s.kind);
            match s.kind {
                KIND_FREE => continue,
                KIND_INLINE => {
                    body.u32(s.tile_len.unwrap_or(s.tile.len() as u32));
                    body.bytes(&s.tile);
                }
                // Kind 2, and an unknown kind: what a kind 2 record would hold, for the reader to
                // refuse the kind.
                _ => body.bytes(&s.tile),
            }
            body.u32(s.edit_count.unwrap_or(s.edits.len() as u32));
            for &(p, a, f) in &s.edits {
                body.u32(p);
                body.u8(a);
                body.u16(f);
            }
            body.u32(s.disabled_count.unwrap_or(s.disabled.len() as u32));
            for &l in &s.disabled {
                body.u32(l);
            }
        }
        let body = body.into_inner();
        let mut w = Writer::with_capacity(self.header.len() + 12 + body.len());
        w.bytes(&self.header);
        w.u32(self.section_count.unwrap_or(1));
        w.u16(self.section_id);
        w.u16(self.section_reserved);
        w.u32((body.len() as i64 + i64::from(self.section_len_delta)) as u32);
        w.bytes(&body);
        w.bytes(&self.trailing);
        let mut out = w.into_inner();
        out.truncate(out.len().saturating_sub(self.truncate));
        out
    }
}

/// The canonical snapshot of `m` with slot `i` written inline when `inline[i]`, referenced
/// otherwise (`spec/snapshot.md` S23): onav's Full snapshot, its Referenced one, or a splice of
/// their records (a mixture).
pub fn snapshot_mixed(m: &TiledNavMesh, inline: &[bool]) -> Vec<u8> {
    if inline.iter().all(|&x| x) {
        return m.snapshot(SnapshotMode::Full);
    }
    if !inline.iter().any(|&x| x) {
        return m.snapshot(SnapshotMode::Referenced);
    }
    let full = SnapModel::parse(&m.snapshot(SnapshotMode::Full)).expect("canonical layout");
    let mut out =
        SnapModel::parse(&m.snapshot(SnapshotMode::Referenced)).expect("canonical layout");
    for (i, (s, f)) in out.slots.iter_mut().zip(full.slots).enumerate() {
        if inline.get(i).copied().unwrap_or(false) {
            *s = f;
        }
    }
    out.encode()
}

/// A mesh file (`spec/navmesh-format.md` §8.1) of `params` holding `tiles` in this order, each
/// with its current areas and flags: what `write_mesh` writes for a mesh holding them, also for
/// tiles no mesh may hold together.
pub fn mesh_file(params: &MeshParams, tiles: &[&NavTile]) -> Vec<u8> {
    let mut w = Writer::default();
    w.header(MESH_MAGIC, MESH_VERSION);
    params.write(&mut w);
    w.u32(tiles.len() as u32);
    for t in tiles {
        w.length_prefixed(|w| w.bytes(&t.to_bytes()));
    }
    w.into_inner()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::fixture;

    /// The walker and the encoder are inverse on every canonical snapshot, the records it finds
    /// tile the slots section, and the reference writer gives the library's bytes.
    #[test]
    fn canonical_snapshots_parse_and_encode_back() {
        let fx = fixture();
        let inline: Vec<bool> = (0..16).map(|i| i % 3 == 1).collect();
        for b in [
            fx.busy_full.clone(),
            fx.busy_referenced.clone(),
            snapshot_mixed(&fx.busy, &inline),
        ] {
            let m = SnapModel::parse(&b).expect("canonical");
            assert_eq!(m.encode(), b);
            let mut at = SNAPSHOT_FIRST_SLOT_AT as usize;
            for s in &m.slots {
                let span = s.span.as_ref().expect("read from bytes");
                assert_eq!(span.at, at);
                assert_eq!(
                    (span.edits.len(), span.disabled.len()),
                    (s.edits.len(), s.disabled.len())
                );
                at = span.end;
            }
            assert_eq!(at, b.len());
        }
        for (mode, b) in [
            (SnapshotMode::Full, &fx.busy_full),
            (SnapshotMode::Referenced, &fx.busy_referenced),
        ] {
            let reference = SnapModel::of_mesh(&fx.busy, |_| mode == SnapshotMode::Full);
            assert_eq!(&reference.encode(), b, "{mode:?}");
        }
    }

    /// Bytes of another layout have no model.
    #[test]
    fn other_layouts_are_not_parsed() {
        let b = fixture().busy_referenced.clone();
        let mut trailing = b.clone();
        trailing.push(0);
        let mut two_sections = b.clone();
        two_sections[SNAPSHOT_SECTION_COUNT_AT as usize] = 2;
        for bad in [
            &b[..b.len() - 1],
            &trailing[..],
            &two_sections[..],
            &b[..50],
        ] {
            assert_eq!(SnapModel::parse(bad), None);
        }
    }
}
