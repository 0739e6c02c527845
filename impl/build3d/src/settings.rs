//! Build settings (`spec/build3d.md` §3): the Recast parameters, validated on construction, with
//! one canonical byte encoding. The settings digest of every tile is
//! `SHA-256(encoding ‖ u32 PIPELINE_VERSION ‖ geometry digest)` (§3.4), so any setting, any change
//! of the pipeline and any change of the geometry changes the fingerprint.
//!
//! Units: cell size, cell height, agent sizes, edge length, detail distance and error in world
//! units (wu); slope in degrees; region areas in cells; edge error in cells; tile size in cells.
//!
//! Limits: L3 (tile size), L4 (radius cells), L5 (agent height and climb cells), L18 (volumes),
//! L19 (volume corners).

use serde::{Deserialize, Serialize};

use crate::limits::{
    MAX_RADIUS_CELLS, MAX_SPAN_HEIGHT, MAX_TILE_SIZE, MAX_VOLUMES, MAX_VOLUME_VERTICES,
    MIN_TILE_SIZE,
};
use crate::output::{FormatError, FormatReason, Reader, Writer};

/// The version of the pipeline of `spec/build3d.md`: part of every settings digest, and raised
/// with any change that can change a tile's bytes.
pub const PIPELINE_VERSION: u32 = 1;

/// Magic of the settings encoding, "ONB3".
pub const SETTINGS_MAGIC: [u8; 4] = *b"ONB3";
/// Version of the settings encoding.
pub const SETTINGS_VERSION: u16 = 1;

/// A convex area volume: every span whose floor lies in `[min_y, max_y]` and whose cell centre
/// lies inside `polygon` (edges included) gets `area` (`spec/build3d.md` §8).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VolumeSpec {
    /// Area id 0 ..= 63; 0 makes the spans unwalkable.
    pub area: u8,
    /// Lowest floor height marked (wu).
    pub min_y: f64,
    /// Highest floor height marked (wu).
    pub max_y: f64,
    /// Corners (x, z) (wu) of a strictly convex polygon, either winding (stored
    /// counter-clockwise).
    pub polygon: Vec<[f64; 2]>,
}

/// Build settings as plain values (serde-friendly); [`Settings::new`] validates them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SettingsSpec {
    /// Voxel size on x and z (wu), > 0.
    pub cell_size: f64,
    /// Voxel size on y (wu), > 0.
    pub cell_height: f64,
    /// Agent height (wu), > 0: spans need `ceil(agent_height / cell_height)` cells of headroom.
    pub agent_height: f64,
    /// Agent radius (wu), ≥ 0: walkable area is eroded by `ceil(agent_radius / cell_size)` cells.
    pub agent_radius: f64,
    /// Largest step (wu), ≥ 0: `floor(agent_climb / cell_height)` cells.
    pub agent_climb: f64,
    /// Steepest walkable slope (degrees), 0 ..= 90.
    pub max_slope_deg: f64,
    /// Regions (with all regions connected to them) smaller than this many cells are dropped,
    /// unless they reach the tile border.
    pub region_min_area: u32,
    /// Regions smaller than this many cells are merged into a neighbour where possible.
    pub region_merge_area: u32,
    /// Longest wall edge of a contour (wu), ≥ 0 (0: no limit).
    pub max_edge_len: f64,
    /// Largest distance of a simplified wall from the cell outline (cells), ≥ 0.
    pub max_edge_error: f64,
    /// Most vertices per polygon, 3 ..= 6.
    pub verts_per_poly: u32,
    /// Detail sample spacing (wu): 0 (no detail sampling) or ≥ cell size.
    pub detail_sample_dist: f64,
    /// Largest height error of the detail mesh (wu), ≥ 0.
    pub detail_sample_max_error: f64,
    /// Tile side in cells.
    pub tile_size: u32,
    /// Convex area volumes, applied in list order (a later one wins).
    pub volumes: Vec<VolumeSpec>,
}

impl Default for SettingsSpec {
    /// The RecastDemo tile settings of `detour-figures.md` (the demo settings).
    fn default() -> Self {
        Self {
            cell_size: 0.3,
            cell_height: 0.2,
            agent_height: 2.0,
            agent_radius: 0.6,
            agent_climb: 0.9,
            max_slope_deg: 45.0,
            region_min_area: 64,
            region_merge_area: 400,
            max_edge_len: 12.0,
            max_edge_error: 1.3,
            verts_per_poly: 6,
            detail_sample_dist: 1.8,
            detail_sample_max_error: 0.2,
            tile_size: 48,
            volumes: Vec::new(),
        }
    }
}

