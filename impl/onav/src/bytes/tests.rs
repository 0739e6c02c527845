//! Tests of the byte reader and writer on their own. Expected offsets, counts and errors are
//! worked out by hand from the bytes written in each test.

use super::{Reader, Writer};
use crate::error::{FormatError, FormatReason as R};

fn err(offset: u64, field: &str, reason: R) -> FormatError {
    FormatError::new(offset, field, reason)
}

#[test]
fn offsets_are_absolute_from_the_base() {
    let data = [1u8, 0, 2, 0, 0, 0, 0xff];
    let mut r = Reader::new(&data, 1000);
    assert_eq!((r.offset(), r.position(), r.remaining()), (1000, 0, 7));
    assert_eq!(r.u16("a").unwrap(), 1);
    assert_eq!(r.u32("b").unwrap(), 2);
    assert_eq!((r.offset(), r.position(), r.remaining()), (1006, 6, 1));
    // A u32 at 1006 with one byte left: truncated, at the field's own offset.
    assert_eq!(
        r.u32("c").unwrap_err(),
        err(
            1006,
            "c",
            R::Truncated {
                needed: 4,
                available: 1
            }
        )
    );
    // The failed read consumed nothing.
    assert_eq!(r.u8("d").unwrap(), 0xff);
    r.finish("end").unwrap();
}

#[test]
fn values_are_little_endian() {
    let data = [
        0x78, 0x56, 0x34, 0x12, // u32 0x1234_5678
        0xfe, 0xff, 0xff, 0xff, // i32 −2
        0, 0, 0, 0, 0, 0, 0xf0, 0x3f, // f64 1.0
    ];
    let mut r = Reader::new(&data, 0);
    assert_eq!(r.u32("u").unwrap(), 0x1234_5678);
    assert_eq!(r.i32("i").unwrap(), -2);
    assert_eq!(r.f64("f").unwrap(), 1.0);
    let mut w = Writer::default();
    w.u32(0x1234_5678);
    w.i32(-2);
    w.f64(1.0);
    assert_eq!(w.into_inner(), data);
}

#[test]
fn non_finite_floats_are_rejected_at_their_first_byte() {
    for v in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let mut data = vec![9u8];
        data.extend_from_slice(&v.to_le_bytes());
        let mut r = Reader::new(&data, 50);
        r.u8("pad").unwrap();
        assert_eq!(r.f64("x").unwrap_err(), err(51, "x", R::NotFinite));
    }
    // −0.0 is finite and keeps its sign bit.
    let data = (-0.0f64).to_le_bytes();
    let v = Reader::new(&data, 0).f64("x").unwrap();
    assert_eq!(v.to_bits(), (-0.0f64).to_bits());
    // Seven bytes: truncated, not "not finite".
    assert_eq!(
        Reader::new(&data[..7], 3).f64("x").unwrap_err(),
        err(
            3,
            "x",
            R::Truncated {
                needed: 8,
                available: 7
            }
        )
    );
}

#[test]
fn reserved_fields_must_be_zero() {
    let data = [0u8, 0, 0, 0, 0, 0, 1];
    let mut r = Reader::new(&data, 10);
    r.reserved_u8("a").unwrap();
    r.reserved_u16("b").unwrap();
    // The u32 at 13 is 00 00 00 01 (last byte set): reported at 13, where the field starts.
    assert_eq!(
        r.reserved_u32("c").unwrap_err(),
        err(13, "c", R::NonZeroReserved)
    );
    assert_eq!(
        Reader::new(&[0], 0).reserved_u16("d").unwrap_err(),
        err(
            0,
            "d",
            R::Truncated {
                needed: 2,
                available: 1
            }
        )
    );
}

#[test]
fn count_is_bounded_by_its_cap_and_by_the_bytes_that_remain() {
    // A count of 3, then 10 bytes: elements of 4 bytes allow 2, of 3 bytes allow 3.
    let mut data = 3u32.to_le_bytes().to_vec();
    data.extend_from_slice(&[0; 10]);
    assert_eq!(
        Reader::new(&data, 100).count("n", 100, 4).unwrap_err(),
        err(100, "n", R::CountTooLarge { count: 3, max: 2 })
    );
    assert_eq!(Reader::new(&data, 100).count("n", 100, 3).unwrap(), 3);
    // The cap is the smaller limit here: reported with max 2.
    assert_eq!(
        Reader::new(&data, 0).count("n", 2, 1).unwrap_err(),
        err(0, "n", R::CountTooLarge { count: 3, max: 2 })
    );
    // Exactly at both limits is accepted.
    assert_eq!(Reader::new(&data, 0).count("n", 3, 3).unwrap(), 3);
}

