//! Polygons looked up once (`spec/queries.md` §1.1): a reference is resolved to its slot's tile
//! and links in one step, and a query reads the polygon's record, vertices, area, flags and links
//! from there instead of validating the same reference again for each of them.

use crate::geom::Vec3;
use crate::ids::{PolyIndex, PolyRef};
use crate::mesh::TiledNavMesh;
use crate::stitch::{Link, TileLinks};
use crate::tile::{NavTile, OffMeshLink, Polygon};

/// A polygon that is valid now: its reference, tile, index and links in canonical order.
#[derive(Clone, Copy)]
pub(crate) struct PolyView<'m> {
    pub r: PolyRef,
    pub tile: &'m NavTile,
    pub index: u32,
    pub links: &'m [Link],
    /// The links of every polygon of the tile (to resolve a target in the same tile).
    tile_links: &'m TileLinks,
}

/// The polygon of `r`, if `r` is valid now (`spec/navmesh-format.md` §5).
#[inline(always)]
pub(crate) fn resolve(mesh: &TiledNavMesh, r: PolyRef) -> Option<PolyView<'_>> {
    let slot = mesh.state.slots.get(r.slot().0 as usize)?;
    if slot.generation != r.generation() {
        return None;
    }
    let o = slot.occupied.as_deref()?;
    let index = r.poly().0;
    (index < o.tile.poly_count()).then(|| PolyView {
        r,
        tile: &o.tile,
        index,
        links: o.links.of(PolyIndex(index)),
        tile_links: &o.links,
    })
}

/// The polygon of `r`, a link target of `from`: valid now (stitching links only valid
/// polygons), and found without a slot look-up when it lies in `from`'s tile.
#[inline]
pub(crate) fn resolve_from<'m>(
    mesh: &'m TiledNavMesh,
    from: &PolyView<'m>,
    r: PolyRef,
) -> Option<PolyView<'m>> {
    if r.tile() != from.r.tile() {
        return resolve(mesh, r);
    }
    let index = r.poly().0;
    (index < from.tile.poly_count()).then(|| PolyView {
        r,
        index,
        links: from.tile_links.of(PolyIndex(index)),
        ..*from
    })
}

/// A valid polygon's tile and index only: what a search needs of a link target before it
/// enters it (its flags, link switch, area and off-mesh link record), without its links.
#[derive(Clone, Copy)]
pub(crate) struct Target<'m> {
    pub tile: &'m NavTile,
    pub index: u32,
}

/// The [`Target`] of `r`, a link target of `from` (valid now, as for [`resolve_from`]).
#[inline(always)]
pub(crate) fn target_from<'m>(
    mesh: &'m TiledNavMesh,
    from: &PolyView<'m>,
    r: PolyRef,
) -> Option<Target<'m>> {
    let index = r.poly().0;
    let tile = if r.tile() == from.r.tile() {
        from.tile
    } else {
        let slot = mesh.state.slots.get(r.slot().0 as usize)?;
        if slot.generation != r.generation() {
            return None;
        }
        &slot.occupied.as_deref()?.tile
    };
    (index < tile.poly_count()).then_some(Target { tile, index })
}

impl<'m> Target<'m> {
    /// The off-mesh link record, for an off-mesh link polygon.
    #[inline]
    pub fn off_mesh_link(&self) -> Option<&'m OffMeshLink> {
        let link = self.tile.link_of_poly(PolyIndex(self.index))?;
        self.tile.off_mesh_links().get(link.0 as usize)
    }

    /// Current area.
    #[inline]
    pub fn area(&self) -> u8 {
        self.tile.areas()[self.index as usize]
    }

    /// Current flags.
    #[inline]
    pub fn flags(&self) -> u16 {
        // The index is in range (a target is a valid polygon), so this is never the default.
        self.tile.flags(PolyIndex(self.index)).unwrap_or_default()
    }
}

impl<'m> PolyView<'m> {
    /// Its tile and index.
    #[inline]
    pub fn target(&self) -> Target<'m> {
        Target {
            tile: self.tile,
            index: self.index,
        }
    }

    /// The ground polygon, or `None` for an off-mesh link polygon.
    #[inline(always)]
    pub fn ground(self) -> Option<Ground<'m>> {
        let poly = self.tile.ground_polys().get(self.index as usize)?;
        Some(Ground {
            r: self.r,
            tile: self.tile,
            index: self.index,
            links: self.links,
            tile_links: self.tile_links,
            poly,
            verts: self.tile.vertices(),
        })
    }

    /// The off-mesh link record, for an off-mesh link polygon.
    #[inline]
    pub fn off_mesh_link(&self) -> Option<&'m OffMeshLink> {
        self.target().off_mesh_link()
    }

    /// Current area.
    #[inline]
    pub fn area(&self) -> u8 {
        self.target().area()
    }
}

/// A valid ground polygon: the [`PolyView`] fields, its record and its tile's vertices.
#[derive(Clone, Copy)]
pub(crate) struct Ground<'m> {
    pub r: PolyRef,
    pub tile: &'m NavTile,
    pub index: u32,
    pub links: &'m [Link],
    tile_links: &'m TileLinks,
    pub poly: &'m Polygon,
    verts: &'m [Vec3],
}

impl<'m> Ground<'m> {
    /// The view it came from.
    #[inline]
    pub fn view(&self) -> PolyView<'m> {
        PolyView {
            r: self.r,
            tile: self.tile,
            index: self.index,
            links: self.links,
            tile_links: self.tile_links,
        }
    }

    /// Number of vertices (3 ..= 6).
    #[inline]
    pub fn len(&self) -> usize {
        usize::from(self.poly.vertex_count)
    }

    /// Vertex k, for k below the vertex count.
    #[inline(always)]
    pub fn vertex(&self, k: usize) -> Vec3 {
        self.verts[self.poly.vertices[k] as usize]
    }

    /// The end points of edge k (vertex k to vertex k + 1, wrapping), for k below the vertex
    /// count.
    #[inline(always)]
    pub fn edge(&self, k: usize) -> (Vec3, Vec3) {
        let next = if k + 1 == self.len() { 0 } else { k + 1 };
        (self.vertex(k), self.vertex(next))
    }

    /// The corners in order, in a fixed buffer, and their count.
    #[inline]
    pub fn corners(&self) -> ([Vec3; 6], usize) {
        let mut out = [[0.0; 3]; 6];
        let n = self.len().min(6);
        for (k, o) in out.iter_mut().enumerate().take(n) {
            *o = self.vertex(k);
        }
        (out, n)
    }
}
