//! Helpers for a backend that answers the testee protocol (`spec/conformance.md §6`):
//! decoding request arguments, and the one mapping from onav's errors to replies. The in-process
//! reference, the minimal protocol backend and any Rust testee share them, so every backend
//! answers a failing operation with the same `rejected` reply.
//!
//! Argument errors (bad base64, a malformed reference string, an unknown mode) are the runner's
//! fault, not the testee's: they become `error` replies, which the runner always counts as a
//! failure.

use base64::Engine as _;
use onav::{FormatError, MeshError, MeshParams, NavTile, RestoreError, SnapshotMode, TileLibrary};
use serde_json::Value;

use super::{ref_from_hex, ref_to_hex, Reply};

/// The base64 alphabet of the protocol: RFC 4648 standard alphabet, with padding.
const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

/// Encodes bytes as protocol base64.
pub fn b64(bytes: &[u8]) -> String {
    B64.encode(bytes)
}

/// Decodes the protocol base64 of argument `arg`; an `error` reply when it is not base64.
pub fn unb64(arg: &str, s: &str) -> Result<Vec<u8>, Reply> {
    B64.decode(s)
        .map_err(|e| error(format!("argument {arg} is not base64: {e}")))
}

/// An `error` reply.
pub fn error(message: impl Into<String>) -> Reply {
    Reply::Error {
        message: message.into(),
    }
}

/// Parses a `"0x…"` reference argument; an `error` reply when malformed.
pub fn reference(arg: &str, s: &str) -> Result<u64, Reply> {
    ref_from_hex(s).ok_or_else(|| {
        error(format!(
            "argument {arg} is not \"0x\" and 1 to 16 hex digits: {s:?}"
        ))
    })
}

/// The JSON value of a reference.
pub fn reference_value(v: u64) -> Value {
    Value::String(ref_to_hex(v))
}

/// Parses the `mode` argument of `snapshot`.
pub fn mode(s: &str) -> Result<SnapshotMode, Reply> {
    match s {
        "full" => Ok(SnapshotMode::Full),
        "referenced" => Ok(SnapshotMode::Referenced),
        _ => Err(error(format!(
            "mode must be \"full\" or \"referenced\", not {s:?}"
        ))),
    }
}

/// The 68-byte parameter block (`spec/navmesh-format.md` §2) of these values, written without
/// any check: what a `new_mesh` request carries, valid or not (scenarios ask for invalid ones).
pub fn params_block(
    origin: [f64; 3],
    tile_size: f64,
    slot_count: u32,
    digest: [u8; 32],
) -> Vec<u8> {
    let mut b = Vec::with_capacity(MeshParams::LEN);
    for v in origin.iter().chain([&tile_size]) {
        b.extend_from_slice(&v.to_le_bytes());
    }
    b.extend_from_slice(&slot_count.to_le_bytes());
    b.extend_from_slice(&digest);
    b
}

/// Parses the `params` argument of `new_mesh`: the base64 of exactly 68 bytes, checked against the
/// parameter rules. A block that breaks a rule is `rejected` (class `format`, the field path
/// `params.…`, the offset the field has in a file, where the block starts at byte 8); a block of
/// another length is an `error`.
pub fn params(s: &str) -> Result<MeshParams, Reply> {
    let b = unb64("params", s)?;
    if b.len() != MeshParams::LEN {
        return Err(error(format!(
            "params must be {} bytes, got {}",
            MeshParams::LEN,
            b.len()
        )));
    }
    MeshParams::read(&mut onav::bytes::Reader::new(&b, 8)).map_err(|e| format_rejected(&e, ""))
}

/// Parses a tile argument; a bad tile is `rejected` with the tile's own field paths and offsets.
pub fn tile(arg: &str, s: &str) -> Result<NavTile, Reply> {
    let b = unb64(arg, s)?;
    NavTile::from_bytes(&b).map_err(|e| format_rejected(&e, ""))
}

