//! Patch edits: located by field path where onav reports the field, lowered to byte edits that
//! replay to the same bytes, and capped before they grow.

use super::*;
use crate::scenario::{CopyEdit, FlipEdit, TruncateEdit};
use onav::{SnapshotMode, WorldSpec};

fn snap() -> Vec<u8> {
    let w = WorldSpec {
        columns: 2,
        rows: 1,
        quads: 1,
        ..WorldSpec::default()
    };
    crate::files::mesh_of(&w, 3).snapshot(SnapshotMode::Full)
}

fn apply(
    bytes: &[u8],
    edits: &[PatchEdit],
    blob: &dyn Fn(&str) -> Option<Vec<u8>>,
) -> Result<(Vec<u8>, Vec<LowEdit>), PatchError> {
    super::apply(bytes, edits, blob, usize::MAX)
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
    let edit = |index, reason| PatchError::Edit {
        index,
        reason: Box::new(reason),
    };
    assert!(matches!(
        apply(&s, &[set("params.origin.x", "0.10000000000000001")], &none),
        Err(PatchError::Edit { index: 1, reason }) if matches!(*reason, PatchError::Number(NumberError::NotShortest { .. }))
    ));
    assert_eq!(
        apply(&s, &[set("slot[0].kind", "256")], &none),
        Err(edit(
            1,
            PatchError::DoesNotFit {
                text: "256".into(),
                size: 1,
                path: "slot[0].kind".into()
            }
        ))
    );
    assert_eq!(
        apply(&s, &[set("no.such", "1")], &none),
        Err(edit(
            1,
            PatchError::NoField {
                path: "no.such".into(),
                length: s.len(),
                stopped: None
            }
        ))
    );
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
        l.apply(&mut again, usize::MAX).unwrap();
    }
    assert_eq!(again, b);
}

/// A patch that would grow past its cap fails before it grows: splicing bytes into
/// themselves cannot double without end.
#[test]
fn growth_is_capped_before_it_happens() {
    let s = snap();
    let blob = |_: &str| Some(s.clone());
    let splice = PatchEdit::Splice(SpliceEdit {
        offset: Some(0),
        blob: Some("x".into()),
        ..SpliceEdit::default()
    });
    let max = 3 * s.len();
    let (b, _) = super::apply(&s, &[splice.clone(), splice.clone()], &blob, max).unwrap();
    assert_eq!(b.len(), max);
    assert_eq!(
        super::apply(&s, &[splice.clone(), splice.clone(), splice], &blob, max),
        Err(PatchError::Edit {
            index: 3,
            reason: Box::new(PatchError::TooLarge {
                length: 4 * s.len(),
                max
            })
        })
    );
    let append = PatchEdit::Append("00".into());
    assert_eq!(
        super::apply(&s, &[append], &|_| None, s.len()),
        Err(PatchError::Edit {
            index: 1,
            reason: Box::new(PatchError::TooLarge {
                length: s.len() + 1,
                max: s.len()
            })
        })
    );
}
