//! `onav build INPUT.obj [--settings FILE.yaml] --out FILE.onms [--threads N]`: builds a mesh file
//! from OBJ geometry with the voxel builder (`spec/build3d.md`), showing progress on a terminal
//! and a summary when done.
//!
//! The settings file is YAML with the fields of `spec/build3d.md` §3.1 (Recast's parameters:
//! `cell_size`, `cell_height`, `agent_height`, `agent_radius`, `agent_climb`, `max_slope_deg`,
//! `region_min_area`, `region_merge_area`, `max_edge_len`, `max_edge_error`, `verts_per_poly`,
//! `detail_sample_dist`, `detail_sample_max_error`, `tile_size`, `volumes`); a field left out has
//! its demo value, and without a file every field does. The tile cells are built in parallel on
//! `--threads` threads (default: the machine's), each through `Plan::prepare` and `Plan::finish`
//! (B2: the tiles of `build`), so that progress can be counted per cell; the result is checked
//! as one mesh (`built::check`) before it is written.

use std::io::{IsTerminal as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use onav::NavTile;
use onav_build3d::{BuildError, Geometry, ObjError, Plan, Settings, SettingsSpec};
use rayon::prelude::*;

use super::{write_file, Outcome};
use crate::built::{self, BuiltError, Summary};
use crate::error::HarnessError;

/// Why `onav build` could not build (exit status 2).
#[derive(Debug, thiserror::Error)]
pub enum BuildCommandError {
    /// The settings file is not YAML of the settings' fields.
    #[error("{}: {message}", path.display())]
    SettingsYaml {
        /// The file.
        path: PathBuf,
        /// The YAML reader's message (line and column).
        message: String,
    },
    /// A settings value breaks a rule of `spec/build3d.md` §3.1.
    #[error("{}: {field}: {reason}", path.display())]
    Settings {
        /// The file, or `(demo settings)`.
        path: PathBuf,
        /// The field path.
        field: String,
        /// Why.
        reason: onav::FormatReason,
    },
    /// The OBJ file cannot be read (B4).
    #[error("{}: {source}", path.display())]
    Obj {
        /// The file.
        path: PathBuf,
        /// The line and why.
        source: ObjError,
    },
    /// The input holds no face: not OBJ geometry (B4 skips every line that is not `v` or `f`,
    /// so a README or a picture would read as an empty OBJ). The `build` op still builds such
    /// geometry to no tile (`build3d/y_no-triangles`); only the command refuses it, since a
    /// mesh file of nothing is never what a user asked for.
    #[error(
        "{}: not OBJ geometry: it has no face (`f` line), so there is nothing to build",
        path.display()
    )]
    NoFaces {
        /// The file.
        path: PathBuf,
    },
    /// The build fails: a limit, a hole or a triangulation (`spec/build3d.md` §16, §17).
    #[error("{}: {source}", path.display())]
    Build {
        /// The OBJ file.
        path: PathBuf,
        /// The builder's error.
        source: BuildError,
    },
    /// The built tiles fail the checks of a build (a builder bug).
    #[error("{}: the built tiles fail their check: {source}", path.display())]
    Check {
        /// The OBJ file.
        path: PathBuf,
        /// What failed.
        source: BuiltError,
    },
    /// A thread pool could not be built.
    #[error("a pool of {threads} threads: {message}")]
    Threads {
        /// Thread count.
        threads: usize,
        /// Why.
        message: String,
    },
}

impl From<BuildCommandError> for HarnessError {
    fn from(e: BuildCommandError) -> Self {
        HarnessError::Build(Box::new(e))
    }
}

/// What `onav build` is asked to do.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// The OBJ file.
    pub input: PathBuf,
    /// The settings YAML (none: the demo settings).
    pub settings: Option<PathBuf>,
    /// The mesh file to write.
    pub out: PathBuf,
    /// Worker threads (none: the machine's).
    pub threads: Option<usize>,
}

/// Reads the settings: the YAML file's fields over the demo settings, validated.
pub fn read_settings(path: Option<&Path>) -> Result<Settings, HarnessError> {
    let (spec, shown) = match path {
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|e| HarnessError::io(p, e))?;
            let spec: SettingsSpec =
                serde_saphyr::from_str(&text).map_err(|e| BuildCommandError::SettingsYaml {
                    path: p.to_path_buf(),
                    message: e.to_string(),
                })?;
            (spec, p.to_path_buf())
        }
        None => (SettingsSpec::default(), PathBuf::from("(demo settings)")),
    };
    Settings::new(spec).map_err(|e| {
        BuildCommandError::Settings {
            path: shown,
            field: e.field,
            reason: e.reason,
        }
        .into()
    })
}

/// A progress line on standard error, when it is a terminal: tile cells done of all, as a bar.
struct Progress {
    total: usize,
    done: AtomicUsize,
    shown: Mutex<usize>,
    on: bool,
}

impl Progress {
    const WIDTH: usize = 30;

    fn new(total: usize) -> Self {
        Self {
            total,
            done: AtomicUsize::new(0),
            shown: Mutex::new(usize::MAX),
            on: std::io::stderr().is_terminal(),
        }
    }

