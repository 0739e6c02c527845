//! The Recast side of the build: the RecastDemo `Sample_TileMesh` workload of
//! `shared/research/detour-figures.md` ("Build"), watershed regions and detail meshes, turned into
//! Detour tile blobs by `dtCreateNavMeshData`. This module, `detour.rs` and
//! `compare/tilecache.rs` hold the bench's FFI into recastnavigation 1.6.0 (through
//! `recastnavigation-sys`); the allocator in `alloc.rs` is the only other `unsafe` code.

use std::ptr;

use recastnavigation_sys as rc;

use crate::obj::TriMesh;

/// The demo settings, in the demo's own units (world units and degrees).
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// Cell size on x–z.
    pub cs: f32,
    /// Cell height.
    pub ch: f32,
    /// Agent height.
    pub agent_height: f32,
    /// Agent radius.
    pub agent_radius: f32,
    /// Agent climb.
    pub agent_climb: f32,
    /// Maximum walkable slope, degrees.
    pub slope: f32,
    /// Region minimum size (cells, side of a square).
    pub region_min: f32,
    /// Region merge size (cells, side of a square).
    pub region_merge: f32,
    /// Maximum contour edge length, world units.
    pub edge_len: f32,
    /// Contour simplification error, world units.
    pub edge_error: f32,
    /// Vertices per polygon.
    pub nvp: i32,
    /// Detail sample distance, in cells.
    pub detail_dist: f32,
    /// Detail sample error, in cell heights.
    pub detail_error: f32,
    /// Tile size in cells.
    pub tile_size: i32,
}

/// RecastDemo's defaults (`detour-figures.md`, "Build").
pub const DEMO: Settings = Settings {
    cs: 0.3,
    ch: 0.2,
    agent_height: 2.0,
    agent_radius: 0.6,
    agent_climb: 0.9,
    slope: 45.0,
    region_min: 8.0,
    region_merge: 20.0,
    edge_len: 12.0,
    edge_error: 1.3,
    nvp: 6,
    detail_dist: 6.0,
    detail_error: 1.0,
    tile_size: 48,
};

impl Settings {
    /// The `rcConfig` of one tile before its bounds are set, derived exactly as the demo does.
    pub fn config(&self) -> rc::rcConfig {
        let walkable_radius = (self.agent_radius / self.cs).ceil() as i32;
        let border = walkable_radius + 3;
        rc::rcConfig {
            width: self.tile_size + border * 2,
            height: self.tile_size + border * 2,
            tileSize: self.tile_size,
            borderSize: border,
            cs: self.cs,
            ch: self.ch,
            bmin: [0.0; 3],
            bmax: [0.0; 3],
            walkableSlopeAngle: self.slope,
            walkableHeight: (self.agent_height / self.ch).ceil() as i32,
            walkableClimb: (self.agent_climb / self.ch).floor() as i32,
            walkableRadius: walkable_radius,
            maxEdgeLen: (self.edge_len / self.cs) as i32,
            maxSimplificationError: self.edge_error,
            minRegionArea: (self.region_min * self.region_min) as i32,
            mergeRegionArea: (self.region_merge * self.region_merge) as i32,
            maxVertsPerPoly: self.nvp,
            detailSampleDist: if self.detail_dist < 0.9 {
                0.0
            } else {
                self.cs * self.detail_dist
            },
            detailSampleMaxError: self.ch * self.detail_error,
        }
    }

    /// World size of a tile's side: `tileSize · cs` in f32.
    pub fn tile_world(&self) -> f32 {
        self.tile_size as f32 * self.cs
    }
}

/// A Detour tile blob (`dtCreateNavMeshData`'s output), kept 8-byte aligned.
#[derive(Clone)]
pub struct Blob {
    words: Vec<u64>,
    len: usize,
    /// Tile column (Detour's x).
    pub x: i32,
    /// Tile row (Detour's y).
    pub y: i32,
}

impl Blob {
    fn from_raw(data: *const u8, len: usize, x: i32, y: i32) -> Self {
        let mut words = vec![0u64; len.div_ceil(8)];
        // SAFETY: `data` points to `len` bytes from dtCreateNavMeshData; `words` holds at least
        // `len` bytes and does not overlap it.
        unsafe { ptr::copy_nonoverlapping(data, words.as_mut_ptr().cast::<u8>(), len) };
        Self { words, len, x, y }
    }

    /// The blob's size in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// A pointer for `addTile` (which writes the tile's links into the blob).
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.words.as_mut_ptr().cast()
    }
}

