//! Judging a step (`spec/conformance.md` §1.4, §1.6): its outcome against the expected one, the
//! mesh state it leaves, its output bytes and its reply's fields. A step without an `expect` must
//! have been accepted. The first check that fails is the case's failure.

use serde_json::{json, Map, Value};

use super::observe::Observation;
use super::{fail, harness, Done, Exec, Outcome, Stop, R};
use crate::exec::Status;
use crate::files::decode::decode;
use crate::files::diff::first_difference;
use crate::files::patch;
use crate::hex::sha256_hex;
use crate::scenario::refs::resolve_ref;
use crate::scenario::{parse_hex, Expect, LinkExpect, OutcomeKind, StateExpect, Step};

/// Checks the outcome: rejected as expected (class, field and, when `offsets` holds — the testee
/// speaks protocol 2 — the offset), or accepted.
fn judge_outcome(key: &str, outcome: &Outcome, e: &Expect, offsets: bool) -> R<()> {
    match (outcome, &e.error) {
        (
            Outcome::Rejected {
                class,
                field,
                offset,
            },
            Some(want),
        ) => {
            if class != &want.class || field != &want.field {
                return fail(format!(
                    "{key}: {}; expected ({}, {})",
                    outcome.describe(),
                    want.class,
                    want.field
                ));
            }
            if let (true, Some(w)) = (offsets, want.offset) {
                if *offset != Some(w) {
                    let got =
                        offset.map_or_else(|| "no offset".to_owned(), |o| format!("offset {o}"));
                    return fail(format!(
                        "{key}: rejected ({class}, {field}) with {got}; expected offset {w}"
                    ));
                }
            }
        }
        (Outcome::Rejected { .. }, None) => {
            if !e.admits_rejection() {
                return fail(format!(
                    "{key}: {}; expected it to be accepted",
                    outcome.describe()
                ));
            }
        }
        (Outcome::Ok(_), Some(want)) => {
            return fail(format!(
                "{key}: accepted; expected a rejection ({}, {})",
                want.class, want.field
            ))
        }
        (Outcome::Ok(_), None) => {
            if e.outcome == Some(OutcomeKind::Rejected) {
                return fail(format!("{key}: accepted; expected a rejection"));
            }
        }
    }
    Ok(())
}

/// True when the expectation checks the output bytes.
fn wants_output(e: &Expect) -> bool {
    e.golden.is_some()
        || e.sha256.is_some()
        || e.bytes_at.is_some()
        || e.fields.is_some()
        || e.equals.is_some()
        || e.differs.is_some()
        || e.length.is_some()
}

/// A query reply field that is not the expected value.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{key} is {got}, expected {want}")]
pub(super) struct Mismatch {
    key: String,
    got: Value,
    want: Value,
}

/// Two JSON values are the same: numbers as binary64 bitwise (so `-0` and `0` differ), arrays
/// and objects element by element (an object with another key differs), everything else
/// structurally.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_f64(), y.as_f64()) {
            (Some(p), Some(q)) => p.to_bits() == q.to_bits(),
            _ => x == y,
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// Compares expected reply fields with a reply ([`same`] for each key listed; keys not listed
/// are not compared). Returns the first difference.
pub(super) fn compare(want: &Map<String, Value>, got: &Map<String, Value>) -> Result<(), Mismatch> {
    for (k, w) in want {
        let g = got.get(k).unwrap_or(&Value::Null);
        if !same(w, g) {
            return Err(Mismatch {
                key: k.clone(),
                got: g.clone(),
                want: w.clone(),
            });
        }
    }
    Ok(())
}

