//! `onav inspect FILE`: an annotated decode of a tile, mesh file or snapshot — one line per field
//! with its offset, size, spec field path and value — followed by onav's verdict on the bytes.
//!
//! The decode ([`crate::files::decode`]) follows the layout only, as far as the bytes allow; onav's own
//! validation (`NavTile::from_bytes`, `read_mesh`, `NavMeshSnapshot::restore`) then runs on the
//! same bytes, and its error is printed right under the field it names, with its offset. A
//! Referenced snapshot restores only against a library holding the tiles it names: a content id
//! missing from the library is a note, not a verdict on the bytes.

use std::fmt::Write as _;

use serde_json::json;

use onav::{read_mesh, FormatReason, NavMeshSnapshot, NavTile, RestoreError, TileLibrary};

use crate::files::decode::{decode, Decoded, Field, FileKind, Value};

/// The name of a kind of file, for people.
pub fn kind_name(kind: FileKind) -> &'static str {
    match kind {
        FileKind::Tile => "ONTL tile",
        FileKind::MeshFile => "ONMS mesh file",
        FileKind::Snapshot => "ONPS mesh snapshot",
        FileKind::CacheSnapshot => "ONTK tile cache snapshot",
        FileKind::Unknown => "unknown file (not ONTL, ONMS, ONPS or ONTK)",
    }
}

/// A field's value with its meaning where the number alone says little (slot kinds, section ids,
/// content ids against the library).
pub fn describe(f: &Field, library: Option<&TileLibrary>) -> String {
    let v = f.value.to_string();
    let last = f.path.rsplit('.').next().unwrap_or("");
    let meaning = match (&f.value, last) {
        (Value::U(0), "kind") => Some("free"),
        (Value::U(1), "kind") => Some("inline tile"),
        (Value::U(2), "kind") => Some("referenced tile"),
        (Value::U(1), "id") if f.path.starts_with("section[") => Some("slots"),
        (Value::Bytes(b), "content_id") => library.map(|lib| {
            let id = <[u8; 32]>::try_from(b.as_slice()).map(onav::TileContentId);
            if id.is_ok_and(|id| lib.get(&id).is_some()) {
                "in the library"
            } else {
                "not in the library"
            }
        }),
        _ => None,
    };
    match meaning {
        Some(m) => format!("{v} ({m})"),
        None => v,
    }
}

/// onav's verdict on the bytes.
enum Verdict {
    /// Valid, with a summary.
    Valid(String),
    /// Rejected.
    Rejected(RestoreError),
    /// Nothing to validate (unknown magic).
    None,
}

fn validate(bytes: &[u8], kind: FileKind, library: &TileLibrary) -> Verdict {
    match kind {
        FileKind::Tile => match NavTile::from_bytes(bytes) {
            Ok(t) => {
                let p = t.pos();
                Verdict::Valid(format!(
                    "valid tile at column {}, row {}, layer {}: {} polygons ({} ground, {} off-mesh links); content id {}",
                    p.column,
                    p.row,
                    p.layer,
                    t.poly_count(),
                    t.ground_poly_count(),
                    t.link_count(),
                    t.content_id().to_hex()
                ))
            }
            Err(e) => Verdict::Rejected(e.into()),
        },
        FileKind::MeshFile => match read_mesh(bytes) {
            Ok(m) => Verdict::Valid(format!(
                "valid mesh file: {} slots, {} tiles; settings digest {} (the fingerprint every \
                 tile carries; for a mesh onav build made, of its settings and geometry, \
                 spec/build3d.md B11)",
                m.slot_count(),
                m.tile_count(),
                m.params().digest().to_hex()
            )),
            Err(e) => Verdict::Rejected(e),
        },
        FileKind::Snapshot => match NavMeshSnapshot::restore(bytes, library) {
            Ok(m) => Verdict::Valid(format!(
                "valid snapshot: restores to a mesh of {} slots, {} tiles",
                m.slot_count(),
                m.tile_count()
            )),
            Err(e) => Verdict::Rejected(e),
        },
        FileKind::CacheSnapshot => match onav_tilecache::check_without_cache(bytes, library) {
            Ok(s) => Verdict::Valid(format!(
                "valid as far as it can be checked without its cache: next ids {} and {}, {} \
                 obstacles, {} volumes, {} queued cells, a mesh of {} slots, {} tiles (the \
                 parameters and fingerprint against the cache, and the queue against its cached \
                 cells, are checked by a restore into the cache)",
                s.next_ids.0, s.next_ids.1, s.obstacles, s.volumes, s.queue, s.mesh.0, s.mesh.1
            )),
            Err(e) => Verdict::Rejected(e),
        },
        FileKind::Unknown => Verdict::None,
    }
}