/// Builds a library from tile arguments. Tile `i` that fails to parse is `rejected` (class
/// `format`) with its field path under `library[i].` and its offset within that tile.
pub fn library(tiles: &[String]) -> Result<TileLibrary, Reply> {
    let mut lib = TileLibrary::new();
    for (i, s) in tiles.iter().enumerate() {
        let b = unb64(&format!("library[{i}]"), s)?;
        let t =
            NavTile::from_bytes(&b).map_err(|e| format_rejected(&e, &format!("library[{i}]")))?;
        lib.add(&t);
    }
    Ok(lib)
}

/// A `rejected` reply of class `format`, its field path under `prefix` (empty for none).
pub fn format_rejected(e: &FormatError, prefix: &str) -> Reply {
    let field = if prefix.is_empty() {
        e.field.clone()
    } else {
        format!("{prefix}.{}", e.field)
    };
    Reply::Rejected {
        class: "format".into(),
        field,
        offset: Some(e.offset),
        message: e.to_string(),
    }
}

/// The reply to a failed restore or read: class `format` or `fingerprint`, onav's field path.
pub fn restore_rejected(e: &RestoreError) -> Reply {
    Reply::rejected(e)
}

/// The `field` value naming each kind of mesh-operation failure (class `mesh`).
pub fn mesh_error_kind(e: &MeshError) -> &'static str {
    match e {
        MeshError::Fingerprint(_) => "fingerprint",
        MeshError::ParamsMismatch => "params_mismatch",
        MeshError::PositionTaken { .. } => "position_taken",
        MeshError::NoTileAt { .. } => "no_tile_at",
        MeshError::NoFreeSlot => "no_free_slot",
        MeshError::InvalidTileRef { .. } => "invalid_tile_ref",
        MeshError::InvalidPolyRef { .. } => "invalid_poly_ref",
        MeshError::AreaOutOfRange { .. } => "area_out_of_range",
        MeshError::LinkOutOfRange { .. } => "link_out_of_range",
        MeshError::SnapshotTooLarge => "snapshot_too_large",
        MeshError::LandingBudget { .. } => "landing_budget",
        // MeshError is non_exhaustive: a kind this harness does not know yet.
        _ => "unknown",
    }
}

/// The reply to a failed mesh operation. A tile whose settings digest differs from the mesh's is
/// a fingerprint error (seed: "any mismatch … is a fingerprint error"), with onav's own field path
/// and offset: `params.settings_digest` at 40, the digest's place in the tile argument
/// (`navmesh-format.md` R7.1). Every other failure is class `mesh` with `field` naming its kind
/// ([`mesh_error_kind`]) and no offset.
pub fn mesh_rejected(e: &MeshError) -> Reply {
    match e {
        MeshError::Fingerprint(f) => Reply::Rejected {
            class: "fingerprint".into(),
            field: f.field.clone(),
            offset: f.offset,
            message: e.to_string(),
        },
        _ => Reply::Rejected {
            class: "mesh".into(),
            field: mesh_error_kind(e).into(),
            offset: None,
            message: e.to_string(),
        },
    }
}

/// A float on the wire (`spec/conformance.md` §6.3): a finite value as a JSON number, and the
/// strings `"inf"`, `"-inf"` and `"nan"` for the values JSON has no number for (a cost past the
/// binary64 range, a NaN from ∞ × 0). serde_json would write all three as `null`.
pub fn float(x: f64) -> Value {
    if x.is_finite() {
        Value::from(x)
    } else if x.is_nan() {
        Value::from("nan")
    } else if x > 0.0 {
        Value::from("inf")
    } else {
        Value::from("-inf")
    }
}

/// Floats on the wire, each as [`float`].
pub fn floats(xs: &[f64]) -> Value {
    Value::Array(xs.iter().map(|&x| float(x)).collect())
}

/// Reads a float of the wire form of [`float`]: a JSON number or one of the three strings.
pub fn float_from(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => match s.as_str() {
            "inf" => Some(f64::INFINITY),
            "-inf" => Some(f64::NEG_INFINITY),
            "nan" => Some(f64::NAN),
            _ => None,
        },
        _ => None,
    }
}

