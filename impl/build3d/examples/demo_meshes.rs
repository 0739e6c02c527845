//! Builds the three demo meshes (`scenarios/build3d/meshes/`, or MESH_DIR) at the demo settings of
//! `detour-figures.md` and at cheap settings (no detail sampling), checks that every tile is
//! accepted, that the tiles of each mesh go into one `TiledNavMesh`, and prints per mesh: tiles
//! (and layers), polygons, walkable area and the median build time on 1 and 2 threads.
//!
//! `cargo run --release -p onav-build3d --example demo_meshes [MESH_DIR] [RUNS]`

use std::time::Instant;

use onav_build3d::{build, Geometry, Settings, SettingsSpec};
use sha2::Digest as _;

/// "median (minimum)" of the timings in ms.
fn summary(mut v: Vec<f64>) -> (f64, String) {
    v.sort_by(f64::total_cmp);
    (
        v[v.len() / 2],
        format!("{:.1} ({:.1})", v[v.len() / 2], v[0]),
    )
}

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args.next().filter(|d| !d.is_empty()).unwrap_or_else(|| {
        format!(
            "{}/../../scenarios/build3d/meshes",
            env!("CARGO_MANIFEST_DIR")
        )
    });
    let runs: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(7);
    let demo = SettingsSpec::default();
    let cheap = SettingsSpec {
        detail_sample_dist: 0.0,
        ..SettingsSpec::default()
    };
    println!("| mesh | settings | tiles (cells, upper layers) | polygons | area wu² | detail verts | detail tris | 1 thread ms, median (min) | 2 threads ms | 1/2 ratio of medians | tiles hash |");
    println!("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|");
    for name in ["dungeon", "nav_test", "undulating"] {
        let path = format!("{dir}/{name}.obj");
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("{path}: {e}");
                std::process::exit(2);
            }
        };
        let geometry = match Geometry::from_obj(&bytes) {
            Ok(g) => g,
            Err(e) => {
                eprintln!("{path}: {e}");
                std::process::exit(1);
            }
        };
        for (label, spec) in [("demo", &demo), ("cheap", &cheap)] {
            let settings = Settings::new(spec.clone()).expect("valid settings");
            let mut times = [Vec::new(), Vec::new()];
            let mut first = None;
            for _ in 0..runs {
                for (k, threads) in [1usize, 2].into_iter().enumerate() {
                    let pool = rayon::ThreadPoolBuilder::new()
                        .num_threads(threads)
                        .build()
                        .expect("pool");
                    let t0 = Instant::now();
                    let built = pool.install(|| build(&geometry, &settings));
                    times[k].push(t0.elapsed().as_secs_f64() * 1e3);
                    let built = match built {
                        Ok(b) => b,
                        Err(e) => {
                            eprintln!("{name} {label}: {e}");
                            std::process::exit(1);
                        }
                    };
                    let ids: Vec<_> = built.tiles.iter().map(|t| t.content_id()).collect();
                    match &first {
                        None => first = Some((ids, built)),
                        Some((f, _)) => assert_eq!(f, &ids, "{name} {label}: bytes differ"),
                    }
                }
            }
            let (_, built) = first.expect("at least one run");
            if let Err(e) = built.to_mesh() {
                eprintln!("{name} {label}: add_tile: {e}");
                std::process::exit(1);
            }
            let s = built.stats;
            let mut h = sha2::Sha256::new();
            for t in &built.tiles {
                sha2::Digest::update(&mut h, t.content_id().0);
            }
            let all: [u8; 32] = sha2::Digest::finalize(h).into();
            let hash: String = all[..6].iter().map(|b| format!("{b:02x}")).collect();
            let ((m1, t1), (m2, t2)) = (summary(times[0].clone()), summary(times[1].clone()));
            println!(
                "| {name} | {label} | {} ({}, {}) | {} | {:.1} | {} | {} | {t1} | {t2} | {:.2} | {hash} |",
                s.tiles,
                s.cells,
                s.upper_layers,
                s.polygons,
                s.walkable_area,
                s.detail_vertices,
                s.detail_triangles,
                m1 / m2
            );
        }
    }
}
