//! The compact heightfield (`spec/build3d.md` §7): the walkable spans of a filtered heightfield
//! as open spaces with their neighbour links. This is the per-tile intermediate the tile cache
//! keeps (everything after it can be redone from it with other area marks).
//!
//! A walkable span gives an open span with floor `y = smax` and ceiling `top` = the `smin` of the
//! next span up (or open). Open span i links to a span j of the neighbour column in direction d
//! (0 +x, 1 +z, 2 −x, 3 −z) when `min(top_i, top_j) − max(y_i, y_j) ≥ walkable_height` and
//! `|y_j − y_i| ≤ walkable_climb`; the lowest such j is the link.
//!
//! Limits: L10 (spans per column).

use std::sync::Arc;

use crate::error::{check, BuildError, LimitKind, TileCell};
use crate::rasterize::{column_starts, Heightfield, Occupied, Window};

/// No link in that direction.
pub(crate) const NO_LINK: u16 = u16::MAX;
/// No neighbour in a [`Compact::neighbour_table`].
pub(crate) const NO_SPAN: u32 = u32::MAX;
/// The ceiling of a span with nothing above it.
pub(crate) const OPEN_TOP: u32 = u32::MAX;

/// Open spans per column with their links. Every array but the areas is shared (`Arc`): a
/// rebuild with other areas ([`Compact::with_area`]) copies no span data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Compact {
    pub win: Window,
    /// A rectangle holding every non-empty column.
    pub occ: Occupied,
    /// Column c holds spans `start[c] .. start[c + 1]`.
    pub start: Arc<[u32]>,
    /// Floor of each span (cells).
    pub y: Arc<[u32]>,
    /// Ceiling of each span (cells), [`OPEN_TOP`] when open.
    pub top: Arc<[u32]>,
    /// Area id, 0 = unwalkable (set by marks or erosion).
    pub area: Vec<u8>,
    /// Per direction, the index of the linked span within the neighbour column, or [`NO_LINK`].
    pub link: Arc<[[u16; 4]]>,
    /// The column of each span.
    pub col: Arc<[u32]>,
}

impl Compact {
    #[inline]
    pub(crate) fn column(&self, c: usize) -> std::ops::Range<usize> {
        self.start[c] as usize..self.start[c + 1] as usize
    }

    /// The span linked to span `i` in direction `d`, as a global span index. (A link exists only
    /// towards a column inside the window, so no bounds check is needed.)
    #[inline]
    pub(crate) fn neighbour(&self, i: usize, d: usize) -> Option<usize> {
        let l = self.link[i][d];
        if l == NO_LINK {
            return None;
        }
        // A link exists only to a column inside the window, so the offset stays in range.
        let (col, size) = (self.col[i] as usize, self.win.size);
        let nc = match d {
            0 => col + 1,
            1 => col + size,
            2 => col - 1,
            _ => col - size,
        };
        Some(self.start[nc] as usize + usize::from(l))
    }

    /// Every span's four neighbours ([`Compact::neighbour`]) as global indices, [`NO_SPAN`]
    /// where there is no link: for the stages that read each link many times.
    pub(crate) fn neighbour_table(&self) -> Vec<[u32; 4]> {
        let size = self.win.size;
        // The column offsets of +x, +z, −x, −z (wrapping: a link exists only to a column inside
        // the window, so the sum stays in range).
        let step = [1, size, 1usize.wrapping_neg(), size.wrapping_neg()];
        self.link
            .iter()
            .zip(&self.col[..])
            .map(|(l, &col)| {
                let mut out = [NO_SPAN; 4];
                for d in 0..4 {
                    if l[d] != NO_LINK {
                        let nc = (col as usize).wrapping_add(step[d]);
                        out[d] = self.start[nc] + u32::from(l[d]);
                    }
                }
                out
            })
            .collect()
    }

    /// Per span, bit d (0 … 3) set when its link in direction d is plain: the neighbour column
    /// holds exactly one span, `nb[i][d]`, and that span links back. Such a column adds no
    /// flatness conflict to the span's region (§10), whatever the areas, so a tile cache keeps
    /// this with the neighbour table `nb` across rebuilds.
    pub(crate) fn plain_links(&self, nb: &[[u32; 4]]) -> Vec<u8> {
        let step = [
            1,
            self.win.size,
            1usize.wrapping_neg(),
            self.win.size.wrapping_neg(),
        ];
        nb.iter()
            .zip(&self.col[..])
            .enumerate()
            .map(|(i, (to, &col))| {
                let mut m = 0u8;
                for d in 0..4 {
                    let j = to[d];
                    if j != NO_SPAN
                        && nb[j as usize][(d + 2) & 3] == i as u32
                        && self.column((col as usize).wrapping_add(step[d])).len() == 1
                    {
                        m |= 1 << d;
                    }
                }
                m
            })
            .collect()
    }

    /// The column next to `c` in direction `d`, if inside the window.
    #[cfg(test)]
    pub(crate) fn neighbour_column(&self, c: usize, d: usize) -> Option<usize> {
        let size = self.win.size;
        let (x, z) = ((c % size) as i64, (c / size) as i64);
        let (nx, nz) = (x + crate::filter::DIRS[d].0, z + crate::filter::DIRS[d].1);
        if nx < 0 || nz < 0 || nx >= size as i64 || nz >= size as i64 {
            None
        } else {
            Some(nz as usize * size + nx as usize)
        }
    }

