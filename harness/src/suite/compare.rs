//! `onav run --testee CMD --compare-reference` (`spec/conformance.md` §4.9): every request the
//! testee answers is also answered by a fresh in-process reference, and the first reply that
//! differs is named — the step, the op and what differs (a reply field with both values, or for
//! bytes the first structural difference). A port whose snapshot is one bit off then learns it
//! at the `snapshot` step, not from the dozens of later checks that fail because of it, and a
//! `y_` case that compares a port only with itself still shows where the port leaves the
//! reference.
//!
//! Mesh handles are the testee's own; the comparer maps each to the reference's handle of the
//! mesh the same request made. Once the two have differed, the comparer stops: their states may
//! differ from then on, and only the first difference says where.

use serde_json::{Map, Value};

use crate::files::diff::first_difference;
use crate::protocol::{wire, Backend, BackendFailure, Reply, Request};
use crate::testee::reference::Reference;

/// The first reply of a testee that differs from the reference's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Divergence {
    /// The step (from 1) and its key; `None` for requests after the last step.
    pub step: Option<(usize, &'static str)>,
    /// The op.
    pub op: &'static str,
    /// What differs.
    pub what: String,
}

impl std::fmt::Display for Divergence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some((i, key)) = self.step {
            write!(f, "step {i} ({key}): ")?;
        }
        write!(f, "{}: {}", self.op, self.what)
    }
}

/// The reference beside a testee, for one case.
#[derive(Debug, Default)]
pub struct Comparer {
    reference: Reference,
    /// Each testee mesh handle with the reference's handle of the same mesh.
    handles: Vec<(Value, Value)>,
    first: Option<Divergence>,
}

impl Comparer {
    /// A comparer with a fresh reference.
    pub fn new() -> Self {
        Self::default()
    }

    /// Answers `req` with the reference and compares the testee's reply `got` with it. Returns
    /// the reference's reply and the difference when this is the first reply that differs.
    /// Crashes and timeouts are the runner's to report; `unsupported` replies, requests naming
    /// a mesh the reference does not have and everything after the first difference are not
    /// compared.
    pub fn check(
        &mut self,
        req: &Request,
        got: &Result<Reply, BackendFailure>,
        step: Option<(usize, &'static str)>,
    ) -> Option<(Reply, String)> {
        if self.first.is_some() {
            return None;
        }
        let Ok(got) = got else { return None };
        if matches!(got, Reply::Unsupported {}) {
            return None;
        }
        let theirs = self.translate(req)?;
        let want = self.reference.call(&theirs).ok()?;
        if let (Some(g), Some(w)) = (handle(got), handle(&want)) {
            self.handles.push((g, w));
        }
        let what = difference(got, &want)?;
        self.first = Some(Divergence {
            step,
            op: req.op(),
            what: what.clone(),
        });
        Some((want, what))
    }

    /// The first difference, if any.
    pub fn finish(self) -> Option<Divergence> {
        self.first
    }

    /// The request with the testee's mesh handle replaced by the reference's (`None` when the
    /// reference has no such mesh).
    fn translate(&self, req: &Request) -> Option<Request> {
        let mut v = serde_json::to_value(req).ok()?;
        // A tile cache's handle (`cache`) is a mesh handle too (`conformance.md` §6.6).
        for key in ["mesh", "cache"] {
            if let Some(h) = v.get_mut(key) {
                let (_, ours) = self.handles.iter().rev().find(|(t, _)| t == h)?;
                *h = ours.clone();
            }
        }
        serde_json::from_value(v).ok()
    }
}

/// The mesh handle an accepted reply names.
fn handle(r: &Reply) -> Option<Value> {
    match r {
        Reply::Ok { fields } => fields.get("mesh").or_else(|| fields.get("cache")).cloned(),
        _ => None,
    }
}

fn describe(r: &Reply) -> String {
    match r {
        Reply::Ok { .. } => "ok".into(),
        Reply::Rejected { class, field, .. } => format!("rejected ({class}, {field})"),
        Reply::Unsupported {} => "unsupported".into(),
        Reply::Error { message } => format!("error ({message})"),
    }
}

/// The first difference between the testee's reply and the reference's, for people. Messages
/// are free text and a reply's keys beyond the reference's are ignored; a rejection's offset is
/// compared when the testee gives one; mesh handles are the testee's own.
pub fn difference(got: &Reply, want: &Reply) -> Option<String> {
    match (got, want) {
        (Reply::Ok { fields: g }, Reply::Ok { fields: w }) => fields_difference(g, w),
        (
            Reply::Rejected {
                class,
                field,
                offset,
                ..
            },
            Reply::Rejected {
                class: c2,
                field: f2,
                offset: o2,
                ..
            },
        ) => {
            if (class, field) != (c2, f2) {
                Some(format!(
                    "rejected ({class}, {field}); the reference rejects ({c2}, {f2})"
                ))
            } else if offset.is_some() && offset != o2 {
                let show =
                    |o: &Option<u64>| o.map_or("no offset".into(), |o| format!("offset {o}"));
                Some(format!(
                    "rejected ({class}, {field}) at {}; the reference at {}",
                    show(offset),
                    show(o2)
                ))
            } else {
                None
            }
        }
        (Reply::Error { .. }, Reply::Error { .. }) => None,
        _ => Some(format!(
            "answered {}; the reference answered {}",
            describe(got),
            describe(want)
        )),
    }
}

fn fields_difference(got: &Map<String, Value>, want: &Map<String, Value>) -> Option<String> {
    for (k, w) in want {
        if k == "mesh" || k == "cache" {
            continue;
        }
        let Some(g) = got.get(k) else {
            return Some(format!(
                "the reply has no {k:?}; the reference's has {}",
                short(w)
            ));
        };
        if k == "bytes" {
            if let (Some(gs), Some(ws)) = (g.as_str(), w.as_str()) {
                if gs == ws {
                    continue;
                }
                return Some(match (wire::unb64("bytes", gs), wire::unb64("bytes", ws)) {
                    (Ok(gb), Ok(wb)) => format!(
                        "bytes differ from the reference's ({} vs {} bytes): {} (testee vs reference)",
                        gb.len(),
                        wb.len(),
                        first_difference(&gb, &wb)
                    ),
                    _ => "bytes are not base64".into(),
                });
            }
        }
        if let Some(d) = value_difference(k, g, w) {
            return Some(d);
        }
    }
    None
}

/// A JSON value cut to a readable length.
fn short(v: &Value) -> String {
    let s = v.to_string();
    match s.char_indices().nth(120) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s,
    }
}

