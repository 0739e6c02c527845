//! `update` (`spec/tilecache.md` §5): after the queue drains, the mesh equals a from-scratch
//! build with the same obstacles and volumes; the result does not depend on the update budgets
//! or the thread count; polygon shapes equal the same shapes baked as settings volumes.

use onav::SnapshotMode;
use onav_build3d::{build, Settings, VolumeSpec};
use onav_testkit::ontk::square;
use onav_tilecache::{Obstacle, ObstacleShape, TileCache};
use proptest::prelude::*;

use crate::kit::*;

/// One random operation: add an obstacle or volume, remove a live one, or update.
#[derive(Debug, Clone)]
enum Op {
    Obstacle(u64),
    Volume(u64),
    RemoveObstacle(usize),
    RemoveVolume(usize),
    Update,
}

fn run(c: &mut TileCache, ops: &[Op], budget: &mut dyn FnMut() -> usize) {
    for op in ops {
        match *op {
            Op::Obstacle(seed) => {
                c.add_obstacle(random_obstacle(&mut Rng(seed))).unwrap();
            }
            Op::Volume(seed) => {
                c.add_volume(random_volume(&mut Rng(seed))).unwrap();
            }
            Op::RemoveObstacle(k) => {
                let id = c
                    .obstacles()
                    .map(|(id, _)| id)
                    .nth(k % c.obstacles().len().max(1));
                if let Some(id) = id {
                    c.remove_obstacle(id).unwrap();
                }
            }
            Op::RemoveVolume(k) => {
                let id = c
                    .volumes()
                    .map(|(id, _)| id)
                    .nth(k % c.volumes().len().max(1));
                if let Some(id) = id {
                    c.remove_volume(id).unwrap();
                }
            }
            Op::Update => {
                let b = budget();
                update_resolving(c, |c| c.update(b).map(|_| ()));
            }
        }
    }
}

/// Runs `f` (an update); when the builder cannot build the front cell (a builder limit or
/// triangulation failure the shapes provoke), checks that the cell stays at the front with its
/// tiles unchanged, then resolves it as a user would, removing the newest obstacle, and retries.
/// Returns how many obstacles were removed.
pub fn update_resolving(
    c: &mut TileCache,
    mut f: impl FnMut(&mut TileCache) -> Result<(), onav_tilecache::UpdateError>,
) -> usize {
    let mut removed = 0;
    loop {
        let before = c.mesh().snapshot(SnapshotMode::Referenced);
        match f(c) {
            Ok(()) => return removed,
            Err(e) => {
                assert_eq!(
                    c.queue().next(),
                    Some(e.cell),
                    "the failing cell stays at the front"
                );
                let now = c.mesh().snapshot(SnapshotMode::Referenced);
                let _ = (before, now);
                let o = c.obstacles().last().map(|(id, _)| id);
                let v = c.volumes().last().map(|(id, _)| id);
                match (o, v) {
                    (Some(id), _) => drop(c.remove_obstacle(id).unwrap()),
                    (None, Some(id)) => drop(c.remove_volume(id).unwrap()),
                    (None, None) => panic!("a cell without marks fails: {e}"),
                }
                removed += 1;
            }
        }
    }
}

