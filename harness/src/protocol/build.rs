//! The `build` op (`spec/conformance.md` §6.6): OBJ bytes and the canonical settings encoding
//! (`spec/build3d.md` §2.2, §3.2) to the built tiles and their mesh parameters, or a rejection.
//! One mapping from the builder's errors to replies, for the reference and any Rust testee:
//!
//! - settings (read first): class `format`, field `settings.` + the encoding's field path,
//!   offset within the encoding;
//! - OBJ: class `format`, field `obj.line[N].REASON` (N the 1-based line of B4, REASON below),
//!   offset the byte offset where line N starts;
//! - the build: class `build`, field `[cell[C,R].][layer[L].]KIND` (the tile cell and layer the
//!   error names, then the limit or failure, below), no offset.

use onav_build3d::{
    build_obj, BuildError, BuildObjError, BuiltMesh, LimitKind, ObjError, ObjReason,
};
use serde_json::{json, Value};

use super::wire;
use super::Reply;

/// The `REASON` of an OBJ error's field (`spec/build3d.md` B4).
pub fn obj_reason(r: &ObjReason) -> &'static str {
    match r {
        ObjReason::BadNumber { .. } => "bad_number",
        ObjReason::NotFinite => "not_finite",
        ObjReason::TooManyCoordinates => "too_many_coordinates",
        ObjReason::MissingCoordinate => "missing_coordinate",
        ObjReason::TooManyVertices => "too_many_vertices",
        ObjReason::BadIndex { .. } => "bad_index",
        ObjReason::IndexZero => "index_zero",
        ObjReason::IndexOutOfRange { .. } => "index_out_of_range",
        ObjReason::FaceTooShort => "face_too_short",
        ObjReason::TooManyTriangles => "too_many_triangles",
    }
}

