//! Queries over a [`TiledNavMesh`] (`spec/queries.md`): nearest polygon, A* corridor, string
//! pulling and raycast. Every formula follows the spec's operation order and every tie has a
//! stated rule, so another port reproduces the results bit for bit (`spec/queries.md` §1.2).
//!
//! A [`NavMeshQuery`] borrows the mesh and holds the node-pool size and scratch memory (§1.1).
//! No result depends on an earlier call. The methods returning owned results take `&self`, so one
//! query object may serve several threads at once; the `_into` methods write into the caller's
//! buffers and reuse the object's scratch, so that after a first call of a given size they
//! allocate nothing.

mod corridor;
mod filter;
mod geom;
mod index;
mod nearest;
mod path;
mod pool;
mod portal;
mod raycast;
mod straight;
mod view;

#[cfg(test)]
mod dump_tests;
#[cfg(test)]
mod fixtures;
#[cfg(test)]
mod nearest_tests;
#[cfg(test)]
mod path_tests;
#[cfg(test)]
mod query_tests;

pub use filter::QueryFilter;
pub(crate) use index::TileIndex;
pub use nearest::NearestPoly;
pub use path::{PathResult, PathStatus};
pub use raycast::{RaycastHit, RaycastOptions, RaycastStop, RaycastSummary};
pub use straight::{StraightPathFlags, StraightPathOptions, StraightPoint};

use crate::geom::Vec3;
use crate::ids::PolyRef;
use crate::limits::MAX_QUERY_NODES;
use crate::mesh::TiledNavMesh;
use view::{Ground, PolyView};

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

/// The query object (`spec/queries.md` §1.1): a mesh, a node-pool size and scratch memory.
///
/// Cloning gives a query over the same mesh with the same pool size and empty scratch.
pub struct NavMeshQuery<'m> {
    mesh: &'m TiledNavMesh,
    max_nodes: u32,
    scratch: Scratch,
}

impl std::fmt::Debug for NavMeshQuery<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NavMeshQuery")
            .field("max_nodes", &self.max_nodes)
            .finish_non_exhaustive()
    }
}

impl Clone for NavMeshQuery<'_> {
    fn clone(&self) -> Self {
        Self {
            mesh: self.mesh,
            max_nodes: self.max_nodes,
            scratch: Scratch::default(),
        }
    }
}

/// Memory a query reuses from call to call; what a call leaves there never reaches a later
/// result (each call starts from empty contents, keeping only the capacity).
#[derive(Default)]
pub(crate) struct Scratch {
    /// `find_straight_path`: the corridor's portals and, per polygon, whether it is an off-mesh
    /// link polygon and its area.
    pub portals: Vec<straight::Portal>,
    pub polys: Vec<(bool, u8)>,
    /// `find_path`: the node pool and the open list.
    pub pool: pool::NodePool,
    pub open: pool::OpenList,
}

impl<'m> NavMeshQuery<'m> {
    /// A query over `mesh` whose searches hold at most `max_nodes` nodes (1 ..= [`MAX_QUERY_NODES`]).
    /// The pool size bounds `find_path`'s nodes and `raycast`'s visited polygons.
    pub fn new(mesh: &'m TiledNavMesh, max_nodes: u32) -> Result<Self, QueryError> {
        if max_nodes == 0 || max_nodes > MAX_QUERY_NODES {
            return Err(InvalidInput::PoolSize { max_nodes }.into());
        }
        Ok(Self {
            mesh,
            max_nodes,
            scratch: Scratch::default(),
        })
    }

    /// The mesh queried.
    pub fn mesh(&self) -> &'m TiledNavMesh {
        self.mesh
    }

    /// The node-pool size.
    pub fn max_nodes(&self) -> u32 {
        self.max_nodes
    }

    /// The valid ground polygon `r`, or `InvalidRef`.
    fn ground(&self, r: PolyRef, what: &'static str) -> Result<Ground<'m>, QueryError> {
        view::resolve(self.mesh, r)
            .and_then(PolyView::ground)
            .ok_or(QueryError::InvalidRef { poly: r, what })
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
