//! Portals (`spec/queries.md` §1.4): where a link crosses from one polygon to the next. An edge
//! link crosses a segment of the polygon's edge, seen as (left, right) by an agent leaving the
//! polygon; an off-mesh link crosses at one of its end points.

use super::Ground;
use crate::geom::Vec3;
use crate::ids::PolyRef;
use crate::mesh::TiledNavMesh;
use crate::stitch::{LinkEnd, LinkKind};
use crate::tile::LinkDirection;

/// The point of border edge (a, b) at coordinate `c` of axis `u` (0 for x, 2 for z): a's other
/// horizontal coordinate, `c` on axis u, and `y = a.y + (b.y − a.y)·((c − a.u)/(b.u − a.u))`
/// (the stitching height rule, `spec/navmesh-format.md` §6.2).
pub(crate) fn point_on_border_edge(a: &Vec3, b: &Vec3, u: usize, c: f64) -> Vec3 {
    let mut p = *a;
    p[u] = c;
    p[1] = a[1] + (b[1] - a[1]) * ((c - a[u]) / (b[u] - a[u]));
    p
}

/// The (left, right) segment of an edge link of ground polygon `g` (`spec/queries.md` §1.4):
/// edge k runs from vertex k (a) to vertex k + 1 (b); leaving the polygon through it, b is on
/// the left and a on the right. An internal link crosses the whole edge; a portal link only its
/// overlap [lo, hi], whose end nearer b is the left one. `None` for an off-mesh link kind.
pub(crate) fn edge_portal(g: &Ground<'_>, kind: &LinkKind) -> Option<(Vec3, Vec3)> {
    match *kind {
        LinkKind::Internal { edge } => {
            let k = usize::from(edge);
            Some((g.vertex(k + 1), g.vertex(k)))
        }
        LinkKind::Portal { edge, side, lo, hi } => {
            let k = usize::from(edge);
            let (a, b) = (g.vertex(k), g.vertex(k + 1));
            let u = if side.along_z() { 2 } else { 0 };
            let pl = point_on_border_edge(&a, &b, u, lo);
            let ph = point_on_border_edge(&a, &b, u, hi);
            if b[u] > a[u] {
                Some((ph, pl))
            } else {
                Some((pl, ph))
            }
        }
        LinkKind::ToOffMesh { .. } | LinkKind::FromOffMesh { .. } => None,
    }
}

/// The other end of an off-mesh link.
pub(crate) fn opposite(end: LinkEnd) -> LinkEnd {
    match end {
        LinkEnd::Start => LinkEnd::End,
        LinkEnd::End => LinkEnd::Start,
    }
}

/// The off-mesh link of link polygon `r`: its end point `end` and its direction.
pub(crate) fn link_point(
    mesh: &TiledNavMesh,
    r: PolyRef,
    end: LinkEnd,
) -> Option<(Vec3, LinkDirection)> {
    let (tile, index) = mesh.poly(r)?;
    let i = tile.link_of_poly(index)?;
    let l = tile.off_mesh_links().get(i.0 as usize)?;
    Some((
        match end {
            LinkEnd::Start => l.start,
            LinkEnd::End => l.end,
        },
        l.direction,
    ))
}

/// True when polygon `r` is an off-mesh link polygon of a valid tile.
pub(crate) fn is_link_poly(mesh: &TiledNavMesh, r: PolyRef) -> bool {
    mesh.poly(r)
        .is_some_and(|(t, i)| t.link_of_poly(i).is_some())
}

/// The end at which the corridor step `before → link → after` boards off-mesh link polygon
/// `link` (`spec/queries.md` §5.2): Start when `before` has a `ToOffMesh { Start }` link to it and
/// it has a `FromOffMesh { End }` link to `after`; otherwise End under the mirrored condition
/// (bidirectional links only); otherwise `None`.
pub(crate) fn boarding_end(
    mesh: &TiledNavMesh,
    before: PolyRef,
    link: PolyRef,
    after: PolyRef,
) -> Option<LinkEnd> {
    let to = mesh.links(before)?;
    let from = mesh.links(link)?;
    let (_, direction) = link_point(mesh, link, LinkEnd::Start)?;
    [LinkEnd::Start, LinkEnd::End].into_iter().find(|&e| {
        (e == LinkEnd::Start || direction == LinkDirection::Bidirectional)
            && to
                .iter()
                .any(|l| l.target == link && l.kind == LinkKind::ToOffMesh { end: e })
            && from
                .iter()
                .any(|l| l.target == after && l.kind == LinkKind::FromOffMesh { end: opposite(e) })
    })
}
