//! The tiles of a build (`spec/build3d.md` §15) checked as one mesh: what every build's output
//! must satisfy whoever built it. The runner applies [`check`] to the tiles a testee's `build`
//! answers (`spec/conformance.md` §1.13), `onav build` to its own result, and the fuzz target
//! `build_input` to every build it runs. The checks are independent of how the tiles were made:
//! onav's validating reader, its mesh, its snapshots and its queries, and properties written in
//! the spec.
//!
//! 1. every tile passes the tile reader (T1–T20) and the parameter block its rules (P1–P7);
//! 2. tiles come in ascending (row, column, layer), and the layers of a cell are 0, 1, … (B1, B49);
//! 3. the slot count is max(tiles, 1); every tile has the parameters' origin, tile size and
//!    settings digest, bit for bit (B49, B50);
//! 4. every vertex lies inside its tile's cell (B48); no off-mesh links, flags 1 (B49);
//! 5. the tiles join one mesh, in order (B50); its Full and Referenced snapshots restore to
//!    themselves;
//! 6. a nearest-polygon query at the centre of each tile's polygon 0 finds a polygon, and a path
//!    query from the first tile's polygon 0 to the last's is answered.
//!
//! [`Summary::walkable_area`] sums the polygons' areas (G7, halved) in tile and polygon order,
//! the order the reference builder reports its own sum in.

use onav::geom::{poly_area2_xz, Vec3};
use onav::query::{NavMeshQuery, QueryError, QueryFilter};
use onav::{
    FormatError, MeshError, MeshParams, NavMeshSnapshot, NavTile, PolyIndex, SnapshotMode,
    TileLibrary, TilePos, TiledNavMesh,
};

/// Counts of a build's tiles, for people and for the runner's check.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Summary {
    /// Tiles (tile-layers).
    pub tiles: usize,
    /// Tile cells with a tile.
    pub cells: usize,
    /// Tiles with a layer above 0.
    pub upper_layers: usize,
    /// The most layers of one cell.
    pub max_layers: u32,
    /// Ground polygons.
    pub polygons: usize,
    /// Sum of the polygons' x–z areas (wu²), in tile and polygon order.
    pub walkable_area: f64,
    /// Detail triangles.
    pub detail_triangles: usize,
}

/// Why a build's tiles do not form the mesh the spec promises.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BuiltError {
    /// The parameter block breaks a rule.
    #[error("the parameter block: {0}")]
    Params(FormatError),
    /// A tile the reader refuses.
    #[error("tile {index}: refused by the tile reader: {error}")]
    Tile {
        /// Its index in the reply.
        index: usize,
        /// The reader's error.
        error: FormatError,
    },
    /// Tiles out of build order.
    #[error(
        "tile {index} at {} does not follow {} (B1: ascending row, column, layer)",
        show(*pos), show(*prev)
    )]
    Order {
        /// The tile.
        index: usize,
        /// Its position.
        pos: TilePos,
        /// The position before it.
        prev: TilePos,
    },
    /// A layer number that is not the next of its cell.
    #[error("tile {index} at {}: a cell's layers are numbered 0, 1, … (B49)", show(*pos))]
    Layer {
        /// The tile.
        index: usize,
        /// Its position.
        pos: TilePos,
    },
    /// A slot count other than max(tiles, 1).
    #[error("slot count {slots} for {tiles} tiles; B50 says max(tiles, 1)")]
    SlotCount {
        /// The parameters' slot count.
        slots: u32,
        /// The tiles.
        tiles: usize,
    },
    /// A tile whose origin or tile size is not the parameters'.
    #[error("tile {index}: its origin or tile size differs from the parameters' (B49)")]
    Grid {
        /// The tile.
        index: usize,
    },
    /// A tile whose settings digest is not the parameters'.
    #[error("tile {index}: its settings digest differs from the parameters' (B49)")]
    Digest {
        /// The tile.
        index: usize,
    },
    /// A vertex outside the tile's cell.
    #[error("tile {index}: vertex {vertex} lies outside the tile's cell (B48)")]
    Outside {
        /// The tile.
        index: usize,
        /// The vertex.
        vertex: usize,
    },
    /// Off-mesh links in a built tile.
    #[error("tile {index} has off-mesh links; a built tile has none (B49)")]
    Links {
        /// The tile.
        index: usize,
    },
    /// Flags other than 1.
    #[error("tile {index}: polygon {poly} has flags {flags}; built polygons have 1 (B49)")]
    Flags {
        /// The tile.
        index: usize,
        /// The polygon.
        poly: usize,
        /// Its flags.
        flags: u16,
    },
    /// A tile that does not join the mesh of the others.
    #[error("tile {index} does not join the mesh: {error} (B50)")]
    Stitch {
        /// The tile.
        index: usize,
        /// The mesh's refusal.
        error: MeshError,
    },
    /// A snapshot of the mesh that does not restore to itself.
    #[error("the {mode} snapshot of the built mesh does not restore to the same bytes")]
    Snapshot {
        /// `Full` or `Referenced`.
        mode: &'static str,
    },
    /// A query that fails.
    #[error("tile {index}: {what}")]
    Query {
        /// The tile.
        index: usize,
        /// What failed.
        what: String,
    },
}

fn show(p: TilePos) -> String {
    format!("({}, {}, {})", p.column, p.row, p.layer)
}

/// The parameter block and the tiles of a reply, through onav's validating readers.
pub fn parse(params: &[u8], tiles: &[Vec<u8>]) -> Result<(MeshParams, Vec<NavTile>), BuiltError> {
    let p =
        MeshParams::read(&mut onav::bytes::Reader::new(params, 8)).map_err(BuiltError::Params)?;
    let tiles = tiles
        .iter()
        .enumerate()
        .map(|(index, b)| NavTile::from_bytes(b).map_err(|error| BuiltError::Tile { index, error }))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((p, tiles))
}

