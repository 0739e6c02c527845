//! Helpers for tests that edit snapshots field by field.

use super::{SnapshotMode, SECTION_SLOTS, SNAPSHOT_MAGIC, SNAPSHOT_VERSION};
use crate::bytes::Writer;
use crate::mesh::TiledNavMesh;
use crate::record::{write_state, KIND_FREE, KIND_INLINE, KIND_REFERENCED};

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
        let mut w = Writer::default();
        write_state(&mut w, &o.tile);
        body.extend_from_slice(&w.into_inner());
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
