//! Detour tile → onav tile data, the four steps of `shared/research/detour-vs-onav.md` ("The
//! conversion"), on the bench's own plain types (the adapter writes them as `onav::RawTile`):
//!
//! 1. **winding**: Recast polygons are clockwise in onav's x-then-z sense; new slot j takes Detour
//!    vertex (n − j) mod n, new edge j is Detour edge n − 1 − j, detail triangle corners are
//!    remapped the same way and their 2nd and 3rd index swapped;
//! 2. **snap**: a polygon vertex's x or z within 1e-3 of a cell border line is set to onav's
//!    binary64 bound `ox + k·s` (`spec/navmesh-format.md` §1.4);
//! 3. **detail repair**: an extra detail vertex within 1e-3 of a polygon edge line is projected
//!    onto the edge in f64 and, if rounding leaves it outside, pulled towards the polygon's
//!    centroid in 1e-13 relative steps until inside (T17.1); a polygon whose detail mesh still
//!    fails T17 falls back to a fan (counted: none is expected);
//! 4. **layer split**: regions grown breadth-first over internal edges, each from the lowest
//!    unassigned polygon, refusing a polygon whose portal intervals overlap the region's on a side
//!    (a refused internal edge becomes a wall, "the cut edge"); each region takes the lowest layer
//!    where its portals overlap none already there; one onav tile per layer (T20).
//!
//! The geometric predicates are onav's own (through the adapter), so "inside" means what onav's
//! reader checks.

use crate::adapter::geom;
use crate::detour::Tile;

/// Distance within which a coordinate is snapped to a cell border, or a detail vertex projected
/// onto a polygon edge (m).
pub const SNAP: f64 = 1e-3;
/// Relative step of the centroid pull.
pub const NUDGE: f64 = 1e-13;
/// T17.3's relative area tolerance (`spec/navmesh-format.md`, rule T17).
pub const AREA_TOLERANCE: f64 = 1e-9;

/// A cell grid: origin and tile size, as onav holds them (f64 of Detour's f32).
#[derive(Debug, Clone, Copy)]
pub struct GridSpec {
    /// Origin x, y, z.
    pub origin: [f64; 3],
    /// Tile size.
    pub size: f64,
}

impl GridSpec {
    /// Border line k on axis 0 (x) or 2 (z): `o + k·s` with k in f64.
    pub fn border(&self, axis: usize, k: f64) -> f64 {
        self.origin[axis] + k * self.size
    }
}

/// What lies across a polygon edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edge {
    /// A wall.
    Wall,
    /// A polygon of the same tile.
    Internal(u32),
    /// A portal on onav side 0 (+x), 1 (+z), 2 (−x) or 3 (−z).
    Portal(u8),
}

/// A ground polygon: vertex indices and one edge per vertex (edge k from vertex k to k + 1).
#[derive(Debug, Clone, PartialEq)]
pub struct Poly {
    /// Vertex indices.
    pub verts: Vec<u32>,
    /// Edges.
    pub edges: Vec<Edge>,
}

/// A polygon's detail mesh record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Detail {
    /// First extra vertex.
    pub vbase: u32,
    /// Extra vertex count.
    pub vcount: u32,
    /// First triangle.
    pub tbase: u32,
    /// Triangle count.
    pub tcount: u32,
}

/// One tile as plain data, in onav's layout.
#[derive(Debug, Clone, PartialEq)]
pub struct PlainTile {
    /// Cell column.
    pub column: i32,
    /// Cell row.
    pub row: i32,
    /// Layer.
    pub layer: u32,
    /// Agent height, radius, climb.
    pub agent: [f64; 3],
    /// Vertices.
    pub vertices: Vec<[f64; 3]>,
    /// Polygons.
    pub polys: Vec<Poly>,
    /// Detail records, one per polygon.
    pub detail: Vec<Detail>,
    /// Extra detail vertices.
    pub detail_verts: Vec<[f64; 3]>,
    /// Detail triangles.
    pub detail_tris: Vec<[u8; 3]>,
    /// Areas, one per polygon.
    pub areas: Vec<u8>,
    /// Flags, one per polygon.
    pub flags: Vec<u16>,
}

