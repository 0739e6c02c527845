//! Scenes to SVG: a top view (x to the right, z down) per scene and layer, side by side, each
//! with its tiles outlined and labelled (column, row, layer), polygons filled by area, links,
//! off-mesh links, marks and query overlays, a scale bar in world units, and one legend.
//!
//! Level of detail: a panel of more than `detail_limit` tiles draws tile outlines and polygon
//! fills only (no edges, links or labels); one of more than eight times that draws each tile as
//! one rectangle in the colour of its most common area.

use std::collections::BTreeMap;

use super::cache::{CacheView, Footprint};
use super::query::{Dot, Fill, Line, Overlay};
use super::scene::{EdgeStyle, MarkKind, Scene, Target, TileView};
use super::svg::{fixed, points, Svg, A};

/// How to draw.
#[derive(Debug, Clone, PartialEq)]
pub struct View {
    /// Only this layer (default: every layer, side by side).
    pub layer: Option<u32>,
    /// Only this box `[x0, z0, x1, z1]` of the world.
    pub region: Option<[f64; 4]>,
    /// Above this many tiles in a panel, outlines and fills only.
    pub detail_limit: usize,
}

/// Default [`View::detail_limit`].
pub const DEFAULT_DETAIL_LIMIT: usize = 400;

impl Default for View {
    fn default() -> Self {
        View {
            layer: None,
            region: None,
            detail_limit: DEFAULT_DETAIL_LIMIT,
        }
    }
}

/// The longest side of a panel, in pixels.
const PANEL: f64 = 640.0;
const MARGIN: f64 = 16.0;
const GAP: f64 = 28.0;
const LEGEND_W: f64 = 250.0;
const LINE: f64 = 15.0;
/// Pixel coordinates are clamped to ± this (a hostile file's coordinates stay printable).
const CLAMP: f64 = 1.0e7;

/// Sixteen distinct fills; area `a` takes colour `a % 16`, lightened for each further 16.
const PALETTE: [(u8, u8, u8); 16] = [
    (0x74, 0xc0, 0xfc),
    (0x8c, 0xe9, 0x9a),
    (0xff, 0xd4, 0x3b),
    (0xff, 0xa9, 0x4d),
    (0xda, 0x77, 0xf2),
    (0x63, 0xe6, 0xbe),
    (0xff, 0x87, 0x87),
    (0xa9, 0xe3, 0x4b),
    (0x91, 0xa7, 0xff),
    (0xf7, 0x83, 0xac),
    (0x66, 0xd9, 0xe8),
    (0xe5, 0x99, 0xf7),
    (0xc0, 0xeb, 0x75),
    (0xff, 0xc0, 0x78),
    (0xb1, 0x97, 0xfc),
    (0x96, 0xf2, 0xd7),
];

/// The fill of area `a`; 63 (Recast's walkable area) is a neutral blue grey.
pub fn area_colour(a: u8) -> String {
    if a == 63 {
        return "#a5b4c8".into();
    }
    let (r, g, b) = PALETTE[usize::from(a % 16)];
    let k = u16::from(a / 16);
    let lift = |c: u8| (u16::from(c) + (255 - u16::from(c)) * k / 5) as u8;
    format!("#{:02x}{:02x}{:02x}", lift(r), lift(g), lift(b))
}

fn edge_stroke(s: EdgeStyle) -> (&'static str, f64, &'static str) {
    match s {
        EdgeStyle::Internal => ("#7b8794", 0.6, ""),
        EdgeStyle::Portal => ("#1c5fd4", 2.4, ""),
        EdgeStyle::OpenPortal => ("#e8590c", 2.0, "4 3"),
        EdgeStyle::Extra => ("#c2255c", 4.0, ""),
        EdgeStyle::Missing => ("#c2255c", 3.0, "7 4"),
    }
}

const DEFS: &str = r##"<defs>
<marker id="arrow-link" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#6741d9"/></marker>
<marker id="arrow-off" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#868e96"/></marker>
<marker id="arrow-normal" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#e03131"/></marker>
<pattern id="edited" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="2" height="6" fill="#212529" fill-opacity="0.45"/></pattern>
<pattern id="bad" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(-45)"><rect width="3" height="8" fill="#e03131" fill-opacity="0.35"/></pattern>
</defs>"##;

/// One panel: a scene's tiles of one layer, mapped into a pixel box.
struct Panel<'a> {
    scene: usize,
    layer: Option<u32>,
    tiles: Vec<(usize, &'a TileView)>,
    /// World box drawn.
    world: [f64; 4],
    /// Pixels per world unit.
    s: f64,
    /// Top-left pixel of the drawing area.
    at: [f64; 2],
    w: f64,
    h: f64,
}

impl Panel<'_> {
    fn px(&self, p: [f64; 2]) -> [f64; 2] {
        let c = |v: f64| {
            if v.is_finite() {
                v.clamp(-CLAMP, CLAMP)
            } else {
                0.0
            }
        };
        [
            c(self.at[0] + (p[0] - self.world[0]) * self.s),
            c(self.at[1] + (p[1] - self.world[1]) * self.s),
        ]
    }
}

fn grow(b: &mut Option<[f64; 4]>, p: [f64; 2]) {
    if !(p[0].is_finite() && p[1].is_finite()) {
        return;
    }
    *b = Some(match *b {
        None => [p[0], p[1], p[0], p[1]],
        Some(q) => [
            q[0].min(p[0]),
            q[1].min(p[1]),
            q[2].max(p[0]),
            q[3].max(p[1]),
        ],
    });
}

fn overlaps(a: &[f64; 4], b: &[f64; 4]) -> bool {
    a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3]
}

/// The world box a set of tiles covers (cells, polygons and link ends).
fn extent(tiles: &[(usize, &TileView)]) -> Option<[f64; 4]> {
    let mut b = None;
    for (_, t) in tiles {
        if let Some(c) = t.bounds {
            grow(&mut b, [c[0], c[1]]);
            grow(&mut b, [c[2], c[3]]);
        }
        for p in t.polys.iter().flatten() {
            p.pts.iter().for_each(|q| grow(&mut b, *q));
        }
        for l in &t.links {
            grow(&mut b, [l.start[0], l.start[2]]);
            grow(&mut b, [l.end[0], l.end[2]]);
        }
    }
    b
}