#[test]
fn count_with_elements_of_no_size_is_bounded_by_its_cap_only() {
    // u32::MAX elements of size 0 with no byte behind them: the bytes give no bound.
    let data = u32::MAX.to_le_bytes();
    assert_eq!(
        Reader::new(&data, 0).count("n", u32::MAX, 0).unwrap(),
        u32::MAX
    );
    assert_eq!(
        Reader::new(&data, 7).count("n", 5, 0).unwrap_err(),
        err(
            7,
            "n",
            R::CountTooLarge {
                count: u64::from(u32::MAX),
                max: 5
            }
        )
    );
    assert_eq!(
        Reader::new(&data[..3], 7).count("n", 5, 0).unwrap_err(),
        err(
            7,
            "n",
            R::Truncated {
                needed: 4,
                available: 3
            }
        )
    );
}

#[test]
fn length_prefixed_takes_exactly_its_bytes() {
    let mut w = Writer::default();
    w.u8(0xaa);
    w.length_prefixed(|w| w.bytes(&[1, 2, 3]));
    w.length_prefixed(|_| {});
    let data = w.into_inner();
    assert_eq!(data, [0xaa, 3, 0, 0, 0, 1, 2, 3, 0, 0, 0, 0]);
    let mut r = Reader::new(&data, 20);
    r.u8("pad").unwrap();
    // The first body starts at 20 + 1 + 4.
    assert_eq!(r.length_prefixed("a").unwrap(), (25, &[1u8, 2, 3][..]));
    // An empty body at the very end of the input: its offset is the end.
    assert_eq!(r.length_prefixed("b").unwrap(), (32, &[][..]));
    r.finish("end").unwrap();
}

#[test]
fn length_prefixed_past_the_end_is_reported_at_the_length() {
    // Length 4 with 3 bytes behind it: the length field (at 5) is the error.
    let data = [0u8, 4, 0, 0, 0, 1, 2, 3];
    let mut r = Reader::new(&data, 4);
    r.u8("pad").unwrap();
    assert_eq!(
        r.length_prefixed("len").unwrap_err(),
        err(
            5,
            "len",
            R::Truncated {
                needed: 4,
                available: 3
            }
        )
    );
    // At the end of the input the length itself is missing.
    let mut r = Reader::new(&data[..3], 4);
    r.u8("pad").unwrap();
    assert_eq!(
        r.length_prefixed("len").unwrap_err(),
        err(
            5,
            "len",
            R::Truncated {
                needed: 4,
                available: 2
            }
        )
    );
}

#[test]
fn headers_round_trip_and_name_their_fields() {
    let mut w = Writer::default();
    w.header(*b"ONXX", 7);
    let data = w.into_inner();
    assert_eq!(data, [b'O', b'N', b'X', b'X', 7, 0, 0, 0]);
    Reader::new(&data, 0).header(*b"ONXX", 7).unwrap();
    assert_eq!(
        Reader::new(&data, 0).header(*b"ONYY", 7).unwrap_err(),
        err(0, "magic", R::BadMagic)
    );
    assert_eq!(
        Reader::new(&data, 0).header(*b"ONXX", 2).unwrap_err(),
        err(4, "version", R::BadVersion { found: 7 })
    );
    let mut flagged = data.clone();
    flagged[7] = 1;
    assert_eq!(
        Reader::new(&flagged, 0).header(*b"ONXX", 7).unwrap_err(),
        err(6, "flags", R::NonZeroReserved)
    );
    assert_eq!(
        Reader::new(&data[..5], 0).header(*b"ONXX", 7).unwrap_err(),
        err(
            4,
            "version",
            R::Truncated {
                needed: 2,
                available: 1
            }
        )
    );
}

#[test]
fn finish_counts_the_trailing_bytes() {
    let data = [1u8, 2, 3];
    let mut r = Reader::new(&data, 8);
    r.u8("a").unwrap();
    assert_eq!(
        r.finish("end").unwrap_err(),
        err(9, "end", R::TrailingBytes { count: 2 })
    );
}

#[test]
fn field_paths_are_built_only_on_error() {
    let data = [5u8];
    let mut built = 0;
    let mut r = Reader::new(&data, 0);
    r.u8(|| {
        built += 1;
        "never".to_owned()
    })
    .unwrap();
    let e = r
        .u8(|| {
            built += 1;
            format!("slot[{}].kind", 3)
        })
        .unwrap_err();
    assert_eq!(e.field, "slot[3].kind");
    assert_eq!(built, 1);
}

#[test]
fn a_run_is_cut_back_to_its_length() {
    let mut w = Writer::default();
    w.u8(9);
    w.bytes_of_run(&[1, 2, 3, 4], 2);
    w.bytes_of_run(&[5, 6, 7, 8], 4);
    assert_eq!(w.len(), 7);
    assert_eq!(w.into_inner(), [9, 1, 2, 5, 6, 7, 8]);
}
