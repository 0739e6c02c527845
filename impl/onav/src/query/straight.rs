//! `find_straight_path` (`spec/queries.md` §5): string pulling through a corridor's portals
//! (the funnel algorithm), with optional points where the path crosses portals.

use super::geom::{dist2_point_segment_xz, perp_xz, sub};
use super::portal::{boarding_end, edge_portal, link_point, opposite};
use super::view::{resolve, PolyView};
use super::{finite, InvalidInput, NavMeshQuery, QueryError, Scratch};
use crate::geom::{closest_point_on_poly_xz, lerp, orient, Vec3};
use crate::ids::PolyRef;
use crate::stitch::{LinkEnd, LinkKind};

/// Squared x–z distance below which the start counts as lying on the first portal, which is
/// then skipped (`spec/queries.md` §5.3).
pub const START_ON_PORTAL_EPS2: f64 = 1e-6;

/// What a straight-path point is (bit set).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct StraightPathFlags(u8);

impl StraightPathFlags {
    /// An ordinary corner or crossing point.
    pub const NONE: Self = Self(0);
    /// The (clamped) start point.
    pub const START: Self = Self(1);
    /// The (clamped) end point.
    pub const END: Self = Self(2);
    /// The point where an off-mesh link is boarded; its polygon is the link polygon.
    pub const OFF_MESH: Self = Self(4);

    /// The raw bits.
    pub fn bits(self) -> u8 {
        self.0
    }

    /// True when every bit of `other` is set.
    pub fn contains(self, other: Self) -> bool {
        self.0 & other.0 == other.0
    }
}

impl std::ops::BitOr for StraightPathFlags {
    type Output = Self;
    fn bitor(self, rhs: Self) -> Self {
        Self(self.0 | rhs.0)
    }
}

impl std::ops::BitOrAssign for StraightPathFlags {
    fn bitor_assign(&mut self, rhs: Self) {
        self.0 |= rhs.0;
    }
}

/// Extra points along the straight path (`spec/queries.md` §5.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct StraightPathOptions {
    /// A point wherever the path crosses a portal between polygons of different areas.
    pub area_crossings: bool,
    /// A point wherever the path crosses any portal (implies `area_crossings`).
    pub all_crossings: bool,
}

/// One point of a straight path.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StraightPoint {
    /// The point.
    pub pos: Vec3,
    /// Start, end, off-mesh boarding, or none.
    pub flags: StraightPathFlags,
    /// The polygon entered at this point (the first polygon for the start, the last for the end).
    pub poly: PolyRef,
}

/// A portal of the corridor: where the path crosses from polygon i to polygon i + 1.
#[derive(Clone, Copy)]
pub(crate) struct Portal {
    left: Vec3,
    right: Vec3,
}

fn append(out: &mut Vec<StraightPoint>, pos: Vec3, flags: StraightPathFlags, poly: PolyRef) {
    if let Some(last) = out.last_mut() {
        if last.pos == pos {
            last.flags |= flags;
            last.poly = poly;
            return;
        }
    }
    out.push(StraightPoint { pos, flags, poly });
}

