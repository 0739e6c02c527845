//! Rasterization (`spec/build3d.md` §5): triangles in cell units → a heightfield of solid spans
//! per column of one tile's padded window.
//!
//! Each triangle is clipped, for every row j it may touch, to the closed strip w ∈ [j, j + 1],
//! and that slab, for every column i, to u ∈ [i, i + 1], each in one pass; a cell polygon with at
//! least three points gives the raw span `[max(floor(v_min), 0), max(ceil(v_max), smin + 1)]` in
//! cells with the triangle's area. A crossing is always computed from the edge's endpoint with
//! the smaller coordinate, so a span depends only on its triangle and its cell.
//!
//! Raw spans of a column are then merged by a rule that is a function of their multiset (never
//! of triangle order, unlike Recast's issue #59): overlapping or touching spans form one span
//! from the lowest bottom to the highest top, whose area is the largest area among the raw spans
//! whose top lies within `walkable_climb` cells of that highest top.
//!
//! Limits: L9 (raw spans per tile).

use std::cell::Cell;

use crate::error::{check, BuildError, LimitKind, TileCell};
use crate::limits::MAX_SPAN_HEIGHT;
use crate::num::{ceil_i, floor_nn, fmax, fmin};
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

/// The columns x0 ≤ x < x1, z0 ≤ z < z1 of a window that can hold spans (all others are
/// empty), so that stages walk only those.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Occupied {
    pub x0: usize,
    pub z0: usize,
    pub x1: usize,
    pub z1: usize,
}

impl Occupied {
    /// The column indices in row-major order (rows ascending, then x ascending).
    pub(crate) fn cols(self, size: usize) -> impl DoubleEndedIterator<Item = usize> {
        (self.z0..self.z1).flat_map(move |z| (self.x0..self.x1).map(move |x| z * size + x))
    }
}

