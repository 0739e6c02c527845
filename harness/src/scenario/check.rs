//! The load-time checks (`spec/conformance.md` §1.8): schema version, file prefix against
//! `class`, spec anchors, features, names defined before use, expectation placement.

use std::collections::{BTreeMap, BTreeSet};

use super::anchors::is_anchor;
use super::build::golden_labels;
use super::cache::{ADD_REPLY_KEYS, UPDATE_REPLY_KEYS};
use super::features::{is_feature, FEATURES};
use super::model::*;
use super::numbers::{parse_hex, NumberError};
use super::query::QueryKeyError;
use super::refs::{RefError, RefSpec};
use super::world::{self, RangeError};
use crate::protocol::query::Op;

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

/// Why a scenario fails its load-time checks.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CheckError {
    /// A schema version this runner does not read.
    #[error("schema {found} is not the version this runner reads ({SCHEMA_VERSION})")]
    Schema {
        /// The file's `schema`.
        found: u32,
    },
    /// `id` is not the file's path.
    #[error("id {id:?} must equal the file's path {path:?}")]
    Id {
        /// The file's `id`.
        id: String,
        /// Its path below `scenarios/` without `.yaml`.
        path: String,
    },
    /// A file directly in `scenarios/`.
    #[error("a scenario lives in an area folder: scenarios/<area>/")]
    NoArea,
    /// A file prefix that disagrees with `class`.
    #[error("class {class:?} needs the file prefix {}", class.prefix())]
    Prefix {
        /// The file's `class`.
        class: Class,
    },
    /// A file name that is not `<prefix>_<lowercase-words-with-dashes>`.
    #[error("file names are <prefix>_<lowercase-words-with-dashes>.yaml")]
    FileName,
    /// No spec anchor.
    #[error("at least one spec anchor is needed")]
    NoAnchor,
    /// A spec anchor of the wrong form.
    #[error(
        "spec anchor {anchor:?}: write file.md#t12 (a rule id) or file.md#6.2 (a section number)"
    )]
    Anchor {
        /// The anchor.
        anchor: String,
    },
    /// A feature not in the registry.
    #[error(
        "unknown feature {feature:?}; known: {}",
        FEATURES.iter().map(|f| f.0).collect::<Vec<_>>().join(", ")
    )]
    UnknownFeature {
        /// The feature.
        feature: String,
    },
    /// A feature listed twice.
    #[error("feature {feature:?} listed twice")]
    FeatureTwice {
        /// The feature.
        feature: String,
    },
    /// No steps.
    #[error("no steps")]
    NoSteps,
    /// Step `step` (1-based) fails a check.
    #[error("step {step}: {reason}")]
    Step {
        /// Which step, from 1.
        step: usize,
        /// Why.
        reason: StepError,
    },
    /// A number outside the range the harness accepts, with its field path and line.
    #[error(transparent)]
    Range(Box<RangeError>),
    /// A feature the steps use that `features` does not list.
    #[error("the steps use feature {feature:?}; list it under features")]
    Unlisted {
        /// The feature.
        feature: &'static str,
    },
    /// A `y_` scenario with an expectation that admits a rejection.
    #[error("a y_ scenario expects no rejection (use n_)")]
    AcceptRejects,
    /// An `n_` scenario without an expected error.
    #[error("an n_ scenario needs an expect with an error class and field")]
    RejectWithoutError,
    /// An `i_` scenario without an open outcome.
    #[error(
        "an i_ scenario needs an expect with outcome: any or outcome: rejected (no class or field)"
    )]
    ImplementationDefinedWithoutAny,
}

