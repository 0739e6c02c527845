//! Structural decode of every onav file (`ONTL` tile, `ONMS` mesh file, `ONPS` snapshot, `ONTK`
//! tile cache snapshot in module `ontk`) into a
//! list of fields: absolute offset, size, the spec's field path (the same names errors use) and
//! the value. It follows the layout only and stops where the bytes run out or a count makes no
//! sense; validation is onav's job, and `inspect` shows both. Patching by field path, `inspect`
//! and `diff` all stand on this one decoder.

use std::fmt;

mod ontk;

/// Which kind of file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// `ONTL`.
    Tile,
    /// `ONMS`.
    MeshFile,
    /// `ONPS`.
    Snapshot,
    /// `ONTK` (`spec/tilecache.md` §6).
    CacheSnapshot,
    /// Anything else.
    Unknown,
}

impl FileKind {
    /// The kind named by the first four bytes.
    pub fn of(bytes: &[u8]) -> Self {
        match bytes.get(..4) {
            Some(b"ONTL") => Self::Tile,
            Some(b"ONMS") => Self::MeshFile,
            Some(b"ONPS") => Self::Snapshot,
            Some(b"ONTK") => Self::CacheSnapshot,
            _ => Self::Unknown,
        }
    }
}

/// A decoded value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// Unsigned integer of 1, 2 or 4 bytes.
    U(u64),
    /// Signed 32-bit integer.
    I(i64),
    /// binary64.
    F(f64),
    /// Raw bytes (magics, digests, ids), shown as hex.
    Bytes(Vec<u8>),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::U(v) => write!(f, "{v}"),
            Value::I(v) => write!(f, "{v}"),
            Value::F(v) => write!(f, "{v:?} (0x{:016x})", v.to_bits()),
            Value::Bytes(b) if b.iter().all(|c| c.is_ascii_graphic()) && b.len() <= 8 => {
                write!(f, "\"{}\"", String::from_utf8_lossy(b))
            }
            Value::Bytes(b) => f.write_str(&crate::hex::hex(b)),
        }
    }
}

/// One field of a file.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// Absolute byte offset.
    pub offset: u64,
    /// Size in bytes.
    pub size: u64,
    /// The spec's field path.
    pub path: String,
    /// The value.
    pub value: Value,
}

/// A decode: the fields read, and where and why it stopped early, if it did.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    /// Kind of file.
    pub kind: FileKind,
    /// Fields in byte order.
    pub fields: Vec<Field>,
    /// Offset and note where decoding stopped before the end.
    pub stopped: Option<(u64, String)>,
}

impl Decoded {
    /// The field with this exact path.
    pub fn field(&self, path: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.path == path)
    }
}

struct Cur<'a> {
    b: &'a [u8],
    at: usize,
    out: Vec<Field>,
}

type Stop = (u64, String);

impl<'a> Cur<'a> {
    fn take(&mut self, n: usize, path: &str) -> Result<&'a [u8], Stop> {
        match self.b.get(self.at..self.at.saturating_add(n)) {
            Some(s) if self.at.checked_add(n).is_some() => {
                self.at += n;
                Ok(s)
            }
            _ => Err((
                self.at as u64,
                format!(
                    "{path}: needs {n} bytes, {} remain",
                    self.b.len().saturating_sub(self.at)
                ),
            )),
        }
    }
    fn push(&mut self, at: usize, n: usize, path: String, value: Value) {
        self.out.push(Field {
            offset: at as u64,
            size: n as u64,
            path,
            value,
        });
    }
    fn uint(&mut self, n: usize, path: impl Into<String>) -> Result<u64, Stop> {
        let path = path.into();
        let at = self.at;
        let s = self.take(n, &path)?;
        let v = s.iter().rev().fold(0u64, |acc, &b| acc << 8 | u64::from(b));
        self.push(at, n, path, Value::U(v));
        Ok(v)
    }
    fn i32(&mut self, path: impl Into<String>) -> Result<i64, Stop> {
        let path = path.into();
        let at = self.at;
        let s = self.take(4, &path)?;
        let v = i64::from(i32::from_le_bytes([s[0], s[1], s[2], s[3]]));
        self.push(at, 4, path, Value::I(v));
        Ok(v)
    }
    fn f64(&mut self, path: impl Into<String>) -> Result<f64, Stop> {
        let path = path.into();
        let at = self.at;
        let s = self.take(8, &path)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(s);
        let v = f64::from_le_bytes(a);
        self.push(at, 8, path, Value::F(v));
        Ok(v)
    }
    fn raw(&mut self, n: usize, path: impl Into<String>) -> Result<(), Stop> {
        let path = path.into();
        let at = self.at;
        let s = self.take(n, &path)?.to_vec();
        self.push(at, n, path, Value::Bytes(s));
        Ok(())
    }
    fn vec3(&mut self, p: &str) -> Result<(), Stop> {
        for c in ["x", "y", "z"] {
            self.f64(format!("{p}.{c}"))?;
        }
        Ok(())
    }
    /// A count that claims more elements of `elem` bytes than remain stops the decode.
    fn count(&mut self, path: &str, elem: usize) -> Result<u64, Stop> {
        let at = self.at;
        let n = self.uint(4, path)?;
        let remain = (self.b.len() - self.at) as u64;
        if n.saturating_mul(elem as u64) > remain {
            return Err((
                at as u64,
                format!(
                    "{path} = {n} needs {} bytes, {remain} remain",
                    n.saturating_mul(elem as u64)
                ),
            ));
        }
        Ok(n)
    }
}

