//! Stitching (`spec/navmesh-format.md` §6): the links of every polygon, derived from the slots'
//! current contents. The links of a tile are a pure function of the tiles in the 3 × 3 cells
//! around it, so any history reaching the same slots gives the same links in the same order, and
//! a change at one cell needs only the 3 × 3 around it stitched again.

use std::collections::HashMap;

use crate::geom::{closest_point_on_poly_xz, dist2_xz, Vec3};
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

/// What stitching needs to see of a mesh: the tile and generation of a slot, and the slots of
/// the tiles in a cell.
pub(crate) trait SlotView {
    fn occupant(&self, slot: SlotIndex) -> Option<(Generation, &NavTile)>;
    fn cell(&self, column: i32, row: i32) -> &[(u32, SlotIndex)];
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

/// A landing: the ground polygon an off-mesh link end lands on.
pub(crate) type Landing = (SlotIndex, PolyIndex);

/// Both landings of every off-mesh link of a tile, `None` where either is missing (K10).
pub(crate) type Landings = Vec<Option<(Landing, Landing)>>;

/// The landings of the tile in `slot`: a pure function of the tiles in its 3 × 3 cells, so
/// stitching computes them once per tile (first phase) and every tile around reads them
/// (second phase) instead of searching again.
pub(crate) fn tile_landings(view: &dyn SlotView, slot: SlotIndex) -> Landings {
    let Some((_, tile)) = view.occupant(slot) else {
        return Vec::new();
    };
    (0..tile.off_mesh_links().len())
        .map(|li| link_landings(view, slot, tile, li))
        .collect()
}

/// The ground polygon nearest to `p` among the tiles of `cells` (`spec/navmesh-format.md` §6.3):
/// x–z distance to the polygon ≤ radius and height difference ≤ climb; the smallest squared
/// x–z distance, then the smallest height difference, then the lowest slot and polygon.
fn land(
    view: &dyn SlotView,
    cells: &[(i32, i32)],
    p: &Vec3,
    radius: f64,
    climb: f64,
) -> Option<Landing> {
    let r2 = radius * radius;
    let mut best: Option<(f64, f64, SlotIndex, PolyIndex)> = None;
    let mut corners = Vec::with_capacity(6);
    for &(c, r) in cells {
        for &(_, slot) in view.cell(c, r) {
            let Some((_, tile)) = view.occupant(slot) else {
                continue;
            };
            for (i, poly) in tile.ground_polys().iter().enumerate() {
                corners.clear();
                corners.extend(poly.verts().iter().map(|&v| tile.vertices()[v as usize]));
                let (q, _) = closest_point_on_poly_xz(p, &corners);
                let d2 = dist2_xz(p, &q);
                // Written so that a NaN (only possible at extreme coordinates) is rejected too.
                if d2.is_nan() || d2 > r2 {
                    continue;
                }
                // A farther polygon cannot win whatever its height: skipping it before the
                // height look-up changes nothing (K16) and saves most of the work.
                if best.is_some_and(|b| d2 > b.0) {
                    continue;
                }
                let Some(h) = tile.poly_height(PolyIndex(i as u32), &q) else {
                    continue;
                };
                let dy = (h - p[1]).abs();
                if dy.is_nan() || dy > climb {
                    continue;
                }
                let cand = (d2, dy, slot, PolyIndex(i as u32));
                let better = match best {
                    None => true,
                    Some(b) => {
                        (cand.0, cand.1) < (b.0, b.1)
                            || ((cand.0, cand.1) == (b.0, b.1) && (cand.2, cand.3) < (b.2, b.3))
                    }
                };
                if better {
                    best = Some(cand);
                }
            }
        }
    }
    best.map(|b| (b.2, b.3))
}

/// Both landings of link `link` of the tile in `slot`, if both exist.
fn link_landings(
    view: &dyn SlotView,
    slot: SlotIndex,
    tile: &NavTile,
    link: usize,
) -> Option<(Landing, Landing)> {
    let l = &tile.off_mesh_links()[link];
    let climb = tile.agent().climb;
    let pos = tile.pos();
    // The start lands in the link's own tile only.
    let start = land(
        &OnlySlot { view, slot },
        &[(pos.column, pos.row)],
        &l.start,
        l.radius,
        climb,
    )?;
    let cells: Vec<(i32, i32)> = end_cells(tile, &l.end).collect();
    let end = land(view, &cells, &l.end, l.radius, climb)?;
    Some((start, end))
}

/// The cells of `tile`'s neighbourhood whose closed bounds contain `end` (K9), in neighbourhood
/// order. A NaN coordinate is in no cell.
fn end_cells<'a>(tile: &'a NavTile, end: &'a Vec3) -> impl Iterator<Item = (i32, i32)> + 'a {
    let pos = tile.pos();
    let grid = tile.grid();
    neighbourhood(pos.column, pos.row).filter(move |&(c, r)| {
        let b = grid.cell_bounds(c, r);
        b[0] <= end[0] && end[0] <= b[2] && b[1] <= end[2] && end[2] <= b[3]
    })
}

/// The landing weight of a tile (K17): its detail triangle count, the sum over its ground polygons
/// of the triangles a landing search may walk for a height (K11); at least its polygon count.
pub(crate) fn landing_weight(tile: &NavTile) -> u64 {
    tile.detail_triangles().len() as u64
}

/// The landing work of `tile` (`spec/navmesh-format.md` K17): for each of its off-mesh links, the
/// landing weight the landing search (K7) visits for its start — the tile's own — plus for its
/// end — that of every tile in the end's cells (K9) — whether or not the start lands.
/// `cell_weight(column, row)` is the landing weight of all tiles of a cell, this tile included.
/// Geometry-free but for the end points' cells, so every port counts the same.
pub(crate) fn landing_work(tile: &NavTile, cell_weight: &dyn Fn(i32, i32) -> u64) -> u64 {
    let own = landing_weight(tile);
    tile.off_mesh_links()
        .iter()
        .map(|l| {
            own + end_cells(tile, &l.end)
                .map(|(c, r)| cell_weight(c, r))
                .sum::<u64>()
        })
        .sum()
}

/// The landing weight of each cell holding one of `tiles` (look-up only; no output depends on
/// the map's order).
pub(crate) fn weight_per_cell<'a>(
    tiles: impl IntoIterator<Item = &'a NavTile>,
) -> HashMap<(i32, i32), u64> {
    let mut cells = HashMap::new();
    for t in tiles {
        let p = t.pos();
        *cells.entry((p.column, p.row)).or_insert(0) += landing_weight(t);
    }
    cells
}

