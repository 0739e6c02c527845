//! Failure lists (`spec/conformance.md` §4.4): `case-glob<TAB>status` lines naming the cases a
//! target is known to fail, how they turn those failures into expected ones, which of their
//! lines match no case, and how the runner writes and updates them.

use std::path::Path;

use super::CaseResult;
use crate::error::HarnessError;
use crate::exec::Status;
use crate::glob;

/// One line of a failure list: a case glob and the status it is expected to end with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expected {
    /// Glob over case ids.
    pub glob: String,
    /// Expected status (not `pass`).
    pub status: Status,
    /// The line, from 1.
    pub line: usize,
}

/// A failure list line that is not `case-glob<TAB>status`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FailureListError {
    /// No tab.
    #[error("line {line}: expected case-glob<TAB>status")]
    Fields {
        /// The line, from 1.
        line: usize,
    },
    /// A status that is not one a case can end with, or `pass`.
    #[error(
        "line {line}: status {status:?} is not one of fail, unsupported, error, crash, timeout"
    )]
    Status {
        /// The line, from 1.
        line: usize,
        /// The status as written.
        status: String,
    },
}

/// Parses line `n` (from 1) of a failure list: `None` for a comment or a blank line.
fn parse_line(n: usize, line: &str) -> Result<Option<Expected>, FailureListError> {
    let line = line.split('#').next().unwrap_or("").trim_end();
    if line.trim().is_empty() {
        return Ok(None);
    }
    let Some((glob, status)) = line.split_once('\t') else {
        return Err(FailureListError::Fields { line: n });
    };
    let status = Status::from_name(status.trim())
        .filter(|s| *s != Status::Pass)
        .ok_or_else(|| FailureListError::Status {
            line: n,
            status: status.to_owned(),
        })?;
    Ok(Some(Expected {
        glob: glob.trim().to_owned(),
        status,
        line: n,
    }))
}

/// Parses a failure list: `case-glob<TAB>status` lines; `#` comments and blank lines ignored.
pub fn parse_failure_list(text: &str) -> Result<Vec<Expected>, FailureListError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        out.extend(parse_line(i + 1, line)?);
    }
    Ok(out)
}

/// Reads and parses a failure list file.
pub fn read(path: &Path) -> Result<Vec<Expected>, HarnessError> {
    let text = std::fs::read_to_string(path).map_err(|e| HarnessError::io(path, e))?;
    parse_failure_list(&text).map_err(|source| HarnessError::FailureList {
        path: path.to_path_buf(),
        source,
    })
}

/// The lines whose glob matches none of `ids` (every case of the suite): stale entries.
pub fn stale<'a>(list: &'a [Expected], ids: &[String]) -> Vec<&'a Expected> {
    list.iter()
        .filter(|e| !ids.iter().any(|id| glob::matches(&e.glob, id)))
        .collect()
}

/// Applies a failure list: a listed case ending with its listed status is expected; a listed
/// case that passes, or ends otherwise, fails the run. The first line matching a case governs
/// it. Skipped cases stay skipped whatever the list says, and a case not run is never expected.
pub fn apply_failure_list(results: &mut [CaseResult], list: &[Expected]) {
    for r in results {
        if r.skipped() || r.not_run {
            continue;
        }
        let Some(e) = list.iter().find(|e| glob::matches(&e.glob, &r.id)) else {
            continue;
        };
        if r.status == e.status {
            r.expected = true;
        } else if r.status == Status::Pass {
            r.status = Status::Fail;
            r.message = format!(
                "passed, but the failure list expects {} ({}): remove it from the list",
                e.status.name(),
                e.glob
            );
        } else {
            r.message = format!(
                "the failure list expects {}, got {}: {}",
                e.status.name(),
                r.status.name(),
                r.message
            );
        }
    }
}

/// True for the cases a failure list names: they ran and did not pass.
fn listable(r: &CaseResult) -> bool {
    r.status != Status::Pass && !r.skipped() && !r.not_run
}

/// A list line naming one case exactly, with its message as a comment.
fn line_of(r: &CaseResult) -> String {
    let mut why: String = r.message.replace(['\n', '\r', '\t'], " ");
    if let Some((i, _)) = why.char_indices().nth(160) {
        why.truncate(i);
        why.push('…');
    }
    format!("{}\t{}\t# {why}\n", r.id, r.status.name())
}

const HEADER: &str = "# onav failure list (spec/conformance.md §4.4): case-glob<TAB>status lines, \
# comments.\n# A listed case that passes fails the run: remove its line then.\n";

