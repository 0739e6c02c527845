//! The shared inputs of the fuzz targets and of the tests: a generated world, its tiles, a
//! library, a busy mesh and its snapshots, built once per process.

use std::sync::OnceLock;

use onav::testing::all_links;
use onav::{
    LinkIndex, NavTile, PolyIndex, SnapshotMode, TileLibrary, TileLinks, TiledNavMesh, WorldSpec,
};

/// Shared inputs of every target, built once per process ([`fixture`]).
#[derive(Debug)]
pub struct Fixture {
    /// The generated world ([`fuzz_world`]).
    pub world: WorldSpec,
    /// Every tile of the world, in position order.
    pub tiles: Vec<NavTile>,
    /// Tiles at the same positions with other contents (another seed, same fingerprint) and no
    /// off-mesh links, so that operation sequences mixing both sets reach the mesh's incremental
    /// stitching both with and without off-mesh links around.
    pub alt_tiles: Vec<NavTile>,
    /// A library holding `tiles` and `alt_tiles`.
    pub library: TileLibrary,
    /// [`busy_mesh`] of `tiles`.
    pub busy: TiledNavMesh,
    /// `busy`'s Full snapshot.
    pub busy_full: Vec<u8>,
    /// `busy`'s Referenced snapshot.
    pub busy_referenced: Vec<u8>,
    /// `busy`'s links.
    pub busy_links: Vec<Option<TileLinks>>,
    /// Full and Referenced snapshots of a 16-slot mesh holding every tile of `tiles`.
    pub all_snapshots: [Vec<u8>; 2],
}

impl Fixture {
    /// The pool of tiles operations pick from: `tiles`, then `alt_tiles`.
    pub fn pool(&self) -> Vec<NavTile> {
        self.tiles.iter().chain(&self.alt_tiles).cloned().collect()
    }
}

/// The generated world of the fixtures: 3 × 2 cells, 2 layers, varying density, slopes, bumps,
/// holes, two links per tile, three areas.
pub fn fuzz_world() -> WorldSpec {
    WorldSpec {
        columns: 3,
        rows: 2,
        layers: 2,
        quads: 2,
        vary_density: true,
        slope: [0.02, 0.01],
        bump: 0.2,
        hole_chance: 20,
        links_per_tile: 2,
        area_kinds: 3,
        ..WorldSpec::default()
    }
}

/// A mesh of 16 slots holding `tiles` (at least five, two of them with links), with holes in its
/// slots, generations above 1, edits and switched-off links.
///
/// # Panics
///
/// If `tiles` cannot make such a mesh (a fixture bug).
pub fn busy_mesh(w: &WorldSpec, tiles: &[NavTile]) -> TiledNavMesh {
    let mut m = TiledNavMesh::new(w.params(16));
    let refs: Vec<_> = tiles
        .iter()
        .map(|t| m.add_tile(t.clone()).expect("fixture add"))
        .collect();
    m.remove_tile(refs[1]).expect("fixture remove");
    m.remove_tile(refs[4]).expect("fixture remove");
    m.add_tile(tiles[4].clone()).expect("fixture add");
    m.replace_tile(tiles[0].clone()).expect("fixture replace");
    let (r0, _) = m.tile_at(tiles[2].pos()).expect("fixture tile");
    m.set_poly_area(r0.poly(PolyIndex(0)), 17).expect("edit");
    m.set_poly_flags(r0.poly(PolyIndex(1)), 0xbeef)
        .expect("edit");
    m.set_poly_area(r0.poly(PolyIndex(2)), 5).expect("edit");
    let with_links: Vec<_> = m
        .tiles()
        .filter(|(_, t)| t.link_count() > 0)
        .map(|(r, _)| r)
        .collect();
    m.set_off_mesh_link_enabled(with_links[0], LinkIndex(0), false)
        .expect("switch");
    let last = m.tile(with_links[1]).expect("tile").link_count() - 1;
    m.set_off_mesh_link_enabled(with_links[1], LinkIndex(last), false)
        .expect("switch");
    m
}

/// The shared fixtures, built on first use.
pub fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let world = fuzz_world();
        let tiles = world.tiles();
        let alt_tiles = WorldSpec {
            seed: 2,
            links_per_tile: 0,
            ..world.clone()
        }
        .tiles();
        let library = TileLibrary::from_tiles(tiles.iter().chain(&alt_tiles));
        let busy = busy_mesh(&world, &tiles);
        let mut all = TiledNavMesh::new(world.params(16));
        for t in &tiles {
            all.add_tile(t.clone()).expect("fixture add");
        }
        Fixture {
            all_snapshots: [
                all.snapshot(SnapshotMode::Full),
                all.snapshot(SnapshotMode::Referenced),
            ],
            busy_full: busy.snapshot(SnapshotMode::Full),
            busy_referenced: busy.snapshot(SnapshotMode::Referenced),
            busy_links: all_links(&busy),
            world,
            tiles,
            alt_tiles,
            library,
            busy,
        }
    })
}
