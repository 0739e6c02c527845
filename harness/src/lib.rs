//! onav-harness: the conformance and determinism harness behind the `onav` binary.
#![forbid(unsafe_code)]

pub mod decode;
pub mod diff;
pub mod inspect;
pub mod mini;
pub mod mutants;
pub mod protocol;
pub mod testee_client;
pub mod testee_server;
pub mod wire;
