//! `TileLibrary` (`spec/snapshot.md` §3, `spec/navmesh-format.md` §4): tiles found by content id
//! for Referenced snapshots. Tiles keep
//! their own digest and parameters; a restore checks them against the snapshot's.

use std::collections::BTreeMap;

use crate::ids::TileContentId;
use crate::tile::NavTile;

/// Tiles by content id. Holding a tile shares its immutable contents (no copy of the arrays).
#[derive(Debug, Clone, Default)]
pub struct TileLibrary {
    tiles: BTreeMap<TileContentId, NavTile>,
}

impl TileLibrary {
    /// An empty library.
    pub fn new() -> Self {
        Self::default()
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
