//! `raycast` (`spec/queries.md` §6): walks the segment from polygon to polygon on x–z until it
//! reaches its end, hits a wall, or leaves the polygons.

use super::geom::{dist3, sub};
use super::view::resolve_from;
use super::{finite, NavMeshQuery, QueryError, QueryFilter};
use crate::geom::{orient, Vec3};
use crate::ids::PolyRef;
use crate::stitch::LinkKind;

/// What `raycast` computes besides the walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct RaycastOptions {
    /// Sum the cost of the walk (distance × area cost per polygon), as `find_path` would.
    pub costs: bool,
}

/// Why the walk stopped (`spec/queries.md` §6.4).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RaycastStop {
    /// The end was reached: t = 1.0.
    Reached,
    /// The segment leaves the last visited polygon through edge `edge`, and no link through
    /// that edge at the crossing point leads to a polygon passing the filter.
    Wall {
        /// The edge index in the last visited polygon.
        edge: u8,
        /// The edge's unit normal on x–z (y = 0), pointing into the polygon.
        normal: Vec3,
    },
    /// The segment does not cross the polygon reached (only the start polygon when the start
    /// lies outside it and the segment misses it, barring rounding).
    Missed,
    /// As many polygons as the node-pool size were visited before the walk ended.
    VisitLimit,
}

/// The answer of [`NavMeshQuery::raycast`].
#[derive(Debug, Clone, PartialEq)]
pub struct RaycastHit {
    /// How far along the segment the walk went, in [0, 1]; exactly 1.0 iff `stop` is `Reached`.
    pub t: f64,
    /// Why it stopped.
    pub stop: RaycastStop,
    /// The polygons visited, in order, from the start polygon.
    pub visited: Vec<PolyRef>,
    /// The walk's cost, when asked for.
    pub cost: Option<f64>,
}

impl RaycastHit {
    /// The wall's normal, or zero (Detour's `hitNormal`).
    pub fn hit_normal(&self) -> Vec3 {
        match self.stop {
            RaycastStop::Wall { normal, .. } => normal,
            _ => [0.0; 3],
        }
    }

    /// The wall's edge index in the last visited polygon (Detour's `hitEdgeIndex`).
    pub fn hit_edge(&self) -> Option<u8> {
        match self.stop {
            RaycastStop::Wall { edge, .. } => Some(edge),
            _ => None,
        }
    }
}

/// The summary of [`NavMeshQuery::raycast_into`]: the answer without the visited polygons, which
/// go into the caller's buffer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RaycastSummary {
    /// How far along the segment the walk went, in [0, 1]; exactly 1.0 iff `stop` is `Reached`.
    pub t: f64,
    /// Why it stopped.
    pub stop: RaycastStop,
    /// The walk's cost, when asked for.
    pub cost: Option<f64>,
}

/// The segment `s + t·d`, t in [0, 1], clipped on x–z to the convex counter-clockwise polygon
/// of the `n` vertices `vertex(0 .. n)`, edge k running from vertex k to vertex k + 1 (wrapping)
/// (`spec/queries.md` §6.1): `(t_min, t_max, exit edge)`, or `None` when it misses.
///
/// Written without data-dependent branches (the profile's cost was mispredicted branches on
/// the quotients' comparisons, not the divisions), yet equal to §6.1 step by step:
/// - every edge's quotient is formed and compared; where §6.1 skips the edge (`den = 0`) or
///   the comparison fails, nothing is updated, and an edge with `den = 0` gives ±∞ or NaN, which
///   neither the entering nor the leaving update takes because they require `den < 0` or
///   `den > 0`;
/// - §6.1's early "misses" are decided once at the end: `tmin` only grows and `tmax` only
///   shrinks, neither ever holds a NaN, so `tmin > tmax` after some update holds iff it holds
///   after the last one; a parallel edge with `num < 0` is remembered in a flag. A miss discards
///   `exit`, so the updates after the point where §6.1 returns change nothing visible.
#[inline]
fn clip(
    s: &Vec3,
    d: &Vec3,
    n: usize,
    vertex: impl Fn(usize) -> Vec3,
) -> Option<(f64, f64, Option<usize>)> {
    let (mut tmin, mut tmax, mut exit) = (0.0f64, 1.0f64, usize::MAX);
    let mut outside = false;
    let first = vertex(0);
    let mut b = first;
    for k in 0..n {
        // Each vertex is read once: edge k starts where edge k − 1 ended.
        let a = b;
        b = if k + 1 == n { first } else { vertex(k + 1) };
        let num = orient(&a, &b, s);
        let den = (b[2] - a[2]) * d[0] - (b[0] - a[0]) * d[2];
        outside |= den == 0.0 && num < 0.0;
        let t = num / den;
        // Entering (den < 0): the strict maximum; leaving (den > 0): the strict minimum, the
        // first edge in order winning ties.
        let enter = den < 0.0 && t > tmin;
        let leave = den > 0.0 && t < tmax;
        tmin = if enter { t } else { tmin };
        tmax = if leave { t } else { tmax };
        exit = if leave { k } else { exit };
    }
    if outside || tmin > tmax {
        return None;
    }
    Some((tmin, tmax, (exit != usize::MAX).then_some(exit)))
}

