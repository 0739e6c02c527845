//! `Reference`: the in-process onav implementation of [`Backend`]. Mesh handles are JSON numbers
//! indexing a list of meshes; bytes travel as base64 (standard alphabet, padded); references as
//! `0x` + 16 hex digits. Restore and read errors become `rejected` with onav's class and field;
//! mesh operation errors become `rejected` with class `mesh` and the field listed in
//! `spec/conformance.md` ("Mesh errors").

use base64::Engine as _;
use serde_json::{json, Value};

use onav::bytes::Reader;
use onav::{
    LinkEnd, LinkKind, MeshError, MeshParams, NavMeshSnapshot, NavTile, PolyRef, RestoreError,
    Side, SnapshotMode, TileLibrary, TileRef, TiledNavMesh,
};

use crate::protocol::{ref_from_hex, ref_to_hex, Backend, BackendFailure, Reply, Request};

/// The ops the reference answers (queries are answered `unsupported` until onav has them).
pub const OPS: &[&str] = &[
    "hello",
    "new_mesh",
    "add_tile",
    "remove_tile",
    "replace_tile",
    "set_poly_area",
    "set_poly_flags",
    "get_poly",
    "set_link_enabled",
    "is_valid_ref",
    "snapshot",
    "restore",
    "restore_into",
    "write_mesh",
    "read_mesh",
    "tile_roundtrip",
    "content_id",
    "drop",
    "bye",
];

/// Base64 of bytes (standard alphabet, padded).
pub fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Bytes of base64 text.
pub fn unb64(text: &str) -> Result<Vec<u8>, String> {
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .map_err(|e| format!("bad base64: {e}"))
}

/// The in-process reference backend.
#[derive(Debug, Default)]
pub struct Reference {
    meshes: Vec<Option<TiledNavMesh>>,
}

/// A request that cannot be answered: a protocol error, not a rejection.
struct Bad(String);

impl From<String> for Bad {
    fn from(s: String) -> Self {
        Bad(s)
    }
}

/// Class and field of a mesh operation error (`spec/conformance.md`, "Mesh errors").
pub fn mesh_error_field(e: &MeshError) -> (&'static str, String) {
    match e {
        MeshError::Fingerprint(f) => ("fingerprint", f.field.clone()),
        MeshError::ParamsMismatch => ("mesh", "tile.params".into()),
        MeshError::PositionTaken { .. } | MeshError::NoTileAt { .. } => {
            ("mesh", "tile.position".into())
        }
        MeshError::NoFreeSlot => ("mesh", "slots".into()),
        MeshError::InvalidTileRef(_) => ("mesh", "tile_ref".into()),
        MeshError::InvalidPolyRef(_) => ("mesh", "poly_ref".into()),
        MeshError::AreaOutOfRange(_) => ("mesh", "area".into()),
        MeshError::LinkOutOfRange { .. } => ("mesh", "link".into()),
    }
}

fn mesh_rejected(e: &MeshError) -> Reply {
    let (class, field) = mesh_error_field(e);
    Reply::Rejected {
        class: class.into(),
        field,
        offset: None,
        message: e.to_string(),
    }
}

fn format_rejected(e: onav::FormatError) -> Reply {
    Reply::rejected(&RestoreError::Format(e))
}

fn side_name(s: Side) -> &'static str {
    match s {
        Side::PosX => "+x",
        Side::PosZ => "+z",
        Side::NegX => "-x",
        Side::NegZ => "-z",
    }
}

fn end_name(e: LinkEnd) -> &'static str {
    match e {
        LinkEnd::Start => "start",
        LinkEnd::End => "end",
    }
}

/// A link as JSON: target, kind and the kind's details.
pub fn link_json(l: &onav::Link) -> Value {
    let target = ref_to_hex(l.target.raw());
    match l.kind {
        LinkKind::Internal { edge } => json!({"target": target, "kind": "internal", "edge": edge}),
        LinkKind::Portal { edge, side, lo, hi } => json!({
            "target": target, "kind": "portal", "edge": edge, "side": side_name(side),
            "lo": lo, "hi": hi,
        }),
        LinkKind::ToOffMesh { end } => {
            json!({"target": target, "kind": "to_off_mesh", "end": end_name(end)})
        }
        LinkKind::FromOffMesh { end } => {
            json!({"target": target, "kind": "from_off_mesh", "end": end_name(end)})
        }
    }
}

impl Reference {
    /// A reference with no meshes.
    pub fn new() -> Self {
        Self::default()
    }

    fn mesh(&mut self, h: &Value) -> Result<&mut TiledNavMesh, Bad> {
        h.as_u64()
            .and_then(|i| usize::try_from(i).ok())
            .and_then(|i| self.meshes.get_mut(i))
            .and_then(Option::as_mut)
            .ok_or_else(|| Bad(format!("unknown mesh handle {h}")))
    }

    fn keep(&mut self, m: TiledNavMesh) -> Reply {
        self.meshes.push(Some(m));
        Reply::ok([("mesh", json!(self.meshes.len() - 1))])
    }

