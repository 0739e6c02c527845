//! `onav`: the conformance and determinism harness (see `spec/conformance.md`). Argument
//! parsing and exit statuses only; the commands live in the library.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use onav_harness::commands::{
    self, args, build::BuildOptions, run::RunOptions, testee::TesteeOptions, Outcome,
};
use onav_harness::{HarnessError, MutantKind};

#[derive(Parser)]
#[command(
    name = "onav",
    version,
    about = "onav conformance and determinism harness",
    after_help = "Output paths: every file or folder a command writes (--out, --svg, --trace, \
                  --write-failure-list, --update-failure-list, bless) is created with its missing \
                  parent folders. A path where a file would replace an existing folder (or a \
                  folder a file), or that runs through an existing file, is refused with exit 2 \
                  before any work."
)]
struct Cli {
    /// Repository root: the folder holding scenarios/ (and golden/, spec/); scenario paths lie
    /// below ROOT/scenarios. Default: the current directory if it has scenarios/, else the
    /// workspace this binary was built from (a path fixed at build time: a copied binary still
    /// reads that tree).
    #[arg(long, global = true, value_name = "ROOT")]
    root: Option<PathBuf>,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run scenarios and check goldens (by default every scenario, in process, at 1, 2 and the
    /// machine's thread counts).
    Run(RunOptions),
    /// Write goldens that changed, after an independent check (never in CI).
    Bless {
        /// Only cases matching this glob.
        #[arg(long)]
        case: Option<String>,
    },
    /// Hash every golden output under each thread count in one process.
    Matrix {
        /// Thread counts, comma separated (each 1 to 1024; default 1,2,4).
        #[arg(long, value_delimiter = ',', value_parser = args::thread_count)]
        threads: Option<Vec<usize>>,
        /// Write the JSON here (missing folders are created).
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
        /// Output folder (created with its missing parents).
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
        /// Serve a deliberately broken backend (harness self-tests, spec/conformance.md §6.10).
        #[arg(long, hide = true)]
        mutant: Option<MutantKind>,
        /// Announce only these features, comma separated (harness self-tests).
        #[arg(long, hide = true, value_delimiter = ',')]
        only_features: Option<Vec<String>>,
        /// Announce and answer only these ops besides hello and bye (harness self-tests).
        #[arg(long, hide = true, value_delimiter = ',')]
        only_ops: Option<Vec<String>>,
    },
    /// Print an annotated decode of a tile, mesh file or snapshot, and onav's verdict on it
    /// (exit 0 valid, 1 rejected, 2 no verdict: not an onav file, a tile missing from the
    /// library, a file that cannot be read).
    Inspect {
        /// The file.
        file: PathBuf,
        /// Tile files (or mesh files, or Full snapshots) whose tiles a Referenced snapshot names.
        #[arg(long, num_args = 1..)]
        library: Vec<PathBuf>,
        /// The same as one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Build a mesh file from OBJ geometry with the voxel builder (spec/build3d.md).
    Build {
        /// The OBJ file.
        input: PathBuf,
        /// Settings YAML: the fields of spec/build3d.md §3.1 (default: the demo settings).
        #[arg(long)]
        settings: Option<PathBuf>,
        /// The mesh file (ONMS) to write (missing folders are created).
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
        /// Also draw both files with the difference marked, as SVG, here (missing folders are
        /// created).
        #[arg(long)]
        svg: Option<PathBuf>,
    },
    /// Draw tiles, mesh files or snapshots as an SVG top view, with query overlays.
    Draw(commands::draw::DrawArgs),
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
        Cmd::Run(options) => commands::run::run(&root, &options),
        Cmd::Bless { case } => {
            // CI= and CI=false are how people say "not CI".
            let ci = std::env::var("CI").is_ok_and(|v| !matches!(v.as_str(), "" | "false" | "0"));
            commands::bless::run(&root, case.as_deref(), ci)
        }
        Cmd::Matrix { threads, out } => {
            commands::matrix::run(&root, threads.as_deref(), out.as_deref())
        }
        Cmd::MatrixCompare { files, golden } => {
            commands::matrix_compare::run(&files, golden.as_deref())
        }
        Cmd::Compile { out } => commands::compile::run(&root, &out),
        Cmd::SpecIndex { check } => commands::spec_index::run(&root, check),
        Cmd::Testee {
            mutant,
            only_features,
            only_ops,
        } => commands::testee::run(TesteeOptions {
            mutant,
            only_features,
            only_ops,
        }),
        Cmd::Inspect {
            file,
            library,
            json,
        } => commands::inspect::run(&file, &library, json),
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
        Cmd::Diff { a, b, svg } => commands::draw::diff_svg(&a, &b, svg.as_deref())
            .and_then(|()| commands::diff::run(&a, &b)),
        Cmd::Draw(args) => commands::draw::run(&args),
    }
}

fn main() -> ExitCode {
    exit(run(Cli::parse()))
}
