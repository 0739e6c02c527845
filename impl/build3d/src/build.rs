//! The build (`spec/build3d.md` §1, §15): `prepare` runs the stages up to the tile-cache seam
//! (rasterize, filter, compact) and gives a tile cell's [`Intermediate`]; `finish` marks areas,
//! erodes and runs every later stage, writing one tile per layer. `build` does both for every
//! tile cell, in parallel as an ordered map (rayon), and collects the tiles in tile order, so the
//! bytes do not depend on the thread count.
//!
//! Limits: L7 (tiles of a build), L16 and L17 (detail vertices and triangles per tile-layer).

use rayon::prelude::*;

use crate::compact::{compact, Compact};
use crate::contours::contours;
use crate::error::{check, BuildError, LimitKind, ObjError, TileCell};
use crate::geometry::Geometry;
use crate::layers::layers_with;
use crate::marks::{apply_areas, AreaMark};
use crate::output::{
    cell_bounds, mesh_of, poly_area2_xz, write_tile, FormatError, LayerMesh, MeshError, MeshParams,
    NavTile, PolyOut, TiledNavMesh, Vec3,
};
use crate::plan::Plan;
use crate::polymesh::polymesh;
use crate::rasterize::{rasterize, Occupied, Window};
use crate::regions::{regions_with, Sweep, SweepUse};
use crate::settings::Settings;
use crate::{detail, erode, filter};

/// The state of one tile cell just before area marks and erosion: its compact heightfield
/// (`spec/build3d.md` §7). [`Plan::finish`] turns it into tiles; with no extra marks it gives
/// exactly the tiles of [`build`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Intermediate {
    cell: TileCell,
    chf: Compact,
}

impl Intermediate {
    /// The tile cell.
    pub fn cell(&self) -> TileCell {
        self.cell
    }

    /// Number of walkable open spans.
    pub fn span_count(&self) -> usize {
        self.chf.span_count()
    }

    /// Bytes its arrays hold on the heap (what a tile cache keeps per cell).
    pub fn heap_bytes(&self) -> usize {
        self.chf.heap_bytes()
    }
}

/// A tile cell kept for rebuilds with other area marks (what a tile cache holds per cell): its
/// [`Intermediate`], the neighbour table, the areas after the settings' volumes and after
/// erosion, and its tiles without marks. [`Plan::rebuild`] gives exactly [`Plan::finish`]'s
/// tiles from it, redoing only what the marks change.
#[derive(Debug, Clone)]
pub struct CachedCell {
    im: Intermediate,
    nb: Vec<[u32; 4]>,
    /// Its plain links (`Compact::plain_links`).
    plain: Vec<u8>,
    /// Areas after the settings' volumes (§8), before erosion.
    marked: Vec<u8>,
    /// Those areas after erosion (§9).
    eroded: Vec<u8>,
    /// The regions' sweep with those areas.
    sweep: Sweep,
    tiles: Vec<NavTile>,
}

impl CachedCell {
    /// The tile cell.
    pub fn cell(&self) -> TileCell {
        self.im.cell
    }

    /// The intermediate.
    pub fn intermediate(&self) -> &Intermediate {
        &self.im
    }

    /// The tiles without marks (those of [`build`]), ascending layer.
    pub fn tiles(&self) -> &[NavTile] {
        &self.tiles
    }

    /// Bytes its arrays hold on the heap (the tiles not counted: the mesh shares them).
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of_val;
        self.im.heap_bytes()
            + size_of_val(&self.nb[..])
            + size_of_val(&self.plain[..])
            + size_of_val(&self.marked[..])
            + size_of_val(&self.eroded[..])
            + self.sweep.heap_bytes()
    }
}

/// Counts of a build, for people.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct BuildStats {
    /// Tiles (tile-layers) built.
    pub tiles: usize,
    /// Tile cells with at least one tile.
    pub cells: usize,
    /// Tiles with a layer number above 0.
    pub upper_layers: usize,
    /// Ground polygons.
    pub polygons: usize,
    /// Sum of the polygons' areas on x–z (wu²).
    pub walkable_area: f64,
    /// Extra detail vertices.
    pub detail_vertices: usize,
    /// Detail triangles.
    pub detail_triangles: usize,
}

