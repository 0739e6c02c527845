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

/// Direction codes: 0 +x, 1 +z, 2 −x, 3 −z.
const PX: usize = 0;
const PZ: usize = 1;
const NX: usize = 2;
const NZ: usize = 3;

/// Erodes the walkable area of `c` by `radius` cells (§9); radius 0 leaves it unchanged.
pub(crate) fn erode(c: &mut Compact, radius: u32) {
    if radius == 0 {
        return;
    }
    let n = c.span_count();
    // Every span's four neighbours, found once: the passes below read each several times.
    let nb = c.neighbour_table();
    let mut dist = vec![u16::MAX; n];
    for (i, d) in dist.iter_mut().enumerate() {
        if c.area[i] == 0 {
            *d = 0;
            continue;
        }
        let all_walkable = nb[i].iter().all(|&j| j != NONE && c.area[j as usize] != 0);
        if !all_walkable {
            *d = 0;
        }
    }
    let size = c.win.size;
    relax(c, &nb, &mut dist, c.occ.cols(size), [(NX, NZ), (NZ, PX)]);
    relax(
        c,
        &nb,
        &mut dist,
        c.occ.cols(size).rev(),
        [(PX, PZ), (PZ, NX)],
    );
    let threshold = (2 * radius).min(u32::from(u16::MAX)) as u16;
    for (i, &d) in dist.iter().enumerate() {
        if d < threshold {
            c.area[i] = 0;
        }
    }
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
