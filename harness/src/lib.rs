//! onav-harness: the conformance and determinism harness behind the `onav` binary.
#![forbid(unsafe_code)]

pub mod decode;
pub mod exec;
pub mod patch;
pub mod protocol;
pub mod reference;
pub mod scenario;
