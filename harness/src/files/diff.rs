//! `onav diff A B`: the first structural difference between two files — a field path (slot,
//! tile, edit, field) with both values — rather than a byte offset.
//!
//! Both files are decoded ([`crate::files::decode`]) and compared field by field, in order, by path and
//! value (floats bitwise). Lengths that only follow from contents (`section[i].length`,
//! `slot[i].tile_length`, `tile[i].length`) are compared last: a differing length is reported
//! only when no content field differs, and is otherwise mentioned beside the content difference
//! that causes it. A path present in only one file (one ends, or its decode stops early) is a
//! difference too, and so are trailing bytes.

use crate::files::decode::{decode, Decoded, Field, FileKind, Value};
use crate::files::inspect::{describe, kind_name};

/// True for fields whose value follows from the contents after them.
fn is_length(path: &str) -> bool {
    path.ends_with(".length") || path.ends_with(".tile_length")
}

/// Bitwise equality of values (so 0.0 and -0.0 differ and a NaN equals itself).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::F(x), Value::F(y)) => x.to_bits() == y.to_bits(),
        _ => a == b,
    }
}

fn show(f: &Field) -> String {
    format!("{} at byte {}", describe(f, None), f.offset)
}

fn stop_note(d: &Decoded) -> String {
    match &d.stopped {
        Some((o, n)) => format!("decode stopped at byte {o}: {n}"),
        None => "ends there".into(),
    }
}

/// A length field that differs only because the contents after it do: A's and B's.
pub type LengthPair = Option<(Field, Field)>;

/// The first structural difference between two files.
#[derive(Debug, Clone, PartialEq)]
pub enum Difference {
    /// The same bytes.
    Identical,
    /// Files of two kinds (one at least not an onav file).
    Kinds {
        /// A's kind.
        a: FileKind,
        /// B's kind.
        b: FileKind,
    },
    /// Two files that are not onav files, differing at this byte.
    Bytes {
        /// The first differing byte (or the shorter length).
        at: usize,
    },
    /// A field with different values.
    Value {
        /// A's field.
        a: Field,
        /// B's field.
        b: Field,
        /// A differing length before it.
        length: LengthPair,
    },
    /// Different fields at the same place in the two decodes.
    Structure {
        /// Which field, from 0.
        index: usize,
        /// A's field.
        a: Field,
        /// B's field.
        b: Field,
        /// A differing length before it.
        length: LengthPair,
    },
    /// A field only A has; where B's decode ended.
    OnlyInA {
        /// A's field.
        a: Field,
        /// How B's decode ended.
        b_end: String,
        /// A differing length before it.
        length: LengthPair,
    },
    /// A field only B has; where A's decode ended.
    OnlyInB {
        /// How A's decode ended.
        a_end: String,
        /// B's field.
        b: Field,
        /// A differing length before it.
        length: LengthPair,
    },
    /// Only a length differs.
    Length {
        /// A's field.
        a: Field,
        /// B's field.
        b: Field,
    },
    /// Every field agrees; the decodes end differently.
    AfterLastField {
        /// How A's decode ended.
        a_end: String,
        /// How B's decode ended.
        b_end: String,
    },
    /// Every field agrees and the decodes end alike; the bytes beyond them differ.
    Undecoded {
        /// The first differing byte.
        at: usize,
        /// How the decodes ended.
        end: String,
    },
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let also = |f: &mut std::fmt::Formatter<'_>, length: &LengthPair| match length {
            Some((x, y)) => writeln!(
                f,
                "  (so {} differs too: A {}, B {})",
                x.path, x.value, y.value
            ),
            None => Ok(()),
        };
        match self {
            Difference::Identical => writeln!(f, "identical"),
            Difference::Kinds { a, b } => writeln!(
                f,
                "different kinds of file: A is {}, B is {}",
                kind_name(*a),
                kind_name(*b)
            ),
            Difference::Bytes { at } => writeln!(
                f,
                "neither file is an onav file; their bytes differ first at byte {at}"
            ),
            Difference::Value { a, b, length } => {
                writeln!(f, "first difference: {}", a.path)?;
                writeln!(f, "  A: {}", show(a))?;
                writeln!(f, "  B: {}", show(b))?;
                also(f, length)
            }
            Difference::Structure {
                index,
                a,
                b,
                length,
            } => {
                writeln!(f, "first difference: the structure, at field {index}")?;
                writeln!(f, "  A: {} = {}", a.path, show(a))?;
                writeln!(f, "  B: {} = {}", b.path, show(b))?;
                also(f, length)
            }
            Difference::OnlyInA { a, b_end, length } => {
                writeln!(f, "first difference: {} is only in A", a.path)?;
                writeln!(f, "  A: {}", show(a))?;
                writeln!(f, "  B: {b_end}")?;
                also(f, length)
            }
            Difference::OnlyInB { a_end, b, length } => {
                writeln!(f, "first difference: {} is only in B", b.path)?;
                writeln!(f, "  A: {a_end}")?;
                writeln!(f, "  B: {}", show(b))?;
                also(f, length)
            }
            Difference::Length { a, b } => {
                writeln!(f, "first difference: {}", a.path)?;
                writeln!(f, "  A: {}", show(a))?;
                writeln!(f, "  B: {}", show(b))
            }
            Difference::AfterLastField { a_end, b_end } => writeln!(
                f,
                "first difference: after the last field\n  A: {a_end}\n  B: {b_end}"
            ),
            Difference::Undecoded { at, end } => writeln!(
                f,
                "every field is equal; the undecoded bytes differ first at byte {at} ({end})"
            ),
        }
    }
}

