//! Every use of onav's API in the bench, in one place (onav's API is being restructured: when it
//! changes, only this file follows). Only the public, validating API is used: tiles are written as
//! `RawTile` and accepted by the one reader (`NavTile::from_bytes`), parameters come from
//! `MeshParams::new`.

use onav::{
    LinkKind, MeshParams, NavMeshQuery, NavMeshSnapshot, NavTile, PathStatus, PolyIndex,
    RaycastOptions, RaycastStop, SettingsDigest, SnapshotMode, StraightPathOptions, TileLibrary,
    TilePos, TiledNavMesh,
};

use crate::convert::{Edge, GridSpec, PlainTile};

/// onav's exact-order geometry, for the conversion's repair steps (so "inside" is the reader's).
pub mod geom {
    pub use onav::geom::{
        closest_t_on_segment_xz, dist2_xz, orient, point_in_convex_xz, poly_area2_xz,
    };
}

/// An onav polygon reference (opaque to the rest of the bench).
pub type Ref = onav::PolyRef;

/// The settings digest of every converted tile: SHA-256 of a fixed settings string.
fn digest() -> SettingsDigest {
    SettingsDigest::of_bytes(
        b"onav-bench: Recast 1.6.0 RecastDemo Sample_TileMesh settings, converted",
    )
}

/// Mesh parameters for `grid` with `slots` slots.
pub fn params(grid: &GridSpec, slots: u32) -> Result<MeshParams, String> {
    MeshParams::new(grid.origin, grid.size, slots, digest()).map_err(|e| e.to_string())
}

/// A plain tile written through `onav::RawTile` (no check).
pub fn encode(t: &PlainTile, params: &MeshParams) -> Vec<u8> {
    let mut polys = Vec::with_capacity(t.polys.len());
    for p in &t.polys {
        let mut q = onav::Polygon {
            vertex_count: p.verts.len() as u8,
            ..onav::Polygon::default()
        };
        for (k, (&v, e)) in p.verts.iter().zip(&p.edges).enumerate() {
            q.vertices[k] = v;
            q.edges[k] = match *e {
                Edge::Wall => onav::Edge::Wall,
                Edge::Internal(i) => onav::Edge::Internal(PolyIndex(i)),
                Edge::Portal(s) => match onav::Side::from_code(u32::from(s)) {
                    Some(side) => onav::Edge::Portal(side),
                    None => onav::Edge::Wall,
                },
            };
        }
        polys.push(q);
    }
    onav::RawTile {
        grid: params.grid().raw(),
        digest: params.digest(),
        pos: TilePos {
            column: t.column,
            row: t.row,
            layer: t.layer,
        },
        agent: onav::AgentSizes {
            height: t.agent[0],
            radius: t.agent[1],
            climb: t.agent[2],
        },
        vertices: t.vertices.clone(),
        polys,
        links: Vec::new(),
        detail_meshes: t
            .detail
            .iter()
            .map(|d| onav::DetailMesh {
                vertex_base: d.vbase,
                vertex_count: d.vcount,
                triangle_base: d.tbase,
                triangle_count: d.tcount,
            })
            .collect(),
        detail_vertices: t.detail_verts.clone(),
        detail_tris: t.detail_tris.clone(),
        areas: t.areas.clone(),
        flags: t.flags.clone(),
    }
    .to_bytes()
}

/// The rule a reader error names, in `spec/navmesh-format.md`'s numbering where it is one of
/// those real Recast tiles break (T8, T12, T13, T17.1–3, T20), else the error's reason.
pub fn check(bytes: &[u8]) -> Result<(), String> {
    use onav::FormatReason as R;
    let e = match NavTile::from_bytes(bytes) {
        Ok(_) => return Ok(()),
        Err(e) => e,
    };
    let f = e.field.as_str();
    Err(match e.reason {
        R::OutsideCell if f.starts_with("vertex") => "T8".into(),
        R::NotConvex => "T12".into(),
        R::PortalOffSide => "T13".into(),
        R::DetailMismatch if f.starts_with("detail_vertex") => "T17.1".into(),
        R::DetailMismatch if f.starts_with("detail_triangle") => "T17.2".into(),
        R::DetailMismatch => "T17.3".into(),
        R::PortalOverlap => "T20".into(),
        ref r => format!("{r:?} at {f}"),
    })
}