/// Grows `b` by what a tile cache draws: obstacle footprints, volumes and queued cells.
fn cache_extent(b: &mut Option<[f64; 4]>, c: &CacheView) {
    for o in &c.obstacles {
        match &o.footprint {
            Footprint::Circle { centre, radius } => {
                grow(b, [centre[0] - radius, centre[1] - radius]);
                grow(b, [centre[0] + radius, centre[1] + radius]);
            }
            Footprint::Polygon(pts) => pts.iter().for_each(|q| grow(b, *q)),
        }
    }
    for v in &c.volumes {
        v.pts.iter().for_each(|q| grow(b, *q));
    }
    for q in c.queue.iter().filter_map(|q| q.bounds) {
        grow(b, [q[0], q[1]]);
        grow(b, [q[2], q[3]]);
    }
}

/// The obstacles and volumes of a tile cache that do not reach into the world box `b`, by id.
fn outside(c: &CacheView, b: &[f64; 4]) -> Vec<String> {
    let misses = |grow_by: &dyn Fn(&mut Option<[f64; 4]>)| {
        let mut e = None;
        grow_by(&mut e);
        e.is_some_and(|e| !overlaps(&e, b))
    };
    let mut out = Vec::new();
    for o in &c.obstacles {
        let one = CacheView {
            obstacles: vec![o.clone()],
            ..CacheView::default()
        };
        if misses(&|e| cache_extent(e, &one)) {
            out.push(format!("obstacle {}", o.id));
        }
    }
    for v in &c.volumes {
        if misses(&|e| v.pts.iter().for_each(|q| grow(e, *q))) {
            out.push(format!("volume {}", v.id));
        }
    }
    out
}

/// The largest 1, 2 or 5 × 10^k world units drawn at most `max_px` long.
fn scale_length(s: f64, max_px: f64) -> (f64, usize) {
    let mut best = (0.0, 0);
    for k in -6i32..=12 {
        for m in [1, 2, 5] {
            let v: f64 = format!("{m}e{k}").parse().unwrap_or(0.0);
            if v * s <= max_px && v > best.0 {
                best = (v, usize::try_from(-k).unwrap_or(0));
            }
        }
    }
    best
}

/// Draws scenes, with an overlay on scene `o.0`.
pub fn render(
    scenes: &[Scene],
    overlay: Option<(usize, &Overlay)>,
    view: &View,
    notes: &[String],
) -> String {
    // Panels, one per scene and layer shown.
    let mut panels: Vec<Panel<'_>> = Vec::new();
    for (si, sc) in scenes.iter().enumerate() {
        let mut layers: Vec<u32> = sc.tiles.iter().map(|t| t.pos.layer).collect();
        layers.sort_unstable();
        layers.dedup();
        if let Some(l) = view.layer {
            layers.retain(|&x| x == l);
        }
        let mut any = false;
        for l in layers {
            let tiles: Vec<(usize, &TileView)> = sc
                .tiles
                .iter()
                .enumerate()
                .filter(|(_, t)| t.pos.layer == l)
                .filter(|(_, t)| match (view.region, t.bounds) {
                    (Some(r), Some(b)) => overlaps(&r, &b),
                    _ => true,
                })
                .collect();
            panels.push(Panel {
                scene: si,
                layer: Some(l),
                tiles,
                world: [0.0; 4],
                s: 1.0,
                at: [0.0; 2],
                w: 0.0,
                h: 0.0,
            });
            any = true;
        }
        if !any {
            panels.push(Panel {
                scene: si,
                layer: None,
                tiles: Vec::new(),
                world: [0.0; 4],
                s: 1.0,
                at: [0.0; 2],
                w: 0.0,
                h: 0.0,
            });
        }
    }
    // The panels of one scene share its world box, so that its layers line up side by side. A
    // tile cache's obstacles and volumes widen it only when there are no tiles (one far away
    // would shrink the mesh to a dot); those outside it are named above the picture.
    let boxes: Vec<Option<[f64; 4]>> = (0..scenes.len())
        .map(|si| {
            let tiles: Vec<(usize, &TileView)> = panels
                .iter()
                .filter(|p| p.scene == si)
                .flat_map(|p| p.tiles.iter().copied())
                .collect();
            let mut b = extent(&tiles);
            if let (Some(c), None) = (&scenes[si].cache, b) {
                cache_extent(&mut b, c);
            }
            b
        })
        .collect();
    // Problems and query notes go above the panels.
    let mut header: Vec<(String, &str)> = notes.iter().map(|n| (n.clone(), "#e8590c")).collect();
    for (si, sc) in scenes.iter().enumerate() {
        for p in &sc.problems {
            header.push((format!("{}: {p}", sc.title), "#c92a2a"));
        }
        if let (Some(c), Some(b)) = (&sc.cache, view.region.or(boxes[si])) {
            for what in outside(c, &b) {
                header.push((
                    format!("{}: {what} lies outside the picture", sc.title),
                    "#e8590c",
                ));
            }
        }
    }
    if let Some((_, o)) = overlay {
        for n in &o.notes {
            header.push((n.clone(), "#1864ab"));
        }
    }
    let top = MARGIN + LINE * header.len() as f64 + if header.is_empty() { 0.0 } else { 6.0 };
    let mut x = MARGIN;
    let mut height: f64 = 0.0;
    for p in &mut panels {
        let w = view
            .region
            .or(boxes[p.scene])
            .unwrap_or([0.0, 0.0, 1.0, 1.0]);
        let (dw, dh) = (w[2] - w[0], w[3] - w[1]);
        let pad = dw.max(dh) * 0.02;
        p.world = [w[0] - pad, w[1] - pad, w[2] + pad, w[3] + pad];
        let span = (dw.max(dh) + 2.0 * pad).max(f64::MIN_POSITIVE);
        p.s = PANEL / span;
        if !p.s.is_finite() || p.s <= 0.0 {
            p.s = 1.0;
        }
        p.w = ((p.world[2] - p.world[0]) * p.s).clamp(120.0, PANEL);
        p.h = ((p.world[3] - p.world[1]) * p.s).clamp(60.0, PANEL);
        p.at = [x, top + 20.0];
        x += p.w + GAP;
        height = height.max(p.h);
    }
    let legend_x = x;
    let total_w = legend_x + LEGEND_W + MARGIN;
    let legend_h = legend_height(scenes, overlay.is_some());
    let total_h = (top + 20.0 + height + 64.0).max(top + legend_h + MARGIN);
    let mut svg = Svg::new(total_w, total_h);
    svg.raw(DEFS);
    for (i, (text, colour)) in header.iter().enumerate() {
        svg.text(
            "text",
            &[
                ("x", MARGIN.into()),
                ("y", (MARGIN + 11.0 + LINE * i as f64).into()),
                ("font-size", 12.0.into()),
                ("fill", (*colour).into()),
            ],
            text,
        );
    }
    for (k, p) in panels.iter().enumerate() {
        let o = overlay.and_then(|(s, o)| (s == p.scene).then_some(o));
        draw_panel(&mut svg, k, p, &scenes[p.scene], o, view);
    }
    draw_legend(&mut svg, scenes, overlay.is_some(), legend_x, top);
    svg.finish()
}

