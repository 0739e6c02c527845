//! Tests of the landing budget (`spec/navmesh-format.md` K17): the work count against a brute-force
//! count, the exact boundary, and every operation that can create a state refusing one over budget.

use proptest::prelude::*;

use crate::generator::WorldSpec;
use crate::ids::TilePos;
use crate::limits::LANDING_WORK_PER_POLYGON;
use crate::{MeshError, NavTile, SnapshotMode, TiledNavMesh};

/// A tile's landing weight summed from its detail records.
fn weight(t: &NavTile) -> u64 {
    t.detail_meshes().map(|d| u64::from(d.triangle_count)).sum()
}

/// K17 counted independently of the implementation: every link visits its own tile's weight,
/// then that of every tile, anywhere in `tiles`, whose cell is next to (or is) the link's cell and
/// whose closed bounds hold the end point.
fn brute_work(t: &NavTile, tiles: &[&NavTile]) -> u64 {
    let (grid, me) = (t.grid(), t.pos());
    let mut work = 0;
    for l in t.off_mesh_links() {
        work += weight(t);
        for u in tiles {
            let p = u.pos();
            let near = (p.column - me.column).abs() <= 1 && (p.row - me.row).abs() <= 1;
            let b = grid.cell_bounds(p.column, p.row);
            let inside =
                b[0] <= l.end[0] && l.end[0] <= b[2] && b[1] <= l.end[2] && l.end[2] <= b[3];
            if near && inside {
                work += weight(u);
            }
        }
    }
    work
}

fn budget(t: &NavTile) -> u64 {
    LANDING_WORK_PER_POLYGON * u64::from(t.poly_count())
}

/// One cell of 16 × 16 quads (256 ground polygons of two detail triangles) with `links` links
/// ending in the same cell: work 2 × 512 per link against a budget of 512 per polygon, so the
/// boundary is at 256 links.
fn dense(links: u32) -> (WorldSpec, NavTile) {
    let w = WorldSpec {
        columns: 1,
        rows: 1,
        quads: 16,
        links_per_tile: links,
        ..WorldSpec::default()
    };
    let t = w.tiles().remove(0);
    (w, t)
}

#[test]
fn work_matches_a_brute_force_count_on_a_layered_world() {
    let w = crate::generator::worlds::layered();
    let tiles = w.tiles();
    let all: Vec<&NavTile> = tiles.iter().collect();
    let cells = crate::stitch::weight_per_cell(all.iter().copied());
    let cell = |c: i32, r: i32| cells.get(c, r);
    let mut linked = 0;
    for t in &tiles {
        let work = crate::stitch::landing_work(t, &cell);
        assert_eq!(work, brute_work(t, &all), "{:?}", t.pos());
        linked += usize::from(t.link_count() > 0 && work > 0);
    }
    assert!(linked > 10, "the world must exercise the count");
}

#[test]
fn add_tile_accepts_exactly_up_to_the_budget() {
    let (mut accepted, mut refused, mut equal) = (0, 0, 0);
    for links in 250..=262 {
        let (w, t) = dense(links);
        assert_eq!((t.ground_poly_count(), weight(&t)), (256, 512));
        let work = brute_work(&t, &[&t]);
        assert_eq!(work, 1024 * u64::from(t.link_count()));
        let mut mesh = TiledNavMesh::new(w.params(4));
        let before = mesh.snapshot(SnapshotMode::Full);
        let res = mesh.add_tile(t.clone());
        // Accepted exactly up to the budget, refused exactly above it.
        assert_eq!(res.is_ok(), work <= budget(&t), "{links} links");
        match res {
            Ok(_) => {
                accepted += 1;
                equal += usize::from(work == budget(&t));
            }
            Err(e) => {
                assert_eq!(
                    e,
                    MeshError::LandingBudget {
                        pos: t.pos(),
                        work,
                        budget: budget(&t)
                    }
                );
                assert_eq!(mesh.snapshot(SnapshotMode::Full), before);
                refused += 1;
            }
        }
    }
    assert!(
        accepted > 0 && refused > 0 && equal > 0,
        "{accepted} {refused} {equal}"
    );
}

