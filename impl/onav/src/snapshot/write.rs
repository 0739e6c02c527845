//! The canonical writers (`spec/snapshot.md` §8, S22), Full and Referenced, which copy from the
//! records and packed tile bytes the mesh keeps (module `record`).

use super::{SnapshotMode, SECTION_SLOTS, SNAPSHOT_MAGIC, SNAPSHOT_VERSION};
use crate::bytes::Writer;
use crate::limits::{COUNT_LEN, FILE_HEADER_LEN, SECTION_HEADER_LEN};
use crate::mesh::MeshState;
use crate::params::MeshParams;
use crate::record::{snapshot_len, write_state, CHUNK_SLOTS, KIND_FREE, KIND_INLINE};

/// Offset of the first slot record: the header and parameters, the section count, the slots
/// section's id, reserved field and body length, and the slot count (§4.1, §4.2).
pub(super) const RECORDS_AT: usize = FILE_HEADER_LEN + 4 * COUNT_LEN;

/// Bytes before the slots section's body: the header and parameters, the section count and the
/// section header (the body starts with the slot count).
const BODY_AT: usize = FILE_HEADER_LEN + COUNT_LEN + SECTION_HEADER_LEN;

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
    // The body's length is known (S29 keeps it within a u32), so everything before the records
    // is one copy.
    let body = u32::try_from(len - BODY_AT).unwrap_or(u32::MAX);
    w.bytes(&prefix(params, body, state.slots.len() as u32));
    match mode {
        SnapshotMode::Referenced => referenced(w, state),
        SnapshotMode::Full => full(w, state),
    }
    debug_assert_eq!(w.len() - start, len);
}

/// The bytes of a snapshot before its first slot record (S22), for `params`, a slots section
/// body of `body` bytes and `slots` slots: the header (S1), the 68 parameter bytes (S2, those of
/// [`MeshParams::write`]; a test compares them), one section (S3) with the slots section's id,
/// reserved field and body length, then the slot count (S6). Stored at fixed offsets into an
/// array, so that the writers copy them once instead of pushing eleven fields (each push checks
/// the buffer's capacity), and the rollback path compares them at once.
pub(super) fn prefix(params: &MeshParams, body: u32, slots: u32) -> [u8; RECORDS_AT] {
    let grid = params.grid();
    let [x, y, z] = grid.origin();
    let mut p = [0; RECORDS_AT];
    let mut put = |at: usize, b: &[u8]| p[at..at + b.len()].copy_from_slice(b);
    put(0, &SNAPSHOT_MAGIC);
    put(4, &SNAPSHOT_VERSION.to_le_bytes());
    // Flags (bytes 6 and 7) are 0.
    put(8, &x.to_le_bytes());
    put(16, &y.to_le_bytes());
    put(24, &z.to_le_bytes());
    put(32, &grid.tile_size().to_le_bytes());
    put(40, &params.slot_count().to_le_bytes());
    put(44, &params.digest().0);
    put(FILE_HEADER_LEN, &1u32.to_le_bytes());
    put(FILE_HEADER_LEN + 4, &SECTION_SLOTS.to_le_bytes());
    // The section's reserved field (2 bytes) is 0.
    put(FILE_HEADER_LEN + 8, &body.to_le_bytes());
    put(BODY_AT, &slots.to_le_bytes());
    p
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

#[cfg(test)]
mod tests {
    use super::{prefix, BODY_AT, RECORDS_AT};
    use crate::bytes::Writer;
    use crate::limits::{FILE_HEADER_LEN, PARAMS_LEN};
    use crate::snapshot::{SECTION_SLOTS, SNAPSHOT_MAGIC, SNAPSHOT_VERSION};
    use crate::WorldSpec;

    /// The prefix is the header, the parameters as `MeshParams::write` gives them, the section
    /// count and header, and the slot count, field by field as a `Writer` pushes them.
    #[test]
    fn prefix_equals_the_fields_pushed_one_by_one() {
        let w = WorldSpec {
            origin: [-1.5, 2.25, 1e300],
            tile_size: 0.1,
            ..WorldSpec::default()
        };
        let params = w.params(70_000);
        let mut pushed = Writer::with_capacity(RECORDS_AT);
        pushed.header(SNAPSHOT_MAGIC, SNAPSHOT_VERSION);
        params.write(&mut pushed);
        pushed.u32(1);
        pushed.u16(SECTION_SLOTS);
        pushed.u16(0);
        pushed.u32(0x0102_0304);
        pushed.u32(69_999);
        let pushed = pushed.into_inner();
        assert_eq!(pushed.len(), RECORDS_AT);
        assert_eq!(BODY_AT, FILE_HEADER_LEN + 12);
        assert_eq!(pushed[8..8 + PARAMS_LEN], params.to_bytes());
        assert_eq!(prefix(&params, 0x0102_0304, 69_999)[..], pushed[..]);
    }
}