fn legend_height(scenes: &[Scene], query: bool) -> f64 {
    let areas = used_areas(scenes).len() as f64;
    let cache = if has_cache(scenes) { 5.0 } else { 0.0 };
    40.0 + LINE * (areas + 12.0 + cache + if query { 8.0 } else { 0.0 })
}

fn has_cache(scenes: &[Scene]) -> bool {
    scenes.iter().any(|s| s.cache.is_some())
}

/// The areas used, each with its number of polygons and of tile cache volumes.
fn used_areas(scenes: &[Scene]) -> BTreeMap<u8, (usize, usize)> {
    let mut m: BTreeMap<u8, (usize, usize)> = BTreeMap::new();
    for sc in scenes {
        for t in &sc.tiles {
            for p in t.polys.iter().flatten() {
                m.entry(p.area).or_default().0 += 1;
            }
        }
        for v in sc.cache.iter().flat_map(|c| &c.volumes) {
            m.entry(v.area).or_default().1 += 1;
        }
    }
    m
}

fn draw_panel(
    svg: &mut Svg,
    k: usize,
    p: &Panel<'_>,
    sc: &Scene,
    o: Option<&Overlay>,
    view: &View,
) {
    let mut title = match (p.layer, &sc.cache) {
        (Some(l), _) => format!("{} · layer {l} · {} tiles", sc.title, p.tiles.len()),
        (None, Some(_)) => format!("{} · no tiles", sc.title),
        (None, None) => format!("{} · nothing to draw", sc.title),
    };
    if let Some(c) = &sc.cache {
        title.push_str(&format!(
            " · {} obstacles, {} volumes, {} queued",
            c.obstacles.len(),
            c.volumes.len(),
            c.queue.len()
        ));
    }
    svg.text(
        "text",
        &[
            ("x", p.at[0].into()),
            ("y", (p.at[1] - 6.0).into()),
            ("font-size", 12.0.into()),
            ("font-weight", "bold".into()),
        ],
        &title,
    );
    let clip = format!("clip{k}");
    svg.open("clipPath", &[("id", (&clip).into())]);
    svg.leaf(
        "rect",
        &[
            ("x", p.at[0].into()),
            ("y", p.at[1].into()),
            ("width", p.w.into()),
            ("height", p.h.into()),
        ],
    );
    svg.close();
    svg.leaf(
        "rect",
        &[
            ("x", p.at[0].into()),
            ("y", p.at[1].into()),
            ("width", p.w.into()),
            ("height", p.h.into()),
            ("fill", "#f8f9fa".into()),
            ("stroke", "#ced4da".into()),
        ],
    );
    let url = format!("url(#{clip})");
    svg.open("g", &[("clip-path", (&url).into())]);
    let n = p.tiles.len();
    let level = if n > view.detail_limit.saturating_mul(8) {
        2
    } else if n > view.detail_limit {
        1
    } else {
        0
    };
    // Fills.
    svg.open("g", &[("id", (&format!("polygons{k}")).into())]);
    for (_, t) in &p.tiles {
        if level == 2 {
            let mut count: BTreeMap<u8, usize> = BTreeMap::new();
            for q in t.polys.iter().flatten() {
                *count.entry(q.area).or_insert(0) += 1;
            }
            let top = count
                .iter()
                .max_by_key(|(a, c)| (**c, std::cmp::Reverse(**a)));
            if let (Some(b), Some((a, _))) = (t.bounds, top) {
                let (a0, a1) = (p.px([b[0], b[1]]), p.px([b[2], b[3]]));
                svg.leaf(
                    "rect",
                    &[
                        ("x", a0[0].into()),
                        ("y", a0[1].into()),
                        ("width", (a1[0] - a0[0]).into()),
                        ("height", (a1[1] - a0[1]).into()),
                        ("fill", (&area_colour(*a)).into()),
                    ],
                );
            }
            continue;
        }
        for q in t.polys.iter().flatten() {
            let pts: Vec<[f64; 2]> = q.pts.iter().map(|v| p.px(*v)).collect();
            let pl = points(&pts);
            let fill = area_colour(q.area);
            if level == 0 {
                svg.leaf(
                    "polygon",
                    &[
                        ("points", (&pl).into()),
                        ("fill", (&fill).into()),
                        ("stroke", "#495057".into()),
                        ("stroke-width", 0.4.into()),
                        ("stroke-opacity", 0.6.into()),
                    ],
                );
            } else {
                svg.leaf(
                    "polygon",
                    &[("points", (&pl).into()), ("fill", (&fill).into())],
                );
            }
            if q.edited {
                svg.leaf(
                    "polygon",
                    &[
                        ("points", (&pl).into()),
                        ("fill", "url(#edited)".into()),
                        ("stroke", "#212529".into()),
                        ("stroke-width", 1.2.into()),
                    ],
                );
            }
        }
    }
    svg.close();
    if let Some(c) = &sc.cache {
        draw_volumes(svg, k, p, c);
    }
    // Tile outlines (thinner as tiles get many) and labels.
    svg.open(
        "g",
        &[
            ("id", (&format!("tiles{k}")).into()),
            ("fill", "none".into()),
            ("stroke", "#343a40".into()),
            ("stroke-width", [1.0, 0.5, 0.25][level].into()),
        ],
    );
    for (_, t) in &p.tiles {
        if let Some(b) = t.bounds {
            let (a0, a1) = (p.px([b[0], b[1]]), p.px([b[2], b[3]]));
            svg.leaf(
                "rect",
                &[
                    ("x", a0[0].into()),
                    ("y", a0[1].into()),
                    ("width", (a1[0] - a0[0]).into()),
                    ("height", (a1[1] - a0[1]).into()),
                ],
            );
        }
    }
    svg.close();
    if level == 0 {
        svg.open("g", &[("id", (&format!("edges{k}")).into())]);
        for (_, t) in &p.tiles {
            for e in &t.edges {
                let (c, w, dash) = edge_stroke(e.style);
                let (a, b) = (p.px(e.a), p.px(e.b));
                let mut at: Vec<(&str, A<'_>)> = vec![
                    ("x1", a[0].into()),
                    ("y1", a[1].into()),
                    ("x2", b[0].into()),
                    ("y2", b[1].into()),
                    ("stroke", c.into()),
                    ("stroke-width", w.into()),
                ];
                if !dash.is_empty() {
                    at.push(("stroke-dasharray", dash.into()));
                }
                svg.leaf("line", &at);
            }
        }
        svg.close();
    }
    if level == 0 {
        svg.open(
            "g",
            &[("font-size", 10.0.into()), ("fill", "#343a40".into())],
        );
        for (_, t) in &p.tiles {
            if let Some(b) = t.bounds {
                let a0 = p.px([b[0], b[1]]);
                let label = match t.slot {
                    Some(s) => format!("({},{},{}) slot {s}", t.pos.column, t.pos.row, t.pos.layer),
                    None => format!("({},{},{})", t.pos.column, t.pos.row, t.pos.layer),
                };
                svg.text(
                    "text",
                    &[("x", (a0[0] + 3.0).into()), ("y", (a0[1] + 11.0).into())],
                    &label,
                );
            }
        }
        svg.close();
        draw_off_mesh(svg, p);
    }
    if let Some(c) = &sc.cache {
        draw_obstacles(svg, k, p, c);
        draw_queue(svg, k, p, c);
    }
    if let Some(o) = o {
        draw_overlay(svg, p, o);
    }
    draw_marks(svg, p, sc);
    svg.close();
    draw_scale(svg, p);
    if level > 0 {
        svg.text(
            "text",
            &[
                ("x", p.at[0].into()),
                ("y", (p.at[1] + p.h + 48.0).into()),
                ("font-size", 10.0.into()),
                ("fill", "#495057".into()),
            ],
            &format!(
                "level of detail: {n} tiles > {}: {}",
                if level == 2 {
                    view.detail_limit.saturating_mul(8)
                } else {
                    view.detail_limit
                },
                if level == 2 {
                    "one fill per tile (its most common area)"
                } else {
                    "outlines and fills only"
                }
            ),
        );
    }
}

