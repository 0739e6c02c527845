//! `update` failures (`spec/tilecache.md` TC12): in a batch, the cells before the failing one are
//! placed and dequeued, the failing cell and those after it stay queued in order with their tiles
//! as they were, and the queue blocks at that cell until a change lets it build.
//!
//! Obstacles and volumes alone are not known to make a cell fail (TC12), so the state is made by
//! hand through the public API, as a host editing the mesh (or restoring such a state) can: the
//! mesh has exactly the build's slots, cell A's layer 0 is removed, and its slot holds a copy of
//! cell B's last tile as a layer 7 of B. A's rebuild then needs a slot and none is free.

use onav::SnapshotMode::Full;
use onav_build3d::{build, TileCell};
use onav_tilecache::{CacheOptions, Obstacle, TileCache, UpdateErrorKind};

use crate::kit::*;

#[test]
fn a_failing_cell_blocks_the_queue_after_the_cells_before_it_are_placed() {
    let (g, s) = (world_geometry(), small_settings(false));
    let n = build(&g, &s).unwrap().tiles.len() as u32;
    let options = CacheOptions {
        slot_count: Some(n),
    };
    let mut c = TileCache::with_options(&g, &s, options).unwrap();
    let cell = |column, row| TileCell { column, row };
    let (a, x, y) = (cell(0, 0), cell(1, 0), cell(2, 0));
    let tiles: Vec<onav::NavTile> = c.mesh().tiles().map(|(_, t)| t.clone()).collect();
    let tb = tiles.last().unwrap();
    let b = cell(tb.pos().column, tb.pos().row);
    assert!(![a, x, y].contains(&b));
    let ta = c.tile_at(a, 0).unwrap().clone();
    let ra = c.mesh().tile_ref_at(ta.pos()).unwrap();
    c.mesh_mut().remove_tile(ra).unwrap();
    let mut raw = onav::RawTile::from_tile(tb);
    raw.pos.layer = 7;
    let copy = onav::NavTile::from_bytes(&raw.to_bytes()).unwrap();
    let r7 = c.mesh_mut().add_tile(copy).unwrap();

    // Small cylinders, each queueing its own cell only (TC9 with B = 5 cells): X, A, Y.
    let at = |x: f64, z: f64| Obstacle::cylinder([x, -0.5, z], 0.5, 2.0).unwrap();
    c.add_obstacle(at(11.75, 4.0)).unwrap();
    c.add_obstacle(at(3.75, 4.0)).unwrap();
    c.add_obstacle(at(19.75, 4.0)).unwrap();
    assert_eq!(c.queue().collect::<Vec<_>>(), [x, a, y]);
    let (x0, y0) = (
        c.tile_at(x, 0).unwrap().content_id(),
        c.tile_at(y, 0).unwrap().content_id(),
    );

    let e = c.update(3).unwrap_err();
    assert_eq!(e.cell, a);
    assert_eq!(e.kind, UpdateErrorKind::NoFreeSlot { needed: 1, free: 0 });
    assert_eq!(
        c.queue().collect::<Vec<_>>(),
        [a, y],
        "X placed, A and Y stay"
    );
    assert_ne!(c.tile_at(x, 0).unwrap().content_id(), x0, "X was rebuilt");
    assert_eq!(c.tile_at(y, 0).unwrap().content_id(), y0, "Y was not");
    assert!(c.tile_at(a, 0).is_none());

    // Blocked: another update fails at A again and changes nothing.
    let before = c.snapshot(Full);
    for budget in [1, 2, 100] {
        let e = c.update(budget).unwrap_err();
        assert_eq!(
            (e.cell, &e.kind),
            (a, &UpdateErrorKind::NoFreeSlot { needed: 1, free: 0 })
        );
        assert_eq!(c.snapshot(Full), before);
    }

    // The host frees a slot; A and Y then build, and the mesh is the from-scratch one.
    c.mesh_mut().remove_tile(r7).unwrap();
    let rep = c.update(100).unwrap();
    assert_eq!(
        (rep.cells, rep.added, rep.replaced, rep.remaining),
        (2, 1, 1, 0)
    );
    let (v, o) = marks_of(&c);
    assert_eq!(contents(c.mesh()), from_scratch(&g, &s, &v, &o));
}