    fn library(tiles: &[String]) -> Result<TileLibrary, Bad> {
        let mut lib = TileLibrary::new();
        for (i, t) in tiles.iter().enumerate() {
            let t = NavTile::from_bytes(&unb64(t)?)
                .map_err(|e| Bad(format!("library tile {i} is not a valid tile: {e}")))?;
            lib.add(&t);
        }
        Ok(lib)
    }

    fn answer(&mut self, req: &Request) -> Result<Reply, Bad> {
        let raw = |s: &str| ref_from_hex(s).ok_or_else(|| Bad(format!("bad reference {s:?}")));
        Ok(match req {
            Request::Hello { protocol } => {
                if *protocol != crate::protocol::PROTOCOL_VERSION {
                    return Err(Bad(format!("protocol {protocol} is not spoken here")));
                }
                let features: Vec<&str> = crate::scenario::FEATURES
                    .iter()
                    .map(|f| f.0)
                    .filter(|f| !f.starts_with("query-"))
                    .collect();
                Reply::ok([
                    ("impl", json!("onav-reference")),
                    ("protocol", json!(crate::protocol::PROTOCOL_VERSION)),
                    ("ops", json!(OPS)),
                    ("features", json!(features)),
                ])
            }
            Request::NewMesh { params } => {
                let b = unb64(params)?;
                let mut r = Reader::new(&b, 0);
                match MeshParams::read(&mut r).and_then(|p| r.finish("end").map(|()| p)) {
                    Ok(p) => self.keep(TiledNavMesh::new(p)),
                    Err(e) => format_rejected(e),
                }
            }
            Request::AddTile { mesh, tile } | Request::ReplaceTile { mesh, tile } => {
                let bytes = unb64(tile)?;
                let replace = matches!(req, Request::ReplaceTile { .. });
                let m = self.mesh(mesh)?;
                let t = match NavTile::from_bytes(&bytes) {
                    Ok(t) => t,
                    Err(e) => return Ok(format_rejected(e)),
                };
                let r = if replace {
                    m.replace_tile(t)
                } else {
                    m.add_tile(t)
                };
                match r {
                    Ok(r) => Reply::ok([("tile_ref", json!(ref_to_hex(r.raw())))]),
                    Err(e) => mesh_rejected(&e),
                }
            }
            Request::RemoveTile { mesh, tile_ref } => {
                let v = raw(tile_ref)?;
                let m = self.mesh(mesh)?;
                let Some(r) = TileRef::from_raw(v) else {
                    return Ok(mesh_rejected(&MeshError::InvalidTileRef(
                        TileRef::from_raw(1 << 40).expect("a valid shape"),
                    )));
                };
                match m.remove_tile(r) {
                    Ok(t) => Reply::ok([("tile", json!(b64(&t.to_bytes())))]),
                    Err(e) => mesh_rejected(&e),
                }
            }
            Request::SetPolyArea {
                mesh,
                poly_ref,
                area,
            } => {
                let v = raw(poly_ref)?;
                let m = self.mesh(mesh)?;
                let r = match PolyRef::from_raw(v) {
                    Some(r) => m.set_poly_area(r, *area),
                    None if *area > 63 => Err(MeshError::AreaOutOfRange(*area)),
                    None => Err(invalid_poly()),
                };
                match r {
                    Ok(()) => Reply::ok([]),
                    Err(e) => mesh_rejected(&e),
                }
            }
            Request::SetPolyFlags {
                mesh,
                poly_ref,
                flags,
            } => {
                let v = raw(poly_ref)?;
                let m = self.mesh(mesh)?;
                let r = match PolyRef::from_raw(v) {
                    Some(r) => m.set_poly_flags(r, *flags),
                    None => Err(invalid_poly()),
                };
                match r {
                    Ok(()) => Reply::ok([]),
                    Err(e) => mesh_rejected(&e),
                }
            }
            Request::GetPoly { mesh, poly_ref } => {
                let v = raw(poly_ref)?;
                let m = self.mesh(mesh)?;
                match PolyRef::from_raw(v).filter(|r| m.is_valid_poly_ref(*r)) {
                    Some(r) => {
                        let links: Vec<Value> =
                            m.links(r).unwrap_or(&[]).iter().map(link_json).collect();
                        Reply::ok([
                            ("area", json!(m.poly_area(r))),
                            ("flags", json!(m.poly_flags(r))),
                            ("links", json!(links)),
                        ])
                    }
                    None => mesh_rejected(&invalid_poly()),
                }
            }
            Request::SetLinkEnabled {
                mesh,
                tile_ref,
                link,
                enabled,
            } => {
                let v = raw(tile_ref)?;
                let m = self.mesh(mesh)?;
                let r = match TileRef::from_raw(v) {
                    Some(r) => m.set_off_mesh_link_enabled(r, *link, *enabled),
                    None => Err(MeshError::InvalidTileRef(
                        TileRef::from_raw(1 << 40).expect("a valid shape"),
                    )),
                };
                match r {
                    Ok(()) => Reply::ok([]),
                    Err(e) => mesh_rejected(&e),
                }
            }
            Request::IsValidRef { mesh, poly_ref } => {
                let v = raw(poly_ref)?;
                let m = self.mesh(mesh)?;
                Reply::ok([("valid", json!(m.is_valid_raw_ref(v)))])
            }
            Request::Snapshot { mesh, mode } => {
                let mode = match mode.as_str() {
                    "full" => SnapshotMode::Full,
                    "referenced" => SnapshotMode::Referenced,
                    other => return Err(Bad(format!("unknown snapshot mode {other:?}"))),
                };
                let m = self.mesh(mesh)?;
                Reply::ok([("bytes", json!(b64(&m.snapshot(mode))))])
            }
            Request::Restore { bytes, library } => {
                let b = unb64(bytes)?;
                let lib = Self::library(library)?;
                match NavMeshSnapshot::restore(&b, &lib) {
                    Ok(m) => self.keep(m),
                    Err(e) => Reply::rejected(&e),
                }
            }
            Request::RestoreInto {
                mesh,
                bytes,
                library,
            } => {
                let b = unb64(bytes)?;
                let lib = Self::library(library)?;
                let m = self.mesh(mesh)?;
                match m.restore(&b, &lib) {
                    Ok(()) => Reply::ok([]),
                    Err(e) => Reply::rejected(&e),
                }
            }
            Request::WriteMesh { mesh } => {
                let m = self.mesh(mesh)?;
                Reply::ok([("bytes", json!(b64(&onav::write_mesh(m))))])
            }
            Request::ReadMesh { bytes } => match onav::read_mesh(&unb64(bytes)?) {
                Ok(m) => self.keep(m),
                Err(e) => Reply::rejected(&e),
            },
            Request::TileRoundtrip { tile } => match NavTile::from_bytes(&unb64(tile)?) {
                Ok(t) => Reply::ok([("bytes", json!(b64(&t.to_bytes())))]),
                Err(e) => format_rejected(e),
            },
            Request::ContentId { tile } => match NavTile::from_bytes(&unb64(tile)?) {
                Ok(t) => Reply::ok([("id", json!(t.content_id().to_hex()))]),
                Err(e) => format_rejected(e),
            },
            Request::FindNearestPoly { .. }
            | Request::FindPath { .. }
            | Request::FindStraightPath { .. }
            | Request::Raycast { .. } => Reply::Unsupported {},
            Request::Drop { mesh } => {
                self.mesh(mesh)?;
                if let Some(slot) = mesh.as_u64().and_then(|i| self.meshes.get_mut(i as usize)) {
                    *slot = None;
                }
                Reply::ok([])
            }
            Request::Bye {} => Reply::ok([]),
        })
    }
}

