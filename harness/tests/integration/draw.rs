//! `onav draw` and `onav diff --svg` end to end, through the binary: every picture is parsed by
//! an XML parser; the committed examples of `golden/draw/` (a suite world, a demo mesh built by
//! onav-build3d with a path, a failing stitching case drawn expected against got) are rebuilt
//! and must be the same bytes (`ONAV_BLESS_DRAW=1` rewrites them); hostile files are drawn with
//! their error; bad arguments exit 2.

use std::path::Path;
use std::process::{Command, Output};

use onav::{LinkKind, PolyIndex, SnapshotMode, TiledNavMesh, WorldSpec};
use onav_harness::{case_pictures, CaseState};
use serde_json::{json, Value};

use super::kit::{root, Temp};

fn onav(args: &[&std::ffi::OsStr]) -> Output {
    onav_in(&std::env::temp_dir(), args)
}

/// Runs `onav` in `dir` (files named relative to it keep the pictures' titles the same from run
/// to run).
fn onav_in(dir: &Path, args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_onav"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("onav runs")
}

fn os<S: AsRef<std::ffi::OsStr> + ?Sized>(s: &S) -> &std::ffi::OsStr {
    s.as_ref()
}

/// Parses an SVG with a real XML parser and returns the number of elements of each name asked.
fn parse(svg: &str) -> roxmltree::Document<'_> {
    let doc = roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("not XML: {e}\n{svg}"));
    let r = doc.root_element();
    assert_eq!(r.tag_name().name(), "svg");
    assert_eq!(r.tag_name().namespace(), Some("http://www.w3.org/2000/svg"));
    doc
}

fn count(doc: &roxmltree::Document<'_>, name: &str) -> usize {
    doc.descendants()
        .filter(|n| n.tag_name().name() == name)
        .count()
}

fn texts(doc: &roxmltree::Document<'_>) -> String {
    doc.descendants()
        .filter_map(|n| n.text())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Draws with the binary into a file and returns the SVG (status 0 required).
fn draw(t: &Temp, out: &str, args: &[&std::ffi::OsStr]) -> String {
    let o = t.0.join(out);
    let mut a: Vec<&std::ffi::OsStr> = vec![os("draw")];
    a.extend_from_slice(args);
    a.extend([os("--out"), o.as_os_str()]);
    let r = onav_in(&t.0, &a);
    assert!(
        r.status.success(),
        "onav draw failed: {}",
        String::from_utf8_lossy(&r.stderr)
    );
    std::fs::read_to_string(o).unwrap()
}

/// The committed example `golden/draw/NAME`: the same bytes, or rewritten when blessing.
fn example(name: &str, svg: &str) {
    parse(svg);
    let p = root().join("golden/draw").join(name);
    if std::env::var_os("ONAV_BLESS_DRAW").is_some() {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, svg).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&p)
        .unwrap_or_else(|e| panic!("{}: {e} (ONAV_BLESS_DRAW=1 writes it)", p.display()));
    assert!(
        committed == svg,
        "{name} changed: the picture of the same input must be the same bytes"
    );
}

/// The world of `scenarios/snapshot/y_continue-full.yaml` (and 11 other scenarios): two layers,
/// holes, slopes, three area kinds, two off-mesh links per tile.
const SUITE_WORLD: &str = "world: {name: w, columns: 3, rows: 2, layers: 2, quads: 2, vary_density: true, slope: [0.02, 0.01], bump: 0.2, hole_chance: 20, links_per_tile: 2, area_kinds: 3}";

// The same world as a `WorldSpec`: the test kit's fuzz world.
use onav_testkit::fuzz_world as suite_world;

fn mesh_of(w: &WorldSpec, slots: u32) -> TiledNavMesh {
    let mut m = TiledNavMesh::new(w.params(slots));
    for t in w.tiles() {
        m.add_tile(t).unwrap();
    }
    m
}

/// The suite world in 16 slots, with one polygon's area edited and one off-mesh link off.
fn edited_suite_mesh() -> TiledNavMesh {
    let mut m = mesh_of(&suite_world(), 16);
    let (r, _) = m.tiles().nth(1).unwrap();
    m.set_poly_area(r.poly(PolyIndex(0)), 7).unwrap();
    let (r, _) = m.tiles().nth(2).unwrap();
    m.set_off_mesh_link_enabled(r, onav::LinkIndex(0), false)
        .unwrap();
    m
}

