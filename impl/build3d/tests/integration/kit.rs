//! Small geometry builders and checks shared by the tests.

use onav::{NavTile, TileContentId};
use onav_build3d::{build, BuiltMesh, Geometry, Settings, SettingsSpec};

/// Settings for small test worlds: 0.5 m cells, 16-cell tiles, detail on.
pub fn small_settings() -> SettingsSpec {
    SettingsSpec {
        cell_size: 0.5,
        cell_height: 0.2,
        agent_height: 2.0,
        agent_radius: 0.5,
        agent_climb: 0.6,
        region_min_area: 4,
        region_merge_area: 40,
        max_edge_len: 8.0,
        detail_sample_dist: 1.5,
        detail_sample_max_error: 0.1,
        tile_size: 16,
        ..SettingsSpec::default()
    }
}

/// A triangle soup: vertices and per-triangle areas.
#[derive(Debug, Clone, Default)]
pub struct Soup {
    pub tris: Vec<([[f64; 3]; 3], u8)>,
}

impl Soup {
    /// A horizontal rectangle [x0, x1] × [z0, z1] at height y, facing up, as two triangles.
    pub fn floor(&mut self, x0: f64, z0: f64, x1: f64, z1: f64, y: f64) -> &mut Self {
        self.tris
            .push(([[x0, y, z0], [x0, y, z1], [x1, y, z0]], 63));
        self.tris
            .push(([[x1, y, z0], [x0, y, z1], [x1, y, z1]], 63));
        self
    }

    /// A ramp rising along +x from y0 at x0 to y1 at x1, over [z0, z1].
    pub fn ramp(&mut self, x0: f64, z0: f64, x1: f64, z1: f64, y0: f64, y1: f64) -> &mut Self {
        self.tris
            .push(([[x0, y0, z0], [x0, y0, z1], [x1, y1, z0]], 63));
        self.tris
            .push(([[x1, y1, z0], [x0, y0, z1], [x1, y1, z1]], 63));
        self
    }

    /// A closed axis-aligned box (an obstacle; its top is walkable if large enough).
    pub fn cuboid(&mut self, lo: [f64; 3], hi: [f64; 3]) -> &mut Self {
        let c = |i: usize| {
            [
                if i & 1 == 0 { lo[0] } else { hi[0] },
                if i & 2 == 0 { lo[1] } else { hi[1] },
                if i & 4 == 0 { lo[2] } else { hi[2] },
            ]
        };
        // Faces as quads of corner indices, each wound outward.
        for q in [
            [0, 4, 6, 2],
            [1, 3, 7, 5],
            [0, 1, 5, 4],
            [2, 6, 7, 3],
            [0, 2, 3, 1],
            [4, 5, 7, 6],
        ] {
            self.tris.push(([c(q[0]), c(q[1]), c(q[2])], 63));
            self.tris.push(([c(q[0]), c(q[2]), c(q[3])], 63));
        }
        self
    }

    /// As arrays (one vertex triple per corner, no sharing).
    pub fn arrays(&self) -> (Vec<f64>, Vec<u32>, Vec<u8>) {
        let mut v = Vec::new();
        let mut idx = Vec::new();
        let mut areas = Vec::new();
        for (t, a) in &self.tris {
            for p in t {
                idx.push((v.len() / 3) as u32);
                v.extend_from_slice(p);
            }
            areas.push(*a);
        }
        (v, idx, areas)
    }

    pub fn geometry(&self) -> Geometry {
        let (v, i, a) = self.arrays();
        Geometry::from_arrays(&v, &i, &a).expect("valid soup")
    }

    /// OBJ text with the triangles split into `objects` objects (round robin), each with its
    /// own vertices, faces written with the given index style.
    pub fn obj(&self, objects: usize, negative: bool) -> String {
        let mut out = String::new();
        let mut count = 0usize;
        for o in 0..objects.max(1) {
            out.push_str(&format!("o part{o}\r\n"));
            for (t, _) in self.tris.iter().skip(o).step_by(objects.max(1)) {
                for p in t {
                    out.push_str(&format!("v {:?} {:?} {:?}\n", p[0], p[1], p[2]));
                }
                count += 3;
                if negative {
                    out.push_str("f -3 -2/1 -1//2\n");
                } else {
                    out.push_str(&format!("f {} {}/1/1 {}//1\n", count - 2, count - 1, count));
                }
            }
        }
        out
    }
}

/// The content ids of a build on a pool of `threads` threads.
pub fn ids_on_threads(g: &Geometry, s: &Settings, threads: usize) -> Vec<TileContentId> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("pool");
    ids(&pool.install(|| build(g, s)).expect("build").tiles)
}

pub fn build_spec(g: &Geometry, spec: SettingsSpec) -> BuiltMesh {
    let s = Settings::new(spec).expect("valid settings");
    build(g, &s).expect("build")
}

pub fn ids(tiles: &[NavTile]) -> Vec<TileContentId> {
    tiles.iter().map(|t| t.content_id()).collect()
}

/// The demo mesh `name` from `scenarios/build3d/meshes/` (the one copy the conformance
/// scenarios use too).
pub fn demo_mesh(name: &str) -> Geometry {
    let path = format!("{}/{name}.obj", demo_dir());
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    Geometry::from_obj(&bytes).expect("demo mesh parses")
}

pub fn demo_dir() -> String {
    format!(
        "{}/../../scenarios/build3d/meshes",
        env!("CARGO_MANIFEST_DIR")
    )
}
