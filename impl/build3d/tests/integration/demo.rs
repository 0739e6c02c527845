//! The three demo meshes at the demo and cheap settings: every tile valid, all tiles of a mesh
//! in one `TiledNavMesh` (stitching, landing budget), snapshots that restore, and queries that
//! answer (`spec/build3d.md` B1, B35, B47–B50).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use onav::{
    LinkKind, NavMeshQuery, NavMeshSnapshot, NavTile, PathStatus, PolyIndex, PolyRef, QueryFilter,
    SnapshotMode, TileLibrary, TiledNavMesh,
};
use onav_build3d::{build, BuiltMesh, Settings, SettingsSpec};

use crate::kit::{demo_mesh, ids_on_threads};

const MESHES: [&str; 3] = ["dungeon", "nav_test", "undulating"];

fn cheap() -> SettingsSpec {
    SettingsSpec {
        detail_sample_dist: 0.0,
        ..SettingsSpec::default()
    }
}

fn built(name: &str, spec: SettingsSpec) -> BuiltMesh {
    build(&demo_mesh(name), &Settings::new(spec).unwrap()).unwrap()
}

fn centroid(t: &NavTile, p: u32) -> [f64; 3] {
    let vs: Vec<[f64; 3]> = t.poly_vertices(PolyIndex(p)).unwrap().collect();
    let n = vs.len() as f64;
    let mut c = [0.0; 3];
    for v in &vs {
        for k in 0..3 {
            c[k] += v[k] / n;
        }
    }
    c
}

/// Connected components of the link graph: polygon → component number.
fn components(m: &TiledNavMesh) -> BTreeMap<PolyRef, usize> {
    let mut comp = BTreeMap::new();
    let all: Vec<PolyRef> = m
        .tiles()
        .flat_map(|(r, t)| (0..t.ground_poly_count()).map(move |p| r.poly(PolyIndex(p))))
        .collect();
    let mut next = 0;
    for &start in &all {
        if comp.contains_key(&start) {
            continue;
        }
        comp.insert(start, next);
        let mut q = VecDeque::from([start]);
        while let Some(p) = q.pop_front() {
            for l in m.links(p).unwrap() {
                if let std::collections::btree_map::Entry::Vacant(e) = comp.entry(l.target) {
                    e.insert(next);
                    q.push_back(l.target);
                }
            }
        }
        next += 1;
    }
    comp
}

