//! onav-harness: the conformance and determinism harness behind the `onav` binary
//! (`spec/conformance.md`). The modules are private; what the binary and the integration tests
//! use is re-exported here, and the subcommands are [`commands`].
#![forbid(unsafe_code)]

mod built;
pub mod commands;
mod draw;
mod error;
mod exec;
mod files;
#[cfg(any(test, feature = "fuzzing"))]
pub mod fuzzing;
mod glob;
mod golden;
mod hex;
mod limits;
mod protocol;
mod report;
mod scenario;
mod suite;
mod testee;

pub use draw::{case_pictures, CaseState};
pub use error::{HarnessError, MatrixFileError};
pub use exec::{run_scenario, without_corruptions, CaseRun, Status};
pub use files::diff::{diff, Difference};
pub use golden::{Entry, GoldenProblem, Manifest, ManifestError, ManifestLineError, Store};
pub use protocol::wire::{b64, unb64};
pub use protocol::{Backend, BackendFailure, Reply, Request};
pub use report::Format;
pub use scenario::{
    anchor_in, load_compiled, load_str, Case, Class, LoadError, LoadReason, PatchEdit, Scenario,
    SetEdit, Step,
};
pub use suite::{
    apply_failure_list, check_goldens, declared_goldens, find_root, load as load_suite,
    parse_failure_list, run_cases, CaseResult, Suite, Target,
};
pub use testee::client::{quote_word, testee_backend, TesteeBackend, TesteeError};
pub use testee::mutants::MutantKind;
pub use testee::reference::Reference;