fn unknown_content_id(e: &RestoreError) -> bool {
    matches!(e, RestoreError::Format(f) if f.reason == FormatReason::UnknownContentId)
}

/// Index of the field an error belongs under: the field with its path, else the first field at
/// its offset, else the last field before its offset; `None` to print it after every field.
fn anchor(d: &Decoded, e: &RestoreError) -> Option<usize> {
    let at = e.offset();
    if let Some(i) = d
        .fields
        .iter()
        .position(|f| f.path == e.field() && (at.is_none() || at == Some(f.offset)))
    {
        return Some(i);
    }
    let at = at?;
    d.fields
        .iter()
        .position(|f| f.offset == at)
        .or_else(|| d.fields.iter().rposition(|f| f.offset < at))
}

fn error_line(e: &RestoreError, library: &TileLibrary) -> String {
    let at = e
        .offset()
        .map_or(String::new(), |o| format!(" at byte {o}"));
    if unknown_content_id(e) {
        format!(
            "note: {}{at} names a tile that is not in the library ({} tiles): a Referenced \
             snapshot restores only against a library holding its tiles (inspect --library \
             FILE…); validation stopped here",
            e.field(),
            library.len()
        )
    } else {
        format!("!! rejected ({}): {e}", e.class())
    }
}

/// What `inspect` concluded about a file (its exit status: 0, 1, 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conclusion {
    /// onav accepts it.
    Valid,
    /// onav rejects it.
    Rejected,
    /// A Referenced snapshot naming a tile the library lacks: the checks after it did not run.
    Incomplete,
    /// Not a tile, mesh file or snapshot.
    NotOnav,
}

impl Conclusion {
    /// The name the JSON form gives it.
    pub fn name(self) -> &'static str {
        match self {
            Conclusion::Valid => "valid",
            Conclusion::Rejected => "rejected",
            Conclusion::Incomplete => "incomplete",
            Conclusion::NotOnav => "none",
        }
    }
}

/// The decode of a file with onav's verdict on it, rendered as text ([`Inspection::text`]) or
/// JSON ([`Inspection::json`]) with the same contents.
pub struct Inspection<'a> {
    bytes: &'a [u8],
    library: &'a TileLibrary,
    decoded: Decoded,
    verdict: Verdict,
}

/// The decode of `bytes` and onav's verdict, validated against `library` (snapshots only).
pub fn examine<'a>(bytes: &'a [u8], library: &'a TileLibrary) -> Inspection<'a> {
    let decoded = decode(bytes);
    let verdict = validate(bytes, decoded.kind, library);
    Inspection {
        bytes,
        library,
        decoded,
        verdict,
    }
}

/// The annotated decode of `bytes`, validated against `library` (snapshots only).
#[cfg(test)]
pub fn inspect(bytes: &[u8], library: &TileLibrary) -> String {
    examine(bytes, library).text()
}

