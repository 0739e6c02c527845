//! Tests of the mesh: slots, generations, references and incremental stitching.

use crate::generator::WorldSpec;
use crate::ids::{PolyIndex, PolyRef, TilePos};
use crate::stitch::LinkKind;
use crate::testing::{all_links, stitch_from_scratch};
use crate::{MeshError, TiledNavMesh};

use crate::generator::worlds::layered as world;

#[test]
fn generated_world_stitches_across_borders_and_layers() {
    let w = world();
    let mut mesh = TiledNavMesh::new(w.params(32));
    for t in w.tiles() {
        mesh.add_tile(t).unwrap();
    }
    let mut portals = 0;
    let mut offmesh = 0;
    for (r, t) in mesh.tiles() {
        for p in 0..t.poly_count() {
            for l in mesh.links(r.poly(PolyIndex(p))).unwrap() {
                assert!(mesh.is_valid_poly_ref(l.target));
                match l.kind {
                    LinkKind::Portal { lo, hi, .. } => {
                        assert!(lo < hi);
                        portals += 1;
                    }
                    LinkKind::FromOffMesh { .. } => offmesh += 1,
                    _ => {}
                }
            }
        }
    }
    assert!(portals > 50, "portals {portals}");
    assert!(offmesh > 4, "off-mesh {offmesh}");
    assert_eq!(all_links(&mesh), stitch_from_scratch(&mesh));
}

#[test]
fn portal_links_are_mutual() {
    let w = world();
    let mut mesh = TiledNavMesh::new(w.params(32));
    for t in w.tiles() {
        mesh.add_tile(t).unwrap();
    }
    for (r, t) in mesh.tiles() {
        for p in 0..t.ground_poly_count() {
            let from = r.poly(PolyIndex(p));
            for l in mesh.links(from).unwrap() {
                if let LinkKind::Portal { lo, hi, side, .. } = l.kind {
                    let back = mesh
                        .links(l.target)
                        .unwrap()
                        .iter()
                        .find(|b| b.target == from)
                        .expect("mutual portal");
                    match back.kind {
                        LinkKind::Portal {
                            lo: blo,
                            hi: bhi,
                            side: bs,
                            ..
                        } => {
                            assert_eq!((blo, bhi, bs), (lo, hi, side.opposite()));
                        }
                        other => panic!("unexpected {other:?}"),
                    }
                }
            }
        }
    }
}

#[test]
fn slots_generations_and_references() {
    let w = WorldSpec {
        columns: 2,
        rows: 1,
        ..WorldSpec::default()
    };
    let mut mesh = TiledNavMesh::new(w.params(3));
    let a = mesh
        .add_tile(w.tile(TilePos {
            column: 0,
            row: 0,
            layer: 0,
        }))
        .unwrap();
    let b = mesh
        .add_tile(w.tile(TilePos {
            column: 1,
            row: 0,
            layer: 0,
        }))
        .unwrap();
    assert_eq!((a.slot().0, b.slot().0), (0, 1));
    assert_eq!(a.generation().get(), 1);
    let pa = a.poly(PolyIndex(0));
    assert!(mesh.is_valid_poly_ref(pa));
    assert!(!mesh.is_valid_poly_ref(a.poly(PolyIndex(16))));
    mesh.remove_tile(a).unwrap();
    assert!(!mesh.is_valid_poly_ref(pa), "stale after remove");
    assert_eq!(
        mesh.remove_tile(a),
        Err(MeshError::InvalidTileRef { tile: a })
    );
    // The lowest free slot is reused with the next generation.
    let a2 = mesh
        .add_tile(w.tile(TilePos {
            column: 0,
            row: 0,
            layer: 0,
        }))
        .unwrap();
    assert_eq!((a2.slot().0, a2.generation().get()), (0, 2));
    assert!(!mesh.is_valid_poly_ref(pa));
    assert!(mesh.is_valid_poly_ref(a2.poly(PolyIndex(0))));
    // Replace keeps the slot and bumps the generation.
    let a3 = mesh
        .replace_tile(w.tile(TilePos {
            column: 0,
            row: 0,
            layer: 0,
        }))
        .unwrap();
    assert_eq!((a3.slot().0, a3.generation().get()), (0, 3));
    assert!(!mesh.is_valid_poly_ref(a2.poly(PolyIndex(0))));
    // Position uniqueness.
    let err = mesh
        .add_tile(w.tile(TilePos {
            column: 1,
            row: 0,
            layer: 0,
        }))
        .unwrap_err();
    assert_eq!(
        err,
        MeshError::PositionTaken {
            pos: TilePos {
                column: 1,
                row: 0,
                layer: 0
            },
            existing: b
        }
    );
}

