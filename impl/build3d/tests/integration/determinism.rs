//! Determinism (`spec/build3d.md` B5, B19, B51): the same tile bytes for any face order, corner
//! rotation, object split and thread count.

use onav_build3d::{Geometry, Settings, SettingsSpec};
use proptest::prelude::*;

use crate::kit::{build_spec, ids, ids_on_threads, small_settings, Soup};

/// A random small world: a ground, boxes, ramps and an upper floor.
fn world() -> impl Strategy<Value = Soup> {
    let boxes = prop::collection::vec((0.0..18.0f64, 0.0..18.0f64, 0.5..4.0f64, 0.3..3.0f64), 0..5);
    let ramps = prop::collection::vec((0.0..14.0f64, 0.0..14.0f64, 2.0..6.0f64, 0.0..2.5f64), 0..3);
    let upper = prop::option::of((0.0..10.0f64, 0.0..10.0f64, 3.0..10.0f64, 2.5..6.0f64));
    (boxes, ramps, upper, -3.0..3.0f64).prop_map(|(boxes, ramps, upper, y0)| {
        let mut s = Soup::default();
        s.floor(0.0, 0.0, 20.0, 20.0, y0);
        for (x, z, w, h) in boxes {
            s.cuboid([x, y0, z], [x + w, y0 + h, z + w]);
        }
        for (x, z, len, rise) in ramps {
            s.ramp(x, z, x + len, z + 2.0, y0, y0 + rise);
        }
        if let Some((x, z, w, h)) = upper {
            s.floor(x, z, x + w, z + w, y0 + h);
        }
        s
    })
}

fn spec() -> SettingsSpec {
    small_settings()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn shuffled_rotated_and_split_inputs_give_the_same_tiles(
        s in world(),
        seed in any::<u64>(),
        objects in 1usize..4,
    ) {
        let base = build_spec(&s.geometry(), spec());
        // Shuffle the faces and rotate each face's corners by a seeded rule.
        let mut shuffled = s.clone();
        let mut state = seed | 1;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for i in (1..shuffled.tris.len()).rev() {
            let j = (next() % (i as u64 + 1)) as usize;
            shuffled.tris.swap(i, j);
        }
        for (t, _) in &mut shuffled.tris {
            t.rotate_left((next() % 3) as usize);
        }
        let b2 = build_spec(&shuffled.geometry(), spec());
        prop_assert_eq!(ids(&b2.tiles), ids(&base.tiles));
        prop_assert_eq!(b2.params.digest(), base.params.digest());
        // Split into objects, through OBJ text (also exercises negative indices).
        let g = Geometry::from_obj(shuffled.obj(objects, seed & 1 == 0).as_bytes()).unwrap();
        let b3 = build_spec(&g, spec());
        prop_assert_eq!(ids(&b3.tiles), ids(&base.tiles));
        prop_assert_eq!(b3.params.digest(), base.params.digest());
    }
}

#[test]
fn threads_give_the_same_bytes() {
    let mut s = Soup::default();
    s.floor(0.0, 0.0, 40.0, 40.0, 0.0);
    s.cuboid([5.0, 0.0, 5.0], [9.0, 3.0, 30.0]);
    s.ramp(12.0, 10.0, 20.0, 14.0, 0.0, 2.0);
    s.floor(20.0, 10.0, 30.0, 30.0, 2.0);
    let g = s.geometry();
    let settings = Settings::new(spec()).unwrap();
    let run = |n: usize| ids_on_threads(&g, &settings, n);
    let one = run(1);
    assert!(one.len() > 4);
    for n in 2..=4 {
        assert_eq!(run(n), one, "{n} threads");
    }
}

/// Recast issue #59, reproduced in build3d-tilecache-anchors.md §4.3: in one cell, a flat
/// walkable floor at y = 1.0 and a steep unwalkable triangle from y = 0 to 2.4. Recast's merge
/// makes that cell unwalkable in one triangle order and walkable at 2.4 m in the other. Here the
/// merged span's top (2.4 m) comes from the steep triangle alone, more than the climb above the
/// floor's top, so the cell is unwalkable in both orders: a hole in the floor.
#[test]
fn issue_59_both_orders() {
    let mut floor = Soup::default();
    floor.floor(0.0, 0.0, 3.0, 3.0, 1.0);
    let steep = ([[1.2, 0.0, 1.2], [1.2, 2.4, 1.5], [1.5, 0.0, 1.2]], 63u8);
    let spec = SettingsSpec {
        cell_size: 0.3,
        cell_height: 0.2,
        agent_climb: 0.8,
        agent_radius: 0.0,
        region_min_area: 0,
        region_merge_area: 0,
        max_edge_error: 0.0,
        tile_size: 16,
        ..SettingsSpec::default()
    };
    let mut plain = floor.clone();
    // The same origin as with the steep triangle (its lowest point is y = 0).
    plain
        .tris
        .push(([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], 0));
    let whole = build_spec(&plain.geometry(), spec.clone())
        .stats
        .walkable_area;
    let mut results = Vec::new();
    for steep_first in [false, true] {
        let mut soup = Soup::default();
        if steep_first {
            soup.tris.push(steep);
        }
        soup.tris.extend(floor.tris.iter().copied());
        if !steep_first {
            soup.tris.push(steep);
        }
        let b = build_spec(&soup.geometry(), spec.clone());
        assert!(
            b.stats.walkable_area < whole - 0.05,
            "the steep cell is a hole"
        );
        results.push(ids(&b.tiles));
    }
    assert!(!results[0].is_empty());
    assert_eq!(results[0], results[1]);
}
