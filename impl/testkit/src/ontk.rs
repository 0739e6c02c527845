//! The tile cache's share of the kit (`spec/tilecache.md`, `spec/security.md` §9): a small world
//! and its caches built once, the one model of an `ONTK` snapshot's bytes (parse, encode, field
//! offsets), the tile cache's fuzz entry points and their seeds.

use std::sync::OnceLock;

use onav::bytes::{Reader, Writer};
use onav::{PolyIndex, RestoreError, SnapshotMode, TileLibrary};
use onav_build3d::{Geometry, Settings, SettingsSpec};
use onav_tilecache::{Obstacle, ObstacleId, TileCache, Volume, VolumeId};

use crate::cursor::Cursor;

/// The small world of the tile cache's tests and fuzzers: a 24 × 24 floor (3 × 3 tiles of 16
/// cells of 0.5), a ramp up to a slab bridging over the floor (two layers under it) and a block.
pub fn cache_world() -> Geometry {
    let mut t: Vec<([[f64; 3]; 3], u8)> = Vec::new();
    let mut quad = |x0: f64, z0: f64, x1: f64, z1: f64, y0: f64, y1: f64| {
        t.push(([[x0, y0, z0], [x0, y0, z1], [x1, y1, z0]], 63));
        t.push(([[x1, y1, z0], [x0, y0, z1], [x1, y1, z1]], 63));
    };
    quad(0.0, 0.0, 24.0, 24.0, 0.0, 0.0);
    quad(2.0, 16.0, 10.0, 20.0, 0.0, 3.0);
    quad(10.0, 14.0, 20.0, 22.0, 3.0, 3.0);
    let (lo, hi) = ([4.0, 0.0, 4.0], [7.0, 2.5, 9.0]);
    let c = |i: usize| {
        [
            if i & 1 == 0 { lo[0] } else { hi[0] },
            if i & 2 == 0 { lo[1] } else { hi[1] },
            if i & 4 == 0 { lo[2] } else { hi[2] },
        ]
    };
    for q in [
        [0, 4, 6, 2],
        [1, 3, 7, 5],
        [0, 1, 5, 4],
        [2, 6, 7, 3],
        [0, 2, 3, 1],
        [4, 5, 7, 6],
    ] {
        t.push(([c(q[0]), c(q[1]), c(q[2])], 63));
        t.push(([c(q[0]), c(q[2]), c(q[3])], 63));
    }
    let mut v = Vec::new();
    let mut idx = Vec::new();
    let mut areas = Vec::new();
    for (tri, a) in &t {
        for p in tri {
            idx.push((v.len() / 3) as u32);
            v.extend_from_slice(p);
        }
        areas.push(*a);
    }
    Geometry::from_arrays(&v, &idx, &areas).expect("the cache world is valid")
}

/// Settings of the cache world: 0.5 cells, 16-cell tiles, detail sampling on or off.
pub fn cache_spec(detail: bool) -> SettingsSpec {
    SettingsSpec {
        cell_size: 0.5,
        cell_height: 0.2,
        agent_height: 2.0,
        agent_radius: 0.5,
        agent_climb: 0.6,
        region_min_area: 4,
        region_merge_area: 40,
        max_edge_len: 8.0,
        detail_sample_dist: if detail { 1.5 } else { 0.0 },
        detail_sample_max_error: 0.1,
        tile_size: 16,
        ..SettingsSpec::default()
    }
}

/// The cache world's settings.
pub fn cache_settings(detail: bool) -> Settings {
    Settings::new(cache_spec(detail)).expect("valid settings")
}

/// Shared caches of the tile cache's fuzz targets, built once per process.
#[derive(Debug)]
pub struct CacheFixture {
    /// The world.
    pub geometry: Geometry,
    /// Its settings (no detail sampling).
    pub settings: Settings,
    /// A new cache of the world.
    pub fresh: TileCache,
    /// A busy cache: obstacles of every shape, volumes, some removed, a partly drained queue,
    /// rebuilt tiles and an edit.
    pub busy: TileCache,
    /// `busy`'s Full and Referenced snapshots.
    pub busy_snapshots: [Vec<u8>; 2],
    /// The fresh cache's Referenced snapshot.
    pub fresh_snapshot: Vec<u8>,
    /// The fresh cache's Full snapshot.
    pub fresh_full: Vec<u8>,
}

