//! Rasterization (`spec/build3d.md` B14, B17–B19).

use proptest::prelude::*;

use super::*;
use crate::num::{ceil_i, floor_i};
use crate::plan::walkable;
use crate::test_kit::CELL;

fn tri(p: [[f64; 3]; 3], area: u8) -> GridTri {
    GridTri { p, area }
}

fn win(size: usize) -> Window {
    Window {
        x0: 0,
        z0: 0,
        size,
        border: 0,
    }
}

fn spans_of(hf: &Heightfield) -> Vec<(usize, Span)> {
    (0..hf.start.len() - 1)
        .flat_map(|c| hf.column(c).map(move |i| (c, hf.spans[i])))
        .collect()
}

fn strip_of(poly: &[[f64; 3]], axis: usize, lo: f64, hi: f64) -> Vec<[f64; 3]> {
    let mut out = Vec::new();
    strip(poly, axis, lo, hi, |p| out.push(*p));
    out
}

#[test]
fn strip_keeps_points_on_the_lines_once() {
    let t = [[0.0, 0.0, 0.0], [2.0, 1.0, 0.0], [1.0, 2.0, 1.0]];
    // (1, 2, 1) lies on u = 1: kept as itself; the first edge crosses u = 1 at v = 0.5.
    assert_eq!(
        strip_of(&t, 0, 1.0, 3.0),
        vec![[1.0, 0.5, 0.0], [2.0, 1.0, 0.0], [1.0, 2.0, 1.0]]
    );
    // An edge crossing both lines gives both crossings, in the order it meets them.
    let t = [[0.0, 0.0, 0.0], [4.0, 4.0, 0.0], [0.0, 0.0, 4.0]];
    let s = strip_of(&t, 0, 1.0, 2.0);
    assert_eq!(s[0], [1.0, 1.0, 0.0]);
    assert_eq!(s[1], [2.0, 2.0, 0.0]);
    assert_eq!(s.len(), 4);
    assert_eq!(s[2][0], 2.0);
    assert_eq!(s[3][0], 1.0);
}

#[test]
fn crossings_do_not_depend_on_edge_direction() {
    let a = [0.1, 0.7, 0.3];
    let b = [2.9, 1.9, 0.8];
    assert_eq!(crossing(&a, &b, 0, 1.0), crossing(&b, &a, 0, 1.0));
    let t = (1.0 - a[0]) / (b[0] - a[0]);
    assert_eq!(crossing(&a, &b, 0, 1.0)[1], a[1] + (b[1] - a[1]) * t);
}

#[test]
fn integer_floor_and_ceil_are_exact() {
    for x in [
        0.0,
        -0.0,
        0.5,
        -0.5,
        1.0,
        -1.0,
        2.999999999999,
        -2.000000001,
        1e15 + 0.5,
        -1e15 - 0.5,
    ] {
        assert_eq!(floor_i(x), x.floor() as i64, "{x}");
        assert_eq!(ceil_i(x), x.ceil() as i64, "{x}");
    }
}

#[test]
fn vertical_wall_on_a_grid_line_goes_to_the_higher_column() {
    // A wall in the plane u = 2: only column 2 of each row it crosses gets spans.
    let t = tri([[2.0, 0.0, 0.5], [2.0, 3.0, 0.5], [2.0, 0.0, 1.5]], 0);
    let hf = rasterize(&[t], &[0], win(4), 1, CELL, u64::MAX).unwrap();
    let cols: Vec<usize> = spans_of(&hf).iter().map(|(c, _)| c % 4).collect();
    assert!(!cols.is_empty());
    assert!(cols.iter().all(|&x| x == 2), "{cols:?}");
}

#[test]
fn span_bounds_floor_and_ceil() {
    // A flat triangle inside a height cell, and one exactly on a height line: one cell each.
    for y in [2.2, 2.0] {
        let t = tri([[0.0, y, 0.0], [0.0, y, 1.0], [1.0, y, 0.0]], 63);
        let hf = rasterize(&[t], &[0], win(2), 1, CELL, u64::MAX).unwrap();
        let want = Span {
            smin: 2,
            smax: 3,
            area: 63,
        };
        assert_eq!(spans_of(&hf)[0].1, want, "y = {y}");
    }
}

