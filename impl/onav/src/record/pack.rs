//! Packed tile bytes: the mesh's own copy of the as-built bytes (`spec/navmesh-format.md` §3)
//! of the tiles in each run of [`CHUNK_SLOTS`](super::CHUNK_SLOTS) consecutive slots, kept
//! together in one buffer, for the Full snapshot writer (`spec/snapshot.md` S9).
//!
//! Why a copy: a tile's bytes live in their own allocation beside the tile's parsed arrays, so
//! the bytes of consecutive tiles lie tens of kilobytes apart. Gathering 1 024 such tiles of
//! 16 KB from there ran at 1.6–1.7 × a memcpy of the same amount (the "without packs" line of
//! `examples/ratios.rs`); the whole Full write, copying them from packs, runs at 1.1–1.3 ×. A
//! Full write is almost all tile bytes, and its target is 1.5 × a memcpy of its output. (Tiles
//! of 2 KB gain little: there the one memcpy call per tile costs more than the scattering.)
//! The price is the tile bytes once more per mesh, plus what removals leave behind until
//! compaction (at most as much again), paid only by a mesh that writes Full snapshots: the mesh
//! builds a pack the first time a Full snapshot needs it and keeps it up to date from then on.

/// Where a slot's bytes lie in [`Pack::bytes`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    at: usize,
    len: usize,
}

/// The as-built bytes of the tiles of up to 32 consecutive slots. Adding a tile appends its
/// bytes; removing one leaves its bytes unused until unused bytes outnumber used ones, when the
/// used ones are packed again in slot order. So each operation costs amortised O(tile bytes),
/// and the buffer holds at most twice the bytes in use, plus a growth reserve of at most a
/// quarter.
#[derive(Debug, Clone, Default)]
pub(crate) struct Pack {
    bytes: Vec<u8>,
    /// Per slot of the run, where its tile's bytes are (`None`: free slot).
    spans: Vec<Option<Span>>,
    /// Bytes of `bytes` no span covers.
    unused: usize,
}

impl Pack {
    /// The pack of a run of slots holding `tiles` (each slot's as-built bytes, `None` when free),
    /// in slot order with nothing unused.
    pub(crate) fn of<'a>(tiles: impl Iterator<Item = Option<&'a [u8]>> + Clone) -> Self {
        let total = tiles.clone().flatten().map(<[u8]>::len).sum();
        let mut bytes = Vec::with_capacity(total);
        let spans = tiles
            .map(|t| {
                t.map(|b| {
                    let at = bytes.len();
                    bytes.extend_from_slice(b);
                    Span { at, len: b.len() }
                })
            })
            .collect();
        Self {
            bytes,
            spans,
            unused: 0,
        }
    }

    /// Slot `k`'s tile bytes, `None` when it is free.
    pub(crate) fn get(&self, k: usize) -> Option<&[u8]> {
        let s = self.spans.get(k).copied().flatten()?;
        self.bytes.get(s.at..s.at + s.len)
    }

    /// Makes slot `k` hold `tile` (its as-built bytes), or nothing.
    pub(crate) fn set(&mut self, k: usize, tile: Option<&[u8]>) {
        if let Some(old) = self.spans[k].take() {
            self.unused += old.len;
        }
        if let Some(b) = tile {
            if self.bytes.capacity() - self.bytes.len() < b.len() {
                // Grow by at least a quarter rather than doubling: still amortised O(1) per byte,
                // with at most a quarter of the buffer spare.
                self.bytes.reserve_exact(b.len().max(self.bytes.len() / 4));
            }
            self.spans[k] = Some(Span {
                at: self.bytes.len(),
                len: b.len(),
            });
            self.bytes.extend_from_slice(b);
        }
        if self.unused > self.bytes.len() - self.unused {
            self.compact();
        }
    }

    /// Packs the used bytes again, in slot order, into an exactly sized buffer.
    fn compact(&mut self) {
        let used = self.bytes.len() - self.unused;
        let mut bytes = Vec::with_capacity(used);
        for s in self.spans.iter_mut().flatten() {
            let at = bytes.len();
            bytes.extend_from_slice(&self.bytes[s.at..s.at + s.len]);
            s.at = at;
        }
        self.bytes = bytes;
        self.unused = 0;
    }

    /// Checks the pack's own invariants (tests only): spans inside the buffer and disjoint, the
    /// unused count exact and at most the used bytes.
    #[cfg(any(test, feature = "testkit"))]
    pub(crate) fn assert_valid(&self) {
        let mut spans: Vec<Span> = self.spans.iter().flatten().copied().collect();
        spans.sort_by_key(|s| (s.at, s.len));
        let mut end = 0;
        for s in &spans {
            assert!(s.at >= end, "spans overlap");
            end = s.at + s.len;
        }
        assert!(end <= self.bytes.len());
        let used: usize = spans.iter().map(|s| s.len).sum();
        assert_eq!(self.unused, self.bytes.len() - used);
        assert!(
            self.unused <= used,
            "{} unused over {} used",
            self.unused,
            used
        );
    }
}

#[cfg(test)]
mod tests {
    use super::Pack;
    use proptest::prelude::*;

    proptest! {
        /// Any sequence of sets keeps every slot's bytes equal to a plain model's, and the
        /// buffer within twice the bytes in use.
        #[test]
        fn pack_matches_model(
            ops in proptest::collection::vec((0usize..6, proptest::option::of(0usize..40), any::<u8>()), 0..80)
        ) {
            let mut model: Vec<Option<Vec<u8>>> = vec![None; 6];
            let mut pack = Pack::of(model.iter().map(|t| t.as_deref()));
            for (k, len, fill) in ops {
                let tile = len.map(|n| vec![fill; n]);
                pack.set(k, tile.as_deref());
                model[k] = tile;
                pack.assert_valid();
                for (j, t) in model.iter().enumerate() {
                    prop_assert_eq!(pack.get(j), t.as_deref());
                }
            }
            let fresh = Pack::of(model.iter().map(|t| t.as_deref()));
            fresh.assert_valid();
            prop_assert_eq!(fresh.unused, 0);
        }
    }

    #[test]
    fn removal_compacts_once_unused_outweighs_used() {
        let mut pack = Pack::of([Some(&[1u8; 10][..]), Some(&[2; 10]), Some(&[3; 30])].into_iter());
        pack.set(0, None);
        assert_eq!((pack.bytes.len(), pack.unused), (50, 10));
        pack.set(2, Some(&[4; 5]));
        // 40 unused against 15 used: packed again, in slot order.
        assert_eq!((pack.bytes.len(), pack.unused), (15, 0));
        assert_eq!(pack.bytes, [[2; 10].as_slice(), &[4; 5]].concat());
        assert_eq!(pack.get(0), None);
        assert_eq!(pack.get(1), Some(&[2u8; 10][..]));
        pack.set(1, None);
        pack.set(2, None);
        assert_eq!((pack.bytes.len(), pack.unused), (0, 0));
    }
}