/// The tile cache fixture.
pub fn cache_fixture() -> &'static CacheFixture {
    static FX: OnceLock<CacheFixture> = OnceLock::new();
    FX.get_or_init(|| {
        let geometry = cache_world();
        let settings = cache_settings(false);
        let fresh = TileCache::new(&geometry, &settings).expect("cache of the world");
        let mut busy = fresh.clone();
        busy_ops(&mut busy);
        let busy_snapshots = [
            busy.snapshot(SnapshotMode::Full),
            busy.snapshot(SnapshotMode::Referenced),
        ];
        let fresh_snapshot = fresh.snapshot(SnapshotMode::Referenced);
        let fresh_full = fresh.snapshot(SnapshotMode::Full);
        CacheFixture {
            fresh_full,
            geometry,
            settings,
            fresh,
            busy,
            busy_snapshots,
            fresh_snapshot,
        }
    })
}

/// The x–z square of half side `h` centred on (x, z), corners from (x − h, z − h) with x growing
/// first: the footprint of the test volumes.
pub fn square(x: f64, z: f64, h: f64) -> Vec<[f64; 2]> {
    vec![
        [x - h, z - h],
        [x + h, z - h],
        [x + h, z + h],
        [x - h, z + h],
    ]
}

/// The operations that make the busy cache.
fn busy_ops(c: &mut TileCache) {
    let add = |c: &mut TileCache, o: Result<Obstacle, _>| {
        c.add_obstacle(o.expect("valid obstacle")).expect("room")
    };
    add(c, Obstacle::cylinder([12.0, -0.5, 12.0], 1.0, 2.0));
    let b = add(c, Obstacle::aabb([3.0, -1.0, 11.0], [5.0, 1.0, 13.0]));
    add(
        c,
        Obstacle::oriented_box([18.0, 0.5, 6.0], [2.0, 1.0, 0.5], 0.7),
    );
    add(c, Obstacle::cylinder([500.0, 0.0, 500.0], 1.0, 2.0));
    c.add_volume(Volume::new(5, -1.0, 1.0, square(8.0, 4.0, 2.0)).expect("volume"))
        .expect("room");
    let v = c
        .add_volume(Volume::new(0, 2.0, 4.0, square(15.0, 18.0, 1.5)).expect("volume"))
        .expect("room");
    c.add_volume(
        Volume::new(9, -1.0, 4.0, vec![[20.0, 20.0], [23.0, 21.0], [21.0, 23.0]]).expect("volume"),
    )
    .expect("room");
    c.update(3).expect("update");
    c.remove_obstacle(b).expect("remove");
    c.remove_volume(v).expect("remove");
    c.update(2).expect("update");
    let (r, _) = c.mesh().tiles().next().expect("a tile");
    let p = r.poly(PolyIndex(0));
    c.mesh_mut().set_poly_flags(p, 0x55).expect("edit");
}

/// An obstacle's record in an `ONTK` model.
#[derive(Debug, Clone, PartialEq)]
pub struct ObstacleRecord {
    /// Id.
    pub id: u32,
    /// Shape code.
    pub shape: u8,
    /// Values (any number: the model writes what it holds).
    pub values: Vec<f64>,
}

/// A volume's record in an `ONTK` model.
#[derive(Debug, Clone, PartialEq)]
pub struct VolumeRecord {
    /// Id.
    pub id: u32,
    /// Area.
    pub area: u8,
    /// Lowest floor.
    pub min_y: f64,
    /// Highest floor.
    pub max_y: f64,
    /// Corner count as written.
    pub corner_count: u32,
    /// Corners as written.
    pub corners: Vec<[f64; 2]>,
}

/// The one model of an `ONTK` snapshot's bytes (`spec/tilecache.md` §6.1): every field as
/// written, counts apart from the lists so that they can disagree, and the offsets of the
/// records as encoded.
#[derive(Debug, Clone, PartialEq)]
pub struct OntkModel {
    /// Magic.
    pub magic: [u8; 4],
    /// Version.
    pub version: u16,
    /// Flags.
    pub flags: u16,
    /// Next obstacle id.
    pub next_obstacle: u32,
    /// Next volume id.
    pub next_volume: u32,
    /// Obstacle count as written.
    pub obstacle_count: u32,
    /// Obstacles.
    pub obstacles: Vec<ObstacleRecord>,
    /// Volume count as written.
    pub volume_count: u32,
    /// Volumes.
    pub volumes: Vec<VolumeRecord>,
    /// Queue length as written.
    pub queue_length: u32,
    /// Queue entries (column, row).
    pub queue: Vec<(i32, i32)>,
    /// Mesh snapshot length as written.
    pub mesh_length: u32,
    /// The mesh snapshot bytes.
    pub mesh: Vec<u8>,
    /// Bytes after the end.
    pub trailing: Vec<u8>,
}