fn merged(raw: &[(u32, u32, u8)], climb: u32) -> Vec<Span> {
    let raw: Vec<RawSpan> = raw
        .iter()
        .map(|&(smin, smax, area)| RawSpan {
            x: 0,
            z: 0,
            smin,
            smax,
            area,
        })
        .collect();
    let occ = Occupied {
        x0: 0,
        z0: 0,
        x1: 1,
        z1: 1,
    };
    merge(&raw, win(1), climb, occ).spans
}

#[test]
fn merge_takes_the_area_of_spans_near_the_top() {
    // Issue #59's cell: the steep triangle's top (12) is 6 above the floor's (6), climb 4.
    let steep_first = merged(&[(0, 12, 0), (5, 6, 63)], 4);
    let floor_first = merged(&[(5, 6, 63), (0, 12, 0)], 4);
    assert_eq!(
        steep_first,
        vec![Span {
            smin: 0,
            smax: 12,
            area: 0
        }]
    );
    assert_eq!(floor_first, steep_first);
    // Within climb of the top, the larger area wins.
    assert_eq!(merged(&[(0, 12, 0), (5, 8, 63)], 4)[0].area, 63);
    assert_eq!(merged(&[(0, 12, 0), (5, 7, 63)], 4)[0].area, 0);
    // Touching spans merge; separated ones do not.
    assert_eq!(
        merged(&[(0, 3, 1), (3, 5, 2)], 0),
        vec![Span {
            smin: 0,
            smax: 5,
            area: 2
        }]
    );
    assert_eq!(merged(&[(0, 3, 1), (4, 5, 2)], 0).len(), 2);
}

proptest! {
    #[test]
    fn columns_equal_strips(
        pts in prop::collection::vec((0u8..16, 0.0..10.0f64), 3..4),
        quarter in any::<bool>(),
    ) {
        // A triangle with corners on quarter or arbitrary positions, as a "slab".
        let slab: Vec<[f64; 3]> = pts
            .iter()
            .enumerate()
            .map(|(k, &(u, v))| {
                let u = if quarter { f64::from(u) * 0.25 } else { f64::from(u) * 0.3 + 0.01 * k as f64 };
                [u, v, k as f64]
            })
            .collect();
        let (mut lo, mut hi) = (slab[0][0], slab[0][0]);
        for p in &slab {
            lo = lo.min(p[0]);
            hi = hi.max(p[0]);
        }
        let (i0, i1) = (floor_i(lo), floor_i(hi));
        let mut acc = Columns::default();
        let u: Vec<f64> = slab.iter().map(|p| p[0]).collect();
        let v: Vec<f64> = slab.iter().map(|p| p[1]).collect();
        columns(&u, &v, i0, i1, &mut acc);
        for (c, i) in (i0..=i1).enumerate() {
            let mut want = Range::default();
            strip(&slab, 0, i as f64, i as f64 + 1.0, |p| want.add(p[1]));
            let (l, r, v) = (&acc.lines[c], &acc.lines[c + 1], &acc.verts[c]);
            prop_assert_eq!(l.count + r.count + v.count, want.count);
            if want.count > 0 {
                prop_assert_eq!(l.lo.min(r.lo).min(v.lo), want.lo);
                prop_assert_eq!(l.hi.max(r.hi).max(v.hi), want.hi);
            }
        }
    }

    #[test]
    fn column_keys_sort_like_the_library(mut keys in prop::collection::vec(0u64..8, 0..40)) {
        // Small ranges, so ties at every length (networks up to 4, insertion, library above 32).
        let mut want = keys.clone();
        want.sort_unstable();
        sort_keys(&mut keys);
        prop_assert_eq!(keys, want);
    }

    #[test]
    fn merge_is_order_free(
        raw in prop::collection::vec((0u32..40, 1u32..8, 0u8..4), 0..30),
        seed in any::<u64>(),
        climb in 0u32..5,
    ) {
        let spans: Vec<(u32, u32, u8)> = raw.iter().map(|&(s, h, a)| (s, s + h, a)).collect();
        let mut shuffled = spans.clone();
        let mut x = seed | 1;
        for i in (1..shuffled.len()).rev() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            shuffled.swap(i, (x % (i as u64 + 1)) as usize);
        }
        prop_assert_eq!(merged(&spans, climb), merged(&shuffled, climb));
        // Every raw span lies inside exactly one merged span, and merged spans do not touch.
        let m = merged(&spans, climb);
        for w in m.windows(2) {
            prop_assert!(w[0].smax < w[1].smin);
        }
        for &(s, e, _) in &spans {
            prop_assert_eq!(m.iter().filter(|q| q.smin <= s && e <= q.smax).count(), 1);
        }
    }
}

