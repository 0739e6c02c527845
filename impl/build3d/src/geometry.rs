//! Input geometry (`spec/build3d.md` §2): a multiset of triangles, each three vertices in world
//! units (x, y, z; y up) and an area id 0 ..= 63 (0: never walkable).
//!
//! The build is a function of the multiset alone: each triangle is rotated so that its smallest
//! vertex comes first (its winding kept), −0.0 becomes +0.0, and the triangles are sorted. Face
//! order, the rotation of a face's vertices and the split into objects therefore cannot reach
//! the output, and the geometry digest (§2.3) names exactly this canonical form.
//!
//! Limits: L1 (triangles).

use std::cmp::Ordering;

use rayon::prelude::*;
use sha2::{Digest, Sha256};

use crate::error::GeometryError;
use crate::limits::MAX_TRIANGLES;

/// Area id of OBJ triangles and the default walkable area (Recast's `RC_WALKABLE_AREA`).
pub const WALKABLE_AREA: u8 = 63;

/// One canonical triangle: vertices in world units, rotated so that `v[0]` is the smallest.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Triangle {
    pub v: [[f64; 3]; 3],
    pub area: u8,
}

/// Total order of finite, non-negative-zero coordinates: lexicographic by value.
fn cmp_vertex(a: &[f64; 3], b: &[f64; 3]) -> Ordering {
    for k in 0..3 {
        match a[k].partial_cmp(&b[k]) {
            Some(Ordering::Equal) | None => {}
            Some(o) => return o,
        }
    }
    Ordering::Equal
}

fn cmp_triangle(a: &Triangle, b: &Triangle) -> Ordering {
    for k in 0..3 {
        let o = cmp_vertex(&a.v[k], &b.v[k]);
        if o != Ordering::Equal {
            return o;
        }
    }
    a.area.cmp(&b.area)
}

impl Triangle {
    /// The canonical rotation of (a, b, c): the rotation whose vertex sequence is smallest.
    pub(crate) fn canonical(v: [[f64; 3]; 3], area: u8) -> Self {
        let v = v.map(|p| p.map(|c| if c == 0.0 { 0.0 } else { c }));
        let rot = |r: usize| [v[r], v[(r + 1) % 3], v[(r + 2) % 3]];
        let mut best = rot(0);
        for r in 1..3 {
            let cand = rot(r);
            let less = cand
                .iter()
                .zip(&best)
                .map(|(a, b)| cmp_vertex(a, b))
                .find(|o| *o != Ordering::Equal)
                == Some(Ordering::Less);
            if less {
                best = cand;
            }
        }
        Self { v: best, area }
    }
}

/// Validated, canonical triangle geometry.
#[derive(Debug, Clone, PartialEq)]
pub struct Geometry {
    tris: Vec<Triangle>,
    bmin: [f64; 3],
    bmax: [f64; 3],
    digest: [u8; 32],
}

impl Geometry {
    /// Geometry from arrays: `vertices` holds x, y, z per vertex, `indices` three vertex indices
    /// per triangle (counter-clockwise seen from above for a walkable floor), `areas` one area id
    /// per triangle.
    pub fn from_arrays(
        vertices: &[f64],
        indices: &[u32],
        areas: &[u8],
    ) -> Result<Self, GeometryError> {
        Self::from_arrays_capped(vertices, indices, areas, MAX_TRIANGLES)
    }