/// Offsets of an encoded model's records.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OntkLayout {
    /// Offset of each obstacle record (its id).
    pub obstacles: Vec<u64>,
    /// Offset of each volume record (its id).
    pub volumes: Vec<u64>,
    /// Offset of the queue length.
    pub queue_length: u64,
    /// Offset of each queue entry.
    pub queue: Vec<u64>,
    /// Offset of the mesh length.
    pub mesh_length: u64,
    /// Offset of the mesh snapshot's first byte.
    pub mesh: u64,
    /// Offset of the trailing bytes.
    pub end: u64,
}

impl OntkModel {
    /// Parses a well-formed snapshot (one that a cache wrote).
    pub fn parse(bytes: &[u8]) -> Option<Self> {
        let mut r = Reader::new(bytes, 0);
        let magic: [u8; 4] = r.bytes(4, "").ok()?.try_into().ok()?;
        let version = r.u16("").ok()?;
        let flags = r.u16("").ok()?;
        let next_obstacle = r.u32("").ok()?;
        let next_volume = r.u32("").ok()?;
        let obstacle_count = r.u32("").ok()?;
        let mut obstacles = Vec::new();
        for _ in 0..obstacle_count {
            let id = r.u32("").ok()?;
            let shape = r.u8("").ok()?;
            let n = onav_tilecache::ObstacleShape::field_names(shape)?.len();
            let values = (0..n).map(|_| r.f64("")).collect::<Result<_, _>>().ok()?;
            obstacles.push(ObstacleRecord { id, shape, values });
        }
        let volume_count = r.u32("").ok()?;
        let mut volumes = Vec::new();
        for _ in 0..volume_count {
            let id = r.u32("").ok()?;
            let area = r.u8("").ok()?;
            let min_y = r.f64("").ok()?;
            let max_y = r.f64("").ok()?;
            let corner_count = r.count("", 256, 16).ok()?;
            let corners = (0..corner_count)
                .map(|_| Ok([r.f64("")?, r.f64("")?]))
                .collect::<Result<_, onav::FormatError>>()
                .ok()?;
            volumes.push(VolumeRecord {
                id,
                area,
                min_y,
                max_y,
                corner_count,
                corners,
            });
        }
        let queue_length = r.count("", u32::MAX, 8).ok()?;
        let queue = (0..queue_length)
            .map(|_| Ok((r.i32("")?, r.i32("")?)))
            .collect::<Result<_, onav::FormatError>>()
            .ok()?;
        let (_, mesh) = r.length_prefixed("").ok()?;
        let trailing = r.bytes(r.remaining(), "").ok()?.to_vec();
        Some(Self {
            magic,
            version,
            flags,
            next_obstacle,
            next_volume,
            obstacle_count,
            obstacles,
            volume_count,
            volumes,
            queue_length,
            queue,
            mesh_length: mesh.len() as u32,
            mesh: mesh.to_vec(),
            trailing,
        })
    }

    /// Makes every count agree with its list (after list mutations).
    pub fn fix_counts(&mut self) {
        self.obstacle_count = self.obstacles.len() as u32;
        self.volume_count = self.volumes.len() as u32;
        for v in &mut self.volumes {
            v.corner_count = v.corners.len() as u32;
        }
        self.queue_length = self.queue.len() as u32;
        self.mesh_length = self.mesh.len() as u32;
    }

    /// The bytes and the offsets of the records.
    pub fn encode_with_layout(&self) -> (Vec<u8>, OntkLayout) {
        let mut w = Writer::with_capacity(64 + self.mesh.len());
        let mut l = OntkLayout::default();
        w.bytes(&self.magic);
        w.u16(self.version);
        w.u16(self.flags);
        w.u32(self.next_obstacle);
        w.u32(self.next_volume);
        w.u32(self.obstacle_count);
        for o in &self.obstacles {
            l.obstacles.push(w.len() as u64);
            w.u32(o.id);
            w.u8(o.shape);
            for &v in &o.values {
                w.f64(v);
            }
        }
        w.u32(self.volume_count);
        for v in &self.volumes {
            l.volumes.push(w.len() as u64);
            w.u32(v.id);
            w.u8(v.area);
            w.f64(v.min_y);
            w.f64(v.max_y);
            w.u32(v.corner_count);
            for c in &v.corners {
                w.f64(c[0]);
                w.f64(c[1]);
            }
        }
        l.queue_length = w.len() as u64;
        w.u32(self.queue_length);
        for &(c, r) in &self.queue {
            l.queue.push(w.len() as u64);
            w.i32(c);
            w.i32(r);
        }
        l.mesh_length = w.len() as u64;
        w.u32(self.mesh_length);
        l.mesh = w.len() as u64;
        w.bytes(&self.mesh);
        l.end = w.len() as u64;
        w.bytes(&self.trailing);
        (w.into_inner(), l)
    }

