//! What a picture shows, taken out of the files: tiles with their polygons, links and off-mesh
//! links, problems (onav's verdict on bytes it rejects) and marks (what a problem or a
//! difference points at). Valid files go through onav's own API (`NavTile::from_bytes`,
//! `read_mesh`, `NavMeshSnapshot::restore`, the mesh's stitched links); bytes onav rejects are
//! drawn from the structural decode (`crate::files::decode`) as far as it goes.

use std::collections::BTreeMap;

use onav::{
    Edge, LinkDirection, LinkIndex, LinkKind, NavTile, PolyIndex, RawGrid, Side, TilePos,
    TiledNavMesh,
};

/// How a link across a polygon edge is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum EdgeStyle {
    /// An internal link (same tile).
    Internal,
    /// A stitched portal link, over its overlap.
    Portal,
    /// A portal edge without a link (no neighbour, or not stitched).
    OpenPortal,
    /// A link only this side of a comparison has.
    Extra,
    /// A link only the other side of a comparison has.
    Missing,
}

/// A segment on x–z.
#[derive(Debug, Clone, PartialEq)]
pub struct EdgeView {
    /// From.
    pub a: [f64; 2],
    /// To.
    pub b: [f64; 2],
    /// How.
    pub style: EdgeStyle,
}

/// A ground polygon.
#[derive(Debug, Clone, PartialEq)]
pub struct PolyView {
    /// Corners on x–z, in order.
    pub pts: Vec<[f64; 2]>,
    /// Current area.
    pub area: u8,
    /// Area or flags differ from the as-built values.
    pub edited: bool,
}

/// An off-mesh link.
#[derive(Debug, Clone, PartialEq)]
pub struct OffMeshView {
    /// Start (x, y, z).
    pub start: [f64; 3],
    /// End.
    pub end: [f64; 3],
    /// Landing radius.
    pub radius: f64,
    /// Both ways.
    pub both: bool,
    /// Switched on.
    pub enabled: bool,
    /// Whether each end (start, end) lands on a polygon; `None` when not stitched.
    pub landed: Option<[bool; 2]>,
}

/// One tile.
#[derive(Debug, Clone, PartialEq)]
pub struct TileView {
    /// Column, row, layer.
    pub pos: TilePos,
    /// The slot it occupies, in a mesh or snapshot.
    pub slot: Option<u32>,
    /// Cell bounds `[min_x, min_z, max_x, max_z]` when finite.
    pub bounds: Option<[f64; 4]>,
    /// Vertices (x, y, z).
    pub vertices: Vec<[f64; 3]>,
    /// Ground polygons, by index (`None`: not drawable, e.g. a vertex index out of range).
    pub polys: Vec<Option<PolyView>>,
    /// Off-mesh links, by index.
    pub links: Vec<OffMeshView>,
    /// Edge links.
    pub edges: Vec<EdgeView>,
}

/// What a mark points at, inside its tile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// The whole tile.
    Tile,
    /// Ground polygon i.
    Poly(usize),
    /// Vertex i.
    Vertex(usize),
    /// Off-mesh link i.
    Link(usize),
    /// A tile cache's obstacle i (in file order), drawn outside the tiles.
    Obstacle(usize),
    /// A tile cache's volume i.
    Volume(usize),
    /// A tile cache's queued tile i.
    Queued(usize),
}

impl Target {
    /// A part of a tile cache's own lists (drawn outside the tiles).
    pub fn is_cache(self) -> bool {
        matches!(
            self,
            Target::Obstacle(_) | Target::Volume(_) | Target::Queued(_)
        )
    }
}

/// Why something is marked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkKind {
    /// onav rejects the bytes there.
    Error,
    /// The first difference of a comparison.
    Difference,
}

/// A highlight: a tile (index into [`Scene::tiles`]) or the whole picture, and a part of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    /// The tile, or `None` for the whole picture (a header field).
    pub tile: Option<usize>,
    /// The part of the tile.
    pub target: Target,
    /// Error or difference.
    pub kind: MarkKind,
    /// The field path, for the label.
    pub label: String,
}

