#![doc(hidden)]
//! Fuzzing entry points (DESIGN §11, `spec/security.md`). Each `fuzz_*` function takes arbitrary
//! bytes, runs one parser or one operation sequence, and asserts the invariants that hold for
//! every input: it panics exactly when it finds a bug. The cargo-fuzz targets in `fuzz/` are
//! one-line wrappers around these functions, and `impl/onav/tests/integration/fuzz_replay.rs` replays every seed
//! and regression file through them on stable Rust, so a crash found once stays tested.
//!
//! The fixtures (a generated world, its tile library, a busy mesh and its snapshots) are built
//! once per process and shared ([`fixture`]).
//!
//! Invariants checked:
//! - every rejection is an error (never a panic) whose byte offset lies within the input and
//!   whose field path is not empty;
//! - every accepted input is canonical: writing the accepted state back gives the input bytes
//!   (a tile through its as-built bytes and through [`RawTile`]; a snapshot in the same mix of
//!   Full and Referenced slot records it was read with; a mesh file through `write_mesh`);
//! - the links of an accepted mesh equal a from-scratch stitch (history independence, and the
//!   link reuse of in-place restore);
//! - a failed in-place restore leaves the mesh byte-identical (Full snapshot and every link);
//! - in-place restore accepts exactly what restore into a new mesh accepts when the parameters
//!   match, and yields the same state;
//! - Full and Referenced snapshots of any reachable state restore to identical states that
//!   snapshot back to identical bytes.

use std::sync::OnceLock;

use sha2::{Digest, Sha256};

use crate::generator::WorldSpec;
use crate::ids::{PolyIndex, PolyRef, SlotIndex, TilePos, TileRef};
use crate::limits::MAX_GENERATION;
use crate::stitch::TileLinks;
use crate::tile::{NavTile, RawTile};
use crate::{
    read_mesh, write_mesh, NavMeshSnapshot, RestoreError, SnapshotMode, TileLibrary, TiledNavMesh,
};

/// Offset of the section count in a snapshot.
const SECTION_COUNT_AT: usize = 76;
/// Offset of the first section's body length in a snapshot with one section.
const SECTION_LEN_AT: usize = 84;
/// Offset of the slot count in a snapshot with one section.
const SLOT_COUNT_AT: usize = 88;
/// Offset of the first slot record in a snapshot with one section.
const FIRST_SLOT_AT: usize = 92;

/// Shared inputs of every target, built once per process.
#[derive(Debug)]
pub struct Fixture {
    /// The generated world (3 × 2 cells, 2 layers, holes, links, areas).
    pub world: WorldSpec,
    /// Every tile of the world, in position order.
    pub tiles: Vec<NavTile>,
    /// Tiles at the same positions with other contents (another seed, same fingerprint).
    pub alt_tiles: Vec<NavTile>,
    /// A library holding `tiles` and `alt_tiles`.
    pub library: TileLibrary,
    /// A mesh of 16 slots with free slots, generations above 1, edits and disabled links.
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

/// The generated world the fixtures use.
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

/// A mesh with holes in its slots, generations above 1, edits and switched-off links (also the
/// unit tests' busy mesh).
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
    m.set_off_mesh_link_enabled(with_links[0], crate::ids::LinkIndex(0), false)
        .expect("switch");
    let last = m.tile(with_links[1]).expect("tile").link_count() - 1;
    m.set_off_mesh_link_enabled(with_links[1], crate::ids::LinkIndex(last), false)
        .expect("switch");
    m
}

/// The shared fixtures.
pub fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let world = fuzz_world();
        let tiles = world.tiles();
        let alt_tiles = WorldSpec {
            seed: 2,
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
            busy_links: busy.all_links(),
            world,
            tiles,
            alt_tiles,
            library,
            busy,
        }
    })
}

/// A fuzz entry point: arbitrary bytes in, a panic on a finding.
pub type EntryPoint = fn(&[u8]);

/// Every fuzz target by name, with its entry point. The names are the folder names under
/// `fuzz/seeds/`, `fuzz/regressions/` and `fuzz/fuzz_targets/`.
pub const TARGETS: &[(&str, EntryPoint)] = &[
    ("tile_parse", fuzz_tile_parse),
    ("restore_new", fuzz_restore_new),
    ("restore_in_place", fuzz_restore_in_place),
    ("read_mesh", fuzz_read_mesh),
    ("snapshot_structured", fuzz_snapshot_structured),
    ("differential", fuzz_differential),
];

// ---------------------------------------------------------------------------------------------
// Checks shared by the targets.

/// A rejection must name a field and point inside (or just past the end of) the input.
fn check_error(e: &RestoreError, len: usize) {
    assert!(!e.field().is_empty(), "error without a field path: {e:?}");
    if let Some(off) = e.offset() {
        assert!(
            off <= len as u64,
            "error offset {off} past input of {len}: {e:?}"
        );
    }
}

/// The slot records of a snapshot that was accepted: (start, end, kind) of each. `None` when the
/// bytes do not have the one-section layout (never the case for an accepted snapshot).
pub fn slot_records(b: &[u8]) -> Option<Vec<(usize, usize, u8)>> {
    let u32_at = |at: usize| -> Option<usize> {
        Some(u32::from_le_bytes(b.get(at..at.checked_add(4)?)?.try_into().ok()?) as usize)
    };
    if u32_at(SECTION_COUNT_AT)? != 1 {
        return None;
    }
    let n = u32_at(SLOT_COUNT_AT)?;
    let mut at = FIRST_SLOT_AT;
    let mut out = Vec::new();
    for _ in 0..n {
        let start = at;
        let kind = *b.get(at + 4)?;
        at += 5;
        if kind != 0 {
            let tile = if kind == 1 {
                u32_at(at)?.checked_add(4)?
            } else {
                32
            };
            at = at.checked_add(tile)?;
            at = at.checked_add(u32_at(at)?.checked_mul(7)?.checked_add(4)?)?;
            at = at.checked_add(u32_at(at)?.checked_mul(4)?.checked_add(4)?)?;
        }
        if at > b.len() {
            return None;
        }
        out.push((start, at, kind));
    }
    Some(out)
}

