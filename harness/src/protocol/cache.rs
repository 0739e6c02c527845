//! The tile cache ops (`spec/conformance.md` §6.6, "Tile caches"; `spec/tilecache.md`): caches
//! created from OBJ bytes and settings, obstacles and volumes, `update`, `ONTK` snapshots and
//! restores, answered through the public API of `onav-tilecache`. One mapping from the cache's
//! errors to replies, for the reference and any Rust testee:
//!
//! - creating (`cache_new`, `cache_restore`): the `build` op's replies (settings, OBJ, build), and
//!   class `cache`, field `slot_count` for a slot count the build does not fit;
//! - a shape its constructor refuses (TC4, TC5): class `cache`, field `obstacle.` or `volume.` +
//!   the value the constructor names (`obstacle.radius`, `volume.corner[2]`), no offset;
//! - an id operation (TC2, TC6, TC7): class `cache`, field `unknown_obstacle`, `unknown_volume`,
//!   `obstacle_ids_exhausted`, `volume_ids_exhausted`, `too_many_obstacles`, `too_many_volumes`;
//! - `update` (TC12): class `cache`, field `update.cell[C,R].` + `no_free_slot`, `mesh.KIND` or
//!   the `build` op's KIND, no offset;
//! - a restore (TC18–TC29): the snapshot's own class (`format`, `fingerprint`), field path and
//!   absolute offset, as `restore`.
//!
//! Cache handles are `{"cache": N}`: JSON objects, so they never collide with the numbers the
//! reference gives meshes, and a mesh op given one acts on the cache's mesh (TC17).

use onav::TiledNavMesh;
use onav_build3d::BuildObjError;
use onav_tilecache::{
    CacheError, CreateError, FromSnapshotError, Obstacle, ObstacleId, ObstacleShape, ShapeError,
    TileCache, UpdateError, UpdateErrorKind, Volume, VolumeId, SHAPE_BOX, SHAPE_CYLINDER,
    SHAPE_ORIENTED_BOX,
};
use serde_json::{json, Value};

use super::{build, wire, Reply, Request};

/// The wire names of the obstacle shapes and their codes (TC3).
pub const SHAPES: &[(&str, u8)] = &[
    ("cylinder", SHAPE_CYLINDER),
    ("box", SHAPE_BOX),
    ("oriented_box", SHAPE_ORIENTED_BOX),
];

/// The shape code of a wire name.
pub fn shape_code(name: &str) -> Option<u8> {
    SHAPES.iter().find(|s| s.0 == name).map(|s| s.1)
}

/// A `cache`-class rejection with this field and no offset.
fn cache_class(field: impl Into<String>, message: String) -> Reply {
    Reply::Rejected {
        class: "cache".into(),
        field: field.into(),
        offset: None,
        message,
    }
}

/// The reply to a cache that could not be created from `obj` and its settings.
pub fn create_rejected(e: &CreateError, obj: &[u8]) -> Reply {
    match e {
        CreateError::Settings(f) => build::rejected(&BuildObjError::Settings(f.clone()), obj),
        CreateError::Obj(o) => build::rejected(&BuildObjError::Obj(o.clone()), obj),
        CreateError::Build(b) => build::rejected(&BuildObjError::Build(b.clone()), obj),
        CreateError::SlotCount { .. } => cache_class("slot_count", e.to_string()),
        CreateError::Mesh(m) => wire::mesh_rejected(m),
    }
}

/// The reply to a shape its constructor refused: `obstacle.` or `volume.` + the value named.
pub fn shape_rejected(what: &str, e: &ShapeError) -> Reply {
    cache_class(format!("{what}.{}", e.field), e.to_string())
}

/// The field naming an id operation's failure.
pub fn cache_error_field(e: &CacheError) -> &'static str {
    match e {
        CacheError::ObstacleIdsExhausted { .. } => "obstacle_ids_exhausted",
        CacheError::VolumeIdsExhausted { .. } => "volume_ids_exhausted",
        CacheError::TooManyObstacles { .. } => "too_many_obstacles",
        CacheError::TooManyVolumes { .. } => "too_many_volumes",
        CacheError::UnknownObstacle { .. } => "unknown_obstacle",
        CacheError::UnknownVolume { .. } => "unknown_volume",
    }
}

/// The reply to a refused obstacle or volume operation.
pub fn cache_rejected(e: &CacheError) -> Reply {
    cache_class(cache_error_field(e), e.to_string())
}

