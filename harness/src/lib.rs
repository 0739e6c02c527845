//! onav-harness: the conformance and determinism harness behind the `onav` binary.
#![forbid(unsafe_code)]

pub mod commands;
pub mod decode;
pub mod diff;
pub mod exec;
pub mod fuzzing;
pub mod glob;
pub mod golden;
pub mod inspect;
pub mod mutants;
pub mod patch;
pub mod protocol;
pub mod reference;
pub mod report;
pub mod scenario;
pub mod suite;
pub mod testee_client;
pub mod testee_server;
