//! Request steps (`spec/conformance.md` §1.3, §6.6): each becomes one [`Request`]; the reply's
//! outcome is traced (to compare runs at several thread counts), and what it names — meshes, tile
//! references, output bytes — is bound to the step's names.

use serde_json::{Map, Value};

use super::{answer, harness, Done, Exec, Outcome, Stop, R};
use crate::exec::Status;
use crate::hex::sha256_hex;
use crate::protocol::{ref_from_hex, wire, BackendFailure, Reply, Request};
use crate::scenario::cache::{CacheRestoreStep, CacheStep};
use crate::scenario::refs::resolve_ref;
use crate::scenario::{parse_hex, world, Step};

/// A string field of a reply.
fn field_str<'m>(m: &'m Map<String, Value>, k: &str, op: &str) -> R<&'m str> {
    match m.get(k).and_then(Value::as_str) {
        Some(s) => Ok(s),
        None => Err(Stop(
            Status::Error,
            format!("{op}: the reply has no string field {k:?}"),
        )),
    }
}

/// The `bytes` field of a reply, decoded.
pub(super) fn reply_bytes(m: &Map<String, Value>, op: &str) -> R<Vec<u8>> {
    wire::unb64("bytes", field_str(m, "bytes", op)?).map_err(|r| {
        let e = match r {
            Reply::Error { message } => message,
            other => format!("{other:?}"),
        };
        Stop(Status::Error, format!("{op}: {e}"))
    })
}

/// A digest of reply fields for the trace (bytes are large; the digest is enough to compare).
fn digest_fields(m: &Map<String, Value>) -> String {
    let s = serde_json::to_string(m).unwrap_or_default();
    sha256_hex(s.as_bytes())[..16].to_owned()
}

