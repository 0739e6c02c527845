//! `onav run --trace DIR` (`spec/conformance.md` §4.8): a folder per case that did not pass
//! (every case that ran, with `--trace-all`), `DIR/<case id>/`, holding
//!
//! - `transcript.jsonl`, JSON lines:
//!   1. a header: `{"onav_trace": 2, "case", "file", "title", "class", "spec", "features",
//!      "target", "threads"}`;
//!   2. one line per request in the order sent: `{"step", "line", "key", "request", "reply",
//!      "files"}`, with `"failure": {"crash": MESSAGE}` or `{"timeout": true}` in place of
//!      `reply` when the testee gave none, and `"reference"` and `"difference"` on the first
//!      reply that differs from the reference's (`--compare-reference`). Requests and replies are
//!      the protocol's JSON objects, bytes in base64, exactly as on the wire: a transcript replays
//!      against a testee;
//!   3. the result: `{"result": {…}}`, the case's object of the JSON report;
//! - `files/`: every byte string of those requests and replies as a file of its own (what
//!   `inspect`, `diff` and a drawing take), named by the transcript line, the side and the key:
//!   `0007-request-tile.bin`, `0012-reply-bytes.bin`, `0009-request-library-1.bin`,
//!   `0015-reference-bytes.bin`; the line's `files` object maps `request.tile`,
//!   `reply.bytes`, `request.library[1]`, `reference.bytes` to those names.
//!
//! And `DIR/index.json`: `{"onav_trace": 2, "target", "cases": [{"case", "status", "expected",
//! "dir"}]}`, the cases traced, in run order. A folder that already holds files must be an
//! earlier trace (it has `index.json`); the case folders that index lists are removed first, so
//! a trace never mixes two runs.
//!
//! `step` and `line` are those of the scenario step the request serves (`null` for the drops
//! after the last step). Keys are in sorted order, as everywhere the runner writes JSON.

use std::path::{Path, PathBuf};

use base64::Engine as _;
use serde_json::{json, Map, Value};

use super::locate::step_lines;
use super::CaseResult;
use crate::error::HarnessError;
use crate::exec::Status;
use crate::report::case_json;
use crate::scenario::Case;

/// The version of the trace layout and transcript format.
pub const TRACE_FORMAT: u32 = 2;

/// The transcript of a case below its folder.
pub const TRANSCRIPT: &str = "transcript.jsonl";

/// The folder of byte strings below a case's folder.
pub const FILES: &str = "files";

/// The index of a trace folder.
pub const INDEX: &str = "index.json";

/// Which cases get a folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    /// Cases that ran and did not pass (failed, expected failures, errors, crashes, timeouts).
    NotPassed,
    /// Every case that ran.
    All,
}

/// True when case result `r` gets a folder: it ran (was neither skipped nor left out), and did
/// not pass unless `which` is [`Which::All`].
pub fn traced(r: &CaseResult, which: Which) -> bool {
    !r.skipped() && !r.not_run && (which == Which::All || r.status != Status::Pass)
}

/// The folder of case `id` below `dir`.
pub fn case_dir(dir: &Path, id: &str) -> PathBuf {
    id.split('/')
        .fold(dir.to_path_buf(), |p, part| p.join(part))
}

/// The byte strings of a request or reply object: (key as in `files`, file stem, base64 text).
fn byte_strings<'v>(side: &str, v: &'v Value) -> Vec<(String, String, &'v str)> {
    let mut out = Vec::new();
    let Some(o) = v.as_object() else { return out };
    // Requests carry `tile` or `bytes` and `library`; replies `bytes` (snapshots, mesh files,
    // tiles written back). `params` is 68 bytes of a new mesh, kept in the transcript alone.
    for key in ["tile", "bytes"] {
        if let Some(s) = o.get(key).and_then(Value::as_str) {
            out.push((format!("{side}.{key}"), format!("{side}-{key}"), s));
        }
    }
    if let Some(lib) = o.get("library").and_then(Value::as_array) {
        for (i, s) in lib.iter().enumerate() {
            if let Some(s) = s.as_str() {
                out.push((
                    format!("{side}.library[{i}]"),
                    format!("{side}-library-{i}"),
                    s,
                ));
            }
        }
    }
    out
}

