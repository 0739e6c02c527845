//! A deterministic tile generator (`spec/navmesh-format.md` §7): grid worlds with slopes, bumps,
//! holes, stacked layers, varying polygon density and off-mesh links within and across tiles.
//! No 3D builder is involved. Every random choice comes from a SplitMix64 hash of the world seed
//! and the integer coordinates it concerns, so a tile depends only on (spec, position) and tiles
//! generated separately stitch across their borders.

use crate::geom::Vec3;
use crate::ids::{PolyIndex, SettingsDigest, Side, TilePos};
use crate::params::{MeshParams, RawGrid, RawParams};
use crate::tile::{AgentSizes, DetailMesh, Edge, LinkDirection, NavTile, Polygon, RawTile};

/// The settings of a generated world. All fields are plain values so a scenario file can state them.
#[derive(Debug, Clone, PartialEq)]
pub struct WorldSpec {
    /// Seed of every random choice.
    pub seed: u64,
    /// Cells along x (columns 0 .. columns).
    pub columns: i32,
    /// Cells along z (rows 0 .. rows).
    pub rows: i32,
    /// Layers per cell, stacked `layer_gap` apart.
    pub layers: u32,
    /// World origin (x, y, z), in world units.
    pub origin: Vec3,
    /// Cell edge length, in world units (> 0 for a usable world).
    pub tile_size: f64,
    /// Quads per cell side (polygon density): a tile has up to q² ground polygons.
    pub quads: u32,
    /// When true, cells whose hash says so use 2q quads per side, so portals overlap partially.
    pub vary_density: bool,
    /// Ground height slope along x and z, in world units of height per world unit:
    /// `y = slope[0]·x + slope[1]·z` (+ `layer·layer_gap`).
    pub slope: [f64; 2],
    /// Largest height bump added to interior vertices, in world units (keep below the climb for
    /// connected worlds).
    pub bump: f64,
    /// Probability, in 1/256, that a quad is a hole.
    pub hole_chance: u8,
    /// Vertical distance between layers, in world units.
    pub layer_gap: f64,
    /// Off-mesh links per tile.
    pub links_per_tile: u32,
    /// Agent sizes written in every tile.
    pub agent: AgentSizes,
    /// Areas are drawn from 0 .. area_kinds (1 means every polygon has area 0).
    pub area_kinds: u8,
}

impl Default for WorldSpec {
    fn default() -> Self {
        Self {
            seed: 1,
            columns: 4,
            rows: 4,
            layers: 1,
            origin: [0.0, 0.0, 0.0],
            tile_size: 16.0,
            quads: 4,
            vary_density: false,
            slope: [0.0, 0.0],
            bump: 0.0,
            hole_chance: 0,
            layer_gap: 8.0,
            links_per_tile: 0,
            agent: AgentSizes {
                height: 2.0,
                radius: 0.5,
                climb: 0.9,
            },
            area_kinds: 1,
        }
    }
}

/// SplitMix64 finaliser: the generator's only source of randomness.
pub fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn hash(seed: u64, tag: u64, a: i64, b: i64, c: i64) -> u64 {
    let mut h = mix(seed ^ tag.wrapping_mul(0x1000_0000_01b3));
    for v in [a, b, c] {
        h = mix(h ^ v as u64);
    }
    h
}

/// A uniform value in [0, 1) with 53 bits.
fn unit(h: u64) -> f64 {
    (h >> 11) as f64 / (1u64 << 53) as f64
}

impl WorldSpec {
    /// The settings digest of this world: SHA-256 of "onav-generator/1", the agent sizes and the grid.
    pub fn digest(&self) -> SettingsDigest {
        let mut b = b"onav-generator/1".to_vec();
        for v in [
            self.agent.height,
            self.agent.radius,
            self.agent.climb,
            self.tile_size,
        ] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        self.origin
            .iter()
            .for_each(|v| b.extend_from_slice(&v.to_le_bytes()));
        SettingsDigest::of_bytes(&b)
    }