/// The first byte at which `a` and `b` differ (or the shorter length).
fn first_byte(a: &[u8], b: &[u8]) -> usize {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()))
}

/// The first structural difference between `a` and `b`.
pub fn diff(a: &[u8], b: &[u8]) -> Difference {
    let (da, db) = (decode(a), decode(b));
    if da.kind == FileKind::Unknown || db.kind == FileKind::Unknown {
        if a == b {
            return Difference::Identical;
        }
        if da.kind != db.kind {
            return Difference::Kinds {
                a: da.kind,
                b: db.kind,
            };
        }
        return Difference::Bytes {
            at: first_byte(a, b),
        };
    }
    let mut length: LengthPair = None;
    let n = da.fields.len().max(db.fields.len());
    for i in 0..n {
        let (x, y) = (da.fields.get(i).cloned(), db.fields.get(i).cloned());
        return match (x, y) {
            (Some(x), Some(y)) if x.path == y.path => {
                if same(&x.value, &y.value) {
                    continue;
                }
                if is_length(&x.path) {
                    length = length.or(Some((x, y)));
                    continue;
                }
                Difference::Value { a: x, b: y, length }
            }
            (Some(x), Some(y)) => Difference::Structure {
                index: i,
                a: x,
                b: y,
                length,
            },
            (Some(x), None) => Difference::OnlyInA {
                a: x,
                b_end: stop_note(&db),
                length,
            },
            (None, Some(y)) => Difference::OnlyInB {
                a_end: stop_note(&da),
                b: y,
                length,
            },
            (None, None) => continue,
        };
    }
    if let Some((x, y)) = length {
        return Difference::Length { a: x, b: y };
    }
    // Every field agrees: compare where and why the decodes stopped, then the rest of the bytes.
    match (&da.stopped, &db.stopped) {
        (None, None) if a == b => Difference::Identical,
        (sa, sb) if sa != sb => Difference::AfterLastField {
            a_end: stop_note(&da),
            b_end: stop_note(&db),
        },
        _ => Difference::Undecoded {
            at: first_byte(a, b),
            end: stop_note(&da),
        },
    }
}