#[test]
fn suite_world_snapshot_example() {
    let scenario =
        std::fs::read_to_string(root().join("scenarios/snapshot/y_continue-full.yaml")).unwrap();
    assert!(
        scenario.contains(SUITE_WORLD),
        "the example follows the suite's world"
    );
    let t = Temp::new("world");
    let m = edited_suite_mesh();
    t.file("world.onps", &m.snapshot(SnapshotMode::Full));
    let snap = Path::new("world.onps");
    let svg = draw(&t, "world.svg", &[snap.as_os_str()]);
    let doc = parse(&svg);
    let text = texts(&doc);
    // Both layers side by side, every tile labelled with its column, row and layer.
    assert!(
        text.contains("layer 0 · 6 tiles") && text.contains("layer 1 · 6 tiles"),
        "{text}"
    );
    for (_, tile) in m.tiles() {
        let p = tile.pos();
        assert!(text.contains(&format!("({},{},{})", p.column, p.row, p.layer)));
    }
    let polys: usize = m.tiles().map(|(_, t)| t.ground_poly_count() as usize).sum();
    let links: usize = m.tiles().map(|(_, t)| t.link_count() as usize).sum();
    // One fill per polygon, plus the hatch of the edited one.
    let fills = doc
        .descendants()
        .filter(|n| n.tag_name().name() == "polygon" && n.attribute("fill") != Some("url(#edited)"))
        .filter(|n| {
            n.ancestors()
                .any(|a| a.attribute("id").is_some_and(|i| i.starts_with("polygons")))
        })
        .count();
    assert_eq!(fills, polys);
    let edited = doc
        .descendants()
        .filter(|n| n.attribute("fill") == Some("url(#edited)") && n.tag_name().name() == "polygon")
        .count();
    assert_eq!(edited, 1);
    let arrows = doc
        .descendants()
        .filter(|n| n.tag_name().name() == "line" && n.attribute("marker-end").is_some())
        .filter(|n| {
            n.ancestors()
                .any(|a| a.attribute("id") == Some("off-mesh-links"))
        })
        .count();
    assert_eq!(arrows, links);
    let disabled = doc
        .descendants()
        .filter(|n| n.attribute("marker-end") == Some("url(#arrow-off)"))
        .filter(|n| {
            n.ancestors()
                .any(|a| a.attribute("id") == Some("off-mesh-links"))
        })
        .count();
    assert_eq!(disabled, 1);
    assert!(text.contains("world units"), "a scale bar");
    assert!(
        text.contains("area 7 (1)"),
        "the legend counts the edited area"
    );
    // --layer and --region select, and the same input gives the same bytes.
    let one = draw(&t, "l1.svg", &[snap.as_os_str(), os("--layer"), os("1")]);
    assert!(texts(&parse(&one)).contains("layer 1 · 6 tiles"));
    assert!(!one.contains("layer 0 ·"));
    let region = draw(
        &t,
        "r.svg",
        &[snap.as_os_str(), os("--region"), os("0,0,20,20")],
    );
    assert!(
        texts(&parse(&region)).contains("layer 0 · 4 tiles"),
        "{region}"
    );
    assert_eq!(draw(&t, "again.svg", &[snap.as_os_str()]), svg);
    example("suite-world.svg", &svg);
}

/// The demo mesh `nav_test.obj` at the demo settings, and a path across it.
pub const DEMO_PATH: [&str; 2] = ["-25,-2,-15", "20,-2,10"];

#[test]
fn demo_mesh_path_example() {
    let obj = std::fs::read(root().join("scenarios/build3d/meshes/nav_test.obj")).unwrap();
    let geometry = onav_build3d::Geometry::from_obj(&obj).unwrap();
    let settings = onav_build3d::Settings::new(onav_build3d::SettingsSpec::default()).unwrap();
    let built = onav_build3d::build(&geometry, &settings).unwrap();
    let mesh = built.to_mesh().unwrap();
    let t = Temp::new("demo");
    t.file("nav_test.onms", &onav::write_mesh(&mesh));
    let file = Path::new("nav_test.onms");
    let svg = draw(
        &t,
        "demo.svg",
        &[
            file.as_os_str(),
            os("--path"),
            os(DEMO_PATH[0]),
            os(DEMO_PATH[1]),
        ],
    );
    let doc = parse(&svg);
    let text = texts(&doc);
    assert!(text.contains("path: complete"), "{text}");
    assert!(count(&doc, "polyline") > 0);
    example("demo-path.svg", &svg);
}

/// A link as `get_poly` reports it (`spec/conformance.md` §1.3), written here from the spec.
fn link_value(l: &onav::Link) -> Value {
    let target = format!("0x{:016x}", l.target.raw());
    let side = |s: onav::Side| match s {
        onav::Side::PosX => "+x",
        onav::Side::PosZ => "+z",
        onav::Side::NegX => "-x",
        onav::Side::NegZ => "-z",
    };
    let end = |e: onav::LinkEnd| match e {
        onav::LinkEnd::Start => "start",
        onav::LinkEnd::End => "end",
    };
    match l.kind {
        LinkKind::Internal { edge } => json!({"target": target, "kind": "internal", "edge": edge}),
        LinkKind::Portal {
            edge,
            side: s,
            lo,
            hi,
        } => json!({
            "target": target, "kind": "portal", "edge": edge, "side": side(s), "lo": lo, "hi": hi,
        }),
        LinkKind::ToOffMesh { end: e } => {
            json!({"target": target, "kind": "to_off_mesh", "end": end(e)})
        }
        LinkKind::FromOffMesh { end: e } => {
            json!({"target": target, "kind": "from_off_mesh", "end": end(e)})
        }
    }
}

