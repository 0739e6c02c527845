//! Stage A of an `ONTK` restore (`spec/tilecache.md` TC18–TC29): the framing and every value, in
//! byte order, obstacles and volumes through their constructors.

use std::collections::BTreeSet;

use onav::bytes::Reader;
use onav::{FormatError, FormatReason as R};
use onav_build3d::TileCell;

use super::lists::ListsCode;
use super::{ONTK_MAGIC, ONTK_VERSION};
use crate::limits::{
    CORNER_LEN, MAX_CORNERS, MAX_NEXT_ID, MAX_OBSTACLES, MAX_VOLUMES, MIN_CORNERS,
    OBSTACLE_COUNT_AT, OBSTACLE_MIN_LEN, QUEUE_ENTRY_LEN, VALUE_LEN, VOLUME_MIN_LEN,
};
use crate::shape::{Obstacle, ObstacleShape, ShapeError, Volume};

/// One list of a snapshot as stage A read it: the records equal to the cache's own leading
/// records (not parsed again), then the others, validated.
pub(super) struct Section<T> {
    /// How many leading records are byte for byte the cache's own (0 without a cache).
    pub kept: usize,
    /// The id of the last of them (0 when none).
    pub last_kept: u32,
    /// The records after them: id, value, and where the record ends (counted from the first
    /// record of the list).
    pub new: Vec<(u32, T, u32)>,
}

impl<T> Section<T> {
    /// A list read in full.
    pub fn whole(new: Vec<(u32, T, u32)>) -> Self {
        Self {
            kept: 0,
            last_kept: 0,
            new,
        }
    }
}

/// What stage A read.
pub(super) struct Parsed<'a> {
    pub next_obstacle: u32,
    pub next_volume: u32,
    pub obstacles: Section<Obstacle>,
    pub volumes: Section<Volume>,
    /// The bytes of the lists (obstacle count to the last volume record).
    pub lists: &'a [u8],
    /// Offset of the queue length.
    pub queue_at: u64,
    /// Cells with the offset of each entry.
    pub queue: Vec<(TileCell, u64)>,
    /// Offset of the mesh snapshot's first byte.
    pub mesh_at: u64,
    pub mesh: &'a [u8],
}

/// A constructor's error at the offset of the field it names, under `prefix`.
fn shape_error(e: ShapeError, prefix: &str, at: u64) -> FormatError {
    FormatError::new(at, format!("{prefix}.{}", e.field), e.reason)
}

/// Reads a next id (1 ..= 2^31 − 1, TC20).
fn next_id(r: &mut Reader<'_>, field: &str) -> Result<u32, FormatError> {
    let at = r.offset();
    let v = r.u32(field)?;
    if v == 0 || v > MAX_NEXT_ID {
        return Err(r.error_at(at, field, R::OutOfRange));
    }
    Ok(v)
}

/// Reads an id (TC21, TC24): 1 ≤ id < next (*out of range*), above the previous id (*not
/// ascending*).
fn list_id(
    r: &mut Reader<'_>,
    field: impl Fn() -> String,
    next: u32,
    prev: u32,
) -> Result<u32, FormatError> {
    let at = r.offset();
    let id = r.u32(&field)?;
    if id == 0 || id >= next {
        return Err(r.error_at(at, field, R::OutOfRange));
    }
    if id <= prev {
        return Err(r.error_at(at, field, R::NotAscending));
    }
    Ok(id)
}

/// How many of the `n` leading records at `at` are byte for byte `own`'s leading records (the
/// records of a list the cache wrote, with their `ends`), when the last of them has an id below
/// `next`: those are valid (the cache's own, read back exactly) and need no second parse. 0 when
/// the last id is not below `next`, so that the full parse reports it.
fn kept_records(bytes: &[u8], at: usize, n: u32, own: &[u8], ends: &[u32], next: u32) -> usize {
    let max = (n as usize).min(ends.len());
    if max == 0 {
        return 0;
    }
    let limit = ends[max - 1] as usize;
    let p = super::lists::common_prefix(&bytes[at..], &own[..limit]);
    let k = ends[..max].partition_point(|&e| e as usize <= p);
    if last_id(own, ends, k) < next {
        k
    } else {
        0
    }
}

/// The id of the last of the `k` leading records of `own` (0 when `k` is 0).
fn last_id(own: &[u8], ends: &[u32], k: usize) -> u32 {
    if k == 0 {
        return 0;
    }
    let start = if k == 1 { 0 } else { ends[k - 2] as usize };
    u32::from_le_bytes([own[start], own[start + 1], own[start + 2], own[start + 3]])
}

/// Stage A: every field in byte order. With `own`, the encoding of the lists of the cache
/// restored into, the leading records of each list equal to the cache's are skipped (they are
/// valid); everything else is read as without it, with the same errors.
pub(super) fn parse<'a>(
    bytes: &'a [u8],
    own: Option<&ListsCode>,
) -> Result<Parsed<'a>, FormatError> {
    if let Some(p) = own.and_then(|c| parse_kept(bytes, c)) {
        debug_assert!(same_parse(&p, &parse_fields(bytes, own)));
        return Ok(p);
    }
    parse_fields(bytes, own)
}

