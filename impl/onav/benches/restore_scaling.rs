//! Restore time against input size (`spec/security.md`, "Time"): snapshots of 1k, 10k, 100k
//! and 1M slots, restored into a new mesh. Three families:
//!
//! - `free`: every slot free (the most slots per byte);
//! - `occupied_referenced`: every slot holds a one-quad tile named by content id (library lookups,
//!   edits, stitching);
//! - `occupied_full`: every slot holds a one-quad tile inline (each tile parsed and hashed too).
//!
//! Time per slot stays flat when restore is linear in the input. Throughput is reported in slots.
//! Set `ONAV_SCALING_MAX` (e.g. `100000`) to skip the larger sizes.
//!
//! A second group, `restore_landing_budget`, times the stitching cost that landing off-mesh links
//! can have (`spec/security.md` §5): `at_budget`, worlds of 1, 4 and 16 cells of 32 × 32 quads
//! with 146 links per tile, each tile close to its landing budget (format rule K17) — time per
//! input byte stays flat; and `over_budget`, a single tile of q × q quads with q² links
//! (`dense_link_tile`), far over its budget, which restore rejects before stitching.
//! Throughput is in input bytes.
//!
//! A third group, `rollback_in_place`, times the in-place restore's rollback path
//! (`spec/snapshot.md` S21) on the same one-quad worlds of 1k and 10k tiles: each iteration
//! edits the flags of every 7th tile's polygon (not timed apart: the edit is part of a frame) and
//! restores the snapshot taken before, Referenced (`referenced`) and Full (`full`, where the
//! tiles' bytes are compared with the slots' own, not parsed). Throughput is in slots.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use onav::{NavMeshSnapshot, PolyIndex, SnapshotMode, TileLibrary, TiledNavMesh, WorldSpec};
use onav_testkit::{dense_link_tile, mesh_of, snapshot_of, tiny_tiles};

const SIZES: [u32; 4] = [1_000, 10_000, 100_000, 1_000_000];

fn sizes() -> Vec<u32> {
    let max = std::env::var("ONAV_SCALING_MAX")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(u32::MAX);
    SIZES.into_iter().filter(|&n| n <= max).collect()
}

fn restore_scaling(c: &mut Criterion) {
    let mut g = c.benchmark_group("restore_scaling");
    g.sample_size(10);
    let empty = TileLibrary::new();
    for n in sizes() {
        g.throughput(Throughput::Elements(u64::from(n)));
        let free = TiledNavMesh::new(WorldSpec::default().params(n)).snapshot(SnapshotMode::Full);
        g.bench_with_input(BenchmarkId::new("free", n), &free, |b, s| {
            b.iter(|| NavMeshSnapshot::restore(black_box(s), &empty).unwrap())
        });
        drop(free);
        let (w, tiles) = tiny_tiles(n);
        let m = mesh_of(&w.params(n), &tiles).expect("valid tiles");
        let lib = TileLibrary::from_tiles(&tiles);
        drop(tiles);
        let referenced = m.snapshot(SnapshotMode::Referenced);
        g.bench_with_input(
            BenchmarkId::new("occupied_referenced", n),
            &referenced,
            |b, s| b.iter(|| NavMeshSnapshot::restore(black_box(s), &lib).unwrap()),
        );
        drop(referenced);
        let full = m.snapshot(SnapshotMode::Full);
        drop(m);
        g.bench_with_input(BenchmarkId::new("occupied_full", n), &full, |b, s| {
            b.iter(|| NavMeshSnapshot::restore(black_box(s), &empty).unwrap())
        });
    }
    g.finish();
}

fn restore_landing_budget(c: &mut Criterion) {
    let mut g = c.benchmark_group("restore_landing_budget");
    g.sample_size(10);
    let empty = TileLibrary::new();
    for side in [1i32, 2, 4] {
        let w = WorldSpec {
            columns: side,
            rows: side,
            quads: 32,
            links_per_tile: 146,
            ..WorldSpec::default()
        };
        let mut m = TiledNavMesh::new(w.params_fitting());
        for t in w.tiles() {
            m.add_tile(t).expect("within the landing budget");
        }
        let s = m.snapshot(SnapshotMode::Full);
        g.throughput(Throughput::Bytes(s.len() as u64));
        g.bench_with_input(BenchmarkId::new("at_budget", side * side), &s, |b, s| {
            b.iter(|| NavMeshSnapshot::restore(black_box(s), &empty).unwrap())
        });
    }
    for q in [64u32, 96] {
        let (w, t) = dense_link_tile(q);
        let s = snapshot_of(&w.params(1), &[t], SnapshotMode::Full);
        g.throughput(Throughput::Bytes(s.len() as u64));
        g.bench_with_input(BenchmarkId::new("over_budget", q), &s, |b, s| {
            b.iter(|| NavMeshSnapshot::restore(black_box(s), &empty).unwrap_err())
        });
    }
    g.finish();
}

fn rollback_in_place(c: &mut Criterion) {
    let mut g = c.benchmark_group("rollback_in_place");
    g.sample_size(10);
    for n in sizes().into_iter().filter(|&n| n <= 10_000) {
        g.throughput(Throughput::Elements(u64::from(n)));
        let (w, tiles) = tiny_tiles(n);
        let lib = TileLibrary::from_tiles(&tiles);
        let mut m = mesh_of(&w.params(n), &tiles).expect("valid tiles");
        drop(tiles);
        let refs: Vec<_> = m
            .tiles()
            .step_by(7)
            .map(|(r, _)| r.poly(PolyIndex(0)))
            .collect();
        for mode in [SnapshotMode::Referenced, SnapshotMode::Full] {
            let snap = m.snapshot(mode);
            // As in a rollback loop, the mesh has written its Referenced records.
            let _ = m.snapshot(SnapshotMode::Referenced);
            let name = match mode {
                SnapshotMode::Referenced => "referenced",
                SnapshotMode::Full => "full",
            };
            let mut flags = 2;
            g.bench_with_input(BenchmarkId::new(name, n), &snap, |b, s| {
                b.iter(|| {
                    flags ^= 1;
                    for &r in &refs {
                        m.set_poly_flags(r, flags).expect("own polygon");
                    }
                    m.restore(black_box(s), &lib).expect("a rollback");
                })
            });
        }
    }
    g.finish();
}

criterion_group!(
    benches,
    restore_scaling,
    restore_landing_budget,
    rollback_in_place
);
criterion_main!(benches);
