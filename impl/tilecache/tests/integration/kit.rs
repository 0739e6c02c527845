//! Worlds, shapes and independent checks shared by the tests.

use std::collections::BTreeMap;

use onav::{NavTile, RawTile, SettingsDigest, TileContentId, TiledNavMesh};
use onav_build3d::{AreaMark, Geometry, Plan, Settings, SettingsSpec};
use onav_tilecache::{Obstacle, TileCache};

/// The small world (`onav_testkit::cache_world`): a 24 × 24 floor (3 × 3 tiles of 16 cells of
/// 0.5), a ramp up to a slab bridging over the floor (two layers under it) and a block.
pub fn world_geometry() -> Geometry {
    onav_testkit::ontk::cache_world()
}

/// Small settings: 0.5 cells, 16-cell tiles; detail sampling on or off.
pub fn small_spec(detail: bool) -> SettingsSpec {
    onav_testkit::ontk::cache_spec(detail)
}

pub fn small_settings(detail: bool) -> Settings {
    onav_testkit::ontk::cache_settings(detail)
}

/// A cache of the small world.
pub fn small_cache(detail: bool) -> TileCache {
    TileCache::new(&world_geometry(), &small_settings(detail)).expect("cache")
}

/// The demo mesh `name` from `scenarios/build3d/meshes/` (the one copy of them).
pub fn demo_mesh(name: &str) -> Geometry {
    let path = format!(
        "{}/../../scenarios/build3d/meshes/{name}.obj",
        env!("CARGO_MANIFEST_DIR")
    );
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    Geometry::from_obj(&bytes).expect("demo mesh parses")
}

/// The tiles of a mesh by position, as content ids.
pub fn contents(m: &TiledNavMesh) -> BTreeMap<(i32, i32, u32), TileContentId> {
    m.tiles()
        .map(|(_, t)| {
            let p = t.pos();
            ((p.row, p.column, p.layer), t.content_id())
        })
        .collect()
}

/// Independent of the cache's queue and touch ranges: every cell of a fresh plan finished with
/// every mark (volumes by ascending id, then obstacles by ascending id; marks outside a window
/// change nothing), as a position → content id map.
pub fn from_scratch(
    g: &Geometry,
    s: &Settings,
    volumes: &[AreaMark],
    obstacles: &[AreaMark],
) -> BTreeMap<(i32, i32, u32), TileContentId> {
    let plan = Plan::new(g, s).expect("plan");
    let marks: Vec<AreaMark> = volumes.iter().chain(obstacles).cloned().collect();
    let mut out = BTreeMap::new();
    for i in 0..plan.tile_cells().len() {
        if let Some(im) = plan.prepare(i).expect("prepare") {
            for t in plan.finish(&im, &marks).expect("finish") {
                let p = t.pos();
                out.insert((p.row, p.column, p.layer), t.content_id());
            }
        }
    }
    out
}

/// The cache's current marks, from its public lists.
pub fn marks_of(c: &TileCache) -> (Vec<AreaMark>, Vec<AreaMark>) {
    (
        c.volumes().map(|(_, v)| v.mark().clone()).collect(),
        c.obstacles().map(|(_, o)| o.mark().clone()).collect(),
    )
}

/// A tile's contents with its digest cleared (baked volumes change the settings digest).
pub fn without_digest(t: &NavTile) -> Vec<u8> {
    let mut r = RawTile::from_tile(t);
    r.digest = SettingsDigest([0; 32]);
    r.to_bytes()
}

/// A small deterministic generator (splitmix64).
#[derive(Debug, Clone)]
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.next() >> 11) as f64 / (1u64 << 53) as f64)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A random obstacle over the small world: mostly small ones on the floors; some whose y range
/// meets no floor, some far away, and some larger than 3 × 3 tiles (24 wu) that mark only the
/// ramp's middle heights.
pub fn random_obstacle(r: &mut Rng) -> Obstacle {
    let kind = r.below(20);
    let (x, z) = if kind == 19 {
        (r.range(200.0, 400.0), r.range(-400.0, -200.0))
    } else {
        (r.range(-2.0, 26.0), r.range(-2.0, 26.0))
    };
    // Floors lie at y = 0 (ground), 0 … 3 (ramp) and 3 (slab).
    let y = match kind {
        16 | 17 => r.range(4.0, 8.0),
        _ => [0.0, 3.0, r.range(0.0, 3.0)][r.below(3) as usize],
    };
    if kind == 18 {
        let h = [r.range(13.0, 20.0), 0.4, r.range(13.0, 20.0)];
        return Obstacle::aabb(
            [12.0 - h[0], 1.2, 12.0 - h[2]],
            [12.0 + h[0], 1.2 + h[1], 12.0 + h[2]],
        )
        .expect("valid");
    }
    match kind % 3 {
        0 => Obstacle::cylinder([x, y - 0.5, z], r.range(0.2, 1.0), r.range(0.6, 2.0)),
        1 => {
            let h = [r.range(0.2, 1.0), r.range(0.5, 1.0), r.range(0.2, 1.0)];
            Obstacle::aabb(
                [x - h[0], y - h[1], z - h[2]],
                [x + h[0], y + h[1], z + h[2]],
            )
        }
        _ => Obstacle::oriented_box(
            [x, y, z],
            [r.range(0.2, 1.2), r.range(0.5, 1.0), r.range(0.2, 1.2)],
            r.range(-7.0, 7.0),
        ),
    }
    .expect("valid random obstacle")
}

/// A random convex volume: a regular polygon of 3 … 8 corners; some huge (relabelling, area
/// ≥ 1), some far away, a few small unwalkable ones.
pub fn random_volume(r: &mut Rng) -> onav_tilecache::Volume {
    let n = 3 + r.below(6) as usize;
    let far = r.below(12) == 0;
    let (cx, cz) = if far {
        (-300.0, 500.0)
    } else {
        (r.range(0.0, 24.0), r.range(0.0, 24.0))
    };
    let huge = r.below(8) == 0;
    let rad = if huge {
        r.range(20.0, 40.0)
    } else {
        r.range(0.8, 3.0)
    };
    let a0 = r.range(0.0, 6.0);
    let poly = (0..n)
        .map(|k| {
            let a = a0 + (k as f64) * (std::f64::consts::TAU / n as f64);
            [cx + rad * libm::cos(a), cz + rad * libm::sin(a)]
        })
        .collect();
    let area = if huge || r.below(6) != 0 {
        1 + r.below(63) as u8
    } else {
        0
    };
    let y = [0.0, 3.0, r.range(0.0, 3.0)][r.below(3) as usize];
    onav_tilecache::Volume::new(area, y - 0.5, y + r.range(0.0, 1.0), poly)
        .expect("valid random volume")
}