/// Why one step fails a check.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StepError {
    /// Operation `op` (1-based) of a `continue` fails a check.
    #[error("operation {op}: {reason}")]
    Operation {
        /// Which operation, from 1.
        op: usize,
        /// Why.
        reason: Box<StepError>,
    },
    /// A name defined or used wrongly.
    #[error(transparent)]
    Name(#[from] NameError),
    /// A reference spec that does not parse.
    #[error(transparent)]
    Ref(#[from] RefError),
    /// Hex that does not parse.
    #[error(transparent)]
    Number(#[from] NumberError),
    /// Query keys that do not fit the query.
    #[error(transparent)]
    QueryKeys(#[from] QueryKeyError),
    /// A number out of range (reported as [`CheckError::Range`], which has its own path).
    #[error(transparent)]
    Range(Box<RangeError>),
    /// A mesh operation inside `continue` with a `mesh` key.
    #[error("{step} inside continue takes no mesh key: it applies to both meshes")]
    MeshKeyInContinue {
        /// The step's key.
        step: &'static str,
    },
    /// A step inside `continue` that is not a mesh operation.
    #[error(
        "{step} is not a mesh operation; continue takes add_tile, remove_tile, replace_tile, \
         set_area, set_flags, set_link, is_valid_ref, get_poly, snapshot and the queries"
    )]
    NotAMeshOperation {
        /// The step's key.
        step: &'static str,
    },
    /// A mesh operation without its `mesh` key.
    #[error("{step} needs a mesh key")]
    NeedsMesh {
        /// The step's key.
        step: &'static str,
    },
    /// An `expect` first, or after another `expect`.
    #[error("expect follows the step it checks")]
    ExpectFirst,
    /// An `expect` after a step that has no outcome to check.
    #[error("{step} has nothing to expect")]
    NothingToExpect {
        /// The step checked.
        step: &'static str,
    },
    /// An expected rejection of a local step.
    #[error("{step} is computed by the runner and cannot be rejected")]
    Local {
        /// The step checked.
        step: &'static str,
    },
    /// `error` with an `outcome` other than `rejected`.
    #[error("error implies outcome: rejected")]
    ErrorNotRejected,
    /// An error class that does not exist.
    #[error("error class {class:?} is not format, fingerprint, mesh, query or build")]
    ErrorClass {
        /// The class.
        class: String,
    },
    /// A `format` or `fingerprint` error without its offset.
    #[error("a {class} error states its offset (spec/conformance.md §6.4.1)")]
    OffsetNeeded {
        /// The class.
        class: String,
    },
    /// A `mesh` or `query` error with an offset: such rejections carry none.
    #[error("a {class} rejection carries no offset")]
    OffsetNotCarried {
        /// The class.
        class: String,
    },
    /// `state: unchanged` after a step that acts on no mesh.
    #[error("{step} has no mesh state before it")]
    NoStateBefore {
        /// The step checked.
        step: &'static str,
    },
    /// A state comparison after a step that acts on or makes no mesh.
    #[error("{step} has no mesh to compare")]
    NoMeshToCompare {
        /// The step checked.
        step: &'static str,
    },
    /// A link kind that does not exist.
    #[error("link kind {kind:?} is unknown")]
    LinkKind {
        /// The kind.
        kind: String,
    },
    /// A link expectation without every field of its kind, or with another kind's.
    #[error("a {kind} link states exactly {needs} (navmesh-format.md K2)")]
    LinkFields {
        /// The kind.
        kind: String,
        /// The fields it needs.
        needs: &'static str,
    },
    /// A side or an end that is not one of the names.
    #[error("{value:?} is not a {what}")]
    LinkValue {
        /// `side` or `end`.
        what: &'static str,
        /// The value.
        value: String,
    },
    /// A golden label of other characters.
    #[error("golden label {label:?}: use a-z, 0-9, '-' and '_'")]
    GoldenLabel {
        /// The label.
        label: String,
    },
    /// A golden label used twice in the case.
    #[error("golden label {label:?} used twice")]
    GoldenTwice {
        /// The label.
        label: String,
    },
    /// A `query` expectation after a step that is not a query.
    #[error("{step} is not a query")]
    NotAQuery {
        /// The step checked.
        step: &'static str,
    },
    /// A `sha256` that is not 64 hex digits.
    #[error("sha256 is 64 hex digits")]
    Sha256,
    /// An `id` that is neither 64 hex digits nor `sha256`.
    #[error("id is 64 hex digits or sha256")]
    ContentId,
    /// A `continue` inside a `continue`.
    #[error("continue does not nest")]
    ContinueNests,
    /// A `continue` without operations.
    #[error("continue needs operations")]
    ContinueEmpty,
    /// A `bytes` file outside the scenario's folder.
    #[error("file {file:?}: a relative path below the folder, without '..'")]
    BytesFile {
        /// The path.
        file: String,
    },
    /// `bytes` with both or neither of `hex` and `file`.
    #[error("bytes: give hex, file or text")]
    BytesSource,
    /// A `params` block that is not 68 bytes.
    #[error("params is the 68-byte parameter block")]
    ParamsLength,
    /// A `new_mesh` with keys of both forms, or of neither.
    #[error("new_mesh takes world and slots (with optional overrides), or params")]
    NewMeshForm,
    /// A `patch` without edits.
    #[error("a patch needs edits")]
    PatchEmpty,
    /// A patch edit with other than one of a set of keys.
    #[error("{what}: give exactly one")]
    ExactlyOne {
        /// The edit and the keys.
        what: &'static str,
    },
    /// `set` at an offset without `hex`.
    #[error("set at an offset takes hex")]
    SetOffsetHex,
    /// `splice` with `remove` but no `offset`.
    #[error("splice: remove goes with offset")]
    SpliceRemove,
    /// `splice` with `until` but not `before`.
    #[error("splice: until goes with before")]
    SpliceUntil,
    /// `tiles` after a step that is not a `build`.
    #[error("{step} is not a build: tiles goes with build")]
    NotABuild {
        /// The step checked.
        step: &'static str,
    },
    /// `golden` after a `build` without the `tiles` that name its goldens.
    #[error("a build's golden needs tiles: one golden per tile listed")]
    BuildGoldenWithoutTiles,
    /// `like` naming something other than a `settings` step.
    #[error("{name:?} is not a settings step")]
    NotSettings {
        /// The name.
        name: String,
    },
    /// A tile cache operation (or a `continue` holding one) on a mesh that is not a cache.
    #[error("{name:?} is not a tile cache (made by cache or cache_restore)")]
    NotACache {
        /// The name.
        name: String,
    },
    /// An obstacle with another number of values than its shape has.
    #[error("a {shape} has {needs} values")]
    ShapeValues {
        /// The shape.
        shape: &'static str,
        /// How many it has.
        needs: usize,
    },
    /// `cache` expectations naming a key the step before does not reply: only an add answers
    /// `id`, only an `update` its counts.
    #[error(
        "{step} does not reply {key:?}: expect cache names a reply field of the step before \
         (add_obstacle and add_volume reply id; update replies cells, added, replaced, removed, \
         unchanged, remaining)"
    )]
    CacheReply {
        /// The step checked.
        step: &'static str,
        /// The key.
        key: String,
    },
}

