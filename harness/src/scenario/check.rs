//! The load-time checks (`spec/conformance.md` §1.8): schema version, file prefix against
//! `class`, spec anchors, features, names defined before use, expectation placement.

use std::collections::{BTreeMap, BTreeSet};

use super::anchors::check_anchor;
use super::features::{is_feature, FEATURES};
use super::model::*;
use super::numbers::parse_hex;
use super::refs::RefSpec;

/// What a name holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A `WorldSpec`.
    World,
    /// Bytes (tiles, snapshots, mesh files).
    Bytes,
    /// A mesh handle.
    Mesh,
    /// A tile reference.
    Ref,
}

/// Names defined so far, with their kind.
#[derive(Debug, Default)]
struct Scope {
    names: BTreeMap<String, Kind>,
}

impl Scope {
    fn def(&mut self, name: &str, kind: Kind) -> Result<(), String> {
        if !valid_name(name) {
            return Err(format!(
                "name {name:?}: use letters, digits, '_' and '-', starting with a letter"
            ));
        }
        if self.names.insert(name.to_owned(), kind).is_some() {
            return Err(format!("name {name:?} is defined twice"));
        }
        Ok(())
    }
    fn want(&self, name: &str, kind: Kind) -> Result<(), String> {
        match self.names.get(name) {
            Some(k) if *k == kind => Ok(()),
            Some(k) => Err(format!("{name:?} is a {k:?}, not a {kind:?}")),
            None => Err(format!("{name:?} is not defined before this step")),
        }
    }
    fn want_ref(&self, spec: &str) -> Result<(), String> {
        match RefSpec::parse(spec).map_err(|e| e.to_string())? {
            RefSpec::Named { name, .. } => self.want(&name, Kind::Ref),
            _ => Ok(()),
        }
    }
}

fn valid_label(l: &str) -> bool {
    !l.is_empty()
        && l.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
}

/// The load-time checks.
pub fn check(id: &str, s: &Scenario) -> Result<(), String> {
    if s.schema != SCHEMA_VERSION {
        return Err(format!(
            "schema {} is not the version this runner reads ({SCHEMA_VERSION})",
            s.schema
        ));
    }
    if s.id != id {
        return Err(format!("id {:?} must equal the file's path {id:?}", s.id));
    }
    let file = id.rsplit('/').next().unwrap_or(id);
    if !id.contains('/') {
        return Err("a scenario lives in an area folder: scenarios/<area>/".into());
    }
    if !file.starts_with(s.class.prefix()) {
        return Err(format!(
            "class {:?} needs the file prefix {}",
            s.class,
            s.class.prefix()
        ));
    }
    let rest = &file[2..];
    if rest.is_empty()
        || !rest
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return Err("file names are <prefix>_<lowercase-words-with-dashes>.yaml".into());
    }
    if s.spec.is_empty() {
        return Err("at least one spec anchor is needed".into());
    }
    for a in &s.spec {
        check_anchor(a)?;
    }
    let mut declared = BTreeSet::new();
    for f in &s.features {
        if !is_feature(f) {
            return Err(format!(
                "unknown feature {f:?}; known: {}",
                FEATURES.iter().map(|f| f.0).collect::<Vec<_>>().join(", ")
            ));
        }
        if !declared.insert(f.as_str()) {
            return Err(format!("feature {f:?} listed twice"));
        }
    }
    if s.steps.is_empty() {
        return Err("no steps".into());
    }
    let mut scope = Scope::default();
    let mut implied = BTreeSet::new();
    let mut labels = BTreeSet::new();
    let mut stats = Stats::default();
    check_steps(
        &s.steps,
        &mut scope,
        &mut implied,
        &mut labels,
        &mut stats,
        false,
    )
    .map_err(|(i, m)| format!("step {}: {m}", i + 1))?;
    for f in &implied {
        if !declared.contains(f) {
            return Err(format!(
                "the steps use feature {f:?}; list it under features"
            ));
        }
    }
    match s.class {
        Class::Accept if stats.rejections > 0 => {
            Err("a y_ scenario expects no rejection (use n_)".into())
        }
        Class::Reject if stats.errors == 0 => {
            Err("an n_ scenario needs an expect with an error class and field".into())
        }
        Class::ImplementationDefined if stats.any == 0 => Err(
            "an i_ scenario needs an expect with outcome: any or outcome: rejected (no class or field)"
                .into(),
        ),
        _ => Ok(()),
    }
}

