//! Integration tests of onav-tilecache (one binary).

mod cache;
mod drain;
mod fuzz_replay;
mod kit;
mod platform_hashes;
mod reject;
mod snapshot;
