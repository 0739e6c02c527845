//! Pictures of a failing case (issue 17 item 3): the state the reference reached (expected) and
//! the state the testee reached (got), each drawn from its Full snapshot with the links the
//! backend *reported* for every polygon (`get_poly`'s `links`, `spec/conformance.md` §1.3), not
//! links recomputed here. A link only one side reports is drawn thick on that side and dashed
//! ("missing") on the other, and the first structural difference of the two snapshots is marked
//! on both. A failing query step draws each side's answer (corridor, straight path, nearest
//! polygon and point, raycast's visited polygons) over the mesh, its fields written above.

use onav::{LinkKind, PolyIndex, PolyRef, Side, TileLibrary};
use serde_json::Value;

use super::load::{file_scene, Input};
use super::query::answer_overlay;
use super::render::{render, View};
use super::scene::{link_edge, resolve, EdgeStyle, Mark, MarkKind, Scene};
use crate::files::diff::{diff, Difference};

/// The state of a mesh as the runner observes it: its Full snapshot and, for every polygon (by
/// its reference, `0x…` hex), the links the backend reported (a JSON array of
/// `{"target", "kind", "edge", "side", "lo", "hi", "end"}`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CaseState {
    /// The Full snapshot bytes.
    pub snapshot: Vec<u8>,
    /// `(polygon reference, links)` per polygon, in the runner's order.
    pub links: Vec<(String, Value)>,
    /// The answer of a failing query step (the reply's fields, or the fields expected), drawn
    /// over the mesh; `None` for a failure of links or state.
    pub answer: Option<serde_json::Map<String, Value>>,
}

fn side(s: &str) -> Option<Side> {
    // The protocol's names (`spec/conformance.md` §1.3).
    [Side::PosX, Side::PosZ, Side::NegX, Side::NegZ]
        .into_iter()
        .find(|x| {
            s == match x {
                Side::PosX => "+x",
                Side::PosZ => "+z",
                Side::NegX => "-x",
                Side::NegZ => "-z",
            }
        })
}

/// A reported link as a `LinkKind` with an edge (internal or portal), if it is one.
fn edge_kind(l: &Value) -> Option<LinkKind> {
    let edge = u8::try_from(l.get("edge")?.as_u64()?).ok()?;
    match l.get("kind")?.as_str()? {
        "internal" => Some(LinkKind::Internal { edge }),
        "portal" => Some(LinkKind::Portal {
            edge,
            side: side(l.get("side")?.as_str()?)?,
            lo: l.get("lo")?.as_f64()?,
            hi: l.get("hi")?.as_f64()?,
        }),
        _ => None,
    }
}

fn parse_ref(hex: &str) -> Option<PolyRef> {
    let h = hex.strip_prefix("0x")?;
    PolyRef::from_raw(u64::from_str_radix(h, 16).ok()?)
}

fn links_of<'a>(s: &'a CaseState, poly: &str) -> &'a [Value] {
    s.links
        .iter()
        .find(|(p, _)| p == poly)
        .and_then(|(_, v)| v.as_array())
        .map_or(&[], |v| v.as_slice())
}

/// Replaces the scene's edge links by the ones `mine` reports, styled against `other`'s.
fn reported_edges(scene: &mut Scene, mine: &CaseState, other: &CaseState) {
    for t in &mut scene.tiles {
        t.edges.clear();
    }
    let add = |scene: &mut Scene, poly: &str, l: &Value, style: Option<EdgeStyle>| {
        let (Some(r), Some(kind)) = (parse_ref(poly), edge_kind(l)) else {
            return;
        };
        let PolyIndex(p) = r.poly();
        let Some(t) = scene.tiles.iter_mut().find(|t| t.slot == Some(r.slot().0)) else {
            return;
        };
        if let Some(mut e) = link_edge(t, p as usize, &kind) {
            if let Some(s) = style {
                e.style = s;
            }
            t.edges.push(e);
        }
    };
    for (poly, v) in &mine.links {
        let theirs = links_of(other, poly);
        for l in v.as_array().map_or(&[][..], |a| a.as_slice()) {
            let style = (!theirs.contains(l)).then_some(EdgeStyle::Extra);
            add(scene, poly, l, style);
        }
    }
    for (poly, v) in &other.links {
        let here = links_of(mine, poly);
        for l in v.as_array().map_or(&[][..], |a| a.as_slice()) {
            if !here.contains(l) {
                add(scene, poly, l, Some(EdgeStyle::Missing));
            }
        }
    }
    let extra: usize = mine
        .links
        .iter()
        .map(|(p, v)| {
            let theirs = links_of(other, p);
            v.as_array()
                .map_or(0, |a| a.iter().filter(|l| !theirs.contains(l)).count())
        })
        .sum();
    if extra > 0 {
        let s = if extra == 1 { "" } else { "s" };
        scene.problems.push(format!(
            "{extra} link{s} reported here and not in the other picture"
        ));
    }
}

fn picture(name: &str, mine: &CaseState, other: &CaseState, d: &Difference) -> String {
    let mut scene = file_scene(
        &Input {
            name: name.to_owned(),
            bytes: mine.snapshot.clone(),
        },
        &TileLibrary::new(),
    );
    reported_edges(&mut scene, mine, other);
    let notes = mark_difference(&mut scene, d, name == "expected");
    let overlay = mine
        .answer
        .as_ref()
        .map(|a| answer_overlay(scene.mesh.as_ref(), name, a, other.answer.as_ref()));
    render(
        &[scene],
        overlay.as_ref().map(|o| (0, o)),
        &View::default(),
        &notes,
    )
}

/// The field path of a difference on side A (`a`) or B.
pub fn difference_path(d: &Difference, a: bool) -> Option<&str> {
    match d {
        Difference::Value { a: x, b: y, .. }
        | Difference::Structure { a: x, b: y, .. }
        | Difference::Length { a: x, b: y } => Some(if a { &x.path } else { &y.path }),
        Difference::OnlyInA { a: x, .. } => Some(&x.path),
        Difference::OnlyInB { b: y, .. } => Some(&y.path),
        _ => None,
    }
}

/// Marks the first difference on a scene (side A when `a`); returns its text, a line each.
pub fn mark_difference(scene: &mut Scene, d: &Difference, a: bool) -> Vec<String> {
    if *d == Difference::Identical {
        return Vec::new();
    }
    let text = d.to_string().lines().map(|l| l.trim().to_owned()).collect();
    let Some(path) = difference_path(d, a) else {
        return text;
    };
    let (tile, target) = resolve(scene, path);
    scene.marks.push(Mark {
        tile,
        target,
        kind: MarkKind::Difference,
        label: path.to_owned(),
    });
    text
}

/// `expected.svg` and `got.svg` of a failing case: each state's snapshot with its reported links;
/// links only one side reports highlighted on both, the first snapshot difference marked.
pub fn case_pictures(expected: &CaseState, got: &CaseState) -> (String, String) {
    let d = diff(&expected.snapshot, &got.snapshot);
    (
        picture("expected", expected, got, &d),
        picture("got", got, expected, &d),
    )
}