impl Inspection<'_> {
    /// What it concluded.
    pub fn conclusion(&self) -> Conclusion {
        match &self.verdict {
            Verdict::Valid(_) => Conclusion::Valid,
            Verdict::Rejected(e) if unknown_content_id(e) => Conclusion::Incomplete,
            Verdict::Rejected(_) => Conclusion::Rejected,
            Verdict::None => Conclusion::NotOnav,
        }
    }

    /// The error, and the index of the field it is shown under (`None`: after every field).
    fn error(&self) -> Option<(&RestoreError, Option<usize>)> {
        match &self.verdict {
            Verdict::Rejected(e) => Some((e, anchor(&self.decoded, e))),
            _ => None,
        }
    }

    /// The first 16 bytes in hex (`(none)` for an empty file).
    fn first_bytes(&self) -> String {
        let head = &self.bytes[..self.bytes.len().min(16)];
        if head.is_empty() {
            "(none)".to_owned()
        } else {
            crate::hex::hex(head)
        }
    }

    /// The `result:` line's text.
    fn result_text(&self) -> String {
        match &self.verdict {
            Verdict::Valid(s) => s.clone(),
            Verdict::Rejected(e) if unknown_content_id(e) => format!(
                "incomplete: {} is not in the library; the checks after it did not run",
                e.field()
            ),
            Verdict::Rejected(e) => format!("rejected ({}): {e}", e.class()),
            Verdict::None => "not a tile, mesh file or snapshot".to_owned(),
        }
    }

    fn value(&self, f: &Field) -> String {
        describe(
            f,
            matches!(
                self.decoded.kind,
                FileKind::Snapshot | FileKind::CacheSnapshot
            )
            .then_some(self.library),
        )
    }

    /// One line per field (offset, size, field path, value), the error under the field it
    /// names, where the decode stopped, and the verdict.
    pub fn text(&self) -> String {
        let d = &self.decoded;
        let mut out = String::new();
        let _ = writeln!(out, "{}, {} bytes", kind_name(d.kind), self.bytes.len());
        if d.kind == FileKind::Unknown {
            let _ = writeln!(out, "first bytes: {}", self.first_bytes());
            let _ = writeln!(out, "result: {}", self.result_text());
            return out;
        }
        let width = d
            .fields
            .iter()
            .map(|f| f.path.len())
            .max()
            .unwrap_or(0)
            .clamp(5, 60);
        let err = self.error();
        let indent = " ".repeat(16);
        let _ = writeln!(
            out,
            "{:>8}  {:>6}  {:width$}  value",
            "offset", "size", "field"
        );
        for (i, f) in d.fields.iter().enumerate() {
            let _ = writeln!(
                out,
                "{:>8}  {:>6}  {:width$}  {}",
                f.offset,
                f.size,
                f.path,
                self.value(f)
            );
            if let Some((e, Some(a))) = err {
                if a == i {
                    let _ = writeln!(out, "{indent}{}", error_line(e, self.library));
                }
            }
        }
        if let Some((o, note)) = &d.stopped {
            let _ = writeln!(out, "{indent}decode stopped at byte {o}: {note}");
        }
        if let Some((e, None)) = err {
            let _ = writeln!(out, "{indent}{}", error_line(e, self.library));
        }
        let _ = writeln!(out, "result: {}", self.result_text());
        out
    }

    /// The same as [`Self::text`] as one JSON object: `{"kind", "length", "fields": [{"offset",
    /// "size", "field", "value", "note"?}], "stopped": {"offset", "note"} | null, "first_bytes"
    /// (unknown files), "result": {"verdict": "valid" | "rejected" | "incomplete" | "none",
    /// "text", "class", "field", "offset", "message"}}`; `note` is the error line shown under a
    /// field.
    pub fn json(&self) -> serde_json::Value {
        let d = &self.decoded;
        let err = self.error();
        let mut fields: Vec<serde_json::Value> = d
            .fields
            .iter()
            .map(|f| {
                json!({"offset": f.offset, "size": f.size, "field": f.path, "value": self.value(f)})
            })
            .collect();
        let mut trailing = None;
        if let Some((e, at)) = err {
            match at.and_then(|a| fields.get_mut(a)) {
                Some(f) => f["note"] = json!(error_line(e, self.library)),
                None => trailing = Some(error_line(e, self.library)),
            }
        }
        let mut result = json!({"verdict": self.conclusion().name(), "text": self.result_text()});
        if let Some((e, _)) = err {
            result["class"] = json!(e.class());
            result["field"] = json!(e.field());
            result["offset"] = json!(e.offset());
            result["message"] = json!(e.to_string());
        }
        let mut out = json!({
            "kind": kind_key(d.kind),
            "length": self.bytes.len(),
            "fields": fields,
            "stopped": d.stopped.as_ref().map(|(o, n)| json!({"offset": o, "note": n})),
            "result": result,
        });
        if let Some(t) = trailing {
            out["note"] = json!(t);
        }
        if d.kind == FileKind::Unknown {
            out["first_bytes"] = json!(self.first_bytes());
        }
        out
    }
}

