//! The testee client against real testee processes: `onav testee`, its mutants, and programs that
//! are not testees at all. Every failure must be classified exactly: a crash is
//! `BackendFailure::Crash`, a hang is `BackendFailure::Timeout` within the timeout, a wrong answer
//! is an answer the runner can tell from the right one.

use std::time::{Duration, Instant};

use onav::{SnapshotMode, TiledNavMesh, WorldSpec};
use onav_harness::{
    b64, quote_word, testee_backend, unb64, Backend, BackendFailure, Reply, Request, TesteeBackend,
    TesteeError,
};
use serde_json::Value;

const TIMEOUT: Duration = Duration::from_secs(20);

fn cmd(mutant: Option<&str>) -> String {
    let exe = quote_word(env!("CARGO_BIN_EXE_onav"));
    match mutant {
        None => format!("{exe} testee"),
        Some(m) => format!("{exe} testee --mutant {m}"),
    }
}

fn spawn(mutant: Option<&str>, timeout: Duration) -> TesteeBackend {
    TesteeBackend::spawn(&cmd(mutant), timeout).expect("testee starts")
}

fn world() -> WorldSpec {
    WorldSpec {
        columns: 2,
        rows: 1,
        quads: 2,
        links_per_tile: 1,
        ..WorldSpec::default()
    }
}

/// The same mesh built in process, to compare against.
fn local() -> TiledNavMesh {
    let w = world();
    let mut m = TiledNavMesh::new(w.params(3));
    for t in w.tiles() {
        m.add_tile(t).unwrap();
    }
    m
}

fn ok(r: Result<Reply, BackendFailure>) -> serde_json::Map<String, Value> {
    match r {
        Ok(Reply::Ok { fields }) => fields,
        r => panic!("expected ok, got {r:?}"),
    }
}

/// new_mesh and add_tile for every tile of the world; returns the handle.
fn build(t: &mut dyn Backend) -> Value {
    let w = world();
    let mesh = ok(t.call(&Request::NewMesh {
        params: b64(&w.params(3).to_bytes()),
    }))["mesh"]
        .clone();
    for tile in w.tiles() {
        ok(t.call(&Request::AddTile {
            mesh: mesh.clone(),
            tile: b64(&tile.to_bytes()),
        }));
    }
    mesh
}

fn snapshot(t: &mut dyn Backend, mesh: &Value, mode: &str) -> Vec<u8> {
    let f = ok(t.call(&Request::Snapshot {
        mesh: mesh.clone(),
        mode: mode.into(),
    }));
    unb64("bytes", f["bytes"].as_str().unwrap()).unwrap()
}

#[test]
fn a_correct_testee_matches_onav_byte_for_byte() {
    let mut t = spawn(None, TIMEOUT);
    assert!(!t.hello().implementation.is_empty());
    assert!(t.supports("restore") && !t.supports("no_such_op"));
    let mesh = build(&mut t);
    let m = local();
    for (mode, local_mode) in [
        ("full", SnapshotMode::Full),
        ("referenced", SnapshotMode::Referenced),
    ] {
        assert_eq!(snapshot(&mut t, &mesh, mode), m.snapshot(local_mode));
    }
    // Restore a Referenced snapshot against a library, then snapshot again.
    let lib: Vec<String> = world().tiles().iter().map(|t| b64(&t.to_bytes())).collect();
    let again = ok(t.call(&Request::Restore {
        bytes: b64(&m.snapshot(SnapshotMode::Referenced)),
        library: lib,
    }))["mesh"]
        .clone();
    assert_eq!(
        snapshot(&mut t, &again, "full"),
        m.snapshot(SnapshotMode::Full)
    );
    // Without the library the content id is unknown: a format rejection naming the slot.
    match t.call(&Request::Restore {
        bytes: b64(&m.snapshot(SnapshotMode::Referenced)),
        library: vec![],
    }) {
        Ok(Reply::Rejected { class, field, .. }) => {
            assert_eq!(
                (class.as_str(), field.as_str()),
                ("format", "slot[0].content_id")
            );
        }
        r => panic!("{r:?}"),
    }
    ok(t.call(&Request::Drop { mesh }));
    assert_eq!(t.restarts(), 0);
    // bye ends the process; the next request starts a new one.
    ok(t.call(&Request::Bye {}));
    ok(t.call(&Request::ContentId {
        tile: b64(&world().tiles()[0].to_bytes()),
    }));
    assert_eq!(t.restarts(), 1);
}

