//! `onav run` as a port author meets it, end to end through the built binary: skipped cases
//! (a testee announcing part of the protocol), runs in which nothing ran, a testee that keeps
//! hanging, transcripts, the comparison with the reference, failure lists written, updated and
//! checked for stale lines, and the order and contents of FAIL lines (`spec/conformance.md` §4).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use base64::Engine as _;
use onav_harness::{Backend, Reference, Request};
use serde_json::Value;

use super::kit::{copy_dir, root, Temp};

fn exe() -> &'static str {
    env!("CARGO_BIN_EXE_onav")
}

/// `onav testee` with these extra arguments, as a `--testee` command.
fn testee(extra: &str) -> String {
    format!("'{}' testee {extra}", exe())
}

fn onav(args: &[&str]) -> Output {
    Command::new(exe())
        .args(args)
        .current_dir(root())
        .env_remove("CI")
        .output()
        .expect("onav runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The numbers of the last line, `N passed, N failed[, N skipped]`.
fn counts(out: &str) -> (usize, usize, usize) {
    let last = out.lines().last().unwrap_or_default();
    let n: Vec<usize> = last
        .split(", ")
        .map(|p| p.split(' ').next().unwrap().parse().unwrap())
        .collect();
    (n[0], n[1], n.get(2).copied().unwrap_or(0))
}

#[test]
fn a_testee_lacking_features_is_skipped_not_failed() {
    let part = testee("--only-features tile,off-mesh-links --only-ops tile_roundtrip,content_id");
    let o = onav(&["run", "--testee", &part]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    let (passed, failed, skipped) = counts(&out);
    assert!(passed > 0 && skipped > 0 && failed == 0, "{out}");
    assert!(!out.contains("FAIL"), "{out}");
    // The header shows the hello answer; the table says what to implement next.
    assert!(
        out.contains("\n  ops: bye, content_id, hello, tile_roundtrip\n"),
        "{out}"
    );
    assert!(
        out.contains("\n  features: off-mesh-links, tile\n"),
        "{out}"
    );
    assert!(
        out.contains("(skipped)") && out.contains("feature navmesh "),
        "{out}"
    );
    // JUnit and JSON count the skipped cases apart.
    let x = stdout(&onav(&["run", "--testee", &part, "--format", "junit"]));
    assert!(
        x.contains(&format!("failures=\"0\" skipped=\"{skipped}\"")),
        "{x}"
    );
    assert!(
        x.contains("<skipped message=\"needs feature navmesh"),
        "{x}"
    );
    let j = stdout(&onav(&["run", "--testee", &part, "--format", "json"]));
    let summary: Value = serde_json::from_str(j.lines().last().unwrap()).unwrap();
    assert_eq!(summary["summary"]["skipped"], skipped);
    assert_eq!(summary["summary"]["failed"], 0);
    assert_eq!(
        summary["summary"]["features"],
        serde_json::json!(["off-mesh-links", "tile"])
    );
    // A port claiming everything fails on a skip.
    let o = onav(&["run", "--testee", &part, "--require-all"]);
    assert_eq!(o.status.code(), Some(1));
    // A misspelt feature is named on standard error, with the features the suite knows.
    let typo = testee(
        "--only-features tile,off-mesh-links,snapshot_full --only-ops tile_roundtrip,content_id",
    );
    let o = onav(&["run", "--testee", &typo, "--filter", "tile/*"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "warning: the testee lists feature \"snapshot_full\", which no scenario uses (known: "
        ) && stderr(&o).contains("snapshot-full"),
        "{}",
        stderr(&o)
    );
    let clean = onav(&["run", "--testee", &part, "--filter", "tile/*"]);
    assert!(!stderr(&clean).contains("warning"), "{}", stderr(&clean));
}

#[test]
fn a_run_in_which_no_case_ran_exits_2() {
    let none = testee("--only-features '' --only-ops ''");
    let o = onav(&["run", "--testee", &none]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    let (passed, failed, skipped) = counts(&stdout(&o));
    assert_eq!((passed, failed), (0, 0));
    assert!(skipped > 100);
    assert!(
        stderr(&o).contains("onav: no case ran: all"),
        "{}",
        stderr(&o)
    );
    // A failure list saying every case is unsupported does not make such a run green.
    let t = Temp::new("none");
    let list = t.path("all.tsv");
    std::fs::write(&list, "*\tunsupported\n").unwrap();
    let o = onav(&["run", "--testee", &none, "--failure-list", &list]);
    assert_eq!(o.status.code(), Some(2));
    // A misspelt feature is named.
    let typo = testee("--only-features snapshot_full");
    let o = onav(&["run", "--testee", &typo]);
    assert!(
        stderr(&o).contains("warning: the testee lists feature \"snapshot_full\""),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_testee_that_keeps_hanging_costs_a_bounded_time() {
    // It hangs on the first add_tile of every case, a few requests in. (The areas whose cases
    // add tiles: most build3d cases never do, and would pass.)
    let hang = testee("--mutant hang-on:add_tile");
    let start = Instant::now();
    let o = onav(&[
        "run",
        "scenarios/meshfile",
        "scenarios/navmesh",
        "scenarios/query",
        "scenarios/snapshot",
        "scenarios/tile",
        "--testee",
        &hang,
        "--timeout",
        "0.3",
        "--give-up-after",
        "3",
    ]);
    let took = start.elapsed();
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert_eq!(out.matches("[timeout]").count(), 3, "{out}");
    assert!(out.contains("\nNOTRUN "), "{out}");
    assert!(out.contains("(--give-up-after 3)"), "{out}");
    let (passed, failed, _) = counts(&out);
    assert!(failed > 100 && passed < 10, "{out}");
    assert!(took < Duration::from_secs(30), "{took:?}");
    // Without giving up, --run-timeout bounds the run.
    let start = Instant::now();
    let o = onav(&[
        "run",
        "--testee",
        &hang,
        "--timeout",
        "0.3",
        "--give-up-after",
        "0",
        "--run-timeout",
        "2",
    ]);
    let took = start.elapsed();
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("the run reached its --run-timeout"), "{out}");
    assert!(took < Duration::from_secs(30), "{took:?}");
    // The JSON report marks the cases not run.
    let j = stdout(&onav(&[
        "run",
        "--testee",
        &hang,
        "--timeout",
        "0.3",
        "--give-up-after",
        "1",
        "--format",
        "json",
    ]));
    let not_run = j
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["not_run"] == true)
        .count();
    assert!(not_run > 100, "{j}");
}

/// The transcript of every case folder of a trace's area folder.
fn transcripts(area: &Path) -> Vec<(PathBuf, String)> {
    let mut v: Vec<(PathBuf, String)> = std::fs::read_dir(area)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|d| {
            let t = std::fs::read_to_string(d.join("transcript.jsonl")).unwrap();
            (d, t)
        })
        .collect();
    v.sort();
    v
}

#[test]
fn transcripts_replay_against_the_reference() {
    let t = Temp::new("trace");
    let dir = t.path("trace");
    let run = |all: bool| {
        let mut args = vec![
            "run",
            "--filter",
            "snapshot/*",
            "--threads",
            "1",
            "--trace",
            &dir,
        ];
        if all {
            args.push("--trace-all");
        }
        onav(&args)
    };
    // Without --trace-all a run that passes leaves an index and no case folder.
    let o = run(false);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let index: Value =
        serde_json::from_str(&std::fs::read_to_string(t.0.join("trace/index.json")).unwrap())
            .unwrap();
    assert_eq!(index["onav_trace"], 2);
    assert_eq!(index["cases"], serde_json::json!([]));
    assert!(!t.0.join("trace/snapshot").exists());
    let o = run(true);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let traced = transcripts(&t.0.join("trace/snapshot"));
    assert!(traced.len() > 20);
    let index: Value =
        serde_json::from_str(&std::fs::read_to_string(t.0.join("trace/index.json")).unwrap())
            .unwrap();
    assert_eq!(index["cases"].as_array().unwrap().len(), traced.len());
    let mut exchanges = 0;
    let mut files = 0;
    for (d, text) in &traced {
        let lines: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let (head, rest) = lines.split_first().unwrap();
        let (result, body) = rest.split_last().unwrap();
        let id = head["case"].as_str().unwrap();
        assert!(d.ends_with(id), "{d:?}");
        assert_eq!(head["onav_trace"], 2);
        assert_eq!(head["file"], format!("scenarios/{id}.yaml"));
        assert!(head["spec"].as_array().is_some_and(|a| !a.is_empty()));
        assert_eq!(result["result"]["case"], id);
        assert_eq!(result["result"]["status"], "pass");
        // Every request, sent again to a fresh reference, gets the reply the transcript holds.
        let source = std::fs::read_to_string(root().join(format!("scenarios/{id}.yaml"))).unwrap();
        let source: Vec<&str> = source.lines().collect();
        let mut r = Reference::new();
        for e in body {
            let req: Request = serde_json::from_value(e["request"].clone()).unwrap();
            let reply = serde_json::to_value(r.call(&req).unwrap()).unwrap();
            assert_eq!(reply, e["reply"], "{id}: {}", e["request"]["op"]);
            // The line is the one of the step that made the request.
            if let (Some(line), Some(key)) = (e["line"].as_u64(), e["key"].as_str()) {
                let l = source[line as usize - 1].trim_start();
                assert!(l.starts_with(&format!("- {key}:")), "{id}:{line}: {l}");
            } else {
                assert_eq!(req.op(), "drop");
            }
            // Each byte string is also a file of its own, with the same bytes.
            for (key, name) in e["files"].as_object().unwrap() {
                let (side, field) = key.split_once('.').unwrap();
                let b64 = if let Some(i) = field.strip_prefix("library[") {
                    let i: usize = i.trim_end_matches(']').parse().unwrap();
                    e[side]["library"][i].as_str().unwrap()
                } else {
                    e[side][field].as_str().unwrap()
                };
                let bytes = std::fs::read(d.join(name.as_str().unwrap())).unwrap();
                assert_eq!(
                    base64::engine::general_purpose::STANDARD.encode(&bytes),
                    b64,
                    "{id}: {key}"
                );
                files += 1;
            }
            for side in ["request", "reply"] {
                for k in ["tile", "bytes"] {
                    if e[side].get(k).is_some() {
                        assert!(e["files"].get(format!("{side}.{k}")).is_some(), "{id}");
                    }
                }
            }
            exchanges += 1;
        }
    }
    assert!(exchanges > 100 && files > 50, "{exchanges} {files}");
    // A folder that is not a trace is refused before the run; the trace above is replaced.
    std::fs::write(t.0.join("other.txt"), "mine").unwrap();
    let o = onav(&["run", "--filter", "snapshot/*", "--trace", &t.path("")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("not an earlier trace"),
        "{}",
        stderr(&o)
    );
    let o = run(false);
    assert_eq!(o.status.code(), Some(0));
    assert!(!t.0.join("trace/snapshot").exists());
}

#[test]
fn comparing_with_the_reference_names_the_first_difference() {
    let t = Temp::new("compare");
    let dir = t.path("trace");
    let flip = testee("--mutant flip-snapshot-byte");
    let o = onav(&[
        "run",
        "--testee",
        &flip,
        "--compare-reference",
        "--filter",
        "snapshot/*",
        "--trace",
        &dir,
    ]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    let fails: Vec<&str> = out.lines().filter(|l| l.starts_with("FAIL")).collect();
    assert!(!fails.is_empty());
    // Every failure is traced back to a snapshot that differs from the reference's, with the
    // structural first difference.
    for f in &fails {
        assert!(
            f.contains("from the reference: step ")
                && f.contains("snapshot: bytes differ from the reference's"),
            "{f}"
        );
        assert!(f.contains("first difference at byte"), "{f}");
        assert!(f.contains(".yaml:") && f.contains(" (spec: "), "{f}");
    }
    // Without the comparison the same run fails fewer cases: y_ cases that compare the mutant
    // with itself pass.
    let plain = stdout(&onav(&["run", "--testee", &flip, "--filter", "snapshot/*"]));
    assert!(counts(&plain).1 < counts(&out).1, "{plain}");
    // The transcript holds the reference's reply beside the testee's.
    // Every failing case has a folder, and only those.
    let traced = transcripts(&t.0.join("trace/snapshot"));
    assert_eq!(traced.len(), fails.len());
    let (d, any) = traced
        .iter()
        .find(|(_, t)| t.contains("\"difference\""))
        .expect("a transcript with a difference");
    let e: Value = any
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|v| v.get("difference").is_some())
        .unwrap();
    assert_eq!(e["request"]["op"], "snapshot");
    assert_ne!(e["reply"]["bytes"], e["reference"]["bytes"]);
    // Both snapshots are files a port author gives to `onav diff`.
    let file = |k: &str| {
        d.join(e["files"][k].as_str().unwrap())
            .display()
            .to_string()
    };
    let o = onav(&["diff", &file("reply.bytes"), &file("reference.bytes")]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    // The folder also holds the pictures (conformance §4.8): the two snapshots drawn side by
    // side with the first difference written out, and the testee's last state.
    let svg = |n: &str| std::fs::read_to_string(d.join(n)).unwrap_or_else(|e| panic!("{n}: {e}"));
    let difference = svg("difference.svg");
    let doc = roxmltree::Document::parse(&difference).expect("well-formed SVG");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    assert!(difference.contains("first difference"), "{difference}");
    assert!(difference.contains("expected (reference)") && difference.contains("got (testee)"));
    roxmltree::Document::parse(&svg("got.svg")).expect("well-formed SVG");
}

#[test]
fn failure_lists_are_written_updated_and_checked_for_stale_lines() {
    let t = Temp::new("lists");
    let list = t.path("port.tsv");
    let flip = testee("--mutant flip-snapshot-byte");
    let good = testee("");
    let o = onav(&[
        "run",
        "--testee",
        &flip,
        "--filter",
        "navmesh/*",
        "--write-failure-list",
        &list,
    ]);
    assert_eq!(o.status.code(), Some(1));
    let failed = counts(&stdout(&o)).1;
    let text = std::fs::read_to_string(&list).unwrap();
    assert_eq!(
        text.lines().filter(|l| !l.starts_with('#')).count(),
        failed,
        "{text}"
    );
    // With the list the same run passes, its failures expected.
    let o = onav(&[
        "run",
        "--testee",
        &flip,
        "--filter",
        "navmesh/*",
        "--failure-list",
        &list,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).contains(&format!("{failed} expected failures (failure list)")));
    // Fixed: the run fails (listed cases pass), and the update empties the list.
    let o = onav(&[
        "run",
        "--testee",
        &good,
        "--filter",
        "navmesh/*",
        "--update-failure-list",
        &list,
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("remove it from the list"));
    assert!(
        stderr(&o).contains(&format!("kept 0 entries, removed {failed} (")),
        "{}",
        stderr(&o)
    );
    let text = std::fs::read_to_string(&list).unwrap();
    assert!(text.lines().all(|l| l.starts_with('#')), "{text}");
    let o = onav(&[
        "run",
        "--testee",
        &good,
        "--filter",
        "navmesh/*",
        "--failure-list",
        &list,
    ]);
    assert_eq!(o.status.code(), Some(0));
    // Lines matching no case warn, and are an error with --strict-failure-list.
    std::fs::write(
        &list,
        "# port\nnavmesh/n_no-such-case\tfail\nNAVMESH/*\tcrash\n",
    )
    .unwrap();
    let o = onav(&[
        "run",
        "--filter",
        "tile/*",
        "--threads",
        "1",
        "--failure-list",
        &list,
    ]);
    assert_eq!(o.status.code(), Some(0));
    let err = stderr(&o);
    assert!(
        err.contains("line 2: navmesh/n_no-such-case matches no case of the suite"),
        "{err}"
    );
    assert!(err.contains("line 3: NAVMESH/* matches no case"), "{err}");
    let o = onav(&[
        "run",
        "--filter",
        "tile/*",
        "--failure-list",
        &list,
        "--strict-failure-list",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("lines 2, 3 are entries matching no case"),
        "{}",
        stderr(&o)
    );
    assert!(stdout(&o).is_empty(), "nothing ran");
}

/// A root holding the suite's scenarios and goldens, one golden made stale and one scenario that
/// fails on purpose (sorting before the golden's case).
#[test]
fn fail_lines_put_golden_mismatches_first_and_name_file_step_and_anchors() {
    let t = Temp::new("golden-first");
    for d in ["scenarios", "golden"] {
        copy_dir(&root().join(d), &t.0.join(d));
    }
    let manifest = t.0.join("golden/manifest.tsv");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let key = "navmesh/y_snapshot-bytes/full";
    let stale: String = text
        .lines()
        .map(|l| match l.split('\t').collect::<Vec<_>>()[..] {
            [k, len, _] if k == key => format!("{k}\t{len}\t{}\n", "0".repeat(64)),
            _ => format!("{l}\n"),
        })
        .collect();
    assert_ne!(stale, text, "the manifest has {key}");
    std::fs::write(&manifest, stale).unwrap();
    let wrong = t.0.join("scenarios/meshfile/n_a-wrong-expectation.yaml");
    std::fs::write(
        &wrong,
        "schema: 1\nid: meshfile/n_a-wrong-expectation\ntitle: Fails on purpose\nclass: reject\n\
         spec: [navmesh-format.md#t1]\nfeatures: [tile]\nsteps:\n  - bytes: {name: b, hex: '00'}\n\
         \n  - parse_tile: {tile: b}\n  - expect: {error: {class: format, field: 'version', offset: 4}}\n",
    )
    .unwrap();
    let golden_case = t.0.join("scenarios/navmesh/y_snapshot-bytes.yaml");
    let root = t.0.display().to_string();
    let o = onav(&[
        "--root",
        &root,
        "run",
        "--threads",
        "1",
        &wrong.display().to_string(),
        &golden_case.display().to_string(),
    ]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    let fails: Vec<&str> = out.lines().filter(|l| l.starts_with("FAIL")).collect();
    assert_eq!(fails.len(), 2, "{out}");
    assert!(
        fails[0].starts_with(
            "FAIL  navmesh/y_snapshot-bytes [fail] scenarios/navmesh/y_snapshot-bytes.yaml:"
        ) && fails[0].contains(": stale golden navmesh/y_snapshot-bytes/full"),
        "{out}"
    );
    assert!(
        fails[1].starts_with(
            "FAIL  meshfile/n_a-wrong-expectation [fail] scenarios/meshfile/n_a-wrong-expectation.yaml:10: step 2 (parse_tile): "
        ) && fails[1].ends_with(" (spec: navmesh-format.md#t1)"),
        "{out}"
    );
    // The golden's line is the step whose output it is.
    let line: usize = fails[0]
        .split(".yaml:")
        .nth(1)
        .unwrap()
        .split(':')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let src = std::fs::read_to_string(&golden_case).unwrap();
    let snapshot_step = src.lines().nth(line - 1).unwrap();
    assert!(
        snapshot_step.trim_start().starts_with("- snapshot:"),
        "{snapshot_step}"
    );
}

/// A testee whose snapshot bytes are wrong fails a later step (the restore rejects them); the
/// report still names the golden that differs first, at the snapshot's line, then that failure.
#[test]
fn a_golden_that_differs_before_a_later_failure_is_named_first() {
    let flip = testee("--mutant flip-snapshot-byte");
    let o = onav(&[
        "run",
        "--testee",
        &flip,
        "--filter",
        "snapshot/y_continue-full",
        "--format",
        "json",
    ]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    let case: serde_json::Value = out
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["case"] == "snapshot/y_continue-full")
        .expect("the case's line");
    let message = case["message"].as_str().unwrap();
    assert_eq!(case["golden"], true, "{out}");
    assert_eq!(case["status"], "fail", "{out}");
    assert!(
        message.contains("snapshot/y_continue-full/s")
            && message.contains("; then step 29 (restore)"),
        "{message}"
    );
    let src =
        std::fs::read_to_string(root().join("scenarios/snapshot/y_continue-full.yaml")).unwrap();
    let line = case["line"].as_u64().unwrap() as usize;
    assert!(
        src.lines()
            .nth(line - 1)
            .unwrap()
            .trim_start()
            .starts_with("- snapshot:"),
        "line {line}"
    );
}
