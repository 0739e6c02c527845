//! Area marks (`spec/build3d.md` §8): convex volumes that set the area of the open spans they
//! cover, before erosion (so an unwalkable mark keeps agents their radius away, as if baked).
//!
//! **Footprint rule** (shared with the tile cache's obstacles): global cell (i, j) is covered when
//! its centre `(ox + (i + 0.5)·cell_size, oz + (j + 0.5)·cell_size)` lies inside the mark's
//! counter-clockwise polygon with its edges included: `orient(p_k, p_k+1, centre) ≥ 0` for every
//! edge k (`spec/navmesh-format.md` G1, G5). A span of a covered column is marked when its floor
//! height `oy + y·cell_height` lies in `[min_y, max_y]` (both ends included). Marks apply in
//! order; a later mark wins; area 0 makes a span unwalkable, and a later mark can make it
//! walkable again.
//!
//! A mark's footprint is a convex polygon (settings volumes, the tile cache's volumes, boxes) or
//! a circle (the tile cache's cylinders): a circle of centre (x, z) and radius r covers cell
//! (i, j) when, with `dx = cx − x` and `dz = cz − z` for the cell centre (cx, cz),
//! `dx·dx + dz·dz ≤ r·r` (edge included, the same centre rule).

use crate::compact::Compact;
use crate::num::{floor_i, fmax, fmin};
use crate::output::{point_in_convex_xz, Vec3};
use crate::settings::VolumeSpec;

/// The x–z footprint of a mark.
#[derive(Debug, Clone, PartialEq)]
enum Footprint {
    /// Counter-clockwise corners as (x, 0, z).
    Polygon(Vec<Vec3>),
    /// Centre (x, z) and radius.
    Circle { x: f64, z: f64, radius: f64 },
}

/// A validated area mark: a convex prism or an upright cylinder with an area id.
#[derive(Debug, Clone, PartialEq)]
pub struct AreaMark {
    area: u8,
    min_y: f64,
    max_y: f64,
    footprint: Footprint,
    /// x–z bounding box: min x, min z, max x, max z.
    bounds: [f64; 4],
}

impl AreaMark {
    /// A mark from a validated settings volume (its polygon counter-clockwise).
    pub(crate) fn from_volume(v: &VolumeSpec) -> Self {
        let corners: Vec<Vec3> = v.polygon.iter().map(|p| [p[0], 0.0, p[1]]).collect();
        let mut bounds = [corners[0][0], corners[0][2], corners[0][0], corners[0][2]];
        for c in &corners {
            bounds[0] = fmin(bounds[0], c[0]);
            bounds[1] = fmin(bounds[1], c[2]);
            bounds[2] = fmax(bounds[2], c[0]);
            bounds[3] = fmax(bounds[3], c[2]);
        }
        Self {
            area: v.area,
            min_y: v.min_y,
            max_y: v.max_y,
            footprint: Footprint::Polygon(corners),
            bounds,
        }
    }

    /// A mark with area `area` (0 ..= 63) over the circle of centre `centre` (x, z) and radius
    /// `radius` (wu), between floor heights `min_y` and `max_y` (wu). `None` unless every value
    /// is finite, `area ≤ 63`, `min_y ≤ max_y`, `radius > 0` and the bounding box
    /// `centre ± radius` is finite.
    pub fn circle(area: u8, min_y: f64, max_y: f64, centre: [f64; 2], radius: f64) -> Option<Self> {
        let bounds = [
            centre[0] - radius,
            centre[1] - radius,
            centre[0] + radius,
            centre[1] + radius,
        ];
        let finite = [min_y, max_y, centre[0], centre[1], radius]
            .iter()
            .chain(&bounds)
            .all(|v| v.is_finite());
        (finite && area <= 63 && min_y <= max_y && radius > 0.0).then_some(Self {
            area,
            min_y,
            max_y,
            footprint: Footprint::Circle {
                x: centre[0],
                z: centre[1],
                radius,
            },
            bounds,
        })
    }

    /// The area id the mark sets.
    pub fn area(&self) -> u8 {
        self.area
    }

    /// The x–z bounding box of the footprint: min x, min z, max x, max z (wu).
    pub fn bounds(&self) -> [f64; 4] {
        self.bounds
    }

    /// The first corner at which `polygon` (x, z) breaks `spec/navmesh-format.md` T12 (strictly
    /// convex, counter-clockwise), as the settings reader names it (B9); `None` when it holds.
    pub fn convexity_violation(polygon: &[[f64; 2]]) -> Option<usize> {
        crate::settings::first_non_convex(polygon)
    }

    /// Whether the footprint covers the point (x, z) (B25: edges included).
    fn covers(&self, x: f64, z: f64) -> bool {
        match &self.footprint {
            Footprint::Polygon(corners) => point_in_convex_xz(&[x, 0.0, z], corners),
            Footprint::Circle {
                x: cx,
                z: cz,
                radius,
            } => {
                let dx = x - cx;
                let dz = z - cz;
                dx * dx + dz * dz <= radius * radius
            }
        }
    }

    /// A mark with area `area` (0 ..= 63) over the strictly convex polygon `polygon` (x, z,
    /// either winding) between floor heights `min_y` and `max_y` (wu); validated by the rules of
    /// a settings volume (`spec/build3d.md` §3.2).
    pub fn new(
        area: u8,
        min_y: f64,
        max_y: f64,
        polygon: Vec<[f64; 2]>,
    ) -> Result<Self, crate::output::FormatError> {
        let spec = crate::settings::SettingsSpec {
            volumes: vec![VolumeSpec {
                area,
                min_y,
                max_y,
                polygon,
            }],
            ..Default::default()
        };
        let s = crate::settings::Settings::new(spec)?;
        Ok(Self::from_volume(&s.spec().volumes[0]))
    }
}