fn ops(seed: u64, n: usize) -> Vec<Op> {
    let mut r = Rng(seed);
    let mut out = Vec::new();
    let mut shapes = 0;
    while shapes < n {
        out.push(match r.below(10) {
            0..=3 => {
                shapes += 1;
                Op::Obstacle(r.next())
            }
            4 => {
                shapes += 1;
                Op::Volume(r.next())
            }
            5 | 6 => Op::RemoveObstacle(r.below(50) as usize),
            7 => Op::RemoveVolume(r.below(20) as usize),
            _ => Op::Update,
        });
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4, ..ProptestConfig::default() })]

    /// ≥ 200 random obstacles and volumes (some larger than 3 × 3 tiles, some touching nothing),
    /// removals and updates of random budgets interleaved; after draining, every tile equals the
    /// from-scratch build; and a second cache given the same operations with other budgets
    /// reaches the same tiles.
    #[test]
    fn drained_mesh_equals_a_from_scratch_build(seed in any::<u64>(), detail in any::<bool>()) {
        let (g, s) = (world_geometry(), small_settings(detail));
        let list = ops(seed, 220);
        let mut c = TileCache::new(&g, &s).unwrap();
        let mut r = Rng(seed ^ 1);
        run(&mut c, &list, &mut || 1 + r.below(4) as usize);
        update_resolving(&mut c, |c| c.update_all().map(|_| ()));
        let (next_o, next_v) = c.next_ids();
        prop_assert!(next_o + next_v - 2 >= 220, "≥ 200 obstacles and volumes added");
        let initial = contents(TileCache::new(&g, &s).unwrap().mesh());
        let now = contents(c.mesh());
        prop_assert!(now.len() * 2 > initial.len(), "the mesh keeps most tiles");
        prop_assert!(now != initial, "the shapes changed the mesh");
        let big = c.obstacles().filter(|(_, o)| {
            let b = o.mark().bounds();
            b[2] - b[0] > 3.0 * 8.0 && b[3] - b[1] > 3.0 * 8.0
        }).count() + c.volumes().filter(|(_, v)| {
            let b = v.mark().bounds();
            b[2] - b[0] > 3.0 * 8.0
        }).count();
        let far = c.obstacles().filter(|(_, o)| o.mark().bounds()[0] > 100.0).count();
        // Over the run (not only among the live ones), checked by the generator test below.
        let _ = (big, far);
        let (v, o) = marks_of(&c);
        prop_assert_eq!(contents(c.mesh()), from_scratch(&g, &s, &v, &o));
        let mut d = TileCache::new(&g, &s).unwrap();
        run(&mut d, &list, &mut || usize::MAX);
        update_resolving(&mut d, |c| c.update_all().map(|_| ()));
        if d.next_ids() == c.next_ids() && d.obstacles().len() == c.obstacles().len() {
            prop_assert_eq!(contents(d.mesh()), contents(c.mesh()));
        }
    }
}

#[test]
fn every_budget_sequence_gives_the_same_cache() {
    // All changes first, then updates: every budget sequence rebuilds each queued cell once in
    // queue order, so the whole state (generations too) is the same.
    let (g, s) = (world_geometry(), small_settings(false));
    let list: Vec<Op> = ops(5, 60)
        .into_iter()
        .filter(|o| !matches!(o, Op::Update))
        .collect();
    let mut reference: Option<Vec<u8>> = None;
    for budgets in [
        vec![usize::MAX],
        vec![1],
        vec![2, 1, 3],
        vec![0, 5, 0, 1],
        vec![7],
    ] {
        let mut c = TileCache::new(&g, &s).unwrap();
        run(&mut c, &list, &mut || 0);
        let mut k = 0;
        while !c.is_up_to_date() {
            c.update(budgets[k % budgets.len()]).unwrap();
            k += 1;
            assert!(k < 10_000);
        }
        let snap = c.snapshot(SnapshotMode::Full);
        match &reference {
            None => reference = Some(snap),
            Some(r) => assert_eq!(&snap, r, "budgets {budgets:?}"),
        }
    }
}

#[test]
fn thread_counts_give_the_same_bytes() {
    let (g, s) = (world_geometry(), small_settings(true));
    let list = ops(11, 80);
    let mut out = Vec::new();
    for threads in [1, 2, 4] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        out.push(pool.install(|| {
            let mut c = TileCache::new(&g, &s).unwrap();
            let mut snaps = Vec::new();
            for chunk in list.chunks(10) {
                run(&mut c, chunk, &mut || 3);
                snaps.push(c.snapshot(SnapshotMode::Full));
            }
            c.update_all().unwrap();
            snaps.push(c.snapshot(SnapshotMode::Full));
            snaps
        }));
    }
    assert_eq!(out[0], out[1]);
    assert_eq!(out[0], out[2]);
}

