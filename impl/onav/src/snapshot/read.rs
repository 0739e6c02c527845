//! Stage A of a restore (`spec/snapshot.md` §6): the framing, read in byte order.

use super::{SECTION_SLOTS, SNAPSHOT_MAGIC, SNAPSHOT_VERSION};
use crate::bytes::Reader;
use crate::error::{FingerprintError, FormatError, FormatReason as R, RestoreError};
use crate::ids::{Generation, TileContentId};
use crate::limits::{
    EDIT_LEN, MAX_AREA, MAX_SLOTS, MIN_SLOT_LEN, PARAMS_DIGEST_OFFSET, SECTION_HEADER_LEN,
    SWITCH_LEN,
};
use crate::params::MeshParams;
use crate::record::{KIND_FREE, KIND_INLINE, KIND_REFERENCED};

/// A slot's tile as read in stage A.
pub(super) enum TileEntry<'a> {
    Inline { bytes: &'a [u8], at: u64 },
    Referenced { id: TileContentId, at: u64 },
}

pub(super) struct SlotEntry<'a> {
    pub generation: Generation,
    pub tile: Option<TileEntry<'a>>,
    /// (polygon, area, flags, offset of the polygon field).
    pub edits: Vec<(u32, u8, u16, u64)>,
    pub edit_count_at: u64,
    /// (link index, offset).
    pub disabled: Vec<(u32, u64)>,
    pub disabled_count_at: u64,
}

pub(super) struct Parsed<'a> {
    pub params: MeshParams,
    /// Offset of the slots section body.
    pub slots_at: u64,
    pub slots: Vec<SlotEntry<'a>>,
}

/// Stage A: framing, in byte order.
pub(super) fn parse<'a>(
    bytes: &'a [u8],
    expect: Option<&MeshParams>,
) -> Result<Parsed<'a>, RestoreError> {
    let mut r = Reader::new(bytes, 0);
    r.header(SNAPSHOT_MAGIC, SNAPSHOT_VERSION)?;
    let params_at = r.offset();
    let params = MeshParams::read(&mut r)?;
    if let Some(mine) = expect {
        if params.digest() != mine.digest() {
            return Err(FingerprintError {
                offset: Some(params_at + PARAMS_DIGEST_OFFSET),
                field: "params.settings_digest".into(),
                expected: mine.digest(),
                found: params.digest(),
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
    if s != params.slot_count() {
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
        let d = r.count(|| format!("slot[{i}].disabled_count"), u32::MAX, SWITCH_LEN)?;
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
