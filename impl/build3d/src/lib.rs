//! onav-build3d: a deterministic voxel builder from triangle meshes to layered onav tiles.
//!
//! The normative description is `spec/build3d.md`; every stage has one module whose docs give
//! its units and limits. Data flows one way:
//!
//! geometry (`obj` or arrays) → `settings` → `plan` (grid, tiles, triangle bins) →
//! per tile cell: `rasterize` → `filter` → `compact` → *(the tile-cache seam: an
//! [`Intermediate`])* → `marks` → `erode` → `regions` → `layers` → `contours` → `polymesh` →
//! `detail` → `output` (the only module that uses `onav`'s API).
//!
//! Entry points: [`build`] (geometry and settings to tiles, in parallel on the caller's rayon
//! pool), [`build_obj`] (OBJ bytes and the settings encoding), and [`Plan::prepare`] /
//! [`Plan::finish`] for a tile cache. Output is identical for every thread count, platform,
//! face order, corner rotation and object split.
#![forbid(unsafe_code)]

mod build;
mod compact;
mod contours;
mod detail;
mod erode;
mod error;
mod filter;
mod geometry;
mod layers;
pub mod limits;
#[cfg(test)]
mod limits_tests;
mod marks;
mod num;
mod obj;
mod output;
mod plan;
mod polymesh;
mod rasterize;
mod regions;
mod settings;
#[cfg(test)]
mod test_kit;

pub use build::{build, build_obj, BuildObjError, BuildStats, BuiltMesh, CachedCell, Intermediate};
pub use error::{BuildError, GeometryError, LimitKind, ObjError, ObjReason, TileCell};
pub use geometry::Geometry;
pub use marks::AreaMark;
pub use plan::Plan;
pub use settings::{Settings, SettingsSpec, VolumeSpec, PIPELINE_VERSION};
