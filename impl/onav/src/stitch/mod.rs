//! Stitching (`spec/navmesh-format.md` §6): the links of every polygon, derived from the slots'
//! current contents. The links of a tile are a pure function of the tiles in the 3 × 3 cells
//! around it, so any history reaching the same slots gives the same links in the same order, and
//! a change at one cell needs only the 3 × 3 around it stitched again. Internal and portal links
//! are made here (§6.2); off-mesh link landings and the landing budget live in module `landing`
//! (§6.3, §6.8).

mod landing;
#[cfg(any(test, feature = "testkit"))]
pub(crate) mod reference;
#[cfg(test)]
mod tests;

#[cfg(test)]
pub(crate) use landing::landing_work;
pub(crate) use landing::{
    end_lands_in, first_over_budget, tile_landings, weight_per_cell, Landing, Landings,
};

use landing::poly_ref;

use crate::geom::Vec3;
use crate::ids::{Generation, PolyIndex, PolyRef, Side, SlotIndex, TileRef};
use crate::tile::{Edge, LinkDirection, NavTile, PortalEdge};

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

/// The links of every polygon of one tile.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TileLinks {
    offsets: Vec<u32>,
    links: Vec<Link>,
}

impl TileLinks {
    /// The links of polygon `poly`, in canonical order.
    #[inline]
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

    /// Inserts links at their canonical places (K12): `new` holds what `part` makes (source
    /// polygon, link) pairs of, sorted by source polygon and then by [`Link::order_key`], none
    /// equal to a link already held. One backward pass moves each link at most once; nothing is
    /// allocated beyond growing the link array.
    pub(crate) fn insert<T>(&mut self, new: &[T], part: impl Fn(&T) -> (PolyIndex, Link)) {
        let Some(first) = new.first() else {
            return;
        };
        let old_len = self.links.len();
        self.links.resize(old_len + new.len(), part(first).1);
        let (mut w, mut ni) = (self.links.len(), new.len());
        for j in (0..self.offsets.len() - 1).rev() {
            if ni == 0 {
                break;
            }
            let (a, mut r) = (self.offsets[j] as usize, self.offsets[j + 1] as usize);
            self.offsets[j + 1] = w as u32;
            while let Some((p, n)) = ni.checked_sub(1).map(|k| part(&new[k])) {
                if p.0 as usize != j {
                    break;
                }
                w -= 1;
                if r > a && self.links[r - 1].order_key() > n.order_key() {
                    r -= 1;
                    self.links[w] = self.links[r];
                } else {
                    self.links[w] = n;
                    ni -= 1;
                }
            }
            self.links.copy_within(a..r, w - (r - a));
            w -= r - a;
        }
    }

    /// Removes every link whose target lies in slot `slot`; false (and nothing changed) when
    /// there is none.
    pub(crate) fn remove_slot(&mut self, slot: SlotIndex) -> bool {
        if !self.links.iter().any(|l| l.target.slot() == slot) {
            return false;
        }
        let (mut w, mut start) = (0, 0);
        for j in 0..self.offsets.len() - 1 {
            let end = self.offsets[j + 1] as usize;
            self.offsets[j] = w as u32;
            for r in start..end {
                if self.links[r].target.slot() != slot {
                    self.links[w] = self.links[r];
                    w += 1;
                }
            }
            start = end;
        }
        if let Some(last) = self.offsets.last_mut() {
            *last = w as u32;
        }
        self.links.truncate(w);
        true
    }

    /// Whether any link targets slot `slot`.
    pub(crate) fn targets(&self, slot: SlotIndex) -> bool {
        self.links.iter().any(|l| l.target.slot() == slot)
    }
}

impl Link {
    /// The canonical order key of a polygon's links (`spec/navmesh-format.md` K12): (class,
    /// edge, target slot, target polygon, end), class 0 for edge links and 1 for off-mesh ones.
    pub(crate) fn order_key(&self) -> (u8, u8, u32, u32, u8) {
        let (class, edge, end) = match self.kind {
            LinkKind::Internal { edge } | LinkKind::Portal { edge, .. } => (0, edge, 0),
            LinkKind::ToOffMesh { end } | LinkKind::FromOffMesh { end } => (1, 0, end as u8),
        };
        (class, edge, self.target.slot().0, self.target.poly().0, end)
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
    /// False when no tile of the view has an off-mesh link (then no tile has off-mesh links'
    /// links to look for).
    fn any_links(&self) -> bool {
        true
    }
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

/// The links of the tile in `slot` (`spec/navmesh-format.md` §6.2–6.5), emitted polygon by
/// polygon in canonical order (K12): each ground polygon's edges ascending, per edge its internal
/// link or its portal links by (target slot, target polygon), then its off-mesh boarding links;
/// then the off-mesh link polygons' links. Only the portal and off-mesh links need sorting, and
/// they are gathered into one buffer each and sorted once for the tile.
pub(crate) fn stitch_tile(view: &dyn SlotView, slot: SlotIndex) -> TileLinks {
    SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut s) => stitch_with(view, slot, &mut s),
        Err(_) => stitch_with(view, slot, &mut Scratch::default()),
    })
}