/// onav's position of a plain tile.
fn pos(t: &PlainTile) -> TilePos {
    TilePos {
        column: t.column,
        row: t.row,
        layer: t.layer,
    }
}

/// A mesh of converted tiles.
#[derive(Clone)]
pub struct Mesh(TiledNavMesh);

/// Parses every tile and adds it to a new mesh (incremental stitching): onav's counterpart of
/// Detour's alloc + init + addTile.
#[inline]
pub fn parse_and_add(params: &MeshParams, tiles: &[Vec<u8>]) -> Result<Mesh, String> {
    let mut m = TiledNavMesh::new(*params);
    for b in tiles {
        let t = NavTile::from_bytes(b).map_err(|e| e.to_string())?;
        m.add_tile(t).map_err(|e| e.to_string())?;
    }
    Ok(Mesh(m))
}

/// `NavMeshSnapshot::restore`: a new mesh from a snapshot.
#[inline]
pub fn restore_new(bytes: &[u8], lib: &TileLibrary) -> Result<Mesh, String> {
    NavMeshSnapshot::restore(bytes, lib)
        .map(Mesh)
        .map_err(|e| e.to_string())
}

/// `read_mesh`: a new mesh from a mesh file.
#[inline]
pub fn read_mesh(bytes: &[u8]) -> Result<Mesh, String> {
    onav::read_mesh(bytes).map(Mesh).map_err(|e| e.to_string())
}

/// The tile library a Referenced snapshot restores from.
pub type Library = TileLibrary;

/// An empty library (Full snapshots need none).
pub fn empty_library() -> Library {
    TileLibrary::new()
}

impl Mesh {
    /// The reference of polygon `index` of the tile at (column, row, layer).
    pub fn poly_ref(&self, column: i32, row: i32, layer: u32, index: u32) -> Option<Ref> {
        let tr = self.0.tile_ref_at(TilePos { column, row, layer })?;
        Some(tr.poly(PolyIndex(index)))
    }

    /// Every directed link between ground polygons: (from, to, crosses a tile border).
    pub fn links(&self) -> Vec<(Ref, Ref, bool)> {
        let mut out = Vec::new();
        for (tr, t) in self.0.tiles() {
            for i in 0..t.ground_poly_count() {
                let r = tr.poly(PolyIndex(i));
                for l in self.0.links(r).unwrap_or(&[]) {
                    match l.kind {
                        LinkKind::Internal { .. } => out.push((r, l.target, false)),
                        LinkKind::Portal { .. } => out.push((r, l.target, true)),
                        _ => {}
                    }
                }
            }
        }
        out
    }

    /// True when the incremental links equal a stitch from scratch.
    pub fn links_match_scratch(&self) -> bool {
        onav::testing::all_links(&self.0) == onav::testing::stitch_from_scratch(&self.0)
    }

    /// A snapshot, Full or Referenced.
    #[inline]
    pub fn snapshot(&self, full: bool) -> Vec<u8> {
        self.0.snapshot(if full {
            SnapshotMode::Full
        } else {
            SnapshotMode::Referenced
        })
    }

    /// The mesh file.
    pub fn write(&self) -> Vec<u8> {
        onav::write_mesh(&self.0)
    }

    /// A library holding the mesh's tiles.
    pub fn library(&self) -> Library {
        TileLibrary::from_tiles(self.0.tiles().map(|(_, t)| t))
    }

    /// In-place restore (rollback).
    #[inline]
    pub fn restore(&mut self, bytes: &[u8], lib: &Library) -> Result<(), String> {
        self.0.restore(bytes, lib).map_err(|e| e.to_string())
    }

