//! Field-aware mutation of the snapshot model, for the `snapshot_structured` target.

use onav::{NavTile, PolyIndex, TileContentId};
use sha2::{Digest, Sha256};

use crate::cursor::Cursor;
use crate::model::{SlotRecord, SnapModel};

/// Interesting f64 values for parameter and tile fields.
const FLOATS: [f64; 10] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    16.0,
    1e308,
    -1e308,
    f64::MIN_POSITIVE,
    f64::NAN,
    f64::INFINITY,
];

/// Tile header fields worth poking: (offset, size) of grid, digest, position, agent, counts.
const TILE_FIELDS: [(usize, usize); 15] = [
    (0, 4),
    (4, 2),
    (6, 2),
    (8, 8),
    (32, 8),
    (40, 8),
    (72, 4),
    (76, 4),
    (80, 4),
    (84, 8),
    (100, 8),
    (108, 4),
    (112, 4),
    (116, 4),
    (120, 4),
];

fn poke(bytes: &mut [u8], at: usize, size: usize, c: &mut Cursor<'_>) {
    if at + size > bytes.len() {
        return;
    }
    match (size, c.u8() % 4) {
        (8, 0) => {
            let f = FLOATS[c.below(FLOATS.len())];
            bytes[at..at + 8].copy_from_slice(&f.to_le_bytes());
        }
        (4, 0) => {
            let v = c.near(u32::from_le_bytes(
                bytes[at..at + 4].try_into().expect("4 bytes"),
            ));
            bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
        }
        (_, 1) => bytes[at] ^= 1 << (c.u8() % 8),
        _ => {
            for b in &mut bytes[at..at + size] {
                *b = c.u8();
            }
        }
    }
}