/// K17 over a set of tiles, in the order given: the first whose landing work under `cells`
/// exceeds its budget, with that work and budget.
pub(crate) fn first_over_budget<'a, K>(
    tiles: impl IntoIterator<Item = (K, &'a NavTile)>,
    cells: &HashMap<(i32, i32), u64>,
) -> Option<(K, u64, u64)> {
    let weight = |c: i32, r: i32| cells.get(&(c, r)).copied().unwrap_or(0);
    tiles.into_iter().find_map(|(k, t)| {
        if t.link_count() == 0 {
            return None;
        }
        let (work, budget) = (landing_work(t, &weight), landing_budget(t));
        (work > budget).then_some((k, work, budget))
    })
}

/// The most landing work a tile may have (K17): `LANDING_WORK_PER_POLYGON` times its polygon
/// count.
pub(crate) fn landing_budget(tile: &NavTile) -> u64 {
    crate::limits::LANDING_WORK_PER_POLYGON * u64::from(tile.poly_count())
}

/// A view restricted to one slot (the start landing searches the link's own tile only).
struct OnlySlot<'a> {
    view: &'a dyn SlotView,
    slot: SlotIndex,
}

impl SlotView for OnlySlot<'_> {
    fn occupant(&self, slot: SlotIndex) -> Option<(Generation, &NavTile)> {
        (slot == self.slot)
            .then(|| self.view.occupant(slot))
            .flatten()
    }
    fn landings(&self, _: SlotIndex) -> Option<&[Option<(Landing, Landing)>]> {
        None
    }
    fn cell(&self, column: i32, row: i32) -> &[(u32, SlotIndex)] {
        let all = self.view.cell(column, row);
        match all.iter().position(|&(_, s)| s == self.slot) {
            Some(i) => &all[i..=i],
            None => &[],
        }
    }
}

fn poly_ref(view: &dyn SlotView, (slot, poly): Landing) -> PolyRef {
    let (g, _) = view.occupant(slot).expect("landing slot is occupied");
    PolyRef::new(g, slot, poly)
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
        for &(_, other) in view.cell(c, r) {
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
    let mine = &tile.data().portals[usize::from(side.code())];
    if mine.is_empty() {
        return;
    }
    let (dc, dr) = side.step();
    let (Some(nc), Some(nr)) = (pos.column.checked_add(dc), pos.row.checked_add(dr)) else {
        return;
    };
    let u = if side.along_z() { 2 } else { 0 };
    for &(_, other) in view.cell(nc, nr) {
        let Some((og, ot)) = view.occupant(other) else {
            continue;
        };
        let theirs = &ot.data().portals[usize::from(side.opposite().code())];
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

/// Cells to slots: for each occupied cell, its tiles ordered by layer. Only ever looked up by
/// key, never iterated, so its order cannot reach an output (DESIGN §8).
pub(crate) type CellIndex = std::collections::HashMap<(i32, i32), Vec<(u32, SlotIndex)>>;
