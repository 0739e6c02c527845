//! `onav inspect FILE [--library FILE…]` (`spec/conformance.md` §4.7): the annotated decode of a
//! tile, mesh file or snapshot and onav's verdict on it.

use std::path::{Path, PathBuf};

use super::Outcome;
use crate::error::HarnessError;
use crate::files::inspect;

/// Reads a file.
pub(super) fn read(p: &Path) -> Result<Vec<u8>, HarnessError> {
    std::fs::read(p).map_err(|e| HarnessError::io(p, e))
}

/// `onav inspect`: prints the decode of `file`, validated against the tiles of `library`.
pub fn run(file: &Path, library: &[PathBuf]) -> Result<Outcome, HarnessError> {
    let mut lib = onav::TileLibrary::new();
    for p in library {
        inspect::add_to_library(&mut lib, &read(p)?).map_err(|source| HarnessError::Library {
            path: p.clone(),
            source: Box::new(source),
        })?;
    }
    print!("{}", inspect::inspect(&read(file)?, &lib));
    Ok(Outcome::Pass)
}
