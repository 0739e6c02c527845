//! Tests of the queries (`spec/queries.md`): hand-computed expectations on drawn meshes,
//! properties on generated worlds, and thread-count independence.

use proptest::prelude::*;

use super::fixtures::{at, Fixture, LinkDef, TileDef};
use super::*;
use crate::generator::WorldSpec;
use crate::geom::closest_point_on_poly_xz;
use crate::ids::{PolyIndex, TilePos};
use crate::stitch::LinkKind;
use crate::tile::LinkDirection;

const O: TilePos = TilePos {
    column: 0,
    row: 0,
    layer: 0,
};

fn one(q: u32, map: &[&str], links: Vec<LinkDef>) -> Fixture {
    Fixture::new(
        q,
        &[TileDef {
            pos: O,
            map,
            y: 0.0,
            links,
        }],
    )
}

fn link(start: Vec3, end: Vec3, direction: LinkDirection) -> LinkDef {
    LinkDef {
        start,
        end,
        radius: 0.5,
        direction,
    }
}

fn query(f: &Fixture) -> NavMeshQuery<'_> {
    NavMeshQuery::new(&f.mesh, 4096).unwrap()
}

fn pts(v: &[StraightPoint]) -> Vec<Vec3> {
    v.iter().map(|p| p.pos).collect()
}

fn flags(v: &[StraightPoint]) -> Vec<u8> {
    v.iter().map(|p| p.flags.bits()).collect()
}

const S: u8 = 1;
const E: u8 = 2;
const M: u8 = 4;

const STRAIGHT: [&str; 4] = ["....", "####", "####", "####"];

#[test]
fn straight_corridor() {
    let f = one(4, &STRAIGHT, vec![]);
    let q = query(&f);
    let filter = QueryFilter::default();
    let n = q
        .find_nearest_poly([0.5, 0.3, 0.5], [0.5, 1.0, 0.5], &filter)
        .unwrap()
        .unwrap();
    assert_eq!(n.poly, f.quad(O, 0, 0));
    assert_eq!(n.point, [0.5, 0.0, 0.5]);
    assert!(n.over_poly);

    let (s, e) = ([0.5, 0.0, 0.5], [3.5, 0.0, 0.5]);
    let r = q
        .find_path(f.quad(O, 0, 0), f.quad(O, 3, 0), s, e, &filter)
        .unwrap();
    let quads: Vec<_> = (0..4).map(|i| f.quad(O, i, 0)).collect();
    assert_eq!(r.corridor, quads);
    assert_eq!(r.status, PathStatus::Complete);
    // 0.5 to the first portal midpoint, 1 + 1 between midpoints, 0.5 + 0.5 to the end.
    assert_eq!(r.cost, 3.0);
    // P6: the cost model applied to the corridor gives the search's cost; one polygon is the
    // straight leg, and the corridor reversed is costed from its own start.
    assert_eq!(q.corridor_cost(&r.corridor, s, e, &filter), Ok(3.0));
    assert_eq!(
        q.corridor_cost(&quads[..1], s, [0.5, 0.0, 2.5], &filter),
        Ok(2.0)
    );
    let back: Vec<_> = quads.iter().rev().copied().collect();
    assert_eq!(q.corridor_cost(&back, e, s, &filter), Ok(3.0));

    let sp = q
        .find_straight_path(s, e, &r.corridor, StraightPathOptions::default())
        .unwrap();
    assert_eq!(pts(&sp), vec![s, e]);
    assert_eq!(flags(&sp), vec![S, E]);
    assert_eq!((sp[0].poly, sp[1].poly), (quads[0], quads[3]));

    let all = StraightPathOptions {
        all_crossings: true,
        ..Default::default()
    };
    let sp = q.find_straight_path(s, e, &r.corridor, all).unwrap();
    assert_eq!(
        pts(&sp),
        vec![s, [1.0, 0.0, 0.5], [2.0, 0.0, 0.5], [3.0, 0.0, 0.5], e]
    );
    assert_eq!(flags(&sp), vec![S, 0, 0, 0, E]);
    assert_eq!(
        sp.iter().map(|p| p.poly).collect::<Vec<_>>(),
        vec![quads[0], quads[1], quads[2], quads[3], quads[3]]
    );
    // Every polygon has area 0: no area crossing.
    let area = StraightPathOptions {
        area_crossings: true,
        ..Default::default()
    };
    assert_eq!(
        pts(&q.find_straight_path(s, e, &r.corridor, area).unwrap()),
        vec![s, e]
    );

    // A raycast along the corridor reaches its end.
    let h = q
        .raycast(quads[0], s, e, &filter, RaycastOptions { costs: true })
        .unwrap();
    assert_eq!(h.t, 1.0);
    assert_eq!(h.stop, RaycastStop::Reached);
    assert_eq!(h.visited, quads);
    assert!((h.cost.unwrap() - 3.0).abs() < 1e-12);
    assert_eq!(h.hit_edge(), None);
}

#[test]
fn raycast_hits_a_wall() {
    let f = one(4, &STRAIGHT, vec![]);
    let q = query(&f);
    let h = q
        .raycast(
            f.quad(O, 0, 0),
            [0.5, 0.0, 0.5],
            [0.5, 0.0, 3.5],
            &QueryFilter::default(),
            RaycastOptions::default(),
        )
        .unwrap();
    // Edge 2 (+z) of quad (0,0), from (1,1) to (0,1): num = orient(a, b, s) = 0.5,
    // den = (b.z − a.z)·d.x − (b.x − a.x)·d.z = 3.
    assert_eq!(h.t, 0.5 / 3.0);
    assert_eq!(
        h.stop,
        RaycastStop::Wall {
            edge: 2,
            normal: [0.0, 0.0, -1.0]
        }
    );
    assert_eq!(h.hit_normal()[0].to_bits(), 0.0f64.to_bits());
    assert_eq!(h.visited, vec![f.quad(O, 0, 0)]);
    assert_eq!(h.cost, None);
}

