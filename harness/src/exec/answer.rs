//! The canonical bytes of a query answer (`spec/conformance.md` §3, "Query answers"): an accepted
//! query reply (§2.2) written as `ONQA` bytes, so that a query step can declare a golden, be
//! hashed into the manifest and take part in the thread matrix like any other output. The
//! encoding is a function of the reply's values alone (references as `u64`, numbers as binary64
//! bits, every NaN as one quiet NaN), so two replies encode alike exactly when the suite's bitwise
//! comparison (§2.3) finds them equal.

use serde_json::{Map, Value};

use crate::protocol::wire;

/// The magic of a query answer.
pub const MAGIC: &[u8; 4] = b"ONQA";
/// The encoding's version.
pub const VERSION: u16 = 1;
/// The bits every NaN is written as (the wire's `"nan"` carries no payload).
pub const NAN_BITS: u64 = 0x7ff8_0000_0000_0000;

/// Why a reply has no canonical encoding: a key missing or of the wrong form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("query answer: {key} {what}")]
pub struct AnswerError {
    /// The reply key.
    pub key: String,
    /// What is wrong with it.
    pub what: &'static str,
}

fn bad<T>(key: &str, what: &'static str) -> Result<T, AnswerError> {
    Err(AnswerError {
        key: key.to_owned(),
        what,
    })
}

/// The op code of a query op (1 … 5), or `None` for an op that is not a query.
pub fn op_code(op: &str) -> Option<u8> {
    match op {
        "find_nearest_poly" => Some(1),
        "find_path" => Some(2),
        "find_straight_path" => Some(3),
        "raycast" => Some(4),
        "corridor_cost" => Some(5),
        _ => None,
    }
}

/// The encoder: the project's one byte writer plus the reply-reading helpers.
struct Out(onav::bytes::Writer);

impl Out {
    fn u8(&mut self, v: u8) {
        self.0.u8(v);
    }
    fn u32(&mut self, key: &str, v: usize) -> Result<(), AnswerError> {
        let Ok(v) = u32::try_from(v) else {
            return bad(key, "has more than 2^32 - 1 elements");
        };
        self.0.u32(v);
        Ok(())
    }
    fn f64(&mut self, key: &str, v: &Value) -> Result<(), AnswerError> {
        let Some(x) = wire::float_from(v) else {
            return bad(key, "is not a number");
        };
        let bits = if x.is_nan() { NAN_BITS } else { x.to_bits() };
        self.0.bytes(&bits.to_le_bytes());
        Ok(())
    }
    fn vec3(&mut self, key: &str, v: &Value) -> Result<(), AnswerError> {
        match v.as_array() {
            Some(a) if a.len() == 3 => a.iter().try_for_each(|x| self.f64(key, x)),
            _ => bad(key, "is not 3 numbers"),
        }
    }
    fn reference(&mut self, key: &str, v: &Value) -> Result<(), AnswerError> {
        let raw = v
            .as_str()
            .and_then(|s| s.strip_prefix("0x"))
            .filter(|h| !h.is_empty() && h.len() <= 16)
            .and_then(|h| u64::from_str_radix(h, 16).ok());
        match raw {
            Some(r) => {
                self.0.bytes(&r.to_le_bytes());
                Ok(())
            }
            None => bad(key, "is not a reference \"0x…\""),
        }
    }
    fn references(&mut self, key: &str, v: &Value) -> Result<(), AnswerError> {
        let Some(a) = v.as_array() else {
            return bad(key, "is not a list of references");
        };
        self.u32(key, a.len())?;
        a.iter().try_for_each(|r| self.reference(key, r))
    }
    fn boolean(&mut self, key: &str, v: &Value) -> Result<(), AnswerError> {
        match v.as_bool() {
            Some(b) => {
                self.u8(u8::from(b));
                Ok(())
            }
            None => bad(key, "is not true or false"),
        }
    }
    fn name(&mut self, key: &str, v: &Value, names: &[&str]) -> Result<(), AnswerError> {
        match v.as_str().and_then(|s| names.iter().position(|n| *n == s)) {
            Some(i) => {
                self.u8(i as u8);
                Ok(())
            }
            None => bad(key, "is not one of its names"),
        }
    }
}