#[derive(Debug, Default)]
struct Stats {
    rejections: usize,
    errors: usize,
    any: usize,
}

fn world_features(w: &WorldStep, implied: &mut BTreeSet<&'static str>) {
    if w.layers.is_some_and(|l| l > 1) {
        implied.insert("layers");
    }
    if w.links_per_tile.is_some_and(|l| l > 0) {
        implied.insert("off-mesh-links");
    }
}

type StepErr = (usize, String);

fn check_steps(
    steps: &[Step],
    scope: &mut Scope,
    implied: &mut BTreeSet<&'static str>,
    labels: &mut BTreeSet<String>,
    stats: &mut Stats,
    in_continue: bool,
) -> Result<(), StepErr> {
    for (i, step) in steps.iter().enumerate() {
        let at = |m: String| (i, m);
        if in_continue {
            match step.mesh_key() {
                Some(None) => {}
                Some(Some(_)) => {
                    return Err(at(format!(
                        "{} inside continue takes no mesh key: it applies to both meshes",
                        step.key()
                    )))
                }
                None => {
                    return Err(at(format!(
                        "{} is not a mesh operation; continue takes add_tile, remove_tile, \
                         replace_tile, set_area, set_flags, set_link, is_valid_ref, get_poly, \
                         snapshot and the queries",
                        step.key()
                    )))
                }
            }
        } else if let Some(m) = step.mesh_key() {
            match m {
                Some(m) => scope.want(m, Kind::Mesh).map_err(at)?,
                None => return Err(at(format!("{} needs a mesh key", step.key()))),
            }
        }
        if let Step::Expect(e) = step {
            if i == 0 || matches!(steps[i - 1], Step::Expect(_)) {
                return Err(at("expect follows the step it checks".into()));
            }
            let prev = &steps[i - 1];
            if matches!(prev, Step::World(_) | Step::Tiles(_) | Step::Continue(_)) {
                return Err(at(format!("{} has nothing to expect", prev.key())));
            }
            if (e.error.is_some() || e.outcome.is_some()) && prev.is_local() {
                return Err(at(format!(
                    "{} is computed by the runner and cannot be rejected",
                    prev.key()
                )));
            }
            if e.error.is_some() && e.outcome.is_some_and(|o| o != OutcomeKind::Rejected) {
                return Err(at("error implies outcome: rejected".into()));
            }
            if e.state.is_some() || e.same_state.is_some() {
                implied.insert("links");
                let acts_on_mesh =
                    prev.mesh_key().is_some() || matches!(prev, Step::RestoreInto(_));
                let makes_mesh = matches!(prev, Step::Restore(_) | Step::ReadMesh(_));
                if e.state.is_some() && !acts_on_mesh {
                    return Err(at(format!("{} has no mesh state before it", prev.key())));
                }
                if !acts_on_mesh && !makes_mesh {
                    return Err(at(format!("{} has no mesh to compare", prev.key())));
                }
            }
            if let Some(m) = &e.same_state {
                scope.want(m, Kind::Mesh).map_err(at)?;
            }
            for b in [&e.equals, &e.differs].into_iter().flatten() {
                scope.want(b, Kind::Bytes).map_err(at)?;
            }
            if let Some(t) = &e.tile_ref {
                scope.want_ref(t).map_err(at)?;
            }
            if let Some(links) = &e.links {
                for l in links {
                    scope.want_ref(&l.to).map_err(at)?;
                    if !["internal", "portal", "to_off_mesh", "from_off_mesh"]
                        .contains(&l.kind.as_str())
                    {
                        return Err(at(format!("link kind {:?} is unknown", l.kind)));
                    }
                }
            }
            if let Some(g) = &e.golden {
                if !valid_label(g) {
                    return Err(at(format!("golden label {g:?}: use a-z, 0-9, '-' and '_'")));
                }
                if !labels.insert(g.clone()) {
                    return Err(at(format!("golden label {g:?} used twice")));
                }
            }
            if let Some(q) = &e.query {
                if crate::protocol::query::Op::of(prev.key()).is_none() {
                    return Err(at(format!("{} is not a query", prev.key())));
                }
                for r in q.refs() {
                    scope.want_ref(r).map_err(at)?;
                }
            }
            if let Some(h) = &e.sha256 {
                if h.len() != 64 || parse_hex(h).is_err() {
                    return Err(at("sha256 is 64 hex digits".into()));
                }
            }
            for b in e.bytes_at.iter().flatten() {
                parse_hex(&b.hex).map_err(at)?;
            }
            if let Some(id) = &e.id {
                if id != "sha256" && (id.len() != 64 || parse_hex(id).is_err()) {
                    return Err(at("id is 64 hex digits or sha256".into()));
                }
            }
            if e.error.is_some() {
                stats.errors += 1;
            }
            if e.admits_rejection() {
                stats.rejections += 1;
            }
            if e.error.is_none() && e.outcome.is_some_and(|o| o != OutcomeKind::Ok) {
                stats.any += 1;
            }
            continue;
        }
        check_step(step, scope, implied).map_err(at)?;
        if let Step::Continue(c) = step {
            if in_continue {
                return Err(at("continue does not nest".into()));
            }
            scope.want(&c.meshes.0, Kind::Mesh).map_err(at)?;
            scope.want(&c.meshes.1, Kind::Mesh).map_err(at)?;
            implied.insert("links");
            if c.ops.is_empty() {
                return Err(at("continue needs operations".into()));
            }
            check_steps(&c.ops, scope, implied, labels, stats, true)
                .map_err(|(j, m)| (i, format!("operation {}: {m}", j + 1)))?;
        }
    }
    Ok(())
}