/// The tiles of a build with the mesh parameters they fit.
#[derive(Debug, Clone)]
pub struct BuiltMesh {
    /// Origin, tile size, one slot per tile (at least 1) and the settings digest.
    pub params: MeshParams,
    /// Tiles in ascending (row, column, layer).
    pub tiles: Vec<NavTile>,
    /// Counts.
    pub stats: BuildStats,
}

impl BuiltMesh {
    /// A `TiledNavMesh` with these parameters holding the tiles, tile i in slot i (stitched;
    /// its landing budgets hold, since the builder writes no off-mesh links).
    pub fn to_mesh(&self) -> Result<TiledNavMesh, MeshError> {
        mesh_of(self.params, &self.tiles)
    }
}

impl Plan {
    /// Stages up to the tile-cache seam for the `index`-th tile cell of [`Plan::tile_cells`]
    /// (`spec/build3d.md` §5–§7). `None` when the cell has no walkable span at all.
    pub fn prepare(&self, index: usize) -> Result<Option<Intermediate>, BuildError> {
        let Some((cell, list)) = self.bins.get(index) else {
            return Ok(None);
        };
        let s = self.settings.spec();
        let win = Window::new(cell, s.tile_size, self.d.border);
        let caps = &self.caps;
        let mut hf = rasterize(
            &self.tris,
            list,
            win,
            self.d.walkable_climb,
            cell,
            caps.spans_per_tile,
        )?;
        filter::filter(&mut hf, self.d.walkable_height, self.d.walkable_climb);
        let chf = compact(
            &hf,
            self.d.walkable_height,
            self.d.walkable_climb,
            cell,
            caps.spans_per_column,
        )?;
        Ok((chf.span_count() > 0).then_some(Intermediate { cell, chf }))
    }

    /// Stages after the seam (`spec/build3d.md` §8–§15): the settings' volumes, then `marks`,
    /// erosion, regions, layers, contours, polygons, detail meshes; one tile per non-empty
    /// layer, in ascending layer.
    pub fn finish(
        &self,
        im: &Intermediate,
        marks: &[AreaMark],
    ) -> Result<Vec<NavTile>, BuildError> {
        Ok(self
            .finish_meshes(im, marks)?
            .into_iter()
            .map(|(t, _)| t)
            .collect())
    }

    fn finish_meshes(
        &self,
        im: &Intermediate,
        marks: &[AreaMark],
    ) -> Result<Vec<(NavTile, LayerMesh)>, BuildError> {
        let mut c = im.chf.clone();
        let mut area = std::mem::take(&mut c.area);
        self.mark(&c, &mut area, &self.volumes);
        self.mark(&c, &mut area, marks);
        let nb = c.neighbour_table();
        erode::erode_areas(&c, &nb, &mut area, self.d.walkable_radius);
        c.area = area;
        let plain = c.plain_links(&nb);
        self.finish_eroded(&c, &nb, &plain, im.cell, SweepUse::None)
    }

    /// Applies `marks` in order to `area` (§8).
    fn mark(&self, c: &Compact, area: &mut [u8], marks: &[AreaMark]) {
        let s = self.settings.spec();
        apply_areas(c, area, marks, self.origin, s.cell_size, s.cell_height);
    }

    /// A cell for [`Plan::rebuild`]: the intermediate with its tiles without marks (those of
    /// [`Plan::finish`] with no marks, the same errors).
    pub fn cache_cell(&self, im: Intermediate) -> Result<CachedCell, BuildError> {
        let nb = im.chf.neighbour_table();
        let plain = im.chf.plain_links(&nb);
        let mut marked = im.chf.area.clone();
        self.mark(&im.chf, &mut marked, &self.volumes);
        let mut eroded = marked.clone();
        erode::erode_areas(&im.chf, &nb, &mut eroded, self.d.walkable_radius);
        let c = im.chf.with_area(eroded.clone());
        let mut sweep = Sweep::default();
        let tiles = self
            .finish_eroded(&c, &nb, &plain, im.cell, SweepUse::Record(&mut sweep))?
            .into_iter()
            .map(|(t, _)| t)
            .collect();
        Ok(CachedCell {
            im,
            nb,
            plain,
            marked,
            eroded,
            sweep,
            tiles,
        })
    }