impl From<RangeError> for StepError {
    fn from(e: RangeError) -> Self {
        Self::Range(Box::new(e))
    }
}

/// A name defined or used wrongly (`spec/conformance.md` §1.2).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// Not a letter, then letters, digits, `_` and `-`.
    #[error("name {name:?}: use letters, digits, '_' and '-', starting with a letter")]
    Invalid {
        /// The name.
        name: String,
    },
    /// Defined twice.
    #[error("name {name:?} is defined twice")]
    Twice {
        /// The name.
        name: String,
    },
    /// Used as another kind than it holds.
    #[error("{name:?} is a {holds:?}, not a {wanted:?}")]
    WrongKind {
        /// The name.
        name: String,
        /// What it holds.
        holds: Kind,
        /// What the step needs.
        wanted: Kind,
    },
    /// Used before it is defined.
    #[error("{name:?} is not defined before this step")]
    Undefined {
        /// The name.
        name: String,
    },
}

/// Names defined so far, with their kind.
#[derive(Debug, Default)]
struct Scope {
    names: BTreeMap<String, Kind>,
}

impl Scope {
    fn def(&mut self, name: &str, kind: Kind) -> Result<(), NameError> {
        if !valid_name(name) {
            return Err(NameError::Invalid {
                name: name.to_owned(),
            });
        }
        if self.names.insert(name.to_owned(), kind).is_some() {
            return Err(NameError::Twice {
                name: name.to_owned(),
            });
        }
        Ok(())
    }
    fn want(&self, name: &str, kind: Kind) -> Result<(), NameError> {
        match self.names.get(name) {
            Some(k) if *k == kind => Ok(()),
            Some(k) => Err(NameError::WrongKind {
                name: name.to_owned(),
                holds: *k,
                wanted: kind,
            }),
            None => Err(NameError::Undefined {
                name: name.to_owned(),
            }),
        }
    }
    fn want_ref(&self, spec: &str) -> Result<(), StepError> {
        match RefSpec::parse(spec)? {
            RefSpec::Named { name, .. } => Ok(self.want(&name, Kind::Ref)?),
            _ => Ok(()),
        }
    }
}