    fn tick(&self) {
        if !self.on {
            return;
        }
        let n = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        let filled = n * Self::WIDTH / self.total.max(1);
        let Ok(mut shown) = self.shown.lock() else {
            return;
        };
        if *shown != filled || n == self.total {
            *shown = filled;
            let mut e = std::io::stderr().lock();
            let _ = write!(
                e,
                "\rbuilding [{}{}] {n}/{} tile cells",
                "#".repeat(filled),
                ".".repeat(Self::WIDTH - filled),
                self.total
            );
            let _ = e.flush();
        }
    }

    fn finish(&self) {
        if self.on {
            let _ = write!(std::io::stderr(), "\r{:w$}\r", "", w = Self::WIDTH + 40);
        }
    }
}

/// The tiles of every tile cell of `plan`, in build order (B1), counting progress.
fn build_cells(plan: &Plan, progress: &Progress) -> Result<Vec<NavTile>, BuildError> {
    let per_cell: Vec<Result<Vec<NavTile>, BuildError>> = (0..plan.tile_cells().len())
        .into_par_iter()
        .map(|i| {
            let r = match plan.prepare(i) {
                Ok(Some(im)) => plan.finish(&im, &[]),
                Ok(None) => Ok(Vec::new()),
                Err(e) => Err(e),
            };
            progress.tick();
            r
        })
        .collect();
    let mut tiles = Vec::new();
    for r in per_cell {
        tiles.extend(r?);
    }
    Ok(tiles)
}

/// The summary lines `onav build` prints.
pub fn summary_text(
    input: &Path,
    geometry: &Geometry,
    settings_shown: &str,
    params: &onav::MeshParams,
    s: &Summary,
) -> String {
    let o = params.grid().origin();
    format!(
        "{}: {} triangles; settings: {settings_shown}\n\
         grid: origin ({}, {}, {}), tiles of {} wu\n\
         tiles: {} in {} cells ({} on upper layers, at most {} layers in a cell)\n\
         polygons: {}, detail triangles: {}\n\
         walkable area: {:.1} wu²\n\
         settings digest: {}\n",
        input.display(),
        geometry.triangle_count(),
        o[0],
        o[1],
        o[2],
        params.grid().tile_size(),
        s.tiles,
        s.cells,
        s.upper_layers,
        s.max_layers,
        s.polygons,
        s.detail_triangles,
        s.walkable_area,
        params.digest().to_hex(),
    )
}

/// Why a build came out empty, if it did: a mesh file with no tiles is valid (it restores and
/// answers every query with "no polygon"), but a user who built it almost certainly expected
/// polygons, so the command says so on standard error. (An input with no face never gets here:
/// [`BuildCommandError::NoFaces`].)
fn empty_reason(s: &Summary) -> Option<&'static str> {
    (s.tiles == 0).then_some("no triangle gave a walkable surface at these settings")
}

/// `onav build`.
pub fn run(o: &BuildOptions) -> Result<Outcome, HarnessError> {
    let start = Instant::now();
    super::check_output(&o.out, super::OutputKind::File)?;
    let settings = read_settings(o.settings.as_deref())?;
    let obj = std::fs::read(&o.input).map_err(|e| HarnessError::io(&o.input, e))?;
    let path = || o.input.clone();
    let geometry = Geometry::from_obj(&obj).map_err(|source| BuildCommandError::Obj {
        path: path(),
        source,
    })?;
    if geometry.triangle_count() == 0 {
        return Err(BuildCommandError::NoFaces { path: path() }.into());
    }
    let build_err = |source| BuildCommandError::Build {
        path: path(),
        source,
    };
    let plan = Plan::new(&geometry, &settings).map_err(build_err)?;
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(t) = o.threads {
        pool = pool.num_threads(t);
    }
    let pool = pool.build().map_err(|e| BuildCommandError::Threads {
        threads: o.threads.unwrap_or(0),
        message: e.to_string(),
    })?;
    let threads = pool.current_num_threads();
    let progress = Progress::new(plan.tile_cells().len());
    let tiles = pool.install(|| build_cells(&plan, &progress));
    progress.finish();
    let tiles = tiles.map_err(build_err)?;
    let count = tiles.len() as u64;
    if count > onav_build3d::limits::MAX_TILES {
        return Err(build_err(BuildError::Limit {
            tile: None,
            layer: None,
            limit: onav_build3d::LimitKind::Tiles,
            value: count,
            max: onav_build3d::limits::MAX_TILES,
        })
        .into());
    }
    let params = plan
        .mesh_params(tiles.len().max(1) as u32)
        .map_err(build_err)?;
    let (mesh, summary) =
        built::check(params, &tiles).map_err(|source| BuildCommandError::Check {
            path: path(),
            source,
        })?;
    let file = onav::write_mesh(&mesh);
    write_file(&o.out, &file)?;
    if let Some(why) = empty_reason(&summary) {
        eprintln!(
            "warning: {}: {why}; the mesh file holds no tiles",
            o.input.display()
        );
    }
    let shown = o
        .settings
        .as_ref()
        .map_or("demo (spec/build3d.md §3.1)".to_owned(), |p| {
            p.display().to_string()
        });
    out!(
        "{}",
        summary_text(&o.input, &geometry, &shown, &params, &summary)
    );
    outln!(
        "wrote {} ({} bytes) in {:.2} s on {threads} thread{}",
        o.out.display(),
        file.len(),
        start.elapsed().as_secs_f64(),
        if threads == 1 { "" } else { "s" }
    );
    Ok(Outcome::Pass)
}