fn state(m: &TiledNavMesh) -> CaseState {
    let mut links = Vec::new();
    for (r, t) in m.tiles() {
        for p in 0..t.poly_count() {
            let pr = r.poly(PolyIndex(p));
            let l: Vec<Value> = m.links(pr).unwrap().iter().map(link_value).collect();
            links.push((format!("0x{:016x}", pr.raw()), Value::Array(l)));
        }
    }
    CaseState {
        snapshot: m.snapshot(SnapshotMode::Full),
        links,
        answer: None,
    }
}

#[test]
fn failing_stitching_case_example() {
    // The world of scenarios/navmesh/y_stitch-four-sides.yaml: 3 × 3 cells, two quads a side.
    let w = WorldSpec {
        columns: 3,
        rows: 3,
        quads: 2,
        ..WorldSpec::default()
    };
    let m = mesh_of(&w, 9);
    let expected = state(&m);
    // A port that forgets the +x portals of the centre tile and shortens one -z overlap.
    let mut got = expected.clone();
    let centre = m
        .tile_at(onav::TilePos {
            column: 1,
            row: 1,
            layer: 0,
        })
        .unwrap()
        .0;
    let mut dropped = 0;
    let mut shortened = 0;
    for (poly, v) in &mut got.links {
        let Value::Array(list) = v else { continue };
        let in_centre = onav::PolyRef::from_raw(u64::from_str_radix(&poly[2..], 16).unwrap())
            .unwrap()
            .tile()
            == centre;
        let before = list.len();
        list.retain(|l| !(in_centre && l["side"] == "+x"));
        dropped += before - list.len();
        for l in list.iter_mut() {
            if in_centre && l["side"] == "-z" && shortened == 0 {
                let (lo, hi) = (l["lo"].as_f64().unwrap(), l["hi"].as_f64().unwrap());
                l["hi"] = json!(lo + (hi - lo) / 2.0);
                shortened += 1;
            }
        }
    }
    assert!(dropped >= 2 && shortened == 1, "{dropped} {shortened}");
    let (e, g) = case_pictures(&expected, &got);
    let (de, dg) = (parse(&e), parse(&g));
    let missing = |d: &roxmltree::Document<'_>| {
        d.descendants()
            .filter(|n| {
                n.attribute("stroke") == Some("#c2255c")
                    && n.attribute("stroke-dasharray").is_some()
            })
            .filter(|n| {
                n.ancestors()
                    .any(|a| a.attribute("id").is_some_and(|i| i.starts_with("edges")))
            })
            .count()
    };
    let extra = |d: &roxmltree::Document<'_>| {
        d.descendants()
            .filter(|n| {
                n.attribute("stroke") == Some("#c2255c")
                    && n.attribute("stroke-dasharray").is_none()
            })
            .filter(|n| {
                n.ancestors()
                    .any(|a| a.attribute("id").is_some_and(|i| i.starts_with("edges")))
            })
            .count()
    };
    // Expected shows the links got lacks as its own (extra here) and got's shortened one as
    // missing; got shows them the other way round.
    assert_eq!(extra(&de), dropped + 1);
    assert_eq!(missing(&de), 1);
    assert_eq!(extra(&dg), 1);
    assert_eq!(missing(&dg), dropped + 1);
    assert_eq!(case_pictures(&expected, &got), (e.clone(), g.clone()));
    // The same state on both sides: nothing highlighted.
    let (same, _) = case_pictures(&expected, &expected);
    assert_eq!(extra(&parse(&same)) + missing(&parse(&same)), 0);
    example("stitch-expected.svg", &e);
    example("stitch-got.svg", &g);
}

