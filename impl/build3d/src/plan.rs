//! The build plan (`spec/build3d.md` §4): the grid, the walkability of every triangle, its
//! coordinates in cell units, and which triangles each tile cell rasterizes.
//!
//! Units: the origin is the geometry's minimum corner (wu). A triangle vertex (x, y, z) becomes
//! `u = (x − ox) / cell_size`, `v = (y − oy) / cell_height`, `w = (z − oz) / cell_size` (cells).
//! Global cell (i, j) covers u ∈ [i, i + 1], w ∈ [j, j + 1]; tile cell (c, r) owns the cells
//! i ∈ [c·T, c·T + T − 1], j ∈ [r·T, r·T + T − 1] and rasterizes B more on every side
//! (T = tile size, B = border).
//!
//! Limits: L5 (span height), L6 (grid cells), L7 (tile cells), L8 (bin entries), L20 (window
//! cells), L21 (window cells per triangle). Memory: at most 40 bytes per triangle while binning,
//! then 4 bytes per (triangle, tile cell) pair and 12 per tile cell, each allocated after
//! counting (B15a).

use rayon::prelude::*;

use crate::error::{check, BuildError, LimitKind, TileCell};
use crate::geometry::Geometry;
use crate::limits::{Caps, MAX_GRID_CELLS, MAX_SPAN_HEIGHT};
use crate::marks::AreaMark;
use crate::num::floor_i;
use crate::output::{mesh_params, MeshParams};
use crate::settings::{Derived, Settings};

/// A triangle in cell units with the area it rasterizes with (0 when not walkable).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct GridTri {
    /// (u, v, w) per vertex, in the canonical vertex order.
    pub p: [[f64; 3]; 3],
    /// The triangle's area id if it is walkable, else 0.
    pub area: u8,
}

/// Everything a tile build needs besides its own intermediate: settings, grid, triangles and
/// bins. Built once per geometry and settings; tiles are then independent.
#[derive(Debug, Clone)]
pub struct Plan {
    pub(crate) settings: Settings,
    pub(crate) d: Derived,
    pub(crate) origin: [f64; 3],
    /// Parameters with one slot (the grid and digest every tile carries).
    pub(crate) params: MeshParams,
    pub(crate) tris: Vec<GridTri>,
    /// Tile cells in ascending (row, column) with the ascending indices of their triangles.
    pub(crate) bins: Bins,
    /// The settings' volumes as marks, in order.
    pub(crate) volumes: Vec<AreaMark>,
    pub(crate) caps: Caps,
}

/// Whether a triangle is walkable (`spec/build3d.md` §4.2): with n = (b − a) × (c − a),
/// `n.y > slope_cos · |n|`.
pub(crate) fn walkable(v: &[[f64; 3]; 3], slope_cos: f64) -> bool {
    let e0 = [v[1][0] - v[0][0], v[1][1] - v[0][1], v[1][2] - v[0][2]];
    let e1 = [v[2][0] - v[0][0], v[2][1] - v[0][1], v[2][2] - v[0][2]];
    let nx = e0[1] * e1[2] - e0[2] * e1[1];
    let ny = e0[2] * e1[0] - e0[0] * e1[2];
    let nz = e0[0] * e1[1] - e0[1] * e1[0];
    let len = ((nx * nx + ny * ny) + nz * nz).sqrt();
    ny > slope_cos * len
}

/// `floor(a / b)` for integers, b > 0.
pub(crate) fn floor_div(a: i64, b: i64) -> i64 {
    a.div_euclid(b)
}

impl Plan {
    /// Plans a build: checks the grid limits and bins the triangles (`spec/build3d.md` §4).
    pub fn new(geometry: &Geometry, settings: &Settings) -> Result<Self, BuildError> {
        Self::with_caps(geometry, settings, Caps::DEFAULT)
    }

