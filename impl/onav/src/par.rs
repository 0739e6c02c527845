//! When the crate works in parallel. Every parallel step is an ordered map (results are
//! assembled in input order), so running it on one thread or many gives identical results; this
//! module only decides whether a batch is large enough for rayon to pay.
//!
//! Why a threshold: handing work to rayon from outside a thread pool wakes a worker and waits
//! for it, a few microseconds whatever the batch (measured: an in-place restore of 26 tiles went
//! from 2.6 µs inside a one-thread pool to 7.1 µs outside any pool, and one `add_tile` doubled),
//! and below a few tens of microseconds of work a second thread cannot win that back. Small
//! batches therefore run on the calling thread, so callers need no pool for speed.

use rayon::prelude::*;

/// Tile bytes below which a batch of tiles is parsed and validated on the calling thread.
pub(crate) const PAR_MIN_TILE_BYTES: usize = 64 * 1024;

/// Polygons below which a batch of tiles is stitched on the calling thread.
pub(crate) const PAR_MIN_POLYS: usize = 4096;

/// `f` over `items`, in order: in parallel when `work` reaches `min_work` and more than one
/// thread is available, else on the calling thread. The result is the same either way.
pub(crate) fn map<T, R, F>(items: &[T], work: usize, min_work: usize, f: F) -> Vec<R>
where
    T: Sync,
    R: Send,
    F: Fn(usize, &T) -> R + Sync + Send,
{
    // The work test comes first: below the threshold rayon is not touched at all (asking it for
    // its thread count would start the global pool).
    if work < min_work || rayon::current_num_threads() < 2 {
        items.iter().enumerate().map(|(i, t)| f(i, t)).collect()
    } else {
        items.par_iter().enumerate().map(|(i, t)| f(i, t)).collect()
    }
}
