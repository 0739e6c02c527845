//! Polygons (`spec/build3d.md` B40–B43).

use super::*;
use crate::contours::{area2, contours};
use crate::regions::regions;
use crate::test_kit::{compact_of, CELL};

fn mesh_of(floor: impl Fn(usize, usize) -> bool, nvp: usize) -> PolyMesh {
    let c = compact_of(
        12,
        2,
        |x, z| if floor(x, z) { vec![(4, 1)] } else { vec![] },
    );
    let r = regions(&c, 0, 10_000, CELL, u64::MAX).unwrap();
    let cs = contours(&c, &r, 0.0, 0, CELL).unwrap();
    let refs: Vec<&Contour> = cs.iter().flatten().collect();
    polymesh(&refs, |_| 1, nvp, 2, 10, CELL, 0, &Caps::DEFAULT).unwrap()
}

fn check_mesh(m: &PolyMesh, nvp: usize, cells: i64) {
    let mut total = 0;
    for (pi, p) in m.polys.iter().enumerate() {
        let n = p.verts.len();
        assert!((3..=nvp).contains(&n));
        let v = |k: usize| m.verts[p.verts[k % n] as usize];
        for k in 0..n {
            assert!(
                orient_i(v(k), v(k + 1), v(k + 2)) > 0,
                "polygon {pi} not strictly convex"
            );
        }
        let pts: Vec<Pt> = (0..n).map(v).collect();
        total += area2(&pts);
        for (k, e) in p.edges.iter().enumerate() {
            if let EdgeOut::Internal(q) = *e {
                let q = &m.polys[q as usize];
                let (a, b) = (p.verts[k], p.verts[(k + 1) % n]);
                let back = (0..q.verts.len())
                    .find(|&j| q.verts[j] == b && q.verts[(j + 1) % q.verts.len()] == a);
                let j = back.expect("reverse edge");
                assert_eq!(q.edges[j], EdgeOut::Internal(pi as u32));
            }
        }
    }
    assert_eq!(total, 2 * cells, "the polygons cover the region exactly");
}

#[test]
fn ear_clipping_cuts_convex_and_concave_outlines() {
    let square = [[0, 0, 0], [2, 0, 0], [2, 0, 2], [0, 0, 2]];
    let t = triangulate(&square).unwrap();
    assert_eq!(t.len(), 2);
    // An L: six corners, four triangles, each counter-clockwise.
    let l = [
        [0, 0, 0],
        [4, 0, 0],
        [4, 0, 2],
        [2, 0, 2],
        [2, 0, 4],
        [0, 0, 4],
    ];
    let t = triangulate(&l).unwrap();
    assert_eq!(t.len(), 4);
    for tri in &t {
        assert!(orient_i(l[tri[0]], l[tri[1]], l[tri[2]]) > 0);
    }
    // A collinear corner is never an ear tip.
    let c = [[0, 0, 0], [1, 0, 0], [2, 0, 0], [2, 0, 2], [0, 0, 2]];
    let t = triangulate(&c).unwrap();
    assert!(t
        .iter()
        .all(|tri| orient_i(c[tri[0]], c[tri[1]], c[tri[2]]) > 0));
}

#[test]
fn polygons_are_convex_cover_the_region_and_link_both_ways() {
    let l = |x: usize, z: usize| {
        (3..9).contains(&x) && (3..6).contains(&z) || (3..5).contains(&x) && (3..9).contains(&z)
    };
    for nvp in 3..=6 {
        let m = mesh_of(l, nvp);
        check_mesh(&m, nvp, 18 + 6);
    }
    let ring = |x: usize, z: usize| {
        (3..9).contains(&x) && (3..9).contains(&z) && !((5..7).contains(&x) && (5..7).contains(&z))
    };
    check_mesh(&mesh_of(ring, 6), 6, 32);
}