/// The mean of some points (a label's place).
fn mean(pts: &[[f64; 2]]) -> [f64; 2] {
    let n = pts.len().max(1) as f64;
    let (x, z) = pts
        .iter()
        .fold((0.0, 0.0), |(x, z), q| (x + q[0], z + q[1]));
    [x / n, z / n]
}

const VOLUME: &str = "#364fc7";
const OBSTACLE: &str = "#c92a2a";
const QUEUED: &str = "#e67700";

/// A tile cache's area volumes: filled by their area (see-through, over the polygons), outlined
/// dashed, labelled with their id and area.
fn draw_volumes(svg: &mut Svg, k: usize, p: &Panel<'_>, c: &CacheView) {
    svg.open("g", &[("id", (&format!("volumes{k}")).into())]);
    for v in &c.volumes {
        let px: Vec<[f64; 2]> = v.pts.iter().map(|q| p.px(*q)).collect();
        svg.leaf(
            "polygon",
            &[
                ("points", (&points(&px)).into()),
                ("fill", (&area_colour(v.area)).into()),
                ("fill-opacity", 0.6.into()),
                ("stroke", VOLUME.into()),
                ("stroke-width", 1.6.into()),
                ("stroke-dasharray", "6 3".into()),
            ],
        );
        let m = mean(&px);
        svg.text(
            "text",
            &[
                ("x", m[0].into()),
                ("y", (m[1] + 4.0).into()),
                ("font-size", 10.0.into()),
                ("fill", VOLUME.into()),
                ("text-anchor", "middle".into()),
            ],
            &format!("volume {} · area {}", v.id, v.area),
        );
    }
    svg.close();
}