    /// The grid, as plain data: the world's settings are not checked.
    pub fn grid(&self) -> RawGrid {
        RawGrid {
            origin: self.origin,
            tile_size: self.tile_size,
        }
    }

    /// Mesh parameters for this world with `slot_count` slots, as plain data.
    pub fn raw_params(&self, slot_count: u32) -> RawParams {
        RawParams {
            grid: self.grid(),
            slot_count,
            digest: self.digest(),
        }
    }

    /// Mesh parameters for this world with `slot_count` slots.
    ///
    /// # Panics
    ///
    /// If they break a rule of `spec/navmesh-format.md` §2: a slot count of 0 or above
    /// [`MAX_SLOTS`](crate::limits::MAX_SLOTS), or a world whose origin or tile size is unusable.
    /// For tests and benchmarks, like [`WorldSpec::tile`]; [`WorldSpec::raw_params`] and
    /// [`RawParams::check`] report the rule instead.
    pub fn params(&self, slot_count: u32) -> MeshParams {
        match self.raw_params(slot_count).check() {
            Ok(p) => p,
            Err(e) => panic!("unusable world parameters: {e}"),
        }
    }

    /// Mesh parameters with exactly one slot per tile of the world.
    pub fn params_fitting(&self) -> MeshParams {
        let n =
            (self.columns.max(1) as u64 * self.rows.max(1) as u64 * u64::from(self.layers.max(1)))
                .min(u64::from(crate::limits::MAX_SLOTS));
        self.params(n as u32)
    }

    /// Every tile position of the world, in (layer, row, column) order.
    pub fn positions(&self) -> Vec<TilePos> {
        let mut out = Vec::new();
        for layer in 0..self.layers {
            for row in 0..self.rows {
                for column in 0..self.columns {
                    out.push(TilePos { column, row, layer });
                }
            }
        }
        out
    }

    /// Every tile of the world.
    pub fn tiles(&self) -> Vec<NavTile> {
        self.positions().into_iter().map(|p| self.tile(p)).collect()
    }

    fn quads_of(&self, column: i32, row: i32) -> u32 {
        let q = self.quads.max(1);
        if self.vary_density && hash(self.seed, 1, column.into(), row.into(), 0) & 1 == 1 {
            q * 2
        } else {
            q
        }
    }

    /// Ground height at world (x, z) on a layer, without bumps.
    fn ground(&self, x: f64, z: f64, layer: u32) -> f64 {
        self.slope[0] * x + self.slope[1] * z + f64::from(layer) * self.layer_gap
    }

    fn is_hole(&self, pos: TilePos, i: u32, j: u32, q: u32) -> bool {
        self.hole_chance > 0
            && (hash(
                self.seed,
                2,
                pos.column.into(),
                pos.row.into(),
                (i64::from(pos.layer) << 40)
                    | (i64::from(q) << 20)
                    | (i64::from(i) << 10)
                    | i64::from(j),
            ) & 255)
                < u64::from(self.hole_chance)
    }

    /// The x (or z) coordinate of grid line k of q in a cell: exactly the cell bounds at k = 0
    /// and k = q.
    fn line(lo: f64, hi: f64, k: u32, q: u32) -> f64 {
        if k == 0 {
            lo
        } else if k == q {
            hi
        } else {
            lo + (hi - lo) * (f64::from(k) / f64::from(q))
        }
    }

    /// Surface geometry of a cell without links: vertices and the quads that exist.
    fn surface(&self, pos: TilePos) -> (Vec<Vec3>, Vec<(u32, u32)>, u32) {
        let q = self.quads_of(pos.column, pos.row);
        let b = self.grid().cell_bounds(pos.column, pos.row);
        let mut verts = Vec::with_capacity(((q + 1) * (q + 1)) as usize);
        for j in 0..=q {
            for i in 0..=q {
                let x = Self::line(b[0], b[2], i, q);
                let z = Self::line(b[1], b[3], j, q);
                let mut y = self.ground(x, z, pos.layer);
                if self.bump > 0.0 && i > 0 && i < q && j > 0 && j < q {
                    y += self.bump
                        * unit(hash(
                            self.seed,
                            3,
                            pos.column.into(),
                            pos.row.into(),
                            i64::from(j * (q + 1) + i),
                        ));
                }
                verts.push([x, y, z]);
            }
        }
        let mut quads = Vec::new();
        for j in 0..q {
            for i in 0..q {
                if !self.is_hole(pos, i, j, q) {
                    quads.push((i, j));
                }
            }
        }
        (verts, quads, q)
    }

