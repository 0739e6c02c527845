//! `Reference`: the in-process onav implementation of [`Backend`], and what `onav testee` serves.
//! Mesh handles are JSON numbers indexing a list of meshes (a dropped mesh leaves a hole; handles
//! are never reused). Arguments are decoded and errors mapped to replies by [`crate::protocol::wire`], so
//! the replies are exactly those of `spec/conformance.md §6`. Beyond it, `get_poly` also
//! answers the polygon's stitched `links`, and the four queries take the `args` objects of
//! `spec/conformance.md` ("Queries").

use serde_json::{json, Value};

use onav::query::{NavMeshQuery, QueryError, QueryFilter, StraightPathOptions};
use onav::{
    read_mesh, write_mesh, LinkEnd, LinkKind, NavMeshSnapshot, PolyRef, Side, TileRef, TiledNavMesh,
};

use crate::protocol::cache::Caches;
use crate::protocol::query::{self, Args};
use crate::protocol::wire;
use crate::protocol::{ref_to_hex, Backend, BackendFailure, Reply, Request, PROTOCOLS};

/// The in-process reference backend.
#[derive(Debug, Default)]
pub struct Reference {
    meshes: Vec<Option<TiledNavMesh>>,
    /// Tile caches (`spec/conformance.md` §6.6, "Tile caches"); their handles are also mesh
    /// handles, naming the cache's mesh.
    caches: Caches,
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

/// A stitched link as JSON: target, kind and the kind's details.
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

/// The rejection of a query error: class `query`, field `invalid_ref` or `invalid_input` (the
/// spec compares the variant only).
pub fn query_rejected(e: &QueryError) -> Reply {
    let field = match e {
        QueryError::InvalidRef { .. } => "invalid_ref",
        // QueryError is non_exhaustive: any other refusal is an input the query cannot use.
        QueryError::InvalidInput { .. } | _ => "invalid_input",
    };
    Reply::Rejected {
        class: "query".into(),
        field: field.into(),
        offset: None,
        message: e.to_string(),
    }
}

impl Reference {
    /// A reference holding no mesh.
    pub fn new() -> Self {
        Self::default()
    }

    fn mesh(&mut self, h: &Value) -> Result<&mut TiledNavMesh, Reply> {
        if Caches::is_handle(h) {
            return self.caches.mesh(h);
        }
        h.as_u64()
            .and_then(|i| usize::try_from(i).ok())
            .and_then(|i| self.meshes.get_mut(i))
            .and_then(Option::as_mut)
            .ok_or_else(|| wire::error(format!("unknown mesh handle {h}")))
    }

    fn keep(&mut self, m: TiledNavMesh) -> Reply {
        self.meshes.push(Some(m));
        Reply::ok([("mesh", json!(self.meshes.len() - 1))])
    }