impl NavMeshQuery<'_> {
    /// The straight path from `start_pos` to `end_pos` through `corridor` (`spec/queries.md` §5).
    ///
    /// The corridor's first and last polygons must be ground polygons; consecutive polygons
    /// must be linked (an off-mesh link polygon between its two landings). The start is clamped
    /// into the first polygon and the end into the last on x–z. Filters are not consulted.
    pub fn find_straight_path(
        &self,
        start_pos: Vec3,
        end_pos: Vec3,
        corridor: &[PolyRef],
        options: StraightPathOptions,
    ) -> Result<Vec<StraightPoint>, QueryError> {
        let mut out = Vec::new();
        self.straight(
            start_pos,
            end_pos,
            corridor,
            options,
            &mut Scratch::default(),
            &mut out,
        )?;
        Ok(out)
    }

    /// [`NavMeshQuery::find_straight_path`] writing the points into `out` (cleared first; left
    /// empty on an error), with the corridor's portals in the query's scratch: a call allocates
    /// nothing once `out` and the scratch have the capacity it needs.
    pub fn find_straight_path_into(
        &mut self,
        start_pos: Vec3,
        end_pos: Vec3,
        corridor: &[PolyRef],
        options: StraightPathOptions,
        out: &mut Vec<StraightPoint>,
    ) -> Result<(), QueryError> {
        let mut scratch = std::mem::take(&mut self.scratch);
        let r = self.straight(start_pos, end_pos, corridor, options, &mut scratch, out);
        self.scratch = scratch;
        r
    }

    fn straight(
        &self,
        start_pos: Vec3,
        end_pos: Vec3,
        corridor: &[PolyRef],
        options: StraightPathOptions,
        scratch: &mut Scratch,
        out: &mut Vec<StraightPoint>,
    ) -> Result<(), QueryError> {
        out.clear();
        // The check order of `spec/queries.md` §1.3: references, then positions, then the links.
        let n = corridor.len();
        let (Some(&first), Some(&last)) = (corridor.first(), corridor.last()) else {
            return Err(InvalidInput::EmptyCorridor.into());
        };
        let g0 = self.ground(first, "corridor[0]")?;
        let gn = self.ground(last, "corridor[last]")?;
        finite(&start_pos, "start_pos")?;
        finite(&end_pos, "end_pos")?;
        self.portals(corridor, scratch)?;
        let Scratch { portals, polys, .. } = scratch;

        let (c0, k0) = g0.corners();
        let (cs, _) = closest_point_on_poly_xz(&start_pos, &c0[..k0]);
        let (cn, kn) = gn.corners();
        let (ce, _) = closest_point_on_poly_xz(&end_pos, &cn[..kn]);

        let crossings = options.area_crossings || options.all_crossings;
        let run = Run {
            corridor,
            portals,
            polys,
            all: options.all_crossings,
        };
        append(out, cs, StraightPathFlags::START, first);

        let mut apex = cs;
        let (mut left, mut right) = (cs, cs);
        let (mut apex_i, mut left_i, mut right_i) = (0usize, 0usize, 0usize);
        let (mut left_poly, mut right_poly) = (first, first);
        let (mut left_flags, mut right_flags) = (StraightPathFlags::NONE, StraightPathFlags::NONE);
        let mut i = 0usize;
        // A restart moves the apex to a portal point tightened after it, so the funnel ends in
        // at most n restarts of n steps each; the cap only guards against a hang should a
        // non-finite value ever slip through (spec/queries.md §5.3).
        let mut steps = 0usize;
        let cap = (n + 1).saturating_mul(n + 1).saturating_mul(2);
        while i < n && steps <= cap {
            steps += 1;
            let (l, r, to_poly, to_flags) = if i + 1 < n {
                let p = portals[i];
                if i == 0 && dist2_point_segment_xz(&apex, &p.left, &p.right) < START_ON_PORTAL_EPS2
                {
                    i += 1;
                    continue;
                }
                let flags = if polys[i + 1].0 {
                    StraightPathFlags::OFF_MESH
                } else {
                    StraightPathFlags::NONE
                };
                (p.left, p.right, corridor[i + 1], flags)
            } else {
                (ce, ce, last, StraightPathFlags::END)
            };

            // Right side.
            if orient(&apex, &right, &r) >= 0.0 {
                if apex == right || orient(&apex, &left, &r) < 0.0 {
                    right = r;
                    right_poly = to_poly;
                    right_flags = to_flags;
                    right_i = i;
                } else {
                    if crossings {
                        run.crossings(out, apex_i, left_i, left);
                    }
                    apex = left;
                    apex_i = left_i;
                    append(out, apex, left_flags, left_poly);
                    (left, right) = (apex, apex);
                    (left_i, right_i) = (apex_i, apex_i);
                    i = apex_i + 1;
                    continue;
                }
            }

            // Left side.
            if orient(&apex, &left, &l) <= 0.0 {
                if apex == left || orient(&apex, &right, &l) > 0.0 {
                    left = l;
                    left_poly = to_poly;
                    left_flags = to_flags;
                    left_i = i;
                } else {
                    if crossings {
                        run.crossings(out, apex_i, right_i, right);
                    }
                    apex = right;
                    apex_i = right_i;
                    append(out, apex, right_flags, right_poly);
                    (left, right) = (apex, apex);
                    (left_i, right_i) = (apex_i, apex_i);
                    i = apex_i + 1;
                    continue;
                }
            }
            i += 1;
        }
        if crossings {
            run.crossings(out, apex_i, n - 1, ce);
        }
        append(out, ce, StraightPathFlags::END, last);
        Ok(())
    }

    /// The portal between every two consecutive corridor polygons (`spec/queries.md` §5.2) into
    /// `scratch.portals`, and each polygon's (is an off-mesh link polygon, current area) into
    /// `scratch.polys`; or `InvalidRef` / `InvalidInput` when two are not linked. Each polygon is
    /// resolved once.
    fn portals(&self, corridor: &[PolyRef], scratch: &mut Scratch) -> Result<(), QueryError> {
        let mesh = self.mesh;
        let n = corridor.len();
        let (out, polys) = (&mut scratch.portals, &mut scratch.polys);
        out.clear();
        polys.clear();
        // The view of corridor[i + 1] is carried to the next step.
        let mut next = resolve(mesh, corridor[0]);
        let mut board = LinkEnd::Start;
        for i in 0..n.saturating_sub(1) {
            let (a, b) = (corridor[i], corridor[i + 1]);
            let unlinked = InvalidInput::CorridorNotLinked { index: i };
            let Some(va) = next else {
                return Err(QueryError::InvalidRef {
                    poly: a,
                    what: "corridor",
                });
            };
            let vb = resolve(mesh, b);
            next = vb;
            let a_link = va.off_mesh_link();
            polys.push((a_link.is_some(), va.area()));
            let b_link = vb.as_ref().and_then(PolyView::off_mesh_link);
            let p = if let (Some(vb), Some(link)) = (&vb, b_link) {
                let after = *corridor
                    .get(i + 2)
                    // Unreachable: the last polygon was checked to be a ground polygon.
                    .ok_or(unlinked)?;
                board = boarding_end(&va, vb, after).ok_or(unlinked)?;
                link_point(link, board)
            } else if let Some(link) = a_link {
                // Checked with the boarding end at step i − 1.
                link_point(link, opposite(board))
            } else {
                let g = va.ground().ok_or(QueryError::InvalidRef {
                    poly: a,
                    what: "corridor",
                })?;
                let link = g
                    .links
                    .iter()
                    .find(|l| {
                        l.target == b
                            && matches!(l.kind, LinkKind::Internal { .. } | LinkKind::Portal { .. })
                    })
                    .ok_or(unlinked)?;
                let (left, right) = edge_portal(&g, &link.kind).ok_or(unlinked)?;
                out.push(Portal { left, right });
                continue;
            };
            out.push(Portal { left: p, right: p });
        }
        // The last polygon, a valid ground polygon (checked by the caller).
        if let Some(v) = next {
            polys.push((false, v.area()));
        }
        Ok(())
    }
}

