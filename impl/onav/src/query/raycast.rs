//! `raycast` (`spec/queries.md` §6): walks the segment from polygon to polygon on x–z until it
//! reaches its end, hits a wall, or leaves the polygons.

use super::geom::{dist3, sub};
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

/// The segment `s + t·(e − s)`, t in [0, 1], clipped to a convex counter-clockwise polygon on x–z
/// (`spec/queries.md` §6.1): `(t_min, t_max, exit edge)`, or `None` when it misses.
fn clip(s: &Vec3, e: &Vec3, corners: &[Vec3]) -> Option<(f64, f64, Option<usize>)> {
    let d = sub(e, s);
    let n = corners.len();
    let (mut tmin, mut tmax, mut exit) = (0.0f64, 1.0f64, None);
    for k in 0..n {
        let (a, b) = (&corners[k], &corners[(k + 1) % n]);
        let num = orient(a, b, s);
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
        self.ground(start_ref, "start_ref")?;
        finite(&start_pos, "start_pos")?;
        finite(&end_pos, "end_pos")?;
        let mesh = self.mesh;
        let dir = sub(&end_pos, &start_pos);
        let mut cur = start_ref;
        let mut t = 0.0f64;
        let mut visited = Vec::new();
        let mut cost = 0.0;
        let mut last = start_pos;
        let done = |t: f64, stop, visited, cost| RaycastHit {
            t,
            stop,
            visited,
            cost: options.costs.then_some(cost),
        };
        loop {
            if visited.len() >= self.max_nodes as usize {
                return Ok(done(t, RaycastStop::VisitLimit, visited, cost));
            }
            let g = self.ground(cur, "visited")?;
            let (corners, n) = g.corners();
            let Some((_, tmax, exit)) = clip(&start_pos, &end_pos, &corners[..n]) else {
                return Ok(done(t, RaycastStop::Missed, visited, cost));
            };
            if tmax > t {
                t = tmax;
            }
            visited.push(cur);
            let cost_here = filter.poly_cost(mesh, cur);
            let Some(k) = exit else {
                if options.costs {
                    cost += dist3(&last, &end_pos) * cost_here;
                }
                return Ok(done(1.0, RaycastStop::Reached, visited, cost));
            };
            let next = mesh.links(cur).and_then(|links| {
                links.iter().find_map(|l| {
                    let ok = match l.kind {
                        LinkKind::Internal { edge } => usize::from(edge) == k,
                        LinkKind::Portal { edge, side, lo, hi } => {
                            let u = if side.along_z() { 2 } else { 0 };
                            let c = start_pos[u] + dir[u] * tmax;
                            usize::from(edge) == k && lo <= c && c <= hi
                        }
                        LinkKind::ToOffMesh { .. } | LinkKind::FromOffMesh { .. } => false,
                    };
                    (ok && filter.passes(mesh, l.target)).then_some(l.target)
                })
            });
            let (a, b) = (g.vertex(k), g.vertex(k + 1));
            if options.costs {
                let mut p = [start_pos[0] + dir[0] * t, 0.0, start_pos[2] + dir[2] * t];
                let (ex, ez) = (b[0] - a[0], b[2] - a[2]);
                let s = if ex.abs() > ez.abs() {
                    (p[0] - a[0]) / ex
                } else {
                    (p[2] - a[2]) / ez
                };
                p[1] = a[1] + (b[1] - a[1]) * s;
                cost += dist3(&last, &p) * cost_here;
                last = p;
            }
            match next {
                Some(r) => cur = r,
                None => {
                    let (dx, dz) = (b[0] - a[0], b[2] - a[2]);
                    let len = (dx * dx + dz * dz).sqrt();
                    // + 0.0 turns a −0.0 into +0.0.
                    let normal = [(0.0 - dz) / len + 0.0, 0.0, dx / len + 0.0];
                    return Ok(done(
                        t,
                        RaycastStop::Wall {
                            edge: k as u8,
                            normal,
                        },
                        visited,
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

    const SQUARE: [[f64; 3]; 4] = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [1.0, 0.0, 1.0],
        [0.0, 0.0, 1.0],
    ];

    #[test]
    fn clip_enters_and_leaves() {
        // From outside on −x to outside on +x, along z = 0.5.
        let (tmin, tmax, exit) = clip(&[-1.0, 0.0, 0.5], &[3.0, 0.0, 0.5], &SQUARE).unwrap();
        assert_eq!((tmin, tmax, exit), (0.25, 0.5, Some(1)));
        // Ending inside: no exit edge.
        assert_eq!(
            clip(&[0.5, 0.0, 0.5], &[0.75, 0.0, 0.5], &SQUARE),
            Some((0.0, 1.0, None))
        );
        // Ending exactly on an edge counts as inside (strict comparison).
        assert_eq!(
            clip(&[0.5, 0.0, 0.5], &[1.0, 0.0, 0.5], &SQUARE),
            Some((0.0, 1.0, None))
        );
        // Parallel and outside; crossing beside it.
        assert_eq!(clip(&[0.0, 0.0, 2.0], &[1.0, 0.0, 2.0], &SQUARE), None);
        assert_eq!(clip(&[2.0, 0.0, -1.0], &[3.0, 0.0, 2.0], &SQUARE), None);
        // Through the corner (1, 1): edges 1 and 2 give the same t; the first in order wins.
        let (_, tmax, exit) = clip(&[0.5, 0.0, 0.5], &[1.5, 0.0, 1.5], &SQUARE).unwrap();
        assert_eq!((tmax, exit), (0.5, Some(1)));
    }
}
