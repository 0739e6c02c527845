//! Detail meshes (`spec/build3d.md` §14): per polygon, triangles over its corners and sampled
//! interior points that follow the walkable surface within `detail_sample_max_error`.
//!
//! With sampling off (`detail_sample_dist` = 0), or when a sampled mesh would not pass the
//! tile reader's rule T17 exactly, the detail mesh is the polygon itself: the fan
//! (0, k, k + 1), whose area sum equals the polygon area bit for bit.
//!
//! Sampling: candidate points lie on the global grid `(ox + i·d, oz + j·d)` (d = sample
//! distance) within the polygon's bounds, inside the polygon by the reader's inclusive test
//! (`spec/navmesh-format.md` G5) and at least d/2 from every edge; a candidate's height is the
//! floor of the polygon's region in the candidate's cell (or, if the region has no span there,
//! in the first of the 8 neighbouring cells, straight ones first, that has one). Starting from
//! the fan, the candidate with the largest height error over the current mesh (ties: lowest
//! candidate) is inserted while that error exceeds the maximum: it splits the triangle that
//! holds it, or the two triangles of the edge it lies on, and Lawson flips restore the
//! Delaunay property where a flip keeps both triangles strictly counter-clockwise.
//!
//! Limits: L15 (extra vertices per polygon).

use crate::compact::Compact;
use crate::limits::DETAIL_FLIPS_PER_TRIANGLE;
use crate::num::{ceil_i, floor_i, fmax, fmin};
use crate::output::{
    closest_t_on_segment_xz, dist2_xz, lerp, orient, point_in_convex_xz, poly_area2_xz, Vec3,
    DETAIL_AREA_TOLERANCE,
};

/// What the detail stage reads of a tile.
pub(crate) struct Surface<'a> {
    pub c: &'a Compact,
    pub reg: &'a [u32],
    pub origin: [f64; 3],
    pub cs: f64,
    pub ch: f64,
    pub sample_dist: f64,
    pub max_error: f64,
    /// Most extra vertices of one polygon (L15).
    pub max_extra: usize,
}

/// The detail mesh of one polygon: extra vertices and triangles (indices < n are corners).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Detail {
    pub extra: Vec<Vec3>,
    pub tris: Vec<[u8; 3]>,
}

/// More than `max_extra` extra vertices would be needed (L15).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TooManyVertices;

fn fan(n: usize) -> Detail {
    Detail {
        extra: Vec::new(),
        tris: (1..n - 1).map(|k| [0, k as u8, k as u8 + 1]).collect(),
    }
}

/// T17 of the tile reader for one polygon: extra vertices inside, triangles strictly
/// counter-clockwise, area sum within the tolerance.
fn passes_t17(corners: &[Vec3], d: &Detail) -> bool {
    let n = corners.len();
    if !d.extra.iter().all(|v| point_in_convex_xz(v, corners)) {
        return false;
    }
    let get = |x: u8| {
        let x = usize::from(x);
        if x < n {
            corners[x]
        } else {
            d.extra[x - n]
        }
    };
    let mut sum = 0.0;
    for t in &d.tris {
        let o = orient(&get(t[0]), &get(t[1]), &get(t[2]));
        if o.is_nan() || o <= 0.0 {
            return false;
        }
        sum += o;
    }
    let area = poly_area2_xz(corners);
    (sum - area).abs() <= DETAIL_AREA_TOLERANCE * area
}