/// Tile A (8 × 8 quads, 400 links, about a ninth of them ending in the next cell east; the
/// others in its own cell) and, for that cell, a small tile (8 × 8) and a large one (64 × 64)
/// of the same settings.
fn neighbours() -> (WorldSpec, NavTile, NavTile, NavTile) {
    let small = WorldSpec {
        columns: 2,
        rows: 1,
        quads: 8,
        links_per_tile: 400,
        ..WorldSpec::default()
    };
    let large = WorldSpec {
        quads: 64,
        links_per_tile: 0,
        ..small.clone()
    };
    let at = |column| TilePos {
        column,
        row: 0,
        layer: 0,
    };
    let a = small.tile(at(0));
    let b_small = WorldSpec {
        links_per_tile: 0,
        ..small.clone()
    }
    .tile(at(1));
    let b_large = large.tile(at(1));
    (small, a, b_small, b_large)
}

#[test]
fn a_neighbour_that_would_push_a_tile_over_budget_is_refused() {
    let (w, a, b_small, b_large) = neighbours();
    // A is within budget alone and beside the small tile, over it beside the large one.
    assert!(brute_work(&a, &[&a]) <= budget(&a));
    assert!(brute_work(&a, &[&a, &b_small]) <= budget(&a));
    let over = brute_work(&a, &[&a, &b_large]);
    assert!(over > budget(&a));
    let refused = Err(MeshError::LandingBudget {
        pos: a.pos(),
        work: over,
        budget: budget(&a),
    });

    let mut mesh = TiledNavMesh::new(w.params(4));
    mesh.add_tile(a.clone()).unwrap();
    let before = mesh.snapshot(SnapshotMode::Full);
    assert_eq!(mesh.add_tile(b_large.clone()).map(|_| ()), refused);
    assert_eq!(mesh.snapshot(SnapshotMode::Full), before);

    mesh.add_tile(b_small).unwrap();
    let before = mesh.snapshot(SnapshotMode::Full);
    assert_eq!(mesh.replace_tile(b_large.clone()).map(|_| ()), refused);
    assert_eq!(mesh.snapshot(SnapshotMode::Full), before);

    // Without A's links the large neighbour is fine; removing never fails.
    let a_ref = mesh.tile_ref_at(a.pos()).unwrap();
    mesh.remove_tile(a_ref).unwrap();
    mesh.replace_tile(b_large).unwrap();
}

/// Tiles of three densities for the same positions (3 × 3 cells, two layers): plain (6 × 6 quads,
/// 150 links), large (20 × 20 quads, no links) and small with many links (3 × 3 quads, 300 links).
/// Small tiles go over budget beside large ones, depending on where their link ends fall.
fn mixed_tiles() -> (WorldSpec, Vec<Vec<NavTile>>) {
    let plain = WorldSpec {
        columns: 3,
        rows: 3,
        layers: 2,
        quads: 6,
        links_per_tile: 150,
        ..WorldSpec::default()
    };
    let large = WorldSpec {
        quads: 20,
        links_per_tile: 0,
        ..plain.clone()
    };
    let small = WorldSpec {
        quads: 3,
        links_per_tile: 300,
        ..plain.clone()
    };
    let sets = [&plain, &large, &small].map(|w| w.tiles()).to_vec();
    (plain, sets)
}

