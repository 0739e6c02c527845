//! `patch` steps: byte edits located by spec field path (through the structural decoder) or by
//! offset. Every edit is also lowered to a plain byte edit (set, splice, truncate, append) with
//! absolute offsets, which is what the compiled suite carries for ports without a decoder.

use serde::Serialize;

use crate::files::decode::{decode, Field, Value};
use crate::hex::hex;
use crate::scenario::{parse_exact, parse_hex, parse_int, PatchEdit, SetEdit, SpliceEdit};

/// A byte-level edit: what every patch edit lowers to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LowEdit {
    /// Overwrite bytes at `offset`.
    Set {
        /// Absolute offset.
        offset: u64,
        /// The new bytes.
        hex: String,
    },
    /// Replace `remove` bytes at `offset` by `hex`.
    Splice {
        /// Absolute offset.
        offset: u64,
        /// Bytes removed.
        remove: u64,
        /// Bytes inserted.
        hex: String,
    },
    /// Keep the first `keep` bytes.
    Truncate {
        /// Bytes kept.
        keep: u64,
    },
    /// Append bytes (hex).
    Append(String),
}

impl LowEdit {
    /// Applies the edit.
    pub fn apply(&self, b: &mut Vec<u8>) -> Result<(), String> {
        let hexb = |h: &str| parse_hex(h);
        match self {
            LowEdit::Set { offset, hex } => {
                let v = hexb(hex)?;
                let at = *offset as usize;
                let end = at.checked_add(v.len()).filter(|&e| e <= b.len());
                let end = end.ok_or_else(|| {
                    format!("set at {at}+{} is past the end ({})", v.len(), b.len())
                })?;
                b[at..end].copy_from_slice(&v);
            }
            LowEdit::Splice {
                offset,
                remove,
                hex,
            } => {
                let v = hexb(hex)?;
                let at = *offset as usize;
                let end = at
                    .checked_add(*remove as usize)
                    .filter(|&e| e <= b.len())
                    .ok_or_else(|| {
                        format!("splice at {at}+{remove} is past the end ({})", b.len())
                    })?;
                b.splice(at..end, v);
            }
            LowEdit::Truncate { keep } => {
                if *keep as usize > b.len() {
                    return Err(format!("cannot keep {keep} of {} bytes", b.len()));
                }
                b.truncate(*keep as usize);
            }
            LowEdit::Append(hex) => b.extend(hexb(hex)?),
        }
        Ok(())
    }
}

fn find(bytes: &[u8], path: &str) -> Result<Field, String> {
    let d = decode(bytes);
    d.field(path).cloned().ok_or_else(|| {
        let stop = d
            .stopped
            .map(|(at, why)| format!(" (the decode stopped at byte {at}: {why})"))
            .unwrap_or_default();
        format!(
            "no field {path:?} in the decode of these {} bytes{stop}",
            bytes.len()
        )
    })
}

/// A float for a patch: exact decimal, `0x` + 16 hex digits of any bits, `nan`, `inf`, `-inf`.
fn patch_float(text: &str) -> Result<f64, String> {
    let s = text.trim();
    match s {
        "nan" => return Ok(f64::from_bits(0x7ff8_0000_0000_0000)),
        "inf" => return Ok(f64::INFINITY),
        "-inf" => return Ok(f64::NEG_INFINITY),
        _ => {}
    }
    if let Some(h) = s.strip_prefix("0x") {
        if h.len() == 16 {
            return u64::from_str_radix(h, 16)
                .map(f64::from_bits)
                .map_err(|e| format!("{s:?}: {e}"));
        }
    }
    parse_exact(s)
}

/// The little-endian bytes of `text` read as a value of field `f`'s type.
pub fn encode_value(f: &Field, text: &str) -> Result<Vec<u8>, String> {
    let n = f.size as usize;
    match f.value {
        Value::U(_) => {
            let v = parse_int(text)?;
            if v < 0 || (n < 16 && v >> (8 * n) != 0) {
                return Err(format!("{text} does not fit the {n}-byte field {}", f.path));
            }
            Ok((v as u128).to_le_bytes()[..n].to_vec())
        }
        Value::I(_) => {
            let v = parse_int(text)?;
            let v = i32::try_from(v).map_err(|_| format!("{text} does not fit i32 {}", f.path))?;
            Ok(v.to_le_bytes().to_vec())
        }
        Value::F(_) => Ok(patch_float(text)?.to_le_bytes().to_vec()),
        Value::Bytes(_) => {
            let v = parse_hex(text)?;
            if v.len() != n {
                return Err(format!(
                    "{} takes {n} bytes of hex, got {}",
                    f.path,
                    v.len()
                ));
            }
            Ok(v)
        }
    }
}

/// True when the field holds `text` read as its type (floats compare bitwise).
pub fn field_equals(f: &Field, bytes: &[u8], text: &str) -> Result<bool, String> {
    let want = encode_value(f, text)?;
    let at = f.offset as usize;
    Ok(bytes.get(at..at + f.size as usize) == Some(&want[..]))
}