    fn answer(&mut self, req: &Request) -> Result<Reply, Reply> {
        if let Some(r) = self.caches.answer(req) {
            return r;
        }
        Ok(match req {
            Request::Hello { protocol } => {
                if !PROTOCOLS.contains(protocol) {
                    return Err(wire::error(format!(
                        "protocol {protocol} not spoken; this testee speaks {PROTOCOLS:?}"
                    )));
                }
                let features: Vec<&str> = crate::scenario::FEATURES.iter().map(|f| f.0).collect();
                Reply::ok([
                    (
                        "impl",
                        json!(concat!("onav-reference ", env!("CARGO_PKG_VERSION"))),
                    ),
                    ("protocol", json!(protocol)),
                    // The reference answers every op of the protocol.
                    ("ops", json!(crate::protocol::OPS)),
                    ("features", json!(features)),
                ])
            }
            Request::NewMesh { params } => {
                let p = wire::params(params)?;
                self.keep(TiledNavMesh::new(p))
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
                if *area > 63 {
                    return Err(wire::mesh_rejected(&onav::MeshError::AreaOutOfRange {
                        area: *area,
                        max: onav::limits::MAX_AREA,
                    }));
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
                match (m.poly_area(r), m.poly_flags(r), m.links(r)) {
                    (Some(a), Some(f), Some(links)) => Reply::ok([
                        ("area", json!(a)),
                        ("flags", json!(f)),
                        ("links", Value::Array(links.iter().map(link_json).collect())),
                    ]),
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
                m.set_off_mesh_link_enabled(r, onav::LinkIndex(*link), *enabled)
                    .map_err(|e| wire::mesh_rejected(&e))?;
                Reply::ok([])
            }
            Request::IsValidRef { mesh, poly_ref } => {
                let raw = wire::reference("poly_ref", poly_ref)?;
                let valid = self.mesh(mesh)?.is_valid_raw_ref(raw);
                Reply::ok([("valid", json!(valid))])
            }
            Request::Snapshot { mesh, mode } => {
                let mode = wire::mode(mode)?;
                let b = self.mesh(mesh)?.snapshot(mode);
                Reply::ok([("bytes", json!(wire::b64(&b)))])
            }
            Request::Restore { bytes, library } => {
                let b = wire::unb64("bytes", bytes)?;
                let lib = wire::library(library)?;
                let m =
                    NavMeshSnapshot::restore(&b, &lib).map_err(|e| wire::restore_rejected(&e))?;
                self.keep(m)
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
                Reply::ok([("bytes", json!(wire::b64(&b)))])
            }
            Request::ReadMesh { bytes } => {
                let b = wire::unb64("bytes", bytes)?;
                let m = read_mesh(&b).map_err(|e| wire::restore_rejected(&e))?;
                self.keep(m)
            }
            Request::TileRoundtrip { tile } => {
                let t = wire::tile("tile", tile)?;
                Reply::ok([("bytes", json!(wire::b64(&t.to_bytes())))])
            }
            Request::ContentId { tile } => {
                let t = wire::tile("tile", tile)?;
                Reply::ok([("id", json!(t.content_id().to_hex()))])
            }
            Request::FindNearestPoly { mesh, args }
            | Request::FindPath { mesh, args }
            | Request::FindStraightPath { mesh, args }
            | Request::Raycast { mesh, args }
            | Request::CorridorCost { mesh, args } => {
                let m: &TiledNavMesh = self.mesh(mesh)?;
                let a = Args::parse(req.op(), args).map_err(|e| wire::error(e.to_string()))?;
                Self::query(m, &a)?
            }
            Request::Build { obj, settings } => crate::protocol::build::answer(obj, settings)?,
            Request::Drop { mesh } if Caches::is_handle(mesh) => self.caches.drop_cache(mesh)?,
            Request::Drop { mesh } => {
                self.mesh(mesh)?;
                if let Some(slot) = mesh
                    .as_u64()
                    .and_then(|i| usize::try_from(i).ok())
                    .and_then(|i| self.meshes.get_mut(i))
                {
                    *slot = None;
                }
                Reply::ok([])
            }
            Request::Bye {} => Reply::ok([]),
            // Answered by `self.caches` above.
            Request::CacheNew { .. }
            | Request::CacheAddObstacle { .. }
            | Request::CacheRemoveObstacle { .. }
            | Request::CacheAddVolume { .. }
            | Request::CacheRemoveVolume { .. }
            | Request::CacheUpdate { .. }
            | Request::CacheSnapshot { .. }
            | Request::CacheRestore { .. }
            | Request::CacheRestoreInto { .. } => {
                return Err(wire::error(format!("{} was not answered", req.op())))
            }
        })
    }

    fn query(m: &TiledNavMesh, a: &Args) -> Result<Reply, Reply> {
        let rej = |e: QueryError| query_rejected(&e);
        let q = NavMeshQuery::new(m, a.max_nodes).map_err(rej)?;
        let filter = |a: &Args| -> Result<QueryFilter, Reply> {
            let mut f = QueryFilter::new();
            f.set_include_flags(a.include).set_exclude_flags(a.exclude);
            for &(area, cost) in &a.area_costs {
                f.set_area_cost(area, cost).map_err(rej)?;
            }
            Ok(f)
        };
        // A reference of generation 0 has no `PolyRef`: never valid, so `InvalidRef` where the
        // query checks its references (`spec/queries.md` §1.3, after the pool size and filter).
        let poly = |raw: u64, what: &str| -> Result<PolyRef, Reply> {
            PolyRef::from_raw(raw).ok_or_else(|| Reply::Rejected {
                class: "query".into(),
                field: "invalid_ref".into(),
                offset: None,
                message: format!("invalid polygon reference {raw:#018x} (generation 0) for {what}"),
            })
        };
        let refs = |v: &[PolyRef]| -> Value {
            Value::Array(v.iter().map(|r| json!(ref_to_hex(r.raw()))).collect())
        };
        Ok(match a.op {
            query::Op::Nearest => {
                let f = filter(a)?;
                match q
                    .find_nearest_poly(a.center, a.half_extents, &f)
                    .map_err(rej)?
                {
                    Some(n) => Reply::ok([
                        ("found", json!(true)),
                        ("poly", json!(ref_to_hex(n.poly.raw()))),
                        ("point", wire::floats(&n.point)),
                        ("over_poly", json!(n.over_poly)),
                    ]),
                    None => Reply::ok([("found", json!(false))]),
                }
            }
            query::Op::Path => {
                let f = filter(a)?;
                let (s, e) = (poly(a.start_ref, "start_ref")?, poly(a.end_ref, "end_ref")?);
                let p = q
                    .find_path(s, e, a.start_pos, a.end_pos, &f)
                    .map_err(|e| match e {
                        QueryError::InvalidRef { .. } => query_rejected(&e),
                        other => query_rejected(&other),
                    })?;
                Reply::ok([
                    ("corridor", refs(&p.corridor)),
                    ("status", json!(query::status_name(p.status))),
                    ("cost", wire::float(p.cost)),
                ])
            }
            query::Op::StraightPath => {
                let options = StraightPathOptions {
                    area_crossings: a.area_crossings,
                    all_crossings: a.all_crossings,
                };
                let c = &a.corridor;
                let ends = match (c.first(), c.last()) {
                    (Some(&f), Some(&l)) => {
                        vec![poly(f, "corridor[0]")?, poly(l, "corridor[last]")?]
                    }
                    _ => Vec::new(),
                };
                let Some(corridor) = c
                    .iter()
                    .map(|&r| PolyRef::from_raw(r))
                    .collect::<Option<Vec<_>>>()
                else {
                    // A middle polygon of generation 0: no polygon links to it, so the corridor
                    // is not linked (§1.3), once the ends and the positions have passed.
                    q.find_straight_path(a.start_pos, a.end_pos, &ends, options)
                        .map_err(rej)?;
                    return Err(generation_zero_not_linked());
                };
                let pts = q
                    .find_straight_path(a.start_pos, a.end_pos, &corridor, options)
                    .map_err(rej)?;
                let pts: Vec<Value> = pts
                    .iter()
                    .map(|p| {
                        json!({"pos": wire::floats(&p.pos), "flags": p.flags.bits(), "poly": ref_to_hex(p.poly.raw())})
                    })
                    .collect();
                Reply::ok([("points", Value::Array(pts))])
            }
            query::Op::CorridorCost => {
                let f = filter(a)?;
                let c = &a.corridor;
                let Some(corridor) = c
                    .iter()
                    .map(|&r| PolyRef::from_raw(r))
                    .collect::<Option<Vec<_>>>()
                else {
                    // A reference of generation 0: `invalid_ref` at either end, else (once the
                    // ends and positions have passed) a step that reaches no polygon (E2).
                    if let (Some(&f0), Some(&l0)) = (c.first(), c.last()) {
                        let ends = [poly(f0, "corridor[0]")?, poly(l0, "corridor[last]")?];
                        q.corridor_cost(&ends, a.start_pos, a.end_pos, &f)
                            .map_err(rej)?;
                    }
                    return Err(generation_zero_not_linked());
                };
                let cost = q
                    .corridor_cost(&corridor, a.start_pos, a.end_pos, &f)
                    .map_err(rej)?;
                Reply::ok([("cost", wire::float(cost))])
            }
            query::Op::Raycast => {
                let f = filter(a)?;
                let s = poly(a.start_ref, "start_ref")?;
                let h = q
                    .raycast(
                        s,
                        a.start_pos,
                        a.end_pos,
                        &f,
                        onav::query::RaycastOptions { costs: a.costs },
                    )
                    .map_err(rej)?;
                let mut fields = vec![
                    ("t", wire::float(h.t)),
                    ("stop", json!(query::stop_name(&h.stop))),
                    ("normal", wire::floats(&h.hit_normal())),
                    ("visited", refs(&h.visited)),
                ];
                if let Some(e) = h.hit_edge() {
                    fields.push(("edge", json!(e)));
                }
                if let Some(c) = h.cost {
                    fields.push(("cost", wire::float(c)));
                }
                Reply::ok(fields)
            }
        })
    }
}

impl Backend for Reference {
    fn call(&mut self, req: &Request) -> Result<Reply, BackendFailure> {
        Ok(match self.answer(req) {
            Ok(r) | Err(r) => r,
        })
    }
}

/// The rejection of a corridor holding a polygon reference of generation 0 once its ends and
/// positions have passed their checks: no polygon links to such a reference, so the corridor
/// is not linked (`spec/queries.md` §1.3).
fn generation_zero_not_linked() -> Reply {
    Reply::Rejected {
        class: "query".into(),
        field: "invalid_input".into(),
        offset: None,
        message: "invalid input: a corridor polygon of generation 0 is not linked".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::wire::b64;
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
        assert!(ok_field(&hello, "impl")
            .as_str()
            .unwrap()
            .starts_with("onav-reference"));
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
        let add = |r: &mut Reference| {
            r.call(&Request::AddTile {
                mesh: m.clone(),
                tile: b64(t.as_built_bytes()),
            })
            .unwrap()
        };
        assert_eq!(
            ok_field(&add(&mut r), "tile_ref"),
            json!(ref_to_hex(1 << 40))
        );
        assert!(
            matches!(&add(&mut r), Reply::Rejected { class, field, .. } if class == "mesh" && field == "position_taken")
        );
        let poly = r
            .call(&Request::GetPoly {
                mesh: m.clone(),
                poly_ref: ref_to_hex(1 << 40),
            })
            .unwrap();
        assert!(ok_field(&poly, "links").is_array());
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
            .call(&Request::FindNearestPoly {
                mesh: m,
                args: json!({"max_nodes": 16, "center": [4.0, 0.0, 4.0], "half_extents": [1.0, 1.0, 1.0]}),
            })
            .unwrap();
        assert_eq!(ok_field(&q, "poly"), json!(ref_to_hex(1 << 40)));
    }

    fn rejected_as(r: &Reply) -> (String, String, Option<u64>) {
        match r {
            Reply::Rejected {
                class,
                field,
                offset,
                ..
            } => (class.clone(), field.clone(), *offset),
            other => panic!("{other:?}"),
        }
    }

    /// The tile cache ops (`spec/conformance.md` §6.6, "Tile caches"): a cache's handle is a mesh
    /// handle, shapes and ids are refused with class `cache`, restores with the snapshot's
    /// errors, and a refused restore changes nothing.
    #[test]
    fn answers_tile_cache_ops() {
        let obj = b"v 0 0 0\nv 0 0 24\nv 24 0 0\nv 24 0 24\nf 1 2 3\nf 3 2 4\n";
        let settings = onav_build3d::Settings::new(onav_build3d::SettingsSpec {
            cell_size: 0.5,
            tile_size: 16,
            detail_sample_dist: 0.0,
            ..onav_build3d::SettingsSpec::default()
        })
        .unwrap();
        let mut r = Reference::new();
        let call = |r: &mut Reference, q: Request| r.call(&q).unwrap();
        let c = ok_field(
            &call(
                &mut r,
                Request::CacheNew {
                    obj: b64(obj),
                    settings: b64(settings.to_bytes()),
                    slots: None,
                },
            ),
            "cache",
        );
        assert_eq!(c, json!({"cache": 0}));
        let bad = call(
            &mut r,
            Request::CacheAddObstacle {
                cache: c.clone(),
                shape: "cylinder".into(),
                values: [12.0, 0.0, 12.0, 0.0, 2.0].map(wire::float).to_vec(),
            },
        );
        assert_eq!(
            rejected_as(&bad),
            ("cache".into(), "obstacle.radius".into(), None)
        );
        let nan = call(
            &mut r,
            Request::CacheAddObstacle {
                cache: c.clone(),
                shape: "box".into(),
                values: [0.0, 0.0, f64::NAN, 1.0, 1.0, 1.0]
                    .map(wire::float)
                    .to_vec(),
            },
        );
        assert_eq!(rejected_as(&nan).1, "obstacle.min_z");
        let wrong = call(
            &mut r,
            Request::CacheAddObstacle {
                cache: c.clone(),
                shape: "box".into(),
                values: vec![json!(1.0)],
            },
        );
        assert!(matches!(wrong, Reply::Error { .. }));
        let id = call(
            &mut r,
            Request::CacheAddObstacle {
                cache: c.clone(),
                shape: "oriented_box".into(),
                values: [12.0, 0.0, 12.0, 1.0, 1.0, 1.0, 0.5]
                    .map(wire::float)
                    .to_vec(),
            },
        );
        assert_eq!(ok_field(&id, "id"), json!(1));
        let v = call(
            &mut r,
            Request::CacheAddVolume {
                cache: c.clone(),
                area: 64,
                min_y: json!(-1.0),
                max_y: json!(1.0),
                polygon: vec![
                    [json!(0.0), json!(0.0)],
                    [json!(1.0), json!(0.0)],
                    [json!(1.0), json!(1.0)],
                ],
            },
        );
        assert_eq!(rejected_as(&v).1, "volume.area");
        let gone = call(
            &mut r,
            Request::CacheRemoveVolume {
                cache: c.clone(),
                id: 1,
            },
        );
        assert_eq!(rejected_as(&gone).1, "unknown_volume");
        let full = |r: &mut Reference| {
            ok_field(
                &r.call(&Request::CacheSnapshot {
                    cache: c.clone(),
                    mode: "full".into(),
                })
                .unwrap(),
                "bytes",
            )
        };
        let queued = full(&mut r);
        let u = call(
            &mut r,
            Request::CacheUpdate {
                cache: c.clone(),
                max_tiles: 1,
            },
        );
        assert_eq!(ok_field(&u, "cells"), json!(1));
        assert_eq!(ok_field(&u, "remaining"), json!(8));
        // The cache's handle is a mesh handle.
        let mesh_snap = call(
            &mut r,
            Request::Snapshot {
                mesh: c.clone(),
                mode: "full".into(),
            },
        );
        assert!(ok_field(&mesh_snap, "bytes")
            .as_str()
            .unwrap()
            .starts_with("T05QUw"));
        let before = full(&mut r);
        let mut cut = wire::unb64("b", queued.as_str().unwrap()).unwrap();
        cut[0] = b'X';
        let refused = call(
            &mut r,
            Request::CacheRestoreInto {
                cache: c.clone(),
                bytes: b64(&cut),
                library: vec![],
            },
        );
        assert_eq!(
            rejected_as(&refused),
            ("format".into(), "magic".into(), Some(0))
        );
        assert_eq!(full(&mut r), before);
        let back = call(
            &mut r,
            Request::CacheRestoreInto {
                cache: c.clone(),
                bytes: queued.as_str().unwrap().into(),
                library: vec![],
            },
        );
        assert!(matches!(back, Reply::Ok { .. }));
        assert_eq!(full(&mut r), queued);
        let d = ok_field(
            &call(
                &mut r,
                Request::CacheRestore {
                    obj: b64(obj),
                    settings: b64(settings.to_bytes()),
                    slots: None,
                    bytes: queued.as_str().unwrap().into(),
                    library: vec![],
                },
            ),
            "cache",
        );
        assert_eq!(d, json!({"cache": 1}));
        let few = call(
            &mut r,
            Request::CacheNew {
                obj: b64(obj),
                settings: b64(settings.to_bytes()),
                slots: Some(8),
            },
        );
        assert_eq!(
            rejected_as(&few),
            ("cache".into(), "slot_count".into(), None)
        );
        assert!(matches!(
            call(&mut r, Request::Drop { mesh: c.clone() }),
            Reply::Ok { .. }
        ));
        assert!(matches!(
            call(
                &mut r,
                Request::CacheUpdate {
                    cache: c,
                    max_tiles: 1
                }
            ),
            Reply::Error { .. }
        ));
    }
}
