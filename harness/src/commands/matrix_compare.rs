//! `onav matrix-compare FILE… [--golden manifest]` (`spec/conformance.md` §5): groups the jobs
//! of matrix files into agreeing sets per case and names the axis that splits them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::Outcome;
use crate::error::{HarnessError, MatrixFileError};
use crate::golden::Manifest;

/// One job of `matrix-compare`: where it ran and what it produced.
#[derive(Debug, Clone)]
struct Job {
    name: String,
    attrs: BTreeMap<&'static str, String>,
    cases: BTreeMap<String, (u64, String)>,
}

const AXES: [&str; 6] = [
    "os",
    "arch",
    "endianness",
    "pointer_width",
    "threads",
    "impl",
];

fn jobs_of(path: &Path) -> Result<Vec<Job>, HarnessError> {
    let bad = |reason: MatrixFileError| HarnessError::Matrix {
        path: path.to_path_buf(),
        reason,
    };
    let text = std::fs::read_to_string(path).map_err(|e| HarnessError::io(path, e))?;
    let doc: Value = serde_json::from_str(&text).map_err(|e| bad(e.into()))?;
    let env = &doc["environment"];
    let s = |v: &Value| match v {
        Value::String(s) => s.clone(),
        Value::Null => "?".into(),
        other => other.to_string(),
    };
    let mut out = Vec::new();
    for j in doc["jobs"]
        .as_array()
        .ok_or_else(|| bad(MatrixFileError::NoJobs))?
    {
        let mut attrs = BTreeMap::new();
        for a in ["os", "arch", "endianness", "pointer_width"] {
            attrs.insert(a, s(&env[a]));
        }
        attrs.insert("threads", s(&j["threads"]));
        attrs.insert("impl", s(&doc["impl"]));
        let mut cases = BTreeMap::new();
        for (k, v) in j["cases"].as_object().into_iter().flatten() {
            let len = v["length"]
                .as_u64()
                .ok_or_else(|| bad(MatrixFileError::NoLength { case: k.clone() }))?;
            let sha = v["sha256"]
                .as_str()
                .ok_or_else(|| bad(MatrixFileError::NoSha256 { case: k.clone() }))?;
            cases.insert(k.clone(), (len, sha.to_owned()));
        }
        out.push(Job {
            name: format!("{}@{}t", path.display(), attrs["threads"]),
            attrs,
            cases,
        });
    }
    Ok(out)
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

/// `onav matrix-compare FILE… [--golden manifest]`: groups jobs into agreeing sets per case and
/// names the axis that splits them.
pub fn run(files: &[PathBuf], golden: Option<&Path>) -> Result<Outcome, HarnessError> {
    let mut jobs = Vec::new();
    for f in files {
        jobs.extend(jobs_of(f)?);
    }
    if let Some(g) = golden {
        match Manifest::read(g) {
            Ok(m) => {
                let mut attrs = BTreeMap::new();
                for a in AXES {
                    attrs.insert(a, "golden".to_owned());
                }
                jobs.push(Job {
                    name: format!("golden ({})", g.display()),
                    attrs,
                    cases: m
                        .entries
                        .into_iter()
                        .map(|(k, e)| (k, (e.length, e.sha256)))
                        .collect(),
                });
            }
            Err(e) => return Err(e.into()),
        }
    }
    if jobs.is_empty() {
        return Err(HarnessError::NoHashes);
    }
    let keys: BTreeSet<String> = jobs.iter().flat_map(|j| j.cases.keys().cloned()).collect();
    let mut bad = 0;
    for k in &keys {
        let mut groups: BTreeMap<Option<&(u64, String)>, Vec<&Job>> = BTreeMap::new();
        for j in &jobs {
            groups.entry(j.cases.get(k)).or_default().push(j);
        }
        if groups.len() == 1 {
            continue;
        }
        bad += 1;
        let sets: Vec<Vec<&Job>> = groups.values().cloned().collect();
        let axes = splitting_axes(&sets);
        let why = if axes.is_empty() {
            "no single axis explains the split".to_owned()
        } else {
            format!("split by {}", axes.join(" and "))
        };
        println!("SPLIT {k}: {} agreeing sets; {why}", sets.len());
        for (v, js) in &groups {
            let what = match v {
                Some((l, h)) => format!("{l} bytes {}", &h[..16]),
                None => "missing".into(),
            };
            let names: Vec<&str> = js.iter().map(|j| j.name.as_str()).collect();
            println!("    {what}: {}", names.join(", "));
        }
    }
    println!(
        "{} cases over {} jobs: {}",
        keys.len(),
        jobs.len(),
        if bad == 0 {
            "every job agrees".to_owned()
        } else {
            format!("{bad} split")
        }
    );
    Ok(if bad == 0 {
        Outcome::Pass
    } else {
        Outcome::Differ
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(os: &str, threads: &str, sha: &str) -> Job {
        let mut attrs = BTreeMap::new();
        for a in AXES {
            attrs.insert(a, "x".to_owned());
        }
        attrs.insert("os", os.to_owned());
        attrs.insert("threads", threads.to_owned());
        Job {
            name: format!("{os}@{threads}"),
            attrs,
            cases: [("c/g".to_owned(), (1, sha.to_owned()))].into(),
        }
    }

    #[test]
    fn the_splitting_axis_is_named() {
        let (a, b, c, d) = (
            job("linux", "1", "aa"),
            job("linux", "2", "aa"),
            job("windows", "1", "bb"),
            job("windows", "2", "bb"),
        );
        assert_eq!(splitting_axes(&[vec![&a, &b], vec![&c, &d]]), vec!["os"]);
        assert_eq!(
            splitting_axes(&[vec![&a, &c], vec![&b, &d]]),
            vec!["threads"]
        );
        assert!(splitting_axes(&[vec![&a, &d], vec![&b, &c]]).is_empty());
    }
}