#[test]
fn l_shaped_corridor_bends_at_the_inner_corner() {
    let f = one(4, &["....", "###.", "###.", "###."], vec![]);
    let q = query(&f);
    let (s, e) = ([0.5, 0.0, 0.5], [3.5, 0.0, 3.5]);
    let r = q
        .find_path(
            f.quad(O, 0, 0),
            f.quad(O, 3, 3),
            s,
            e,
            &QueryFilter::default(),
        )
        .unwrap();
    let want: Vec<_> = [(0, 0), (1, 0), (2, 0), (3, 0), (3, 1), (3, 2), (3, 3)]
        .iter()
        .map(|&(i, j)| f.quad(O, i, j))
        .collect();
    assert_eq!(r.corridor, want);
    assert_eq!(r.status, PathStatus::Complete);
    let sp = q
        .find_straight_path(s, e, &r.corridor, StraightPathOptions::default())
        .unwrap();
    assert_eq!(pts(&sp), vec![s, [3.0, 0.0, 1.0], e]);
    assert_eq!(flags(&sp), vec![S, 0, E]);
    // The corner became the apex as the left end of the portal into quad (3, 1).
    assert_eq!(sp[1].poly, f.quad(O, 3, 1));
}

#[test]
fn u_around_a_hole() {
    let f = one(4, &["....", ".##.", ".##.", ".##."], vec![]);
    let q = query(&f);
    let (s, e) = ([0.5, 0.0, 3.5], [3.5, 0.0, 3.5]);
    let r = q
        .find_path(
            f.quad(O, 0, 3),
            f.quad(O, 3, 3),
            s,
            e,
            &QueryFilter::default(),
        )
        .unwrap();
    let want: Vec<_> = [
        (0, 3),
        (0, 2),
        (0, 1),
        (0, 0),
        (1, 0),
        (2, 0),
        (3, 0),
        (3, 1),
        (3, 2),
        (3, 3),
    ]
    .iter()
    .map(|&(i, j)| f.quad(O, i, j))
    .collect();
    assert_eq!(r.corridor, want);
    let sp = q
        .find_straight_path(s, e, &r.corridor, StraightPathOptions::default())
        .unwrap();
    assert_eq!(pts(&sp), vec![s, [1.0, 0.0, 1.0], [3.0, 0.0, 1.0], e]);
    assert_eq!(flags(&sp), vec![S, 0, 0, E]);
    // A raycast across the hole stops at the first wall: edge 1 (+x) of quad (0, 3) at x = 1.
    let h = q
        .raycast(
            f.quad(O, 0, 3),
            s,
            e,
            &QueryFilter::default(),
            RaycastOptions::default(),
        )
        .unwrap();
    assert_eq!(h.t, 0.5 / 3.0);
    assert_eq!(h.hit_edge(), Some(1));
    assert_eq!(h.hit_normal(), [-1.0, 0.0, 0.0]);
}

const FULL: [&str; 4] = ["....", "....", "....", "...."];

fn stacked() -> Fixture {
    let up = link([3.5, 0.0, 3.5], [4.5, 8.0, 0.5], LinkDirection::OneWay);
    Fixture::new(
        4,
        &[
            TileDef {
                pos: at(0, 0, 0),
                map: &FULL,
                y: 0.0,
                links: vec![up],
            },
            TileDef {
                pos: at(0, 0, 1),
                map: &FULL,
                y: 8.0,
                links: vec![],
            },
            TileDef {
                pos: at(1, 0, 0),
                map: &FULL,
                y: 0.0,
                links: vec![],
            },
            TileDef {
                pos: at(1, 0, 1),
                map: &FULL,
                y: 8.0,
                links: vec![],
            },
        ],
    )
}

#[test]
fn stacked_layers() {
    let f = stacked();
    let q = query(&f);
    let filter = QueryFilter::default();
    // (2, 2) is a corner of quads (1,1), (2,1), (1,2), (2,2): all at the same distance, so the
    // lowest reference wins: quad (1,1), polygon 5, of the upper tile.
    let n = q
        .find_nearest_poly([2.0, 7.5, 2.0], [0.5, 1.0, 0.5], &filter)
        .unwrap()
        .unwrap();
    assert_eq!(n.poly, f.quad(at(0, 0, 1), 1, 1));
    assert_eq!(n.poly.poly(), PolyIndex(5));
    assert_eq!(n.point, [2.0, 8.0, 2.0]);
    let n = q
        .find_nearest_poly([2.0, 0.4, 2.0], [0.5, 10.0, 0.5], &filter)
        .unwrap()
        .unwrap();
    assert_eq!(n.poly, f.quad(at(0, 0, 0), 1, 1));
    assert!(q
        .find_nearest_poly([2.0, 4.0, 2.0], [0.5, 1.0, 0.5], &filter)
        .unwrap()
        .is_none());

    // Along the upper layer, across the cell border, the corridor stays upstairs.
    let (s, e) = ([0.5, 8.0, 0.5], [7.5, 8.0, 0.5]);
    let r = q
        .find_path(
            f.quad(at(0, 0, 1), 0, 0),
            f.quad(at(1, 0, 1), 3, 0),
            s,
            e,
            &filter,
        )
        .unwrap();
    assert_eq!(r.status, PathStatus::Complete);
    let upper = [
        f.mesh.tile_ref_at(at(0, 0, 1)).unwrap(),
        f.mesh.tile_ref_at(at(1, 0, 1)).unwrap(),
    ];
    assert!(r.corridor.iter().all(|p| upper.contains(&p.tile())));
    assert_eq!(r.corridor.len(), 8);
    let h = q
        .raycast(r.corridor[0], s, e, &filter, RaycastOptions::default())
        .unwrap();
    assert_eq!(h.stop, RaycastStop::Reached);
    assert_eq!(h.visited, r.corridor);

    // Upstairs from downstairs only by the one-way link; downstairs from upstairs not at all.
    let (s, e) = ([3.5, 0.0, 0.5], [6.5, 8.0, 0.5]);
    let r = q
        .find_path(
            f.quad(at(0, 0, 0), 3, 0),
            f.quad(at(1, 0, 1), 2, 0),
            s,
            e,
            &filter,
        )
        .unwrap();
    assert_eq!(r.status, PathStatus::Complete);
    let li = r
        .corridor
        .iter()
        .position(|&p| p == f.link(at(0, 0, 0), 0))
        .expect("uses the link");
    assert_eq!(r.corridor[li - 1], f.quad(at(0, 0, 0), 3, 3));
    assert_eq!(r.corridor[li + 1], f.quad(at(1, 0, 1), 0, 0));
    let sp = q
        .find_straight_path(s, e, &r.corridor, StraightPathOptions::default())
        .unwrap();
    assert_eq!(
        pts(&sp),
        vec![s, [3.5, 0.0, 3.5], [4.5, 8.0, 0.5], e],
        "{sp:?}"
    );
    assert_eq!(flags(&sp), vec![S, M, 0, E]);
    let back = q
        .find_path(
            f.quad(at(1, 0, 1), 2, 0),
            f.quad(at(0, 0, 0), 3, 0),
            e,
            s,
            &filter,
        )
        .unwrap();
    assert_eq!(back.status, PathStatus::Partial);
    assert!(back.corridor.iter().all(|p| upper.contains(&p.tile())));
}

