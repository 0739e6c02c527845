//! The testee side of the protocol (`spec/conformance.md §6`): reads request frames, hands
//! each request to a [`Backend`] and writes its reply, until `bye` or the end of the input.
//! `onav testee` is `serve(backend, stdin, stdout)`.
//!
//! Nothing a peer sends makes it panic: a frame that is not JSON, not an object or has no string
//! `op` gets an `error` reply; an op this protocol version does not define gets `unsupported`;
//! a known op with missing, extra or ill-typed arguments gets `error`; a frame longer than
//! [`MAX_FRAME`] is skipped and answered `error`.

use std::io::{self, BufReader, BufWriter, Read, Write};

use crate::protocol::{write_frame, Backend, BackendFailure, Reply, Request, MAX_FRAME};

/// Parses one request frame. `Err` holds the reply for a frame that is not a request: `error`
/// when malformed, `unsupported` for an op this version does not define.
pub fn parse_request(frame: &[u8]) -> Result<Request, Reply> {
    let malformed = |m: String| Reply::Error { message: m };
    let v: serde_json::Value = serde_json::from_slice(frame)
        .map_err(|e| malformed(format!("request is not JSON: {e}")))?;
    let op = v
        .get("op")
        .and_then(serde_json::Value::as_str)
        .ok_or_else(|| malformed("request is not an object with a string \"op\"".into()))?;
    if !crate::protocol::OPS.contains(&op) {
        return Err(Reply::Unsupported {});
    }
    let op = op.to_owned();
    serde_json::from_value(v).map_err(|e| malformed(format!("malformed {op} request: {e}")))
}

