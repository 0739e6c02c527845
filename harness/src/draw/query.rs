//! Query overlays (`onav draw --path`, `--ray`, `--nearest`): onav's own queries
//! (`NavMeshQuery`, `spec/queries.md`) run on the drawn mesh, and what they answer as shapes —
//! the corridor polygons, the straight path with its point flags, the raycast's walk, hit point
//! and wall normal, the nearest polygon and point.

use onav::{
    NavMeshQuery, PathStatus, PolyRef, QueryFilter, RaycastOptions, RaycastStop, StraightPathFlags,
    StraightPathOptions, TiledNavMesh,
};

use super::svg::fixed;

/// A point (x, y, z) in world units.
pub type P3 = [f64; 3];

/// The queries to draw.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Queries {
    /// `--path START END`.
    pub path: Option<(P3, P3)>,
    /// `--ray START END`.
    pub ray: Option<(P3, P3)>,
    /// `--nearest POINT`.
    pub nearest: Option<P3>,
    /// Half extents of the nearest-polygon box used for every query point.
    pub extents: P3,
}

/// Default half extents (x, y, z) of the nearest-polygon search, as in Detour's demo.
pub const DEFAULT_EXTENTS: P3 = [2.0, 4.0, 2.0];

/// Node-pool size of the drawn queries.
pub const MAX_NODES: u32 = 65_536;

/// How an overlay polygon is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fill {
    /// A corridor polygon.
    Corridor,
    /// A polygon the raycast visited.
    Visited,
    /// The nearest polygon.
    Nearest,
}

/// How an overlay line is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line {
    /// The straight path.
    Path,
    /// The raycast's walk up to the hit.
    Ray,
    /// The rest of the ray's segment, not walked.
    RayRest,
    /// The wall normal at the hit.
    Normal,
    /// From a query point to the nearest point found.
    Snap,
}

/// How an overlay point is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dot {
    /// Straight-path start.
    Start,
    /// Straight-path end.
    End,
    /// Straight-path point boarding an off-mesh link.
    OffMesh,
    /// Any other straight-path corner or crossing.
    Corner,
    /// The raycast hit.
    Hit,
    /// A query point as given.
    Query,
    /// A nearest point found.
    Found,
}

/// Shapes on top of a scene, in world coordinates (x–z), with words for the legend.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Overlay {
    /// Polygons: (tile layer, corners, fill).
    pub polys: Vec<(u32, Vec<[f64; 2]>, Fill)>,
    /// Polylines, with the layers whose panels show them (empty: every panel).
    pub lines: Vec<(Vec<[f64; 2]>, Line, Vec<u32>)>,
    /// Points with a short label, and the layers whose panels show them (empty: every panel).
    pub dots: Vec<([f64; 2], Dot, String, Vec<u32>)>,
    /// The nearest-search boxes `[min_x, min_z, max_x, max_z]`, with their layers as for dots.
    pub boxes: Vec<([f64; 4], Vec<u32>)>,
    /// What each query answered, in words.
    pub notes: Vec<String>,
}

fn xz(p: &P3) -> [f64; 2] {
    [p[0], p[2]]
}

/// "x, y, z" with three fixed decimals.
pub fn p3_text(p: &P3) -> String {
    format!("{}, {}, {}", fixed(p[0], 3), fixed(p[1], 3), fixed(p[2], 3))
}

fn poly_shape(m: &TiledNavMesh, r: PolyRef) -> Option<(u32, Vec<[f64; 2]>)> {
    let (t, i) = m.poly(r)?;
    let pts: Vec<[f64; 2]> = t.poly_vertices(i)?.map(|v| xz(&v)).collect();
    Some((t.pos().layer, pts))
}

fn layer_of(m: &TiledNavMesh, r: PolyRef) -> Vec<u32> {
    m.poly(r)
        .map(|(t, _)| vec![t.pos().layer])
        .unwrap_or_default()
}

fn flags_text(f: StraightPathFlags) -> &'static str {
    if f.contains(StraightPathFlags::START) && f.contains(StraightPathFlags::END) {
        "start+end"
    } else if f.contains(StraightPathFlags::START) {
        "start"
    } else if f.contains(StraightPathFlags::END) {
        "end"
    } else if f.contains(StraightPathFlags::OFF_MESH) {
        "off-mesh"
    } else {
        ""
    }
}

impl Overlay {
    fn nearest(
        &mut self,
        q: &NavMeshQuery<'_>,
        p: P3,
        ext: P3,
        what: &str,
    ) -> Option<(PolyRef, P3)> {
        let found = q.find_nearest_poly(p, ext, &QueryFilter::new());
        let layers = match &found {
            Ok(Some(n)) => layer_of(q.mesh(), n.poly),
            _ => Vec::new(),
        };
        self.boxes.push((
            [p[0] - ext[0], p[2] - ext[2], p[0] + ext[0], p[2] + ext[2]],
            layers.clone(),
        ));
        self.dots
            .push((xz(&p), Dot::Query, what.to_owned(), layers.clone()));
        match found {
            Ok(Some(n)) => {
                self.lines
                    .push((vec![xz(&p), xz(&n.point)], Line::Snap, layers.clone()));
                self.dots
                    .push((xz(&n.point), Dot::Found, String::new(), layers));
                Some((n.poly, n.point))
            }
            Ok(None) => {
                self.notes.push(format!(
                    "{what} ({}): no polygon within the box ± ({})",
                    p3_text(&p),
                    p3_text(&ext)
                ));
                None
            }
            Err(e) => {
                self.notes.push(format!("{what}: {e}"));
                None
            }
        }
    }

