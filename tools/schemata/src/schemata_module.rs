//! Mutant switches of a schemata build (tools/schemata): not part of onav, written into a copy of
//! the tree only. `on(id)` is true when mutant `id` is the active one, and records that it was
//! reached while recording is on.
#![allow(missing_docs, dead_code)]

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::Relaxed};

pub const WORDS: usize = @WORDS@;
pub static ACTIVE: AtomicU32 = AtomicU32::new(0);
pub static RECORD: AtomicBool = AtomicBool::new(false);
pub static REACHED: [AtomicU64; WORDS] = [const { AtomicU64::new(0) }; WORDS];

#[inline(always)]
pub fn on(id: u32) -> bool {
    if RECORD.load(Relaxed) {
        REACHED[(id / 64) as usize].fetch_or(1u64 << (id % 64), Relaxed);
    }
    ACTIVE.load(Relaxed) == id
}

/// The reached ids, ascending, and clears them.
pub fn take_reached() -> Vec<u32> {
    let mut out = Vec::new();
    for (w, a) in REACHED.iter().enumerate() {
        let mut bits = a.swap(0, Relaxed);
        while bits != 0 {
            let b = bits.trailing_zeros();
            out.push(w as u32 * 64 + b);
            bits &= bits - 1;
        }
    }
    out
}