impl Surface<'_> {
    /// The floor height (wu) of `region` at world point p, per §14.
    fn height(&self, p: &Vec3, region: u32) -> Option<f64> {
        let c = self.c;
        let size = c.win.size as i64;
        let gx = floor_i((p[0] - self.origin[0]) / self.cs) - c.win.x0;
        let gz = floor_i((p[2] - self.origin[2]) / self.cs) - c.win.z0;
        const AROUND: [(i64, i64); 9] = [
            (0, 0),
            (1, 0),
            (0, 1),
            (-1, 0),
            (0, -1),
            (1, 1),
            (-1, 1),
            (-1, -1),
            (1, -1),
        ];
        for (dx, dz) in AROUND {
            let (x, z) = (gx + dx, gz + dz);
            if x < 0 || z < 0 || x >= size || z >= size {
                continue;
            }
            let col = (z * size + x) as usize;
            if let Some(s) = c.column(col).find(|&s| self.reg[s] == region) {
                return Some(self.origin[1] + f64::from(c.y[s]) * self.ch);
            }
        }
        None
    }

    /// The detail mesh of a polygon with world corners `corners` of region `region`.
    pub(crate) fn detail(&self, corners: &[Vec3], region: u32) -> Result<Detail, TooManyVertices> {
        let n = corners.len();
        if self.sample_dist == 0.0 {
            return Ok(fan(n));
        }
        let cands = self.candidates(corners, region);
        if cands.is_empty() {
            return Ok(fan(n));
        }
        let mut m = Mesh {
            pts: corners.to_vec(),
            tris: (1..n - 1).map(|k| [0, k as u8, k as u8 + 1]).collect(),
        };
        let mut live: Vec<Option<(usize, f64)>> = Vec::new();
        let mut remaining: Vec<usize> = (0..cands.len()).collect();
        for &ci in &remaining {
            live.push(m.locate(&cands[ci], None));
        }
        let mut dirty: Vec<usize> = Vec::new();
        loop {
            // Keep each candidate's location the first triangle in list order that holds it:
            // only triangles changed by the last insertion can change that.
            dirty.sort_unstable();
            dirty.dedup();
            for (slot, &ci) in remaining.iter().enumerate() {
                if dirty.is_empty() {
                    break;
                }
                live[slot] = match live[slot] {
                    Some((t, h)) if dirty.binary_search(&t).is_err() => {
                        let before: Vec<usize> =
                            dirty.iter().copied().take_while(|&d| d < t).collect();
                        m.locate(&cands[ci], Some(&before)).or(Some((t, h)))
                    }
                    _ => m.locate(&cands[ci], None),
                };
            }
            dirty.clear();
            let mut best: Option<(f64, usize)> = None;
            for (slot, &ci) in remaining.iter().enumerate() {
                let Some((_, h)) = live[slot] else { continue };
                let e = (cands[ci][1] - h).abs();
                if best.is_none_or(|(be, _)| e > be) {
                    best = Some((e, slot));
                }
            }
            let Some((e, slot)) = best else { break };
            if e.partial_cmp(&self.max_error) != Some(std::cmp::Ordering::Greater) {
                break;
            }
            if m.pts.len() - n == self.max_extra {
                return Err(TooManyVertices);
            }
            let p = cands[remaining[slot]];
            remaining.remove(slot);
            live.remove(slot);
            m.insert(p, &mut dirty);
        }
        let d = Detail {
            extra: m.pts[n..].to_vec(),
            tris: m.tris,
        };
        Ok(if passes_t17(corners, &d) { d } else { fan(n) })
    }

    fn candidates(&self, corners: &[Vec3], region: u32) -> Vec<Vec3> {
        let sd = self.sample_dist;
        let (ox, oz) = (self.origin[0], self.origin[2]);
        let mut b = [corners[0][0], corners[0][2], corners[0][0], corners[0][2]];
        for c in corners {
            b = [
                fmin(b[0], c[0]),
                fmin(b[1], c[2]),
                fmax(b[2], c[0]),
                fmax(b[3], c[2]),
            ];
        }
        let (i0, i1) = (floor_i((b[0] - ox) / sd), ceil_i((b[2] - ox) / sd));
        let (j0, j1) = (floor_i((b[1] - oz) / sd), ceil_i((b[3] - oz) / sd));
        let half = sd * 0.5;
        let min2 = half * half;
        let n = corners.len();
        let mut out = Vec::new();
        for j in j0..=j1 {
            for i in i0..=i1 {
                let mut p = [ox + i as f64 * sd, 0.0, oz + j as f64 * sd];
                if !point_in_convex_xz(&p, corners) {
                    continue;
                }
                let near = (0..n).any(|k| {
                    let (a, bb) = (&corners[k], &corners[(k + 1) % n]);
                    let q = lerp(a, bb, closest_t_on_segment_xz(&p, a, bb));
                    dist2_xz(&p, &q) < min2
                });
                if near {
                    continue;
                }
                if let Some(h) = self.height(&p, region) {
                    p[1] = h;
                    out.push(p);
                }
            }
        }
        out
    }
}

/// A triangulated point set being refined.
struct Mesh {
    pts: Vec<Vec3>,
    tris: Vec<[u8; 3]>,
}

/// Whether d lies strictly inside the circle through the counter-clockwise a, b, c (x–z).
fn in_circle(a: &Vec3, b: &Vec3, c: &Vec3, d: &Vec3) -> bool {
    let (adx, adz) = (a[0] - d[0], a[2] - d[2]);
    let (bdx, bdz) = (b[0] - d[0], b[2] - d[2]);
    let (cdx, cdz) = (c[0] - d[0], c[2] - d[2]);
    let ad = adx * adx + adz * adz;
    let bd = bdx * bdx + bdz * bdz;
    let cd = cdx * cdx + cdz * cdz;
    let det = (ad * (bdx * cdz - cdx * bdz) + bd * (cdx * adz - adx * cdz))
        + cd * (adx * bdz - bdx * adz);
    det > 0.0
}

