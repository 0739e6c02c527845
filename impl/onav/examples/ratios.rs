//! Side-by-side ratio report for the tile, mesh and snapshot performance targets. Every ratio is measured in one run with its baseline, samples interleaved (A, B, A, B, …)
//! and the median taken, so machine noise hits both sides alike. Run:
//! `cargo run --release -p onav --example ratios`.

use std::hint::black_box;
use std::time::Instant;

use onav::{
    NavMeshQuery, NavMeshSnapshot, NavTile, PolyIndex, QueryFilter, RaycastOptions, SnapshotMode,
    TiledNavMesh,
};

/// Median time in ns of `f` over `samples` samples of `iters` calls each, interleaved with `g`.
fn pair(samples: usize, iters: usize, mut f: impl FnMut(), mut g: impl FnMut()) -> (f64, f64) {
    let mut a = Vec::with_capacity(samples);
    let mut b = Vec::with_capacity(samples);
    for _ in 0..samples {
        let t = Instant::now();
        for _ in 0..iters {
            f();
        }
        a.push(t.elapsed().as_nanos() as f64 / iters as f64);
        let t = Instant::now();
        for _ in 0..iters {
            g();
        }
        b.push(t.elapsed().as_nanos() as f64 / iters as f64);
    }
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
    (a[samples / 2], b[samples / 2])
}

/// As [`pair`], one call per sample, with `prepare` run untimed before each call of `f` (the
/// edits a rollback undoes: subtracting separately timed edits from edits + rollback left a
/// difference of two noisy medians, larger than the rollback itself).
fn pair_prepared(
    samples: usize,
    mut prepare: impl FnMut(),
    mut f: impl FnMut(),
    mut g: impl FnMut(),
) -> (f64, f64) {
    let mut a = Vec::with_capacity(samples);
    let mut b = Vec::with_capacity(samples);
    for _ in 0..samples {
        prepare();
        let t = Instant::now();
        f();
        a.push(t.elapsed().as_nanos() as f64);
        let t = Instant::now();
        g();
        b.push(t.elapsed().as_nanos() as f64);
    }
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
    (a[samples / 2], b[samples / 2])
}

#[path = "../benches/common/mod.rs"]
mod common;
use common::{centre_pairs, edit, mesh, world};