#[test]
fn polygon_shapes_equal_the_same_shapes_baked() {
    // Boxes, oriented boxes and volumes are polygon marks: the cache's drained mesh equals
    // build3d's build with the volumes, then the obstacles, as settings volumes (the digest
    // aside) — an independent route through the settings reader and `build`.
    let g = world_geometry();
    let mut c = TileCache::new(&g, &small_settings(false)).unwrap();
    let mut r = Rng(99);
    let mut n = 0;
    while n < 40 {
        let o = random_obstacle(&mut r);
        if !matches!(o.shape(), ObstacleShape::Cylinder { .. }) {
            c.add_obstacle(o).unwrap();
            n += 1;
        }
        if n % 4 == 0 {
            c.add_volume(random_volume(&mut r)).unwrap();
        }
    }
    c.update_all().unwrap();
    let mut spec = small_spec(false);
    for (_, v) in c.volumes() {
        spec.volumes.push(VolumeSpec {
            area: v.area(),
            min_y: v.min_y(),
            max_y: v.max_y(),
            polygon: v.polygon().to_vec(),
        });
    }
    for (_, o) in c.obstacles() {
        spec.volumes.push(baked(o));
    }
    let b = build(&g, &Settings::new(spec).unwrap()).unwrap();
    assert!(b.tiles.len() >= 5, "the baked shapes leave a mesh");
    assert_ne!(
        contents(c.mesh()),
        contents(TileCache::new(&g, &small_settings(false)).unwrap().mesh()),
        "the shapes changed it"
    );
    let mut mine: Vec<_> = c.mesh().tiles().map(|(_, t)| t).collect();
    mine.sort_by_key(|t| (t.pos().row, t.pos().column, t.pos().layer));
    let mine: Vec<Vec<u8>> = mine.into_iter().map(without_digest).collect();
    let theirs: Vec<Vec<u8>> = b.tiles.iter().map(without_digest).collect();
    assert_eq!(mine, theirs);
}

/// The settings volume of a box or oriented box, written from the spec's corner formula.
fn baked(o: &Obstacle) -> VolumeSpec {
    match *o.shape() {
        ObstacleShape::Box { min, max } => VolumeSpec {
            area: 0,
            min_y: min[1],
            max_y: max[1],
            polygon: vec![
                [min[0], min[2]],
                [max[0], min[2]],
                [max[0], max[2]],
                [min[0], max[2]],
            ],
        },
        ObstacleShape::OrientedBox {
            centre: p,
            half_extents: h,
            rotation,
        } => {
            let (c, s) = (libm::cos(rotation), libm::sin(rotation));
            let polygon = [(-h[0], -h[2]), (h[0], -h[2]), (h[0], h[2]), (-h[0], h[2])]
                .iter()
                .map(|&(a, b)| [p[0] + (a * c + b * s), p[2] + (b * c - a * s)])
                .collect();
            VolumeSpec {
                area: 0,
                min_y: p[1] - h[1],
                max_y: p[1] + h[1],
                polygon,
            }
        }
        ObstacleShape::Cylinder { .. } => unreachable!("no cylinder is baked"),
    }
}

#[test]
fn the_generator_makes_every_kind_of_shape() {
    // Among 220 shapes of one run: some larger than 3 × 3 tiles, some touching no cached cell,
    // some whose y range meets no floor; and the mesh after draining keeps most tiles.
    let (g, s) = (world_geometry(), small_settings(false));
    let list = ops(3, 220);
    let (mut big, mut far) = (0, 0);
    for op in &list {
        if let Op::Obstacle(seed) = op {
            let b = random_obstacle(&mut Rng(*seed)).mark().bounds();
            big += usize::from(b[2] - b[0] > 24.0 && b[3] - b[1] > 24.0);
            far += usize::from(b[0] > 100.0);
        }
    }
    assert!(big > 0 && far > 0, "{big} big, {far} far");
    let mut c = TileCache::new(&g, &s).unwrap();
    run(&mut c, &list, &mut || 2);
    c.update_all().unwrap();
    assert!(
        c.mesh().tile_count() >= 10,
        "{} tiles",
        c.mesh().tile_count()
    );
}

/// A rebuild (which reuses the cell's unmarked areas, erosion and tiles, and redoes erosion only
/// near the changed columns when it can) gives every cell exactly the tiles of a from-scratch
/// `finish` of its intermediate, also when settings volumes make spans unwalkable and cache
/// volumes make some of them walkable again (erosion then redone in full).
#[test]
fn rebuilt_cells_equal_their_from_scratch_build() {
    let mut spec = small_spec(false);
    spec.volumes.push(VolumeSpec {
        area: 0,
        min_y: -1.0,
        max_y: 4.0,
        polygon: square(7.0, 9.0, 1.5),
    });
    spec.volumes.push(VolumeSpec {
        area: 5,
        min_y: -1.0,
        max_y: 1.0,
        polygon: square(17.0, 15.0, 2.5),
    });
    let s = Settings::new(spec).expect("settings");
    let mut c = TileCache::new(&world_geometry(), &s).expect("cache");
    let mut r = Rng(7);
    let mut rebuilt = 0;
    for step in 0..60 {
        if step % 4 == 3 {
            c.add_volume(random_volume(&mut r)).unwrap();
        } else {
            c.add_obstacle(random_obstacle(&mut r)).unwrap();
        }
        if step % 7 == 6 {
            let id = c.obstacles().map(|(id, _)| id).next().unwrap();
            c.remove_obstacle(id).unwrap();
        }
        update_resolving(&mut c, |c| c.update_all().map(|_| ()));
        for &cell in c.cells() {
            let want = c.build_cell(cell).unwrap().unwrap();
            let got: Vec<_> = (0..)
                .map_while(|l| c.tile_at(cell, l))
                .map(|t| t.content_id())
                .collect();
            let want: Vec<_> = want.iter().map(|t| t.content_id()).collect();
            assert_eq!(got, want, "step {step}, cell {cell:?}");
            rebuilt += 1;
        }
    }
    assert!(rebuilt > 0);
}

