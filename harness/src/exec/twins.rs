//! `continue` (`spec/conformance.md` §1.7): the same operations applied to two meshes, typically
//! one restored from a snapshot and a twin that never left; their outcomes, output bytes and
//! states must agree before the first operation and after every one.

use super::{fail, Exec, R};
use crate::scenario::Step;

impl Exec<'_> {
    pub(super) fn twins(&mut self, a: &str, b: &str, ops: &[Step]) -> R<()> {
        let (oa, ob) = (self.observe(a)?, self.observe(b)?);
        // The pictures show the second mesh as expected and the first as got.
        self.same_or_keep(oa, ob, &format!("before continue, {a} and {b}"), true)?;
        for (k, op) in ops.iter().enumerate() {
            // The op's named results come from the first mesh; the second must agree.
            let saved = (self.env.refs.clone(), self.env.bytes.clone());
            let db = self.step(op, Some(b))?;
            self.env.refs = saved.0;
            self.env.bytes = saved.1;
            let da = self.step(op, Some(a))?;
            if da.outcome != db.outcome || da.output != db.output {
                return fail(format!(
                    "continue, operation {} ({}): {a} was {}, {b} was {}",
                    k + 1,
                    op.key(),
                    da.outcome.describe(),
                    db.outcome.describe()
                ));
            }
            let (oa, ob) = (self.observe(a)?, self.observe(b)?);
            self.same_or_keep(
                oa,
                ob,
                &format!("after continue operation {} ({})", k + 1, op.key()),
                true,
            )?;
        }
        Ok(())
    }
}
