//! DetourTileCache's obstacle updates (issue 15 item 6), the method of
//! `shared/research/build3d-tilecache-anchors.md` §4.1: the demo's TempObstacles settings (cheap:
//! layers, no detail mesh), each tile rasterized, filtered, eroded and split into height layers
//! (`rcBuildHeightfieldLayers`), each layer stored with an identity compressor, the default
//! allocator and a mesh process that makes walkable polygons ground with flags 1;
//! `maxObstacles` 4096. Then cylinders (r 1.0, h 2.0, base 0.5 below a random navmesh point, as
//! the demo tool) are added one at a time, `update` called until up to date, removed, settled
//! again; the cells are medians over the obstacles that touched a layer. At 48- and 16-cell tiles.
//! Also 100 obstacles requested at once (Detour refuses past 64 per update).
//!
//! onav's side (crate `onav-tilecache`, through `adapter::cache`): the same geometry, build3d's
//! demo settings with no detail sampling (the cheap settings) at the same tile sizes, the same
//! spots, interleaved obstacle by obstacle with Detour (the engines take turns to go first).
//! Issue 15's targets: a cylinder added and settled ≤ 70 µs at 48-cell tiles and ≤ 40 µs at
//! 16-cell tiles; 100 obstacles settled by one `update`; the `ONTK` Referenced write ≤ 1.2× a
//! memcpy of its output; the `ONTK` restore ≤ 1.1× the restore of the mesh snapshot it holds
//! plus its lists (timed as a memcpy of the lists' bytes).

use std::ffi::c_void;
use std::ptr;
use std::time::Instant;

use recastnavigation_sys as rc;

use crate::adapter::cache as onav_cache;
use crate::case::{Case, EXTENTS};
use crate::detour::{self, ok};
use crate::recast::{self, Context, Scratch, Settings};
use crate::rng::{self, SplitMix64};
use crate::timing::{interleave, Stats};

/// Seed of the obstacle positions.
pub const SEED: u64 = 0x0B57_AC1E_0000_0001;
/// Layers per tile the demo expects (sizes the tile and obstacle pools).
const LAYERS_PER_TILE: i32 = 4;
/// Layers kept per tile at most (the demo's MAX_LAYERS).
const MAX_LAYERS: i32 = 32;

/// Figures of one mesh at one tile size.
#[derive(Debug, Clone, Default)]
pub struct CacheReport {
    /// Tile size in cells.
    pub tile_size: i32,
    /// Layer tiles in the cache.
    pub layers: usize,
    /// Their bytes (uncompressed).
    pub layer_bytes: usize,
    /// Polygons of the cache's own mesh after building every layer.
    pub polys: usize,
    /// Baking every layer, ns.
    pub bake: Stats,
    /// Cylinder add + settle, ns.
    pub add: Stats,
    /// Cylinder remove + settle, ns.
    pub remove: Stats,
    /// Settle time per rebuilt layer, ns.
    pub per_layer: Stats,
    /// Mean layers touched per obstacle that touched one.
    pub touched: f64,
    /// Obstacles that touched no layer, of those placed.
    pub untouched: (usize, usize),
    /// 100 obstacles requested at once: accepted, refused, update calls to settle.
    pub burst: (usize, usize, usize),
    /// onav's tile cache on the same workload.
    pub onav: OnavReport,
}