impl Mesh {
    fn p(&self, k: u8) -> &Vec3 {
        &self.pts[usize::from(k)]
    }

    /// The first triangle (among `only`, or all) holding p with its edges included, and the
    /// mesh height there: `h = (oa/den)·a.y + (ob/den)·b.y + (oc/den)·c.y`.
    fn locate(&self, p: &Vec3, only: Option<&[usize]>) -> Option<(usize, f64)> {
        let test = |ti: usize| {
            let [a, b, c] = self.tris[ti].map(|k| *self.p(k));
            let (oa, ob, oc) = (orient(&b, &c, p), orient(&c, &a, p), orient(&a, &b, p));
            (oa >= 0.0 && ob >= 0.0 && oc >= 0.0).then(|| {
                let den = orient(&a, &b, &c);
                (
                    ti,
                    ((oa / den) * a[1] + (ob / den) * b[1]) + (oc / den) * c[1],
                )
            })
        };
        match only {
            Some(list) => list.iter().find_map(|&t| test(t)),
            None => (0..self.tris.len()).find_map(test),
        }
    }

    fn find_edge(&self, u: u8, v: u8) -> Option<(usize, u8)> {
        self.tris.iter().enumerate().find_map(|(ti, t)| {
            (0..3)
                .find(|&k| t[k] == u && t[(k + 1) % 3] == v)
                .map(|k| (ti, t[(k + 2) % 3]))
        })
    }

    /// Inserts p (§14): split (inside a triangle, or on an edge between two), then flips.
    /// Changed triangles are added to `dirty`.
    fn insert(&mut self, p: Vec3, dirty: &mut Vec<usize>) {
        let Some((ti, o)) = (0..self.tris.len()).find_map(|ti| {
            let [a, b, c] = self.tris[ti].map(|k| *self.p(k));
            let o = [orient(&a, &b, &p), orient(&b, &c, &p), orient(&c, &a, &p)];
            o.iter().all(|&x| x >= 0.0).then_some((ti, o))
        }) else {
            return;
        };
        let k = self.pts.len() as u8;
        let t = self.tris[ti];
        let mut stack = Vec::with_capacity(4);
        match o.iter().filter(|&&x| x == 0.0).count() {
            0 => {
                let [a, b, c] = t;
                self.pts.push(p);
                self.tris[ti] = [a, b, k];
                self.tris.push([b, c, k]);
                self.tris.push([c, a, k]);
                dirty.extend([ti, self.tris.len() - 2, self.tris.len() - 1]);
                stack.extend([(a, b), (b, c), (c, a)]);
            }
            1 => {
                // p on edge e (from corner e to corner e + 1) of t, shared with the triangle across.
                let e = o.iter().position(|&x| x == 0.0).unwrap_or(0);
                let (u, v, w) = (t[e], t[(e + 1) % 3], t[(e + 2) % 3]);
                let Some((tj, q)) = self.find_edge(v, u) else {
                    return;
                };
                let (pu, pv, pw, pq) = (*self.p(u), *self.p(v), *self.p(w), *self.p(q));
                let ok = orient(&pu, &p, &pw) > 0.0
                    && orient(&p, &pv, &pw) > 0.0
                    && orient(&pv, &p, &pq) > 0.0
                    && orient(&p, &pu, &pq) > 0.0;
                if !ok {
                    return;
                }
                self.pts.push(p);
                self.tris[ti] = [u, k, w];
                self.tris.push([k, v, w]);
                self.tris[tj] = [v, k, q];
                self.tris.push([k, u, q]);
                dirty.extend([ti, tj, self.tris.len() - 2, self.tris.len() - 1]);
                stack.extend([(w, u), (v, w), (q, v), (u, q)]);
            }
            _ => return,
        }
        let mut budget = DETAIL_FLIPS_PER_TRIANGLE * self.tris.len();
        while let Some((u, v)) = stack.pop() {
            if budget == 0 {
                break;
            }
            let (Some((t0, third)), Some((t1, q))) = (self.find_edge(u, v), self.find_edge(v, u))
            else {
                continue;
            };
            if third != k {
                continue;
            }
            let (pu, pv, pk, pq) = (*self.p(u), *self.p(v), *self.p(k), *self.p(q));
            if !in_circle(&pu, &pv, &pk, &pq) {
                continue;
            }
            if !(orient(&pk, &pu, &pq) > 0.0 && orient(&pk, &pq, &pv) > 0.0) {
                continue;
            }
            budget -= 1;
            self.tris[t0] = [k, u, q];
            self.tris[t1] = [k, q, v];
            dirty.extend([t0, t1]);
            stack.push((u, q));
            stack.push((q, v));
        }
    }
}

#[cfg(test)]
#[path = "detail_tests.rs"]
mod tests;