    /// Sets the flags of every `step`-th ground polygon (in tile order) to `flags`: the edits a
    /// rollback undoes.
    pub fn edit_flags(&mut self, step: usize, flags: u16) {
        let refs: Vec<Ref> = self
            .0
            .tiles()
            .flat_map(|(tr, t)| (0..t.ground_poly_count()).map(move |i| tr.poly(PolyIndex(i))))
            .step_by(step.max(1))
            .collect();
        for r in refs {
            // The reference comes from the mesh itself, so the edit cannot fail.
            let _ = self.0.set_poly_flags(r, flags);
        }
    }

    /// A query object with `max_nodes` nodes and the default filter.
    pub fn query(&self, max_nodes: u32) -> Result<Query<'_>, String> {
        Ok(Query {
            q: NavMeshQuery::new(&self.0, max_nodes).map_err(|e| e.to_string())?,
            filter: onav::QueryFilter::default(),
            mesh: &self.0,
            corridor: Vec::new(),
            points: Vec::new(),
            visited: Vec::new(),
        })
    }
}

/// onav's queries with the default filter. Paths, straight paths and raycasts use the `_into`
/// calls, which reuse the query's scratch and these buffers (as Detour's calls fill the caller's
/// arrays), so a timed call allocates nothing.
pub struct Query<'m> {
    q: NavMeshQuery<'m>,
    filter: onav::QueryFilter,
    mesh: &'m TiledNavMesh,
    corridor: Vec<Ref>,
    points: Vec<onav::StraightPoint>,
    visited: Vec<Ref>,
}

/// A `find_path` answer.
#[derive(Debug, Clone)]
pub struct Path {
    /// The corridor.
    pub corridor: Vec<Ref>,
    /// Complete (reached the end polygon).
    pub complete: bool,
    /// onav's cost of the corridor.
    pub cost: f64,
}

/// A `raycast` answer.
#[derive(Debug, Clone, Copy)]
pub struct Ray {
    /// t in [0, 1].
    pub t: f64,
    /// The end was reached.
    pub reached: bool,
    /// The start polygon was missed (`RaycastStop::Missed`).
    pub missed: bool,
}

