//! The splitmix64 stream that draws the query points and pairs
//! (`shared/research/detour-figures.md`, "RNG"), reseeded per mesh.

/// The seed every mesh starts from.
pub const SEED: u64 = 0x5EED_DE70_0000_0001;

/// splitmix64.
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    s: u64,
}

impl SplitMix64 {
    /// A stream at `seed`.
    pub fn new(seed: u64) -> Self {
        Self { s: seed }
    }

    /// The next 64 bits.
    pub fn next_u64(&mut self) -> u64 {
        self.s = self.s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform f32 in [0, 1): the top 24 bits over 2^24.
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u32 << 24) as f32
    }

    /// A uniform integer in 0 .. n: `((next >> 32) · n) >> 32`.
    pub fn below(&mut self, n: u32) -> u32 {
        (((self.next_u64() >> 32) * u64::from(n)) >> 32) as u32
    }
}

/// A point drawn in the box `bmin..bmax`, x, y, z in turn.
pub fn point(rng: &mut SplitMix64, bmin: [f32; 3], bmax: [f32; 3]) -> [f32; 3] {
    let mut p = [0.0f32; 3];
    for k in 0..3 {
        p[k] = bmin[k] + rng.unit() * (bmax[k] - bmin[k]);
    }
    p
}

/// `n` points drawn in the box `bmin..bmax`.
pub fn points(rng: &mut SplitMix64, bmin: [f32; 3], bmax: [f32; 3], n: usize) -> Vec<[f32; 3]> {
    (0..n).map(|_| point(rng, bmin, bmax)).collect()
}

/// `n` pairs of indices into `found` (drawn with replacement), or none when `found` is empty.
pub fn pairs(rng: &mut SplitMix64, found: &[usize], n: usize) -> Vec<(usize, usize)> {
    if found.is_empty() {
        return Vec::new();
    }
    let nf = found.len() as u32;
    (0..n)
        .map(|_| {
            let a = found[rng.below(nf) as usize];
            let b = found[rng.below(nf) as usize];
            (a, b)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_reference_values() {
        // Reference outputs of splitmix64 seeded with 0 (Vigna's published sequence).
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn below_stays_in_range() {
        let mut r = SplitMix64::new(SEED);
        assert!((0..1000).all(|_| r.below(7) < 7));
        assert!((0..1000).all(|_| (0.0..1.0).contains(&r.unit())));
    }
}
