//! Settings, their encoding and the digest (`spec/build3d.md` B6, B8, B9, B11).

use onav::{MeshParams, NavMeshSnapshot, RestoreError, SnapshotMode, TileLibrary, TiledNavMesh};
use onav_build3d::{build, Geometry, Settings, SettingsSpec, VolumeSpec, PIPELINE_VERSION};
use sha2::{Digest, Sha256};

use crate::kit::{small_settings, Soup};

fn world() -> Soup {
    let mut s = Soup::default();
    s.floor(0.0, 0.0, 12.0, 12.0, 0.0);
    s.cuboid([3.0, 0.0, 3.0], [5.0, 2.0, 5.0]);
    s
}

fn volume() -> VolumeSpec {
    VolumeSpec {
        area: 7,
        min_y: -1.0,
        max_y: 1.0,
        polygon: vec![[6.0, 6.0], [9.0, 6.0], [9.0, 9.0]],
    }
}

/// Every field of the settings, each changed once from the base to another valid value.
fn variants() -> Vec<(&'static str, SettingsSpec)> {
    let b = small_settings();
    let with = |f: &dyn Fn(&mut SettingsSpec)| {
        let mut s = b.clone();
        f(&mut s);
        s
    };
    vec![
        ("base", b.clone()),
        ("cell_size", with(&|s| s.cell_size = 0.4)),
        ("cell_height", with(&|s| s.cell_height = 0.25)),
        ("agent_height", with(&|s| s.agent_height = 1.9)),
        ("agent_radius", with(&|s| s.agent_radius = 0.45)),
        ("agent_climb", with(&|s| s.agent_climb = 0.5)),
        ("max_slope_deg", with(&|s| s.max_slope_deg = 40.0)),
        ("region_min_area", with(&|s| s.region_min_area += 1)),
        ("region_merge_area", with(&|s| s.region_merge_area += 1)),
        ("max_edge_len", with(&|s| s.max_edge_len = 6.0)),
        ("max_edge_error", with(&|s| s.max_edge_error = 1.1)),
        ("verts_per_poly", with(&|s| s.verts_per_poly = 5)),
        ("detail_sample_dist", with(&|s| s.detail_sample_dist = 0.0)),
        (
            "detail_sample_max_error",
            with(&|s| s.detail_sample_max_error = 0.3),
        ),
        ("tile_size", with(&|s| s.tile_size = 20)),
        ("volumes", with(&|s| s.volumes = vec![volume()])),
        (
            "volume.area",
            with(&|s| {
                s.volumes = vec![VolumeSpec {
                    area: 8,
                    ..volume()
                }]
            }),
        ),
        (
            "volume.min_y",
            with(&|s| {
                s.volumes = vec![VolumeSpec {
                    min_y: -2.0,
                    ..volume()
                }]
            }),
        ),
        (
            "volume.max_y",
            with(&|s| {
                s.volumes = vec![VolumeSpec {
                    max_y: 2.0,
                    ..volume()
                }]
            }),
        ),
        (
            "volume.polygon",
            with(&|s| {
                let mut v = volume();
                v.polygon[2] = [9.0, 9.5];
                s.volumes = vec![v];
            }),
        ),
    ]
}

#[test]
fn every_field_changes_the_digest() {
    let g = world().geometry();
    let digests: Vec<(&str, [u8; 32])> = variants()
        .into_iter()
        .map(|(n, s)| (n, Settings::new(s).unwrap().digest(&g.digest())))
        .collect();
    for (i, (a, da)) in digests.iter().enumerate() {
        for (b, db) in &digests[i + 1..] {
            assert_ne!(da, db, "{a} and {b} give the same digest");
        }
    }
}

#[test]
fn digest_is_the_specified_hash() {
    let g = world().geometry();
    let s = Settings::new(small_settings()).unwrap();
    let mut h = Sha256::new();
    h.update(s.to_bytes());
    h.update(PIPELINE_VERSION.to_le_bytes());
    h.update(g.digest());
    let expected: [u8; 32] = h.finalize().into();
    assert_eq!(s.digest(&g.digest()), expected);
    let b = build(&g, &s).unwrap();
    assert_eq!(b.params.digest().0, expected);
    assert!(b.tiles.iter().all(|t| t.digest().0 == expected));
}