    /// Exactly the tiles (or the error) of [`Plan::finish`] of the cell's intermediate with
    /// `marks`, redoing only what they change:
    /// - areas the marks leave as they were give the cell's tiles without marks (the stages
    ///   after marking read nothing else), and so do eroded areas equal to theirs;
    /// - when the marks only make spans unwalkable or change walkable areas, erosion is redone
    ///   near the changed columns only (`erode::erode_changed` states why that is exact);
    /// - the regions' sweep starts at the first window row whose eroded areas differ
    ///   (`regions::SweepUse::Resume` states why the rows below are the recorded ones);
    /// - a rebuilt tile with the bytes of the tile without marks at its layer is that tile (a
    ///   copy sharing its contents, so its content id is already known).
    pub fn rebuild(
        &self,
        cached: &CachedCell,
        marks: &[AreaMark],
    ) -> Result<Vec<NavTile>, BuildError> {
        let chf = &cached.im.chf;
        let mut area = cached.marked.clone();
        self.mark(chf, &mut area, marks);
        let size = chf.win.size;
        let mut changed: Option<Occupied> = None;
        let mut grows = false;
        for (i, (&a, &b)) in area.iter().zip(&cached.marked).enumerate() {
            if a != b {
                grows |= b == 0;
                let col = chf.col[i] as usize;
                let (x, z) = (col % size, col / size);
                let o = changed.get_or_insert(Occupied {
                    x0: x,
                    z0: z,
                    x1: x + 1,
                    z1: z + 1,
                });
                o.x0 = o.x0.min(x);
                o.z0 = o.z0.min(z);
                o.x1 = o.x1.max(x + 1);
                o.z1 = o.z1.max(z + 1);
            }
        }
        let Some(changed) = changed else {
            return Ok(cached.tiles.clone());
        };
        let radius = self.d.walkable_radius;
        if grows {
            erode::erode_areas(chf, &cached.nb, &mut area, radius);
        } else {
            erode::erode_changed(chf, &cached.nb, &mut area, &cached.eroded, changed, radius);
        }
        let Some(first) = area.iter().zip(&cached.eroded).position(|(a, b)| a != b) else {
            return Ok(cached.tiles.clone());
        };
        if only_far_padding(chf, &area[first..], &cached.eroded[first..], first) {
            return Ok(cached.tiles.clone());
        }
        // The window row of the first span whose eroded area differs: the regions' sweep of
        // the rows below it is the one without marks.
        let z0 = chf.col[first] as usize / size;
        let c = chf.with_area(area);
        Ok(self
            .finish_eroded(
                &c,
                &cached.nb,
                &cached.plain,
                cached.im.cell,
                SweepUse::Resume(&cached.sweep, z0),
            )?
            .into_iter()
            .map(|(t, _)| {
                match cached
                    .tiles
                    .iter()
                    .find(|b| b.pos() == t.pos() && b.same_as_built(&t))
                {
                    Some(b) => b.clone(),
                    None => t,
                }
            })
            .collect())
    }

