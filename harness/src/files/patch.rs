//! `patch` steps: byte edits located by spec field path (through the structural decoder) or by
//! offset. Every edit is also lowered to a plain byte edit (set, splice, truncate, append) with
//! absolute offsets, which is what the compiled suite carries for ports without a decoder.

use serde::Serialize;

use crate::files::decode::{decode, Field, Value};
use crate::hex::hex;
use crate::scenario::numbers::NumberError;
use crate::scenario::{parse_exact, parse_hex, parse_int, PatchEdit, SetEdit, SpliceEdit};

/// Why a patch edit cannot be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PatchError {
    /// Edit `index` (1-based) failed.
    #[error("edit {index}: {reason}")]
    Edit {
        /// Which edit, from 1.
        index: usize,
        /// Why.
        reason: Box<PatchError>,
    },
    /// Hex or a number as the scenario format does not allow.
    #[error(transparent)]
    Number(#[from] NumberError),
    /// A field path the decode of the bytes does not have.
    #[error(
        "no field {path:?} in the decode of these {length} bytes{}",
        stopped.as_ref().map(|(at, why)| format!(" (the decode stopped at byte {at}: {why})")).unwrap_or_default()
    )]
    NoField {
        /// The path.
        path: String,
        /// How many bytes were decoded.
        length: usize,
        /// Where and why the decode stopped early, if it did.
        stopped: Option<(u64, String)>,
    },
    /// `set` at an offset past the end.
    #[error("set at {offset}+{count} is past the end ({length})")]
    SetPastEnd {
        /// Offset.
        offset: u64,
        /// Bytes written.
        count: usize,
        /// Length of the bytes.
        length: usize,
    },
    /// `splice` of a range past the end.
    #[error("splice at {offset}+{remove} is past the end ({length})")]
    SplicePastEnd {
        /// Offset.
        offset: u64,
        /// Bytes removed.
        remove: u64,
        /// Length of the bytes.
        length: usize,
    },
    /// `truncate` keeping more bytes than there are.
    #[error("cannot keep {keep} of {length} bytes")]
    CannotKeep {
        /// Bytes to keep.
        keep: u64,
        /// Length of the bytes.
        length: usize,
    },
    /// `truncate` dropping more bytes than there are.
    #[error("cannot drop {drop} of {length} bytes")]
    CannotDrop {
        /// Bytes to drop.
        drop: u64,
        /// Length of the bytes.
        length: u64,
    },
    /// An integer value too large or negative for its unsigned field.
    #[error("{text} does not fit the {size}-byte field {path}")]
    DoesNotFit {
        /// The value as written.
        text: String,
        /// The field's size in bytes.
        size: u64,
        /// The field.
        path: String,
    },
    /// An integer value outside i32 for a signed field.
    #[error("{text} does not fit i32 {path}")]
    DoesNotFitI32 {
        /// The value as written.
        text: String,
        /// The field.
        path: String,
    },
    /// Hex of the wrong length for a byte field.
    #[error("{path} takes {size} bytes of hex, got {got}")]
    HexLength {
        /// The field.
        path: String,
        /// Its size.
        size: u64,
        /// Bytes given.
        got: usize,
    },
    /// Bytes named by `sha256_of` or `blob` that are not defined.
    #[error("no bytes named {name:?}")]
    NoBytes {
        /// The name.
        name: String,
    },
    /// `sha256_of` into a field that is not 32 bytes.
    #[error("sha256_of needs a 32-byte field; {path} has {size}")]
    NotADigest {
        /// The field.
        path: String,
        /// Its size.
        size: u64,
    },
    /// `add` to a field that is not an integer.
    #[error("add needs an integer field; {path} is not")]
    NotAnInteger {
        /// The field.
        path: String,
    },
    /// `splice` with `until` naming a field before the start.
    #[error("{until} comes before {before}")]
    UntilBeforeStart {
        /// The `until` field.
        until: String,
        /// The `before` field.
        before: String,
    },
    /// A length-prefixed blob above 4 GiB.
    #[error("blob too long")]
    BlobTooLong,
    /// `flip` of a bit outside its field.
    #[error("bit {bit} is outside the {size}-byte field")]
    BitOutside {
        /// The bit.
        bit: u32,
        /// The field's size.
        size: u64,
    },
    /// `flip` at an offset past the end.
    #[error("offset {offset} is past the end")]
    OffsetPastEnd {
        /// The offset.
        offset: u64,
    },
    /// `copy` between fields of different sizes.
    #[error("copy {from} ({from_size} bytes) onto {to} ({to_size} bytes)")]
    CopySizes {
        /// Source field.
        from: String,
        /// Its size.
        from_size: u64,
        /// Target field.
        to: String,
        /// Its size.
        to_size: u64,
    },
    /// `fit_length` of a field that is not a u32.
    #[error("fit_length needs a u32 length field; {path} is not")]
    NotALength {
        /// The field.
        path: String,
    },
    /// `fit_length` of more than 4 GiB.
    #[error("too long")]
    TooLong,
    /// An edit that would make the bytes longer than a scenario step may
    /// (`spec/conformance.md` §1.12, R1).
    #[error("the result would be {length} bytes, more than {max}")]
    TooLarge {
        /// The length it would have.
        length: usize,
        /// The most allowed.
        max: usize,
    },
}

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
    /// Applies the edit, refusing to make more than `max` bytes (checked before anything grows).
    pub fn apply(&self, b: &mut Vec<u8>, max: usize) -> Result<(), PatchError> {
        let grows_to = |length: usize| {
            if length > max {
                Err(PatchError::TooLarge { length, max })
            } else {
                Ok(())
            }
        };
        match self {
            LowEdit::Set { offset, hex } => {
                let v = parse_hex(hex)?;
                let range = usize::try_from(*offset)
                    .ok()
                    .and_then(|at| Some(at..at.checked_add(v.len())?))
                    .filter(|r| r.end <= b.len())
                    .ok_or(PatchError::SetPastEnd {
                        offset: *offset,
                        count: v.len(),
                        length: b.len(),
                    })?;
                b[range].copy_from_slice(&v);
            }
            LowEdit::Splice {
                offset,
                remove,
                hex,
            } => {
                let v = parse_hex(hex)?;
                let range = usize::try_from(*offset)
                    .ok()
                    .zip(usize::try_from(*remove).ok())
                    .and_then(|(at, n)| Some(at..at.checked_add(n)?))
                    .filter(|r| r.end <= b.len())
                    .ok_or(PatchError::SplicePastEnd {
                        offset: *offset,
                        remove: *remove,
                        length: b.len(),
                    })?;
                grows_to((b.len() - range.len()).saturating_add(v.len()))?;
                b.splice(range, v);
            }
            LowEdit::Truncate { keep } => {
                let n = usize::try_from(*keep)
                    .ok()
                    .filter(|&n| n <= b.len())
                    .ok_or(PatchError::CannotKeep {
                        keep: *keep,
                        length: b.len(),
                    })?;
                b.truncate(n);
            }
            LowEdit::Append(hex) => {
                let v = parse_hex(hex)?;
                grows_to(b.len().saturating_add(v.len()))?;
                b.extend(v);
            }
        }
        Ok(())
    }
}

