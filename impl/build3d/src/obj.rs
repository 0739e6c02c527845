//! The OBJ reader (`spec/build3d.md` §2.2): `v` and `f` statements; everything else is skipped.
//!
//! - `v x y z [w | r g b [a]]`: 3 to 7 numbers, the first three are the vertex. Numbers are read
//!   with Rust's correctly rounded decimal parser, so the coordinate is the binary64 nearest to
//!   the text; a value that is not finite (including one too large for binary64) is an error.
//! - `f c1 c2 c3 …`: 3 or more corners; a corner is `v`, `v/vt`, `v//vn` or `v/vt/vn`, and only
//!   `v` is used: 1-based, or negative for "counted back from the last vertex defined so far". A
//!   corner must name a vertex defined earlier in the file. A polygon is cut into the fan
//!   (c1, ck, ck+1), k = 2 … n − 1.
//! - Lines end at LF; a CR before it is dropped. Tokens are separated by spaces and tabs. Every
//!   triangle gets area [`crate::geometry::WALKABLE_AREA`].
//!
//! Any malformed line is an [`ObjError`] with its 1-based line number; nothing panics.
//!
//! Limits: L1 (triangles), L2 (vertices).

use crate::error::{ObjError, ObjReason};
use crate::geometry::{Geometry, Triangle, WALKABLE_AREA};
use crate::limits::{MAX_OBJ_VERTICES, MAX_TRIANGLES};

fn lossy(token: &[u8]) -> String {
    String::from_utf8_lossy(&token[..token.len().min(32)]).into_owned()
}

fn number(token: &[u8]) -> Result<f64, ObjReason> {
    std::str::from_utf8(token)
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .ok_or_else(|| ObjReason::BadNumber {
            token: lossy(token),
        })
}

fn integer(token: &[u8]) -> Option<i64> {
    std::str::from_utf8(token).ok()?.parse::<i64>().ok()
}

/// The vertex index named by a face corner token, given the vertices defined so far.
fn corner(token: &[u8], defined: u64) -> Result<u32, ObjReason> {
    let mut parts = token.split(|&b| b == b'/');
    let bad = || ObjReason::BadIndex {
        token: lossy(token),
    };
    let v = parts.next().and_then(integer).ok_or_else(bad)?;
    // `v/vt`, `v//vn`, `v/vt/vn`: the other parts are empty or integers, at most two of them.
    let mut extra = 0;
    for p in parts {
        extra += 1;
        if extra > 2 || !(p.is_empty() || integer(p).is_some()) {
            return Err(bad());
        }
    }
    let resolved = match v {
        0 => return Err(ObjReason::IndexZero),
        v if v > 0 => v.unsigned_abs() - 1,
        v => match defined.checked_sub(v.unsigned_abs()) {
            Some(i) => i,
            None => {
                return Err(ObjReason::IndexOutOfRange {
                    index: v,
                    vertices: defined,
                })
            }
        },
    };
    if resolved >= defined {
        return Err(ObjReason::IndexOutOfRange {
            index: v,
            vertices: defined,
        });
    }
    Ok(resolved as u32)
}

impl Geometry {
    /// Reads OBJ bytes (`spec/build3d.md` §2.2).
    pub fn from_obj(bytes: &[u8]) -> Result<Self, ObjError> {
        parse(bytes, MAX_OBJ_VERTICES, MAX_TRIANGLES)
    }
}

/// Reads OBJ bytes into geometry.
pub(crate) fn parse(
    bytes: &[u8],
    max_vertices: u64,
    max_triangles: u64,
) -> Result<Geometry, ObjError> {
    let mut verts: Vec<[f64; 3]> = Vec::new();
    let mut tris: Vec<Triangle> = Vec::new();
    let mut corners: Vec<u32> = Vec::new();
    for (n, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let line = n as u64 + 1;
        let err = |reason| ObjError { line, reason };
        let text = raw.strip_suffix(b"\r").unwrap_or(raw);
        let mut tokens = text
            .split(|&b| b == b' ' || b == b'\t')
            .filter(|t| !t.is_empty());
        match tokens.next() {
            Some(b"v") => {
                let mut p = [0.0; 3];
                let mut count = 0;
                for t in tokens {
                    let x = number(t).map_err(err)?;
                    if count < 3 {
                        if !x.is_finite() {
                            return Err(err(ObjReason::NotFinite));
                        }
                        p[count] = x;
                    }
                    count += 1;
                    if count > 7 {
                        return Err(err(ObjReason::TooManyCoordinates));
                    }
                }
                if count < 3 {
                    return Err(err(ObjReason::MissingCoordinate));
                }
                if verts.len() as u64 >= max_vertices {
                    return Err(err(ObjReason::TooManyVertices));
                }
                verts.push(p);
            }
            Some(b"f") => {
                corners.clear();
                for t in tokens {
                    corners.push(corner(t, verts.len() as u64).map_err(err)?);
                }
                if corners.len() < 3 {
                    return Err(err(ObjReason::FaceTooShort));
                }
                if (tris.len() + corners.len() - 2) as u64 > max_triangles {
                    return Err(err(ObjReason::TooManyTriangles));
                }
                let a = verts[corners[0] as usize];
                for k in 1..corners.len() - 1 {
                    let b = verts[corners[k] as usize];
                    let c = verts[corners[k + 1] as usize];
                    tris.push(Triangle::canonical([a, b, c], WALKABLE_AREA));
                }
            }
            _ => {}
        }
    }
    Ok(Geometry::from_canonical(tris))
}