/// Any u64 as a reference gets an answer, and the answer is right: a reference is valid exactly
/// when its slot holds a tile under its generation and its polygon index is below that tile's
/// polygon count (`spec/navmesh-format.md` §5.1), counted here from the tiles the mesh lists.
/// Every polygon accessor answers for exactly the valid ones.
#[test]
fn forged_references_are_answered_by_the_reference_rule() {
    let w = world();
    let mut mesh = TiledNavMesh::new(w.params(32));
    let tiles = w.tiles();
    let refs: Vec<_> = tiles
        .iter()
        .take(6)
        .map(|t| mesh.add_tile(t.clone()).unwrap())
        .collect();
    mesh.remove_tile(refs[2]).unwrap();
    mesh.add_tile(tiles[2].clone()).unwrap();
    let held: Vec<(u64, u32)> = mesh
        .tiles()
        .map(|(r, t)| (r.raw(), t.poly_count()))
        .collect();
    let expected = |raw: u64| {
        PolyRef::from_raw(raw).is_some_and(|r| {
            held.iter()
                .any(|&(t, n)| t == r.tile().raw() && r.poly().0 < n)
        })
    };
    // Random values, and values near every valid reference (its neighbours, other generations
    // and slots), so that both answers occur often.
    let mut candidates = vec![0, u64::MAX, 1 << 40];
    let mut x = 0x1234_5678_9abc_def0u64;
    for _ in 0..4_000 {
        x = crate::generator::mix(x);
        candidates.push(x);
    }
    for &(t, n) in &held {
        for p in [
            0,
            1,
            u64::from(n) - 1,
            u64::from(n),
            u64::from(n) + 1,
            (1 << 20) - 1,
        ] {
            for d in [0, 1 << 20, 1 << 40, 2 << 40] {
                candidates.extend([(t | p).wrapping_add(d), (t | p).wrapping_sub(d)]);
            }
        }
    }
    let (mut valid, mut invalid) = (0, 0);
    for raw in candidates {
        let ok = expected(raw);
        assert_eq!(mesh.is_valid_raw_ref(raw), ok, "{raw:#x}");
        if let Some(r) = PolyRef::from_raw(raw) {
            assert_eq!(mesh.is_valid_poly_ref(r), ok);
            assert_eq!(mesh.poly(r).is_some(), ok);
            assert_eq!(mesh.links(r).is_some(), ok);
            assert_eq!(mesh.poly_area(r).is_some(), ok);
            assert_eq!(mesh.poly_flags(r).is_some(), ok);
        }
        if ok {
            valid += 1;
        } else {
            invalid += 1;
        }
    }
    assert!(
        valid > 50 && invalid > 1_000,
        "{valid} valid, {invalid} invalid"
    );
}

#[test]
fn operations_refuse_states_whose_full_snapshot_would_not_fit() {
    let w = WorldSpec {
        columns: 2,
        rows: 1,
        links_per_tile: 1,
        ..WorldSpec::default()
    };
    let mut mesh = TiledNavMesh::new(w.params(4));
    let a = mesh
        .add_tile(w.tile(TilePos {
            column: 0,
            row: 0,
            layer: 0,
        }))
        .unwrap();
    // Pretend the held tiles are nearly 4 GiB: the next additions must be refused, unchanged.
    let room = u64::from(u32::MAX) - mesh.state.sizes().full_body();
    mesh.state.tile_bytes += room as usize - 3;
    let before = mesh.snapshot(crate::SnapshotMode::Referenced);
    let b = w.tile(TilePos {
        column: 1,
        row: 0,
        layer: 0,
    });
    assert_eq!(mesh.add_tile(b.clone()), Err(MeshError::SnapshotTooLarge));
    assert_eq!(
        mesh.replace_tile(b),
        Err(MeshError::NoTileAt {
            pos: TilePos {
                column: 1,
                row: 0,
                layer: 0
            }
        })
    );
    assert_eq!(
        mesh.replace_tile(w.tile(TilePos {
            column: 0,
            row: 0,
            layer: 0
        })),
        Err(MeshError::SnapshotTooLarge)
    );
    assert_eq!(
        mesh.set_poly_area(a.poly(PolyIndex(0)), 9),
        Err(MeshError::SnapshotTooLarge)
    );
    assert_eq!(
        mesh.set_off_mesh_link_enabled(a, crate::ids::LinkIndex(0), false),
        Err(MeshError::SnapshotTooLarge)
    );
    assert_eq!(mesh.snapshot(crate::SnapshotMode::Referenced), before);
    // Removing makes room again.
    mesh.state.tile_bytes -= room as usize - 3;
    mesh.set_poly_area(a.poly(PolyIndex(0)), 9).unwrap();
}

