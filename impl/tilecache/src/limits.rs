//! Every cap and record size of the tile cache and its `ONTK` snapshot, each citing the rule of
//! `spec/tilecache.md` that states it.

/// Largest next obstacle id and next volume id (TC2, seed "Tile cache snapshot"): ids are
/// 1 ..= `MAX_NEXT_ID − 1`, so an id is always below the next id.
pub const MAX_NEXT_ID: u32 = (1 << 31) - 1;
/// Most obstacles a cache holds (TC7, TC21): the snapshot's obstacle count is at most 2^20.
pub const MAX_OBSTACLES: u32 = 1 << 20;
/// Most volumes a cache holds (TC7, TC24): the snapshot's volume count is at most 2^20.
pub const MAX_VOLUMES: u32 = 1 << 20;
/// Fewest corners of a volume polygon (TC5, TC25).
pub const MIN_CORNERS: u32 = 3;
/// Most corners of a volume polygon (TC5, TC25).
pub const MAX_CORNERS: u32 = 256;
/// Largest area id of a volume (TC5; `navmesh-format.md` T18).
pub const MAX_AREA: u8 = 63;

/// Bytes per obstacle the obstacle count is checked against (TC21: the seed's 13).
pub const OBSTACLE_MIN_LEN: usize = 13;
/// Bytes per volume the volume count is checked against (TC24: the seed's 41).
pub const VOLUME_MIN_LEN: usize = 41;
/// Bytes of one corner of a volume polygon: x and z, f64 each (TC25).
pub const CORNER_LEN: usize = 16;
/// Bytes of one queue entry: column and row, i32 each (TC27).
pub const QUEUE_ENTRY_LEN: usize = 8;
/// Bytes of one shape value (f64).
pub const VALUE_LEN: usize = 8;

/// Offset of the next obstacle id in an `ONTK` snapshot (TC19).
pub const NEXT_IDS_AT: u64 = 8;
/// Offset of the obstacle count in an `ONTK` snapshot (TC21).
pub const OBSTACLE_COUNT_AT: u64 = 16;
