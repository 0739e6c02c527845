//! `matrix-compare`: the splitting axis is named, with or without a golden; missing and
//! malformed files and job lists without hashes are errors.

use super::*;
use crate::golden::Entry;

const A: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const B: &str = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

/// A matrix file of one environment with a job per thread count, every case with `sha`.
fn file(arch: &str, endianness: &str, threads: &[u32], sha: &str) -> String {
    let jobs: Vec<Value> = threads
        .iter()
        .map(|t| serde_json::json!({"threads": t, "cases": {"c/y_x/g": {"length": 9, "sha256": sha}}}))
        .collect();
    serde_json::json!({
        "schema": 1,
        "impl": "onav-reference",
        "environment": {"os": "linux", "arch": arch, "endianness": endianness, "pointer_width": 64},
        "jobs": jobs,
    })
    .to_string()
}

fn jobs(files: &[(&str, String)]) -> Vec<Job> {
    files
        .iter()
        .flat_map(|(n, t)| parse_jobs(n, t).unwrap())
        .collect()
}

fn golden(sha: &str) -> Golden {
    let mut manifest = Manifest::default();
    manifest.entries.insert(
        "c/y_x/g".into(),
        Entry {
            length: 9,
            sha256: sha.into(),
        },
    );
    Golden {
        name: "golden (m.tsv)".into(),
        manifest,
    }
}

/// The one case of the first job of a matrix file.
fn case(v: &mut Value) -> &mut Value {
    &mut v["jobs"][0]["cases"]["c/y_x/g"]
}

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
        job("linux", "1", A),
        job("linux", "2", A),
        job("windows", "1", B),
        job("windows", "2", B),
    );
    assert_eq!(splitting_axes(&[vec![&a, &b], vec![&c, &d]]), vec!["os"]);
    assert_eq!(
        splitting_axes(&[vec![&a, &c], vec![&b, &d]]),
        vec!["threads"]
    );
    assert!(splitting_axes(&[vec![&a, &d], vec![&b, &c]]).is_empty());
}

/// The golden agrees with one set, and the axis that splits the jobs is still named.
#[test]
fn with_a_golden_the_axis_is_still_named() {
    let j = jobs(&[
        ("x86", file("x86_64", "little", &[1, 2], A)),
        ("s390x", file("s390x", "big", &[1, 2], B)),
    ]);
    for g in [None, Some(golden(A))] {
        let (cases, bad) = compare(&j, g.as_ref());
        assert_eq!(cases, 1);
        let [Disagreement::Split { axes, sets, .. }] = &bad[..] else {
            panic!("{bad:?}");
        };
        assert_eq!(axes, &["arch", "endianness"]);
        assert_eq!(sets.len(), 2);
    }
    let (_, bad) = compare(&j, Some(&golden(A)));
    assert_eq!(
        bad[0].to_string(),
        "SPLIT c/y_x/g: 2 agreeing sets; split by arch and endianness\n    \
         9 bytes aaaaaaaaaaaaaaaa: x86@1t, x86@2t, golden (m.tsv)\n    \
         9 bytes bbbbbbbbbbbbbbbb: s390x@1t, s390x@2t\n"
    );
    // A golden that no set agrees with is shown on its own line.
    let c = "c".repeat(64);
    let (_, bad) = compare(&j, Some(&golden(&c)));
    assert!(
        bad[0]
            .to_string()
            .ends_with("    9 bytes cccccccccccccccc: golden (m.tsv), which no job agrees with\n"),
        "{}",
        bad[0]
    );
}

/// Jobs that all agree with each other but not with the golden disagree with it.
#[test]
fn jobs_that_agree_among_themselves_can_disagree_with_the_golden() {
    let j = jobs(&[("x86", file("x86_64", "little", &[1, 2, 4], A))]);
    assert_eq!(compare(&j, Some(&golden(A))), (1, vec![]));
    assert_eq!(compare(&j, None), (1, vec![]));
    let (_, bad) = compare(&j, Some(&golden(B)));
    assert_eq!(
        bad,
        [Disagreement::Golden {
            key: "c/y_x/g".into(),
            jobs: Some((9, A.into())),
            golden: (Some((9, B.into())), "golden (m.tsv)".into()),
        }]
    );
    // A golden holding a case no job produced.
    let mut more = golden(A);
    more.manifest.entries.insert(
        "c/y_x/h".into(),
        Entry {
            length: 1,
            sha256: B.into(),
        },
    );
    let (cases, bad) = compare(&j, Some(&more));
    assert_eq!((cases, bad.len()), (2, 1));
    assert!(bad[0]
        .to_string()
        .starts_with("GOLDEN c/y_x/h: every job has missing"));
}