/// Content ids are computed only where they are needed (`spec/navmesh-format.md` C2): reading
/// tiles, adding them, edits, a Full snapshot, a Full restore and a mesh file round trip hash
/// nothing; a Referenced snapshot hashes each tile once, and the copies share the result.
#[test]
fn content_ids_are_computed_only_when_needed() {
    use crate::{read_mesh, write_mesh, NavMeshSnapshot, NavTile, SnapshotMode, TileLibrary};
    let w = world();
    let tiles: Vec<NavTile> = w
        .tiles()
        .iter()
        .map(|t| NavTile::from_bytes(t.as_built_bytes()).unwrap())
        .collect();
    let hashed = |m: &TiledNavMesh| m.tiles().filter(|(_, t)| t.content_id_known()).count();
    assert!(tiles.iter().all(|t| !t.content_id_known()));
    let mut mesh = TiledNavMesh::new(w.params(32));
    for t in &tiles {
        mesh.add_tile(t.clone()).unwrap();
    }
    let (r, _) = mesh.tiles().next().unwrap();
    mesh.set_poly_flags(r.poly(PolyIndex(0)), 0x55).unwrap();
    let full = mesh.snapshot(SnapshotMode::Full);
    let fresh = NavMeshSnapshot::restore(&full, &TileLibrary::new()).unwrap();
    let mut in_place = mesh.clone();
    in_place.restore(&full, &TileLibrary::new()).unwrap();
    let read = read_mesh(&write_mesh(&mesh)).unwrap();
    for m in [&mesh, &fresh, &in_place, &read] {
        assert_eq!(hashed(m), 0);
    }
    let referenced = mesh.snapshot(SnapshotMode::Referenced);
    assert_eq!(hashed(&mesh), mesh.tile_count());
    // The mesh's copies share their contents with the caller's tiles, so those know it too.
    assert!(tiles.iter().all(NavTile::content_id_known));
    assert_eq!(
        NavMeshSnapshot::restore(&referenced, &TileLibrary::from_tiles(&tiles))
            .unwrap()
            .snapshot(SnapshotMode::Full),
        full
    );
}

/// Incremental stitching computes a neighbour's new portal links with the neighbour's edge first,
/// as a from-scratch stitch of the neighbour does (K6), not as mirrors of the new tile's: two
/// unit quads meet on x = 8 where tile A's edge starts at z = −0 and tile B's at z = +0, so A's
/// link starts at −0 and B's at +0 (`min_first`/`max_first` keep the first argument's zero).
/// Either order of adds gives those bits, and equals a from-scratch stitch.
#[test]
fn incremental_portal_links_keep_each_sides_signed_zero() {
    use crate::tile::{AgentSizes, Edge, Polygon, RawTile};
    use crate::{NavTile, Side};
    let w = WorldSpec::default();
    let quad = |column: i32, v: [[f64; 3]; 4], edges: [Edge; 4]| -> NavTile {
        let mut p = Polygon {
            vertex_count: 4,
            vertices: [0, 1, 2, 3, 0, 0],
            ..Polygon::default()
        };
        p.edges[..4].copy_from_slice(&edges);
        let mut t = RawTile {
            grid: w.grid(),
            digest: w.digest(),
            pos: TilePos {
                column,
                row: 0,
                layer: 0,
            },
            agent: AgentSizes {
                height: 2.0,
                radius: 0.5,
                climb: 0.5,
            },
            vertices: v.to_vec(),
            polys: vec![p],
            links: Vec::new(),
            detail_meshes: Vec::new(),
            detail_vertices: Vec::new(),
            detail_tris: Vec::new(),
            areas: vec![0],
            flags: vec![1],
        };
        t.fan_detail();
        t.build().unwrap()
    };
    let s = w.grid().tile_size;
    let a = quad(
        0,
        [[0.0, 0.0, 0.0], [s, 0.0, -0.0], [s, 0.0, s], [0.0, 0.0, s]],
        [Edge::Wall, Edge::Portal(Side::PosX), Edge::Wall, Edge::Wall],
    );
    let b = quad(
        1,
        [
            [s, 0.0, 0.0],
            [2.0 * s, 0.0, 0.0],
            [2.0 * s, 0.0, s],
            [s, 0.0, s],
        ],
        [Edge::Wall, Edge::Wall, Edge::Wall, Edge::Portal(Side::NegX)],
    );
    for order in [[&a, &b], [&b, &a]] {
        let mut mesh = TiledNavMesh::new(w.params(2));
        for t in order {
            mesh.add_tile(t.clone()).unwrap();
        }
        let lo_of = |t: &NavTile| {
            let (r, _) = mesh.tile_at(t.pos()).unwrap();
            match mesh.links(r.poly(PolyIndex(0))).unwrap() {
                [l] => match l.kind {
                    LinkKind::Portal { lo, .. } => lo.to_bits(),
                    k => panic!("{k:?}"),
                },
                l => panic!("{l:?}"),
            }
        };
        assert_eq!(lo_of(&a), (-0.0f64).to_bits());
        assert_eq!(lo_of(&b), 0.0f64.to_bits());
        assert_eq!(all_links(&mesh), stitch_from_scratch(&mesh));
    }
}