#[test]
fn edges_on_the_side_lines_are_portals() {
    // The floor covers the interior x ∈ [2, 10) fully along z ∈ [4, 8).
    let m = mesh_of(|x, z| (2..10).contains(&x) && (4..8).contains(&z), 6);
    let mut sides = Vec::new();
    for p in &m.polys {
        for e in &p.edges {
            if let EdgeOut::Portal(s) = e {
                sides.push(*s);
            }
        }
    }
    sides.sort();
    assert_eq!(sides, vec![0, 2]);
}

/// The merge as §13 step 3 states it: every round tests every pair again.
fn merge_every_pair(verts: &[Pt], polys: &mut Vec<Vec<u32>>, nvp: usize) {
    loop {
        let mut best: Option<(i64, usize, usize, Vec<u32>)> = None;
        for i in 0..polys.len() {
            for j in i + 1..polys.len() {
                let (a, b) = (&polys[i], &polys[j]);
                for ea in 0..a.len() {
                    let (v0, v1) = (a[ea], a[(ea + 1) % a.len()]);
                    let Some(eb) = (0..b.len()).find(|&k| b[k] == v1 && b[(k + 1) % b.len()] == v0)
                    else {
                        continue;
                    };
                    let (p, q) = (verts[v0 as usize], verts[v1 as usize]);
                    let (dx, dz) = (i64::from(q[0] - p[0]), i64::from(q[2] - p[2]));
                    let len2 = dx * dx + dz * dz;
                    if best.as_ref().is_some_and(|(l, ..)| *l >= len2) {
                        continue;
                    }
                    if let Some(m) = merged(verts, a, ea, b, eb, nvp) {
                        best = Some((len2, i, j, m));
                    }
                }
            }
        }
        let Some((_, i, j, m)) = best else { return };
        polys[i] = m;
        polys.remove(j);
    }
}

#[test]
fn kept_pair_merge_equals_testing_every_pair_each_round() {
    // Outlines with many equal-length shared edges (ties) and concave corners.
    let mut outlines: Vec<Vec<Pt>> = Vec::new();
    for w in 2..9 {
        let mut comb = vec![[0, 0, 0]];
        for k in 0..w {
            comb.push([2 * k + 1, 0, 0]);
            comb.push([2 * k + 1, 0, 3 + (k % 3)]);
            comb.push([2 * k + 2, 0, 3 + (k % 3)]);
            comb.push([2 * k + 2, 0, 0]);
        }
        comb.push([2 * w + 1, 0, 0]);
        comb.push([2 * w + 1, 0, -2]);
        comb.push([0, 0, -2]);
        outlines.push(comb);
        let dirs = [
            (10, 0),
            (9, 4),
            (7, 7),
            (4, 9),
            (0, 10),
            (-4, 9),
            (-7, 7),
            (-9, 4),
            (-10, 0),
            (-9, -4),
            (-7, -7),
            (-4, -9),
            (0, -10),
            (4, -9),
            (7, -7),
            (9, -4),
        ];
        let star: Vec<Pt> = (0..16)
            .map(|k| {
                let r = if k % 2 == 0 { 4 } else { 2 + (k + w) % 2 };
                [dirs[k as usize].0 * r, 0, dirs[k as usize].1 * r]
            })
            .collect();
        outlines.push(star);
    }
    let mut merges = 0;
    for pts in &outlines {
        let pts: Vec<Pt> = if area2(pts) < 0 {
            pts.iter().rev().copied().collect()
        } else {
            pts.clone()
        };
        let tris = triangulate(&pts).expect("outline triangulates");
        for nvp in [3, 4, 6, 12] {
            let polys: Vec<Vec<u32>> = tris.iter().map(|t| t.map(|k| k as u32).to_vec()).collect();
            let (mut a, mut b) = (polys.clone(), polys.clone());
            merge_polys(&pts, &mut a, nvp);
            merge_every_pair(&pts, &mut b, nvp);
            assert_eq!(a, b, "nvp {nvp}, outline {pts:?}");
            merges += polys.len() - a.len();
        }
    }
    assert!(merges > 100, "the outlines exercise merging ({merges})");
}
