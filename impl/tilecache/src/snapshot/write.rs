//! The canonical `ONTK` writer (`spec/tilecache.md` TC30).

use onav::bytes::Writer;
use onav::SnapshotMode;

use super::{ONTK_MAGIC, ONTK_VERSION};
use crate::cache::TileCache;
use crate::limits::{CORNER_LEN, QUEUE_ENTRY_LEN, VALUE_LEN};

/// The snapshot of `cache` with its mesh in `mode`: the header and next ids, the cached list
/// bytes, the queue, then the mesh's snapshot, written in place after its length (one buffer,
/// reserved once; every byte is copied once).
pub(super) fn snapshot(cache: &TileCache, mode: SnapshotMode) -> Vec<u8> {
    let lists = cache.lists.get_or_init(|| lists(cache));
    let mut w = Writer::with_capacity(
        24 + lists.len() + QUEUE_ENTRY_LEN * cache.queue.len() + cache.mesh.snapshot_capacity(mode),
    );
    w.header(ONTK_MAGIC, ONTK_VERSION);
    w.u32(cache.next_obstacle);
    w.u32(cache.next_volume);
    w.bytes(lists);
    w.u32(cache.queue.len() as u32);
    for cell in cache.queue() {
        w.i32(cell.column);
        w.i32(cell.row);
    }
    w.length_prefixed(|w| cache.mesh.write_snapshot(mode, w));
    w.into_inner()
}

/// The obstacle count and records, then the volume count and records (TC19).
pub(super) fn lists(cache: &TileCache) -> Vec<u8> {
    let len: usize = 8
        + cache
            .obstacles
            .values()
            .map(|e| 5 + VALUE_LEN * e.value.shape().value_count())
            .sum::<usize>()
        + cache
            .volumes
            .values()
            .map(|e| 25 + CORNER_LEN * e.value.polygon().len())
            .sum::<usize>();
    let mut w = Writer::with_capacity(len);
    w.u32(cache.obstacles.len() as u32);
    for (id, e) in &cache.obstacles {
        // One record of at most 61 bytes, assembled on the stack and appended at once.
        let s = e.value.shape();
        let mut rec = [0u8; 5 + 7 * VALUE_LEN];
        rec[..4].copy_from_slice(&id.0.to_le_bytes());
        rec[4] = s.code();
        let mut at = 5;
        s.each_value(|v| {
            rec[at..at + VALUE_LEN].copy_from_slice(&v.to_le_bytes());
            at += VALUE_LEN;
        });
        w.bytes(&rec[..at]);
    }
    w.u32(cache.volumes.len() as u32);
    for (id, e) in &cache.volumes {
        let v = &e.value;
        w.u32(id.0);
        w.u8(v.area());
        w.f64(v.min_y());
        w.f64(v.max_y());
        w.u32(v.polygon().len() as u32);
        for p in v.polygon() {
            w.f64(p[0]);
            w.f64(p[1]);
        }
    }
    w.into_inner()
}
