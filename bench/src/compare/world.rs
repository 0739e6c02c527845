//! onav's own generated world (the `impl/benches` world: n × n tiles of 4 × 4 quads, holes,
//! slopes, one off-mesh link per tile, edits on every 7th tile): rollback — an in-place
//! Referenced restore where only edits and switches differ — against a Referenced restore into a
//! new mesh (issue 13 item 4: ≤ 0.05 at 1024 tiles).
//! Same method as `impl/examples/ratios.rs`, interleaved as the rest of the bench.

use std::cell::RefCell;
use std::hint::black_box;
use std::time::Instant;

use crate::adapter::World;
use crate::timing::{interleave, Stats};

/// Figures of the generated world.
#[derive(Debug, Clone, Copy, Default)]
pub struct WorldReport {
    /// Tiles.
    pub tiles: usize,
    /// Rollback, ns.
    pub rollback: Stats,
    /// Full restore into a new mesh, ns.
    pub full: Stats,
}

/// Runs it on a `columns` × `columns` world.
pub fn run(columns: i32, rounds: usize, overhead: f64) -> Result<WorldReport, String> {
    let mut w = World::new(columns)?;
    w.rollback()?;
    w.full_restore()?;
    let err = RefCell::new(None);
    let note = |r: Result<(), String>| {
        if let Err(e) = r {
            err.borrow_mut().get_or_insert(e);
        }
    };
    let tiles = w.tile_count();
    let w = RefCell::new(w);
    let s = interleave(
        rounds,
        &mut [
            &mut || {
                let mut w = w.borrow_mut();
                let mut ns = 0.0;
                for k in 0..3 {
                    w.edit(2 + k);
                    let t = Instant::now();
                    let r = w.rollback();
                    ns += t.elapsed().as_nanos() as f64 - overhead;
                    note(r);
                }
                ns / 3.0
            },
            &mut || {
                let w = w.borrow();
                let t = Instant::now();
                let r = black_box(w.full_restore());
                let ns = t.elapsed().as_nanos() as f64;
                note(r);
                ns
            },
        ],
    );
    if let Some(e) = err.into_inner() {
        return Err(e);
    }
    Ok(WorldReport {
        tiles,
        rollback: s[0],
        full: s[1],
    })
}
