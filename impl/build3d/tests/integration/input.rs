//! Input geometry: arrays and OBJ (`spec/build3d.md` B3–B5).

use onav_build3d::{Geometry, GeometryError, ObjError, ObjReason};
use proptest::prelude::*;

use crate::kit::Soup;

fn obj_err(text: &str) -> ObjError {
    Geometry::from_obj(text.as_bytes()).unwrap_err()
}

#[test]
fn array_errors() {
    let v = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0];
    let ok = Geometry::from_arrays(&v, &[0, 1, 2], &[63]).unwrap();
    assert_eq!(ok.triangle_count(), 1);
    use GeometryError as E;
    assert_eq!(
        Geometry::from_arrays(&v[..8], &[0, 1, 2], &[63]),
        Err(E::VertexArrayLength { len: 8 })
    );
    assert_eq!(
        Geometry::from_arrays(&v, &[0, 1], &[]),
        Err(E::IndexArrayLength { len: 2 })
    );
    assert_eq!(
        Geometry::from_arrays(&v, &[0, 1, 2], &[]),
        Err(E::AreaCount {
            areas: 0,
            triangles: 1
        })
    );
    let mut bad = v;
    bad[4] = f64::NAN;
    assert_eq!(
        Geometry::from_arrays(&bad, &[0, 1, 2], &[63]),
        Err(E::NotFinite { vertex: 1, axis: 1 })
    );
    assert_eq!(
        Geometry::from_arrays(&v, &[0, 1, 2], &[64]),
        Err(E::AreaOutOfRange {
            triangle: 0,
            area: 64
        })
    );
    assert_eq!(
        Geometry::from_arrays(&v, &[0, 1, 2, 0, 3, 1], &[1, 1]),
        Err(E::IndexOutOfRange {
            triangle: 1,
            corner: 1,
            index: 3,
            vertices: 3
        })
    );
}

#[test]
fn obj_forms() {
    // One quad and one triangle, written four ways: plain, v/vt/vn forms, negative indices,
    // CRLF with comments, groups and objects. All give the same geometry as the arrays.
    let plain = "v 0 0 0\nv 0 0 1\nv 1 0 1\nv 1 0 0\nv 2 0 0\nf 1 2 3 4\nf 4 3 5\n";
    let forms = "# c\r\nmtllib x.mtl\r\no a\r\nv 0 0 0\r\nv 0 0 1\r\nvt 0 0\r\nvn 0 1 0\r\n\
                 v 1 0 1\r\nv 1 0 0\r\ng g1\r\nusemtl m\r\ns off\r\nf 1/1/1 2//1 3/1 4\r\n\
                 o b\r\nv 2 0 0 1.0\r\nf -2 -3 -1\r\n";
    let negative = "v 0 0 0\nv 0 0 1\nv 1 0 1\nv 1 0 0\nf -4 -3 -2 -1\nv 2 0 0\nf -2 -3 -1\n";
    let tabs = "v\t0 0 0\nv 0  0 1\nv 1 0 1 \nv 1 0 0\nv 2 0 0 0.5 0.5 0.5\nf 1 2 3 4\nf 4 3 5";
    let v = [
        0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 2.0, 0.0, 0.0,
    ];
    let arrays = Geometry::from_arrays(&v, &[0, 1, 2, 0, 2, 3, 3, 2, 4], &[63; 3]).unwrap();
    for text in [plain, forms, negative, tabs] {
        let g = Geometry::from_obj(text.as_bytes()).unwrap();
        assert_eq!(g.triangle_count(), 3);
        assert_eq!(g.digest(), arrays.digest(), "{text:?}");
    }
}