/// The first structural difference between two byte strings, for messages.
pub fn first_difference(a: &[u8], b: &[u8]) -> String {
    let Some(at) = a
        .iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .or((a.len() != b.len()).then(|| a.len().min(b.len())))
    else {
        return "identical".into();
    };
    let (da, db) = (decode(a), decode(b));
    let fa = da
        .fields
        .iter()
        .find(|f| f.offset <= at as u64 && (at as u64) < f.offset + f.size);
    let fb = db
        .fields
        .iter()
        .find(|f| f.offset <= at as u64 && (at as u64) < f.offset + f.size);
    match (fa, fb) {
        (Some(x), Some(y)) if x.path == y.path => {
            format!(
                "first difference at byte {at}, {}: {} vs {}",
                x.path, x.value, y.value
            )
        }
        (Some(x), _) => format!("first difference at byte {at}, in {} ({})", x.path, x.value),
        (None, Some(y)) => format!("first difference at byte {at}, in {} ({})", y.path, y.value),
        (None, None) => format!(
            "first difference at byte {at} (lengths {} and {})",
            a.len(),
            b.len()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use onav::{PolyIndex, SnapshotMode, TiledNavMesh, WorldSpec};

    fn world() -> WorldSpec {
        WorldSpec {
            columns: 2,
            rows: 1,
            quads: 1,
            links_per_tile: 1,
            area_kinds: 4,
            ..WorldSpec::default()
        }
    }

    fn mesh() -> TiledNavMesh {
        let w = world();
        crate::files::mesh_of(&w, 3)
    }

    fn full(m: &TiledNavMesh) -> Vec<u8> {
        m.snapshot(SnapshotMode::Full)
    }

    fn diff_text(a: &[u8], b: &[u8]) -> String {
        diff(a, b).to_string()
    }

    fn first_line(s: &str) -> &str {
        s.lines().next().unwrap()
    }

    #[test]
    fn identical_files() {
        let s = full(&mesh());
        assert_eq!(diff(&s, &s), Difference::Identical);
        assert_eq!(diff(b"xyz", b"xyz"), Difference::Identical);
    }

    #[test]
    fn an_edit() {
        let a = mesh();
        let (r, t) = a.tiles().nth(1).unwrap();
        let p = r.poly(PolyIndex(0));
        let area = t.area(PolyIndex(0)).unwrap();
        let mut b = a.clone();
        b.set_poly_area(p, (area + 1) % 64).unwrap();
        let mut c = a.clone();
        c.set_poly_area(p, (area + 2) % 64).unwrap();
        // One edit more: the count differs (the section length follows from it).
        let out = diff_text(&full(&a), &full(&b));
        assert_eq!(
            first_line(&out),
            "first difference: slot[1].edit_count",
            "{out}"
        );
        assert!(out.contains("  A: 0 at byte "));
        assert!(out.contains("  B: 1 at byte "));
        assert!(out.contains("(so section[0].length differs too"), "{out}");
        // The same edit with another value: the area itself.
        let out = diff_text(&full(&b), &full(&c));
        assert_eq!(
            first_line(&out),
            "first difference: slot[1].edit[0].area",
            "{out}"
        );
    }

    #[test]
    fn a_generation() {
        let a = mesh();
        let mut b = a.clone();
        let (r, t) = b.tiles().next().map(|(r, t)| (r, t.clone())).unwrap();
        b.remove_tile(r).unwrap();
        b.add_tile(t).unwrap();
        let out = diff_text(&full(&a), &full(&b));
        assert_eq!(
            first_line(&out),
            "first difference: slot[0].generation",
            "{out}"
        );
        assert!(out.contains("  A: 1 at byte 92"), "{out}");
        assert!(out.contains("  B: 2 at byte 92"), "{out}");
    }

    #[test]
    fn a_slot_kind() {
        let a = mesh();
        let out = diff_text(&full(&a), &a.snapshot(SnapshotMode::Referenced));
        assert_eq!(first_line(&out), "first difference: slot[0].kind", "{out}");
        assert!(out.contains("A: 1 (inline tile)"), "{out}");
        assert!(out.contains("B: 2 (referenced tile)"), "{out}");
        assert!(out.contains("so section[0].length differs too"), "{out}");
    }

    #[test]
    fn lengths() {
        let a = full(&mesh());
        // B is cut short: its section body no longer fits.
        let out = diff_text(&a, &a[..a.len() - 10]);
        assert_eq!(
            first_line(&out),
            "first difference: slots.slot_count is only in A",
            "{out}"
        );
        assert!(
            out.contains("B: decode stopped at byte 84: section[0].length = "),
            "{out}"
        );
        // B has a trailing byte.
        let mut b = a.clone();
        b.push(7);
        let out = diff_text(&a, &b);
        assert_eq!(
            first_line(&out),
            "first difference: after the last field",
            "{out}"
        );
        assert!(out.contains("B: decode stopped at byte"), "{out}");
        assert!(out.contains("1 trailing bytes"), "{out}");
        // Another slot count.
        let w = world();
        let mut m = TiledNavMesh::new(w.params(4));
        for t in w.tiles() {
            m.add_tile(t).unwrap();
        }
        let out = diff_text(&a, &full(&m));
        assert_eq!(
            first_line(&out),
            "first difference: params.slot_count",
            "{out}"
        );
    }

    #[test]
    fn kinds_of_file() {
        let m = mesh();
        let out = diff_text(&full(&m), &onav::write_mesh(&m));
        assert_eq!(first_line(&out), "first difference: magic", "{out}");
        let out = diff_text(&full(&m), b"garbage");
        assert!(out.starts_with("different kinds of file"), "{out}");
        let out = diff_text(b"garbage", b"garbagE");
        assert!(out.contains("byte 6"), "{out}");
    }

    #[test]
    fn first_difference_names_the_field() {
        let w = WorldSpec {
            columns: 1,
            rows: 1,
            ..WorldSpec::default()
        };
        let mut m = onav::TiledNavMesh::new(w.params(2));
        let a = m.snapshot(onav::SnapshotMode::Full);
        m.add_tile(w.tiles().remove(0)).unwrap();
        let b = m.snapshot(onav::SnapshotMode::Full);
        assert!(first_difference(&a, &b).contains("section[0].length"));
        assert_eq!(first_difference(&a, &a), "identical");
    }
}
