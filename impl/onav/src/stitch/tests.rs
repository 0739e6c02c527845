//! Tests of stitching: signed-zero ties and the portal merge against an all-pairs scan.

use super::{max_first, min_first, overlap, LinkKind};
use crate::generator::worlds::layered as world;
use crate::ids::PolyIndex;
use crate::tile::Edge;
use crate::TiledNavMesh;

#[test]
fn signed_zero_ties_resolve_to_the_first_argument() {
    assert_eq!(min_first(-0.0, 0.0).to_bits(), (-0.0f64).to_bits());
    assert_eq!(min_first(0.0, -0.0).to_bits(), 0.0f64.to_bits());
    assert_eq!(max_first(-0.0, 0.0).to_bits(), (-0.0f64).to_bits());
    // A portal range starting at a signed zero has the same bits whatever the build.
    let (lo, hi) = overlap(
        &[1.0, 0.0, -0.0],
        &[1.0, 0.0, 2.0],
        &[1.0, 0.0, 3.0],
        &[1.0, 0.0, 0.0],
        2,
        0.5,
    )
    .unwrap();
    assert_eq!((lo.to_bits(), hi), ((-0.0f64).to_bits(), 2.0));
}

/// The sorted-merge portal matching finds exactly the links an all-pairs scan finds, on a world
/// whose densities differ from cell to cell (portals overlap partially) across layers.
#[test]
fn portal_merge_equals_all_pairs_scan() {
    let w = world();
    let mut mesh = TiledNavMesh::new(w.params(32));
    for t in w.tiles() {
        mesh.add_tile(t).unwrap();
    }
    let mut expected = Vec::new();
    for (ra, a) in mesh.tiles() {
        for (i, p) in a.ground_polys().iter().enumerate() {
            let n = usize::from(p.vertex_count);
            for (k, e) in p.edge_list().iter().enumerate() {
                let Edge::Portal(side) = *e else { continue };
                let (va, vb) = (
                    a.vertices()[p.vertices[k] as usize],
                    a.vertices()[p.vertices[(k + 1) % n] as usize],
                );
                let (dc, dr) = side.step();
                let pos = a.pos();
                for (rb, b) in mesh.tiles_in_cell(pos.column + dc, pos.row + dr) {
                    for (j, q) in b.ground_polys().iter().enumerate() {
                        let m = usize::from(q.vertex_count);
                        for (l, f) in q.edge_list().iter().enumerate() {
                            if *f != Edge::Portal(side.opposite()) {
                                continue;
                            }
                            let (vc, vd) = (
                                b.vertices()[q.vertices[l] as usize],
                                b.vertices()[q.vertices[(l + 1) % m] as usize],
                            );
                            let u = if side.along_z() { 2 } else { 0 };
                            let climb = min_first(a.agent().climb, b.agent().climb);
                            if let Some((lo, hi)) = overlap(&va, &vb, &vc, &vd, u, climb) {
                                expected.push((
                                    ra.poly(PolyIndex(i as u32)),
                                    rb.poly(PolyIndex(j as u32)),
                                    k as u8,
                                    lo.to_bits(),
                                    hi.to_bits(),
                                ));
                            }
                        }
                    }
                }
            }
        }
    }
    let mut found = Vec::new();
    for (r, t) in mesh.tiles() {
        for p in 0..t.ground_poly_count() {
            let from = r.poly(PolyIndex(p));
            for l in mesh.links(from).unwrap() {
                if let LinkKind::Portal { edge, lo, hi, .. } = l.kind {
                    found.push((from, l.target, edge, lo.to_bits(), hi.to_bits()));
                }
            }
        }
    }
    expected.sort_unstable();
    found.sort_unstable();
    assert!(expected.len() > 50);
    assert_eq!(found, expected);
}