/// The canonical snapshot of `m` with slot `i` written inline when `inline[i]`, referenced
/// otherwise: the Full snapshot, the Referenced one, or a splice of the two (a mixture).
pub fn snapshot_mixed(m: &TiledNavMesh, inline: &[bool]) -> Vec<u8> {
    if inline.iter().all(|&x| x) {
        return m.snapshot(SnapshotMode::Full);
    }
    if !inline.iter().any(|&x| x) {
        return m.snapshot(SnapshotMode::Referenced);
    }
    let r = m.snapshot(SnapshotMode::Referenced);
    let f = m.snapshot(SnapshotMode::Full);
    let (lr, lf) = (
        slot_records(&r).expect("canonical layout"),
        slot_records(&f).expect("canonical layout"),
    );
    let mut out = r[..FIRST_SLOT_AT].to_vec();
    for (i, (rr, fr)) in lr.iter().zip(&lf).enumerate() {
        let src = if inline.get(i).copied().unwrap_or(false) {
            &f[fr.0..fr.1]
        } else {
            &r[rr.0..rr.1]
        };
        out.extend_from_slice(src);
    }
    let body = (out.len() - SLOT_COUNT_AT) as u32;
    out[SECTION_LEN_AT..SLOT_COUNT_AT].copy_from_slice(&body.to_le_bytes());
    out
}

/// What every accepted snapshot must satisfy: it is the canonical encoding of the state it
/// restored to (in its own mix of modes), and the restored links equal a from-scratch stitch.
fn check_accepted_snapshot(m: &TiledNavMesh, data: &[u8]) {
    let recs = slot_records(data).expect("an accepted snapshot has the one-section layout");
    let inline: Vec<bool> = recs.iter().map(|r| r.2 == 1).collect();
    let again = snapshot_mixed(m, &inline);
    assert!(again == data, "accepted snapshot is not canonical");
    assert!(
        m.all_links() == m.stitch_from_scratch(),
        "restored links differ from a from-scratch stitch"
    );
}

// ---------------------------------------------------------------------------------------------
// Targets over raw bytes.

/// Target `tile_parse`: [`NavTile::from_bytes`]. An accepted tile writes back to the input (its
/// as-built bytes, `to_bytes`, and [`RawTile`] re-encoding its parsed fields), and its content id
/// is the SHA-256 of the input.
pub fn fuzz_tile_parse(data: &[u8]) {
    match NavTile::from_bytes(data) {
        Ok(t) => {
            assert!(t.as_built_bytes() == data, "as-built bytes differ");
            assert!(t.to_bytes() == data, "to_bytes differs from the input");
            assert!(
                RawTile::from_tile(&t).to_bytes() == data,
                "re-encoded fields differ from the input (non-canonical tile accepted)"
            );
            let id: [u8; 32] = Sha256::digest(data).into();
            assert_eq!(
                t.content_id().0,
                id,
                "content id is not SHA-256 of the input"
            );
            assert_eq!(t.poly_count(), t.ground_poly_count() + t.link_count());
            check_orientations(&t);
        }
        Err(e) => check_error(&e.into(), data.len()),
    }
}

/// Rules T12 and T17 recomputed on an accepted tile: every polygon turns strictly left at each
/// vertex and every detail triangle is counter-clockwise, each orientation provably positive
/// (not NaN).
fn check_orientations(t: &NavTile) {
    use crate::geom::orient;
    for (i, p) in t.ground_polys().iter().enumerate() {
        let v: Vec<_> = p
            .verts()
            .iter()
            .map(|&k| t.vertices()[k as usize])
            .collect();
        let n = v.len();
        for k in 0..n {
            let o = orient(&v[k], &v[(k + 1) % n], &v[(k + 2) % n]);
            assert!(
                o > 0.0,
                "accepted polygon {i} has orientation {o} at vertex {k}"
            );
        }
        let d = t.detail_meshes()[i];
        for tri in d.triangle_base..d.triangle_base + d.triangle_count {
            let Some([a, b, c]) = t.detail_triangle(PolyIndex(i as u32), tri) else {
                panic!("detail triangle {tri} of polygon {i} is not its own");
            };
            let o = orient(&a, &b, &c);
            assert!(
                o > 0.0,
                "accepted detail triangle {tri} has orientation {o}"
            );
        }
    }
}

/// Target `restore_new`: [`NavMeshSnapshot::restore`] with the fixture library. An accepted
/// snapshot is canonical and its links equal a from-scratch stitch.
pub fn fuzz_restore_new(data: &[u8]) {
    let fx = fixture();
    match NavMeshSnapshot::restore(data, &fx.library) {
        Ok(m) => check_accepted_snapshot(&m, data),
        Err(e) => check_error(&e, data.len()),
    }
}

/// Target `restore_in_place`: [`TiledNavMesh::restore`] into a copy of the busy mesh. A failure
/// leaves the mesh byte-identical (Full snapshot and links); a success is canonical, reuses links
/// correctly, and agrees with restore into a new mesh. In-place accepts exactly what a new-mesh
/// restore accepts with bitwise-equal parameters.
pub fn fuzz_restore_in_place(data: &[u8]) {
    let fx = fixture();
    restore_in_place_into(&fx.busy, &fx.busy_full, &fx.busy_links, data, &fx.library);
}

/// The `restore_in_place` checks against any base mesh, given its Full snapshot and links.
pub fn restore_in_place_into(
    base: &TiledNavMesh,
    base_full: &[u8],
    base_links: &[Option<TileLinks>],
    data: &[u8],
    lib: &TileLibrary,
) {
    let mut m = base.clone();
    let fresh = NavMeshSnapshot::restore(data, lib);
    match m.restore(data, lib) {
        Err(e) => {
            check_error(&e, data.len());
            assert!(
                m.snapshot(SnapshotMode::Full) == base_full,
                "failed in-place restore changed the mesh's snapshot"
            );
            assert!(
                m.all_links() == base_links,
                "failed in-place restore changed the mesh's links"
            );
            if let Ok(f) = fresh {
                assert!(
                    !f.params().bits_eq(base.params()),
                    "in-place rejected what a new-mesh restore accepts with equal parameters: {e:?}"
                );
            }
        }
        Ok(()) => {
            check_accepted_snapshot(&m, data);
            let f = fresh.expect("in-place accepted what a new-mesh restore rejects");
            assert!(f.params().bits_eq(m.params()));
            assert!(
                f.snapshot(SnapshotMode::Full) == m.snapshot(SnapshotMode::Full),
                "in-place and new-mesh restores differ"
            );
            assert!(
                f.all_links() == m.all_links(),
                "in-place and new-mesh links differ"
            );
        }
    }
}

/// Target `read_mesh`: [`read_mesh`]. An accepted mesh file writes back to the input, and the
/// mesh's links equal a from-scratch stitch.
pub fn fuzz_read_mesh(data: &[u8]) {
    match read_mesh(data) {
        Ok(m) => {
            assert!(
                write_mesh(&m) == data,
                "accepted mesh file is not canonical"
            );
            assert!(m.all_links() == m.stitch_from_scratch(), "links differ");
        }
        Err(e) => check_error(&e, data.len()),
    }
}

