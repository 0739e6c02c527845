//! `find_path` against an exhaustive Dijkstra over the same crossings (`spec/queries.md` §4.6):
//! the search's cost is the least corridor cost, and it is the cost of the corridor it returns.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

use proptest::prelude::*;

use super::geom::{dist3, midpoint};
use super::portal::{edge_portal, link_point, opposite};
use super::view::resolve;
use super::{NavMeshQuery, PathStatus, QueryFilter};
use crate::generator::WorldSpec;
use crate::geom::Vec3;
use crate::ids::PolyRef;
use crate::stitch::{LinkEnd, LinkKind};
use crate::tile::LinkDirection;
use crate::TiledNavMesh;

/// A crossing: (source polygon and state, polygon, state); the start has no source.
type Key = (Option<(PolyRef, u8)>, PolyRef, u8);

/// The crossings one step from node `(key, pos)`, with their positions, written from §4.2–§4.3:
/// ground nodes follow edge links (placed at the midpoint of the first edge link to the target)
/// and boardable `ToOffMesh` links; link nodes only leave at the other end; never straight back
/// to the source polygon; the target passes the filter.
fn steps(mesh: &TiledNavMesh, filter: &QueryFilter, key: &Key) -> Vec<(Key, Vec3)> {
    let (source, p, s) = *key;
    let here = resolve(mesh, p).unwrap();
    let mut out: Vec<(Key, Vec3)> = Vec::new();
    for link in here.links {
        let q = link.target;
        if source.is_some_and(|(sp, _)| sp == q) {
            continue;
        }
        let there = resolve(mesh, q).unwrap();
        if !filter.passes_view(&there) {
            continue;
        }
        let (qs, pos) = match (s, link.kind) {
            (0, LinkKind::Internal { .. } | LinkKind::Portal { .. }) => {
                let (l, r) = edge_portal(&here.ground().unwrap(), &link.kind).unwrap();
                (0, midpoint(&l, &r))
            }
            (0, LinkKind::ToOffMesh { end }) => {
                let l = there.off_mesh_link().unwrap();
                if end == LinkEnd::End && l.direction != LinkDirection::Bidirectional {
                    continue;
                }
                (1 + end as u8, link_point(l, end))
            }
            (s, LinkKind::FromOffMesh { end }) if s != 0 => {
                let board = if s == 1 { LinkEnd::Start } else { LinkEnd::End };
                if end != opposite(board) {
                    continue;
                }
                (0, link_point(here.off_mesh_link().unwrap(), end))
            }
            _ => continue,
        };
        let k = (Some((p, s)), q, qs);
        // The first link giving a key places it.
        if !out.iter().any(|(o, _)| *o == k) {
            out.push((k, pos));
        }
    }
    out
}

/// The least corridor cost from `a` to `b` (§4.6), by Dijkstra over every crossing (no
/// heuristic, no node cap); `None` when `b` cannot be reached.
fn least_cost(
    mesh: &TiledNavMesh,
    filter: &QueryFilter,
    a: PolyRef,
    b: PolyRef,
    sp: Vec3,
    ep: Vec3,
) -> Option<f64> {
    let cost = |r: PolyRef| filter.cost_of(&resolve(mesh, r).unwrap());
    let mut best: BTreeMap<Key, (f64, Vec3)> = BTreeMap::new();
    let mut heap = BinaryHeap::new();
    let start: Key = (None, a, 0);
    best.insert(start, (0.0, sp));
    heap.push(Reverse((Ord64(0.0), start)));
    let mut answer: Option<f64> = None;
    while let Some(Reverse((Ord64(g), key))) = heap.pop() {
        let (bg, pos) = best[&key];
        if g > bg {
            continue;
        }
        if key.1 == b && key.2 == 0 {
            let total = g + dist3(&pos, &ep) * cost(b);
            answer = Some(answer.map_or(total, |x: f64| x.min(total)));
            continue;
        }
        for (k, q) in steps(mesh, filter, &key) {
            let ng = g + dist3(&pos, &q) * cost(key.1);
            if best.get(&k).is_none_or(|(og, _)| ng < *og) {
                best.insert(k, (ng, q));
                heap.push(Reverse((Ord64(ng), k)));
            }
        }
    }
    answer
}

