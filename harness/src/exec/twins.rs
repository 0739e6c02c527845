//! `continue` (`spec/conformance.md` §1.7): the same operations applied to two meshes, typically
//! one restored from a snapshot and a twin that never left; their outcomes, output bytes and
//! states must agree before the first operation and after every one. An `expect` among the ops
//! judges the first mesh's result of the op before it (a golden of a snapshot or a query answer).

use super::{fail, Exec, R};
use crate::hex::sha256_hex;
use crate::scenario::Step;

/// A golden output of a `continue`: the index of its `expect` among the ops, and the output's
/// length and SHA-256 (for the compiled form, §4.6).
pub(super) type ContinueGolden = (usize, usize, String);

impl Exec<'_> {
    pub(super) fn twins(&mut self, a: &str, b: &str, ops: &[Step]) -> R<Vec<ContinueGolden>> {
        let (oa, ob) = (self.observe(a)?, self.observe(b)?);
        // The pictures show the second mesh as expected and the first as got.
        self.same_or_keep(oa, ob, &format!("before continue, {a} and {b}"), true)?;
        let mut goldens = Vec::new();
        for (k, op) in ops.iter().enumerate() {
            if matches!(op, Step::Expect(_)) {
                continue; // judged with the op before it
            }
            // The op's named results come from the first mesh; the second must agree.
            let saved = (self.env.refs.clone(), self.env.bytes.clone());
            let db = self.step(op, Some(b))?;
            self.env.refs = saved.0;
            self.env.bytes = saved.1;
            let expect = match ops.get(k + 1) {
                Some(Step::Expect(e)) => Some(&**e),
                _ => None,
            };
            let before = match expect {
                Some(e) if e.state.is_some() => Some(self.observe(a)?),
                _ => None,
            };
            let da = self.step(op, Some(a))?;
            if da.outcome != db.outcome || da.output != db.output {
                return fail(format!(
                    "continue, operation {} ({}): {a} was {}, {b} was {}{}",
                    k + 1,
                    op.key(),
                    da.outcome.describe(),
                    db.outcome.describe(),
                    if da.outcome == db.outcome {
                        ", with other output bytes"
                    } else {
                        ""
                    }
                ));
            }
            if let Some(e) = expect {
                self.judge(op, &da, Some(e), before)?;
                if let (Some(_), Some(out)) = (&e.golden, &da.output) {
                    goldens.push((k + 1, out.len(), sha256_hex(out)));
                }
            }
            let (oa, ob) = (self.observe(a)?, self.observe(b)?);
            self.same_or_keep(
                oa,
                ob,
                &format!("after continue operation {} ({})", k + 1, op.key()),
                true,
            )?;
        }
        Ok(goldens)
    }
}
