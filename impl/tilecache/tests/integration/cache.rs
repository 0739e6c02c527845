//! The cache's construction, operations and `update` (`spec/tilecache.md` §3–§5).

use onav_build3d::{build, TileCell};
use onav_tilecache::{
    CacheError, CacheOptions, CreateError, Obstacle, ObstacleId, TileCache, UpdateErrorKind,
    Volume, VolumeId,
};

use crate::kit::*;

#[test]
fn a_new_cache_holds_exactly_the_build() {
    for detail in [false, true] {
        let (g, s) = (world_geometry(), small_settings(detail));
        let c = TileCache::new(&g, &s).unwrap();
        let b = build(&g, &s).unwrap();
        let mine: Vec<_> = c.mesh().tiles().map(|(_, t)| t.content_id()).collect();
        let theirs: Vec<_> = b.tiles.iter().map(|t| t.content_id()).collect();
        assert_eq!(mine, theirs, "tile i in slot i, same bytes");
        assert!(b.stats.upper_layers > 0, "the world has a second layer");
        assert_eq!(
            c.mesh().slot_count() as usize,
            b.tiles.len() + c.cells().len()
        );
        assert_eq!(c.next_ids(), (1, 1));
        assert!(c.is_up_to_date());
        assert_eq!(c.library().len(), b.tiles.len());
        assert!(c.intermediate_bytes() > 0);
    }
}

#[test]
fn rebuilding_with_nothing_gives_the_builders_bytes() {
    // A volume over everything queues every cell; removing it leaves no mark: the rebuild
    // must give exactly the build's tiles, left in place (same generations).
    let mut c = small_cache(true);
    let before = c.mesh().snapshot(onav::SnapshotMode::Referenced);
    let v = Volume::new(
        7,
        -10.0,
        10.0,
        vec![[-50.0, -50.0], [50.0, -50.0], [50.0, 50.0], [-50.0, 50.0]],
    )
    .unwrap();
    let id = c.add_volume(v).unwrap();
    c.remove_volume(id).unwrap();
    assert_eq!(c.queue().len(), c.cells().len());
    let r = c.update_all().unwrap();
    assert_eq!(r.cells, c.cells().len());
    assert_eq!((r.added, r.replaced, r.removed), (0, 0, 0));
    assert_eq!(r.unchanged, c.mesh().tile_count());
    assert_eq!(c.mesh().snapshot(onav::SnapshotMode::Referenced), before);
}

#[test]
fn slot_count_option() {
    let (g, s) = (world_geometry(), small_settings(false));
    let n = build(&g, &s).unwrap().tiles.len() as u32;
    let c = TileCache::with_options(
        &g,
        &s,
        CacheOptions {
            slot_count: Some(n),
        },
    )
    .unwrap();
    assert_eq!(c.mesh().slot_count(), n);
    let e = TileCache::with_options(
        &g,
        &s,
        CacheOptions {
            slot_count: Some(n - 1),
        },
    );
    assert!(matches!(e, Err(CreateError::SlotCount { .. })));
    // A world with no tiles (a wall: nothing walkable) takes any slot count from 1, and 0 is
    // refused as a slot count (TC1), not left to the mesh parameters.
    let wall = onav_build3d::Geometry::from_obj(b"v 0 0 0\nv 0 6 0\nv 6 6 0\nv 6 0 0\nf 1 2 3 4\n")
        .unwrap();
    assert_eq!(build(&wall, &s).unwrap().tiles.len(), 0);
    let one = CacheOptions {
        slot_count: Some(1),
    };
    assert_eq!(
        TileCache::with_options(&wall, &s, one)
            .unwrap()
            .mesh()
            .slot_count(),
        1
    );
    let zero = CacheOptions {
        slot_count: Some(0),
    };
    assert!(matches!(
        TileCache::with_options(&wall, &s, zero),
        Err(CreateError::SlotCount { asked: 0, .. })
    ));
}

