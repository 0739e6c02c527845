//! Building and restoring whole meshes (issue 13 item 4): onav's parse + `add_tile` of every
//! tile, `NavMeshSnapshot::restore` of a Full and a Referenced snapshot into a new mesh, and
//! `read_mesh` of the mesh file, each against Detour's `dtAllocNavMesh` + `init` + `addTile` of
//! the same tiles (the blobs are re-added with flags 0; `dtFreeNavMesh` and onav's drop are not
//! timed).

use std::hint::black_box;
use std::time::Instant;

use crate::adapter;
use crate::case::Case;
use crate::detour::NavMesh;
use crate::timing::{interleave, Stats};

/// ns per whole-mesh step.
#[derive(Debug, Clone, Copy, Default)]
pub struct MeshReport {
    /// Detour alloc + init + addTile × all.
    pub detour_add: Stats,
    /// onav parse + add_tile × all.
    pub onav_add: Stats,
    /// onav restore of a Full snapshot into a new mesh.
    pub restore_full: Stats,
    /// onav restore of a Referenced snapshot into a new mesh.
    pub restore_ref: Stats,
    /// onav read_mesh.
    pub read_mesh: Stats,
    /// Bytes: tile data (onav), Full snapshot, Referenced snapshot, mesh file.
    pub sizes: (usize, usize, usize, usize),
}

/// Runs the comparison with `rounds` rounds of `reps` calls per contender.
pub fn run(c: &Case, rounds: usize, reps: usize) -> Result<MeshReport, String> {
    let params = c.build.params;
    let full = c.onav.snapshot(true);
    let referenced = c.onav.snapshot(false);
    let lib = c.onav.library();
    let empty = adapter::empty_library();
    let file = c.onav.write();
    // Check every path once before timing it.
    adapter::restore_new(&full, &empty)?;
    adapter::restore_new(&referenced, &lib)?;
    adapter::read_mesh(&file)?;
    dump(c, &full, &file)?;
    let mut blobs = c.build.blobs.clone();
    let mut errors: Vec<String> = Vec::new();
    let mut detour = || {
        let mut ns = 0u128;
        for _ in 0..reps {
            let b = std::mem::take(&mut blobs);
            let t = Instant::now();
            let m = NavMesh::new(&params, b);
            ns += t.elapsed().as_nanos();
            match m {
                Ok(m) => blobs = m.into_blobs(),
                Err(e) => errors.push(e),
            }
        }
        ns as f64 / reps as f64
    };
    let onav_step = |f: &dyn Fn() -> Result<adapter::Mesh, String>| {
        let mut ns = 0u128;
        for _ in 0..reps {
            let t = Instant::now();
            let m = f();
            ns += t.elapsed().as_nanos();
            drop(black_box(m));
        }
        ns as f64 / reps as f64
    };
    let add = || adapter::parse_and_add(&c.tiles.params, &c.tiles.bytes);
    let rf = || adapter::restore_new(&full, &empty);
    let rr = || adapter::restore_new(&referenced, &lib);
    let rm = || adapter::read_mesh(&file);
    let s = interleave(
        rounds,
        &mut [
            &mut detour,
            &mut || onav_step(&add),
            &mut || onav_step(&rf),
            &mut || onav_step(&rr),
            &mut || onav_step(&rm),
        ],
    );
    if let Some(e) = errors.first() {
        return Err(e.clone());
    }
    let tile_bytes = c.tiles.bytes.iter().map(Vec::len).sum();
    Ok(MeshReport {
        detour_add: s[0],
        onav_add: s[1],
        restore_full: s[2],
        restore_ref: s[3],
        read_mesh: s[4],
        sizes: (tile_bytes, full.len(), referenced.len(), file.len()),
    })
}

/// With `ONAV_BENCH_DUMP=DIR` set, writes the case's converted tiles (`DIR/<mesh>/tile_NNN.ontl`,
/// in the order they are added), its Full snapshot (`full.onps`) and its mesh file (`mesh.onms`),
/// so that a profiler can replay exactly the timed onav inputs without the C++ side.
fn dump(c: &Case, full: &[u8], file: &[u8]) -> Result<(), String> {
    let Some(dir) = std::env::var_os("ONAV_BENCH_DUMP") else {
        return Ok(());
    };
    let dir = std::path::Path::new(&dir).join(&c.name);
    let io = |e: std::io::Error| format!("ONAV_BENCH_DUMP {}: {e}", dir.display());
    std::fs::create_dir_all(&dir).map_err(io)?;
    for (i, b) in c.tiles.bytes.iter().enumerate() {
        std::fs::write(dir.join(format!("tile_{i:03}.ontl")), b).map_err(io)?;
    }
    std::fs::write(dir.join("full.onps"), full).map_err(io)?;
    std::fs::write(dir.join("mesh.onms"), file).map_err(io)?;
    Ok(())
}
