//! The A* node pool and open list (`spec/queries.md` §4.1): nodes in a `Vec` in creation order
//! (a node's index is its number), found through per-polygon hubs (a hash table looked up by
//! polygon and state, never iterated), and a binary heap ordered by (f, number) with stale
//! entries skipped.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::geom::Vec3;
use crate::ids::PolyRef;

/// A search node's identity (`spec/queries.md` §4.1): its source (the polygon and state it is
/// entered from; `None` for the start node), its polygon and its state (0 for a ground polygon;
/// 1 + the boarding end for an off-mesh link polygon, so a bidirectional link is two nodes).
pub(crate) type NodeKey = (Option<(PolyRef, u8)>, PolyRef, u8);

/// No parent.
pub(crate) const NO_PARENT: u32 = u32::MAX;

/// One search node.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Node {
    pub key: NodeKey,
    /// Fixed when the node is created (`spec/queries.md` §4.2).
    pub pos: Vec3,
    pub g: f64,
    pub f: f64,
    /// A term fixed by the position (`spec/queries.md` §4.2): for the end polygon's ground node
    /// the last leg `dist3(pos, end_pos)·cost(end_ref)`, added to g; otherwise the heuristic
    /// `dist3(pos, end_pos)·H`, added to g for f.
    pub tail: f64,
    /// The end polygon's ground node.
    pub is_end: bool,
    pub parent: u32,
    pub closed: bool,
}

impl Node {
    /// (g, f) of this node reached at cost `g_in` = n.g + step (§4.2): the end's
    /// `g = g_in + last`, `f = g + 0`; any other's `g = g_in`, `f = g + h`.
    #[inline]
    pub fn costs(&self, g_in: f64) -> (f64, f64) {
        if self.is_end {
            let g = g_in + self.tail;
            (g, g + 0.0)
        } else {
            (g_in, g_in + self.tail)
        }
    }
}

/// The hub table: open addressing over a power-of-two array of (key, first slot, stamp); an
/// entry is live iff its stamp is the table's current epoch, so emptying it is `epoch += 1`. It
/// is looked up by key only, never iterated, so its order reaches no result; its hash (of the
/// polygon reference and state) affects speed only.
#[derive(Default)]
struct HubTable {
    entries: Vec<HubEntry>,
    len: usize,
    epoch: u32,
}

#[derive(Clone, Copy, Default)]
struct HubEntry {
    poly: u64,
    state: u8,
    stamp: u32,
    base: u32,
}

impl HubTable {
    fn clear(&mut self) {
        self.len = 0;
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            // Wrapped: stamps of earlier epochs could look live again.
            self.entries.iter_mut().for_each(|e| e.stamp = 0);
            self.epoch = 1;
        }
    }

    #[inline]
    fn bucket(poly: u64, state: u8, mask: usize) -> usize {
        let h = (poly ^ u64::from(state) << 61).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        (h >> 32) as usize & mask
    }

    /// The first slot of `(poly, state)`, inserting `next` for a new key (then returning it).
    #[inline]
    fn get_or_insert(&mut self, poly: u64, state: u8, next: u32) -> u32 {
        if 2 * (self.len + 1) > self.entries.len() {
            self.grow();
        }
        let mask = self.entries.len() - 1;
        let mut i = Self::bucket(poly, state, mask);
        loop {
            let e = &mut self.entries[i];
            if e.stamp != self.epoch {
                *e = HubEntry {
                    poly,
                    state,
                    stamp: self.epoch,
                    base: next,
                };
                self.len += 1;
                return next;
            }
            if e.poly == poly && e.state == state {
                return e.base;
            }
            i = (i + 1) & mask;
        }
    }

    #[cold]
    fn grow(&mut self) {
        let old = std::mem::take(&mut self.entries);
        let epoch = self.epoch.max(1);
        self.entries = vec![HubEntry::default(); (old.len() * 2).max(64)];
        self.epoch = epoch;
        self.len = 0;
        for e in old.into_iter().filter(|e| e.stamp == epoch) {
            self.get_or_insert(e.poly, e.state, e.base);
        }
    }
}

/// A hub slot whose crossing is not known yet (its link was only ever skipped as the way back).
pub(crate) const UNKNOWN: u32 = u32::MAX;
/// A hub slot whose link never gives a crossing in this search (wrong kind for the state, a
/// target failing the filter, a one-way link's far end, or the pool full when it was tried).
pub(crate) const SKIP: u32 = u32::MAX - 1;