/// Values derived from the settings (`spec/build3d.md` §3.3), in cells unless stated.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Derived {
    /// `ceil(agent_height / cell_height)`.
    pub walkable_height: u32,
    /// `floor(agent_climb / cell_height)`.
    pub walkable_climb: u32,
    /// `ceil(agent_radius / cell_size)`.
    pub walkable_radius: u32,
    /// Padding of a tile's heightfield: `walkable_radius + 3`.
    pub border: u32,
    /// `floor(max_edge_len / cell_size)`.
    pub max_edge_len: u32,
    /// `libm::cos((max_slope_deg / 180) · π)`.
    pub slope_cos: f64,
    /// `tile_size · cell_size` (wu).
    pub tile_world: f64,
}

/// Validated build settings with their canonical encoding.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    spec: SettingsSpec,
    derived: Derived,
    encoding: Vec<u8>,
}

const HEADER_LEN: usize = 108;
/// Smallest encoded volume: area, min_y, max_y, count and three corners.
const MIN_VOLUME_LEN: usize = 4 + 8 + 8 + 4 + 3 * 16;

fn encode(s: &SettingsSpec) -> Vec<u8> {
    let mut w = Writer::with_capacity(HEADER_LEN + s.volumes.len() * MIN_VOLUME_LEN);
    w.bytes(&SETTINGS_MAGIC);
    w.u16(SETTINGS_VERSION);
    w.u16(0);
    for v in [
        s.cell_size,
        s.cell_height,
        s.agent_height,
        s.agent_radius,
        s.agent_climb,
        s.max_slope_deg,
    ] {
        w.f64(v);
    }
    w.u32(s.region_min_area);
    w.u32(s.region_merge_area);
    w.f64(s.max_edge_len);
    w.f64(s.max_edge_error);
    w.u32(s.verts_per_poly);
    w.f64(s.detail_sample_dist);
    w.f64(s.detail_sample_max_error);
    w.u32(s.tile_size);
    w.u32(s.volumes.len() as u32);
    for v in &s.volumes {
        w.u32(u32::from(v.area));
        w.f64(v.min_y);
        w.f64(v.max_y);
        w.u32(v.polygon.len() as u32);
        for p in &v.polygon {
            w.f64(p[0]);
            w.f64(p[1]);
        }
    }
    w.into_inner()
}

/// Twice the signed area of the fan of a polygon on x–z (`spec/navmesh-format.md` G7 order).
fn fan_area2(poly: &[[f64; 2]]) -> f64 {
    let p = |q: &[f64; 2]| [q[0], 0.0, q[1]];
    let corners: Vec<[f64; 3]> = poly.iter().map(p).collect();
    crate::output::poly_area2_xz(&corners)
}

/// The first corner k whose turn orient(v(k−1), v(k), v(k+1)) is not > 0 or at which a later
/// corner is not strictly left of edge k: `spec/navmesh-format.md` T12 applied to the x–z polygon.
pub(crate) fn first_non_convex(poly: &[[f64; 2]]) -> Option<usize> {
    let n = poly.len();
    let p = |i: usize| [poly[i % n][0], 0.0, poly[i % n][1]];
    for k in 0..n {
        if crate::output::orient(&p(k), &p(k + 1), &p(k + 2)).partial_cmp(&0.0)
            != Some(std::cmp::Ordering::Greater)
        {
            return Some((k + 1) % n);
        }
    }
    for k in 0..n {
        for j in 0..n {
            if j == k || j == (k + 1) % n {
                continue;
            }
            if crate::output::orient(&p(k), &p(k + 1), &p(j)).partial_cmp(&0.0)
                != Some(std::cmp::Ordering::Greater)
            {
                return Some(j);
            }
        }
    }
    None
}

fn out_of_range(at: u64, field: impl Into<String>) -> FormatError {
    FormatError::new(at, field, FormatReason::OutOfRange)
}