#[test]
fn an_obstacle_cuts_as_if_baked_and_keeps_the_agent_radius() {
    // A box obstacle equals the same box baked as an area-0 settings volume (the digest aside),
    // and erosion runs after it: the cut is wider than the box by the agent radius.
    let g = world_geometry();
    let mut c = TileCache::new(&g, &small_settings(false)).unwrap();
    let id = c
        .add_obstacle(Obstacle::aabb([11.0, -1.0, 3.0], [13.0, 1.0, 6.0]).unwrap())
        .unwrap();
    assert_eq!(id, ObstacleId(1));
    c.update_all().unwrap();
    let mut spec = small_spec(false);
    spec.volumes.push(onav_build3d::VolumeSpec {
        area: 0,
        min_y: -1.0,
        max_y: 1.0,
        polygon: vec![[11.0, 3.0], [13.0, 3.0], [13.0, 6.0], [11.0, 6.0]],
    });
    let baked = build(&g, &onav_build3d::Settings::new(spec).unwrap()).unwrap();
    let mine: Vec<Vec<u8>> = {
        let mut v: Vec<_> = c.mesh().tiles().map(|(_, t)| t).collect();
        v.sort_by_key(|t| {
            let p = t.pos();
            (p.row, p.column, p.layer)
        });
        v.into_iter().map(without_digest).collect()
    };
    let theirs: Vec<Vec<u8>> = baked.tiles.iter().map(without_digest).collect();
    assert_eq!(mine, theirs);
    // The cut: no polygon vertex strictly inside the box grown by less than the radius.
    for (_, t) in c.mesh().tiles() {
        for v in t.vertices() {
            let inside = v[0] > 10.6 && v[0] < 13.4 && v[2] > 2.6 && v[2] < 6.4 && v[1] < 1.0;
            assert!(!inside, "vertex {v:?} within the agent radius of the box");
        }
    }
}

#[test]
fn touching_nothing_is_kept_and_ids_are_never_reused() {
    let mut c = small_cache(false);
    let far = Obstacle::cylinder([500.0, 0.0, 500.0], 1.0, 2.0).unwrap();
    let a = c.add_obstacle(far.clone()).unwrap();
    assert!(c.is_up_to_date(), "nothing cached there");
    assert_eq!(c.obstacles().len(), 1);
    assert_eq!(c.remove_obstacle(a).unwrap(), far);
    assert_eq!(
        c.remove_obstacle(a),
        Err(CacheError::UnknownObstacle { id: a })
    );
    let b = c.add_obstacle(far).unwrap();
    assert_eq!(b, ObstacleId(2));
    assert_eq!(
        c.remove_volume(VolumeId(1)),
        Err(CacheError::UnknownVolume { id: VolumeId(1) })
    );
}