/// What K17 says of the state holding `tiles` (by ascending slot, the new tile marked): the
/// error an operation leading there must report, found by brute force.
fn expected_refusal(tiles: &[(Option<u32>, &NavTile)]) -> Option<MeshError> {
    let all: Vec<&NavTile> = tiles.iter().map(|&(_, t)| t).collect();
    let over = |t: &NavTile| {
        let (work, budget) = (brute_work(t, &all), budget(t));
        (work > budget).then_some(MeshError::LandingBudget {
            pos: t.pos(),
            work,
            budget,
        })
    };
    // The new tile (slot None) first, then the others by ascending slot.
    let new = tiles
        .iter()
        .find(|(s, _)| s.is_none())
        .and_then(|&(_, t)| over(t));
    new.or_else(|| {
        let mut rest: Vec<_> = tiles.iter().filter_map(|&(s, t)| Some((s?, t))).collect();
        rest.sort_by_key(|&(s, _)| s);
        rest.into_iter().find_map(|(_, t)| over(t))
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Over random add / replace / remove sequences of tiles of three densities: every operation
    /// refused for K17 is refused with the error the brute-force count predicts for the state it
    /// would lead to, leaves the mesh unchanged, and every state reached meets every budget.
    #[test]
    fn every_reachable_state_meets_its_budgets(ops in proptest::collection::vec((0usize..3, 0usize..18, 0u8..3), 1..24)) {
        let (w, sets) = mixed_tiles();
        let mut mesh = TiledNavMesh::new(w.params(24));
        for (set, at, kind) in ops {
            let tile = &sets[set][at];
            let owned: Vec<(u32, NavTile)> =
                mesh.tiles().map(|(r, t)| (r.slot().0, t.clone())).collect();
            let current: Vec<(Option<u32>, &NavTile)> =
                owned.iter().map(|(s, t)| (Some(*s), t)).collect();
            let taken = mesh.tile_ref_at(tile.pos());
            let before = mesh.snapshot(SnapshotMode::Full);
            let result = match (kind, taken) {
                (0, None) => {
                    let mut next = current.clone();
                    next.push((None, tile));
                    Some((mesh.add_tile(tile.clone()).map(|_| ()), next))
                }
                (1, Some(old)) => {
                    let mut next: Vec<_> =
                        current.iter().copied().filter(|&(s, _)| s != Some(old.slot().0)).collect();
                    next.push((None, tile));
                    Some((mesh.replace_tile(tile.clone()).map(|_| ()), next))
                }
                (2, Some(old)) => {
                    mesh.remove_tile(old).unwrap();
                    None
                }
                _ => None,
            };
            if let Some((result, next)) = result {
                let expected = expected_refusal(&next);
                match (&result, &expected) {
                    (Err(e @ MeshError::LandingBudget { .. }), Some(x)) => {
                        prop_assert_eq!(e, x);
                        prop_assert_eq!(mesh.snapshot(SnapshotMode::Full), before);
                    }
                    (Ok(()), None) => {}
                    _ => prop_assert!(false, "{:?} but K17 says {:?}", result, expected),
                }
            }
            let now: Vec<(Option<u32>, &NavTile)> =
                mesh.tiles().map(|(r, t)| (Some(r.slot().0), t)).collect();
            prop_assert_eq!(expected_refusal(&now), None);
        }
    }
}

#[test]
fn the_mixed_tiles_exercise_both_outcomes() {
    let (w, sets) = mixed_tiles();
    let mut mesh = TiledNavMesh::new(w.params(24));
    // Large tiles in column 0 only: small tiles of column 2 have no link end near them.
    for t in sets[1]
        .iter()
        .filter(|t| t.pos().layer == 0 && t.pos().column == 0)
    {
        mesh.add_tile(t.clone()).unwrap();
    }
    let (mut ok, mut refused) = (0, 0);
    for t in sets[2].iter().filter(|t| t.pos().layer == 1) {
        match mesh.add_tile(t.clone()) {
            Ok(_) => ok += 1,
            Err(MeshError::LandingBudget { .. }) => refused += 1,
            Err(e) => panic!("{e}"),
        }
    }
    assert!(ok > 0 && refused > 0, "{ok} accepted, {refused} refused");
}
