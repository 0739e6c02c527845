//! Contours (`spec/build3d.md` §12): the outline of every region, simplified, with its holes
//! joined to it, in local corner coordinates (x, z on the window's cell corners, y in cells).
//!
//! 1. **Walk.** Spans are visited in ascending index; from each span with an unvisited boundary
//!    edge (its first in direction order 0 +x, 1 +z, 2 −x, 3 −z), the loop is walked keeping the
//!    region on the left, so outlines run counter-clockwise and holes clockwise. Each boundary
//!    edge gives one raw point, the edge's first corner, with the corner height (the highest
//!    floor among the span and the spans linked around that corner) and the edge's kind: the
//!    region across it (0 for none), whether that region has another area, and the tile side
//!    when the edge lies on the tile border.
//! 2. **Simplify.** The raw points where the kind changes are kept (if there are none: the
//!    lowest (x, then z) and highest points). Then, over the segments in order, repeating each
//!    segment until it passes: a segment of wall or area-border edges gets the raw point farthest
//!    from it (`dist2_seg`, traversed from its lexicographically smaller end, first maximum
//!    wins) when that distance² exceeds `max_edge_error²`, or when both ends lie on the same tile
//!    side line while its edges do not (so that no segment lies on a tile side unless its cells
//!    are on that side). Then, the same way, a wall segment longer than `max_edge_len` with more
//!    than one raw edge gets its middle raw point, and the side-line rule is applied again.
//!    Then, over all loops of the region, a segment that meets another segment anywhere but at
//!    the position of one of its own ends gets its farthest raw point, until none does.
//!    Consecutive points at the same (x, z) are reduced to the first.
//! 3. **Holes.** Loops with negative area are holes. Holes are taken by their lowest (x, z)
//!    point; each is cut into its outline along the shortest diagonal from one of its points
//!    (starting at that lowest one) to an outline point that lies inside the outline's corner
//!    and crosses no edge.

use crate::compact::Compact;
use crate::error::{BuildError, TileCell};
use crate::regions::{Regions, BORDER};

/// A contour point: corner x, floor height y, corner z (local cells).
pub(crate) type Pt = [i32; 3];

/// The kind of a raw edge: region across (0 none), area border, tile side on (4 = none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Kind {
    region: u32,
    area_border: bool,
    side: u8,
}

impl Kind {
    fn simplifiable(&self) -> bool {
        self.region == 0 || self.area_border
    }
}

const NO_SIDE: u8 = 4;

/// The simplified outline of one region with its holes merged in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Contour {
    pub region: u32,
    pub pts: Vec<Pt>,
}

/// Twice the signed area (x–z) of a closed loop: positive counter-clockwise.
pub(crate) fn area2(pts: &[Pt]) -> i64 {
    let n = pts.len();
    let mut a = 0i64;
    for i in 0..n {
        let (p, q) = (pts[i], pts[(i + 1) % n]);
        a += i64::from(p[0]) * i64::from(q[2]) - i64::from(q[0]) * i64::from(p[2]);
    }
    a
}

/// The squared distance (x–z) from p to segment a → b, in binary64 from exact integers:
/// `t = clamp((pq·ap) / |pq|², 0, 1)`, `e = a + t·pq − p`, result `e.x² + e.z²`.
fn dist2_seg(p: Pt, a: Pt, b: Pt) -> f64 {
    let (pqx, pqz) = (f64::from(b[0] - a[0]), f64::from(b[2] - a[2]));
    let (dx, dz) = (f64::from(p[0] - a[0]), f64::from(p[2] - a[2]));
    let d = pqx * pqx + pqz * pqz;
    let mut t = pqx * dx + pqz * dz;
    if d > 0.0 {
        t /= d;
    }
    let t = crate::num::clamp01(t);
    let ex = (f64::from(a[0]) + t * pqx) - f64::from(p[0]);
    let ez = (f64::from(a[2]) + t * pqz) - f64::from(p[2]);
    ex * ex + ez * ez
}

struct Walker<'a> {
    c: &'a Compact,
    reg: &'a [u32],
    flags: Vec<u8>,
}

