//! Lowering for `onav compile` (`spec/conformance.md` §4.6): each step as the compiled suite
//! carries it. Generated and edited bytes become files (`bytes: {name, file}`), a `new_mesh` of a
//! world becomes its 68-byte parameter block, patch edits become byte edits at absolute offsets,
//! and expectations on field paths, references and content ids become bytes at offsets, `0x…`
//! references and hex ids. The run calls this beside execution; nothing here decides a verdict.

use serde_json::{json, Value};

use super::env::Env;
use super::judge::expected_id;
use super::Done;
use crate::files::decode::decode;
use crate::files::patch::LowEdit;
use crate::hex::{hex, sha256_hex};
use crate::scenario::refs::resolve_ref;
use crate::scenario::{Expect, PatchStep, Step};

/// The lowered steps of one run and the bytes they name.
#[derive(Debug)]
pub(super) struct Lowering {
    case: String,
    lowered: Vec<Value>,
    blobs: Vec<(String, Vec<u8>)>,
}

impl Lowering {
    /// Lowering for case `case` (bytes files are named `case/NAME.bin`).
    pub(super) fn new(case: &str) -> Self {
        Self {
            case: case.to_owned(),
            lowered: Vec::new(),
            blobs: Vec::new(),
        }
    }

    /// A step that is already in compiled form (a request step or `continue`). A `new_mesh` is
    /// lowered by [`Self::new_mesh`] once its parameter block is known.
    pub(super) fn step(&mut self, step: &Step) {
        if matches!(step, Step::NewMesh(_)) {
            return;
        }
        if let Ok(v) = serde_json::to_value(step) {
            self.lowered.push(v);
        }
    }

    /// The index the next lowered step gets.
    pub(super) fn step_index(&self) -> usize {
        self.lowered.len()
    }

    /// The goldens among the ops of the `continue` lowered at `at` carry their length and SHA-256,
    /// like every other compiled golden.
    pub(super) fn continue_goldens(&mut self, at: usize, goldens: &[super::twins::ContinueGolden]) {
        for (op, length, sha) in goldens {
            if let Some(e) = self
                .lowered
                .get_mut(at)
                .and_then(|v| v.pointer_mut(&format!("/continue/ops/{op}/expect")))
                .and_then(Value::as_object_mut)
            {
                e.insert("length".into(), json!(length));
                e.insert("sha256".into(), json!(sha));
            }
        }
    }

    /// Bytes the runner computed: a `bytes` step reading the file the compiled suite writes.
    pub(super) fn blob(&mut self, name: &str, b: &[u8]) {
        self.lowered.push(json!({"bytes": {
            "name": name,
            "file": format!("{}/{name}.bin", self.case),
        }}));
        self.blobs.push((name.to_owned(), b.to_vec()));
    }

    /// A patch, with its edits lowered to byte edits.
    pub(super) fn patch(&mut self, p: &PatchStep, low: &[LowEdit]) {
        self.lowered.push(json!({"patch": {
            "from": p.from, "name": p.name, "edits": low,
        }}));
    }

    /// A `new_mesh` as its parameter block.
    pub(super) fn new_mesh(&mut self, name: &str, params: &[u8]) {
        self.lowered
            .push(json!({"new_mesh": {"name": name, "params": hex(params)}}));
    }

    /// An expectation, resolved against what the step did and the names it could see.
    pub(super) fn expect(&mut self, e: &Expect, done: &Done, env: &Env) {
        let mut lowered = serde_json::to_value(e).unwrap_or(Value::Null);
        if let Some(out) = &done.output {
            if e.golden.is_some() {
                lowered["length"] = json!(out.len());
                lowered["sha256"] = json!(sha256_hex(out));
            }
            if let Some(want) = &e.fields {
                let d = decode(out);
                let at: Option<Vec<Value>> = want
                    .keys()
                    .map(|path| {
                        let f = d.field(path)?;
                        let range = f.offset as usize..(f.offset + f.size) as usize;
                        Some(
                            json!({"field": path, "offset": f.offset, "hex": hex(out.get(range)?)}),
                        )
                    })
                    .collect();
                if let (Some(at), Some(o)) = (at, lowered.as_object_mut()) {
                    o.remove("fields");
                    let mut all = o
                        .get("bytes_at")
                        .and_then(Value::as_array)
                        .cloned()
                        .unwrap_or_default();
                    all.extend(at);
                    o.insert("bytes_at".into(), json!(all));
                }
            }
        }
        if let Some(t) = &e.tile_ref {
            if let Ok(r) = env.reference(t) {
                lowered["tile_ref"] = json!(r);
            }
        }
        if let Some(q) = &e.query {
            let refs = &env.refs;
            if let Ok(compiled) = q.resolved(&|r| resolve_ref(r, &|n| refs.get(n).copied())) {
                lowered["query"] = serde_json::to_value(compiled).unwrap_or(Value::Null);
            }
        }
        if let Some(id) = &e.id {
            lowered["id"] = json!(expected_id(id, done));
        }
        self.lowered.push(json!({ "expect": lowered }));
    }

    /// The lowered steps and the bytes files.
    pub(super) fn finish(self) -> (Vec<Value>, Vec<(String, Vec<u8>)>) {
        (self.lowered, self.blobs)
    }
}
