//! The Detour side: a `dtNavMesh` over tile blobs, a `dtNavMeshQuery` on it, the tile-state calls,
//! and read access to a live tile's arrays for the conversion. All FFI, behind safe wrappers.

use std::marker::PhantomData;
use std::ptr;

use recastnavigation_sys as rc;

use crate::recast::Blob;

/// A polygon reference (32-bit: the crate is built without `detour_large_nav_meshes`).
pub type PolyRef = rc::dtPolyRef;

/// True when a Detour status has the success bit.
pub fn ok(status: rc::dtStatus) -> bool {
    status & rc::DT_SUCCESS != 0
}

/// A `dtNavMesh` that owns the blobs its tiles point into (added with flags 0).
pub struct NavMesh {
    raw: *mut rc::dtNavMesh,
    blobs: Vec<Blob>,
}

impl NavMesh {
    /// Allocates and initialises a mesh and adds every blob: the timed Detour step "alloc + init +
    /// addTile" when called on fresh copies of the blobs.
    pub fn new(params: &rc::dtNavMeshParams, mut blobs: Vec<Blob>) -> Result<Self, String> {
        // SAFETY: the mesh is allocated here; each blob lives as long as the mesh (moved into it),
        // and addTile with flags 0 never frees it.
        unsafe {
            let raw = rc::dtAllocNavMesh();
            if raw.is_null() {
                return Err("dtAllocNavMesh failed".into());
            }
            // The blobs' buffers do not move when the Vec holding them moves into the mesh.
            let mut m = Self {
                raw,
                blobs: Vec::new(),
            };
            if !ok(rc::dtNavMesh_init(raw, params)) {
                return Err("dtNavMesh::init failed".into());
            }
            for b in &mut blobs {
                let st = rc::dtNavMesh_addTile(
                    raw,
                    b.as_mut_ptr(),
                    b.len() as i32,
                    0,
                    0,
                    ptr::null_mut(),
                );
                if !ok(st) {
                    return Err(format!("addTile ({}, {}) failed: status {st:#x}", b.x, b.y));
                }
            }
            m.blobs = blobs;
            Ok(m)
        }
    }

    /// Frees the Detour mesh and hands the blobs back (for the next timed build).
    pub fn into_blobs(mut self) -> Vec<Blob> {
        std::mem::take(&mut self.blobs)
    }

    /// The live tiles, in the blobs' (build) order.
    pub fn tiles(&self) -> Vec<Tile<'_>> {
        self.blobs
            .iter()
            .filter_map(|b| {
                // SAFETY: the mesh is live; getTileAt returns null or a tile it owns.
                let t = unsafe { rc::dtNavMesh_getTileAt(self.raw, b.x, b.y, 0) };
                // SAFETY: a non-null tile of a live mesh stays valid while `self` is borrowed.
                (!t.is_null()).then(|| Tile {
                    mesh: self,
                    t: unsafe { &*t },
                })
            })
            .collect()
    }

    /// Tile-state bytes of every tile (`getTileStateSize` summed).
    pub fn state_size(&self, tiles: &[Tile<'_>]) -> usize {
        // SAFETY: the tiles belong to this live mesh.
        tiles
            .iter()
            .map(|t| unsafe { rc::dtNavMesh_getTileStateSize(self.raw, t.t) } as usize)
            .sum()
    }

    /// Stores every tile's state into `buf`, back to back.
    pub fn store_state(&self, tiles: &[Tile<'_>], buf: &mut [u8]) {
        let mut at = 0;
        for t in tiles {
            // SAFETY: the tile belongs to this mesh; `buf` has room (sized by `state_size`).
            unsafe {
                let n = rc::dtNavMesh_getTileStateSize(self.raw, t.t) as usize;
                rc::dtNavMesh_storeTileState(self.raw, t.t, buf[at..].as_mut_ptr(), n as i32);
                at += n;
            }
        }
    }

    /// Restores every tile's state from `buf` (as written by `store_state`).
    pub fn restore_state(&self, tiles: &[Tile<'_>], buf: &[u8]) {
        let mut at = 0;
        for t in tiles {
            // SAFETY: as in `store_state`; restoreTileState writes only the tile's flags and
            // areas, which this mesh owns (the cast follows Detour's own getTileAt/const use).
            unsafe {
                let n = rc::dtNavMesh_getTileStateSize(self.raw, t.t) as usize;
                rc::dtNavMesh_restoreTileState(
                    self.raw as *mut _,
                    t.t as *const rc::dtMeshTile as *mut rc::dtMeshTile,
                    buf[at..].as_ptr(),
                    n as i32,
                );
                at += n;
            }
        }
    }
}

impl Drop for NavMesh {
    fn drop(&mut self) {
        // SAFETY: allocated by dtAllocNavMesh, freed once; tiles were added without FREE_DATA.
        unsafe { rc::dtFreeNavMesh(self.raw) }
    }
}

/// A live tile of a [`NavMesh`].
#[derive(Clone, Copy)]
pub struct Tile<'m> {
    mesh: &'m NavMesh,
    t: &'m rc::dtMeshTile,
}

/// One directed Detour link: from polygon, to polygon, and whether it crosses a tile border.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct LinkEdge {
    /// Source polygon.
    pub from: PolyRef,
    /// Target polygon.
    pub to: PolyRef,
    /// True for an external (cross-tile) link.
    pub external: bool,
}

