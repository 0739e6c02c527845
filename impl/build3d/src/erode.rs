//! Erosion by the agent radius (`spec/build3d.md` §9): a chamfer distance (2 per straight step,
//! 3 per diagonal step, in half-cells) from the edge of the walkable area, and every span closer
//! than `2 · walkable_radius` becomes unwalkable.
//!
//! A span is at distance 0 when it is unwalkable or when fewer than four of its links lead to
//! walkable spans. Two passes follow, in this order: rows ascending, columns ascending, spans
//! bottom-up, relaxing from the −x neighbour (+2), its −z neighbour (+3), the −z neighbour (+2)
//! and its +x neighbour (+3); then rows descending, columns descending, spans bottom-up, from
//! the +x neighbour (+2), its +z neighbour (+3), the +z neighbour (+2) and its −x neighbour (+3).
//! Distances saturate at 65 535.

use crate::compact::{Compact, NO_SPAN as NONE};
use crate::rasterize::Occupied;

/// Direction codes: 0 +x, 1 +z, 2 −x, 3 −z.
const PX: usize = 0;
const PZ: usize = 1;
const NX: usize = 2;
const NZ: usize = 3;

/// Erodes the walkable area of `c` by `radius` cells (§9); radius 0 leaves it unchanged.
#[cfg(test)]
pub(crate) fn erode(c: &mut Compact, radius: u32) {
    let nb = c.neighbour_table();
    let mut area = std::mem::take(&mut c.area);
    erode_areas(c, &nb, &mut area, radius);
    c.area = area;
}

/// Erodes `area` (one per span of `c`, read instead of `c.area`) by `radius` cells (§9), with
/// `nb` the [`Compact::neighbour_table`] of `c`; radius 0 leaves it unchanged.
pub(crate) fn erode_areas(c: &Compact, nb: &[[u32; 4]], area: &mut [u8], radius: u32) {
    if radius == 0 {
        return;
    }
    let mut dist = vec![u16::MAX; c.span_count()];
    distances(c, nb, area, c.occ, &mut dist);
    let threshold = threshold(radius);
    for (a, &d) in area.iter_mut().zip(&dist) {
        if d < threshold {
            *a = 0;
        }
    }
}

/// Spans closer than this (half-cells) to the edge become unwalkable.
fn threshold(radius: u32) -> u16 {
    (2 * radius).min(u32::from(u16::MAX)) as u16
}

/// Erosion of `area` by `radius` when the same spans eroded with the areas `base` gave `eroded`
/// (`base` eroded by [`erode_areas`]), and `area` differs from `base` only in the columns of
/// `changed` and never makes a span of area 0 in `base` walkable. The result equals
/// [`erode_areas`] of `area`, computed over `changed` widened by `radius + 1` columns only:
///
/// - the distance of §9 is the least weight of a path from a distance-0 span through a chain of
///   relaxations (first pass, then second), and the new areas only add distance-0 spans (a
///   span whose area or one of whose links changed: within one column of `changed`), so a
///   span is eroded now exactly when it was eroded before or some path from an added span
///   weighs less than `2 · radius`;
/// - every step of a path weighs at least 2, so such a path has fewer than `radius` steps of
///   at most one column each and stays inside the widened rectangle, where the two passes
///   restricted to it (same order, spans outside at 65 535) find it; a path they find is a path
///   of the whole window, so they erode nothing the whole-window passes would not.
pub(crate) fn erode_changed(
    c: &Compact,
    nb: &[[u32; 4]],
    area: &mut [u8],
    eroded: &[u8],
    changed: Occupied,
    radius: u32,
) {
    if radius == 0 {
        return;
    }
    let grow = radius as usize + 1;
    let o = c.occ;
    let bx = Occupied {
        x0: changed.x0.saturating_sub(grow).max(o.x0),
        z0: changed.z0.saturating_sub(grow).max(o.z0),
        x1: changed.x1.saturating_add(grow).min(o.x1),
        z1: changed.z1.saturating_add(grow).min(o.z1),
    };
    let mut dist = vec![u16::MAX; c.span_count()];
    if bx.x0 < bx.x1 && bx.z0 < bx.z1 {
        distances(c, nb, area, bx, &mut dist);
    }
    let threshold = threshold(radius);
    for ((a, &d), &e) in area.iter_mut().zip(&dist).zip(eroded) {
        if e == 0 || d < threshold {
            *a = 0;
        }
    }
}

/// The distances of §9 over the columns of `bx` (inside `c.occ`): its distance-0 spans, then
/// the two passes over its columns. `dist` holds 65 535 for every span on entry; spans outside
/// `bx` keep it.
fn distances(c: &Compact, nb: &[[u32; 4]], area: &[u8], bx: Occupied, dist: &mut [u16]) {
    let size = c.win.size;
    for col in bx.cols(size) {
        for i in c.column(col) {
            if area[i] == 0 || !nb[i].iter().all(|&j| j != NONE && area[j as usize] != 0) {
                dist[i] = 0;
            }
        }
    }
    relax(c, nb, dist, bx.cols(size), [(NX, NZ), (NZ, PX)]);
    relax(c, nb, dist, bx.cols(size).rev(), [(PX, PZ), (PZ, NX)]);
}

/// One pass of §9: for the columns in `order`, each span bottom-up, relaxes from each
/// (straight, diagonal) pair: the straight link (+2) and that span's diagonal link (+3).
fn relax(
    c: &Compact,
    nb: &[[u32; 4]],
    dist: &mut [u16],
    order: impl Iterator<Item = usize>,
    pairs: [(usize, usize); 2],
) {
    for col in order {
        for i in c.column(col) {
            let mut d = dist[i];
            for (straight, diag) in pairs {
                let a = nb[i][straight];
                if a != NONE {
                    d = d.min(dist[a as usize].saturating_add(2));
                    let b = nb[a as usize][diag];
                    if b != NONE {
                        d = d.min(dist[b as usize].saturating_add(3));
                    }
                }
            }
            dist[i] = d;
        }
    }
}

#[cfg(test)]
mod tests {
    //! `spec/build3d.md` B27.
    use super::*;
    use crate::test_kit::compact_of;

    fn walkable(c: &Compact) -> usize {
        c.area.iter().filter(|&&a| a != 0).count()
    }

    #[test]
    fn radius_strips_rings() {
        let field = |_: usize, _: usize| vec![(5, 1)];
        let mut c = compact_of(10, 0, field);
        erode(&mut c, 0);
        assert_eq!(walkable(&c), 100);
        erode(&mut c, 1);
        assert_eq!(walkable(&c), 64);
        let mut c = compact_of(10, 0, field);
        erode(&mut c, 2);
        assert_eq!(walkable(&c), 36);
        // A missing column inside: its four neighbours lose a link and go; its diagonal
        // neighbours are 2 away and stay.
        let mut c = compact_of(10, 0, |x, z| {
            if x == 5 && z == 5 {
                vec![]
            } else {
                vec![(5, 1)]
            }
        });
        erode(&mut c, 1);
        assert_eq!(walkable(&c), 100 - 1 - 36 - 4);
    }
}