    pub(crate) fn with_caps(
        geometry: &Geometry,
        settings: &Settings,
        caps: Caps,
    ) -> Result<Self, BuildError> {
        let d = *settings.derived();
        let s = settings.spec();
        let (bmin, bmax) = geometry.bounds();
        let origin = bmin;
        let (cs, ch) = (s.cell_size, s.cell_height);
        let ext_u = (bmax[0] - origin[0]) / cs;
        let ext_w = (bmax[2] - origin[2]) / cs;
        let ext_v = (bmax[1] - origin[1]) / ch;
        for (e, limit, max) in [
            (ext_u, LimitKind::GridCells, MAX_GRID_CELLS as f64),
            (ext_w, LimitKind::GridCells, MAX_GRID_CELLS as f64),
            (ext_v, LimitKind::SpanHeight, f64::from(MAX_SPAN_HEIGHT - 2)),
        ] {
            if e.partial_cmp(&max)
                .is_none_or(|o| o == std::cmp::Ordering::Greater)
            {
                let value = if e.is_finite() {
                    e.ceil() as u64
                } else {
                    u64::MAX
                };
                return Err(BuildError::limit(limit, value, max as u64));
            }
        }
        let digest = crate::output::SettingsDigest(settings.digest(&geometry.digest()));
        let params = mesh_params(origin, d.tile_world, 1, digest).map_err(BuildError::Params)?;
        let tris: Vec<GridTri> = geometry
            .triangles()
            .par_iter()
            .map(|t| {
                let area = if t.area != 0 && walkable(&t.v, d.slope_cos) {
                    t.area
                } else {
                    0
                };
                let p = t.v.map(|q| {
                    [
                        (q[0] - origin[0]) / cs,
                        (q[1] - origin[1]) / ch,
                        (q[2] - origin[2]) / cs,
                    ]
                });
                GridTri { p, area }
            })
            .collect();
        let bins = bin(&tris, i64::from(s.tile_size), i64::from(d.border), &caps)?;
        let volumes = s.volumes.iter().map(AreaMark::from_volume).collect();
        Ok(Self {
            caps,
            volumes,
            settings: settings.clone(),
            d,
            origin,
            params,
            tris,
            bins,
        })
    }

    /// The tile cells that have triangles, in build order (ascending row, then column).
    pub fn tile_cells(&self) -> impl ExactSizeIterator<Item = TileCell> + '_ {
        self.bins.cells().iter().copied()
    }

    /// The index in [`Plan::tile_cells`] of a tile cell, if it has triangles.
    pub fn cell_index(&self, cell: TileCell) -> Option<usize> {
        self.bins
            .cells()
            .binary_search_by_key(&(cell.row, cell.column), |c| (c.row, c.column))
            .ok()
    }

    /// The settings digest every tile carries.
    pub fn digest(&self) -> [u8; 32] {
        self.params.digest().0
    }

    /// The mesh parameters for a mesh of `slot_count` slots holding the tiles.
    pub fn mesh_params(&self, slot_count: u32) -> Result<MeshParams, BuildError> {
        mesh_params(
            self.origin,
            self.d.tile_world,
            slot_count,
            self.params.digest(),
        )
        .map_err(BuildError::Params)
    }

    /// The settings planned with.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The origin of the grid (wu): the geometry's minimum corner (B12).
    pub fn origin(&self) -> [f64; 3] {
        self.origin
    }

    /// The padding of every tile window, `walkable_radius + 3` cells (B10, B16): marks in it
    /// change the tile.
    pub fn border(&self) -> u32 {
        self.d.border
    }
}

/// The cell range `[floor(min), floor(max)]` of a triangle along axis k (0 = u, 2 = w).
pub(crate) fn cell_range(p: &[[f64; 3]; 3], k: usize) -> (i64, i64) {
    let mut lo = p[0][k];
    let mut hi = p[0][k];
    for q in &p[1..] {
        if q[k] < lo {
            lo = q[k];
        }
        if q[k] > hi {
            hi = q[k];
        }
    }
    (floor_i(lo), floor_i(hi))
}

