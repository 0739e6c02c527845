//! Mutant testees for the harness's self-tests: wrappers around a correct [`Backend`] that break
//! it in one known way, served by the hidden `onav testee --mutant NAME`. The suite must catch
//! every one of them: a runner that passes a mutant is broken.
//!
//! [`MutantKind::CrashOnOp`] and [`MutantKind::Hang`] end or block the process that runs them, so
//! they only make sense inside a testee process.

use std::str::FromStr;

use serde_json::Value;

use crate::protocol::wire;
use crate::protocol::{Backend, BackendFailure, Reply, Request};

/// How a mutant misbehaves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MutantKind {
    /// `accept-every-restore`: answers `ok` to every `restore` (with a fresh empty mesh whose
    /// parameters are the snapshot's, when they parse, or a one-slot default) and `restore_into`
    /// (leaving the mesh as it was), whatever the bytes.
    AcceptEveryRestore,
    /// `reject-every-restore`: answers every `restore` and `restore_into` with a format
    /// rejection of field `magic` at offset 0, whatever the bytes.
    RejectEveryRestore,
    /// `flip-snapshot-byte`: flips the lowest bit of the middle byte (index len / 2) of every
    /// `snapshot` reply.
    FlipSnapshotByte,
    /// `crash-on-op:K`: the process exits (status 86, without replying) when it receives its
    /// K-th request after `hello` (K ≥ 1). A restarted process counts from 1 again.
    CrashOnOp(u32),
    /// `hang-on:OP` (`hang` is `hang-on:snapshot`): never answers op OP (and so nothing after it).
    Hang(String),
}

/// A mutant name `onav testee --mutant` does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MutantError {
    /// `crash-on-op:K` with K not a count from 1.
    #[error("crash-on-op needs a count ≥ 1, not {count:?}")]
    Count {
        /// K as written.
        count: String,
    },
    /// `hang-on:OP` with an op the protocol does not have.
    #[error("hang-on: unknown op {op:?}")]
    Op {
        /// OP as written.
        op: String,
    },
    /// No mutant of that name.
    #[error("unknown mutant {name:?}; known: {}", MUTANT_NAMES.join(", "))]
    Unknown {
        /// The name.
        name: String,
    },
}

impl FromStr for MutantKind {
    type Err = MutantError;

    fn from_str(s: &str) -> Result<Self, MutantError> {
        Ok(match s {
            "accept-every-restore" => Self::AcceptEveryRestore,
            "reject-every-restore" => Self::RejectEveryRestore,
            "flip-snapshot-byte" => Self::FlipSnapshotByte,
            "hang" => Self::Hang("snapshot".into()),
            _ => {
                if let Some(k) = s.strip_prefix("crash-on-op:") {
                    match k.parse() {
                        Ok(k @ 1..) => Self::CrashOnOp(k),
                        _ => {
                            return Err(MutantError::Count {
                                count: k.to_owned(),
                            })
                        }
                    }
                } else if let Some(op) = s.strip_prefix("hang-on:") {
                    if !crate::protocol::OPS.contains(&op) {
                        return Err(MutantError::Op { op: op.to_owned() });
                    }
                    Self::Hang(op.into())
                } else {
                    return Err(MutantError::Unknown { name: s.to_owned() });
                }
            }
        })
    }
}

/// The mutant names `onav testee --mutant` accepts.
pub const MUTANT_NAMES: &[&str] = &[
    "accept-every-restore",
    "reject-every-restore",
    "flip-snapshot-byte",
    "crash-on-op:K",
    "hang-on:OP",
    "hang",
];

/// A backend broken in one known way.
#[derive(Debug)]
pub struct Mutant<B: Backend> {
    inner: B,
    kind: MutantKind,
    ops: u32,
}

impl<B: Backend> Mutant<B> {
    /// Wraps `inner`.
    pub fn new(inner: B, kind: MutantKind) -> Self {
        Self {
            inner,
            kind,
            ops: 0,
        }
    }