/// The little-endian u32 at `at`, if four bytes are there.
fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Where a list whose `n` records are all `own`'s leading records (`recs`, ending at `ends`)
/// ends, when the bytes at `at` are its count and those records and the last id is below
/// `next`; `None` otherwise. Such a list passes every check of TC21–TC28: its records are the
/// cache's own, and its count is within the limits because the records are there.
fn kept_list(bytes: &[u8], at: usize, recs: &[u8], ends: &[u32], next: u32) -> Option<usize> {
    let n = u32_at(bytes, at)? as usize;
    if n > ends.len() {
        return None;
    }
    let len = if n == 0 { 0 } else { ends[n - 1] as usize };
    let first = at + 4;
    if bytes.get(first..first + len)? != &recs[..len] || last_id(recs, ends, n) >= next {
        return None;
    }
    Some(first + len)
}

/// Stage A of the common in-place case in one pass over fixed offsets: a valid header and next
/// ids, every obstacle and volume record one of the cache's own leading records, an empty
/// queue and a mesh snapshot that ends the bytes. It reads exactly what [`parse_fields`] reads
/// and gives the same result (a debug build compares them); on anything else it gives `None`
/// and the full parse runs, so that every error is the full parse's.
fn parse_kept<'a>(bytes: &'a [u8], own: &ListsCode) -> Option<Parsed<'a>> {
    let head = bytes.get(..8)?;
    let [v0, v1] = ONTK_VERSION.to_le_bytes();
    if head
        != [
            ONTK_MAGIC[0],
            ONTK_MAGIC[1],
            ONTK_MAGIC[2],
            ONTK_MAGIC[3],
            v0,
            v1,
            0,
            0,
        ]
    {
        return None;
    }
    let next_obstacle = u32_at(bytes, 8)?;
    let next_volume = u32_at(bytes, 12)?;
    if !(1..=MAX_NEXT_ID).contains(&next_obstacle) || !(1..=MAX_NEXT_ID).contains(&next_volume) {
        return None;
    }
    let lists_at = OBSTACLE_COUNT_AT as usize;
    let (recs, ends) = (own.obstacle_records(), &own.obstacle_ends[..]);
    let volumes_at = kept_list(bytes, lists_at, recs, ends, next_obstacle)?;
    let (vrecs, vends) = (own.volume_records(), &own.volume_ends[..]);
    let queue_at = kept_list(bytes, volumes_at, vrecs, vends, next_volume)?;
    if u32_at(bytes, queue_at)? != 0 {
        return None;
    }
    let mesh_at = queue_at + 8;
    let mesh = bytes.get(mesh_at..)?;
    if u32_at(bytes, queue_at + 4)? as usize != mesh.len() {
        return None;
    }
    fn section<T>(bytes: &[u8], at: usize, recs: &[u8], ends: &[u32]) -> Section<T> {
        let n = u32_at(bytes, at).map_or(0, |n| n as usize);
        Section {
            kept: n,
            last_kept: last_id(recs, ends, n),
            new: Vec::new(),
        }
    }
    Some(Parsed {
        next_obstacle,
        next_volume,
        obstacles: section(bytes, lists_at, recs, ends),
        volumes: section(bytes, volumes_at, vrecs, vends),
        lists: &bytes[lists_at..queue_at],
        queue_at: queue_at as u64,
        queue: Vec::new(),
        mesh_at: mesh_at as u64,
        mesh,
    })
}

/// Whether the fast path's result is the full parse's (for the debug comparison).
fn same_parse(fast: &Parsed<'_>, full: &Result<Parsed<'_>, FormatError>) -> bool {
    fn same_section<T>(a: &Section<T>, b: &Section<T>) -> bool {
        a.kept == b.kept && a.last_kept == b.last_kept && a.new.is_empty() && b.new.is_empty()
    }
    let Ok(full) = full else { return false };
    fast.next_obstacle == full.next_obstacle
        && fast.next_volume == full.next_volume
        && same_section(&fast.obstacles, &full.obstacles)
        && same_section(&fast.volumes, &full.volumes)
        && fast.lists == full.lists
        && fast.queue_at == full.queue_at
        && full.queue.is_empty()
        && fast.mesh_at == full.mesh_at
        && fast.mesh == full.mesh
}

