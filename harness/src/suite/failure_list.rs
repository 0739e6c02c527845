//! Failure lists (`spec/conformance.md` §4.4): `case-glob<TAB>status` lines naming the cases a
//! target is known to fail, and how they turn those failures into expected ones.

use super::CaseResult;
use crate::exec::Status;

/// One line of a failure list: a case glob and the status it is expected to end with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expected {
    /// Glob over case ids.
    pub glob: String,
    /// Expected status (not `pass`).
    pub status: Status,
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

/// Parses a failure list: `case-glob<TAB>status` lines; `#` comments and blank lines ignored.
pub fn parse_failure_list(text: &str) -> Result<Vec<Expected>, FailureListError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim_end();
        if line.trim().is_empty() {
            continue;
        }
        let Some((glob, status)) = line.split_once('\t') else {
            return Err(FailureListError::Fields { line: i + 1 });
        };
        let status = Status::from_name(status.trim())
            .filter(|s| *s != Status::Pass)
            .ok_or_else(|| FailureListError::Status {
                line: i + 1,
                status: status.to_owned(),
            })?;
        out.push(Expected {
            glob: glob.trim().to_owned(),
            status,
        });
    }
    Ok(out)
}

/// Applies a failure list: a listed case ending with its listed status is expected; a listed
/// case that passes, or ends otherwise, fails the run.
pub fn apply_failure_list(results: &mut [CaseResult], list: &[Expected]) {
    for r in results {
        let Some(e) = list.iter().find(|e| crate::glob::matches(&e.glob, &r.id)) else {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::CaseRun;

    #[test]
    fn failure_lists_parse_and_apply() {
        let list =
            parse_failure_list("# ports\nsnapshot/*\tunsupported\ntile/n_x\tfail\n").unwrap();
        assert_eq!(list.len(), 2);
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
        let mk = |id: &str, status| CaseResult {
            id: id.into(),
            area: String::new(),
            status,
            message: String::new(),
            threads: vec![],
            run: CaseRun::default(),
            expected: false,
        };
        let mut rs = vec![
            mk("snapshot/a", Status::Unsupported),
            mk("tile/n_x", Status::Pass),
            mk("tile/n_y", Status::Fail),
            mk("snapshot/b", Status::Fail),
        ];
        apply_failure_list(&mut rs, &list);
        assert!(rs[0].expected);
        assert_eq!(rs[1].status, Status::Fail);
        assert!(!rs[1].expected);
        assert_eq!(
            rs[1].message,
            "passed, but the failure list expects fail (tile/n_x): remove it from the list"
        );
        assert!(!rs[2].expected, "a case the list does not name");
        assert!(rs[2].message.is_empty());
        assert!(!rs[3].expected);
        assert_eq!(rs[3].status, Status::Fail);
        assert_eq!(
            rs[3].message,
            "the failure list expects unsupported, got fail: "
        );
    }
}
