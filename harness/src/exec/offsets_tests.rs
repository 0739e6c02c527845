//! The independent check of every offset the suite expects (`spec/conformance.md` §6.4.1): each
//! rejection a scenario expects, with its offset, is matched against the harness's own structural
//! decode of the input the request carried. A field path names one field of that decode, and its
//! offset must be the field's first byte (`navmesh-format.md` §1.6), except where a rule places the
//! error elsewhere ([`special`]). So the offsets written in the scenarios are checked by a route
//! that does not go through onav's reader.

use std::path::{Path, PathBuf};

use super::*;
use crate::files::decode::decode;
use crate::protocol::wire::unb64;
use crate::scenario::{find_files, load_file};
use crate::testee::reference::Reference;

/// One rejection seen: the case, the request's input bytes (for a library tile, that tile's),
/// the path within them, and the reply's offset.
#[derive(Debug)]
struct Seen {
    case: String,
    input: Vec<u8>,
    path: String,
    offset: Option<u64>,
    class: String,
}

/// Records every format and fingerprint rejection of the reference with its input.
struct Recorder {
    inner: Reference,
    seen: Vec<Seen>,
    case: String,
}

/// The input bytes of a request and the path of a field within them.
fn input_of(req: &Request, field: &str) -> Option<(Vec<u8>, String)> {
    let b = |s: &str| unb64("bytes", s).ok();
    match req {
        Request::AddTile { tile, .. }
        | Request::ReplaceTile { tile, .. }
        | Request::TileRoundtrip { tile }
        | Request::ContentId { tile } => Some((b(tile)?, field.to_owned())),
        Request::Restore { bytes, library } | Request::RestoreInto { bytes, library, .. } => {
            if let Some(rest) = field.strip_prefix("library[") {
                let (i, path) = rest.split_once("].")?;
                let i: usize = i.parse().ok()?;
                return Some((b(library.get(i)?)?, path.to_owned()));
            }
            Some((b(bytes)?, field.to_owned()))
        }
        Request::ReadMesh { bytes } => Some((b(bytes)?, field.to_owned())),
        // A parameter block has the offsets it has in a file, where it starts at byte 8: an
        // empty mesh file around it decodes the same paths.
        Request::NewMesh { params } => {
            let mut f = b"ONMS\x02\x00\x00\x00".to_vec();
            f.extend(b(params)?);
            f.extend(0u32.to_le_bytes());
            Some((f, field.to_owned()))
        }
        _ => None,
    }
}

impl Backend for Recorder {
    fn call(&mut self, req: &Request) -> Result<Reply, BackendFailure> {
        let r = self.inner.call(req)?;
        if let Reply::Rejected {
            class,
            field,
            offset,
            ..
        } = &r
        {
            if class == "format" || class == "fingerprint" {
                if let Some((input, path)) = input_of(req, field) {
                    self.seen.push(Seen {
                        case: self.case.clone(),
                        input,
                        path,
                        offset: *offset,
                        class: class.clone(),
                    });
                }
            }
        }
        Ok(r)
    }
}

fn scenarios() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios")
}

/// The offset of the error at `path` in `input` by the rules, from the decode alone: the
/// field's first byte; for a record or sub-record (T8, T15, T17, S13) its first field; for a
/// whole tile (S30, M13) its magic; for the *section length* of S4 the first unread byte of the
/// body; for `end` (T19, M12, S5) the first extra byte; for `area` (T18) the array; and where the
/// decode stops before reaching the field (a truncation), the offset where it stopped.
fn expected_offset(input: &[u8], path: &str) -> Option<u64> {
    let d = decode(input);
    let at = |p: &str| d.field(p).map(|f| f.offset);
    if let Some(f) = d.field(path) {
        // S4: a body longer than its slot records. The body of section i starts after its
        // length field; the records end where the last field inside the body ends.
        if let (true, crate::files::decode::Value::U(len)) = (
            path.starts_with("section[") && path.ends_with(".length"),
            &f.value,
        ) {
            let body = f.offset + 4;
            let used = d
                .fields
                .iter()
                .filter(|g| g.offset >= body && g.offset < body + len)
                .map(|g| g.offset + g.size)
                .max()
                .unwrap_or(body);
            if used < body + len && body + len <= input.len() as u64 {
                return Some(used);
            }
        }
        return Some(f.offset);
    }
    let whole_tile = path.starts_with("tile[") && path.ends_with(']') || path.ends_with(".tile");
    if whole_tile {
        return at(&format!("{path}.magic"));
    }
    let sub = d
        .fields
        .iter()
        .find(|f| {
            f.path.starts_with(&format!("{path}.")) || f.path.starts_with(&format!("{path}["))
        })
        .map(|f| f.offset);
    if sub.is_some() {
        return sub;
    }
    let leaf = path.rsplit('.').next().unwrap_or(path);
    let stopped = d.stopped.as_ref().map(|s| s.0);
    match leaf {
        "end" => stopped.or(Some(input.len() as u64)),
        "area" => {
            let prefix = path.strip_suffix("area").unwrap_or("");
            at(&format!("{prefix}area[0]")).or(stopped)
        }
        "magic" if path == "magic" => Some(0),
        _ => stopped,
    }
}