/// Stage A field by field (module docs): what [`parse`] runs unless [`parse_kept`] applies.
fn parse_fields<'a>(bytes: &'a [u8], own: Option<&ListsCode>) -> Result<Parsed<'a>, FormatError> {
    let mut r = Reader::new(bytes, 0);
    r.header(ONTK_MAGIC, ONTK_VERSION)?;
    let next_obstacle = next_id(&mut r, "next_obstacle_id")?;
    let next_volume = next_id(&mut r, "next_volume_id")?;
    let n = r.count("obstacle_count", MAX_OBSTACLES, OBSTACLE_MIN_LEN)?;
    let first = r.position();
    let (kept, mut prev) = match own {
        Some(c) => {
            let (recs, ends) = (c.obstacle_records(), &c.obstacle_ends[..]);
            let k = kept_records(bytes, first, n, recs, ends, next_obstacle);
            if k > 0 {
                r.bytes(ends[k - 1] as usize, "obstacle")?;
            }
            (k, last_id(recs, ends, k))
        }
        None => (0, 0),
    };
    let mut obstacles = Section {
        kept,
        last_kept: prev,
        new: Vec::with_capacity(n as usize - kept),
    };
    for i in kept as u32..n {
        let id = list_id(&mut r, || format!("obstacle[{i}].id"), next_obstacle, prev)?;
        prev = id;
        let at = r.offset();
        let code = r.u8(|| format!("obstacle[{i}].shape"))?;
        let Some(names) = ObstacleShape::field_names(code) else {
            return Err(r.error_at(at, || format!("obstacle[{i}].shape"), R::OutOfRange));
        };
        let values_at = r.offset();
        let mut values = [0.0; 7];
        for (k, name) in names.iter().enumerate() {
            values[k] = r.f64(|| format!("obstacle[{i}].{name}"))?;
        }
        let shape = ObstacleShape::from_values(code, &values[..names.len()])
            .expect("the value count of the shape code");
        let o = Obstacle::new(shape).map_err(|e| {
            let k = names.iter().position(|n| *n == e.field).unwrap_or(0);
            let at = values_at + (VALUE_LEN * k) as u64;
            shape_error(e, &format!("obstacle[{i}]"), at)
        })?;
        obstacles.new.push((id, o, (r.position() - first) as u32));
    }
    let n = r.count("volume_count", MAX_VOLUMES, VOLUME_MIN_LEN)?;
    let first = r.position();
    let (kept, mut prev) = match own {
        Some(c) => {
            let (recs, ends) = (c.volume_records(), &c.volume_ends[..]);
            let k = kept_records(bytes, first, n, recs, ends, next_volume);
            if k > 0 {
                r.bytes(ends[k - 1] as usize, "volume")?;
            }
            (k, last_id(recs, ends, k))
        }
        None => (0, 0),
    };
    let mut volumes = Section {
        kept,
        last_kept: prev,
        new: Vec::with_capacity(n as usize - kept),
    };
    for i in kept as u32..n {
        let prefix = format!("volume[{i}]");
        let id = list_id(&mut r, || format!("{prefix}.id"), next_volume, prev)?;
        prev = id;
        let area_at = r.offset();
        let area = r.u8(|| format!("{prefix}.area"))?;
        let min_y_at = r.offset();
        let min_y = r.f64(|| format!("{prefix}.min_y"))?;
        let max_y = r.f64(|| format!("{prefix}.max_y"))?;
        let count_at = r.offset();
        let k = r.count(|| format!("{prefix}.corner_count"), MAX_CORNERS, CORNER_LEN)?;
        if k < MIN_CORNERS {
            return Err(r.error_at(count_at, || format!("{prefix}.corner_count"), R::OutOfRange));
        }
        let corners_at = r.offset();
        let mut polygon = Vec::with_capacity(k as usize);
        for j in 0..k {
            let x = r.f64(|| format!("{prefix}.corner[{j}].x"))?;
            let z = r.f64(|| format!("{prefix}.corner[{j}].z"))?;
            polygon.push([x, z]);
        }
        let v = Volume::canonical(area, min_y, max_y, polygon).map_err(|e| {
            let at = match e.field.as_str() {
                "area" => area_at,
                "min_y" => min_y_at,
                "max_y" => min_y_at + VALUE_LEN as u64,
                "corner_count" => count_at,
                f => {
                    // `corner[j]` (the only other field a read volume can fail at).
                    let j: u64 = f
                        .trim_start_matches("corner[")
                        .split(']')
                        .next()
                        .and_then(|s| s.parse().ok())
                        .unwrap_or(0);
                    corners_at + CORNER_LEN as u64 * j
                }
            };
            shape_error(e, &prefix, at)
        })?;
        volumes.new.push((id, v, (r.position() - first) as u32));
    }
    let queue_at = r.offset();
    let lists = &bytes[OBSTACLE_COUNT_AT as usize..queue_at as usize];
    let q = r.count("queue_length", u32::MAX, QUEUE_ENTRY_LEN)?;
    let mut queue = Vec::with_capacity(q as usize);
    let mut seen = BTreeSet::new();
    for j in 0..q {
        let at = r.offset();
        let column = r.i32(|| format!("queue[{j}].column"))?;
        let row = r.i32(|| format!("queue[{j}].row"))?;
        if !seen.insert((row, column)) {
            return Err(r.error_at(at, || format!("queue[{j}]"), R::Duplicate));
        }
        queue.push((TileCell { column, row }, at));
    }
    let (mesh_at, mesh) = r.length_prefixed("mesh_length")?;
    r.finish("end")?;
    Ok(Parsed {
        next_obstacle,
        next_volume,
        obstacles,
        volumes,
        lists,
        queue_at,
        queue,
        mesh_at,
        mesh,
    })
}