#[test]
fn ids_run_out_with_a_clear_error() {
    // Reach the last id through a snapshot (the only way to set the counter).
    let mut c = small_cache(false);
    let mut b = c.snapshot(onav::SnapshotMode::Referenced);
    let last = (1u32 << 31) - 2;
    b[8..12].copy_from_slice(&last.to_le_bytes());
    b[12..16].copy_from_slice(&last.to_le_bytes());
    c.restore(&b).unwrap();
    let o = Obstacle::cylinder([500.0, 0.0, 500.0], 1.0, 2.0).unwrap();
    assert_eq!(c.add_obstacle(o.clone()).unwrap(), ObstacleId(last));
    assert_eq!(
        c.add_obstacle(o),
        Err(CacheError::ObstacleIdsExhausted { next: last + 1 })
    );
    let v = Volume::new(1, 0.0, 1.0, vec![[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]).unwrap();
    assert_eq!(c.add_volume(v.clone()).unwrap(), VolumeId(last));
    assert_eq!(
        c.add_volume(v),
        Err(CacheError::VolumeIdsExhausted { next: last + 1 })
    );
    assert_eq!(c.next_ids(), (last + 1, last + 1));
}

#[test]
fn the_queue_takes_any_number_of_requests_at_once() {
    // 100 obstacles in one frame: all accepted, every touched cell queued once, in the order
    // first touched; one update settles them all.
    let mut c = small_cache(false);
    let mut r = Rng(7);
    let mut order: Vec<TileCell> = Vec::new();
    for _ in 0..100 {
        let o =
            Obstacle::cylinder([r.range(0.0, 24.0), -0.5, r.range(0.0, 24.0)], 1.0, 2.0).unwrap();
        c.add_obstacle(o).unwrap();
        for cell in c.queue() {
            if !order.contains(&cell) {
                order.push(cell);
            }
        }
    }
    assert_eq!(c.queue().collect::<Vec<_>>(), order);
    assert_eq!(c.obstacles().len(), 100);
    let rep = c.update(usize::MAX).unwrap();
    assert_eq!(rep.cells, order.len());
    assert!(c.is_up_to_date());
    let (v, o) = marks_of(&c);
    assert_eq!(
        contents(c.mesh()),
        from_scratch(&world_geometry(), &small_settings(false), &v, &o)
    );
}

#[test]
fn layers_that_disappear_are_removed_and_a_cell_without_slots_stays_queued() {
    let (g, s) = (world_geometry(), small_settings(false));
    let n = build(&g, &s).unwrap().tiles.len() as u32;
    let mut c = TileCache::with_options(
        &g,
        &s,
        CacheOptions {
            slot_count: Some(n),
        },
    )
    .unwrap();
    // By hand: remove cell A's layer 0, and fill the freed slot with a copy of cell B's layer 0
    // as layer 7 of B (vertices stay in B's cell, so the copy is a valid tile).
    let tiles: Vec<onav::NavTile> = c.mesh().tiles().map(|(_, t)| t.clone()).collect();
    let (ta, tb) = (&tiles[0], &tiles[tiles.len() - 1]);
    let cell = |t: &onav::NavTile| TileCell {
        column: t.pos().column,
        row: t.pos().row,
    };
    let (a, b) = (cell(ta), cell(tb));
    assert_ne!(a, b);
    let ra = c.mesh().tile_ref_at(ta.pos()).unwrap();
    c.mesh_mut().remove_tile(ra).unwrap();
    let mut raw = onav::RawTile::from_tile(tb);
    raw.pos.layer = 7;
    let copy = onav::NavTile::from_bytes(&raw.to_bytes()).unwrap();
    c.mesh_mut().add_tile(copy).unwrap();
    // A volume marking nothing (below every floor) queues the cells it touches.
    let grid = c.mesh().params().grid();
    let nothing_at = |t: &onav::NavTile| {
        let b = grid.cell_bounds(t.pos().column, t.pos().row);
        let v = [(b[0] + b[2]) * 0.5, 0.0, (b[1] + b[3]) * 0.5];
        Volume::new(
            3,
            -10.0,
            -9.0,
            vec![
                [v[0] - 0.1, v[2] - 0.1],
                [v[0] + 0.1, v[2] - 0.1],
                [v[0], v[2] + 0.1],
            ],
        )
        .unwrap()
    };
    let mut blocked = c.clone();
    blocked.add_volume(nothing_at(ta)).unwrap();
    assert_eq!(blocked.queue().next(), Some(a));
    let before = blocked.snapshot(onav::SnapshotMode::Full);
    let e = blocked.update(1).unwrap_err();
    assert_eq!(e.cell, a);
    assert_eq!(e.kind, UpdateErrorKind::NoFreeSlot { needed: 1, free: 0 });
    assert_eq!(
        blocked.snapshot(onav::SnapshotMode::Full),
        before,
        "nothing changed"
    );
    // B first: its layer 7 disappears (removed), which frees the slot A's layer 0 needs.
    c.add_volume(nothing_at(tb)).unwrap();
    c.add_volume(nothing_at(ta)).unwrap();
    let q: Vec<TileCell> = c.queue().collect();
    let at = |x: TileCell| q.iter().position(|y| *y == x).unwrap();
    assert!(at(b) < at(a), "B is rebuilt before A");
    let rep = c.update_all().unwrap();
    assert_eq!((rep.added, rep.removed, rep.replaced), (1, 1, 0));
    assert!(c.tile_at(b, 7).is_none());
    assert_eq!(c.tile_at(a, 0).unwrap().content_id(), ta.content_id());
    let (v, o) = marks_of(&c);
    assert_eq!(contents(c.mesh()), from_scratch(&g, &s, &v, &o));
}

#[test]
fn obstacles_win_over_volumes_and_later_volumes_win() {
    // A walkable volume of any id over an obstacle leaves the obstacle's cut: volumes are
    // marked first (ascending id), obstacles after. Two volumes: the later id's area wins.
    let (g, s) = (world_geometry(), small_settings(false));
    let sq = |x: f64, z: f64, h: f64| {
        vec![
            [x - h, z - h],
            [x + h, z - h],
            [x + h, z + h],
            [x - h, z + h],
        ]
    };
    let mut a = TileCache::new(&g, &s).unwrap();
    a.add_obstacle(Obstacle::aabb([11.0, -1.0, 3.0], [13.0, 1.0, 6.0]).unwrap())
        .unwrap();
    a.add_volume(Volume::new(9, -1.0, 1.0, sq(12.0, 4.5, 3.0)).unwrap())
        .unwrap();
    a.update_all().unwrap();
    let mut b = TileCache::new(&g, &s).unwrap();
    b.add_volume(Volume::new(9, -1.0, 1.0, sq(12.0, 4.5, 3.0)).unwrap())
        .unwrap();
    b.add_obstacle(Obstacle::aabb([11.0, -1.0, 3.0], [13.0, 1.0, 6.0]).unwrap())
        .unwrap();
    b.update_all().unwrap();
    assert_eq!(
        contents(a.mesh()),
        contents(b.mesh()),
        "the add order does not matter"
    );
    let (v, o) = marks_of(&a);
    assert_eq!(contents(a.mesh()), from_scratch(&g, &s, &v, &o));
    // The obstacle really cuts (the same volume without it differs).
    let mut only = TileCache::new(&g, &s).unwrap();
    only.add_volume(Volume::new(9, -1.0, 1.0, sq(12.0, 4.5, 3.0)).unwrap())
        .unwrap();
    only.update_all().unwrap();
    assert_ne!(contents(only.mesh()), contents(a.mesh()));
    // Later volume wins: areas 9 then 4 over the same square give polygons of area 4 there.
    let mut c = TileCache::new(&g, &s).unwrap();
    c.add_volume(Volume::new(9, -1.0, 1.0, sq(12.0, 12.0, 2.0)).unwrap())
        .unwrap();
    c.add_volume(Volume::new(4, -1.0, 1.0, sq(12.0, 12.0, 2.0)).unwrap())
        .unwrap();
    c.update_all().unwrap();
    let areas: Vec<u8> = c
        .mesh()
        .tiles()
        .flat_map(|(r, t)| (0..t.poly_count()).map(move |p| (r, p)))
        .filter_map(|(r, p)| c.mesh().poly_area(r.poly(onav::PolyIndex(p))))
        .collect();
    assert!(areas.contains(&4) && !areas.contains(&9), "{areas:?}");
}

#[test]
fn the_caps_are_two_to_the_twenty_and_every_state_snapshots() {
    // TC7: 2^20 obstacles (far away: they queue nothing) fit, the next is refused, and the
    // state at the cap writes a snapshot that restores into a new cache.
    let mut c = small_cache(false);
    let far = Obstacle::cylinder([500.0, 0.0, 500.0], 1.0, 2.0).unwrap();
    for _ in 0..1u32 << 20 {
        c.add_obstacle(far.clone()).unwrap();
    }
    assert_eq!(
        c.add_obstacle(far),
        Err(CacheError::TooManyObstacles { max: 1 << 20 })
    );
    let b = c.snapshot(onav::SnapshotMode::Referenced);
    let mut d = small_cache(false);
    d.restore(&b).unwrap();
    assert_eq!(d.obstacles().len(), 1 << 20);
    let tri = Volume::new(
        1,
        0.0,
        1.0,
        vec![[500.0, 500.0], [501.0, 500.0], [500.0, 501.0]],
    )
    .unwrap();
    for _ in 0..1u32 << 20 {
        c.add_volume(tri.clone()).unwrap();
    }
    assert_eq!(
        c.add_volume(tri),
        Err(CacheError::TooManyVolumes { max: 1 << 20 })
    );
}
