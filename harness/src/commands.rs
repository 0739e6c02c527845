//! The subcommands of `onav`: `run`, `bless`, `matrix`, `matrix-compare` and `compile`. Each
//! returns the process exit code; `main.rs` only parses arguments.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::exec::Status;
use crate::files::diff::first_difference;
use crate::golden::{self, Entry, Manifest, Store};
use crate::report::{self, Format, Summary};
use crate::suite::{self, CaseResult, Target};

/// Exit code: everything as expected.
pub const OK: i32 = 0;
/// Exit code: an unexpected outcome.
pub const FAILED: i32 = 1;
/// Exit code: the command could not run (bad arguments, unreadable files, refused).
pub const USAGE: i32 = 2;

/// The reference's known failures (a failure list), below the repository root.
pub const REFERENCE_FAILURES: &str = "scenarios/reference-failures.tsv";

/// Options of `onav run`.
#[derive(Debug, Default)]
pub struct RunOptions {
    /// Scenario files or folders (default: all of `scenarios/`).
    pub paths: Vec<PathBuf>,
    /// Thread counts (default 1, 2 and the machine's).
    pub threads: Option<Vec<usize>>,
    /// Glob over case ids.
    pub filter: Option<String>,
    /// Report format.
    pub format: Option<Format>,
    /// Failure list file.
    pub failure_list: Option<PathBuf>,
    /// Testee command, instead of the in-process reference.
    pub testee: Option<String>,
}

/// `onav run`.
pub fn run(root: &Path, o: &RunOptions) -> i32 {
    let suite = suite::load(root, &o.paths, o.filter.as_deref());
    // The reference's own known failures apply by default to runs against it.
    let default_list = root.join(REFERENCE_FAILURES);
    let list_path = o
        .failure_list
        .clone()
        .or_else(|| (o.testee.is_none() && default_list.is_file()).then_some(default_list));
    let list = match &list_path {
        Some(p) => match std::fs::read_to_string(p)
            .map_err(|e| e.to_string())
            .and_then(|t| suite::parse_failure_list(&t))
        {
            Ok(l) => l,
            Err(e) => {
                eprintln!("{}: {e}", p.display());
                return USAGE;
            }
        },
        None => Vec::new(),
    };
    let threads = suite::thread_counts(o.threads.as_deref());
    let mut testee_box;
    let (target, name) = match &o.testee {
        Some(cmd) => match crate::testee::client::testee_backend(cmd) {
            Ok(b) => {
                testee_box = b;
                (Target::Testee(testee_box.as_mut()), format!("testee {cmd}"))
            }
            Err(e) => {
                eprintln!("--testee {cmd}: {e}");
                return USAGE;
            }
        },
        None => (Target::Reference, "onav-reference (in process)".to_owned()),
    };
    let mut results = match suite::run_cases(&suite.cases, &threads, target, true) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{e}");
            return FAILED;
        }
    };
    let golden_problems = if o.testee.is_none() {
        match suite::check_goldens(&suite.root, &suite.cases, &mut results, suite.full) {
            Ok(g) => g,
            Err(e) => vec![e],
        }
    } else {
        // A testee is checked against the same goldens, by hash, through the manifest.
        match suite::check_goldens(&suite.root, &suite.cases, &mut results, false) {
            Ok(g) => g,
            Err(e) => vec![e],
        }
    };
    suite::apply_failure_list(&mut results, &list);
    let s = Summary {
        results: &results,
        load_errors: &suite.load_errors,
        golden_problems: &golden_problems,
        target: name,
    };
    print!("{}", report::render(&s, o.format.unwrap_or(Format::Human)));
    if s.failed() == 0 {
        OK
    } else {
        FAILED
    }
}

/// Runs the selected cases once in process and returns their results, or prints why not.
fn reference_results(suite: &suite::Suite, threads: &[usize]) -> Option<Vec<CaseResult>> {
    for e in &suite.load_errors {
        eprintln!("LOAD {e}");
    }
    if !suite.load_errors.is_empty() {
        return None;
    }
    match suite::run_cases(&suite.cases, threads, Target::Reference, true) {
        Ok(r) => Some(r),
        Err(e) => {
            eprintln!("{e}");
            None
        }
    }
}

