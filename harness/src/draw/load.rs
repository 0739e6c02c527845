//! Files to scenes. Valid tiles given together go into one mesh (so their portals stitch), as
//! `onav` itself would hold them; a mesh file or a snapshot is one scene. What onav rejects is
//! drawn from the structural decode, with onav's error as a problem and a mark on the part it
//! names.

use onav::{
    read_mesh, FormatReason, MeshParams, NavMeshSnapshot, NavTile, RestoreError, TileLibrary,
    TiledNavMesh,
};

use super::cache::cache_view;
use super::scene::{
    decoded_slot_state, decoded_tile, mesh_scene, resolve, tile_view, Fields, Mark, MarkKind,
    Scene, Target,
};
use crate::files::decode::{decode, FileKind, Value};
use crate::files::inspect::kind_name;

/// One input file: a name for the title and its bytes.
#[derive(Debug, Clone)]
pub struct Input {
    /// The file's name as given.
    pub name: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// onav's error in words (its text names the field and the offset).
pub fn error_text(e: &RestoreError) -> String {
    let what = if matches!(e, RestoreError::Format(f) if f.reason == FormatReason::UnknownContentId)
    {
        "incomplete (a tile it names is not in the library: --library FILE…)"
    } else {
        "rejected"
    };
    format!("{what} ({}): {e}", e.class())
}

/// A mesh holding `tiles` (valid tiles of one grid and digest), or the error of the first tile
/// that does not fit.
fn tiles_mesh(tiles: &[NavTile]) -> Result<TiledNavMesh, String> {
    let first = tiles.first().ok_or_else(|| "no tiles".to_owned())?;
    let g = first.grid();
    let slots = u32::try_from(tiles.len()).map_err(|_| "too many tiles".to_owned())?;
    let params = MeshParams::new(g.origin(), g.tile_size(), slots, first.digest())
        .map_err(|e| e.to_string())?;
    let mut m = TiledNavMesh::new(params);
    for t in tiles {
        m.add_tile(t.clone()).map_err(|e| e.to_string())?;
    }
    Ok(m)
}

/// The decode of a file cut short, drawn as far as it goes: where the decode stops at a
/// container's length (`section[i].length`, `slot[i].tile_length`, `tile[i].length`) that claims
/// more bytes than remain, the length is taken as what remains and the decode goes on into the
/// container (and the same for an `ONTK` file's `mesh_length`). Only the picture uses this; the
/// problems shown are those of the real bytes.
fn lenient_decode(bytes: &[u8]) -> crate::files::decode::Decoded {
    let mut b = bytes.to_vec();
    let mut d = decode(&b);
    for _ in 0..8 {
        let Some((at, _)) = &d.stopped else { break };
        let at = *at;
        let is_length = d.fields.iter().any(|f| {
            f.offset == at
                && f.size == 4
                && (f.path.ends_with(".length")
                    || f.path.ends_with(".tile_length")
                    || f.path == "mesh_length")
        });
        let Some(rest) = usize::try_from(at)
            .ok()
            .and_then(|a| b.len().checked_sub(a + 4))
            .and_then(|r| u32::try_from(r).ok())
        else {
            break;
        };
        if !is_length {
            break;
        }
        let a = at as usize;
        b[a..a + 4].copy_from_slice(&rest.to_le_bytes());
        d = decode(&b);
    }
    d
}

/// The tiles of a decoded mesh snapshot whose field paths start with `root` (`""`, or `mesh.`
/// inside a tile cache snapshot), as far as they decode, with the field path prefix of each;
/// a referenced tile comes from the library or is a problem.
fn snapshot_tiles(
    f: &Fields<'_>,
    root: &str,
    lib: &TileLibrary,
    tiles: &mut Vec<super::scene::TileView>,
    prefixes: &mut Vec<String>,
    problems: &mut Vec<String>,
) {
    for i in 0..f.u(&format!("{root}slots.slot_count")).unwrap_or(0) {
        let Some(kind) = f.u(&format!("{root}slot[{i}].kind")) else {
            break;
        };
        let slot = u32::try_from(i).ok();
        let (tile, p) = match kind {
            1 => {
                let p = format!("{root}slot[{i}].tile.");
                (decoded_tile(f, &p, slot), p)
            }
            2 => {
                let id = f
                    .bytes(&format!("{root}slot[{i}].content_id"))
                    .and_then(|b| <[u8; 32]>::try_from(b).ok())
                    .map(onav::TileContentId);
                let t = id.and_then(|id| lib.get(&id)).map(|t| tile_view(t, slot));
                if t.is_none() {
                    problems.push(format!(
                        "slot {i}: its referenced tile is not in the library, not drawn"
                    ));
                }
                (t, format!("{root}slot[{i}]."))
            }
            _ => (None, String::new()),
        };
        if let Some(mut t) = tile {
            decoded_slot_state(f, root, i, &mut t);
            tiles.push(t);
            prefixes.push(p);
        }
    }
}

/// The scene of bytes onav rejected (or could not restore without the library's tiles).
fn decoded_scene(
    title: String,
    bytes: &[u8],
    err: Option<&RestoreError>,
    lib: &TileLibrary,
) -> Scene {
    let real = decode(bytes);
    let d = lenient_decode(bytes);
    let f = Fields::of(&d);
    let mut tiles = Vec::new();
    let mut prefixes = Vec::new();
    let mut problems = Vec::new();
    match d.kind {
        FileKind::Tile => {
            if let Some(t) = decoded_tile(&f, "", None) {
                tiles.push(t);
                prefixes.push(String::new());
            }
        }
        FileKind::MeshFile => {
            for i in 0..f.u("tile_count").unwrap_or(0) {
                let p = format!("tile[{i}].");
                let Some(t) = decoded_tile(&f, &p, None) else {
                    break;
                };
                tiles.push(t);
                prefixes.push(p);
            }
        }
        // A cache snapshot whose mesh does not restore: the tiles of its mesh snapshot as far
        // as they decode (its obstacles, volumes and queue are the caller's).
        FileKind::CacheSnapshot => {
            snapshot_tiles(&f, "mesh.", lib, &mut tiles, &mut prefixes, &mut problems);
        }
        FileKind::Snapshot => {
            snapshot_tiles(&f, "", lib, &mut tiles, &mut prefixes, &mut problems);
        }
        FileKind::Unknown => {
            let head = &bytes[..bytes.len().min(16)];
            problems.push(format!(
                "not a tile, mesh file or snapshot ({} bytes; first bytes {})",
                bytes.len(),
                if head.is_empty() {
                    "(none)".to_owned()
                } else {
                    crate::hex::hex(head)
                }
            ));
        }
    }
    if let Some(e) = err {
        problems.insert(0, error_text(e));
    }
    if let Some((at, why)) = &real.stopped {
        problems.push(format!("decode stopped at byte {at}: {why}"));
    }
    let mut s = Scene {
        title,
        tiles,
        problems,
        marks: Vec::new(),
        prefixes,
        mesh: None,
        cache: (d.kind == FileKind::CacheSnapshot).then(|| cache_view(&f)),
    };
    if let Some(e) = err {
        let (tile, target) = resolve(&s, e.field());
        s.marks.push(Mark {
            tile,
            target: if tile.is_none() && !target.is_cache() {
                Target::Tile
            } else {
                target
            },
            kind: MarkKind::Error,
            label: e.field().to_owned(),
        });
    }
    s
}

/// The field path prefix of each tile of a mesh read from a mesh file: the file's `tile[i].`
/// whose position is the tile's. It decodes the whole file, so only pictures that mark a field
/// path (`diff --svg`) ask for it.
pub fn mesh_file_prefixes(s: &mut Scene, bytes: &[u8]) {
    if FileKind::of(bytes) != FileKind::MeshFile || s.mesh.is_none() {
        return;
    }
    let d = decode(bytes);
    let f = Fields::of(&d);
    let mut at = std::collections::BTreeMap::new();
    for i in 0..f.u("tile_count").unwrap_or(0) {
        let pos = (
            f.i(&format!("tile[{i}].position.column")),
            f.i(&format!("tile[{i}].position.row")),
            f.u(&format!("tile[{i}].position.layer")),
        );
        at.entry(pos).or_insert(i);
    }
    s.prefixes = s
        .tiles
        .iter()
        .map(|t| {
            let key = (
                Some(i64::from(t.pos.column)),
                Some(i64::from(t.pos.row)),
                Some(u64::from(t.pos.layer)),
            );
            at.get(&key)
                .map_or(String::new(), |i| format!("tile[{i}]."))
        })
        .collect();
}

/// The scene of one mesh file or snapshot, or of one tile file that is not valid.
pub fn file_scene(input: &Input, lib: &TileLibrary) -> Scene {
    let kind = FileKind::of(&input.bytes);
    let title = format!("{}: {}", input.name, kind_name(kind));
    match kind {
        FileKind::MeshFile => match read_mesh(&input.bytes) {
            Ok(m) => mesh_scene(title, m, |_| String::new()),
            Err(e) => decoded_scene(title, &input.bytes, Some(&e), lib),
        },
        FileKind::Snapshot => match NavMeshSnapshot::restore(&input.bytes, lib) {
            Ok(m) => mesh_scene(title, m, |slot| format!("slot[{slot}].tile.")),
            Err(e) => decoded_scene(title, &input.bytes, Some(&e), lib),
        },
        FileKind::Tile => match NavTile::from_bytes(&input.bytes) {
            Ok(t) => tiles_scene(title, vec![t]),
            Err(e) => decoded_scene(title, &input.bytes, Some(&RestoreError::from(e)), lib),
        },
        FileKind::CacheSnapshot => cache_scene(title, &input.bytes, lib),
        FileKind::Unknown => decoded_scene(title, &input.bytes, None, lib),
    }
}

/// A tile cache snapshot (`ONTK`, spec/tilecache.md): the mesh snapshot it holds (restored when
/// it restores, else decoded as far as it goes), its obstacles, volumes and queued tiles as far
/// as they decode, and the cache's own verdict (`onav_tilecache::check_without_cache`) as a
/// problem line when it rejects the bytes.
fn cache_scene(title: String, bytes: &[u8], lib: &TileLibrary) -> Scene {
    let d = decode(bytes);
    let mesh = d.field("mesh_length").and_then(|f| match f.value {
        Value::U(n) => {
            let at = usize::try_from(f.offset.checked_add(4)?).ok()?;
            bytes.get(at..)?.get(..usize::try_from(n).ok()?)
        }
        _ => None,
    });
    let verdict = onav_tilecache::check_without_cache(bytes, lib).err();
    match mesh.map(|m| NavMeshSnapshot::restore(m, lib)) {
        Some(Ok(m)) => {
            let mut s = mesh_scene(title, m, |slot| format!("mesh.slot[{slot}].tile."));
            // A mesh that restores inside bytes the cache rejects (its lists, its queue).
            s.problems.extend(verdict.as_ref().map(error_text));
            s.cache = Some(cache_view(&Fields::of(&d)));
            if let Some(e) = &verdict {
                let (tile, target) = resolve(&s, e.field());
                s.marks.push(Mark {
                    tile,
                    target,
                    kind: MarkKind::Error,
                    label: e.field().to_owned(),
                });
            }
            s
        }
        // decoded_scene writes the verdict itself, and decodes the cache's lists.
        _ => decoded_scene(title, bytes, verdict.as_ref(), lib),
    }
}

/// Valid tiles drawn together, stitched in one mesh when they fit one (same grid and digest,
/// one tile per position); otherwise unstitched, with the reason.
fn tiles_scene(title: String, tiles: Vec<NavTile>) -> Scene {
    match tiles_mesh(&tiles) {
        Ok(m) => {
            let one = tiles.len() == 1;
            let mut s = mesh_scene(title, m, |_| String::new());
            if one {
                s.prefixes = vec![String::new()];
            }
            s
        }
        Err(why) => Scene {
            title,
            tiles: tiles.iter().map(|t| tile_view(t, None)).collect(),
            problems: vec![format!("tiles not stitched: {why}")],
            marks: Vec::new(),
            prefixes: Vec::new(),
            mesh: None,
            cache: None,
        },
    }
}

/// The scenes of the inputs: every valid tile file together in one scene (first), then one
/// scene per other file, in the order given.
pub fn scenes(inputs: &[Input], lib: &TileLibrary) -> Vec<Scene> {
    let mut valid = Vec::new();
    let mut names = Vec::new();
    let mut rest = Vec::new();
    for i in inputs {
        match FileKind::of(&i.bytes) {
            FileKind::Tile => match NavTile::from_bytes(&i.bytes) {
                Ok(t) => {
                    valid.push(t);
                    names.push(i.name.as_str());
                }
                Err(_) => rest.push(file_scene(i, lib)),
            },
            _ => rest.push(file_scene(i, lib)),
        }
    }
    let mut out = Vec::new();
    if !valid.is_empty() {
        let title = if names.len() == 1 {
            format!("{}: {}", names[0], kind_name(FileKind::Tile))
        } else {
            let shown = names.iter().take(4).copied().collect::<Vec<_>>().join(", ");
            let more = if names.len() > 4 { ", …" } else { "" };
            format!("{} tiles: {shown}{more}", names.len())
        };
        out.push(tiles_scene(title, valid));
    }
    out.extend(rest);
    out
}
