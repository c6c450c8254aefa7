//! splitmix64: the one small seeded generator used everywhere (Zobrist-free randomness for
//! baselines, openings, benchmarks and tests), so every random choice reproduces from its seed.

#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    // A generator never ends, so it is no Iterator; `next` is the name every PRNG crate uses.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        splitmix(&mut self.0)
    }

    /// Uniform enough in `0..n` for n far below 2^64 (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// An index into a slice of `len` elements (len > 0).
    pub fn index(&mut self, len: usize) -> usize {
        self.below(len as u64) as usize
    }
}

/// The splitmix64 output for the state `x` (one step from `x`, stateless): a fixed hash of `x`,
/// used for Zobrist terms and tie-breaks.
#[inline]
pub fn mix(mut x: u64) -> u64 {
    splitmix(&mut x)
}

/// One step of splitmix64 on a bare state.
pub fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
