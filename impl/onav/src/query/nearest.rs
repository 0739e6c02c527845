//! `find_nearest_poly` (`spec/queries.md` §3).

use super::geom::dist2_3;
use super::{finite, InvalidInput, NavMeshQuery, QueryError, QueryFilter};
use crate::geom::{closest_point_on_poly_xz, dist2_xz, Vec3};
use crate::ids::{PolyIndex, PolyRef, TileRef};
use crate::tile::NavTile;

/// The answer of [`NavMeshQuery::find_nearest_poly`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NearestPoly {
    /// The nearest polygon.
    pub poly: PolyRef,
    /// The nearest point on it: x–z from the polygon's closest point, y from its detail mesh.
    pub point: Vec3,
    /// True when the centre lies over the polygon on x–z (the point is straight below or above).
    pub over_poly: bool,
}

impl NavMeshQuery<'_> {
    /// The ground polygon passing `filter` nearest to `center` among those whose bounds overlap
    /// the box `center ± half_extents` (`spec/queries.md` §3). `Ok(None)` when no polygon does.
    ///
    /// Score (Q2): a polygon the centre lies over scores `(dy − climb)²` for the height `dy`
    /// between the centre and the surface beyond its tile's walkable climb, 0 within it (as an
    /// agent stands on a floor); any other polygon, the squared 3D distance to its closest point
    /// lifted to the detail height. The least (score, dy, `PolyRef`) wins (Q3).
    pub fn find_nearest_poly(
        &self,
        center: Vec3,
        half_extents: Vec3,
        filter: &QueryFilter,
    ) -> Result<Option<NearestPoly>, QueryError> {
        finite(&center, "center")?;
        finite(&half_extents, "half_extents")?;
        if half_extents.iter().any(|&h| h < 0.0) {
            return Err(InvalidInput::NegativeExtent.into());
        }
        let bmin = [
            center[0] - half_extents[0],
            center[1] - half_extents[1],
            center[2] - half_extents[2],
        ];
        let bmax = [
            center[0] + half_extents[0],
            center[1] + half_extents[1],
            center[2] + half_extents[2],
        ];
        let mut best = Best::default();
        let mut visit = |r: TileRef, tile: &NavTile| {
            let climb = tile.agent().climb;
            tile.query_index().overlapping(&bmin, &bmax, |i| {
                if !tile
                    .flags(PolyIndex(i))
                    .is_some_and(|f| filter.passes_flags(f))
                {
                    return;
                }
                let poly = &tile.ground_polys()[i as usize];
                let mut corners = [[0.0; 3]; 6];
                let n = poly.verts().len();
                for (c, &v) in corners.iter_mut().zip(poly.verts()) {
                    *c = tile.vertices()[v as usize];
                }
                let (q, edge) = closest_point_on_poly_xz(&center, &corners[..n]);
                let over = edge.is_none();
                // A candidate the centre is not over scores its squared 3D distance, which is at
                // least its squared x–z distance (rounding is monotone): when that is already
                // above the best score it cannot win, not even a tie, and needs no height.
                if !over && best.beats(dist2_xz(&center, &q)) {
                    return;
                }
                let index = PolyIndex(i);
                let Some(h) = tile.poly_height(index, &q) else {
                    return;
                };
                best.offer(&center, r.poly(index), [q[0], h, q[2]], over, climb);
            });
        };
        // Candidate cells: those overlapping the box (a polygon lies in its cell, rules T8 and
        // T17), found among the cells under the box widened by one cell each way; when those
        // outnumber the tiles, every tile instead. Either way the polygon bounds decide, so the
        // result does not depend on the enumeration.
        let grid = self.mesh.params().grid();
        let (o, size) = (grid.origin(), grid.tile_size());
        let (c0, c1) = (cell(bmin[0], o[0], size) - 1, cell(bmax[0], o[0], size) + 1);
        let (r0, r1) = (cell(bmin[2], o[2], size) - 1, cell(bmax[2], o[2], size) + 1);
        let cells = (c1 - c0 + 1) as u128 * (r1 - r0 + 1) as u128;
        if cells > self.mesh.tile_count() as u128 {
            for (r, t) in self.mesh.tiles() {
                visit(r, t);
            }
        } else {
            // The columns whose x range meets [bmin.x, bmax.x], and the rows likewise in z (cell
            // bounds are monotone in the index, so these are ranges).
            let (Some((c0, c1)), Some((r0, r1))) = (
                overlapping(c0, c1, bmin[0], bmax[0], |c| grid.cell_bounds(c, 0), 0),
                overlapping(r0, r1, bmin[2], bmax[2], |r| grid.cell_bounds(0, r), 1),
            ) else {
                return Ok(None);
            };
            for row in r0..=r1 {
                for column in c0..=c1 {
                    for (r, t) in self.mesh.tiles_in_cell(column, row) {
                        visit(r, t);
                    }
                }
            }
        }
        Ok(best.0.map(|(_, _, b)| b))
    }
}