fn find(bytes: &[u8], path: &str) -> Result<Field, PatchError> {
    let d = decode(bytes);
    d.field(path).cloned().ok_or_else(|| PatchError::NoField {
        path: path.to_owned(),
        length: bytes.len(),
        stopped: d.stopped.clone(),
    })
}

/// A float for a patch: exact decimal, `0x` + 16 hex digits of any bits, `nan`, `inf`, `-inf`.
fn patch_float(text: &str) -> Result<f64, PatchError> {
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
                .map_err(|reason| {
                    NumberError::BadBits {
                        text: s.to_owned(),
                        reason,
                    }
                    .into()
                });
        }
    }
    Ok(parse_exact(s)?)
}

/// The little-endian bytes of `text` read as a value of field `f`'s type.
pub fn encode_value(f: &Field, text: &str) -> Result<Vec<u8>, PatchError> {
    let n = f.size as usize;
    match f.value {
        Value::U(_) => {
            let v = parse_int(text)?;
            if v < 0 || (n < 16 && v >> (8 * n) != 0) {
                return Err(PatchError::DoesNotFit {
                    text: text.to_owned(),
                    size: f.size,
                    path: f.path.clone(),
                });
            }
            Ok((v as u128).to_le_bytes()[..n].to_vec())
        }
        Value::I(_) => {
            let v = parse_int(text)?;
            let v = i32::try_from(v).map_err(|_| PatchError::DoesNotFitI32 {
                text: text.to_owned(),
                path: f.path.clone(),
            })?;
            Ok(v.to_le_bytes().to_vec())
        }
        Value::F(_) => Ok(patch_float(text)?.to_le_bytes().to_vec()),
        Value::Bytes(_) => {
            let v = parse_hex(text)?;
            if v.len() != n {
                return Err(PatchError::HexLength {
                    path: f.path.clone(),
                    size: f.size,
                    got: v.len(),
                });
            }
            Ok(v)
        }
    }
}

