//! The cache's own encoding of its obstacle and volume lists (`spec/tilecache.md` TC19, TC30),
//! kept beside the lists: the writer copies it, and an in-place restore compares a snapshot's
//! lists with it, so that the records both hold need not be parsed and validated again.

use crate::cache::TileCache;
use crate::ids::{ObstacleId, VolumeId};
use crate::limits::{CORNER_LEN, VALUE_LEN};
use crate::shape::{Obstacle, Volume};

/// The obstacle count and records, then the volume count and records (TC19), with where each
/// record ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ListsCode {
    /// The bytes, exactly as an `ONTK` snapshot holds them from the obstacle count on.
    pub bytes: Vec<u8>,
    /// The end of each obstacle record, counted from the first obstacle record (`bytes[4..]`).
    pub obstacle_ends: Vec<u32>,
    /// The end of each volume record, counted from the first volume record.
    pub volume_ends: Vec<u32>,
}

/// The length of an obstacle record with `values` values.
pub(crate) const fn obstacle_record_len(values: usize) -> usize {
    5 + VALUE_LEN * values
}

/// The length of a volume record with `corners` corners.
pub(crate) const fn volume_record_len(corners: usize) -> usize {
    25 + CORNER_LEN * corners
}

/// An obstacle's record (at most 61 bytes, on the stack) and its length.
fn obstacle_record(id: ObstacleId, o: &Obstacle) -> ([u8; obstacle_record_len(7)], usize) {
    let s = o.shape();
    let mut rec = [0u8; obstacle_record_len(7)];
    rec[..4].copy_from_slice(&id.0.to_le_bytes());
    rec[4] = s.code();
    let mut at = 5;
    s.each_value(|v| {
        rec[at..at + VALUE_LEN].copy_from_slice(&v.to_le_bytes());
        at += VALUE_LEN;
    });
    (rec, at)
}

fn volume_record(out: &mut Vec<u8>, id: VolumeId, v: &Volume) {
    out.extend_from_slice(&id.0.to_le_bytes());
    out.push(v.area());
    out.extend_from_slice(&v.min_y().to_le_bytes());
    out.extend_from_slice(&v.max_y().to_le_bytes());
    out.extend_from_slice(&(v.polygon().len() as u32).to_le_bytes());
    for p in v.polygon() {
        out.extend_from_slice(&p[0].to_le_bytes());
        out.extend_from_slice(&p[1].to_le_bytes());
    }
}

impl ListsCode {
    /// The encoding of the cache's lists.
    pub fn of(cache: &TileCache) -> Self {
        let len: usize = 8
            + cache
                .obstacles
                .values()
                .map(|e| obstacle_record_len(e.value.shape().value_count()))
                .sum::<usize>()
            + cache
                .volumes
                .values()
                .map(|e| volume_record_len(e.value.polygon().len()))
                .sum::<usize>();
        let mut bytes = Vec::with_capacity(len);
        let mut obstacle_ends = Vec::with_capacity(cache.obstacles.len());
        let mut volume_ends = Vec::with_capacity(cache.volumes.len());
        bytes.extend_from_slice(&(cache.obstacles.len() as u32).to_le_bytes());
        for (id, e) in &cache.obstacles {
            let (rec, n) = obstacle_record(*id, &e.value);
            bytes.extend_from_slice(&rec[..n]);
            obstacle_ends.push((bytes.len() - 4) as u32);
        }
        bytes.extend_from_slice(&(cache.volumes.len() as u32).to_le_bytes());
        let start = bytes.len();
        for (id, e) in &cache.volumes {
            volume_record(&mut bytes, *id, &e.value);
            volume_ends.push((bytes.len() - start) as u32);
        }
        Self {
            bytes,
            obstacle_ends,
            volume_ends,
        }
    }

    /// Bytes of the obstacle records.
    fn obstacle_len(&self) -> usize {
        self.obstacle_ends.last().map_or(0, |&e| e as usize)
    }

    /// The obstacle records.
    pub fn obstacle_records(&self) -> &[u8] {
        &self.bytes[4..4 + self.obstacle_len()]
    }