#[test]
fn the_runner_entry_point_gives_a_backend() {
    let mut t = testee_backend(&cmd(None)).unwrap();
    assert!(t.supports("snapshot"));
    assert!(!t.has_feature("no-such-feature"));
    let tile = world().tiles()[0].clone();
    let f = ok(t.call(&Request::ContentId {
        tile: b64(&tile.to_bytes()),
    }));
    assert_eq!(f["id"], Value::from(tile.content_id().to_hex()));
    assert!(testee_backend("").is_err());
    assert!(testee_backend("/nonexistent/testee").is_err());
}

#[test]
fn crash_on_op_is_a_crash_and_the_next_request_runs_on_a_fresh_process() {
    let mut t = spawn(Some("crash-on-op:2"), TIMEOUT);
    let params = b64(&world().params(3).to_bytes());
    let new_mesh = Request::NewMesh { params };
    ok(t.call(&new_mesh));
    match t.call(&new_mesh) {
        Err(BackendFailure::Crash(m)) => {
            assert!(m.contains("86"), "exit status in {m:?}");
            assert!(m.contains("mutant crash-on-op:2"), "stderr in {m:?}");
        }
        r => panic!("expected a crash, got {r:?}"),
    }
    assert_eq!(t.restarts(), 0);
    // A fresh process: its first op succeeds, its second crashes again.
    ok(t.call(&new_mesh));
    assert_eq!(t.restarts(), 1);
    assert!(matches!(t.call(&new_mesh), Err(BackendFailure::Crash(_))));
    ok(t.call(&new_mesh));
    assert_eq!(t.restarts(), 2);
}

#[test]
fn a_hang_is_a_timeout_within_the_timeout() {
    let timeout = Duration::from_millis(1500);
    let mut t = spawn(Some("hang-on:snapshot"), timeout);
    let mesh = build(&mut t);
    let start = Instant::now();
    let r = t.call(&Request::Snapshot {
        mesh,
        mode: "full".into(),
    });
    let took = start.elapsed();
    assert_eq!(r, Err(BackendFailure::Timeout));
    assert!(took >= timeout, "{took:?}");
    assert!(took < timeout + Duration::from_secs(3), "{took:?}");
    // The hung process was replaced.
    let mesh = build(&mut t);
    assert_eq!(t.restarts(), 1);
    assert!(matches!(
        t.call(&Request::Snapshot {
            mesh,
            mode: "referenced".into()
        }),
        Err(BackendFailure::Timeout)
    ));
}

#[test]
fn drops_after_a_hang_need_no_process_and_a_deadline_bounds_every_request() {
    let mut t = spawn(Some("hang-on:snapshot"), Duration::from_secs(20));
    let mesh = build(&mut t);
    // No request waits past the deadline, whatever the per-request timeout.
    let start = Instant::now();
    t.set_deadline(Some(start + Duration::from_millis(800)));
    let snap = Request::Snapshot {
        mesh: mesh.clone(),
        mode: "full".into(),
    };
    assert_eq!(t.call(&snap), Err(BackendFailure::Timeout));
    let took = start.elapsed();
    assert!(
        took >= Duration::from_millis(700) && took < Duration::from_secs(5),
        "{took:?}"
    );
    // The hung process is gone: dropping its mesh starts no new one.
    ok(t.call(&Request::Drop { mesh }));
    assert_eq!(t.restarts(), 0);
    // Past the deadline nothing is sent.
    let start = Instant::now();
    let tile = b64(&world().tiles()[0].to_bytes());
    assert_eq!(
        t.call(&Request::ContentId { tile: tile.clone() }),
        Err(BackendFailure::Timeout)
    );
    assert!(start.elapsed() < Duration::from_millis(200));
    assert_eq!(t.restarts(), 0);
    t.set_deadline(None);
    ok(t.call(&Request::ContentId { tile }));
    assert_eq!(t.restarts(), 1);
}

#[test]
fn a_flipped_snapshot_byte_is_detected() {
    let mut t = spawn(Some("flip-snapshot-byte"), TIMEOUT);
    let mesh = build(&mut t);
    let got = snapshot(&mut t, &mesh, "full");
    let want = local().snapshot(SnapshotMode::Full);
    assert_eq!(got.len(), want.len());
    let differing: Vec<usize> = (0..got.len()).filter(|&i| got[i] != want[i]).collect();
    assert_eq!(differing, [want.len() / 2]);
    let d = onav_harness::diff(&want, &got).to_string();
    assert!(d.starts_with("first difference: slot["), "{d}");
}

