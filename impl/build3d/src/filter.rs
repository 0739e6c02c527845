//! Heightfield filters (`spec/build3d.md` §6), in this order, on spans in cells:
//!
//! 1. **Low hanging obstacles.** Bottom-up in each column, a non-walkable span directly above a
//!    span that was walkable *before this filter* takes that span's (possibly just set) area when
//!    its top is at most `walkable_climb` above the lower span's top.
//! 2. **Ledges.** A walkable span becomes unwalkable when a neighbour column (4 directions)
//!    offers a floor more than `walkable_climb` below it with `walkable_height` of clearance (a
//!    column outside the window, or the space under a neighbour's lowest span, counts as such a
//!    drop), or when the floors it can step to (within climb) span more than `walkable_climb`.
//!    Only heights are read, never areas of other spans, so the result is order-free.
//! 3. **Low height.** A span with less than `walkable_height` cells of free space above it
//!    becomes unwalkable.

use crate::rasterize::Heightfield;

/// Larger than any height: the ceiling of the topmost span of a column.
pub(crate) const OPEN: i64 = 1 << 40;

/// Direction offsets (dx, dz) for directions 0 +x, 1 +z, 2 −x, 3 −z (onav's side codes).
pub(crate) const DIRS: [(i64, i64); 4] = [(1, 0), (0, 1), (-1, 0), (0, -1)];

/// Runs the three filters of §6 in order.
pub(crate) fn filter(hf: &mut Heightfield, walkable_height: u32, walkable_climb: u32) {
    let (h, c) = (i64::from(walkable_height), i64::from(walkable_climb));
    low_hanging(hf, c);
    ledges(hf, h, c);
}

fn low_hanging(hf: &mut Heightfield, climb: i64) {
    for col in hf.occ.cols(hf.win.size) {
        let mut prev_walkable = false;
        let mut prev_area = 0u8;
        let mut prev_top = 0i64;
        for i in hf.column(col) {
            let s = &mut hf.spans[i];
            let walkable = s.area != 0;
            if !walkable && prev_walkable && i64::from(s.smax) - prev_top <= climb {
                s.area = prev_area;
            }
            prev_walkable = walkable;
            prev_area = s.area;
            prev_top = i64::from(s.smax);
        }
    }
}

/// The ledge filter (B21) and, fused into its pass, the low-height filter (B22).
fn ledges(hf: &mut Heightfield, height: i64, climb: i64) {
    let size = hf.win.size as i64;
    let mut unwalkable = Vec::new();
    let occ = hf.occ;
    for z in occ.z0 as i64..occ.z1 as i64 {
        for x in occ.x0 as i64..occ.x1 as i64 {
            let col = (z * size + x) as usize;
            let range = hf.column(col);
            for i in range.clone() {
                let s = hf.spans[i];
                if s.area == 0 {
                    continue;
                }
                let floor = i64::from(s.smax);
                let ceil = if i + 1 < range.end {
                    i64::from(hf.spans[i + 1].smin)
                } else {
                    OPEN
                };
                // The low-height filter (B22) in the same pass: a span it clears ends
                // unwalkable whatever the ledge test says, and the ledge test of every other
                // span reads only heights, so clearing it first changes nothing else.
                if ceil - floor < height {
                    unwalkable.push(i);
                    continue;
                }
                let mut lowest = OPEN;
                let mut acc_lo = floor;
                let mut acc_hi = floor;
                for (dx, dz) in DIRS {
                    let (nx, nz) = (x + dx, z + dz);
                    if nx < 0 || nz < 0 || nx >= size || nz >= size {
                        lowest = -climb - 1;
                        break;
                    }
                    let nrange = hf.column((nz * size + nx) as usize);
                    // The space below the neighbour's lowest span: a drop to "minus infinity".
                    let first_ceil = if nrange.is_empty() {
                        OPEN
                    } else {
                        i64::from(hf.spans[nrange.start].smin)
                    };
                    if ceil.min(first_ceil) - floor >= height {
                        lowest = -climb - 1;
                        break;
                    }
                    for j in nrange.clone() {
                        let nfloor = i64::from(hf.spans[j].smax);
                        let nceil = if j + 1 < nrange.end {
                            i64::from(hf.spans[j + 1].smin)
                        } else {
                            OPEN
                        };
                        if ceil.min(nceil) - floor.max(nfloor) < height {
                            continue;
                        }
                        let diff = nfloor - floor;
                        lowest = lowest.min(diff);
                        if diff.abs() <= climb {
                            acc_lo = acc_lo.min(nfloor);
                            acc_hi = acc_hi.max(nfloor);
                        }
                    }
                }
                if lowest < -climb || acc_hi - acc_lo > climb {
                    unwalkable.push(i);
                }
            }
        }
    }
    for i in unwalkable {
        hf.spans[i].area = 0;
    }
}

