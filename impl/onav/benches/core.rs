//! Criterion benchmarks of the tile format, the mesh and snapshots. The targets
//! are ratios; `cargo run --release -p onav --example ratios` measures them side by side.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use onav::{NavMeshSnapshot, NavTile, SnapshotMode, TileContentId, TilePos, TiledNavMesh};

#[path = "common/mod.rs"]
mod common;
use common::{edit, mesh, world};

fn tiles(c: &mut Criterion) {
    let t = world(4, 8).tile(TilePos {
        column: 1,
        row: 1,
        layer: 0,
    });
    let bytes = t.as_built_bytes().to_vec();
    let mut g = c.benchmark_group("tile");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("parse_validate", |b| {
        b.iter(|| NavTile::from_bytes(black_box(&bytes)).unwrap())
    });
    g.bench_function("sha256_raw", |b| {
        b.iter(|| TileContentId::of_bytes(black_box(&bytes)))
    });
    g.finish();
    c.bench_function("tile/content_id_cached", |b| {
        b.iter(|| black_box(&t).content_id())
    });
}

fn add_tiles(c: &mut Criterion) {
    let w = world(16, 4);
    let ts = w.tiles();
    let polys: u64 = ts.iter().map(|t| u64::from(t.poly_count())).sum();
    let mut g = c.benchmark_group("mesh");
    g.throughput(Throughput::Elements(polys));
    g.sample_size(10);
    g.bench_function("add_tile_stitch_per_polygon", |b| {
        b.iter_batched(
            || (TiledNavMesh::new(w.params_fitting()), ts.clone()),
            |(mut m, ts)| {
                for t in ts {
                    m.add_tile(t).unwrap();
                }
                m
            },
            BatchSize::LargeInput,
        )
    });
    g.finish();
}

fn snapshots(c: &mut Criterion) {
    let mut g = c.benchmark_group("snapshot");
    g.sample_size(20);
    for quads in [4u32, 12] {
        let w = world(32, quads);
        let (mut m, _) = mesh(&w);
        edit(&mut m, 1);
        for mode in [SnapshotMode::Referenced, SnapshotMode::Full] {
            let out = m.snapshot(mode);
            g.throughput(Throughput::Bytes(out.len() as u64));
            g.bench_function(format!("write_{mode:?}_q{quads}"), |b| {
                b.iter(|| m.snapshot(black_box(mode)))
            });
            g.bench_function(format!("memcpy_{mode:?}_q{quads}"), |b| {
                b.iter(|| black_box(&out).clone())
            });
        }
    }
    let w = world(32, 4);
    let (mut m, lib) = mesh(&w);
    edit(&mut m, 1);
    let snap = m.snapshot(SnapshotMode::Referenced);
    g.bench_function("restore_rollback_in_place_1024", |b| {
        let mut other = m.clone();
        b.iter(|| {
            edit(&mut other, 2);
            other.restore(black_box(&snap), &lib).unwrap();
        })
    });
    g.bench_function("restore_full_new_1024", |b| {
        b.iter(|| NavMeshSnapshot::restore(black_box(&snap), &lib).unwrap())
    });
    g.finish();

    let mut g = c.benchmark_group("restore_scaling");
    g.sample_size(10);
    for n in [8, 32, 128] {
        let (m, lib) = mesh(&world(n, 4));
        let snap = m.snapshot(SnapshotMode::Full);
        g.throughput(Throughput::Bytes(snap.len() as u64));
        g.bench_function(format!("full_{}_tiles", n * n), |b| {
            b.iter(|| NavMeshSnapshot::restore(black_box(&snap), &lib).unwrap())
        });
    }
    g.finish();
}

criterion_group!(benches, tiles, add_tiles, snapshots);
criterion_main!(benches);
