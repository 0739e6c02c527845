//! Runs one scenario against a [`Backend`] (`spec/conformance.md` §1.3–§1.7). Local steps (worlds,
//! generated and inline tiles, raw tile edits, patches; [`local`]) are computed by the runner;
//! every other step becomes one [`Request`] and its reply ([`ops`]). An `expect` judges the step
//! before it ([`judge`]); a step without one must be accepted. A mesh's state is what the runner
//! can observe of it ([`observe`]); `continue` drives two meshes alike ([`twins`]). Beside the
//! run, every step is lowered to the plain form `onav compile` writes ([`lower`]).

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::limits::MAX_SCENARIO_BYTES;
use crate::protocol::{Backend, BackendFailure, Reply, Request, PROTOCOL_VERSION};
use crate::scenario::{Scenario, Step};

pub mod answer;
mod build;
mod env;
mod judge;
mod local;
mod lower;
mod observe;
mod ops;
mod status;
mod twins;

use env::Env;
use lower::Lowering;
pub use status::{CaseRun, Status};

/// Why a run stopped early: the case's status and the message for the report.
#[derive(Debug)]
struct Stop(Status, String);

type R<T> = Result<T, Stop>;

/// An expectation that did not hold.
fn fail<T>(m: impl Into<String>) -> R<T> {
    Err(Stop(Status::Fail, m.into()))
}

/// A scenario the runner could not carry out.
fn harness<T>(m: impl Into<String>) -> R<T> {
    Err(Stop(Status::Error, m.into()))
}

/// How a step ended: accepted with the reply's fields, or rejected.
#[derive(Debug, Clone, PartialEq)]
enum Outcome {
    Ok(Map<String, Value>),
    /// Rejected with a class, a field and, when the reply carried one, the byte offset.
    Rejected {
        class: String,
        field: String,
        offset: Option<u64>,
    },
}

impl Outcome {
    fn describe(&self) -> String {
        match self {
            Outcome::Ok(_) => "accepted".into(),
            Outcome::Rejected {
                class,
                field,
                offset: Some(at),
            } => format!("rejected ({class}, {field} at {at})"),
            Outcome::Rejected { class, field, .. } => format!("rejected ({class}, {field})"),
        }
    }

    /// The reply's fields (none for a rejection).
    fn fields(&self) -> Map<String, Value> {
        match self {
            Outcome::Ok(f) => f.clone(),
            Outcome::Rejected { .. } => Map::new(),
        }
    }
}

/// What one step did.
#[derive(Debug)]
struct Done {
    outcome: Outcome,
    /// The output bytes, for expectations on bytes.
    output: Option<Vec<u8>>,
    /// The mesh the step acted on.
    mesh: Option<String>,
    /// The input bytes (tile) of content_id, for `id: sha256`.
    input: Option<Vec<u8>>,
    /// The tiles a `build` gave, with their positions.
    tiles: Vec<(onav::TilePos, Vec<u8>)>,
    /// Why an accepted query reply has no canonical answer bytes ([`answer::encode`]).
    unencodable: Option<String>,
}

impl Done {
    fn local(output: Option<Vec<u8>>) -> Self {
        Done {
            outcome: Outcome::Ok(Map::new()),
            output,
            mesh: None,
            input: None,
            tiles: Vec::new(),
            unencodable: None,
        }
    }
}

/// How [`run`] treats a scenario.
#[derive(Debug, Clone)]
pub struct Options {
    /// Where `bytes: {file}` paths start.
    pub files: PathBuf,
    /// Record a failed expectation (the first one is the case's failure) and carry on, so that
    /// every step is lowered.
    pub keep_going: bool,
    /// The longest byte string a local step may make ([`MAX_SCENARIO_BYTES`] unless a caller
    /// wants less).
    pub max_bytes: usize,
    /// At the first failing state or `links` expectation, observe the testee's state and keep it
    /// with the expected one ([`CaseRun::pictures`], for `--trace`'s `expected.svg`): the extra
    /// requests are made only when asked.
    pub pictures: bool,
}

impl Options {
    /// Stop at the first failure; `bytes: {file}` paths relative to `files`.
    pub fn in_dir(files: &Path) -> Self {
        Self {
            files: files.to_path_buf(),
            keep_going: false,
            max_bytes: MAX_SCENARIO_BYTES,
            pictures: false,
        }
    }
}

/// The run of one scenario.
struct Exec<'a> {
    backend: &'a mut dyn Backend,
    env: Env,
    run: CaseRun,
    lower: Lowering,
    opts: &'a Options,
    /// The index of the step running (for the field paths of errors).
    index: usize,
}

