//! onav-schemata: the full mutation run of issue 12 (`spec/conformance.md` §6.10) on a 2-core
//! machine. cargo-mutants builds and tests one mutant at a time (about 3 minutes each here, 2 654
//! mutants); this tool takes cargo-mutants' own list of mutants (`--list --json`), writes all of
//! them into one copy of the tree behind run-time switches (`rewrite`), builds it once with the
//! profile `cargo test` uses (opt-level 1, overflow checks on), and judges each mutant by the
//! conformance cases that reach it, exactly as the harness test that cargo-mutants runs judges
//! the whole suite (each case's steps and goldens; thread counts 1, 2, 3).
//!
//! Why that is exact: the library is deterministic, so a case that never calls a mutant's switch
//! in the unmutated run runs the same with that mutant on; the cases that do are run with it on.
//!
//!   onav-schemata prepare --repo R --work W --mutants M.json   copy R's tracked files to W/tree,
//!                        rewrite, build W/tree's driver (mutants that do not compile are
//!                        recorded as unviable in W/unviable.tsv and left out, then rebuilt)
//!   onav-schemata run --work W [--jobs N] [--only ID,ID] [--again ID,ID]
//!                        record which cases reach which mutant (W/baseline.jsonl), then judge
//!                        every mutant not yet in W/outcomes.tsv (resumable); `--again` drops
//!                        those mutants' outcomes first (to judge them again after new cases;
//!                        delete W/baseline.jsonl when the suite changed)
//!   onav-schemata report --work W [--classes F,F] [--tsv OUT]  the score and the survivors by
//!                        reviewed class (files of id, class, reason); OUT: one line a mutant
//!                        (name, outcome, the first failing case or the class, the reason)

mod rewrite;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rewrite::{Left, Mutant};

const MODULE: &str = include_str!("schemata_module.rs");
const DRIVER: &str = include_str!("driver.rs");

fn die(msg: impl std::fmt::Display) -> ! {
    eprintln!("onav-schemata: {msg}");
    std::process::exit(2)
}

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter().position(|a| a == name).map(|i| {
        args.get(i + 1)
            .cloned()
            .unwrap_or_else(|| die(format!("{name} needs a value")))
    })
}

/// cargo-mutants' list: our ids are 1 … n in its order.
fn load_mutants(path: &Path) -> Vec<Mutant> {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| die(format!("{}: {e}", path.display())));
    let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| die(e));
    let list = v
        .as_array()
        .unwrap_or_else(|| die("the mutants list is not a JSON array"));
    let lc = |x: &serde_json::Value| {
        (
            x["line"].as_u64().unwrap_or(0) as usize,
            x["column"].as_u64().unwrap_or(0) as usize,
        )
    };
    list.iter()
        .enumerate()
        .map(|(i, m)| {
            let file = m["file"].as_str().unwrap_or_default().to_string();
            let span = &m["span"];
            let start = lc(&span["start"]);
            let genre = m["genre"].as_str().unwrap_or_default().to_string();
            let replacement = m["replacement"].as_str().unwrap_or_default().to_string();
            let name = m["name"].as_str().map(str::to_string).unwrap_or_else(|| {
                format!("{file}:{}:{}: {genre} {replacement}", start.0, start.1)
            });
            Mutant {
                id: i as u32 + 1,
                name,
                file,
                genre,
                start,
                replacement,
            }
        })
        .collect()
}

fn read_tsv(path: &Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

fn append(path: &Path, line: &str) {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap_or_else(|e| die(format!("{}: {e}", path.display())));
    writeln!(f, "{line}").unwrap_or_else(|e| die(e));
}

fn copy_tree(repo: &Path, tree: &Path) {
    let out = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["ls-files", "-z"])
        .output()
        .unwrap_or_else(|e| die(format!("git: {e}")));
    for f in out.stdout.split(|&b| b == 0).filter(|f| !f.is_empty()) {
        let rel = std::str::from_utf8(f).unwrap_or_else(|e| die(e));
        let (src, dst) = (repo.join(rel), tree.join(rel));
        if let Some(p) = dst.parent() {
            std::fs::create_dir_all(p).unwrap_or_else(|e| die(e));
        }
        if src.is_file() {
            std::fs::copy(&src, &dst).unwrap_or_else(|e| die(format!("{rel}: {e}")));
        }
    }
}

/// A placed mutant's file and the byte range of its mutated text in the rewritten file.
type Region = (String, (usize, usize));