impl Query<'_> {
    /// `find_nearest_poly`: polygon and point.
    #[inline]
    pub fn nearest(&self, center: [f64; 3], ext: [f64; 3]) -> Option<(Ref, [f64; 3])> {
        match self.q.find_nearest_poly(center, ext, &self.filter) {
            Ok(Some(n)) => Some((n.poly, n.point)),
            _ => None,
        }
    }

    /// `find_path` into the query's corridor buffer: (complete, cost).
    #[inline]
    pub fn path_into(&mut self, s: Ref, e: Ref, sp: [f64; 3], ep: [f64; 3]) -> Option<(bool, f64)> {
        let r = self
            .q
            .find_path_into(s, e, sp, ep, &self.filter, &mut self.corridor)
            .ok()?;
        Some((r.status == PathStatus::Complete, r.cost))
    }

    /// `find_path` with an owned corridor (for comparing answers; the timed call is
    /// [`Query::path_into`]).
    pub fn path(&self, s: Ref, e: Ref, sp: [f64; 3], ep: [f64; 3]) -> Option<Path> {
        let r = self.q.find_path(s, e, sp, ep, &self.filter).ok()?;
        Some(Path {
            complete: r.status == PathStatus::Complete,
            cost: r.cost,
            corridor: r.corridor,
        })
    }

    /// `find_straight_path` with no extra points; the number of points.
    #[inline]
    pub fn straight(&mut self, sp: [f64; 3], ep: [f64; 3], corridor: &[Ref]) -> usize {
        match self.q.find_straight_path_into(
            sp,
            ep,
            corridor,
            StraightPathOptions::default(),
            &mut self.points,
        ) {
            Ok(()) => self.points.len(),
            Err(_) => 0,
        }
    }

    /// `raycast` without costs.
    #[inline]
    pub fn raycast(&mut self, s: Ref, sp: [f64; 3], ep: [f64; 3]) -> Option<Ray> {
        let h = self
            .q
            .raycast_into(
                s,
                sp,
                ep,
                &self.filter,
                RaycastOptions::default(),
                &mut self.visited,
            )
            .ok()?;
        Some(Ray {
            t: h.t,
            reached: matches!(h.stop, RaycastStop::Reached),
            missed: matches!(h.stop, RaycastStop::Missed),
        })
    }

    /// The cost of `corridor` in onav's own model (`spec/queries.md` §4.2): the polyline from
    /// `sp` through the midpoints of the portals between consecutive polygons to `ep`, each
    /// segment's 3-D length times the area cost of the polygon it crosses. `None` when two
    /// consecutive polygons are not linked in onav's mesh (the split's cut edge).
    pub fn corridor_cost(&self, corridor: &[Ref], sp: [f64; 3], ep: [f64; 3]) -> Option<f64> {
        let dist3 = |a: &[f64; 3], b: &[f64; 3]| {
            let (dx, dy, dz) = (b[0] - a[0], b[1] - a[1], b[2] - a[2]);
            (dx * dx + dy * dy + dz * dz).sqrt()
        };
        let cost = |r: Ref| {
            self.mesh
                .poly_area(r)
                .and_then(|a| self.filter.area_cost(a))
                .unwrap_or(1.0)
        };
        let mut at = sp;
        let mut g = 0.0;
        for w in corridor.windows(2) {
            let (p, q) = (w[0], w[1]);
            let link = self.mesh.links(p)?.iter().find(|l| l.target == q)?;
            let (tile, idx) = self.mesh.poly(p)?;
            let v: Vec<[f64; 3]> = tile.poly_vertices(idx)?.collect();
            let n = v.len();
            let (l, r) = match link.kind {
                LinkKind::Internal { edge } => {
                    (v[(usize::from(edge) + 1) % n], v[usize::from(edge)])
                }
                LinkKind::Portal { edge, side, lo, hi } => {
                    let (a, b) = (v[usize::from(edge)], v[(usize::from(edge) + 1) % n]);
                    let u = if side.along_z() { 2 } else { 0 };
                    let on = |c: f64| {
                        let mut p = a;
                        p[u] = c;
                        p[1] = a[1] + (b[1] - a[1]) * ((c - a[u]) / (b[u] - a[u]));
                        p
                    };
                    (on(lo), on(hi))
                }
                _ => return None,
            };
            let mid = [
                (l[0] + r[0]) * 0.5,
                (l[1] + r[1]) * 0.5,
                (l[2] + r[2]) * 0.5,
            ];
            g += dist3(&at, &mid) * cost(p);
            at = mid;
        }
        let last = *corridor.last()?;
        Some(g + dist3(&at, &ep) * cost(last))
    }
}

/// The tiles of converted tile data: bytes, each checked by the reader, and the mesh of them.
pub struct Tiles {
    /// Mesh parameters (one slot per tile).
    pub params: MeshParams,
    /// Each tile's bytes, in conversion order.
    pub bytes: Vec<Vec<u8>>,
}

/// Encodes `tiles` for `grid`; every tile must pass the reader.
pub fn tiles(grid: &GridSpec, tiles: &[PlainTile]) -> Result<Tiles, String> {
    let params = params(grid, tiles.len().max(1) as u32)?;
    let mut bytes = Vec::with_capacity(tiles.len());
    for t in tiles {
        let b = encode(t, &params);
        check(&b).map_err(|e| format!("tile {:?} rejected: {e}", pos(t)))?;
        bytes.push(b);
    }
    Ok(Tiles { params, bytes })
}

/// onav's own generated world (the `impl/benches` world of 32 × 32 tiles, 4 × 4 quads each):
/// rollback (in-place Referenced restore where only edits and switches differ) and a full
/// Referenced restore into a new mesh, the pair the 0.05 target bounds.
pub struct World {
    mesh: TiledNavMesh,
    lib: TileLibrary,
    snap: Vec<u8>,
}