    /// The bytes.
    pub fn encode(&self) -> Vec<u8> {
        self.encode_with_layout().0
    }
}

/// A rejection names a field and points inside (or just past) the input.
fn check_error(e: &RestoreError, len: usize) {
    assert!(!e.field().is_empty(), "error without a field path: {e:?}");
    if let Some(off) = e.offset() {
        assert!(off <= len as u64, "offset {off} past input of {len}: {e:?}");
    }
}

/// An accepted snapshot is canonical: the model written from the cache's public lists (not
/// from its writer, which reuses the bytes it restored), with the embedded mesh snapshot as it
/// was, equals the input; and that mesh snapshot is canonical in its own mix of modes, checked as
/// the mesh targets check it.
fn check_accepted(c: &TileCache, data: &[u8]) {
    let model = OntkModel::parse(data).expect("an accepted snapshot parses");
    let (next_obstacle, next_volume) = c.next_ids();
    let mut mine = OntkModel {
        magic: *b"ONTK",
        version: 1,
        flags: 0,
        next_obstacle,
        next_volume,
        obstacle_count: 0,
        obstacles: c
            .obstacles()
            .map(|(id, o)| ObstacleRecord {
                id: id.0,
                shape: o.shape().code(),
                values: o.shape().values(),
            })
            .collect(),
        volume_count: 0,
        volumes: c
            .volumes()
            .map(|(id, v)| VolumeRecord {
                id: id.0,
                area: v.area(),
                min_y: v.min_y(),
                max_y: v.max_y(),
                corner_count: 0,
                corners: v.polygon().to_vec(),
            })
            .collect(),
        queue_length: 0,
        queue: c.queue().map(|q| (q.column, q.row)).collect(),
        mesh_length: 0,
        mesh: model.mesh.clone(),
        trailing: Vec::new(),
    };
    mine.fix_counts();
    assert!(
        mine.encode() == data,
        "accepted ONTK lists are not canonical"
    );
    assert!(
        c.snapshot(SnapshotMode::Referenced)[..mine.encode_with_layout().1.mesh_length as usize]
            == data[..mine.encode_with_layout().1.mesh_length as usize],
        "the writer's lists differ from the restored ones"
    );
    let snap = crate::model::SnapModel::parse(&model.mesh).expect("an accepted mesh parses");
    let inline: Vec<bool> = snap
        .slots
        .iter()
        .map(|s| s.kind == crate::model::KIND_INLINE)
        .collect();
    assert!(
        crate::model::snapshot_mixed(c.mesh(), &inline) == model.mesh,
        "accepted mesh snapshot is not canonical"
    );
}

/// Restores `data` into a copy of `base` (with `extra` besides its own library): a failure
/// leaves it unchanged (its Full snapshot and its library); a success is canonical; either way
/// the result equals the restore into a new cache of the world given the busy cache's library
/// (which holds every tile either base knows). Returns the restored cache.
///
/// # Panics
///
/// On any breach of these rules.
pub fn ontk_restore_into(
    base: &TileCache,
    base_full: &[u8],
    data: &[u8],
    extra: &TileLibrary,
) -> Option<TileCache> {
    let fx = cache_fixture();
    let mut c = base.clone();
    let mut fresh = fx.fresh.clone();
    let other = fresh.restore_with(data, fx.busy.library());
    match c.restore_with(data, extra) {
        Err(e) => {
            check_error(&e, data.len());
            assert!(
                c.snapshot(SnapshotMode::Full) == base_full,
                "a failed restore changed the cache"
            );
            assert_eq!(c.library().len(), base.library().len(), "library changed");
            assert_eq!(
                other,
                Err(e),
                "in place and into a new cache fail differently"
            );
            None
        }
        Ok(()) => {
            check_accepted(&c, data);
            assert!(other.is_ok(), "a new cache rejects what in place accepts");
            assert!(
                fresh.snapshot(SnapshotMode::Full) == c.snapshot(SnapshotMode::Full),
                "in place and new restores differ"
            );
            Some(c)
        }
    }
}

/// After a successful restore: a short update runs (errors are results, never panics), and
/// the cache's own snapshots restore into a new cache.
fn exercise(mut c: TileCache) {
    let _ = c.update(2);
    let fx = cache_fixture();
    for mode in [SnapshotMode::Full, SnapshotMode::Referenced] {
        let b = c.snapshot(mode);
        let mut d = fx.fresh.clone();
        d.restore_with(&b, c.library())
            .expect("a cache's own snapshot restores");
        assert!(d.snapshot(mode) == b, "round trip differs");
    }
}