/// Writes every rewritten file, the switch module and the driver; returns each placed
/// mutant's (file, region) and the mutants left out.
fn write_schemata(
    repo: &Path,
    tree: &Path,
    mutants: &[Mutant],
    unviable: &BTreeSet<u32>,
) -> (BTreeMap<u32, Region>, BTreeMap<u32, Left>) {
    let mut by_file: BTreeMap<&str, Vec<&Mutant>> = BTreeMap::new();
    for m in mutants {
        by_file.entry(&m.file).or_default().push(m);
    }
    let mut regions = BTreeMap::new();
    let mut left = BTreeMap::new();
    for (file, ms) in by_file {
        let src = std::fs::read_to_string(repo.join(file))
            .unwrap_or_else(|e| die(format!("{file}: {e}")));
        let r = rewrite::rewrite(&src, &ms, &|id| unviable.contains(&id))
            .unwrap_or_else(|e| die(format!("{file}: {e}")));
        std::fs::write(tree.join(file), &r.text).unwrap_or_else(|e| die(e));
        for (id, reg) in r.regions {
            regions.insert(id, (file.to_string(), reg));
        }
        left.extend(r.left);
    }
    let words = mutants.len() / 64 + 1;
    let module = MODULE.replace("@WORDS@", &words.to_string());
    std::fs::write(tree.join("impl/onav/src/__schemata.rs"), module).unwrap_or_else(|e| die(e));
    let lib = tree.join("impl/onav/src/lib.rs");
    let mut text =
        std::fs::read_to_string(repo.join("impl/onav/src/lib.rs")).unwrap_or_else(|e| die(e));
    text.push_str("\n#[doc(hidden)]\npub mod __schemata;\n");
    std::fs::write(lib, text).unwrap_or_else(|e| die(e));
    let ex = tree.join("harness/examples");
    std::fs::create_dir_all(&ex).unwrap_or_else(|e| die(e));
    std::fs::write(ex.join("schemata_driver.rs"), DRIVER).unwrap_or_else(|e| die(e));
    // The profile `cargo test` builds with (the workspace's `[profile.test]` is opt-level 1 and
    // inherits dev's debug assertions and overflow checks), without debug info.
    let cargo = tree.join("Cargo.toml");
    let mut c = std::fs::read_to_string(repo.join("Cargo.toml")).unwrap_or_else(|e| die(e));
    c.push_str("\n[profile.dev]\nopt-level = 1\ndebug = false\n");
    std::fs::write(cargo, c).unwrap_or_else(|e| die(e));
    (regions, left)
}

fn driver_path(work: &Path) -> PathBuf {
    work.join("target/debug/examples/schemata_driver")
}

