//! The backend of one case as the runner sees it: a wrapper around the testee (or the
//! in-process reference) that notes the step being run, records each request with its reply
//! for the case's transcript (`--trace`, [`super::trace`]) and compares each reply with the
//! reference's (`--compare-reference`, [`super::compare`]).

use std::cell::Cell;

use serde_json::{json, Value};

use super::compare::{Comparer, Divergence};
use crate::protocol::{Backend, BackendFailure, Reply, Request};

/// What a watched case left behind.
#[derive(Debug, Default)]
pub struct Watched {
    /// The last step begun (from 1): where the case stopped, when it did.
    pub step: Option<usize>,
    /// One object per request (when recording).
    pub exchanges: Vec<Value>,
    /// The first reply that differs from the reference's (when comparing).
    pub divergence: Option<Divergence>,
    /// The last op the backend does not list or answered `unsupported`: why a case was skipped.
    pub unsupported_op: Option<String>,
}

/// A backend wrapped for one case.
pub struct Watch<'a> {
    inner: &'a mut dyn Backend,
    step: Option<(usize, &'static str)>,
    record: Option<Vec<Value>>,
    compare: Option<Comparer>,
    unsupported_op: Cell<Option<String>>,
}

impl<'a> Watch<'a> {
    /// Wraps `inner`; `record` keeps the transcript, `compare` runs the reference beside it.
    pub fn new(inner: &'a mut dyn Backend, record: bool, compare: bool) -> Self {
        Self {
            inner,
            step: None,
            record: record.then(Vec::new),
            compare: compare.then(Comparer::new),
            unsupported_op: Cell::new(None),
        }
    }

    /// What the case left behind.
    pub fn finish(self) -> Watched {
        Watched {
            step: self.step.map(|s| s.0),
            exchanges: self.record.unwrap_or_default(),
            divergence: self.compare.and_then(Comparer::finish),
            unsupported_op: self.unsupported_op.take(),
        }
    }
}

/// A reply as its JSON object, or how the backend failed.
fn outcome_json(r: &Result<Reply, BackendFailure>) -> (&'static str, Value) {
    match r {
        Ok(reply) => ("reply", serde_json::to_value(reply).unwrap_or(Value::Null)),
        Err(BackendFailure::Crash(m)) => ("failure", json!({"crash": m})),
        Err(BackendFailure::Timeout) => ("failure", json!({"timeout": true})),
    }
}

impl Backend for Watch<'_> {
    fn call(&mut self, req: &Request) -> Result<Reply, BackendFailure> {
        let got = self.inner.call(req);
        if matches!(got, Ok(Reply::Unsupported {})) {
            self.unsupported_op.set(Some(req.op().to_owned()));
        }
        // The runner drops every mesh after the last step, and only then.
        let step = if matches!(req, Request::Drop { .. }) {
            None
        } else {
            self.step
        };
        let compared = match &mut self.compare {
            Some(c) => c.check(req, &got, step),
            None => None,
        };
        if let Some(lines) = &mut self.record {
            let mut e = json!({
                "step": step.map(|s| s.0),
                "key": step.map(|s| s.1),
                "request": serde_json::to_value(req).unwrap_or(Value::Null),
            });
            let (k, v) = outcome_json(&got);
            e[k] = v;
            if let Some((want, what)) = compared {
                e["reference"] = serde_json::to_value(want).unwrap_or(Value::Null);
                e["difference"] = json!(what);
            }
            lines.push(e);
        }
        got
    }

    fn supports(&self, op: &str) -> bool {
        let yes = self.inner.supports(op);
        if !yes {
            self.unsupported_op.set(Some(op.to_owned()));
        }
        yes
    }

    fn has_feature(&self, feature: &str) -> bool {
        self.inner.has_feature(feature)
    }

    fn begin_step(&mut self, index: usize, key: &'static str) {
        self.step = Some((index, key));
        self.inner.begin_step(index, key);
    }
}
