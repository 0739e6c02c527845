//! The onav crate's integration tests, one binary (one link) for all of them:
//! `cargo test -p onav --test integration [module::]`. They use onav's public API, the read-only
//! hooks of `onav::testing` and the test kit (`onav-testkit`).

mod fuzz_replay;
mod fuzz_seeds;
mod histories;
mod landing;
mod parser_edges;
mod platform_hashes;
mod restore_equivalence;
mod snapshot;
mod tile_nan_orientation;