fn valid_label(l: &str) -> bool {
    !l.is_empty()
        && l.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
}

/// The load-time checks of scenario `s`, whose file has id `id`.
pub fn check(id: &str, s: &Scenario) -> Result<(), CheckError> {
    if s.schema != SCHEMA_VERSION {
        return Err(CheckError::Schema { found: s.schema });
    }
    if s.id != id {
        return Err(CheckError::Id {
            id: s.id.clone(),
            path: id.to_owned(),
        });
    }
    let file = id.rsplit('/').next().unwrap_or(id);
    if !id.contains('/') {
        return Err(CheckError::NoArea);
    }
    if !file.starts_with(s.class.prefix()) {
        return Err(CheckError::Prefix { class: s.class });
    }
    let rest = &file[2..];
    if rest.is_empty()
        || !rest
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return Err(CheckError::FileName);
    }
    if s.spec.is_empty() {
        return Err(CheckError::NoAnchor);
    }
    if let Some(a) = s.spec.iter().find(|a| !is_anchor(a)) {
        return Err(CheckError::Anchor { anchor: a.clone() });
    }
    let mut declared = BTreeSet::new();
    for f in &s.features {
        if !is_feature(f) {
            return Err(CheckError::UnknownFeature { feature: f.clone() });
        }
        if !declared.insert(f.as_str()) {
            return Err(CheckError::FeatureTwice { feature: f.clone() });
        }
    }
    if s.steps.is_empty() {
        return Err(CheckError::NoSteps);
    }
    let mut c = Checker::default();
    c.steps(&s.steps, false)
        .map_err(|(i, reason)| match reason {
            StepError::Range(r) => CheckError::Range(r),
            reason => CheckError::Step {
                step: i + 1,
                reason,
            },
        })?;
    if let Some(feature) = c.implied.iter().find(|f| !declared.contains(*f)) {
        return Err(CheckError::Unlisted { feature });
    }
    match s.class {
        Class::Accept if c.rejections > 0 => Err(CheckError::AcceptRejects),
        Class::Reject if c.errors == 0 => Err(CheckError::RejectWithoutError),
        Class::ImplementationDefined if c.any == 0 => {
            Err(CheckError::ImplementationDefinedWithoutAny)
        }
        _ => Ok(()),
    }
}

/// What the checks of the steps gather as they go.
#[derive(Debug, Default)]
struct Checker {
    /// Names defined so far.
    scope: Scope,
    /// The worlds defined so far, range-checked.
    worlds: BTreeMap<String, onav::generator::WorldSpec>,
    /// Features the steps use.
    implied: BTreeSet<&'static str>,
    /// Golden labels so far.
    labels: BTreeSet<String>,
    /// The names of `settings` steps so far (what `like` may name).
    settings: BTreeSet<String>,
    /// The names of tile caches so far (mesh names that cache operations may act on).
    caches: BTreeSet<String>,
    /// Expectations that admit a rejection.
    rejections: usize,
    /// Expectations with an error class and field.
    errors: usize,
    /// Expectations with an open outcome.
    any: usize,
}

/// A step's index and why it fails.
type StepErr = (usize, StepError);

/// Exactly one of the keys counted in `n`.
fn one(n: usize, what: &'static str) -> Result<(), StepError> {
    if n == 1 {
        Ok(())
    } else {
        Err(StepError::ExactlyOne { what })
    }
}

impl Checker {
    fn steps(&mut self, steps: &[Step], in_continue: bool) -> Result<(), StepErr> {
        for (i, step) in steps.iter().enumerate() {
            let at = |e: StepError| (i, e);
            // An `expect` inside `continue` judges the op before it (§1.7).
            if !matches!(step, Step::Expect(_)) {
                self.mesh_key(step, in_continue).map_err(at)?;
            }
            match step {
                Step::Expect(e) => {
                    let prev = match i.checked_sub(1).map(|p| &steps[p]) {
                        None | Some(Step::Expect(_)) => return Err(at(StepError::ExpectFirst)),
                        Some(p) => p,
                    };
                    self.expect(e, prev).map_err(at)?;
                }
                Step::Continue(c) => {
                    if in_continue {
                        return Err(at(StepError::ContinueNests));
                    }
                    self.scope
                        .want(&c.meshes.0, Kind::Mesh)
                        .map_err(|e| at(e.into()))?;
                    self.scope
                        .want(&c.meshes.1, Kind::Mesh)
                        .map_err(|e| at(e.into()))?;
                    self.implied.insert("links");
                    if c.ops.iter().any(Step::is_cache_op) {
                        for m in [&c.meshes.0, &c.meshes.1] {
                            if !self.caches.contains(m) {
                                return Err(at(StepError::NotACache { name: m.clone() }));
                            }
                        }
                    }
                    if c.ops.is_empty() {
                        return Err(at(StepError::ContinueEmpty));
                    }
                    self.steps(&c.ops, true).map_err(|(j, reason)| {
                        at(StepError::Operation {
                            op: j + 1,
                            reason: Box::new(reason),
                        })
                    })?;
                }
                _ => self.step(i, step).map_err(at)?,
            }
        }
        Ok(())
    }