/// Two islands, x in [0, 2] and [3, 5], and a link from (1.5, 2.5) to (3.5, 2.5).
const ISLANDS: [&str; 5] = ["..#..", "..#..", "..#..", "..#..", "..#.."];

#[test]
fn one_way_link_forwards_only() {
    let f = one(
        5,
        &ISLANDS,
        vec![link(
            [1.5, 0.0, 2.5],
            [3.5, 0.0, 2.5],
            LinkDirection::OneWay,
        )],
    );
    let q = query(&f);
    let filter = QueryFilter::default();
    let (s, e) = ([0.5, 0.0, 2.5], [4.5, 0.0, 2.5]);
    let lp = f.link(O, 0);
    let r = q
        .find_path(f.quad(O, 0, 2), f.quad(O, 4, 2), s, e, &filter)
        .unwrap();
    assert_eq!(
        r.corridor,
        vec![
            f.quad(O, 0, 2),
            f.quad(O, 1, 2),
            lp,
            f.quad(O, 3, 2),
            f.quad(O, 4, 2)
        ]
    );
    assert_eq!(r.status, PathStatus::Complete);
    // 0.5 + 0.5 to the link start, 2 across, 0.5 + 0.5 to the end.
    assert_eq!(r.cost, 4.0);
    let sp = q
        .find_straight_path(s, e, &r.corridor, StraightPathOptions::default())
        .unwrap();
    assert_eq!(pts(&sp), vec![s, [1.5, 0.0, 2.5], [3.5, 0.0, 2.5], e]);
    assert_eq!(flags(&sp), vec![S, M, 0, E]);
    assert_eq!(sp[1].poly, lp);
    assert_eq!(sp[2].poly, f.quad(O, 3, 2));

    // Backwards the link is not taken: partial, to the node nearest the goal. Quads (3,1) and
    // (3,3) are reached at (3.5, 2) and (3.5, 3), equally near (0.5, 2.5): the lower reference.
    let b = q
        .find_path(f.quad(O, 4, 2), f.quad(O, 0, 2), e, s, &filter)
        .unwrap();
    assert_eq!(b.status, PathStatus::Partial);
    assert_eq!(
        b.corridor,
        vec![f.quad(O, 4, 2), f.quad(O, 3, 2), f.quad(O, 3, 1)]
    );

    // Disabled, the link is impassable forwards too.
    let mut f = f;
    let t = f.mesh.tile_ref_at(O).unwrap();
    f.mesh
        .set_off_mesh_link_enabled(t, crate::ids::LinkIndex(0), false)
        .unwrap();
    let q = query(&f);
    let r = q
        .find_path(f.quad(O, 0, 2), f.quad(O, 4, 2), s, e, &filter)
        .unwrap();
    assert_eq!(r.status, PathStatus::Partial);
    assert_eq!(
        r.corridor,
        vec![f.quad(O, 0, 2), f.quad(O, 1, 2), f.quad(O, 1, 1)]
    );
    assert!(!filter.passes(&f.mesh, lp));
}

/// The islands joined along row 0, with a link across the gap at row 3.
const DETOUR: [&str; 5] = [".....", "..#..", "..#..", "..#..", "..#.."];