/// One build of the tree; the error spans (file, byte) of rustc's messages.
fn build(work: &Path) -> Result<(), Vec<(String, usize, String)>> {
    let out = Command::new("cargo")
        .current_dir(work.join("tree"))
        .env("CARGO_TARGET_DIR", work.join("target"))
        .args([
            "build",
            "-p",
            "onav-harness",
            "--example",
            "schemata_driver",
            "--message-format=json",
        ])
        .stderr(Stdio::inherit())
        .output()
        .unwrap_or_else(|e| die(format!("cargo: {e}")));
    if out.status.success() {
        return Ok(());
    }
    let mut errors = Vec::new();
    for line in out.stdout.lines().map_while(Result::ok) {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(&line) else {
            continue;
        };
        if v["reason"] != "compiler-message" || v["message"]["level"] != "error" {
            continue;
        }
        let msg = v["message"]["rendered"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let spans = v["message"]["spans"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let mut any = false;
        for s in spans.iter().filter(|s| s["is_primary"] == true) {
            let file = s["file_name"].as_str().unwrap_or_default().to_string();
            let b = s["byte_start"].as_u64().unwrap_or(0) as usize;
            errors.push((file, b, msg.clone()));
            any = true;
        }
        if !any {
            errors.push((String::new(), 0, msg));
        }
    }
    if errors.is_empty() {
        errors.push((
            String::new(),
            0,
            "the build failed with no error message".into(),
        ));
    }
    Err(errors)
}

fn prepare(args: &[String]) {
    let repo = PathBuf::from(arg(args, "--repo").unwrap_or_else(|| ".".into()));
    let work = PathBuf::from(arg(args, "--work").unwrap_or_else(|| die("--work DIR")));
    let mutants = load_mutants(Path::new(
        &arg(args, "--mutants").unwrap_or_else(|| die("--mutants FILE")),
    ));
    let tree = work.join("tree");
    // A fresh copy: a file deleted since an earlier prepare (a withdrawn case) must not stay in
    // the suite. The build cache (W/target) is kept.
    if tree.exists() {
        std::fs::remove_dir_all(&tree).unwrap_or_else(|e| die(format!("{}: {e}", tree.display())));
    }
    std::fs::create_dir_all(&tree).unwrap_or_else(|e| die(e));
    copy_tree(&repo, &tree);
    let unviable_path = work.join("unviable.tsv");
    for round in 1..=30 {
        let unviable: BTreeSet<u32> = read_tsv(&unviable_path)
            .iter()
            .filter_map(|r| r.first()?.parse().ok())
            .collect();
        let (regions, left) = write_schemata(&repo, &tree, &mutants, &unviable);
        let placed = regions.len();
        eprintln!(
            "round {round}: {placed} placed, {} unviable, {} const, {} impl-trait, {} unplaced",
            unviable.len(),
            left.values().filter(|l| **l == Left::Const).count(),
            left.values().filter(|l| **l == Left::ImplTrait).count(),
            left.values().filter(|l| **l == Left::Unplaced).count()
        );
        let mut manifest = String::new();
        for m in &mutants {
            let state = if unviable.contains(&m.id) {
                "unviable"
            } else if let Some(l) = left.get(&m.id) {
                match l {
                    Left::Const => "const",
                    Left::Unplaced => "unplaced",
                    Left::ImplTrait => "impl-trait",
                }
            } else {
                "placed"
            };
            manifest.push_str(&format!("{}\t{state}\t{}\n", m.id, m.name));
        }
        std::fs::write(work.join("mutants.tsv"), manifest).unwrap_or_else(|e| die(e));
        match build(&work) {
            Ok(()) => {
                eprintln!("built {}", driver_path(&work).display());
                return;
            }
            Err(errors) => {
                let mut found = BTreeSet::new();
                let mut stray = Vec::new();
                for (file, b, msg) in errors {
                    let hit = regions.iter().find(|(_, (f, (r0, r1)))| {
                        !file.is_empty() && file.ends_with(f.as_str()) && *r0 <= b && b < *r1
                    });
                    match hit {
                        Some((id, _)) => {
                            found.insert(*id);
                        }
                        None => stray.push(msg),
                    }
                }
                if found.is_empty() {
                    for m in &stray {
                        eprintln!("{m}");
                    }
                    die("build errors outside every mutant's text (above)");
                }
                for id in found {
                    let m = &mutants[id as usize - 1];
                    append(&unviable_path, &format!("{id}\t{}", m.name));
                }
            }
        }
    }
    die("no clean build after 30 rounds");
}

struct Case {
    id: String,
    ms: f64,
}

/// Runs the driver with a time limit; `None` on a timeout.
fn drive(work: &Path, args: &[String], limit: Duration) -> Option<(bool, String)> {
    let mut child = Command::new("prlimit")
        .arg("--as=8000000000")
        .arg("--")
        .arg(driver_path(work))
        .args(args)
        .current_dir(work.join("tree"))
        .env("RAYON_NUM_THREADS", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| die(format!("driver: {e}")));
    let t = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                let mut s = String::new();
                use std::io::Read;
                child.stdout.take().map(|mut o| o.read_to_string(&mut s));
                return Some((status.success(), s));
            }
            Ok(None) if t.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => die(e),
        }
    }
}

