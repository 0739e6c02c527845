//! `onav`: the conformance and determinism harness (see `spec/conformance.md`). Argument
//! parsing only; the commands live in `onav_harness::commands`.

use std::path::PathBuf;

use clap::{Parser, Subcommand};
use onav_harness::commands::{self, RunOptions};
use onav_harness::report::Format;

#[derive(Debug, Parser)]
#[command(
    name = "onav",
    version,
    about = "Conformance and determinism harness for onav"
)]
struct Cli {
    /// Repository root (default: the current directory if it has scenarios/, else the workspace).
    #[arg(long, global = true)]
    root: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
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
    /// Write goldens that changed (never in CI).
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
}

fn main() {
    let cli = Cli::parse();
    let root = onav_harness::suite::find_root(cli.root.as_deref());
    let code = match cli.command {
        Command::Run {
            paths,
            threads,
            filter,
            format,
            failure_list,
            testee,
        } => commands::run(
            &root,
            &RunOptions {
                paths,
                threads,
                filter,
                format: Some(format),
                failure_list,
                testee,
            },
        ),
        Command::Bless { case } => commands::bless(&root, case.as_deref()),
        Command::Matrix { threads, out } => {
            commands::matrix(&root, threads.as_deref(), out.as_deref())
        }
        Command::MatrixCompare { files, golden } => {
            commands::matrix_compare(&files, golden.as_deref())
        }
        Command::Compile { out } => commands::compile(&root, &out),
    };
    std::process::exit(code);
}
