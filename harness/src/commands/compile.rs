//! `onav compile --out DIR` (`spec/conformance.md` §4.6): the whole suite as JSON with `.bin`
//! files, for ports that do not read YAML or generate worlds. Every case is lowered from a
//! reference run.

use std::path::Path;

use serde_json::json;

use super::{write_file, Outcome, REFERENCE_FAILURES};
use crate::error::HarnessError;
use crate::exec::{self, Status};
use crate::suite::{self, CaseResult};
use crate::testee::reference::Reference;

/// What a compile writes in its folder.
const COMPILED: [&str; 3] = ["suite.json", "bytes", "golden"];

/// The entries of an earlier compile in `out`, to be replaced. `out` must be missing, empty, or
/// hold a compiled suite and nothing else (§4.6): a folder holding anything else is refused, so
/// a typo never mixes the suite with other files, and a recompile leaves no stale case behind.
fn previous_compile(out: &Path) -> Result<Vec<std::path::PathBuf>, HarnessError> {
    if !out.exists() {
        return Ok(Vec::new());
    }
    if !out.is_dir() {
        return Err(HarnessError::io(
            out,
            std::io::Error::new(std::io::ErrorKind::NotADirectory, "not a folder"),
        ));
    }
    let mut entries = Vec::new();
    for e in std::fs::read_dir(out).map_err(|e| HarnessError::io(out, e))? {
        entries.push(e.map_err(|e| HarnessError::io(out, e))?.path());
    }
    entries.sort();
    let foreign: Vec<String> = entries
        .iter()
        .filter_map(|p| p.file_name()?.to_str())
        .filter(|n| !COMPILED.contains(n))
        .map(str::to_owned)
        .collect();
    if !foreign.is_empty() || (!entries.is_empty() && !out.join("suite.json").is_file()) {
        let what = if foreign.is_empty() {
            "no suite.json".to_owned()
        } else {
            foreign.join(", ")
        };
        return Err(HarnessError::io(
            out,
            std::io::Error::other(format!(
                "neither empty nor a compiled suite (it holds {what}); give a new or empty folder"
            )),
        ));
    }
    Ok(entries)
}

/// `onav compile --out DIR`.
pub fn run(root: &Path, out: &Path) -> Result<Outcome, HarnessError> {
    super::check_root(root)?;
    super::check_output(out, super::OutputKind::Folder)?;
    let previous = previous_compile(out)?;
    let suite = suite::load(root, &[], None);
    for e in &suite.load_errors {
        eprintln!("LOAD {e}");
    }
    if !suite.load_errors.is_empty() {
        return Ok(Outcome::Fail);
    }
    // Every step is lowered, even past a failed expectation; a case the reference is known to
    // fail (scenarios/reference-failures.tsv) is compiled all the same, for ports to pass.
    let known = std::fs::read_to_string(root.join(REFERENCE_FAILURES))
        .ok()
        .and_then(|t| suite::parse_failure_list(&t).ok())
        .unwrap_or_default();
    let mut results: Vec<CaseResult> = suite
        .cases
        .iter()
        .map(|c| {
            let opts = exec::Options {
                keep_going: true,
                ..exec::Options::in_dir(&c.dir)
            };
            let run = exec::run(&c.id, &c.scenario, &mut Reference::new(), &opts);
            CaseResult::new(c, run, &[1])
        })
        .collect();
    suite::apply_failure_list(&mut results, &known);
    // A previous compile is replaced whole, so no file of a case that is gone stays behind.
    for p in previous {
        let gone = if p.is_dir() {
            std::fs::remove_dir_all(&p)
        } else {
            std::fs::remove_file(&p)
        };
        gone.map_err(|e| HarnessError::io(&p, e))?;
    }
    let mut cases = Vec::new();
    let mut bad = 0;
    for (c, r) in suite.cases.iter().zip(&results) {
        if r.status != Status::Pass && !r.expected {
            eprintln!("not compiled: {} does not pass: {}", c.id, r.message);
            bad += 1;
            continue;
        }
        for (name, bytes) in &r.run.blobs {
            write_file(
                &out.join("bytes").join(&c.id).join(format!("{name}.bin")),
                bytes,
            )?;
        }
        for (label, bytes) in &r.run.goldens {
            let key = format!("{}/{label}", c.id);
            write_file(&out.join("golden").join(format!("{key}.bin")), bytes)?;
        }
        cases.push(json!({
            "id": c.id,
            "title": c.scenario.title,
            "notes": c.scenario.notes,
            "class": c.scenario.class,
            "spec": c.scenario.spec,
            "features": c.scenario.features,
            "steps": r.run.lowered,
        }));
    }
    let doc = json!({
        "schema": crate::scenario::SCHEMA_VERSION,
        "protocol": crate::protocol::PROTOCOL_VERSION,
        "cases": cases,
    });
    let text = serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n";
    write_file(&out.join("suite.json"), text.as_bytes())?;
    outln!(
        "compiled {} cases into {} ({} not compiled)",
        cases.len(),
        out.display(),
        bad
    );
    Ok(Outcome::pass_if(bad == 0))
}
