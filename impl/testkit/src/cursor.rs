//! Decisions read from fuzz input.

use onav::limits::MAX_GENERATION;

/// Reads decisions from fuzz input; past the end every read is 0 and [`Cursor::done`] is true.
#[derive(Debug, Clone)]
pub struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Self { data, pos: 0 }
    }

    /// True once every byte was read.
    pub fn done(&self) -> bool {
        self.pos >= self.data.len()
    }

    /// A byte.
    pub fn u8(&mut self) -> u8 {
        let v = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        v
    }

    /// Two bytes, little-endian.
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }

    /// Four bytes, little-endian.
    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }

    /// Eight bytes, little-endian.
    pub fn u64(&mut self) -> u64 {
        u64::from(self.u32()) | u64::from(self.u32()) << 32
    }

    /// The low bit of a byte.
    pub fn bool(&mut self) -> bool {
        self.u8() & 1 == 1
    }

    /// An index below `n` (0, reading nothing, when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            usize::from(self.u16()) % n
        }
    }

    /// A u32 near the interesting boundaries of `around` (a count or an index limit).
    pub fn near(&mut self, around: u32) -> u32 {
        match self.u8() % 8 {
            0 => around,
            1 => around.wrapping_add(1),
            2 => around.wrapping_sub(1),
            3 => 0,
            4 => u32::MAX,
            5 => u32::from(self.u8()),
            6 => MAX_GENERATION
                .wrapping_add(u32::from(self.u8() % 3))
                .wrapping_sub(1),
            _ => self.u32(),
        }
    }
}
