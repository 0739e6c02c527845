//! The reference twin of the stitcher (tests only, `spec/navmesh-format.md` §6): each tile's
//! links computed by the procedure of §6.3 as written — collected polygon by polygon, each list
//! then sorted by the key of K12 — with no buffer sharing and no incremental update. The mesh's
//! links (batch stitcher and incremental updates, `stitch/mod.rs`, `mesh/state.rs`) must equal a
//! from-scratch stitch with this one after every operation (`onav::testing::stitch_from_scratch`).

use super::landing::poly_ref;
use super::{
    min_first, neighbourhood, overlap, CellEntry, Link, LinkEnd, LinkKind, SlotView, TileLinks,
};
use crate::ids::{PolyIndex, PolyRef, Side, SlotIndex, TilePos, TileRef};
use crate::tile::{Edge, LinkDirection, NavTile};

/// The links of the tile in `slot`, collected per polygon and sorted (K12), as the spec's procedure
/// reads.
pub(crate) fn stitch_tile(view: &dyn SlotView, slot: SlotIndex) -> TileLinks {
    let Some((generation, tile)) = view.occupant(slot) else {
        return TileLinks::default();
    };
    let me = TileRef::new(generation, slot);
    let pos = tile.pos();
    let np = tile.poly_count() as usize;
    let ng = tile.ground_poly_count();
    let mut per_poly: Vec<Vec<Link>> = vec![Vec::new(); np];

    // Internal links.
    for (i, poly) in tile.ground_polys().iter().enumerate() {
        for (k, edge) in poly.edge_list().iter().enumerate() {
            if let Edge::Internal(q) = *edge {
                per_poly[i].push(Link {
                    target: me.poly(q),
                    kind: LinkKind::Internal { edge: k as u8 },
                });
            }
        }
    }
    // Portal links, side by side, against every tile of the neighbouring cell.
    for side in Side::ALL {
        portal_links(view, tile, pos, side, &mut per_poly);
    }

    // Off-mesh links: this tile's own links, and links of tiles around it whose end lands here.
    let own = view.landings(slot).unwrap_or(&[]);
    for (li, landing) in own.iter().enumerate() {
        if let Some((s, e)) = *landing {
            let lp = ng as usize + li;
            per_poly[lp].push(Link {
                target: poly_ref(view, s),
                kind: LinkKind::FromOffMesh {
                    end: LinkEnd::Start,
                },
            });
            per_poly[lp].push(Link {
                target: poly_ref(view, e),
                kind: LinkKind::FromOffMesh { end: LinkEnd::End },
            });
            per_poly[s.1 .0 as usize].push(Link {
                target: me.poly(PolyIndex(lp as u32)),
                kind: LinkKind::ToOffMesh {
                    end: LinkEnd::Start,
                },
            });
        }
    }
    for (c, r) in neighbourhood(pos.column, pos.row) {
        for &CellEntry { slot: other, .. } in view.cell(c, r) {
            let Some((og, ot)) = view.occupant(other) else {
                continue;
            };
            let theirs = view.landings(other).unwrap_or(&[]);
            for (li, l) in ot.off_mesh_links().iter().enumerate() {
                if l.direction != LinkDirection::Bidirectional {
                    continue;
                }
                let Some(Some((_, e))) = theirs.get(li) else {
                    continue;
                };
                if e.0 == slot {
                    let lp = PolyIndex(ot.ground_poly_count() + li as u32);
                    per_poly[e.1 .0 as usize].push(Link {
                        target: PolyRef::new(og, other, lp),
                        kind: LinkKind::ToOffMesh { end: LinkEnd::End },
                    });
                }
            }
        }
    }

    let mut out = TileLinks {
        offsets: Vec::with_capacity(np + 1),
        links: Vec::new(),
    };
    out.offsets.push(0);
    for mut v in per_poly {
        v.sort_by_key(Link::order_key);
        out.links.extend(v);
        out.offsets.push(out.links.len() as u32);
    }
    out
}

/// The portal links of the tile's portal edges on `side` to the matching portal edges of the
/// tiles in the neighbouring cell (`spec/navmesh-format.md` §6.2). Both tiles' portal edges on the
/// shared border are sorted with disjoint interiors (rule T20), so one merge of the two lists
/// visits each overlapping pair once: linear in the two lists.
fn portal_links(
    view: &dyn SlotView,
    tile: &NavTile,
    pos: TilePos,
    side: Side,
    out: &mut [Vec<Link>],
) {
    let mine = tile.data().portals(side);
    if mine.is_empty() {
        return;
    }
    let (dc, dr) = side.step();
    let (Some(nc), Some(nr)) = (pos.column.checked_add(dc), pos.row.checked_add(dr)) else {
        return;
    };
    let u = if side.along_z() { 2 } else { 0 };
    for &CellEntry { slot: other, .. } in view.cell(nc, nr) {
        let Some((og, ot)) = view.occupant(other) else {
            continue;
        };
        let theirs = ot.data().portals(side.opposite());
        let climb = min_first(tile.agent().climb, ot.agent().climb);
        let mut first = 0;
        for e in mine {
            while first < theirs.len() && theirs[first].hi <= e.lo {
                first += 1;
            }
            for f in theirs[first..].iter().take_while(|f| f.lo < e.hi) {
                if let Some((lo, hi)) = overlap(&e.a, &e.b, &f.a, &f.b, u, climb) {
                    out[e.poly.0 as usize].push(Link {
                        target: PolyRef::new(og, other, f.poly),
                        kind: LinkKind::Portal {
                            edge: e.edge,
                            side,
                            lo,
                            hi,
                        },
                    });
                }
            }
        }
    }
}