/// The tiled build of one mesh.
pub struct Build {
    /// Mesh bounds from `rcCalcBounds`.
    pub bmin: [f32; 3],
    /// Mesh bounds from `rcCalcBounds`.
    pub bmax: [f32; 3],
    /// Grid size in cells (`rcCalcGridSize`).
    pub cells: (i32, i32),
    /// Tiles along x and z.
    pub tiles_wh: (i32, i32),
    /// The Detour mesh parameters the demo uses.
    pub params: rc::dtNavMeshParams,
    /// Non-empty tiles in build order (rows outer, columns inner).
    pub blobs: Vec<Blob>,
    /// Polygons over all tiles.
    pub polys: usize,
}

/// An `rcContext` with logging and timers off, freed on drop.
pub struct Context(*mut rc::rcContext);

impl Context {
    /// A new context.
    pub fn new() -> Self {
        // SAFETY: CreateContext allocates a context; `false` turns logging and timers off.
        Self(unsafe { rc::CreateContext(false) })
    }

    /// The raw pointer for Recast calls.
    pub fn raw(&self) -> *mut rc::rcContext {
        self.0
    }
}

impl Default for Context {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: created by CreateContext and freed once.
        unsafe { rc::DeleteContext(self.0) }
    }
}

fn next_pow2(mut v: u32) -> u32 {
    v = v.wrapping_sub(1);
    v |= v >> 1;
    v |= v >> 2;
    v |= v >> 4;
    v |= v >> 8;
    v |= v >> 16;
    v.wrapping_add(1)
}

/// Bounds, grid and Detour parameters of `mesh` under `s`, as the demo computes them.
pub fn layout(mesh: &TriMesh, s: &Settings) -> Build {
    let (mut bmin, mut bmax) = ([0.0f32; 3], [0.0f32; 3]);
    let (mut gw, mut gh) = (0, 0);
    // SAFETY: `verts` holds vert_count() × 3 floats; outputs are 3-float arrays and ints.
    unsafe {
        rc::rcCalcBounds(
            mesh.verts.as_ptr(),
            mesh.vert_count() as i32,
            bmin.as_mut_ptr(),
            bmax.as_mut_ptr(),
        );
        rc::rcCalcGridSize(bmin.as_ptr(), bmax.as_ptr(), s.cs, &mut gw, &mut gh);
    }
    let ts = s.tile_size;
    let (tw, th) = ((gw + ts - 1) / ts, (gh + ts - 1) / ts);
    let tile_bits = (next_pow2((tw * th) as u32).trailing_zeros()).min(14);
    let poly_bits = 22 - tile_bits;
    let params = rc::dtNavMeshParams {
        orig: bmin,
        tileWidth: s.tile_world(),
        tileHeight: s.tile_world(),
        maxTiles: 1 << tile_bits,
        maxPolys: 1 << poly_bits,
    };
    Build {
        bmin,
        bmax,
        cells: (gw, gh),
        tiles_wh: (tw, th),
        params,
        blobs: Vec::new(),
        polys: 0,
    }
}

/// Per-triangle x–z bounds `([min x, min z], [max x, max z])`, computed once per build.
pub fn tri_bounds(mesh: &TriMesh) -> Vec<([f32; 2], [f32; 2])> {
    mesh.tris
        .chunks_exact(3)
        .map(|t| {
            let (mut lo, mut hi) = ([f32::MAX; 2], [f32::MIN; 2]);
            for &v in t {
                let (x, z) = (mesh.verts[v as usize * 3], mesh.verts[v as usize * 3 + 2]);
                lo = [lo[0].min(x), lo[1].min(z)];
                hi = [hi[0].max(x), hi[1].max(z)];
            }
            (lo, hi)
        })
        .collect()
}

/// Builds every tile of `mesh` with Recast: the timed workload. Per-triangle x–z bounds are
/// computed once; each tile culls the triangles overlapping its padded bounds by brute force.
pub fn build(ctx: &Context, mesh: &TriMesh, s: &Settings) -> Build {
    let mut b = layout(mesh, s);
    let bounds = tri_bounds(mesh);
    let mut scratch = Scratch::default();
    for ty in 0..b.tiles_wh.1 {
        for tx in 0..b.tiles_wh.0 {
            let cfg = tile_config(s, &b, tx, ty);
            if let Some((blob, polys)) =
                build_tile(ctx, mesh, &bounds, s, &cfg, tx, ty, &mut scratch)
            {
                b.polys += polys;
                b.blobs.push(blob);
            }
        }
    }
    b
}

/// Reused per-tile buffers.
#[derive(Default)]
pub struct Scratch {
    tris: Vec<i32>,
    areas: Vec<u8>,
}

