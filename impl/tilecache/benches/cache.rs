//! onav-tilecache's own timings of issue 15 item 6, without the C++ side (`bench/` compares with
//! DetourTileCache): on a demo mesh at the cheap settings (no detail sampling), a cylinder
//! (r 1.0, h 2.0, base 0.5 below a mesh point) added and settled; with 100 cylinders settled,
//! the `ONTK` Referenced write against a memcpy of its output and the `ONTK` restore in place
//! against the restore of the mesh snapshot it holds plus a memcpy of its lists. Medians over
//! rounds, the two sides of each ratio interleaved.
//!
//! `cargo bench -p onav-tilecache --bench cache [-- MESH TILE_SIZE]` (default dungeon 48).

use std::hint::black_box;
use std::time::Instant;

use onav::{NavMeshQuery, QueryFilter, SnapshotMode};
use onav_build3d::{Geometry, Settings, SettingsSpec};
use onav_tilecache::{Obstacle, TileCache};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// splitmix64 in [0, 1).
fn unit(s: &mut u64) -> f64 {
    *s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
}

/// Times `f` (ns per call, `reps` calls per sample) against `g`, interleaved, medians.
fn pair(rounds: usize, reps: usize, f: &mut dyn FnMut(), g: &mut dyn FnMut()) -> (f64, f64) {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for r in 0..rounds {
        for turn in 0..2 {
            let first = (r + turn) % 2 == 0;
            let t = Instant::now();
            for _ in 0..reps {
                if first {
                    f()
                } else {
                    g()
                }
            }
            let ns = t.elapsed().as_nanos() as f64 / reps as f64;
            if first {
                a.push(ns)
            } else {
                b.push(ns)
            }
        }
    }
    (median(a), median(b))
}

fn main() {
    // Everything runs inside a one-thread pool, as in `bench/` (Detour is single-threaded): a
    // rebuild's parallel map then runs on the calling thread, so no worker wakes per update and
    // an instruction counter on `update` sees the rebuilds.
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool")
        .install(run);
}

fn run() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let name = args.first().map_or("dungeon", String::as_str);
    let tile_size: u32 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(48);
    let path = format!(
        "{}/../../scenarios/build3d/meshes/{name}.obj",
        env!("CARGO_MANIFEST_DIR")
    );
    let g = Geometry::from_obj(&std::fs::read(&path).expect("mesh")).expect("parses");
    let s = Settings::new(SettingsSpec {
        tile_size,
        detail_sample_dist: 0.0,
        ..SettingsSpec::default()
    })
    .expect("settings");
    let mut cache = TileCache::new(&g, &s).expect("cache");
    let (bmin, bmax) = g.bounds();
    let mut spots = Vec::new();
    {
        let q = NavMeshQuery::new(cache.mesh(), 2048).expect("query");
        let filter = QueryFilter::new();
        let mut seed = 1u64;
        while spots.len() < 200 {
            let p = [0, 1, 2].map(|k| bmin[k] + (bmax[k] - bmin[k]) * unit(&mut seed));
            if let Ok(Some(n)) = q.find_nearest_poly(p, [2.0, 4.0, 2.0], &filter) {
                spots.push([n.point[0], n.point[1] - 0.5, n.point[2]]);
            }
        }
    }
    let cyl = |p: [f64; 3]| Obstacle::cylinder(p, 1.0, 2.0).expect("valid");

    // With ONAV_PROFILE_ONTK set to `none` or a number of cylinders, only the `ONTK` figures'
    // four sides run, each in a function of its own, for an instruction counter
    // (`callgrind_annotate --inclusive=yes`).
    if let Some(n) = std::env::var_os("ONAV_PROFILE_ONTK") {
        let n: usize = n.to_str().and_then(|s| s.parse().ok()).unwrap_or(0);
        for p in spots.iter().take(n) {
            cache.add_obstacle(cyl(*p)).expect("add");
        }
        cache.update_all().expect("update");
        profile_ontk(&mut cache, cyl(spots[0]), 2000);
        return;
    }

    // A cylinder added and settled (then removed and settled, untimed). With
    // ONAV_PROFILE_ADDS set, the cache is put back by a copy of the fresh one instead, so that
    // every `update` an instruction counter sees settles an addition, and the program stops
    // after this figure.
    let profile = std::env::var_os("ONAV_PROFILE_ADDS").is_some();
    let fresh = cache.clone();
    let mut adds = Vec::new();
    let mut cells = 0;
    for p in &spots {
        let t = Instant::now();
        let id = cache.add_obstacle(cyl(*p)).expect("add");
        let queued = !cache.is_up_to_date();
        let r = cache.update_all().expect("update");
        let ns = t.elapsed().as_nanos() as f64;
        if profile {
            cache.clone_from(&fresh);
        } else {
            cache.remove_obstacle(id).expect("remove");
            cache.update_all().expect("update");
        }
        if queued {
            adds.push(ns);
            cells += r.cells;
        }
    }
    let n_adds = adds.len();
    println!(
        "{name} {tile_size}: add+settle median {:.1} us ({n_adds} cylinders, {:.2} cells each)",
        median(adds) / 1e3,
        cells as f64 / n_adds as f64
    );
    if profile {
        return;
    }

    // 100 cylinders settled by one update.
    for p in spots.iter().take(100) {
        cache.add_obstacle(cyl(*p)).expect("add");
    }
    cache.update_all().expect("update");
    let snap = cache.snapshot(SnapshotMode::Referenced);
    let (w, m) = pair(
        31,
        200,
        &mut || {
            drop(black_box(
                black_box(&cache).snapshot(SnapshotMode::Referenced),
            ))
        },
        &mut || drop(black_box(black_box(&snap).clone())),
    );
    println!(
        "ONTK write {w:.0} ns, memcpy {m:.0} ns: {:.2}x ({} bytes)",
        w / m,
        snap.len()
    );

    // The state after one more obstacle (same spot as the first), restored from `snap`.
    let RestoreSides {
        moved,
        moved_mesh,
        lib,
        mesh_snap,
        lists,
    } = restore_sides(&mut cache, &snap, cyl(spots[0]));
    let mut a = moved.clone();
    let mut m = moved_mesh.clone();
    let (mut ta, mut tm) = (Vec::new(), Vec::new());
    for r in 0..201 {
        for turn in 0..2 {
            if (r + turn) % 2 == 0 {
                a.clone_from(&moved);
                let t = Instant::now();
                a.restore(&snap).expect("restore");
                ta.push(t.elapsed().as_nanos() as f64);
            } else {
                m.clone_from(&moved_mesh);
                let t = Instant::now();
                m.restore(&mesh_snap, &lib).expect("mesh restore");
                drop(black_box(black_box(&lists).clone()));
                tm.push(t.elapsed().as_nanos() as f64);
            }
        }
    }
    let (ta, tm) = (median(ta), median(tm));
    println!(
        "ONTK restore {ta:.0} ns, mesh restore + lists memcpy {tm:.0} ns: {:.2}x",
        ta / tm
    );
}