#[test]
fn hostile_files_are_drawn_with_their_error() {
    let t = Temp::new("hostile");
    let m = edited_suite_mesh();
    let snap = m.snapshot(SnapshotMode::Full);
    // One byte flipped in the middle, a file cut short, foreign and empty files, a Referenced
    // snapshot without its library.
    let mut flip = snap.clone();
    let n = flip.len();
    flip[n / 2] ^= 0x5a;
    // slot[0].tile.magic (the slot's generation, kind and tile length come first).
    let mut magic = snap.clone();
    magic[92 + 4 + 1 + 4] = b'X';
    let files = [
        ("flip.onps", flip),
        ("magic.onps", magic),
        ("cut.onps", snap[..snap.len() * 2 / 3].to_vec()),
        ("garbage.bin", b"not a navmesh at all".to_vec()),
        ("empty.bin", Vec::new()),
        ("referenced.onps", m.snapshot(SnapshotMode::Referenced)),
    ];
    for (name, bytes) in files {
        let p = t.file(name, &bytes);
        let svg = draw(&t, &format!("{name}.svg"), &[p.as_os_str()]);
        let text = texts(&parse(&svg));
        let inspect = onav(&[os("inspect"), p.as_os_str()]);
        let verdict = String::from_utf8_lossy(&inspect.stdout).to_string();
        if verdict.contains("result: rejected") {
            assert!(text.contains("rejected ("), "{name}: {text}");
            assert!(svg.contains("#e03131"), "{name}: the error is marked");
        } else if verdict.contains("result: valid") {
            assert!(!text.contains("rejected ("), "{name}: {text}");
        } else if verdict.contains("result: incomplete") {
            assert!(text.contains("incomplete"), "{name}: {text}");
        } else {
            assert!(
                text.contains("not a tile, mesh file or snapshot"),
                "{name}: {verdict} {text}"
            );
        }
    }
    // With the library, the Referenced snapshot restores and is drawn whole.
    let lib = t.file("full.onps", &snap);
    let r = t.0.join("referenced.onps");
    let svg = draw(
        &t,
        "ref-lib.svg",
        &[r.as_os_str(), os("--library"), lib.as_os_str()],
    );
    let text = texts(&parse(&svg));
    assert!(
        text.contains("layer 1 · 6 tiles") && !text.contains("rejected ("),
        "{text}"
    );
}

#[test]
fn bad_arguments_exit_2() {
    let t = Temp::new("args");
    let f = t.file("m.onps", &edited_suite_mesh().snapshot(SnapshotMode::Full));
    let f = f.as_os_str();
    for args in [
        vec![os("draw")],
        vec![os("draw"), f, os("--path"), os("1,2"), os("3,4,5")],
        vec![os("draw"), f, os("--path"), os("1,2,3")],
        vec![os("draw"), f, os("--ray"), os("1,2,nan"), os("3,4,5")],
        vec![os("draw"), f, os("--region"), os("5,5,1,1")],
        vec![os("draw"), f, os("--layer"), os("-1")],
        vec![os("draw"), f, os("--nearest"), os("x,y,z")],
        vec![os("draw"), os("/nonexistent/file.onps")],
        vec![os("draw"), f, os("--library"), os("/nonexistent")],
    ] {
        let r = onav(&args);
        assert_eq!(r.status.code(), Some(2), "{args:?}");
        assert!(!r.stderr.is_empty(), "{args:?}: a message");
    }
}

#[test]
fn queries_and_level_of_detail() {
    let t = Temp::new("queries");
    let f = t.file("m.onps", &edited_suite_mesh().snapshot(SnapshotMode::Full));
    let svg = draw(
        &t,
        "q.svg",
        &[
            f.as_os_str(),
            os("--layer"),
            os("0"),
            os("--ray"),
            os("1,0,1"),
            os("40,0,20"),
            os("--nearest"),
            os("5,0,5"),
        ],
    );
    let text = texts(&parse(&svg));
    assert!(text.contains("ray: t = "), "{text}");
    assert!(text.contains("nearest: polygon 0x"), "{text}");
    // 10 000 tiles: by default one fill per tile, a picture of about a megabyte; outlines and
    // fills only under a higher limit; every detail inside a --region.
    let w = WorldSpec {
        columns: 100,
        rows: 100,
        quads: 1,
        ..WorldSpec::default()
    };
    let big = t.file("big.onms", &onav::write_mesh(&mesh_of(&w, 10_000)));
    let svg = draw(&t, "big.svg", &[big.as_os_str()]);
    let doc = parse(&svg);
    assert!(
        texts(&doc).contains("level of detail: 10000 tiles > 3200"),
        "{svg:.2000}"
    );
    assert_eq!(count(&doc, "polygon"), 0);
    assert!(
        count(&doc, "rect") >= 20_000,
        "a fill and an outline per tile"
    );
    assert!(svg.len() < 2 << 20, "{} bytes", svg.len());
    let svg = draw(
        &t,
        "mid.svg",
        &[big.as_os_str(), os("--detail-limit"), os("5000")],
    );
    let doc = parse(&svg);
    assert!(texts(&doc).contains("outlines and fills only"));
    assert_eq!(count(&doc, "polygon"), 10_000);
    assert!(!texts(&doc).contains("(0,0,0)"), "no labels");
    let svg = draw(
        &t,
        "region.svg",
        &[big.as_os_str(), os("--region"), os("0,0,100,100")],
    );
    let text = texts(&parse(&svg));
    assert!(
        text.contains("layer 0 · 49 tiles") && text.contains("(0,0,0)"),
        "{text:.3000}"
    );
}