impl Exec<'_> {
    /// Sends one request: the reply's outcome, or how the case ends (unsupported, a testee error,
    /// a crash or a timeout).
    pub(super) fn call(&mut self, req: &Request) -> R<Outcome> {
        let op = req.op();
        if !self.backend.supports(op) {
            return Err(Stop(
                Status::Unsupported,
                format!("the testee does not list {op} in hello"),
            ));
        }
        let out = match self.backend.call(req) {
            Ok(Reply::Ok { fields }) => Outcome::Ok(fields),
            Ok(Reply::Rejected {
                class,
                field,
                offset,
                ..
            }) => Outcome::Rejected {
                class,
                field,
                offset,
            },
            Ok(Reply::Unsupported {}) => {
                return Err(Stop(Status::Unsupported, format!("{op} is unsupported")))
            }
            Ok(Reply::Error { message }) => {
                return Err(Stop(
                    Status::Error,
                    format!("{op}: testee error: {message}"),
                ))
            }
            Err(BackendFailure::Crash(m)) => {
                return Err(Stop(Status::Crash, format!("{op}: testee crashed: {m}")))
            }
            Err(BackendFailure::Timeout) => {
                return Err(Stop(Status::Timeout, format!("{op}: no answer in time")))
            }
        };
        Ok(out)
    }

    /// As [`Self::call`], recording the outcome in the trace.
    pub(super) fn traced(&mut self, req: &Request) -> R<Outcome> {
        let out = self.call(req)?;
        let line = match &out {
            Outcome::Ok(f) => format!("{} ok {}", req.op(), digest_fields(f)),
            Outcome::Rejected {
                class,
                field,
                offset,
            } => match offset {
                Some(at) => format!("{} rejected {class} {field} {at}", req.op()),
                None => format!("{} rejected {class} {field}", req.op()),
            },
        };
        self.run.trace.push(line);
        Ok(out)
    }

    /// A request step: its request, the reply, and the names it binds. `mesh` is the mesh it acts
    /// on or makes.
    pub(super) fn request_step(&mut self, step: &Step, mesh: Option<String>) -> R<Done> {
        let handle = match &mesh {
            Some(m)
                if !matches!(
                    step,
                    Step::Restore(_) | Step::ReadMesh(_) | Step::Cache(_) | Step::CacheRestore(_)
                ) =>
            {
                Some(self.env.mesh(m)?)
            }
            _ => None,
        };
        let req = self.request(step, handle)?;
        let input = match step {
            Step::ContentId(c) => Some(self.env.bytes(&c.tile)?),
            _ => None,
        };
        let outcome = self.traced(&req)?;
        let mut unencodable = None;
        let output = match &outcome {
            // A query's output is its answer's canonical bytes (§3, "Query answers").
            Outcome::Ok(f) if answer::op_code(req.op()).is_some() => {
                match answer::encode(req.op(), f) {
                    Ok(b) => Some(b),
                    Err(e) => {
                        unencodable = Some(e.to_string());
                        None
                    }
                }
            }
            Outcome::Ok(f) => self.bind(step, f, req.op())?,
            Outcome::Rejected { .. } => None,
        };
        Ok(Done {
            outcome,
            output,
            mesh,
            input,
            tiles: Vec::new(),
            unencodable,
        })
    }

    /// The library of a restore: named bytes, as base64.
    fn library(&self, names: &[String]) -> R<Vec<String>> {
        names
            .iter()
            .map(|n| self.env.bytes(n).map(|b| wire::b64(&b)))
            .collect()
    }

    /// The parameter block of a `new_mesh`: its `params`, or its world's with the overrides.
    fn new_mesh_params(&self, step: &Step) -> R<Vec<u8>> {
        let Step::NewMesh(n) = step else {
            return harness(format!("{} is not new_mesh", step.key()));
        };
        let bytes = match (&n.params, &n.world) {
            (Some(h), _) => parse_hex(h).map_err(|e| Stop(Status::Error, e.to_string()))?,
            (None, Some(wn)) => {
                let w = self.env.world(wn)?;
                let digest = match &n.digest_of {
                    Some(d) => world::digest(self.env.world(d)?),
                    None => world::digest(w),
                };
                wire::params_block(
                    n.origin.map_or(w.origin, |o| o.map(|x| x.0)),
                    n.tile_size.map_or(w.tile_size, |t| t.0),
                    n.slots.unwrap_or(0),
                    digest,
                )
            }
            (None, None) => return harness("new_mesh without world or params"),
        };
        Ok(bytes)
    }

    /// The request of a step; `handle` is the mesh it acts on.
    fn request(&mut self, step: &Step, handle: Option<Value>) -> R<Request> {
        let mesh = || -> R<Value> {
            match &handle {
                Some(h) => Ok(h.clone()),
                None => harness("no mesh"),
            }
        };
        let env = &self.env;
        Ok(match step {
            Step::NewMesh(n) => {
                let bytes = self.new_mesh_params(step)?;
                self.lower.new_mesh(&n.name, &bytes);
                Request::NewMesh {
                    params: wire::b64(&bytes),
                }
            }
            Step::AddTile(a) => {
                let tile = wire::b64(&env.bytes(&a.tile)?);
                Request::AddTile {
                    mesh: mesh()?,
                    tile,
                }
            }
            Step::ReplaceTile(a) => {
                let tile = wire::b64(&env.bytes(&a.tile)?);
                Request::ReplaceTile {
                    mesh: mesh()?,
                    tile,
                }
            }
            Step::RemoveTile(r) => Request::RemoveTile {
                mesh: mesh()?,
                tile_ref: env.reference(&r.tile_ref)?,
            },
            Step::FindNearestPoly(q)
            | Step::FindPath(q)
            | Step::FindStraightPath(q)
            | Step::Raycast(q)
            | Step::CorridorCost(q) => {
                let refs = &env.refs;
                let args = q
                    .args(&|r| resolve_ref(r, &|n| refs.get(n).copied()))
                    .map_err(|e| Stop(Status::Error, e.to_string()))?;
                let mesh = mesh()?;
                match step {
                    Step::FindNearestPoly(_) => Request::FindNearestPoly { mesh, args },
                    Step::FindPath(_) => Request::FindPath { mesh, args },
                    Step::FindStraightPath(_) => Request::FindStraightPath { mesh, args },
                    Step::CorridorCost(_) => Request::CorridorCost { mesh, args },
                    _ => Request::Raycast { mesh, args },
                }
            }
            Step::SetArea(s) => Request::SetPolyArea {
                mesh: mesh()?,
                poly_ref: env.reference(&s.poly)?,
                area: s.area,
            },
            Step::SetFlags(s) => Request::SetPolyFlags {
                mesh: mesh()?,
                poly_ref: env.reference(&s.poly)?,
                flags: s.flags,
            },
            Step::SetLink(s) => Request::SetLinkEnabled {
                mesh: mesh()?,
                tile_ref: env.reference(&s.tile_ref)?,
                link: s.link,
                enabled: s.enabled,
            },
            Step::IsValidRef(p) => Request::IsValidRef {
                mesh: mesh()?,
                poly_ref: env.reference(&p.poly)?,
            },
            Step::GetPoly(p) => Request::GetPoly {
                mesh: mesh()?,
                poly_ref: env.reference(&p.poly)?,
            },
            Step::Snapshot(s) => Request::Snapshot {
                mesh: mesh()?,
                mode: s.mode.wire().into(),
            },
            Step::Restore(r) => Request::Restore {
                bytes: wire::b64(&env.bytes(&r.bytes)?),
                library: self.library(&r.library)?,
            },
            Step::RestoreInto(r) => Request::RestoreInto {
                mesh: env.mesh(&r.mesh)?,
                bytes: wire::b64(&env.bytes(&r.bytes)?),
                library: self.library(&r.library)?,
            },
            Step::WriteMesh(w) => Request::WriteMesh {
                mesh: env.mesh(&w.mesh)?,
            },
            Step::ReadMesh(r) => Request::ReadMesh {
                bytes: wire::b64(&env.bytes(&r.bytes)?),
            },
            Step::ParseTile(p) => Request::TileRoundtrip {
                tile: wire::b64(&env.bytes(&p.tile)?),
            },
            Step::ContentId(c) => Request::ContentId {
                tile: wire::b64(&env.bytes(&c.tile)?),
            },
            Step::Cache(c) => Request::CacheNew {
                obj: wire::b64(&env.bytes(&c.obj)?),
                settings: wire::b64(&env.bytes(&c.settings)?),
                slots: c.slots,
            },
            Step::AddObstacle(o) => Request::CacheAddObstacle {
                cache: mesh()?,
                shape: o.shape.wire().into(),
                values: o.values.iter().map(|v| wire::float(v.0)).collect(),
            },
            Step::RemoveObstacle(r) => Request::CacheRemoveObstacle {
                cache: mesh()?,
                id: r.id,
            },
            Step::AddVolume(v) => Request::CacheAddVolume {
                cache: mesh()?,
                area: v.area,
                min_y: wire::float(v.min_y.0),
                max_y: wire::float(v.max_y.0),
                polygon: v
                    .polygon
                    .iter()
                    .map(|[x, z]| [wire::float(x.0), wire::float(z.0)])
                    .collect(),
            },
            Step::RemoveVolume(r) => Request::CacheRemoveVolume {
                cache: mesh()?,
                id: r.id,
            },
            Step::Update(u) => Request::CacheUpdate {
                cache: mesh()?,
                max_tiles: u.max_tiles,
            },
            Step::CacheSnapshot(s) => Request::CacheSnapshot {
                cache: mesh()?,
                mode: s.mode.wire().into(),
            },
            Step::CacheRestore(r) => Request::CacheRestore {
                obj: wire::b64(&env.bytes(&r.obj)?),
                settings: wire::b64(&env.bytes(&r.settings)?),
                slots: r.slots,
                bytes: wire::b64(&env.bytes(&r.bytes)?),
                library: self.library(&r.library)?,
            },
            Step::CacheRestoreInto(r) => Request::CacheRestoreInto {
                cache: env.mesh(&r.cache)?,
                bytes: wire::b64(&env.bytes(&r.bytes)?),
                library: self.library(&r.library)?,
            },
            other => return harness(format!("{} is not a request step", other.key())),
        })
    }

    /// Binds what an accepted reply names to the step's names; returns the output bytes.
    fn bind(&mut self, step: &Step, f: &Map<String, Value>, op: &str) -> R<Option<Vec<u8>>> {
        let handle = || f.get("mesh").cloned().unwrap_or(Value::Null);
        let mut output = None;
        match step {
            Step::NewMesh(n) => self.env.define_mesh(&n.name, handle()),
            Step::Restore(r) => self.env.define_mesh(&r.name, handle()),
            Step::ReadMesh(r) => self.env.define_mesh(&r.name, handle()),
            Step::Cache(CacheStep { name, .. })
            | Step::CacheRestore(CacheRestoreStep { name, .. }) => {
                let h = f.get("cache").cloned().unwrap_or(Value::Null);
                self.env.define_mesh(name, h);
                self.env.caches.insert(name.clone());
            }
            Step::CacheSnapshot(s) => {
                let b = reply_bytes(f, op)?;
                self.env.define_bytes(&s.name, b.clone());
                output = Some(b);
            }
            Step::AddTile(a) | Step::ReplaceTile(a) => {
                if let Some(n) = &a.name {
                    let r = field_str(f, "tile_ref", op)?;
                    let v = ref_from_hex(r)
                        .ok_or_else(|| Stop(Status::Error, format!("bad tile_ref {r:?}")))?;
                    self.env.refs.insert(n.clone(), v);
                }
            }
            Step::Snapshot(s) => {
                let b = reply_bytes(f, op)?;
                self.env.define_bytes(&s.name, b.clone());
                output = Some(b);
            }
            Step::WriteMesh(w) => {
                let b = reply_bytes(f, op)?;
                self.env.define_bytes(&w.name, b.clone());
                output = Some(b);
            }
            Step::ParseTile(p) => {
                let b = reply_bytes(f, op)?;
                if let Some(n) = &p.name {
                    self.env.define_bytes(n, b.clone());
                }
                output = Some(b);
            }
            _ => {}
        }
        Ok(output)
    }
}
