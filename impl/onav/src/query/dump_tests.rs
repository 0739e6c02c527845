//! A before/after check for changes that must not change any query result: every query over a
//! large seeded set of inputs, on generated worlds with layers, bumps, holes, varying density,
//! off-mesh links, edits and switches, printed exactly (`{:?}` of f64 is the shortest text that
//! reads back to the same bits). Run at two commits and compare:
//!
//! `ONAV_QUERY_DUMP=/tmp/a.txt cargo test --release -p onav query_dump -- --ignored`
//!
//! The test prints the SHA-256 of the dump and counts of the answers' kinds; `cmp` of two dumps
//! names the first query that differs. `ONAV_QUERY_DUMP_CASES` sets the cases per world (default
//! 25 000: about 100 000 of each query kind over the four worlds).

use std::fmt::Write as _;

use sha2::{Digest, Sha256};

use super::*;
use crate::generator::{mix, WorldSpec};
use crate::ids::{LinkIndex, PolyIndex};
use crate::tile::AgentSizes;
use crate::TiledNavMesh;

/// The worlds of the dump: the shared layered world, a world of close layers with bumps (the
/// nearest rule's cases), one of big tiles, and one off the integer grid.
fn worlds() -> Vec<WorldSpec> {
    vec![
        crate::generator::worlds::layered(),
        WorldSpec {
            seed: 7,
            columns: 6,
            rows: 6,
            layers: 2,
            quads: 4,
            slope: [0.02, 0.01],
            bump: 0.6,
            hole_chance: 40,
            layer_gap: 1.5,
            links_per_tile: 1,
            area_kinds: 4,
            ..WorldSpec::default()
        },
        WorldSpec {
            seed: 3,
            columns: 3,
            rows: 3,
            quads: 12,
            vary_density: true,
            bump: 0.4,
            hole_chance: 20,
            links_per_tile: 3,
            area_kinds: 2,
            ..WorldSpec::default()
        },
        WorldSpec {
            seed: 11,
            columns: 4,
            rows: 3,
            layers: 3,
            origin: [-37.3, 2.0, 11.7],
            tile_size: 9.7,
            quads: 3,
            slope: [-0.04, 0.03],
            bump: 0.2,
            hole_chance: 60,
            layer_gap: 2.25,
            links_per_tile: 2,
            area_kinds: 3,
            agent: AgentSizes {
                height: 2.0,
                radius: 0.4,
                climb: 0.6,
            },
            ..WorldSpec::default()
        },
    ]
}

/// Seeded uniform numbers.
struct Rng(u64);

