//! The suite: scenario discovery and filtering, running every case under several rayon thread
//! counts (in process) or once against a testee, merging the runs of a case, checking goldens,
//! and failure lists.

use std::collections::BTreeSet;
use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

use crate::exec::{hello, run_scenario, CaseRun, Status};
use crate::golden::{self, GoldenProblem, Manifest, ManifestError, Store};
use crate::protocol::Backend;
use crate::scenario::{self, Case, LoadError, LoadReason, Step};
use crate::testee::reference::Reference;

/// The repository root: `--root`, else the current directory if it has `scenarios/`, else the
/// workspace this binary was built from.
pub fn find_root(explicit: Option<&Path>) -> PathBuf {
    if let Some(p) = explicit {
        return p.to_path_buf();
    }
    if Path::new("scenarios").is_dir() {
        return PathBuf::from(".");
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The loaded suite.
#[derive(Debug)]
pub struct Suite {
    /// Repository root.
    pub root: PathBuf,
    /// The cases selected, by id.
    pub cases: Vec<Case>,
    /// Files that did not load.
    pub load_errors: Vec<LoadError>,
    /// True when every scenario is selected (orphaned goldens are checked only then).
    pub full: bool,
}

/// Loads the scenarios under `paths` (files or folders; default `scenarios/`), keeping the ids
/// that match `filter`.
pub fn load(root: &Path, paths: &[PathBuf], filter: Option<&str>) -> Suite {
    let sroot = root.join("scenarios");
    let mut cases = Vec::new();
    let mut load_errors = Vec::new();
    let targets: Vec<PathBuf> = if paths.is_empty() {
        vec![sroot.clone()]
    } else {
        paths.to_vec()
    };
    for t in &targets {
        let files = if t.is_dir() {
            match scenario::find_files(t) {
                Ok(f) => f,
                Err(e) => {
                    load_errors.push(LoadError::new(t.display().to_string(), e));
                    continue;
                }
            }
        } else {
            vec![t.clone()]
        };
        for f in files {
            // Ids are relative to scenarios/; accept paths given relative to the cwd.
            let abs_root = std::fs::canonicalize(&sroot).unwrap_or(sroot.clone());
            let abs = std::fs::canonicalize(&f).unwrap_or(f.clone());
            match scenario::load_file(&abs_root, &abs) {
                Ok(c) => cases.push(c),
                Err(mut e) => {
                    e.path = f.display().to_string();
                    load_errors.push(e);
                }
            }
        }
    }
    cases.sort_by(|a, b| a.id.cmp(&b.id));
    cases.dedup_by(|a, b| a.id == b.id);
    // Anchors must name a rule or section of the repository's spec, when it is there.
    let spec = root.join("spec");
    if spec.is_dir() {
        let mut texts = std::collections::BTreeMap::new();
        cases.retain(|c| {
            let bad = c.scenario.spec.iter().find(|a| {
                let (file, id) = a.split_once('#').unwrap_or((a, ""));
                let text = texts
                    .entry(file.to_owned())
                    .or_insert_with(|| std::fs::read_to_string(spec.join(file)).ok());
                !text.as_deref().is_some_and(|t| scenario::anchor_in(t, id))
            });
            match bad {
                Some(a) => {
                    load_errors.push(LoadError::new(
                        format!("scenarios/{}.yaml", c.id),
                        LoadReason::UnknownAnchor { anchor: a.clone() },
                    ));
                    false
                }
                None => true,
            }
        });
    }
    if let Some(g) = filter {
        cases.retain(|c| crate::glob::matches(g, &c.id));
    }
    Suite {
        root: root.to_path_buf(),
        cases,
        load_errors,
        full: paths.is_empty() && filter.is_none(),
    }
}

/// Why the cases could not run at all.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The in-process reference did not answer `hello`.
    #[error("{message}")]
    Hello {
        /// How the handshake ended.
        status: Status,
        /// What it said.
        message: String,
    },
    /// A thread pool of this many threads could not be built.
    #[error("a pool of {threads} threads: {source}")]
    ThreadPool {
        /// Thread count.
        threads: usize,
        /// Why.
        source: rayon::ThreadPoolBuildError,
    },
}

/// Which implementation answers.
pub enum Target<'a> {
    /// The in-process reference, run under each thread count.
    Reference,
    /// An external testee (thread counts do not apply).
    Testee(&'a mut dyn Backend),
}

/// The merged result of one case.
#[derive(Debug, Clone)]
pub struct CaseResult {
    /// Case id.
    pub id: String,
    /// Area (folder).
    pub area: String,
    /// Final status after merging runs and checking goldens.
    pub status: Status,
    /// Why it did not pass.
    pub message: String,
    /// Thread counts it ran under (empty for a testee).
    pub threads: Vec<usize>,
    /// The first run (outputs, lowered steps, blobs).
    pub run: CaseRun,
    /// True when the failure list expected this status.
    pub expected: bool,
}

/// The golden labels a scenario declares, as manifest keys.
pub fn declared_goldens(c: &Case) -> Vec<String> {
    fn walk(steps: &[Step], id: &str, out: &mut Vec<String>) {
        for s in steps {
            match s {
                Step::Expect(e) => {
                    if let Some(g) = &e.golden {
                        out.push(format!("{id}/{g}"));
                    }
                }
                Step::Continue(c) => walk(&c.ops, id, out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(&c.scenario.steps, &c.id, &mut out);
    out
}

fn run_guarded(c: &Case, backend: &mut dyn Backend) -> CaseRun {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        run_scenario(&c.id, &c.scenario, backend, &c.dir)
    })) {
        Ok(r) => r,
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_default();
            CaseRun {
                stop: Some((Status::Crash, format!("panicked: {msg}"))),
                ..CaseRun::default()
            }
        }
    }
}

fn missing_feature(c: &Case, backend: &dyn Backend) -> Option<String> {
    c.scenario
        .features
        .iter()
        .find(|f| !backend.has_feature(f))
        .cloned()
}

struct Progress {
    on: bool,
    done: AtomicUsize,
    total: usize,
}

impl Progress {
    fn new(total: usize, on: bool) -> Self {
        Self {
            on: on && std::io::stderr().is_terminal(),
            done: AtomicUsize::new(0),
            total,
        }
    }
    fn tick(&self) {
        if self.on {
            let n = self.done.fetch_add(1, Ordering::Relaxed) + 1;
            eprint!("\r{n}/{} ", self.total);
        }
    }
    fn finish(&self) {
        if self.on {
            eprint!("\r{:width$}\r", "", width = 24);
        }
    }
}

/// Runs the cases; each case's runs are merged (a difference between thread counts fails it).
pub fn run_cases(
    cases: &[Case],
    threads: &[usize],
    target: Target<'_>,
    progress: bool,
) -> Result<Vec<CaseResult>, RunError> {
    match target {
        Target::Reference => {
            hello(&mut Reference::new())
                .map_err(|(status, message)| RunError::Hello { status, message })?;
            let p = Progress::new(cases.len() * threads.len(), progress);
            let mut per_thread: Vec<Vec<CaseRun>> = Vec::new();
            for &t in threads {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(t)
                    .build()
                    .map_err(|source| RunError::ThreadPool { threads: t, source })?;
                let runs: Vec<CaseRun> = pool.install(|| {
                    cases
                        .par_iter()
                        .map(|c| {
                            let mut backend = Reference::new();
                            let r = match missing_feature(c, &backend) {
                                Some(f) => CaseRun {
                                    stop: Some((Status::Unsupported, format!("needs feature {f}"))),
                                    ..CaseRun::default()
                                },
                                None => run_guarded(c, &mut backend),
                            };
                            p.tick();
                            r
                        })
                        .collect()
                });
                per_thread.push(runs);
            }
            p.finish();
            Ok(cases
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let runs: Vec<&CaseRun> = per_thread.iter().map(|v| &v[i]).collect();
                    merge(c, threads, &runs)
                })
                .collect())
        }
        Target::Testee(backend) => {
            // The client did the hello handshake when it started the testee; its answers
            // (ops and features) come back through `supports` and `has_feature`.
            let p = Progress::new(cases.len(), progress);
            let out = cases
                .iter()
                .map(|c| {
                    let r = match missing_feature(c, backend) {
                        Some(f) => CaseRun {
                            stop: Some((Status::Unsupported, format!("needs feature {f}"))),
                            ..CaseRun::default()
                        },
                        None => run_guarded(c, backend),
                    };
                    p.tick();
                    merge(c, &[], &[&r])
                })
                .collect();
            p.finish();
            Ok(out)
        }
    }
}

