//! onav-harness: the conformance and determinism harness behind the `onav` binary.
#![forbid(unsafe_code)]

pub mod decode;
pub mod protocol;
