//! Obstacles and area volumes (`spec/tilecache.md` §2): plain values, validated by their
//! constructors into types whose footprint (a build3d [`AreaMark`]) is computed once.
//!
//! Units: world units (wu); rotations in radians. Every shape marks by the builder's one
//! footprint rule (`spec/build3d.md` B25): a cell is covered when its centre lies inside the
//! footprint, edges included; an open span of a covered column is marked when its floor height
//! lies in the shape's y range, ends included.
//!
//! - cylinder: base centre (x, y, z), radius r > 0, height h > 0; footprint the circle of radius
//!   r around (x, z); y range `[y, y + h]` (TC3).
//! - box: min (x, y, z) < max (x, y, z) on every axis; footprint the rectangle
//!   `[min x, max x] × [min z, max z]`; y range `[min y, max y]` (TC3).
//! - oriented box: centre (x, y, z), half extents (hx, hy, hz) > 0, rotation θ about +y,
//!   right-handed (positive θ turns +x towards −z, seen from above: clockwise); with
//!   `c = libm::cos(θ)`, `s = libm::sin(θ)` the local corner (a, b) lies at
//!   `(x + (a·c + b·s), z + (b·c − a·s))` for (a, b) = (−hx, −hz), (hx, −hz), (hx, hz), (−hx, hz),
//!   in that (counter-clockwise) order; y range `[y − hy, y + hy]` (TC3).
//! - volume: area 0 ..= 63, `min_y ≤ max_y`, a strictly convex polygon of 3 ..= 256 corners
//!   (x, z) (TC5).
//!
//! Obstacles mark area 0 (unwalkable); volumes mark their area (TC8).
//!
//! Limits: `MIN_CORNERS`, `MAX_CORNERS`, `MAX_AREA` (crate `limits`).

use onav::geom::poly_area2_xz;
use onav::FormatReason;
use onav_build3d::AreaMark;

use crate::limits::{MAX_AREA, MAX_CORNERS, MIN_CORNERS};

/// Why a shape's values were refused: the field, named as in `spec/tilecache.md` §2 (relative to
/// the shape: `radius`, `max_x`, `corner[3].z`, ...) and the reason (the one a snapshot reader
/// reports for the same field).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {reason}")]
pub struct ShapeError {
    /// The field path within the shape.
    pub field: String,
    /// The reason.
    pub reason: FormatReason,
}

impl ShapeError {
    fn new(field: impl Into<String>, reason: FormatReason) -> Self {
        Self {
            field: field.into(),
            reason,
        }
    }
}

/// The shape code of a cylinder in a snapshot (TC22).
pub const SHAPE_CYLINDER: u8 = 1;
/// The shape code of an axis-aligned box (TC22).
pub const SHAPE_BOX: u8 = 2;
/// The shape code of an oriented box (TC22).
pub const SHAPE_ORIENTED_BOX: u8 = 3;

/// An obstacle's shape as plain values (wu, radians); [`Obstacle::new`] validates it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ObstacleShape {
    /// An upright cylinder standing on its base.
    Cylinder {
        /// Centre of the base circle (x, y, z).
        base: [f64; 3],
        /// Radius, > 0.
        radius: f64,
        /// Height above the base, > 0: the cylinder spans y ∈ [base y, base y + height].
        height: f64,
    },
    /// An axis-aligned box.
    Box {
        /// Smallest corner (x, y, z).
        min: [f64; 3],
        /// Largest corner, above `min` on every axis.
        max: [f64; 3],
    },
    /// A box rotated about the vertical axis through its centre.
    OrientedBox {
        /// Centre (x, y, z).
        centre: [f64; 3],
        /// Half extents along the box's own x, y and z axes, each > 0.
        half_extents: [f64; 3],
        /// Rotation about +y (radians), right-handed: positive turns +x towards −z.
        rotation: f64,
    },
}

/// The value names of each shape, in snapshot order (`spec/tilecache.md` TC22).
const CYLINDER_FIELDS: [&str; 5] = ["x", "y", "z", "radius", "height"];
const BOX_FIELDS: [&str; 6] = ["min_x", "min_y", "min_z", "max_x", "max_y", "max_z"];
const ORIENTED_FIELDS: [&str; 7] = ["x", "y", "z", "half_x", "half_y", "half_z", "rotation"];

