//! `find_path` (`spec/queries.md` §4): A* over polygons, from the start polygon to the end
//! polygon, with off-mesh links taken in their direction only.

use super::geom::{dist3, midpoint};
use super::pool::{Node, NodeKey, NodePool, OpenList, NO_PARENT};
use super::portal::{edge_portal, link_point, opposite};
use super::{finite, NavMeshQuery, QueryError, QueryFilter};
use crate::geom::Vec3;
use crate::ids::PolyRef;
use crate::stitch::{LinkEnd, LinkKind};
use crate::tile::LinkDirection;

/// The heuristic factor H: h = dist3(node, end) × H (`spec/queries.md` §4.2).
pub const HEURISTIC_SCALE: f64 = 0.999;

/// How a path search ended (`spec/queries.md` §4.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PathStatus {
    /// The corridor ends in the end polygon.
    Complete,
    /// The end polygon was not reached: every reachable polygon was searched, and the corridor
    /// leads to the node nearest the end.
    Partial,
    /// The end polygon was not reached and the node pool filled up (some polygon could not be
    /// added); the corridor leads to the node nearest the end, as for `Partial`.
    OutOfNodes,
}

/// The answer of [`NavMeshQuery::find_path`].
#[derive(Debug, Clone, PartialEq)]
pub struct PathResult {
    /// The polygons from the start polygon to the last one, off-mesh link polygons included.
    pub corridor: Vec<PolyRef>,
    /// Complete, partial or out of nodes.
    pub status: PathStatus,
    /// The cost g of the corridor's last node: for a complete path the cost up to `end_pos`.
    pub cost: f64,
}

/// State of a ground node.
const GROUND: u8 = 0;

/// The state of a link node boarded at `end`.
fn boarded(end: LinkEnd) -> u8 {
    1 + end as u8
}