impl Walker<'_> {
    fn corner_height(&self, i: usize, d: usize) -> i32 {
        let c = self.c;
        let e = (d + 3) & 3;
        let mut h = c.y[i];
        if let Some(a) = c.neighbour(i, d) {
            h = h.max(c.y[a]);
            if let Some(a2) = c.neighbour(a, e) {
                h = h.max(c.y[a2]);
            }
        }
        if let Some(b) = c.neighbour(i, e) {
            h = h.max(c.y[b]);
            if let Some(b2) = c.neighbour(b, d) {
                h = h.max(c.y[b2]);
            }
        }
        h as i32
    }

    fn walk(&mut self, start: usize, d0: usize) -> (Vec<Pt>, Vec<Kind>) {
        let c = self.c;
        let (size, b) = (c.win.size, c.win.border);
        let (mut i, mut d) = (start, d0);
        let (mut pts, mut kinds) = (Vec::new(), Vec::new());
        let r = self.reg[start];
        // Each step either visits an edge (4 per span) or moves to a neighbour of the region
        // (at most 4 per span); a flat region's loop closes well before this bound.
        let bound = 8 * (c.span_count() + 1);
        for _ in 0..bound {
            if self.flags[i] & (1 << d) != 0 {
                let col = c.col[i] as usize;
                let (x, z) = ((col % size) as i32, (col / size) as i32);
                let (px, pz) = match d {
                    0 => (x + 1, z),
                    1 => (x + 1, z + 1),
                    2 => (x, z + 1),
                    _ => (x, z),
                };
                let (region, area_border) = match c.neighbour(i, d) {
                    Some(j) => {
                        let q = self.reg[j];
                        let ab = q != 0 && q != BORDER && c.area[j] != c.area[i];
                        (q, ab)
                    }
                    None => (0, false),
                };
                let last = (size - b - 1) as i32;
                let side = match d {
                    0 if x == last => 0,
                    1 if z == last => 1,
                    2 if x == b as i32 => 2,
                    3 if z == b as i32 => 3,
                    _ => NO_SIDE,
                };
                pts.push([px, self.corner_height(i, d), pz]);
                kinds.push(Kind {
                    region,
                    area_border,
                    side,
                });
                self.flags[i] &= !(1 << d);
                d = (d + 1) & 3;
            } else {
                match c.neighbour(i, d) {
                    Some(j) if self.reg[j] == r => {
                        i = j;
                        d = (d + 3) & 3;
                    }
                    _ => break,
                }
            }
            if i == start && d == d0 {
                break;
            }
        }
        (pts, kinds)
    }
}

/// The side line (0 x = hi, 1 z = hi, 2 x = lo, 3 z = lo) a point lies on, as a bit set.
fn on_lines(p: Pt, lo: i32, hi: i32) -> u8 {
    u8::from(p[0] == hi)
        | u8::from(p[2] == hi) << 1
        | u8::from(p[0] == lo) << 2
        | u8::from(p[2] == lo) << 3
}

struct Simplifier<'a> {
    pts: &'a [Pt],
    kinds: &'a [Kind],
    lo: i32,
    hi: i32,
}

