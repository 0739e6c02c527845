//! Integration tests of onav-tilecache (one binary).

mod cache;
mod clones;
mod drain;
mod failures;
mod fuzz_replay;
mod kit;
mod platform_hashes;
mod reject;
mod snapshot;
