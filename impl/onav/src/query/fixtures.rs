//! Hand-built meshes for the query tests: tiles drawn as character maps of unit quads.
//!
//! A map is a list of rows; row j (the j-th string) covers z in [z0 + j, z0 + j + 1] of its
//! cell and character i covers x in [x0 + i, x0 + i + 1]. `#` is a hole, `.` a quad of area 0,
//! a digit d a quad of area d, `X` a quad of area 0 with flags 1 | 2 (every other quad has
//! flags 1). Quads are numbered row by row, skipping holes; off-mesh link i follows them.

use std::collections::BTreeMap;

use crate::generator::WorldSpec;
use crate::geom::Vec3;
use crate::ids::{PolyIndex, PolyRef, Side, TilePos};
use crate::tile::{Edge, LinkDirection, NavTile, Polygon, RawTile};
use crate::TiledNavMesh;

/// The world settings of hand-built meshes of q × q unit quads per cell.
pub(crate) fn spec(q: u32) -> WorldSpec {
    WorldSpec {
        tile_size: f64::from(q),
        quads: q,
        ..WorldSpec::default()
    }
}

/// An off-mesh link to add to a tile.
#[derive(Clone, Copy)]
pub(crate) struct LinkDef {
    pub start: Vec3,
    pub end: Vec3,
    pub radius: f64,
    pub direction: LinkDirection,
}

/// One tile to draw.
pub(crate) struct TileDef<'a> {
    pub pos: TilePos,
    pub map: &'a [&'a str],
    /// Height of every vertex.
    pub y: f64,
    pub links: Vec<LinkDef>,
}

/// A position shorthand.
pub(crate) fn at(column: i32, row: i32, layer: u32) -> TilePos {
    TilePos { column, row, layer }
}

/// Builds the tile of a map.
pub(crate) fn map_tile(w: &WorldSpec, d: &TileDef<'_>) -> NavTile {
    let q = w.quads as usize;
    assert_eq!(d.map.len(), q, "map rows");
    let b = w.grid().cell_bounds(d.pos.column, d.pos.row);
    let mut vertices = Vec::new();
    for j in 0..=q {
        for i in 0..=q {
            vertices.push([b[0] + i as f64, d.y, b[1] + j as f64]);
        }
    }
    assert_eq!(vertices[q][0], b[2]);
    let cell = |i: i64, j: i64| -> Option<char> {
        if i < 0 || j < 0 || i >= q as i64 || j >= q as i64 {
            return None;
        }
        d.map[j as usize].chars().nth(i as usize)
    };
    let mut number = BTreeMap::new();
    for j in 0..q {
        for i in 0..q {
            if cell(i as i64, j as i64) != Some('#') {
                let n = number.len() as u32;
                number.insert((i, j), n);
            }
        }
    }
    let index = |i: usize, j: usize| (j * (q + 1) + i) as u32;
    let mut raw = RawTile {
        grid: w.grid(),
        digest: w.digest(),
        pos: d.pos,
        agent: w.agent,
        vertices,
        polys: Vec::new(),
        links: Vec::new(),
        detail_meshes: Vec::new(),
        detail_vertices: Vec::new(),
        detail_tris: Vec::new(),
        areas: Vec::new(),
        flags: Vec::new(),
    };
    // Quads in number order (row by row).
    let mut quads: Vec<((usize, usize), u32)> = number.iter().map(|(&k, &v)| (k, v)).collect();
    quads.sort_by_key(|&(_, n)| n);
    for ((i, j), _) in quads {
        let v = [
            index(i, j),
            index(i + 1, j),
            index(i + 1, j + 1),
            index(i, j + 1),
        ];
        let (ii, jj) = (i as i64, j as i64);
        let across = [
            (ii, jj - 1, Side::NegZ),
            (ii + 1, jj, Side::PosX),
            (ii, jj + 1, Side::PosZ),
            (ii - 1, jj, Side::NegX),
        ];
        let mut edges = [Edge::Wall; 6];
        for (k, &(ni, nj, side)) in across.iter().enumerate() {
            edges[k] = if ni < 0 || nj < 0 || ni >= q as i64 || nj >= q as i64 {
                Edge::Portal(side)
            } else {
                match number.get(&(ni as usize, nj as usize)) {
                    Some(&n) => Edge::Internal(PolyIndex(n)),
                    None => Edge::Wall,
                }
            };
        }
        let mut vertices = [0u32; 6];
        vertices[..4].copy_from_slice(&v);
        raw.polys.push(Polygon {
            vertex_count: 4,
            vertices,
            edges,
        });
        let c = cell(ii, jj).expect("in range");
        let (area, flags) = match c {
            'X' => (0, 3),
            d if d.is_ascii_digit() => (d as u8 - b'0', 1),
            _ => (0, 1),
        };
        raw.areas.push(area);
        raw.flags.push(flags);
    }
    raw.fan_detail();
    for (n, l) in d.links.iter().enumerate() {
        raw.push_link(l.start, l.end, l.radius, l.direction, n as u32);
    }
    raw.build().expect("fixture tile is valid")
}

/// A mesh of drawn tiles, with lookups by quad.
pub(crate) struct Fixture {
    pub mesh: TiledNavMesh,
    numbers: BTreeMap<TilePos, BTreeMap<(usize, usize), u32>>,
}

impl Fixture {
    /// Draws every tile and adds them in order (slot i holds tile i).
    pub fn new(q: u32, tiles: &[TileDef<'_>]) -> Self {
        let w = spec(q);
        let mut mesh = TiledNavMesh::new(w.params(tiles.len().max(1) as u32));
        let mut numbers = BTreeMap::new();
        for d in tiles {
            mesh.add_tile(map_tile(&w, d)).expect("add fixture tile");
            let mut n = BTreeMap::new();
            for (j, row) in d.map.iter().enumerate() {
                for (i, c) in row.chars().enumerate() {
                    if c != '#' {
                        let k = n.len() as u32;
                        n.insert((i, j), k);
                    }
                }
            }
            numbers.insert(d.pos, n);
        }
        Self { mesh, numbers }
    }

    /// The polygon of quad (i, j) of the tile at `pos`.
    pub fn quad(&self, pos: TilePos, i: usize, j: usize) -> PolyRef {
        let n = self.numbers[&pos][&(i, j)];
        self.mesh.tile_ref_at(pos).expect("tile").poly(PolyIndex(n))
    }

    /// The polygon of off-mesh link `link` of the tile at `pos`.
    pub fn link(&self, pos: TilePos, link: u32) -> PolyRef {
        let g = self.numbers[&pos].len() as u32;
        self.mesh
            .tile_ref_at(pos)
            .expect("tile")
            .poly(PolyIndex(g + link))
    }
}