/// Everything one picture panel group shows.
#[derive(Debug, Clone)]
pub struct Scene {
    /// Title: the file and its kind.
    pub title: String,
    /// Tiles in slot (or file) order.
    pub tiles: Vec<TileView>,
    /// Problems, in words (shown above the picture, in red).
    pub problems: Vec<String>,
    /// Highlights.
    pub marks: Vec<Mark>,
    /// The field path prefix of each tile (`""`, `tile[3].`, `slot[2].tile.`), as in
    /// [`Scene::tiles`], for marks by field path; empty when unknown.
    pub prefixes: Vec<String>,
    /// The mesh, when the files are valid and make one (queries run on it).
    pub mesh: Option<TiledNavMesh>,
    /// A tile cache snapshot's obstacles, volumes and queue (`None` for other files).
    pub cache: Option<super::cache::CacheView>,
}

fn xz(v: &[f64; 3]) -> [f64; 2] {
    [v[0], v[2]]
}

fn finite_bounds(b: [f64; 4]) -> Option<[f64; 4]> {
    (b.iter().all(|c| c.is_finite()) && b[0] <= b[2] && b[1] <= b[3]).then_some(b)
}

/// The part of edge (a, b) whose border-axis coordinate lies in [lo, hi]: z for ±x sides, x for
/// ±z sides (`LinkKind::Portal`).
pub(crate) fn clip_portal(
    a: [f64; 2],
    b: [f64; 2],
    side: Side,
    lo: f64,
    hi: f64,
) -> ([f64; 2], [f64; 2]) {
    let k = if side.along_z() { 1 } else { 0 };
    let d = b[k] - a[k];
    if d == 0.0 {
        return (a, b);
    }
    let t = |v: f64| ((v - a[k]) / d).clamp(0.0, 1.0);
    let (t0, t1) = (t(lo), t(hi));
    let at = |t: f64| [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t];
    (at(t0.min(t1)), at(t0.max(t1)))
}

/// The tile's geometry, areas, edits and switches, without links.
pub fn tile_view(t: &NavTile, slot: Option<u32>) -> TileView {
    let vertices: Vec<[f64; 3]> = t.vertices().to_vec();
    let edited: Vec<PolyIndex> = t.edited_polys().collect();
    let polys = t
        .ground_polys()
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let pts = p
                .verts()
                .iter()
                .map(|&v| vertices.get(v as usize).map(xz))
                .collect::<Option<Vec<_>>>()?;
            let pi = PolyIndex(i as u32);
            Some(PolyView {
                pts,
                area: t.area(pi).unwrap_or(0),
                edited: edited.contains(&pi),
            })
        })
        .collect();
    let links = t
        .off_mesh_links()
        .iter()
        .enumerate()
        .map(|(i, l)| OffMeshView {
            start: l.start,
            end: l.end,
            radius: l.radius,
            both: l.direction == LinkDirection::Bidirectional,
            enabled: t.is_link_enabled(LinkIndex(i as u32)),
            landed: None,
        })
        .collect();
    TileView {
        pos: t.pos(),
        slot,
        bounds: finite_bounds(t.cell_bounds()),
        vertices,
        polys,
        links,
        edges: Vec::new(),
    }
}

/// The edge links of a tile from its polygons' edge records alone: internal edges, and portal
/// edges as not stitched.
fn unstitched_edges(v: &mut TileView, edges: &[(usize, Vec<Edge>)]) {
    for (i, list) in edges {
        let Some(Some(p)) = v.polys.get(*i) else {
            continue;
        };
        let n = p.pts.len();
        for (k, e) in list.iter().enumerate().take(n) {
            let style = match e {
                Edge::Wall => continue,
                Edge::Internal(_) => EdgeStyle::Internal,
                Edge::Portal(_) => EdgeStyle::OpenPortal,
            };
            v.edges.push(EdgeView {
                a: p.pts[k],
                b: p.pts[(k + 1) % n],
                style,
            });
        }
    }
}

