//! Side-by-side ratio report for the tile, mesh and snapshot performance targets. Every ratio is measured in one run with its baseline, samples interleaved (A, B, A, B, …)
//! and the median taken, so machine noise hits both sides alike. Run:
//! `cargo run --release -p onav --example ratios`.

use std::hint::black_box;
use std::time::Instant;

use onav::{NavMeshSnapshot, SnapshotMode, TiledNavMesh};

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

#[path = "../benches/common/mod.rs"]
mod common;
use common::{edit, mesh, world};

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
