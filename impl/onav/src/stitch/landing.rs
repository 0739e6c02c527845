//! Off-mesh link landings (`spec/navmesh-format.md` §6.3) and the landing budget (§6.8, rule
//! K17): where each end of a link lands, and the work a landing search may do for a tile.

use super::{neighbourhood, CellEntry, SlotView};
use crate::geom::{closest_point_on_poly_xz, dist2_xz, Vec3};
use crate::ids::{Generation, PolyIndex, PolyRef, SlotIndex};
use crate::limits::LANDING_WORK_PER_POLYGON;
use crate::tile::NavTile;

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
        for &CellEntry { slot, .. } in view.cell(c, r) {
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

/// Whether an off-mesh link of `tile` ending at `end` can land in cell (column, row): the cell is
/// one of K9's for that end.
pub(crate) fn end_lands_in(tile: &NavTile, end: &Vec3, column: i32, row: i32) -> bool {
    end_cells(tile, end).any(|c| c == (column, row))
}

/// The landing weight of a tile (K17): its detail triangle count, the sum over its ground polygons
/// of the triangles a landing search may walk for a height (K11); at least its ground polygon
/// count (each ground polygon has a triangle, rule T16; link polygons have none).
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

/// The landing weight of each cell that holds a tile (K17), looked up by cell.
#[allow(clippy::disallowed_types)] // Lookup only: never iterated, so its order reaches nothing.
pub(crate) struct CellWeights(std::collections::HashMap<(i32, i32), u64>);

impl CellWeights {
    /// The landing weight of all of `tiles` in each cell.
    pub(crate) fn get(&self, column: i32, row: i32) -> u64 {
        self.0.get(&(column, row)).copied().unwrap_or(0)
    }
}

/// The landing weight of each cell holding one of `tiles`.
pub(crate) fn weight_per_cell<'a>(tiles: impl IntoIterator<Item = &'a NavTile>) -> CellWeights {
    let mut cells = CellWeights(Default::default());
    for t in tiles {
        let p = t.pos();
        *cells.0.entry((p.column, p.row)).or_insert(0) += landing_weight(t);
    }
    cells
}

/// K17 over a set of tiles, in the order given: the first whose landing work under `cells`
/// exceeds its budget, with that work and budget.
pub(crate) fn first_over_budget<'a, K>(
    tiles: impl IntoIterator<Item = (K, &'a NavTile)>,
    cells: &CellWeights,
) -> Option<(K, u64, u64)> {
    let weight = |c: i32, r: i32| cells.get(c, r);
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
    LANDING_WORK_PER_POLYGON * u64::from(tile.poly_count())
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
    fn cell(&self, column: i32, row: i32) -> &[CellEntry] {
        let all = self.view.cell(column, row);
        match all.iter().position(|e| e.slot == self.slot) {
            Some(i) => &all[i..=i],
            None => &[],
        }
    }
}

pub(super) fn poly_ref(view: &dyn SlotView, (slot, poly): Landing) -> PolyRef {
    let (g, _) = view.occupant(slot).expect("landing slot is occupied");
    PolyRef::new(g, slot, poly)
}
