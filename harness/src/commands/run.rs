//! `onav run` (`spec/conformance.md` §4.1): the selected scenarios against the in-process
//! reference at several thread counts, or against a testee, then the goldens and the failure
//! list, and a report; on request also each case's transcript and a new or updated failure
//! list.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::{check_root, Outcome, REFERENCE_FAILURES};
use crate::error::HarnessError;
use crate::exec::Status;
use crate::limits::{DEFAULT_GIVE_UP_AFTER, DEFAULT_TIMEOUT};
use crate::report::{self, Format, Summary, TargetInfo};
use crate::suite::{self, failure_list, Settings, Target};
use crate::testee::client::TesteeBackend;

/// Options of `onav run`.
#[derive(Debug, Default, clap::Args)]
pub struct RunOptions {
    /// Scenario files or folders (default: scenarios/).
    pub paths: Vec<PathBuf>,
    /// Thread counts of the in-process run, comma separated (each 1 to 1024).
    #[arg(long, value_delimiter = ',', value_parser = super::args::thread_count, conflicts_with = "testee")]
    pub threads: Option<Vec<usize>>,
    /// Only case ids matching this glob (`*`, `?`).
    #[arg(long)]
    pub filter: Option<String>,
    /// Report format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: Format,
    /// Expected failures: lines of `case-glob<TAB>status`.
    #[arg(long)]
    pub failure_list: Option<PathBuf>,
    /// A failure-list line that matches no case of the suite is an error (exit 2), not a
    /// warning.
    #[arg(long)]
    pub strict_failure_list: bool,
    /// Write every case that ran and did not pass, with its status, as a failure list (missing
    /// folders are created).
    #[arg(long, value_name = "FILE")]
    pub write_failure_list: Option<PathBuf>,
    /// Apply this failure list, then rewrite it to this run's outcome (entries that no
    /// longer hold removed, new failures added; missing folders are created).
    #[arg(long, value_name = "FILE", conflicts_with = "failure_list")]
    pub update_failure_list: Option<PathBuf>,
    /// Run against a testee subprocess instead of the in-process reference.
    #[arg(long)]
    pub testee: Option<String>,
    /// Seconds the testee has for each reply (default 20).
    #[arg(long, value_name = "SECONDS", value_parser = super::args::seconds, requires = "testee")]
    pub timeout: Option<Duration>,
    /// After this many cases ended in a timeout, report the rest as not run (default 5; 0:
    /// never give up).
    #[arg(long, value_name = "N", value_parser = super::args::count, requires = "testee")]
    pub give_up_after: Option<u32>,
    /// Start no case after this many seconds; the rest are reported as not run.
    #[arg(long, value_name = "SECONDS", value_parser = super::args::seconds, requires = "testee")]
    pub run_timeout: Option<Duration>,
    /// Answer every request with the in-process reference too, and name the first reply of
    /// the testee that differs from the reference's.
    #[arg(long, requires = "testee")]
    pub compare_reference: bool,
    /// For each case that did not pass, write its requests and replies to
    /// `DIR/<case id>/transcript.jsonl` and their bytes to `DIR/<case id>/files/` (DIR is
    /// created with its missing parents).
    #[arg(long, value_name = "DIR")]
    pub trace: Option<PathBuf>,
    /// With --trace, write a folder for every case that ran, passing ones too.
    #[arg(long, requires = "trace")]
    pub trace_all: bool,
    /// A skipped case (a feature or op the testee lacks) fails the run.
    #[arg(long)]
    pub require_all: bool,
}

/// Paths given to `run` must exist, and be folders or `.yaml` files.
fn check_paths(paths: &[PathBuf]) -> Result<(), HarnessError> {
    for p in paths {
        if !p.exists() {
            return Err(HarnessError::NoSuchPath { path: p.clone() });
        }
        if p.is_file() && p.extension().is_none_or(|x| x != "yaml") {
            return Err(HarnessError::NotAScenario { path: p.clone() });
        }
    }
    Ok(())
}

/// The failure list of a run: the one given, else the reference's own for runs against it.
fn failure_list_path(root: &Path, o: &RunOptions) -> Option<PathBuf> {
    let default_list = root.join(REFERENCE_FAILURES);
    o.failure_list
        .clone()
        .or_else(|| o.update_failure_list.clone().filter(|p| p.exists()))
        .or_else(|| (o.testee.is_none() && default_list.is_file()).then_some(default_list))
}

/// Why no case was selected, for the error.
fn nothing_selected(o: &RunOptions) -> HarnessError {
    let what = match (&o.filter, o.paths.is_empty()) {
        (Some(f), _) => {
            let hint = if f.ends_with(".yaml") {
                "; case ids have no .yaml (tile/y_hex-tile)"
            } else if f.chars().any(|c| c.is_ascii_uppercase()) {
                "; case ids are lower case"
            } else {
                ""
            };
            format!("--filter {f:?}{hint}")
        }
        (None, false) => "no scenario file in the paths given".to_owned(),
        (None, true) => "no scenario file in scenarios/".to_owned(),
    };
    HarnessError::NothingSelected { what }
}

/// Starts the testee and says on standard error what its `hello` names that the runner does not
/// know (a misspelt feature would skip every case needing it).
fn start_testee(cmd: &str, o: &RunOptions) -> Result<TesteeBackend, HarnessError> {
    let timeout = o.timeout.unwrap_or(DEFAULT_TIMEOUT);
    let t = TesteeBackend::spawn(cmd, timeout).map_err(|source| HarnessError::Testee {
        command: cmd.to_owned(),
        source,
    })?;
    let h = t.hello();
    for f in h
        .features
        .iter()
        .filter(|f| !crate::scenario::features::is_feature(f))
    {
        let known: Vec<&str> = crate::scenario::FEATURES.iter().map(|f| f.0).collect();
        eprintln!(
            "warning: the testee lists feature {f:?}, which no scenario uses (known: {})",
            known.join(", ")
        );
    }
    for op in h
        .ops
        .iter()
        .filter(|op| !crate::protocol::OPS.contains(&op.as_str()))
    {
        eprintln!("warning: the testee lists op {op:?}, which the protocol does not have");
    }
    Ok(t)
}