/// Which steps to apply (cumulatively, for the stage table).
#[derive(Debug, Clone, Copy)]
pub struct Steps {
    /// Step 1.
    pub flip: bool,
    /// Step 2.
    pub snap: bool,
    /// Step 3.
    pub repair: bool,
    /// Step 4.
    pub split: bool,
}

impl Steps {
    /// The first `n` steps (0 = the literal reading).
    pub fn first(n: usize) -> Self {
        Self {
            flip: n >= 1,
            snap: n >= 2,
            repair: n >= 3,
            split: n >= 4,
        }
    }
}

/// What the repair steps did, summed over tiles.
#[derive(Debug, Clone, Copy, Default)]
pub struct Repairs {
    /// Coordinates snapped to a border.
    pub snapped: usize,
    /// Largest snap move (m).
    pub snap_max: f64,
    /// Detail vertices projected onto an edge.
    pub projected: usize,
    /// Largest projection move (m).
    pub project_max: f64,
    /// Of those, vertices pulled towards the centroid.
    pub nudged: usize,
    /// Polygons whose detail mesh was replaced by a fan.
    pub fan_fallbacks: usize,
    /// Recast tiles split into more than one layer.
    pub split_tiles: usize,
    /// Internal edges cut by the split (undirected).
    pub cut_edges: usize,
}

impl Repairs {
    /// Adds another tile's figures.
    pub fn add(&mut self, o: &Repairs) {
        self.snapped += o.snapped;
        self.snap_max = self.snap_max.max(o.snap_max);
        self.projected += o.projected;
        self.project_max = self.project_max.max(o.project_max);
        self.nudged += o.nudged;
        self.fan_fallbacks += o.fan_fallbacks;
        self.split_tiles += o.split_tiles;
        self.cut_edges += o.cut_edges;
    }
}

/// The converted tiles of one Detour tile, and where each Detour polygon went.
#[derive(Debug, Clone)]
pub struct Converted {
    /// One tile per layer.
    pub tiles: Vec<PlainTile>,
    /// Per Detour polygon index: (layer, index in that layer's tile).
    pub poly_map: Vec<(u32, u32)>,
    /// What the repairs did.
    pub repairs: Repairs,
}

fn f64s(v: &[f32]) -> Vec<[f64; 3]> {
    v.chunks_exact(3)
        .map(|c| [f64::from(c[0]), f64::from(c[1]), f64::from(c[2])])
        .collect()
}

/// Converts one live Detour tile with `steps`.
pub fn convert(t: &Tile<'_>, grid: &GridSpec, steps: Steps) -> Converted {
    let (x, y) = t.xy();
    let mut rep = Repairs::default();
    let mut tile = PlainTile {
        column: x,
        row: y,
        layer: 0,
        agent: t.agent().map(f64::from),
        vertices: f64s(t.verts()),
        polys: Vec::new(),
        detail: Vec::new(),
        detail_verts: f64s(t.detail_verts()),
        detail_tris: Vec::new(),
        areas: Vec::new(),
        flags: Vec::new(),
    };
    for (p, d) in t.polys().iter().zip(t.detail_meshes()) {
        let n = usize::from(p.vertCount);
        let edge = |e: usize| -> Edge {
            let nei = p.neis[e];
            if nei & 0x8000 != 0 {
                Edge::Portal(((nei & 0xff) / 2) as u8)
            } else if nei == 0 {
                Edge::Wall
            } else {
                Edge::Internal(u32::from(nei) - 1)
            }
        };
        let (verts, edges) = if steps.flip {
            (
                (0..n).map(|j| u32::from(p.verts[(n - j) % n])).collect(),
                (0..n).map(|j| edge(n - 1 - j)).collect(),
            )
        } else {
            (
                (0..n).map(|j| u32::from(p.verts[j])).collect(),
                (0..n).map(edge).collect(),
            )
        };
        tile.polys.push(Poly { verts, edges });
        tile.detail.push(Detail {
            vbase: d.vertBase,
            vcount: u32::from(d.vertCount),
            tbase: d.triBase,
            tcount: u32::from(d.triCount),
        });
        let tris = t.detail_tris();
        for k in 0..usize::from(d.triCount) {
            let c = &tris[(d.triBase as usize + k) * 4..][..3];
            let tri = if steps.flip {
                let m = |i: u8| {
                    if usize::from(i) < n {
                        ((n - usize::from(i)) % n) as u8
                    } else {
                        i
                    }
                };
                [m(c[0]), m(c[2]), m(c[1])]
            } else {
                [c[0], c[1], c[2]]
            };
            tile.detail_tris.push(tri);
        }
        tile.areas.push(p.areaAndtype & 0x3f);
        tile.flags.push(p.flags);
    }
    if steps.snap {
        snap(&mut tile, grid, &mut rep);
    }
    if steps.repair {
        repair(&mut tile, &mut rep);
    }
    let np = tile.polys.len() as u32;
    if steps.split {
        let (tiles, poly_map) = split(tile, &mut rep);
        Converted {
            tiles,
            poly_map,
            repairs: rep,
        }
    } else {
        Converted {
            tiles: vec![tile],
            poly_map: (0..np).map(|i| (0, i)).collect(),
            repairs: rep,
        }
    }
}

