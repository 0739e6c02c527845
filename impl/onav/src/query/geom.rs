//! The few vector formulas the queries share (`spec/queries.md` §1.2), in their stated
//! operation order. Only + − × ÷ sqrt and comparisons (`spec/navmesh-format.md` §1.3).

use crate::geom::Vec3;

/// 3D distance: `sqrt((dx·dx + dy·dy) + dz·dz)` with `d = b − a`.
#[inline]
pub(crate) fn dist3(a: &Vec3, b: &Vec3) -> f64 {
    let dx = b[0] - a[0];
    let dy = b[1] - a[1];
    let dz = b[2] - a[2];
    (dx * dx + dy * dy + dz * dz).sqrt()
}

/// Squared 3D distance: `(dx·dx + dy·dy) + dz·dz` with `d = b − a`.
#[inline]
pub(crate) fn dist2_3(a: &Vec3, b: &Vec3) -> f64 {
    let dx = b[0] - a[0];
    let dy = b[1] - a[1];
    let dz = b[2] - a[2];
    dx * dx + dy * dy + dz * dz
}

/// Midpoint `(a + b)·0.5` per component.
#[inline]
pub(crate) fn midpoint(a: &Vec3, b: &Vec3) -> Vec3 {
    [
        (a[0] + b[0]) * 0.5,
        (a[1] + b[1]) * 0.5,
        (a[2] + b[2]) * 0.5,
    ]
}

/// The x–z cross product `u.x·v.z − u.z·v.x`.
#[inline]
pub(crate) fn perp_xz(u: &Vec3, v: &Vec3) -> f64 {
    u[0] * v[2] - u[2] * v[0]
}

/// `b − a` per component.
#[inline]
pub(crate) fn sub(b: &Vec3, a: &Vec3) -> Vec3 {
    [b[0] - a[0], b[1] - a[1], b[2] - a[2]]
}

/// Squared x–z distance from p to segment (a, b), with the clamped parameter of
/// `crate::geom::closest_t_on_segment_xz` and the point `a + (b − a)·t`.
#[inline]
pub(crate) fn dist2_point_segment_xz(p: &Vec3, a: &Vec3, b: &Vec3) -> f64 {
    let t = crate::geom::closest_t_on_segment_xz(p, a, b);
    let q = crate::geom::lerp(a, b, t);
    crate::geom::dist2_xz(p, &q)
}
