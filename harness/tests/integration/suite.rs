//! The conformance suite run in process: every scenario passes at several thread counts with its
//! goldens; every `n_` scenario with a patch fails once its patch is removed; the golden checks
//! catch stale, pending, orphaned and damaged goldens; the compiled suite replays; the thread
//! matrix agrees with the manifest.

use std::path::Path;

use onav_harness::commands::{self, Outcome};
use onav_harness::{
    anchor_in, apply_failure_list, check_goldens, declared_goldens, load_compiled, load_str,
    load_suite, parse_failure_list, run_cases, run_scenario, without_corruptions, Class, Entry,
    GoldenProblem, HarnessError, Manifest, ManifestError, ManifestLineError, PatchEdit, Reference,
    SetEdit, Status, Step, Store, Target,
};

use super::kit::{copy_dir, root, Temp};

#[test]
fn whole_suite_passes_in_process_at_several_thread_counts() {
    let s = load_suite(&root(), &[], None);
    assert!(s.load_errors.is_empty(), "{:?}", s.load_errors);
    assert!(s.cases.len() >= 100, "{} cases", s.cases.len());
    let mut results = run_cases(&s.cases, &[1, 2, 3], Target::Reference, false).unwrap();
    let orphans = check_goldens(&s.root, &s.cases, &mut results, true).unwrap();
    let list = std::fs::read_to_string(root().join(commands::REFERENCE_FAILURES)).unwrap();
    apply_failure_list(&mut results, &parse_failure_list(&list).unwrap());
    let failed: Vec<String> = results
        .iter()
        .filter(|r| r.status != Status::Pass && !r.expected)
        .map(|r| format!("{} [{}]: {}", r.id, r.status.name(), r.message))
        .collect();
    assert!(failed.is_empty(), "{}", failed.join("\n"));
    assert!(orphans.is_empty(), "{orphans:?}");
    for area in ["tile", "navmesh", "snapshot", "meshfile"] {
        assert!(
            s.cases.iter().any(|c| c.area == area),
            "no {area} scenarios"
        );
    }
}

