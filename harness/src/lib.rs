//! onav-harness: the conformance and determinism harness behind the `onav` binary.
#![forbid(unsafe_code)]

pub mod commands;
pub mod error;
pub mod exec;
pub mod files;
#[cfg(any(test, feature = "fuzzing"))]
pub mod fuzzing;
pub mod glob;
pub mod golden;
pub mod hex;
pub mod limits;
pub mod protocol;
pub mod report;
pub mod scenario;
pub mod suite;
pub mod testee;