/// A tile cache's obstacles: a cylinder as its circle, a box as its rectangle, an oriented box
/// as its four corners with a tick from its centre to its own +x face (so its rotation shows),
/// each labelled with its id.
fn draw_obstacles(svg: &mut Svg, k: usize, p: &Panel<'_>, c: &CacheView) {
    svg.open(
        "g",
        &[
            ("id", (&format!("obstacles{k}")).into()),
            ("fill", "#343a40".into()),
            ("fill-opacity", 0.35.into()),
            ("stroke", OBSTACLE.into()),
            ("stroke-width", 1.6.into()),
        ],
    );
    for o in &c.obstacles {
        let centre = match &o.footprint {
            Footprint::Circle { centre, radius } => {
                let q = p.px(*centre);
                svg.leaf(
                    "circle",
                    &[
                        ("cx", q[0].into()),
                        ("cy", q[1].into()),
                        ("r", (radius * p.s).clamp(0.5, CLAMP).into()),
                    ],
                );
                q
            }
            Footprint::Polygon(pts) => {
                let px: Vec<[f64; 2]> = pts.iter().map(|q| p.px(*q)).collect();
                svg.leaf("polygon", &[("points", (&points(&px)).into())]);
                let m = mean(&px);
                if o.shape == 3 && px.len() == 4 {
                    let face = mean(&px[1..3]);
                    svg.leaf(
                        "line",
                        &[
                            ("x1", m[0].into()),
                            ("y1", m[1].into()),
                            ("x2", face[0].into()),
                            ("y2", face[1].into()),
                            ("stroke-width", 1.0.into()),
                        ],
                    );
                }
                m
            }
        };
        svg.text(
            "text",
            &[
                ("x", centre[0].into()),
                ("y", (centre[1] - 4.0).into()),
                ("font-size", 10.0.into()),
                ("fill", OBSTACLE.into()),
                ("fill-opacity", 1.0.into()),
                ("stroke", "none".into()),
                ("text-anchor", "middle".into()),
            ],
            &format!("obstacle {}", o.id),
        );
    }
    svg.close();
}

/// A tile cache's queued tiles: their cells outlined dashed, labelled with their place in the
/// queue (`queue[0]` is rebuilt first).
fn draw_queue(svg: &mut Svg, k: usize, p: &Panel<'_>, c: &CacheView) {
    svg.open(
        "g",
        &[
            ("id", (&format!("queue{k}")).into()),
            ("fill", "none".into()),
        ],
    );
    for (j, q) in c.queue.iter().enumerate() {
        let Some(b) = q.bounds else { continue };
        let (a0, a1) = (p.px([b[0], b[1]]), p.px([b[2], b[3]]));
        svg.leaf(
            "rect",
            &[
                ("x", (a0[0] + 2.0).into()),
                ("y", (a0[1] + 2.0).into()),
                ("width", (a1[0] - a0[0] - 4.0).max(0.0).into()),
                ("height", (a1[1] - a0[1] - 4.0).max(0.0).into()),
                ("stroke", QUEUED.into()),
                ("stroke-width", 2.4.into()),
                ("stroke-dasharray", "8 4".into()),
            ],
        );
        svg.text(
            "text",
            &[
                ("x", (a0[0] + 5.0).into()),
                ("y", (a1[1] - 6.0).into()),
                ("font-size", 10.0.into()),
                ("fill", QUEUED.into()),
            ],
            &format!("queue[{j}] ({},{})", q.column, q.row),
        );
    }
    svg.close();
}