/// The field of a failed update: `update.cell[C,R].` and what failed.
pub fn update_field(e: &UpdateError) -> String {
    let at = format!("update.cell[{},{}].", e.cell.column, e.cell.row);
    match &e.kind {
        UpdateErrorKind::Build(b) => {
            // The build error may name the cell itself; the update's cell prefix replaces it.
            let f = build::build_field(b);
            let cell = format!("cell[{},{}].", e.cell.column, e.cell.row);
            format!("{at}{}", f.strip_prefix(&cell).unwrap_or(&f))
        }
        UpdateErrorKind::NoFreeSlot { .. } => format!("{at}no_free_slot"),
        UpdateErrorKind::Mesh(m) => format!("{at}mesh.{}", wire::mesh_error_kind(m)),
    }
}

/// A float argument of the wire form of [`wire::float`]; an `error` reply otherwise.
fn float_arg(arg: &str, v: &Value) -> Result<f64, Reply> {
    wire::float_from(v).ok_or_else(|| wire::error(format!("argument {arg} is not a float: {v}")))
}

/// The obstacle of a `cache_add_obstacle` request, validated by its constructor (TC4).
pub fn obstacle(shape: &str, values: &[Value]) -> Result<Obstacle, Reply> {
    let code = shape_code(shape).ok_or_else(|| {
        wire::error(format!(
            "shape must be cylinder, box or oriented_box, not {shape:?}"
        ))
    })?;
    let v = values
        .iter()
        .enumerate()
        .map(|(i, x)| float_arg(&format!("values[{i}]"), x))
        .collect::<Result<Vec<f64>, Reply>>()?;
    let s = ObstacleShape::from_values(code, &v).ok_or_else(|| {
        let n = ObstacleShape::field_names(code).map_or(0, <[_]>::len);
        wire::error(format!("a {shape} has {n} values, not {}", v.len()))
    })?;
    Obstacle::new(s).map_err(|e| shape_rejected("obstacle", &e))
}

/// The volume of a `cache_add_volume` request, validated by its constructor (TC5).
pub fn volume(
    area: u8,
    min_y: &Value,
    max_y: &Value,
    polygon: &[[Value; 2]],
) -> Result<Volume, Reply> {
    let (lo, hi) = (float_arg("min_y", min_y)?, float_arg("max_y", max_y)?);
    let corners = polygon
        .iter()
        .enumerate()
        .map(|(j, [x, z])| {
            Ok([
                float_arg(&format!("polygon[{j}][0]"), x)?,
                float_arg(&format!("polygon[{j}][1]"), z)?,
            ])
        })
        .collect::<Result<Vec<[f64; 2]>, Reply>>()?;
    Volume::new(area, lo, hi, corners).map_err(|e| shape_rejected("volume", &e))
}

/// The caches of one session. A dropped cache leaves a hole; handles are never reused.
#[derive(Debug, Default)]
pub struct Caches {
    caches: Vec<Option<TileCache>>,
}

/// The index a cache handle names, if it is one (`{"cache": N}`).
fn index(h: &Value) -> Option<usize> {
    let o = h.as_object()?;
    if o.len() != 1 {
        return None;
    }
    o.get("cache")?
        .as_u64()
        .and_then(|i| usize::try_from(i).ok())
}

impl Caches {
    /// True when `h` is a cache handle (of a live cache or not).
    pub fn is_handle(h: &Value) -> bool {
        index(h).is_some()
    }

    fn cache(&mut self, h: &Value) -> Result<&mut TileCache, Reply> {
        index(h)
            .and_then(|i| self.caches.get_mut(i))
            .and_then(Option::as_mut)
            .ok_or_else(|| wire::error(format!("unknown cache handle {h}")))
    }

    /// The mesh of the cache `h` names (mesh ops given a cache handle).
    pub fn mesh(&mut self, h: &Value) -> Result<&mut TiledNavMesh, Reply> {
        Ok(self.cache(h)?.mesh_mut())
    }

    /// Forgets the cache `h` names.
    pub fn drop_cache(&mut self, h: &Value) -> Result<Reply, Reply> {
        self.cache(h)?;
        if let Some(slot) = index(h).and_then(|i| self.caches.get_mut(i)) {
            *slot = None;
        }
        Ok(Reply::ok([]))
    }

    fn keep(&mut self, c: TileCache) -> Reply {
        self.caches.push(Some(c));
        Reply::ok([("cache", json!({"cache": self.caches.len() - 1}))])
    }

    /// A new cache of the geometry and settings, with `slots` slots or the default (TC1).
    fn create(obj: &[u8], settings: &[u8], slots: Option<u32>) -> Result<TileCache, Reply> {
        let s = onav_build3d::Settings::from_bytes(settings)
            .map_err(|f| create_rejected(&CreateError::Settings(f), obj))?;
        let g = onav_build3d::Geometry::from_obj(obj)
            .map_err(|e| create_rejected(&CreateError::from(e), obj))?;
        let options = onav_tilecache::CacheOptions { slot_count: slots };
        TileCache::with_options(&g, &s, options).map_err(|e| create_rejected(&e, obj))
    }

