//! The arithmetic helpers of `spec/build3d.md` §1.1, written out so that no result depends on a
//! platform's `min`/`max`/`floor` conventions for signed zeros or NaN.

/// `min(p, q)`: q if q < p, else p (the first argument wins a tie).
#[inline]
pub(crate) fn fmin(p: f64, q: f64) -> f64 {
    if q < p {
        q
    } else {
        p
    }
}

/// `max(p, q)`: q if q > p, else p.
#[inline]
pub(crate) fn fmax(p: f64, q: f64) -> f64 {
    if q > p {
        q
    } else {
        p
    }
}

/// `⌊x⌋` as an integer, exactly, for finite |x| < 2^62 (no libm call); saturating beyond.
#[inline]
pub(crate) fn floor_i(x: f64) -> i64 {
    let t = x as i64;
    if (t as f64) > x {
        t.saturating_sub(1)
    } else {
        t
    }
}

/// `⌊x⌋` for 0 ≤ x < 2^63, where it is the truncation (equal to [`floor_i`] there): the
/// rasterizer's coordinates are never negative, since the origin is the geometry's minimum
/// corner and crossings interpolate between non-negative ends.
#[inline]
pub(crate) fn floor_nn(x: f64) -> i64 {
    debug_assert!(x >= 0.0, "floor_nn of {x}");
    x as i64
}

/// `⌈x⌉` as an integer, exactly, for finite |x| < 2^62.
#[inline]
pub(crate) fn ceil_i(x: f64) -> i64 {
    let t = x as i64;
    if (t as f64) < x {
        t.saturating_add(1)
    } else {
        t
    }
}

/// t clamped to [0, 1]: +0.0 if t < 0, 1.0 if t > 1, else t (−0.0 and NaN unchanged), as
/// `navmesh-format.md` §1.3 writes it.
#[inline]
#[allow(clippy::manual_clamp)]
pub(crate) fn clamp01(t: f64) -> f64 {
    if t < 0.0 {
        0.0
    } else if t > 1.0 {
        1.0
    } else {
        t
    }
}