/// The pool: at most `max` nodes. Reset keeps the memory, so a search after a first one of the
/// same size allocates nothing.
///
/// Nodes are found through **hubs** instead of a map from keys: a crossing's key
/// `(P, s_P, Q, s_Q)` is only ever created while a node of `(P, s_P)` is expanded, at one of P's
/// links, so each `(P, s_P)` expanded gets one hub, a run of slots (one per link of P, in
/// canonical order) holding the node the link leads to, [`SKIP`] or [`UNKNOWN`]. Every
/// expansion of a node of P after the first reads the crossings from there. What a slot holds
/// depends only on the mesh, the filter and the pool's fullness, none of which a search undoes,
/// so the search takes exactly the steps it would take looking every key up.
#[derive(Default)]
pub(crate) struct NodePool {
    nodes: Vec<Node>,
    hubs: HubTable,
    slots: Vec<u32>,
    max: usize,
}

impl NodePool {
    /// An empty pool for a search of at most `max` nodes.
    pub fn reset(&mut self, max: u32) {
        self.nodes.clear();
        self.hubs.clear();
        self.slots.clear();
        self.max = max as usize;
    }

    /// The first slot of the hub of `(poly, state)`, whose polygon has `links` links: created
    /// (every slot [`UNKNOWN`]) on the first call for the pair.
    #[inline]
    pub fn hub(&mut self, poly: PolyRef, state: u8, links: usize) -> usize {
        let next = self.slots.len() as u32;
        let base = self.hubs.get_or_insert(poly.raw(), state, next);
        if base == next {
            self.slots.reserve(links);
            for _ in 0..links {
                self.slots.push(UNKNOWN);
            }
        }
        base as usize
    }

    /// Slot `i` of the hub slots.
    #[inline]
    pub fn slot(&self, i: usize) -> u32 {
        self.slots[i]
    }

    /// Sets slot `i`.
    #[inline]
    pub fn set_slot(&mut self, i: usize, v: u32) {
        self.slots[i] = v;
    }

    /// Adds a node; `None` when the pool is full.
    pub fn add(&mut self, node: Node) -> Option<u32> {
        if self.nodes.len() >= self.max {
            return None;
        }
        let i = self.nodes.len() as u32;
        self.nodes.push(node);
        Some(i)
    }

    #[inline]
    pub fn get(&self, i: u32) -> &Node {
        &self.nodes[i as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, i: u32) -> &mut Node {
        &mut self.nodes[i as usize]
    }

    /// Every node, in creation order.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }
}

/// The open-list key of f: its bits mapped so that unsigned order is `f64::total_cmp`'s order
/// (negative values have every bit flipped, others the sign bit set).
#[inline]
fn fkey(f: f64) -> u64 {
    let b = f.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | 1 << 63
    }
}

/// The open list: a min-heap of entries `fkey(f) << 32 | number`, so that one integer comparison
/// orders them by (f, number); keys are distinct (a node's f only ever decreases). A node whose
/// f decreased has a newer entry; the older ones are skipped when popped, so each pop yields the
/// open node with the least (f, number).
#[derive(Default)]
pub(crate) struct OpenList(BinaryHeap<Reverse<u128>>);

impl OpenList {
    /// Empties the list, keeping its memory.
    pub fn clear(&mut self) {
        self.0.clear();
    }

    #[inline]
    pub fn push(&mut self, pool: &NodePool, node: u32) {
        let e = u128::from(fkey(pool.get(node).f)) << 32 | u128::from(node);
        self.0.push(Reverse(e));
    }