impl World {
    /// Builds the world with edits on every 7th tile (as `impl/benches/common` does).
    pub fn new(columns: i32) -> Result<Self, String> {
        let w = onav::WorldSpec {
            columns,
            rows: columns,
            quads: 4,
            hole_chance: 16,
            slope: [0.01, 0.02],
            bump: 0.2,
            links_per_tile: 1,
            area_kinds: 3,
            ..onav::WorldSpec::default()
        };
        let tiles = w.tiles();
        let lib = TileLibrary::from_tiles(&tiles);
        let mut mesh = TiledNavMesh::new(w.params_fitting());
        for t in tiles {
            mesh.add_tile(t).map_err(|e| e.to_string())?;
        }
        let mut world = Self {
            mesh,
            lib,
            snap: Vec::new(),
        };
        world.edit(1);
        world.snap = world.mesh.snapshot(SnapshotMode::Referenced);
        Ok(world)
    }

    /// Number of tiles.
    pub fn tile_count(&self) -> usize {
        self.mesh.tile_count()
    }

    /// An area edit on every 7th tile and, where it has a link, a switch.
    pub fn edit(&mut self, k: u32) {
        let refs: Vec<_> = self.mesh.tiles().map(|(r, _)| r).collect();
        for (i, r) in refs.iter().enumerate().step_by(7) {
            let _ = self
                .mesh
                .set_poly_area(r.poly(PolyIndex(0)), ((i as u32 + k) % 60) as u8 + 1);
            if self.mesh.tile(*r).is_some_and(|t| t.link_count() > 0) {
                let _ = self.mesh.set_off_mesh_link_enabled(
                    *r,
                    onav::LinkIndex(0),
                    (i as u32 + k).is_multiple_of(2),
                );
            }
        }
    }

    /// Rolls the mesh back to the snapshot in place.
    #[inline]
    pub fn rollback(&mut self) -> Result<(), String> {
        self.mesh
            .restore(&self.snap, &self.lib)
            .map_err(|e| e.to_string())
    }

    /// Restores the snapshot into a new mesh, dropped at once.
    #[inline]
    pub fn full_restore(&self) -> Result<(), String> {
        NavMeshSnapshot::restore(&self.snap, &self.lib)
            .map(drop)
            .map_err(|e| e.to_string())
    }
}

/// onav's voxel builder (crate `onav-build3d`, `spec/build3d.md`) on the bench's triangles: the
/// only place the bench uses the builder's API.
pub mod builder {
    use onav_build3d::{Geometry, Settings, SettingsSpec};

    use crate::obj::TriMesh;
    use crate::recast;

    /// The bench's triangles as the builder's array input: the f32 coordinates Recast reads,
    /// widened exactly to f64 (so both builders see the same geometry), and area 63 on every
    /// triangle (Recast's `RC_WALKABLE_AREA`; both builders then mark by slope).
    pub struct Input {
        vertices: Vec<f64>,
        indices: Vec<u32>,
        areas: Vec<u8>,
    }

    /// The array input of `m`.
    pub fn input(m: &TriMesh) -> Result<Input, String> {
        let indices = m
            .tris
            .iter()
            .map(|&i| u32::try_from(i).map_err(|_| format!("negative vertex index {i}")))
            .collect::<Result<Vec<u32>, String>>()?;
        Ok(Input {
            vertices: m.verts.iter().map(|&c| f64::from(c)).collect(),
            areas: vec![63; indices.len() / 3],
            indices,
        })
    }