    fn path(&mut self, q: &NavMeshQuery<'_>, s: P3, e: P3, ext: P3) {
        let (Some((sr, sp)), Some((er, ep))) = (
            self.nearest(q, s, ext, "path start"),
            self.nearest(q, e, ext, "path end"),
        ) else {
            self.notes.push("path: not searched".into());
            return;
        };
        let m = q.mesh();
        let r = match q.find_path(sr, er, sp, ep, &QueryFilter::new()) {
            Ok(r) => r,
            Err(err) => {
                self.notes.push(format!("path: {err}"));
                return;
            }
        };
        for &c in &r.corridor {
            if let Some((layer, pts)) = poly_shape(m, c) {
                self.polys.push((layer, pts, Fill::Corridor));
            }
        }
        let status = match r.status {
            PathStatus::Complete => "complete",
            PathStatus::Partial => "partial",
            PathStatus::OutOfNodes => "out of nodes",
        };
        // A partial corridor ends short of the end: the straight path goes to its last polygon.
        let sp2 = q.find_straight_path(
            sp,
            ep,
            &r.corridor,
            StraightPathOptions {
                area_crossings: true,
                all_crossings: false,
            },
        );
        match sp2 {
            Ok(pts) => {
                // Each leg is shown on the layers of the polygons at its two ends.
                for w in pts.windows(2) {
                    let mut layers = layer_of(m, w[0].poly);
                    layers.extend(layer_of(m, w[1].poly));
                    layers.sort_unstable();
                    layers.dedup();
                    self.lines
                        .push((vec![xz(&w[0].pos), xz(&w[1].pos)], Line::Path, layers));
                }
                for p in &pts {
                    let f = p.flags;
                    let dot = if f.contains(StraightPathFlags::START) {
                        Dot::Start
                    } else if f.contains(StraightPathFlags::END) {
                        Dot::End
                    } else if f.contains(StraightPathFlags::OFF_MESH) {
                        Dot::OffMesh
                    } else {
                        Dot::Corner
                    };
                    self.dots.push((
                        xz(&p.pos),
                        dot,
                        flags_text(f).to_owned(),
                        layer_of(m, p.poly),
                    ));
                }
                self.notes.push(format!(
                    "path: {status}, {} corridor polygons, cost {}, {} straight-path points",
                    r.corridor.len(),
                    fixed(r.cost, 3),
                    pts.len()
                ));
            }
            Err(err) => self.notes.push(format!(
                "path: {status}, {} corridor polygons; straight path: {err}",
                r.corridor.len()
            )),
        }
    }

    fn ray(&mut self, q: &NavMeshQuery<'_>, s: P3, e: P3, ext: P3) {
        let Some((sr, sp)) = self.nearest(q, s, ext, "ray start") else {
            self.notes.push("ray: not cast".into());
            return;
        };
        let m = q.mesh();
        let hit = match q.raycast(sr, sp, e, &QueryFilter::new(), RaycastOptions::default()) {
            Ok(h) => h,
            Err(err) => {
                self.notes.push(format!("ray: {err}"));
                return;
            }
        };
        for &v in &hit.visited {
            if let Some((layer, pts)) = poly_shape(m, v) {
                self.polys.push((layer, pts, Fill::Visited));
            }
        }
        let mut layers: Vec<u32> = hit.visited.iter().flat_map(|&v| layer_of(m, v)).collect();
        layers.sort_unstable();
        layers.dedup();
        let last = hit
            .visited
            .last()
            .map_or_else(Vec::new, |&v| layer_of(m, v));
        let at = [
            sp[0] + (e[0] - sp[0]) * hit.t,
            sp[2] + (e[2] - sp[2]) * hit.t,
        ];
        self.lines
            .push((vec![xz(&sp), at], Line::Ray, layers.clone()));
        self.lines
            .push((vec![at, xz(&e)], Line::RayRest, last.clone()));
        let why = match hit.stop {
            RaycastStop::Reached => "reached the end".to_owned(),
            RaycastStop::Wall { edge, normal } => {
                self.lines.push((
                    vec![at, [at[0] + normal[0], at[1] + normal[2]]],
                    Line::Normal,
                    last.clone(),
                ));
                self.dots.push((at, Dot::Hit, "hit".into(), last));
                format!(
                    "hit a wall (edge {edge}, normal {}, {})",
                    fixed(normal[0], 3),
                    fixed(normal[2], 3)
                )
            }
            RaycastStop::Missed => "missed the start polygon".to_owned(),
            RaycastStop::VisitLimit => "stopped at the visit limit".to_owned(),
        };
        self.notes.push(format!(
            "ray: t = {}, {why}, {} polygons visited",
            fixed(hit.t, 4),
            hit.visited.len()
        ));
    }
}

