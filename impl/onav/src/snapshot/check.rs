//! Stages B to E of a restore (`spec/snapshot.md` §6): tiles, edits and switches, unique
//! positions, the Full snapshot's size (S29) and landing budgets (S30).

use std::sync::Arc;

use super::read::{Parsed, TileEntry};
use crate::error::{FormatError, FormatReason as R, RestoreError};
use crate::hash::FixedMap;
use crate::ids::{LinkIndex, PolyIndex, TilePos};
use crate::library::TileLibrary;
use crate::limits::TILE_POSITION_AT;
use crate::mesh::{MeshState, SlotContents};
use crate::par;
use crate::params::MeshParams;
use crate::record::Sizes;
use crate::stitch::{first_over_budget, weight_per_cell};
use crate::tile::NavTile;

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
                _ => NavTile::from_bytes(bytes)
                    .map_err(|e| e.nested(at, &format!("slot[{i}].tile")))?,
            };
            if let Some(m) = params.tile_mismatch(tile.digest(), &tile.grid()) {
                return Err(m.in_tile().nested(at, &format!("slot[{i}].tile")));
            }
            Ok(tile)
        }
        TileEntry::Referenced { id, at } => {
            let t = library.get(&id).ok_or_else(|| {
                FormatError::new(at, format!("slot[{i}].content_id"), R::UnknownContentId)
            })?;
            if let Some(m) = params.tile_mismatch(t.digest(), &t.grid()) {
                return Err(m.at_reference(at, || format!("slot[{i}].content_id")));
            }
            Ok(NavTile::from_data(Arc::clone(t.data())))
        }
    }
}

/// Stages B to E: every slot's tile validated, resolved and given its edits and switches, then
/// the checks across slots. What is returned is a complete, valid new state; building the mesh
/// from it cannot fail. With `old`, the state of the mesh restored in place: tiles it holds with
/// identical bytes are shared instead of parsed again, and when every slot holds the tile `old`
/// holds there, stages D and E are skipped (S21, S30): those tiles are the mesh's own at its own
/// positions, and every way a mesh can reach a state checks both rules.
pub(super) fn stages(
    parsed: Parsed<'_>,
    library: &TileLibrary,
    old: Option<&MeshState>,
) -> Result<SlotContents, RestoreError> {
    let params = parsed.params;
    // Stage B, in parallel when the inline tiles are many bytes; the lowest failing slot is
    // reported.
    let inline_bytes = parsed
        .slots
        .iter()
        .filter_map(|s| match s.tile {
            Some(TileEntry::Inline { bytes, .. }) => Some(bytes.len()),
            _ => None,
        })
        .sum();
    let tiles: Vec<Option<Result<NavTile, RestoreError>>> = par::map(
        &parsed.slots,
        inline_bytes,
        par::PAR_MIN_TILE_BYTES,
        |i, s| {
            s.tile.as_ref().map(|e| {
                let prev = old
                    .and_then(|o| o.slots.get(i))
                    .and_then(|s| s.occupied.as_ref())
                    .map(|o| &o.tile);
                resolve(i, e, &params, library, prev)
            })
        },
    );
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
    let same_tiles = old.is_some_and(|o| o.same_tiles(&slots));
    if !same_tiles {
        // Lookup only (S17): never iterated.
        let mut seen: FixedMap<TilePos, usize> =
            FixedMap::with_capacity_and_hasher(slots.len(), Default::default());
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
    let body = Sizes::of(slots.iter().map(|(_, t)| t.as_ref())).full_body();
    if body > u64::from(u32::MAX) {
        return Err(FormatError::new(parsed.slots_at, "slots", R::StateTooLarge).into());
    }
    // Stage E, K17: landing budgets, by slot. A rollback state holds the mesh's own tiles at the
    // mesh's own positions, which met their budgets already.
    let any_links = slots
        .iter()
        .any(|(_, t)| t.as_ref().is_some_and(|t| t.link_count() > 0));
    if !same_tiles && any_links {
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