/// The `ONQA` bytes of an accepted reply to query `op`; keys other than the op's (§2.2) are not
/// encoded.
pub fn encode(op: &str, reply: &Map<String, Value>) -> Result<Vec<u8>, AnswerError> {
    let Some(code) = op_code(op) else {
        return bad(op, "is not a query");
    };
    let null = Value::Null;
    let get = |k: &str| reply.get(k).unwrap_or(&null);
    let mut o = Out(onav::bytes::Writer::with_capacity(64));
    o.0.bytes(MAGIC);
    o.0.u16(VERSION);
    o.u8(code);
    o.u8(0);
    match code {
        1 => {
            o.boolean("found", get("found"))?;
            if get("found") == &Value::Bool(true) {
                o.reference("poly", get("poly"))?;
                o.vec3("point", get("point"))?;
                o.boolean("over_poly", get("over_poly"))?;
            }
        }
        2 => {
            o.name(
                "status",
                get("status"),
                &["complete", "partial", "out_of_nodes"],
            )?;
            o.f64("cost", get("cost"))?;
            o.references("corridor", get("corridor"))?;
        }
        3 => {
            let Some(points) = get("points").as_array() else {
                return bad("points", "is not a list");
            };
            o.u32("points", points.len())?;
            for p in points {
                o.vec3("points[].pos", p.get("pos").unwrap_or(&null))?;
                match p
                    .get("flags")
                    .and_then(Value::as_u64)
                    .and_then(|f| u8::try_from(f).ok())
                {
                    Some(f) => o.u8(f),
                    None => return bad("points[].flags", "is not 0 … 255"),
                }
                o.reference("points[].poly", p.get("poly").unwrap_or(&null))?;
            }
        }
        5 => o.f64("cost", get("cost"))?,
        _ => {
            o.name(
                "stop",
                get("stop"),
                &["reached", "wall", "missed", "visit_limit"],
            )?;
            o.f64("t", get("t"))?;
            o.vec3("normal", get("normal"))?;
            match reply.get("edge") {
                Some(e) => match e.as_u64().and_then(|e| u32::try_from(e).ok()) {
                    Some(e) => {
                        o.u8(1);
                        o.0.u32(e);
                    }
                    None => return bad("edge", "is not a u32"),
                },
                None => o.u8(0),
            }
            match reply.get("cost") {
                Some(c) => {
                    o.u8(1);
                    o.f64("cost", c)?;
                }
                None => o.u8(0),
            }
            o.references("visited", get("visited"))?;
        }
    }
    Ok(o.0.into_inner())
}

struct In<'a> {
    b: &'a [u8],
    at: usize,
}

impl In<'_> {
    fn take(&mut self, n: usize, key: &str) -> Result<&[u8], AnswerError> {
        match self.b.get(self.at..self.at + n) {
            Some(s) => {
                self.at += n;
                Ok(s)
            }
            None => bad(key, "is truncated"),
        }
    }
    fn u8(&mut self, key: &str) -> Result<u8, AnswerError> {
        Ok(self.take(1, key)?[0])
    }
    fn u32(&mut self, key: &str) -> Result<u32, AnswerError> {
        let s = self.take(4, key)?;
        Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    }
    fn u64(&mut self, key: &str) -> Result<u64, AnswerError> {
        let s = self.take(8, key)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(s);
        Ok(u64::from_le_bytes(a))
    }
    fn f64(&mut self, key: &str) -> Result<Value, AnswerError> {
        Ok(wire::float(f64::from_bits(self.u64(key)?)))
    }
    fn vec3(&mut self, key: &str) -> Result<Value, AnswerError> {
        Ok(Value::Array(vec![
            self.f64(key)?,
            self.f64(key)?,
            self.f64(key)?,
        ]))
    }
    fn reference(&mut self, key: &str) -> Result<Value, AnswerError> {
        Ok(Value::from(crate::protocol::ref_to_hex(self.u64(key)?)))
    }
    fn references(&mut self, key: &str) -> Result<Value, AnswerError> {
        let n = self.u32(key)? as usize;
        if n > self.b.len().saturating_sub(self.at) / 8 {
            return bad(key, "has a count the bytes cannot hold");
        }
        (0..n)
            .map(|_| self.reference(key))
            .collect::<Result<_, _>>()
            .map(Value::Array)
    }
    fn boolean(&mut self, key: &str) -> Result<Value, AnswerError> {
        match self.u8(key)? {
            0 => Ok(Value::Bool(false)),
            1 => Ok(Value::Bool(true)),
            _ => bad(key, "is not 0 or 1"),
        }
    }
    fn name(&mut self, key: &str, names: &[&str]) -> Result<Value, AnswerError> {
        match names.get(usize::from(self.u8(key)?)) {
            Some(n) => Ok(Value::from(*n)),
            None => bad(key, "is not one of its codes"),
        }
    }
}

