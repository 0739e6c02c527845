//! `find_path` (`spec/queries.md` §4): A* over crossings (a node per polygon and the polygon it is
//! entered from), from the start polygon to the end polygon, with off-mesh links taken in their
//! direction only.

use super::geom::{dist3, midpoint};
use super::pool::{Node, NodeKey, NO_PARENT, SKIP, UNKNOWN};
use super::portal::{edge_portal, link_point, opposite};
use super::view::{resolve, target_from};
use super::{finite, NavMeshQuery, QueryError, QueryFilter, Scratch};
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

/// The summary of [`NavMeshQuery::find_path_into`]: the answer without the corridor, which goes
/// into the caller's buffer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PathSummary {
    /// Complete, partial or out of nodes.
    pub status: PathStatus,
    /// The cost g of the corridor's last node.
    pub cost: f64,
}

/// State of a ground node.
const GROUND: u8 = 0;

/// The state of a link node boarded at `end`.
fn boarded(end: LinkEnd) -> u8 {
    1 + end as u8
}

/// Relaxes the existing crossing `m` from node `n` (number `cur`), leaving a polygon of cost
/// `cost_here` (`spec/queries.md` §4.3): when `f < m.f` (false when either is NaN), sets m's g, f
/// and parent and opens it, and returns true. Its target passed the filter when it was created
/// (the mesh and the filter do not change during a search), and its position and the terms
/// depending on it alone (h, or the end's last leg) are kept.
#[inline]
fn relax(m: &mut Node, n: &Node, cur: u32, cost_here: f64) -> bool {
    // f = (n.g + step) + tail (+ 0) is at least n.g + tail, rounding being monotone and
    // step ≥ 0: when that bound already fails the strict test below, so does f, and the step's
    // square root is not needed.
    if (n.g + m.tail).partial_cmp(&m.f) != Some(std::cmp::Ordering::Less) {
        return false;
    }
    let step = dist3(&n.pos, &m.pos) * cost_here;
    let (g, f) = m.costs(n.g + step);
    if f.partial_cmp(&m.f) != Some(std::cmp::Ordering::Less) {
        return false;
    }
    m.g = g;
    m.f = f;
    m.parent = cur;
    m.closed = false;
    true
}