#[test]
fn obj_numbers_are_correctly_rounded() {
    let text =
        "v 0.1 9007199254740993 2.2250738585072011e-308\nv 1e-400 -0 1.7976931348623157e308\n\
                v 0 0 0\nf 1 2 3\n";
    let g = Geometry::from_obj(text.as_bytes()).unwrap();
    let (lo, hi) = g.bounds();
    assert_eq!(hi[0], 0.1);
    assert_eq!(hi[1], 9007199254740992.0);
    assert_eq!(lo[0], 0.0);
    assert_eq!(hi[2], f64::MAX);
    let arrays = Geometry::from_arrays(
        &[
            0.1,
            9007199254740992.0,
            // The decimal 2.2250738585072011e-308 rounds to the largest subnormal.
            f64::from_bits(0x000f_ffff_ffff_ffff),
            0.0,
            0.0,
            f64::MAX,
            0.0,
            0.0,
            0.0,
        ],
        &[0, 1, 2],
        &[63],
    )
    .unwrap();
    assert_eq!(g.digest(), arrays.digest());
}

#[test]
fn obj_errors_name_the_line() {
    use ObjReason as R;
    let cases: Vec<(&str, u64, ObjReason)> = vec![
        ("v 0 0\n", 1, R::MissingCoordinate),
        ("\n\nv 1 2 3 4 5 6 7 8\n", 3, R::TooManyCoordinates),
        ("v 1 x 3\n", 1, R::BadNumber { token: "x".into() }),
        ("v 1 1e999 3\n", 1, R::NotFinite),
        ("v 1 nan 3\n", 1, R::NotFinite),
        ("v 0 0 0\nv 1 0 0\nf 1 2\n", 3, R::FaceTooShort),
        ("v 0 0 0\nf 1 0 1\n", 2, R::IndexZero),
        ("v 0 0 0\nf 1 1 a\n", 2, R::BadIndex { token: "a".into() }),
        (
            "v 0 0 0\nf 1 1 1/2/3/4\n",
            2,
            R::BadIndex {
                token: "1/2/3/4".into(),
            },
        ),
        (
            "v 0 0 0\nf 1 1 1/x\n",
            2,
            R::BadIndex {
                token: "1/x".into(),
            },
        ),
        (
            "v 0 0 0\r\nf 1 1 2\r\nv 0 0 0\r\n",
            2,
            R::IndexOutOfRange {
                index: 2,
                vertices: 1,
            },
        ),
        (
            "v 0 0 0\nf 1 -2 1\n",
            2,
            R::IndexOutOfRange {
                index: -2,
                vertices: 1,
            },
        ),
        (
            "v 0 0 0\nf 1 1 99999999999999999999\n",
            2,
            R::BadIndex {
                token: "99999999999999999999".into(),
            },
        ),
    ];
    for (text, line, reason) in cases {
        assert_eq!(obj_err(text), ObjError { line, reason }, "{text:?}");
    }
    // Non-UTF-8 bytes in a skipped line are fine; in a number they are an error.
    assert!(Geometry::from_obj(b"# \xff\xfe\nv 0 0 0\n").is_ok());
    assert_eq!(Geometry::from_obj(b"v 0 \xff 0\n").unwrap_err().line, 1);
}

#[test]
fn canonical_rotation() {
    let mut s = Soup::default();
    s.floor(0.0, 0.0, 1.0, 1.0, 0.0);
    let mut r = s.clone();
    r.tris[0].0.rotate_left(1);
    r.tris[1].0.rotate_left(2);
    assert_eq!(s.geometry(), r.geometry());
    let mut w = s.clone();
    w.tris[0].0.swap(0, 1);
    assert_ne!(s.geometry().digest(), w.geometry().digest());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn obj_hostile_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        let _ = Geometry::from_obj(&bytes);
    }

    #[test]
    fn obj_hostile_lines_never_panic(
        lines in prop::collection::vec(
            prop::sample::select(vec![
                "v 0 0 0", "v 1 2", "v 1e308 1e308 -1e308", "f 1 2 3", "f -1 -2 -3", "f 1/2/3 2//4 3/4",
                "f 0 1 2", "f 1 2 99", "v nan 0 0", "f", "v", "o x", "g", "f -9223372036854775808 1 1",
                "f 9223372036854775807 1 1", "v 1 2 3 4 5 6 7", "\r", "f 1 1 1 1 1 1 1 1",
            ]),
            0..24,
        ),
    ) {
        let text = lines.join("\n");
        let _ = Geometry::from_obj(text.as_bytes());
    }
}
