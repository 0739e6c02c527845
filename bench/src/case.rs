//! One demo mesh made ready for every comparison: the OBJ read, built with Recast, loaded into a
//! `dtNavMesh`, converted to onav tiles (with the stage-by-stage acceptance table and the link
//! graph check of `shared/research/detour-vs-onav.md`), and the 1000 points and pairs drawn.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::adapter::{self, Ref};
use crate::convert::{self, GridSpec, Repairs, Steps};
use crate::detour::{self, NavMesh};
use crate::obj::{self, TriMesh};
use crate::recast::{self, Build, Context};
use crate::rng::{self, SplitMix64};

/// Half extents of every nearest-polygon query.
pub const EXTENTS: [f32; 3] = [2.0, 4.0, 2.0];
/// Points and pairs per mesh.
pub const POINTS: usize = 1000;
/// Node pool size of both engines.
pub const NODES: u32 = 2048;

/// Acceptance by onav's reader after the first `n` conversion steps.
#[derive(Debug, Clone, Default)]
pub struct Stage {
    /// Tiles accepted.
    pub accepted: usize,
    /// Tiles produced.
    pub total: usize,
    /// First error reported, by rule, for the rejected tiles.
    pub errors: BTreeMap<String, usize>,
}

/// Link counts: Detour's, onav's, and how many are in both (mapped through the conversion).
#[derive(Debug, Clone, Copy, Default)]
pub struct LinkCheck {
    /// Detour external links.
    pub detour_ext: usize,
    /// onav portal links.
    pub onav_ext: usize,
    /// In both.
    pub both_ext: usize,
    /// Detour internal links.
    pub detour_int: usize,
    /// onav internal links.
    pub onav_int: usize,
    /// In both.
    pub both_int: usize,
    /// onav's incremental links equal a stitch from scratch.
    pub incremental_ok: bool,
}

/// A prepared mesh.
pub struct Case {
    /// File stem (dungeon, nav_test, undulating).
    pub name: String,
    /// The triangles.
    pub tri: TriMesh,
    /// The Recast build (its blobs are the tiles every comparison uses).
    pub build: Build,
    /// Detour's mesh of the blobs, for queries and tile state.
    pub detour: NavMesh,
    /// Acceptance after 0, 1, 2, 3 and 4 steps.
    pub stages: Vec<Stage>,
    /// What the repairs did (all four steps).
    pub repairs: Repairs,
    /// onav's tiles.
    pub tiles: adapter::Tiles,
    /// onav's mesh of them (incremental `add_tile`).
    pub onav: adapter::Mesh,
    /// Detour polygon reference → onav reference.
    pub map: BTreeMap<detour::PolyRef, Ref>,
    /// The link graph check.
    pub links: LinkCheck,
    /// The query points.
    pub points: Vec<[f32; 3]>,
    /// Detour's nearest polygon and point per query point.
    pub detour_nearest: Vec<Option<(detour::PolyRef, [f32; 3])>>,
    /// The pairs, as indices into `points`.
    pub pairs: Vec<(usize, usize)>,
}