/// `onav run`.
pub fn run(root: &Path, o: &RunOptions) -> Result<Outcome, HarnessError> {
    check_root(root)?;
    check_paths(&o.paths)?;
    for p in [&o.write_failure_list, &o.update_failure_list]
        .into_iter()
        .flatten()
    {
        super::check_output(p, super::OutputKind::File)?;
    }
    if let Some(d) = &o.trace {
        super::check_output(d, super::OutputKind::Folder)?;
        suite::trace::prepare(d)?;
    }
    let suite = suite::load(root, &o.paths, o.filter.as_deref());
    if suite.cases.is_empty() && suite.load_errors.is_empty() {
        return Err(nothing_selected(o));
    }
    let list_path = failure_list_path(root, o);
    let list = match &list_path {
        Some(p) => failure_list::read(p)?,
        None => Vec::new(),
    };
    if let Some(p) = &list_path {
        let ids = suite::all_ids(root);
        let stale = failure_list::stale(&list, &ids);
        for e in &stale {
            eprintln!(
                "warning: {} line {}: {} matches no case of the suite; remove it",
                p.display(),
                e.line,
                e.glob
            );
        }
        if o.strict_failure_list && !stale.is_empty() {
            return Err(HarnessError::StaleFailureList {
                path: p.clone(),
                lines: stale.iter().map(|e| e.line).collect(),
            });
        }
    }
    let started = Instant::now();
    let mut settings = Settings {
        threads: Vec::new(),
        progress: true,
        record: o.trace.is_some(),
        compare: o.compare_reference,
        give_up_after: o.give_up_after.unwrap_or(DEFAULT_GIVE_UP_AFTER),
        deadline: o.run_timeout.map(|t| started + t),
    };
    let mut testee;
    let (target, info) = match &o.testee {
        Some(cmd) => {
            testee = start_testee(cmd, o)?;
            testee.set_deadline(settings.deadline);
            let hello = testee.hello().clone();
            let info = TargetInfo {
                name: format!(
                    "{} (testee {cmd}, protocol {})",
                    hello.implementation, hello.protocol
                ),
                hello: Some(hello),
            };
            (Target::Testee(&mut testee), info)
        }
        None => {
            settings.threads = suite::thread_counts(o.threads.as_deref())?;
            let info = TargetInfo {
                name: "onav-reference (in process)".to_owned(),
                hello: None,
            };
            (Target::Reference, info)
        }
    };
    let mut results = suite::run_with(&suite.cases, target, &settings)?;
    // A testee is checked against the same goldens, by hash, through the manifest; orphans are a
    // property of the store, checked against the reference only.
    let full = o.testee.is_none() && suite.full;
    let golden_problems = match suite::check_goldens(&suite.root, &suite.cases, &mut results, full)
    {
        Ok(g) => g.iter().map(ToString::to_string).collect(),
        Err(e) => vec![e.to_string()],
    };
    // Lists are written from the outcomes themselves, before the list given turns a listed
    // pass into a failure.
    let outcomes = (o.write_failure_list.is_some() || o.update_failure_list.is_some())
        .then(|| results.clone());
    suite::apply_failure_list(&mut results, &list);
    if o.require_all {
        for r in results.iter_mut().filter(|r| r.skipped()) {
            r.status = Status::Fail;
            r.expected = false;
            r.message = format!("skipped, and --require-all: {}", r.message);
        }
    }
    let s = Summary {
        results: &results,
        load_errors: &suite.load_errors,
        golden_problems: &golden_problems,
        target: info,
    };
    out!("{}", report::render(&s, o.format));
    if let Some(d) = &o.trace {
        let which = if o.trace_all {
            suite::trace::Which::All
        } else {
            suite::trace::Which::NotPassed
        };
        let n = suite::trace::write(d, &suite.cases, &results, &s.target.name, which)?;
        eprintln!("trace: {n} case folders in {}", d.display());
    }
    let outcomes = outcomes.as_deref().unwrap_or(&results);
    if let Some(p) = &o.write_failure_list {
        let text = failure_list::render(outcomes);
        super::write_file(p, text.as_bytes())?;
        eprintln!("failure list: wrote {}", p.display());
    }
    if let Some(p) = &o.update_failure_list {
        let old = std::fs::read_to_string(p).unwrap_or_default();
        let ids = suite::all_ids(root);
        let (text, change) = failure_list::update(&old, outcomes, &ids);
        super::write_file(p, text.as_bytes())?;
        eprintln!("failure list: updated {}: {change}", p.display());
    }
    if s.ran() == 0 && suite.load_errors.is_empty() {
        return Err(HarnessError::NothingRan {
            reason: nothing_ran(&s),
        });
    }
    Ok(Outcome::pass_if(s.failed() == 0))
}

/// Why a run in which no case ran ran none.
fn nothing_ran(s: &Summary<'_>) -> String {
    let blocked = s.blocked();
    if blocked.is_empty() {
        return "every case was left out".into();
    }
    let top: Vec<String> = blocked
        .iter()
        .take(3)
        .map(|(what, n, _)| format!("{what} ({n} cases)"))
        .collect();
    format!(
        "all {} cases were skipped; the testee lacks {}",
        s.skipped(),
        top.join(", ")
    )
}
