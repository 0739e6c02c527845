//! Criterion benchmarks of the tile format, the mesh and snapshots. The targets
//! are ratios; `cargo run --release -p onav --example ratios` measures them side by side.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use onav::{
    NavMeshQuery, NavMeshSnapshot, NavTile, PolyIndex, QueryFilter, RaycastOptions, SnapshotMode,
    TileContentId, TilePos, TiledNavMesh,
};

#[path = "common/mod.rs"]
mod common;
use common::{centre_pairs, edit, mesh, world};

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

/// Issue 13's ratios, each as a pair of benchmarks on the workload of `examples/ratios`
/// (`issue_13_ratios`): parse + add_tile against parse alone; find_path and raycast against their
/// allocation-free `_into` forms; a Full restore into a new mesh against parse + add_tile of its
/// tiles; rollbacks in place against a full restore (Referenced, every polygon edited) and against
/// comparing the snapshot's bytes with a copy (Full, every 7th tile edited). The ratio of a pair is
/// the quotient of its two times.
fn issue_13(c: &mut Criterion) {
    let w = world(16, 4);
    let (m, lib) = mesh(&w);
    let bytes: Vec<Vec<u8>> = m
        .tiles()
        .map(|(_, t)| t.as_built_bytes().to_vec())
        .collect();
    let parse_add = || {
        let mut n = TiledNavMesh::new(w.params_fitting());
        for b in &bytes {
            n.add_tile(NavTile::from_bytes(b).unwrap()).unwrap();
        }
        n
    };
    let mut g = c.benchmark_group("issue13");
    g.sample_size(10);
    g.bench_function("parse_add_tile_256", |b| b.iter(parse_add));
    g.bench_function("parse_only_256", |b| {
        b.iter(|| {
            for t in &bytes {
                drop(black_box(NavTile::from_bytes(black_box(t)).unwrap()));
            }
        })
    });

    // The ratio report's 64 seeded pairs of tile centres, each point on the surface under it.
    let filter = QueryFilter::new();
    let q = NavMeshQuery::new(&m, 4096).unwrap();
    let pairs = centre_pairs(&q, &w, &filter, 64);
    g.bench_function("find_path_64", |b| {
        b.iter(|| {
            for (a, e) in &pairs {
                black_box(
                    q.find_path(a.poly, e.poly, a.point, e.point, &filter)
                        .unwrap(),
                );
            }
        })
    });
    let mut qi = q.clone();
    let mut corridor = Vec::new();
    g.bench_function("find_path_into_64", |b| {
        b.iter(|| {
            for (a, e) in &pairs {
                black_box(
                    qi.find_path_into(a.poly, e.poly, a.point, e.point, &filter, &mut corridor)
                        .unwrap(),
                );
            }
        })
    });
    g.bench_function("raycast_64", |b| {
        b.iter(|| {
            for (a, e) in &pairs {
                black_box(
                    q.raycast(a.poly, a.point, e.point, &filter, RaycastOptions::default())
                        .unwrap(),
                );
            }
        })
    });
    let mut visited = Vec::new();
    g.bench_function("raycast_into_64", |b| {
        b.iter(|| {
            for (a, e) in &pairs {
                black_box(
                    qi.raycast_into(
                        a.poly,
                        a.point,
                        e.point,
                        &filter,
                        RaycastOptions::default(),
                        &mut visited,
                    )
                    .unwrap(),
                );
            }
        })
    });

    // Full restore into a new mesh; its baseline is parse_add_tile_256 above (the same tiles).
    let full = m.snapshot(SnapshotMode::Full);
    g.bench_function("restore_full_new_256", |b| {
        b.iter(|| NavMeshSnapshot::restore(black_box(&full), &lib).unwrap())
    });

    // Rollback in place, every polygon edited (Referenced); baseline: a full restore of it. The
    // edits are made untimed before each rollback (they cost more than the rollback).
    let refs: Vec<_> = m
        .tiles()
        .flat_map(|(r, t)| (0..t.ground_poly_count()).map(move |i| r.poly(PolyIndex(i))))
        .collect();
    let edit_all = |x: &mut TiledNavMesh| {
        for (i, r) in refs.iter().enumerate() {
            x.set_poly_area(*r, (i as u8).wrapping_add(2) % 60 + 1)
                .unwrap();
        }
    };
    let referenced = m.snapshot(SnapshotMode::Referenced);
    let mut other = m.clone();
    g.bench_function("rollback_referenced_all_edited_256", |b| {
        b.iter_custom(|iters| {
            let mut spent = std::time::Duration::ZERO;
            for _ in 0..iters {
                edit_all(&mut other);
                let t = std::time::Instant::now();
                other.restore(black_box(&referenced), &lib).unwrap();
                spent += t.elapsed();
            }
            spent
        })
    });
    g.bench_function("restore_referenced_new_256", |b| {
        b.iter(|| NavMeshSnapshot::restore(black_box(&referenced), &lib).unwrap())
    });

    // Rollback in place of a Full snapshot, every 7th tile edited (untimed); baseline: comparing
    // the snapshot's bytes with a copy, which a Full rollback cannot skip.
    let mut edited = m.clone();
    edit(&mut edited, 1);
    let full = edited.snapshot(SnapshotMode::Full);
    let copy = full.clone();
    let mut other = edited.clone();
    g.bench_function("rollback_full_every_7th_256", |b| {
        b.iter_custom(|iters| {
            let mut spent = std::time::Duration::ZERO;
            for _ in 0..iters {
                edit(&mut other, 2);
                let t = std::time::Instant::now();
                other.restore(black_box(&full), &lib).unwrap();
                spent += t.elapsed();
            }
            spent
        })
    });
    g.bench_function("compare_full_bytes_256", |b| {
        b.iter(|| black_box(black_box(&full) == black_box(&copy)))
    });
    g.finish();
}

criterion_group!(benches, tiles, add_tiles, snapshots, issue_13);
criterion_main!(benches);