/// onav's figures of one mesh at one tile size.
#[derive(Debug, Clone, Default)]
pub struct OnavReport {
    /// Tiles and polygons of the cache's mesh.
    pub tiles: (usize, usize),
    /// Bytes of the cached intermediates.
    pub cached_bytes: usize,
    /// Creating the cache (prepare and build every cell), ns (one run).
    pub create: f64,
    /// Cylinder add + settle, ns.
    pub add: Stats,
    /// Cylinder remove + settle, ns.
    pub remove: Stats,
    /// Settle time per rebuilt cell, ns.
    pub per_cell: Stats,
    /// Mean cells rebuilt per cylinder that queued one.
    pub touched: f64,
    /// Cylinders that queued no cell, of those placed.
    pub untouched: (usize, usize),
    /// 100 at once: accepted, cells rebuilt, update calls, time of the one update (ns).
    pub burst: (usize, usize, usize, f64),
    /// `ONTK` Referenced write and a memcpy of its output (clone), ns; the output's bytes.
    pub write: (Stats, Stats, usize),
    /// `ONTK` restore in place and the restore in place of the mesh snapshot it holds plus a
    /// memcpy of its lists, ns.
    pub restore: (Stats, Stats),
    /// The same two figures with no obstacles (the fresh cache's state).
    pub write_empty: (Stats, Stats, usize),
    /// The same two figures with no obstacles.
    pub restore_empty: (Stats, Stats),
}

unsafe extern "C" fn max_size(_: *mut c_void, n: i32) -> i32 {
    n
}

unsafe extern "C" fn copy(
    _: *mut c_void,
    src: *const u8,
    n: i32,
    dst: *mut u8,
    max: i32,
    out: *mut i32,
) -> rc::dtStatus {
    if n > max {
        return rc::DT_FAILURE | rc::DT_BUFFER_TOO_SMALL;
    }
    ptr::copy_nonoverlapping(src, dst, n as usize);
    *out = n;
    rc::DT_SUCCESS
}

unsafe extern "C" fn process(
    _: *mut c_void,
    params: *mut rc::dtNavMeshCreateParams,
    areas: *mut u8,
    flags: *mut u16,
) {
    let n = (*params).polyCount as usize;
    let areas = std::slice::from_raw_parts_mut(areas, n);
    let flags = std::slice::from_raw_parts_mut(flags, n);
    for (a, f) in areas.iter_mut().zip(flags.iter_mut()) {
        if *a == rc::DT_TILECACHE_WALKABLE_AREA {
            *a = 0;
        }
        if *a == 0 {
            *f = 1;
        }
    }
}

/// A tile cache, its navmesh and its plug-ins, freed on drop.
struct Cache {
    tc: *mut rc::dtTileCache,
    nav: *mut rc::dtNavMesh,
    alloc: *mut rc::dtTileCacheAlloc,
    comp: *mut rc::dtTileCacheCompressor,
    proc_: *mut rc::dtTileCacheMeshProcess,
}

impl Drop for Cache {
    fn drop(&mut self) {
        // SAFETY: each object was created once in `bake` and is freed once here, the cache
        // before the plug-ins it uses.
        unsafe {
            rc::dtFreeTileCache(self.tc);
            rc::dtFreeNavMesh(self.nav);
            rc::DeleteTileCacheMeshProcess(self.proc_);
            rc::DeleteTileCacheCompressor(self.comp);
            rc::DeleteTileCacheAlloc(self.alloc);
        }
    }
}

/// The demo's TempObstacles settings at `tile_size` cells.
fn settings(tile_size: i32) -> Settings {
    Settings {
        tile_size,
        ..recast::DEMO
    }
}