/// Reads one frame: `Ok(None)` at a clean end of input (no byte of a new frame), `Ok(Some(Err))`
/// for a frame longer than [`MAX_FRAME`], whose body is read and discarded.
fn next_frame(r: &mut impl Read) -> io::Result<Option<Result<Vec<u8>, u32>>> {
    let mut len = [0u8; 4];
    let mut got = 0;
    while got < 4 {
        match r.read(&mut len[got..]) {
            Ok(0) if got == 0 => return Ok(None),
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let n = u32::from_le_bytes(len);
    if n > MAX_FRAME {
        let skipped = io::copy(&mut r.take(u64::from(n)), &mut io::sink())?;
        if skipped < u64::from(n) {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        return Ok(Some(Err(n)));
    }
    let mut buf = vec![0u8; n as usize];
    r.read_exact(&mut buf)?;
    Ok(Some(Ok(buf)))
}

fn send(w: &mut impl Write, reply: &Reply) -> io::Result<()> {
    let json = serde_json::to_vec(reply).map_err(io::Error::other)?;
    write_frame(w, &json)
}

/// Serves requests from `input` to `backend`, writing replies to `output`, until `bye` (answered
/// `ok`, then the function returns) or the end of `input`. A backend failure (a backend that
/// itself proxies a process) is answered `error`. Returns an I/O error when reading or writing
/// fails, or when the input ends inside a frame.
pub fn serve<B: Backend>(mut backend: B, input: impl Read, output: impl Write) -> io::Result<()> {
    let mut input = BufReader::new(input);
    let mut output = BufWriter::new(output);
    while let Some(frame) = next_frame(&mut input)? {
        let reply = match frame {
            Err(n) => Reply::Error {
                message: format!("frame of {n} bytes exceeds the limit of {MAX_FRAME}"),
            },
            Ok(frame) => match parse_request(&frame) {
                Err(reply) => reply,
                Ok(Request::Bye {}) => {
                    send(&mut output, &Reply::ok([]))?;
                    return Ok(());
                }
                Ok(req) => match backend.call(&req) {
                    Ok(reply) => reply,
                    Err(BackendFailure::Crash(m)) => Reply::Error {
                        message: format!("backend crashed: {m}"),
                    },
                    Err(BackendFailure::Timeout) => Reply::Error {
                        message: "backend timed out".into(),
                    },
                },
            },
        };
        send(&mut output, &reply)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::read_frame;
    use crate::testee::reference::Reference;
    use serde_json::json;

    fn frames(reqs: &[&[u8]]) -> Vec<u8> {
        let mut v = Vec::new();
        for r in reqs {
            write_frame(&mut v, r).unwrap();
        }
        v
    }

    fn replies(out: &[u8]) -> Vec<serde_json::Value> {
        let mut r = out;
        let mut v = Vec::new();
        while let Some(f) = read_frame(&mut r).unwrap() {
            v.push(serde_json::from_slice(&f).unwrap());
        }
        v
    }

    fn run(input: &[u8]) -> (io::Result<()>, Vec<serde_json::Value>) {
        let mut out = Vec::new();
        let r = serve(Reference::new(), input, &mut out);
        (r, replies(&out))
    }

    #[test]
    fn malformed_unknown_and_ill_typed_requests() {
        let input = frames(&[
            b"{not json",
            b"",
            b"[1,2]",
            b"{\"op\":7}",
            br#"{"op":"teleport","to":"mars"}"#,
            br#"{"op":"new_mesh"}"#,
            br#"{"op":"new_mesh","params":"AAAA","extra":1}"#,
            br#"{"op":"set_poly_area","mesh":1,"poly_ref":"0x1","area":300}"#,
            &[0xff, 0xfe],
            br#"{"op":"hello","protocol":1}"#,
        ]);
        let (r, got) = run(&input);
        r.unwrap();
        let results: Vec<&str> = got.iter().map(|v| v["result"].as_str().unwrap()).collect();
        assert_eq!(
            results,
            [
                "error",
                "error",
                "error",
                "error",
                "unsupported",
                "error",
                "error",
                "error",
                "error",
                "ok"
            ]
        );
        assert_eq!(got[4], json!({"result": "unsupported"}));
    }

    /// Review item M2 (`spec/conformance.md` §6.3): a tile cache's `id` and `slots` have the wire
    /// range of a u32 and `max_tiles` that of a u64; outside it a request is malformed (`error`),
    /// inside it the op's own rules give the `cache` rejection.
    #[test]
    fn cache_ids_and_slot_counts_outside_their_wire_range_are_malformed() {
        use crate::protocol::wire::b64;
        let obj = b64(b"v 0 0 0\nv 0 0 24\nv 24 0 0\nv 24 0 24\nf 1 2 3\nf 3 2 4\n");
        let settings = b64(onav_build3d::Settings::new(onav_build3d::SettingsSpec {
            cell_size: 0.5,
            tile_size: 16,
            detail_sample_dist: 0.0,
            ..onav_build3d::SettingsSpec::default()
        })
        .unwrap()
        .to_bytes());
        let new = |slots: &str| {
            format!(r#"{{"op":"cache_new","obj":"{obj}","settings":"{settings}"{slots}}}"#)
        };
        let c = r#""cache":{"cache":0}"#;
        let reqs = [
            new(r#","slots":4294967296"#),
            new(r#","slots":-1"#),
            new(r#","slots":4294967295"#),
            new(""),
            format!(r#"{{"op":"cache_remove_obstacle",{c},"id":4294967296}}"#),
            format!(r#"{{"op":"cache_remove_obstacle",{c},"id":4294967295}}"#),
            format!(r#"{{"op":"cache_remove_volume",{c},"id":-1}}"#),
            format!(r#"{{"op":"cache_remove_volume",{c},"id":0}}"#),
            format!(r#"{{"op":"cache_update",{c},"max_tiles":18446744073709551616}}"#),
            format!(r#"{{"op":"cache_update",{c},"max_tiles":18446744073709551615}}"#),
        ];
        let reqs: Vec<&[u8]> = reqs.iter().map(|r| r.as_bytes()).collect();
        let (r, got) = run(&frames(&reqs));
        r.unwrap();
        let results: Vec<(&str, &str)> = got
            .iter()
            .map(|v| {
                let field = v["field"].as_str().unwrap_or("");
                (v["result"].as_str().unwrap(), field)
            })
            .collect();
        assert_eq!(
            results,
            [
                ("error", ""),
                ("error", ""),
                ("rejected", "slot_count"),
                ("ok", ""),
                ("error", ""),
                ("rejected", "unknown_obstacle"),
                ("error", ""),
                ("rejected", "unknown_volume"),
                ("error", ""),
                ("ok", ""),
            ]
        );
        assert_eq!(got[3]["cache"], json!({"cache": 0}));
        assert_eq!(got[5]["class"], "cache");
    }

    #[test]
    fn stops_at_bye_and_ignores_what_follows() {
        let input = frames(&[br#"{"op":"bye"}"#, br#"{"op":"hello","protocol":1}"#]);
        let (r, got) = run(&input);
        r.unwrap();
        assert_eq!(got, [json!({"result": "ok"})]);
    }

    #[test]
    fn oversized_frame_is_skipped_and_answered() {
        let mut input = (MAX_FRAME + 1).to_le_bytes().to_vec();
        input.resize(4 + MAX_FRAME as usize + 1, b' ');
        input.extend(frames(&[br#"{"op":"bye"}"#]));
        let (r, got) = run(&input);
        r.unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!(got[0]["result"], "error");
        // A huge length with nothing behind it ends with an error, without allocating it.
        let (r, got) = run(&u32::MAX.to_le_bytes());
        assert!(r.is_err());
        assert!(got.is_empty());
    }

    #[test]
    fn truncated_input_ends_without_panicking() {
        let full = frames(&[br#"{"op":"hello","protocol":1}"#]);
        for n in 0..full.len() {
            let (r, got) = run(&full[..n]);
            assert_eq!(r.is_ok(), n == 0, "{n}");
            assert!(got.is_empty());
        }
        let (r, got) = run(&full);
        r.unwrap();
        assert_eq!(got[0]["result"], "ok");
    }

    #[test]
    fn ops_list_matches_request_names() {
        use serde_json::Value;
        let m = Value::from(1);
        let s = String::new();
        let all = [
            Request::Hello { protocol: 1 },
            Request::NewMesh { params: s.clone() },
            Request::AddTile {
                mesh: m.clone(),
                tile: s.clone(),
            },
            Request::RemoveTile {
                mesh: m.clone(),
                tile_ref: s.clone(),
            },
            Request::ReplaceTile {
                mesh: m.clone(),
                tile: s.clone(),
            },
            Request::SetPolyArea {
                mesh: m.clone(),
                poly_ref: s.clone(),
                area: 0,
            },
            Request::SetPolyFlags {
                mesh: m.clone(),
                poly_ref: s.clone(),
                flags: 0,
            },
            Request::GetPoly {
                mesh: m.clone(),
                poly_ref: s.clone(),
            },
            Request::SetLinkEnabled {
                mesh: m.clone(),
                tile_ref: s.clone(),
                link: 0,
                enabled: true,
            },
            Request::IsValidRef {
                mesh: m.clone(),
                poly_ref: s.clone(),
            },
            Request::Snapshot {
                mesh: m.clone(),
                mode: s.clone(),
            },
            Request::Restore {
                bytes: s.clone(),
                library: vec![],
            },
            Request::RestoreInto {
                mesh: m.clone(),
                bytes: s.clone(),
                library: vec![],
            },
            Request::WriteMesh { mesh: m.clone() },
            Request::ReadMesh { bytes: s.clone() },
            Request::TileRoundtrip { tile: s.clone() },
            Request::ContentId { tile: s.clone() },
            Request::FindNearestPoly {
                mesh: m.clone(),
                args: Value::Null,
            },
            Request::FindPath {
                mesh: m.clone(),
                args: Value::Null,
            },
            Request::FindStraightPath {
                mesh: m.clone(),
                args: Value::Null,
            },
            Request::Raycast {
                mesh: m.clone(),
                args: Value::Null,
            },
            Request::CorridorCost {
                mesh: m.clone(),
                args: Value::Null,
            },
            Request::Build {
                obj: String::new(),
                settings: String::new(),
            },
            Request::CacheNew {
                obj: s.clone(),
                settings: s.clone(),
                slots: Some(3),
            },
            Request::CacheAddObstacle {
                cache: m.clone(),
                shape: s.clone(),
                values: vec![Value::from(1.5)],
            },
            Request::CacheRemoveObstacle {
                cache: m.clone(),
                id: 1,
            },
            Request::CacheAddVolume {
                cache: m.clone(),
                area: 3,
                min_y: Value::from(0.0),
                max_y: Value::from("inf"),
                polygon: vec![[Value::from(0.0), Value::from(1.0)]],
            },
            Request::CacheRemoveVolume {
                cache: m.clone(),
                id: 1,
            },
            Request::CacheUpdate {
                cache: m.clone(),
                max_tiles: 4,
            },
            Request::CacheSnapshot {
                cache: m.clone(),
                mode: s.clone(),
            },
            Request::CacheRestore {
                obj: s.clone(),
                settings: s.clone(),
                slots: None,
                bytes: s.clone(),
                library: vec![],
            },
            Request::CacheRestoreInto {
                cache: m.clone(),
                bytes: s.clone(),
                library: vec![s.clone()],
            },
            Request::Drop { mesh: m },
            Request::Bye {},
        ];
        let names: Vec<&str> = all.iter().map(Request::op).collect();
        assert_eq!(names, crate::protocol::OPS);
        for r in &all {
            let j = serde_json::to_vec(r).unwrap();
            assert_eq!(parse_request(&j).as_ref(), Ok(r));
        }
    }
}

#[cfg(test)]
mod float_tests {
    /// Protocol floats are JSON numbers that parse back to the same binary64 (serde_json's
    /// `float_roundtrip`), whatever their bits.
    #[test]
    fn floats_round_trip_exactly() {
        let mut v = vec![
            0.0,
            -0.0,
            0.1,
            0.1 + 0.2,
            1.0 / 3.0,
            f64::MIN_POSITIVE,
            5e-324,
            -5e-324,
            f64::MAX,
            f64::MIN,
            f64::EPSILON,
            2.225_073_858_507_201e-308,
            9_007_199_254_740_993.0,
        ];
        let mut h = 1u64;
        while v.len() < 20_000 {
            h = onav::generator::mix(h);
            let x = f64::from_bits(h);
            if x.is_finite() {
                v.push(x);
            }
        }
        for x in v {
            let j = serde_json::to_string(&serde_json::json!({ "x": x })).unwrap();
            let back: serde_json::Value = serde_json::from_str(&j).unwrap();
            let y = back["x"].as_f64().unwrap();
            assert_eq!(x.to_bits(), y.to_bits(), "{j}");
        }
    }
}
