//! A counting global allocator for the peak-memory target (issue 13: peak memory of a restore
//! ≤ 2× the resulting mesh's own size). Counting is off except inside [`measure`], so timed code
//! pays one relaxed load per allocation. Only Rust allocations are seen: Detour's `malloc`s are
//! not (and are not measured).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicIsize, Ordering::Relaxed};

/// The bench binary's allocator.
pub struct Counting;

static ON: AtomicBool = AtomicBool::new(false);
static NET: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);

fn add(n: usize) {
    if ON.load(Relaxed) {
        let now = NET.fetch_add(n as isize, Relaxed) + n as isize;
        PEAK.fetch_max(now, Relaxed);
    }
}

fn sub(n: usize) {
    if ON.load(Relaxed) {
        NET.fetch_sub(n as isize, Relaxed);
    }
}

// SAFETY: every call forwards to `System` with the caller's arguments; counting only updates
// atomics and never touches the memory.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = System.alloc(l);
        if !p.is_null() {
            add(l.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(l);
        if !p.is_null() {
            add(l.size());
        }
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        sub(l.size());
        System.dealloc(p, l)
    }

    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = System.realloc(p, l, new);
        if !q.is_null() {
            sub(l.size());
            add(new);
        }
        q
    }
}

/// Net bytes allocated by the Rust side while `f` ran.
#[derive(Debug, Clone, Copy, Default)]
pub struct Usage {
    /// The largest net allocation at any moment during `f`.
    pub peak: isize,
    /// Net allocation when `f` returned (what its result keeps alive, plus any leak).
    pub kept: isize,
}

/// Runs `f` with counting on (single-threaded use: the bench runs onav on one thread).
pub fn measure<T>(f: impl FnOnce() -> T) -> (T, Usage) {
    NET.store(0, Relaxed);
    PEAK.store(0, Relaxed);
    ON.store(true, Relaxed);
    let out = f();
    ON.store(false, Relaxed);
    let usage = Usage {
        peak: PEAK.load(Relaxed),
        kept: NET.load(Relaxed),
    };
    (out, usage)
}
