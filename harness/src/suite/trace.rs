//! `onav run --trace DIR` (`spec/conformance.md` §4.8): one transcript per case,
//! `DIR/<case id>.jsonl`, JSON lines:
//!
//! 1. a header: `{"onav_trace": 1, "case", "file", "title", "class", "spec", "features",
//!    "target", "threads"}`;
//! 2. one line per request in the order sent: `{"step", "line", "key", "request", "reply"}`,
//!    with `"failure": {"crash": MESSAGE}` or `{"timeout": true}` in place of `reply` when the
//!    testee gave none, and `"reference"` and `"difference"` on the first reply that differs from
//!    the reference's (`--compare-reference`). Requests and replies are the protocol's JSON
//!    objects, bytes in base64, as on the wire: a transcript replays against a testee, and a
//!    drawing tool finds the tiles, meshes and query answers of a case in it;
//! 3. the result: `{"result": {…}}`, the case's object of the JSON report.
//!
//! `step` and `line` are those of the scenario step the request serves (`null` for the drops
//! after the last step). Keys are in sorted order, as everywhere the runner writes JSON.

use std::path::Path;

use serde_json::json;

use super::locate::step_lines;
use super::CaseResult;
use crate::error::HarnessError;
use crate::report::case_json;
use crate::scenario::Case;

/// The version of the transcript format.
pub const TRACE_FORMAT: u32 = 1;

/// The transcript of one case, as JSON lines.
pub fn transcript(case: &Case, r: &CaseResult, target: &str) -> String {
    let lines = step_lines(case);
    let mut out = String::new();
    let header = json!({
        "onav_trace": TRACE_FORMAT,
        "case": case.id,
        "file": r.at.file,
        "title": case.scenario.title,
        "class": case.scenario.class,
        "spec": case.scenario.spec,
        "features": case.scenario.features,
        "target": target,
        "threads": r.threads.first(),
    });
    out.push_str(&header.to_string());
    out.push('\n');
    for e in &r.exchanges {
        let mut e = e.clone();
        let line = e["step"].as_u64().and_then(|s| {
            lines
                .as_ref()?
                .get(usize::try_from(s).ok()?.checked_sub(1)?)
                .copied()
        });
        e["line"] = json!(line);
        out.push_str(&e.to_string());
        out.push('\n');
    }
    out.push_str(&json!({ "result": case_json(r) }).to_string());
    out.push('\n');
    out
}

/// Writes the transcript of every case to `dir/<case id>.jsonl`; returns how many.
pub fn write(
    dir: &Path,
    cases: &[Case],
    results: &[CaseResult],
    target: &str,
) -> Result<usize, HarnessError> {
    let mut n = 0;
    for (c, r) in cases.iter().zip(results) {
        let path = dir.join(format!("{}.jsonl", c.id));
        if let Some(d) = path.parent() {
            std::fs::create_dir_all(d).map_err(|e| HarnessError::io(d, e))?;
        }
        std::fs::write(&path, transcript(c, r, target)).map_err(|e| HarnessError::io(&path, e))?;
        n += 1;
    }
    Ok(n)
}