/// Bakes every layer of `c`'s mesh: (layer blobs, bake time in ns).
fn bake_layers(
    ctx: &Context,
    c: &Case,
    s: &Settings,
    comp: *mut rc::dtTileCacheCompressor,
) -> (Vec<(*mut u8, i32)>, f64) {
    let t = Instant::now();
    let b = recast::layout(&c.tri, s);
    let bounds = recast::tri_bounds(&c.tri);
    let mut scratch = Scratch::default();
    let mut out = Vec::new();
    for ty in 0..b.tiles_wh.1 {
        for tx in 0..b.tiles_wh.0 {
            let cfg = recast::tile_config(s, &b, tx, ty);
            let Some(chf) = recast::rasterize_and_erode(ctx, &c.tri, &bounds, &cfg, &mut scratch)
            else {
                continue;
            };
            // SAFETY: live Recast objects allocated here; the layer arrays are read within their
            // sizes by dtBuildTileCacheLayer, which allocates the blob it returns.
            unsafe {
                let lset = rc::rcAllocHeightfieldLayerSet();
                if rc::rcBuildHeightfieldLayers(
                    ctx.raw(),
                    chf.raw(),
                    cfg.borderSize,
                    cfg.walkableHeight,
                    lset,
                ) {
                    let ls = &*lset;
                    for i in 0..ls.nlayers.min(MAX_LAYERS) {
                        let l = &*ls.layers.add(i as usize);
                        let mut h = rc::dtTileCacheLayerHeader {
                            magic: rc::DT_TILECACHE_MAGIC,
                            version: rc::DT_TILECACHE_VERSION,
                            tx,
                            ty,
                            tlayer: i,
                            bmin: l.bmin,
                            bmax: l.bmax,
                            hmin: l.hmin as u16,
                            hmax: l.hmax as u16,
                            width: l.width as u8,
                            height: l.height as u8,
                            minx: l.minx as u8,
                            maxx: l.maxx as u8,
                            miny: l.miny as u8,
                            maxy: l.maxy as u8,
                        };
                        let (mut data, mut size) = (ptr::null_mut(), 0);
                        if ok(rc::dtBuildTileCacheLayer(
                            comp, &mut h, l.heights, l.areas, l.cons, &mut data, &mut size,
                        )) {
                            out.push((data, size));
                        }
                    }
                }
                rc::rcFreeHeightfieldLayerSet(lset);
            }
        }
    }
    (out, t.elapsed().as_nanos() as f64)
}

/// Bakes the cache (timed `bakes` times; the last bake is kept) and builds every navmesh tile.
fn bake(
    ctx: &Context,
    c: &Case,
    tile_size: i32,
    bakes: usize,
    r: &mut CacheReport,
) -> Result<Cache, String> {
    let s = settings(tile_size);
    let b = recast::layout(&c.tri, &s);
    let (tw, th) = b.tiles_wh;
    let max_tiles = tw * th * LAYERS_PER_TILE;
    let tile_bits = ((max_tiles as u32).next_power_of_two().trailing_zeros()).min(14);
    // SAFETY: plug-ins and meshes are created here and owned by the returned `Cache`; blobs from
    // dtBuildTileCacheLayer are handed to the cache with FREE_DATA (or freed on failure).
    unsafe {
        let cache = Cache {
            tc: rc::dtAllocTileCache(),
            nav: rc::dtAllocNavMesh(),
            alloc: rc::CreateDefaultTileCacheAlloc(),
            comp: rc::CreateForwardedTileCacheCompressor(
                ptr::null_mut(),
                Some(max_size),
                Some(copy),
                Some(copy),
            ),
            proc_: rc::CreateForwardedTileCacheMeshProcess(ptr::null_mut(), Some(process)),
        };
        let mut times = Vec::new();
        let mut layers = Vec::new();
        for k in 0..bakes.max(1) {
            let (l, ns) = bake_layers(ctx, c, &s, cache.comp);
            times.push(ns);
            if k + 1 < bakes.max(1) {
                l.iter().for_each(|&(p, _)| rc::dtFree(p.cast()));
            } else {
                layers = l;
            }
        }
        r.bake = Stats::of(times);
        let cs = s.cs;
        let params = rc::dtTileCacheParams {
            orig: b.bmin,
            cs,
            ch: s.ch,
            width: tile_size,
            height: tile_size,
            walkableHeight: s.agent_height,
            walkableRadius: s.agent_radius,
            walkableClimb: s.agent_climb,
            maxSimplificationError: s.edge_error,
            maxTiles: max_tiles,
            maxObstacles: 4096,
        };
        let navp = rc::dtNavMeshParams {
            orig: b.bmin,
            tileWidth: tile_size as f32 * cs,
            tileHeight: tile_size as f32 * cs,
            maxTiles: 1 << tile_bits,
            maxPolys: 1 << (22 - tile_bits),
        };
        if !ok(rc::dtTileCache_init(
            cache.tc,
            &params,
            cache.alloc,
            cache.comp,
            cache.proc_,
        )) || !ok(rc::dtNavMesh_init(cache.nav, &navp))
        {
            layers.iter().for_each(|&(p, _)| rc::dtFree(p.cast()));
            return Err(format!("{}: tile cache init failed", c.name));
        }
        r.layers = layers.len();
        for &(p, n) in &layers {
            r.layer_bytes += n as usize;
            let st = rc::dtTileCache_addTile(
                cache.tc,
                p,
                n,
                rc::dtCompressedTileFlags_DT_COMPRESSEDTILE_FREE_DATA as u8,
                ptr::null_mut(),
            );
            if !ok(st) {
                rc::dtFree(p.cast());
            }
        }
        for ty in 0..th {
            for tx in 0..tw {
                rc::dtTileCache_buildNavMeshTilesAt(cache.tc, tx, ty, cache.nav);
            }
        }
        for i in 0..rc::dtNavMesh_getMaxTiles(cache.nav) {
            let t = rc::dtNavMesh_getTile(cache.nav, i);
            if !t.is_null() && !(*t).header.is_null() {
                r.polys += (*(*t).header).polyCount as usize;
            }
        }
        Ok(cache)
    }
}