/// The first difference inside two values at `path`: numbers as binary64, bitwise (so `-0` and
/// `0` differ); arrays item by item; objects by the reference's keys.
fn value_difference(path: &str, got: &Value, want: &Value) -> Option<String> {
    let differ = || {
        Some(format!(
            "{path} is {}; the reference's is {}",
            short(got),
            short(want)
        ))
    };
    match (got, want) {
        (Value::Number(g), Value::Number(w)) => {
            // Integers exactly (above 2^53 binary64 would merge them), other numbers bitwise.
            let same = if g.is_f64() || w.is_f64() {
                match (g.as_f64(), w.as_f64()) {
                    (Some(x), Some(y)) => x.to_bits() == y.to_bits(),
                    _ => g == w,
                }
            } else {
                g == w
            };
            if same {
                None
            } else {
                differ()
            }
        }
        (Value::Array(g), Value::Array(w)) => {
            for (i, (x, y)) in g.iter().zip(w).enumerate() {
                if let Some(d) = value_difference(&format!("{path}[{i}]"), x, y) {
                    return Some(d);
                }
            }
            (g.len() != w.len()).then(|| {
                format!(
                    "{path} has {} items; the reference's has {}",
                    g.len(),
                    w.len()
                )
            })
        }
        (Value::Object(g), Value::Object(w)) => w.iter().find_map(|(k, y)| match g.get(k) {
            Some(x) => value_difference(&format!("{path}.{k}"), x, y),
            None => Some(format!(
                "{path} has no {k:?}; the reference's has {}",
                short(y)
            )),
        }),
        _ if got == want => None,
        _ => differ(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ok(v: Value) -> Reply {
        serde_json::from_value(
            json!({"result": "ok"})
                .as_object()
                .map(|o| {
                    let mut o = o.clone();
                    o.extend(v.as_object().unwrap().clone());
                    Value::Object(o)
                })
                .unwrap(),
        )
        .unwrap()
    }

    #[test]
    fn differences_name_the_path_and_both_values() {
        assert_eq!(
            difference(&ok(json!({"t": 1.0})), &ok(json!({"t": 1}))),
            None
        );
        assert_eq!(
            difference(&ok(json!({"t": -0.0})), &ok(json!({"t": 0.0}))).unwrap(),
            "t is -0.0; the reference's is 0.0"
        );
        // Integers beyond 2^53 differ exactly.
        assert!(difference(
            &ok(json!({"n": 9_007_199_254_740_993_u64})),
            &ok(json!({"n": 9_007_199_254_740_992_u64}))
        )
        .is_some());
        assert_eq!(
            difference(
                &ok(json!({"links": [{"target": "0x1", "lo": 0.5}]})),
                &ok(json!({"links": [{"target": "0x1", "lo": 0.25}]}))
            )
            .unwrap(),
            "links[0].lo is 0.5; the reference's is 0.25"
        );
        assert_eq!(
            difference(
                &ok(json!({"path": ["a"]})),
                &ok(json!({"path": ["a", "b"]}))
            )
            .unwrap(),
            "path has 1 items; the reference's has 2"
        );
        // The testee's own keys and mesh handles are not compared; messages neither.
        assert_eq!(
            difference(&ok(json!({"mesh": 7, "extra": 1})), &ok(json!({"mesh": 0}))),
            None
        );
        let rej = |c: &str, f: &str, o: Option<u64>| Reply::Rejected {
            class: c.into(),
            field: f.into(),
            offset: o,
            message: "free text".into(),
        };
        assert_eq!(
            difference(
                &rej("format", "magic", None),
                &rej("format", "magic", Some(0))
            ),
            None
        );
        assert_eq!(
            difference(
                &rej("format", "magic", Some(4)),
                &rej("format", "magic", Some(0))
            )
            .unwrap(),
            "rejected (format, magic) at offset 4; the reference at offset 0"
        );
        assert_eq!(
            difference(&ok(json!({})), &rej("format", "version", None)).unwrap(),
            "answered ok; the reference answered rejected (format, version)"
        );
        let b = |bytes: &[u8]| ok(json!({"bytes": wire::b64(bytes)}));
        let d = difference(&b(b"ONPS\x02\x00"), &b(b"ONPS\x01\x00")).unwrap();
        assert!(
            d.starts_with(
                "bytes differ from the reference's (6 vs 6 bytes): first difference at byte 4"
            ),
            "{d}"
        );
    }

    #[test]
    fn handles_are_mapped_and_the_first_difference_is_kept() {
        let w = onav::WorldSpec {
            columns: 1,
            rows: 1,
            ..onav::WorldSpec::default()
        };
        let mut c = Comparer::new();
        let params = wire::b64(&w.params(2).to_bytes());
        let new = Request::NewMesh { params };
        // The testee names its mesh 41; the reference's is 0.
        let got = Ok(ok(json!({"mesh": 41})));
        assert_eq!(c.check(&new, &got, Some((1, "new_mesh"))), None);
        let tile = wire::b64(&w.tiles()[0].to_bytes());
        let add = Request::AddTile {
            mesh: json!(41),
            tile,
        };
        let mut r = Reference::new();
        let m = handle(&r.call(&new).unwrap()).unwrap();
        let right = r
            .call(&Request::AddTile {
                mesh: m,
                tile: wire::b64(&w.tiles()[0].to_bytes()),
            })
            .unwrap();
        let mut c2 = Comparer::new();
        assert_eq!(c2.check(&new, &got, None), None);
        assert_eq!(
            c2.check(&add, &Ok(right.clone()), Some((2, "add_tile"))),
            None
        );
        assert_eq!(c2.finish(), None);
        // A wrong tile reference is the first difference; later ones are not compared.
        let wrong = ok(json!({"tile_ref": "0x0000000000000000"}));
        let (want, what) = c
            .check(&add, &Ok(wrong.clone()), Some((2, "add_tile")))
            .unwrap();
        assert_eq!(want, right);
        assert!(
            what.starts_with("tile_ref is \"0x0000000000000000\""),
            "{what}"
        );
        assert_eq!(c.check(&add, &Ok(wrong), Some((3, "add_tile"))), None);
        let d = c.finish().unwrap();
        assert_eq!(d.step, Some((2, "add_tile")));
        assert!(d
            .to_string()
            .starts_with("step 2 (add_tile): add_tile: tile_ref is"));
        // A handle the reference never made is not compared.
        let mut c3 = Comparer::new();
        assert_eq!(
            c3.check(&Request::Drop { mesh: json!(5) }, &Ok(ok(json!({}))), None),
            None
        );
    }
}