/// B6 computed here from its definition, independently of the crate.
fn geometry_digest_by_hand(tris: &[([[f64; 3]; 3], u8)]) -> [u8; 32] {
    let key = |v: &[f64; 3]| v.map(|c| if c == 0.0 { 0.0 } else { c });
    let lt = |a: &[[f64; 3]; 3], b: &[[f64; 3]; 3]| {
        let fa: Vec<f64> = a.iter().flatten().copied().collect();
        let fb: Vec<f64> = b.iter().flatten().copied().collect();
        fa.partial_cmp(&fb)
    };
    let mut canon: Vec<([[f64; 3]; 3], u8)> = tris
        .iter()
        .map(|(t, a)| {
            let t = t.map(|v| key(&v));
            let rots = [t, [t[1], t[2], t[0]], [t[2], t[0], t[1]]];
            let mut best = rots[0];
            for r in &rots[1..] {
                if lt(r, &best) == Some(std::cmp::Ordering::Less) {
                    best = *r;
                }
            }
            (best, *a)
        })
        .collect();
    canon.sort_by(|a, b| lt(&a.0, &b.0).unwrap().then(a.1.cmp(&b.1)));
    let mut h = Sha256::new();
    h.update(b"onav-build3d/geometry");
    h.update((canon.len() as u64).to_le_bytes());
    for (t, a) in &canon {
        for c in t.iter().flatten() {
            h.update(c.to_le_bytes());
        }
        h.update([*a]);
    }
    h.finalize().into()
}

#[test]
fn geometry_digest_is_order_free() {
    let s = world();
    let mut r = s.clone();
    r.tris.reverse();
    for (t, _) in &mut r.tris {
        t.rotate_left(1);
    }
    assert_eq!(s.geometry().digest(), r.geometry().digest());
    assert_eq!(s.geometry().digest(), geometry_digest_by_hand(&s.tris));
    let split = Geometry::from_obj(s.obj(3, true).as_bytes()).unwrap();
    assert_eq!(split.digest(), s.geometry().digest());
}

#[test]
fn geometry_change_changes_the_digest() {
    let s = world();
    let base = s.geometry().digest();
    let mut moved = s.clone();
    moved.tris[3].0[1][0] = f64::from_bits(moved.tris[3].0[1][0].to_bits() + 1);
    let mut area = s.clone();
    area.tris[0].1 = 5;
    let mut twice = s.clone();
    twice.tris.push(s.tris[0]);
    let mut flipped = s.clone();
    flipped.tris[0].0.swap(1, 2);
    for (what, g) in [
        ("moved", moved),
        ("area", area),
        ("duplicate", twice),
        ("flipped", flipped),
    ] {
        assert_ne!(g.geometry().digest(), base, "{what}");
    }
    // −0.0 and +0.0 are the same coordinate (B5).
    let mut neg = s.clone();
    for (t, _) in &mut neg.tris {
        for c in t.iter_mut().flatten() {
            if *c == 0.0 {
                *c = -0.0;
            }
        }
    }
    assert_eq!(neg.geometry().digest(), base);
}

#[test]
fn restore_into_another_world_is_a_fingerprint_error() {
    let settings = Settings::new(small_settings()).unwrap();
    let a = build(&world().geometry(), &settings).unwrap();
    let mut other = world();
    other.cuboid([8.0, 0.0, 8.0], [9.0, 1.0, 9.0]);
    let b = build(&other.geometry(), &settings).unwrap();
    assert_ne!(a.params.digest(), b.params.digest());
    let mut ma = TiledNavMesh::new(a.params);
    for t in &a.tiles {
        ma.add_tile(t.clone()).unwrap();
    }
    let params_b = MeshParams::new(
        b.params.grid().origin(),
        b.params.grid().tile_size(),
        a.params.slot_count(),
        b.params.digest(),
    )
    .unwrap();
    let mut mb = TiledNavMesh::new(params_b);
    for mode in [SnapshotMode::Full, SnapshotMode::Referenced] {
        let snap = ma.snapshot(mode);
        let lib = TileLibrary::from_tiles(&a.tiles);
        let err = mb.restore(&snap, &lib).unwrap_err();
        assert!(
            matches!(err, RestoreError::Fingerprint(_)),
            "{mode:?}: {err:?}"
        );
        assert!(NavMeshSnapshot::restore(&snap, &lib).is_ok());
    }
    // A tile of world A does not go into a mesh of world B either.
    let err = mb.add_tile(a.tiles[0].clone()).unwrap_err();
    assert!(format!("{err:?}").contains("ingerprint"), "{err:?}");
}

