//! The one bounded little-endian byte reader and writer (`spec/navmesh-format.md` §1.1–§1.2).
//! Every format is read with [`Reader`] and written with [`Writer`]. The reader knows the
//! absolute offset of every field, so each error names where it happened; field paths are built
//! only on error.

use crate::error::{FormatError, FormatReason};

#[cfg(test)]
mod tests;

/// Something that names a field: a static name, or a closure that formats an indexed path.
/// The closure runs only when an error is reported.
pub trait Field {
    /// The field path.
    fn path(self) -> String;
}

impl Field for &str {
    fn path(self) -> String {
        self.to_owned()
    }
}

impl<F: FnOnce() -> String> Field for F {
    fn path(self) -> String {
        self()
    }
}

/// A bounded little-endian reader over a byte slice.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    base: u64,
}

impl<'a> Reader<'a> {
    /// A reader whose first byte sits at absolute offset `base` of the outer input.
    pub fn new(data: &'a [u8], base: u64) -> Self {
        Self { data, pos: 0, base }
    }

    /// Absolute offset of the next byte.
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Position of the next byte within this reader's slice.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Bytes that remain.
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    /// A format error at the current offset.
    pub fn error(&self, field: impl Field, reason: FormatReason) -> FormatError {
        FormatError::new(self.offset(), field.path(), reason)
    }

    /// A format error at an absolute offset.
    pub fn error_at(&self, offset: u64, field: impl Field, reason: FormatReason) -> FormatError {
        FormatError::new(offset, field.path(), reason)
    }

    /// The error for a field of `needed` bytes when fewer remain, at the field's offset.
    fn truncated(&self, needed: usize, field: impl Field) -> FormatError {
        self.error(
            field,
            FormatReason::Truncated {
                needed: needed as u64,
                available: self.remaining() as u64,
            },
        )
    }

    /// Takes the next `n` bytes.
    pub fn bytes(&mut self, n: usize, field: impl Field) -> Result<&'a [u8], FormatError> {
        if self.remaining() < n {
            return Err(self.truncated(n, field));
        }
        let out = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    /// The next `N` bytes, or `None` (and nothing consumed) when fewer remain.
    fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        let b = self.data.get(self.pos..self.pos + N)?;
        let mut out = [0u8; N];
        out.copy_from_slice(b);
        self.pos += N;
        Some(out)
    }

    fn array<const N: usize>(&mut self, field: impl Field) -> Result<[u8; N], FormatError> {
        match self.take::<N>() {
            Some(a) => Ok(a),
            None => Err(self.truncated(N, field)),
        }
    }

    /// Reads a u8.
    pub fn u8(&mut self, field: impl Field) -> Result<u8, FormatError> {
        Ok(self.array::<1>(field)?[0])
    }

    /// Reads a little-endian u16.
    pub fn u16(&mut self, field: impl Field) -> Result<u16, FormatError> {
        Ok(u16::from_le_bytes(self.array(field)?))
    }

    /// Reads a little-endian u32.
    pub fn u32(&mut self, field: impl Field) -> Result<u32, FormatError> {
        Ok(u32::from_le_bytes(self.array(field)?))
    }

    /// Reads a little-endian i32.
    pub fn i32(&mut self, field: impl Field) -> Result<i32, FormatError> {
        Ok(i32::from_le_bytes(self.array(field)?))
    }

    /// Reads a 32-byte digest or id.
    pub fn hash32(&mut self, field: impl Field) -> Result<[u8; 32], FormatError> {
        self.array(field)
    }

    /// Reads a little-endian binary64 that must be finite (§1.2); a NaN or an infinity is
    /// reported at the value's first byte.
    pub fn f64(&mut self, field: impl Field) -> Result<f64, FormatError> {
        let at = self.offset();
        let Some(a) = self.take::<8>() else {
            return Err(self.truncated(8, field));
        };
        let v = f64::from_le_bytes(a);
        if v.is_finite() {
            Ok(v)
        } else {
            Err(self.error_at(at, field, FormatReason::NotFinite))
        }
    }

    /// Reads `N` bytes that must all be zero (a reserved field, §1.2).
    fn reserved<const N: usize>(&mut self, field: impl Field) -> Result<(), FormatError> {
        let at = self.offset();
        let Some(a) = self.take::<N>() else {
            return Err(self.truncated(N, field));
        };
        if a == [0; N] {
            Ok(())
        } else {
            Err(self.error_at(at, field, FormatReason::NonZeroReserved))
        }
    }

    /// Reads a u8 that must be zero.
    pub fn reserved_u8(&mut self, field: impl Field) -> Result<(), FormatError> {
        self.reserved::<1>(field)
    }

    /// Reads a u16 that must be zero.
    pub fn reserved_u16(&mut self, field: impl Field) -> Result<(), FormatError> {
        self.reserved::<2>(field)
    }

    /// Reads a u32 that must be zero.
    pub fn reserved_u32(&mut self, field: impl Field) -> Result<(), FormatError> {
        self.reserved::<4>(field)
    }

    /// Reads a count and checks it against `max` and against the bytes that remain, given the
    /// smallest encoded size of one element (`min_elem`; 0 means the bytes give no bound): the
    /// check that comes before any allocation (§1.2). A count over either limit is reported at
    /// the count with the smaller of the two as its maximum.
    pub fn count(
        &mut self,
        field: impl Field,
        max: u32,
        min_elem: usize,
    ) -> Result<u32, FormatError> {
        let at = self.offset();
        let Some(a) = self.take::<4>() else {
            return Err(self.truncated(4, field));
        };
        let n = u32::from_le_bytes(a);
        let by_bytes = self
            .remaining()
            .checked_div(min_elem)
            .map_or(u64::MAX, |n| n as u64);
        let limit = u64::from(max).min(by_bytes);
        if u64::from(n) > limit {
            return Err(self.error_at(
                at,
                field,
                FormatReason::CountTooLarge {
                    count: n.into(),
                    max: limit,
                },
            ));
        }
        Ok(n)
    }

    /// Reads the file header every format starts with (§1.1): magic `magic`, u16 version equal
    /// to `version`, u16 flags equal to 0 (fields `magic`, `version`, `flags`).
    pub fn header(&mut self, magic: [u8; 4], version: u16) -> Result<(), FormatError> {
        let at = self.offset();
        if self.bytes(4, "magic")? != magic {
            return Err(self.error_at(at, "magic", FormatReason::BadMagic));
        }
        let at = self.offset();
        let found = self.u16("version")?;
        if found != version {
            return Err(self.error_at(at, "version", FormatReason::BadVersion { found }));
        }
        self.reserved_u16("flags")
    }

    /// Reads a u32 length and takes that many bytes; a length past the end is reported at the
    /// length field. Returns the absolute offset of the bytes and the bytes.
    pub fn length_prefixed(&mut self, field: impl Field) -> Result<(u64, &'a [u8]), FormatError> {
        let at = self.offset();
        let Some(a) = self.take::<4>() else {
            return Err(self.truncated(4, field));
        };
        let len = u32::from_le_bytes(a) as usize;
        if len > self.remaining() {
            let reason = FormatReason::Truncated {
                needed: len as u64,
                available: self.remaining() as u64,
            };
            return Err(self.error_at(at, field, reason));
        }
        let start = self.offset();
        let out = &self.data[self.pos..self.pos + len];
        self.pos += len;
        Ok((start, out))
    }

    /// Fails unless every byte was consumed.
    pub fn finish(&self, field: impl Field) -> Result<(), FormatError> {
        if self.remaining() == 0 {
            Ok(())
        } else {
            Err(self.error(
                field,
                FormatReason::TrailingBytes {
                    count: self.remaining() as u64,
                },
            ))
        }
    }
}

