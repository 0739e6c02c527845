//! Helpers for the crate's unit tests (not part of the API).

use crate::compact::{compact, Compact};
use crate::error::TileCell;
use crate::geometry::Geometry;
use crate::rasterize::{Heightfield, Span, Window};

pub(crate) const CELL: TileCell = TileCell { column: 0, row: 0 };

/// A heightfield of side `size` (border `border`) from one span list per column, given as
/// (x, z, smin, smax, area).
pub(crate) fn heightfield(
    size: usize,
    border: usize,
    spans: &[(usize, usize, u32, u32, u8)],
) -> Heightfield {
    let mut cols: Vec<Vec<Span>> = vec![Vec::new(); size * size];
    for &(x, z, smin, smax, area) in spans {
        cols[z * size + x].push(Span { smin, smax, area });
    }
    let mut start = Vec::new();
    let mut all = Vec::new();
    for c in &mut cols {
        c.sort_by_key(|s| s.smin);
        start.push(all.len() as u32);
        all.extend_from_slice(c);
    }
    start.push(all.len() as u32);
    let occ = crate::rasterize::Occupied {
        x0: 0,
        z0: 0,
        x1: size,
        z1: size,
    };
    Heightfield {
        occ,
        win: Window {
            x0: -(border as i64),
            z0: -(border as i64),
            size,
            border,
        },
        start,
        spans: all,
    }
}

/// A compact heightfield whose column (x, z) holds the floors `floors(x, z)` (each with a
/// one-cell-thick solid under it), walkable height 4, climb 1.
pub(crate) fn compact_of(
    size: usize,
    border: usize,
    floors: impl Fn(usize, usize) -> Vec<(u32, u8)>,
) -> Compact {
    let mut spans = Vec::new();
    for z in 0..size {
        for x in 0..size {
            for (y, area) in floors(x, z) {
                spans.push((x, z, y - 1, y, area));
            }
        }
    }
    compact(&heightfield(size, border, &spans), 4, 1, CELL, u64::MAX).expect("compact")
}

/// Two upward triangles covering [x0, x1] × [z0, z1] at height y, as arrays.
pub(crate) fn floor_arrays(rects: &[[f64; 5]]) -> Geometry {
    let mut v = Vec::new();
    for r in rects {
        let [x0, z0, x1, z1, y] = *r;
        v.extend_from_slice(&[
            x0, y, z0, x0, y, z1, x1, y, z0, x1, y, z0, x0, y, z1, x1, y, z1,
        ]);
    }
    let n = (v.len() / 3) as u32;
    let idx: Vec<u32> = (0..n).collect();
    Geometry::from_arrays(&v, &idx, &vec![63; (n / 3) as usize]).expect("valid")
}
