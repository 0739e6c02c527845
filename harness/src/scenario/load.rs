//! Loading scenario files (YAML) and compiled suites (JSON); every case passes the load-time
//! checks of `spec/conformance.md` §1.8.

use std::fmt;
use std::path::Path;

use super::check::check;
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
    pub dir: std::path::PathBuf,
}

/// A load error: which file and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    /// The file.
    pub path: String,
    /// Why it was refused.
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// Loads and checks one scenario file. `id` is its path below `scenarios/` without `.yaml`.
pub fn load_str(id: &str, text: &str) -> Result<Case, String> {
    let opts = serde_saphyr::options! { strict_booleans: true };
    let scenario: Scenario =
        serde_saphyr::from_str_with_options(text, opts).map_err(|e| e.to_string())?;
    check(id, &scenario)?;
    let area = id.split('/').next().unwrap_or("").to_owned();
    Ok(Case {
        id: id.to_owned(),
        area,
        scenario,
        dir: std::path::PathBuf::from("."),
    })
}

/// Loads one file below `root` (the `scenarios/` folder).
pub fn load_file(root: &Path, path: &Path) -> Result<Case, LoadError> {
    let err = |m: String| LoadError {
        path: path.display().to_string(),
        message: m,
    };
    let rel = path
        .strip_prefix(root)
        .map_err(|_| err(format!("not below {}", root.display())))?;
    let id = rel
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/");
    let text = std::fs::read_to_string(path).map_err(|e| err(e.to_string()))?;
    let mut c = load_str(&id, &text).map_err(err)?;
    c.dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    Ok(c)
}

/// Loads a suite written by `onav compile`: its cases, with `bytes: {file}` paths below
/// `dir/bytes`. Every case passes the same load-time checks as a YAML file.
pub fn load_compiled(dir: &Path) -> Result<Vec<Case>, String> {
    let path = dir.join("suite.json");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let doc: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    for c in doc["cases"].as_array().into_iter().flatten() {
        let mut c = c.clone();
        let id = c["id"].as_str().unwrap_or_default().to_owned();
        c["schema"] = serde_json::json!(doc["schema"]);
        let scenario: Scenario = serde_json::from_value(c).map_err(|e| format!("{id}: {e}"))?;
        check(&id, &scenario).map_err(|e| format!("{id}: {e}"))?;
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
pub fn find_files(dir: &Path) -> std::io::Result<Vec<std::path::PathBuf>> {
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