/// Target `ontk_restore_new`: `data` restored into a new cache of the world (with the busy
/// cache's library), checked by [`ontk_restore_into`].
pub fn fuzz_ontk_restore_new(data: &[u8]) {
    let fx = cache_fixture();
    // A host restoring into a new cache passes the library of the tiles it kept.
    if let Some(c) = ontk_restore_into(&fx.fresh, &fx.fresh_full, data, fx.busy.library()) {
        exercise(c);
    }
}

/// Target `ontk_restore_in_place`: `data` restored into a copy of the busy cache, checked by
/// [`ontk_restore_into`] (all or nothing).
pub fn fuzz_ontk_restore_in_place(data: &[u8]) {
    let fx = cache_fixture();
    let none = TileLibrary::new();
    if let Some(c) = ontk_restore_into(&fx.busy, &fx.busy_snapshots[0], data, &none) {
        exercise(c);
    }
}

/// A value near the boundaries of the shape rules.
fn hostile_f64(c: &mut Cursor<'_>) -> f64 {
    match c.u8() % 12 {
        0 => 0.0,
        1 => -0.0,
        2 => f64::NAN,
        3 => f64::INFINITY,
        4 => f64::NEG_INFINITY,
        5 => f64::MAX,
        6 => -f64::MAX,
        7 => f64::MIN_POSITIVE,
        8 => 1e-300,
        9 => f64::from(c.u8()) - 128.0,
        10 => f64::from(c.u16()) / 64.0 - 512.0,
        _ => f64::from_bits(c.u64()),
    }
}

/// One field-aware mutation of an `ONTK` model.
fn mutate(m: &mut OntkModel, c: &mut Cursor<'_>) {
    let fx = cache_fixture();
    match c.u8() % 20 {
        0 => m.next_obstacle = c.near(m.next_obstacle),
        1 => m.next_volume = c.near(m.next_volume),
        2 => m.obstacle_count = c.near(m.obstacle_count),
        3 => m.volume_count = c.near(m.volume_count),
        4 => m.queue_length = c.near(m.queue_length),
        5 => m.mesh_length = c.near(m.mesh_length),
        6 if !m.obstacles.is_empty() => {
            let i = c.below(m.obstacles.len());
            m.obstacles[i].id = c.near(m.obstacles[i].id);
        }
        7 if !m.obstacles.is_empty() => {
            let i = c.below(m.obstacles.len());
            let o = &mut m.obstacles[i];
            o.shape = c.u8() % 5;
            let n = onav_tilecache::ObstacleShape::field_names(o.shape).map_or(5, <[_]>::len);
            o.values.resize(n, 1.0);
        }
        8 if !m.obstacles.is_empty() => {
            let i = c.below(m.obstacles.len());
            let k = c.below(m.obstacles[i].values.len());
            m.obstacles[i].values[k] = hostile_f64(c);
        }
        9 if !m.volumes.is_empty() => {
            let i = c.below(m.volumes.len());
            let v = &mut m.volumes[i];
            match c.u8() % 6 {
                0 => v.id = c.near(v.id),
                1 => v.area = c.u8(),
                2 => v.min_y = hostile_f64(c),
                3 => v.max_y = hostile_f64(c),
                4 => v.corner_count = c.near(v.corner_count),
                _ => {
                    let j = c.below(v.corners.len());
                    v.corners[j][usize::from(c.bool())] = hostile_f64(c);
                }
            }
        }
        10 if !m.volumes.is_empty() => {
            let i = c.below(m.volumes.len());
            let v = &mut m.volumes[i];
            match c.u8() % 3 {
                0 => v.corners.reverse(),
                1 => v.corners.truncate(2),
                _ => {
                    let p = v.corners[0];
                    v.corners.insert(1, p);
                }
            }
            v.corner_count = v.corners.len() as u32;
        }
        11 => {
            let cell = (i32::from(c.u8() % 6) - 2, i32::from(c.u8() % 6) - 2);
            let at = c.below(m.queue.len() + 1);
            m.queue.insert(at, cell);
            m.queue_length = m.queue.len() as u32;
        }
        12 if !m.queue.is_empty() => {
            let i = c.below(m.queue.len());
            m.queue.remove(i);
            m.queue_length = m.queue.len() as u32;
        }
        13 if m.obstacles.len() >= 2 => {
            let i = c.below(m.obstacles.len() - 1);
            m.obstacles.swap(i, i + 1);
        }
        14 => {
            let src = [
                &fx.busy_snapshots[0],
                &fx.busy_snapshots[1],
                &fx.fresh_snapshot,
            ];
            if let Some(o) = OntkModel::parse(src[c.below(3)]) {
                m.mesh = o.mesh;
                m.mesh_length = m.mesh.len() as u32;
            }
        }
        15 if !m.mesh.is_empty() => {
            let i = c.below(m.mesh.len());
            m.mesh[i] ^= c.u8() | 1;
        }
        16 => {
            let n = c.below(m.mesh.len() + 1);
            m.mesh.truncate(n);
        }
        17 => m.trailing.push(c.u8()),
        18 => match c.u8() % 3 {
            0 => m.magic[c.below(4)] ^= 0x20,
            1 => m.version = c.u16(),
            _ => m.flags = c.u16() | 1,
        },
        _ => {
            // A new record from the fuzz bytes.
            if c.bool() {
                let shape = 1 + c.u8() % 3;
                let n = onav_tilecache::ObstacleShape::field_names(shape).map_or(5, <[_]>::len);
                let values = (0..n).map(|_| hostile_f64(c)).collect();
                let id = m.obstacles.last().map_or(1, |o| o.id.wrapping_add(1));
                m.obstacles.push(ObstacleRecord { id, shape, values });
                m.obstacle_count = m.obstacles.len() as u32;
            } else {
                let k = 3 + c.below(4);
                let corners = (0..k).map(|_| [hostile_f64(c), hostile_f64(c)]).collect();
                let id = m.volumes.last().map_or(1, |v| v.id.wrapping_add(1));
                m.volumes.push(VolumeRecord {
                    id,
                    area: c.u8() % 64,
                    min_y: hostile_f64(c),
                    max_y: hostile_f64(c),
                    corner_count: k as u32,
                    corners,
                });
                m.volume_count = m.volumes.len() as u32;
            }
        }
    }
}