    /// The tile at `pos`. Panics only if the spec itself is unusable (for example a zero tile size).
    pub fn tile(&self, pos: TilePos) -> NavTile {
        let raw = self.raw_tile(pos);
        match raw.build() {
            Ok(t) => t,
            Err(e) => panic!("generator produced an invalid tile at {pos:?}: {e}"),
        }
    }

    /// The tile at `pos` as plain data.
    pub fn raw_tile(&self, pos: TilePos) -> RawTile {
        let (verts, quads, q) = self.surface(pos);
        let index = |i: u32, j: u32| j * (q + 1) + i;
        let mut slot_of = vec![u32::MAX; (q * q) as usize];
        for (k, &(i, j)) in quads.iter().enumerate() {
            slot_of[(j * q + i) as usize] = k as u32;
        }
        let exists = |i: i64, j: i64| -> Option<u32> {
            if i < 0 || j < 0 || i >= i64::from(q) || j >= i64::from(q) {
                return None;
            }
            let s = slot_of[(j as u32 * q + i as u32) as usize];
            (s != u32::MAX).then_some(s)
        };
        let mut raw = RawTile {
            grid: self.grid(),
            digest: self.digest(),
            pos,
            agent: self.agent,
            vertices: verts,
            polys: Vec::with_capacity(quads.len()),
            links: Vec::new(),
            detail_meshes: Vec::new(),
            detail_vertices: Vec::new(),
            detail_tris: Vec::new(),
            areas: Vec::new(),
            flags: Vec::new(),
        };
        for &(i, j) in &quads {
            // Counter-clockwise on x–z (orient > 0): (i,j) → (i+1,j) → (i+1,j+1) → (i,j+1).
            let v = [
                index(i, j),
                index(i + 1, j),
                index(i + 1, j + 1),
                index(i, j + 1),
            ];
            let (ii, jj) = (i64::from(i), i64::from(j));
            // Edge k runs v[k] → v[k+1]: −z side, +x side, +z side, −x side.
            let across = [
                (ii, jj - 1, Side::NegZ),
                (ii + 1, jj, Side::PosX),
                (ii, jj + 1, Side::PosZ),
                (ii - 1, jj, Side::NegX),
            ];
            let mut edges = [Edge::Wall; 6];
            for (k, &(ni, nj, side)) in across.iter().enumerate() {
                let on_border = ni < 0 || nj < 0 || ni >= i64::from(q) || nj >= i64::from(q);
                edges[k] = if on_border {
                    Edge::Portal(side)
                } else {
                    exists(ni, nj).map_or(Edge::Wall, |s| Edge::Internal(PolyIndex(s)))
                };
            }
            let mut vertices = [0u32; 6];
            vertices[..4].copy_from_slice(&v);
            raw.polys.push(Polygon {
                vertex_count: 4,
                vertices,
                edges,
            });
            let h = hash(
                self.seed,
                4,
                pos.column.into(),
                pos.row.into(),
                i64::from(pos.layer) << 32 | i64::from(j * q + i),
            );
            let area = (h % u64::from(self.area_kinds.max(1))) as u8;
            raw.areas.push(area);
            raw.flags.push(1 << (area % 16));
            // Detail: a fan from vertex 0, or around a raised centre vertex when the hash says so.
            let base_t = raw.detail_tris.len() as u32;
            let base_v = raw.detail_vertices.len() as u32;
            if self.bump > 0.0 && (h >> 8) & 3 == 0 {
                let c = v.map(|k| raw.vertices[k as usize]);
                let cx = (c[0][0] + c[1][0] + c[2][0] + c[3][0]) / 4.0;
                let cz = (c[0][2] + c[1][2] + c[2][2] + c[3][2]) / 4.0;
                let cy = (c[0][1] + c[1][1] + c[2][1] + c[3][1]) / 4.0 + self.bump * 0.25;
                raw.detail_vertices.push([cx, cy, cz]);
                for k in 0..4u8 {
                    raw.detail_tris.push([4, k, (k + 1) % 4]);
                }
                raw.detail_meshes.push(DetailMesh {
                    vertex_base: base_v,
                    vertex_count: 1,
                    triangle_base: base_t,
                    triangle_count: 4,
                });
            } else {
                raw.detail_tris.push([0, 1, 2]);
                raw.detail_tris.push([0, 2, 3]);
                raw.detail_meshes.push(DetailMesh {
                    vertex_base: base_v,
                    vertex_count: 0,
                    triangle_base: base_t,
                    triangle_count: 2,
                });
            }
        }
        self.add_links(&mut raw, pos, &quads, q);
        raw
    }

