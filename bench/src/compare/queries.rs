//! Queries side by side (issue 13 item 2, answers item 3): `find_nearest_poly` vs
//! `findNearestPoly` over the 1000 points, and `find_path`, `find_straight_path` and `raycast` vs
//! Detour's over the 1000 pairs. Paths and rays start from Detour's snapped points and polygons
//! (mapped to onav references) on both engines; each straight path runs on its own engine's
//! corridor. Then the answers are compared (untimed), as `detour-vs-onav.md` does.

// Pairs live in parallel arrays (each engine's inputs and answers), indexed together.
#![allow(clippy::needless_range_loop)]

use std::hint::black_box;
use std::time::Instant;

use crate::adapter::Ref;
use crate::case::{Case, EXTENTS, NODES};
use crate::detour::{self, PolyRef};
use crate::timing::{interleave_chunks, Stats};

/// Timings (ns per query) of one query kind: Detour, onav.
pub type Pair = (Stats, Stats);

/// Everything the query comparison measured on one mesh.
#[derive(Debug, Clone, Default)]
pub struct QueryReport {
    /// Nearest polygon.
    pub nearest: Pair,
    /// Path.
    pub path: Pair,
    /// Straight path.
    pub straight: Pair,
    /// Raycast.
    pub raycast: Pair,
    /// Answer agreement.
    pub agree: Agreement,
}

/// How the answers compare.
#[derive(Debug, Clone, Default)]
pub struct Agreement {
    /// Points found by both / Detour only / onav only.
    pub found: (usize, usize, usize),
    /// Of those found by both: same polygon, same point (≤ 1e-3 m).
    pub same_poly: usize,
    /// Same point.
    pub same_point: usize,
    /// Pairs.
    pub pairs: usize,
    /// Same status (complete / partial).
    pub same_status: usize,
    /// Complete in Detour.
    pub detour_complete: usize,
    /// Same corridor length.
    pub same_len: usize,
    /// Identical corridor.
    pub same_corridor: usize,
    /// Complete in both, corridors differ: onav's costlier / Detour's costlier / Detour's not
    /// expressible in onav's mesh (uses the split's cut edge), in onav's cost model.
    pub costlier: (usize, usize, usize),
    /// Same straight-path point count.
    pub same_straight: usize,
    /// Raycast t within 1e-4 (from the shared snapped starts).
    pub ray_same_t: usize,
    /// Reached the end: Detour, onav.
    pub ray_reached: (usize, usize),
    /// Where t differs: onav `Missed` at t = 0 from the shared starts.
    pub ray_missed_shared: usize,
    /// onav's own corridors whose recomputed cost (the model used above) equals `find_path`'s
    /// cost within 1e-9 relative, of the complete ones: checks the cost model.
    pub cost_model_ok: (usize, usize),
    /// From each engine's own nearest points: start polygon missed, Detour (of pairs), onav (of
    /// pairs where onav found both ends).
    pub ray_missed_own: ((usize, usize), (usize, usize)),
}

struct Inputs {
    d_start: Vec<(PolyRef, [f32; 3])>,
    d_end: Vec<(PolyRef, [f32; 3])>,
    o_start: Vec<(Ref, [f64; 3])>,
    o_end: Vec<(Ref, [f64; 3])>,
}

fn inputs(c: &Case) -> Inputs {
    let mut i = Inputs {
        d_start: vec![],
        d_end: vec![],
        o_start: vec![],
        o_end: vec![],
    };
    for &(a, b) in &c.pairs {
        let (Some(da), Some(db)) = (c.detour_nearest[a], c.detour_nearest[b]) else {
            continue;
        };
        let (Some(&oa), Some(&ob)) = (c.map.get(&da.0), c.map.get(&db.0)) else {
            continue;
        };
        i.d_start.push(da);
        i.d_end.push(db);
        i.o_start.push((oa, Case::point64(&da.1)));
        i.o_end.push((ob, Case::point64(&db.1)));
    }
    i
}

/// Each batch of 1000 runs as this many chunks (about 0.1–1 ms each).
const CHUNKS: usize = 10;

/// The items of chunk k of n.
fn chunk(k: usize, n: usize) -> std::ops::Range<usize> {
    k * n / CHUNKS..(k + 1) * n / CHUNKS
}