/// Target `ontk_structured`: a valid base snapshot (the busy cache in Full or Referenced mode,
/// or the fresh cache), field-aware mutations of ids, counts, shape codes and values, volume
/// corners, queue entries, the embedded mesh and the framing; then both restore checks. The
/// unmutated base must restore.
pub fn fuzz_ontk_structured(data: &[u8]) {
    let fx = cache_fixture();
    let mut c = Cursor::new(data);
    let base = match c.u8() % 3 {
        0 => &fx.busy_snapshots[0],
        1 => &fx.busy_snapshots[1],
        _ => &fx.fresh_snapshot,
    };
    let mut m = OntkModel::parse(base).expect("fixture snapshot parses");
    let rounds = c.u8() % 8;
    for _ in 0..rounds {
        if c.done() {
            break;
        }
        mutate(&mut m, &mut c);
    }
    let bytes = m.encode();
    if rounds == 0 {
        assert!(bytes == *base, "model encoding differs from its base");
    }
    let none = TileLibrary::new();
    let accepted = ontk_restore_into(&fx.busy, &fx.busy_snapshots[0], &bytes, &none);
    assert!(rounds > 0 || accepted.is_some(), "a valid base is refused");
    fuzz_ontk_restore_new(&bytes);
}

/// An obstacle decoded from fuzz bytes (its values may be invalid).
fn obstacle_of(c: &mut Cursor<'_>) -> Result<Obstacle, onav_tilecache::ShapeError> {
    let v = |c: &mut Cursor<'_>, lo: f64, span: f64| lo + span * f64::from(c.u8()) / 255.0;
    match c.u8() % 4 {
        0 => Obstacle::cylinder(
            [v(c, -2.0, 28.0), v(c, -1.0, 4.0), v(c, -2.0, 28.0)],
            v(c, 0.0, 3.0),
            v(c, 0.0, 3.0),
        ),
        1 => {
            let (x, y, z) = (v(c, -2.0, 28.0), v(c, -1.0, 4.0), v(c, -2.0, 28.0));
            Obstacle::aabb(
                [x, y, z],
                [x + v(c, 0.0, 9.0), y + v(c, 0.0, 3.0), z + v(c, 0.0, 9.0)],
            )
        }
        2 => Obstacle::oriented_box(
            [v(c, -2.0, 28.0), v(c, -1.0, 4.0), v(c, -2.0, 28.0)],
            [v(c, 0.0, 4.0), v(c, 0.0, 2.0), v(c, 0.0, 4.0)],
            v(c, -7.0, 14.0),
        ),
        _ => Obstacle::cylinder(
            [hostile_f64(c), hostile_f64(c), hostile_f64(c)],
            hostile_f64(c),
            hostile_f64(c),
        ),
    }
}