impl NavMeshQuery<'_> {
    /// The polygon corridor from `start_ref` to `end_ref` (`spec/queries.md` §4). Both must be
    /// ground polygons and the positions finite. The start polygon is not tested against the
    /// filter; every other polygon entered must pass it.
    pub fn find_path(
        &self,
        start_ref: PolyRef,
        end_ref: PolyRef,
        start_pos: Vec3,
        end_pos: Vec3,
        filter: &QueryFilter,
    ) -> Result<PathResult, QueryError> {
        self.ground(start_ref, "start_ref")?;
        self.ground(end_ref, "end_ref")?;
        finite(&start_pos, "start_pos")?;
        finite(&end_pos, "end_pos")?;
        let mesh = self.mesh;
        if start_ref == end_ref {
            return Ok(PathResult {
                corridor: vec![start_ref],
                status: PathStatus::Complete,
                cost: dist3(&start_pos, &end_pos) * filter.poly_cost(mesh, start_ref),
            });
        }

        let mut pool = NodePool::new(self.max_nodes);
        let mut open = OpenList::default();
        let start = pool
            .add(Node {
                key: (start_ref, GROUND),
                pos: start_pos,
                g: 0.0,
                f: dist3(&start_pos, &end_pos) * HEURISTIC_SCALE,
                parent: NO_PARENT,
                closed: false,
            })
            .expect("a pool holds at least one node");
        open.push(&pool, start);
        let mut out_of_nodes = false;
        let mut reached = None;

        while let Some(cur) = open.pop(&mut pool) {
            let n = *pool.get(cur);
            let (poly, state) = n.key;
            if poly == end_ref {
                reached = Some(cur);
                break;
            }
            let parent_key = (n.parent != NO_PARENT).then(|| pool.get(n.parent).key);
            let cost_here = filter.poly_cost(mesh, poly);
            let ground = if state == GROUND {
                self.ground(poly, "corridor").ok()
            } else {
                None
            };
            let Some(links) = mesh.links(poly) else {
                continue;
            };
            for link in links {
                let target = link.target;
                // The neighbour's key and, for a new node, how to place it.
                let key: NodeKey = match (state, link.kind) {
                    (GROUND, LinkKind::Internal { .. } | LinkKind::Portal { .. }) => {
                        (target, GROUND)
                    }
                    (GROUND, LinkKind::ToOffMesh { end }) => (target, boarded(end)),
                    (s, LinkKind::FromOffMesh { end }) if s != GROUND => {
                        let board = if s == boarded(LinkEnd::Start) {
                            LinkEnd::Start
                        } else {
                            LinkEnd::End
                        };
                        if end != opposite(board) {
                            continue;
                        }
                        (target, GROUND)
                    }
                    _ => continue,
                };
                if Some(key) == parent_key || !filter.passes(mesh, target) {
                    continue;
                }
                let existing = pool.find(&key);
                let q = match existing {
                    Some(i) => pool.get(i).pos,
                    None => {
                        let p = match link.kind {
                            LinkKind::Internal { .. } | LinkKind::Portal { .. } => {
                                let Some(g) = ground.as_ref() else { continue };
                                let Some((l, r)) = edge_portal(g, &link.kind) else {
                                    continue;
                                };
                                midpoint(&l, &r)
                            }
                            LinkKind::ToOffMesh { end } => match link_point(mesh, target, end) {
                                Some((p, dir)) => {
                                    if end == LinkEnd::End && dir != LinkDirection::Bidirectional {
                                        continue;
                                    }
                                    p
                                }
                                None => continue,
                            },
                            LinkKind::FromOffMesh { end } => match link_point(mesh, poly, end) {
                                Some((p, _)) => p,
                                None => continue,
                            },
                        };
                        p
                    }
                };
                let step = dist3(&n.pos, &q) * cost_here;
                let (g, h) = if key == (end_ref, GROUND) {
                    let last = dist3(&q, &end_pos) * filter.poly_cost(mesh, target);
                    (n.g + step + last, 0.0)
                } else {
                    (n.g + step, dist3(&q, &end_pos) * HEURISTIC_SCALE)
                };
                let f = g + h;
                let node = match existing {
                    Some(i) => {
                        let m = pool.get_mut(i);
                        // Only a strictly lower f updates (a NaN f never does).
                        if f.partial_cmp(&m.f) != Some(std::cmp::Ordering::Less) {
                            continue;
                        }
                        m.g = g;
                        m.f = f;
                        m.parent = cur;
                        m.closed = false;
                        i
                    }
                    None => match pool.add(Node {
                        key,
                        pos: q,
                        g,
                        f,
                        parent: cur,
                        closed: false,
                    }) {
                        Some(i) => i,
                        None => {
                            out_of_nodes = true;
                            continue;
                        }
                    },
                };
                open.push(&pool, node);
            }
        }

        let (last, status) = match reached {
            Some(i) => (i, PathStatus::Complete),
            None => {
                // The ground node nearest the end: least (dist3(pos, end_pos), PolyRef).
                let mut best = (f64::INFINITY, start_ref, start);
                for (i, m) in pool.nodes().iter().enumerate() {
                    if m.key.1 != GROUND {
                        continue;
                    }
                    let d = dist3(&m.pos, &end_pos);
                    if d < best.0 || (d == best.0 && m.key.0 < best.1) {
                        best = (d, m.key.0, i as u32);
                    }
                }
                let status = if out_of_nodes {
                    PathStatus::OutOfNodes
                } else {
                    PathStatus::Partial
                };
                (best.2, status)
            }
        };
        let mut corridor = Vec::new();
        let mut i = last;
        while i != NO_PARENT && corridor.len() < pool.nodes().len() {
            let m = pool.get(i);
            corridor.push(m.key.0);
            i = m.parent;
        }
        corridor.reverse();
        Ok(PathResult {
            corridor,
            status,
            cost: pool.get(last).g,
        })
    }
}