#[test]
fn links_by_direction_and_switch() {
    for direction in [LinkDirection::OneWay, LinkDirection::Bidirectional] {
        let mut f = one(
            5,
            &DETOUR,
            vec![link([1.5, 0.0, 3.5], [3.5, 0.0, 3.5], direction)],
        );
        let filter = QueryFilter::default();
        let (s, e) = ([0.5, 0.0, 3.5], [4.5, 0.0, 3.5]);
        let (a, b) = (f.quad(O, 0, 3), f.quad(O, 4, 3));
        let lp = f.link(O, 0);
        let q = query(&f);
        let fwd = q.find_path(a, b, s, e, &filter).unwrap();
        assert_eq!(
            fwd.corridor,
            vec![a, f.quad(O, 1, 3), lp, f.quad(O, 3, 3), b]
        );
        let back = q.find_path(b, a, e, s, &filter).unwrap();
        assert_eq!(back.status, PathStatus::Complete);
        match direction {
            LinkDirection::OneWay => {
                assert!(!back.corridor.contains(&lp));
                assert!(back.corridor.contains(&f.quad(O, 2, 0)), "detour by row 0");
            }
            LinkDirection::Bidirectional => {
                assert_eq!(
                    back.corridor,
                    vec![b, f.quad(O, 3, 3), lp, f.quad(O, 1, 3), a]
                );
                let sp = q
                    .find_straight_path(e, s, &back.corridor, StraightPathOptions::default())
                    .unwrap();
                assert_eq!(pts(&sp), vec![e, [3.5, 0.0, 3.5], [1.5, 0.0, 3.5], s]);
                assert_eq!(flags(&sp), vec![S, M, 0, E]);
            }
        }
        // Switched off, the link forces the detour both ways; switched on again, it is back.
        let t = f.mesh.tile_ref_at(O).unwrap();
        f.mesh
            .set_off_mesh_link_enabled(t, crate::ids::LinkIndex(0), false)
            .unwrap();
        let q = query(&f);
        let r = q.find_path(a, b, s, e, &filter).unwrap();
        assert_eq!(r.status, PathStatus::Complete);
        assert!(!r.corridor.contains(&lp));
        assert!(r.corridor.contains(&f.quad(O, 2, 0)));
        f.mesh
            .set_off_mesh_link_enabled(t, crate::ids::LinkIndex(0), true)
            .unwrap();
        let q = query(&f);
        assert_eq!(q.find_path(a, b, s, e, &filter).unwrap(), fwd);
    }
}