impl Exec<'_> {
    /// Judges `done` against `e` (none: it must be accepted). `before` is the state of the step's
    /// mesh before it, when `e` expects it unchanged.
    pub(super) fn judge(
        &mut self,
        step: &Step,
        done: &Done,
        e: Option<&Expect>,
        before: Option<Observation>,
    ) -> R<()> {
        let key = step.key();
        let default = Expect::default();
        let e = e.unwrap_or(&default);
        let offsets = self.backend.protocol() >= 2;
        judge_outcome(key, &done.outcome, e, offsets)?;
        self.judge_state(key, done, e, before)?;
        match &done.output {
            Some(out) => self.judge_output(key, out, e)?,
            None if wants_output(e) => {
                return fail(match &done.unencodable {
                    Some(why) => format!("{key}: {why}"),
                    None => format!("{key} gave no output bytes to check"),
                })
            }
            None => {}
        }
        self.judge_build(key, done, e)?;
        self.judge_reply(step, done, e)
    }

    /// `state: unchanged` and `same_state`.
    fn judge_state(
        &mut self,
        key: &str,
        done: &Done,
        e: &Expect,
        before: Option<Observation>,
    ) -> R<()> {
        if let Some(StateExpect::Unchanged) = e.state {
            let m = done.mesh.clone().unwrap_or_default();
            let after = self.observe(&m)?;
            match before {
                Some(b) => self.same_or_keep(b, after, &format!("{key} changed {m}"), false)?,
                None => return harness("no state captured"),
            }
        }
        if let Some(other) = &e.same_state {
            let m = done.mesh.clone().unwrap_or_default();
            let (x, y) = (self.observe(&m)?, self.observe(other)?);
            // The other mesh is the state this one should have.
            self.same_or_keep(x, y, &format!("{m} against {other}"), true)?;
        }
        Ok(())
    }

    /// Expectations on the output bytes; a golden output is kept for the golden checks.
    fn judge_output(&mut self, key: &str, out: &[u8], e: &Expect) -> R<()> {
        // A build's goldens are its tiles (`judge_build`).
        if let (Some(label), None) = (&e.golden, &e.tiles) {
            self.run.goldens.push((label.clone(), out.to_vec()));
        }
        if let Some(h) = &e.sha256 {
            if sha256_hex(out) != h.to_lowercase() {
                return fail(format!(
                    "{key}: output SHA-256 is {}, expected {h}",
                    sha256_hex(out)
                ));
            }
        }
        for b in e.bytes_at.iter().flatten() {
            let want = parse_hex(&b.hex).map_err(|m| Stop(Status::Error, m.to_string()))?;
            let here = usize::try_from(b.offset)
                .ok()
                .and_then(|at| out.get(at..at.checked_add(want.len())?));
            if here != Some(&want[..]) {
                let name = b.field.as_deref().unwrap_or("bytes");
                return fail(format!("{key}: {name} at {} is not {}", b.offset, b.hex));
            }
        }
        if let Some(want) = &e.fields {
            let d = decode(out);
            for (path, text) in want {
                let Some(f) = d.field(path) else {
                    return fail(format!("{key}: the output has no field {path}"));
                };
                let ok = patch::field_equals(f, out, text)
                    .map_err(|m| Stop(Status::Error, m.to_string()))?;
                if !ok {
                    return fail(format!("{key}: {path} is {}, expected {text}", f.value));
                }
            }
        }
        if let Some(n) = &e.equals {
            let other = self.env.bytes(n)?;
            if other != out {
                return fail(format!(
                    "{key}: output differs from {n}: {}",
                    first_difference(out, &other)
                ));
            }
        }
        if let Some(n) = &e.differs {
            if self.env.bytes(n)? == out {
                return fail(format!("{key}: output equals {n}"));
            }
        }
        if let Some(l) = e.length {
            if out.len() as u64 != l {
                return fail(format!(
                    "{key}: output has {} bytes, expected {l}",
                    out.len()
                ));
            }
        }
        Ok(())
    }

    /// Expectations on the reply's fields: `valid`, `area`, `flags`, `tile_ref`, `links`, `query`
    /// and `id`.
    fn judge_reply(&mut self, step: &Step, done: &Done, e: &Expect) -> R<()> {
        let key = step.key();
        let fields = done.outcome.fields();
        let got = |k: &str| fields.get(k).cloned().unwrap_or(Value::Null);
        if let Some(v) = e.valid {
            if got("valid") != json!(v) {
                return fail(format!("{key}: valid is {}, expected {v}", got("valid")));
            }
        }
        if let Some(v) = e.area {
            if got("area") != json!(v) {
                return fail(format!("{key}: area is {}, expected {v}", got("area")));
            }
        }
        if let Some(v) = e.flags {
            if got("flags") != json!(v) {
                return fail(format!("{key}: flags are {}, expected {v}", got("flags")));
            }
        }
        if let Some(t) = &e.tile_ref {
            let want = self.env.reference(t)?;
            if got("tile_ref") != json!(want) {
                return fail(format!(
                    "{key}: tile_ref is {}, expected {want} ({t})",
                    got("tile_ref")
                ));
            }
        }
        if let Some(links) = &e.links {
            let have = got("links");
            let have = have.as_array().cloned().unwrap_or_default();
            let mut want = Vec::new();
            for l in links {
                want.push(self.link_json(l)?);
            }
            let agree = have.len() == want.len() && have.iter().zip(&want).all(|(h, w)| same(h, w));
            if !agree {
                if let (Step::GetPoly(p), Some(m)) = (step, &done.mesh) {
                    let poly = self.env.reference(&p.poly)?;
                    self.keep_links(m, &poly, &want);
                }
                let show = |v: &[Value]| v.iter().map(show_link).collect::<Vec<_>>().join(", ");
                return fail(format!(
                    "{key}: links are [{}], expected [{}]",
                    show(&have),
                    show(&want)
                ));
            }
        }
        if let Some(q) = &e.query {
            let refs = &self.env.refs;
            let want = q
                .to_json(&|r| resolve_ref(r, &|n| refs.get(n).copied()))
                .map_err(|m| Stop(Status::Error, m.to_string()))?;
            if let Err(m) = compare(&want, &fields) {
                if let Some(mesh) = &done.mesh {
                    self.keep_answer(mesh, &want, &fields);
                }
                return fail(format!("{key}: {m}"));
            }
        }
        for (k, want) in e.cache.iter().flatten() {
            if got(k) != json!(want) {
                return fail(format!("{key}: {k} is {}, expected {want}", got(k)));
            }
        }
        if let Some(id) = &e.id {
            let want = expected_id(id, done);
            if got("id") != json!(want) {
                return fail(format!("{key}: id is {}, expected {want}", got("id")));
            }
        }
        Ok(())
    }
}