    /// The stages after erosion (§10–§15) on `c` (areas eroded), with `nb` its neighbour table,
    /// `plain` its plain links and `sweep` what the regions do with a recorded sweep.
    fn finish_eroded(
        &self,
        c: &Compact,
        nb: &[[u32; 4]],
        plain: &[u8],
        cell: TileCell,
        sweep: SweepUse<'_>,
    ) -> Result<Vec<(NavTile, LayerMesh)>, BuildError> {
        let s = self.settings.spec();
        let (cs, ch) = (s.cell_size, s.cell_height);
        let caps = &self.caps;
        let regs = regions_with(
            c,
            nb,
            plain,
            s.region_min_area,
            s.region_merge_area,
            cell,
            caps.regions,
            sweep,
        )?;
        if regs.count == 0 {
            return Ok(Vec::new());
        }
        let (layer_of, nlayers) = layers_with(c, nb, &regs, s.tile_size, cell, caps.layers)?;
        let conts = contours(c, &regs, s.max_edge_error, self.d.max_edge_len, cell)?;
        let mut area_of = vec![0u8; regs.count as usize + 1];
        for (i, &r) in regs.reg.iter().enumerate() {
            if r != 0 && r != crate::regions::BORDER {
                area_of[r as usize] = c.area[i];
            }
        }
        let (lo, hi) = (c.win.border as i32, (c.win.size - c.win.border) as i32);
        let bounds = cell_bounds(&self.params, cell.column, cell.row);
        let surface = detail::Surface {
            c,
            reg: &regs.reg,
            origin: self.origin,
            cs,
            ch,
            sample_dist: s.detail_sample_dist,
            max_error: s.detail_sample_max_error,
            max_extra: caps.detail_per_polygon as usize,
        };
        let world = |p: [i32; 3]| -> Vec3 {
            let conv = |k: i32, g0: i64, o: f64, min: f64, max: f64| {
                if k == lo {
                    min
                } else if k == hi {
                    max
                } else {
                    let v = o + ((g0 + i64::from(k)) as f64) * cs;
                    if v < min {
                        min
                    } else if v > max {
                        max
                    } else {
                        v
                    }
                }
            };
            [
                conv(p[0], c.win.x0, self.origin[0], bounds[0], bounds[2]),
                self.origin[1] + f64::from(p[1]) * ch,
                conv(p[2], c.win.z0, self.origin[2], bounds[1], bounds[3]),
            ]
        };
        let mut out = Vec::new();
        for group in 0..nlayers {
            // Layers without polygons are skipped; the others are numbered 0, 1, … in order.
            let layer = out.len() as u32;
            let members: Vec<_> = conts
                .iter()
                .enumerate()
                .filter(|(ri, _)| layer_of[*ri] == group)
                .flat_map(|(_, v)| v.iter())
                .collect();
            let pm = polymesh(
                &members,
                |r| area_of[r as usize],
                s.verts_per_poly as usize,
                lo,
                hi,
                cell,
                layer,
                caps,
            )?;
            if pm.polys.is_empty() {
                continue;
            }
            let mut mesh = LayerMesh {
                vertices: pm.verts.iter().map(|&p| world(p)).collect(),
                ..Default::default()
            };
            for p in &pm.polys {
                let corners: Vec<Vec3> =
                    p.verts.iter().map(|&v| mesh.vertices[v as usize]).collect();
                let d = surface.detail(&corners, p.region).map_err(|_| {
                    BuildError::tile_limit(
                        cell,
                        Some(layer),
                        LimitKind::DetailVerticesPerPolygon,
                        caps.detail_per_polygon + 1,
                        caps.detail_per_polygon,
                    )
                })?;
                mesh.detail_meshes.push([
                    mesh.detail_vertices.len() as u32,
                    d.extra.len() as u32,
                    mesh.detail_tris.len() as u32,
                    d.tris.len() as u32,
                ]);
                mesh.detail_vertices.extend(d.extra);
                mesh.detail_tris.extend(d.tris);
                check(
                    Some(cell),
                    Some(layer),
                    LimitKind::DetailVertices,
                    mesh.detail_vertices.len() as u64,
                    caps.tile_detail_vertices,
                )?;
                check(
                    Some(cell),
                    Some(layer),
                    LimitKind::DetailTriangles,
                    mesh.detail_tris.len() as u64,
                    caps.tile_detail_triangles,
                )?;
                let mut po = PolyOut {
                    count: p.verts.len() as u8,
                    ..Default::default()
                };
                for (k, (&v, &e)) in p.verts.iter().zip(&p.edges).enumerate() {
                    po.verts[k] = v;
                    po.edges[k] = e;
                }
                mesh.polys.push(po);
                mesh.areas.push(p.area);
            }
            let agent = [s.agent_height, s.agent_radius, s.agent_climb];
            let tile = write_tile(&self.params, cell.column, cell.row, layer, agent, &mesh)
                .map_err(|error| BuildError::TileRejected {
                    tile: cell,
                    layer,
                    error,
                })?;
            out.push((tile, mesh));
        }
        Ok(out)
    }
}