/// A little-endian writer into a growable buffer: every header, record and length of every
/// format is written through it.
#[derive(Debug, Default, Clone)]
pub struct Writer {
    buf: Vec<u8>,
}

impl Writer {
    /// An empty writer with room for `cap` bytes.
    pub fn with_capacity(cap: usize) -> Self {
        Self {
            buf: Vec::with_capacity(cap),
        }
    }

    /// Bytes written so far.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// True before anything is written.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// Appends raw bytes.
    #[inline]
    pub fn bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }

    /// Appends the first `n` bytes of `run`. All of `run` is copied first (one fixed-size move)
    /// and then cut back, which is faster than a copy of variable length for short runs; `n`
    /// must not exceed `N`.
    #[inline]
    pub(crate) fn bytes_of_run<const N: usize>(&mut self, run: &[u8; N], n: usize) {
        let keep = self.buf.len() + n.min(N);
        self.buf.extend_from_slice(run);
        self.buf.truncate(keep);
    }

    /// Appends a u8.
    #[inline]
    pub fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }

    /// Appends a little-endian u16.
    #[inline]
    pub fn u16(&mut self, v: u16) {
        self.bytes(&v.to_le_bytes());
    }

    /// Appends a little-endian u32.
    #[inline]
    pub fn u32(&mut self, v: u32) {
        self.bytes(&v.to_le_bytes());
    }

    /// Appends a little-endian i32.
    #[inline]
    pub fn i32(&mut self, v: i32) {
        self.bytes(&v.to_le_bytes());
    }

    /// Appends a little-endian binary64.
    #[inline]
    pub fn f64(&mut self, v: f64) {
        self.bytes(&v.to_le_bytes());
    }

    /// Appends the file header every format starts with (§1.1): the magic, the version and
    /// flags 0; the counterpart of [`Reader::header`].
    pub fn header(&mut self, magic: [u8; 4], version: u16) {
        self.bytes(&magic);
        self.u16(version);
        self.u16(0);
    }

    /// Appends a u32 length and then what `body` writes, the length being the number of bytes
    /// `body` wrote; the counterpart of [`Reader::length_prefixed`]. A body longer than
    /// `u32::MAX` bytes (which no format allows, and no writer of this crate produces) is given
    /// the length `u32::MAX`, which every reader rejects.
    pub fn length_prefixed(&mut self, body: impl FnOnce(&mut Writer)) {
        let at = self.buf.len();
        self.u32(0);
        body(self);
        let n = self.buf.len() - at - 4;
        let n = u32::try_from(n).unwrap_or(u32::MAX);
        self.buf[at..at + 4].copy_from_slice(&n.to_le_bytes());
    }

    /// The bytes written.
    pub fn into_inner(self) -> Vec<u8> {
        self.buf
    }
}
