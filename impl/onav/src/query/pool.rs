//! The A* node pool and open list (`spec/queries.md` §4.1): nodes in a `Vec` in creation order
//! (a node's index is its number), a hash map used only to find a node by key (never iterated),
//! and a binary heap ordered by (f, number) with stale entries skipped.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use crate::geom::Vec3;
use crate::hash::Fixed;
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

/// A key as the node index hashes it: one 64-bit word mixing the two references and states
/// (equal keys hash alike; equality is still that of the whole key, so the hash affects speed
/// only).
#[derive(Clone, Copy, PartialEq, Eq)]
struct IndexKey(NodeKey);

impl std::hash::Hash for IndexKey {
    #[inline]
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        let (source, poly, state) = self.0;
        let s = source.map_or(u64::MAX, |(r, st)| r.raw() ^ u64::from(st) << 62);
        h.write_u64(s.rotate_left(29) ^ poly.raw() ^ u64::from(state) << 61);
    }
}

/// The node index: lookup only, never iterated, so its order reaches no result.
#[allow(clippy::disallowed_types)]
type NodeIndex = std::collections::HashMap<IndexKey, u32, Fixed>;

/// The pool: at most `max` nodes. Reset keeps the memory, so a search after a first one of the
/// same size allocates nothing.
#[derive(Default)]
pub(crate) struct NodePool {
    nodes: Vec<Node>,
    index: NodeIndex,
    max: usize,
}

impl NodePool {
    /// An empty pool for a search of at most `max` nodes.
    pub fn reset(&mut self, max: u32) {
        self.nodes.clear();
        self.index.clear();
        self.max = max as usize;
    }

    /// The node with this key, if it exists.
    pub fn find(&self, key: &NodeKey) -> Option<u32> {
        self.index.get(&IndexKey(*key)).copied()
    }

    /// Adds a node; `None` when the pool is full.
    pub fn add(&mut self, node: Node) -> Option<u32> {
        if self.nodes.len() >= self.max {
            return None;
        }
        let i = self.nodes.len() as u32;
        self.index.insert(IndexKey(node.key), i);
        self.nodes.push(node);
        Some(i)
    }

    pub fn get(&self, i: u32) -> &Node {
        &self.nodes[i as usize]
    }

    pub fn get_mut(&mut self, i: u32) -> &mut Node {
        &mut self.nodes[i as usize]
    }

    /// Every node, in creation order.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }
}

/// An open-list entry; ordered by (f, node number).
#[derive(Debug, Clone, Copy)]
struct Entry {
    f: f64,
    node: u32,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        self.f.total_cmp(&other.f).then(self.node.cmp(&other.node))
    }
}

/// The open list: a min-heap of entries. A node whose f decreased has a newer entry; the older
/// ones are skipped when popped, so each pop yields the open node with the least
/// (f, number).
#[derive(Default)]
pub(crate) struct OpenList(BinaryHeap<Reverse<Entry>>);

impl OpenList {
    /// Empties the list, keeping its memory.
    pub fn clear(&mut self) {
        self.0.clear();
    }

    pub fn push(&mut self, pool: &NodePool, node: u32) {
        let n = pool.get(node);
        self.0.push(Reverse(Entry { f: n.f, node }));
    }

    /// The open node with the least (f, number), marked closed.
    pub fn pop(&mut self, pool: &mut NodePool) -> Option<u32> {
        while let Some(Reverse(e)) = self.0.pop() {
            let n = pool.get_mut(e.node);
            if n.closed || n.f.to_bits() != e.f.to_bits() {
                continue;
            }
            n.closed = true;
            return Some(e.node);
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
        let i2 = pool.find(&(None, r(2), 0)).unwrap();
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
    fn pool_is_bounded() {
        let mut pool = NodePool::default();
        pool.reset(2);
        assert!(pool.add(node(0, 0.0)).is_some());
        assert!(pool.add(node(1, 0.0)).is_some());
        assert!(pool.add(node(2, 0.0)).is_none());
        assert_eq!(pool.find(&(None, r(2), 0)), None);
        assert_eq!(pool.nodes().len(), 2);
    }
}