#[test]
fn costly_area_is_avoided() {
    let f = one(4, &["....", ".11.", ".11.", "...."], vec![]);
    let q = query(&f);
    let (s, e) = ([0.5, 0.0, 1.5], [3.5, 0.0, 1.5]);
    let (a, b) = (f.quad(O, 0, 1), f.quad(O, 3, 1));
    let cheap = QueryFilter::default();
    let r = q.find_path(a, b, s, e, &cheap).unwrap();
    assert_eq!(
        r.corridor,
        vec![a, f.quad(O, 1, 1), f.quad(O, 2, 1), b],
        "straight through"
    );
    assert_eq!(r.cost, 3.0);
    // Crossing points where the area changes: into area 1 at x = 1, back to 0 at x = 3.
    let sp = q
        .find_straight_path(
            s,
            e,
            &r.corridor,
            StraightPathOptions {
                area_crossings: true,
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(pts(&sp), vec![s, [1.0, 0.0, 1.5], [3.0, 0.0, 1.5], e]);
    assert_eq!(sp[1].poly, f.quad(O, 1, 1));
    assert_eq!(sp[2].poly, b);

    let mut dear = QueryFilter::default();
    dear.set_area_cost(1, 10.0).unwrap();
    let r = q.find_path(a, b, s, e, &dear).unwrap();
    assert_eq!(
        r.corridor,
        vec![
            a,
            f.quad(O, 0, 0),
            f.quad(O, 1, 0),
            f.quad(O, 2, 0),
            f.quad(O, 3, 0),
            b
        ]
    );
    let h = 0.5f64.sqrt();
    let want = 0.5 + (0.25f64 + 0.25).sqrt() + 1.0 + 1.0 + (0.25f64 + 0.25).sqrt() + 0.5;
    assert!((r.cost - want).abs() < 1e-12, "{} vs {want} ({h})", r.cost);
    // The raycast cost counts the dear area per unit length.
    let c = q
        .raycast(a, s, e, &dear, RaycastOptions { costs: true })
        .unwrap();
    assert_eq!(c.stop, RaycastStop::Reached);
    assert!((c.cost.unwrap() - (0.5 + 20.0 + 0.5)).abs() < 1e-12);
}

#[test]
fn excluded_flags_cut_the_only_route() {
    let f = one(4, &["..X.", "####", "####", "####"], vec![]);
    let q = query(&f);
    let (s, e) = ([0.5, 0.0, 0.5], [3.5, 0.0, 0.5]);
    let mut filter = QueryFilter::default();
    filter.set_exclude_flags(2);
    let r = q
        .find_path(f.quad(O, 0, 0), f.quad(O, 3, 0), s, e, &filter)
        .unwrap();
    assert_eq!(r.status, PathStatus::Partial);
    assert_eq!(r.corridor, vec![f.quad(O, 0, 0), f.quad(O, 1, 0)]);
    assert_eq!(r.cost, 0.5);
    // The raycast stops where the excluded polygon begins: edge 1 of quad (1, 0), x = 2.
    let h = q
        .raycast(f.quad(O, 0, 0), s, e, &filter, RaycastOptions::default())
        .unwrap();
    assert_eq!(h.t, 0.5);
    assert_eq!(
        h.stop,
        RaycastStop::Wall {
            edge: 1,
            normal: [-1.0, 0.0, 0.0]
        }
    );
    assert_eq!(h.visited, vec![f.quad(O, 0, 0), f.quad(O, 1, 0)]);
    // Nearest skips it too.
    let n = q
        .find_nearest_poly([2.5, 0.0, 0.5], [0.6, 1.0, 0.5], &filter)
        .unwrap()
        .unwrap();
    assert_eq!(n.poly, f.quad(O, 1, 0));
    assert_eq!(n.point, [2.0, 0.0, 0.5]);
    assert!(!n.over_poly);
    // Include flags: nothing includes flag 4.
    filter.set_exclude_flags(0).set_include_flags(4);
    assert!(q
        .find_nearest_poly([2.5, 0.0, 0.5], [4.0, 1.0, 4.0], &filter)
        .unwrap()
        .is_none());
}

#[test]
fn out_of_nodes() {
    let f = one(4, &STRAIGHT, vec![]);
    let q = NavMeshQuery::new(&f.mesh, 2).unwrap();
    let r = q
        .find_path(
            f.quad(O, 0, 0),
            f.quad(O, 3, 0),
            [0.5, 0.0, 0.5],
            [3.5, 0.0, 0.5],
            &QueryFilter::default(),
        )
        .unwrap();
    assert_eq!(r.status, PathStatus::OutOfNodes);
    assert_eq!(r.corridor, vec![f.quad(O, 0, 0), f.quad(O, 1, 0)]);
    let h = q
        .raycast(
            f.quad(O, 0, 0),
            [0.5, 0.0, 0.5],
            [3.5, 0.0, 0.5],
            &QueryFilter::default(),
            RaycastOptions::default(),
        )
        .unwrap();
    assert_eq!(h.stop, RaycastStop::VisitLimit);
    assert_eq!(h.visited.len(), 2);
    let pool = |n| NavMeshQuery::new(&f.mesh, n).map(drop);
    let refused = |max_nodes| Err(InvalidInput::PoolSize { max_nodes }.into());
    assert_eq!(pool(0), refused(0));
    let over = crate::limits::MAX_QUERY_NODES + 1;
    assert_eq!(pool(over), refused(over));
    assert_eq!(pool(over - 1), Ok(()));
}

#[test]
fn bad_inputs_are_errors_not_panics() {
    let f = one(
        5,
        &ISLANDS,
        vec![link(
            [1.5, 0.0, 2.5],
            [3.5, 0.0, 2.5],
            LinkDirection::OneWay,
        )],
    );
    let q = query(&f);
    let fl = QueryFilter::default();
    let good = f.quad(O, 0, 0);
    let p = [0.5, 0.0, 0.5];
    let nan = [f64::NAN, 0.0, 0.0];
    let inf = [0.0, f64::INFINITY, 0.0];
    let lp = f.link(O, 0);
    let mut x = 0x0123_4567_89ab_cdefu64;
    let mut forged = vec![lp];
    for _ in 0..200 {
        x = crate::generator::mix(x);
        if let Some(r) = PolyRef::from_raw(x) {
            forged.push(r);
        }
        if let Some(r) = PolyRef::from_raw(x & 0x0000_03ff_ffff_ffff | 1 << 40) {
            forged.push(r);
        }
    }
    for &r in &forged {
        if f.mesh.is_valid_poly_ref(r) && r != lp {
            continue;
        }
        assert!(matches!(
            q.find_path(r, good, p, p, &fl),
            Err(QueryError::InvalidRef { .. })
        ));
        assert!(q.find_path(good, r, p, p, &fl).is_err());
        assert!(q.raycast(r, p, p, &fl, RaycastOptions::default()).is_err());
        assert!(q
            .find_straight_path(p, p, &[good, r], StraightPathOptions::default())
            .is_err());
        assert!(q
            .find_straight_path(p, p, &[r], StraightPathOptions::default())
            .is_err());
    }
    let input = |reason| Err(QueryError::InvalidInput { reason });
    let not_finite = |arg| input(InvalidInput::NotFinite { arg });
    let no = StraightPathOptions::default();
    let ray = RaycastOptions::default();
    for bad in [nan, inf] {
        let path = |a, b| q.find_path(good, good, a, b, &fl).map(drop);
        assert_eq!(path(bad, p), not_finite("start_pos"));
        assert_eq!(path(p, bad), not_finite("end_pos"));
        let near = |a, b| q.find_nearest_poly(a, b, &fl).map(drop);
        assert_eq!(near(bad, p), not_finite("center"));
        assert_eq!(near(p, bad), not_finite("half_extents"));
        let cast = |a, b| q.raycast(good, a, b, &fl, ray).map(drop);
        assert_eq!(cast(bad, p), not_finite("start_pos"));
        assert_eq!(cast(p, bad), not_finite("end_pos"));
        let straight = |a, b| q.find_straight_path(a, b, &[good], no).map(drop);
        assert_eq!(straight(bad, p), not_finite("start_pos"));
        assert_eq!(straight(p, bad), not_finite("end_pos"));
    }
    assert_eq!(
        q.find_nearest_poly(p, [-1.0, 1.0, 1.0], &fl).map(drop),
        input(InvalidInput::NegativeExtent)
    );
    assert_eq!(
        q.find_straight_path(p, p, &[], no).map(drop),
        input(InvalidInput::EmptyCorridor)
    );
    // Not linked: quads (0,0) and (4,4).
    assert_eq!(
        q.find_straight_path(p, p, &[good, f.quad(O, 4, 4)], no)
            .map(drop),
        input(InvalidInput::CorridorNotLinked { index: 0 })
    );
    // A link polygon must sit between its landings, in its direction.
    let fwd = [f.quad(O, 1, 2), lp, f.quad(O, 3, 2)];
    assert!(q
        .find_straight_path(p, p, &fwd, StraightPathOptions::default())
        .is_ok());
    let rev = [f.quad(O, 3, 2), lp, f.quad(O, 1, 2)];
    assert!(q
        .find_straight_path(p, p, &rev, StraightPathOptions::default())
        .is_err());
    // Ending in a link polygon: the last polygon must be a ground polygon.
    assert!(matches!(
        q.find_straight_path(p, p, &fwd[..2], no),
        Err(QueryError::InvalidRef {
            what: "corridor[last]",
            ..
        })
    ));
    let broken = [fwd[0], fwd[1], fwd[2], f.quad(O, 4, 4)];
    assert_eq!(
        q.find_straight_path(p, p, &broken, no).map(drop),
        input(InvalidInput::CorridorNotLinked { index: 2 })
    );
    // corridor_cost checks the same ends and steps, and also the search's own step rules.
    assert_eq!(
        q.corridor_cost(&[], p, p, &fl).map(drop),
        input(InvalidInput::EmptyCorridor)
    );
    assert!(q.corridor_cost(&fwd, p, p, &fl).is_ok());
    assert_eq!(
        q.corridor_cost(&rev, p, p, &fl).map(drop),
        input(InvalidInput::CorridorNotLinked { index: 0 })
    );
    assert_eq!(
        q.corridor_cost(&broken, p, p, &fl).map(drop),
        input(InvalidInput::CorridorNotLinked { index: 2 })
    );
    assert!(matches!(
        q.corridor_cost(&fwd[..2], p, p, &fl),
        Err(QueryError::InvalidRef {
            what: "corridor[last]",
            ..
        })
    ));
    let there_and_back = [f.quad(O, 0, 2), f.quad(O, 1, 2), f.quad(O, 0, 2)];
    assert_eq!(
        q.corridor_cost(&there_and_back, p, p, &fl).map(drop),
        input(InvalidInput::CorridorNotLinked { index: 1 })
    );
    let mut fl2 = QueryFilter::default();
    let cost = |fl: &mut QueryFilter, area, c| fl.set_area_cost(area, c).map(drop);
    assert_eq!(
        cost(&mut fl2, 64, 1.0),
        input(InvalidInput::AreaOutOfRange { area: 64 })
    );
    for c in [-1.0, f64::NAN, f64::INFINITY] {
        assert_eq!(
            cost(&mut fl2, 3, c),
            input(InvalidInput::AreaCost { area: 3 })
        );
    }
    fl2.set_area_cost(3, -0.0).unwrap();
    assert_eq!(fl2.area_cost(3).unwrap().to_bits(), 0.0f64.to_bits());
    // Huge but finite coordinates still give answers.
    let big = [1e300, -1e300, 1e300];
    let _ = q.find_nearest_poly(big, [1e300; 3], &fl).unwrap();
    let _ = q
        .find_path(good, f.quad(O, 4, 4), big, [-1e300; 3], &fl)
        .unwrap();
    let _ = q
        .raycast(good, p, big, &fl, RaycastOptions { costs: true })
        .unwrap();
    let _ = q
        .find_straight_path(big, [-1e300; 3], &[good], StraightPathOptions::default())
        .unwrap();
    // Zero costs times infinite distances give NaN costs: the search still ends.
    let mut free = QueryFilter::default();
    for a in 0..64 {
        free.set_area_cost(a, 0.0).unwrap();
    }
    let far = [1e300, 1e300, 1e300];
    let r = q
        .find_path(f.quad(O, 4, 4), good, far, [-1e300; 3], &free)
        .unwrap();
    assert_eq!(r.status, PathStatus::Partial);
    let r = q
        .find_path(good, f.quad(O, 1, 4), far, [-1e300; 3], &free)
        .unwrap();
    assert_eq!(r.status, PathStatus::Complete);
    let _ = q
        .raycast(
            good,
            far,
            [-1e300; 3],
            &free,
            RaycastOptions { costs: true },
        )
        .unwrap();
}

#[test]
fn same_polygon_and_clamping() {
    let f = one(4, &STRAIGHT, vec![]);
    let q = query(&f);
    let a = f.quad(O, 1, 0);
    let r = q
        .find_path(
            a,
            a,
            [1.5, 0.0, 0.5],
            [1.5, 0.0, 0.9],
            &QueryFilter::default(),
        )
        .unwrap();
    assert_eq!(r.corridor, vec![a]);
    assert_eq!(r.status, PathStatus::Complete);
    // Points outside the corridor's end polygons are clamped onto them (x–z).
    let sp = q
        .find_straight_path(
            [1.5, 0.0, -3.0],
            [2.5, 0.0, 0.5],
            &[a],
            StraightPathOptions::default(),
        )
        .unwrap();
    assert_eq!(pts(&sp), vec![[1.5, 0.0, 0.0], [2.0, 0.0, 0.5]]);
    assert_eq!(flags(&sp), vec![S, E]);
    // Start equal to end: one point with both flags.
    let sp = q
        .find_straight_path(
            [1.5, 0.0, 0.5],
            [1.5, 0.0, 0.5],
            &[a],
            StraightPathOptions::default(),
        )
        .unwrap();
    assert_eq!(pts(&sp), vec![[1.5, 0.0, 0.5]]);
    assert_eq!(flags(&sp), vec![S | E]);
    // A raycast from outside its polygon misses it.
    let h = q
        .raycast(
            a,
            [0.5, 0.0, 0.5],
            [0.5, 0.0, 0.9],
            &QueryFilter::default(),
            RaycastOptions::default(),
        )
        .unwrap();
    assert_eq!((h.t, h.stop), (0.0, RaycastStop::Missed));
    assert!(h.visited.is_empty());
}

// ---- Generated worlds: properties and determinism ----

fn world() -> WorldSpec {
    crate::generator::worlds::layered()
}

fn world_mesh() -> crate::TiledNavMesh {
    let w = world();
    let mut mesh = crate::TiledNavMesh::new(w.params_fitting());
    for t in w.tiles() {
        mesh.add_tile(t).unwrap();
    }
    mesh
}

/// A point in the generated world from unit coordinates: x, z across the 3 × 3 cells, y on
/// layer `layer`.
fn world_point(u: f64, v: f64, layer: u32) -> Vec3 {
    let w = world();
    let x = u * 48.0;
    let z = v * 48.0;
    [
        x,
        w.slope[0] * x + w.slope[1] * z + f64::from(layer) * w.layer_gap + 0.1,
        z,
    ]
}

/// True when consecutive corridor polygons are linked, off-mesh links in their direction: a
/// link polygon is boarded at the end its `ToOffMesh` link names and left at the other end.
fn corridor_linked(mesh: &crate::TiledNavMesh, c: &[PolyRef]) -> bool {
    use super::portal::{boarding_end, opposite};
    use super::view::resolve;
    let boarding_end =
        |before, link, after| boarding_end(&resolve(mesh, before)?, &resolve(mesh, link)?, after);
    c.windows(2).enumerate().all(|(i, w)| {
        let links = mesh.links(w[0]).unwrap();
        links.iter().any(|l| {
            l.target == w[1]
                && match l.kind {
                    LinkKind::Internal { .. } | LinkKind::Portal { .. } => true,
                    LinkKind::ToOffMesh { end } => c
                        .get(i + 2)
                        .is_some_and(|&after| boarding_end(w[0], w[1], after) == Some(end)),
                    LinkKind::FromOffMesh { end } => i
                        .checked_sub(1)
                        .and_then(|b| boarding_end(c[b], w[0], w[1]))
                        .is_some_and(|board| opposite(board) == end),
                }
        })
    })
}

/// The x–z distance from p to the nearest ground corridor polygon, or 0 when p is an end point
/// of a corridor link polygon.
fn distance_to_corridor(mesh: &crate::TiledNavMesh, c: &[PolyRef], p: &Vec3) -> f64 {
    let mut best = f64::INFINITY;
    for &r in c {
        let (t, i) = mesh.poly(r).unwrap();
        if let Some(li) = t.link_of_poly(i) {
            let l = t.off_mesh_links()[li.0 as usize];
            if *p == l.start || *p == l.end {
                return 0.0;
            }
            continue;
        }
        let corners: Vec<Vec3> = t.poly_vertices(i).unwrap().collect();
        let (q, _) = closest_point_on_poly_xz(p, &corners);
        best = best.min(crate::geom::dist2_xz(p, &q).sqrt());
    }
    best
}

type Case = (f64, f64, u32, f64, f64, u32);

/// Runs every query for one case; the Debug text of the answers, for comparisons.
fn run_case(q: &NavMeshQuery<'_>, c: &Case, filter: &QueryFilter) -> String {
    let s = world_point(c.0, c.1, c.2);
    let e = world_point(c.3, c.4, c.5);
    let he = [2.0, 3.0, 2.0];
    let a = q.find_nearest_poly(s, he, filter).unwrap();
    let b = q.find_nearest_poly(e, he, filter).unwrap();
    let mut out = format!("{a:?} {b:?}");
    if let (Some(a), Some(b)) = (a, b) {
        let r = q
            .find_path(a.poly, b.poly, a.point, b.point, filter)
            .unwrap();
        let sp = q
            .find_straight_path(
                a.point,
                b.point,
                &r.corridor,
                StraightPathOptions {
                    all_crossings: true,
                    ..Default::default()
                },
            )
            .unwrap();
        let h = q
            .raycast(
                a.poly,
                a.point,
                b.point,
                filter,
                RaycastOptions { costs: true },
            )
            .unwrap();
        out += &format!("{r:?} {sp:?} {h:?}");
    }
    out
}

fn case() -> impl Strategy<Value = Case> {
    (
        0.0..1.0f64,
        0.0..1.0f64,
        0..2u32,
        0.0..1.0f64,
        0.0..1.0f64,
        0..2u32,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn query_properties(c in case(), dear in 0.0..5.0f64, exclude in 0u16..8) {
        let mesh = world_mesh();
        let q = NavMeshQuery::new(&mesh, 2048).unwrap();
        let mut filter = QueryFilter::default();
        filter.set_area_cost(1, dear).unwrap();
        filter.set_exclude_flags(exclude & 4);
        let s = world_point(c.0, c.1, c.2);
        let e = world_point(c.3, c.4, c.5);
        let he = [2.0, 3.0, 2.0];
        let (Some(a), Some(b)) = (
            q.find_nearest_poly(s, he, &filter).unwrap(),
            q.find_nearest_poly(e, he, &filter).unwrap(),
        ) else {
            return Ok(());
        };
        prop_assert!(filter.passes(&mesh, a.poly));
        let r = q.find_path(a.poly, b.poly, a.point, b.point, &filter).unwrap();
        prop_assert_eq!(r.corridor[0], a.poly);
        prop_assert!(corridor_linked(&mesh, &r.corridor), "{:?}", r.corridor);
        prop_assert!(r.corridor[1..].iter().all(|&p| filter.passes(&mesh, p)));
        prop_assert_eq!(r.status == PathStatus::Complete, *r.corridor.last().unwrap() == b.poly);
        prop_assert!(r.cost.is_finite() && r.cost >= 0.0);
        for options in [
            StraightPathOptions::default(),
            StraightPathOptions { area_crossings: true, all_crossings: false },
            StraightPathOptions { area_crossings: false, all_crossings: true },
        ] {
            let sp = q.find_straight_path(a.point, b.point, &r.corridor, options).unwrap();
            prop_assert!(sp.len() >= 2 || (sp.len() == 1 && sp[0].flags == StraightPathFlags::START | StraightPathFlags::END));
            prop_assert!(sp[0].flags.contains(StraightPathFlags::START));
            prop_assert!(sp.last().unwrap().flags.contains(StraightPathFlags::END));
            for p in &sp {
                let d = distance_to_corridor(&mesh, &r.corridor, &p.pos);
                prop_assert!(d < 1e-9, "{:?} is {} from the corridor", p, d);
                prop_assert!(r.corridor.contains(&p.poly));
            }
        }
        let h = q.raycast(a.poly, a.point, b.point, &filter, RaycastOptions { costs: true }).unwrap();
        prop_assert!((0.0..=1.0).contains(&h.t));
        prop_assert_eq!(h.t == 1.0, h.stop == RaycastStop::Reached);
        prop_assert!(corridor_linked(&mesh, &h.visited));
        prop_assert!(h.cost.unwrap().is_finite());
        if let RaycastStop::Wall { normal, .. } = h.stop {
            let len = (normal[0] * normal[0] + normal[2] * normal[2]).sqrt();
            prop_assert!((len - 1.0).abs() < 1e-12);
        }
    }
}

/// A regression guard: queries run sequentially over a mesh they only read, so today nothing in
/// them can depend on the thread count; this fails if a later cache or parallel search shares
/// state across threads.
#[test]
fn results_do_not_depend_on_the_thread_count() {
    use rayon::prelude::*;
    let mesh = world_mesh();
    let q = NavMeshQuery::new(&mesh, 2048).unwrap();
    let mut filter = QueryFilter::default();
    filter.set_area_cost(2, 3.5).unwrap();
    let mut x = 7u64;
    let mut unit = || {
        x = crate::generator::mix(x);
        (x >> 11) as f64 / (1u64 << 53) as f64
    };
    let cases: Vec<Case> = (0..48)
        .map(|_| {
            let c = (unit(), unit(), 0, unit(), unit(), 0);
            (
                c.0,
                c.1,
                (unit() * 2.0) as u32,
                c.3,
                c.4,
                (unit() * 2.0) as u32,
            )
        })
        .collect();
    let serial: Vec<String> = cases.iter().map(|c| run_case(&q, c, &filter)).collect();
    assert!(serial.iter().filter(|s| s.contains("Complete")).count() > 5);
    for n in [1, 2, 4] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap();
        let par: Vec<String> =
            pool.install(|| cases.par_iter().map(|c| run_case(&q, c, &filter)).collect());
        assert_eq!(par, serial, "{n} threads");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Every query gives identical results before and after snapshot / mutate / restore
    /// excursions, in both modes, into a new mesh and in place (`spec/snapshot.md` §9).
    #[test]
    fn queries_are_identical_after_restore_excursions(
        edits in proptest::collection::vec((0usize..18, 0u32..9, 0u8..4, any::<bool>()), 0..12),
        cases in proptest::collection::vec(case(), 1..6),
        referenced in any::<bool>(),
        in_place in any::<bool>(),
    ) {
        let w = world();
        let tiles = w.tiles();
        let lib = crate::TileLibrary::from_tiles(&tiles);
        let mut mesh = TiledNavMesh::new(w.params(24));
        for t in &tiles {
            mesh.add_tile(t.clone()).unwrap();
        }
        let refs: Vec<_> = mesh.tiles().map(|(r, _)| r).collect();
        for &(t, p, area, off) in &edits {
            let r = refs[t % refs.len()];
            let _ = mesh.set_poly_area(r.poly(crate::PolyIndex(p)), area);
            let _ = mesh.set_poly_flags(r.poly(crate::PolyIndex(p)), if off { 2 } else { 1 });
            let _ = mesh.set_off_mesh_link_enabled(r, crate::ids::LinkIndex(p % 2), !off);
        }
        let mut filter = QueryFilter::default();
        filter.set_exclude_flags(2);
        filter.set_area_cost(1, 4.0).unwrap();
        filter.set_area_cost(2, 0.5).unwrap();
        let before: Vec<String> = cases.iter().map(|c| run_case(&NavMeshQuery::new(&mesh, 4096).unwrap(), c, &filter)).collect();

        let mode = if referenced { crate::SnapshotMode::Referenced } else { crate::SnapshotMode::Full };
        let snap = mesh.snapshot(mode);
        let mut moved = mesh.clone();
        moved.remove_tile(refs[4]).unwrap();
        let _ = moved.set_poly_area(refs[0].poly(crate::PolyIndex(0)), 63);
        let restored = if in_place {
            moved.restore(&snap, &lib).unwrap();
            moved
        } else {
            crate::NavMeshSnapshot::restore(&snap, &lib).unwrap()
        };
        let after: Vec<String> = cases.iter().map(|c| run_case(&NavMeshQuery::new(&restored, 4096).unwrap(), c, &filter)).collect();
        prop_assert_eq!(before, after);
    }
}

/// S20 in Rust terms: a query borrows the mesh for as long as it lives, so whatever holds the
/// mesh across restores holds the object itself, here a navigator sharing it behind a lock the
/// way a game might. An in-place restore keeps that object: the navigator's answers follow the
/// restored state with nothing re-wired, and a failed restore changes none of them.
#[test]
fn a_holder_of_the_mesh_keeps_working_across_in_place_restores() {
    use std::sync::RwLock;
    struct Navigator<'a> {
        mesh: &'a RwLock<crate::TiledNavMesh>,
        filter: QueryFilter,
    }
    impl Navigator<'_> {
        fn answers(&self) -> Vec<String> {
            let mesh = self.mesh.read().unwrap();
            let q = NavMeshQuery::new(&mesh, 4096).unwrap();
            let cases = [
                (0.1, 0.1, 0, 0.9, 0.9, 0),
                (0.2, 0.8, 1, 0.8, 0.2, 0),
                (0.5, 0.5, 0, 0.1, 0.9, 1),
            ];
            cases
                .iter()
                .map(|c| run_case(&q, c, &self.filter))
                .collect()
        }
    }
    let w = world();
    let lib = crate::TileLibrary::from_tiles(&w.tiles());
    let shared = RwLock::new(world_mesh());
    let nav = Navigator {
        mesh: &shared,
        filter: QueryFilter::default(),
    };
    let before = nav.answers();
    for mode in [crate::SnapshotMode::Full, crate::SnapshotMode::Referenced] {
        let snap = shared.read().unwrap().snapshot(mode);
        {
            let mut m = shared.write().unwrap();
            let r = m.tile_ref_at(w.positions()[4]).unwrap();
            m.remove_tile(r).unwrap();
        }
        let moved = nav.answers();
        assert_ne!(
            moved, before,
            "removing the middle tile changes the answers"
        );
        let broken = &snap[..snap.len() - 1];
        assert!(shared.write().unwrap().restore(broken, &lib).is_err());
        assert_eq!(nav.answers(), moved, "a failed restore changes nothing");
        shared.write().unwrap().restore(&snap, &lib).unwrap();
        assert_eq!(nav.answers(), before, "{mode:?}");
    }
}
