//! Stitching (`spec/navmesh-format.md` §6): the links of every polygon, derived from the slots'
//! current contents. The links of a tile are a pure function of the tiles in the 3 × 3 cells
//! around it, so any history reaching the same slots gives the same links in the same order, and
//! a change at one cell needs only the 3 × 3 around it stitched again. Internal and portal links
//! are made here (§6.2); off-mesh link landings and the landing budget live in module `landing`
//! (§6.3, §6.8).

mod landing;
#[cfg(test)]
mod tests;

#[cfg(test)]
pub(crate) use landing::landing_work;
pub(crate) use landing::{first_over_budget, tile_landings, weight_per_cell, Landing, Landings};

use landing::poly_ref;

use crate::geom::Vec3;
use crate::ids::{Generation, PolyIndex, PolyRef, Side, SlotIndex, TilePos, TileRef};
use crate::tile::{Edge, LinkDirection, NavTile};

/// Which end of an off-mesh link.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LinkEnd {
    /// The start point.
    Start = 0,
    /// The end point.
    End = 1,
}

/// What a link crosses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LinkKind {
    /// Edge `edge` of the polygon, shared with a polygon of the same tile.
    Internal {
        /// Edge index.
        edge: u8,
    },
    /// Edge `edge`, a portal on `side`, overlapping the target's portal edge on [lo, hi] of the
    /// border's axis (z for ±x sides, x for ±z sides).
    Portal {
        /// Edge index.
        edge: u8,
        /// The cell side.
        side: Side,
        /// Overlap minimum along the border axis.
        lo: f64,
        /// Overlap maximum along the border axis.
        hi: f64,
    },
    /// From a ground polygon onto an off-mesh link polygon, boarding at `end`.
    ToOffMesh {
        /// Where the link is boarded.
        end: LinkEnd,
    },
    /// From an off-mesh link polygon to the ground polygon it lands on at `end`.
    FromOffMesh {
        /// Which end lands there.
        end: LinkEnd,
    },
}

/// A directed link from a polygon to `target`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Link {
    /// The polygon reached.
    pub target: PolyRef,
    /// What is crossed.
    pub kind: LinkKind,
}

impl Link {
    /// The canonical order key (`spec/navmesh-format.md` §6.5): edge links by edge, then
    /// off-mesh links; then target slot, target polygon, link end.
    fn key(&self) -> (u8, u8, u32, u32, u8) {
        let (class, edge, end) = match self.kind {
            LinkKind::Internal { edge } | LinkKind::Portal { edge, .. } => (0, edge, 0),
            LinkKind::ToOffMesh { end } | LinkKind::FromOffMesh { end } => (1, 0, end as u8),
        };
        (class, edge, self.target.slot().0, self.target.poly().0, end)
    }
}

/// The links of every polygon of one tile.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TileLinks {
    offsets: Vec<u32>,
    links: Vec<Link>,
}

impl TileLinks {
    /// The links of polygon `poly`, in canonical order.
    pub fn of(&self, poly: PolyIndex) -> &[Link] {
        let i = poly.0 as usize;
        match (self.offsets.get(i), self.offsets.get(i + 1)) {
            (Some(&a), Some(&b)) => &self.links[a as usize..b as usize],
            _ => &[],
        }
    }

    /// Number of links of the whole tile.
    pub fn len(&self) -> usize {
        self.links.len()
    }

    /// True when the tile has no links.
    pub fn is_empty(&self) -> bool {
        self.links.is_empty()
    }
}

/// One tile of a cell: its layer and its slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CellEntry {
    pub layer: u32,
    pub slot: SlotIndex,
}

/// What stitching needs to see of a mesh: the tile and generation of a slot, and the tiles of a
/// cell.
pub(crate) trait SlotView {
    fn occupant(&self, slot: SlotIndex) -> Option<(Generation, &NavTile)>;
    /// The tiles of a cell, by ascending layer.
    fn cell(&self, column: i32, row: i32) -> &[CellEntry];
    /// The landings of the off-mesh links of the tile in `slot`, computed by [`tile_landings`]
    /// in the first stitching phase.
    fn landings(&self, slot: SlotIndex) -> Option<&[Option<(Landing, Landing)>]>;
}

/// The cells of the 3 × 3 around (column, row), in (row, column) order, skipping any that
/// would overflow i32.
pub(crate) fn neighbourhood(column: i32, row: i32) -> impl Iterator<Item = (i32, i32)> {
    (-1..=1)
        .flat_map(move |dr| (-1..=1).map(move |dc| (dc, dr)))
        .filter_map(move |(dc, dr): (i32, i32)| {
            Some((column.checked_add(dc)?, row.checked_add(dr)?))
        })
}

/// The links of the tile in `slot`.
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
        v.sort_by_key(Link::key);
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

/// The smaller of two finite values, the first on a tie: unlike `f64::min`, this fixes which
/// zero a (−0, +0) tie yields, so the bits of a portal range never depend on the build.
pub(crate) fn min_first(a: f64, b: f64) -> f64 {
    if b < a {
        b
    } else {
        a
    }
}

/// The larger of two finite values, the first on a tie (see [`min_first`]).
pub(crate) fn max_first(a: f64, b: f64) -> f64 {
    if b > a {
        b
    } else {
        a
    }
}

/// Height of segment (a, b) at coordinate `x` of axis `u`: `a.y + (b.y − a.y)·((x − a.u)/(b.u − a.u))`.
fn height_at(a: &Vec3, b: &Vec3, u: usize, x: f64) -> f64 {
    a[1] + (b[1] - a[1]) * ((x - a[u]) / (b[u] - a[u]))
}

/// The overlap [lo, hi] of two portal edges along axis u, if it has positive length and the
/// edges' heights at both ends of the overlap differ by at most `climb`.
pub(crate) fn overlap(
    a: &Vec3,
    b: &Vec3,
    c: &Vec3,
    d: &Vec3,
    u: usize,
    climb: f64,
) -> Option<(f64, f64)> {
    let lo = max_first(min_first(a[u], b[u]), min_first(c[u], d[u]));
    let hi = min_first(max_first(a[u], b[u]), max_first(c[u], d[u]));
    if hi <= lo {
        return None;
    }
    for x in [lo, hi] {
        if (height_at(a, b, u, x) - height_at(c, d, u, x)).abs() > climb {
            return None;
        }
    }
    Some((lo, hi))
}