#[test]
fn every_tile_is_valid_and_the_mesh_answers() {
    for name in MESHES {
        for (label, spec) in [("demo", SettingsSpec::default()), ("cheap", cheap())] {
            let b = built(name, spec);
            assert!(!b.tiles.is_empty(), "{name} {label}");
            // The reader accepts every tile's bytes again and they carry the build's grid (B49).
            for t in &b.tiles {
                let again = NavTile::from_bytes(t.as_built_bytes()).unwrap();
                assert_eq!(again.content_id(), t.content_id());
                assert_eq!(t.digest(), b.params.digest());
                assert!(t.grid().bits_eq(&b.params.grid()));
            }
            // Positions are unique and in (row, column, layer) order (B1, B49).
            let pos: Vec<_> = b
                .tiles
                .iter()
                .map(|t| (t.pos().row, t.pos().column, t.pos().layer))
                .collect();
            let mut sorted = pos.clone();
            sorted.sort();
            sorted.dedup();
            assert_eq!(pos, sorted, "{name} {label}");
            let m = b.to_mesh().unwrap();
            assert_eq!(m.tile_count(), b.tiles.len());
            let polys: usize = m.tiles().map(|(_, t)| t.ground_poly_count() as usize).sum();
            assert_eq!(b.stats.polygons, polys);

            // Snapshots restore exactly, Full and Referenced.
            let full = m.snapshot(SnapshotMode::Full);
            let back = NavMeshSnapshot::restore(&full, &TileLibrary::new()).unwrap();
            assert_eq!(back.snapshot(SnapshotMode::Full), full);
            let lib = TileLibrary::from_tiles(&b.tiles);
            let referenced = m.snapshot(SnapshotMode::Referenced);
            let back = NavMeshSnapshot::restore(&referenced, &lib).unwrap();
            assert_eq!(back.snapshot(SnapshotMode::Full), full);

            // Every polygon's centroid finds a polygon nearby.
            let q = NavMeshQuery::new(&m, 65_536).unwrap();
            let f = QueryFilter::default();
            for (_, t) in m.tiles() {
                for p in 0..t.ground_poly_count() {
                    let c = centroid(t, p);
                    let hit = q.find_nearest_poly(c, [0.5, 2.0, 0.5], &f).unwrap();
                    assert!(hit.is_some(), "{name} {label}: nothing near {c:?}");
                }
            }

            // The two polygons farthest apart on x in the largest link component are joined
            // by a complete path.
            // Links: internal and across tile borders (the portals stitched).
            let (mut internal, mut portal) = (0usize, 0usize);
            for (r, t) in m.tiles() {
                for p in 0..t.ground_poly_count() {
                    for l in m.links(r.poly(PolyIndex(p))).unwrap() {
                        match l.kind {
                            LinkKind::Internal { .. } => internal += 1,
                            LinkKind::Portal { .. } => portal += 1,
                            _ => {}
                        }
                    }
                }
            }
            assert!(portal > 0 && internal > 0);
            let comp = components(&m);
            let mut sizes = BTreeMap::new();
            for c in comp.values() {
                *sizes.entry(*c).or_insert(0usize) += 1;
            }
            let (&big, &size) = sizes
                .iter()
                .max_by_key(|(c, s)| (**s, std::cmp::Reverse(**c)))
                .unwrap();
            let members: Vec<PolyRef> = comp
                .iter()
                .filter(|(_, c)| **c == big)
                .map(|(p, _)| *p)
                .collect();
            let at = |r: PolyRef| {
                let (t, i) = m.poly(r).unwrap();
                centroid(t, i.0)
            };
            let by_x = |a: &PolyRef, b: &PolyRef| at(*a)[0].total_cmp(&at(*b)[0]);
            let lo = *members.iter().min_by(|a, b| by_x(a, b)).unwrap();
            let hi = *members.iter().max_by(|a, b| by_x(a, b)).unwrap();
            let path = q.find_path(lo, hi, at(lo), at(hi), &f).unwrap();
            assert_eq!(path.status, PathStatus::Complete, "{name} {label}");
            let tiles: BTreeSet<_> = path.corridor.iter().map(|r| r.tile()).collect();
            assert!(tiles.len() >= 3, "{name} {label}: a far path crosses tiles");
            eprintln!(
                "{name} {label}: {} tiles, {} polygons, {internal} internal and {portal} portal \
                 links, largest component {size} polygons, path of {} polygons over {} tiles",
                b.tiles.len(),
                b.stats.polygons,
                path.corridor.len(),
                tiles.len()
            );
        }
    }
}

#[test]
fn two_threads_same_bytes() {
    let g = demo_mesh("dungeon");
    let s = Settings::new(SettingsSpec::default()).unwrap();
    let one = ids_on_threads(&g, &s, 1);
    assert_eq!(ids_on_threads(&g, &s, 2), one);
    assert_eq!(ids_on_threads(&g, &s, 3), one);
}

#[test]
fn recast_scale_counts() {
    // Recast 1.6.0 builds 24 / 34 / 49 non-empty tiles of these meshes at these settings
    // (detour-figures.md); the same tile cells must have walkable surface here.
    for (name, cells) in [("dungeon", 24), ("nav_test", 34), ("undulating", 49)] {
        let b = built(name, SettingsSpec::default());
        assert_eq!(b.stats.cells, cells, "{name}");
    }
}