// ---------------------------------------------------------------------------------------------
// Byte cursor for the structure-aware targets.

/// Reads decisions from fuzz input; past the end every read is 0 and `done` is true.
struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn new(data: &'a [u8]) -> Self {
        Self { data, pos: 0 }
    }
    fn done(&self) -> bool {
        self.pos >= self.data.len()
    }
    fn u8(&mut self) -> u8 {
        let v = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        v
    }
    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }
    fn u64(&mut self) -> u64 {
        u64::from(self.u32()) | u64::from(self.u32()) << 32
    }
    fn bool(&mut self) -> bool {
        self.u8() & 1 == 1
    }
    /// An index below `n` (0 when `n` is 0).
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            usize::from(self.u16()) % n
        }
    }
    /// A u32 near the interesting boundaries of `around` (a count or an index limit).
    fn near(&mut self, around: u32) -> u32 {
        match self.u8() % 8 {
            0 => around,
            1 => around.wrapping_add(1),
            2 => around.wrapping_sub(1),
            3 => 0,
            4 => u32::MAX,
            5 => u32::from(self.u8()),
            6 => MAX_GENERATION
                .wrapping_add(u32::from(self.u8() % 3))
                .wrapping_sub(1),
            _ => self.u32(),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Target `snapshot_structured`: a model of a snapshot, mutated field by field, then encoded.

/// One slot record of the model.
#[derive(Debug, Clone)]
struct SlotModel {
    generation: u32,
    kind: u8,
    /// Inline tile bytes (kind 1) or the 32-byte content id (kind 2); empty for other kinds.
    tile: Vec<u8>,
    /// Written instead of the tile's length, when set.
    tile_len: Option<u32>,
    edits: Vec<(u32, u8, u16)>,
    edit_count: Option<u32>,
    disabled: Vec<u32>,
    disabled_count: Option<u32>,
}

/// A snapshot as fields, with optional overrides of every derived length.
#[derive(Debug, Clone)]
struct SnapModel {
    header: Vec<u8>,
    section_count: Option<u32>,
    section_id: u16,
    section_reserved: u16,
    section_len_delta: i32,
    slot_count: Option<u32>,
    slots: Vec<SlotModel>,
    trailing: Vec<u8>,
    truncate: usize,
}

impl SnapModel {
    /// The model of a valid canonical snapshot.
    fn of(b: &[u8]) -> Self {
        let recs = slot_records(b).expect("fixture snapshot layout");
        let u32_at = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"));
        let slots = recs
            .iter()
            .map(|&(start, _, kind)| {
                let mut at = start + 5;
                let tile = match kind {
                    1 => {
                        let n = u32_at(at) as usize;
                        at += 4 + n;
                        b[at - n..at].to_vec()
                    }
                    2 => {
                        at += 32;
                        b[at - 32..at].to_vec()
                    }
                    _ => Vec::new(),
                };
                let (mut edits, mut disabled) = (Vec::new(), Vec::new());
                if kind != 0 {
                    let e = u32_at(at);
                    at += 4;
                    for _ in 0..e {
                        let flags = u16::from_le_bytes([b[at + 5], b[at + 6]]);
                        edits.push((u32_at(at), b[at + 4], flags));
                        at += 7;
                    }
                    let d = u32_at(at);
                    at += 4;
                    for _ in 0..d {
                        disabled.push(u32_at(at));
                        at += 4;
                    }
                }
                SlotModel {
                    generation: u32_at(start),
                    kind,
                    tile,
                    tile_len: None,
                    edits,
                    edit_count: None,
                    disabled,
                    disabled_count: None,
                }
            })
            .collect();
        Self {
            header: b[..SECTION_COUNT_AT].to_vec(),
            section_count: None,
            section_id: 1,
            section_reserved: 0,
            section_len_delta: 0,
            slot_count: None,
            slots,
            trailing: Vec::new(),
            truncate: 0,
        }
    }

    fn encode(&self) -> Vec<u8> {
        let mut body = Vec::new();
        let count = self.slot_count.unwrap_or(self.slots.len() as u32);
        body.extend_from_slice(&count.to_le_bytes());
        for s in &self.slots {
            body.extend_from_slice(&s.generation.to_le_bytes());
            body.push(s.kind);
            match s.kind {
                0 => continue,
                1 => {
                    let n = s.tile_len.unwrap_or(s.tile.len() as u32);
                    body.extend_from_slice(&n.to_le_bytes());
                    body.extend_from_slice(&s.tile);
                }
                2 => body.extend_from_slice(&s.tile),
                // An unknown kind: write what a kind-1 record would hold, for the reader to refuse.
                _ => body.extend_from_slice(&s.tile),
            }
            let e = s.edit_count.unwrap_or(s.edits.len() as u32);
            body.extend_from_slice(&e.to_le_bytes());
            for &(p, a, f) in &s.edits {
                body.extend_from_slice(&p.to_le_bytes());
                body.push(a);
                body.extend_from_slice(&f.to_le_bytes());
            }
            let d = s.disabled_count.unwrap_or(s.disabled.len() as u32);
            body.extend_from_slice(&d.to_le_bytes());
            for l in &s.disabled {
                body.extend_from_slice(&l.to_le_bytes());
            }
        }
        let mut out = self.header.clone();
        out.extend_from_slice(&self.section_count.unwrap_or(1).to_le_bytes());
        out.extend_from_slice(&self.section_id.to_le_bytes());
        out.extend_from_slice(&self.section_reserved.to_le_bytes());
        let len = (body.len() as i64 + i64::from(self.section_len_delta)) as u32;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&body);
        out.extend_from_slice(&self.trailing);
        out.truncate(out.len().saturating_sub(self.truncate));
        out
    }
}

/// Interesting f64 values for parameter and tile fields.
const FLOATS: [f64; 10] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    16.0,
    1e308,
    -1e308,
    f64::MIN_POSITIVE,
    f64::NAN,
    f64::INFINITY,
];

/// Tile header fields worth poking: (offset, size) of grid, digest, position, agent, counts.
const TILE_FIELDS: [(usize, usize); 15] = [
    (0, 4),
    (4, 2),
    (6, 2),
    (8, 8),
    (32, 8),
    (40, 8),
    (72, 4),
    (76, 4),
    (80, 4),
    (84, 8),
    (100, 8),
    (108, 4),
    (112, 4),
    (116, 4),
    (120, 4),
];

