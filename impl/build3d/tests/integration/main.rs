//! Integration tests of onav-build3d, one binary (house style). Module names are the ones
//! `spec/build3d.md` cites in its `Tests:` lines.

mod demo;
mod determinism;
mod digest;
mod input;
mod kit;
mod limits;
mod platform_hashes;
mod robustness;
mod seam;