impl Simplifier<'_> {
    /// Raw indices strictly between a and b (forward), in the canonical traversal order, and
    /// the segment's ends in that order: the farthest from the segment (first maximum) with
    /// its distance².
    fn farthest_d(&self, a: usize, b: usize) -> Option<(f64, usize)> {
        let n = self.pts.len();
        let (pa, pb) = (self.pts[a], self.pts[b]);
        let forward = (pb[0], pb[2]) > (pa[0], pa[2]);
        let (s0, s1) = if forward { (pa, pb) } else { (pb, pa) };
        let count = (b + n - a) % n;
        let mut best: Option<(f64, usize)> = None;
        // Forward from a + 1, or backward from b − 1, without a remainder per point.
        let mut ci = if forward { a } else { b };
        for _ in 1..count {
            ci = if forward {
                if ci + 1 == n {
                    0
                } else {
                    ci + 1
                }
            } else if ci == 0 {
                n - 1
            } else {
                ci - 1
            };
            let d = dist2_seg(self.pts[ci], s0, s1);
            if best.is_none_or(|(bd, _)| d > bd) {
                best = Some((d, ci));
            }
        }
        best
    }

    fn farthest(&self, a: usize, b: usize) -> Option<usize> {
        self.farthest_d(a, b).map(|(_, i)| i)
    }

    /// Both ends on one side line while the segment's edges are not on it.
    fn on_side_line(&self, a: usize, b: usize) -> bool {
        let common =
            on_lines(self.pts[a], self.lo, self.hi) & on_lines(self.pts[b], self.lo, self.hi);
        common != 0 && self.kinds[a].side == NO_SIDE
    }

    fn run(&self, max_error: f64, max_len: u32) -> Vec<usize> {
        let n = self.pts.len();
        let mut s: Vec<usize> = (0..n)
            .filter(|&i| self.kinds[(i + n - 1) % n] != self.kinds[i])
            .collect();
        if s.is_empty() {
            let key = |i: &usize| (self.pts[*i][0], self.pts[*i][2]);
            let lo = (0..n).min_by_key(key).unwrap_or(0);
            let hi = (0..n)
                .max_by_key(|i| (key(i), std::cmp::Reverse(*i)))
                .unwrap_or(0);
            s = if lo < hi { vec![lo, hi] } else { vec![hi, lo] };
            s.dedup();
        }
        let e2 = max_error * max_error;
        self.insert_while(&mut s, |me, a, b| {
            // The deviation is the farthest point's distance² (0 without one).
            let far = if me.kinds[a].simplifiable() {
                let f = me.farthest_d(a, b);
                if f.map_or(0.0, |(d, _)| d) > e2 {
                    return f.map(|(_, i)| i);
                }
                Some(f)
            } else {
                None
            };
            if me.on_side_line(a, b) {
                far.unwrap_or_else(|| me.farthest_d(a, b)).map(|(_, i)| i)
            } else {
                None
            }
        });
        if max_len > 0 {
            let l2 = i64::from(max_len) * i64::from(max_len);
            self.insert_while(&mut s, |me, a, b| {
                if me.on_side_line(a, b) {
                    return me.farthest(a, b);
                }
                if me.kinds[a].region != 0 {
                    return None;
                }
                let (pa, pb) = (me.pts[a], me.pts[b]);
                let (dx, dz) = (i64::from(pb[0] - pa[0]), i64::from(pb[2] - pa[2]));
                let count = (b + n - a) % n;
                if dx * dx + dz * dz <= l2 || count <= 1 {
                    return None;
                }
                let forward = (pb[0], pb[2]) > (pa[0], pa[2]);
                Some(if forward {
                    (a + count / 2) % n
                } else {
                    (a + count.div_ceil(2)) % n
                })
            });
        }
        s
    }

    /// Walks the segments of `s`, inserting what `rule` asks for, until every segment passes.
    fn insert_while(
        &self,
        s: &mut Vec<usize>,
        rule: impl Fn(&Self, usize, usize) -> Option<usize>,
    ) {
        let mut i = 0;
        while i < s.len() {
            let (a, b) = (s[i], s[(i + 1) % s.len()]);
            if s.len() == 1 {
                break;
            }
            match rule(self, a, b) {
                Some(m) => s.insert(i + 1, m),
                None => i += 1,
            }
        }
    }
}

/// One walked loop: raw points, their kinds, and the raw indices kept by simplification.
#[derive(Debug, Clone)]
struct RawLoop {
    pts: Vec<Pt>,
    kinds: Vec<Kind>,
    keep: Vec<usize>,
}

/// Pass 3 of §12 step 2: while a simplified segment of a region meets another segment of the
/// region's loops (other than at the position of one of its own ends), it gets its farthest raw
/// point. Raw outlines meet only at such shared positions, so this ends.
fn untangle(loops: &mut [RawLoop], lo: i32, hi: i32) {
    let seg = |l: &RawLoop, k: usize| (l.pts[l.keep[k]], l.pts[l.keep[(k + 1) % l.keep.len()]]);
    loop {
        let mut changed = false;
        for li in 0..loops.len() {
            let mut k = 0;
            while k < loops[li].keep.len() && loops[li].keep.len() > 1 {
                let (a, b) = seg(&loops[li], k);
                let crosses = loops.iter().enumerate().any(|(lj, other)| {
                    (0..other.keep.len()).any(|m| {
                        if lj == li && m == k {
                            return false;
                        }
                        let (c, d) = seg(other, m);
                        !(same_xz(a, c) || same_xz(a, d) || same_xz(b, c) || same_xz(b, d))
                            && segments_meet(a, b, c, d)
                    })
                });
                let l = &loops[li];
                let refine = crosses.then(|| {
                    Simplifier {
                        pts: &l.pts,
                        kinds: &l.kinds,
                        lo,
                        hi,
                    }
                    .farthest(l.keep[k], l.keep[(k + 1) % l.keep.len()])
                });
                match refine.flatten() {
                    Some(m) => {
                        loops[li].keep.insert(k + 1, m);
                        changed = true;
                    }
                    None => k += 1,
                }
            }
        }
        if !changed {
            return;
        }
    }
}