#[test]
fn accept_every_restore_accepts_garbage() {
    let mut t = spawn(Some("accept-every-restore"), TIMEOUT);
    let f = ok(t.call(&Request::Restore {
        bytes: b64(b"not a snapshot"),
        library: vec![],
    }));
    assert!(f.contains_key("mesh"));
    let mesh = build(&mut t);
    let before = snapshot(&mut t, &mesh, "full");
    ok(t.call(&Request::RestoreInto {
        mesh: mesh.clone(),
        bytes: b64(b"ONPS"),
        library: vec![],
    }));
    // A correct testee rejects the same bytes.
    let mut good = spawn(None, TIMEOUT);
    assert!(matches!(
        good.call(&Request::Restore {
            bytes: b64(b"not a snapshot"),
            library: vec![],
        }),
        Ok(Reply::Rejected { .. })
    ));
    // The mesh the mutant "restored into" did not change: snapshot → restore_into → snapshot
    // would not catch this mutant, an expected rejection does.
    assert_eq!(snapshot(&mut t, &mesh, "full"), before);
}

#[test]
fn reject_every_restore_rejects_a_valid_snapshot() {
    let mut t = spawn(Some("reject-every-restore"), TIMEOUT);
    match t.call(&Request::Restore {
        bytes: b64(&local().snapshot(SnapshotMode::Full)),
        library: vec![],
    }) {
        Ok(Reply::Rejected { class, field, .. }) => {
            assert_eq!((class.as_str(), field.as_str()), ("format", "magic"));
        }
        r => panic!("{r:?}"),
    }
}

#[cfg(unix)]
#[test]
fn a_reply_frame_over_the_limit_is_a_crash() {
    // Announces a frame of 4 GiB - 1 and then waits: the client must not allocate or wait for it.
    let start = Instant::now();
    let e = TesteeBackend::spawn(
        r"sh -c 'printf \\377\\377\\377\\377; exec sleep 30'",
        Duration::from_secs(10),
    )
    .unwrap_err();
    assert!(
        matches!(&e, TesteeError::HelloFailed(m) if m.contains("exceeds")),
        "{e}"
    );
    assert!(start.elapsed() < Duration::from_secs(5));
}

#[cfg(unix)]
#[test]
fn text_on_standard_output_is_named_as_such() {
    // A port that logs to standard output: its first 4 bytes are read as a frame length.
    let e = TesteeBackend::spawn(
        "sh -c 'echo starting my port; exec sleep 30'",
        Duration::from_secs(10),
    )
    .unwrap_err();
    assert!(
        matches!(&e, TesteeError::HelloFailed(m)
            if m.contains("exceeds") && m.contains("length bytes are the text \"star\"")
                && m.contains("standard output")),
        "{e}"
    );
    // Binary length bytes get no such hint.
    let e = TesteeBackend::spawn(
        r"sh -c 'printf \\377\\377\\377\\377; exec sleep 30'",
        Duration::from_secs(10),
    )
    .unwrap_err();
    assert!(!e.to_string().contains("text"), "{e}");
}

#[cfg(unix)]
#[test]
fn unlisted_ops_are_not_sent_and_a_malformed_reply_is_a_crash() {
    // A testee that answers hello, then sends a frame that is not a reply.
    let hello = br#"{"result":"ok","impl":"sh","ops":["new_mesh"],"features":[]}"#;
    let junk = br#"{"surprise":true}"#;
    let mut script = String::from("printf '");
    for frame in [&hello[..], &junk[..]] {
        for b in (frame.len() as u32).to_le_bytes() {
            script.push_str(&format!("\\{b:03o}"));
        }
        script.push_str(std::str::from_utf8(frame).unwrap());
    }
    script.push_str("'; exec sleep 30");
    let mut t = TesteeBackend::spawn(
        &format!("sh -c {}", quote_word(&script)),
        Duration::from_secs(10),
    )
    .unwrap();
    // An op the testee did not list is answered `unsupported` without being sent (otherwise
    // it would receive the junk frame).
    let tile = b64(&world().tiles()[0].to_bytes());
    assert_eq!(
        t.call(&Request::ContentId { tile }),
        Ok(Reply::Unsupported {})
    );
    let r = t.call(&Request::NewMesh {
        params: String::new(),
    });
    assert!(
        matches!(&r, Err(BackendFailure::Crash(m)) if m.contains("malformed new_mesh reply")),
        "{r:?}"
    );
}
