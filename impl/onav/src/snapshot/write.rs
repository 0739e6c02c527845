//! The canonical writers (`spec/snapshot.md` §8, S22), Full and Referenced, which copy from the
//! records and packed tile bytes the mesh keeps (module `record`).

use super::{SnapshotMode, SECTION_SLOTS, SNAPSHOT_MAGIC, SNAPSHOT_VERSION};
use crate::bytes::Writer;
use crate::mesh::MeshState;
use crate::params::MeshParams;
use crate::record::{snapshot_len, write_state, CHUNK_SLOTS, KIND_FREE, KIND_INLINE};

/// Bytes copied at once for a slot's edits and switches in a Full write (a fixed-size move,
/// then cut back), when that many can be read from the chunk; longer states are copied exactly.
const STATE_COPY: usize = 32;

/// Bytes a writer should have free before [`write_into`] appends a snapshot of `len` bytes, so
/// that it never grows: the length plus the slack of the fixed-size state copy.
pub(super) const fn capacity(len: usize) -> usize {
    len + STATE_COPY
}

/// The exact length in bytes of the snapshot of `state` in `mode`, computed from sizes the mesh
/// keeps (no byte is written).
pub(super) fn len(state: &MeshState, mode: SnapshotMode) -> usize {
    let sizes = state.sizes();
    let body = match mode {
        SnapshotMode::Full => sizes.full_body(),
        SnapshotMode::Referenced => sizes.referenced_body(),
    };
    snapshot_len(body) as usize
}

/// The snapshot of `state` (with `params`) in `mode`, into an exactly reserved buffer (plus the
/// slack of the fixed-size state copy) that is never zeroed.
pub(super) fn snapshot(params: &MeshParams, state: &MeshState, mode: SnapshotMode) -> Vec<u8> {
    let len = len(state, mode);
    let mut w = Writer::with_capacity(capacity(len));
    write_into(&mut w, params, state, mode, len);
    w.into_inner()
}

/// Appends the snapshot of `state` (with `params`) in `mode`, `len` bytes long (from [`len`]),
/// to whatever `w` holds already.
pub(super) fn write_into(
    w: &mut Writer,
    params: &MeshParams,
    state: &MeshState,
    mode: SnapshotMode,
    len: usize,
) {
    let start = w.len();
    w.header(SNAPSHOT_MAGIC, SNAPSHOT_VERSION);
    params.write(w);
    // One section (S3): id, reserved, then the length-prefixed body.
    w.u32(1);
    w.u16(SECTION_SLOTS);
    w.u16(0);
    w.length_prefixed(|w| {
        w.u32(state.slots.len() as u32);
        match mode {
            SnapshotMode::Referenced => referenced(w, state),
            SnapshotMode::Full => full(w, state),
        }
    });
    debug_assert_eq!(w.len() - start, len);
}

/// Referenced output is the mesh's cached chunks of slot records, one copy per 32 slots.
/// (Copying the records slot by slot, even as fixed-size moves, ran at 1.9–2.1 × a memcpy of the
/// output: three 16-byte stores per 45-byte record, a third of them split across cache lines.)
fn referenced(w: &mut Writer, state: &MeshState) {
    for c in 0..state.chunks.len() {
        w.bytes(state.chunk(c).bytes());
    }
}

/// Full output is mostly tile bytes, copied from the mesh's packs (each run of 32 slots' tile
/// bytes side by side, see `record/pack.rs` for why). Each slot's edits and switches are copied
/// from its cached Referenced record, where they follow the content id, when that chunk is
/// built; otherwise they are written from the tile (a Full write needs no content id).
fn full(w: &mut Writer, state: &MeshState) {
    for (c, group) in state.slots.chunks(CHUNK_SLOTS).enumerate() {
        let pack = state.pack(c);
        let chunk = state.chunks[c].get();
        for (k, s) in group.iter().enumerate() {
            w.u32(s.generation.get());
            let Some(b) = pack.get(k) else {
                w.u8(KIND_FREE);
                continue;
            };
            w.u8(KIND_INLINE);
            w.length_prefixed(|w| w.bytes(b));
            if s.extra == 0 {
                // No edits or switches: both counts are zero.
                w.u32(0);
                w.u32(0);
                continue;
            }
            let Some(chunk) = chunk else {
                if let Some(t) = s.tile() {
                    write_state(w, t);
                }
                continue;
            };
            match chunk.state::<STATE_COPY>(k) {
                (state, Some(run)) if state.len() <= STATE_COPY => w.bytes_of_run(run, state.len()),
                (state, _) => w.bytes(state),
            }
        }
    }
}
