//! The canonical `ONTK` writer (`spec/tilecache.md` TC30).

use onav::bytes::Writer;
use onav::SnapshotMode;

use super::lists::ListsCode;
use super::{ONTK_MAGIC, ONTK_VERSION};
use crate::cache::TileCache;
use crate::limits::QUEUE_ENTRY_LEN;

/// The snapshot of `cache` with its mesh in `mode`: the header and next ids, the cached list
/// bytes, the queue, then the mesh's snapshot, written in place after its length (one buffer of
/// exactly the snapshot's length; every byte is copied once).
pub(super) fn snapshot(cache: &TileCache, mode: SnapshotMode) -> Vec<u8> {
    let lists = cache.lists.get_or_init(|| ListsCode::of(cache));
    let mut w = Writer::with_capacity(
        24 + lists.bytes.len()
            + QUEUE_ENTRY_LEN * cache.queue.len()
            + cache.mesh.snapshot_capacity(mode),
    );
    w.header(ONTK_MAGIC, ONTK_VERSION);
    w.u32(cache.next_obstacle);
    w.u32(cache.next_volume);
    w.bytes(&lists.bytes);
    w.u32(cache.queue.len() as u32);
    for cell in cache.queue() {
        w.i32(cell.column);
        w.i32(cell.row);
    }
    w.length_prefixed(|w| cache.mesh.write_snapshot(mode, w));
    w.into_inner()
}