#[test]
fn encoding_round_trip() {
    for (name, spec) in variants() {
        let s = Settings::new(spec).unwrap();
        let back = Settings::from_bytes(s.to_bytes()).unwrap();
        assert_eq!(back, s, "{name}");
    }
    // The layout of B8 at its fixed offsets.
    let s = Settings::new(SettingsSpec::default()).unwrap();
    let b = s.to_bytes();
    assert_eq!(&b[0..4], b"ONB3");
    assert_eq!(u16::from_le_bytes([b[4], b[5]]), 1);
    let f = |o: usize| f64::from_le_bytes(b[o..o + 8].try_into().unwrap());
    let u = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
    assert_eq!(
        (f(8), f(16), f(24), f(32), f(40), f(48)),
        (0.3, 0.2, 2.0, 0.6, 0.9, 45.0)
    );
    assert_eq!((u(56), u(60), f(64), f(72), u(80)), (64, 400, 12.0, 1.3, 6));
    assert_eq!((f(84), f(92), u(100), u(104)), (1.8, 0.2, 48, 0));
    assert_eq!(b.len(), 108);
    // A clockwise volume is normalised by the constructor, not by the reader.
    let mut cw = volume();
    cw.polygon.reverse();
    let spec = SettingsSpec {
        volumes: vec![cw.clone()],
        ..SettingsSpec::default()
    };
    let s = Settings::new(spec).unwrap();
    assert_eq!(s.spec().volumes[0], volume());
    let mut raw = s.to_bytes().to_vec();
    let corners = 108 + 24;
    for (j, p) in cw.polygon.iter().enumerate() {
        raw[corners + 16 * j..corners + 16 * j + 8].copy_from_slice(&p[0].to_le_bytes());
        raw[corners + 16 * j + 8..corners + 16 * j + 16].copy_from_slice(&p[1].to_le_bytes());
    }
    let e = Settings::from_bytes(&raw).unwrap_err();
    assert!(e.field.starts_with("volume[0].polygon["), "{e:?}");
}

#[test]
fn every_field_rule_rejects() {
    let b = SettingsSpec::default();
    let with = |f: &dyn Fn(&mut SettingsSpec)| {
        let mut s = b.clone();
        f(&mut s);
        s
    };
    let cases: Vec<(&str, SettingsSpec)> = vec![
        ("cell_size", with(&|s| s.cell_size = 0.0)),
        ("cell_size", with(&|s| s.cell_size = f64::NAN)),
        ("cell_height", with(&|s| s.cell_height = -0.2)),
        ("agent_height", with(&|s| s.agent_height = 0.0)),
        ("agent_height", with(&|s| s.agent_height = 1e30)),
        ("agent_radius", with(&|s| s.agent_radius = -1.0)),
        (
            "agent_radius",
            with(&|s| {
                s.cell_size = 0.25;
                s.agent_radius = 0.25 * 255.0 + 1e-9;
            }),
        ),
        ("agent_climb", with(&|s| s.agent_climb = f64::INFINITY)),
        ("agent_climb", with(&|s| s.agent_climb = 1e30)),
        ("max_slope_deg", with(&|s| s.max_slope_deg = 90.5)),
        ("max_slope_deg", with(&|s| s.max_slope_deg = -1.0)),
        ("max_edge_len", with(&|s| s.max_edge_len = -1.0)),
        ("max_edge_len", with(&|s| s.max_edge_len = 1e300)),
        ("max_edge_error", with(&|s| s.max_edge_error = -0.1)),
        ("verts_per_poly", with(&|s| s.verts_per_poly = 2)),
        ("verts_per_poly", with(&|s| s.verts_per_poly = 7)),
        ("detail_sample_dist", with(&|s| s.detail_sample_dist = 0.2)),
        (
            "detail_sample_max_error",
            with(&|s| s.detail_sample_max_error = -1.0),
        ),
        ("tile_size", with(&|s| s.tile_size = 3)),
        ("tile_size", with(&|s| s.tile_size = 1025)),
        (
            "volume[0].area",
            with(&|s| {
                s.volumes = vec![VolumeSpec {
                    area: 64,
                    ..volume()
                }]
            }),
        ),
        (
            "volume[0].min_y",
            with(&|s| {
                s.volumes = vec![VolumeSpec {
                    min_y: f64::NAN,
                    ..volume()
                }]
            }),
        ),
        (
            "volume[0].max_y",
            with(&|s| {
                s.volumes = vec![VolumeSpec {
                    max_y: -2.0,
                    ..volume()
                }]
            }),
        ),
        (
            // Alone, two corners are fewer bytes than a volume needs: the count is the error.
            "volume_count",
            with(&|s| {
                s.volumes = vec![VolumeSpec {
                    polygon: vec![[0.0, 0.0], [1.0, 0.0]],
                    ..volume()
                }]
            }),
        ),
        (
            "volume[0].vertex_count",
            with(&|s| {
                let decagon = (0..10)
                    .map(|k| {
                        let a = f64::from(k) * 0.6;
                        [libm::cos(a) * 3.0 + 5.0, libm::sin(a) * 3.0 + 5.0]
                    })
                    .collect();
                s.volumes = vec![
                    VolumeSpec {
                        polygon: vec![[0.0, 0.0], [1.0, 0.0]],
                        ..volume()
                    },
                    VolumeSpec {
                        polygon: decagon,
                        ..volume()
                    },
                ]
            }),
        ),
        (
            "volume[0].polygon[1]",
            with(&|s| {
                s.volumes = vec![VolumeSpec {
                    polygon: vec![[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]],
                    ..volume()
                }]
            }),
        ),
        (
            "volume[0].polygon[1].x",
            with(&|s| {
                s.volumes = vec![VolumeSpec {
                    polygon: vec![[0.0, 0.0], [f64::INFINITY, 0.0], [2.0, 1.0]],
                    ..volume()
                }]
            }),
        ),
    ];
    for (field, spec) in cases {
        let e = Settings::new(spec).unwrap_err();
        assert_eq!(e.field, field, "{e:?}");
    }
    // The boundary values pass.
    for spec in [
        with(&|s| s.max_slope_deg = 90.0),
        with(&|s| s.max_slope_deg = 0.0),
        with(&|s| s.detail_sample_dist = 0.3),
        with(&|s| s.tile_size = 4),
        with(&|s| s.tile_size = 1024),
        with(&|s| {
            s.cell_size = 0.25;
            s.agent_radius = 0.25 * 255.0;
        }),
        with(&|s| s.verts_per_poly = 3),
    ] {
        Settings::new(spec).unwrap();
    }
}