    /// The builder's demo settings (`SettingsSpec::default()`, `spec/build3d.md` §3.1), after
    /// checking that they are Recast's `s`: the cell counts Recast derives are equal, and the
    /// world values agree to f32 rounding (Recast works in f32).
    pub fn settings(s: &recast::Settings) -> Result<Settings, String> {
        let spec = SettingsSpec::default();
        let cfg = s.config();
        let near = |a: f64, b: f32| {
            let a = a as f32;
            (a - b).abs() <= f32::EPSILON * b.abs().max(1.0)
        };
        let cells = [
            (
                "walkable height",
                (spec.agent_height / spec.cell_height).ceil() as i32,
                cfg.walkableHeight,
            ),
            (
                "walkable climb",
                (spec.agent_climb / spec.cell_height).floor() as i32,
                cfg.walkableClimb,
            ),
            (
                "walkable radius",
                (spec.agent_radius / spec.cell_size).ceil() as i32,
                cfg.walkableRadius,
            ),
            (
                "max edge length",
                (spec.max_edge_len / spec.cell_size).floor() as i32,
                cfg.maxEdgeLen,
            ),
            (
                "region min area",
                spec.region_min_area as i32,
                cfg.minRegionArea,
            ),
            (
                "region merge area",
                spec.region_merge_area as i32,
                cfg.mergeRegionArea,
            ),
            (
                "verts per poly",
                spec.verts_per_poly as i32,
                cfg.maxVertsPerPoly,
            ),
            ("tile size", spec.tile_size as i32, cfg.tileSize),
        ];
        for (what, ours, theirs) in cells {
            if ours != theirs {
                return Err(format!(
                    "builder settings: {what} {ours}, Recast's {theirs}"
                ));
            }
        }
        let world = [
            ("cell size", spec.cell_size, cfg.cs),
            ("cell height", spec.cell_height, cfg.ch),
            ("agent height", spec.agent_height, s.agent_height),
            ("agent radius", spec.agent_radius, s.agent_radius),
            ("agent climb", spec.agent_climb, s.agent_climb),
            ("slope", spec.max_slope_deg, cfg.walkableSlopeAngle),
            (
                "edge error",
                spec.max_edge_error,
                cfg.maxSimplificationError,
            ),
            (
                "detail distance",
                spec.detail_sample_dist,
                cfg.detailSampleDist,
            ),
            (
                "detail error",
                spec.detail_sample_max_error,
                cfg.detailSampleMaxError,
            ),
        ];
        for (what, ours, theirs) in world {
            if !near(ours, theirs) {
                return Err(format!(
                    "builder settings: {what} {ours}, Recast's {theirs}"
                ));
            }
        }
        Settings::new(spec).map_err(|e| e.to_string())
    }

    /// One build's tiles.
    pub struct Built(onav_build3d::BuiltMesh);

    /// The timed onav build: `Geometry::from_arrays` (validation, canonical triangles sorted,
    /// geometry digest) and `build` (plan and bins, every stage of every tile cell on the
    /// current rayon pool, each tile written through `RawTile` and read back by onav's
    /// validating reader).
    #[inline]
    pub fn build(input: &Input, s: &Settings) -> Result<Built, String> {
        let g = Geometry::from_arrays(&input.vertices, &input.indices, &input.areas)
            .map_err(|e| e.to_string())?;
        onav_build3d::build(&g, s)
            .map(Built)
            .map_err(|e| e.to_string())
    }

    impl Built {
        /// Tiles (tile-layers).
        pub fn tiles(&self) -> usize {
            self.0.stats.tiles
        }

        /// Tile cells with at least one tile.
        pub fn cells(&self) -> usize {
            self.0.stats.cells
        }

        /// Tiles above layer 0.
        pub fn upper_layers(&self) -> usize {
            self.0.stats.upper_layers
        }

        /// Ground polygons.
        pub fn polygons(&self) -> usize {
            self.0.stats.polygons
        }

        /// Sum of the polygons' x–z areas, wu².
        pub fn walkable_area(&self) -> f64 {
            self.0.stats.walkable_area
        }

        /// Bytes of all tiles.
        pub fn bytes(&self) -> usize {
            self.0.tiles.iter().map(|t| t.as_built_bytes().len()).sum()
        }

        /// Every tile's bytes equal, in order.
        pub fn same_bytes(&self, other: &Built) -> bool {
            self.0.tiles.len() == other.0.tiles.len()
                && self
                    .0
                    .tiles
                    .iter()
                    .zip(&other.0.tiles)
                    .all(|(a, b)| a.as_built_bytes() == b.as_built_bytes())
        }

        /// The tiles in one stitched mesh (tile i in slot i).
        pub fn mesh(&self) -> Result<super::Mesh, String> {
            self.0.to_mesh().map(super::Mesh).map_err(|e| e.to_string())
        }
    }
}

