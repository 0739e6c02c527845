//! The suite (`spec/conformance.md` §4): scenario discovery and filtering ([`load`]), running
//! every case under several rayon thread counts in process or once against a testee, merging the
//! runs of a case ([`run`]), checking goldens ([`goldens`]), and failure lists
//! ([`failure_list`]).

use std::path::{Path, PathBuf};

use crate::scenario::{self, Case, LoadError, LoadReason, Step};

pub mod compare;
pub mod failure_list;
pub mod goldens;
pub mod locate;
pub mod run;
pub mod trace;
pub mod watch;

pub use failure_list::{apply_failure_list, parse_failure_list, FailureListError};
pub use goldens::check_goldens;
pub use locate::Location;
pub use run::{run_cases, run_with, thread_counts, CaseResult, RunError, Settings, Target};

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
    // Ids are relative to scenarios/; accept paths given relative to the cwd.
    let abs_root = std::fs::canonicalize(&sroot).unwrap_or(sroot.clone());
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

/// The id of every scenario file below `<root>/scenarios`, loaded or not: what a failure-list
/// line may name.
pub fn all_ids(root: &Path) -> Vec<String> {
    let sroot = root.join("scenarios");
    scenario::find_files(&sroot)
        .unwrap_or_default()
        .iter()
        .filter_map(|f| {
            let rel = f.strip_prefix(&sroot).ok()?.with_extension("");
            let parts: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            Some(parts.join("/"))
        })
        .collect()
}

/// The golden labels a scenario declares, as manifest keys.
pub fn declared_goldens(c: &Case) -> Vec<String> {
    fn walk(steps: &[Step], id: &str, out: &mut Vec<String>) {
        for s in steps {
            match s {
                Step::Expect(e) => {
                    for g in scenario::build::golden_labels(e) {
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