#[test]
fn truncation_and_trailing_bytes() {
    let spec = SettingsSpec {
        volumes: vec![volume()],
        ..SettingsSpec::default()
    };
    let s = Settings::new(spec).unwrap();
    let b = s.to_bytes();
    for n in 0..b.len() {
        let e = Settings::from_bytes(&b[..n]).unwrap_err();
        assert!(e.offset <= n as u64, "{n}: {e:?}");
    }
    let mut long = b.to_vec();
    long.push(0);
    assert_eq!(Settings::from_bytes(&long).unwrap_err().field, "end");
    let mut magic = b.to_vec();
    magic[0] = b'X';
    assert_eq!(Settings::from_bytes(&magic).unwrap_err().field, "magic");
    let mut flags = b.to_vec();
    flags[6] = 1;
    assert_eq!(Settings::from_bytes(&flags).unwrap_err().field, "flags");
    let mut count = b.to_vec();
    count[104..108].copy_from_slice(&2u32.to_le_bytes());
    assert_eq!(
        Settings::from_bytes(&count).unwrap_err().field,
        "volume_count"
    );
}

#[test]
fn plain_settings_deserialize_with_defaults() {
    let spec: SettingsSpec = serde_json::from_str(
        r#"{"cell_size": 0.25, "tile_size": 32,
            "volumes": [{"area": 3, "min_y": 0, "max_y": 2, "polygon": [[0, 0], [0, 4], [4, 0]]}]}"#,
    )
    .unwrap();
    assert_eq!(spec.cell_size, 0.25);
    assert_eq!(spec.agent_height, SettingsSpec::default().agent_height);
    // Clockwise as written; validation stores it counter-clockwise.
    let s = Settings::new(spec).unwrap();
    assert_eq!(
        s.spec().volumes[0].polygon,
        vec![[4.0, 0.0], [0.0, 4.0], [0.0, 0.0]]
    );
    assert!(serde_json::from_str::<SettingsSpec>(r#"{"cell_sise": 0.3}"#).is_err());
    // The plain values of validated settings go back through the constructor unchanged.
    let again = Settings::new(s.spec().clone()).unwrap();
    assert_eq!(again.to_bytes(), s.to_bytes());
}
