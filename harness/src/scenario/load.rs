//! Loading scenario files (YAML) and compiled suites (JSON); every case passes the load-time
//! checks of `spec/conformance.md` §1.8.

use std::path::{Path, PathBuf};

use super::check::{check, CheckError};
use super::model::Scenario;

/// A scenario that loaded and passed every load-time check.
#[derive(Debug, Clone)]
pub struct Case {
    /// `area/prefix_name`.
    pub id: String,
    /// The folder below `scenarios/`.
    pub area: String,
    /// The parsed file.
    pub scenario: Scenario,
    /// Where `bytes: {file}` paths start (the file's folder).
    pub dir: PathBuf,
}

/// Why a file did not load.
#[derive(Debug, thiserror::Error)]
pub enum LoadReason {
    /// A file given outside the `scenarios/` folder.
    #[error("not below {}", root.display())]
    NotBelow {
        /// The `scenarios/` folder.
        root: PathBuf,
    },
    /// The file could not be read.
    #[error("{0}")]
    Read(#[from] std::io::Error),
    /// Not YAML of the scenario format (syntax, unknown keys, types), with line, column and the
    /// lines around it.
    #[error("{0}")]
    Yaml(Box<serde_saphyr::Error>),
    /// A compiled suite that is not JSON of the scenario format.
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    /// A compiled suite whose `cases` holds something other than objects.
    #[error("a case of a compiled suite is an object")]
    NotAnObject,
    /// A load-time check fails.
    #[error(transparent)]
    Check(#[from] CheckError),
    /// A spec anchor of the right form that names no rule or section of the repository's spec.
    #[error("spec anchor {anchor} names no rule or section of spec/")]
    UnknownAnchor {
        /// The anchor.
        anchor: String,
    },
}

/// A load error: which file (or compiled case) and why.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {reason}")]
pub struct LoadError {
    /// The file, or the id of a compiled case.
    pub path: String,
    /// Why it was refused.
    pub reason: LoadReason,
}

impl LoadError {
    /// The error of a file.
    pub fn new(path: impl Into<String>, reason: impl Into<LoadReason>) -> Self {
        Self {
            path: path.into(),
            reason: reason.into(),
        }
    }
}

/// Loads and checks one scenario file. `id` is its path below `scenarios/` without `.yaml`.
pub fn load_str(id: &str, text: &str) -> Result<Case, LoadReason> {
    let opts = serde_saphyr::options! { strict_booleans: true };
    let scenario: Scenario = serde_saphyr::from_str_with_options(text, opts)
        .map_err(|e| LoadReason::Yaml(Box::new(e)))?;
    check(id, &scenario)?;
    let area = id.split('/').next().unwrap_or("").to_owned();
    Ok(Case {
        id: id.to_owned(),
        area,
        scenario,
        dir: PathBuf::from("."),
    })
}

/// Loads one file below `root` (the `scenarios/` folder).
pub fn load_file(root: &Path, path: &Path) -> Result<Case, LoadError> {
    let err = |r: LoadReason| LoadError::new(path.display().to_string(), r);
    let rel = path.strip_prefix(root).map_err(|_| {
        err(LoadReason::NotBelow {
            root: root.to_path_buf(),
        })
    })?;
    let id = rel
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/");
    let text = std::fs::read_to_string(path).map_err(|e| err(e.into()))?;
    let mut c = load_str(&id, &text).map_err(err)?;
    c.dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    Ok(c)
}

/// Loads a suite written by `onav compile`: its cases, with `bytes: {file}` paths below
/// `dir/bytes`. Every case passes the same load-time checks as a YAML file.
pub fn load_compiled(dir: &Path) -> Result<Vec<Case>, LoadError> {
    let path = dir.join("suite.json");
    let err = |r: LoadReason| LoadError::new(path.display().to_string(), r);
    let text = std::fs::read_to_string(&path).map_err(|e| err(e.into()))?;
    let doc: serde_json::Value = serde_json::from_str(&text).map_err(|e| err(e.into()))?;
    let mut out = Vec::new();
    for c in doc["cases"].as_array().into_iter().flatten() {
        let mut c = c.clone();
        let id = c["id"].as_str().unwrap_or_default().to_owned();
        let err = |r: LoadReason| LoadError::new(id.clone(), r);
        let Some(fields) = c.as_object_mut() else {
            return Err(err(LoadReason::NotAnObject));
        };
        fields.insert("schema".into(), doc["schema"].clone());
        let scenario: Scenario = serde_json::from_value(c).map_err(|e| err(e.into()))?;
        check(&id, &scenario).map_err(|e| err(e.into()))?;
        out.push(Case {
            area: id.split('/').next().unwrap_or("").to_owned(),
            id,
            scenario,
            dir: dir.join("bytes"),
        });
    }
    Ok(out)
}

/// Every `*.yaml` file below `dir`, sorted.
pub fn find_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d)? {
            let p = e?.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "yaml") {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}