#[test]
fn diff_svg_marks_the_first_difference() {
    let t = Temp::new("diff");
    let m = edited_suite_mesh();
    let mut n = m.clone();
    let (r, _) = n.tiles().nth(3).unwrap();
    n.set_poly_area(r.poly(PolyIndex(1)), 9).unwrap();
    let a = t.file("a.onps", &m.snapshot(SnapshotMode::Full));
    let b = t.file("b.onps", &n.snapshot(SnapshotMode::Full));
    let out = t.0.join("d.svg");
    let r = onav(&[
        os("diff"),
        a.as_os_str(),
        b.as_os_str(),
        os("--svg"),
        out.as_os_str(),
    ]);
    assert_eq!(r.status.code(), Some(1));
    let said = String::from_utf8_lossy(&r.stdout).to_string();
    let svg = std::fs::read_to_string(&out).unwrap();
    let doc = parse(&svg);
    let text = texts(&doc);
    let first = said.lines().next().unwrap();
    assert!(text.contains(first), "{first} in {text}");
    let marks = doc
        .descendants()
        .filter(|n| n.attribute("stroke") == Some("#f08c00"))
        .filter(|n| n.ancestors().any(|a| a.attribute("id") == Some("marks")))
        .count();
    assert!(marks >= 2, "marked on A and on B");
    // Identical files: exit 0, a picture without marks.
    let r = onav(&[
        os("diff"),
        a.as_os_str(),
        a.as_os_str(),
        os("--svg"),
        out.as_os_str(),
    ]);
    assert_eq!(r.status.code(), Some(0));
    assert!(!std::fs::read_to_string(&out)
        .unwrap()
        .contains("id=\"marks\""));
}

/// A tile cache snapshot is drawn as the mesh snapshot it holds; bytes the cache rejects
/// (here one byte cut off the end) are drawn with the cache's verdict written out.
#[test]
fn tile_cache_snapshots_draw_their_mesh() {
    let t = Temp::new("ontk");
    let full = root().join("fuzz/seeds/ontk_restore_new/busy_full.ontk");
    let svg = draw(&t, "cache.svg", &[full.as_os_str()]);
    let doc = parse(&svg);
    let text = texts(&doc);
    assert!(text.contains("ONTK tile cache snapshot"), "{text}");
    assert!(count(&doc, "polygon") > 0, "its mesh is drawn");
    assert!(!text.contains("rejected ("), "no verdict for valid bytes");
    // Its obstacle 4 stands at (500, 500), far off the mesh: the picture keeps the mesh's box and
    // says so.
    assert!(
        text.contains("obstacle 4 lies outside the picture"),
        "{text}"
    );
    assert!(
        text.contains("top view: x → (-0.") || text.contains("top view: x → (0."),
        "{text}"
    );
    let bytes = std::fs::read(&full).unwrap();
    let cut = t.0.join("cut.ontk");
    std::fs::write(&cut, &bytes[..bytes.len() - 1]).unwrap();
    let svg = draw(&t, "cut.svg", &[cut.as_os_str()]);
    let doc = parse(&svg);
    let text = texts(&doc);
    assert!(
        text.contains("rejected ("),
        "the cache's verdict is written"
    );
}

/// A busy tile cache on a 24 × 24 floor (3 × 3 tiles of 8 wu): a cylinder, a box and an
/// oriented box turned by 0.7 rad, an area-5 and an area-0 volume, one tile rebuilt and the rest
/// of the queue left.
fn busy_cache() -> onav_tilecache::TileCache {
    use onav_tilecache::{Obstacle, TileCache, Volume};
    let obj = b"v 0 0 0\nv 0 0 24\nv 24 0 0\nv 24 0 24\nf 1 2 3\nf 3 2 4\n";
    let g = onav_build3d::Geometry::from_obj(obj).unwrap();
    let s = onav_build3d::Settings::new(onav_build3d::SettingsSpec {
        cell_size: 0.5,
        cell_height: 0.2,
        tile_size: 16,
        detail_sample_dist: 0.0,
        ..onav_build3d::SettingsSpec::default()
    })
    .unwrap();
    let mut c = TileCache::new(&g, &s).unwrap();
    for o in [
        Obstacle::cylinder([12.0, -0.5, 12.0], 1.0, 2.0),
        Obstacle::aabb([3.0, -1.0, 3.0], [5.0, 1.0, 5.0]),
        Obstacle::oriented_box([18.0, 0.5, 6.0], [2.0, 1.0, 0.5], 0.7),
    ] {
        c.add_obstacle(o.unwrap()).unwrap();
    }
    let sq = |x: f64, z: f64| vec![[x, z], [x + 3.0, z], [x + 3.0, z + 2.0], [x, z + 2.0]];
    c.add_volume(Volume::new(5, -1.0, 1.0, sq(8.0, 3.0)).unwrap())
        .unwrap();
    c.add_volume(Volume::new(0, -1.0, 1.0, sq(16.0, 17.0)).unwrap())
        .unwrap();
    c.update(1).unwrap();
    c
}

/// The elements below the group whose id is `id`.
fn in_group<'a>(
    doc: &'a roxmltree::Document<'a>,
    id: &str,
    name: &str,
) -> Vec<roxmltree::Node<'a, 'a>> {
    doc.descendants()
        .filter(|n| n.attribute("id") == Some(id))
        .flat_map(|g| g.descendants())
        .filter(|n| n.tag_name().name() == name)
        .collect()
}