/// The x–z centre (mean of the corners) of polygon 0 of a tile, at the mean height.
fn centre(t: &NavTile) -> Option<Vec3> {
    let v: Vec<Vec3> = t.poly_vertices(PolyIndex(0))?.collect();
    let n = v.len() as f64;
    let mut c = [0.0; 3];
    for p in &v {
        for k in 0..3 {
            c[k] += p[k];
        }
    }
    Some(c.map(|x| x / n))
}

/// The counts of a list of tiles.
pub fn summary(tiles: &[NavTile]) -> Summary {
    let mut s = Summary {
        tiles: tiles.len(),
        ..Summary::default()
    };
    let mut prev: Option<(i32, i32)> = None;
    for t in tiles {
        let p = t.pos();
        if prev != Some((p.column, p.row)) {
            s.cells += 1;
        }
        prev = Some((p.column, p.row));
        s.upper_layers += usize::from(p.layer > 0);
        s.max_layers = s.max_layers.max(p.layer + 1);
        s.polygons += t.ground_polys().len();
        s.detail_triangles += t.detail_triangles().len();
        for i in 0..t.ground_poly_count() {
            if let Some(v) = t.poly_vertices(PolyIndex(i)) {
                let corners: Vec<Vec3> = v.collect();
                s.walkable_area += poly_area2_xz(&corners) * 0.5;
            }
        }
    }
    s
}

/// Checks a build's tiles (the module docs) and returns their mesh and summary.
pub fn check(params: MeshParams, tiles: &[NavTile]) -> Result<(TiledNavMesh, Summary), BuiltError> {
    if params.slot_count() as usize != tiles.len().max(1) {
        return Err(BuiltError::SlotCount {
            slots: params.slot_count(),
            tiles: tiles.len(),
        });
    }
    let mut prev: Option<TilePos> = None;
    for (index, t) in tiles.iter().enumerate() {
        let pos = t.pos();
        if let Some(q) = prev {
            if (pos.row, pos.column, pos.layer) <= (q.row, q.column, q.layer) {
                return Err(BuiltError::Order {
                    index,
                    pos,
                    prev: q,
                });
            }
        }
        let same_cell = prev.is_some_and(|q| (q.column, q.row) == (pos.column, pos.row));
        let want_layer = if same_cell {
            prev.map_or(0, |q| q.layer + 1)
        } else {
            0
        };
        if pos.layer != want_layer {
            return Err(BuiltError::Layer { index, pos });
        }
        prev = Some(pos);
        if !t.grid().bits_eq(&params.grid()) {
            return Err(BuiltError::Grid { index });
        }
        if t.digest() != params.digest() {
            return Err(BuiltError::Digest { index });
        }
        let [x0, z0, x1, z1] = t.cell_bounds();
        if let Some(vertex) = t
            .vertices()
            .iter()
            .position(|v| !(x0 <= v[0] && v[0] <= x1 && z0 <= v[2] && v[2] <= z1))
        {
            return Err(BuiltError::Outside { index, vertex });
        }
        if t.link_count() != 0 {
            return Err(BuiltError::Links { index });
        }
        if let Some((poly, flags)) = t.all_flags().enumerate().find(|&(_, f)| f != 1) {
            return Err(BuiltError::Flags { index, poly, flags });
        }
    }
    let mut mesh = TiledNavMesh::new(params);
    let mut refs = Vec::with_capacity(tiles.len());
    for (index, t) in tiles.iter().enumerate() {
        refs.push(
            mesh.add_tile(t.clone())
                .map_err(|error| BuiltError::Stitch { index, error })?,
        );
    }
    let library = TileLibrary::from_tiles(tiles);
    for (mode, name, lib) in [
        (SnapshotMode::Full, "Full", TileLibrary::new()),
        (SnapshotMode::Referenced, "Referenced", library),
    ] {
        let b = mesh.snapshot(mode);
        let same = NavMeshSnapshot::restore(&b, &lib).is_ok_and(|m| m.snapshot(mode) == b);
        if !same {
            return Err(BuiltError::Snapshot { mode: name });
        }
    }
    let query_error = |index: usize, e: QueryError| BuiltError::Query {
        index,
        what: e.to_string(),
    };
    let q = NavMeshQuery::new(&mesh, 4096).map_err(|e| query_error(0, e))?;
    let filter = QueryFilter::new();
    let size = params.grid().tile_size();
    let mut centres = Vec::with_capacity(tiles.len());
    for (index, t) in tiles.iter().enumerate() {
        let Some(c) = centre(t) else {
            return Err(BuiltError::Query {
                index,
                what: "no polygon 0".into(),
            });
        };
        // The mean of the corners is rounded: far from the origin (a cell height of 1e73 puts
        // every y near 1e74) it may lie an ulp off the polygon, so the box grows with it.
        let base = [size * 1e-3, size, size * 1e-3];
        let half = [0, 1, 2].map(|k| base[k].max(c[k].abs() * 1e-12));
        match q.find_nearest_poly(c, half, &filter) {
            Ok(Some(_)) => {}
            Ok(None) => {
                return Err(BuiltError::Query {
                    index,
                    what: "no polygon found at the centre of its polygon 0".into(),
                })
            }
            Err(e) => return Err(query_error(index, e)),
        }
        centres.push(c);
    }
    if let (Some(a), Some(b)) = (refs.first(), refs.last()) {
        let last = refs.len() - 1;
        q.find_path(
            a.poly(PolyIndex(0)),
            b.poly(PolyIndex(0)),
            centres[0],
            centres[last],
            &filter,
        )
        .map_err(|e| query_error(last, e))?;
    }
    Ok((mesh, summary(tiles)))
}
