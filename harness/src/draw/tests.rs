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
    let f = load::file_scene(
        &Input {
            name: "m".into(),
            bytes: onav::write_mesh(&m),
        },
        &TileLibrary::new(),
    );
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