/// `onav bless [--case GLOB]`: writes goldens that changed, after checking each new output by
/// an independent route ([`golden::verify`]). Refuses when the environment variable `CI` is set.
pub fn bless(root: &Path, case: Option<&str>) -> i32 {
    if std::env::var_os("CI").is_some() {
        eprintln!("onav bless refuses to run in CI (CI is set): goldens are blessed by people, and CI only checks them");
        return USAGE;
    }
    let suite = suite::load(root, &[], case);
    let Some(results) = reference_results(&suite, &[1]) else {
        return FAILED;
    };
    let store = Store::at(root);
    let mut manifest = match Manifest::read(&store.manifest_path()) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{e}");
            return USAGE;
        }
    };
    let before = manifest.clone();
    let mut bad = 0;
    let (mut changed, mut unchanged) = (0, 0);
    for (c, r) in suite.cases.iter().zip(&results) {
        if suite::declared_goldens(c).is_empty() {
            continue;
        }
        if r.status != Status::Pass {
            eprintln!("not blessed: {} does not pass: {}", c.id, r.message);
            bad += 1;
            continue;
        }
        let tiles: Vec<Vec<u8>> = r.run.blobs.iter().map(|b| b.1.clone()).collect();
        for (label, bytes) in &r.run.goldens {
            let key = format!("{}/{label}", c.id);
            let new = Entry::of(bytes);
            let path = store.bytes_path(&key);
            let on_disk = std::fs::read(&path).ok();
            if manifest.entries.get(&key) == Some(&new) && on_disk.as_deref() == Some(&bytes[..]) {
                unchanged += 1;
                continue;
            }
            let checked = match golden::verify(bytes, &tiles) {
                Ok(how) => how,
                Err(e) => {
                    eprintln!("not blessed: {key}: independent check failed: {e}");
                    bad += 1;
                    continue;
                }
            };
            match manifest.entries.get(&key) {
                Some(old) => {
                    let diff = on_disk
                        .as_deref()
                        .map(|o| first_difference(o, bytes))
                        .unwrap_or_else(|| "no old bytes file".into());
                    println!(
                        "changed {key}: {} bytes {} -> {} bytes {}; {diff}",
                        old.length, old.sha256, new.length, new.sha256
                    );
                }
                None => println!("new     {key}: {} bytes {}", new.length, new.sha256),
            }
            println!("        checked: {checked}");
            if let Some(dir) = path.parent() {
                if let Err(e) = std::fs::create_dir_all(dir) {
                    eprintln!("{}: {e}", dir.display());
                    return USAGE;
                }
            }
            if let Err(e) = std::fs::write(&path, bytes) {
                eprintln!("{}: {e}", path.display());
                return USAGE;
            }
            manifest.entries.insert(key, new);
            changed += 1;
        }
    }
    let mut removed = 0;
    if suite.full && bad == 0 {
        let declared: BTreeSet<String> = suite
            .cases
            .iter()
            .flat_map(suite::declared_goldens)
            .collect();
        let keys: Vec<String> = manifest.entries.keys().cloned().collect();
        for k in keys {
            if !declared.contains(&k) {
                manifest.entries.remove(&k);
                let _ = std::fs::remove_file(store.bytes_path(&k));
                println!("removed {k}: no scenario declares it");
                removed += 1;
            }
        }
        for k in store.byte_files() {
            if !manifest.entries.contains_key(&k) {
                let _ = std::fs::remove_file(store.bytes_path(&k));
                println!(
                    "removed {}: not in the manifest",
                    store.bytes_path(&k).display()
                );
                removed += 1;
            }
        }
    }
    if manifest != before {
        if let Err(e) = std::fs::create_dir_all(&store.dir)
            .and_then(|()| std::fs::write(store.manifest_path(), manifest.render()))
        {
            eprintln!("{}: {e}", store.manifest_path().display());
            return USAGE;
        }
    }
    println!("{changed} written, {unchanged} unchanged, {removed} removed, {bad} refused");
    if bad == 0 {
        OK
    } else {
        FAILED
    }
}

/// The environment a matrix job ran in.
pub fn environment(threads: &[usize]) -> Value {
    json!({
        "os": std::env::consts::OS,
        "arch": std::env::consts::ARCH,
        "endianness": if cfg!(target_endian = "little") { "little" } else { "big" },
        "pointer_width": usize::BITS,
        "threads": threads,
    })
}