#[test]
fn every_reject_case_with_a_patch_fails_without_it() {
    let s = load_suite(&root(), &[], None);
    let mut checked = 0;
    let mut wrong = Vec::new();
    for c in &s.cases {
        if c.scenario.class != Class::Reject
            || !c
                .scenario
                .steps
                .iter()
                .any(|st| matches!(st, Step::Patch(_)))
        {
            continue;
        }
        let stripped = without_corruptions(&c.scenario).expect("has a patch");
        let r = run_scenario(&c.id, &stripped, &mut Reference::new(), &c.dir);
        checked += 1;
        if r.status() != Status::Fail || !r.message().contains("accepted; expected a rejection") {
            wrong.push(format!("{} [{}]: {}", c.id, r.status().name(), r.message()));
        }
    }
    assert!(checked >= 80, "only {checked} n_ cases with a patch");
    assert!(
        wrong.is_empty(),
        "these n_ cases do not fail for want of their rejection without their patch:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn golden_checks_catch_stale_pending_orphaned_and_damaged_goldens() {
    let t = Temp::new("golden");
    copy_dir(&root().join("golden"), &t.0.join("golden"));
    let mut s = load_suite(&root(), &[], None);
    s.cases.retain(|c| !declared_goldens(c).is_empty());
    assert!(s.cases.len() >= 4);
    let fresh = run_cases(&s.cases, &[1], Target::Reference, false).unwrap();
    let check = |root: &Path| {
        let mut r = fresh.clone();
        let orphans = check_goldens(root, &s.cases, &mut r, true).unwrap();
        let msgs: Vec<String> = r
            .iter()
            .filter(|r| r.status != Status::Pass)
            .map(|r| r.message.clone())
            .collect();
        (msgs, orphans)
    };
    assert_eq!(check(&t.0), (vec![], vec![]));

    let store = Store::at(&t.0);
    let manifest = Manifest::read(&store.manifest_path()).unwrap();
    let key = manifest.entries.keys().next().unwrap().clone();
    // Damaged bytes file.
    let path = store.bytes_path(&key);
    let good = std::fs::read(&path).unwrap();
    let mut bad = good.clone();
    bad[10] ^= 1;
    std::fs::write(&path, &bad).unwrap();
    assert!(
        check(&t.0)
            .0
            .iter()
            .any(|m| m.ends_with("does not match the manifest")),
        "a damaged bytes file is found"
    );
    std::fs::write(&path, &good).unwrap();
    // Stale manifest entry.
    let mut m = manifest.clone();
    m.entries.get_mut(&key).unwrap().sha256 = "0".repeat(64);
    std::fs::write(store.manifest_path(), m.render()).unwrap();
    assert!(check(&t.0).0.iter().any(|m| m.starts_with("stale golden")));
    // Pending: the entry is missing.
    let mut m = manifest.clone();
    m.entries.remove(&key);
    std::fs::write(store.manifest_path(), m.render()).unwrap();
    let (msgs, orphans) = check(&t.0);
    assert!(msgs.iter().any(|m| m.starts_with("pending golden")));
    assert!(orphans.contains(&GoldenProblem::OrphanFile {
        path: store.bytes_path(&key)
    }));
    // Orphaned entry.
    let mut m = manifest.clone();
    m.entries.insert("nowhere/y_gone/x".into(), Entry::of(b"x"));
    std::fs::write(store.manifest_path(), m.render()).unwrap();
    assert_eq!(
        check(&t.0).1,
        [GoldenProblem::OrphanEntry {
            key: "nowhere/y_gone/x".into()
        }]
    );
    // Unsorted manifests are refused.
    let mut lines: Vec<String> = manifest.render().lines().map(str::to_owned).collect();
    lines.reverse();
    std::fs::write(store.manifest_path(), lines.join("\n") + "\n").unwrap();
    assert!(matches!(
        check_goldens(&t.0, &s.cases, &mut fresh.clone(), true),
        Err(ManifestError::Line {
            source: ManifestLineError::Order { line: 2, .. },
            ..
        })
    ));
}

/// In CI bless refuses and writes nothing; outside it, bless writes back a golden the manifest
/// lost. The environment is passed in, never set for the whole test binary.
#[test]
fn bless_refuses_in_ci_and_writes_outside_it() {
    let t = Temp::new("bless");
    for d in ["scenarios", "spec", "golden"] {
        copy_dir(&root().join(d), &t.0.join(d));
    }
    let store = Store::at(&t.0);
    let manifest = Manifest::read(&store.manifest_path()).unwrap();
    let mut lost = manifest.clone();
    let key = lost.entries.keys().next().unwrap().clone();
    lost.entries.remove(&key);
    std::fs::write(store.manifest_path(), lost.render()).unwrap();
    assert!(matches!(
        commands::bless::run(&t.0, None, true),
        Err(HarnessError::BlessInCi)
    ));
    assert_eq!(Manifest::read(&store.manifest_path()).unwrap(), lost);
    assert_eq!(
        commands::bless::run(&t.0, None, false).unwrap(),
        Outcome::Pass
    );
    assert_eq!(Manifest::read(&store.manifest_path()).unwrap(), manifest);
}

#[test]
fn compiled_suite_replays_against_the_reference() {
    let t = Temp::new("compiled");
    assert_eq!(
        commands::compile::run(&root(), &t.0).unwrap(),
        Outcome::Pass
    );
    let cases = load_compiled(&t.0).unwrap();
    let yaml = load_suite(&root(), &[], None);
    assert_eq!(cases.len(), yaml.cases.len());
    // Only byte-level forms remain: no generator, no raw tile edit, no field path.
    for c in &cases {
        for st in &c.scenario.steps {
            let bad = match st {
                Step::World(_) | Step::Tile(_) | Step::Tiles(_) | Step::RawTile(_) => true,
                Step::Expect(e) => e.fields.is_some(),
                Step::NewMesh(n) => n.world.is_some(),
                Step::Patch(p) => p.edits.iter().any(|e| {
                    !matches!(
                        e,
                        PatchEdit::Set(SetEdit {
                            offset: Some(_),
                            hex: Some(_),
                            ..
                        }) | PatchEdit::Splice(_)
                            | PatchEdit::Truncate(_)
                            | PatchEdit::Append(_)
                    )
                }),
                _ => false,
            };
            assert!(!bad, "{}: {} is not in compiled form", c.id, st.key());
        }
    }
    let mut results = run_cases(&cases, &[1], Target::Reference, false).unwrap();
    let list = std::fs::read_to_string(root().join(commands::REFERENCE_FAILURES)).unwrap();
    apply_failure_list(&mut results, &parse_failure_list(&list).unwrap());
    let failed: Vec<String> = results
        .iter()
        .filter(|r| r.status != Status::Pass && !r.expected)
        .map(|r| format!("{}: {}", r.id, r.message))
        .collect();
    assert!(failed.is_empty(), "{}", failed.join("\n"));
    // Compiled goldens are the manifest's.
    let manifest = Manifest::read(&Store::at(&root()).manifest_path()).unwrap();
    for (k, e) in &manifest.entries {
        let b = std::fs::read(t.0.join("golden").join(format!("{k}.bin"))).unwrap();
        assert_eq!(&Entry::of(&b), e, "{k}");
    }
    // Compiling again replaces the earlier suite whole: a file of a case that is gone goes.
    let stale = t.0.join("bytes/tile/y_gone/old.bin");
    std::fs::create_dir_all(stale.parent().unwrap()).unwrap();
    std::fs::write(&stale, b"old").unwrap();
    assert_eq!(
        commands::compile::run(&root(), &t.0).unwrap(),
        Outcome::Pass
    );
    assert!(!stale.exists() && t.0.join("suite.json").is_file());
    // A folder holding anything else is refused, and left as it was.
    std::fs::write(t.0.join("notes.txt"), b"mine").unwrap();
    let e = commands::compile::run(&root(), &t.0)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("neither empty nor a compiled suite (it holds notes.txt)"),
        "{e}"
    );
    assert!(t.0.join("notes.txt").is_file() && t.0.join("suite.json").is_file());
}

