//! Fixed-size bitboards over the padded point indices of [`super::board::Board`]:
//! `W` 64-bit words (7 cover a 19x19 board, 11 cover 25x25).
// Indexed word loops read best (and vectorise) here.
#![allow(clippy::needless_range_loop)]

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Bits<const W: usize>(pub [u64; W]);

impl<const W: usize> Default for Bits<W> {
    fn default() -> Self {
        Bits([0; W])
    }
}

impl<const W: usize> Bits<W> {
    #[inline]
    pub fn zero() -> Self {
        Bits([0; W])
    }

    #[inline]
    pub fn single(p: usize) -> Self {
        let mut b = Self::zero();
        b.set(p);
        b
    }

    #[inline]
    pub fn set(&mut self, p: usize) {
        self.0[p >> 6] |= 1 << (p & 63);
    }

    #[inline]
    pub fn clear(&mut self, p: usize) {
        self.0[p >> 6] &= !(1 << (p & 63));
    }

    #[inline]
    pub fn has(&self, p: usize) -> bool {
        self.0[p >> 6] >> (p & 63) & 1 != 0
    }

    #[inline]
    pub fn is_zero(&self) -> bool {
        self.0.iter().fold(0, |a, &w| a | w) == 0
    }

    #[inline]
    pub fn and(&self, o: &Self) -> Self {
        let mut r = [0; W];
        for i in 0..W {
            r[i] = self.0[i] & o.0[i];
        }
        Bits(r)
    }

    #[inline]
    pub fn or(&self, o: &Self) -> Self {
        let mut r = [0; W];
        for i in 0..W {
            r[i] = self.0[i] | o.0[i];
        }
        Bits(r)
    }

    #[inline]
    pub fn and_not(&self, o: &Self) -> Self {
        let mut r = [0; W];
        for i in 0..W {
            r[i] = self.0[i] & !o.0[i];
        }
        Bits(r)
    }

    #[inline]
    pub fn intersects(&self, o: &Self) -> bool {
        let mut acc = 0;
        for i in 0..W {
            acc |= self.0[i] & o.0[i];
        }
        acc != 0
    }

    /// Whether every bit of `self` is in `o`.
    #[inline]
    pub fn is_subset(&self, o: &Self) -> bool {
        let mut acc = 0;
        for i in 0..W {
            acc |= self.0[i] & !o.0[i];
        }
        acc == 0
    }

    /// The lowest set bit, if any.
    #[inline]
    pub fn first(&self) -> Option<usize> {
        for i in 0..W {
            if self.0[i] != 0 {
                return Some(i * 64 + self.0[i].trailing_zeros() as usize);
            }
        }
        None
    }

    /// `self` with every bit also moved by +1, -1, +stride and -stride (not masked).
    #[inline]
    pub fn spread(&self, stride: usize) -> Self {
        let mut r = self.0;
        let (ws, bs) = (stride >> 6, (stride & 63) as u32);
        for i in 0..W {
            let w = self.0[i];
            // +1 and -1.
            let lo = if i > 0 { self.0[i - 1] >> 63 } else { 0 };
            let hi = if i + 1 < W { self.0[i + 1] << 63 } else { 0 };
            r[i] |= (w << 1) | lo | (w >> 1) | hi;
        }
        // +stride and -stride (stride < 64 for boards up to 25x25, so ws == 0).
        debug_assert!(ws == 0 && bs > 0);
        for i in 0..W {
            let w = self.0[i];
            let up = if i > 0 { self.0[i - 1] >> (64 - bs) } else { 0 };
            let down = if i + 1 < W {
                self.0[i + 1] << (64 - bs)
            } else {
                0
            };
            r[i] |= (w << bs) | up | (w >> bs) | down;
        }
        Bits(r)
    }

    /// The points of `mask` connected to `seed` (which must lie in `mask`).
    #[inline]
    pub fn flood(seed: &Self, mask: &Self, stride: usize) -> Self {
        Self::flood_spread(seed, mask, stride).0
    }

    /// [`Bits::flood`], and the component's [`Bits::spread`] (the last step computes it anyway).
    #[inline]
    pub fn flood_spread(seed: &Self, mask: &Self, stride: usize) -> (Self, Self) {
        let mut cur = *seed;
        loop {
            let spread = cur.spread(stride);
            let next = spread.and(mask);
            // A word-wise test: `==` on arrays would call memcmp.
            let mut grew = 0;
            for i in 0..W {
                grew |= next.0[i] ^ cur.0[i];
            }
            if grew == 0 {
                return (cur, spread);
            }
            cur = next;
        }
    }

    pub fn iter(&self) -> BitIter<'_, W> {
        BitIter {
            bits: self,
            word: 0,
            current: self.0[0],
        }
    }

    pub fn count(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }
}

pub struct BitIter<'a, const W: usize> {
    bits: &'a Bits<W>,
    word: usize,
    current: u64,
}

impl<const W: usize> Iterator for BitIter<'_, W> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.current == 0 {
            self.word += 1;
            if self.word >= W {
                return None;
            }
            self.current = self.bits.0[self.word];
        }
        let b = self.current.trailing_zeros() as usize;
        self.current &= self.current - 1;
        Some(self.word * 64 + b)
    }
}