/// Detour's and onav's timings of one query kind over `n` items, `d(i)` and `o(i)` running item
/// i, interleaved in chunks.
fn pair(rounds: usize, n: usize, mut d: impl FnMut(usize), mut o: impl FnMut(usize)) -> Pair {
    let time = |f: &mut dyn FnMut(usize), k: usize| {
        let t = Instant::now();
        chunk(k, n).for_each(&mut *f);
        t.elapsed().as_nanos() as f64
    };
    let s = interleave_chunks(
        rounds,
        CHUNKS,
        n,
        &mut [&mut |k| time(&mut d, k), &mut |k| time(&mut o, k)],
    );
    (s[0], s[1])
}

/// With `ONAV_BENCH_QUERY_DUMP=DIR`, writes onav's mesh of the case (`DIR/NAME.onmf`, a mesh file)
/// and the timed pairs (`DIR/NAME.pairs`: per line the start and end references as raw u64 and
/// the six coordinates as f64 bit patterns in hex), so that a profiler can replay exactly the
/// queries timed here without Recast.
fn dump(c: &Case, inp: &Inputs) -> Result<(), String> {
    let Some(dir) = std::env::var_os("ONAV_BENCH_QUERY_DUMP") else {
        return Ok(());
    };
    let dir = std::path::PathBuf::from(dir);
    let err = |e: std::io::Error| format!("ONAV_BENCH_QUERY_DUMP: {e}");
    std::fs::create_dir_all(&dir).map_err(err)?;
    std::fs::write(dir.join(format!("{}.onmf", c.name)), c.onav.write()).map_err(err)?;
    let mut text = String::new();
    for k in 0..inp.o_start.len() {
        let ((a, ap), (b, bp)) = (inp.o_start[k], inp.o_end[k]);
        text += &format!("{} {}", a.raw(), b.raw());
        for v in ap.iter().chain(&bp) {
            text += &format!(" {:016x}", v.to_bits());
        }
        text.push('\n');
    }
    std::fs::write(dir.join(format!("{}.pairs", c.name)), text).map_err(err)
}