impl NavMeshQuery<'_> {
    /// The polygon corridor from `start_ref` to `end_ref` (`spec/queries.md` §4). Both must be
    /// ground polygons and the positions finite. The start polygon is not tested against the
    /// filter; every other polygon entered must pass it.
    ///
    /// A node is a crossing (a polygon and the polygon it was entered from, P1), so a search
    /// holds more nodes than it visits polygons. A `Complete` search that did not run out of
    /// nodes, with every area cost ≥ `HEURISTIC_SCALE` (0.999), returns a least-cost corridor in the
    /// cost model of §4.2 (P6).
    pub fn find_path(
        &self,
        start_ref: PolyRef,
        end_ref: PolyRef,
        start_pos: Vec3,
        end_pos: Vec3,
        filter: &QueryFilter,
    ) -> Result<PathResult, QueryError> {
        let mut corridor = Vec::new();
        let s = self.search(
            start_ref,
            end_ref,
            start_pos,
            end_pos,
            filter,
            &mut Scratch::default(),
            &mut corridor,
        )?;
        Ok(PathResult {
            corridor,
            status: s.status,
            cost: s.cost,
        })
    }

    /// [`NavMeshQuery::find_path`] writing the corridor into `corridor` (cleared first; left empty
    /// on an error), with the node pool in the query's scratch: a call allocates nothing once the
    /// corridor and the scratch have the capacity it needs.
    pub fn find_path_into(
        &mut self,
        start_ref: PolyRef,
        end_ref: PolyRef,
        start_pos: Vec3,
        end_pos: Vec3,
        filter: &QueryFilter,
        corridor: &mut Vec<PolyRef>,
    ) -> Result<PathSummary, QueryError> {
        let mut scratch = std::mem::take(&mut self.scratch);
        let r = self.search(
            start_ref,
            end_ref,
            start_pos,
            end_pos,
            filter,
            &mut scratch,
            corridor,
        );
        self.scratch = scratch;
        r
    }

    #[allow(clippy::too_many_arguments)]
    fn search(
        &self,
        start_ref: PolyRef,
        end_ref: PolyRef,
        start_pos: Vec3,
        end_pos: Vec3,
        filter: &QueryFilter,
        scratch: &mut Scratch,
        corridor: &mut Vec<PolyRef>,
    ) -> Result<PathSummary, QueryError> {
        corridor.clear();
        let start_view = self.ground(start_ref, "start_ref")?.view();
        self.ground(end_ref, "end_ref")?;
        finite(&start_pos, "start_pos")?;
        finite(&end_pos, "end_pos")?;
        let mesh = self.mesh;
        if start_ref == end_ref {
            corridor.push(start_ref);
            return Ok(PathSummary {
                status: PathStatus::Complete,
                cost: dist3(&start_pos, &end_pos) * filter.cost_of(&start_view),
            });
        }

        let Scratch { pool, open, .. } = scratch;
        pool.reset(self.max_nodes);
        open.clear();
        let start = pool
            .add(Node {
                key: (None, start_ref, GROUND),
                pos: start_pos,
                g: 0.0,
                f: dist3(&start_pos, &end_pos) * HEURISTIC_SCALE,
                tail: 0.0,
                is_end: false,
                parent: NO_PARENT,
                closed: false,
            })
            .expect("a pool holds at least one node");
        open.push(pool, start);
        let mut out_of_nodes = false;
        let mut reached = None;

        while let Some(cur) = open.pop(pool) {
            let n = *pool.get(cur);
            let (source, poly, state) = n.key;
            if poly == end_ref && state == GROUND {
                reached = Some(cur);
                break;
            }
            // The search never turns straight back to the polygon it came from (§4.3).
            let back = source.map(|(p, _)| p);
            // Every node's polygon was valid when it was created, and the mesh does not change
            // during the search.
            let Some(here) = resolve(mesh, poly) else {
                continue;
            };
            let cost_here = filter.cost_of(&here);
            let ground = if state == GROUND { here.ground() } else { None };
            let hub = pool.hub(poly, state, here.links.len());
            for (j, link) in here.links.iter().enumerate() {
                let slot = pool.slot(hub + j);
                if slot == SKIP {
                    continue;
                }
                let target = link.target;
                if Some(target) == back {
                    continue;
                }
                if slot != UNKNOWN {
                    // A crossing this polygon's hub already holds.
                    if relax(pool.get_mut(slot), &n, cur, cost_here) {
                        open.push(pool, slot);
                    }
                    continue;
                }
                // The neighbour's key and, for a new node, how to place it.
                let (q_poly, q_state) = match (state, link.kind) {
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
                            pool.set_slot(hub + j, SKIP);
                            continue;
                        }
                        (target, GROUND)
                    }
                    _ => {
                        pool.set_slot(hub + j, SKIP);
                        continue;
                    }
                };
                let key: NodeKey = (Some((poly, state)), q_poly, q_state);
                // An earlier link of this polygon to the same crossing (two edge links to one
                // polygon) created it: the key exists. Any such link was resolved by now (it
                // has the same target, so it was not skipped as the way back either).
                let earlier = (0..j)
                    .map(|k| pool.slot(hub + k))
                    .find(|&i| i < SKIP && pool.get(i).key == key);
                if let Some(i) = earlier {
                    pool.set_slot(hub + j, i);
                    if relax(pool.get_mut(i), &n, cur, cost_here) {
                        open.push(pool, i);
                    }
                    continue;
                }
                // A new crossing. Whatever stops it here stops it for the rest of the search
                // (the mesh, the filter and the pool's fullness do not change back).
                let Some(m) = (|| {
                    let there =
                        target_from(mesh, &here, target).filter(|v| filter.passes_target(v))?;
                    let q = match link.kind {
                        LinkKind::Internal { .. } | LinkKind::Portal { .. } => {
                            let (l, r) = edge_portal(ground.as_ref()?, &link.kind)?;
                            midpoint(&l, &r)
                        }
                        LinkKind::ToOffMesh { end } => {
                            let l = there.off_mesh_link()?;
                            if end == LinkEnd::End && l.direction != LinkDirection::Bidirectional {
                                return None;
                            }
                            link_point(l, end)
                        }
                        LinkKind::FromOffMesh { end } => link_point(here.off_mesh_link()?, end),
                    };
                    let step = dist3(&n.pos, &q) * cost_here;
                    let is_end = q_poly == end_ref && q_state == GROUND;
                    let tail = if is_end {
                        dist3(&q, &end_pos) * filter.cost_of_target(&there)
                    } else {
                        dist3(&q, &end_pos) * HEURISTIC_SCALE
                    };
                    let mut m = Node {
                        key,
                        pos: q,
                        g: 0.0,
                        f: 0.0,
                        tail,
                        is_end,
                        parent: cur,
                        closed: false,
                    };
                    (m.g, m.f) = m.costs(n.g + step);
                    Some(m)
                })() else {
                    pool.set_slot(hub + j, SKIP);
                    continue;
                };
                match pool.add(m) {
                    Some(i) => {
                        pool.set_slot(hub + j, i);
                        open.push(pool, i);
                    }
                    None => {
                        out_of_nodes = true;
                        pool.set_slot(hub + j, SKIP);
                    }
                }
            }
        }

        let (last, status) = match reached {
            Some(i) => (i, PathStatus::Complete),
            None => {
                // The ground node nearest the end: least (dist3(pos, end_pos), PolyRef, number);
                // nodes are visited in number order and replace the best only when strictly less.
                let mut best = (f64::INFINITY, start_ref, start);
                for (i, m) in pool.nodes().iter().enumerate() {
                    if m.key.2 != GROUND {
                        continue;
                    }
                    let d = dist3(&m.pos, &end_pos);
                    if d < best.0 || (d == best.0 && m.key.1 < best.1) {
                        best = (d, m.key.1, i as u32);
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
        let mut i = last;
        while i != NO_PARENT && corridor.len() < pool.nodes().len() {
            let m = pool.get(i);
            corridor.push(m.key.1);
            i = m.parent;
        }
        corridor.reverse();
        Ok(PathSummary {
            status,
            cost: pool.get(last).g,
        })
    }
}