    /// The open node with the least (f, number), marked closed.
    #[inline]
    pub fn pop(&mut self, pool: &mut NodePool) -> Option<u32> {
        while let Some(Reverse(e)) = self.0.pop() {
            let node = e as u32;
            let n = pool.get_mut(node);
            if n.closed || fkey(n.f) != (e >> 32) as u64 {
                continue;
            }
            n.closed = true;
            return Some(node);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{Generation, PolyIndex, SlotIndex};

    fn r(p: u32) -> PolyRef {
        PolyRef::new(Generation::FIRST, SlotIndex(0), PolyIndex(p))
    }

    fn node(p: u32, f: f64) -> Node {
        Node {
            key: (None, r(p), 0),
            pos: [0.0; 3],
            g: 0.0,
            f,
            tail: 0.0,
            is_end: false,
            parent: NO_PARENT,
            closed: false,
        }
    }

    #[test]
    fn pops_least_f_then_number_and_skips_stale_entries() {
        let mut pool = NodePool::default();
        pool.reset(8);
        let mut open = OpenList::default();
        for (p, f) in [(3, 2.0), (1, 2.0), (2, 5.0), (0, 3.0)] {
            let i = pool.add(node(p, f)).unwrap();
            open.push(&pool, i);
        }
        // Node 2's f drops below the others: its old entry becomes stale.
        let i2 = 2;
        pool.get_mut(i2).f = 1.0;
        open.push(&pool, i2);
        let mut order = Vec::new();
        while let Some(i) = open.pop(&mut pool) {
            order.push(pool.get(i).key.1.poly().0);
        }
        // Polygons 3 and 1 tie at f = 2: node 0 (polygon 3) was created first.
        assert_eq!(order, vec![2, 3, 1, 0]);
    }

    #[test]
    fn the_heap_yields_open_nodes_in_f_then_number_order() {
        let mut x = 5u64;
        let mut unit = || {
            x = crate::generator::mix(x);
            // Coarse values, so that f ties between nodes are common.
            (x >> 60) as f64 * 0.5
        };
        let mut pool = NodePool::default();
        pool.reset(4096);
        let mut open = OpenList::default();
        // The reference: the open nodes as (f, number), least first.
        let mut model = std::collections::BTreeSet::new();
        let key = |pool: &NodePool, i: u32| (fkey(pool.get(i).f), i);
        let mut pops = 0;
        for round in 0..400u32 {
            for _ in 0..round % 5 {
                let i = pool.add(node(0, unit() + 8.0)).unwrap();
                open.push(&pool, i);
                model.insert(key(&pool, i));
            }
            // Lower an open node's f now and then (its older entry goes stale), or reopen a
            // closed one.
            if round % 3 == 0 && !pool.nodes().is_empty() {
                let k = round * 7 % pool.nodes().len() as u32;
                model.remove(&key(&pool, k));
                let n = pool.get_mut(k);
                n.f -= 0.25 + unit();
                n.closed = false;
                open.push(&pool, k);
                model.insert(key(&pool, k));
            }
            if round % 2 == 0 {
                let got = open.pop(&mut pool);
                let want = model.pop_first().map(|(_, i)| i);
                assert_eq!(got, want, "round {round}");
                pops += usize::from(got.is_some());
            }
        }
        while let Some(i) = open.pop(&mut pool) {
            assert_eq!(Some(i), model.pop_first().map(|(_, i)| i));
        }
        assert!(model.is_empty() && pops > 100);
    }

    #[test]
    fn fkey_orders_as_total_cmp() {
        let v = [
            f64::NEG_INFINITY,
            -1e300,
            -1.5,
            -f64::MIN_POSITIVE,
            -0.0,
            0.0,
            f64::MIN_POSITIVE,
            1.0,
            1.0 + f64::EPSILON,
            1e300,
            f64::INFINITY,
            f64::NAN,
        ];
        for a in v {
            for b in v {
                assert_eq!(fkey(a).cmp(&fkey(b)), a.total_cmp(&b), "{a} {b}");
            }
        }
    }

    #[test]
    fn a_hub_is_made_once_per_polygon_and_state() {
        let mut pool = NodePool::default();
        pool.reset(8);
        let a = pool.hub(r(1), 0, 3);
        let b = pool.hub(r(1), 1, 2);
        assert_eq!((a, b), (0, 3));
        assert_eq!(pool.hub(r(1), 0, 3), a);
        assert!((0..5).all(|i| pool.slot(i) == UNKNOWN));
        pool.set_slot(a + 1, 7);
        assert_eq!(pool.slot(1), 7);
        pool.reset(8);
        assert_eq!(pool.hub(r(1), 1, 2), 0);
        assert_eq!(pool.slot(1), UNKNOWN);
    }

    #[test]
    fn pool_is_bounded() {
        let mut pool = NodePool::default();
        pool.reset(2);
        assert!(pool.add(node(0, 0.0)).is_some());
        assert!(pool.add(node(1, 0.0)).is_some());
        assert!(pool.add(node(2, 0.0)).is_none());
        assert_eq!(pool.nodes().len(), 2);
    }
}
