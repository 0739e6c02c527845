//! Contours (`spec/build3d.md` B36–B39).

use super::*;
use crate::regions::regions;
use crate::test_kit::{compact_of, CELL};

fn contours_of(floor: impl Fn(usize, usize) -> bool, max_error: f64) -> Vec<Vec<Contour>> {
    let c = compact_of(
        12,
        2,
        |x, z| if floor(x, z) { vec![(4, 1)] } else { vec![] },
    );
    let r = regions(&c, 0, 10_000, CELL, u64::MAX).unwrap();
    contours(&c, &r, max_error, 0, CELL).unwrap()
}

#[test]
fn a_square_is_four_corners_counter_clockwise() {
    let cs = contours_of(|x, z| (4..8).contains(&x) && (4..8).contains(&z), 1.3);
    assert_eq!(cs.len(), 1);
    assert_eq!(cs[0].len(), 1);
    let pts: Vec<(i32, i32)> = cs[0][0].pts.iter().map(|p| (p[0], p[2])).collect();
    assert_eq!(pts, vec![(4, 4), (8, 4), (8, 8), (4, 8)]);
    assert_eq!(area2(&cs[0][0].pts), 32);
}

#[test]
fn no_segment_lies_on_a_side_line_across_a_notch() {
    // The tile interior is x, z ∈ [2, 10); the floor reaches the +x side (x = 10) except at the
    // cell (9, 6): a notch one cell deep, within the edge error of 1.3.
    let cs = contours_of(
        |x, z| (5..10).contains(&x) && (3..9).contains(&z) && (x, z) != (9, 6),
        1.3,
    );
    let pts = &cs[0][0].pts;
    let n = pts.len();
    for k in 0..n {
        let (a, b) = (pts[k], pts[(k + 1) % n]);
        if a[0] == 10 && b[0] == 10 {
            let (lo, hi) = (a[2].min(b[2]), a[2].max(b[2]));
            assert!(hi <= 6 || lo >= 7, "segment {a:?}-{b:?} spans the notch");
        }
    }
    // Without the side-line rule the whole side would be one segment: it has at least two.
    let on_side = (0..n)
        .filter(|&k| pts[k][0] == 10 && pts[(k + 1) % n][0] == 10)
        .count();
    assert!(on_side >= 2);
}

#[test]
fn a_hole_is_joined_to_its_outline() {
    let ring = |x: usize, z: usize| {
        (3..9).contains(&x) && (3..9).contains(&z) && !((5..7).contains(&x) && (5..7).contains(&z))
    };
    let cs = contours_of(ring, 0.0);
    assert_eq!(cs.len(), 1);
    assert_eq!(cs[0].len(), 1, "one outline with its hole merged in");
    let c = &cs[0][0].pts;
    // Area: 36 − 4 cells; the bridge adds nothing.
    assert_eq!(area2(c), 2 * 32);
    assert!(c.iter().any(|p| p[0] == 5 && p[2] == 5));
}

#[test]
fn dist2_seg_clamps() {
    let (a, b) = ([0, 0, 0], [4, 0, 0]);
    assert_eq!(dist2_seg([2, 0, 3], a, b), 9.0);
    assert_eq!(dist2_seg([-3, 0, 4], a, b), 25.0);
    assert_eq!(dist2_seg([7, 0, 4], a, b), 25.0);
    assert_eq!(dist2_seg([1, 0, 1], a, a), 2.0);
}