fn points_of(n: &roxmltree::Node<'_, '_>) -> Vec<[f64; 2]> {
    n.attribute("points")
        .unwrap()
        .split(' ')
        .map(|p| {
            let (x, y) = p.split_once(',').unwrap();
            [x.parse().unwrap(), y.parse().unwrap()]
        })
        .collect()
}

fn attr(n: &roxmltree::Node<'_, '_>, a: &str) -> f64 {
    n.attribute(a).unwrap().parse().unwrap()
}

/// A tile cache snapshot draws its mesh, its obstacles (a cylinder as a circle, boxes as
/// polygons), its volumes filled by area and its queued tiles. Checked against the cache itself
/// and by hand, not against the picture: the counts are the cache's; a circle's radius over the
/// box's width in pixels is 1 wu over 2 wu; the oriented box's tick to its own +x face points
/// along (cos 0.7, −sin 0.7) on x–z (TC3: positive turns +x towards −z), z down the page; the
/// legend counts the area-5 volume. Committed as `golden/draw/tile-cache.svg`.
#[test]
fn tile_cache_example() {
    let c = busy_cache();
    let queued = c.queue().len();
    assert!(queued > 0 && queued < 9, "{queued}");
    let t = Temp::new("ontk-example");
    t.file("busy.ontk", &c.snapshot(SnapshotMode::Full));
    let svg = draw(&t, "cache.svg", &[os("busy.ontk")]);
    let doc = parse(&svg);
    let text = texts(&doc);
    assert!(
        text.contains(&format!("3 obstacles, 2 volumes, {queued} queued")),
        "{text}"
    );
    assert!(!text.contains("rejected ("), "{text}");
    let tiles: u32 = c.mesh().tiles().map(|(_, t)| t.ground_poly_count()).sum();
    assert_eq!(in_group(&doc, "polygons0", "polygon").len(), tiles as usize);
    // Obstacles: one circle, two polygons (box, oriented box) and the oriented box's tick.
    let circles = in_group(&doc, "obstacles0", "circle");
    let boxes = in_group(&doc, "obstacles0", "polygon");
    let ticks = in_group(&doc, "obstacles0", "line");
    assert_eq!((circles.len(), boxes.len(), ticks.len()), (1, 2, 1));
    let aabb = points_of(&boxes[0]);
    let r = attr(&circles[0], "r");
    let w = aabb[1][0] - aabb[0][0];
    assert!((r / w - 0.5).abs() < 0.01, "{r} {w}");
    // z grows down the page, so −z is up: the tick's angle above the x axis is θ.
    let tick = &ticks[0];
    let (dx, dy) = (
        attr(tick, "x2") - attr(tick, "x1"),
        attr(tick, "y2") - attr(tick, "y1"),
    );
    assert!((libm::atan2(-dy, dx) - 0.7).abs() < 0.01, "{dx} {dy}");
    // The tick is half the box's length (2 wu of 4) at the box scale: 2 wu is w pixels.
    assert!(
        ((dx * dx + dy * dy).sqrt() - w).abs() < 0.05,
        "{dx} {dy} {w}"
    );
    // Volumes, filled by their area's colour, in the legend.
    let volumes = in_group(&doc, "volumes0", "polygon");
    assert_eq!(volumes.len(), 2);
    assert_eq!(
        volumes[0].attribute("fill"),
        Some("#63e6be"),
        "area 5's (the palette's sixth colour)"
    );
    assert!(text.contains("1 volume)"), "{text}");
    assert!(text.contains("area volume"), "{text}");
    // Queued tiles: one outline each, labelled in queue order.
    assert_eq!(in_group(&doc, "queue0", "rect").len(), queued);
    assert!(text.contains("queue[0] ("), "{text}");
    example("tile-cache.svg", &svg);
}