/// `onav matrix`: every hashed output under each thread count, in one process.
pub fn matrix(root: &Path, threads: Option<&[usize]>, out: Option<&Path>) -> i32 {
    let threads = suite::thread_counts(Some(threads.unwrap_or(&[1, 2, 4])));
    let mut suite = suite::load(root, &[], None);
    suite
        .cases
        .retain(|c| !suite::declared_goldens(c).is_empty());
    let mut jobs = Vec::new();
    let mut per_job: Vec<BTreeMap<String, Entry>> = Vec::new();
    let mut failed = 0;
    for &t in &threads {
        let Some(results) = reference_results(&suite, &[t]) else {
            return FAILED;
        };
        let mut cases = BTreeMap::new();
        for r in &results {
            if r.status != Status::Pass {
                println!("FAIL {} at {t} threads: {}", r.id, r.message);
                failed += 1;
            }
            for (label, bytes) in &r.run.goldens {
                cases.insert(format!("{}/{label}", r.id), Entry::of(bytes));
            }
        }
        jobs.push(json!({
            "threads": t,
            "cases": cases.iter().map(|(k, e)| (k.clone(), json!({"length": e.length, "sha256": e.sha256}))).collect::<serde_json::Map<_, _>>(),
        }));
        per_job.push(cases);
    }
    let keys: BTreeSet<&String> = per_job.iter().flat_map(|m| m.keys()).collect();
    for k in &keys {
        let vals: Vec<Option<&Entry>> = per_job.iter().map(|m| m.get(*k)).collect();
        if vals.iter().any(|v| *v != vals[0]) {
            failed += 1;
            let shown: Vec<String> = threads
                .iter()
                .zip(&vals)
                .map(|(t, v)| match v {
                    Some(e) => format!("{t} threads: {} {}", e.length, &e.sha256[..16]),
                    None => format!("{t} threads: missing"),
                })
                .collect();
            println!("DIFFERS {k}: {}", shown.join("; "));
        }
    }
    let doc = json!({
        "schema": 1,
        "impl": "onav-reference",
        "environment": environment(&threads),
        "jobs": jobs,
    });
    if let Some(p) = out {
        if let Some(d) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
            let _ = std::fs::create_dir_all(d);
        }
        let text = serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n";
        if let Err(e) = std::fs::write(p, text) {
            eprintln!("{}: {e}", p.display());
            return USAGE;
        }
    }
    println!(
        "{} hashed outputs x {} thread counts ({}): {}",
        keys.len(),
        threads.len(),
        threads
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        if failed == 0 {
            "all identical"
        } else {
            "DIFFERENCES"
        }
    );
    if failed == 0 {
        OK
    } else {
        FAILED
    }
}

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

fn jobs_of(path: &Path) -> Result<Vec<Job>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let doc: Value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let env = &doc["environment"];
    let s = |v: &Value| match v {
        Value::String(s) => s.clone(),
        Value::Null => "?".into(),
        other => other.to_string(),
    };
    let mut out = Vec::new();
    for j in doc["jobs"]
        .as_array()
        .ok_or_else(|| format!("{}: no jobs", path.display()))?
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
                .ok_or_else(|| format!("{k}: no length"))?;
            let sha = v["sha256"]
                .as_str()
                .ok_or_else(|| format!("{k}: no sha256"))?;
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
pub fn matrix_compare(files: &[PathBuf], golden: Option<&Path>) -> i32 {
    let mut jobs = Vec::new();
    for f in files {
        match jobs_of(f) {
            Ok(j) => jobs.extend(j),
            Err(e) => {
                eprintln!("{e}");
                return USAGE;
            }
        }
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
            Err(e) => {
                eprintln!("{e}");
                return USAGE;
            }
        }
    }
    if jobs.is_empty() {
        eprintln!("no jobs");
        return USAGE;
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
    if bad == 0 {
        OK
    } else {
        FAILED
    }
}

