//! The subcommands of `onav` (`spec/conformance.md` §4, §5). Each returns a typed [`Outcome`]
//! or the [`HarnessError`] that kept it from running; `main.rs` maps them to exit statuses in one
//! place and only parses arguments.

use crate::error::HarnessError;
use crate::suite::{self, CaseResult, Suite, Target};

/// `print!` for the commands: standard output closed by its reader (`onav inspect F | head`)
/// ends the process quietly with status 141 (128 + SIGPIPE, what a shell reports for a program
/// a closed pipe stopped), where `print!` would panic.
macro_rules! out {
    ($($t:tt)*) => {
        $crate::commands::write_out(format_args!($($t)*))
    };
}

/// `println!` for the commands, as `out!`.
macro_rules! outln {
    ($($t:tt)*) => {
        $crate::commands::write_out(format_args!("{}\n", format_args!($($t)*)))
    };
}

/// What `out!` and `outln!` do.
pub fn write_out(args: std::fmt::Arguments<'_>) {
    use std::io::Write as _;
    let mut o = std::io::stdout().lock();
    if o.write_fmt(args).and_then(|()| o.flush()).is_err() {
        std::process::exit(141);
    }
}

pub mod args;
pub mod bless;
pub mod build;
pub mod compile;
pub mod diff;
pub mod draw;
pub mod inspect;
pub mod matrix;
pub mod matrix_compare;
pub mod run;
pub mod spec_index;
pub mod testee;

/// How a command that ran ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Everything as expected.
    Pass,
    /// Something did not hold: a case failed, a golden was refused, the spec index is stale.
    Fail,
    /// The inputs compared differ (`diff`, `matrix-compare`).
    Differ,
}

impl Outcome {
    /// `Pass` when `ok`, else `Fail`.
    pub fn pass_if(ok: bool) -> Self {
        if ok {
            Outcome::Pass
        } else {
            Outcome::Fail
        }
    }
}

/// The reference's known failures (a failure list), below the repository root.
pub const REFERENCE_FAILURES: &str = "scenarios/reference-failures.tsv";

/// A command that reads the suite needs `<root>/scenarios`.
fn check_root(root: &std::path::Path) -> Result<(), HarnessError> {
    if root.join("scenarios").is_dir() {
        Ok(())
    } else {
        Err(HarnessError::NoScenarios {
            root: root.to_path_buf(),
        })
    }
}

/// Runs the selected cases once in process at `threads`, or prints the files that did not load
/// (`None`).
fn reference_results(
    suite: &Suite,
    threads: &[usize],
) -> Result<Option<Vec<CaseResult>>, HarnessError> {
    for e in &suite.load_errors {
        eprintln!("LOAD {e}");
    }
    if !suite.load_errors.is_empty() {
        return Ok(None);
    }
    Ok(Some(suite::run_cases(
        &suite.cases,
        threads,
        Target::Reference,
        true,
    )?))
}

/// Writes `bytes` to `path`, creating its folder.
fn write_file(path: &std::path::Path, bytes: &[u8]) -> Result<(), HarnessError> {
    if let Some(d) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(d).map_err(|e| HarnessError::io(d, e))?;
    }
    std::fs::write(path, bytes).map_err(|e| HarnessError::io(path, e))
}