    pub(crate) fn from_arrays_capped(
        vertices: &[f64],
        indices: &[u32],
        areas: &[u8],
        max_triangles: u64,
    ) -> Result<Self, GeometryError> {
        if !vertices.len().is_multiple_of(3) {
            return Err(GeometryError::VertexArrayLength {
                len: vertices.len() as u64,
            });
        }
        if !indices.len().is_multiple_of(3) {
            return Err(GeometryError::IndexArrayLength {
                len: indices.len() as u64,
            });
        }
        let ntri = (indices.len() / 3) as u64;
        if areas.len() as u64 != ntri {
            return Err(GeometryError::AreaCount {
                areas: areas.len() as u64,
                triangles: ntri,
            });
        }
        if ntri > max_triangles {
            return Err(GeometryError::TooManyTriangles {
                count: ntri,
                max: max_triangles,
            });
        }
        if let Some(i) = vertices.iter().position(|c| !c.is_finite()) {
            return Err(GeometryError::NotFinite {
                vertex: (i / 3) as u64,
                axis: (i % 3) as u8,
            });
        }
        let nv = (vertices.len() / 3) as u64;
        // Checked in order first (the first error in array order is reported), then made
        // canonical as an ordered parallel map.
        for (t, (ix, &area)) in indices.chunks_exact(3).zip(areas).enumerate() {
            if area > 63 {
                return Err(GeometryError::AreaOutOfRange {
                    triangle: t as u64,
                    area,
                });
            }
            for (k, &i) in ix.iter().enumerate() {
                if u64::from(i) >= nv {
                    return Err(GeometryError::IndexOutOfRange {
                        triangle: t as u64,
                        corner: k as u8,
                        index: i,
                        vertices: nv,
                    });
                }
            }
        }
        let tris = indices
            .par_chunks_exact(3)
            .zip(areas)
            .map(|(ix, &area)| {
                let corner = |k: usize| {
                    let b = ix[k] as usize * 3;
                    [vertices[b], vertices[b + 1], vertices[b + 2]]
                };
                Triangle::canonical([corner(0), corner(1), corner(2)], area)
            })
            .collect();
        Ok(Self::from_canonical(tris))
    }

    /// Geometry from canonical triangles (finite coordinates, areas ≤ 63 already checked).
    pub(crate) fn from_canonical(mut tris: Vec<Triangle>) -> Self {
        // A total order whose equal elements are identical (same values, no −0.0, no NaN), so
        // the sorted list is the same for any algorithm and thread count.
        tris.par_sort_unstable_by(cmp_triangle);
        let mut bmin = [0.0; 3];
        let mut bmax = [0.0; 3];
        if let Some(first) = tris.first() {
            bmin = first.v[0];
            bmax = first.v[0];
        }
        for t in &tris {
            for p in &t.v {
                for k in 0..3 {
                    if p[k] < bmin[k] {
                        bmin[k] = p[k];
                    }
                    if p[k] > bmax[k] {
                        bmax[k] = p[k];
                    }
                }
            }
        }
        let digest = digest_of(&tris);
        Self {
            tris,
            bmin,
            bmax,
            digest,
        }
    }

    /// Number of triangles.
    pub fn triangle_count(&self) -> usize {
        self.tris.len()
    }

    /// The smallest and largest coordinate on each axis over all triangles, `(min, max)`;
    /// both (0, 0, 0) when there are none.
    pub fn bounds(&self) -> ([f64; 3], [f64; 3]) {
        (self.bmin, self.bmax)
    }

    /// The geometry digest of `spec/build3d.md` §2.3.
    pub fn digest(&self) -> [u8; 32] {
        self.digest
    }

    pub(crate) fn triangles(&self) -> &[Triangle] {
        &self.tris
    }
}

/// SHA-256 of the ASCII tag `onav-build3d/geometry`, the u64 triangle count, then per sorted
/// canonical triangle its nine coordinates (f64) and its area (u8), little-endian.
fn digest_of(tris: &[Triangle]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"onav-build3d/geometry");
    h.update((tris.len() as u64).to_le_bytes());
    let mut buf = Vec::with_capacity(73 * 1024);
    for chunk in tris.chunks(1024) {
        buf.clear();
        for t in chunk {
            for p in &t.v {
                for c in p {
                    buf.extend_from_slice(&c.to_le_bytes());
                }
            }
            buf.push(t.area);
        }
        h.update(&buf);
    }
    h.finalize().into()
}
