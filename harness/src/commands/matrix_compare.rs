//! `onav matrix-compare FILE… [--golden manifest]` (`spec/conformance.md` §5): groups the jobs
//! of matrix files into agreeing sets per case and names the axis that splits them. With a golden
//! manifest, each set is also compared with the golden, which is no job: it takes no part in
//! naming the axis. A file that is missing, malformed or holds no hash is an error, never a split.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::Outcome;
use crate::error::{HarnessError, MatrixFileError};
use crate::golden::Manifest;

/// A hashed output: length and SHA-256 (64 lowercase hex digits).
type Hash = (u64, String);

/// One job of `matrix-compare`: where it ran and what it produced.
#[derive(Debug, Clone)]
struct Job {
    name: String,
    attrs: BTreeMap<&'static str, String>,
    cases: BTreeMap<String, Hash>,
}

const AXES: [&str; 6] = [
    "os",
    "arch",
    "endianness",
    "pointer_width",
    "threads",
    "impl",
];

/// The matrix file schema this runner reads (the `schema` key `onav matrix` writes).
const MATRIX_SCHEMA: u64 = 1;

fn is_sha256(s: &str) -> bool {
    s.len() == 64
        && s.bytes()
            .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c))
}

/// The jobs of a matrix file's text; `name` names them (`name@Nt`).
fn parse_jobs(name: &str, text: &str) -> Result<Vec<Job>, MatrixFileError> {
    let doc: Value = serde_json::from_str(text)?;
    if doc["schema"].as_u64() != Some(MATRIX_SCHEMA) {
        return Err(MatrixFileError::Schema {
            found: doc["schema"].clone(),
        });
    }
    let env = &doc["environment"];
    let s = |v: &Value| match v {
        Value::String(s) => s.clone(),
        Value::Null => "?".into(),
        other => other.to_string(),
    };
    let mut out = Vec::new();
    for j in doc["jobs"].as_array().ok_or(MatrixFileError::NoJobs)? {
        let mut attrs = BTreeMap::new();
        for a in ["os", "arch", "endianness", "pointer_width"] {
            attrs.insert(a, s(&env[a]));
        }
        attrs.insert("threads", s(&j["threads"]));
        attrs.insert("impl", s(&doc["impl"]));
        let mut cases = BTreeMap::new();
        let listed = j["cases"]
            .as_object()
            .ok_or(MatrixFileError::NoCases { job: out.len() })?;
        for (k, v) in listed {
            let len = v["length"]
                .as_u64()
                .ok_or_else(|| MatrixFileError::NoLength { case: k.clone() })?;
            let sha = v["sha256"]
                .as_str()
                .filter(|h| is_sha256(h))
                .ok_or_else(|| MatrixFileError::NoSha256 { case: k.clone() })?;
            cases.insert(k.clone(), (len, sha.to_owned()));
        }
        out.push(Job {
            name: format!("{name}@{}t", attrs["threads"]),
            attrs,
            cases,
        });
    }
    if out.iter().all(|j| j.cases.is_empty()) {
        return Err(MatrixFileError::NoHashes);
    }
    Ok(out)
}

fn jobs_of(path: &Path) -> Result<Vec<Job>, HarnessError> {
    let text = std::fs::read_to_string(path).map_err(|e| HarnessError::io(path, e))?;
    parse_jobs(&path.display().to_string(), &text).map_err(|reason| HarnessError::Matrix {
        path: path.to_path_buf(),
        reason,
    })
}

/// The axes whose values are uniform within each group and different between the groups.
fn splitting_axes(groups: &[Vec<&Job>]) -> Vec<&'static str> {
    AXES.iter()
        .copied()
        .filter(|a| {
            let per: Vec<BTreeSet<&String>> = groups
                .iter()
                .map(|g| g.iter().filter_map(|j| j.attrs.get(a)).collect())
                .collect();
            per.iter().all(|s| s.len() == 1)
                && per.iter().collect::<BTreeSet<_>>().len() == groups.len()
        })
        .collect()
}

/// How one hashed output looks in a report: `80 bytes f7c07f9b0141d1ec`, or `missing`.
fn show(v: Option<&Hash>) -> String {
    match v {
        Some((l, h)) => format!("{l} bytes {}", &h[..16]),
        None => "missing".into(),
    }
}

/// The golden manifest a comparison is held against.
struct Golden {
    name: String,
    manifest: Manifest,
}

impl Golden {
    fn get(&self, key: &str) -> Option<Hash> {
        self.manifest
            .entries
            .get(key)
            .map(|e| (e.length, e.sha256.clone()))
    }
}