/// The cost of a corridor of ground polygons (§4.6): from `sp` through each crossing's position
/// (the first edge link's portal midpoint) to `ep`.
fn corridor_cost(
    mesh: &TiledNavMesh,
    filter: &QueryFilter,
    c: &[PolyRef],
    sp: Vec3,
    ep: Vec3,
) -> f64 {
    let cost = |r: PolyRef| filter.cost_of(&resolve(mesh, r).unwrap());
    let mut at = sp;
    let mut g = 0.0;
    for w in c.windows(2) {
        let here = resolve(mesh, w[0]).unwrap();
        let link = here.links.iter().find(|l| l.target == w[1]).unwrap();
        let (l, r) = edge_portal(&here.ground().unwrap(), &link.kind).unwrap();
        let q = midpoint(&l, &r);
        g += dist3(&at, &q) * cost(w[0]);
        at = q;
    }
    g + dist3(&at, &ep) * cost(*c.last().unwrap())
}

/// f64 with the IEEE total order, for the heap.
#[derive(Clone, Copy, PartialEq)]
struct Ord64(f64);
impl Eq for Ord64 {}
impl PartialOrd for Ord64 {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Ord64 {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&o.0)
    }
}

fn worlds() -> Vec<WorldSpec> {
    vec![
        crate::generator::worlds::layered(),
        WorldSpec {
            columns: 4,
            rows: 4,
            quads: 3,
            hole_chance: 60,
            bump: 0.2,
            slope: [0.03, 0.01],
            area_kinds: 3,
            ..WorldSpec::default()
        },
        WorldSpec {
            columns: 3,
            rows: 3,
            quads: 4,
            vary_density: true,
            hole_chance: 40,
            links_per_tile: 3,
            area_kinds: 2,
            ..WorldSpec::default()
        },
    ]
}

fn meshes() -> &'static [(WorldSpec, TiledNavMesh)] {
    static M: std::sync::OnceLock<Vec<(WorldSpec, TiledNavMesh)>> = std::sync::OnceLock::new();
    M.get_or_init(|| {
        worlds()
            .into_iter()
            .map(|w| {
                let mut m = TiledNavMesh::new(w.params_fitting());
                for t in w.tiles() {
                    m.add_tile(t).unwrap();
                }
                (w, m)
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(160))]

    /// With every area cost ≥ H, a complete search that never ran out of nodes returns a
    /// least-cost corridor (up to rounding), and Partial means the end is unreachable.
    #[test]
    fn the_search_finds_a_least_cost_corridor(
        world in 0..3usize, a in 0..100_000usize, b in 0..100_000usize,
        ua in 0.0..1.0f64, va in 0.0..1.0f64, ub in 0.0..1.0f64, vb in 0.0..1.0f64,
        costs in prop::array::uniform3(prop_oneof![Just(1.0), 0.999..4.0f64]),
    ) {
        let (_, mesh) = &meshes()[world];
        let mut filter = QueryFilter::default();
        for (area, c) in costs.iter().enumerate() {
            filter.set_area_cost(area as u8, *c).unwrap();
        }
        let polys: Vec<(PolyRef, Vec3)> = mesh
            .tiles()
            .flat_map(|(r, t)| (0..t.ground_poly_count()).map(move |i| {
                let v: Vec<Vec3> = t.poly_vertices(crate::ids::PolyIndex(i)).unwrap().collect();
                (r.poly(crate::ids::PolyIndex(i)), v)
            }))
            .map(|(r, v)| {
                // A point inside the polygon: a blend of its centroid and vertex 0.
                let n = v.len() as f64;
                let c = [0, 1, 2].map(|k| v.iter().map(|p| p[k]).sum::<f64>() / n);
                (r, c)
            })
            .collect();
        let (pa, ca) = polys[a % polys.len()];
        let (pb, cb) = polys[b % polys.len()];
        let sp = [ca[0] + (ua - 0.5) * 0.1, ca[1], ca[2] + (va - 0.5) * 0.1];
        let ep = [cb[0] + (ub - 0.5) * 0.1, cb[1], cb[2] + (vb - 0.5) * 0.1];
        let q = NavMeshQuery::new(mesh, 1 << 16).unwrap();
        let r = q.find_path(pa, pb, sp, ep, &filter).unwrap();
        let least = least_cost(mesh, &filter, pa, pb, sp, ep);
        match r.status {
            PathStatus::Complete => {
                let least = least.unwrap();
                prop_assert!(r.cost <= least * (1.0 + 1e-12), "{} > least {}", r.cost, least);
                prop_assert!(r.cost >= least * (1.0 - 1e-12), "{} < least {}", r.cost, least);
                if pa != pb && r.corridor.iter().all(|&p| resolve(mesh, p).unwrap().ground().is_some()) {
                    let c = corridor_cost(mesh, &filter, &r.corridor, sp, ep);
                    prop_assert!((c - r.cost).abs() <= 1e-12 * r.cost.max(1.0), "{} vs {}", c, r.cost);
                }
            }
            PathStatus::Partial => prop_assert!(least.is_none()),
            PathStatus::OutOfNodes => prop_assert!(false, "a pool of 65536 ran out"),
        }
    }
}
