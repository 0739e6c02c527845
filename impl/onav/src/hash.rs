//! A fixed, keyless hasher for the crate's lookup-only hash maps (the cell index, position and
//! library look-ups). Its order never reaches an output: those maps are only looked up by key,
//! never iterated into one (`clippy.toml`). It is fixed rather than randomly keyed so that a
//! benchmark repeats, and cheap because the keys are small integers and SHA-256 outputs, which
//! need no defence against chosen collisions beyond what `spec/security.md` §5 already bounds:
//! a look-up costs at most the entries of one bucket chain, and every map here holds at most one
//! entry per slot or tile of the input.

use std::hash::{BuildHasher, Hasher};

/// Builds [`FixedHasher`]s.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Fixed;

impl BuildHasher for Fixed {
    type Hasher = FixedHasher;

    #[inline]
    fn build_hasher(&self) -> FixedHasher {
        FixedHasher(0)
    }
}

/// A multiply-rotate hasher over 64-bit words (the `FxHash` scheme): each word is mixed in by
/// `h = (h.rotate_left(5) ^ word) · K`, and `finish` spreads the high bits down.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FixedHasher(u64);

const K: u64 = 0xf135_7aea_2e62_a9c5;

impl FixedHasher {
    #[inline]
    fn mix(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(K);
    }
}

impl Hasher for FixedHasher {
    #[inline]
    fn finish(&self) -> u64 {
        // The low bits of a product depend only on the low bits of its factors; hashbrown picks
        // buckets with the low bits and control bytes with the top 7, so fold the top half in.
        self.0 ^ (self.0 >> 32)
    }

    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.mix(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.mix(u64::from_le_bytes(w) ^ ((rest.len() as u64) << 59));
        }
    }

    #[inline]
    fn write_u8(&mut self, v: u8) {
        self.mix(u64::from(v));
    }

    #[inline]
    fn write_u16(&mut self, v: u16) {
        self.mix(u64::from(v));
    }

    #[inline]
    fn write_u32(&mut self, v: u32) {
        self.mix(u64::from(v));
    }

    #[inline]
    fn write_u64(&mut self, v: u64) {
        self.mix(v);
    }

    #[inline]
    fn write_usize(&mut self, v: usize) {
        self.mix(v as u64);
    }

    #[inline]
    fn write_i32(&mut self, v: i32) {
        self.mix(u64::from(v as u32));
    }
}

/// A lookup-only hash map with the fixed hasher.
#[allow(clippy::disallowed_types)] // The alias itself; every use is lookup-only (module docs).
pub(crate) type FixedMap<K, V> = std::collections::HashMap<K, V, Fixed>;

#[cfg(test)]
mod tests {
    use super::Fixed;
    use std::hash::{BuildHasher, Hash};

    fn hash<T: Hash>(v: T) -> u64 {
        Fixed.hash_one(v)
    }

    #[test]
    fn neighbouring_cells_spread_over_the_low_bits() {
        // A 64 × 64 block of cells, hashed to 4096 buckets by the low 12 bits: no bucket may
        // hold many (a weak mix would stack whole rows into one bucket).
        let mut buckets = vec![0u32; 4096];
        for c in -32..32 {
            for r in -32..32 {
                buckets[(hash((c, r)) & 4095) as usize] += 1;
            }
        }
        assert!(
            *buckets.iter().max().unwrap() <= 8,
            "{:?}",
            buckets.iter().max()
        );
    }

    #[test]
    fn byte_writes_depend_on_every_byte_and_the_length() {
        assert_ne!(hash([1u8; 9].as_slice()), hash([1u8; 10].as_slice()));
        assert_ne!(hash([0u8; 3].as_slice()), hash([0u8; 4].as_slice()));
        let mut a = [7u8; 32];
        let h = hash(a);
        for i in 0..32 {
            a[i] ^= 1;
            assert_ne!(hash(a), h, "byte {i}");
            a[i] ^= 1;
        }
    }
}
