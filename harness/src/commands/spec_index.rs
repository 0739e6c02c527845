//! `onav spec-index [--check]` (`spec/conformance.md` §1.11): the `Scenarios:` line under every
//! rule of `spec/*.md`, from the scenarios' anchors.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::Outcome;
use crate::error::HarnessError;
use crate::suite;

/// The `Scenarios:` lines of every rule of `spec/*.md`, rewritten from the scenarios' anchors:
/// the line after rule `**X12.` lists, in order, the cases whose `spec` names `file.md#x12`
/// ("none yet" when no case does). Returns the new texts of the files that change.
pub fn texts(root: &Path) -> Result<Vec<(PathBuf, String)>, HarnessError> {
    super::check_root(root)?;
    let mut suite = suite::load(root, &[], None);
    if !suite.load_errors.is_empty() {
        return Err(suite.load_errors.swap_remove(0).into());
    }
    let mut by_rule: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for c in &suite.cases {
        for a in &c.scenario.spec {
            if let Some((file, id)) = a.split_once('#') {
                if id.chars().next().is_some_and(|c| c.is_ascii_lowercase()) {
                    by_rule
                        .entry((file.to_owned(), id.to_uppercase()))
                        .or_default()
                        .push(c.id.clone());
                }
            }
        }
    }
    let mut out = Vec::new();
    let dir = root.join("spec");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| HarnessError::io(&dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    files.sort();
    for path in files {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let text = std::fs::read_to_string(&path).map_err(|e| HarnessError::io(&path, e))?;
        let mut rule: Option<String> = None;
        let mut lines = Vec::new();
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("**") {
                let id: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric())
                    .collect();
                if rest[id.len()..].starts_with('.') && id.len() > 1 {
                    rule = Some(id);
                }
            }
            match (&rule, line.starts_with("Scenarios:")) {
                (Some(r), true) => {
                    let list = by_rule.get(&(name.clone(), r.clone()));
                    lines.push(match list {
                        Some(v) => format!(
                            "Scenarios: {}.",
                            v.iter()
                                .map(|c| format!("`{c}`"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                        None => "Scenarios: none yet.".to_owned(),
                    });
                    rule = None;
                }
                _ => lines.push(line.to_owned()),
            }
        }
        let mut new = lines.join("\n");
        if text.ends_with('\n') {
            new.push('\n');
        }
        if new != text {
            out.push((path, new));
        }
    }
    Ok(out)
}

/// `onav spec-index [--check]`: fills (or, with `check`, checks) the spec's `Scenarios:` lines.
pub fn run(root: &Path, check: bool) -> Result<Outcome, HarnessError> {
    let changes = texts(root)?;
    for (p, text) in &changes {
        if check {
            outln!("out of date: {}", p.display());
        } else {
            std::fs::write(p, text).map_err(|e| HarnessError::io(p, e))?;
            outln!("updated {}", p.display());
        }
    }
    if check && !changes.is_empty() {
        outln!("run onav spec-index to update the Scenarios: lines");
        Ok(Outcome::Fail)
    } else {
        Ok(Outcome::Pass)
    }
}