    /// The `mesh` key: required outside `continue` for mesh operations, absent inside it.
    fn mesh_key(&self, step: &Step, in_continue: bool) -> Result<(), StepError> {
        match (step.mesh_key(), in_continue) {
            (Some(None), true) | (None, false) => Ok(()),
            (Some(Some(_)), true) => Err(StepError::MeshKeyInContinue { step: step.key() }),
            (None, true) => Err(StepError::NotAMeshOperation { step: step.key() }),
            (Some(Some(m)), false) => {
                self.scope.want(m, Kind::Mesh)?;
                if step.is_cache_op() && !self.caches.contains(m) {
                    return Err(StepError::NotACache { name: m.clone() });
                }
                Ok(())
            }
            (Some(None), false) => Err(StepError::NeedsMesh { step: step.key() }),
        }
    }

    /// An `expect` of step `prev`.
    fn expect(&mut self, e: &Expect, prev: &Step) -> Result<(), StepError> {
        let scope = &self.scope;
        if matches!(prev, Step::World(_) | Step::Tiles(_) | Step::Continue(_)) {
            return Err(StepError::NothingToExpect { step: prev.key() });
        }
        if (e.error.is_some() || e.outcome.is_some()) && prev.is_local() {
            return Err(StepError::Local { step: prev.key() });
        }
        if e.error.is_some() && e.outcome.is_some_and(|o| o != OutcomeKind::Rejected) {
            return Err(StepError::ErrorNotRejected);
        }
        if let Some(err) = &e.error {
            let class = err.class.clone();
            match (err.class.as_str(), err.offset) {
                ("format" | "fingerprint", None) => return Err(StepError::OffsetNeeded { class }),
                ("mesh" | "query" | "build" | "cache", Some(_)) => {
                    return Err(StepError::OffsetNotCarried { class })
                }
                ("format" | "fingerprint" | "mesh" | "query" | "build" | "cache", _) => {}
                _ => return Err(StepError::ErrorClass { class }),
            }
        }
        if e.state.is_some() || e.same_state.is_some() {
            self.implied.insert("links");
            let acts_on_mesh = prev.mesh_key().is_some()
                || matches!(prev, Step::RestoreInto(_) | Step::CacheRestoreInto(_));
            let makes_mesh = matches!(
                prev,
                Step::Restore(_) | Step::ReadMesh(_) | Step::Cache(_) | Step::CacheRestore(_)
            );
            if e.state.is_some() && !acts_on_mesh {
                return Err(StepError::NoStateBefore { step: prev.key() });
            }
            if !acts_on_mesh && !makes_mesh {
                return Err(StepError::NoMeshToCompare { step: prev.key() });
            }
        }
        if let Some(m) = &e.same_state {
            scope.want(m, Kind::Mesh)?;
        }
        for b in [&e.equals, &e.differs].into_iter().flatten() {
            scope.want(b, Kind::Bytes)?;
        }
        if let Some(t) = &e.tile_ref {
            scope.want_ref(t)?;
        }
        for l in e.links.iter().flatten() {
            scope.want_ref(&l.to)?;
            link_fields(l)?;
        }
        // Each key must be one the step before replies: an add answers `id`, an `update` its
        // counts; no other step answers any (an expectation that can never pass is a load error).
        let replies: &[&str] = match prev {
            Step::AddObstacle(_) | Step::AddVolume(_) => ADD_REPLY_KEYS,
            Step::Update(_) => UPDATE_REPLY_KEYS,
            _ => &[],
        };
        for k in e.cache.iter().flat_map(|c| c.keys()) {
            if !replies.contains(&k.as_str()) {
                return Err(StepError::CacheReply {
                    step: prev.key(),
                    key: k.clone(),
                });
            }
        }
        if e.tiles.is_some() && !matches!(prev, Step::Build(_)) {
            return Err(StepError::NotABuild { step: prev.key() });
        }
        if matches!(prev, Step::Build(_)) && e.golden.is_some() && e.tiles.is_none() {
            return Err(StepError::BuildGoldenWithoutTiles);
        }
        if let Some(g) = &e.golden {
            if !valid_label(g) {
                return Err(StepError::GoldenLabel { label: g.clone() });
            }
        }
        for g in golden_labels(e) {
            if !self.labels.insert(g.clone()) {
                return Err(StepError::GoldenTwice { label: g });
            }
        }
        if let Some(q) = &e.query {
            if Op::of(prev.key()).is_none() {
                return Err(StepError::NotAQuery { step: prev.key() });
            }
            for r in q.refs() {
                self.scope.want_ref(r)?;
            }
        }
        if let Some(h) = &e.sha256 {
            if h.len() != 64 || parse_hex(h).is_err() {
                return Err(StepError::Sha256);
            }
        }
        for b in e.bytes_at.iter().flatten() {
            parse_hex(&b.hex)?;
        }
        if let Some(id) = &e.id {
            if id != "sha256" && (id.len() != 64 || parse_hex(id).is_err()) {
                return Err(StepError::ContentId);
            }
        }
        if e.error.is_some() {
            self.errors += 1;
        }
        if e.admits_rejection() {
            self.rejections += 1;
        }
        if e.error.is_none() && e.outcome.is_some_and(|o| o != OutcomeKind::Ok) {
            self.any += 1;
        }
        Ok(())
    }