fn poke(bytes: &mut [u8], at: usize, size: usize, c: &mut Cursor<'_>) {
    if at + size > bytes.len() {
        return;
    }
    match (size, c.u8() % 4) {
        (8, 0) => {
            let f = FLOATS[c.below(FLOATS.len())];
            bytes[at..at + 8].copy_from_slice(&f.to_le_bytes());
        }
        (4, 0) => {
            let v = c.near(u32::from_le_bytes(
                bytes[at..at + 4].try_into().expect("4 bytes"),
            ));
            bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
        }
        (_, 1) => bytes[at] ^= 1 << (c.u8() % 8),
        _ => {
            for b in &mut bytes[at..at + size] {
                *b = c.u8();
            }
        }
    }
}

/// One field-aware mutation of the model.
fn mutate(m: &mut SnapModel, c: &mut Cursor<'_>, lib: &[&NavTile]) {
    let n = m.slots.len();
    let i = c.below(n);
    match c.u8() % 19 {
        0 => {
            if let Some(s) = m.slots.get_mut(i) {
                s.generation = c.near(s.generation);
            }
        }
        1 => {
            // Change a slot's kind, converting its tile entry where the conversion is defined.
            let Some(s) = m.slots.get_mut(i) else { return };
            let to = match c.u8() % 5 {
                k @ 0..=2 => k,
                _ => c.u8(),
            };
            match (s.kind, to) {
                (1, 2) => s.tile = Sha256::digest(&s.tile).to_vec(),
                (2, 1) => {
                    let id = crate::TileContentId(s.tile[..].try_into().unwrap_or([0; 32]));
                    let found = lib.iter().find(|t| t.content_id() == id);
                    s.tile = found.map_or_else(Vec::new, |t| t.as_built_bytes().to_vec());
                }
                (_, 0) => {
                    s.tile.clear();
                    s.edits.clear();
                    s.disabled.clear();
                }
                _ => {}
            }
            s.kind = to;
        }
        2 => {
            // Put a library tile into a slot (duplicate positions, fills free slots).
            let Some(s) = m.slots.get_mut(i) else { return };
            let t = lib[c.below(lib.len())];
            if c.bool() {
                s.kind = 1;
                s.tile = t.as_built_bytes().to_vec();
            } else {
                s.kind = 2;
                s.tile = t.content_id().0.to_vec();
            }
            if c.bool() {
                s.edits.clear();
                s.disabled.clear();
            }
        }
        3 => {
            // Add an edit, in order or not.
            let Some(s) = m.slots.get_mut(i) else { return };
            let poly = match c.u8() % 4 {
                0 => u32::from(c.u8() % 24),
                1 => s.edits.last().map_or(0, |e| e.0.wrapping_add(1)),
                _ => c.near(s.edits.len() as u32),
            };
            let area = if c.bool() { c.u8() % 64 } else { c.u8() };
            let e = (poly, area, c.u16());
            if c.bool() {
                let at = s.edits.partition_point(|x| x.0 < poly);
                s.edits.insert(at, e);
            } else {
                s.edits.push(e);
            }
        }
        4 => {
            let Some(s) = m.slots.get_mut(i) else { return };
            if !s.edits.is_empty() {
                let j = c.below(s.edits.len());
                s.edits.remove(j);
            }
        }
        5 => {
            let Some(s) = m.slots.get_mut(i) else { return };
            if s.edits.is_empty() {
                return;
            }
            let j = c.below(s.edits.len());
            let e = &mut s.edits[j];
            match c.u8() % 3 {
                0 => e.0 = c.near(e.0),
                1 => e.1 = c.u8(),
                _ => e.2 = c.u16(),
            }
        }
        6 => {
            let Some(s) = m.slots.get_mut(i) else { return };
            let l = if c.bool() {
                u32::from(c.u8() % 8)
            } else {
                c.near(0)
            };
            if c.bool() {
                let at = s.disabled.partition_point(|&x| x < l);
                s.disabled.insert(at, l);
            } else {
                s.disabled.push(l);
            }
        }
        7 => {
            let Some(s) = m.slots.get_mut(i) else { return };
            if !s.disabled.is_empty() {
                let j = c.below(s.disabled.len());
                s.disabled.remove(j);
            }
        }
        8 => {
            let Some(s) = m.slots.get_mut(i) else { return };
            match c.u8() % 3 {
                0 => s.edit_count = Some(c.near(s.edits.len() as u32)),
                1 => s.disabled_count = Some(c.near(s.disabled.len() as u32)),
                _ => s.tile_len = Some(c.near(s.tile.len() as u32)),
            }
        }
        9 => match c.u8() % 5 {
            0 => m.slot_count = Some(c.near(n as u32)),
            1 => m.section_count = Some(c.near(1)),
            2 => m.section_id = c.u16() % 4,
            3 => m.section_reserved = c.u16(),
            _ => m.section_len_delta = i32::from(c.u8() as i8),
        },
        10 => {
            // A parameter field: version, flags, origin, tile size, slot count, digest.
            let fields = [
                (4, 2),
                (6, 2),
                (8, 8),
                (16, 8),
                (24, 8),
                (32, 8),
                (40, 4),
                (44, 8),
            ];
            let (at, size) = fields[c.below(fields.len())];
            poke(&mut m.header, at, size, c);
        }
        11 => {
            // A tile header field of an inline tile, or a byte anywhere in it.
            let Some(s) = m.slots.get_mut(i) else { return };
            if s.kind != 1 || s.tile.is_empty() {
                return;
            }
            if c.bool() {
                let (at, size) = TILE_FIELDS[c.below(TILE_FIELDS.len())];
                poke(&mut s.tile, at, size, c);
            } else {
                let at = c.below(s.tile.len());
                poke(&mut s.tile, at, 1, c);
            }
        }
        12 => {
            let Some(s) = m.slots.get_mut(i) else { return };
            let k = c.below(s.tile.len() + 1);
            s.tile.truncate(k);
        }
        13 => {
            // Structural: swap, duplicate, remove or insert slot records.
            if n == 0 {
                return;
            }
            let j = c.below(n);
            match c.u8() % 4 {
                0 => m.slots.swap(i, j),
                1 => m.slots[j] = m.slots[i].clone(),
                2 => {
                    m.slots.remove(i);
                }
                _ => m.slots.insert(
                    i,
                    SlotModel {
                        generation: 1,
                        kind: 0,
                        tile: Vec::new(),
                        tile_len: None,
                        edits: Vec::new(),
                        edit_count: None,
                        disabled: Vec::new(),
                        disabled_count: None,
                    },
                ),
            }
        }
        14 => {
            let k = usize::from(c.u8() % 8) + 1;
            for _ in 0..k {
                let b = c.u8();
                m.trailing.push(b);
            }
        }
        15 => m.truncate = usize::from(c.u16()),
        16 => {
            // A content id byte.
            let Some(s) = m.slots.get_mut(i) else { return };
            if s.kind == 2 && s.tile.len() == 32 {
                let k = c.below(32);
                s.tile[k] ^= c.u8() | 1;
            }
        }
        17 => {
            // Bulk: ascending edits or disabled links 0 .. k, enough to pass a tile's counts.
            let Some(s) = m.slots.get_mut(i) else { return };
            let k = u32::from(c.u8() % 48);
            if c.bool() {
                let (area, flags) = (c.u8() % 64, c.u16());
                s.edits = (0..k).map(|p| (p, area, flags)).collect();
            } else {
                s.disabled = (0..k).collect();
            }
        }
        _ => {
            // An edit that sets a polygon back to its as-built values (one state, one encoding).
            let Some(s) = m.slots.get_mut(i) else { return };
            let t = match s.kind {
                1 => NavTile::from_bytes(&s.tile).ok(),
                2 => {
                    let id = crate::TileContentId(s.tile[..].try_into().unwrap_or([0; 32]));
                    lib.iter()
                        .find(|t| t.content_id() == id)
                        .map(|t| (*t).clone())
                }
                _ => None,
            };
            if let Some(t) = t {
                let p = c.below(t.poly_count() as usize) as u32;
                let (a, f) = (
                    t.as_built_area(PolyIndex(p)).unwrap_or(0),
                    t.as_built_flags(PolyIndex(p)).unwrap_or(0),
                );
                s.edits.retain(|e| e.0 != p);
                let at = s.edits.partition_point(|x| x.0 < p);
                s.edits.insert(at, (p, a, f));
            }
        }
    }
}

