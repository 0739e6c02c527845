//! `onav`: the conformance and determinism harness (see `spec/conformance.md`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use onav_harness::mini::MiniBackend;
use onav_harness::mutants::{Mutant, MutantKind};
use onav_harness::{diff, inspect, testee_server};

#[derive(Parser)]
#[command(
    name = "onav",
    version,
    about = "onav conformance and determinism harness"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Answer the testee protocol on stdin/stdout (spec/conformance.md).
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

fn run(cli: Cli) -> Result<ExitCode, String> {
    match cli.cmd {
        Cmd::Testee { mutant } => {
            let (stdin, stdout) = (std::io::stdin().lock(), std::io::stdout().lock());
            match mutant {
                None => testee_server::serve(MiniBackend::new(), stdin, stdout),
                Some(k) => testee_server::serve(Mutant::new(MiniBackend::new(), k), stdin, stdout),
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