/// `onav compile --out DIR`: the whole suite as JSON with `.bin` files, for ports that do not
/// read YAML or generate worlds. Every case is lowered from a passing reference run.
pub fn compile(root: &Path, out: &Path) -> i32 {
    let suite = suite::load(root, &[], None);
    for e in &suite.load_errors {
        eprintln!("LOAD {e}");
    }
    if !suite.load_errors.is_empty() {
        return FAILED;
    }
    // Every step is lowered, even past a failed expectation; a case the reference is known to
    // fail (scenarios/reference-failures.tsv) is compiled all the same, for ports to pass.
    let known = std::fs::read_to_string(root.join(REFERENCE_FAILURES))
        .ok()
        .and_then(|t| suite::parse_failure_list(&t).ok())
        .unwrap_or_default();
    let mut results: Vec<CaseResult> = suite
        .cases
        .iter()
        .map(|c| {
            let run = crate::exec::run(
                &c.id,
                &c.scenario,
                &mut crate::testee::reference::Reference::new(),
                &crate::exec::Options {
                    files: c.dir.clone(),
                    keep_going: true,
                },
            );
            CaseResult {
                id: c.id.clone(),
                area: c.area.clone(),
                status: run.status(),
                message: run.message().to_owned(),
                threads: vec![1],
                run,
                expected: false,
            }
        })
        .collect();
    suite::apply_failure_list(&mut results, &known);
    let mut cases = Vec::new();
    let mut bad = 0;
    let store = Store::at(root);
    let write = |p: &Path, b: &[u8]| -> Result<(), String> {
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
        }
        std::fs::write(p, b).map_err(|e| format!("{}: {e}", p.display()))
    };
    for (c, r) in suite.cases.iter().zip(&results) {
        if r.status != Status::Pass && !r.expected {
            eprintln!("not compiled: {} does not pass: {}", c.id, r.message);
            bad += 1;
            continue;
        }
        for (name, bytes) in &r.run.blobs {
            if let Err(e) = write(
                &out.join("bytes").join(&c.id).join(format!("{name}.bin")),
                bytes,
            ) {
                eprintln!("{e}");
                return USAGE;
            }
        }
        for (label, bytes) in &r.run.goldens {
            let key = format!("{}/{label}", c.id);
            if let Err(e) = write(&out.join("golden").join(format!("{key}.bin")), bytes) {
                eprintln!("{e}");
                return USAGE;
            }
            let _ = &store;
        }
        cases.push(json!({
            "id": c.id,
            "title": c.scenario.title,
            "notes": c.scenario.notes,
            "class": c.scenario.class,
            "spec": c.scenario.spec,
            "features": c.scenario.features,
            "steps": r.run.lowered,
        }));
    }
    let doc = json!({
        "schema": crate::scenario::SCHEMA_VERSION,
        "protocol": crate::protocol::PROTOCOL_VERSION,
        "cases": cases,
    });
    let text = serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n";
    if let Err(e) = write(&out.join("suite.json"), text.as_bytes()) {
        eprintln!("{e}");
        return USAGE;
    }
    println!(
        "compiled {} cases into {} ({} not compiled)",
        cases.len(),
        out.display(),
        bad
    );
    if bad == 0 {
        OK
    } else {
        FAILED
    }
}

/// The `Scenarios:` lines of every rule of `spec/*.md`, rewritten from the scenarios' anchors:
/// the line after rule `**X12.` lists, in order, the cases whose `spec` names `file.md#x12`
/// ("none yet" when no case does). Returns the new texts of the files that change.
pub fn spec_index_texts(root: &Path) -> Result<Vec<(PathBuf, String)>, String> {
    let suite = suite::load(root, &[], None);
    if let Some(e) = suite.load_errors.first() {
        return Err(e.to_string());
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
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    files.sort();
    for path in files {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
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

/// `onav spec-index [--check]`: fills (or checks) the spec's `Scenarios:` lines.
pub fn spec_index(root: &Path, check: bool) -> i32 {
    let changes = match spec_index_texts(root) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            return USAGE;
        }
    };
    for (p, text) in &changes {
        if check {
            println!("out of date: {}", p.display());
        } else if let Err(e) = std::fs::write(p, text) {
            eprintln!("{}: {e}", p.display());
            return USAGE;
        } else {
            println!("updated {}", p.display());
        }
    }
    if check && !changes.is_empty() {
        println!("run onav spec-index to update the Scenarios: lines");
        FAILED
    } else {
        OK
    }
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