/// Target `snapshot_structured`: picks a valid base snapshot (the busy mesh in Full, Referenced
/// or mixed mode, or a mesh holding every tile), applies field-aware mutations to counts, ids,
/// generations, edits, link indices, positions and framing, encodes it, and runs the
/// `restore_new` and `restore_in_place` checks on the result. Unmutated, the base must restore.
pub fn fuzz_snapshot_structured(data: &[u8]) {
    let fx = fixture();
    let mut c = Cursor::new(data);
    let base = match c.u8() % 4 {
        0 => fx.busy_full.clone(),
        1 => fx.busy_referenced.clone(),
        2 => {
            let inline: Vec<bool> = (0..fx.busy.slot_count()).map(|_| c.bool()).collect();
            snapshot_mixed(&fx.busy, &inline)
        }
        _ => fx.all_snapshots[usize::from(c.bool())].clone(),
    };
    let lib: Vec<&NavTile> = fx.library.iter().collect();
    let mut model = SnapModel::of(&base);
    let rounds = c.u8() % 8;
    for _ in 0..rounds {
        if c.done() {
            break;
        }
        mutate(&mut model, &mut c, &lib);
    }
    let bytes = model.encode();
    if rounds == 0 {
        assert!(bytes == base, "model encoding differs from its base");
        NavMeshSnapshot::validate(&bytes, &fx.library).expect("a valid base snapshot validates");
    }
    fuzz_restore_new(&bytes);
    fuzz_restore_in_place(&bytes);
}

// ---------------------------------------------------------------------------------------------
// Target `differential`: an operation sequence, then Full vs Referenced restores.

/// A tile reference for slot `s` of `m`: current, stale (another generation) or forged.
fn tile_ref(m: &TiledNavMesh, c: &mut Cursor<'_>) -> Option<TileRef> {
    let s = c.below(m.slot_count() as usize) as u32;
    let g = m.slot_generation(SlotIndex(s))?;
    match c.u8() % 8 {
        0 => TileRef::from_raw(c.u64()),
        1 => Some(TileRef::new(g.next(), SlotIndex(s))),
        _ => Some(TileRef::new(g, SlotIndex(s))),
    }
}

/// A polygon reference: usually a real polygon (or just past the last one) of a current tile.
fn poly_ref(m: &TiledNavMesh, c: &mut Cursor<'_>) -> Option<PolyRef> {
    let r = tile_ref(m, c)?;
    let np = m.tile(r).map_or(4, NavTile::poly_count) as usize;
    if c.u8() % 16 == 0 {
        return PolyRef::from_raw(c.u64());
    }
    Some(r.poly(PolyIndex(c.below(np + 1) as u32)))
}

/// Applies one decoded operation to `m` and returns a trace of its result.
fn apply_op(m: &mut TiledNavMesh, fx: &Fixture, op: u8, c: &mut Cursor<'_>) -> String {
    let pick = |c: &mut Cursor<'_>| {
        let set = if c.bool() { &fx.alt_tiles } else { &fx.tiles };
        set[c.below(set.len())].clone()
    };
    match op % 7 {
        0 | 1 => format!("{:?}", m.add_tile(pick(c))),
        2 => match tile_ref(m, c) {
            Some(r) => format!("{:?}", m.remove_tile(r).map(|t| t.content_id())),
            None => "none".into(),
        },
        3 => format!("{:?}", m.replace_tile(pick(c))),
        4 => match poly_ref(m, c) {
            Some(r) => {
                let a = if c.u8() % 8 == 0 { c.u8() } else { c.u8() % 64 };
                format!("{:?}", m.set_poly_area(r, a))
            }
            None => "none".into(),
        },
        5 => match poly_ref(m, c) {
            Some(r) => format!("{:?}", m.set_poly_flags(r, c.u16())),
            None => "none".into(),
        },
        _ => match tile_ref(m, c) {
            Some(r) => {
                let l = u32::from(c.u8() % 4);
                format!(
                    "{:?}",
                    m.set_off_mesh_link_enabled(r, crate::ids::LinkIndex(l), c.bool())
                )
            }
            None => "none".into(),
        },
    }
}

fn mode_of(c: &mut Cursor<'_>) -> SnapshotMode {
    if c.bool() {
        SnapshotMode::Referenced
    } else {
        SnapshotMode::Full
    }
}

