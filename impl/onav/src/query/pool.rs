//! The A* node pool and open list (`spec/queries.md` §4.1): nodes in a `Vec` in creation order
//! (a node's index is its number), found through per-polygon hubs (a dense index by slot, polygon
//! and state, stamped per search, never iterated), and a binary heap ordered by (f, number) with
//! stale entries skipped.

use crate::geom::Vec3;
use crate::ids::PolyRef;

/// No parent.
pub(crate) const NO_PARENT: u32 = u32::MAX;

/// One search node: a crossing (`spec/queries.md` §4.1) with key (source, `poly`, `state`). Its
/// source, the polygon and state it is entered from, is not stored: a crossing is only ever
/// created or relaxed while a node of its source is expanded, so its parent's polygon and state
/// are always its source's (the start node has no parent and no source).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Node {
    /// Fixed when the node is created (`spec/queries.md` §4.2).
    pub pos: Vec3,
    pub g: f64,
    pub f: f64,
    /// A term fixed by the position (`spec/queries.md` §4.2): for the end polygon's ground node
    /// the last leg `dist3(pos, end_pos)·cost(end_ref)`, added to g; otherwise the heuristic
    /// `dist3(pos, end_pos)·H`, added to g for f.
    pub tail: f64,
    /// `dist3(pos, end_pos)`, kept for the nearest node of a search that ends unreached (§4.4).
    pub dist: f64,
    pub poly: PolyRef,
    pub parent: u32,
    /// 0 for a ground polygon; 1 + the boarding end for an off-mesh link polygon.
    pub state: u8,
    /// The end polygon's ground node.
    pub is_end: bool,
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

/// Polygon states a hub index entry is kept for: ground, boarded at the start, at the end.
const STATES: usize = 3;

/// The hub index: per slot index, per polygon and state (entry `poly · 3 + state`), the stamp of
/// the search that made the hub and the hub's number. An entry is live iff its stamp is the
/// current epoch, so emptying the index is `epoch += 1`. It is looked up by key only, never
/// iterated, so it reaches no result. A slot's entries are allocated when a search first
/// expands a polygon of it and kept, so later searches allocate nothing.
#[derive(Default)]
struct HubIndex {
    tiles: Vec<Vec<HubEntry>>,
    epoch: u32,
}

#[derive(Clone, Copy, Default)]
struct HubEntry {
    stamp: u32,
    hub: u32,
}

impl HubIndex {
    fn clear(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            // Wrapped: stamps of earlier epochs could look live again.
            for t in &mut self.tiles {
                t.iter_mut().for_each(|e| e.stamp = 0);
            }
            self.epoch = 1;
        }
    }

    /// The hub of entry `key` of slot `slot`, if this search made it.
    #[inline]
    fn find(&self, slot: usize, key: usize) -> Option<u32> {
        let e = self.tiles.get(slot)?.get(key)?;
        (e.stamp == self.epoch).then_some(e.hub)
    }

    /// Records hub `hub` for entry `key` of slot `slot`; `polys` is the polygon count of the
    /// slot's tile (the entries a first insertion allocates).
    #[inline]
    fn insert(&mut self, slot: usize, key: usize, polys: usize, hub: u32) {
        let stamp = self.epoch;
        let e = match self.tiles.get_mut(slot).and_then(|t| t.get_mut(key)) {
            Some(e) => e,
            None => self.grow(slot, key, polys),
        };
        *e = HubEntry { stamp, hub };
    }

    /// Entry `key` of slot `slot`, allocating it (and the rest of the slot's) first.
    #[cold]
    fn grow(&mut self, slot: usize, key: usize, polys: usize) -> &mut HubEntry {
        if self.tiles.len() <= slot {
            self.tiles.resize_with(slot + 1, Vec::new);
        }
        let t = &mut self.tiles[slot];
        let len = (key + 1).max(polys.saturating_mul(STATES));
        if t.len() < len {
            t.resize(len, HubEntry::default());
        }
        &mut t[key]
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
    nodes: Nodes,
    hubs: HubIndex,
    /// The hubs made, by number.
    hub_list: Vec<Hub>,
    slots: Vec<u32>,
}

/// The nodes of a search, in creation order (a node's index is its number), at most `max`.
#[derive(Default)]
pub(crate) struct Nodes {
    list: Vec<Node>,
    max: usize,
}

