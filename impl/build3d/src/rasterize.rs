//! Rasterization (`spec/build3d.md` §5): triangles in cell units → a heightfield of solid spans
//! per column of one tile's padded window.
//!
//! Each triangle is clipped, for every row j it may touch, to the closed slab w ∈ [j, j + 1],
//! and that polygon, for every column i, to u ∈ [i, i + 1]; a cell polygon with at least three
//! corners gives the raw span `[max(floor(v_min), 0), max(ceil(v_max), smin + 1)]` in cells with
//! the triangle's area. Clipping is recomputed from the triangle for every row and column, and
//! an intersection is always computed from the edge's endpoint with the smaller coordinate, so a
//! span depends only on its triangle and its cell.
//!
//! Raw spans of a column are then merged by a rule that is a function of their multiset (never
//! of triangle order, unlike Recast's issue #59): overlapping or touching spans form one span
//! from the lowest bottom to the highest top, whose area is the largest area among the raw spans
//! whose top lies within `walkable_climb` cells of that highest top.
//!
//! Limits: L9 (raw spans per tile).

use crate::error::{check, BuildError, LimitKind, TileCell};
use crate::limits::MAX_SPAN_HEIGHT;
use crate::plan::{cell_range, GridTri};

/// The padded cell window of one tile: local cell (x, z), 0 ≤ x, z < size, is global cell
/// (x0 + x, z0 + z).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Window {
    pub x0: i64,
    pub z0: i64,
    /// Side in cells: tile size + 2 · border.
    pub size: usize,
    /// Border (padding) in cells.
    pub border: usize,
}

impl Window {
    pub(crate) fn new(cell: TileCell, tile_size: u32, border: u32) -> Self {
        let (ts, b) = (i64::from(tile_size), i64::from(border));
        Self {
            x0: i64::from(cell.column) * ts - b,
            z0: i64::from(cell.row) * ts - b,
            size: (tile_size + 2 * border) as usize,
            border: border as usize,
        }
    }

    /// Whether local cell (x, z) belongs to the tile itself rather than its padding.
    #[inline]
    pub(crate) fn interior(&self, x: usize, z: usize) -> bool {
        let (b, e) = (self.border, self.size - self.border);
        x >= b && x < e && z >= b && z < e
    }
}

/// A solid span: cells `smin .. smax` of one column are solid; `smax` is its floor height.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span {
    pub smin: u32,
    pub smax: u32,
    pub area: u8,
}

/// Solid spans per column, columns in row-major order (x fastest), spans bottom-up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Heightfield {
    pub win: Window,
    /// Column c holds spans `start[c] .. start[c + 1]`.
    pub start: Vec<u32>,
    pub spans: Vec<Span>,
}

impl Heightfield {
    #[inline]
    pub(crate) fn column(&self, c: usize) -> std::ops::Range<usize> {
        self.start[c] as usize..self.start[c + 1] as usize
    }
}

/// Clips a polygon to the half-plane `p[axis] ≥ k` (`keep_above`) or `p[axis] ≤ k`.
fn clip(poly: &[[f64; 3]], axis: usize, k: f64, keep_above: bool, out: &mut Vec<[f64; 3]>) {
    out.clear();
    let n = poly.len();
    let inside = |p: &[f64; 3]| {
        if keep_above {
            p[axis] >= k
        } else {
            p[axis] <= k
        }
    };
    for i in 0..n {
        let p = &poly[i];
        let q = &poly[(i + 1) % n];
        if inside(p) {
            out.push(*p);
        }
        if (p[axis] < k && q[axis] > k) || (p[axis] > k && q[axis] < k) {
            let (a, b) = if p[axis] < q[axis] { (p, q) } else { (q, p) };
            let t = (k - a[axis]) / (b[axis] - a[axis]);
            let mut r = [0.0; 3];
            for (c, rc) in r.iter_mut().enumerate() {
                *rc = if c == axis {
                    k
                } else {
                    a[c] + (b[c] - a[c]) * t
                };
            }
            out.push(r);
        }
    }
}

