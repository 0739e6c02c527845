//! `spec/tilecache.md` TC3–TC5: the constructors' rules, in value order.

use super::*;

fn err(r: Result<impl std::fmt::Debug, ShapeError>) -> (String, FormatReason) {
    let e = r.expect_err("must be refused");
    (e.field, e.reason)
}

#[test]
fn cylinder_rules() {
    assert!(Obstacle::cylinder([1.0, 2.0, 3.0], 1.0, 2.0).is_ok());
    let nan = f64::NAN;
    assert_eq!(
        err(Obstacle::cylinder([1.0, nan, 3.0], nan, 2.0)),
        ("y".into(), FormatReason::NotFinite)
    );
    assert_eq!(
        err(Obstacle::cylinder([1.0, 2.0, 3.0], 0.0, 2.0)),
        ("radius".into(), FormatReason::OutOfRange)
    );
    assert_eq!(
        err(Obstacle::cylinder([1.0, 2.0, 3.0], 1.0, -0.0)),
        ("height".into(), FormatReason::OutOfRange)
    );
    assert_eq!(
        err(Obstacle::cylinder([1.0, f64::MAX, 3.0], 1.0, f64::MAX)),
        ("height".into(), FormatReason::OutOfRange)
    );
    assert_eq!(
        err(Obstacle::cylinder([f64::MAX, 0.0, 3.0], f64::MAX, 1.0)),
        ("radius".into(), FormatReason::OutOfRange)
    );
    let o = Obstacle::cylinder([1.0, 2.0, 3.0], 1.0, 2.0).unwrap();
    assert_eq!(o.mark().bounds(), [0.0, 2.0, 2.0, 4.0]);
    assert_eq!(o.mark().area(), 0);
}

#[test]
fn box_rules() {
    assert!(Obstacle::aabb([0.0; 3], [1.0; 3]).is_ok());
    assert_eq!(
        err(Obstacle::aabb([0.0, 0.0, 0.0], [0.0, 1.0, 1.0])),
        ("max_x".into(), FormatReason::OutOfRange)
    );
    assert_eq!(
        err(Obstacle::aabb([0.0, 2.0, 0.0], [1.0, 1.0, 1.0])),
        ("max_y".into(), FormatReason::OutOfRange)
    );
    assert_eq!(
        err(Obstacle::aabb([0.0, 0.0, 0.0], [1.0, 1.0, -1.0])),
        ("max_z".into(), FormatReason::OutOfRange)
    );
    assert_eq!(
        err(Obstacle::aabb([0.0, 0.0, f64::INFINITY], [1.0, 1.0, 1.0])),
        ("min_z".into(), FormatReason::NotFinite)
    );
    // Finite corners whose footprint is not strictly convex in binary64 (the sides overflow).
    assert_eq!(
        err(Obstacle::aabb(
            [-f64::MAX, 0.0, -f64::MAX],
            [f64::MAX, 1.0, f64::MAX]
        )),
        ("max_x".into(), FormatReason::NotConvex)
    );
}

#[test]
fn oriented_box_rules_and_rotation_sign() {
    // A quarter turn: positive rotation turns +x towards −z, so local corner (hx, −hz) of a
    // 2 × 1 box (hx = 2, hz = 1) lands at (x − hz·… ) — check the footprint's bounds.
    let o = Obstacle::oriented_box([0.0, 0.0, 0.0], [2.0, 1.0, 1.0], 0.5).unwrap();
    let b = o.mark().bounds();
    let (c, s) = (libm::cos(0.5), libm::sin(0.5));
    // The corner (hx, hz) = (2, 1) maps to (2c + s, c − 2s); (hx, −hz) to (2c − s, −c − 2s).
    assert_eq!(b[2], 2.0 * c + s);
    assert_eq!(b[1], -c - 2.0 * s);
    assert_eq!(
        err(Obstacle::oriented_box([0.0; 3], [1.0, 0.0, 1.0], 0.0)),
        ("half_y".into(), FormatReason::OutOfRange)
    );
    assert_eq!(
        err(Obstacle::oriented_box(
            [0.0, f64::MAX, 0.0],
            [1.0, f64::MAX, 1.0],
            0.0
        )),
        ("half_y".into(), FormatReason::OutOfRange)
    );
    assert_eq!(
        err(Obstacle::oriented_box([0.0; 3], [1.0, 1.0, 1.0], f64::NAN)),
        ("rotation".into(), FormatReason::NotFinite)
    );
    assert_eq!(
        err(Obstacle::oriented_box(
            [1e300, 0.0, 0.0],
            [1e-300, 1.0, 1e-300],
            0.3
        )),
        ("half_x".into(), FormatReason::NotConvex)
    );
}

