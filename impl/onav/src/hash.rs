//! A fixed, fast hasher for the crate's look-up-only hash maps (the cell index, the query's node
//! table). Its keys are small integers that an adversary gains nothing by colliding (each map
//! holds at most one entry per tile or per search node), so a multiply-rotate hash with no random
//! key serves, and runs the same on every platform. The maps are never iterated into an output,
//! so the hash affects speed only, never a result.

use std::hash::{BuildHasherDefault, Hasher};

/// `BuildHasher` of [`Fixed`].
pub(crate) type FixedState = BuildHasherDefault<Fixed>;

/// A multiply-rotate hasher over 64-bit words (the FxHash construction) with a final mix, so
/// that the low bits the table indexes by depend on every input bit.
#[derive(Default, Clone, Copy)]
pub(crate) struct Fixed(u64);

const K: u64 = 0xf135_7aea_2e62_a9c5;

impl Hasher for Fixed {
    #[inline]
    fn finish(&self) -> u64 {
        let h = self.0;
        (h ^ (h >> 32)).wrapping_mul(K) ^ (h >> 29)
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for c in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            self.write_u64(u64::from_le_bytes(w));
        }
    }
    #[inline]
    fn write_u8(&mut self, v: u8) {
        self.write_u64(u64::from(v));
    }
    #[inline]
    fn write_u32(&mut self, v: u32) {
        self.write_u64(u64::from(v));
    }
    #[inline]
    fn write_i32(&mut self, v: i32) {
        self.write_u64(u64::from(v as u32));
    }
    #[inline]
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(26) ^ v).wrapping_mul(K);
    }
    #[inline]
    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }
}