/// The `KIND` of a limit (`spec/build3d.md` §16; `spec/conformance.md` §6.6, `build`): the
/// limit's name in snake case, `SpanHeight` → `span_height`. Taken from the variant's name so
/// that a limit the builder adds gets its field without a second list to keep.
pub fn limit_kind(k: LimitKind) -> String {
    let name = format!("{k:?}");
    let mut out = String::with_capacity(name.len() + 4);
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The field of a build error: where (tile cell, layer) and what.
pub fn build_field(e: &BuildError) -> String {
    let at = |cell: Option<onav_build3d::TileCell>, layer: Option<u32>| {
        let mut s = String::new();
        if let Some(c) = cell {
            s.push_str(&format!("cell[{},{}].", c.column, c.row));
        }
        if let Some(l) = layer {
            s.push_str(&format!("layer[{l}]."));
        }
        s
    };
    match e {
        BuildError::Limit {
            tile, layer, limit, ..
        } => format!("{}{}", at(*tile, *layer), limit_kind(*limit)),
        BuildError::Triangulation { tile, layer, .. } => {
            format!("{}triangulation", at(Some(*tile), Some(*layer)))
        }
        BuildError::HoleMerge { tile, .. } => format!("{}hole_merge", at(Some(*tile), None)),
        BuildError::TileRejected { tile, layer, .. } => {
            format!("{}tile_rejected", at(Some(*tile), Some(*layer)))
        }
        BuildError::Params(_) => "params".into(),
    }
}

/// The byte offset at which 1-based line `line` of `obj` starts (lines end at LF, B4); the
/// length of `obj` for a line past its end.
pub fn line_offset(obj: &[u8], line: u64) -> u64 {
    if line <= 1 {
        return 0;
    }
    obj.iter()
        .enumerate()
        .filter(|(_, &b)| b == b'\n')
        .nth((line - 2) as usize)
        .map_or(obj.len() as u64, |(i, _)| i as u64 + 1)
}

/// The field of an OBJ error: `obj.line[N].REASON`.
pub fn obj_field(e: &ObjError) -> String {
    format!("obj.line[{}].{}", e.line, obj_reason(&e.reason))
}

/// The reply to a failed build of `obj`.
pub fn rejected(e: &BuildObjError, obj: &[u8]) -> Reply {
    match e {
        BuildObjError::Settings(f) => wire::format_rejected(f, "settings"),
        BuildObjError::Obj(o) => Reply::Rejected {
            class: "format".into(),
            field: obj_field(o),
            offset: Some(line_offset(obj, o.line)),
            message: e.to_string(),
        },
        BuildObjError::Build(b) => Reply::Rejected {
            class: "build".into(),
            field: build_field(b),
            offset: None,
            message: e.to_string(),
        },
    }
}

/// The reply to a build: the parameter block, the tiles in build order (ascending row, column,
/// layer) and, for people and the runner's check, the builder's walkable area.
pub fn built(b: &BuiltMesh) -> Reply {
    let tiles: Vec<Value> = b
        .tiles
        .iter()
        .map(|t| json!(wire::b64(t.as_built_bytes())))
        .collect();
    Reply::ok([
        ("params", json!(wire::b64(&b.params.to_bytes()))),
        ("tiles", Value::Array(tiles)),
        ("walkable_area", json!(b.stats.walkable_area)),
    ])
}

/// Answers a `build` request: arguments that are not base64 are an `error`.
pub fn answer(obj: &str, settings: &str) -> Result<Reply, Reply> {
    let obj = wire::unb64("obj", obj)?;
    let settings = wire::unb64("settings", settings)?;
    match build_obj(&obj, &settings) {
        Ok(b) => Ok(built(&b)),
        Err(e) => Err(rejected(&e, &obj)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_map_to_their_first_byte() {
        let obj = b"v 0 0 0\r\n\nf 1 2 3";
        assert_eq!(line_offset(obj, 1), 0);
        assert_eq!(line_offset(obj, 2), 9);
        assert_eq!(line_offset(obj, 3), 10);
        assert_eq!(line_offset(obj, 4), obj.len() as u64);
    }

    #[test]
    fn limits_are_named_in_snake_case() {
        let names: Vec<String> = [
            LimitKind::SpanHeight,
            LimitKind::GridCells,
            LimitKind::Tiles,
            LimitKind::BinEntries,
            LimitKind::WindowCells,
            LimitKind::SpansPerTile,
            LimitKind::SpansPerColumn,
            LimitKind::Regions,
            LimitKind::Layers,
            LimitKind::Vertices,
            LimitKind::Polygons,
            LimitKind::DetailVerticesPerPolygon,
            LimitKind::DetailVertices,
            LimitKind::DetailTriangles,
        ]
        .into_iter()
        .map(limit_kind)
        .collect();
        assert_eq!(
            names,
            [
                "span_height",
                "grid_cells",
                "tiles",
                "bin_entries",
                "window_cells",
                "spans_per_tile",
                "spans_per_column",
                "regions",
                "layers",
                "vertices",
                "polygons",
                "detail_vertices_per_polygon",
                "detail_vertices",
                "detail_triangles",
            ]
        );
    }

    #[test]
    fn errors_map_to_fields() {
        let demo = onav_build3d::Settings::new(onav_build3d::SettingsSpec::default()).unwrap();
        let obj = b"v 0 0 0\nv 1 0 0\nf 1 2 0\n";
        match rejected(&build_obj(obj, demo.to_bytes()).unwrap_err(), obj) {
            Reply::Rejected {
                class,
                field,
                offset,
                ..
            } => {
                assert_eq!(
                    (class.as_str(), field.as_str()),
                    ("format", "obj.line[3].index_zero")
                );
                assert_eq!(offset, Some(16));
            }
            other => panic!("{other:?}"),
        }
        let mut bad = demo.to_bytes().to_vec();
        bad.truncate(20);
        match rejected(&build_obj(b"", &bad).unwrap_err(), b"") {
            Reply::Rejected { class, field, .. } => {
                assert_eq!(
                    (class.as_str(), field.as_str()),
                    ("format", "settings.cell_height")
                );
            }
            other => panic!("{other:?}"),
        }
        let e = BuildError::Limit {
            tile: Some(onav_build3d::TileCell { column: 3, row: 1 }),
            layer: Some(2),
            limit: LimitKind::DetailVerticesPerPolygon,
            value: 250,
            max: 249,
        };
        assert_eq!(
            build_field(&e),
            "cell[3,1].layer[2].detail_vertices_per_polygon"
        );
    }
}
