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
//! cells).

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
    pub(crate) bins: Vec<(TileCell, Vec<u32>)>,
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
            .iter()
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
        self.bins.iter().map(|(c, _)| *c)
    }

    /// The index in [`Plan::tile_cells`] of a tile cell, if it has triangles.
    pub fn cell_index(&self, cell: TileCell) -> Option<usize> {
        self.bins
            .binary_search_by_key(&(cell.row, cell.column), |(c, _)| (c.row, c.column))
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

/// Tile cells whose padded cell range meets each triangle's cell range (§4.3).
fn bin(
    tris: &[GridTri],
    ts: i64,
    b: i64,
    caps: &Caps,
) -> Result<Vec<(TileCell, Vec<u32>)>, BuildError> {
    let side = (ts + 2 * b) as u64;
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
            n * side * side,
            caps.window_cells,
        )?;
        total += n;
        check(None, None, LimitKind::BinEntries, total, caps.bin_entries)?;
        ranges.push((c0, c1, r0, r1));
    }
    let mut entries: Vec<(i32, i32, u32)> = Vec::with_capacity(total as usize);
    for (i, &(c0, c1, r0, r1)) in ranges.iter().enumerate() {
        for r in r0..=r1 {
            for c in c0..=c1 {
                entries.push((r as i32, c as i32, i as u32));
            }
        }
    }
    entries.sort_unstable();
    let mut bins: Vec<(TileCell, Vec<u32>)> = Vec::new();
    for (r, c, i) in entries {
        match bins.last_mut() {
            Some((cell, list)) if cell.row == r && cell.column == c => list.push(i),
            _ => bins.push((TileCell { column: c, row: r }, vec![i])),
        }
    }
    check(None, None, LimitKind::Tiles, bins.len() as u64, caps.tiles)?;
    check(
        None,
        None,
        LimitKind::WindowCells,
        bins.len() as u64 * side * side,
        caps.window_cells,
    )?;
    Ok(bins)
}