fn set(
    bytes: &[u8],
    s: &SetEdit,
    blob: &dyn Fn(&str) -> Option<Vec<u8>>,
) -> Result<LowEdit, String> {
    if let Some(off) = s.offset {
        return Ok(LowEdit::Set {
            offset: off,
            hex: hex(&parse_hex(s.hex.as_deref().unwrap_or(""))?),
        });
    }
    let f = find(bytes, s.field.as_deref().unwrap_or(""))?;
    let new = if let Some(h) = &s.hex {
        parse_hex(h)?
    } else if let Some(b) = &s.sha256_of {
        let src = blob(b).ok_or_else(|| format!("no bytes named {b:?}"))?;
        if f.size != 32 {
            return Err(format!(
                "sha256_of needs a 32-byte field; {} has {}",
                f.path, f.size
            ));
        }
        use sha2::Digest;
        sha2::Sha256::digest(&src).to_vec()
    } else if let Some(v) = &s.value {
        encode_value(&f, v)?
    } else {
        let add = s.add.unwrap_or(0);
        let n = f.size as usize;
        let cur = match f.value {
            Value::U(v) => i128::from(v),
            Value::I(v) => i128::from(v),
            _ => return Err(format!("add needs an integer field; {} is not", f.path)),
        };
        let m: i128 = 1 << (8 * n);
        let v = (cur + i128::from(add)).rem_euclid(m);
        (v as u128).to_le_bytes()[..n].to_vec()
    };
    Ok(LowEdit::Set {
        offset: f.offset,
        hex: hex(&new),
    })
}

fn splice(
    bytes: &[u8],
    s: &SpliceEdit,
    blob: &dyn Fn(&str) -> Option<Vec<u8>>,
) -> Result<LowEdit, String> {
    let (offset, remove) = if let Some(p) = &s.field {
        let f = find(bytes, p)?;
        (f.offset, f.size)
    } else if let Some(p) = &s.before {
        let start = find(bytes, p)?.offset;
        match &s.until {
            Some(u) => {
                let end = if u == "end" {
                    bytes.len() as u64
                } else {
                    find(bytes, u)?.offset
                };
                if end < start {
                    return Err(format!("{u} comes before {p}"));
                }
                (start, end - start)
            }
            None => (start, 0),
        }
    } else if let Some(p) = &s.after {
        let f = find(bytes, p)?;
        (f.offset + f.size, 0)
    } else {
        (s.offset.unwrap_or(0), s.remove.unwrap_or(0))
    };
    let mut new = match (&s.hex, &s.blob) {
        (Some(h), _) => parse_hex(h)?,
        (None, Some(b)) => blob(b).ok_or_else(|| format!("no bytes named {b:?}"))?,
        (None, None) => Vec::new(),
    };
    if s.length_prefix {
        let n = u32::try_from(new.len()).map_err(|_| "blob too long".to_string())?;
        let mut v = n.to_le_bytes().to_vec();
        v.append(&mut new);
        new = v;
    }
    Ok(LowEdit::Splice {
        offset,
        remove,
        hex: hex(&new),
    })
}

/// Lowers one edit against the bytes as they are now.
pub fn lower(
    bytes: &[u8],
    e: &PatchEdit,
    blob: &dyn Fn(&str) -> Option<Vec<u8>>,
) -> Result<LowEdit, String> {
    Ok(match e {
        PatchEdit::Set(s) => set(bytes, s, blob)?,
        PatchEdit::Flip(fl) => {
            let (offset, size) = match (&fl.field, fl.offset) {
                (Some(p), _) => {
                    let f = find(bytes, p)?;
                    (f.offset, f.size)
                }
                (None, o) => (o.unwrap_or(0), 1),
            };
            if u64::from(fl.bit) >= size * 8 {
                return Err(format!("bit {} is outside the {size}-byte field", fl.bit));
            }
            let at = (offset + u64::from(fl.bit / 8)) as usize;
            let b = *bytes
                .get(at)
                .ok_or_else(|| format!("offset {at} is past the end"))?;
            LowEdit::Set {
                offset: at as u64,
                hex: hex(&[b ^ (1 << (fl.bit % 8))]),
            }
        }
        PatchEdit::Truncate(t) => {
            let len = bytes.len() as u64;
            let keep = match (t.keep, t.drop, &t.at) {
                (Some(k), _, _) => k,
                (None, Some(d), _) => len
                    .checked_sub(d)
                    .ok_or_else(|| format!("cannot drop {d} of {len} bytes"))?,
                (None, None, Some(p)) => find(bytes, p)?.offset,
                _ => len,
            };
            LowEdit::Truncate { keep }
        }
        PatchEdit::Append(h) => LowEdit::Append(hex(&parse_hex(h)?)),
        PatchEdit::Copy(c) => {
            let from = find(bytes, &c.from)?;
            let to = find(bytes, &c.to)?;
            if from.size != to.size {
                return Err(format!(
                    "copy {} ({} bytes) onto {} ({} bytes)",
                    from.path, from.size, to.path, to.size
                ));
            }
            let src = &bytes[from.offset as usize..(from.offset + from.size) as usize];
            LowEdit::Set {
                offset: to.offset,
                hex: hex(src),
            }
        }
        PatchEdit::Splice(s) => splice(bytes, s, blob)?,
        PatchEdit::FitLength(p) => {
            let f = find(bytes, p)?;
            if f.size != 4 || !matches!(f.value, Value::U(_)) {
                return Err(format!("fit_length needs a u32 length field; {p} is not"));
            }
            let n = bytes.len() as u64 - (f.offset + 4);
            let n = u32::try_from(n).map_err(|_| "too long".to_string())?;
            LowEdit::Set {
                offset: f.offset,
                hex: hex(&n.to_le_bytes()),
            }
        }
    })
}