impl Exec<'_> {
    /// The mesh a step acts on (or makes, for `restore` and `read_mesh`).
    fn mesh_of(step: &Step, over: Option<&str>) -> Option<String> {
        match step {
            Step::RestoreInto(r) => Some(r.mesh.clone()),
            Step::Restore(r) => Some(r.name.clone()),
            Step::ReadMesh(r) => Some(r.name.clone()),
            Step::Cache(c) => Some(c.name.clone()),
            Step::CacheRestore(r) => Some(r.name.clone()),
            Step::CacheRestoreInto(r) => Some(r.cache.clone()),
            _ => step
                .mesh_key()
                .and_then(|m| m.clone().or(over.map(str::to_owned))),
        }
    }

    /// Runs one step (not an expect). `over` is the mesh a `continue` applies the op to.
    fn step(&mut self, step: &Step, over: Option<&str>) -> R<Done> {
        match step {
            Step::World(_)
            | Step::Tile(_)
            | Step::Tiles(_)
            | Step::Bytes(_)
            | Step::RawTile(_)
            | Step::Patch(_)
            | Step::Settings(_) => self.local(step),
            Step::Build(b) => {
                self.lower.step(step);
                self.build_step(b)
            }
            Step::Expect(_) => harness("expect is judged with its step"),
            Step::Continue(c) => {
                let at = self.lower.step_index();
                self.lower.step(step);
                let goldens = self.twins(&c.meshes.0, &c.meshes.1, &c.ops)?;
                self.lower.continue_goldens(at, &goldens);
                Ok(Done::local(None))
            }
            _ => {
                if over.is_none() {
                    self.lower.step(step);
                }
                self.request_step(step, Self::mesh_of(step, over))
            }
        }
    }

    fn steps(&mut self, steps: &[Step]) -> R<()> {
        for (i, step) in steps.iter().enumerate() {
            if matches!(step, Step::Expect(_)) {
                continue;
            }
            let expect = match steps.get(i + 1) {
                Some(Step::Expect(e)) => Some(&**e),
                _ => None,
            };
            self.index = i;
            self.backend.begin_step(i + 1, step.key());
            let at = |s: Stop| Stop(s.0, format!("step {} ({}): {}", i + 1, step.key(), s.1));
            let before = match (expect, Self::mesh_of(step, None)) {
                (Some(e), Some(m)) if e.state.is_some() => Some(self.observe(&m).map_err(at)?),
                _ => None,
            };
            let done = self.step(step, None).map_err(at)?;
            let verdict = self.judge(step, &done, expect, before);
            if let Some(e) = expect {
                self.lower.expect(e, &done, &self.env);
            }
            match verdict.map_err(at) {
                Ok(()) => {}
                Err(Stop(Status::Fail, m)) if self.opts.keep_going => {
                    if self.run.stop.is_none() {
                        self.run.stop = Some((Status::Fail, m));
                    }
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

/// Runs a scenario against a backend. `case` is the case id (the lowered form names generated
/// bytes after it).
pub fn run(case: &str, s: &Scenario, backend: &mut dyn Backend, opts: &Options) -> CaseRun {
    let mut ex = Exec {
        backend,
        env: Env::default(),
        run: CaseRun::default(),
        lower: Lowering::new(case),
        opts,
        index: 0,
    };
    if let Err(Stop(status, m)) = ex.steps(&s.steps) {
        if ex.run.stop.is_none() || status != Status::Fail {
            ex.run.stop = Some((status, m));
        }
    }
    for h in ex.env.mesh_handles() {
        let _ = ex.backend.call(&Request::Drop { mesh: h });
    }
    let (lowered, blobs) = ex.lower.finish();
    CaseRun {
        lowered,
        blobs,
        ..ex.run
    }
}

/// Runs a scenario, stopping at its first failure, with `bytes: {file}` paths relative to
/// `files`.
pub fn run_scenario(case: &str, s: &Scenario, backend: &mut dyn Backend, files: &Path) -> CaseRun {
    run(case, s, backend, &Options::in_dir(files))
}

/// The features a backend announced in its hello reply, or why it could not say.
pub fn hello(backend: &mut dyn Backend) -> Result<Vec<String>, (Status, String)> {
    match backend.call(&Request::Hello {
        protocol: PROTOCOL_VERSION,
    }) {
        Ok(Reply::Ok { fields }) => Ok(fields
            .get("features")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()),
        Ok(other) => Err((Status::Error, format!("hello: {other:?}"))),
        Err(BackendFailure::Crash(m)) => Err((Status::Crash, m)),
        Err(BackendFailure::Timeout) => Err((Status::Timeout, "hello: no answer".into())),
    }
}

/// The scenario without its corruptions: every patch keeps no edit; a scenario without patches
/// loses its raw tile edits instead. `None` when it has neither. Used to show that each `n_` case
/// fails without its corruption.
pub fn without_corruptions(s: &Scenario) -> Option<Scenario> {
    let mut out = s.clone();
    let has_patch = s.steps.iter().any(|st| matches!(st, Step::Patch(_)));
    let mut any = false;
    for st in &mut out.steps {
        match st {
            Step::Patch(p) => {
                any = true;
                p.edits.clear();
            }
            Step::RawTile(r) if !has_patch => {
                any = true;
                r.edits.clear();
            }
            _ => {}
        }
    }
    any.then_some(out)
}

#[cfg(test)]
mod tests;

#[cfg(test)]
#[path = "offsets_tests.rs"]
mod offsets_tests;
