//! Tests of the mesh: slots, generations, references and incremental stitching.

use proptest::prelude::*;

use crate::generator::WorldSpec;
use crate::ids::{PolyIndex, PolyRef, TilePos};
use crate::stitch::LinkKind;
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
    assert_eq!(mesh.all_links(), mesh.stitch_from_scratch());
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

#[test]
fn forged_references_never_panic() {
    let w = world();
    let mut mesh = TiledNavMesh::new(w.params(32));
    for t in w.tiles().into_iter().take(5) {
        mesh.add_tile(t).unwrap();
    }
    let mut x = 0x1234_5678_9abc_def0u64;
    for _ in 0..10_000 {
        x = crate::generator::mix(x);
        let ok = mesh.is_valid_raw_ref(x);
        if let Some(r) = PolyRef::from_raw(x) {
            assert_eq!(ok, mesh.links(r).is_some());
            assert_eq!(ok, mesh.poly_area(r).is_some());
        }
    }
    assert!(!mesh.is_valid_raw_ref(0));
    assert!(!mesh.is_valid_raw_ref(u64::MAX));
}

/// One operation of a random history over a small world.
#[derive(Debug, Clone)]
enum Op {
    Add(usize),
    Remove(usize),
    Replace(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0usize..36).prop_map(Op::Add),
        (0usize..18).prop_map(Op::Remove),
        (0usize..36).prop_map(Op::Replace)
    ]
}

fn apply(mesh: &mut TiledNavMesh, w: &WorldSpec, ops: &[Op]) {
    let pos = w.positions();
    // Tiles 18..36 come from the world with another seed: the same positions and parameters,
    // other contents, so a replacement can change a slot's bytes.
    let other = WorldSpec {
        seed: 7,
        ..w.clone()
    };
    let tile = |i: usize| {
        if i < pos.len() {
            w.tile(pos[i])
        } else {
            other.tile(pos[i - pos.len()])
        }
    };
    for o in ops {
        let _ = match *o {
            Op::Add(i) => mesh.add_tile(tile(i)).map(drop),
            Op::Remove(i) => match mesh.tile_ref_at(pos[i]) {
                Some(r) => mesh.remove_tile(r).map(drop),
                None => Ok(()),
            },
            Op::Replace(i) => mesh.replace_tile(tile(i)).map(drop),
        };
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Incremental links equal a from-scratch stitch after any history, and equal the links of a
    /// mesh that reached the same slots (tiles and generations) by another history.
    #[test]
    fn stitching_is_history_independent(ops in proptest::collection::vec(op(), 1..40)) {
        let w = world();
        let mut mesh = TiledNavMesh::new(w.params(20));
        apply(&mut mesh, &w, &ops);
        prop_assert_eq!(mesh.all_links(), mesh.stitch_from_scratch());
        let bytes: usize = mesh.tiles().map(|(_, t)| t.as_built_bytes().len()).sum();
        prop_assert_eq!(mesh.state.tile_bytes, bytes);
        mesh.state.assert_derived();

        // Another history reaching the same slots: the slots placed at once, with their
        // generations, and stitched once in slot order (the restore path).
        let slots: Vec<_> = mesh.state.slots.iter().map(|s| (s.generation, s.occupied.as_ref().map(|o| o.tile.clone()))).collect();
        let other = TiledNavMesh::from_state(*mesh.params(), crate::mesh::MeshState::from_slots(slots, None));
        prop_assert_eq!(mesh.all_links(), other.all_links());
    }
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