/// Target `differential`: decodes mesh operations (add, remove, replace, area, flags, link
/// switches, with current, stale and forged references) and applies them to a mesh and to a
/// twin. Some steps are excursions: snapshot, mutate, restore (new or in place) and check the
/// bytes came back; others re-seat the twin from a snapshot. After every step the twin and the
/// mesh agree on every result and byte. At the end, the Full snapshot (restored with an empty
/// library) and the Referenced snapshot restore to identical states that snapshot back to the
/// same bytes, in both modes, and every link set equals a from-scratch stitch.
pub fn fuzz_differential(data: &[u8]) {
    let fx = fixture();
    let mut c = Cursor::new(data);
    let slots = u32::from(c.u8() % 16) + 1;
    let params = fx.world.params(slots);
    let mut a = TiledNavMesh::new(params);
    let mut b = TiledNavMesh::new(params);
    let mut steps = 0;
    while !c.done() && steps < 64 {
        steps += 1;
        let op = c.u8();
        match op % 10 {
            7 => {
                // Excursion on `a`: snapshot, a few operations, restore; `b` does nothing.
                let mode = mode_of(&mut c);
                let snap = a.snapshot(mode);
                for _ in 0..c.u8() % 4 {
                    let o = c.u8();
                    apply_op(&mut a, fx, o, &mut c);
                }
                if c.bool() {
                    a = NavMeshSnapshot::restore(&snap, &fx.library).expect("own snapshot");
                } else {
                    a.restore(&snap, &fx.library).expect("own snapshot");
                }
                assert!(a.snapshot(mode) == snap, "excursion did not come back");
            }
            8 => {
                // Re-seat `b` from `a`'s snapshot, in place.
                let snap = a.snapshot(mode_of(&mut c));
                b.restore(&snap, &fx.library)
                    .expect("own snapshot in place");
            }
            9 => {
                // A failed in-place restore (a truncated snapshot) leaves `b` as it was.
                let snap = b.snapshot(mode_of(&mut c));
                let before = (b.snapshot(SnapshotMode::Full), b.all_links());
                let cut = c.below(snap.len());
                assert!(b.restore(&snap[..cut], &fx.library).is_err());
                assert!((b.snapshot(SnapshotMode::Full), b.all_links()) == before);
            }
            _ => {
                let save = c.pos;
                let ta = apply_op(&mut a, fx, op, &mut c);
                c.pos = save;
                let tb = apply_op(&mut b, fx, op, &mut c);
                assert_eq!(ta, tb, "twins answered an operation differently");
            }
        }
        assert!(
            a.snapshot(SnapshotMode::Full) == b.snapshot(SnapshotMode::Full),
            "twins' snapshots differ"
        );
        assert!(a.all_links() == b.all_links(), "twins' links differ");
    }
    let full = a.snapshot(SnapshotMode::Full);
    let referenced = a.snapshot(SnapshotMode::Referenced);
    let x = NavMeshSnapshot::restore(&full, &TileLibrary::new()).expect("Full is self-contained");
    let y = NavMeshSnapshot::restore(&referenced, &fx.library).expect("Referenced restores");
    for m in [&x, &y] {
        assert!(
            m.snapshot(SnapshotMode::Full) == full,
            "Full re-snapshot differs"
        );
        assert!(
            m.snapshot(SnapshotMode::Referenced) == referenced,
            "Referenced re-snapshot differs"
        );
    }
    let links = a.all_links();
    assert!(
        links == a.stitch_from_scratch(),
        "incremental links differ from scratch"
    );
    assert!(
        x.all_links() == links && y.all_links() == links,
        "restored links differ"
    );
}