impl<'m> Tile<'m> {
    fn header(&self) -> &'m rc::dtMeshHeader {
        // SAFETY: a live tile has a header.
        unsafe { &*self.t.header }
    }

    /// Tile column and row.
    pub fn xy(&self) -> (i32, i32) {
        (self.header().x, self.header().y)
    }

    /// The header's walkable height, radius and climb.
    pub fn agent(&self) -> [f32; 3] {
        let h = self.header();
        [h.walkableHeight, h.walkableRadius, h.walkableClimb]
    }

    /// The polygons.
    pub fn polys(&self) -> &'m [rc::dtPoly] {
        // SAFETY: `polyCount` polygons at `polys`.
        unsafe { slice(self.t.polys, self.header().polyCount) }
    }

    /// Vertices, x y z each.
    pub fn verts(&self) -> &'m [f32] {
        // SAFETY: `vertCount` vertices of 3 floats.
        unsafe { slice(self.t.verts, self.header().vertCount * 3) }
    }

    /// Detail mesh records.
    pub fn detail_meshes(&self) -> &'m [rc::dtPolyDetail] {
        // SAFETY: `detailMeshCount` records.
        unsafe { slice(self.t.detailMeshes, self.header().detailMeshCount) }
    }

    /// Detail vertices, x y z each.
    pub fn detail_verts(&self) -> &'m [f32] {
        // SAFETY: `detailVertCount` vertices of 3 floats.
        unsafe { slice(self.t.detailVerts, self.header().detailVertCount * 3) }
    }

    /// Detail triangles, 4 bytes each (3 indices and edge flags).
    pub fn detail_tris(&self) -> &'m [u8] {
        // SAFETY: `detailTriCount` triangles of 4 bytes.
        unsafe { slice(self.t.detailTris, self.header().detailTriCount * 4) }
    }

    /// Number of off-mesh connections.
    pub fn off_mesh_count(&self) -> i32 {
        self.header().offMeshConCount
    }

    /// The reference of polygon 0.
    pub fn base(&self) -> PolyRef {
        // SAFETY: the tile belongs to the live mesh.
        unsafe { rc::dtNavMesh_getPolyRefBase(self.mesh.raw, self.t) }
    }

    /// Every directed link of the tile's polygons.
    pub fn links(&self, out: &mut Vec<LinkEdge>) {
        let base = self.base();
        // SAFETY: `maxLinkCount` links; link indices come from the tile's own chains.
        let links = unsafe { slice(self.t.links, self.header().maxLinkCount) };
        for (i, p) in self.polys().iter().enumerate() {
            let mut k = p.firstLink;
            while k != rc::DT_NULL_LINK {
                let l = &links[k as usize];
                out.push(LinkEdge {
                    from: base | i as u32,
                    to: l.ref_,
                    external: l.side != 0xff,
                });
                k = l.next;
            }
        }
    }
}

/// # Safety
/// `p` points to `n` valid, initialised elements that outlive `'a` (or `n` ≤ 0).
unsafe fn slice<'a, T>(p: *const T, n: i32) -> &'a [T] {
    if n <= 0 || p.is_null() {
        &[]
    } else {
        std::slice::from_raw_parts(p, n as usize)
    }
}

/// A `dtNavMeshQuery` with the default filter (include 0xffff, exclude 0, costs 1).
pub struct Query<'m> {
    raw: *mut rc::dtNavMeshQuery,
    filter: rc::dtQueryFilter,
    _mesh: PhantomData<&'m ()>,
}

/// What `raycast` (the legacy overload) returns.
#[derive(Debug, Clone, Copy)]
pub struct Ray {
    /// Hit parameter; `f32::MAX` when no wall was hit.
    pub t: f32,
    /// Polygons visited.
    pub visited: i32,
}

