//! Building from triangles (issue 14 item 9): Recast's tiled build of the demo workload against
//! onav's builder (`onav-build3d`) on one thread and on two, interleaved in one process
//! (`timing::interleave`: every round runs each contender once untimed, then once timed, the
//! contenders taking turns to go first), on the same triangles and the same settings.
//!
//! What each timed build includes:
//! - Recast (`recast::build`): from the in-memory f32 triangles to every tile blob — per-triangle
//!   x–z bounds (once), per tile a brute-force cull of the triangles, `rcMarkWalkableTriangles`,
//!   rasterization, the three filters, compact heightfield, erosion, distance field, watershed
//!   regions, contours, polygon mesh, detail mesh, the demo's area and flag fix-up,
//!   `dtCreateNavMeshData` with a BV tree, and freeing every intermediate. Single-threaded.
//! - onav (`adapter::builder::build`): from the same triangles as f64 arrays to every tile —
//!   `Geometry::from_arrays` (validation, canonical triangles sorted, geometry digest), the plan
//!   (settings digest, walkability, triangle bins), every stage of every tile cell, each tile
//!   written through `RawTile` and read back by onav's validating reader. On a rayon pool of one
//!   thread, and of two.
//!
//! Neither includes reading the OBJ file or adding the tiles to a mesh. After every onav build
//! (outside the timed part) its tiles' bytes are compared with the first one-thread build's: the
//! run fails if a thread count changed one byte.
//!
//! Quality, untimed: the walkable area (sum of the polygons' x–z areas) of both, and for every
//! pair of the bench's 1000 that Detour connects on Recast's mesh (complete path), whether onav's
//! built mesh connects it too: both of Detour's snapped end points are mapped to onav polygons
//! with `find_nearest_poly` (the bench's half extents) and joined with `find_path`; and, the
//! other way round, how many pairs Detour leaves partial that onav's mesh connects.

use std::cell::{Cell, RefCell};
use std::time::Instant;

use crate::adapter::{self, builder};
use crate::case::{Case, EXTENTS, NODES};
use crate::detour;
use crate::recast::{self, Context};
use crate::report::Table;
use crate::timing::{self, Ratio, Stats};

/// Recast's and onav's figures on one mesh.
#[derive(Debug, Clone, Default)]
pub struct BuildReport {
    /// Recast's build time, ns.
    pub recast: Stats,
    /// Recast's tiles.
    pub tiles: usize,
    /// Recast's polygons.
    pub polys: usize,
    /// Recast's walkable area, m².
    pub area: f64,
    /// Pairs Detour connects (complete path), of the pairs.
    pub connected: (usize, usize),
    /// onav's builder.
    pub onav: OnavBuild,
}

/// onav-build3d's figures on one mesh.
#[derive(Debug, Clone, Default)]
pub struct OnavBuild {
    /// Build time on one thread, ns.
    pub one: Stats,
    /// Build time on two threads, ns.
    pub two: Stats,
    /// Tiles (tile-layers), tile cells with a tile, tiles above layer 0.
    pub tiles: (usize, usize, usize),
    /// Ground polygons.
    pub polys: usize,
    /// Bytes of all tiles.
    pub bytes: usize,
    /// Walkable area, m².
    pub area: f64,
    /// Builds whose bytes were compared with the first (all equal, or the run fails).
    pub compared: usize,
    /// The pairs Detour connects, on onav's built mesh.
    pub pairs: Connectivity,
}

/// Detour-connected pairs on onav's built mesh.
#[derive(Debug, Clone, Default)]
pub struct Connectivity {
    /// Pairs Detour connects.
    pub checked: usize,
    /// Of them, connected by onav's `find_path` (complete).
    pub connected: usize,
    /// The others.
    pub failures: Vec<Failure>,
    /// Pairs Detour does not connect (partial path) that onav's built mesh connects.
    pub only_onav: usize,
}

/// A pair Detour connects that onav's built mesh does not.
#[derive(Debug, Clone)]
pub struct Failure {
    /// Index in the bench's pairs.
    pub pair: usize,
    /// Detour's snapped start and end points.
    pub points: [[f32; 3]; 2],
    /// What failed.
    pub why: Why,
}

/// Why a pair failed on onav's mesh.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    /// No onav polygon near the start point.
    NoStart,
    /// No onav polygon near the end point.
    NoEnd,
    /// `find_path` did not reach the end polygon; the partial corridor's length.
    Partial(usize),
    /// `find_path` refused the pair.
    Refused,
}

