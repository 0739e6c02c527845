//! The tile-cache seam (`spec/build3d.md` B2, B25, B26): `finish(prepare(cell), [])` is the build,
//! and a mark passed to `finish` acts exactly like the same volume in the settings.

use onav::{NavTile, RawTile, SettingsDigest};
use onav_build3d::{
    build, build_obj, AreaMark, BuildObjError, Plan, Settings, SettingsSpec, VolumeSpec,
};

use crate::kit::{ids, small_settings, Soup};

fn world() -> Soup {
    let mut s = Soup::default();
    s.floor(0.0, 0.0, 24.0, 24.0, 0.0);
    s.cuboid([4.0, 0.0, 4.0], [7.0, 2.5, 9.0]);
    s.ramp(10.0, 12.0, 18.0, 15.0, 0.0, 2.0);
    s
}

fn all_tiles(plan: &Plan, marks: &[AreaMark]) -> Vec<NavTile> {
    let mut out = Vec::new();
    for (i, cell) in plan.tile_cells().enumerate() {
        assert_eq!(plan.cell_index(cell), Some(i));
        if let Some(im) = plan.prepare(i).unwrap() {
            assert_eq!(im.cell(), cell);
            out.extend(plan.finish(&im, marks).unwrap());
        }
    }
    out
}

#[test]
fn finish_without_marks_is_the_build() {
    let g = world().geometry();
    for spec in [small_settings(), SettingsSpec::default()] {
        let s = Settings::new(spec).unwrap();
        let plan = Plan::new(&g, &s).unwrap();
        assert_eq!(
            ids(&all_tiles(&plan, &[])),
            ids(&build(&g, &s).unwrap().tiles)
        );
        assert_eq!(plan.digest(), build(&g, &s).unwrap().params.digest().0);
    }
}

/// The tile's contents with the digest cleared (a volume in the settings changes the digest).
fn contents(t: &NavTile) -> RawTile {
    let mut r = RawTile::from_tile(t);
    r.digest = SettingsDigest([0; 32]);
    r
}

#[test]
fn a_mark_equals_a_settings_volume() {
    let g = world().geometry();
    for area in [0u8, 5] {
        let v = VolumeSpec {
            area,
            min_y: -1.0,
            max_y: 1.0,
            // Clockwise on purpose: both routes normalise it.
            polygon: vec![[12.0, 3.0], [12.0, 8.0], [17.0, 8.0], [19.0, 3.0]],
        };
        let baked = SettingsSpec {
            volumes: vec![v.clone()],
            ..small_settings()
        };
        let baked = build(&g, &Settings::new(baked).unwrap()).unwrap();
        let plan = Plan::new(&g, &Settings::new(small_settings()).unwrap()).unwrap();
        let mark = AreaMark::new(v.area, v.min_y, v.max_y, v.polygon.clone()).unwrap();
        let marked = all_tiles(&plan, &[mark]);
        let a: Vec<RawTile> = baked.tiles.iter().map(contents).collect();
        let b: Vec<RawTile> = marked.iter().map(contents).collect();
        assert_eq!(a, b, "area {area}");
        let plain = build(&g, &Settings::new(small_settings()).unwrap()).unwrap();
        let c: Vec<RawTile> = plain.tiles.iter().map(contents).collect();
        assert_ne!(a, c, "the volume changes something (area {area})");
        if area == 5 {
            assert!(marked.iter().any(|t| t.areas().contains(&5)));
        } else {
            assert!(baked.stats.walkable_area < plain.stats.walkable_area - 10.0);
        }
    }
}

#[test]
fn build_obj_takes_obj_bytes_and_the_settings_encoding() {
    let soup = world();
    let s = Settings::new(small_settings()).unwrap();
    let direct = build(&soup.geometry(), &s).unwrap();
    let via = build_obj(soup.obj(2, false).as_bytes(), s.to_bytes()).unwrap();
    assert_eq!(ids(&via.tiles), ids(&direct.tiles));
    assert!(via.params.bits_eq(&direct.params));
    assert!(matches!(
        build_obj(b"v 0 0\n", s.to_bytes()),
        Err(BuildObjError::Obj(_))
    ));
    assert!(matches!(
        build_obj(b"", &s.to_bytes()[..10]),
        Err(BuildObjError::Settings(_))
    ));
    let empty = build_obj(b"", s.to_bytes()).unwrap();
    assert!(empty.tiles.is_empty());
    assert_eq!(empty.params.slot_count(), 1);
}