/// A tile cache snapshot the cache rejects is drawn as far as it decodes: a value it refuses is
/// marked on its obstacle; a file cut inside its volumes keeps its obstacles; a file cut inside
/// its mesh keeps every list and the tiles decoded so far.
#[test]
fn hostile_tile_cache_snapshots_are_drawn_as_far_as_they_decode() {
    let c = busy_cache();
    let snap = c.snapshot(SnapshotMode::Full);
    let t = Temp::new("ontk-hostile");
    // obstacle[1].max_y (the box's) below its min_y: 4 + 2 + 2 + 4 + 4 + 4, then the cylinder
    // (4 + 1 + 5 × 8), then the box's id, shape and min_x … max_x.
    let at = 20 + 45 + 5 + 4 * 8;
    assert_eq!(
        f64::from_le_bytes(snap[at..at + 8].try_into().unwrap()),
        1.0
    );
    let mut low = snap.clone();
    low[at..at + 8].copy_from_slice(&(-5.0f64).to_le_bytes());
    let p = t.file("low.ontk", &low);
    let svg = draw(&t, "low.svg", &[p.as_os_str()]);
    let doc = parse(&svg);
    let text = texts(&doc);
    assert!(text.contains("rejected (format)"), "{text}");
    assert!(text.contains("obstacle[1].max_y"), "{text}");
    let marked = in_group(&doc, "marks", "polygon");
    assert_eq!(marked.len(), 1, "the box is marked");
    assert_eq!(
        points_of(&marked[0]),
        points_of(&in_group(&doc, "obstacles0", "polygon")[0])
    );
    // Cut inside the second volume's corners (a volume is 25 bytes and 16 per corner): the
    // decode stops at its corner count, so the first volume and every obstacle are drawn.
    let volumes_at = 20 + 45 + 53 + 61 + 4;
    let cut = &snap[..volumes_at + 89 + 25 + 40];
    let p = t.file("cut-volume.ontk", cut);
    let svg = draw(&t, "cut-volume.svg", &[p.as_os_str()]);
    let doc = parse(&svg);
    assert_eq!(in_group(&doc, "obstacles0", "polygon").len(), 2);
    assert_eq!(in_group(&doc, "obstacles0", "circle").len(), 1);
    assert_eq!(in_group(&doc, "volumes0", "polygon").len(), 1);
    assert!(texts(&doc).contains("rejected ("));
    // Cut inside the mesh: every list, and polygons of the tiles decoded.
    let p = t.file("cut-mesh.ontk", &snap[..snap.len() - 100]);
    let svg = draw(&t, "cut-mesh.svg", &[p.as_os_str()]);
    let doc = parse(&svg);
    let text = texts(&doc);
    assert!(text.contains("rejected ("), "{text}");
    assert_eq!(in_group(&doc, "volumes0", "polygon").len(), 2);
    assert_eq!(in_group(&doc, "obstacles0", "circle").len(), 1);
    assert_eq!(in_group(&doc, "queue0", "rect").len(), c.queue().len());
    assert!(!in_group(&doc, "polygons0", "polygon").is_empty(), "{text}");
}

/// The highlighted links of a picture: (only in this one, missing here).
fn highlighted(doc: &roxmltree::Document<'_>) -> (usize, usize) {
    let mut out = (0, 0);
    for n in doc.descendants() {
        let in_edges = n
            .ancestors()
            .any(|a| a.attribute("id").is_some_and(|i| i.starts_with("edges")));
        if !in_edges || n.attribute("stroke") != Some("#c2255c") {
            continue;
        }
        if n.attribute("stroke-dasharray").is_some() {
            out.1 += 1;
        } else {
            out.0 += 1;
        }
    }
    out
}

/// `onav run --trace` without `--compare-reference`: a case failing at a `links` expectation
/// (a testee that swaps every portal's `lo` and `hi`) gets `expected.svg` beside `got.svg`. The
/// centre polygon's four expected links are drawn as only-here in the expected picture and as
/// missing in got's, and got's four swapped links the other way round; no other polygon is
/// highlighted (they are the testee's own links on both sides).
#[test]
fn a_traced_links_failure_gets_an_expected_picture() {
    let t = Temp::new("trace-links");
    let dir = t.0.join("trace");
    let testee = format!(
        "'{}' testee --mutant swap-portal-lo-hi",
        env!("CARGO_BIN_EXE_onav")
    );
    let o = onav_in(
        &root(),
        &[
            os("run"),
            os("--testee"),
            os(&testee),
            os("--filter"),
            os("navmesh/y_stitch-four-sides"),
            os("--trace"),
            dir.as_os_str(),
        ],
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("links are ["), "{out}");
    let case = dir.join("navmesh/y_stitch-four-sides");
    let svg =
        |n: &str| std::fs::read_to_string(case.join(n)).unwrap_or_else(|e| panic!("{n}: {e}"));
    let (e, g) = (svg("expected.svg"), svg("got.svg"));
    let (de, dg) = (parse(&e), parse(&g));
    assert_eq!(highlighted(&de), (4, 4), "expected.svg");
    assert_eq!(highlighted(&dg), (4, 4), "got.svg");
    assert!(texts(&de).contains("4 links reported here and not in the other picture"));
    for d in [&de, &dg] {
        assert_eq!(in_group(d, "polygons0", "polygon").len(), 9);
    }
    // The observation after the failing step is in the transcript, with that step.
    let transcript = svg("transcript.jsonl");
    let step = |op: &str| {
        transcript
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|v| v["request"]["op"] == op)
            .map(|v| v["step"].as_u64())
            .collect::<Vec<_>>()
    };
    // get_poly r11 is step 13 (the expects count as steps); then a Full snapshot and every
    // polygon's get_poly.
    assert_eq!(step("snapshot"), [Some(13)]);
    let polys = step("get_poly");
    assert!(
        polys.len() > 9 && polys.iter().all(|s| *s == Some(13)),
        "{polys:?}"
    );
}

