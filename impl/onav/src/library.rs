//! `TileLibrary` (`spec/snapshot.md` §3, `spec/navmesh-format.md` §4): tiles found by content id
//! for Referenced snapshots. Tiles keep
//! their own digest and parameters; a restore checks them against the snapshot's.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::ids::TileContentId;
use crate::tile::NavTile;

/// Tiles by content id. Holding a tile shares its immutable contents (no copy of the arrays).
///
/// A library only grows: there is no way to take a tile out. So once a mesh has found every
/// tile it holds in a library, they stay there, and an in-place restore that changes no tile
/// need not look them up again (`spec/snapshot.md` S21): the mesh remembers the library by its
/// instance number, which is unique per library object in the process (a clone gets its own).
/// Instance numbers are compared only, never written anywhere.
#[derive(Debug)]
pub struct TileLibrary {
    tiles: BTreeMap<TileContentId, NavTile>,
    instance: u64,
}

/// The next library instance number.
static NEXT_INSTANCE: AtomicU64 = AtomicU64::new(1);

impl Default for TileLibrary {
    fn default() -> Self {
        Self {
            tiles: BTreeMap::new(),
            instance: NEXT_INSTANCE.fetch_add(1, Ordering::Relaxed),
        }
    }
}

impl Clone for TileLibrary {
    /// The same tiles, as a library of its own (a new instance number).
    fn clone(&self) -> Self {
        Self {
            tiles: self.tiles.clone(),
            ..Self::default()
        }
    }
}

impl TileLibrary {
    /// An empty library.
    pub fn new() -> Self {
        Self::default()
    }

    /// This library object's instance number (see the type's note): unique in the process.
    pub(crate) fn instance(&self) -> u64 {
        self.instance
    }

    /// A library holding these tiles.
    pub fn from_tiles<'a>(tiles: impl IntoIterator<Item = &'a NavTile>) -> Self {
        let mut lib = Self::new();
        for t in tiles {
            lib.add(t);
        }
        lib
    }

    /// Adds a tile (its as-built contents; current edits of the copy passed in are not kept).
    /// Returns its content id.
    pub fn add(&mut self, tile: &NavTile) -> TileContentId {
        let id = tile.content_id();
        self.tiles
            .entry(id)
            .or_insert_with(|| NavTile::from_data(std::sync::Arc::clone(tile.data())));
        id
    }

    /// The tile with this content id.
    pub fn get(&self, id: &TileContentId) -> Option<&NavTile> {
        self.tiles.get(id)
    }

    /// Number of tiles.
    pub fn len(&self) -> usize {
        self.tiles.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.tiles.is_empty()
    }

    /// The tiles in ascending content id order.
    pub fn iter(&self) -> impl Iterator<Item = &NavTile> {
        self.tiles.values()
    }
}
