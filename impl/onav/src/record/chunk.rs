//! The Referenced records of a run of slots, as the mesh caches them.

use super::{referenced_len, write_referenced, REFERENCED_STATE_AT};
use crate::bytes::Writer;
use crate::ids::Generation;
use crate::tile::NavTile;

/// The Referenced snapshot records (`spec/snapshot.md` §4.3) of up to
/// [`CHUNK_SLOTS`](super::CHUNK_SLOTS) consecutive slots, end to end, as the mesh caches them
/// (derived): the Referenced writer copies whole chunks, the Full writer takes each slot's edits
/// and switches from here, and a change to one slot rewrites only its record (moving the rest of
/// the chunk when the length changes).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Chunk {
    /// The records, in slot order.
    bytes: Vec<u8>,
    /// Where each slot's record starts in `bytes`, and then the end: one more than the slots.
    /// (A record is at most 45 + 11 · 1 048 575 bytes (T6), so 32 of them fit a u32.)
    starts: Vec<u32>,
}

impl Chunk {
    /// The chunk of these slots (generation and tile of each), written from their tiles.
    pub(crate) fn of<'a>(
        slots: impl ExactSizeIterator<Item = (Generation, Option<&'a NavTile>)> + Clone,
    ) -> Self {
        let mut starts = Vec::with_capacity(slots.len() + 1);
        let len = slots.clone().map(|(_, t)| referenced_len(t)).sum();
        let mut w = Writer::with_capacity(len);
        for (generation, tile) in slots {
            starts.push(w.len() as u32);
            write_referenced(&mut w, generation, tile);
        }
        starts.push(w.len() as u32);
        Self {
            bytes: w.into_inner(),
            starts,
        }
    }

    /// Rewrites the record of the chunk's slot `k`, which now has `generation` and `tile`.
    pub(crate) fn update(&mut self, k: usize, generation: Generation, tile: Option<&NavTile>) {
        let mut w = Writer::with_capacity(referenced_len(tile));
        write_referenced(&mut w, generation, tile);
        self.set_record(k, &w.into_inner());
    }

    /// Puts `record` in place of the record of the chunk's slot `k`: it must be the record the
    /// writer gives for that slot's new state (a rollback copies it from a snapshot, where S22
    /// makes it canonical).
    pub(crate) fn set_record(&mut self, k: usize, record: &[u8]) {
        let (a, b) = (self.starts[k] as usize, self.starts[k + 1] as usize);
        let n = record.len();
        if n != b - a {
            // Move the records after it (a splice, without its per-byte refill).
            let end = self.bytes.len();
            if n > b - a {
                self.bytes.resize(end + n - (b - a), 0);
            }
            self.bytes.copy_within(b..end, a + n);
            self.bytes.truncate(end + n - (b - a));
            for s in &mut self.starts[k + 1..] {
                *s = (*s as usize + n - (b - a)) as u32;
            }
        }
        self.bytes[a..a + n].copy_from_slice(record);
    }

    /// Puts `records` in place of all the chunk's records at once, record `k` starting at
    /// `starts[k]` (a rollback copies them from a snapshot, where S22 makes them canonical):
    /// they must be the writer's records of the chunk's slots' new states. One copy.
    pub(crate) fn replace(&mut self, records: &[u8], starts: &[u32]) {
        debug_assert_eq!(starts.len() + 1, self.starts.len());
        self.bytes.clear();
        self.bytes.extend_from_slice(records);
        self.starts.clear();
        self.starts.extend_from_slice(starts);
        self.starts.push(records.len() as u32);
    }

    /// The records, end to end.
    #[inline]
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Where each slot's record starts in [`Chunk::bytes`], and then their end.
    #[inline]
    pub(crate) fn starts(&self) -> &[u32] {
        &self.starts
    }

    /// Number of slots the chunk holds records of.
    #[inline]
    pub(crate) fn slots(&self) -> usize {
        self.starts.len() - 1
    }

    /// The record of the chunk's slot `k`.
    #[inline]
    pub(crate) fn record(&self, k: usize) -> &[u8] {
        &self.bytes[self.starts[k] as usize..self.starts[k + 1] as usize]
    }

    /// The edits and switches of the chunk's occupied slot `k`, as they follow its content id:
    /// the same bytes in a Full record (S11–S16). With them, when the chunk holds that many, the
    /// `N` bytes from their start, for a fixed-size copy.
    pub(crate) fn state<const N: usize>(&self, k: usize) -> (&[u8], Option<&[u8; N]>) {
        let at = self.starts[k] as usize + REFERENCED_STATE_AT;
        let end = self.starts[k + 1] as usize;
        let run = self.bytes.get(at..at + N).and_then(|r| r.try_into().ok());
        (&self.bytes[at..end], run)
    }
}