/// Whether every span whose eroded area differs (`area[k] != eroded[k]` is span `from + k`)
/// lies in a column of the padding at least two columns away from the tile's interior (outside
/// the interior widened by one column on every side). Then the tiles are those of `eroded`:
/// - the regions (§10) of interior spans read only areas and regions of interior spans and
///   of the spans linked to them or in the four neighbour columns (the sweep, `analyse`), all
///   within one column of the interior; padding spans only get 0 or `BORDER`, which no later
///   stage tells apart except across a link from an interior span (below). So every interior
///   span keeps its region, and the count is the same;
/// - layers (§11), contours (§12) and the areas of the polygons read, besides heights and
///   links (unchanged), the regions and areas of interior spans and of the spans linked to
///   them, which are the same; the polygon and detail stages (§13–§14) read the contours,
///   heights and which spans have an interior region. So every tile (and every error) is the
///   same.
fn only_far_padding(c: &Compact, area: &[u8], eroded: &[u8], from: usize) -> bool {
    let (size, b) = (c.win.size, c.win.border);
    // The interior widened by one column: [b − 1, size − b] on both axes (b ≥ 3, §3).
    let (lo, hi) = (b.saturating_sub(1), size - b);
    area.iter()
        .zip(eroded)
        .enumerate()
        .filter(|(_, (a, e))| a != e)
        .all(|(k, _)| {
            let col = c.col[from + k] as usize;
            let (x, z) = (col % size, col / size);
            x < lo || x > hi || z < lo || z > hi
        })
}

/// Builds every tile of `geometry` with `settings` (`spec/build3d.md`). Tile cells are built in
/// parallel on the current rayon pool; the result is the same for any number of threads. When
/// several tiles fail, the error of the first in tile order is returned.
pub fn build(geometry: &Geometry, settings: &Settings) -> Result<BuiltMesh, BuildError> {
    build_plan(&Plan::new(geometry, settings)?)
}

/// Builds every tile cell of a plan (the body of [`build`]).
pub(crate) fn build_plan(plan: &Plan) -> Result<BuiltMesh, BuildError> {
    let results: Vec<Result<Vec<(NavTile, LayerMesh)>, BuildError>> = (0..plan.bins.len())
        .into_par_iter()
        .map(|i| match plan.prepare(i)? {
            Some(im) => plan.finish_meshes(&im, &[]),
            None => Ok(Vec::new()),
        })
        .collect();
    let mut tiles = Vec::new();
    let mut stats = BuildStats::default();
    for r in results {
        let layer_tiles = r?;
        if !layer_tiles.is_empty() {
            stats.cells += 1;
        }
        for (t, m) in layer_tiles {
            stats.tiles += 1;
            stats.upper_layers += usize::from(t.pos().layer > 0);
            stats.polygons += m.polys.len();
            stats.detail_vertices += m.detail_vertices.len();
            stats.detail_triangles += m.detail_tris.len();
            for p in &m.polys {
                let corners: Vec<Vec3> = p.verts[..usize::from(p.count)]
                    .iter()
                    .map(|&v| m.vertices[v as usize])
                    .collect();
                stats.walkable_area += poly_area2_xz(&corners) * 0.5;
            }
            tiles.push(t);
        }
    }
    check(
        None,
        None,
        LimitKind::Tiles,
        tiles.len() as u64,
        plan.caps.tiles,
    )?;
    let params = plan.mesh_params(tiles.len().max(1) as u32)?;
    Ok(BuiltMesh {
        params,
        tiles,
        stats,
    })
}

/// Why [`build_obj`] failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BuildObjError {
    /// The OBJ bytes.
    #[error(transparent)]
    Obj(#[from] ObjError),
    /// The settings encoding (field path and offset within it).
    #[error("settings: {0}")]
    Settings(FormatError),
    /// The build.
    #[error(transparent)]
    Build(#[from] BuildError),
}

/// Builds from OBJ bytes and the canonical settings encoding (`spec/build3d.md` §3.2): the
/// entry point for a harness or testee.
pub fn build_obj(obj: &[u8], settings: &[u8]) -> Result<BuiltMesh, BuildObjError> {
    let settings = Settings::from_bytes(settings).map_err(BuildObjError::Settings)?;
    let geometry = Geometry::from_obj(obj)?;
    Ok(build(&geometry, &settings)?)
}