/// Judges mutant `id` by `cases` (ascending baseline time): caught, missed or timeout.
fn judge(work: &Path, id: u32, cases: &[&Case]) -> (String, String) {
    if cases.is_empty() {
        return ("missed".into(), "reached by no case".into());
    }
    let list = work.join(format!("cases-{id}.txt"));
    let text: String = cases.iter().map(|c| format!("{}\n", c.id)).collect();
    std::fs::write(&list, text).unwrap_or_else(|e| die(e));
    let total: f64 = cases.iter().map(|c| c.ms).sum();
    let mut verdict = ("missed".to_string(), String::new());
    for (threads, factor) in [("1", 3.0), ("1,2,3", 9.0)] {
        let limit = Duration::from_secs_f64(20.0 + factor * total / 1e3);
        let a = vec![
            "mutant".to_string(),
            id.to_string(),
            threads.to_string(),
            list.display().to_string(),
        ];
        verdict = match drive(work, &a, limit) {
            None => (
                "timeout".into(),
                format!("over {:.0} s at threads {threads}", limit.as_secs_f64()),
            ),
            Some((true, out)) if out.starts_with("missed") => ("missed".into(), String::new()),
            Some((true, out)) => {
                let mut p = out.trim_end().splitn(3, '\t');
                p.next();
                let case = p.next().unwrap_or("").to_string();
                let why = p.next().unwrap_or("").to_string();
                ("caught".into(), format!("{case} (threads {threads}) {why}"))
            }
            Some((false, _)) => (
                "caught".into(),
                format!("the driver crashed (threads {threads})"),
            ),
        };
        if verdict.0 != "missed" {
            break;
        }
    }
    let _ = std::fs::remove_file(&list);
    verdict
}

fn run(args: &[String]) {
    let work = PathBuf::from(arg(args, "--work").unwrap_or_else(|| die("--work DIR")));
    let jobs: usize = arg(args, "--jobs").map_or(2, |j| j.parse().unwrap_or_else(|e| die(e)));
    let only: Option<BTreeSet<u32>> = arg(args, "--only").map(|s| {
        s.split(',')
            .map(|x| x.parse().unwrap_or_else(|e| die(e)))
            .collect()
    });
    let baseline = work.join("baseline.jsonl");
    if !baseline.exists() {
        eprintln!("recording which cases reach which mutants (one pass of the suite)");
        let tmp = work.join("baseline.tmp");
        let a = vec!["record".to_string(), tmp.display().to_string()];
        match drive(&work, &a, Duration::from_secs(3600)) {
            Some((true, _)) => std::fs::rename(&tmp, &baseline).unwrap_or_else(|e| die(e)),
            _ => die("the baseline run failed"),
        }
    }
    let mut cases = Vec::new();
    let mut reach: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for line in std::fs::read_to_string(&baseline)
        .unwrap_or_else(|e| die(e))
        .lines()
    {
        let v: serde_json::Value = serde_json::from_str(line).unwrap_or_else(|e| die(e));
        if v["pass"] != true {
            die(format!(
                "baseline: {} does not pass unmutated: {}",
                v["case"], v["why"]
            ));
        }
        let k = cases.len();
        cases.push(Case {
            id: v["case"].as_str().unwrap_or_default().to_string(),
            ms: v["ms"].as_f64().unwrap_or(0.0),
        });
        for id in v["reached"].as_array().into_iter().flatten() {
            reach
                .entry(id.as_u64().unwrap_or(0) as u32)
                .or_default()
                .push(k);
        }
    }
    let outcomes = work.join("outcomes.tsv");
    if let Some(again) = arg(args, "--again") {
        // Judge these again (after new cases): their earlier outcomes are dropped.
        let again: BTreeSet<String> = again.split(',').map(str::to_string).collect();
        let kept: String = read_tsv(&outcomes)
            .into_iter()
            .filter(|r| !again.contains(&r[0]))
            .map(|r| r.join("\t") + "\n")
            .collect();
        std::fs::write(&outcomes, kept).unwrap_or_else(|e| die(e));
    }
    let done: BTreeSet<u32> = read_tsv(&outcomes)
        .iter()
        .filter_map(|r| r.first()?.parse().ok())
        .collect();
    let todo: Vec<(u32, String)> = read_tsv(&work.join("mutants.tsv"))
        .into_iter()
        .filter(|r| r.get(1).map(String::as_str) == Some("placed"))
        .filter_map(|r| Some((r[0].parse().ok()?, r.get(2)?.clone())))
        .filter(|(id, _)| !done.contains(id) && only.as_ref().is_none_or(|o| o.contains(id)))
        .collect();
    eprintln!("{} mutants to judge, {} jobs", todo.len(), jobs);
    let next = AtomicUsize::new(0);
    let lock = Mutex::new(());
    let started = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((id, name)) = todo.get(i) else { break };
                let mut sel: Vec<&Case> = reach
                    .get(id)
                    .map(|v| v.iter().map(|&k| &cases[k]).collect())
                    .unwrap_or_default();
                sel.sort_by(|a, b| a.ms.total_cmp(&b.ms));
                let t = Instant::now();
                let (outcome, detail) = judge(&work, *id, &sel);
                let _g = lock.lock().unwrap_or_else(|p| p.into_inner());
                append(
                    &outcomes,
                    &format!(
                        "{id}\t{outcome}\t{:.1}\t{}\t{name}\t{detail}",
                        t.elapsed().as_secs_f64(),
                        sel.len()
                    ),
                );
                eprintln!(
                    "[{}/{} {:.0} s] {id} {outcome} ({} cases) {name}",
                    i + 1,
                    todo.len(),
                    started.elapsed().as_secs_f64(),
                    sel.len()
                );
            });
        }
    });
}

