//! `onav testee [--mutant NAME] [--only-features LIST] [--only-ops LIST]`
//! (`spec/conformance.md` §6, §6.10): answers the testee protocol on stdin/stdout with the
//! in-process reference, one of its mutants, or either announcing only some features and ops —
//! as a port that implements part of the protocol would.

use serde_json::{json, Value};

use super::Outcome;
use crate::error::HarnessError;
use crate::protocol::{Backend, BackendFailure, Reply, Request};
use crate::testee::mutants::{Mutant, MutantKind};
use crate::testee::reference::Reference;
use crate::testee::server::serve;

/// What `onav testee` serves.
#[derive(Debug, Clone, Default)]
pub struct TesteeOptions {
    /// A deliberately broken backend.
    pub mutant: Option<MutantKind>,
    /// Announce only these features (all, when `None`).
    pub only_features: Option<Vec<String>>,
    /// Announce and answer only these ops besides `hello` and `bye` (all, when `None`); others
    /// are answered `unsupported`.
    pub only_ops: Option<Vec<String>>,
}

/// A backend announcing only some of its features and ops.
#[derive(Debug)]
pub struct Partial<B: Backend> {
    inner: B,
    features: Option<Vec<String>>,
    ops: Option<Vec<String>>,
}

impl<B: Backend> Partial<B> {
    /// Wraps `inner`.
    pub fn new(inner: B, features: Option<Vec<String>>, ops: Option<Vec<String>>) -> Self {
        Self {
            inner,
            features,
            ops,
        }
    }

    fn answers(&self, op: &str) -> bool {
        matches!(op, "hello" | "bye") || self.ops.as_ref().is_none_or(|o| o.iter().any(|x| x == op))
    }
}

/// The strings of `list` that `keep` keeps.
fn keep_listed(list: Option<&Value>, keep: impl Fn(&str) -> bool) -> Value {
    json!(list
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter(|s| keep(s))
        .collect::<Vec<_>>())
}

impl<B: Backend> Backend for Partial<B> {
    fn call(&mut self, req: &Request) -> Result<Reply, BackendFailure> {
        if !self.answers(req.op()) {
            return Ok(Reply::Unsupported {});
        }
        let mut reply = self.inner.call(req)?;
        if let (Request::Hello { .. }, Reply::Ok { fields }) = (req, &mut reply) {
            let ops = keep_listed(fields.get("ops"), |op| self.answers(op));
            fields.insert("ops".into(), ops);
            if let Some(f) = &self.features {
                fields.insert("features".into(), json!(f));
            }
        }
        Ok(reply)
    }
}

/// `onav testee`: serves until `bye` or the end of the input.
pub fn run(o: TesteeOptions) -> Result<Outcome, HarnessError> {
    let (stdin, stdout) = (std::io::stdin().lock(), std::io::stdout().lock());
    // `--only-features ''` is no feature at all.
    let nonempty =
        |v: Option<Vec<String>>| v.map(|v| v.into_iter().filter(|s| !s.is_empty()).collect());
    let (f, ops) = (nonempty(o.only_features), nonempty(o.only_ops));
    match o.mutant {
        None => serve(Partial::new(Reference::new(), f, ops), stdin, stdout),
        Some(k) => serve(
            Partial::new(Mutant::new(Reference::new(), k), f, ops),
            stdin,
            stdout,
        ),
    }
    .map_err(HarnessError::Serve)?;
    Ok(Outcome::Pass)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_partial_testee_announces_and_answers_only_its_part() {
        let mut p = Partial::new(
            Reference::new(),
            Some(vec!["tile".into()]),
            Some(vec!["content_id".into(), "tile_roundtrip".into()]),
        );
        let Ok(Reply::Ok { fields }) = p.call(&Request::Hello { protocol: 1 }) else {
            panic!()
        };
        assert_eq!(
            fields["ops"],
            json!(["hello", "tile_roundtrip", "content_id", "bye"])
        );
        assert_eq!(fields["features"], json!(["tile"]));
        assert_eq!(
            p.call(&Request::NewMesh {
                params: String::new()
            }),
            Ok(Reply::Unsupported {})
        );
        // Without limits it is the reference.
        let mut all = Partial::new(Reference::new(), None, None);
        let Ok(Reply::Ok { fields }) = all.call(&Request::Hello { protocol: 1 }) else {
            panic!()
        };
        assert_eq!(fields["ops"], json!(crate::protocol::OPS));
    }
}
