//! The part of a cache that is state of the world, not of the run (`spec/tilecache.md` §3): the
//! builder's plan and the intermediate (compact heightfield) of every cached tile cell, built
//! once from geometry and settings and never changed. Shared between clones of a cache.
//!
//! The intermediates are kept uncompressed: they are read by every rebuild (the hot path), and
//! they hold 1.05 / 2.15 / 3.81 MB for dungeon / nav_test / undulating at 48-cell tiles;
//! deflate (level 1) shrinks them to 14 %, but decoding one cell costs 39–73 µs, while a rebuild
//! reads the arrays in place and copies only the areas (`spec/tilecache.md` §9, decision 3).
//! Each cell also keeps what a rebuild reuses (`onav_build3d::CachedCell`: the neighbour table,
//! the areas before and after erosion, the regions' sweep and the tiles without marks), about
//! 22 more bytes per span, so roughly twice those figures.

use onav::NavTile;
use onav_build3d::{AreaMark, BuildError, CachedCell, Plan, TileCell};
use rayon::prelude::*;

/// Tile cells a mark may change, by the windows its footprint's bounding box meets (TC9):
/// columns `c0 ..= c1`, rows `r0 ..= r1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Touch {
    c0: i64,
    c1: i64,
    r0: i64,
    r1: i64,
}

impl Touch {
    pub fn contains(&self, cell: TileCell) -> bool {
        let (c, r) = (i64::from(cell.column), i64::from(cell.row));
        self.c0 <= c && c <= self.c1 && self.r0 <= r && r <= self.r1
    }
}

/// The plan and the cached cells.
#[derive(Debug)]
pub(crate) struct World {
    pub plan: Plan,
    /// Cells with an intermediate, ascending (row, column).
    pub cells: Vec<TileCell>,
    /// Per cell, its intermediate and what a rebuild reuses (`Plan::rebuild`).
    pub cached: Vec<CachedCell>,
}

/// Largest magnitude a cell index is carried with: beyond every cell a mesh can hold (2^30
/// cells, build3d L6), so clamping changes no result.
const INDEX_CLAMP: f64 = (1u64 << 40) as f64;

impl World {
    /// Prepares every tile cell of the plan in parallel (ordered) and builds its tiles with no
    /// marks: the world and the tiles of the build, cells in plan order, layers ascending.
    pub fn build(plan: Plan) -> Result<(Self, Vec<NavTile>), BuildError> {
        let n = plan.tile_cells().len();
        let built: Vec<Result<Option<CachedCell>, BuildError>> = (0..n)
            .into_par_iter()
            .map(|i| match plan.prepare(i)? {
                Some(im) => Ok(Some(plan.cache_cell(im)?)),
                None => Ok(None),
            })
            .collect();
        let mut cells = Vec::new();
        let mut cached = Vec::new();
        let mut tiles = Vec::new();
        for r in built {
            if let Some(cc) = r? {
                cells.push(cc.cell());
                tiles.extend(cc.tiles().iter().cloned());
                cached.push(cc);
            }
        }
        Ok((
            Self {
                plan,
                cells,
                cached,
            },
            tiles,
        ))
    }

    /// The index of a cached cell.
    pub fn index_of(&self, cell: TileCell) -> Option<usize> {
        self.cells
            .binary_search_by_key(&(cell.row, cell.column), |c| (c.row, c.column))
            .ok()
    }

    /// The cells a mark may change (TC9): with its bounding box `[x0, x1] × [z0, z1]`, global
    /// cells `i0 = ⌊(x0 − ox) / cs⌋ − 1` … `i1 = ⌊(x1 − ox) / cs⌋ + 1` (z likewise), and the
    /// tile cells whose window (B cells around the tile) meets them: columns
    /// `⌊(i0 − B) / T⌋ … ⌊(i1 + B) / T⌋`, rows likewise.
    pub fn touch(&self, mark: &AreaMark) -> Touch {
        let b = mark.bounds();
        let o = self.plan.origin();
        let s = self.plan.settings().spec();
        let (cs, t, border) = (
            s.cell_size,
            i64::from(s.tile_size),
            i64::from(self.plan.border()),
        );
        let index = |v: f64, o: f64| {
            let f = ((v - o) / cs).floor();
            // Finite by the shapes' rules; clamped so that no overflow can occur.
            f.clamp(-INDEX_CLAMP, INDEX_CLAMP) as i64
        };
        let range = |lo: f64, hi: f64, o: f64| {
            let (i0, i1) = (index(lo, o) - 1, index(hi, o) + 1);
            ((i0 - border).div_euclid(t), (i1 + border).div_euclid(t))
        };
        let (c0, c1) = range(b[0], b[2], o[0]);
        let (r0, r1) = range(b[1], b[3], o[2]);
        Touch { c0, c1, r0, r1 }
    }

    /// Indices of the cached cells a touch range contains, ascending.
    pub fn touched(&self, t: &Touch) -> Vec<u32> {
        self.cells
            .iter()
            .enumerate()
            .filter(|(_, c)| t.contains(**c))
            .map(|(k, _)| k as u32)
            .collect()
    }

    /// Rebuilds cached cell `k` with `marks` in order (`Plan::rebuild`: the tiles of
    /// [`World::finish`], redoing only what the marks change).
    pub fn rebuild(&self, k: usize, marks: &[AreaMark]) -> Result<Vec<NavTile>, BuildError> {
        self.plan.rebuild(&self.cached[k], marks)
    }

    /// Builds cached cell `k` with `marks` in order from its intermediate, every stage redone.
    pub fn finish(&self, k: usize, marks: &[AreaMark]) -> Result<Vec<NavTile>, BuildError> {
        self.plan.finish(self.cached[k].intermediate(), marks)
    }

    /// Bytes the cached cells hold (approximate heap size, tiles not counted).
    pub fn intermediate_bytes(&self) -> usize {
        self.cached.iter().map(CachedCell::heap_bytes).sum()
    }
}