/// onav's tile cache (crate `onav-tilecache`, issue 15) at DetourTileCache's cheap settings:
/// build3d's demo settings with no detail sampling, at a given tile size.
pub mod cache {
    use onav::{SnapshotMode, TileLibrary, TiledNavMesh};
    use onav_build3d::{Geometry, Settings, SettingsSpec};
    use onav_tilecache::{Obstacle, ObstacleId, TileCache};

    /// A cache and its mesh.
    pub type Cache = TileCache;

    /// A cache of the triangles (f32 vertices widened exactly, areas 63) at `tile_size` cells.
    pub fn new(verts: &[f32], tris: &[i32], tile_size: u32) -> Result<Cache, String> {
        let v: Vec<f64> = verts.iter().map(|&x| f64::from(x)).collect();
        let i: Vec<u32> = tris.iter().map(|&x| x as u32).collect();
        let areas = vec![63u8; i.len() / 3];
        let g = Geometry::from_arrays(&v, &i, &areas).map_err(|e| e.to_string())?;
        let s = Settings::new(SettingsSpec {
            tile_size,
            detail_sample_dist: 0.0,
            ..SettingsSpec::default()
        })
        .map_err(|e| e.to_string())?;
        TileCache::new(&g, &s).map_err(|e| e.to_string())
    }

    /// Adds a cylinder standing at `base` (r, h); whether it queued a cell.
    #[inline]
    pub fn add_cylinder(
        c: &mut Cache,
        base: [f32; 3],
        r: f64,
        h: f64,
    ) -> Result<(ObstacleId, bool), String> {
        let p = base.map(f64::from);
        let o = Obstacle::cylinder(p, r, h).map_err(|e| e.to_string())?;
        let id = c.add_obstacle(o).map_err(|e| e.to_string())?;
        Ok((id, !c.is_up_to_date()))
    }

    /// Removes an obstacle.
    #[inline]
    pub fn remove(c: &mut Cache, id: ObstacleId) -> Result<(), String> {
        c.remove_obstacle(id).map(drop).map_err(|e| e.to_string())
    }

    /// One `update` that drains the queue; the cells rebuilt.
    #[inline]
    pub fn settle(c: &mut Cache) -> Result<usize, String> {
        c.update_all().map(|r| r.cells).map_err(|e| e.to_string())
    }

    /// Tiles and polygons of the cache's mesh.
    pub fn counts(c: &Cache) -> (usize, usize) {
        let polys = c.mesh().tiles().map(|(_, t)| t.ground_poly_count() as usize).sum();
        (c.mesh().tile_count(), polys)
    }

    /// Bytes of the cached intermediates.
    pub fn cached_bytes(c: &Cache) -> usize {
        c.intermediate_bytes()
    }

    /// The cache's Referenced `ONTK` snapshot.
    #[inline]
    pub fn snapshot(c: &Cache) -> Vec<u8> {
        c.snapshot(SnapshotMode::Referenced)
    }

    /// Restores an `ONTK` snapshot in place.
    #[inline]
    pub fn restore(c: &mut Cache, bytes: &[u8]) -> Result<(), String> {
        c.restore(bytes).map_err(|e| e.to_string())
    }

    /// The mesh's Referenced snapshot (what the cache's `ONTK` snapshot embeds, byte for byte).
    pub fn mesh_snapshot(c: &Cache) -> Vec<u8> {
        c.mesh().snapshot(SnapshotMode::Referenced)
    }

    /// A copy of the cache's mesh and library, for restoring the mesh part alone.
    pub fn mesh_twin(c: &Cache) -> (TiledNavMesh, TileLibrary) {
        (c.mesh().clone(), c.library().clone())
    }

    /// `TiledNavMesh::restore` in place.
    #[inline]
    pub fn mesh_restore(m: &mut TiledNavMesh, bytes: &[u8], lib: &TileLibrary) -> Result<(), String> {
        m.restore(bytes, lib).map_err(|e| e.to_string())
    }
}