/// Where one case does not agree.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Disagreement {
    /// The jobs fall into several agreeing sets.
    Split {
        /// The case key.
        key: String,
        /// Each set's output and job names, in output order.
        sets: Vec<(Option<Hash>, Vec<String>)>,
        /// The axes that explain the split (none: no single axis does).
        axes: Vec<&'static str>,
        /// The golden's output and name, when there is a golden.
        golden: Option<(Option<Hash>, String)>,
    },
    /// Every job agrees, and the golden has another output.
    Golden {
        /// The case key.
        key: String,
        /// What every job has.
        jobs: Option<Hash>,
        /// What the golden has, and its name.
        golden: (Option<Hash>, String),
    },
}

impl fmt::Display for Disagreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Disagreement::Split {
                key,
                sets,
                axes,
                golden,
            } => {
                let why = if axes.is_empty() {
                    "no single axis explains the split".to_owned()
                } else {
                    format!("split by {}", axes.join(" and "))
                };
                writeln!(f, "SPLIT {key}: {} agreeing sets; {why}", sets.len())?;
                let mut golden_shown = false;
                for (v, names) in sets {
                    let mut names = names.join(", ");
                    if let Some((_, name)) = golden.as_ref().filter(|(g, _)| g == v) {
                        names = format!("{names}, {name}");
                        golden_shown = true;
                    }
                    writeln!(f, "    {}: {names}", show(v.as_ref()))?;
                }
                match golden {
                    Some((g, name)) if !golden_shown => {
                        writeln!(
                            f,
                            "    {}: {name}, which no job agrees with",
                            show(g.as_ref())
                        )
                    }
                    _ => Ok(()),
                }
            }
            Disagreement::Golden { key, jobs, golden } => writeln!(
                f,
                "GOLDEN {key}: every job has {}; {} has {}",
                show(jobs.as_ref()),
                golden.1,
                show(golden.0.as_ref())
            ),
        }
    }
}

/// Every case of `jobs` (and of the golden) that does not agree, in key order; and how many cases
/// there are.
fn compare(jobs: &[Job], golden: Option<&Golden>) -> (usize, Vec<Disagreement>) {
    let mut keys: BTreeSet<&String> = jobs.iter().flat_map(|j| j.cases.keys()).collect();
    if let Some(g) = golden {
        keys.extend(g.manifest.entries.keys());
    }
    let mut out = Vec::new();
    for k in &keys {
        let mut groups: BTreeMap<Option<&Hash>, Vec<&Job>> = BTreeMap::new();
        for j in jobs {
            groups.entry(j.cases.get(*k)).or_default().push(j);
        }
        let golden = golden.map(|g| (g.get(k), g.name.clone()));
        if groups.len() > 1 {
            let sets: Vec<Vec<&Job>> = groups.values().cloned().collect();
            out.push(Disagreement::Split {
                key: (*k).clone(),
                axes: splitting_axes(&sets),
                sets: groups
                    .iter()
                    .map(|(v, js)| (v.cloned(), js.iter().map(|j| j.name.clone()).collect()))
                    .collect(),
                golden,
            });
        } else if let (Some(v), Some(g)) = (groups.keys().next(), golden) {
            if v.cloned() != g.0 {
                out.push(Disagreement::Golden {
                    key: (*k).clone(),
                    jobs: v.cloned(),
                    golden: g,
                });
            }
        }
    }
    (keys.len(), out)
}

/// `onav matrix-compare FILE… [--golden manifest]`: prints every case whose jobs (or the golden)
/// disagree and the axis that splits them; [`Outcome::Differ`] when any does.
pub fn run(files: &[PathBuf], golden: Option<&Path>) -> Result<Outcome, HarnessError> {
    let mut jobs = Vec::new();
    for f in files {
        jobs.extend(jobs_of(f)?);
    }
    if jobs.is_empty() {
        return Err(HarnessError::NoHashes);
    }
    let golden = match golden {
        Some(g) => Some(Golden {
            name: format!("golden ({})", g.display()),
            manifest: Manifest::read_required(g)?,
        }),
        None => None,
    };
    let (cases, bad) = compare(&jobs, golden.as_ref());
    for d in &bad {
        out!("{d}");
    }
    let over = match golden {
        Some(_) => format!("{} jobs and the golden", jobs.len()),
        None => format!("{} jobs", jobs.len()),
    };
    outln!(
        "{cases} cases over {over}: {}",
        if bad.is_empty() {
            "every job agrees".to_owned()
        } else {
            format!("{} disagree", bad.len())
        }
    );
    Ok(if bad.is_empty() {
        Outcome::Pass
    } else {
        Outcome::Differ
    })
}

#[cfg(test)]
#[path = "matrix_compare_tests.rs"]
mod tests;