fn check_step(
    step: &Step,
    scope: &mut Scope,
    implied: &mut BTreeSet<&'static str>,
) -> Result<(), String> {
    let bytes = |scope: &Scope, n: &str| scope.want(n, Kind::Bytes);
    match step {
        Step::World(w) => {
            if let Some(l) = &w.like {
                scope.want(l, Kind::World)?;
            }
            world_features(w, implied);
            scope.def(&w.name, Kind::World)?;
        }
        Step::Tile(t) => {
            scope.want(&t.world, Kind::World)?;
            scope.def(&t.name, Kind::Bytes)?;
        }
        Step::Tiles(t) => {
            scope.want(&t.world, Kind::World)?;
            for n in &t.names {
                scope.def(n, Kind::Bytes)?;
            }
        }
        Step::Bytes(b) => {
            match (&b.hex, &b.file) {
                (Some(h), None) => {
                    parse_hex(h)?;
                }
                (None, Some(f)) => {
                    if f.split('/').any(|c| c == ".." || c.is_empty()) || f.starts_with('/') {
                        return Err(format!(
                            "file {f:?}: a relative path below the folder, without '..'"
                        ));
                    }
                }
                _ => return Err("bytes: give hex or file".into()),
            }
            scope.def(&b.name, Kind::Bytes)?;
        }
        Step::RawTile(r) => {
            bytes(scope, &r.from)?;
            for e in &r.edits {
                match e {
                    RawEdit::DigestOf(w) => scope.want(w, Kind::World)?,
                    RawEdit::AddLink { .. } => {
                        implied.insert("off-mesh-links");
                    }
                    _ => {}
                }
            }
            scope.def(&r.name, Kind::Bytes)?;
        }
        Step::NewMesh(n) => {
            implied.insert("navmesh");
            match (&n.world, n.slots, &n.params) {
                (Some(w), Some(_), None) => scope.want(w, Kind::World)?,
                (None, None, Some(p))
                    if n.origin.is_none() && n.tile_size.is_none() && n.digest_of.is_none() =>
                {
                    if parse_hex(p)?.len() != 68 {
                        return Err("params is the 68-byte parameter block".into());
                    }
                }
                _ => {
                    return Err(
                        "new_mesh takes world and slots (with optional overrides), or params"
                            .into(),
                    )
                }
            }
            if let Some(d) = &n.digest_of {
                scope.want(d, Kind::World)?;
            }
            scope.def(&n.name, Kind::Mesh)?;
        }
        Step::AddTile(a) | Step::ReplaceTile(a) => {
            bytes(scope, &a.tile)?;
            if let Some(n) = &a.name {
                scope.def(n, Kind::Ref)?;
            }
        }
        Step::RemoveTile(r) => scope.want_ref(&r.tile_ref)?,
        Step::SetArea(SetAreaStep { poly, .. })
        | Step::SetFlags(SetFlagsStep { poly, .. })
        | Step::IsValidRef(PolyStep { poly, .. }) => scope.want_ref(poly)?,
        Step::GetPoly(p) => {
            implied.insert("links");
            scope.want_ref(&p.poly)?;
        }
        Step::SetLink(s) => {
            implied.insert("off-mesh-links");
            scope.want_ref(&s.tile_ref)?;
        }
        Step::Snapshot(s) => {
            implied.insert(match s.mode {
                Mode::Full => "snapshot-full",
                Mode::Referenced => "snapshot-referenced",
            });
            scope.def(&s.name, Kind::Bytes)?;
        }
        Step::Restore(r) => {
            implied.insert("snapshot-full");
            if !r.library.is_empty() {
                implied.insert("snapshot-referenced");
            }
            bytes(scope, &r.bytes)?;
            for l in &r.library {
                bytes(scope, l)?;
            }
            scope.def(&r.name, Kind::Mesh)?;
        }
        Step::RestoreInto(r) => {
            implied.insert("restore-in-place");
            if !r.library.is_empty() {
                implied.insert("snapshot-referenced");
            }
            scope.want(&r.mesh, Kind::Mesh)?;
            bytes(scope, &r.bytes)?;
            for l in &r.library {
                bytes(scope, l)?;
            }
        }
        Step::WriteMesh(w) => {
            implied.insert("meshfile");
            scope.want(&w.mesh, Kind::Mesh)?;
            scope.def(&w.name, Kind::Bytes)?;
        }
        Step::ReadMesh(r) => {
            implied.insert("meshfile");
            bytes(scope, &r.bytes)?;
            scope.def(&r.name, Kind::Mesh)?;
        }
        Step::ParseTile(p) => {
            implied.insert("tile");
            bytes(scope, &p.tile)?;
            if let Some(n) = &p.name {
                scope.def(n, Kind::Bytes)?;
            }
        }
        Step::ContentId(c) => {
            implied.insert("tile");
            bytes(scope, &c.tile)?;
        }
        Step::Patch(p) => {
            bytes(scope, &p.from)?;
            if p.edits.is_empty() {
                return Err("a patch needs edits".into());
            }
            for e in &p.edits {
                check_patch_edit(e, scope)?;
            }
            scope.def(&p.name, Kind::Bytes)?;
        }
        Step::Expect(_) | Step::Continue(_) => {}
        Step::FindNearestPoly(q)
        | Step::FindPath(q)
        | Step::FindStraightPath(q)
        | Step::Raycast(q) => {
            let op = crate::protocol::query::Op::of(step.key()).ok_or("not a query")?;
            implied.insert(op.feature());
            q.check(op, &|r: &str| scope.want_ref(r))?;
        }
    }
    Ok(())
}

