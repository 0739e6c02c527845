//! The mesh file `ONMS` version 2 (`spec/navmesh-format.md` §8, `spec/snapshot.md` §10):
//! content, not rollback. Tiles are stored in slot order with their current areas and flags and
//! no link switches; reading one back makes the current values the as-built ones, and places the
//! tiles in slots 0, 1, 2, … of a new mesh.

use crate::bytes::{Reader, Writer};
use crate::error::{FormatError, FormatReason as R, RestoreError};
use crate::hash::FixedMap;
use crate::ids::{Generation, TilePos};
use crate::limits::{COUNT_LEN, FILE_HEADER_LEN, TILE_HEADER_LEN, TILE_POSITION_AT};
use crate::mesh::{MeshState, SlotContents, TiledNavMesh};
use crate::params::MeshParams;
use crate::stitch::{first_over_budget, weight_per_cell};
use crate::tile::NavTile;

/// Mesh file magic, "ONMS".
pub const MESH_MAGIC: [u8; 4] = *b"ONMS";
/// The mesh file version: 2 (`spec/navmesh-format.md` §8.1).
pub const MESH_VERSION: u16 = 2;

/// Writes a mesh file.
pub fn write_mesh(mesh: &TiledNavMesh) -> Vec<u8> {
    let tiles: Vec<Vec<u8>> = mesh.tiles().map(|(_, t)| t.to_bytes()).collect();
    let mut w = Writer::with_capacity(
        FILE_HEADER_LEN + COUNT_LEN + tiles.iter().map(|t| t.len() + COUNT_LEN).sum::<usize>(),
    );
    w.header(MESH_MAGIC, MESH_VERSION);
    mesh.params().write(&mut w);
    w.u32(tiles.len() as u32);
    for t in &tiles {
        w.length_prefixed(|w| w.bytes(t));
    }
    w.into_inner()
}

/// Reads a mesh file into a new mesh. Checks, in byte order: header, parameters, tile count
/// (≤ slot count and the bytes that remain), each tile completely, its digest and grid against
/// the parameters, its position unique; then trailing bytes.
pub fn read_mesh(bytes: &[u8]) -> Result<TiledNavMesh, RestoreError> {
    let mut r = Reader::new(bytes, 0);
    r.header(MESH_MAGIC, MESH_VERSION)?;
    let params = MeshParams::read(&mut r)?;
    let n = r.count(
        "tile_count",
        params.slot_count(),
        COUNT_LEN + TILE_HEADER_LEN,
    )?;
    let mut tiles = Vec::with_capacity(n as usize);
    let mut starts = Vec::with_capacity(n as usize);
    // Lookup only (M11, duplicate positions): never iterated.
    let mut seen: FixedMap<TilePos, ()> =
        FixedMap::with_capacity_and_hasher(n as usize, Default::default());
    for i in 0..n {
        let (tat, tb) = r.length_prefixed(|| format!("tile[{i}].length"))?;
        let tile = NavTile::from_bytes(tb).map_err(|e| e.nested(tat, &format!("tile[{i}]")))?;
        if let Some(m) = params.tile_mismatch(tile.digest(), &tile.grid()) {
            return Err(m.in_tile().nested(tat, &format!("tile[{i}]")));
        }
        if seen.insert(tile.pos(), ()).is_some() {
            return Err(FormatError::new(
                tat + TILE_POSITION_AT,
                format!("tile[{i}].position"),
                R::DuplicatePosition,
            )
            .into());
        }
        tiles.push(tile);
        starts.push(tat);
    }
    r.finish("end")?;
    // K17, by tile index, once every tile is known (nothing to count when no tile has links).
    let over = if tiles.iter().any(|t| t.link_count() > 0) {
        first_over_budget(tiles.iter().enumerate(), &weight_per_cell(&tiles))
    } else {
        None
    };
    if let Some((i, work, budget)) = over {
        return Err(FormatError::new(
            starts[i],
            format!("tile[{i}]"),
            R::LandingBudget { work, budget },
        )
        .into());
    }
    // Slots 0, 1, 2, … of generation 1 hold the tiles; the others are free.
    let mut slots: SlotContents = tiles
        .into_iter()
        .map(|t| (Generation::FIRST, Some(t)))
        .collect();
    slots.resize(params.slot_count() as usize, (Generation::FIRST, None));
    Ok(TiledNavMesh::from_state(
        params,
        MeshState::from_slots(slots, None),
    ))
}
