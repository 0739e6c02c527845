//! One module per comparison. Each takes a prepared [`crate::case::Case`] (or builds what it
//! needs) and returns its figures; `main` prints them.
//!
//! - `queries`: nearest, path, straight path, raycast; answer agreement (issue 13 items 2–3);
//! - `meshes`: parse + add_tile, restore into a new mesh, read_mesh against Detour's
//!   alloc + init + addTile (item 4);
//! - `state`: rollback (in-place restore) against Detour's tile-state loop, snapshot writes,
//!   peak memory of a restore (item 4);
//! - `world`: onav's own 1024-tile generated world, rollback / full restore (item 4);
//! - `build3d`: Recast's tiled build against onav-build3d on 1 and 2 threads, and both meshes'
//!   quality: walkable area, pairs connected (issue 14 item 9);
//! - `tilecache`: DetourTileCache cylinder add + settle, the slot for onav's tile cache
//!   (issue 15 item 6).

pub mod build3d;
pub mod meshes;
pub mod queries;
pub mod state;
pub mod tilecache;
pub mod world;
