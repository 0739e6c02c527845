//! `onav`: the conformance and determinism harness (see `spec/conformance.md`). Argument
//! parsing and exit statuses only; the commands live in the library.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use onav_harness::commands::{self, build::BuildOptions, run::RunOptions, Outcome};
use onav_harness::{Format, HarnessError, MutantKind};

#[derive(Parser)]
#[command(
    name = "onav",
    version,
    about = "onav conformance and determinism harness"
)]
struct Cli {
    /// Repository root (default: the current directory if it has scenarios/, else the workspace).
    #[arg(long, global = true)]
    root: Option<PathBuf>,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run scenarios and check goldens (by default every scenario, in process, at 1, 2 and the
    /// machine's thread counts).
    Run {
        /// Scenario files or folders (default: scenarios/).
        paths: Vec<PathBuf>,
        /// Thread counts, comma separated.
        #[arg(long, value_delimiter = ',')]
        threads: Option<Vec<usize>>,
        /// Only case ids matching this glob (`*`, `?`).
        #[arg(long)]
        filter: Option<String>,
        /// Report format.
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
        /// Expected failures: lines of case-glob<TAB>status.
        #[arg(long)]
        failure_list: Option<PathBuf>,
        /// Run against a testee subprocess instead of the in-process reference.
        #[arg(long)]
        testee: Option<String>,
    },
    /// Write goldens that changed, after an independent check (never in CI).
    Bless {
        /// Only cases matching this glob.
        #[arg(long)]
        case: Option<String>,
    },
    /// Hash every golden output under each thread count in one process.
    Matrix {
        /// Thread counts, comma separated (default 1,2,4).
        #[arg(long, value_delimiter = ',')]
        threads: Option<Vec<usize>>,
        /// Write the JSON here.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Compare matrix JSON files (and the goldens) and name the axis that splits them.
    MatrixCompare {
        /// Matrix JSON files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The golden manifest to compare against.
        #[arg(long)]
        golden: Option<PathBuf>,
    },
    /// Write the suite as JSON plus .bin files, for ports without YAML.
    Compile {
        /// Output folder.
        #[arg(long)]
        out: PathBuf,
    },
    /// Fill the `Scenarios:` line of every rule of spec/*.md from the scenarios' anchors.
    SpecIndex {
        /// Only check that the lines are current (exit 1 if not).
        #[arg(long)]
        check: bool,
    },
    /// Answer the testee protocol on stdin/stdout (spec/conformance.md §6).
    Testee {
        /// Serve a deliberately broken backend (harness self-tests).
        #[arg(long, hide = true)]
        mutant: Option<MutantKind>,
    },
    /// Print an annotated decode of a tile, mesh file or snapshot, and onav's verdict on it.
    Inspect {
        /// The file.
        file: PathBuf,
        /// Tile files (or mesh files, or Full snapshots) whose tiles a Referenced snapshot names.
        #[arg(long, num_args = 1..)]
        library: Vec<PathBuf>,
    },
    /// Build a mesh file from OBJ geometry with the voxel builder (spec/build3d.md).
    Build {
        /// The OBJ file.
        input: PathBuf,
        /// Settings YAML: the fields of spec/build3d.md §3.1 (default: the demo settings).
        #[arg(long)]
        settings: Option<PathBuf>,
        /// The mesh file (ONMS) to write.
        #[arg(long)]
        out: PathBuf,
        /// Worker threads (default: the machine's).
        #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
        threads: Option<u16>,
    },
    /// Name the first structural difference between two files (exit 1 when they differ).
    Diff {
        /// First file.
        a: PathBuf,
        /// Second file.
        b: PathBuf,
    },
}

/// The exit status of a command: 0 pass, 1 fail or differ, 2 an error that kept it from running
/// (as for bad arguments, which clap answers with 2 itself).
fn exit(r: Result<Outcome, HarnessError>) -> ExitCode {
    match r {
        Ok(Outcome::Pass) => ExitCode::SUCCESS,
        Ok(Outcome::Fail | Outcome::Differ) => ExitCode::from(1),
        Err(e) => {
            eprintln!("onav: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<Outcome, HarnessError> {
    let root = onav_harness::find_root(cli.root.as_deref());
    match cli.cmd {
        Cmd::Run {
            paths,
            threads,
            filter,
            format,
            failure_list,
            testee,
        } => commands::run::run(
            &root,
            &RunOptions {
                paths,
                threads,
                filter,
                format,
                failure_list,
                testee,
            },
        ),
        Cmd::Bless { case } => {
            commands::bless::run(&root, case.as_deref(), std::env::var_os("CI").is_some())
        }
        Cmd::Matrix { threads, out } => {
            commands::matrix::run(&root, threads.as_deref(), out.as_deref())
        }
        Cmd::MatrixCompare { files, golden } => {
            commands::matrix_compare::run(&files, golden.as_deref())
        }
        Cmd::Compile { out } => commands::compile::run(&root, &out),
        Cmd::SpecIndex { check } => commands::spec_index::run(&root, check),
        Cmd::Testee { mutant } => commands::testee::run(mutant),
        Cmd::Inspect { file, library } => commands::inspect::run(&file, &library),
        Cmd::Build {
            input,
            settings,
            out,
            threads,
        } => commands::build::run(&BuildOptions {
            input,
            settings,
            out,
            threads: threads.map(usize::from),
        }),
        Cmd::Diff { a, b } => commands::diff::run(&a, &b),
    }
}

fn main() -> ExitCode {
    exit(run(Cli::parse()))
}