/// A volume decoded from fuzz bytes: a regular polygon (valid) or hostile corners.
fn volume_of(c: &mut Cursor<'_>) -> Result<Volume, onav_tilecache::ShapeError> {
    let n = 3 + usize::from(c.u8() % 6);
    let (cx, cz) = (f64::from(c.u8()) / 8.0 - 4.0, f64::from(c.u8()) / 8.0 - 4.0);
    let r = 0.2 + f64::from(c.u8()) / 16.0;
    let a0 = f64::from(c.u8()) / 40.0;
    let mut poly: Vec<[f64; 2]> = (0..n)
        .map(|k| {
            let a = a0 + (k as f64) * (std::f64::consts::TAU / n as f64);
            [cx + r * libm::cos(a), cz + r * libm::sin(a)]
        })
        .collect();
    if c.u8().is_multiple_of(8) {
        let j = c.below(n);
        poly[j] = [hostile_f64(c), hostile_f64(c)];
    }
    let y = f64::from(c.u8()) / 50.0 - 1.0;
    Volume::new(c.u8() % 66, y, y + f64::from(c.u8()) / 64.0, poly)
}

/// Target `ontk_differential`: two caches, `a` and `b`, apply the same operations decoded from
/// the bytes (obstacles and volumes of every shape, valid or not, removals of live and dead ids,
/// updates of any budget, mesh edits); `b` also takes excursions (snapshot in either mode, a few
/// other operations, restore), failed restores (a truncated snapshot) and re-seats from `a`'s
/// snapshot. After every step both give the same results and the same Full and Referenced
/// snapshots. At the end both drain the queue, and the mesh equals every cell built from scratch
/// with the same obstacles and volumes.
pub fn fuzz_ontk_differential(data: &[u8]) {
    let fx = cache_fixture();
    let mut a = fx.fresh.clone();
    let mut b = fx.fresh.clone();
    let mut c = Cursor::new(data);
    let mut steps = 0;
    while !c.done() && steps < 48 {
        steps += 1;
        let op = c.u8();
        if op % 8 == 7 {
            // b's excursion, failed restore or re-seat.
            let mode = if c.bool() {
                SnapshotMode::Full
            } else {
                SnapshotMode::Referenced
            };
            let snap = b.snapshot(mode);
            match c.u8() % 3 {
                0 => {
                    for _ in 0..1 + c.u8() % 3 {
                        let sub = c.u8();
                        apply(&mut b, sub, &mut c);
                    }
                    b.restore(&snap).expect("an excursion returns");
                }
                1 => {
                    let cut = c.below(snap.len());
                    assert!(
                        b.restore(&snap[..cut]).is_err(),
                        "a truncated snapshot restores"
                    );
                }
                _ => b.restore(&a.snapshot(mode)).expect("a re-seat restores"),
            }
        } else {
            let mut ca = c.clone();
            let ra = apply(&mut a, op, &mut ca);
            let rb = apply(&mut b, op, &mut c);
            assert_eq!(ra, rb, "the twins answered differently");
        }
        for mode in [SnapshotMode::Full, SnapshotMode::Referenced] {
            assert!(a.snapshot(mode) == b.snapshot(mode), "the twins differ");
        }
    }
    let ra = a.update_all().map(|_| ());
    let rb = b.update_all().map(|_| ());
    assert_eq!(ra, rb);
    assert!(a.snapshot(SnapshotMode::Full) == b.snapshot(SnapshotMode::Full));
    if ra.is_ok() {
        assert_eq!(
            contents(&a),
            from_scratch(&a),
            "drained mesh differs from a full build"
        );
    }
}

/// The tiles of the cache's mesh by position, as content ids.
fn contents(c: &TileCache) -> Vec<((i32, i32, u32), onav::TileContentId)> {
    let mut v: Vec<_> = c
        .mesh()
        .tiles()
        .map(|(_, t)| {
            let p = t.pos();
            ((p.row, p.column, p.layer), t.content_id())
        })
        .collect();
    v.sort_unstable();
    v
}

/// Every cell of a fresh plan finished with all of the cache's marks (volumes ascending, then
/// obstacles ascending), independent of the cache's queue and touch ranges.
pub fn from_scratch(c: &TileCache) -> Vec<((i32, i32, u32), onav::TileContentId)> {
    let fx = cache_fixture();
    let plan = onav_build3d::Plan::new(&fx.geometry, &fx.settings).expect("plan");
    let marks: Vec<onav_build3d::AreaMark> = c
        .volumes()
        .map(|(_, v)| v.mark().clone())
        .chain(c.obstacles().map(|(_, o)| o.mark().clone()))
        .collect();
    let mut out = Vec::new();
    for i in 0..plan.tile_cells().len() {
        if let Some(im) = plan.prepare(i).expect("prepare") {
            for t in plan.finish(&im, &marks).expect("finish") {
                let p = t.pos();
                out.push(((p.row, p.column, p.layer), t.content_id()));
            }
        }
    }
    out.sort_unstable();
    out
}