/// Calls `update` until the cache is up to date; the number of calls.
fn settle(cache: &Cache) -> usize {
    let mut calls = 0;
    loop {
        let mut done = false;
        // SAFETY: live cache and navmesh.
        unsafe { rc::dtTileCache_update(cache.tc, 0.0, cache.nav, &mut done) };
        calls += 1;
        if done || calls > 100_000 {
            return calls;
        }
    }
}

/// Runs the comparison for `c` at `tile_size`, with `n` obstacles.
pub fn run(
    ctx: &Context,
    c: &Case,
    tile_size: i32,
    n: usize,
    bakes: usize,
) -> Result<CacheReport, String> {
    let mut r = CacheReport {
        tile_size,
        ..CacheReport::default()
    };
    let cache = bake(ctx, c, tile_size, bakes, &mut r)?;
    let owner = &cache;
    // SAFETY: the navmesh lives as long as `cache`.
    let q = unsafe { detour::Query::over(cache.nav, owner, 2048)? };
    let mut rng = SplitMix64::new(SEED);
    let (bmin, bmax) = (c.build.bmin, c.build.bmax);
    let mut spots = Vec::with_capacity(n);
    let mut tries = 0;
    while spots.len() < n && tries < 100_000 {
        tries += 1;
        let p = rng::point(&mut rng, bmin, bmax);
        if let Some((_, mut pt)) = q.nearest(&p, &EXTENTS) {
            pt[1] -= 0.5;
            spots.push(pt);
        }
    }
    let t = Instant::now();
    let mut oc = onav_cache::new(&c.tri.verts, &c.tri.tris, tile_size as u32)?;
    r.onav.create = t.elapsed().as_nanos() as f64;
    r.onav.tiles = onav_cache::counts(&oc);
    r.onav.cached_bytes = onav_cache::cached_bytes(&oc);
    let (mut add, mut remove, mut per_layer) = (Vec::new(), Vec::new(), Vec::new());
    let (mut o_add, mut o_remove, mut o_per) = (Vec::new(), Vec::new(), Vec::new());
    let (mut touched, mut o_touched) = (0usize, 0usize);
    for (k, p) in spots.iter().enumerate() {
        // The engines take turns to go first.
        for turn in 0..2 {
            if (k + turn) % 2 == 0 {
                detour_spot(&cache, c, p, &mut r, &mut touched, &mut add, &mut remove, &mut per_layer)?;
            } else {
                let t = Instant::now();
                let (id, queued) = onav_cache::add_cylinder(&mut oc, *p, 1.0, 2.0)?;
                let cells = onav_cache::settle(&mut oc)?;
                let ns_add = t.elapsed().as_nanos() as f64;
                let t = Instant::now();
                onav_cache::remove(&mut oc, id)?;
                onav_cache::settle(&mut oc)?;
                let ns_remove = t.elapsed().as_nanos() as f64;
                if !queued {
                    r.onav.untouched.0 += 1;
                    continue;
                }
                o_touched += cells;
                o_add.push(ns_add);
                o_remove.push(ns_remove);
                o_per.push(ns_add / cells.max(1) as f64);
            }
        }
    }
    r.untouched.1 = spots.len();
    r.onav.untouched.1 = spots.len();
    if add.is_empty() || o_add.is_empty() {
        return Err(format!("{}: no obstacle touched a layer", c.name));
    }
    r.touched = touched as f64 / add.len() as f64;
    (r.add, r.remove, r.per_layer) = (Stats::of(add), Stats::of(remove), Stats::of(per_layer));
    r.onav.touched = o_touched as f64 / o_add.len() as f64;
    (r.onav.add, r.onav.remove, r.onav.per_cell) =
        (Stats::of(o_add), Stats::of(o_remove), Stats::of(o_per));

    // onav: the ONTK write and restore with no obstacles; 100 at once, one update; then the ONTK
    // write and restore of that state.
    let mut empty = OnavReport::default();
    ontk_figures(&mut oc, &spots, &mut empty)?;
    r.onav.write_empty = empty.write;
    r.onav.restore_empty = empty.restore;
    let mut ids = Vec::new();
    for p in spots.iter().cycle().take(100) {
        ids.push(onav_cache::add_cylinder(&mut oc, *p, 1.0, 2.0)?.0);
    }
    let t = Instant::now();
    let cells = onav_cache::settle(&mut oc)?;
    r.onav.burst = (ids.len(), cells, 1, t.elapsed().as_nanos() as f64);
    ontk_figures(&mut oc, &spots, &mut r.onav)?;
    for id in ids {
        onav_cache::remove(&mut oc, id)?;
    }
    onav_cache::settle(&mut oc)?;

    // 100 at once.
    let mut refs = Vec::new();
    for p in spots.iter().cycle().take(100) {
        let mut oref = 0;
        // SAFETY: live cache; 3-float position.
        let st = unsafe { rc::dtTileCache_addObstacle(cache.tc, p.as_ptr(), 1.0, 2.0, &mut oref) };
        if ok(st) {
            refs.push(oref);
        } else {
            r.burst.1 += 1;
        }
    }
    r.burst.0 = refs.len();
    r.burst.2 = settle(&cache);
    for &o in &refs {
        // SAFETY: live cache and references it returned.
        unsafe { rc::dtTileCache_removeObstacle(cache.tc, o) };
        if refs.len() >= 64 {
            settle(&cache);
        }
    }
    settle(&cache);
    drop(q);
    Ok(r)
}