#[test]
fn walkable_threshold() {
    // A slope of angle a rises tan(a) per unit: walkable below 45° and not above.
    let ramp = |rise: f64| [[0.0, 0.0, 0.0], [0.0, 0.0, 1.0], [1.0, rise, 0.0]];
    let c = libm::cos(45.0 / 180.0 * std::f64::consts::PI);
    assert!(walkable(&ramp(0.99), c));
    assert!(!walkable(&ramp(1.01), c));
    // Facing down is never walkable.
    assert!(!walkable(
        &[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]],
        0.0
    ));
    assert!(walkable(
        &[[0.0, 0.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]],
        0.0
    ));
}

/// The spans of B18 computed literally: every slab by `strip` of the triangle, every cell by
/// `strip` of the slab (the reference the fast path in `rasterize` must equal).
fn reference(tris: &[GridTri], win: Window, climb: u32) -> Heightfield {
    let raw = reference_raw(tris, win);
    let occ = if raw.is_empty() {
        Occupied::default()
    } else {
        Occupied {
            x0: raw.iter().map(|s| usize::from(s.x)).min().unwrap(),
            z0: raw.iter().map(|s| usize::from(s.z)).min().unwrap(),
            x1: raw.iter().map(|s| usize::from(s.x)).max().unwrap() + 1,
            z1: raw.iter().map(|s| usize::from(s.z)).max().unwrap() + 1,
        }
    };
    merge(&raw, win, climb, occ)
}

/// The raw spans of B18, computed literally.
fn reference_raw(tris: &[GridTri], win: Window) -> Vec<RawSpan> {
    let size = win.size as i64;
    let mut raw = Vec::new();
    for t in tris {
        let (j0, j1) = crate::plan::cell_range(&t.p, 2);
        for j in j0.max(win.z0)..=j1.min(win.z0 + size - 1) {
            let slab = strip_of(&t.p, 2, j as f64, j as f64 + 1.0);
            if slab.len() < 3 {
                continue;
            }
            let lo = slab.iter().map(|p| p[0]).fold(f64::INFINITY, f64::min);
            let hi = slab.iter().map(|p| p[0]).fold(f64::NEG_INFINITY, f64::max);
            for i in floor_i(lo).max(win.x0)..=floor_i(hi).min(win.x0 + size - 1) {
                let cellp = strip_of(&slab, 0, i as f64, i as f64 + 1.0);
                if cellp.len() < 3 {
                    continue;
                }
                let vlo = cellp.iter().map(|p| p[1]).fold(f64::INFINITY, f64::min);
                let vhi = cellp.iter().map(|p| p[1]).fold(f64::NEG_INFINITY, f64::max);
                let (x, z) = ((i - win.x0) as usize, (j - win.z0) as usize);
                raw.push(span(x, z, vlo, vhi, t.area));
            }
        }
    }
    raw
}

