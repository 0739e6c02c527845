//! `find_path` (`spec/queries.md` §4): A* over crossings (a node per polygon and the polygon it is
//! entered from), from the start polygon to the end polygon, with off-mesh links taken in their
//! direction only.

use super::geom::dist3;
use super::pool::{Node, OpenList, NO_PARENT, SKIP, UNKNOWN};
use super::portal::{edge_midpoint, link_point, opposite};
use super::view::{resolve, target_from, Ground, PolyView, Target};
use super::{finite, NavMeshQuery, QueryError, QueryFilter, Scratch};
use crate::geom::Vec3;
use crate::ids::PolyRef;
use crate::mesh::TiledNavMesh;
use crate::stitch::{Link, LinkEnd, LinkKind};
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

/// Relaxes the existing crossing `m` from node number `cur` (cost `g`, position `pos`), leaving a
/// polygon of cost `cost_here` (`spec/queries.md` §4.3): when `f < m.f` (false when either is
/// NaN), sets m's g, f and parent and opens it, and returns true. Its target passed the filter
/// when it was created (the mesh and the filter do not change during a search), and its position
/// and the terms depending on it alone (h, or the end's last leg) are kept.
#[inline]
fn relax(m: &mut Node, g: f64, pos: &Vec3, cur: u32, cost_here: f64) -> bool {
    // f = (g + step) + tail (+ 0) is at least g + tail, rounding being monotone and step ≥ 0:
    // when that bound already fails the strict test below, so does f, and the step's square
    // root is not needed.
    if (g + m.tail).partial_cmp(&m.f) != Some(std::cmp::Ordering::Less) {
        return false;
    }
    let step = dist3(pos, &m.pos) * cost_here;
    let (g, f) = m.costs(g + step);
    if f.partial_cmp(&m.f) != Some(std::cmp::Ordering::Less) {
        return false;
    }
    m.g = g;
    m.f = f;
    m.parent = cur;
    m.closed = false;
    true
}

/// [`relax`] of crossing `m` (node number `slot`) from node `n` (number `cur`), opening it on the
/// open list when its f decreased: the one step every expansion takes for a crossing its hub
/// already holds.
#[inline(always)]
fn reopen(m: &mut Node, slot: u32, n: &Node, cur: u32, cost_here: f64, open: &mut OpenList) {
    if relax(m, n.g, &n.pos, cur, cost_here) {
        open.push(slot, m.f);
    }
}