/// B22 on its own (the reference the fused pass of [`ledges`] must equal).
#[cfg(test)]
fn low_height(hf: &mut Heightfield, height: i64) {
    for col in hf.occ.cols(hf.win.size) {
        let range = hf.column(col);
        for i in range.clone() {
            let ceil = if i + 1 < range.end {
                i64::from(hf.spans[i + 1].smin)
            } else {
                OPEN
            };
            if ceil - i64::from(hf.spans[i].smax) < height {
                hf.spans[i].area = 0;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    //! `spec/build3d.md` B20–B22.
    use super::*;
    use crate::test_kit::heightfield;

    fn areas(hf: &Heightfield) -> Vec<u8> {
        hf.spans.iter().map(|s| s.area).collect()
    }

    #[test]
    fn low_hanging_obstacles_take_the_area_below_once() {
        // Walkable top at 5, unwalkable tops at 6 and 7 (climb 1): only the first is lifted,
        // because the second's lower neighbour was not walkable before the filter.
        let mut hf = heightfield(1, 0, &[(0, 0, 0, 5, 9), (0, 0, 5, 6, 0), (0, 0, 6, 7, 0)]);
        low_hanging(&mut hf, 1);
        assert_eq!(areas(&hf), vec![9, 9, 0]);
        // A top 3 above: lifted with climb 3, not with climb 2.
        let mut hf = heightfield(1, 0, &[(0, 0, 0, 5, 9), (0, 0, 6, 8, 0)]);
        low_hanging(&mut hf, 3);
        assert_eq!(areas(&hf), vec![9, 9]);
        let mut hf = heightfield(1, 0, &[(0, 0, 0, 5, 9), (0, 0, 6, 8, 0)]);
        low_hanging(&mut hf, 2);
        assert_eq!(areas(&hf), vec![9, 0]);
    }

    #[test]
    fn ledge_rules() {
        // A 3×3 floor at height 4 with the middle cell as the one tested; the window edge is
        // a drop, so only the middle survives.
        let floor: Vec<_> = (0..9).map(|c| (c % 3, c / 3, 0, 4, 1)).collect();
        let mut hf = heightfield(3, 0, &floor);
        ledges(&mut hf, 2, 1);
        assert_eq!(areas(&hf), vec![0, 0, 0, 0, 1, 0, 0, 0, 0]);
        // A neighbour 2 lower with climb 1 is a ledge; with climb 2 it is a step.
        let mut cells = floor.clone();
        cells[5] = (2, 1, 0, 2, 1);
        let mut hf = heightfield(3, 0, &cells);
        ledges(&mut hf, 2, 1);
        assert_eq!(hf.spans[4].area, 0);
        let mut hf = heightfield(3, 0, &cells);
        ledges(&mut hf, 2, 2);
        assert_eq!(hf.spans[4].area, 1);
        // Neighbours within climb but spread by more than climb: steep.
        cells[3] = (0, 1, 0, 6, 1);
        let mut hf = heightfield(3, 0, &cells);
        ledges(&mut hf, 2, 2);
        assert_eq!(hf.spans[4].area, 0);
    }

    /// B21 literally, on its own (without the fused B22 of [`ledges`]).
    fn ledges_alone(hf: &mut Heightfield, height: i64, climb: i64) {
        let size = hf.win.size as i64;
        let mut unwalkable = Vec::new();
        for z in 0..size {
            for x in 0..size {
                let range = hf.column((z * size + x) as usize);
                for i in range.clone() {
                    if hf.spans[i].area == 0 {
                        continue;
                    }
                    let f = i64::from(hf.spans[i].smax);
                    let g = if i + 1 < range.end {
                        i64::from(hf.spans[i + 1].smin)
                    } else {
                        OPEN
                    };
                    let (mut lowest, mut lo, mut hi) = (OPEN, f, f);
                    for (dx, dz) in DIRS {
                        let (nx, nz) = (x + dx, z + dz);
                        if nx < 0 || nz < 0 || nx >= size || nz >= size {
                            lowest = -climb - 1;
                            break;
                        }
                        let nr = hf.column((nz * size + nx) as usize);
                        let first = nr
                            .clone()
                            .next()
                            .map_or(OPEN, |j| i64::from(hf.spans[j].smin));
                        if g.min(first) - f >= height {
                            lowest = -climb - 1;
                            break;
                        }
                        for j in nr.clone() {
                            let nf = i64::from(hf.spans[j].smax);
                            let ng = if j + 1 < nr.end {
                                i64::from(hf.spans[j + 1].smin)
                            } else {
                                OPEN
                            };
                            if g.min(ng) - f.max(nf) >= height {
                                lowest = lowest.min(nf - f);
                                if (nf - f).abs() <= climb {
                                    lo = lo.min(nf);
                                    hi = hi.max(nf);
                                }
                            }
                        }
                    }
                    if lowest < -climb || hi - lo > climb {
                        unwalkable.push(i);
                    }
                }
            }
        }
        for i in unwalkable {
            hf.spans[i].area = 0;
        }
    }

    proptest::proptest! {
        #[test]
        fn fused_pass_equals_the_three_filters_in_order(
            cols in proptest::collection::vec(
                proptest::collection::vec((1u32..4, 1u32..4, 0u8..3), 0..4),
                16,
            ),
            height in 1i64..5,
            climb in 0i64..3,
        ) {
            let mut spans = Vec::new();
            for (c, col) in cols.iter().enumerate() {
                let mut y = 0;
                for &(gap, len, area) in col {
                    spans.push((c % 4, c / 4, y + gap, y + gap + len, area));
                    y += gap + len;
                }
            }
            let mut fast = heightfield(4, 0, &spans);
            let mut want = fast.clone();
            filter(&mut fast, height as u32, climb as u32);
            low_hanging(&mut want, climb);
            ledges_alone(&mut want, height, climb);
            super::low_height(&mut want, height);
            proptest::prop_assert_eq!(areas(&fast), areas(&want));
        }
    }

    #[test]
    fn low_height() {
        let mut hf = heightfield(1, 0, &[(0, 0, 0, 4, 1), (0, 0, 7, 8, 1)]);
        super::low_height(&mut hf, 3);
        assert_eq!(areas(&hf), vec![1, 1]);
        let mut hf = heightfield(1, 0, &[(0, 0, 0, 4, 1), (0, 0, 6, 8, 1)]);
        super::low_height(&mut hf, 3);
        assert_eq!(areas(&hf), vec![0, 1]);
    }
}