/// Decodes any onav file.
pub fn decode(bytes: &[u8]) -> Decoded {
    let kind = FileKind::of(bytes);
    let mut c = Cur {
        b: bytes,
        at: 0,
        out: Vec::new(),
    };
    let r = match kind {
        FileKind::Tile => tile(&mut c, ""),
        FileKind::MeshFile => mesh_file(&mut c),
        FileKind::Snapshot => snapshot(&mut c),
        FileKind::CacheSnapshot => ontk::cache_snapshot(&mut c),
        FileKind::Unknown => Err((0, "unknown magic".to_owned())),
    };
    let mut stopped = r.err();
    if stopped.is_none() && c.at < bytes.len() {
        stopped = Some((
            c.at as u64,
            format!("{} trailing bytes", bytes.len() - c.at),
        ));
    }
    Decoded {
        kind,
        fields: c.out,
        stopped,
    }
}

fn header(c: &mut Cur<'_>) -> Result<(), Stop> {
    c.raw(4, "magic")?;
    c.uint(2, "version")?;
    c.uint(2, "flags")?;
    Ok(())
}

fn params(c: &mut Cur<'_>, with_slots: bool) -> Result<(), Stop> {
    c.vec3("params.origin")?;
    c.f64("params.tile_size")?;
    if with_slots {
        c.uint(4, "params.slot_count")?;
    }
    c.raw(32, "params.settings_digest")?;
    Ok(())
}

/// A tile at the cursor; `p` is the path prefix ("" or "slot[3].tile.").
fn tile(c: &mut Cur<'_>, p: &str) -> Result<(), Stop> {
    let mut sub = Cur {
        b: c.b,
        at: c.at,
        out: Vec::new(),
    };
    let r = tile_fields(&mut sub);
    for mut f in sub.out {
        f.path = format!("{p}{}", f.path);
        c.out.push(f);
    }
    c.at = sub.at;
    r
}

fn tile_fields(c: &mut Cur<'_>) -> Result<(), Stop> {
    header(c)?;
    params(c, false)?;
    c.i32("position.column")?;
    c.i32("position.row")?;
    c.uint(4, "position.layer")?;
    for a in ["agent.height", "agent.radius", "agent.climb"] {
        c.f64(a)?;
    }
    let nv = c.uint(4, "vertex_count")?;
    let ng = c.uint(4, "polygon_count")?;
    let nl = c.uint(4, "link_count")?;
    let ndv = c.uint(4, "detail_vertex_count")?;
    let ndt = c.uint(4, "detail_triangle_count")?;
    c.uint(4, "reserved")?;
    let need = nv * 24 + ng * (52 + 16) + nl * 64 + ndv * 24 + ndt * 4 + (ng + nl) * 3;
    let remain = (c.b.len() - c.at) as u64;
    if need > remain {
        return Err((
            c.at as u64,
            format!("counts need {need} bytes, {remain} remain"),
        ));
    }
    for i in 0..nv {
        c.vec3(&format!("vertex[{i}]"))?;
    }
    let mut nverts = Vec::with_capacity(ng as usize);
    for i in 0..ng {
        nverts.push(c.uint(1, format!("polygon[{i}].vertex_count"))?);
        for k in 0..3 {
            c.uint(1, format!("polygon[{i}].reserved[{k}]"))?;
        }
        for k in 0..6 {
            c.uint(4, format!("polygon[{i}].vertex[{k}]"))?;
        }
        for k in 0..6 {
            c.uint(4, format!("polygon[{i}].neighbour[{k}]"))?;
        }
    }
    for i in 0..nl {
        c.vec3(&format!("link[{i}].start"))?;
        c.vec3(&format!("link[{i}].end"))?;
        c.f64(format!("link[{i}].radius"))?;
        c.uint(1, format!("link[{i}].direction"))?;
        for k in 0..3 {
            c.uint(1, format!("link[{i}].reserved[{k}]"))?;
        }
        c.uint(4, format!("link[{i}].user_id"))?;
    }
    for i in 0..ng {
        for f in [
            "vertex_base",
            "vertex_count",
            "triangle_base",
            "triangle_count",
        ] {
            c.uint(4, format!("detail[{i}].{f}"))?;
        }
    }
    for i in 0..ndv {
        c.vec3(&format!("detail_vertex[{i}]"))?;
    }
    for t in 0..ndt {
        for k in 0..3 {
            c.uint(1, format!("detail_triangle[{t}].vertex[{k}]"))?;
        }
        c.uint(1, format!("detail_triangle[{t}].reserved"))?;
    }
    for i in 0..ng + nl {
        c.uint(1, format!("area[{i}]"))?;
    }
    for i in 0..ng + nl {
        c.uint(2, format!("flags[{i}]"))?;
    }
    Ok(())
}