fn main() {
    println!(
        "onav ratio report (median of interleaved samples; ratios are what the targets bound)\n"
    );

    // Tile parse + validate, and content id, against raw SHA-256 of the same bytes.
    let w = world(4, 8);
    let tile = w.tile(onav::TilePos {
        column: 1,
        row: 1,
        layer: 0,
    });
    let bytes = tile.as_built_bytes().to_vec();
    let (parse, sha) = pair(
        41,
        200,
        || {
            drop(black_box(
                onav::NavTile::from_bytes(black_box(&bytes)).unwrap(),
            ))
        },
        || {
            black_box(onav::TileContentId::of_bytes(black_box(&bytes)));
        },
    );
    let mbps = |ns: f64| bytes.len() as f64 / ns * 1e3;
    println!("tile parse+validate: {:.0} ns for {} B ({:.0} MB/s); raw sha2 {:.0} ns ({:.0} MB/s); parse/sha2 = {:.2}", parse, bytes.len(), mbps(parse), sha, mbps(sha), parse / sha);
    let (cid, _) = pair(
        41,
        100_000,
        || {
            black_box(black_box(&tile).content_id());
        },
        || {},
    );
    println!("content_id() on a parsed tile: {cid:.1} ns (hashed at the first call and then cached; the hash is SHA-256 of the bytes, the same cost as raw sha2 above)");

    // add_tile + stitch per polygon.
    let w = world(16, 4);
    let tiles = w.tiles();
    let polys: u64 = tiles.iter().map(|t| u64::from(t.poly_count())).sum();
    let (add, _) = pair(
        11,
        1,
        || {
            let mut m = TiledNavMesh::new(w.params_fitting());
            for t in &tiles {
                m.add_tile(t.clone()).unwrap();
            }
            black_box(m);
        },
        || {},
    );
    println!(
        "add_tile + incremental stitch: {:.0} ns per polygon ({} tiles, {} polygons)\n",
        add / polys as f64,
        tiles.len(),
        polys
    );

    // Parse + add_tile against parse alone, per tile: what adding (slot, links, stitching) costs
    // on top of reading and validating (issue 13's parse + add_tile; bench/ compares it with
    // Detour's alloc + init + addTile).
    let bytes: Vec<Vec<u8>> = tiles.iter().map(|t| t.as_built_bytes().to_vec()).collect();
    let (parse_add, parse_only) = pair(
        11,
        1,
        || {
            let mut m = TiledNavMesh::new(w.params_fitting());
            for b in &bytes {
                m.add_tile(NavTile::from_bytes(b).unwrap()).unwrap();
            }
            black_box(m);
        },
        || {
            for b in &bytes {
                drop(black_box(NavTile::from_bytes(black_box(b)).unwrap()));
            }
        },
    );
    let n = tiles.len() as f64;
    println!(
        "parse + add_tile: {:.0} ns per tile; parse alone {:.0} ns; ratio {:.2}\n",
        parse_add / n,
        parse_only / n,
        parse_add / parse_only
    );

    // Snapshot writes against memcpy of their own output.
    for quads in [4, 12] {
        let w = world(32, quads);
        let (mut m, _) = mesh(&w);
        let plain = m.snapshot(SnapshotMode::Referenced);
        let (wr, cp) = pair(
            41,
            20,
            || drop(black_box(m.snapshot(SnapshotMode::Referenced))),
            || drop(black_box(black_box(&plain).clone())),
        );
        println!(
            "Referenced write, no edits or switches: {wr:.0} ns, memcpy {cp:.0} ns, ratio {:.2}",
            wr / cp
        );
        edit(&mut m, 1);
        let per_tile =
            m.tiles().map(|(_, t)| t.poly_count() as f64).sum::<f64>() / m.tile_count() as f64;
        for mode in [SnapshotMode::Referenced, SnapshotMode::Full] {
            let out = m.snapshot(mode);
            let (wr, cp) = pair(
                41,
                20,
                || drop(black_box(m.snapshot(mode))),
                // A memcpy into a fresh allocation that is freed at once: the writer's own pattern
                // (allocate, fill, free; one output buffer alive at a time). Assigning the copy
                // over a kept one would hold two large buffers and alternate between them, a
                // bigger working set that made the baseline ~20 % slower for Full outputs of 2 and
                // 16 MB, i.e. flattered the writer.
                || drop(black_box(black_box(&out).clone())),
            );
            println!("{mode:?} write, {} tiles, {per_tile:.0} polys/tile: {wr:.0} ns, memcpy of its {} B output {cp:.0} ns, ratio {:.2}", m.tile_count(), out.len(), wr / cp);
            if mode == SnapshotMode::Full {
                // Not a target, the reason for the mesh's packs (`pack.rs`): the tiles' bytes
                // alone, gathered from each tile's own allocation into one exactly sized buffer
                // (one memcpy per tile, nothing else). The writer copies them from the packs,
                // where each run of 32 slots keeps them side by side.
                let tiles: Vec<&[u8]> = m.tiles().map(|(_, t)| t.as_built_bytes()).collect();
                let (ga, cp) = pair(
                    41,
                    20,
                    || {
                        let mut v = Vec::with_capacity(out.len());
                        for t in &tiles {
                            v.extend_from_slice(t);
                        }
                        drop(black_box(v));
                    },
                    || drop(black_box(black_box(&out).clone())),
                );
                println!("  (without packs, the tiles' bytes alone gathered from the tiles: {ga:.0} ns, memcpy {cp:.0} ns, ratio {:.2})", ga / cp);
            }
        }
    }
    println!();

    // Rollback: in-place Referenced restore differing only in edits and switches, against a full
    // restore of the same mesh (Referenced into a new mesh: every tile resolved and stitched).
    let w = world(32, 4);
    let (mut m, lib) = mesh(&w);
    edit(&mut m, 1);
    let snap = m.snapshot(SnapshotMode::Referenced);
    let mut other = m.clone();
    let (roll, full) = pair(
        15,
        3,
        || {
            edit(&mut other, 2);
            other.restore(black_box(&snap), &lib).unwrap();
        },
        || {
            drop(black_box(
                NavMeshSnapshot::restore(black_box(&snap), &lib).unwrap(),
            ))
        },
    );
    assert!(
        other.snapshot(SnapshotMode::Referenced) == snap,
        "rollback must restore the snapshot exactly"
    );
    let (editing, _) = pair(15, 3, || edit(&mut other, 2), || {});
    let roll = roll - editing;
    println!("rollback (in-place Referenced, edits/switches only), 1024 tiles: {roll:.0} ns; full restore {full:.0} ns; ratio {:.3}", roll / full);

    issue_13_ratios();

    // Restore cost against size.
    println!("\nrestore (Full snapshot into a new mesh) against size:");
    for n in [8, 32, 128] {
        let w = world(n, 4);
        let (m, lib) = mesh(&w);
        let snap = m.snapshot(SnapshotMode::Full);
        let (t, _) = pair(
            5,
            1,
            || drop(black_box(NavMeshSnapshot::restore(&snap, &lib).unwrap())),
            || {},
        );
        println!(
            "  {:>6} tiles, {:>9} B: {:>12.0} ns, {:.1} ns/byte, {:.0} ns/tile",
            m.tile_count(),
            snap.len(),
            t,
            t / snap.len() as f64,
            t / m.tile_count() as f64
        );
    }
}

