//! The reference's answer to `corridor_cost` (`spec/conformance.md` §2.2, `spec/queries.md` P6):
//! the cost of a given corridor under a filter in onav's cost model, so that a port's
//! `find_path` costs can be compared with corridors found by other means (another search,
//! Detour's). Built on the mesh's public links and geometry, from the spec's text: the crossing
//! positions of §4.2, the portals of §1.4, the boarding ends of §5.2 and the search's steps of
//! §4.3.

use onav::query::QueryFilter;
use onav::{LinkEnd, LinkKind, PolyRef, TiledNavMesh};

use crate::protocol::Reply;

type Vec3 = [f64; 3];

/// A rejection of class `query` (§1.3).
fn rejected(field: &str, message: String) -> Reply {
    Reply::Rejected {
        class: "query".into(),
        field: field.into(),
        offset: None,
        message,
    }
}

fn dist3(a: &Vec3, b: &Vec3) -> f64 {
    let (dx, dy, dz) = (b[0] - a[0], b[1] - a[1], b[2] - a[2]);
    (dx * dx + dy * dy + dz * dz).sqrt()
}

fn mid(a: &Vec3, b: &Vec3) -> Vec3 {
    [
        (a[0] + b[0]) * 0.5,
        (a[1] + b[1]) * 0.5,
        (a[2] + b[2]) * 0.5,
    ]
}

/// A polygon's tile-side facts: whether it is an off-mesh link polygon (and the link's two
/// points), its corners, and its area.
struct Poly {
    link: Option<(Vec3, Vec3)>,
    corners: Vec<Vec3>,
    area: u8,
}

fn poly(m: &TiledNavMesh, r: PolyRef) -> Option<Poly> {
    let (tile, i) = m.poly(r)?;
    let link = tile
        .link_of_poly(i)
        .and_then(|l| tile.off_mesh_links().get(l.0 as usize))
        .map(|l| (l.start, l.end));
    let corners = tile
        .poly_vertices(i)
        .map(Iterator::collect)
        .unwrap_or_default();
    Some(Poly {
        link,
        corners,
        area: m.poly_area(r)?,
    })
}

fn point_at(link: (Vec3, Vec3), e: LinkEnd) -> Vec3 {
    match e {
        LinkEnd::Start => link.0,
        LinkEnd::End => link.1,
    }
}

fn other(e: LinkEnd) -> LinkEnd {
    match e {
        LinkEnd::Start => LinkEnd::End,
        LinkEnd::End => LinkEnd::Start,
    }
}

/// The portal midpoint (§1.4) of P's edge link `kind`: the whole edge, or the overlap [lo, hi]
/// on the border axis with P's own edge heights.
fn edge_midpoint(corners: &[Vec3], kind: &LinkKind) -> Option<Vec3> {
    let (edge, overlap) = match *kind {
        LinkKind::Internal { edge } => (edge, None),
        LinkKind::Portal { edge, side, lo, hi } => (edge, Some((side, lo, hi))),
        _ => return None,
    };
    let n = corners.len();
    let k = usize::from(edge);
    let (a, b) = (*corners.get(k)?, *corners.get((k + 1) % n)?);
    let Some((side, lo, hi)) = overlap else {
        return Some(mid(&b, &a));
    };
    // u: z for sides ±x, x for sides ±z.
    let u = if matches!(side, onav::Side::PosX | onav::Side::NegX) {
        2
    } else {
        0
    };
    let at = |c: f64| {
        let mut p = a;
        p[u] = c;
        p[1] = a[1] + (b[1] - a[1]) * ((c - a[u]) / (b[u] - a[u]));
        p
    };
    let (pl, ph) = (at(lo), at(hi));
    Some(if b[u] > a[u] {
        mid(&ph, &pl)
    } else {
        mid(&pl, &ph)
    })
}

