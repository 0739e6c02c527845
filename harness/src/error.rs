//! The errors of the `onav` commands: everything that keeps a command from running at all
//! (exit status 2). Failing cases, refused goldens and differing files are outcomes, not errors
//! ([`crate::commands::Outcome`]).

use std::path::PathBuf;

use crate::files::inspect::LibraryError;
use crate::golden::ManifestError;
use crate::scenario::LoadError;
use crate::suite::{FailureListError, RunError};
use crate::testee::client::TesteeError;

/// Why a command could not run.
#[derive(Debug, thiserror::Error)]
pub enum HarnessError {
    /// A file or folder could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A failure list that does not parse.
    #[error("{}: {source}", path.display())]
    FailureList {
        /// The file.
        path: PathBuf,
        /// Which line and why.
        source: FailureListError,
    },
    /// A golden manifest that cannot be read.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// The testee could not be started.
    #[error("--testee {command}: {source}")]
    Testee {
        /// The command.
        command: String,
        /// Why.
        source: TesteeError,
    },
    /// The cases could not run at all.
    #[error(transparent)]
    Run(#[from] RunError),
    /// `onav bless` in CI.
    #[error(
        "bless refuses to run in CI (CI is set): goldens are blessed by people, and CI only \
         checks them"
    )]
    BlessInCi,
    /// A scenario that does not load, where every scenario must.
    #[error(transparent)]
    Load(Box<LoadError>),
    /// A file given with `--library` that holds no tiles onav accepts.
    #[error("{}: {source}", path.display())]
    Library {
        /// The file.
        path: PathBuf,
        /// Why.
        source: Box<LibraryError>,
    },
    /// A matrix file `matrix-compare` cannot use.
    #[error("{}: {reason}", path.display())]
    Matrix {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: MatrixFileError,
    },
    /// `matrix-compare` was given no job to compare.
    #[error("no jobs to compare")]
    NoHashes,
    /// The testee side of the protocol failed to read or write.
    #[error("testee: {0}")]
    Serve(std::io::Error),
    /// `onav build` could not build.
    #[error(transparent)]
    Build(Box<crate::commands::build::BuildCommandError>),
    /// A root without the `scenarios/` folder a command needs.
    #[error(
        "{} has no scenarios/ folder: give the repository root with --root (the default is the \
         current folder if it has scenarios/, else the workspace onav was built from)",
        root.display()
    )]
    NoScenarios {
        /// The root.
        root: PathBuf,
    },
    /// A scenario path that does not exist.
    #[error("{}: no such scenario file or folder", path.display())]
    NoSuchPath {
        /// The path.
        path: PathBuf,
    },
    /// A scenario path that is a file but not a scenario.
    #[error("{}: not a scenario (a .yaml file below scenarios/, or a folder)", path.display())]
    NotAScenario {
        /// The path.
        path: PathBuf,
    },
    /// A selection without a case.
    #[error("no case to run: {what}")]
    NothingSelected {
        /// What selected nothing.
        what: String,
    },
    /// A run in which no case ran.
    #[error("no case ran: {reason}")]
    NothingRan {
        /// Why.
        reason: String,
    },
    /// Failure-list lines that match no case, with `--strict-failure-list`.
    #[error(
        "{}: {} matching no case of the suite (--strict-failure-list)",
        path.display(),
        match lines.as_slice() {
            [l] => format!("line {l} is an entry"),
            _ => format!("lines {} are entries", lines.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")),
        }
    )]
    StaleFailureList {
        /// The file.
        path: PathBuf,
        /// The lines, from 1.
        lines: Vec<usize>,
    },
    /// A `--trace` folder that holds files but no earlier trace.
    #[error(
        "{}: not empty and not an earlier trace (it has no index.json): give a new or empty folder",
        path.display()
    )]
    NotATrace {
        /// The folder.
        path: PathBuf,
    },
    /// A file `inspect` can give no verdict on.
    #[error("{}: no verdict: {why}", path.display())]
    NoVerdict {
        /// The file.
        path: PathBuf,
        /// Why.
        why: &'static str,
    },
    /// `bless --case` selecting no case that declares a golden.
    #[error("nothing to bless: {what}")]
    NothingToBless {
        /// What the selection held.
        what: String,
    },
}

/// Why a matrix file cannot be compared.
#[derive(Debug, thiserror::Error)]
pub enum MatrixFileError {
    /// Not JSON.
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    /// A schema other than 1.
    #[error("schema {found} is not the matrix schema this runner reads (1)")]
    Schema {
        /// The file's `schema`.
        found: serde_json::Value,
    },
    /// No `jobs` array.
    #[error("no jobs")]
    NoJobs,
    /// A job without a `cases` object.
    #[error("job {job} has no cases object")]
    NoCases {
        /// The job's index.
        job: usize,
    },
    /// No job with a hashed output (`onav matrix --threads 0` writes such a file).
    #[error("no job holds a hashed output")]
    NoHashes,
    /// A case without a length.
    #[error("{case}: no length")]
    NoLength {
        /// The case key.
        case: String,
    },
    /// A case without a SHA-256 of 64 lowercase hex digits.
    #[error("{case}: no sha256 of 64 lowercase hex digits")]
    NoSha256 {
        /// The case key.
        case: String,
    },
}

impl From<LoadError> for HarnessError {
    fn from(e: LoadError) -> Self {
        Self::Load(Box::new(e))
    }
}

impl HarnessError {
    /// An I/O error of a path.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Self::Io {
            path: path.into(),
            source,
        }
    }
}
