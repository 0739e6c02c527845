//! `onav testee [--mutant NAME]` (`spec/conformance.md` §6): answers the testee protocol on
//! stdin/stdout with the in-process reference, or one of its mutants.

use super::Outcome;
use crate::error::HarnessError;
use crate::testee::mutants::{Mutant, MutantKind};
use crate::testee::reference::Reference;
use crate::testee::server::serve;

/// `onav testee`: serves until `bye` or the end of the input.
pub fn run(mutant: Option<MutantKind>) -> Result<Outcome, HarnessError> {
    let (stdin, stdout) = (std::io::stdin().lock(), std::io::stdout().lock());
    match mutant {
        None => serve(Reference::new(), stdin, stdout),
        Some(k) => serve(Mutant::new(Reference::new(), k), stdin, stdout),
    }
    .map_err(HarnessError::Serve)?;
    Ok(Outcome::Pass)
}
