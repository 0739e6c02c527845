//! Queries over a [`TiledNavMesh`] (`spec/queries.md`): nearest polygon, A* corridor, string
//! pulling and raycast. Every formula follows the spec's operation order and every tie has a
//! stated rule, so another port reproduces the results bit for bit (`spec/queries.md` §1.2).
//!
//! A [`NavMeshQuery`] borrows the mesh and holds the node-pool size (§1); it keeps no state
//! between calls, so one query object may serve several threads at once.

mod filter;
mod geom;
mod nearest;
mod path;
mod pool;
mod portal;
mod raycast;
mod straight;

#[cfg(test)]
mod dump_tests;
#[cfg(test)]
mod fixtures;
#[cfg(test)]
mod query_tests;

pub use filter::QueryFilter;
pub use nearest::NearestPoly;
pub use path::{PathResult, PathStatus};
pub use raycast::{RaycastHit, RaycastOptions, RaycastStop};
pub use straight::{StraightPathFlags, StraightPathOptions, StraightPoint};

use crate::geom::Vec3;
use crate::ids::PolyRef;
use crate::limits::MAX_QUERY_NODES;
use crate::mesh::TiledNavMesh;
use crate::tile::{NavTile, Polygon};

/// Why a query refused its inputs (`spec/queries.md` §1.3). Queries never panic: every input,
/// including forged references and non-finite floats, gets either a result or one of these.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum QueryError {
    /// A polygon reference that is not valid in the mesh now, or names a polygon of the wrong
    /// kind (an off-mesh link polygon where a ground polygon is required).
    #[error("invalid polygon reference {poly:?} for {what}")]
    InvalidRef {
        /// The reference given.
        poly: PolyRef,
        /// The parameter it was given for.
        what: &'static str,
    },
    /// Any other unusable input.
    #[error("invalid input: {reason}")]
    InvalidInput {
        /// What is wrong.
        reason: InvalidInput,
    },
}

/// What is wrong with an input that is not a reference (`spec/queries.md` §1.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InvalidInput {
    /// A coordinate of the point or vector `arg` is NaN or infinite.
    #[error("{arg} must be finite")]
    NotFinite {
        /// The parameter: `center`, `half_extents`, `start_pos` or `end_pos`.
        arg: &'static str,
    },
    /// A half extent is negative (`find_nearest_poly`).
    #[error("half_extents must be >= 0")]
    NegativeExtent,
    /// A node-pool size outside 1 ..= [`MAX_QUERY_NODES`] (§1.1).
    #[error("max_nodes must be in 1 ..= 4 194 304, got {max_nodes}")]
    PoolSize {
        /// The size given.
        max_nodes: u32,
    },
    /// An area above 63 (§2).
    #[error("area {area} above 63")]
    AreaOutOfRange {
        /// The area given.
        area: u8,
    },
    /// An area cost that is negative or not finite (§2.2).
    #[error("area cost of area {area} must be finite and >= 0")]
    AreaCost {
        /// The area whose cost was given.
        area: u8,
    },
    /// A corridor with no polygon (`find_straight_path`).
    #[error("empty corridor")]
    EmptyCorridor,
    /// Corridor polygons `index` and `index + 1` are not linked (§5.2).
    #[error("corridor polygons {index} and the next are not linked")]
    CorridorNotLinked {
        /// The position of the first of the two in the corridor.
        index: usize,
    },
}

impl From<InvalidInput> for QueryError {
    fn from(reason: InvalidInput) -> Self {
        Self::InvalidInput { reason }
    }
}

/// The query object (`spec/queries.md` §1): a mesh and a node-pool size.
#[derive(Debug, Clone, Copy)]
pub struct NavMeshQuery<'m> {
    mesh: &'m TiledNavMesh,
    max_nodes: u32,
}

impl<'m> NavMeshQuery<'m> {
    /// A query over `mesh` whose searches hold at most `max_nodes` nodes (1 ..= [`MAX_QUERY_NODES`]).
    /// The pool size bounds `find_path`'s nodes and `raycast`'s visited polygons.
    pub fn new(mesh: &'m TiledNavMesh, max_nodes: u32) -> Result<Self, QueryError> {
        if max_nodes == 0 || max_nodes > MAX_QUERY_NODES {
            return Err(InvalidInput::PoolSize { max_nodes }.into());
        }
        Ok(Self { mesh, max_nodes })
    }

    /// The mesh queried.
    pub fn mesh(&self) -> &'m TiledNavMesh {
        self.mesh
    }

    /// The node-pool size.
    pub fn max_nodes(&self) -> u32 {
        self.max_nodes
    }

    /// The tile and index of a valid ground polygon, or `InvalidRef`.
    fn ground(&self, r: PolyRef, what: &'static str) -> Result<Ground<'m>, QueryError> {
        let (tile, index) = self
            .mesh
            .poly(r)
            .ok_or(QueryError::InvalidRef { poly: r, what })?;
        let poly = tile
            .ground_polys()
            .get(index.0 as usize)
            .ok_or(QueryError::InvalidRef { poly: r, what })?;
        Ok(Ground { tile, poly })
    }
}

/// A ground polygon looked up once: its tile, index and record.
#[derive(Clone, Copy)]
pub(crate) struct Ground<'m> {
    pub tile: &'m NavTile,
    pub poly: &'m Polygon,
}

impl Ground<'_> {
    /// Vertex k (mod the vertex count) of the polygon.
    pub fn vertex(&self, k: usize) -> Vec3 {
        let n = usize::from(self.poly.vertex_count);
        self.tile.vertices()[self.poly.vertices[k % n] as usize]
    }

    /// The polygon's corners, in order, in a fixed buffer.
    pub fn corners(&self) -> ([Vec3; 6], usize) {
        let n = usize::from(self.poly.vertex_count);
        let mut out = [[0.0; 3]; 6];
        for (k, o) in out.iter_mut().enumerate().take(n) {
            *o = self.vertex(k);
        }
        (out, n)
    }
}

/// `InvalidInput` unless every coordinate of `arg` is finite (`spec/queries.md` §1.3).
fn finite(v: &Vec3, arg: &'static str) -> Result<(), QueryError> {
    if v.iter().all(|c| c.is_finite()) {
        Ok(())
    } else {
        Err(InvalidInput::NotFinite { arg }.into())
    }
}
