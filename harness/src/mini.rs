//! `MiniBackend`: a small backend over onav answering every non-query op of the testee protocol.
//! It exists so the protocol, the server, the client and the mutants can be tested on their own
//! (`onav testee` serves it until the runner's reference backend takes its place). Queries answer
//! `unsupported` and are not listed in `hello`.
//!
//! Mesh handles are JSON integers 1, 2, 3, … in creation order, never reused.

use std::collections::BTreeMap;

use onav::{read_mesh, write_mesh, NavMeshSnapshot, PolyRef, TileRef, TiledNavMesh};
use serde_json::Value;

use crate::protocol::{Backend, BackendFailure, Reply, Request, PROTOCOL_VERSION};
use crate::wire;

/// The ops [`MiniBackend`] answers, as listed in its `hello` reply.
pub const MINI_OPS: &[&str] = &[
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

/// A minimal in-process backend over onav.
#[derive(Debug, Default)]
pub struct MiniBackend {
    meshes: BTreeMap<u64, TiledNavMesh>,
    next: u64,
}

impl MiniBackend {
    /// A backend holding no mesh.
    pub fn new() -> Self {
        Self::default()
    }

    fn insert(&mut self, m: TiledNavMesh) -> Reply {
        self.next += 1;
        self.meshes.insert(self.next, m);
        Reply::ok([("mesh", Value::from(self.next))])
    }

    fn mesh(&mut self, h: &Value) -> Result<&mut TiledNavMesh, Reply> {
        h.as_u64()
            .and_then(|k| self.meshes.get_mut(&k))
            .ok_or_else(|| wire::error(format!("unknown mesh handle {h}")))
    }

    fn answer(&mut self, req: &Request) -> Result<Reply, Reply> {
        Ok(match req {
            Request::Hello { protocol } => {
                if *protocol != PROTOCOL_VERSION {
                    return Err(wire::error(format!(
                        "protocol {protocol} not spoken; this testee speaks {PROTOCOL_VERSION}"
                    )));
                }
                Reply::ok([
                    (
                        "impl",
                        Value::from(concat!("onav-mini ", env!("CARGO_PKG_VERSION"))),
                    ),
                    ("protocol", Value::from(PROTOCOL_VERSION)),
                    ("ops", Value::from(MINI_OPS.to_vec())),
                    ("features", Value::Array(Vec::new())),
                ])
            }
            Request::NewMesh { params } => {
                let p = wire::params(params)?;
                self.insert(TiledNavMesh::new(p))
            }
            Request::AddTile { mesh, tile } => {
                let m = self.mesh(mesh)?;
                let t = wire::tile("tile", tile)?;
                let r = m.add_tile(t).map_err(|e| wire::mesh_rejected(&e))?;
                Reply::ok([("tile_ref", wire::reference_value(r.raw()))])
            }
            Request::ReplaceTile { mesh, tile } => {
                let m = self.mesh(mesh)?;
                let t = wire::tile("tile", tile)?;
                let r = m.replace_tile(t).map_err(|e| wire::mesh_rejected(&e))?;
                Reply::ok([("tile_ref", wire::reference_value(r.raw()))])
            }
            Request::RemoveTile { mesh, tile_ref } => {
                let raw = wire::reference("tile_ref", tile_ref)?;
                let m = self.mesh(mesh)?;
                let r = TileRef::from_raw(raw).ok_or_else(|| wire::invalid_tile_ref(raw))?;
                m.remove_tile(r).map_err(|e| wire::mesh_rejected(&e))?;
                Reply::ok([])
            }
            Request::SetPolyArea {
                mesh,
                poly_ref,
                area,
            } => {
                let raw = wire::reference("poly_ref", poly_ref)?;
                let m = self.mesh(mesh)?;
                // The area rule is checked before the reference, as onav does.
                if *area > 63 {
                    return Err(wire::mesh_rejected(&onav::MeshError::AreaOutOfRange(*area)));
                }
                let r = PolyRef::from_raw(raw).ok_or_else(|| wire::invalid_poly_ref(raw))?;
                m.set_poly_area(r, *area)
                    .map_err(|e| wire::mesh_rejected(&e))?;
                Reply::ok([])
            }
            Request::SetPolyFlags {
                mesh,
                poly_ref,
                flags,
            } => {
                let raw = wire::reference("poly_ref", poly_ref)?;
                let m = self.mesh(mesh)?;
                let r = PolyRef::from_raw(raw).ok_or_else(|| wire::invalid_poly_ref(raw))?;
                m.set_poly_flags(r, *flags)
                    .map_err(|e| wire::mesh_rejected(&e))?;
                Reply::ok([])
            }
            Request::GetPoly { mesh, poly_ref } => {
                let raw = wire::reference("poly_ref", poly_ref)?;
                let m = self.mesh(mesh)?;
                let r = PolyRef::from_raw(raw).ok_or_else(|| wire::invalid_poly_ref(raw))?;
                match (m.poly_area(r), m.poly_flags(r)) {
                    (Some(a), Some(f)) => {
                        Reply::ok([("area", Value::from(a)), ("flags", Value::from(f))])
                    }
                    _ => return Err(wire::invalid_poly_ref(raw)),
                }
            }
            Request::SetLinkEnabled {
                mesh,
                tile_ref,
                link,
                enabled,
            } => {
                let raw = wire::reference("tile_ref", tile_ref)?;
                let m = self.mesh(mesh)?;
                let r = TileRef::from_raw(raw).ok_or_else(|| wire::invalid_tile_ref(raw))?;
                m.set_off_mesh_link_enabled(r, *link, *enabled)
                    .map_err(|e| wire::mesh_rejected(&e))?;
                Reply::ok([])
            }
            Request::IsValidRef { mesh, poly_ref } => {
                let raw = wire::reference("poly_ref", poly_ref)?;
                let valid = self.mesh(mesh)?.is_valid_raw_ref(raw);
                Reply::ok([("valid", Value::from(valid))])
            }
            Request::Snapshot { mesh, mode } => {
                let mode = wire::mode(mode)?;
                let b = self.mesh(mesh)?.snapshot(mode);
                Reply::ok([("bytes", Value::from(wire::b64(&b)))])
            }
            Request::Restore { bytes, library } => {
                let b = wire::unb64("bytes", bytes)?;
                let lib = wire::library(library)?;
                let m =
                    NavMeshSnapshot::restore(&b, &lib).map_err(|e| wire::restore_rejected(&e))?;
                self.insert(m)
            }
            Request::RestoreInto {
                mesh,
                bytes,
                library,
            } => {
                let m = self.mesh(mesh)?;
                let b = wire::unb64("bytes", bytes)?;
                let lib = wire::library(library)?;
                m.restore(&b, &lib)
                    .map_err(|e| wire::restore_rejected(&e))?;
                Reply::ok([])
            }
            Request::WriteMesh { mesh } => {
                let b = write_mesh(self.mesh(mesh)?);
                Reply::ok([("bytes", Value::from(wire::b64(&b)))])
            }
            Request::ReadMesh { bytes } => {
                let b = wire::unb64("bytes", bytes)?;
                let m = read_mesh(&b).map_err(|e| wire::restore_rejected(&e))?;
                self.insert(m)
            }
            Request::TileRoundtrip { tile } => {
                let t = wire::tile("tile", tile)?;
                Reply::ok([("bytes", Value::from(wire::b64(&t.to_bytes())))])
            }
            Request::ContentId { tile } => {
                let t = wire::tile("tile", tile)?;
                Reply::ok([("id", Value::from(t.content_id().to_hex()))])
            }
            Request::Drop { mesh } => {
                let k = mesh.as_u64().filter(|k| self.meshes.contains_key(k));
                let k = k.ok_or_else(|| wire::error(format!("unknown mesh handle {mesh}")))?;
                self.meshes.remove(&k);
                Reply::ok([])
            }
            Request::Bye {} => Reply::ok([]),
            Request::FindNearestPoly { .. }
            | Request::FindPath { .. }
            | Request::FindStraightPath { .. }
            | Request::Raycast { .. } => Reply::Unsupported {},
        })
    }
}

impl Backend for MiniBackend {
    fn supports(&self, op: &str) -> bool {
        MINI_OPS.contains(&op)
    }

    fn has_feature(&self, _feature: &str) -> bool {
        false
    }

    fn call(&mut self, req: &Request) -> Result<Reply, BackendFailure> {
        Ok(self.answer(req).unwrap_or_else(|r| r))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use onav::{SnapshotMode, WorldSpec};

    fn ok(r: Reply) -> serde_json::Map<String, Value> {
        match r {
            Reply::Ok { fields } => fields,
            r => panic!("{r:?}"),
        }
    }

    #[test]
    fn builds_snapshots_and_restores() {
        let w = WorldSpec {
            columns: 2,
            rows: 1,
            links_per_tile: 1,
            ..WorldSpec::default()
        };
        let mut b = MiniBackend::new();
        let mesh = ok(b
            .call(&Request::NewMesh {
                params: wire::b64(&w.params(3).to_bytes()),
            })
            .unwrap())["mesh"]
            .clone();
        let mut expect = TiledNavMesh::new(w.params(3));
        for t in w.tiles() {
            let f = ok(b
                .call(&Request::AddTile {
                    mesh: mesh.clone(),
                    tile: wire::b64(&t.to_bytes()),
                })
                .unwrap());
            let r = expect.add_tile(t).unwrap();
            assert_eq!(f["tile_ref"], wire::reference_value(r.raw()));
        }
        let snap = ok(b
            .call(&Request::Snapshot {
                mesh: mesh.clone(),
                mode: "full".into(),
            })
            .unwrap());
        assert_eq!(
            snap["bytes"],
            Value::from(wire::b64(&expect.snapshot(SnapshotMode::Full)))
        );
        let again = ok(b
            .call(&Request::Restore {
                bytes: snap["bytes"].as_str().unwrap().into(),
                library: vec![],
            })
            .unwrap());
        assert_ne!(again["mesh"], mesh);
        // Taking the same position again is a mesh error.
        let t = w.tiles()[0].to_bytes();
        let r = b
            .call(&Request::AddTile {
                mesh: mesh.clone(),
                tile: wire::b64(&t),
            })
            .unwrap();
        assert!(
            matches!(r, Reply::Rejected { ref class, ref field, .. } if class == "mesh" && field == "position_taken"),
            "{r:?}"
        );
        // Forged references are answered.
        for raw in [0u64, 1, u64::MAX] {
            let r = ok(b
                .call(&Request::IsValidRef {
                    mesh: mesh.clone(),
                    poly_ref: crate::protocol::ref_to_hex(raw),
                })
                .unwrap());
            assert_eq!(r["valid"], Value::from(false));
            let r = b
                .call(&Request::SetPolyFlags {
                    mesh: mesh.clone(),
                    poly_ref: crate::protocol::ref_to_hex(raw),
                    flags: 1,
                })
                .unwrap();
            assert!(matches!(r, Reply::Rejected { ref field, .. } if field == "invalid_poly_ref"));
        }
        assert!(matches!(
            b.call(&Request::Drop {
                mesh: Value::from(99)
            })
            .unwrap(),
            Reply::Error { .. }
        ));
    }
}