/// Reads an f64 and checks `ok(value)`; the error names the field.
fn f64_in(r: &mut Reader<'_>, field: &str, ok: impl Fn(f64) -> bool) -> Result<f64, FormatError> {
    let at = r.offset();
    let v = r.f64(field)?;
    if ok(v) {
        Ok(v)
    } else {
        Err(out_of_range(at, field))
    }
}

/// Checks that a derived cell count `value / unit` (rounded by `round`) is at most `max`.
fn cells(value: f64, unit: f64, round: fn(f64) -> f64, max: u32) -> Option<u32> {
    let c = round(value / unit);
    (c <= f64::from(max)).then_some(c as u32)
}

fn decode(bytes: &[u8]) -> Result<(SettingsSpec, Derived), FormatError> {
    let mut r = Reader::new(bytes, 0);
    r.header(SETTINGS_MAGIC, SETTINGS_VERSION)?;
    let pos = |v: f64| v > 0.0;
    let nonneg = |v: f64| v >= 0.0;
    let cell_size = f64_in(&mut r, "cell_size", pos)?;
    let cell_height = f64_in(&mut r, "cell_height", pos)?;
    let at = r.offset();
    let agent_height = f64_in(&mut r, "agent_height", pos)?;
    let walkable_height = cells(agent_height, cell_height, f64::ceil, MAX_SPAN_HEIGHT)
        .ok_or_else(|| out_of_range(at, "agent_height"))?;
    let at = r.offset();
    let agent_radius = f64_in(&mut r, "agent_radius", nonneg)?;
    let walkable_radius = cells(agent_radius, cell_size, f64::ceil, MAX_RADIUS_CELLS)
        .ok_or_else(|| out_of_range(at, "agent_radius"))?;
    let at = r.offset();
    let agent_climb = f64_in(&mut r, "agent_climb", nonneg)?;
    let walkable_climb = cells(agent_climb, cell_height, f64::floor, MAX_SPAN_HEIGHT)
        .ok_or_else(|| out_of_range(at, "agent_climb"))?;
    let max_slope_deg = f64_in(&mut r, "max_slope_deg", |v| (0.0..=90.0).contains(&v))?;
    let region_min_area = r.u32("region_min_area")?;
    let region_merge_area = r.u32("region_merge_area")?;
    let at = r.offset();
    let max_edge_len = f64_in(&mut r, "max_edge_len", nonneg)?;
    let max_edge_cells = cells(max_edge_len, cell_size, f64::floor, i32::MAX as u32)
        .ok_or_else(|| out_of_range(at, "max_edge_len"))?;
    let max_edge_error = f64_in(&mut r, "max_edge_error", nonneg)?;
    let at = r.offset();
    let verts_per_poly = r.u32("verts_per_poly")?;
    if !(3..=6).contains(&verts_per_poly) {
        return Err(out_of_range(at, "verts_per_poly"));
    }
    let detail_sample_dist = f64_in(&mut r, "detail_sample_dist", |v| v == 0.0 || v >= cell_size)?;
    let detail_sample_max_error = f64_in(&mut r, "detail_sample_max_error", nonneg)?;
    let at = r.offset();
    let tile_size = r.u32("tile_size")?;
    if !(MIN_TILE_SIZE..=MAX_TILE_SIZE).contains(&tile_size) {
        return Err(out_of_range(at, "tile_size"));
    }
    let tile_world = f64::from(tile_size) * cell_size;
    if !tile_world.is_finite() {
        return Err(out_of_range(at, "tile_size"));
    }
    let n = r.count("volume_count", MAX_VOLUMES, MIN_VOLUME_LEN)?;
    let mut volumes = Vec::with_capacity(n as usize);
    for i in 0..n {
        let at = r.offset();
        let area = r.u32(|| format!("volume[{i}].area"))?;
        if area > 63 {
            return Err(out_of_range(at, format!("volume[{i}].area")));
        }
        let min_y = r.f64(|| format!("volume[{i}].min_y"))?;
        let at = r.offset();
        let max_y = r.f64(|| format!("volume[{i}].max_y"))?;
        if max_y < min_y {
            return Err(out_of_range(at, format!("volume[{i}].max_y")));
        }
        let at = r.offset();
        let k = r.count(
            || format!("volume[{i}].vertex_count"),
            MAX_VOLUME_VERTICES,
            16,
        )?;
        if k < 3 {
            return Err(out_of_range(at, format!("volume[{i}].vertex_count")));
        }
        let corners_at = r.offset();
        let mut polygon = Vec::with_capacity(k as usize);
        for j in 0..k {
            let x = r.f64(|| format!("volume[{i}].polygon[{j}].x"))?;
            let z = r.f64(|| format!("volume[{i}].polygon[{j}].z"))?;
            polygon.push([x, z]);
        }
        if let Some(j) = first_non_convex(&polygon) {
            return Err(FormatError::new(
                corners_at + 16 * j as u64,
                format!("volume[{i}].polygon[{j}]"),
                FormatReason::NotConvex,
            ));
        }
        volumes.push(VolumeSpec {
            area: area as u8,
            min_y,
            max_y,
            polygon,
        });
    }
    r.finish("end")?;
    let spec = SettingsSpec {
        cell_size,
        cell_height,
        agent_height,
        agent_radius,
        agent_climb,
        max_slope_deg,
        region_min_area,
        region_merge_area,
        max_edge_len,
        max_edge_error,
        verts_per_poly,
        detail_sample_dist,
        detail_sample_max_error,
        tile_size,
        volumes,
    };
    let derived = Derived {
        walkable_height,
        walkable_climb,
        walkable_radius,
        border: walkable_radius + 3,
        max_edge_len: max_edge_cells,
        slope_cos: libm::cos((max_slope_deg / 180.0) * std::f64::consts::PI),
        tile_world,
    };
    Ok((spec, derived))
}