/// One case's transcript and its files (name below `files/`, bytes).
pub fn transcript(case: &Case, r: &CaseResult, target: &str) -> (String, Vec<(String, Vec<u8>)>) {
    let lines = step_lines(case);
    let mut out = String::new();
    let mut files = Vec::new();
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
    for (k, e) in r.exchanges.iter().enumerate() {
        // The header is line 1.
        let at = k + 2;
        let mut e = e.clone();
        let line = e["step"].as_u64().and_then(|s| {
            lines
                .as_ref()?
                .get(usize::try_from(s).ok()?.checked_sub(1)?)
                .copied()
        });
        e["line"] = json!(line);
        let mut named = Map::new();
        for side in ["request", "reply", "reference"] {
            for (key, stem, text) in byte_strings(side, &e[side]) {
                // Bytes that are not base64 (a testee's malformed reply) stay in the line alone.
                let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(text) else {
                    continue;
                };
                let name = format!("{at:04}-{stem}.bin");
                named.insert(key, json!(format!("{FILES}/{name}")));
                files.push((name, bytes));
            }
        }
        e["files"] = Value::Object(named);
        out.push_str(&e.to_string());
        out.push('\n');
    }
    out.push_str(&json!({ "result": case_json(r) }).to_string());
    out.push('\n');
    (out, files)
}

/// Makes `dir` ready for a trace: created when missing; when it holds files it must be an
/// earlier trace, whose case folders are removed.
pub fn prepare(dir: &Path) -> Result<(), HarnessError> {
    let io = |p: &Path, e| HarnessError::io(p, e);
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    let mut entries = std::fs::read_dir(dir).map_err(|e| io(dir, e))?;
    if entries.next().is_none() {
        return Ok(());
    }
    let index = dir.join(INDEX);
    let old: Value = std::fs::read_to_string(&index)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .ok_or_else(|| HarnessError::NotATrace {
            path: dir.to_path_buf(),
        })?;
    for c in old["cases"].as_array().into_iter().flatten() {
        // Only folders this layout names: a case id of plain parts below `dir`.
        let Some(id) = c["case"].as_str() else {
            continue;
        };
        if id
            .split('/')
            .any(|p| p.is_empty() || p == "." || p == ".." || p.contains('\\'))
        {
            continue;
        }
        let d = case_dir(dir, id);
        if d.is_dir() {
            std::fs::remove_dir_all(&d).map_err(|e| io(&d, e))?;
        }
        // Area folders left empty go too.
        let mut p = d.parent();
        while let Some(a) = p.filter(|a| *a != dir) {
            if std::fs::remove_dir(a).is_err() {
                break;
            }
            p = a.parent();
        }
    }
    std::fs::remove_file(&index).map_err(|e| io(&index, e))
}

/// Writes the folder of case `c` (result `r`) below `dir`; returns the folder.
pub fn write_case(
    dir: &Path,
    c: &Case,
    r: &CaseResult,
    target: &str,
) -> Result<PathBuf, HarnessError> {
    let io = |p: &Path, e| HarnessError::io(p, e);
    let d = case_dir(dir, &c.id);
    let (text, files) = transcript(c, r, target);
    std::fs::create_dir_all(&d).map_err(|e| io(&d, e))?;
    let t = d.join(TRANSCRIPT);
    std::fs::write(&t, text).map_err(|e| io(&t, e))?;
    if !files.is_empty() {
        let f = d.join(FILES);
        std::fs::create_dir_all(&f).map_err(|e| io(&f, e))?;
        for (name, bytes) in &files {
            let p = f.join(name);
            std::fs::write(&p, bytes).map_err(|e| io(&p, e))?;
        }
    }
    for (name, svg) in pictures(&files, r.run.pictures.as_ref()) {
        let p = d.join(name);
        std::fs::write(&p, svg).map_err(|e| io(&p, e))?;
    }
    Ok(d)
}