impl ObstacleShape {
    /// The shape code (1 cylinder, 2 box, 3 oriented box).
    pub fn code(&self) -> u8 {
        match self {
            Self::Cylinder { .. } => SHAPE_CYLINDER,
            Self::Box { .. } => SHAPE_BOX,
            Self::OrientedBox { .. } => SHAPE_ORIENTED_BOX,
        }
    }

    /// The values in snapshot order: 5, 6 or 7 f64.
    pub fn values(&self) -> Vec<f64> {
        match *self {
            Self::Cylinder {
                base,
                radius,
                height,
            } => vec![base[0], base[1], base[2], radius, height],
            Self::Box { min, max } => vec![min[0], min[1], min[2], max[0], max[1], max[2]],
            Self::OrientedBox {
                centre,
                half_extents: h,
                rotation,
            } => vec![centre[0], centre[1], centre[2], h[0], h[1], h[2], rotation],
        }
    }

    /// Calls `f` with each value in snapshot order (no allocation: the writer's form).
    pub(crate) fn each_value(&self, mut f: impl FnMut(f64)) {
        match *self {
            Self::Cylinder {
                base,
                radius,
                height,
            } => [base[0], base[1], base[2], radius, height]
                .into_iter()
                .for_each(f),
            Self::Box { min, max } => {
                min.into_iter().chain(max).for_each(f);
            }
            Self::OrientedBox {
                centre,
                half_extents,
                rotation,
            } => {
                centre.into_iter().chain(half_extents).for_each(&mut f);
                f(rotation);
            }
        }
    }

    /// The number of values of the shape (5, 6 or 7).
    pub(crate) fn value_count(&self) -> usize {
        match self {
            Self::Cylinder { .. } => 5,
            Self::Box { .. } => 6,
            Self::OrientedBox { .. } => 7,
        }
    }

    /// The names of the values, in snapshot order.
    pub fn field_names(code: u8) -> Option<&'static [&'static str]> {
        match code {
            SHAPE_CYLINDER => Some(&CYLINDER_FIELDS),
            SHAPE_BOX => Some(&BOX_FIELDS),
            SHAPE_ORIENTED_BOX => Some(&ORIENTED_FIELDS),
            _ => None,
        }
    }

    /// The shape of a code and its values (as many as [`ObstacleShape::field_names`] names).
    pub fn from_values(code: u8, v: &[f64]) -> Option<Self> {
        let n = Self::field_names(code)?.len();
        if v.len() != n {
            return None;
        }
        Some(match code {
            SHAPE_CYLINDER => Self::Cylinder {
                base: [v[0], v[1], v[2]],
                radius: v[3],
                height: v[4],
            },
            SHAPE_BOX => Self::Box {
                min: [v[0], v[1], v[2]],
                max: [v[3], v[4], v[5]],
            },
            _ => Self::OrientedBox {
                centre: [v[0], v[1], v[2]],
                half_extents: [v[3], v[4], v[5]],
                rotation: v[6],
            },
        })
    }
}

/// A validated obstacle: its shape and the unwalkable mark it makes.
#[derive(Debug, Clone, PartialEq)]
pub struct Obstacle {
    shape: ObstacleShape,
    mark: AreaMark,
}

