//! The goldens of a run (`spec/conformance.md` §3): every golden a passing case produced
//! against the store, and, for a full suite, the store's orphans.

use std::collections::BTreeSet;
use std::path::Path;

use super::{declared_goldens, CaseResult};
use crate::exec::Status;
use crate::golden::{self, GoldenProblem, Manifest, ManifestError, Store};
use crate::scenario::Case;

/// Checks the goldens of passing cases against the store; failing cases keep their failure.
/// Returns the orphans (checked only for a full suite).
pub fn check_goldens(
    root: &Path,
    cases: &[Case],
    results: &mut [CaseResult],
    full: bool,
) -> Result<Vec<GoldenProblem>, ManifestError> {
    let store = Store::at(root);
    let manifest = Manifest::read(&store.manifest_path())?;
    for (c, r) in cases.iter().zip(results.iter_mut()) {
        let declared = declared_goldens(c);
        if r.status != Status::Pass {
            continue;
        }
        let problems: Vec<GoldenProblem> = r
            .run
            .goldens
            .iter()
            .filter_map(|(label, bytes)| {
                golden::check_output(&store, &manifest, &format!("{}/{label}", c.id), bytes)
            })
            .collect();
        if let Some(p) = problems.first() {
            r.status = Status::Fail;
            r.message = if problems.len() > 1 {
                format!("{p} (and {} more)", problems.len() - 1)
            } else {
                p.to_string()
            };
        } else if r.run.goldens.len() != declared.len() {
            r.status = Status::Fail;
            r.message = "not every declared golden was produced".into();
        }
    }
    if !full {
        return Ok(Vec::new());
    }
    let declared: BTreeSet<String> = cases.iter().flat_map(declared_goldens).collect();
    Ok(golden::orphans(&store, &manifest, &declared))
}
