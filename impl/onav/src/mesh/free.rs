//! The free slots of a mesh (derived: the slots with no tile), as a bit set with the lowest free
//! slot at hand (`spec/navmesh-format.md` R6: `add_tile` takes the lowest free slot).

use crate::ids::SlotIndex;

/// One bit per slot, set when the slot is free. `first` is the index of the first word with a
/// bit set (or the word count when none is): every word before it is zero, so the lowest free
/// slot is found at once, and taking slots in ascending order (building a mesh) moves it forward
/// at most once per 64 slots.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FreeSlots {
    words: Vec<u64>,
    count: usize,
    first: usize,
}

impl FreeSlots {
    /// Slots `0 .. n`, all free.
    pub(crate) fn all(n: u32) -> Self {
        let n = n as usize;
        let mut words = vec![u64::MAX; n.div_ceil(64)];
        if !n.is_multiple_of(64) {
            if let Some(last) = words.last_mut() {
                *last = (1u64 << (n % 64)) - 1;
            }
        }
        let first = if n == 0 { words.len() } else { 0 };
        Self {
            words,
            count: n,
            first,
        }
    }

    /// Slots `0 .. n`, none free.
    pub(crate) fn none(n: u32) -> Self {
        let words = vec![0; (n as usize).div_ceil(64)];
        Self {
            first: words.len(),
            words,
            count: 0,
        }
    }

    /// Number of free slots.
    pub(crate) fn len(&self) -> usize {
        self.count
    }

    /// The lowest free slot.
    #[inline]
    pub(crate) fn lowest(&self) -> Option<SlotIndex> {
        let w = *self.words.get(self.first)?;
        Some(SlotIndex((self.first * 64) as u32 + w.trailing_zeros()))
    }

    /// Whether slot `s` is free.
    #[cfg(test)]
    pub(crate) fn contains(&self, s: SlotIndex) -> bool {
        let i = s.0 as usize;
        self.words
            .get(i / 64)
            .is_some_and(|w| w >> (i % 64) & 1 == 1)
    }

    /// Marks slot `s` free.
    pub(crate) fn insert(&mut self, s: SlotIndex) {
        let i = s.0 as usize;
        let bit = 1u64 << (i % 64);
        if self.words[i / 64] & bit == 0 {
            self.words[i / 64] |= bit;
            self.count += 1;
            self.first = self.first.min(i / 64);
        }
    }

    /// Marks slot `s` taken.
    pub(crate) fn remove(&mut self, s: SlotIndex) {
        let i = s.0 as usize;
        let bit = 1u64 << (i % 64);
        if self.words[i / 64] & bit != 0 {
            self.words[i / 64] &= !bit;
            self.count -= 1;
            while self.first < self.words.len() && self.words[self.first] == 0 {
                self.first += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// Against a `BTreeSet` model: any sequence of inserts and removals gives the same lowest
    /// slot, count and membership, for sizes on and off a word boundary.
    #[test]
    fn free_slots_match_an_ordered_set() {
        for n in [1u32, 63, 64, 65, 200] {
            let mut model: BTreeSet<u32> = (0..n).collect();
            let mut free = FreeSlots::all(n);
            let mut x = 7u32;
            for _ in 0..3000 {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                let s = (x >> 8) % n;
                if x & 1 == 0 {
                    model.insert(s);
                    free.insert(SlotIndex(s));
                } else {
                    model.remove(&s);
                    free.remove(SlotIndex(s));
                }
                assert_eq!(free.lowest(), model.first().map(|&s| SlotIndex(s)));
                assert_eq!(free.len(), model.len());
                assert!((0..n).all(|s| free.contains(SlotIndex(s)) == model.contains(&s)));
            }
            let mut none = FreeSlots::none(n);
            assert_eq!(none.lowest(), None);
            none.insert(SlotIndex(n - 1));
            assert_eq!(none.lowest(), Some(SlotIndex(n - 1)));
        }
    }
}
