//! `onav`: the conformance and determinism harness (see `spec/conformance.md`). Argument
//! parsing only; the commands live in the library.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use onav_harness::commands::{self, RunOptions};
use onav_harness::files::{diff, inspect};
use onav_harness::report::Format;
use onav_harness::testee::mutants::{Mutant, MutantKind};
use onav_harness::testee::reference::Reference;
use onav_harness::testee::server as testee_server;

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
    /// Name the first structural difference between two files (exit 1 when they differ).
    Diff {
        /// First file.
        a: PathBuf,
        /// Second file.
        b: PathBuf,
    },
}

fn read(p: &PathBuf) -> Result<Vec<u8>, String> {
    std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))
}

fn code(c: i32) -> ExitCode {
    ExitCode::from(u8::try_from(c).unwrap_or(2))
}

fn run(cli: Cli) -> Result<ExitCode, String> {
    let root = onav_harness::suite::find_root(cli.root.as_deref());
    match cli.cmd {
        Cmd::Run {
            paths,
            threads,
            filter,
            format,
            failure_list,
            testee,
        } => Ok(code(commands::run(
            &root,
            &RunOptions {
                paths,
                threads,
                filter,
                format: Some(format),
                failure_list,
                testee,
            },
        ))),
        Cmd::Bless { case } => Ok(code(commands::bless(&root, case.as_deref()))),
        Cmd::Matrix { threads, out } => Ok(code(commands::matrix(
            &root,
            threads.as_deref(),
            out.as_deref(),
        ))),
        Cmd::MatrixCompare { files, golden } => {
            Ok(code(commands::matrix_compare(&files, golden.as_deref())))
        }
        Cmd::Compile { out } => Ok(code(commands::compile(&root, &out))),
        Cmd::SpecIndex { check } => Ok(code(commands::spec_index(&root, check))),
        Cmd::Testee { mutant } => {
            let (stdin, stdout) = (std::io::stdin().lock(), std::io::stdout().lock());
            match mutant {
                None => testee_server::serve(Reference::new(), stdin, stdout),
                Some(k) => testee_server::serve(Mutant::new(Reference::new(), k), stdin, stdout),
            }
            .map_err(|e| format!("testee: {e}"))?;
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Inspect { file, library } => {
            let mut lib = onav::TileLibrary::new();
            for p in &library {
                inspect::add_to_library(&mut lib, &read(p)?)
                    .map_err(|e| format!("{}: {e}", p.display()))?;
            }
            print!("{}", inspect::inspect(&read(&file)?, &lib));
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Diff { a, b } => {
            let out = diff::diff(&read(&a)?, &read(&b)?);
            print!("{out}");
            Ok(if out == "identical\n" {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
    }
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("onav: {e}");
            ExitCode::from(2)
        }
    }
}