/// Every named seed input that `impl/onav/tests/integration/fuzz_seeds.rs` writes to `fuzz/seeds/<target>/`:
/// (target, file name, bytes). Built from real snapshots, tiles and mesh files.
pub fn seed_inputs() -> Vec<(&'static str, String, Vec<u8>)> {
    let fx = fixture();
    let mut out = Vec::new();
    // Tiles: a few generated ones of different shapes, and a hand-made minimal one.
    for (i, t) in fx.tiles.iter().enumerate().step_by(3) {
        out.push((
            "tile_parse",
            format!("world_tile_{i}.ontl"),
            t.as_built_bytes().to_vec(),
        ));
    }
    let tiny = WorldSpec {
        columns: 1,
        rows: 1,
        quads: 1,
        ..WorldSpec::default()
    };
    out.push((
        "tile_parse",
        "one_quad.ontl".into(),
        tiny.tiles()[0].as_built_bytes().to_vec(),
    ));
    // Snapshots for both restore targets.
    let empty = TiledNavMesh::new(fx.world.params(16));
    let mixed_inline: Vec<bool> = (0..16).map(|i| i % 2 == 0).collect();
    let snaps: Vec<(&str, Vec<u8>)> = vec![
        ("busy_full.onps", fx.busy_full.clone()),
        ("busy_referenced.onps", fx.busy_referenced.clone()),
        ("busy_mixed.onps", snapshot_mixed(&fx.busy, &mixed_inline)),
        ("empty.onps", empty.snapshot(SnapshotMode::Full)),
        ("all_referenced.onps", fx.all_snapshots[1].clone()),
    ];
    for target in ["restore_new", "restore_in_place"] {
        for (name, b) in &snaps {
            out.push((target, (*name).to_string(), b.clone()));
        }
    }
    // Mesh files.
    out.push(("read_mesh", "busy.onms".into(), write_mesh(&fx.busy)));
    out.push(("read_mesh", "empty.onms".into(), write_mesh(&empty)));
    // A state over its landing budget (format K17), small: in one cell, a one-quad tile whose 8
    // links end in the cell, and on the layer above a tile of 18 × 18 quads (648 or more detail
    // triangles), so each link's end walks more than its budget share of 512. Valid in every
    // other respect: restores reach stage E (snapshot S30), mesh-file reads the final check (M13).
    let cell = WorldSpec {
        columns: 1,
        rows: 1,
        layers: 2,
        vary_density: false,
        hole_chance: 0,
        ..fx.world.clone()
    };
    let at = |layer| TilePos {
        column: 0,
        row: 0,
        layer,
    };
    let dense = [
        WorldSpec {
            quads: 1,
            links_per_tile: 8,
            ..cell.clone()
        }
        .tile(at(0)),
        WorldSpec {
            quads: 18,
            links_per_tile: 0,
            ..cell
        }
        .tile(at(1)),
    ];
    let over = mesh_with(&fx.world, 16, &dense);
    for target in ["restore_new", "restore_in_place"] {
        out.push((
            target,
            "over_landing_budget.onps".into(),
            over.snapshot(SnapshotMode::Full),
        ));
    }
    out.push((
        "read_mesh",
        "over_landing_budget.onms".into(),
        write_mesh(&over),
    ));
    // Decision streams for the structure-aware targets (any bytes are valid input).
    for (name, b) in [
        ("base_full", vec![0u8, 0]),
        ("base_referenced", vec![1, 0]),
        ("base_mixed", vec![2, 0xaa, 0x55, 0x0f, 0xf0, 0]),
        ("base_all", vec![3, 1, 0]),
        ("edit_and_kind", vec![0, 3, 2, 0, 3, 0, 1, 5, 7, 1, 0, 1, 2]),
        ("dup_position", vec![1, 2, 3, 0, 13, 5, 0, 1]),
    ] {
        out.push(("snapshot_structured", format!("{name}.bin"), b));
    }
    for (name, b) in [
        ("adds", vec![15u8, 0, 0, 0, 1, 1, 0, 0, 2, 0, 0, 0, 3, 0]),
        (
            "excursion",
            vec![8, 0, 1, 0, 0, 0, 1, 1, 0, 7, 0, 2, 0, 0, 2, 0, 0, 2, 0, 1],
        ),
        (
            "edits",
            vec![
                15, 0, 0, 0, 4, 0, 0, 0, 0, 1, 0, 5, 0, 0, 0, 0, 9, 8, 0, 9, 1, 3, 0,
            ],
        ),
        (
            "reseat",
            vec![3, 0, 0, 5, 1, 0, 7, 8, 1, 6, 0, 0, 1, 9, 0, 0],
        ),
    ] {
        out.push(("differential", format!("{name}.bin"), b));
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Large and adversarial inputs for the allocation test and the scaling benchmark.

/// `n` one-quad tiles (307 bytes each) of the default world at distinct positions on a
/// near-square grid, so neighbours stitch across their portals. Returns the world and the tiles.
pub fn tiny_tiles(n: u32) -> (WorldSpec, Vec<NavTile>) {
    let columns = (f64::from(n).sqrt().ceil() as i32).max(1);
    let w = WorldSpec {
        columns,
        rows: (n as i32 + columns - 1) / columns,
        quads: 1,
        ..WorldSpec::default()
    };
    let tiles = w
        .positions()
        .into_iter()
        .take(n as usize)
        .map(|p| w.tile(p))
        .collect();
    (w, tiles)
}

/// A mesh of `slots` slots whose first `tiles.len()` slots hold `tiles`, stitched once. For test
/// inputs only: it checks nothing, not even the landing budgets (format rule K17), so it can
/// assemble states that a restore must reject.
pub fn mesh_with(w: &WorldSpec, slots: u32, tiles: &[NavTile]) -> TiledNavMesh {
    let mut m = TiledNavMesh::new(w.params(slots));
    m.add_tiles(tiles.to_vec());
    m
}

/// An input for the allocation bound: a snapshot, the library it is restored with, and the
/// total as-built bytes of that library.
#[derive(Debug)]
pub struct Adversarial {
    /// What the input stresses.
    pub name: &'static str,
    /// The snapshot bytes.
    pub bytes: Vec<u8>,
    /// The library passed to restore.
    pub library: TileLibrary,
    /// Sum of the library tiles' as-built byte lengths.
    pub library_bytes: usize,
    /// Whether restore must accept it.
    pub valid: bool,
}

fn library_bytes(lib: &TileLibrary) -> usize {
    lib.iter().map(|t| t.as_built_bytes().len()).sum()
}

/// The snapshot header for `params` and one slots section whose length is patched by
/// [`end_section`]; the returned vector ends where the slot count goes.
fn begin_section(params: &crate::MeshParams) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&crate::snapshot::SNAPSHOT_MAGIC);
    out.extend_from_slice(&crate::snapshot::SNAPSHOT_VERSION.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&params.to_bytes());
    out.extend_from_slice(&1u32.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out
}

fn end_section(out: &mut [u8]) {
    let body = (out.len() - SLOT_COUNT_AT) as u32;
    out[SECTION_LEN_AT..SLOT_COUNT_AT].copy_from_slice(&body.to_le_bytes());
}

/// Hostile and extreme snapshots (`spec/security.md`, "Allocation"): the largest slot count of
/// free slots, maximum counts backed by too few bytes, errors after the largest allocations,
/// many tiny tiles inline and referenced, one large tile, and truncations. `scale` (1 ..= 16)
/// multiplies the tile counts; the slot-count cases always use the format's maximum.
pub fn adversarial_snapshots(scale: u32) -> Vec<Adversarial> {
    use crate::limits::MAX_SLOTS;
    let mut out = Vec::new();
    let plain = |name, bytes, valid| Adversarial {
        name,
        bytes,
        library: TileLibrary::new(),
        library_bytes: 0,
        valid,
    };
    let w = WorldSpec::default();

    // The largest slot count, every slot free: the largest valid input per byte.
    let free = TiledNavMesh::new(w.params(MAX_SLOTS)).snapshot(SnapshotMode::Full);
    out.push(plain("free_slots_max", free.clone(), true));
    // The same with an error in the very last slot (after stage A allocated every entry).
    let mut bad = free.clone();
    let last = bad.len() - 1;
    bad[last] = 3;
    out.push(plain("free_slots_max_bad_last_kind", bad, false));
    let mut bad = free.clone();
    bad[last - 4..last].copy_from_slice(&0u32.to_le_bytes());
    out.push(plain("free_slots_max_bad_last_generation", bad, false));
    // The maximum slot count backed by too few bytes.
    let mut short = free[..FIRST_SLOT_AT + 1000].to_vec();
    end_section(&mut short);
    out.push(plain("slot_count_max_few_bytes", short, false));

    // One referenced tile with the most edits, or the most disabled links, the bytes allow:
    // stage C rejects the count after stage A stored every entry.
    let fx = fixture();
    let t = &fx.tiles[0];
    let params = fx.world.params(1);
    let lib1 = TileLibrary::from_tiles([t]);
    let many = 1_000_000 * scale.min(4);
    for (name, edits) in [("edits_max", true), ("disabled_max", false)] {
        let mut b = begin_section(&params);
        b.extend_from_slice(&1u32.to_le_bytes());
        b.extend_from_slice(&1u32.to_le_bytes());
        b.push(2);
        b.extend_from_slice(&t.content_id().0);
        for list in [true, false] {
            if list == edits {
                b.extend_from_slice(&many.to_le_bytes());
                for p in 0..many {
                    b.extend_from_slice(&p.to_le_bytes());
                    if edits {
                        b.extend_from_slice(&[1, 0, 0]);
                    }
                }
            } else {
                b.extend_from_slice(&0u32.to_le_bytes());
            }
        }
        end_section(&mut b);
        out.push(Adversarial {
            name,
            bytes: b,
            library: lib1.clone(),
            library_bytes: library_bytes(&lib1),
            valid: false,
        });
    }

    // Many tiny tiles: Full (each parsed), Referenced (each shared from the library), with a
    // duplicate position in the last slot (stage D fails after everything else), truncated.
    let n = 20_000 * scale;
    let (tw, tiles) = tiny_tiles(n);
    let m = mesh_with(&tw, n, &tiles);
    let lib = TileLibrary::from_tiles(&tiles);
    let lib_bytes = library_bytes(&lib);
    for (mode, name, dup_name) in [
        (
            SnapshotMode::Full,
            "tiny_tiles_full",
            "tiny_tiles_full_dup_last",
        ),
        (
            SnapshotMode::Referenced,
            "tiny_tiles_referenced",
            "tiny_tiles_referenced_dup_last",
        ),
    ] {
        let snap = m.snapshot(mode);
        let full = mode == SnapshotMode::Full;
        let with_lib = |name, bytes, valid| Adversarial {
            name,
            bytes,
            library: if full {
                TileLibrary::new()
            } else {
                lib.clone()
            },
            library_bytes: if full { 0 } else { lib_bytes },
            valid,
        };
        // Slot n−1 takes slot 0's tile: same record length, duplicate position.
        let recs = slot_records(&snap).expect("layout");
        let mut dup = snap.clone();
        let (s0, e0, _) = recs[0];
        let (sl, _, _) = recs[recs.len() - 1];
        let first = snap[s0..e0].to_vec();
        dup.truncate(sl);
        dup.extend_from_slice(&first);
        end_section(&mut dup);
        let half = snap[..snap.len() / 2].to_vec();
        out.push(with_lib(name, snap, true));
        out.push(with_lib(dup_name, dup, false));
        out.push(with_lib(
            if full {
                "tiny_tiles_full_truncated"
            } else {
                "tiny_tiles_referenced_truncated"
            },
            half,
            false,
        ));
    }

    // One large tile (wide structure: 128 × 128 quads) inline.
    let big_world = WorldSpec {
        columns: 1,
        rows: 1,
        quads: 128 * scale.min(2),
        ..WorldSpec::default()
    };
    let big = big_world.tiles();
    let bm = mesh_with(&big_world, 1, &big);
    out.push(plain(
        "big_tile_full",
        bm.snapshot(SnapshotMode::Full),
        true,
    ));

    // A tile whose every count is the largest the remaining bytes allow, over zero filler:
    // vertices (0, 0, 0) are read, then the first polygon (vertex count 0) is rejected.
    let mut tile = big[0].as_built_bytes()[..crate::limits::TILE_HEADER_LEN].to_vec();
    let filler = 4_000_000usize;
    let rem = |consumed: usize| (filler - consumed) as u32;
    tile[72..84].copy_from_slice(&[0; 12]); // position (0, 0, 0)
    tile[108..112].copy_from_slice(&(rem(0) / 24).to_le_bytes());
    tile[112..116].copy_from_slice(&(rem(0) / 75).to_le_bytes());
    tile[116..120].copy_from_slice(&0u32.to_le_bytes()); // no links
    tile[120..124].copy_from_slice(&(rem(0) / 24).to_le_bytes());
    tile[124..128].copy_from_slice(&(rem(0) / 4).to_le_bytes());
    tile.resize(tile.len() + filler, 0);
    let mut b = begin_section(&big_world.params(1));
    b.extend_from_slice(&1u32.to_le_bytes());
    b.extend_from_slice(&1u32.to_le_bytes());
    b.push(1);
    b.extend_from_slice(&(tile.len() as u32).to_le_bytes());
    b.extend_from_slice(&tile);
    b.extend_from_slice(&[0; 8]);
    end_section(&mut b);
    out.push(plain("tile_counts_max_zero_filler", b, false));
    out
}

// ---------------------------------------------------------------------------------------------
// Known superlinear cases of stitching (`spec/security.md`, "Open issues").

/// Two tiles side by side, at columns 0 and 1 of the default world, each made of `p` identical
/// triangles whose edge 0 is a portal spanning the whole shared border. Were they valid, every
/// portal edge of one would overlap every portal edge of the other and stitching would make 2·p²
/// links from about 150·p bytes; rule T20 (a side's portal edges have disjoint interiors) rejects
/// them for p ≥ 2, which is what keeps portal matching linear. Returned as plain data.
pub fn sliver_pair(p: usize) -> (WorldSpec, [RawTile; 2]) {
    use crate::ids::{Side, TilePos};
    use crate::tile::{DetailMesh, Edge, Polygon};
    let w = WorldSpec::default();
    let make = |column: i32| {
        let (vertices, side) = if column == 0 {
            (
                vec![[16.0, 0.0, 0.0], [16.0, 0.0, 16.0], [15.0, 0.0, 8.0]],
                Side::PosX,
            )
        } else {
            (
                vec![[16.0, 0.0, 16.0], [16.0, 0.0, 0.0], [17.0, 0.0, 8.0]],
                Side::NegX,
            )
        };
        let mut edges = [Edge::Wall; 6];
        edges[0] = Edge::Portal(side);
        RawTile {
            grid: w.grid(),
            digest: w.digest(),
            pos: TilePos {
                column,
                row: 0,
                layer: 0,
            },
            agent: w.agent,
            vertices,
            polys: vec![
                Polygon {
                    vertex_count: 3,
                    vertices: [0, 1, 2, 0, 0, 0],
                    edges,
                };
                p
            ],
            links: Vec::new(),
            detail_meshes: (0..p as u32)
                .map(|i| DetailMesh {
                    vertex_base: 0,
                    vertex_count: 0,
                    triangle_base: i,
                    triangle_count: 1,
                })
                .collect(),
            detail_vertices: Vec::new(),
            detail_tris: vec![[0, 1, 2]; p],
            areas: vec![0; p],
            flags: vec![1; p],
        }
    };
    let tiles = [make(0), make(1)];
    (w, tiles)
}

/// One generated tile of q × q quads with q² off-mesh links: landing work about 2·q⁴ polygon
/// visits for about 140·q² bytes, over its landing budget (format rule K17) from q = 33 on. Such
/// a state can only be assembled with [`mesh_with`]; restore rejects it before stitching.
pub fn dense_link_tile(q: u32) -> (WorldSpec, NavTile) {
    let w = WorldSpec {
        columns: 1,
        rows: 1,
        quads: q,
        links_per_tile: q * q,
        ..WorldSpec::default()
    };
    let t = w.tiles().remove(0);
    (w, t)
}