/// Reads `dir/name.obj` (an input error: the caller exits with 2).
pub fn read(dir: &Path, name: &str) -> Result<TriMesh, String> {
    let path = dir.join(format!("{name}.obj"));
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    obj::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Prepares mesh `name` from its triangles.
pub fn prepare(ctx: &Context, name: &str, tri: TriMesh) -> Result<Case, String> {
    let build = recast::build(ctx, &tri, &recast::DEMO);
    if build.blobs.is_empty() {
        return Err(format!("{name}: Recast built no tiles"));
    }
    let detour = NavMesh::new(&build.params, build.blobs.clone())?;
    let grid = GridSpec {
        origin: build.params.orig.map(f64::from),
        size: f64::from(build.params.tileWidth),
    };

    let dtiles = detour.tiles();
    if let Some(t) = dtiles.iter().find(|t| t.off_mesh_count() != 0) {
        return Err(format!(
            "{name}: tile {:?} has off-mesh connections, which the conversion does not handle",
            t.xy()
        ));
    }
    let mut stages = Vec::new();
    let mut last = Vec::new();
    let mut repairs = Repairs::default();
    for n in 0..=4 {
        let conv: Vec<_> = dtiles
            .iter()
            .map(|t| convert::convert(t, &grid, Steps::first(n)))
            .collect();
        let plain: Vec<_> = conv.iter().flat_map(|c| c.tiles.iter().cloned()).collect();
        let params = adapter::params(&grid, plain.len() as u32)?;
        let mut st = Stage {
            total: plain.len(),
            ..Stage::default()
        };
        for t in &plain {
            match adapter::check(&adapter::encode(t, &params)) {
                Ok(()) => st.accepted += 1,
                Err(rule) => *st.errors.entry(rule).or_default() += 1,
            }
        }
        stages.push(st);
        if n == 4 {
            repairs = Repairs::default();
            conv.iter().for_each(|c| repairs.add(&c.repairs));
            last = conv;
        }
    }
    let plain: Vec<_> = last.iter().flat_map(|c| c.tiles.iter().cloned()).collect();
    let tiles = adapter::tiles(&grid, &plain)?;
    let onav = adapter::parse_and_add(&tiles.params, &tiles.bytes)?;

    let mut map = BTreeMap::new();
    for (t, c) in dtiles.iter().zip(&last) {
        let (x, y) = t.xy();
        for (i, &(layer, j)) in c.poly_map.iter().enumerate() {
            let r = onav
                .poly_ref(x, y, layer, j)
                .ok_or_else(|| format!("{name}: no onav tile at ({x}, {y}, {layer})"))?;
            map.insert(t.base() | i as u32, r);
        }
    }
    let links = check_links(&dtiles, &onav, &map);
    drop(dtiles);

    let mut rng = SplitMix64::new(rng::SEED);
    let points = rng::points(&mut rng, build.bmin, build.bmax, POINTS);
    let q = detour::Query::new(&detour, NODES as i32)?;
    let detour_nearest: Vec<_> = points.iter().map(|p| q.nearest(p, &EXTENTS)).collect();
    drop(q);
    let found: Vec<usize> = (0..POINTS)
        .filter(|&i| detour_nearest[i].is_some())
        .collect();
    let pairs = rng::pairs(&mut rng, &found, POINTS);
    Ok(Case {
        name: name.to_string(),
        tri,
        build,
        detour,
        stages,
        repairs,
        tiles,
        onav,
        map,
        links,
        points,
        detour_nearest,
        pairs,
    })
}

fn check_links(
    dtiles: &[detour::Tile<'_>],
    onav: &adapter::Mesh,
    map: &BTreeMap<detour::PolyRef, Ref>,
) -> LinkCheck {
    let mut edges = Vec::new();
    dtiles.iter().for_each(|t| t.links(&mut edges));
    let dset: BTreeSet<(Ref, Ref, bool)> = edges
        .iter()
        .filter_map(|e| Some((*map.get(&e.from)?, *map.get(&e.to)?, e.external)))
        .collect();
    let oset: BTreeSet<(Ref, Ref, bool)> = onav.links().into_iter().collect();
    let count = |s: &BTreeSet<(Ref, Ref, bool)>, ext: bool| s.iter().filter(|e| e.2 == ext).count();
    let both: BTreeSet<_> = dset.intersection(&oset).copied().collect();
    LinkCheck {
        detour_ext: edges.iter().filter(|e| e.external).count(),
        onav_ext: count(&oset, true),
        both_ext: count(&both, true),
        detour_int: edges.iter().filter(|e| !e.external).count(),
        onav_int: count(&oset, false),
        both_int: count(&both, false),
        incremental_ok: onav.links_match_scratch(),
    }
}

impl Case {
    /// Number of onav tiles.
    pub fn onav_tiles(&self) -> usize {
        self.tiles.bytes.len()
    }

    /// A point as f64.
    pub fn point64(p: &[f32; 3]) -> [f64; 3] {
        p.map(f64::from)
    }
}