/// Builds the column index `start` of a window of side `size` (column c holds items
/// `start[c] .. start[c + 1]`) when only the columns of `occ` can hold any: `fill(col)` appends
/// one column's items and returns the number of items so far.
pub(crate) fn column_starts<E>(
    size: usize,
    occ: Occupied,
    mut fill: impl FnMut(usize) -> Result<u32, E>,
) -> Result<Vec<u32>, E> {
    let mut start: Vec<u32> = Vec::with_capacity(size * size + 1);
    let mut total = 0;
    for z in 0..size {
        if z < occ.z0 || z >= occ.z1 {
            start.resize(start.len() + size, total);
            continue;
        }
        start.resize(start.len() + occ.x0, total);
        for col in z * size + occ.x0..z * size + occ.x1 {
            start.push(total);
            total = fill(col)?;
        }
        start.resize(start.len() + (size - occ.x1), total);
    }
    start.push(total);
    Ok(start)
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
    /// A rectangle holding every non-empty column.
    pub occ: Occupied,
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

/// The point where edge p–q crosses `axis = k`, computed from the endpoint with the smaller
/// coordinate on the axis (`spec/build3d.md` B17); exactly k on the axis.
#[cfg(test)]
#[inline]
fn crossing(p: &[f64; 3], q: &[f64; 3], axis: usize, k: f64) -> [f64; 3] {
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
    r
}

/// Whether edge p–q crosses the line `axis = k` strictly (one end below, the other above).
#[cfg(test)]
#[inline]
fn crosses(p: &[f64; 3], q: &[f64; 3], axis: usize, k: f64) -> bool {
    (p[axis] < k && q[axis] > k) || (p[axis] > k && q[axis] < k)
}

/// The convex polygon `poly` clipped to the closed strip `lo ≤ p[axis] ≤ hi` in one pass
/// (B17): for each edge p → q in order, p if it lies in the strip, then the crossings of the
/// edge with the strip's lines in the order the edge meets them. Calls `emit` per point.
#[cfg(test)]
#[inline]
fn strip(poly: &[[f64; 3]], axis: usize, lo: f64, hi: f64, mut emit: impl FnMut(&[f64; 3])) {
    let n = poly.len();
    for i in 0..n {
        let p = &poly[i];
        let q = &poly[if i + 1 == n { 0 } else { i + 1 }];
        if p[axis] >= lo && p[axis] <= hi {
            emit(p);
        }
        let (first, second) = if p[axis] < q[axis] {
            (lo, hi)
        } else {
            (hi, lo)
        };
        if crosses(p, q, axis, first) {
            emit(&crossing(p, q, axis, first));
        }
        if crosses(p, q, axis, second) {
            emit(&crossing(p, q, axis, second));
        }
    }
}

/// The v range and point count of some points.
#[derive(Debug, Clone, Copy)]
struct Range {
    count: u32,
    lo: f64,
    hi: f64,
}

impl Default for Range {
    fn default() -> Self {
        Self {
            count: 0,
            lo: f64::INFINITY,
            hi: f64::NEG_INFINITY,
        }
    }
}

impl Range {
    #[inline]
    fn add(&mut self, v: f64) {
        // `fmin`/`fmax` of §1.1, stored unconditionally so that they compile without branches.
        self.count += 1;
        self.lo = fmin(self.lo, v);
        self.hi = fmax(self.hi, v);
    }
}

/// Per row: the crossings of each column line u = i0 … i1 + 1 with the slab's edges, and the
/// slab vertices in each column's closed strip. `strip(slab, u, i, i + 1)` is exactly the
/// crossings of lines i and i + 1 with the vertices of column i, so each crossing is computed
/// once for the two columns it bounds, by the same formula (B17).
#[derive(Debug, Default)]
struct Columns {
    lines: Vec<Range>,
    verts: Vec<Range>,
}

/// Most points `strip` emits for a triangle: each of its three edges emits at most its start
/// and its two crossings.
const SLAB_CAP: usize = 9;

/// One row's slab, `strip(triangle, w, j, j + 1)` (B17), as its points' u and v (w is not read
/// once the row is cut), with ⌊u⌋ and whether u is an integer per point.
#[derive(Debug, Clone, Copy)]
struct Slab {
    n: usize,
    u: [f64; SLAB_CAP],
    v: [f64; SLAB_CAP],
    /// Per triangle edge, its crossing (line k, u, v) with the upper line of the last row cut:
    /// the upper line w = j + 1 of row j is the lower line of row j + 1, and an edge's crossing
    /// with it is the same value both times (B17), so it is computed once. k is NaN (equal to
    /// nothing) before the first.
    memo: [[f64; 3]; 3],
}

impl Slab {
    const EMPTY: Self = Self {
        n: 0,
        u: [0.0; SLAB_CAP],
        v: [0.0; SLAB_CAP],
        memo: [[f64::NAN; 3]; 3],
    };

    /// Starts a new triangle: forgets the crossings of the last one.
    #[inline]
    fn forget(&mut self) {
        self.memo = [[f64::NAN; 3]; 3];
    }

    #[inline]
    fn push(&mut self, u: f64, v: f64) {
        self.u[self.n] = u;
        self.v[self.n] = v;
        self.n += 1;
    }

    /// The crossing of edge a–b (a below b in w) with the line w = k: `crossing` of B17 for
    /// the u and v components.
    #[inline]
    fn crossing(a: &[f64; 3], b: &[f64; 3], k: f64) -> [f64; 3] {
        let t = (k - a[2]) / (b[2] - a[2]);
        [k, a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t]
    }

    /// The crossing of edge `e` with the row's lower line k, remembered from the row below
    /// when it crossed that row's upper line.
    #[inline]
    fn push_lower(&mut self, e: usize, a: &[f64; 3], b: &[f64; 3], k: f64) {
        let m = self.memo[e];
        let [_, u, v] = if m[0] == k {
            m
        } else {
            Self::crossing(a, b, k)
        };
        self.push(u, v);
    }

    /// The crossing of edge `e` with the row's upper line k, remembered for the next row.
    #[inline]
    fn push_upper(&mut self, e: usize, a: &[f64; 3], b: &[f64; 3], k: f64) {
        let m = Self::crossing(a, b, k);
        self.memo[e] = m;
        self.push(m[1], m[2]);
    }

    /// `strip(t, w, lo, lo + 1)` exactly as [`strip`] emits it, in the same order.
    #[inline(always)]
    fn cut(&mut self, t: &[[f64; 3]; 3], lo: f64) {
        let hi = lo + 1.0;
        self.n = 0;
        for i in 0..3 {
            let p = &t[i];
            let q = &t[if i == 2 { 0 } else { i + 1 }];
            let (pw, qw) = (p[2], q[2]);
            if pw >= lo && pw <= hi {
                self.push(p[0], p[1]);
            }
            // `crosses` for p below q is pw < k < qw, else qw < k < pw; the crossing is
            // computed from the lower end.
            if pw < qw {
                if pw < lo && lo < qw {
                    self.push_lower(i, p, q, lo);
                }
                if pw < hi && hi < qw {
                    self.push_upper(i, p, q, hi);
                }
            } else {
                if qw < hi && hi < pw {
                    self.push_upper(i, q, p, hi);
                }
                if qw < lo && lo < pw {
                    self.push_lower(i, q, p, lo);
                }
            }
        }
    }

    /// The slab's points as (u, v, 0) (for tests and the reference path).
    #[cfg(test)]
    fn points(&self) -> Vec<[f64; 3]> {
        (0..self.n).map(|e| [self.u[e], self.v[e], 0.0]).collect()
    }
}

/// The crossings and vertices of the columns i0 ..= i1 of a slab with points (u, v) (at least
/// three), into `acc` (entries 0 ..= i1 − i0 + 1 of `lines`, 0 ..= i1 − i0 of `verts`).
/// Inlined into both passes of [`raster`] (storing and counting), as it was into the one pass.
#[inline(always)]
fn columns(u: &[f64], v: &[f64], i0: i64, i1: i64, acc: &mut Columns) {
    let n = (i1 - i0 + 1) as usize;
    if acc.lines.len() < n + 1 {
        acc.lines.resize(n + 1, Range::default());
        acc.verts.resize(n + 1, Range::default());
    }
    let lines = &mut acc.lines[..=n];
    let verts = &mut acc.verts[..n];
    lines.fill(Range::default());
    verts.fill(Range::default());
    let m = u.len().min(v.len()).min(SLAB_CAP);
    let (u, v) = (&u[..m], &v[..m]);
    let mut fl = [0i64; SLAB_CAP];
    let mut on = [false; SLAB_CAP];
    for e in 0..m {
        let f = floor_nn(u[e]);
        fl[e] = f;
        on[e] = f as f64 == u[e];
    }
    for e in 0..m {
        let next = if e + 1 == m { 0 } else { e + 1 };
        // Vertex e lies in the closed strip of column i when i ≤ u ≤ i + 1: column ⌊u⌋,
        // and column u − 1 too when u is on a line.
        let fu = fl[e];
        if fu >= i0 && fu <= i1 {
            verts[(fu - i0) as usize].add(v[e]);
        }
        if on[e] && fu > i0 && fu - 1 <= i1 {
            verts[(fu - 1 - i0) as usize].add(v[e]);
        }
        // Lines strictly between the ends' u: from ⌊a.u⌋ + 1 to ⌈b.u⌉ − 1, a the lower end.
        let (a, b) = if u[e] < u[next] { (e, next) } else { (next, e) };
        let (au, bu) = (u[a], u[b]);
        if au >= bu {
            continue;
        }
        let k0 = (fl[a] + 1).max(i0);
        let k1 = (if on[b] { fl[b] - 1 } else { fl[b] }).min(i1 + 1);
        if k0 > k1 {
            continue;
        }
        let (av, bv) = (v[a], v[b]);
        let (du, dv) = (bu - au, bv - av);
        let span = &mut lines[(k0 - i0) as usize..=(k1 - i0) as usize];
        for (k, l) in (k0..=k1).zip(span) {
            let t = (k as f64 - au) / du;
            l.add(av + dv * t);
        }
    }
}

/// Raw span of one rasterized cell, before merging.
#[derive(Debug, Clone, Copy)]
struct RawSpan {
    /// Local column x and row z of the window (L3 and L4 keep them below 2^16).
    x: u16,
    z: u16,
    smin: u32,
    smax: u32,
    area: u8,
}

/// The raw span of local cell (x, z) whose points' heights range over [vlo, vhi] (B18).
#[inline]
fn span(x: usize, z: usize, vlo: f64, vhi: f64, area: u8) -> RawSpan {
    let smin = floor_nn(vlo).max(0) as u32;
    let smax = (ceil_i(vhi).min(i64::from(MAX_SPAN_HEIGHT)) as u32).max(smin + 1);
    RawSpan {
        x: x as u16,
        z: z as u16,
        smin,
        smax,
        area,
    }
}

thread_local! {
    /// A worker's raw-span buffer, reused from tile to tile so that it grows once (nothing in
    /// it outlives a call of [`rasterize`]).
    static RAW: Cell<Vec<RawSpan>> = const { Cell::new(Vec::new()) };
}

/// The largest raw-span buffer (in spans, 16 bytes each) a worker keeps for its next tile.
const KEEP_RAW: usize = 1 << 20;

/// Where the rasterization loop puts the raw spans it finds: stored for the merge, or only
/// counted (L9's count, taken before anything is stored).
trait Sink {
    /// Records the raw span `s`.
    fn push(&mut self, s: RawSpan);
    /// Raw spans so far.
    fn len(&self) -> usize;
    /// The spans `before ..` were pushed for window row z, in ascending x.
    fn row(&mut self, z: usize, before: usize);
    /// One span pushed alone for cell (x, z).
    fn one(&mut self, x: usize, z: usize);
}

/// Stores the raw spans and the rectangle of their columns.
struct Store {
    raw: Vec<RawSpan>,
    occ: Occupied,
}

impl Sink for Store {
    #[inline]
    fn push(&mut self, s: RawSpan) {
        self.raw.push(s);
    }

    #[inline]
    fn len(&self) -> usize {
        self.raw.len()
    }

    #[inline]
    fn row(&mut self, z: usize, before: usize) {
        let raw = &self.raw;
        if raw.len() > before {
            let occ = &mut self.occ;
            occ.x0 = occ.x0.min(usize::from(raw[before].x));
            occ.x1 = occ.x1.max(usize::from(raw[raw.len() - 1].x) + 1);
            occ.z0 = occ.z0.min(z);
            occ.z1 = occ.z1.max(z + 1);
        }
    }

    #[inline]
    fn one(&mut self, x: usize, z: usize) {
        let occ = &mut self.occ;
        occ.x0 = occ.x0.min(x);
        occ.x1 = occ.x1.max(x + 1);
        occ.z0 = occ.z0.min(z);
        occ.z1 = occ.z1.max(z + 1);
    }
}

/// Counts the raw spans without storing them.
struct Count(u64);

impl Sink for Count {
    #[inline]
    fn push(&mut self, _: RawSpan) {
        self.0 += 1;
    }

    #[inline]
    fn len(&self) -> usize {
        // Only `row` reads it, and `Count::row` ignores it.
        0
    }

    #[inline]
    fn row(&mut self, _: usize, _: usize) {}

    #[inline]
    fn one(&mut self, _: usize, _: usize) {}
}

/// An upper bound of the raw spans of the listed triangles in the window: a triangle gives at
/// most one raw span per cell of its cell range (B15) within the window (B18).
fn span_bound(tris: &[GridTri], list: &[u32], win: Window) -> u64 {
    let size = win.size as i64;
    let clipped = |(lo, hi): (i64, i64), o: i64| {
        let (lo, hi) = (lo.max(o), hi.min(o + size - 1));
        if hi < lo {
            0
        } else {
            (hi - lo + 1) as u64
        }
    };
    list.iter()
        .map(|&ti| {
            let p = &tris[ti as usize].p;
            clipped(cell_range(p, 0), win.x0) * clipped(cell_range(p, 2), win.z0)
        })
        .sum()
}

/// The raw spans of a tile cell: exactly the spans the rasterization of its triangles stores
/// (L9 counts them, `spec/build3d.md` B19).
#[cfg(test)]
pub(crate) fn count_spans(tris: &[GridTri], list: &[u32], win: Window) -> u64 {
    let mut count = Count(0);
    raster(tris, list, win, &mut count);
    count.0
}

/// Rasterizes the listed triangles into the window and merges the spans (§5). L9 is checked
/// before any span is stored: when the bound of [`span_bound`] exceeds `max_spans`, the raw
/// spans are first counted (the same rasterization, storing nothing), so a tile over the cap
/// fails in memory independent of its span count.
pub(crate) fn rasterize(
    tris: &[GridTri],
    list: &[u32],
    win: Window,
    climb: u32,
    cell: TileCell,
    max_spans: u64,
) -> Result<Heightfield, BuildError> {
    // A triangle records at most one raw span per window column: when that coarser bound
    // holds, the per-triangle one is not needed.
    let cols = (win.size * win.size) as u64;
    if (list.len() as u64).saturating_mul(cols) > max_spans
        && span_bound(tris, list, win) > max_spans
    {
        let mut count = Count(0);
        raster(tris, list, win, &mut count);
        check(
            Some(cell),
            None,
            LimitKind::SpansPerTile,
            count.0,
            max_spans,
        )?;
    }
    let mut raw = RAW.take();
    raw.clear();
    let mut store = Store {
        raw,
        occ: Occupied {
            x0: win.size,
            z0: win.size,
            x1: 0,
            z1: 0,
        },
    };
    raster(tris, list, win, &mut store);
    let Store { raw, mut occ } = store;
    if raw.is_empty() {
        occ = Occupied::default();
    }
    let hf = merge(&raw, win, climb, occ);
    if raw.capacity() <= KEEP_RAW {
        RAW.set(raw);
    }
    Ok(hf)
}

/// The raw spans of the listed triangles in the window (B18), into `sink`.
#[inline]
fn raster<S: Sink>(tris: &[GridTri], list: &[u32], win: Window, sink: &mut S) {
    let size = win.size as i64;
    let mut slab = Slab::EMPTY;
    let mut acc = Columns::default();
    for &ti in list {
        let t = &tris[ti as usize];
        let (j0, j1) = cell_range(&t.p, 2);
        let (j0, j1) = (j0.max(win.z0), j1.min(win.z0 + size - 1));
        slab.forget();
        for j in j0..=j1 {
            slab.cut(&t.p, j as f64);
            let m = slab.n;
            if m < 3 {
                continue;
            }
            let (us, vs) = (&slab.u[..m], &slab.v[..m]);
            let (mut lo, mut hi) = (us[0], us[0]);
            for &u in &us[1..] {
                if u < lo {
                    lo = u;
                }
                if u > hi {
                    hi = u;
                }
            }
            let (flo, fhi) = (floor_nn(lo), floor_nn(hi));
            let i0 = flo.max(win.x0);
            let i1 = fhi.min(win.x0 + size - 1);
            if i1 < i0 {
                continue;
            }
            let z = (j - win.z0) as usize;
            if flo == fhi {
                // The slab lies in one column's closed strip and no edge crosses its lines
                // strictly: the cell's points are the slab's, as `columns` would find them.
                let (mut vlo, mut vhi) = (f64::INFINITY, f64::NEG_INFINITY);
                for &v in vs {
                    if v < vlo {
                        vlo = v;
                    }
                    if v > vhi {
                        vhi = v;
                    }
                }
                let x = (i0 - win.x0) as usize;
                sink.push(span(x, z, vlo, vhi, t.area));
                sink.one(x, z);
                continue;
            }
            columns(us, vs, i0, i1, &mut acc);
            let n = (i1 - i0 + 1) as usize;
            let before = sink.len();
            let cells = acc.lines[..=n].windows(2).zip(&acc.verts[..n]);
            for ((lr, v), i) in cells.zip(i0..=i1) {
                // The points of strip(slab, u, i, i + 1): crossings of the lines i and i + 1
                // and the slab's vertices in the closed strip.
                let (l, r) = (&lr[0], &lr[1]);
                if l.count + r.count + v.count < 3 {
                    continue;
                }
                let vlo = fmin(fmin(l.lo, r.lo), v.lo);
                let vhi = fmax(fmax(l.hi, r.hi), v.hi);
                sink.push(span((i - win.x0) as usize, z, vlo, vhi, t.area));
            }
            // Spans of one row are pushed in ascending x.
            sink.row(z, before);
        }
    }
}

/// A raw span as one sortable key: smin in bits 33.., smax in bits 8..33, area in bits 0..8
/// (smin < 2^24 and smax ≤ 2^24 by L5). Ascending keys are ascending smin.
#[inline]
fn key(s: &RawSpan) -> u64 {
    (u64::from(s.smin) << 33) | (u64::from(s.smax) << 8) | u64::from(s.area)
}

const _: () = assert!(MAX_SPAN_HEIGHT < 1 << 25, "smax fits in 25 bits of a key");

/// Orders two keys of a column (without a branch).
#[inline]
fn order(col: &mut [u64], i: usize, j: usize) {
    let (a, b) = (col[i], col[j]);
    col[i] = a.min(b);
    col[j] = a.max(b);
}

/// Sorts one column's keys ascending: a few keys, so a sorting network up to four (columns
/// mostly hold two to four raw spans, whose order an insertion sort mispredicts), insertion
/// sort up to 32.
#[inline]
fn sort_keys(col: &mut [u64]) {
    match col.len() {
        0 | 1 => return,
        2 => {
            order(col, 0, 1);
            return;
        }
        3 => {
            order(col, 0, 1);
            order(col, 1, 2);
            order(col, 0, 1);
            return;
        }
        4 => {
            order(col, 0, 1);
            order(col, 2, 3);
            order(col, 0, 2);
            order(col, 1, 3);
            order(col, 1, 2);
            return;
        }
        n if n > 32 => {
            col.sort_unstable();
            return;
        }
        _ => {}
    }
    for i in 1..col.len() {
        let k = col[i];
        let mut j = i;
        while j > 0 && col[j - 1] > k {
            col[j] = col[j - 1];
            j -= 1;
        }
        col[j] = k;
    }
}

/// The order-free merge of §5.3: raw spans bucketed by column (within the occupied rectangle),
/// sorted by bottom within it (ties in any order: a group's bottom, top and area do not depend
/// on it).
fn merge(raw: &[RawSpan], win: Window, climb: u32, occ: Occupied) -> Heightfield {
    let (w, size) = (occ.x1 - occ.x0, win.size);
    let rect = |s: &RawSpan| (usize::from(s.z) - occ.z0) * w + (usize::from(s.x) - occ.x0);
    let n = w * (occ.z1 - occ.z0);
    let mut count = vec![0u32; n + 1];
    for s in raw {
        count[rect(s) + 1] += 1;
    }
    for c in 0..n {
        count[c + 1] += count[c];
    }
    let mut fill = count.clone();
    let mut sorted = vec![0u64; raw.len()];
    for s in raw {
        let f = &mut fill[rect(s)];
        sorted[*f as usize] = key(s);
        *f += 1;
    }
    const SMAX: u64 = (1 << 25) - 1;
    let mut spans = Vec::with_capacity(sorted.len());
    let start = column_starts(size, occ, |c| {
        let (x, z) = (c % size, c / size);
        let r = (z - occ.z0) * w + (x - occ.x0);
        let col = &mut sorted[count[r] as usize..count[r + 1] as usize];
        sort_keys(col);
        let mut i = 0;
        while i < col.len() {
            // One merged span: all raw spans reachable by overlap or touch.
            let smin = (col[i] >> 33) as u32;
            let mut hi = ((col[i] >> 8) & SMAX) as u32;
            let mut j = i + 1;
            while j < col.len() && ((col[j] >> 33) as u32) <= hi {
                hi = hi.max(((col[j] >> 8) & SMAX) as u32);
                j += 1;
            }
            let area = col[i..j]
                .iter()
                .filter(|&&k| hi - ((k >> 8) & SMAX) as u32 <= climb)
                .map(|&k| k as u8)
                .max()
                .unwrap_or(0);
            spans.push(Span {
                smin,
                smax: hi,
                area,
            });
            i = j;
        }
        Ok::<u32, std::convert::Infallible>(spans.len() as u32)
    });
    let Ok(start) = start;
    Heightfield {
        win,
        occ,
        start,
        spans,
    }
}

#[cfg(test)]
#[path = "rasterize_tests.rs"]
mod tests;