/// The pictures of a case folder (`onav draw`, spec/conformance.md §4.8): `difference.svg`, the
/// first reply that differs from the reference's drawn beside it with the difference marked;
/// for a failing state or `links` expectation, `expected.svg` and `got.svg`, the state the
/// expectation names and the testee's, each with the links it reports and those only one side
/// has highlighted ([`crate::draw::case_pictures`]); otherwise `got.svg`, the testee's last
/// reply that is a tile, mesh file or snapshot. Referenced snapshots find their tiles among the
/// tiles and libraries the case's requests carried.
fn pictures(
    files: &[(String, Vec<u8>)],
    failed: Option<&(crate::draw::CaseState, crate::draw::CaseState)>,
) -> Vec<(&'static str, String)> {
    use crate::draw::{diff_picture, draw, Input, Queries, View};
    use crate::files::decode::FileKind;
    let mut library = onav::TileLibrary::new();
    for (name, bytes) in files {
        if name.contains("-request-") {
            // Bytes that are no tile, mesh file or snapshot add nothing; that is not an error here.
            let _ = crate::files::inspect::add_to_library(&mut library, bytes);
        }
    }
    let input = |name: &str, bytes: &[u8]| Input {
        name: name.to_owned(),
        bytes: bytes.to_vec(),
    };
    let mut out = Vec::new();
    let reference = files.iter().find(|(n, _)| n.contains("-reference-"));
    if let Some((name, expected)) = reference {
        let twin = name.replacen("-reference-", "-reply-", 1);
        if let Some((_, got)) = files.iter().find(|(n, _)| *n == twin) {
            let a = input(&format!("expected (reference) {name}"), expected);
            let b = input(&format!("got (testee) {twin}"), got);
            out.push(("difference.svg", diff_picture(&a, &b, &library)));
        }
    }
    if let Some((expected, got)) = failed {
        let (e, g) = crate::draw::case_pictures(expected, got);
        out.push(("expected.svg", e));
        out.push(("got.svg", g));
        return out;
    }
    let last = files
        .iter()
        .rev()
        .find(|(n, b)| n.contains("-reply-") && FileKind::of(b) != FileKind::Unknown);
    if let Some((name, bytes)) = last {
        let svg = draw(
            &[input(name, bytes)],
            &library,
            &View::default(),
            &Queries::default(),
        );
        out.push(("got.svg", svg));
    }
    out
}

/// Writes the folder of every case `which` selects, and the index; returns how many.
pub fn write(
    dir: &Path,
    cases: &[Case],
    results: &[CaseResult],
    target: &str,
    which: Which,
) -> Result<usize, HarnessError> {
    let mut index = Vec::new();
    for (c, r) in cases.iter().zip(results) {
        if !traced(r, which) {
            continue;
        }
        write_case(dir, c, r, target)?;
        index.push(json!({
            "case": c.id, "status": r.status.name(), "expected": r.expected, "dir": c.id,
        }));
    }
    let n = index.len();
    let text = json!({"onav_trace": TRACE_FORMAT, "target": target, "cases": index});
    let p = dir.join(INDEX);
    std::fs::write(&p, format!("{text}\n")).map_err(|e| HarnessError::io(&p, e))?;
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_strings_are_named_by_side_and_key() {
        let req = json!({"op": "restore", "bytes": "AAE=", "library": ["AQ==", "Ag=="]});
        let got: Vec<(String, String)> = byte_strings("request", &req)
            .into_iter()
            .map(|(k, s, _)| (k, s))
            .collect();
        assert_eq!(
            got,
            [
                ("request.bytes".into(), "request-bytes".into()),
                ("request.library[0]".into(), "request-library-0".into()),
                ("request.library[1]".into(), "request-library-1".into()),
            ]
        );
        assert!(byte_strings("reply", &json!({"result": "ok", "mesh": 1})).is_empty());
        assert!(byte_strings("reply", &Value::Null).is_empty());
    }

    #[test]
    fn case_folders_follow_the_id() {
        assert_eq!(
            case_dir(Path::new("t"), "snapshot/n_magic"),
            Path::new("t").join("snapshot").join("n_magic")
        );
    }

    #[test]
    fn a_folder_that_is_not_a_trace_is_refused_and_an_old_trace_is_cleared() {
        let dir = std::env::temp_dir().join(format!("onav-trace-prepare-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        prepare(&dir).unwrap();
        std::fs::write(dir.join("mine.txt"), "keep").unwrap();
        assert!(matches!(prepare(&dir), Err(HarnessError::NotATrace { .. })));
        std::fs::remove_file(dir.join("mine.txt")).unwrap();
        // An earlier trace: its case folders go, other files stay.
        std::fs::create_dir_all(dir.join("a/b")).unwrap();
        std::fs::write(dir.join("a/b").join(TRANSCRIPT), "x").unwrap();
        std::fs::write(dir.join("notes.txt"), "keep").unwrap();
        std::fs::write(
            dir.join(INDEX),
            json!({"cases": [{"case": "a/b"}, {"case": "../x"}]}).to_string(),
        )
        .unwrap();
        prepare(&dir).unwrap();
        assert!(!dir.join("a").exists() && !dir.join(INDEX).exists());
        assert!(dir.join("notes.txt").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
