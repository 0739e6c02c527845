//! `onav draw`: SVG pictures of tiles, mesh files and snapshots for people (issue 17) — a top
//! view with tiles, polygons by area, links, off-mesh links, edits and switches, onav's verdict
//! on bytes it rejects, query overlays, the first difference of two files, and the expected and
//! got states of a failing case.
//!
//! Data flows one way: files → [`load`] (onav's API, or the structural decode for rejected
//! bytes) → [`scene`] → [`render`] (with [`query`] overlays) → SVG text ([`svg`]). The same input
//! gives the same bytes: numbers are written with fixed decimals, nothing depends on a map's
//! order, the locale or the clock.

mod cache;
mod case;
mod load;
mod query;
mod render;
mod scene;
mod svg;
#[cfg(test)]
mod tests;

use onav::TileLibrary;

pub use case::{case_pictures, CaseState};
pub use load::Input;
pub use query::{Queries, DEFAULT_EXTENTS};
pub use render::{View, DEFAULT_DETAIL_LIMIT};

use crate::files::diff::diff;

/// The picture of `inputs` (tiles together, then each mesh file or snapshot), with the queries
/// run on the first scene that holds a valid mesh.
pub fn draw(inputs: &[Input], library: &TileLibrary, view: &View, queries: &Queries) -> String {
    let scenes = load::scenes(inputs, library);
    let asked = queries.path.is_some() || queries.ray.is_some() || queries.nearest.is_some();
    let overlay = if asked {
        match scenes.iter().position(|s| s.mesh.is_some()) {
            Some(i) => scenes[i]
                .mesh
                .as_ref()
                .map(|m| (i, query::overlay(m, queries))),
            None => Some((
                0,
                query::Overlay {
                    notes: vec!["queries not run: no valid mesh among the files".into()],
                    ..query::Overlay::default()
                },
            )),
        }
    } else {
        None
    };
    render::render(&scenes, overlay.as_ref().map(|(i, o)| (*i, o)), view, &[])
}

/// `onav diff A B --svg`: both files side by side, the first structural difference marked on
/// each and written out above them.
pub fn diff_picture(a: &Input, b: &Input, library: &TileLibrary) -> String {
    let d = diff(&a.bytes, &b.bytes);
    let mut sa = load::file_scene(a, library);
    let mut sb = load::file_scene(b, library);
    load::mesh_file_prefixes(&mut sa, &a.bytes);
    load::mesh_file_prefixes(&mut sb, &b.bytes);
    sa.title = format!("A = {}", sa.title);
    sb.title = format!("B = {}", sb.title);
    let notes = case::mark_difference(&mut sa, &d, true);
    if let Some(p) = case::difference_path(&d, false) {
        let (tile, target) = scene::resolve(&sb, p);
        sb.marks.push(scene::Mark {
            tile,
            target,
            kind: scene::MarkKind::Difference,
            label: p.to_owned(),
        });
    }
    render::render(&[sa, sb], None, &View::default(), &notes)
}

/// Fuzz entry point: draws arbitrary bytes as a file, alone and against a library holding
/// itself, with every query; never panics, and the same bytes give the same picture.
#[cfg(any(test, feature = "fuzzing"))]
pub fn fuzz_draw(data: &[u8]) -> String {
    let input = Input {
        name: "fuzz".into(),
        bytes: data.to_vec(),
    };
    let q = Queries {
        path: Some(([0.5, 0.0, 0.5], [40.0, 0.0, 40.0])),
        ray: Some(([0.5, 0.0, 0.5], [40.0, 0.0, 0.5])),
        nearest: Some([1.0, 0.0, 1.0]),
        extents: DEFAULT_EXTENTS,
    };
    let lib = TileLibrary::new();
    let a = draw(std::slice::from_ref(&input), &lib, &View::default(), &q);
    assert_eq!(
        a,
        draw(std::slice::from_ref(&input), &lib, &View::default(), &q)
    );
    let _ = diff_picture(&input, &input, &lib);
    a
}