/// The error of a reference that is not even shaped like a polygon reference.
fn invalid_poly() -> MeshError {
    MeshError::InvalidPolyRef(PolyRef::from_raw(1 << 40).expect("a valid shape"))
}

impl Backend for Reference {
    fn call(&mut self, req: &Request) -> Result<Reply, BackendFailure> {
        Ok(match self.answer(req) {
            Ok(r) => r,
            Err(Bad(message)) => Reply::Error { message },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use onav::{TilePos, WorldSpec};

    fn ok_field(r: &Reply, k: &str) -> Value {
        match r {
            Reply::Ok { fields } => fields.get(k).cloned().unwrap_or(Value::Null),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn answers_a_small_session() {
        let w = WorldSpec {
            columns: 2,
            rows: 1,
            ..WorldSpec::default()
        };
        let mut r = Reference::new();
        let hello = r.call(&Request::Hello { protocol: 1 }).unwrap();
        assert_eq!(ok_field(&hello, "impl"), json!("onav-reference"));
        let m = ok_field(
            &r.call(&Request::NewMesh {
                params: b64(&w.params(2).to_bytes()),
            })
            .unwrap(),
            "mesh",
        );
        let t = w.tile(TilePos {
            column: 0,
            row: 0,
            layer: 0,
        });
        let add = r
            .call(&Request::AddTile {
                mesh: m.clone(),
                tile: b64(t.as_built_bytes()),
            })
            .unwrap();
        assert_eq!(ok_field(&add, "tile_ref"), json!(ref_to_hex(1 << 40)));
        // The same position again is a mesh rejection.
        let again = r
            .call(&Request::AddTile {
                mesh: m.clone(),
                tile: b64(t.as_built_bytes()),
            })
            .unwrap();
        assert!(
            matches!(&again, Reply::Rejected { class, field, .. } if class == "mesh" && field == "tile.position")
        );
        let bad = r
            .call(&Request::Restore {
                bytes: b64(b"nope"),
                library: vec![],
            })
            .unwrap();
        assert!(
            matches!(&bad, Reply::Rejected { class, field, .. } if class == "format" && field == "magic")
        );
        let unknown = r
            .call(&Request::Snapshot {
                mesh: json!(7),
                mode: "full".into(),
            })
            .unwrap();
        assert!(matches!(unknown, Reply::Error { .. }));
        let q = r
            .call(&Request::FindPath {
                mesh: m,
                args: json!({}),
            })
            .unwrap();
        assert_eq!(q, Reply::Unsupported {});
    }
}