/// Outlines the part of a tile cache a mark points at; returns where its label goes, or `None`
/// when that part was not decoded.
fn mark_cache(
    svg: &mut Svg,
    p: &Panel<'_>,
    c: &CacheView,
    target: Target,
    style: &[(&str, A<'_>)],
) -> Option<[f64; 2]> {
    let polygon = |svg: &mut Svg, pts: &[[f64; 2]]| {
        let px: Vec<[f64; 2]> = pts.iter().map(|q| p.px(*q)).collect();
        let pl = points(&px);
        let mut at: Vec<(&str, A<'_>)> = vec![("points", (&pl).into())];
        at.extend_from_slice(style);
        svg.leaf("polygon", &at);
        px.first().copied()
    };
    match target {
        Target::Obstacle(i) => match &c.obstacles.get(i)?.footprint {
            Footprint::Circle { centre, radius } => {
                let q = p.px(*centre);
                let mut at: Vec<(&str, A<'_>)> = vec![
                    ("cx", q[0].into()),
                    ("cy", q[1].into()),
                    ("r", (radius * p.s).clamp(4.0, CLAMP).into()),
                ];
                at.extend_from_slice(style);
                svg.leaf("circle", &at);
                Some(q)
            }
            Footprint::Polygon(pts) => polygon(svg, pts),
        },
        Target::Volume(i) => polygon(svg, &c.volumes.get(i)?.pts),
        Target::Queued(i) => {
            let b = c.queue.get(i)?.bounds?;
            polygon(
                svg,
                &[[b[0], b[1]], [b[2], b[1]], [b[2], b[3]], [b[0], b[3]]],
            )
        }
        _ => None,
    }
}

fn draw_off_mesh(svg: &mut Svg, p: &Panel<'_>) {
    svg.open(
        "g",
        &[("id", "off-mesh-links".into()), ("fill", "none".into())],
    );
    for (_, t) in &p.tiles {
        for l in &t.links {
            let (a, b) = (p.px([l.start[0], l.start[2]]), p.px([l.end[0], l.end[2]]));
            let (colour, marker) = if l.enabled {
                ("#6741d9", "url(#arrow-link)")
            } else {
                ("#868e96", "url(#arrow-off)")
            };
            let mut at: Vec<(&str, A<'_>)> = vec![
                ("x1", a[0].into()),
                ("y1", a[1].into()),
                ("x2", b[0].into()),
                ("y2", b[1].into()),
                ("stroke", colour.into()),
                ("stroke-width", 1.6.into()),
                ("marker-end", marker.into()),
            ];
            if l.both {
                at.push(("marker-start", marker.into()));
            }
            if !l.enabled {
                at.push(("stroke-dasharray", "5 3".into()));
            }
            svg.leaf("line", &at);
            let r = (l.radius * p.s).clamp(1.5, CLAMP);
            for (end, c) in [(a, 0usize), (b, 1)] {
                let landed = l.landed.is_none_or(|x| x[c]);
                svg.leaf(
                    "circle",
                    &[
                        ("cx", end[0].into()),
                        ("cy", end[1].into()),
                        ("r", r.into()),
                        ("stroke", (if landed { colour } else { "#e03131" }).into()),
                        ("stroke-width", (if landed { 0.8 } else { 1.6 }).into()),
                    ],
                );
            }
            if !l.enabled {
                let m = [(a[0] + b[0]) / 2.0, (a[1] + b[1]) / 2.0];
                svg.text(
                    "text",
                    &[
                        ("x", m[0].into()),
                        ("y", (m[1] + 4.0).into()),
                        ("font-size", 12.0.into()),
                        ("fill", "#c92a2a".into()),
                        ("text-anchor", "middle".into()),
                    ],
                    "×",
                );
            }
        }
    }
    svg.close();
}

fn draw_overlay(svg: &mut Svg, p: &Panel<'_>, o: &Overlay) {
    svg.open("g", &[("id", "query".into())]);
    for (layer, pts, fill) in &o.polys {
        if p.layer.is_some_and(|l| l != *layer) {
            continue;
        }
        let (c, op) = match fill {
            Fill::Corridor => ("#fab005", 0.55),
            Fill::Visited => ("#74c0fc", 0.45),
            Fill::Nearest => ("#40c057", 0.6),
        };
        let px: Vec<[f64; 2]> = pts.iter().map(|v| p.px(*v)).collect();
        svg.leaf(
            "polygon",
            &[
                ("points", (&points(&px)).into()),
                ("fill", c.into()),
                ("fill-opacity", op.into()),
                ("stroke", c.into()),
                ("stroke-width", 1.0.into()),
            ],
        );
    }
    let shown =
        |layers: &Vec<u32>| layers.is_empty() || p.layer.is_none_or(|l| layers.contains(&l));
    for (b, layers) in &o.boxes {
        if !shown(layers) {
            continue;
        }
        let (a0, a1) = (p.px([b[0], b[1]]), p.px([b[2], b[3]]));
        svg.leaf(
            "rect",
            &[
                ("x", a0[0].into()),
                ("y", a0[1].into()),
                ("width", (a1[0] - a0[0]).into()),
                ("height", (a1[1] - a0[1]).into()),
                ("fill", "none".into()),
                ("stroke", "#495057".into()),
                ("stroke-dasharray", "2 2".into()),
            ],
        );
    }
    for (pts, line, layers) in &o.lines {
        if !shown(layers) {
            continue;
        }
        let mut px: Vec<[f64; 2]> = pts.iter().map(|v| p.px(*v)).collect();
        let (c, w, dash, marker) = match line {
            Line::Path => ("#d9480f", 2.6, "", ""),
            Line::Ray => ("#1971c2", 2.2, "", ""),
            Line::RayRest => ("#1971c2", 1.2, "4 4", ""),
            Line::Normal => ("#e03131", 1.8, "", "url(#arrow-normal)"),
            Line::Snap => ("#495057", 1.0, "2 2", ""),
        };
        if *line == Line::Normal && px.len() == 2 {
            // The normal is a unit vector: drawn 24 pixels long whatever the scale.
            let d = [px[1][0] - px[0][0], px[1][1] - px[0][1]];
            let len = (d[0] * d[0] + d[1] * d[1]).sqrt();
            if len > 0.0 {
                px[1] = [px[0][0] + d[0] / len * 24.0, px[0][1] + d[1] / len * 24.0];
            }
        }
        let pl = points(&px);
        let mut at: Vec<(&str, A<'_>)> = vec![
            ("points", (&pl).into()),
            ("fill", "none".into()),
            ("stroke", c.into()),
            ("stroke-width", w.into()),
            ("stroke-linejoin", "round".into()),
        ];
        if !dash.is_empty() {
            at.push(("stroke-dasharray", dash.into()));
        }
        if !marker.is_empty() {
            at.push(("marker-end", marker.into()));
        }
        svg.leaf("polyline", &at);
    }
    for (pt, dot, label, layers) in &o.dots {
        if !shown(layers) {
            continue;
        }
        let q = p.px(*pt);
        let (c, r) = match dot {
            Dot::Start => ("#2b8a3e", 5.0),
            Dot::End => ("#c92a2a", 5.0),
            Dot::OffMesh => ("#6741d9", 4.5),
            Dot::Corner => ("#d9480f", 3.0),
            Dot::Hit => ("#e03131", 4.5),
            Dot::Query => ("#212529", 3.0),
            Dot::Found => ("#ffffff", 2.5),
        };
        svg.leaf(
            "circle",
            &[
                ("cx", q[0].into()),
                ("cy", q[1].into()),
                ("r", r.into()),
                ("fill", c.into()),
                ("stroke", "#212529".into()),
                ("stroke-width", 0.8.into()),
            ],
        );
        if !label.is_empty() && !matches!(dot, Dot::Query) {
            svg.text(
                "text",
                &[
                    ("x", (q[0] + 6.0).into()),
                    ("y", (q[1] - 6.0).into()),
                    ("font-size", 10.0.into()),
                    ("fill", "#212529".into()),
                ],
                label,
            );
        }
    }
    svg.close();
}

fn draw_marks(svg: &mut Svg, p: &Panel<'_>, sc: &Scene) {
    if sc.marks.is_empty() {
        return;
    }
    svg.open("g", &[("id", "marks".into()), ("fill", "none".into())]);
    for m in &sc.marks {
        let colour = match m.kind {
            MarkKind::Error => "#e03131",
            MarkKind::Difference => "#f08c00",
        };
        let hatch = match m.kind {
            MarkKind::Error => "url(#bad)",
            MarkKind::Difference => "none",
        };
        let tile = m
            .tile
            .and_then(|i| p.tiles.iter().find(|(j, _)| *j == i).map(|(_, t)| *t));
        let mut anchor = None;
        let cached = match (&sc.cache, m.tile) {
            (Some(c), None) if m.target.is_cache() => mark_cache(
                svg,
                p,
                c,
                m.target,
                &[
                    ("fill", hatch.into()),
                    ("stroke", colour.into()),
                    ("stroke-width", 3.0.into()),
                ],
            ),
            _ => None,
        };
        match (m.tile, tile) {
            _ if cached.is_some() => anchor = cached,
            (None, _) => {
                svg.leaf(
                    "rect",
                    &[
                        ("x", (p.at[0] + 2.0).into()),
                        ("y", (p.at[1] + 2.0).into()),
                        ("width", (p.w - 4.0).into()),
                        ("height", (p.h - 4.0).into()),
                        ("stroke", colour.into()),
                        ("stroke-width", 4.0.into()),
                    ],
                );
                anchor = Some([p.at[0] + 6.0, p.at[1] + p.h - 8.0]);
            }
            (Some(_), None) => {}
            (Some(_), Some(t)) => {
                let poly = match m.target {
                    Target::Poly(i) => t.polys.get(i).and_then(|x| x.as_ref()),
                    _ => None,
                };
                let vertex = match m.target {
                    Target::Vertex(i) => t.vertices.get(i),
                    _ => None,
                };
                let link = match m.target {
                    Target::Link(i) => t.links.get(i),
                    _ => None,
                };
                if let Some(q) = poly {
                    let px: Vec<[f64; 2]> = q.pts.iter().map(|v| p.px(*v)).collect();
                    svg.leaf(
                        "polygon",
                        &[
                            ("points", (&points(&px)).into()),
                            ("fill", hatch.into()),
                            ("stroke", colour.into()),
                            ("stroke-width", 3.0.into()),
                        ],
                    );
                    anchor = px.first().copied();
                } else if let Some(v) = vertex {
                    let q = p.px([v[0], v[2]]);
                    svg.leaf(
                        "circle",
                        &[
                            ("cx", q[0].into()),
                            ("cy", q[1].into()),
                            ("r", 7.0.into()),
                            ("stroke", colour.into()),
                            ("stroke-width", 3.0.into()),
                        ],
                    );
                    anchor = Some(q);
                } else if let Some(l) = link {
                    let (a, b) = (p.px([l.start[0], l.start[2]]), p.px([l.end[0], l.end[2]]));
                    svg.leaf(
                        "line",
                        &[
                            ("x1", a[0].into()),
                            ("y1", a[1].into()),
                            ("x2", b[0].into()),
                            ("y2", b[1].into()),
                            ("stroke", colour.into()),
                            ("stroke-width", 5.0.into()),
                            ("stroke-opacity", 0.7.into()),
                        ],
                    );
                    anchor = Some(a);
                } else if let Some(b) = t.bounds {
                    let (a0, a1) = (p.px([b[0], b[1]]), p.px([b[2], b[3]]));
                    svg.leaf(
                        "rect",
                        &[
                            ("x", a0[0].into()),
                            ("y", a0[1].into()),
                            ("width", (a1[0] - a0[0]).into()),
                            ("height", (a1[1] - a0[1]).into()),
                            ("fill", hatch.into()),
                            ("stroke", colour.into()),
                            ("stroke-width", 3.0.into()),
                        ],
                    );
                    anchor = Some([a0[0] + 3.0, a1[1] - 4.0]);
                }
            }
        }
        if let Some(a) = anchor {
            // Kept inside the panel: right-aligned in its right half, below its top line.
            let right = a[0] > p.at[0] + p.w / 2.0;
            let x = a[0].clamp(p.at[0] + 4.0, p.at[0] + p.w - 4.0);
            let y = a[1].clamp(p.at[1] + 14.0, p.at[1] + p.h - 4.0);
            svg.text(
                "text",
                &[
                    ("x", x.into()),
                    ("y", y.into()),
                    ("text-anchor", (if right { "end" } else { "start" }).into()),
                    ("font-size", 11.0.into()),
                    ("font-weight", "bold".into()),
                    ("fill", colour.into()),
                    ("stroke", "#ffffff".into()),
                    ("stroke-width", 3.0.into()),
                    ("paint-order", "stroke".into()),
                ],
                &m.label,
            );
        }
    }
    svg.close();
}

fn draw_scale(svg: &mut Svg, p: &Panel<'_>) {
    let (len, decimals) = scale_length(p.s, p.w.min(160.0));
    let y = p.at[1] + p.h + 18.0;
    let x0 = p.at[0];
    if len > 0.0 {
        let x1 = x0 + len * p.s;
        svg.leaf(
            "polyline",
            &[
                (
                    "points",
                    (&points(&[[x0, y - 5.0], [x0, y], [x1, y], [x1, y - 5.0]])).into(),
                ),
                ("fill", "none".into()),
                ("stroke", "#212529".into()),
                ("stroke-width", 1.5.into()),
            ],
        );
        svg.text(
            "text",
            &[
                ("x", (x1 + 6.0).into()),
                ("y", (y + 1.0).into()),
                ("font-size", 11.0.into()),
            ],
            &format!("{} world units", fixed(len, decimals)),
        );
    }
    svg.text(
        "text",
        &[
            ("x", x0.into()),
            ("y", (y + 16.0).into()),
            ("font-size", 10.0.into()),
            ("fill", "#495057".into()),
        ],
        &format!(
            "top view: x → ({} … {}), z ↓ ({} … {})",
            fixed(p.world[0], 2),
            fixed(p.world[2], 2),
            fixed(p.world[1], 2),
            fixed(p.world[3], 2)
        ),
    );
}

fn draw_legend(svg: &mut Svg, scenes: &[Scene], query: bool, x: f64, top: f64) {
    let mut y = top + 14.0;
    let head = |svg: &mut Svg, y: f64, t: &str| {
        svg.text(
            "text",
            &[
                ("x", x.into()),
                ("y", y.into()),
                ("font-size", 12.0.into()),
                ("font-weight", "bold".into()),
            ],
            t,
        );
    };
    let label = |svg: &mut Svg, y: f64, t: &str| {
        svg.text(
            "text",
            &[
                ("x", (x + 30.0).into()),
                ("y", (y + 4.0).into()),
                ("font-size", 11.0.into()),
            ],
            t,
        );
    };
    // A 22 × 10 box left of a legend line at `y`, with its own fill and stroke.
    let swatch = |svg: &mut Svg, y: f64, style: &[(&str, A<'_>)]| {
        let mut at: Vec<(&str, A<'_>)> = vec![
            ("x", x.into()),
            ("y", (y - 5.0).into()),
            ("width", 22.0.into()),
            ("height", 10.0.into()),
        ];
        at.extend_from_slice(style);
        svg.leaf("rect", &at);
    };
    // A line from `x + from` to `x + 22` at `y`, with its own stroke.
    let rule = |svg: &mut Svg, y: f64, from: f64, style: &[(&str, A<'_>)]| {
        let mut at: Vec<(&str, A<'_>)> = vec![
            ("x1", (x + from).into()),
            ("y1", y.into()),
            ("x2", (x + 22.0).into()),
            ("y2", y.into()),
        ];
        at.extend_from_slice(style);
        svg.leaf("line", &at);
    };
    svg.open("g", &[("id", "legend".into())]);
    head(svg, y, "areas (polygons)");
    y += LINE;
    for (a, (n, v)) in used_areas(scenes) {
        swatch(
            svg,
            y,
            &[
                ("fill", (&area_colour(a)).into()),
                ("stroke", "#495057".into()),
                ("stroke-width", 0.4.into()),
            ],
        );
        let text = match v {
            0 => format!("area {a} ({n})"),
            1 => format!("area {a} ({n} polygons, 1 volume)"),
            _ => format!("area {a} ({n} polygons, {v} volumes)"),
        };
        label(svg, y, &text);
        y += LINE;
    }
    y += 6.0;
    head(svg, y, "key");
    y += LINE;
    for s in [
        EdgeStyle::Internal,
        EdgeStyle::Portal,
        EdgeStyle::OpenPortal,
        EdgeStyle::Extra,
        EdgeStyle::Missing,
    ] {
        let (c, w, dash) = edge_stroke(s);
        let mut at: Vec<(&str, A<'_>)> =
            vec![("stroke", c.into()), ("stroke-width", w.max(1.0).into())];
        if !dash.is_empty() {
            at.push(("stroke-dasharray", dash.into()));
        }
        rule(svg, y, 0.0, &at);
        label(
            svg,
            y,
            match s {
                EdgeStyle::Internal => "internal link",
                EdgeStyle::Portal => "portal link (its overlap)",
                EdgeStyle::OpenPortal => "portal edge, no link",
                EdgeStyle::Extra => "link only in this picture",
                EdgeStyle::Missing => "link missing here (in the other)",
            },
        );
        y += LINE;
    }
    for (marker, start, dash, text) in [
        ("url(#arrow-link)", false, "", "off-mesh link, one way"),
        ("url(#arrow-link)", true, "", "off-mesh link, both ways"),
        (
            "url(#arrow-off)",
            false,
            "5 3",
            "off-mesh link, disabled (×)",
        ),
    ] {
        let c = if dash.is_empty() {
            "#6741d9"
        } else {
            "#868e96"
        };
        let mut at: Vec<(&str, A<'_>)> = vec![
            ("stroke", c.into()),
            ("stroke-width", 1.6.into()),
            ("marker-end", marker.into()),
        ];
        if start {
            at.push(("marker-start", marker.into()));
        }
        if !dash.is_empty() {
            at.push(("stroke-dasharray", dash.into()));
        }
        rule(svg, y, 2.0, &at);
        label(svg, y, text);
        y += LINE;
    }
    for (fill, stroke, text) in [
        ("url(#edited)", "#212529", "edited polygon (area/flags)"),
        ("url(#bad)", "#e03131", "rejected here (onav's error)"),
        ("none", "#f08c00", "first difference"),
    ] {
        swatch(
            svg,
            y,
            &[
                ("fill", fill.into()),
                ("stroke", stroke.into()),
                ("stroke-width", 1.5.into()),
            ],
        );
        label(svg, y, text);
        y += LINE;
    }
    svg.leaf(
        "circle",
        &[
            ("cx", (x + 11.0).into()),
            ("cy", y.into()),
            ("r", 5.0.into()),
            ("fill", "none".into()),
            ("stroke", "#e03131".into()),
            ("stroke-width", 1.6.into()),
        ],
    );
    label(svg, y, "off-mesh end that does not land");
    y += LINE;
    if has_cache(scenes) {
        y += 6.0;
        head(svg, y, "tile cache");
        y += LINE;
        for (style, text) in [
            (
                [
                    ("fill", "#ffffff"),
                    ("stroke", VOLUME),
                    ("stroke-dasharray", "6 3"),
                ],
                "area volume (filled by its area)",
            ),
            (
                [
                    ("fill", "#868e96"),
                    ("stroke", OBSTACLE),
                    ("stroke-dasharray", "none"),
                ],
                "obstacle (unwalkable; tick: its +x)",
            ),
            (
                [
                    ("fill", "none"),
                    ("stroke", QUEUED),
                    ("stroke-dasharray", "8 4"),
                ],
                "queued tile (queue[0] rebuilt first)",
            ),
        ] {
            let mut at: Vec<(&str, A<'_>)> = style.iter().map(|(k, v)| (*k, (*v).into())).collect();
            at.push(("stroke-width", 1.6.into()));
            swatch(svg, y, &at);
            label(svg, y, text);
            y += LINE;
        }
    }
    if query {
        y += 6.0;
        head(svg, y, "queries");
        y += LINE;
        for (c, text, op) in [
            ("#fab005", "corridor polygon", 0.55),
            ("#74c0fc", "raycast visited", 0.45),
            ("#40c057", "nearest polygon", 0.6),
        ] {
            swatch(svg, y, &[("fill", c.into()), ("fill-opacity", op.into())]);
            label(svg, y, text);
            y += LINE;
        }
        for (c, text) in [
            ("#d9480f", "straight path (corners)"),
            ("#1971c2", "ray walked (dashed: not)"),
            ("#e03131", "wall hit and its normal"),
        ] {
            rule(
                svg,
                y,
                0.0,
                &[("stroke", c.into()), ("stroke-width", 2.4.into())],
            );
            label(svg, y, text);
            y += LINE;
        }
        for (c, text) in [
            ("#2b8a3e", "start"),
            ("#c92a2a", "end"),
            ("#6741d9", "off-mesh boarding"),
        ] {
            svg.leaf(
                "circle",
                &[
                    ("cx", (x + 11.0).into()),
                    ("cy", y.into()),
                    ("r", 4.5.into()),
                    ("fill", c.into()),
                ],
            );
            label(svg, y, text);
            y += LINE;
        }
    }
    svg.close();
}
