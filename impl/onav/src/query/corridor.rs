//! The cost of a given corridor (`spec/queries.md` P6): the cost model of `find_path`'s search
//! (§4.2, §4.3) applied to a corridor found by other means (another search, another engine), so
//! that a `find_path` cost can be compared with it. It searches nothing.

use super::geom::dist3;
use super::portal::{boarding_end, edge_midpoint, link_point, opposite};
use super::view::{resolve, PolyView};
use super::{finite, InvalidInput, NavMeshQuery, QueryError, QueryFilter};
use crate::geom::Vec3;
use crate::ids::PolyRef;
use crate::stitch::{LinkEnd, LinkKind};

impl NavMeshQuery<'_> {
    /// The cost of `corridor` from `start_pos` to `end_pos` under `filter` (`spec/queries.md`
    /// P6): `g_0 = 0`, `g_{i+1} = g_i + dist3(p_i, p_{i+1})·cost(c_i)` with `p_0 = start_pos` and
    /// `p_{i+1}` the crossing position of step `c_i → c_{i+1}` (§4.2), plus the last leg to
    /// `end_pos`; one polygon gives `dist3(start_pos, end_pos)·cost(c_0)`.
    ///
    /// Checks, in this order (§1.3, E1): a non-empty corridor (`InvalidInput`); its first and
    /// last polygons valid ground polygons (`InvalidRef`); finite positions; then, step by step,
    /// every polygon valid now, a step the search may take (§4.3: the target passes the filter,
    /// no `c_{i+2} = c_i`, an edge link to the target, or an off-mesh link boarded at the end §5.2
    /// determines and left at the other); any failure is `CorridorNotLinked` at that step.
    pub fn corridor_cost(
        &self,
        corridor: &[PolyRef],
        start_pos: Vec3,
        end_pos: Vec3,
        filter: &QueryFilter,
    ) -> Result<f64, QueryError> {
        let (Some(&first), Some(&last)) = (corridor.first(), corridor.last()) else {
            return Err(InvalidInput::EmptyCorridor.into());
        };
        self.ground(first, "corridor[0]")?;
        let end = self.ground(last, "corridor[last]")?.view();
        finite(&start_pos, "start_pos")?;
        finite(&end_pos, "end_pos")?;
        let broken = |index: usize| QueryError::from(InvalidInput::CorridorNotLinked { index });
        // Every polygon valid now (E2): one that is not cannot be reached.
        let views = corridor
            .iter()
            .enumerate()
            .map(|(i, &r)| resolve(self.mesh, r).ok_or(broken(i.saturating_sub(1))))
            .collect::<Result<Vec<PolyView<'_>>, _>>()?;
        let mut g = 0.0;
        let mut at = start_pos;
        // The end the off-mesh link polygon being ridden was boarded at.
        let mut boarded: Option<LinkEnd> = None;
        for (i, w) in views.windows(2).enumerate() {
            let (here, there) = (&w[0], &w[1]);
            if !filter.passes_view(there) || (i >= 1 && views[i - 1].r == there.r) {
                return Err(broken(i));
            }
            let has = |kind: LinkKind| {
                here.links
                    .iter()
                    .any(|l| l.target == there.r && l.kind == kind)
            };
            let pos = if let Some(e) = boarded.take() {
                let leave = opposite(e);
                let link = here.off_mesh_link().ok_or(broken(i))?;
                if !has(LinkKind::FromOffMesh { end: leave }) {
                    return Err(broken(i));
                }
                link_point(link, leave)
            } else if let Some(link) = there.off_mesh_link() {
                // `there` is not the last polygon (that one is ground), so views[i + 2] exists.
                let e = boarding_end(here, there, views[i + 2].r).ok_or(broken(i))?;
                boarded = Some(e);
                link_point(link, e)
            } else {
                let ground = here.ground().ok_or(broken(i))?;
                let link = here
                    .links
                    .iter()
                    .find(|l| {
                        l.target == there.r
                            && matches!(l.kind, LinkKind::Internal { .. } | LinkKind::Portal { .. })
                    })
                    .ok_or(broken(i))?;
                edge_midpoint(&ground, &link.kind).ok_or(broken(i))?
            };
            g += dist3(&at, &pos) * filter.cost_of(here);
            at = pos;
        }
        Ok(g + dist3(&at, &end_pos) * filter.cost_of(&end))
    }
}
