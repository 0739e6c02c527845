//! `QueryFilter` (`spec/queries.md` §2): which polygons a query may enter, and what each area
//! costs per unit of distance.

use super::view::{resolve, PolyView, Target};
use super::{InvalidInput, QueryError};
use crate::ids::{PolyIndex, PolyRef};
use crate::limits::AREA_COUNT;
use crate::mesh::TiledNavMesh;

/// Include and exclude flags and 64 area costs (`spec/queries.md` §2).
///
/// A polygon passes iff it is valid, `(flags & include) != 0 && (flags & exclude) == 0`, and —
/// for an off-mesh link polygon — its link is enabled.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryFilter {
    include: u16,
    exclude: u16,
    area_costs: [f64; AREA_COUNT],
}

impl Default for QueryFilter {
    /// Include 0xffff, exclude 0, every area cost 1.0.
    fn default() -> Self {
        Self {
            include: 0xffff,
            exclude: 0,
            area_costs: [1.0; AREA_COUNT],
        }
    }
}

impl QueryFilter {
    /// The default filter: include 0xffff, exclude 0, every area cost 1.0.
    pub fn new() -> Self {
        Self::default()
    }

    /// The include flags.
    pub fn include_flags(&self) -> u16 {
        self.include
    }

    /// The exclude flags.
    pub fn exclude_flags(&self) -> u16 {
        self.exclude
    }

    /// Sets the include flags.
    pub fn set_include_flags(&mut self, flags: u16) -> &mut Self {
        self.include = flags;
        self
    }

    /// Sets the exclude flags.
    pub fn set_exclude_flags(&mut self, flags: u16) -> &mut Self {
        self.exclude = flags;
        self
    }

    /// The cost per unit distance of area `area`; `None` above 63.
    pub fn area_cost(&self, area: u8) -> Option<f64> {
        self.area_costs.get(usize::from(area)).copied()
    }

    /// All 64 area costs.
    pub fn area_costs(&self) -> &[f64; AREA_COUNT] {
        &self.area_costs
    }

    /// Sets the cost of area `area` (0 ..= 63). The cost must be finite and ≥ 0; −0.0 is stored
    /// as +0.0 (`spec/queries.md` §2.2).
    pub fn set_area_cost(&mut self, area: u8, cost: f64) -> Result<&mut Self, QueryError> {
        let slot = self
            .area_costs
            .get_mut(usize::from(area))
            .ok_or(InvalidInput::AreaOutOfRange { area })?;
        if !cost.is_finite() || cost < 0.0 {
            return Err(InvalidInput::AreaCost { area }.into());
        }
        *slot = cost + 0.0;
        Ok(self)
    }

    /// True iff the flags pass the include and exclude rule.
    pub fn passes_flags(&self, flags: u16) -> bool {
        flags & self.include != 0 && flags & self.exclude == 0
    }

    /// The pass rule of `spec/queries.md` §2.1: valid reference, flags pass, and an off-mesh link
    /// polygon's link is enabled.
    pub fn passes(&self, mesh: &TiledNavMesh, r: PolyRef) -> bool {
        resolve(mesh, r).is_some_and(|v| self.passes_view(&v))
    }

    /// The pass rule for a polygon already resolved (so valid).
    #[inline]
    pub(crate) fn passes_view(&self, v: &PolyView<'_>) -> bool {
        self.passes_target(&v.target())
    }

    /// The pass rule for a polygon already located (so valid).
    #[inline(always)]
    pub(crate) fn passes_target(&self, v: &Target<'_>) -> bool {
        if !self.passes_flags(v.flags()) {
            return false;
        }
        match v.tile.link_of_poly(PolyIndex(v.index)) {
            Some(link) => v.tile.is_link_enabled(link),
            None => true,
        }
    }

    /// The cost per unit distance of a resolved polygon's current area (§2.2).
    #[inline]
    pub(crate) fn cost_of(&self, v: &PolyView<'_>) -> f64 {
        self.cost_of_target(&v.target())
    }

    /// The cost per unit distance of a located polygon's current area (§2.2).
    #[inline]
    pub(crate) fn cost_of_target(&self, v: &Target<'_>) -> f64 {
        self.area_cost(v.area()).unwrap_or(1.0)
    }
}