#[test]
fn thread_matrix_agrees_with_itself_and_the_goldens() {
    let t = Temp::new("matrix");
    let out = t.0.join("matrix.json");
    assert_eq!(
        commands::matrix::run(&root(), Some(&[1, 2]), Some(&out)).unwrap(),
        Outcome::Pass
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(doc["jobs"].as_array().unwrap().len(), 2);
    assert!(doc["environment"]["pointer_width"].is_number());
    let golden = Store::at(&root()).manifest_path();
    assert_eq!(
        commands::matrix_compare::run(std::slice::from_ref(&out), Some(&golden)).unwrap(),
        Outcome::Pass
    );
    // A job that disagrees is found, and the splitting axis named.
    let mut other = doc.clone();
    other["environment"]["os"] = serde_json::json!("elsewhere");
    for j in other["jobs"].as_array_mut().unwrap() {
        let cases = j["cases"].as_object_mut().unwrap();
        let first = cases.keys().next().unwrap().clone();
        cases[&first]["sha256"] = serde_json::json!("f".repeat(64));
    }
    let other_path = t.0.join("other.json");
    std::fs::write(&other_path, other.to_string()).unwrap();
    assert_eq!(
        commands::matrix_compare::run(&[out, other_path], None).unwrap(),
        Outcome::Differ
    );
}

#[test]
fn spec_scenario_lines_are_current() {
    let stale = commands::spec_index::texts(&root()).unwrap();
    let files: Vec<String> = stale.iter().map(|(p, _)| p.display().to_string()).collect();
    assert!(files.is_empty(), "run `onav spec-index`: {files:?}");
}

#[test]
fn anchors_must_name_a_rule_of_the_spec() {
    let text = std::fs::read_to_string(root().join("spec/snapshot.md")).unwrap();
    assert!(anchor_in(&text, "s12"));
    assert!(anchor_in(&text, "4.3"));
    assert!(!anchor_in(&text, "s99"));
    assert!(!anchor_in(&text, "4.9"));
}

#[test]
fn the_example_of_the_conformance_spec_loads_and_passes() {
    let text = std::fs::read_to_string(root().join("spec/conformance.md")).unwrap();
    let yaml = text
        .split("```yaml\n")
        .nth(1)
        .and_then(|t| t.split("```").next())
        .expect("a yaml example");
    let id = "snapshot/n_generation-zero";
    let c = load_str(id, yaml).unwrap();
    let r = run_scenario(id, &c.scenario, &mut Reference::new(), Path::new("."));
    assert_eq!(r.status(), Status::Pass, "{}", r.message());
}
