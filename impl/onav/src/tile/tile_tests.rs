//! Tests of the `ONTL` tile reader (`read.rs`), the unchecked writer (`raw.rs`) and `NavTile`
//! ownership. Every rejection test asserts the exact `FormatError`: offsets are worked out by hand
//! from the byte layout of the fixture below, not taken from the reader.
#![allow(missing_docs)]

use proptest::prelude::*;
use sha2::{Digest, Sha256};

use super::{AgentSizes, DetailMesh, Edge, LinkDirection, NavTile, Polygon, RawTile};
use crate::error::{FormatError, FormatReason as R};
use crate::geom::{orient, Vec3};
use crate::ids::{LinkIndex, PolyIndex, SettingsDigest, Side, TilePos};
use crate::limits::{MAX_DETAIL_TRIS, MAX_DETAIL_VERTS, MAX_POLYS, MAX_VERTS};
use crate::params::RawGrid;

// ---------------------------------------------------------------------------------------------
// The fixture: cell (0, 0) of a grid with origin 0 and tile size 8, so the cell is [0, 8] × [0, 8]
// on x–z. Nine vertices on a 3 × 3 lattice (x = 4·(v mod 3), z = 4·(v div 3)) make four quads:
//
//   z=8  6 ---- 7 ---- 8
//        |  P2  |  P3  |
//   z=4  3 ---- 4 ---- 5
//        |  P0  |  P1  |
//   z=0  0 ---- 1 ---- 2
//       x=0    x=4    x=8
//
// Internal edges are adjacent both ways; every border edge is a portal on its side. P1 has one
// extra detail vertex at its centre and four detail triangles; the others use fan detail. One
// bidirectional off-mesh link (polygon 4) goes from (2, 0, 2) to (10, 1, 2) in the +x cell.
//
// Byte layout (hand computed):
//   header              0 .. 132
//   9 vertices × 24   132 .. 348
//   4 polygons × 52   348 .. 556
//   1 link × 64       556 .. 620
//   4 details × 16    620 .. 684
//   1 detail vert ×24 684 .. 708
//   10 detail tris ×4 708 .. 748
//   5 areas           748 .. 753
//   5 flags × 2       753 .. 763
// ---------------------------------------------------------------------------------------------

const VERTS_AT: u64 = 132;
const POLYS_AT: u64 = 348;
const LINKS_AT: u64 = 556;
const DETAILS_AT: u64 = 620;
const DVERTS_AT: u64 = 684;
const DTRIS_AT: u64 = 708;
const AREAS_AT: u64 = 748;
const FLAGS_AT: u64 = 753;
const END: u64 = 763;

/// Offset of `polygon[i]` of the fixture.
fn poly_at(i: u64) -> u64 {
    POLYS_AT + 52 * i
}

/// Offset of `polygon[i].vertex[k]`.
fn pv_at(i: u64, k: u64) -> u64 {
    poly_at(i) + 4 + 4 * k
}

/// Offset of `polygon[i].neighbour[k]`.
fn pn_at(i: u64, k: u64) -> u64 {
    poly_at(i) + 28 + 4 * k
}

fn internal(i: u32) -> Edge {
    Edge::Internal(PolyIndex(i))
}

fn quad(vs: [u32; 4], edges: [Edge; 4]) -> Polygon {
    let mut p = Polygon {
        vertex_count: 4,
        ..Polygon::default()
    };
    p.vertices[..4].copy_from_slice(&vs);
    p.edges[..4].copy_from_slice(&edges);
    p
}

fn fixture() -> RawTile {
    use Side::{NegX, NegZ, PosX, PosZ};
    let port = Edge::Portal;
    let vertices = (0..9u32)
        .map(|v| {
            [
                4.0 * f64::from(v % 3),
                0.25 * f64::from(v),
                4.0 * f64::from(v / 3),
            ]
        })
        .collect();
    let p0 = quad(
        [0, 1, 4, 3],
        [port(NegZ), internal(1), internal(2), port(NegX)],
    );
    let p1 = quad(
        [1, 2, 5, 4],
        [port(NegZ), port(PosX), internal(3), internal(0)],
    );
    let p2 = quad(
        [3, 4, 7, 6],
        [internal(0), internal(3), port(PosZ), port(NegX)],
    );
    let p3 = quad(
        [4, 5, 8, 7],
        [internal(1), port(PosX), port(PosZ), internal(2)],
    );
    let mut t = RawTile {
        grid: RawGrid {
            origin: [0.0; 3],
            tile_size: 8.0,
        },
        digest: SettingsDigest::of_bytes(b"onav tile tests"),
        pos: TilePos {
            column: 0,
            row: 0,
            layer: 0,
        },
        agent: AgentSizes {
            height: 2.0,
            radius: 0.5,
            climb: 0.25,
        },
        vertices,
        polys: vec![p0],
        links: Vec::new(),
        detail_meshes: Vec::new(),
        detail_vertices: Vec::new(),
        detail_tris: Vec::new(),
        areas: vec![1, 2, 3, 63],
        flags: vec![1, 2, 3, 0xffff],
    };
    t.fan_detail();
    t.polys.push(p1);
    t.detail_vertices.push([6.0, 0.5, 2.0]);
    t.detail_meshes.push(DetailMesh {
        vertex_base: 0,
        vertex_count: 1,
        triangle_base: 2,
        triangle_count: 4,
    });
    t.detail_tris
        .extend([[0, 1, 4], [1, 2, 4], [2, 3, 4], [3, 0, 4]]);
    t.polys.extend([p2, p3]);
    t.fan_detail();
    t.push_link(
        [2.0, 0.0, 2.0],
        [10.0, 1.0, 2.0],
        0.5,
        LinkDirection::Bidirectional,
        77,
    );
    t
}

fn fixture_bytes() -> Vec<u8> {
    fixture().to_bytes()
}

fn fe(offset: u64, field: &str, reason: R) -> FormatError {
    FormatError::new(offset, field, reason)
}

fn reject(bytes: &[u8]) -> FormatError {
    NavTile::from_bytes(bytes).expect_err("bytes must be rejected")
}

fn reject_raw(t: &RawTile) -> FormatError {
    reject(&t.to_bytes())
}

/// The fixture with one edit applied to the plain data.
fn edited(f: impl FnOnce(&mut RawTile)) -> RawTile {
    let mut t = fixture();
    f(&mut t);
    t
}

/// The fixture's bytes with one edit applied.
fn patched(f: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut b = fixture_bytes();
    f(&mut b);
    b
}