impl Settings {
    /// Validates plain settings. A volume polygon given clockwise is reversed (a polygon whose
    /// fan area is negative); every rule is then checked by encoding the settings and reading
    /// them back, so errors name the field with its offset in the canonical encoding.
    pub fn new(mut spec: SettingsSpec) -> Result<Self, FormatError> {
        for v in &mut spec.volumes {
            if fan_area2(&v.polygon) < 0.0 {
                v.polygon.reverse();
            }
        }
        if spec.volumes.len() > MAX_VOLUMES as usize
            || spec
                .volumes
                .iter()
                .any(|v| v.polygon.len() > MAX_VOLUME_VERTICES as usize)
        {
            // The count itself is the error; the encoding could not even hold it.
            let count_at = (HEADER_LEN - 4) as u64;
            return match spec
                .volumes
                .iter()
                .position(|v| v.polygon.len() > MAX_VOLUME_VERTICES as usize)
            {
                Some(i) if spec.volumes.len() <= MAX_VOLUMES as usize => Err(FormatError::new(
                    count_at,
                    format!("volume[{i}].vertex_count"),
                    FormatReason::CountTooLarge {
                        count: spec.volumes[i].polygon.len() as u64,
                        max: u64::from(MAX_VOLUME_VERTICES),
                    },
                )),
                _ => Err(FormatError::new(
                    count_at,
                    "volume_count",
                    FormatReason::CountTooLarge {
                        count: spec.volumes.len() as u64,
                        max: u64::from(MAX_VOLUMES),
                    },
                )),
            };
        }
        Self::from_bytes(&encode(&spec))
    }

    /// Reads the canonical encoding (`spec/build3d.md` §3.2), checking every rule in byte
    /// order; a clockwise volume polygon is not canonical and is rejected (not convex).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, FormatError> {
        let (spec, derived) = decode(bytes)?;
        Ok(Self {
            spec,
            derived,
            encoding: bytes.to_vec(),
        })
    }

    /// The canonical encoding.
    pub fn to_bytes(&self) -> &[u8] {
        &self.encoding
    }

    /// The validated values (volume polygons counter-clockwise).
    pub fn spec(&self) -> &SettingsSpec {
        &self.spec
    }

    pub(crate) fn derived(&self) -> &Derived {
        &self.derived
    }

    /// The settings digest of a build of `geometry_digest` with these settings:
    /// `SHA-256(encoding ‖ u32 PIPELINE_VERSION ‖ geometry digest)` (`spec/build3d.md` §3.4).
    pub fn digest(&self, geometry_digest: &[u8; 32]) -> [u8; 32] {
        let mut b = Vec::with_capacity(self.encoding.len() + 36);
        b.extend_from_slice(&self.encoding);
        b.extend_from_slice(&PIPELINE_VERSION.to_le_bytes());
        b.extend_from_slice(geometry_digest);
        crate::output::digest_of(&b).0
    }
}