/// Applies edits in order; returns the new bytes and the lowered edits.
pub fn apply(
    bytes: &[u8],
    edits: &[PatchEdit],
    blob: &dyn Fn(&str) -> Option<Vec<u8>>,
) -> Result<(Vec<u8>, Vec<LowEdit>), String> {
    let mut cur = bytes.to_vec();
    let mut low = Vec::with_capacity(edits.len());
    for (i, e) in edits.iter().enumerate() {
        let l = lower(&cur, e, blob).map_err(|m| format!("edit {}: {m}", i + 1))?;
        l.apply(&mut cur)
            .map_err(|m| format!("edit {}: {m}", i + 1))?;
        low.push(l);
    }
    Ok((cur, low))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{CopyEdit, FlipEdit, TruncateEdit};
    use onav::{SnapshotMode, TiledNavMesh, WorldSpec};

    fn snap() -> Vec<u8> {
        let w = WorldSpec {
            columns: 2,
            rows: 1,
            quads: 1,
            ..WorldSpec::default()
        };
        let mut m = TiledNavMesh::new(w.params(3));
        for t in w.tiles() {
            m.add_tile(t).unwrap();
        }
        m.snapshot(SnapshotMode::Full)
    }

    fn set(field: &str, value: &str) -> PatchEdit {
        PatchEdit::Set(SetEdit {
            field: Some(field.into()),
            value: Some(value.into()),
            ..SetEdit::default()
        })
    }

    #[test]
    fn edits_by_field_path_land_where_onav_reports_them() {
        let s = snap();
        let none = |_: &str| None;
        let (b, low) = apply(&s, &[set("slot[1].generation", "0")], &none).unwrap();
        assert_eq!(low.len(), 1);
        let e = onav::NavMeshSnapshot::restore(&b, &onav::TileLibrary::new()).unwrap_err();
        assert_eq!(e.field(), "slot[1].generation");
        let LowEdit::Set { offset, .. } = &low[0] else {
            panic!()
        };
        assert_eq!(e.offset(), Some(*offset));
        // Floats: exact decimals and non-finite spellings.
        let (b, _) = apply(&s, &[set("params.origin.x", "nan")], &none).unwrap();
        let e = onav::NavMeshSnapshot::restore(&b, &onav::TileLibrary::new()).unwrap_err();
        assert_eq!(e.field(), "params.origin.x");
        assert!(apply(&s, &[set("params.origin.x", "0.10000000000000001")], &none).is_err());
        assert!(apply(&s, &[set("slot[0].kind", "256")], &none).is_err());
        assert!(apply(&s, &[set("no.such", "1")], &none).is_err());
    }

    #[test]
    fn flips_copies_truncations_splices_and_lengths() {
        let s = snap();
        let none = |_: &str| None;
        let (b, _) = apply(
            &s,
            &[PatchEdit::Flip(FlipEdit {
                field: Some("slot[0].generation".into()),
                offset: None,
                bit: 9,
            })],
            &none,
        )
        .unwrap();
        assert_eq!(b[92..96], (1u32 | 1 << 9).to_le_bytes());
        let (b, _) = apply(
            &s,
            &[PatchEdit::Truncate(TruncateEdit {
                keep: None,
                drop: Some(3),
                at: None,
            })],
            &none,
        )
        .unwrap();
        assert_eq!(b.len(), s.len() - 3);
        let (b, _) = apply(
            &s,
            &[PatchEdit::Copy(CopyEdit {
                from: "slot[0].generation".into(),
                to: "slot[2].generation".into(),
            })],
            &none,
        )
        .unwrap();
        assert_eq!(b, s, "slot 2 is free with generation 1 already");
        let blob = |_: &str| Some(vec![1, 2, 3]);
        let (b, low) = apply(
            &s,
            &[
                PatchEdit::Splice(SpliceEdit {
                    offset: Some(s.len() as u64),
                    blob: Some("x".into()),
                    length_prefix: true,
                    ..SpliceEdit::default()
                }),
                PatchEdit::FitLength("section[0].length".into()),
            ],
            &blob,
        )
        .unwrap();
        assert_eq!(b.len(), s.len() + 7);
        assert_eq!(&b[s.len()..], &[3, 0, 0, 0, 1, 2, 3]);
        assert_eq!(
            u32::from_le_bytes(b[84..88].try_into().unwrap()) as usize,
            b.len() - 88
        );
        // Lowered edits replay to the same bytes.
        let mut again = s.clone();
        for l in &low {
            l.apply(&mut again).unwrap();
        }
        assert_eq!(again, b);
    }
}