/// `rejected` / `mesh` / `invalid_poly_ref` for a reference no polygon can have (0, or a
/// generation of 0): onav cannot even represent it, but the answer is the same as for any other
/// invalid reference.
pub fn invalid_poly_ref(raw: u64) -> Reply {
    Reply::Rejected {
        class: "mesh".into(),
        field: "invalid_poly_ref".into(),
        offset: None,
        message: format!("invalid polygon reference {}", ref_to_hex(raw)),
    }
}

/// As [`invalid_poly_ref`] for tile references (also a non-zero polygon index).
pub fn invalid_tile_ref(raw: u64) -> Reply {
    Reply::Rejected {
        class: "mesh".into(),
        field: "invalid_tile_ref".into(),
        offset: None,
        message: format!("invalid tile reference {}", ref_to_hex(raw)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips_and_rejects_garbage() {
        let b = [0u8, 1, 2, 250, 255];
        assert_eq!(unb64("x", &b64(&b)).unwrap(), b);
        assert!(matches!(
            unb64("x", "not base64!"),
            Err(Reply::Error { .. })
        ));
        assert!(matches!(unb64("x", "AAE"), Err(Reply::Error { .. })));
    }

    #[test]
    fn params_rules_are_rejections_and_lengths_are_errors() {
        let w = onav::WorldSpec::default();
        let p = w.params(4);
        assert_eq!(
            params_block(w.origin, w.tile_size, 4, w.digest().0),
            p.to_bytes(),
            "the same block as onav writes"
        );
        assert!(params(&b64(&p.to_bytes())).unwrap().bits_eq(&p));
        let mut bad = p.to_bytes();
        bad[32..36].copy_from_slice(&0u32.to_le_bytes()); // slot count 0
        match params(&b64(&bad)) {
            Err(Reply::Rejected {
                class,
                field,
                offset,
                ..
            }) => {
                assert_eq!(
                    (class.as_str(), field.as_str()),
                    ("format", "params.slot_count")
                );
                assert_eq!(offset, Some(40));
            }
            r => panic!("{r:?}"),
        }
        assert!(matches!(params(&b64(&[0; 67])), Err(Reply::Error { .. })));
    }

    #[test]
    fn mesh_errors_map_to_kinds() {
        let w = onav::WorldSpec::default();
        let mut m = onav::TiledNavMesh::new(w.params(1));
        let t = w.tiles();
        m.add_tile(t[0].clone()).unwrap();
        let e = m.add_tile(t[0].clone()).unwrap_err();
        assert!(matches!(mesh_rejected(&e),
            Reply::Rejected { class, field, .. } if class == "mesh" && field == "position_taken"));
        let e = m.add_tile(t[1].clone()).unwrap_err();
        assert!(matches!(mesh_rejected(&e),
            Reply::Rejected { class, field, .. } if class == "mesh" && field == "no_free_slot"));
        let other = onav::WorldSpec {
            seed: 2,
            agent: onav::AgentSizes {
                height: 3.0,
                ..w.agent
            },
            ..w.clone()
        };
        let e = m.replace_tile(other.tiles()[0].clone()).unwrap_err();
        assert!(matches!(mesh_rejected(&e),
            Reply::Rejected { class, field, offset, .. }
                if class == "fingerprint" && field == "params.settings_digest" && offset == Some(40)));
        // The tile's digest really is at offset 40.
        let d = crate::files::decode::decode(&other.tiles()[0].to_bytes());
        assert_eq!(
            d.field("params.settings_digest").unwrap().offset,
            40 // header 8, origin 24, tile size 8 (`navmesh-format.md` §3.1)
        );
    }

    #[test]
    fn non_finite_floats_have_a_wire_form_and_read_back() {
        for (x, w) in [
            (f64::INFINITY, "\"inf\""),
            (f64::NEG_INFINITY, "\"-inf\""),
            (f64::NAN, "\"nan\""),
            (-0.0, "-0.0"),
            (0.30000000000000004, "0.30000000000000004"),
        ] {
            let v = float(x);
            assert_eq!(v.to_string(), w);
            let back = float_from(&v).unwrap();
            assert!(back.to_bits() == x.to_bits() || (x.is_nan() && back.is_nan()));
        }
        assert_eq!(float_from(&Value::from("Infinity")), None);
        assert_eq!(float_from(&Value::Null), None);
    }
}