/// A link of polygon `poly` of a tile as an edge segment, if it crosses an edge.
pub fn link_edge(v: &TileView, poly: usize, kind: &LinkKind) -> Option<EdgeView> {
    let p = v.polys.get(poly)?.as_ref()?;
    let n = p.pts.len();
    let seg = |e: u8| {
        let e = usize::from(e);
        (e < n).then(|| (p.pts[e], p.pts[(e + 1) % n]))
    };
    match *kind {
        LinkKind::Internal { edge } => {
            let (a, b) = seg(edge)?;
            Some(EdgeView {
                a,
                b,
                style: EdgeStyle::Internal,
            })
        }
        LinkKind::Portal { edge, side, lo, hi } => {
            let (a, b) = seg(edge)?;
            let (a, b) = clip_portal(a, b, side, lo, hi);
            Some(EdgeView {
                a,
                b,
                style: EdgeStyle::Portal,
            })
        }
        LinkKind::ToOffMesh { .. } | LinkKind::FromOffMesh { .. } => None,
    }
}

/// Every tile of a mesh with its stitched links: internal and portal links on their edges,
/// portal edges without a link as open, and which off-mesh link ends landed.
pub fn mesh_tiles(m: &TiledNavMesh) -> Vec<TileView> {
    let mut out = Vec::new();
    for (r, t) in m.tiles() {
        let mut v = tile_view(t, Some(r.slot().0));
        let links = m.tile_links(r);
        let ng = t.ground_poly_count() as usize;
        for (i, p) in t.ground_polys().iter().enumerate() {
            let of = links.map_or(&[][..], |l| l.of(PolyIndex(i as u32)));
            let mut linked_edges = Vec::new();
            for l in of {
                if let Some(e) = link_edge(&v, i, &l.kind) {
                    v.edges.push(e);
                }
                if let LinkKind::Portal { edge, .. } | LinkKind::Internal { edge } = l.kind {
                    linked_edges.push(edge);
                }
            }
            for (k, e) in p.edge_list().iter().enumerate() {
                if matches!(e, Edge::Portal(_)) && !linked_edges.contains(&(k as u8)) {
                    if let Some(Some(pv)) = v.polys.get(i) {
                        let n = pv.pts.len();
                        v.edges.push(EdgeView {
                            a: pv.pts[k % n],
                            b: pv.pts[(k + 1) % n],
                            style: EdgeStyle::OpenPortal,
                        });
                    }
                }
            }
        }
        for (j, l) in v.links.iter_mut().enumerate() {
            let of = links.map_or(&[][..], |x| x.of(PolyIndex((ng + j) as u32)));
            let mut landed = [false; 2];
            for x in of {
                if let LinkKind::FromOffMesh { end } = x.kind {
                    landed[end as usize] = true;
                }
            }
            l.landed = Some(landed);
        }
        out.push(v);
    }
    out
}

/// A scene of a valid mesh; `prefix(slot)` names each tile's field path prefix.
pub fn mesh_scene(title: String, m: TiledNavMesh, prefix: impl Fn(u32) -> String) -> Scene {
    let tiles = mesh_tiles(&m);
    let prefixes = tiles
        .iter()
        .map(|t| t.slot.map_or(String::new(), &prefix))
        .collect();
    Scene {
        title,
        tiles,
        problems: Vec::new(),
        marks: Vec::new(),
        prefixes,
        mesh: Some(m),
        cache: None,
    }
}

/// The fields of a decode by path.
pub struct Fields<'a>(pub BTreeMap<&'a str, &'a crate::files::decode::Value>);