impl Obstacle {
    /// Validates a shape (`spec/tilecache.md` TC3, TC4): every value finite (the first that is
    /// not, in value order: *not finite*), then the shape's own rules in value order, each an
    /// *out of range* error naming the value: a cylinder's `radius` > 0, `height` > 0,
    /// `y + height` finite, and `x ± radius`, `z ± radius` finite (`radius`); a box's
    /// `max_x` > `min_x`, `max_y` > `min_y`, `max_z` > `min_z`; an oriented box's `half_x`,
    /// `half_y`, `half_z` > 0 and `y ± half_y` finite (`half_y`). Then the footprint polygon of a
    /// box or an oriented box must be strictly convex in binary64 (`navmesh-format.md` T12):
    /// otherwise *not convex* at `max_x` (box) or `half_x` (oriented box).
    pub fn new(shape: ObstacleShape) -> Result<Self, ShapeError> {
        let names = ObstacleShape::field_names(shape.code()).unwrap_or(&[]);
        let mut k = 0;
        let mut first_bad = None;
        shape.each_value(|v| {
            if first_bad.is_none() && !v.is_finite() {
                first_bad = Some(k);
            }
            k += 1;
        });
        if let Some(k) = first_bad {
            return Err(ShapeError::new(names[k], FormatReason::NotFinite));
        }
        let range = |f: &str| ShapeError::new(f, FormatReason::OutOfRange);
        let mark = match shape {
            ObstacleShape::Cylinder {
                base,
                radius,
                height,
            } => {
                if radius <= 0.0 {
                    return Err(range("radius"));
                }
                if height <= 0.0 || !(base[1] + height).is_finite() {
                    return Err(range("height"));
                }
                AreaMark::circle(0, base[1], base[1] + height, [base[0], base[2]], radius)
                    .ok_or_else(|| range("radius"))?
            }
            ObstacleShape::Box { min, max } => {
                for (k, f) in ["max_x", "max_y", "max_z"].iter().enumerate() {
                    if max[k] <= min[k] {
                        return Err(range(f));
                    }
                }
                let corners = vec![
                    [min[0], min[2]],
                    [max[0], min[2]],
                    [max[0], max[2]],
                    [min[0], max[2]],
                ];
                polygon_mark(0, min[1], max[1], corners, "max_x")?
            }
            ObstacleShape::OrientedBox {
                centre,
                half_extents: h,
                rotation,
            } => {
                for (k, f) in ["half_x", "half_y", "half_z"].iter().enumerate() {
                    if h[k] <= 0.0 {
                        return Err(range(f));
                    }
                }
                let (lo, hi) = (centre[1] - h[1], centre[1] + h[1]);
                if !lo.is_finite() || !hi.is_finite() {
                    return Err(range("half_y"));
                }
                let corners = oriented_box_corners(centre[0], centre[2], h[0], h[2], rotation);
                polygon_mark(0, lo, hi, corners, "half_x")?
            }
        };
        Ok(Self { shape, mark })
    }

    /// A cylinder standing on `base` (centre of its base circle), spanning y from the base to
    /// base + `height`.
    pub fn cylinder(base: [f64; 3], radius: f64, height: f64) -> Result<Self, ShapeError> {
        Self::new(ObstacleShape::Cylinder {
            base,
            radius,
            height,
        })
    }

    /// An axis-aligned box from its smallest to its largest corner.
    pub fn aabb(min: [f64; 3], max: [f64; 3]) -> Result<Self, ShapeError> {
        Self::new(ObstacleShape::Box { min, max })
    }

    /// A box of half extents `half_extents` around `centre`, rotated by `rotation` radians about
    /// +y (right-handed: positive turns +x towards −z).
    pub fn oriented_box(
        centre: [f64; 3],
        half_extents: [f64; 3],
        rotation: f64,
    ) -> Result<Self, ShapeError> {
        Self::new(ObstacleShape::OrientedBox {
            centre,
            half_extents,
            rotation,
        })
    }

    /// The shape's values.
    pub fn shape(&self) -> &ObstacleShape {
        &self.shape
    }

    /// The mark it makes (area 0).
    pub fn mark(&self) -> &AreaMark {
        &self.mark
    }
}

/// The footprint of an oriented box of centre (x, z), half extents `half_x`, `half_z` and
/// rotation θ (`spec/tilecache.md` TC3): with c = `libm::cos(θ)`, s = `libm::sin(θ)` the local
/// corner (a, b) lies at (x + (a·c + b·s), z + (b·c − a·s)), for (a, b) = (−hx, −hz), (hx, −hz),
/// (hx, hz), (−hx, hz) in that (counter-clockwise) order; positive θ turns the box's +x towards
/// −z. No value is checked: pictures of hostile snapshots draw what the bytes say.
pub fn oriented_box_corners(
    x: f64,
    z: f64,
    half_x: f64,
    half_z: f64,
    rotation: f64,
) -> Vec<[f64; 2]> {
    let (c, s) = (libm::cos(rotation), libm::sin(rotation));
    [
        (-half_x, -half_z),
        (half_x, -half_z),
        (half_x, half_z),
        (-half_x, half_z),
    ]
    .iter()
    .map(|&(a, b)| [x + (a * c + b * s), z + (b * c - a * s)])
    .collect()
}

