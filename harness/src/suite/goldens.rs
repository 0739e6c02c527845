//! The goldens of a run (`spec/conformance.md` §3): every golden a passing case produced
//! against the store, and, for a full suite, the store's orphans.

use std::collections::BTreeSet;
use std::path::Path;

use super::{declared_goldens, CaseResult, Location};
use crate::exec::Status;
use crate::golden::{self, GoldenProblem, Manifest, ManifestError, Store};
use crate::scenario::{Case, Step};

/// Checks the goldens every case produced against the store. A passing case with a golden that
/// differs fails; a case that failed later than a golden that differs keeps its status, but its
/// report names the golden first (§4.2: the bytes that differ are the likelier cause), then its
/// own failure. Returns the orphans (checked only for a full suite).
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
        if r.skipped() || r.not_run {
            continue;
        }
        let problems: Vec<(&str, GoldenProblem)> = r
            .run
            .goldens
            .iter()
            .filter_map(|(label, bytes)| {
                golden::check_output(&store, &manifest, &format!("{}/{label}", c.id), bytes)
                    .map(|p| (label.as_str(), p))
            })
            .collect();
        if let Some((label, p)) = problems.first() {
            let golden = if problems.len() > 1 {
                format!("{p} (and {} more)", problems.len() - 1)
            } else {
                p.to_string()
            };
            r.message = if r.status == Status::Pass {
                r.status = Status::Fail;
                golden
            } else {
                format!("{golden}; then {}", r.message)
            };
            r.golden = true;
            if let Some(step) = golden_step(&c.scenario.steps, label) {
                r.at = Location::at(c, step);
            }
        } else if r.status == Status::Pass && r.run.goldens.len() != declared.len() {
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

/// The step (from 1) whose output golden `label` is: the step before its `expect`, or the
/// `continue` holding it.
fn golden_step(steps: &[Step], label: &str) -> Option<usize> {
    let has = |s: &Step| matches!(s, Step::Expect(e) if e.golden.as_deref() == Some(label));
    steps.iter().enumerate().find_map(|(i, s)| match s {
        Step::Expect(_) if has(s) => Some(i),
        Step::Continue(c) if c.ops.iter().any(has) => Some(i + 1),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use crate::scenario::{Class, Step};

    /// Steps whose output (bytes, a query's answer bytes, or a build's tiles) a golden can hold.
    fn has_output(s: &Step) -> bool {
        matches!(
            s,
            Step::Build(_)
                | Step::Snapshot(_)
                | Step::WriteMesh(_)
                | Step::ParseTile(_)
                | Step::FindNearestPoly(_)
                | Step::FindPath(_)
                | Step::FindStraightPath(_)
                | Step::Raycast(_)
                | Step::CorridorCost(_)
                | Step::CacheSnapshot(_)
        )
    }

    /// The outputs of `steps` (and of the ops of each `continue`) without a golden after them.
    fn without_golden(steps: &[Step], at: &str, out: &mut Vec<String>) {
        for (i, s) in steps.iter().enumerate() {
            if let Step::Continue(c) = s {
                without_golden(&c.ops, &format!("{at} {} op", i + 1), out);
            }
            let next = match steps.get(i + 1) {
                Some(Step::Expect(e)) => Some(e),
                _ => None,
            };
            let golden = next.is_some_and(|e| e.golden.is_some());
            // A build that gave no tile (`tiles: []`) has no tile to hash: its goldens are its tiles.
            let no_tile = matches!(s, Step::Build(_))
                && next.is_some_and(|e| e.tiles.as_ref().is_some_and(|t| t.is_empty()));
            if has_output(s) && !golden && !no_tile {
                out.push(format!("{at} {} ({})", i + 1, s.key()));
            }
        }
    }

    /// Issue 12's "goldens for every output": every snapshot, mesh file, tile written back and
    /// query answer of an accept case of these areas, and every build's tiles, is a golden
    /// (spec/conformance.md §3), and every `ONTK` snapshot of the tile cache's.
    #[test]
    fn every_output_of_an_accept_case_is_a_golden() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let s = crate::suite::load(&root, &[], None);
        let mut missing = Vec::new();
        let mut seen = 0;
        for c in &s.cases {
            let area = c.id.split('/').next().unwrap_or("");
            if c.scenario.class != Class::Accept
                || ![
                    "navmesh",
                    "snapshot",
                    "meshfile",
                    "tile",
                    "query",
                    "build3d",
                    "tilecache",
                ]
                .contains(&area)
            {
                continue;
            }
            seen += 1;
            without_golden(&c.scenario.steps, &format!("{} step", c.id), &mut missing);
        }
        assert!(seen > 80, "only {seen} accept cases found");
        assert!(
            missing.is_empty(),
            "outputs without a golden:\n{}",
            missing.join("\n")
        );
    }
}