fn snap(t: &mut PlainTile, grid: &GridSpec, rep: &mut Repairs) {
    let snap1 = |v: &mut [f64; 3], rep: &mut Repairs| {
        for axis in [0, 2] {
            let k = ((v[axis] - grid.origin[axis]) / grid.size).round();
            let b = grid.border(axis, k);
            let d = (v[axis] - b).abs();
            if d <= SNAP && v[axis] != b {
                v[axis] = b;
                rep.snapped += 1;
                rep.snap_max = rep.snap_max.max(d);
            }
        }
    };
    // Only polygon vertices: an extra detail vertex on a border edge is projected onto it by
    // step 3, which lands exactly on the snapped border.
    for v in t.vertices.iter_mut() {
        snap1(v, rep);
    }
}

fn corners(t: &PlainTile, p: &Poly) -> Vec<[f64; 3]> {
    p.verts.iter().map(|&v| t.vertices[v as usize]).collect()
}

/// Distance on x–z from p to segment (a, b), and the closest point (p's y kept).
fn to_segment(p: &[f64; 3], a: &[f64; 3], b: &[f64; 3]) -> (f64, [f64; 3]) {
    let t = geom::closest_t_on_segment_xz(p, a, b);
    let q = [a[0] + (b[0] - a[0]) * t, p[1], a[2] + (b[2] - a[2]) * t];
    (geom::dist2_xz(p, &q).sqrt(), q)
}

fn repair(t: &mut PlainTile, rep: &mut Repairs) {
    for pi in 0..t.polys.len() {
        let c = corners(t, &t.polys[pi]);
        let n = c.len();
        let d = t.detail[pi];
        for vi in d.vbase..d.vbase + d.vcount {
            let v = t.detail_verts[vi as usize];
            let best = (0..n)
                .map(|k| to_segment(&v, &c[k], &c[(k + 1) % n]))
                .min_by(|a, b| a.0.total_cmp(&b.0));
            let Some((dist, mut q)) = best else { continue };
            if dist > SNAP || (dist == 0.0 && geom::point_in_convex_xz(&v, &c)) {
                continue;
            }
            rep.projected += 1;
            rep.project_max = rep.project_max.max(dist);
            if !geom::point_in_convex_xz(&q, &c) {
                let cx = c.iter().map(|p| p[0]).sum::<f64>() / n as f64;
                let cz = c.iter().map(|p| p[2]).sum::<f64>() / n as f64;
                let base = q;
                for k in 1..=100_000u32 {
                    let s = f64::from(k) * NUDGE;
                    q = [
                        base[0] + (cx - base[0]) * s,
                        base[1],
                        base[2] + (cz - base[2]) * s,
                    ];
                    if geom::point_in_convex_xz(&q, &c) {
                        break;
                    }
                }
                rep.nudged += 1;
            }
            t.detail_verts[vi as usize] = q;
        }
        if !detail_ok(t, pi) {
            fan(t, pi);
            rep.fan_fallbacks += 1;
        }
    }
}