/// The sort buffers of [`stitch_tile`], kept per thread so that stitching a tile allocates only
/// what it returns.
#[derive(Default)]
struct Scratch {
    portals: Vec<(u64, Link)>,
    offmesh: Vec<(u128, Link)>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::default();
}

fn stitch_with(view: &dyn SlotView, slot: SlotIndex, scratch: &mut Scratch) -> TileLinks {
    let Some((generation, tile)) = view.occupant(slot) else {
        return TileLinks::default();
    };
    let me = TileRef::new(generation, slot);
    let pos = tile.pos();
    let ng = tile.ground_poly_count() as usize;
    let np = tile.poly_count() as usize;

    // Portal links, keyed by (polygon, edge, target slot, target polygon): unique (K12).
    let portals = &mut scratch.portals;
    portals.clear();
    for side in Side::ALL {
        let (dc, dr) = side.step();
        let (Some(nc), Some(nr)) = (pos.column.checked_add(dc), pos.row.checked_add(dr)) else {
            continue;
        };
        for &CellEntry { slot: other, .. } in view.cell(nc, nr) {
            if let Some((og, ot)) = view.occupant(other) {
                portal_links(tile, ot, side, |e, f, lo, hi| {
                    let key = portal_key(e.poly, e.edge, other, f.poly);
                    let target = PolyRef::new(og, other, f.poly);
                    let kind = LinkKind::Portal {
                        edge: e.edge,
                        side,
                        lo,
                        hi,
                    };
                    portals.push((key, Link { target, kind }));
                });
            }
        }
    }
    portals.sort_unstable_by_key(|&(k, _)| k);

    // Off-mesh links, keyed by (source polygon, target slot, target polygon, end): unique (K12).
    let offmesh = &mut scratch.offmesh;
    offmesh.clear();
    if view.any_links() {
        off_mesh_links(view, tile, me, offmesh);
        offmesh.sort_unstable_by_key(|&(k, _)| k);
    }

    let internal: usize = tile
        .ground_polys()
        .iter()
        .map(|p| {
            p.edge_list()
                .iter()
                .filter(|e| matches!(e, Edge::Internal(_)))
                .count()
        })
        .sum();
    // Room for one link per portal edge at least: the links an incremental stitch adds later,
    // as the neighbours arrive, then need no new allocation.
    let room = portals.len().max(tile.data().portals.len());
    let mut links = Vec::with_capacity(internal + room + offmesh.len());
    let mut offsets = Vec::with_capacity(np + 1);
    let (mut pi, mut oi) = (0, 0);
    for (i, poly) in tile.ground_polys().iter().enumerate() {
        offsets.push(links.len() as u32);
        for (k, edge) in poly.edge_list().iter().enumerate() {
            match *edge {
                Edge::Internal(q) => links.push(Link {
                    target: me.poly(q),
                    kind: LinkKind::Internal { edge: k as u8 },
                }),
                Edge::Portal(_) => {
                    let at = portal_key(PolyIndex(i as u32), k as u8, SlotIndex(0), PolyIndex(0));
                    while pi < portals.len()
                        && portals[pi].0 >> PORTAL_EDGE_SHIFT == at >> PORTAL_EDGE_SHIFT
                    {
                        links.push(portals[pi].1);
                        pi += 1;
                    }
                }
                Edge::Wall => {}
            }
        }
        while oi < offmesh.len() && (offmesh[oi].0 >> OFFMESH_POLY_SHIFT) as usize == i {
            links.push(offmesh[oi].1);
            oi += 1;
        }
    }
    for i in ng..np {
        offsets.push(links.len() as u32);
        while oi < offmesh.len() && (offmesh[oi].0 >> OFFMESH_POLY_SHIFT) as usize == i {
            links.push(offmesh[oi].1);
            oi += 1;
        }
    }
    offsets.push(links.len() as u32);
    debug_assert_eq!((pi, oi), (portals.len(), offmesh.len()));
    TileLinks { offsets, links }
}