    /// Answers a cache op; `None` for any other request.
    pub fn answer(&mut self, req: &Request) -> Option<Result<Reply, Reply>> {
        Some(match req {
            Request::CacheNew {
                obj,
                settings,
                slots,
            } => (|| {
                let obj = wire::unb64("obj", obj)?;
                let settings = wire::unb64("settings", settings)?;
                let c = Self::create(&obj, &settings, *slots)?;
                Ok(self.keep(c))
            })(),
            Request::CacheAddObstacle {
                cache,
                shape,
                values,
            } => (|| {
                let c = self.cache(cache)?;
                let o = obstacle(shape, values)?;
                let id = c.add_obstacle(o).map_err(|e| cache_rejected(&e))?;
                Ok(Reply::ok([("id", json!(id.0))]))
            })(),
            Request::CacheRemoveObstacle { cache, id } => (|| {
                let c = self.cache(cache)?;
                c.remove_obstacle(ObstacleId(*id))
                    .map_err(|e| cache_rejected(&e))?;
                Ok(Reply::ok([]))
            })(),
            Request::CacheAddVolume {
                cache,
                area,
                min_y,
                max_y,
                polygon,
            } => (|| {
                let c = self.cache(cache)?;
                let v = volume(*area, min_y, max_y, polygon)?;
                let id = c.add_volume(v).map_err(|e| cache_rejected(&e))?;
                Ok(Reply::ok([("id", json!(id.0))]))
            })(),
            Request::CacheRemoveVolume { cache, id } => (|| {
                let c = self.cache(cache)?;
                c.remove_volume(VolumeId(*id))
                    .map_err(|e| cache_rejected(&e))?;
                Ok(Reply::ok([]))
            })(),
            Request::CacheUpdate { cache, max_tiles } => (|| {
                let c = self.cache(cache)?;
                let n = usize::try_from(*max_tiles).unwrap_or(usize::MAX);
                let r = c
                    .update(n)
                    .map_err(|e| cache_class(update_field(&e), e.to_string()))?;
                Ok(Reply::ok([
                    ("cells", json!(r.cells)),
                    ("added", json!(r.added)),
                    ("replaced", json!(r.replaced)),
                    ("removed", json!(r.removed)),
                    ("unchanged", json!(r.unchanged)),
                    ("remaining", json!(r.remaining)),
                ]))
            })(),
            Request::CacheSnapshot { cache, mode } => (|| {
                let mode = wire::mode(mode)?;
                let b = self.cache(cache)?.snapshot(mode);
                Ok(Reply::ok([("bytes", json!(wire::b64(&b)))]))
            })(),
            Request::CacheRestore {
                obj,
                settings,
                slots,
                bytes,
                library,
            } => (|| {
                let obj = wire::unb64("obj", obj)?;
                let settings = wire::unb64("settings", settings)?;
                let b = wire::unb64("bytes", bytes)?;
                let lib = wire::library(library)?;
                let s = onav_build3d::Settings::from_bytes(&settings)
                    .map_err(|f| create_rejected(&CreateError::Settings(f), &obj))?;
                let g = onav_build3d::Geometry::from_obj(&obj)
                    .map_err(|e| create_rejected(&CreateError::from(e), &obj))?;
                let options = onav_tilecache::CacheOptions { slot_count: *slots };
                let c = TileCache::from_snapshot(&g, &s, options, &b, &lib)
                    .map_err(|e| from_snapshot_rejected(&e, &obj))?;
                Ok(self.keep(c))
            })(),
            Request::CacheRestoreInto {
                cache,
                bytes,
                library,
            } => (|| {
                let b = wire::unb64("bytes", bytes)?;
                let lib = wire::library(library)?;
                let c = self.cache(cache)?;
                let r = if library.is_empty() {
                    c.restore(&b)
                } else {
                    c.restore_with(&b, &lib)
                };
                r.map_err(|e| wire::restore_rejected(&e))?;
                Ok(Reply::ok([]))
            })(),
            _ => return None,
        })
    }
}

/// The error of a failed `from_snapshot`-style restore, for callers that use it.
pub fn from_snapshot_rejected(e: &FromSnapshotError, obj: &[u8]) -> Reply {
    match e {
        FromSnapshotError::Create(c) => create_rejected(c, obj),
        FromSnapshotError::Restore(r) => wire::restore_rejected(r),
    }
}