/// One operation decoded from `c`, applied to `cache`; its result as text (compared between the
/// twins).
fn apply(cache: &mut TileCache, op: u8, c: &mut Cursor<'_>) -> String {
    match op % 8 {
        0 | 1 => match obstacle_of(c) {
            Ok(o) => format!("{:?}", cache.add_obstacle(o)),
            Err(e) => format!("{e:?}"),
        },
        2 => match volume_of(c) {
            Ok(v) => format!("{:?}", cache.add_volume(v)),
            Err(e) => format!("{e:?}"),
        },
        3 => {
            let (n, _) = cache.next_ids();
            let id = ObstacleId(u32::from(c.u8()) % (n + 1));
            format!("{:?}", cache.remove_obstacle(id).map(|_| ()))
        }
        4 => {
            let (_, n) = cache.next_ids();
            let id = VolumeId(u32::from(c.u8()) % (n + 1));
            format!("{:?}", cache.remove_volume(id).map(|_| ()))
        }
        5 => format!("{:?}", cache.update(usize::from(c.u8() % 4))),
        _ => {
            let tiles: Vec<onav::TileRef> = cache.mesh().tiles().map(|(r, _)| r).collect();
            if tiles.is_empty() {
                return "no tile".into();
            }
            let r = tiles[c.below(tiles.len())];
            let p = r.poly(PolyIndex(u32::from(c.u8() % 4)));
            format!("{:?}", cache.mesh_mut().set_poly_area(p, c.u8() % 70))
        }
    }
}

/// The tile cache's fuzz targets by name (folders under `fuzz/seeds/`, `fuzz/regressions/` and
/// `fuzz/fuzz_targets/`), replayed by onav-tilecache's integration test `fuzz_replay`.
pub const ONTK_TARGETS: &[(&str, crate::EntryPoint)] = &[
    ("ontk_restore_new", fuzz_ontk_restore_new),
    ("ontk_restore_in_place", fuzz_ontk_restore_in_place),
    ("ontk_structured", fuzz_ontk_structured),
    ("ontk_differential", fuzz_ontk_differential),
];

/// The seed corpus of the tile cache's targets: (target, file name, bytes).
pub fn ontk_seed_inputs() -> Vec<(&'static str, String, Vec<u8>)> {
    let fx = cache_fixture();
    let mut out = Vec::new();
    let mut other = fx.busy.clone();
    other.update_all().expect("drain");
    let snaps = [
        ("busy_full.ontk", fx.busy_snapshots[0].clone()),
        ("busy_referenced.ontk", fx.busy_snapshots[1].clone()),
        ("fresh_referenced.ontk", fx.fresh_snapshot.clone()),
        (
            "drained_referenced.ontk",
            other.snapshot(SnapshotMode::Referenced),
        ),
    ];
    for t in ["ontk_restore_new", "ontk_restore_in_place"] {
        for (name, b) in &snaps {
            out.push((t, (*name).to_string(), b.clone()));
        }
    }
    for (name, b) in [
        ("base_full", vec![0u8, 0]),
        ("base_referenced", vec![1, 0]),
        ("base_fresh", vec![2, 0]),
        ("shape_value", vec![0, 2, 8, 0, 0, 1, 2, 11, 0, 0]),
        (
            "queue_dup",
            vec![1, 3, 11, 2, 2, 0, 0, 11, 2, 2, 0, 0, 4, 0],
        ),
        ("volume_corners", vec![1, 2, 10, 0, 0, 1, 9, 5, 0, 0, 1, 7]),
        ("mesh_swap", vec![0, 2, 14, 1, 0, 15, 9, 0, 3]),
    ] {
        out.push(("ontk_structured", format!("{name}.bin"), b));
    }
    for (name, b) in [
        (
            "adds_and_updates",
            vec![
                0u8, 0, 40, 40, 10, 80, 120, 2, 9, 9, 30, 30, 3, 0, 5, 5, 3, 5, 3,
            ],
        ),
        (
            "excursion",
            vec![
                1, 1, 200, 100, 60, 20, 50, 7, 1, 0, 2, 0, 0, 50, 50, 50, 50, 5, 2,
            ],
        ),
        (
            "remove_and_edit",
            vec![
                0, 2, 20, 20, 20, 30, 30, 5, 3, 3, 1, 6, 0, 0, 0, 5, 7, 0, 1, 3,
            ],
        ),
        (
            "reseat",
            vec![2, 1, 30, 30, 40, 10, 0, 60, 7, 0, 2, 5, 1, 7, 1, 1, 100],
        ),
    ] {
        out.push(("ontk_differential", format!("{name}.bin"), b));
    }
    out
}