impl Rng {
    fn unit(&mut self) -> f64 {
        self.0 = mix(self.0);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    fn below(&mut self, n: u64) -> u64 {
        self.0 = mix(self.0);
        self.0 % n.max(1)
    }
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
    fn pick<T: Copy>(&mut self, v: &[T]) -> T {
        v[self.below(v.len() as u64) as usize]
    }
}

/// The world's mesh with some areas, flags and switches edited.
fn mesh(w: &WorldSpec, rng: &mut Rng) -> TiledNavMesh {
    let mut m = TiledNavMesh::new(w.params_fitting());
    for t in w.tiles() {
        m.add_tile(t).expect("generated tile");
    }
    let refs: Vec<_> = m
        .tiles()
        .map(|(r, t)| (r, t.poly_count(), t.link_count()))
        .collect();
    for _ in 0..refs.len() * 2 {
        let (r, p, l) = refs[rng.below(refs.len() as u64) as usize];
        let poly = r.poly(PolyIndex(rng.below(u64::from(p)) as u32));
        match rng.below(3) {
            0 => m.set_poly_area(poly, rng.below(5) as u8).expect("edit"),
            1 => m
                .set_poly_flags(poly, rng.pick(&[1, 2, 3, 4, 8, 0]))
                .expect("edit"),
            _ if l > 0 => m
                .set_off_mesh_link_enabled(r, LinkIndex(rng.below(u64::from(l)) as u32), false)
                .expect("switch"),
            _ => {}
        }
    }
    m
}

/// A random filter: mostly the default, sometimes flags and costs (including 0 and below H).
fn filter(rng: &mut Rng) -> QueryFilter {
    let mut f = QueryFilter::default();
    if rng.below(3) == 0 {
        f.set_include_flags(rng.pick(&[0xffff, 1, 3, 5, 0xfffe]));
        f.set_exclude_flags(rng.pick(&[0, 2, 4, 8]));
    }
    if rng.below(2) == 0 {
        for area in 0..5 {
            f.set_area_cost(area, rng.pick(&[1.0, 1.0, 0.0, 0.5, 2.5, 7.0]))
                .expect("cost");
        }
    }
    f
}

/// A random valid ground polygon of the mesh, or a forged reference now and then.
fn some_poly(m: &TiledNavMesh, rng: &mut Rng) -> PolyRef {
    let tiles: Vec<_> = m.tiles().collect();
    let (r, t) = tiles[rng.below(tiles.len() as u64) as usize];
    if rng.below(50) == 0 {
        return PolyRef::from_raw(mix(rng.0) | 1 << 40).expect("generation ≥ 1");
    }
    r.poly(PolyIndex(rng.below(u64::from(t.poly_count())) as u32))
}

/// The mean of a ground polygon's vertices (a point over it), if `r` is one.
fn centroid(m: &TiledNavMesh, r: PolyRef) -> Option<Vec3> {
    let (t, i) = m.poly(r)?;
    let v: Vec<Vec3> = t.poly_vertices(i)?.collect();
    let n = v.len() as f64;
    Some([0, 1, 2].map(|k| v.iter().map(|p| p[k]).sum::<f64>() / n))
}

/// Buffers the `_into` calls reuse from case to case.
#[derive(Default)]
struct Buffers {
    corridor: Vec<PolyRef>,
    points: Vec<StraightPoint>,
    visited: Vec<PolyRef>,
}

/// Runs one case and appends every answer to `out`. Each query runs twice, with the owned
/// result and `_into` on the query's reused scratch and `buf`, which must agree.
fn case(
    q: &mut NavMeshQuery<'_>,
    w: &WorldSpec,
    rng: &mut Rng,
    out: &mut String,
    n: &mut [u64; 8],
    buf: &mut Buffers,
) {
    let m = q.mesh();
    let size = [
        f64::from(w.columns) * w.tile_size,
        f64::from(w.rows) * w.tile_size,
    ];
    let top = f64::from(w.layers) * w.layer_gap + 2.0;
    let point = |rng: &mut Rng| {
        [
            w.origin[0] + rng.range(-0.1, 1.1) * size[0],
            w.origin[1] + rng.range(-2.0, top),
            w.origin[2] + rng.range(-0.1, 1.1) * size[1],
        ]
    };
    let f = filter(rng);
    let a = point(rng);
    // Half the pairs are near each other, so that paths complete and rays reach their end.
    let b = if rng.below(2) == 0 {
        let r = w.tile_size * rng.range(0.1, 1.5);
        [
            a[0] + rng.range(-r, r),
            a[1] + rng.range(-1.0, 1.0),
            a[2] + rng.range(-r, r),
        ]
    } else {
        point(rng)
    };
    let he = match rng.below(4) {
        0 => [0.0, 0.0, 0.0],
        1 => [
            rng.range(0.0, 1.0),
            rng.range(0.0, 1.0),
            rng.range(0.0, 1.0),
        ],
        2 => [2.0, 4.0, 2.0],
        _ => [
            rng.range(0.0, 9.0),
            rng.range(0.0, 6.0),
            rng.range(0.0, 9.0),
        ],
    };
    let na = q.find_nearest_poly(a, he, &f);
    let nb = q.find_nearest_poly(b, [2.0, 4.0, 2.0], &f);
    let _ = writeln!(out, "N {na:?}\nN {nb:?}");
    n[0] += 2;
    let (sa, sb) = match (na, nb) {
        (Ok(Some(x)), Ok(Some(y))) if rng.below(4) != 0 => ((x.poly, x.point), (y.poly, y.point)),
        _ => {
            let (x, y) = (some_poly(m, rng), some_poly(m, rng));
            let inside = rng.below(2) == 0;
            (
                (
                    x,
                    if inside {
                        centroid(m, x).unwrap_or(a)
                    } else {
                        a
                    },
                ),
                (
                    y,
                    if inside {
                        centroid(m, y).unwrap_or(b)
                    } else {
                        b
                    },
                ),
            )
        }
    };
    let p = q.find_path(sa.0, sb.0, sa.1, sb.1, &f);
    let pi = q.find_path_into(sa.0, sb.0, sa.1, sb.1, &f, &mut buf.corridor);
    match (&p, pi) {
        (Ok(p), Ok(s)) => assert_eq!(
            (&p.corridor, p.status, p.cost),
            (&buf.corridor, s.status, s.cost)
        ),
        (Err(e), Err(f)) => assert_eq!((e, buf.corridor.len()), (&f, 0)),
        (p, pi) => panic!("{p:?} vs {pi:?}"),
    }
    let _ = writeln!(out, "P {p:?}");
    n[1] += 1;
    let corridor = match &p {
        Ok(p) => {
            n[4] += u64::from(p.status == PathStatus::Complete);
            p.corridor.clone()
        }
        Err(_) => vec![sa.0, sb.0],
    };
    for options in [
        StraightPathOptions::default(),
        StraightPathOptions {
            area_crossings: true,
            all_crossings: false,
        },
        StraightPathOptions {
            area_crossings: false,
            all_crossings: true,
        },
    ] {
        let s = q.find_straight_path(sa.1, sb.1, &corridor, options);
        let si = q.find_straight_path_into(sa.1, sb.1, &corridor, options, &mut buf.points);
        match (&s, si) {
            (Ok(s), Ok(())) => assert_eq!(s, &buf.points),
            (Err(e), Err(f)) => assert_eq!((e, buf.points.len()), (&f, 0)),
            (s, si) => panic!("{s:?} vs {si:?}"),
        }
        let _ = writeln!(out, "S {s:?}");
        n[2] += 1;
    }
    if corridor.len() > 2 && rng.below(4) == 0 {
        let mut broken = corridor.clone();
        broken.remove(1 + rng.below(corridor.len() as u64 - 2) as usize);
        let s = q.find_straight_path(sa.1, sb.1, &broken, StraightPathOptions::default());
        let _ = writeln!(out, "S {s:?}");
        n[2] += 1;
    }
    let options = RaycastOptions {
        costs: rng.below(2) == 0,
    };
    let end = if rng.below(3) == 0 { point(rng) } else { sb.1 };
    let r = q.raycast(sa.0, sa.1, end, &f, options);
    let ri = q.raycast_into(sa.0, sa.1, end, &f, options, &mut buf.visited);
    match (&r, ri) {
        (Ok(h), Ok(s)) => assert_eq!(
            (h.t, h.stop, &h.visited, h.cost),
            (s.t, s.stop, &buf.visited, s.cost)
        ),
        (Err(e), Err(f)) => assert_eq!((e, buf.visited.len()), (&f, 0)),
        (r, ri) => panic!("{r:?} vs {ri:?}"),
    }
    if let Ok(h) = &r {
        n[5] += u64::from(h.stop == RaycastStop::Reached);
    }
    let _ = writeln!(out, "R {r:?}");
    n[3] += 1;
}

#[test]
#[ignore = "a before/after tool: run in release, see the module docs"]
fn query_dump() {
    let cases: usize = std::env::var("ONAV_QUERY_DUMP_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(25_000);
    let mut out = String::new();
    let mut counts = [0u64; 8];
    for (i, w) in worlds().iter().enumerate() {
        let mut rng = Rng(0x5eed ^ i as u64);
        let m = mesh(w, &mut rng);
        let mut queries: Vec<NavMeshQuery<'_>> = [1, 3, 8, 64, 2048, 2048, 2048, 2048]
            .iter()
            .map(|&nodes| NavMeshQuery::new(&m, nodes).expect("pool size"))
            .collect();
        let mut buffers = Buffers::default();
        for _ in 0..cases {
            let q = &mut queries[rng.below(8) as usize];
            case(q, w, &mut rng, &mut out, &mut counts, &mut buffers);
        }
    }
    let digest = Sha256::digest(out.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    println!(
        "query dump: {} bytes, sha256 {hex}; nearest {} path {} straight {} raycast {}; complete paths {}, reached rays {}",
        out.len(),
        counts[0],
        counts[1],
        counts[2],
        counts[3],
        counts[4],
        counts[5]
    );
    if let Ok(path) = std::env::var("ONAV_QUERY_DUMP") {
        std::fs::write(&path, &out).expect("write the dump");
    }
}
