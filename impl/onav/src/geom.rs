//! Exact-order f64 geometry on the x–z plane (`spec/navmesh-format.md` §1.3: only + − × ÷ sqrt
//! and comparisons).
//! Every formula here is written out in `spec/navmesh-format.md` §1.3 in this operation order.

/// A point or vector in world units (x, y, z); y is up.
pub type Vec3 = [f64; 3];

/// Twice the signed area of triangle (a, b, c) on x–z:
/// `(b.x − a.x)·(c.z − a.z) − (b.z − a.z)·(c.x − a.x)`. Positive means counter-clockwise in the
/// spec's sense (x first axis, z second).
#[inline]
pub fn orient(a: &Vec3, b: &Vec3, c: &Vec3) -> f64 {
    (b[0] - a[0]) * (c[2] - a[2]) - (b[2] - a[2]) * (c[0] - a[0])
}

/// Squared distance on x–z.
#[inline]
pub fn dist2_xz(a: &Vec3, b: &Vec3) -> f64 {
    let dx = b[0] - a[0];
    let dz = b[2] - a[2];
    dx * dx + dz * dz
}

/// The parameter t in [0, 1] of the point of segment (a, b) closest to p on x–z:
/// `t = ((p.x−a.x)·(b.x−a.x) + (p.z−a.z)·(b.z−a.z)) / ((b.x−a.x)² + (b.z−a.z)²)`, clamped; 0 for a
/// segment of zero length.
#[inline]
pub fn closest_t_on_segment_xz(p: &Vec3, a: &Vec3, b: &Vec3) -> f64 {
    let dx = b[0] - a[0];
    let dz = b[2] - a[2];
    let len2 = dx * dx + dz * dz;
    if len2 <= 0.0 {
        return 0.0;
    }
    let t = ((p[0] - a[0]) * dx + (p[2] - a[2]) * dz) / len2;
    t.clamp(0.0, 1.0)
}

/// `a + (b − a)·t`, per component.
#[inline]
pub fn lerp(a: &Vec3, b: &Vec3, t: f64) -> Vec3 {
    [
        a[0] + (b[0] - a[0]) * t,
        a[1] + (b[1] - a[1]) * t,
        a[2] + (b[2] - a[2]) * t,
    ]
}

/// True when p lies inside or on the boundary of the convex counter-clockwise polygon `poly`
/// (x–z): `orient(v[i], v[i+1], p) ≥ 0` for every edge.
pub fn point_in_convex_xz(p: &Vec3, poly: &[Vec3]) -> bool {
    let n = poly.len();
    (0..n).all(|i| orient(&poly[i], &poly[(i + 1) % n], p) >= 0.0)
}

/// The point of the convex polygon closest to p on x–z: p itself (with its y) when inside,
/// else the closest point over the edges in order, the first edge winning ties.
/// Returns the point and, when outside, the edge index it lies on.
pub fn closest_point_on_poly_xz(p: &Vec3, poly: &[Vec3]) -> (Vec3, Option<usize>) {
    if point_in_convex_xz(p, poly) {
        return (*p, None);
    }
    let n = poly.len();
    let mut best = (f64::INFINITY, *p, 0usize);
    for i in 0..n {
        let (a, b) = (&poly[i], &poly[(i + 1) % n]);
        let t = closest_t_on_segment_xz(p, a, b);
        let q = lerp(a, b, t);
        let d = dist2_xz(p, &q);
        if d < best.0 {
            best = (d, q, i);
        }
    }
    (best.1, Some(best.2))
}

/// Twice the area of a convex polygon on x–z, summed as a fan from vertex 0 in order.
pub fn poly_area2_xz(poly: &[Vec3]) -> f64 {
    let mut s = 0.0;
    for i in 1..poly.len().saturating_sub(1) {
        s += orient(&poly[0], &poly[i], &poly[i + 1]);
    }
    s
}