    /// Any step but `expect` and `continue`; `index` is its index.
    fn step(&mut self, index: usize, step: &Step) -> Result<(), StepError> {
        let scope = &mut self.scope;
        let implied = &mut self.implied;
        let bytes = |scope: &Scope, n: &str| scope.want(n, Kind::Bytes);
        match step {
            Step::World(w) => {
                if let Some(l) = &w.like {
                    scope.want(l, Kind::World)?;
                }
                let like = w.like.as_ref().and_then(|l| self.worlds.get(l));
                let spec = world::world(index, w, like)?;
                if w.layers.is_some_and(|l| l.value > 1) {
                    implied.insert("layers");
                }
                if w.links_per_tile.is_some_and(|l| l.value > 0) {
                    implied.insert("off-mesh-links");
                }
                scope.def(&w.name, Kind::World)?;
                self.worlds.insert(w.name.clone(), spec);
            }
            Step::Tile(t) => {
                scope.want(&t.world, Kind::World)?;
                world::position(index, t)?;
                scope.def(&t.name, Kind::Bytes)?;
            }
            Step::Tiles(t) => {
                scope.want(&t.world, Kind::World)?;
                for n in &t.names {
                    scope.def(n, Kind::Bytes)?;
                }
            }
            Step::Bytes(b) => {
                if let Some(r) = &b.repeat {
                    if b.hex.is_some() || b.file.is_some() || r.copies == 0 {
                        return Err(StepError::BytesSource);
                    }
                } else {
                    match (&b.hex, &b.file, &b.text) {
                        (Some(h), None, None) => {
                            parse_hex(h)?;
                        }
                        (None, Some(f), None) => {
                            if f.split('/').any(|c| c == ".." || c.is_empty()) || f.starts_with('/')
                            {
                                return Err(StepError::BytesFile { file: f.clone() });
                            }
                        }
                        (None, None, Some(_)) => {}
                        _ => return Err(StepError::BytesSource),
                    }
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
                            return Err(StepError::ParamsLength);
                        }
                    }
                    _ => return Err(StepError::NewMeshForm),
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
                    return Err(StepError::PatchEmpty);
                }
                for e in &p.edits {
                    patch_edit(e, scope)?;
                }
                scope.def(&p.name, Kind::Bytes)?;
            }
            Step::Settings(st) => {
                if let Some(l) = &st.like {
                    scope.want(l, Kind::Bytes)?;
                    if !self.settings.contains(l) {
                        return Err(StepError::NotSettings { name: l.clone() });
                    }
                }
                scope.def(&st.name, Kind::Bytes)?;
                self.settings.insert(st.name.clone());
            }
            Step::Build(b) => {
                implied.insert("build3d");
                bytes(scope, &b.obj)?;
                bytes(scope, &b.settings)?;
                if let Some(n) = &b.name {
                    scope.def(n, Kind::Bytes)?;
                }
            }
            Step::Cache(c) => {
                implied.insert("tilecache");
                bytes(scope, &c.obj)?;
                bytes(scope, &c.settings)?;
                scope.def(&c.name, Kind::Mesh)?;
                self.caches.insert(c.name.clone());
            }
            Step::CacheRestore(r) => {
                implied.insert("tilecache");
                bytes(scope, &r.obj)?;
                bytes(scope, &r.settings)?;
                bytes(scope, &r.bytes)?;
                for l in &r.library {
                    bytes(scope, l)?;
                }
                scope.def(&r.name, Kind::Mesh)?;
                self.caches.insert(r.name.clone());
            }
            Step::CacheRestoreInto(r) => {
                implied.insert("tilecache");
                scope.want(&r.cache, Kind::Mesh)?;
                if !self.caches.contains(&r.cache) {
                    return Err(StepError::NotACache {
                        name: r.cache.clone(),
                    });
                }
                bytes(scope, &r.bytes)?;
                for l in &r.library {
                    bytes(scope, l)?;
                }
            }
            Step::AddObstacle(o) => {
                implied.insert("tilecache");
                if o.values.len() != o.shape.value_count() {
                    return Err(StepError::ShapeValues {
                        shape: o.shape.wire(),
                        needs: o.shape.value_count(),
                    });
                }
            }
            Step::RemoveObstacle(_)
            | Step::AddVolume(_)
            | Step::RemoveVolume(_)
            | Step::Update(_) => {
                implied.insert("tilecache");
            }
            Step::CacheSnapshot(s) => {
                implied.insert("tilecache");
                scope.def(&s.name, Kind::Bytes)?;
            }
            Step::Expect(_) | Step::Continue(_) => {}
            Step::FindNearestPoly(q)
            | Step::FindPath(q)
            | Step::FindStraightPath(q)
            | Step::Raycast(q)
            | Step::CorridorCost(q) => {
                if let Some(op) = Op::of(step.key()) {
                    implied.insert(op.feature());
                    q.check_keys(op)?;
                }
                for r in q.refs() {
                    scope.want_ref(r)?;
                }
            }
        }
        Ok(())
    }
}