/// T17 for polygon `pi`: extra vertices inside, triangles counter-clockwise, areas summing to the
/// polygon's within the tolerance.
fn detail_ok(t: &PlainTile, pi: usize) -> bool {
    let c = corners(t, &t.polys[pi]);
    let d = t.detail[pi];
    let extra = &t.detail_verts[d.vbase as usize..(d.vbase + d.vcount) as usize];
    if !extra.iter().all(|v| geom::point_in_convex_xz(v, &c)) {
        return false;
    }
    let n = c.len();
    let get = |i: u8| -> [f64; 3] {
        let i = usize::from(i);
        if i < n {
            c[i]
        } else {
            extra[i - n]
        }
    };
    let mut sum = 0.0;
    for tri in &t.detail_tris[d.tbase as usize..(d.tbase + d.tcount) as usize] {
        let o = geom::orient(&get(tri[0]), &get(tri[1]), &get(tri[2]));
        if o.is_nan() || o <= 0.0 {
            return false;
        }
        sum += o;
    }
    let area = geom::poly_area2_xz(&c);
    (sum - area).abs() <= AREA_TOLERANCE * area
}

/// Replaces polygon `pi`'s detail mesh by a fan with no extra vertices; the arrays are rebuilt
/// so every record stays contiguous.
fn fan(t: &mut PlainTile, pi: usize) {
    let mut verts = Vec::with_capacity(t.detail_verts.len());
    let mut tris = Vec::with_capacity(t.detail_tris.len());
    let mut detail = Vec::with_capacity(t.detail.len());
    for (i, d) in t.detail.iter().enumerate() {
        let (vbase, tbase) = (verts.len() as u32, tris.len() as u32);
        if i == pi {
            let n = t.polys[i].verts.len() as u8;
            tris.extend((1..n - 1).map(|k| [0, k, k + 1]));
            detail.push(Detail {
                vbase,
                vcount: 0,
                tbase,
                tcount: u32::from(n - 2),
            });
        } else {
            verts.extend_from_slice(
                &t.detail_verts[d.vbase as usize..(d.vbase + d.vcount) as usize],
            );
            tris.extend_from_slice(&t.detail_tris[d.tbase as usize..(d.tbase + d.tcount) as usize]);
            detail.push(Detail {
                vbase,
                vcount: d.vcount,
                tbase,
                tcount: d.tcount,
            });
        }
    }
    (t.detail_verts, t.detail_tris, t.detail) = (verts, tris, detail);
}

/// Portal intervals of a polygon: (side, lo, hi) along the side's axis.
fn portals(t: &PlainTile, p: &Poly) -> Vec<(u8, f64, f64)> {
    let n = p.verts.len();
    p.edges
        .iter()
        .enumerate()
        .filter_map(|(k, e)| match *e {
            Edge::Portal(s) => {
                let u = if s % 2 == 0 { 2 } else { 0 };
                let (a, b) = (
                    t.vertices[p.verts[k] as usize][u],
                    t.vertices[p.verts[(k + 1) % n] as usize][u],
                );
                Some((s, a.min(b), a.max(b)))
            }
            _ => None,
        })
        .collect()
}

fn overlaps(a: &[(u8, f64, f64)], b: &[(u8, f64, f64)]) -> bool {
    a.iter()
        .any(|x| b.iter().any(|y| x.0 == y.0 && x.1 < y.2 && y.1 < x.2))
}