/// Where the new crossing over `link` of `here` lies (§4.2) and its target, or `None` when the
/// link gives no crossing: a target failing the filter, a ground link kind on a link polygon
/// (`ground` is `None` there), a one-way link's far end.
#[inline]
fn place<'m>(
    mesh: &'m TiledNavMesh,
    here: &PolyView<'m>,
    ground: Option<&Ground<'m>>,
    link: &Link,
    filter: &QueryFilter,
) -> Option<(Vec3, Target<'m>)> {
    let there = target_from(mesh, here, link.target).filter(|v| filter.passes_target(v))?;
    let q = match link.kind {
        LinkKind::Internal { .. } | LinkKind::Portal { .. } => edge_midpoint(ground?, &link.kind)?,
        LinkKind::ToOffMesh { end } => {
            let l = there.off_mesh_link()?;
            if end == LinkEnd::End && l.direction != LinkDirection::Bidirectional {
                return None;
            }
            link_point(l, end)
        }
        LinkKind::FromOffMesh { end } => link_point(here.off_mesh_link()?, end),
    };
    Some((q, there))
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
        let d0 = dist3(&start_pos, &end_pos);
        let start = pool
            .add(Node {
                pos: start_pos,
                g: 0.0,
                f: d0 * HEURISTIC_SCALE,
                tail: 0.0,
                dist: d0,
                poly: start_ref,
                parent: NO_PARENT,
                state: GROUND,
                is_end: false,
                closed: false,
            })
            .expect("a pool holds at least one node");
        open.push(start, pool.get(start).f);
        let mut out_of_nodes = false;
        let mut reached = None;

        while let Some(cur) = open.pop(pool) {
            let n = *pool.get(cur);
            let (poly, state) = (n.poly, n.state);
            if poly == end_ref && state == GROUND {
                reached = Some(cur);
                break;
            }
            // The search never turns straight back to the polygon it came from (§4.3): the
            // polygon of n's source, which is its parent's (see `Node`).
            let back = (n.parent != NO_PARENT).then(|| pool.get(n.parent).poly);
            let back_raw = back.map_or(0, PolyRef::raw);
            let known = pool.find_hub(poly, state);
            if let Some(h) = known {
                let hub = *pool.hub(h);
                if hub.unknown_back == 0 || hub.unknown_back == back_raw {
                    // Every link this expansion follows leads to a crossing the hub holds: the
                    // unknown slots' links lead back (see `Hub`). The same steps as the loop
                    // below, without looking the polygon up: a slot's node has its link's
                    // target as polygon.
                    let (slots, nodes) = pool.hub_slots(hub.base as usize, hub.len as usize);
                    for &slot in slots.iter() {
                        if slot >= SKIP {
                            continue;
                        }
                        let m = nodes.get_mut(slot);
                        if Some(m.poly) == back {
                            continue;
                        }
                        reopen(m, slot, &n, cur, hub.cost, open);
                    }
                    continue;
                }
            }
            // Every node's polygon was valid when it was created, and the mesh does not change
            // during the search.
            let Some(here) = resolve(mesh, poly) else {
                continue;
            };
            let ground = if state == GROUND { here.ground() } else { None };
            let (hub, cost_here) = match known {
                Some(h) => {
                    // This expansion's way back differs from the unknown slots' target, so it
                    // resolves them all.
                    let hub = pool.hub_mut(h);
                    hub.unknown_back = 0;
                    (hub.base as usize, hub.cost)
                }
                None => {
                    let cost = filter.cost_of(&here);
                    let polys = here.tile.poly_count();
                    let links = here.links.len();
                    (
                        pool.add_hub(poly, state, polys, links, cost, back_raw),
                        cost,
                    )
                }
            };
            let (slots, nodes) = pool.hub_slots(hub, here.links.len());
            for (j, link) in here.links.iter().enumerate() {
                let slot = slots[j];
                if slot == SKIP {
                    continue;
                }
                let target = link.target;
                if Some(target) == back {
                    continue;
                }
                if slot != UNKNOWN {
                    // A crossing this polygon's hub already holds.
                    reopen(nodes.get_mut(slot), slot, &n, cur, cost_here, open);
                    continue;
                }
                // The neighbour's key (source (poly, state), target, q_state) and, for a new
                // node, how to place it.
                let q_state = match (state, link.kind) {
                    (GROUND, LinkKind::Internal { .. } | LinkKind::Portal { .. }) => GROUND,
                    (GROUND, LinkKind::ToOffMesh { end }) => boarded(end),
                    (s, LinkKind::FromOffMesh { end }) if s != GROUND => {
                        let board = if s == boarded(LinkEnd::Start) {
                            LinkEnd::Start
                        } else {
                            LinkEnd::End
                        };
                        if end != opposite(board) {
                            slots[j] = SKIP;
                            continue;
                        }
                        GROUND
                    }
                    _ => {
                        slots[j] = SKIP;
                        continue;
                    }
                };
                // An earlier link of this polygon to the same crossing (two edge links to one
                // polygon) created it: the key exists. Any such link was resolved by now (it
                // has the same target, so it was not skipped as the way back either). Every
                // node of this hub has this hub's source, so the keys differ in the target and
                // its state only; a slot's node has its link's target as polygon, so the links'
                // targets are compared first (most polygons link each neighbour once).
                let earlier = here.links[..j]
                    .iter()
                    .enumerate()
                    .filter(|(_, l)| l.target == target)
                    .map(|(k, _)| slots[k])
                    .find(|&i| i < SKIP && nodes.get(i).state == q_state);
                if let Some(i) = earlier {
                    slots[j] = i;
                    reopen(nodes.get_mut(i), i, &n, cur, cost_here, open);
                    continue;
                }
                // A new crossing. Whatever stops it here stops it for the rest of the search
                // (the mesh, the filter and the pool's fullness do not change back).
                let Some((q, there)) = place(mesh, &here, ground.as_ref(), link, filter) else {
                    slots[j] = SKIP;
                    continue;
                };
                let step = dist3(&n.pos, &q) * cost_here;
                let dist = dist3(&q, &end_pos);
                let is_end = target == end_ref && q_state == GROUND;
                let (g, f, tail) = if is_end {
                    let tail = dist * filter.cost_of_target(&there);
                    let g = (n.g + step) + tail;
                    (g, g + 0.0, tail)
                } else {
                    let tail = dist * HEURISTIC_SCALE;
                    let g = n.g + step;
                    (g, g + tail, tail)
                };
                if nodes.is_full() {
                    out_of_nodes = true;
                    slots[j] = SKIP;
                    continue;
                }
                let i = nodes.push(Node {
                    pos: q,
                    g,
                    f,
                    tail,
                    dist,
                    poly: target,
                    parent: cur,
                    state: q_state,
                    is_end,
                    closed: false,
                });
                slots[j] = i;
                open.push(i, f);
            }
        }

        let (last, status) = match reached {
            Some(i) => (i, PathStatus::Complete),
            None => {
                // The ground node nearest the end: least (dist3(pos, end_pos), PolyRef, number);
                // nodes are visited in number order and replace the best only when strictly less.
                let mut best = (f64::INFINITY, start_ref, start);
                for (i, m) in pool.nodes().iter().enumerate() {
                    if m.state != GROUND {
                        continue;
                    }
                    // m.dist is dist3(m.pos, end_pos), computed when m was created.
                    let d = m.dist;
                    if d < best.0 || (d == best.0 && m.poly < best.1) {
                        best = (d, m.poly, i as u32);
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
            corridor.push(m.poly);
            i = m.parent;
        }
        corridor.reverse();
        Ok(PathSummary {
            status,
            cost: pool.get(last).g,
        })
    }
}
