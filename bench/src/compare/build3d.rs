//! Building from triangles (issue 14 item 9): Recast's tiled build of the demo workload, timed
//! from the in-memory triangles to all tile blobs (11 full builds, the first one cold, as
//! `detour-figures.md`), and the quality figures onav's builder will be held to: walkable area
//! (sum of the polygons' x–z areas) and how many of the 1000 pairs Detour connects.
//!
//! The onav side (crate `onav-build3d`, single-threaded and on 2 threads, its area within ±5 % of
//! Recast's, every pair Detour connects also connected) plugs in here once the crate exists; until
//! then it is reported as not measured.

use std::time::Instant;

use crate::case::{Case, NODES};
use crate::detour;
use crate::recast::{self, Context};
use crate::timing::Stats;

/// Recast's figures on one mesh.
#[derive(Debug, Clone, Copy, Default)]
pub struct BuildReport {
    /// Build time, ns.
    pub recast: Stats,
    /// Tiles and polygons.
    pub tiles: usize,
    /// Polygons.
    pub polys: usize,
    /// Walkable area, m².
    pub area: f64,
    /// Pairs Detour connects (complete path), of the pairs.
    pub connected: (usize, usize),
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

/// Times `reps` builds and measures the Recast mesh's quality.
pub fn run(ctx: &Context, c: &Case, reps: usize) -> Result<BuildReport, String> {
    let mut samples = Vec::with_capacity(reps);
    for _ in 0..reps.max(1) {
        let t = Instant::now();
        let b = recast::build(ctx, &c.tri, &recast::DEMO);
        samples.push(t.elapsed().as_nanos() as f64);
        if b.blobs.len() != c.build.blobs.len() || b.polys != c.build.polys {
            return Err(format!("{}: a rebuild gave another mesh", c.name));
        }
    }
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
    let q = detour::Query::new(&c.detour, NODES as i32)?;
    let mut buf = vec![0; 256];
    let mut connected = (0, 0);
    for &(a, b) in &c.pairs {
        let (Some(s), Some(e)) = (c.detour_nearest[a], c.detour_nearest[b]) else {
            continue;
        };
        let (_, partial) = q.path(s.0, e.0, &s.1, &e.1, &mut buf);
        connected.0 += usize::from(!partial);
        connected.1 += 1;
    }
    Ok(BuildReport {
        recast: Stats::of(samples),
        tiles: c.build.blobs.len(),
        polys: c.build.polys,
        area,
        connected,
    })
}