/// The restore sides of the `ONTK` figures: the cache and its mesh after `extra` was added to
/// the state `snap` holds and settled (each restore puts a copy of them back to that state),
/// the mesh snapshot of that state, the library, and the lists' bytes of `snap` (between its
/// 16-byte head and the empty queue's count and the mesh snapshot's length, 8 bytes).
struct RestoreSides {
    moved: TileCache,
    moved_mesh: onav::TiledNavMesh,
    lib: onav::TileLibrary,
    mesh_snap: Vec<u8>,
    lists: Vec<u8>,
}

fn restore_sides(cache: &mut TileCache, snap: &[u8], extra: Obstacle) -> RestoreSides {
    let mesh_snap = cache.mesh().snapshot(SnapshotMode::Referenced);
    let lists = snap[16..snap.len() - 8 - mesh_snap.len()].to_vec();
    cache.add_obstacle(extra).expect("add");
    cache.update_all().expect("update");
    RestoreSides {
        moved: cache.clone(),
        moved_mesh: cache.mesh().clone(),
        lib: cache.library().clone(),
        mesh_snap,
        lists,
    }
}

#[inline(never)]
fn ontk_write(c: &TileCache) -> Vec<u8> {
    c.snapshot(SnapshotMode::Referenced)
}

#[inline(never)]
fn ontk_memcpy(snap: &[u8]) -> Vec<u8> {
    snap.to_vec()
}

#[inline(never)]
fn ontk_restore(c: &mut TileCache, snap: &[u8]) {
    c.restore(snap).expect("restore");
}

#[inline(never)]
fn ontk_mesh_restore(
    m: &mut onav::TiledNavMesh,
    snap: &[u8],
    lib: &onav::TileLibrary,
    lists: &[u8],
) -> Vec<u8> {
    m.restore(snap, lib).expect("mesh restore");
    lists.to_vec()
}

/// The four sides of the `ONTK` figures, `reps` times each: the write and a memcpy of its
/// output in the cache's state, then, after `extra` was added and settled, the restore in place
/// and the mesh restore plus a memcpy of the lists.
fn profile_ontk(cache: &mut TileCache, extra: Obstacle, reps: usize) {
    let snap = cache.snapshot(SnapshotMode::Referenced);
    for _ in 0..reps {
        drop(black_box(ontk_write(black_box(cache))));
    }
    for _ in 0..reps {
        drop(black_box(ontk_memcpy(black_box(&snap))));
    }
    let RestoreSides {
        moved,
        moved_mesh,
        lib,
        mesh_snap,
        lists,
    } = restore_sides(cache, &snap, extra);
    let mut a = moved.clone();
    let mut m = moved_mesh.clone();
    for _ in 0..reps {
        a.clone_from(&moved);
        ontk_restore(black_box(&mut a), black_box(&snap));
    }
    for _ in 0..reps {
        m.clone_from(&moved_mesh);
        drop(black_box(ontk_mesh_restore(
            black_box(&mut m),
            black_box(&mesh_snap),
            &lib,
            &lists,
        )));
    }
    println!(
        "profiled: {} B snapshot, {} B mesh snapshot, {} B lists, {reps} reps",
        snap.len(),
        mesh_snap.len(),
        lists.len()
    );
}