#[test]
fn row_cut_is_the_strip_of_the_triangle() {
    // Corners on, below and above the lines, edges in both directions and along a line.
    let tris = [
        [[0.5, 1.0, 0.0], [3.0, 2.0, 2.0], [1.0, 3.0, 1.0]],
        [[0.5, 1.0, 1.0], [3.0, 2.0, 1.0], [1.0, 3.0, 2.5]],
        [[2.0, 0.25, 3.5], [0.0, 1.0, 0.5], [1.0, 3.0, 1.0]],
    ];
    for t in tris {
        // One slab for the rows of a triangle, as `rasterize` cuts them (its crossings reused).
        let mut slab = Slab::EMPTY;
        for j in -1..5 {
            slab.cut(&t, f64::from(j));
            let want: Vec<[f64; 3]> = strip_of(&t, 2, f64::from(j), f64::from(j) + 1.0)
                .iter()
                .map(|p| [p[0], p[1], 0.0])
                .collect();
            assert_eq!(slab.points(), want, "{t:?} row {j}");
        }
    }
}

proptest! {
    #[test]
    fn rasterize_equals_the_literal_spec(
        corners in prop::collection::vec(
            ((0u16..48, 0u16..64, 0u16..48), (0.0..12.0f64, 0.0..16.0f64, 0.0..12.0f64)),
            3..30,
        ),
        grid in any::<bool>(),
        x0 in 0i64..3,
        z0 in 0i64..3,
    ) {
        // Corners on quarter cells (many points on lines) or anywhere.
        let p: Vec<[f64; 3]> = corners
            .iter()
            .map(|&((a, b, c), (x, y, z))| {
                if grid {
                    [f64::from(a) * 0.25, f64::from(b) * 0.25, f64::from(c) * 0.25]
                } else {
                    [x, y, z]
                }
            })
            .collect();
        let tris: Vec<GridTri> = p
            .chunks_exact(3)
            .enumerate()
            .map(|(k, c)| tri([c[0], c[1], c[2]], (k % 3) as u8))
            .collect();
        let list: Vec<u32> = (0..tris.len() as u32).collect();
        let w = Window { x0, z0, size: 9, border: 0 };
        let fast = rasterize(&tris, &list, w, 2, CELL, u64::MAX).unwrap();
        prop_assert_eq!(&fast, &reference(&tris, w, 2));
        // L9 (B19): the count is the literal spec's raw spans, within the bound; at the count
        // the tile builds (the same heightfield), one below it fails naming the count.
        let n = reference_raw(&tris, w).len() as u64;
        prop_assert_eq!(count_spans(&tris, &list, w), n);
        prop_assert!(span_bound(&tris, &list, w) >= n);
        prop_assert_eq!(&rasterize(&tris, &list, w, 2, CELL, n).unwrap(), &fast);
        if n > 0 {
            let e = rasterize(&tris, &list, w, 2, CELL, n - 1).unwrap_err();
            prop_assert_eq!(
                e,
                BuildError::tile_limit(CELL, None, LimitKind::SpansPerTile, n, n - 1)
            );
        }
    }
}

#[test]
fn raw_spans_of_a_quad_are_its_cells_and_its_diagonal_cells() {
    // The count of `scenarios/build3d/tools/limit_cases.py` (L9's case): the quad [0, a] × [0, b]
    // cut along its diagonal has a raw span in each of its a·b cells and a second one in each of
    // the a + b − gcd(a, b) cells the diagonal crosses; a triangle inside one cell has one.
    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
    for (a, b) in [(1u64, 1u64), (3, 5), (8, 8), (12, 9), (24, 31), (40, 7)] {
        let (x, z) = (a as f64, b as f64);
        let tris = [
            tri([[0.0, 0.0, 0.0], [0.0, 0.0, z], [x, 0.0, z]], 1),
            tri([[0.0, 0.0, 0.0], [x, 0.0, z], [x, 0.0, 0.0]], 1),
            tri([[0.25, 1.0, 0.25], [0.25, 1.0, 0.5], [0.5, 1.0, 0.5]], 1),
        ];
        // The window of tile cell (0, 0) of 40-cell tiles with border 3.
        let w = Window::new(CELL, 40, 3);
        let quad = count_spans(&tris, &[0, 1], w);
        assert_eq!(quad, a * b + a + b - gcd(a, b), "{a} x {b}");
        assert_eq!(count_spans(&tris, &[0, 1, 2], w), quad + 1);
    }
}