/// Walks, simplifies and hole-merges the contours of every region (§12): per region (index
/// r − 1) its outlines.
pub(crate) fn contours(
    c: &Compact,
    regs: &Regions,
    max_error: f64,
    max_len: u32,
    cell: TileCell,
) -> Result<Vec<Vec<Contour>>, BuildError> {
    let n = c.span_count();
    let mut w = Walker {
        c,
        reg: &regs.reg,
        flags: vec![0; n],
    };
    for i in 0..n {
        let r = regs.reg[i];
        if r == 0 || r == BORDER {
            continue;
        }
        for d in 0..4 {
            let same = c.neighbour(i, d).is_some_and(|j| regs.reg[j] == r);
            if !same {
                w.flags[i] |= 1 << d;
            }
        }
    }
    let (lo, hi) = (c.win.border as i32, (c.win.size - c.win.border) as i32);
    let mut raw: Vec<Vec<RawLoop>> = vec![Vec::new(); regs.count as usize];
    for i in 0..n {
        while w.flags[i] != 0 {
            let d = w.flags[i].trailing_zeros() as usize;
            let (pts, kinds) = w.walk(i, d);
            let keep = Simplifier {
                pts: &pts,
                kinds: &kinds,
                lo,
                hi,
            }
            .run(max_error, max_len);
            raw[regs.reg[i] as usize - 1].push(RawLoop { pts, kinds, keep });
        }
    }
    let mut loops: Vec<Vec<Vec<Pt>>> = Vec::with_capacity(raw.len());
    for mut region in raw {
        untangle(&mut region, lo, hi);
        let mut kept = Vec::new();
        for l in region {
            let mut out: Vec<Pt> = l.keep.iter().map(|&k| l.pts[k]).collect();
            dedup_xz(&mut out);
            if out.len() >= 3 && area2(&out) != 0 {
                kept.push(out);
            }
        }
        loops.push(kept);
    }
    let mut result = Vec::with_capacity(loops.len());
    for (ri, l) in loops.into_iter().enumerate() {
        let region = ri as u32 + 1;
        let merged = merge_holes(l).ok_or(BuildError::HoleMerge { tile: cell, region })?;
        result.push(
            merged
                .into_iter()
                .map(|pts| Contour { region, pts })
                .collect(),
        );
    }
    Ok(result)
}

/// Removes each point at the same (x, z) as the point before it (cyclically).
fn dedup_xz(p: &mut Vec<Pt>) {
    let mut i = 0;
    while p.len() > 1 && i < p.len() {
        let j = (i + 1) % p.len();
        if p[i][0] == p[j][0] && p[i][2] == p[j][2] {
            p.remove(j);
            if j < i {
                i -= 1;
            }
        } else {
            i += 1;
        }
    }
}

/// Orientation of (a, b, c) on x–z in exact integers: positive counter-clockwise.
#[inline]
pub(crate) fn orient_i(a: Pt, b: Pt, c: Pt) -> i64 {
    (i64::from(b[0]) - i64::from(a[0])) * (i64::from(c[2]) - i64::from(a[2]))
        - (i64::from(b[2]) - i64::from(a[2])) * (i64::from(c[0]) - i64::from(a[0]))
}

#[inline]
pub(crate) fn same_xz(a: Pt, b: Pt) -> bool {
    a[0] == b[0] && a[2] == b[2]
}

/// Whether closed segments ab and cd share a point (x–z, exact).
pub(crate) fn segments_meet(a: Pt, b: Pt, c: Pt, d: Pt) -> bool {
    let (o1, o2) = (orient_i(a, b, c), orient_i(a, b, d));
    let (o3, o4) = (orient_i(c, d, a), orient_i(c, d, b));
    if ((o1 > 0 && o2 < 0) || (o1 < 0 && o2 > 0)) && ((o3 > 0 && o4 < 0) || (o3 < 0 && o4 > 0)) {
        return true;
    }
    let between = |p: Pt, q: Pt, r: Pt| {
        // r collinear with pq: within its bounding box.
        r[0] >= p[0].min(q[0])
            && r[0] <= p[0].max(q[0])
            && r[2] >= p[2].min(q[2])
            && r[2] <= p[2].max(q[2])
    };
    (o1 == 0 && between(a, b, c))
        || (o2 == 0 && between(a, b, d))
        || (o3 == 0 && between(c, d, a))
        || (o4 == 0 && between(c, d, b))
}