impl<'m> Query<'m> {
    /// A query over `mesh` with `max_nodes` nodes.
    pub fn new(mesh: &'m NavMesh, max_nodes: i32) -> Result<Self, String> {
        // SAFETY: `mesh.raw` is live for as long as `mesh` is borrowed.
        unsafe { Self::over(mesh.raw, mesh, max_nodes) }
    }

    /// A query over a raw mesh that `owner` keeps alive.
    ///
    /// # Safety
    /// `mesh` is an initialised `dtNavMesh` that lives at least as long as `owner` is borrowed.
    pub unsafe fn over<T>(
        mesh: *const rc::dtNavMesh,
        owner: &'m T,
        max_nodes: i32,
    ) -> Result<Self, String> {
        let _ = owner;
        let raw = rc::dtAllocNavMeshQuery();
        let q = Self {
            raw,
            filter: rc::dtQueryFilter::new(),
            _mesh: PhantomData,
        };
        if raw.is_null() || !ok(rc::dtNavMeshQuery_init(raw, mesh, max_nodes)) {
            return Err("dtNavMeshQuery::init failed".into());
        }
        Ok(q)
    }

    /// `findNearestPoly`: the polygon and nearest point, or `None`.
    pub fn nearest(&self, center: &[f32; 3], ext: &[f32; 3]) -> Option<(PolyRef, [f32; 3])> {
        let (mut r, mut pt) = (0, [0.0f32; 3]);
        // SAFETY: 3-float inputs and outputs; live query and filter.
        let st = unsafe {
            rc::dtNavMeshQuery_findNearestPoly(
                self.raw,
                center.as_ptr(),
                ext.as_ptr(),
                &self.filter,
                &mut r,
                pt.as_mut_ptr(),
            )
        };
        (ok(st) && r != 0).then_some((r, pt))
    }

    /// `findPath` into `path`; returns the corridor length and whether the result is partial.
    pub fn path(
        &self,
        s: PolyRef,
        e: PolyRef,
        sp: &[f32; 3],
        ep: &[f32; 3],
        path: &mut [PolyRef],
    ) -> (usize, bool) {
        let mut n = 0;
        // SAFETY: `path` has `path.len()` slots; other inputs are 3 floats.
        let st = unsafe {
            rc::dtNavMeshQuery_findPath(
                self.raw,
                s,
                e,
                sp.as_ptr(),
                ep.as_ptr(),
                &self.filter,
                path.as_mut_ptr(),
                &mut n,
                path.len() as i32,
            )
        };
        if !ok(st) {
            return (0, true);
        }
        (n as usize, st & rc::DT_PARTIAL_RESULT != 0)
    }

    /// `findStraightPath` with options 0 and no flag or reference outputs; returns the point count.
    pub fn straight(
        &self,
        sp: &[f32; 3],
        ep: &[f32; 3],
        corridor: &[PolyRef],
        out: &mut [f32],
    ) -> usize {
        let mut n = 0;
        // SAFETY: `out` holds out.len() / 3 points; the corridor slice is read only.
        unsafe {
            rc::dtNavMeshQuery_findStraightPath(
                self.raw,
                sp.as_ptr(),
                ep.as_ptr(),
                corridor.as_ptr(),
                corridor.len() as i32,
                out.as_mut_ptr(),
                ptr::null_mut(),
                ptr::null_mut(),
                &mut n,
                (out.len() / 3) as i32,
                0,
            );
        }
        n as usize
    }

    /// The legacy `raycast` (t, hit normal, visited path).
    pub fn raycast(
        &self,
        s: PolyRef,
        sp: &[f32; 3],
        ep: &[f32; 3],
        visited: &mut [PolyRef],
    ) -> Ray {
        let (mut t, mut normal, mut n) = (0.0f32, [0.0f32; 3], 0);
        // SAFETY: `visited` has visited.len() slots; other inputs and outputs are 3 floats.
        unsafe {
            rc::dtNavMeshQuery_raycast(
                self.raw,
                s,
                sp.as_ptr(),
                ep.as_ptr(),
                &self.filter,
                &mut t,
                normal.as_mut_ptr(),
                visited.as_mut_ptr(),
                &mut n,
                visited.len() as i32,
            );
        }
        Ray { t, visited: n }
    }
}

impl Drop for Query<'_> {
    fn drop(&mut self) {
        // SAFETY: allocated by dtAllocNavMeshQuery, freed once.
        unsafe { rc::dtFreeNavMeshQuery(self.raw) }
    }
}