impl<'a> Fields<'a> {
    /// Indexes a decode.
    pub fn of(d: &'a crate::files::decode::Decoded) -> Self {
        Fields(
            d.fields
                .iter()
                .map(|f| (f.path.as_str(), &f.value))
                .collect(),
        )
    }
    /// An unsigned field.
    pub fn u(&self, p: &str) -> Option<u64> {
        match self.0.get(p) {
            Some(crate::files::decode::Value::U(v)) => Some(*v),
            _ => None,
        }
    }
    /// A signed field.
    pub fn i(&self, p: &str) -> Option<i64> {
        match self.0.get(p) {
            Some(crate::files::decode::Value::I(v)) => Some(*v),
            _ => None,
        }
    }
    /// A float field.
    pub fn f(&self, p: &str) -> Option<f64> {
        match self.0.get(p) {
            Some(crate::files::decode::Value::F(v)) => Some(*v),
            _ => None,
        }
    }
    /// Raw bytes.
    pub fn bytes(&self, p: &str) -> Option<&'a [u8]> {
        match self.0.get(p) {
            Some(crate::files::decode::Value::Bytes(b)) => Some(b),
            _ => None,
        }
    }
    fn v3(&self, p: &str) -> Option<[f64; 3]> {
        Some([
            self.f(&format!("{p}.x"))?,
            self.f(&format!("{p}.y"))?,
            self.f(&format!("{p}.z"))?,
        ])
    }
}

/// At most this many elements of one array are drawn from a decode (the decode itself is bounded
/// by the file's length; this keeps a hostile file's picture small).
const MAX_DECODED: u64 = 1 << 16;

/// A tile from the fields under `p` (`""`, `tile[3].`, `slot[2].tile.`), as far as they go.
pub fn decoded_tile(f: &Fields<'_>, p: &str, slot: Option<u32>) -> Option<TileView> {
    let pos = TilePos {
        column: i32::try_from(f.i(&format!("{p}position.column"))?).ok()?,
        row: i32::try_from(f.i(&format!("{p}position.row")).unwrap_or(0)).ok()?,
        layer: u32::try_from(f.u(&format!("{p}position.layer")).unwrap_or(0)).ok()?,
    };
    let grid = RawGrid {
        origin: f.v3(&format!("{p}params.origin")).unwrap_or([0.0; 3]),
        tile_size: f.f(&format!("{p}params.tile_size")).unwrap_or(0.0),
    };
    let count = |n: &str| f.u(&format!("{p}{n}")).unwrap_or(0).min(MAX_DECODED);
    let (nv, ng, nl) = (
        count("vertex_count"),
        count("polygon_count"),
        count("link_count"),
    );
    let vertices: Vec<[f64; 3]> = (0..nv)
        .map_while(|i| f.v3(&format!("{p}vertex[{i}]")))
        .collect();
    let mut edges = Vec::new();
    let mut polys = Vec::new();
    for i in 0..ng {
        let Some(n) = f.u(&format!("{p}polygon[{i}].vertex_count")) else {
            break;
        };
        let idx: Option<Vec<u64>> = (0..n.min(6))
            .map(|k| f.u(&format!("{p}polygon[{i}].vertex[{k}]")))
            .collect();
        let pts = idx.filter(|_| (3..=6).contains(&n)).and_then(|idx| {
            idx.iter()
                .map(|&v| vertices.get(v as usize).map(xz))
                .collect::<Option<Vec<_>>>()
        });
        let area = f
            .u(&format!("{p}area[{i}]"))
            .and_then(|a| u8::try_from(a).ok())
            .unwrap_or(0);
        let codes: Vec<Edge> = (0..n.min(6))
            .map(|k| match f.u(&format!("{p}polygon[{i}].neighbour[{k}]")) {
                Some(c) if c & 0x8000_0000 != 0 => {
                    Side::from_code((c & 0x7fff_ffff) as u32).map_or(Edge::Wall, Edge::Portal)
                }
                Some(0) | None => Edge::Wall,
                Some(c) => Edge::Internal(PolyIndex((c - 1) as u32)),
            })
            .collect();
        edges.push((i as usize, codes));
        polys.push(pts.map(|pts| PolyView {
            pts,
            area,
            edited: false,
        }));
    }
    let links = (0..nl)
        .map_while(|i| {
            Some(OffMeshView {
                start: f.v3(&format!("{p}link[{i}].start"))?,
                end: f.v3(&format!("{p}link[{i}].end"))?,
                radius: f.f(&format!("{p}link[{i}].radius"))?,
                both: f.u(&format!("{p}link[{i}].direction")) == Some(1),
                enabled: true,
                landed: None,
            })
        })
        .collect();
    let mut v = TileView {
        pos,
        slot,
        bounds: finite_bounds(grid.cell_bounds(pos.column, pos.row)),
        vertices,
        polys,
        links,
        edges: Vec::new(),
    };
    unstitched_edges(&mut v, &edges);
    Some(v)
}