/// The JSON name of a kind of file.
fn kind_key(kind: FileKind) -> &'static str {
    match kind {
        FileKind::Tile => "tile",
        FileKind::MeshFile => "mesh_file",
        FileKind::Snapshot => "snapshot",
        FileKind::CacheSnapshot => "cache_snapshot",
        FileKind::Unknown => "unknown",
    }
}

/// Why a file cannot add tiles to a library.
#[derive(Debug, thiserror::Error)]
pub enum LibraryError {
    /// A tile onav rejects.
    #[error("{0}")]
    Tile(onav::FormatError),
    /// A mesh file or snapshot onav rejects.
    #[error("{0}")]
    Restore(onav::RestoreError),
    /// Not an onav file.
    #[error("not a tile, mesh file or snapshot")]
    NotOnav,
}

/// Adds the tiles of a file to a library: a tile, every tile of a mesh file (their current values
/// become the as-built ones, as when reading it) or every tile of a Full snapshot (as built).
/// Returns how many tiles the file held.
pub fn add_to_library(library: &mut TileLibrary, bytes: &[u8]) -> Result<usize, LibraryError> {
    let add_all = |library: &mut TileLibrary, m: onav::TiledNavMesh| {
        m.tiles().for_each(|(_, t)| {
            library.add(t);
        });
        m.tile_count()
    };
    match FileKind::of(bytes) {
        FileKind::Tile => {
            let t = NavTile::from_bytes(bytes).map_err(LibraryError::Tile)?;
            library.add(&t);
            Ok(1)
        }
        FileKind::MeshFile => {
            let m = read_mesh(bytes).map_err(LibraryError::Restore)?;
            Ok(add_all(library, m))
        }
        FileKind::Snapshot => {
            let m = NavMeshSnapshot::restore(bytes, library).map_err(LibraryError::Restore)?;
            Ok(add_all(library, m))
        }
        FileKind::CacheSnapshot => {
            // The tiles of the mesh snapshot it holds (`mesh_length` then the bytes).
            let d = decode(bytes);
            let len = d.field("mesh_length").map(|f| (f.offset + 4, &f.value));
            let Some((at, Value::U(n))) = len else {
                return Err(LibraryError::NotOnav);
            };
            let mesh = bytes
                .get(at as usize..(at + n) as usize)
                .ok_or(LibraryError::NotOnav)?;
            let m = NavMeshSnapshot::restore(mesh, library)
                .map_err(|e| LibraryError::Restore(e.nested(at, "mesh")))?;
            Ok(add_all(library, m))
        }
        FileKind::Unknown => Err(LibraryError::NotOnav),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use onav::{SnapshotMode, TiledNavMesh, WorldSpec};

    pub(crate) fn mesh() -> TiledNavMesh {
        let w = WorldSpec {
            columns: 2,
            rows: 1,
            quads: 1,
            links_per_tile: 1,
            ..WorldSpec::default()
        };
        crate::files::mesh_of(&w, 3)
    }

    fn line_after<'a>(out: &'a str, prefix: &str) -> &'a str {
        let mut lines = out.lines();
        lines.find(|l| l.contains(prefix)).unwrap();
        lines.next().unwrap()
    }

    #[test]
    fn valid_files_list_every_field_and_a_verdict() {
        let m = mesh();
        let lib = TileLibrary::new();
        let snap = m.snapshot(SnapshotMode::Full);
        let out = inspect(&snap, &lib);
        assert!(out.starts_with(&format!("ONPS mesh snapshot, {} bytes\n", snap.len())));
        assert_eq!(out.lines().count(), decode(&snap).fields.len() + 3, "{out}");
        assert!(out.contains("slot[0].kind"));
        assert!(out.contains("1 (inline tile)"));
        assert!(out.contains("0 (free)"));
        assert!(out.ends_with("result: valid snapshot: restores to a mesh of 3 slots, 2 tiles\n"));
        let tile = m.tiles().next().unwrap().1.to_bytes();
        assert!(inspect(&tile, &lib).contains("result: valid tile at column 0, row 0, layer 0"));
        assert!(inspect(&onav::write_mesh(&m), &lib)
            .contains("result: valid mesh file: 3 slots, 2 tiles"));
    }

    #[test]
    fn errors_appear_under_the_field_they_name() {
        let snap = mesh().snapshot(SnapshotMode::Full);
        let d = decode(&snap);
        let f = d.field("slot[1].tile.polygon[0].vertex_count").unwrap();
        let mut bad = snap.clone();
        bad[f.offset as usize] = 9;
        let out = inspect(&bad, &TileLibrary::new());
        let under = line_after(&out, "slot[1].tile.polygon[0].vertex_count ");
        assert!(under.contains("!! rejected (format)"), "{out}");
        assert!(under.contains(&format!("byte {}", f.offset)), "{under}");
        assert!(out.contains("result: rejected (format)"));
        // A fingerprint error names the tile's digest.
        let g = d.field("slot[0].tile.params.settings_digest").unwrap();
        let mut bad = snap.clone();
        bad[g.offset as usize] ^= 1;
        let out = inspect(&bad, &TileLibrary::new());
        let under = line_after(&out, "slot[0].tile.params.settings_digest ");
        assert!(under.contains("!! rejected (fingerprint)"), "{out}");
    }

    #[test]
    fn referenced_snapshots_note_missing_tiles_and_use_a_library() {
        let m = mesh();
        let snap = m.snapshot(SnapshotMode::Referenced);
        let out = inspect(&snap, &TileLibrary::new());
        let under = line_after(&out, "slot[0].content_id ");
        assert!(
            under.starts_with("                note: slot[0].content_id"),
            "{out}"
        );
        assert!(out.contains("(not in the library)"));
        assert!(out.contains("result: incomplete"));
        let mut lib = TileLibrary::new();
        assert_eq!(
            add_to_library(&mut lib, &m.snapshot(SnapshotMode::Full)).unwrap(),
            2
        );
        let out = inspect(&snap, &lib);
        assert!(out.contains("(in the library)"));
        assert!(out.contains("result: valid snapshot"), "{out}");
        assert!(matches!(
            add_to_library(&mut lib, b"nope"),
            Err(LibraryError::NotOnav)
        ));
    }

    /// Inspect and diff answer every corruption of every kind of file without panicking.
    #[test]
    fn corrupted_files_never_panic() {
        let m = mesh();
        let lib = TileLibrary::from_tiles(m.tiles().map(|(_, t)| t));
        let files = [
            m.snapshot(SnapshotMode::Full),
            m.snapshot(SnapshotMode::Referenced),
            onav::write_mesh(&m),
            m.tiles().next().unwrap().1.to_bytes(),
        ];
        let mut h = 7u64;
        for f in &files {
            for _ in 0..300 {
                h = onav::generator::mix(h);
                let mut g = f.clone();
                crate::files::mutate(&mut g, h);
                let out = inspect(&g, &lib);
                assert!(out.contains("\nresult: "), "{out}");
                let d = crate::files::diff::diff(f, &g).to_string();
                assert!(
                    d.starts_with("first difference")
                        || d.starts_with("different kinds")
                        || d == "identical\n",
                    "{d}"
                );
            }
        }
    }

    #[test]
    fn the_json_form_holds_what_the_text_form_shows() {
        let m = mesh();
        let lib = TileLibrary::new();
        let snap = m.snapshot(SnapshotMode::Full);
        let i = examine(&snap, &lib);
        assert_eq!(i.conclusion(), Conclusion::Valid);
        let j = i.json();
        let text = i.text();
        assert_eq!(j["kind"], "snapshot");
        assert_eq!(j["length"], snap.len());
        let fields = j["fields"].as_array().unwrap();
        assert_eq!(fields.len(), text.lines().count() - 3);
        for (f, line) in fields.iter().zip(text.lines().skip(2)) {
            let want = format!(
                "{:>8}  {:>6}  ",
                f["offset"].as_u64().unwrap(),
                f["size"].as_u64().unwrap()
            );
            assert!(line.starts_with(&want), "{line}");
            assert!(line.contains(f["field"].as_str().unwrap()));
            assert!(line.ends_with(f["value"].as_str().unwrap()));
        }
        assert_eq!(j["result"]["verdict"], "valid");
        assert!(text.ends_with(&format!(
            "result: {}\n",
            j["result"]["text"].as_str().unwrap()
        )));
        // A rejection: its class, field and offset, and the note under its field.
        let d = decode(&snap);
        let f = d.field("slot[1].tile.polygon[0].vertex_count").unwrap();
        let mut bad = snap.clone();
        bad[f.offset as usize] = 9;
        let i = examine(&bad, &lib);
        assert_eq!(i.conclusion(), Conclusion::Rejected);
        let j = i.json();
        assert_eq!(j["result"]["verdict"], "rejected");
        assert_eq!(j["result"]["class"], "format");
        assert_eq!(j["result"]["field"], "slot[1].tile.polygon[0].vertex_count");
        assert_eq!(j["result"]["offset"], f.offset);
        let noted: Vec<&serde_json::Value> = j["fields"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|x| x.get("note").is_some())
            .collect();
        assert_eq!(noted.len(), 1);
        assert_eq!(noted[0]["field"], "slot[1].tile.polygon[0].vertex_count");
        // Incomplete and foreign files.
        let r = m.snapshot(SnapshotMode::Referenced);
        assert_eq!(examine(&r, &lib).conclusion(), Conclusion::Incomplete);
        assert_eq!(examine(&r, &lib).json()["result"]["verdict"], "incomplete");
        for foreign in [&b""[..], b"hello world"] {
            let i = examine(foreign, &lib);
            assert_eq!(i.conclusion(), Conclusion::NotOnav);
            assert_eq!(i.json()["result"]["verdict"], "none");
            assert!(i
                .text()
                .ends_with("result: not a tile, mesh file or snapshot\n"));
        }
        assert_eq!(examine(&snap[..50], &lib).json()["stopped"]["offset"], 44);
    }

    #[test]
    fn truncated_trailing_and_foreign_bytes() {
        let snap = mesh().snapshot(SnapshotMode::Full);
        let lib = TileLibrary::new();
        for n in [0, 3, 8, 50, 80, 81, 200, snap.len() - 1] {
            let out = inspect(&snap[..n], &lib);
            assert!(
                n < 4 || out.contains("decode stopped at byte") && out.contains("result: rejected"),
                "{n}: {out}"
            );
        }
        let mut long = snap.clone();
        long.push(0);
        let out = inspect(&long, &lib);
        assert!(out.contains("1 trailing bytes"), "{out}");
        assert!(out.contains("result: rejected (format)"));
        let out = inspect(b"hello world", &lib);
        assert!(out.starts_with("unknown file"));
        assert!(out.contains("68656c6c6f"));
    }
}