/// A link expectation states every field of its kind and no other.
fn link_fields(l: &LinkExpect) -> Result<(), StepError> {
    let have = (
        l.edge.is_some(),
        l.side.is_some(),
        l.lo.is_some() && l.hi.is_some(),
        l.lo.is_some() || l.hi.is_some(),
        l.end.is_some(),
    );
    let (ok, needs) = match l.kind.as_str() {
        "internal" => (have == (true, false, false, false, false), "edge"),
        "portal" => (
            have == (true, true, true, true, false),
            "edge, side, lo and hi",
        ),
        "to_off_mesh" | "from_off_mesh" => (have == (false, false, false, false, true), "end"),
        _ => {
            return Err(StepError::LinkKind {
                kind: l.kind.clone(),
            })
        }
    };
    if !ok {
        return Err(StepError::LinkFields {
            kind: l.kind.clone(),
            needs,
        });
    }
    if let Some(side) = l
        .side
        .as_ref()
        .filter(|s| !["+x", "+z", "-x", "-z"].contains(&s.as_str()))
    {
        return Err(StepError::LinkValue {
            what: "side (+x, +z, -x, -z)",
            value: side.clone(),
        });
    }
    if let Some(end) = l
        .end
        .as_ref()
        .filter(|e| !["start", "end"].contains(&e.as_str()))
    {
        return Err(StepError::LinkValue {
            what: "link end (start, end)",
            value: end.clone(),
        });
    }
    Ok(())
}

fn patch_edit(e: &PatchEdit, scope: &Scope) -> Result<(), StepError> {
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
                return Err(StepError::SetOffsetHex);
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
                return Err(StepError::SpliceRemove);
            }
            if s.until.is_some() && (s.offset.is_some() || s.after.is_some() || s.field.is_some()) {
                return Err(StepError::SpliceUntil);
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
#[path = "check_tests.rs"]
mod tests;