/// Runs the query comparison with `rounds` interleaved rounds.
pub fn run(c: &Case, rounds: usize) -> Result<QueryReport, String> {
    let dq = detour::Query::new(&c.detour, NODES as i32)?;
    let mut oq = c.onav.query(NODES)?;
    let ext64 = EXTENTS.map(f64::from);
    let pts64: Vec<[f64; 3]> = c.points.iter().map(Case::point64).collect();
    let inp = inputs(c);
    let np = inp.d_start.len();
    dump(c, &inp)?;
    let mut buf = vec![0 as PolyRef; 256];
    let mut sbuf = vec![0f32; 256 * 3];

    // Each engine's own corridors, computed once (for the straight paths).
    let mut d_corr = Vec::with_capacity(np);
    let mut d_partial = Vec::with_capacity(np);
    let mut o_paths = Vec::with_capacity(np);
    for k in 0..np {
        let (a, b) = (&inp.d_start[k], &inp.d_end[k]);
        let (n, partial) = dq.path(a.0, b.0, &a.1, &b.1, &mut buf);
        d_corr.push(buf[..n].to_vec());
        d_partial.push(partial);
        let (a, b) = (&inp.o_start[k], &inp.o_end[k]);
        o_paths.push(oq.path(a.0, b.0, a.1, b.1));
    }

    let mut r = QueryReport::default();
    let npt = c.points.len();
    r.nearest = pair(
        rounds,
        npt,
        |i| {
            black_box(dq.nearest(&c.points[i], &EXTENTS));
        },
        |i| {
            black_box(oq.nearest(pts64[i], ext64));
        },
    );
    let (ds, de, os, oe) = (&inp.d_start, &inp.d_end, &inp.o_start, &inp.o_end);
    r.path = pair(
        rounds,
        np,
        |i| {
            black_box(dq.path(ds[i].0, de[i].0, &ds[i].1, &de[i].1, &mut buf));
        },
        |i| {
            black_box(oq.path_into(os[i].0, oe[i].0, os[i].1, oe[i].1));
        },
    );
    r.straight = pair(
        rounds,
        np,
        |i| {
            black_box(dq.straight(&ds[i].1, &de[i].1, &d_corr[i], &mut sbuf));
        },
        |i| {
            if let Some(p) = &o_paths[i] {
                black_box(oq.straight(os[i].1, oe[i].1, &p.corridor));
            }
        },
    );
    r.raycast = pair(
        rounds,
        np,
        |i| {
            black_box(dq.raycast(ds[i].0, &ds[i].1, &de[i].1, &mut buf));
        },
        |i| {
            black_box(oq.raycast(os[i].0, os[i].1, oe[i].1));
        },
    );

    // Agreement.
    let a = &mut r.agree;
    let o_near: Vec<_> = pts64.iter().map(|p| oq.nearest(*p, ext64)).collect();
    for (d, o) in c.detour_nearest.iter().zip(&o_near) {
        match (d, o) {
            (Some(d), Some(o)) => {
                a.found.0 += 1;
                if c.map.get(&d.0) == Some(&o.0) {
                    a.same_poly += 1;
                }
                let dp = Case::point64(&d.1);
                let dd = (0..3)
                    .map(|k| (dp[k] - o.1[k]) * (dp[k] - o.1[k]))
                    .sum::<f64>()
                    .sqrt();
                if dd <= 1e-3 {
                    a.same_point += 1;
                }
            }
            (Some(_), None) => a.found.1 += 1,
            (None, Some(_)) => a.found.2 += 1,
            (None, None) => {}
        }
    }
    a.pairs = np;
    let mut spts = vec![0f32; 256 * 3];
    for k in 0..np {
        let Some(op) = &o_paths[k] else { continue };
        let dc: Option<Vec<Ref>> = d_corr[k].iter().map(|r| c.map.get(r).copied()).collect();
        let d_complete = !d_partial[k];
        a.detour_complete += usize::from(d_complete);
        a.same_status += usize::from(d_complete == op.complete);
        a.same_len += usize::from(d_corr[k].len() == op.corridor.len());
        let same = dc.as_deref() == Some(op.corridor.as_slice());
        a.same_corridor += usize::from(same);
        if op.complete {
            let (sp, ep) = (inp.o_start[k].1, inp.o_end[k].1);
            a.cost_model_ok.1 += 1;
            if let Some(c) = oq.corridor_cost(&op.corridor, sp, ep) {
                a.cost_model_ok.0 +=
                    usize::from((c - op.cost).abs() <= 1e-9 * op.cost.abs().max(1.0));
            }
        }
        if d_complete && op.complete && !same {
            let (sp, ep) = (inp.o_start[k].1, inp.o_end[k].1);
            let oc = oq.corridor_cost(&op.corridor, sp, ep);
            let dcost = dc.as_deref().and_then(|d| oq.corridor_cost(d, sp, ep));
            match (oc, dcost) {
                (Some(o), Some(d)) if o > d * (1.0 + 1e-12) => a.costlier.0 += 1,
                (Some(o), Some(d)) if d > o * (1.0 + 1e-12) => a.costlier.1 += 1,
                (_, None) => a.costlier.2 += 1,
                _ => {}
            }
        }
        let dn = dq.straight(&inp.d_start[k].1, &inp.d_end[k].1, &d_corr[k], &mut spts);
        let on = oq.straight(inp.o_start[k].1, inp.o_end[k].1, &op.corridor);
        a.same_straight += usize::from(dn == on);
    }
    let mut o_own = (0, 0);
    for k in 0..np {
        let dr = dq.raycast(
            inp.d_start[k].0,
            &inp.d_start[k].1,
            &inp.d_end[k].1,
            &mut buf,
        );
        let dt = if dr.t == f32::MAX {
            1.0
        } else {
            f64::from(dr.t)
        };
        a.ray_missed_own.0 .0 += usize::from(dr.visited == 0);
        a.ray_reached.0 += usize::from(dr.t == f32::MAX);
        if let Some(or) = oq.raycast(inp.o_start[k].0, inp.o_start[k].1, inp.o_end[k].1) {
            a.ray_same_t += usize::from((or.t - dt).abs() <= 1e-4);
            a.ray_reached.1 += usize::from(or.reached);
            let differs = (or.t - dt).abs() > 1e-4;
            a.ray_missed_shared += usize::from(differs && or.missed && or.t == 0.0);
        }
    }
    a.ray_missed_own.0 .1 = np;
    for &(ia, ib) in &c.pairs {
        let (Some(s), Some(e)) = (o_near[ia], o_near[ib]) else {
            continue;
        };
        o_own.1 += 1;
        if let Some(or) = oq.raycast(s.0, s.1, e.1) {
            o_own.0 += usize::from(or.missed && or.t == 0.0);
        }
    }
    a.ray_missed_own.1 = o_own;
    Ok(r)
}