/// A failure list of every case of `results` that ran and did not pass, each with its status
/// and, as a comment, its message (`--write-failure-list`).
pub fn render(results: &[CaseResult]) -> String {
    let mut out = String::from(HEADER);
    for r in results.iter().filter(|r| listable(r)) {
        out.push_str(&line_of(r));
    }
    out
}

/// What [`update`] changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Change {
    /// Entries kept.
    pub kept: usize,
    /// Entries removed, each with why.
    pub removed: Vec<String>,
    /// Cases added.
    pub added: Vec<String>,
}

impl std::fmt::Display for Change {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "kept {} entries", self.kept)?;
        if !self.removed.is_empty() {
            write!(
                f,
                ", removed {} ({})",
                self.removed.len(),
                self.removed.join("; ")
            )?;
        }
        write!(f, ", added {}", self.added.len())?;
        if !self.added.is_empty() {
            write!(f, " ({})", self.added.join(", "))?;
        }
        Ok(())
    }
}

/// The failure list `text` brought up to the outcome of `results` (`--update-failure-list`):
/// comments, blank lines and every entry still true are kept as written; an entry is removed
/// when it matches no case of the suite (`ids`), or when a case it governs ran and did not end
/// with its status (passed, or failed otherwise); every case that ran, did not pass and is not
/// governed by a kept entry of its status is added, one line each. An entry governing only cases
/// this run did not select is kept. Lines that do not parse are kept too (the run read the list
/// before, so there are none).
pub fn update(text: &str, results: &[CaseResult], ids: &[String]) -> (String, Change) {
    let entries: Vec<(usize, &str, Option<Expected>)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i, l, parse_line(i + 1, l).ok().flatten()))
        .collect();
    let list: Vec<Expected> = entries.iter().filter_map(|e| e.2.clone()).collect();
    // The entry governing a case: the first that matches it.
    let governs = |r: &CaseResult| list.iter().position(|e| glob::matches(&e.glob, &r.id));
    let mut change = Change::default();
    let mut keep = vec![true; list.len()];
    for (k, e) in list.iter().enumerate() {
        if !ids.iter().any(|id| glob::matches(&e.glob, id)) {
            keep[k] = false;
            change.removed.push(format!("{}: matches no case", e.glob));
            continue;
        }
        let wrong = results
            .iter()
            .filter(|r| governs(r) == Some(k) && !r.skipped() && !r.not_run)
            .find(|r| r.status != e.status);
        if let Some(r) = wrong {
            keep[k] = false;
            let now = if r.status == Status::Pass {
                "passes now".to_owned()
            } else {
                format!("ends {} now", r.status.name())
            };
            change.removed.push(format!("{}: {} {now}", e.glob, r.id));
        }
    }
    let mut out = String::new();
    let mut k = 0;
    for (_, raw, e) in &entries {
        if e.is_some() {
            k += 1;
            if !keep[k - 1] {
                continue;
            }
            change.kept += 1;
        }
        out.push_str(raw);
        out.push('\n');
    }
    if text.trim().is_empty() {
        out = HEADER.to_owned();
    }
    let mut added = String::new();
    for r in results.iter().filter(|r| listable(r)) {
        let covered = governs(r).is_some_and(|k| keep[k] && list[k].status == r.status);
        if !covered {
            added.push_str(&line_of(r));
            change.added.push(r.id.clone());
        }
    }
    if !added.is_empty() {
        out.push_str("# added by onav run --update-failure-list\n");
        out.push_str(&added);
    }
    (out, change)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mk(id: &str, status: Status) -> CaseResult {
        CaseResult::for_test(id, status)
    }

    #[test]
    fn failure_lists_parse_and_apply() {
        let list = parse_failure_list(
            "# ports\nsnapshot/*\tunsupported\ntile/n_x\tfail\ttile/n_*\tcrash\n",
        );
        assert_eq!(
            list,
            Err(FailureListError::Status {
                line: 3,
                status: "fail\ttile/n_*\tcrash".into()
            })
        );
        let list = parse_failure_list(
            "# ports\nsnapshot/*\tunsupported\ntile/n_x\tfail\t# why\nsnapshot/b\tfail\n",
        )
        .unwrap();
        assert_eq!(list.len(), 3);
        assert_eq!((list[1].line, list[1].glob.as_str()), (3, "tile/n_x"));
        assert_eq!(
            parse_failure_list("a\tpass\n"),
            Err(FailureListError::Status {
                line: 1,
                status: "pass".into()
            })
        );
        assert_eq!(
            parse_failure_list("# c\na fail\n"),
            Err(FailureListError::Fields { line: 2 })
        );
        let mut rs = vec![
            mk("snapshot/a", Status::Unsupported),
            mk("tile/n_x", Status::Pass),
            mk("tile/n_y", Status::Fail),
            mk("snapshot/b", Status::Fail),
            mk("snapshot/c", Status::Crash),
        ];
        apply_failure_list(&mut rs, &list);
        assert!(
            rs[0].skipped() && !rs[0].expected,
            "a skipped case stays skipped"
        );
        assert_eq!(rs[1].status, Status::Fail);
        assert!(!rs[1].expected);
        assert_eq!(
            rs[1].message,
            "passed, but the failure list expects fail (tile/n_x): remove it from the list"
        );
        assert!(!rs[2].expected, "a case the list does not name");
        assert!(rs[2].message.is_empty());
        assert!(!rs[3].expected, "the first matching line governs");
        assert_eq!(rs[3].status, Status::Fail);
        assert_eq!(
            rs[3].message,
            "the failure list expects unsupported, got fail: "
        );
        assert!(!rs[4].expected);
    }

    #[test]
    fn stale_lines_match_no_case_of_the_suite() {
        let list = parse_failure_list("tile/*\tfail\nTILE/*\tfail\ntile/y_a.yaml\tfail\n").unwrap();
        let ids = vec!["tile/y_a".to_owned(), "navmesh/n_b".to_owned()];
        let s: Vec<usize> = stale(&list, &ids).iter().map(|e| e.line).collect();
        assert_eq!(s, [2, 3]);
    }

    #[test]
    fn written_lists_name_what_failed_and_read_back() {
        let mut a = mk("tile/n_a", Status::Fail);
        a.message = "step 4 (parse_tile):\naccepted # really".into();
        let mut nr = mk("tile/n_z", Status::Error);
        nr.not_run = true;
        let rs = vec![
            a,
            mk("tile/y_b", Status::Pass),
            mk("query/y_c", Status::Timeout),
            mk("query/y_d", Status::Unsupported),
            nr,
        ];
        let text = render(&rs);
        assert!(text.ends_with(
            "tile/n_a\tfail\t# step 4 (parse_tile): accepted # really\nquery/y_c\ttimeout\t# \n"
        ), "{text}");
        let list = parse_failure_list(&text).unwrap();
        assert_eq!(list.len(), 2);
        let mut again = rs.clone();
        apply_failure_list(&mut again, &list);
        assert!(again[0].expected && again[2].expected);
    }

    #[test]
    fn updates_keep_what_holds_drop_what_does_not_and_add_the_rest() {
        let old = "# my port\nquery/*\ttimeout\ntile/n_a\tfail\t# old note\ngone/*\tfail\nnavmesh/*\tcrash\n";
        let ids: Vec<String> = [
            "query/y_c",
            "query/y_e",
            "tile/n_a",
            "tile/n_f",
            "navmesh/y_g",
        ]
        .map(String::from)
        .to_vec();
        let rs = vec![
            mk("query/y_c", Status::Timeout),
            mk("query/y_e", Status::Timeout),
            mk("tile/n_a", Status::Pass),
            mk("tile/n_f", Status::Crash),
        ];
        let (text, change) = update(old, &rs, &ids);
        assert_eq!(
            text,
            "# my port\nquery/*\ttimeout\nnavmesh/*\tcrash\n# added by onav run --update-failure-list\ntile/n_f\tcrash\t# \n"
        );
        assert_eq!(change.kept, 2, "navmesh/* governs only a case not selected");
        assert_eq!(
            change.removed,
            ["tile/n_a: tile/n_a passes now", "gone/*: matches no case"]
        );
        assert_eq!(change.added, ["tile/n_f"]);
        assert_eq!(
            change.to_string(),
            "kept 2 entries, removed 2 (tile/n_a: tile/n_a passes now; gone/*: matches no case), added 1 (tile/n_f)"
        );
        // The updated list makes the same outcome expected.
        let mut again = rs.clone();
        apply_failure_list(&mut again, &parse_failure_list(&text).unwrap());
        assert!(again.iter().all(|r| r.status == Status::Pass || r.expected));
        // A glob that now covers a case with another status goes, and its failing cases come back one by one.
        let rs = vec![
            mk("query/y_c", Status::Timeout),
            mk("query/y_e", Status::Fail),
        ];
        let (text, change) = update("query/*\ttimeout\n", &rs, &ids);
        assert_eq!(change.removed, ["query/*: query/y_e ends fail now"]);
        assert!(
            text.ends_with("query/y_c\ttimeout\t# \nquery/y_e\tfail\t# \n"),
            "{text}"
        );
        // An empty or missing list becomes a new one.
        let (text, _) = update("", &rs, &ids);
        assert!(text.starts_with("# onav failure list"));
    }
}