fn split(t: PlainTile, rep: &mut Repairs) -> (Vec<PlainTile>, Vec<(u32, u32)>) {
    let np = t.polys.len();
    let ports: Vec<_> = t.polys.iter().map(|p| portals(&t, p)).collect();
    // Regions, breadth-first from the lowest unassigned polygon.
    let mut region = vec![usize::MAX; np];
    let mut region_ports: Vec<Vec<(u8, f64, f64)>> = Vec::new();
    for seed in 0..np {
        if region[seed] != usize::MAX {
            continue;
        }
        let r = region_ports.len();
        region[seed] = r;
        let mut rp = ports[seed].clone();
        let mut queue = std::collections::VecDeque::from([seed]);
        while let Some(p) = queue.pop_front() {
            for e in &t.polys[p].edges {
                let Edge::Internal(q) = *e else { continue };
                let q = q as usize;
                if region[q] != usize::MAX || overlaps(&ports[q], &rp) {
                    continue;
                }
                region[q] = r;
                rp.extend_from_slice(&ports[q]);
                queue.push_back(q);
            }
        }
        region_ports.push(rp);
    }
    // Layers: the lowest whose portals the region overlaps nowhere.
    let mut layer_ports: Vec<Vec<(u8, f64, f64)>> = Vec::new();
    let mut region_layer = Vec::with_capacity(region_ports.len());
    for rp in &region_ports {
        let l = layer_ports
            .iter()
            .position(|lp| !overlaps(rp, lp))
            .unwrap_or(layer_ports.len());
        if l == layer_ports.len() {
            layer_ports.push(Vec::new());
        }
        layer_ports[l].extend_from_slice(rp);
        region_layer.push(l);
    }
    let layer_of: Vec<usize> = region.iter().map(|&r| region_layer[r]).collect();
    let nl = layer_ports.len().max(1);
    if nl > 1 {
        rep.split_tiles += 1;
    }
    for (p, poly) in t.polys.iter().enumerate() {
        for e in &poly.edges {
            if let Edge::Internal(q) = *e {
                if (q as usize) > p && layer_of[q as usize] != layer_of[p] {
                    rep.cut_edges += 1;
                }
            }
        }
    }
    // Index of each polygon within its layer.
    let mut index = vec![0u32; np];
    let mut counts = vec![0u32; nl];
    for p in 0..np {
        index[p] = counts[layer_of[p]];
        counts[layer_of[p]] += 1;
    }
    let tiles = (0..nl)
        .map(|l| layer_tile(&t, l, &layer_of, &index))
        .collect();
    let map = (0..np).map(|p| (layer_of[p] as u32, index[p])).collect();
    (tiles, map)
}

/// The tile of layer `l`: its polygons in their original order, only the vertices they use.
fn layer_tile(t: &PlainTile, l: usize, layer_of: &[usize], index: &[u32]) -> PlainTile {
    let mut vmap = vec![u32::MAX; t.vertices.len()];
    let mut out = PlainTile {
        layer: l as u32,
        vertices: Vec::new(),
        polys: Vec::new(),
        detail: Vec::new(),
        detail_verts: Vec::new(),
        detail_tris: Vec::new(),
        areas: Vec::new(),
        flags: Vec::new(),
        ..t.clone()
    };
    for (p, poly) in t
        .polys
        .iter()
        .enumerate()
        .filter(|(p, _)| layer_of[*p] == l)
    {
        let mut verts = Vec::with_capacity(poly.verts.len());
        for &v in &poly.verts {
            if vmap[v as usize] == u32::MAX {
                vmap[v as usize] = out.vertices.len() as u32;
                out.vertices.push(t.vertices[v as usize]);
            }
            verts.push(vmap[v as usize]);
        }
        let edges = poly
            .edges
            .iter()
            .map(|e| match *e {
                Edge::Internal(q) if layer_of[q as usize] == l => Edge::Internal(index[q as usize]),
                Edge::Internal(_) => Edge::Wall,
                other => other,
            })
            .collect();
        out.polys.push(Poly { verts, edges });
        let d = t.detail[p];
        out.detail.push(Detail {
            vbase: out.detail_verts.len() as u32,
            vcount: d.vcount,
            tbase: out.detail_tris.len() as u32,
            tcount: d.tcount,
        });
        out.detail_verts
            .extend_from_slice(&t.detail_verts[d.vbase as usize..(d.vbase + d.vcount) as usize]);
        out.detail_tris
            .extend_from_slice(&t.detail_tris[d.tbase as usize..(d.tbase + d.tcount) as usize]);
        out.areas.push(t.areas[p]);
        out.flags.push(t.flags[p]);
    }
    out
}
