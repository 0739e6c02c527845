//! What a tile cache snapshot (`ONTK`, `spec/tilecache.md` §6.1) adds to a picture: its
//! obstacles' footprints (TC3: a cylinder's circle, a box's rectangle, an oriented box's four
//! corners turned by its rotation), its area volumes' polygons (TC5) and its queued tiles, taken
//! from the structural decode (`crate::files::decode`), so that bytes the cache rejects are drawn
//! as far as they decode. Nothing here is validated: a hostile value is drawn where it says (the
//! renderer clamps what is not finite or far away).

use onav::RawGrid;
use onav_tilecache::oriented_box_corners;

use super::scene::Fields;

/// At most this many obstacles, volumes, corners of one volume or queued tiles are drawn (the
/// decode is bounded by the file's length; this keeps a hostile file's picture small).
const MAX_DRAWN: u64 = 1 << 16;

/// An obstacle's footprint on x–z.
#[derive(Debug, Clone, PartialEq)]
pub enum Footprint {
    /// A cylinder: the circle of `radius` around `centre`.
    Circle {
        /// (x, z) of the base's centre.
        centre: [f64; 2],
        /// Radius (wu).
        radius: f64,
    },
    /// A box or an oriented box: its corners, in the order TC3 lists them.
    Polygon(Vec<[f64; 2]>),
}

/// One obstacle as the snapshot records it.
#[derive(Debug, Clone, PartialEq)]
pub struct ObstacleView {
    /// Its id.
    pub id: u64,
    /// Its shape code (1 cylinder, 2 box, 3 oriented box).
    pub shape: u8,
    /// Its footprint.
    pub footprint: Footprint,
}

/// One area volume.
#[derive(Debug, Clone, PartialEq)]
pub struct VolumeView {
    /// Its id.
    pub id: u64,
    /// The area it sets.
    pub area: u8,
    /// Its corners (x, z), as stored.
    pub pts: Vec<[f64; 2]>,
}

/// One queued tile (front first).
#[derive(Debug, Clone, PartialEq)]
pub struct QueuedView {
    /// Tile column.
    pub column: i32,
    /// Tile row.
    pub row: i32,
    /// Its cell on the mesh's grid `[min_x, min_z, max_x, max_z]`, when the grid decodes and
    /// the cell is finite.
    pub bounds: Option<[f64; 4]>,
}

/// The tile cache's own state in a picture.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CacheView {
    /// Obstacles, in file order (ascending id).
    pub obstacles: Vec<ObstacleView>,
    /// Volumes, in file order.
    pub volumes: Vec<VolumeView>,
    /// Queued tiles, front first.
    pub queue: Vec<QueuedView>,
}

fn obstacle(f: &Fields<'_>, i: u64) -> Option<ObstacleView> {
    let p = format!("obstacle[{i}].");
    let id = f.u(&format!("{p}id"))?;
    let shape = u8::try_from(f.u(&format!("{p}shape"))?).ok()?;
    let v = |n: &str| f.f(&format!("{p}{n}"));
    let footprint = match shape {
        1 => {
            v("height")?;
            Footprint::Circle {
                centre: [v("x")?, v("z")?],
                radius: v("radius")?,
            }
        }
        2 => {
            v("max_y")?;
            let (x0, z0, x1, z1) = (v("min_x")?, v("min_z")?, v("max_x")?, v("max_z")?);
            Footprint::Polygon(vec![[x0, z0], [x1, z0], [x1, z1], [x0, z1]])
        }
        3 => Footprint::Polygon(oriented_box_corners(
            v("x")?,
            v("z")?,
            v("half_x")?,
            v("half_z")?,
            v("rotation")?,
        )),
        _ => return None,
    };
    Some(ObstacleView {
        id,
        shape,
        footprint,
    })
}

fn volume(f: &Fields<'_>, i: u64) -> Option<VolumeView> {
    let p = format!("volume[{i}].");
    let id = f.u(&format!("{p}id"))?;
    let area = u8::try_from(f.u(&format!("{p}area"))?).ok()?;
    f.f(&format!("{p}max_y"))?;
    let k = f.u(&format!("{p}corner_count"))?.min(MAX_DRAWN);
    let pts: Vec<[f64; 2]> = (0..k)
        .map_while(|j| {
            Some([
                f.f(&format!("{p}corner[{j}].x"))?,
                f.f(&format!("{p}corner[{j}].z"))?,
            ])
        })
        .collect();
    // A volume cut short inside its corners is drawn with the corners it has.
    (!pts.is_empty()).then_some(VolumeView { id, area, pts })
}

/// The cache's state as far as the decode `f` of an `ONTK` file goes: the obstacles, volumes
/// and queued tiles whose fields are all there, in file order, each list stopping at the first
/// that is not (a cut or hostile file). The queued tiles' cells are on the grid of the mesh
/// snapshot's parameters (`mesh.params.origin`, `mesh.params.tile_size`).
pub fn cache_view(f: &Fields<'_>) -> CacheView {
    let count = |n: &str| f.u(n).unwrap_or(0).min(MAX_DRAWN);
    let grid = (|| {
        Some(RawGrid {
            origin: [
                f.f("mesh.params.origin.x")?,
                f.f("mesh.params.origin.y")?,
                f.f("mesh.params.origin.z")?,
            ],
            tile_size: f.f("mesh.params.tile_size")?,
        })
    })();
    let queue = (0..count("queue_length"))
        .map_while(|j| {
            let column = i32::try_from(f.i(&format!("queue[{j}].column"))?).ok()?;
            let row = i32::try_from(f.i(&format!("queue[{j}].row"))?).ok()?;
            let bounds = grid.as_ref().and_then(|g| {
                let b = g.cell_bounds(column, row);
                (b.iter().all(|c| c.is_finite()) && b[0] < b[2] && b[1] < b[3]).then_some(b)
            });
            Some(QueuedView {
                column,
                row,
                bounds,
            })
        })
        .collect();
    CacheView {
        obstacles: (0..count("obstacle_count"))
            .map_while(|i| obstacle(f, i))
            .collect(),
        volumes: (0..count("volume_count"))
            .map_while(|i| volume(f, i))
            .collect(),
        queue,
    }
}