#[test]
fn volume_rules() {
    let sq = vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
    let v = Volume::new(5, 0.0, 1.0, sq.iter().rev().copied().collect()).unwrap();
    assert_eq!(
        v.polygon(),
        &sq[..],
        "a clockwise polygon is stored counter-clockwise"
    );
    assert_eq!(
        err(Volume::canonical(
            5,
            0.0,
            1.0,
            sq.iter().rev().copied().collect()
        )),
        ("corner[1]".into(), FormatReason::NotConvex)
    );
    assert_eq!(
        err(Volume::new(64, 0.0, 1.0, sq.clone())),
        ("area".into(), FormatReason::OutOfRange)
    );
    assert_eq!(
        err(Volume::new(1, 0.0, -1.0, sq.clone())),
        ("max_y".into(), FormatReason::OutOfRange)
    );
    assert_eq!(
        err(Volume::new(1, f64::NAN, -1.0, sq.clone())),
        ("min_y".into(), FormatReason::NotFinite)
    );
    assert_eq!(
        err(Volume::new(1, 0.0, 1.0, sq[..2].to_vec())),
        ("corner_count".into(), FormatReason::OutOfRange)
    );
    let many: Vec<[f64; 2]> = (0..257)
        .map(|k| {
            let a = (k as f64) * (std::f64::consts::TAU / 257.0);
            [libm::cos(a), libm::sin(a)]
        })
        .collect();
    assert_eq!(
        err(Volume::new(1, 0.0, 1.0, many)),
        ("corner_count".into(), FormatReason::OutOfRange)
    );
    let mut bad = sq.clone();
    bad[2] = [f64::INFINITY, 1.0];
    assert_eq!(
        err(Volume::new(1, 0.0, 1.0, bad)),
        ("corner[2].x".into(), FormatReason::NotFinite)
    );
    let mut dent = sq.clone();
    dent.insert(2, [0.5, 0.5]);
    assert_eq!(
        err(Volume::new(1, 0.0, 1.0, dent)),
        ("corner[2]".into(), FormatReason::NotConvex)
    );
}

/// TC3's rotation sign by hand: a quarter turn (θ = π/2, c ≈ 0, s = 1) takes the box's own
/// +x axis to −z. A box of half extents 2 × 1 around (10, 20): local (a, b) lands at
/// (10 + b, 20 − a), so its first corner (−2, −1) at (9, 22) and its +x face (a = 2) at
/// z = 18.
#[test]
fn a_quarter_turn_takes_plus_x_to_minus_z() {
    let p = oriented_box_corners(10.0, 20.0, 2.0, 1.0, std::f64::consts::FRAC_PI_2);
    let want = [[9.0, 22.0], [9.0, 18.0], [11.0, 18.0], [11.0, 22.0]];
    for (g, w) in p.iter().zip(want) {
        assert!(
            (g[0] - w[0]).abs() < 1e-12 && (g[1] - w[1]).abs() < 1e-12,
            "{p:?}"
        );
    }
    // No rotation: the axis-aligned rectangle, corners in TC3's order.
    assert_eq!(
        oriented_box_corners(10.0, 20.0, 2.0, 1.0, 0.0),
        vec![[8.0, 19.0], [12.0, 19.0], [12.0, 21.0], [8.0, 21.0]]
    );
}

/// The corners keep TC3's counter-clockwise sense (positive fan area, G1) at every rotation,
/// as the cache requires of the polygon it marks.
#[test]
fn corners_stay_counter_clockwise() {
    for k in 0..64 {
        let p = oriented_box_corners(3.0, -4.0, 1.5, 0.25, f64::from(k) * 0.2 - 6.0);
        let area: f64 = (0..4)
            .map(|i| {
                let (a, b) = (p[i], p[(i + 1) % 4]);
                a[0] * b[1] - b[0] * a[1]
            })
            .sum();
        assert!((area / 2.0 - 1.5).abs() < 1e-9, "{k}: {area}");
    }
}