/// Twice the signed x–z area of a polygon, as a fan.
fn area2(v: &[[f32; 3]]) -> f64 {
    (1..v.len().saturating_sub(1))
        .map(|i| {
            let (a, b, c) = (v[0], v[i], v[i + 1]);
            f64::from(b[0] - a[0]) * f64::from(c[2] - a[2])
                - f64::from(b[2] - a[2]) * f64::from(c[0] - a[0])
        })
        .sum()
}

/// Recast's walkable area: the x–z area of every Detour polygon.
fn recast_area(c: &Case) -> f64 {
    let mut area = 0.0;
    for t in c.detour.tiles() {
        let v = t.verts();
        for p in t.polys() {
            let pts: Vec<[f32; 3]> = p.verts[..usize::from(p.vertCount)]
                .iter()
                .map(|&i| {
                    [
                        v[i as usize * 3],
                        v[i as usize * 3 + 1],
                        v[i as usize * 3 + 2],
                    ]
                })
                .collect();
            // Recast winds clockwise in x-then-z terms: the fan sum is negative.
            area += -area2(&pts) / 2.0;
        }
    }
    area
}

fn pool(threads: usize) -> Result<rayon::ThreadPool, String> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| format!("cannot set up {threads} builder threads: {e}"))
}

/// Times `rounds` interleaved rounds of the three builds and measures both meshes' quality.
pub fn run(ctx: &Context, c: &Case, rounds: usize) -> Result<BuildReport, String> {
    let name = &c.name;
    let input = builder::input(&c.tri).map_err(|e| format!("{name}: {e}"))?;
    let settings = builder::settings(&recast::DEMO)?;
    let (one, two) = (pool(1)?, pool(2)?);
    let first = one
        .install(|| builder::build(&input, &settings))
        .map_err(|e| format!("{name}: onav-build3d: {e}"))?;

    let recast_bad = Cell::new(false);
    let compared = Cell::new(0usize);
    let onav_bad: RefCell<Option<String>> = RefCell::new(None);
    let recast_build = || {
        let t = Instant::now();
        let b = recast::build(ctx, &c.tri, &recast::DEMO);
        let ns = t.elapsed().as_nanos() as f64;
        if b.blobs.len() != c.build.blobs.len() || b.polys != c.build.polys {
            recast_bad.set(true);
        }
        ns
    };
    let onav_build = |pool: &rayon::ThreadPool, threads: usize| {
        let t = Instant::now();
        let b = pool.install(|| builder::build(&input, &settings));
        let ns = t.elapsed().as_nanos() as f64;
        compared.set(compared.get() + 1);
        let bad = match b {
            Ok(b) if b.same_bytes(&first) => None,
            Ok(_) => Some(format!(
                "{name}: onav-build3d on {threads} thread(s) changed the tile bytes"
            )),
            Err(e) => Some(format!("{name}: onav-build3d: {e}")),
        };
        if let Some(e) = bad {
            onav_bad.borrow_mut().get_or_insert(e);
        }
        ns
    };
    let stats = timing::interleave(
        rounds,
        &mut [
            &mut || recast_build(),
            &mut || onav_build(&one, 1),
            &mut || onav_build(&two, 2),
        ],
    );
    if recast_bad.get() {
        return Err(format!("{name}: a Recast rebuild gave another mesh"));
    }
    if let Some(e) = onav_bad.into_inner() {
        return Err(e);
    }

    let q = detour::Query::new(&c.detour, NODES as i32)?;
    let mut buf = vec![0; 256];
    let mut connected = (0, 0);
    let mut joined = Vec::with_capacity(c.pairs.len());
    for (k, &(a, b)) in c.pairs.iter().enumerate() {
        let (Some(s), Some(e)) = (c.detour_nearest[a], c.detour_nearest[b]) else {
            continue;
        };
        let (_, partial) = q.path(s.0, e.0, &s.1, &e.1, &mut buf);
        connected.0 += usize::from(!partial);
        connected.1 += 1;
        joined.push((k, [s.1, e.1], !partial));
    }
    drop(q);
    let mesh = first
        .mesh()
        .map_err(|e| format!("{name}: onav-build3d tiles: {e}"))?;
    let pairs = connectivity(&mesh, &joined)?;
    Ok(BuildReport {
        recast: stats[0],
        tiles: c.build.blobs.len(),
        polys: c.build.polys,
        area: recast_area(c),
        connected,
        onav: OnavBuild {
            one: stats[1],
            two: stats[2],
            tiles: (first.tiles(), first.cells(), first.upper_layers()),
            polys: first.polygons(),
            bytes: first.bytes(),
            area: first.walkable_area(),
            compared: compared.get(),
            pairs,
        },
    })
}