/// True when the field holds `text` read as its type (floats compare bitwise).
pub fn field_equals(f: &Field, bytes: &[u8], text: &str) -> Result<bool, PatchError> {
    let want = encode_value(f, text)?;
    let at = f.offset as usize;
    Ok(bytes.get(at..at + f.size as usize) == Some(&want[..]))
}

fn set(
    bytes: &[u8],
    s: &SetEdit,
    blob: &dyn Fn(&str) -> Option<Vec<u8>>,
) -> Result<LowEdit, PatchError> {
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
        let src = blob(b).ok_or_else(|| PatchError::NoBytes { name: b.clone() })?;
        if f.size != 32 {
            return Err(PatchError::NotADigest {
                path: f.path.clone(),
                size: f.size,
            });
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
            _ => {
                return Err(PatchError::NotAnInteger {
                    path: f.path.clone(),
                })
            }
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
) -> Result<LowEdit, PatchError> {
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
                    return Err(PatchError::UntilBeforeStart {
                        until: u.clone(),
                        before: p.clone(),
                    });
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
        (None, Some(b)) => blob(b).ok_or_else(|| PatchError::NoBytes { name: b.clone() })?,
        (None, None) => Vec::new(),
    };
    if s.length_prefix {
        let n = u32::try_from(new.len()).map_err(|_| PatchError::BlobTooLong)?;
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
) -> Result<LowEdit, PatchError> {
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
                return Err(PatchError::BitOutside { bit: fl.bit, size });
            }
            let at = offset + u64::from(fl.bit / 8);
            let b = *usize::try_from(at)
                .ok()
                .and_then(|i| bytes.get(i))
                .ok_or(PatchError::OffsetPastEnd { offset: at })?;
            LowEdit::Set {
                offset: at,
                hex: hex(&[b ^ (1 << (fl.bit % 8))]),
            }
        }
        PatchEdit::Truncate(t) => {
            let len = bytes.len() as u64;
            let keep = match (t.keep, t.drop, &t.at) {
                (Some(k), _, _) => k,
                (None, Some(d), _) => len.checked_sub(d).ok_or(PatchError::CannotDrop {
                    drop: d,
                    length: len,
                })?,
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
                return Err(PatchError::CopySizes {
                    from: from.path,
                    from_size: from.size,
                    to: to.path,
                    to_size: to.size,
                });
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
                return Err(PatchError::NotALength { path: p.clone() });
            }
            let n = bytes.len() as u64 - (f.offset + 4);
            let n = u32::try_from(n).map_err(|_| PatchError::TooLong)?;
            LowEdit::Set {
                offset: f.offset,
                hex: hex(&n.to_le_bytes()),
            }
        }
    })
}

/// Applies edits in order, never making more than `max` bytes; returns the new bytes and the
/// lowered edits.
pub fn apply(
    bytes: &[u8],
    edits: &[PatchEdit],
    blob: &dyn Fn(&str) -> Option<Vec<u8>>,
    max: usize,
) -> Result<(Vec<u8>, Vec<LowEdit>), PatchError> {
    let mut cur = bytes.to_vec();
    let mut low = Vec::with_capacity(edits.len());
    for (i, e) in edits.iter().enumerate() {
        let at = |reason| PatchError::Edit {
            index: i + 1,
            reason: Box::new(reason),
        };
        let l = lower(&cur, e, blob).map_err(at)?;
        l.apply(&mut cur, max).map_err(at)?;
        low.push(l);
    }
    Ok((cur, low))
}

#[cfg(test)]
#[path = "patch_tests.rs"]
mod tests;
