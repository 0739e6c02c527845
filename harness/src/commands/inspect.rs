//! `onav inspect FILE [--library FILE…] [--json]` (`spec/conformance.md` §4.7): the annotated
//! decode of a tile, mesh file or snapshot and onav's verdict on it, which is the exit status.

use std::path::{Path, PathBuf};

use super::Outcome;
use crate::error::HarnessError;
use crate::files::inspect::{self, Conclusion};

/// Reads a file.
pub(super) fn read(p: &Path) -> Result<Vec<u8>, HarnessError> {
    std::fs::read(p).map_err(|e| HarnessError::io(p, e))
}

/// `onav inspect`: prints the decode of `file` (as JSON with `json`), validated against the tiles
/// of `library`. Valid: [`Outcome::Pass`]; rejected: [`Outcome::Fail`]; no verdict (not an onav
/// file, or a Referenced snapshot naming a tile the library lacks): an error, after the decode.
pub fn run(file: &Path, library: &[PathBuf], json: bool) -> Result<Outcome, HarnessError> {
    let mut lib = onav::TileLibrary::new();
    for p in library {
        inspect::add_to_library(&mut lib, &read(p)?).map_err(|source| HarnessError::Library {
            path: p.clone(),
            source: Box::new(source),
        })?;
    }
    let bytes = read(file)?;
    let i = inspect::examine(&bytes, &lib);
    if json {
        outln!("{}", i.json());
    } else {
        out!("{}", i.text());
    }
    let why = match i.conclusion() {
        Conclusion::Valid => return Ok(Outcome::Pass),
        Conclusion::Rejected => return Ok(Outcome::Fail),
        Conclusion::Incomplete => {
            "a Referenced snapshot naming a tile the library lacks (give its tiles with --library)"
        }
        Conclusion::NotOnav => "not a tile, mesh file or snapshot",
    };
    Err(HarnessError::NoVerdict {
        path: file.to_path_buf(),
        why,
    })
}