/// `corridor_cost`: the checks of §1.3 in E1's order (the filter was made by the caller), then the
/// cost of P6 (P0 for a corridor of one polygon).
pub fn corridor_cost(
    m: &TiledNavMesh,
    filter: &QueryFilter,
    corridor: &[u64],
    start_pos: Vec3,
    end_pos: Vec3,
) -> Result<f64, Reply> {
    let (Some(&first), Some(&last)) = (corridor.first(), corridor.last()) else {
        return Err(rejected(
            "invalid_input",
            "invalid input: an empty corridor".into(),
        ));
    };
    let ground = |raw: u64, what: &str| -> Result<PolyRef, Reply> {
        PolyRef::from_raw(raw)
            .filter(|&r| poly(m, r).is_some_and(|p| p.link.is_none()))
            .ok_or_else(|| {
                rejected(
                    "invalid_ref",
                    format!("{raw:#018x} ({what}) is not a valid ground polygon"),
                )
            })
    };
    ground(first, "corridor[0]")?;
    ground(last, "corridor[last]")?;
    if start_pos.iter().chain(&end_pos).any(|c| !c.is_finite()) {
        return Err(rejected(
            "invalid_input",
            "invalid input: a position that is not finite".into(),
        ));
    }
    let broken = |i: usize, why: &str| {
        rejected(
            "invalid_input",
            format!(
                "invalid input: step {i} of the corridor (to corridor[{}]) {why}",
                i + 1
            ),
        )
    };
    // Every step resolves: a polygon that is not valid now cannot be reached (E2).
    let refs: Vec<PolyRef> = corridor
        .iter()
        .enumerate()
        .map(|(i, &raw)| {
            PolyRef::from_raw(raw)
                .filter(|&r| m.is_valid_poly_ref(r))
                .ok_or_else(|| broken(i.saturating_sub(1), "reaches a polygon that is not valid"))
        })
        .collect::<Result<_, _>>()?;
    let cost = |p: &Poly| filter.area_cost(p.area).unwrap_or(f64::NAN);
    let mut g = 0.0;
    let mut at = start_pos;
    // The end an off-mesh link polygon was boarded at, while the walk is on it.
    let mut boarded: Option<LinkEnd> = None;
    for i in 0..refs.len() - 1 {
        let (p, q) = (refs[i], refs[i + 1]);
        let here = poly(m, p).ok_or_else(|| broken(i, "starts on no polygon"))?;
        if !filter.passes(m, q) {
            return Err(broken(i, "enters a polygon the filter refuses"));
        }
        if i >= 1 && refs[i - 1] == q {
            return Err(broken(i, "turns straight back"));
        }
        let links = m.links(p).unwrap_or_default();
        let has = |target: PolyRef, want: &dyn Fn(&LinkKind) -> bool| {
            links.iter().any(|l| l.target == target && want(&l.kind))
        };
        let pos = if let Some(e) = boarded.take() {
            // Leaving link polygon P at its other end (§4.3: only FromOffMesh {other(e)}).
            let leave = other(e);
            if !has(
                q,
                &|k| matches!(k, LinkKind::FromOffMesh { end } if *end == leave),
            ) {
                return Err(broken(i, "leaves the off-mesh link where it does not land"));
            }
            point_at(here.link.expect("boarded on a link polygon"), leave)
        } else if let Some(there) = poly(m, q).filter(|t| t.link.is_some()) {
            // Boarding link polygon Q: the end §5.2 determines.
            let next = refs.get(i + 2).copied();
            let q_links = m.links(q).unwrap_or_default();
            let lands = |to: Option<PolyRef>, end: LinkEnd| {
                q_links.iter().any(|l| {
                    Some(l.target) == to
                        && matches!(l.kind, LinkKind::FromOffMesh { end: e } if e == end)
                })
            };
            let e = [LinkEnd::Start, LinkEnd::End]
                .into_iter()
                .find(|&e| {
                    has(
                        q,
                        &|k| matches!(k, LinkKind::ToOffMesh { end } if *end == e),
                    ) && lands(next, other(e))
                })
                .ok_or_else(|| {
                    broken(
                        i,
                        "boards an off-mesh link it cannot ride to the next polygon",
                    )
                })?;
            boarded = Some(e);
            point_at(there.link.expect("a link polygon"), e)
        } else {
            // The first edge link of P, in canonical order, whose target is Q.
            let link = links
                .iter()
                .find(|l| {
                    l.target == q
                        && matches!(l.kind, LinkKind::Internal { .. } | LinkKind::Portal { .. })
                })
                .ok_or_else(|| broken(i, "crosses no link"))?;
            edge_midpoint(&here.corners, &link.kind).ok_or_else(|| broken(i, "has no edge"))?
        };
        g += dist3(&at, &pos) * cost(&here);
        at = pos;
    }
    let end = poly(m, *refs.last().expect("non-empty")).expect("checked ground");
    Ok(g + dist3(&at, &end_pos) * cost(&end))
}