    /// A point on quad (i, j) of a cell and its height: the midpoint of the quad's diagonal from
    /// vertex 0 to vertex 2, which lies on the detail triangles' shared edge in both detail shapes.
    fn quad_point(&self, verts: &[Vec3], i: u32, j: u32, q: u32) -> Vec3 {
        let a = verts[(j * (q + 1) + i) as usize];
        let c = verts[((j + 1) * (q + 1) + i + 1) as usize];
        [
            (a[0] + c[0]) / 2.0,
            (a[1] + c[1]) / 2.0,
            (a[2] + c[2]) / 2.0,
        ]
    }

    fn add_links(&self, raw: &mut RawTile, pos: TilePos, quads: &[(u32, u32)], q: u32) {
        if quads.is_empty() {
            return;
        }
        for n in 0..self.links_per_tile {
            let h = hash(
                self.seed,
                5,
                pos.column.into(),
                pos.row.into(),
                i64::from(pos.layer) << 32 | i64::from(n),
            );
            let (si, sj) = quads[(h % quads.len() as u64) as usize];
            let start = self.quad_point(&raw.vertices, si, sj, q);
            // The end: a quad of a cell in the 3 × 3 neighbourhood, any layer, inside the world.
            let h2 = mix(h);
            let dc = (h2 % 3) as i32 - 1;
            let dr = ((h2 >> 8) % 3) as i32 - 1;
            let layer = ((h2 >> 16) % u64::from(self.layers.max(1))) as u32;
            let target = TilePos {
                column: pos.column + dc,
                row: pos.row + dr,
                layer,
            };
            let target = if target.column < 0
                || target.row < 0
                || target.column >= self.columns
                || target.row >= self.rows
            {
                TilePos {
                    column: pos.column,
                    row: pos.row,
                    layer,
                }
            } else {
                target
            };
            let (tverts, tquads, tq) = self.surface(target);
            if tquads.is_empty() {
                continue;
            }
            let (ei, ej) = tquads[((h2 >> 24) % tquads.len() as u64) as usize];
            let end = self.quad_point(&tverts, ei, ej, tq);
            if end == start {
                continue;
            }
            let radius = self.tile_size / f64::from(q.max(tq)) * 0.5;
            let direction = if (h2 >> 40) & 1 == 0 {
                LinkDirection::OneWay
            } else {
                LinkDirection::Bidirectional
            };
            raw.push_link(start, end, radius, direction, n);
        }
    }
}

/// Worlds the tests share.
pub mod worlds {
    use super::WorldSpec;

    /// The layered, holed, density-varying world the mesh, stitching, history and query tests
    /// share: 3 × 3 cells, two layers, holes, two links per tile, three areas.
    pub fn layered() -> WorldSpec {
        WorldSpec {
            columns: 3,
            rows: 3,
            layers: 2,
            quads: 3,
            vary_density: true,
            slope: [0.05, -0.03],
            bump: 0.3,
            hole_chance: 30,
            links_per_tile: 2,
            area_kinds: 3,
            ..WorldSpec::default()
        }
    }
}
