//! Unit tests of the pictures: well-formed, deterministic, and showing what they claim.

use onav::{SnapshotMode, TileLibrary, TiledNavMesh, WorldSpec};

use super::*;

pub(crate) fn world() -> WorldSpec {
    WorldSpec {
        columns: 2,
        rows: 2,
        quads: 2,
        links_per_tile: 1,
        area_kinds: 3,
        ..WorldSpec::default()
    }
}

pub(crate) fn mesh() -> TiledNavMesh {
    crate::files::mesh_of(&world(), 5)
}

fn one(name: &str, bytes: Vec<u8>) -> Vec<Input> {
    vec![Input {
        name: name.into(),
        bytes,
    }]
}

#[test]
fn a_snapshot_draws_every_tile_with_links() {
    let m = mesh();
    let svg = draw(
        &one("m.onps", m.snapshot(SnapshotMode::Full)),
        &TileLibrary::new(),
        &View::default(),
        &Queries::default(),
    );
    assert!(svg.starts_with("<?xml"), "{svg}");
    assert!(svg.ends_with("</svg>\n"));
    for c in ["(0,0,0) slot 0", "(1,0,0)", "(0,1,0)", "(1,1,0)"] {
        assert!(svg.contains(c), "{c}");
    }
    assert!(svg.contains("#1c5fd4"), "portal links are drawn");
    assert!(
        svg.contains("marker-end=\"url(#arrow-link)\""),
        "off-mesh links"
    );
}

fn polygons(svg: &str) -> usize {
    svg.lines()
        .filter(|l| l.starts_with("<polygon points="))
        .count()
}

#[test]
fn a_mesh_file_and_a_snapshot_of_one_mesh_draw_the_same_tiles() {
    let m = mesh();
    let lib = TileLibrary::new();
    let v = View::default();
    let q = Queries::default();
    let a = draw(&one("m", m.snapshot(SnapshotMode::Full)), &lib, &v, &q);
    let b = draw(&one("m", onav::write_mesh(&m)), &lib, &v, &q);
    let polys: u32 = m.tiles().map(|(_, t)| t.ground_poly_count()).sum();
    assert_eq!(polygons(&a), polys as usize);
    assert_eq!(polygons(&a), polygons(&b));
    // Same input, same bytes.
    assert_eq!(
        a,
        draw(&one("m", m.snapshot(SnapshotMode::Full)), &lib, &v, &q)
    );
    // Tiles given as separate files are stitched together like the mesh.
    let tiles: Vec<Input> = m
        .tiles()
        .map(|(_, t)| Input {
            name: format!("{:?}", t.pos()),
            bytes: t.to_bytes(),
        })
        .collect();
    let c = draw(&tiles, &lib, &v, &q);
    let portals = |s: &str| s.matches("stroke=\"#1c5fd4\"").count();
    assert_eq!(portals(&c), portals(&a));
    assert!(portals(&a) > 0);
}

#[test]
fn portal_links_are_drawn_over_their_overlap() {
    let (a, b) = scene::clip_portal([0.0, 0.0], [0.0, 10.0], onav::Side::NegX, 2.0, 4.0);
    assert_eq!((a, b), ([0.0, 2.0], [0.0, 4.0]));
    let (a, b) = scene::clip_portal([10.0, 5.0], [0.0, 5.0], onav::Side::PosZ, 2.5, 20.0);
    // The clipped part keeps the edge's direction; the overlap past the edge is cut.
    assert_eq!((a, b), ([10.0, 5.0], [2.5, 5.0]));
}

#[test]
fn field_paths_name_the_part_they_point_at() {
    let m = mesh();
    let s = load::file_scene(
        &Input {
            name: "m".into(),
            bytes: m.snapshot(SnapshotMode::Full),
        },
        &TileLibrary::new(),
    );
    use scene::{resolve, Target};
    assert_eq!(
        resolve(&s, "slot[1].tile.polygon[2].vertex[0]"),
        (Some(1), Target::Poly(2))
    );
    assert_eq!(
        resolve(&s, "slot[0].tile.vertex[3].x"),
        (Some(0), Target::Vertex(3))
    );
    assert_eq!(
        resolve(&s, "slot[2].tile.link[0].radius"),
        (Some(2), Target::Link(0))
    );
    let ng = s.tiles[0].polys.len();
    assert_eq!(
        resolve(&s, &format!("slot[0].tile.area[{ng}]")),
        (Some(0), Target::Link(0))
    );
    assert_eq!(resolve(&s, "slot[3].generation"), (Some(3), Target::Tile));
    assert_eq!(resolve(&s, "params.tile_size"), (None, Target::Tile));
    // A mesh file's tiles are named by their position in the file.
    let bytes = onav::write_mesh(&m);
    let mut f = load::file_scene(
        &Input {
            name: "m".into(),
            bytes: bytes.clone(),
        },
        &TileLibrary::new(),
    );
    load::mesh_file_prefixes(&mut f, &bytes);
    let (t, target) = resolve(&f, "tile[1].polygon[0].neighbour[1]");
    assert_eq!(target, Target::Poly(0));
    assert_eq!(f.prefixes[t.unwrap()], "tile[1].");
}

