//! `onav draw FILE… [--out OUT.svg]`: an SVG top view of tiles, mesh files and snapshots, with
//! query overlays (`crate::draw`); and the picture of `onav diff A B --svg OUT`.

use std::path::{Path, PathBuf};

use super::inspect::read;
use super::{write_file, Outcome};
use crate::draw::{self, Input, Queries, View, DEFAULT_DETAIL_LIMIT, DEFAULT_EXTENTS};
use crate::error::HarnessError;
use crate::files::inspect::add_to_library;

/// Parses `X,Y,Z`: three finite numbers.
pub fn parse_point(s: &str) -> Result<[f64; 3], String> {
    let v = parse_numbers(s, 3)?;
    Ok([v[0], v[1], v[2]])
}

/// Parses `X0,Z0,X1,Z1`: a box with x0 < x1 and z0 < z1.
pub fn parse_region(s: &str) -> Result<[f64; 4], String> {
    let v = parse_numbers(s, 4)?;
    if !(v[0] < v[2] && v[1] < v[3]) {
        return Err(format!("{s}: needs x0 < x1 and z0 < z1"));
    }
    Ok([v[0], v[1], v[2], v[3]])
}

fn parse_numbers(s: &str, n: usize) -> Result<Vec<f64>, String> {
    let v: Vec<f64> = s
        .split(',')
        .map(|x| x.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .map_err(|e| format!("{s}: {e}"))?;
    if v.len() != n {
        return Err(format!("{s}: needs {n} numbers separated by commas"));
    }
    if v.iter().any(|x| !x.is_finite()) {
        return Err(format!("{s}: numbers must be finite"));
    }
    Ok(v)
}

/// The arguments of `onav draw`.
#[derive(Debug, Clone, clap::Args)]
pub struct DrawArgs {
    /// Tile files (drawn together, stitched), mesh files and snapshots.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Write the SVG here (default: standard output; missing folders are created).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Tile files (or mesh files, or Full snapshots) whose tiles a Referenced snapshot names.
    #[arg(long, num_args = 1..)]
    pub library: Vec<PathBuf>,
    /// Only this layer (default: every layer, side by side).
    #[arg(long)]
    pub layer: Option<u32>,
    /// Only this box of the world, X0,Z0,X1,Z1.
    #[arg(long, value_parser = parse_region, allow_hyphen_values = true)]
    pub region: Option<[f64; 4]>,
    /// Above this many tiles in a panel, draw tile outlines and fills only.
    #[arg(long, default_value_t = DEFAULT_DETAIL_LIMIT)]
    pub detail_limit: usize,
    /// Draw find_path's corridor and the straight path from START to END (X,Y,Z each).
    #[arg(long, num_args = 2, value_names = ["START", "END"], value_parser = parse_point, allow_hyphen_values = true)]
    pub path: Option<Vec<[f64; 3]>>,
    /// Draw a raycast from START to END (X,Y,Z each): the walk, the hit and the wall normal.
    #[arg(long, num_args = 2, value_names = ["START", "END"], value_parser = parse_point, allow_hyphen_values = true)]
    pub ray: Option<Vec<[f64; 3]>>,
    /// Draw the nearest polygon to X,Y,Z.
    #[arg(long, value_parser = parse_point, allow_hyphen_values = true)]
    pub nearest: Option<[f64; 3]>,
    /// Half extents X,Y,Z of the nearest-polygon box of every query point.
    #[arg(long, value_parser = parse_point, default_value = "2,4,2")]
    pub extents: [f64; 3],
}

fn library(paths: &[PathBuf]) -> Result<onav::TileLibrary, HarnessError> {
    let mut lib = onav::TileLibrary::new();
    for p in paths {
        add_to_library(&mut lib, &read(p)?).map_err(|source| HarnessError::Library {
            path: p.clone(),
            source: Box::new(source),
        })?;
    }
    Ok(lib)
}

fn input(p: &Path) -> Result<Input, HarnessError> {
    Ok(Input {
        name: p.display().to_string(),
        bytes: read(p)?,
    })
}

fn emit(svg: &str, out: Option<&Path>) -> Result<(), HarnessError> {
    match out {
        Some(p) => write_file(p, svg.as_bytes()),
        None => {
            out!("{svg}");
            Ok(())
        }
    }
}

/// `onav draw`: writes the picture; bytes onav rejects are drawn too (with the error marked), so
/// only unreadable files and bad arguments keep it from running.
pub fn run(a: &DrawArgs) -> Result<Outcome, HarnessError> {
    if let Some(p) = &a.out {
        super::check_output(p, super::OutputKind::File)?;
    }
    let lib = library(&a.library)?;
    let inputs = a
        .files
        .iter()
        .map(|p| input(p))
        .collect::<Result<Vec<_>, _>>()?;
    let pair = |v: &Option<Vec<[f64; 3]>>| v.as_ref().and_then(|v| Some((*v.first()?, *v.get(1)?)));
    let queries = Queries {
        path: pair(&a.path),
        ray: pair(&a.ray),
        nearest: a.nearest,
        extents: if a.extents.iter().all(|e| *e >= 0.0) {
            a.extents
        } else {
            DEFAULT_EXTENTS
        },
    };
    let view = View {
        layer: a.layer,
        region: a.region,
        detail_limit: a.detail_limit,
    };
    emit(
        &draw::draw(&inputs, &lib, &view, &queries),
        a.out.as_deref(),
    )?;
    Ok(Outcome::Pass)
}

/// The `--svg` of `onav diff A B`: both files with their first structural difference marked.
pub fn diff_svg(a: &Path, b: &Path, out: Option<&Path>) -> Result<(), HarnessError> {
    let Some(out) = out else {
        return Ok(());
    };
    super::check_output(out, super::OutputKind::File)?;
    let svg = draw::diff_picture(&input(a)?, &input(b)?, &onav::TileLibrary::new());
    emit(&svg, Some(out))
}
