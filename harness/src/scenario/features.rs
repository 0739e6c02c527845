//! The feature registry (`spec/conformance.md` §1.9).

/// The feature registry: every name a scenario may list under `features:`, and what it means.
/// A testee announces the features it supports in its `hello` reply; a scenario needing one it
/// lacks is reported `unsupported`.
pub const FEATURES: &[(&str, &str)] = &[
    (
        "tile",
        "tile bytes parsed and validated on their own (parse_tile, content_id)",
    ),
    (
        "navmesh",
        "meshes: new_mesh, add/remove/replace tile, area and flag edits, is_valid_ref",
    ),
    (
        "links",
        "stitched links observed through get_poly (also used by state comparisons)",
    ),
    ("off-mesh-links", "tiles with off-mesh links, and set_link"),
    ("layers", "several tiles in one cell at different layers"),
    (
        "snapshot-full",
        "snapshots in Full mode and restore into a new mesh",
    ),
    (
        "snapshot-referenced",
        "snapshots in Referenced mode and restore with a tile library",
    ),
    (
        "restore-in-place",
        "restore into an existing mesh (all or nothing)",
    ),
    ("meshfile", "mesh files: write_mesh and read_mesh"),
    ("query-nearest", "find_nearest_poly"),
    ("query-path", "find_path and corridor_cost"),
    ("query-straight-path", "find_straight_path"),
    ("query-raycast", "raycast"),
    (
        "build3d",
        "the 3D builder: build tiles from OBJ geometry and settings (spec/build3d.md)",
    ),
    (
        "tilecache",
        "tile caches: obstacles, area volumes, update, ONTK snapshots and restores (spec/tilecache.md)",
    ),
];

/// True when `name` is in the registry.
pub fn is_feature(name: &str) -> bool {
    FEATURES.iter().any(|(f, _)| *f == name)
}
