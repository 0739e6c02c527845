//! Rolling back state (issue 13 item 4): onav's in-place restore of a snapshot whose tiles are
//! the mesh's own, so only edits (and switches, none here) differ, in Referenced and Full mode,
//! against Detour's `storeTileState`/`restoreTileState` loop over the same tiles (100 passes per
//! timing, as `detour-figures.md`). Also the snapshot writes against the store loop, and the
//! peak memory of a restore against the size of the mesh it makes.

use std::cell::RefCell;
use std::hint::black_box;
use std::time::Instant;

use crate::adapter;
use crate::alloc;
use crate::case::Case;
use crate::timing::{interleave, per_call, Stats};

/// Passes per timing of the sub-microsecond Detour loops and onav writes.
const PASSES: usize = 100;

/// What one in-place restore variant rolls back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edits {
    /// Nothing differs (same state).
    None,
    /// The flags of every 7th polygon were changed since the snapshot.
    Some,
    /// The flags of every polygon were changed.
    All,
}

impl Edits {
    /// The three variants.
    pub const ALL: [Edits; 3] = [Edits::None, Edits::Some, Edits::All];

    /// For people.
    pub fn label(self) -> &'static str {
        match self {
            Edits::None => "same state",
            Edits::Some => "flags of every 7th polygon changed",
            Edits::All => "flags of every polygon changed",
        }
    }

    fn step(self) -> Option<usize> {
        match self {
            Edits::None => None,
            Edits::Some => Some(7),
            Edits::All => Some(1),
        }
    }
}

/// One in-place restore variant and the Detour loop interleaved with it (ns per call).
#[derive(Debug, Clone, Copy)]
pub struct Rollback {
    /// What differs.
    pub edits: Edits,
    /// onav, Referenced snapshot.
    pub referenced: Stats,
    /// onav, Full snapshot.
    pub full: Stats,
    /// Detour's restoreTileState loop over every tile.
    pub detour: Stats,
}

impl Rollback {
    /// onav / Detour, Referenced and Full.
    pub fn ratios(&self) -> (crate::timing::Ratio, crate::timing::Ratio) {
        (
            self.referenced.ratio(&self.detour),
            self.full.ratio(&self.detour),
        )
    }
}

/// Timings (ns per call, all tiles) and sizes.
#[derive(Debug, Clone, Default)]
pub struct StateReport {
    /// Detour storeTileState loop.
    pub store: Stats,
    /// Detour tile-state bytes.
    pub state_bytes: usize,
    /// onav snapshot writes: Referenced, Full.
    pub write: (Stats, Stats),
    /// In-place restores, one per variant.
    pub rollback: Vec<Rollback>,
    /// Peak and kept bytes of a Full restore into a new mesh.
    pub mem_full: alloc::Usage,
    /// Peak and kept bytes of a Referenced restore into a new mesh.
    pub mem_ref: alloc::Usage,
    /// Peak bytes of a Full in-place rollback of every polygon's flags.
    pub mem_rollback: alloc::Usage,
}

/// Runs the comparison; `overhead` is one timer pair in ns, subtracted from single-call timings.
pub fn run(c: &Case, rounds: usize, overhead: f64) -> Result<StateReport, String> {
    let tiles = c.detour.tiles();
    let n = c.detour.state_size(&tiles);
    let mut buf = vec![0u8; n];
    c.detour.store_state(&tiles, &mut buf);
    let lib = c.onav.library();
    let referenced = c.onav.snapshot(false);
    let full = c.onav.snapshot(true);
    let mut r = StateReport {
        state_bytes: n,
        ..StateReport::default()
    };

    let s = interleave(
        rounds,
        &mut [
            &mut || {
                buf.iter_mut().for_each(|b| *b = 0);
                per_call(PASSES, || {
                    c.detour.store_state(black_box(&tiles), black_box(&mut buf))
                })
            },
            &mut || per_call(PASSES, || drop(black_box(c.onav.snapshot(false)))),
            &mut || per_call(PASSES, || drop(black_box(c.onav.snapshot(true)))),
        ],
    );
    (r.store, r.write) = (s[0], (s[1], s[2]));
    c.detour.store_state(&tiles, &mut buf);

    for edits in Edits::ALL {
        let mut m_ref = c.onav.clone();
        let mut m_full = c.onav.clone();
        m_ref.restore(&referenced, &lib)?;
        m_full.restore(&full, &lib)?;
        let err = RefCell::new(None);
        let s = interleave(
            rounds,
            &mut [
                &mut || rollback(&mut m_ref, &referenced, &lib, edits, overhead, &err),
                &mut || rollback(&mut m_full, &full, &lib, edits, overhead, &err),
                &mut || {
                    per_call(PASSES, || {
                        c.detour.restore_state(black_box(&tiles), black_box(&buf))
                    })
                },
            ],
        );
        if let Some(e) = err.into_inner() {
            return Err(e);
        }
        if m_ref.snapshot(false) != referenced || m_full.snapshot(false) != referenced {
            return Err("a rollback did not restore the snapshot's state".into());
        }
        r.rollback.push(Rollback {
            edits,
            referenced: s[0],
            full: s[1],
            detour: s[2],
        });
    }

    let empty = adapter::empty_library();
    let (m, u) = alloc::measure(|| adapter::restore_new(&full, &empty));
    m?;
    r.mem_full = u;
    let (m, u) = alloc::measure(|| adapter::restore_new(&referenced, &lib));
    m?;
    r.mem_ref = u;
    let mut m = c.onav.clone();
    m.edit_flags(1, 2);
    let (res, u) = alloc::measure(|| m.restore(&full, &lib));
    res?;
    r.mem_rollback = u;
    Ok(r)
}

/// One timed batch of in-place restores of `snap` into `m` (ns per restore). With edits, each
/// restore follows an untimed edit and is timed alone (less one timer pair); without, 100
/// restores are timed together.
fn rollback(
    m: &mut adapter::Mesh,
    snap: &[u8],
    lib: &adapter::Library,
    edits: Edits,
    overhead: f64,
    err: &RefCell<Option<String>>,
) -> f64 {
    let note = |r: Result<(), String>| {
        if let Err(e) = r {
            err.borrow_mut().get_or_insert(e);
        }
    };
    match edits.step() {
        None => {
            let t = Instant::now();
            for _ in 0..PASSES {
                note(m.restore(black_box(snap), lib));
            }
            t.elapsed().as_nanos() as f64 / PASSES as f64
        }
        Some(step) => {
            let reps = 10;
            let mut ns = 0.0;
            for k in 0..reps {
                m.edit_flags(step, 2 + (k % 2) as u16);
                let t = Instant::now();
                let res = m.restore(black_box(snap), lib);
                ns += t.elapsed().as_nanos() as f64 - overhead;
                note(res);
            }
            ns / reps as f64
        }
    }
}