    /// A fresh mesh for the accepting mutant: the snapshot's parameters if they parse, else a
    /// one-slot mesh of tile size 1.
    fn fresh_mesh(&mut self, bytes: &str) -> Result<Reply, BackendFailure> {
        let b = wire::unb64("bytes", bytes).unwrap_or_default();
        let block = b
            .get(8..8 + onav::MeshParams::LEN)
            .filter(|p| onav::MeshParams::read(&mut onav::bytes::Reader::new(p, 8)).is_ok());
        let params = match block {
            Some(p) => p.to_vec(),
            None => wire::params_block([0.0; 3], 1.0, 1, [0; 32]),
        };
        self.inner.call(&Request::NewMesh {
            params: wire::b64(&params),
        })
    }
}

impl<B: Backend> Backend for Mutant<B> {
    fn supports(&self, op: &str) -> bool {
        self.inner.supports(op)
    }

    fn has_feature(&self, feature: &str) -> bool {
        self.inner.has_feature(feature)
    }

    fn call(&mut self, req: &Request) -> Result<Reply, BackendFailure> {
        if !matches!(req, Request::Hello { .. }) {
            self.ops = self.ops.saturating_add(1);
        }
        let restore = matches!(req, Request::Restore { .. } | Request::RestoreInto { .. });
        match &self.kind {
            MutantKind::CrashOnOp(k) if self.ops == *k => {
                eprintln!("mutant crash-on-op:{k}: exiting at {}", req.op());
                std::process::exit(86);
            }
            MutantKind::Hang(op) if req.op() == op => {
                eprintln!("mutant hang-on:{op}: not answering");
                loop {
                    std::thread::park();
                }
            }
            MutantKind::AcceptEveryRestore if restore => match req {
                Request::Restore { bytes, .. } => self.fresh_mesh(bytes),
                _ => Ok(Reply::ok([])),
            },
            MutantKind::RejectEveryRestore if restore => Ok(Reply::Rejected {
                class: "format".into(),
                field: "magic".into(),
                offset: Some(0),
                message: "mutant reject-every-restore".into(),
            }),
            MutantKind::FlipSnapshotByte if matches!(req, Request::Snapshot { .. }) => {
                let mut r = self.inner.call(req)?;
                if let Reply::Ok { fields } = &mut r {
                    if let Some(Value::String(s)) = fields.get_mut("bytes") {
                        if let Ok(mut b) = wire::unb64("bytes", s) {
                            let mid = b.len() / 2;
                            if let Some(x) = b.get_mut(mid) {
                                *x ^= 1;
                            }
                            *s = wire::b64(&b);
                        }
                    }
                }
                Ok(r)
            }
            _ => self.inner.call(req),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testee::reference::Reference;

    #[test]
    fn names_parse() {
        assert_eq!(
            "crash-on-op:3".parse::<MutantKind>(),
            Ok(MutantKind::CrashOnOp(3))
        );
        assert_eq!(
            "hang".parse::<MutantKind>(),
            Ok(MutantKind::Hang("snapshot".into()))
        );
        assert_eq!(
            "hang-on:add_tile".parse::<MutantKind>(),
            Ok(MutantKind::Hang("add_tile".into()))
        );
        for bad in ["crash-on-op:0", "crash-on-op:x", "hang-on:fly", "nope", ""] {
            assert!(bad.parse::<MutantKind>().is_err(), "{bad}");
        }
    }

    #[test]
    fn restore_mutants_answer_whatever_the_bytes() {
        let garbage = Request::Restore {
            bytes: wire::b64(b"garbage"),
            library: vec![],
        };
        let mut m = Mutant::new(Reference::new(), MutantKind::AcceptEveryRestore);
        assert!(
            matches!(m.call(&garbage), Ok(Reply::Ok { fields }) if fields.contains_key("mesh"))
        );
        let mut m = Mutant::new(Reference::new(), MutantKind::RejectEveryRestore);
        assert!(matches!(m.call(&garbage), Ok(Reply::Rejected { field, .. }) if field == "magic"));
    }
}
