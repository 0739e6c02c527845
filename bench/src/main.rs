//! `onav-bench`: onav side by side with C++ Recast/Detour 1.6.0 on the three demo meshes, in one
//! process, interleaved (see `README.md`, "Measuring", and `bench/run`).
//!
//! Usage: `onav-bench [--quick] [--meshes DIR] [--mesh NAME]... [--threads N]`.

mod adapter;
mod alloc;
mod case;
mod compare;
mod convert;
mod detour;
mod obj;
mod output;
mod recast;
mod report;
mod rng;
mod timing;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use output::{print_all, Results};

#[global_allocator]
static ALLOC: alloc::Counting = alloc::Counting;

/// The demo meshes, in the research documents' order.
const MESHES: [&str; 3] = ["dungeon", "nav_test", "undulating"];

const USAGE: &str = "usage: onav-bench [--quick] [--meshes DIR] [--mesh NAME]... [--threads N]
  --quick        few rounds: a smoke run of every comparison (also ONAV_BENCH_QUICK=1)
  --meshes DIR   the folder of dungeon.obj, nav_test.obj, undulating.obj (also ONAV_BENCH_MESHES);
                 default: the nearest shared/data/meshes beside the checkout or above it
  --mesh NAME    only this mesh (repeatable)
  --threads N    onav's rayon threads (default 1: Detour is single-threaded)";

/// Settings of one run.
#[derive(Debug, Clone)]
struct Options {
    quick: bool,
    meshes: Option<PathBuf>,
    only: Vec<String>,
    threads: usize,
}

