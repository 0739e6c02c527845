//! Peak allocation of restore on adversarial inputs (`spec/security.md`, "Allocation").
//!
//! A counting global allocator records the current and peak number of live heap bytes. For every
//! input of [`onav_testkit::adversarial_snapshots`] (the largest slot count of free slots,
//! maximum counts with too few bytes, errors after the largest allocations, many tiny tiles inline
//! and referenced, a large tile, truncations) this test measures the peak of live bytes above the
//! level before the call, for restore into a new mesh and for restore in place into a mesh with the
//! snapshot's parameters, and asserts
//!
//! ```text
//! peak ≤ ALLOC_FACTOR × (input length + library bytes) + ALLOC_SLACK
//! ```
//!
//! where library bytes is the total as-built size of the tiles in the library passed to restore
//! (referenced tiles are shared, never copied, and positions are unique, so each library tile is
//! used at most once).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};

use onav::{MeshParams, NavMeshSnapshot, TiledNavMesh};

/// Live heap bytes.
static CURRENT: AtomicUsize = AtomicUsize::new(0);
/// Largest value `CURRENT` reached since the last reset.
static PEAK: AtomicUsize = AtomicUsize::new(0);

struct Counting;

fn grew(n: usize) {
    let now = CURRENT.fetch_add(n, SeqCst) + n;
    PEAK.fetch_max(now, SeqCst);
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged; the counters
// are plain atomics and never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        CURRENT.fetch_sub(layout.size(), SeqCst);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            // Old and new blocks may both be live during the move: count the new one first.
            grew(new_size);
            CURRENT.fetch_sub(layout.size(), SeqCst);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The constant of the bound asserted (the largest measured ratio is printed by the test and
/// recorded in `spec/security.md`).
const ALLOC_FACTOR: usize = 64;
/// Fixed allowance for small inputs (error strings, rayon's per-call bookkeeping).
const ALLOC_SLACK: usize = 64 << 10;

/// The counters are global: tests that measure run one at a time (another test's allocations
/// would otherwise count towards this one's peak).
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Takes the measuring lock for the rest of the test.
fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Peak live bytes above the starting level while `f` runs (its result included).
fn peak_of<R>(f: impl FnOnce() -> R) -> (usize, R) {
    let base = CURRENT.load(SeqCst);
    PEAK.store(base, SeqCst);
    let r = f();
    (PEAK.load(SeqCst) - base, r)
}

#[test]
fn restore_peak_allocation_is_linear_in_input_plus_library() {
    let _serial = serial();
    let scale = std::env::var("ONAV_ALLOC_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let cases = onav_testkit::adversarial_snapshots(scale);
    // Warm up rayon's pool so its one-time allocations are not charged to the first case.
    let fx = onav_testkit::fixture();
    NavMeshSnapshot::restore(&fx.busy_full, &fx.library).unwrap();

    let mut worst = 0.0f64;
    println!(
        "{:<36} {:>10} {:>10} {:>12} {:>7} {:>12} {:>7}",
        "case", "input", "library", "peak new", "ratio", "peak inplace", "ratio"
    );
    for c in &cases {
        let denom = c.bytes.len() + c.library_bytes;
        let (peak_new, r) = peak_of(|| NavMeshSnapshot::restore(&c.bytes, &c.library));
        assert_eq!(r.is_ok(), c.valid, "{}: {:?}", c.name, r.err());
        drop(r);
        let params = MeshParams::read(&mut onav::bytes::Reader::new(&c.bytes[8..76], 8))
            .expect("adversarial inputs carry valid parameters");
        let mut target = TiledNavMesh::new(params);
        let (peak_in_place, r) = peak_of(|| target.restore(&c.bytes, &c.library));
        assert_eq!(r.is_ok(), c.valid, "{}: {:?}", c.name, r.err());
        drop(target);
        let ratio = |p: usize| p as f64 / denom as f64;
        println!(
            "{:<36} {:>10} {:>10} {:>12} {:>7.2} {:>12} {:>7.2}",
            c.name,
            c.bytes.len(),
            c.library_bytes,
            peak_new,
            ratio(peak_new),
            peak_in_place,
            ratio(peak_in_place)
        );
        for p in [peak_new, peak_in_place] {
            worst = worst.max(ratio(p));
            assert!(
                p <= ALLOC_FACTOR * denom + ALLOC_SLACK,
                "{}: peak {p} exceeds {ALLOC_FACTOR} × {denom} + {ALLOC_SLACK}",
                c.name
            );
        }
    }
    println!("largest ratio: {worst:.2} (bound asserted: {ALLOC_FACTOR})");
}

/// Formerly the open issue of `spec/security.md`: tiles of p identical triangles whose portal
/// edges all face each other would stitch into 2·p² links. Rule T20 rejects such tiles at parse
/// time (a side's portal edges must have disjoint interiors), so they never reach stitching.
#[test]
fn sliver_portals_are_rejected_before_stitching() {
    let _serial = serial();
    let (_, tiles) = onav_testkit::sliver_pair(2000);
    for t in &tiles {
        let e = t.build().expect_err("T20 rejects overlapping portal edges");
        assert_eq!(e.reason, onav::FormatReason::PortalOverlap);
    }
}

/// The tile cache's `ONTK` restore (`spec/tilecache.md` §6, `spec/security.md` §4): hostile
/// counts with few bytes, the most obstacles and the widest volumes that fit an input, a long
/// queue, a valid busy snapshot; restored in place into a copy of the fixture's busy cache
/// (whose library is the library of the bound: it is the cache's own).
#[test]
fn ontk_restore_peak_allocation_is_linear_in_input_plus_library() {
    let _serial = serial();
    use onav::SnapshotMode;
    use onav_testkit::ontk::{ObstacleRecord, VolumeRecord};
    use onav_testkit::{cache_fixture, OntkModel};

    let fx = cache_fixture();
    let base = OntkModel::parse(&fx.busy_snapshots[1]).unwrap();
    let lib_bytes: usize = fx
        .busy
        .library()
        .iter()
        .map(|t| t.as_built_bytes().len())
        .sum();
    let mut cases: Vec<(&str, Vec<u8>, bool)> = Vec::new();
    cases.push(("busy_referenced", fx.busy_snapshots[1].clone(), true));
    cases.push(("busy_full", fx.busy_snapshots[0].clone(), true));
    let mut m = base.clone();
    m.obstacle_count = 1 << 20;
    cases.push(("obstacle_count_max_few_bytes", m.encode(), false));
    let mut m = base.clone();
    m.volume_count = 1 << 20;
    cases.push(("volume_count_max_few_bytes", m.encode(), false));
    // 100 000 cylinders far away (valid: they touch no cell).
    let mut m = base.clone();
    m.obstacles = (1..=100_000u32)
        .map(|id| ObstacleRecord {
            id,
            shape: 1,
            values: vec![1e6 + f64::from(id), 0.0, 1e6, 1.0, 2.0],
        })
        .collect();
    m.next_obstacle = 100_001;
    m.fix_counts();
    cases.push(("obstacles_100k", m.encode(), true));
    let mut bad = m.clone();
    bad.obstacles.last_mut().unwrap().values[3] = -1.0;
    cases.push(("obstacles_100k_bad_last", bad.encode(), false));
    // 2 000 volumes of 256 corners.
    let mut m = base.clone();
    let ring: Vec<[f64; 2]> = (0..256)
        .map(|k| {
            let a = f64::from(k) * (std::f64::consts::TAU / 256.0);
            [1e6 + 100.0 * libm::cos(a), 1e6 + 100.0 * libm::sin(a)]
        })
        .collect();
    m.volumes = (1..=2_000u32)
        .map(|id| VolumeRecord {
            id,
            area: 5,
            min_y: 0.0,
            max_y: 1.0,
            corner_count: 256,
            corners: ring.clone(),
        })
        .collect();
    m.next_volume = 2_001;
    m.fix_counts();
    cases.push(("volumes_2000x256", m.encode(), true));
    // The longest queue: every cached cell.
    let mut m = base.clone();
    m.queue = fx.busy.cells().iter().map(|c| (c.column, c.row)).collect();
    m.fix_counts();
    cases.push(("queue_every_cell", m.encode(), true));
    let mut worst = 0.0f64;
    for (name, bytes, valid) in &cases {
        let denom = bytes.len() + lib_bytes;
        let mut c = fx.busy.clone();
        let (peak, r) = peak_of(|| c.restore(bytes));
        assert_eq!(r.is_ok(), *valid, "{name}: {:?}", r.err());
        let _ = c.snapshot(SnapshotMode::Referenced);
        let ratio = peak as f64 / denom as f64;
        println!(
            "{name:<36} {:>10} {:>10} {peak:>12} {ratio:>7.2}",
            bytes.len(),
            lib_bytes
        );
        worst = worst.max(ratio);
        assert!(
            peak <= ALLOC_FACTOR * denom + ALLOC_SLACK,
            "{name}: peak {peak} exceeds {ALLOC_FACTOR} × {denom} + {ALLOC_SLACK}"
        );
    }
    println!("largest ratio (ONTK): {worst:.2} (bound asserted: {ALLOC_FACTOR})");
}