    /// The volume records.
    pub fn volume_records(&self) -> &[u8] {
        &self.bytes[8 + self.obstacle_len()..]
    }

    /// Appends an obstacle whose id is above every listed one (the encoding of the lists with
    /// it added).
    pub fn push_obstacle(&mut self, id: ObstacleId, o: &Obstacle) {
        let at = 4 + self.obstacle_len();
        let (rec, n) = obstacle_record(id, o);
        self.bytes.splice(at..at, rec[..n].iter().copied());
        let end = self.obstacle_len() + n;
        self.obstacle_ends.push(end as u32);
        let n = self.obstacle_ends.len() as u32;
        self.bytes[..4].copy_from_slice(&n.to_le_bytes());
    }

    /// Appends a volume whose id is above every listed one.
    pub fn push_volume(&mut self, id: VolumeId, v: &Volume) {
        let start = 8 + self.obstacle_len();
        volume_record(&mut self.bytes, id, v);
        self.volume_ends.push((self.bytes.len() - start) as u32);
        let n = self.volume_ends.len() as u32;
        self.bytes[start - 4..start].copy_from_slice(&n.to_le_bytes());
    }
}

impl ListsCode {
    /// The encoding of a snapshot's lists `lists` (its bytes from the obstacle count to the last
    /// volume record) whose first `kept` obstacle records and first `kept_volumes` volume
    /// records are this encoding's own, the other records ending at `new` and `new_volumes`
    /// (counted from the first record of their list): only the bytes after the kept obstacle
    /// records are copied.
    pub fn replace(
        &mut self,
        lists: &[u8],
        (kept, new): (usize, impl Iterator<Item = u32>),
        (kept_volumes, new_volumes): (usize, impl Iterator<Item = u32>),
    ) {
        let keep = if kept == 0 {
            0
        } else {
            self.obstacle_ends[kept - 1] as usize
        };
        if kept == 0 {
            self.bytes.clear();
            self.bytes.extend_from_slice(lists);
        } else {
            self.bytes.truncate(4 + keep);
            self.bytes[..4].copy_from_slice(&lists[..4]);
            self.bytes.extend_from_slice(&lists[4 + keep..]);
        }
        self.obstacle_ends.truncate(kept);
        self.obstacle_ends.extend(new);
        self.volume_ends.truncate(kept_volumes);
        self.volume_ends.extend(new_volumes);
    }

    /// No lists: what [`ListsCode::replace`] starts from when the cache kept no encoding.
    pub fn empty() -> Self {
        Self {
            bytes: Vec::new(),
            obstacle_ends: Vec::new(),
            volume_ends: Vec::new(),
        }
    }
}

/// The length of the longest common prefix of `a` and `b`: one comparison when one is a prefix
/// of the other (a rollback past added or removed obstacles), blocks of 256 bytes otherwise.
pub(crate) fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    if a == b {
        return n;
    }
    const BLOCK: usize = 256;
    let mut at = 0;
    while at + BLOCK <= n && a[at..at + BLOCK] == b[at..at + BLOCK] {
        at += BLOCK;
    }
    at + a[at..]
        .iter()
        .zip(&b[at..])
        .position(|(x, y)| x != y)
        .unwrap_or(n - at)
}

#[cfg(test)]
mod tests {
    use super::common_prefix;

    #[test]
    fn common_prefix_lengths() {
        let a: Vec<u8> = (0..1000u32).map(|i| (i % 251) as u8).collect();
        assert_eq!(common_prefix(&a, &a), 1000);
        assert_eq!(common_prefix(&a, &a[..10]), 10);
        assert_eq!(common_prefix(&[], &a), 0);
        for k in [0, 1, 255, 256, 257, 600, 999] {
            let mut b = a.clone();
            b[k] ^= 1;
            assert_eq!(common_prefix(&a, &b), k, "{k}");
            assert_eq!(common_prefix(&b[..k + 1], &a), k, "{k}");
        }
    }
}