impl NavMeshQuery<'_> {
    /// Casts the segment from `start_pos` to `end_pos` along the mesh surface on x–z, starting in
    /// ground polygon `start_ref` (`spec/queries.md` §6). Polygons after the start must pass the
    /// filter; off-mesh links are never taken.
    pub fn raycast(
        &self,
        start_ref: PolyRef,
        start_pos: Vec3,
        end_pos: Vec3,
        filter: &QueryFilter,
        options: RaycastOptions,
    ) -> Result<RaycastHit, QueryError> {
        let mut visited = Vec::new();
        let s = self.raycast_into(start_ref, start_pos, end_pos, filter, options, &mut visited)?;
        Ok(RaycastHit {
            t: s.t,
            stop: s.stop,
            visited,
            cost: s.cost,
        })
    }

    /// [`NavMeshQuery::raycast`] writing the visited polygons into `visited` (cleared first; left
    /// empty on an error): a call allocates nothing once `visited` has the capacity it needs.
    pub fn raycast_into(
        &self,
        start_ref: PolyRef,
        start_pos: Vec3,
        end_pos: Vec3,
        filter: &QueryFilter,
        options: RaycastOptions,
        visited: &mut Vec<PolyRef>,
    ) -> Result<RaycastSummary, QueryError> {
        visited.clear();
        let result = self.walk(start_ref, start_pos, end_pos, filter, options, visited);
        if result.is_err() {
            visited.clear();
        }
        result.map(|(t, stop, cost)| RaycastSummary {
            t,
            stop,
            cost: options.costs.then_some(cost),
        })
    }

    /// The walk of §6.2: t, the stop and, with `options.costs`, the cost (else 0).
    fn walk(
        &self,
        start_ref: PolyRef,
        start_pos: Vec3,
        end_pos: Vec3,
        filter: &QueryFilter,
        options: RaycastOptions,
        visited: &mut Vec<PolyRef>,
    ) -> Result<(f64, RaycastStop, f64), QueryError> {
        let mut cur = self.ground(start_ref, "start_ref")?.view();
        finite(&start_pos, "start_pos")?;
        finite(&end_pos, "end_pos")?;
        let mesh = self.mesh;
        let dir = sub(&end_pos, &start_pos);
        let mut t = 0.0f64;
        let mut cost = 0.0;
        let mut last = start_pos;
        loop {
            if visited.len() >= self.max_nodes as usize {
                return Ok((t, RaycastStop::VisitLimit, cost));
            }
            // Edge links lead to ground polygons (stitching makes no others).
            let g = cur.ground().ok_or(QueryError::InvalidRef {
                poly: cur.r,
                what: "visited",
            })?;
            let Some((_, tmax, exit)) = clip(&start_pos, &dir, g.len(), |k| g.vertex(k)) else {
                return Ok((t, RaycastStop::Missed, cost));
            };
            if tmax > t {
                t = tmax;
            }
            visited.push(g.r);
            let Some(k) = exit else {
                if options.costs {
                    cost += dist3(&last, &end_pos) * filter.cost_of(&g.view());
                }
                return Ok((1.0, RaycastStop::Reached, cost));
            };
            // The first edge link through edge k at the crossing whose target passes. Links are
            // in canonical order (edge links by edge, then off-mesh links), so the scan stops
            // past edge k.
            let mut next = None;
            for l in g.links {
                let through = match l.kind {
                    LinkKind::Internal { edge } if usize::from(edge) == k => true,
                    LinkKind::Portal { edge, side, lo, hi } if usize::from(edge) == k => {
                        let u = if side.along_z() { 2 } else { 0 };
                        let c = start_pos[u] + dir[u] * tmax;
                        lo <= c && c <= hi
                    }
                    LinkKind::Internal { edge } | LinkKind::Portal { edge, .. } => {
                        if usize::from(edge) > k {
                            break;
                        }
                        false
                    }
                    LinkKind::ToOffMesh { .. } | LinkKind::FromOffMesh { .. } => break,
                };
                if !through {
                    continue;
                }
                if let Some(v) =
                    resolve_from(mesh, &cur, l.target).filter(|v| filter.passes_view(v))
                {
                    next = Some(v);
                    break;
                }
            }
            // The exit edge's ends, read only where they are used (the cost and the normal).
            if options.costs {
                let (a, b) = g.edge(k);
                let mut p = [start_pos[0] + dir[0] * t, 0.0, start_pos[2] + dir[2] * t];
                let (ex, ez) = (b[0] - a[0], b[2] - a[2]);
                let s = if ex.abs() > ez.abs() {
                    (p[0] - a[0]) / ex
                } else {
                    (p[2] - a[2]) / ez
                };
                p[1] = a[1] + (b[1] - a[1]) * s;
                cost += dist3(&last, &p) * filter.cost_of(&g.view());
                last = p;
            }
            match next {
                Some(v) => cur = v,
                None => {
                    let (a, b) = g.edge(k);
                    let (dx, dz) = (b[0] - a[0], b[2] - a[2]);
                    let len = (dx * dx + dz * dz).sqrt();
                    // + 0.0 turns a −0.0 into +0.0.
                    let normal = [(0.0 - dz) / len + 0.0, 0.0, dx / len + 0.0];
                    return Ok((
                        t,
                        RaycastStop::Wall {
                            edge: k as u8,
                            normal,
                        },
                        cost,
                    ));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::clip;

    /// Clips to a polygon given by its corners.
    fn clip_to(s: &[f64; 3], e: &[f64; 3], c: &[[f64; 3]]) -> Option<(f64, f64, Option<usize>)> {
        let d = [e[0] - s[0], e[1] - s[1], e[2] - s[2]];
        clip(s, &d, c.len(), |k| c[k])
    }

    const SQUARE: [[f64; 3]; 4] = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [1.0, 0.0, 1.0],
        [0.0, 0.0, 1.0],
    ];

    #[test]
    fn clip_enters_and_leaves() {
        // From outside on −x to outside on +x, along z = 0.5.
        let (tmin, tmax, exit) = clip_to(&[-1.0, 0.0, 0.5], &[3.0, 0.0, 0.5], &SQUARE).unwrap();
        assert_eq!((tmin, tmax, exit), (0.25, 0.5, Some(1)));
        // Ending inside: no exit edge.
        assert_eq!(
            clip_to(&[0.5, 0.0, 0.5], &[0.75, 0.0, 0.5], &SQUARE),
            Some((0.0, 1.0, None))
        );
        // Ending exactly on an edge counts as inside (strict comparison).
        assert_eq!(
            clip_to(&[0.5, 0.0, 0.5], &[1.0, 0.0, 0.5], &SQUARE),
            Some((0.0, 1.0, None))
        );
        // Parallel and outside; crossing beside it.
        assert_eq!(clip_to(&[0.0, 0.0, 2.0], &[1.0, 0.0, 2.0], &SQUARE), None);
        assert_eq!(clip_to(&[2.0, 0.0, -1.0], &[3.0, 0.0, 2.0], &SQUARE), None);
        // Through the corner (1, 1): edges 1 and 2 give the same t; the first in order wins.
        let (_, tmax, exit) = clip_to(&[0.5, 0.0, 0.5], &[1.5, 0.0, 1.5], &SQUARE).unwrap();
        assert_eq!((tmax, exit), (0.5, Some(1)));
    }

    /// §6.1 written out, dividing at every edge.
    fn clip_plain(s: &[f64; 3], e: &[f64; 3], c: &[[f64; 3]]) -> Option<(f64, f64, Option<usize>)> {
        let d = [e[0] - s[0], e[1] - s[1], e[2] - s[2]];
        let (mut tmin, mut tmax, mut exit) = (0.0f64, 1.0f64, None);
        for k in 0..c.len() {
            let (a, b) = (&c[k], &c[(k + 1) % c.len()]);
            let num = crate::geom::orient(a, b, s);
            let den = (b[2] - a[2]) * d[0] - (b[0] - a[0]) * d[2];
            if den == 0.0 {
                if num < 0.0 {
                    return None;
                }
                continue;
            }
            let t = num / den;
            if den < 0.0 {
                if t > tmin {
                    tmin = t;
                    if tmin > tmax {
                        return None;
                    }
                }
            } else if t < tmax {
                tmax = t;
                exit = Some(k);
                if tmax < tmin {
                    return None;
                }
            }
        }
        Some((tmin, tmax, exit))
    }

    #[test]
    fn clip_equals_the_plain_rule() {
        let mut x = 3u64;
        let mut unit = || {
            x = crate::generator::mix(x);
            (x >> 11) as f64 / (1u64 << 53) as f64
        };
        // Points on a coarse grid, so that starts and ends land on edges and vertices too.
        let coarse = |unit: &mut dyn FnMut() -> f64| (unit() * 8.0).floor() * 0.25 - 0.5;
        for _ in 0..200_000 {
            let s = [coarse(&mut unit), 0.0, coarse(&mut unit)];
            let e = if unit() < 0.1 {
                s
            } else {
                [coarse(&mut unit), 0.0, coarse(&mut unit)]
            };
            assert_eq!(
                clip_to(&s, &e, &SQUARE),
                clip_plain(&s, &e, &SQUARE),
                "{s:?} {e:?}"
            );
            let tri = [[0.0, 0.0, 0.0], [1.5, 0.0, 0.25], [0.5, 0.0, 1.25]];
            assert_eq!(
                clip_to(&s, &e, &tri),
                clip_plain(&s, &e, &tri),
                "{s:?} {e:?}"
            );
        }
    }
}
