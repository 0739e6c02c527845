//! The canonical `ONTK` writer (`spec/tilecache.md` TC30).

use onav::bytes::Writer;
use onav::SnapshotMode;

use super::{ONTK_MAGIC, ONTK_VERSION};
use crate::cache::TileCache;
use crate::limits::{CORNER_LEN, QUEUE_ENTRY_LEN, VALUE_LEN};

/// The snapshot of `cache` with its mesh in `mode`.
pub(super) fn snapshot(cache: &TileCache, mode: SnapshotMode) -> Vec<u8> {
    let mesh = cache.mesh.snapshot(mode);
    let lists: usize = cache
        .obstacles
        .values()
        .map(|e| 5 + VALUE_LEN * e.value.shape().value_count())
        .sum::<usize>()
        + cache
            .volumes
            .values()
            .map(|e| 25 + CORNER_LEN * e.value.polygon().len())
            .sum::<usize>()
        + QUEUE_ENTRY_LEN * cache.queue.len();
    let mut w = Writer::with_capacity(32 + lists + mesh.len());
    w.header(ONTK_MAGIC, ONTK_VERSION);
    w.u32(cache.next_obstacle);
    w.u32(cache.next_volume);
    w.u32(cache.obstacles.len() as u32);
    for (id, e) in &cache.obstacles {
        w.u32(id.0);
        let s = e.value.shape();
        w.u8(s.code());
        s.each_value(|v| w.f64(v));
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
    w.u32(cache.queue.len() as u32);
    for cell in cache.queue() {
        w.i32(cell.column);
        w.i32(cell.row);
    }
    w.length_prefixed(|w| w.bytes(&mesh));
    w.into_inner()
}