/// Whether p lies strictly inside the corner of loop `o` at vertex j (counter-clockwise loop).
pub(crate) fn in_cone(o: &[Pt], j: usize, p: Pt) -> bool {
    let n = o.len();
    let (a0, a, a1) = (o[(j + n - 1) % n], o[j], o[(j + 1) % n]);
    if orient_i(a0, a, a1) >= 0 {
        orient_i(a0, a, p) > 0 && orient_i(a, a1, p) > 0
    } else {
        !(orient_i(a0, a, p) <= 0 && orient_i(a, a1, p) <= 0)
    }
}

/// Joins the holes of one region's loops to their outlines (§12 step 3). `None` when a hole
/// has no valid diagonal.
fn merge_holes(loops: Vec<Vec<Pt>>) -> Option<Vec<Vec<Pt>>> {
    let (mut outlines, holes): (Vec<Vec<Pt>>, Vec<Vec<Pt>>) =
        loops.into_iter().partition(|l| area2(l) > 0);
    if holes.is_empty() {
        return Some(outlines);
    }
    if outlines.is_empty() {
        return Some(Vec::new());
    }
    let lowest = |h: &Vec<Pt>| {
        (0..h.len())
            .min_by_key(|&i| (h[i][0], h[i][2], i))
            .unwrap_or(0)
    };
    let bbox = |l: &[Pt]| {
        let mut b = [i32::MAX, i32::MAX, i32::MIN, i32::MIN];
        for p in l {
            b = [
                b[0].min(p[0]),
                b[1].min(p[2]),
                b[2].max(p[0]),
                b[3].max(p[2]),
            ];
        }
        b
    };
    // Each hole goes to the first outline whose bounding box holds its own.
    let mut owned: Vec<Vec<(usize, Vec<Pt>)>> = vec![Vec::new(); outlines.len()];
    for h in holes {
        let hb = bbox(&h);
        let o = outlines
            .iter()
            .position(|o| {
                let ob = bbox(o);
                ob[0] <= hb[0] && ob[1] <= hb[1] && ob[2] >= hb[2] && ob[3] >= hb[3]
            })
            .unwrap_or(0);
        let l = lowest(&h);
        owned[o].push((l, h));
    }
    for (oi, mut hs) in owned.into_iter().enumerate() {
        hs.sort_by_key(|(l, h)| (h[*l][0], h[*l][2]));
        for k in 0..hs.len() {
            let (l, ref h) = hs[k];
            let outline = &outlines[oi];
            let mut found = None;
            'points: for step in 0..h.len() {
                let hi = (l + step) % h.len();
                let p = h[hi];
                let mut best: Option<(i64, usize)> = None;
                for j in 0..outline.len() {
                    if !in_cone(outline, j, p) {
                        continue;
                    }
                    let q = outline[j];
                    let blocked = edges(outline)
                        .chain(hs[k..].iter().flat_map(|(_, h)| edges(h)))
                        .any(|(e0, e1)| {
                            !(same_xz(e0, q) || same_xz(e1, q) || same_xz(e0, p) || same_xz(e1, p))
                                && segments_meet(q, p, e0, e1)
                        });
                    if blocked {
                        continue;
                    }
                    let d = {
                        let (dx, dz) = (i64::from(p[0] - q[0]), i64::from(p[2] - q[2]));
                        dx * dx + dz * dz
                    };
                    if best.is_none_or(|(bd, _)| d < bd) {
                        best = Some((d, j));
                    }
                }
                if let Some((_, j)) = best {
                    found = Some((j, hi));
                    break 'points;
                }
            }
            let (j, hi) = found?;
            let mut merged = Vec::with_capacity(outline.len() + h.len() + 2);
            merged.extend_from_slice(&outline[..=j]);
            merged.extend_from_slice(&h[hi..]);
            merged.extend_from_slice(&h[..=hi]);
            merged.extend_from_slice(&outline[j..]);
            outlines[oi] = merged;
        }
    }
    Some(outlines)
}

fn edges(l: &[Pt]) -> impl Iterator<Item = (Pt, Pt)> + '_ {
    (0..l.len()).map(move |i| (l[i], l[(i + 1) % l.len()]))
}

#[cfg(test)]
#[path = "contours_tests.rs"]
mod tests;
