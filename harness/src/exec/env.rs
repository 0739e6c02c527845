//! The named values of one run (`spec/conformance.md` §1.2): worlds, bytes, mesh handles and tile
//! references, each defined by the step that makes it. A name whose step was rejected is never
//! defined, and using it is a scenario error.

use std::collections::BTreeMap;

use onav::generator::WorldSpec;
use serde_json::Value;

use super::{harness, Stop, R};
use crate::exec::Status;
use crate::scenario::refs::resolve_ref;

/// The per-scenario environment of named values.
#[derive(Debug, Default, Clone)]
pub(super) struct Env {
    pub(super) worlds: BTreeMap<String, WorldSpec>,
    pub(super) bytes: BTreeMap<String, Vec<u8>>,
    pub(super) meshes: BTreeMap<String, Value>,
    pub(super) refs: BTreeMap<String, u64>,
    /// The mesh names that are tile caches (their observed state includes their `ONTK`).
    pub(super) caches: std::collections::BTreeSet<String>,
    /// The values of `settings` steps, for `like`.
    pub(super) settings: BTreeMap<String, crate::scenario::build::SettingsValues>,
}

impl Env {
    pub(super) fn bytes(&self, n: &str) -> R<Vec<u8>> {
        match self.bytes.get(n) {
            Some(b) => Ok(b.clone()),
            None => harness(format!(
                "no bytes named {n:?} (was the step that makes them rejected?)"
            )),
        }
    }

    pub(super) fn mesh(&self, n: &str) -> R<Value> {
        match self.meshes.get(n) {
            Some(b) => Ok(b.clone()),
            None => harness(format!(
                "no mesh named {n:?} (was the step that makes it rejected?)"
            )),
        }
    }

    pub(super) fn world(&self, n: &str) -> R<&WorldSpec> {
        match self.worlds.get(n) {
            Some(w) => Ok(w),
            None => harness(format!("no world named {n:?}")),
        }
    }

    /// A reference spec as the wire writes it, `0x` and 16 hex digits.
    pub(super) fn reference(&self, spec: &str) -> R<String> {
        resolve_ref(spec, &|n| self.refs.get(n).copied())
            .map_err(|e| Stop(Status::Error, e.to_string()))
    }

    pub(super) fn define_bytes(&mut self, n: &str, b: Vec<u8>) {
        self.bytes.insert(n.to_owned(), b);
    }

    pub(super) fn define_mesh(&mut self, n: &str, handle: Value) {
        self.meshes.insert(n.to_owned(), handle);
    }

    /// Every mesh handle, to drop them at the end.
    pub(super) fn mesh_handles(&self) -> Vec<Value> {
        self.meshes.values().cloned().collect()
    }
}