/// The triangle bins (`spec/build3d.md` B15), flat: tile cells in ascending (row, column), cell
/// k listing the ascending triangle indices `tris[start[k] .. start[k + 1]]`. Built after
/// counting, so they hold exactly 4 bytes per (triangle, tile cell) pair and 8 + 4 per tile
/// cell (B15a).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Bins {
    cells: Vec<TileCell>,
    start: Vec<u32>,
    tris: Vec<u32>,
}

// Pair offsets are u32: L8 keeps them in range.
const _: () = assert!(crate::limits::MAX_BIN_ENTRIES <= u32::MAX as u64);

impl Bins {
    /// Number of tile cells.
    pub(crate) fn len(&self) -> usize {
        self.cells.len()
    }

    /// Tile cell k and its triangles.
    pub(crate) fn get(&self, k: usize) -> Option<(TileCell, &[u32])> {
        let cell = *self.cells.get(k)?;
        Some((
            cell,
            &self.tris[self.start[k] as usize..self.start[k + 1] as usize],
        ))
    }

    /// The tile cells in order.
    pub(crate) fn cells(&self) -> &[TileCell] {
        &self.cells
    }

    /// Bytes held (capacities), for the memory bound of B15a.
    #[cfg(test)]
    pub(crate) fn heap_bytes(&self) -> usize {
        self.cells.capacity() * std::mem::size_of::<TileCell>()
            + self.start.capacity() * 4
            + self.tris.capacity() * 4
    }

    /// (Triangle, tile cell) pairs.
    #[cfg(test)]
    pub(crate) fn pairs(&self) -> usize {
        self.tris.len()
    }
}

/// A triangle's tile-cell range: columns c0 ..= c1, rows r0 ..= r1.
#[derive(Debug, Clone, Copy)]
struct Range {
    c0: i32,
    c1: i32,
    r0: i32,
    r1: i32,
}

/// Calls `row(r, active, runs)` for every tile row r that some range covers, ascending: `active`
/// holds the indices of the ranges covering row r, ascending; `runs` the maximal runs of
/// consecutive columns they cover, ascending, each as (first, last, index of its first cell
/// among the row's cells). `order` lists the ranges by ascending (first row, index). Work:
/// O(Σ rows of the ranges · log) plus the callback's.
fn sweep_rows(
    ranges: &[Range],
    order: &[u32],
    mut row: impl FnMut(i32, &[u32], &[(i32, i32, usize)]),
) {
    let mut next = 0;
    let mut active: Vec<u32> = Vec::new();
    let mut merged: Vec<u32> = Vec::new();
    let mut spans: Vec<(i32, i32)> = Vec::new();
    let mut runs: Vec<(i32, i32, usize)> = Vec::new();
    let mut r = i32::MIN;
    loop {
        if active.is_empty() {
            match order.get(next) {
                Some(&i) => r = ranges[i as usize].r0,
                None => break,
            }
        }
        // Ranges starting at row r join `active`, which stays ascending.
        let from = next;
        while next < order.len() && ranges[order[next] as usize].r0 == r {
            next += 1;
        }
        if next > from {
            merged.clear();
            let (mut a, mut b) = (
                active.iter().peekable(),
                order[from..next].iter().peekable(),
            );
            while let (Some(&&x), Some(&&y)) = (a.peek(), b.peek()) {
                if x < y {
                    merged.push(x);
                    a.next();
                } else {
                    merged.push(y);
                    b.next();
                }
            }
            merged.extend(a);
            merged.extend(b);
            std::mem::swap(&mut active, &mut merged);
        }
        spans.clear();
        spans.extend(active.iter().map(|&i| {
            let g = &ranges[i as usize];
            (g.c0, g.c1)
        }));
        spans.sort_unstable();
        runs.clear();
        let mut cells = 0;
        for &(c0, c1) in &spans {
            match runs.last_mut() {
                Some(last) if i64::from(c0) <= i64::from(last.1) + 1 => last.1 = last.1.max(c1),
                _ => {
                    if let Some(last) = runs.last() {
                        cells += (last.1 - last.0) as usize + 1;
                    }
                    runs.push((c0, c1, cells));
                }
            }
        }
        row(r, &active, &runs);
        active.retain(|&i| ranges[i as usize].r1 > r);
        r += 1;
    }
}

