//! `onav diff A B` (`spec/conformance.md` §4.7): the first structural difference between two
//! files.

use std::path::Path;

use super::inspect::read;
use super::Outcome;
use crate::error::HarnessError;
use crate::files::diff::{diff, Difference};

/// `onav diff`: prints the first difference; [`Outcome::Differ`] unless the files are identical.
pub fn run(a: &Path, b: &Path) -> Result<Outcome, HarnessError> {
    let d = diff(&read(a)?, &read(b)?);
    out!("{d}");
    Ok(if d == Difference::Identical {
        Outcome::Pass
    } else {
        Outcome::Differ
    })
}