/// The pairs (index, Detour's snapped end points, Detour connects them) on onav's mesh.
fn connectivity(
    mesh: &adapter::Mesh,
    pairs: &[(usize, [[f32; 3]; 2], bool)],
) -> Result<Connectivity, String> {
    let q = mesh.query(NODES)?;
    let ext = EXTENTS.map(f64::from);
    let mut out = Connectivity::default();
    for &(pair, points, detour) in pairs {
        let [sp, ep] = points.map(|p| Case::point64(&p));
        let why = match (q.nearest(sp, ext), q.nearest(ep, ext)) {
            (None, _) => Some(Why::NoStart),
            (_, None) => Some(Why::NoEnd),
            (Some(s), Some(e)) => match q.path(s.0, e.0, s.1, e.1) {
                Some(p) if p.complete => None,
                Some(p) => Some(Why::Partial(p.corridor.len())),
                None => Some(Why::Refused),
            },
        };
        match (why, detour) {
            (None, true) => out.connected += 1,
            (Some(why), true) => out.failures.push(Failure { pair, points, why }),
            (None, false) => out.only_onav += 1,
            (Some(_), false) => {}
        }
        out.checked += usize::from(detour);
    }
    Ok(out)
}

/// One target: a label, the bound as text, and per mesh the figure with whether it meets the
/// bound.
pub type Target = (String, String, Vec<(String, bool)>);

/// The issue-14 item-9 targets per mesh (timing ratios judged on medians; minima in brackets).
pub fn targets(all: &[&BuildReport]) -> Vec<Target> {
    let time = |label: &str, bound: f64, f: &dyn Fn(&OnavBuild, &Stats) -> Ratio| {
        let cells = all
            .iter()
            .map(|r| {
                let v = f(&r.onav, &r.recast);
                (format!("{:.2} ({:.2})", v.median, v.min), v.median <= bound)
            })
            .collect();
        (label.to_string(), format!("≤ {bound:.3}"), cells)
    };
    vec![
        time(
            "onav-build3d 1 thread / Recast tiled build (time)",
            1.0,
            &|o, recast| o.one.ratio(recast),
        ),
        time(
            "onav-build3d 2 threads / 1 thread (time; ≤ 0.667 is a speed-up ≥ 1.5×)",
            1.0 / 1.5,
            &|o, _| o.two.ratio(&o.one),
        ),
        (
            "walkable area onav / Recast".into(),
            "0.95 … 1.05".into(),
            all.iter()
                .map(|r| {
                    let x = r.onav.area / r.area;
                    (format!("{x:.3}"), (0.95..=1.05).contains(&x))
                })
                .collect(),
        ),
        (
            "pairs Detour connects that onav's built mesh does not".into(),
            "0".into(),
            all.iter()
                .map(|r| {
                    let p = &r.onav.pairs;
                    (
                        format!("{} of {}", p.failures.len(), p.checked),
                        p.failures.is_empty(),
                    )
                })
                .collect(),
        ),
    ]
}

/// Prints the item-9 targets with met or missed per mesh, then every failed pair.
pub fn print_targets(names: &[String], all: &[&BuildReport]) {
    let mut head = vec!["onav-build3d vs Recast (issue 14 item 9)", "target"];
    head.extend(names.iter().map(String::as_str));
    head.push("met");
    let mut t = Table::new(
        "## Issue-14 item-9 targets: onav-build3d against Recast on the same triangles and settings",
        &head,
    );
    for (label, bound, cells) in targets(all) {
        let missed = cells.iter().filter(|c| !c.1).count();
        let mut row = vec![label, bound];
        row.extend(
            cells
                .into_iter()
                .map(|(v, ok)| format!("{v} {}", if ok { "met" } else { "missed" })),
        );
        row.push(if missed == 0 {
            "met".into()
        } else {
            format!("missed on {missed} of {}", all.len())
        });
        t.row(row);
    }
    t.print();
    for (name, r) in names.iter().zip(all) {
        for f in &r.onav.pairs.failures {
            println!(
                "- {name}: pair {} from {:?} to {:?}: {}",
                f.pair,
                f.points[0],
                f.points[1],
                match f.why {
                    Why::NoStart => "no onav polygon near the start".to_string(),
                    Why::NoEnd => "no onav polygon near the end".to_string(),
                    Why::Partial(n) => format!("onav's path is partial ({n} polygons)"),
                    Why::Refused => "onav's find_path refused the pair".to_string(),
                }
            );
        }
    }
}