fn merge(c: &Case, threads: &[usize], runs: &[&CaseRun]) -> CaseResult {
    let first = runs[0];
    let mut status = first.status();
    let mut message = first.message().to_owned();
    for (k, r) in runs.iter().enumerate().skip(1) {
        let same = r.status() == first.status()
            && r.message() == first.message()
            && r.trace == first.trace
            && r.goldens == first.goldens;
        if !same {
            status = Status::Fail;
            let what = if r.goldens != first.goldens {
                "golden outputs"
            } else if r.trace != first.trace {
                "replies"
            } else {
                "outcomes"
            };
            message = format!(
                "{what} differ between {} and {} threads ({:?} vs {:?})",
                threads[0],
                threads[k],
                first.message(),
                r.message()
            );
            break;
        }
    }
    CaseResult {
        id: c.id.clone(),
        area: c.area.clone(),
        status,
        message,
        threads: threads.to_vec(),
        run: first.clone(),
        expected: false,
    }
}

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

/// The thread counts of a run: the list given, else 1, 2 and the machine's, without repeats.
pub fn thread_counts(given: Option<&[usize]>) -> Vec<usize> {
    let mut v: Vec<usize> = match given {
        Some(g) => g.to_vec(),
        None => {
            let n = std::thread::available_parallelism().map_or(1, |n| n.get());
            vec![1, 2, n]
        }
    };
    let mut seen = BTreeSet::new();
    v.retain(|t| *t > 0 && seen.insert(*t));
    v
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(!rs[2].expected);
        assert!(!rs[3].expected);
    }

    #[test]
    fn thread_counts_dedupe() {
        assert_eq!(thread_counts(Some(&[1, 2, 2, 0, 4])), vec![1, 2, 4]);
        let d = thread_counts(None);
        assert_eq!(d[0], 1);
    }
}
