//! Detail meshes (`spec/build3d.md` B44–B47).

use super::*;
use crate::compact::Compact;
use crate::test_kit::compact_of;

/// A 12 × 12 field (cell 1 wu, height 0.1 wu) whose floor heights come from `h`, all region 1.
fn field(h: impl Fn(usize, usize) -> u32) -> (Compact, Vec<u32>) {
    let c = compact_of(12, 0, |x, z| vec![(h(x, z), 1)]);
    let reg = vec![1; c.span_count()];
    (c, reg)
}

fn surface<'a>(c: &'a Compact, reg: &'a [u32], sample: f64, err: f64) -> Surface<'a> {
    Surface {
        c,
        reg,
        origin: [0.0; 3],
        cs: 1.0,
        ch: 0.1,
        sample_dist: sample,
        max_error: err,
        max_extra: 249,
    }
}

const SQUARE: [Vec3; 4] = [
    [1.0, 1.0, 1.0],
    [11.0, 1.0, 1.0],
    [11.0, 1.0, 11.0],
    [1.0, 1.0, 11.0],
];

#[test]
fn without_sampling_the_fan() {
    let (c, reg) = field(|_, _| 50);
    let d = surface(&c, &reg, 0.0, 0.0).detail(&SQUARE, 1).unwrap();
    assert_eq!(d, fan(4));
    assert!(passes_t17(&SQUARE, &d));
    // The fan's area sum is the polygon area bit for bit.
    let s = orient(&SQUARE[0], &SQUARE[1], &SQUARE[2]) + orient(&SQUARE[0], &SQUARE[2], &SQUARE[3]);
    assert_eq!(s, poly_area2_xz(&SQUARE));
}

#[test]
fn a_flat_surface_needs_no_extra_vertex() {
    let (c, reg) = field(|_, _| 10);
    let d = surface(&c, &reg, 1.0, 0.01).detail(&SQUARE, 1).unwrap();
    assert!(d.extra.is_empty());
}

#[test]
fn a_bump_is_followed_within_the_error() {
    // Height 1 everywhere except a 0.5 wu bump in the middle.
    let (c, reg) = field(|x, z| {
        if (5..7).contains(&x) && (5..7).contains(&z) {
            15
        } else {
            10
        }
    });
    let s = surface(&c, &reg, 1.0, 0.1);
    let d = s.detail(&SQUARE, 1).unwrap();
    assert!(!d.extra.is_empty());
    assert!(passes_t17(&SQUARE, &d));
    assert!(d.extra.iter().all(|p| point_in_convex_xz(p, &SQUARE)));
    assert!(d.extra.iter().any(|p| (p[1] - 1.5).abs() < 1e-12));
    // Every candidate is within the error of the final mesh.
    let m = Mesh {
        pts: SQUARE
            .iter()
            .copied()
            .chain(d.extra.iter().copied())
            .collect(),
        tris: d.tris.clone(),
    };
    for p in s.candidates(&SQUARE, 1) {
        let (_, h) = m.locate(&p, None).unwrap();
        assert!((p[1] - h).abs() <= 0.1 + 1e-12, "{p:?} {h}");
    }
    // Sampling never reaches within half a sample distance of an edge.
    for p in &d.extra {
        assert!(p[0] >= 1.5 && p[0] <= 10.5 && p[2] >= 1.5 && p[2] <= 10.5);
    }
}

#[test]
fn too_many_vertices_is_an_error() {
    let (c, reg) = field(|x, z| 10 + ((x * 7 + z * 13) % 5) as u32);
    let mut s = surface(&c, &reg, 1.0, 0.0);
    s.max_extra = 3;
    assert_eq!(s.detail(&SQUARE, 1), Err(TooManyVertices));
}

#[test]
fn in_circle_sign() {
    let (a, b, c) = ([0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 0.0, 2.0]);
    assert!(in_circle(&a, &b, &c, &[1.0, 0.0, 1.0]));
    assert!(
        !in_circle(&a, &b, &c, &[2.0, 0.0, 2.0]),
        "on the circle is not inside"
    );
    assert!(!in_circle(&a, &b, &c, &[3.0, 0.0, 3.0]));
}

#[test]
fn a_failing_mesh_falls_back_to_the_fan() {
    let d = Detail {
        extra: vec![[20.0, 0.0, 20.0]],
        tris: vec![[0, 1, 4]],
    };
    assert!(!passes_t17(&SQUARE, &d));
}