fn put_u32(b: &mut [u8], at: u64, v: u32) {
    let at = at as usize;
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

fn put_f64(b: &mut [u8], at: u64, v: f64) {
    let at = at as usize;
    b[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

fn get_u32(b: &[u8], at: u64) -> u32 {
    let at = at as usize;
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn get_f64(b: &[u8], at: u64) -> f64 {
    let at = at as usize;
    f64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

/// A tile holding one ground polygon over `verts` (all walls, fan detail, area 0, flags 0) in the
/// fixture's cell with the given tile size. Its polygon record starts at `132 + 24·V`.
fn single_poly(tile_size: f64, verts: &[Vec3]) -> RawTile {
    let n = verts.len();
    let mut p = Polygon {
        vertex_count: n as u8,
        ..Polygon::default()
    };
    for (k, slot) in p.vertices.iter_mut().take(n).enumerate() {
        *slot = k as u32;
    }
    let mut t = fixture();
    t.grid.tile_size = tile_size;
    t.vertices = verts.to_vec();
    t.polys = vec![p];
    t.links.clear();
    t.detail_meshes.clear();
    t.detail_vertices.clear();
    t.detail_tris.clear();
    t.areas = vec![0];
    t.flags = vec![0];
    t.fan_detail();
    t
}

// ---------------------------------------------------------------------------------------------
// The fixture itself
// ---------------------------------------------------------------------------------------------

#[test]
fn fixture_is_valid_and_laid_out_as_computed() {
    let t = fixture();
    let b = t.to_bytes();
    assert_eq!(b.len() as u64, END);
    let tile = t.build().expect("fixture must be valid");
    assert_eq!(tile.ground_poly_count(), 4);
    assert_eq!(tile.link_count(), 1);
    assert_eq!(tile.poly_count(), 5);
    assert_eq!(tile.link_of_poly(PolyIndex(4)), Some(LinkIndex(0)));
    assert_eq!(tile.link_of_poly(PolyIndex(3)), None);
    assert_eq!(tile.link_of_poly(PolyIndex(5)), None);
    assert_eq!(tile.cell_bounds(), [0.0, 0.0, 8.0, 8.0]);
    assert_eq!(tile.areas(), &[1, 2, 3, 63, 0]);
    assert_eq!(tile.all_flags().collect::<Vec<_>>(), [1, 2, 3, 0xffff, 1]);

    // Spot checks of the hand-computed section offsets.
    assert_eq!(&b[0..4], b"ONTL");
    assert_eq!(
        [108, 112, 116, 120, 124].map(|o| get_u32(&b, o)),
        [9, 4, 1, 1, 10]
    );
    assert_eq!(get_f64(&b, VERTS_AT + 24 * 8), 8.0); // vertex[8].x
    assert_eq!(b[poly_at(3) as usize], 4); // polygon[3].vertex_count
    assert_eq!(get_u32(&b, pv_at(3, 3)), 7); // polygon[3].vertex[3]
    assert_eq!(get_u32(&b, pn_at(0, 0)), 0x8000_0003); // -z portal
    assert_eq!(get_u32(&b, pn_at(0, 1)), 2); // internal, polygon 1
    assert_eq!(get_f64(&b, LINKS_AT + 24), 10.0); // link[0].end.x
    assert_eq!(get_f64(&b, LINKS_AT + 48), 0.5); // link[0].radius
    assert_eq!(b[(LINKS_AT + 56) as usize], 1); // link[0].direction
    assert_eq!(get_u32(&b, LINKS_AT + 60), 77); // link[0].user_id
    assert_eq!(get_u32(&b, DETAILS_AT + 16 + 4), 1); // detail[1].vertex_count
    assert_eq!(get_u32(&b, DETAILS_AT + 48 + 8), 8); // detail[3].triangle_base
    assert_eq!(get_f64(&b, DVERTS_AT), 6.0); // detail_vertex[0].x
    assert_eq!(
        &b[(DTRIS_AT + 8) as usize..(DTRIS_AT + 12) as usize],
        &[0, 1, 4, 0]
    );
    assert_eq!(&b[AREAS_AT as usize..FLAGS_AT as usize], &[1, 2, 3, 63, 0]);
    assert_eq!(
        &b[(FLAGS_AT + 6) as usize..(FLAGS_AT + 8) as usize],
        &[0xff, 0xff]
    );
}

#[test]
fn fixture_accessors() {
    let tile = fixture().build().unwrap();
    let corners: Vec<Vec3> = tile.poly_vertices(PolyIndex(1)).unwrap().collect();
    assert_eq!(
        corners,
        vec![
            [4.0, 0.25, 0.0],
            [8.0, 0.5, 0.0],
            [8.0, 1.25, 4.0],
            [4.0, 1.0, 4.0]
        ]
    );
    assert!(tile.poly_vertices(PolyIndex(4)).is_none());
    // Triangle 3 of polygon 1 is [1, 2, 4]: two corners and the extra vertex.
    assert_eq!(
        tile.detail_triangle(PolyIndex(1), 3),
        Some([[8.0, 0.5, 0.0], [8.0, 1.25, 4.0], [6.0, 0.5, 2.0]])
    );
    // Link polygons, out-of-range polygons and another polygon's triangle: None, never a panic.
    let links = tile.ground_poly_count();
    assert_eq!(tile.detail_triangle(PolyIndex(links), 0), None);
    assert_eq!(tile.detail_triangle(PolyIndex(1), 0), None);
    assert_eq!(tile.detail_triangle(PolyIndex(u32::MAX), 0), None);
    assert_eq!(tile.poly_height(PolyIndex(links), &[0.0; 3]), None);
    assert_eq!(tile.poly_height(PolyIndex(u32::MAX), &[0.0; 3]), None);
    assert!(tile.poly_height(PolyIndex(1), &[7.0, 0.0, 1.0]).is_some());
    assert_eq!(
        tile.ground_polys()[2].edge_list()[2],
        Edge::Portal(Side::PosZ)
    );
    assert_eq!(tile.off_mesh_links()[0].user_id, 77);
    assert!(tile.is_link_enabled(LinkIndex(0)));
    assert_eq!(tile.edited_polys().len(), 0);
}

// ---------------------------------------------------------------------------------------------
// T1–T7: header
// ---------------------------------------------------------------------------------------------

#[test]
fn t1_magic() {
    let b = patched(|b| b[3] = b'X');
    assert_eq!(reject(&b), fe(0, "magic", R::BadMagic));
}

#[test]
fn t2_version() {
    for v in [0u16, 1, 3, 0xffff] {
        let b = patched(|b| b[4..6].copy_from_slice(&v.to_le_bytes()));
        assert_eq!(reject(&b), fe(4, "version", R::BadVersion { found: v }));
    }
}

#[test]
fn t3_flags() {
    for (i, x) in [(6, 1u8), (7, 0x80)] {
        let b = patched(|b| b[i] = x);
        assert_eq!(reject(&b), fe(6, "flags", R::NonZeroReserved));
    }
}

#[test]
fn non_finite_floats() {
    let cases: [(u64, &str); 14] = [
        (8, "params.origin.x"),
        (16, "params.origin.y"),
        (24, "params.origin.z"),
        (32, "params.tile_size"),
        (84, "agent.height"),
        (92, "agent.radius"),
        (100, "agent.climb"),
        (VERTS_AT + 24 * 3 + 8, "vertex[3].y"),
        (LINKS_AT, "link[0].start.x"),
        (LINKS_AT + 24 + 16, "link[0].end.z"),
        (LINKS_AT + 48, "link[0].radius"),
        (DVERTS_AT, "detail_vertex[0].x"),
        (DVERTS_AT + 8, "detail_vertex[0].y"),
        (DVERTS_AT + 16, "detail_vertex[0].z"),
    ];
    for (at, field) in cases {
        for v in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let b = patched(|b| put_f64(b, at, v));
            assert_eq!(reject(&b), fe(at, field, R::NotFinite), "{field} = {v}");
        }
    }
    // A NaN with a payload and the sign bit set is still NaN.
    let b = patched(|b| b[8..16].copy_from_slice(&0xfff8_0000_0000_0001u64.to_le_bytes()));
    assert_eq!(reject(&b), fe(8, "params.origin.x", R::NotFinite));
}

#[test]
fn t4_tile_size_not_positive() {
    for s in [0.0, -0.0, -8.0, -f64::MIN_POSITIVE] {
        let t = edited(|t| t.grid.tile_size = s);
        assert_eq!(
            reject_raw(&t),
            fe(32, "params.tile_size", R::OutOfRange),
            "{s}"
        );
    }
}

#[test]
fn t4_layer() {
    let t = edited(|t| t.pos.layer = 255);
    assert_eq!(t.build().unwrap().pos().layer, 255);
    for layer in [256, u32::MAX] {
        let t = edited(|t| t.pos.layer = layer);
        assert_eq!(reject_raw(&t), fe(80, "position.layer", R::OutOfRange));
    }
}

#[test]
fn t4_digest_and_origin_are_free() {
    let t = edited(|t| {
        t.digest = SettingsDigest([0xff; 32]);
        t.grid.origin[1] = -1e300;
    });
    let tile = t.build().unwrap();
    assert_eq!(tile.digest(), SettingsDigest([0xff; 32]));
}

#[test]
fn t5_negative_agent_sizes() {
    for (i, (at, field)) in [
        (84, "agent.height"),
        (92, "agent.radius"),
        (100, "agent.climb"),
    ]
    .into_iter()
    .enumerate()
    {
        for v in [-1.0, -f64::MIN_POSITIVE * f64::EPSILON] {
            let t = edited(|t| match i {
                0 => t.agent.height = v,
                1 => t.agent.radius = v,
                _ => t.agent.climb = v,
            });
            assert_eq!(reject_raw(&t), fe(at, field, R::OutOfRange));
        }
    }
    // Zero and negative zero are ≥ 0.
    let t = edited(|t| {
        t.agent.height = 0.0;
        t.agent.radius = -0.0;
        t.agent.climb = 0.0;
    });
    assert!(t.build().is_ok());
}

#[test]
fn t6_counts_against_remaining_bytes() {
    // Each count is checked against all bytes after its own field, divided by the smallest
    // encoding of one element: vertex 24, ground polygon 52 + 16 + 4 + 3 = 75, link 64 + 3 = 67,
    // detail vertex 24, detail triangle 4. The fixture is 763 bytes long.
    let cases: [(u64, &str, u32); 5] = [
        (108, "vertex_count", (763 - 112) / 24),         // 27
        (112, "polygon_count", (763 - 116) / 75),        // 8
        (116, "link_count", (763 - 120) / 67),           // 9
        (120, "detail_vertex_count", (763 - 124) / 24),  // 26
        (124, "detail_triangle_count", (763 - 128) / 4), // 158
    ];
    assert_eq!(cases.map(|c| c.2), [27, 8, 9, 26, 158]);
    for (at, field, max) in cases {
        for n in [max + 1, u32::MAX] {
            let b = patched(|b| put_u32(b, at, n));
            assert_eq!(
                reject(&b),
                fe(
                    at,
                    field,
                    R::CountTooLarge {
                        count: n.into(),
                        max: max.into()
                    }
                )
            );
        }
        // At exactly the limit the count passes its own check; some later rule fails instead.
        let e = reject(&patched(|b| put_u32(b, at, max)));
        assert!(
            !(e.field == field && matches!(e.reason, R::CountTooLarge { .. })),
            "{e}"
        );
    }
}

/// The fixture's bytes padded with zeros to `len` and with `count` written at `at`.
fn padded(len: usize, at: u64, count: u32) -> Vec<u8> {
    let mut b = fixture_bytes();
    b.resize(len, 0);
    put_u32(&mut b, at, count);
    b
}

#[test]
fn t6_counts_against_limits() {
    // Enough bytes remain for one element more than the limit, so the limit is what binds.
    let n = MAX_VERTS as usize + 1;
    let b = padded(112 + 24 * n, 108, MAX_VERTS + 1);
    let max = u64::from(MAX_VERTS);
    let count = max + 1;
    assert_eq!(
        reject(&b),
        fe(108, "vertex_count", R::CountTooLarge { count, max })
    );

    let n = MAX_DETAIL_VERTS as usize + 1;
    let b = padded(124 + 24 * n, 120, MAX_DETAIL_VERTS + 1);
    let max = u64::from(MAX_DETAIL_VERTS);
    let count = max + 1;
    assert_eq!(
        reject(&b),
        fe(120, "detail_vertex_count", R::CountTooLarge { count, max })
    );

    let n = MAX_DETAIL_TRIS as usize + 1;
    let b = padded(128 + 4 * n, 124, MAX_DETAIL_TRIS + 1);
    let max = u64::from(MAX_DETAIL_TRIS);
    let count = max + 1;
    assert_eq!(
        reject(&b),
        fe(
            124,
            "detail_triangle_count",
            R::CountTooLarge { count, max }
        )
    );
}

#[test]
fn t6_ground_plus_links_over_limit() {
    // G + L may not exceed 1 048 575. Each count alone passes its own check.
    let (g, l) = (500_000u32, MAX_POLYS + 1 - 500_000);
    let mut b = padded(120 + 75 * g as usize, 112, g);
    put_u32(&mut b, 116, l);
    assert_eq!(
        reject(&b),
        fe(
            116,
            "link_count",
            R::CountTooLarge {
                count: l.into(),
                max: (MAX_POLYS - g).into()
            }
        )
    );
}

#[test]
fn t7_header_reserved() {
    for i in 128..132 {
        let b = patched(|b| b[i] = 1);
        assert_eq!(reject(&b), fe(128, "reserved", R::NonZeroReserved));
    }
}

// ---------------------------------------------------------------------------------------------
// T8: vertices
// ---------------------------------------------------------------------------------------------

#[test]
fn t8_vertex_outside_cell() {
    let cases: [(usize, usize, f64); 4] = [
        (2, 0, 8.000_000_000_000_002),
        (0, 0, -f64::MIN_POSITIVE),
        (6, 2, 8.5),
        (1, 2, -0.25),
    ];
    for (v, axis, value) in cases {
        let t = edited(|t| t.vertices[v][axis] = value);
        let at = VERTS_AT + 24 * v as u64;
        assert_eq!(
            reject_raw(&t),
            fe(at, &format!("vertex[{v}]"), R::OutsideCell)
        );
    }
}

#[test]
fn t8_bounds_inclusive_and_y_free() {
    // The lattice already puts vertices on all four borders; y may be any finite value.
    let t = edited(|t| {
        t.vertices[4][1] = -1e300;
        t.vertices[8][1] = f64::MAX;
    });
    assert!(t.build().is_ok());
}

#[test]
fn t8_cell_bounds_follow_position() {
    // The same tile moved to cell (−1, 2) of a grid with origin (100, 0, −50): vertices shifted by
    // (100 − 8, 0, −50 + 16) lie in [92, 100] × [−34, −26].
    let t = edited(|t| {
        t.grid.origin = [100.0, 7.0, -50.0];
        t.pos.column = -1;
        t.pos.row = 2;
        for v in t.vertices.iter_mut().chain(t.detail_vertices.iter_mut()) {
            v[0] += 92.0;
            v[2] -= 34.0;
        }
        for l in &mut t.links {
            l.start[0] += 92.0;
            l.start[2] -= 34.0;
            l.end[0] += 92.0;
            l.end[2] -= 34.0;
        }
    });
    let tile = t.build().unwrap();
    assert_eq!(tile.cell_bounds(), [92.0, -34.0, 100.0, -26.0]);
    // Unshifted, vertex 0 sits outside the moved cell.
    let t2 = edited(|t| {
        t.grid.origin = [100.0, 7.0, -50.0];
        t.pos.column = -1;
        t.pos.row = 2;
    });
    assert_eq!(reject_raw(&t2), fe(VERTS_AT, "vertex[0]", R::OutsideCell));
}

// ---------------------------------------------------------------------------------------------
// T9–T13: ground polygons
// ---------------------------------------------------------------------------------------------

#[test]
fn t9_vertex_count() {
    for n in [0u8, 1, 2, 7, 255] {
        let t = edited(|t| t.polys[1].vertex_count = n);
        assert_eq!(
            reject_raw(&t),
            fe(poly_at(1), "polygon[1].vertex_count", R::OutOfRange),
            "{n}"
        );
    }
}

#[test]
fn t9_polygon_reserved() {
    for k in 0..3u64 {
        let b = patched(|b| b[(poly_at(2) + 1 + k) as usize] = 0x40);
        assert_eq!(
            reject(&b),
            fe(
                poly_at(2) + 1 + k,
                &format!("polygon[2].reserved[{k}]"),
                R::NonZeroReserved
            )
        );
    }
}

#[test]
fn t10_vertex_index_out_of_range() {
    for v in [9, 10, u32::MAX] {
        let t = edited(|t| t.polys[0].vertices[2] = v);
        assert_eq!(
            reject_raw(&t),
            fe(pv_at(0, 2), "polygon[0].vertex[2]", R::OutOfRange)
        );
    }
}

#[test]
fn t10_unused_vertex_slot() {
    let t = edited(|t| t.polys[3].vertices[4] = 1);
    assert_eq!(
        reject_raw(&t),
        fe(pv_at(3, 4), "polygon[3].vertex[4]", R::NonZeroReserved)
    );
    // Unused slots are read before repeats are looked for.
    let t = edited(|t| t.polys[0].vertices = [0, 1, 1, 3, 0, 5]);
    assert_eq!(
        reject_raw(&t),
        fe(pv_at(0, 5), "polygon[0].vertex[5]", R::NonZeroReserved)
    );
}

#[test]
fn t11_duplicate_vertex() {
    // Reported at the first slot whose index appears again later.
    let t = edited(|t| t.polys[0].vertices[..4].copy_from_slice(&[0, 1, 4, 1]));
    assert_eq!(
        reject_raw(&t),
        fe(pv_at(0, 1), "polygon[0].vertex[1]", R::Duplicate)
    );
    // A repeat is reported before the (also failing) convexity rule.
    let t = edited(|t| t.polys[2].vertices[..4].copy_from_slice(&[3, 4, 3, 4]));
    assert_eq!(
        reject_raw(&t),
        fe(pv_at(2, 0), "polygon[2].vertex[0]", R::Duplicate)
    );
}

#[test]
fn t12_clockwise() {
    // P0 reversed: the turn at slot 0's successor is clockwise.
    let t = edited(|t| t.polys[0].vertices[..4].copy_from_slice(&[0, 3, 4, 1]));
    assert_eq!(
        reject_raw(&t),
        fe(pv_at(0, 1), "polygon[0].vertex[1]", R::NotConvex)
    );
}

#[test]
fn t12_not_convex() {
    // 0 (0,0), 2 (8,0), 4 (4,4), 8 (8,8), 6 (0,8): the turn 2 → 4 → 8 is clockwise.
    let t = edited(|t| {
        t.polys[0].vertex_count = 5;
        t.polys[0].vertices[..5].copy_from_slice(&[0, 2, 4, 8, 6]);
    });
    assert_eq!(
        reject_raw(&t),
        fe(pv_at(0, 2), "polygon[0].vertex[2]", R::NotConvex)
    );
}

#[test]
fn t12_collinear_is_not_strictly_convex() {
    // 0 (0,0), 1 (4,0), 2 (8,0): orient = 0 at slot 1.
    let t = edited(|t| {
        t.polys[0].vertex_count = 5;
        t.polys[0].vertices[..5].copy_from_slice(&[0, 1, 2, 8, 6]);
    });
    assert_eq!(
        reject_raw(&t),
        fe(pv_at(0, 1), "polygon[0].vertex[1]", R::NotConvex)
    );
    // The last turn (slots n−1, 0, 1) wraps around and is reported at slot 0.
    let t = edited(|t| {
        t.polys[0].vertex_count = 5;
        t.polys[0].vertices[..5].copy_from_slice(&[1, 2, 8, 6, 0]);
    });
    assert_eq!(
        reject_raw(&t),
        fe(pv_at(0, 0), "polygon[0].vertex[0]", R::NotConvex)
    );
}

#[test]
fn t12_before_neighbours() {
    let t = edited(|t| {
        t.polys[0].vertices[..4].copy_from_slice(&[0, 3, 4, 1]);
        t.polys[0].edges[5] = internal(1);
    });
    assert_eq!(
        reject_raw(&t),
        fe(pv_at(0, 1), "polygon[0].vertex[1]", R::NotConvex)
    );
}

#[test]
fn t13_neighbour_code_out_of_range() {
    // Internal codes name ground polygons only: code 5 would be the link polygon.
    let cases: [(u64, u64, u32); 5] = [
        (0, 1, 5),
        (0, 1, 0x7fff_ffff),
        (2, 3, 4 + 1 + 100),
        (3, 0, 0x8000_0004),
        (1, 1, 0xffff_ffff),
    ];
    for (i, k, code) in cases {
        let b = patched(|b| put_u32(b, pn_at(i, k), code));
        assert_eq!(
            reject(&b),
            fe(
                pn_at(i, k),
                &format!("polygon[{i}].neighbour[{k}]"),
                R::OutOfRange
            ),
            "code {code:#x}"
        );
    }
}

/// An internal index with no code of its own (its code would overflow, or reach the portal bit)
/// is written as `u32::MAX` by the unchecked writer, which the reader rejects: no panic, and no
/// other valid tile in its place.
#[test]
fn unencodable_internal_index_is_written_as_an_invalid_code() {
    for index in [u32::MAX, 0x7fff_ffff] {
        let t = edited(|t| t.polys[0].edges[1] = Edge::Internal(PolyIndex(index)));
        assert_eq!(get_u32(&t.to_bytes(), pn_at(0, 1)), u32::MAX);
        assert_eq!(
            reject_raw(&t),
            fe(pn_at(0, 1), "polygon[0].neighbour[1]", R::OutOfRange),
        );
    }
    assert_eq!(Edge::Internal(PolyIndex(0x7fff_fffe)).code(), 0x7fff_ffff);
}

#[test]
fn t13_neighbour_self() {
    let t = edited(|t| t.polys[1].edges[3] = internal(1));
    assert_eq!(
        reject_raw(&t),
        fe(pn_at(1, 3), "polygon[1].neighbour[3]", R::OutOfRange)
    );
}

#[test]
fn t13_unused_neighbour_slot() {
    for code in [1, 0x8000_0000] {
        let b = patched(|b| put_u32(b, pn_at(2, 5), code));
        assert_eq!(
            reject(&b),
            fe(pn_at(2, 5), "polygon[2].neighbour[5]", R::NonZeroReserved)
        );
    }
}

#[test]
fn t13_portal_off_side() {
    // (polygon, edge, side): edge 0 of P0 lies on −z, not +x; edge 1 of P0 is interior (x = 4);
    // edge 3 of P0 runs 3 (0,4) → 0 (0,0): only vertex 0 lies on −z.
    let cases = [
        (0u64, 0u64, Side::PosX),
        (0, 1, Side::NegZ),
        (0, 3, Side::NegZ),
    ];
    for (i, k, s) in cases {
        let t = edited(|t| t.polys[i as usize].edges[k as usize] = Edge::Portal(s));
        assert_eq!(
            reject_raw(&t),
            fe(
                pn_at(i, k),
                &format!("polygon[{i}].neighbour[{k}]"),
                R::PortalOffSide
            )
        );
    }
}

#[test]
fn t13_border_edges_may_be_walls() {
    let t = edited(|t| {
        for p in &mut t.polys {
            for e in &mut p.edges {
                if matches!(e, Edge::Portal(_)) {
                    *e = Edge::Wall;
                }
            }
        }
    });
    assert!(t.build().is_ok());
}

#[test]
fn t12_pentagram_is_not_convex() {
    // The five corners of a convex pentagon visited every second one: each turn is to the left,
    // yet the polygon winds twice around its centre.
    let star: [Vec3; 5] = [
        [4.0, 0.0, 1.0],
        [6.0, 0.0, 7.0],
        [1.0, 0.0, 3.0],
        [7.0, 0.0, 3.0],
        [2.0, 0.0, 7.0],
    ];
    for k in 0..5 {
        assert!(orient(&star[k], &star[(k + 1) % 5], &star[(k + 2) % 5]) > 0.0);
    }
    // A detail mesh that passes rule T17 for it: the fan from corner 0 sums to 2·area 32
    // (22 − 12 + 22); triangles [0, 1, 2] (22) and [3, 4, extra] (10), the extra vertex inside
    // every edge's half-plane.
    let mut t = single_poly(8.0, &star);
    t.detail_vertices = vec![[4.031_25, 0.0, 3.375]];
    t.detail_meshes[0] = DetailMesh {
        vertex_base: 0,
        vertex_count: 1,
        triangle_base: 0,
        triangle_count: 2,
    };
    t.detail_tris = vec![[0, 1, 2], [3, 4, 5]];
    // Edge 0 runs (4, 1) → (6, 7); corner 3 (7, 3) lies to its right. Polygon at 132 + 5·24.
    assert_eq!(
        reject_raw(&t),
        fe(252 + 4 + 12, "polygon[0].vertex[3]", R::NotConvex)
    );
}

#[test]
fn t12_spiral_hexagon_is_not_convex() {
    // Corner 0 at the centre, corners 1..5 around it at about 0°, 100°, 200°, 300° and 400°: every
    // turn is to the left and so is every triangle of the fan from corner 0, but the last spoke
    // crosses edge 1 → 2.
    let spiral: [Vec3; 6] = [
        [4.0, 0.0, 4.0],
        [7.0, 0.0, 4.0],
        [3.5, 0.0, 7.0],
        [1.25, 0.0, 3.0],
        [5.5, 0.0, 1.5],
        [6.25, 0.0, 6.0],
    ];
    for k in 0..6 {
        assert!(orient(&spiral[k], &spiral[(k + 1) % 6], &spiral[(k + 2) % 6]) > 0.0);
    }
    for k in 1..5 {
        assert!(orient(&spiral[0], &spiral[k], &spiral[k + 1]) > 0.0);
    }
    let t = single_poly(8.0, &spiral);
    // Edge 0 runs (4, 4) → (7, 4); corner 3 (1.25, 3) lies to its right. Polygon at 132 + 6·24.
    assert_eq!(
        reject_raw(&t),
        fe(276 + 4 + 12, "polygon[0].vertex[3]", R::NotConvex)
    );
}

#[test]
fn t12_overflow_to_nan_is_not_convex() {
    // In a cell of size 1e300 both products of orient overflow to +inf and orient is NaN: a
    // clockwise triangle (true orient −1e598) must not pass as convex.
    let t = single_poly(
        1e300,
        &[[0.0, 0.0, 0.0], [1e299, 0.0, 2e299], [2e299, 0.0, 3e299]],
    );
    assert!(orient(&t.vertices[0], &t.vertices[1], &t.vertices[2]).is_nan());
    // Polygon at 132 + 3·24 = 204.
    assert_eq!(
        reject_raw(&t),
        fe(204 + 4 + 4, "polygon[0].vertex[1]", R::NotConvex)
    );
}

// ---------------------------------------------------------------------------------------------
// T14: symmetry (stage 2)
// ---------------------------------------------------------------------------------------------

#[test]
fn t14_asymmetric_adjacency() {
    // P0 stops naming P1: P1's edge 3 (4 → 1) is left unmatched.
    let t = edited(|t| t.polys[0].edges[1] = Edge::Wall);
    assert_eq!(
        reject_raw(&t),
        fe(
            pn_at(1, 3),
            "polygon[1].neighbour[3]",
            R::AsymmetricAdjacency
        )
    );
    // P0's edge 2 (4 → 3) names P3, which never names P0.
    let t = edited(|t| t.polys[0].edges[2] = internal(3));
    assert_eq!(
        reject_raw(&t),
        fe(
            pn_at(0, 2),
            "polygon[0].neighbour[2]",
            R::AsymmetricAdjacency
        )
    );
}

#[test]
fn t14_match_needs_same_edge_reversed() {
    // P1 names P0 on its edge 2 (5 → 4) instead of edge 3 (4 → 1): P0's edge 1 (1 → 4) finds a
    // back reference, but not with vertices 4 → 1.
    let t = edited(|t| {
        t.polys[1].edges[2] = internal(0);
        t.polys[1].edges[3] = Edge::Wall;
    });
    assert_eq!(
        reject_raw(&t),
        fe(
            pn_at(0, 1),
            "polygon[0].neighbour[1]",
            R::AsymmetricAdjacency
        )
    );
}

#[test]
fn stage1_before_stage2() {
    // Asymmetric adjacency and a bad area: the area (stage 1) is reported although it comes later.
    let t = edited(|t| {
        t.polys[0].edges[1] = Edge::Wall;
        t.areas[2] = 64;
    });
    assert_eq!(reject_raw(&t), fe(AREAS_AT + 2, "area[2]", R::OutOfRange));
    // A trailing byte likewise wins over a clockwise detail triangle.
    let mut b = edited(|t| t.detail_tris[0] = [0, 2, 1]).to_bytes();
    b.push(0);
    assert_eq!(reject(&b), fe(END, "end", R::TrailingBytes { count: 1 }));
}

#[test]
fn stage2_symmetry_before_detail() {
    // P3 is left asymmetric; P0 has a clockwise detail triangle. Symmetry is checked first.
    let t = edited(|t| {
        t.polys[2].edges[1] = Edge::Wall;
        t.detail_tris[0] = [0, 2, 1];
    });
    assert_eq!(
        reject_raw(&t),
        fe(
            pn_at(3, 3),
            "polygon[3].neighbour[3]",
            R::AsymmetricAdjacency
        )
    );
}

// ---------------------------------------------------------------------------------------------
// T15: off-mesh links
// ---------------------------------------------------------------------------------------------

#[test]
fn t15_link_start_outside_cell() {
    for start in [
        [-0.5, 0.0, 2.0],
        [2.0, 0.0, 8.5],
        [8.000_000_000_000_002, 0.0, 0.0],
    ] {
        let t = edited(|t| t.links[0].start = start);
        assert_eq!(
            reject_raw(&t),
            fe(LINKS_AT, "link[0].start", R::OutsideCell)
        );
    }
}

#[test]
fn t15_link_end_outside_region() {
    // The 3 × 3 region around cell (0, 0) is [−8, 16] × [−8, 16].
    for end in [[16.5, 0.0, 2.0], [2.0, 0.0, -8.5], [-9.0, 0.0, -9.0]] {
        let t = edited(|t| t.links[0].end = end);
        assert_eq!(
            reject_raw(&t),
            fe(LINKS_AT + 24, "link[0].end", R::OutsideCell)
        );
    }
    // The region's corners are inside; so is the start's own cell.
    for end in [[16.0, 5.0, -8.0], [-8.0, -5.0, 16.0], [2.0, 0.0, 2.0]] {
        let t = edited(|t| t.links[0].end = end);
        assert!(t.build().is_ok(), "{end:?}");
    }
}

#[test]
fn t15_link_radius() {
    for r in [0.0, -0.0, -1.0] {
        let t = edited(|t| t.links[0].radius = r);
        assert_eq!(
            reject_raw(&t),
            fe(LINKS_AT + 48, "link[0].radius", R::OutOfRange),
            "{r}"
        );
    }
}

#[test]
fn t15_link_direction() {
    for d in [2u8, 255] {
        let b = patched(|b| b[(LINKS_AT + 56) as usize] = d);
        assert_eq!(
            reject(&b),
            fe(LINKS_AT + 56, "link[0].direction", R::OutOfRange)
        );
    }
    let t = edited(|t| t.links[0].direction = LinkDirection::OneWay);
    assert_eq!(
        t.build().unwrap().off_mesh_links()[0].direction,
        LinkDirection::OneWay
    );
}

#[test]
fn t15_link_reserved() {
    for k in 0..3u64 {
        let b = patched(|b| b[(LINKS_AT + 57 + k) as usize] = 1);
        assert_eq!(
            reject(&b),
            fe(
                LINKS_AT + 57 + k,
                &format!("link[0].reserved[{k}]"),
                R::NonZeroReserved
            )
        );
    }
}

// ---------------------------------------------------------------------------------------------
// T16: detail records, vertices, triangles (stage 1)
// ---------------------------------------------------------------------------------------------

#[test]
fn t16_detail_bases_contiguous() {
    let t = edited(|t| t.detail_meshes[2].vertex_base = 0);
    assert_eq!(
        reject_raw(&t),
        fe(DETAILS_AT + 32, "detail[2].vertex_base", R::OutOfRange)
    );
    let t = edited(|t| t.detail_meshes[3].triangle_base = 9);
    assert_eq!(
        reject_raw(&t),
        fe(
            DETAILS_AT + 48 + 8,
            "detail[3].triangle_base",
            R::OutOfRange
        )
    );
    let t = edited(|t| t.detail_meshes[0].triangle_base = 1);
    assert_eq!(
        reject_raw(&t),
        fe(DETAILS_AT + 8, "detail[0].triangle_base", R::OutOfRange)
    );
}

#[test]
fn t16_detail_vertex_count() {
    // Past the detail vertex count.
    let t = edited(|t| t.detail_meshes[1].vertex_count = 2);
    assert_eq!(
        reject_raw(&t),
        fe(DETAILS_AT + 16 + 4, "detail[1].vertex_count", R::OutOfRange)
    );
    // Over 249 per polygon even when the tile has enough detail vertices: with 250 detail
    // vertices, the record of polygon 1 naming all of them still fails on its own count.
    let t = edited(|t| {
        t.detail_vertices = vec![[6.0, 0.0, 2.0]; 250];
        t.detail_meshes[1].vertex_count = 250;
    });
    assert_eq!(
        reject_raw(&t),
        fe(DETAILS_AT + 16 + 4, "detail[1].vertex_count", R::OutOfRange)
    );
}

#[test]
fn t16_detail_triangle_count() {
    let t = edited(|t| t.detail_meshes[2].triangle_count = 0);
    assert_eq!(
        reject_raw(&t),
        fe(
            DETAILS_AT + 32 + 12,
            "detail[2].triangle_count",
            R::OutOfRange
        )
    );
    // Past the detail triangle count (8 + 3 > 10).
    let t = edited(|t| t.detail_meshes[3].triangle_count = 3);
    assert_eq!(
        reject_raw(&t),
        fe(
            DETAILS_AT + 48 + 12,
            "detail[3].triangle_count",
            R::OutOfRange
        )
    );
}

#[test]
fn t16_detail_totals() {
    // One detail vertex no record covers.
    let t = edited(|t| t.detail_vertices.push([1.0, 0.0, 1.0]));
    assert_eq!(
        reject_raw(&t),
        fe(120, "detail_vertex_count", R::OutOfRange)
    );
    // One detail triangle no record covers.
    let t = edited(|t| t.detail_tris.push([0, 1, 2]));
    assert_eq!(
        reject_raw(&t),
        fe(124, "detail_triangle_count", R::OutOfRange)
    );
    // Both: vertices are compared first.
    let t = edited(|t| {
        t.detail_vertices.push([1.0, 0.0, 1.0]);
        t.detail_tris.push([0, 1, 2]);
    });
    assert_eq!(
        reject_raw(&t),
        fe(120, "detail_vertex_count", R::OutOfRange)
    );
}

#[test]
fn t16_detail_triangle_index() {
    // P0: 4 corners, no extra vertex: indices 0..=3.
    let t = edited(|t| t.detail_tris[0] = [0, 2, 4]);
    assert_eq!(
        reject_raw(&t),
        fe(DTRIS_AT + 2, "detail_triangle[0].vertex[2]", R::OutOfRange)
    );
    // P1: 4 corners and 1 extra vertex: indices 0..=4.
    let t = edited(|t| t.detail_tris[3] = [5, 2, 4]);
    assert_eq!(
        reject_raw(&t),
        fe(DTRIS_AT + 12, "detail_triangle[3].vertex[0]", R::OutOfRange)
    );
}

/// An index one past P2's points (4 corners, no extra vertex) names, in the fast path's point
/// buffer, the slot where P1's extra vertex (6, 2) was just checked. With that point the two
/// triangles would pass T17: orient((0, 8), (0, 4), (6, 2)) = 24 and orient((4, 4), (0, 4),
/// (6, 2)) = 8, both positive, summing to P2's doubled area 32. The fast path refuses the tile
/// as the reader does (T16) because its buffer holds NaN past a polygon's own points (without
/// the refill after each polygon it accepts it).
#[test]
fn t16_index_past_the_polygon_reads_no_earlier_point() {
    let t = edited(|t| {
        t.detail_tris[6] = [3, 0, 4];
        t.detail_tris[7] = [1, 0, 4];
    });
    let b = t.to_bytes();
    assert_eq!(
        reject(&b),
        fe(DTRIS_AT + 26, "detail_triangle[6].vertex[2]", R::OutOfRange)
    );
    assert!(NavTile::reader_paths(&b).0.is_none());
}

#[test]
fn t16_detail_triangle_reserved() {
    let b = patched(|b| b[(DTRIS_AT + 4 * 7 + 3) as usize] = 1);
    assert_eq!(
        reject(&b),
        fe(
            DTRIS_AT + 4 * 7 + 3,
            "detail_triangle[7].reserved",
            R::NonZeroReserved
        )
    );
}

// ---------------------------------------------------------------------------------------------
// T17: detail coverage (stage 2)
// ---------------------------------------------------------------------------------------------

#[test]
fn t17_clockwise_detail_triangle() {
    let t = edited(|t| t.detail_tris[7] = [0, 3, 2]);
    assert_eq!(
        reject_raw(&t),
        fe(DTRIS_AT + 28, "detail_triangle[7]", R::DetailMismatch)
    );
    // A degenerate triangle (repeated index) has orient 0.
    let t = edited(|t| t.detail_tris[8] = [0, 1, 1]);
    assert_eq!(
        reject_raw(&t),
        fe(DTRIS_AT + 32, "detail_triangle[8]", R::DetailMismatch)
    );
}

#[test]
fn t17_detail_vertex_outside_polygon() {
    // Inside the cell and inside P0, but not inside P1 whose detail vertex it is.
    let t = edited(|t| t.detail_vertices[0] = [2.0, 0.0, 2.0]);
    assert_eq!(
        reject_raw(&t),
        fe(DVERTS_AT, "detail_vertex[0]", R::DetailMismatch)
    );
}

#[test]
fn t17_detail_area_mismatch() {
    // P1's last triangle replaced by one twice as large: sum 40 against 2·area 32.
    let t = edited(|t| t.detail_tris[5] = [0, 1, 2]);
    assert_eq!(
        reject_raw(&t),
        fe(
            DETAILS_AT + 16 + 12,
            "detail[1].triangle_count",
            R::DetailMismatch
        )
    );
}

#[test]
fn t17_area_tolerance_accepts_rounding() {
    // An off-centre extra vertex with inexact coordinates: the triangle areas round differently
    // from the polygon's fan, within the relative tolerance.
    let t = edited(|t| t.detail_vertices[0] = [4.1, 0.0, 0.3]);
    let tile = t.build().unwrap();
    assert_eq!(tile.detail_vertices()[0], [4.1, 0.0, 0.3]);
}

/// The tolerance itself: P1's top triangle takes a second extra vertex δ above the first, so the
/// triangles sum to 2·area − 4δ = 32 − 4δ against the tolerance 1e-9 · 32 = 3.2e-8 (exact to
/// well within the margins here). δ = 4e-9 (1.6e-8 off) passes, δ = 1.2e-8 (4.8e-8 off) fails, in
/// both of the reader's paths; a tolerance twice as large would accept both.
#[test]
fn t17_area_tolerance_is_relative_1e9() {
    let with = |delta: f64| {
        edited(|t| {
            t.detail_vertices.push([6.0, 0.5, 2.0 + delta]);
            t.detail_meshes[1].vertex_count = 2;
            t.detail_meshes[2].vertex_base = 2;
            t.detail_meshes[3].vertex_base = 2;
            t.detail_tris[4] = [2, 3, 5];
        })
        .to_bytes()
    };
    let ok = with(4e-9);
    paths_agree(&ok);
    assert!(NavTile::from_bytes(&ok).is_ok());
    let bad = with(1.2e-8);
    paths_agree(&bad);
    // One more detail vertex: the details start 24 bytes later than the fixture's.
    assert_eq!(
        reject(&bad),
        fe(
            DETAILS_AT + 16 + 12,
            "detail[1].triangle_count",
            R::DetailMismatch
        )
    );
}

#[test]
fn t17_overflow_to_nan_fails() {
    // A right triangle of size 1e300: its own turns are +inf (the true sign), but the polygon's
    // area and the triangles' sum both overflow to +inf and cannot be compared.
    let big = [[0.0, 0.0, 0.0], [1e300, 0.0, 0.0], [0.0, 0.0, 1e300]];
    let t = single_poly(1e300, &big);
    // Polygon at 204, detail record at 256.
    assert_eq!(
        reject_raw(&t),
        fe(256 + 12, "detail[0].triangle_count", R::DetailMismatch)
    );
    // A detail triangle whose orient is NaN (true orient negative) fails on its own. The square's
    // edges run along the axes, so the inside test of its extra vertices cannot overflow to NaN.
    let square = [
        [0.0, 0.0, 0.0],
        [1e300, 0.0, 0.0],
        [1e300, 0.0, 1e300],
        [0.0, 0.0, 1e300],
    ];
    let mut t = single_poly(1e300, &square);
    t.detail_vertices = vec![[1e299, 0.0, 2e299], [2e299, 0.0, 3e299]];
    t.detail_meshes[0].vertex_count = 2;
    t.detail_tris = vec![[0, 1, 2], [0, 4, 5]];
    // Polygon at 228, detail record at 280, detail vertices at 296, triangles at 344.
    assert_eq!(
        reject_raw(&t),
        fe(344 + 4, "detail_triangle[1]", R::DetailMismatch)
    );
}

#[test]
fn t17_polygons_in_ascending_order() {
    // P1's detail vertex is outside P1 and P0 has a clockwise triangle: P0 comes first.
    let t = edited(|t| {
        t.detail_vertices[0] = [2.0, 0.0, 2.0];
        t.detail_tris[1] = [0, 3, 2];
    });
    assert_eq!(
        reject_raw(&t),
        fe(DTRIS_AT + 4, "detail_triangle[1]", R::DetailMismatch)
    );
}

// ---------------------------------------------------------------------------------------------
// T18–T19: areas, flags, end
// ---------------------------------------------------------------------------------------------

#[test]
fn t18_area() {
    for (i, a) in [(2usize, 64u8), (4, 200), (0, 255)] {
        let t = edited(|t| t.areas[i] = a);
        assert_eq!(
            reject_raw(&t),
            fe(AREAS_AT + i as u64, &format!("area[{i}]"), R::OutOfRange)
        );
    }
    // The first bad area is reported.
    let t = edited(|t| {
        t.areas[3] = 64;
        t.areas[1] = 64;
    });
    assert_eq!(reject_raw(&t), fe(AREAS_AT + 1, "area[1]", R::OutOfRange));
    // Any flags are valid.
    let t = edited(|t| t.flags = vec![0xffff; 5]);
    assert!(t.build().is_ok());
}

#[test]
fn t19_trailing_bytes() {
    let b = patched(|b| b.push(0));
    assert_eq!(reject(&b), fe(END, "end", R::TrailingBytes { count: 1 }));
    let b = patched(|b| b.extend([1, 2, 3]));
    assert_eq!(reject(&b), fe(END, "end", R::TrailingBytes { count: 3 }));
}

#[test]
fn error_offsets_shift_with_base() {
    let base = 1000;
    let cases = [
        (patched(|b| b[0] = 0), fe(0, "magic", R::BadMagic)),
        (
            edited(|t| t.detail_tris.push([0, 1, 2])).to_bytes(),
            fe(124, "detail_triangle_count", R::OutOfRange),
        ),
        (
            edited(|t| t.polys[0].edges[1] = Edge::Wall).to_bytes(),
            fe(
                pn_at(1, 3),
                "polygon[1].neighbour[3]",
                R::AsymmetricAdjacency,
            ),
        ),
        (
            edited(|t| t.detail_vertices[0] = [2.0, 0.0, 2.0]).to_bytes(),
            fe(DVERTS_AT, "detail_vertex[0]", R::DetailMismatch),
        ),
        (
            edited(|t| t.detail_tris[5] = [0, 1, 2]).to_bytes(),
            fe(
                DETAILS_AT + 16 + 12,
                "detail[1].triangle_count",
                R::DetailMismatch,
            ),
        ),
        (
            edited(|t| t.areas[4] = 64).to_bytes(),
            fe(AREAS_AT + 4, "area[4]", R::OutOfRange),
        ),
    ];
    for (b, mut e) in cases {
        assert_eq!(reject(&b), e);
        e.offset += base;
        assert_eq!(NavTile::from_bytes_at(&b, base).unwrap_err(), e);
    }
}

// ---------------------------------------------------------------------------------------------
// Truncation, round trip, content id
// ---------------------------------------------------------------------------------------------

#[test]
fn every_proper_prefix_is_rejected() {
    let b = fixture_bytes();
    for n in 0..b.len() {
        let e = reject(&b[..n]);
        assert!(e.offset <= n as u64, "prefix {n}: {e}");
    }
}

#[test]
fn prefix_errors() {
    let b = fixture_bytes();
    let t = |needed, available| R::Truncated { needed, available };
    let cases = [
        (0, fe(0, "magic", t(4, 0))),
        (3, fe(0, "magic", t(4, 3))),
        (5, fe(4, "version", t(2, 1))),
        (40, fe(40, "params.settings_digest", t(32, 0))),
        (110, fe(108, "vertex_count", t(4, 2))),
        // With no bytes after it, a non-zero count is too large.
        (
            112,
            fe(108, "vertex_count", R::CountTooLarge { count: 9, max: 0 }),
        ),
        (700, fe(700, "detail_vertex[0].z", t(8, 0))),
        // The area array is taken whole.
        (750, fe(AREAS_AT, "area", t(5, 2))),
        (762, fe(FLAGS_AT + 8, "flags[4]", t(2, 1))),
    ];
    for (n, e) in cases {
        assert_eq!(reject(&b[..n]), e, "prefix {n}");
    }
}

#[test]
fn round_trip() {
    let raw = fixture();
    let b = raw.to_bytes();
    let tile = NavTile::from_bytes(&b).unwrap();
    assert_eq!(tile.as_built_bytes(), &b[..]);
    assert_eq!(tile.to_bytes(), b);
    assert_eq!(RawTile::from_tile(&tile), raw);
    assert_eq!(RawTile::from_tile(&tile).to_bytes(), b);
    let expected: [u8; 32] = Sha256::digest(&b).into();
    assert_eq!(tile.content_id().0, expected);
    // A different tile has a different id.
    let other = edited(|t| t.flags[0] = 9).build().unwrap();
    assert_ne!(other.content_id(), tile.content_id());
    let expected: [u8; 32] = Sha256::digest(other.as_built_bytes()).into();
    assert_eq!(other.content_id().0, expected);
}

#[test]
fn empty_tile_round_trips() {
    let t = RawTile {
        vertices: Vec::new(),
        polys: Vec::new(),
        links: Vec::new(),
        detail_meshes: Vec::new(),
        detail_vertices: Vec::new(),
        detail_tris: Vec::new(),
        areas: Vec::new(),
        flags: Vec::new(),
        ..fixture()
    };
    let b = t.to_bytes();
    assert_eq!(b.len(), 132);
    let tile = NavTile::from_bytes(&b).unwrap();
    assert_eq!(tile.poly_count(), 0);
    assert_eq!(tile.to_bytes(), b);
}

/// Parses `b`; if accepted, the writer must reproduce it exactly (one state, one encoding).
fn check_any(b: &[u8]) -> Result<(), String> {
    match NavTile::from_bytes(b) {
        Ok(t) => {
            if t.as_built_bytes() != b || t.to_bytes() != b {
                return Err("accepted bytes not kept".into());
            }
            if RawTile::from_tile(&t).to_bytes() != b {
                return Err("accepted bytes not reproduced by the writer".into());
            }
            Ok(())
        }
        Err(e) if e.offset <= b.len() as u64 => Ok(()),
        Err(e) => Err(format!("error offset past the input: {e}")),
    }
}

#[test]
fn byte_flip_sweep() {
    let b = fixture_bytes();
    let mut accepted = 0;
    for i in 0..b.len() {
        for x in [0x01u8, 0x02, 0x10, 0x80, 0xff] {
            let mut m = b.clone();
            m[i] ^= x;
            check_any(&m).unwrap_or_else(|s| panic!("byte {i} ^ {x:#x}: {s}"));
            accepted += usize::from(NavTile::from_bytes(&m).is_ok());
        }
    }
    // Flags, user ids, digest bytes and y coordinates take any value.
    assert!(accepted > 200, "{accepted}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_mutations_never_panic(
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..12),
        count in (0usize..5, any::<u32>()),
        write_count in any::<bool>(),
        cut in any::<prop::sample::Index>(),
        do_cut in any::<bool>(),
        tail in prop::collection::vec(any::<u8>(), 0..4),
    ) {
        let mut b = fixture_bytes();
        for (i, v) in &edits {
            let i = i.index(b.len());
            b[i] = *v;
        }
        if write_count {
            put_u32(&mut b, 108 + 4 * count.0 as u64, count.1);
        }
        if do_cut {
            b.truncate(cut.index(b.len() + 1));
        }
        b.extend_from_slice(&tail);
        prop_assert_eq!(check_any(&b), Ok(()));
    }
}

// ---------------------------------------------------------------------------------------------
// Ownership
// ---------------------------------------------------------------------------------------------

#[test]
fn clones_share_contents_but_not_state() {
    let a = fixture().build().unwrap();
    let mut b = a.clone();
    assert!(a.shares_contents(&b));
    assert_eq!(a, b);

    b.set_area_flags(PolyIndex(1), 5, 9);
    assert!(a.shares_contents(&b));
    assert_eq!(
        (a.area(PolyIndex(1)), a.flags(PolyIndex(1))),
        (Some(2), Some(2))
    );
    assert_eq!(
        (b.area(PolyIndex(1)), b.flags(PolyIndex(1))),
        (Some(5), Some(9))
    );
    assert_eq!(b.as_built_area(PolyIndex(1)), Some(2));
    assert_eq!(b.as_built_flags(PolyIndex(1)), Some(2));
    assert_eq!(a.edited_polys().len(), 0);
    assert_ne!(a, b);

    // A clone of the edited copy carries its current values and still shares contents.
    let c = b.clone();
    assert!(c.shares_contents(&a));
    assert_eq!(c.area(PolyIndex(1)), Some(5));
    assert_eq!(c.edited_polys().collect::<Vec<_>>(), vec![PolyIndex(1)]);

    // Editing the original leaves the copies alone.
    let mut a2 = a.clone();
    a2.set_area_flags(PolyIndex(0), 7, 7);
    assert_eq!(b.area(PolyIndex(0)), Some(1));
    assert_eq!(a.area(PolyIndex(0)), Some(1));

    // Separately parsed tiles are equal but do not share.
    let d = NavTile::from_bytes(a.as_built_bytes()).unwrap();
    assert!(!d.shares_contents(&a));
    assert_eq!(d, a);
    assert_eq!(d.content_id(), a.content_id());
}

#[test]
fn edited_set_is_exact() {
    let mut t = fixture().build().unwrap();
    let edited = |t: &NavTile| t.edited_polys().map(|p| p.0).collect::<Vec<_>>();

    t.set_area_flags(PolyIndex(3), 63, 0xffff); // equal to as built
    assert_eq!(edited(&t), Vec::<u32>::new());
    t.set_area_flags(PolyIndex(3), 0, 0xffff); // area only
    t.set_area_flags(PolyIndex(4), 0, 2); // link polygon, flags only
    t.set_area_flags(PolyIndex(0), 1, 1); // unchanged
    assert_eq!(edited(&t), vec![3, 4]);
    t.set_area_flags(PolyIndex(2), 9, 9);
    assert_eq!(edited(&t), vec![2, 3, 4]);
    t.set_area_flags(PolyIndex(3), 63, 0xffff); // back to as built
    assert_eq!(edited(&t), vec![2, 4]);
    t.set_area_flags(PolyIndex(2), 9, 3); // still differs in area
    assert_eq!(edited(&t), vec![2, 4]);
    t.set_area_flags(PolyIndex(2), 3, 3);
    t.set_area_flags(PolyIndex(4), 0, 1);
    assert_eq!(edited(&t), Vec::<u32>::new());
    assert_eq!(t.to_bytes(), fixture_bytes());
}

#[test]
fn to_bytes_reflects_current_values() {
    let original = fixture_bytes();
    let mut t = NavTile::from_bytes(&original).unwrap();
    let id = t.content_id();
    t.set_area_flags(PolyIndex(1), 40, 0x1234);
    t.set_area_flags(PolyIndex(4), 12, 0xbeef);

    let mut expected = original.clone();
    expected[(AREAS_AT + 1) as usize] = 40;
    expected[(AREAS_AT + 4) as usize] = 12;
    expected[(FLAGS_AT + 2) as usize..(FLAGS_AT + 4) as usize].copy_from_slice(&[0x34, 0x12]);
    expected[(FLAGS_AT + 8) as usize..(FLAGS_AT + 10) as usize].copy_from_slice(&[0xef, 0xbe]);
    assert_eq!(t.to_bytes(), expected);
    assert_eq!(t.as_built_bytes(), &original[..]);
    assert_eq!(t.content_id(), id);

    // The edited bytes are a valid tile whose as-built values are the edited ones.
    let u = NavTile::from_bytes(&t.to_bytes()).unwrap();
    assert_ne!(u.content_id(), id);
    assert_eq!(u.areas(), t.areas());
    assert!(u.all_flags().eq(t.all_flags()));
    assert_eq!(u.edited_polys().len(), 0);

    // Setting the as-built values back empties the edited set and restores the bytes.
    t.set_link_enabled(LinkIndex(0), false);
    assert!(!t.is_link_enabled(LinkIndex(0)));
    t.set_area_flags(
        PolyIndex(1),
        original[AREAS_AT as usize + 1],
        u16::from_le_bytes([
            original[FLAGS_AT as usize + 2],
            original[FLAGS_AT as usize + 3],
        ]),
    );
    t.set_area_flags(
        PolyIndex(4),
        original[AREAS_AT as usize + 4],
        u16::from_le_bytes([
            original[FLAGS_AT as usize + 8],
            original[FLAGS_AT as usize + 9],
        ]),
    );
    t.set_link_enabled(LinkIndex(0), true);
    assert_eq!(t.to_bytes(), original);
    assert!(t.is_link_enabled(LinkIndex(0)));
    assert_eq!(t.edited_polys().len(), 0);
}

/// T20: two portal edges of one side with overlapping interiors (a duplicated quad) are rejected
/// at the later edge in sorted order; sides are checked in code order (+x first).
#[test]
fn t20_overlapping_portals_on_one_side() {
    let w = crate::WorldSpec {
        quads: 1,
        ..crate::WorldSpec::default()
    };
    let mut raw = w.raw_tile(crate::TilePos {
        column: 0,
        row: 0,
        layer: 0,
    });
    assert_eq!(raw.polys.len(), 1);
    raw.polys.push(raw.polys[0]);
    raw.fan_detail();
    raw.areas.push(0);
    raw.flags.push(1);
    // Vertices 4 × 24 bytes from 132; polygon 1 at +52; its neighbour[1] (the +x edge) at +28 + 4.
    let e = raw.build().unwrap_err();
    assert_eq!(
        (e.offset, e.field.as_str(), e.reason),
        (
            132 + 96 + 52 + 28 + 4,
            "polygon[1].neighbour[1]",
            crate::FormatReason::PortalOverlap
        )
    );
    // Touching portals (sharing an end point) are fine: the generator's tiles have them.
    assert!(w
        .raw_tile(crate::TilePos {
            column: 1,
            row: 0,
            layer: 0
        })
        .build()
        .is_ok());
}

// ---------------------------------------------------------------------------------------------
// The reader's two paths (`fast.rs`, `read.rs`) against each other.

/// The fast validator and the field-by-field reader agree on `b`: both accept it with equal
/// contents, or both reject it (the error is the reader's alone).
fn paths_agree(b: &[u8]) {
    match NavTile::reader_paths(b) {
        (Some(f), Ok(g)) => assert!(f.same_data(&g), "contents differ"),
        (None, Err(_)) => {}
        (Some(_), Err(e)) => panic!("fast path accepts what the reader rejects: {e}"),
        (None, Ok(_)) => panic!("fast path rejects a valid tile"),
    }
}

/// Valid tiles of every shape the fixtures make: the hand-laid fixture (links, detail vertices),
/// a layered generated world with links and varying density, and a hexagon tile.
fn differential_tiles() -> Vec<Vec<u8>> {
    let mut out = vec![fixture_bytes()];
    let w = crate::generator::worlds::layered();
    out.extend(
        w.tiles()
            .iter()
            .step_by(4)
            .map(|t| t.as_built_bytes().to_vec()),
    );
    out
}

/// Every truncation, every byte set to 0, 1, 0x80 and 0xff and flipped in its lowest bit, of
/// every differential tile: the two paths accept and reject exactly alike.
#[test]
fn fast_and_general_readers_agree_on_every_byte_change() {
    for t in differential_tiles() {
        paths_agree(&t);
        assert!(
            NavTile::reader_paths(&t).0.is_some(),
            "a fixture tile is valid"
        );
        for n in 0..t.len() {
            paths_agree(&t[..n]);
        }
        let mut b = t.clone();
        for i in 0..b.len() {
            let keep = b[i];
            for v in [0, 1, 0x80, 0xff, keep ^ 1] {
                b[i] = v;
                paths_agree(&b);
            }
            b[i] = keep;
        }
        b.push(0);
        paths_agree(&b);
    }
}

/// Coordinates moved onto the boundaries the rules compare against: every f64 of the vertex,
/// link and detail vertex arrays of the differential tiles stepped by 1 and 2 ulps either way,
/// negated, and set to each of its cell's four bounds (T8, T12, T13, T15, T17 decide on exactly
/// these values).
#[test]
fn fast_and_general_readers_agree_on_boundary_coordinates() {
    for t in differential_tiles() {
        let tile = NavTile::from_bytes(&t).unwrap();
        let bounds = tile.cell_bounds();
        let (nv, ng, nl, ndv) = (
            tile.vertices().len(),
            tile.ground_poly_count() as usize,
            tile.link_count() as usize,
            tile.detail_vertices().len(),
        );
        let verts = 132..132 + 24 * nv;
        let links_at = 132 + 24 * nv + 52 * ng;
        let dverts_at = links_at + 64 * nl + 16 * ng;
        let mut fields: Vec<usize> = verts.step_by(8).collect();
        for l in 0..nl {
            fields.extend((0..7).map(|k| links_at + 64 * l + 8 * k));
        }
        fields.extend((dverts_at..dverts_at + 24 * ndv).step_by(8));
        let mut b = t.clone();
        for at in fields {
            let keep = get_f64(&b, at as u64);
            let step = |x: f64, up: bool| {
                let bits = x.to_bits() as i64;
                let d = if (x >= 0.0) == up { 1 } else { -1 };
                f64::from_bits((bits + d) as u64)
            };
            let mut values = vec![-keep, step(keep, true), step(keep, false)];
            values.push(step(values[1], true));
            values.push(step(values[2], false));
            values.extend(bounds);
            for v in values {
                put_f64(&mut b, at as u64, v);
                paths_agree(&b);
            }
            put_f64(&mut b, at as u64, keep);
        }
    }
}

/// Putting a tile's values back after edits, one value at a time (few edits) or with one copy of
/// the as-built bytes (many): both give the as-built tile, and the edited values stay where the
/// tile bytes keep them (areas, then little-endian flags).
#[test]
fn reset_and_replace_state_one_by_one_or_whole() {
    let w = crate::generator::WorldSpec {
        columns: 1,
        rows: 1,
        quads: 8,
        ..crate::generator::WorldSpec::default()
    };
    let built = w.tiles().remove(0);
    let np = built.poly_count();
    // One or two edits take the one-by-one branch, every polygon the whole copy.
    assert!(3 * np as usize > 2 * super::RESET_COPY_BYTES);
    for n in [1, 2, np] {
        let mut t = built.clone();
        let edits: Vec<_> = (0..n)
            .map(|p| (PolyIndex(p), (p % 60) as u8, 0x4321 ^ p as u16))
            .collect();
        for &(p, area, flags) in &edits {
            t.set_area_flags(p, area, flags);
        }
        assert_eq!(t.edited_polys().len(), n as usize, "{n} edits");
        for &(p, area, flags) in &edits {
            assert_eq!((t.area(p), t.flags(p)), (Some(area), Some(flags)));
        }
        assert_eq!(t.edits().collect::<Vec<_>>(), edits);
        // The serialized tile holds the edited values, read back by the reader.
        let again = NavTile::from_bytes(&t.to_bytes()).expect("a valid tile");
        assert_eq!(again.areas(), t.areas());
        assert!(again.all_flags().eq(t.all_flags()));
        let mut r = built.clone();
        r.replace_state(edits.iter().copied(), std::iter::empty());
        assert_eq!(r, t);
        t.reset_state();
        assert_eq!(t, built, "{n} edits put back");
        assert_eq!(t.to_bytes(), built.as_built_bytes());
        assert_eq!(t.edited_polys().len(), 0);
        assert!(t.all_flags().eq(built.all_flags()));
    }
}
