//! The rebuild queue (`spec/tilecache.md` §4, TC10): distinct cached tile cells, first in first
//! out. It is the only list of pending work: a request queues its cells at once, whatever the
//! number of requests, and nothing waits anywhere else.

use std::collections::VecDeque;

/// Cells by their index in the cache's list of cached cells, front first, each at most once.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct RebuildQueue {
    order: VecDeque<u32>,
    /// `queued[k]` iff cell k is in `order`.
    queued: Vec<bool>,
}

impl RebuildQueue {
    /// An empty queue over `cells` cached cells.
    pub fn new(cells: usize) -> Self {
        Self {
            order: VecDeque::new(),
            queued: vec![false; cells],
        }
    }

    /// Appends cell `k` at the back unless it is queued already (then it keeps its place).
    pub fn push(&mut self, k: u32) {
        if !self.queued[k as usize] {
            self.queued[k as usize] = true;
            self.order.push_back(k);
        }
    }

    /// A queue holding exactly `cells` in this order (distinct, each below the cell count: the
    /// caller checked).
    #[cfg(test)]
    pub fn from_order(count: usize, cells: &[u32]) -> Self {
        let mut q = Self::new(count);
        for &k in cells {
            q.push(k);
        }
        q
    }

    /// Makes this the queue holding exactly `cells` in this order (distinct, each below the
    /// cell count: the caller checked), in place.
    pub fn set_order(&mut self, cells: &[u32]) {
        for &k in &self.order {
            self.queued[k as usize] = false;
        }
        self.order.clear();
        for &k in cells {
            self.push(k);
        }
    }

    /// The first `n` cells, front first.
    pub fn front(&self, n: usize) -> impl Iterator<Item = u32> + '_ {
        self.order.iter().take(n).copied()
    }

    /// Removes the front cell (which must be `k`).
    pub fn pop_front(&mut self, k: u32) {
        debug_assert_eq!(self.order.front(), Some(&k));
        if self.order.pop_front().is_some() {
            self.queued[k as usize] = false;
        }
    }

    /// Cells in queue order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = u32> + '_ {
        self.order.iter().copied()
    }

    pub fn len(&self) -> usize {
        self.order.len()
    }

    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }
}

#[cfg(test)]
mod tests {
    //! `spec/tilecache.md` TC10.
    use super::*;

    #[test]
    fn distinct_and_first_in_first_out() {
        let mut q = RebuildQueue::new(5);
        for k in [3, 1, 3, 4, 1, 0] {
            q.push(k);
        }
        assert_eq!(q.iter().collect::<Vec<_>>(), [3, 1, 4, 0]);
        q.pop_front(3);
        q.push(3);
        assert_eq!(q.iter().collect::<Vec<_>>(), [1, 4, 0, 3]);
        assert_eq!(q.front(2).collect::<Vec<_>>(), [1, 4]);
        assert_eq!(RebuildQueue::from_order(5, &[1, 4, 0, 3]), q);
        let mut r = RebuildQueue::from_order(5, &[2, 0]);
        r.set_order(&[1, 4, 0, 3]);
        assert_eq!(r, q);
    }
}