/// The cell index of coordinate `v` along an axis with origin `o` and cell size `size`:
/// `floor((v − o)/size)` clamped to the i32 range (without a call to `floor`).
#[inline]
fn cell(v: f64, o: f64, size: f64) -> i64 {
    let x = (v - o) / size;
    // `as` truncates towards zero and saturates; one step down for a negative fraction.
    let t = x as i64;
    let f = if (t as f64) > x {
        t.saturating_sub(1)
    } else {
        t
    };
    f.clamp(i64::from(i32::MIN), i64::from(i32::MAX))
}

/// The indices in `lo ..= hi` that are cells (i32) whose range along axis `axis` (0 for x with
/// `bounds(c)[0] ..= bounds(c)[2]`, 1 for z with `[1] ..= [3]`) meets `[a, b]`, as a range.
#[inline]
fn overlapping(
    lo: i64,
    hi: i64,
    a: f64,
    b: f64,
    bounds: impl Fn(i32) -> [f64; 4],
    axis: usize,
) -> Option<(i32, i32)> {
    let meets = |c: i32| {
        let cb = bounds(c);
        !(cb[axis] > b || cb[axis + 2] < a)
    };
    let lo = i32::try_from(lo.max(i64::from(i32::MIN))).ok()?;
    let hi = i32::try_from(hi.min(i64::from(i32::MAX))).ok()?;
    let mut first = lo;
    while first <= hi && !meets(first) {
        first = first.checked_add(1)?;
    }
    let mut last = hi;
    while last >= first && !meets(last) {
        last = last.checked_sub(1)?;
    }
    (first <= last).then_some((first, last))
}

/// The best candidate so far with its score d and height difference dy (`spec/queries.md` Q2).
#[derive(Default)]
struct Best(Option<(f64, f64, NearestPoly)>);

impl Best {
    /// True when every candidate scoring at least `d` loses: the best so far scores less.
    #[inline]
    fn beats(&self, d: f64) -> bool {
        self.0.as_ref().is_some_and(|(bd, _, _)| d > *bd)
    }

    /// Scores candidate `poly` with nearest point `point` (Q2) and keeps it when it is better
    /// (Q3): the least (d, dy, reference).
    #[inline]
    fn offer(&mut self, center: &Vec3, poly: PolyRef, point: Vec3, over_poly: bool, climb: f64) {
        let dy = (center[1] - point[1]).abs();
        let d = if over_poly {
            let e = dy - climb;
            if e > 0.0 {
                e * e
            } else {
                0.0
            }
        } else {
            dist2_3(center, &point)
        };
        let better = match &self.0 {
            None => true,
            Some((bd, bdy, b)) => (d, dy, poly) < (*bd, *bdy, b.poly),
        };
        if better {
            self.0 = Some((
                d,
                dy,
                NearestPoly {
                    poly,
                    point,
                    over_poly,
                },
            ));
        }
    }
}