impl Exec<'_> {
    /// An expected link as the wire writes it (`spec/conformance.md` §1.3, "Links").
    fn link_json(&self, l: &LinkExpect) -> R<Value> {
        let mut o = Map::new();
        o.insert("target".into(), json!(self.env.reference(&l.to)?));
        o.insert("kind".into(), json!(l.kind));
        if let Some(e) = l.edge {
            o.insert("edge".into(), json!(e));
        }
        if let Some(s) = &l.side {
            o.insert("side".into(), json!(s));
        }
        if let (Some(lo), Some(hi)) = (l.lo, l.hi) {
            o.insert("lo".into(), json!(lo.0));
            o.insert("hi".into(), json!(hi.0));
        }
        if let Some(e) = &l.end {
            o.insert("end".into(), json!(e));
        }
        Ok(Value::Object(o))
    }
}

/// A link for a message: kind, target and the kind's fields.
fn show_link(l: &Value) -> String {
    let s = |k: &str| l.get(k).map(Value::to_string).unwrap_or_default();
    let mut out = format!(
        "{} {}",
        l["kind"].as_str().unwrap_or("?"),
        l["target"].as_str().unwrap_or("?")
    );
    for k in ["edge", "side", "lo", "hi", "end"] {
        if l.get(k).is_some() {
            out += &format!(" {k} {}", s(k));
        }
    }
    out
}

/// The content id an `id` expectation names: its hex, or the SHA-256 of the tile bytes sent.
pub(super) fn expected_id(id: &str, done: &Done) -> String {
    if id == "sha256" {
        sha256_hex(done.input.as_deref().unwrap_or_default())
    } else {
        id.to_lowercase()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn compare_is_bitwise_for_numbers() {
        let w: Map<String, Value> = [("t".to_owned(), json!(0.0))].into_iter().collect();
        let g: Map<String, Value> = [("t".to_owned(), json!(-0.0))].into_iter().collect();
        assert_eq!(
            compare(&w, &g).unwrap_err().to_string(),
            "t is -0.0, expected 0.0"
        );
        let g2: Map<String, Value> = [("t".to_owned(), json!(0.0)), ("x".to_owned(), json!(1))]
            .into_iter()
            .collect();
        assert!(compare(&w, &g2).is_ok());
    }
}
