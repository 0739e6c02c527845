//! `onav run` (`spec/conformance.md` §4.1): the selected scenarios against the in-process
//! reference at several thread counts, or against a testee, then the goldens and the failure
//! list, and a report.

use std::path::{Path, PathBuf};

use super::{Outcome, REFERENCE_FAILURES};
use crate::error::HarnessError;
use crate::report::{self, Format, Summary};
use crate::suite::{self, Target};
use crate::testee::client::testee_backend;

/// Options of `onav run`.
#[derive(Debug)]
pub struct RunOptions {
    /// Scenario files or folders (default: all of `scenarios/`).
    pub paths: Vec<PathBuf>,
    /// Thread counts (default 1, 2 and the machine's).
    pub threads: Option<Vec<usize>>,
    /// Glob over case ids.
    pub filter: Option<String>,
    /// Report format.
    pub format: Format,
    /// Failure list file.
    pub failure_list: Option<PathBuf>,
    /// Testee command, instead of the in-process reference.
    pub testee: Option<String>,
}

/// The failure list of a run: the one given, else the reference's own for runs against it.
fn failure_list(root: &Path, o: &RunOptions) -> Result<Vec<suite::Expected>, HarnessError> {
    let default_list = root.join(REFERENCE_FAILURES);
    let path = o
        .failure_list
        .clone()
        .or_else(|| (o.testee.is_none() && default_list.is_file()).then_some(default_list));
    let Some(path) = path else {
        return Ok(Vec::new());
    };
    let text = std::fs::read_to_string(&path).map_err(|e| HarnessError::io(&path, e))?;
    suite::parse_failure_list(&text).map_err(|source| HarnessError::FailureList { path, source })
}

/// `onav run`.
pub fn run(root: &Path, o: &RunOptions) -> Result<Outcome, HarnessError> {
    let suite = suite::load(root, &o.paths, o.filter.as_deref());
    let list = failure_list(root, o)?;
    let threads = suite::thread_counts(o.threads.as_deref());
    let mut testee_box;
    let (target, name) = match &o.testee {
        Some(cmd) => {
            testee_box = testee_backend(cmd).map_err(|source| HarnessError::Testee {
                command: cmd.clone(),
                source,
            })?;
            (Target::Testee(testee_box.as_mut()), format!("testee {cmd}"))
        }
        None => (Target::Reference, "onav-reference (in process)".to_owned()),
    };
    let mut results = suite::run_cases(&suite.cases, &threads, target, true)?;
    // A testee is checked against the same goldens, by hash, through the manifest; orphans are a
    // property of the store, checked against the reference only.
    let full = o.testee.is_none() && suite.full;
    let golden_problems = match suite::check_goldens(&suite.root, &suite.cases, &mut results, full)
    {
        Ok(g) => g.iter().map(ToString::to_string).collect(),
        Err(e) => vec![e.to_string()],
    };
    suite::apply_failure_list(&mut results, &list);
    let s = Summary {
        results: &results,
        load_errors: &suite.load_errors,
        golden_problems: &golden_problems,
        target: name,
    };
    print!("{}", report::render(&s, o.format));
    Ok(Outcome::pass_if(s.failed() == 0))
}