impl Nodes {
    /// Adds a node; `None` when the pool is full.
    #[inline]
    pub fn add(&mut self, node: Node) -> Option<u32> {
        if self.is_full() {
            return None;
        }
        Some(self.push(node))
    }

    /// True when the pool holds `max` nodes.
    #[inline]
    pub fn is_full(&self) -> bool {
        self.list.len() >= self.max
    }

    /// Adds a node to a pool that is not full; returns its number.
    #[inline]
    pub fn push(&mut self, node: Node) -> u32 {
        let i = self.list.len() as u32;
        self.list.push(node);
        i
    }

    #[inline]
    pub fn get(&self, i: u32) -> &Node {
        &self.list[i as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, i: u32) -> &mut Node {
        &mut self.list[i as usize]
    }
}

/// What a hub keeps of its polygon besides the slots: whatever the expansions after the first
/// need when every link they follow leads to a known crossing, so that they do not look the
/// polygon up again (the mesh and the filter do not change during a search).
#[derive(Clone, Copy)]
pub(crate) struct Hub {
    /// The first slot and the number of slots (the polygon's links).
    pub base: u32,
    pub len: u32,
    /// The cost of the polygon being left (`spec/queries.md` §4.2).
    pub cost: f64,
    /// The raw reference every [`UNKNOWN`] slot's link leads to, or 0 when no slot is unknown.
    /// A slot stays unknown only when its link was skipped as the way back by every expansion
    /// so far (`spec/queries.md` §4.3), so its target is the first expansion's way back, and
    /// after an expansion whose way back is another polygon no slot is unknown.
    pub unknown_back: u64,
}

impl NodePool {
    /// An empty pool for a search of at most `max` nodes.
    pub fn reset(&mut self, max: u32) {
        self.nodes.list.clear();
        self.nodes.max = max as usize;
        self.hubs.clear();
        self.hub_list.clear();
        self.slots.clear();
    }

    /// The slots `base .. base + len` of a hub and the nodes, borrowed apart: the loops over a
    /// hub's links read and update both.
    #[inline]
    pub fn hub_slots(&mut self, base: usize, len: usize) -> (&mut [u32], &mut Nodes) {
        (&mut self.slots[base..base + len], &mut self.nodes)
    }

    /// The number of the hub of `(poly, state)` (state ≤ 2), if this search made it.
    #[inline]
    pub fn find_hub(&self, poly: PolyRef, state: u8) -> Option<u32> {
        let key = poly.poly().0 as usize * STATES + usize::from(state);
        self.hubs.find(poly.slot().0 as usize, key)
    }

    /// Hub `h`.
    #[inline]
    pub fn hub(&self, h: u32) -> &Hub {
        &self.hub_list[h as usize]
    }

    /// Hub `h`, to update.
    #[inline]
    pub fn hub_mut(&mut self, h: u32) -> &mut Hub {
        &mut self.hub_list[h as usize]
    }

    /// Makes the hub of `(poly, state)` (state ≤ 2), which has none yet, whose polygon has
    /// `links` links and cost `cost` and whose tile has `polys` polygons, every slot
    /// [`UNKNOWN`], first expanded with way back `back` (raw, 0 for none); returns its first
    /// slot.
    #[inline]
    pub fn add_hub(
        &mut self,
        poly: PolyRef,
        state: u8,
        polys: u32,
        links: usize,
        cost: f64,
        back: u64,
    ) -> usize {
        let base = self.slots.len();
        let key = poly.poly().0 as usize * STATES + usize::from(state);
        let h = self.hub_list.len() as u32;
        self.hubs
            .insert(poly.slot().0 as usize, key, polys as usize, h);
        self.hub_list.push(Hub {
            base: base as u32,
            len: links as u32,
            cost,
            unknown_back: back,
        });
        // A few slots (a polygon's links): pushed one by one, cheaper than a memset call.
        self.slots.reserve(links);
        for _ in 0..links {
            self.slots.push(UNKNOWN);
        }
        base
    }

    /// Adds a node; `None` when the pool is full.
    #[inline]
    pub fn add(&mut self, node: Node) -> Option<u32> {
        self.nodes.add(node)
    }

    #[inline]
    pub fn get(&self, i: u32) -> &Node {
        self.nodes.get(i)
    }

    #[inline]
    pub fn get_mut(&mut self, i: u32) -> &mut Node {
        self.nodes.get_mut(i)
    }