/// The onav side of issue 13's ratios (bench/ holds the Detour side, same workloads on real
/// tiles): allocation-free query calls, a Full restore against building the same mesh, and
/// rollbacks against a full restore and against the comparison of the snapshot bytes that a Full
/// rollback cannot skip.
fn issue_13_ratios() {
    println!("\nissue 13 (onav side; bench/ compares with Detour):");
    let w = world(16, 4);
    let (m, lib) = mesh(&w);
    let filter = QueryFilter::new();
    let q = NavMeshQuery::new(&m, 4096).unwrap();
    let mut qi = q.clone();
    // Seeded tile-centre pairs, each point on the surface under it.
    let pairs = centre_pairs(&q, &w, &filter, 64);
    let mut corridor = Vec::new();
    let (owned, into) = pair(
        41,
        1,
        || {
            for (a, b) in &pairs {
                black_box(
                    q.find_path(a.poly, b.poly, a.point, b.point, &filter)
                        .unwrap(),
                );
            }
        },
        || {
            for (a, b) in &pairs {
                black_box(
                    qi.find_path_into(a.poly, b.poly, a.point, b.point, &filter, &mut corridor)
                        .unwrap(),
                );
            }
        },
    );
    let k = pairs.len() as f64;
    println!(
        "  find_path: {:.0} ns per pair; find_path_into (no allocation) {:.0} ns; ratio {:.2}",
        owned / k,
        into / k,
        owned / into
    );
    let mut visited = Vec::new();
    let (owned, into) = pair(
        41,
        4,
        || {
            for (a, b) in &pairs {
                black_box(
                    q.raycast(a.poly, a.point, b.point, &filter, RaycastOptions::default())
                        .unwrap(),
                );
            }
        },
        || {
            for (a, b) in &pairs {
                black_box(
                    qi.raycast_into(
                        a.poly,
                        a.point,
                        b.point,
                        &filter,
                        RaycastOptions::default(),
                        &mut visited,
                    )
                    .unwrap(),
                );
            }
        },
    );
    println!(
        "  raycast: {:.0} ns per ray; raycast_into (no allocation) {:.0} ns; ratio {:.2}",
        owned / k,
        into / k,
        owned / into
    );

    // Restore into a new mesh against building it from the same tile bytes.
    let full = m.snapshot(SnapshotMode::Full);
    let bytes: Vec<Vec<u8>> = m
        .tiles()
        .map(|(_, t)| t.as_built_bytes().to_vec())
        .collect();
    let (restore, build) = pair(
        11,
        1,
        || {
            drop(black_box(
                NavMeshSnapshot::restore(black_box(&full), &lib).unwrap(),
            ))
        },
        || {
            let mut n = TiledNavMesh::new(w.params_fitting());
            for b in &bytes {
                n.add_tile(NavTile::from_bytes(b).unwrap()).unwrap();
            }
            black_box(n);
        },
    );
    println!(
        "  Full restore into a new mesh, {} tiles: {restore:.0} ns; parse + add_tile of its tiles {build:.0} ns; ratio {:.2}",
        m.tile_count(),
        restore / build
    );

    // Rollbacks in place: every polygon edited (Referenced), and a Full snapshot with every 7th
    // tile edited against comparing the snapshot's bytes (the Full path must read them all).
    let refs: Vec<_> = m
        .tiles()
        .flat_map(|(r, t)| (0..t.ground_poly_count()).map(move |i| r.poly(PolyIndex(i))))
        .collect();
    let edit_all = |x: &mut TiledNavMesh, k: u8| {
        for (i, r) in refs.iter().enumerate() {
            x.set_poly_area(*r, (i as u8).wrapping_add(k) % 60 + 1)
                .unwrap();
        }
    };
    let referenced = m.snapshot(SnapshotMode::Referenced);
    let other = std::cell::RefCell::new(m.clone());
    let (roll, new) = pair_prepared(
        41,
        || edit_all(&mut other.borrow_mut(), 2),
        || {
            other
                .borrow_mut()
                .restore(black_box(&referenced), &lib)
                .unwrap()
        },
        || {
            drop(black_box(
                NavMeshSnapshot::restore(black_box(&referenced), &lib).unwrap(),
            ))
        },
    );
    assert!(other.borrow().snapshot(SnapshotMode::Referenced) == referenced);
    println!(
        "  rollback Referenced, every polygon edited ({} polygons): {roll:.0} ns; full restore {new:.0} ns; ratio {:.3}",
        refs.len(),
        roll / new
    );
    let mut edited = m.clone();
    edit(&mut edited, 1);
    let full = edited.snapshot(SnapshotMode::Full);
    let copy = full.clone();
    let other = std::cell::RefCell::new(edited.clone());
    let (roll, cmp) = pair_prepared(
        101,
        || edit(&mut other.borrow_mut(), 2),
        || other.borrow_mut().restore(black_box(&full), &lib).unwrap(),
        || {
            black_box(black_box(&full) == black_box(&copy));
        },
    );
    assert!(other.borrow().snapshot(SnapshotMode::Full) == full);
    println!(
        "  rollback Full, every 7th tile edited: {roll:.0} ns; comparing its {} B with a copy {cmp:.0} ns (the floor); ratio {:.2}",
        full.len(),
        roll / cmp
    );
}