/// One Detour cylinder at `p`: added, settled, removed, settled (the method of §4.1).
#[allow(clippy::too_many_arguments)]
fn detour_spot(
    cache: &Cache,
    c: &Case,
    p: &[f32; 3],
    r: &mut CacheReport,
    touched: &mut usize,
    add: &mut Vec<f64>,
    remove: &mut Vec<f64>,
    per_layer: &mut Vec<f64>,
) -> Result<(), String> {
    let mut oref = 0;
    let t = Instant::now();
    // SAFETY: live cache; 3-float position.
    let st = unsafe { rc::dtTileCache_addObstacle(cache.tc, p.as_ptr(), 1.0, 2.0, &mut oref) };
    let calls = settle(cache);
    let ns_add = t.elapsed().as_nanos() as f64;
    if !ok(st) {
        return Err(format!("{}: addObstacle failed: {st:#x}", c.name));
    }
    // SAFETY: the reference was just returned by addObstacle.
    let nt = unsafe {
        let ob = rc::dtTileCache_getObstacleByRef(cache.tc, oref);
        if ob.is_null() {
            0
        } else {
            usize::from((*ob).ntouched)
        }
    };
    let t = Instant::now();
    // SAFETY: live cache and a reference it returned.
    unsafe { rc::dtTileCache_removeObstacle(cache.tc, oref) };
    settle(cache);
    let ns_remove = t.elapsed().as_nanos() as f64;
    if nt == 0 {
        r.untouched.0 += 1;
        return Ok(());
    }
    *touched += nt;
    add.push(ns_add);
    remove.push(ns_remove);
    per_layer.push(ns_add / calls as f64);
    Ok(())
}