/// Reads `ONQA` bytes back into the op and the reply they encode: the inverse of [`encode`] on
/// its image. Bytes left over, a bad header or a value out of range are errors.
pub fn decode(bytes: &[u8]) -> Result<(&'static str, Map<String, Value>), AnswerError> {
    let mut r = In { b: bytes, at: 0 };
    if r.take(4, "magic")? != MAGIC {
        return bad("magic", "is not ONQA");
    }
    if r.take(2, "version")? != VERSION.to_le_bytes() {
        return bad("version", "is not 1");
    }
    let code = r.u8("op")?;
    if r.u8("reserved")? != 0 {
        return bad("reserved", "is not 0");
    }
    let mut m = Map::new();
    let op = match code {
        1 => {
            let found = r.boolean("found")?;
            if found == Value::Bool(true) {
                m.insert("poly".into(), r.reference("poly")?);
                m.insert("point".into(), r.vec3("point")?);
                m.insert("over_poly".into(), r.boolean("over_poly")?);
            }
            m.insert("found".into(), found);
            "find_nearest_poly"
        }
        2 => {
            m.insert(
                "status".into(),
                r.name("status", &["complete", "partial", "out_of_nodes"])?,
            );
            m.insert("cost".into(), r.f64("cost")?);
            m.insert("corridor".into(), r.references("corridor")?);
            "find_path"
        }
        3 => {
            let n = r.u32("points")? as usize;
            if n > bytes.len() / 33 {
                return bad("points", "has a count the bytes cannot hold");
            }
            let mut pts = Vec::with_capacity(n);
            for _ in 0..n {
                let mut p = Map::new();
                p.insert("pos".into(), r.vec3("points[].pos")?);
                p.insert("flags".into(), Value::from(r.u8("points[].flags")?));
                p.insert("poly".into(), r.reference("points[].poly")?);
                pts.push(Value::Object(p));
            }
            m.insert("points".into(), Value::Array(pts));
            "find_straight_path"
        }
        4 => {
            m.insert(
                "stop".into(),
                r.name("stop", &["reached", "wall", "missed", "visit_limit"])?,
            );
            m.insert("t".into(), r.f64("t")?);
            m.insert("normal".into(), r.vec3("normal")?);
            match r.u8("edge")? {
                0 => {}
                1 => {
                    m.insert("edge".into(), Value::from(r.u32("edge")?));
                }
                _ => return bad("edge", "presence is not 0 or 1"),
            }
            match r.u8("cost")? {
                0 => {}
                1 => {
                    m.insert("cost".into(), r.f64("cost")?);
                }
                _ => return bad("cost", "presence is not 0 or 1"),
            }
            m.insert("visited".into(), r.references("visited")?);
            "raycast"
        }
        5 => {
            m.insert("cost".into(), r.f64("cost")?);
            "corridor_cost"
        }
        _ => return bad("op", "is not 1 … 5"),
    };
    if r.at != bytes.len() {
        return bad("end", "has bytes left over");
    }
    Ok((op, m))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn a_corridor_cost_answer_is_header_and_cost() {
        let r = map(json!({"cost": "inf"}));
        let b = encode("corridor_cost", &r).unwrap();
        let mut want = b"ONQA\x01\x00\x05\x00".to_vec();
        want.extend_from_slice(&f64::INFINITY.to_bits().to_le_bytes());
        assert_eq!(b, want);
        assert_eq!(decode(&b).unwrap(), ("corridor_cost", r));
    }

    #[test]
    fn a_path_answer_is_header_status_cost_and_corridor() {
        let r = map(json!({"status": "partial", "cost": 1.5, "corridor": ["0x10000100002"]}));
        let b = encode("find_path", &r).unwrap();
        let mut want = b"ONQA\x01\x00\x02\x00\x01".to_vec();
        want.extend_from_slice(&1.5f64.to_bits().to_le_bytes());
        want.extend_from_slice(&1u32.to_le_bytes());
        want.extend_from_slice(&0x100_0010_0002u64.to_le_bytes());
        assert_eq!(b, want);
    }

    #[test]
    fn every_nan_is_one_nan_and_signed_zeros_differ() {
        let nan = |c: Value| {
            encode(
                "find_path",
                &map(json!({"status": "complete", "cost": c, "corridor": []})),
            )
        };
        assert_eq!(nan(json!("nan")).unwrap()[9..17], NAN_BITS.to_le_bytes());
        assert_ne!(nan(json!(0.0)).unwrap(), nan(json!(-0.0)).unwrap());
        assert_eq!(
            nan(json!("inf")).unwrap()[9..17],
            f64::INFINITY.to_bits().to_le_bytes()
        );
    }

    #[test]
    fn a_raycast_answer_marks_its_optional_edge_and_cost() {
        let base = json!({"stop": "wall", "t": 0.5, "normal": [1.0, 0.0, 0.0], "visited": []});
        let plain = encode("raycast", &map(base.clone())).unwrap();
        let mut with = base;
        with["edge"] = json!(2);
        with["cost"] = json!(3.0);
        let full = encode("raycast", &map(with)).unwrap();
        assert_eq!(plain.len(), 8 + 1 + 8 + 24 + 1 + 1 + 4);
        assert_eq!(full.len(), plain.len() + 4 + 8);
    }

    #[test]
    fn decoding_inverts_encoding_and_refuses_leftovers() {
        let r = map(
            json!({"stop": "wall", "t": 0.25, "normal": [0.0, 0.0, -1.0], "visited": ["0x10000000001"], "edge": 3}),
        );
        let b = encode("raycast", &r).unwrap();
        let (op, back) = decode(&b).unwrap();
        assert_eq!((op, encode(op, &back).unwrap()), ("raycast", b.clone()));
        let mut longer = b;
        longer.push(0);
        assert_eq!(decode(&longer).unwrap_err().key, "end");
    }

    #[test]
    fn a_malformed_reply_names_its_key() {
        let e = encode(
            "find_nearest_poly",
            &map(json!({"found": true, "poly": "0x1"})),
        );
        assert_eq!(e.unwrap_err().key, "point");
        let e = encode(
            "find_path",
            &map(json!({"status": "lost", "cost": 0, "corridor": []})),
        );
        assert_eq!(e.unwrap_err().key, "status");
        assert!(encode("add_tile", &Map::new()).is_err());
    }
}