/// The `rcConfig` of tile (tx, ty): the tile's bounds, padded by the border on x and z, in f32
/// exactly as the demo computes them.
pub fn tile_config(s: &Settings, b: &Build, tx: i32, ty: i32) -> rc::rcConfig {
    let mut cfg = s.config();
    let tcs = s.tile_world();
    cfg.bmin = [
        b.bmin[0] + tx as f32 * tcs,
        b.bmin[1],
        b.bmin[2] + ty as f32 * tcs,
    ];
    cfg.bmax = [
        b.bmin[0] + (tx + 1) as f32 * tcs,
        b.bmax[1],
        b.bmin[2] + (ty + 1) as f32 * tcs,
    ];
    let pad = cfg.borderSize as f32 * cfg.cs;
    cfg.bmin[0] -= pad;
    cfg.bmin[2] -= pad;
    cfg.bmax[0] += pad;
    cfg.bmax[2] += pad;
    cfg
}

/// An eroded compact heightfield, freed on drop.
pub struct Chf(*mut rc::rcCompactHeightfield);

impl Chf {
    /// The raw pointer for Recast calls.
    pub fn raw(&self) -> *mut rc::rcCompactHeightfield {
        self.0
    }
}

impl Drop for Chf {
    fn drop(&mut self) {
        // SAFETY: allocated by rcAllocCompactHeightfield, freed once.
        unsafe { rc::rcFreeCompactHeightfield(self.0) }
    }
}

/// The stages both pipelines share: the triangles overlapping the tile, marked walkable by slope,
/// rasterized, the three span filters, the compact heightfield and erosion by the agent radius.
/// `None` when no triangle overlaps the tile or a stage fails.
pub fn rasterize_and_erode(
    ctx: &Context,
    mesh: &TriMesh,
    tri_bounds: &[([f32; 2], [f32; 2])],
    cfg: &rc::rcConfig,
    scratch: &mut Scratch,
) -> Option<Chf> {
    scratch.tris.clear();
    for (i, (lo, hi)) in tri_bounds.iter().enumerate() {
        let overlap = !(lo[0] > cfg.bmax[0]
            || hi[0] < cfg.bmin[0]
            || lo[1] > cfg.bmax[2]
            || hi[1] < cfg.bmin[2]);
        if overlap {
            scratch.tris.extend_from_slice(&mesh.tris[i * 3..i * 3 + 3]);
        }
    }
    let nct = scratch.tris.len() / 3;
    if nct == 0 {
        return None;
    }
    scratch.areas.clear();
    scratch.areas.resize(nct, 0);
    let c = ctx.raw();
    let nv = mesh.vert_count() as i32;
    // SAFETY: every pointer is a live Recast object allocated here (freed before returning, or
    // owned by the returned `Chf`) or a slice of the stated length.
    unsafe {
        let solid = rc::rcAllocHeightfield();
        let mut ok = rc::rcCreateHeightfield(
            c,
            solid,
            cfg.width,
            cfg.height,
            cfg.bmin.as_ptr(),
            cfg.bmax.as_ptr(),
            cfg.cs,
            cfg.ch,
        );
        if ok {
            rc::rcMarkWalkableTriangles(
                c,
                cfg.walkableSlopeAngle,
                mesh.verts.as_ptr(),
                nv,
                scratch.tris.as_ptr(),
                nct as i32,
                scratch.areas.as_mut_ptr(),
            );
            ok = rc::rcRasterizeTriangles(
                c,
                mesh.verts.as_ptr(),
                nv,
                scratch.tris.as_ptr(),
                scratch.areas.as_ptr(),
                nct as i32,
                solid,
                cfg.walkableClimb,
            );
        }
        if !ok {
            rc::rcFreeHeightField(solid);
            return None;
        }
        rc::rcFilterLowHangingWalkableObstacles(c, cfg.walkableClimb, solid);
        rc::rcFilterLedgeSpans(c, cfg.walkableHeight, cfg.walkableClimb, solid);
        rc::rcFilterWalkableLowHeightSpans(c, cfg.walkableHeight, solid);
        let chf = Chf(rc::rcAllocCompactHeightfield());
        let ok = rc::rcBuildCompactHeightfield(
            c,
            cfg.walkableHeight,
            cfg.walkableClimb,
            solid,
            chf.raw(),
        );
        rc::rcFreeHeightField(solid);
        (ok && rc::rcErodeWalkableArea(c, cfg.walkableRadius, chf.raw())).then_some(chf)
    }
}