/// Runs the queries on `mesh` and returns what to draw.
pub fn overlay(mesh: &TiledNavMesh, q: &Queries) -> Overlay {
    let mut o = Overlay::default();
    let query = match NavMeshQuery::new(mesh, MAX_NODES) {
        Ok(x) => x,
        Err(e) => {
            o.notes.push(format!("queries not run: {e}"));
            return o;
        }
    };
    if let Some((s, e)) = q.path {
        o.path(&query, s, e, q.extents);
    }
    if let Some((s, e)) = q.ray {
        o.ray(&query, s, e, q.extents);
    }
    if let Some(p) = q.nearest {
        if let Some((r, n)) = o.nearest(&query, p, q.extents, "nearest") {
            if let Some((layer, pts)) = poly_shape(mesh, r) {
                o.polys.push((layer, pts, Fill::Nearest));
            }
            o.notes.push(format!(
                "nearest: polygon 0x{:016x} at ({})",
                r.raw(),
                p3_text(&n)
            ));
        }
    }
    o
}

/// A hex polygon reference of the protocol (`0x…`).
fn hex_ref(v: &serde_json::Value) -> Option<PolyRef> {
    let h = v.as_str()?.strip_prefix("0x")?;
    PolyRef::from_raw(u64::from_str_radix(h, 16).ok()?)
}

fn json_p3(v: &serde_json::Value) -> Option<P3> {
    let a = v.as_array()?;
    match a.as_slice() {
        [x, y, z] => Some([x.as_f64()?, y.as_f64()?, z.as_f64()?]),
        _ => None,
    }
}

/// The longest value text a note shows.
const NOTE_CHARS: usize = 160;

/// A query answer as the protocol writes it (`spec/conformance.md` §1.3: `corridor` and
/// `visited` polygon references, the straight path's `points` with their flags, the nearest
/// `poly` and `point`), drawn over `mesh` (references it does not hold are left out), with one
/// note per field, in key order, saying where it differs from `other`'s.
pub fn answer_overlay(
    mesh: Option<&TiledNavMesh>,
    side: &str,
    answer: &serde_json::Map<String, serde_json::Value>,
    other: Option<&serde_json::Map<String, serde_json::Value>>,
) -> Overlay {
    let mut o = Overlay::default();
    let fill = |o: &mut Overlay, v: &serde_json::Value, f: Fill| {
        for r in v.as_array().into_iter().flatten().filter_map(hex_ref) {
            if let Some((layer, pts)) = mesh.and_then(|m| poly_shape(m, r)) {
                o.polys.push((layer, pts, f));
            }
        }
    };
    if let Some(v) = answer.get("corridor") {
        fill(&mut o, v, Fill::Corridor);
    }
    if let Some(v) = answer.get("visited") {
        fill(&mut o, v, Fill::Visited);
    }
    if let Some(v) = answer.get("poly") {
        fill(
            &mut o,
            &serde_json::Value::Array(vec![v.clone()]),
            Fill::Nearest,
        );
    }
    if let Some(p) = answer.get("point").and_then(json_p3) {
        o.dots
            .push((xz(&p), Dot::Found, "point".into(), Vec::new()));
    }
    let points: Vec<(P3, u64)> = answer
        .get("points")
        .and_then(|v| v.as_array())
        .into_iter()
        .flatten()
        .filter_map(|q| Some((json_p3(q.get("pos")?)?, q.get("flags")?.as_u64()?)))
        .collect();
    if points.len() > 1 {
        o.lines.push((
            points.iter().map(|(p, _)| xz(p)).collect(),
            Line::Path,
            Vec::new(),
        ));
    }
    for (k, (p, flags)) in points.iter().enumerate() {
        // The protocol's flags are StraightPathFlags' bits.
        let has = |f: StraightPathFlags| flags & u64::from(f.bits()) != 0;
        let dot = if has(StraightPathFlags::START) {
            Dot::Start
        } else if has(StraightPathFlags::END) {
            Dot::End
        } else if has(StraightPathFlags::OFF_MESH) {
            Dot::OffMesh
        } else {
            Dot::Corner
        };
        o.dots.push((xz(p), dot, format!("{k}"), Vec::new()));
    }
    for (k, v) in answer {
        let mut text = v.to_string();
        if text.chars().count() > NOTE_CHARS {
            text = text.chars().take(NOTE_CHARS).collect::<String>() + "…";
        }
        let differs = other.is_some_and(|x| x.get(k) != Some(v));
        let mark = if differs { " ← differs" } else { "" };
        o.notes.push(format!("{side} {k}: {text}{mark}"));
    }
    o
}