/// The index among its row's cells of column c, which lies in one of `runs`.
fn cell_of(runs: &[(i32, i32, usize)], c: i32) -> usize {
    let k = runs.partition_point(|run| run.0 <= c) - 1;
    runs[k].2 + (c - runs[k].0) as usize
}

/// Tile cells whose padded cell range meets each triangle's cell range (§4.3), counted before
/// anything proportional to them is allocated (B15a).
fn bin(tris: &[GridTri], ts: i64, b: i64, caps: &Caps) -> Result<Bins, BuildError> {
    let side = (ts + 2 * b) as u64;
    let window = side * side;
    let mut ranges = Vec::with_capacity(tris.len());
    let mut total: u64 = 0;
    for t in tris {
        let (x0, x1) = cell_range(&t.p, 0);
        let (z0, z1) = cell_range(&t.p, 2);
        let (c0, c1) = (floor_div(x0 - b, ts), floor_div(x1 + b, ts));
        let (r0, r1) = (floor_div(z0 - b, ts), floor_div(z1 + b, ts));
        let n = (c1 - c0 + 1) as u64 * (r1 - r0 + 1) as u64;
        check(None, None, LimitKind::Tiles, n, caps.tiles)?;
        // One triangle's tile cells are distinct: their windows alone must fit L20.
        check(
            None,
            None,
            LimitKind::WindowCells,
            n * window,
            caps.window_cells,
        )?;
        total += n;
        check(None, None, LimitKind::BinEntries, total, caps.bin_entries)?;
        // |c|, |r| ≤ 2^30 / 4 + 1 by L6 and L3, so they fit i32.
        ranges.push(Range {
            c0: c0 as i32,
            c1: c1 as i32,
            r0: r0 as i32,
            r1: r1 as i32,
        });
    }
    // L21: the windows of all pairs, per input triangle.
    check(
        None,
        None,
        LimitKind::WindowCellsPerTriangle,
        total * window,
        caps.window_cells_per_triangle * tris.len() as u64,
    )?;
    let mut order: Vec<u32> = (0..ranges.len() as u32).collect();
    order.sort_unstable_by_key(|&i| (ranges[i as usize].r0, i));
    let mut cells: u64 = 0;
    sweep_rows(&ranges, &order, |_, _, runs| {
        if let Some(last) = runs.last() {
            cells += (last.2 + (last.1 - last.0) as usize + 1) as u64;
        }
    });
    check(None, None, LimitKind::Tiles, cells, caps.tiles)?;
    check(
        None,
        None,
        LimitKind::WindowCells,
        cells * window,
        caps.window_cells,
    )?;
    let mut bins = Bins {
        cells: Vec::with_capacity(cells as usize),
        start: Vec::with_capacity(cells as usize + 1),
        tris: vec![0; total as usize],
    };
    bins.start.push(0);
    let mut count: Vec<u32> = Vec::new();
    sweep_rows(&ranges, &order, |r, active, runs| {
        let Some(last) = runs.last() else { return };
        let n = last.2 + (last.1 - last.0) as usize + 1;
        count.clear();
        count.resize(n, 0);
        for &i in active {
            let g = &ranges[i as usize];
            let k = cell_of(runs, g.c0);
            for c in &mut count[k..=k + (g.c1 - g.c0) as usize] {
                *c += 1;
            }
        }
        let mut at = *bins.start.last().unwrap_or(&0);
        for &(c0, c1, _) in runs {
            for column in c0..=c1 {
                bins.cells.push(TileCell { column, row: r });
            }
        }
        for c in count.iter_mut() {
            let n = *c;
            *c = at;
            at += n;
            bins.start.push(at);
        }
        for &i in active {
            let g = &ranges[i as usize];
            let k = cell_of(runs, g.c0);
            for c in &mut count[k..=k + (g.c1 - g.c0) as usize] {
                bins.tris[*c as usize] = i;
                *c += 1;
            }
        }
    });
    Ok(bins)
}

#[cfg(test)]
#[path = "plan_tests.rs"]
mod tests;