/// A case failing at a state expectation in process (`same_state` between a mesh of nine tiles
/// and one missing a tile) gets `expected.svg` (the other mesh) and `got.svg` (this one): the
/// expected picture holds the tile got lacks, and the links into it are missing in got's.
#[test]
fn a_traced_state_failure_gets_an_expected_picture() {
    let t = Temp::new("trace-state");
    // A root of its own: this scenario and no goldens.
    std::fs::create_dir_all(t.0.join("scenarios/navmesh")).unwrap();
    std::fs::create_dir_all(t.0.join("golden")).unwrap();
    t.file("golden/manifest.tsv", b"");
    let scenario = t.text_file(
        "scenarios/navmesh/y_same-state-on-purpose.yaml",
        "schema: 1\nid: navmesh/y_same-state-on-purpose\ntitle: Fails on purpose\nclass: accept\n\
         spec: [navmesh-format.md#k5]\nfeatures: [navmesh, links]\nsteps:\n\
         \x20 - world: {name: w, columns: 3, rows: 1, quads: 1}\n\
         \x20 - tiles: {world: w, names: [a, b, c]}\n\
         \x20 - new_mesh: {name: m, world: w, slots: 3}\n\
         \x20 - add_tile: {mesh: m, tile: a}\n\
         \x20 - add_tile: {mesh: m, tile: b}\n\
         \x20 - add_tile: {mesh: m, tile: c}\n\
         \x20 - new_mesh: {name: k, world: w, slots: 3}\n\
         \x20 - add_tile: {mesh: k, tile: a}\n\
         \x20 - add_tile: {mesh: k, tile: b}\n\
         \x20 - expect: {same_state: m}\n",
    );
    let dir = t.0.join("trace");
    let o = onav_in(
        &root(),
        &[
            os("--root"),
            t.0.as_os_str(),
            os("run"),
            os("--threads"),
            os("1"),
            os(&scenario),
            os("--trace"),
            dir.as_os_str(),
        ],
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    let case = dir.join("navmesh/y_same-state-on-purpose");
    let read = |n: &str| std::fs::read_to_string(case.join(n)).unwrap();
    let (e, g) = (read("expected.svg"), read("got.svg"));
    let (de, dg) = (parse(&e), parse(&g));
    assert!(texts(&de).contains("3 tiles"), "{}", texts(&de));
    assert!(texts(&dg).contains("2 tiles"), "{}", texts(&dg));
    // b's +x portal into c (and c's back, in the expected picture only: got has no c to draw
    // it on) are only in the expected state.
    let (extra, _) = highlighted(&de);
    let (_, missing) = highlighted(&dg);
    assert!(missing >= 1 && extra > missing, "{extra} {missing}");
}

/// A case failing at a `query` expectation (a corridor through the wrong middle tile, in a root
/// of its own) gets `expected.svg` and `got.svg` with each side's corridor drawn over the
/// testee's mesh and the answers written out, the differing field marked.
#[test]
fn a_traced_query_failure_draws_both_answers() {
    let t = Temp::new("trace-query");
    std::fs::create_dir_all(t.0.join("scenarios/query")).unwrap();
    std::fs::create_dir_all(t.0.join("golden")).unwrap();
    t.file("golden/manifest.tsv", b"");
    let source =
        std::fs::read_to_string(root().join("scenarios/query/y_path-area-costs.yaml")).unwrap();
    let right = "query: {corridor: [ra, rb, rc], status: complete, cost: 72}";
    assert!(source.contains(right));
    let wrong = source.replace(
        right,
        "query: {corridor: [ra, re, rf, rc], status: complete, cost: 72}",
    );
    let scenario = t.text_file("scenarios/query/y_path-area-costs.yaml", &wrong);
    let dir = t.0.join("trace");
    let o = onav_in(
        &root(),
        &[
            os("--root"),
            t.0.as_os_str(),
            os("run"),
            os("--threads"),
            os("1"),
            os(&scenario),
            os("--trace"),
            dir.as_os_str(),
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let case = dir.join("query/y_path-area-costs");
    let read = |n: &str| std::fs::read_to_string(case.join(n)).unwrap();
    let (e, g) = (read("expected.svg"), read("got.svg"));
    let corridor = |d: &roxmltree::Document<'_>| {
        in_group(d, "query", "polygon")
            .iter()
            .filter(|n| n.attribute("fill") == Some("#fab005"))
            .count()
    };
    let (de, dg) = (parse(&e), parse(&g));
    assert_eq!((corridor(&de), corridor(&dg)), (4, 3));
    let (te, tg) = (texts(&de), texts(&dg));
    assert!(
        te.contains("expected corridor: [") && te.contains("← differs"),
        "{te}"
    );
    assert!(
        tg.contains("got corridor: [") && tg.contains("got cost: 72.0"),
        "{tg}"
    );
    assert!(!tg.contains("got cost: 72.0 ← differs"), "{tg}");
}
