//! `onav build` end to end: the demo mesh `dungeon.obj` becomes a mesh file holding exactly the
//! tiles of the builder's `build_obj` (`spec/build3d.md` B2: the command builds cell by cell
//! through `Plan::prepare` and `Plan::finish`), which `onav inspect` reads and names by its
//! settings digest; bad arguments and bad files end with a message and exit status 2, never a
//! panic.

use std::path::Path;
use std::process::{Command, Output};

use super::kit::{root, Temp};

fn onav(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_onav"))
        .args(args)
        .output()
        .expect("onav runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn the_dungeon_builds_to_the_tiles_of_build_obj_and_inspects() {
    let t = Temp::new("dungeon");
    let mesh = root().join("scenarios/build3d/meshes/dungeon.obj");
    let out = t.path("dungeon.onms");
    let o = onav(&[
        "build",
        &mesh.display().to_string(),
        "--out",
        &out,
        "--threads",
        "2",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let stdout = text(&o.stdout);
    assert!(stdout.contains("tiles: 26 in 24 cells"), "{stdout}");
    assert!(stdout.contains("on 2 threads"), "{stdout}");
    let file = std::fs::read(&out).unwrap();
    let settings = onav_build3d::Settings::new(onav_build3d::SettingsSpec::default()).unwrap();
    let b = onav_build3d::build_obj(&std::fs::read(&mesh).unwrap(), settings.to_bytes()).unwrap();
    assert!(
        onav::write_mesh(&b.to_mesh().unwrap()) == file,
        "the command's mesh file holds the tiles of build_obj, in its slots"
    );
    let digest = b.params.digest().to_hex();
    assert!(stdout.contains(&digest), "{stdout}");
    let i = onav(&["inspect", &out]);
    assert!(i.status.success());
    let shown = text(&i.stdout);
    assert!(
        shown.contains(&format!("26 tiles; settings digest {digest}")),
        "{}",
        shown.lines().last().unwrap_or_default()
    );
    // The settings file holds the fields of spec/build3d.md §3.1; the demo values are the
    // default, so a file that repeats one of them builds the same bytes.
    let yaml = t.text_file("s.yaml", "cell_size: 0.3\ntile_size: 48\n");
    let again = t.path("again.onms");
    let o = onav(&[
        "build",
        &mesh.display().to_string(),
        "--settings",
        &yaml,
        "--out",
        &again,
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(std::fs::read(&again).unwrap() == file);
}

#[test]
fn bad_arguments_and_bad_files_exit_2_with_a_message() {
    let t = Temp::new("bad");
    let good = t.text_file(
        "floor.obj",
        "v 0 0 0\nv 0 0 6\nv 6 0 6\nv 6 0 0\nf 1 2 3 4\n",
    );
    let bad_obj = t.text_file("bad.obj", "v 0 0 0\nv 0 x 6\n");
    let far = t.text_file("far.obj", "v 0 0 0\nv 0 0 1\nv 1e12 0 0\nf 1 2 3\n");
    let zero = t.text_file("zero.yaml", "cell_size: 0\n");
    let unknown = t.text_file("unknown.yaml", "cell_sise: 0.3\n");
    let not_yaml = t.text_file("broken.yaml", "cell_size: [0.3\n");
    let wrong_type = t.text_file("type.yaml", "cell_size: fine\n");
    let volumes = t.text_file("volumes.yaml", "volumes: 3\n");
    let clockwise_inside_out = t.text_file(
        "inside-out.yaml",
        "volumes: [{area: 5, min_y: 1, max_y: 0, polygon: [[0, 0], [0, 1], [1, 1]]}]\n",
    );
    let binary = t.0.join("binary.obj");
    std::fs::write(&binary, b"v \xff\xfe 0 0\n\x00\x01").unwrap();
    let binary = binary.display().to_string();
    let not_utf8 = t.0.join("latin1.yaml");
    std::fs::write(&not_utf8, b"cell_size: 0.3 # \xe9\n").unwrap();
    let not_utf8 = not_utf8.display().to_string();
    let out = t.path("out.onms");
    let missing = t.path("missing.obj");
    let dir = t.0.display().to_string();
    let under_a_file = format!("{good}/out.onms");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["build"], "INPUT"),
        (vec!["build", &good], "--out"),
        (
            vec!["build", &good, "--out", &out, "--threads", "0"],
            "threads",
        ),
        (
            vec!["build", &good, "--out", &out, "--threads", "many"],
            "threads",
        ),
        (vec!["build", &missing, "--out", &out], "missing.obj"),
        (vec!["build", &bad_obj, "--out", &out], "line 2"),
        (vec!["build", &far, "--out", &out], "GridCells"),
        (
            vec!["build", &good, "--settings", &zero, "--out", &out],
            "cell_size",
        ),
        (
            vec!["build", &good, "--settings", &unknown, "--out", &out],
            "cell_sise",
        ),
        (
            vec!["build", &good, "--settings", &not_yaml, "--out", &out],
            "broken.yaml",
        ),
        (
            vec!["build", &good, "--settings", &missing, "--out", &out],
            "missing.obj",
        ),
        (
            vec!["build", &good, "--settings", &wrong_type, "--out", &out],
            "type.yaml",
        ),
        (
            vec!["build", &good, "--settings", &volumes, "--out", &out],
            "volumes.yaml",
        ),
        (
            vec![
                "build",
                &good,
                "--settings",
                &clockwise_inside_out,
                "--out",
                &out,
            ],
            "max_y",
        ),
        (
            vec!["build", &good, "--settings", &not_utf8, "--out", &out],
            "latin1.yaml",
        ),
        (vec!["build", &binary, "--out", &out], "line 1"),
        (vec!["build", &dir, "--out", &out], &dir),
        (vec!["build", &good, "--out", &dir], &dir),
        (vec!["build", &good, "--out", &under_a_file], "floor.obj"),
        (
            vec!["build", &good, "--out", &out, "--threads", "-1"],
            "'-1'",
        ),
        (vec!["build", &good, "--out", &out, "--bogus"], "--bogus"),
    ];
    for (args, says) in cases {
        let o = onav(&args);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?} should say {says:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    assert!(
        !Path::new(&out).exists(),
        "nothing is written when the build cannot run"
    );
}

/// A file with no face is not OBJ geometry (B4 skips every other line, so this README would
/// read as an empty OBJ): exit 2 naming the file, nothing written. Faces that give no walkable
/// surface are geometry: the empty mesh file is written, with a warning naming why.
#[test]
fn an_input_without_faces_is_refused_and_an_empty_build_warns() {
    let t = Temp::new("empty");
    let no_faces = t.text_file("points.obj", "v 0 0 0\nv 0 0 6\nv 6 0 6\n");
    let readme = root().join("README.md").display().to_string();
    let nothing = t.text_file("nothing.obj", "");
    for input in [&no_faces, &readme, &nothing] {
        let out = t.path("refused.onms");
        let o = onav(&["build", input, "--out", &out]);
        let stderr = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{input}: {stderr}");
        assert!(
            stderr.contains(&format!("{input}: not OBJ geometry: it has no face")),
            "{input}: {stderr}"
        );
        assert!(!Path::new(&out).exists(), "{input}: a file was written");
    }
    let wall = t.text_file(
        "wall.obj",
        "v 0 0 0\nv 0 6 0\nv 6 6 0\nv 6 0 0\nf 1 2 3 4\n",
    );
    // What exporters write around the faces: comments, objects, groups, normals, texture
    // coordinates, materials, smoothing, CRLF line ends.
    let floor = t.text_file(
        "floor.obj",
        "# exported\r\nmtllib floor.mtl\r\no Floor\r\ng floor\r\nv 0 0 0\r\nv 0 0 6\r\n\
         v 6 0 6\r\nv 6 0 0\r\nvt 0 0\r\nvn 0 1 0\r\nusemtl stone\r\ns off\r\n\
         f 1/1/1 2/1/1 3/1/1 4/1/1\r\n",
    );
    for (input, why) in [
        (&wall, Some("no triangle gave a walkable surface")),
        (&floor, None),
    ] {
        let out = t.path("out.onms");
        let o = onav(&["build", input, "--out", &out]);
        assert!(o.status.success(), "{input}: {}", text(&o.stderr));
        assert!(Path::new(&out).is_file(), "{input}");
        let stderr = text(&o.stderr);
        match why {
            Some(why) => assert!(
                stderr.contains(&format!("warning: {input}: {why}")),
                "{input}: {stderr}"
            ),
            None => assert!(!stderr.contains("warning"), "{input}: {stderr}"),
        }
    }
}
