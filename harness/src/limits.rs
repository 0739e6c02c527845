//! Every cap of the harness, in one place, each citing the rule that states it. Scenario files,
//! compiled suites and testee replies are untrusted input (`spec/security.md` §1): every number
//! they feed to the generator or to an allocation is bounded here, and checked before use.
//!
//! The world caps make every world a scenario can state safe for the generator of
//! `spec/navmesh-format.md` §7 as the reference implements it (`onav::generator`, whose integer
//! arithmetic is unchecked u32/i32): no overflow in a debug build, no allocation beyond the tile
//! format's own limits, and a bounded amount of work per tile.

use std::time::Duration;

use onav::limits::{MAX_LAYER, MAX_POLYS, MAX_SLOTS};

/// Largest frame of the testee protocol, either way (`spec/conformance.md` §6.2).
pub const MAX_FRAME: u32 = 64 << 20;

/// Time a testee has to answer one request (`spec/conformance.md` §6.8).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(20);

/// Most threads of one in-process run (`spec/conformance.md` §4.1): `--threads` takes counts of
/// 1 ..= this. Each count is one rayon pool, and a determinism check gains nothing from more
/// threads than a machine has cores; the cap keeps a typo from starting 100 000 threads.
pub const MAX_THREADS: usize = 1024;

/// A testee run gives up after this many cases ended in a timeout (`--give-up-after`,
/// `spec/conformance.md` §6.8): the rest are reported not run. With the default timeout, a testee
/// that keeps hanging costs at most this many times 20 s, not 20 s for every case.
pub const DEFAULT_GIVE_UP_AFTER: u32 = 5;

/// Longest time a `--timeout` or `--run-timeout` may give, in seconds (a day): longer is a typo.
pub const MAX_TIMEOUT_SECONDS: u64 = 24 * 60 * 60;

/// How much of a testee's standard error the runner keeps for failure messages (bytes): a
/// chatty testee cannot grow the runner's memory.
pub const STDERR_TAIL: usize = 2048;

/// The node pool of a query step without `max_nodes` (`spec/conformance.md` §2.1).
pub const DEFAULT_MAX_NODES: u32 = 2048;

/// Most tiles of one world: columns × rows × layers (`spec/conformance.md` §1.12, W1). A world
/// fits one mesh (rule P5, [`MAX_SLOTS`]); the `tiles` step lists one name per tile.
pub const MAX_WORLD_TILES: u32 = MAX_SLOTS;

/// Most layers of a world (W2): a tile's layer is 0 ..= [`MAX_LAYER`] (rule T4).
pub const MAX_WORLD_LAYERS: u32 = MAX_LAYER + 1;

/// Most quads per cell side of a world (W3). With `vary_density` a cell has 2q quads per side and
/// each quad up to 4 detail triangles, so a generated tile has at most 4·(2·255)² = 1 040 400
/// detail triangles, within rule T6's 1 048 575; its vertex and polygon counts stay within T6 too,
/// and the generator's u32 products ((2q + 1)², (2q)²) cannot overflow.
pub const MAX_WORLD_QUADS: u32 = 255;

/// Most off-mesh links per tile of a world (W4): with [`MAX_WORLD_QUADS`], ground polygons plus
/// links stay within rule T6's [`MAX_POLYS`].
pub const MAX_WORLD_LINKS_PER_TILE: u32 = MAX_POLYS - (2 * MAX_WORLD_QUADS) * (2 * MAX_WORLD_QUADS);

/// Most generator work per tile (W5): (1 + links_per_tile) · (2·max(quads, 1) + 1)² vertex
/// computations. The generator computes a cell's surface once for the tile and once more for the
/// landing cell of every link (`spec/navmesh-format.md` §7.5), so this bounds the time one tile
/// takes (about a second at the cap) whatever the two settings.
pub const MAX_GENERATOR_WORK: u64 = 1 << 26;

/// Largest |column| and |row| of a `tile` step (W6): the generator looks one cell beyond a tile
/// for its links' landing cells (§7.5), so a generated tile keeps one cell from the ends of i32.
pub const MAX_TILE_COORDINATE: i32 = i32::MAX - 1;

/// Largest layer of a `tile` step (W6, rule T4).
pub const MAX_TILE_LAYER: u32 = MAX_LAYER;

/// Longest byte string a scenario step may make at run time: a patch's result, or a `bytes`
/// file (`spec/conformance.md` §1.12, R1). Base64 makes 4 characters of 3 bytes, so nothing
/// longer fits a request frame ([`MAX_FRAME`]); patches that splice named bytes into themselves
/// cannot double their way past it.
pub const MAX_SCENARIO_BYTES: usize = MAX_FRAME as usize / 4 * 3;