fn check_patch_edit(e: &PatchEdit, scope: &Scope) -> Result<(), String> {
    fn one(n: usize, what: &str) -> Result<(), String> {
        if n == 1 {
            Ok(())
        } else {
            Err(format!("{what}: give exactly one"))
        }
    }
    match e {
        PatchEdit::Set(s) => {
            one(
                usize::from(s.field.is_some()) + usize::from(s.offset.is_some()),
                "set: field or offset",
            )?;
            one(
                usize::from(s.value.is_some())
                    + usize::from(s.add.is_some())
                    + usize::from(s.hex.is_some())
                    + usize::from(s.sha256_of.is_some()),
                "set: value, add, hex or sha256_of",
            )?;
            if let Some(b) = &s.sha256_of {
                scope.want(b, Kind::Bytes)?;
            }
            if s.offset.is_some() && s.hex.is_none() {
                return Err("set at an offset takes hex".into());
            }
            if let Some(h) = &s.hex {
                parse_hex(h)?;
            }
        }
        PatchEdit::Flip(f) => one(
            usize::from(f.field.is_some()) + usize::from(f.offset.is_some()),
            "flip: field or offset",
        )?,
        PatchEdit::Truncate(t) => one(
            usize::from(t.keep.is_some())
                + usize::from(t.drop.is_some())
                + usize::from(t.at.is_some()),
            "truncate: keep, drop or at",
        )?,
        PatchEdit::Append(h) => {
            parse_hex(h)?;
        }
        PatchEdit::Copy(_) | PatchEdit::FitLength(_) => {}
        PatchEdit::Splice(s) => {
            one(
                usize::from(s.field.is_some())
                    + usize::from(s.before.is_some())
                    + usize::from(s.after.is_some())
                    + usize::from(s.offset.is_some()),
                "splice: field, before, after or offset",
            )?;
            if s.remove.is_some() && s.offset.is_none() {
                return Err("splice: remove goes with offset".into());
            }
            if s.until.is_some() && (s.offset.is_some() || s.after.is_some() || s.field.is_some()) {
                return Err("splice: until goes with before".into());
            }
            one(
                usize::from(s.hex.is_some()) + usize::from(s.blob.is_some()),
                "splice: hex or blob",
            )?;
            if let Some(h) = &s.hex {
                parse_hex(h)?;
            }
            if let Some(b) = &s.blob {
                scope.want(b, Kind::Bytes)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::scenario::load_str;

    const OK: &str = "
schema: 1
id: snapshot/n_example
title: example
class: reject
spec: [snapshot.md#s1]
features: [navmesh, snapshot-full]
steps:
  - world: {name: w, columns: 1, rows: 1}
  - tile: {name: a, world: w, at: [0, 0, 0]}
  - new_mesh: {name: m, world: w, slots: 1}
  - add_tile: {mesh: m, tile: a, name: ra}
  - snapshot: {mesh: m, mode: full, name: s}
  - patch:
      from: s
      name: bad
      edits:
        - set: {field: magic, value: '0x58535058'}
  - restore: {bytes: bad, name: m2}
  - expect: {error: {class: format, field: magic}}
";

    #[test]
    fn load_checks() {
        load_str("snapshot/n_example", OK).unwrap();
        let cases = [
            (
                "snapshot/y_example",
                &OK.replace("n_example", "y_example"),
                "prefix",
            ),
            ("snapshot/n_other", &OK.to_string(), "must equal"),
            (
                "snapshot/n_example",
                &OK.replace("schema: 1", "schema: 2"),
                "schema",
            ),
            (
                "snapshot/n_example",
                &OK.replace("[navmesh, snapshot-full]", "[navmesh]"),
                "snapshot-full",
            ),
            (
                "snapshot/n_example",
                &OK.replace("[navmesh, ", "[bogus, navmesh, "),
                "unknown feature",
            ),
            (
                "snapshot/n_example",
                &OK.replace("bytes: bad", "bytes: nope"),
                "not defined",
            ),
            (
                "snapshot/n_example",
                &OK.replace("title: example", "title: example\nextra: 1"),
                "unknown field",
            ),
            (
                "snapshot/n_example",
                &OK.replace("columns: 1", "columns: 1, colums: 2"),
                "unknown field",
            ),
            (
                "snapshot/n_example",
                &OK.replace("{error: {class: format, field: magic}}", "{outcome: any}"),
                "error class",
            ),
            (
                "snapshot/n_example",
                &OK.replace("spec: [snapshot.md#s1]", "spec: [snapshot]"),
                "anchor",
            ),
            (
                "snapshot/n_example",
                &OK.replace("  - expect:", "  - expect: {outcome: ok}\n  - expect:"),
                "follows",
            ),
            (
                "snapshot/n_example",
                &OK.replace("add_tile: {mesh: m,", "add_tile: {"),
                "needs a mesh",
            ),
        ];
        for (id, text, want) in cases {
            let e = load_str(id, text).unwrap_err();
            assert!(e.contains(want), "{id}: {e}");
        }
    }
}
