//! Query benchmarks (`spec/queries.md`) on a generated 32 × 32-tile world: nearest polygon,
//! short and long paths, string pulling and raycasts. Each measured call is one query; the
//! inputs cycle through a fixed, seeded list so runs are comparable, and the same lists can be
//! fed to another implementation (Detour) for side-by-side figures.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use onav::generator::mix;
use onav::geom::Vec3;
use onav::{
    NavMeshQuery, NearestPoly, QueryFilter, RaycastOptions, StraightPathOptions, TiledNavMesh,
    WorldSpec,
};

fn world() -> WorldSpec {
    WorldSpec {
        columns: 32,
        rows: 32,
        quads: 4,
        hole_chance: 20,
        links_per_tile: 1,
        area_kinds: 2,
        slope: [0.01, 0.0],
        ..WorldSpec::default()
    }
}

fn build() -> TiledNavMesh {
    let w = world();
    let mut mesh = TiledNavMesh::new(w.params_fitting());
    for t in w.tiles() {
        mesh.add_tile(t).expect("add tile");
    }
    mesh
}

/// Seeded points on the world's surface (x, z in the world, y on the slope).
struct Points(u64);

impl Points {
    fn unit(&mut self) -> f64 {
        self.0 = mix(self.0);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }

    fn near(&mut self, w: &WorldSpec, around: Option<(Vec3, f64)>) -> Vec3 {
        let size = f64::from(w.columns) * w.tile_size;
        let (x, z) = match around {
            None => (self.unit() * size, self.unit() * size),
            Some((c, r)) => (
                (c[0] + (self.unit() * 2.0 - 1.0) * r).clamp(0.0, size),
                (c[2] + (self.unit() * 2.0 - 1.0) * r).clamp(0.0, size),
            ),
        };
        [x, w.slope[0] * x + w.slope[1] * z + 0.2, z]
    }
}

const HALF: Vec3 = [2.0, 4.0, 2.0];

/// `count` pairs of polygons and points, the second within `radius` of the first (or anywhere).
fn pairs(
    q: &NavMeshQuery<'_>,
    filter: &QueryFilter,
    seed: u64,
    count: usize,
    radius: Option<f64>,
) -> Vec<(NearestPoly, NearestPoly)> {
    let w = world();
    let mut pts = Points(seed);
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let a = pts.near(&w, None);
        let b = pts.near(&w, radius.map(|r| (a, r)));
        if let (Ok(Some(a)), Ok(Some(b))) = (
            q.find_nearest_poly(a, HALF, filter),
            q.find_nearest_poly(b, HALF, filter),
        ) {
            out.push((a, b));
        }
    }
    out
}

fn benches(c: &mut Criterion) {
    let mesh = build();
    let q = NavMeshQuery::new(&mesh, 65_536).expect("query");
    let filter = QueryFilter::default();
    let w = world();

    let mut g = c.benchmark_group("query");
    g.sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));

    let mut pts = Points(11);
    let centers: Vec<Vec3> = (0..256).map(|_| pts.near(&w, None)).collect();
    let mut i = 0;
    g.bench_function("nearest", |b| {
        b.iter(|| {
            i = (i + 1) % centers.len();
            black_box(q.find_nearest_poly(black_box(centers[i]), HALF, &filter))
        })
    });

    // Boxes over no polygon (the query is the cell walk alone): the centres lifted far above.
    let misses: Vec<Vec3> = centers.iter().map(|c| [c[0], c[1] + 1e3, c[2]]).collect();
    let mut i = 0;
    g.bench_function("nearest_miss", |b| {
        b.iter(|| {
            i = (i + 1) % misses.len();
            black_box(q.find_nearest_poly(black_box(misses[i]), HALF, &filter))
        })
    });

    // The `_into` calls reuse the query's scratch and the caller's buffers: no allocation.
    let mut qi = q.clone();
    let list = pairs(&q, &filter, 13, 64, None);
    let mut corridor = Vec::new();
    let mut i = 0;
    g.bench_function("path_long_into", |b| {
        b.iter(|| {
            i = (i + 1) % list.len();
            let (s, e) = &list[i];
            black_box(qi.find_path_into(s.poly, e.poly, s.point, e.point, &filter, &mut corridor))
        })
    });

    for (name, radius, seed) in [("path_short", Some(24.0), 12), ("path_long", None, 13)] {
        let list = pairs(&q, &filter, seed, 64, radius);
        let mut i = 0;
        g.bench_function(name, |b| {
            b.iter(|| {
                i = (i + 1) % list.len();
                let (s, e) = &list[i];
                black_box(q.find_path(s.poly, e.poly, s.point, e.point, &filter))
            })
        });
    }

    let corridors: Vec<_> = pairs(&q, &filter, 14, 64, None)
        .into_iter()
        .map(|(s, e)| {
            let r = q
                .find_path(s.poly, e.poly, s.point, e.point, &filter)
                .expect("path");
            (s.point, e.point, r.corridor)
        })
        .collect();
    let mut i = 0;
    g.bench_function("straight_path_long", |b| {
        b.iter(|| {
            i = (i + 1) % corridors.len();
            let (s, e, c) = &corridors[i];
            black_box(q.find_straight_path(*s, *e, c, StraightPathOptions::default()))
        })
    });

    let rays = pairs(&q, &filter, 15, 64, Some(32.0));
    let mut i = 0;
    g.bench_function("raycast", |b| {
        b.iter(|| {
            i = (i + 1) % rays.len();
            let (s, e) = &rays[i];
            black_box(q.raycast(s.poly, s.point, e.point, &filter, RaycastOptions::default()))
        })
    });
    let mut visited = Vec::new();
    let mut i = 0;
    g.bench_function("raycast_into", |b| {
        b.iter(|| {
            i = (i + 1) % rays.len();
            let (s, e) = &rays[i];
            black_box(qi.raycast_into(
                s.poly,
                s.point,
                e.point,
                &filter,
                RaycastOptions::default(),
                &mut visited,
            ))
        })
    });
    g.finish();

    // Context for the figures: corridor lengths and statuses.
    let lens: Vec<usize> = corridors.iter().map(|c| c.2.len()).collect();
    let mean = lens.iter().sum::<usize>() as f64 / lens.len() as f64;
    eprintln!(
        "long corridors: mean {mean:.0} polygons, max {}",
        lens.iter().max().copied().unwrap_or(0)
    );
}

criterion_group!(query, benches);
criterion_main!(query);