/// A polygon mark from corners already in counter-clockwise order; a footprint that is not
/// strictly convex in binary64 is reported at `field`.
fn polygon_mark(
    area: u8,
    min_y: f64,
    max_y: f64,
    corners: Vec<[f64; 2]>,
    field: &str,
) -> Result<AreaMark, ShapeError> {
    if AreaMark::convexity_violation(&corners).is_some() {
        return Err(ShapeError::new(field, FormatReason::NotConvex));
    }
    AreaMark::new(area, min_y, max_y, corners)
        .map_err(|_| ShapeError::new(field, FormatReason::NotConvex))
}

/// A validated area volume: every span whose floor lies in `[min_y, max_y]` in a column whose
/// centre lies in the polygon gets the volume's area (`spec/tilecache.md` TC5, TC8).
#[derive(Debug, Clone, PartialEq)]
pub struct Volume {
    area: u8,
    min_y: f64,
    max_y: f64,
    /// Counter-clockwise corners (x, z).
    polygon: Vec<[f64; 2]>,
    mark: AreaMark,
}

impl Volume {
    /// Validates a volume given in either winding (a polygon whose fan area, `navmesh-format.md`
    /// G7, is negative is reversed first), then as [`Volume::canonical`].
    pub fn new(
        area: u8,
        min_y: f64,
        max_y: f64,
        mut polygon: Vec<[f64; 2]>,
    ) -> Result<Self, ShapeError> {
        let corners: Vec<[f64; 3]> = polygon.iter().map(|p| [p[0], 0.0, p[1]]).collect();
        if poly_area2_xz(&corners) < 0.0 {
            polygon.reverse();
        }
        Self::canonical(area, min_y, max_y, polygon)
    }

    /// Validates a volume whose polygon is counter-clockwise (the snapshot form, TC5, TC25), in
    /// snapshot order: `area` ≤ 63 (*out of range*); `min_y`, `max_y` finite (*not finite*);
    /// `max_y` ≥ `min_y` (*out of range*); the corner count 3 ..= 256 (`corner_count`, *out of
    /// range*); every corner value finite (`corner[j].x`, `corner[j].z`, *not finite*); the
    /// polygon strictly convex and counter-clockwise (T12; `corner[j]`, *not convex*, at the
    /// corner T12 names).
    pub fn canonical(
        area: u8,
        min_y: f64,
        max_y: f64,
        polygon: Vec<[f64; 2]>,
    ) -> Result<Self, ShapeError> {
        if area > MAX_AREA {
            return Err(ShapeError::new("area", FormatReason::OutOfRange));
        }
        for (v, f) in [(min_y, "min_y"), (max_y, "max_y")] {
            if !v.is_finite() {
                return Err(ShapeError::new(f, FormatReason::NotFinite));
            }
        }
        if max_y < min_y {
            return Err(ShapeError::new("max_y", FormatReason::OutOfRange));
        }
        let k = polygon.len();
        if !(MIN_CORNERS as usize..=MAX_CORNERS as usize).contains(&k) {
            return Err(ShapeError::new("corner_count", FormatReason::OutOfRange));
        }
        for (j, p) in polygon.iter().enumerate() {
            for (v, axis) in [(p[0], "x"), (p[1], "z")] {
                if !v.is_finite() {
                    return Err(ShapeError::new(
                        format!("corner[{j}].{axis}"),
                        FormatReason::NotFinite,
                    ));
                }
            }
        }
        if let Some(j) = AreaMark::convexity_violation(&polygon) {
            return Err(ShapeError::new(
                format!("corner[{j}]"),
                FormatReason::NotConvex,
            ));
        }
        let mark = AreaMark::new(area, min_y, max_y, polygon.clone())
            .map_err(|_| ShapeError::new("corner[0]", FormatReason::NotConvex))?;
        Ok(Self {
            area,
            min_y,
            max_y,
            polygon,
            mark,
        })
    }

    /// The area id (0 ..= 63; 0 makes spans unwalkable).
    pub fn area(&self) -> u8 {
        self.area
    }

    /// Lowest floor height marked (wu).
    pub fn min_y(&self) -> f64 {
        self.min_y
    }

    /// Highest floor height marked (wu).
    pub fn max_y(&self) -> f64 {
        self.max_y
    }

    /// The corners (x, z), counter-clockwise.
    pub fn polygon(&self) -> &[[f64; 2]] {
        &self.polygon
    }

    /// The mark it makes.
    pub fn mark(&self) -> &AreaMark {
        &self.mark
    }
}

#[cfg(test)]
#[path = "shape_tests.rs"]
mod tests;