/// Raw span of one rasterized cell, before merging.
#[derive(Debug, Clone, Copy)]
struct RawSpan {
    /// Column index << 32 | smin: the sort key.
    key: u64,
    smax: u32,
    area: u8,
}

/// Rasterizes the listed triangles into the window and merges the spans (§5).
pub(crate) fn rasterize(
    tris: &[GridTri],
    list: &[u32],
    win: Window,
    climb: u32,
    cell: TileCell,
    max_spans: u64,
) -> Result<Heightfield, BuildError> {
    let size = win.size as i64;
    let mut raw: Vec<RawSpan> = Vec::new();
    let (mut slab, mut tmp, mut poly) = (Vec::new(), Vec::new(), Vec::new());
    for &ti in list {
        let t = &tris[ti as usize];
        let (j0, j1) = cell_range(&t.p, 2);
        let (j0, j1) = (j0.max(win.z0), j1.min(win.z0 + size - 1));
        for j in j0..=j1 {
            let k = j as f64;
            clip(&t.p, 2, k, true, &mut tmp);
            clip(&tmp, 2, k + 1.0, false, &mut slab);
            if slab.len() < 3 {
                continue;
            }
            let (mut lo, mut hi) = (slab[0][0], slab[0][0]);
            for p in &slab[1..] {
                if p[0] < lo {
                    lo = p[0];
                }
                if p[0] > hi {
                    hi = p[0];
                }
            }
            let i0 = (lo.floor() as i64).max(win.x0);
            let i1 = (hi.floor() as i64).min(win.x0 + size - 1);
            for i in i0..=i1 {
                let k = i as f64;
                clip(&slab, 0, k, true, &mut tmp);
                clip(&tmp, 0, k + 1.0, false, &mut poly);
                if poly.len() < 3 {
                    continue;
                }
                let (mut vlo, mut vhi) = (poly[0][1], poly[0][1]);
                for p in &poly[1..] {
                    if p[1] < vlo {
                        vlo = p[1];
                    }
                    if p[1] > vhi {
                        vhi = p[1];
                    }
                }
                let smin = vlo.floor().max(0.0) as u32;
                let smax = (vhi.ceil().min(f64::from(MAX_SPAN_HEIGHT)) as u32).max(smin + 1);
                let col = (j - win.z0) as u64 * size as u64 + (i - win.x0) as u64;
                raw.push(RawSpan {
                    key: col << 32 | u64::from(smin),
                    smax,
                    area: t.area,
                });
            }
        }
        check(
            Some(cell),
            None,
            LimitKind::SpansPerTile,
            raw.len() as u64,
            max_spans,
        )?;
    }
    Ok(merge(raw, win, climb))
}

/// The order-free merge of §5.3.
fn merge(mut raw: Vec<RawSpan>, win: Window, climb: u32) -> Heightfield {
    raw.sort_unstable_by_key(|s| s.key);
    let ncols = win.size * win.size;
    let mut start = Vec::with_capacity(ncols + 1);
    let mut spans = Vec::with_capacity(raw.len());
    let mut i = 0;
    for col in 0..ncols as u64 {
        start.push(spans.len() as u32);
        while i < raw.len() && raw[i].key >> 32 == col {
            // One merged span: all raw spans reachable by overlap or touch.
            let smin = raw[i].key as u32;
            let mut hi = raw[i].smax;
            let mut j = i + 1;
            while j < raw.len() && raw[j].key >> 32 == col && (raw[j].key as u32) <= hi {
                hi = hi.max(raw[j].smax);
                j += 1;
            }
            let area = raw[i..j]
                .iter()
                .filter(|s| hi - s.smax <= climb)
                .map(|s| s.area)
                .max()
                .unwrap_or(0);
            spans.push(crate::rasterize::Span {
                smin,
                smax: hi,
                area,
            });
            i = j;
        }
    }
    start.push(spans.len() as u32);
    Heightfield { win, start, spans }
}

#[cfg(test)]
#[path = "rasterize_tests.rs"]
mod tests;
