//! Wavefront OBJ input with the rules of `shared/research/detour-figures.md` (the RecastDemo
//! loader's): only `v` and `f` lines count; a face index is the text before its first `/`, 1-based,
//! or relative to the vertices read so far when negative; a polygon is fan-triangulated from its
//! first corner; CRLF line ends are accepted. Coordinates are read as f32, as Recast takes them.
//!
//! Unlike the demo (which skips a triangle with an index out of range), a malformed line is an
//! error naming its line: the bench must not measure a silently different mesh.

use std::fmt;

/// A triangle soup: `verts` holds x, y, z per vertex, `tris` three vertex indices per triangle.
#[derive(Debug, Clone, Default)]
pub struct TriMesh {
    /// x, y, z of each vertex.
    pub verts: Vec<f32>,
    /// Three vertex indices per triangle.
    pub tris: Vec<i32>,
}

impl TriMesh {
    /// Number of vertices.
    pub fn vert_count(&self) -> usize {
        self.verts.len() / 3
    }

    /// Number of triangles.
    pub fn tri_count(&self) -> usize {
        self.tris.len() / 3
    }
}

/// What is wrong with an OBJ file, and on which line (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong, for people.
    pub what: String,
}

impl fmt::Display for ObjError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.what)
    }
}

/// Parses OBJ text (see the module docs for the rules).
pub fn parse(text: &str) -> Result<TriMesh, ObjError> {
    let mut m = TriMesh::default();
    let mut face: Vec<i32> = Vec::with_capacity(8);
    for (i, raw) in text.split('\n').enumerate() {
        let line = i + 1;
        let err = |what: String| ObjError { line, what };
        let row = raw.strip_suffix('\r').unwrap_or(raw);
        let mut tok = row.split_ascii_whitespace();
        match tok.next() {
            Some("v") => {
                for k in 0..3 {
                    let t = tok
                        .next()
                        .ok_or_else(|| err(format!("vertex has {k} coordinates, needs 3")))?;
                    let c: f32 = t
                        .parse()
                        .map_err(|_| err(format!("vertex coordinate {t:?} is not a number")))?;
                    if !c.is_finite() {
                        return Err(err(format!("vertex coordinate {t:?} is not finite")));
                    }
                    m.verts.push(c);
                }
            }
            Some("f") => {
                face.clear();
                let nv = m.vert_count() as i64;
                for t in tok {
                    let head = t.split('/').next().unwrap_or("");
                    let v: i64 = head
                        .parse()
                        .map_err(|_| err(format!("face index {t:?} is not an integer")))?;
                    let idx = if v < 0 { nv + v } else { v - 1 };
                    if !(0..nv).contains(&idx) {
                        return Err(err(format!(
                            "face index {v} is out of range ({nv} vertices so far)"
                        )));
                    }
                    face.push(idx as i32);
                }
                if face.len() < 3 {
                    return Err(err(format!("face has {} corners, needs 3", face.len())));
                }
                for k in 2..face.len() {
                    m.tris.extend_from_slice(&[face[0], face[k - 1], face[k]]);
                }
            }
            _ => {}
        }
    }
    if m.tris.is_empty() {
        return Err(ObjError {
            line: 0,
            what: "no faces".into(),
        });
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fans_negative_indices_and_crlf() {
        let m = parse("v 0 0 0\r\nv 1 0 0\nv 1 0 1\nv 0 0 1\nvn 0 1 0\nf 1/1/1 2 3 -1\n").unwrap();
        assert_eq!(m.vert_count(), 4);
        assert_eq!(m.tris, vec![0, 1, 2, 0, 2, 3]);
    }

    #[test]
    fn errors_name_the_line() {
        assert_eq!(parse("v 0 0 0\nf 1 2 3\n").unwrap_err().line, 2);
        assert_eq!(parse("v 0 x 0\n").unwrap_err().line, 1);
        assert_eq!(parse("v 0 0\n").unwrap_err().line, 1);
        assert_eq!(parse("v 0 0 0\nv 0 0 0\nf 1 2\n").unwrap_err().line, 3);
        assert!(parse("").is_err());
    }
}