#[test]
fn a_path_draws_its_corridor_and_straight_path() {
    let m = mesh();
    let q = Queries {
        path: Some(([1.0, 0.0, 1.0], [30.0, 0.0, 30.0])),
        ray: None,
        nearest: None,
        extents: DEFAULT_EXTENTS,
    };
    let o = query::overlay(&m, &q);
    let path = onav::NavMeshQuery::new(&m, query::MAX_NODES).unwrap();
    let f = onav::QueryFilter::new();
    let s = path
        .find_nearest_poly([1.0, 0.0, 1.0], DEFAULT_EXTENTS, &f)
        .unwrap()
        .unwrap();
    let e = path
        .find_nearest_poly([30.0, 0.0, 30.0], DEFAULT_EXTENTS, &f)
        .unwrap()
        .unwrap();
    let r = path
        .find_path(s.poly, e.poly, s.point, e.point, &f)
        .unwrap();
    assert_eq!(r.status, onav::PathStatus::Complete);
    let corridor = o
        .polys
        .iter()
        .filter(|p| p.2 == query::Fill::Corridor)
        .count();
    assert_eq!(corridor, r.corridor.len());
    assert!(o.notes[0].starts_with("path: complete"), "{:?}", o.notes);
    assert!(o.dots.iter().any(|d| d.1 == query::Dot::Start));
    assert!(o.dots.iter().any(|d| d.1 == query::Dot::End));
}

fn corpus(dir: &str) -> Vec<Vec<u8>> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz")
        .join(dir);
    let Ok(rd) = std::fs::read_dir(&root) else {
        return Vec::new();
    };
    let mut paths: Vec<_> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    paths.iter().map(|p| std::fs::read(p).unwrap()).collect()
}

/// The committed seeds and regressions of the `draw_hostile` fuzz target replay through the
/// entry point the fuzzer calls, and so do 25 corruptions of each seed: every one draws a
/// picture (onav's verdict on it is in the picture), and never panics.
#[test]
fn draw_hostile_seeds_and_corruptions_replay() {
    let seeds = corpus("seeds/draw_hostile");
    assert!(seeds.len() >= 10, "the seed corpus is committed");
    for r in corpus("regressions/draw_hostile") {
        fuzz_draw(&r);
    }
    let mut h = 11u64;
    let mut rejected = 0;
    for s in &seeds {
        assert!(fuzz_draw(s).ends_with("</svg>\n"));
        for _ in 0..25 {
            h = onav::generator::mix(h);
            let mut g = s.clone();
            if g.is_empty() {
                break;
            }
            crate::files::mutate(&mut g, h);
            let svg = fuzz_draw(&g);
            assert!(svg.ends_with("</svg>\n"));
            rejected += usize::from(svg.contains("rejected ("));
        }
    }
    assert!(
        rejected > 150,
        "most corruptions are rejected and drawn as such: {rejected}"
    );
}

#[test]
fn rejected_bytes_are_drawn_as_far_as_they_decode() {
    let snap = mesh().snapshot(SnapshotMode::Full);
    let d = crate::files::decode::decode(&snap);
    // A vertex index out of range in polygon 1 of the tile in slot 2: the other tiles and the
    // other polygons are drawn, the polygon is marked and the error is written.
    let f = d.field("slot[2].tile.polygon[1].vertex[0]").unwrap();
    let mut bad = snap.clone();
    bad[f.offset as usize..f.offset as usize + 4].copy_from_slice(&1000u32.to_le_bytes());
    let s = load::file_scene(
        &Input {
            name: "bad".into(),
            bytes: bad.clone(),
        },
        &TileLibrary::new(),
    );
    assert_eq!(s.tiles.len(), 4);
    assert!(
        s.problems[0].starts_with("rejected (format)"),
        "{:?}",
        s.problems
    );
    assert_eq!(s.marks.len(), 1);
    assert_eq!(s.marks[0].label, "slot[2].tile.polygon[1].vertex[0]");
    assert_eq!(
        (s.marks[0].tile, s.marks[0].target),
        (Some(2), scene::Target::Poly(1))
    );
    assert!(
        s.tiles[2].polys[1].is_none(),
        "the polygon has no drawable corners"
    );
    assert!(s.tiles[2].polys[0].is_some());
    let svg = draw(
        &one("bad", bad),
        &TileLibrary::new(),
        &View::default(),
        &Queries::default(),
    );
    assert!(svg.contains("rejected (format)"));
    assert!(svg.contains(">slot[2].tile.polygon[1].vertex[0]</text>"));
    // Cut short: the tiles before the cut are drawn, and where the decode stopped is written.
    let cut = &snap[..snap.len() / 2];
    let s = load::file_scene(
        &Input {
            name: "cut".into(),
            bytes: cut.to_vec(),
        },
        &TileLibrary::new(),
    );
    assert!(
        !s.tiles.is_empty() && s.tiles.len() < 4,
        "{}",
        s.tiles.len()
    );
    assert!(s
        .problems
        .iter()
        .any(|p| p.starts_with("decode stopped at byte")));
}