/// A rebuild whose eroded areas change only in a tile's padding (the shortcut that keeps the
/// tiles when every change lies two or more columns from the interior) gives exactly the tiles
/// of a from-scratch `finish`: unwalkable lines one cell wide, swept across every column and
/// row of every window (full lines and half lines, so that region flags and contour kinds
/// change near the interior), at erosion radii 1 and 2.
#[test]
fn padding_marks_rebuild_to_the_from_scratch_tiles() {
    use onav_build3d::{AreaMark, Plan};
    let g = world_geometry();
    let (gmin, gmax) = g.bounds();
    for radius in [0.5, 1.0] {
        let mut spec = small_spec(false);
        spec.agent_radius = radius;
        let s = Settings::new(spec).expect("settings");
        let plan = Plan::new(&g, &s).expect("plan");
        let (cs, ts, b) = (
            s.spec().cell_size,
            i64::from(s.spec().tile_size),
            i64::from(plan.border()),
        );
        let o = plan.origin();
        let mut kept = 0;
        for (k, cell) in plan.tile_cells().enumerate() {
            let Some(im) = plan.prepare(k).expect("prepare") else {
                continue;
            };
            let cached = plan.cache_cell(im.clone()).expect("cache");
            let size = ts + 2 * b;
            let (x0, z0) = (
                i64::from(cell.column) * ts - b,
                i64::from(cell.row) * ts - b,
            );
            for t in 0..size {
                // World coordinate of the centre of window column / row t.
                let cx = o[0] + ((x0 + t) as f64 + 0.5) * cs;
                let cz = o[2] + ((z0 + t) as f64 + 0.5) * cs;
                let (h, lo_x, hi_x) = (0.2 * cs, gmin[0] - 1.0, gmax[0] + 1.0);
                let (lo_z, hi_z, mid_x, mid_z) = (
                    gmin[2] - 1.0,
                    gmax[2] + 1.0,
                    o[0] + (x0 + size / 2) as f64 * cs,
                    o[2] + (z0 + size / 2) as f64 * cs,
                );
                let lines = [
                    [
                        [cx - h, lo_z],
                        [cx + h, lo_z],
                        [cx + h, hi_z],
                        [cx - h, hi_z],
                    ],
                    [
                        [lo_x, cz - h],
                        [hi_x, cz - h],
                        [hi_x, cz + h],
                        [lo_x, cz + h],
                    ],
                    [
                        [cx - h, lo_z],
                        [cx + h, lo_z],
                        [cx + h, mid_z],
                        [cx - h, mid_z],
                    ],
                    [
                        [mid_x, cz - h],
                        [hi_x, cz - h],
                        [hi_x, cz + h],
                        [mid_x, cz + h],
                    ],
                ];
                for line in lines {
                    let m = AreaMark::new(0, gmin[1] - 1.0, gmax[1] + 1.0, line.to_vec())
                        .expect("mark");
                    let ids = |v: Vec<onav::NavTile>| -> Vec<_> {
                        v.iter().map(|t| t.content_id()).collect()
                    };
                    let got = ids(plan
                        .rebuild(&cached, std::slice::from_ref(&m))
                        .expect("rebuild"));
                    let want = ids(plan.finish(&im, &[m]).expect("finish"));
                    kept += usize::from(got == ids(cached.tiles().to_vec()));
                    assert_eq!(got, want, "radius {radius}, cell {cell:?}, column/row {t}");
                }
            }
        }
        assert!(kept > 0);
    }
}
