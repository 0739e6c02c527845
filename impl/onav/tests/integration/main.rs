//! The onav crate's integration tests, one binary (one link) for all of them:
//! `cargo test -p onav --test integration [module::]`.

mod fuzz_replay;
mod fuzz_seeds;
mod parser_edges;
mod platform_hashes;
mod tile_nan_orientation;
