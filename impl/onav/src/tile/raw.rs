//! `RawTile`: a tile as plain data, written to bytes without any check. The generator and the
//! tests build tiles through it; `build` sends the bytes through the one validating reader, so a
//! tile made in code obeys exactly the rules a parsed one does.

use super::{
    AgentSizes, DetailMesh, LinkDirection, NavTile, OffMeshLink, Polygon, TILE_MAGIC, TILE_VERSION,
};
use crate::bytes::Writer;
use crate::error::FormatError;
use crate::geom::Vec3;
use crate::ids::{SettingsDigest, TilePos};
use crate::limits::TILE_HEADER_LEN;
use crate::params::RawGrid;

/// A tile as plain data (`spec/navmesh-format.md` §3), in file order.
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)]
pub struct RawTile {
    pub grid: RawGrid,
    pub digest: SettingsDigest,
    pub pos: TilePos,
    pub agent: AgentSizes,
    pub vertices: Vec<Vec3>,
    pub polys: Vec<Polygon>,
    pub links: Vec<OffMeshLink>,
    pub detail_meshes: Vec<DetailMesh>,
    pub detail_vertices: Vec<Vec3>,
    pub detail_tris: Vec<[u8; 3]>,
    /// One per polygon, ground polygons then links.
    pub areas: Vec<u8>,
    /// One per polygon, ground polygons then links.
    pub flags: Vec<u16>,
}

impl RawTile {
    /// The tile's bytes, written field by field with no check.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(
            TILE_HEADER_LEN + self.vertices.len() * 24 + self.polys.len() * 71,
        );
        w.header(TILE_MAGIC, TILE_VERSION);
        self.grid.write(&mut w);
        w.bytes(&self.digest.0);
        w.i32(self.pos.column);
        w.i32(self.pos.row);
        w.u32(self.pos.layer);
        w.f64(self.agent.height);
        w.f64(self.agent.radius);
        w.f64(self.agent.climb);
        for n in [
            self.vertices.len(),
            self.polys.len(),
            self.links.len(),
            self.detail_vertices.len(),
            self.detail_tris.len(),
        ] {
            w.u32(n as u32);
        }
        w.u32(0);
        for v in &self.vertices {
            v.iter().for_each(|&c| w.f64(c));
        }
        for p in &self.polys {
            w.u8(p.vertex_count);
            w.bytes(&[0, 0, 0]);
            p.vertices.iter().for_each(|&v| w.u32(v));
            p.edges.iter().for_each(|e| w.u32(e.code()));
        }
        for l in &self.links {
            l.start.iter().for_each(|&c| w.f64(c));
            l.end.iter().for_each(|&c| w.f64(c));
            w.f64(l.radius);
            w.u8(l.direction as u8);
            w.bytes(&[0, 0, 0]);
            w.u32(l.user_id);
        }
        for d in &self.detail_meshes {
            w.u32(d.vertex_base);
            w.u32(d.vertex_count);
            w.u32(d.triangle_base);
            w.u32(d.triangle_count);
        }
        for v in &self.detail_vertices {
            v.iter().for_each(|&c| w.f64(c));
        }
        for t in &self.detail_tris {
            w.bytes(t);
            w.u8(0);
        }
        w.bytes(&self.areas);
        self.flags.iter().for_each(|&f| w.u16(f));
        w.into_inner()
    }

    /// Validates the tile by parsing its bytes.
    pub fn build(&self) -> Result<NavTile, FormatError> {
        NavTile::from_bytes(&self.to_bytes())
    }

    /// The plain data of a tile's as-built contents.
    pub fn from_tile(t: &NavTile) -> Self {
        let d = t.data();
        Self {
            grid: d.grid.raw(),
            digest: d.digest,
            pos: d.pos,
            agent: d.agent,
            vertices: d.vertices().to_vec(),
            polys: d.polys.clone(),
            links: d.links.clone(),
            detail_meshes: d.detail_meshes().collect(),
            detail_vertices: d.detail_vertices().to_vec(),
            detail_tris: d.detail_tris().iter().map(|t| [t[0], t[1], t[2]]).collect(),
            areas: d.areas().to_vec(),
            flags: (0..d.poly_count()).map(|i| d.flags(i)).collect(),
        }
    }

    /// Appends a fan-triangulated detail mesh (no extra vertices) for every ground polygon that
    /// has none yet, keeping the detail arrays contiguous.
    pub fn fan_detail(&mut self) {
        while self.detail_meshes.len() < self.polys.len() {
            let p = &self.polys[self.detail_meshes.len()];
            let n = p.vertex_count;
            let base = self.detail_tris.len() as u32;
            for k in 1..n.saturating_sub(1) {
                self.detail_tris.push([0, k, k + 1]);
            }
            self.detail_meshes.push(DetailMesh {
                vertex_base: self.detail_vertices.len() as u32,
                vertex_count: 0,
                triangle_base: base,
                triangle_count: u32::from(n.saturating_sub(2)),
            });
        }
    }

    /// A one-way or two-way off-mesh link with area 0 and flags 1, appended.
    pub fn push_link(
        &mut self,
        start: Vec3,
        end: Vec3,
        radius: f64,
        direction: LinkDirection,
        user_id: u32,
    ) {
        self.links.push(OffMeshLink {
            start,
            end,
            radius,
            direction,
            user_id,
        });
        self.areas.push(0);
        self.flags.push(1);
    }
}