fn report(args: &[String]) {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    // A closed pipe (e.g. `| head`) ends the report quietly.
    macro_rules! say {
        ($($t:tt)*) => {
            if writeln!(out, $($t)*).is_err() {
                return;
            }
        };
    }
    let work = PathBuf::from(arg(args, "--work").unwrap_or_else(|| die("--work DIR")));
    let states = read_tsv(&work.join("mutants.tsv"));
    let outcomes = read_tsv(&work.join("outcomes.tsv"));
    let mut count: BTreeMap<String, usize> = BTreeMap::new();
    for r in &states {
        if r[1] != "placed" {
            *count.entry(r[1].clone()).or_default() += 1;
        }
    }
    for r in &outcomes {
        *count.entry(r[1].clone()).or_default() += 1;
    }
    say!("mutants: {}", states.len());
    for (k, v) in &count {
        say!("  {k}: {v}");
    }
    let caught = count.get("caught").copied().unwrap_or(0);
    let missed = count.get("missed").copied().unwrap_or(0);
    let timeout = count.get("timeout").copied().unwrap_or(0);
    let viable = caught + missed + timeout;
    if viable > 0 {
        say!(
            "caught / judged viable: {caught} / {viable} = {:.3}",
            caught as f64 / viable as f64
        );
    }
    // Reviewed classes of survivors (id, class, reason), from any number of files.
    let mut classes: BTreeMap<String, (String, String)> = BTreeMap::new();
    if let Some(files) = arg(args, "--classes") {
        for f in files.split(',') {
            for r in read_tsv(Path::new(f)) {
                if let (Some(id), Some(class)) = (r.first(), r.get(1)) {
                    let why = r.get(2).cloned().unwrap_or_default();
                    classes.insert(id.clone(), (class.clone(), why));
                }
            }
        }
    }
    let mut by_class: BTreeMap<&str, usize> = BTreeMap::new();
    let outcome_of: BTreeMap<&str, &Vec<String>> =
        outcomes.iter().map(|r| (r[0].as_str(), r)).collect();
    let mut table = String::from("mutant\toutcome\tclass or first failing case\treason\n");
    for r in &states {
        let (id, state, name) = (r[0].as_str(), r[1].as_str(), r[2].as_str());
        let (outcome, detail) = match outcome_of.get(id) {
            Some(o) => (o[1].as_str(), o.get(5).map_or("", String::as_str)),
            None if state == "unviable" => ("unviable", ""),
            None if state == "placed" => ("not judged", ""),
            None => ("not run", state),
        };
        let (class, why) = match outcome {
            "caught" | "timeout" => (detail.split(" (threads").next().unwrap_or(""), ""),
            "unviable" => ("", ""),
            _ => match classes.get(id) {
                Some((c, w)) => (c.as_str(), w.as_str()),
                None => ("unclassified", detail),
            },
        };
        let outcome = if state == "unviable" {
            "unviable"
        } else {
            outcome
        };
        if outcome == "missed" || outcome == "not run" {
            *by_class.entry(class).or_default() += 1;
        }
        // "-" for an empty field: no line ends in whitespace.
        let dash = |x: &str| {
            if x.is_empty() {
                "-".to_string()
            } else {
                x.to_string()
            }
        };
        table.push_str(&format!(
            "{name}\t{outcome}\t{}\t{}\n",
            dash(class),
            dash(why)
        ));
    }
    if let Some(path) = arg(args, "--tsv") {
        std::fs::write(&path, table).unwrap_or_else(|e| die(format!("{path}: {e}")));
    }
    say!("survivors and mutants not run, by class:");
    for (k, v) in &by_class {
        say!("  {k}: {v}");
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("prepare") => prepare(&args[2..]),
        Some("run") => run(&args[2..]),
        Some("report") => report(&args[2..]),
        _ => die("usage: onav-schemata prepare|run|report (see the module docs)"),
    }
    ExitCode::SUCCESS
}