/// Bits of a portal key below the (polygon, edge) part.
const PORTAL_EDGE_SHIFT: u32 = 40;
/// Bits of an off-mesh key below the source polygon.
const OFFMESH_POLY_SHIFT: u32 = 64;

/// The order key of a portal link of polygon `poly`, edge `edge` to polygon `target` of slot
/// `slot`: (polygon, edge, slot, target) in 20 + 3 + 20 + 20 bits, compared as one integer.
pub(crate) fn portal_key(poly: PolyIndex, edge: u8, slot: SlotIndex, target: PolyIndex) -> u64 {
    (u64::from(poly.0) << 43)
        | (u64::from(edge) << PORTAL_EDGE_SHIFT)
        | (u64::from(slot.0) << 20)
        | u64::from(target.0)
}

/// The order key of an off-mesh link of polygon `poly` to `target` at `end`: (polygon, target
/// slot, target polygon, end).
fn offmesh_key(poly: usize, target: PolyRef, end: LinkEnd) -> u128 {
    ((poly as u128) << OFFMESH_POLY_SHIFT)
        | (u128::from(target.slot().0) << 24)
        | (u128::from(target.poly().0) << 1)
        | end as u128
}

/// The off-mesh links of `tile` (in slot `me`): its own links' (K10, from its landings), and the
/// ToOffMesh End links of bidirectional links of tiles around it whose end lands on it.
fn off_mesh_links(view: &dyn SlotView, tile: &NavTile, me: TileRef, out: &mut Vec<(u128, Link)>) {
    let slot = me.slot();
    let ng = tile.ground_poly_count() as usize;
    let own = view.landings(slot).unwrap_or(&[]);
    for (li, landing) in own.iter().enumerate() {
        if let Some((s, e)) = *landing {
            let lp = ng + li;
            let start = poly_ref(view, s);
            let end = poly_ref(view, e);
            let from = |target, end| Link {
                target,
                kind: LinkKind::FromOffMesh { end },
            };
            out.push((
                offmesh_key(lp, start, LinkEnd::Start),
                from(start, LinkEnd::Start),
            ));
            out.push((offmesh_key(lp, end, LinkEnd::End), from(end, LinkEnd::End)));
            let target = me.poly(PolyIndex(lp as u32));
            out.push((
                offmesh_key(s.1 .0 as usize, target, LinkEnd::Start),
                Link {
                    target,
                    kind: LinkKind::ToOffMesh {
                        end: LinkEnd::Start,
                    },
                },
            ));
        }
    }
    let pos = tile.pos();
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
                    let target = PolyRef::new(og, other, lp);
                    out.push((
                        offmesh_key(e.1 .0 as usize, target, LinkEnd::End),
                        Link {
                            target,
                            kind: LinkKind::ToOffMesh { end: LinkEnd::End },
                        },
                    ));
                }
            }
        }
    }
}

/// The portal links of `tile`'s portal edges on `side` to the matching portal edges of `other`
/// (a tile of the neighbouring cell across `side`), each computed with `tile`'s edge first (K6):
/// `emit(e, f, lo, hi)` for each overlapping pair of `tile`'s edge e and `other`'s edge f. Both
/// tiles' portal edges on the shared border are sorted with disjoint interiors (rule T20), so one
/// merge of the two lists visits each overlapping pair once: linear in the two lists.
pub(crate) fn portal_links(
    tile: &NavTile,
    other: &NavTile,
    side: Side,
    mut emit: impl FnMut(&PortalEdge, &PortalEdge, f64, f64),
) {
    let mine = tile.data().portals(side);
    if mine.is_empty() {
        return;
    }
    let theirs = other.data().portals(side.opposite());
    let u = if side.along_z() { 2 } else { 0 };
    let climb = min_first(tile.agent().climb, other.agent().climb);
    let mut first = 0;
    for e in mine {
        while first < theirs.len() && theirs[first].hi <= e.lo {
            first += 1;
        }
        for f in theirs[first..].iter().take_while(|f| f.lo < e.hi) {
            if let Some((lo, hi)) = overlap(&e.a, &e.b, &f.a, &f.b, u, climb) {
                emit(e, f, lo, hi);
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