/// Runs every scenario against the reference, recording its rejections, and checks each offset
/// against the decode of the input; returns the disagreements.
/// Truncations where the decode stops before the field (its count checks stop it early), each
/// derived by hand from the layout tables.
const BY_HAND: &[(&str, &str, u64)] = &[
    // The inline tile is 307 bytes at 101 (slots at 88: count 4, then slot 0's generation 4, kind 1
    // and tile_length 4). With tile_length one short, edit_count is read at 101 + 306.
    ("snapshot/n_tile-length-short", "slot[0].edit_count", 407),
    // The tile is 827 bytes (G 4, L 1: P 5); flags[4] is its last u16, at 827 − 2, and the patch
    // drops its last byte.
    ("tile/n_flags-truncated", "flags[4]", 825),
    // A byte after a nested 307-byte tile, inside its length (T19 inside the record):
    // scenarios/snapshot/tools/nested_trailing.py walks the layouts. In a mesh file the tile
    // starts at 80 + 4; in a snapshot at 101 (above).
    ("meshfile/n_tile-trailing-byte", "tile[0].end", 391),
    (
        "snapshot/n_inline-tile-trailing-byte",
        "slot[0].tile.end",
        408,
    ),
    // Tiles cut or padded to the length of a wrongly computed section layout, whose decode stops
    // at the header (scenarios/tile/n_section-offsets, notes): y_hex-tile's 279 bytes hold the
    // header (132), 3 vertices (132..204), polygon[0] (204..256: vertex[k] at 208 + 4k,
    // neighbour[k] at 232 + 4k), detail[0] (256..272), detail_triangle[0] (272..276), area[0]
    // (276) and flags[0]. t10 drops area and flags; t15 is cut to 218, t18 to 247, t23 to 273.
    ("tile/n_section-offsets", "area", 276),
    ("tile/n_section-offsets", "polygon[0].vertex[2]", 216),
    ("tile/n_section-offsets", "polygon[0].neighbour[3]", 244),
    (
        "tile/n_section-offsets",
        "detail_triangle[0].vertex[1]",
        273,
    ),
];

/// Every rejection of the reference over the whole suite, case by case; with `require_pass`,
/// every case must pass too.
fn suite_rejections(require_pass: bool) -> Vec<Seen> {
    let root = scenarios();
    let mut all = Vec::new();
    for f in find_files(&root).unwrap() {
        let c = load_file(&root, &f).unwrap();
        let mut rec = Recorder {
            inner: Reference::new(),
            seen: Vec::new(),
            case: c.id.clone(),
        };
        let run = run_scenario(&c.id, &c.scenario, &mut rec, &c.dir);
        if require_pass {
            assert_eq!(run.status(), Status::Pass, "{}: {}", c.id, run.message());
        }
        all.extend(rec.seen);
    }
    all
}

fn disagreements() -> Vec<String> {
    let mut out = Vec::new();
    for s in suite_rejections(true) {
        let hand = BY_HAND
            .iter()
            .find(|h| h.0 == s.case && h.1 == s.path)
            .map(|h| h.2);
        let want = hand.or_else(|| expected_offset(&s.input, &s.path));
        if s.offset != want {
            out.push(format!(
                "{}: {} {} at {:?}; the decode says {:?}",
                s.case, s.class, s.path, s.offset, want
            ));
        }
    }
    out
}

#[test]
fn every_rejection_offset_is_its_fields_offset_in_the_decode() {
    let d = disagreements();
    assert!(d.is_empty(), "{}", d.join("\n"));
}

/// Writes every rejection of the suite with its offset to the file `ONAV_OFFSETS_OUT` names (a
/// tool for writing new cases: `cargo test -p onav-harness dump_offsets -- --ignored`).
#[test]
#[ignore]
fn dump_offsets() {
    let Some(path) = std::env::var_os("ONAV_OFFSETS_OUT") else {
        return;
    };
    let mut out = String::new();
    for s in suite_rejections(false) {
        out += &format!("{}\t{}\t{}\t{:?}\n", s.case, s.class, s.path, s.offset);
    }
    std::fs::write(path, out).unwrap();
}