fn mesh_file(c: &mut Cur<'_>) -> Result<(), Stop> {
    header(c)?;
    params(c, true)?;
    let n = c.count("tile_count", 4)?;
    for i in 0..n {
        let len = c.count(&format!("tile[{i}].length"), 1)?;
        let end = c.at + len as usize;
        let mut sub = Cur {
            b: &c.b[..end],
            at: c.at,
            out: Vec::new(),
        };
        let r = tile_fields(&mut sub);
        c.out.extend(sub.out.into_iter().map(|mut f| {
            f.path = format!("tile[{i}].{}", f.path);
            f
        }));
        r?;
        c.at = end;
    }
    Ok(())
}

fn snapshot(c: &mut Cur<'_>) -> Result<(), Stop> {
    header(c)?;
    params(c, true)?;
    let n = c.count("section_count", 8)?;
    for i in 0..n {
        let id = c.uint(2, format!("section[{i}].id"))?;
        c.uint(2, format!("section[{i}].reserved"))?;
        let len = c.count(&format!("section[{i}].length"), 1)?;
        let end = c.at + len as usize;
        if id != 1 {
            c.raw(len as usize, format!("section[{i}].body"))?;
            continue;
        }
        let mut sub = Cur {
            b: &c.b[..end],
            at: c.at,
            out: Vec::new(),
        };
        let r = slots(&mut sub);
        c.out.extend(sub.out);
        r?;
        if sub.at != end {
            return Err((
                sub.at as u64,
                format!(
                    "section[{i}] body has {} bytes not used by its contents",
                    end - sub.at
                ),
            ));
        }
        c.at = end;
    }
    Ok(())
}

fn slots(c: &mut Cur<'_>) -> Result<(), Stop> {
    let s = c.count("slots.slot_count", 5)?;
    for i in 0..s {
        c.uint(4, format!("slot[{i}].generation"))?;
        let kind = c.uint(1, format!("slot[{i}].kind"))?;
        match kind {
            0 => continue,
            1 => {
                let len = c.count(&format!("slot[{i}].tile_length"), 1)?;
                let end = c.at + len as usize;
                let mut sub = Cur {
                    b: &c.b[..end],
                    at: c.at,
                    out: Vec::new(),
                };
                let r = tile(&mut sub, &format!("slot[{i}].tile."));
                c.out.extend(sub.out);
                r?;
                c.at = end;
            }
            2 => c.raw(32, format!("slot[{i}].content_id"))?,
            k => {
                return Err((
                    (c.at - 1) as u64,
                    format!("slot[{i}].kind {k} is not 0, 1 or 2"),
                ))
            }
        }
        let e = c.count(&format!("slot[{i}].edit_count"), 7)?;
        for j in 0..e {
            c.uint(4, format!("slot[{i}].edit[{j}].polygon"))?;
            c.uint(1, format!("slot[{i}].edit[{j}].area"))?;
            c.uint(2, format!("slot[{i}].edit[{j}].flags"))?;
        }
        let d = c.count(&format!("slot[{i}].disabled_count"), 4)?;
        for j in 0..d {
            c.uint(4, format!("slot[{i}].disabled[{j}]"))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use onav::{SnapshotMode, TiledNavMesh, WorldSpec};

    fn mesh() -> TiledNavMesh {
        let w = WorldSpec {
            columns: 2,
            rows: 1,
            links_per_tile: 1,
            ..WorldSpec::default()
        };
        crate::files::mesh_of(&w, 3)
    }

    /// The decode covers every byte exactly once, in order, for each kind of file.
    #[test]
    fn decodes_cover_every_byte() {
        let m = mesh();
        let files = [
            m.snapshot(SnapshotMode::Full),
            m.snapshot(SnapshotMode::Referenced),
            onav::write_mesh(&m),
            m.tiles().next().unwrap().1.to_bytes(),
        ];
        for f in files {
            let d = decode(&f);
            assert_eq!(d.stopped, None);
            let mut at = 0;
            for fld in &d.fields {
                assert_eq!(fld.offset, at, "{}", fld.path);
                at += fld.size;
            }
            assert_eq!(at, f.len() as u64);
        }
    }

    /// Field paths and offsets agree with the errors onav reports.
    #[test]
    fn paths_match_error_fields() {
        let m = mesh();
        let snap = m.snapshot(SnapshotMode::Full);
        let d = decode(&snap);
        let f = d
            .field("slot[0].tile.polygon[1].vertex_count")
            .unwrap()
            .clone();
        let mut bad = snap.clone();
        bad[f.offset as usize] = 9;
        let e = onav::NavMeshSnapshot::restore(&bad, &onav::TileLibrary::new()).unwrap_err();
        assert_eq!((e.field(), e.offset()), (f.path.as_str(), Some(f.offset)));
    }

    #[test]
    fn truncated_inputs_stop_without_panicking() {
        let snap = mesh().snapshot(SnapshotMode::Full);
        for n in 0..snap.len() {
            let d = decode(&snap[..n]);
            assert!(d.stopped.is_some() || n == 0 && d.kind == FileKind::Unknown);
        }
    }
}
