//! Frames (`spec/conformance.md` §6.2): a u32 little-endian length, then that many bytes of
//! UTF-8 JSON.

use std::io::{Read, Write};

pub use crate::limits::MAX_FRAME;

/// Writes one frame.
pub fn write_frame(w: &mut impl Write, json: &[u8]) -> std::io::Result<()> {
    let n = u32::try_from(json.len()).map_err(|_| std::io::Error::other("frame too large"))?;
    w.write_all(&n.to_le_bytes())?;
    w.write_all(json)?;
    w.flush()
}

/// Reads one frame; `Ok(None)` at a clean end of stream.
pub fn read_frame(r: &mut impl Read) -> std::io::Result<Option<Vec<u8>>> {
    let mut len = [0u8; 4];
    match r.read_exact(&mut len) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let n = u32::from_le_bytes(len);
    if n > MAX_FRAME {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("frame of {n} bytes exceeds {MAX_FRAME}"),
        ));
    }
    let mut buf = vec![0u8; n as usize];
    r.read_exact(&mut buf)?;
    Ok(Some(buf))
}