    /// A copy with the areas `area` (one per span), sharing every other array.
    pub(crate) fn with_area(&self, area: Vec<u8>) -> Compact {
        debug_assert_eq!(area.len(), self.span_count());
        Compact {
            win: self.win,
            occ: self.occ,
            start: Arc::clone(&self.start),
            y: Arc::clone(&self.y),
            top: Arc::clone(&self.top),
            area,
            link: Arc::clone(&self.link),
            col: Arc::clone(&self.col),
        }
    }

    pub(crate) fn span_count(&self) -> usize {
        self.y.len()
    }

    /// Bytes of the arrays (their lengths, not capacities).
    pub(crate) fn heap_bytes(&self) -> usize {
        use std::mem::size_of_val;
        size_of_val(&self.start[..])
            + size_of_val(&self.y[..])
            + size_of_val(&self.top[..])
            + size_of_val(&self.area[..])
            + size_of_val(&self.link[..])
            + size_of_val(&self.col[..])
    }
}

/// Builds the compact heightfield of a filtered heightfield (§7).
pub(crate) fn compact(
    hf: &Heightfield,
    walkable_height: u32,
    walkable_climb: u32,
    cell: TileCell,
    max_per_column: u64,
) -> Result<Compact, BuildError> {
    let (mut y, mut top, mut area, mut colv) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let start = column_starts(hf.win.size, hf.occ, |col| {
        let range = hf.column(col);
        let mut n = 0u64;
        for i in range.clone() {
            let s = hf.spans[i];
            if s.area == 0 {
                continue;
            }
            n += 1;
            y.push(s.smax);
            top.push(if i + 1 < range.end {
                hf.spans[i + 1].smin
            } else {
                OPEN_TOP
            });
            area.push(s.area);
            colv.push(col as u32);
        }
        check(
            Some(cell),
            None,
            LimitKind::SpansPerColumn,
            n,
            max_per_column,
        )?;
        Ok(y.len() as u32)
    })?;
    let mut c = Compact {
        win: hf.win,
        occ: hf.occ,
        start: start.into(),
        y: y.into(),
        top: top.into(),
        area,
        link: Arc::from([]),
        col: colv.into(),
    };
    let (h, climb) = (i64::from(walkable_height), i64::from(walkable_climb));
    let mut link = vec![[NO_LINK; 4]; c.span_count()];
    let size = c.win.size;
    for col in c.occ.cols(size) {
        let (x, z) = (col % size, col / size);
        let neighbours = [
            (x + 1 < size).then(|| col + 1),
            (z + 1 < size).then(|| col + size),
            (x > 0).then(|| col - 1),
            (z > 0).then(|| col - size),
        ];
        for i in c.column(col) {
            let (yi, ti) = (i64::from(c.y[i]), i64::from(c.top[i]));
            for (l, nc) in link[i].iter_mut().zip(neighbours) {
                let Some(nc) = nc else { continue };
                let nrange = c.column(nc);
                for j in nrange.clone() {
                    let (yj, tj) = (i64::from(c.y[j]), i64::from(c.top[j]));
                    if ti.min(tj) - yi.max(yj) >= h && (yj - yi).abs() <= climb {
                        *l = (j - nrange.start) as u16;
                        break;
                    }
                }
            }
        }
    }
    c.link = link.into();
    Ok(c)
}

#[cfg(test)]
mod tests {
    //! `spec/build3d.md` B23, B24.
    use super::*;
    use crate::test_kit::{heightfield, CELL};

    #[test]
    fn links_take_the_lowest_reachable_span() {
        // Column 0: floor 4. Column 1: floors 5 and 20 (both reachable by headroom), 4 climb 1.
        let hf = heightfield(2, 0, &[(0, 0, 0, 4, 1), (1, 0, 0, 5, 1), (1, 0, 16, 20, 1)]);
        let c = compact(&hf, 3, 1, CELL, u64::MAX).unwrap();
        assert_eq!(c.top[1], 16);
        assert_eq!(c.neighbour(0, 0), Some(1));
        assert_eq!(c.neighbour(1, 2), Some(0));
        assert_eq!(c.neighbour(2, 2), None, "too high to climb");
        // Not enough headroom between floor 5 and the span above at 7.
        let hf = heightfield(2, 0, &[(0, 0, 0, 4, 1), (1, 0, 0, 5, 1), (1, 0, 7, 9, 1)]);
        let c = compact(&hf, 3, 1, CELL, u64::MAX).unwrap();
        assert_eq!(c.neighbour(0, 0), None);
        // Unwalkable spans are left out.
        let hf = heightfield(1, 0, &[(0, 0, 0, 4, 0), (0, 0, 10, 12, 2)]);
        let c = compact(&hf, 3, 1, CELL, u64::MAX).unwrap();
        assert_eq!((c.y.to_vec(), c.area.clone()), (vec![12], vec![2]));
    }
}