/// Applies the marks in order to the spans of `c` (§8).
#[cfg(test)]
pub(crate) fn apply(c: &mut Compact, marks: &[AreaMark], origin: [f64; 3], cs: f64, ch: f64) {
    let mut area = std::mem::take(&mut c.area);
    apply_areas(c, &mut area, marks, origin, cs, ch);
    c.area = area;
}

/// Applies the marks in order to `area` (one per span of `c`, read instead of `c.area`, §8).
pub(crate) fn apply_areas(
    c: &Compact,
    area: &mut [u8],
    marks: &[AreaMark],
    origin: [f64; 3],
    cs: f64,
    ch: f64,
) {
    let size = c.win.size as i64;
    for m in marks {
        // A superset of the columns whose centre can be inside; the exact test decides.
        // (Saturating: a mark may lie arbitrarily far away.)
        let cell = |v: f64, o: f64| floor_i((v - o) / cs);
        let lo_i = cell(m.bounds[0], origin[0]).saturating_sub(1).max(c.win.x0);
        let hi_i = cell(m.bounds[2], origin[0])
            .saturating_add(1)
            .min(c.win.x0 + size - 1);
        let lo_j = cell(m.bounds[1], origin[2]).saturating_sub(1).max(c.win.z0);
        let hi_j = cell(m.bounds[3], origin[2])
            .saturating_add(1)
            .min(c.win.z0 + size - 1);
        for j in lo_j..=hi_j {
            let cz = origin[2] + (j as f64 + 0.5) * cs;
            for i in lo_i..=hi_i {
                let cx = origin[0] + (i as f64 + 0.5) * cs;
                if !m.covers(cx, cz) {
                    continue;
                }
                let col = ((j - c.win.z0) * size + (i - c.win.x0)) as usize;
                for s in c.column(col) {
                    let fy = origin[1] + f64::from(c.y[s]) * ch;
                    if m.min_y <= fy && fy <= m.max_y {
                        area[s] = m.area;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    //! `spec/build3d.md` B25, B26.
    use super::*;
    use crate::test_kit::compact_of;

    #[test]
    fn footprint_includes_centres_on_the_edge() {
        // Cells of side 1 from the origin: centres at k + 0.5. The square [1.5, 3.5]² holds
        // the centres 1.5, 2.5, 3.5 on each axis, edges included: 9 cells.
        let mut c = compact_of(6, 0, |_, _| vec![(5, 1)]);
        let m = AreaMark::new(
            7,
            0.0,
            10.0,
            vec![[1.5, 1.5], [3.5, 1.5], [3.5, 3.5], [1.5, 3.5]],
        )
        .unwrap();
        apply(&mut c, &[m], [0.0; 3], 1.0, 1.0);
        assert_eq!(c.area.iter().filter(|&&a| a == 7).count(), 9);
        // Floors at y = 5: a y range ending at 5 marks, one ending below does not.
        let mut c = compact_of(6, 0, |_, _| vec![(5, 1)]);
        let lo = AreaMark::new(2, 0.0, 4.999, vec![[0.0, 0.0], [6.0, 0.0], [6.0, 6.0]]).unwrap();
        let hi = AreaMark::new(3, 5.0, 5.0, vec![[0.0, 0.0], [6.0, 6.0], [0.0, 6.0]]).unwrap();
        apply(&mut c, &[lo, hi], [0.0; 3], 1.0, 1.0);
        assert!(!c.area.contains(&2));
        assert_eq!(c.area.iter().filter(|&&a| a == 3).count(), 21);
    }

    #[test]
    fn circle_includes_centres_on_the_circle() {
        // Centre (2.5, 2.5), radius 1: the centre cell and its four edge neighbours lie at
        // distance 0 and exactly 1 (included); the diagonals at √2 do not.
        let mut c = compact_of(6, 0, |_, _| vec![(5, 1)]);
        let m = AreaMark::circle(9, 0.0, 10.0, [2.5, 2.5], 1.0).unwrap();
        assert_eq!(m.bounds(), [1.5, 1.5, 3.5, 3.5]);
        apply(&mut c, &[m], [0.0; 3], 1.0, 1.0);
        assert_eq!(c.area.iter().filter(|&&a| a == 9).count(), 5);
        // Invalid values give no mark.
        assert!(AreaMark::circle(9, 0.0, 10.0, [2.5, 2.5], 0.0).is_none());
        assert!(AreaMark::circle(64, 0.0, 10.0, [2.5, 2.5], 1.0).is_none());
        assert!(AreaMark::circle(9, 1.0, 0.0, [2.5, 2.5], 1.0).is_none());
        assert!(AreaMark::circle(9, 0.0, 1.0, [f64::MAX, 2.5], f64::MAX).is_none());
        assert_eq!(
            AreaMark::convexity_violation(&[[0.0, 0.0], [0.0, 1.0], [1.0, 0.0]]),
            Some(1)
        );
        assert_eq!(
            AreaMark::convexity_violation(&[[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]),
            None
        );
    }

    #[test]
    fn later_marks_win() {
        let mut c = compact_of(4, 0, |_, _| vec![(5, 1)]);
        let all = vec![[0.0, 0.0], [4.0, 0.0], [4.0, 4.0], [0.0, 4.0]];
        let a = AreaMark::new(0, 0.0, 9.0, all.clone()).unwrap();
        let b = AreaMark::new(6, 0.0, 9.0, all).unwrap();
        apply(&mut c, &[a.clone(), b.clone()], [0.0; 3], 1.0, 1.0);
        assert!(c.area.iter().all(|&x| x == 6));
        apply(&mut c, &[b, a], [0.0; 3], 1.0, 1.0);
        assert!(c.area.iter().all(|&x| x == 0));
    }
}
