//! The harness's integration tests, one binary (one link) for all of them:
//! `cargo test -p onav-harness --test integration [module::]`.

mod build;
mod cli;
mod draw;
mod kit;
mod protocol;
mod runner;
mod suite;