    /// Every node, in creation order.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes.list
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

/// The open list: a binary min-heap of entries `fkey(f) << 32 | number`, so that one integer
/// comparison orders them by (f, number), and beside it one **held** entry, the least pushed
/// since the last pop. Keys are distinct (a node's f only ever decreases, and numbers differ). A
/// node whose f decreased has a newer entry; the older ones are skipped when taken, so each pop
/// yields the open node with the least (f, number). Only the least entry is ever taken, so the
/// heap's internal order reaches no result.
///
/// Why the held entry: most pops follow an expansion that pushed something, so a pop would
/// otherwise sift an entry up and then the heap's last entry down. Held beside the heap, the
/// least new entry either is the least of all (taken after one comparison) or takes the place of
/// the heap's least with one sift-down. On the 16 × 16 world of `examples/path_calls.rs` about
/// 45 % of the pushes end so, and 55 % of the pops are such replacements.
///
/// Why the two sift-downs: an entry taken from the heap's end is a leaf and large, so the hole
/// left at the root is moved down to a leaf along the lesser children (one comparison a level)
/// and the entry rises from there; a held entry, just pushed, may belong high up, so it is sifted
/// down from the root, comparing as it goes.
pub(crate) struct OpenList {
    heap: Vec<u128>,
    held: u128,
}

/// No held entry. No entry equals it: a node number is below `u32::MAX`.
const EMPTY: u128 = u128::MAX;

impl Default for OpenList {
    fn default() -> Self {
        Self {
            heap: Vec::new(),
            held: EMPTY,
        }
    }
}

impl OpenList {
    /// Empties the list, keeping its memory.
    pub fn clear(&mut self) {
        self.heap.clear();
        self.held = EMPTY;
    }

    /// Adds node `node`, whose f is now `f`.
    #[inline(always)]
    pub fn push(&mut self, node: u32, f: f64) {
        let mut e = u128::from(fkey(f)) << 32 | u128::from(node);
        if e < self.held {
            // The new entry is held; the one held before (if any) goes into the heap.
            std::mem::swap(&mut e, &mut self.held);
            if e == EMPTY {
                return;
            }
        }
        self.heap_push(e);
    }

    /// Adds entry `e` to the heap.
    #[inline]
    fn heap_push(&mut self, e: u128) {
        let mut i = self.heap.len();
        self.heap.push(e);
        let h = &mut self.heap[..=i];
        // Sift up: parents greater than e move down.
        while i > 0 {
            let p = (i - 1) / 2;
            if h[p] < e {
                break;
            }
            h[i] = h[p];
            i = p;
        }
        h[i] = e;
    }

    /// Removes and returns the heap's least entry, putting `x` in the heap in its place.
    #[inline]
    fn replace_least(h: &mut [u128], x: u128) -> u128 {
        let n = h.len();
        let top = h[0];
        // Sift x down from the root: the lesser child moves up while it is less.
        let mut i = 0;
        loop {
            let c = 2 * i + 1;
            if c + 1 < n {
                let (a, b) = (h[c], h[c + 1]);
                let (v, m) = if b < a { (b, c + 1) } else { (a, c) };
                if x < v {
                    break;
                }
                h[i] = v;
                i = m;
            } else {
                if c < n && h[c] < x {
                    h[i] = h[c];
                    i = c;
                }
                break;
            }
        }
        h[i] = x;
        top
    }

    /// As [`Self::replace_least`] for an `x` that was a leaf: the hole left at the root moves
    /// down to a leaf along the lesser children (one comparison a level), and x moves up from
    /// there (a leaf's entry rarely rises far).
    #[inline]
    fn replace_least_from_leaf(h: &mut [u128], x: u128) -> u128 {
        let n = h.len();
        let top = h[0];
        let mut i = 0;
        loop {
            let c = 2 * i + 1;
            if c + 1 < n {
                let (a, b) = (h[c], h[c + 1]);
                let (v, m) = if b < a { (b, c + 1) } else { (a, c) };
                h[i] = v;
                i = m;
            } else {
                if c < n {
                    h[i] = h[c];
                    i = c;
                }
                break;
            }
        }
        while i > 0 {
            let p = (i - 1) / 2;
            if h[p] < x {
                break;
            }
            h[i] = h[p];
            i = p;
        }
        h[i] = x;
        top
    }