#[test]
fn malformed_files_are_errors() {
    let ok: Value = serde_json::from_str(&file("x86_64", "little", &[1], A)).unwrap();
    assert!(parse_jobs("f", &ok.to_string()).is_ok());
    let edit = |f: fn(&mut Value)| {
        let mut v = ok.clone();
        f(&mut v);
        v.to_string()
    };
    type Want = fn(&MatrixFileError) -> bool;
    let cases: [(String, Want); 9] = [
        ("{".into(), |e| matches!(e, MatrixFileError::Json(_))),
        (edit(|v| v["schema"] = 2.into()), |e| {
            matches!(e, MatrixFileError::Schema { .. })
        }),
        (
            edit(|v| {
                v.as_object_mut().unwrap().remove("schema");
            }),
            |e| matches!(e, MatrixFileError::Schema { .. }),
        ),
        (
            edit(|v| {
                v.as_object_mut().unwrap().remove("jobs");
            }),
            |e| matches!(e, MatrixFileError::NoJobs),
        ),
        (edit(|v| v["jobs"][0]["cases"] = 7.into()), |e| {
            matches!(e, MatrixFileError::NoCases { job: 0 })
        }),
        (edit(|v| case(v)["length"] = (-9).into()), |e| {
            matches!(e, MatrixFileError::NoLength { .. })
        }),
        (edit(|v| case(v)["sha256"] = "abc".into()), |e| {
            matches!(e, MatrixFileError::NoSha256 { .. })
        }),
        (edit(|v| case(v)["sha256"] = A.to_uppercase().into()), |e| {
            matches!(e, MatrixFileError::NoSha256 { .. })
        }),
        (edit(|v| case(v)["sha256"] = "é".repeat(32).into()), |e| {
            matches!(e, MatrixFileError::NoSha256 { .. })
        }),
    ];
    for (text, want) in &cases {
        let e = parse_jobs("f", text).unwrap_err();
        assert!(want(&e), "{text}: {e}");
    }
}

/// A file of no job, or of jobs without a hashed output (`onav matrix --threads 0` writes one),
/// is an error, not agreement.
#[test]
fn job_lists_without_hashes_are_errors() {
    let none = file("x86_64", "little", &[], A);
    assert!(matches!(
        parse_jobs("f", &none),
        Err(MatrixFileError::NoHashes)
    ));
    let empty = serde_json::json!({
        "schema": 1, "impl": "onav-reference", "environment": {},
        "jobs": [{"threads": 1, "cases": {}}],
    })
    .to_string();
    assert!(matches!(
        parse_jobs("f", &empty),
        Err(MatrixFileError::NoHashes)
    ));
    assert!(matches!(run(&[], None), Err(HarnessError::NoHashes)));
}

/// Missing files (a matrix file or the golden) are errors, which `main` answers with status 2.
#[test]
fn missing_files_are_errors() {
    let dir = std::env::temp_dir().join(format!("onav-mc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("m.json");
    std::fs::write(&f, file("x86_64", "little", &[1], A)).unwrap();
    let nowhere = dir.join("nowhere");
    assert!(matches!(
        run(std::slice::from_ref(&nowhere), None),
        Err(HarnessError::Io { .. })
    ));
    assert!(matches!(
        run(std::slice::from_ref(&f), Some(&nowhere)),
        Err(HarnessError::Manifest(
            crate::golden::ManifestError::Read { .. }
        ))
    ));
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{").unwrap();
    assert!(matches!(
        run(&[f.clone(), bad], None),
        Err(HarnessError::Matrix {
            reason: MatrixFileError::Json(_),
            ..
        })
    ));
    assert_eq!(run(&[f], None).unwrap(), Outcome::Pass);
    let _ = std::fs::remove_dir_all(&dir);
}