/// One tile, `Sample_TileMesh::buildTileMesh` step by step; `None` for a tile the demo skips
/// (no triangles, no contours, too many vertices, or no Detour data).
#[allow(clippy::too_many_arguments)]
fn build_tile(
    ctx: &Context,
    mesh: &TriMesh,
    tri_bounds: &[([f32; 2], [f32; 2])],
    s: &Settings,
    cfg: &rc::rcConfig,
    tx: i32,
    ty: i32,
    scratch: &mut Scratch,
) -> Option<(Blob, usize)> {
    let chf = rasterize_and_erode(ctx, mesh, tri_bounds, cfg, scratch)?;
    let c = ctx.raw();
    // SAFETY: as in `rasterize_and_erode`: live objects allocated here and freed before returning.
    unsafe {
        if !rc::rcBuildDistanceField(c, chf.raw())
            || !rc::rcBuildRegions(
                c,
                chf.raw(),
                cfg.borderSize,
                cfg.minRegionArea,
                cfg.mergeRegionArea,
            )
        {
            return None;
        }
        let cset = rc::rcAllocContourSet();
        let ok = rc::rcBuildContours(
            c,
            chf.raw(),
            cfg.maxSimplificationError,
            cfg.maxEdgeLen,
            cset,
            rc::rcBuildContoursFlags_RC_CONTOUR_TESS_WALL_EDGES as i32,
        );
        if !ok || (*cset).nconts == 0 {
            rc::rcFreeContourSet(cset);
            return None;
        }
        let pmesh = rc::rcAllocPolyMesh();
        if !rc::rcBuildPolyMesh(c, cset, cfg.maxVertsPerPoly, pmesh) {
            rc::rcFreePolyMesh(pmesh);
            rc::rcFreeContourSet(cset);
            return None;
        }
        let dmesh = rc::rcAllocPolyMeshDetail();
        let ok = rc::rcBuildPolyMeshDetail(
            c,
            pmesh,
            chf.raw(),
            cfg.detailSampleDist,
            cfg.detailSampleMaxError,
            dmesh,
        );
        drop(chf);
        rc::rcFreeContourSet(cset);
        let out = if ok {
            make_tile_data(pmesh, dmesh, s, cfg, tx, ty)
        } else {
            None
        };
        rc::rcFreePolyMesh(pmesh);
        rc::rcFreePolyMeshDetail(dmesh);
        out
    }
}

/// Ground areas and walk flags (the demo's fix-up), then `dtCreateNavMeshData` with a BV tree.
///
/// # Safety
/// `pmesh` and `dmesh` are live, fully built Recast meshes of the same tile.
unsafe fn make_tile_data(
    pmesh: *mut rc::rcPolyMesh,
    dmesh: *mut rc::rcPolyMeshDetail,
    s: &Settings,
    cfg: &rc::rcConfig,
    tx: i32,
    ty: i32,
) -> Option<(Blob, usize)> {
    let pm = &mut *pmesh;
    let dm = &*dmesh;
    if pm.nverts >= 0xffff || pm.npolys == 0 {
        return None;
    }
    let n = pm.npolys as usize;
    let areas = std::slice::from_raw_parts_mut(pm.areas, n);
    let flags = std::slice::from_raw_parts_mut(pm.flags, n);
    for (a, f) in areas.iter_mut().zip(flags.iter_mut()) {
        if *a == rc::RC_WALKABLE_AREA {
            *a = 0;
        }
        if *a == 0 {
            *f = 1;
        }
    }
    let mut p = rc::dtNavMeshCreateParams {
        verts: pm.verts,
        vertCount: pm.nverts,
        polys: pm.polys,
        polyFlags: pm.flags,
        polyAreas: pm.areas,
        polyCount: pm.npolys,
        nvp: pm.nvp,
        detailMeshes: dm.meshes,
        detailVerts: dm.verts,
        detailVertsCount: dm.nverts,
        detailTris: dm.tris,
        detailTriCount: dm.ntris,
        offMeshConVerts: ptr::null(),
        offMeshConRad: ptr::null(),
        offMeshConFlags: ptr::null(),
        offMeshConAreas: ptr::null(),
        offMeshConDir: ptr::null(),
        offMeshConUserID: ptr::null(),
        offMeshConCount: 0,
        userId: 0,
        tileX: tx,
        tileY: ty,
        tileLayer: 0,
        bmin: pm.bmin,
        bmax: pm.bmax,
        walkableHeight: s.agent_height,
        walkableRadius: s.agent_radius,
        walkableClimb: s.agent_climb,
        cs: cfg.cs,
        ch: cfg.ch,
        buildBvTree: true,
    };
    let mut data: *mut u8 = ptr::null_mut();
    let mut size = 0;
    if !rc::dtCreateNavMeshData(&mut p, &mut data, &mut size) {
        return None;
    }
    let blob = Blob::from_raw(data, size as usize, tx, ty);
    rc::dtFree(data.cast());
    Some((blob, n))
}
