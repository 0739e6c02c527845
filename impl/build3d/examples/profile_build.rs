//! Builds one demo mesh many times single-threaded (for a profiler):
//! `cargo run --release -p onav-build3d --example profile_build -- MESH [RUNS] [cheap]`.

use onav_build3d::{build, Geometry, Settings, SettingsSpec};

fn main() {
    let mut args = std::env::args().skip(1);
    let name = args.next().unwrap_or_else(|| "dungeon".to_owned());
    let runs: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(50);
    let cheap = args.next().is_some_and(|a| a == "cheap");
    let path = format!(
        "{}/../../scenarios/build3d/meshes/{name}.obj",
        env!("CARGO_MANIFEST_DIR")
    );
    let bytes = std::fs::read(&path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    let g = Geometry::from_obj(&bytes).expect("mesh");
    let mut spec = SettingsSpec::default();
    if cheap {
        spec.detail_sample_dist = 0.0;
    }
    let s = Settings::new(spec).expect("settings");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool");
    let mut best = f64::MAX;
    for _ in 0..runs {
        let t = std::time::Instant::now();
        let b = pool.install(|| build(&g, &s)).expect("build");
        best = best.min(t.elapsed().as_secs_f64() * 1e3);
        std::hint::black_box(b);
    }
    println!("{name}: best of {runs}: {best:.2} ms");
}
