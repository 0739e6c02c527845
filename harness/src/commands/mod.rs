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

/// Writes `bytes` to `path`, creating its missing folders (`spec/conformance.md` §4.5: every
/// file or folder onav writes is created with its missing parent folders, as `mkdir -p`).
fn write_file(path: &std::path::Path, bytes: &[u8]) -> Result<(), HarnessError> {
    if let Some(d) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(d).map_err(|e| HarnessError::io(d, e))?;
    }
    std::fs::write(path, bytes).map_err(|e| HarnessError::io(path, e))
}

/// What a command will write at a path: a file or a folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputKind {
    /// `--out FILE`, `--svg`, failure lists.
    File,
    /// `compile --out DIR`, `--trace DIR`.
    Folder,
}

/// Checks, before any work, that a command can write `path` under the one rule of every output
/// (`spec/conformance.md` §4.5): missing folders on the way are created later, but a file must
/// not name an existing folder (nor a folder an existing file), and no existing part of the way
/// may be a file. So a typo costs no run, and no command creates some folders and not others.
pub fn check_output(path: &std::path::Path, kind: OutputKind) -> Result<(), HarnessError> {
    let refuse = |p: &std::path::Path, k, why: &str| {
        Err(HarnessError::io(p, std::io::Error::new(k, why.to_owned())))
    };
    if path.as_os_str().is_empty() {
        return refuse(path, std::io::ErrorKind::NotFound, "an empty path");
    }
    match kind {
        OutputKind::File if path.is_dir() => {
            return refuse(
                path,
                std::io::ErrorKind::IsADirectory,
                "is a folder, not a file",
            );
        }
        OutputKind::Folder if path.exists() && !path.is_dir() => {
            return refuse(
                path,
                std::io::ErrorKind::NotADirectory,
                "is a file, not a folder",
            );
        }
        _ => {}
    }
    for a in path.ancestors().skip(1) {
        if a.as_os_str().is_empty() || a.is_dir() {
            break;
        }
        if a.exists() {
            return refuse(
                a,
                std::io::ErrorKind::NotADirectory,
                "is a file, so no folder can be made below it",
            );
        }
    }
    Ok(())
}