/// What the crossing points of §5.5 read: the corridor, its portals and its polygons' areas.
struct Run<'a> {
    corridor: &'a [PolyRef],
    portals: &'a [Portal],
    polys: &'a [(bool, u8)],
    all: bool,
}

impl Run<'_> {
    /// Appends a point wherever the segment from the last point to `to` crosses the portals
    /// `from_i .. to_i` (`spec/queries.md` §5.5).
    fn crossings(&self, out: &mut Vec<StraightPoint>, from_i: usize, to_i: usize, to: Vec3) {
        let Some(a) = out.last().map(|p| p.pos) else {
            return;
        };
        for i in from_i..to_i {
            if !self.all && self.polys[i].1 == self.polys[i + 1].1 {
                continue;
            }
            let Portal { left, right } = self.portals[i];
            let u = sub(&to, &a);
            let v = sub(&right, &left);
            let w = sub(&a, &left);
            let d = perp_xz(&u, &v);
            if d == 0.0 || d.is_nan() {
                continue;
            }
            let t = (perp_xz(&u, &w) / d).clamp(0.0, 1.0);
            if t.is_nan() {
                continue;
            }
            append(
                out,
                lerp(&left, &right, t),
                StraightPathFlags::NONE,
                self.corridor[i + 1],
            );
        }
    }
}
