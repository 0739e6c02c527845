//! Portals (`spec/queries.md` §1.4): where a link crosses from one polygon to the next. An edge
//! link crosses a segment of the polygon's edge, seen as (left, right) by an agent leaving the
//! polygon; an off-mesh link crosses at one of its end points.

use super::geom::midpoint;
use super::view::{Ground, PolyView};
use crate::geom::Vec3;
use crate::ids::PolyRef;
use crate::stitch::{LinkEnd, LinkKind};
use crate::tile::{LinkDirection, OffMeshLink};

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
#[inline]
pub(crate) fn edge_portal(g: &Ground<'_>, kind: &LinkKind) -> Option<(Vec3, Vec3)> {
    match *kind {
        LinkKind::Internal { edge } => {
            let (a, b) = g.edge(usize::from(edge));
            Some((b, a))
        }
        LinkKind::Portal { edge, side, lo, hi } => {
            let (a, b) = g.edge(usize::from(edge));
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

/// The portal midpoint `mid(left, right)` of an edge link of ground polygon `g`
/// (`spec/queries.md` §1.4), computed as [`edge_portal`]'s ends would give it: `mid` adds the two
/// ends per component, and binary64 addition is commutative, so which end is the left one does
/// not matter. `None` for an off-mesh link kind.
#[inline(always)]
pub(crate) fn edge_midpoint(g: &Ground<'_>, kind: &LinkKind) -> Option<Vec3> {
    match *kind {
        LinkKind::Internal { edge } => {
            let (a, b) = g.edge(usize::from(edge));
            Some(midpoint(&a, &b))
        }
        LinkKind::Portal { edge, side, lo, hi } => {
            let (a, b) = g.edge(usize::from(edge));
            let u = if side.along_z() { 2 } else { 0 };
            Some(midpoint(
                &point_on_border_edge(&a, &b, u, lo),
                &point_on_border_edge(&a, &b, u, hi),
            ))
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

/// The point of an off-mesh link at `end`.
#[inline]
pub(crate) fn link_point(link: &OffMeshLink, end: LinkEnd) -> Vec3 {
    match end {
        LinkEnd::Start => link.start,
        LinkEnd::End => link.end,
    }
}

/// The end at which the corridor step `before → link → after` boards off-mesh link polygon
/// `link` (`spec/queries.md` §5.2): Start when `before` has a `ToOffMesh { Start }` link to it and
/// it has a `FromOffMesh { End }` link to `after`; otherwise End under the mirrored condition
/// (bidirectional links only); otherwise `None` (also when `link` is a ground polygon).
pub(crate) fn boarding_end(
    before: &PolyView<'_>,
    link: &PolyView<'_>,
    after: PolyRef,
) -> Option<LinkEnd> {
    let direction = link.off_mesh_link()?.direction;
    [LinkEnd::Start, LinkEnd::End].into_iter().find(|&e| {
        (e == LinkEnd::Start || direction == LinkDirection::Bidirectional)
            && before
                .links
                .iter()
                .any(|l| l.target == link.r && l.kind == LinkKind::ToOffMesh { end: e })
            && link
                .links
                .iter()
                .any(|l| l.target == after && l.kind == LinkKind::FromOffMesh { end: opposite(e) })
    })
}