/// The `ONTK` figures of the cache's current state: the Referenced write against a clone of its
/// output (allocate, copy, free: the writer's own pattern), and the restore in place of a
/// snapshot after one more obstacle was added and settled, against restoring the mesh snapshot
/// the `ONTK` holds into the mesh in the same state (same library) plus a memcpy (clone) of the
/// `ONTK`'s list bytes, interleaved over rounds.
fn ontk_figures(
    oc: &mut onav_cache::Cache,
    spots: &[[f32; 3]],
    out: &mut OnavReport,
) -> Result<(), String> {
    const REPS: usize = 200;
    let snap = onav_cache::snapshot(oc);
    let view: &onav_cache::Cache = oc;
    let s = interleave(
        31,
        &mut [
            &mut || {
                let t = Instant::now();
                for _ in 0..REPS {
                    drop(std::hint::black_box(onav_cache::snapshot(std::hint::black_box(view))));
                }
                t.elapsed().as_nanos() as f64 / REPS as f64
            },
            &mut || {
                let t = Instant::now();
                for _ in 0..REPS {
                    drop(std::hint::black_box(std::hint::black_box(&snap).clone()));
                }
                t.elapsed().as_nanos() as f64 / REPS as f64
            },
        ],
    );
    out.write = (s[0], s[1], snap.len());
    // The state after one more obstacle: what a rollback restores from.
    let mesh_snap = onav_cache::mesh_snapshot(oc);
    // The lists' bytes (the obstacle count to the last volume record): between the header and
    // next ids (16 bytes) and the queue length, the empty queue and the mesh's length and bytes.
    if !oc.is_up_to_date() {
        return Err("the ONTK figures need a settled cache".into());
    }
    let lists = snap[16..snap.len() - 8 - mesh_snap.len()].to_vec();
    let (id, _) = onav_cache::add_cylinder(oc, spots[0], 1.0, 2.0)?;
    onav_cache::settle(oc)?;
    let moved = oc.clone();
    let (moved_mesh, lib) = onav_cache::mesh_twin(oc);
    let (mut e1, mut e2) = (None, None);
    let s = interleave(
        31,
        &mut [
            &mut || {
                let mut a = moved.clone();
                let t = Instant::now();
                if let Err(e) = onav_cache::restore(&mut a, &snap) {
                    e1 = Some(e);
                }
                let ns = t.elapsed().as_nanos() as f64;
                drop(a);
                ns
            },
            &mut || {
                let mut m = moved_mesh.clone();
                let t = Instant::now();
                if let Err(e) = onav_cache::mesh_restore(&mut m, &mesh_snap, &lib) {
                    e2 = Some(e);
                }
                drop(std::hint::black_box(std::hint::black_box(&lists).clone()));
                let ns = t.elapsed().as_nanos() as f64;
                drop(m);
                ns
            },
        ],
    );
    if let Some(e) = e1.or(e2) {
        return Err(e);
    }
    out.restore = (s[0], s[1]);
    onav_cache::restore(oc, &snap)?;
    let _ = id;
    Ok(())
}