fn parse_args() -> Result<Options, String> {
    let env_quick = std::env::var("ONAV_BENCH_QUICK").is_ok_and(|v| !v.is_empty() && v != "0");
    let mut o = Options {
        quick: env_quick,
        meshes: std::env::var_os("ONAV_BENCH_MESHES").map(PathBuf::from),
        only: Vec::new(),
        threads: 1,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--quick" => o.quick = true,
            "--meshes" => o.meshes = Some(args.next().ok_or("--meshes needs a folder")?.into()),
            "--mesh" => {
                let m = args.next().ok_or("--mesh needs a name")?;
                if !MESHES.contains(&m.as_str()) {
                    return Err(format!("unknown mesh {m:?}; one of {}", MESHES.join(", ")));
                }
                o.only.push(m);
            }
            "--threads" => {
                let t = args.next().ok_or("--threads needs a number")?;
                o.threads = t
                    .parse()
                    .ok()
                    .filter(|&n| (1..=256).contains(&n))
                    .ok_or(format!("--threads {t:?}: expected 1 ..= 256"))?;
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(o)
}

/// The mesh folder: the option, else the nearest `shared/data/meshes` next to the checkout root
/// (`../shared/data/meshes`) or next to one of its ancestors (a worktree under a folder).
fn mesh_dir(o: &Options) -> Result<PathBuf, String> {
    let need = |d: &Path| MESHES.iter().all(|m| d.join(format!("{m}.obj")).is_file());
    if let Some(d) = &o.meshes {
        return if need(d) {
            Ok(d.clone())
        } else {
            Err(format!(
                "{} does not hold {}.obj (set --meshes or ONAV_BENCH_MESHES to the folder of the demo meshes)",
                d.display(),
                MESHES.join(".obj, ")
            ))
        };
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let root = root.canonicalize().unwrap_or(root);
    for a in root.ancestors().skip(1) {
        let d = a.join("shared/data/meshes");
        if need(&d) {
            return Ok(d);
        }
    }
    Err(format!(
        "the demo meshes were not found in ../shared/data/meshes beside {} or above it; \
         pass --meshes DIR or set ONAV_BENCH_MESHES",
        root.display()
    ))
}

/// Rounds and repetitions of a run. Whole-mesh steps are timed 5 calls at a time after 5 untimed
/// calls (`detour-vs-onav.md`'s method): timed one call at a time, right after onav has run,
/// Detour's alloc + init + addTile measured twice as slow (its allocations are cold).
struct Plan {
    queries: usize,
    meshes: (usize, usize),
    state: usize,
    builds: usize,
    world: (i32, usize),
    /// Obstacles and bakes of the tile cache comparison.
    cache: (usize, usize),
}

impl Plan {
    fn of(quick: bool) -> Self {
        if quick {
            Self {
                queries: 3,
                meshes: (3, 1),
                state: 3,
                builds: 2,
                world: (8, 3),
                cache: (20, 1),
            }
        } else {
            Self {
                queries: 41,
                meshes: (61, 5),
                state: 41,
                builds: 11,
                world: (32, 61),
                cache: (200, 5),
            }
        }
    }
}

fn main() -> ExitCode {
    let o = match parse_args() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("onav-bench: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let dir = match mesh_dir(&o) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("onav-bench: {e}");
            return ExitCode::from(2);
        }
    };
    // Everything runs inside the pool, so onav's parallel steps start on the calling thread
    // instead of waking a worker (which costs microseconds per call on small meshes).
    let pool = match rayon::ThreadPoolBuilder::new()
        .num_threads(o.threads)
        .build()
    {
        Ok(p) => p,
        Err(e) => {
            eprintln!("onav-bench: cannot set up {} onav threads: {e}", o.threads);
            return ExitCode::from(2);
        }
    };
    // Every input is read and checked before anything is measured: a bad one exits with 2.
    let names: Vec<&str> = MESHES
        .iter()
        .copied()
        .filter(|m| o.only.is_empty() || o.only.iter().any(|x| x == m))
        .collect();
    let mut inputs = Vec::new();
    for name in names {
        match case::read(&dir, name) {
            Ok(t) => inputs.push((name.to_string(), t)),
            Err(e) => {
                eprintln!("onav-bench: {e}");
                return ExitCode::from(2);
            }
        }
    }
    match pool.install(|| run(&o, inputs, &dir)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("onav-bench: {e}");
            ExitCode::from(1)
        }
    }
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

fn run(o: &Options, inputs: Vec<(String, obj::TriMesh)>, dir: &Path) -> Result<(), String> {
    let start = Instant::now();
    let plan = Plan::of(o.quick);
    let overhead = timing::timer_overhead();
    println!("# onav vs C++ Recast/Detour 1.6.0 (recastnavigation-sys 1.0.3), side by side");
    println!();
    println!(
        "mode {}; meshes from {}; onav threads {}; cores {}; load average at start {}; timer pair {:.1} ns",
        if o.quick { "QUICK (smoke run, figures not meaningful)" } else { "full" },
        dir.display(),
        o.threads,
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        load(),
        overhead
    );
    println!(
        "Timed cells: median (min) over interleaved rounds (queries {}, mesh steps {}×{}, state {}); \
         each timed batch follows an untimed one of the same engine; the engines take turns to go first; \
         a query batch is timed in 10 chunks and its figure sums each chunk's median (min) over rounds.",
        plan.queries, plan.meshes.0, plan.meshes.1, plan.state
    );
    let ctx = recast::Context::new();
    let mut all = Vec::new();
    for (name, tri) in inputs {
        let name = &name;
        eprintln!("onav-bench: {name}: building and converting");
        let c = case::prepare(&ctx, name, tri)?;
        eprintln!("onav-bench: {name}: Recast and onav-build3d builds");
        let build = compare::build3d::run(&ctx, &c, plan.builds)?;
        eprintln!("onav-bench: {name}: queries");
        let queries = compare::queries::run(&c, plan.queries)?;
        eprintln!("onav-bench: {name}: building and restoring meshes");
        let meshes = compare::meshes::run(&c, plan.meshes.0, plan.meshes.1)?;
        eprintln!("onav-bench: {name}: rollback");
        let state = compare::state::run(&c, plan.state, overhead)?;
        eprintln!("onav-bench: {name}: DetourTileCache");
        let mut cache = Vec::new();
        for ts in [48, 16] {
            cache.push(compare::tilecache::run(
                &ctx,
                &c,
                ts,
                plan.cache.0,
                plan.cache.1,
            )?);
        }
        all.push(Results {
            case: c,
            build,
            queries,
            meshes,
            state,
            cache,
        });
    }
    eprintln!("onav-bench: onav's generated world");
    let world = compare::world::run(plan.world.0, plan.world.1, overhead)?;
    print_all(&all, &world);
    println!(
        "\nload average at end {}; total wall time {:.1} s",
        load(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}