/// One field-aware mutation of the model.
pub(crate) fn mutate(m: &mut SnapModel, c: &mut Cursor<'_>, lib: &[&NavTile]) {
    let n = m.slots.len();
    let i = c.below(n);
    match c.u8() % 19 {
        0 => {
            if let Some(s) = m.slots.get_mut(i) {
                s.generation = c.near(s.generation);
            }
        }
        1 => {
            // Change a slot's kind, converting its tile entry where the conversion is defined.
            let Some(s) = m.slots.get_mut(i) else { return };
            let to = match c.u8() % 5 {
                k @ 0..=2 => k,
                _ => c.u8(),
            };
            match (s.kind, to) {
                (1, 2) => s.tile = Sha256::digest(&s.tile).to_vec(),
                (2, 1) => {
                    let id = TileContentId(s.tile[..].try_into().unwrap_or([0; 32]));
                    let found = lib.iter().find(|t| t.content_id() == id);
                    s.tile = found.map_or_else(Vec::new, |t| t.as_built_bytes().to_vec());
                }
                (_, 0) => {
                    s.tile.clear();
                    s.edits.clear();
                    s.disabled.clear();
                }
                _ => {}
            }
            s.kind = to;
        }
        2 => {
            // Put a library tile into a slot (duplicate positions, fills free slots).
            let Some(s) = m.slots.get_mut(i) else { return };
            let t = lib[c.below(lib.len())];
            if c.bool() {
                s.kind = 1;
                s.tile = t.as_built_bytes().to_vec();
            } else {
                s.kind = 2;
                s.tile = t.content_id().0.to_vec();
            }
            if c.bool() {
                s.edits.clear();
                s.disabled.clear();
            }
        }
        3 => {
            // Add an edit, in order or not.
            let Some(s) = m.slots.get_mut(i) else { return };
            let poly = match c.u8() % 4 {
                0 => u32::from(c.u8() % 24),
                1 => s.edits.last().map_or(0, |e| e.0.wrapping_add(1)),
                _ => c.near(s.edits.len() as u32),
            };
            let area = if c.bool() { c.u8() % 64 } else { c.u8() };
            let e = (poly, area, c.u16());
            if c.bool() {
                let at = s.edits.partition_point(|x| x.0 < poly);
                s.edits.insert(at, e);
            } else {
                s.edits.push(e);
            }
        }
        4 => {
            let Some(s) = m.slots.get_mut(i) else { return };
            if !s.edits.is_empty() {
                let j = c.below(s.edits.len());
                s.edits.remove(j);
            }
        }
        5 => {
            let Some(s) = m.slots.get_mut(i) else { return };
            if s.edits.is_empty() {
                return;
            }
            let j = c.below(s.edits.len());
            let e = &mut s.edits[j];
            match c.u8() % 3 {
                0 => e.0 = c.near(e.0),
                1 => e.1 = c.u8(),
                _ => e.2 = c.u16(),
            }
        }
        6 => {
            let Some(s) = m.slots.get_mut(i) else { return };
            let l = if c.bool() {
                u32::from(c.u8() % 8)
            } else {
                c.near(0)
            };
            if c.bool() {
                let at = s.disabled.partition_point(|&x| x < l);
                s.disabled.insert(at, l);
            } else {
                s.disabled.push(l);
            }
        }
        7 => {
            let Some(s) = m.slots.get_mut(i) else { return };
            if !s.disabled.is_empty() {
                let j = c.below(s.disabled.len());
                s.disabled.remove(j);
            }
        }
        8 => {
            let Some(s) = m.slots.get_mut(i) else { return };
            match c.u8() % 3 {
                0 => s.edit_count = Some(c.near(s.edits.len() as u32)),
                1 => s.disabled_count = Some(c.near(s.disabled.len() as u32)),
                _ => s.tile_len = Some(c.near(s.tile.len() as u32)),
            }
        }
        9 => match c.u8() % 5 {
            0 => m.slot_count = Some(c.near(n as u32)),
            1 => m.section_count = Some(c.near(1)),
            2 => m.section_id = c.u16() % 4,
            3 => m.section_reserved = c.u16(),
            _ => m.section_len_delta = i32::from(c.u8() as i8),
        },
        10 => {
            // A parameter field: version, flags, origin, tile size, slot count, digest.
            let fields = [
                (4, 2),
                (6, 2),
                (8, 8),
                (16, 8),
                (24, 8),
                (32, 8),
                (40, 4),
                (44, 8),
            ];
            let (at, size) = fields[c.below(fields.len())];
            poke(&mut m.header, at, size, c);
        }
        11 => {
            // A tile header field of an inline tile, or a byte anywhere in it.
            let Some(s) = m.slots.get_mut(i) else { return };
            if s.kind != 1 || s.tile.is_empty() {
                return;
            }
            if c.bool() {
                let (at, size) = TILE_FIELDS[c.below(TILE_FIELDS.len())];
                poke(&mut s.tile, at, size, c);
            } else {
                let at = c.below(s.tile.len());
                poke(&mut s.tile, at, 1, c);
            }
        }
        12 => {
            let Some(s) = m.slots.get_mut(i) else { return };
            let k = c.below(s.tile.len() + 1);
            s.tile.truncate(k);
        }
        13 => {
            // Structural: swap, duplicate, remove or insert slot records.
            if n == 0 {
                return;
            }
            let j = c.below(n);
            match c.u8() % 4 {
                0 => m.slots.swap(i, j),
                1 => m.slots[j] = m.slots[i].clone(),
                2 => {
                    m.slots.remove(i);
                }
                _ => m.slots.insert(i, SlotRecord::free(1)),
            }
        }
        14 => {
            let k = usize::from(c.u8() % 8) + 1;
            for _ in 0..k {
                let b = c.u8();
                m.trailing.push(b);
            }
        }
        15 => m.truncate = usize::from(c.u16()),
        16 => {
            // A content id byte.
            let Some(s) = m.slots.get_mut(i) else { return };
            if s.kind == 2 && s.tile.len() == 32 {
                let k = c.below(32);
                s.tile[k] ^= c.u8() | 1;
            }
        }
        17 => {
            // Bulk: ascending edits or disabled links 0 .. k, enough to pass a tile's counts.
            let Some(s) = m.slots.get_mut(i) else { return };
            let k = u32::from(c.u8() % 48);
            if c.bool() {
                let (area, flags) = (c.u8() % 64, c.u16());
                s.edits = (0..k).map(|p| (p, area, flags)).collect();
            } else {
                s.disabled = (0..k).collect();
            }
        }
        _ => {
            // An edit that sets a polygon back to its as-built values (one state, one encoding).
            let Some(s) = m.slots.get_mut(i) else { return };
            let t = match s.kind {
                1 => NavTile::from_bytes(&s.tile).ok(),
                2 => {
                    let id = TileContentId(s.tile[..].try_into().unwrap_or([0; 32]));
                    lib.iter()
                        .find(|t| t.content_id() == id)
                        .map(|t| (*t).clone())
                }
                _ => None,
            };
            if let Some(t) = t {
                let p = c.below(t.poly_count() as usize) as u32;
                let (a, f) = (
                    t.as_built_area(PolyIndex(p)).unwrap_or(0),
                    t.as_built_flags(PolyIndex(p)).unwrap_or(0),
                );
                s.edits.retain(|e| e.0 != p);
                let at = s.edits.partition_point(|x| x.0 < p);
                s.edits.insert(at, (p, a, f));
            }
        }
    }
}
