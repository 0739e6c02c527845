//! Every command of the `onav` binary answers bad arguments — missing files, bad numbers, bad
//! globs, folders for files, unreadable and empty files — with a message and exit status 2, and
//! never panics (`spec/conformance.md` §4.5). Each case runs the built binary.

use std::path::PathBuf;
use std::process::{Command, Output};

use super::kit::{copy_dir, root, Temp};

/// A scratch folder with an empty file, a file that is not UTF-8, a file that is not JSON and an
/// empty folder; removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Self {
        let p = std::env::temp_dir().join(format!("onav-cli-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(p.join("empty-folder")).unwrap();
        std::fs::write(p.join("empty"), b"").unwrap();
        std::fs::write(p.join("binary"), [0xff, 0xfe, 0x00, 0x80, 0x81]).unwrap();
        std::fs::write(p.join("text"), b"hello, not json\n").unwrap();
        std::fs::write(p.join("schema2.json"), br#"{"schema":2,"jobs":[]}"#).unwrap();
        std::fs::write(p.join("nojobs.json"), br#"{"schema":1,"jobs":[]}"#).unwrap();
        let one = format!(
            r#"{{"schema":1,"impl":"x","environment":{{"arch":"x86_64","endianness":"little","os":"linux","pointer_width":64,"threads":[1]}},"jobs":[{{"threads":1,"cases":{{"tile/y_a/t":{{"length":1,"sha256":"{}"}}}}}}]}}"#,
            "0".repeat(64)
        );
        std::fs::write(p.join("one-job.json"), one).unwrap();
        Scratch(p)
    }

    fn path(&self, name: &str) -> String {
        self.0.join(name).display().to_string()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn onav(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_onav"))
        .args(args)
        .current_dir(root())
        .env_remove("CI")
        .output()
        .expect("onav runs")
}

/// Runs `args` and checks exit status 2, a message and no panic; returns standard error.
fn usage_error(args: &[&str]) -> String {
    let out = onav(args);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(
        out.status.code(),
        Some(2),
        "onav {}: exit {:?}\nstdout: {}\nstderr: {err}",
        args.join(" "),
        out.status.code(),
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(
        !err.contains("panicked") && !err.contains("RUST_BACKTRACE"),
        "onav {}: {err}",
        args.join(" ")
    );
    assert!(
        !err.trim().is_empty(),
        "onav {}: no message on standard error",
        args.join(" ")
    );
    err
}

#[test]
fn every_command_answers_bad_arguments_with_exit_2() {
    let s = Scratch::new("args");
    let (empty, binary, text, folder) = (
        s.path("empty"),
        s.path("binary"),
        s.path("text"),
        s.path("empty-folder"),
    );
    let (schema2, nojobs) = (s.path("schema2.json"), s.path("nojobs.json"));
    let one_job = s.path("one-job.json");
    let not_a_trace = s.path("");
    // A path whose way runs through an existing file.
    let below_file = s.path("empty/list.tsv");
    // A folder holding other files than a compiled suite.
    let scratch_root = s.0.display().to_string();
    // A root with scenarios/ but no spec/.
    let no_spec = s.path("no-spec");
    std::fs::create_dir_all(s.0.join("no-spec/scenarios")).unwrap();
    let exe = env!("CARGO_BIN_EXE_onav");
    let testee = format!("'{exe}' testee");
    let cases: Vec<Vec<&str>> = vec![
        // The binary itself.
        vec![],
        vec!["no-such-command"],
        vec!["--root", "/nonexistent/onav-root", "run"],
        vec!["--root", &folder, "run"],
        // run: numbers.
        vec!["run", "--threads", "0"],
        vec!["run", "--threads", "1025"],
        vec!["run", "--threads", "100000"],
        vec!["run", "--threads", "abc"],
        vec!["run", "--threads", "1,,2"],
        vec!["run", "--threads", ""],
        vec!["run", "--threads", "-1"],
        vec!["run", "--format", "xml"],
        vec!["run", "--timeout", "5"],
        vec!["run", "--testee", &testee, "--timeout", "0"],
        vec!["run", "--testee", &testee, "--timeout", "-1"],
        vec!["run", "--testee", &testee, "--timeout", "nan"],
        vec!["run", "--testee", &testee, "--timeout", "abc"],
        vec!["run", "--testee", &testee, "--run-timeout", "1e300"],
        vec!["run", "--testee", &testee, "--give-up-after", "-2"],
        vec!["run", "--testee", &testee, "--threads", "2"],
        vec!["run", "--compare-reference"],
        // run: selections.
        vec!["run", "--filter", "nomatch*"],
        vec!["run", "--filter", "TILE/*"],
        vec!["run", "--filter", "tile/y_hex-tile.yaml"],
        vec!["run", "--filter", ""],
        vec!["run", "nosuch.yaml"],
        vec!["run", &folder],
        vec!["run", "scenarios/reference-failures.tsv"],
        vec!["run", &empty],
        // run: files.
        vec!["run", "--failure-list", "nosuch.tsv"],
        vec!["run", "--failure-list", &folder],
        vec!["run", "--failure-list", &binary],
        vec!["run", "--failure-list", &text],
        vec!["run", "--write-failure-list", &folder],
        vec!["run", "--write-failure-list", &below_file],
        vec!["run", "--update-failure-list", &binary],
        vec![
            "run",
            "--failure-list",
            &empty,
            "--update-failure-list",
            &empty,
        ],
        vec!["run", "--trace", &empty],
        vec!["run", "--trace", &not_a_trace],
        vec!["run", "--trace-all"],
        // run: testees.
        vec!["run", "--testee", ""],
        vec!["run", "--testee", "/nonexistent/port-testee"],
        vec!["run", "--testee", &folder],
        vec!["run", "--testee", "true"],
        vec!["run", "--testee", "echo hello world"],
        vec!["run", "--testee", "'unterminated"],
        // bless.
        vec!["bless", "--case", "nosuch/*"],
        vec!["bless", "--case", "tile/n_*"],
        vec!["bless", "--case"],
        vec!["--root", &folder, "bless"],
        // matrix.
        vec!["matrix", "--threads", "0"],
        vec!["matrix", "--threads", "2000"],
        vec!["matrix", "--threads", "x"],
        vec!["matrix", "--threads", "1", "--out", &folder],
        vec!["matrix", "--threads", "1", "--out", &below_file],
        vec!["--root", &folder, "matrix"],
        // matrix-compare.
        vec!["matrix-compare"],
        vec!["matrix-compare", "nosuch.json"],
        vec!["matrix-compare", &folder],
        vec!["matrix-compare", &empty],
        vec!["matrix-compare", &binary],
        vec!["matrix-compare", &text],
        vec!["matrix-compare", &schema2],
        vec!["matrix-compare", &nojobs],
        vec!["matrix-compare", "--golden", "nosuch.tsv", &one_job],
        // compile.
        vec!["compile"],
        vec!["compile", "--out", "README.md"],
        vec!["compile", "--out", &scratch_root],
        vec!["compile", "--out", &below_file],
        vec!["--root", &folder, "compile", "--out", &folder],
        // spec-index.
        vec!["spec-index", "--bogus"],
        vec!["--root", &folder, "spec-index"],
        vec!["--root", &no_spec, "spec-index"],
        // inspect.
        vec!["inspect"],
        vec!["inspect", "nosuch.bin"],
        vec!["inspect", &folder],
        vec!["inspect", &empty],
        vec!["inspect", &binary],
        vec!["inspect", &text],
        vec!["inspect", "--json", &empty],
        vec!["inspect", "golden/manifest.tsv", "--library", "nosuch.bin"],
        vec!["inspect", "golden/manifest.tsv", "--library", &text],
        vec![
            "inspect",
            "golden/bytes/navmesh/y_snapshot-bytes/referenced.bin",
        ],
        // diff.
        vec!["diff"],
        vec!["diff", "README.md"],
        vec!["diff", "nosuch.a", "README.md"],
        vec!["diff", "README.md", "nosuch.b"],
        vec!["diff", &folder, "README.md"],
        vec!["diff", "README.md", "README.md", "--svg", &folder],
        // testee.
        vec!["testee", "--mutant", "bogus"],
        vec!["testee", "--mutant", "crash-on-op:0"],
        vec!["testee", "extra-argument"],
    ];
    let mut messages = Vec::new();
    for args in &cases {
        messages.push(format!(
            "onav {}: {}",
            args.join(" "),
            usage_error(args).lines().next().unwrap_or("")
        ));
    }
    // The messages say what was wrong, not only that something was.
    let all = messages.join("\n");
    for want in [
        "0 is not a thread count of 1 to 1024",
        "no case to run: --filter \"TILE/*\"; case ids are lower case",
        "nosuch.yaml: no such scenario file or folder",
        "not a scenario (a .yaml file below scenarios/, or a folder)",
        "has no scenarios/ folder",
        "nothing to bless: no case matches --case \"nosuch/*\"",
        "no verdict: not a tile, mesh file or snapshot",
        "cannot start testee",
        "schema 2 is not the matrix schema",
        "neither empty nor a compiled suite",
        "nosuch.tsv: No such file",
        "is a folder, not a file",
        "is a file, so no folder can be made below it",
    ] {
        assert!(all.contains(want), "no message {want:?} in:\n{all}");
    }
}

/// One rule for every path a command writes (`spec/conformance.md` §4.5): missing parent folders
/// are created; a file where a folder is (or a folder where a file is), or a way through an
/// existing file, is refused with exit 2 before any work, and nothing is written.
#[test]
fn every_output_path_follows_one_rule() {
    let s = Scratch::new("outputs");
    let tile = "golden/bytes/build3d/y_flat-floor/floor-c0-r0-l0.bin";
    let obj = s.path("floor.obj");
    std::fs::write(&obj, "v 0 0 0\nv 0 0 6\nv 6 0 6\nv 6 0 0\nf 1 2 3 4\n").unwrap();
    let run = |extra: &[&str]| {
        let mut a = vec![
            "run",
            "--filter",
            "tile/y_agent-negative-zero",
            "--threads",
            "1",
        ];
        a.extend_from_slice(extra);
        a.iter().map(|x| (*x).to_owned()).collect::<Vec<String>>()
    };
    // (command with OUT for its output, what it writes: a file or a folder).
    let commands: Vec<(Vec<String>, bool)> = vec![
        (run(&["--write-failure-list", "OUT"]), false),
        (run(&["--update-failure-list", "OUT"]), false),
        (run(&["--trace", "OUT", "--trace-all"]), true),
        (
            ["matrix", "--threads", "1", "--out", "OUT"]
                .map(String::from)
                .to_vec(),
            false,
        ),
        (["compile", "--out", "OUT"].map(String::from).to_vec(), true),
        (
            ["build", &obj, "--threads", "1", "--out", "OUT"]
                .map(String::from)
                .to_vec(),
            false,
        ),
        (
            ["diff", tile, tile, "--svg", "OUT"]
                .map(String::from)
                .to_vec(),
            false,
        ),
        (
            ["draw", tile, "--out", "OUT"].map(String::from).to_vec(),
            false,
        ),
    ];
    for (i, (args, folder)) in commands.iter().enumerate() {
        let with = |out: &str| -> Vec<String> {
            args.iter()
                .map(|a| {
                    if a == "OUT" {
                        out.to_owned()
                    } else {
                        a.clone()
                    }
                })
                .collect()
        };
        let show = args.join(" ");
        // Missing folders on the way are made.
        let deep = s.0.join(format!("new-{i}/a/b/out"));
        let a = with(&deep.display().to_string());
        let out = onav(&a.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(
            out.status.code(),
            Some(0),
            "{show}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(deep.is_dir(), *folder, "{show}");
        assert_eq!(deep.is_file(), !*folder, "{show}");
        // A way through an existing file, and the wrong kind of thing at the path itself.
        let wrong = if *folder {
            s.path("text")
        } else {
            s.path("empty-folder")
        };
        for (bad, want) in [
            (
                s.path("text/x/out"),
                "is a file, so no folder can be made below it",
            ),
            (
                wrong,
                if *folder {
                    "is a file, not a folder"
                } else {
                    "is a folder, not a file"
                },
            ),
        ] {
            let a = with(&bad);
            let a: Vec<&str> = a.iter().map(String::as_str).collect();
            let err = usage_error(&a);
            assert!(err.contains(want), "{show}: {err}");
            assert!(onav(&a).stdout.is_empty(), "{show}: work was done");
        }
        assert_eq!(
            std::fs::read(s.0.join("text")).unwrap(),
            b"hello, not json\n"
        );
        assert!(std::fs::read_dir(s.0.join("empty-folder"))
            .unwrap()
            .next()
            .is_none());
    }
}

/// `bless` follows the same rule for the goldens it writes below `golden/` (§4.5): a missing
/// folder is made again, and a file where a folder must be, or a folder where a bytes file must
/// be, is refused with exit 2 before any case runs, leaving the manifest as it was.
#[test]
fn bless_output_paths_follow_the_one_rule() {
    let t = Temp::new("bless-paths");
    for d in ["scenarios", "spec", "golden"] {
        copy_dir(&root().join(d), &t.0.join(d));
    }
    let r = t.0.display().to_string();
    let bless = ["--root", &r, "bless", "--case", "query/y_raycast-wall"];
    let folder = t.0.join("golden/bytes/query/y_raycast-wall");
    let file = folder.join("raycast.bin");
    let manifest = t.0.join("golden/manifest.tsv");
    let (bytes, listed) = (
        std::fs::read(&file).unwrap(),
        std::fs::read(&manifest).unwrap(),
    );
    // A missing folder is made again, and the golden written is the one that was there.
    std::fs::remove_dir_all(&folder).unwrap();
    let out = onav(&bless);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read(&file).unwrap(), bytes);
    assert_eq!(std::fs::read(&manifest).unwrap(), listed);
    // A file where the case's folder must be.
    std::fs::remove_dir_all(&folder).unwrap();
    std::fs::write(&folder, b"not a folder").unwrap();
    let err = usage_error(&bless);
    assert!(
        err.contains("is a file, so no folder can be made below it"),
        "{err}"
    );
    assert_eq!(std::fs::read(&folder).unwrap(), b"not a folder");
    // A folder where the bytes file must be.
    std::fs::remove_file(&folder).unwrap();
    std::fs::create_dir_all(&file).unwrap();
    let err = usage_error(&bless);
    assert!(err.contains("is a folder, not a file"), "{err}");
    assert!(file.is_dir());
    assert_eq!(std::fs::read(&manifest).unwrap(), listed);
}

#[test]
fn inspect_exit_status_is_its_verdict() {
    let s = Scratch::new("inspect");
    let full =
        std::fs::read(root().join("golden/bytes/navmesh/y_snapshot-bytes/full.bin")).unwrap();
    let cut = s.path("cut.onps");
    std::fs::write(&cut, &full[..300]).unwrap();
    let status = |args: &[&str]| onav(args).status.code();
    let g = "golden/bytes/navmesh/y_snapshot-bytes/full.bin";
    assert_eq!(status(&["inspect", g]), Some(0));
    assert_eq!(status(&["inspect", "--json", g]), Some(0));
    assert_eq!(status(&["inspect", &cut]), Some(1));
    assert_eq!(status(&["inspect", "--json", &cut]), Some(1));
    let r = "golden/bytes/navmesh/y_snapshot-bytes/referenced.bin";
    assert_eq!(status(&["inspect", r, "--library", g]), Some(0));
    assert_eq!(status(&["inspect", r]), Some(2));
    // The JSON form is one object whose verdict is the text form's.
    let out = onav(&["inspect", "--json", &cut]);
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["result"]["verdict"], "rejected");
    assert_eq!(j["result"]["class"], "format");
    let text = String::from_utf8(onav(&["inspect", &cut]).stdout).unwrap();
    assert!(text.ends_with(&format!(
        "result: {}\n",
        j["result"]["text"].as_str().unwrap()
    )));
}

/// A reader that stops early (`onav inspect F | head -1`) ends the command with status 141 and
/// no panic; `println!` panicked there.
#[test]
fn a_closed_standard_output_ends_quietly() {
    use std::io::{BufRead as _, BufReader};
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_onav"))
        .args(["inspect", "golden/bytes/navmesh/y_snapshot-bytes/full.bin"])
        .current_dir(root())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("onav runs");
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("ONPS"), "{first}");
    // The pipe is closed here, long before the decode's hundreds of lines are written.
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(out.status.code(), Some(141), "{err}");
}