    /// Removes and returns the least entry of heap and held entry together.
    #[inline]
    fn take_least(&mut self) -> Option<u128> {
        let held = self.held;
        match self.heap.first() {
            Some(&top) if top < held => {
                if held != EMPTY {
                    self.held = EMPTY;
                    return Some(Self::replace_least(&mut self.heap, held));
                }
                let last = self.heap.pop()?;
                if self.heap.is_empty() {
                    return Some(last);
                }
                Some(Self::replace_least_from_leaf(&mut self.heap, last))
            }
            _ if held != EMPTY => {
                self.held = EMPTY;
                Some(held)
            }
            _ => None,
        }
    }

    /// The open node with the least (f, number), marked closed.
    #[inline]
    pub fn pop(&mut self, pool: &mut NodePool) -> Option<u32> {
        while let Some(e) = self.take_least() {
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
            pos: [0.0; 3],
            g: 0.0,
            f,
            tail: 0.0,
            dist: 0.0,
            poly: r(p),
            parent: NO_PARENT,
            state: 0,
            is_end: false,
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
            open.push(i, pool.get(i).f);
        }
        // Node 2's f drops below the others: its old entry becomes stale.
        let i2 = 2;
        pool.get_mut(i2).f = 1.0;
        open.push(i2, pool.get(i2).f);
        let mut order = Vec::new();
        while let Some(i) = open.pop(&mut pool) {
            order.push(pool.get(i).poly.poly().0);
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
                open.push(i, pool.get(i).f);
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
                open.push(k, pool.get(k).f);
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

    /// The first slot of the hub of `(poly, state)`, made (with cost 1 and no way back) if
    /// the search has none, as the search does.
    fn hub(pool: &mut NodePool, poly: PolyRef, state: u8, polys: u32, links: usize) -> usize {
        match pool.find_hub(poly, state) {
            Some(h) => pool.hub(h).base as usize,
            None => pool.add_hub(poly, state, polys, links, 1.0, 0),
        }
    }

    #[test]
    fn a_hub_is_made_once_per_polygon_and_state() {
        let mut pool = NodePool::default();
        pool.reset(8);
        let a = hub(&mut pool, r(1), 0, 4, 3);
        let b = hub(&mut pool, r(1), 1, 4, 2);
        assert_eq!((a, b), (0, 3));
        assert_eq!(hub(&mut pool, r(1), 0, 4, 3), a);
        // Another slot, and a polygon past the count first given (the index grows).
        let other = PolyRef::new(Generation::FIRST, SlotIndex(5), PolyIndex(2));
        assert_eq!(hub(&mut pool, other, 2, 3, 1), 5);
        assert_eq!(hub(&mut pool, r(9), 0, 4, 2), 6);
        assert_eq!(hub(&mut pool, other, 2, 3, 1), 5);
        assert!(pool.hub_slots(0, 8).0.iter().all(|&s| s == UNKNOWN));
        pool.hub_slots(a, 3).0[1] = 7;
        assert_eq!(pool.hub_slots(0, 2).0, [UNKNOWN, 7]);
        // The hub keeps its record.
        let h = pool.find_hub(other, 2).unwrap();
        pool.hub_mut(h).unknown_back = r(3).raw();
        let got = *pool.hub(h);
        assert_eq!((got.base, got.len, got.unknown_back), (5, 1, r(3).raw()));
        // A new search forgets every hub.
        pool.reset(8);
        assert_eq!(pool.find_hub(r(1), 0).map(|_| ()), None);
        assert_eq!(hub(&mut pool, r(1), 1, 4, 2), 0);
        assert_eq!(hub(&mut pool, r(1), 0, 4, 3), 2);
        assert_eq!(pool.hub_slots(1, 1).0, [UNKNOWN]);
    }

    #[test]
    fn the_hub_index_survives_its_epoch_wrapping() {
        let mut pool = NodePool::default();
        pool.reset(8);
        assert_eq!(hub(&mut pool, r(1), 0, 2, 1), 0);
        pool.hubs.epoch = u32::MAX;
        pool.hubs.tiles[0][3].stamp = 1;
        pool.reset(8);
        // The stale stamp 1 equals the restarted epoch only if it was not cleared.
        assert_eq!(pool.hubs.epoch, 1);
        assert_eq!(hub(&mut pool, r(2), 0, 2, 1), 0);
        assert_eq!(hub(&mut pool, r(1), 0, 2, 1), 1);
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