/// Applies the edits and link switches a snapshot's slot `i` records to its decoded tile; `root`
/// prefixes the snapshot's field paths (`""`, or `mesh.` inside a tile cache snapshot).
pub fn decoded_slot_state(f: &Fields<'_>, root: &str, i: u64, v: &mut TileView) {
    let ne = f
        .u(&format!("{root}slot[{i}].edit_count"))
        .unwrap_or(0)
        .min(MAX_DECODED);
    for j in 0..ne {
        let (Some(p), Some(a)) = (
            f.u(&format!("{root}slot[{i}].edit[{j}].polygon")),
            f.u(&format!("{root}slot[{i}].edit[{j}].area")),
        ) else {
            break;
        };
        if let Some(Some(pv)) = v.polys.get_mut(p as usize) {
            pv.edited = true;
            pv.area = u8::try_from(a).unwrap_or(0);
        }
    }
    let nd = f
        .u(&format!("{root}slot[{i}].disabled_count"))
        .unwrap_or(0)
        .min(MAX_DECODED);
    for j in 0..nd {
        let Some(l) = f.u(&format!("{root}slot[{i}].disabled[{j}]")) else {
            break;
        };
        if let Some(lv) = v.links.get_mut(l as usize) {
            lv.enabled = false;
        }
    }
}

/// Splits a field path into its tile prefix (one of `prefixes`, the longest that fits) and the
/// rest, then names the part of the tile the rest points at.
pub fn resolve(scene: &Scene, path: &str) -> (Option<usize>, Target) {
    // A tile cache's own lists (`obstacle[i].…`, `volume[i].…`, `queue[i]…`) are drawn outside
    // the tiles.
    let listed = |name: &str| -> Option<usize> {
        path.strip_prefix(name)?
            .strip_prefix('[')?
            .split(']')
            .next()?
            .parse()
            .ok()
    };
    if scene.cache.is_some() {
        if let Some(i) = listed("obstacle") {
            return (None, Target::Obstacle(i));
        }
        if let Some(i) = listed("volume") {
            return (None, Target::Volume(i));
        }
        if let Some(i) = listed("queue") {
            return (None, Target::Queued(i));
        }
    }
    let best = scene
        .prefixes
        .iter()
        .enumerate()
        .filter(|(_, p)| !p.is_empty() && path.starts_with(p.as_str()))
        .max_by_key(|(_, p)| p.len())
        .map(|(i, p)| (i, &path[p.len()..]));
    let (tile, rest) = match best {
        Some((i, r)) => (Some(i), r),
        None if scene.prefixes.len() == 1 && scene.prefixes[0].is_empty() => (Some(0), path),
        None => {
            // A slot field outside its tile (generation, kind, edits, switches).
            let slot = path
                .strip_prefix("mesh.")
                .unwrap_or(path)
                .strip_prefix("slot[")
                .and_then(|r| r.split(']').next())
                .and_then(|s| s.parse::<u32>().ok());
            let t = slot.and_then(|s| scene.tiles.iter().position(|t| t.slot == Some(s)));
            return (t, Target::Tile);
        }
    };
    let index = |name: &str| -> Option<usize> {
        rest.strip_prefix(name)?
            .strip_prefix('[')?
            .split(']')
            .next()?
            .parse()
            .ok()
    };
    let ng = tile
        .and_then(|t| scene.tiles.get(t))
        .map_or(0, |t| t.polys.len());
    let target = if let Some(i) = index("polygon").or_else(|| index("detail")) {
        Target::Poly(i)
    } else if let Some(i) = index("vertex") {
        Target::Vertex(i)
    } else if let Some(i) = index("link") {
        Target::Link(i)
    } else if let Some(i) = index("area").or_else(|| index("flags")) {
        if i < ng {
            Target::Poly(i)
        } else {
            Target::Link(i - ng)
        }
    } else {
        Target::Tile
    };
    (tile, target)
}
